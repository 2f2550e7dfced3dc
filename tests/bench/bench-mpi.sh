#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The mpi source's cost: the probe's CPU time per sample with MPI sampling
# on against the same run with it off (JOBTOP_MPI_SAMPLE=0), at 4 and at
# 64 ranks on this node, each rank a process linked to the real libmpich
# (tests/data/mpi/spin.c: half of its time in its own loop, half in
# libmpich) under nice 19, so that there are samples to drain and
# attribute.  CPU per sample is the difference between a long and a short
# run of the probe at -d 0.1 (start-up cancels out), median of 5 runs
# each way, interleaved; the
# rate the source settled on (rankmpi.hz) is printed too.  Target: at most
# +20% with sampling on.  Run it alone (flock -o /tmp/jobtop-lab.lock):
# other work on the machine changes what the ranks get of the CPU.
set -eu
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
PROBE=${PROBE:-$TOP/jobtop-probe}
JOBTOP=${JOBTOP:-$TOP/jobtop}
FLOOR=$TOP/build/tests/bench/floor
[ -x "$PROBE" ] && [ -x "$FLOOR" ] || { echo "build first: make tests-build"; exit 1; }
command -v mpicc.mpich >/dev/null || { echo "no mpicc.mpich (MPICH)"; exit 1; }
tmp=$(mktemp -d)
pids=()
cleanup() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
mpicc.mpich -O2 -o "$tmp/spin" "$TOP/tests/data/mpi/spin.c"

N1=20 N2=120 REPS=5
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
probe_cpu() {	# job samples -> cpu us
	"$FLOOR" run "$PROBE" --job "$1" --interval 0.1 --count "$2" \
	    </dev/null 2>&1 >"$tmp/out.$2${JOBTOP_MPI_SAMPLE:-}" |
	    tail -n 1 | cut -d' ' -f1
}
# Both ways, REPS times, interleaved (the load of the machine drifts):
# "ON_US OFF_US", each the median of its per-sample figures.
per_sample() {	# job
	for r in $(seq $REPS); do
		a=$(probe_cpu "$1" $N1); b=$(probe_cpu "$1" $N2)
		echo "on $((b - a))"
		a=$(JOBTOP_MPI_SAMPLE=0 probe_cpu "$1" $N1)
		b=$(JOBTOP_MPI_SAMPLE=0 probe_cpu "$1" $N2)
		echo "off $((b - a))"
	done >"$tmp/runs"
	for k in on off; do
		grep "^$k " "$tmp/runs" | cut -d' ' -f2 | median |
		    awk -v n=$((N2 - N1)) '{printf "%.1f ", $1 / n}'
	done
	echo
}

fail=0
for n in 4 64; do
	job=$((990500 + n))
	for i in $(seq 0 $((n - 1))); do
		SLURM_JOB_ID=$job SLURM_PROCID=$i nice -n 19 "$tmp/spin" &
		pids+=($!)
	done
	sleep 1
	read -r on off < <(per_sample $job)
	hz=$("$JOBTOP" --decode --json <"$tmp/out.$N2" | python3 -c '
import json, sys
hz = set()
for l in sys.stdin:
    r = json.loads(l)
    hz.update(r.get("rankmpi.hz", {}).values())
print("/".join(str(h) for h in sorted(hz)) or "-")')
	ratio=$(awk -v a="$on" -v b="$off" 'BEGIN {printf "%.2f", a / b}')
	printf 'probe cpu per sample, %d ranks: mpi sampling on %s us, off %s us; ratio %s (target <= 1.20); rate %s Hz\n' \
	    "$n" "$on" "$off" "$ratio" "$hz"
	awk -v r="$ratio" 'BEGIN {exit !(r <= 1.2)}' ||
	    { echo "MISS: $n ranks"; fail=1; }
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	pids=()
done
exit $fail
