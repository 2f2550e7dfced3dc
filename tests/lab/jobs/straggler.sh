#!/bin/bash
# SPDX-License-Identifier: ISC
# straggler: a reduced-duty straggler.  Ranks compute flat out except rank
# STRAGGLER_RANK (default 3), which uses STRAGGLER_DUTY% (default 25) of one
# CPU: a quarter of the time, the issue-25 case (55, 55, 73, 13 %CPU).
# One rank per node on 4 nodes; each rank writes "rank pid hostname" to
# $LAB_RANKS/$SLURM_JOB_ID/rank.R (see tests/lab/rankload.c).  Submit with
# lab_submit (tests/lab/lib.sh), or: sbatch tests/lab/jobs/straggler.sh
#SBATCH --job-name=straggler
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
exec srun --kill-on-bad-exit=1 "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" \
	-d "$dir" spin --duty-rank "${STRAGGLER_RANK:-3}" "${STRAGGLER_DUTY:-25}"
