/* SPDX-License-Identifier: ISC */
/*
 * mpiload: an MPI job with a known shape, for the lab's MPI tests.
 * (In a directory of its own: the Makefile builds tests/lab/*.c without
 * MPI; the MPI tests build this one with mpicc.)
 *
 *	mpiload [-d DIR] [-t SECONDS] [-w MS] [-s RANK:FACTOR] [-c RANK]
 *
 * Every rank computes about MS milliseconds of CPU time (default 20) and
 * then joins an MPI_Allreduce, forever (or SECONDS).  -s RANK:FACTOR makes
 * RANK compute FACTOR times as long between collectives (a straggler that
 * the others wait for).  -c RANK makes RANK do its work through a short-
 * lived child process each round (fork, compute, exit, waitpid), the way
 * a driver calling tools works: the rank process itself only waits.
 *
 * Once MPI_Init returned, each rank writes "rank pid hostname" to
 * DIR/rank.R (R its MPI rank, through a rename), so tests know where each
 * rank runs and which pid the MPI process has.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static volatile double	ml_sink;

static double
ml_cpu_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Compute for ms milliseconds of this process's CPU time. */
static void
ml_work(double ms)
{
	double	t0 = ml_cpu_ms(), x = ml_sink;
	int	i;

	while (ml_cpu_ms() - t0 < ms) {
		for (i = 0; i < 20000; i++)
			x = x * 1.0000001 + 1e-9;
	}
	ml_sink = x;
}

static void
ml_rank_file(const char *dir, int rank)
{
	char	 host[256], path[4096], tmp[4200];
	FILE	*f;

	if (dir == NULL)
		return;
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = '\0';
	snprintf(path, sizeof(path), "%s/rank.%d", dir, rank);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	if ((f = fopen(tmp, "w")) == NULL) {
		fprintf(stderr, "mpiload: %s: %s\n", tmp, strerror(errno));
		return;
	}
	fprintf(f, "%d %ld %s\n", rank, (long)getpid(), host);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		fprintf(stderr, "mpiload: %s: %s\n", path, strerror(errno));
}

int
main(int argc, char **argv)
{
	const char	*dir = NULL;
	double		 ms = 20, factor = 1, t0, v, sum, secs = 0;
	int		 c, rank, size, slow = -1, child = -1, status;
	pid_t		 pid;

	while ((c = getopt(argc, argv, "d:t:w:s:c:")) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'w':
			ms = atof(optarg);
			break;
		case 's':
			if (sscanf(optarg, "%d:%lf", &slow, &factor) != 2) {
				fprintf(stderr, "mpiload: -s RANK:FACTOR\n");
				return 2;
			}
			break;
		case 'c':
			child = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: mpiload [-d DIR] [-t SECONDS] "
			    "[-w MS] [-s RANK:FACTOR] [-c RANK]\n");
			return 2;
		}
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == slow)
		ms *= factor;
	ml_rank_file(dir, rank);
	t0 = MPI_Wtime();
	for (;;) {
		if (rank == child) {
			fflush(NULL);
			if ((pid = fork()) == 0) {
				ml_work(ms);
				_exit(0);
			}
			if (pid < 0) {
				perror("mpiload: fork");
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
		} else
			ml_work(ms);
		v = rank;
		MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM,
		    MPI_COMM_WORLD);
		if (secs > 0 && MPI_Wtime() - t0 >= secs)
			break;
	}
	MPI_Finalize();
	return 0;
}
