# tests/e2e/lib/malformed.sh - what the malformed-input tests of binary
# formats share (sourced by tests/e2e/perf_data_malformed.sh and
# etl_malformed.sh). The caller sets format (the reader's name), profconv,
# tmp, out_dir and checked, and defines fail.

# error_line WHO STDERR: the one line "profconv: WHO: offset 0x..: FORMAT: ...".
error_line() {
	grep -E "^profconv: .*: offset 0x[0-9a-f]+: $format: " "$2" | grep -F "profconv: $1: offset 0x" | head -1
}

# offset_of LINE: the error line's offset in decimal (999999999999999 when it has 16 or more
# hex digits), or -1 without one.
offset_of() {
	hex=$(printf '%s\n' "$1" | sed -n "s/^.*: offset 0x\\([0-9a-f]*\\): $format: .*\$/\\1/p")
	case $hex in
	"") echo -1 ;;
	????????????????*) echo 999999999999999 ;;
	*) printf '%d\n' "0x$hex" ;;
	esac
}

out_dir_empty() {
	[ -z "$(ls -A "$out_dir")" ]
}

clean_out_dir() {
	rm -rf "$out_dir"
	mkdir -p "$out_dir"
}

# run_cmd HOW FILE STDERR CMD...: runs profconv CMD on FILE by path or from standard input.
run_cmd() {
	how=$1 file=$2 err=$3
	shift 3
	if [ "$how" = stdin ]; then
		cat "$file" | timeout 10 "$profconv" "$@" - >/dev/null 2>"$err"
	else
		timeout 10 "$profconv" "$@" "$file" >/dev/null 2>"$err"
	fi
}

# has_words WHAT LINE MESSAGE WORDS: each |-separated word is in MESSAGE.
has_words() {
	old_ifs=$IFS
	IFS='|'
	for word in $4; do
		case $3 in
		*"$word"*) ;;
		*) fail "$1: the message lacks '$word': $2" ;;
		esac
	done
	IFS=$old_ifs
}

# expect_error WHAT FILE HOW OFFSET WORDS: convert and info fail as described: one located
# line (at OFFSET, or anywhere within the input for "*") with each of WORDS, no output left.
expect_error() {
	what=$1 file=$2 how=$3 offset=$4 words=$5
	who=$file
	[ "$how" = stdin ] && who="<stdin>"
	in_size=$(wc -c <"$file")
	checked=$((checked + 1))
	run_cmd "$how" "$file" "$tmp/convert.err" convert -f "$format" -t folded -o "$out_dir/out.folded"
	status=$?
	[ "$status" -eq 1 ] || fail "$what: convert exited $status, expected 1: $(head -3 "$tmp/convert.err")"
	convert_line=$(error_line "$who" "$tmp/convert.err")
	if [ -z "$convert_line" ]; then
		fail "$what: convert gave no located $format error: $(head -3 "$tmp/convert.err")"
	else
		[ "$(wc -l <"$tmp/convert.err")" -eq 1 ] ||
			fail "$what: convert printed $(wc -l <"$tmp/convert.err") lines, expected one: $(cat "$tmp/convert.err")"
		at=$(offset_of "$convert_line")
		if [ "$at" -lt 0 ] || [ "$at" -gt "$in_size" ]; then
			fail "$what: the error's offset is not within the $in_size bytes of the input: $convert_line"
		elif [ "$offset" != "*" ] && [ "$at" -ne "$offset" ]; then
			fail "$what: the error is at offset $at, expected $offset: $convert_line"
		fi
		has_words "$what" "$convert_line" "${convert_line#*: $format: }" "$words"
	fi
	out_dir_empty || { fail "$what: convert left files behind: $(ls -A "$out_dir")"; clean_out_dir; }
	run_cmd "$how" "$file" "$tmp/info.err" info -f "$format"
	status=$?
	[ "$status" -eq 1 ] || fail "$what: info exited $status, expected 1: $(head -3 "$tmp/info.err")"
	info_line=$(error_line "$who" "$tmp/info.err")
	[ "$info_line" = "$convert_line" ] ||
		fail "$what: info and convert disagree: info '$info_line', convert '$convert_line'"
}
