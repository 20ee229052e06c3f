#!/usr/bin/env python3
"""afdo_expect.py - the source profile that AutoFDO counts of one binary
should give, computed independently of profconv's C code, as canonical text
(the same as afdo_decode.py's for --flavour gcc, without its `version` line,
and llvm_sample_canon.py's for --flavour llvm).

Reads:
  * AUTOFDO_TEXT: profconv's `-t autofdo --binary BIN` output, AutoFDO's
    text profile (../shared/research/autofdo.md 1.1): three sections, each a
    decimal record count and that many records: ranges `B-E:N`, addresses
    `A:N`, branches `F->T:N` (hex, optional 0x; duplicates summed).
    Addresses are ELF virtual addresses minus the p_vaddr of the first
    PT_LOAD segment (autofdo.md 1.4); that base comes from `readelf -lW`.
  * BIN, only through outside tools:
      nm -S --defined-only      function symbols (types t T w W with a size)
      objdump -d                instruction addresses, direct calls
                                (`call ADDR <sym>`)
      llvm-symbolizer-14 --obj=BIN --inlining --verbose
          --functions=linkage --no-demangle
                                every address needed, in one process: the
                                inline chain, leaf first, each frame's name,
                                Line, Discriminator, Function start line and
                                (outermost frame) Function start address.

Rules: create_gcov 0.19's (profile.cc, symbol_map.cc) as
../shared/research/autofdo.md 1.3 and 4 and autofdo-loop.md 2, 5, 6 and 7
describe them, with the two deviations of autofdo-loop/perf2json.py (heads
from IP samples, the call floor):
  * LBR mode (the ranges section is not empty): every instruction whose
    address lies in a range [B, E] (both ends inclusive) gets +N; the
    sampled functions are the function symbols containing a range start;
    a position's count is the largest over the instructions mapping to it
    (create_gcov's MAX); the address section is ignored.
  * IP mode (no ranges): each sampled address's count at its position (the
    largest per position); the sampled functions are the function symbols
    containing a sampled address.
  * a sampled function is an ELF function symbol together with its gcc
    cold part (foo.cold, foo.constprop.0.cold belong to foo, as they are
    one function in the DWARF and to gcc; create_gcov, whose symbol map is
    the ELF symbol table, takes the cold part apart, which only changes
    which zeros are written); an address counts for "sampled" whatever
    its line (0 included).
  * explicit zeros: every instruction of every sampled function gives its
    position, with 0 unless it has more.
  * position: (Line - Function start line of the frame's function) and the
    Discriminator. gcc: the discriminator is dropped (gcc 12 masks it;
    positions merged by max) and the line delta kept modulo 2^16 as gcc's
    32-bit offset word does, printed signed. llvm: the base discriminator
    of LLVM 14's encoding (DILocation::getBaseDiscriminatorFromDiscriminator)
    and the count multiplied by the duplication factor of the leaf's
    discriminator, as llvm-profgen does; a position or call site whose
    delta is outside 0..65535 is dropped (LLVM's text cannot hold it), and
    with a call site the whole instance below it.
  * inline chain: llvm-symbolizer's frames, leaf first; each outer frame's
    Line and Discriminator are the call site of the frame inside it. PATH
    is FUNC@OFF>CALLEE@OFF>CALLEE...
  * head: IP mode: the samples on a function's first address (the
    outermost frame's Function start address equals the address). LBR mode:
    the sum of the branch counts whose target is the start (nm) of a
    sampled function and whose source lies in a sampled function (whatever
    the source's line); each such branch also gives the call target
    CALLEE:COUNT at the source's position (created with 0 if new; none
    when the source has Line 0). CALLEE is the target's outermost frame
    name. The start of a cold part (an nm symbol named *.cold or *.cold.N)
    is no entry: no head, no call target, no call floor to it (create_gcov
    would count a jump into foo.cold as a call of "foo.cold";
    llvm-symbolizer gives a cold part's start as its Function start
    address).
  * call floor (IP mode only, unless --no-call-floor): every direct call
    instruction (objdump `call ADDR <sym>`), and every jump to another
    function's start (a tail call: `jmp ADDR <sym>`), to the start of a sampled
    function gives its position a count of at least 1, creating the
    caller's instances if needed (no zeros for the caller).
  * names: llvm-symbolizer's, with --functions=linkage (the outermost
    frame's from the ELF symbol table). gcc: every name (functions,
    inlined callees, call targets) cut at the first '.' (gcc 12's
    get_original_name: foo.constprop.0, foo.part.1 and foo.cold are foo).
    Top-level functions are first gathered per (name, Function start
    address), counts by max; those with the same name are
    then merged by summing positions, heads and targets (gcc: clones;
    llvm: same-named functions).
  * totals (llvm only): the sum of an instance's position counts plus the
    totals of its inlined instances.
  * an address whose leaf frame is "??" or has Line 0 gives nothing.

Output, sorted bytewise:
  head FUNC COUNT                     every top-level function
  total PATH N                        llvm only: every function and instance
  pos PATH OFFSET COUNT [T:N,...]     every position; targets sorted by name
OFFSET (and OFF in PATH): `delta` or, llvm only, `delta.discr` (discr not 0).

Diagnostics on stderr (the output is still written): ranges that cross a
function symbol boundary (create_gcov clips them to the function of their
start; this oracle counts every sampled function's instructions in them).

usage: afdo_expect.py --binary BIN --flavour gcc|llvm [--no-call-floor] AUTOFDO_TEXT
"""
import argparse
import bisect
import re
import subprocess
import sys

SYMBOLIZER = "llvm-symbolizer-14"
HEX = re.compile(r"(?:0[xX])?([0-9a-fA-F]+)\Z")
DEC = re.compile(r"[0-9]+\Z")


def die(msg):
    sys.stderr.write("afdo_expect.py: %s\n" % msg)
    sys.exit(1)


def run(cmd, stdin=None):
    try:
        return subprocess.run(cmd, input=stdin, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die("%s: %s" % (" ".join(cmd), getattr(e, "stderr", None) or e))


# ---- inputs ----

def read_autofdo_text(path):
    """(ranges [(b, e, n)], addresses {a: n}, branches {(f, t): n}), file addresses."""
    try:
        with open(path) as f:
            tokens = f.read().split()
    except OSError as e:
        die(str(e))
    pos = 0

    def hexnum(text):
        m = HEX.match(text)
        if not m:
            die("%s: bad address '%s'" % (path, text))
        return int(m.group(1), 16)

    def record(what, seps):
        nonlocal pos
        if pos >= len(tokens):
            die("%s: missing %s record" % (path, what))
        text = tokens[pos]
        pos += 1
        head, _, count = text.rpartition(":")
        if not DEC.match(count):
            die("%s: bad %s record '%s'" % (path, what, text))
        parts = head.split(seps) if seps else [head]
        if len(parts) != (2 if seps else 1):
            die("%s: bad %s record '%s'" % (path, what, text))
        return [hexnum(p) for p in parts], int(count)

    def section_count(what):
        nonlocal pos
        if pos >= len(tokens) or not DEC.match(tokens[pos]):
            die("%s: missing the %s count" % (path, what))
        pos += 1
        return int(tokens[pos - 1])

    ranges = {}
    for _ in range(section_count("range")):
        (b, e), n = record("range", "-")
        ranges[(b, e)] = ranges.get((b, e), 0) + n
    addresses = {}
    for _ in range(section_count("address")):
        (a,), n = record("address", None)
        addresses[a] = addresses.get(a, 0) + n
    branches = {}
    for _ in range(section_count("branch")):
        (f, t), n = record("branch", "->")
        branches[(f, t)] = branches.get((f, t), 0) + n
    return [(b, e, n) for (b, e), n in sorted(ranges.items())], addresses, branches


def first_load_vaddr(binary):
    for line in run(["readelf", "-lW", binary]).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            return int(f[2], 16)
    die("%s: no PT_LOAD segment" % binary)


class Functions:
    """Function symbols with a size: [start, end), one per start (the largest)."""

    def __init__(self, binary):
        by_start = {}
        for line in run(["nm", "-S", "--defined-only", binary]).splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in ("t", "T", "w", "W"):
                start, size = int(f[0], 16), int(f[1], 16)
                if size and (start not in by_start or size > by_start[start][0]):
                    by_start[start] = (size, f[3])
        self.starts = sorted(by_start)
        self.ends = [s + by_start[s][0] for s in self.starts]
        self.names = [by_start[s][1] for s in self.starts]
        self.cold = {s for s in self.starts if COLD.search(by_start[s][1])}
        start_of = {}
        for st in self.starts:
            start_of.setdefault(by_start[st][1], []).append(st)
        # a cold part belongs to its function (one DWARF subprogram, as gcc sees it)
        self.parent = {}
        for st in self.cold:
            owners = start_of.get(COLD.sub("", by_start[st][1]), [])
            if len(owners) == 1:
                self.parent[st] = owners[0]

    def unit(self, start):
        """The function a symbol belongs to: a cold part's is its hot part's start."""
        return self.parent.get(start, start)

    def containing(self, addr):
        """The start of the function symbol containing addr, or None."""
        i = bisect.bisect_right(self.starts, addr) - 1
        if i >= 0 and addr < self.ends[i]:
            return self.starts[i]
        return None

    def end_of(self, start):
        return self.ends[bisect.bisect_left(self.starts, start)]


COLD = re.compile(r"\.cold(\.[0-9]+)?$")
INSN = re.compile(r"^\s*([0-9a-f]+):\t")
CALL = re.compile(r"^\s*([0-9a-f]+):\t\s*(?:call|jmp)[a-z]*\s+([0-9a-f]+) <[^>]*>\s*$")


def disassemble(binary):
    """(sorted instruction addresses, [(call address, target)]) from objdump -d."""
    insns, calls = [], []
    out = run(["objdump", "-d", "-z", "--no-show-raw-insn", binary])
    for line in out.splitlines():
        m = INSN.match(line)
        if not m:
            continue
        insns.append(int(m.group(1), 16))
        c = CALL.match(line)
        if c:
            calls.append((int(c.group(1), 16), int(c.group(2), 16)))
    return sorted(set(insns)), calls


class Frame:
    __slots__ = ("name", "line", "start_line", "discr", "start_addr")

    def __init__(self, name):
        self.name = name
        self.line = 0
        self.start_line = 0
        self.discr = 0
        self.start_addr = None


def symbolize(binary, addrs):
    """{addr: [Frame, ...]} leaf first, for every address given (one process)."""
    addrs = sorted(addrs)
    if not addrs:
        return {}
    out = run([SYMBOLIZER, "--obj=" + binary, "--inlining", "--verbose",
               "--functions=linkage", "--no-demangle"],
              "".join("0x%x\n" % a for a in addrs))
    blocks = [b for b in out.split("\n\n") if b.strip()]
    if len(blocks) != len(addrs):
        die("%s printed %d blocks for %d addresses" % (SYMBOLIZER, len(blocks), len(addrs)))
    res = {}
    for addr, block in zip(addrs, blocks):
        frames = []
        for line in block.splitlines():
            if not line.strip():
                continue
            if not line.startswith(" "):
                frames.append(Frame(line.strip()))
                continue
            if not frames:
                die("%s: a field before a frame name at 0x%x" % (SYMBOLIZER, addr))
            key, _, value = line.strip().partition(": ")
            fr = frames[-1]
            if key == "Line":
                fr.line = int(value)
            elif key == "Function start line":
                fr.start_line = int(value)
            elif key == "Discriminator":
                fr.discr = int(value)
            elif key == "Function start address":
                fr.start_addr = int(value, 16)
        res[addr] = frames
    return res


# ---- LLVM's discriminator encoding (LLVM 14 DILocation, non-FS) ----
# A discriminator is a sequence of components: base discriminator,
# duplication factor, copy id. A present component is prefix-encoded,
# getPrefixEncodingFromUnsigned: bit 0 is 0, 7 bits for values up to 31
# (value << 1), 14 bits with bit 6 set for larger ones; an absent one is
# the single bit 1.

def llvm_unsigned_from_prefix(u):
    """getUnsignedFromPrefixEncoding."""
    if u & 1:
        return 0
    u >>= 1
    return (((u >> 1) & 0xfe0) | (u & 0x1f)) if u & 0x20 else (u & 0x1f)


def llvm_next_component(d):
    """getNextComponentInDiscriminator."""
    if d & 1 == 0:
        return d >> (14 if d & 0x40 else 7)
    return d >> 1


def llvm_base(d):
    """getBaseDiscriminatorFromDiscriminator (not FS): the first component."""
    return llvm_unsigned_from_prefix(d)


def llvm_dup(d):
    """getDuplicationFactorFromDiscriminator: the second component, 1 when 0 or absent."""
    return llvm_unsigned_from_prefix(llvm_next_component(d)) or 1


# ---- the profile tree ----

class Instance:
    __slots__ = ("head", "pos", "targets", "kids")

    def __init__(self):
        self.head = 0
        self.pos = {}      # loc -> count
        self.targets = {}  # loc -> {callee: count}
        self.kids = {}     # (loc, callee) -> Instance


def merge_sum(dst, src):
    dst.head += src.head
    for loc, c in src.pos.items():
        dst.pos[loc] = dst.pos.get(loc, 0) + c
    for loc, t in src.targets.items():
        d = dst.targets.setdefault(loc, {})
        for name, c in t.items():
            d[name] = d.get(name, 0) + c
    for key, kid in src.kids.items():
        merge_sum(dst.kids.setdefault(key, Instance()), kid)


class Builder:
    def __init__(self, flavour, frames_of):
        self.llvm = flavour == "llvm"
        self.frames_of = frames_of
        self.tops = {}  # (name, start address) -> Instance
        self.lost = 0

    def name(self, text):
        return text if self.llvm else text.split(".", 1)[0]

    def loc(self, frame):
        delta = frame.line - frame.start_line
        if self.llvm:
            if not 0 <= delta <= 0xffff:
                return None
            return (delta, llvm_base(frame.discr))
        delta &= 0xffff
        return (delta - 0x10000 if delta >= 0x8000 else delta, 0)

    def valid(self, addr):
        frames = self.frames_of.get(addr)
        return frames if frames and frames[0].name != "??" and frames[0].line else None

    def locate(self, addr):
        """(instance, loc, leaf frame) of addr, creating the instances; None if it has none."""
        frames = self.valid(addr)
        if not frames:
            return None
        locs = [self.loc(f) for f in frames]
        if any(loc is None for loc in locs):
            return None
        top = frames[-1]
        inst = self.tops.setdefault((self.name(top.name), top.start_addr), Instance())
        for i in range(len(frames) - 1, 0, -1):
            inst = inst.kids.setdefault((locs[i], self.name(frames[i - 1].name)), Instance())
        return inst, locs[0], frames[0]

    def add(self, addr, count):
        """count at addr's position (max); returns (instance, loc) or None."""
        where = self.locate(addr)
        if not where:
            if count:
                self.lost += count
            return None
        inst, loc, leaf = where
        if self.llvm:
            count *= llvm_dup(leaf.discr)
        if count > inst.pos.get(loc, -1):
            inst.pos[loc] = count
        return inst, loc

    def top_of(self, addr):
        """The top-level instance of the function whose outermost frame covers addr."""
        frames = self.frames_of.get(addr)
        if not frames or frames[-1].name == "??":
            return None
        top = frames[-1]
        return self.tops.setdefault((self.name(top.name), top.start_addr), Instance())

    def merged(self):
        out = {}
        for (name, _), inst in sorted(self.tops.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
            merge_sum(out.setdefault(name, Instance()), inst)
        return out


def fmt_loc(loc, llvm):
    delta, discr = loc
    return "%d.%d" % (delta, discr) if llvm and discr else "%d" % delta


def emit(prof, llvm):
    lines = []

    def walk(path, inst):
        total = 0
        for loc, count in inst.pos.items():
            total += count
            text = "pos %s %s %d" % (path, fmt_loc(loc, llvm), count)
            t = inst.targets.get(loc)
            if t:
                text += " " + ",".join("%s:%d" % (n, t[n]) for n in sorted(t))
            lines.append(text)
        for (loc, callee), kid in inst.kids.items():
            total += walk("%s@%s>%s" % (path, fmt_loc(loc, llvm), callee), kid)
        if llvm:
            lines.append("total %s %d" % (path, total))
        return total

    for name, inst in prof.items():
        lines.append("head %s %d" % (name, inst.head))
        walk(name, inst)
    return sorted(lines)


def main():
    ap = argparse.ArgumentParser(
        description="The expected gcc-afdo / llvm-sample profile of profconv's AutoFDO text, "
                    "as canonical text.")
    ap.add_argument("--binary", required=True)
    ap.add_argument("--flavour", required=True, choices=("gcc", "llvm"))
    ap.add_argument("--no-call-floor", action="store_true")
    ap.add_argument("autofdo_text")
    a = ap.parse_args()

    ranges, addresses, branches = read_autofdo_text(a.autofdo_text)
    base = first_load_vaddr(a.binary)
    ranges = [(b + base, e + base, n) for b, e, n in ranges]
    addresses = {x + base: n for x, n in addresses.items()}
    branches = {(f + base, t + base): n for (f, t), n in branches.items()}
    funcs = Functions(a.binary)
    insns, calls = disassemble(a.binary)
    lbr = bool(ranges)

    def unit_of(addr):
        start = funcs.containing(addr)
        return None if start is None else funcs.unit(start)

    if lbr:
        sampled = {unit_of(b) for b, _, _ in ranges} - {None}
    else:
        sampled = {unit_of(x) for x in addresses} - {None}
    entries = sampled - funcs.cold  # a gcc cold part's start is no function entry
    body = []  # instructions of the sampled functions (with their cold parts), sorted
    for start in funcs.starts:
        if funcs.unit(start) in sampled:
            end = funcs.end_of(start)
            body.extend(insns[bisect.bisect_left(insns, start):bisect.bisect_left(insns, end)])
    body.sort()

    need = set(body)
    calls_in = []
    heads = []
    if lbr:
        for (f, t) in branches:
            if t in entries and unit_of(f) in sampled:
                heads.append((f, t))
                need.update((f, t))
        crossing = [(b, e) for b, e, _ in ranges
                    if funcs.containing(b) is not None and funcs.containing(b) != funcs.containing(e)]
        if crossing:
            sys.stderr.write("afdo_expect.py: %d ranges cross a function symbol boundary, e.g. %x-%x\n"
                             % (len(crossing), crossing[0][0] - base, crossing[0][1] - base))
    else:
        need.update(addresses)
        if not a.no_call_floor:
            # calls, and jumps to another function's start (tail calls)
            calls_in = [(c, t) for c, t in calls if t in entries and t != funcs.containing(c)]
            need.update(c for c, _ in calls_in)

    b = Builder(a.flavour, symbolize(a.binary, need))
    for x in body:
        b.add(x, 0)
    if lbr:
        # per instruction, the sum of the ranges holding it (a difference array over body)
        delta = [0] * (len(body) + 1)
        for lo, hi, n in ranges:
            i, j = bisect.bisect_left(body, lo), bisect.bisect_right(body, hi)
            if i < j:
                delta[i] += n
                delta[j] -= n
        run_count = 0
        for i, x in enumerate(body):
            run_count += delta[i]
            if run_count:
                b.add(x, run_count)
        for (f, t) in heads:
            n = branches[(f, t)]
            callee = b.top_of(t)
            if callee is None:
                continue
            callee.head += n
            where = b.add(f, 0)
            if where:
                inst, loc = where
                name = b.name(b.frames_of[t][-1].name)
                tl = inst.targets.setdefault(loc, {})
                tl[name] = tl.get(name, 0) + n
    else:
        for x, n in sorted(addresses.items()):
            b.add(x, n)
            frames = b.frames_of.get(x)
            if (frames and frames[-1].name != "??" and frames[-1].start_addr == x
                    and x not in funcs.cold):
                b.top_of(x).head += n
        for c, _ in calls_in:
            where = b.locate(c)
            if where:
                inst, loc, _ = where
                if inst.pos.get(loc, 0) < 1:
                    inst.pos[loc] = 1
    if b.lost:
        sys.stderr.write("afdo_expect.py: %d counts at addresses without a source line "
                         "(Line 0 or no function)\n" % b.lost)
    sys.stdout.write("".join(line + "\n" for line in emit(b.merged(), a.flavour == "llvm")))


if __name__ == "__main__":
    main()
