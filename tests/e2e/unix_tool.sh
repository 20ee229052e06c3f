#!/bin/sh
# profconv as a Unix tool under misuse (issue 20): what happens to the
# files it writes and to the tests that cannot run.
#   - a replaced output keeps its mode (0600, 0444 stay), a symlink output
#     stays a link and its target is replaced (also a relative link in
#     another directory, and a dangling one, whose target is created);
#   - an output that is an input (also through a symlink; convert,
#     report, diff) is refused, exit 2, the input untouched;
#   - help with an unknown topic and an unknown command exit 2 naming the
#     valid ones; every command whose standard output cannot be written
#     (/dev/full, closed) exits 1 with one message;
#   - SIGTERM and SIGHUP while the output is written remove its temporary
#     file, and the exit status is 128 + the signal's number;
#   - gzip output (pprof) to a terminal is refused as gzip refuses it,
#     naming -o, exit 1, nothing written (a pty from script(1));
#   - a NUL byte in a perf symbol name becomes U+FFFD in folded output,
#     which then reads back;
#   - a line past its format's limit (folded 64 MiB, perf script and VS
#     reports 16 MiB, a Sampler name 1 MiB) is an error from a file and
#     from a pipe alike;
#   - counts whose total passes 2^63-1 (each stack's fits) are an error
#     for every writer, nothing written;
#   - tests/run.sh with SET_UP=1 (make check after set-up) fails a test
#     that skips, and without it counts the skip.
# Environment (tests/run.sh): PROFCONV, SAMPLES, TMPDIR. Exit 0 pass, else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
profconv=${PROFCONV:-}
input=${SAMPLES:-$top/samples}/perf/fp.perf.txt
failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
[ -x "$profconv" ] || { echo "unix_tool: profconv is not built (${PROFCONV:-PROFCONV unset})"; exit 1; }
cd "$TMPDIR" || exit 1

# --- a replaced output keeps its mode; symlinks are written through ---
for mode in 600 444 640; do
	rm -f out.folded
	"$profconv" convert -q -o out.folded "$input" && chmod "$mode" out.folded &&
		"$profconv" convert -q -o out.folded "$input" || fail "mode $mode: convert failed"
	got=$(stat -c %a out.folded)
	[ "$got" = "$mode" ] || fail "a replaced 0$mode output became 0$got"
done
mkdir -p links && echo old >target.folded && ln -sf ../target.folded links/rel.folded
"$profconv" convert -q -o links/rel.folded "$input" || fail "convert through a relative symlink failed"
[ -L links/rel.folded ] || fail "the symlink output was replaced by a file"
grep -q 'spin_leaf' target.folded || fail "the symlink's target was not written"
ln -sf "$TMPDIR/made.folded" dangling.folded
"$profconv" convert -q -o dangling.folded "$input" || fail "convert through a dangling symlink failed"
[ -L dangling.folded ] && [ -s made.folded ] || fail "a dangling symlink's target was not created"
leftover=$( (ls -A; ls -A links) | grep '^\.')
[ -z "$leftover" ] || fail "temporary files left: $leftover"

# --- gzip to a terminal ---
if command -v script >/dev/null 2>&1; then
	script -qec "'$profconv' convert -t pprof -o - '$input'" /dev/null >tty.out 2>&1
	status=$?
	[ "$status" = 1 ] || fail "pprof to a terminal: exit $status, want 1"
	grep -q 'not written to a terminal' tty.out || fail "pprof to a terminal: $(head -c 200 tty.out)"
	grep -q -- '-o' tty.out || fail "pprof to a terminal: the message does not name -o"
	[ "$(wc -c <tty.out)" -lt 400 ] || fail "pprof to a terminal: compressed bytes were written"
else
	fail "script(1) (util-linux) is missing: cannot make a terminal"
fi

# --- an output that is an input is refused before anything is read ---
cp "$input" in.perf.txt && ln -sf in.perf.txt in-link.txt
sum=$(cksum <in.perf.txt)
for args in "convert -t folded -o in.perf.txt in.perf.txt" "convert -t folded -o in-link.txt in.perf.txt" \
	"report -o in.perf.txt in.perf.txt" "diff -t folded -o in.perf.txt $input in.perf.txt"; do
	# shellcheck disable=SC2086 # the words are the arguments
	"$profconv" $args >/dev/null 2>same.err
	status=$?
	[ "$status" = 2 ] || fail "$args: exit $status, want 2"
	grep -q "is the input" same.err || fail "$args: $(head -1 same.err)"
	[ "$(cksum <in.perf.txt)" = "$sum" ] || { fail "$args: the input changed"; cp "$input" in.perf.txt; }
done

# --- usage and standard output ---
"$profconv" help nosuch 2>help.err
[ $? = 2 ] || fail "help nosuch does not exit 2"
grep -q 'convert, report, info, diff, formats' help.err || fail "help nosuch: $(head -1 help.err)"
"$profconv" nosuch 2>cmd.err
[ $? = 2 ] || fail "an unknown command does not exit 2"
grep -q 'commands: convert' cmd.err || fail "unknown command: $(head -1 cmd.err)"
"$profconv" help diff | grep -q 'no-normalize' || fail "help diff does not print diff's options"
for args in "formats" "info $input" "--help" "help convert" "--version" "report $input"; do
	# shellcheck disable=SC2086
	"$profconv" $args >/dev/full 2>full.err
	status=$?
	[ "$status" = 1 ] || fail "$args >/dev/full: exit $status, want 1"
	[ "$(grep -c . full.err)" = 1 ] || fail "$args >/dev/full: not one message: $(cat full.err)"
	# shellcheck disable=SC2086
	"$profconv" $args >&- 2>closed.err
	status=$?
	[ "$status" = 1 ] || fail "$args with stdout closed: exit $status, want 1"
done
"$profconv" convert -q -t folded -o quiet.folded "$input" >&- || fail "a convert writing nothing to a closed stdout failed"

# --- a signal during the write removes the temporary file, exit 128+N ---
# (TERM and HUP: a background job of a script ignores INT, and profconv
# keeps a signal ignored as nohup leaves it.)
big=$TMPDIR/big.perf.txt
"${PERFGEN:-$(dirname "$profconv")/tools/perfgen}" --random 1 --bytes 100000000 "$big" ||
	fail "perfgen failed"
for pair in TERM:15 HUP:1; do
	signal=${pair%:*} number=${pair#*:}
	mkdir -p "sig$signal" && rm -f "sig$signal"/* "sig$signal"/.[!.]* 2>/dev/null
	"$profconv" convert -q -o "sig$signal/out.cpuprofile" "$big" &
	pid=$!
	tries=0
	until ls -A "sig$signal" | grep -q '^\.out\.cpuprofile\.'; do
		tries=$((tries + 1))
		[ $tries -lt 200000 ] && kill -0 $pid 2>/dev/null || break
	done
	kill -"$signal" $pid 2>/dev/null
	wait $pid
	status=$?
	if [ -e "sig$signal/out.cpuprofile" ]; then
		echo "note: the write ended before SIG$signal came; not checked"
		continue
	fi
	[ "$status" = $((128 + number)) ] || fail "SIG$signal: exit $status, want $((128 + number))"
	left=$(ls -A "sig$signal")
	[ -z "$left" ] || fail "SIG$signal left files: $left"
done
rm -f "$big"

# --- names no folded line can hold (NUL, CR, LF) still read back ---
printf 'prog 1 [000] 1.000000: 1 cpu-clock:\n\t1000 fo\000o+0x1 (/bin/x)\n\t2000 main+0x2 (/bin/x)\n\n' >nul.perf.txt
"$profconv" convert -q -f perf-script -t folded -o nul.folded nul.perf.txt || fail "NUL name: convert failed"
"$profconv" convert -q -t folded -o nul.again.folded nul.folded || fail "NUL name: the folded output does not read back"
[ "$(cat nul.again.folded)" = "$(printf 'prog;main;fo\357\277\275o 1')" ] ||
	fail "NUL name: read back as '$(cat nul.again.folded)', want U+FFFD for the NUL"

# --- one line (name) length limit per text format, from a file or a pipe ---
python3 - <<'PY'
mib = 1 << 20
with open("long.folded", "w") as f:
    f.write("a" * (64 * mib) + " 1\n")
with open("long.perf.txt", "w") as f:
    f.write("p 1 [000] 1.0: 1 cpu-clock:\n\t1000 " + "f" * (16 * mib) + "+0x1 (/x)\n\n")
with open("long.csv", "w") as f:
    f.write("Function Name,Inclusive Samples,Exclusive Samples\n" + "f" * (16 * mib) + ",1,1\n")
with open("long.trace", "wb") as f: # a symbol entry: TAB id TAB unknown TAB name TAB path TAB path LF
    f.write(b"@supersamplerV1.0\n@symboltableV1.1\n\t\0\0!\"\t\0\0\0\0\t" + b"n" * (mib + 1) +
            b"\t/a\t/a\n@end\n")
PY
for pair in folded:long.folded:64 perf-script:long.perf.txt:16 vsperf:long.csv:16 sampler:long.trace:1; do
	format=${pair%%:*} rest=${pair#*:}
	file=${rest%:*}
	"$profconv" convert -q -f "$format" -t dump -o long.dump "$file" 2>long.file.err
	a=$?
	"$profconv" convert -q -f "$format" -t dump -o long.dump - <"$file" 2>long.pipe.err
	b=$?
	[ "$a" = 1 ] && [ "$b" = 1 ] || fail "$format: a line past its limit: exit $a from a file, $b from a pipe"
	grep -q 'longer than' long.file.err && grep -q 'longer than' long.pipe.err ||
		fail "$format: $(head -1 long.file.err) / $(head -1 long.pipe.err)"
done
rm -f long.*

# --- totals past 2^63-1 across stacks are an error in every writer ---
printf 'a;b 9223372036854775807\na;c 1\n' >huge.in.folded
for writer in folded report svg speedscope cpuprofile pprof dump sampler; do
	"$profconv" convert -t "$writer" -o "huge.$writer" huge.in.folded 2>huge.err
	status=$?
	[ "$status" = 1 ] || fail "total past 2^63-1 -> $writer: exit $status, want 1"
	grep -q 'more than 2^63-1' huge.err || fail "total past 2^63-1 -> $writer: $(head -1 huge.err)"
	[ ! -e "huge.$writer" ] || fail "total past 2^63-1 -> $writer: an output was written"
done

# --- a NUL in a perf event name is refused (its two columns would be one) ---
printf 'app 1/1 [000] 1.000000: 1001001 cpu-cl\001\000xock:\n\t1000 f+0x1 (/bin/x)\n\n' >nulev.perf.txt
"$profconv" convert -f perf-script -t dump -o nulev.dump nulev.perf.txt 2>nulev.err
[ $? = 1 ] && grep -q 'nulev.perf.txt:1:1: perf-script: a NUL byte in the event name' nulev.err ||
	fail "a NUL in an event name: $(head -1 nulev.err)"

# --- tests/run.sh: a skip after set-up is a failure ---
mkdir -p runsh/build && printf '#!/bin/sh\necho "SKIPPED: a tool is missing"\nexit 77\n' >runsh/skips.sh
(cd "$top" && BUILD="$TMPDIR/runsh/build" SET_UP=1 E2E="$TMPDIR/runsh/skips.sh" sh tests/run.sh all) >runsh/setup.log 2>&1 &&
	fail "run.sh with SET_UP=1 passed a skipped test"
grep -q '0 passed, 1 failed, 0 skipped' runsh/setup.log || fail "run.sh with SET_UP=1: $(tail -1 runsh/setup.log)"
(cd "$top" && BUILD="$TMPDIR/runsh/build" SET_UP=0 E2E="$TMPDIR/runsh/skips.sh" sh tests/run.sh all) >runsh/plain.log 2>&1 ||
	fail "run.sh without set-up failed a skipped test"
grep -q '0 passed, 0 failed, 1 skipped' runsh/plain.log || fail "run.sh without set-up: $(tail -1 runsh/plain.log)"

[ "$failures" = 0 ] || { echo "unix_tool: $failures failures"; exit 1; }
echo "unix_tool: modes, symlinks, terminal refusal and skips after set-up checked"
