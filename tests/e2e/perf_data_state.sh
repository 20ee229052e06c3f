#!/bin/sh
# perf.data state over time, on a file made from scratch with the seed
# generator (tests/fuzz/seeds/perf_data_seeds.py), whose exact stacks are
# known:
#   - order: records are used in perf's order (by time, FINISHED_ROUND by
#     FINISHED_ROUND), not in file order: a thread renamed (COMM, time
#     2500) in a record written after its sample (time 3000) in the same
#     round gives that sample the new name, and so does a rename (time
#     3200) written in the round after its sample's (3250): a
#     FINISHED_ROUND releases only the records older than the newest of
#     the round before;
#   - fork: a new process (FORK, pid 20 from 10) starts with its parent's
#     maps, so its samples resolve in the parent's binary;
#   - overlap: an MMAP2 over part of an older map replaces it from its
#     time on: the same address resolves in the new file afterwards, in the
#     old one before;
#   - the kernel: a kernel module's map (pid -1, /lib/modules/.../xfs-mod.ko)
#     is named [xfs_mod], as perf names it, and its frames and the kernel's
#     get their names from the kallsyms given (--kallsyms); a BPF program
#     announced by a KSYMBOL record names its frames;
#   - the same in pipe mode.
# Checked on `profconv convert -t folded` (and --tid) byte for byte.
#
# Environment (tests/run.sh): PROFCONV, TMPDIR. Exit 0 pass, 77 skipped.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIPPED: python3 is missing"; exit 77; }
[ -x "${PROFCONV:-}" ] || { echo "SKIPPED: profconv is not built"; exit 77; }
failures=0

python3 - "$top/tests/fuzz/seeds" "$TMPDIR" <<'PY' || { echo "perf_data_state: cannot make the files"; exit 1; }
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_seeds as s

out = sys.argv[2]
def make(e):
    flags = [s.F_DISABLED, s.F_MMAP, s.F_COMM, s.F_SAMPLE_ID_ALL, s.F_MMAP2, s.F_COMM_EXEC]
    clock = s.Attr("cpu-clock", 1, 0, 250000, s.S_IP | s.S_TID | s.S_TIME | s.S_CALLCHAIN |
                   s.S_PERIOD, flags, [7])
    r = s.Records(e, [clock])
    k = s.KERNEL_START
    r.mmap(clock, -1, 0, k, 0x1000000, k, "[kernel.kallsyms]_text", 0, misc=s.MISC_KERNEL)
    r.mmap(clock, -1, 0, 0xFFFFFFFFC0000000, 0x10000, 0,
           "/lib/modules/6.1.0/kernel/fs/xfs/xfs-mod.ko", 0, misc=s.MISC_KERNEL)
    r.comm(clock, 10, 10, "app", 1000, exec_=True)
    r.mmap2(clock, 10, 10, 0x400000, 0x2000, 0, "/nonexistent/state/prog", 1100)
    # a BPF program (KSYMBOL type 1) at 0xffffffffc0100000, 0x200 bytes
    ksym = (e.u64(0xFFFFFFFFC0100000) + e.u32(0x200) + e.u16(1) + e.u16(0) +
            s.pad(b"bpf_prog_1234abcd_handler\0"))
    r.add(17, s.MISC_KERNEL, ksym + clock.trailer(e, -1, 0, 1150))
    r.comm(clock, 10, 11, "first", 1200)
    r.fork(clock, s.FORK, 20, 10, 20, 10, 1500)
    r.round()
    # in file order the sample comes first; by time the rename does
    r.sample(clock, s.MISC_USER, 0x400100, 10, 11, 3000, period=250000,
             chain=[s.CONTEXT_USER, 0x400100])
    r.comm(clock, 10, 11, "renamed", 2500)
    r.sample(clock, s.MISC_KERNEL, 0xFFFFFFFFC0001010, 10, 10, 3100, period=250000,
             chain=[s.CONTEXT_KERNEL, 0xFFFFFFFFC0001010, k + 0x100, s.CONTEXT_USER, 0x400200])
    r.sample(clock, s.MISC_USER, 0x400100, 20, 20, 3200, period=250000,
             chain=[s.CONTEXT_USER, 0x400100])
    r.sample(clock, s.MISC_KERNEL, 0xFFFFFFFFC0100040, 10, 10, 3300, period=250000,
             chain=[s.CONTEXT_KERNEL, 0xFFFFFFFFC0100040, k + 0x100, s.CONTEXT_USER, 0x400300])
    r.sample(clock, s.MISC_USER, 0x400100, 10, 13, 3250, period=250000,
             chain=[s.CONTEXT_USER, 0x400100])
    r.round()
    # a round later, but older than that sample: a FINISHED_ROUND releases only
    # what is older than the previous round's newest record, so it still counts
    r.comm(clock, 10, 13, "late", 3200)
    r.mmap2(clock, 10, 10, 0x400000, 0x1000, 0, "/nonexistent/state/other", 4000)
    r.sample(clock, s.MISC_USER, 0x400100, 10, 10, 5000, period=250000,
             chain=[s.CONTEXT_USER, 0x400100])
    r.round()
    return clock, r

e = s.Enc()
clock, r = make(e)
data, _ = s.file_mode(e, [clock], r, {s.FEAT_EVENT_DESC: s.event_desc(e, [clock])})
open(os.path.join(out, "state.data"), "wb").write(data)
e = s.Enc()
clock, r = make(e)
data = s.pipe_mode(e, [clock], {s.FEAT_EVENT_DESC: s.event_desc(e, [clock])}, r)
open(os.path.join(out, "state-pipe.data"), "wb").write(data if isinstance(data, bytes) else data[0])
with open(os.path.join(out, "kallsyms"), "w") as f:
    f.write("ffffffff81000000 T _text\nffffffff81000080 T kernel_entry\n"
            "ffffffffc0001000 t xfs_thing\t[xfs_mod]\n")
PY

cat >"$TMPDIR/expected.folded" <<'EOF2'
app;[other] 250000
app;[prog] 250000
app;[prog];kernel_entry;bpf_prog_1234abcd_handler 250000
app;[prog];kernel_entry;xfs_thing 250000
late;[prog] 250000
renamed;[prog] 250000
EOF2
for input in state.data state-pipe.data; do
	"$PROFCONV" convert -q -f perf-data --kallsyms "$TMPDIR/kallsyms" -t folded \
		-o "$TMPDIR/got.folded" "$TMPDIR/$input" ||
		{ echo "perf_data_state: $input: conversion failed"; failures=$((failures + 1)); continue; }
	if ! cmp -s "$TMPDIR/expected.folded" "$TMPDIR/got.folded"; then
		echo "perf_data_state: $input: folded output differs from the expected:"
		diff "$TMPDIR/expected.folded" "$TMPDIR/got.folded"
		failures=$((failures + 1))
	fi
	"$PROFCONV" convert -q -f perf-data --kallsyms "$TMPDIR/kallsyms" -t folded --tid \
		-o "$TMPDIR/got-tid.folded" "$TMPDIR/$input"
	grep -qx "app-20/20;\[prog\] 250000" "$TMPDIR/got-tid.folded" ||
		{ echo "perf_data_state: $input: the forked process's sample is not in its parent's binary:"
		  cat "$TMPDIR/got-tid.folded"; failures=$((failures + 1)); }
done
[ "$failures" = 0 ] || exit 1
echo "perf_data_state: order, fork, overlap and kernel module checked in file and pipe mode"
