#!/usr/bin/env python3
"""sampler_fold.py - an independent reading of Apple Sampler traces
(research/sampler.md section 3), for the tests: it shares no code with
profconv.

  sampler_fold.py [--by-thread] TRACE       folded stacks, root first,
                                             sorted bytewise, merged
  sampler_fold.py --functions TRACE         "self total name" per function
                                             name, total once per stack line
  sampler_fold.py --tree TRACE              the seed's build-tree: one node
                                             per distinct path of names from
                                             the root, counting the stack
                                             lines through it; "COUNT DEPTH
                                             NAME" root first, children by
                                             count (descending), then name

Names as profconv's folded writer gives them for Sampler frames: an empty
name is "[BASENAME]" of its library path, or "[unknown]" without one.
--by-thread puts the thread entry's name first. Exits 1 on any
malformation."""
import sys


def fail(msg, at):
    sys.exit("sampler_fold.py: offset 0x%x: %s" % (at, msg))


def u32(data, at):
    if at + 4 > len(data):
        fail("truncated", at)
    return int.from_bytes(data[at:at + 4], "big")


def text(data, at, end):
    stop = at
    while stop < len(data) and data[stop] not in (9, 10):
        stop += 1
    if stop >= len(data) or data[stop] != end:
        fail("bad text field", stop)
    return data[at:stop], stop + 1


def parse(data):
    """Yields (thread name, [names leaf first]) per stack line."""
    head = b"@supersamplerV1.0\n@symboltableV1.1\n"
    if not data.startswith(head):
        fail("bad header", 0)
    at, names = len(head), {}
    while at < len(data) and data[at] == 9:
        ident = u32(data, at + 1)
        if data[at + 5:at + 6] != b"\t" or data[at + 10:at + 11] != b"\t":
            fail("bad symbol entry", at)
        name, at = text(data, at + 11, 9)
        path1, at = text(data, at, 9)
        path2, at = text(data, at, 10)
        if ident in names:
            fail("id defined twice", at)
        path = path1 or path2
        if not name:
            name = b"[" + path.rsplit(b"/", 1)[-1] + b"]" if path else b"[unknown]"
        names[ident] = name
    if data.startswith(b"@end\n", at):
        at += 5
        if at == len(data):
            return
    while data.startswith(b"@threadV1.0\t", at):
        thread = names[int(data[at + 12:at + 16], 16)]
        if data[at + 16:at + 17] != b"\n":
            fail("bad thread line", at)
        at += 17
        while at < len(data) and data[at] == 9:
            n = u32(data, at + 13)
            ids = [u32(data, at + 17 + 4 * i) for i in range(n)]
            at += 17 + 4 * n
            if data[at:at + 1] != b"\n":
                fail("no LF after the frames", at)
            at += 1
            yield thread, [names[i] for i in ids]
    if data[at:] != b"@end\n":
        fail("no final @end", at)


def put_tree(out, node, depth):
    children = sorted(node[1].items(), key=lambda kv: (-kv[1][0], kv[0]))
    for name, child in children:
        out.write(b"%d %d %s\n" % (child[0], depth, name))
        put_tree(out, child, depth + 1)


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if args and args[0].startswith("--") else ""
    data = open(args[0], "rb").read()
    counts, self_, total = {}, {}, {}
    root = [0, {}]
    for thread, frames in parse(data):
        if not frames:
            continue
        root_first = frames[::-1]
        if mode == "--by-thread":
            root_first = [thread] + root_first
        node = root
        root[0] += 1
        for name in frames[::-1]:
            node = node[1].setdefault(name, [0, {}])
            node[0] += 1
        key = b";".join(root_first)
        counts[key] = counts.get(key, 0) + 1
        self_[frames[0]] = self_.get(frames[0], 0) + 1
        for name in set(frames):
            total[name] = total.get(name, 0) + 1
    out = sys.stdout.buffer
    if mode == "--tree":
        put_tree(out, root, 0)
        return
    if mode == "--functions":
        for name in sorted(total):
            out.write(b"%d %d %s\n" % (self_.get(name, 0), total[name], name))
        return
    for key in sorted(counts):
        out.write(b"%s %d\n" % (key, counts[key]))


main()
