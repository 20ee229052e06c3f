#!/bin/sh
# tests/bench.sh BUILD - profconv's speed and memory benchmark (make bench).
#
# (The last section: a perf script of 2 million distinct symbols, see there.)
#
# SPT: generates a 256 MB SPT (BENCH_MB) with sptgen, then prints MB/s and
# peak RSS for `cat`, `wc -l` and profconv conversions of the same file,
# and the MB/s of the SPT decode alone: the read phase that `profconv
# convert -v` reports (decoding and counting, before finalize and writing),
# as it runs by default (two halves at once on a machine with two CPUs)
# and with --threads 1. Targets (DESIGN.md section 6): SPT decode >= 1
# GB/s; peak RSS that follows distinct (binary, RVA) pairs, not the file
# size.
#
# perf script: generates a 256 MB `perf script` text (BENCH_PERF_MB, at
# least 200) with perfgen (realistic stacks of 10-40 frames, several
# processes and threads, kernel, JIT and library frames; the same bytes
# every time), then prints MB/s and peak RSS for `wc -l` and profconv's
# conversions of it to pprof and to folded. Targets (DESIGN.md section 6):
# >= 500 MB/s to pprof on one core, <= 64 MB peak RSS.
#
# SPT of many distinct stacks: a 48 MB SPT (BENCH_WIDE_MB) of about
# 200,000 data records over 6 modules in which 30% of the IP RVAs are
# spread over the whole 32-bit range (sptgen --spread 30; about 2.4 million
# distinct RVAs, hence one-frame stacks: the shape of a big application
# sampled for long), then MB/s, peak RSS and the per-phase times of
# `profconv convert -v` (read, finalize, write) next to `cat`. Targets:
# >= 100 MB/s end to end to pprof, <= 320 MB peak RSS.
#
# perf script -F ip,sym,brstack (AutoFDO's input): a 190 MB text of one
# line per sample, 16 branch pairs each, to pprof (by default and with
# --threads 1) and to AutoFDO text.
#
# Symbolization (--symbols): perf script text of 1,000,000 one-frame
# samples in a large real library (Debian's libLLVM-14, 44,000 dynamic
# symbols over 100 MB of code) printed without names, once over 20,000
# distinct addresses and once over about 1,000,000; `profconv convert -v
# -t folded` with and without --symbols, and the symbolize phase alone:
# it should follow the distinct addresses, not the samples.
#
# Generated files are cached in build/bench (regenerated when the
# generator is newer). Each figure is the best of 3 runs; MB = 2^20 bytes.
set -eu
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
RUNSTAT=$BUILD/tools/runstat
PROFCONV=$BUILD/profconv
BENCH_MB=${BENCH_MB:-256}
BENCH_PERF_MB=${BENCH_PERF_MB:-256}
mkdir -p build/bench

generate() { # generator file args...
	generator=$1 file=$2
	shift 2
	if [ ! -f "$file" ] || [ -n "$(find "$generator" -newer "$file")" ]; then
		"$generator" "$@" "$file.tmp" && mv "$file.tmp" "$file"
	fi
}

measure() { # label file command...
	label=$1 file=$2
	shift 2
	size=$(wc -c < "$file")
	best=""
	for _ in 1 2 3; do
		out=$("$RUNSTAT" "$@")
		[ "${out##* }" = 0 ] || { echo "bench: '$*' failed: $out" >&2; exit 1; }
		best=$(printf '%s\n%s\n' "$best" "$out" | awk 'NF { if (!b || $1 < b) { b = $1; r = $2 } } END { print b, r }')
	done
	echo "$best" | awk -v label="$label" -v size="$size" \
		'{ printf "%-34s %9.1f MB/s %8.1f MB peak RSS  (%.3f s, %.1f MB input)\n", label, size / 1048576 / $1, $2 / 1024, $1, size / 1048576 }'
}

# "READ FINALIZE WRITE THREADS" seconds from a `profconv convert -v` summary.
phase_times() {
	sed -n 's/.*(read [0-9.]* MB in \([0-9.]*\) s\( on \([0-9]*\) threads\)*, .*; finalize \([0-9.]*\) s;\( symbolize [0-9.]* s;\)* write \([0-9.]*\) s).*/\1 \4 \6 \3/p'
}

# MB/s and peak RSS as measure does, plus the phases that `profconv convert
# -v` reports for the fastest of the 3 runs.
measure_phases() { # label file convert-args...
	label=$1 file=$2
	shift 2
	size=$(wc -c < "$file")
	best="" phases=""
	for _ in 1 2 3; do
		out=$("$RUNSTAT" "$PROFCONV" convert -v "$@" 2> build/bench/phases.txt)
		[ "${out##* }" = 0 ] || { echo "bench: 'profconv convert -v $*' failed: $out" >&2; cat build/bench/phases.txt >&2; exit 1; }
		if [ -z "$best" ] || awk -v a="${out%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best=$out
			phases=$(phase_times < build/bench/phases.txt)
		fi
	done
	echo "$best" | awk -v label="$label" -v size="$size" \
		'{ printf "%-34s %9.1f MB/s %8.1f MB peak RSS  (%.3f s, %.1f MB input)\n", label, size / 1048576 / $1, $2 / 1024, $1, size / 1048576 }'
	echo "$phases" | awk '{ printf "%-34s read %.3f s, finalize %.3f s, write %.3f s (read on %d threads)\n", "  phases (convert -v)", $1, $2, $3, $4 ? $4 : 1 }'
}

# The read phase alone (decoding and counting, before finalize and the
# writer), from the timing summary of `profconv convert -v`; best of 3.
measure_decode() { # label file convert-args...
	label=$1 file=$2
	shift 2
	best=""
	for _ in 1 2 3; do
		summary=$("$PROFCONV" convert -v "$@" 2>&1 >/dev/null) ||
			{ echo "bench: '$PROFCONV convert -v $*' failed: $summary" >&2; exit 1; }
		seconds=$(printf '%s\n' "$summary" | sed -n 's/.*(read [0-9.]* MB in \([0-9.]*\) s.*/\1/p')
		[ -n "$seconds" ] || { echo "bench: no read time in: $summary" >&2; exit 1; }
		best=$(printf '%s\n%s\n' "$best" "$seconds" | awk 'NF { if (!b || $1 < b) b = $1 } END { print b }')
	done
	awk -v label="$label" -v size="$(wc -c < "$file")" -v s="$best" 'BEGIN {
		printf "%-34s %9.1f MB/s %8s                (%.3f s, %.1f MB input)\n",
			label, size / 1048576 / s, "", s, size / 1048576 }'
}

spt=build/bench/bench-${BENCH_MB}mb.spt
small=build/bench/bench-8mb.spt
generate "$BUILD/tools/sptgen" "$spt" --random 1 --bytes $((BENCH_MB << 20))
generate "$BUILD/tools/sptgen" "$small" --random 1 --bytes $((8 << 20))
bytes=$(wc -c < "$spt")

echo "profconv bench: $(basename "$spt"), $bytes bytes"
measure "cat" "$spt" cat "$spt"
measure "wc -l" "$spt" wc -l "$spt"
measure_decode "profconv spt decode (read phase)" "$spt" -t dump -o - "$spt"
measure_decode "profconv spt decode, --threads 1" "$spt" --threads 1 -t dump -o - "$spt"
measure_phases "profconv spt -> pprof" "$spt" -o build/bench/out.pb.gz "$spt"
measure "profconv spt -> dump" "$spt" "$PROFCONV" convert -q -t dump -o - "$spt"
measure "profconv spt -> pprof (8 MB file)" "$small" "$PROFCONV" convert -q -o build/bench/out8.pb.gz "$small"
echo "(peak RSS should be about the same for the 8 MB and the ${BENCH_MB} MB file: it follows distinct samples)"

echo
wide=build/bench/wide-${BENCH_WIDE_MB:-48}mb.spt
generate "$BUILD/tools/sptgen" "$wide" --random 1 --bytes $((${BENCH_WIDE_MB:-48} << 20)) \
	--modules 6 --spread 30 --ip-items 96 --seq-items 160
echo "profconv bench: $(basename "$wide"), $(wc -c < "$wide") bytes, many distinct stacks" \
	"(sptgen --spread 30: $("$PROFCONV" info --events "$wide" |
		awk '$1 ~ /^0x/ && $2 != "BINARY_ID" && $2 != "REPEAT"' | wc -l) data records)"
measure "cat" "$wide" cat "$wide"
measure_phases "profconv spt -> pprof (wide)" "$wide" -o build/bench/wide.pb.gz "$wide"
echo "(targets: >= 100 MB/s end to end, <= 320 MB peak RSS)"

echo
if ! "$PROFCONV" formats | grep -q '^perf-script  *read'; then
	echo "profconv bench: perf script skipped: this profconv has no perf-script reader"
	exit 0
fi
[ "$BENCH_PERF_MB" -ge 200 ] || echo "bench: note: BENCH_PERF_MB=$BENCH_PERF_MB is below the 200 MB of the target" >&2
perf=build/bench/bench-${BENCH_PERF_MB}mb.perf.txt
generate "$BUILD/tools/perfgen" "$perf" --random 1 --bytes $((BENCH_PERF_MB << 20))
bytes=$(wc -c < "$perf")
echo "profconv bench: $(basename "$perf"), $bytes bytes, $(grep -c ' cpu-clock: $\| page-faults: $' "$perf") samples (perfgen --random 1)"
measure "wc -l" "$perf" wc -l "$perf"
measure "profconv perf script -> pprof" "$perf" "$PROFCONV" convert -q -f perf-script \
	-o build/bench/perf.pb.gz "$perf"
measure "  same, --threads 1" "$perf" "$PROFCONV" convert -q -f perf-script --threads 1 \
	-o build/bench/perf.pb.gz "$perf"
if "$PROFCONV" formats | grep -Eq '^folded +write'; then
	measure "profconv perf script -> folded" "$perf" "$PROFCONV" convert -q -f perf-script -t folded \
		-o build/bench/perf.folded "$perf"
else
	echo "profconv perf script -> folded: skipped: this profconv has no folded writer"
fi
echo "(targets: >= 500 MB/s to pprof on one core (--threads 1; by default a text of 4 MB or"
echo " more is read in two halves at once), <= 64 MB peak RSS; peers on a 2-vCPU EPYC VM:"
echo " stackcollapse-perf.pl 20 MB/s, speedscope 28 MB/s with 1.4 GB, llvm-profgen 147 MB/s)"

# perf script with 2 million distinct symbols (1 million samples of two
# frames each, every leaf and caller a new function at a new address):
# memory and time follow distinct frames here, not repetition.
echo
wideperf=build/bench/wide-2m-symbols.perf.txt
if [ ! -f "$wideperf" ] || [ tests/bench.sh -nt "$wideperf" ]; then
	awk 'BEGIN {
		for (i = 0; i < 1000000; i++) {
			printf "prog %d [%03d] %d.%06d: 250000 cpu-clock:\n", 1000 + i % 8, i % 4,
				100 + int(i / 1000000), i % 1000000
			printf "\t    %x fn_%07d+0x10 (/usr/bin/prog)\n", 4194304 + 64 * i, 2 * i
			printf "\t    %x fn_%07d+0x20 (/usr/bin/prog)\n", 4194336 + 64 * i, 2 * i + 1
			printf "\t    7f0000001000 main+0x30 (/usr/bin/prog)\n\n"
		}
	}' >"$wideperf.tmp" && mv "$wideperf.tmp" "$wideperf"
fi
echo "profconv bench: $(basename "$wideperf"), $(wc -c < "$wideperf") bytes, 1000000 samples, 2000001 distinct symbols"
measure "wc -l" "$wideperf" wc -l "$wideperf"
measure_phases "profconv perf script -> pprof (2M sym)" "$wideperf" -f perf-script \
	-o build/bench/wideperf.pb.gz "$wideperf"
echo "(targets: >= 100 MB/s, <= 400 MB peak RSS)"

# perf script -F ip,sym,brstack, the text AutoFDO reads: one line per
# sample, 16 branch pairs each, over 32,768 addresses; read in two halves
# like the texts with callchains (the line after the cut ends the first
# half's last sample, whatever it is).
echo
lbrperf=build/bench/brstack-one-line.perf.txt
if [ ! -f "$lbrperf" ] || [ tests/bench.sh -nt "$lbrperf" ]; then
	awk 'BEGIN {
		print "prog 4242 99.000000: PERF_RECORD_MMAP2 4242/4242: [0x400000(0x100000) @ 0 fd:01 1 0]: r-xp /usr/bin/prog"
		for (i = 0; i < 200000; i++) {
			line = sprintf("prog 4242 %d.%06d: 250000 cycles:u: %x fn_%d+0x10 (/usr/bin/prog) ",
				100 + int(i / 1000000), i % 1000000, 4194304 + (i * 7919 % 65536) * 4, i % 5000)
			for (k = 1; k <= 16; k++)
				line = line sprintf(" 0x%x(/usr/bin/prog)/0x%x(/usr/bin/prog)/P/-/-/%d/",
					4194304 + (i * k * 104729 % 32768) * 4,
					4194304 + (i * k * 1299709 % 32768) * 4, 1 + (i * k) % 29)
			print line
		}
	}' >"$lbrperf.tmp" && mv "$lbrperf.tmp" "$lbrperf"
fi
echo "profconv bench: $(basename "$lbrperf"), $(wc -c < "$lbrperf") bytes, 200000 samples of 16 branches"
measure "wc -l" "$lbrperf" wc -l "$lbrperf"
measure_phases "profconv brstack text -> pprof" "$lbrperf" -f perf-script \
	-o build/bench/lbr.pb.gz "$lbrperf"
measure "  same, --threads 1" "$lbrperf" "$PROFCONV" convert -q -f perf-script --threads 1 \
	-o build/bench/lbr.pb.gz "$lbrperf"
measure "profconv brstack text -> autofdo" "$lbrperf" "$PROFCONV" convert -q -f perf-script \
	-t autofdo -o build/bench/lbr.afdo.txt "$lbrperf"

# perf.data: a capture of about 130 MB (BENCH_PERFDATA_MS of the
# workload of samples/perf at 30 kHz, frame-pointer callchains) recorded
# with this machine's perf, then perf script alone, perf script piped into
# profconv, and profconv reading the perf.data itself (names included).
# Target: the native read >= 10x the pipeline, <= 256 MB peak RSS.
echo
if command -v perf >/dev/null 2>&1 && perf record -q -o /dev/null true >/dev/null 2>&1; then
	perfdata=build/bench/workload-fp.data
	if [ ! -f "$perfdata" ] || [ tests/bench.sh -nt "$perfdata" ]; then
		${CC:-gcc} -O1 -g -fno-omit-frame-pointer -pthread -o build/bench/workload samples/perf/workload.c
		perf record -q -F 30000 -e cpu-clock -g -o "$perfdata" build/bench/workload \
			"${BENCH_PERFDATA_MS:-20000}" >/dev/null 2>&1
	fi
	echo "profconv bench: $(basename "$perfdata"), $(wc -c < "$perfdata") bytes"
	measure "perf script alone" "$perfdata" sh -c "perf script -i '$perfdata' >/dev/null 2>&1"
	measure "perf script | profconv -> pprof" "$perfdata" sh -c \
		"perf script -i '$perfdata' 2>/dev/null | '$PROFCONV' convert -q -f perf-script -o build/bench/perfdata-text.pb.gz -"
	measure_phases "profconv perf.data -> pprof" "$perfdata" -o build/bench/perfdata.pb.gz "$perfdata"
	echo "(targets: >= 10x the perf script pipeline, <= 256 MB peak RSS)"
else
	echo "profconv bench: perf.data skipped: perf cannot record here"
fi

# ETW: two generated traces of 100 MB or more (BENCH_ETL_SAMPLES samples over
# two CPUs in 64 KiB buffers: tests/fuzz/seeds/etl_seeds.py's scenario,
# written once into build/bench, some 40 s each): one whose stacks are of
# random depth through several images at random addresses (nearly every
# sample has frames of its own), one whose stacks are drawn from 50 call
# paths per thread (few distinct stacks, as in real traces: the corpus's
# x64 trace has 2,056 distinct stacks in 79,528 samples), and one of those
# paths twice as long (memory read as a stream should grow with the
# distinct stacks and key definitions, not double). Then MB/s and
# peak RSS of profconv reading each to pprof, next to cat: as a stream
# (the default from 64 MiB: samples counted as the trace goes, memory for
# distinct stacks, not samples; the random trace gives way to the whole
# read) and read whole (--etl-stream-mib 1048576).
# Target (issue 17): >= 300 MB/s.
echo
for shape in random paths long; do
	nsamples=${BENCH_ETL_SAMPLES:-760000}
	[ "$shape" = long ] && nsamples=$((2 * nsamples))
	etl=build/bench/generated-$shape-$nsamples.etl
	if [ ! -f "$etl" ] || [ tests/fuzz/seeds/etl_seeds.py -nt "$etl" ]; then
		python3 -B - "$etl" "$nsamples" "$shape" <<'PY' || { echo "bench: cannot make $etl" >&2; exit 1; }
import sys
sys.path.insert(0, "tests/fuzz/seeds")
import etl_seeds
out, n, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
scenario = etl_seeds.Scenario(p=8, cpus=2, nsamples=n, seed=5,
                              paths=None if shape == "random" else 50)
data = scenario.trace(buffer_size=65536, compressed=False).build()[0]
open(out + ".tmp", "wb").write(data)
PY
		mv "$etl.tmp" "$etl"
	fi
	echo "profconv bench: $(basename "$etl"), $(wc -c < "$etl") bytes"
	measure "cat" "$etl" cat "$etl"
	measure_phases "profconv etl -> pprof ($shape)" "$etl" -o build/bench/etl.pb.gz "$etl"
	measure_phases "  the same, read whole" "$etl" --etl-stream-mib 1048576 \
		-o build/bench/etl.pb.gz "$etl"
done
echo "(target: >= 300 MB/s)"

# Symbolization: the same samples named by --symbols, over few and over
# many distinct addresses (see the top of this file).
echo
lib=/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1
if [ ! -f "$lib" ]; then
	echo "profconv bench: symbolization skipped: $lib is missing (apt-get install libllvm14)"
	exit 0
fi
text_size=$(( $(readelf -lW "$lib" | awk '$1 == "LOAD" && $7 == "R" && $8 == "E" { print $5; exit }') ))
for distinct in 20000 1000000; do
	symperf=build/bench/symbols-$distinct.perf.txt
	if [ ! -f "$symperf" ] || [ tests/bench.sh -nt "$symperf" ]; then
		awk -v lib="$lib" -v size="$text_size" -v distinct="$distinct" 'BEGIN {
			srand(1)
			printf "prog 1000/1000 0.000000: PERF_RECORD_MMAP2 1000/1000: [0x7f0000000000(0x%x) @ 0 fd:01 1 0]: r-xp %s\n", size, lib
			for (i = 0; i < distinct; i++)
				addr[i] = 4096 + int(rand() * (size - 8192))
			for (i = 0; i < 1000000; i++) {
				printf "prog 1000/1000 %d.%06d:     250000 cpu-clock:\n", 1 + int(i / 1000000), i % 1000000
				printf "\t7f00%08x (%s)\n\n", addr[int(rand() * distinct)], lib
			}
		}' >"$symperf.tmp" && mv "$symperf.tmp" "$symperf"
	fi
	echo "profconv bench: $(basename "$symperf"), $(wc -c < "$symperf") bytes, 1000000 samples over $distinct addresses drawn from $(basename "$lib")"
	measure_phases "convert -t folded, no names" "$symperf" -f perf-script -t folded \
		-o build/bench/symbols.folded "$symperf"
	best=""
	for _ in 1 2 3; do
		out=$("$RUNSTAT" "$PROFCONV" convert -v --symbols "$(dirname "$lib")" -f perf-script -t folded \
			-o build/bench/symbols.folded "$symperf" 2> build/bench/phases.txt)
		[ "${out##* }" = 0 ] || { echo "bench: --symbols failed: $out" >&2; cat build/bench/phases.txt >&2; exit 1; }
		seconds=$(sed -n 's/.*; symbolize \([0-9.]*\) s;.*/\1/p' build/bench/phases.txt)
		best=$(printf '%s\n%s %s\n' "$best" "$out" "$seconds" |
			awk 'NF { if (!b || $1 < b) { b = $1; r = $2; s = $4 } } END { print b, r, 0, s }')
	done
	echo "$best" | awk -v size="$(wc -c < "$symperf")" '{
		printf "%-34s %9.1f MB/s %8.1f MB peak RSS  (%.3f s; symbolize %.3f s)\n",
			"convert -t folded --symbols", size / 1048576 / $1, $2 / 1024, $1, $4 }'
done
echo "(symbolize time should follow the distinct addresses: a few ms for 20,000, not much"
echo " more than reading the library's symbols; peers: perf script symbolizes every sample)"