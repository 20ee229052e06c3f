#!/bin/sh
# samples/perfdata/build.sh OUTDIR CFLAGS... - builds the programs that
# tests/e2e/perf_data*.sh record with perf: OUTDIR/threads,
# OUTDIR/pie_main (+ OUTDIR/libshape.so, found through $ORIGIN) and
# OUTDIR/templates, each with CFLAGS (frame pointers or not).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1
shift
mkdir -p "$out"
gcc "$@" -pthread -o "$out/threads" "$here/threads.c"
gcc "$@" -fPIC -shared -o "$out/libshape.so" "$here/libshape.c"
# shellcheck disable=SC2016 # '$ORIGIN' is for the dynamic linker
gcc "$@" -fPIE -pie -o "$out/pie_main" "$here/pie_main.c" -L"$out" -lshape -Wl,-rpath,'$ORIGIN'
g++ "$@" -o "$out/templates" "$here/templates.cc"
