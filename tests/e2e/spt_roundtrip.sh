#!/bin/sh
# SPT -> SPT keeps every count: `profconv info --events` of the written
# file, aggregated per (binary, record kind, RVA / pair / stack) by
# tests/oracle/spt_events.py, equals the input's, for every sample and for
# generated files (many binaries, non-ASCII names, 64-bit repeats, records
# of 255 entries, random traces); a second write is byte-identical; and
# the format's limits (65535 bytes of names, 65535 binaries) are clean
# errors that leave no output file.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
SPTGEN=$here/$BUILD/tools/sptgen
oracle() { python3 "$here/tests/oracle/spt_events.py" "$1"; }
fail=0

# a spec with many programs, long and non-ASCII names, huge repeats, full records
python3 - "$TMPDIR/big.sptspec" <<'PY'
import sys
with open(sys.argv[1], "w", encoding="utf-8") as f:
    for p in range(300):
        f.write("program {%08X-0001-0002-0304-05060708090A} %d mod%d-ünïcødé-模块.dll\n" % (p * 7919, p % 37, p))
    for p in range(300):
        f.write("segment %d\n" % p)
        # 64-bit repeats, whose total over the 255 IPs of 300 segments stays in int64
        f.write("repeat %d\n" % (2**62 // (300 * 255) + p))
        f.write("ip unhalt_cycle %s\n" % " ".join(hex(0x1000 + 4 * i + p) for i in range(255)))
        f.write("ip etw_instr %s\n" % " ".join(hex(0x9000 + i) for i in range(p % 255 + 1)))
        f.write("repeat 1\nlbr %s\n" % " ".join("%#x->%#x" % (0x2000 + i, 0x3000 + i) for i in range(255)))
        f.write("callstack %s\n" % " ".join(hex(0x4000 + i) for i in range(255)))
PY
"$SPTGEN" "$TMPDIR/big.sptspec" "$TMPDIR/big.spt" || exit 1
for seed in 1 2 3; do
	"$SPTGEN" --random $seed --bytes 400000 "$TMPDIR/random$seed.spt" || exit 1
done

for input in "$SAMPLES"/*.spt "$TMPDIR/big.spt" "$TMPDIR"/random*.spt; do
	name=$(basename "$input" .spt)
	"$PROFCONV" convert -q -o "$TMPDIR/$name.out.spt" "$input" || { echo "FAIL: $name: convert"; fail=1; continue; }
	"$PROFCONV" convert -q -o "$TMPDIR/$name.again.spt" "$TMPDIR/$name.out.spt" || { fail=1; continue; }
	cmp -s "$TMPDIR/$name.out.spt" "$TMPDIR/$name.again.spt" ||
		{ echo "FAIL: $name: a second write differs"; fail=1; }
	"$PROFCONV" info --progid --events "$input" > "$TMPDIR/$name.in.info" &&
	"$PROFCONV" info --progid --events "$TMPDIR/$name.out.spt" > "$TMPDIR/$name.out.info" || { fail=1; continue; }
	oracle "$TMPDIR/$name.in.info" > "$TMPDIR/$name.in.agg"
	oracle "$TMPDIR/$name.out.info" > "$TMPDIR/$name.out.agg"
	if ! cmp -s "$TMPDIR/$name.in.agg" "$TMPDIR/$name.out.agg" || [ ! -s "$TMPDIR/$name.in.agg" ]; then
		echo "FAIL: $name: per-record counts differ after SPT -> SPT"
		diff "$TMPDIR/$name.in.agg" "$TMPDIR/$name.out.agg" | head -5
		fail=1
	else
		echo "ok: $name: $(wc -l < "$TMPDIR/$name.in.agg") (binary, kind, entry) counts kept"
	fi
done

# limits: merging inputs whose names or binaries together pass the format's
expect_limit() { # what regex inputs...
	what=$1 regex=$2
	shift 2
	echo old > "$TMPDIR/limit.spt"
	"$PROFCONV" convert -q -o "$TMPDIR/limit.spt" "$@" 2> "$TMPDIR/limit.err"
	status=$?
	if [ $status -ne 1 ] || ! grep -Eq "$regex" "$TMPDIR/limit.err" || [ "$(cat "$TMPDIR/limit.spt")" != old ] ||
	   ls -A "$TMPDIR" | grep -q '^\.limit'; then
		echo "FAIL: $what: exit $status, $(cat "$TMPDIR/limit.err")"
		fail=1
	else
		echo "ok: $what: $(cat "$TMPDIR/limit.err")"
	fi
}
python3 - "$TMPDIR" <<'PY'
import sys
d = sys.argv[1]
for tag in "abc":
    with open("%s/names-%s.sptspec" % (d, tag), "w") as f:
        f.write("layout strtab_capacity=0xffff\n")
        for p in range(20):  # 20 names of 3000 bytes: 60020 bytes per file
            f.write("program {%s00000%02d-0000-0000-0000-000000000001} 1 %s%02d\n"
                    % ("A" if tag == "a" else "B", p, tag * 2997, p))
        f.write("segment 0\nip unhalt_cycle 0x10\n")
    with open("%s/mods-%s.sptspec" % (d, tag), "w") as f:
        f.write("layout progid_capacity=22000\n")
        for p in range(22000):  # 3 x 22000 binaries named "m", told apart by GUID
            f.write("program {%08X-0000-0000-0000-00000000000%s} 0 m\n" % (p, "abc".index(tag)))
        f.write("segment 0\nip unhalt_cycle 0x10\n")
PY
for spec in names-a names-b mods-a mods-b mods-c; do
	"$SPTGEN" "$TMPDIR/$spec.sptspec" "$TMPDIR/$spec.spt" || exit 1
done
expect_limit "65535 bytes of names" "spt: the binary names need more than 65535 bytes" \
	"$TMPDIR/names-a.spt" "$TMPDIR/names-b.spt"
expect_limit "65535 binaries" "spt: 66000 binaries, more than the 65535 program ids" \
	"$TMPDIR/mods-a.spt" "$TMPDIR/mods-b.spt" "$TMPDIR/mods-c.spt"
exit $fail
