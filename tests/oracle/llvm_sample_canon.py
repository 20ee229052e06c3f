#!/usr/bin/env python3
"""llvm_sample_canon.py - LLVM's text sample profile as canonical text.

Parses the text that `llvm-profdata merge --sample` and
`clang -fprofile-sample-use` read (LLVM 14 SampleProfileReaderText, as
../shared/research/autofdo-loop.md section 5 and make-profile.py's
write_llvm describe it; not from profconv's writer):

  NAME:TOTAL:HEAD                          a function, at column 0
   OFFSET[.DISCR]: COUNT [TARGET:N ...]    a position of the instance one
                                           level up, indented by its depth
   OFFSET[.DISCR]: CALLEE:TOTAL            an inlined instance; its body is
                                           indented one space deeper

as LLVM splits them: the header at its last two ':' (NAME may hold ':'),
a body line at its first ':' (followed by one space), a count when the rest
starts with a digit, else a call site whose callee is everything before the
rest's last ':'; targets are space-separated NAME:N, split at their last
':'. A line of depth D belongs to the D-th instance of the open inline
stack. OFFSET is 0..65535 (LLVM's isOffsetLegal), DISCR and counts are
decimal. Blank lines and '#' comment lines are skipped, as LLVM does.

Strict where LLVM is lenient: a body line deeper than the open stack, a
position, call site (offset and callee), target or function given twice
(LLVM would sum them), a metadata line ('!'), an empty name, or anything
else that does not fit, prints `llvm_sample_canon.py: FILE:LINE: WHAT` and
exits 1.

Output, the same canonical text as afdo_decode.py (one line each, sorted
bytewise), plus the totals LLVM keeps:
  head FUNC HEAD                  every function
  total PATH TOTAL                every function and inlined instance
  pos PATH OFFSET COUNT [T:N,..]  every position, call targets by name
PATH is FUNC, or FUNC@OFF>CALLEE@OFF>CALLEE... for an inlined instance;
OFFSET and OFF are `line_delta` or `line_delta.discr` (discr not 0).

usage: llvm_sample_canon.py FILE
"""
import re
import sys

NUM = re.compile(r"[0-9]+\Z")
COUNT_MAX = (1 << 64) - 1


class ParseError(Exception):
    pass


def number(text, what, limit=COUNT_MAX):
    if not NUM.match(text):
        raise ParseError("%s '%s' is not a decimal number" % (what, text))
    v = int(text)
    if v > limit:
        raise ParseError("%s %d is too large" % (what, v))
    return v


def location(text):
    off, dot, discr = text.partition(".")
    line = number(off, "line offset", 0xffff)
    d = number(discr, "discriminator", 0xffffffff) if dot else 0
    return "%d.%d" % (line, d) if d else "%d" % line


class Instance:
    def __init__(self, path):
        self.path = path
        self.positions = set()
        self.sites = set()


def parse(lines):
    out = []
    tops = set()
    stack = []
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if line.endswith("\r"):
            line = line[:-1]
        try:
            if not line.strip() or line.startswith("#"):
                continue
            if line[0] != " ":
                n2 = line.rfind(":")
                n1 = line.rfind(":", 0, n2) if n2 > 0 else -1
                if n1 <= 0:
                    raise ParseError("function line without NAME:TOTAL:HEAD")
                name = line[:n1]
                if name in tops:
                    raise ParseError("function %s twice" % name)
                tops.add(name)
                total = number(line[n1 + 1:n2], "total")
                head = number(line[n2 + 1:], "head count")
                out.append("head %s %d" % (name, head))
                out.append("total %s %d" % (name, total))
                stack = [Instance(name)]
                continue
            if not stack:
                raise ParseError("body line before the first function")
            depth = len(line) - len(line.lstrip(" "))
            if line[depth] == "!":
                raise ParseError("metadata line (profconv writes none)")
            if line[depth] == "\t":
                raise ParseError("tab in the indentation")
            if depth > len(stack):
                raise ParseError("depth %d under an inline stack of %d" % (depth, len(stack)))
            del stack[depth:]
            parent = stack[-1]
            n1 = line.find(":")
            if n1 < 0 or line[n1 + 1:n1 + 2] != " ":
                raise ParseError("body line without 'OFFSET: '")
            loc = location(line[depth:n1])
            rest = line[n1 + 2:]
            if rest[:1].isdigit():
                fields = rest.split(" ")
                count = number(fields[0], "count")
                if loc in parent.positions:
                    raise ParseError("%s: position %s twice" % (parent.path, loc))
                parent.positions.add(loc)
                targets = {}
                for pair in fields[1:]:
                    if not pair:
                        raise ParseError("two spaces between targets")
                    k = pair.rfind(":")
                    if k <= 0:
                        raise ParseError("target '%s' is not NAME:COUNT" % pair)
                    tname = pair[:k]
                    if tname in targets:
                        raise ParseError("target %s twice" % tname)
                    targets[tname] = number(pair[k + 1:], "target count")
                text = "pos %s %s %d" % (parent.path, loc, count)
                if targets:
                    text += " " + ",".join("%s:%d" % (t, targets[t]) for t in sorted(targets))
                out.append(text)
            else:
                k = rest.rfind(":")
                if k <= 0:
                    raise ParseError("call site line without CALLEE:TOTAL")
                callee = rest[:k]
                total = number(rest[k + 1:], "total")
                if (loc, callee) in parent.sites:
                    raise ParseError("%s: call site %s to %s twice" % (parent.path, loc, callee))
                parent.sites.add((loc, callee))
                child = Instance("%s@%s>%s" % (parent.path, loc, callee))
                out.append("total %s %d" % (child.path, total))
                stack.append(child)
        except ParseError as e:
            raise ParseError("%d: %s" % (no, e))
    return sorted(out)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: llvm_sample_canon.py FILE")
    path = sys.argv[1]
    try:
        with open(path, encoding="utf-8") as f:
            out = parse(f)
    except (OSError, UnicodeDecodeError) as e:
        sys.stderr.write("llvm_sample_canon.py: %s: %s\n" % (path, e))
        sys.exit(1)
    except ParseError as e:
        sys.stderr.write("llvm_sample_canon.py: %s:%s\n" % (path, e))
        sys.exit(1)
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
