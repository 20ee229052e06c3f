#!/usr/bin/env python3
"""Parses `pprof -raw -symbolize=none` text into samples, locations and
mappings, for tests that check profconv's pprof output with the real
pprof. Importable (parse()) and runnable: `pprof_raw.py FILE` prints the
column totals.

pprof -raw prints, after a header:
  Samples:
  TYPE/UNIT TYPE/UNIT[dflt] ...
        V1 V2: LOC LOC ...
                LABEL:[VALUE] ...
  Locations
       ID: 0xADDR M=MAPPING FUNCTION FILE:LINE s=START   (no M=: mapping 0)
                   (more lines of inlined functions)
  Mappings
  ID: 0xSTART/0xLIMIT/0xOFFSET NAME BUILDID [FN][FL][LN][IN]
"""
import re
import sys


def parse(text):
    columns, samples, locations, mappings = [], [], {}, {}
    section = None
    for line in text.splitlines():
        if line.startswith("Samples:"):
            section = "samples-header"
            continue
        if line.startswith("Locations"):
            section = "locations"
            continue
        if line.startswith("Mappings"):
            section = "mappings"
            continue
        if section == "samples-header":
            columns = [c.replace("[dflt]", "").rsplit("/", 1)[0] for c in line.split()]
            section = "samples"
        elif section == "samples":
            m = re.match(r"^\s+(-?\d+(?:\s+-?\d+)*):\s*(.*)$", line)
            if m:
                values = [int(v) for v in m.group(1).split()]
                stack = [int(x) for x in m.group(2).split()]
                samples.append({"values": dict(zip(columns, values)), "stack": stack, "labels": ""})
            elif samples:
                samples[-1]["labels"] += line.strip() + " "
        elif section == "locations":
            m = re.match(r"^\s+(\d+): (0x[0-9a-f]+)(?: M=(\d+)|\s|$)", line)
            if m:  # no M=: a location without a mapping (mapping 0)
                locations[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3) or 0))
        elif section == "mappings":
            m = re.match(r"^(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (.*?)\s*(\[.*\])?\s*$", line)
            if m:
                rest = m.group(5).strip()
                build_id = ""
                tail = re.match(r"^(.*) ([0-9a-f]{8,})$", rest)
                if tail:  # "NAME BUILDID": names may hold spaces, build ids do not
                    rest, build_id = tail.group(1), tail.group(2)
                mappings[int(m.group(1))] = {
                    "start": int(m.group(2), 16), "limit": int(m.group(3), 16),
                    "offset": int(m.group(4), 16), "name": rest, "build_id": build_id,
                }
    return columns, samples, locations, mappings


def main():
    columns, samples, _, _ = parse(open(sys.argv[1]).read())
    for c in columns:
        print(c, sum(s["values"][c] for s in samples))


if __name__ == "__main__":
    main()
