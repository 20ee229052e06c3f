#!/usr/bin/env python3
"""Writes the hand-made seeds of tests/fuzz/corpus/pprof/ (no packages).

Usage: python3 tests/fuzz/seeds/pprof_seeds.py OUTDIR

  minimal.pb        a sample type, a mapping, a function, a location of
                    one line, a sample: the smallest whole profile
  minimal.pb.gz     the same, gzipped
  everything.pb     every field profile.proto has: two sample types and a
                    default, period type and period, time and duration,
                    comments (packed and not), drop/keep frames, doc_url;
                    two mappings of one file (kept apart) and one without a
                    file, has_* flags; functions with system names that
                    differ and start lines; a location of three lines
                    (inlined frames), one without a mapping, one without
                    lines, one is_folded, a line with a column; sparse ids
                    (sorted lookups); string and numeric labels (with and
                    without num_unit), a label pprof drops; a sample without
                    locations; location ids and values packed and unpacked;
                    an unknown field of each wire type
  two-members.pb.gz everything.pb split into two gzip members

Beside them, copied as they are: a Go CPU and heap profile (go-cpu.pb.gz,
go-heap.pb.gz: `go build -trimpath` of the program in
tests/e2e/pprof_read.sh), profconv's own pprof output of samples/demo.spt
and samples/perf/dwarf.perf.txt (profconv-demo.pb.gz, profconv-dwarf.pb.gz),
and go-cpu.pb and profconv-demo.pb, two of them gunzipped (raw bytes let
the fuzzer reach past gzip's CRC).
"""
import gzip
import os
import sys


def varint(n):
    n &= (1 << 64) - 1
    b = bytearray()
    while n > 0x7f:
        b.append(n & 0x7f | 0x80)
        n >>= 7
    b.append(n)
    return bytes(b)


def vf(field, value):
    return varint(field << 3) + varint(value)


def lf(field, data):
    return varint(field << 3 | 2) + varint(len(data)) + data


def packed(field, values):
    return lf(field, b"".join(varint(v) for v in values))


class Strings:
    def __init__(self):
        self.table = [""]

    def __call__(self, text):
        if text not in self.table:
            self.table.append(text)
        return self.table.index(text)

    def fields(self):
        return b"".join(lf(6, t.encode()) for t in self.table)


def minimal():
    s = Strings()
    out = lf(1, vf(1, s("samples")) + vf(2, s("count")))
    out += lf(2, packed(1, [1]) + packed(2, [5]))
    out += lf(3, vf(1, 1) + vf(2, 0x1000) + vf(3, 0x2000) + vf(5, s("/bin/app")) + vf(7, 1))
    out += lf(4, vf(1, 1) + vf(2, 1) + vf(3, 0x1100) + lf(4, vf(1, 1) + vf(2, 10)))
    out += lf(5, vf(1, 1) + vf(2, s("main")) + vf(3, s("main")) + vf(4, s("main.c")))
    return out + s.fields()


def everything():
    s = Strings()
    big = 1 << 40
    out = lf(1, vf(1, s("alloc_space")) + vf(2, s("bytes")))
    out += lf(1, vf(1, s("inuse_space")) + vf(2, s("bytes")))
    # samples: packed and unpacked ids and values, labels of each kind
    out += lf(2, packed(1, [big + 1, big + 2]) + packed(2, [4096, 0]) +
              lf(3, vf(1, s("thread")) + vf(2, s("main"))) +
              lf(3, vf(1, s("bytes")) + vf(3, 512) + vf(4, s("bytes"))) +
              lf(3, vf(1, s("pid")) + vf(3, 0)))  # neither str nor num: dropped
    out += lf(2, vf(1, big + 3) + vf(1, big + 4) + vf(2, 100) + vf(2, 7) +
              lf(3, vf(1, s("count")) + vf(3, (1 << 64) - 2)))
    out += lf(2, packed(2, [1, 1]))  # no locations
    # mappings: two of one file, one without a file
    out += lf(3, vf(1, 10) + vf(2, 0x400000) + vf(3, 0x500000) + vf(5, s("/usr/bin/app")) +
              vf(6, s("abc123")) + vf(7, 1) + vf(8, 1) + vf(9, 1) + vf(10, 1))
    out += lf(3, vf(1, 20) + vf(2, 0x600000) + vf(3, 0x700000) + vf(4, 0x200000) +
              vf(5, s("/usr/bin/app")) + vf(6, s("abc123")))
    out += lf(3, vf(1, 30) + vf(2, 0) + vf(3, 0))
    # locations: three lines (inlined), no mapping, no lines, folded
    out += lf(4, vf(1, big + 1) + vf(2, 10) + vf(3, 0x401000) +
              lf(4, vf(1, 3) + vf(2, 12) + vf(3, 5)) +
              lf(4, vf(1, 2) + vf(2, 30)) + lf(4, vf(1, 1) + vf(2, 40)))
    out += lf(4, vf(1, big + 2) + vf(3, 0x9000) + lf(4, vf(1, 1) + vf(2, 41)))
    out += lf(4, vf(1, big + 3) + vf(2, 20) + vf(3, 0x600100))
    out += lf(4, vf(1, big + 4) + vf(2, 30) + vf(5, 1) + lf(4, vf(1, 2) + vf(2, 31)))
    # functions: system names that differ, start lines
    out += lf(5, vf(1, 1) + vf(2, s("main")) + vf(3, s("main")) + vf(4, s("app.cc")) +
              vf(5, 38))
    out += lf(5, vf(1, 2) + vf(2, s("ns::Work::run()")) + vf(3, s("_ZN2ns4Work3runEv")) +
              vf(4, s("work.cc")) + vf(5, 25))
    out += lf(5, vf(1, 3) + vf(2, s("std::vector<int>::size() const")) + vf(3, 0) +
              vf(4, s("vector")))
    # the rest of the Profile, and an unknown field of each wire type
    out += vf(7, s("^runtime\\.")) + vf(8, s("^main$")) + vf(9, 1700000000123456789)
    out += vf(10, 2500000000) + lf(11, vf(1, s("space")) + vf(2, s("bytes"))) + vf(12, 524288)
    out += vf(13, s("first comment")) + packed(13, [s("second"), s("")])
    out += vf(14, s("inuse_space")) + vf(15, s("https://example.com/doc"))
    out += vf(99, 7) + varint(98 << 3 | 1) + bytes(8) + lf(97, b"xyz") + varint(96 << 3 | 5) + bytes(4)
    return out + s.fields()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        "minimal.pb": minimal(),
        "minimal.pb.gz": gzip.compress(minimal(), mtime=0),
        "everything.pb": everything(),
    }
    data = everything()
    half = len(data) // 2
    seeds["two-members.pb.gz"] = (gzip.compress(data[:half], mtime=0) +
                                  gzip.compress(data[half:], mtime=0))
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


main()
