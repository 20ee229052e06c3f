# tests/e2e/lib/golden.sh - golden-file checks shared by the e2e scripts
# (sourced, not run). UPDATE_GOLDEN=1 rewrites the expectations instead of
# comparing (read the diff before committing it).

# golden_compare GOLDEN ACTUAL: 0 if ACTUAL equals the file GOLDEN (else the
# diff is printed and 1 returned); with UPDATE_GOLDEN=1, stores ACTUAL there.
golden_compare() {
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p "$(dirname "$1")" && cp "$2" "$1"
	else
		diff -u "$1" "$2"
	fi
}

# golden_dump FORMAT SAMPLE GOLDEN OUT: converts SAMPLE to the canonical dump
# OUT.dump, compares it with GOLDEN, and checks that SAMPLE read from stdin
# (-f FORMAT) gives the same bytes. Prints a FAIL line and returns 1 at the
# first difference. Uses $PROFCONV.
golden_dump() {
	"$PROFCONV" convert -q -t dump -o "$4.dump" "$2" ||
		{ echo "FAIL: $2: conversion failed"; return 1; }
	golden_compare "$3" "$4.dump" || { echo "FAIL: $2: differs from $3"; return 1; }
	"$PROFCONV" convert -q -f "$1" -t dump -o - - <"$2" >"$4.stdin.dump" ||
		{ echo "FAIL: $2: conversion from stdin failed"; return 1; }
	cmp -s "$4.dump" "$4.stdin.dump" || { echo "FAIL: $2: stdin gives other bytes"; return 1; }
}
