#!/bin/sh
# profconv diff BASE NEW (issue 19, item 5: the report and folded forms).
#
# (a) Folded inputs written here: base "main;a 100 / main;b 100", new
#     "main;a 200 / main;b 100 / main;c 10". -t folded prints difffolded.pl's
#     lines exactly; the report lists a first (its count changed most) with
#     50.00% -> 64.52% and factor 2.00x, then c ("new"), then b (1.00x);
#     both totals are printed.
# (b) Two perf captures of one program (a C program written here, hot1 and
#     hot2 doing equal work per call), the second
#     with hot1's work doubled: the report lists hot1 first, with a count
#     factor between 1.6 and 2.5 (sampling and CPU frequency noise), and
#     hot2's factor between 0.6 and 1.4.
# (c) Usage: one input, -t pprof and --top 0 exit 2; an output file is
#     written only when the whole diff succeeds.
set -u
fail=0
cd "$TMPDIR" || exit 2
bad() { echo "FAIL: $*"; fail=1; }

# ---- (a) folded ----
printf 'main;a 100\nmain;b 100\n' > base.folded
printf 'main;a 200\nmain;b 100\nmain;c 10\n' > new.folded
"$PROFCONV" diff -q -t folded -o diff.folded base.folded new.folded || bad "diff -t folded failed"
printf 'main;a 100 200\nmain;b 100 100\nmain;c 0 10\n' > expected.folded
cmp -s diff.folded expected.folded || bad "diff -t folded: $(cat diff.folded)"
"$PROFCONV" diff -q base.folded new.folded > report.txt || bad "diff (report) failed"
grep -q '^base: base.folded, total 200$' report.txt && grep -q '^new:  new.folded, total 310$' report.txt ||
	bad "diff report: totals: $(head -2 report.txt)"
sed -n '5p' report.txt | grep -Eq '^ +50\.00% +64\.52% +\+14\.52pt +2\.00x +1\.29x .* a$' ||
	bad "diff report: a is not first with 2.00x: $(sed -n '5p' report.txt)"
sed -n '6p' report.txt | grep -Eq ' new +new .* c$' || bad "diff report: c is not second: $(sed -n '6p' report.txt)"
sed -n '7p' report.txt | grep -Eq ' 1\.00x .* b$' || bad "diff report: b is not third: $(sed -n '7p' report.txt)"

# ---- (b) two captures of one program ----
cat > two.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
/* the same loop in both, so that equal n means equal work */
static unsigned spin(unsigned n, unsigned s)
{
	for (unsigned i = 0; i < n; i++)
		s = s * 2654435761u + (i ^ (s >> 7));
	return s;
}
__attribute__((noinline)) unsigned hot1(unsigned n, unsigned r) { return spin(n, r); }
__attribute__((noinline)) unsigned hot2(unsigned n, unsigned r) { return spin(n, r + 1); }
int main(int argc, char **argv)
{
	unsigned a = (unsigned)atoi(argv[1]), b = (unsigned)atoi(argv[2]), s = 0;

	for (unsigned r = 0; r < 8; r++)
		s += hot1(a, r) + hot2(b, r);
	printf("%u\n", s);
	return 0;
}
EOF
if command -v perf > /dev/null 2>&1 && gcc -O2 -g -o two two.c; then
	perf record -q -e cpu-clock -F 4000 -o base.data ./two 10000000 10000000 > /dev/null 2>&1 &&
	perf record -q -e cpu-clock -F 4000 -o new.data ./two 20000000 10000000 > /dev/null 2>&1 ||
		bad "perf record ./two"
	"$PROFCONV" diff -q base.data new.data > perf.report || bad "diff of perf captures failed"
	cat perf.report
	awk 'NR == 5 && $NF == "hot1" { f = $4; sub(/x$/, "", f); ok = (f >= 1.6 && f <= 2.5) }
	     END { exit !ok }' perf.report || bad "hot1 is not first with a factor near 2"
	awk '$NF == "hot2" { f = $4; sub(/x$/, "", f); ok = (f >= 0.6 && f <= 1.4) } END { exit !ok }' \
		perf.report || bad "hot2's factor is not near 1"
else
	bad "perf or gcc missing (make deps installs them)"
fi

# ---- (c) usage ----
for args in "base.folded" "-t pprof base.folded new.folded" "--top 0 base.folded new.folded"; do
	# shellcheck disable=SC2086 # the arguments are meant to split
	"$PROFCONV" diff -q -o usage.out $args 2> usage.err
	status=$?
	[ "$status" = 2 ] || bad "diff $args exited $status, expected 2"
	[ ! -e usage.out ] || bad "diff $args left an output"
done
exit $fail
