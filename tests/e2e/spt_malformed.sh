#!/bin/sh
# tests/e2e/spt_malformed.sh - malformed SPT input gives a clear, located
# error and never an output file.
#
# For each malformation class (made at test time with sptgen's `header`,
# `layout`, `segment length=` and `raw` directives) and for every
# truncation point of a small valid file:
#   - `profconv convert -f spt -t pprof -o OUT FILE` exits 1, its stderr
#     has "profconv: FILE: offset 0x...: spt: ", and the output directory
#     stays empty (no output, no temporary file);
#   - `profconv info -f spt FILE` exits 1 with the same error line.
# (-f spt: a file too short or too damaged to carry the signature is not
# detected as SPT at all, which is right; here the reader is under test.
# Files whose signature survives are also converted without -f.)
# A file of 0 bytes is "profconv: FILE: empty input" (before any reader).
# A cut exactly at the start of the events or of a segment leaves a valid,
# shorter file: there convert must succeed. Truncations are also fed
# through a pipe (size unknown: the reader finds the end by running out).
# Every run has a timeout, so a hang fails the test.
#
# Environment (tests/run.sh): PROFCONV, BUILD, TMPDIR. Exit 0 pass, 77 skip.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
sptgen="$build/tools/sptgen"
profconv=${PROFCONV:-$build/profconv}
tmp=${TMPDIR:-/tmp}
out_dir="$tmp/out"
failures=0
checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
[ -x "$sptgen" ] || skip "sptgen is not built ($sptgen)"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) is missing"
mkdir -p "$out_dir"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# gen NAME LINE...: writes the spec lines to NAME.sptspec, makes NAME.spt.
gen() {
	name=$1
	shift
	printf '%s\n' "$@" >"$tmp/$name.sptspec"
	"$sptgen" "$tmp/$name.sptspec" "$tmp/$name.spt" ||
		{ fail "sptgen failed on $name"; return 1; }
}

# The small valid file every malformation starts from.
BASE_TABLES='layout strtab_capacity=16 progid_capacity=2
program {6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} 0x1a demo.exe'
BASE_EVENTS='segment 0
repeat 2
ip unhalt_cycle 0x10 0x20
lbr 0x30->0x40 0x50->0x60
segment 0
callstack 0x100 0x200 0x300
ip etw_instr 0x10'

# error_line FILE STDERR: the line "profconv: FILE: offset 0x..: spt: ...".
error_line() {
	grep -E '^profconv: .*: offset 0x[0-9a-f]+: spt: ' "$2" | grep -F "profconv: $1: offset 0x" | head -1
}

out_dir_empty() {
	[ -z "$(ls -A "$out_dir")" ]
}

# expect_error WHAT FILE [convert-only]: both commands fail as described.
expect_error() {
	what=$1 file=$2 mode=${3:-both}
	checked=$((checked + 1))
	timeout 10 "$profconv" convert -f spt -t pprof -o "$out_dir/out.pb.gz" "$file" \
		>/dev/null 2>"$tmp/convert.err"
	status=$?
	[ "$status" -eq 1 ] || { fail "$what: convert exited $status, expected 1"; cat "$tmp/convert.err"; }
	convert_line=$(error_line "$file" "$tmp/convert.err")
	[ -n "$convert_line" ] || { fail "$what: convert gave no located spt error:"; cat "$tmp/convert.err"; }
	out_dir_empty || { fail "$what: convert left files behind: $(ls -A "$out_dir")"; rm -f "$out_dir"/* "$out_dir"/.??*; }
	if [ "$(head -c 4 "$file" | od -An -tx1 | tr -d ' \n')" = 3a545053 ] &&
		[ "$(wc -c <"$file")" -ge 8 ]; then
		timeout 10 "$profconv" convert -t pprof -o "$out_dir/out.pb.gz" "$file" \
			>/dev/null 2>"$tmp/detect.err"
		status=$?
		[ "$status" -eq 1 ] && [ -n "$(error_line "$file" "$tmp/detect.err")" ] ||
			fail "$what: convert without -f: exit $status: $(cat "$tmp/detect.err")"
		out_dir_empty || { fail "$what: convert without -f left files behind"; rm -f "$out_dir"/*; }
	fi
	[ "$mode" = both ] || return 0
	timeout 10 "$profconv" info -f spt "$file" >/dev/null 2>"$tmp/info.err"
	status=$?
	[ "$status" -eq 1 ] || { fail "$what: info exited $status, expected 1"; cat "$tmp/info.err"; }
	info_line=$(error_line "$file" "$tmp/info.err")
	[ "$info_line" = "$convert_line" ] ||
		fail "$what: info and convert disagree: '$info_line' vs '$convert_line'"
}

# expect_message WHAT TEXT: the last convert error mentions TEXT.
expect_message() {
	grep -F -q -- "$2" "$tmp/convert.err" || fail "$1: message lacks '$2': $(cat "$tmp/convert.err")"
}

malformed() { # NAME MESSAGE-PART SPEC-LINES...
	name=$1 message=$2
	shift 2
	gen "$name" "$@" || return
	expect_error "$name" "$tmp/$name.spt"
	expect_message "$name" "$message"
}

# --- the valid base file converts and has no warnings ---
gen base "$BASE_TABLES" "$BASE_EVENTS" || exit 1
timeout 10 "$profconv" convert -t pprof -o "$out_dir/base.pb.gz" "$tmp/base.spt" 2>"$tmp/base.err" ||
	{ echo "FAIL: the valid base file does not convert:"; cat "$tmp/base.err"; exit 1; }
rm -f "$out_dir/base.pb.gz"

# --- one file per malformation class ---
head -c 20 "$tmp/base.spt" >"$tmp/short_header.spt"
expect_error short_header "$tmp/short_header.spt"
expect_message short_header "truncated header: expected 32 bytes, found 20"
# 0 bytes: refused before any reader runs (pipeline/convert.c), by name and
# through a pipe, as "profconv: NAME: empty input"
: >"$tmp/empty.spt"
for how in file pipe; do
	checked=$((checked + 1))
	if [ "$how" = pipe ]; then
		timeout 10 "$profconv" convert -f spt -t pprof -o "$out_dir/out.pb.gz" - \
			<"$tmp/empty.spt" 2>"$tmp/empty.err"
		status=$? name='<stdin>'
	else
		timeout 10 "$profconv" convert -f spt -t pprof -o "$out_dir/out.pb.gz" \
			"$tmp/empty.spt" 2>"$tmp/empty.err"
		status=$? name=$tmp/empty.spt
	fi
	[ "$status" -eq 1 ] && [ "$(cat "$tmp/empty.err")" = "profconv: $name: empty input" ] ||
		fail "empty ($how): exit $status: $(cat "$tmp/empty.err")"
	out_dir_empty || { fail "empty ($how): left files"; rm -f "$out_dir"/*; }
done

malformed bad_signature "bad signature 78 56 34 12" \
	"header signature=0x12345678" "$BASE_TABLES" "$BASE_EVENTS"
malformed bad_version "unsupported version 2 (expected 1)" \
	"header version=2" "$BASE_TABLES" "$BASE_EVENTS"
malformed strtab_overlaps_header "overlaps the header" \
	"header strtab_offset=0x10" "$BASE_TABLES" "$BASE_EVENTS"
malformed strtab_offset_past_end "string table offset 0x7fffffff is past the end" \
	"header strtab_offset=0x7fffffff" "$BASE_TABLES" "$BASE_EVENTS"
malformed strtab_capacity_past_end "string table capacity 0xffff" \
	"header strtab_capacity=0xffff" "$BASE_TABLES" "$BASE_EVENTS"
malformed strtab_used_over_capacity "exceeds its capacity" \
	"header strtab_used=17" "$BASE_TABLES" "$BASE_EVENTS"
malformed progid_inside_strtab "is inside the string table" \
	"header progid_offset=0x21" "$BASE_TABLES" "$BASE_EVENTS"
malformed progid_offset_past_end "program-id table offset 0x7fffffff is past the end" \
	"header progid_offset=0x7fffffff" "$BASE_TABLES" "$BASE_EVENTS"
malformed progid_capacity_past_end "program-id table of capacity 65535" \
	"header progid_capacity=0xffff" "$BASE_TABLES" "$BASE_EVENTS"
malformed progids_used_over_capacity "program ids used 3 exceeds the capacity 2" \
	"header progids_used=3" "$BASE_TABLES" "$BASE_EVENTS"
malformed string_index_out_of_range "string index 0x0 is out of range" \
	"header strtab_used=0" "$BASE_TABLES" "$BASE_EVENTS"
malformed unterminated_name "is not NUL-terminated" \
	"header strtab_used=8" "$BASE_TABLES" "$BASE_EVENTS"
malformed progid_out_of_range "program id 5 is out of range" \
	"$BASE_TABLES" "segment 5" "ip unhalt_cycle 0x10"
malformed segment_too_short "segment length 2 is too small" \
	"$BASE_TABLES" "segment 0 length=2"
malformed segment_past_end "past the end of the file" \
	"$BASE_TABLES" "segment 0 length=1000" "ip unhalt_cycle 0x10"
malformed unknown_opcode "unknown opcode 0x77 (expected a record opcode: 0x01-0x05, 0x10, 0x41, 0x42, 0x81, 0x82)" \
	"$BASE_TABLES" "segment 0" "ip unhalt_cycle 0x10" "raw 77 00"
malformed record_past_segment "crosses the end of its segment" \
	"$BASE_TABLES" "segment 0 length=10" "ip unhalt_cycle 0x10 0x20"
malformed truncated_record "UNHALT_CYCLE record of 22 bytes crosses the end" \
	"$BASE_TABLES" "segment 0" "raw 01 05 10 00 00 00"
malformed data_before_segment "before any BINARY_ID" \
	"$BASE_TABLES" "ip unhalt_cycle 0x10"
malformed nested_segment "BINARY_ID record inside the segment" \
	"$BASE_TABLES" "segment 0 length=20" "segment 0 length=4" "raw 0000000000000000"
malformed repeat_max "count overflow" \
	"$BASE_TABLES" "segment 0" "repeat 0xffffffffffffffff" "ip unhalt_cycle 0x10"
malformed repeat_int64_max "count overflow" \
	"$BASE_TABLES" "segment 0" "repeat 0x7fffffffffffffff" "ip unhalt_cycle 0x10"

# A sum past INT64_MAX: only convert adds counts up (info lists records).
gen sum_overflow "$BASE_TABLES" "segment 0" "repeat 0x4000000000000000" \
	"ip unhalt_cycle 0x10" "repeat 0x4000000000000000" "ip unhalt_cycle 0x10" &&
	expect_error sum_overflow "$tmp/sum_overflow.spt" convert-only &&
	expect_message sum_overflow "count overflow"

# A failed conversion leaves an existing output untouched.
printf 'precious' >"$out_dir/keep.pb.gz"
timeout 10 "$profconv" convert -t pprof -o "$out_dir/keep.pb.gz" "$tmp/unknown_opcode.spt" 2>/dev/null
[ "$(cat "$out_dir/keep.pb.gz")" = precious ] || fail "a failed conversion clobbered its output"
[ "$(ls -A "$out_dir")" = keep.pb.gz ] || fail "a failed conversion left files: $(ls -A "$out_dir")"
rm -f "$out_dir/keep.pb.gz"

# --- every truncation point of the base file ---
size=$(wc -c <"$tmp/base.spt")
# Valid cuts: the start of the events and of every segment.
valid_cuts=" $(timeout 10 "$profconv" info --all "$tmp/base.spt" | awk '
	$1 == "event_stream_offset" { print $2 }
	$2 == "BINARY_ID" { print $1 }' | while read -r hex; do printf '%d ' "$((hex))"; done)"
case $valid_cuts in
*[0-9]" "*[0-9]" "*[0-9]*) ;;
*) fail "could not find the segment boundaries of base.spt: '$valid_cuts'" ;;
esac

cut=1 # 0 bytes: the empty file above
while [ "$cut" -lt "$size" ]; do
	head -c "$cut" "$tmp/base.spt" >"$tmp/cut.spt"
	case $valid_cuts in
	*" $cut "*)
		timeout 10 "$profconv" convert -t pprof -o "$out_dir/cut.pb.gz" "$tmp/cut.spt" 2>"$tmp/cut.err" &&
			[ -f "$out_dir/cut.pb.gz" ] ||
			{ fail "cut at $cut (a segment boundary) does not convert: $(cat "$tmp/cut.err")"; }
		rm -f "$out_dir/cut.pb.gz"
		;;
	*)
		expect_error "cut at $cut" "$tmp/cut.spt"
		# through a pipe, where the size is unknown
		timeout 10 "$profconv" convert -f spt -t pprof -o "$out_dir/pipe.pb.gz" - \
			<"$tmp/cut.spt" >/dev/null 2>"$tmp/pipe.err"
		status=$?
		[ "$status" -eq 1 ] || fail "cut at $cut via a pipe: exit $status, expected 1"
		grep -E -q '^profconv: <stdin>: offset 0x[0-9a-f]+: spt: ' "$tmp/pipe.err" ||
			fail "cut at $cut via a pipe: no located error: $(cat "$tmp/pipe.err")"
		out_dir_empty || { fail "cut at $cut via a pipe left files"; rm -f "$out_dir"/*; }
		;;
	esac
	cut=$((cut + 1))
done

echo "spt_malformed: $checked malformed files checked, $size truncation points, $failures failures"
[ "$failures" -eq 0 ]
