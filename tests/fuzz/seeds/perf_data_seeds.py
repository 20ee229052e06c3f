#!/usr/bin/env python3
"""perf_data_seeds.py - writes the seed corpus of fuzz_perf_data (tests/fuzz/corpus/perf_data): small perf.data
files made from scratch (no capture of this machine: no real paths, hosts
or build ids), each under 8 KiB, the same bytes on every run.

    python3 perf_data_seeds.py [DIR]   writes the seeds into DIR
                                      (default: ../corpus/perf_data)

The layouts follow the kernel's include/uapi/linux/perf_event.h, perf's
tools/perf/Documentation/perf.data-file-format.txt and util/header.c, as
summarized in shared/research/perfdata.md sections 1-3:

  file mode   104-byte header {magic, size, attr_size, attrs, data,
              event_types, adds_features[4]}, the attrs section (each
              perf_event_attr followed by the {offset, size} of its u64
              ids), the ids, the data section (records), then one
              {offset, size} per feature bit set, in bit order, and the
              features' payloads.
  pipe mode   16-byte header {magic, size = 16}, then records only: the
              attrs as HEADER_ATTR, the features as HEADER_FEATURE (closed
              by feat_id 32, HEADER_LAST_FEATURE), then the data.
  big endian  every field in big-endian order: the magic reads "2ELIFREP",
              and the attr's bit-field word keeps its byte order but each
              byte has its bits reversed (a big-endian compiler allocates
              bit-fields from each byte's top bit; perf's swap_bitfield).
  zstd        COMPRESSED (81) records whose payloads are consecutive pieces
              of one zstd stream of records (a record may straddle two
              pieces); COMPRESSED2 (83) has a u64 data_size and pads to 8.
              Made with the zstd command-line tool: without it the zstd
              seeds are skipped with a message.

The e2e test tests/e2e/perf_data_malformed.sh imports this module: Perf
builds a file and returns its bytes with a layout (where each section and
record lies) that the test patches to make malformed variants.

Seeds:
  file-le.data     two events (cpu-clock with PERIOD, page-faults without),
                   IDENTIFIER, sample_id_all trailers, callchains with
                   KERNEL/USER context markers, MMAP (kernel), MMAP2 (one
                   with a build id), COMM, FORK, EXIT, FINISHED_ROUND, an
                   out-of-order sample; features HOSTNAME, BUILD_ID,
                   EVENT_DESC
  file-be.data     the same, big-endian
  pipe.data        the same in pipe mode, with ID_INDEX, EVENT_UPDATE,
                   FINISHED_INIT
  pipe-be.data     the same pipe, big-endian
  file-zstd.data   file mode, the data after the first records in three
                   COMPRESSED pieces (records cut across pieces); feature
                   COMPRESSED
  pipe-zstd.data   pipe mode, one event with ID (no IDENTIFIER), two COMPRESSED
                   pieces
  pipe-zstd2.data  the same with COMPRESSED2 records (perf 6.1 knows none)
  pipe-zstd-raw.data  big-endian pipe mode, COMPRESSED records of one zstd
                   frame of raw (stored) blocks made here (no zstd tool
                   needed): the records inside stay plain bytes for the
                   fuzzer to change (perf 6.1 reads its little-endian twin;
                   its pipe mode does not swap a big-endian COMPRESSED
                   feature)
  file-dwarf.data  --call-graph dwarf: REGS_USER, STACK_USER,
                   exclude_callchain_user
  file-misc.data   one event with most sample fields (ADDR, ID, STREAM_ID,
                   READ group format, RAW, BRANCH_STACK with HW_INDEX,
                   WEIGHT, DATA_SRC...), LOST, LOST_SAMPLES, THROTTLE,
                   SWITCH, KSYMBOL, an unknown type, AUXTRACE_INFO,
                   AUXTRACE with its trailing data, an anonymous (JIT) map,
                   a guest sample; many features, one not read (CPUID)
  file-ver0.data   a 64-byte (PERF_ATTR_SIZE_VER0) attr, no sample_id_all,
                   no callchains, no features
"""
import os
import shutil
import struct
import subprocess
import sys

MAGIC = 0x32454C4946524550  # "PERFILE2" stored little-endian
FILE_HEADER_BYTES = 104
PIPE_HEADER_BYTES = 16
NAME_ALIGN = 64

# sample_type bits
S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN, S_ID, S_CPU = (1 << i for i in range(8))
S_PERIOD, S_STREAM_ID, S_RAW, S_BRANCH_STACK, S_REGS_USER, S_STACK_USER = (1 << i for i in range(8, 14))
S_WEIGHT, S_DATA_SRC, S_IDENTIFIER, S_TRANSACTION = (1 << i for i in range(14, 18))
S_REGS_INTR, S_PHYS_ADDR = 1 << 18, 1 << 19

# read_format bits
R_TOTAL_TIME_ENABLED, R_TOTAL_TIME_RUNNING, R_ID, R_GROUP, R_LOST = (1 << i for i in range(5))

# perf_event_attr bit-field numbers
F_DISABLED, F_INHERIT, F_MMAP, F_COMM, F_FREQ = 0, 1, 8, 9, 10
F_SAMPLE_ID_ALL, F_EXCLUDE_CALLCHAIN_USER, F_MMAP2, F_COMM_EXEC = 18, 22, 23, 24

# record types
MMAP, LOST, COMM, EXIT, THROTTLE, UNTHROTTLE, FORK, READ, SAMPLE, MMAP2 = range(1, 11)
LOST_SAMPLES, SWITCH, KSYMBOL = 13, 14, 17
HEADER_ATTR, HEADER_BUILD_ID, FINISHED_ROUND, ID_INDEX = 64, 67, 68, 69
AUXTRACE_INFO, AUXTRACE, EVENT_UPDATE, HEADER_FEATURE = 70, 71, 78, 80
COMPRESSED, FINISHED_INIT, COMPRESSED2 = 81, 82, 83

# misc
MISC_KERNEL, MISC_USER, MISC_GUEST_USER = 1, 2, 5
MISC_COMM_EXEC = 1 << 13
MISC_MMAP_BUILD_ID = 1 << 14
MISC_BUILD_ID_SIZE = 1 << 15

# callchain context markers, as u64
CONTEXT_KERNEL = (1 << 64) - 128
CONTEXT_USER = (1 << 64) - 512

# feature bits
FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH = 2, 3, 4, 5, 6
FEAT_NRCPUS, FEAT_CPUDESC, FEAT_CPUID, FEAT_CMDLINE, FEAT_EVENT_DESC = 7, 8, 9, 11, 12
FEAT_SAMPLE_TIME, FEAT_COMPRESSED, FEAT_LAST = 21, 27, 32

KERNEL_START = 0xFFFFFFFF81000000
PROG, LIB = "/nonexistent/seed/prog", "/nonexistent/seed/libseed.so"


def align(n, to):
    return (n + to - 1) // to * to


def pad(data, to=8):
    return data + b"\0" * (align(len(data), to) - len(data))


class Enc:
    """Field packing in one byte order."""

    def __init__(self, big_endian=False):
        self.big = big_endian
        self.order = ">" if big_endian else "<"

    def pack(self, fmt, *values):
        return struct.pack(self.order + fmt, *values)

    def u8(self, v):
        return struct.pack("B", v & 0xFF)

    def u16(self, v):
        return self.pack("H", v & 0xFFFF)

    def u32(self, v):
        return self.pack("I", v & 0xFFFFFFFF)

    def u64(self, v):
        return self.pack("Q", v & 0xFFFFFFFFFFFFFFFF)

    def u64s(self, values):
        return b"".join(self.u64(v) for v in values)

    def magic(self):
        return self.u64(MAGIC)

    def bits(self, numbers):
        """The attr's bit-field word: little-endian bytes; big-endian reverses each byte's bits."""
        word = 0
        for n in numbers:
            word |= 1 << n
        data = bytearray(struct.pack("<Q", word))
        if self.big:
            for i, b in enumerate(data):
                data[i] = int("{:08b}".format(b)[::-1], 2)
        return bytes(data)

    def string(self, text):
        """perf_header_string: u32 len, then the text NUL-padded to NAME_ALIGN."""
        raw = text.encode() + b"\0"
        raw = pad(raw, NAME_ALIGN)
        return self.u32(len(raw)) + raw


class Attr:
    """A perf_event_attr and its ids and name."""

    def __init__(self, name, type_, config, period, sample_type, flags, ids, read_format=0,
                 branch_sample_type=0, regs_user=0, stack_user=0, size=128):
        self.name, self.type, self.config, self.period = name, type_, config, period
        self.sample_type, self.flags, self.ids = sample_type, flags, list(ids)
        self.read_format, self.branch_sample_type = read_format, branch_sample_type
        self.regs_user, self.stack_user, self.size = regs_user, stack_user, size

    def encode(self, e):
        data = (e.u32(self.type) + e.u32(self.size) + e.u64(self.config) + e.u64(self.period) +
                e.u64(self.sample_type) + e.u64(self.read_format) + e.bits(self.flags) +
                e.u32(1) + e.u32(0) +                 # wakeup_events, bp_type
                e.u64(0) + e.u64(0) +                 # config1, config2
                e.u64(self.branch_sample_type) + e.u64(self.regs_user) +
                e.u32(self.stack_user) + e.u32(0) +   # sample_stack_user, clockid
                e.u64(0) +                            # sample_regs_intr
                e.u32(0) + e.u16(127) + e.u16(0) +    # aux_watermark, sample_max_stack
                e.u32(0) + e.u32(0) + e.u64(0))       # aux_sample_size, reserved, sig_data
        assert len(data) == 128
        return data[:self.size] + b"\0" * max(0, self.size - 128)

    def trailer(self, e, pid, tid, time, cpu=0):
        """The sample_id_all trailer: [pid,tid] [time] [id] [stream_id] [cpu,res] [identifier]."""
        if not self.flags or F_SAMPLE_ID_ALL not in self.flags:
            return b""
        t, out = self.sample_type, b""
        if t & S_TID:
            out += e.u32(pid) + e.u32(tid)
        if t & S_TIME:
            out += e.u64(time)
        if t & S_ID:
            out += e.u64(self.ids[0])
        if t & S_STREAM_ID:
            out += e.u64(self.ids[0])
        if t & S_CPU:
            out += e.u32(cpu) + e.u32(0)
        if t & S_IDENTIFIER:
            out += e.u64(self.ids[0])
        return out


def record(e, type_, misc, body):
    size = 8 + len(body)
    assert size <= 0xFFFF, size
    return e.u32(type_) + e.u16(misc) + e.u16(size) + body


class Records:
    """Builds a data section: records in order, each with its offset in the section."""

    def __init__(self, e, attrs):
        self.e, self.attrs, self.items = e, attrs, []

    def add(self, type_, misc, body, extra=b""):
        """extra: bytes after the record outside its size (AUXTRACE data)."""
        self.items.append((type_, record(self.e, type_, misc, body) + extra))

    def mmap(self, attr, pid, tid, addr, length, pgoff, name, time, misc=MISC_USER):
        e = self.e
        body = e.u32(pid) + e.u32(tid) + e.u64s([addr, length, pgoff]) + pad(name.encode() + b"\0")
        self.add(MMAP, misc, body + attr.trailer(e, pid, tid, time))

    def mmap2(self, attr, pid, tid, addr, length, pgoff, name, time, prot=5, build_id=None):
        e = self.e
        if build_id is None:
            ident, misc = e.u32(8) + e.u32(1) + e.u64(0x1234) + e.u64(0), MISC_USER
        else:
            ident = e.u8(len(build_id)) + b"\0\0\0" + build_id.ljust(20, b"\0")
            misc = MISC_USER | MISC_MMAP_BUILD_ID
        body = (e.u32(pid) + e.u32(tid) + e.u64s([addr, length, pgoff]) + ident + e.u32(prot) +
                e.u32(2) + pad(name.encode() + b"\0"))
        self.add(MMAP2, misc, body + attr.trailer(e, pid, tid, time))

    def comm(self, attr, pid, tid, name, time, exec_=False):
        e = self.e
        body = e.u32(pid) + e.u32(tid) + pad(name.encode() + b"\0")
        self.add(COMM, MISC_COMM_EXEC if exec_ else 0, body + attr.trailer(e, pid, tid, time))

    def fork(self, attr, type_, pid, ppid, tid, ptid, time):
        e = self.e
        body = e.u32(pid) + e.u32(ppid) + e.u32(tid) + e.u32(ptid) + e.u64(time)
        self.add(type_, 0, body + attr.trailer(e, pid, tid, time))

    def sample(self, attr, misc, ip, pid, tid, time, period=1, chain=(), cpu=0, extra=None):
        """extra: a function (e, attr) -> bytes for the fields after CALLCHAIN."""
        e, t = self.e, attr.sample_type
        body = b""
        if t & S_IDENTIFIER:
            body += e.u64(attr.ids[0])
        if t & S_IP:
            body += e.u64(ip)
        if t & S_TID:
            body += e.u32(pid) + e.u32(tid)
        if t & S_TIME:
            body += e.u64(time)
        if t & S_ADDR:
            body += e.u64(0x601000)
        if t & S_ID:
            body += e.u64(attr.ids[0])
        if t & S_STREAM_ID:
            body += e.u64(attr.ids[0])
        if t & S_CPU:
            body += e.u32(cpu) + e.u32(0)
        if t & S_PERIOD:
            body += e.u64(period)
        if t & S_READ:
            body += extra_read(e, attr)
        if t & S_CALLCHAIN:
            body += e.u64(len(chain)) + e.u64s(chain)
        if extra:
            body += extra(e, attr)
        self.add(SAMPLE, misc, body)

    def round(self):
        self.add(FINISHED_ROUND, 0, b"")

    def layout(self, start):
        """[(offset, type, size)] with the records starting at offset start."""
        out, at = [], start
        for type_, data in self.items:
            out.append((at, type_, len(data)))
            at += len(data)
        return out

    def bytes(self):
        return b"".join(data for _, data in self.items)


def extra_read(e, attr):
    """read_format values: with GROUP, nr then {value, [id], [lost]} per member."""
    f = attr.read_format
    head = (e.u64(1000) if f & R_TOTAL_TIME_ENABLED else b"") + \
           (e.u64(900) if f & R_TOTAL_TIME_RUNNING else b"")
    member = e.u64(42) + (e.u64(attr.ids[0]) if f & R_ID else b"") + (e.u64(0) if f & R_LOST else b"")
    if f & R_GROUP:
        return e.u64(2) + head + member + member
    return member[:8] + head + member[8:]


# ---- features ----

def event_desc(e, attrs):
    out = e.u32(len(attrs)) + e.u32(128)
    for a in attrs:
        size, a.size = a.size, 128
        out += a.encode(e) + e.u32(len(a.ids)) + e.string(a.name) + e.u64s(a.ids)
        a.size = size
    return out


def build_ids(e, entries):
    """BUILD_ID: {header (type 0, misc = cpumode | BUILD_ID_SIZE, size); pid; build_id[24]; filename}."""
    out = b""
    for pid, misc, bid, path in entries:
        name = pad(path.encode() + b"\0", NAME_ALIGN)
        out += (e.u32(0) + e.u16(misc | MISC_BUILD_ID_SIZE) + e.u16(36 + len(name)) + e.u32(pid) +
                bid.ljust(20, b"\0") + e.u8(len(bid)) + b"\0\0\0" + name)
    return out


def cmdline(e, args):
    return e.u32(len(args)) + b"".join(e.string(a) for a in args)


# ---- containers ----

def file_mode(e, attrs, records, features):
    """A file-mode perf.data: its bytes and a layout dict."""
    nattrs, attr_size = len(attrs), attrs[0].size + 16
    attrs_offset = FILE_HEADER_BYTES
    ids_offset = attrs_offset + nattrs * attr_size
    ids_at, at = [], ids_offset
    for a in attrs:
        ids_at.append(at)
        at += 8 * len(a.ids)
    data_offset = at
    data = records.bytes()
    data_end = data_offset + len(data)
    bits = sorted(features)
    table_at = data_end
    payload_at = table_at + 16 * len(bits)
    table, payloads, feature_at = b"", b"", {}
    for bit in bits:
        feature_at[bit] = (payload_at + len(payloads), len(features[bit]))
        table += e.u64(payload_at + len(payloads)) + e.u64(len(features[bit]))
        payloads += features[bit]
    words = [0, 0, 0, 0]
    for bit in bits:
        words[bit // 64] |= 1 << (bit % 64)
    header = (e.magic() + e.u64(FILE_HEADER_BYTES) + e.u64(attr_size) +
              e.u64(attrs_offset) + e.u64(nattrs * attr_size) +
              e.u64(data_offset) + e.u64(len(data)) + e.u64(0) + e.u64(0) + e.u64s(words))
    assert len(header) == FILE_HEADER_BYTES
    section = b""
    for a, where in zip(attrs, ids_at):
        section += a.encode(e) + e.u64(where) + e.u64(8 * len(a.ids))
    ids = b"".join(e.u64s(a.ids) for a in attrs)
    out = header + section + ids + data + table + payloads
    layout = {
        "mode": "file", "attrs_offset": attrs_offset, "attr_size": attr_size, "nattrs": nattrs,
        "ids_offset": ids_offset, "data_offset": data_offset, "data_size": len(data),
        "data_end": data_end, "table_offset": table_at, "features": feature_at,
        "records": records.layout(data_offset), "size": len(out),
    }
    return out, layout


def pipe_mode(e, attrs, features, records, before=b""):
    """A pipe-mode perf.data: HEADER_ATTRs, HEADER_FEATUREs closed by feat 32, then records."""
    head = Records(e, attrs)
    for a in attrs:
        head.add(HEADER_ATTR, 0, a.encode(e) + e.u64s(a.ids))
    for bit in sorted(features):
        head.add(HEADER_FEATURE, 0, e.u64(bit) + features[bit])
    head.add(HEADER_FEATURE, 0, e.u64(FEAT_LAST))
    head.items.extend(records.items)
    out = e.magic() + e.u64(PIPE_HEADER_BYTES) + head.bytes()
    layout = {"mode": "pipe", "records": head.layout(PIPE_HEADER_BYTES), "size": len(out),
              "data_offset": PIPE_HEADER_BYTES}
    return out, layout


def zstd_frame(data):
    """data as one zstd frame (level 1, no checksum, as perf record -z), or None without zstd."""
    tool = shutil.which("zstd")
    if not tool:
        return None
    return subprocess.run([tool, "-q", "-1", "-c", "--no-check", "--no-content-size", "-"], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def zstd_blocks_end(frame):
    """The offset of the last block header of a zstd frame made by zstd_frame."""
    assert frame[:4] == b"\x28\xb5\x2f\xfd"
    fhd = frame[4]
    fcs_flag, single, checksum, dict_flag = fhd >> 6, fhd >> 5 & 1, fhd >> 2 & 1, fhd & 3
    assert not checksum
    at = 5 + (0 if single else 1) + [0, 1, 2, 4][dict_flag]
    at += [1 if single else 0, 2, 4, 8][fcs_flag]
    while True:
        header = int.from_bytes(frame[at:at + 3], "little")
        last, kind, size = header & 1, header >> 1 & 3, header >> 3
        if last:
            return at
        at += 3 + (1 if kind == 1 else size)


def zstd_stream_pieces(data, cuts):
    """One zstd stream of data in pieces, as perf record -z writes it: data is cut at the
    byte fractions cuts (inside records), the first chunk is compressed (the frame's
    start, its blocks), each later chunk is one more block of the same frame (a raw
    block), the last block marked last: each piece ends at a block end (perf flushes
    the stream after each record), only the first piece starts with the frame magic.
    None without zstd."""
    points = [0] + [int(len(data) * c) for c in cuts] + [len(data)]
    chunks = [data[lo:hi] for lo, hi in zip(points, points[1:])]
    frame = zstd_frame(chunks[0])
    if frame is None:
        return None
    last = zstd_blocks_end(frame)
    first = bytearray(frame)
    if len(chunks) > 1:
        first[last] &= 0xFE  # no longer the last block
    pieces = [bytes(first)]
    for i, chunk in enumerate(chunks[1:]):
        header = (len(chunk) << 3) | (0 << 1) | (1 if i == len(chunks) - 2 else 0)  # raw block
        pieces.append(header.to_bytes(3, "little") + chunk)
    return pieces


def zstd_raw_stream(chunks):
    """One zstd frame made by hand of raw (stored) blocks, one per chunk, cut into one
    piece per chunk (the first with the frame header): no zstd tool needed, and the
    records inside are plain bytes that a fuzzer can change without breaking the frame."""
    header = b"\x28\xb5\x2f\xfd" + bytes([0x00, 0x50])  # no size, checksum or dict; 1 MiB window
    pieces = []
    for i, chunk in enumerate(chunks):
        block = ((len(chunk) << 3) | (1 if i == len(chunks) - 1 else 0)).to_bytes(3, "little")
        pieces.append((header if i == 0 else b"") + block + chunk)
    return pieces


def compressed_records(e, inner, cuts, type_=COMPRESSED):
    """inner's records as one zstd stream in COMPRESSED(2) records; None without zstd."""
    pieces = zstd_stream_pieces(inner.bytes(), cuts)
    if pieces is None:
        return None
    out = []
    for piece in pieces:
        body = pad(e.u64(len(piece)) + piece) if type_ == COMPRESSED2 else piece
        out.append((type_, record(e, type_, 0, body)))
    return out


# ---- the seeds' contents ----

CALLER = 0x401100

def two_events():
    ids = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_CALLCHAIN
    flags = [F_DISABLED, F_INHERIT, F_MMAP, F_COMM, F_SAMPLE_ID_ALL, F_MMAP2, F_COMM_EXEC]
    return [Attr("cpu-clock", 1, 0, 4000, ids | S_PERIOD, flags + [F_FREQ], [101, 102]),
            Attr("page-faults", 1, 2, 1, ids, flags, [201, 202])]


def base_records(e, attrs, first=True, rest=True):
    """The data of file-le.data: maps, threads, samples of both events with callchains."""
    clock, faults = attrs
    r = Records(e, attrs)
    if first:
        r.mmap(clock, -1, 0, KERNEL_START, 0x1000000, KERNEL_START, "[kernel.kallsyms]_text", 0,
               misc=MISC_KERNEL)
        r.comm(clock, 1000, 1000, "seedprog", 1000, exec_=True)
        r.mmap2(clock, 1000, 1000, 0x400000, 0x2000, 0, PROG, 1100)
    if not rest:
        return r
    r.mmap2(clock, 1000, 1000, 0x7F0000000000, 0x10000, 0x1000, LIB, 1200,
            build_id=bytes(range(1, 21)))
    r.fork(clock, FORK, 1000, 1000, 1001, 1000, 1300)
    r.comm(clock, 1000, 1001, "worker", 1400)
    r.sample(clock, MISC_KERNEL, KERNEL_START + 0x1000, 1000, 1000, 2000, period=250000,
             chain=[CONTEXT_KERNEL, KERNEL_START + 0x1000, KERNEL_START + 0x2040,
                    CONTEXT_USER, 0x401234, CALLER, 0x7F0000001200])
    r.sample(clock, MISC_USER, 0x401300, 1000, 1001, 1900, period=250000, cpu=1,
             chain=[CONTEXT_USER, 0x401300, CALLER])
    r.round()
    r.sample(faults, MISC_USER, 0x7F0000001234, 1000, 1001, 2100, period=1, cpu=1,
             chain=[CONTEXT_USER, 0x7F0000001234, 0x401320, CALLER])
    r.sample(clock, MISC_USER, 0x401234, 1000, 1000, 2200, period=250000,
             chain=[CONTEXT_USER, 0x401234, CALLER])
    r.fork(clock, EXIT, 1000, 1000, 1001, 1000, 2300)
    r.round()
    return r


def base_features(e, attrs):
    return {
        FEAT_HOSTNAME: e.string("seedhost"),
        FEAT_BUILD_ID: build_ids(e, [(1000, MISC_USER, bytes(range(0xA0, 0xB4)), PROG),
                                     (-1, MISC_KERNEL, bytes(range(0x40, 0x54)), "[kernel.kallsyms]")]),
        FEAT_EVENT_DESC: event_desc(e, attrs),
    }


def file_base(big_endian=False):
    """file-le.data (file-be.data): the small valid file-mode file."""
    e = Enc(big_endian)
    attrs = two_events()
    return file_mode(e, attrs, base_records(e, attrs), base_features(e, attrs))


def pipe_base(big_endian=False):
    """pipe.data (pipe-be.data): the same in pipe mode."""
    e = Enc(big_endian)
    attrs = two_events()
    features = {FEAT_HOSTNAME: e.string("seedhost"), FEAT_EVENT_DESC: event_desc(e, attrs)}
    r = Records(e, attrs)
    r.add(ID_INDEX, 0, e.u64(4) + e.u64s([101, 0, 0, 1000, 102, 0, 1, 1000,
                                          201, 1, 0, 1000, 202, 1, 1, 1000]))
    r.add(EVENT_UPDATE, 0, e.u64(2) + e.u64(201) + pad(b"page-faults\0"))
    r.add(FINISHED_INIT, 0, b"")
    r.items.extend(base_records(e, attrs).items)
    return pipe_mode(e, attrs, features, r)


def file_zstd():
    """file-zstd.data: the first records plain, the rest in three COMPRESSED pieces."""
    e = Enc()
    attrs = two_events()
    plain = base_records(e, attrs, rest=False)
    inner = base_records(e, attrs, first=False)
    pieces = compressed_records(e, inner, [0.37, 0.71])
    if pieces is None:
        return None
    plain.round()
    plain.items.extend(pieces)
    features = base_features(e, attrs)
    del features[FEAT_BUILD_ID]  # perf -z collects no build ids
    features[FEAT_COMPRESSED] = e.u32(0) + e.u32(1) + e.u32(1) + e.u32(9) + e.u32(528384)
    return file_mode(e, attrs, plain, features)


def pipe_zstd(type_=COMPRESSED):
    """pipe-zstd.data: one event with ID (perf record -o -), COMPRESSED pieces;
    pipe-zstd2.data: the same with COMPRESSED2 records (u64 data_size, padded)."""
    e = Enc()
    a = Attr("cpu-clock", 1, 0, 4000, S_IP | S_TID | S_TIME | S_CALLCHAIN | S_ID | S_PERIOD,
             [F_DISABLED, F_INHERIT, F_MMAP, F_COMM, F_FREQ, F_SAMPLE_ID_ALL, F_MMAP2, F_COMM_EXEC],
             [301])
    inner = Records(e, [a])
    inner.comm(a, 2000, 2000, "zpipe", 500, exec_=True)
    inner.mmap2(a, 2000, 2000, 0x400000, 0x2000, 0, PROG, 600)
    for i in range(6):
        inner.sample(a, MISC_USER, 0x401200 + 16 * i, 2000, 2000, 1000 + i, period=100000,
                     chain=[CONTEXT_USER, 0x401200 + 16 * i, CALLER])
        if i == 2:
            inner.round()
    pieces = compressed_records(e, inner, [0.5], type_=type_)
    if pieces is None:
        return None
    r = Records(e, [a])
    r.items.extend(pieces)
    r.round()
    features = {FEAT_HOSTNAME: e.string("seedhost"), FEAT_EVENT_DESC: event_desc(e, [a]),
                FEAT_COMPRESSED: e.u32(0) + e.u32(1) + e.u32(1) + e.u32(9) + e.u32(528384)}
    return pipe_mode(e, [a], features, r)


def pipe_zstd_raw():
    """pipe-zstd-raw.data: one event with IDENTIFIER, big-endian, its data in COMPRESSED
    records of one zstd frame of raw blocks, records straddling the pieces."""
    e = Enc(True)
    a = Attr("cpu-clock", 1, 0, 4000, S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CALLCHAIN | S_PERIOD,
             [F_DISABLED, F_MMAP, F_COMM, F_FREQ, F_SAMPLE_ID_ALL, F_MMAP2, F_COMM_EXEC], [701])
    inner = Records(e, [a])
    inner.comm(a, 6000, 6000, "rawz", 50, exec_=True)
    inner.mmap2(a, 6000, 6000, 0x400000, 0x2000, 0, PROG, 60)
    for i in range(3):
        inner.sample(a, MISC_USER, 0x401200 + 16 * i, 6000, 6000, 100 + i, period=100000,
                     chain=[CONTEXT_USER, 0x401200 + 16 * i, CALLER])
    inner.round()
    data = inner.bytes()
    cuts = [0, 70, 200, len(data) - 20, len(data)]
    r = Records(e, [a])
    for piece in zstd_raw_stream([data[lo:hi] for lo, hi in zip(cuts, cuts[1:])]):
        r.add(COMPRESSED, 0, piece)
    features = {FEAT_EVENT_DESC: event_desc(e, [a]),
                FEAT_COMPRESSED: e.u32(0) + e.u32(1) + e.u32(1) + e.u32(9) + e.u32(528384)}
    return pipe_mode(e, [a], features, r)


def file_dwarf():
    """file-dwarf.data: --call-graph dwarf, registers and a 64-byte stack copy."""
    e = Enc()
    regs_mask = 0xFF0FFF  # x86-64 perf_regs: AX..SS (bits 0-11), R8..R15 (16-23)
    a = Attr("cpu-clock", 1, 0, 4000,
             S_IP | S_TID | S_TIME | S_CALLCHAIN | S_PERIOD | S_REGS_USER | S_STACK_USER,
             [F_DISABLED, F_MMAP, F_COMM, F_FREQ, F_SAMPLE_ID_ALL, F_EXCLUDE_CALLCHAIN_USER,
              F_MMAP2, F_COMM_EXEC], [401], regs_user=regs_mask, stack_user=64)
    r = Records(e, [a])
    r.comm(a, 3000, 3000, "dwarfprog", 100, exec_=True)
    r.mmap2(a, 3000, 3000, 0x400000, 0x2000, 0, PROG, 200)

    def regs_and_stack(sp, ip):
        def fields(e, attr):
            regs = [0] * bin(regs_mask).count("1")
            regs[7], regs[8], regs[6] = sp, ip, sp + 32  # SP, IP, BP
            stack = e.u64s([sp + 32, CALLER + 5, 0, 0, sp + 48, 0x401000, 0, 0])
            return e.u64(2) + e.u64s(regs) + e.u64(len(stack)) + stack + e.u64(len(stack))
        return fields

    r.sample(a, MISC_USER, 0x401234, 3000, 3000, 1000, period=250000, chain=[],
             extra=regs_and_stack(0x7FFC0000F000, 0x401234))
    r.sample(a, MISC_KERNEL, KERNEL_START + 0x10, 3000, 3000, 1100, period=250000,
             chain=[CONTEXT_KERNEL, KERNEL_START + 0x10], extra=regs_and_stack(0x7FFC0000F100, 0x401250))

    def no_regs(e, attr):  # abi 0: no registers; size 0: no stack
        return e.u64(0) + e.u64(0)
    r.sample(a, MISC_USER, 0x401260, 3000, 3000, 1200, period=250000, chain=[], extra=no_regs)
    r.round()
    return file_mode(e, [a], r, {FEAT_HOSTNAME: e.string("seedhost")})


def file_misc():
    """file-misc.data: most sample fields, rarer records, many features."""
    e = Enc()
    t = (S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_ID | S_STREAM_ID | S_CPU | S_PERIOD |
         S_READ | S_CALLCHAIN | S_RAW | S_BRANCH_STACK | S_WEIGHT | S_DATA_SRC | S_TRANSACTION |
         S_PHYS_ADDR)
    a = Attr("cycles", 0, 0, 100003, t, [F_DISABLED, F_INHERIT, F_MMAP, F_COMM, F_SAMPLE_ID_ALL,
                                         F_MMAP2, F_COMM_EXEC], [501, 502],
             read_format=R_GROUP | R_ID | R_TOTAL_TIME_ENABLED | R_LOST,
             branch_sample_type=1 << 17)  # PERF_SAMPLE_BRANCH_HW_INDEX
    r = Records(e, [a])
    r.comm(a, 4000, 4000, "miscprog", 10, exec_=True)
    r.mmap(a, 4000, 4000, 0x400000, 0x2000, 0, PROG, 20)
    r.mmap2(a, 4000, 4000, 0x7E0000000000, 0x1000, 0, "//anon", 30, prot=7)
    r.mmap2(a, 4000, 4000, 0x600000, 0x1000, 0, PROG, 31, prot=3)  # data: not executable

    def after_callchain(e, attr):
        raw = e.u32(12) + b"rawdata\0\0\0\0\0"
        branches = e.u64(2) + e.u64((1 << 64) - 1) + e.u64s([0x401010, 0x401200, 1, 0x401210, 0x401020, 2])
        return raw + branches + e.u64(77) + e.u64(0x10) + e.u64(0) + e.u64(0x1234000)

    r.sample(a, MISC_USER, 0x401010, 4000, 4000, 100, period=100003,
             chain=[CONTEXT_USER, 0x401010, 0x7E0000000100, CALLER], extra=after_callchain)
    r.sample(a, MISC_GUEST_USER, 0x501010, 4000, 4000, 110, period=100003,
             chain=[(1 << 64) - 2560, 0x501010], extra=after_callchain)
    r.add(LOST, 0, e.u64(501) + e.u64(3) + a.trailer(e, 4000, 4000, 120))
    r.add(LOST_SAMPLES, 0, e.u64(5) + a.trailer(e, 4000, 4000, 130))
    r.add(THROTTLE, 0, e.u64(140) + e.u64(501) + e.u64(501) + a.trailer(e, 4000, 4000, 140))
    r.add(SWITCH, 1 << 13, a.trailer(e, 4000, 4000, 150))
    r.add(KSYMBOL, 0, e.u64(0xFFFFFFFFC0001000) + e.u32(0x100) + e.u16(1) + e.u16(0) +
          pad(b"bpf_prog_seed\0") + a.trailer(e, -1, 0, 160))
    r.add(200, 0, e.u64(0xDEAD))  # a type no perf writes
    r.add(AUXTRACE_INFO, 0, e.u32(0) + e.u32(0) + e.u64(0))
    r.add(AUXTRACE, 0, e.u64(16) + e.u64(0) + e.u64(1) + e.u32(0) + e.u32(4000) + e.u32(0) + e.u32(0),
          extra=b"\x01" * 16)
    r.round()
    features = {
        FEAT_HOSTNAME: e.string("seedhost"), FEAT_OSRELEASE: e.string("6.1.0-seed"),
        FEAT_VERSION: e.string("6.1.seed"), FEAT_ARCH: e.string("x86_64"),
        FEAT_NRCPUS: e.u32(4) + e.u32(2), FEAT_CPUDESC: e.string("Seed CPU"),
        FEAT_CPUID: e.string("SeedIntel,6,1,1"),
        FEAT_CMDLINE: cmdline(e, ["perf", "record", "-g"]),
        FEAT_EVENT_DESC: event_desc(e, [a]),
        FEAT_SAMPLE_TIME: e.u64(100) + e.u64(110),
    }
    return file_mode(e, [a], r, features)


def file_ver0():
    """file-ver0.data: a PERF_ATTR_SIZE_VER0 attr, no trailers, no callchains, no features."""
    e = Enc()
    a = Attr("task-clock", 1, 1, 1000000, S_IP | S_TID | S_PERIOD, [F_DISABLED, F_MMAP, F_COMM],
             [601], size=64)
    r = Records(e, [a])
    r.comm(a, 5000, 5000, "ver0", 0)
    r.mmap(a, 5000, 5000, 0x400000, 0x1000, 0, PROG, 0)
    for ip in (0x400010, 0x400020, 0x400010):
        r.sample(a, MISC_USER, ip, 5000, 5000, 0, period=1000000)
    return file_mode(e, [a], r, {})


SEEDS = [
    ("file-le.data", lambda: file_base(False)),
    ("file-be.data", lambda: file_base(True)),
    ("pipe.data", lambda: pipe_base(False)),
    ("pipe-be.data", lambda: pipe_base(True)),
    ("file-zstd.data", file_zstd),
    ("pipe-zstd.data", pipe_zstd),
    ("pipe-zstd2.data", lambda: pipe_zstd(COMPRESSED2)),
    ("pipe-zstd-raw.data", pipe_zstd_raw),
    ("file-dwarf.data", file_dwarf),
    ("file-misc.data", file_misc),
    ("file-ver0.data", file_ver0),
]


def main(argv):
    out_dir = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "perf_data")
    os.makedirs(out_dir, exist_ok=True)
    for name, make in SEEDS:
        made = make()
        if made is None:
            print("perf_data_seeds.py: %s skipped: the zstd command-line tool is missing" % name,
                  file=sys.stderr)
            continue
        data, _ = made
        assert len(data) < 8192, (name, len(data))
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
