#!/bin/bash
# SPDX-License-Identifier: ISC
# iowait: rank 2 writes 4 KiB blocks with O_DIRECT|O_DSYNC to a file in
# the job's rank directory (on the lab machine's disk) without end, so it
# waits on storage (state D, block I/O delay); the other ranks sleep.  One
# rank per node on 4 nodes; each rank writes "rank pid hostname" to
# $LAB_RANKS/$SLURM_JOB_ID/rank.R.
#SBATCH --job-name=iowait
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
exec srun --kill-on-bad-exit=1 "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" sleep --rank 2 io
