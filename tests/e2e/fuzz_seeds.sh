#!/bin/sh
# tests/e2e/fuzz_seeds.sh - the committed fuzz seeds made by a generator of
# tests/fuzz/seeds/ are exactly what it makes now (a corpus or a generator
# changed alone fails here):
#   - pprof_seeds.py, perf_data_seeds.py and xpress_seeds.py: each file they
#     write equals the committed file of that name in tests/fuzz/corpus/NAME;
#   - write_seeds.sh (corpus/write, merge and options, made from the
#     readers' corpora and the registry) and dwarf_seeds.sh (corpus/dwarf,
#     built with gcc 12, g++ and clang 14), run on a copy of the tree: the
#     directories they write equal the committed ones, file for file.
# (etl_seeds.py's seeds are checked by etl_generated.sh.)
#
# Environment (tests/run.sh): TMPDIR. Exit 0 pass, 77 skip.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=${TMPDIR:-/tmp}
seeds=$top/tests/fuzz/seeds
corpus=$top/tests/fuzz/corpus
failures=0 checked=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
command -v python3 >/dev/null 2>&1 || { echo "SKIPPED: python3 is missing"; exit 77; }

for name in pprof perf_data xpress; do
	out=$tmp/made-$name
	mkdir -p "$out"
	python3 -B "$seeds/${name}_seeds.py" "$out" > /dev/null ||
		{ fail "${name}_seeds.py failed"; continue; }
	for made in "$out"/*; do
		checked=$((checked + 1))
		file=$corpus/$name/$(basename "$made")
		cmp -s "$made" "$file" ||
			fail "$file is not what ${name}_seeds.py makes now (run it: python3 $seeds/${name}_seeds.py $corpus/$name)"
	done
done

# the shell generators write into the tree: run them on a copy of it
copy=$tmp/tree
mkdir -p "$copy/tests/fuzz" "$copy/src/pipeline"
cp -R "$top/tests/fuzz/seeds" "$top/tests/fuzz/corpus" "$copy/tests/fuzz/" &&
cp "$top/src/pipeline/registry.c" "$copy/src/pipeline/" || exit 1
if sh "$copy/tests/fuzz/seeds/write_seeds.sh" > "$tmp/write_seeds.log" 2>&1; then
	for dir in write merge options; do
		checked=$((checked + 1))
		diff -r "$copy/tests/fuzz/corpus/$dir" "$corpus/$dir" > "$tmp/$dir.diff" 2>&1 ||
			{ fail "tests/fuzz/corpus/$dir is not what write_seeds.sh makes now (run it):"; head -5 "$tmp/$dir.diff"; }
	done
else
	fail "write_seeds.sh failed:"; tail -5 "$tmp/write_seeds.log"
fi
for tool in gcc-12 g++ clang-14 strip; do
	command -v "$tool" > /dev/null 2>&1 || { echo "SKIPPED: $tool is missing (dwarf_seeds.sh)"; exit 77; }
done
if sh "$copy/tests/fuzz/seeds/dwarf_seeds.sh" > "$tmp/dwarf_seeds.log" 2>&1; then
	checked=$((checked + 1))
	diff -r "$copy/tests/fuzz/corpus/dwarf" "$corpus/dwarf" > "$tmp/dwarf.diff" 2>&1 ||
		{ fail "tests/fuzz/corpus/dwarf is not what dwarf_seeds.sh makes now (run it):"; head -5 "$tmp/dwarf.diff"; }
else
	fail "dwarf_seeds.sh failed:"; tail -5 "$tmp/dwarf_seeds.log"
fi

echo "fuzz_seeds: $checked checks, $failures failed"
[ "$failures" -eq 0 ]
