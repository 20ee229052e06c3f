#!/bin/sh
# tests/e2e/perf_corpus.sh - the perf script reader and the folded writer
# against the public corpus in ../shared/corpus/perf-script (see its
# README for sources, licences and the expected results it holds).
#
# 1. FlameGraph: each of the 13 inputs of flamegraph/test/ with each of
#    stackcollapse-perf.pl's option sets of results/ (pid, tid, kernel, jit,
#    all = kernel + jit, addrs) folds to exactly the expected file, 78 in
#    all. profconv keeps the last sample of a file that does not end in a
#    blank line, where the Perl script drops it (six inputs end so), so the
#    input is given up to its last blank line: what the script folds. The 8
#    files the corpus README calls stale (java-faults-01, java-stacks-01,
#    java-stacks-02, vertx-stacks-01 with --pid and --tid: they keep the
#    JVM "L" prefix the script now strips) must match once that prefix is
#    stripped from them, and not before.
# 2. inferno: its expected files where inferno and the Perl script agree
#    match exactly (example-perf-stacks, go-stacks, java-inline,
#    sourcepawn-jitdump --jit, versioned-vmlinux --kernel); the
#    others match after the differences the README names are applied to
#    both sides: inferno repairs partially demangled Rust symbols and keeps
#    quotes (perf-rust-Yamakaky-dcpu x 6 option sets, single-event), keeps
#    parentheses inside C++ templates (cpp-stacks-std-function), and counts
#    "cycles" and "cycles:u" as one event (single-line-stacks: profconv's
#    folds of the two events, merged). no-events.txt is 0 bytes, whose
#    empty folded output inferno expects: profconv refuses every 0-byte
#    input, "profconv: FILE: empty input", exit 1 and no output.
# 3. Every other input in the corpus (.gz ones through zcat) reads without
#    error with `profconv convert -f perf-script -t dump`, and is detected
#    as perf-script without -f, except inferno's no-events.txt (0 bytes:
#    refused as above). Not inputs: the expected results (results/,
#    *.afdotext), licences and READMEs. Two files are malformed on purpose
#    and must fail with a located error: collapse-guess/unknown-format.txt
#    (not perf script) and collapse-perf/weird-stack-line.txt (a callchain
#    line that is not one), which --skip-bad reads with one warning.
#
# Environment (tests/run.sh): PROFCONV, SHARED, TMPDIR. Exit 0 pass, 77
# skipped (with a "SKIPPED:" line), else fail.
set -u

skip() {
	echo "SKIPPED: $*"
	exit 77
}

top=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${SHARED:-$top/../shared}/corpus/perf-script
profconv=${PROFCONV:-$top/build/profconv}
tmp=${TMPDIR:-/tmp}
[ -d "$corpus" ] || skip "no perf script corpus at $corpus"
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
command -v zcat >/dev/null 2>&1 || skip "zcat is missing"
"$profconv" formats | grep -q '^folded  *write' || skip "this profconv has no folded writer"

failed=0
fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

cat >"$tmp/corpus.py" <<'EOF'
import re, sys

def upto_last_blank(src, dst):
    """What stackcollapse-perf.pl folds: the input up to its last blank line."""
    data = open(src, "rb").read()
    end = data.rfind(b"\n\n")
    open(dst, "wb").write(data if data.endswith(b"\n\n") or end < 0 else data[:end + 2])

def read_folded(path):
    stacks = {}
    for line in open(path, encoding="latin-1"):
        key, count = line.rstrip("\n").rsplit(" ", 1)
        stacks[key] = stacks.get(key, 0) + int(count)
    return stacks

def strip_jvm_l(frame):
    return re.sub(r"^L(?=.*/)", "", frame)

# rustc's legacy mangling, as inferno repairs it (a trailing ::h<16 hex>)
CODES = {"SP": "@", "BP": "*", "RF": "&", "LT": "<", "GT": ">", "LP": "(", "RP": ")", "C": ","}

def rust_fix(sym):
    if not re.search(r"h[0-9a-f]{16}$", sym) or len(sym) < 17:
        return sym
    rest = sym[:-17]
    if rest.endswith("::"):
        rest = rest[:-2]
    if rest.startswith("_$"):
        rest = rest[1:]
    out = ""
    while rest:
        if rest.startswith(".."):
            out, rest = out + "::", rest[2:]
            continue
        m = re.match(r"\$(SP|BP|RF|LT|GT|LP|RP|C|u[0-9a-f]{2})\$", rest)
        if m:
            code = m.group(1)
            out += CODES[code] if code in CODES else chr(int(code[1:], 16))
            rest = rest[m.end():]
            continue
        out, rest = out + rest[0], rest[1:]
    return out

def perl_cut(frame):
    """stackcollapse-perf.pl's argument-list cut (inferno keeps template parens)."""
    if re.search(r"\.\(.*\)\.", frame):
        return frame
    m = re.search(r"\((?!anonymous namespace\))", frame)
    return frame[:m.start()] if m else frame

def normalized(path, ours):
    out = {}
    for key, count in read_folded(path).items():
        frames = [perl_cut(rust_fix(f) if ours else f) for f in key.split(";")]
        key = ";".join(f.replace("'", "").replace('"', "") for f in frames)
        out[key] = out.get(key, 0) + count
    return out

def show_diff(a, b):
    keys = sorted(set(a) | set(b))
    diffs = [k for k in keys if a.get(k) != b.get(k)]
    for k in diffs[:3]:
        print("    expected %s, got %s: %s" % (a.get(k), b.get(k), k[:160]))
    return len(diffs)

cmd = sys.argv[1]
if cmd == "upto":
    upto_last_blank(sys.argv[2], sys.argv[3])
elif cmd == "stale":      # EXPECTED OURS: equal only once the "L" prefix goes
    exp, ours = read_folded(sys.argv[2]), read_folded(sys.argv[3])
    fixed = {}
    for k, c in exp.items():
        k = ";".join(strip_jvm_l(f) for f in k.split(";"))
        fixed[k] = fixed.get(k, 0) + c
    sys.exit(0 if exp != ours and fixed == ours else 1)
elif cmd == "inferno":    # EXPECTED OURS...: equal after the documented differences
    exp = normalized(sys.argv[2], False)
    ours = {}
    for path in sys.argv[3:]:
        for k, c in normalized(path, True).items():
            ours[k] = ours.get(k, 0) + c
    sys.exit(0 if show_diff(exp, ours) == 0 else 1)
EOF

# fold INPUT OUTPUT OPTIONS...
fold() {
	in=$1 out=$2
	shift 2
	"$profconv" convert -q -f perf-script -t folded "$@" -o "$out" "$in" 2>"$tmp/err" ||
		{ fail "profconv failed on ${in#$corpus/} $*: $(cat "$tmp/err")"; return 1; }
}

options_of() {
	case $1 in
	all) echo "--kernel --jit" ;;
	*) echo "--$1" ;;
	esac
}

# 1. FlameGraph
fg=$corpus/flamegraph/test
exact=0 stale=0
for input in "$fg"/*.txt; do
	name=$(basename "$input" .txt)
	python3 "$tmp/corpus.py" upto "$input" "$tmp/$name.in"
	for opt in pid tid kernel jit all addrs; do
		expected=$fg/results/$name-collapsed-$opt.txt
		[ -f "$expected" ] || { fail "missing $expected"; continue; }
		# shellcheck disable=SC2046
		fold "$tmp/$name.in" "$tmp/out" $(options_of $opt) || continue
		case $name-$opt in
		perf-java-faults-01-pid | perf-java-faults-01-tid | perf-java-stacks-01-pid | \
		perf-java-stacks-01-tid | perf-java-stacks-02-pid | perf-java-stacks-02-tid | \
		perf-vertx-stacks-01-pid | perf-vertx-stacks-01-tid)
			if python3 "$tmp/corpus.py" stale "$expected" "$tmp/out"; then
				stale=$((stale + 1))
			else
				fail "flamegraph $name $opt: not the stale file with the JVM 'L' prefix stripped"
			fi ;;
		*)
			if cmp -s "$expected" "$tmp/out"; then
				exact=$((exact + 1))
			else
				fail "flamegraph $name $opt: differs from $(basename "$expected")"
				diff "$expected" "$tmp/out" | head -4 | cut -c1-200
			fi ;;
		esac
	done
done
echo "flamegraph: $exact of 70 expected files match exactly, $stale of 8 stale ones once their 'L' prefix is stripped"

# 2. inferno
inf=$corpus/inferno/tests/data/collapse-perf
inf_exact=0 inf_norm=0
# check_exact EXPECTED INPUT OPTIONS...
check_exact() {
	expected=$1 input=$2
	shift 2
	case $input in *.gz) zcat "$input" >"$tmp/in" ;; *) cp "$input" "$tmp/in" ;; esac
	fold "$tmp/in" "$tmp/out" "$@" || return
	if cmp -s "$expected" "$tmp/out"; then
		inf_exact=$((inf_exact + 1))
	else
		fail "inferno $(basename "$expected"): differs"
		diff "$expected" "$tmp/out" | head -4 | cut -c1-200
	fi
}
# check_normalized EXPECTED OURS...
check_normalized() {
	expected=$1
	shift
	if python3 "$tmp/corpus.py" inferno "$expected" "$@"; then
		inf_norm=$((inf_norm + 1))
	else
		fail "inferno $(basename "$expected"): differs beyond the README's differences"
	fi
}
check_exact "$inf/results/example-perf-stacks-collapsed.txt" "$corpus/flamegraph/example-perf-stacks.txt.gz"
check_exact "$inf/results/go-stacks-collapsed.txt" "$inf/go-stacks.txt"
check_exact "$inf/results/java-inline-collapsed.txt" "$inf/java-inline.txt"
check_exact "$inf/results/sourcepawn-jitdump-collapsed-jit.txt" "$inf/sourcepawn-jitdump.txt" --jit
check_exact "$inf/results/versioned-vmlinux-collapsed-kernel.txt" "$inf/versioned-vmlinux.txt" --kernel
# no-events.txt: 0 bytes, refused (inferno writes an empty folded file)
rm -f "$tmp/none.folded"
"$profconv" convert -q -f perf-script -t folded -o "$tmp/none.folded" "$inf/no-events.txt" 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] && [ "$(cat "$tmp/err")" = "profconv: $inf/no-events.txt: empty input" ] &&
	[ ! -e "$tmp/none.folded" ] || fail "no-events.txt (0 bytes): exit $status: $(cat "$tmp/err")"
for opt in pid tid kernel jit all addrs; do
	# shellcheck disable=SC2046
	fold "$fg/perf-rust-Yamakaky-dcpu.txt" "$tmp/rust-$opt" $(options_of $opt) &&
		check_normalized "$inf/results/perf-rust-Yamakaky-dcpu-collapsed-$opt.txt" "$tmp/rust-$opt"
done
fold "$inf/single-event.txt" "$tmp/single-event" &&
	check_normalized "$inf/results/single-event-collapsed.txt" "$tmp/single-event"
fold "$inf/cpp-stacks-std-function.txt" "$tmp/cpp" &&
	check_normalized "$inf/results/cpp-stacks-std-function-collapsed.txt" "$tmp/cpp"
fold "$inf/single-line-stacks.txt" "$tmp/sl1" --event cycles:u &&
	fold "$inf/single-line-stacks.txt" "$tmp/sl2" --event cycles &&
	check_normalized "$inf/results/single-line-stacks-collapsed.txt" "$tmp/sl1" "$tmp/sl2"
echo "inferno: $inf_exact of 5 expected files match exactly, $inf_norm of 9 after the README's differences; no-events.txt (0 bytes) refused"

# 3. every input reads
parsed=0 detected=0
for input in $(find "$corpus" -type f ! -name 'LICENSE*' ! -name README.md ! -name '*.afdotext' \
	! -name cddl1.txt ! -path '*/results/*' | sort); do
	rel=${input#$corpus/}
	case $input in *.gz) zcat "$input" >"$tmp/in.txt" ;; *) cp "$input" "$tmp/in.txt" ;; esac
	case $rel in
	inferno/tests/data/collapse-perf/no-events.txt) continue ;; # 0 bytes: refused, above
	*/collapse-guess/unknown-format.txt | */collapse-perf/weird-stack-line.txt)
		rm -f "$tmp/out.dump"
		if "$profconv" convert -f perf-script -t dump -o "$tmp/out.dump" "$tmp/in.txt" 2>"$tmp/err"; then
			fail "$rel: read although it is malformed"
		elif ! grep -q "^profconv: $tmp/in.txt:[0-9]*:[0-9]*: perf-script: expected" "$tmp/err" ||
			[ -e "$tmp/out.dump" ]; then
			fail "$rel: no located error, or an output file: $(cat "$tmp/err")"
		fi
		continue ;;
	esac
	if ! "$profconv" convert -f perf-script -t dump -o "$tmp/out.dump" "$tmp/in.txt" 2>"$tmp/err"; then
		fail "$rel: $(cat "$tmp/err")"
		continue
	fi
	parsed=$((parsed + 1))
	if "$profconv" convert -q -t dump -o "$tmp/detected.dump" "$tmp/in.txt" 2>"$tmp/err" &&
		cmp -s "$tmp/out.dump" "$tmp/detected.dump"; then
		detected=$((detected + 1))
	else
		fail "$rel: not detected as perf-script: $(cat "$tmp/err")"
	fi
done
"$profconv" convert -q --skip-bad -f perf-script -t dump -o "$tmp/out.dump" \
	"$inf/weird-stack-line.txt" 2>"$tmp/err" ||
	fail "weird-stack-line.txt with --skip-bad: $(cat "$tmp/err")"
"$profconv" convert --skip-bad -f perf-script -t dump -o "$tmp/out.dump" \
	"$inf/weird-stack-line.txt" 2>"$tmp/err"
grep -q "warning: perf-script: skipped an unparseable line (first: line 5:12" "$tmp/err" ||
	fail "weird-stack-line.txt with --skip-bad: no warning: $(cat "$tmp/err")"
echo "corpus: $parsed inputs read without error ($detected detected without -f); 2 malformed ones fail where they should"

[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
exit 0
