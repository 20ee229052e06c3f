#!/bin/sh
# scripts/setup-npm.sh - installs the npm packages that the viewer tests
# (tests/e2e/viewers_json.sh) check profconv's JSON outputs with, into
# build/npm (never globally), when they are missing:
#
#   speedscope 1.25.0  its file-format schema (dist/release/
#                      file-format-schema.json) and its importer (the
#                      bundled app, loaded in Node by tests/e2e/lib/
#                      viewers_json.cjs) open -t speedscope and -t
#                      cpuprofile outputs as speedscope.app would
#   ajv 8.20.0         the JSON Schema validator (draft 07, the schema's)
#
# Versions are pinned: the test reads speedscope's bundle. Needs Node.js
# and npm (the machine's, else Debian's nodejs and npm, installed as root).
# Quiet and idempotent: it prints nothing and installs nothing when the
# packages are there. NPM_DIR overrides build/npm.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dir=${NPM_DIR:-$top/build/npm}
packages="speedscope@1.25.0 ajv@8.20.0"

# installed NAME@VERSION: whether dir holds that version.
installed() {
	name=${1%@*}
	version=${1##*@}
	file="$dir/node_modules/$name/package.json"
	[ -f "$file" ] && grep -q "\"version\": *\"$version\"" "$file"
}

missing=""
for package in $packages; do
	installed "$package" || missing="$missing $package"
done
[ -z "$missing" ] && exit 0

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "profconv setup-npm: Node.js and npm are missing" >&2
		echo "profconv setup-npm: run as root: apt-get update && apt-get install -y nodejs npm" >&2
		exit 1
	fi
	echo "profconv setup-npm: installing nodejs npm" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends nodejs npm >&2
fi

echo "profconv setup-npm: installing$missing into $dir" >&2
mkdir -p "$dir"
# shellcheck disable=SC2086 # the list is meant to split into words
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error $missing >&2
for package in $packages; do
	installed "$package" || { echo "profconv setup-npm: $package did not install" >&2; exit 1; }
done
