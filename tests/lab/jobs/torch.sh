#!/bin/bash
# SPDX-License-Identifier: ISC
# torch: data-parallel training with Debian's python3-torch (CPU, gloo over
# TCP on the nodes' eth0), started as torchrun starts it: one agent a node
# (a per-node shell that srun starts, SLURM_PROCID 0-3) starts two workers
# with RANK = 2 * SLURM_PROCID + LOCAL_RANK, LOCAL_RANK, WORLD_SIZE 8,
# MASTER_ADDR and MASTER_PORT, as torchrun's elastic agent would (Debian
# 12's torchrun 1.13 fails on Python 3.11, LAB.md).  Each worker trains a
# tiny model: TORCH_ITERS forward/backward passes (default 30, about 10 ms
# of CPU here), an all_reduce of every gradient, an optimizer step, then a
# pause of TORCH_SLEEP seconds (default 0.095): light on the lab's 2 CPUs
# (8 workers used 15-16% each, 1.25 CPUs, in the lab), and a waiting
# worker blocks in gloo.
# Once the file $dir/slow holds a rank id, that worker does four times the
# work between all-reduces (the others wait for it).  Each worker writes
# "rank pid hostname" to $LAB_RANKS/$SLURM_JOB_ID/rank.R once training
# runs.  Submit with lab_submit (tests/lab/lib.sh).
#SBATCH --job-name=torch
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=10
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
cat >"$dir/train.py" <<'PY'
import os, socket, sys, time
import torch
import torch.distributed as dist

d = sys.argv[1]
iters = int(os.environ.get("TORCH_ITERS", "30"))
pause = float(os.environ.get("TORCH_SLEEP", "0.095"))
torch.set_num_threads(1)
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.Tanh(),
                            torch.nn.Linear(64, 64))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(16, 64)
dist.barrier()
tmp = "%s/rank.%d.tmp.%d" % (d, rank, os.getpid())
with open(tmp, "w") as f:
    f.write("%d %d %s\n" % (rank, os.getpid(), socket.gethostname()))
os.rename(tmp, "%s/rank.%d" % (d, rank))
slow = os.path.join(d, "slow")
while True:
    n = iters
    if os.path.exists(slow):
        try:
            with open(slow) as f:
                if int(f.read().split()[0]) == rank:
                    n = 4 * iters
        except (OSError, ValueError, IndexError):
            pass
    for _ in range(n):
        model(x).pow(2).mean().backward()
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= world
    opt.step()
    opt.zero_grad()
    time.sleep(pause)
PY
export MASTER_ADDR=$(hostname) MASTER_PORT=$((29000 + SLURM_JOB_ID % 1000))
export WORLD_SIZE=8 LOCAL_WORLD_SIZE=2 OMP_NUM_THREADS=1 GLOO_SOCKET_IFNAME=eth0
# exec: the batch shell does not linger as one more job process on node1.
exec srun --kill-on-bad-exit=1 bash -c '
for l in 0 1; do
	RANK=$((SLURM_PROCID * 2 + l)) LOCAL_RANK=$l /usr/bin/python3 "$0" "$1" &
done
wait' "$dir/train.py" "$dir"
