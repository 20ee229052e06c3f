#!/bin/sh
# perf script / SPT -> AutoFDO text, proven with the real AutoFDO (issue 4).
#
# (a) samples/autofdo/bubble.c built with -O2 -gdwarf-4, -no-pie and PIE,
#     recorded with perf record -e cpu-clock, `perf script -F pid,ip,dso
#     --show-mmap-events` converted with -t autofdo --binary; create_gcov
#     --profiler=text --use_lbr=false --gcov_version=1 must read it (no
#     "Error reading") and dump_gcov must show bubble_sort with a non-zero
#     total. Without --binary the warning names the binary and the file is
#     the same; for -no-pie, `perf script -F ip` (no dso, no mmap events)
#     with --base 0x400000 gives the same bubble_sort total.
# (b) an LBR (brstack) perf script synthesized by tests/oracle/lbr_synth.py
#     from a valgrind lackey trace of the -no-pie program: create_gcov
#     (default --use_lbr) must give swap_ints the head count and bubble_sort
#     the call target "swap_ints:N" that the generator counted with
#     AutoFDO's rules; the llvm-unsymbolized flavour read by llvm-profgen-14
#     --unsymbolized-profile gives the same call-target count.
# (c) llvm-profgen's noprobe/inline-noprobe perfscripts with --base 0x400000
#     give exactly the ranges and branches of their *.expected.afdotext.
# (d) impossible conversions (folded input, an unknown --binary) exit 1 with
#     a clear message and leave no output file.
# Every written file is checked against the grammar (research/autofdo.md 1.1).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
for tool in gcc perf create_gcov dump_gcov python3; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "SKIPPED: $tool is not installed (apt-get install autofdo linux-perf gcc python3)"; exit 77; }
done
PROFGEN=$(command -v llvm-profgen-14 || command -v /usr/lib/llvm-14/bin/llvm-profgen || true)
fail=0
cd "$TMPDIR" || exit 2

bad() { echo "FAIL: $*"; fail=1; }

# grammar FILE SECTIONS: exact section counts and record syntax
grammar() {
	awk -v sections="$2" '
	BEGIN { re[1] = "^[0-9a-f]+-[0-9a-f]+:[0-9]+$"; re[2] = "^[0-9a-f]+:[0-9]+$"
		re[3] = "^[0-9a-f]+->[0-9a-f]+:[0-9]+$"
		if (sections == 2) re[2] = re[3]; s = 0; left = -1 }
	left <= 0 { if ($0 !~ /^[0-9]+$/) { print "bad count line " NR ": " $0; exit 1 }
		s++; left = $0 + 0; if (s > sections) { print "extra section"; exit 1 }; next }
	{ if ($0 !~ re[s]) { print "bad record line " NR ": " $0; exit 1 }; left-- }
	END { if (s != sections || left > 0) { print "missing records or sections"; exit 1 } }' "$1" ||
		bad "$1 breaks the AutoFDO grammar"
}

# gcov BINARY PROFILE OUT [create_gcov flags]: runs create_gcov and dump_gcov into OUT.dump
gcov() {
	bin=$1 profile=$2 out=$3
	shift 3
	create_gcov --profiler=text --gcov_version=1 --binary="$bin" --profile="$profile" \
		--gcov="$out" "$@" > "$out.log" 2>&1 || bad "create_gcov failed on $profile"
	grep -q 'Error reading' "$out.log" && bad "create_gcov cannot read $profile: $(cat "$out.log")"
	dump_gcov --gcov_version=1 "$out" > "$out.dump" 2>&1 || bad "dump_gcov failed on $out"
}

total_of() { # FUNCTION DUMP
	sed -n "s/^$1 total:\([0-9]*\) .*/\1/p" "$2" | head -n 1
}

# ---- (a) IP samples, -no-pie and PIE ----
for kind in nopie pie; do
	flags=-no-pie
	[ $kind = pie ] && flags="-pie -fPIE"
	bin=$TMPDIR/bubble_$kind
	# shellcheck disable=SC2086
	gcc -O2 -gdwarf-4 $flags -o "$bin" "$here/samples/autofdo/bubble.c" || { bad "gcc $flags"; continue; }
	perf record -q -e cpu-clock -F 10000 -o "$kind.data" "$bin" 30 1500 > /dev/null 2> "$kind.record.log" ||
		{ bad "perf record: $(cat "$kind.record.log")"; continue; }
	perf script -i "$kind.data" -F pid,ip,dso --show-mmap-events > "$kind.perf.txt" 2> /dev/null ||
		{ bad "perf script"; continue; }
	"$PROFCONV" convert -q -t autofdo --binary "$bin" -o "$kind.afdo.txt" "$kind.perf.txt" ||
		{ bad "profconv $kind"; continue; }
	grammar "$kind.afdo.txt" 3
	head -n 1 "$kind.afdo.txt" | grep -qx 0 || bad "$kind: IP samples gave ranges"
	gcov "$bin" "$kind.afdo.txt" "$kind.afdo" --use_lbr=false
	total=$(total_of bubble_sort "$kind.afdo.dump")
	echo "$kind: dump_gcov: $(grep '^bubble_sort total' "$kind.afdo.dump")"
	[ "${total:-0}" -gt 0 ] || bad "$kind: dump_gcov shows no bubble_sort total: $(cat "$kind.afdo.dump")"
	# the default binary: the one with the most samples, named in a warning
	"$PROFCONV" convert -t autofdo -o "$kind.default.afdo.txt" "$kind.perf.txt" 2> "$kind.default.err" ||
		bad "profconv $kind without --binary"
	grep -q "writing '$bin', the binary with the most samples" "$kind.default.err" ||
		bad "$kind: no warning naming the binary: $(cat "$kind.default.err")"
	cmp -s "$kind.afdo.txt" "$kind.default.afdo.txt" || bad "$kind: the default binary gave another file"
	if [ $kind = nopie ]; then
		# runtime addresses without dso or mmap events: --base of the non-PIE load address
		perf script -i "$kind.data" -F ip > "$kind.ip.txt" 2> /dev/null
		"$PROFCONV" convert -q -f perf-script -t autofdo --base 0x400000 \
			-o "$kind.base.afdo.txt" "$kind.ip.txt" ||
			bad "profconv --base"
		grammar "$kind.base.afdo.txt" 3
		gcov "$bin" "$kind.base.afdo.txt" "$kind.base.afdo" --use_lbr=false
		base_total=$(total_of bubble_sort "$kind.base.afdo.dump")
		echo "$kind --base 0x400000: bubble_sort total:$base_total"
		[ "${base_total:-x}" = "$total" ] || bad "--base 0x400000 gave bubble_sort total ${base_total:-none}, mmap ranges $total"
	fi
done

# ---- (b) LBR: brstack synthesized from the real control flow ----
if ! command -v valgrind > /dev/null 2>&1; then
	bad "valgrind is missing: the LBR case cannot be synthesized (apt-get install valgrind)"
elif [ -x bubble_nopie ]; then
	valgrind --tool=lackey --trace-mem=yes --log-file=lackey.log ./bubble_nopie 1 400 > /dev/null 2>&1 ||
		bad "valgrind lackey"
	text=$(readelf -lW bubble_nopie | awk '$1 == "LOAD" && / E / { print $3, $5, $2; exit }')
	set -- $text
	target=$(nm bubble_nopie | awk '$3 == "swap_ints" { print $1 }')
	python3 "$here/tests/oracle/lbr_synth.py" lackey.log "$TMPDIR/bubble_nopie" \
		"${1#0x}" "${2#0x}" "${3#0x}" "$target" > lbr.perf.txt 2> lbr.expected || bad "lbr_synth.py"
	calls=$(awk '$1 == "calls" { print $3 }' lbr.expected)
	"$PROFCONV" convert -q -t autofdo --binary "$TMPDIR/bubble_nopie" -o lbr.afdo.txt lbr.perf.txt ||
		bad "profconv LBR"
	grammar lbr.afdo.txt 3
	gcov bubble_nopie lbr.afdo.txt lbr.afdo
	echo "LBR: generator counted $calls calls into swap_ints; dump_gcov:"
	grep -E '^swap_ints total|swap_ints:' lbr.afdo.dump
	grep -q "^swap_ints total:[1-9][0-9]* head:$calls\$" lbr.afdo.dump ||
		bad "LBR: swap_ints head is not $calls: $(cat lbr.afdo.dump)"
	grep -Eq "^  [0-9.]+: [0-9]+  swap_ints:$calls\$" lbr.afdo.dump ||
		bad "LBR: bubble_sort has no call target swap_ints:$calls"
	if [ -n "$PROFGEN" ]; then
		"$PROFCONV" convert -q -t llvm-unsymbolized --binary "$TMPDIR/bubble_nopie" -o lbr.llvm.txt lbr.perf.txt ||
			bad "profconv -t llvm-unsymbolized"
		grammar lbr.llvm.txt 2
		"$PROFGEN" --unsymbolized-profile=lbr.llvm.txt --binary=bubble_nopie --format=text \
			--output=lbr.llvm.prof > lbr.llvm.log 2>&1 || bad "llvm-profgen: $(cat lbr.llvm.log)"
		echo "llvm-profgen: $(grep -E '^(bubble_sort|swap_ints):|swap_ints:' lbr.llvm.prof | tr '\n' '|')"
		grep -Eq "^ [0-9.]+: [0-9]+ swap_ints:$calls\$" lbr.llvm.prof &&
			grep -q "^swap_ints:[0-9]*:$calls\$" lbr.llvm.prof ||
			bad "llvm-profgen does not give swap_ints:$calls: $(cat lbr.llvm.prof)"
	else
		bad "llvm-profgen-14 is missing (apt-get install llvm-14)"
	fi
fi

# ---- SPT samples: RVAs as they are; create_gcov must parse them (PE binaries it cannot read) ----
for spt in "$SAMPLES"/demo.spt "$SAMPLES"/multi.spt "$SAMPLES"/bigrepeat.spt; do
	name=$(basename "$spt" .spt)
	"$PROFCONV" convert -q -t autofdo --lbr-ranges -o "$name.spt.afdo.txt" "$spt" ||
		{ bad "profconv $name.spt"; continue; }
	grammar "$name.spt.afdo.txt" 3
	[ -x bubble_nopie ] && gcov bubble_nopie "$name.spt.afdo.txt" "$name.spt.afdo"
done

# ---- (d) impossible conversions ----
printf 'main;work 3\n' > stacks.folded
if "$PROFCONV" convert -t autofdo -o folded.afdo.txt stacks.folded 2> folded.err; then
	bad "folded input was converted to AutoFDO"
else
	[ $? -eq 1 ] || bad "folded -> autofdo: exit status is not 1"
fi
grep -q 'needs instruction addresses' folded.err || bad "folded -> autofdo: unclear message: $(cat folded.err)"
[ -e folded.afdo.txt ] && bad "folded -> autofdo left an output file"
if [ -f nopie.perf.txt ]; then
	"$PROFCONV" convert -t autofdo --binary no-such-binary -o none.afdo.txt nopie.perf.txt 2> none.err &&
		bad "an unknown --binary was accepted"
	grep -q "no binary named 'no-such-binary'" none.err || bad "unknown --binary: $(cat none.err)"
	[ -e none.afdo.txt ] && bad "an unknown --binary left an output file"
fi

# ---- (c) llvm-profgen's LBR inputs ----
corpus=$SHARED/corpus/perf-script/llvm-profgen/llvm/test/tools/llvm-profgen/Inputs
if [ ! -d "$corpus" ]; then
	[ $fail -eq 0 ] || exit 1
	echo "SKIPPED: $corpus is absent: the llvm-profgen expectations were not checked"
	exit 77
fi
for name in noprobe inline-noprobe; do
	"$PROFCONV" convert -q -t llvm-unsymbolized --base 0x400000 -o "$name.llvm.txt" \
		"$corpus/$name.perfscript" || bad "profconv $name"
	cmp -s "$name.llvm.txt" "$corpus/$name.expected.afdotext" ||
		bad "$name: not llvm-profgen's ranges and branches: $(diff "$name.llvm.txt" "$corpus/$name.expected.afdotext")"
	"$PROFCONV" convert -q -t autofdo --base 0x400000 -o "$name.afdo.txt" \
		"$corpus/$name.perfscript" || bad "profconv -t autofdo $name"
	grammar "$name.afdo.txt" 3
	awk 'NR == 1 { n = $1; print; next } n > 0 { print; n--; next }
	     !skipped { skip = $1; skipped = 1; next } skip > 0 { skip--; next } { print }' \
		"$name.afdo.txt" > "$name.afdo.noaddr"
	cmp -s "$name.afdo.noaddr" "$corpus/$name.expected.afdotext" ||
		bad "$name: -t autofdo ranges or branches differ from llvm-profgen's"
	echo "$name: $(head -n 1 "$name.llvm.txt") ranges, as llvm-profgen expects"
done
exit $fail
