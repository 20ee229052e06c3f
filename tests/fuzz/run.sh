#!/bin/sh
# tests/fuzz/run.sh - runs libFuzzer targets one after the other, each for
# SECONDS, and prints one line per target: its executions, its seconds and
# its result. `make fuzz` and tests/e2e/fuzz.sh (`make check`) call it.
#
#   sh tests/fuzz/run.sh SECONDS WORKDIR TARGET...
#
# For a target build/fuzz/fuzz_NAME it takes:
#   seeds       tests/fuzz/corpus/NAME, else the corpus of its family
#               (write_* -> write, spt_halves -> spt, etl_halves and
#               etl_stream -> etl, perf_halves -> perf_script)
#   dictionary  tests/fuzz/dict/NAME.dict (its family's), or for write_*,
#               merge and options, which read every format, all of them at
#               once (libFuzzer takes one -dict)
#   -max_len    5 MiB for spt (past the reader's 4 MiB two-halves threshold),
#               else libFuzzer's default (the largest seed, at least 4 KiB)
#   regressions tests/fuzz/regressions/NAME/*: each is run once first, and
#               must pass (crashers found before, kept minimized); the
#               target is fuzzed either way
# New inputs go to WORKDIR/corpus-NAME, the log to WORKDIR/fuzz-NAME.log,
# a crasher to build/fuzz/artifacts/NAME-*. FUZZ_ARGS adds libFuzzer
# options. Exits 1 when a target failed.
set -u
[ $# -ge 2 ] || { echo "usage: $0 SECONDS WORKDIR TARGET..." >&2; exit 2; }
seconds=$1 work=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
fuzz=$top/tests/fuzz
mkdir -p "$work" "$top/build/fuzz/artifacts" || exit 1
cat "$fuzz"/dict/*.dict > "$work/all.dict" || exit 1

family() { # NAME -> the name whose seeds and dictionary it shares
	case $1 in
	write_*) echo write ;;
	spt_halves) echo spt ;;
	etl_halves|etl_stream) echo etl ;;
	perf_halves) echo perf_script ;;
	*) echo "$1" ;;
	esac
}

status=0
for target in "$@"; do
	name=${target##*/fuzz_}
	log=$work/fuzz-$name.log
	seeds=$fuzz/corpus/$name
	[ -d "$seeds" ] || seeds=$fuzz/corpus/$(family "$name")
	[ -d "$seeds" ] || seeds=
	dict=$fuzz/dict/$(family "$name").dict
	case $name in write_*|merge|options) dict=$work/all.dict ;; esac
	[ -f "$dict" ] && dict=-dict=$dict || dict=
	case $name in
	spt) max_len=-max_len=5242880 ;;
	*) max_len= ;;
	esac
	if [ ! -x "$target" ]; then
		echo "fuzz: $name: no target $target"
		status=1
		continue
	fi
	regressions=$(ls -d "$fuzz/regressions/$name"/* 2>/dev/null)
	if [ -n "$regressions" ] &&
		! "$target" -rss_limit_mb=2048 $regressions >"$log" 2>&1; then
		echo "fuzz: $name fails a regression input of tests/fuzz/regressions/$name:"
		grep -v '^    #\|^INFO\|^\*\*\*' "$log" | tail -20
		status=1
	fi
	mkdir -p "$work/corpus-$name"
	# shellcheck disable=SC2086 # dict, max_len and FUZZ_ARGS: options or nothing
	"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		$dict $max_len ${FUZZ_ARGS:-} \
		-artifact_prefix="$top/build/fuzz/artifacts/$name-" \
		"$work/corpus-$name" ${seeds:+"$seeds"} >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	took=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
	if [ $rc -ne 0 ]; then
		echo "fuzz: $name found a problem after ${runs:-?} runs (input kept in build/fuzz/artifacts/):"
		tail -40 "$log"
		status=1
	else
		echo "fuzz: $name: ${runs:-?} runs in ${took:-$seconds} s, no crash"
	fi
done
exit $status
