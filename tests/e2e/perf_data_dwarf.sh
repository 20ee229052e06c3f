#!/bin/sh
# perf.data with DWARF call graphs (perf record --call-graph dwarf): the
# user part of each stack unwound by profconv (elfutils' libdwfl) from the
# sampled registers and stack copy, against perf script's own unwinding of
# the same file.
#
# Builds the programs of samples/perfdata WITHOUT frame pointers (-O2 -g
# -fomit-frame-pointer: only the CFI can unwind them): threads.c (renamed
# threads, libc, vdso and kernel frames), the PIE pie_main + libshape.so,
# and templates.cc (C++ templates and inlined calls), records each with
# `perf record --call-graph dwarf -e cpu-clock`, and checks:
#   - `profconv convert CAPTURE -t folded` and `perf script -i CAPTURE |
#     profconv convert -f perf-script - -t folded` have the same total, and
#     the stacks they share (the frames perf script prints, including the
#     "(inlined)" ones it adds to DWARF-unwound stacks from addr2line)
#     carry at least 99% of the weight; the rest is printed;
#   - perf script's text of the C++ capture has "(inlined)" frames, so the
#     comparison covers them;
#   - with a 64-byte stack copy (--call-graph dwarf,64) the samples cannot
#     be unwound: the conversion succeeds, prints one warning counting
#     them, and keeps every sample (the same total as perf script's).
# Needs perf with the right to record, gcc, g++, python3; else skipped.
#
# Environment (tests/run.sh): PROFCONV, SAMPLES, TMPDIR. Exit 0 pass, 77
# skipped, else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
samples=${SAMPLES:-$top/samples}/perfdata
failures=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}

fail() {
	echo "perf_data_dwarf: $*"
	failures=$((failures + 1))
}

for tool in perf gcc g++ python3 addr2line; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool is missing"
done
[ -x "${PROFCONV:-}" ] || skip "profconv is not built"
perf record -q -o "$TMPDIR/probe.data" true >/dev/null 2>&1 || skip "perf cannot record here"

# perf's build-id cache (~/.debug) goes to the scratch directory
export HOME="$TMPDIR/home"
mkdir -p "$HOME"
bin="$TMPDIR/bin"
sh "$samples/build.sh" "$bin" -O2 -g -fomit-frame-pointer >"$TMPDIR/build.log" 2>&1 ||
	{ cat "$TMPDIR/build.log"; echo "perf_data_dwarf: cannot build samples/perfdata"; exit 1; }

# share A B: the share of B's weight that A's identical stacks carry, and both totals.
share() {
	python3 - "$1" "$2" <<'PY'
import sys
def load(path):
    stacks = {}
    for line in open(path, encoding="utf-8"):
        stack, weight = line.rstrip("\n").rsplit(" ", 1)
        stacks[stack] = stacks.get(stack, 0) + int(weight)
    return stacks
a, b = load(sys.argv[1]), load(sys.argv[2])
total_a, total_b = sum(a.values()), sum(b.values())
same = sum(min(a.get(k, 0), v) for k, v in b.items())
print("%.6f %d %d" % (same / total_b if total_b else 0, total_a, total_b))
PY
}

for prog in threads pie_main templates; do
	data="$TMPDIR/$prog.data"
	perf record -q --call-graph dwarf -F 2000 -e cpu-clock -o "$data" "$bin/$prog" >/dev/null 2>&1 ||
		{ fail "$prog: perf record failed"; continue; }
	"$PROFCONV" convert -q "$data" -t folded -o "$TMPDIR/$prog.native" ||
		{ fail "$prog: profconv failed on its perf.data"; continue; }
	perf script -i "$data" 2>/dev/null > "$TMPDIR/$prog.txt"
	"$PROFCONV" convert -q -f perf-script "$TMPDIR/$prog.txt" -t folded -o "$TMPDIR/$prog.script" ||
		{ fail "$prog: profconv failed on perf script's text"; continue; }
	set -- $(share "$TMPDIR/$prog.native" "$TMPDIR/$prog.script")
	echo "$prog: $(awk -v s="$1" 'BEGIN { printf "%.2f%%", 100 * s }') of the weight in stacks equal to perf script's (totals $2, $3)"
	[ "$2" = "$3" ] || fail "$prog: total $2, perf script's $3"
	if ! awk -v s="$1" 'BEGIN { exit !(s >= 0.99) }'; then
		fail "$prog: only $1 of the weight unwound as perf script unwinds it"
		diff "$TMPDIR/$prog.native" "$TMPDIR/$prog.script" | head -20
	fi
done
grep -q "(inlined)" "$TMPDIR/templates.txt" 2>/dev/null ||
	fail "perf script printed no (inlined) frames for the C++ capture: the check covers none"

# A stack copy too short to unwind: one warning, every sample kept.
data="$TMPDIR/short.data"
if perf record -q --call-graph dwarf,64 -F 2000 -e cpu-clock -o "$data" "$bin/threads" >/dev/null 2>&1; then
	"$PROFCONV" convert "$data" -t folded -o "$TMPDIR/short.native" 2> "$TMPDIR/short.err" ||
		fail "short stacks: conversion failed: $(cat "$TMPDIR/short.err")"
	grep -q "DWARF call-graph sample(s) could not be unwound" "$TMPDIR/short.err" ||
		fail "short stacks: no warning counting the samples not unwound: $(cat "$TMPDIR/short.err")"
	[ "$(grep -c "could not be unwound" "$TMPDIR/short.err")" = 1 ] ||
		fail "short stacks: the warning is printed more than once"
	perf script -i "$data" 2>/dev/null | "$PROFCONV" convert -q -f perf-script - -t folded \
		-o "$TMPDIR/short.script"
	set -- $(share "$TMPDIR/short.native" "$TMPDIR/short.script")
	[ "$2" = "$3" ] || fail "short stacks: total $2, perf script's $3"
	echo "short stacks: $(grep -o '[0-9]* of [0-9]* DWARF' "$TMPDIR/short.err") samples not unwound, totals $2 = $3"
else
	fail "perf record --call-graph dwarf,64 failed"
fi

[ "$failures" = 0 ] || { echo "perf_data_dwarf: $failures failure(s)"; exit 1; }
echo "perf_data_dwarf: ok"
