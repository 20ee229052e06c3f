#!/bin/sh
# perf script -> pprof metadata that tells the truth (issue 15, part 3),
# checked with `protoc --decode` (proto/profile.proto) and the real pprof.
#
# 1. The committed capture samples/perf/buildid.perf.txt (one cpu-clock
#    event, recorded with --buildid-mmap, printed with --show-mmap-events
#    and no symbols; samples/perf/record.sh makes it) converts without a
#    warning to a profile whose
#    - sample types are exactly samples/count and cpu/nanoseconds, and
#      default_sample_type is cpu;
#    - period_type is cpu/nanoseconds and period the period printed on
#      every cpu-clock sample (or their rounded mean when they differ),
#      computed here from the text;
#    - mapping 1 is the workload binary, with the build id that its MMAP2
#      record prints, its range that record's, and every location at an
#      address of that range on mapping 1;
#    and `pprof -top` names that binary and build id as the profile's.
# 2. When perf can record here, the same with a fresh recording of
#    samples/perf/workload.c: mapping 1's build id is the one `readelf -n`
#    reads from the binary; the real pprof re-symbolizes the binary through
#    that mapping, its flat values per function of the binary being exactly
#    the periods perf script sums per symbol of the same recording; and a
#    binary rebuilt at the same path with another build id is refused
#    (pprof then names none of its functions).
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u

skip() {
	echo "SKIPPED: $*"
	exit 77
}

top=$(cd "$(dirname "$0")/../.." && pwd)
capture=${SAMPLES:-}/perf/buildid.perf.txt
[ -x "${PROFCONV:-}" ] || skip "profconv is not built (${PROFCONV:-PROFCONV unset})"
[ -x "${PPROF:-}" ] || skip "pprof is not built (${PPROF:-PPROF unset}); run: make build/tools/pprof"
command -v protoc >/dev/null 2>&1 || skip "protoc is missing (apt-get install protobuf-compiler)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
[ -f "$capture" ] || skip "$capture is missing (sh samples/perf/record.sh --buildid)"

# pprof must write nothing outside the scratch directory.
export HOME="$TMPDIR" PPROF_BINARY_PATH="$TMPDIR/no-binaries" PPROF_TMPDIR="$TMPDIR"
failed=0

fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

cat >"$TMPDIR/check.py" <<'EOF'
"""Checks protoc's text of a converted perf cpu-clock capture."""
import re
import sys


def parse_text(text):
    """protoc's text format as nested dicts of lists."""
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|[{}]|[\w]+:?|-?\d+', text)
    stack = [{}]
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "}":
            stack.pop()
            i += 1
        elif token.endswith(":"):
            value = tokens[i + 1]
            if value.startswith('"'):
                value = bytes(value[1:-1], "utf-8").decode("unicode_escape")
            elif value in ("true", "false"):
                value = value == "true"
            else:
                value = int(value)
            stack[-1].setdefault(token[:-1], []).append(value)
            i += 2
        else:  # NAME {
            child = {}
            stack[-1].setdefault(token, []).append(child)
            stack.append(child)
            i += 2
    return stack[0]


def one(message, field, default=0):
    return message.get(field, [default])[0]


def expected_period(capture):
    periods = [int(m.group(1)) for m in
               (re.search(r":\s+(\d+) cpu-clock:", line) for line in open(capture))
               if m]
    if len(set(periods)) == 1:
        return periods[0], len(periods)
    return (2 * sum(periods) + len(periods)) // (2 * len(periods)), len(periods)


def main():
    decoded, capture, program, build_id, start, limit = sys.argv[1:7]
    start, limit = int(start, 16), int(limit, 16)
    p = parse_text(open(decoded).read())
    strings = p["string_table"]
    errors = []

    def string(i):
        return strings[i] if 0 <= i < len(strings) else "<bad index %d>" % i

    types = [(string(one(t, "type")), string(one(t, "unit"))) for t in p["sample_type"]]
    if types != [("samples", "count"), ("cpu", "nanoseconds")]:
        errors.append("sample types %s" % types)
    if string(one(p, "default_sample_type")) != "cpu":
        errors.append("default_sample_type %s" % string(one(p, "default_sample_type")))
    period_type = p.get("period_type", [{}])[0]
    got_type = (string(one(period_type, "type")), string(one(period_type, "unit")))
    if got_type != ("cpu", "nanoseconds"):
        errors.append("period_type %s/%s" % got_type)
    want_period, nsamples = expected_period(capture)
    if one(p, "period") != want_period:
        errors.append("period %d, expected %d" % (one(p, "period"), want_period))
    mappings = {one(m, "id"): m for m in p["mapping"]}
    first = mappings.get(1, {})
    if string(one(first, "filename")) != program:
        errors.append("mapping 1 is %s, expected %s" % (string(one(first, "filename")), program))
    if string(one(first, "build_id")) != build_id:
        errors.append("mapping 1 build id %s, expected %s" % (string(one(first, "build_id")),
                                                              build_id))
    if (one(first, "memory_start"), one(first, "memory_limit")) != (start, limit):
        errors.append("mapping 1 range 0x%x-0x%x, expected 0x%x-0x%x" % (
            one(first, "memory_start"), one(first, "memory_limit"), start, limit))
    if [one(m, "id") for m in p["mapping"]] != list(range(1, len(p["mapping"]) + 1)):
        errors.append("mapping ids %s" % [one(m, "id") for m in p["mapping"]])
    in_program = 0
    for location in p.get("location", []):
        address, mapping = one(location, "address"), one(location, "mapping_id")
        if mapping and mapping not in mappings:
            errors.append("location %d: mapping %d does not exist" % (one(location, "id"), mapping))
        if start <= address < limit:
            in_program += 1
            if mapping != 1:
                errors.append("location 0x%x of the program is on mapping %d" % (address, mapping))
    if not in_program:
        errors.append("no location in the program's range")
    print("    %d samples, period %d, mapping 1 %s %s, %d of its locations" % (
        nsamples, want_period, program, build_id, in_program))
    for error in errors:
        print("    " + error)
    return 1 if errors else 0


sys.exit(main())
EOF

# The MMAP2 record of the binary named */workload in perf's text: PATH BUILD_ID START LIMIT.
program_record() { # capture
	sed -n 's|.*PERF_RECORD_MMAP2 [0-9]*/[0-9]*: \[\(0x[0-9a-f]*\)(\(0x[0-9a-f]*\)) @ [0-9a-fx]* <\([0-9a-f]*\)>\]: r-xp \(/.*/workload\)$|\4 \3 \1 \2|p' "$1" |
		head -1 | while read -r path build_id start len; do
			echo "$path $build_id $start $(printf '0x%x' $((start + len)))"
		done
}

# convert_check NAME CAPTURE PATH BUILD_ID START LIMIT: convert and check protoc's view.
convert_check() {
	name=$1 capture=$2
	shift 2
	out=$TMPDIR/$name.pb.gz
	if ! "$PROFCONV" convert -o "$out" "$capture" 2>"$TMPDIR/err" </dev/null; then
		fail "$name: conversion failed: $(head -3 "$TMPDIR/err")"
		return 1
	fi
	[ ! -s "$TMPDIR/err" ] || fail "$name: the conversion warned: $(head -3 "$TMPDIR/err")"
	if ! gzip -dc "$out" | protoc --decode=perftools.profiles.Profile -I "$top/proto" \
		"$top/proto/profile.proto" >"$TMPDIR/$name.txt" 2>"$TMPDIR/err"; then
		fail "$name: protoc cannot decode the profile: $(head -3 "$TMPDIR/err")"
		return 1
	fi
	echo "$name:"
	python3 "$TMPDIR/check.py" "$TMPDIR/$name.txt" "$capture" "$@" || fail "$name: protoc's view"
	"$PPROF" -top -symbolize=none "$out" >"$TMPDIR/top.txt" 2>/dev/null ||
		{ fail "$name: pprof -top failed"; return 1; }
	grep -qx "File: ${1##*/}" "$TMPDIR/top.txt" ||
		fail "$name: pprof -top shows $(grep '^File:' "$TMPDIR/top.txt"), expected File: ${1##*/}"
	grep -qx "Build ID: $2" "$TMPDIR/top.txt" ||
		fail "$name: pprof -top shows $(grep '^Build ID:' "$TMPDIR/top.txt"), expected Build ID: $2"
}

# --- 1. the committed capture ---------------------------------------------------
# shellcheck disable=SC2046 # four words
set -- $(program_record "$capture")
[ $# -eq 4 ] || { echo "FAIL: $capture has no MMAP2 record with a build id for */workload"; exit 1; }
convert_check committed "$capture" "$@"

# --- 2. a fresh recording, when perf can record here ---------------------------
live=$TMPDIR/live
mkdir -p "$live"
if ! command -v perf >/dev/null 2>&1 || ! command -v readelf >/dev/null 2>&1 ||
	! command -v "${CC:-gcc}" >/dev/null 2>&1; then
	echo "note: perf, readelf or ${CC:-gcc} is missing: no fresh recording"
elif ! "${CC:-gcc}" -O1 -g -fno-omit-frame-pointer -pthread -o "$live/workload" \
	"$SAMPLES/perf/workload.c" 2>"$TMPDIR/err"; then
	fail "cannot build the workload: $(head -3 "$TMPDIR/err")"
elif ! perf record -q -e cpu-clock -F 999 --buildid-mmap -o "$live/perf.data" -- \
	"$live/workload" 100 >"$live/out" 2>"$TMPDIR/err"; then
	echo "note: perf cannot record here (perf_event_paranoid, --buildid-mmap needs kernel 5.12+): $(head -1 "$TMPDIR/err")"
else
	perf script -i "$live/perf.data" -F comm,pid,tid,time,event,ip,dso,period \
		--show-mmap-events >"$live/perf.txt" 2>/dev/null
	# the symbols perf itself gives, for the oracle of pprof's re-symbolization
	perf script -i "$live/perf.data" -F period,ip,sym,dso >"$live/syms.txt" 2>/dev/null
	build_id=$(readelf -n "$live/workload" | sed -n 's/^ *Build ID: *//p')
	# shellcheck disable=SC2046
	set -- $(program_record "$live/perf.txt")
	if [ $# -ne 4 ] || [ "$1" != "$live/workload" ]; then
		fail "fresh: perf printed no MMAP2 record with a build id for $live/workload"
	else
		[ "$2" = "$build_id" ] ||
			fail "fresh: perf printed build id $2, readelf -n reads $build_id"
		convert_check fresh "$live/perf.txt" "$1" "$build_id" "$3" "$4"
		# pprof re-symbolizes the binary through mapping 1 (found by its
		# path, matched by build id): flat per function = perf's sums per symbol
		python3 - "$live/syms.txt" "$live/workload" >"$live/want.txt" <<'EOF'
import re
import sys
sums = {}
for line in open(sys.argv[1]):
    m = re.match(r"^\s*(\d+)\s+[0-9a-f]+ (\S+)\+0x[0-9a-f]+ \((.*)\)$", line) or \
        re.match(r"^\s*(\d+)\s+[0-9a-f]+ (\S+) \((.*)\)$", line)
    if m and m.group(3) == sys.argv[2] and m.group(2) != "[unknown]":
        sums[m.group(2)] = sums.get(m.group(2), 0) + int(m.group(1))
for name in sorted(sums):
    print(name, sums[name])
EOF
		"$PPROF" -top -unit=ns -nodefraction=0 -nodecount=100000 "$TMPDIR/fresh.pb.gz" \
			>"$live/top.txt" 2>/dev/null
		sed -n 's/^ *\([0-9]*\)ns .*%  \([a-z_]*\)$/\2 \1/p' "$live/top.txt" |
			while read -r name flat; do
				grep -q "^$name " "$live/want.txt" && echo "$name $flat"
			done | sort >"$live/got.txt"
		if [ ! -s "$live/want.txt" ] || ! cmp -s "$live/want.txt" "$live/got.txt"; then
			fail "fresh: pprof's flat values per function of the workload differ from perf's:"
			diff "$live/want.txt" "$live/got.txt" | head -8 | sed 's/^/    /'
		else
			echo "    pprof re-symbolized $(wc -l <"$live/got.txt") functions of the workload, flat values = perf's"
		fi
		# a rebuilt binary with another build id is refused
		"${CC:-gcc}" -O1 -g -fno-omit-frame-pointer -pthread \
			-Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 \
			-o "$live/workload" "$SAMPLES/perf/workload.c"
		"$PPROF" -top -unit=ns -nodefraction=0 -nodecount=100000 "$TMPDIR/fresh.pb.gz" \
			>"$live/refused.txt" 2>"$live/refused.err"
		if grep -q ' spin_leaf$' "$live/refused.txt"; then
			fail "fresh: pprof used a binary of another build id"
		elif ! grep -q 'build ID mismatch' "$live/refused.err"; then
			fail "fresh: pprof did not say why it refused the rebuilt binary: $(head -3 "$live/refused.err")"
		else
			echo "    the rebuilt binary (another build id) is refused"
		fi
	fi
fi
sed -n 's/^perf map //p' "$live/out" 2>/dev/null | xargs rm -f

[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
exit 0
