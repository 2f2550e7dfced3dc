#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The monitor's cost: target under 5 ms of CPU to build and draw one frame
# of a 1024-node job with 32 ranks per node.
#  - Frames: build/tests/test-ui-big with JOBTOP_BENCH=1 feeds synthetic
#    probe streams of 1024 nodes x 32 ranks through the real decoder,
#    history and detectors and draws into a 200x60 curses screen on
#    /dev/null: CPU ms per frame of the node table (folded, and flat with
#    1024 rows), of every rank (32768 rows: rebuilt after new data, and
#    redrawn for a key), and of one rank's detail; the ratio to 5 ms.
#  - CPU per second at 1 Hz for those 1024 nodes: decoding, history,
#    detectors, a job tick and one frame (SSH is not in it).
#  - The same two with every optional source on every node ("+src": two
#    GPUs, InfiniBand, Lustre, NFS, RAPL, sensors, perf and NUMA per rank).
#  - The real monitor at 1 Hz on this machine (-w localhost, a local probe)
#    in a tmux pane for 20 s: its CPU per second from /proc.
set -eu
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
JOBTOP=${JOBTOP:-$TOP/jobtop}
BIG=$TOP/build/tests/test-ui-big
[ -x "$BIG" ] && [ -x "$JOBTOP" ] || { echo "build first: make tests-build"; exit 1; }
target=5

out=$(JOBTOP_BENCH=1 "$BIG")
echo "$out" | grep -v 'checks,' | while read -r name value unit; do
	case $name in
	frame_*) printf '%-24s %8.3f %s  (%.2fx the %d ms target)\n' \
		"$name" "$value" "$unit" "$(echo "$value / $target" | bc -l)" "$target" ;;
	*) printf '%-24s %8.2f %s\n' "$name" "$value" "$unit" ;;
	esac
done
echo "$out" | grep -q ' 0 failed' || { echo "the benchmark's checks failed"; exit 1; }

# The same with every optional source on every node (GPUs, InfiniBand,
# Lustre, NFS, RAPL, sensors, perf and NUMA of each rank).
out=$(JOBTOP_BENCH=1 JOBTOP_BENCH_SOURCES=1 "$BIG")
echo "$out" | grep '^frame_\|^cpu_' | while read -r name value unit; do
	case $name in
	frame_*) printf '%-24s %8.3f %s  (%.2fx the %d ms target)\n' \
		"${name}+src" "$value" "$unit" "$(echo "$value / $target" | bc -l)" "$target" ;;
	*) printf '%-24s %8.2f %s\n' "${name}+src" "$value" "$unit" ;;
	esac
done
echo "$out" | grep -q ' 0 failed' || { echo "the benchmark's checks failed (sources)"; exit 1; }

if command -v tmux >/dev/null; then
	sock=jtbench-$$
	tmux -L "$sock" new-session -d -s b -x 160 -y 50 \
		"$JOBTOP --no-record -d 1 -w localhost; sleep 60"
	trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT
	sleep 3
	pid=$(pgrep -n -f "^$JOBTOP --no-record -d 1 -w localhost" || true)
	if [ -n "$pid" ]; then
		tck=$(getconf CLK_TCK)
		t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
		sleep 20
		t2=$(awk '{print $14 + $15}' "/proc/$pid/stat")
		rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
		printf '%-24s %8.2f ms  (%.3f%% of a CPU)\n' live_1hz_cpu_per_second \
			"$(echo "($t2 - $t1) * 1000 / $tck / 20" | bc -l)" \
			"$(echo "($t2 - $t1) * 100 / $tck / 20" | bc -l)"
		printf '%-24s %8d KiB\n' live_peak_rss "$rss"
	else
		echo "live_1hz: jobtop did not start in tmux"
	fi
fi

# The replay screen on a one-hour recording of 64 nodes at 1 Hz (made by
# build/tests/test-rec --gen): a seek 60 s before the end with 150 s of
# history rebuilt, then a step back and a step forward (history and
# detectors rebuilt to match).  Targets: a step under 30 ms, a seek
# under 100 ms.  BENCH_BASE_TESTS: the build/tests directory of a
# baseline (e.g. main), run alternately in the same run for the ratios.
# Medians of BENCH_REPLAY_REPS (5) runs each.
REPLAY=$TOP/build/tests/test-replay
GEN=$TOP/build/tests/test-rec
if [ -x "$REPLAY" ] && [ -x "$GEN" ]; then
	rtmp=$(mktemp -d)
	trap 'tmux -L "${sock:-x}" kill-server 2>/dev/null || true; rm -rf "$rtmp"' EXIT
	"$GEN" --gen "$rtmp/big.jtr" 64 3600 >/dev/null
	reps=${BENCH_REPLAY_REPS:-5}
	for r in $(seq "$reps"); do
		"$REPLAY" --seek "$rtmp/big.jtr" 60 >>"$rtmp/new.out"
		if [ -n "${BENCH_BASE_TESTS:-}" ]; then
			"$BENCH_BASE_TESTS/test-replay" --seek "$rtmp/big.jtr" 60 >>"$rtmp/base.out"
		fi
	done
	# med FILE WHAT [cpu]: the median ms of "WHAT N ms" in FILE's lines,
	# or of its "(cpu N ms)".
	med() {
		if [ "${3:-}" = cpu ]; then
			sed -n "s/.*$2 [0-9.]* ms (cpu \\([0-9.]*\\) ms).*/\\1/p" "$1"
		else
			sed -n "s/.*$2 \\([0-9.]*\\) ms.*/\\1/p" "$1"
		fi | sort -n |
		    awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print -1}'
	}
	# CPU time beside the wall time: on a loaded machine the wall time
	# includes waiting for a CPU.
	for what in "rebuilt" "step back" "step forward"; do
		t=$([ "$what" = rebuilt ] && echo 100 || echo 30)
		label=$([ "$what" = rebuilt ] && echo seek || echo "${what// /_}")
		for k in wall cpu; do
			n=$(med "$rtmp/new.out" "$what" $k)
			if [ -s "$rtmp/base.out" ]; then
				b=$(med "$rtmp/base.out" "$what" $k)
				printf 'replay_%-13s %-4s %8.1f ms  baseline %8.1f ms (%.2fx)  target < %d ms\n' \
				    "$label" "$k" "$n" "$b" "$(awk -v n="$n" -v b="$b" 'BEGIN {print (b > 0 ? n / b : 0)}')" "$t"
			else
				printf 'replay_%-13s %-4s %8.1f ms  target < %d ms\n' "$label" "$k" "$n" "$t"
			fi
		done
	done
fi
