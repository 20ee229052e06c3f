#!/bin/sh
# The whole command, run under valgrind's memcheck on every sample: no
# invalid access and no leak (definite, indirect or possible), for a good
# conversion, `info`, and a failing conversion.
set -u
command -v valgrind >/dev/null 2>&1 || { echo "SKIPPED: valgrind not installed"; exit 77; }
vg() {
	valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 "$@"
}
status=0
for sample in "$SAMPLES"/*.spt; do
	vg "$PROFCONV" convert -q -o "$TMPDIR/out.pb.gz" "$sample" || { echo "valgrind: convert $sample"; status=1; }
	vg "$PROFCONV" convert -q -o "$TMPDIR/out.spt" "$sample" || { echo "valgrind: spt $sample"; status=1; }
	vg "$PROFCONV" info "$sample" > /dev/null || { echo "valgrind: info $sample"; status=1; }
done
for sample in "$SAMPLES"/folded/*.folded "$SAMPLES"/perf/fp-mmap.perf.txt "$SAMPLES"/perf/dwarf.perf.txt \
	"$SAMPLES"/vsperf/*.csv "$SAMPLES"/vsperf/*.xml; do
	vg "$PROFCONV" convert -q -o "$TMPDIR/out.pb.gz" "$sample" || { echo "valgrind: convert $sample"; status=1; }
	vg "$PROFCONV" convert -q -t folded --kernel --jit -o "$TMPDIR/out.folded" "$sample" ||
		{ echo "valgrind: folded $sample"; status=1; }
	vg "$PROFCONV" report --tree "$sample" > /dev/null || { echo "valgrind: report $sample"; status=1; }
done
vg "$PROFCONV" convert -q -o "$TMPDIR/out.pb.gz" "$SAMPLES/vsperf/cc_instrumentation.csv" \
	"$SAMPLES/vsperf/session.vsp" || { echo "valgrind: convert report + vsp"; status=1; }
vg "$PROFCONV" info "$SAMPLES/vsperf/session.vsp" > /dev/null || { echo "valgrind: info vsp"; status=1; }
head -c 100 "$SAMPLES/demo.spt" > "$TMPDIR/truncated.spt"
vg "$PROFCONV" convert -q -o "$TMPDIR/out.pb.gz" "$TMPDIR/truncated.spt" 2>/dev/null
[ $? -eq 1 ] || { echo "valgrind: truncated input did not fail cleanly with exit 1"; status=1; }
exit $status
