#!/bin/bash
# early-exit: three ranks compute flat out, rank 2 ends (exit 0) after
# EARLY_EXIT_SECONDS (default 20) while the others go on: a job that loses
# a member.  One rank per node on 4 nodes; each rank writes "rank pid
# hostname" to $LAB_RANKS/$SLURM_JOB_ID/rank.R (see tests/lab/rankload.c).
# Submit with lab_submit (tests/lab/lib.sh), or: sbatch
# tests/lab/jobs/early-exit.sh
#SBATCH --job-name=early-exit
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
# Each task picks its own lifetime by its rank id; exec, so the task is
# rankload itself (no shell lingers as a second process of the rank).
# exec: the batch shell does not linger as one more job process on node1.
exec srun --kill-on-bad-exit=1 /bin/sh -c '
if [ "$SLURM_PROCID" = 2 ]; then
	exec "$0" -d "$1" -t "$2" spin
fi
exec "$0" -d "$1" spin' "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" "$dir" \
	"${EARLY_EXIT_SECONDS:-20}"
