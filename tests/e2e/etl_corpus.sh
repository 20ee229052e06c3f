#!/bin/sh
# The ETW traces of ../shared/corpus/etl (PerfView's test inputs) against
# PerfView's own decoding of them (net.4.5.2.x64.baseline.txt):
#   - `profconv info --events` of the x64 trace: every "Windows Kernel/G/O"
#     count that the baseline lists equals it (PerfInfo/Sample aside: the
#     baseline counts the samples PerfView keeps, which info prints as
#     "PerfView keeps N" and must equal), the whole trace having 79528
#     samples; the first five samples PerfView keeps have the baseline's
#     time (ms), pid, tid and IP;
#   - `info --progid`: the baseline's DbgID_RSDS records (image base, GUID
#     prefix, age, PDB name) are there;
#   - converted to pprof (-raw): 79528 samples and 79528 ms of cpu, and the
#     PDB GUID and age of ntoskrnl.exe and ntdll.dll in the comments;
#   - folded output: the same from standard input; kernel frames under
#     [ntoskrnl.exe], Test.x64.exe's samples (pid 3676) 5129;
#   - the traces without CPU samples read without error: an empty folded
#     output and one warning saying how to record samples.
# Fails (never skips) when the corpus is missing.
#
# Environment (tests/run.sh): PROFCONV, PPROF, SHARED, TMPDIR.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${SHARED:-$top/../shared}/corpus/etl
x64=$corpus/net.4.5.2.x64.etl
baseline=$corpus/net.4.5.2.x64.baseline.txt
failures=0

fail() {
	echo "etl_corpus: $*"
	failures=$((failures + 1))
}

[ -f "$x64" ] && [ -f "$baseline" ] ||
	{ echo "etl_corpus: the ETL corpus is missing ($corpus): it must be beside the checkout"; exit 1; }
[ -x "${PROFCONV:-}" ] || { echo "etl_corpus: profconv is not built"; exit 1; }

# --- info: event counts and first samples against the baseline ---
"$PROFCONV" info --events "$x64" >"$TMPDIR/events.txt" || fail "info --events failed"
sed -n 's/^COUNT \(Windows Kernel\/[^:]*\):\([0-9]*\)$/\1 \2/p' "$baseline" |
while read -r line; do
	name=${line% *} count=${line##* }
	case $name in
	"Windows Kernel/PerfInfo/Sample")
		grep -q "(PerfView keeps $count)" "$TMPDIR/events.txt" ||
			echo "FAIL samples PerfView keeps: baseline $count, $(grep 'CPU samples' "$TMPDIR/events.txt")"
		;;
	*)
		got=$(sed -n "s|^  $name: ||p" "$TMPDIR/events.txt")
		[ -z "$got" ] || [ "$got" = "$count" ] || echo "FAIL $name: $got, baseline $count"
		;;
	esac
done >"$TMPDIR/counts.txt"
if [ -s "$TMPDIR/counts.txt" ]; then
	fail "event counts differ from PerfView's:"
	cat "$TMPDIR/counts.txt"
fi
checked=$(sed -n 's/^COUNT \(Windows Kernel\/[^:]*\):.*/\1/p' "$baseline" | while read -r name; do
	grep -q "^  $name: " "$TMPDIR/events.txt" && echo "$name"; done | wc -l)
[ "$checked" -ge 40 ] || fail "only $checked of the baseline's kernel event counts were found in info"
grep -q "^CPU samples: 79528," "$TMPDIR/events.txt" || fail "not 79528 CPU samples"
grep 'PerfInfo/Sample PID' "$baseline" |
	sed 's/^EVENT \([0-9.]*\):.* PID=\([0-9]*\); TID=\([0-9]*\);.*InstructionPointer=\(0x[0-9a-f]*\);.*/  \1 pid \2 tid \3 ip \4/' \
	>"$TMPDIR/first.expected"
sed -n '/^first samples PerfView keeps/,/^processes/p' "$TMPDIR/events.txt" | sed '1d;$d' \
	>"$TMPDIR/first.got"
cmp -s "$TMPDIR/first.expected" "$TMPDIR/first.got" ||
	{ fail "first samples differ from the baseline's:"; diff "$TMPDIR/first.expected" "$TMPDIR/first.got"; }
grep -q "^    3676 Test.x64.exe *5129$" "$TMPDIR/events.txt" ||
	fail "Test.x64.exe (pid 3676) does not have its 5129 samples"

# --- info: PDB identities ---
"$PROFCONV" info --progid "$x64" >"$TMPDIR/progid.txt" || fail "info --progid failed"
grep 'DbgID_RSDS PID' "$baseline" |
	sed 's/.*ImageBase=\(0x[0-9a-f]*\); GuidSig=\([0-9a-f-]*\)\.\.\.; Age=\([0-9]*\); PDBFileName=\([^;]*\);.*/\1 \2 \3 \4/' |
while read -r base guid age pdb; do
	grep -q "base $base {$guid[0-9a-f-]*} age $age $pdb\$" "$TMPDIR/progid.txt" ||
		echo "missing: $base $guid $age $pdb"
done >"$TMPDIR/pdbs.txt"
[ -s "$TMPDIR/pdbs.txt" ] && { fail "PDB identities of the baseline not found:"; cat "$TMPDIR/pdbs.txt"; }

# --- pprof ---
"$PROFCONV" convert -q -o "$TMPDIR/x64.pb.gz" "$x64" || fail "convert to pprof failed"
if [ -x "${PPROF:-}" ]; then
	"$PPROF" -raw -symbolize=none "$TMPDIR/x64.pb.gz" >"$TMPDIR/raw.txt" 2>/dev/null ||
		fail "pprof cannot read the profile"
	totals=$(awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
		on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+:$/ { s += $1; c += $2 }
		END { printf "%d %.0f\n", s, c }' "$TMPDIR/raw.txt")
	[ "$totals" = "79528 79528000000" ] || fail "pprof totals: $totals, expected 79528 samples and 79528 ms"
	grep -q "ntoskrnl.exe: PDB {72482100-1C1C-4A03-AED8-C4C71C2E8D1D} age 0x2" "$TMPDIR/raw.txt" ||
		fail "no PDB comment for ntoskrnl.exe"
	grep -q "ntdll.dll: PDB {6048FDB6-2DCD-41C1-8835-594844CE7143} age 0x2" "$TMPDIR/raw.txt" ||
		fail "no PDB comment for ntdll.dll"
fi

# --- folded, from a file and from stdin ---
"$PROFCONV" convert -q -t folded -o "$TMPDIR/file.folded" "$x64" || fail "convert -t folded failed"
cat "$x64" | "$PROFCONV" convert -q -f etl -t folded -o "$TMPDIR/stdin.folded" - ||
	fail "convert from stdin failed"
cmp -s "$TMPDIR/file.folded" "$TMPDIR/stdin.folded" || fail "stdin gives another profile"
grep -q '^Idle;\[ntoskrnl.exe\] ' "$TMPDIR/file.folded" || fail "no Idle;[ntoskrnl.exe] stack"
total=$(awk '{ s += $NF } END { print s }' "$TMPDIR/file.folded")
[ "$total" = 79528 ] || fail "folded total $total, expected 79528"

# --- traces without CPU samples ---
for trace in gcevents primitive-types SelfDescribingSingleEvent; do
	"$PROFCONV" convert -t folded -o "$TMPDIR/$trace.folded" "$corpus/$trace.etl" 2>"$TMPDIR/$trace.err" ||
		{ fail "$trace: convert failed: $(cat "$TMPDIR/$trace.err")"; continue; }
	[ ! -s "$TMPDIR/$trace.folded" ] || fail "$trace: samples where there are none"
	[ "$(grep -c 'no CPU samples in the trace' "$TMPDIR/$trace.err")" = 1 ] ||
		fail "$trace: not one warning about the missing CPU samples: $(cat "$TMPDIR/$trace.err")"
	"$PROFCONV" info "$corpus/$trace.etl" >/dev/null || fail "$trace: info failed"
done

[ "$failures" = 0 ] || { echo "etl_corpus: $failures failure(s)"; exit 1; }
echo "etl_corpus: $checked kernel event counts, first samples, PDB identities, pprof totals checked"
