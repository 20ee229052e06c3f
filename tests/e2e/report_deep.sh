#!/bin/sh
# tests/e2e/report_deep.sh - `profconv report --tree` on one 100,000-frame
# stack (the folded line f0;f1;...;f99999 1, made here), through the
# command line:
#   - the call tree is 100,000 lines, one per frame, f0 first and the leaf
#     f99999 last;
#   - levels 0 to 31 are indented two spaces per level; from level 32 on
#     the indentation stays at 64 spaces and the line shows its level,
#     "[32] f32" ... "[99999] f99999": every line is checked exactly;
#   - `convert -t report --tree` prints the same bytes.
# No timing here: the cap keeps the output near 9 MB (10 GB without it).
#
# Environment (tests/run.sh): PROFCONV, BUILD, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
tmp=${TMPDIR:-/tmp}
depth=100000
fail=0

[ -x "$profconv" ] || { echo "SKIPPED: profconv is not built ($profconv)"; exit 77; }

failed() {
	echo "FAIL: $*"
	fail=1
}

awk -v n="$depth" 'BEGIN { for (i = 0; i < n - 1; i++) printf "f%d;", i
			  printf "f%d 1\n", n - 1 }' >"$tmp/deep.folded"

"$profconv" report --tree "$tmp/deep.folded" >"$tmp/deep.report" 2>"$tmp/err" ||
	failed "report --tree failed"
[ ! -s "$tmp/err" ] || { failed "unexpected stderr"; head -5 "$tmp/err"; }
sed -n '/^call tree/,$p' "$tmp/deep.report" | tail -n +2 >"$tmp/deep.tree"

lines=$(wc -l <"$tmp/deep.tree")
[ "$lines" -eq "$depth" ] || failed "the tree has $lines lines, expected $depth"

# Line k (from 1) is the frame at level k - 1, named f(k - 1); prints the
# first line that is not what it should be.
awk '{
	level = NR - 1
	if (level < 32)
		want = sprintf("1  100.00%%  %" 2 * level "sf%d", "", level)
	else
		want = sprintf("1  100.00%%  %64s[%d] f%d", "", level, level)
	if ($0 != want) { print NR ": " $0; exit 1 }
}' "$tmp/deep.tree" || failed "a tree line is not the frame of its level (above)"

grep -qxF "1  100.00%                                                                f31" "$tmp/deep.tree" ||
	failed "no line for f31 at 62 spaces"
grep -qxF "1  100.00%                                                                  [32] f32" "$tmp/deep.tree" ||
	failed "no line for f32 with its level at 64 spaces"
[ "$(tail -n 1 "$tmp/deep.tree")" = "1  100.00%                                                                  [99999] f99999" ] ||
	failed "the last line is not the leaf f99999 at level 99999"

"$profconv" convert -q --tree -t report -o "$tmp/deep.convert" "$tmp/deep.folded" ||
	failed "convert -t report --tree failed"
cmp -s "$tmp/deep.report" "$tmp/deep.convert" || failed "convert -t report --tree differs"

exit $fail
