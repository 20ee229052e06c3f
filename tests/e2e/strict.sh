#!/bin/sh
# --strict (issue 20): warnings about lost data are errors, notices are not,
# and each message is printed once.
#   - notices only (what the chosen output cannot hold by its nature, or
#     advice): --strict exits 0 and writes the output; stderr is exactly the
#     notices, each once, for folded, svg, speedscope, cpuprofile, pprof,
#     autofdo, llvm-unsymbolized, and gcc-afdo and llvm-sample (a -no-pie
#     build of samples/autofdo/bubble.c, IP samples in a perf script);
#   - losses (content the format could hold, dropped, changed or
#     approximated): --strict exits 1 with the loss said once, as the error
#     (not also as a warning), and writes no output (nor a temporary file);
#     without --strict the same run exits 0, says the loss once as a
#     warning and writes the output. Losses tried: invalid UTF-8 in a folded
#     name (svg, cpuprofile, speedscope: U+FFFD), stacks reconstructed from
#     a Visual Studio CallerCallee CSV whose callee has two callers
#     (folded, approximate), samples with neither a comm nor frames
#     (folded, svg; from a raw profile.proto), addresses an SPT cannot hold
#     (perf script -> spt).
# Environment (tests/run.sh): PROFCONV, SAMPLES, TMPDIR. Exit 0 pass, else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
profconv=${PROFCONV:-}
samples=${SAMPLES:-$top/samples}
failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
[ -x "$profconv" ] || { echo "strict: profconv is not built (${PROFCONV:-PROFCONV unset})"; exit 1; }
for tool in gcc nm readelf; do
	command -v "$tool" >/dev/null 2>&1 || { echo "strict: $tool is missing (gcc, binutils)"; exit 1; }
done
cd "$TMPDIR" || exit 1
n=0

# same_lines NAME FILE EXPECTED: FILE holds exactly the lines of EXPECTED, in any order
same_lines() {
	printf '%s\n' "$3" | sort >"$1.want"
	sort "$2" >"$1.got"
	cmp -s "$1.want" "$1.got" ||
		fail "$1: stderr is not the expected lines; want:
$(cat "$1.want")
got:
$(cat "$2")"
}

# notices NAME EXPECTED_STDERR ARGS...: --strict succeeds, the notices said once
notices() {
	name=$1 expected=$2
	shift 2
	n=$((n + 1))
	out=out$n
	"$profconv" convert --strict -o "$out" "$@" 2>"$name.err"
	status=$?
	[ "$status" = 0 ] || fail "$name: --strict exit $status, want 0 (only notices): $(cat "$name.err")"
	[ -s "$out" ] || fail "$name: --strict wrote no output"
	same_lines "$name" "$name.err" "$expected"
}

# loss NAME LOSS STRICT_OTHERS LOOSE_OTHERS ARGS...: --strict fails with LOSS
# once, as the error, and writes nothing; without --strict, exit 0, LOSS once
# as a warning, and the output in $loose. *_OTHERS: the notices each run
# prints beside (empty: none).
loss() {
	name=$1 text=$2 strict_others=$3 loose_others=$4
	shift 4
	n=$((n + 1))
	mkdir "strict$n" && out=strict$n/out
	"$profconv" convert --strict -o "$out" "$@" 2>"$name.strict.err"
	status=$?
	[ "$status" = 1 ] || fail "$name: --strict exit $status, want 1"
	same_lines "$name.strict" "$name.strict.err" \
		"$(printf 'profconv: %s (an error with --strict)%s%s' "$text" "${strict_others:+
}" "$strict_others")"
	[ "$(grep -cF "${text#*: }" "$name.strict.err")" = 1 ] ||
		fail "$name: --strict does not say the loss exactly once: $(cat "$name.strict.err")"
	[ -z "$(ls -A "strict$n")" ] || fail "$name: --strict left files: $(ls -A "strict$n")"
	loose=loose$n
	"$profconv" convert -o "$loose" "$@" 2>"$name.err"
	status=$?
	[ "$status" = 0 ] || fail "$name: exit $status without --strict, want 0: $(cat "$name.err")"
	[ -s "$loose" ] || fail "$name: no output without --strict"
	same_lines "$name" "$name.err" \
		"$(printf 'profconv: warning: %s%s%s' "$text" "${loose_others:+
}" "$loose_others")"
}

# ---- notices: --strict passes ----
fp=$samples/perf/fp-mmap.perf.txt
two=$samples/perf/twoevents.perf.txt
workload=/work/main/build/samples/perf/workload # as recorded in fp-mmap.perf.txt
notices folded "profconv: warning: folded: this format cannot keep the input's instruction addresses
profconv: warning: folded: labels other than comm, pid and tid are lost" -t folded "$fp"
notices svg "profconv: warning: svg: this format cannot keep the input's instruction addresses
profconv: warning: svg: labels other than comm, pid and tid are lost" -t svg "$fp"
notices speedscope "profconv: warning: speedscope: this format cannot keep the input's instruction addresses
profconv: warning: speedscope: only column 'cpu-clock_event' is written, one profile per thread; others such as 'page-faults/period=64/_sample' are lost (pick one with --event)" \
	-t speedscope "$two"
notices cpuprofile "profconv: warning: cpuprofile: this format cannot keep the input's instruction addresses
profconv: warning: cpuprofile: only column 'cpu-clock_sample' is written; others such as 'page-faults/period=64/_sample' are lost (pick one with --event)" \
	-t cpuprofile "$two"
notices autofdo "profconv: warning: autofdo: this format cannot keep the input's symbols, call stacks
profconv: warning: autofdo: no --binary given: writing '$workload', the binary with the most samples (79)" \
	-t autofdo "$fp"
notices llvm-unsymbolized "profconv: warning: llvm-unsymbolized: this format cannot keep the input's symbols, call stacks
profconv: warning: llvm-unsymbolized: no --binary given: writing '$workload', the binary with the most samples (79)
profconv: warning: llvm-unsymbolized: the input has no branch stacks: llvm-unsymbolized gets each IP as a one-address range" \
	-t llvm-unsymbolized "$fp"
# perf script -F ip,brstack: a leaf IP and a branch stack per sample
printf '%s\n' '           40062f 0x40062f/0x4005b0/P/-/-/9  0x400645/0x4005ff/P/-/-/1' \
	'           400645 0x400645/0x4005ff/P/-/-/1' >brstack.perf.txt
notices pprof "profconv: warning: pprof: pprof keeps no branch stacks of samples that have call stacks (2 times)" \
	-t pprof brstack.perf.txt

# gcc-afdo and llvm-sample: IP samples in bubble_sort of a -no-pie build, with its mmap event
if gcc -O2 -g -no-pie -o bubble "$top/samples/autofdo/bubble.c"; then
	bin=$TMPDIR/bubble
	start=$(nm bubble | awk '$3 == "bubble_sort" { print $1 }')
	segment=$(readelf -lW bubble | awk '$1 == "LOAD" && / R E / { print $3, $6, $2 }')
	# shellcheck disable=SC2086 # the executable segment's vaddr, size and offset
	set -- $segment
	{
		printf 'bubble 42/42 [000] 0.500000: PERF_RECORD_MMAP2 42/42: [0x%x(0x%x) @ 0x%x fd:01 1 0]: r-xp %s\n' \
			"$(($1))" "$(($2))" "$(($3))" "$bin"
		for offset in 16 32 48 16; do
			printf 'bubble 42/42 [000] 1.000000: 1 cpu-clock:\n\t%x bubble_sort+0x%x (%s)\n\n' \
				$((0x$start + offset)) "$offset" "$bin"
		done
	} >bubble.perf.txt
	for format in gcc-afdo llvm-sample; do
		notices "$format" "profconv: warning: $format: this format cannot keep the input's symbols, call stacks
profconv: warning: $format: IP samples only: they show which functions are hot but can mislead block layout (skid); record branch stacks (perf record -b) where the CPU has them" \
			-t "$format" --binary "$bin" bubble.perf.txt
	done
else
	fail "gcc -no-pie cannot build samples/autofdo/bubble.c"
fi

# ---- losses: --strict fails, once ----
fffd=$(printf 'caf\357\277\275')
printf 'main;caf\377;leaf 3\nmain;other 2\n' >bad-utf8.folded
loss svg-utf8 "svg: invalid UTF-8 and control characters in names are drawn as U+FFFD" "" "" \
	-t svg bad-utf8.folded
grep -q "$fffd" "$loose" || fail "svg-utf8: the name is not drawn with U+FFFD"
loss cpuprofile-utf8 "cpuprofile: invalid UTF-8 in names is written as U+FFFD" "" "" \
	-t cpuprofile bad-utf8.folded
grep -q "$fffd" "$loose" || fail "cpuprofile-utf8: the name is not written with U+FFFD"
loss speedscope-utf8 "speedscope: invalid UTF-8 in names is written as U+FFFD" "" "" \
	-t speedscope bad-utf8.folded

# main calls A and B, both call D: the method splits D's 60 as 40 and 20
printf '%s\n' \
	'Type,Function Name,Inclusive Samples,Exclusive Samples,Module Name,Function Address,Root Function Name' \
	'0,"main",90,0,"app.exe",0x1000,"main"' \
	'2,"A",60,20,"app.exe",0x2000,"main"' \
	'2,"B",30,10,"app.exe",0x3000,"main"' \
	'0,"A",60,20,"app.exe",0x2000,"A"' \
	'1,"main",60,20,"app.exe",0x1000,"A"' \
	'2,"D",40,40,"app.exe",0x4000,"A"' \
	'0,"B",30,10,"app.exe",0x3000,"B"' \
	'1,"main",30,10,"app.exe",0x1000,"B"' \
	'2,"D",20,20,"app.exe",0x4000,"B"' \
	'0,"D",60,60,"app.exe",0x4000,"D"' \
	'1,"A",40,40,"app.exe",0x2000,"D"' \
	'1,"B",20,20,"app.exe",0x3000,"D"' >shared.csv
# --strict stops before the writer, so before folded's notice of the parts it cannot keep
loss reconstructed "reconstruct: stacks reconstructed from caller/callee pairs (VsPerfView method) are approximate: the exclusive counts of 1 function(s) are split among call paths in proportion" \
	"" "profconv: warning: folded: this format cannot keep the input's instruction addresses" \
	-t folded shared.csv
[ "$(cat "$loose")" = "main;A 20
main;A;D 40
main;B 10
main;B;D 20" ] || fail "reconstructed: folded output: $(cat "$loose")"

# a raw profile.proto: "main" 5, and 3 samples of no location and no label
{
	printf '\012\004\010\001\020\002'                         # sample_type 1/2
	printf '\022\006\012\001\001\022\001\005\022\003\022\001\003' # samples: at 1, 5; nowhere, 3
	printf '\042\006\010\001\042\002\010\001\052\004\010\001\020\003' # location 1, function 1
	printf '\062\000\062\007samples\062\005count\062\004main'       # strings
} >rootless.pb
loss rootless-folded "folded: 1 samples with neither a comm nor frames are not written" "" "" \
	-f pprof -t folded rootless.pb
[ "$(cat "$loose")" = "main 5" ] || fail "rootless-folded: output: $(cat "$loose")"
loss rootless-svg "svg: 1 samples with neither a comm nor frames are not drawn" "" "" \
	-f pprof -t svg rootless.pb
loss spt "spt: 2 runtime addresses of binaries with no known load address were left out" \
	"profconv: warning: spt: this format cannot keep the input's symbols" \
	"profconv: warning: spt: this format cannot keep the input's symbols
profconv: warning: spt: 291 addresses that do not fit in a 32-bit RVA were left out" \
	-t spt "$fp"

[ "$failures" = 0 ] && echo "strict: notices pass --strict, losses fail it, each message once"
exit "$((failures != 0))"
