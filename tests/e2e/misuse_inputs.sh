#!/bin/sh
# tests/e2e/misuse_inputs.sh - inputs a new user gets wrong, and the ones
# of issue 20 that profconv got wrong, through the command line:
#
#   1. a 0-byte input, by name and from standard input, detected and with
#      -f FMT for every reader: exit 1, the one line "profconv: NAME: empty
#      input", no output file (decided before detection, for every reader);
#      `info` the same, detected and with -f FMT, and nothing on stdout;
#   2. a well-formed input without samples, for every format (perf script
#      text of comment lines only, a folded file of blank lines, an SPT
#      trace without records, a Visual Studio CSV report of its header
#      alone and an XML report with an empty summary, a Sampler trace
#      without records, a pprof profile without samples (with a location
#      no sample uses), a perf.data and
#      an ETL trace (alone and in a .diagsession) without samples): exit 0
#      and exactly one warning ("no samples in the input", or the reader's
#      own more specific one); every writer that `profconv formats` lists
#      then writes a valid empty output (pprof read by the real pprof,
#      JSON that parses, an SVG that parses, an empty folded file, a
#      Sampler trace and an SPT trace that read back, a report), but for
#      the AutoFDO writers (one binary's samples), which fail with one line
#      of their own and leave no output;
#   3. folded input counts samples (folded -> Sampler needs no --event),
#      and merged with perf script text, in either order, its counts join
#      perf's samples column: one column, which `report` names in its
#      header and whose total holds both inputs;
#   4. Visual Studio reports: --skip-bad skips unparseable rows (a counted
#      warning, --strict the located error), times such as 12.5 are read
#      (rounded, warned); the VSP magic as the seed's decimal 1162561869
#      (bytes "MIKE") reads, and a bad magic names each accepted value
#      with its correct decimal;
#   5. Sampler -> Sampler keeps the input's symbol ids, unknown fields and
#      thread ids, and is byte for byte the same once in the writer's form.
#
# Environment (tests/run.sh): PROFCONV, PPROF, BUILD, SAMPLES, SHARED, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
profconv=${PROFCONV:-$build/profconv}
pprof=${PPROF:-$top/build/tools/pprof}
samples=${SAMPLES:-$top/samples}
seeds=$top/tests/fuzz/seeds
tmp=${TMPDIR:-/tmp}
out_dir=$tmp/out
failures=0
checked=0

skip() {
	echo "SKIPPED: $*"
	exit 77
}
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
[ -x "$profconv" ] || skip "profconv is not built ($profconv)"
[ -x "$pprof" ] || skip "pprof is not built ($pprof); run: make build/tools/pprof"
[ -x "$build/tools/sptgen" ] && [ -x "$build/tools/vspgen" ] ||
	skip "sptgen and vspgen are not built ($build/tools)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
export HOME="$tmp" PPROF_TMPDIR="$tmp" PPROF_BINARY_PATH="$tmp/no-binaries" LC_ALL=C
mkdir -p "$out_dir"

readers="spt perf-script perf-data etl diagsession folded sampler vsperf vsperf-xml vsp pprof"
writers=$("$profconv" formats | awk '$2 == "write" && $1 ~ /^[a-z][a-z0-9-]*$/ { print $1 }')
[ "$(echo "$writers" | wc -w)" -ge 13 ] || fail "'profconv formats' lists too few writers: $writers"
for name in $("$profconv" formats | awk '$2 == "read" && $1 ~ /^[a-z][a-z0-9-]*$/ { print $1 }'); do
	case " $readers " in
	*" $name "*) ;;
	*) fail "reader $name is not checked here: add it to \$readers" ;;
	esac
done

# --- 1. 0-byte inputs ---

# empty_refused LABEL STDIN_FILE ARGS...: exit 1, the one line "profconv:
# NAME: empty input" (NAME the last argument, <stdin> for "-"), no output.
empty_refused() {
	label=$1 stdin=$2
	shift 2
	for last; do :; done
	name=$last
	[ "$name" = - ] && name='<stdin>'
	"$profconv" "$@" <"$stdin" >"$tmp/stdout" 2>"$tmp/err"
	status=$?
	checked=$((checked + 1))
	[ "$status" -eq 1 ] || fail "$label: exit $status, expected 1"
	[ "$(cat "$tmp/err")" = "profconv: $name: empty input" ] ||
		fail "$label: stderr is not 'profconv: $name: empty input': $(cat "$tmp/err")"
	[ -z "$(ls -A "$out_dir")" ] || { fail "$label: left $(ls "$out_dir")"; rm -f "$out_dir"/*; }
}

: >"$tmp/empty"
: >"$tmp/empty.folded"
for reader in $readers; do
	empty_refused "-f $reader file" /dev/null convert -f "$reader" -t dump \
		-o "$out_dir/out.dump" "$tmp/empty"
	empty_refused "-f $reader stdin" "$tmp/empty" convert -f "$reader" -t dump \
		-o "$out_dir/out.dump" -
done
empty_refused "detected file" /dev/null convert -o "$out_dir/out.pb.gz" "$tmp/empty"
empty_refused "detected stdin" "$tmp/empty" convert -o "$out_dir/out.pb.gz" -
empty_refused "named .folded" /dev/null convert -o "$out_dir/out.pb.gz" "$tmp/empty.folded"
empty_refused "report" /dev/null report "$tmp/empty"
empty_refused "second input" /dev/null convert -o "$out_dir/out.pb.gz" \
	"$samples/folded/recursive.folded" "$tmp/empty"
empty_refused "info detected" /dev/null info "$tmp/empty"
empty_refused "info stdin" "$tmp/empty" info -
for reader in spt etl perf-data pprof vsp perf-script; do
	empty_refused "info -f $reader" /dev/null info -f "$reader" "$tmp/empty"
	[ ! -s "$tmp/stdout" ] || fail "info -f $reader of an empty input printed: $(head -3 "$tmp/stdout")"
done

# --- 2. inputs without samples ---

printf '# ========\n# captured on    : Thu Jan  1 00:00:00 2025\n# ========\n#\n' \
	>"$tmp/comments.perf.txt"
printf '\n  \n\t\n' >"$tmp/blank.folded"
printf 'program {6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} 0x1a demo.exe\n' >"$tmp/none.sptspec"
"$build/tools/sptgen" "$tmp/none.sptspec" "$tmp/none.spt" || fail "sptgen failed"
head -1 "$samples/vsperf/cc_multiprocess.csv" >"$tmp/header.csv"
printf '<?xml version="1.0" encoding="utf-8"?>\n<PerformanceReport>\n  <CallTreeSummary>\n  </CallTreeSummary>\n</PerformanceReport>\n' \
	>"$tmp/none.xml"
printf '@supersamplerV1.0\n@symboltableV1.1\n@end\n' >"$tmp/none.trace"
python3 - "$tmp" "$seeds" <<'PY' || fail "making the inputs without samples failed"
import os, subprocess, sys, zipfile
tmp, seeds = sys.argv[1], sys.argv[2]
sys.path.insert(0, seeds)
import perf_data_seeds as ms

def varint(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out

def field(number, data):
    return bytes([number << 3 | 2]) + varint(len(data)) + data

# pprof: a sample type, a function and a location that no sample uses, no sample
profile = (field(1, b"\x08\x01\x10\x02") + field(5, b"\x08\x01\x10\x03") +
           field(4, b"\x08\x01" + field(4, b"\x08\x01")))
for s in (b"", b"samples", b"count", b"main"):
    profile += field(6, s)
open(os.path.join(tmp, "none.pb"), "wb").write(profile)
# perf.data: maps and a comm, no sample
e = ms.Enc(False)
attrs = ms.two_events()
data, _ = ms.file_mode(e, attrs, ms.base_records(e, attrs, rest=False),
                       ms.base_features(e, attrs))
open(os.path.join(tmp, "none.data"), "wb").write(data)
# ETL: rundown only; and in a .diagsession
etl = os.path.join(tmp, "none.etl")
subprocess.run([sys.executable, os.path.join(seeds, "etl_seeds.py"), "trace", "nosamples",
                etl, os.path.join(tmp, "none.expected")], check=True, stdout=subprocess.DEVNULL)
prefix = "{5A1E3E1B-0C5A-4E52-9E1D-1B2C3D4E5F60}"
meta = ('<?xml version="1.0" encoding="utf-8"?><DiagnosticsHubPackage Version="1.0"><Resources>'
        '<Resource Id="r0" Type="DiagnosticsHub.Resource.EtlFile" Name="sc.etl" '
        'ResourcePackageUriPrefix="%s"/></Resources></DiagnosticsHubPackage>' % prefix)
with zipfile.ZipFile(os.path.join(tmp, "none.diagsession"), "w") as z:
    z.writestr("metadata.xml", meta)
    z.write(etl, prefix + "/sc.etl")
PY

# no_samples LABEL FILE [READER]: exit 0, one warning about the missing
# samples and no other; then every writer.
no_samples() {
	label=$1 file=$2
	from=
	[ -n "${3:-}" ] && from="-f $3"
	# shellcheck disable=SC2086
	"$profconv" convert $from -t dump -o "$out_dir/out.dump" "$file" 2>"$tmp/err"
	status=$?
	checked=$((checked + 1))
	[ "$status" -eq 0 ] || { fail "$label: exit $status: $(cat "$tmp/err")"; return; }
	[ "$(grep -c '^profconv: warning: ' "$tmp/err")" -eq 1 ] &&
		grep -Eq '^profconv: warning: [a-z-]+: no (CPU )?samples' "$tmp/err" ||
		fail "$label: not exactly one no-samples warning: $(cat "$tmp/err")"
	grep -q '^sample' "$out_dir/out.dump" && fail "$label: the dump has samples"
	rm -f "$out_dir"/*
	for writer in $writers; do
		# shellcheck disable=SC2086
		empty_output "$label" "$writer" $from "$file"
	done
}

# empty_output LABEL WRITER ARGS...: a valid empty output; the AutoFDO
# writers, whose files describe one binary's samples, may instead exit 1
# with one line of the format's own and no output left.
empty_output() {
	label="$1 -> $2" writer=$2
	shift 2
	out=$out_dir/out.$writer
	"$profconv" convert -q -t "$writer" -o "$out" "$@" 2>"$tmp/err"
	status=$?
	checked=$((checked + 1))
	if [ "$status" -ne 0 ]; then
		case $writer in
		autofdo | llvm-unsymbolized | gcc-afdo | llvm-sample) ;;
		*) fail "$label: an empty profile is not written: $(cat "$tmp/err")" ;;
		esac
		[ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
			grep -q "^profconv: $writer: " "$tmp/err" ||
			fail "$label: exit $status, not one line of $writer's: $(cat "$tmp/err")"
		[ ! -e "$out" ] || fail "$label: failed but left $out"
		return
	fi
	case $writer in
	pprof) "$pprof" -raw "$out" >/dev/null 2>"$tmp/pprof.err" ||
		fail "$label: pprof cannot read it: $(head -3 "$tmp/pprof.err")" ;;
	folded) [ ! -s "$out" ] || fail "$label: the folded output is not empty" ;;
	speedscope | cpuprofile)
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$out" ||
			fail "$label: not JSON" ;;
	svg) python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$out" ||
		fail "$label: not XML" ;;
	dump) head -1 "$out" | grep -qx 'profconv-dump 1' || fail "$label: not a dump" ;;
	sampler | spt)
		"$profconv" convert -q -f "$writer" -t dump -o "$tmp/back.dump" "$out" ||
			fail "$label: the output does not read back" ;;
	*) [ -e "$out" ] || fail "$label: exit 0 but no output" ;;
	esac
	rm -f "$out_dir"/*
}

no_samples "perf script, comments only" "$tmp/comments.perf.txt"
no_samples "folded, blank lines (detected)" "$tmp/blank.folded"
no_samples "folded, blank lines" "$tmp/blank.folded" folded
no_samples "SPT without records" "$tmp/none.spt"
no_samples "VS CSV header alone" "$tmp/header.csv"
no_samples "VS XML empty summary" "$tmp/none.xml"
no_samples "Sampler without records" "$tmp/none.trace"
no_samples "pprof without samples" "$tmp/none.pb"
no_samples "perf.data without samples" "$tmp/none.data"
no_samples "ETL without samples" "$tmp/none.etl"
no_samples ".diagsession without samples" "$tmp/none.diagsession"
"$profconv" convert -t dump -o "$out_dir/out.dump" "$tmp/none.etl" 2>"$tmp/err"
grep -q '^profconv: warning: etl: no CPU samples in the trace' "$tmp/err" ||
	fail "the ETL reader's own warning is not the one given: $(cat "$tmp/err")"
# a second input without samples, after one with: warned about too
"$profconv" convert -t dump -o "$out_dir/out.dump" "$samples/folded/recursive.folded" \
	"$tmp/header.csv" 2>"$tmp/err" || fail "a report header after folded input fails"
grep -qx 'profconv: warning: vsperf: no samples in the input' "$tmp/err" ||
	fail "no warning for a second input without samples: $(cat "$tmp/err")"
rm -f "$out_dir"/*

# --- 3. folded counts are samples, and merged inputs share the column ---

"$profconv" convert -q -t sampler -o "$out_dir/f.trace" "$samples/folded/recursive.folded" ||
	fail "folded -> Sampler needs more than the input"
rm -f "$out_dir"/*
perf=$samples/perf/fp.perf.txt
folded=$samples/folded/recursive.folded
perf_samples=$("$profconv" report "$perf" | sed -n 's/^total: .*, \([0-9]*\) samples (.*$/\1/p')
folded_total=$(awk '{ n += $NF } END { print n }' "$folded")
for order in "$perf $folded" "$folded $perf"; do
	# shellcheck disable=SC2086
	"$profconv" convert -q -t dump -o "$tmp/merged.dump" $order ||
		{ fail "merging $order failed"; continue; }
	[ "$(grep -c '^column .*count' "$tmp/merged.dump")" -eq 1 ] &&
		grep -q '^column [0-9]* "cpu-clock:ppp_sample" "count" default$' "$tmp/merged.dump" ||
		fail "merging $order: not one shared, default samples column: $(grep '^column' "$tmp/merged.dump")"
	# shellcheck disable=SC2086
	"$profconv" report $order >"$tmp/report.txt" || fail "report $order failed"
	grep -q '^column:   cpu-clock:ppp_sample (count), the default' "$tmp/report.txt" ||
		fail "report $order does not say it shows the samples column: $(sed -n 3p "$tmp/report.txt")"
	grep -q "^total:    $((perf_samples + folded_total)) in " "$tmp/report.txt" ||
		fail "report $order: the total is not $perf_samples + $folded_total: $(grep '^total' "$tmp/report.txt")"
done

# --- 4. Visual Studio reports ---

cat >"$tmp/bad_rows.csv" <<'EOF'
Type,Function Name,Inclusive Samples,Exclusive Samples,Module Name,
"Root","main",12,2,"app.exe",
"Root","work",x,10,"app.exe",
"Root","broken,7,
"Root","ok",5,5,"app.exe",
EOF
"$profconv" convert -t folded -o "$out_dir/x.folded" "$tmp/bad_rows.csv" 2>"$tmp/err" &&
	fail "a bad row is accepted without --skip-bad"
grep -qx "profconv: $tmp/bad_rows.csv:3:15: vsperf: expected a count in column \"Inclusive Samples\", found \"x\"" "$tmp/err" ||
	fail "the bad row's error: $(cat "$tmp/err")"
"$profconv" convert --skip-bad -t folded -o "$tmp/skipped.folded" "$tmp/bad_rows.csv" 2>"$tmp/err" ||
	fail "--skip-bad does not skip the bad rows: $(cat "$tmp/err")"
[ "$(cat "$tmp/skipped.folded" 2>/dev/null)" = "$(printf 'main 2\nok 5')" ] ||
	fail "--skip-bad: not the good rows: $(cat "$tmp/skipped.folded")"
grep -qx "profconv: warning: vsperf: skipped an unparseable line, the first at $tmp/bad_rows.csv:3:15: expected a count in column \"Inclusive Samples\", found \"x\" (2 times)" "$tmp/err" ||
	fail "--skip-bad: not one counted warning: $(cat "$tmp/err")"
"$profconv" convert --skip-bad --strict -t folded -o "$out_dir/x.folded" "$tmp/bad_rows.csv" \
	2>"$tmp/err" && fail "--skip-bad --strict accepts a bad row"
grep -q "^profconv: $tmp/bad_rows.csv:3:15: vsperf: expected a count" "$tmp/err" ||
	fail "--skip-bad --strict: not the located error: $(cat "$tmp/err")"
rm -f "$out_dir"/*

cat >"$tmp/times.csv" <<'EOF'
Type,Function Name,Elapsed Inclusive Time,Elapsed Exclusive Time,Number of Calls,Module Name,
"Root","main",12.5,"2,25",1,"app.exe",
"Root","work",10,10,3,"app.exe",
"Caller","main",10,0,3,"app.exe",
EOF
"$profconv" convert -t dump -o "$tmp/times.dump" "$tmp/times.csv" 2>"$tmp/err" ||
	fail "times with a fraction are refused: $(cat "$tmp/err")"
grep -q '^sample elapsed_exclusive=2 elapsed_inclusive=13 calls=1$' "$tmp/times.dump" ||
	fail "12.5 and 2,25 are not 13 and 2: $(grep '^sample' "$tmp/times.dump")"
grep -qx 'profconv: warning: vsperf: rounded times with a fraction to whole ticks, the first "12.5" in column "Elapsed Inclusive Time" at line 2 to 13 (2 times)' "$tmp/err" ||
	fail "times: not one counted warning: $(cat "$tmp/err")"

"$build/tools/vspgen" --magic=0x454b494d "$tmp/mike.vsp" || fail "vspgen failed"
"$profconv" info "$tmp/mike.vsp" >"$tmp/info.txt" 2>"$tmp/err" ||
	fail "the VSP magic 1162561869 (MIKE) is refused: $(cat "$tmp/err")"
grep -q 'magic  *0x454b494d (bytes 4d 49 4b 45, "MIKE": 1162561869' "$tmp/info.txt" ||
	fail "info does not show the MIKE magic: $(grep magic "$tmp/info.txt")"
"$profconv" convert -q -t dump -o "$tmp/vsp.dump" "$samples/vsperf/cc_multiprocess.csv" \
	"$tmp/mike.vsp" || fail "a report with a MIKE .vsp does not convert"
"$build/tools/vspgen" --magic=0x12345678 "$tmp/bad.vsp" || fail "vspgen failed"
"$profconv" info -f vsp "$tmp/bad.vsp" >/dev/null 2>"$tmp/err" && fail "a bad VSP magic is accepted"
grep -qF '0x454c504d = 1162629197; 4d 49 4b 45, "MIKE": 0x454b494d = 1162561869;' "$tmp/err" ||
	fail "the bad-magic message does not give each value correctly: $(cat "$tmp/err")"

# --- 5. Sampler -> Sampler ---

"$profconv" convert -q -t sampler -o "$tmp/w1.trace" "$samples/sampler/small.trace" ||
	fail "small.trace -> Sampler failed"
"$profconv" convert -q -t sampler -o "$tmp/w2.trace" "$tmp/w1.trace" ||
	fail "Sampler -> Sampler failed"
cmp -s "$tmp/w1.trace" "$tmp/w2.trace" || fail "Sampler -> Sampler is not byte for byte"
python3 - "$samples/sampler/small.trace" "$tmp/w1.trace" <<'PY' || fail "small.trace's ids are not kept"
import sys
def entries(path):
    data = open(path, "rb").read()
    at, found = data.index(b"@symboltableV1.1\n") + 17, {}
    while data[at:at + 1] == b"\t":
        ident, unknown = data[at + 1:at + 5], data[at + 6:at + 10]
        end = data.index(b"\n", at + 11)
        found[ident] = (unknown, data[at + 11:end].split(b"\t")[0])
        at = end + 1
    threads = [data[i + 12:i + 16] for i in range(len(data)) if data.startswith(b"@threadV1.0\t", i)]
    return found, threads
(src, src_threads), (out, out_threads) = entries(sys.argv[1]), entries(sys.argv[2])
assert out == src, (src, out)  # ids, unknown fields (0x2129: 7) and names
assert sorted(out_threads) == sorted(src_threads), (src_threads, out_threads)
PY

if [ "$failures" -ne 0 ]; then
	echo "misuse_inputs: $failures failures in $checked runs"
	exit 1
fi
echo "misuse_inputs: $checked runs (empty inputs, inputs without samples through every writer, merged columns, VS reports, Sampler ids) passed"
