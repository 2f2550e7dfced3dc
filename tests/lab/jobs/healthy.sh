#!/bin/bash
# SPDX-License-Identifier: ISC
# healthy: every rank computes flat out (state R; on this 2-core machine
# 4 nodes' ranks share the CPUs, so each gets about the same share).
# RANK_DUTY=PCT in the job's environment (sbatch --export=ALL,RANK_DUTY=20)
# makes each rank use PCT% of one CPU instead: still a healthy job, and the
# lab tests that are about transports, schedulers or the screen use it so
# (tests/lab/lib.sh lab_submit) to leave this 2-core machine's CPUs to the
# tests running beside them; the detector tests keep the full spin.
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
load=spin
case ${RANK_DUTY:-} in
'') ;;
*[!0-9]*) echo "healthy: RANK_DUTY=$RANK_DUTY is not a percentage" >&2; exit 1 ;;
*) load="duty $RANK_DUTY" ;;
esac
# $load unquoted: the mode and its argument are two words.
# shellcheck disable=SC2086
exec srun --kill-on-bad-exit=1 "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" $load
