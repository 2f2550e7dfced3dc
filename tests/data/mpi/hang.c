/* SPDX-License-Identifier: ISC */
/*
 * hang: a hung MPI job for the stacks tests.  Rank STUCK (argv[1], 0 by
 * default) blocks in read() on a pipe nobody writes, inside the named
 * function jobtop_stuck_in_read; every other rank waits in MPI_Allreduce
 * for it.  With a directory as argv[2], each rank first writes
 * DIR/rank.R ("R PID HOST", through a rename) as tests/lab/mpi/mpiload.c
 * does, so the lab's tests know where it runs.  It runs until killed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* DIR/rank.R: "R PID HOST". */
static void
hang_rankfile(const char *dir, int rank)
{
	char	host[256], path[4096], tmp[4200];
	FILE	*f;

	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "?");
	snprintf(path, sizeof(path), "%s/rank.%d", dir, rank);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	if ((f = fopen(tmp, "w")) == NULL)
		return;
	fprintf(f, "%d %ld %s\n", rank, (long)getpid(), host);
	if (fclose(f) == 0)
		rename(tmp, path);
}

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
	if (argc > 2)
		hang_rankfile(argv[2], rank);
	if (rank == stuck)
		in = jobtop_stuck_in_read();
	MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	printf("%d %ld\n", rank, out);
	MPI_Finalize();
	return 0;
}
