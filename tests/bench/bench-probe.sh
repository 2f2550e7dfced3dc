#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The probe's cost against the floor measured in the same run.
#  - CPU time per sample while 100 job processes run, as the difference
#    between a long and a short run (start-up cancels out), against
#    build/tests/bench/floor doing the least a sampler can: open, read and
#    close the node files and each process's files the probe reads (stat,
#    io, status, wchan, syscall, schedstat, stack as root, numa_maps every
#    tenth time).  Target: at most 0.5x the floor.
#  - Peak RSS of the probe (target under 1 MiB) and its size (under 150 KB).
#  - Bytes on the wire per node per sample at steady state for the node
#    sources at 1 Hz (target under 100), and with the 100 ranks.
set -eu
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
PROBE=${PROBE:-$TOP/jobtop-probe}
FLOOR=$TOP/build/tests/bench/floor
[ -x "$PROBE" ] && [ -x "$FLOOR" ] || { echo "build first: make tests-build"; exit 1; }
tmp=$(mktemp -d)
JOB=990001
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
for i in $(seq 0 99); do
	SLURM_JOB_ID=$JOB SLURM_PROCID=$i sleep 600 &
	pids+=($!)
done
printf '%s\n' "${pids[@]}" >"$tmp/pids"
sleep 0.5

N1=50 N2=550 REPS=3
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

probe_cpu() {	# samples -> cpu us
	"$FLOOR" run "$PROBE" --job $JOB --interval 0.01 --count "$1" \
	    </dev/null 2>&1 >"$tmp/out.$1" | tail -n 1
}
per_sample() {	# fn -> median per-sample us over REPS
	for r in $(seq $REPS); do
		a=$($1 $N1 | cut -d' ' -f1); b=$($1 $N2 | cut -d' ' -f1)
		echo "$(( (b - a) ))"
	done | median | awk -v n=$((N2 - N1)) '{printf "%.1f", $1 / n}'
}
floor_cpu() { "$FLOOR" loop "$1" "$tmp/pids"; }

ranks=$(grep -c . "$tmp/pids")
probe_us=$(per_sample probe_cpu)
floor_us=$(per_sample floor_cpu)
rss_kb=$("$FLOOR" run "$PROBE" --job $JOB --interval 0.01 --count 200 </dev/null 2>&1 >/dev/null | tail -n 1 | cut -d' ' -f2)
size=$(stat -c %s "$PROBE")
ratio=$(awk -v p="$probe_us" -v f="$floor_us" 'BEGIN {printf "%.2f", p / f}')
printf 'probe cpu per sample (%d ranks): %s us; floor: %s us; ratio %s (target <= 0.50)\n' \
    "$ranks" "$probe_us" "$floor_us" "$ratio"
printf 'probe peak rss: %s KiB (target < 1024)\n' "$rss_kb"
printf 'probe binary: %s bytes (target < 153600)\n' "$size"

# Wire bytes at 1 Hz: node sources only (no job matches), then with ranks.
"$PROBE" --job 1 --interval 1 --count 12 </dev/null >"$tmp/node.bin"
read -r node_b node_n first_b < <(python3 "$TOP/tests/bench/frames.py" "$tmp/node.bin" 2)
"$PROBE" --job $JOB --interval 1 --count 6 </dev/null >"$tmp/ranks.bin"
read -r rank_b rank_n _ < <(python3 "$TOP/tests/bench/frames.py" "$tmp/ranks.bin" 2)
printf 'wire bytes per sample at 1 Hz, node sources: %s (mean of %s; target < 100); HELLO+SCHEMA once: %s\n' \
    "$node_b" "$node_n" "$first_b"
printf 'wire bytes per sample at 1 Hz with %d idle ranks: %s\n' "$ranks" "$rank_b"

fail=0
awk -v r="$ratio" 'BEGIN {exit !(r <= 0.5)}' || { echo "MISS: cpu ratio"; fail=1; }
[ "$rss_kb" -lt 1024 ] || { echo "MISS: rss"; fail=1; }
[ "$size" -lt 153600 ] || { echo "MISS: size"; fail=1; }
awk -v b="$node_b" 'BEGIN {exit !(b < 100)}' || { echo "MISS: wire bytes"; fail=1; }
exit $fail
