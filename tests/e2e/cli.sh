#!/bin/sh
# The command line: help, version, formats, usage errors (exit 2), bad input
# (exit 1, located message, no output file, an existing output untouched),
# detection, output format from the name, stdin and stdout.
set -u
fail=0
check() { # description expected-status command...
	what=$1 want=$2
	shift 2
	"$@" > "$TMPDIR/stdout" 2> "$TMPDIR/stderr"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: $what: exit $got, expected $want"; cat "$TMPDIR/stderr"; fail=1
	fi
}
expect_stderr() { # description regex
	grep -Eq -e "$2" "$TMPDIR/stderr" || { echo "FAIL: $1: stderr lacks /$2/:"; cat "$TMPDIR/stderr"; fail=1; }
}
expect_stdout() {
	grep -Eq -e "$2" "$TMPDIR/stdout" || { echo "FAIL: $1: stdout lacks /$2/:"; head -5 "$TMPDIR/stdout"; fail=1; }
}
demo=$SAMPLES/demo.spt

check "--help" 0 "$PROFCONV" --help
expect_stdout "--help" '^usage: profconv convert'
check "--version" 0 "$PROFCONV" --version
expect_stdout "--version" '^profconv [0-9]+\.[0-9]+\.[0-9]+$'
check "formats" 0 "$PROFCONV" formats
expect_stdout "formats lists spt" '^spt +read +\.spt +Microsoft SPGO'
expect_stdout "formats lists pprof" '^pprof +write +\.pb\.gz, \.pprof +gzipped pprof'
expect_stdout "formats lists folded's options" '^ +options: --pid, --tid, --kernel, --jit, --addrs$'
expect_stdout "formats has a header" '^FORMAT +EXTENSIONS +WHAT$'

check "no command" 2 "$PROFCONV"
check "unknown command" 2 "$PROFCONV" frobnicate
expect_stderr "unknown command" "unknown command 'frobnicate'"
check "unknown option" 2 "$PROFCONV" convert --bogus -o x.pb.gz "$demo"
expect_stderr "unknown option" "unknown option '--bogus'"
check "no output" 2 "$PROFCONV" convert "$demo"
check "no input" 2 "$PROFCONV" convert -o "$TMPDIR/x.pb.gz"
check "unknown -t" 2 "$PROFCONV" convert -t nope -o "$TMPDIR/x" "$demo"
check "unknown -f" 2 "$PROFCONV" convert -f nope -o "$TMPDIR/x.pb.gz" "$demo"
check "output format not inferable" 2 "$PROFCONV" convert -o "$TMPDIR/x.bin" "$demo"
expect_stderr "output format not inferable" "name it with -t"
check "info with two inputs" 2 "$PROFCONV" info "$demo" "$demo"
for n in 0 65 -1 two ''; do
	check "--threads '$n'" 2 "$PROFCONV" convert --threads "$n" -o "$TMPDIR/x.pb.gz" "$demo"
	expect_stderr "--threads '$n'" "--threads takes a number from 1 to 64, not '$n'"
done
check "--threads 1" 0 "$PROFCONV" convert --threads 1 -o "$TMPDIR/t1.pb.gz" "$demo"

# bad input: exit 1, a located message, no output, an old output untouched
printf 'not a profile at all\n' > "$TMPDIR/junk.txt"
check "undetectable input" 1 "$PROFCONV" convert -o "$TMPDIR/out.pb.gz" "$TMPDIR/junk.txt"
expect_stderr "undetectable input" "^profconv: .*junk.txt: unknown input format; name it with --from"
[ ! -e "$TMPDIR/out.pb.gz" ] || { echo "FAIL: output written for bad input"; fail=1; }
echo old > "$TMPDIR/keep.pb.gz"
check "forced wrong format" 1 "$PROFCONV" convert -f spt -o "$TMPDIR/keep.pb.gz" "$TMPDIR/junk.txt"
expect_stderr "forced wrong format" "junk.txt: offset 0x0: spt: "
[ "$(cat "$TMPDIR/keep.pb.gz")" = old ] || { echo "FAIL: old output clobbered"; fail=1; }
ls -A "$TMPDIR" | grep -q '^\.keep' && { echo "FAIL: temp file left behind"; fail=1; }
check "missing input" 1 "$PROFCONV" convert -o "$TMPDIR/out.pb.gz" "$TMPDIR/absent.spt"
expect_stderr "missing input" "absent.spt: cannot open: No such file or directory"

# good input: detection, -t from the name, stdin and stdout give the same bytes
check "convert by name" 0 "$PROFCONV" convert -o "$TMPDIR/a.pb.gz" "$demo"
check "convert stdin to stdout" 0 sh -c "\"$PROFCONV\" convert -t pprof -o - - < \"$demo\" > \"$TMPDIR/b.pb.gz\""
cmp -s "$TMPDIR/a.pb.gz" "$TMPDIR/b.pb.gz" || { echo "FAIL: stdin/stdout output differs"; fail=1; }
check "deterministic" 0 "$PROFCONV" convert -o "$TMPDIR/c.pprof" "$demo"
cmp -s "$TMPDIR/a.pb.gz" "$TMPDIR/c.pprof" || { echo "FAIL: second conversion differs"; fail=1; }
check "verbose summary" 0 "$PROFCONV" convert -v -o "$TMPDIR/d.dump" "$demo"
expect_stderr "verbose summary" '^profconv: [0-9]+ samples, [0-9]+ distinct stacks, [0-9]+ frames, [0-9]+ modules, .* wrote .*d\.dump in'
check "quiet" 0 "$PROFCONV" convert -q -o "$TMPDIR/e.dump" "$demo"
[ ! -s "$TMPDIR/stderr" ] || { echo "FAIL: -q printed something"; fail=1; }
check "two inputs merge" 0 "$PROFCONV" convert -o "$TMPDIR/twice.dump" "$demo" "$demo"
# merging a file with itself doubles every count: compare the dumps' values
awk '/^sample/' "$TMPDIR/e.dump" | sed 's/=\([0-9]*\)/=\1*2/g' > "$TMPDIR/doubled-expr"
awk '/^sample/' "$TMPDIR/twice.dump" > "$TMPDIR/twice-samples"
python3 - "$TMPDIR/doubled-expr" "$TMPDIR/twice-samples" <<'PY' || fail=1
import re, sys
want = [re.sub(r'=(\d+)\*2', lambda m: '=%d' % (2 * int(m.group(1))), l) for l in open(sys.argv[1])]
got = list(open(sys.argv[2]))
if want != got:
    print("FAIL: merging a file with itself did not double every count")
    sys.exit(1)
PY
# A device or a pipe as the output is written in place, never replaced by
# a renamed temp file (a FIFO in TMPDIR stands for /dev/null and pipes).
mkfifo "$TMPDIR/fifo"
cat "$TMPDIR/fifo" > "$TMPDIR/from-fifo" &
"$PROFCONV" convert -q -t dump -o "$TMPDIR/fifo" "$demo" ||
	{ echo "FAIL: convert to a FIFO failed"; fail=1; }
wait
[ -p "$TMPDIR/fifo" ] || { echo "FAIL: the FIFO was replaced by a file"; fail=1; }
"$PROFCONV" convert -q -t dump -o - "$demo" > "$TMPDIR/direct"
cmp -s "$TMPDIR/direct" "$TMPDIR/from-fifo" ||
	{ echo "FAIL: the FIFO did not get the whole dump"; fail=1; }

exit $fail
