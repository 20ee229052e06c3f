#!/bin/sh
# scripts/build-pprof.sh - build the real pprof offline from Debian's source.
#
# Usage: sh scripts/build-pprof.sh OUTDIR
#
# Builds github.com/google/pprof from the Go sources that Debian installs
# under /usr/share/gocode (packages golang-go and
# golang-github-google-pprof-dev, which pulls in the readline and demangle
# sources it imports) into OUTDIR/pprof and prints that path on stdout.
# Nothing is downloaded (GOPROXY=off), nothing is written under
# /usr/share/gocode, the Go build cache is private to this run, and at most
# two packages are compiled at once (-p=2). An existing OUTDIR/pprof that
# is newer than the sources is kept.
#
# Environment: GOCODE (default /usr/share/gocode); PPROF_BUILD_MODE=module
# skips GOPATH mode and goes straight to module mode (for a Go without it).
set -eu

me=build-pprof
gocode=${GOCODE:-/usr/share/gocode}
src=$gocode/src/github.com/google/pprof

die() {
	echo "$me: $*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: sh scripts/build-pprof.sh OUTDIR"
command -v go >/dev/null 2>&1 ||
	die "the Go compiler is missing: apt-get install golang-go"
[ -f "$src/pprof.go" ] ||
	die "the pprof source is missing at $src: apt-get install golang-github-google-pprof-dev"
for dep in chzyer/readline ianlancetaylor/demangle; do
	[ -d "$gocode/src/github.com/$dep" ] ||
		die "$gocode/src/github.com/$dep is missing: apt-get install golang-github-google-pprof-dev (it depends on the readline and demangle sources)"
done

mkdir -p "$1"
outdir=$(cd "$1" && pwd)
bin=$outdir/pprof

if [ -x "$bin" ] && [ -z "$(find "$src" -newer "$bin" -name '*.go' 2>/dev/null | head -n 1)" ]; then
	echo "$bin"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/build-pprof.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP

export GOCACHE="$work/gocache" GOMODCACHE="$work/gomodcache"
export GOPROXY=off GOSUMDB=off GOFLAGS='' GOTOOLCHAIN=local GOTELEMETRY=off
export CGO_ENABLED=0 HOME="${HOME:-$work}"

gopath_build() {
	GO111MODULE=off GOPATH="$gocode" \
		go build -p=2 -trimpath -o "$bin.new" github.com/google/pprof
}

# A throwaway main module whose replace directives point at private copies
# of the three source trees; Debian's copies of readline and demangle have
# no go.mod, and pprof's own lists test-only modules we cannot fetch.
module_build() {
	for tree in google/pprof chzyer/readline ianlancetaylor/demangle; do
		mkdir -p "$work/src/$tree"
		cp -R "$gocode/src/github.com/$tree/." "$work/src/$tree/"
		chmod -R u+w "$work/src/$tree"
		rm -f "$work/src/$tree/go.sum"
	done
	printf 'module github.com/chzyer/readline\n\ngo 1.14\n' \
		>"$work/src/chzyer/readline/go.mod"
	printf 'module github.com/ianlancetaylor/demangle\n\ngo 1.14\n' \
		>"$work/src/ianlancetaylor/demangle/go.mod"
	cat >"$work/src/google/pprof/go.mod" <<-EOF
	module github.com/google/pprof

	go 1.14

	require (
		github.com/chzyer/readline v0.0.0
		github.com/ianlancetaylor/demangle v0.0.0
	)

	replace github.com/chzyer/readline => $work/src/chzyer/readline

	replace github.com/ianlancetaylor/demangle => $work/src/ianlancetaylor/demangle
	EOF
	(cd "$work/src/google/pprof" &&
		GO111MODULE=on GOPATH="$work/gopath" GOFLAGS=-mod=mod \
			go build -p=2 -trimpath -o "$bin.new" .)
}

if [ "${PPROF_BUILD_MODE:-}" != module ] && gopath_build >&2; then
	:
else
	echo "$me: GOPATH mode unavailable or failed; trying module mode" >&2
	module_build >&2 || die "go build failed (see above)"
fi
[ -x "$bin.new" ] || die "go build produced no binary"
mv -f "$bin.new" "$bin"
echo "$bin"
