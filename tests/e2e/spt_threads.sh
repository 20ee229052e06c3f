#!/bin/sh
# tests/e2e/spt_threads.sh - an SPT file of 4 MB or more is decoded in two
# halves at once (sptgen --random makes a 6 MB one):
#   - the pprof output is byte-identical to that of --threads 1, and so is
#     the dump;
#   - `convert -v` says "on 2 threads" (when the machine has two CPUs);
#   - the real pprof's sums equal the input's record counts, aggregated
#     from `profconv info --events` (the decoder's record listing, not its
#     counting) by tests/oracle/spt_events.py: per IP column and (binary,
#     RVA), and per column in all;
#   - a copy cut inside its second half fails at the same offset with the
#     same message on one thread and on two, and writes no output.
#
# Environment (tests/run.sh): PROFCONV, PPROF, BUILD, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
sptgen="$build/tools/sptgen"

skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ -x "${PROFCONV:-}" ] || skip "profconv is not built"
[ -x "$sptgen" ] || skip "sptgen is not built ($sptgen)"
[ -x "${PPROF:-}" ] || skip "pprof is not built (${PPROF:-PPROF unset}); run: make build/tools/pprof"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
export HOME="$TMPDIR" PPROF_BINARY_PATH="$TMPDIR/no-binaries" PPROF_TMPDIR="$TMPDIR"
fail=0

spt=$TMPDIR/big.spt
"$sptgen" --random 4 --bytes $((6 << 20)) "$spt" || exit 1

"$PROFCONV" convert -v -o "$TMPDIR/two.pb.gz" "$spt" 2> "$TMPDIR/two.err" || { cat "$TMPDIR/two.err"; exit 1; }
"$PROFCONV" convert -q --threads 1 -o "$TMPDIR/one.pb.gz" "$spt" || exit 1
cmp -s "$TMPDIR/one.pb.gz" "$TMPDIR/two.pb.gz" ||
	{ echo "FAIL: pprof output differs between --threads 1 and two threads"; fail=1; }
"$PROFCONV" convert -q -t dump -o "$TMPDIR/two.dump" "$spt" &&
"$PROFCONV" convert -q --threads 1 -t dump -o "$TMPDIR/one.dump" "$spt" || exit 1
cmp -s "$TMPDIR/one.dump" "$TMPDIR/two.dump" ||
	{ echo "FAIL: the dump differs between --threads 1 and two threads"; fail=1; }
if [ "$(nproc)" -ge 2 ]; then
	grep -q " on 2 threads, " "$TMPDIR/two.err" ||
		{ echo "FAIL: -v does not say 'on 2 threads':"; cat "$TMPDIR/two.err"; fail=1; }
else
	echo "note: one CPU here, so both runs used one thread"
fi

"$PROFCONV" info --progid --events "$spt" > "$TMPDIR/info.txt" || exit 1
python3 "$top/tests/oracle/spt_events.py" "$TMPDIR/info.txt" > "$TMPDIR/events.agg" || exit 1
"$PPROF" -raw -symbolize=none "$TMPDIR/two.pb.gz" > "$TMPDIR/raw.txt" 2> "$TMPDIR/pprof.err" ||
	{ echo "FAIL: pprof -raw:"; cat "$TMPDIR/pprof.err"; exit 1; }
python3 - "$top/tests/oracle" "$TMPDIR/events.agg" "$TMPDIR/raw.txt" <<'PY' || fail=1
import collections, sys
sys.path.insert(0, sys.argv[1])
import pprof_raw

COLUMNS = {"UNHALT_CYCLE": "unhalted_cycle", "RETIRE_INSTR": "retired_instr",
           "RETIRE_BR_INSTR": "retired_branch", "L1_ICACHE_MISS": "l1i_miss",
           "L1_DCACHE_MISS": "l1d_miss", "ETW_INSTR": "timer",
           "LBR": "lbr_branch", "ETW_CALLSTACK": "callstack"}
want_ip, want_total = collections.Counter(), collections.Counter()
for line in open(sys.argv[2], encoding="utf-8"):
    binary, kind, key, count = line.rstrip("\n").split(" | ")
    name = binary.rsplit(" ", 1)[0]
    want_total[COLUMNS[kind]] += int(count)
    if kind not in ("LBR", "ETW_CALLSTACK"):
        want_ip[(COLUMNS[kind], name, int(key, 16))] += int(count)

columns, samples, locations, mappings = pprof_raw.parse(open(sys.argv[3], encoding="utf-8").read())
got_ip, got_total = collections.Counter(), collections.Counter()
for s in samples:
    for column, value in s["values"].items():
        if not value:
            continue
        got_total[column] += value
        if column in ("lbr_branch", "callstack"):
            continue
        assert len(s["stack"]) == 1, s
        address, mapping = locations[s["stack"][0]]  # SPT: at mapping start + RVA
        got_ip[(column, mappings[mapping]["name"], address - mappings[mapping]["start"])] += value
bad = 0
if got_total != want_total:
    print("FAIL: column totals: pprof %s, input %s" % (dict(got_total), dict(want_total)))
    bad = 1
if got_ip != want_ip:
    diff = set(got_ip.items()) ^ set(want_ip.items())
    print("FAIL: %d (column, binary, RVA) sums differ, e.g. %s" % (len(diff), sorted(diff)[:3]))
    bad = 1
if not bad:
    print("ok: %d (column, binary, RVA) sums and %d column totals match the input" %
          (len(want_ip), len(want_total)))
sys.exit(bad)
PY

# A cut in the second half: the same located error on one thread and two.
size=$(wc -c < "$spt")
head -c $((size - 1000)) "$spt" > "$TMPDIR/cut.spt"
for threads in 1 2; do
	"$PROFCONV" convert --threads $threads -o "$TMPDIR/cut$threads.pb.gz" "$TMPDIR/cut.spt" \
		2> "$TMPDIR/cut$threads.err"
	status=$?
	[ $status -eq 1 ] || { echo "FAIL: cut file, --threads $threads: exit $status"; fail=1; }
	[ ! -e "$TMPDIR/cut$threads.pb.gz" ] || { echo "FAIL: cut file, --threads $threads: output written"; fail=1; }
done
grep -q "cut.spt: offset 0x[0-9a-f]*: spt: " "$TMPDIR/cut1.err" ||
	{ echo "FAIL: cut file: unexpected error:"; cat "$TMPDIR/cut1.err"; fail=1; }
cmp -s "$TMPDIR/cut1.err" "$TMPDIR/cut2.err" ||
	{ echo "FAIL: cut file: errors differ:"; cat "$TMPDIR/cut1.err" "$TMPDIR/cut2.err"; fail=1; }
[ $fail -eq 0 ] && echo "ok: two threads and one give the same output and the same error"
exit $fail
