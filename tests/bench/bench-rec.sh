#!/usr/bin/env bash
# Recording costs, each against its target or baseline measured in the
# same run:
#  - bytes on disk per node-hour at 1 Hz for this machine (`-w localhost`,
#    node sources and the processes jobtop lists without a job), from 60 s
#    of recording extrapolated to an hour, against `atop -w FILE 1` over
#    the same 60 s.  Target: at most a tenth of atop's bytes.
#  - the time to open a one-hour recording of 64 nodes at 1 Hz (230,464
#    probe-like samples, made by build/tests/test-rec --gen) and seek to
#    its last minute.  Target: under 50 ms.  CPU time is shown too: on a
#    loaded machine the wall time includes waiting for a CPU.  Then the
#    replay screen's open and seek (history rebuilt) on the same file.
set -eu
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
JOBTOP=${JOBTOP:-$TOP/jobtop}
TESTREC=$TOP/build/tests/test-rec
[ -x "$JOBTOP" ] && [ -x "$TESTREC" ] || { echo "build first: make tests-build"; exit 1; }
tmp=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
export XDG_STATE_HOME=$tmp/state
SECS=${BENCH_REC_SECS:-60}
fail=0

# 1. Bytes per node-hour against atop, side by side.
"$JOBTOP" -w localhost -b -d 1 -n $((SECS + 1)) -o "$tmp/local.jtr" \
    >/dev/null 2>"$tmp/jobtop.err" &
pids+=($!)
have_atop=0
if command -v atop >/dev/null 2>&1; then
	have_atop=1
	atop -w "$tmp/atop.raw" 1 $((SECS + 1)) >/dev/null 2>&1 &
	pids+=($!)
fi
wait "${pids[@]}" || true
pids=()
jb=$(stat -c %s "$tmp/local.jtr")
jh=$((jb * 3600 / SECS))
printf 'recording, this machine at 1 Hz: %d bytes in %d s; %d bytes per node-hour (extrapolated)\n' \
    "$jb" "$SECS" "$jh"
if [ $have_atop -eq 1 ] && [ -s "$tmp/atop.raw" ]; then
	ab=$(stat -c %s "$tmp/atop.raw")
	ah=$((ab * 3600 / SECS))
	ratio=$(awk -v j="$jb" -v a="$ab" 'BEGIN {printf "%.3f", j / a}')
	printf 'atop -w at 1 Hz, same %d s: %d bytes; %d bytes per hour\n' \
	    "$SECS" "$ab" "$ah"
	printf 'ratio jobtop/atop: %s (target <= 0.100)\n' "$ratio"
	awk -v r="$ratio" 'BEGIN {exit !(r <= 0.1)}' ||
		{ echo "MISS: recording bytes"; fail=1; }
else
	echo "atop is not installed (or wrote nothing): no baseline"
fi

# 2. Open and seek in a one-hour recording of 64 nodes.
start=$(date +%s.%N)
"$TESTREC" --gen "$tmp/big.jtr" 64 3600 >"$tmp/gen.out"
end=$(date +%s.%N)
size=$(stat -c %s "$tmp/big.jtr")
printf 'generated 64 nodes x 1 h at 1 Hz (230464 samples): %d bytes (%d per node-hour) in %.1f s\n' \
    "$size" $((size / 64)) "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')"
"$TESTREC" --seek "$tmp/big.jtr" 60 | tee "$tmp/seek.out"
ms=$(sed -n 's/^open+seek \([0-9.]*\) ms.*/\1/p' "$tmp/seek.out")
printf 'open+seek to the last minute: %s ms; ratio to the target %s (target < 50 ms)\n' \
    "$ms" "$(awk -v m="$ms" 'BEGIN {printf "%.2f", m / 50}')"
awk -v m="$ms" 'BEGIN {exit !(m < 50)}' || { echo "MISS: seek time"; fail=1; }
# The replay screen's seek on the same file: 150 columns of sparklines
# rebuilt (history and detectors, not only the decoders).  No target: a
# big job's rebuilding goes a slice per loop pass.
if [ -x "$TOP/build/tests/test-replay" ]; then
	printf 'replay screen: '
	"$TOP/build/tests/test-replay" --seek "$tmp/big.jtr" 60
fi
exit $fail
