#!/bin/sh
# tests/e2e/vsperf_xml.sh - Visual Studio XML reports (vsperf-xml) end to
# end, on the hand-written samples/vsperf/calltree.xml (a sampling call
# tree: two processes, 1,535 samples) and samples/vsperf/functions.xml (a
# function summary, 1,484 samples):
#   - detection without --from, as a file and through a pipe, also as
#     UTF-16LE and UTF-16BE with a byte-order mark (and with one byte
#     more: an error at that byte's offset);
#   - `convert -t folded` equals the expected stacks written below by hand;
#   - `-t dump` has the exact totals, labels and facts;
#   - with the real pprof (PPROF): -top totals and flat values, -traces
#     labels;
#   - malformed inputs: an unclosed tag, a bad count, a Level jump, a
#     missing FunctionName, an external entity (whose file must not be
#     read: checked with strace when it is installed), a billion-laughs
#     document, and truncations of calltree.xml (every 5th byte and the
#     last 40 as files, every 97th through a pipe): exit 1, "profconv: FILE:LINE:COL: vsperf-xml: MESSAGE" on
#     stderr and nothing else, no output file; every run under a timeout.
#
# Environment (tests/run.sh): PROFCONV, PPROF, SAMPLES, TMPDIR.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
profconv=${PROFCONV:-$top/build/profconv}
pprof=${PPROF:-$top/build/tools/pprof}
samples=${SAMPLES:-$top/samples}
tmp=${TMPDIR:-/tmp}
tree="$samples/vsperf/calltree.xml"
functions="$samples/vsperf/functions.xml"
out_dir="$tmp/out"
failures=0
checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
[ -f "$tree" ] && [ -f "$functions" ] || skip "samples/vsperf/*.xml are missing"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) is missing"
mkdir -p "$out_dir"

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# same LABEL EXPECTED ACTUAL
same() {
	checked=$((checked + 1))
	cmp -s "$2" "$3" || { fail "$1: output differs:"; diff "$2" "$3" | head -20; }
}

# --- folded stacks, root first, sorted (written by hand from the samples) ---
cat >"$tmp/tree.expected" <<'EOF'
app.exe;main 10
app.exe;main;Räksmörgås::beräkna 90
app.exe;main;Räksmörgås::beräkna;operator&& 200
app.exe;main;parse<std::vector<int> > 1050
app.exe;main;parse<std::vector<int> >;Unknown Frame(s) 150
worker.exe;wmain 5
worker.exe;wmain;main 30
EOF
cat >"$tmp/functions.expected" <<'EOF'
MatrixMultiply.exe;MatrixMultiply.Matrix<double>.op_Multiply 500
MatrixMultiply.exe;MatrixMultiply.Program.FunctionName 881
MatrixMultiply.exe;MatrixMultiply.Program.Main 40
MatrixMultiply.exe;Ωmega.Σum & Co 63
EOF

for name in tree functions; do
	eval "file=\$$name"
	timeout 20 "$profconv" convert -q -t folded -o "$tmp/$name.folded" "$file" ||
		fail "$name: convert failed"
	same "$name (file)" "$tmp/$name.expected" "$tmp/$name.folded"
	timeout 20 "$profconv" convert -q -t folded -o - - <"$file" >"$tmp/$name.pipe.folded" ||
		fail "$name: convert from stdin failed"
	same "$name (stdin)" "$tmp/$name.expected" "$tmp/$name.pipe.folded"
	if command -v iconv >/dev/null 2>&1; then
		for enc in UTF-16LE UTF-16BE; do
			# iconv writes no byte-order mark for these: add it
			{ if [ $enc = UTF-16LE ]; then printf '\377\376'; else printf '\376\377'; fi
			  sed 's/encoding="utf-8"/encoding="UTF-16"/' "$file" | iconv -f UTF-8 -t $enc
			} >"$tmp/$name.$enc.xml"
			timeout 20 "$profconv" convert -q -t folded -o - - <"$tmp/$name.$enc.xml" \
				>"$tmp/$name.$enc.folded" || fail "$name: $enc failed"
			same "$name ($enc)" "$tmp/$name.expected" "$tmp/$name.$enc.folded"
			# one byte more: half a code unit, an error at its offset
			{ cat "$tmp/$name.$enc.xml"; printf '\n'; } >"$tmp/$name.$enc.odd.xml"
			size=$(wc -c <"$tmp/$name.$enc.odd.xml")
			timeout 20 "$profconv" convert -q -t folded -o "$tmp/odd.folded" \
				"$tmp/$name.$enc.odd.xml" 2>"$tmp/odd.err" &&
				fail "$name: $enc with an odd byte count was accepted"
			grep -q "offset $(printf '0x%x' $((size - 1))): vsperf-xml: UTF-16 text of an odd number of bytes" \
				"$tmp/odd.err" || fail "$name: $enc odd bytes: $(head -1 "$tmp/odd.err")"
		done
	fi
done

# --- the dump: totals, labels, facts ---
dump_total() { # FILE: the sum of the samples= values
	awk -F'samples=' '/^sample /{ split($2, v, " "); total += v[1] } END { print total + 0 }' "$1"
}
timeout 20 "$profconv" convert -q -t dump -o "$tmp/tree.dump" "$tree" || fail "tree: dump failed"
checked=$((checked + 1))
[ "$(dump_total "$tmp/tree.dump")" = 1535 ] ||
	fail "tree: dump total $(dump_total "$tmp/tree.dump"), expected 1535"
[ "$(grep -c '^sample ' "$tmp/tree.dump")" = 7 ] || fail "tree: expected 7 samples in the dump"
[ "$(grep -c 'label "pid" = 4242 "pid"' "$tmp/tree.dump")" = 5 ] ||
	fail "tree: expected 5 samples of pid 4242"
[ "$(grep -c 'label "comm" = "worker.exe"' "$tmp/tree.dump")" = 2 ] ||
	fail "tree: expected 2 samples of worker.exe"
grep -q '^fact "vsperf.report" "CallTree"$' "$tmp/tree.dump" || fail "tree: no report fact"
grep -q '^fact "vsperf.flavour" "sampling"$' "$tmp/tree.dump" || fail "tree: no flavour fact"
grep -q '^column 0 "samples" "count" default$' "$tmp/tree.dump" || fail "tree: column"
grep -q 'frame "C:\\\\src\\\\app\\\\Release\\\\app.exe"@0x401200 "parse<std::vector<int> >" "c:\\\\src\\\\app\\\\parse.cpp":40' \
	"$tmp/tree.dump" || fail "tree: parse frame"

timeout 20 "$profconv" convert -q -t dump -o "$tmp/functions.dump" "$functions" ||
	fail "functions: dump failed"
checked=$((checked + 1))
[ "$(dump_total "$tmp/functions.dump")" = 1484 ] ||
	fail "functions: dump total $(dump_total "$tmp/functions.dump"), expected 1484"
grep -q 'samples=881 inclusive_samples=1444' "$tmp/functions.dump" ||
	fail "functions: FunctionName's 881/1,444 samples"
grep -q '^fact "vsperf.report" "Function"$' "$tmp/functions.dump" || fail "functions: fact"

# --- the real pprof ---
if [ -x "$pprof" ]; then
	timeout 20 "$profconv" convert -q -o "$tmp/tree.pb.gz" "$tree" || fail "tree: pprof failed"
	timeout 60 "$pprof" -top -symbolize=none "$tmp/tree.pb.gz" >"$tmp/tree.top" 2>&1 ||
		fail "tree: pprof -top failed"
	checked=$((checked + 1))
	grep -q 'Showing nodes accounting for 1535, 100% of 1535 total' "$tmp/tree.top" ||
		fail "tree: pprof -top total: $(grep Showing "$tmp/tree.top")"
	grep -Eq '^ +1050 +68\.40% +68\.40% +1200 +78\.18%  parse<std::vector<int> >$' \
		"$tmp/tree.top" || fail "tree: pprof -top line of parse"
	grep -Eq '^ +90 +5\.86% .* +290 +18\.89%  Räksmörgås::beräkna\(int &\)$' \
		"$tmp/tree.top" || fail "tree: pprof -top line of beräkna"
	timeout 60 "$pprof" -traces -symbolize=none "$tmp/tree.pb.gz" >"$tmp/tree.traces" 2>&1 ||
		fail "tree: pprof -traces failed"
	[ "$(grep -c 'comm:  worker.exe' "$tmp/tree.traces")" = 2 ] ||
		fail "tree: pprof -traces: expected 2 traces of worker.exe"
	timeout 20 "$profconv" convert -q -o "$tmp/functions.pb.gz" "$functions" ||
		fail "functions: pprof failed"
	timeout 60 "$pprof" -top -symbolize=none "$tmp/functions.pb.gz" >"$tmp/functions.top" 2>&1 ||
		fail "functions: pprof -top failed"
	grep -q 'Showing nodes accounting for 1484, 100% of 1484 total' "$tmp/functions.top" ||
		fail "functions: pprof -top total: $(grep Showing "$tmp/functions.top")"
else
	echo "note: $pprof not built, pprof checks left out"
fi

# --- malformed inputs ---
# bad FILE LABEL MESSAGE [pipe]: exit 1, one located error line, no output.
bad() {
	bad_file=$1 bad_label=$2 bad_message=$3 bad_how=${4:-file}
	if [ "$bad_how" = pipe ]; then
		bad_status=$(cat "$bad_file" | { timeout 20 "$profconv" convert -f vsperf-xml \
			-t pprof -o "$out_dir/out.pb.gz" - 2>"$tmp/err"; echo $?; })
		bad_name='<stdin>'
	else
		timeout 20 "$profconv" convert -t pprof -o "$out_dir/out.pb.gz" "$bad_file" \
			2>"$tmp/err"
		bad_status=$?
		bad_name=$bad_file
	fi
	checked=$((checked + 1))
	[ "$bad_status" -eq 1 ] || { fail "$bad_label: exit $bad_status, expected 1"; return; }
	[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		{ fail "$bad_label: expected one line on stderr:"; cat "$tmp/err"; return; }
	grep -q "^profconv: $bad_name:[0-9][0-9]*:[0-9][0-9]*: vsperf-xml: $bad_message" "$tmp/err" ||
		{ fail "$bad_label: $(cat "$tmp/err")"; return; }
	[ -z "$(ls -A "$out_dir")" ] ||
		{ fail "$bad_label: left $(ls "$out_dir")"; rm -f "$out_dir"/*; }
}

decl='<?xml version="1.0" encoding="utf-8"?>'
doc() { # NAME ROWS...: a call tree document with these CallTree lines
	name=$1
	shift
	{ echo "$decl"; echo '<PerformanceReport>'; echo '  <CallTreeSummary>'
	  printf '%s\n' "$@"; echo '  </CallTreeSummary>'; echo '</PerformanceReport>'
	} >"$tmp/$name.xml"
}

doc unclosed '    <CallTree FunctionName="a" InclSamples="1" ExclSamples="1" Level="1">'
bad "$tmp/unclosed.xml" "unclosed tag" \
	"malformed XML: Opening and ending tag mismatch: CallTree line 4 and CallTreeSummary$"
grep -q ':5:21: ' "$tmp/err" || fail "unclosed tag: not at 5:21: $(cat "$tmp/err")"

doc badcount '    <CallTree FunctionName="a" InclSamples="1,44" ExclSamples="1" Level="1"/>'
bad "$tmp/badcount.xml" "bad count" \
	'attribute InclSamples: expected a count (digits, maybe grouped as in 1,444), found "1,44"$'
grep -q ':4:32: ' "$tmp/err" || fail "bad count: not at 4:32: $(cat "$tmp/err")"
bad "$tmp/badcount.xml" "bad count (pipe)" 'attribute InclSamples: ' pipe

doc jump '    <CallTree FunctionName="a" InclSamples="2" ExclSamples="1" Level="1"/>' \
	'    <CallTree FunctionName="b" InclSamples="1" ExclSamples="1" Level="3"/>'
bad "$tmp/jump.xml" "Level jump" \
	'Level 3 skips a level: the row before is at Level 1 (expected at most Level 2)$'
grep -q ':5:5: ' "$tmp/err" || fail "Level jump: not at 5:5: $(cat "$tmp/err")"

doc noname '    <CallTree FunctionName="a" InclSamples="2" ExclSamples="1" Level="1"/>' \
	'    <CallTree InclSamples="1" ExclSamples="1" Level="2"/>'
bad "$tmp/noname.xml" "missing FunctionName" \
	'expected a FunctionName attribute in <CallTree>, found none$'
grep -q ':5:5: ' "$tmp/err" || fail "missing FunctionName: not at 5:5: $(cat "$tmp/err")"

secret="$tmp/secret.txt"
echo "SECRET-8d1c" >"$secret"
{ echo "$decl"; echo "<!DOCTYPE PerformanceReport [<!ENTITY e SYSTEM \"file://$secret\">]>"
  echo '<PerformanceReport><CallTreeSummary>'
  echo '<CallTree FunctionName="&e;" InclSamples="1" ExclSamples="1" Level="1"/>'
  echo '</CallTreeSummary></PerformanceReport>'; } >"$tmp/entity.xml"
bad "$tmp/entity.xml" "external entity" "malformed XML: Entity 'e' not defined$"
grep -q ':4:28: ' "$tmp/err" || fail "external entity: not at 4:28: $(cat "$tmp/err")"
if command -v strace >/dev/null 2>&1 &&
	strace -f -o "$tmp/strace" -e trace=open,openat,connect true 2>/dev/null; then
	strace -f -o "$tmp/strace" -e trace=open,openat,connect \
		"$profconv" convert -t pprof -o "$out_dir/out.pb.gz" "$tmp/entity.xml" 2>/dev/null
	checked=$((checked + 1))
	! grep -q "secret.txt" "$tmp/strace" || fail "external entity: the file was opened"
	! grep -q "connect(" "$tmp/strace" || fail "external entity: a connection was made"
else
	echo "note: strace is missing or not allowed: the open(2) check is left out"
fi
# nor through the external subset or a parameter entity
{ echo "<!ATTLIST CallTree FunctionName CDATA \"SECRET-8d1c\">"; } >"$tmp/evil.dtd"
{ echo "$decl"; echo "<!DOCTYPE PerformanceReport SYSTEM \"$tmp/evil.dtd\">"
  echo '<PerformanceReport><CallTreeSummary>'
  echo '<CallTree InclSamples="1" ExclSamples="1" Level="1"/>'
  echo '</CallTreeSummary></PerformanceReport>'; } >"$tmp/subset.xml"
bad "$tmp/subset.xml" "external subset" 'expected a FunctionName attribute in <CallTree>, found none$'
{ echo "$decl"; echo "<!DOCTYPE PerformanceReport [<!ENTITY % pe SYSTEM \"$tmp/evil.dtd\"> %pe;]>"
  echo '<PerformanceReport><CallTreeSummary>'
  echo '<CallTree InclSamples="1" ExclSamples="1" Level="1"/>'
  echo '</CallTreeSummary></PerformanceReport>'; } >"$tmp/pe.xml"
bad "$tmp/pe.xml" "parameter entity" 'malformed XML: PEReference: %pe; not found$'

{ echo "$decl"; echo '<!DOCTYPE PerformanceReport ['; echo '<!ENTITY lol "lol">'
  prev=lol
  for i in 1 2 3 4 5 6 7 8 9; do
	printf '<!ENTITY lol%s "' $i
	for k in 1 2 3 4 5 6 7 8 9 10; do printf '&%s;' $prev; done
	echo '">'
	prev=lol$i
  done
  echo ']>'
  echo '<PerformanceReport><CallTreeSummary>'
  echo '<CallTree FunctionName="&lol9;" InclSamples="1" ExclSamples="1" Level="1"/>'
  echo '</CallTreeSummary><Text>&lol9;</Text></PerformanceReport>'; } >"$tmp/laughs.xml"
bad "$tmp/laughs.xml" "billion laughs" "malformed XML: Entity 'lol9' not defined$"

doc wrongroot
sed 's/PerformanceReport/Report/g' "$tmp/wrongroot.xml" >"$tmp/wrongroot2.xml"
bad "$tmp/wrongroot2.xml" "wrong root" 'expected the root element <PerformanceReport> of a Visual Studio report, found <Report>$'

# truncations of calltree.xml (the unit test cuts at every byte): every 5th
# byte and each of the last 40 as files; every 97th also through a pipe;
# the cut at 0 (0 bytes) is "empty input", refused before the reader runs
size=$(wc -c <"$tree")
cut=0
while [ "$cut" -lt "$size" ]; do
	if [ $((cut % 5)) -ne 0 ] && [ "$cut" -lt $((size - 40)) ]; then
		cut=$((cut + 1))
		continue
	fi
	head -c "$cut" "$tree" >"$tmp/cut.xml"
	if [ "$cut" -eq 0 ]; then
		# 0 bytes: refused before any reader runs (pipeline/convert.c)
		timeout 20 "$profconv" convert -f vsperf-xml -t pprof -o "$out_dir/out.pb.gz" \
			"$tmp/cut.xml" 2>"$tmp/err"
		status=$?
		checked=$((checked + 1))
		[ "$status" -eq 1 ] && [ "$(cat "$tmp/err")" = "profconv: $tmp/cut.xml: empty input" ] &&
			[ -z "$(ls -A "$out_dir")" ] || fail "cut at 0: exit $status: $(cat "$tmp/err")"
	elif [ "$cut" -eq $((size - 1)) ]; then
		# only the final newline is gone: still a whole document
		timeout 20 "$profconv" convert -q -f vsperf-xml -t folded -o - "$tmp/cut.xml" \
			>"$tmp/cut.folded" || fail "cut $cut: convert failed"
		same "cut $cut" "$tmp/tree.expected" "$tmp/cut.folded"
	else
		timeout 20 "$profconv" convert -f vsperf-xml -t pprof -o "$out_dir/out.pb.gz" \
			"$tmp/cut.xml" 2>"$tmp/err"
		status=$?
		checked=$((checked + 1))
		if [ "$status" -ne 1 ] ||
			! grep -q "^profconv: $tmp/cut.xml:[0-9]*:[0-9]*: vsperf-xml: " "$tmp/err" ||
			[ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -n "$(ls -A "$out_dir")" ]; then
			fail "cut at $cut: exit $status: $(cat "$tmp/err")"
			rm -f "$out_dir"/*
		fi
		[ $((cut % 97)) -eq 0 ] && bad "$tmp/cut.xml" "cut at $cut (pipe)" "" pipe
	fi
	cut=$((cut + 1))
done

echo "vsperf_xml: $checked checks, $failures failures"
[ "$failures" -eq 0 ]
