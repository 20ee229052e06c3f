#!/bin/sh
# tests/e2e/perf_pt.sh - Intel PT and the perf script forms around it, on
# the AutoFDO path (issue 18, part 2), with the hand-made texts of
# samples/perf/pt (its README gives the program and thread A's branches
# A1..A9). Every expected AutoFDO file below is computed by hand from the
# text, with AutoFDO's rule (research/autofdo.md section 4): for a branch
# sample, the range [previous branch's TO, this branch's FROM] and the
# branch FROM->TO, each once; trace starts (tr strt, FROM 0) and ends
# (tr end, TO 0) are no branches; a range is never drawn across a trace
# start, a change of thread or a trace error; the address section counts
# each sample's leaf (a branch sample's FROM) in the first samples column,
# the sampled event's. Addresses are written as vaddr - 0x400000 (--base
# 0x400000, the MMAP2 record of il-header, or the ELF of --binary).
#
#   1. PT branch samples with flags, two threads on two CPUs interleaved,
#      cbr/pwre/exstop samples (a cbr first), an interrupt into the kernel
#      and a trace error: exact ranges, addresses, branches; the default
#      column of report, pprof and the AutoFDO writer is branches.
#   2. The same without event and cpu fields (per-thread chains).
#   3. Header-less -F ip,addr.
#   4. --itrace=il brstack without mmap events: exact with --base 0x400000
#      or with --binary naming a non-PIE ELF (built here with gcc when
#      there is one); with neither, exit 1 and a message that says why and
#      what to give.
#   5. --itrace=il brstack with --header, the MMAP2 record, cbr/pwre/exstop:
#      no columns for intel_pt//u and dummy:u, instructions is the default
#      and the AutoFDO event column.
#   6. +srcline single-line samples: same figures as 3, frames with lines.
#   7. --insn-trace --xed: one address per instruction, no bogus dso.
#   8. brstacksym with dso (first entry glued to the ip's dso): addresses
#      from the frames' SYM+0xOFF, exact; an end in an unseen function is
#      counted in a warning. brstacksym glued to the ip reads.
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
profconv=${PROFCONV:-$top/build/profconv}
pt=${SAMPLES:-$top/samples}/perf/pt
tmp=${TMPDIR:-/tmp}
fail=0

[ -x "$profconv" ] || { echo "SKIPPED: profconv is not built ($profconv)"; exit 77; }
[ -f "$pt/branches.perf.txt" ] || { echo "SKIPPED: no samples in $pt"; exit 77; }

bad() {
	echo "FAIL: $*"
	fail=1
}

# afdo NAME EXPECTED-FILE INPUT [OPTIONS...]: the AutoFDO text must be EXPECTED exactly
afdo() {
	name=$1 expected=$2 input=$3
	shift 3
	if ! "$profconv" convert -t autofdo -o "$tmp/$name.afdo" "$@" "$pt/$input" \
		2> "$tmp/$name.err"; then
		bad "$name: profconv failed: $(cat "$tmp/$name.err")"
		return
	fi
	cmp -s "$tmp/$name.afdo" "$expected" ||
		bad "$name: AutoFDO text differs (-expected +got): $(diff "$expected" "$tmp/$name.afdo" | tr '\n' '|')"
}

# stderr_has NAME TEXT / stderr_lacks NAME TEXT: of the last afdo NAME
stderr_has() {
	grep -qF -- "$2" "$tmp/$1.err" || bad "$1: no message '$2' in: $(cat "$tmp/$1.err")"
}
stderr_lacks() {
	grep -qF -- "$2" "$tmp/$1.err" && bad "$1: unexpected message '$2': $(cat "$tmp/$1.err")"
	return 0
}

# default_column INPUT COLUMN-OF-REPORT PPROF-TYPE: the default of report and
# pprof (its period type too, when periods are printed)
default_column() {
	"$profconv" report "$pt/$1" > "$tmp/report.txt" 2> /dev/null || bad "report $1"
	grep -q "^column: *$2 (count), the default" "$tmp/report.txt" ||
		bad "$1: report's default is not $2: $(grep '^column:' "$tmp/report.txt")"
	[ -x "${PPROF:-}" ] || return 0
	"$profconv" convert -q -o "$tmp/d.pb.gz" "$pt/$1" 2> /dev/null || bad "pprof of $1"
	"$PPROF" -raw "$tmp/d.pb.gz" > "$tmp/d.raw" 2> /dev/null || bad "pprof -raw of $1"
	grep -q "^PeriodType: \($3 count\| \)$" "$tmp/d.raw" || bad "$1: pprof period type is not $3"
	awk '/^Samples:/ { getline; print; exit }' "$tmp/d.raw" | tr ' ' '\n' |
		grep -qx "$3/count\[dflt\]" || bad "$1: pprof's default sample type is not $3"
}

# ---- 1. branches.perf.txt: PT branch samples, flags, two CPUs, side events ----
# Thread A (tid 5001, cpu 0): A1-A9 of the README, then A10 tr strt => 401150,
# A11 jcc 40115a => 401154, a trace error of cpu 0 / tid 5001, A12 jcc
# 40115a => 401154. Thread B (tid 5002, cpu 1): B1 tr strt => 401126, B2 call
# 401136 => 401150, B3 hw int 401158 => kernel, B4 kernel jmp, B5 iret
# kernel => 401158, B6 jcc 40115a => 401154, B7 return 401160 => 40113b,
# B8 tr end 401142 => 0.
#   ranges  A2 [1126,1136] A3 [1150,115a] A4 [1154,115a] A5 [1154,1160]
#           A6 [113b,1142] (tr end async: up to FROM) A7 none (tr strt)
#           A8 [1142,114a] A9 [1126,112a] A11 [1150,115a] A12 none (after
#           the error) B2 [1126,1136] B3 [1150,1158] B4/B5 kernel ones (not
#           this binary) B6 [1158,115a] B7 [1154,1160] B8 [113b,1142]
#   branches A2 B2 1136->1150; A3 A4 A11 A12 B6 115a->1154; A5 B7
#           1160->113b; A8 114a->1126; B3 and B5 cross into the kernel
#   addresses (FROMs) 112a A9; 1136 A2 B2; 1142 A6 B8; 114a A8; 1158 B3;
#           115a A3 A4 A11 A12 B6; 1160 A5 B7 (cbr/pwre/exstop: not counted)
cat > "$tmp/branches.expected" <<'EOF'
9
1126-112a:1
1126-1136:2
113b-1142:2
1142-114a:1
1150-1158:1
1150-115a:2
1154-115a:1
1154-1160:2
1158-115a:1
7
112a:1
1136:2
1142:2
114a:1
1158:1
115a:5
1160:2
4
1136->1150:2
114a->1126:1
115a->1154:5
1160->113b:2
EOF
afdo branches "$tmp/branches.expected" branches.perf.txt --binary ptdemo --base 0x400000
stderr_lacks branches "left out"
stderr_lacks branches "dropped"
default_column branches.perf.txt branches_event branches

# ---- 2. branches-noevent.perf.txt: -F comm,tid,time,flags,ip,sym,symoff,addr,dso ----
# Threads 6001 (A1-A9) and 6002 (A1-A5) interleaved, chained per thread:
#   ranges  [1126,1136] A2 x2; [1150,115a] A3 x2; [1154,115a] A4 x2;
#           [1154,1160] A5 x2; [113b,1142] A6; [1142,114a] A8; [1126,112a] A9
#   branches 1136->1150 x2; 115a->1154 x4; 1160->113b x2; 114a->1126
#   addresses 112a; 1136 x2; 1142; 114a; 115a x4; 1160 x2
cat > "$tmp/noevent.expected" <<'EOF'
7
1126-112a:1
1126-1136:2
113b-1142:1
1142-114a:1
1150-115a:2
1154-115a:2
1154-1160:2
6
112a:1
1136:2
1142:1
114a:1
115a:4
1160:2
4
1136->1150:2
114a->1126:1
115a->1154:4
1160->113b:2
EOF
afdo noevent "$tmp/noevent.expected" branches-noevent.perf.txt --binary ptdemo --base 0x400000
default_column branches-noevent.perf.txt branches_event branches

# ---- 3. ip-addr.perf.txt: -F ip,addr, no header ----
# A1-A9 in one chain: ranges A2 [1126,1136] A3 [1150,115a] A4 [1154,115a]
# A5 [1154,1160] A6 [113b,1142] A8 [1142,114a] A9 [1126,112a]; branches
# A2, A3+A4, A5, A8; addresses the FROMs of A2-A6, A8, A9.
cat > "$tmp/one-a.expected" <<'EOF'
7
1126-112a:1
1126-1136:1
113b-1142:1
1142-114a:1
1150-115a:1
1154-115a:1
1154-1160:1
6
112a:1
1136:1
1142:1
114a:1
115a:2
1160:1
4
1136->1150:1
114a->1126:1
115a->1154:2
1160->113b:1
EOF
afdo ip-addr "$tmp/one-a.expected" ip-addr.perf.txt --base 0x400000
stderr_has ip-addr "branch samples without a cpu, tid or pid field were chained in text order"

# ---- 4. il-brstack.perf.txt: -F ip,brstack, no mmap events ----
# S1 ip 40115c [A4 A3 A2 A1]: branch A4; range [1154,115a] + branch A3;
#    range [1150,115a] + branch A2; range [1126,1136] (A1 starts the trace).
# S2 ip 401128 [A8 A7 A6 A5 A4]: branch A8; range [1142,114a] (A7 no branch);
#    A6 ends the trace: no range to 0; range [113b,1142] + branch A5;
#    range [1154,1160] + branch A4.
cat > "$tmp/il.expected" <<'EOF'
6
1126-1136:1
113b-1142:1
1142-114a:1
1150-115a:1
1154-115a:1
1154-1160:1
2
1128:1
115c:1
4
1136->1150:1
114a->1126:1
115a->1154:3
1160->113b:1
EOF
afdo il-base "$tmp/il.expected" il-brstack.perf.txt --binary ptdemo --base 0x400000
stderr_lacks il-base "below --base"
# neither --base nor a readable ELF: no silent empty profile
if "$profconv" convert -t autofdo --binary ptdemo -o "$tmp/il-none.afdo" "$pt/il-brstack.perf.txt" \
	2> "$tmp/il-none.err"; then
	bad "il-brstack without --base or ELF: converted to $(head -n 1 "$tmp/il-none.afdo") ranges"
else
	[ $? -eq 1 ] || bad "il-brstack without --base or ELF: exit status is not 1"
	stderr_has il-none "give --base ADDR, --binary FILE or perf script --show-mmap-events"
	[ -e "$tmp/il-none.afdo" ] && bad "il-brstack without --base or ELF: an output file was left"
fi
# --binary naming a non-PIE ELF whose text covers 0x401000-0x401500: its vaddrs
if command -v gcc > /dev/null 2>&1; then
	printf 'int main(void)\n{\n\t__asm__ volatile(".fill 1280, 1, 0x90");\n\treturn 0;\n}\n' \
		> "$tmp/ptdemo.c"
	if gcc -O0 -no-pie -o "$tmp/ptdemo" "$tmp/ptdemo.c" 2> "$tmp/gcc.err"; then
		afdo il-elf "$tmp/il.expected" il-brstack.perf.txt --binary "$tmp/ptdemo"
		stderr_lacks il-elf "left out (give --base"
	else
		bad "gcc -no-pie: $(cat "$tmp/gcc.err")"
	fi
else
	echo "note: gcc is missing: --binary with a non-PIE ELF not checked"
fi

# ---- 5. il-header.perf.txt: --header, MMAP2, side events first ----
afdo il-header "$tmp/il.expected" il-header.perf.txt --binary ptdemo
stderr_lacks il-header "left out"
"$profconv" convert -t dump -o "$tmp/il-header.dump" "$pt/il-header.perf.txt" 2> /dev/null ||
	bad "dump of il-header"
grep -q '^column 0 "instructions:u_sample"' "$tmp/il-header.dump" ||
	bad "il-header: the first column is not instructions:u_sample: $(grep '^column' "$tmp/il-header.dump" | tr '\n' '|')"
grep '^column' "$tmp/il-header.dump" | grep -q 'intel_pt\|dummy' &&
	bad "il-header: columns for events that have no samples"
default_column il-header.perf.txt instructions:u_event instructions

# ---- 6. srcline.perf.txt: -F ...,srcline (single-line samples) ----
# A1-A9 as in 3 (the instructions sample is in a column of its own), and
# each FROM frame gets the line printed under it.
afdo srcline "$tmp/one-a.expected" srcline.perf.txt --binary ptdemo --base 0x400000
"$profconv" convert -t dump -o "$tmp/srcline.dump" "$pt/srcline.perf.txt" 2> /dev/null ||
	bad "dump of srcline"
for want in '+0x401136 "main" "/home/user/demo/ptdemo.c":12' \
	'+0x40115a "work" "/home/user/demo/ptdemo.c":5' \
	'+0x401154 "work" "/home/user/demo/ptdemo.c":4'; do
	grep -qF "frame \"/home/user/demo/ptdemo\"$want" "$tmp/srcline.dump" ||
		bad "srcline: no frame $want"
done

# ---- 7. xed.perf.txt: --insn-trace --xed ----
# 12 instructions: 401126 401127 40112a 401136 401150, 401154 401158 40115a
# twice, 40115c; no branch stack. "(%rbp)" and "(%rax)" are no dso.
cat > "$tmp/xed.expected" <<'EOF'
0
9
1126:1
1127:1
112a:1
1136:1
1150:1
1154:2
1158:2
115a:2
115c:1
0
EOF
afdo xed "$tmp/xed.expected" xed.perf.txt --binary ptdemo --base 0x400000
"$profconv" convert -t dump -o "$tmp/xed.dump" "$pt/xed.perf.txt" 2> /dev/null || bad "dump of xed"
n=$(grep -c '^module ' "$tmp/xed.dump" 2> /dev/null)
[ "${n:-0}" -eq 1 ] ||
	bad "xed: modules other than ptdemo: $(grep '^module ' "$tmp/xed.dump" | tr '\n' '|')"

# ---- 8. brstacksym ----
# P1 ip 40112e main+0x8 (main = 401126) [A1]: nothing (A1 starts the trace).
# P2 ip 401156 work+0x6 (work = 401150) [A3 A2 A1]: branch A3; range
#    [1150,115a] + branch A2; range [1126,1136].
# P3 ip 401128 main+0x2 [A8 A7 A6 A5 A4]: branch A8; range [1142,114a];
#    range [113b,1142] + branch A5; range [1154,1160] + branch A4.
# P4 ip 40115c work+0xc [work+0xa/helper+0x3, A3]: helper's address is
#    never printed: no branch for entry 0; range [1154,115a] + branch A3.
cat > "$tmp/brstacksym.expected" <<'EOF'
6
1126-1136:1
113b-1142:1
1142-114a:1
1150-115a:1
1154-115a:1
1154-1160:1
4
1128:1
112e:1
1156:1
115c:1
4
1136->1150:1
114a->1126:1
115a->1154:3
1160->113b:1
EOF
afdo brstacksym "$tmp/brstacksym.expected" brstacksym.perf.txt --binary ptdemo --base 0x400000
stderr_has brstacksym "perf-script: 1 brstacksym branch end(s) SYM+0xOFF have no address"
# -F ip,brstacksym: the ip is split from the glued entry; no symbol address is known
"$profconv" convert -t dump -o "$tmp/brstacksym-ip.dump" "$pt/brstacksym-ip.perf.txt" \
	2> "$tmp/brstacksym-ip.err" || bad "brstacksym-ip: $(cat "$tmp/brstacksym-ip.err")"
n=$(grep -c '^  frame ?@0x40115c$\|^  frame ?@0x401128$' "$tmp/brstacksym-ip.dump" 2> /dev/null)
[ "${n:-0}" -eq 2 ] || bad "brstacksym-ip: the ips are not split from the entries"
n=$(grep -c '^  branch ' "$tmp/brstacksym-ip.dump" 2> /dev/null)
[ "${n:-0}" -eq 9 ] || bad "brstacksym-ip: not 9 entries"
stderr_has brstacksym-ip "15 brstacksym branch end(s)"

# an instructions sample before the first branches sample makes instructions the
# default column; the branch samples' stacks still give every range and branch
(sed -n 8,9p "$pt/srcline.perf.txt"; sed '8,9d' "$pt/srcline.perf.txt") > "$tmp/mixed.perf.txt"
"$profconv" convert -q -f perf-script -t autofdo --binary ptdemo --base 0x400000 \
	-o "$tmp/mixed.afdo.txt" "$tmp/mixed.perf.txt" || bad "mixed: conversion failed"
sed -n '1p' "$tmp/mixed.afdo.txt" | grep -qx 7 && grep -qx '115a->1154:2' "$tmp/mixed.afdo.txt" ||
	bad "mixed: ranges or branches lost when instructions is the default column: $(cat "$tmp/mixed.afdo.txt")"

[ $fail -eq 0 ] && echo "perf pt: 8 forms, exact AutoFDO ranges, branches and default columns"
exit $fail
