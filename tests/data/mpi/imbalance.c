/* SPDX-License-Identifier: ISC */
/*
 * imbalance: an MPI job for the mpi source's tests.  Every rank computes
 * (a loop in this program) then meets the others in MPI_Allreduce, for
 * SECONDS; rank SLOW computes 20 times longer each round, so the others
 * spend nearly all their time waiting in MPI (MPICH spins while it waits)
 * and it nearly none.  SLOW -1: a balanced job.
 *   usage: imbalance SECONDS SLOW
 */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static volatile double	sink;

static double
now(void)
{
	struct timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void
work(double secs)
{
	double	t = now(), x = 1;
	int	i;

	while (now() - t < secs) {
		for (i = 0; i < 10000; i++)
			x = x * 1.0000001 + 1e-9;
	}
	sink = x;
}

int
main(int argc, char **argv)
{
	double	secs, t0, y = 1, z;
	int	rank, slow;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	secs = argc > 1 ? atof(argv[1]) : 20;
	slow = argc > 2 ? atoi(argv[2]) : -1;
	t0 = now();
	while (now() - t0 < secs) {
		work(rank == slow ? 0.2 : 0.01);
		MPI_Allreduce(&y, &z, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
