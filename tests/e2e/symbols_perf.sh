#!/bin/sh
# profconv's own symbolizer on perf script printed without symbols, checked
# against perf's own symbolization of the same recording.
#
# Builds samples/perf/workload.c (C, threads, libc, kernel, a JIT map) and a
# small C++ program with an inlined hot loop, records each with perf
# (cpu-clock, frame-pointer call graphs, --buildid-mmap), and prints every
# recording twice: with `-F comm,pid,tid,time,event,ip,dso,period
# --show-mmap-events` (addresses only) and with `...,ip,sym,dso,period`
# (perf's names). Then:
#   - `profconv convert --symbols DIR --kallsyms COPY -t folded` of the
#     addresses equals `profconv convert -t folded` of perf's names, line
#     for line: the binaries by path, libc's and ld.so's symbols from
#     Debian's debug files by build id, kernel symbols, the JIT map, C++
#     names demangled, and perf's choice among aliases;
#   - a binary rebuilt with another build id (-O2) is refused with a
#     warning, never used, even at the recorded path; given beside the
#     right one, the right one names the frames;
#   - a kallsyms copy whose addresses are all 0 (kernel.kptr_restrict) is
#     refused with a warning: kernel frames stay unnamed, not misnamed;
#   - printed without build ids, the workload's pprof mapping takes the
#     build id of the file --symbols found (protoc);
#   - with --inline the C++ hot loop's frames end in the inlined function
#     (DWARF names it "mix") under its caller, and with --no-demangle the caller is
#     its mangled name.
# Needs perf (linux-perf) with the right to record (root, or
# perf_event_paranoid <= 1, and readable kernel addresses); otherwise skipped.
#
# Environment (tests/run.sh): PROFCONV, TMPDIR, SAMPLES.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
samples=${SAMPLES:-$top/samples}

skip() {
	echo "SKIPPED: $*"
	exit 77
}

fail() {
	echo "symbols_perf: $*"
	exit 1
}

for tool in perf gcc g++ llvm-symbolizer protoc python3; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool is missing"
done
[ -x "${PROFCONV:-}" ] || skip "profconv is not built"
cp /proc/kallsyms "$TMPDIR/kallsyms" 2>/dev/null || skip "cannot read /proc/kallsyms"
awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' "$TMPDIR/kallsyms" ||
	skip "kernel addresses are hidden (kernel.kptr_restrict)"

bin="$TMPDIR/bin"
mkdir -p "$bin"
gcc -O1 -g -fno-omit-frame-pointer -pthread -o "$bin/workload" "$samples/perf/workload.c" ||
	fail "cannot build the workload"
cat >"$TMPDIR/spin.cc" <<'EOF'
#include <cstdint>
#include <cstdio>
#include <cstdlib>
namespace demo {
static inline __attribute__((always_inline)) uint64_t mix(uint64_t x)
{
	for (int i = 0; i < 64; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}
struct Engine {
	__attribute__((noinline)) uint64_t run(uint64_t seed, long rounds);
};
uint64_t Engine::run(uint64_t seed, long rounds)
{
	for (long r = 0; r < rounds; r++)
		seed = mix(seed ^ (uint64_t)r);
	return seed;
}
}
int main(int argc, char **argv)
{
	demo::Engine engine;
	std::printf("%llu\n", (unsigned long long)engine.run((uint64_t)argc,
		    argc > 1 ? std::atol(argv[1]) : 3000000));
	return 0;
}
EOF
g++ -O2 -g -fno-omit-frame-pointer -o "$bin/spin" "$TMPDIR/spin.cc" || fail "cannot build spin.cc"

record() { # name command...
	name=$1
	shift
	perf record -q --buildid-mmap -e cpu-clock -F 1999 -g -o "$TMPDIR/$name.data" -- "$@" \
		>"$TMPDIR/$name.out" 2>"$TMPDIR/$name.record.err" ||
		skip "perf record failed: $(head -1 "$TMPDIR/$name.record.err")"
	perf script -i "$TMPDIR/$name.data" -F comm,pid,tid,time,event,ip,dso,period \
		--show-mmap-events >"$TMPDIR/$name.addrs" 2>/dev/null &&
	perf script -i "$TMPDIR/$name.data" -F comm,pid,tid,time,event,ip,sym,dso,period \
		>"$TMPDIR/$name.names" 2>/dev/null || fail "perf script failed on $name"
}
# the workload's JIT map (/tmp/perf-PID.map) is removed when the test ends
trap 'sed -n "s/^perf map //p" "$TMPDIR/workload.out" 2>/dev/null | xargs rm -f' EXIT
record workload "$bin/workload" 300 --perf-map
record spin "$bin/spin"

compare() { # name
	"$PROFCONV" convert -q --symbols "$bin" --kallsyms "$TMPDIR/kallsyms" -t folded \
		-o "$TMPDIR/$1.ours" "$TMPDIR/$1.addrs" || fail "$1: convert --symbols failed"
	"$PROFCONV" convert -q -t folded -o "$TMPDIR/$1.perfs" "$TMPDIR/$1.names" ||
		fail "$1: convert of perf's names failed"
	sort "$TMPDIR/$1.ours" >"$TMPDIR/$1.ours.sorted"
	sort "$TMPDIR/$1.perfs" >"$TMPDIR/$1.perfs.sorted"
	diff "$TMPDIR/$1.perfs.sorted" "$TMPDIR/$1.ours.sorted" >"$TMPDIR/$1.diff" ||
		{ head -40 "$TMPDIR/$1.diff"; fail "$1: --symbols names frames otherwise than perf"; }
	echo "symbols_perf: $1: $(wc -l <"$TMPDIR/$1.ours") stacks named as perf names them"
}
compare workload
compare spin

grep -q ';demo::Engine::run ' "$TMPDIR/spin.ours" || fail "spin: no demangled demo::Engine::run leaf"
"$PROFCONV" convert -q --symbols "$bin" --inline -t folded -o "$TMPDIR/spin.inline" \
	"$TMPDIR/spin.addrs" || fail "convert --inline failed"
grep -q ';demo::Engine::run;mix ' "$TMPDIR/spin.inline" ||
	{ sort -k2 -nr "$TMPDIR/spin.inline" | head; fail "--inline: no mix inlined under demo::Engine::run"; }
"$PROFCONV" convert -q --symbols "$bin" --no-demangle -t folded -o "$TMPDIR/spin.mangled" \
	"$TMPDIR/spin.addrs" || fail "convert --no-demangle failed"
grep -q ';_ZN4demo6Engine3runEml ' "$TMPDIR/spin.mangled" ||
	{ sort -k2 -nr "$TMPDIR/spin.mangled" | head; fail "--no-demangle: the mangled name is not kept"; }

# A rebuilt binary (another build id) at the recorded path and in a
# --symbols directory: refused, so the workload's own frames stay unnamed.
mkdir -p "$TMPDIR/rebuilt" "$TMPDIR/right"
mv "$bin/workload" "$TMPDIR/right/workload"
gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$TMPDIR/rebuilt/workload" "$samples/perf/workload.c" ||
	fail "cannot rebuild the workload"
cp "$TMPDIR/rebuilt/workload" "$bin/workload"
id=$(sed -n 's|.*@ 0x[0-9a-f]* <\([0-9a-f]*\)>\]: r-xp '"$bin"'/workload$|\1|p' "$TMPDIR/workload.addrs" | head -1)
[ -n "$id" ] || fail "no build id on the workload's MMAP2 record (perf record --buildid-mmap)"
"$PROFCONV" convert --symbols "$TMPDIR/rebuilt" -t folded -o "$TMPDIR/refused.folded" \
	"$TMPDIR/workload.addrs" 2>"$TMPDIR/refused.err" || fail "convert with a rebuilt binary failed"
grep -q "^profconv: warning: symbols: $TMPDIR/rebuilt/workload: build id [0-9a-f]*, not the profile's $id; not used" \
	"$TMPDIR/refused.err" || { cat "$TMPDIR/refused.err"; fail "no warning refusing the rebuilt binary"; }
if grep -q 'spin_leaf\|hash_block' "$TMPDIR/refused.folded"; then
	fail "the rebuilt binary's names were used"
fi
"$PROFCONV" convert -q --symbols "$TMPDIR/rebuilt:$TMPDIR/right" --kallsyms "$TMPDIR/kallsyms" -t folded \
	-o "$TMPDIR/right.folded" "$TMPDIR/workload.addrs" || fail "convert with both binaries failed"
sort "$TMPDIR/right.folded" | diff "$TMPDIR/workload.perfs.sorted" - >/dev/null ||
	fail "beside a rebuilt binary, the right one does not name the frames as perf does"
echo "symbols_perf: a rebuilt binary (build id differs from $id) refused; the right one used"

# Without build ids in the text, the binary found gives its own to the mapping.
mv "$TMPDIR/right/workload" "$bin/workload"
sed 's/ <[0-9a-f]*>\]: / 00:00 0 0]: /' "$TMPDIR/workload.addrs" >"$TMPDIR/no-ids.addrs"
! grep -q 'PERF_RECORD_MMAP2.* <[0-9a-f]*>\]' "$TMPDIR/no-ids.addrs" || fail "build ids left in the text"
"$PROFCONV" convert -q --symbols "$bin" -o "$TMPDIR/no-ids.pb.gz" "$TMPDIR/no-ids.addrs" ||
	fail "convert to pprof with --symbols failed"
gzip -dc "$TMPDIR/no-ids.pb.gz" | protoc --decode=perftools.profiles.Profile -I "$top/proto" \
	"$top/proto/profile.proto" >"$TMPDIR/no-ids.decoded" || fail "protoc cannot decode the profile"
python3 - "$TMPDIR/no-ids.decoded" "$bin/workload" "$id" <<'EOF' || fail "the workload's mapping lacks the binary's build id"
import re, sys
text = open(sys.argv[1]).read()
strings = re.findall(r'^string_table: "(.*)"$', text, re.M)
for block in re.findall(r"^mapping \{\n(.*?)^\}", text, re.M | re.S):
    fields = dict(re.findall(r"^\s+(\w+): (\S+)$", block, re.M))
    if strings[int(fields.get("filename", 0))] == sys.argv[2]:
        got = strings[int(fields.get("build_id", 0))]
        print("symbols_perf: the workload's mapping has build id", got)
        sys.exit(0 if got == sys.argv[3] else 1)
print("symbols_perf: no mapping for", sys.argv[2])
sys.exit(1)
EOF

# kallsyms read without the right to see addresses: every address 0.
sed 's/^[0-9a-f]* /0000000000000000 /' "$TMPDIR/kallsyms" >"$TMPDIR/kallsyms.zero"
"$PROFCONV" convert --symbols "$bin" --kallsyms "$TMPDIR/kallsyms.zero" -t folded \
	-o "$TMPDIR/zero.folded" "$TMPDIR/workload.addrs" 2>"$TMPDIR/zero.err" ||
	fail "convert with an all-zero kallsyms failed"
grep -q "every address is 0 (kernel.kptr_restrict)" "$TMPDIR/zero.err" ||
	{ cat "$TMPDIR/zero.err"; fail "no warning for an all-zero kallsyms"; }
grep -q 'do_syscall_64' "$TMPDIR/zero.folded" && fail "kernel frames named from an all-zero kallsyms"
echo "symbols_perf: an all-zero kallsyms is refused"
