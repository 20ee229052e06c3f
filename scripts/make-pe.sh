#!/bin/sh
# scripts/make-pe.sh OUTDIR - builds the Windows programs behind
# samples/demo-pe.spt on Debian, without a Windows SDK:
#   demo-app.exe + demo-app.pdb  clang-14 and lld-link (MSVC ABI), CodeView
#                                debug information in a PDB, no C runtime
#   demo-tool.exe                mingw-w64 gcc, DWARF inside the PE
# The builds do not depend on where the tree is: sources are compiled from
# OUTDIR under relative names with a fixed compilation directory, the PDB
# is recorded by base name (/pdbaltpath), and neither linker writes a time
# stamp. So the PDB GUID and function RVAs are the same on every machine
# with Debian 12's clang-14, lld-14 and gcc-mingw-w64-x86-64, and the
# committed SPT names them (tests/e2e/pe_names.sh checks both).
set -eu
OUT=${1:?usage: make-pe.sh OUTDIR}
TOP=$(cd "$(dirname "$0")/.." && pwd)
CLANG=${CLANG:-clang-14}
MINGW=${MINGW:-x86_64-w64-mingw32-gcc}
for tool in "$CLANG" "$MINGW"; do
	command -v "$tool" >/dev/null ||
		{ echo "make-pe.sh: $tool not found (scripts/setup.sh installs it)" >&2; exit 1; }
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd) # absolute: the prefix map below must match the compile dir
cp "$TOP/samples/pe/demo_app.c" "$TOP/samples/pe/demo_tool.c" "$OUT/"
cd "$OUT"

MSVC="--target=x86_64-pc-windows-msvc -fuse-ld=lld -g -O1 -nostdlib -ffreestanding"
MSVC="$MSVC -ffile-compilation-dir=C:/src"
"$CLANG" $MSVC -c -o demo-app.obj demo_app.c
"$CLANG" $MSVC -Wl,/entry:main,/subsystem:console,/Brepro,/pdbaltpath:%_PDB%,/pdbsourcepath:C:/src \
	-o demo-app.exe demo-app.obj
rm -f demo-app.obj

"$MINGW" -g -O1 -fdebug-prefix-map="$OUT"=/src -Wl,--no-insert-timestamp,--build-id \
	-o demo-tool.exe demo_tool.c
