#!/bin/bash
# spike: two ranks, one per node, idle; rank 1 holds 256 MiB for 3 s
# (from 4 s after it starts) and frees it: a peak that a sample can miss
# but the rank's peak RSS must keep.  Submit with lab_submit.
#SBATCH --job-name=spike
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --time=5
exec srun --kill-on-bad-exit=1 /usr/bin/python3 -c '
import os, time
time.sleep(4)
if os.environ.get("SLURM_PROCID") == "1":
    b = b"x" * (256 << 20)
    time.sleep(3)
    del b
time.sleep(240)
'
