#!/bin/sh
# tests/e2e/perf_malformed.sh - malformed perf script text gives a located
# error and never an output file.
#
# Each case is a small valid capture (made here) broken one way: binary
# garbage (fixed pseudo-random bytes), a truncated line (the file cut inside
# a frame's dso, and inside a header's time), a header without an event (its
# name lacks the colon), a callchain line with a bad address (not hex, and
# more than 16 digits). For each, with -f perf-script and to both pprof and
# folded:
#   - `profconv convert` exits 1;
#   - stderr is one line "profconv: FILE:LINE:COL: perf-script: expected
#     ..." with the line and column this script expects;
#   - the output directory stays empty (no output, no temporary file).
# The same inputs through a pipe (stdin) fail the same way, and --skip-bad
# turns the line errors into a counted warning (exit 0) except for the
# binary garbage, whose every line is bad: there the output has no samples.
#
# Environment (tests/run.sh): PROFCONV, TMPDIR. Exit 0 pass, 77 skip.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
profconv=${PROFCONV:-$top/build/profconv}
tmp=${TMPDIR:-/tmp}
out_dir=$tmp/out
failures=0 checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) is missing"
"$profconv" formats | grep -q '^perf-script  *read' || skip "this profconv has no perf-script reader"
mkdir -p "$out_dir"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

good='my worker 0  6132 [001]   214.082263:    1001001 cpu-clock: 
	ffffffff816b30f4 rw_verify_area+0x54 ([kernel.kallsyms])
	           f838f __GI___libc_write+0x4f (/usr/lib/x86_64-linux-gnu/libc.so.6)
	               0 [unknown] ([unknown])

my worker 1  6133 [000]   214.083263:    1001001 cpu-clock: 
	            1348 leaf_a+0x57 (/home/user/demo/work)
	            1389 main+0x20 (/home/user/demo/work)
'

# The broken files, and where each must fail (NAME LINE COL), computed from
# their bytes by a small script.
printf '%s' "$good" >"$tmp/good.perf"
cat >"$tmp/make.py" <<'EOF'
import random, sys
tmp = sys.argv[1]
good = open(tmp + "/good.perf", "rb").read()

def save(name, data, line, col):
    open("%s/%s.perf" % (tmp, name), "wb").write(data)
    print(name, line, col)

def at(data, offset):
    """1-based line and column of a byte offset"""
    return data.count(b"\n", 0, offset) + 1, offset - (data.rfind(b"\n", 0, offset) + 1) + 1

# binary garbage: the error is at the first line's first NUL (or its start)
r = random.Random(20260101)
garbage = bytes(r.randrange(256) for _ in range(8192))
first_line = garbage.split(b"\n", 1)[0]
save("garbage", garbage, 1, first_line.index(b"\0") + 1 if b"\0" in first_line else 1)
# the file cut inside a frame's dso: the error is at the end of that line
cut = good.index(b"x86_64-l") + 8
save("cut-dso", good[:cut], *at(good, cut))
# the file cut inside a header's time: the header is not one
data = good + b"\nwork 1 3.00"
save("cut-time", data, *at(data, len(good) + 1))
# a header whose event name lacks its colon
data = good + b"\nwork 7 [000] 215.000001:    1001001 cpu-clock\n\tffff main (/x)\n\n"
save("no-event", data, *at(data, data.index(b"cpu-clock\n")))
# callchain lines with a bad address: not hex, more than 16 digits
data = good.replace(b"ffffffff816b30f4", b"ffffffffz16b30f4")
save("bad-address", data, *at(data, data.index(b"ffffffffz")))
data = good.replace(b"           f838f", b"f838f0000000000000")
save("long-address", data, *at(data, data.index(b"f838f0000")))
EOF
python3 "$tmp/make.py" "$tmp" >"$tmp/where" || fail "could not make the broken files"
[ "$(wc -l <"$tmp/where")" -eq 6 ] || fail "the broken files were not all made"

# expect NAME LINE COL: the conversions of NAME fail at LINE:COL
expect() {
	name=$1 line=$2 col=$3 file=$tmp/$1.perf
	for to in pprof folded; do
		checked=$((checked + 1))
		timeout 20 "$profconv" convert -f perf-script -t $to -o "$out_dir/x.$to" "$file" \
			2>"$tmp/err"
		status=$?
		if [ "$status" -ne 1 ]; then
			fail "$name -> $to: exit $status, expected 1"
		elif [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
			! grep -q "^profconv: $file:$line:$col: perf-script: " "$tmp/err"; then
			fail "$name -> $to: expected one line 'profconv: $file:$line:$col: perf-script: ...', got: $(cat "$tmp/err")"
		fi
		if [ -n "$(ls -A "$out_dir")" ]; then
			fail "$name -> $to: left $(ls -A "$out_dir") behind"
			rm -f "$out_dir"/* "$out_dir"/.[!.]*
		fi
	done
	checked=$((checked + 1))
	timeout 20 "$profconv" convert -f perf-script -t folded -o - - <"$file" >/dev/null 2>"$tmp/err"
	status=$?
	[ "$status" -eq 1 ] && grep -q "^profconv: <stdin>:$line:$col: perf-script: " "$tmp/err" ||
		fail "$name from a pipe: exit $status: $(cat "$tmp/err")"
}

while read -r name line col; do
	expect "$name" "$line" "$col"
done <"$tmp/where"

# the garbage error names binary data or a header; the others say what was expected
"$profconv" convert -f perf-script -t pprof -o "$out_dir/x.pb.gz" "$tmp/no-event.perf" 2>"$tmp/err"
grep -q "expected an event name ending in ':', found 'cpu-clock'" "$tmp/err" ||
	fail "no-event: message: $(cat "$tmp/err")"
"$profconv" convert -f perf-script -t pprof -o "$out_dir/x.pb.gz" "$tmp/bad-address.perf" 2>"$tmp/err"
grep -q "found 'ffffffffz16b30f4'" "$tmp/err" || fail "bad-address: message: $(cat "$tmp/err")"
"$profconv" convert -f perf-script -t pprof -o "$out_dir/x.pb.gz" "$tmp/cut-dso.perf" 2>"$tmp/err"
grep -q "the input ends inside this frame line" "$tmp/err" || fail "cut-dso: message: $(cat "$tmp/err")"

# --skip-bad: a counted warning instead, and the good samples (the cut-dso
# file's only sample is the cut one)
for name in cut-dso no-event bad-address long-address; do
	checked=$((checked + 1))
	if ! "$profconv" convert --skip-bad -f perf-script -t folded -o "$out_dir/x.folded" \
		"$tmp/$name.perf" 2>"$tmp/err"; then
		fail "$name --skip-bad: failed: $(cat "$tmp/err")"
	elif ! grep -q "warning: perf-script: skipped an unparseable line" "$tmp/err"; then
		fail "$name --skip-bad: no warning: $(cat "$tmp/err")"
	elif [ $name != cut-dso ] && ! grep -q '^my_worker_' "$out_dir/x.folded"; then
		fail "$name --skip-bad: the good samples are missing"
	fi
	rm -f "$out_dir/x.folded"
done
checked=$((checked + 1))
"$profconv" convert -q --skip-bad -f perf-script -t folded -o "$out_dir/x.folded" "$tmp/garbage.perf" ||
	fail "garbage --skip-bad: failed"
[ ! -s "$out_dir/x.folded" ] || fail "garbage --skip-bad: samples out of garbage"
rm -f "$out_dir/x.folded"

# and the good file converts
"$profconv" convert -q -f perf-script -o "$out_dir/good.pb.gz" "$tmp/good.perf" ||
	fail "the unbroken file does not convert"

echo "perf malformed: $checked checks, $failures failures"
[ "$failures" -eq 0 ]
