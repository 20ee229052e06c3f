#!/bin/sh
# tests/e2e/viewers_json.sh - the JSON viewer outputs, checked by the
# viewers' own code: -t speedscope against the schema that the speedscope
# npm package ships (with ajv) and opened by speedscope's importer, and
# -t cpuprofile compared with a profile that `node --cpu-prof` writes and
# opened by speedscope's Chrome importer (tests/e2e/lib/viewers_json.cjs
# says how the importer runs in Node). For each input (an SPT trace
# without threads, perf script captures with comm and tid, Visual Studio
# CallerCallee, CallTree and UTF-16 reports with comm and pid):
#
#   1. the speedscope file is valid against speedscope's schema;
#   2. speedscope imports it; each profile's total (endValue) is what its
#      samples add up to, and equals `pprof -raw` of profconv's pprof
#      output of the same input: per column (no thread labels) or per
#      thread and in all (the default column);
#   3. the .cpuprofile has node's top-level keys, node keys and callFrame
#      keys with node's types; ids unique, children consistent, every
#      sample a node, as many timeDeltas as samples, hitCounts adding up
#      to the samples, which equal pprof -raw's total of the samples
#      column; endTime - startTime = samples x the tick (the period when it
#      is a time, else 1 ms), or for inputs with sample times (perf script)
#      the first to the last sample plus one tick, with no delta below 0;
#      speedscope imports it with that total;
#   4. both outputs are the same bytes on a second run.
#
# Needs Node.js and the npm packages speedscope and ajv in build/npm
# (scripts/setup-npm.sh, called by scripts/setup.sh): without them the
# test fails, it does not skip. Environment (tests/run.sh): PROFCONV,
# PPROF, SAMPLES, TMPDIR. Exit 0 pass, else fail.
set -u


top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
pprof=${PPROF:-$top/build/tools/pprof}
samples=${SAMPLES:-$top/samples}
npm_dir=${NPM_DIR:-$top/build/npm}
tmp=${TMPDIR:-/tmp}
[ -x "$profconv" ] || { echo "FAIL: profconv is not built ($profconv)"; exit 1; }

failed=0
fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

if ! command -v node >/dev/null 2>&1; then
	echo "FAIL: node is missing: run scripts/setup-npm.sh (as root) to install Node.js and npm"
	exit 1
fi
for package in speedscope ajv; do
	if [ ! -f "$npm_dir/node_modules/$package/package.json" ]; then
		echo "FAIL: the npm package $package is not in $npm_dir: run scripts/setup-npm.sh"
		exit 1
	fi
done
[ -x "$pprof" ] || { echo "FAIL: no pprof at $pprof (scripts/build-pprof.sh)"; exit 1; }

# A profile that node itself writes: the reference for the .cpuprofile's structure.
mkdir -p "$tmp/node"
node --cpu-prof --cpu-prof-dir="$tmp/node" -e '
	let x = 0;
	const end = Date.now() + 200;
	function spin(n) { for (let i = 0; i < n; i++) x += Math.sqrt(i); }
	while (Date.now() < end) spin(1e4);' || fail "node --cpu-prof failed"
ref=$(ls "$tmp"/node/*.cpuprofile 2>/dev/null | head -1)
[ -n "$ref" ] || { echo "FAIL: node --cpu-prof wrote no profile"; exit 1; }

# check INPUT COLUMN TICK_US: COLUMN is the pprof sample type the
# .cpuprofile counts, TICK_US the microseconds of one of its samples
# ("timed:TICK_US" when the input gives each sample's time).
check() {
	input=$samples/$1
	name=$(basename "$1" | tr . _)
	out=$tmp/$name
	"$profconv" convert -q -o "$out.speedscope.json" "$input" || { fail "$1: -t speedscope"; return; }
	"$profconv" convert -q -o "$out.cpuprofile" "$input" || { fail "$1: -t cpuprofile"; return; }
	"$profconv" convert -q -o "$out.pb.gz" "$input" || { fail "$1: pprof"; return; }
	"$pprof" -raw "$out.pb.gz" >"$out.raw" 2>/dev/null || { fail "$1: pprof -raw"; return; }
	echo "== $1"
	node "$top/tests/e2e/lib/viewers_json.cjs" check "$npm_dir" "$out.speedscope.json" \
		"$out.cpuprofile" "$out.raw" "$2" "$3" "$ref" >"$out.log" 2>&1
	status=$?
	grep -v '^ok ' "$out.log"
	echo "$(grep -c '^ok ' "$out.log") checks passed"
	[ $status -eq 0 ] || fail "$1: see the FAIL lines above"
	"$profconv" convert -q -t speedscope -o "$out.again.json" "$input"
	"$profconv" convert -q -t cpuprofile -o "$out.again.cpuprofile" "$input"
	# the speedscope name is the output's file name: compare all but that line
	grep -v '^"name":' "$out.speedscope.json" >"$out.1" && grep -v '^"name":' "$out.again.json" >"$out.2"
	cmp -s "$out.1" "$out.2" || fail "$1: speedscope output differs between runs"
	cmp -s "$out.cpuprofile" "$out.again.cpuprofile" || fail "$1: cpuprofile output differs between runs"
}

check demo.spt unhalted_cycle 1000
check perf/fp.perf.txt samples timed:2004.008
check perf/twoevents.perf.txt cpu-clock_samples timed:2004.008
check vsperf/cc_multiprocess.csv samples 1000
check vsperf/calltree_sampling.csv samples 1000
check vsperf/cc_utf16le.csv samples 1000

# The thread profiles of a perf capture carry its threads' names.
grep -q '"name":"worker 1 32342"' "$tmp/fp_perf_txt.speedscope.json" ||
	fail "fp.perf.txt: no speedscope profile 'worker 1 32342'"
# Non-ASCII names stay UTF-8; invalid bytes become U+FFFD (tests/writers).
grep -q 'Größe' "$tmp/cc_utf16le_csv.speedscope.json" || fail "cc_utf16le.csv: a name lost its UTF-8"

[ "$failed" -eq 0 ] || { echo "$failed failures"; exit 1; }
echo "viewers_json: speedscope and cpuprofile outputs pass speedscope's schema and importers"
