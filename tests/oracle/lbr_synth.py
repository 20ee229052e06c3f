#!/usr/bin/env python3
"""lbr_synth.py - LBR `perf script` text synthesized from a real trace.

This machine has no LBR hardware, so tests/e2e/autofdo.sh makes the branch
stacks that `perf record -b` would have recorded from the program's real
control flow: valgrind's lackey tool (--trace-mem=yes) prints every
executed instruction as "I  ADDR,SIZE" in execution order; an instruction
whose successor does not start at ADDR + SIZE ended with a taken branch
(ADDR -> next ADDR). Every PERIOD-th instruction inside the binary's text
becomes a sample, printed as perf 6.1 prints `perf script -F pid,ip,brstack
--show-mmap-events`: the IP, then the last DEPTH taken branches, newest
first, as 0xFROM/0xTO/P/-/-/0/. One PERF_RECORD_MMAP2 line maps the text
segment so that a reader can place the runtime addresses.

It also prints to stderr what AutoFDO must find, counted with AutoFDO's
rules (research/autofdo.md section 4) for branches into --target:
  calls TARGET COUNT
i.e. entry 0 when both ends lie in the text, entries i >= 1 when their
target and the source of entry i-1 lie in the text, the range between them
is not negative and at most 1 MiB, and their source lies in the text.

usage: lbr_synth.py LACKEY_LOG BINARY START LEN PGOFF TARGET > out.perfscript
       (START, LEN, PGOFF, TARGET in hex: the executable PT_LOAD's runtime
       start, its length, its file offset, and a function's runtime address)
"""
import sys

PID = 4242
PERIOD = 97
DEPTH = 16


def instructions(path):
    with open(path, errors="replace") as log:
        for line in log:
            if line.startswith("I  "):
                addr, size = line[3:].split(",")
                yield int(addr, 16), int(size)


def main():
    log, binary = sys.argv[1], sys.argv[2]
    start, length, pgoff, target = (int(a, 16) for a in sys.argv[3:7])
    end = start + length
    out = sys.stdout
    in_text = lambda a: start <= a < end  # noqa: E731
    out.write(" %d PERF_RECORD_MMAP2 %d/%d: [0x%x(0x%x) @ 0x%x fe:00 1 0]: r-xp %s\n"
              % (PID, PID, PID, start, length, pgoff, binary))
    branches = []
    calls = 0
    seen = 0
    prev = None
    for addr, size in instructions(log):
        if prev is not None and addr != prev[0] + prev[1] and addr != prev[0]:
            branches.append((prev[0], addr))
            if len(branches) > DEPTH:
                del branches[0]
        prev = (addr, size)
        if not in_text(addr):
            continue
        seen += 1
        if seen % PERIOD or not branches:
            continue
        stack = list(reversed(branches))  # newest first
        out.write(" %d %16x %s\n" % (PID, addr, "  ".join(
            "0x%x/0x%x/P/-/-/0/" % pair for pair in stack)))
        for i, (frm, to) in enumerate(stack):
            if to != target or not in_text(frm):
                continue
            if i == 0:
                calls += 1
                continue
            newer_from = stack[i - 1][0]
            if in_text(newer_from) and to <= newer_from and newer_from - to <= 1 << 20:
                calls += 1
    sys.stderr.write("calls %x %d\n" % (target, calls))


if __name__ == "__main__":
    main()
