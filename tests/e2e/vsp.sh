#!/bin/sh
# tests/e2e/vsp.sh - the VSP header reader end to end:
#   1. samples/vsperf/session.vsp is what vspgen makes from its spec;
#   2. `profconv info` on it equals tests/golden/vsp/session.info (run in
#      a scratch directory, the .vsp at data/session.vsp, so the ETL search
#      output is the same wherever the tree is);
#   3. the ETL search finds files in each of its three places, says
#      "none" for an empty path and "missing" otherwise, and says that the
#      third place does not exist for standard input: the ETL sections of
#      four cases equal tests/golden/vsp/etl.info (the scratch directory
#      written as TMPDIR);
#   4. malformed headers (a cut at every field boundary and every 997th
#      byte, also through a pipe; bad magic; header size; unpaired UTF-16
#      surrogates in three string fields) make `convert -f vsp`, `convert`
#      after a valid folded report (when the magic survives, so that the
#      file is detected) and `info` exit 1 with the same
#      "profconv: FILE: offset 0x..: vsp: ..." line, and convert leaves no
#      file behind; the offsets and messages of the classes are exact; a
#      file of 0 bytes is "profconv: FILE: empty input" (convert);
#   5. a .vsp alone does not convert (exit 1, no output), and neither does
#      one given before the report;
#   6. with a report first (a folded file, and a small vsperfreport
#      CallerCallee CSV when the vsperf reader is built), the real pprof
#      shows the VSP period, time and comments (`pprof -raw`);
#   7. valgrind finds no leak or bad access in info, convert and failures.
# Parts whose tool is missing (pprof, the vsperf reader, valgrind) are
# skipped with a "SKIPPED (part):" line; the rest still runs.
# UPDATE_GOLDEN=1 rewrites the golden files (read the diff before
# committing). Environment (tests/run.sh): PROFCONV, PPROF, BUILD, SAMPLES,
# TMPDIR. Exit 0 pass, 77 skip.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/e2e/lib/golden.sh"
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
vspgen="$build/tools/vspgen"
profconv=${PROFCONV:-$build/profconv}
pprof=${PPROF:-$top/build/tools/pprof}
samples=${SAMPLES:-$top/samples}
tmp=$(cd "${TMPDIR:-/tmp}" && pwd)
golden="$top/tests/golden/vsp"
out_dir="$tmp/out"
failures=0 checked=0 skipped_parts=""

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
[ -x "$vspgen" ] || skip "vspgen is not built ($vspgen)"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) is missing"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

compare_golden() { # NAME FILE
	golden_compare "$golden/$1" "$2" || fail "$2 differs from tests/golden/vsp/$1"
}

mkdir -p "$out_dir" "$tmp/work/data" "$tmp/work/abs"
printf 'main;work;leaf 3\nmain;other 2\n' >"$tmp/report.folded"

# --- 1. the sample is reproducible ---
"$vspgen" --spec="$samples/vsperf/session.vspspec" "$tmp/session.vsp" ||
	fail "vspgen failed on session.vspspec"
cmp "$tmp/session.vsp" "$samples/vsperf/session.vsp" ||
	fail "samples/vsperf/session.vsp is not what vspgen makes from session.vspspec"

# --- 2. info golden ---
cp "$samples/vsperf/session.vsp" "$tmp/work/data/session.vsp"
(cd "$tmp/work" && timeout 10 "$profconv" info data/session.vsp) >"$tmp/session.info" ||
	fail "info on session.vsp failed"
compare_golden session.info "$tmp/session.info"
# Bytes after the header (the raw collection blocks of a real file) change nothing.
"$vspgen" --spec="$samples/vsperf/session.vspspec" --append=70000 "$tmp/work/data/session.vsp" &&
	(cd "$tmp/work" && timeout 10 "$profconv" info data/session.vsp) >"$tmp/appended.info" &&
	cmp -s "$tmp/session.info" "$tmp/appended.info" ||
	fail "bytes after the header change the info output"
cp "$samples/vsperf/session.vsp" "$tmp/work/data/session.vsp"

# --- 3. the ETL search ---
etl_case() { # TITLE VSP [stdin]: appends the ETL section of info to etl.info
	echo "== $1" >>"$tmp/etl.info"
	if [ "${3:-}" = stdin ]; then
		(cd "$tmp/work" && timeout 10 "$profconv" info - <"$2") >"$tmp/case.info"
	else
		(cd "$tmp/work" && timeout 10 "$profconv" info "$2") >"$tmp/case.info"
	fi || fail "info failed in case '$1'"
	sed -n '/^ETL files/,$p' "$tmp/case.info" | sed "s|$tmp|TMPDIR|g" >>"$tmp/etl.info"
}
: >"$tmp/etl.info"
: >"$tmp/work/abs/session.kernel.etl"
: >"$tmp/work/session.app.etl"
: >"$tmp/work/data/beside.kernel.etl"
"$vspgen" "--kernel_etl_path=$tmp/work/abs/session.kernel.etl" \
	'--app_etl_path=C:\Trace\session.app.etl' "$tmp/work/found.vsp" &&
	"$vspgen" '--kernel_etl_path=D:\traces\beside.kernel.etl' "$tmp/work/data/beside.vsp" ||
	fail "vspgen failed on the ETL cases"
etl_case "as written (absolute), then in the current directory" found.vsp
etl_case "beside the .vsp, and an empty path" data/beside.vsp
etl_case "from standard input: not beside the .vsp" "$tmp/work/data/beside.vsp" stdin
etl_case "the sample: kernel missing, app in the current directory" data/session.vsp
compare_golden etl.info "$tmp/etl.info"

# --- 4. malformed headers ---
out_dir_empty() {
	[ -z "$(ls -A "$out_dir")" ]
}

error_line() { # FILE STDERR
	grep -F "profconv: $1: offset 0x" "$2" | grep -E ': vsp: ' | head -1
}

# expect_error WHAT FILE [OFFSET MESSAGE]: both commands fail as they should:
# convert -f vsp on the file alone (a header error comes before "no
# samples"), convert after a valid folded report when the magic survives
# (else the file is rightly not detected as VSP), and info.
expect_error() {
	what=$1 file=$2
	checked=$((checked + 1))
	timeout 10 "$profconv" convert -f vsp -t pprof -o "$out_dir/out.pb.gz" "$file" \
		>/dev/null 2>"$tmp/convert.err"
	status=$?
	[ "$status" -eq 1 ] || fail "$what: convert exited $status, expected 1"
	convert_line=$(error_line "$file" "$tmp/convert.err")
	[ -n "$convert_line" ] || fail "$what: convert gave no located vsp error: $(cat "$tmp/convert.err")"
	out_dir_empty || { fail "$what: convert left files behind: $(ls -A "$out_dir")"; rm -f "$out_dir"/* "$out_dir"/.??*; }
	if [ "$(head -c 4 "$file" | od -An -tx1 | tr -d ' \n')" = 4d504c45 ]; then
		timeout 10 "$profconv" convert -t pprof -o "$out_dir/out.pb.gz" "$tmp/report.folded" \
			"$file" >/dev/null 2>"$tmp/detect.err"
		status=$?
		[ "$status" -eq 1 ] && [ "$(error_line "$file" "$tmp/detect.err")" = "$convert_line" ] ||
			fail "$what: convert after a report: exit $status: $(cat "$tmp/detect.err")"
		out_dir_empty || { fail "$what: convert after a report left files behind"; rm -f "$out_dir"/*; }
	fi
	timeout 10 "$profconv" info -f vsp "$file" >"$tmp/info.out" 2>"$tmp/info.err"
	status=$?
	[ "$status" -eq 1 ] || fail "$what: info exited $status, expected 1"
	[ -s "$tmp/info.out" ] && fail "$what: info printed something before failing"
	info_line=$(error_line "$file" "$tmp/info.err")
	[ "$info_line" = "$convert_line" ] ||
		fail "$what: info and convert disagree: '$info_line' vs '$convert_line'"
	if [ $# -ge 4 ]; then
		case $convert_line in
		"profconv: $file: offset $3: vsp: $4"*) ;;
		*) fail "$what: expected 'offset $3: vsp: $4...', got '$convert_line'" ;;
		esac
	fi
}

gen() { # NAME ARGS...: makes $tmp/NAME.vsp
	name=$1
	shift
	"$vspgen" "$@" "$tmp/$name.vsp" || fail "vspgen failed on $name"
}

gen bad_magic --magic=0x12345678
expect_error "bad magic" "$tmp/bad_magic.vsp" 0x0 \
	"bad magic 78 56 34 12 (expected the bytes 4d 50 4c 45"
gen big_header --header_size=19753
expect_error "header size" "$tmp/big_header.vsp" 0x4 \
	"header size 19753 is not the 19752 bytes of the only VSP header layout known"
gen small_header --header_size=0
expect_error "header size 0" "$tmp/small_header.vsp" 0x4 "header size 0 is not"
gen lone_low --machine_name=PC --poke=2224:00dc
expect_error "lone low surrogate" "$tmp/lone_low.vsp" 0x8b0 \
	"bad UTF-16 in machine_name (the field at 0x8ac): unpaired low surrogate 0xdc00 at character 2"
gen lone_high '--kernel_etl_path=C:\k.etl' --poke=18698:00d8
expect_error "lone high surrogate" "$tmp/lone_high.vsp" 0x490a \
	"bad UTF-16 in kernel_etl_path (the field at 0x4908): unpaired high surrogate 0xd800 at character 1"
gen bad_counter --counter_name_utf16=Cycles --counter_name_utf16=Misses --poke=628:3dd8
expect_error "bad counter name" "$tmp/bad_counter.vsp" 0x274 \
	"bad UTF-16 in counter_name[1] (the field at 0x270): unpaired high surrogate 0xd83d at character 2"
# 0 bytes: refused as "empty input" before any reader runs (pipeline/convert.c)
gen empty --truncate=0
checked=$((checked + 1))
timeout 10 "$profconv" convert -f vsp -t pprof -o "$out_dir/out.pb.gz" "$tmp/empty.vsp" 2>"$tmp/convert.err"
status=$?
[ "$status" -eq 1 ] && [ "$(cat "$tmp/convert.err")" = "profconv: $tmp/empty.vsp: empty input" ] ||
	fail "empty file: exit $status: $(cat "$tmp/convert.err")"
out_dir_empty || { fail "empty file: convert left files behind"; rm -f "$out_dir"/*; }

# A valid pair in the same places is fine (U+1F600).
gen pair --machine_name="PC-$(printf '\360\237\230\200')"
timeout 10 "$profconv" info "$tmp/pair.vsp" | grep -q "machine_name              \"PC-$(printf '\360\237\230\200')\"" ||
	fail "a surrogate pair in machine_name is not decoded"

# Truncation: every field boundary (and one byte into each field), every
# 997th byte, the last byte; through a file and, for some, a pipe.
boundaries="0 1 4 5 8 12 16 20 84 88 104 108 112 116 120 124 128 140 144 148 152 156
160 164 168 172 176 180 184 188 192 196 200 204 208 212 216 220 524 528 544 624 2192
2200 2204 2212 2216 2220 2252 2256 2260 2264 2268 2272 2276 2280 2284 2288 2548 2552
18696 19216 19736 19751"
cuts=$boundaries
cut=0
while [ "$cut" -lt 19752 ]; do
	cuts="$cuts $cut"
	cut=$((cut + 997))
done
ncuts=0
for cut in $cuts; do
	[ "$cut" -eq 0 ] && continue # the empty file above
	head -c "$cut" "$samples/vsperf/session.vsp" >"$tmp/cut.vsp"
	expect_error "cut at $cut" "$tmp/cut.vsp" "$(printf '0x%x' "$cut")" \
		"truncated header: expected 19752 bytes, found $cut (the file ends "
	ncuts=$((ncuts + 1))
done
for cut in 3 7 100 2220 19751; do
	head -c "$cut" "$samples/vsperf/session.vsp" |
		timeout 10 "$profconv" info -f vsp - >/dev/null 2>"$tmp/pipe.err"
	status=$?
	[ "$status" -eq 1 ] || fail "cut at $cut via a pipe: info exit $status"
	grep -q "^profconv: <stdin>: offset $(printf '0x%x' "$cut"): vsp: truncated header" "$tmp/pipe.err" ||
		fail "cut at $cut via a pipe: $(cat "$tmp/pipe.err")"
done

# A failed conversion leaves an existing output untouched.
printf 'precious' >"$out_dir/keep.pb.gz"
timeout 10 "$profconv" convert -o "$out_dir/keep.pb.gz" "$tmp/report.folded" "$tmp/bad_magic.vsp" 2>/dev/null
[ "$(cat "$out_dir/keep.pb.gz")" = precious ] || fail "a failed conversion clobbered its output"
rm -f "$out_dir/keep.pb.gz"

# --- 5. a .vsp without a report before it, and without its ETL files ---
no_report() { # WHAT ARGS...
	what=$1
	shift
	timeout 10 "$profconv" convert -t pprof -o "$out_dir/alone.pb.gz" "$@" 2>"$tmp/alone.err"
	status=$?
	[ "$status" -eq 1 ] || fail "$what: exit $status, expected 1"
	grep -q "^profconv: $samples/vsperf/session.vsp: vsp: a VSP header holds no samples, and none of the ETL files it names was found (beside it, as written, in the current directory; see 'profconv info'): put them beside it, or give the report made from it first" "$tmp/alone.err" ||
		fail "$what: unexpected message: $(cat "$tmp/alone.err")"
	out_dir_empty || { fail "$what: left files behind"; rm -f "$out_dir"/*; }
}
no_report "a .vsp alone" "$samples/vsperf/session.vsp"
no_report "a .vsp before the report" "$samples/vsperf/session.vsp" "$tmp/report.folded"

# --- 6. the metadata in pprof ---
check_raw() { # WHAT PROFILE
	"$pprof" -raw -symbolize=none "$2" >"$tmp/raw.txt" 2>"$tmp/raw.err" ||
		{ fail "$1: pprof -raw failed: $(cat "$tmp/raw.err")"; return; }
	for line in 'PeriodType: cycles count' 'Period: 10000000' \
		'Time: 2024-03-05 14:07:09.25 +0000 UTC' \
		'Comment: VSP collection: sampling (4), cycles every 10000000' \
		'Comment: VSP machine: BUILD-PC-07, 8 CPUs' \
		'Comment: VSP CPU: vendor Intel, architecture x64, family 6 model 158 stepping 10, 3600 MHz' \
		'Comment: VSP OS: Windows NT 10.0 build 19045 (Windows 10 or Server 2016-2022)'; do
		grep -qxF "$line" "$tmp/raw.txt" || fail "$1: pprof -raw lacks '$line'"
	done
}
if [ ! -x "$pprof" ]; then
	echo "SKIPPED (part): the real pprof is missing ($pprof): metadata not checked with pprof"
	skipped_parts="$skipped_parts pprof"
else
	timeout 20 "$profconv" convert -o "$out_dir/folded.pb.gz" "$tmp/report.folded" \
		"$samples/vsperf/session.vsp" || fail "folded + vsp does not convert"
	check_raw "folded + vsp" "$out_dir/folded.pb.gz"
	if "$profconv" formats | grep -q '^vsperf '; then
		{
			printf '%s\r\n' 'Type,Function Name,Inclusive Samples,Exclusive Samples,Inclusive Samples %,Exclusive Samples %,Source File,Function Line Number,Module Name,Module Path,Function Address,Root Function Name,Process Name,Process ID,'
			printf '%s\r\n' '"Root","main",10,4,100.00,40.00,"",0,"app.exe","C:\app.exe",0x00401000,"main","app.exe",42,'
			printf '%s\r\n' '"Callee","work",6,6,60.00,60.00,"",0,"app.exe","C:\app.exe",0x00401100,"main","app.exe",42,'
			printf '%s\r\n' '"Root","work",6,6,60.00,60.00,"",0,"app.exe","C:\app.exe",0x00401100,"work","app.exe",42,'
			printf '%s\r\n' '"Caller","main",6,6,60.00,60.00,"",0,"app.exe","C:\app.exe",0x00401000,"work","app.exe",42,'
		} >"$tmp/report.csv"
		timeout 20 "$profconv" convert -t pprof -o "$out_dir/csv.pb.gz" "$tmp/report.csv" \
			"$samples/vsperf/session.vsp" || fail "CSV + vsp does not convert"
		check_raw "CSV + vsp" "$out_dir/csv.pb.gz"
		grep -qxF 'Comment: converted by profconv 0.1.0 from vsperf, vsp' "$tmp/raw.txt" ||
			grep -q '^Comment: converted by profconv .* from vsperf, vsp$' "$tmp/raw.txt" ||
			fail "CSV + vsp: no 'converted ... from vsperf, vsp' comment"
	else
		echo "SKIPPED (part): no vsperf reader in this build: CSV + vsp not checked"
		skipped_parts="$skipped_parts vsperf"
	fi
fi

# --- 7. memcheck: info, a conversion, failures ---
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIPPED (part): valgrind is missing: no memcheck of the vsp reader"
	skipped_parts="$skipped_parts valgrind"
elif { ldd "$profconv" 2>/dev/null | grep -q libasan; } ||
	{ nm "$profconv" 2>/dev/null | grep -q __asan_init; }; then
	echo "SKIPPED (part): profconv is built with AddressSanitizer, which valgrind cannot run"
	skipped_parts="$skipped_parts valgrind"
else
	vg() {
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
			--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 "$@"
	}
	vg "$profconv" info "$samples/vsperf/session.vsp" >/dev/null || fail "valgrind: info"
	vg "$profconv" convert -q -o "$out_dir/vg.pb.gz" "$tmp/report.folded" \
		"$samples/vsperf/session.vsp" || fail "valgrind: convert"
	rm -f "$out_dir/vg.pb.gz"
	for bad in lone_high bad_counter big_header; do
		vg "$profconv" convert -q -o "$out_dir/vg.pb.gz" "$tmp/report.folded" "$tmp/$bad.vsp" 2>/dev/null
		[ $? -eq 1 ] || fail "valgrind: $bad did not fail cleanly with exit 1"
	done
	vg "$profconv" convert -q -o "$out_dir/vg.pb.gz" "$samples/vsperf/session.vsp" 2>/dev/null
	[ $? -eq 1 ] || fail "valgrind: a .vsp alone did not fail cleanly with exit 1"
fi

echo "vsp: $checked malformed files checked ($ncuts cuts), $failures failures${skipped_parts:+; skipped parts:$skipped_parts}"
[ "$failures" -eq 0 ]
