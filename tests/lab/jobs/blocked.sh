#!/bin/bash
# SPDX-License-Identifier: ISC
# blocked: rank 2 blocks forever reading a pipe (state S, wchan
# anon_pipe_read or pipe_read) while its peers compute: the stalled-rank demo.
# One rank per node on 4 nodes; each rank writes "rank pid hostname" to
# $LAB_RANKS/$SLURM_JOB_ID/rank.R (see tests/lab/rankload.c).  Submit with
# lab_submit (tests/lab/lib.sh), or: sbatch tests/lab/jobs/blocked.sh
#SBATCH --job-name=blocked
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
# exec: the batch shell does not linger as one more job process on node1.
exec srun --kill-on-bad-exit=1 "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" --block-rank 2 spin
