#!/bin/bash
# SPDX-License-Identifier: ISC
# test-mpi-children: an MPI rank that does its work through short-lived
# child processes (fork, compute, exit, waitpid each round, as a driver
# calling tools does) is one rank whose CPU time includes its children's,
# never "stalled" (a straggler at most).  MPICH's mpiexec -launcher slurm,
# 4 ranks, rank 2 with mpiload -c 2 -s 2:4 (four times the work, all of it
# in children: the others wait for it in MPI_Allreduce, it waits for its
# child in waitpid and its own CPU time is near 0), watched for SECS
# seconds (default 45) with the checks of test-mpi-launch.sh: ranks 0-3
# once each, helpers, no flag but a straggler on rank 2, and rank 2 at 10%
# CPU or more on average.
export MPI_PATHS=hydra MPILOAD_ARGS="-c 2 -s 2:4" CHILD_RANK=2 SECS=${SECS:-45}
unset JOBTOP_LONG
exec bash "$(dirname "$0")/test-mpi-launch.sh"
