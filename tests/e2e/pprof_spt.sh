#!/bin/sh
# SPT -> pprof, checked with the real pprof and with protoc and Debian's own
# copy of profile.proto (independent of ours).
#
# For every $SAMPLES/X.spt with an X.sptspec beside it, the expected counts
# are computed from the spec text alone (not from our reader): per column
# and per stack of (program name, build id, RVA) frames, leaf first. IP
# records give one-frame stacks, each LBR pair FROM->TO the stack [TO, FROM]
# in lbr_branch, each callstack record its whole stack in callstack; every
# record counts 1 + the repeat before it. Then X.spt is converted and
#   - the file starts with the gzip magic 1f 8b;
#   - `pprof -raw -symbolize=none` gives exactly those sums (as exact
#     integers: counts reach 2^62); program i's mapping (id i + 1) is the
#     PE recipe of research/pe-symbolization.md section 1: its name with
#     '\' as '/' (and "C:" as "/C:"), no build id, memory_start
#     (i + 1) << 40, file_offset 0, memory_limit = start + its highest
#     RVA + 1, and its locations at start + RVA (an RVA below 0x1000 on
#     a location without a mapping);
#   - `protoc --decode` with Debian's schema succeeds, string_table[0] is ""
#     and default_sample_type names one of the sample types;
#   - `pprof -top` and `pprof -traces` run.
# Specs with `raw` lines, `header` keys other than the signature, forced
# segment lengths, records outside a segment or unknown directives describe
# malformed files and are skipped (with a note).
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u

proto_dir=/usr/share/gocode/src/github.com/google/pprof/proto

skip() {
	echo "SKIPPED: $*"
	exit 77
}

[ -x "${PROFCONV:-}" ] || skip "profconv is not built (${PROFCONV:-PROFCONV unset})"
[ -x "${PPROF:-}" ] || skip "pprof is not built (${PPROF:-PPROF unset}); run: make build/tools/pprof"
command -v protoc >/dev/null 2>&1 || skip "protoc is missing (apt-get install protobuf-compiler)"
[ -f "$proto_dir/profile.proto" ] ||
	skip "$proto_dir/profile.proto is missing (apt-get install golang-github-google-pprof-dev)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
command -v gzip >/dev/null 2>&1 || skip "gzip is missing"

# pprof must find no binaries and write nothing outside the scratch directory.
export HOME="$TMPDIR" PPROF_BINARY_PATH="$TMPDIR/no-binaries" PPROF_TMPDIR="$TMPDIR"

cat >"$TMPDIR/check.py" <<'EOF'
"""Expected counts from an .sptspec; checks pprof -raw and protoc output."""
import re
import sys

COLUMNS = {
    "unhalt_cycle": "unhalted_cycle",
    "retire_instr": "retired_instr",
    "retire_br_instr": "retired_branch",
    "l1_icache_miss": "l1i_miss",
    "l1_dcache_miss": "l1d_miss",
    "etw_instr": "timer",
}
INT64_MAX = (1 << 63) - 1
GUID = re.compile(r"^\{([0-9A-Fa-f]{8})-([0-9A-Fa-f]{4})-([0-9A-Fa-f]{4})-"
                  r"([0-9A-Fa-f]{4})-([0-9A-Fa-f]{12})\}$")


class Malformed(Exception):
    pass


def number(text):
    try:
        return int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    except ValueError:
        raise Malformed("not a number: %r" % text)


FIRST_SECTION = 0x1000


def pe_path(program):
    """A program's path as the mapping's file: '\\' as '/', "C:" as "/C:"."""
    path = program.replace("\\", "/")
    return "/" + path if re.match(r"^[A-Za-z]:", path) else path


def frame(program, rva):
    """(mapping file, RVA) as pprof shows an SPT frame: no file below 0x1000."""
    return (pe_path(program) if rva >= FIRST_SECTION else "", rva)


def parse_spec(path):
    """Returns (sums, used): sums[(column, stack)] = count, where a stack is
    a tuple of frame()s, leaf first; used[program index] = (mapping file,
    highest RVA of 0x1000 or more) for programs with such records."""
    programs = []
    sums = {}
    used = {}
    current = None
    repeat = None
    with open(path, encoding="utf-8") as spec:
        for number_, line in enumerate(spec, 1):
            line = line.rstrip("\r\n")
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            kind = words[0]
            where = "%s:%d" % (path, number_)
            if kind == "program":
                parts = line.split(None, 3)
                if len(parts) < 4 or not GUID.match(parts[1]):
                    raise Malformed("%s: bad program line" % where)
                number(parts[2])
                programs.append(parts[3])
            elif kind == "layout":
                pass
            elif kind == "raw":
                raise Malformed("%s: raw bytes in the event stream" % where)
            elif kind == "header":
                for item in words[1:]:
                    if item not in ("signature=le", "signature=text"):
                        raise Malformed("%s: header %s" % (where, item))
            elif kind == "segment":
                if len(words) != 2:
                    raise Malformed("%s: segment with a forced length" % where)
                current = number(words[1])
                if current >= len(programs):
                    raise Malformed("%s: program id %d out of range" % (where, current))
                repeat = None
            elif kind == "repeat":
                if repeat is not None:
                    raise Malformed("%s: a repeat after a repeat" % where)
                repeat = number(words[1])
            elif kind in ("ip", "lbr", "callstack"):
                if current is None:
                    raise Malformed("%s: a record outside any segment" % where)
                count = 1 + (repeat or 0)
                repeat = None
                program = programs[current]
                stacks = []
                if kind == "ip":
                    if len(words) < 3 or words[1] not in COLUMNS:
                        raise Malformed("%s: bad ip record" % where)
                    column = COLUMNS[words[1]]
                    stacks = [(number(rva),) for rva in words[2:]]
                elif kind == "lbr":
                    column = "lbr_branch"
                    for pair in words[1:]:
                        source, _, target = pair.partition("->")
                        stacks.append((number(target), number(source)))
                else:
                    column = "callstack"
                    stacks = [tuple(number(rva) for rva in words[1:])]
                for rvas in stacks:
                    key = (column, tuple(frame(program, rva) for rva in rvas))
                    sums[key] = sums.get(key, 0) + count
                    if sums[key] > INT64_MAX:
                        raise Malformed("%s: a sum passes 2^63-1" % where)
                    for rva in rvas:
                        if rva >= FIRST_SECTION:
                            used[current] = frame(program, max(used.get(current, ("", 0))[1], rva))
            else:
                raise Malformed("%s: directive %r" % (where, kind))
    return sums, used


def parse_raw(path):
    """pprof -raw: sample types, samples, locations and mappings."""
    with open(path, encoding="utf-8", errors="replace") as raw:
        lines = raw.read().split("\n")
    section = None
    types, samples, locations, mappings = [], [], {}, {}
    sample_re = re.compile(r"^\s*(-?\d+(?:\s+-?\d+)*):\s*([\d ]*)$")
    location_re = re.compile(r"^\s*(\d+): (0x[0-9a-f]+) (?:M=(\d+) )?")
    mapping_re = re.compile(r"^(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) "
                            r"(.*) (\S*) ((?:\[[A-Z]{2}\])*)$")
    for i, line in enumerate(lines):
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            if line == "Samples:":
                types = [t.split("/")[0] for t in lines[i + 1].split()]
                default = [t.split("/")[0] for t in lines[i + 1].split() if "[dflt]" in t]
            continue
        if section == "Samples:" and sample_re.match(line):
            match = sample_re.match(line)
            samples.append(([int(v) for v in match.group(1).split()],
                            [int(v) for v in match.group(2).split()]))
        elif section == "Locations" and location_re.match(line):
            match = location_re.match(line)
            locations[int(match.group(1))] = (int(match.group(3) or 0),
                                              int(match.group(2), 16))
        elif section == "Mappings" and line:
            match = mapping_re.match(line)
            if not match:
                raise AssertionError("unparsed mapping line %r" % line)
            mappings[int(match.group(1))] = {
                "start": int(match.group(2), 16), "limit": int(match.group(3), 16),
                "offset": int(match.group(4), 16), "file": match.group(5),
                "build_id": match.group(6),
            }
    return types, default, samples, locations, mappings


def check_raw(spec_path, raw_path):
    expected, used = parse_spec(spec_path)
    types, default, samples, locations, mappings = parse_raw(raw_path)
    errors = []
    got = {}
    for values, ids in samples:
        if len(values) != len(types):
            errors.append("a sample has %d values for %d types" % (len(values), len(types)))
            continue
        stack = []
        for location_id in ids:
            mapping_id, address = locations[location_id]
            if not mapping_id:
                stack.append(("", address))
                continue
            mapping = mappings.get(mapping_id, {"file": "?", "start": 0})
            stack.append((mapping["file"], address - mapping["start"]))
        for column, value in zip(types, values):
            if value:
                key = (column, tuple(stack))
                got[key] = got.get(key, 0) + value
    for key in sorted(set(expected) | set(got)):
        if expected.get(key, 0) != got.get(key, 0):
            errors.append("%s %s: expected %d, pprof shows %d" % (
                key[0], ["%s+0x%x" % f for f in key[1]],
                expected.get(key, 0), got.get(key, 0)))
    for index, (name, highest) in sorted(used.items()):
        mapping = mappings.get(index + 1)
        start = (index + 1) << 40
        if not mapping or mapping["file"] != name or mapping["build_id"]:
            errors.append("mapping %d: %s, expected %s without a build id" % (
                index + 1, mapping and (mapping["file"], mapping["build_id"]), name))
            continue
        if (mapping["start"], mapping["limit"], mapping["offset"]) != (start, start + highest + 1, 0):
            errors.append("mapping %s: 0x%x/0x%x/0x%x, expected 0x%x/0x%x/0x0" % (
                name, mapping["start"], mapping["limit"], mapping["offset"],
                start, start + highest + 1))
    if len(default) != 1:
        errors.append("pprof marks %d default sample types" % len(default))
    for error in errors[:40]:
        print("    " + error)
    print("    %d stacks/columns expected, %d found, %d programs checked" % (
        len(expected), len(got), len(used)))
    return 1 if errors else 0


def protoc_string(text):
    """Decodes protoc's C-style escapes of a string_table entry."""
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape") \
        .encode("latin-1").decode("utf-8")


def check_protoc(path):
    strings, types, default = [], [], None
    with open(path, encoding="utf-8") as decoded:
        depth, block = 0, None
        for line in decoded:
            line = line.strip()
            if line.endswith("{"):
                depth += 1
                block = line[:-1].strip() if depth == 1 else block
            elif line == "}":
                depth -= 1
            elif depth == 0 and line.startswith("string_table: "):
                strings.append(protoc_string(line[len("string_table: ") + 1:-1]))
            elif depth == 0 and line.startswith("default_sample_type: "):
                default = int(line.split()[1])
            elif depth == 1 and block == "sample_type" and line.startswith("type: "):
                types.append(int(line.split()[1]))
    errors = []
    if not strings or strings[0] != "":
        errors.append("string_table[0] is not \"\"")
    if default is None or default >= len(strings):
        errors.append("default_sample_type is missing or out of range")
    elif default not in types:
        errors.append("default_sample_type %r is not a sample type" % strings[default])
    names = [strings[t] for t in types if t < len(strings)]
    if len(set(names)) != len(names):
        errors.append("sample type names repeat: %s" % names)
    for error in errors:
        print("    " + error)
    if not errors:
        print("    protoc: %d strings, sample types %s, default %s" % (
            len(strings), names, strings[default]))
    return 1 if errors else 0


def main():
    try:
        if sys.argv[1] == "spec":
            parse_spec(sys.argv[2])
            return 0
        if sys.argv[1] == "raw":
            return check_raw(sys.argv[2], sys.argv[3])
        return check_protoc(sys.argv[2])
    except Malformed as why:
        print("    %s" % why)
        return 3


sys.exit(main())
EOF

checked=0 failed=0
for spt in "$SAMPLES"/*.spt; do
	[ -f "$spt" ] || continue
	name=${spt##*/}
	spec=${spt%.spt}.sptspec
	if [ ! -f "$spec" ]; then
		echo "note: $name has no .sptspec; not checked"
		continue
	fi
	python3 "$TMPDIR/check.py" spec "$spec" >"$TMPDIR/spec.out"
	case $? in
	0) ;;
	3) echo "note: ${spec##*/} describes a malformed file; not checked:"
	   cat "$TMPDIR/spec.out"
	   continue ;;
	*) echo "FAIL: $name: cannot read ${spec##*/}"; cat "$TMPDIR/spec.out"
	   failed=$((failed + 1)); continue ;;
	esac
	checked=$((checked + 1))
	out=$TMPDIR/${name%.spt}.pb.gz
	bad=
	if ! "$PROFCONV" convert -o "$out" "$spt" 2>"$TMPDIR/convert.err"; then
		echo "FAIL: $name: profconv convert failed:"; cat "$TMPDIR/convert.err"
		failed=$((failed + 1)); continue
	fi
	magic=$(od -An -tx1 -N2 "$out" | tr -d ' \n')
	[ "$magic" = 1f8b ] || { echo "    not gzip: starts with $magic"; bad=1; }
	if ! "$PPROF" -raw -symbolize=none "$out" >"$TMPDIR/raw.txt" 2>"$TMPDIR/pprof.err"; then
		echo "    pprof -raw failed:"; cat "$TMPDIR/pprof.err"; bad=1
	elif ! python3 "$TMPDIR/check.py" raw "$spec" "$TMPDIR/raw.txt"; then
		bad=1
	fi
	if ! gzip -dc "$out" | protoc -I"$proto_dir" --decode=perftools.profiles.Profile \
		profile.proto >"$TMPDIR/decoded.txt" 2>"$TMPDIR/protoc.err"; then
		echo "    protoc --decode failed:"; cat "$TMPDIR/protoc.err"; bad=1
	elif ! python3 "$TMPDIR/check.py" protoc "$TMPDIR/decoded.txt"; then
		bad=1
	fi
	for view in -top -traces; do
		"$PPROF" "$view" -symbolize=none "$out" >"$TMPDIR/view.txt" 2>"$TMPDIR/pprof.err" ||
			{ echo "    pprof $view failed:"; cat "$TMPDIR/pprof.err"; bad=1; }
	done
	if [ -n "$bad" ]; then
		echo "FAIL: $name"
		failed=$((failed + 1))
	else
		echo "ok: $name"
	fi
done

[ "$checked" -gt 0 ] || skip "no well-formed $SAMPLES/*.spt with a .sptspec to check"
[ "$failed" -eq 0 ]
