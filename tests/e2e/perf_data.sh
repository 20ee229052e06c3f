#!/bin/sh
# The native perf.data reader (-f perf-data) against perf's own reading of
# the same recordings (perf script text through the perf-script reader).
#
# Builds the programs of samples/perfdata with -O1 -g -fno-omit-frame-pointer
# (threads.c: four threads renamed to "worker one", "wörker-β", "作業 three"
# and "fault ü", the last one page-faulting, all calling clock_gettime:
# libc, vdso and kernel frames; libshape.c + pie_main.c: a PIE
# calling its own shared library; templates.cc: C++ namespaces, templates,
# a lambda), and records them with this machine's perf, software events
# only, -F 4000:
#   fp     threads, cpu-clock, frame-pointer callchains (-g)
#   two    threads, cpu-clock and page-faults in one file, -g
#   pie    pie_main + libshape.so, cpu-clock, -g
#   cxx    templates, cpu-clock, -g
#   pipe   threads, cpu-clock, -g, pipe mode (perf record -o - > FILE)
#   zstd   threads, cpu-clock and page-faults, -g, perf record -z
#   zpipe  pie_main, cpu-clock, -g, -z in pipe mode (records cut across
#          compressed pieces)
#   nog    threads, cpu-clock, no callchains
# For every capture and every event E in it:
#   - `profconv convert -f perf-data CAPTURE -t folded --event E` equals, byte
#     for byte, `perf script -i CAPTURE | profconv convert -f perf-script -
#     -t folded --event E` (roots are comm names, so this also compares
#     the thread each sample is given to, with its name at that time);
#     so does the conversion without -f (the format detected from the
#     file), and for the pipe-mode captures the one reading standard input
#     (`cat CAPTURE | profconv convert -f perf-data - ...`);
# and for every capture:
#   - with --tid (roots comm-PID/TID) the folded output equals that of
#     `perf script -F +pid` (perf's default prints no pid);
#   - converted both ways to pprof, `pprof -raw -symbolize=none` shows the
#     same sample types (names and units) with the same total per column,
#     and the same totals per comm label: the renamed threads' names, with
#     their spaces and non-ASCII bytes, are labels on both sides (the
#     folded roots show them with '_' for ' ', as stackcollapse-perf.pl
#     does). A different period or mapping list is printed as a note.
# The perf script side is checked on its own too, so that the equalities
# are not empty: the threads captures show the four thread names, the
# two-event captures page-faults samples in fault_touch, pie frames of
# both the executable and libshape.so, cxx the demangled C++ names
# (geo::Vec<double, 8>::operator+, geo::dot<float>, geo::dot<double>, ...).
# Every mismatch is reported (a diff excerpt of up to 40 lines) before the
# script fails.
#
# Needs perf (linux-perf) with the right to record (root, or
# kernel.perf_event_paranoid <= 1), gcc, g++, python3 and the real pprof;
# otherwise skipped. A profconv whose `formats` does not list perf-data
# fails ("perf-data reader missing"), after the perf script side has been
# checked when the tools are there. About 20 s on a 2-vCPU VM.
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
samples=${SAMPLES:-$top/samples}/perfdata
started=$(date +%s)

failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

[ -x "${PROFCONV:-}" ] || { echo "SKIPPED: profconv is not built (${PROFCONV:-PROFCONV unset})"; exit 77; }
"$PROFCONV" formats >"$TMPDIR/formats" 2>&1 || { cat "$TMPDIR/formats"; echo "perf_data: profconv formats failed"; exit 1; }
reader=
grep -Eq '^perf-data +read' "$TMPDIR/formats" && reader=1
[ -n "$reader" ] || echo "perf_data: perf-data reader missing: \`profconv formats\` does not list it; checking only the perf script side"

# Without the tools a missing reader still fails: it is profconv's fault.
skip() {
	if [ -z "$reader" ]; then
		echo "perf_data: perf-data reader missing (and: $*)"
		exit 1
	fi
	echo "SKIPPED: $*"
	exit 77
}

for tool in perf gcc g++ python3; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool is missing"
done
[ -x "${PPROF:-}" ] || skip "pprof is not built (${PPROF:-PPROF unset}); run: make build/tools/pprof"
for source in threads.c libshape.c pie_main.c templates.cc; do
	[ -f "$samples/$source" ] || { echo "perf_data: $samples/$source is missing"; exit 1; }
done

# perf's build-id cache (~/.debug, with its copy of the vdso) and pprof's
# files stay in the scratch directory; both readers see the same one.
export HOME="$TMPDIR/home" PPROF_BINARY_PATH="$TMPDIR/no-binaries" PPROF_TMPDIR="$TMPDIR"
export PYTHONDONTWRITEBYTECODE=1
mkdir -p "$HOME"

# --- build ----------------------------------------------------------------
bin=$TMPDIR/bin
sh "$samples/build.sh" "$bin" -O1 -g -fno-omit-frame-pointer >"$TMPDIR/build.log" 2>&1 ||
	{ cat "$TMPDIR/build.log"; echo "perf_data: cannot build samples/perfdata"; exit 1; }

# --- record ---------------------------------------------------------------
# record NAME file|pipe PROGRAM PERF-OPTIONS...: CAPTURE = $TMPDIR/NAME.data.
# The programs print on standard error: in pipe mode standard output is
# the data.
record() {
	name=$1 mode=$2 program=$3
	shift 3
	if [ "$mode" = pipe ]; then
		perf record -q -F 4000 "$@" -o - -- "$bin/$program" >"$TMPDIR/$name.data" \
			2>"$TMPDIR/$name.record.err"
	else
		perf record -q -F 4000 "$@" -o "$TMPDIR/$name.data" -- "$bin/$program" \
			>/dev/null 2>"$TMPDIR/$name.record.err"
	fi || {
		if [ "$name" = fp ]; then
			skip "perf cannot record: $(grep -v '^[0-9]*$' "$TMPDIR/$name.record.err" | head -2 | tr '\n' ' ')"
		fi
		fail "$name: perf record $* failed: $(head -3 "$TMPDIR/$name.record.err")"
		return 1
	}
}

# --- the perf script side -------------------------------------------------
# script_side NAME: perf script text (default fields, and -F +pid), then
# profconv's perf-script folded outputs per event and its pprof.
script_side() {
	name=$1
	data=$TMPDIR/$name.data
	if ! perf script -i "$data" >"$TMPDIR/$name.script.txt" 2>"$TMPDIR/$name.script.err" ||
		! perf script -F +pid -i "$data" >"$TMPDIR/$name.script-pid.txt" \
			2>>"$TMPDIR/$name.script.err"; then
		fail "$name: perf script failed: $(head -3 "$TMPDIR/$name.script.err")"
		return 1
	fi
	[ -s "$TMPDIR/$name.script.txt" ] || { fail "$name: perf script printed nothing"; return 1; }
	for event in $events; do
		"$PROFCONV" convert -f perf-script - -t folded --event "$event" \
			-o "$TMPDIR/$name.$event.script.folded" <"$TMPDIR/$name.script.txt" \
			2>"$TMPDIR/$name.$event.script.err" || {
			fail "$name: perf script | profconv -f perf-script --event $event failed: $(head -3 "$TMPDIR/$name.$event.script.err")"
			return 1
		}
		[ -s "$TMPDIR/$name.$event.script.folded" ] || { fail "$name: no $event stacks in perf script's text"; return 1; }
	done
	if ! "$PROFCONV" convert -q -f perf-script - -t folded --tid -o "$TMPDIR/$name.tid.script.folded" \
		<"$TMPDIR/$name.script-pid.txt" 2>"$TMPDIR/$name.tid.script.err" ||
		! "$PROFCONV" convert -q -f perf-script - -t pprof -o "$TMPDIR/$name.script.pb.gz" \
			<"$TMPDIR/$name.script.txt" 2>"$TMPDIR/$name.pprof.script.err" ||
		! "$PPROF" -raw -symbolize=none "$TMPDIR/$name.script.pb.gz" >"$TMPDIR/$name.script.raw" \
			2>>"$TMPDIR/$name.pprof.script.err"; then
		fail "$name: the perf script side's --tid folded or pprof failed: $(cat "$TMPDIR/$name.tid.script.err" "$TMPDIR/$name.pprof.script.err" 2>/dev/null | head -3)"
		return 1
	fi
	return 0
}

# has_frame NAME EVENT FRAME...: each FRAME is a whole frame of the perf
# script side's folded stacks of EVENT.
has_frame() {
	name=$1 event=$2
	shift 2
	for frame in "$@"; do
		awk -v f="$frame" '{ sub(/ [0-9]+$/, ""); n = split($0, a, ";");
			for (i = 2; i <= n; i++) if (a[i] == f) { found = 1; exit } }
			END { exit !found }' "$TMPDIR/$name.$event.script.folded" ||
			fail "$name: perf script's $event stacks have no frame '$frame' (the capture does not show what it should)"
	done
}

# has_root NAME EVENT ROOT...: each ROOT (a comm, ' ' as '_') starts stacks.
has_root() {
	name=$1 event=$2
	shift 2
	for root in "$@"; do
		grep -q "^$root;" "$TMPDIR/$name.$event.script.folded" ||
			fail "$name: perf script's $event stacks have no thread '$root'"
	done
}

# --- comparisons ------------------------------------------------------------
cat >"$TMPDIR/raw.py" <<'EOF'
"""raw.py WHAT OURS|- PERFS [COMM...]: compares two `pprof -raw
-symbolize=none` outputs: sample types, per column totals, per comm label
totals (exit 1 on a difference); period and mapping names are notes. Each
COMM must be a comm label of PERFS (perf script's); with OURS "-" only
that is checked."""
import re
import sys


def parse(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        lines = handle.read().split("\n")
    section, types, samples = None, [], []
    period, mappings = {}, set()
    sample_re = re.compile(r"^\s*(-?\d+(?:\s+-?\d+)*):((?: \d+)*) ?$")
    mapping_re = re.compile(r"^\d+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (.*?)"
                            r"(?: [0-9a-f]{16,})?\s*(?:\[[A-Z]{2}\])*$")
    for i, line in enumerate(lines):
        if section is None:
            for key in ("PeriodType", "Period"):
                if line.startswith(key + ": "):
                    period[key] = line[len(key) + 2:]
        if line == "Samples:":
            section = "samples"
            types = [t.replace("[dflt]", "") for t in lines[i + 1].split()]
            continue
        if line.startswith("Locations"):
            section = "locations"
        elif line.startswith("Mappings"):
            section = "mappings"
        elif section == "samples":
            match = sample_re.match(line)
            if match and not line.startswith(" " * 16):
                samples.append([[int(v) for v in match.group(1).split()], {}])
            elif line.startswith(" " * 16) and samples:
                for key, value in re.findall(r"(\w+):\[(.*?)\](?= \w+:\[|$)", line.strip()):
                    samples[-1][1][key] = value
        elif section == "mappings" and line.strip():
            match = mapping_re.match(line)
            mappings.add(match.group(1) if match else line)
    totals, comms = [0] * len(types), {}
    for values, labels in samples:
        comm = comms.setdefault(labels.get("comm", "(no comm label)"), [0] * len(types))
        for j, v in enumerate(values[:len(types)]):
            totals[j] += v
            comm[j] += v
    return types, totals, comms, period, mappings


def main():
    what, ours_path, perfs_path, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    perfs = parse(perfs_path)
    bad = 0
    if not perfs[0]:
        print("    %s: no sample types in perf script's pprof" % what)
        return 1
    for name in names:
        if name not in perfs[2]:
            print("    %s: perf script's pprof has no comm label [%s] (labels: %s)" % (
                what, name, sorted(perfs[2])))
            bad = 1
    if ours_path == "-":  # the perf script side alone
        return bad
    ours = parse(ours_path)
    if (ours[0], ours[1]) != (perfs[0], perfs[1]):
        print("    %s: sample types and totals differ:" % what)
        print("      perf-data:   %s" % "  ".join("%s=%d" % tv for tv in zip(ours[0], ours[1])))
        print("      perf script: %s" % "  ".join("%s=%d" % tv for tv in zip(perfs[0], perfs[1])))
        bad = 1
    else:
        print("    %s: pprof columns equal: %s" % (
            what, "  ".join("%s=%d" % tv for tv in zip(ours[0], ours[1]))))
    if ours[2] != perfs[2]:
        print("    %s: totals per comm label differ (comm: perf-data / perf script):" % what)
        for comm in sorted(set(ours[2]) | set(perfs[2])):
            if ours[2].get(comm) != perfs[2].get(comm):
                print("      [%s]: %s / %s" % (comm, ours[2].get(comm), perfs[2].get(comm)))
        bad = 1
    elif names:
        print("    %s: comm labels equal: %s" % (what, ", ".join(
            "[%s] %s" % (c, "/".join(map(str, v))) for c, v in sorted(ours[2].items()))))
    if ours[3] != perfs[3]:
        print("    note: %s: period differs: perf-data %s, perf script %s" % (what, ours[3], perfs[3]))
    if ours[4] != perfs[4]:
        print("    note: %s: mappings only in perf-data's: %s; only in perf script's: %s" % (
            what, sorted(ours[4] - perfs[4]), sorted(perfs[4] - ours[4])))
    return bad


sys.exit(main())
EOF

# same WHAT EXPECTED GOT: cmp, else a diff excerpt and a failure.
same() {
	if ! cmp -s "$2" "$3"; then
		fail "$1: differs from perf script's ($(wc -l <"$3") lines, perf script's $(wc -l <"$2")); diff perf-script perf-data:"
		diff "$2" "$3" | cut -c1-400 | head -40 | sed 's/^/    /'
		return 1
	fi
	return 0
}

# data_side NAME MODE [COMM...]: the perf-data reader's outputs compared
# with the perf script side's; each COMM must be a comm label of both.
data_side() {
	name=$1 mode=$2
	shift 2
	data=$TMPDIR/$name.data
	for event in $events; do
		base=$TMPDIR/$name.$event
		what="$name --event $event"
		if ! "$PROFCONV" convert -f perf-data "$data" -t folded --event "$event" \
			-o "$base.data.folded" 2>"$base.data.err" </dev/null; then
			fail "$what: profconv -f perf-data failed: $(head -3 "$base.data.err")"
			continue
		fi
		# warnings perf-script's conversion does not give
		grep -vxF -f "$base.script.err" "$base.data.err" |
			sed "s/^/    note: $name: perf-data: /" | head -5
		same "$what" "$base.script.folded" "$base.data.folded" &&
			echo "    $what: folded equal ($(wc -l <"$base.data.folded") stacks)"
		if "$PROFCONV" convert -q "$data" -t folded --event "$event" -o "$base.detected.folded" \
			2>"$base.detected.err" </dev/null; then
			cmp -s "$base.detected.folded" "$base.data.folded" ||
				fail "$what: without -f (detected) the output differs from -f perf-data's"
		else
			fail "$what: perf.data ($mode mode) not detected without -f: $(head -3 "$base.detected.err")"
		fi
		if [ "$mode" = pipe ]; then
			# shellcheck disable=SC2002 # the reader must take a pipe
			if cat "$data" | "$PROFCONV" convert -q -f perf-data - -t folded --event "$event" \
				-o "$base.stdin.folded" 2>"$base.stdin.err"; then
				same "$what (standard input)" "$base.script.folded" "$base.stdin.folded"
			else
				fail "$what: cat CAPTURE | profconv -f perf-data - failed: $(head -3 "$base.stdin.err")"
			fi
		fi
	done
	if "$PROFCONV" convert -q -f perf-data "$data" -t folded --tid -o "$TMPDIR/$name.tid.data.folded" \
		2>"$TMPDIR/$name.tid.data.err" </dev/null; then
		same "$name --tid" "$TMPDIR/$name.tid.script.folded" "$TMPDIR/$name.tid.data.folded"
	else
		fail "$name --tid: profconv -f perf-data failed: $(head -3 "$TMPDIR/$name.tid.data.err")"
	fi
	if ! "$PROFCONV" convert -q -f perf-data "$data" -t pprof -o "$TMPDIR/$name.data.pb.gz" \
		2>"$TMPDIR/$name.pprof.data.err" </dev/null; then
		fail "$name: profconv -f perf-data -t pprof failed: $(head -3 "$TMPDIR/$name.pprof.data.err")"
	elif ! "$PPROF" -raw -symbolize=none "$TMPDIR/$name.data.pb.gz" >"$TMPDIR/$name.data.raw" \
		2>"$TMPDIR/$name.pprof.data.err"; then
		fail "$name: pprof -raw cannot read perf-data's pprof: $(head -3 "$TMPDIR/$name.pprof.data.err")"
	else
		python3 "$TMPDIR/raw.py" "$name" "$TMPDIR/$name.data.raw" "$TMPDIR/$name.script.raw" \
			"$@" || fail "$name: pprof -raw differs"
	fi
}

# capture NAME file|pipe PROGRAM "EVENTS" PERF-OPTIONS...
capture() {
	name=$1 mode=$2 program=$3 events=$4
	shift 4
	echo "$name: perf record $* ($mode mode)"
	record "$name" "$mode" "$program" "$@" || return
	script_side "$name" || return
	case $program in
	threads)
		comms=1
		python3 "$TMPDIR/raw.py" "$name" - "$TMPDIR/$name.script.raw" \
			"worker one" "wörker-β" "作業 three" "fault ü" || fail "$name: perf script's pprof lacks thread names"
		has_root "$name" cpu-clock worker_one wörker-β 作業_three fault_ü
		case $events in *page-faults*) has_frame "$name" page-faults fault_touch ;; esac
		[ "$name" = nog ] || has_frame "$name" cpu-clock one_inner beta_hash three_walk three_leaf fault_touch
		;;
	pie_main)
		comms=
		has_frame "$name" cpu-clock shape_edge shape_area shape_area_sum shape_perimeter_sum pie_round pie_mix main
		;;
	templates)
		comms=
		has_frame "$name" cpu-clock 'geo::Vec<double, 8>::operator+' 'geo::dot<float>' 'geo::dot<double>' \
			'geo::detail::Accumulator::add' geo::run
		;;
	esac
	[ -n "$reader" ] || return
	if [ -n "$comms" ]; then
		data_side "$name" "$mode" "worker one" "wörker-β" "作業 three" "fault ü"
	else
		data_side "$name" "$mode"
	fi
}

capture fp file threads cpu-clock -e cpu-clock -g
capture two file threads "cpu-clock page-faults" -e cpu-clock -e page-faults -g
capture pie file pie_main cpu-clock -e cpu-clock -g
capture cxx file templates cpu-clock -e cpu-clock -g
capture pipe pipe threads cpu-clock -e cpu-clock -g
capture zstd file threads "cpu-clock page-faults" -z -e cpu-clock -e page-faults -g
capture zpipe pipe pie_main cpu-clock -z -e cpu-clock -g
capture nog file threads cpu-clock -e cpu-clock

echo "perf_data: $(($(date +%s) - started)) s"
if [ -z "$reader" ]; then
	[ "$failures" -eq 0 ] || echo "perf_data: $failures failure(s) on the perf script side"
	echo "perf_data: perf-data reader missing (profconv formats does not list perf-data)"
	exit 1
fi
[ "$failures" -eq 0 ] || { echo "perf_data: $failures failure(s)"; exit 1; }
echo "perf_data: every capture reads as perf script reads it"
