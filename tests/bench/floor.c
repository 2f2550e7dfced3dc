/* SPDX-License-Identifier: ISC */
/*
 * The benchmark's yardstick.  `floor loop N PIDFILE` does, N times, the
 * least a sampler must do to read what the probe reads: open, read and
 * close /proc/stat, meminfo, loadavg, net/dev, diskstats, NUMA node 0's
 * numastat and meminfo, and each listed process's stat, io, status,
 * wchan, syscall, schedstat and (where readable: root) stack, and its
 * numa_maps one time in ten (the probe reads it every tenth sample at
 * most); it prints its own CPU time in microseconds.  `floor run CMD...`
 * runs a command and prints to standard error its CPU time (user + system,
 * microseconds) and peak RSS (KiB), like a minimal /usr/bin/time; the
 * command's own output stays on standard output.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
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
floor_loop(long n, const char *pidfile)
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

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "loop") == 0)
		return floor_loop(atol(argv[2]), argv[3]);
	if (argc >= 3 && strcmp(argv[1], "run") == 0)
		return floor_run(argv + 2);
	fprintf(stderr, "usage: floor loop N PIDFILE | floor run CMD...\n");
	return 2;
}
