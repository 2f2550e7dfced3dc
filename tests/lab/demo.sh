#!/bin/bash
# demo.sh (`make demo`): bring the lab up, start the healthy demo job as
# jtuser, watch it for 5 seconds, cancel it.  The lab stays up afterwards
# (`make lab-down` removes it).
#
# Until the monitor's SSH transport exists, "watching" is done by hand: on
# every node of the job, jtuser runs the probe through ssh and ./jobtop
# decodes its frame stream; each line is prefixed with the node's name.
# Once `./jobtop JOBID` works, the block between WATCH and END WATCH becomes:
#	lab_as "$LAB_USER" "$JOBTOP" "$job"
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
JOBTOP=${JOBTOP:-$top/jobtop}
export PROBE=${PROBE:-$top/jobtop-probe}	# lab-up.sh copies it to the nodes
for b in "$JOBTOP" "$PROBE"; do
	[ -x "$b" ] || { echo "demo: $b is not built (run: make)" >&2; exit 1; }
done

"$here/lab-up.sh" "${1:-4}"
. "$here/lib.sh"	# after lab-up: it reads the node count lab-up wrote

job=$(lab_submit "$LAB_USER" healthy) || { echo "demo: the demo job did not start" >&2; exit 1; }
trap 'lab_cancel "$job"' EXIT
echo "demo: job $job of $LAB_USER runs on $(squeue -h -j "$job" -o %N):"
lab_ranks "$job" | while read -r rank pid host; do
	echo "  rank $rank: pid $pid on $host"
done

# WATCH: one probe per node, 5 samples 1 s apart, all nodes at once.  The
# probe stops when its stdin closes, so ssh's stdin is held open (fd 9).
lab_hold_stdin
for node in $(scontrol show hostnames "$(squeue -h -j "$job" -o %N)"); do
	lab_ssh "$LAB_USER" "$node" \
		"$LAB_BIN/jobtop-probe --job $job --interval 1 --count 5" <&9 |
		"$JOBTOP" --decode | sed -u "s/^/$node: /" &
done
wait
# END WATCH

lab_cancel "$job"
trap - EXIT
echo "demo: job $job cancelled; the lab is still up (make lab-down removes it)"
