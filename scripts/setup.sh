#!/bin/sh
# scripts/setup.sh - makes sure the Debian packages profconv needs are
# installed: the build dependencies and the real tools the tests check
# our output with. As root it installs what is missing with apt-get;
# otherwise it prints the exact command to run and fails.
set -eu

# libelf (elfutils) and libiberty (binutils' cplus_demangle) serve the
# symbolizer (--symbols): ELF symbol tables, build ids, demangling;
# libdw (elfutils' libdwfl) unwinds perf.data's --call-graph dwarf samples
# and libzstd decompresses perf record -z captures; binutils' addr2line
# names their frames' inlined functions, as perf script does; libzip opens
# Visual Studio's .diagsession packages (ZIP) by member name, from memory.
BUILD_PACKAGES="gcc make pkg-config zlib1g-dev libdeflate-dev libprotobuf-c-dev protobuf-c-compiler libxml2-dev libcmocka-dev libelf-dev libdw-dev libzstd-dev libzip-dev libiberty-dev binutils"
# protoc --decode, the real pprof (built from Debian's source with Go),
# AutoFDO's create_gcov/dump_gcov, llvm-profgen, clang for libFuzzer and
# sanitizers, python3 for test oracles; lld-14 and mingw-w64 gcc build the
# Windows programs behind samples/demo-pe.spt (scripts/make-pe.sh), and
# llvm gives pprof (and profconv --symbols) the llvm-symbolizer that names
# their frames; perf, g++ and libc6-dbg let tests/e2e/symbols_perf.sh
# check --symbols against perf's own names; gcc-11 shows that the gcc-afdo
# version-1 file is what gcc 5 to 11 read, and elfutils' eu-addr2line is
# the oracle of the DWARF positions that gcc-afdo and llvm-sample write;
# chromium renders the svg flame graphs in a real browser (its script runs,
# search and zoom work).
TOOL_PACKAGES="protobuf-compiler golang-go golang-github-google-pprof-dev autofdo llvm-14 clang-14 libclang-rt-14-dev python3 valgrind lld-14 llvm gcc-mingw-w64-x86-64 linux-perf g++ libc6-dbg gcc-11 elfutils chromium"

missing=""
for package in $BUILD_PACKAGES $TOOL_PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
	case $status in
	*"install ok installed"*) ;;
	*) missing="$missing $package" ;;
	esac
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "profconv setup: missing Debian packages:$missing" >&2
		echo "profconv setup: run as root: apt-get update && apt-get install -y$missing" >&2
		exit 1
	fi
	echo "profconv setup: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	# shellcheck disable=SC2086 # the list is meant to split into words
	apt-get install -y -q --no-install-recommends $missing >&2
fi

# The npm packages the viewer tests check the JSON outputs with (speedscope's
# schema and importer, ajv), into build/npm.
sh "$(dirname "$0")/setup-npm.sh"
