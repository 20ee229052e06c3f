#!/bin/sh
# tests/e2e/etl_generated.sh - ETW traces made from scratch convert to
# exactly the profile they were made to say, compressed or not, and a real
# trace rewritten without compression reads as the original.
#
# The traces come from tests/fuzz/seeds/etl_seeds.py (its `trace NAME OUT
# EXPECTED` mode), which also computes each one's expected folded output
# from its own scenario (which image holds which address when, which
# process a thread is in, the stack each sample was given), not from the
# events it wrote:
#   plain64, xpress64   the same events, 64-bit, in uncompressed 1 KiB
#                       buffers / Xpress-compressed 4 KiB buffers
#   plain32, xpress32   the same with 32-bit headers and pointers
#   mixed               4 processors, some buffers compressed, one flagged
#                       as having lost events
#   small, small-xpress few samples in 512-byte / compressed buffers
#   modern              EVENT_HEADER events with extended items, instance
#                       GUID headers, samples with PMC/PEBS values
#   nosamples           rundown only
#   large               5.7 MB in 64 KiB buffers, 5 of them compressed: past
#                       the reader's 4 MiB, so that a file is read as two
#                       ranges at once (a pipe stays sequential)
#   paths               12,000 samples over 6 call paths per thread, whose
#                       addresses stay while images load and unload: the
#                       samples of one stack and thread, added to the model
#                       at once, still change module with the images
# For each trace:
#   - `convert -f etl -t folded` (and without -f: the probe) gives exactly
#     EXPECTED.folded; --tid gives EXPECTED.tid.folded; --event cpu gives
#     EXPECTED.cpu.folded (the sampling interval the trace set, in ns);
#   - the same bytes through standard input give the same output;
#   - stderr holds one "N stack key reference(s) never defined" warning
#     with the scenario's count (none when it has none), one "N frame(s)
#     in no image" warning where EXPECTED.folded has [unknown] frames, N
#     their count there, the no-samples
#     warning exactly for nosamples, and nothing else but the folded
#     writer's notes about what folded cannot keep;
#   - `info --progid` lists every DbgID_RSDS the scenario wrote;
# two hand-made traces give their expected folded output: late_key (a
# stack key referred to out of time order, across its redefinition: each
# reference takes its own definition) and max_time (the last sample at time
# 2^64 - 1, where no image is loaded any more); shared_stacks (3,000
# processes sharing three stacks of 1,024 frames) reads within 24 MB of
# peak RSS (tools/runstat), to 6,000 samples, alike on two threads and one;
# and each compressed trace gives the same -t dump model and the same
# `info --events` census (but for its buffers line, which must count every
# buffer but the header buffer compressed) as its plain twin; mixed has 6
# compressed buffers;
# the seeds of tests/fuzz/corpus/etl (if there) convert with exit 0 and
# are those etl_seeds.py makes now.
# Re-layout (etl_seeds.py relayout): ../shared/corpus/etl/net.4.5.2.x64.etl
# and SelfDescribingSingleEvent.etl with every compressed buffer stored
# plain give byte-identical folded, dump and (with pprof) `pprof -raw`
# output, and the same `info --events` census but for the compressed-buffer
# count, which must be 0; the x64 re-layout through standard input equals
# the file. Fails (never skips) when that corpus is missing.
#
# Environment (tests/run.sh): PROFCONV, PPROF, BUILD, SHARED, TMPDIR.
# Exit 0 pass, 77 skip (no profconv, no python3).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
tmp=${TMPDIR:-/tmp}
seeds="$top/tests/fuzz/seeds/etl_seeds.py"
corpus=${SHARED:-$top/../shared}/corpus/etl
failures=0
checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) is missing"
[ -f "$seeds" ] || { echo "FAIL: $seeds is missing"; exit 1; }
[ -f "$corpus/net.4.5.2.x64.etl" ] && [ -f "$corpus/SelfDescribingSingleEvent.etl" ] ||
	{ echo "FAIL: the ETL corpus is missing ($corpus): it must be beside the checkout"; exit 1; }

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# pc ARGS...: profconv under a 10 s timeout
pc() {
	timeout 10 "$profconv" "$@"
}

# same WHAT EXPECTED GOT: the files are equal (a diff excerpt otherwise)
same() {
	checked=$((checked + 1))
	if ! cmp -s "$2" "$3"; then
		fail "$1: differs from what was expected:"
		diff "$2" "$3" | head -10
	fi
}

# other_stderr FILE: the lines of FILE that are neither the folded writer's notes nor
# the warnings this script checks itself
other_stderr() {
	grep -v -e '^profconv: warning: folded: ' -e 'stack key reference(s) never defined' \
		-e 'no CPU samples in the trace' -e 'in no image known at their time' "$1"
}

names="plain64 xpress64 plain32 xpress32 mixed small small-xpress large paths modern nosamples"
for name in $names; do
	t="$tmp/$name"
	python3 -B "$seeds" trace "$name" "$t.etl" "$t.expected" ||
		{ fail "$name: etl_seeds.py could not make the trace"; continue; }
	# folded, with -f and by the probe
	pc convert -f etl -t folded -o "$t.folded" "$t.etl" 2>"$t.err" ||
		{ fail "$name: convert exited $?: $(head -3 "$t.err")"; continue; }
	same "$name: folded" "$t.expected.folded" "$t.folded"
	pc convert -q -t folded -o "$t.probe.folded" "$t.etl" ||
		fail "$name: convert without -f failed"
	same "$name: folded (format probed)" "$t.expected.folded" "$t.probe.folded"
	pc convert -q -f etl -t folded --tid -o "$t.tid.folded" "$t.etl" || fail "$name: --tid failed"
	same "$name: folded --tid" "$t.expected.tid.folded" "$t.tid.folded"
	pc convert -q -f etl -t folded --event cpu -o "$t.cpu.folded" "$t.etl" ||
		fail "$name: --event cpu failed"
	same "$name: folded --event cpu" "$t.expected.cpu.folded" "$t.cpu.folded"
	# standard input
	pc convert -q -f etl -t folded -o "$t.stdin.folded" - <"$t.etl" || fail "$name: stdin failed"
	same "$name: folded from standard input" "$t.folded" "$t.stdin.folded"
	cat "$t.etl" | pc convert -q -f etl -t folded --tid -o "$t.pipe.folded" - ||
		fail "$name: a pipe failed"
	same "$name: folded --tid from a pipe" "$t.tid.folded" "$t.pipe.folded"
	# warnings
	checked=$((checked + 1))
	undefined=$(cat "$t.expected.undefined")
	got=$(grep -c "etl: $undefined stack key reference(s) never defined" "$t.err")
	if [ "$undefined" -gt 0 ] && [ "$got" != 1 ]; then
		fail "$name: not one warning of $undefined undefined stack key(s): $(cat "$t.err")"
	elif [ "$undefined" = 0 ] && grep -q 'never defined' "$t.err"; then
		fail "$name: a warning of undefined stack keys where all are defined: $(cat "$t.err")"
	fi
	got=$(grep -c 'no CPU samples in the trace' "$t.err")
	if [ "$name" = nosamples ]; then
		[ "$got" = 1 ] || fail "$name: not one warning about the missing samples: $(cat "$t.err")"
		[ ! -s "$t.folded" ] || fail "$name: samples where there are none"
	else
		[ "$got" = 0 ] || fail "$name: a no-samples warning: $(cat "$t.err")"
	fi
	got=$(grep -c 'in no image known at their time' "$t.err")
	if grep -q '\[unknown\]' "$t.expected.folded"; then
		unknown=$(awk '{ n = gsub(/\[unknown\]/, "&"); s += n * $NF } END { print s }' \
			"$t.expected.folded")
		[ "$got" = 1 ] && grep -q "etl: $unknown frame(s) in no image" "$t.err" ||
			fail "$name: not one warning of $unknown frames in no image: $(cat "$t.err")"
	else
		[ "$got" = 0 ] || fail "$name: a warning of frames in no image: $(cat "$t.err")"
	fi
	[ -z "$(other_stderr "$t.err")" ] || fail "$name: unexpected messages: $(other_stderr "$t.err")"
	# PDB identities
	checked=$((checked + 1))
	pc info --progid "$t.etl" >"$t.progid" || fail "$name: info --progid failed"
	while IFS= read -r line; do
		grep -qxF "$line" "$t.progid" || fail "$name: info --progid lacks '$line'"
	done <"$t.expected.progid"
done

# compressed and plain twins: the same model, the same census but for the buffers
for pair in "plain64 xpress64" "plain32 xpress32" "small small-xpress"; do
	set -- $pair
	checked=$((checked + 1))
	pc convert -q -f etl -t dump -o "$tmp/$1.dump" "$tmp/$1.etl" &&
		pc convert -q -f etl -t dump -o "$tmp/$2.dump" "$tmp/$2.etl" &&
		cmp -s "$tmp/$1.dump" "$tmp/$2.dump" || fail "$2: -t dump differs from $1's"
	pc info --events "$tmp/$1.etl" | sed 1d >"$tmp/$1.events"
	pc info --events "$tmp/$2.etl" >"$tmp/$2.events.all"
	sed 1d "$tmp/$2.events.all" >"$tmp/$2.events"
	same "$2: info --events (but the buffers line) against $1's" "$tmp/$1.events" "$tmp/$2.events"
	head -1 "$tmp/$2.events.all" | awk '{ n = $2 + 0; c = substr($3, 2) + 0 } END { exit c != n - 1 }' ||
		fail "$2: not every data buffer is compressed: $(head -1 "$tmp/$2.events.all")"
done
checked=$((checked + 1))
mixed=$(pc info --events "$tmp/mixed.etl" | head -1)
case $mixed in
"buffers: "*" (6 compressed), "*) ;;
*) fail "mixed: not 6 compressed buffers: $mixed" ;;
esac

# --- hand-made traces (etl_seeds.py): a stack key referred to out of time
# order; samples up to the largest time there is ---
for made in late_key max_time; do
	out="$tmp/$made"
	python3 -B - "$seeds" "$out" "$made" <<'PY' || fail "$made: etl_seeds.py could not make the trace"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import etl_seeds
data, expected = getattr(etl_seeds, sys.argv[3] + "_trace")()
open(sys.argv[2] + ".etl", "wb").write(data)
open(sys.argv[2] + ".expected.folded", "w").write(expected)
PY
	pc convert -q -f etl -t folded -o "$out.folded" "$out.etl" || fail "$made: convert failed"
	same "$made: folded" "$out.expected.folded" "$out.folded"
done

# --- 3,000 processes sharing three stacks of 1,024 frames: the reader's
# memory follows the stacks, not the (stack, process) pairs ---
shared="$tmp/shared-stacks"
python3 -B - "$seeds" "$shared.etl" <<'PY' || fail "shared-stacks: etl_seeds.py could not make the trace"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import etl_seeds
open(sys.argv[2], "wb").write(etl_seeds.shared_stacks_trace(3000))
PY
checked=$((checked + 1))
[ -x "$build/tools/runstat" ] || fail "shared-stacks: $build/tools/runstat is not built"
rss=$("$build/tools/runstat" "$profconv" convert -q -f etl -t dump -o "$shared.dump" "$shared.etl")
case $rss in
*" 0") [ "$(echo "$rss" | cut -d' ' -f2)" -le 24576 ] ||
	fail "shared-stacks: peak RSS $(echo "$rss" | cut -d' ' -f2) KB for a 1 MB trace (at most 24 MB)" ;;
*) fail "shared-stacks: convert failed ($rss)" ;;
esac
pc convert -q --threads 1 -f etl -t dump -o "$shared.1.dump" "$shared.etl" ||
	fail "shared-stacks: convert --threads 1 failed"
same "shared-stacks: -t dump on two threads against one" "$shared.1.dump" "$shared.dump"
checked=$((checked + 1))
[ "$(grep -c '^sample ' "$shared.dump")" = 6000 ] ||
	fail "shared-stacks: not 6000 samples: $(grep -c '^sample ' "$shared.dump")"

# --- two ranges at once: large, a file past 4 MiB, is read on two threads ---
# (its expected outputs were checked above, from the file and from a pipe);
# the model and pprof are those of a sequential read (--threads 1), and a
# trace broken in its second range fails with the same error, exit status
# and no output: cut inside a buffer, a BufferSize out of range, a
# compressed buffer whose events do not decompress to its filled bytes.
# Standard input that starts inside a file (after another trace) is read
# from where it starts, as a pipe would be.
large="$tmp/large"
checked=$((checked + 1))
pc convert -v -f etl -t folded -o "$large.v.folded" "$large.etl" 2>"$large.v.err" ||
	fail "large: convert -v failed: $(head -3 "$large.v.err")"
grep -q ' on 2 threads' "$large.v.err" ||
	fail "large: not read as two ranges: $(grep 'read ' "$large.v.err")"
for view in dump pprof; do
	pc convert -q -f etl -t "$view" -o "$large.2.$view" "$large.etl" &&
		pc convert -q --threads 1 -f etl -t "$view" -o "$large.1.$view" "$large.etl" ||
		fail "large: -t $view failed"
	same "large: -t $view on two threads against one" "$large.1.$view" "$large.2.$view"
done
python3 -B - "$seeds" "$large.etl" "$large" <<'PY' || fail "large: cannot break it"
import struct, sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
import etl_seeds
data = open(sys.argv[2], "rb").read()
late = [b for b in etl_seeds.buffers(data) if b[0] > len(data) // 2 + 65536]
packed = [b for b in late if b[3] & 0x40][0]
plain = [b for b in late if not b[3] & 0x40][-2]
def write(case, out):
    open(sys.argv[3] + "-broken." + case + ".etl", "wb").write(bytes(out))
write("cut", data[:plain[0] + 1000])
size = bytearray(data)
struct.pack_into("<I", size, plain[0], 0x10)
write("size", size)
xpress = bytearray(data)
struct.pack_into("<I", xpress, packed[0] + 0x30, packed[2] + 4096)
write("xpress", xpress)
PY
checked=$((checked + 1))
cat "$tmp/small.etl" "$large.etl" >"$large.after-small.etl"
skip=$(wc -c <"$tmp/small.etl")
{ dd bs="$skip" skip=1 count=0 status=none && pc convert -q -f etl -t folded \
	-o "$large.offset.folded" -; } <"$large.after-small.etl" ||
	fail "large: standard input after another trace failed"
same "large: standard input after another trace" "$large.expected.folded" "$large.offset.folded"
for case in cut size xpress; do
	broken="$large-broken.$case.etl"
	checked=$((checked + 1))
	rm -f "$large.b1.folded" "$large.b2.folded"
	pc convert --threads 1 -f etl -t folded -o "$large.b1.folded" "$broken" 2>"$large.b1.err"
	rc1=$?
	pc convert -f etl -t folded -o "$large.b2.folded" "$broken" 2>"$large.b2.err"
	rc2=$?
	[ "$rc1" = 1 ] && [ "$rc2" = 1 ] || fail "large, $case: exit $rc1 (one thread) and $rc2 (two)"
	grep -q ': offset 0x[0-9a-f]*: etl: buffer: ' "$large.b2.err" ||
		fail "large, $case: not a located error: $(cat "$large.b2.err")"
	same "large, $case: the error on two threads against one" "$large.b1.err" "$large.b2.err"
	[ ! -e "$large.b2.folded" ] || fail "large, $case: an output was written"
done

# the seeds convert, and are those etl_seeds.py makes now
if [ -d "$top/tests/fuzz/corpus/etl" ]; then
	for seed in "$top"/tests/fuzz/corpus/etl/*.etl; do
		checked=$((checked + 1))
		pc convert -q -f etl -t folded -o "$tmp/seed.folded" "$seed" ||
			fail "seed $(basename "$seed") does not convert"
	done
	mkdir -p "$tmp/seeds" && python3 -B "$seeds" "$tmp/seeds" ||
		fail "etl_seeds.py could not make the seeds"
	for seed in "$tmp"/seeds/*.etl; do
		checked=$((checked + 1))
		cmp -s "$seed" "$top/tests/fuzz/corpus/etl/$(basename "$seed")" ||
			fail "seed $(basename "$seed"): tests/fuzz/corpus/etl holds another (run etl_seeds.py)"
	done
fi

# --- re-layout of PerfView's traces: every compressed buffer stored plain ---
for trace in net.4.5.2.x64 SelfDescribingSingleEvent; do
	orig="$corpus/$trace.etl"
	plain="$tmp/$trace.plain.etl"
	python3 -B "$seeds" relayout "$orig" "$plain" ||
		{ fail "$trace: etl_seeds.py could not rewrite it"; continue; }
	for view in folded dump; do
		checked=$((checked + 1))
		pc convert -q -f etl -t "$view" -o "$tmp/$trace.orig.$view" "$orig" 2>/dev/null
		pc convert -q -f etl -t "$view" -o "$tmp/$trace.plain.$view" "$plain" 2>/dev/null
		[ -f "$tmp/$trace.orig.$view" ] || fail "$trace: the original does not convert to $view"
		same "$trace re-laid out: -t $view" "$tmp/$trace.orig.$view" "$tmp/$trace.plain.$view"
	done
	pc info --events "$orig" >"$tmp/$trace.orig.events" || fail "$trace: info --events failed"
	pc info --events "$plain" >"$tmp/$trace.plain.events" ||
		fail "$trace re-laid out: info --events failed"
	head -1 "$tmp/$trace.orig.events" | grep -Eq '^buffers: [0-9]+ \([1-9][0-9]* compressed\)' ||
		fail "$trace: the original has no compressed buffer: $(head -1 "$tmp/$trace.orig.events")"
	head -1 "$tmp/$trace.orig.events" | sed 's/ ([0-9]* compressed)/ (0 compressed)/' \
		>"$tmp/$trace.expected.events"
	sed 1d "$tmp/$trace.orig.events" >>"$tmp/$trace.expected.events"
	same "$trace re-laid out: info --events" "$tmp/$trace.expected.events" "$tmp/$trace.plain.events"
done
x64="$tmp/net.4.5.2.x64"
if [ -x "${PPROF:-}" ]; then
	pc convert -q -f etl -o "$x64.orig.pb.gz" "$corpus/net.4.5.2.x64.etl" &&
		pc convert -q -f etl -o "$x64.plain.pb.gz" "$x64.plain.etl" ||
		fail "net.4.5.2.x64: convert to pprof failed"
	"$PPROF" -raw -symbolize=none "$x64.orig.pb.gz" >"$x64.orig.raw" 2>/dev/null &&
		"$PPROF" -raw -symbolize=none "$x64.plain.pb.gz" >"$x64.plain.raw" 2>/dev/null ||
		fail "net.4.5.2.x64: pprof -raw failed"
	same "net.4.5.2.x64 re-laid out: pprof -raw" "$x64.orig.raw" "$x64.plain.raw"
	[ "$(grep -c . "$x64.orig.raw")" -gt 1000 ] || fail "net.4.5.2.x64: pprof -raw is nearly empty"
else
	echo "note: no pprof (PPROF): the pprof -raw comparison is skipped"
fi
pc convert -q -f etl -t folded -o "$x64.stdin.folded" - <"$x64.plain.etl" ||
	fail "net.4.5.2.x64 re-laid out: stdin failed"
same "net.4.5.2.x64 re-laid out: folded from standard input" "$x64.orig.folded" "$x64.stdin.folded"

echo "etl_generated: $checked checks, $failures failures"
[ "$failures" -eq 0 ]
