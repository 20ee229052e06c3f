#!/bin/sh
# profconv diff BASE NEW (issue 19, item 5: the report, folded and svg forms).
#
# (a) Folded inputs written here: base "main;a 100 / main;b 100", new
#     "main;a 200 / main;b 100 / main;c 10". -t folded prints difffolded.pl's
#     lines exactly; the report lists a first (its count changed most) with
#     50.00% -> 64.52% and factor 2.00x, then c ("new"), then b (1.00x);
#     both totals are printed.
# (b) Two perf captures of one program (a C program written here, hot1 and
#     hot2 doing equal work per call), the second
#     with hot1's work doubled: the report lists hot1 first, with a share
#     factor (of each profile's total) between 1.2 and 1.45 (4/3: 1/2 of
#     the samples to 2/3) and hot2's between 0.55 and 0.8 (2/3). Shares,
#     not counts: hot1 and hot2 take turns in one run, so a machine slowed
#     for a while (a busy host) changes both alike, where the count
#     factors of two runs can pass 2.5.
#     The same captures as -t svg: hot1 red, hot2 blue (it did not double,
#     so its share fell), and the tree checked as in (d).
# (c) Usage: one input, -t pprof, --top 0, -t svg without -o, --no-normalize
#     without -t svg and a folded option with -t svg exit 2; an output
#     file is written only when the whole diff succeeds.
# (d) -t svg on folded inputs written here, BASE "main;hot 100 / shrink 200
#     / same 100 / steady 100 / gone 50" (550), NEW "main;hot 200 / shrink
#     195 / same 110 / steady 100" (605): hot, twice as hot, is pure red;
#     with BASE scaled by 605/550 = 1.1 (the default) shrink is blue
#     (rgb(184,184,255)), same white, steady pale blue; with --no-normalize
#     steady is white, same pale red, shrink pale blue; every box as wide as
#     NEW's count (hot 390.08 of 1180 pixels), tooltips "hot (new 200,
#     33.06%; base 100, 18.18%; +81.82%)" (+100.00% as they are),
#     gone not drawn; and every node of both pictures as check_diff.py
#     computes it from the two folded files (widths, order, colours,
#     tooltips), and so for two of perfgen's texts (when it is built);
#     --title, --width and --inverted apply.
set -u
fail=0
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMPDIR" || exit 2
bad() { echo "FAIL: $*"; fail=1; }

# check_diff.py BASE.folded NEW.folded SVG NORMALIZE(0|1): every node of a
# differential flame graph against the folded stacks (root first).
cat > check_diff.py <<'PY'
import math, sys, xml.etree.ElementTree as ET

base_path, new_path, svg_path, normalize = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
NS = "{http://www.w3.org/2000/svg}"

def inclusive(path):
    counts = {(): 0}
    for line in open(path, encoding="utf-8"):
        stack, count = line.rstrip("\n").rsplit(" ", 1)
        counts[()] += int(count)
        node = ()
        for name in stack.split(";"):
            node += (name,)
            counts[node] = counts.get(node, 0) + int(count)
    return counts

base, new = inclusive(base_path), inclusive(new_path)
paths = set(base) | set(new)
tn, tb = new[()], base[()]

def scaled(p):
    b = float(base.get(p, 0))
    return b * float(tn) / float(tb) if normalize and tb and tn else b

def change(p):
    c = float(new.get(p, 0)) - scaled(p)
    return 0.0 if abs(c) < 1e-12 * tn else c

largest = max([abs(change(p)) for p in paths if p] + [0.0])

def colour(p):
    ratio = min(abs(change(p)) / largest, 1.0) if largest > 0 else 0.0
    faded = 255 - int(math.floor(255.0 * ratio + 0.5))
    return "rgb(255,%d,%d)" % (faded, faded) if change(p) > 0 else "rgb(%d,%d,255)" % (faded, faded)

def share(count, total):
    return "%s, %.2f%%" % (format(count, ","), count * 100.0 / total if total else 0.0)

def tooltip(p):
    n, b = new.get(p, 0), base.get(p, 0)
    text = "%s (new %s; base %s" % (p[-1] if p else "all", share(n, tn), share(b, tb))
    if scaled(p) > 0:
        text += "; %+.2f%%" % (change(p) * 100.0 / scaled(p))
    elif n:
        text += "; new"
    return text + ")"

scale = 1180.0 / tn if tn else 0.0
kids = {}
for p in paths:
    if p:
        kids.setdefault(p[:-1], []).append(p)
# pre-order, children by name (bytes), each at the offset its elder siblings leave
order, x, todo = [], {(): 0}, [()]
while todo:
    p = todo.pop()
    order.append(p)
    at = x[p]
    children = sorted(kids.get(p, ()), key=lambda c: c[-1].encode("utf-8"))
    for child in children:
        x[child] = at
        at += new.get(child, 0)
    todo.extend(reversed(children))
want = [p for p in order if not p or (new.get(p, 0) and new[p] * scale >= 0.1)]

root = ET.parse(svg_path).getroot()
groups = root.find(".//%sg[@id='fg-frames']" % NS).findall(NS + "g")
errors = []
if len(groups) != len(want):
    errors.append("%d nodes drawn, %d wanted" % (len(groups), len(want)))
for p, g in zip(want, groups):
    rect = g.find(NS + "rect")
    got = (g.get("data-x"), g.get("data-w"), g.find(NS + "title").text, rect.get("x"),
           rect.get("width"), rect.get("fill"))
    expected = (str(x[p]), str(new.get(p, 0)), tooltip(p), "%.2f" % (10 + x[p] * scale),
                "%.2f" % (new.get(p, 0) * scale), colour(p))
    if got != expected:
        errors.append("%r: got %r, want %r" % (p, got, expected))
for e in errors[:10]:
    print("FAIL: %s: %s" % (svg_path, e))
if not errors:
    print("%s: %d nodes checked, largest change %.2f" % (svg_path, len(want), largest))
sys.exit(1 if errors else 0)
PY

# ---- (a) folded ----
printf 'main;a 100\nmain;b 100\n' > base.folded
printf 'main;a 200\nmain;b 100\nmain;c 10\n' > new.folded
"$PROFCONV" diff -q -t folded -o diff.folded base.folded new.folded || bad "diff -t folded failed"
printf 'main;a 100 200\nmain;b 100 100\nmain;c 0 10\n' > expected.folded
cmp -s diff.folded expected.folded || bad "diff -t folded: $(cat diff.folded)"
"$PROFCONV" diff -q base.folded new.folded > report.txt || bad "diff (report) failed"
grep -q '^base: base.folded, total 200$' report.txt && grep -q '^new:  new.folded, total 310$' report.txt ||
	bad "diff report: totals: $(head -2 report.txt)"
sed -n '5p' report.txt | grep -Eq '^ +50\.00% +64\.52% +\+14\.52pt +2\.00x +1\.29x .* a$' ||
	bad "diff report: a is not first with 2.00x: $(sed -n '5p' report.txt)"
sed -n '6p' report.txt | grep -Eq ' new +new .* c$' || bad "diff report: c is not second: $(sed -n '6p' report.txt)"
sed -n '7p' report.txt | grep -Eq ' 1\.00x .* b$' || bad "diff report: b is not third: $(sed -n '7p' report.txt)"

# ---- (b) two captures of one program ----
cat > two.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
/* the same loop in both, so that equal n means equal work */
static unsigned spin(unsigned n, unsigned s)
{
	for (unsigned i = 0; i < n; i++)
		s = s * 2654435761u + (i ^ (s >> 7));
	return s;
}
__attribute__((noinline)) unsigned hot1(unsigned n, unsigned r) { return spin(n, r); }
__attribute__((noinline)) unsigned hot2(unsigned n, unsigned r) { return spin(n, r + 1); }
int main(int argc, char **argv)
{
	unsigned a = (unsigned)atoi(argv[1]), b = (unsigned)atoi(argv[2]), s = 0;

	for (unsigned r = 0; r < 8; r++)
		s += hot1(a, r) + hot2(b, r);
	printf("%u\n", s);
	return 0;
}
EOF
if command -v perf > /dev/null 2>&1 && gcc -O2 -g -o two two.c; then
	perf record -q -e cpu-clock -F 4000 -o base.data ./two 10000000 10000000 > /dev/null 2>&1 &&
	perf record -q -e cpu-clock -F 4000 -o new.data ./two 20000000 10000000 > /dev/null 2>&1 ||
		bad "perf record ./two"
	"$PROFCONV" diff -q base.data new.data > perf.report || bad "diff of perf captures failed"
	cat perf.report
	awk 'NR == 5 && $NF == "hot1" { f = $5; sub(/x$/, "", f); ok = (f >= 1.2 && f <= 1.45) }
	     END { exit !ok }' perf.report || bad "hot1 is not first with a share factor near 4/3"
	awk '$NF == "hot2" { f = $5; sub(/x$/, "", f); ok = (f >= 0.55 && f <= 0.8) } END { exit !ok }' \
		perf.report || bad "hot2's share factor is not near 2/3"
	"$PROFCONV" diff -q -t svg -o perf.svg base.data new.data || bad "diff -t svg of perf captures failed"
	"$PROFCONV" convert -q -t folded -o base.data.folded base.data &&
	"$PROFCONV" convert -q -t folded -o new.data.folded new.data || bad "perf captures to folded"
	python3 check_diff.py base.data.folded new.data.folded perf.svg 1 || fail=1
	python3 - perf.svg <<'PY' || bad "perf.svg: hot1 is not red or hot2 not blue"
import re, sys
svg = open(sys.argv[1]).read()
fills = dict(re.findall(r'<title>(hot[12]) \(.*?fill="(rgb\([0-9,]+\))"', svg))
print("perf.svg:", fills)
red = re.fullmatch(r"rgb\(255,(\d+),\1\)", fills.get("hot1", ""))
blue = re.fullmatch(r"rgb\((\d+),\1,255\)", fills.get("hot2", ""))
sys.exit(0 if red and blue and int(red.group(1)) < 128 and int(blue.group(1)) < 255 else 1)
PY
else
	bad "perf or gcc missing (make deps installs them)"
fi

# ---- (c) usage ----
for args in "base.folded" "-t pprof base.folded new.folded" "--top 0 base.folded new.folded" \
	"--no-normalize base.folded new.folded" \
	"-t folded --no-normalize base.folded new.folded" "-t svg --kernel base.folded new.folded"; do
	# shellcheck disable=SC2086 # the arguments are meant to split
	"$PROFCONV" diff -q -o usage.out $args 2> usage.err
	status=$?
	[ "$status" = 2 ] || bad "diff $args exited $status, expected 2"
	[ ! -e usage.out ] || bad "diff $args left an output"
done
"$PROFCONV" diff -q -t svg base.folded new.folded > usage.out 2> usage.err
status=$?
[ "$status" = 2 ] && [ ! -s usage.out ] || bad "diff -t svg without -o exited $status, expected 2"

# ---- (d) -t svg ----
printf 'main;hot 100\nmain;shrink 200\nmain;same 100\nmain;steady 100\nmain;gone 50\n' > base2.folded
printf 'main;hot 200\nmain;shrink 195\nmain;same 110\nmain;steady 100\n' > new2.folded
"$PROFCONV" diff -q -t svg -o scaled.svg base2.folded new2.folded || bad "diff -t svg failed"
"$PROFCONV" diff -q -t svg --no-normalize -o raw.svg base2.folded new2.folded ||
	bad "diff -t svg --no-normalize failed"
python3 check_diff.py base2.folded new2.folded scaled.svg 1 || fail=1
python3 check_diff.py base2.folded new2.folded raw.svg 0 || fail=1
# node NAME SVG: the tooltip and the fill of NAME's box
node() {
	python3 -c '
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
for g in ET.parse(sys.argv[2]).getroot().iter(NS + "g"):
    t = g.find(NS + "title")
    if t is not None and t.text.startswith(sys.argv[1] + " ("):
        print(t.text, g.find(NS + "rect").get("width"), g.find(NS + "rect").get("fill"))' "$1" "$2"
}
expect() { # NAME SVG WANT
	got=$(node "$1" "$2")
	[ "$got" = "$3" ] || bad "$2: $1 is '$got', not '$3'"
}
expect hot scaled.svg 'hot (new 200, 33.06%; base 100, 18.18%; +81.82%) 390.08 rgb(255,0,0)'
expect shrink scaled.svg 'shrink (new 195, 32.23%; base 200, 36.36%; -11.36%) 380.33 rgb(184,184,255)'
expect same scaled.svg 'same (new 110, 18.18%; base 100, 18.18%; +0.00%) 214.55 rgb(255,255,255)'
expect steady scaled.svg 'steady (new 100, 16.53%; base 100, 18.18%; -9.09%) 195.04 rgb(227,227,255)'
expect main scaled.svg 'main (new 605, 100.00%; base 550, 100.00%; +0.00%) 1180.00 rgb(255,255,255)'
expect gone scaled.svg ''
expect hot raw.svg 'hot (new 200, 33.06%; base 100, 18.18%; +100.00%) 390.08 rgb(255,0,0)'
expect shrink raw.svg 'shrink (new 195, 32.23%; base 200, 36.36%; -2.50%) 380.33 rgb(242,242,255)'
expect same raw.svg 'same (new 110, 18.18%; base 100, 18.18%; +10.00%) 214.55 rgb(255,229,229)'
expect steady raw.svg 'steady (new 100, 16.53%; base 100, 18.18%; +0.00%) 195.04 rgb(255,255,255)'
grep -q '>new2.folded: 605 against base2.folded: 550 (scaled to 605); red grew, blue shrank<' \
	scaled.svg || bad "scaled.svg: the subtitle"
grep -q '>new2.folded: 605 against base2.folded: 550; red grew, blue shrank<' \
	raw.svg || bad "raw.svg: the subtitle"
"$PROFCONV" diff -q -t svg --title 'A & B' --width 600 --inverted -o options.svg base2.folded new2.folded ||
	bad "diff -t svg with the svg options failed"
grep -q '<title>A &amp; B</title>' options.svg && grep -q '<svg version="1.1" width="600"' options.svg &&
	grep -q 'inverted: true' options.svg || bad "diff -t svg: --title, --width or --inverted not applied"
expect hot options.svg 'hot (new 200, 33.06%; base 100, 18.18%; +81.82%) 191.74 rgb(255,0,0)'
python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' options.svg ||
	bad "options.svg is not well-formed"
# two of perfgen's texts (many processes, deep stacks, C++ names), when it is built
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
perfgen=$build/tools/perfgen
if [ -x "$perfgen" ]; then
	"$perfgen" --random 7 --bytes 3000000 gen1.txt && "$perfgen" --random 8 --bytes 3000000 gen2.txt &&
	"$PROFCONV" convert -q -t folded -o gen1.folded gen1.txt &&
	"$PROFCONV" convert -q -t folded -o gen2.folded gen2.txt || bad "perfgen's texts to folded"
	for normalize in 1 0; do
		option=; [ "$normalize" = 0 ] && option=--no-normalize
		"$PROFCONV" diff -q -t svg $option -o gen.svg gen1.txt gen2.txt || bad "diff -t svg $option of perfgen's texts"
		python3 check_diff.py gen1.folded gen2.folded gen.svg "$normalize" || fail=1
	done
else
	echo "note: $perfgen is not built; the generated texts are not diffed"
fi
exit $fail
