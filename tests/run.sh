#!/bin/sh
# tests/run.sh - runs profconv's tests and prints one closing line
# "N passed, N failed, N skipped".
#
#   sh tests/run.sh unit   the cmocka unit tests (build/tests/*/test_*)
#   sh tests/run.sh all    unit tests, then every tests/e2e/*.sh script
#
# Environment: BUILD (default build). Each e2e script gets PROFCONV (the
# binary), PPROF (the real pprof), BUILD, SAMPLES, and TMPDIR (a scratch
# directory of its own); it exits 0 (pass), 77 (skipped: it must print a
# line starting with "SKIPPED:") or anything else (fail). With SET_UP=1
# (make check, after scripts/setup.sh installed every tool) a skipped test
# is a failure: there, a missing binary or tool is a fault. E2E (default
# tests/e2e/*.sh) names the scripts to run.
set -u
BUILD=${BUILD:-build}
mode=${1:-all}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
passed=0 failed=0 skipped=0 failures=""

run_one() { # name command...
	name=$1; shift
	"$@"
	status=$?
	case $status in
	0) passed=$((passed + 1)); echo "PASS: $name" ;;
	77) if [ "${SET_UP:-0}" = 1 ]; then
		failed=$((failed + 1)); failures="$failures $name"
		echo "FAIL: $name (skipped, on a machine where set-up ran)"
	else
		skipped=$((skipped + 1)); echo "SKIPPED: $name"
	fi ;;
	*) failed=$((failed + 1)); failures="$failures $name"; echo "FAIL: $name (exit $status)" ;;
	esac
}

for t in $(find "$BUILD/tests" -type f -name 'test_*' -perm -u+x 2>/dev/null | sort); do
	run_one "${t#$BUILD/}" "$t"
done

if [ "$mode" = all ]; then
	export PROFCONV="$top/$BUILD/profconv" PPROF="$top/build/tools/pprof"
	export BUILD SAMPLES="$top/samples" SHARED="$top/../shared"
	for t in ${E2E:-tests/e2e/*.sh}; do
		[ -f "$t" ] || continue
		scratch=$(mktemp -d "${TMPDIR:-/tmp}/profconv-test.XXXXXX")
		run_one "$t" env TMPDIR="$scratch" sh "$t"
		rm -rf "$scratch"
	done
fi

[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
