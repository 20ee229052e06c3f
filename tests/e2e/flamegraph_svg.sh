#!/bin/sh
# tests/e2e/flamegraph_svg.sh - the flame graph SVG writer (-t svg) through
# the command line:
#   (a) well-formed XML (Python's xml.etree, and xmllint when it is there)
#       for samples/demo.spt, perf script captures (one with --event),
#       perfgen's text (when built), the folded sample, --inverted, --width,
#       --minwidth, --addrs, --pid, and a --title and frame names
#       full of < > & " ' and invalid UTF-8 (repaired to U+FFFD, escaped);
#       for each, the tree drawn is the one of the same input's folded
#       stacks (profconv -t folded, or the folded input itself): every node
#       at least --minwidth wide and no other, its data-x (siblings by name),
#       data-w, rect x and width (total / all of the usable width), tooltip
#       "NAME (N UNIT, P%)" and text clipped as the script clips it, the
#       left-out nodes counted in the comment;
#   (b) exact numbers for "a;b;c 30, a;b;d 10, a;e 60", written here;
#   (c) a real browser (Debian's chromium, headless, --dump-dom): the SVG of
#       a perf capture loads without a script error, on its own and in a
#       page that drives it: the root and the hottest function are drawn
#       (getBBox) with the right widths; Ctrl-F (with window.prompt
#       answered) paints exactly the nodes whose names match and prints the
#       share they cover; a click zooms (the node full width, its
#       descendants scaled, its ancestors faded, the rest hidden); Reset
#       Zoom and Reset Search undo both; an icicle (--inverted) zooms alike;
#   (d) a 100,000-frame stack renders in under 5 seconds: with a hot stack
#       beside it, bounded (--minwidth leaves the deep one out and says so);
#       alone, every level drawn;
#   (e) a differential flame graph (profconv diff -t svg; its numbers are
#       checked in diff.sh) in the browser: BASE "main;hot 100, main;cold
#       100", NEW with hot twice as hot: it loads without a script error,
#       hot red and cold blue at the widths of NEW's counts, the tooltip on
#       hover has both counts, search paints and clears (the red and blue
#       come back), a click zooms and Reset Zoom undoes it;
#   (f) report -t svg -o writes the same bytes as convert -t svg; without
#       -o it is a usage error (exit 2), as is report -t with another
#       format.
#
# Environment (tests/run.sh): PROFCONV, BUILD, SAMPLES, TMPDIR.
# Exit 0 pass, else fail (a missing tool too: make deps installs them).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
profconv=${PROFCONV:-$top/build/profconv}
samples=${SAMPLES:-$top/samples}
tmp=${TMPDIR:-/tmp}
fail=0

[ -x "$profconv" ] || { echo "FAIL: profconv is not built ($profconv)"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is missing (make deps)"; exit 1; }

failed() {
	echo "FAIL: $*"
	fail=1
}

# The tree checker: check_svg.py SVG FOLDED UNIT [MINWIDTH]
cat >"$tmp/check_svg.py" <<'PY'
import math, re, sys, xml.etree.ElementTree as ET

svg_path, folded_path, unit = sys.argv[1:4]
minwidth = float(sys.argv[4]) if len(sys.argv) > 4 else 0.1
NS = "{http://www.w3.org/2000/svg}"
raw = open(svg_path, "rb").read().decode("utf-8")
root = ET.fromstring(raw)
usable = int(root.get("width")) - 20
inverted = "inverted: true" in root.find(NS + "script").text
errors = []

def fit(name, pixels):
    room = math.floor((pixels - 6) / 7.08)
    if len(name) <= max(room, 0):
        return name
    return name[:room - 2] + ".." if room >= 3 else ""

# the expected tree, from the folded stacks
total, kids = {(): 0}, {(): set()}
for line in open(folded_path, encoding="utf-8"):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    if not int(count):
        continue
    path = ()
    total[()] += int(count)
    for name in stack.split(";"):
        kids.setdefault(path, set()).add(name)
        path += (name,)
        total[path] = total.get(path, 0) + int(count)
all_ = total[()]
scale = usable / all_ if all_ else 0
offset = {(): 0}
order = [()]
for path in order:
    x = offset[path]
    for name in sorted(kids.get(path, ()), key=lambda n: n.encode("utf-8")):
        offset[path + (name,)] = x
        x += total[path + (name,)]
        order.append(path + (name,))
wanted = {p for p in total if p == () or total[p] * scale >= minwidth}

# the nodes drawn, in pre-order; depth from y
frames = root.find(".//%sg[@id='fg-frames']" % NS)
drawn, stack = [], []
base = None
for g in frames.findall(NS + "g"):
    title, rect, text = g.find(NS + "title").text, g.find(NS + "rect"), g.find(NS + "text")
    y = float(rect.get("y"))
    if base is None:
        base = y
    depth = int(round((y - base) / 16 if inverted else (base - y) / 16))
    name = title.rsplit(" (", 1)[0]
    stack[depth - 1:] = [name] if depth else []
    path = tuple(stack[:depth]) if depth else ()
    drawn.append(path)
    if path not in total:
        errors.append("drawn but not in the folded stacks: %r" % (path,))
        continue
    t, x = total[path], offset[path]
    pct = t * 100.0 / all_ if all_ else 0.0
    want = {
        "class": "r" if not path else g.get("class"),
        "data-x": str(x), "data-w": str(t),
        "title": "%s (%s %s, %.2f%%)" % (name if path else "all", format(t, ","), unit, pct),
        "x": "%.2f" % (10 + x * scale), "width": "%.2f" % (t * scale),
        "text": fit(name, t * scale),
    }
    got = {
        "class": g.get("class"), "data-x": g.get("data-x"), "data-w": g.get("data-w"),
        "title": title, "x": rect.get("x"), "width": rect.get("width"),
        "text": text.text or "",
    }
    if got != want or got["class"] not in ("r", "m", "k", "j", "i", "u"):
        errors.append("node %r: got %r, want %r" % (path, got, want))
if set(drawn) != wanted or len(drawn) != len(wanted):
    errors.append("%d nodes drawn, %d wanted; missing %r, extra %r" % (
        len(drawn), len(wanted), sorted(wanted - set(drawn))[:3], sorted(set(drawn) - wanted)[:3]))
m = re.search(r"; (\d+) nodes narrower than \S+ pixels are not drawn -->", raw)
omitted = int(m.group(1)) if m else 0
if omitted != len(total) - len(wanted):
    errors.append("the comment says %d nodes left out, not %d" % (omitted, len(total) - len(wanted)))
for e in errors[:10]:
    print("FAIL: %s: %s" % (svg_path, e))
if not errors:
    print("%s: %d nodes checked" % (svg_path.rsplit("/", 1)[-1], len(drawn)))
sys.exit(1 if errors else 0)
PY

# well_formed SVG: parsed by Python (and xmllint when installed)
well_formed() {
	python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$1" ||
		{ failed "$1: not well-formed XML (xml.etree)"; return 1; }
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout --huge "$1" || { failed "$1: not well-formed XML (xmllint)"; return 1; }
	fi
}

# check NAME UNIT FOLDED-OR-- INPUT [OPTIONS...]: INPUT -> NAME.svg, well-formed and the tree
# of FOLDED (or for "-", of INPUT -> folded with the same --event, --addrs, --pid, --tid)
check() {
	name=$1 unit=$2 folded=$3 input=$4
	shift 4
	"$profconv" convert -q -t svg -o "$tmp/$name.svg" "$@" "$input" ||
		{ failed "$name: $input -> svg failed"; return; }
	if [ "$folded" = - ]; then
		folded=$tmp/$name.folded
		naming=
		for option in "$@"; do
			case $option in --event=* | --addrs | --pid | --tid) naming="$naming $option" ;; esac
		done
		"$profconv" convert -q -t folded -o "$folded" $naming "$input" ||
			{ failed "$name: $input -> folded failed"; return; }
	fi
	minwidth=0.1
	for option in "$@"; do
		case $option in --minwidth=*) minwidth=${option#--minwidth=} ;; esac
	done
	well_formed "$tmp/$name.svg" || return
	python3 "$tmp/check_svg.py" "$tmp/$name.svg" "$folded" "$unit" "$minwidth" || fail=1
}

# --- (a) inputs of every kind ---
check demo samples - "$samples/demo.spt"
check demo-addrs samples - "$samples/demo.spt" --addrs
check perf-fp nanoseconds - "$samples/perf/fp-mmap.perf.txt"
check perf-dwarf nanoseconds -  "$samples/perf/dwarf.perf.txt"
check perf-faults page-faults/period=64/ - "$samples/perf/twoevents.perf.txt" \
	--event=page-faults/period=64/
check recursive samples "$samples/folded/recursive.folded" "$samples/folded/recursive.folded"
check recursive-inverted samples "$samples/folded/recursive.folded" \
	"$samples/folded/recursive.folded" --inverted --width=640
check recursive-all samples "$samples/folded/recursive.folded" \
	"$samples/folded/recursive.folded" --minwidth=0
# perfgen's text (tools/perfgen.c: many processes, JIT, kernel and [unknown]
# frames, C++ and JS names, blanks and brackets in comms), when it is built
perfgen=${BUILD:-build}/tools/perfgen
if [ -x "$perfgen" ]; then
	"$perfgen" --random 7 --bytes 3000000 "$tmp/generated.perf.txt" || failed "perfgen failed"
	check generated nanoseconds - "$tmp/generated.perf.txt"
	check generated-pid nanoseconds - "$tmp/generated.perf.txt" --pid --minwidth=2
else
	echo "note: $perfgen is not built; the generated file is not checked"
fi
grep -q '<title>Icicle Graph</title>' "$tmp/recursive-inverted.svg" ||
	failed "--inverted: not titled Icicle Graph"

# names and a title full of XML's special characters and invalid UTF-8
printf 'main;operator<<(std::ostream&, "x");tmpl<a, b> 5\nmain;caf\303\251 \342\202\254;it'"'"'s 3\nmain;bad\377\376;x>y 2\n' \
	>"$tmp/special.folded"
title=$(printf 'A <b> & "c" '"'"'d'"'"' caf\303\251 \377')
"$profconv" convert -q -f folded -t svg --title "$title" -o "$tmp/special.svg" \
	"$tmp/special.folded" || failed "special characters: convert failed"
if well_formed "$tmp/special.svg"; then
	python3 - "$tmp/special.svg" <<'PY' || fail=1
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
titles = [t.text for t in root.iter(NS + "title")]
want_title = "A <b> & \"c\" 'd' caf\u00e9 \ufffd"
want = ['operator<<(std::ostream&, "x") (5 samples, 50.00%)', "tmpl<a, b> (5 samples, 50.00%)",
        "caf\u00e9 \u20ac (3 samples, 30.00%)", "it's (3 samples, 30.00%)",
        "bad\ufffd\ufffd (2 samples, 20.00%)", "x>y (2 samples, 20.00%)"]
texts = [t.text for t in root.iter(NS + "text")]
bad = [w for w in want if w not in titles]
if titles[0] != want_title or want_title not in texts or bad:
    print("FAIL: special characters: titles", titles[:1], "missing", bad)
    sys.exit(1)
PY
fi

# --- (b) exact numbers ---
printf 'a;b;c 30\na;b;d 10\na;e 60\n' >"$tmp/abc.folded"
"$profconv" convert -q -o "$tmp/abc.svg" "$tmp/abc.folded" || failed "abc: convert failed"
python3 - "$tmp/abc.svg" <<'PY' || fail=1
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
got = []
for g in root.find(".//%sg[@id='fg-frames']" % NS).findall(NS + "g"):
    r = g.find(NS + "rect")
    got.append((g.find(NS + "title").text, r.get("x"), r.get("y"), r.get("width")))
# usable width 1200 - 2 * 10 = 1180: all 100, a 100, b 40, c 30, d 10, e 60
want = [("all (100 samples, 100.00%)", "10.00", "88", "1180.00"),
        ("a (100 samples, 100.00%)", "10.00", "72", "1180.00"),
        ("b (40 samples, 40.00%)", "10.00", "56", "472.00"),
        ("c (30 samples, 30.00%)", "10.00", "40", "354.00"),
        ("d (10 samples, 10.00%)", "364.00", "40", "118.00"),
        ("e (60 samples, 60.00%)", "482.00", "56", "708.00")]
if got != want:
    print("FAIL: abc: got", got)
    sys.exit(1)
PY
check abc samples "$tmp/abc.folded" "$tmp/abc.folded"

# --- (d) 100,000 frames ---
python3 -c '
print(";".join("f%d" % i for i in range(100000)) + " 1")
print("main;hot 1000000")' >"$tmp/deep.folded"
python3 -c 'print(";".join("f%d" % i for i in range(100000)) + " 5")' >"$tmp/deeponly.folded"
for name in deep deeponly; do
	start=$(date +%s%N)
	"$profconv" convert -q -o "$tmp/$name.svg" "$tmp/$name.folded" ||
		failed "$name: convert failed"
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	size=$(wc -c <"$tmp/$name.svg")
	echo "$name: 100,000 frames in $ms ms, $size bytes"
	[ "$ms" -lt 5000 ] || failed "$name: $ms ms"
	well_formed "$tmp/$name.svg"
done
[ "$(wc -c <"$tmp/deep.svg")" -lt 20000 ] || failed "deep: the output is not bounded"
grep -q '; 100000 nodes narrower than 0.1 pixels are not drawn -->' "$tmp/deep.svg" ||
	failed "deep: the left-out nodes are not counted"
[ "$(grep -c '^<g class=' "$tmp/deeponly.svg")" = 100001 ] || failed "deeponly: not 100,001 nodes"
# each level costs a bounded number of bytes
[ "$(wc -c <"$tmp/deeponly.svg")" -lt 30000000 ] || failed "deeponly: over 300 bytes a level"

# --- (c) a real browser ---
browser=
for candidate in chromium chromium-browser; do
	command -v "$candidate" >/dev/null 2>&1 && { browser=$candidate; break; }
done
if [ -z "$browser" ]; then
	echo "FAIL: chromium is missing (Debian package chromium, installed by make deps): the browser checks did not run"
	exit 1
fi

# run_browser URL OUT: headless chromium's DOM after load in OUT.dom, its log in OUT.log
run_browser() {
	timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run \
		--allow-file-access-from-files --user-data-dir="$tmp/chromium-profile" \
		--enable-logging=stderr --v=0 --dump-dom "$1" >"$2.dom" 2>"$2.log" ||
		{ failed "$browser failed on $1"; tail -5 "$2.log"; return 1; }
	if grep -E 'CONSOLE.*(Uncaught|Error)' "$2.log"; then
		failed "$1: script errors in the browser"
		return 1
	fi
}

svg=$tmp/perf-fp.svg
# the page: runs the SVG's own script in an iframe; its findings go into <pre id="result">
python3 - "$svg" "$tmp/perf-fp.folded" "$tmp/page.html" "$tmp/expect.json" <<'PY' || fail=1
import json, re, sys
svg, folded, page, expect = sys.argv[1:5]
total, names = {}, {}
for line in open(folded, encoding="utf-8"):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    path = ()
    for name in stack.split(";"):
        path += (name,)
        total[path] = total.get(path, 0) + int(count)
all_ = sum(int(l.rsplit(" ", 1)[1]) for l in open(folded, encoding="utf-8"))
# the hottest function below the process root, and a name found at several places
hot = max((p for p in total if len(p) >= 3 and total[p] < all_), key=lambda p: (total[p], [n.encode() for n in p]))
counts = {}
for p in total:
    counts[p[-1]] = counts.get(p[-1], 0) + 1
term = max((n for n in counts if counts[n] > 1 and re.fullmatch(r"[A-Za-z_0-9]+", n)),
           key=lambda n: (counts[n], n))
regex = "^" + term + "$"
# the share the matches cover: nodes inside a match count once
covered = sum(total[p] for p in total if p[-1] == term and term not in p[:-1])
json.dump({"all": all_, "hot": list(hot), "hot_total": total[hot], "regex": regex,
           "term": term, "matches": counts[term], "covered": covered}, open(expect, "w"))
open(page, "w").write("""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>flame graph test</title></head><body>
<iframe id="graph" src="%s" width="1200" height="900"></iframe>
<pre id="result"></pre>
<script>
var HOT = %s, REGEX = %s;
function state(doc) {
  return Array.prototype.map.call(doc.querySelectorAll("#fg-frames > g"), function (g) {
    var r = g.querySelector("rect"), box = r.getBBox();
    return { title: g.querySelector("title").textContent, cls: g.getAttribute("class"),
             x: r.getAttribute("x"), width: r.getAttribute("width"), fill: r.getAttribute("fill"),
             text: g.querySelector("text").textContent, bbox: box.width };
  });
}
window.addEventListener("load", function () {
  var out = {};
  try {
    var win = document.getElementById("graph").contentWindow, doc = win.document;
    out.functions = [typeof win.fg_search, typeof win.fg_zoom, typeof win.fg_unzoom, typeof win.fg_clear];
    out.initial = state(doc);
    win.prompt = function () { return REGEX; };
    win.dispatchEvent(new win.KeyboardEvent("keydown", { key: "f", ctrlKey: true, bubbles: true }));
    out.searched = state(doc);
    out.matched = doc.getElementById("fg-matched").textContent;
    out.searchLabel = doc.getElementById("fg-search").textContent;
    var groups = doc.querySelectorAll("#fg-frames > g"), path = [], target = null;
    for (var i = 0; i < groups.length && !target; i++) {
      var t = groups[i].querySelector("title").textContent, name = t.substring(0, t.lastIndexOf(" ("));
      var y = Number(groups[i].querySelector("rect").getAttribute("y"));
      var depth = Math.round((Number(groups[0].querySelector("rect").getAttribute("y")) - y) / 16);
      path.length = depth;
      if (depth) path[depth - 1] = name;
      if (depth === HOT.length && path.join(";") === HOT.join(";")) target = groups[i];
    }
    out.zoomTarget = target ? target.querySelector("title").textContent : null;
    target.querySelector("rect").dispatchEvent(new win.MouseEvent("click", { bubbles: true }));
    out.zoomed = state(doc);
    out.unzoomShown = !doc.getElementById("fg-unzoom").classList.contains("fg-hide");
    doc.getElementById("fg-unzoom").dispatchEvent(new win.MouseEvent("click", { bubbles: true }));
    out.unzoomed = state(doc);
    doc.getElementById("fg-search").dispatchEvent(new win.MouseEvent("click", { bubbles: true }));
    out.cleared = state(doc);
    out.clearedMatched = doc.getElementById("fg-matched").textContent;
    out.direct = win.fg_search(REGEX);
  } catch (e) { out.error = String(e) + " " + e.stack; }
  document.getElementById("result").textContent = JSON.stringify(out);
});
</script></body></html>
""" % (svg.rsplit("/", 1)[-1], json.dumps(list(hot)), json.dumps(regex)))
PY

if run_browser "file://$svg" "$tmp/alone" && run_browser "file://$tmp/page.html" "$tmp/page"; then
	grep -q '<svg' "$tmp/alone.dom" || failed "the SVG alone: no <svg> in the browser's DOM"
	python3 - "$tmp/page.dom" "$tmp/expect.json" <<'PY' || fail=1
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
want = json.load(open(sys.argv[2]))
m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
out = json.loads(html.unescape(m.group(1))) if m else {"error": "no result in the page"}
errors = []
if "error" in out:
    print("FAIL: browser: " + out["error"])
    sys.exit(1)
usable, all_ = 1180, want["all"]
def name(node):
    return node["title"].rsplit(" (", 1)[0]
def close(a, b, eps=0.02):
    return abs(float(a) - float(b)) <= eps
if out["functions"] != ["function"] * 4:
    errors.append("the SVG's functions are missing: %r" % out["functions"])
init = out["initial"]
root = init[0]
if name(root) != "all" or not close(root["bbox"], usable) or not close(root["width"], usable):
    errors.append("the root is not drawn %d wide: %r" % (usable, root))
hot = [n for n in init if n["title"] == out["zoomTarget"]]
hot_width = want["hot_total"] * usable / all_
if not hot or not close(hot[0]["bbox"], hot_width) or not close(hot[0]["width"], hot_width):
    errors.append("the hot function %r is not %.2f wide: %r" % (want["hot"], hot_width, hot[:1]))
hits = [n for n in out["searched"] if n["fill"] == "rgb(230,0,230)"]
if len(hits) != want["matches"] or any(name(n) != want["term"] for n in hits):
    errors.append("search %s painted %d nodes, not the %d named %s" % (
        want["regex"], len(hits), want["matches"], want["term"]))
share = "Matched: %.2f%%" % (want["covered"] * 100.0 / all_)
if out["matched"] != share or out["searchLabel"] != "Reset Search":
    errors.append("search says %r (%r), not %r" % (out["matched"], out["searchLabel"], share))
if not close(out["direct"]["covered"], want["covered"], 0):
    errors.append("fg_search covers %r, not %r" % (out["direct"], want["covered"]))
# zoom: the node full width, its descendants scaled, its ancestors faded, others hidden
z = [i for i, n in enumerate(out["zoomed"]) if n["title"] == out["zoomTarget"]][0]
zoomed, before = out["zoomed"], init
zx, zw = float(before[z]["x"]) - 10, float(before[z]["width"])
for i, (a, b) in enumerate(zip(before, zoomed)):
    bx, bw = float(a["x"]) - 10, float(a["width"])
    inside = bx >= zx - 0.02 and bx + bw <= zx + zw + 0.02
    if i == z:
        ok = close(b["x"], 10) and close(b["width"], usable) and "fg-hide" not in b["cls"]
    elif "fg-parent" in b["cls"]:
        ok = close(b["width"], usable) and bw >= zw - 0.02
    elif "fg-hide" in b["cls"]:
        ok = True
    else:
        ok = inside and close(b["width"], bw * usable / zw, 0.05)
    if not ok:
        errors.append("zoom: %r became %r" % (a, b))
        break
shown = [n for n in zoomed if "fg-hide" not in n["cls"]]
if len(shown) >= len(zoomed) or not out["unzoomShown"]:
    errors.append("zoom hid nothing (%d of %d shown) or no Reset Zoom" % (len(shown), len(zoomed)))
if any(float(n["width"]) <= float(o["width"]) for n, o in zip(zoomed, init)
       if n is not zoomed[z] and "fg-hide" not in n["cls"] and "fg-parent" not in n["cls"]):
    errors.append("zoom did not widen the descendants")
# (the search still paints its matches)
strip = lambda nodes: [(n["x"], n["width"], n["cls"].replace(" fg-match", ""), n["text"])
                       for n in nodes]
if strip(out["unzoomed"]) != strip(init):
    errors.append("Reset Zoom did not restore the picture")
if [n["fill"] for n in out["cleared"]] != [n["fill"] for n in init] or out["clearedMatched"]:
    errors.append("Reset Search did not restore the colours")
for e in errors:
    print("FAIL: browser: " + e)
if not errors:
    print("browser: %d nodes, hot %s %.2f px, %d matches of %s (%s), zoom shows %d" % (
        len(init), want["hot"][-1], hot_width, len(hits), want["regex"], out["matched"],
        len(shown)))
sys.exit(1 if errors else 0)
PY
fi

# drive NAME SVG: NAME.html holds SVG in an iframe and runs the JavaScript on
# stdin once it loads, with win, doc, groups (the nodes' <g>) and rows (what
# to report); after the browser, NAME.got holds the rows, one a line
drive() {
	{
		cat <<HTML
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>$1</title></head><body>
<iframe id="graph" src="$2" width="1200" height="300"></iframe>
<pre id="result"></pre>
<script>
window.addEventListener("load", function () {
  var rows = [];
  try {
    var win = document.getElementById("graph").contentWindow, doc = win.document;
    var groups = doc.querySelectorAll("#fg-frames > g");
HTML
		cat
		cat <<'HTML'
  } catch (e) { rows.push(String(e)); }
  document.getElementById("result").textContent = rows.join("\n");
});
</script></body></html>
HTML
	} >"$tmp/$1.html"
	run_browser "file://$tmp/$1.html" "$tmp/$1" || return 1
	sed -n '/<pre id="result">/,/<\/pre>/p' "$tmp/$1.dom" |
		sed 's/<pre id="result">//; s/<\/pre>.*//' >"$tmp/$1.got"
}

# same_rows NAME WHAT: NAME.got holds the rows on stdin, else WHAT fails
same_rows() {
	cat >"$tmp/$1.want"
	cmp -s "$tmp/$1.want" "$tmp/$1.got" || { failed "$2"; diff "$tmp/$1.want" "$tmp/$1.got"; }
}

# an icicle: a click on b (40 of 100) in "a;b;c 30, a;b;d 10, a;e 60" zooms the same way
"$profconv" convert -q --inverted -o "$tmp/abc-inverted.svg" "$tmp/abc.folded" ||
	failed "abc: --inverted failed"
drive icicle abc-inverted.svg <<'JS' && same_rows icicle "icicle: the zoom on b differs" <<'WANT'
    groups[2].querySelector("rect").dispatchEvent(new win.MouseEvent("click", { bubbles: true }));
    groups.forEach(function (g) {
      var r = g.querySelector("rect");
      rows.push([g.querySelector("title").textContent.split(" ")[0], r.getAttribute("x"),
                 r.getAttribute("y"), r.getAttribute("width"), g.getAttribute("class")].join(" "));
    });
JS
all 10.00 40 1180.00 r fg-parent
a 10.00 56 1180.00 m fg-parent
b 10.00 72 1180.00 m
c 10.00 88 885.00 m
d 895.00 88 295.00 m
e 482.00 72 708.00 m fg-hide
WANT

# --- (e) a differential flame graph in the browser ---
printf 'main;hot 100\nmain;cold 100\n' >"$tmp/base.folded"
printf 'main;hot 200\nmain;cold 100\n' >"$tmp/new.folded"
"$profconv" diff -q -t svg -o "$tmp/diff.svg" "$tmp/base.folded" "$tmp/new.folded" ||
	failed "diff -t svg failed"
run_browser "file://$tmp/diff.svg" "$tmp/diff-alone" && grep -q '<svg' "$tmp/diff-alone.dom" ||
	failed "the diff SVG alone: no <svg> in the browser's DOM"
# NEW 300: cold 100 of 1180 pixels, hot 200; BASE scaled by 1.5: hot +50, cold -50
drive diff diff.svg <<'JS' && same_rows diff "the differential flame graph in the browser differs" <<'WANT'
    function snapshot(label) {
      groups.forEach(function (g) {
        var r = g.querySelector("rect");
        rows.push([label, g.querySelector("title").textContent.split(" ")[0], r.getAttribute("fill"),
                   r.getAttribute("x"), r.getAttribute("width"), r.getBBox().width.toFixed(2),
                   g.getAttribute("class")].join(" "));
      });
    }
    function click(element) { element.dispatchEvent(new win.MouseEvent("click", { bubbles: true })); }
    snapshot("drawn");
    groups[3].querySelector("rect").dispatchEvent(new win.MouseEvent("mouseover", { bubbles: true }));
    rows.push("hover " + doc.getElementById("fg-details").textContent);
    var found = win.fg_search("^hot$");
    rows.push("search " + found.nodes + " " + doc.getElementById("fg-matched").textContent);
    snapshot("searched");
    win.fg_clear();
    snapshot("cleared");
    click(groups[3].querySelector("rect"));
    snapshot("zoomed");
    click(doc.getElementById("fg-unzoom"));
    snapshot("unzoomed");
JS
drawn all rgb(255,255,255) 10.00 1180.00 1180.00 r
drawn main rgb(255,255,255) 10.00 1180.00 1180.00 m
drawn cold rgb(0,0,255) 10.00 393.33 393.33 m
drawn hot rgb(255,0,0) 403.33 786.67 786.67 m
hover hot (new 200, 66.67%; base 100, 50.00%; +33.33%)
search 1 Matched: 66.67%
searched all rgb(255,255,255) 10.00 1180.00 1180.00 r
searched main rgb(255,255,255) 10.00 1180.00 1180.00 m
searched cold rgb(0,0,255) 10.00 393.33 393.33 m
searched hot rgb(230,0,230) 403.33 786.67 786.67 m fg-match
cleared all rgb(255,255,255) 10.00 1180.00 1180.00 r
cleared main rgb(255,255,255) 10.00 1180.00 1180.00 m
cleared cold rgb(0,0,255) 10.00 393.33 393.33 m
cleared hot rgb(255,0,0) 403.33 786.67 786.67 m
zoomed all rgb(255,255,255) 10.00 1180.00 1180.00 r fg-parent
zoomed main rgb(255,255,255) 10.00 1180.00 1180.00 m fg-parent
zoomed cold rgb(0,0,255) 10.00 393.33 393.33 m fg-hide
zoomed hot rgb(255,0,0) 10.00 1180.00 1180.00 m
unzoomed all rgb(255,255,255) 10.00 1180.00 1180.00 r
unzoomed main rgb(255,255,255) 10.00 1180.00 1180.00 m
unzoomed cold rgb(0,0,255) 10.00 393.33 393.33 m
unzoomed hot rgb(255,0,0) 403.33 786.67 786.67 m
WANT

# --- (f) report -t svg ---
"$profconv" report -q -t svg -o "$tmp/report.svg" --title 'R' "$tmp/abc.folded" ||
	failed "report -t svg failed"
"$profconv" convert -q -t svg -o "$tmp/convert.svg" --title 'R' "$tmp/abc.folded"
cmp -s "$tmp/report.svg" "$tmp/convert.svg" || failed "report -t svg differs from convert -t svg"
for args in "-t svg" "-t pprof -o $tmp/x.pb.gz" "-t svg --top 3 -o $tmp/x.svg"; do
	# shellcheck disable=SC2086 # the arguments are meant to split
	"$profconv" report $args "$tmp/abc.folded" >"$tmp/usage.out" 2>/dev/null
	status=$?
	[ "$status" = 2 ] && [ ! -s "$tmp/usage.out" ] || failed "report $args: exit $status, not 2"
done

exit $fail
