#!/bin/sh
# tests/e2e/layout.sh - the source tree keeps the shape issue 14 gave it:
# no source file under src/ is over 1,500 lines; no header under src/
# defines the model's struct (its body is model.c's); no reader includes a
# writer's header, nor a writer a reader's; base includes nothing of the
# layers above it, and the model nothing of the readers, writers,
# pipeline or CLI.
#
# Environment (tests/run.sh): none needed.
# Exit 0 pass, else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
checked=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

cd "$top" || exit 1

for f in src/*/*.c src/*/*.h; do
	checked=$((checked + 1))
	lines=$(wc -l < "$f")
	[ "$lines" -le 1500 ] || fail "$f has $lines lines (at most 1,500)"
done

for f in src/*/*.h; do
	checked=$((checked + 1))
	! grep -q '^struct pc_model {' "$f" || fail "$f defines struct pc_model"
done

# includes "layer/..." that files of a folder must not have
forbid() {
	folder=$1
	shift
	for f in src/"$folder"/*.c src/"$folder"/*.h; do
		for layer in "$@"; do
			checked=$((checked + 1))
			! grep -q "^#include \"$layer/" "$f" || fail "$f includes a header of src/$layer"
		done
	done
}
forbid base model readers writers symbols pipeline cli formats
forbid model readers writers symbols pipeline cli
forbid readers writers pipeline cli
forbid writers readers pipeline cli

echo "layout: $checked checks, $failures failures"
[ "$failures" -eq 0 ]
