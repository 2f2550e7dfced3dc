#!/bin/bash
# SPDX-License-Identifier: ISC
# healthy: every rank computes flat out (state R; on this 2-core machine
# 4 nodes' ranks share the CPUs, so each gets about the same share).
# One rank per node on 4 nodes; each rank writes "rank pid hostname" to
# $LAB_RANKS/$SLURM_JOB_ID/rank.R (see tests/lab/rankload.c).  Submit with
# lab_submit (tests/lab/lib.sh), or: sbatch tests/lab/jobs/healthy.sh
#SBATCH --job-name=healthy
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
# exec: the batch shell does not linger as one more job process on node1.
exec srun --kill-on-bad-exit=1 "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" spin
