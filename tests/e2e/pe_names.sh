#!/bin/sh
# SPT of real Windows programs -> pprof -> function names in the real pprof.
#
# scripts/make-pe.sh builds the two programs behind samples/demo-pe.spt
# (demo-app.exe with clang/lld-link and a PDB, demo-tool.exe with mingw-w64
# gcc and DWARF). Then:
#   - each program line of samples/demo-pe.sptspec holds its build's PDB
#     GUID and age (llvm-readobj's CodeView debug directory);
#   - llvm-symbolizer, asked directly (VA = ImageBase + RVA), names each
#     RVA of the spec; the expected flat count of every function is the sum
#     of the unhalt_cycle hits of its RVAs, and the functions are exactly
#     the seven of samples/pe/;
#   - `profconv convert` of samples/demo-pe.spt gives a pprof in which the
#     real `pprof -top`, with PPROF_BINARY_PATH naming the build and
#     llvm-symbolizer on PATH, shows each of those functions with exactly
#     that flat count, and `pprof -raw` gives every location a line;
#   - protoc: mapping 1 is /C:/build/demo-app.exe (the spec's
#     C:\build\demo-app.exe) at 1 << 40, no build id, has_functions unset,
#     and a comment holds its PDB GUID and age; with --pe-build-ids the
#     build id is the GUID+age key;
#   - an RVA below 0x1000 (a PE's headers) stays on a location without a
#     mapping, with its count, and one warning says so;
#   - `profconv convert --symbols DIR -t folded` (no pprof) names the same
#     functions with the same counts, and refuses a binary whose PDB age
#     differs from the trace's (with a warning) while naming the other.
#
# Environment (tests/run.sh): PROFCONV, PPROF, BUILD, SAMPLES, TMPDIR.
# Exit 0 pass, 77 skipped (with a "SKIPPED:" line), else fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
samples=${SAMPLES:-$top/samples}
proto="$top/proto"

skip() {
	echo "SKIPPED: $*"
	exit 77
}

[ -x "${PROFCONV:-}" ] || skip "profconv is not built (${PROFCONV:-PROFCONV unset})"
[ -x "${PPROF:-}" ] || skip "pprof is not built; run: make build/tools/pprof"
for tool in clang-14 x86_64-w64-mingw32-gcc llvm-readobj-14 llvm-symbolizer protoc python3; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool is missing (sh scripts/setup.sh installs it)"
done

fail() {
	echo "pe_names: $*"
	exit 1
}

bins="$TMPDIR/pe"
# (built into a relative directory: the builds must not depend on where they are)
(cd "$TMPDIR" && sh "$top/scripts/make-pe.sh" pe) 2>"$TMPDIR/make-pe.err" ||
	{ cat "$TMPDIR/make-pe.err"; fail "scripts/make-pe.sh failed"; }

# The GUID, age and image base of each built program.
for exe in demo-app demo-tool; do
	llvm-readobj-14 --file-headers --coff-debug-directory "$bins/$exe.exe" >"$TMPDIR/$exe.obj" ||
		fail "llvm-readobj-14 cannot read $exe.exe"
done

# What llvm-symbolizer names at each RVA of the spec, and the flat count
# each function must have.
cat >"$TMPDIR/expect.py" <<'EOF'
import re
import subprocess
import sys

spec, bins, tmp = sys.argv[1:4]
FILES = {"C:\\build\\demo-app.exe": "demo-app", "demo-tool.exe": "demo-tool"}
FUNCTIONS = {"checksum_block", "parse_record", "hash_lookup", "copy_bytes", "main",
             "tool_scan", "tool_sort"}


def readobj(name):
    text = open("%s/%s.obj" % (tmp, name)).read()
    base = int(re.search(r"ImageBase: (0x[0-9A-Fa-f]+)", text).group(1), 16)
    guid = bytes(int(b, 16) for b in re.search(r"PDBGUID: \(([0-9A-F ]+)\)", text).group(1).split())
    age = int(re.search(r"PDBAge: (\d+)", text).group(1))
    text_guid = "{%08X-%04X-%04X-%s-%s}" % (
        int.from_bytes(guid[0:4], "little"), int.from_bytes(guid[4:6], "little"),
        int.from_bytes(guid[6:8], "little"), guid[8:10].hex().upper(), guid[10:16].hex().upper())
    return base, text_guid, age


programs, hits, errors = [], {}, []
current, repeat = None, 0
for line in open(spec):
    words = line.split()
    if not words or words[0].startswith("#"):
        continue
    if words[0] == "program":
        guid, age, name = line.split(None, 3)[1:]
        name = name.strip()
        base, real_guid, real_age = readobj(FILES[name])
        if (guid, int(age, 0)) != (real_guid, real_age):
            errors.append("%s: the spec says %s age %s, the build has %s age %d"
                          % (name, guid, age, real_guid, real_age))
        programs.append((FILES[name], base))
    elif words[0] == "segment":
        current = programs[int(words[1])]
    elif words[0] == "repeat":
        repeat = int(words[1])
    elif words[0] in ("ip", "callstack"):
        if words[0] == "ip" and words[1] == "unhalt_cycle":
            for rva in words[2:]:
                key = (current, int(rva, 16))
                hits[key] = hits.get(key, 0) + 1 + repeat
        repeat = 0

flat = {}
for (program, base) in programs:
    rvas = sorted(rva for (p, rva) in hits if p == (program, base))
    query = "".join("0x%x\n" % (base + rva) for rva in rvas)
    out = subprocess.run(["llvm-symbolizer", "--obj=%s/%s.exe" % (bins, program)],
                         input=query, capture_output=True, text=True, check=True).stdout
    answers = [block.split("\n")[0] for block in out.strip().split("\n\n")]
    for rva, function in zip(rvas, answers):
        flat[function] = flat.get(function, 0) + hits[((program, base), rva)]
if set(flat) != FUNCTIONS:
    errors.append("llvm-symbolizer names %s, expected %s" % (sorted(flat), sorted(FUNCTIONS)))
for error in errors:
    print("pe_names: " + error)
for function, count in sorted(flat.items()):
    print(function, count)
sys.exit(1 if errors else 0)
EOF
python3 "$TMPDIR/expect.py" "$samples/demo-pe.sptspec" "$bins" "$TMPDIR" >"$TMPDIR/expected" ||
	{ cat "$TMPDIR/expected"; fail "samples/demo-pe.sptspec does not match the build"; }

"$PROFCONV" convert -q -o "$TMPDIR/pe.pb.gz" "$samples/demo-pe.spt" || fail "convert failed"

# pprof, as a user runs it: no HOME state, the binaries on the search path.
view() {
	(cd "$TMPDIR" && HOME="$TMPDIR" PPROF_TMPDIR="$TMPDIR" PPROF_BINARY_PATH="$bins" \
		"$PPROF" "$@" 2>"$TMPDIR/pprof.err")
}
view -top -nodefraction=0 -nodecount=100 "$TMPDIR/pe.pb.gz" >"$TMPDIR/top" ||
	{ cat "$TMPDIR/pprof.err"; fail "pprof -top failed"; }
awk '$NF !~ /%$/ && $2 ~ /%$/ && $4 ~ /^[0-9]/ { print $6, $1 }' "$TMPDIR/top" | sort >"$TMPDIR/got"
diff "$TMPDIR/expected" "$TMPDIR/got" >"$TMPDIR/diff" ||
	{ cat "$TMPDIR/top" "$TMPDIR/diff"; fail "pprof -top does not show the expected names and flat counts"; }
view -raw "$TMPDIR/pe.pb.gz" >"$TMPDIR/raw" || fail "pprof -raw failed"
unnamed=$(sed -n '/^Locations/,/^Mappings/p' "$TMPDIR/raw" | grep -c '^ *[0-9]*: 0x[0-9a-f]* M=[0-9]* *$')
[ "$unnamed" -eq 0 ] || { cat "$TMPDIR/raw"; fail "$unnamed locations without a name"; }

# profconv's own symbolizer, with no pprof involved: the same names and
# counts in folded output (leaf = the function).
"$PROFCONV" convert -q --symbols "$bins" -t folded -o "$TMPDIR/named.folded" "$samples/demo-pe.spt" ||
	fail "convert --symbols failed"
awk '{ n = split($1, f, ";"); sum[f[n]] += $2 } END { for (k in sum) print k, sum[k] }' \
	"$TMPDIR/named.folded" | sort >"$TMPDIR/folded.got"
diff "$TMPDIR/expected" "$TMPDIR/folded.got" >"$TMPDIR/folded.diff" ||
	{ cat "$TMPDIR/named.folded" "$TMPDIR/folded.diff"; fail "--symbols does not name the frames as llvm-symbolizer does"; }
# A binary whose PDB GUID differs from the trace's is refused, not used.
sed 's/^program {4EE456C6-5835-9620-4C4C-44205044422E} 1/program {4EE456C6-5835-9620-4C4C-44205044422E} 2/' \
	"$samples/demo-pe.sptspec" >"$TMPDIR/rebuilt.sptspec"
"$build/tools/sptgen" "$TMPDIR/rebuilt.sptspec" "$TMPDIR/rebuilt.spt" || fail "sptgen failed"
"$PROFCONV" convert --symbols "$bins" -t folded -o "$TMPDIR/rebuilt.folded" "$TMPDIR/rebuilt.spt" \
	2>"$TMPDIR/rebuilt.err" || { cat "$TMPDIR/rebuilt.err"; fail "convert --symbols of a mismatched trace failed"; }
grep -q "^profconv: warning: symbols: $bins/demo-app.exe: its PDB GUID and age differ from the profile's; not used\$" \
	"$TMPDIR/rebuilt.err" || { cat "$TMPDIR/rebuilt.err"; fail "no warning for the mismatched PDB age"; }
if grep -q 'checksum_block' "$TMPDIR/rebuilt.folded" || ! grep -q '^tool_sort 3600$' "$TMPDIR/rebuilt.folded"; then
	cat "$TMPDIR/rebuilt.folded"
	fail "the mismatched binary was used, or the matching one was not"
fi

# The mapping and its comment, as protoc reads them.
decode() {
	gzip -dc "$1" | protoc --decode=perftools.profiles.Profile -I "$proto" "$proto/profile.proto"
}
decode "$TMPDIR/pe.pb.gz" >"$TMPDIR/decoded" || fail "protoc cannot decode the profile"
cat >"$TMPDIR/mapping.py" <<'EOF'
import re
import sys

text = open(sys.argv[1]).read()
strings = [s.encode("latin-1", "backslashreplace").decode("unicode_escape")
           for s in re.findall(r'^string_table: "(.*)"$', text, re.M)]
mapping = re.search(r"^mapping \{\n(.*?)^\}", text, re.M | re.S).group(1)
fields = dict(re.findall(r"^\s+(\w+): (\S+)$", mapping, re.M))
comments = [strings[int(i)] for i in re.findall(r"^comment: (\d+)$", text, re.M)]
want = {"id": "1", "memory_start": str(1 << 40), "memory_limit": str((1 << 40) + 0x1153)}
errors = ["mapping 1 %s is %s, expected %s" % (k, fields.get(k), v)
          for k, v in want.items() if fields.get(k) != v]
if strings[int(fields.get("filename", 0))] != "/C:/build/demo-app.exe":
    errors.append("mapping 1 file %r" % strings[int(fields.get("filename", 0))])
if sys.argv[2] == "plain":
    errors += ["mapping 1 has %s" % k for k in ("build_id", "has_functions", "file_offset")
               if k in fields]
    note = "mapping 1 /C:/build/demo-app.exe: PDB {4EE456C6-5835-9620-4C4C-44205044422E} age 0x1"
    if note not in comments:
        errors.append("no comment %r among %r" % (note, comments))
elif strings[int(fields.get("build_id", 0))] != "4ee456c6583596204c4c44205044422e1":
    errors.append("--pe-build-ids: build id %r" % strings[int(fields.get("build_id", 0))])
for error in errors:
    print("pe_names: " + error)
sys.exit(1 if errors else 0)
EOF
python3 "$TMPDIR/mapping.py" "$TMPDIR/decoded" plain || fail "mapping 1 is not the PE recipe"
"$PROFCONV" convert -q --pe-build-ids -o "$TMPDIR/ids.pb.gz" "$samples/demo-pe.spt" ||
	fail "convert --pe-build-ids failed"
decode "$TMPDIR/ids.pb.gz" >"$TMPDIR/ids.decoded" || fail "protoc cannot decode the --pe-build-ids profile"
python3 "$TMPDIR/mapping.py" "$TMPDIR/ids.decoded" ids || fail "--pe-build-ids sets no build id"

# An RVA in the headers: kept, without a mapping, with one warning.
cat >"$TMPDIR/headers.sptspec" <<'EOF'
program {4EE456C6-5835-9620-4C4C-44205044422E} 1 demo-app.exe
segment 0
repeat 6
ip unhalt_cycle 0x10 0x1010
EOF
"$build/tools/sptgen" "$TMPDIR/headers.sptspec" "$TMPDIR/headers.spt" || fail "sptgen failed"
"$PROFCONV" convert -o "$TMPDIR/headers.pb.gz" "$TMPDIR/headers.spt" 2>"$TMPDIR/headers.err" ||
	{ cat "$TMPDIR/headers.err"; fail "convert of an RVA below 0x1000 failed"; }
grep -qx 'profconv: warning: pprof: 1 locations lie below RVA 0x1000, in a PE image.s headers: kept without a mapping, as pprof would misplace names there' \
	"$TMPDIR/headers.err" || { cat "$TMPDIR/headers.err"; fail "no warning for the RVA below 0x1000"; }
view -raw "$TMPDIR/headers.pb.gz" >"$TMPDIR/headers.raw" || fail "pprof -raw failed on the headers profile"
grep -q '^ *1: 0x10 *$' "$TMPDIR/headers.raw" &&
	grep -q '^ *7: 1 *$' "$TMPDIR/headers.raw" ||
	{ cat "$TMPDIR/headers.raw"; fail "the RVA 0x10 is not on an unmapped location with its 7 hits"; }
echo "pe_names: $(wc -l <"$TMPDIR/expected") functions named with exact flat counts by pprof and by --symbols"
