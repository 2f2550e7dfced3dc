/* SPDX-License-Identifier: ISC */
/*
 * File access, number parsing and child processes for sources.  Paths are
 * taken relative to the probe's --root so fixture trees stand in for /proc
 * and /sys.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "source.h"

static const char *probe_root = "";

void
probe_set_root(const char *root)
{
	probe_root = root;
}

char *
probe_path(char *buf, size_t size, const char *path)
{
	snprintf(buf, size, "%s%s", probe_root, path);
	return buf;
}

int
probe_open(const char *path)
{
	char	full[4096];

	return open(probe_path(full, sizeof(full), path),
	    O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

ssize_t
probe_pread(int fd, char *buf, size_t size)
{
	ssize_t	n;
	size_t	got = 0, want;

	if (fd < 0 || size == 0)
		return -1;
	while (got < size - 1) {
		want = size - 1 - got;
		n = pread(fd, buf + got, want, (off_t)got);
		if (n < 0)
			return -1;
		got += (size_t)n;
		/* procfs and sysfs hand over all they have when the buffer
		 * is large enough, so a short read is the end of the file:
		 * no second call just to see EOF. */
		if ((size_t)n < want)
			break;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

ssize_t
probe_read_file(const char *path, char *buf, size_t size)
{
	int	fd;
	ssize_t	n;

	if ((fd = probe_open(path)) < 0)
		return -1;
	n = probe_pread(fd, buf, size);
	close(fd);
	return n;
}

/* A one-line file as text, without its newline and trailing blanks;
 * -1 when unreadable or empty. */
int
probe_read_line(const char *path, char *buf, size_t size)
{
	size_t	len;

	if (probe_read_file(path, buf, size) <= 0)
		return -1;
	len = strcspn(buf, "\n");
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	return len > 0 ? 0 : -1;
}

static int
probe_cmp_int(const void *a, const void *b)
{
	int	x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The numbers N of the entries "<prefix>N<suffix>" of a directory (under
 * --root), each once, in ascending order, at most max; how many (hwmon's
 * temp1_input, power2_average, a zone's trip_point_0_type). */
unsigned
probe_list_nums(const char *dir, const char *prefix, const char *suffix,
    int *nums, unsigned max)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[4096], *end;
	size_t		 plen = strlen(prefix);
	unsigned	 n = 0, i;
	long		 v;

	if ((d = opendir(probe_path(path, sizeof(path), dir))) == NULL)
		return 0;
	while (n < max && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, plen) != 0 ||
		    de->d_name[plen] < '0' || de->d_name[plen] > '9')
			continue;
		v = strtol(de->d_name + plen, &end, 10);
		if (strcmp(end, suffix) != 0 || v > 1000000)
			continue;
		for (i = 0; i < n && nums[i] != (int)v; i++)
			;
		if (i == n)
			nums[n++] = (int)v;
	}
	closedir(d);
	qsort(nums, n, sizeof(nums[0]), probe_cmp_int);
	return n;
}

/* getdents64's record (struct linux_dirent64). */
struct probe_dirent {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

int
probe_list_tasks(pid_t pid, pid_t *tids, int max)
{
	static char			 dents[8192];
	const struct probe_dirent	*d;
	char				 path[64], *end;
	long				 n, off, tid;
	int				 dfd, ntids = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((dfd = probe_open(path)) < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, dfd, dents, sizeof(dents))) > 0) {
		for (off = 0; off < n; off += d->d_reclen) {
			d = (const struct probe_dirent *)(const void *)
			    (dents + off);
			if (d->d_name[0] < '1' || d->d_name[0] > '9')
				continue;
			tid = strtol(d->d_name, &end, 10);
			if (*end == '\0' && tid <= 0x7fffffff && ntids < max)
				tids[ntids++] = (pid_t)tid;
		}
	}
	close(dfd);
	return ntids;
}

const char *
probe_skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

const char *
probe_parse_u64(const char *p, uint64_t *v)
{
	uint64_t	acc = 0;

	p = probe_skip_space(p);
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p)) {
		/* More than 64 bits is not a number the kernel wrote. */
		if (acc > UINT64_MAX / 10 || (acc == UINT64_MAX / 10 &&
		    (uint64_t)(*p - '0') > UINT64_MAX % 10))
			return NULL;
		acc = acc * 10 + (uint64_t)(*p++ - '0');
	}
	*v = acc;
	return p;
}

const char *
probe_parse_i64(const char *p, int64_t *v)
{
	uint64_t	u;
	int		neg = 0;

	p = probe_skip_space(p);
	if (*p == '-') {
		neg = 1;
		p++;
	}
	if ((p = probe_parse_u64(p, &u)) == NULL)
		return NULL;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return p;
}

int
probe_find_u64(const char *text, const char *key, uint64_t *v)
{
	size_t		 klen = strlen(key);
	const char	*p = text;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, klen) == 0 &&
		    (p[klen] == ':' || p[klen] == ' ' || p[klen] == '\t')) {
			p += klen + (p[klen] == ':');
			return probe_parse_u64(p, v) == NULL ? -1 : 0;
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -1;
}

uint64_t
probe_mono_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* In a child: fd as a descriptor above standard error (a probe started
 * with 0, 1 or 2 closed gets its pipe or /dev/null there, which the
 * dup2s below would overwrite or leave close-on-exec). */
static int
probe_spawn_high(int fd)
{
	return fd >= 0 && fd <= STDERR_FILENO ?
	    fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1) : fd;
}

pid_t
probe_spawn(const char *path, char *const argv[], int errmode, int *fd)
{
	pid_t	parent = getpid(), pid;
	int	p[2], nul, out, e;
	char	msg[256];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if ((pid = fork()) < 0) {
		e = errno;
		close(p[0]);
		close(p[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		/* Dies with the probe, even a killed one. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		if ((out = probe_spawn_high(p[1])) < 0)
			_exit(127);
		nul = probe_spawn_high(open("/dev/null", O_RDWR | O_CLOEXEC));
		if (nul >= 0) {
			dup2(nul, STDIN_FILENO);
			if (errmode == PROBE_SPAWN_ERRNULL)
				dup2(nul, STDERR_FILENO);
		}
		dup2(out, STDOUT_FILENO);
		if (errmode == PROBE_SPAWN_ERRPIPE)
			dup2(out, STDERR_FILENO);
		execv(path, argv);
		if (errmode == PROBE_SPAWN_ERRPIPE) {
			/* The reason, for the caller: a line that is not
			 * the program's output. */
			snprintf(msg, sizeof(msg), "cannot run %s: %s\n",
			    path, strerror(errno));
			if (write(STDERR_FILENO, msg, strlen(msg)) < 0)
				_exit(127);
		}
		_exit(127);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	*fd = p[0];
	return pid;
}
