#!/bin/bash
# SPDX-License-Identifier: ISC
# pinned: a binding mistake.  Two ranks on one (2-CPU) node, both pinned
# with `taskset -c 0` (as a wrong --cpu-bind map would), computing flat
# out: they share CPU 0 while CPU 1 is free for them.
# Each rank writes "rank pid hostname" to $LAB_RANKS/$SLURM_JOB_ID/rank.R
# (see tests/lab/rankload.c).  Submit with lab_submit (tests/lab/lib.sh).
#SBATCH --job-name=pinned
#SBATCH --nodes=1
#SBATCH --ntasks=2
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
exec srun --kill-on-bad-exit=1 --cpu-bind=none taskset -c 0 \
	"${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" spin
