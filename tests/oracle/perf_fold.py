#!/usr/bin/env python3
"""perf_fold.py - an independent oracle for `perf script` text.

A minimal equivalent of FlameGraph's stackcollapse-perf.pl for the plain
forms of the captures in samples/perf (perf 6.1 output), written from the
grammar in research/perfscript.md and from stackcollapse-perf.pl's
documented conventions, not from profconv's code:

  * one output line per distinct stack: root;...;leaf COUNT, lines sorted
    bytewise; the root frame is the comm with blanks turned into `_`
    (`comm-PID` with --pid, `comm-PID/TID` with --tid, `?` for a pid the
    text does not carry); samples without a comm (`-F pid,ip,dso`,
    `-F ip,sym`) get no root frame;
  * frames root to leaf, `+0x..` offsets stripped, `[unknown]` (or a
    missing symbol) becomes `[dso basename]`, or `[unknown]` when the dso is
    unknown too (`[name <addr>]` with --addrs); stackcollapse's tidying
    of symbols: `;` becomes `:`, an argument list from the first `(` is cut
    (but not `(anonymous namespace)` nor Go's `.(...).`), quotes dropped,
    and for comm `java` the leading `L` of a name holding a `/`
    (`Ljava/util/HashMap:::get`); a `[dso]` name is kept whole
    (`[memfd:jit code (deleted)]`, which stackcollapse's order of steps
    would cut at its `(` to `[memfd:jit code `, dropping even the
    address of `--addrs`);
    `(inlined)` frames are frames like any other; --kernel appends `_[k]`
    to frames whose dso starts with `[` or ends with `vmlinux` (not
    `[unknown]`), --jit `_[j]` to `/tmp/perf-PID.map` frames (also to
    `[perf-PID.map]`: FlameGraph's own perf-numa-stacks-01 results do so);
  * counts: the sum of the printed periods, else 1 per sample; only the
    samples of one event: --event NAME, by default the first event seen;
  * single-line samples (no callchain) count as one-frame stacks, and a
    sample with no frame as its root frame alone; the last sample needs no
    trailing blank line.

The comm is found by anchoring on the timestamp: it is everything before
the last `tid` or `pid/tid` token (and optional `[cpu]`) that precedes the
time, so `worker 1 4242 ...` is comm `worker 1`, tid 4242 (stackcollapse
itself would say comm `worker`, tid 1).

    perf_fold.py [--pid|--tid] [--kernel] [--jit] [--addrs] [--event NAME] FILE
    perf_fold.py --totals FILE    per event: FILE EVENT SAMPLES PERIOD_SUM

As a module: parse(path) returns (samples, mmaps) for the other tests.
"""
import os
import re
import sys

# comm, [pid/]tid, [cpu], time, then the rest (period, event, ...)
HEADER_TIME = re.compile(
    r"^\s*(?P<comm>\S.*?)\s+(?:(?P<pid>-?\d+)/)?(?P<tid>-?\d+)\s+"
    r"(?:\[(?P<cpu>\d+)\]\s+)?(?P<time>\d+\.\d+):(?:\s+(?P<rest>.*))?$")
# period (optional), event name up to the ": " that ends it, then the tail
SAMPLE_REST = re.compile(r"^(?:(?P<period>\d+)\s+)?(?P<event>\S+):(?:\s+(?P<tail>.*))?$")
# `-F pid,ip,dso`: the header is a single number
HEADER_NUMBER = re.compile(r"^\s*(?P<number>-?\d+)\s*$")
MMAP = re.compile(
    r"^PERF_RECORD_MMAP2? (?P<pid>-?\d+)/(?P<tid>-?\d+): \[(?P<start>0x[0-9a-f]+)"
    r"\((?P<len>0x[0-9a-f]+)\) @ (?P<pgoff>0x[0-9a-f]+|0)(?: <(?P<build_id>[0-9a-fA-F]+)>)?"
    r"[^\]]*\]: (?P<prot>\S+) (?P<path>.*)$")
OFFSET = re.compile(r"\+0x[0-9a-f]+$")


class Sample:
    __slots__ = ("line", "comm", "pid", "tid", "cpu", "time", "period", "event",
                 "number", "frames")

    def __init__(self, line):
        self.line = line
        self.comm = self.pid = self.tid = self.cpu = self.time = None
        self.period = self.event = self.number = None
        self.frames = []  # (addr, sym or None, dso or None), leaf first

    def weight(self):
        return self.period if self.period is not None else 1


class Bad(Exception):
    pass


def split_frame(text, with_dso):
    """'addr [sym] [(dso)]' -> (addr, sym, dso); the dso is the last balanced
    parenthesised group, which may itself hold blanks and parentheses."""
    text = text.strip()
    addr, _, rest = text.partition(" ")
    if not re.fullmatch(r"[0-9a-f]+", addr):
        raise Bad("not a frame address: %r" % text)
    rest = rest.strip()
    dso = None
    if with_dso and rest.endswith(")"):
        depth = 0
        for i in range(len(rest) - 1, -1, -1):
            if rest[i] == ")":
                depth += 1
            elif rest[i] == "(":
                depth -= 1
                if depth == 0:
                    break
        if depth != 0 or (i > 0 and rest[i - 1] != " "):
            raise Bad("unbalanced dso: %r" % text)
        dso = rest[i + 1:-1]
        rest = rest[:i].strip()
    sym = OFFSET.sub("", rest) if rest else None
    return addr, sym or None, dso


def parse(path):
    """Returns (samples, mmaps); mmaps are dicts of the MMAP/MMAP2 lines."""
    with open(path, "rb") as handle:
        lines = handle.read().decode("utf-8", "surrogateescape").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    # Frame lines carry a dso in every capture except `-F ip,sym`; decide
    # once per file so that a symbol ending in ')' is never taken for one.
    frame_lines = [l for l in lines if l.startswith("\t")]
    with_dso = bool(frame_lines) and all(l.rstrip().endswith(")") for l in frame_lines)
    samples, mmaps = [], []
    current = None
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        try:
            if line.startswith("#"):
                continue
            if not line.strip():
                if current is not None:
                    samples.append(current)
                    current = None
                continue
            if line.startswith("\t"):
                if current is None:  # `-F ip,sym`: the header line is empty
                    current = Sample(number)
                current.frames.append(split_frame(line, with_dso))
                continue
            if current is not None:  # a header right after frames
                samples.append(current)
                current = None
            sample = Sample(number)
            header = HEADER_TIME.match(line)
            if header:
                sample.comm = header.group("comm")
                sample.pid = int(header.group("pid")) if header.group("pid") else None
                sample.tid = int(header.group("tid"))
                sample.cpu = int(header.group("cpu")) if header.group("cpu") else None
                sample.time = header.group("time")
                rest = header.group("rest") or ""
                if rest.startswith("PERF_RECORD_"):
                    record = MMAP.match(rest)
                    if record:
                        mmaps.append(dict(record.groupdict(), line=number))
                    continue
                body = SAMPLE_REST.match(rest)
                if not body:
                    raise Bad("no event after the time")
                sample.period = int(body.group("period")) if body.group("period") else None
                sample.event = body.group("event")
                tail = body.group("tail")
                if tail:  # single-line form: ip sym (dso) on the header line
                    sample.frames.append(split_frame(tail, True))
                    samples.append(sample)
                    continue
                current = sample
                continue
            header = HEADER_NUMBER.match(line)
            if header:
                sample.number = int(header.group("number"))
                current = sample
                continue
            raise Bad("unrecognised header")
        except Bad as why:
            raise SystemExit("%s:%d: %s: %r" % (path, number, why, line))
    if current is not None:
        samples.append(current)
    return samples, mmaps


def tidy(func):
    """stackcollapse-perf.pl's default (tidy_generic) clean-up."""
    func = func.replace(";", ":")
    if not re.search(r"\.\(.*\)\.", func):
        func = re.sub(r"\((?!anonymous namespace\)).*", "", func)
    return func.replace('"', "").replace("'", "")


def frame_name(addr, sym, dso, options, comm=None):
    unknown = sym is None or sym == "[unknown]"
    if unknown:
        # the text after the last '/', as stackcollapse's s/.*\///
        name = os.path.basename(dso) if dso and dso != "[unknown]" else "unknown"
        name = "[%s <%s>]" % (name, addr) if options.get("addrs") else "[%s]" % name
        # stackcollapse would also cut `[memfd:x (deleted)]` at its '(':
        # we keep a dso name whole (only ';' must go)
        name = name.replace(";", ":")
    else:
        name = tidy(sym)
        if comm == "java" and "/" in name:  # stackcollapse's tidy_java
            name = re.sub(r"^L", "", name)
    if dso is not None:
        if options.get("kernel") and re.search(r"^\[|vmlinux$", dso) and "unknown" not in dso:
            name += "_[k]"
        elif options.get("jit") and re.search(r"/tmp/perf-\d+\.map", dso):
            name += "_[j]"  # `[perf-PID.map]_[j]` too, as in FlameGraph's results
    return name


def root_name(sample, options):
    if sample.comm is None:
        return None
    pid = "?" if sample.pid is None else str(sample.pid)
    if options.get("tid"):
        name = "%s-%s/%s" % (sample.comm, pid, sample.tid)
    elif options.get("pid"):
        name = "%s-%s" % (sample.comm, pid)
    else:
        name = sample.comm
    return name.replace(" ", "_")


def fold(samples, options):
    event = options.get("event")
    if event is None and samples:
        event = samples[0].event
    stacks = {}
    for sample in samples:
        if sample.event != event:
            continue
        frames = [frame_name(a, s, d, options, sample.comm) for a, s, d in reversed(sample.frames)]
        root = root_name(sample, options)
        if root is not None:
            frames.insert(0, root)
        if not frames:
            continue
        key = ";".join(frames)
        stacks[key] = stacks.get(key, 0) + sample.weight()
    keys = sorted(stacks, key=lambda k: k.encode("utf-8", "surrogateescape"))
    return "".join("%s %d\n" % (k, stacks[k]) for k in keys)


def totals(samples):
    """{event: [samples, period_sum]} in order of first appearance."""
    result = {}
    for sample in samples:
        entry = result.setdefault(sample.event, [0, 0])
        entry[0] += 1
        entry[1] += sample.weight()
    return result


def main(argv):
    options, path, want_totals = {}, None, False
    args = iter(argv)
    for arg in args:
        if arg in ("--pid", "--tid", "--kernel", "--jit", "--addrs"):
            options[arg[2:]] = True
        elif arg == "--event":
            options["event"] = next(args, None)
        elif arg == "--totals":
            want_totals = True
        elif path is None and not arg.startswith("--"):
            path = arg
        else:
            sys.stderr.write("usage: perf_fold.py [--pid|--tid] [--kernel] [--jit] [--addrs] "
                             "[--event NAME] [--totals] FILE\n")
            return 2
    if path is None:
        sys.stderr.write("perf_fold.py: no input\n")
        return 2
    samples, _ = parse(path)
    out = sys.stdout.buffer
    if want_totals:
        for event, (count, period) in totals(samples).items():
            out.write(("%s %s %d %d\n" % (os.path.basename(path), event or "-", count, period))
                      .encode())
    else:
        out.write(fold(samples, options).encode("utf-8", "surrogateescape"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
