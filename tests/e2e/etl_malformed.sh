#!/bin/sh
# tests/e2e/etl_malformed.sh - malformed ETW traces (.etl) give one clear,
# located error and never an output file; what is only incomplete gives a
# counted warning and a profile.
#
# The files are made at test time from the tiny trace of
# tests/fuzz/seeds/etl_seeds.py (imported by the script below: a 392-byte
# header buffer, then 256-byte buffers on two processors with a process, a
# thread, two images, a DbgID_RSDS, three samples with a plain stack, a
# stack key and no stack, an EVENT_HEADER event with extended items, a
# KeyRundown), plain and Xpress-compressed, each broken one way per class:
#   the trace cut inside a buffer header, inside a buffer's payload, inside
#   the header buffer; BufferSize 0, 4, 0x47 (under the
#   0x48-byte header), absurd (0x4000001, 0xffffffff: over 64 MiB), or
#   0x100000 (past the end of the file); the filled bytes (Offset, at 0x30)
#   past the buffer (0x108 in a 0x100-byte buffer, 0xfffffff0, 0x5000000 in
#   a compressed buffer); an event whose size runs past its buffer (a
#   PERFINFO and a classic header), one smaller than its header, one whose
#   header runs past the filled bytes, PMC counters its size cannot hold,
#   EVENT_HEADER extended items running past the event (item size 0,
#   0x2000, "more" set on the last item); an unknown header type (in a data
#   buffer and in the header buffer); a compressed buffer of garbage (the
#   first and a later one), one cut short (BufferSize made to match), one
#   whose filled bytes promise more than its data gives; a compressed buffer
#   in a trace whose header buffer says LZNT1 (State 2) or Xpress Huffman
#   (4); a buffer flagged compressed in an uncompressed trace; two classes
#   through standard input.
# For each:
#   - `profconv convert -f etl -t folded -o OUT FILE` exits 1 and its stderr
#     is exactly one line "profconv: FILE: offset 0x...: etl: ..." whose
#     offset is the broken buffer's, and whose message has the class's
#     words (what was expected and what was found, e.g. the bad value);
#   - the output directory stays empty (no OUT, no temporary file), and a
#     failed conversion leaves an existing OUT untouched;
#   - `profconv info -f etl FILE` exits 1 with the same line.
# Not errors (exit 0, the profile written, one warning with the count): a
# stack key reference never defined (its key changed; its only definition
# before the reference), and samples in no known image (the image moved
# away: every user frame is then in none).
# Then every truncation point of the tiny trace, plain and compressed (each
# byte, but for the compressed trace's header buffer, which is the plain
# one's but for two fields; info on every eighth prefix, standard input on
# every sixteenth; ETL_ALL_CUTS=1: all of them on every byte): a
# prefix ending exactly at a buffer boundary is a whole trace and converts
# (exit 0, its output written); any other prefix exits 1 with one located
# line whose offset is the start of the buffer the cut falls in and whose
# message says the trace ends inside a buffer header (with the bytes there)
# or inside a buffer (the bytes there and its BufferSize); never exit 0,
# never a shorter profile. The empty prefix (0 bytes) is refused before any
# reader runs ("profconv: FILE: empty input", tests/e2e/misuse_inputs.sh).
# Every run is under a 10 s timeout (the sweep runs in Python, one run per
# CPU at a time, up to four).
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
[ -f "$seeds_dir/etl_seeds.py" ] || skip "etl_seeds.py is missing ($seeds_dir)"
"$profconv" formats | grep -q '^etl  *read' || skip "this profconv has no etl reader"
mkdir -p "$out_dir" "$cases"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# The malformed files, and per file a line of the manifest:
#   NAME <TAB> HOW (file: by path, stdin) <TAB> OFFSET (decimal) <TAB> WORDS
#   (|-separated, each must be in the message)
# and the warning cases: NAME <TAB> warn <TAB> - <TAB> WORDS (of the warning).
cat >"$tmp/make_cases.py" <<'EOF'
import os, struct, sys
sys.dont_write_bytecode = True  # no __pycache__ beside the generator
sys.path.insert(0, sys.argv[1])
import etl_seeds as es

out = sys.argv[2]
manifest = open(os.path.join(out, "manifest"), "w")

def save(name, data, offset, words, how="file"):
    with open(os.path.join(out, name + ".etl"), "wb") as f:
        f.write(data)
    manifest.write("%s\t%s\t%s\t%s\n" % (name, how, offset, "|".join(words)))

def put(data, at, fmt, value):
    data = bytearray(data)
    struct.pack_into(fmt, data, at, value)
    return bytes(data)

plain, play, expected = es.tiny_trace(False)
packed, xlay, _ = es.tiny_trace(True)
for name, data, lay in (("tiny", plain, play), ("tiny-xpress", packed, xlay)):
    with open(os.path.join(out, name + ".etl"), "wb") as f:
        f.write(data)
    with open(os.path.join(out, name + ".buffers"), "w") as f:
        f.write(" ".join("%d:%d" % (b["offset"], b["size"]) for b in lay["buffers"]) + "\n")
with open(os.path.join(out, "tiny.expected"), "w") as f:
    f.write(expected)

B = play["buffers"]
X = xlay["buffers"]

def event(bufs, hook=None, htype=None, index=0):
    """(buffer, event) of the index-th event with that hook or header type."""
    found = [(b, e) for b in bufs for e in b["events"]
             if (hook is None or e[3] == hook) and (htype is None or e[2] == htype)]
    return found[index]

# cut inside a buffer header, inside a payload, inside the header buffer; empty
b = B[2]
for n in (1, 0x2C, 0x47):
    save("header_cut_%d" % n, plain[:b["offset"] + n], b["offset"],
         ["ends inside a buffer header", "%d of 72 bytes" % n])
save("payload_cut", plain[:b["offset"] + 0x48 + 5], b["offset"],
     ["ends inside a buffer", "%d of its 0x%x bytes" % (0x48 + 5, b["size"])])
save("header_buffer_cut", plain[:100], 0, ["ends inside a buffer", "100 of its 0x%x bytes" % B[0]["size"]])
# BufferSize
for value in (0, 4, 0x47, 0x4000001, 0xFFFFFFFF):
    save("buffer_size_0x%x" % value, put(plain, b["offset"], "<I", value), b["offset"],
         ["BufferSize 0x%x" % value, "expected 0x48 to 0x4000000"])
save("header_buffer_size_0", put(plain, 0, "<I", 0), 0, ["BufferSize 0x0", "expected 0x48"])
save("buffer_size_past_end", put(plain, b["offset"], "<I", 0x100000), b["offset"],
     ["ends inside a buffer", "of its 0x100000 bytes"])
# filled bytes past the buffer
save("filled_past", put(plain, b["offset"] + 0x30, "<I", b["size"] + 8), b["offset"],
     ["filled bytes 0x%x" % (b["size"] + 8), "more than the buffer's 0x%x" % b["size"]])
save("filled_absurd", put(plain, b["offset"] + 0x30, "<I", 0xFFFFFFF0), b["offset"],
     ["filled bytes 0xfffffff0", "0x%x" % b["size"]])
xb = X[1]
save("xpress_filled_absurd", put(packed, xb["offset"] + 0x30, "<I", 0x5000000), xb["offset"],
     ["filled bytes 0x5000000"])
# events running past their buffer, or shorter than their header
eb, ev = event(B, hook=es.H_SAMPLE)
events = eb["filled"] - es.BUFFER_HEADER
save("event_size_past", put(plain, eb["offset"] + ev[0] + 4, "<H", 200), eb["offset"],
     ["event at 0x%x" % ev[0], "size 200", "expected 16 to %d" % (eb["filled"] - ev[0])])
cb, ce = event(B, htype=0x14)
save("classic_size_past", put(plain, cb["offset"] + ce[0], "<H", 0xF000), cb["offset"],
     ["event at 0x%x" % ce[0], "size 61440", "expected 48 to"])
sb, se = event(B, hook=es.H_PROCESS_DCSTART)
save("event_size_small", put(plain, sb["offset"] + se[0] + 4, "<H", 8), sb["offset"],
     ["event at 0x%x" % se[0], "size 8", "expected 32 to"])
lb = B[4]
last = lb["events"][-1]
save("event_header_past_filled", put(plain, lb["offset"] + 0x30, "<I", last[0] + 8), lb["offset"],
     ["event at 0x%x" % last[0], "16-byte header", "runs past"])
save("pmc_past_event", put(plain, eb["offset"] + ev[0], "<H", 0x0702), eb["offset"],
     ["event at 0x%x" % ev[0], "run past its %d bytes" % ev[1]])
mb, me = event(B, htype=0x13)
item = mb["offset"] + me[0] + 0x50
save("ext_item_size_0", put(plain, item, "<H", 0), mb["offset"],
     ["event at 0x%x" % me[0], "run past its %d bytes" % me[1]])
save("ext_item_size_past", put(plain, item, "<H", 0x2000), mb["offset"],
     ["event at 0x%x" % me[0], "run past its %d bytes" % me[1]])
second = item + es.align(struct.unpack_from("<H", plain, item)[0])
save("ext_item_more_past", put(plain, second + 4, "<H", 1), mb["offset"],
     ["event at 0x%x" % me[0], "run past its %d bytes" % me[1]])
# unknown header types
save("unknown_header_type", put(plain, eb["offset"] + ev[0] + 2, "<B", 0x77), eb["offset"],
     ["event at 0x%x" % ev[0], "unknown header type 0x77"])
save("unknown_header_type_first", put(plain, 0x48 + 2, "<B", 0x77), 0,
     ["event at 0x48", "unknown header type 0x77"])
# compressed buffers that do not decompress
for k, name in ((1, "xpress_garbage_first"), (4, "xpress_garbage_later")):
    xb = X[k]
    junk = bytes((i * 37 + 11) & 0xFF for i in range(xb["size"] - 0x48))
    start = xb["offset"] + 0x48
    save(name, packed[:start] + junk + packed[start + len(junk):], xb["offset"],
         ["do not decompress to %d bytes" % (xb["filled"] - 0x48)])
xb = X[3]
cut = put(packed, xb["offset"], "<I", xb["size"] - 7)
cut = cut[:xb["offset"] + xb["size"] - 7] + cut[xb["offset"] + xb["size"]:]
save("xpress_truncated", cut, xb["offset"], ["do not decompress to %d bytes" % (xb["filled"] - 0x48)])
xb = X[1]
save("xpress_filled_more", put(packed, xb["offset"] + 0x30, "<I", xb["filled"] + 44), xb["offset"],
     ["do not decompress to %d bytes" % (xb["filled"] + 44 - 0x48)])
# another compression format in the header buffer's State; compressed in a plain trace
save("xpress_state_lznt1", put(packed, 0x2C, "<I", 2), X[1]["offset"],
     ["format 2", "LZNT1", "only Xpress"])
save("xpress_state_huffman", put(packed, 0x2C, "<I", 4), X[1]["offset"],
     ["format 4", "Huffman", "only Xpress"])
save("compressed_in_plain_trace", put(plain, b["offset"] + 0x34, "<H", 0x60), b["offset"],
     ["compressed"])
# through standard input
save("payload_cut_stdin", plain[:b["offset"] + 0x48 + 5], b["offset"],
     ["ends inside a buffer", "%d of its 0x%x bytes" % (0x48 + 5, b["size"])], how="stdin")
save("xpress_state_lznt1_stdin", put(packed, 0x2C, "<I", 2), X[1]["offset"],
     ["format 2", "LZNT1"], how="stdin")

# warnings, not errors
kb, ke = event(B, hook=es.H_KEY_RUNDOWN)
key_at = kb["offset"] + ke[0] + 0x10
save("key_never_defined", put(plain, key_at, "<Q", 0xFFFFE0000000BEEF), "-",
     ["1 stack key reference(s) never defined"], how="warn")
save("key_defined_before", put(plain, kb["offset"] + ke[0] + 8, "<Q", es.HEADER_TIME), "-",
     ["1 stack key reference(s) never defined"], how="warn")
ib, ie = event(B, hook=es.H_IMAGE_DCSTART, index=1)  # t.exe
save("no_known_image", put(plain, ib["offset"] + ie[0] + 0x20, "<Q", 0x10000), "-",
     ["image"], how="warn")
manifest.close()
EOF
python3 -B "$tmp/make_cases.py" "$seeds_dir" "$cases" || { echo "FAIL: could not make the malformed files"; exit 1; }

format=etl
. "$top/tests/e2e/lib/malformed.sh"

# expect_warning WHAT FILE WORDS: convert exits 0 with its output and one etl warning with
# the words and a count.
expect_warning() {
	what=$1 file=$2 words=$3
	checked=$((checked + 1))
	timeout 10 "$profconv" convert -f etl -t folded -o "$out_dir/out.folded" "$file" \
		>/dev/null 2>"$tmp/warn.err"
	status=$?
	[ "$status" -eq 0 ] || fail "$what: convert exited $status, expected 0: $(head -3 "$tmp/warn.err")"
	[ -s "$out_dir/out.folded" ] || fail "$what: no profile written"
	warning=$(grep -E '^profconv: warning: etl: .*[0-9]' "$tmp/warn.err" | grep -iF "${words%%|*}")
	if [ -z "$warning" ]; then
		fail "$what: no counted etl warning about '${words%%|*}': $(grep -v 'warning: folded:' "$tmp/warn.err")"
	else
		[ "$(printf '%s\n' "$warning" | wc -l)" -eq 1 ] || fail "$what: several warnings: $warning"
		has_words "$what" "$warning" "$warning" "$words"
	fi
	grep -v -e '^profconv: warning: folded: ' -e '^profconv: warning: etl: ' "$tmp/warn.err" |
		grep -q . && fail "$what: other messages: $(cat "$tmp/warn.err")"
	clean_out_dir
}

# --- the tiny traces convert to what they say ---
for name in tiny tiny-xpress; do
	checked=$((checked + 1))
	timeout 10 "$profconv" convert -q -t folded -o "$out_dir/$name.folded" "$cases/$name.etl" \
		2>"$tmp/$name.err" && cmp -s "$out_dir/$name.folded" "$cases/tiny.expected" ||
		fail "the valid $name trace does not convert to its profile: $(cat "$tmp/$name.err")"
	clean_out_dir
done
[ "$failures" -eq 0 ] || exit 1

# --- one file per malformation class ---
tab=$(printf '\t')
while IFS="$tab" read -r name how offset words; do
	if [ "$how" = warn ]; then
		expect_warning "$name" "$cases/$name.etl" "$words"
	else
		expect_error "$name" "$cases/$name.etl" "$how" "$offset" "$words"
	fi
done <"$cases/manifest"

# a failed conversion leaves an existing output untouched
printf 'precious' >"$out_dir/keep.folded"
timeout 10 "$profconv" convert -f etl -t folded -o "$out_dir/keep.folded" \
	"$cases/xpress_garbage_first.etl" 2>/dev/null
[ "$(cat "$out_dir/keep.folded")" = precious ] || fail "a failed conversion clobbered its output"
[ "$(ls -A "$out_dir")" = keep.folded ] || fail "a failed conversion left files: $(ls -A "$out_dir")"
clean_out_dir

# --- every truncation point of the tiny traces, plain and compressed ---
cat >"$tmp/cuts.py" <<'EOF'
import concurrent.futures, os, re, subprocess, sys, threading

profconv, cases, work = sys.argv[1:4]
LINE = re.compile(r"^profconv: (.*): offset 0x([0-9a-f]+): etl: (.*)$")


def run(args, path, stdin_data):
    """profconv ARGS on path, or on stdin_data through a pipe: (exit status, stderr)."""
    try:
        p = subprocess.run([profconv] + args + ([path] if stdin_data is None else ["-"]),
                           input=stdin_data, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=10)
    except subprocess.TimeoutExpired:
        return "a hang (killed after 10 s)", ""
    return p.returncode, p.stderr.decode("utf-8", "replace")


def expected_error(cut, buffers):
    """(offset, words) of the error a prefix of cut bytes must give, or None at a boundary."""
    for start, size in buffers:
        if cut == start + size:
            return None
        if start < cut < start + size:
            have = cut - start
            if have < 0x48:
                return start, ["ends inside a buffer header", "%d of 72 bytes" % have]
            return start, ["ends inside a buffer", "%d of its 0x%x bytes" % (have, size)]
    raise AssertionError(cut)


def check(name, data, buffers, cut):
    """The failures (a list of lines) of one prefix: convert, sometimes info and stdin."""
    problems = []
    d = os.path.join(work, "thread%d" % threading.get_ident())  # a directory per worker
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "cut.etl")
    with open(path, "wb") as f:
        f.write(data[:cut])
    out = os.path.join(d, "out", "cut.folded")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    what = "%s cut at %d" % (name, cut)
    want = expected_error(cut, buffers)
    status, err = run(["convert", "-q", "-f", "etl", "-t", "folded", "-o", out], path, None)
    lines = err.splitlines()
    if want is None:
        if status != 0:
            problems.append("%s (a buffer boundary): exit %s: %s" % (what, status, " / ".join(lines[:2])))
        elif not os.path.exists(out):
            problems.append("%s (a buffer boundary): no output" % what)
    else:
        m = LINE.match(lines[0]) if lines else None
        if status == 0:
            problems.append("%s: exit 0 (a shorter profile), expected a located error" % what)
        elif status != 1:
            problems.append("%s: exit %s: %s" % (what, status, " / ".join(lines[:3])))
        elif not m or m.group(1) != path:
            problems.append("%s: no located etl error: %s" % (what, " / ".join(lines[:3])))
        elif len(lines) != 1:
            problems.append("%s: %d lines, expected one: %s" % (what, len(lines), " / ".join(lines)))
        else:
            if int(m.group(2), 16) != want[0]:
                problems.append("%s: the error is at 0x%s, expected 0x%x (its buffer): %s"
                                % (what, m.group(2), want[0], lines[0]))
            for word in want[1]:
                if word not in m.group(3):
                    problems.append("%s: the message lacks '%s': %s" % (what, word, lines[0]))
        if cut % info_every == 0:
            istatus, ierr = run(["info", "-f", "etl"], path, None)
            if istatus != 1 or ierr.splitlines()[:1] != lines[:1]:
                problems.append("%s: info exited %s with '%s', convert '%s'"
                                % (what, istatus, " / ".join(ierr.splitlines()[:1]),
                                   lines[0] if lines else ""))
        if cut % stdin_every == 0:
            sstatus, serr = run(["convert", "-q", "-f", "etl", "-t", "folded", "-o", out], path,
                                data[:cut])
            expect = [l.replace("profconv: %s: " % path, "profconv: <stdin>: ", 1) for l in lines]
            if sstatus != status or serr.splitlines() != expect:
                problems.append("%s: from standard input exit %s '%s', by path exit %s '%s'"
                                % (what, sstatus, serr.strip(), status, err.strip()))
    if os.path.exists(out) and want is not None:
        problems.append("%s: convert left its output" % what)
    leftovers = [n for n in os.listdir(os.path.dirname(out)) if n != "cut.folded"]
    if leftovers:
        problems.append("%s: convert left files: %s" % (what, " ".join(leftovers)))
    for n in os.listdir(os.path.dirname(out)):
        os.remove(os.path.join(os.path.dirname(out), n))
    return problems


# ETL_ALL_CUTS=1: info and standard input on every prefix, the compressed trace's header
# buffer too (some 8,000 runs instead of 3,500)
every = os.environ.get("ETL_ALL_CUTS") == "1"
info_every, stdin_every = (1, 1) if every else (8, 16)
jobs = []
for name in ("tiny", "tiny-xpress"):
    data = open(os.path.join(cases, name + ".etl"), "rb").read()
    buffers = [tuple(int(x) for x in b.split(":"))
               for b in open(os.path.join(cases, name + ".buffers")).read().split()]
    assert sum(size for _, size in buffers) == len(data)
    # the compressed trace's header buffer is the plain one's but for two fields
    # (0 bytes: refused before any reader, as "profconv: FILE: empty input", which
    # tests/e2e/misuse_inputs.sh checks for every reader)
    first = 1 if name == "tiny" or every else buffers[1][0]
    jobs += [(name, data, buffers, cut) for cut in range(first, len(data))]
workers = min(4, os.cpu_count() or 2)
failures = 0
with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
    futures = [pool.submit(check, *job) for job in jobs]
    for fut in futures:
        for line in fut.result():
            failures += 1
            if failures <= 40:
                print("FAIL: " + line)
print("cuts: %d %d" % (len(jobs), failures))
EOF
python3 -B "$tmp/cuts.py" "$profconv" "$cases" "$tmp/sweep" >"$tmp/cuts.log"
grep '^FAIL' "$tmp/cuts.log"
set -- $(sed -n 's/^cuts: //p' "$tmp/cuts.log")
if [ $# -ne 2 ]; then
	fail "the truncation sweep did not finish: $(tail -3 "$tmp/cuts.log")"
	set -- 0 0
fi
cuts=$1
checked=$((checked + $1))
failures=$((failures + $2))

echo "etl_malformed: $checked checks ($cuts truncation points), $failures failures"
[ "$failures" -eq 0 ]
