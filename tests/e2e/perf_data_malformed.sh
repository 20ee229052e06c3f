#!/bin/sh
# tests/e2e/perf_data_malformed.sh - malformed perf.data gives one clear,
# located error and never an output file.
#
# The files are made at test time by tests/fuzz/seeds/perf_data_seeds.py
# (imported by the script below): its small valid file-mode file (file-le:
# two events with IDENTIFIER, callchains, MMAP/MMAP2/COMM/FORK/EXIT, the
# HOSTNAME, BUILD_ID and EVENT_DESC features), the same in pipe mode, and
# its zstd files, each broken one way per class:
#   truncated header (every length 1..103; 0 bytes is "empty input",
#   refused before any reader), the attrs section (not a
#   multiple of attr_size, past the end of the file, at an offset past the
#   end), attr_size nonsense (0, 8, 79, 200, 5000, 2^63) and an attr's own
#   size nonsense (4000, 32), an ids section past the end, the data section
#   past the end of the file (size, offset), records of size 0 and 4 (less
#   than their 8-byte header), a record passing the end of the data
#   section, a record cut by the end of the file (file mode: the data
#   section ending inside it at the end of the file; pipe mode given by
#   path), sample fields overrunning their record (callchain nr 2^60, nr one
#   more than fits, a sample of only an IDENTIFIER and an IP), a sample whose
#   IDENTIFIER names no attr, COMPRESSED records holding garbage that is no
#   zstd (the first piece, a later piece), a compressed stream ending inside
#   a record, a pipe-mode file cut inside a record fed through standard
#   input, and a file-mode file fed through standard input (refused: its
#   sections need random access).
# For each:
#   - `profconv convert -f perf-data -t folded -o OUT FILE` exits 1 and its
#     stderr is exactly one line "profconv: FILE: offset 0x...: perf-data:
#     ..." whose offset lies within the file (and is the offset this script
#     expects where the class has one: the header field, the attr, the
#     record), and whose message has the class's words (what was expected
#     and what was found, e.g. the bad value);
#   - the output directory stays empty (no OUT, no temporary file);
#   - `profconv info -f perf-data FILE` exits 1 with the same line.
# The big-endian seeds of tests/fuzz/corpus/perf_data (file and pipe mode)
# give the same model (-t dump) and the same info (attrs with their
# bit-fields; the byte order line aside) as their little-endian twins.
# Then truncation points of the small valid file-mode file and of its
# pipe-mode twin (every byte of the first 320, every byte next to a pipe
# record boundary, every fifth elsewhere; every byte with
# PERF_DATA_ALL_CUTS=1): convert exits 1 with one
# located error line (offset within the prefix; info gives the same line,
# checked on every fourth prefix and at the pipe's record boundaries),
# except that a pipe-mode prefix ending at a record boundary may convert
# (exit 0, with its output); a file-mode prefix never converts (an exit 0
# there would be a file read as empty). Pipe-mode prefixes are also fed
# through standard input. No crash, no hang: every run is under a 10 s
# timeout (the sweep runs in Python: one process per run).
# The zstd classes are skipped (with a note) without the zstd tool.
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
seeds_dir="$top/tests/fuzz/seeds"
failures=0
checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) is missing"
[ -f "$seeds_dir/perf_data_seeds.py" ] || skip "perf_data_seeds.py is missing ($seeds_dir)"
"$profconv" formats | grep -q '^perf-data  *read' || skip "this profconv has no perf-data reader"
mkdir -p "$out_dir" "$cases"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# The malformed files, and per file a line of the manifest:
#   NAME <TAB> HOW (file: by path, stdin) <TAB> OFFSET (decimal, or * for
#   any within the file) <TAB> WORDS (|-separated, each must be in the message)
# plus the small valid files and their record boundaries for the truncations.
cat >"$tmp/make_cases.py" <<'EOF'
import os, struct, sys
sys.dont_write_bytecode = True  # no __pycache__ beside the generator
sys.path.insert(0, sys.argv[1])
import perf_data_seeds as ms

out = sys.argv[2]
manifest = open(os.path.join(out, "manifest"), "w")

def save(name, data, offset="*", words=(), how="file"):
    with open(os.path.join(out, name + ".data"), "wb") as f:
        f.write(data)
    manifest.write("%s\t%s\t%s\t%s\n" % (name, how, offset, "|".join(words)))

def put64(data, at, value):
    data = bytearray(data)
    struct.pack_into("<Q", data, at, value & (2**64 - 1))
    return bytes(data)

def put16(data, at, value):
    data = bytearray(data)
    struct.pack_into("<H", data, at, value)
    return bytes(data)

def put32(data, at, value):
    data = bytearray(data)
    struct.pack_into("<I", data, at, value)
    return bytes(data)

base, lay = ms.file_base(False)
size = len(base)
recs = lay["records"]
samples = [r for r in recs if r[1] == ms.SAMPLE]
with open(os.path.join(out, "base.data"), "wb") as f:
    f.write(base)
pipe, play = ms.pipe_base(False)
with open(os.path.join(out, "pipe.data"), "wb") as f:
    f.write(pipe)
# record boundaries of the pipe file: a prefix ending there is whole records
with open(os.path.join(out, "pipe.boundaries"), "w") as f:
    f.write(" ".join(str(at + n) for at, _, n in play["records"]) + "\n")

# truncated header: every length 0..103 (checked by the shell from base.data)
# the attrs section
save("attrs_not_multiple", put64(base, 32, 100), "*", ["100", "attr_size"])
save("attrs_past_end", put64(base, 32, 144 * 100), "*", ["14400", "end of the file"])
save("attrs_offset_past_end", put64(base, 24, 1 << 40), "*", ["end of the file"])
# attr_size nonsense (the header's field at 16)
for value in (0, 8, 79, 200, 5000, 1 << 63):
    save("attr_size_%d" % value, put64(base, 16, value), "*", ["attr_size", str(value)])
# an attr's own size field (perf_event_attr.size at attr + 4)
for value in (4000, 32):
    save("attr_struct_size_%d" % value, put32(base, lay["attrs_offset"] + 4, value),
         lay["attrs_offset"], [str(value), "perf_event_attr"])
# the first attr's ids section ({offset, size} after its 128 bytes) past the end
save("ids_past_end", put64(base, lay["attrs_offset"] + 128 + 8, 8 * 1000), "*",
     ["8000", "end of the file"])
# the data section past the end of the file
save("data_size_past_end", put64(base, 48, size), "*", [str(size), "data section"])
save("data_offset_past_end", put64(base, 40, size + 64), "*", [str(size), "data section"])
# records of size 0 and 4
first_sample = samples[0][0]
for value in (0, 4):
    save("record_size_%d" % value, put16(base, first_sample + 6, value), first_sample,
         ["size %d" % value, "8-byte header"])
# the last record (a FINISHED_ROUND before the feature table) passing the data section's end
last_at, _, last_size = recs[-1]
save("record_past_data_end", put16(base, last_at + 6, 32), last_at, ["32", "data section"])
# a record cut by the end of the file: the data section (and file) end inside the last sample
cut_at, _, cut_size = samples[-1]
cut = cut_at + cut_size // 2
data = put64(base, 48, cut - lay["data_offset"])
data = data[:72] + b"\0" * 32 + data[104:cut]  # no features
save("record_cut_by_eof", data, cut_at, [str(cut_size)])
# pipe mode cut inside a record, by path and through standard input
pipe_samples = [r for r in play["records"] if r[1] == ms.SAMPLE]
p_at, _, p_size = pipe_samples[1]
save("pipe_record_cut", pipe[:p_at + p_size - 5], p_at, [str(p_size), "cut"])
save("pipe_record_cut_stdin", pipe[:p_at + p_size - 5], p_at, [str(p_size), "cut"], how="stdin")
# a file-mode file through a pipe
save("file_via_stdin", base, 0, ["pipe", "random access"], how="stdin")
# sample fields overrunning the record: callchain nr (after IDENTIFIER, IP, TID, TIME, CPU, PERIOD)
nr_at = first_sample + 8 + 6 * 8
# (the message names the field, and the huge nr found)
save("sample_callchain_huge", put64(base, nr_at, 1 << 60), first_sample,
     ["SAMPLE", "callchain", str(1 << 60)])
nr = struct.unpack_from("<Q", base, nr_at)[0]
save("sample_callchain_plus1", put64(base, nr_at, nr + 1), first_sample, ["SAMPLE", "callchain"])
e = ms.Enc()
attrs = ms.two_events()
r = ms.base_records(e, attrs)
r.add(ms.SAMPLE, ms.MISC_USER, e.u64(101) + e.u64(0x401000))
short, slay = ms.file_mode(e, attrs, r, ms.base_features(e, attrs))
save("sample_short", short, slay["records"][-1][0], ["SAMPLE", "sample_type"])
# a sample whose IDENTIFIER names no attr
save("sample_unknown_id", put64(base, first_sample + 8, 999), first_sample, ["SAMPLE", "999"])

# zstd: garbage in a COMPRESSED record, a stream ending inside a record
z = ms.file_zstd()
if z is None:
    print("zstd classes skipped: the zstd tool is missing")
else:
    zdata, zlay = z
    comp = [x for x in zlay["records"] if x[1] == ms.COMPRESSED]
    for i, name in ((0, "compressed_garbage_first"), (1, "compressed_garbage_later")):
        at, _, n = comp[i]
        junk = bytes((x * 37 + 11) & 0xFF for x in range(n - 8))
        save(name, zdata[:at + 8] + junk + zdata[at + n:], at, ["COMPRESSED", "zstd"])
    plain = ms.base_records(e, attrs, rest=False)
    plain.round()
    inner = ms.base_records(e, attrs, first=False).bytes()
    pieces = ms.zstd_stream_pieces(inner[:-12], [0.37, 0.71])
    for piece in pieces:
        plain.add(ms.COMPRESSED, 0, piece)
    feats = ms.base_features(e, attrs)
    cdata, clay = ms.file_mode(e, attrs, plain, feats)
    save("compressed_stream_cut", cdata, "*", ["compressed", "inside a record"])
manifest.close()
EOF
python3 -B "$tmp/make_cases.py" "$seeds_dir" "$cases" || { echo "FAIL: could not make the malformed files"; exit 1; }

format=perf-data
. "$top/tests/e2e/lib/malformed.sh"

# --- the valid files convert (the base without -f too) and are read whole ---
for name in base pipe; do
	timeout 10 "$profconv" convert -q -t folded -o "$out_dir/$name.folded" "$cases/$name.data" \
		2>"$tmp/$name.err" && [ -s "$out_dir/$name.folded" ] ||
		fail "the valid $name file does not convert: $(cat "$tmp/$name.err")"
	clean_out_dir
done
[ "$failures" -eq 0 ] || exit 1

# --- one file per malformation class ---
tab=$(printf '\t')
while IFS="$tab" read -r name how offset words; do
	expect_error "$name" "$cases/$name.data" "$how" "$offset" "$words"
done <"$cases/manifest"

# a failed conversion leaves an existing output untouched
printf 'precious' >"$out_dir/keep.folded"
timeout 10 "$profconv" convert -f perf-data -t folded -o "$out_dir/keep.folded" \
	"$cases/record_size_0.data" 2>/dev/null
[ "$(cat "$out_dir/keep.folded")" = precious ] || fail "a failed conversion clobbered its output"
[ "$(ls -A "$out_dir")" = keep.folded ] || fail "a failed conversion left files: $(ls -A "$out_dir")"
clean_out_dir

# --- both byte orders: each big-endian seed reads as its little-endian twin ---
seeds="$top/tests/fuzz/corpus/perf_data"
for pair in "file-le file-be" "pipe pipe-be"; do
	set -- $pair
	checked=$((checked + 1))
	"$profconv" convert -q -f perf-data -t dump -o "$tmp/$1.dump" "$seeds/$1.data" &&
		"$profconv" convert -q -f perf-data -t dump -o "$tmp/$2.dump" "$seeds/$2.data" &&
		cmp -s "$tmp/$1.dump" "$tmp/$2.dump" ||
		fail "$2.data does not read as $1.data (profconv -t dump differs)"
	# the attrs too (bit-fields: frequency, sample_id_all...), the byte order aside
	"$profconv" info -f perf-data "$seeds/$1.data" | grep -v '^  mode ' >"$tmp/$1.info"
	"$profconv" info -f perf-data "$seeds/$2.data" | grep -v '^  mode ' >"$tmp/$2.info"
	cmp -s "$tmp/$1.info" "$tmp/$2.info" ||
		fail "info on $2.data differs from $1.data's: $(diff "$tmp/$1.info" "$tmp/$2.info" | head -4)"
done

# --- truncated header: every length 1..103 (0 bytes: "empty input", before any reader) ---
: >"$tmp/header.data"
checked=$((checked + 1))
"$profconv" convert -f perf-data -t folded -o "$out_dir/out.folded" "$tmp/header.data" 2>"$tmp/empty.err"
status=$?
[ "$status" -eq 1 ] && [ "$(cat "$tmp/empty.err")" = "profconv: $tmp/header.data: empty input" ] ||
	fail "header cut at 0: exit $status: $(cat "$tmp/empty.err")"
out_dir_empty || { fail "header cut at 0: left files"; clean_out_dir; }
cut=1
while [ "$cut" -lt 104 ]; do
	head -c "$cut" "$cases/base.data" >"$tmp/header.data"
	if [ "$cut" -lt 8 ]; then
		expect_error "header cut at $cut" "$tmp/header.data" file "*" "magic|$cut bytes"
	else
		expect_error "header cut at $cut" "$tmp/header.data" file "*" "header|$cut bytes"
	fi
	cut=$((cut + 1))
done

# --- every truncation point of the valid file-mode and pipe-mode files ---
# (in Python: one process per run instead of a dozen shell commands, for
# some 2,000 runs; info on every fourth prefix and every record boundary;
# PERF_DATA_ALL_CUTS=1 cuts at every byte: some 6,000 runs)
cat >"$tmp/cuts.py" <<'EOF'
import os, re, subprocess, sys

profconv, cases, out_dir = sys.argv[1:4]
LINE = re.compile(r"^profconv: (.*): offset 0x([0-9a-f]+): perf-data: .")
failures = checks = 0


def fail(message):
    global failures
    failures += 1
    print("FAIL: " + message)


def run(args, path, stdin_data):
    """profconv ARGS on path, or on stdin_data through a pipe: (exit status, stderr)."""
    try:
        p = subprocess.run([profconv] + args + ([path] if stdin_data is None else ["-"]),
                           input=stdin_data, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=10)
    except subprocess.TimeoutExpired:
        return "a hang (killed after 10 s)", ""
    return p.returncode, p.stderr.decode("utf-8", "replace")


def left_behind():
    names = os.listdir(out_dir)
    for name in names:
        os.remove(os.path.join(out_dir, name))
    return names


def check(what, data, path, stdin, may_convert, info):
    """A prefix: convert exits 1 with one located line (or 0 where may_convert); info agrees."""
    global checks
    checks += 1
    who = "<stdin>" if stdin else path
    out = os.path.join(out_dir, "cut.folded")
    feed = data if stdin else None
    status, err = run(["convert", "-q", "-f", "perf-data", "-t", "folded", "-o", out], path, feed)
    if status == 0:
        if not may_convert:
            fail("%s: converted (exit 0), expected a located error" % what)
        elif not os.path.exists(out):
            fail("%s: converted without an output" % what)
        left_behind()
        return
    lines = err.splitlines()
    if status != 1:
        fail("%s: convert exited %s: %s" % (what, status, " / ".join(lines[:3])))
    m = LINE.match(lines[0]) if lines else None
    if not m or m.group(1) != who:
        fail("%s: no located perf-data error: %s" % (what, " / ".join(lines[:3])))
    elif len(lines) != 1:
        fail("%s: %d lines, expected one: %s" % (what, len(lines), " / ".join(lines)))
    elif int(m.group(2), 16) > len(data):
        fail("%s: the error's offset is not within the %d bytes of the input: %s"
             % (what, len(data), lines[0]))
    names = left_behind()
    if names:
        fail("%s: convert left files behind: %s" % (what, " ".join(names)))
    if not info:
        return
    status, info_err = run(["info", "-f", "perf-data"], path, feed)
    if status != 1 or info_err.splitlines()[:1] != lines[:1]:
        fail("%s: info exited %s with '%s', convert '%s'"
             % (what, status, " / ".join(info_err.splitlines()[:1]), lines[0] if lines else ""))


cut_path = os.path.join(os.path.dirname(out_dir), "cut.data")
every = 1 if os.environ.get("PERF_DATA_ALL_CUTS") else 5


def sweep(length, near):
    """The cuts made: all in the first 320 bytes (header, attrs, first records), all
    next to a record boundary, every fifth elsewhere (all with PERF_DATA_ALL_CUTS=1)."""
    return [c for c in range(length) if c < 320 or c % every == 0 or c in near]


base = open(os.path.join(cases, "base.data"), "rb").read()
for cut in sweep(len(base), set()):
    if cut < 104:
        continue
    with open(cut_path, "wb") as f:
        f.write(base[:cut])
    check("file-mode cut at %d" % cut, base[:cut], cut_path, False, False, cut % 4 == 0)
pipe = open(os.path.join(cases, "pipe.data"), "rb").read()
boundaries = set(int(x) for x in open(os.path.join(cases, "pipe.boundaries")).read().split())
near = set(b + d for b in boundaries for d in (-1, 0, 1))
for cut in sweep(len(pipe), near):
    if cut == 0:
        continue  # 0 bytes: "empty input" before any reader (checked above)
    with open(cut_path, "wb") as f:
        f.write(pipe[:cut])
    at_boundary = cut in boundaries
    info = cut % 4 == 0 or at_boundary
    check("pipe-mode cut at %d" % cut, pipe[:cut], cut_path, False, at_boundary, info)
    check("pipe-mode cut at %d, from stdin" % cut, pipe[:cut], cut_path, True, at_boundary, info)
print("cuts: %d %d %d %d" % (len([c for c in sweep(len(base), set()) if c >= 104]),
                            len(sweep(len(pipe), near)) - 1, checks, failures))
EOF
python3 "$tmp/cuts.py" "$profconv" "$cases" "$out_dir" >"$tmp/cuts.log"
grep '^FAIL' "$tmp/cuts.log"
set -- $(sed -n 's/^cuts: //p' "$tmp/cuts.log")
if [ $# -ne 4 ]; then
	fail "the truncation sweep did not finish"
	set -- 0 0 0 0
fi
file_cuts=$1 pipe_cuts=$2
checked=$((checked + $3))
failures=$((failures + $4))

echo "perf_data_malformed: $checked checks ($file_cuts file-mode and $pipe_cuts pipe-mode truncation points), $failures failures"
[ "$failures" -eq 0 ]
