#!/bin/sh
# Golden tests: every sample converts to the canonical model dump stored in
# tests/golden/NAME.dump. UPDATE_GOLDEN=1 rewrites the expectations (then
# read the diff before committing it).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/tests/e2e/lib/golden.sh"
status=0 count=0
for sample in "$SAMPLES"/*.spt; do
	name=$(basename "$sample")
	golden="$here/tests/golden/${name%.*}.dump"
	"$PROFCONV" convert -q -t dump -o "$TMPDIR/out.dump" "$sample" || { echo "golden: $name: conversion failed"; status=1; continue; }
	golden_compare "$golden" "$TMPDIR/out.dump" ||
		{ echo "golden: $name differs from tests/golden/${name%.*}.dump"; status=1; }
	count=$((count + 1))
done
[ "$count" -gt 0 ] || { echo "golden: no samples found in $SAMPLES"; exit 1; }
exit $status
