#!/bin/sh
# write_seeds.sh - writes the seeds of the conversion fuzz targets from
# the readers' corpora (tests/fuzz/corpus/READER, whose names are the
# registry's: spt, perf_script, perf_data, ...), about 60 KB in all:
#
#   corpus/write    fuzz_write.c's: the three smallest files of each
#                   reader's corpus (not its errors* files) behind the
#                   header "READER 0 0 0"; the
#                   smallest also detected (header byte 0 one past the last
#                   reader) and with every flag and option bit set
#   corpus/merge    fuzz_merge.c's: pairs and a triple of those files
#                   ("--next-input--" between them), for assorted writers
#   corpus/options  fuzz_options.c's: the filters, the pipeline's options
#                   and writers' options (good and bad values) on perf
#                   script texts with pids, tids, comms, times and kernel
#                   frames, and on folded and pprof inputs
#
# The header bytes index pipeline/registry.c's tables, read here from the
# source, so that the seeds follow the registry.
#
# usage: tests/fuzz/seeds/write_seeds.sh
set -eu
here=$(cd "$(dirname "$0")/../../.." && pwd)
corpus=$here/tests/fuzz/corpus
registry=$here/src/pipeline/registry.c
readers=$(sed -n 's/^	&pc_\(.*\)_reader,$/\1/p' "$registry")
writers=$(sed -n 's/^	&pc_\(.*\)_writer,$/\1/p' "$registry")

index_of() { # WORD LIST... -> the word's index in the list
	want=$1; shift; i=0
	for w in "$@"; do [ "$w" = "$want" ] && { echo $i; return; }; i=$((i + 1)); done
	echo "write_seeds.sh: '$want' is not in the registry" >&2; exit 1
}
reader() { index_of "$1" $readers; }
writer() { index_of "$1" $writers; }
byte() { printf "\\$(printf %03o "$1")"; }
smallest() { # READER N -> the N smallest files of its corpus, error cases last
	ls -S -r "$corpus/$1"/* | grep -v /errors | head -n "$2"
}

rm -rf "$corpus/write" "$corpus/merge" "$corpus/options"
mkdir -p "$corpus/write" "$corpus/merge" "$corpus/options"
nreaders=$(echo $readers | wc -w)

for r in $readers; do
	[ -d "$corpus/$r" ] || continue # diagsession: no corpus (a ZIP of ETL traces)
	for f in $(smallest "$r" 3); do
		{ byte "$(reader "$r")"; byte 0; byte 0; byte 0; cat "$f"; } \
			>"$corpus/write/$r-${f##*/}"
	done
	f=$(smallest "$r" 1)
	{ byte "$nreaders"; byte 0; byte 0; byte 0; cat "$f"; } >"$corpus/write/detect-$r-${f##*/}"
	{ byte "$(reader "$r")"; byte 63; byte 255; byte 1; cat "$f"; } \
		>"$corpus/write/all-$r-${f##*/}"
done

merge() { # NAME FLAGS WRITER READER:FILE...
	name=$1 flags=$2 w=$3; shift 3
	{
		byte "$flags"
		for part in "$@"; do byte "$(reader "${part%%:*}")"; done
		[ $# -eq 3 ] || byte 0
		byte "$(writer "$w")"
		first=1
		for part in "$@"; do
			[ $first = 1 ] || printf '\n--next-input--\n'
			first=0
			cat "$corpus/${part%%:*}/${part#*:}"
		done
	} >"$corpus/merge/$name"
}
merge perf-folded 0 folded perf_script:callchain.perf folded:perf.folded
merge perf-perf 0 pprof perf_script:callchain.perf perf_script:fields.perf
merge spt-spt 0 spt spt:small.spt spt:multi.spt
merge pprof-perf 0 report pprof:minimal.pb.gz perf_script:mmap.perf
merge vsperf-vsperf 0 flamegraph_svg vsperf:functions_instr.csv vsperf:cc_names.csv
merge sampler-folded 0 sampler sampler:small.trace folded:recursive.folded
merge perf-data-afdo 2 gcc_afdo perf_data:file-ver0.data perf_script:../afdo/mmap.perf
merge folded-three 1 speedscope folded:perf.folded folded:edges.folded sampler:noend.trace
merge etl-perf 0 cpuprofile etl:tiny.etl perf_script:callchain.perf

options() { # NAME READER WRITER OPTIONS PROFILE
	{ byte "$2"; byte "$(writer "$3")"; printf '%b\n' "$4"; cat "$5"; } >"$corpus/options/$1"
}
perf=$corpus/options/.perf.txt
cat >"$perf" <<'EOF'
worker 100/101 [000] 10.000000: 250000 cpu-clock:
	    ffffffff81000100 do_syscall_64 ([kernel.kallsyms])
	        401136 work (/usr/bin/app)
	        401200 main (/usr/bin/app)

worker 100/102 [001] 10.500000: 250000 cpu-clock:
	        401136 work (/usr/bin/app)
	        401200 main (/usr/bin/app)

io 200/200 [000] 11.000000: 250000 cpu-clock:
	    7f0000001000 read (/usr/lib/libc.so.6)
	        402000 io_loop (/usr/bin/io)

worker 100/101 [001] 12.250000: 500000 cpu-clock:
	    ffffffff81000200 schedule ([kernel.kallsyms])
	        401300 std::vector::push (/usr/bin/app)
	        401200 main (/usr/bin/app)
EOF
detect=$nreaders
options pids-tids "$detect" folded 'pids=100\ntids=101,102\n' "$perf"
options comms-modules "$(reader perf_script)" report 'comms=worker,io\nmodules=app,[kernel.kallsyms]\ntop=5\ntree\n' "$perf"
options time-percent "$detect" cpuprofile 'time=10%/2\ntimes\n' "$perf"
options time-seconds "$detect" pprof 'time=0.5,2\n' "$perf"
options focus-hide "$detect" flamegraph_svg 'focus=main|io\nhide=^std::\nignore=read\ninverted\n' "$perf"
options kernel-user "$detect" folded 'kernel-only\nkernel\n' "$perf"
options user-event "$detect" speedscope 'user-only\nevent=cpu-clock\nstrict\n' "$perf"
options bad-values "$detect" report 'top=0\npids=x\ntime=5,1\nfocus=(\n' "$perf"
options unknown "$(reader spt)" spt 'nosuch\nbinary=app.exe\npprof-max-mib=1\n' "$corpus/spt/small.spt"
options folded-filters "$(reader folded)" sampler 'comms=x\nfocus=b\n' "$corpus/folded/perf.folded"
options pprof-filters "$(reader pprof)" pprof 'pprof-max-mib=2\nhide=runtime\n' "$corpus/pprof/go-cpu.pb.gz"
{ byte "$detect"; byte "$(echo $writers | wc -w)"; printf 'skip-bad\nthreads=2\n\n'; cat "$perf"; } \
	>"$corpus/options/no-output" # no output format: only the read
rm -f "$perf"
du -sh "$corpus/write" "$corpus/merge" "$corpus/options"
