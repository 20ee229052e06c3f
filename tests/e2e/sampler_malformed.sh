#!/bin/sh
# tests/e2e/sampler_malformed.sh - malformed Sampler traces give a located
# error, exit 1 and no output file.
#
# For every truncation of samples/sampler/small.trace and noend.trace (each
# byte count from 0 to the size - 1), read as a file and through a pipe
# (size unknown), and for each malformation class below (made with
# samplergen's directives and raw bytes):
#   - `profconv convert -f sampler -t pprof -o OUT FILE` exits 1;
#   - stderr is "profconv: FILE: offset 0x...: sampler: ..." (the located
#     error, for the pipe "<stdin>");
#   - the output directory stays empty (no output, no temporary file).
# One cut of small.trace is a valid file: right after the "@end" that
# closes the symbol table (an empty profile); there convert must succeed.
# Cut 0 (0 bytes) is refused as "profconv: NAME: empty input" before the
# reader runs (pipeline/convert.c), with exit 1 and no output.
# Each malformation's message is checked too (the substring after it).
# Every run has a timeout, so a hang fails the test.
#
# Environment (tests/run.sh): PROFCONV, BUILD, SAMPLES, TMPDIR.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
samplergen="$build/tools/samplergen"
samples=${SAMPLES:-$top/samples}
tmp=${TMPDIR:-/tmp}
out_dir="$tmp/out"
failures=0
checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
[ -x "$samplergen" ] || skip "samplergen is not built ($samplergen)"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) is missing"
mkdir -p "$out_dir"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# bad FILE LABEL [MESSAGE] [pipe]: must fail with a located error.
bad() {
	bad_file=$1 bad_label=$2 bad_message=${3:-} bad_how=${4:-file}
	if [ "$bad_how" = pipe ]; then
		# through cat: a real pipe, whose size is unknown
		bad_status=$(cat "$bad_file" | { timeout 20 "$profconv" convert -f sampler -t pprof \
			-o "$out_dir/out.pb.gz" - 2>"$tmp/err"; echo $?; })
		bad_name='<stdin>'
	else
		timeout 20 "$profconv" convert -f sampler -t pprof -o "$out_dir/out.pb.gz" \
			"$bad_file" 2>"$tmp/err"
		bad_status=$?
		bad_name=$bad_file
	fi
	checked=$((checked + 1))
	[ "$bad_status" -eq 1 ] || { fail "$bad_label: exit $bad_status, expected 1"; return; }
	grep -q "^profconv: $bad_name: offset 0x[0-9a-f]*: sampler: $bad_message" "$tmp/err" ||
		{ fail "$bad_label: no located error: $(head -1 "$tmp/err")"; return; }
	[ -z "$(ls -A "$out_dir")" ] ||
		{ fail "$bad_label: left $(ls "$out_dir")"; rm -f "$out_dir"/*; }
}

# empty_input FILE LABEL: 0 bytes, by name and through a pipe, are refused
# before any reader runs: "profconv: NAME: empty input", exit 1, no output.
empty_input() {
	for how in file pipe; do
		if [ "$how" = pipe ]; then
			status=$(cat "$1" | { timeout 20 "$profconv" convert -f sampler -t pprof \
				-o "$out_dir/out.pb.gz" - 2>"$tmp/err"; echo $?; })
			name='<stdin>'
		else
			timeout 20 "$profconv" convert -f sampler -t pprof -o "$out_dir/out.pb.gz" \
				"$1" 2>"$tmp/err"
			status=$?
			name=$1
		fi
		checked=$((checked + 1))
		[ "$status" -eq 1 ] || fail "$2 ($how): exit $status, expected 1"
		[ "$(cat "$tmp/err")" = "profconv: $name: empty input" ] ||
			fail "$2 ($how): not the empty-input error: $(head -1 "$tmp/err")"
		[ -z "$(ls -A "$out_dir")" ] || { fail "$2 ($how): left $(ls "$out_dir")"; rm -f "$out_dir"/*; }
	done
}

gen() { # NAME LINE...: a trace made from spec lines
	name=$1
	shift
	printf '%s\n' "$@" >"$tmp/$name.samplerspec"
	"$samplergen" "$tmp/$name.samplerspec" "$tmp/$name.trace" ||
		{ fail "samplergen failed on $name"; return 1; }
}

# --- truncation at every byte ---
valid_cut=$(python3 -c "import sys; d=open(sys.argv[1],'rb').read(); print(d.index(b'@end\n')+5)" \
	"$samples/sampler/small.trace" 2>/dev/null || echo 556)
for sample in small noend; do
	file="$samples/sampler/$sample.trace"
	size=$(wc -c <"$file")
	cut=0
	while [ "$cut" -lt "$size" ]; do
		head -c "$cut" "$file" >"$tmp/cut.trace"
		if [ "$cut" -eq 0 ]; then
			empty_input "$tmp/cut.trace" "cut 0 of $sample"
		elif [ "$sample" = small ] && [ "$cut" -eq "$valid_cut" ]; then
			timeout 20 "$profconv" convert -q -f sampler -t pprof \
				-o "$out_dir/out.pb.gz" "$tmp/cut.trace" ||
				fail "cut $cut of $sample: the empty profile must read"
			rm -f "$out_dir"/*
		else
			bad "$tmp/cut.trace" "cut $cut of $sample"
			bad "$tmp/cut.trace" "cut $cut of $sample (pipe)" "" pipe
		fi
		cut=$((cut + 1))
	done
done

# --- malformation classes ---
SYMBOLS='symbol 0x2122 0 Thread_2122|Thread_2122
symbol 0x2123 0 main|/bin/app
symbol 0x2124 0 work|/bin/app'

gen undefined_frame "$SYMBOLS" endtable 'thread 0x2122' \
	'raw 09 00000001 00000000 00000001 00000002 00002124 00002125 0a' end &&
	bad "$tmp/undefined_frame.trace" "frame id out of range" \
		"frame 2 of 2: symbol id 0x00002125 is not in the symbol table"
gen undefined_thread "$SYMBOLS" endtable 'raw 40 74 68 72 65 61 64 56 31 2e 30 09 33 30 30 30 0a' \
	'stack 0x2123' end &&
	bad "$tmp/undefined_thread.trace" "thread id out of range" \
		"thread id 3000 is not in the symbol table"
gen twice "$SYMBOLS" 'symbol 0x2123 0 other|/bin/app' endtable end &&
	bad "$tmp/twice.trace" "id defined twice" "symbol id 0x00002123 is defined twice"
# a frame count far past the end of the file
gen overrun_file "$SYMBOLS" endtable 'thread 0x2122' \
	'raw 09 00000001 00000000 00000001 00100000 00002123' 'raw 0a' end &&
	bad "$tmp/overrun_file.trace" "count overruns the file" \
		"frame count 1048576 overruns the file" &&
	bad "$tmp/overrun_file.trace" "count overruns the file (pipe)" \
		"file ends inside a stack line" pipe
# a count of 2 on a line that holds one frame: the LF is read as an id
gen overrun_line "$SYMBOLS" endtable 'thread 0x2122' \
	'raw 09 00000001 00000000 00000001 00000002 00002123 0a' 'stack 0x2123' end &&
	bad "$tmp/overrun_line.trace" "count overruns the line" \
		"frame 2 of 2: symbol id 0x0a090000 is not in the symbol table"
# a count of 1 on a line that holds two frames
gen short_count "$SYMBOLS" endtable 'thread 0x2122' \
	'raw 09 00000001 00000000 00000001 00000001 00002123 00002124 0a' end &&
	bad "$tmp/short_count.trace" "count short of the line" "expected LF after the 1 frames"
gen huge_count "$SYMBOLS" endtable 'thread 0x2122' \
	'raw 09 00000001 00000000 00000001 ffffffff 00002123 0a' end &&
	bad "$tmp/huge_count.trace" "count of 2^32 - 1" "frame count 4294967295 is more than"
gen no_final_end "$SYMBOLS" endtable 'thread 0x2122' 'stack 0x2123' &&
	bad "$tmp/no_final_end.trace" "missing final @end" "missing final \"@end\""
gen trailing "$SYMBOLS" endtable 'thread 0x2122' 'stack 0x2123' end 'raw 00' &&
	bad "$tmp/trailing.trace" "bytes after the final @end" "unexpected bytes after"
gen bad_hex "$SYMBOLS" endtable 'raw 40 74 68 72 65 61 64 56 31 2e 30 09 32 31 32 67 0a' end &&
	bad "$tmp/bad_hex.trace" "thread id not hex" "expected a thread id of 4 hex digits"
gen bad_symbol "$SYMBOLS" 'raw 09 00002125 20 00000000 09' endtable end &&
	bad "$tmp/bad_symbol.trace" "no TAB after a symbol id" "expected TAB in a symbol entry"
gen lf_in_name "$SYMBOLS" 'raw 09 00002125 09 00000000 09 61 0a' endtable end &&
	bad "$tmp/lf_in_name.trace" "LF inside a symbol entry" "expected TAB after a symbol name"
printf '@supersamplerV1.0\n@symboltableV1.1\n@end\n@threadV2.0\t2122\n@end\n' \
	>"$tmp/junk_tag.trace"
bad "$tmp/junk_tag.trace" "unknown tag" "expected \"@threadV1.0\" or \"@end\""
printf '@supersamplerV1.1\n' >"$tmp/bad_magic.trace"
bad "$tmp/bad_magic.trace" "bad first line" "expected \"@supersamplerV1.0\""

echo "sampler_malformed: $checked runs, $failures failures"
[ "$failures" -eq 0 ]
