#!/bin/bash
# SPDX-License-Identifier: ISC
# demo.sh (`make demo`, `make demo JOB=blocked`): bring the lab up, start
# a demo job as jtuser (JOB: healthy, the default, or blocked: rank 2
# blocks on a pipe while its peers compute, the stalled-rank story; any
# script of tests/lab/jobs), watch it, cancel it, and name the commands
# that replay and report what was watched.  The lab stays up afterwards
# (`make lab-down` removes it).
#
# On a terminal the watching is the curses monitor, `jobtop JOBID` as
# jtuser, until q, with the themes beside the lab's copy (t cycles them);
# without one (a script, CI, `| tee`) it says so and runs `jobtop -b -n 5
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
JOB=${JOB:-healthy}
if case $JOB in */*|.*) true ;; *) false ;; esac || [ ! -f "$here/jobs/$JOB.sh" ]; then
	echo "demo: no demo job '$JOB': give JOB=healthy or JOB=blocked (or one of: $(cd "$here/jobs" && ls *.sh | sed 's/\.sh$//' | tr '\n' ' '))" >&2
	exit 2
fi

"$here/lab-up.sh" "${1:-4}"
. "$here/lib.sh"	# after lab-up: it reads the node count lab-up wrote

job=$(LAB_HEALTHY_SPIN=1 lab_submit "$LAB_USER" "$JOB") || { echo "demo: the demo job did not start" >&2; exit 1; }
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
# The themes beside the binary (jobtop looks in its own directory's
# themes/): t cycles dark, light, mono and default as from the checkout.
install -d -m 755 "$LAB_BIN/themes"
install -m 644 "$top"/themes/*.theme "$LAB_BIN/themes/"
if [ -t 0 ] && [ -t 1 ] && [ -n "${TERM:-}" ] && [ "$TERM" != dumb ]; then
	echo "demo: starting the monitor as $LAB_USER on job $job ($JOB): q quits, h lists the keys, t changes the theme"
	if [ "$JOB" = blocked ]; then
		echo "demo: rank 2 is flagged stalled within a few seconds: ! opens it, b takes its backtrace"
	fi
	sleep 2
	lab_as "$LAB_USER" env TERM="$TERM" "$LAB_BIN/jobtop" "$job" || true
else
	echo "demo: no terminal: batch mode (jobtop -b -n 5 $job, 5 samples of every node as text)"
	lab_as "$LAB_USER" "$LAB_BIN/jobtop" -b -n 5 "$job"
fi

lab_cancel "$job"
trap - EXIT
echo "demo: job $job cancelled; the lab is still up"
# The next steps, as the user who watched (his recordings are his own).
as="runuser -l $LAB_USER -c"
echo "demo: next: $as '$LAB_BIN/jobtop -r $job' (replay it); $as '$LAB_BIN/jobtop report $job -o /tmp/report-$job.html' (a page to attach to a ticket); make lab-down (remove the lab)"
