#!/bin/bash
# SPDX-License-Identifier: ISC
# memhog: rank 1 touches and holds 300 MiB, the other ranks 20 MiB;
# all idle once the memory is touched: ranks that differ in memory.
# One rank per node on 4 nodes; each rank writes "rank pid hostname" to
# $LAB_RANKS/$SLURM_JOB_ID/rank.R (see tests/lab/rankload.c).  Submit with
# lab_submit (tests/lab/lib.sh), or: sbatch tests/lab/jobs/memhog.sh
#SBATCH --job-name=memhog
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
# exec: the batch shell does not linger as one more job process on node1.
exec srun --kill-on-bad-exit=1 "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" mem 20 --mem-rank 1 300
