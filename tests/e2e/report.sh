#!/bin/sh
# tests/e2e/report.sh - `profconv report`, through the command line:
#   - `report --tree` on samples/demo.spt (one-frame SPT IP hits) and on
#     samples/folded/recursive.folded prints exactly
#     tests/golden/report/NAME.tree, and `--top 3` (no tree) exactly
#     tests/golden/report/NAME.top3 (UPDATE_GOLDEN=1 rewrites them);
#   - the same bytes from stdin, from `convert -t report -o FILE`, and on a
#     second run (deterministic);
#   - --event picks a column (callstack of demo.spt gives a real tree) and
#     an unknown one is an error naming the columns (exit 1);
#   - an input without call stacks (LBR records only) is an error (exit 1);
#   - a malformed input is the reader's located error (exit 1), with
#     nothing on stdout.
#
# Environment (tests/run.sh): PROFCONV, BUILD, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/e2e/lib/golden.sh"
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
sptgen=$build/tools/sptgen
samples=${SAMPLES:-$top/samples}
tmp=${TMPDIR:-/tmp}
golden_dir=$top/tests/golden/report
fail=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
[ -x "$sptgen" ] || skip "sptgen is not built ($sptgen)"

failed() {
	echo "FAIL: $*"
	fail=1
}

# golden NAME OUTPUT: compares (or with UPDATE_GOLDEN=1 stores) one report.
golden() {
	golden_compare "$golden_dir/$1" "$2" || failed "report differs from tests/golden/report/$1"
}

for input in "$samples/demo.spt" "$samples/folded/recursive.folded"; do
	name=$(basename "$input")
	name=${name%.*}
	"$profconv" report --tree "$input" >"$tmp/$name.tree" 2>"$tmp/err" ||
		{ failed "$name: report --tree failed"; cat "$tmp/err"; }
	golden "$name.tree" "$tmp/$name.tree"
	"$profconv" report --top 3 "$input" >"$tmp/$name.top3" 2>/dev/null ||
		failed "$name: report --top 3 failed"
	golden "$name.top3" "$tmp/$name.top3"
	"$profconv" report --tree - <"$input" >"$tmp/$name.stdin" 2>/dev/null ||
		failed "$name: report from stdin failed"
	cmp -s "$tmp/$name.tree" "$tmp/$name.stdin" || failed "$name: stdin gives other bytes"
	"$profconv" report --tree "$input" >"$tmp/$name.again" 2>/dev/null
	cmp -s "$tmp/$name.tree" "$tmp/$name.again" || failed "$name: a second run differs"
	"$profconv" convert -q --tree -t report -o "$tmp/$name.convert" "$input" ||
		failed "$name: convert -t report failed"
	cmp -s "$tmp/$name.tree" "$tmp/$name.convert" || failed "$name: convert -t report differs"
done

# demo.spt's branch-only samples are accounted for (a report's header counts
# samples without a stack), so the report warns of nothing, even with --strict
"$profconv" report --strict "$samples/demo.spt" >"$tmp/out" 2>"$tmp/err" ||
	failed "demo.spt: report --strict failed"
[ ! -s "$tmp/err" ] || { failed "demo.spt: unexpected stderr"; cat "$tmp/err"; }

# --event: the callstack column of demo.spt is a real tree
"$profconv" report --tree --event callstack "$samples/demo.spt" >"$tmp/callstack.tree" 2>/dev/null ||
	failed "--event callstack failed"
golden demo-callstack.tree "$tmp/callstack.tree"
"$profconv" report --event nope "$samples/demo.spt" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 1 ] || failed "--event nope: exit $status, expected 1"
grep -qxF "profconv: report: no column 'nope_event' or 'nope' to count (the profile has: unhalted_cycle, lbr_branch, callstack)" "$tmp/err" ||
	{ failed "--event nope: wrong message"; cat "$tmp/err"; }
[ ! -s "$tmp/out" ] || failed "--event nope: something on stdout"

# no call stacks at all: LBR records only
printf '%s\n' 'program {6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} 0x1a demo.exe' 'segment 0' \
	'lbr 0x10->0x20 0x30->0x40' >"$tmp/lbr.sptspec"
"$sptgen" "$tmp/lbr.sptspec" "$tmp/lbr.spt" || failed "sptgen failed"
"$profconv" report "$tmp/lbr.spt" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 1 ] || failed "LBR only: exit $status, expected 1"
grep -qxF "profconv: report output needs call stacks, which the input does not have (inputs that do: spt, perf-script, perf-data, etl, diagsession, folded, sampler, vsperf, vsperf-xml, pprof)" "$tmp/err" ||
	{ failed "LBR only: wrong message"; cat "$tmp/err"; }

# malformed input: the reader's located error, nothing on stdout
printf 'a;b 1\na;b x\n' >"$tmp/bad.folded"
"$profconv" report -f folded "$tmp/bad.folded" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 1 ] || failed "bad input: exit $status, expected 1"
grep -qxF "profconv: $tmp/bad.folded:2:5: folded: expected a count after the last space, found \"x\"" "$tmp/err" ||
	{ failed "bad input: wrong message"; cat "$tmp/err"; }
[ ! -s "$tmp/out" ] || failed "bad input: something on stdout"

exit $fail
