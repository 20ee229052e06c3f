#!/bin/sh
# The perf script captures recorded by this project (samples/perf, made by
# samples/perf/record.sh on a real machine), checked against the
# independent oracle tests/oracle/perf_fold.py and the real pprof.
#
# 1. Folded: for every line "EXPECTED INPUT OPTIONS" of
#    samples/perf/folded.list,
#    - the committed EXPECTED is what the oracle prints today (the expected
#      files are the oracle's, never profconv's);
#    - `profconv convert -f perf-script -t folded OPTIONS INPUT` prints
#      EXPECTED byte for byte (and so does the conversion without -f: the
#      format is detected).
#    The same holds for a 3 MB text of perfgen (the benchmark's generator)
#    with each option, and its pprof conversion passes the checks of 2.
# 2. pprof: every INPUT converts with `profconv convert -o X.pb.gz`, then
#    - `pprof -raw -symbolize=none` shows, for each event E of the input,
#      two columns whose totals are exactly the number of samples of E and
#      the sum of their printed periods (the sample count when no period is
#      printed), named as pprof users expect: with one event "samples"/count
#      and "cpu"/nanoseconds (cpu-clock, task-clock) or E/count; with several
#      E_samples/count and E/its unit, E without perf's modifier suffix
#      (":ppp"); the default column is the first event's weight; the period
#      type is that column's and the period the one printed (else the
#      rounded mean); and the oracle's sums agree with samples/perf/totals.txt
#      (pprof's views but -top drop samples without frames: -raw and
#      -traces show the totals of the samples with frames);
#    - the labels comm, pid, tid and cpu are there exactly when the text
#      prints them, with the printed values: the sums per (comm, pid, tid,
#      cpu) and per (labels, stack) equal the oracle's, where a stack is
#      its locations leaf first, each the function names of its lines
#      (innermost first): the "(inlined)" frames perf prints before a frame
#      of the same address are lines of that frame's location, and a run of
#      them that no frame of their address follows is a location of its own;
#    - there is one mapping per distinct (pid, dso) of the samples' frames
#      ([unknown] and (inlined) are no dso; without a printed pid a
#      process is one address space), each named by its dso (pprof adds a
#      nameless one of its own to a profile that has none), and
#      with --show-mmap-events a mapping's range is its MMAP2 record's, and
#      so is its build id (perf record --buildid-mmap) or none;
#    - `pprof -top` reports each column's exact total, and `pprof -traces`
#      the total of the samples that have frames, with the comm labels of
#      the text (both with -unit=ns, so that the nanoseconds of cpu-clock
#      show unscaled: pprof then prints counts with an "ns" too).
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, TMPDIR, BUILD (for
# BUILD/tools/perfgen).
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u

skip() {
	echo "SKIPPED: $*"
	exit 77
}

here=$(cd "$(dirname "$0")" && pwd)
oracle_dir=$here/../oracle
captures=${SAMPLES:-}/perf
[ -x "${PROFCONV:-}" ] || skip "profconv is not built (${PROFCONV:-PROFCONV unset})"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
[ -f "$captures/folded.list" ] || skip "no captures in $captures (samples/perf/record.sh makes them)"
[ -f "$oracle_dir/perf_fold.py" ] || skip "the oracle $oracle_dir/perf_fold.py is missing"
"$PROFCONV" formats >"$TMPDIR/formats" 2>&1 || skip "profconv formats failed"
grep -q '^perf-script  *read' "$TMPDIR/formats" || skip "this profconv has no perf-script reader"
has_folded=
grep -Eq '^folded +write' "$TMPDIR/formats" && has_folded=1
[ -x "${PPROF:-}" ] || skip "pprof is not built (${PPROF:-PPROF unset}); run: make build/tools/pprof"

# pprof must find no binaries and write nothing outside the scratch directory.
export HOME="$TMPDIR" PPROF_BINARY_PATH="$TMPDIR/no-binaries" PPROF_TMPDIR="$TMPDIR"
# and python must leave no __pycache__ beside the oracle it imports
export PYTHONDONTWRITEBYTECODE=1
failed=0 checked=0

fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

# --- 1. folded -------------------------------------------------------------
# fold_check INPUT OPTIONS [EXPECTED]: profconv's folded output of INPUT
# with OPTIONS is the oracle's, and EXPECTED (when given) is the oracle's too.
fold_check() {
	input=$1 options=$2 expect=${3:-}
	what="${input##*/} -t folded${options:+ $options}"
	checked=$((checked + 1))
	# shellcheck disable=SC2086 # options are words
	python3 "$oracle_dir/perf_fold.py" $options "$input" >"$TMPDIR/oracle.folded" </dev/null ||
		{ fail "$what: the oracle failed"; return; }
	if [ -n "$expect" ] && ! cmp -s "$TMPDIR/oracle.folded" "$expect"; then
		fail "$what: samples/perf/${expect##*/} is not the oracle's output (rerun: sh samples/perf/record.sh --expected)"
		return
	fi
	# shellcheck disable=SC2086
	if ! "$PROFCONV" convert -q -f perf-script -t folded $options -o "$TMPDIR/got.folded" \
		"$input" 2>"$TMPDIR/err" </dev/null; then
		fail "$what: profconv failed: $(head -3 "$TMPDIR/err")"
		return
	fi
	if ! cmp -s "$TMPDIR/got.folded" "$TMPDIR/oracle.folded"; then
		fail "$what: differs from ${expect:+${expect##*/}, }the oracle's ($(wc -l <"$TMPDIR/got.folded") lines, expected $(wc -l <"$TMPDIR/oracle.folded")):"
		diff "$TMPDIR/oracle.folded" "$TMPDIR/got.folded" | cut -c1-220 | head -12 | sed 's/^/    /'
		return
	fi
	if [ -z "$options" ]; then
		if ! "$PROFCONV" convert -q -t folded -o "$TMPDIR/detected.folded" "$input" \
			2>"$TMPDIR/err" </dev/null; then
			fail "${input##*/}: not detected as perf-script: $(head -3 "$TMPDIR/err")"
		elif ! cmp -s "$TMPDIR/detected.folded" "$TMPDIR/oracle.folded"; then
			fail "${input##*/}: the detected conversion differs from -f perf-script"
		fi
	fi
}

if [ -n "$has_folded" ]; then
	while read -r expect input options; do
		case $expect in '#'* | '') continue ;; esac
		fold_check "$captures/$input" "$options" "$captures/$expect"
	done <"$captures/folded.list"
	echo "folded: $checked conversions checked"
else
	echo "note: this profconv has no folded writer; the folded comparisons are skipped"
fi

# --- 2. pprof ----------------------------------------------------------------
cat >"$TMPDIR/check.py" <<'EOF'
"""Checks pprof's views of a converted capture against the oracle."""
import os
import re
import sys

sys.path.insert(0, sys.argv[2])
import perf_fold  # noqa: E402

NO_DSO = (None, "[unknown]", "inlined")


def parse_raw(path):
    """pprof -raw: types, default, samples (values, location ids, labels),
    locations {id: [function names, innermost first] or []}, mappings."""
    with open(path, encoding="utf-8", errors="surrogateescape") as raw:
        lines = raw.read().split("\n")
    section, types, units, default = None, [], [], None
    period_type, period = None, None
    samples, locations, mappings = [], {}, {}
    sample_re = re.compile(r"^\s*(-?\d+(?:\s+-?\d+)*): ?((?:\d+ ?)*)$")
    location_re = re.compile(r"^\s*(\d+): (0x[0-9a-f]+) (?:M=(\d+) )?(?:\[F\] )?(.*)$")
    # "NAME FILE:LINE s=START[(SYSTEM_NAME)]"; names may hold blanks
    line_re = re.compile(r"^(.*) \S*:-?\d+ s=-?\d+(?:\(.*\))?$")
    # "ID: START/LIMIT/OFFSET FILE [BUILD_ID] [FLAGS]"
    mapping_re = re.compile(r"^(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (.*?)"
                            r"(?: ([0-9a-f]{16,}))?\s*((?:\[[A-Z]{2}\])*)$")
    last_location = None
    for i, line in enumerate(lines):
        if section is None and line.startswith("PeriodType: "):
            period_type = tuple(line[len("PeriodType: "):].split(" "))
        if section is None and line.startswith("Period: "):
            period = int(line[len("Period: "):])
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            if line == "Samples:":
                for word in lines[i + 1].split():
                    name, unit = word.rsplit("/", 1)
                    types.append(name)
                    units.append(unit.replace("[dflt]", ""))
                    if word.endswith("[dflt]"):
                        default = name
            continue
        if section == "Samples:":
            match = sample_re.match(line)
            if match and not line.startswith("                "):
                samples.append({"values": [int(v) for v in match.group(1).split()],
                                "locations": [int(v) for v in match.group(2).split()],
                                "labels": {}})
            elif line.startswith("                ") and samples:
                text = line.strip()
                for key, value in re.findall(r"(\w+):\[(.*?)\](?= \w+:\[|$)", text):
                    samples[-1]["labels"][key] = value
        elif section == "Locations":
            match = location_re.match(line)
            if match:
                last_location = int(match.group(1))
                locations[last_location] = []
                rest = match.group(4)
                if rest and line_re.match(rest):
                    locations[last_location].append(line_re.match(rest).group(1))
            elif line.startswith("             ") and last_location is not None:
                rest = line.strip()
                if line_re.match(rest):
                    locations[last_location].append(line_re.match(rest).group(1))
        elif section == "Mappings" and line.strip():
            match = mapping_re.match(line)
            if not match:
                raise SystemExit("unparsed mapping line %r" % line)
            mappings[int(match.group(1))] = {
                "start": int(match.group(2), 16), "limit": int(match.group(3), 16),
                "offset": int(match.group(4), 16), "file": match.group(5),
                "build_id": match.group(6) or ""}
    return types, units, default, (period_type, period), samples, locations, mappings


MODIFIERS = re.compile(r"^(.+):[ukhIGHpPSDWebR]+$")


def pprof_columns(events, clocked):
    """{event: (samples column, weight column, weight unit)} as the writer
    names them: one event gives "samples" and "cpu" (a clock whose samples
    all printed periods: nanoseconds) or the event; several give
    "EVENT_samples" and "EVENT". EVENT is the name without perf's modifier
    suffix, unless two events then collide. clocked: the events whose
    weight is in nanoseconds."""
    base = {e: (MODIFIERS.match(e).group(1) if e and MODIFIERS.match(e) else e)
            for e in events}
    for e in events:
        if list(base.values()).count(base[e]) > 1:
            base[e] = e
    names = {}
    for e in events:
        unit = "nanoseconds" if e in clocked else "count"
        if len(events) == 1:
            names[e] = ("samples", "cpu" if e in clocked else base[e], unit)
        else:
            names[e] = (base[e] + "_samples", base[e], unit)
    return names


def is_clock(event):
    name = MODIFIERS.match(event).group(1) if MODIFIERS.match(event) else event
    return name in ("cpu-clock", "task-clock")


def number(label):
    """'1234' or '1234 unit' -> 1234."""
    return None if label is None else int(label.split()[0])


def oracle_key(sample, lone):
    if lone:
        return (sample.comm, sample.number, sample.cpu)
    return (sample.comm, sample.pid, sample.tid, sample.cpu)


def pprof_key(labels, lone):
    pid, tid = number(labels.get("pid")), number(labels.get("tid"))
    if lone:  # `-F pid,ip,dso`: the lone number may be read as pid or tid
        return (labels.get("comm"), pid if pid is not None else tid, number(labels.get("cpu")))
    return (labels.get("comm"), pid, tid, number(labels.get("cpu")))


def oracle_locations(frames):
    """The frames (leaf first) grouped into physical locations: perf prints
    the functions inlined at an address as "(inlined)" frames right before
    the frame of that address; a run of them not followed by a frame of
    the same address stands alone. Each location: its function names,
    innermost first, None for an unknown symbol."""
    groups, run = [], []
    for addr, sym, dso in frames:
        name = None if sym in (None, "[unknown]") else sym
        if dso == "inlined":
            if run and run[-1][0] != addr:
                groups.append(tuple(n for _, n in run))
                run = []
            run.append((addr, name))
            continue
        if run and run[-1][0] == addr:
            groups.append(tuple(n for _, n in run) + (name,))
        else:
            if run:
                groups.append(tuple(n for _, n in run))
            groups.append((name,))
        run = []
    if run:
        groups.append(tuple(n for _, n in run))
    return tuple(groups)


def show_stack(locations):
    """root;...;leaf, with the lines of one location joined by '+'."""
    return ";".join("+".join(str(n) for n in reversed(group)) for group in reversed(locations))


def show(key):
    return "(" + ", ".join("-" if k is None else str(k) for k in key) + ")"


def check(capture, raw_path, totals_path, expect_path):
    """Also writes expect_path: per pprof column "INDEX TOTAL SHOWN_TOTAL".
    pprof's views other than -top drop the samples that have no frame
    (its name filter keeps a sample only for a location that passes), so
    -raw and -traces show the totals of the samples with frames."""
    name = os.path.basename(capture)
    samples, mmaps = perf_fold.parse(capture)
    totals = perf_fold.totals(samples)
    framed = perf_fold.totals([s for s in samples if s.frames])
    types, units, default, period_seen, got_samples, locations, mappings = parse_raw(raw_path)
    errors, notes = [], []
    lone = any(s.number is not None for s in samples)
    empty = len(samples) - sum(count for count, _ in framed.values())
    if empty:
        notes.append("%d sample(s) without frames: counted by pprof -top only" % empty)

    # columns, their units, the period and totals
    columns = {}
    clocked = {e for e in totals if e is not None and is_clock(e) and
               all(s.period is not None for s in samples if s.event == e)}
    names = pprof_columns(list(totals), clocked)
    for event in totals:
        if event is None:  # no event printed: the reader names the event
            if len(totals) != 1 or len(types) != 2 or types[0] != "samples":
                errors.append("no event printed: expected samples and one more column, "
                              "pprof has %s" % types)
                continue
            columns[event] = (0, 1)
            notes.append("no event printed: columns %s, %s" % tuple(types))
        else:
            want = names[event]
            if want[0] not in types or want[1] not in types:
                errors.append("columns %s/%s missing; pprof has %s" % (want[:2] + (types,)))
                continue
            columns[event] = (types.index(want[0]), types.index(want[1]))
            got_units = (units[columns[event][0]], units[columns[event][1]])
            if got_units != ("count", want[2]):
                errors.append("%s: units %s, expected %s" % (event, got_units,
                                                             ("count", want[2])))
    if len(types) != 2 * len(totals):
        errors.append("%d sample types for %d events: %s" % (len(types), len(totals), types))
    first = next(iter(totals), None)
    if first in columns and default != types[columns[first][1]]:
        errors.append("default sample type %s, expected %s" % (default, types[columns[first][1]]))
    # the period: the first event's, when its samples printed one
    periods = [s.period for s in samples if s.event == first and s.period is not None]
    if first in columns and periods:
        count, weight = totals[first]
        want_period = periods[0] if len(set(periods)) == 1 and len(periods) == count else \
            (2 * weight + count) // (2 * count)
        want_type = (types[columns[first][1]], units[columns[first][1]])
        if period_seen != (want_type, want_period):
            errors.append("period %s, expected %s" % (period_seen, (want_type, want_period)))
    elif period_seen not in ((None, None), (("", ""), 0)):  # pprof prints blanks for none
        errors.append("period %s, expected none (no period printed)" % (period_seen,))
    sums = [0] * len(types)
    for s in got_samples:
        if len(s["values"]) != len(types):
            errors.append("a sample has %d values for %d types" % (len(s["values"]), len(types)))
            continue
        for i, v in enumerate(s["values"]):
            sums[i] += v
    recorded = {}
    if totals_path != "-":
        with open(totals_path) as handle:
            for line in handle:
                words = line.split()
                if words and not words[0].startswith("#") and words[0] == name:
                    recorded[None if words[1] == "-" else words[1]] = (int(words[2]),
                                                                      int(words[3]))
    for event, (count, period) in totals.items():
        if totals_path != "-" and recorded.get(event) != (count, period):
            errors.append("totals.txt says %s for %s, the oracle %s" % (
                recorded.get(event), event, (count, period)))
        if event not in columns:
            continue
        got = (sums[columns[event][0]], sums[columns[event][1]])
        shown = tuple(framed.get(event, (0, 0)))
        status = "ok" if got == shown else "WRONG"
        print("    %-24s %6d samples %12d period   pprof -raw: %6d %12d  %s" % (
            event or "(no event)", count, period, got[0], got[1], status))
        if got != shown:
            errors.append("%s: pprof -raw totals %s, expected %s" % (event, got, shown))

    # labels and stacks
    label_names = {"comm": any(s.comm is not None for s in samples),
                   "pid": any(s.pid is not None for s in samples),
                   "tid": any(s.tid is not None for s in samples),
                   "cpu": any(s.cpu is not None for s in samples)}
    present = set()
    for s in got_samples:
        present.update(s["labels"])
    for label, printed in label_names.items():
        if lone and label in ("pid", "tid"):
            continue
        if printed and label not in present:
            errors.append("label %s is printed in the text but absent in pprof" % label)
        if not printed and label in present:
            errors.append("label %s is in pprof but not in the text" % label)
    extra = present - set(label_names)
    if extra:
        notes.append("other labels: %s" % sorted(extra))
    want_labels, got_labels, want_stacks, got_stacks = {}, {}, {}, {}
    for s in samples:
        if s.event not in columns or not s.frames:
            continue
        i, j = columns[s.event]
        key = oracle_key(s, lone)
        names = oracle_locations(s.frames)
        for table, k in ((want_labels, key), (want_stacks, (key, names))):
            entry = table.setdefault(k, [0] * len(types))
            entry[i] += 1
            entry[j] += s.weight()
    for s in got_samples:
        key = pprof_key(s["labels"], lone)
        names = tuple(tuple(None if n == "[unknown]" else n for n in locations.get(l) or [None])
                      for l in s["locations"])
        for table, k in ((got_labels, key), (got_stacks, (key, names))):
            entry = table.setdefault(k, [0] * len(types))
            for i, v in enumerate(s["values"][:len(types)]):
                entry[i] += v
    label_errors = [k for k in set(want_labels) | set(got_labels)
                    if want_labels.get(k) != got_labels.get(k)]
    for k in sorted(label_errors, key=show)[:8]:
        errors.append("labels %s: pprof %s, expected %s" % (show(k), got_labels.get(k),
                                                           want_labels.get(k)))
    stack_errors = [k for k in set(want_stacks) | set(got_stacks)
                    if want_stacks.get(k) != got_stacks.get(k)]
    for k in sorted(stack_errors, key=lambda k: (show(k[0]), show_stack(k[1])))[:6]:
        errors.append("stack %s %s: pprof %s, expected %s" % (
            show(k[0]), show_stack(k[1]), got_stacks.get(k), want_stacks.get(k)))
    print("    %d label sets, %d (labels, stack) pairs: %d and %d differ" % (
        len(want_labels), len(want_stacks), len(label_errors), len(stack_errors)))

    # mappings
    pairs = set()
    for s in samples:
        space = s.pid if s.pid is not None else s.number
        for _, _, dso in s.frames:
            if dso not in NO_DSO:
                pairs.add((space, dso))
    # pprof's driver adds a nameless mapping 0/0/0 to a profile that has
    # none (internal/driver/fetch.go), for symbolization
    fake = [i for i, m in mappings.items()
            if (m["file"], m["start"], m["limit"], m["offset"]) == ("", 0, 0, 0)]
    if fake and len(mappings) == 1:
        notes.append("no mapping: pprof shows its own nameless one")
        for i in fake:
            del mappings[i]
    files = sorted(m["file"] for m in mappings.values())
    want_files = sorted(dso for _, dso in pairs)
    print("    %d mappings, %d distinct (pid, dso) pairs" % (len(mappings), len(pairs)))
    if files != want_files:
        errors.append("mappings %s, expected one per (pid, dso): %s" % (files, want_files))
    by_file = {}
    for m in mappings.values():
        by_file.setdefault(m["file"], []).append(m)
    checked = build_ids = 0
    for record in mmaps:
        key = (int(record["pid"]), record["path"])
        if key not in pairs or len(by_file.get(record["path"], [])) != 1:
            continue
        m = by_file[record["path"]][0]
        start, length = int(record["start"], 16), int(record["len"], 16)
        pgoff = int(record["pgoff"], 16) if record["pgoff"] != "0" else 0
        checked += 1
        if (m["start"], m["limit"], m["offset"]) != (start, start + length, pgoff):
            errors.append("mapping %s: 0x%x/0x%x/0x%x, its MMAP2 record (line %d) says "
                          "0x%x/0x%x/0x%x" % (record["path"], m["start"], m["limit"],
                                               m["offset"], record["line"], start,
                                               start + length, pgoff))
        if m["build_id"] != (record["build_id"] or "").lower():
            errors.append("mapping %s: build id '%s', its MMAP2 record (line %d) says '%s'"
                          % (record["path"], m["build_id"], record["line"],
                             record["build_id"] or ""))
        build_ids += 1 if record["build_id"] else 0
    if mmaps:
        print("    %d mapping ranges (%d with a build id) checked against MMAP records"
              % (checked, build_ids))

    with open(expect_path, "w") as handle:
        for event, (i, j) in columns.items():
            count, period = totals[event]
            fcount, fperiod = framed.get(event, (0, 0))
            handle.write("%d %d %d\n%d %d %d\n" % (i, count, fcount, j, period, fperiod))
    for note in notes:
        print("    note: " + note)
    for error in errors[:30]:
        print("    " + error)
    return 1 if errors else 0


def comms(capture):
    samples, _ = perf_fold.parse(capture)
    for comm in sorted({s.comm for s in samples if s.comm is not None and s.frames}):
        print(comm)


def traces(path):
    """Sum of the values of pprof -traces, and its comm labels."""
    total, found = 0, set()
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        previous = ""
        for line in handle:
            line = line.rstrip("\n")
            match = re.match(r"^ *(-?\d+(?:\.\d+)?)(?:ns)?   \S", line)
            if match and (previous.startswith("-----------+") or
                          re.match(r"^ *\w+:  ", previous)):
                total += int(match.group(1))
            label = re.match(r"^ *comm:  (.*)$", line)
            if label:
                found.add(label.group(1))
            previous = line
    print(total)
    for comm in sorted(found):
        print("comm " + comm)


command = sys.argv[1]
if command == "raw":
    sys.exit(check(sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]))
elif command == "comms":
    comms(sys.argv[3])
elif command == "traces":
    traces(sys.argv[3])
EOF

pycheck() { # command arguments...
	command=$1
	shift
	python3 "$TMPDIR/check.py" "$command" "$oracle_dir" "$@"
}

check_pprof() { # capture totals.txt|-
	capture=$1 totals=$2
	name=${capture##*/}
	out=$TMPDIR/${name%.perf.txt}.pb.gz
	bad=
	echo "$name:"
	if ! "$PROFCONV" convert -q -o "$out" "$capture" 2>"$TMPDIR/err" </dev/null; then
		fail "$name: profconv convert to pprof failed: $(head -3 "$TMPDIR/err")"
		return
	fi
	: >"$TMPDIR/expect"
	if ! "$PPROF" -raw -symbolize=none "$out" >"$TMPDIR/raw.txt" 2>"$TMPDIR/pprof.err"; then
		echo "    pprof -raw failed:"; sed 's/^/    /' "$TMPDIR/pprof.err"; bad=1
	elif ! pycheck raw "$capture" "$TMPDIR/raw.txt" "$totals" "$TMPDIR/expect"; then
		bad=1
	fi
	pycheck comms "$capture" >"$TMPDIR/comms" || bad=1
	while read -r index total framed; do
		if ! "$PPROF" -top -symbolize=none -unit=ns -sample_index="$index" "$out" >"$TMPDIR/top.txt" \
			2>"$TMPDIR/pprof.err" </dev/null; then
			echo "    pprof -top -sample_index=$index failed:"; sed 's/^/    /' "$TMPDIR/pprof.err"
			bad=1
			continue
		fi
		shown=$(sed -n 's/^Showing nodes accounting for .* of \([0-9]*\)\(ns\)\{0,1\} total.*/\1/p' "$TMPDIR/top.txt")
		[ "$shown" = "$total" ] ||
			{ echo "    pprof -top column $index: total '$shown', expected $total"; bad=1; }
		if ! "$PPROF" -traces -symbolize=none -unit=ns -sample_index="$index" "$out" >"$TMPDIR/traces.txt" \
			2>"$TMPDIR/pprof.err" </dev/null; then
			echo "    pprof -traces -sample_index=$index failed:"; sed 's/^/    /' "$TMPDIR/pprof.err"
			bad=1
			continue
		fi
		pycheck traces "$TMPDIR/traces.txt" >"$TMPDIR/traces.sum"
		shown=$(head -1 "$TMPDIR/traces.sum")
		[ "$shown" = "$framed" ] ||
			{ echo "    pprof -traces column $index: total '$shown', expected $framed"; bad=1; }
		sed -n 's/^comm //p' "$TMPDIR/traces.sum" >"$TMPDIR/traces.comms"
		cmp -s "$TMPDIR/traces.comms" "$TMPDIR/comms" ||
			{ echo "    pprof -traces column $index: comm labels $(tr '\n' '|' <"$TMPDIR/traces.comms"), expected $(tr '\n' '|' <"$TMPDIR/comms")"; bad=1; }
	done <"$TMPDIR/expect"
	echo "    pprof -top and -traces totals checked for $(wc -l <"$TMPDIR/expect") columns"
	checked=$((checked + 1))
	[ -z "$bad" ] || fail "$name: pprof"
}

for capture in "$captures"/*.perf.txt; do
	[ -f "$capture" ] || continue
	check_pprof "$capture" "$captures/totals.txt"
done

# --- 3. a generated file -------------------------------------------------------
# perfgen's text (tools/perfgen.c, the benchmark's generator: many processes
# and threads, comms with blanks, digits, '/' and brackets, JIT, kernel and
# [unknown] frames, C++ and JS names, two events, a zero-frame sample) must
# convert like the oracle says too.
perfgen=${BUILD:-build}/tools/perfgen
if [ -x "$perfgen" ]; then
	generated=$TMPDIR/generated.perf.txt
	"$perfgen" --random 7 --bytes 3000000 "$generated" || fail "perfgen failed"
	if [ -n "$has_folded" ]; then
		for options in "" --pid --tid --kernel --jit --addrs "--event page-faults"; do
			fold_check "$generated" "$options"
		done
	fi
	check_pprof "$generated" -
else
	echo "note: $perfgen is not built; the generated file is not checked"
fi

[ "$checked" -gt 0 ] || skip "nothing checked"
echo "$failed failure(s)"
[ "$failed" -eq 0 ]
