#!/bin/bash
# demo.sh (`make demo`): bring the lab up, start the healthy demo job as
# jtuser, watch it for 5 seconds, cancel it.  The lab stays up afterwards
# (`make lab-down` removes it).
#
# Watching is `jobtop -b JOBID` as jtuser (the curses monitor is not built
# yet); jtuser's ~/.ssh was set up by lab-up.
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

# WATCH: jobtop resolves the job through Slurm, pushes the probe over SSH
# to every node and prints what the nodes send for 5 samples.
# jtuser runs copies in the lab's world-readable bin (the checkout may not
# be readable by other users); jobtop finds jobtop-probe beside itself.
install -m 755 "$JOBTOP" "$PROBE" "$LAB_BIN/"
lab_as "$LAB_USER" "$LAB_BIN/jobtop" -b -n 5 "$job"

lab_cancel "$job"
trap - EXIT
echo "demo: job $job cancelled; the lab is still up (make lab-down removes it)"
