#!/bin/sh
# tests/e2e/perf_threads.sh - perf script text of 4 MB or more with
# callchains, or of one line per sample, is read in two halves at once
# (perf_script_split.c), and the result is always that of reading it in
# one go.
#
# Inputs: perfgen's texts (6 MB; tid only, and pid/tid) and copies of them
# changed right after the cut (the first sample boundary past the middle,
# found here as the reader finds it) in the ways the second half must not
# be read alone: a kernel MMAP record in the second half (it widens the
# first half's modules too), a sample without an event while the header
# names one, a tid-only sample whose pid the first half's samples learnt,
# a '#' header line inside the first sample of the second half (also with
# a frame line without its dso in the sample after: the first reader's
# input ended at the cut, which is no line cut short), an Intel PT branch
# sample, counts that pass 2^63-1 only when both halves are added, a bad
# line (with and without --skip-bad) in the second half, bad lines in both
# halves, and a last frame line cut short without its dso. For each:
#   - `convert` to dump, pprof and speedscope gives the same bytes, the
#     same stderr and the same exit status with two threads and with
#     --threads 1 (an error: the same file:line:col message, no output);
#   - -v says "on 2 threads" exactly for the texts whose halves were read
#     at once, when the machine has two CPUs: the plain ones, and those
#     with a process's MMAP2 record in the first half (the second reader
#     applies the first half's side records first: tid 2401 is then pid
#     2401 in both) or in the second.
#
# The same for a real recording of this machine (perf record -g of
# profconv and python at work; perf script plain, and with
# --show-mmap-events --show-task-events: mappings and task records in both
# halves), read in two halves.
#
# A text read after another input (one model for both) is not cut: the
# earlier input's mappings and columns count in its second half.
#
# Environment (tests/run.sh): PROFCONV, BUILD, TMPDIR. Exit 0 pass, 77 skip.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
perfgen="$build/tools/perfgen"
tmp=${TMPDIR:-/tmp}
failures=0 checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "${PROFCONV:-}" ] || skip "profconv is not built"
[ -x "$perfgen" ] || skip "perfgen is not built ($perfgen)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

"$perfgen" --random 11 --bytes 6000000 "$tmp/plain.txt" &&
"$perfgen" --random 12 --bytes 6000000 --pid "$tmp/pid.txt" || exit 1

python3 - "$tmp" <<'PY' || exit 1
import os, re, sys

tmp = sys.argv[1]

def cut_of(data):
    """The reader's cut: the first line past the middle after a blank line
    that starts with neither a blank nor '#'."""
    middle = len(data) // 2
    i = middle
    while True:
        i = data.index(b"\n", i)
        nxt = i + 1 + (data[i + 1:i + 2] == b"\r")
        if data[nxt:nxt + 1] == b"\n" and data[nxt + 1:nxt + 2] not in (b" ", b"\t", b"#", b"\r", b"\n", b""):
            return nxt + 1
        i += 1

def write(name, data):
    with open(os.path.join(tmp, name + ".txt"), "wb") as f:
        f.write(data)

plain = open(os.path.join(tmp, "plain.txt"), "rb").read()
pid = open(os.path.join(tmp, "pid.txt"), "rb").read()
cut = cut_of(plain)
pcut = cut_of(pid)
line_end = plain.index(b"\n", cut) + 1          # after the header at the cut
frame_end = plain.index(b"\n", line_end) + 1    # after its first frame line
head_end = plain.index(b"\n\n") + 2             # the header block and the first sample
# the kernel's mapping widens the kallsyms modules of every process, the first half's too
# (pid.txt's samples print pid/tid: a module per process)
kernel = (b"swapper 0 [000] 1.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1000000) "
          b"@ 0xffffffff81000000]: x [kernel.kallsyms]_text\n")
solo = (b"solo 9999/9999 [000] 81234.500000:     250000   cpu-clock: \n"
        b"\tffffffff81000100 do_solo+0x0 ([kernel.kallsyms])\n\n")  # a process of the first half only
phead = pid.index(b"\n\n") + 2
write("mmap-second", pid[:phead] + solo + pid[phead:pcut] + kernel + pid[pcut:])
# node's mapping: tid 2401 is pid 2401 from then on, and /usr/bin/node has a range there
node = (b"node 2401/2401 1.000000: PERF_RECORD_MMAP2 2401/2401: [0x0(0x100000) @ 0 fd:01 1 0]: "
        b"r-xp /usr/bin/node\n")
write("mmap-first", plain[:head_end] + node + plain[head_end:])
write("mmap-both", plain[:head_end] + node + plain[head_end:cut] + node.replace(b"0x0(", b"0x200000(")
      + plain[cut:])
# the header names one event; a sample past the cut prints none
one_event = re.sub(rb"# event : name = page-faults[^\n]*\n", b"", plain[:cut], count=1)
header = plain[cut:line_end]
no_event = re.sub(rb"\s+\S+:\s*\n$", b"\n", re.sub(rb"\d+\s+(?=\S+:\s*\n$)", b"", header))
write("default-event", one_event + no_event + plain[line_end:])
# pid.txt prints pid/tid: the sample at the cut prints its tid only
pheader = pid[pcut:pid.index(b"\n", pcut) + 1]
tid_only = re.sub(rb" (\d+)/(\d+) ", rb" \2 ", pheader, count=1)
write("tid-only", pid[:pcut] + tid_only + pid[pcut + len(pheader):])
write("comment-inside", plain[:frame_end] + b"# cmdline : perf record -g\n" + plain[frame_end:])
# falls back (the comment), then reads on past the cut: a frame line without its dso there is
# no line cut short (the first reader's input ended at the cut, not the text)
later = plain.index(b"\n\n", frame_end) + 2
later = plain.index(b"\n", later) + 1
write("no-dso-after-cut", plain[:frame_end] + b"# cmdline : perf record -g\n" + plain[frame_end:later]
      + b"\t          401000 main+0x0\r\n" + plain[later:])  # CRLF: read line by line
pt = (b"prog 1000 [000] 90000.000000:          1 branches:   401000 main+0x0 (/bin/prog) "
      b"=>           401010 main+0x10 (/bin/prog)\n\n")
write("pt-branch", plain[:cut] + pt + plain[cut:])
big = b"4611686018427387904"                       # 2^62: two of them pass 2^63-1
over = (b"prog 5 [000] 1.000000: " + big + b" cpu-clock:\n\t401000 huge+0x0 (/bin/prog)\n\n")
write("overflow", plain[:head_end] + over + plain[head_end:cut] + over + plain[cut:])
bad = b"\tnot-an-address here\n"
write("bad-second", plain[:frame_end] + bad + plain[frame_end:])
write("bad-both", plain[:head_end - 1] + bad + plain[head_end - 1:frame_end] + bad + plain[frame_end:])
body = plain.rstrip(b"\n")
write("cut-short", body[:body.rindex(b" (")])

# one line per sample (-F ip,sym,brstack: no callchains, no blank lines),
# cut at the first line boundary past the middle, as the reader cuts it
def one_line_cut(data):
    i = data.index(b"\n", len(data) // 2)
    while data[i + 1:i + 2] in (b" ", b"\t", b"#", b"\r", b"\n"):
        i = data.index(b"\n", i + 1)
    return i + 1

lines = [b"# event : name = cycles:u, , id = { 1 }\n",
         b"prog 4242 99.000000: PERF_RECORD_MMAP2 4242/4242: [0x400000(0x100000) @ 0 fd:01 1 0]: "
         b"r-xp /usr/bin/prog\n"]
size, n = 0, 0
while size < 6000000:
    n += 1
    ip = 0x400000 + (n * 7919 % 65536) * 4
    pairs = b" ".join(b"0x%x(/usr/bin/prog)/0x%x(/usr/bin/prog)/P/-/-/%d/"
                      % (0x400000 + (n * k * 104729 % 32768) * 4, 0x400000 + (n * k * 1299709 % 32768) * 4,
                         1 + n * k % 29) for k in range(1, 5))
    line = b"prog 4242 %d.%06d: 250000 cycles:u: %x fn_%d+0x10 (/usr/bin/prog)  %s\n" % (
        100 + n // 1000000, n % 1000000, ip, n % 5000, pairs)
    lines.append(line)
    size += len(line)
lbr = b"".join(lines)
write("one-line", lbr)
ocut = one_line_cut(lbr)
write("one-line-bad", lbr[:ocut] + b"garbage here\n" + lbr[ocut:])
# a header without ip, frames or branches waits for a callchain: not a sample complete at the cut
# (padded with blanks past a line's length, so that it covers the middle
# and ends at the cut)
bare = b"prog 4242 99.500000: 250000 cycles:u:" + b" " * 600 + b"\n"
middle = (len(lbr) + len(bare)) // 2
at = lbr.rindex(b"\n", 0, middle) + 1  # the line start at or before the middle
bared = lbr[:at] + bare + lbr[at:]
if one_line_cut(bared) != at + len(bare):
    sys.exit("one-line-bare: the bare header is not the last line before the cut")
write("one-line-bare", bared)
PY

# check NAME EXPECT_SPLIT [OPTIONS...]: one text (after the inputs in
# $before, when set), two threads against one
before=
check() {
	name=$1 split=$2
	shift 2
	checked=$((checked + 1))
	for t in dump pprof speedscope; do
		for n in 1 2; do
			rm -rf "$tmp/o$n" && mkdir -p "$tmp/o$n"
			# the same output name in both: messages and JSON name it
			(cd "$tmp/o$n" && "$PROFCONV" convert -v --threads $n "$@" -t $t -o out \
				$before "$tmp/$name.txt" > stdout 2> stderr; echo $? > status)
			# -v's timing line differs from run to run; keep what it counts
			sed -i 's/ in [0-9.]* s (read .*//' "$tmp/o$n/stderr"
		done
		if ! cmp -s "$tmp/o1/status" "$tmp/o2/status" || ! cmp -s "$tmp/o1/stderr" "$tmp/o2/stderr" ||
		   ! cmp -s "$tmp/o1/stdout" "$tmp/o2/stdout"; then
			fail "$name -t $t $*: exit status or messages differ between one and two threads:"
			diff "$tmp/o1/stderr" "$tmp/o2/stderr" | head -8
			continue
		fi
		if [ -e "$tmp/o1/out" ] || [ -e "$tmp/o2/out" ]; then
			cmp -s "$tmp/o1/out" "$tmp/o2/out" ||
				fail "$name -t $t $*: the output differs between one and two threads"
		fi
	done
	[ "$(nproc)" -ge 2 ] || return 0
	"$PROFCONV" convert -v "$@" -t dump -o "$tmp/v.dump" $before "$tmp/$name.txt" 2> "$tmp/v.err"
	if grep -q " on 2 threads" "$tmp/v.err"; then
		[ "$split" = yes ] || fail "$name: read in two halves, but the second needed the first's state"
	else
		[ "$split" = no ] || fail "$name: not read in two halves (-v: $(tail -1 "$tmp/v.err"))"
	fi
}

check plain yes
check pid yes
check mmap-second no
check mmap-first yes
check mmap-both yes
check default-event no
check tid-only no
check comment-inside no
check no-dso-after-cut no
# after another input, whose mapping gives /usr/bin/node a range in pid
# 2401's space: the model is not new, so the text is read on one thread
printf 'node 2401/2401 0.5: PERF_RECORD_MMAP2 2401/2401: [0x0(0x100000) @ 0 fd:01 1 0]: r-xp /usr/bin/node\n\nnode 2401/2401 0.6: 1 cpu-clock:\n\t69ab0 f+0x0 (/usr/bin/node)\n\n' > "$tmp/first.txt"
before=$tmp/first.txt
check pid no
before=
check pt-branch no
check overflow no
check bad-second no
check bad-second no --skip-bad
check bad-both no
check bad-both no --skip-bad
check cut-short no
check one-line yes
check one-line-bad no
check one-line-bad no --skip-bad
check one-line-bare no

# a real recording (perf record -g of profconv and python at work), printed
# plain and with --show-mmap-events --show-task-events: read in two halves,
# the same bytes as on one thread
if command -v perf > /dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
	work=$tmp/work.perf.txt
	perf record -q -g -e cpu-clock -F 10000 -o "$tmp/rec.data" -- sh -c \
		"for i in 1 2 3 4 5 6 7 8 9 10; do '$PROFCONV' convert -q -t folded -o /dev/null '$tmp/plain.txt'; done
		 python3 -c 'import json; [json.dumps(list(range(20000))) for _ in range(600)]'" \
		> /dev/null 2>&1 || fail "perf record"
	perf script -i "$tmp/rec.data" > "$tmp/recorded.txt" 2> /dev/null &&
	perf script -i "$tmp/rec.data" --show-mmap-events --show-task-events \
		> "$tmp/recorded-mmap.txt" 2> /dev/null || fail "perf script"
	for name in recorded recorded-mmap; do
		if [ "$(wc -c < "$tmp/$name.txt")" -lt $((4 << 20)) ]; then
			echo "note: $name.txt is under 4 MiB here ($(wc -c < "$tmp/$name.txt") bytes): not cut"
			continue
		fi
		check $name yes
	done
else
	echo "note: no perf here (or one CPU): the recorded texts are not checked"
fi

# the errors are the one-thread reader's: located, exit 1, no output
for name in overflow bad-second bad-both cut-short; do
	"$PROFCONV" convert -t dump -o "$tmp/err.dump" "$tmp/$name.txt" 2> "$tmp/err.txt"
	status=$?
	checked=$((checked + 1))
	[ $status -eq 1 ] && grep -q "^profconv: $tmp/$name.txt:[0-9]*:[0-9]*: perf-script: " "$tmp/err.txt" &&
		[ ! -e "$tmp/err.dump" ] ||
		{ fail "$name: expected a located error, exit 1 and no output (exit $status):"; cat "$tmp/err.txt"; }
done

echo "perf_threads: $checked checks, $failures failed"
[ "$failures" -eq 0 ]
