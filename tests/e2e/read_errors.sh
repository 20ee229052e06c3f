#!/bin/sh
# tests/e2e/read_errors.sh - a read error is an error, never a shorter
# profile. tests/preload/fail_read.c, preloaded, makes every read(2) and
# pread(2) of one file that covers one byte fail with EIO (a failing disk).
# For each input below, read with the byte in its middle failing:
# `convert` exits 1, says "read error: Input/output error" and writes no
# output; the same command without the failing byte exits 0 (so the input
# itself is good). Inputs: a perf script text, a folded file, a Sampler
# trace, a vsperfreport CSV and an SPT from samples/; a 6 MB SPT (sptgen)
# and the 5.7 MB generated ETL trace `large` (etl_seeds.py), each read in
# two halves at once and on one thread, failing in the first half and in
# the second.
#
# Environment (tests/run.sh): PROFCONV, BUILD, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skip (no profconv, no cc, no python3), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
samples=${SAMPLES:-$top/samples}
tmp=${TMPDIR:-/tmp}
failures=0
checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
command -v cc >/dev/null 2>&1 || skip "cc is missing"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
[ -x "$build/tools/sptgen" ] || skip "sptgen is not built ($build/tools/sptgen)"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

preload="$tmp/fail_read.so"
cc -shared -fPIC -O2 -o "$preload" "$top/tests/preload/fail_read.c" -ldl ||
	{ echo "FAIL: cannot build tests/preload/fail_read.c"; exit 1; }

# failing WHAT FILE AT ARGS...: convert ARGS FILE with byte AT of FILE unreadable
failing() {
	what=$1 file=$2 at=$3
	shift 3
	checked=$((checked + 1))
	out="$tmp/out.folded"
	rm -f "$out"
	"$profconv" convert -q "$@" -o "$out" "$file" >/dev/null 2>"$tmp/good.err" ||
		{ fail "$what: does not convert without a read error: $(head -3 "$tmp/good.err")"; return; }
	rm -f "$out"
	FAIL_READ_FILE="$file" FAIL_READ_AT="$at" LD_PRELOAD="$preload" \
		"$profconv" convert -q "$@" -o "$out" "$file" >/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ "$rc" = 1 ] || fail "$what: exit $rc with byte $at unreadable (expected 1): $(head -3 "$tmp/bad.err")"
	grep -q 'read error: Input/output error' "$tmp/bad.err" ||
		fail "$what: no 'read error' with byte $at unreadable: $(head -3 "$tmp/bad.err")"
	[ ! -e "$out" ] || fail "$what: an output was written despite the read error"
}

middle() {
	echo $(($(wc -c <"$1") / 2))
}

for f in perf/fp.perf.txt folded/recursive.folded sampler/many.trace vsperf/calltree_sampling.csv \
	multi.spt; do
	failing "$f" "$samples/$f" "$(middle "$samples/$f")" -t folded
done

spt="$tmp/big.spt"
"$build/tools/sptgen" --random 4 --bytes $((6 << 20)) "$spt" || { echo "FAIL: sptgen"; exit 1; }
etl="$tmp/large.etl"
python3 -B "$top/tests/fuzz/seeds/etl_seeds.py" trace large "$etl" ||
	{ echo "FAIL: etl_seeds.py could not make the trace"; exit 1; }
for file in "$spt" "$etl"; do
	size=$(wc -c <"$file")
	for at in $((size / 4)) $((size * 3 / 4)); do
		failing "$(basename "$file") (two halves)" "$file" "$at" -t folded
		failing "$(basename "$file") (one thread)" "$file" "$at" -t folded --threads 1
	done
done

echo "read_errors: $checked checks, $failures failures"
[ "$failures" -eq 0 ]
