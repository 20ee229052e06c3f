#!/usr/bin/env python3
"""afdo_decode.py - a strict decoder of gcc's binary AutoFDO profile.

Reads the file that `gcc -fauto-profile=FILE` reads (gcov AutoFDO version 2
for gcc 12 and later, version 1 for gcc 5 to 11; the version word decides)
and prints it as canonical text, so that a test can compare it line by line
with afdo_expect.py's independent computation or with llvm_sample_canon.py.

Layout, from ../shared/research/autofdo-loop.md section 2 (gcc 12.2's
auto-profile.cc read_profile, read_function_instance and gcov-io.cc), not
from profconv's writer. Little-endian u32 words; a counter (u64) is two
words, low first:

  0x67636461 (GCOV_DATA_MAGIC), version (1 or 2), 0
  0xaa000000, LENGTH, n, n strings               (the name table)
      v2 string: u32 byte length including the NUL, bytes, no padding
      v1 string: u32 length in words, bytes NUL-padded to a word multiple
  0xac000000, LENGTH, n, n x (u64 head, INSTANCE) (the functions)
      INSTANCE: u32 name index, u32 npos, u32 ncallsites,
          npos x (u32 offset, u32 ntargets, u64 count,
                  ntargets x (u32 histogram type, u64 name index, u64 count)),
          ncallsites x (u32 offset, INSTANCE)
  0xae000000, LENGTH, 0 modules                  (gcc asserts there are none)
  version 1 only, optional: 0xaf000000, 3 * n, n x (u32, u64): create_gcov's
      working set, which gcc never reads (dump_gcov 0.19 needs it).

An offset is (line - the function's declaration line) << 16 | discriminator;
the line delta is printed as a signed 16-bit number (a negative delta wraps,
as gcc's own 32-bit arithmetic does), the discriminator after a '.' when it
is not 0.

Strict: the magic, the version (1 or 2), the zero stamp word, each section's
tag, each LENGTH word (the number of words that follow it in the section,
rounded up: v2 strings leave sections that are not a whole number of words;
the module section may say 0, as create_gcov and make-profile.py write, or
1), every string (a length of 0 crashes gcc 12; a v2 string must end with
its only NUL; a v1 string's padding must be NULs), every name index (inside
the table, not 0: gcc asserts index > 0), the histogram type (7,
HIST_TYPE_INDIR_CALL_TOPN in autofdo's gcov.h: what create_gcov 0.19 writes
and dump_gcov 0.19 and LLVM's GCC profile reader CHECK; gcc itself skips
the word; make-profile.py's 9 is wrong), counters below 2^63,
no duplicate function, position, call site or target within its parent,
and nothing after the end (but the v1 working set). A violation prints
`afdo_decode.py: FILE: offset 0xN: WHAT` and exits 1.

Output, one line each, sorted bytewise after the first line:
  version N
  head FUNC COUNT                 every top-level function
  pos PATH OFFSET COUNT [T:N,..]  every position, call targets by name
PATH is FUNC, or FUNC@OFF>CALLEE@OFF>CALLEE... for an inlined instance
(OFF: the call site's offset in its parent).

usage: afdo_decode.py FILE
"""
import struct
import sys

MAGIC = 0x67636461
TAG_NAMES = 0xaa000000
TAG_FUNCTIONS = 0xac000000
TAG_MODULES = 0xae000000
TAG_WORKING_SET = 0xaf000000
HIST_INDIR_CALL_TOPN = 7
COUNT_MAX = (1 << 63) - 1


class DecodeError(Exception):
    def __init__(self, offset, what):
        super().__init__(what)
        self.offset = offset
        self.what = what


class Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def need(self, n, what):
        if self.pos + n > len(self.data):
            raise DecodeError(self.pos, "truncated: %s needs %d bytes, %d left"
                              % (what, n, len(self.data) - self.pos))

    def u32(self, what):
        self.need(4, what)
        v = struct.unpack_from("<I", self.data, self.pos)[0]
        self.pos += 4
        return v

    def u64(self, what):
        self.need(8, what)
        v = struct.unpack_from("<Q", self.data, self.pos)[0]
        self.pos += 8
        return v

    def counter(self, what):
        at = self.pos
        v = self.u64(what)
        if v > COUNT_MAX:
            raise DecodeError(at, "%s %d passes 2^63-1" % (what, v))
        return v

    def string(self, version):
        at = self.pos
        n = self.u32("string length")
        if n == 0:
            raise DecodeError(at, "string of length 0 (gcc 12 crashes on it)")
        if version >= 2:
            self.need(n, "string")
            raw = self.data[self.pos:self.pos + n]
            self.pos += n
            if raw[-1] != 0 or 0 in raw[:-1]:
                raise DecodeError(at, "version 2 string does not end with its only NUL")
            text = raw[:-1]
        else:
            self.need(4 * n, "string")
            raw = self.data[self.pos:self.pos + 4 * n]
            self.pos += 4 * n
            if 0 not in raw:
                raise DecodeError(at, "version 1 string without a NUL")
            nul = raw.index(0)
            if any(raw[nul:]):
                raise DecodeError(at, "version 1 string padding is not NULs")
            if 4 * n - nul > 4:
                raise DecodeError(at, "version 1 string longer than its text needs (%d words for %d bytes)"
                                  % (n, nul))
            text = raw[:nul]
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError(at, "string is not UTF-8")


def fmt_offset(word):
    delta = word >> 16
    if delta >= 0x8000:
        delta -= 0x10000
    discr = word & 0xffff
    return "%d.%d" % (delta, discr) if discr else "%d" % delta


class Decoder:
    def __init__(self, data):
        self.r = Reader(data)
        self.names = []
        self.lines = []

    def name(self, index, at, what):
        if index == 0 or index >= len(self.names):
            raise DecodeError(at, "%s name index %d outside 1..%d" % (what, index, len(self.names) - 1))
        return self.names[index]

    def section(self, tag, what):
        at = self.r.pos
        got = self.r.u32(what + " tag")
        if got != tag:
            raise DecodeError(at, "expected the %s tag 0x%08x, found 0x%08x" % (what, tag, got))
        at = self.r.pos
        length = self.r.u32(what + " length")
        return at, length

    def check_length(self, at, length, start, what):
        words = (self.r.pos - start + 3) // 4
        if words != length:
            raise DecodeError(at, "%s length word says %d words, the section has %d bytes"
                              % (what, length, self.r.pos - start))

    def instance(self, path_prefix, depth):
        r = self.r
        at = r.pos
        name = self.name(r.u32("instance name index"), at, "instance")
        path = path_prefix + name
        npos = r.u32("position count")
        ncalls = r.u32("call site count")
        seen = set()
        for _ in range(npos):
            at = r.pos
            off = r.u32("position offset")
            if off in seen:
                raise DecodeError(at, "%s: offset %s twice" % (path, fmt_offset(off)))
            seen.add(off)
            ntargets = r.u32("target count")
            count = r.counter("position count")
            targets = {}
            for _ in range(ntargets):
                at_t = r.pos
                hist = r.u32("histogram type")
                if hist != HIST_INDIR_CALL_TOPN:
                    raise DecodeError(at_t, "histogram type %d, not %d" % (hist, HIST_INDIR_CALL_TOPN))
                at_n = r.pos
                index = r.u64("target name index")
                if index >= 1 << 32:
                    raise DecodeError(at_n, "target name index %d" % index)
                tname = self.name(index, at_n, "target")
                tcount = r.counter("target count")
                if tname in targets:
                    raise DecodeError(at_t, "%s %s: target %s twice" % (path, fmt_offset(off), tname))
                targets[tname] = tcount
            line = "pos %s %s %d" % (path, fmt_offset(off), count)
            if targets:
                line += " " + ",".join("%s:%d" % (t, targets[t]) for t in sorted(targets))
            self.lines.append(line)
        sites = set()
        for _ in range(ncalls):
            at = r.pos
            off = r.u32("call site offset")
            if depth > 200:
                raise DecodeError(at, "inline nesting deeper than 200")
            callee_at = r.pos
            key = (off, r.u32("instance name index"))
            r.pos = callee_at
            if key in sites:
                raise DecodeError(at, "%s: call site %s to the same callee twice" % (path, fmt_offset(off)))
            sites.add(key)
            self.instance("%s@%s>" % (path, fmt_offset(off)), depth + 1)
        return name

    def decode(self):
        r = self.r
        if r.u32("magic") != MAGIC:
            raise DecodeError(0, "not a gcov AutoFDO file (magic is not 0x%08x)" % MAGIC)
        version = r.u32("version")
        if version not in (1, 2):
            raise DecodeError(4, "version %d (1 or 2 expected)" % version)
        if r.u32("stamp") != 0:
            raise DecodeError(8, "the third word is not 0")

        at, length = self.section(TAG_NAMES, "name table")
        start = r.pos
        n = r.u32("name count")
        for _ in range(n):
            self.names.append(r.string(version))
        self.check_length(at, length, start, "name table")

        at, length = self.section(TAG_FUNCTIONS, "function")
        start = r.pos
        n = r.u32("function count")
        tops = set()
        for _ in range(n):
            head = r.counter("head count")
            at_f = r.pos
            name = self.instance("", 0)
            if name in tops:
                raise DecodeError(at_f, "function %s twice" % name)
            tops.add(name)
            self.lines.append("head %s %d" % (name, head))
        self.check_length(at, length, start, "function")

        at, length = self.section(TAG_MODULES, "module")
        at_n = r.pos
        if r.u32("module count") != 0:
            raise DecodeError(at_n, "module groups (gcc asserts there are none)")
        if length not in (0, 1):
            raise DecodeError(at, "module length word %d (0 or 1 expected)" % length)

        if r.pos < len(r.data) and version == 1:
            at, length = self.section(TAG_WORKING_SET, "working set")
            if length % 3:
                raise DecodeError(at, "working set length %d is not a multiple of 3" % length)
            for _ in range(length // 3):
                r.u32("working set entry")
                r.u64("working set entry")
        if r.pos != len(r.data):
            raise DecodeError(r.pos, "%d bytes after the end of the profile" % (len(r.data) - r.pos))
        return ["version %d" % version] + sorted(self.lines)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: afdo_decode.py FILE")
    path = sys.argv[1]
    try:
        with open(path, "rb") as f:
            data = f.read()
        out = Decoder(data).decode()
    except OSError as e:
        sys.stderr.write("afdo_decode.py: %s\n" % e)
        sys.exit(1)
    except DecodeError as e:
        sys.stderr.write("afdo_decode.py: %s: offset 0x%x: %s\n" % (path, e.offset, e.what))
        sys.exit(1)
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
