# SPDX-License-Identifier: ISC
# allreduce.py DIR: a torch.distributed worker (gloo over TCP, CPU) that
# all-reduces a tensor in a loop for ever, as a data-parallel training
# step's gradient exchange does: RANK, WORLD_SIZE, MASTER_ADDR and
# MASTER_PORT from the environment, as torchrun sets them.  Once training
# runs it writes "RANK PID" to DIR/rank.RANK.  ALLREDUCE_N (elements,
# default 65536) and ALLREDUCE_WORK (tanh passes between all-reduces,
# default 0) set the exchange and the computing of a step.
import os, sys
import torch
import torch.distributed as dist

d = sys.argv[1]
n = int(os.environ.get("ALLREDUCE_N", "65536"))
work = int(os.environ.get("ALLREDUCE_WORK", "0"))
torch.set_num_threads(1)
rank = int(os.environ["RANK"])
dist.init_process_group("gloo")
t = torch.ones(n)
x = torch.randn(256, 256)
dist.barrier()
tmp = "%s/rank.%d.tmp" % (d, rank)
with open(tmp, "w") as f:
    f.write("%d %d\n" % (rank, os.getpid()))
os.rename(tmp, "%s/rank.%d" % (d, rank))
while True:
    for _ in range(work):
        x = torch.tanh(x)
    dist.all_reduce(t)
    t.fill_(1.0)
