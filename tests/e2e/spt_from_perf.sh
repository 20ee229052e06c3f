#!/bin/sh
# perf script -> SPT -> pprof gives, per binary and RVA, the same leaf
# counts as perf script -> pprof (issue 7), for the real captures in
# samples/perf that carry mmap events (so runtime addresses have load
# bases). Expected leaf counts come from the real pprof's view of the
# perf script conversion: RVA = address - mapping start + file offset, for
# mappings with a known range whose RVAs fit in 32 bits; actual ones from
# the real pprof's view of the SPT conversion (mapping = binary, RVA =
# address - mapping start; an RVA below 0x1000, e.g. in [vdso], is on a
# location without a mapping, so its binary is compared as ""). perf's
# cpu-clock event becomes SPT's timer (ETW_INSTR) records.
set -u
[ -x "$PPROF" ] || { echo "SKIPPED: pprof not built (make build/tools/pprof)"; exit 77; }
here=$(cd "$(dirname "$0")/../.." && pwd)
fail=0 checked=0
for capture in "$SAMPLES"/perf/*.perf.txt; do
	grep -q 'PERF_RECORD_MMAP' "$capture" || continue
	name=$(basename "$capture" .perf.txt)
	"$PROFCONV" convert -q -o "$TMPDIR/$name.pb.gz" "$capture" &&
	"$PROFCONV" convert -q -o "$TMPDIR/$name.spt" "$capture" &&
	"$PROFCONV" convert -q -o "$TMPDIR/$name.spt.pb.gz" "$TMPDIR/$name.spt" || { fail=1; continue; }
	"$PPROF" -raw -symbolize=none "$TMPDIR/$name.pb.gz" > "$TMPDIR/$name.raw" 2>/dev/null &&
	"$PPROF" -raw -symbolize=none "$TMPDIR/$name.spt.pb.gz" > "$TMPDIR/$name.spt.raw" 2>/dev/null ||
		{ echo "FAIL: $name: pprof cannot read the output"; fail=1; continue; }
	python3 - "$here/tests/oracle" "$TMPDIR/$name.raw" "$TMPDIR/$name.spt.raw" "$name" <<'PY' || fail=1
import sys
from collections import Counter
sys.path.insert(0, sys.argv[1])
from pprof_raw import parse

KINDS = {"cycles": "unhalted_cycle", "instructions": "retired_instr"}

def perf_leaf_counts(text):
    columns, samples, locations, mappings = parse(text)
    counts = Counter()
    for s in samples:
        if not s["stack"]:
            continue
        address, mapping_id = locations[s["stack"][0]]
        mapping = mappings.get(mapping_id)
        for column, value in s["values"].items():
            # sample counts: "samples" beside the one event's weight, else EVENT_samples
            if column != "samples" and not column.endswith("_samples"):
                continue
            if not value or not mapping or not mapping["start"]:
                continue
            rva = address - mapping["start"] + mapping["offset"]
            if 0 <= rva < 2**32:
                event = [c for c in columns if c != "samples"][0] if column == "samples" \
                    else column[: -len("_samples")]
                binary = mapping["name"] if rva >= 0x1000 else ""
                counts[(binary, KINDS.get(event, "timer"), rva)] += value
    return counts

def spt_leaf_counts(text):
    columns, samples, locations, mappings = parse(text)
    counts = Counter()
    for s in samples:
        if len(s["stack"]) != 1:
            continue  # call-stack records and LBR pairs
        address, mapping_id = locations[s["stack"][0]]
        mapping = mappings.get(mapping_id, {"name": "", "start": 0})
        for column, value in s["values"].items():
            if value and column not in ("callstack", "lbr_branch"):
                counts[(mapping["name"], column, address - mapping["start"])] += value
    return counts

want = perf_leaf_counts(open(sys.argv[2]).read())
got = spt_leaf_counts(open(sys.argv[3]).read())
if not want or want != got:
    print("FAIL: %s: leaf counts per (binary, RVA) differ" % sys.argv[4])
    for key in sorted(set(want) | set(got))[:10]:
        if want.get(key) != got.get(key):
            print("   ", key, "perf->pprof", want.get(key), "perf->spt->pprof", got.get(key))
    sys.exit(1)
binaries = len({k[0] for k in want})
print("ok: %s: %d (binary, RVA) leaf counts in %d binaries, %d samples" %
      (sys.argv[4], len(want), binaries, sum(want.values())))
PY
	checked=$((checked + 1))
done
[ $checked -gt 0 ] || { echo "FAIL: no capture with mmap events in $SAMPLES/perf"; exit 1; }
exit $fail
