#!/bin/sh
# tests/e2e/sampler.sh - Apple Sampler traces: samples, round trips, perf
# script -> Sampler, and pprof from Sampler under the real pprof.
#
# Expected values come from outside profconv: samplergen computes the
# folded stacks from the spec text alone, and tests/oracle/sampler_fold.py
# (an independent Sampler parser) gives per-thread stacks, per-function
# self/total counts and the seed's build-tree.
#
# For each samples/sampler/X.samplerspec:
#   - samplergen remakes X.trace, X.folded and X.by-thread.folded byte for
#     byte (the checked-in samples are what the spec says);
#   - the format is detected from the bytes (no -f) and Sampler -> folded
#     equals X.folded; the oracle's --by-thread equals X.by-thread.folded;
#   - `profconv report --top 100000` has, per function, the oracle's self
#     and total; for the small traces (no node under 0.5%) `--tree` is the
#     seed's build-tree, node by node;
#   - Sampler -> Sampler -> folded equals X.folded, and the oracle finds the
#     same per-thread stacks (X.by-thread.folded) in the rewritten trace;
#   - folded -> Sampler -> folded equals the input, merged (X.folded) and
#     per thread (X.by-thread.folded, thread names as root frames);
#   - Sampler -> pprof: `pprof -top` shows each function's flat and cum
#     equal to the oracle's self and total.
# SPT samples (merged counts) -> Sampler -> folded equals SPT -> folded
# (default column and --event callstack); bigrepeat.spt's 2^28+ samples are
# refused with exit 1 and no output.
# samples/folded/recursive.folded -> Sampler -> folded equals folded ->
# folded. For each samples/perf/*.perf.txt capture, with E its first event:
#   - perf -> Sampler, read by the oracle per thread, equals `perf ->
#     folded --tid --event E_sample` (threads named comm-PID/TID) when
#     the capture has comms;
#   - perf -> Sampler -> folded equals perf -> folded --event E_sample
#     with the comm root dropped and the stacks merged again.
#
# Environment (tests/run.sh): PROFCONV, PPROF, BUILD, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
samplergen="$build/tools/samplergen"
samples=${SAMPLES:-$top/samples}
oracle="$top/tests/oracle/sampler_fold.py"
tmp=${TMPDIR:-/tmp}
failures=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
[ -x "$samplergen" ] || skip "samplergen is not built ($samplergen)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
[ -x "${PPROF:-}" ] || skip "pprof is not built (${PPROF:-PPROF unset}); run: make build/tools/pprof"
export HOME="$tmp" PPROF_BINARY_PATH="$tmp/no-binaries" PPROF_TMPDIR="$tmp" LC_ALL=C

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

same() { # what expected actual
	cmp -s "$2" "$3" || { fail "$1"; diff "$2" "$3" | head -5; }
}

# "self total name" per function from profconv's top table.
report_functions() {
	"$profconv" report -q --top 100000 "$1" |
		awk '/^top functions/ { on = 1; getline; next }
		     on && NF == 0 { exit }
		     on { name = $0; sub(/^ *[0-9]+ +[0-9.]+% +[0-9]+ +[0-9.]+%  /, "", name)
			  print $1, $3, name }' | sort -k3
}

# "COUNT DEPTH NAME" per node of profconv's call tree.
report_tree() {
	"$profconv" report -q --top 1 --tree "$1" | sed -n '/^call tree/,$p' | tail -n +2 |
		awk '{ match($0, /%  +/); rest = substr($0, RSTART + 1)
		       n = match(rest, /[^ ]/); print $1, (n - 3) / 2, substr(rest, n) }'
}

# "flat cum name" per function from pprof -top, with "<unknown>" as "[unknown]".
pprof_functions() {
	"$PPROF" -top -nodecount=100000 -nodefraction=0 "$1" 2>/dev/null |
		awk 'on { name = $0; sub(/^ *[0-9]+ +[0-9.]+% +[0-9.]+% +[0-9]+ +[0-9.]+%  /, "", name)
			  if (name == "<unknown>") name = "[unknown]"; print $1, $4, name }
		     /flat%/ { on = 1 }' | sort -k3
}

check_sample() { # X (a samples/sampler/X.samplerspec)
	x=$1 dir="$samples/sampler" work="$tmp/$1"
	mkdir -p "$work"
	"$samplergen" "$dir/$x.samplerspec" "$work/gen.trace" "$work/gen.folded" \
		"$work/gen.by-thread.folded" || { fail "$x: samplergen"; return; }
	same "$x: the checked-in trace is what the spec gives" "$dir/$x.trace" "$work/gen.trace"
	same "$x: checked-in folded" "$dir/$x.folded" "$work/gen.folded"
	same "$x: checked-in by-thread folded" "$dir/$x.by-thread.folded" "$work/gen.by-thread.folded"

	"$profconv" convert -q -t folded -o "$work/read.folded" "$dir/$x.trace" ||
		{ fail "$x: sampler -> folded (detected) failed"; return; }
	same "$x: sampler -> folded" "$dir/$x.folded" "$work/read.folded"
	python3 "$oracle" --by-thread "$dir/$x.trace" >"$work/oracle.by-thread"
	same "$x: oracle per thread" "$dir/$x.by-thread.folded" "$work/oracle.by-thread"

	python3 "$oracle" --functions "$dir/$x.trace" | sort -k3 >"$work/functions"
	report_functions "$dir/$x.trace" >"$work/report.functions"
	same "$x: report self/total per function" "$work/functions" "$work/report.functions"
	case $x in small|noend)
		python3 "$oracle" --tree "$dir/$x.trace" >"$work/tree"
		report_tree "$dir/$x.trace" >"$work/report.tree"
		same "$x: report --tree is the seed's build-tree" "$work/tree" "$work/report.tree" ;;
	esac

	"$profconv" convert -q -t sampler -o "$work/again.trace" "$dir/$x.trace" ||
		{ fail "$x: sampler -> sampler failed"; return; }
	"$profconv" convert -q -t folded -o "$work/again.folded" "$work/again.trace"
	same "$x: sampler -> sampler -> folded" "$dir/$x.folded" "$work/again.folded"
	python3 "$oracle" --by-thread "$work/again.trace" >"$work/again.by-thread"
	same "$x: sampler -> sampler keeps threads" "$dir/$x.by-thread.folded" "$work/again.by-thread"

	for kind in folded by-thread.folded; do
		"$profconv" convert -q -t sampler -o "$work/from.trace" "$dir/$x.$kind" &&
			"$profconv" convert -q -t folded -o "$work/from.folded" "$work/from.trace" ||
			{ fail "$x: $kind -> sampler -> folded failed"; continue; }
		same "$x: $kind -> sampler -> folded" "$dir/$x.$kind" "$work/from.folded"
	done

	"$profconv" convert -q -o "$work/out.pb.gz" "$dir/$x.trace" ||
		{ fail "$x: sampler -> pprof failed"; return; }
	pprof_functions "$work/out.pb.gz" >"$work/pprof.functions"
	same "$x: pprof -top flat/cum per function" "$work/functions" "$work/pprof.functions"
	checked=$((checked + 1))
}

check_perf() { # X (a samples/perf/X.perf.txt)
	x=$1 in="$samples/perf/$1.perf.txt" work="$tmp/perf-$1"
	mkdir -p "$work"
	event=$("$profconv" convert -q -t dump -o - "$in" |
		sed -n 's/^column [0-9]* "\(.*\)_sample".*/\1/p' | head -1)
	[ -n "$event" ] || { fail "$x: no _sample column"; return; }
	"$profconv" convert -q -t sampler -o "$work/perf.trace" "$in" ||
		{ fail "$x: perf -> sampler failed"; return; }
	if "$profconv" convert -q -t dump -o - "$in" | grep -q '^  label "comm"'; then
		"$profconv" convert -q --tid --event "${event}_sample" -t folded \
			-o "$work/tid.folded" "$in"
		python3 "$oracle" --by-thread "$work/perf.trace" >"$work/threads.folded"
		same "$x: perf -> sampler threads = folded --tid" "$work/tid.folded" \
			"$work/threads.folded"
		strip='s/^[^;]*;//'
	else
		strip=''
	fi
	"$profconv" convert -q --event "${event}_sample" -t folded -o - "$in" |
		sed "$strip" | "$profconv" convert -q -f folded -t folded -o "$work/merged.folded" -
	"$profconv" convert -q -t folded -o "$work/perf.folded" "$work/perf.trace"
	same "$x: perf -> sampler -> folded" "$work/merged.folded" "$work/perf.folded"
	checked=$((checked + 1))
}

checked=0
for spec in "$samples"/sampler/*.samplerspec; do
	name=${spec##*/}
	check_sample "${name%.samplerspec}"
done
"$profconv" convert -q -t folded -o "$tmp/rec.expected" "$samples/folded/recursive.folded"
"$profconv" convert -q -t sampler -o "$tmp/rec.trace" "$samples/folded/recursive.folded" &&
	"$profconv" convert -q -t folded -o "$tmp/rec.folded" "$tmp/rec.trace"
same "recursive.folded -> sampler -> folded" "$tmp/rec.expected" "$tmp/rec.folded"
for capture in "$samples"/perf/*.perf.txt; do
	name=${capture##*/}
	check_perf "${name%.perf.txt}"
done

# SPT (merged samples with counts) -> Sampler -> folded equals SPT -> folded,
# for the default column and for callstack; bigrepeat.spt counts more than
# 2^28 samples, which the writer refuses (exit 1, no output).
for spt in "$samples"/*.spt; do
	name=${spt##*/}
	for event in "" callstack; do
		opt=${event:+--event $event}
		# shellcheck disable=SC2086
		if "$profconv" convert -q $opt -t sampler -o "$tmp/spt.trace" "$spt" 2>"$tmp/spt.err"; then
			"$profconv" convert -q -t folded -o "$tmp/spt.a" "$tmp/spt.trace"
			# shellcheck disable=SC2086
			"$profconv" convert -q $opt -t folded -o "$tmp/spt.b" "$spt"
			same "$name ${event:-default column} -> sampler -> folded" "$tmp/spt.b" "$tmp/spt.a"
			checked=$((checked + 1))
		elif grep -q "Sampler writes one line per sample" "$tmp/spt.err" &&
			[ ! -e "$tmp/spt.trace" ] && [ "$name" = bigrepeat.spt ]; then
			checked=$((checked + 1))
		elif grep -q "no event 'callstack'" "$tmp/spt.err" &&
			! "$profconv" convert -q -t dump -o - "$spt" | grep -q '"callstack"'; then
			: # a trace without call-stack records
		else
			fail "$name ${event:-default column} -> sampler: $(cat "$tmp/spt.err")"
		fi
		rm -f "$tmp/spt.trace"
	done
done

[ "$checked" -ge 10 ] || fail "only $checked samples and captures checked"
echo "sampler: $checked samples and captures checked, $failures failures"
[ "$failures" -eq 0 ]
