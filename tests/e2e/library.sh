#!/bin/sh
# The C library as a user outside the tree gets it: `make install` into a
# scratch prefix, profconv.h compiled alone with -std=c99 -pedantic and no
# struct bodies, then tests/library/convert_memory.c built with
# `pkg-config --cflags --libs profconv` (shared, and --static) converts
# samples/demo.spt in memory; its output must equal the command line's.
set -u
top=$(pwd)
prefix=$TMPDIR/prefix
fail=0
die() { echo "FAIL: $*"; exit 1; }

make -s -C "$top" install PREFIX="$prefix" BUILD="$BUILD" >"$TMPDIR/install.log" 2>&1 ||
	{ cat "$TMPDIR/install.log"; die "make install failed"; }
for f in bin/profconv lib/libprofconv.a lib/libprofconv.so lib/libprofconv.so.0 \
	include/profconv.h lib/pkgconfig/profconv.pc share/man/man3/profconv.3; do
	[ -e "$prefix/$f" ] || { echo "FAIL: install lacks $f"; fail=1; }
done
soname=$(objdump -p "$prefix/lib/libprofconv.so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libprofconv.so.0 ] || { echo "FAIL: soname '$soname'"; fail=1; }
exported=$(nm -D --defined-only "$prefix/lib/libprofconv.so" | awk '$2 == "T" { print $3 }' |
	grep -vc '^profconv_')
[ "$exported" = 0 ] || { echo "FAIL: $exported exported functions are not profconv_*"; fail=1; }

# the header alone, strict C99, no struct bodies
cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -x c "$prefix/include/profconv.h" ||
	{ echo "FAIL: profconv.h does not compile alone"; fail=1; }
if grep -Eq 'struct +[a-z_]+ *\{' "$prefix/include/profconv.h"; then
	echo "FAIL: profconv.h exposes a struct body"; fail=1
fi

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
prog=$TMPDIR/convert_memory
# shellcheck disable=SC2046 # pkg-config output is words
cc -std=c99 -Wall -Wextra -Werror -o "$prog" "$top/tests/library/convert_memory.c" \
	$(pkg-config --cflags --libs profconv) || die "cannot build against the installed library"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror -o "$prog-static" "$top/tests/library/convert_memory.c" \
	$(pkg-config --cflags profconv) "$prefix/lib/libprofconv.a" \
	$(pkg-config --static --libs-only-other --libs-only-l profconv | sed 's/-lprofconv//') ||
	die "cannot build statically against the installed library"

demo=$SAMPLES/demo.spt
"$PROFCONV" convert -q -t folded -o "$TMPDIR/cli.folded" "$demo" || die "the CLI failed"
for p in "$prog" "$prog-static"; do
	LD_LIBRARY_PATH="$prefix/lib" "$p" "$demo" folded "$TMPDIR/merged.folded" >"$TMPDIR/out" ||
		{ echo "FAIL: ${p##*/} failed"; cat "$TMPDIR/out"; fail=1; continue; }
	# the folded text in memory is the CLI's, byte for byte
	lines=$(wc -l <"$TMPDIR/cli.folded")
	head -n "$lines" "$TMPDIR/out" | cmp -s - "$TMPDIR/cli.folded" ||
		{ echo "FAIL: ${p##*/}: folded output differs from the CLI's"; fail=1; }
	grep -qx 'samples 32 stacks 29 frames 30 modules 1 columns 3' "$TMPDIR/out" ||
		{ echo "FAIL: ${p##*/}: counts"; grep samples "$TMPDIR/out"; fail=1; }
	grep -qx 'merged samples 32' "$TMPDIR/out" || { echo "FAIL: ${p##*/}: merged count"; fail=1; }
	# merging a profile with itself doubles every count
	awk '{ $NF = $NF * 2; print }' "$TMPDIR/cli.folded" | cmp -s - "$TMPDIR/merged.folded" ||
		{ echo "FAIL: ${p##*/}: the merged profile is not twice the input"; fail=1; }
	for want in "error: unknown input format 'nosuch' (see 'profconv formats')" \
		"error: unknown option '--nosuch'" \
		"error: folded: 3 samples with neither a comm nor frames are not written (an error with --strict)" \
		"error: this profile holds part of an input whose read failed; free it" \
		"error: no data given for a non-empty input" \
		"version $("$PROFCONV" --version | cut -d' ' -f2)"; do
		grep -qxF "$want" "$TMPDIR/out" || { echo "FAIL: ${p##*/} lacks: $want"; fail=1; }
	done
	grep -q '^error: junk.bin: ' "$TMPDIR/out" || { echo "FAIL: ${p##*/}: no located error for junk"; fail=1; }
done
[ "$fail" = 0 ] && echo "library: installed, header alone, shared and static programs convert in memory as the CLI does"
exit "$fail"
