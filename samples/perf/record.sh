#!/bin/sh
# samples/perf/record.sh - records the perf script samples in samples/perf on
# this machine, then writes their expected folded outputs and sample totals
# with the independent oracle tests/oracle/perf_fold.py.
#
#   sh samples/perf/record.sh             build, record, write *.perf.txt,
#                                         then the expected files
#   sh samples/perf/record.sh --expected  only rewrite the expected files
#                                         (*.folded, totals.txt) from the
#                                         *.perf.txt already there
#   sh samples/perf/record.sh --buildid   record only buildid.perf.txt, then
#                                         the expected files
#
# Needs perf (linux-perf), gcc and python3, and the right to profile: root,
# or kernel.perf_event_paranoid <= 1 (kernel frames need root or
# kernel.kptr_restrict = 0). Only software events are used (cpu-clock,
# page-faults), so it works in VMs without a PMU. The recordings differ from
# run to run (sampling, addresses, pids); the committed files are one such
# run, on a 2-vCPU VM with perf 6.1 (Debian 12) and a 6.18 kernel.
#
# The workload binary and the perf.data files go to build/samples/perf; the
# dso paths in the text therefore name /<repo>/build/samples/perf/workload.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=samples/perf
work=build/samples/perf
oracle="python3 tests/oracle/perf_fold.py"
ms=${WORKLOAD_MS:-300}

build_workload() {
	mkdir -p "$work"
	command -v perf >/dev/null 2>&1 || { echo "record.sh: perf is missing (apt-get install linux-perf)" >&2; exit 1; }
	${CC:-gcc} -O1 -g -fno-omit-frame-pointer -pthread -o "$work/workload" "$out/workload.c"
}

# The workload's "jit 4" thread runs code in anonymous memory; with
# --perf-map it writes /tmp/perf-PID.map naming it, which perf script
# reads, so the maps are removed only after the last perf script.
run() { # name perf-record-options... (then the workload)
	name=$1
	shift
	perf record -q "$@" -o "$work/$name.data" -- "$work/workload" "$ms" --perf-map \
		>"$work/$name.out"
}

script() { # data name perf-script-options...
	data=$1 name=$2
	shift 2
	perf script -i "$work/$data.data" "$@" >"$out/$name.perf.txt" 2>/dev/null
}

remove_perf_maps() {
	cat "$work"/*.out | sed -n 's/^perf map //p' | xargs rm -f
}

# (f) build ids: --buildid-mmap (kernel 5.12+) makes MMAP2 records carry each
# binary's ELF build id, printed by --show-mmap-events; no symbols, the
# addresses as perf printed them. A short run (150 ms) keeps the file small.
record_buildid() {
	ms=${WORKLOAD_MS:-150}
	run buildid -e cpu-clock -F 999 --buildid-mmap
	script buildid buildid -F comm,pid,tid,time,event,ip,dso,period --show-mmap-events
	remove_perf_maps
}

record() {
	build_workload
	# (a) frame-pointer call graphs, with the cpu of each sample
	run fp -g -F 499 --sample-cpu
	# (b) DWARF call graphs (16 KB of stack per sample); its perf map is
	# removed before perf script so the JIT frames stay [unknown]
	run dwarf --call-graph dwarf,16384 -F 499
	sed -n 's/^perf map //p' "$work/dwarf.out" | xargs rm -f
	# (c) two events at once: cpu-clock at 499 Hz, and every 64th page fault
	# (an event name with a PMU-style term: "page-faults/period=64/")
	run twoevents -g -e cpu-clock -e page-faults/period=64/ -F 499
	# no call graph: the single-line sample form
	run flat -F 499 --sample-cpu

	script fp fp --no-inline
	# (d) side records: MMAP/MMAP2 lines, and pid/tid on every header
	script fp fp-mmap --no-inline -F +pid --show-mmap-events
	# (e) -F field subsets of the same recording
	script fp fp-fields-comm --no-inline -F comm,tid,time,event,ip,sym,dso
	script fp fp-fields-pid --no-inline -F pid,ip,dso
	script fp fp-fields-ipsym --no-inline -F ip,sym
	# perf's default inline expansion of DWARF stacks: "(inlined)" frames
	script dwarf dwarf --header -F +pid
	script dwarf dwarf-noinline --no-inline -F +pid
	script twoevents twoevents --no-inline
	script flat flat --no-inline
	remove_perf_maps
	record_buildid
	for file in "$out"/*.perf.txt; do
		size=$(wc -c <"$file")
		[ "$size" -lt 1000000 ] || echo "record.sh: warning: $file is $size bytes (keep it under 1 MB: lower WORKLOAD_MS)" >&2
	done
}

# Every expected folded file: its name, its input and the options given to
# both the oracle and `profconv convert -t folded` (tests/e2e/perf_captures.sh
# reads this list back from folded.list).
expected_list() {
	for name in fp fp-mmap fp-fields-comm fp-fields-pid fp-fields-ipsym dwarf dwarf-noinline \
		twoevents flat buildid; do
		echo "$name.folded $name.perf.txt"
	done
	for name in fp fp-mmap dwarf twoevents; do
		for option in pid tid kernel jit addrs; do
			echo "$name.$option.folded $name.perf.txt --$option"
		done
		echo "$name.all.folded $name.perf.txt --kernel --jit"
	done
	echo "fp-mmap.tid-kernel.folded fp-mmap.perf.txt --tid --kernel"
	echo "twoevents.cpu-clock.folded twoevents.perf.txt --event cpu-clock"
	echo "twoevents.page-faults.folded twoevents.perf.txt --event page-faults/period=64/"
}

expected() {
	rm -f "$out"/*.folded
	{
		echo "# expected input options: tests/oracle/perf_fold.py OPTIONS INPUT > EXPECTED"
		expected_list
	} >"$out/folded.list"
	expected_list | while read -r expect input options; do
		# shellcheck disable=SC2086 # options are words
		$oracle $options "$out/$input" >"$out/$expect"
	done
	{
		echo "# input event samples period_sum   (tests/oracle/perf_fold.py --totals INPUT)"
		for file in "$out"/*.perf.txt; do
			$oracle --totals "$file"
		done
	} >"$out/totals.txt"
}

case ${1:-} in
--expected) ;;
--buildid) build_workload && record_buildid ;;
"") record ;;
*) echo "usage: sh samples/perf/record.sh [--expected|--buildid]" >&2; exit 2 ;;
esac
expected
ls -l "$out"
