#!/bin/sh
# A short libFuzzer run of every reader's fuzz target (built by
# `make fuzz-build` with clang), seeded from tests/fuzz/corpus/NAME.
# FUZZ_CHECK_SECONDS (default 4) per target, so that `make check` stays
# under 10 minutes with fourteen targets; `make fuzz` runs longer.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
targets=$(ls "$here"/build/fuzz/fuzz_* 2>/dev/null | grep -v '\.' )
if [ -z "$targets" ]; then
	echo "SKIPPED: no fuzz targets built (clang missing? run scripts/setup.sh)"
	exit 77
fi
status=0
for target in $targets; do
	name=${target##*/fuzz_}
	mkdir -p "$TMPDIR/corpus-$name"
	mkdir -p "$here/build/fuzz/artifacts"
	if ! "$target" -max_total_time="${FUZZ_CHECK_SECONDS:-4}" -timeout=5 -rss_limit_mb=2048 \
		-artifact_prefix="$here/build/fuzz/artifacts/$name-" \
		"$TMPDIR/corpus-$name" "$here/tests/fuzz/corpus/$name" > "$TMPDIR/fuzz-$name.log" 2>&1; then
		echo "fuzz: $name found a problem (input kept in build/fuzz/artifacts/):"
		tail -40 "$TMPDIR/fuzz-$name.log"
		status=1
	else
		tail -1 "$TMPDIR/fuzz-$name.log"
	fi
done
exit $status
