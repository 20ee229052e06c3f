#!/bin/sh
# The AutoFDO loop closed (issue 18): perf record -> profconv -> a gcc 12,
# gcc 11 or clang 14 build that uses the profile, on samples/autofdo/hotpath.c.
#
# (a) gcc 12, IP samples: `gcc-12 -O2 -g`, perf record -e cpu-clock,
#     perf.data -> -t gcc-afdo; gcc-12 -fauto-profile annotates at least 20
#     blocks "(auto FDO)" and marks work hot; the program prints the same.
#     Exact: the decoded file equals tests/oracle/afdo_expect.py's
#     independent computation (llvm-symbolizer, objdump, nm) from
#     profconv's -t autofdo text of the same recording.
# (b) gcc 11: --afdo-version 1 of the same recording; gcc-11 annotates
#     blocks; dump_gcov 0.19 reads the file and lists work.
# (c) create_gcov agrees: a -gdwarf-4 build (create_gcov 0.19 reads no
#     DWARF 5); create_gcov --use_lbr=false on profconv's -t autofdo text
#     gives, line by line (discriminators merged by max, as gcc reads them),
#     the counts of -t gcc-afdo --afdo-version 1, both read by dump_gcov;
#     the call floor (a 1 where create_gcov has 0 or nothing) and heads
#     (create_gcov writes none from IP samples) excepted.
# (d) LBR: branch stacks synthesized from the program's real control flow
#     (tests/oracle/lbr_synth.py over a valgrind lackey trace of a -no-pie
#     -gdwarf-4 build): create_gcov (its default --use_lbr) and -t gcc-afdo
#     agree on every line, head and call target; the oracle agrees too;
#     gcc-12 builds with the profile and promotes the indirect call of work
#     to its hot target mix_add from the call targets. The same branch stacks as an SPT
#     with LBR records (-t spt, then --lbr-ranges) give the same counts for
#     the functions whose branches all lie in the binary, and gcc-12 builds
#     with that profile.
# (e) clang 14: `-O2 -gline-tables-only -fdebug-info-for-profiling`,
#     -t llvm-sample equals the oracle (LLVM flavour), llvm-profdata-14
#     merges it and clang-14 -fprofile-sample-use says "Applied N samples";
#     the same from LBR data of a clang -no-pie build, as perf brstack text
#     and as an SPT's LBR records.
# (f) errors: no --binary, a binary without DWARF, --afdo-version 3, a
#     non-ELF --binary, another build of the program (perf.data's build id
#     differs): clear messages, exit 1 (2 for the option value), no output
#     file. SPT LBR records without --lbr-ranges give the IP samples'
#     profile with a warning naming --lbr-ranges, no heads from branch
#     counts; --base is ignored, with a warning, for a non-PIE binary.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
for tool in gcc-12 gcc-11 clang-14 llvm-profdata-14 llvm-symbolizer-14 perf create_gcov dump_gcov \
	valgrind python3 objdump nm readelf; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "FAIL: $tool is not installed (make deps installs it)"; exit 1; }
done
src=$here/samples/autofdo/hotpath.c
oracle=$here/tests/oracle
fail=0
cd "$TMPDIR" || exit 2

bad() { echo "FAIL: $*"; fail=1; }

record() { # BINARY DATA ROUNDS
	perf record -q -e cpu-clock -F 10000 -o "$2" "./$1" "$3" > /dev/null 2>&1 ||
		bad "perf record ./$1"
}

convert() { # args... (quiet; failures are test failures)
	"$PROFCONV" convert -q "$@" || bad "profconv convert $*"
}

# same_output BIN1 BIN2: the two builds print the same checksum
same_output() {
	[ "$("./$1" 50)" = "$("./$2" 50)" ] || bad "$2 prints $("./$2" 50), $1 $("./$1" 50)"
}

# fdo_blocks DUMP FLOOR: gcc annotated at least FLOOR blocks from the profile
fdo_blocks() {
	n=$(grep -c '(auto FDO)' "$1")
	echo "$1: $n blocks with (auto FDO) counts"
	[ "$n" -ge "$2" ] || bad "$1: only $n blocks annotated (auto FDO), expected >= $2"
	grep -q '^;; Function work .*(hot)' "$1" || bad "$1: work is not marked hot"
}

# oracle_check PROFILE FLAVOUR BINARY AUTOFDO_TEXT: profconv's file equals the oracle
oracle_check() {
	if [ "$2" = gcc ]; then
		python3 "$oracle/afdo_decode.py" "$1" > "$1.got" || bad "afdo_decode.py $1"
	else
		python3 "$oracle/llvm_sample_canon.py" "$1" > "$1.got" || bad "llvm_sample_canon.py $1"
	fi
	python3 "$oracle/afdo_expect.py" --binary "$3" --flavour "$2" "$4" > "$1.expected" 2> "$1.oracle.log" ||
		bad "afdo_expect.py $4"
	grep -v '^version' "$1.got" > "$1.got.body"
	if diff "$1.expected" "$1.got.body" > "$1.diff"; then
		echo "$1: $(grep -c '^pos' "$1.got") positions, $(grep -c '^head' "$1.got") heads equal the oracle's"
	else
		bad "$1 differs from the oracle: $(head -20 "$1.diff")"
	fi
}

# dump_lines DUMP: dump_gcov text as "FUNCTION/CALLSITE... LINE COUNT [targets]" with
# discriminators merged by max (as gcc reads them) and "head FUNCTION N" lines
dump_lines() {
	awk '
	function path(d,   p, i) { p = stack[0]; for (i = 1; i <= d; i++) p = p "/" stack[i]; return p }
	/^[^ ]/ { stack[0] = $1; sub(/:$/, "", stack[0]); depth = 0
		for (i = 2; i <= NF; i++) if ($i ~ /^head:/) { h = $i; sub(/head:/, "", h); print "head", $1, h }
		next }
	{ match($0, /^ */); d = RLENGTH / 2; line = $1; sub(/:$/, "", line); sub(/\..*/, "", line)
	  if ($3 ~ /^total:/) { stack[d] = line ":" $2; next }
	  key = path(d - 1) " " line; c = $2 + 0
	  t = ""; for (i = 3; i <= NF; i++) t = t " " $i
	  if (!(key in count) || c > count[key]) { count[key] = c; targets[key] = t } }
	END { for (k in count) print k, count[k] targets[k] }' "$1" | sort
}

# ---- (a) gcc 12 from IP samples ----
gcc-12 -O2 -g -o hp "$src" || bad "gcc-12 hotpath"
record hp ip.data 20000
"$PROFCONV" convert -t gcc-afdo --binary ./hp -o ip.afdo ip.data 2> ip.warnings ||
	bad "profconv -t gcc-afdo: $(cat ip.warnings)"
grep -q 'IP samples only' ip.warnings || bad "no warning that IP samples can mislead block layout"
convert -t autofdo --binary ./hp -o ip.afdo.txt ip.data 2> /dev/null
gcc-12 -O2 -fauto-profile=ip.afdo -fdump-tree-optimized-details-blocks=ip.optimized -o hp.fdo "$src" ||
	bad "gcc-12 -fauto-profile=ip.afdo"
fdo_blocks ip.optimized 20
same_output hp hp.fdo
oracle_check ip.afdo gcc ./hp ip.afdo.txt

# ---- (b) gcc 11 reads version 1 ----
convert -t gcc-afdo --afdo-version 1 --binary ./hp -o ip.v1.afdo ip.data 2> /dev/null
gcc-11 -O2 -fauto-profile=ip.v1.afdo -fdump-tree-optimized-details-blocks=ip11.optimized -o hp.fdo11 "$src" ||
	bad "gcc-11 -fauto-profile=ip.v1.afdo"
fdo_blocks ip11.optimized 20
same_output hp hp.fdo11
dump_gcov --gcov_version=1 ip.v1.afdo > ip.v1.dump 2>&1 || bad "dump_gcov cannot read the version 1 file"
grep -q '^work total:[1-9]' ip.v1.dump || bad "dump_gcov shows no work: $(head -3 ip.v1.dump)"

# ---- (c) create_gcov on the same IP samples (DWARF 4) ----
gcc-12 -O2 -gdwarf-4 -o hp4 "$src" || bad "gcc-12 -gdwarf-4"
record hp4 ip4.data 20000
convert -t autofdo --binary ./hp4 -o ip4.afdo.txt ip4.data 2> /dev/null
convert -t gcc-afdo --afdo-version 1 --binary ./hp4 -o ip4.afdo ip4.data 2> /dev/null
create_gcov --profiler=text --binary=hp4 --profile=ip4.afdo.txt --gcov=ip4.cg.afdo \
	--gcov_version=1 --use_lbr=false > /dev/null 2>&1 || bad "create_gcov (IP)"
dump_gcov --gcov_version=1 ip4.cg.afdo > ip4.cg.dump 2>&1 && dump_gcov --gcov_version=1 ip4.afdo > ip4.dump 2>&1 ||
	bad "dump_gcov (IP)"
dump_lines ip4.cg.dump | grep -v '^head' > ip4.cg.lines
dump_lines ip4.dump | grep -v '^head' > ip4.lines
# every line of create_gcov's profile, with its count, except where the call floor raised a 0 to 1
awk 'NR == FNR { ours[$1 " " $2] = $3; next }
	{ k = $1 " " $2; if (!(k in ours)) { print "missing " $0; next }
	  if (ours[k] != $3 && !(ours[k] == 1 && $3 == 0)) print "differs " $0 " ours " ours[k] }' \
	ip4.lines ip4.cg.lines > ip4.compare
if [ -s ip4.compare ] || [ "$(wc -l < ip4.cg.lines)" -lt 10 ]; then
	bad "gcc-afdo and create_gcov disagree (IP): $(head -5 ip4.compare) ($(wc -l < ip4.cg.lines) lines)"
else
	echo "create_gcov (IP samples): $(wc -l < ip4.cg.lines) lines, every count equal"
fi

# ---- (d) LBR from the real control flow ----
gcc-12 -O2 -gdwarf-4 -no-pie -o hpn "$src" || bad "gcc-12 -no-pie"
lbr_trace() { # BINARY: lbr.BINARY.txt, branch stacks of `BINARY 10`
	valgrind --tool=lackey --trace-mem=yes --log-file="$1.lackey" "./$1" 10 > /dev/null 2>&1 ||
		bad "valgrind lackey ./$1"
	set -- "$1" $(readelf -lW "$1" | awk '$1 == "LOAD" && / E / { print $3, $5, $2; exit }')
	python3 "$oracle/lbr_synth.py" "$1.lackey" "$TMPDIR/$1" "${2#0x}" "${3#0x}" "${4#0x}" \
		"$(nm "$1" | awk '$3 == "work" { print $1 }')" > "lbr.$1.txt" 2> /dev/null ||
		bad "lbr_synth.py $1"
	rm -f "$1.lackey"
}
lbr_trace hpn
convert -t autofdo --binary ./hpn -o lbr.afdo.txt lbr.hpn.txt
convert -t gcc-afdo --afdo-version 1 --binary ./hpn -o lbr.v1.afdo lbr.hpn.txt
convert -t gcc-afdo --binary ./hpn -o lbr.afdo lbr.hpn.txt
create_gcov --profiler=text --binary=hpn --profile=lbr.afdo.txt --gcov=lbr.cg.afdo \
	--gcov_version=1 > /dev/null 2>&1 || bad "create_gcov (LBR)"
dump_gcov --gcov_version=1 lbr.cg.afdo > lbr.cg.dump 2>&1 && dump_gcov --gcov_version=1 lbr.v1.afdo > lbr.dump 2>&1 ||
	bad "dump_gcov (LBR)"
dump_lines lbr.cg.dump > lbr.cg.lines
dump_lines lbr.dump > lbr.lines
if ! diff lbr.cg.lines lbr.lines > lbr.compare || [ "$(wc -l < lbr.lines)" -lt 10 ]; then
	bad "gcc-afdo and create_gcov disagree (LBR): $(head -10 lbr.compare)"
else
	echo "create_gcov (LBR): $(grep -vc '^head' lbr.lines) lines, $(grep -c '^head' lbr.lines) heads, $(grep -c ':[0-9]' lbr.lines) lines with call targets, all equal"
fi
grep -q '^head scale [1-9]' lbr.lines || bad "LBR: scale has no head count"
oracle_check lbr.afdo gcc ./hpn lbr.afdo.txt
gcc-12 -O2 -fauto-profile=lbr.afdo -fdump-tree-optimized-details-blocks=lbr.optimized \
	-fdump-ipa-afdo-details=lbr.ipa -o hpn.fdo "$src" || bad "gcc-12 -fauto-profile=lbr.afdo"
fdo_blocks lbr.optimized 20
# the call targets of the branch records: gcc promotes the indirect call to its hot target
grep -q 'Indirect call -> direct call .* => mix_add' lbr.ipa ||
	bad "gcc-12 did not promote the indirect call to mix_add from the call targets"
same_output hpn hpn.fdo
# the same branch stacks through an SPT's LBR records
convert -t spt --binary hpn -o lbr.spt lbr.hpn.txt 2> /dev/null
convert -t gcc-afdo --afdo-version 1 --lbr-ranges --binary ./hpn -o spt.v1.afdo lbr.spt
dump_gcov --gcov_version=1 spt.v1.afdo > spt.dump 2>&1 || bad "dump_gcov (SPT LBR)"
dump_lines spt.dump | grep -E '^(head )?(work|scale|mix_[a-z]+)[ /]' > spt.lines
grep -E '^(head )?(work|scale|mix_[a-z]+)[ /]' lbr.lines > lbr.kept.lines
if diff lbr.kept.lines spt.lines > spt.compare && [ -s spt.lines ]; then
	echo "SPT LBR: $(wc -l < spt.lines) lines and heads of work, scale and mix_* equal perf brstack's"
else
	bad "SPT LBR and perf brstack disagree: $(head -10 spt.compare)"
fi
convert -t gcc-afdo --lbr-ranges --binary ./hpn -o spt.afdo lbr.spt
gcc-12 -O2 -fauto-profile=spt.afdo -fdump-tree-optimized-details-blocks=spt.optimized -o hpn.spt.fdo "$src" ||
	bad "gcc-12 -fauto-profile=spt.afdo"
fdo_blocks spt.optimized 20

# ---- (e) clang 14 ----
clang-14 -O2 -gline-tables-only -fdebug-info-for-profiling -o hpc "$src" || bad "clang-14 hotpath"
record hpc ipc.data 20000
convert -t llvm-sample --binary ./hpc -o ipc.prof.txt ipc.data 2> /dev/null
convert -t autofdo --binary ./hpc -o ipc.afdo.txt ipc.data 2> /dev/null
oracle_check ipc.prof.txt llvm ./hpc ipc.afdo.txt
clang_uses() { # PROFILE_TEXT NAME
	llvm-profdata-14 merge --sample --extbinary -o "$2.prof" "$1" || bad "llvm-profdata-14 rejects $1"
	clang-14 -O2 -gline-tables-only -fprofile-sample-use="$2.prof" -Rpass=sample-profile \
		-Rpass-analysis=sample-profile -o "$2" "$src" 2> "$2.remarks" || bad "clang-14 -fprofile-sample-use=$2.prof"
	n=$(grep -c 'Applied [0-9]* samples' "$2.remarks")
	echo "$2: clang-14 applied the profile at $n places; $(grep -c 'inlined into' "$2.remarks") inlining remarks"
	[ "$n" -ge 5 ] || bad "$2: clang-14 applied the profile at $n places"
}
clang_uses ipc.prof.txt hpc.fdo
same_output hpc hpc.fdo
clang-14 -O2 -gline-tables-only -fdebug-info-for-profiling -no-pie -o hpcn "$src" || bad "clang-14 -no-pie"
lbr_trace hpcn
convert -t llvm-sample --binary ./hpcn -o lbrc.prof.txt lbr.hpcn.txt
convert -t autofdo --binary ./hpcn -o lbrc.afdo.txt lbr.hpcn.txt
oracle_check lbrc.prof.txt llvm ./hpcn lbrc.afdo.txt
clang_uses lbrc.prof.txt hpcn.fdo
same_output hpcn hpcn.fdo
# and through an SPT's LBR records
convert -t spt --binary hpcn -o lbrc.spt lbr.hpcn.txt 2> /dev/null
convert -t llvm-sample --lbr-ranges --binary ./hpcn -o lbrc.spt.prof.txt lbrc.spt
clang_uses lbrc.spt.prof.txt hpcn.spt.fdo

# ---- (f) errors ----
expect_error() { # STATUS PATTERN args...
	status=$1 pattern=$2
	shift 2
	"$PROFCONV" convert -q -o err.out "$@" 2> err.txt
	got=$?
	[ "$got" = "$status" ] || bad "profconv $* exited $got, expected $status"
	grep -q "$pattern" err.txt || bad "profconv $*: message '$(cat err.txt)' lacks '$pattern'"
	[ ! -e err.out ] || bad "profconv $* left an output file"
}
expect_error 1 "gcc-afdo: --binary must name the profiled ELF file (none given)" -t gcc-afdo ip.data
gcc-12 -O2 -o hp.nodebug "$src"
expect_error 1 "no DWARF debug information in '\./hp.nodebug'" -t llvm-sample --binary ./hp.nodebug ip.data
expect_error 2 "afdo-version" -t gcc-afdo --afdo-version 3 --binary ./hp ip.data
expect_error 1 "llvm-sample: --binary: '/etc/passwd' is not an ELF file" -t llvm-sample --binary /etc/passwd ip.data
# another build of the same program: perf.data's build id says it is not the profiled one
mkdir -p other && gcc-12 -O1 -g -o other/hp "$src"
expect_error 1 "gcc-afdo: --binary 'other/hp' has build id [0-9a-f]*, but the recorded '.*/hp' had [0-9a-f]*: give the binary that was profiled" \
	-t gcc-afdo --binary other/hp ip.data
# SPT LBR records without --lbr-ranges: the IP samples' profile, no heads from branch counts
"$PROFCONV" convert -t gcc-afdo --afdo-version 1 --binary ./hpn -o spt.ip.afdo lbr.spt 2> spt.ip.warnings ||
	bad "SPT without --lbr-ranges: $(cat spt.ip.warnings)"
grep -q 'SPT LBR records give ranges, heads and call targets with --lbr-ranges' spt.ip.warnings ||
	bad "SPT without --lbr-ranges: no warning naming --lbr-ranges: $(cat spt.ip.warnings)"
ip_head=$(dump_gcov --gcov_version=1 spt.ip.afdo 2>&1 | sed -n 's/^scale total:[0-9]* head:\([0-9]*\)$/\1/p')
lbr_head=$(awk '$1 == "head" && $2 == "scale" { print $3 }' lbr.lines)
[ -n "$ip_head" ] && [ "$ip_head" != "$lbr_head" ] ||
	bad "SPT without --lbr-ranges: scale's head ${ip_head:-none} is the branch counts' $lbr_head"
# a non-PIE binary's runtime addresses are its vaddrs: --base (autofdo's 0x400000) is ignored
"$PROFCONV" convert -t gcc-afdo --binary ./hpn --base 0x400000 -o base.afdo lbr.hpn.txt 2> base.warnings ||
	bad "--base with a non-PIE binary: $(cat base.warnings)"
grep -q "\-\-base ignored: './hpn' is not position-independent" base.warnings ||
	bad "--base with a non-PIE binary: no warning: $(cat base.warnings)"
cmp -s base.afdo lbr.afdo || bad "--base 0x400000 changed the non-PIE profile"
exit $fail
