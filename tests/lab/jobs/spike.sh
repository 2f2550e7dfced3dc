#!/bin/bash
# SPDX-License-Identifier: ISC
# spike: two ranks, one per node, idle; rank 1 holds 256 MiB for 3 s
# (from 4 s after it starts) and frees it: a peak that a sample can miss
# but the rank's peak RSS must keep.  Each rank writes "rank pid hostname"
# to $LAB_RANKS/$SLURM_JOB_ID/rank.R as rankload does.  Submit with
# lab_submit (tests/lab/lib.sh).  Used by test-rank-peak.sh.
#SBATCH --job-name=spike
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --time=5
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
exec srun --kill-on-bad-exit=1 /usr/bin/python3 -c '
import os, socket, sys, time
d, r = sys.argv[1], os.environ["SLURM_PROCID"]
tmp = "%s/rank.%s.tmp.%d" % (d, r, os.getpid())
with open(tmp, "w") as f:
    f.write("%s %d %s\n" % (r, os.getpid(), socket.gethostname()))
os.rename(tmp, "%s/rank.%s" % (d, r))
time.sleep(4)
if r == "1":
    b = b"x" * (256 << 20)
    time.sleep(3)
    del b
time.sleep(240)
' "$dir"
