#!/bin/bash
# SPDX-License-Identifier: ISC
# leak: rank 1 leaks memory, 8 MiB more every second, held (rankload grow),
# under --mem=400M a node: its node's memory grows along a line toward the
# job cgroup's limit, and the OOM killer ends it after about 50 s.  The
# other ranks sleep.  One rank per node on 4 nodes; each rank writes
# "rank pid hostname" to $LAB_RANKS/$SLURM_JOB_ID/rank.R.
#SBATCH --job-name=leak
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --mem=400M
#SBATCH --time=15
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
exec srun --kill-on-bad-exit=1 "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" sleep --rank 1 grow 8
