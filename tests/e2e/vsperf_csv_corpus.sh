#!/bin/sh
# tests/e2e/vsperf_csv_corpus.sh - the real Visual Studio CSV reports of
# ../shared/corpus/vsperf (never copied into the repository):
#   - VisPerf's pigLatin CallerCallee report (vsperfreport, sampling, VS
#     2008): 107 functions (one sample per Root row; the two __SEH_epilog
#     roots of ntdll.dll and kernel32.dll are two functions), 117 samples
#     (the sum of Root exclusive), 138 caller arcs, no warning (Caller and
#     Callee rows agree), and for every function the Caller arcs into it
#     add up to its inclusive samples except for the self-recursive
#     __write; `pprof -top` says 117 total;
#   - inferno's CallTreeSummary.csv (IDE export, instrumentation, only
#     calls, percentages and averages): in folded output the subtrees of
#     the two Level 1 functions add up to round(471 x 401.92) = 189304 and
#     round(1 x 18,160.51) = 18161, and with --event calls every call
#     stack's calls are exactly the file's Number of Calls for that path.
#
# Environment (tests/run.sh): PROFCONV, PPROF, SHARED, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
profconv=${PROFCONV:-$top/build/profconv}
corpus=${SHARED:-$top/../shared}/corpus/vsperf
tmp=${TMPDIR:-/tmp}
fail=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
failed() {
	echo "FAIL: $*"
	fail=1
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
pig=$corpus/visperf_pigLatin_CallerCallee_sampling_vs2008.csv
inferno=$corpus/inferno_CallTreeSummary_instrumentation_ide_export.csv
[ -f "$pig" ] && [ -f "$inferno" ] || skip "the real reports are missing ($corpus)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"

# --- pigLatin: CallerCallee, sampling ---
if "$profconv" convert -t dump -o "$tmp/pig.dump" "$pig" 2>"$tmp/pig.err"; then
	[ ! -s "$tmp/pig.err" ] || { failed "pigLatin: warnings"; cat "$tmp/pig.err"; }
	python3 - "$tmp/pig.dump" <<'PY' || fail=1
import sys
samples, frames_of, arcs = [], {}, []
current = None
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("sample"):
        values = dict(v.split("=") for v in line.split()[1:])
        current = {"samples": int(values.get("samples", 0)),
                   "inclusive": int(values.get("inclusive_samples", 0)), "frames": []}
        samples.append(current)
    elif line.startswith("  frame ") and current is not None:
        current["frames"].append(line[len("  frame "):])
    elif line.startswith("arc call "):
        rest, count = line[len("arc call "):].rsplit(" ", 1)
        arcs.append((rest, int(count)))
errors = []
def check(what, got, want):
    if got != want:
        errors.append("%s: got %r, want %r" % (what, got, want))
check("samples (Root rows)", len(samples), 107)
check("one frame each", sorted(set(len(s["frames"]) for s in samples)), [1])
functions = {s["frames"][0]: s for s in samples}
check("distinct functions", len(functions), 107)
check("total samples", sum(s["samples"] for s in samples), 117)
check("largest inclusive", max(s["inclusive"] for s in samples), 117)
check("caller arcs", len(arcs), 138)
check("__SEH_epilog functions", sum(1 for f in functions if f.endswith('"__SEH_epilog"')), 2)
into = {f: 0 for f in functions}
for rest, count in arcs:
    callee = [f for f in functions if rest.endswith(" -> " + f)]
    check("callee of an arc is a function", len(callee), 1)
    if callee:
        into[callee[0]] += count
odd = sorted(f.rsplit('"', 2)[-2] for f, s in functions.items()
             if into[f] and into[f] != s["inclusive"])
check("functions whose caller arcs do not add up to their inclusive samples", odd, ["__write"])
for e in errors:
    print("FAIL: pigLatin:", e)
sys.exit(1 if errors else 0)
PY
else
	failed "pigLatin: conversion failed"
	cat "$tmp/pig.err"
fi
if [ -x "${PPROF:-}" ]; then
	"$profconv" convert -q -o "$tmp/pig.pb.gz" "$pig" || failed "pigLatin -> pprof failed"
	"$PPROF" -top "$tmp/pig.pb.gz" >"$tmp/pig.top" 2>/dev/null || failed "pprof -top failed"
	grep -q ' of 117 total' "$tmp/pig.top" ||
		{ failed "pigLatin: pprof -top total is not 117"; head -8 "$tmp/pig.top"; }
else
	echo "note: pprof is not built (${PPROF:-PPROF unset}): the pprof total is not checked"
fi

# --- inferno: CallTree, IDE instrumentation export ---
"$profconv" convert -q -t folded -o "$tmp/inferno.folded" "$inferno" 2>/dev/null ||
	failed "inferno -> folded failed"
"$profconv" convert -q -t folded --event calls -o "$tmp/inferno.calls" "$inferno" 2>/dev/null ||
	failed "inferno -> folded --event calls failed"
python3 - "$inferno" "$tmp/inferno.folded" "$tmp/inferno.calls" <<'PY' || fail=1
import csv, sys
def folded(path):
    stacks = {}
    for line in open(path, encoding="utf-8"):
        stack, count = line.rstrip("\n").rsplit(" ", 1)
        stacks[stack] = stacks.get(stack, 0) + int(count)
    return stacks
errors = []
ticks = folded(sys.argv[2])
by_top = {}
for stack, count in ticks.items():
    frames = stack.split(";")
    by_top[frames[1]] = by_top.get(frames[1], 0) + count
want = {"Raytracer.Raytracer.Tracer.<TraceImage>b__5_0(int32)": 189304,
        "Raytracer.OpenTkApp.Main()": 18161}
if by_top != want:
    errors.append("ticks per Level 1 function: got %r, want %r" % (by_top, want))
# the calls of every path, from the file itself
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8-sig")))
path, calls = [], {}
for row in rows[1:]:
    level, name, number = int(row[0]), row[1], int(row[2].replace(",", ""))
    path = path[:level] + [name]
    if level > 0 and number:
        key = ";".join(path)
        calls[key] = calls.get(key, 0) + number
got = folded(sys.argv[3])
if got != calls:
    missing = sorted(set(calls.items()) ^ set(got.items()))[:5]
    errors.append("calls per path differ from the file's, e.g. %r" % missing)
for e in errors:
    print("FAIL: inferno:", e)
sys.exit(1 if errors else 0)
PY

exit $fail
