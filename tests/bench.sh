#!/bin/sh
# tests/bench.sh BUILD - profconv's speed and memory benchmark (make bench).
# Generates a 256 MB SPT (BENCH_MB) with sptgen (cached in build/bench), then prints
# MB/s and peak RSS for `cat`, `wc -l` and profconv conversions of the same
# file. Targets (DESIGN.md section 6): SPT decode >= 1 GB/s; peak RSS that
# follows distinct (binary, RVA) pairs, not the file size. Best of 3 runs.
set -eu
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
RUNSTAT=$BUILD/tools/runstat
BENCH_MB=${BENCH_MB:-256}
mkdir -p build/bench
spt=build/bench/bench-${BENCH_MB}mb.spt
small=build/bench/bench-8mb.spt
[ -f "$spt" ] || "$BUILD/tools/sptgen" --random 1 --bytes $((BENCH_MB << 20)) "$spt"
[ -f "$small" ] || "$BUILD/tools/sptgen" --random 1 --bytes $((8 << 20)) "$small"
bytes=$(wc -c < "$spt")

measure() { # label file command...
	label=$1 file=$2
	shift 2
	size=$(wc -c < "$file")
	best=""
	for run in 1 2 3; do
		out=$("$RUNSTAT" "$@")
		[ "${out##* }" = 0 ] || { echo "bench: '$*' failed: $out" >&2; exit 1; }
		best=$(printf '%s\n%s\n' "$best" "$out" | awk 'NF { if (!b || $1 < b) { b = $1; r = $2 } } END { print b, r }')
	done
	echo "$best" | awk -v label="$label" -v size="$size" \
		'{ printf "%-34s %9.1f MB/s %8.1f MB peak RSS  (%.3f s, %.1f MB input)\n", label, size / 1048576 / $1, $2 / 1024, $1, size / 1048576 }'
}

echo "profconv bench: $(basename "$spt"), $bytes bytes"
measure "cat" "$spt" cat "$spt"
measure "wc -l" "$spt" wc -l "$spt"
measure "profconv spt -> pprof" "$spt" "$BUILD/profconv" convert -q -o build/bench/out.pb.gz "$spt"
measure "profconv spt -> dump" "$spt" "$BUILD/profconv" convert -q -t dump -o - "$spt"
measure "profconv spt -> pprof (8 MB file)" "$small" "$BUILD/profconv" convert -q -o build/bench/out8.pb.gz "$small"
echo "(peak RSS should be about the same for the 8 MB and the ${BENCH_MB} MB file: it follows distinct samples)"
