#!/bin/sh
# tests/e2e/etl_stream.sh - an ETW trace read as a stream (--etl-stream-mib,
# src/readers/etl_stream.c: samples counted into groups as the trace goes)
# gives exactly what reading it whole gives, and falls back to reading it
# whole, saying why under -v, wherever the stream cannot show that.
#
# Traces: ../shared/corpus/etl/net.4.5.2.x64.etl (5 MB, PerfView's test
# input, Xpress-compressed) and tests/fuzz/seeds/etl_seeds.py's scenario
# paths (1.5 MB, 12,000 samples over a few call paths a thread) and reuse
# (made by hand: 12,000 samples of one thread id in two processes, then
# its rundown, dated 0, at the end), which the stream reads; and five where
# it must give way (the last four made from paths):
#   large     the scenario's random stacks (5.5 MB, 40,000 samples):
#             at the 32,768th sample about as many groups as samples counted:
#             the stream would save nothing
#   swap      two buffers of processor 0 change places: its events go
#             back in time
#   stray     a buffer at the end with a second user stack for an early
#             sample (the later stack wins), counted long before
#   rethread  a buffer at the end with a Thread rundown putting that
#             sample's thread in another process
#   named     a buffer at the end with the first Thread event of a thread
#             whose samples came before any (the whole read gives them all
#             its process)
# (reading stray, rethread and named whole gives another profile than paths:
# the stream could not have given it); large cut 5,000 bytes short, which
# gives the same located error, exit 1 and no output streamed; and two
# made by hand, read alike whole and streamed, on one thread and two:
#   maxtime   1,000 Idle samples at time 2^64-1 early in the trace (every
#             processor's last time is then the largest there is, while
#             the trace goes on: a rundown names an earlier sample's thread,
#             a user stack comes for a sample at 2^64-1)
#   order     one user stack of a sample twice, on processor 1 early in
#             the file and on processor 0 at the end of its 5 MB (two
#             ranges when read whole on two threads): the processors order
#             them, not the file, so processor 1's wins
# For each trace, on one thread and on two: `--etl-stream-mib 1` gives
# the same -t dump, folded and pprof bytes as the default (whole: these
# traces are under 64 MiB), and -v says "etl: read as a stream" with the
# sample count (paths: at most half of them held at once) or, for the
# other five, the reason it read the trace again. A pipe and --times (a
# model that keeps each sample's time) are never streamed.
# Fails (never skips) when the corpus is missing.
#
# Environment (tests/run.sh): PROFCONV, BUILD, SHARED, TMPDIR.
# Exit 0 pass, 77 skip (no profconv, no python3).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
tmp=${TMPDIR:-/tmp}
seeds="$top/tests/fuzz/seeds"
corpus=${SHARED:-$top/../shared}/corpus/etl
failures=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
[ -f "$seeds/etl_seeds.py" ] || { echo "FAIL: $seeds/etl_seeds.py is missing"; exit 1; }
[ -f "$corpus/net.4.5.2.x64.etl" ] ||
	{ echo "FAIL: the ETL corpus is missing ($corpus): it must be beside the checkout"; exit 1; }

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# --- the traces ---
cp "$corpus/net.4.5.2.x64.etl" "$tmp/x64.etl"
for name in large paths; do
	python3 -B "$seeds/etl_seeds.py" trace "$name" "$tmp/$name.etl" ||
		{ echo "FAIL: etl_seeds.py could not make $name"; exit 1; }
done
python3 -B - "$seeds" "$tmp" <<'PY' || { echo "FAIL: the fallback traces could not be made"; exit 1; }
import sys
sys.path.insert(0, sys.argv[1])
import etl_seeds as E
out = sys.argv[2]
s, tr = E.scenario("paths")
data, layout = tr.build()

def tail_buffer(cpu, time, event):
    """A data buffer of one event, laid out as the trace's own."""
    t = E.Trace(p=8, cpus=2, buffer_size=tr.buffer_size)
    t.add(cpu, time, event)
    d, lay = t.build()
    b = lay["buffers"][1]
    return d[b["offset"]:b["offset"] + b["size"]]

cpu0 = [b for b in layout["buffers"][1:] if b["cpu"] == 0]
a, b = cpu0[1], cpu0[2]
assert a["size"] == b["size"]
swapped = bytearray(data)
swapped[a["offset"]:a["offset"] + a["size"]] = data[b["offset"]:b["offset"] + b["size"]]
swapped[b["offset"]:b["offset"] + b["size"]] = data[a["offset"]:a["offset"] + a["size"]]
open(out + "/swap.etl", "wb").write(bytes(swapped))

end = tr.end_time + 10
early = next(x for x in s.samples if x["tid"] in (1201, 1301) and len(x["user"]) > 1)
stack = E.stack_payload(8, early["time"], early["pid"], early["tid"],
                        list(reversed(early["user"][:2])))
open(out + "/stray.etl", "wb").write(data + tail_buffer(0, end, E.perfinfo_event(E.H_STACK, end,
                                                                                  stack)))
other = 1300 if early["pid"] != 1300 else 1200
rundown = E.system_event(0x0504, early["tid"], other, end, E.thread_payload(8, other, early["tid"]))
open(out + "/rethread.etl", "wb").write(data + tail_buffer(1, end, rundown))

unnamed = next(x["tid"] for x in s.samples if x["tid"] and x["tid"] not in s.threads)
start = E.system_event(E.H_THREAD_START, unnamed, 1300, end, E.thread_payload(8, 1300, unnamed))
open(out + "/named.etl", "wb").write(data + tail_buffer(1, end, start))

# hand-made: process 100 (a.exe at EXE), the kernel image, untracked filler events
EXE, KBASE, T0, MAX = 0x7FF600000000, 0xFFFFF80000000000, E.HEADER_TIME + 1, (1 << 64) - 1

def made(buffer_size=65536):
    tr = E.Trace(p=8, cpus=2, buffer_size=buffer_size)
    tr.add(0, T0, E.system_event(E.H_PROCESS_DCSTART, 0, 100, T0,
                                 E.process_payload(8, 100, 4, "a.exe")))
    tr.add(0, T0, E.system_event(E.H_IMAGE_DCSTART, 0, 100, T0,
                                 E.image_payload(8, EXE, 0x100000, 100, "\\a.exe")))
    tr.add(0, T0, E.system_event(E.H_IMAGE_DCSTART, 0, 0, T0,
                                 E.image_payload(8, KBASE, 0x1000000, 0, "\\nt.exe")))
    return tr

def sample(tr, cpu, at, time, tid, ip):
    tr.add(cpu, at, E.perfinfo_event(E.H_SAMPLE, time, E.sample_payload(8, ip, tid)))

def user_stack(tr, cpu, at, time, tid, frames):
    tr.add(cpu, at, E.perfinfo_event(E.H_STACK, at, E.stack_payload(8, time, 100, tid, frames)))

def filler(tr, cpu, time, size):
    for _ in range(size // 4000):
        tr.add(cpu, time, E.system_event(0x0A0B, 0, 0, time, bytes(4000 - 0x20)))

# maxtime: 1,000 Idle samples at time 2^64-1 before the trace goes on (every
# processor's last time is then the largest there is), then the rundown of
# thread 555, whose sample came first, and a user stack for a sample at 2^64-1
t = T0 + 1000
tr = made(4096)
tr.add(0, T0, E.system_event(E.H_THREAD_DCSTART, 101, 100, T0, E.thread_payload(8, 100, 101)))
sample(tr, 0, t, t, 555, EXE + 0x1000)
sample(tr, 0, t + 5, MAX, 101, EXE + 0x3000)
for i in range(1000):
    sample(tr, i % 2, t + 10 + i, MAX, 0, KBASE + 0x100)
tr.add(0, t + 2000, E.system_event(E.H_THREAD_DCSTART, 555, 100, MAX, E.thread_payload(8, 100, 555)))
tr.add(0, t + 2000, E.perfinfo_event(E.H_STACK, MAX, E.stack_payload(8, MAX, 100, 101,
                                                                     [EXE + 0x2222, EXE + 0x2223])))
filler(tr, 1, t + 3000, 1200000)
open(out + "/maxtime.etl", "wb").write(tr.build()[0])

# reuse: thread 1000 started in process 100, 6,000 samples, started again
# in process 200, 6,000 more, and its rundown (dated 0) at the end: the
# rundown changes none of them, the stream must not give way
tr = made()
tr.add(0, T0, E.system_event(E.H_PROCESS_DCSTART, 0, 200, T0, E.process_payload(8, 200, 4, "b.exe")))
tr.add(0, T0, E.system_event(E.H_IMAGE_DCSTART, 0, 200, T0,
                             E.image_payload(8, EXE, 0x100000, 200, "\\b.exe")))
at = T0 + 50
tr.add(0, at, E.system_event(E.H_THREAD_START, 1000, 100, at, E.thread_payload(8, 100, 1000)))
for i in range(12000):
    at += 10
    pid = 100 if i < 6000 else 200
    if i == 6000:
        tr.add(i % 2, at, E.system_event(E.H_THREAD_START, 1000, 200, at,
                                         E.thread_payload(8, 200, 1000)))
    sample(tr, i % 2, at, at, 1000, EXE + 0x10 * (i % 7))
    tr.add(i % 2, at, E.perfinfo_event(E.H_STACK, at, E.stack_payload(8, at, pid, 1000,
                                                                     [EXE + 0x10 * (i % 7), EXE + 0x500])))
tr.add(0, at + 10, E.system_event(0x0504, 1000, 200, at + 10, E.thread_payload(8, 200, 1000)))
filler(tr, 0, at + 11, 1100000)
filler(tr, 1, at + 11, 10000)
open(out + "/reuse.etl", "wb").write(tr.build()[0])

# order: a thread named after its sample, whose user stack comes twice: on
# processor 1 early in the file, on processor 0 at its end, past the middle
# of a 5 MB file (read whole in two ranges on two threads): the processors
# order the two, not the file (the last wins: processor 1's)
tr = made()
tr.add(0, t + 5, E.system_event(E.H_THREAD_START, 101, 100, t + 5, E.thread_payload(8, 100, 101)))
sample(tr, 0, t, t, 101, EXE + 0x1000)
user_stack(tr, 1, t + 1, t, 101, [EXE + 0x1111, EXE + 0x1112])
filler(tr, 1, t + 2, 5 << 20)
user_stack(tr, 0, t + 10**6, t, 101, [EXE + 0x2222, EXE + 0x2223])
tr.add(1, t + 10**6 + 1, E.system_event(0x0A0B, 0, 0, t + 10**6 + 1, b"x" * 8))
open(out + "/order.etl", "wb").write(tr.build()[0])
PY

# converts TRACE THREADS: default and streamed, dump, folded and pprof
converts() {
	trace=$1 threads=$2
	for to in dump folded pprof; do
		"$profconv" convert -q --threads "$threads" -t "$to" -o "$tmp/$trace.whole.$to" \
			"$tmp/$trace.etl" || { fail "$trace: the whole read failed"; return; }
		"$profconv" convert -v --etl-stream-mib 1 --threads "$threads" -t "$to" \
			-o "$tmp/$trace.stream.$to" "$tmp/$trace.etl" 2>"$tmp/$trace.err" ||
			{ fail "$trace: the streamed read failed"; return; }
		cmp -s "$tmp/$trace.whole.$to" "$tmp/$trace.stream.$to" ||
			fail "$trace, $threads thread(s): -t $to differs when streamed"
	done
}

samples() {
	"$profconv" convert -q -t folded -o - "$1" | awk '{ n += $NF } END { print n }'
}

for threads in 1 2; do
	for trace in x64 paths reuse; do
		converts "$trace" "$threads"
		n=$(samples "$tmp/$trace.etl")
		grep -q "^profconv: etl: read as a stream: $n samples counted in [0-9]* groups, at most [0-9]* held at once$" \
			"$tmp/$trace.err" || { fail "$trace: -v does not say it was streamed:"; cat "$tmp/$trace.err"; }
	done
	held=$(sed -n 's/.*at most \([0-9]*\) held at once$/\1/p' "$tmp/paths.err")
	[ -n "$held" ] && [ "$held" -lt 6000 ] || fail "paths, $threads thread(s): ${held:-?} of 12000 samples held at once"
	for trace in swap stray rethread named large; do
		converts "$trace" "$threads"
		case $trace in
		swap) why="a processor's events go back in time" ;;
		stray) why="a stack fragment comes after its sample was counted" ;;
		rethread | named) why="a Thread event gives samples already counted another process" ;;
		large) why="its samples hardly repeat, so that counting them as they come saves no memory" ;;
		esac
		grep -q "^profconv: etl: $why: the trace is read again, whole$" "$tmp/$trace.err" ||
			{ fail "$trace: -v does not say why the stream gave way:"; cat "$tmp/$trace.err"; }
	done
done
cmp -s "$tmp/paths.whole.folded" "$tmp/stray.whole.folded" && fail "stray: reads as paths does"
cmp -s "$tmp/paths.whole.folded" "$tmp/rethread.whole.folded" && fail "rethread: reads as paths does"
cmp -s "$tmp/paths.whole.dump" "$tmp/named.whole.dump" && fail "named: reads as paths does"
cmp -s "$tmp/paths.whole.folded" "$tmp/swap.whole.folded" || fail "swap: does not read as paths does"

# maxtime, order: read whole and streamed, on two threads and one, alike
for trace in maxtime order; do
	for how in "--threads 1" "--threads 2" "--etl-stream-mib 1 --threads 1" \
		"--etl-stream-mib 1 --threads 2"; do
		# shellcheck disable=SC2086
		"$profconv" convert -q $how -t dump -o "$tmp/$trace.$(echo "$how" | tr -dc '0-9')" \
			"$tmp/$trace.etl" || fail "$trace ($how): the read failed"
	done
	for got in "$tmp/$trace.2" "$tmp/$trace.11" "$tmp/$trace.12"; do
		cmp -s "$tmp/$trace.1" "$got" || fail "$trace: $got differs from the whole read on one thread"
	done
done
grep -q '"a.exe"+0x1111' "$tmp/order.1" || fail "order: the user stack of processor 1 does not win"

# a trace cut short: the same error and exit status streamed, no output
size=$(wc -c <"$tmp/large.etl")
head -c $((size - 5000)) "$tmp/large.etl" >"$tmp/cut.etl"
"$profconv" convert -q -t folded -o "$tmp/cut.whole" "$tmp/cut.etl" 2>"$tmp/cut.whole.err"
whole=$?
"$profconv" convert -q --etl-stream-mib 1 -t folded -o "$tmp/cut.stream" "$tmp/cut.etl" \
	2>"$tmp/cut.stream.err"
streamed=$?
[ "$whole" -eq 1 ] && [ "$streamed" -eq 1 ] || fail "cut: exit $whole whole, $streamed streamed (1 expected)"
cmp -s "$tmp/cut.whole.err" "$tmp/cut.stream.err" ||
	{ fail "cut: another error streamed:"; cat "$tmp/cut.whole.err" "$tmp/cut.stream.err"; }
grep -q "offset 0x" "$tmp/cut.stream.err" || fail "cut: the error is not located"
[ -e "$tmp/cut.stream" ] && fail "cut: an output was left"

# a pipe and --times: not streamed, the same profile
cat "$tmp/paths.etl" | "$profconv" convert -v --etl-stream-mib 1 -f etl -t folded \
	-o "$tmp/stdin.folded" - 2>"$tmp/stdin.err" || fail "paths from a pipe failed"
cmp -s "$tmp/paths.whole.folded" "$tmp/stdin.folded" || fail "paths from a pipe differs"
grep -q "as a stream" "$tmp/stdin.err" && fail "a pipe was streamed"
"$profconv" convert -v --etl-stream-mib 1 --times -t folded -o "$tmp/times.folded" \
	"$tmp/paths.etl" 2>"$tmp/times.err" || fail "paths with --times failed"
cmp -s "$tmp/paths.whole.folded" "$tmp/times.folded" || fail "paths with --times differs"
grep -q "as a stream" "$tmp/times.err" && fail "a model keeping times was streamed"

[ "$failures" -eq 0 ] || exit 1
echo "etl_stream: 3 traces streamed as read whole, 5 read again whole saying why, on 1 and 2 threads"
