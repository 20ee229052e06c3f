#!/bin/sh
# ETW traces inside their containers, against the trace read alone
# (../shared/corpus/etl/net.4.5.2.x64.etl; fails when it is missing):
#   - a .diagsession (a ZIP made here with Python's zipfile: metadata.xml
#     listing a DiagnosticsHub.Resource.EtlFile under its
#     ResourcePackageUriPrefix) gives the same folded output, detected
#     whether metadata.xml comes first or last, and from standard input;
#     two trace resources are merged (twice the samples);
#   - errors: a package without metadata.xml, one whose metadata.xml lists
#     no ETL resource or names a missing member, the OLE compound-file
#     container, and a ZIP that is not one: exit 1, one message, no output;
#   - a .vsp whose header names the trace (kernel_etl_path, a Windows path)
#     reads it from beside the .vsp: the same folded output; a .vsp whose
#     trace is nowhere is an error naming where it was looked for.
# Environment (tests/run.sh): PROFCONV, BUILD, SHARED, TMPDIR.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
corpus=${SHARED:-$top/../shared}/corpus/etl
x64=$corpus/net.4.5.2.x64.etl
failures=0

fail() {
	echo "etl_containers: $*"
	failures=$((failures + 1))
}

[ -f "$x64" ] || { echo "etl_containers: the ETL corpus is missing ($corpus)"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "SKIPPED: python3 is missing"; exit 77; }
mkdir -p "$TMPDIR/out"
"$PROFCONV" convert -q -t folded -o "$TMPDIR/alone.folded" "$x64" || fail "the trace alone does not convert"

python3 - "$x64" "$TMPDIR" <<'PY'
import sys, zipfile
trace, out = sys.argv[1], sys.argv[2]
prefix = "{5A1E3E1B-0C5A-4E52-9E1D-1B2C3D4E5F60}"
def meta(*names):
    resources = "".join('<Resource Id="r%d" Type="DiagnosticsHub.Resource.EtlFile" Name="%s" '
                        'ResourcePackageUriPrefix="%s"/>' % (i, n, prefix) for i, n in enumerate(names))
    return ('<?xml version="1.0" encoding="utf-8"?><DiagnosticsHubPackage Version="1.0">'
            '<Resources>%s<Resource Id="s" Type="DiagnosticsHub.Resource.SymbolCache" '
            'Name="x" ResourcePackageUriPrefix="y"/></Resources></DiagnosticsHubPackage>' % resources)
def package(name, metadata, members, metadata_first=True):
    with zipfile.ZipFile("%s/%s.diagsession" % (out, name), "w", zipfile.ZIP_DEFLATED) as z:
        if metadata_first and metadata is not None:
            z.writestr("metadata.xml", metadata)
        for member in members:
            z.write(trace, "%s/%s" % (prefix, member))
        if not metadata_first and metadata is not None:
            z.writestr("metadata.xml", metadata)
package("first", meta("sc.user_aux.etl"), ["sc.user_aux.etl"])
package("last", meta("sc.user_aux.etl"), ["sc.user_aux.etl"], metadata_first=False)
package("two", meta("a.etl", "b.etl"), ["a.etl", "b.etl"])
package("no-metadata", None, ["sc.user_aux.etl"])
package("no-etl", meta(), [])
package("missing-member", meta("gone.etl"), ["sc.user_aux.etl"])
open(out + "/ole.diagsession", "wb").write(bytes.fromhex("d0cf11e0a1b11ae1") + bytes(504))
open(out + "/notzip.diagsession", "wb").write(b"PK\x03\x04" + bytes(60))
PY

for name in first last; do
	"$PROFCONV" convert -q -t folded -o "$TMPDIR/$name.folded" "$TMPDIR/$name.diagsession" ||
		{ fail "$name: the package does not convert"; continue; }
	cmp -s "$TMPDIR/alone.folded" "$TMPDIR/$name.folded" || fail "$name: not the trace's profile"
done
cat "$TMPDIR/first.diagsession" | "$PROFCONV" convert -q -f diagsession -t folded \
	-o "$TMPDIR/stdin.folded" - || fail "the package from stdin does not convert"
cmp -s "$TMPDIR/alone.folded" "$TMPDIR/stdin.folded" || fail "stdin: not the trace's profile"
"$PROFCONV" convert -q -t folded -o "$TMPDIR/two.folded" "$TMPDIR/two.diagsession" ||
	fail "two traces: no conversion"
[ "$(awk '{ s += $NF } END { print s }' "$TMPDIR/two.folded")" = 159056 ] ||
	fail "two traces: not twice the 79528 samples"

refused() { # NAME WORDS
	"$PROFCONV" convert -f diagsession -t folded -o "$TMPDIR/out/x.folded" "$TMPDIR/$1.diagsession" \
		2>"$TMPDIR/$1.err"
	status=$?
	[ "$status" = 1 ] || fail "$1: exit $status, expected 1"
	[ "$(wc -l <"$TMPDIR/$1.err")" = 1 ] && grep -q "$2" "$TMPDIR/$1.err" ||
		fail "$1: expected one message with '$2': $(cat "$TMPDIR/$1.err")"
	[ -z "$(ls "$TMPDIR/out")" ] || { fail "$1: left files behind"; rm -f "$TMPDIR/out"/*; }
}
refused no-metadata "member 'metadata.xml' is not in the package"
refused no-etl "lists no DiagnosticsHub.Resource.EtlFile resource"
refused missing-member "gone.etl' is not in the package"
refused ole "OLE compound-file package"
refused notzip "not a readable ZIP"

# --- a .vsp naming the trace ---
mkdir -p "$TMPDIR/session"
"$build/tools/vspgen" '--kernel_etl_path=C:\Trace\session.kernel.etl' "$TMPDIR/session/s.vsp" ||
	fail "vspgen failed"
cp "$x64" "$TMPDIR/session/session.kernel.etl"
"$PROFCONV" convert -q -t folded -o "$TMPDIR/vsp.folded" "$TMPDIR/session/s.vsp" ||
	fail "the .vsp does not convert with its trace beside it"
cmp -s "$TMPDIR/alone.folded" "$TMPDIR/vsp.folded" || fail "vsp: not the trace's profile"
rm "$TMPDIR/session/session.kernel.etl"
"$PROFCONV" convert -t folded -o "$TMPDIR/out/v.folded" "$TMPDIR/session/s.vsp" 2>"$TMPDIR/vsp.err" &&
	fail "vsp without its trace: converted"
grep -q "none of the ETL files it names was found" "$TMPDIR/vsp.err" ||
	fail "vsp without its trace: $(cat "$TMPDIR/vsp.err")"

[ "$failures" = 0 ] || { echo "etl_containers: $failures failure(s)"; exit 1; }
echo "etl_containers: .diagsession (first, last, stdin, two traces, 5 refusals) and .vsp checked"
