#!/bin/sh
# tests/e2e/pprof_malformed.sh - hostile pprof profiles give one clear,
# located error and never an output file.
#
# The files are written at test time by the Python script below, which
# encodes protobuf's wire format by hand (no packages) from a small valid
# profile (a sample type, a mapping, a function, a location of one line, a
# sample, a string table), broken one way per class:
#   gzip cut short, with a bad CRC, with garbage after its
#   member, decompressing to nothing; not a Profile (text, raw and
#   gzipped; a field numbered 0; a varint of 11 bytes; a group wire type);
#   a length past the end (a sample's, a packed field's); a known field of
#   the wrong wire type; string indices outside the table (a function's
#   name, a label's value, a comment, a sample type's unit, a negative
#   one); string_table[0] not "" and no string table at all; a location
#   naming a function or a mapping nobody has; a line without a function;
#   a sample naming a location nobody has (dense ids and sparse ones,
#   which take the sorted path); ids 0 (a mapping, a function, a location)
#   and ids used twice (locations, functions, mappings); values not one
#   per sample type (fewer, more) and a sample without any sample type;
#   a negative value (as pprof -diff_base writes); two equal samples whose
#   sum passes 2^63-1; a line number and a start line past 2^32-1; a mapping
#   ending before it starts; two sample types of one name; 65 sample types;
#   two time_nanos (concatenated profiles); a gzip bomb that declares a
#   2 GiB string (stopped before decompressing it, default cap) and one of
#   2 MiB of valid fields over --pprof-max-mib 1 (stopped at the cap); and
#   two classes through standard input.
# For each:
#   - `profconv convert -f pprof -t folded -o OUT FILE` exits 1 and its
#     stderr is exactly one line "profconv: FILE: offset 0x...: pprof: ..."
#     whose offset is the broken byte's (where the script knows it: the
#     field, message or varint at fault; decompressed offsets for gzipped
#     profiles, which the message says) and whose message has the class's
#     words;
#   - the output directory stays empty;
#   - `profconv info -f pprof FILE` exits 1 with the same line.
# And every prefix of the valid profile, raw and gzipped, fails the same
# way (or, for the whole file, converts), and the valid one converts. An
# input of 0 bytes (the prefix of length 0 too) is refused before any
# reader runs, as "profconv: FILE: empty input" (tests/e2e/misuse_inputs.sh
# checks it for every reader): it is not a case here.
#
# Environment (tests/run.sh): PROFCONV, BUILD, TMPDIR. Exit 0 pass, 77 skip.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
tmp=${TMPDIR:-/tmp}
out_dir="$tmp/out"
cases="$tmp/cases"
format=pprof
failures=0
checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) is missing"
"$profconv" formats | grep -q '^pprof  *read' || skip "this profconv has no pprof reader"
mkdir -p "$out_dir" "$cases"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

. "$top/tests/e2e/lib/malformed.sh"

cat >"$tmp/make_cases.py" <<'EOF'
"""Hostile pprof profiles, one per class; prints NAME OFFSET WORDS [ARGS] lines."""
import gzip
import os
import sys
import zlib

out = sys.argv[1]
cases = []


def varint(n):
    n &= (1 << 64) - 1
    b = bytearray()
    while True:
        if n > 0x7f:
            b.append(n & 0x7f | 0x80)
            n >>= 7
        else:
            b.append(n)
            return bytes(b)


def vf(field, value):
    return varint(field << 3) + varint(value)


def lf(field, data):
    return varint(field << 3 | 2) + varint(len(data)) + data


def packed(field, values):
    return lf(field, b"".join(varint(v) for v in values))


STRINGS = ["", "samples", "count", "main", "main.c", "/bin/app", "k", "v"]


def value_type(t=1, u=2):
    return vf(1, t) + vf(2, u)


def mapping(mid=1, start=0x1000, limit=0x2000, filename=5, extra=b""):
    return vf(1, mid) + vf(2, start) + vf(3, limit) + vf(5, filename) + vf(7, 1) + extra


def function(fid=1, name=3, filename=4, extra=b""):
    return vf(1, fid) + vf(2, name) + vf(3, name) + vf(4, filename) + extra


def line(fid=1, number=10):
    return vf(1, fid) + vf(2, number)


def location(lid=1, mid=1, address=0x1100, lines=None):
    lines = [line()] if lines is None else lines
    body = vf(1, lid) + (vf(2, mid) if mid else b"") + vf(3, address)
    return body + b"".join(lf(4, ln) for ln in lines)


def sample(locs=(1,), values=(5,), extra=b""):
    return packed(1, locs) + packed(2, values) + extra


def strings(table=STRINGS):
    return [lf(6, s.encode()) for s in table]


def base(**over):
    """The valid profile's top-level fields, in order, as a list of (name, bytes)."""
    fields = [
        ("type", lf(1, value_type())),
        ("sample", lf(2, sample())),
        ("mapping", lf(3, mapping())),
        ("location", lf(4, location())),
        ("function", lf(5, function())),
    ]
    fields += [("string", s) for s in strings()]
    fields += [("time", vf(9, 1234)), ("period", vf(12, 1))]
    for name, data in over.items():
        fields = [(n, data if n == name else d) for n, d in fields]
    return fields


def join(fields):
    return b"".join(d for _, d in fields)


def offset_of(fields, name, inner=0):
    """The offset of field `name`, plus inner bytes into it."""
    at = 0
    for n, d in fields:
        if n == name:
            return at + inner
        at += len(d)
    raise KeyError(name)


def write(name, data, offset, words, args=""):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    cases.append("%s\t%s\t%s\t%s" % (name, offset, words, args))


def gz(data):
    return gzip.compress(data, mtime=0)


valid = join(base())
with open(os.path.join(out, "valid.pb"), "wb") as f:
    f.write(valid)
with open(os.path.join(out, "valid.pb.gz"), "wb") as f:
    f.write(gz(valid))

# -- the input and the gzip layer --
z = gz(valid)
write("gzip-cut.pb.gz", z[:len(z) - 12], "*", "gzip member 1|cut short")
bad_crc = bytearray(z)
bad_crc[-8] ^= 0xff
write("gzip-crc.pb.gz", bytes(bad_crc), "*", "gzip member 1|corrupt|incorrect data check")
write("gzip-trailing.pb.gz", z + b"garbage!", len(z), "after gzip member 1|not another gzip member")
write("gzip-empty.pb.gz", gz(b""), 0, "decompresses to nothing")

# -- not a Profile --
write("text.pb", b"hello, this is not a profile\n", "*", "Profile")
write("text.pb.gz", gz(b"hello, this is not a profile\n"), "*", "in the decompressed data|Profile")
write("field-zero.pb", b"\x00\x00" + valid, 0, "field numbered 0")
write("varint-long.pb", b"\x38" + b"\xff" * 10 + b"\x01" + valid, 1, "Profile.drop_frames|longer than 10 bytes")
write("group.pb", b"\x0b" + valid, 0, "wire type 3|group")
f = base()
cut = join(f)[:offset_of(f, "location")] + b"\x22\x7f" + vf(1, 1)
write("length-past-end.pb", cut, offset_of(f, "location"), "Profile.location|length of 127 bytes|runs past the end")
f = base(sample=lf(2, b"\x0a\x05\x01"))
write("packed-past-end.pb", join(f), offset_of(f, "sample", 2), "Sample.location_id|runs past the end")
f = base(location=lf(4, vf(1, 1) + lf(3, b"\x01")))
write("wrong-wire.pb", join(f), offset_of(f, "location", 2 + 2), "Location.address|length-delimited|expected a varint")

# -- strings --
f = base(function=lf(5, function(name=99)))
write("string-index.pb", join(f), offset_of(f, "function", 2 + 2), "Function.name|string index 99|outside the string table (8 strings)")
f = base(sample=lf(2, sample(extra=lf(3, vf(1, 6) + vf(2, 40)))))
write("label-string.pb", join(f), offset_of(f, "sample", 2 + 6 + 2 + 2), "Label.str|string index 40")
f = base() + [("comment", vf(13, 8))]
write("comment-string.pb", join(f), offset_of(f, "comment"), "Profile.comment|string index 8")
f = base(type=lf(1, value_type(u=(1 << 64) - 3)))
write("negative-string.pb", join(f), offset_of(f, "type", 2 + 2), "ValueType.unit|string index -3")
f = base()
f = [(n, d) for n, d in f if n != "string"]
write("no-strings.pb", join(f), 0, "no string table")
f = [(n, d) for n, d in base() if n != "string"] + [("string", lf(6, b"x"))]
f += [("string", s) for s in strings()[1:]]
write("string-zero.pb", join(f), offset_of(f, "string"), "string_table[0]")

# -- references --
f = base(location=lf(4, location(lines=[line(fid=7)])))
write("unknown-function.pb", join(f), offset_of(f, "location", 2 + 2 + 2 + 3), "location 1 names function 7|does not have")
f = base(location=lf(4, location(mid=9)))
write("unknown-mapping.pb", join(f), offset_of(f, "location"), "location 1 names mapping 9|does not have")
f = base(location=lf(4, location(lines=[vf(2, 10)])))
write("line-no-function.pb", join(f), offset_of(f, "location", 2 + 2 + 2 + 3), "a line without a function")
f = base(sample=lf(2, sample(locs=(1, 3))))
write("unknown-location.pb", join(f), offset_of(f, "sample", 2 + 2 + 1), "names location 3|does not have")
f = base(sample=lf(2, sample(locs=(1, 1 << 60))),
         location=lf(4, location(lid=1 << 60)) + lf(4, location(lid=1 << 61)))
write("unknown-location-sparse.pb", join(f), offset_of(f, "sample", 2 + 2), "names location 1|does not have")
f = base(mapping=lf(3, mapping(mid=0)), location=lf(4, location(mid=0)))
write("mapping-id-zero.pb", join(f), offset_of(f, "mapping"), "mapping with id 0")
f = base(function=lf(5, function(fid=0)))
write("function-id-zero.pb", join(f), offset_of(f, "function"), "function with id 0")
f = base(location=lf(4, location(lid=0)))
write("location-id-zero.pb", join(f), offset_of(f, "location"), "location with id 0")
f = base(location=lf(4, location()) + lf(4, location(address=0x1200)))
write("duplicate-location.pb", join(f), offset_of(f, "location", len(lf(4, location()))), "a second location with id 1")
f = base(function=lf(5, function()) + lf(5, function(fid=(1 << 62))) + lf(5, function(fid=1 << 62)))
write("duplicate-function-sparse.pb", join(f), offset_of(f, "function", len(lf(5, function())) + len(lf(5, function(fid=1 << 62)))), "a second function with id 4611686018427387904")
f = base(mapping=lf(3, mapping()) + lf(3, mapping(start=0x3000, limit=0x4000)))
write("duplicate-mapping.pb", join(f), offset_of(f, "mapping", len(lf(3, mapping()))), "a second mapping with id 1")

# -- values --
f = base(sample=lf(2, sample(values=())))
write("values-fewer.pb", join(f), offset_of(f, "sample"), "0 values|1 sample types")
f = base(sample=lf(2, sample(values=(1, 2))))
write("values-more.pb", join(f), offset_of(f, "sample"), "more values than|1 sample types")
f = [(n, d) for n, d in base(sample=lf(2, sample(values=()))) if n != "type"]
write("no-sample-types.pb", join(f), offset_of(f, "sample"), "no sample types")
f = base(sample=lf(2, sample(values=((1 << 64) - 5,))))
write("negative-value.pb", join(f), offset_of(f, "sample", 2 + 3 + 2), "is -5|diff_base")
big = (1 << 63) - 1
f = base(sample=lf(2, sample(values=(big,))) + lf(2, sample(values=(big,))))
write("sum-overflow.pb", join(f), offset_of(f, "sample", len(lf(2, sample(values=(big,))))), "passes 2^63-1")
f = base(location=lf(4, location(lines=[line(number=1 << 32)])))
write("line-too-big.pb", join(f), offset_of(f, "location", 2 + 2 + 2 + 3 + 2 + 2), "Line.line is 4294967296")
f = base(function=lf(5, function(extra=vf(5, (1 << 64) - 1))))
write("start-line-negative.pb", join(f), offset_of(f, "function", 2 + 8), "Function.start_line is -1")
f = base(mapping=lf(3, mapping(start=0x3000, limit=0x2000)))
write("mapping-backwards.pb", join(f), offset_of(f, "mapping"), "ends (memory_limit 0x2000) before it starts (memory_start 0x3000)")
f = base(type=lf(1, value_type()) + lf(1, value_type()), sample=lf(2, sample(values=(1, 2))))
write("types-same-name.pb", join(f), offset_of(f, "type", len(lf(1, value_type()))), "two sample types are named 'samples'")
f = base(type=lf(1, value_type()) * 65)
write("types-too-many.pb", join(f), offset_of(f, "type", 64 * len(lf(1, value_type()))), "more than 64 sample types")
f = base() + [("time2", vf(9, 99))]
write("concatenated.pb", join(f), offset_of(f, "time2"), "second Profile.time_nanos|which pprof refuses too")

# -- bombs --
bomb = join(base())[:offset_of(base(), "string")] + varint(6 << 3 | 2) + varint(2 << 30) + bytes(4 << 20)
write("bomb-declared.pb.gz", gz(bomb), offset_of(base(), "string"),
      "in the decompressed data|Profile.string_table says it is 2147483648 bytes long|cap of 1024 MiB")
volume = valid + vf(13, 0) * (1 << 20)
write("bomb-volume.pb.gz", gz(volume), "*", "over the cap of 1 MiB decompressed|--pprof-max-mib",
      "--pprof-max-mib 1")

# -- through standard input --
f = base(sample=lf(2, sample(locs=(1, 3))))
write("stdin-unknown-location.pb", join(f), offset_of(f, "sample", 2 + 2 + 1), "names location 3")
write("stdin-gzip-crc.pb.gz", bytes(bad_crc), "*", "corrupt|incorrect data check")

with open(os.path.join(out, "cases.txt"), "w") as f:
    f.write("\n".join(cases) + "\n")
EOF
python3 "$tmp/make_cases.py" "$cases" || { fail "the case generator failed"; exit 1; }

# expect_error_args WHAT FILE HOW OFFSET WORDS ARGS: expect_error (lib/malformed.sh) with
# options for both commands.
expect_error_args() {
	what=$1 file=$2 how=$3 offset=$4 words=$5 args=$6
	if [ -z "$args" ]; then
		expect_error "$what" "$file" "$how" "$offset" "$words"
		return
	fi
	in_size=$(wc -c <"$file")
	checked=$((checked + 1))
	# shellcheck disable=SC2086
	run_cmd "$how" "$file" "$tmp/convert.err" convert -f "$format" $args -t folded -o "$out_dir/out.folded"
	status=$?
	[ "$status" -eq 1 ] || fail "$what: convert exited $status, expected 1: $(head -3 "$tmp/convert.err")"
	convert_line=$(error_line "$file" "$tmp/convert.err")
	[ -n "$convert_line" ] || fail "$what: convert gave no located error: $(head -3 "$tmp/convert.err")"
	at=$(offset_of "$convert_line")
	[ "$at" -ge 0 ] && [ "$at" -le "$in_size" ] || fail "$what: offset outside the input: $convert_line"
	has_words "$what" "$convert_line" "${convert_line#*: $format: }" "$words"
	out_dir_empty || { fail "$what: convert left files behind"; clean_out_dir; }
	# shellcheck disable=SC2086
	run_cmd "$how" "$file" "$tmp/info.err" info -f "$format" $args
	[ "$(error_line "$file" "$tmp/info.err")" = "$convert_line" ] ||
		fail "$what: info and convert disagree: $(cat "$tmp/info.err")"
}

tab=$(printf '\t')
while IFS="$tab" read -r name offset words args; do
	[ -n "$name" ] || continue
	how=path
	case $name in stdin-*) how=stdin ;; esac
	expect_error_args "$name" "$cases/$name" "$how" "$offset" "$words" "$args"
done <"$cases/cases.txt"

# the valid profile converts, raw and gzipped, detected and named
for valid in valid.pb valid.pb.gz; do
	checked=$((checked + 1))
	"$profconv" convert -o "$out_dir/ok.folded" "$cases/$valid" 2>"$tmp/valid.err" ||
		fail "$valid: the valid profile does not convert: $(cat "$tmp/valid.err")"
	[ "$(cat "$out_dir/ok.folded" 2>/dev/null)" = "main 5" ] ||
		fail "$valid: folded output is '$(cat "$out_dir/ok.folded" 2>/dev/null)', expected 'main 5'"
	clean_out_dir
done

# every prefix of the valid profile, raw and gzipped: an error (or the whole)
python3 - "$cases" <<'EOF'
import gzip
import os
import sys
d = sys.argv[1]
valid = open(os.path.join(d, "valid.pb"), "rb").read()
z = gzip.compress(valid, mtime=0)
os.makedirs(os.path.join(d, "prefix"), exist_ok=True)
for kind, data in (("raw", valid), ("gz", z)):
    for n in range(1, len(data)):
        with open(os.path.join(d, "prefix", "%s-%04d" % (kind, n)), "wb") as f:
            f.write(data[:n])
EOF
prefixes=0
for file in "$cases"/prefix/*; do
	prefixes=$((prefixes + 1))
	timeout 10 "$profconv" convert -f pprof -t folded -o "$out_dir/p.folded" "$file" \
		>/dev/null 2>"$tmp/prefix.err"
	status=$?
	if [ "$status" -eq 0 ]; then
		# a raw prefix that ends between fields is a smaller profile, if a valid one
		case $file in */raw-*) clean_out_dir; continue ;; esac
		fail "$(basename "$file"): a cut gzip profile converted"
		clean_out_dir
		continue
	fi
	[ "$status" -eq 1 ] || fail "$(basename "$file"): exit $status"
	grep -Eq "^profconv: .*: offset 0x[0-9a-f]+: pprof: " "$tmp/prefix.err" ||
		fail "$(basename "$file"): no located error: $(cat "$tmp/prefix.err")"
	out_dir_empty || { fail "$(basename "$file"): output left behind"; clean_out_dir; }
done

echo "checked $checked hostile and valid profiles and $prefixes prefixes, $failures failures"
[ "$failures" -eq 0 ]
