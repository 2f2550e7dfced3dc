/* SPDX-License-Identifier: ISC */
/*
 * rankload: one rank of a lab demo job, with a known, checkable behaviour.
 *
 * Every rank of a job runs the same command line; the rank id (SLURM_PROCID,
 * else PMI_RANK or OMPI_COMM_WORLD_RANK, else 0) picks the behaviour, so a
 * job can have one odd rank among healthy ones:
 *
 *	rankload [-d DIR] [-t SECONDS] [MODE [ARG]] [--rank R MODE [ARG]]...
 *
 *	spin		compute forever (state R, all user time)
 *	block		block forever in read(2) on a pipe (state S, wchan pipe_read)
 *	mem MB		touch MB mebibytes, then hold them idle
 *	duty PCT	use PCT% of one CPU: PCT ms of CPU time every 100 ms
 *	sleep		idle in pause(2)
 *	io		write 4 KiB blocks with O_DIRECT|O_DSYNC to DIR/io.R (or /tmp)
 *			forever: each write waits for the disk (state D)
 *	grow MB		touch MB more mebibytes every second and keep them (a
 *			leak), up to 4 GiB in all, then hold what it has
 *
 * The first MODE applies to every rank (default spin); --rank R MODE [ARG]
 * overrides it for rank R.  Shorthands: --block-rank R, --mem-rank R MB,
 * --duty-rank R PCT.  -t ends the rank after SECONDS.
 *
 * Once its behaviour is set up (memory touched, pipe made), each rank writes
 * "rank pid hostname" to DIR/rank.R (atomically), so tests know where each
 * rank runs and that it is ready.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum rl_mode {
	RL_SPIN,
	RL_BLOCK,
	RL_MEM,
	RL_DUTY,
	RL_SLEEP,
	RL_IO,
	RL_GROW
};

struct rl_behaviour {
	enum rl_mode	mode;
	long		arg;
};

struct rl_override {
	long			rank;
	struct rl_behaviour	b;
};

#define RL_MAX_OVERRIDES 64

/* Sink for the spin loops, so the compiler cannot drop them. */
static volatile double rl_sink;

static void
rl_usage(void)
{
	fprintf(stderr, "usage: rankload [-d DIR] [-t SECONDS] [MODE [ARG]] "
	    "[--rank R MODE [ARG]]...\n"
	    "  MODE: spin | block | mem MB | duty PCT | sleep | io | grow MB\n"
	    "  shorthands: --block-rank R, --mem-rank R MB, --duty-rank R PCT\n");
	exit(2);
}

static long
rl_number(const char *s, long min, long max, const char *what)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "rankload: bad %s '%s' (%ld..%ld)\n", what, s,
		    min, max);
		exit(2);
	}
	return v;
}

/* Parse MODE [ARG] at argv[*i]; leave *i on the last word used. */
static void
rl_parse_mode(int argc, char **argv, int *i, struct rl_behaviour *b)
{
	const char	*m = argv[*i];

	b->arg = 0;
	if (strcmp(m, "spin") == 0)
		b->mode = RL_SPIN;
	else if (strcmp(m, "block") == 0)
		b->mode = RL_BLOCK;
	else if (strcmp(m, "sleep") == 0)
		b->mode = RL_SLEEP;
	else if (strcmp(m, "io") == 0)
		b->mode = RL_IO;
	else if (strcmp(m, "mem") == 0 || strcmp(m, "duty") == 0 ||
	    strcmp(m, "grow") == 0) {
		b->mode = m[0] == 'm' ? RL_MEM : m[0] == 'g' ? RL_GROW :
		    RL_DUTY;
		if (++*i >= argc)
			rl_usage();
		if (b->mode == RL_GROW)
			b->arg = rl_number(argv[*i], 1, 1024, "MB");
		else if (b->mode == RL_MEM)
			b->arg = rl_number(argv[*i], 1, 1L << 20, "MB");
		else
			b->arg = rl_number(argv[*i], 0, 100, "PCT");
	} else {
		fprintf(stderr, "rankload: unknown mode '%s'\n", m);
		rl_usage();
	}
}

static long
rl_rank(void)
{
	static const char *const vars[] = {
		"SLURM_PROCID", "PMI_RANK", "OMPI_COMM_WORLD_RANK"
	};
	const char	*v;
	size_t		 i;

	for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		if ((v = getenv(vars[i])) != NULL && *v != '\0')
			return rl_number(v, 0, 1L << 30, vars[i]);
	}
	return 0;
}

/* Write "rank pid hostname" to DIR/rank.R through a rename, so readers never
 * see half a line. */
static void
rl_report(const char *dir, long rank)
{
	char	 host[256], path[4096], tmp[4200];
	FILE	*f;

	if (gethostname(host, sizeof host) != 0)
		strcpy(host, "?");
	host[sizeof host - 1] = '\0';
	printf("%ld %ld %s\n", rank, (long)getpid(), host);
	fflush(stdout);
	if (dir == NULL)
		return;
	snprintf(path, sizeof path, "%s/rank.%ld", dir, rank);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	if ((f = fopen(tmp, "w")) == NULL) {
		fprintf(stderr, "rankload: %s: %s\n", tmp, strerror(errno));
		exit(1);
	}
	fprintf(f, "%ld %ld %s\n", rank, (long)getpid(), host);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "rankload: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* A slice of pure user-space arithmetic. */
static void
rl_burn(long n)
{
	double	x = rl_sink;
	long	i;

	for (i = 0; i < n; i++)
		x = x * 1.0000001 + 0.5;
	rl_sink = x;
}

static double
rl_seconds(clockid_t clk)
{
	struct timespec	ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Use PCT% of one CPU: in every 100 ms period burn PCT ms of this thread's
 * CPU time (not wall time, so a busy machine does not lower the duty), then
 * sleep to the period's end. */
static void
rl_duty(long pct)
{
	struct timespec	next;
	double		cpu0, deadline;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		next.tv_nsec += 100 * 1000 * 1000;
		if (next.tv_nsec >= 1000 * 1000 * 1000) {
			next.tv_nsec -= 1000 * 1000 * 1000;
			next.tv_sec++;
		}
		deadline = next.tv_sec + next.tv_nsec / 1e9;
		cpu0 = rl_seconds(CLOCK_THREAD_CPUTIME_ID);
		while (rl_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu0 < pct / 1000.0 &&
		    rl_seconds(CLOCK_MONOTONIC) < deadline)
			rl_burn(20000);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
		    NULL) == EINTR)
			;
	}
}

/* A leak: MB more mebibytes touched every second (each page written, so
 * it is resident), never freed, up to 4 GiB; then it holds them. */
static void
rl_grow(const char *dir, long rank, long mb)
{
	size_t		 len = (size_t)mb << 20, k;
	long		 total = 0;
	char		*p;

	rl_report(dir, rank);
	for (;;) {
		if (total + mb <= 4096 && (p = malloc(len)) != NULL) {
			for (k = 0; k < len; k += 4096)
				p[k] = (char)((k >> 12) + (size_t)total);
			rl_sink += p[len / 2];
			total += mb;
		}
		sleep(1);
	}
}

/* Synchronous direct writes, one 4 KiB block after another over 64 MiB:
 * each write bypasses the page cache and returns once the block is on the
 * disk, so the rank spends its time in state D (block I/O delay, where
 * delay accounting is on), not copying. */
static int
rl_io(const char *dir, long rank)
{
	static char	buf[4096] __attribute__((aligned(4096)));
	char		path[4096];
	off_t		off = 0;
	size_t		k;
	int		fd;

	snprintf(path, sizeof path, "%s/io.%ld", dir != NULL ? dir : "/tmp",
	    rank);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DSYNC | O_DIRECT,
	    0644)) < 0 && (errno != EINVAL || (fd = open(path, O_WRONLY |
	    O_CREAT | O_TRUNC | O_DSYNC, 0644)) < 0)) {	/* no O_DIRECT */
		fprintf(stderr, "rankload: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (k = 0; k < sizeof buf; k++)
		buf[k] = (char)(k * 7 + (size_t)rank);
	rl_report(dir, rank);
	for (;;) {
		if (pwrite(fd, buf, sizeof buf, off) != (ssize_t)sizeof buf) {
			fprintf(stderr, "rankload: write %s: %s\n", path,
			    strerror(errno));
			return 1;
		}
		off = (off + (off_t)sizeof buf) % (64 << 20);
		buf[0]++;
	}
}

int
main(int argc, char **argv)
{
	struct rl_override	 ov[RL_MAX_OVERRIDES];
	struct rl_behaviour	 def = { RL_SPIN, 0 }, b;
	const char		*dir = NULL;
	long			 seconds = 0, rank, r;
	size_t			 nov = 0, k, len;
	char			*mem;
	int			 i, fds[2];
	char			 c;

	for (i = 1; i < argc; i++) {
		const char	*a = argv[i];

		if ((strcmp(a, "-d") == 0 || strcmp(a, "--dir") == 0) &&
		    i + 1 < argc)
			dir = argv[++i];
		else if ((strcmp(a, "-t") == 0 || strcmp(a, "--time") == 0) &&
		    i + 1 < argc)
			seconds = rl_number(argv[++i], 1, 1L << 30, "SECONDS");
		else if (strcmp(a, "--rank") == 0 && i + 2 < argc) {
			if (nov == RL_MAX_OVERRIDES)
				rl_usage();
			ov[nov].rank = rl_number(argv[++i], 0, 1L << 30, "rank");
			i++;
			rl_parse_mode(argc, argv, &i, &ov[nov++].b);
		} else if ((strcmp(a, "--block-rank") == 0 && i + 1 < argc) ||
		    (strcmp(a, "--mem-rank") == 0 && i + 2 < argc) ||
		    (strcmp(a, "--duty-rank") == 0 && i + 2 < argc)) {
			if (nov == RL_MAX_OVERRIDES)
				rl_usage();
			ov[nov].rank = rl_number(argv[++i], 0, 1L << 30, "rank");
			ov[nov].b.arg = 0;
			ov[nov].b.mode = RL_BLOCK;
			if (a[2] == 'm') {
				ov[nov].b.mode = RL_MEM;
				ov[nov].b.arg = rl_number(argv[++i], 1, 1L << 20,
				    "MB");
			} else if (a[2] == 'd') {
				ov[nov].b.mode = RL_DUTY;
				ov[nov].b.arg = rl_number(argv[++i], 0, 100,
				    "PCT");
			}
			nov++;
		} else if (a[0] == '-')
			rl_usage();
		else
			rl_parse_mode(argc, argv, &i, &def);
	}

	rank = rl_rank();
	b = def;
	for (k = 0; k < nov; k++) {
		if (ov[k].rank == rank)
			b = ov[k].b;
	}
	if (seconds > 0)
		alarm((unsigned)seconds);	/* SIGALRM ends the rank */

	switch (b.mode) {
	case RL_GROW:
		rl_grow(dir, rank, b.arg);
		return 0;
	case RL_MEM:
		/* Write every page, with varying bytes, so each one is really
		 * resident (no zero page, nothing for KSM to merge). */
		len = (size_t)b.arg << 20;
		if ((mem = malloc(len)) == NULL) {
			fprintf(stderr, "rankload: cannot allocate %ld MB\n",
			    b.arg);
			return 1;
		}
		for (k = 0; k < len; k += 4096)
			mem[k] = (char)(k >> 12);
		rl_sink = mem[len / 2];
		rl_report(dir, rank);
		for (;;)
			pause();
	case RL_BLOCK:
		/* We hold the write end, so the read never ends: the rank sits
		 * in S with wchan pipe_read, like a rank waiting for a peer. */
		if (pipe(fds) != 0) {
			fprintf(stderr, "rankload: pipe: %s\n", strerror(errno));
			return 1;
		}
		rl_report(dir, rank);
		for (;;) {
			r = read(fds[0], &c, 1);
			if (r < 0 && errno != EINTR)
				return 1;
		}
	case RL_DUTY:
		rl_report(dir, rank);
		rl_duty(b.arg);
		return 0;
	case RL_SLEEP:
		rl_report(dir, rank);
		for (;;)
			pause();
	case RL_IO:
		return rl_io(dir, rank);
	case RL_SPIN:
		break;
	}
	rl_report(dir, rank);
	for (;;)
		rl_burn(1000000);
}
