#!/usr/bin/env python3
"""etl_seeds.py - small ETW traces (.etl) made from scratch, their expected
folded profiles, a re-layout of real traces without compression, and the
seed corpus of fuzz_etl (tests/fuzz/corpus/etl). Python 3 standard library
only; every run writes the same bytes (no clock, no randomness but a seeded
generator of its own).

    python3 etl_seeds.py [DIR]                 writes the seeds into DIR
                                              (default: ../corpus/etl)
    python3 etl_seeds.py trace NAME OUT [EXP]  writes the generated trace NAME
                                              (see TRACES) to OUT and, with
                                              EXP, its expected outputs to
                                              EXP.folded, EXP.tid.folded (--tid),
                                              EXP.cpu.folded (--event cpu),
                                              EXP.progid (info --progid lines),
                                              EXP.undefined (undefined key count)
    python3 etl_seeds.py relayout IN OUT       rewrites the trace IN with every
                                              compressed buffer stored plain
                                              (flag 0x40 cleared, BufferSize the
                                              filled bytes rounded up to 8, the
                                              header's LogFileMode without
                                              EVENT_TRACE_COMPRESSED_MODE)
    python3 etl_seeds.py coverage [NAME...]    prints how many samples and events of
                                              each kind the generated traces hold

The layouts follow shared/research/etl.md sections 2-5:

  buffers   each a 0x48-byte WMI_BUFFER_HEADER {BufferSize, SavedOffset,
            CurrentOffset, ReferenceCount, TimeStamp, SequenceNumber,
            ClockType/Frequency, ProcessorNumber, Alignment, LoggerId, State,
            Offset (filled bytes, header included), BufferFlag, BufferType,
            16 bytes of union} then the events, each padded to 8 bytes, then
            0xFF fill up to BufferSize. The first buffer is the header buffer
            (BufferType 4) holding only the EventTrace header event; the
            others hold one processor's events in time order and are written
            in the order they would be flushed (by their last event's time).
  compressed (LogFileMode 0x04000000, the header buffer's State 3 = Xpress):
            a data buffer flagged 0x40 holds the [MS-XCA] 2.3 plain LZ77
            compression of its events (Offset - 0x48 bytes once decompressed)
            and is exactly 0x48 + that many bytes long.
  events    SYSTEM_TRACE_HEADER full (0x02/0x01) and compact (0x04/0x03),
            PERFINFO_TRACE_HEADER (0x11/0x10, with PMC counters after it when
            its Version says so), EVENT_TRACE_HEADER (0x14/0x0A, with the
            KernelTraceControl GUID), EVENT_INSTANCE_GUID_HEADER (0x15/0x0B)
            and EVENT_HEADER (0x13/0x12, with extended data items) of other
            providers; the header type's 32/64 sets the payload's pointer size.
  payloads  TRACE_LOGFILE_HEADER, Process DCStart (v3 and v4, UserSID 0 or a
            TOKEN_USER + SID, ANSI image name), Thread DCStart/Start, Image
            DCStart/Load/Unload (UTF-16 paths), KernelTraceControl ImageID and
            DbgID_RSDS, SampledProfileInterval, SampledProfile, StackWalk
            Stack, StackKeyKernel/User and KeyDelete/KeyRundown definitions.

What a generated trace holds (Scenario): the Idle, System and three user
processes with threads (one thread id reused by another process during the
trace, one thread started during it), kernel images (a driver loaded during
the trace) and user images (a DLL loaded, unloaded, and another loaded at
the same base), samples with no stack, a user stack, a kernel stack, a
kernel fragment and a user fragment (the user one often in the other
processor's buffer), both through plain Stack events or stack keys (keys
cached, evicted by KeyDelete, reused for other frames, the rest defined by
KeyRundown at the end), idle samples of both processors at the same time
with different stacks, samples of threads no Thread event names (their
process from the stack, or none), frames in no image, one stack key never
defined. The expected folded profile is computed from the scenario's own
truth (which image holds which address when, which process a thread is
in), not from the events: profconv must turn the events back into it.

tiny_trace() is a much smaller trace (three samples, 256-byte buffers, plain
or compressed) that tests/e2e/etl_malformed.sh cuts at every byte and
breaks one way per class, through the layout Trace.build() returns (where
each buffer and event lies). tests/e2e/etl_generated.sh runs this script
(trace, relayout) and etl_malformed.sh imports it.

Seeds (each under 16 KiB):
  plain64.etl      the scenario, 64-bit, uncompressed 1 KiB buffers
  xpress64.etl     the same events in Xpress-compressed buffers
  plain32.etl      the scenario with 32-bit headers and pointers
                   (SYSTEM32, PERFINFO32, EVENT_TRACE_HEADER 32)
  xpress32.etl     the same, compressed
  mixed.etl        64-bit, some buffers compressed and some not, one buffer
                   flagged as having lost events
  modern.etl       EVENT_HEADER events with extended data items (64- and
                   32-bit), EVENT_INSTANCE_GUID_HEADER events, compact
                   SYSTEM headers, PERFINFO samples with PMC/PEBS extras
  nosamples.etl    rundown events only (no CPU samples)
  tiny.etl         tiny_trace(): three samples in 256-byte buffers (2 KiB:
                   quick to mutate)
  tiny-xpress.etl  the same, compressed
"""
import collections
import os
import struct
import sys

# ---------------------------------------------------------------- constants

BUFFER_HEADER = 0x48
FLAG_FLUSH, FLAG_EVENTS_LOST, FLAG_PROC_INDEX, FLAG_COMPRESSED = 0x01, 0x02, 0x20, 0x40
TYPE_GENERIC, TYPE_RUNDOWN, TYPE_HEADER = 0, 1, 4
COMPRESSED_MODE = 0x04000000
FORMAT_LZNT1, FORMAT_XPRESS, FORMAT_HUFFMAN = 2, 3, 4
MARKER = 0xC0  # TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE

# header types: (pointer size) -> byte 2
SYSTEM = {8: 0x02, 4: 0x01}
COMPACT = {8: 0x04, 4: 0x03}
PERFINFO = {8: 0x11, 4: 0x10}
CLASSIC = {8: 0x14, 4: 0x0A}
INSTANCE = {8: 0x15, 4: 0x0B}
MODERN = {8: 0x13, 4: 0x12}

# kernel hooks (group << 8 | type)
H_HEADER, H_RUNDOWN_COMPLETE = 0x0000, 0x0008
H_PROCESS_START, H_PROCESS_DCSTART = 0x0301, 0x0303
H_IMAGE_LOAD, H_IMAGE_UNLOAD, H_IMAGE_DCSTART = 0x030A, 0x1402, 0x1403
H_THREAD_START, H_THREAD_END, H_THREAD_DCSTART = 0x0501, 0x0502, 0x0503
H_SAMPLE, H_INTERVAL_SET, H_INTERVAL_START = 0x0F2E, 0x0F48, 0x0F49
H_STACK, H_KEY_DELETE, H_KEY_RUNDOWN = 0x1820, 0x1823, 0x1824
H_KEY_KERNEL, H_KEY_USER = 0x1825, 0x1826

# KernelTraceControl b3e675d7-2554-4f18-830b-2762732560de and its opcodes
KTC_GUID = bytes.fromhex("d775e6b35425184f830b2762732560de")
KTC_IMAGE_ID, KTC_DBGID_RSDS = 0, 0x24
# a made-up user provider (EVENT_HEADER events)
SEED_PROVIDER = bytes(range(0x10, 0x20))

PERF_FREQ = 10_000_000
HEADER_TIME = 50_000_000_000        # QPC ticks of the header event
START_FILETIME = 133_000_000_000_000_000  # 2022-06-21, as a FILETIME


def align(n, to=8):
    return (n + to - 1) // to * to


def utf16z(text):
    return text.encode("utf-16-le") + b"\0\0"


def ptr(value, size):
    return struct.pack("<Q" if size == 8 else "<I", value)


# ----------------------------------------------------- MS-XCA plain LZ77

class XpressError(Exception):
    pass


def xpress_compress(data, max_distance=8192, chain=24):
    """[MS-XCA] 2.3 plain LZ77: a flag word reserved ahead of every 32 items
    (bit 31 first, 1 = match), a match the u16 (distance - 1) << 3 |
    min(length - 3, 7), longer lengths through a shared half-byte, a byte,
    a u16 (a u16 of 0 and a u32 from 65539 on); the last flag word padded
    with 1 bits. Greedy, hash chains of the last `chain` positions."""
    out = bytearray(4)
    flags = nflags = flag_pos = 0
    half_byte = None
    heads = {}
    n = len(data)

    def flag(bit):
        nonlocal flags, nflags, flag_pos
        flags = (flags << 1) | bit
        nflags += 1
        if nflags == 32:
            struct.pack_into("<I", out, flag_pos, flags)
            flags = nflags = 0
            flag_pos = len(out)
            out.extend(bytes(4))

    def remember(at):
        if n - at >= 3:
            key = data[at:at + 3]
            lst = heads.setdefault(key, [])
            lst.append(at)
            if len(lst) > chain:
                del lst[0]

    at = 0
    while at < n:
        best = dist = 0
        if n - at >= 3:
            for cand in reversed(heads.get(data[at:at + 3], ())):
                if at - cand > max_distance:
                    break
                k = 3
                while at + k < n and data[cand + k] == data[at + k]:
                    k += 1
                if k > best:
                    best, dist = k, at - cand
        if best >= 3:
            rest = best - 3
            out += struct.pack("<H", ((dist - 1) << 3) | min(rest, 7))
            if rest >= 7:
                half = min(rest - 7, 15)
                if half_byte is None:
                    half_byte = len(out)
                    out.append(half)
                else:
                    out[half_byte] |= half << 4
                    half_byte = None
                if half == 15:
                    if rest - 22 < 255:
                        out.append(rest - 22)
                    else:
                        out.append(255)
                        if rest < 65536:
                            out += struct.pack("<H", rest)
                        else:
                            out += struct.pack("<HI", 0, rest)
            flag(1)
            for i in range(at, at + best):
                remember(i)
            at += best
        else:
            out.append(data[at])
            flag(0)
            remember(at)
            at += 1
    free = 32 - nflags
    flags = 0xFFFFFFFF if free == 32 else ((flags << free) | ((1 << free) - 1)) & 0xFFFFFFFF
    struct.pack_into("<I", out, flag_pos, flags)
    return bytes(out)


def xpress_decompress(src, out_len):
    """[MS-XCA] 2.4.4 plain LZ77 into exactly out_len bytes (XpressError otherwise)."""
    out = bytearray()
    i, n = 0, len(src)
    half_byte = None
    while True:
        if n - i < 4:
            raise XpressError("the input ends inside a flag word at 0x%x" % i)
        flags = int.from_bytes(src[i:i + 4], "little")
        i += 4
        bit = 31
        while bit >= 0:
            if not (flags >> bit) & 1:
                # a run of literals: the zero bits from here down
                run = 1
                while bit - run >= 0 and not (flags >> (bit - run)) & 1:
                    run += 1
                if i + run > n:
                    raise XpressError("the input ends where a literal is due")
                if len(out) + run > out_len:
                    raise XpressError("a literal passes the end of the output")
                out += src[i:i + run]
                i += run
                bit -= run
                continue
            bit -= 1
            if i == n:
                if len(out) != out_len:
                    raise XpressError("the input ends with 0x%x of 0x%x output bytes"
                                      % (len(out), out_len))
                return bytes(out)
            if n - i < 2:
                raise XpressError("the input ends inside a match")
            item = src[i] | src[i + 1] << 8
            i += 2
            length = item & 7
            distance = (item >> 3) + 1
            if length == 7:
                if half_byte is None:
                    if i >= n:
                        raise XpressError("the input ends inside a match length")
                    half_byte = i
                    length = src[i] & 15
                    i += 1
                else:
                    length = src[half_byte] >> 4
                    half_byte = None
                if length == 15:
                    if i >= n:
                        raise XpressError("the input ends inside a match length")
                    length = src[i]
                    i += 1
                    if length == 255:
                        if n - i < 2:
                            raise XpressError("the input ends inside a match length")
                        length = src[i] | src[i + 1] << 8
                        i += 2
                        if length == 0:
                            if n - i < 4:
                                raise XpressError("the input ends inside a match length")
                            length = int.from_bytes(src[i:i + 4], "little")
                            i += 4
                        if length < 22:
                            raise XpressError("a long length under 22")
                        length -= 22
                    length += 15
                length += 7
            length += 3
            if distance > len(out):
                raise XpressError("a match before the start of the output")
            if len(out) + length > out_len:
                raise XpressError("a match passes the end of the output")
            start = len(out) - distance
            if distance >= length:
                out += out[start:start + length]
            else:
                pattern = bytes(out[start:])
                reps, rem = divmod(length, distance)
                out += pattern * reps + pattern[:rem]


# ------------------------------------------------------------ event headers

def system_event(hook, tid, pid, time, payload, p=8, version=2, compact=False):
    fixed = 0x18 if compact else 0x20
    head = struct.pack("<HBBHBBIIQ", version, (COMPACT if compact else SYSTEM)[p], MARKER,
                       fixed + len(payload), hook & 0xFF, hook >> 8, tid, pid, time)
    if not compact:
        head += struct.pack("<II", 3, 1)  # kernel and user time
    return head + payload


def perfinfo_event(hook, time, payload, p=8, version=2, extra=b""):
    """PERFINFO_TRACE_HEADER; extra = the PEBS/PMC values its version announces."""
    head = struct.pack("<HBBHBBQ", version, PERFINFO[p], MARKER, 0x10 + len(extra) + len(payload),
                       hook & 0xFF, hook >> 8, time)
    return head + extra + payload


def classic_event(guid, opcode, tid, pid, time, payload, p=8, version=2, instance=False):
    fixed = 0x48 if instance else 0x30
    head = struct.pack("<HBBBBHIIQ16sII", fixed + len(payload), (INSTANCE if instance else CLASSIC)[p],
                       MARKER, opcode, 0, version, tid, pid, time, guid, 5, 6)
    if instance:
        head += struct.pack("<IIQ8s", 7, 8, 0x1234, bytes(8))  # instance id, parent, guid ptr
        head = head[:fixed]
    return head + payload


def modern_event(guid, event_id, tid, pid, time, payload, p=8, opcode=0, ext=()):
    """EVENT_HEADER; ext = [(ext_type, data)] extended items between header and payload."""
    items = b""
    for k, (ext_type, data) in enumerate(ext):
        more = 1 if k + 1 < len(ext) else 0
        item = struct.pack("<HHHH", 8 + len(data), ext_type, more, len(data)) + data
        items += item + bytes(align(len(item)) - len(item))
    flags = 0x01 if ext else 0
    head = struct.pack("<HBBHHIIQ16sHBBBBHQQ16s", 0x50 + len(items) + len(payload), MODERN[p],
                       MARKER, flags, 0, tid, pid, time, guid, event_id, 1, 0, 4, opcode, 0,
                       0x8000000000000000, 0, bytes(16))
    return head + items + payload


# ---------------------------------------------------------------- payloads

def logfile_header(p, cpus, buffer_size, buffers, log_mode, end_time,
                   names=("NT Kernel Logger", "C:\\seed\\trace.etl")):
    """TRACE_LOGFILE_HEADER (pointer size p) with its two names after it."""
    P = 8 if p == 8 else 0
    body = bytearray(272 + P)
    struct.pack_into("<IIIIqIII", body, 0, buffer_size, 0x00000206, 9200, cpus, end_time,
                     156250, 0, log_mode)
    struct.pack_into("<IIIII", body, 36, buffers, 0, p, 0, 2400)
    struct.pack_into("<i", body, 56 + 2 * p, -60)  # TIME_ZONE_INFORMATION.Bias
    struct.pack_into("<qqqII", body, 240 + P, 132_999_000_000_000_000, PERF_FREQ,
                     START_FILETIME, 1, 0)
    return bytes(body) + utf16z(names[0]) + utf16z(names[1])


def process_payload(p, pid, parent, name, version=3, sid=False):
    body = ptr(0xFFFFE00000100000 + pid * 0x100 if p == 8 else 0x84000000 + pid * 0x10, p)
    body += struct.pack("<IIII", pid, parent, 1, 0x103)
    body += ptr(0x1AB000 + pid, p)
    if version >= 4:
        body += struct.pack("<I", 0)  # Flags
    if sid:
        token = ptr(0xFFFFE000CAFE0000 if p == 8 else 0x8CAFE000, p) + ptr(0, p)
        body += token + bytes([1, 5, 0, 0, 0, 0, 0, 5]) + struct.pack("<5I", 21, 1, 2, 3, 1001)
    else:
        body += struct.pack("<I", 0)
    return body + name.encode("ascii") + b"\0" + utf16z(name + " --seed") + utf16z("") + utf16z("")


def thread_payload(p, pid, tid):
    return struct.pack("<II", pid, tid) + b"".join(ptr(0x10000 * (k + 1), p) for k in range(5)) \
        + struct.pack("<BBBBI", 0, 8, 5, 2, 0)


def image_payload(p, base, size, pid, path):
    return ptr(base, p) + ptr(size, p) + struct.pack("<IIII", pid, 0x1234, 0x5A5A5A5A, 0) \
        + ptr(base, p) + struct.pack("<IIII", 0, 0, 0, 0) + utf16z(path)


def image_id_payload(p, base, size, pid, name):
    return ptr(base, p) + ptr(size, p) + struct.pack("<II", pid, 0x5A5A5A5A) + utf16z(name)


def dbgid_payload(p, base, pid, guid, age, pdb):
    return ptr(base, p) + struct.pack("<I", pid) + guid + struct.pack("<I", age) \
        + pdb.encode() + b"\0"


def interval_payload(interval):
    return struct.pack("<III", 0, interval, 10000) + utf16z("Timer")


def sample_payload(p, ip, tid, flags=0):
    return ptr(ip, p) + struct.pack("<IHH", tid, 1, flags)


def stack_payload(p, time, pid, tid, frames):
    return struct.pack("<QII", time, pid, tid) + b"".join(ptr(f, p) for f in frames)


def key_ref_payload(p, time, pid, tid, key):
    return struct.pack("<QII", time, pid, tid) + ptr(key, p)


def key_def_payload(p, key, frames):
    return ptr(key, p) + b"".join(ptr(f, p) for f in frames)


# ------------------------------------------------------------------ buffers

def buffer_header(size, filled, cpu, seq, time, flags, btype, state=0):
    return struct.pack("<IIIIqqQBBHIIHH16s", size, filled, filled, 0, time, seq, 0, cpu, 0, 2,
                       state, filled, flags, btype, bytes(16))


def hook_of(event):
    """A SYSTEM or PERFINFO event's hook, else None."""
    if event[2] in (0x01, 0x02, 0x03, 0x04, 0x10, 0x11):
        return event[6] | event[7] << 8
    return None


class Trace:
    """Events per processor, laid out into buffers (build)."""

    def __init__(self, p=8, cpus=2, buffer_size=1024, compressed=False, log_mode=0x00000001):
        self.p = p
        self.cpus = cpus
        self.buffer_size = buffer_size
        self.compressed = compressed      # True, False, or a set of buffer indexes to compress
        self.log_mode = log_mode
        self.events = [[] for _ in range(cpus)]  # per cpu: (time, order, bytes)
        self.order = 0
        self.lost_buffer = None           # the data buffer index flagged as having lost events
        self.state = FORMAT_XPRESS        # the header buffer's State when compressed
        self.end_time = HEADER_TIME
        self.names = ("NT Kernel Logger", "C:\\seed\\trace.etl")

    def add(self, cpu, time, data):
        self.events[cpu].append((time, self.order, data))
        self.order += 1
        self.end_time = max(self.end_time, time)

    def _chunks(self):
        cap = self.buffer_size - BUFFER_HEADER
        chunks = []
        for cpu, evs in enumerate(self.events):
            cur, used = [], 0
            for time, order, data in sorted(evs, key=lambda e: (e[0], e[1])):
                n = align(len(data))
                assert n <= cap, "an event of %d bytes does not fit a buffer" % n
                if used + n > cap:
                    chunks.append((cpu, cur))
                    cur, used = [], 0
                cur.append((time, data))
                used += n
            if cur:
                chunks.append((cpu, cur))
        chunks.sort(key=lambda c: (c[1][-1][0], c[0]))
        return chunks

    def build(self):
        """The trace's bytes and its layout: {"buffers": [{offset, size, filled, cpu,
        compressed, events: [(at in buffer, size, header type, hook or None)]}]}."""
        chunks = self._chunks()
        compressing = bool(self.compressed)
        mode = self.log_mode | (COMPRESSED_MODE if compressing else 0)
        nbuffers = len(chunks) + 1
        head = logfile_header(self.p, self.cpus, self.buffer_size, nbuffers, mode, self.end_time,
                              self.names)
        header_event = system_event(H_HEADER, 0, 0, HEADER_TIME, head, p=self.p, version=2)
        hsize = 512 if align(len(header_event)) + BUFFER_HEADER <= 512 else 1024
        if self.buffer_size < hsize:  # a tight header buffer
            hsize = align(len(header_event)) + BUFFER_HEADER
        filled = BUFFER_HEADER + align(len(header_event))
        ev = header_event + bytes(align(len(header_event)) - len(header_event))
        out = bytearray(buffer_header(hsize, filled, 0, 0, HEADER_TIME, FLAG_FLUSH, TYPE_HEADER,
                                      self.state if compressing else 0))
        out += ev + b"\xff" * (hsize - filled)
        layout = [{"offset": 0, "size": hsize, "filled": filled, "cpu": 0, "compressed": False,
                   "events": [(BUFFER_HEADER, len(header_event), header_event[2], H_HEADER)]}]
        for index, (cpu, evs) in enumerate(chunks):
            body = bytearray()
            events = []
            for time, data in evs:
                events.append((BUFFER_HEADER + len(body), len(data), data[2], hook_of(data)))
                body += data + bytes(align(len(data)) - len(data))
            filled = BUFFER_HEADER + len(body)
            flags = FLAG_PROC_INDEX | (FLAG_EVENTS_LOST if index == self.lost_buffer else 0)
            squeeze = self.compressed is True or (isinstance(self.compressed, (set, frozenset))
                                                  and index in self.compressed)
            btype = TYPE_RUNDOWN if evs[0][0] <= HEADER_TIME + 10 else TYPE_GENERIC
            if squeeze:
                packed = xpress_compress(bytes(body))
                size = BUFFER_HEADER + len(packed)
                data = buffer_header(size, filled, cpu, index + 1, evs[-1][0],
                                     flags | FLAG_COMPRESSED, btype, self.state) + packed
            else:
                size = self.buffer_size
                data = buffer_header(size, filled, cpu, index + 1, evs[-1][0], flags, btype,
                                     self.state if compressing else 0)
                data += body + b"\xff" * (size - filled)
            layout.append({"offset": len(out), "size": size, "filled": filled, "cpu": cpu,
                           "compressed": squeeze, "events": events})
            out += data
        return bytes(out), {"buffers": layout}


# --------------------------------------------------------------- scenario

class Rng:
    """A tiny deterministic generator (64-bit LCG, high bits)."""

    def __init__(self, seed):
        self.state = seed & (2**64 - 1)

    def next(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        return self.state >> 33

    def below(self, n):
        return self.next() % n

    def chance(self, percent):
        return self.below(100) < percent


class Image:
    def __init__(self, pid, base, size, path, loaded=None, unloaded=None, pdb=None):
        self.pid, self.base, self.size, self.path = pid, base, size, path
        self.loaded, self.unloaded = loaded, unloaded  # times, None: before / after the trace
        self.pdb = pdb                                 # (guid bytes, age, pdb name)

    @property
    def name(self):
        return self.path.rsplit("\\", 1)[-1]

    def holds(self, pid, address, time):
        return (pid == self.pid and self.base <= address < self.base + self.size
                and (self.loaded is None or self.loaded <= time)
                and (self.unloaded is None or time < self.unloaded))


class Scenario:
    """A made-up machine's processes, threads, images and CPU samples, with the
    truth a reader must find (expected), and the events that say it (trace)."""

    def __init__(self, p=8, cpus=2, nsamples=60, seed=1, interval=5000, paths=None,
                 steady=False):
        """paths: None, every frame at any 16-byte step of its image (nearly every
        stack new); or N, each stack one of N call paths of each thread (few
        distinct stacks, as in real traces). steady: frames are drawn from the
        images of the whole trace only, so that a call path keeps its addresses
        when an image loads or unloads, and its frames in the plugin's and the
        driver's ranges change module then."""
        self.p = p
        self.paths = paths
        self.steady = steady
        self.cpus = cpus
        self.interval = interval
        self.rng = Rng(seed)
        self.kernel_boundary = 0xFFFF800000000000 if p == 8 else 0x80000000
        T = HEADER_TIME
        self.ms = PERF_FREQ // 1000
        self.t_start = T + 5 * self.ms
        t_end = self.t_start + (nsamples // cpus + 2) * self.ms
        span = t_end - self.t_start
        self.t_plugin_load = self.t_start + span // 5 + 7
        self.t_plugin_unload = self.t_start + 2 * span // 5 + 7
        self.t_other_load = self.t_start + 3 * span // 5 + 7
        self.t_driver_load = self.t_start + span // 3 + 3
        self.t_thread_start = self.t_start + span // 4 + 5
        self.t_reuse = self.t_start + span // 2 + 5
        self.t_end = t_end
        if p == 8:
            kb = 0xFFFFF80000000000
            a = dict(nt=kb + 0x0, hal=kb + 0x800000, drv=kb + 0x1000000,
                     app=0x7FF6A0000000, ntdll=0x7FFB10000000, k32=0x7FFB0F000000,
                     plugin=0x180000000, worker=0x7FF6B0000000, tool=0x7FF6C0000000,
                     unknown_user=0x1F012340000, unknown_kernel=kb + 0x7000000)
        else:
            a = dict(nt=0x82000000, hal=0x82800000, drv=0x8A000000, app=0x00400000,
                     ntdll=0x77A00000, k32=0x76000000, plugin=0x10000000, worker=0x00500000,
                     tool=0x00600000, unknown_user=0x03400000, unknown_kernel=0x9F000000)
        self.addr = a
        sys32 = "\\Device\\HarddiskVolume2\\Windows\\System32\\"
        self.processes = [(0, "Idle", 3, False), (4, "System", 3, False),
                          (1200, "app.exe", 3, False), (1300, "worker.exe", 4, False),
                          (1400, "my tool.exe", 3, True)]
        self.names = {pid: name for pid, name, _, _ in self.processes}
        guid = lambda k: bytes((k * 17 + i * 29) & 0xFF for i in range(16))
        self.images = [
            Image(0, a["nt"], 0x600000, "\\SystemRoot\\system32\\ntoskrnl.exe",
                  pdb=(guid(1), 2, "ntkrnlmp.pdb")),
            Image(0, a["hal"], 0x80000, "\\SystemRoot\\system32\\hal.dll"),
            Image(0, a["drv"], 0x10000, "\\SystemRoot\\system32\\drivers\\seeddrv.sys",
                  loaded=self.t_driver_load),
            Image(1200, a["app"], 0x30000, "C:\\seed\\app.exe", pdb=(guid(2), 1, "app.pdb")),
            Image(1200, a["ntdll"], 0x1F0000, sys32 + "ntdll.dll", pdb=(guid(3), 2, "ntdll.pdb")),
            Image(1200, a["k32"], 0xC0000, sys32 + "kernel32.dll"),
            Image(1200, a["plugin"], 0x20000, "C:\\seed\\plugin.dll",
                  loaded=self.t_plugin_load, unloaded=self.t_plugin_unload),
            Image(1200, a["plugin"], 0x18000, "C:\\seed\\other.dll", loaded=self.t_other_load),
            Image(1300, a["worker"], 0x10000, "C:\\seed\\worker.exe"),
            Image(1300, a["ntdll"], 0x1F0000, sys32 + "ntdll.dll", pdb=(guid(3), 2, "ntdll.pdb")),
            Image(1400, a["tool"], 0x10000, "C:\\seed\\my tool.exe"),
            Image(1400, a["ntdll"], 0x1F0000, sys32 + "ntdll.dll"),
        ]
        # threads: tid -> [(from time, pid)]; 0 = before the trace
        self.threads = {8: [(0, 4)], 1201: [(0, 1200)], 1202: [(0, 1200)],
                        1203: [(self.t_thread_start, 1200)], 1301: [(0, 1300)],
                        1401: [(0, 1400)], 1500: [(0, 1300), (self.t_reuse, 1400)]}
        self.samples = []   # dicts: cpu, time, tid, ip, kernel, user, how, pid, flags
        self._make_samples(nsamples)

    # -- truth --

    def thread_pid(self, tid, time):
        if tid == 0:
            return 0
        spans = self.threads.get(tid)
        if not spans:
            return None
        pid = spans[0][1]
        for start, who in spans:
            if start <= time:
                pid = who
        return pid

    def module(self, pid, address, time):
        who = 0 if address >= self.kernel_boundary else pid
        for im in self.images:
            if who is not None and im.holds(who, address, time):
                return im.name
        return None

    def user_modules(self, pid, time):
        return [im for im in self.images if im.pid == pid and
                (im.loaded is None or im.loaded <= time) and
                (im.unloaded is None or time < im.unloaded)]

    def _address_in(self, im):
        return im.base + 0x1000 + 0x10 * self.rng.below((im.size - 0x2000) // 0x10)

    def _path_frames(self, make, *args):
        """make(*args), with paths: drawn by a generator of its own seeded with
        one of self.paths call paths, so that stacks repeat."""
        if not self.paths:
            return make(*args)
        main = self.rng
        self.rng = Rng(1 + main.below(self.paths) * 7919)
        try:
            return make(*args)
        finally:
            self.rng = main

    def _kernel_frames(self, time):
        r = self.rng
        kernel = [im for im in self.images if im.pid == 0 and
                  (im.loaded is None or (im.loaded <= time and not self.steady))]
        n = 1 + r.below(4)
        frames = [self._address_in(kernel[r.below(len(kernel))]) for _ in range(n)]
        if r.chance(15):
            frames.insert(r.below(len(frames) + 1), self.addr["unknown_kernel"] + 0x40)
        if r.chance(20):  # an address of the driver's range before it is loaded
            frames.insert(0, self.addr["drv"] + 0x2000)
        frames.append(self._address_in(self.images[0]))  # outermost: ntoskrnl (a kernel address)
        return frames

    def _user_frames(self, pid, time):
        r = self.rng
        mods = self.user_modules(pid, time)
        if self.steady:
            mods = [im for im in mods if im.loaded is None and im.unloaded is None]
        n = 1 + r.below(5)
        frames = [self._address_in(mods[r.below(len(mods))]) for _ in range(n)]
        if pid == 1200 and r.chance(50):
            frames.insert(0, self.addr["plugin"] + 0x1230)  # plugin, other or nothing by the time
        if r.chance(10):
            frames.insert(0, self.addr["unknown_user"] + 0x88)
        ntdll = [im for im in mods if im.name == "ntdll.dll"]
        frames.append(self._address_in(ntdll[0]) if ntdll else self._address_in(mods[0]))
        return frames

    def _make_samples(self, nsamples):
        r = self.rng
        user_threads = [1201, 1202, 1203, 1301, 1401, 1500]
        k = 0
        step = 0
        while k < nsamples:
            time = self.t_start + step * self.ms
            step += 1
            idle_pair = step % 7 == 3   # both processors idle at the same time
            for cpu in range(self.cpus):
                if k >= nsamples:
                    break
                k += 1
                t = time + (0 if idle_pair else cpu * 37)
                s = {"cpu": cpu, "time": t, "kernel": [], "user": [], "flags": 0,
                     "how": "none", "user_cpu": cpu, "key_undefined": False}
                roll = r.below(100)
                forced = {4: 23, 9: 24, 13: 25, 17: 19}.get(k)  # every kind at least once
                if forced is not None and not idle_pair:
                    roll = forced
                if idle_pair or roll < 12:
                    s["tid"] = 0
                    s["flags"] = 1 if r.chance(30) else 0  # a DPC
                    s["kernel"] = self._path_frames(self._kernel_frames, t)
                    s["how"] = "stack" if idle_pair or r.chance(50) else "keys"
                elif roll < 20:
                    s["tid"] = 8
                    s["kernel"] = self._path_frames(self._kernel_frames, t)
                    s["how"] = "stack" if r.chance(50) else "keys"
                elif roll < 23:
                    s["tid"] = 9999  # no Thread event: its process comes from the stack
                    s["user"] = self._path_frames(self._user_frames, 1200, t)
                    s["stack_pid"] = 1200
                    s["how"] = "stack"
                elif roll < 26:
                    s["tid"] = 9998  # no Thread event and no stack: no process at all
                    s["ip"] = (self.addr["unknown_user"] + 0x10 if roll == 24
                               else self._address_in(self.images[0]))
                else:
                    tid = user_threads[r.below(len(user_threads))]
                    if tid == 1203 and t < self.t_thread_start:
                        tid = 1202
                    s["tid"] = tid
                    pid = self.thread_pid(tid, t)
                    kind = r.below(10)
                    if kind == 0:
                        s["ip"] = self._path_frames(self._user_frames, pid, t)[0]
                    else:
                        s["user"] = self._path_frames(self._user_frames, pid, t)
                        if kind >= 6:
                            s["kernel"] = self._path_frames(self._kernel_frames, t)
                        s["how"] = "stack" if kind % 2 else "keys"
                        if s["user"] and r.chance(25):
                            s["user_cpu"] = (cpu + 1) % self.cpus
                pid = self.thread_pid(s["tid"], t)
                s["pid"] = pid if pid is not None else s.get("stack_pid")
                if "ip" not in s:
                    s["ip"] = (s["kernel"] or s["user"])[0]
                self.samples.append(s)
        # one sample whose user key is never defined: it keeps its kernel fragment
        for s in self.samples:
            if s["how"] == "keys" and s["kernel"] and s["user"]:
                s["key_undefined"] = True
                break

    # -- expected output --

    def expected_stacks(self):
        """[(comm or None, pid or None, tid, [names root first])] per sample."""
        rows = []
        for s in self.samples:
            pid, t = s["pid"], s["time"]
            frames = list(s["kernel"]) + ([] if s["key_undefined"] else list(s["user"]))
            if not frames:
                frames = [s["ip"]]
            names = []
            for f in frames:
                name = self.module(pid, f, t)
                names.append("[%s]" % name if name else "[unknown]")
            comm = self.names.get(pid) if pid is not None else None
            rows.append((comm, pid, s["tid"], names[::-1]))
        return rows

    def expected_folded(self, tid=False, weight=1):
        counts = {}
        for comm, pid, t, names in self.expected_stacks():
            parts = []
            if comm is not None:
                root = comm.replace(" ", "_").replace(";", ":")
                if tid:
                    root += "-%s/%d" % ("?" if pid is None else pid, t)
                parts.append(root)
            line = ";".join(parts + names)
            counts[line] = counts.get(line, 0) + weight
        return "".join("%s %d\n" % (line, counts[line])
                       for line in sorted(counts, key=lambda x: x.encode()))

    def expected_progid(self):
        """The `info --progid` lines of the images with a DbgID_RSDS."""
        out = []
        for im in self.images:
            if im.pdb:
                g, age, pdb = im.pdb
                d1, d2, d3 = struct.unpack_from("<IHH", g)
                guid = "%08x-%04x-%04x-%s-%s" % (d1, d2, d3, g[8:10].hex(), g[10:].hex())
                out.append("  pid %d base 0x%x {%s} age %d %s" % (im.pid, im.base, guid, age, pdb))
        return out

    def coverage(self):
        """How many samples (and, after trace(), events) of each kind the trace has."""
        c = {"idle pair": 0, "no process (tid 9998)": 0, "process from the stack (tid 9999)": 0,
             "kernel + user": 0, "no stack": 0, "plugin.dll": 0, "other.dll": 0,
             "plugin range unloaded": 0, "driver before its load": 0, "seeddrv.sys": 0,
             "tid 1500 in 1300": 0, "tid 1500 in 1400": 0, "tid 1203": 0, "undefined key": 0}
        for k, s in enumerate(self.samples):
            t = s["time"]
            twin = [o for o in self.samples if o is not s and o["time"] == t and o["tid"] == s["tid"]]
            c["idle pair"] += bool(twin) and s["tid"] == 0
            c["no process (tid 9998)"] += s["tid"] == 9998
            c["process from the stack (tid 9999)"] += s["tid"] == 9999
            c["kernel + user"] += bool(s["kernel"] and s["user"])
            c["no stack"] += not (s["kernel"] or s["user"])
            c["undefined key"] += s["key_undefined"]
            c["tid 1203"] += s["tid"] == 1203
            if s["tid"] == 1500:
                c["tid 1500 in %d" % s["pid"]] += 1
            for f in s["kernel"] + s["user"] + [s["ip"]]:
                name = self.module(s["pid"], f, t)
                if name in ("plugin.dll", "other.dll", "seeddrv.sys"):
                    c[name] += 1
                elif name is None and f == self.addr["plugin"] + 0x1230:
                    c["plugin range unloaded"] += 1
                elif name is None and f == self.addr["drv"] + 0x2000:
                    c["driver before its load"] += 1
        c.update(getattr(self, "stats", {}))
        return c

    def undefined_keys(self):
        return sum(1 for s in self.samples if s["key_undefined"])

    # -- the events --

    def trace(self, buffer_size=1024, compressed=False, modern=True, lost_buffer=None):
        p, r = self.p, Rng(self.rng.state ^ 0x5EED)
        tr = Trace(p=p, cpus=self.cpus, buffer_size=buffer_size, compressed=compressed)
        tr.lost_buffer = lost_buffer
        T = HEADER_TIME + 1
        # rundown on processor 0: processes, threads, images with their KernelTraceControl twins
        for pid, name, version, sid in self.processes:
            parent = 0 if pid < 8 else 4
            tr.add(0, T, system_event(H_PROCESS_DCSTART, 0, pid, T,
                                      process_payload(p, pid, parent, name, version, sid),
                                      p=p, version=version))
        for tid, spans in sorted(self.threads.items()):
            start, pid = spans[0]
            if start == 0:
                tr.add(0, T, system_event(H_THREAD_DCSTART, tid, pid, T, thread_payload(p, pid, tid),
                                          p=p, version=3, compact=(tid % 2 == 1)))
        for k, im in enumerate(self.images):
            if im.loaded is not None:
                continue
            payload = image_payload(p, im.base, im.size, im.pid, im.path)
            if k == 0:  # DCStart events come with PERFINFO headers too
                tr.add(0, T, perfinfo_event(H_IMAGE_DCSTART, T, payload, p=p, version=3))
            else:
                tr.add(0, T, system_event(H_IMAGE_DCSTART, 0, im.pid, T, payload, p=p, version=3))
            self._ktc(tr, im, T)
        tr.add(0, T + 2, system_event(H_RUNDOWN_COMPLETE, 0, 0, T + 2, b"", p=p))
        tr.add(1 % self.cpus, T + 3, perfinfo_event(H_INTERVAL_START, T + 3,
                                                    interval_payload(self.interval), p=p, version=3))
        # during the trace: thread starts (1500 moves to another process), image loads
        tr.add(1 % self.cpus, self.t_thread_start,
               system_event(H_THREAD_START, 1203, 1200, self.t_thread_start,
                            thread_payload(p, 1200, 1203), p=p, version=3))
        tr.add(0, self.t_reuse - 100, system_event(H_THREAD_END, 1500, 1300, self.t_reuse - 100,
                                                   thread_payload(p, 1300, 1500), p=p, version=3))
        tr.add(0, self.t_reuse, system_event(H_THREAD_START, 1500, 1400, self.t_reuse,
                                             thread_payload(p, 1400, 1500), p=p, version=3))
        for im in self.images:
            if im.loaded is None:
                continue
            cpu = 1 % self.cpus if im.pid == 0 else 0
            tr.add(cpu, im.loaded, system_event(H_IMAGE_LOAD, 1, im.pid, im.loaded,
                                                image_payload(p, im.base, im.size, im.pid, im.path),
                                                p=p, version=3))
            self._ktc(tr, im, im.loaded, cpu)
            if im.unloaded is not None:
                tr.add(cpu, im.unloaded, system_event(
                    H_IMAGE_UNLOAD, 1, im.pid, im.unloaded,
                    image_payload(p, im.base, im.size, im.pid, im.path), p=p, version=3))
        # samples and their stacks
        live = {}        # frames tuple -> key (cached, defined later)
        live_order = []  # the frames tuples of live, each once (evict picks one at random)
        freed = collections.deque()  # (key, time it was deleted)
        stats = self.stats = {"key references": 0, "keys reused": 0, "KeyDelete": 0,
                              "KeyRundown": 0, "Stack": 0, "user fragment on another CPU": 0,
                              "PMC sample": 0, "EVENT_HEADER": 0}
        next_key = [0xFFFFE00011110000 if p == 8 else 0x8EE00000]

        def key_for(frames, t):
            key = live.get(tuple(frames))
            if key is not None:
                return key
            for k, (old, gone) in enumerate(freed):
                if gone + 100 < t:
                    del freed[k]
                    key = old
                    stats["keys reused"] += 1
                    break
            else:
                key = next_key[0]
                next_key[0] += 0x40
            live[tuple(frames)] = key
            live_order.append(tuple(frames))
            return key

        def evict(t, cpu):
            if live and r.chance(35):
                i = r.below(len(live_order))
                frames = live_order[i]
                live_order[i] = live_order[-1]
                live_order.pop()
                key = live.pop(frames)
                tr.add(cpu, t, perfinfo_event(H_KEY_DELETE, t, key_def_payload(p, key, frames),
                                              p=p))
                stats["KeyDelete"] += 1
                freed.append((key, t))

        for n, s in enumerate(self.samples):
            cpu, t, tid = s["cpu"], s["time"], s["tid"]
            pid = s["pid"] if s["pid"] is not None else 0
            extra = b""
            version = 2
            if n % 11 == 5:  # one PMC counter after the header
                version, extra = 0x0102, struct.pack("<Q", 123456)
                stats["PMC sample"] += 1
            tr.add(cpu, t, perfinfo_event(H_SAMPLE, t, sample_payload(p, s["ip"], tid, s["flags"]),
                                          p=p, version=version, extra=extra))
            for part, delay in (("kernel", 1), ("user", 9)):
                frames = s[part]
                if not frames:
                    continue
                on = cpu if part == "kernel" else s["user_cpu"]
                stats["user fragment on another CPU"] += on != cpu
                at = t + delay
                if s["how"] == "stack":
                    tr.add(on, at, perfinfo_event(H_STACK, at, stack_payload(p, t, pid, tid, frames),
                                                  p=p))
                    stats["Stack"] += 1
                elif part == "user" and s["key_undefined"]:
                    tr.add(on, at, perfinfo_event(H_KEY_USER, at, key_ref_payload(
                        p, t, pid, tid, 0xFFFFE000DEAD0000 if p == 8 else 0x8DEAD000), p=p))
                else:
                    stats["key references"] += 1
                    hook = H_KEY_KERNEL if part == "kernel" else H_KEY_USER
                    tr.add(on, at, perfinfo_event(hook, at, key_ref_payload(
                        p, t, pid, tid, key_for(frames, at)), p=p))
            evict(t + 50, cpu)
            if modern and n % 9 == 4:  # a user provider's event with a stack in extended data
                stack = struct.pack("<Q", 77) + b"".join(ptr(f, 8) for f in (s["user"] or [s["ip"]]))
                ext = [(1, bytes(range(16))), (6 if p == 8 else 5, stack)]
                stats["EVENT_HEADER"] += 1
                tr.add(cpu, t + 20, modern_event(SEED_PROVIDER, 11, tid, pid, t + 20,
                                                 b"seed payload\0", p=p, opcode=1,
                                                 ext=ext if n % 2 else ext[1:]))
        # the keys still cached: KeyRundown at the end
        for frames, key in sorted(live.items()):
            tr.add(0, self.t_end, perfinfo_event(H_KEY_RUNDOWN, self.t_end,
                                                 key_def_payload(p, key, frames), p=p))
            stats["KeyRundown"] += 1
        return tr

    def _ktc(self, tr, im, t, cpu=0):
        p = self.p
        tr.add(cpu, t, classic_event(KTC_GUID, KTC_IMAGE_ID, 0, im.pid, t,
                                     image_id_payload(p, im.base, im.size, im.pid, im.name), p=p))
        if im.pdb:
            g, age, pdb = im.pdb
            tr.add(cpu, t, classic_event(KTC_GUID, KTC_DBGID_RSDS, 0, im.pid, t,
                                         dbgid_payload(p, im.base, im.pid, g, age, pdb), p=p))


def no_samples_trace(p=8, buffer_size=1024):
    """Rundown only: processes, threads, images, no samples."""
    s = Scenario(p=p, nsamples=0)
    return s, s.trace(buffer_size=buffer_size, modern=False)


def modern_trace():
    """EVENT_HEADER events with extended items (64- and 32-bit headers), instance-GUID
    classic events, compact SYSTEM headers, PERFINFO samples with PMC/PEBS extras."""
    s = Scenario(p=8, nsamples=10, seed=7)
    tr = s.trace(buffer_size=1024, modern=True)
    t = s.t_start + 3
    for k in range(6):
        ext = [(1, bytes(16)), (6, struct.pack("<QQQ", 5, 0x7FFB10001000, 0x7FFB10002000)),
               (11, b"\x01\x02\x03")][: 1 + k % 3]
        tr.add(k % 2, t + k, modern_event(SEED_PROVIDER, 20 + k, 1201, 1200, t + k,
                                          b"x" * k, p=8 if k % 2 else 4, ext=ext))
        tr.add(k % 2, t + k, classic_event(bytes(16 - k) + bytes(range(k)), k, 1201, 1200, t + k,
                                           b"inst" * k, p=4 if k % 2 else 8, instance=True))
    # a sample with a PEBS value and two PMC counters before its payload
    ip = s.images[0].base + 0x4000
    tr.add(0, t + 9, perfinfo_event(H_SAMPLE, t + 9, sample_payload(8, ip, 0), p=8,
                                    version=0x8202, extra=bytes(24)))
    tr.add(1, t + 9, perfinfo_event(H_SAMPLE, t + 9, sample_payload(4, 0x401000, 1401), p=4,
                                    version=0x0102, extra=bytes(8)))
    for cpu, sample_ip, tid in ((0, ip, 0), (1, 0x401000, 1401)):  # their truth
        s.samples.append({"cpu": cpu, "time": t + 9, "tid": tid, "ip": sample_ip, "kernel": [],
                          "user": [], "flags": 0, "how": "none", "user_cpu": cpu,
                          "key_undefined": False, "pid": s.thread_pid(tid, t + 9)})
    return s, tr


def tiny_trace(compressed=False):
    """A trace small enough to cut at every byte: 256-byte buffers on two processors, one
    process and thread, two images (one with its DbgID_RSDS), three samples (a kernel + user
    stack, a user stack by key, no stack), an EVENT_HEADER event with extended items.
    Returns (bytes, layout, expected folded)."""
    p, T = 8, HEADER_TIME + 1
    nt, exe = 0xFFFFF80000000000, 0x7FF600000000
    tr = Trace(p=p, cpus=2, buffer_size=256, compressed=compressed)
    tr.names = ("K", "t")
    tr.add(0, T, system_event(H_PROCESS_DCSTART, 0, 100, T, process_payload(p, 100, 4, "t.exe")))
    tr.add(0, T, system_event(H_THREAD_DCSTART, 101, 100, T, thread_payload(p, 100, 101),
                              compact=True))
    tr.add(0, T, system_event(H_IMAGE_DCSTART, 0, 0, T,
                              image_payload(p, nt, 0x100000, 0, "\\k\\nt.exe")))
    tr.add(0, T, system_event(H_IMAGE_DCSTART, 0, 100, T,
                              image_payload(p, exe, 0x10000, 100, "\\t.exe")))
    tr.add(1, T, classic_event(KTC_GUID, KTC_DBGID_RSDS, 0, 100, T,
                               dbgid_payload(p, exe, 100, bytes(range(16)), 1, "t.pdb")))
    t1, t2, t3 = T + 10000, T + 20000, T + 30000
    key = 0xFFFFE00000001000
    tr.add(0, t1, perfinfo_event(H_SAMPLE, t1, sample_payload(p, nt + 0x10, 101)))
    tr.add(0, t1 + 1, perfinfo_event(H_STACK, t1 + 1, stack_payload(p, t1, 100, 101,
                                                                     [nt + 0x10, nt + 0x20])))
    tr.add(0, t1 + 2, perfinfo_event(H_STACK, t1 + 2, stack_payload(p, t1, 100, 101,
                                                                     [exe + 0x1000, exe + 0x2000])))
    tr.add(0, t2, perfinfo_event(H_SAMPLE, t2, sample_payload(p, exe + 0x1100, 101)))
    tr.add(0, t2 + 1, perfinfo_event(H_KEY_USER, t2 + 1, key_ref_payload(p, t2, 100, 101, key)))
    tr.add(1, t3, perfinfo_event(H_SAMPLE, t3, sample_payload(p, exe + 0x1200, 101)))
    tr.add(1, t3 + 1, modern_event(SEED_PROVIDER, 3, 101, 100, t3 + 1, b"m",
                                   ext=[(1, bytes(16)), (6, struct.pack("<QQ", 1, exe))]))
    tr.add(1, t3 + 2, perfinfo_event(H_KEY_RUNDOWN, t3 + 2,
                                     key_def_payload(p, key, [exe + 0x1100, exe + 0x3000])))
    data, layout = tr.build()
    expected = ("t.exe;[t.exe] 1\n"
                "t.exe;[t.exe];[t.exe] 1\n"
                "t.exe;[t.exe];[t.exe];[nt.exe];[nt.exe] 1\n")
    return data, layout, expected


def late_key_trace():
    """Two references to one stack key out of time order: thread 101's sample at tA
    has its user stack key referenced late (after the key is deleted, redefined and
    used again), thread 102's sample at tB > tA refers to it early. Each takes the
    first definition of the key at or after its own time: 102's the KeyDelete
    (two frames), 101's the KeyRundown (one frame), as does thread 101's sample at
    tC. Returns (bytes, expected folded)."""
    p, T = 8, HEADER_TIME + 1
    exe = 0x7FF600000000
    tr = Trace(p=p, cpus=2, buffer_size=512)
    tr.names = ("K", "late")
    tr.add(0, T, system_event(H_PROCESS_DCSTART, 0, 100, T, process_payload(p, 100, 4, "t.exe")))
    for tid in (101, 102):
        tr.add(0, T, system_event(H_THREAD_DCSTART, tid, 100, T, thread_payload(p, 100, tid)))
    tr.add(0, T, system_event(H_IMAGE_DCSTART, 0, 100, T,
                              image_payload(p, exe, 0x10000, 100, "\\t.exe")))
    key = 0xFFFFE00000002000
    ta, tb, tc = T + 1000, T + 1100, T + 3000
    tr.add(0, ta, perfinfo_event(H_SAMPLE, ta, sample_payload(p, exe + 0x1000, 101)))
    tr.add(1, tb, perfinfo_event(H_SAMPLE, tb, sample_payload(p, exe + 0x1000, 102)))
    tr.add(1, tb + 1, perfinfo_event(H_KEY_USER, tb + 1, key_ref_payload(p, tb, 100, 102, key)))
    tr.add(1, tb + 50, perfinfo_event(H_KEY_DELETE, tb + 50,
                                      key_def_payload(p, key, [exe + 0x1000, exe + 0x1100])))
    tr.add(0, ta + 1500, perfinfo_event(H_KEY_USER, ta + 1500,
                                        key_ref_payload(p, ta, 100, 101, key)))
    tr.add(0, tc, perfinfo_event(H_SAMPLE, tc, sample_payload(p, exe + 0x1000, 101)))
    tr.add(0, tc + 1, perfinfo_event(H_KEY_USER, tc + 1, key_ref_payload(p, tc, 100, 101, key)))
    tr.add(0, tc + 100, perfinfo_event(H_KEY_RUNDOWN, tc + 100,
                                       key_def_payload(p, key, [exe + 0x2000])))
    data, _ = tr.build()
    return data, "t.exe;[t.exe] 2\nt.exe;[t.exe];[t.exe] 1\n"


def max_time_trace():
    """Three samples of one IP in an image loaded for the whole trace, the last
    at the largest time there is (2^64 - 1), where no image is loaded any more
    (a life ends before its unload time, and "never unloaded" is that time):
    the last sample's frame is in no image. The buffers' times stay below 2^63
    (they are signed). Returns (bytes, expected folded)."""
    p, T = 8, HEADER_TIME + 1
    exe, last = 0x7FF600000000, (1 << 64) - 1
    tr = Trace(p=p, cpus=2, buffer_size=512)
    tr.add(0, T, system_event(H_PROCESS_DCSTART, 0, 100, T, process_payload(p, 100, 4, "t.exe")))
    tr.add(0, T, system_event(H_THREAD_DCSTART, 101, 100, T, thread_payload(p, 100, 101)))
    tr.add(0, T, system_event(H_IMAGE_DCSTART, 0, 100, T,
                              image_payload(p, exe, 0x10000, 100, "\\t.exe")))
    for n, t in enumerate((T + 100, last - 1, last)):
        tr.add(0, min(t, T + 200 + n), perfinfo_event(H_SAMPLE, t, sample_payload(p, exe + 0x1000,
                                                                                  101)))
    data, _ = tr.build()
    return data, "t.exe;[t.exe] 2\nt.exe;[unknown] 1\n"


def shared_stacks_trace(nprocesses):
    """nprocesses processes of one thread each, whose two samples share one kernel
    stack key and one of two user stack keys, each key 1,024 frames long: the
    stacks are few, the (stack, process) pairs many. Returns the bytes."""
    p, T = 8, HEADER_TIME + 1
    tr = Trace(p=p, cpus=2, buffer_size=65536)
    kernel, users = 0xFFFFE00000001000, (0xFFFFE00000002000, 0xFFFFE00000003000)
    threads = [(1000 + 4 * j, 1001 + 4 * j) for j in range(nprocesses)]
    for pid, tid in threads:
        tr.add(0, T, system_event(H_THREAD_DCSTART, tid, pid, T, thread_payload(p, pid, tid)))
    t = T + 10
    for pid, tid in threads:
        for user in users:
            t += 10
            tr.add(1, t, perfinfo_event(H_SAMPLE, t, sample_payload(p, 0x401000, tid)))
            tr.add(1, t + 1, perfinfo_event(H_KEY_KERNEL, t + 1,
                                            key_ref_payload(p, t, pid, tid, kernel)))
            tr.add(1, t + 2, perfinfo_event(H_KEY_USER, t + 2, key_ref_payload(p, t, pid, tid, user)))
    t += 100
    for n, (key, base) in enumerate(((kernel, 0xFFFFF80000000000), (users[0], 0x10000),
                                     (users[1], 0x90000))):
        tr.add(1, t + n, perfinfo_event(H_KEY_RUNDOWN, t + n, key_def_payload(
            p, key, [base + 16 * i for i in range(1024)])))
    return tr.build()[0]


# -------------------------------------------------- the generated traces

def scenario(name):
    """(Scenario, Trace) of a named generated trace."""
    if name == "plain64":
        s = Scenario(p=8, nsamples=80, seed=1)
        return s, s.trace(buffer_size=1024)
    if name == "xpress64":
        s = Scenario(p=8, nsamples=80, seed=1)
        return s, s.trace(buffer_size=4096, compressed=True)
    if name == "plain32":
        s = Scenario(p=4, nsamples=80, seed=2)
        return s, s.trace(buffer_size=1024)
    if name == "xpress32":
        s = Scenario(p=4, nsamples=80, seed=2)
        return s, s.trace(buffer_size=2048, compressed=True)
    if name == "mixed":
        s = Scenario(p=8, cpus=4, nsamples=120, seed=3)
        return s, s.trace(buffer_size=2048, compressed={0, 2, 3, 5, 7, 8}, lost_buffer=1)
    if name == "small":   # for the truncation sweep: few buffers, each small
        s = Scenario(p=8, nsamples=10, seed=4)
        return s, s.trace(buffer_size=512, modern=False)
    if name == "small-xpress":
        s = Scenario(p=8, nsamples=10, seed=4)
        return s, s.trace(buffer_size=1024, compressed=True, modern=False)
    if name == "large":   # past the reader's 4 MiB: read as two ranges at once
        s = Scenario(p=8, nsamples=40000, seed=6)
        return s, s.trace(buffer_size=65536, compressed={3, 4, 60, 61, 80}, lost_buffer=70)
    if name == "paths":   # stacks that repeat: samples of one key added at once
        s = Scenario(p=8, nsamples=12000, seed=7, paths=6, steady=True)
        return s, s.trace(buffer_size=65536, compressed={1, 2})
    if name == "modern":
        return modern_trace()
    if name == "nosamples":
        return no_samples_trace()
    raise KeyError(name)


TRACES = ["plain64", "xpress64", "plain32", "xpress32", "mixed", "small", "small-xpress",
          "large", "paths", "modern", "nosamples"]


def write_tiny(path, compressed=False):
    data, layout, expected = tiny_trace(compressed)
    with open(path, "wb") as f:
        f.write(data)
    return layout, expected

SEEDS = [
    ("plain64.etl", lambda: seed_of(Scenario(p=8, nsamples=30, seed=11), 1024, False)),
    ("xpress64.etl", lambda: seed_of(Scenario(p=8, nsamples=30, seed=11), 2048, True)),
    ("plain32.etl", lambda: seed_of(Scenario(p=4, nsamples=30, seed=12), 1024, False)),
    ("xpress32.etl", lambda: seed_of(Scenario(p=4, nsamples=30, seed=12), 2048, True)),
    ("mixed.etl", lambda: seed_of(Scenario(p=8, cpus=3, nsamples=24, seed=13), 1024, {1, 3})),
    ("modern.etl", lambda: modern_trace()[1].build()[0]),
    ("nosamples.etl", lambda: no_samples_trace(buffer_size=1024)[1].build()[0]),
    ("tiny.etl", lambda: tiny_trace(False)[0]),
    ("tiny-xpress.etl", lambda: tiny_trace(True)[0]),
    ("late-key.etl", lambda: late_key_trace()[0]),
    ("max-time.etl", lambda: max_time_trace()[0]),
]


def seed_of(s, buffer_size, compressed):
    tr = s.trace(buffer_size=buffer_size, compressed=compressed, lost_buffer=2)
    return tr.build()[0]


# ------------------------------------------------------------ reading back

def buffers(data):
    """[(offset, size, filled, flags, cpu)] of a well-formed trace."""
    out, off = [], 0
    while off < len(data):
        size, = struct.unpack_from("<I", data, off)
        filled, flags = struct.unpack_from("<IH", data, off + 0x30)
        out.append((off, size, filled, flags, data[off + 0x28]))
        off += size
    return out


def relayout(data):
    """The trace with every compressed buffer decompressed and stored plain: flag 0x40
    cleared, BufferSize the filled bytes rounded up to 8 (0xFF fill), the header event's
    LogFileMode without EVENT_TRACE_COMPRESSED_MODE. The header buffer's State stays."""
    out = bytearray()
    for off, size, filled, flags, _ in buffers(data):
        b = data[off:off + size]
        if flags & FLAG_COMPRESSED:
            events = xpress_decompress(b[BUFFER_HEADER:], filled - BUFFER_HEADER)
            new_size = align(filled)
            head = bytearray(b[:BUFFER_HEADER])
            struct.pack_into("<I", head, 0, new_size)
            struct.pack_into("<H", head, 0x34, flags & ~FLAG_COMPRESSED)
            out += head + events + b"\xff" * (new_size - filled)
        else:
            out += b
    # the EventTrace header: the first event of the header buffer, a SYSTEM header
    if len(out) > BUFFER_HEADER + 0x20 + 36 and out[BUFFER_HEADER + 2] in (0x01, 0x02):
        at = BUFFER_HEADER + 0x20 + 32
        mode, = struct.unpack_from("<I", out, at)
        struct.pack_into("<I", out, at, mode & ~COMPRESSED_MODE)
    return bytes(out)


# ------------------------------------------------------------------- main

def write_trace(name, path, expected=None):
    s, tr = scenario(name)
    data, _ = tr.build()
    with open(path, "wb") as f:
        f.write(data)
    if expected:
        for suffix, text in ((".folded", s.expected_folded()),
                             (".tid.folded", s.expected_folded(tid=True)),
                             (".cpu.folded", s.expected_folded(weight=s.interval * 100)),
                             (".progid", "".join(line + "\n" for line in s.expected_progid())),
                             (".undefined", "%d\n" % s.undefined_keys())):
            with open(expected + suffix, "w") as f:
                f.write(text)


def main(argv):
    if len(argv) > 1 and argv[1] == "trace":
        write_trace(argv[2], argv[3], argv[4] if len(argv) > 4 else None)
        return 0
    if len(argv) > 1 and argv[1] == "coverage":
        for name in argv[2:] or TRACES:
            s, _ = scenario(name)
            print(name, ", ".join("%s %d" % kv for kv in s.coverage().items()))
        return 0
    if len(argv) > 1 and argv[1] == "relayout":
        with open(argv[2], "rb") as f:
            data = relayout(f.read())
        with open(argv[3], "wb") as f:
            f.write(data)
        return 0
    out_dir = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "etl")
    os.makedirs(out_dir, exist_ok=True)
    for name, make in SEEDS:
        data = make()
        assert len(data) < 16384, (name, len(data))
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
