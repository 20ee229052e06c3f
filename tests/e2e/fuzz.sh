#!/bin/sh
# A short libFuzzer run of every fuzz target (built by `make fuzz-build`
# with clang: the readers', one per writer, merge, options, the SPT, ETL
# and perf script two-halves paths), seeded from tests/fuzz/corpus, after the regression
# inputs of tests/fuzz/regressions (tests/fuzz/run.sh).
# FUZZ_CHECK_SECONDS (default 2) per target, so that `make check` stays
# under 10 minutes; `make fuzz` runs longer.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
targets=$(ls "$here"/build/fuzz/fuzz_* 2>/dev/null | grep -v '\.' )
if [ -z "$targets" ]; then
	echo "SKIPPED: no fuzz targets built (clang missing? run scripts/setup.sh)"
	exit 77
fi
# shellcheck disable=SC2086 # one target per word
exec sh "$here/tests/fuzz/run.sh" "${FUZZ_CHECK_SECONDS:-2}" "$TMPDIR" $targets
