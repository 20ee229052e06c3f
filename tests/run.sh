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
#
# The e2e scripts run JOBS at a time (default: the number of CPUs; each
# has its own TMPDIR and writes nothing else), the longest first so that
# they end together; each one's output is printed in one piece when it
# ends, followed by its PASS/FAIL line. (`sh tests/run.sh one DIR SCRIPT`
# is how run.sh runs one of them: its output and status go to DIR.)
set -u
BUILD=${BUILD:-build}
mode=${1:-all}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
passed=0 failed=0 skipped=0 failures=""

# The verdict line of a test's exit status.
verdict() { # name status
	case $2 in
	0) echo "PASS: $1" ;;
	77) echo "SKIPPED: $1" ;;
	*) echo "FAIL: $1 (exit $2)" ;;
	esac
}

# Counts a test's exit status; prints its verdict unless quiet (the e2e
# scripts print their own), and always when a skip counts as a failure.
tally() { # name status [quiet]
	if [ "$2" = 77 ] && [ "${SET_UP:-0}" = 1 ]; then
		failed=$((failed + 1)); failures="$failures $1"
		echo "FAIL: $1 (skipped, on a machine where set-up ran)"
		return
	fi
	case $2 in
	0) passed=$((passed + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)); failures="$failures $1" ;;
	esac
	[ -n "${3:-}" ] || verdict "$1" "$2"
}

run_one() { # name command...
	name=$1; shift
	"$@"
	tally "$name" $?
}

# One e2e script, run by xargs below: its output to DIR/N.log, its exit
# status to DIR/N.status (N: the script's path, '/' as '_'), then the log
# and the verdict in one piece on stdout. (xargs runs it once with no
# script when there is none.)
status_name() {
	printf '%s' "$1" | tr / _
}

if [ "$mode" = one ]; then
	[ $# -ge 3 ] || exit 0
	results=$2 t=$3
	name=$(status_name "$t")
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/profconv-test.XXXXXX") || exit 1
	env TMPDIR="$scratch" sh "$t" >"$results/$name.log" 2>&1
	status=$?
	rm -rf "$scratch"
	verdict "$t" "$status" >>"$results/$name.log"
	echo "$status" >"$results/$name.status"
	cat "$results/$name.log"
	exit 0
fi

for t in $(find "$BUILD/tests" -type f -name 'test_*' -perm -u+x 2>/dev/null | sort); do
	run_one "${t#$BUILD/}" "$t"
done

# The scripts that take a minute or so go first (a slot each), then the rest.
LONGEST="fuzz valgrind sampler_malformed pprof_read perf_data_malformed perf_captures"

e2e_scripts() {
	all=${E2E:-tests/e2e/*.sh}
	for name in $LONGEST; do
		for t in $all; do
			[ "$(basename "$t")" = "$name.sh" ] && [ -f "$t" ] && echo "$t"
		done
	done
	for t in $all; do
		case " $LONGEST " in *" $(basename "$t" .sh) "*) continue ;; esac
		[ -f "$t" ] && echo "$t"
	done
}

if [ "$mode" = all ]; then
	export PROFCONV="$top/$BUILD/profconv" PPROF="$top/build/tools/pprof"
	export BUILD SAMPLES="$top/samples" SHARED="$top/../shared"
	jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
	results=$(mktemp -d "${TMPDIR:-/tmp}/profconv-results.XXXXXX") || exit 1
	trap 'rm -rf "$results"; exit 130' INT TERM
	e2e_scripts | xargs -P "$jobs" -n 1 sh "$top/tests/run.sh" one "$results"
	for t in $(e2e_scripts); do
		name=$(status_name "$t")
		if status=$(cat "$results/$name.status" 2>/dev/null); then
			tally "$t" "$status" quiet
		else
			echo "FAIL: $t (it did not end)"
			tally "$t" 1 quiet
		fi
	done
	rm -rf "$results"
fi

[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
