#!/usr/bin/env python3
"""Aggregates `profconv info --events` text of an SPT file per (binary,
record kind, RVA / LBR pair / call stack): the record-level truth that an
SPT round trip must keep. Prints one sorted line per key with its count.

IP records count each RVA 1 + repeat times; an LBR record counts each of
its pairs 1 + repeat times; a call-stack record counts its whole stack
1 + repeat times. Binaries are named by program id name + GUID (from the
--progid view), so equal names with other GUIDs stay apart.

usage: spt_events.py INFO_TEXT
"""
import re
import sys
from collections import Counter

IP_KINDS = {"UNHALT_CYCLE", "RETIRE_INSTR", "RETIRE_BR_INSTR",
            "L1_ICACHE_MISS", "L1_DCACHE_MISS", "ETW_INSTR"}


def aggregate(lines):
    programs, counts, binary = {}, Counter(), None
    section = None
    for line in lines:
        if not line.startswith(" "):
            section = line.split(":")[0]
            continue
        fields = line.split()
        if section == "program ids":
            m = re.match(r"\s+\[(\d+)\] (\{[0-9A-F-]+\}) age (\d+) (.*)$", line)
            programs[int(m.group(1))] = "%s %s/%s" % (m.group(4), m.group(2), m.group(3))
        elif section == "events" and fields[0].startswith("0x"):
            record = fields[1]
            if record == "BINARY_ID":
                binary = programs[int(fields[4])]
            elif record in IP_KINDS:
                for rva in fields[4:]:
                    counts[(binary, record, rva)] += 1 + int(fields[2])
            elif record == "LBR":
                for pair in fields[4:]:
                    counts[(binary, record, pair)] += 1 + int(fields[2])
            elif record == "ETW_CALLSTACK":
                counts[(binary, record, " ".join(fields[4:]))] += 1 + int(fields[2])
    return counts


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        counts = aggregate(f.read().splitlines())
    for key in sorted(counts):
        print("%s | %s | %s | %d" % (key + (counts[key],)))


if __name__ == "__main__":
    main()
