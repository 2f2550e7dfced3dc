#!/bin/bash
# SPDX-License-Identifier: ISC
# leak: rank 1 leaks 8 MiB a second (touched, resident, never freed) for
# 60 s; the other ranks sleep.  Submit it with --mem (e.g. --mem=400M): on
# the lab's Slurm, where memory is not a consumable resource and no job
# cgroup holds the job to it, jobtop weighs the ranks' resident memory
# against what the job asked.  One rank per node on 4 nodes; each rank
# writes "rank pid hostname" to $LAB_RANKS/$SLURM_JOB_ID/rank.R.
#SBATCH --job-name=leak
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=5
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
exec srun --kill-on-bad-exit=1 "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" -t 60 sleep --rank 1 grow 8
