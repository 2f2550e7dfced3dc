/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the probe's child start (probe_spawn in probes/util.c),
 * which runs scontrol listpids (standard error to /dev/null) and the NVML
 * helper or nvidia-smi (standard error into the pipe), with /bin/sh as
 * the child: what reaches the pipe in each mode, /dev/null as standard
 * input, the read end non-blocking and close-on-exec, the line an exec
 * that fails leaves, a child that dies with its parent, and a parent
 * started with 0, 1 and 2 closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "../../probes/util.c"

#define S(x)	((char *)(uintptr_t)(x))

/* All the child writes until end of file (at most 5 s), into buf; its
 * length, or -1 when it did not end. */
static ssize_t
read_all(int fd, char *buf, size_t size)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLIN };
	size_t		got = 0;
	ssize_t		n;
	uint64_t	end = probe_mono_us() + 5000000;

	while (got < size - 1 && probe_mono_us() < end) {
		n = read(fd, buf + got, size - 1 - got);
		if (n == 0)
			break;
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -1;
		poll(&pfd, 1, 100);
	}
	buf[got] = '\0';
	return probe_mono_us() < end ? (ssize_t)got : -1;
}

/* Run sh -c script in errmode; its output into out and its wait status. */
static int
run_sh(const char *script, int errmode, char *out, size_t size, int *st)
{
	char	*argv[] = { S("sh"), S("-c"), S(script), NULL };
	pid_t	 pid;
	int	 fd;
	ssize_t	 n;

	if ((pid = probe_spawn("/bin/sh", argv, errmode, &fd)) < 0)
		return -1;
	n = read_all(fd, out, size);
	close(fd);
	if (waitpid(pid, st, 0) != pid)
		return -1;
	return n < 0 ? -1 : 0;
}

static const char *script =
    "echo out; echo err >&2; readlink /proc/self/fd/0; cat; exit 3";

/* scontrol's mode: standard output only; /dev/null as standard input
 * (cat ends at once). */
static void
test_errnull(void)
{
	char	out[256];
	int	st = 0;

	CHECK_INT(run_sh(script, PROBE_SPAWN_ERRNULL, out, sizeof(out), &st),
	    0);
	CHECK_STR(out, "out\n/dev/null\n");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
}

/* The NVML helper's and nvidia-smi's: standard error with the output. */
static void
test_errpipe(void)
{
	char	out[256];
	int	st = 0;

	CHECK_INT(run_sh(script, PROBE_SPAWN_ERRPIPE, out, sizeof(out), &st),
	    0);
	CHECK_STR(out, "out\nerr\n/dev/null\n");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
}

/* The read end: non-blocking (a sample never waits on a child) and
 * close-on-exec (the next child does not hold it open). */
static void
test_read_end(void)
{
	char	*argv[] = { S("sh"), S("-c"), S("sleep 1"), NULL };
	char	 buf[16];
	pid_t	 pid;
	int	 fd = -1, st;

	pid = probe_spawn("/bin/sh", argv, PROBE_SPAWN_ERRNULL, &fd);
	CHECK(pid > 0 && fd >= 0);
	if (pid <= 0)
		return;
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	CHECK_INT((int)read(fd, buf, sizeof(buf)), -1);
	CHECK_INT(errno, EAGAIN);
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/* An exec that fails: status 127, and in ERRPIPE mode the reason as a
 * line (nvgpu's EVENT shows it); nothing in ERRNULL mode. */
static void
test_exec_fails(void)
{
	char	*argv[] = { S("nothere"), NULL };
	char	 out[256];
	pid_t	 pid;
	int	 fd, st = 0;

	pid = probe_spawn("/nonexistent/nothere", argv, PROBE_SPAWN_ERRPIPE,
	    &fd);
	CHECK(pid > 0);
	if (pid > 0) {
		CHECK(read_all(fd, out, sizeof(out)) >= 0);
		CHECK_STR(out, "cannot run /nonexistent/nothere: No such file "
		    "or directory\n");
		close(fd);
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 127);
	}
	pid = probe_spawn("/nonexistent/nothere", argv, PROBE_SPAWN_ERRNULL,
	    &fd);
	CHECK(pid > 0);
	if (pid > 0) {
		CHECK(read_all(fd, out, sizeof(out)) >= 0);
		CHECK_STR(out, "");
		close(fd);
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 127);
	}
}

/* A probe started with 0, 1 and 2 closed: the pipe and /dev/null come
 * there, and must still end up as the child's output and input (not
 * overwritten, not closed at the exec). */
static void
test_std_closed(void)
{
	char	out[256];
	int	r[2], st = 0, wst;
	pid_t	pid;
	ssize_t	n;

	CHECK_INT(pipe(r), 0);
	if ((pid = fork()) == 0) {
		close(r[0]);
		close(STDIN_FILENO);
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		if (run_sh(script, PROBE_SPAWN_ERRNULL, out, sizeof(out),
		    &wst) < 0 || write(r[1], out, strlen(out)) < 0)
			_exit(1);
		if (run_sh(script, PROBE_SPAWN_ERRPIPE, out, sizeof(out),
		    &wst) < 0 || write(r[1], out, strlen(out)) < 0)
			_exit(1);
		_exit(0);
	}
	close(r[1]);
	n = read_all(r[0], out, sizeof(out));
	close(r[0]);
	waitpid(pid, &st, 0);
	CHECK(n >= 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR(out, "out\n/dev/null\nout\nerr\n/dev/null\n");
}

/* Has pid gone (reaped by us, the subreaper)? */
static int
gone_within(pid_t pid, int ms)
{
	uint64_t	end = probe_mono_us() + (uint64_t)ms * 1000;
	int		st;

	while (probe_mono_us() < end) {
		if (waitpid(pid, &st, WNOHANG) == pid || (kill(pid, 0) != 0 &&
		    errno == ESRCH))
			return 1;
		usleep(20000);
	}
	return 0;
}

/* A probe killed with SIGKILL takes its child along (PR_SET_PDEATHSIG). */
static void
test_parent_death(void)
{
	char	*argv[] = { S("sleep"), S("30"), NULL };
	int	 p[2], fd, st, gone;
	pid_t	 mid, sleeper = -1, pid;

	CHECK_INT(pipe(p), 0);
	if ((mid = fork()) == 0) {
		close(p[0]);
		if ((pid = probe_spawn("/bin/sleep", argv, PROBE_SPAWN_ERRNULL,
		    &fd)) < 0 || write(p[1], &pid, sizeof(pid)) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	CHECK_INT((int)read(p[0], &sleeper, sizeof(sleeper)),
	    (int)sizeof(sleeper));
	close(p[0]);
	CHECK(sleeper > 0 && kill(sleeper, 0) == 0);
	kill(mid, SIGKILL);
	waitpid(mid, &st, 0);
	gone = sleeper > 0 && gone_within(sleeper, 3000);
	CHECK(gone);
	if (sleeper > 0 && !gone)
		kill(sleeper, SIGKILL);
}

int
main(void)
{
	/* The sleeper of test_parent_death comes back to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	RUN(test_errnull);
	RUN(test_errpipe);
	RUN(test_read_end);
	RUN(test_exec_fails);
	RUN(test_std_closed);
	RUN(test_parent_death);
	return harness_done();
}
