#!/bin/sh
# tests/e2e/vsperf_csv.sh - Visual Studio CSV reports in, through the
# command line (the real files of ../shared/corpus are in vsperf_csv_corpus.sh):
#   - every samples/vsperf/X.csv converts (detected, no -f) to the model
#     dump in tests/golden/vsperf/X.dump, byte for byte, from a file and
#     from stdin (UPDATE_GOLDEN=1 rewrites the expectations);
#   - the IDE call tree with decimal commas reads exactly as the one with
#     decimal points; -f vsperf, -f vsperfreport and -f vsperf-csv name the
#     reader; a report named .txt is detected by its header;
#   - exact figures through the writers: folded totals of the call trees
#     (8735 samples; 1005 apportioned ticks, 1000 under Main()), calls per
#     node with --event calls, and `pprof -top` totals (8735 for the sampling
#     call tree, 10 for the UTF-16LE CallerCallee report);
#   - malformed input (wrong header, missing columns, short rows, bad
#     numbers, a Caller before any Root, a bad Level jump, bad UTF-16, an
#     unterminated quote): exit 1, "profconv: FILE:LINE:COL: vsperf: ..."
#     with the exact place, no output file.
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/e2e/lib/golden.sh"
profconv=${PROFCONV:-$top/build/profconv}
samples=${SAMPLES:-$top/samples}/vsperf
tmp=${TMPDIR:-/tmp}
golden_dir=$top/tests/golden/vsperf
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

# --- golden dumps, from a file and from stdin ---
count=0
for sample in "$samples"/*.csv; do
	[ -f "$sample" ] || continue
	name=$(basename "$sample" .csv)
	count=$((count + 1))
	PROFCONV=$profconv golden_dump vsperf "$sample" "$golden_dir/$name.dump" "$tmp/$name" || fail=1
done
[ "$count" -ge 9 ] || failed "expected at least 9 samples in $samples, found $count"

cmp -s "$tmp/calltree_ide.dump" "$tmp/calltree_ide_decimal_comma.dump" ||
	failed "decimal commas read otherwise than decimal points"
for alias in vsperfreport vsperf-csv; do
	"$profconv" convert -q -f "$alias" -t dump -o "$tmp/alias.dump" "$samples/cc_names.csv" ||
		failed "-f $alias failed"
	cmp -s "$tmp/alias.dump" "$tmp/cc_names.dump" || failed "-f $alias gives other bytes"
done
cp "$samples/cc_utf16le.csv" "$tmp/renamed.txt"
"$profconv" convert -q -t dump -o "$tmp/renamed.dump" "$tmp/renamed.txt" ||
	failed "a UTF-16LE report named .txt is not detected"
cmp -s "$tmp/renamed.dump" "$tmp/cc_utf16le.dump" || failed "renamed.txt gives other bytes"

# --- exact figures through the writers ---
# folded_total FILE [OPTIONS]: the sum of the counts of the folded output
folded_total() {
	file=$1
	shift
	"$profconv" convert -q -t folded "$@" -o "$tmp/out.folded" "$file" 2>/dev/null ||
		{ failed "$file: folded conversion failed"; echo -1; return; }
	awk '{ n += $NF } END { print n + 0 }' "$tmp/out.folded"
}
[ "$(folded_total "$samples/calltree_sampling.csv")" = 8735 ] ||
	failed "calltree_sampling: folded total is not 8735"
grep -qxF 'demo.exe;main;parse(char const *,int);lex(void) 4000' "$tmp/out.folded" ||
	{ failed "calltree_sampling: no 'demo.exe;main;parse(char const *,int);lex(void) 4000'"; cat "$tmp/out.folded"; }
[ "$(folded_total "$samples/calltree_ide.csv")" = 1005 ] ||
	failed "calltree_ide: folded total is not 1005"
[ "$(awk '$0 ~ /^tiny\.exe;Tiny\.Program\.Main\(\)/ { n += $NF } END { print n }' "$tmp/out.folded")" = 1000 ] ||
	failed "calltree_ide: Main()'s subtree is not 1000 ticks"
[ "$(folded_total "$samples/calltree_ide.csv" --event calls)" = 1512 ] ||
	failed "calltree_ide: the calls do not add up to 1512"
grep -qxF 'tiny.exe;Tiny.Program.Main();System.Console.WriteLine(string) 1500' "$tmp/out.folded" ||
	failed "calltree_ide: WriteLine's calls are not 1500"

if [ -x "${PPROF:-}" ]; then
	# pprof_total FILE: the "of N total" of pprof -top
	pprof_total() {
		"$profconv" convert -q -o "$tmp/out.pb.gz" "$1" ||
			{ failed "$1: pprof conversion failed"; return; }
		"$PPROF" -top "$tmp/out.pb.gz" 2>/dev/null | sed -n 's/.* of \([0-9]*\) total.*/\1/p' | head -1
	}
	[ "$(pprof_total "$samples/calltree_sampling.csv")" = 8735 ] ||
		failed "calltree_sampling: pprof -top total is not 8735"
	[ "$(pprof_total "$samples/cc_utf16le.csv")" = 10 ] ||
		failed "cc_utf16le: pprof -top total is not 10"
	"$PPROF" -top "$tmp/out.pb.gz" 2>/dev/null | grep -q 'Größe(int)' ||
		failed "cc_utf16le: pprof -top does not show Größe(int)"
else
	echo "note: pprof is not built (${PPROF:-PPROF unset}): pprof totals are not checked"
fi

# --- malformed input ---
# expect_error NAME LOCATION MESSAGE: $tmp/NAME.csv fails as described.
expect_error() {
	file=$tmp/$1.csv
	rm -f "$tmp/out.dump"
	"$profconv" convert -f vsperf -t dump -o "$tmp/out.dump" "$file" >/dev/null 2>"$tmp/err"
	status=$?
	[ "$status" = 1 ] || failed "$1: exit $status, expected 1"
	grep -qxF "profconv: $file:$2: vsperf: $3" "$tmp/err" ||
		{ failed "$1: stderr lacks 'profconv: $file:$2: vsperf: $3'"; cat "$tmp/err"; }
	[ ! -e "$tmp/out.dump" ] || failed "$1: an output file was written"
}
sampling='Type,Function Name,Inclusive Samples,Exclusive Samples,Root Function Name,'
tree='Level,Function Name,Inclusive Samples,Exclusive Samples,'
printf 'Function Name,Level\n' >"$tmp/header.csv"
expect_error header 1:1 'missing column "Exclusive Samples" (a CallTree report needs Exclusive Samples, or Elapsed Exclusive Time, or Number of Calls with Avg Elapsed Inclusive Time and Elapsed Exclusive Time %)'
printf 'Name,Inclusive,Exclusive\r\nmain,3,1\r\n' >"$tmp/wrongheader.csv"
expect_error wrongheader 1:1 'expected the header of a Visual Studio report ("Type,Function Name,..." for CallerCallee, "Level,Function Name,..." for CallTree or "Function Name,..." for a Function summary), found "Name,Inclusive,Exclusive"'
printf 'Type,Function Name,Inclusive Samples,\n"Root","f",1,\n' >"$tmp/missing.csv"
expect_error missing 1:1 'missing column "Exclusive Samples" (a CallerCallee report needs Inclusive Samples and Exclusive Samples, or Elapsed Inclusive Time and Elapsed Exclusive Time)'
printf '%s\n"Root","f",1,1,"f",\n"Root","g",1\n' "$sampling" >"$tmp/short.csv"
expect_error short 3:13 'expected 5 fields as the header has, found 3'
printf '%s\n"Root","f","1,5",1,"f",\n' "$sampling" >"$tmp/badnumber.csv"
expect_error badnumber 2:12 'expected a count in column "Inclusive Samples", found "1,5"'
printf '%s\n"Root","f",1,x1,"f",\n' "$sampling" >"$tmp/badnumber2.csv"
expect_error badnumber2 2:14 'expected a count in column "Exclusive Samples", found "x1"'
printf '%s\n"Caller","g",1,0,"f",\n"Root","f",1,1,"f",\n' "$sampling" >"$tmp/callerfirst.csv"
expect_error callerfirst 2:1 'a Caller row before any Root row (each group of rows starts with its Root row)'
printf '%s\n0,"p.exe",3,0,\n1,"main",3,1,\n2,"f",2,2,\n4,"g",0,0,\n' "$tree" >"$tmp/leveljump.csv"
expect_error leveljump 5:1 'Level 4 skips a level: the row before is at Level 2 (expected at most Level 3)'
if command -v python3 >/dev/null 2>&1; then
	# utf16 FILE HEX: a UTF-16LE report with a BOM, its header, then the bytes HEX
	utf16() {
		python3 -c 'import sys; sys.stdout.buffer.write(b"\xff\xfe" + "Type,Function Name,Inclusive Samples,Exclusive Samples\r\n".encode("utf-16-le") + bytes.fromhex(sys.argv[1]))' "$2" >"$tmp/$1.csv"
	}
	utf16 badutf16 52006f0000dc
	expect_error badutf16 2:3 'invalid UTF-16: a lone surrogate 0xDC00'
	utf16 oddutf16 52006f006f
	expect_error oddutf16 2:3 'the UTF-16 text ends in the middle of a character (an odd number of bytes)'
else
	echo "note: python3 is missing: bad UTF-16 is not checked here (see the unit tests)"
fi
printf '%s\n"Root","f,1,1,"f",\n' "$sampling" >"$tmp/quote.csv"
expect_error quote 2:16 'expected '"','"' or the end of the line after a closing quote, found "f","'
printf '%s\n"Root","f,1,1\n' "$sampling" >"$tmp/unterminated.csv"
expect_error unterminated 2:8 'unterminated quoted field (no closing '"'\"'"' before the end of the line)'

# an existing output is left untouched
echo old >"$tmp/keep.dump"
"$profconv" convert -f vsperf -t dump -o "$tmp/keep.dump" "$tmp/short.csv" 2>/dev/null &&
	failed "bad input converted over an existing output"
[ "$(cat "$tmp/keep.dump")" = old ] || failed "an existing output was clobbered"

exit $fail
