/* SPDX-License-Identifier: ISC */
/*
 * hang: a hung MPI job for the stacks tests.  Rank STUCK (argv[1], 0 by
 * default) blocks in read() on a pipe nobody writes, inside the named
 * function jobtop_stuck_in_read; every other rank waits in MPI_Allreduce
 * for it.  It runs until killed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Not inlined, so every unwinder sees it by name. */
__attribute__((noinline)) static long
jobtop_stuck_in_read(void)
{
	int	fd[2];
	char	c;

	if (pipe(fd) != 0)
		return -1;
	/* fd[1] stays open here: the read never ends. */
	return (long)read(fd[0], &c, 1);
}

int
main(int argc, char **argv)
{
	int	rank, stuck = argc > 1 ? atoi(argv[1]) : 0;
	long	in = 1, out = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == stuck)
		in = jobtop_stuck_in_read();
	MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	printf("%d %ld\n", rank, out);
	MPI_Finalize();
	return 0;
}
