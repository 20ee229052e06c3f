#!/bin/sh
# The filters (--pids, --tids, --comms, --modules, --kernel-only,
# --user-only, --time, --focus, --ignore, --hide) and the sample times
# they and the .cpuprofile use, against perf's and pprof's own filters on
# the same recording.
#
# Builds samples/perfdata/threads.c (four renamed threads: "worker one",
# "wörker-β", "作業 three", "fault ü", the last one page-faulting; all
# calling clock_gettime: kernel frames) and records it with this machine's
# perf: cpu-clock, -F 4000, -g. Then, for the perf.data and for its
# `perf script` text (two readers, two time paths):
#   - every filter's `-v` note ("--comms worker one: kept N of T samples")
#     gives the sample count that perf script prints with the same filter:
#     --pid, --tid, --comms, --dsos (ours: --modules, by path and by file
#     name), --time in perf's percent forms (10%/2, 0%-25%, 10%/1,10%/3;
#     and, on 11 samples a second apart, the bounds to the nanosecond as
#     perf's time-utils.c makes them: a slice's end one short unless it is
#     the last sample's)
#     and in seconds from the first sample (perf's absolute form shifted
#     by the first sample's time); --kernel-only equals --dsos
#     [kernel.kallsyms] and --user-only the rest; the folded output's
#     total equals the kept count times the period;
#   - --focus, --ignore and --hide (pprof's frame semantics): the pprof
#     written with the filter, shown by the real `pprof -top`, equals
#     `pprof -top -focus/-ignore/-hide` of the unfiltered pprof (flat and
#     cum of every function);
#   - the .cpuprofile (times kept as the CLI does for it) has one sample
#     per perf sample and startTime + the running sum of its timeDeltas
#     is, sample by sample, perf script's time in microseconds;
#   - filters combine (--comms with --time) and apply to diff and report;
#   - usage errors exit 2 (a bad regular expression, a bad --time, both
#     --kernel-only and --user-only, an empty list item), --time on an
#     input without sample times exits 1 and says why.
#
# Needs perf with the right to record, gcc, python3 and the real pprof;
# otherwise skipped. About 5 s.
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
samples=${SAMPLES:-$top/samples}
profconv=${PROFCONV:-}
failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

[ -x "$profconv" ] || { echo "SKIPPED: profconv is not built (${PROFCONV:-PROFCONV unset})"; exit 77; }
for tool in perf gcc python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIPPED: $tool is missing"; exit 77; }
done
[ -x "${PPROF:-}" ] || { echo "SKIPPED: pprof is not built (${PPROF:-PPROF unset})"; exit 77; }
export HOME="$TMPDIR/home" PPROF_BINARY_PATH="$TMPDIR/no-binaries" PPROF_TMPDIR="$TMPDIR"
mkdir -p "$HOME"

bin=$TMPDIR/bin
sh "$samples/perfdata/build.sh" "$bin" -O1 -g -fno-omit-frame-pointer >"$TMPDIR/build.log" 2>&1 ||
	{ cat "$TMPDIR/build.log"; echo "filters: cannot build samples/perfdata"; exit 1; }
data=$TMPDIR/threads.data
perf record -q -e cpu-clock -F 4000 -g -o "$data" -- "$bin/threads" 300 >/dev/null \
	2>"$TMPDIR/record.err" ||
	{ echo "SKIPPED: perf cannot record: $(head -2 "$TMPDIR/record.err" | tr '\n' ' ')"; exit 77; }
text=$TMPDIR/threads.perf.txt
perf script -F +pid -i "$data" >"$text" 2>/dev/null || { echo "FAIL: perf script failed"; exit 1; }

# perf_count PERF-SCRIPT-OPTIONS...: the samples perf script prints.
perf_count() {
	perf script -i "$data" -F time "$@" 2>/dev/null | grep -c .
}

# kept INPUT FILTER-OPTIONS...: the count of the last -v note.
kept() {
	input=$1
	shift
	"$profconv" convert -v "$@" -t folded -o "$TMPDIR/kept.folded" "$input" \
		>/dev/null 2>"$TMPDIR/kept.err" || { echo "error"; return; }
	sed -n 's/^profconv: --.*: kept \([0-9]*\) of [0-9]* samples.*/\1/p' "$TMPDIR/kept.err" | tail -1
}

# check NAME PERF-COUNT OUR-OPTIONS...: on both inputs.
check() {
	name=$1 want=$2
	shift 2
	[ "$want" -gt 0 ] || fail "$name: perf keeps no sample: the check would be empty"
	for input in "$data" "$text"; do
		got=$(kept "$input" "$@")
		[ "$got" = "$want" ] ||
			fail "$name on $(basename "$input"): profconv kept '$got', perf $want ($(head -2 "$TMPDIR/kept.err" | tr '\n' ' '))"
	done
}

total=$(perf_count)
first=$(perf script -i "$data" -F time --ns 2>/dev/null | head -1 | tr -d ' :')
pid=$(perf script -i "$data" -F pid 2>/dev/null | head -1 | tr -d ' ')
tid=$(perf script -i "$data" -F comm,tid 2>/dev/null | grep -m1 'worker one' | awk '{print $NF}')
program=$(perf script -i "$data" -F ip,dso 2>/dev/null | sed -n 's/.*(\(.*\/threads\)).*/\1/p' | head -1)

check "--pids" "$(perf_count --pid "$pid")" --pids "$pid,999999"
check "--tids" "$(perf_count --tid "$tid")" --tids "$tid"
check "--comms" "$(perf_count --comms 'worker one,fault ü')" --comms 'worker one,fault ü'
check "--modules (path)" "$(perf_count --dsos "$program")" --modules "$program"
check "--modules (file name)" "$(perf_count --dsos "$program")" --modules "$(basename "$program")"
kernel=$(perf_count --dsos '[kernel.kallsyms]')
check "--kernel-only" "$kernel" --kernel-only
check "--user-only" "$((total - kernel))" --user-only
for slice in '10%/2' '0%-25%' '10%/1,10%/3'; do
	check "--time $slice" "$(perf_count --time "$slice")" --time "$slice"
done
range=$(python3 -c "f=$first; print('%.9f,%.9f' % (f + 0.05, f + 0.15))")
check "--time 0.05,0.15" "$(perf_count --time "$range")" --time 0.05,0.15
check "--time 0.1," "$(perf_count --time "$(python3 -c "print('%.9f,' % ($first + 0.1))")")" --time 0.1,
check "--comms + --time" "$(perf_count --comms 'worker one' --time 0%-50%)" \
	--comms 'worker one' --time 0%-50%

# The kept samples are what is written: the folded total is their periods.
"$profconv" convert --comms 'fault ü' -t folded --event cpu-clock -o "$TMPDIR/fault.folded" "$data" 2>/dev/null
n=$(perf_count --comms 'fault ü')
period=$(perf script -i "$data" -F period 2>/dev/null | head -1 | tr -d ' ')
sum=$(awk '{s += $NF} END {print s + 0}' "$TMPDIR/fault.folded")
[ "$sum" = "$((n * period))" ] || fail "--comms 'fault ü' folded total $sum, want $n x $period"
grep -qv '^fault_ü;' "$TMPDIR/fault.folded" && fail "--comms 'fault ü' kept other threads' stacks"

# --focus, --ignore, --hide against pprof's own, function by function.
"$profconv" convert -q -t pprof -o "$TMPDIR/all.pb.gz" "$data" || fail "convert to pprof failed"
top_rows() { # FILE [PPROF-OPTION]: "flat cum name" rows of pprof -top
	"$PPROF" -top -nodecount=100000 -symbolize=none ${2:-} "$1" 2>/dev/null |
		awk 'seen {print $1, $4, $6, $7, $8} /flat%/ {seen = 1}'
}
for filter in 'focus=one_inner|beta' 'ignore=clock_gettime' 'hide=^cpu_ms$|clock_gettime' \
	'focus=kallsyms' 'ignore=^main$'; do
	name=${filter%%=*} re=${filter#*=}
	"$profconv" convert -q "--$name" "$re" -t pprof -o "$TMPDIR/f.pb.gz" "$data" ||
		{ fail "--$name '$re' failed"; continue; }
	top_rows "$TMPDIR/all.pb.gz" "-$name=$re" >"$TMPDIR/want.top"
	top_rows "$TMPDIR/f.pb.gz" >"$TMPDIR/got.top"
	[ -s "$TMPDIR/want.top" ] || fail "--$name '$re': pprof shows no rows: an empty check"
	cmp -s "$TMPDIR/want.top" "$TMPDIR/got.top" ||
		{ fail "--$name '$re': pprof -top differs from pprof -$name"; diff "$TMPDIR/want.top" "$TMPDIR/got.top" | head -10; }
done

# The .cpuprofile's times are perf's.
for input in "$data" "$text"; do
	"$profconv" convert -q -o "$TMPDIR/t.cpuprofile" "$input" || { fail "cpuprofile of $input failed"; continue; }
	perf script -i "$data" -F time 2>/dev/null | tr -d ' :' >"$TMPDIR/perf.times"
	python3 - "$TMPDIR/t.cpuprofile" "$TMPDIR/perf.times" <<'EOF' || fail "cpuprofile times of $(basename "$input")"
import json, sys
prof = json.load(open(sys.argv[1]))
want = sorted(round(float(line) * 1e6) for line in open(sys.argv[2]) if line.strip())
at, got = prof["startTime"], []
for delta in prof["timeDeltas"]:
    at += delta
    got.append(at)
if len(prof["samples"]) != len(want) or sorted(got) != want:
    print("samples %d, want %d; first times %s, want %s" % (len(prof["samples"]), len(want), got[:3], want[:3]))
    sys.exit(1)
if any(d < 0 for d in prof["timeDeltas"]) or prof["endTime"] < got[-1]:
    print("times go backwards"); sys.exit(1)
EOF
done

# diff and report take the filters too.
"$profconv" diff -v --comms 'worker one' -t folded -o "$TMPDIR/d.folded" "$data" "$data" 2>"$TMPDIR/d.err" ||
	fail "diff with --comms failed: $(head -2 "$TMPDIR/d.err")"
grep -qv '^worker_one;' "$TMPDIR/d.folded" && fail "diff --comms kept other threads"
"$profconv" report --comms 'worker one' --top 3 "$data" >"$TMPDIR/r.txt" 2>/dev/null || fail "report --comms failed"
grep -q 'one_inner' "$TMPDIR/r.txt" || fail "report --comms 'worker one' does not show one_inner"

# Misuse.
usage() { # WANT-STATUS MESSAGE-PART OPTIONS...
	want=$1 part=$2
	shift 2
	"$profconv" convert "$@" -t folded -o "$TMPDIR/u.folded" "$data" 2>"$TMPDIR/u.err"
	status=$?
	[ "$status" = "$want" ] || fail "$*: exit $status, want $want"
	grep -q -- "$part" "$TMPDIR/u.err" || fail "$*: message lacks '$part': $(head -1 "$TMPDIR/u.err")"
	[ -e "$TMPDIR/u.folded" ] && fail "$*: wrote an output" && rm -f "$TMPDIR/u.folded"
}
usage 2 "not a regular expression" --focus 'a('
usage 2 "percent slices" --time 'soon'
usage 2 "percent slices" --time '10%/20'
usage 2 "exclude each other" --kernel-only --user-only
usage 2 "without empty items" --pids '1,,2'
usage 2 "list of numbers" --tids 'x'
"$profconv" convert --time 0,1 -t folded -o "$TMPDIR/spt.folded" "$samples/demo.spt" 2>"$TMPDIR/spt.err"
[ $? = 1 ] || fail "--time on an SPT (no sample times) does not exit 1"
grep -q "needs the time of each sample" "$TMPDIR/spt.err" || fail "--time on an SPT: $(head -1 "$TMPDIR/spt.err")"

# perf's percent bounds to the nanosecond (its time-utils.c, set_percent_time):
# 11 samples at 0, 1, ..., 10 s from the first; a slice's ends round to a
# nanosecond, its end one short unless it is the last sample's, both kept
i=0
while [ $i -le 10 ]; do
	printf 'prog   100 [000] %d.000000000:     250000 cpu-clock: \n' $((1000 + i))
	printf '\t            401000 main+0x0 (/usr/bin/prog)\n\n'
	i=$((i + 1))
done >"$TMPDIR/bounds.txt"
for want in '10%/1 1' '10%/10 2' '10%/1,10%/10 3' '0%-10%,90%-100% 3' '50%/2 6'; do
	got=$(kept "$TMPDIR/bounds.txt" --time "${want% *}")
	[ "$got" = "${want#* }" ] || fail "--time ${want% *} on 11 samples a second apart: kept '$got', not ${want#* }"
done

[ "$failures" = 0 ] || { echo "filters: $failures failures"; exit 1; }
echo "filters: perf's --pid/--tid/--comms/--dsos/--time and pprof's -focus/-ignore/-hide agree ($total samples)"
