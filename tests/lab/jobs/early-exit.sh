#!/bin/bash
# SPDX-License-Identifier: ISC
# early-exit: four ranks compute flat out; rank 2 ends after
# EARLY_EXIT_SECONDS (default 20; rankload -t, SIGALRM) while the others go
# on: a job that loses a member.  No --kill-on-bad-exit: the other tasks
# must outlive it.  One rank per node on 4 nodes; each rank writes "rank
# pid hostname" to $LAB_RANKS/$SLURM_JOB_ID/rank.R (see
# tests/lab/rankload.c).  Submit with lab_submit (tests/lab/lib.sh), e.g.
# lab_submit jtuser early-exit --export=ALL,EARLY_EXIT_SECONDS=15
#SBATCH --job-name=early-exit
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
# Each task picks its lifetime by its rank id, then execs rankload: the
# rank is one process, named rankload.  exec srun: the batch shell does not
# linger as one more job process on node1.
exec srun /bin/sh -c '
if [ "$SLURM_PROCID" = 2 ]; then
	exec "$0" -d "$1" -t "$2" spin
fi
exec "$0" -d "$1" spin' "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" "$dir" \
	"${EARLY_EXIT_SECONDS:-20}"
