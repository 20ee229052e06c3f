#!/bin/sh
# tests/e2e/spt_samples.sh - every samples/X.spt is exactly what sptgen
# makes of samples/X.sptspec, so the committed binaries never drift from
# the specs that describe them (and that other tests compute counts from).
#
# Environment (tests/run.sh): BUILD, SAMPLES, TMPDIR. Exit 0 pass, 77 skip.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
sptgen="$build/tools/sptgen"
samples=${SAMPLES:-$top/samples}
tmp=${TMPDIR:-/tmp}

if [ ! -x "$sptgen" ]; then
	echo "SKIPPED: $sptgen is not built (make $build/tools/sptgen)"
	exit 77
fi

status=0 checked=0
for spec in "$samples"/*.sptspec; do
	[ -f "$spec" ] || continue
	name=$(basename "$spec" .sptspec)
	if [ ! -f "$samples/$name.spt" ]; then
		echo "spt_samples: $name.sptspec has no $name.spt beside it"
		status=1
		continue
	fi
	if ! "$sptgen" "$spec" "$tmp/$name.spt"; then
		echo "spt_samples: sptgen failed on $spec"
		status=1
		continue
	fi
	if ! cmp "$tmp/$name.spt" "$samples/$name.spt"; then
		echo "spt_samples: $name.spt differs from what sptgen makes of $name.sptspec"
		status=1
	fi
	# the same spec twice gives the same bytes
	"$sptgen" "$spec" "$tmp/$name.again.spt" && cmp -s "$tmp/$name.spt" "$tmp/$name.again.spt" || {
		echo "spt_samples: sptgen is not deterministic on $name.sptspec"
		status=1
	}
	checked=$((checked + 1))
done
for required in demo multi bigrepeat textsig; do
	[ -f "$samples/$required.sptspec" ] || {
		echo "spt_samples: samples/$required.sptspec is missing"
		status=1
	}
done

# --random is deterministic too
"$sptgen" --random 7 --bytes 200000 "$tmp/r1.spt" &&
	"$sptgen" --random 7 --bytes 200000 "$tmp/r2.spt" &&
	cmp -s "$tmp/r1.spt" "$tmp/r2.spt" || {
	echo "spt_samples: sptgen --random is not deterministic"
	status=1
}
[ "$status" -eq 0 ] && echo "spt_samples: $checked samples match their specs"
exit $status
