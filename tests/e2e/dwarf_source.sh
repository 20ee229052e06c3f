#!/bin/sh
# src/symbols/dwarf_source.c (through $BUILD/tools/dwarf-frames) against
# the DWARF readers of elfutils, LLVM and binutils.
#
# A small C program (two static inline functions nested in a loop, a loop
# whose one-line if/else gets discriminators, a function with a cold part,
# direct calls) is built with gcc -O2 -g (DWARF 5), gcc -O2 -gdwarf-4,
# clang-14 -O2 -gline-tables-only -fdebug-info-for-profiling and clang-14
# -O2 -g, the clang ones also with -gdwarf-aranges (below). For every
# instruction address of its functions (objdump -d, padding included):
#   - the frames' names and lines, leaf first, equal eu-addr2line -i -f;
#   - their DW_AT_decl_line, lines and discriminators equal
#     llvm-symbolizer-14 --inlining --verbose ("Function start line",
#     "Line", "Discriminator"), callers' frames included;
#   - the concrete function's entry is nm's address of its name;
#   - no frames where both tools print line 0 or the function "??".
# Then: the row addresses of count_odd (and of check with its check.cold
# part) equal the distinct row addresses of llvm-dwarfdump-14 --debug-line
# in the function's nm -S ranges; every call site lies in a call or jmp
# instruction to a function whose nm address is the callee entry, and each
# direct call of the program to its own functions is found. The frame
# comparison runs on libc.so.6 too when its separate debug file (libc6-dbg,
# by build id) is installed. Refusals: a binary built without -g, a
# non-ELF file, a missing file, a relocatable object.
#
# Environment (tests/run.sh): BUILD, TMPDIR.
set -u
LC_ALL=C
export LC_ALL
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$here/$build ;; esac
frames=$build/tools/dwarf-frames
fail=0
total=0
summary=""

bad() { echo "FAIL: $*"; fail=1; }
skip() { echo "SKIPPED: $*"; exit 77; }

[ -x "$frames" ] || skip "$frames is not built (make BUILD=${BUILD:-build} ${BUILD:-build}/tools/dwarf-frames)"
for tool in gcc clang-14 objdump nm readelf eu-addr2line llvm-symbolizer-14 llvm-dwarfdump-14; do
	command -v "$tool" >/dev/null 2>&1 ||
		skip "$tool is missing (apt-get install gcc binutils elfutils llvm-14 clang-14)"
done
cd "$TMPDIR" || exit 2

cat >prog.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

int table[100];

static inline int square(int x)
{
	return x * x;
}

static inline int mix(int a, int b)
{
	return square(a) + square(b) * 3;
}

__attribute__((noinline)) int count_odd(const int *v, int n)
{
	int odd = 0;

	for (int i = 0; i < n; i++)
		if (v[i] & 1) odd++; else odd--;
	return odd;
}

__attribute__((noinline)) long work(int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += mix(i, i + 1);
	return sum;
}

__attribute__((cold, noinline)) void report(int i)
{
	fprintf(stderr, "negative %d\n", i);
}

__attribute__((noinline)) int check(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		if (table[i] < 0) {
			report(i);
			s += table[i] * 7;
			continue;
		}
		s += table[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;

	for (int i = 0; i < 100; i++)
		table[i] = rand();
	printf("%ld %d %d\n", work(n), count_odd(table, n < 100 ? n : 100), check(n < 100 ? n : 100));
	return 0;
}
EOF
FUNCS='main|work|count_odd|report|check'

# hex16 in awk: an address as 16 lowercase hex digits (from 0x1a2b, 1a2b or 0x0000...)
HEX16='function hex16(a) { a = tolower(a); sub(/^0x/, "", a); sub(/:$/, "", a)
	return substr("0000000000000000", 1, 16 - length(a)) a }'

# instructions BIN REGEX: "ADDRESS NEXT MNEMONIC TARGET" of the functions named by REGEX
# (NEXT: the address of the instruction that follows, in whatever function)
instructions() {
	objdump -d --no-show-raw-insn "$1" | awk -v re="^($2)([.].*)?\$" "$HEX16"'
	/^[0-9a-f]+ <.*>:$/ { name = $2; gsub(/[<>:]/, "", name); sub(/@.*/, "", name)
		keep = name ~ re; next }
	/^ *[0-9a-f]+:\t/ {
		a = hex16($1)
		if (have) print at, a, op, target
		have = keep; at = a; op = $2; target = ""
		if (match($0, /<[^>]*>$/)) target = substr($0, RSTART + 1, RLENGTH - 2) }
	END { if (have) print at, at, op, target }'
}

# symbols FILE: "NAME ADDRESS" of the defined functions in FILE's .symtab
symbols() {
	nm --defined-only "$1" | awk "$HEX16"'$2 ~ /^[tTwWiI]$/ { print $3, hex16($1) }'
}

# our_forms BIN ADDRS: three files BIN.ours.{eu,llvm,entry}, a line per address
our_forms() {
	awk "$HEX16"'
	FNR == NR { addr[n++] = hex16($1); next }
	/^$/ { a = addr[k++]; print a by_eu > eu; print a by_llvm > ll
		if (entry != "") print a, entry, last > en
		by_eu = by_llvm = entry = ""; next }
	$1 == "entry" { entry = hex16($2); next }
	{ name = $0; sub(/ [0-9]+ [0-9]+ [0-9]+$/, "", name); last = name
	  by_eu = by_eu " " name ":" $(NF - 1); by_llvm = by_llvm " " $(NF - 2) ":" $(NF - 1) ":" $NF }
	' eu="$1.ours.eu" ll="$1.ours.llvm" en="$1.ours.entry" "$2" "$1.ours"
}

# eu_form BIN ADDRS > BIN.eu: eu-addr2line -a -i -f, "ADDRESS name:line ..."; nothing
# after ADDRESS when the leaf's line is 0 or when the address is in no function ("??")
eu_form() {
	eu-addr2line -a -i -f -e "$1" <"$2" | awk "$HEX16"'
	function flush() { if (a != "") print a (none ? "" : s) }
	/^0x[0-9a-f]+$/ { flush(); a = hex16($0); s = ""; k = 0; none = 0; next }
	{ k++
	  if (k % 2) { name = $0; sub(/ inlined at .*/, "", name); none = none || name == "??"; next }
	  n = split($0, p, ":"); line = p[n]
	  if (n >= 3 && p[n] ~ /^[0-9]+$/ && p[n - 1] ~ /^[0-9]+$/) line = p[n - 1]
	  if (k == 2 && line + 0 == 0) none = 1
	  s = s " " name ":" line + 0 }
	END { flush() }'
}

# llvm_form BIN ADDRS > BIN.llvm: "ADDRESS decl:line:discriminator ..." (nothing, as in eu_form)
llvm_form() {
	llvm-symbolizer-14 --inlining --verbose --functions=linkage --obj="$1" <"$2" |
		awk "$HEX16"'
	FNR == NR { addr[n++] = hex16($1); next }
	function flush() { if (!f) return; s = ""
		for (i = 1; i <= f; i++) s = s " " decl[i] ":" line[i] ":" disc[i]
		print addr[k++] (line[1] && !none ? s : ""); f = none = 0 }
	/^$/ { flush(); next }
	/^[^ ]/ { f++; decl[f] = line[f] = disc[f] = 0; none = none || $0 == "??"; next }
	/^  Function start line: / { decl[f] = $NF + 0 }
	/^  Line: / { line[f] = $NF + 0 }
	/^  Discriminator: / { disc[f] = $NF + 0 }
	END { flush() }' "$2" -
}

# differ LABEL A B: FAIL with the first differing lines when A and B differ
differ() {
	if ! cmp -s "$2" "$3"; then
		bad "$1:"
		diff "$2" "$3" | sed -n '1,12p'
	fi
}

# compare_frames LABEL BIN ADDRS EU [SYMTAB]: the frame comparisons (with eu-addr2line
# when EU is 1), the entries against the symbols of SYMTAB (default BIN); adds to the totals
compare_frames() {
	label=$1 bin=$2 addrs=$3 eu=$4 symtab=${5:-$2}
	"$frames" "$bin" <"$addrs" >"$bin.ours" 2>"$bin.err" ||
		{ bad "$label: dwarf-frames failed: $(cat "$bin.err")"; return; }
	our_forms "$bin" "$addrs"
	llvm_form "$bin" "$addrs" >"$bin.llvm"
	if [ "$eu" = 1 ]; then
		eu_form "$bin" "$addrs" >"$bin.eu"
		differ "$label: names and lines differ from eu-addr2line (< eu-addr2line, > ours)" \
			"$bin.eu" "$bin.ours.eu"
	fi
	differ "$label: decl lines, lines, discriminators differ from llvm-symbolizer" \
		"$bin.llvm" "$bin.ours.llvm"
	symbols "$symtab" | awk 'NR == FNR { at[$1] = $2; next }
		at[$3] != $2 { print "FAIL: '"$label"': entry " $2 " of " $3 " at " $1 ", nm says " at[$3] }' \
		- "$bin.ours.entry" >"$bin.entry.bad"
	[ -s "$bin.entry.bad" ] && { sed -n '1,5p' "$bin.entry.bad"; fail=1; }
	count=$(wc -l <"$addrs")
	with=$(grep -c ' ' "$bin.ours.eu")
	total=$((total + count))
	summary="$summary, $label $count ($with with frames)"
}

# compare_rows LABEL BIN NAME: rows of NAME (and NAME.cold) against llvm-dwarfdump
compare_rows() {
	label=$1 bin=$2 name=$3
	nm -S "$bin" | awk '$4 == n || $4 == n ".cold" { print $1, $2 }' n="$name" |
		while read -r at size; do
			printf '%016x %016x\n' $((0x$at)) $((0x$at + 0x$size))
		done >"$bin.$name.ranges"
	start=$(nm "$bin" | awk '$3 == n { print "0x" $1 }' n="$name")
	[ -s "$bin.$name.ranges" ] && [ -n "$start" ] || { bad "$label: nm has no $name"; return; }
	llvm-dwarfdump-14 --debug-line "$bin" | awk "$HEX16"'
	NR == FNR { lo[n + 0] = $1; hi[n++] = $2; next }
	/^0x[0-9a-f]+ / && length($1) == 18 && !/end_sequence/ { a = hex16($1)
		for (i = 0; i < n; i++) if (a >= lo[i] && a < hi[i]) print a }' \
		"$bin.$name.ranges" - | sort -u >"$bin.$name.rows.want"
	"$frames" --rows "$start" "$bin" | awk "$HEX16"'{ print hex16($1) }' >"$bin.$name.rows"
	[ -s "$bin.$name.rows.want" ] || bad "$label: llvm-dwarfdump lists no row of $name"
	differ "$label: rows of $name differ from llvm-dwarfdump (< llvm-dwarfdump, > ours)" \
		"$bin.$name.rows.want" "$bin.$name.rows"
	rows="$rows $label:$name=$(wc -l <"$bin.$name.rows")"
}

# check_calls LABEL BIN: every call site is a call/jmp to its callee's entry, and
# every direct call of the program to its own functions is listed
check_calls() {
	label=$1 bin=$2
	instructions "$bin" "$FUNCS" >"$bin.insns"
	symbols "$bin" >"$bin.syms"
	"$frames" --calls "$bin" >"$bin.calls" 2>"$bin.err" ||
		{ bad "$label: dwarf-frames --calls failed: $(cat "$bin.err")"; return; }
	awk -v label="$label" "$HEX16"'
	FILENAME == ARGV[1] { at[$1] = $2; next }
	FILENAME == ARGV[2] { n++; lo[n] = $1; hi[n] = $2; op[n] = $3; to[n] = $4; next }
	{ c = hex16($1); e = hex16($2); found = 0
	  for (i = 1; i <= n; i++) if (c >= lo[i] && c < hi[i]) { found = i; break }
	  if (!found) { print "FAIL: " label ": call site " $0 " is in no instruction of the program"; next }
	  if (op[found] !~ /^(call|jmp)/ || at[to[found]] != e)
		print "FAIL: " label ": call site " $0 " is " op[found] " " to[found] " at " lo[found]
	  seen[found] = 1 }
	END { for (i = 1; i <= n; i++) if (op[i] ~ /^call/ && to[i] ~ /^(work|count_odd|report|check)$/ && !seen[i])
		print "FAIL: " label ": no call site for " op[i] " " to[i] " at " lo[i] }
	' "$bin.syms" "$bin.insns" "$bin.calls" >"$bin.calls.bad"
	[ -s "$bin.calls.bad" ] && { sed -n '1,8p' "$bin.calls.bad"; fail=1; }
	calls="$calls $label=$(wc -l <"$bin.calls")"
}

rows="" calls=""
# eu-addr2line 0.188 (libdwfl) finds a compile unit's line table only through
# .debug_aranges, which clang does not write unless -gdwarf-aranges: each clang
# build is checked as given against llvm-symbolizer, and once more with
# -gdwarf-aranges (the same code and DWARF otherwise) against eu-addr2line too.
for variant in "gcc-dwarf5 1 gcc -O2 -g" "gcc-dwarf4 1 gcc -O2 -gdwarf-4" \
	"clang-lines 0 clang-14 -O2 -gline-tables-only -fdebug-info-for-profiling" \
	"clang-lines-aranges 1 clang-14 -O2 -gline-tables-only -fdebug-info-for-profiling -gdwarf-aranges" \
	"clang-g 0 clang-14 -O2 -g" "clang-g-aranges 1 clang-14 -O2 -g -gdwarf-aranges"; do
	# shellcheck disable=SC2086 # the compiler and its flags are words
	set -- $variant
	label=$1 eu=$2
	shift 2
	"$@" -o "$label" prog.c || { bad "$label: cannot build with $*"; continue; }
	instructions "$label" "$FUNCS" | awk '{ print "0x" $1 }' >"$label.addrs"
	[ -s "$label.addrs" ] || { bad "$label: objdump shows no instruction"; continue; }
	compare_frames "$label" "$label" "$label.addrs" "$eu"
	compare_rows "$label" "$label" count_odd
	case $label in gcc-*) compare_rows "$label" "$label" check ;; esac
	check_calls "$label" "$label"
	grep -q ' square:[0-9]* mix:[0-9]* work:[0-9]*$' "$label.ours.eu" ||
		bad "$label: no address gives the inline chain square < mix < work"
done

# at least one call to work is found
for label in gcc-dwarf5 gcc-dwarf4 clang-lines clang-g; do
	[ -f "$label.calls" ] || continue
	work=$(awk '$1 == "work" { print $2 }' "$label.syms")
	awk "$HEX16"'{ print hex16($2) }' "$label.calls" | grep -qx "$work" ||
		bad "$label: no call site to work (entry $work)"
done

# a binary without DWARF of its own: libc.so.6 and its debug file, by build id
libc=$(gcc -print-file-name=libc.so.6)
libc=$(readlink -f "$libc")
id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID:/ { print $3 }')
debug=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ -n "$id" ] && [ -f "$debug" ]; then
	cp "$libc" libc.so.6
	instructions libc.so.6 'qsort_r|qsort|nrand48|strtol' |
		awk '{ print "0x" $1 }' >libc.addrs
	compare_frames libc libc.so.6 libc.addrs 1 "$debug"
else
	echo "note: no separate debug file for $libc (apt-get install libc6-dbg): not checked"
fi

# refusals
expect_error() { # LABEL FILE MESSAGE
	if "$frames" "$2" </dev/null >/dev/null 2>"$1.err"; then
		bad "$1: dwarf-frames accepted $2"
	elif [ "$(cat "$1.err")" != "dwarf-frames: $3" ]; then
		bad "$1: message '$(cat "$1.err")', want 'dwarf-frames: $3'"
	fi
}
gcc -O2 -o nodebug prog.c || bad "cannot build without -g"
expect_error nodebug "$TMPDIR/nodebug" \
	"no DWARF debug information in '$TMPDIR/nodebug' (build it with -g)"
expect_error notelf "$TMPDIR/prog.c" "'$TMPDIR/prog.c' is not an ELF file"
expect_error missing "$TMPDIR/none" "cannot open '$TMPDIR/none': No such file or directory"
gcc -O2 -g -c -o prog.o prog.c || bad "cannot compile prog.o"
expect_error object "$TMPDIR/prog.o" \
	"'$TMPDIR/prog.o' is a relocatable object: its DWARF is not relocated (link it)"

echo "dwarf_source: $total addresses compared${summary}; rows${rows}; call sites${calls}"
exit $fail
