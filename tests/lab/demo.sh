#!/bin/bash
# SPDX-License-Identifier: ISC
# demo.sh (`make demo`): bring the lab up, start the healthy demo job as
# jtuser, watch it, cancel it.  The lab stays up afterwards (`make
# lab-down` removes it).
#
# On a terminal the watching is the curses monitor, `jobtop JOBID` as
# jtuser, until q; without one (a script, CI) it is `jobtop -b -n 5
# JOBID`, five samples of every node as text.  jtuser's ~/.ssh was set up
# by lab-up.
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
# to every node and shows what the nodes send.
# jtuser runs copies in the lab's world-readable bin (the checkout may not
# be readable by other users); jobtop finds jobtop-probe beside itself.
install -m 755 "$JOBTOP" "$PROBE" "$LAB_BIN/"
if [ -t 0 ] && [ -t 1 ] && [ -n "${TERM:-}" ] && [ "$TERM" != dumb ]; then
	echo "demo: starting the monitor as $LAB_USER: q quits, h lists the keys"
	sleep 2
	lab_as "$LAB_USER" env TERM="$TERM" "$LAB_BIN/jobtop" "$job"
else
	lab_as "$LAB_USER" "$LAB_BIN/jobtop" -b -n 5 "$job"
fi

lab_cancel "$job"
trap - EXIT
echo "demo: job $job cancelled; the lab is still up (make lab-down removes it)"
