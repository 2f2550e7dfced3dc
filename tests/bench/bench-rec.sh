#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Recording costs, each against its target or baseline measured in the
# same run:
#  - bytes on disk per node-hour at 1 Hz, from 60 s of recording
#    extrapolated to an hour, against `atop -w FILE 1` over the same 60 s
#    on the same machine (atop records one host: its figure is per
#    host-hour).  Two recordings: (a) a 4-node job of the lab cluster
#    (tests/lab, brought up and down here when it is not up; root only;
#    BENCH_REC_LAB=0 skips it), the job's ranks computing; (b) this
#    machine as one node (`-w localhost`: node sources and the processes
#    jobtop lists without a job).  Target: at most a tenth of atop's bytes
#    per node-hour.
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
trap cleanup EXIT
export XDG_STATE_HOME=$tmp/state
SECS=${BENCH_REC_SECS:-60}
fail=0

# 1. Bytes per node-hour against atop, side by side.
lab_started=0
labjob=""
cleanup() {
	kill "${pids[@]}" 2>/dev/null || true
	[ -z "$labjob" ] || lab_cancel "$labjob" >/dev/null 2>&1
	((lab_started)) && "$TOP/tests/lab/lab-down.sh" >/dev/null 2>&1
	rm -rf "$tmp"
}
labnodes=0
if [ "${BENCH_REC_LAB:-1}" != 0 ] && [ "$(id -u)" -eq 0 ]; then
	# shellcheck source=../lab/lib.sh
	. "$TOP/tests/lab/lib.sh"
	if ! lab_is_up; then
		echo "bench-rec: bringing the lab up (tests/lab/lab-up.sh 4)" >&2
		lab_started=1
		"$TOP/tests/lab/lab-up.sh" 4 >&2 || { echo "bench-rec: lab-up failed"; exit 1; }
		. "$TOP/tests/lab/lib.sh"
	fi
	# Spinning ranks, as the recordings this bench measured always had.
	labjob=$(LAB_HEALTHY_SPIN=1 lab_submit "$LAB_USER" healthy) || { echo "bench-rec: the lab job did not start"; exit 1; }
	labnodes=$LAB_N
	install -d -m 755 "$tmp/bin"
	chmod 755 "$tmp"
	install -m 755 "$JOBTOP" "$TOP/jobtop-probe" "$tmp/bin/"
	install -d -m 777 "$tmp/lab"
	lab_as "$LAB_USER" "$tmp/bin/jobtop" -b -d 1 -n $((SECS + 1)) \
	    -o "$tmp/lab/job.jtr" "$labjob" >/dev/null 2>"$tmp/lab.err" &
	pids+=($!)
fi
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
ab=0
if [ $have_atop -eq 1 ] && [ -s "$tmp/atop.raw" ]; then
	ab=$(stat -c %s "$tmp/atop.raw")
	printf 'atop -w at 1 Hz, same %d s: %d bytes; %d bytes per host-hour\n' \
	    "$SECS" "$ab" $((ab * 3600 / SECS))
else
	echo "atop is not installed (or wrote nothing): no baseline"
fi
# report LABEL BYTES NODES: bytes per node-hour and the ratio to atop's.
report() {
	local per ratio
	per=$(($2 * 3600 / SECS / $3))
	printf 'recording, %s at 1 Hz: %d bytes in %d s for %d nodes; %d bytes per node-hour\n' \
	    "$1" "$2" "$SECS" "$3" "$per"
	((ab > 0)) || return 0
	ratio=$(awk -v j="$per" -v a="$((ab * 3600 / SECS))" 'BEGIN {printf "%.3f", j / a}')
	printf 'ratio jobtop/atop per node-hour, %s: %s (target <= 0.100)\n' "$1" "$ratio"
	awk -v r="$ratio" 'BEGIN {exit !(r <= 0.1)}' ||
		{ echo "MISS: recording bytes ($1)"; fail=1; }
}
if ((labnodes > 0)); then
	if [ -s "$tmp/lab/job.jtr" ]; then
		report "lab job $labjob" "$(stat -c %s "$tmp/lab/job.jtr")" "$labnodes"
	else
		echo "MISS: the lab job's recording is empty: $(tail -1 "$tmp/lab.err")"
		fail=1
	fi
fi
report "this machine (-w localhost)" "$(stat -c %s "$tmp/local.jtr")" 1

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
