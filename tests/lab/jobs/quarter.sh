#!/bin/bash
# SPDX-License-Identifier: ISC
# quarter: every rank uses 25% of one CPU (25 ms of CPU time every
# 100 ms): a known CPU percentage to check samplers against.
# One rank per node on 4 nodes; each rank writes "rank pid hostname" to
# $LAB_RANKS/$SLURM_JOB_ID/rank.R (see tests/lab/rankload.c).  Submit with
# lab_submit (tests/lab/lib.sh), or: sbatch tests/lab/jobs/quarter.sh
#SBATCH --job-name=quarter
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
# exec: the batch shell does not linger as one more job process on node1.
exec srun --kill-on-bad-exit=1 "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" duty 25
