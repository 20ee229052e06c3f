#!/bin/sh
# tests/e2e/folded.sh - folded stacks in, through the command line:
#   - every samples/folded/X.folded converts (detected, no -f) to the
#     model dump in tests/golden/folded/X.dump, byte for byte, from a file
#     and from stdin (UPDATE_GOLDEN=1 rewrites the expectations);
#   - -f folded and -f collapsed name the reader; a .collapsed name works;
#   - folded -> pprof: the real `pprof -raw` lists exactly the input's
#     stacks once merged (count and depth of each, as a multiset) and
#     `pprof -top` gives fib flat = cum = 500 of 1000 (recursion counted once);
#   - folded -> folded, when a folded writer is registered: the output is
#     the input sorted and merged (identical stacks added up), for our
#     sample and, when ../shared/corpus is there, for every expected
#     folded file of FlameGraph and inferno in it (93 real files);
#   - malformed input (no count, a bad count, a NUL byte, an empty stack,
#     a stack sum past INT64_MAX): exit 1, "profconv: FILE:LINE:COL:
#     folded: " with the exact place, no output file and an existing
#     output untouched; --skip-bad turns bad lines into one counted
#     warning, --strict turns that back into the error.
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, SHARED, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/e2e/lib/golden.sh"
profconv=${PROFCONV:-$top/build/profconv}
samples=${SAMPLES:-$top/samples}
tmp=${TMPDIR:-/tmp}
golden_dir=$top/tests/golden/folded
fail=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
[ -x "${PPROF:-}" ] || skip "pprof is not built (${PPROF:-PPROF unset}); run: make build/tools/pprof"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"

failed() {
	echo "FAIL: $*"
	fail=1
}

# --- golden dumps, from a file and from stdin ---
count=0
for sample in "$samples"/folded/*.folded; do
	[ -f "$sample" ] || continue
	name=$(basename "$sample" .folded)
	count=$((count + 1))
	PROFCONV=$profconv golden_dump folded "$sample" "$golden_dir/$name.dump" "$tmp/$name" || fail=1
done
[ "$count" -gt 0 ] || failed "no samples in $samples/folded"

recursive=$samples/folded/recursive.folded
"$profconv" convert -q -f collapsed -t dump -o "$tmp/alias.dump" "$recursive" ||
	failed "-f collapsed failed"
cmp -s "$tmp/alias.dump" "$tmp/recursive.dump" || failed "-f collapsed gives other bytes"
cp "$recursive" "$tmp/renamed.collapsed"
"$profconv" convert -q -t dump -o "$tmp/renamed.dump" "$tmp/renamed.collapsed" ||
	failed ".collapsed input failed"

# --- folded -> pprof, read by the real pprof ---
if "$profconv" convert -q -o "$tmp/recursive.pb.gz" "$recursive"; then
	"$PPROF" -raw "$tmp/recursive.pb.gz" >"$tmp/raw.txt" 2>"$tmp/raw.err" ||
		{ failed "pprof -raw failed"; cat "$tmp/raw.err"; }
	python3 - "$recursive" "$tmp/raw.txt" <<'PY' || fail=1
import sys
want = {}
for line in open(sys.argv[1], encoding="utf-8"):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    want[stack] = want.get(stack, 0) + int(count)
want = sorted((count, len(stack.split(";"))) for stack, count in want.items())
got, in_samples = [], False
for line in open(sys.argv[2], encoding="utf-8"):
    if line.startswith("Samples:"):
        in_samples = True
    elif line.startswith("Locations"):
        break
    elif in_samples and ":" in line and line.split(":")[0].strip().isdigit():
        count, ids = line.split(":", 1)
        got.append((int(count), len(ids.split())))
got.sort()
if got != want:
    print("FAIL: pprof -raw samples (count, depth) differ from the input's")
    print("  want", want)
    print("  got ", got)
    sys.exit(1)
PY
	"$PPROF" -top -nodecount=100 "$tmp/recursive.pb.gz" >"$tmp/top.txt" 2>/dev/null ||
		failed "pprof -top failed"
	grep -Eq '^ +500 50\.00% +[0-9.]+% +500 50\.00% +fib$' "$tmp/top.txt" ||
		{ failed "pprof -top: fib is not flat 500, cum 500"; cat "$tmp/top.txt"; }
	grep -Eq 'of 1000 total' "$tmp/top.txt" || failed "pprof -top: total is not 1000"
else
	failed "folded -> pprof failed"
fi

# --- folded -> folded: the input sorted and merged ---
# round_trip FILE: folded -> folded gives FILE's lines merged (counts of
# identical stacks added, stacks adding up to 0 dropped) and sorted. A
# file of 0 bytes (inferno's no-events-collapsed.txt) is refused, as every
# 0-byte input is: "profconv: FILE: empty input", exit 1.
round_trip() {
	if [ ! -s "$1" ]; then
		"$profconv" convert -q -f folded -t folded -o "$tmp/round.folded" "$1" 2>"$tmp/err"
		status=$?
		[ "$status" = 1 ] && [ "$(cat "$tmp/err")" = "profconv: $1: empty input" ] ||
			failed "$1: a 0-byte input is not refused as empty (exit $status: $(cat "$tmp/err"))"
		return
	fi
	"$profconv" convert -q -f folded -t folded -o "$tmp/round.folded" "$1" ||
		{ failed "$1: folded -> folded failed"; return; }
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); sum[$0] += n }
		END { for (s in sum) if (sum[s]) print s " " sum[s] }' "$1" |
		LC_ALL=C sort >"$tmp/merged.folded"
	LC_ALL=C sort "$tmp/round.folded" >"$tmp/round.sorted"
	cmp -s "$tmp/merged.folded" "$tmp/round.sorted" ||
		{ failed "$1: folded -> folded is not the input sorted and merged";
		  diff "$tmp/merged.folded" "$tmp/round.sorted" | head -5 | cut -c1-200; }
}
# FlameGraph's and inferno's expected outputs (real stackcollapse output,
# with [unknown], _[k], _[j], "comm-PID/TID" roots and a last frame " "):
# each must read as folded and come back merged and sorted.
corpus=${SHARED:-$top/../shared}/corpus/perf-script
if "$profconv" formats | grep -Eq '^folded +write '; then
	round_trip "$recursive"
	if [ -d "$corpus" ]; then
		find "$corpus" -path '*results*' -name '*.txt' | LC_ALL=C sort >"$tmp/corpus.list"
		while IFS= read -r expected; do
			round_trip "$expected"
		done <"$tmp/corpus.list"
		echo "folded: $(wc -l <"$tmp/corpus.list") expected folded files of $corpus read back"
	else
		echo "note: $corpus is missing: FlameGraph's folded files are not read"
	fi
else
	echo "note: no folded writer registered yet: the round trip is not checked"
fi

# --- malformed input ---
# expect_error NAME LOCATION MESSAGE: $tmp/NAME.folded fails as described.
expect_error() {
	file=$tmp/$1.folded
	rm -f "$tmp/out.dump"
	"$profconv" convert -f folded -t dump -o "$tmp/out.dump" "$file" >/dev/null 2>"$tmp/err"
	status=$?
	[ "$status" = 1 ] || failed "$1: exit $status, expected 1"
	grep -qxF "profconv: $file:$2: folded: $3" "$tmp/err" ||
		{ failed "$1: stderr lacks 'profconv: $file:$2: folded: $3'"; cat "$tmp/err"; }
	[ ! -e "$tmp/out.dump" ] || failed "$1: an output file was written"
}
printf 'a;b 1\na;b;c\n' >"$tmp/nocount.folded"
expect_error nocount 2:6 'expected a space and a count at the end of the line, found "a;b;c"'
printf 'a;b 1\r\na;b 2.5\r\n' >"$tmp/fraction.folded"
expect_error fraction 2:5 'count "2.5" is not a decimal integer'
printf 'a;b 1\na;b zz\n' >"$tmp/word.folded"
expect_error word 2:5 'expected a count after the last space, found "zz"'
printf 'a;b 99999999999999999999\n' >"$tmp/huge.folded"
expect_error huge 1:5 'count 99999999999999999999 is too large (at most 9223372036854775807)'
printf 'a 1\n 7\n' >"$tmp/empty.folded"
expect_error empty 2:1 'empty stack before the count'
printf 'a 1\nx\000y 2\n' >"$tmp/binary.folded"
expect_error binary 2:2 'unexpected NUL byte (is this binary data?)'
python3 -c 'import random, sys; random.seed(7); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(3000)))' \
	>"$tmp/random.folded"
printf 'a;b 9223372036854775807\na;b 1\n' >"$tmp/overflow.folded"
expect_error overflow 2:5 'the counts of this stack add up to more than 9223372036854775807'

# two stacks whose counts fit, but not their total: no writer is given a
# sum past 2^63-1 (convert.c checks every column's total before writing)
printf 'a;b 5000000000000000000\na;c 5000000000000000000\n' >"$tmp/total.folded"
for to in dump pprof folded; do
	rm -f "$tmp/out.$to"
	"$profconv" convert -t $to -o "$tmp/out.$to" "$tmp/total.folded" >/dev/null 2>"$tmp/err"
	status=$?
	[ "$status" = 1 ] || failed "total -> $to: exit $status, expected 1"
	grep -qxF "profconv: the counts of column 'samples' add up to more than 2^63-1" "$tmp/err" ||
		{ failed "total -> $to: no message of the column's total"; cat "$tmp/err"; }
	[ ! -e "$tmp/out.$to" ] || failed "total -> $to: an output file was written"
done

# random bytes: not detected; read as folded, a located error
"$profconv" convert -t dump -o "$tmp/out.dump" "$tmp/random.folded" >/dev/null 2>"$tmp/err" &&
	failed "random bytes were converted"
"$profconv" convert -f folded -t dump -o "$tmp/out.dump" "$tmp/random.folded" >/dev/null 2>"$tmp/err" &&
	failed "random bytes were read as folded"
grep -Eq "^profconv: $tmp/random.folded:[0-9]+:[0-9]+: folded: " "$tmp/err" ||
	{ failed "random bytes: no located error"; cat "$tmp/err"; }
[ ! -e "$tmp/out.dump" ] || failed "random bytes: an output file was written"

# an existing output is left untouched
echo old >"$tmp/keep.dump"
"$profconv" convert -f folded -t dump -o "$tmp/keep.dump" "$tmp/nocount.folded" 2>/dev/null &&
	failed "bad input converted over an existing output"
[ "$(cat "$tmp/keep.dump")" = old ] || failed "an existing output was clobbered"

# --skip-bad: one counted warning; with --strict the located error
printf 'a;b 1\nnonsense\na;b x\na;c 2\n' >"$tmp/some-bad.folded"
"$profconv" convert --skip-bad -f folded -t dump -o "$tmp/skipped.dump" "$tmp/some-bad.folded" \
	2>"$tmp/err" || failed "--skip-bad failed"
grep -qxF "profconv: warning: folded: skipped an unparseable line, the first at $tmp/some-bad.folded:2:9: expected a space and a count at the end of the line, found \"nonsense\" (2 times)" "$tmp/err" ||
	{ failed "--skip-bad: no counted warning"; cat "$tmp/err"; }
[ "$(grep -c '^sample' "$tmp/skipped.dump")" = 2 ] || failed "--skip-bad: not 2 samples"
# the same warning, whole, for a path of over 300 bytes (warnings were cut at 256)
long="$tmp/$(printf 'd%.0s' $(seq 1 150))/$(printf 'e%.0s' $(seq 1 150))"
mkdir -p "$long" && cp "$tmp/some-bad.folded" "$long/"
"$profconv" convert --skip-bad -f folded -t dump -o "$tmp/skipped.dump" "$long/some-bad.folded" \
	2>"$tmp/err" || failed "--skip-bad (long path) failed"
grep -qxF "profconv: warning: folded: skipped an unparseable line, the first at $long/some-bad.folded:2:9: expected a space and a count at the end of the line, found \"nonsense\" (2 times)" "$tmp/err" ||
	{ failed "--skip-bad: the warning of a long path is cut"; cat "$tmp/err"; }
rm -f "$tmp/out.dump"
"$profconv" convert --skip-bad --strict -f folded -t dump -o "$tmp/out.dump" "$tmp/some-bad.folded" \
	2>"$tmp/err" && failed "--skip-bad --strict succeeded"
grep -qF "profconv: $tmp/some-bad.folded:2:9: folded: expected a space" "$tmp/err" ||
	{ failed "--skip-bad --strict: no located error"; cat "$tmp/err"; }
[ ! -e "$tmp/out.dump" ] || failed "--skip-bad --strict: an output file was written"

# names that tidy to nothing (quotes alone, an empty part of "a->b", a
# sample without comm) take the fallback name: no empty frame or stack, and
# the output reads back (fuzz_write_folded found " 1" once)
printf '  6130 \n\t  127c \047\047\047 (/work/workload)\n\n' >"$tmp/quotes1.perf.txt"
printf 'p 1 1.0: 1 cpu-clock:\n\t 10 a->\047\047 (/bin/x)\n\t 20 ""->b (/bin/x)\n\n' >"$tmp/quotes2.perf.txt"
for n in 1 2; do
	"$profconv" convert -q -f perf-script -t folded -o "$tmp/quotes$n.folded" "$tmp/quotes$n.perf.txt" ||
		failed "names of quotes alone ($n): conversion failed"
	"$profconv" convert -q -f folded -t dump -o "$tmp/quotes$n.dump" "$tmp/quotes$n.folded" ||
		failed "names of quotes alone ($n): the folded output does not read back"
done
[ "$(cat "$tmp/quotes1.folded")" = "[workload] 1" ] ||
	{ failed "a name of quotes alone: not [workload]"; cat "$tmp/quotes1.folded"; }
[ "$(cat "$tmp/quotes2.folded")" = "p;[x];b_[i];a;[x]_[i] 1" ] ||
	{ failed "empty parts of a->b: not the fallback names"; cat "$tmp/quotes2.folded"; }

exit $fail
