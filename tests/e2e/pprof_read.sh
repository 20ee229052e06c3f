#!/bin/sh
# tests/e2e/pprof_read.sh - the pprof reader (issue 19, part 1): pprof in,
# pprof out, and every view of the real pprof the same.
#
# The profiles:
#   - Go's runtime/pprof: a Go program written here (the standard library
#     only, built offline in GOPATH mode with its caches under TMPDIR)
#     burns CPU in two named functions (one of them through an inlined
#     helper, under pprof.Do labels worker=alpha and worker=beta) and
#     allocates, writing a CPU and a heap profile; it runs twice;
#   - `pprof -proto` merges of the two CPU and of the two heap profiles;
#   - profconv's own pprof output of samples/ (SPT, SPT with PE images,
#     perf script captures with inlined frames and two events, a Sampler
#     trace, Visual Studio reports with call arcs), then read back.
# For each, `profconv convert -o rt.pb.gz IN` (detected, no -f), and:
#   - `pprof -raw` of IN and of rt.pb.gz are equal once normalized (below);
#   - `pprof -top -sample_index=T` is byte for byte equal for every sample
#     type T (and plain `pprof -top`);
#   - rt.pb.gz read again gives rt.pb.gz again, byte for byte;
#   - pprof -> folded with --event T: the total of the folded counts is the
#     total of T in `pprof -raw`, for every sample type T.
# The normalization of `pprof -raw` (normalize.py): pprof prints a profile
# as its Merge rebuilt it, so location ids, and mapping ids but the first,
# are numbered in the order that samples first use them, and samples
# appear in the input's order, which profconv does not keep (the model
# sorts samples by content). So each location id is replaced by what the
# location is (address, its mapping's line, its lines), each mapping id
# in a location by that mapping's line, samples are sorted (and equal ones
# added up, as pprof's own Merge does), locations are listed sorted and
# mappings in order after the first (mapping 1, the main binary, stays
# first). Everything else (comments, period type, period, time, duration,
# sample types and [dflt], values, labels, addresses, function names,
# system names, files, lines, start lines, mapping ranges, files, build
# ids and flags) is compared as pprof prints it. pprof runs with
# -symbolize=none, so that nothing depends on the binaries found here.
# Also: the heap profile gunzipped (raw protobuf) and split into two gzip
# members reads to the same output bytes; --event picks the sample type
# (pprof's [dflt] moves to it, folded totals follow it) and an unknown
# name is a clear error listing the sample types; `profconv formats`
# lists the reader.
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u

skip() {
	echo "SKIPPED: $*"
	exit 77
}

[ -x "${PROFCONV:-}" ] || skip "profconv is not built (${PROFCONV:-PROFCONV unset})"
[ -x "${PPROF:-}" ] || skip "pprof is not built (${PPROF:-PPROF unset}); run: make build/tools/pprof"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
command -v go >/dev/null 2>&1 || skip "the Go compiler is missing (apt-get install golang-go)"
command -v gzip >/dev/null 2>&1 || skip "gzip is missing"
"$PROFCONV" formats | grep -q '^pprof  *read' || skip "this profconv has no pprof reader"

# pprof and go must write nothing outside the scratch directory.
export HOME="$TMPDIR" PPROF_BINARY_PATH="$TMPDIR/no-binaries" PPROF_TMPDIR="$TMPDIR"
export GOPATH="$TMPDIR/gopath" GOCACHE="$TMPDIR/gocache" GO111MODULE=off GOPROXY=off GOFLAGS=
failures=0
checked=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

cat >"$TMPDIR/normalize.py" <<'EOF'
"""pprof -raw with ids replaced by content (see pprof_read.sh)."""
import re
import sys

SAMPLE = re.compile(r"^((?: +-?\d+)+): ((?:\d+ )*)$")
LOCATION = re.compile(r"^ *(\d+): (0x[0-9a-f]+) (?:M=(\d+) )?(\[F\] )?(.*)$")
MAPPING = re.compile(r"^(\d+): (.*)$")


def parse(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    at = 0
    head = []
    while at < len(lines) and lines[at] != "Samples:":
        head.append(lines[at])
        at += 1
    if at + 1 >= len(lines):
        raise SystemExit("no Samples: section")
    head += lines[at:at + 2]  # "Samples:" and the sample types
    at += 2
    samples = []
    while at < len(lines) and lines[at] != "Locations":
        m = SAMPLE.match(lines[at])
        if not m:
            raise SystemExit("not a sample line: %r" % lines[at])
        at += 1
        labels = []
        while at < len(lines) and lines[at].startswith(" " * 16) and not SAMPLE.match(lines[at]):
            labels.append(lines[at].strip())
            at += 1
        samples.append(([int(v) for v in m.group(1).split()], m.group(2).split(), labels))
    at += 1
    locations = {}
    last = None
    while at < len(lines) and lines[at] != "Mappings":
        m = LOCATION.match(lines[at])
        if m and not lines[at].startswith(" " * 13):
            last = m.group(1)
            locations[last] = (m.group(2), m.group(3), m.group(4) or "", [m.group(5)])
        elif last is not None and lines[at].startswith(" " * 13):
            locations[last][3].append(lines[at].strip())
        else:
            raise SystemExit("not a location line: %r" % lines[at])
        at += 1
    mappings = []
    for line in lines[at + 1:]:
        m = MAPPING.match(line)
        if not m:
            raise SystemExit("not a mapping line: %r" % line)
        mappings.append((m.group(1), m.group(2)))
    return head, samples, locations, mappings


def normalize(text):
    head, samples, locations, mappings = parse(text)
    mapping_text = dict(mappings)

    def location(lid):
        address, mid, folded, texts = locations[lid]
        where = "M=[%s] " % mapping_text[mid] if mid else ""
        return "%s %s%s%s" % (address, where, folded, " | ".join(t for t in texts if t))

    merged = {}
    for values, ids, labels in samples:
        key = (tuple(location(i) for i in ids), tuple(labels))
        old = merged.get(key)
        merged[key] = values if old is None else [a + b for a, b in zip(old, values)]
    out = list(head)
    for key in sorted(merged):
        out.append(" ".join(str(v) for v in merged[key]) + ": " + " ; ".join(key[0]))
        out.extend("    " + label for label in key[1])
    out.append("Locations")
    out.extend(sorted(set(location(i) for i in locations)))
    out.append("Mappings")
    if mappings:
        out.append(mappings[0][1])
        out.extend(sorted(text for _, text in mappings[1:]))
    return "\n".join(out) + "\n"


def totals(text):
    """The sample types ("type/unit") and each one's total, one per line."""
    head, samples, _, _ = parse(text)
    # "type/unit[dflt]": a type may hold '/' (perf's "page-faults/period=64/"), a unit not
    types = [t.replace("[dflt]", "").rsplit("/", 1)[0] for t in head[-1].split()]
    sums = [0] * len(types)
    for values, _, _ in samples:
        sums = [a + b for a, b in zip(sums, values)]
    return "".join("%s %d\n" % (t, s) for t, s in zip(types, sums))


if sys.argv[1] == "normalize":
    sys.stdout.write(normalize(open(sys.argv[2]).read()))
else:
    sys.stdout.write(totals(open(sys.argv[2]).read()))
EOF

# ---- Go's runtime/pprof ----

mkdir -p "$TMPDIR/go/src/burn" "$GOPATH" "$GOCACHE"
cat >"$TMPDIR/go/src/burn/main.go" <<'EOF'
// Burns CPU in burnAlpha (through the inlined mix) and burnBeta under
// pprof.Do labels, then allocates; writes a CPU and a heap profile.
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink [][]byte

func mix(x, i uint64) uint64 { return x*6364136223846793005 + i }

//go:noinline
func burnAlpha(n int) uint64 {
	var x uint64 = 1
	for i := 0; i < n; i++ {
		x = mix(x, uint64(i))
	}
	return x
}

//go:noinline
func burnBeta(n int) uint64 {
	var x uint64 = 7
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func allocate(n int) {
	for i := 0; i < n; i++ {
		sink = append(sink, make([]byte, 4096+i%512))
	}
}

func main() {
	cpu, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		panic(err)
	}
	var total uint64
	deadline := time.Now().Add(1200 * time.Millisecond)
	for time.Now().Before(deadline) {
		pprof.Do(context.Background(), pprof.Labels("worker", "alpha"), func(context.Context) {
			total += burnAlpha(3000000)
		})
		pprof.Do(context.Background(), pprof.Labels("worker", "beta"), func(context.Context) {
			total += burnBeta(2000000)
		})
	}
	pprof.StopCPUProfile()
	cpu.Close()
	runtime.MemProfileRate = 4096
	allocate(3000)
	runtime.GC()
	heap, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	if err := pprof.WriteHeapProfile(heap); err != nil {
		panic(err)
	}
	heap.Close()
	if total == 42 {
		println(total)
	}
}
EOF
go_dir="$TMPDIR/go"
if ! (cd "$go_dir/src/burn" && GOPATH="$go_dir" go build -o "$go_dir/burn" . ) >"$TMPDIR/go.err" 2>&1; then
	cat "$TMPDIR/go.err"
	fail "go build of the test program failed"
	exit 1
fi
for run in 1 2; do
	"$go_dir/burn" "$TMPDIR/cpu$run.pb.gz" "$TMPDIR/heap$run.pb.gz" ||
		fail "the Go program failed (run $run)"
done
"$PPROF" -proto -symbolize=none -output="$TMPDIR/cpu-merged.pb.gz" \
	"$TMPDIR/cpu1.pb.gz" "$TMPDIR/cpu2.pb.gz" 2>"$TMPDIR/merge.err" ||
	fail "pprof -proto could not merge the CPU profiles: $(cat "$TMPDIR/merge.err")"
"$PPROF" -proto -symbolize=none -output="$TMPDIR/heap-merged.pb.gz" \
	"$TMPDIR/heap1.pb.gz" "$TMPDIR/heap2.pb.gz" 2>"$TMPDIR/merge.err" ||
	fail "pprof -proto could not merge the heap profiles: $(cat "$TMPDIR/merge.err")"

# ---- the round trip ----

pprof_raw() { # FILE OUT
	"$PPROF" -raw -symbolize=none "$1" >"$2" 2>"$2.err"
}

# sample_types RAW: the sample type names, one per line
sample_types() {
	python3 "$TMPDIR/normalize.py" totals "$1" | cut -d' ' -f1
}

# round_trip NAME FILE [WANT]: the checks above; WANT is a grep -E pattern
# that the original's pprof -raw must match (what the profile is known to hold).
round_trip() {
	name=$1 in=$2 want=${3:-}
	dir="$TMPDIR/rt/$name"
	mkdir -p "$dir"
	checked=$((checked + 1))
	if ! "$PROFCONV" convert -o "$dir/rt.pb.gz" "$in" 2>"$dir/convert.err"; then
		fail "$name: profconv could not read it: $(head -3 "$dir/convert.err")"
		return
	fi
	[ -s "$dir/convert.err" ] && fail "$name: profconv warned: $(head -3 "$dir/convert.err")"
	if ! pprof_raw "$in" "$dir/in.raw" || ! pprof_raw "$dir/rt.pb.gz" "$dir/rt.raw"; then
		fail "$name: pprof -raw failed: $(cat "$dir/in.raw.err" "$dir/rt.raw.err" | head -3)"
		return
	fi
	if [ -n "$want" ] && ! grep -Eq -e "$want" "$dir/in.raw"; then
		fail "$name: the original lacks /$want/ (the test's premise)"
	fi
	python3 "$TMPDIR/normalize.py" normalize "$dir/in.raw" >"$dir/in.norm" &&
		python3 "$TMPDIR/normalize.py" normalize "$dir/rt.raw" >"$dir/rt.norm" ||
		{ fail "$name: cannot normalize pprof -raw"; return; }
	if ! cmp -s "$dir/in.norm" "$dir/rt.norm"; then
		fail "$name: pprof -raw differs after the round trip:"
		diff "$dir/in.norm" "$dir/rt.norm" | head -12
	fi
	"$PPROF" -top -symbolize=none "$in" >"$dir/in.top" 2>&1
	"$PPROF" -top -symbolize=none "$dir/rt.pb.gz" >"$dir/rt.top" 2>&1
	cmp -s "$dir/in.top" "$dir/rt.top" ||
		{ fail "$name: pprof -top differs:"; diff "$dir/in.top" "$dir/rt.top" | head -8; }
	python3 "$TMPDIR/normalize.py" totals "$dir/in.raw" >"$dir/totals"
	index=0
	while read -r type total; do
		index=$((index + 1))
		"$PPROF" -top -symbolize=none -sample_index="$type" "$in" >"$dir/in.top" 2>&1
		"$PPROF" -top -symbolize=none -sample_index="$type" "$dir/rt.pb.gz" >"$dir/rt.top" 2>&1
		cmp -s "$dir/in.top" "$dir/rt.top" ||
			{ fail "$name: pprof -top -sample_index=$type differs:"; diff "$dir/in.top" "$dir/rt.top" | head -8; }
		if ! "$PROFCONV" convert -t folded --event "$type" -o "$dir/$index.folded" "$in" \
			2>"$dir/folded.err"; then
			fail "$name: pprof -> folded --event $type failed: $(head -2 "$dir/folded.err")"
			continue
		fi
		# exact integers (awk's stop at 2^31-1 or 2^53)
		sum=$(python3 -c 'import sys; print(sum(int(l.split()[-1]) for l in open(sys.argv[1]) if l.strip()))' \
			"$dir/$index.folded")
		[ "$sum" = "$total" ] ||
			fail "$name: folded --event $type totals $sum, pprof -raw $total"
	done <"$dir/totals"
	"$PROFCONV" convert -o "$dir/rt2.pb.gz" "$dir/rt.pb.gz" 2>/dev/null &&
		cmp -s "$dir/rt.pb.gz" "$dir/rt2.pb.gz" ||
		fail "$name: profconv's output read again does not give it again"
}

round_trip go-cpu1 "$TMPDIR/cpu1.pb.gz" 'main\.burnAlpha'
round_trip go-cpu2 "$TMPDIR/cpu2.pb.gz" 'worker:\[(alpha|beta)\]'
round_trip go-heap1 "$TMPDIR/heap1.pb.gz" 'bytes:\[[0-9]+\]'
round_trip go-heap2 "$TMPDIR/heap2.pb.gz" 'inuse_space/bytes'
round_trip go-cpu-merged "$TMPDIR/cpu-merged.pb.gz" 'main\.burnBeta'
round_trip go-heap-merged "$TMPDIR/heap-merged.pb.gz" 'main\.allocate'
# the inlined helper: one location of two lines, as Go writes inlining
grep -B1 '^             main\.burnAlpha ' "$TMPDIR/rt/go-cpu-merged/in.raw" 2>/dev/null |
	grep -q ' main\.mix ' || fail "no location of main.mix inlined into main.burnAlpha"

# ---- profconv's own pprof output ----

own=0
for input in demo.spt demo-pe.spt multi.spt perf/fp.perf.txt perf/dwarf.perf.txt \
	perf/twoevents.perf.txt perf/buildid.perf.txt sampler/many.trace \
	vsperf/cc_multiprocess.csv vsperf/calltree.xml; do
	[ -f "$SAMPLES/$input" ] || { echo "note: $SAMPLES/$input is missing"; continue; }
	name=own-$(echo "$input" | tr '/.' '--')
	if ! "$PROFCONV" convert -o "$TMPDIR/$name.pb.gz" "$SAMPLES/$input" 2>"$TMPDIR/own.err"; then
		fail "$input -> pprof failed: $(head -2 "$TMPDIR/own.err")"
		continue
	fi
	round_trip "$name" "$TMPDIR/$name.pb.gz"
	own=$((own + 1))
done
[ "$own" -ge 8 ] || fail "only $own of profconv's own profiles were checked"
grep -q '^Comment: converted by profconv' "$TMPDIR/rt/own-demo-spt/rt.raw" ||
	fail "the round trip of profconv's own profile lost its comment"
[ "$(grep -c '^Comment: converted by profconv' "$TMPDIR/rt/own-demo-spt/rt.raw")" -eq 1 ] ||
	fail "the round trip of profconv's own profile added a comment of its own"
grep -q ' M=' "$TMPDIR/rt/own-perf-dwarf-perf-txt/rt.raw" &&
	grep -q '^             ' "$TMPDIR/rt/own-perf-dwarf-perf-txt/rt.raw" ||
	fail "the perf capture with inlined frames has no location of several lines"

# ---- raw protobuf and several gzip members ----

heap=$TMPDIR/heap1.pb.gz
gzip -dc "$heap" >"$TMPDIR/heap1.pb"
"$PROFCONV" convert -o "$TMPDIR/from-gz.pb.gz" "$heap" 2>/dev/null
if "$PROFCONV" convert -o "$TMPDIR/from-raw.pb.gz" "$TMPDIR/heap1.pb" 2>"$TMPDIR/raw.err"; then
	cmp -s "$TMPDIR/from-gz.pb.gz" "$TMPDIR/from-raw.pb.gz" ||
		fail "raw protobuf reads otherwise than the same gzipped"
else
	fail "raw protobuf (detected) was not read: $(head -2 "$TMPDIR/raw.err")"
fi
size=$(wc -c <"$TMPDIR/heap1.pb")
head -c $((size / 2)) "$TMPDIR/heap1.pb" | gzip -c >"$TMPDIR/members.pb.gz"
tail -c $((size - size / 2)) "$TMPDIR/heap1.pb" | gzip -c >>"$TMPDIR/members.pb.gz"
if "$PROFCONV" convert -o "$TMPDIR/from-members.pb.gz" "$TMPDIR/members.pb.gz" 2>"$TMPDIR/m.err"; then
	cmp -s "$TMPDIR/from-gz.pb.gz" "$TMPDIR/from-members.pb.gz" ||
		fail "two gzip members read otherwise than one"
else
	fail "two gzip members were not read: $(head -2 "$TMPDIR/m.err")"
fi
cat "$heap" | "$PROFCONV" convert -o "$TMPDIR/from-stdin.pb.gz" - 2>/dev/null &&
	cmp -s "$TMPDIR/from-gz.pb.gz" "$TMPDIR/from-stdin.pb.gz" ||
	fail "a profile from standard input reads otherwise than from its file"

# ---- --event ----

"$PROFCONV" convert --event alloc_space -o "$TMPDIR/event.pb.gz" "$heap" 2>/dev/null ||
	fail "--event alloc_space failed"
pprof_raw "$TMPDIR/event.pb.gz" "$TMPDIR/event.raw"
grep -q '^alloc_objects/count alloc_space/bytes\[dflt\] inuse_objects/count inuse_space/bytes$' \
	"$TMPDIR/event.raw" || fail "--event alloc_space did not make it the default: $(sed -n '/^Samples:/{n;p}' "$TMPDIR/event.raw")"
"$PROFCONV" report --event alloc_objects "$heap" >"$TMPDIR/report.txt" 2>&1 ||
	fail "report --event alloc_objects failed: $(head -2 "$TMPDIR/report.txt")"
grep -q 'alloc_objects' "$TMPDIR/report.txt" || fail "report --event alloc_objects does not say what it counts"
if "$PROFCONV" convert -t folded --event nope -o "$TMPDIR/nope.folded" "$heap" 2>"$TMPDIR/nope.err"; then
	fail "--event nope was accepted"
else
	grep -q "no sample type is named 'nope'.*'alloc_objects', 'alloc_space', 'inuse_objects', 'inuse_space'" \
		"$TMPDIR/nope.err" || fail "--event nope: unclear error: $(cat "$TMPDIR/nope.err")"
	[ ! -e "$TMPDIR/nope.folded" ] || fail "--event nope left an output file"
fi

echo "checked $checked round trips ($own of profconv's own profiles), $failures failures"
[ "$failures" -eq 0 ]
