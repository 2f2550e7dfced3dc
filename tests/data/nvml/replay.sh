#!/bin/sh
# SPDX-License-Identifier: ISC
# Replays captured real NVIDIA outputs (tests/data/nvml/h100-580) as the
# probe's NVML helper or as nvidia-smi, chosen by the name it is run as:
#   jobtop-nvml --interval-ms MS   one captured block (GPU lines, proc
#                                  lines, "end") every MS, round and round
#   nvidia-smi --query-gpu=... -lms MS   one captured stream line every MS
#   nvidia-smi --query-compute-apps=...  the captured process list
# REPLAY_DIR names the directory of captures.
dir=${REPLAY_DIR:?}
ms=1000 apps=
while [ $# -gt 0 ]; do
	case $1 in
	--interval-ms|-lms) shift; ms=$1 ;;
	--query-compute-apps=*) apps=1 ;;
	esac
	shift
done
if [ -n "$apps" ]; then
	cat "$dir/nvidia-smi-apps.out"
	exit 0
fi
s=$(( ms / 1000 )).$(printf '%03d' $(( ms % 1000 )))
case ${0##*/} in
jobtop-nvml*)
	while :; do
		while IFS= read -r l; do
			echo "$l"
			[ "$l" = end ] && sleep "$s"
		done <"$dir/jobtop-nvml.out"
	done ;;
*)
	while :; do
		while IFS= read -r l; do
			echo "$l"
			sleep "$s"
		done <"$dir/nvidia-smi-stream.out"
	done ;;
esac
