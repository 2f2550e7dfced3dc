/* SPDX-License-Identifier: ISC */
/*
 * The benchmark's yardstick.  `floor loop N PIDFILE [GAP_MS]` does, N
 * times, the least a sampler must do to read what the probe reads: open,
 * read and close /proc/stat, meminfo, loadavg, net/dev, diskstats, NUMA
 * node 0's numastat and meminfo, and each listed process's stat, io,
 * status, wchan, syscall, schedstat and (where readable: root) stack, and
 * its numa_maps one time in ten (the probe reads it every tenth sample at
 * most); it prints its own CPU time in microseconds.  With GAP_MS it
 * sleeps that long before each round, as a sampler does between samples:
 * what it reads is then out of the caches, as for the probe at 1 Hz.
 * `floor held N PIDFILE` is the least the probe's own design reads per
 * process and sample: stat and the main thread's schedstat, with pread on
 * descriptors opened once; it prints the CPU time of its N rounds in
 * microseconds (with GAP_MS, each round after that long a sleep: the two
 * reads out of cold caches, as at the probe's 1 Hz pace).  `floor run CMD...` runs a command and prints to standard
 * error its CPU time (user + system, microseconds) and peak RSS (KiB),
 * like a minimal /usr/bin/time; the command's own output stays on
 * standard output.
 *
 * `floor load SECONDS DIR` is the benchmark's fixed synthetic load, so that
 * "loaded" means the same work on every run: one process spinning on one
 * core; one starting 50 short-lived children a second; one mapping,
 * touching and unmapping 32 MiB four times a second; one writing 1 MiB
 * and syncing it four times a second (a file in DIR, unlinked at once);
 * one sending 200 UDP datagrams of 1000 bytes a second to itself over
 * loopback.  Every kind of node counter then moves each second by a fixed
 * amount.  It ends after SECONDS, or at SIGTERM: its workers die with it
 * (PR_SET_PDEATHSIG).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 16];

static void
floor_read(const char *path)
{
	int	fd;

	if ((fd = open(path, O_RDONLY)) < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static long long
floor_cpu_us(const struct rusage *ru)
{
	return (long long)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) *
	    1000000 + ru->ru_utime.tv_usec + ru->ru_stime.tv_usec;
}

static int
floor_loop(long n, const char *pidfile, long gap_ms)
{
	static const char *node[] = { "/proc/stat", "/proc/meminfo",
	    "/proc/loadavg", "/proc/net/dev", "/proc/diskstats",
	    "/sys/devices/system/node/node0/numastat",
	    "/sys/devices/system/node/node0/meminfo" };
	static int	 pids[100000];
	static const char *what[] = { "stat", "io", "status", "wchan",
	    "syscall", "schedstat", "stack" };
	struct rusage	 ru;
	char		 path[64];
	FILE		*f;
	int		 npid = 0;
	long		 i;
	unsigned	 k, w;

	if ((f = fopen(pidfile, "r")) == NULL) {
		perror(pidfile);
		return 1;
	}
	while (npid < 100000 && fscanf(f, "%d", &pids[npid]) == 1)
		npid++;
	fclose(f);
	for (i = 0; i < n; i++) {
		if (gap_ms > 0)
			usleep((useconds_t)gap_ms * 1000);
		for (k = 0; k < sizeof(node) / sizeof(node[0]); k++)
			floor_read(node[k]);
		for (k = 0; k < (unsigned)npid; k++) {
			for (w = 0; w < sizeof(what) / sizeof(what[0]);
			    w++) {
				snprintf(path, sizeof(path), "/proc/%d/%s",
				    pids[k], what[w]);
				floor_read(path);
			}
			if ((i + k) % 10 == 0) {
				snprintf(path, sizeof(path),
				    "/proc/%d/numa_maps", pids[k]);
				floor_read(path);
			}
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("%lld\n", floor_cpu_us(&ru));
	return 0;
}

/* What the probe's design cannot do with less each sample for a process
 * that did not run: read its stat and its main thread's schedstat on
 * descriptors held open (PROTOCOL.md's peaks and src-ranks.c's skipping
 * rest on those two). */
static int
floor_held(long n, const char *pidfile, long gap_ms)
{
	static int	 fds[4096][2];
	struct rusage	 ru0, ru;
	char		 path[64];
	FILE		*f;
	int		 npid = 0, pid;
	long		 i;
	int		 k;

	if ((f = fopen(pidfile, "r")) == NULL) {
		perror(pidfile);
		return 1;
	}
	while (npid < 4096 && fscanf(f, "%d", &pid) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		fds[npid][0] = open(path, O_RDONLY);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid,
		    pid);
		fds[npid][1] = open(path, O_RDONLY);
		npid++;
	}
	fclose(f);
	getrusage(RUSAGE_SELF, &ru0);
	for (i = 0; i < n; i++) {
		if (gap_ms > 0)
			usleep((useconds_t)gap_ms * 1000);
		for (k = 0; k < npid; k++) {
			if (pread(fds[k][0], buf, sizeof(buf), 0) < 0 ||
			    pread(fds[k][1], buf, sizeof(buf), 0) < 0)
				continue;
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("%lld\n", floor_cpu_us(&ru) - floor_cpu_us(&ru0));
	return 0;
}

static int
floor_run(char **argv)
{
	struct rusage	ru;
	pid_t		pid;
	int		status;

	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return 1;
	fprintf(stderr, "%lld %ld\n", floor_cpu_us(&ru), ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static struct timespec	load_end;

static void
floor_load_add(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static int
floor_load_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	    (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Sleep until the next tick of a fixed period (a rate that does not drift
 * with the work done in it); 0 once the load is over. */
static int
floor_load_tick(struct timespec *t, long period_ns)
{
	floor_load_add(t, period_ns);
	if (!floor_load_before(t, &load_end))
		return 0;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) ==
	    EINTR)
		;
	return 1;
}

static void
floor_load_spin(void)
{
	struct timespec		now;
	volatile unsigned long	x = 0;
	unsigned long		i;

	do {
		for (i = 0; i < 1000000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (floor_load_before(&now, &load_end));
	(void)x;	/* the sum is the point: spin, not optimised away */
}

static void
floor_load_procs(struct timespec t)
{
	pid_t	pid;

	while (floor_load_tick(&t, 20000000L)) {
		if ((pid = fork()) == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

static void
floor_load_mem(struct timespec t)
{
	size_t	 len = (size_t)32 << 20;
	char	*p;

	while (floor_load_tick(&t, 250000000L)) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue;
		memset(p, 1, len);
		munmap(p, len);
	}
}

static void
floor_load_disk(struct timespec t, const char *dir)
{
	char	path[4096];
	off_t	off;
	int	fd;

	snprintf(path, sizeof(path), "%s/floor-load.%d", dir, (int)getpid());
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0) {
		perror(path);
		return;
	}
	unlink(path);		/* its blocks stay until it is closed */
	memset(buf, 'x', sizeof(buf));
	while (floor_load_tick(&t, 250000000L)) {
		for (off = 0; off < (off_t)1 << 20; off += sizeof(buf)) {
			if (pwrite(fd, buf, sizeof(buf), off) < 0)
				break;
		}
		fdatasync(fd);
	}
	close(fd);
}

static void
floor_load_net(struct timespec t)
{
	struct sockaddr_in	a;
	socklen_t		alen = sizeof(a);
	int			s;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &alen) < 0) {
		perror("floor load: udp");
		return;
	}
	while (floor_load_tick(&t, 5000000L)) {
		if (sendto(s, buf, 1000, 0, (struct sockaddr *)&a,
		    sizeof(a)) == 1000)
			recv(s, buf, sizeof(buf), 0);
	}
	close(s);
}

/* The workers die with this process (SIGTERM's default action included):
 * PR_SET_PDEATHSIG, so no handler is needed to clean them up. */
static int
floor_load(double seconds, const char *dir)
{
	struct timespec	start;
	pid_t		pid, parent = getpid();
	int		k;

	if (!(seconds > 0 && seconds <= 3600)) {
		fprintf(stderr, "floor load: bad seconds\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	load_end = start;
	load_end.tv_sec += (time_t)seconds;
	floor_load_add(&load_end, (long)((seconds - (time_t)seconds) * 1e9));
	for (k = 0; k < 5; k++) {
		if ((pid = fork()) < 0) {
			perror("floor load: fork");
			return 1;	/* the workers die with it */
		}
		if (pid > 0)
			continue;
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(0);
		switch (k) {
		case 0:
			floor_load_spin();
			break;
		case 1:
			floor_load_procs(start);
			break;
		case 2:
			floor_load_mem(start);
			break;
		case 3:
			floor_load_disk(start, dir);
			break;
		default:
			floor_load_net(start);
			break;
		}
		_exit(0);
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}

int
main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "loop") == 0)
		return floor_loop(atol(argv[2]), argv[3],
		    argc == 5 ? atol(argv[4]) : 0);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "held") == 0)
		return floor_held(atol(argv[2]), argv[3],
		    argc == 5 ? atol(argv[4]) : 0);
	if (argc == 4 && strcmp(argv[1], "load") == 0)
		return floor_load(atof(argv[2]), argv[3]);
	if (argc >= 3 && strcmp(argv[1], "run") == 0)
		return floor_run(argv + 2);
	fprintf(stderr, "usage: floor loop N PIDFILE [GAP_MS] | "
	    "floor held N PIDFILE [GAP_MS] | floor run CMD... | "
	    "floor load SECONDS DIR\n");
	return 2;
}
