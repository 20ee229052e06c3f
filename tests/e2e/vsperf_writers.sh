#!/bin/sh
# tests/e2e/vsperf_writers.sh - the writers on Visual Studio CallerCallee
# data, through the command line, on the real sampling report of the
# corpus (../shared/corpus/vsperf/visperf_pigLatin_CallerCallee_sampling_
# vs2008.csv: 107 functions, 138 caller -> callee arcs, 117 samples), with
# an independent oracle: a Python reading of the CSV that reconstructs the
# stacks by the VsPerfView method (seeds/002; entry points = functions
# without callers, callee value = arc x parent's path value / parent's
# inclusive, recursion cut, top-down largest-remainder rounding) and
# renders what each output must hold.
#
#   1. folded (-t folded): exactly the oracle's lines (stackcollapse names:
#      signatures cut at '('), adding up to exactly 117, all under one
#      entry point, _mainCRTStartup, below the comm root perfplay.exe;
#   2. Sampler (-t sampler): read back with our reader and folded, exactly
#      the oracle's stacks with full names (117 again);
#   3. pprof: pprof -top totals 117 under the default column and the sum
#      of the Caller rows (918) under edge_inclusive; pprof -raw has one
#      sample per function and per arc (245), the unknown frame's location
#      has address 0 and no mapping, every mapping has functions; protoc
#      decodes it (valid UTF-8, valid message);
#   4. report: `report --tree` and `report --top 5` print exactly the
#      oracle's text (exact tables by exclusive and by inclusive, the
#      approximate reconstructed tree), `convert -t report` the same bytes;
#   5. a second run gives the same bytes (deterministic).
#
# Environment (tests/run.sh): PROFCONV, PPROF, SHARED, TMPDIR. Exit 0
# pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u

skip() {
	echo "SKIPPED: $*"
	exit 77
}

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
pprof=${PPROF:-$top/build/tools/pprof}
csv=${SHARED:-$top/../shared}/corpus/vsperf/visperf_pigLatin_CallerCallee_sampling_vs2008.csv
tmp=${TMPDIR:-/tmp}
[ -f "$csv" ] || skip "no Visual Studio corpus file at $csv"
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
"$profconv" formats | grep -q '^vsperf  *read' || skip "this profconv has no vsperf reader"

failed=0
fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

# same FILE1 FILE2 WHAT: the two files must be identical.
same() {
	cmp -s "$1" "$2" || { fail "$3"; diff -u "$1" "$2" | head -20; }
}

cat >"$tmp/oracle.py" <<'EOF'
"""The VsPerfView reconstruction and its renderings, from the CSV alone."""
import csv, math, sys

path, what = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(path, newline='', encoding='utf-8-sig')))
col = {h: i for i, h in enumerate(rows[0])}


def key(r):
    """Functions by (module path, address), the unknown frame first by name."""
    if r[col['Module Name']] == 'UNKNOWN' or r[col['Function Address']].upper() == '0XBAADF00D':
        return (0, '', 0, r[col['Function Name']])
    return (1, r[col['Module Path']], int(r[col['Function Address']], 16), r[col['Function Name']])


name, module, incl, excl, arcs = {}, {}, {}, {}, {}
for r in rows[1:]:
    k = key(r)
    name[k] = r[col['Function Name']]
    module[k] = '' if k[0] == 0 else k[1].replace('\\', '/').rsplit('/', 1)[-1]
    if r[0] == 'Root':
        root = k
        incl[k] = int(r[col['Inclusive Samples']])
        excl[k] = int(r[col['Exclusive Samples']])
    elif r[0] == 'Caller':
        arcs[(k, root)] = arcs.get((k, root), 0) + int(r[col['Inclusive Samples']])
total = sum(excl.values())
callers = set(b for (a, b), c in arcs.items() if a != b and c and incl.get(a))
nodes = []  # (path, own weight, parent index or -1), in walk order


def walk(path, value, parent):
    k = path[-1]
    nodes.append((tuple(path), excl[k] * value / incl[k], parent))
    here = len(nodes) - 1
    for (a, b), c in sorted(arcs.items()):
        if a != k or b in path or not incl.get(b) or not c:
            continue
        share = c * value / incl[k]
        if share > 0 and share >= total * 1e-6:
            walk(path + [b], share, here)


for k in sorted(incl):
    if incl[k] and k not in callers:
        walk([k], incl[k], -1)


def apportion(weights, whole):
    """Largest remainder; ties (in billionths) to the lower index."""
    scale = whole / sum(weights)
    out = [math.floor(w * scale) for w in weights]
    fractions = [round((w * scale - o) * 1e9) for w, o in zip(weights, out)]
    for i in sorted(range(len(weights)), key=lambda i: -fractions[i])[:whole - sum(out)]:
        out[i] += 1
    return out


# Top down: the total among the entry points' subtrees, then each node's
# rounded subtree among its own weight and its children's subtrees.
children = {i: [] for i in range(-1, len(nodes))}
subtree = [w for p, w, parent in nodes]
for i, (p, w, parent) in enumerate(nodes):
    children[parent].append(i)
for i in reversed(range(len(nodes))):
    if nodes[i][2] >= 0:
        subtree[nodes[i][2]] += subtree[i]
whole, shares = {}, [0] * len(nodes)
for i, s in zip(children[-1], apportion([subtree[i] for i in children[-1]], total)):
    whole[i] = s
for i in range(len(nodes)):
    if whole.get(i):
        split = apportion([nodes[i][1]] + [subtree[c] for c in children[i]], whole[i])
        shares[i] = split[0]
        for c, s in zip(children[i], split[1:]):
            whole[c] = s
stacks = [([name[k] for k in p], s) for (p, w, parent), s in zip(nodes, shares) if s]


def tidy(n):
    """stackcollapse-perf.pl's names, as far as this file needs them."""
    if n != 'Unknown Frame(s)' and '(' in n:
        n = n[:n.index('(')]
    return n.replace(';', ':')


def folded(root, names):
    lines = {}
    for p, s in stacks:
        line = ';'.join(root + [names(n) for n in p])
        lines[line] = lines.get(line, 0) + s
    for line in sorted(lines, key=lambda l: l.encode()):
        print(line, lines[line])


def pct(v):
    return '%6.2f%%' % (100.0 * v / total if total else 0.0)


def table(by_total, top):
    def order(k):
        main, other = (incl[k], excl[k]) if by_total else (excl[k], incl[k])
        return (-main, -other, name[k].encode(), module[k].encode(), k[2])
    rows = sorted(incl, key=order)[:top]
    addr = {k: '0x%x' % k[2] if k[0] else '-' for k in rows}
    w0 = max([4, len(str(total))] + [len(str(incl[k])) for k in rows])
    w1 = max([7] + [len(addr[k]) for k in rows])
    w2 = max([6] + [len(module[k] or '-') for k in rows])
    print()
    print('top functions by %s (%d of %d):' % ('inclusive' if by_total else 'exclusive',
                                               len(rows), len(incl)))
    print('%*s  %7s  %*s  %7s  %-*s  %-*s  function' % (w0, 'excl', 'excl%', w0, 'incl',
                                                         'incl%', w1, 'address', w2, 'module'))
    for k in rows:
        print('%*d  %s  %*d  %s  %-*s  %-*s  %s' % (w0, excl[k], pct(excl[k]), w0, incl[k],
                                                    pct(incl[k]), w1, addr[k], w2,
                                                    module[k] or '-', name[k]))


def tree():
    counts, children = {}, {}
    for p, s in stacks:
        for depth in range(1, len(p) + 1):
            node = tuple(p[:depth])
            if node not in counts:
                children.setdefault(node[:-1], []).append(node)
            counts[node] = counts.get(node, 0) + s
    width, floor = len(str(total)), -(-total // 200)
    print()
    print('call tree, root first, reconstructed from caller/callee pairs (VsPerfView '
          'method): approximate (nodes below 0.5% of the total are folded):')

    def show(parent, depth):
        kids = sorted(children.get(parent, []), key=lambda n: (-counts[n], n[-1].encode()))
        for i, node in enumerate(kids):
            if counts[node] < floor:
                rest = sum(counts[n] for n in kids[i:])
                print('%*d  %s  %s(%d more below 0.5%%)' % (width, rest, pct(rest),
                                                             '  ' * depth, len(kids) - i))
                return
            print('%*d  %s  %s%s' % (width, counts[node], pct(counts[node]), '  ' * depth,
                                     node[-1]))
            show(node, depth + 1)
    show((), 0)


def report(top, with_tree):
    print('profconv report')
    print('source:   vsperf')
    print('column:   samples (count), the default; inclusive: inclusive_samples')
    print('total:    %d in %d functions, %d call arcs (caller/callee data: exact per '
          'function, no call stacks)' % (total, len(incl), len(arcs)))
    table(False, top)
    table(True, top)
    if with_tree:
        tree()


if what == 'folded':
    folded(['perfplay.exe'], tidy)
elif what == 'sampler':
    folded([], lambda n: n.replace(';', ':'))
elif what == 'report-tree':
    report(20, True)
elif what == 'report-top5':
    report(5, False)
elif what == 'figures':
    print(total, len(incl), len(arcs), sum(arcs.values()), sum(1 for p, w, parent in nodes if w > 0))
EOF

for what in folded sampler report-tree report-top5 figures; do
	python3 "$tmp/oracle.py" "$csv" $what >"$tmp/want.$what" ||
		{ fail "the oracle failed ($what)"; exit 1; }
done
# the oracle itself: 117 samples, 107 functions, 138 arcs (918), 404 paths
[ "$(cat "$tmp/want.figures")" = "117 107 138 918 404" ] ||
	fail "oracle figures: $(cat "$tmp/want.figures"), expected 117 107 138 918 404"

# 1. folded
"$profconv" convert -q -t folded -o "$tmp/got.folded" "$csv" || fail "convert to folded failed"
same "$tmp/want.folded" "$tmp/got.folded" "folded differs from the oracle"
sum=$(awk '{ s += $NF } END { print s }' "$tmp/got.folded")
[ "$sum" = 117 ] || fail "folded adds up to $sum, expected 117"
roots=$(cut -d';' -f1-2 "$tmp/got.folded" | sort -u)
[ "$roots" = "perfplay.exe;_mainCRTStartup" ] || fail "folded roots: $roots"
"$profconv" convert -t folded -o "$tmp/again.folded" "$csv" 2>"$tmp/err" ||
	fail "second folded run failed"
same "$tmp/got.folded" "$tmp/again.folded" "a second folded run differs"
[ "$(grep -c 'warning: reconstruct' "$tmp/err")" = 1 ] &&
	grep -q '^profconv: warning: reconstruct: stacks reconstructed from caller/callee pairs (VsPerfView method) are approximate: ' "$tmp/err" ||
	{ fail "not the one reconstruction warning"; cat "$tmp/err"; }

# 2. Sampler, read back with our reader
"$profconv" convert -q -t sampler -o "$tmp/got.sampler" "$csv" || fail "convert to sampler failed"
"$profconv" convert -q -f sampler -t folded -o "$tmp/back.folded" "$tmp/got.sampler" ||
	fail "reading the Sampler trace back failed"
same "$tmp/want.sampler" "$tmp/back.folded" "the Sampler trace reads back other stacks"
sum=$(awk '{ s += $NF } END { print s }' "$tmp/back.folded")
[ "$sum" = 117 ] || fail "the Sampler trace holds $sum samples, expected 117"

# 3. pprof
"$profconv" convert -q -o "$tmp/got.pb.gz" "$csv" || fail "convert to pprof failed"
if command -v protoc >/dev/null 2>&1; then
	zcat "$tmp/got.pb.gz" | protoc --decode=perftools.profiles.Profile -I "$top/proto" \
		"$top/proto/profile.proto" >"$tmp/decoded" 2>"$tmp/err" ||
		{ fail "protoc cannot decode the profile"; cat "$tmp/err"; }
	grep -qx 'string_table: "edge_inclusive"' "$tmp/decoded" ||
		fail "protoc: no edge_inclusive sample type"
else
	echo "note: protoc is missing; the protoc check is left out"
fi
if [ -x "$pprof" ]; then
	"$pprof" -top "$tmp/got.pb.gz" >"$tmp/top" 2>&1 || fail "pprof -top failed"
	grep -q "of 117 total" "$tmp/top" || { fail "pprof -top: no total of 117"; head "$tmp/top"; }
	"$pprof" -sample_index=edge_inclusive -top "$tmp/got.pb.gz" >"$tmp/edges" 2>&1 ||
		fail "pprof -sample_index=edge_inclusive -top failed"
	grep -q "of 918 total" "$tmp/edges" || { fail "pprof edges: no total of 918"; head "$tmp/edges"; }
	"$pprof" -raw -symbolize=none "$tmp/got.pb.gz" >"$tmp/raw" 2>&1 || fail "pprof -raw failed"
	samples=$(sed -n '/^Samples:/,/^Locations/p' "$tmp/raw" | grep -c '^ *[0-9][0-9]* *[0-9][0-9]* *[0-9][0-9]*:')
	[ "$samples" = 245 ] || fail "pprof -raw: $samples samples, expected 245 (107 functions + 138 arcs)"
	grep -qx '  *[0-9][0-9]*: 0x0 Unknown Frame(s) :0 s=0' "$tmp/raw" ||
		fail "pprof -raw: the unknown frame has an address or a mapping"
	mappings=$(sed -n '/^Mappings/,$p' "$tmp/raw" | grep -c '^[0-9]')
	with_functions=$(sed -n '/^Mappings/,$p' "$tmp/raw" | grep -c '^[0-9].*\[FN\]')
	[ "$mappings" = 5 ] && [ "$with_functions" = 5 ] ||
		fail "pprof -raw: $mappings mappings, $with_functions with functions, expected 5 and 5"
else
	echo "note: the real pprof is not built ($pprof); the pprof checks are left out"
fi

# 4. report
"$profconv" report --tree "$csv" >"$tmp/got.report-tree" 2>"$tmp/err" || fail "report --tree failed"
same "$tmp/want.report-tree" "$tmp/got.report-tree" "report --tree differs from the oracle"
[ ! -s "$tmp/err" ] || { fail "report --tree: unexpected stderr"; cat "$tmp/err"; }
"$profconv" report --top 5 "$csv" >"$tmp/got.report-top5" 2>/dev/null || fail "report --top 5 failed"
same "$tmp/want.report-top5" "$tmp/got.report-top5" "report --top 5 differs from the oracle"
"$profconv" convert -q --tree -t report -o "$tmp/convert.report" "$csv" ||
	fail "convert -t report failed"
same "$tmp/got.report-tree" "$tmp/convert.report" "convert -t report differs from report"
"$profconv" report --tree "$csv" >"$tmp/again.report" 2>/dev/null
same "$tmp/got.report-tree" "$tmp/again.report" "a second report differs"

[ "$failed" = 0 ] || { echo "$failed check(s) failed"; exit 1; }
exit 0
