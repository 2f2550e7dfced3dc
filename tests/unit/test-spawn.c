/* SPDX-License-Identifier: ISC */
/*
 * test-spawn: the one child-process helper (src/spawn.c) with real
 * children: pipes both ways, an exec failure reported at once, a child
 * that dies with its parent (PR_SET_PDEATHSIG, as after a kill -9 of the
 * monitor), a process group killed as one, no descriptor leaked into the
 * child, the deadline, a function child, a child that becomes another
 * user with his groups and keeps its parent-death signal (as root only),
 * and the HELLO scanner (src/hello.c) every transport uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hello.h"
#include "spawn.h"

#define S(x)	((char *)(uintptr_t)(x))

/* Read fd until EOF or ms pass; returns the bytes in buf. */
static size_t
slurp(int *fd, char *buf, size_t size, int ms)
{
	struct pollfd	pfd;
	uint64_t	end = spawn_now_ms() + (uint64_t)ms;
	size_t		len = 0;
	ssize_t		n;

	while (*fd >= 0 && spawn_now_ms() < end && len + 1 < size) {
		pfd.fd = *fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = spawn_read(fd, buf + len, size - 1 - len);
		if (n > 0)
			len += (size_t)n;
	}
	buf[len] = '\0';
	return len;
}

/* Has pid gone (reaped by us, the subreaper, or never ours)? */
static int
gone_within(pid_t pid, int ms)
{
	uint64_t	end = spawn_now_ms() + (uint64_t)ms;
	int		st;

	while (spawn_now_ms() < end) {
		if (waitpid(pid, &st, WNOHANG) == pid || (kill(pid, 0) != 0 &&
		    errno == ESRCH))
			return 1;
		usleep(20000);
	}
	return 0;
}

static void
test_pipes(void)
{
	static char	*argv[] = { S("sh"), S("-c"),
	    S("echo out; echo err >&2; read x; echo got $x; exit 3"), NULL };
	struct spawn_req rq = {
	    .path = "/bin/sh", .argv = argv,
	    .flags = SPAWN_IN | SPAWN_OUT | SPAWN_ERR };
	struct spawn	 sp;
	char		 out[256], err[256];

	CHECK_INT(spawn_start(&sp, &rq, err, sizeof(err)), 0);
	CHECK(sp.pid > 0 && sp.in >= 0 && sp.out >= 0 && sp.err >= 0);
	CHECK(fcntl(sp.out, F_GETFL) & O_NONBLOCK);
	CHECK(fcntl(sp.out, F_GETFD) & FD_CLOEXEC);
	CHECK_INT(spawn_write(&sp, "hi\n", 3), 3);
	spawn_close_in(&sp);
	slurp(&sp.out, out, sizeof(out), 5000);
	CHECK_STR(out, "out\ngot hi\n");
	slurp(&sp.err, err, sizeof(err), 5000);
	CHECK_STR(err, "err\n");
	CHECK_INT(spawn_reap(&sp, 1), 1);
	CHECK(WIFEXITED(sp.status) && WEXITSTATUS(sp.status) == 3);
	spawn_describe(sp.status, out, sizeof(out));
	CHECK_STR(out, "exited with status 3");
	spawn_end(&sp);
}

static void
test_exec_fails(void)
{
	static char	*argv[] = { S("nope"), NULL };
	struct spawn_req rq = {
	    .path = "/nonexistent/nope", .argv = argv, .flags = SPAWN_OUT };
	struct spawn	 sp;
	char		 err[256];

	CHECK_INT(spawn_start(&sp, &rq, err, sizeof(err)), -1);
	CHECK_STR(err, "cannot run /nonexistent/nope: No such file or "
	    "directory");
	CHECK(sp.pid == -1 && sp.out == -1);
}

/* Nothing but 0, 1 and 2 reaches the child, whatever the parent holds. */
static void
test_no_leak(void)
{
	static char	*argv[] = { S("sh"), S("-c"), S("cd /proc/self/fd && "
	    "for f in *; do echo $f; done"), NULL };
	struct spawn_req rq = {
	    .path = "/bin/sh", .argv = argv, .flags = SPAWN_OUT };
	struct spawn	 sp;
	char		 out[512], err[256], want[32];
	int		 leak;

	/* No O_CLOEXEC; high, away from what sh opens itself. */
	leak = dup2(open("/dev/null", O_RDONLY), 57);
	CHECK(leak == 57);
	CHECK_INT(spawn_start(&sp, &rq, err, sizeof(err)), 0);
	slurp(&sp.out, out, sizeof(out), 5000);
	snprintf(want, sizeof(want), "\n%d\n", leak);
	CHECK(strncmp(out, "0\n1\n2\n", 6) == 0);
	CHECK(strstr(out, want) == NULL);
	spawn_end(&sp);
	close(leak);
}

/* A child's child in its own group dies with spawn_kill of the group. */
static void
test_group(void)
{
	static char	*argv[] = { S("sh"), S("-c"),
	    S("sleep 30 & echo $!; wait"), NULL };
	struct spawn_req rq = {
	    .path = "/bin/sh", .argv = argv,
	    .flags = SPAWN_OUT | SPAWN_PGRP };
	struct spawn	 sp;
	char		 out[64], err[256];
	pid_t		 gc;
	struct pollfd	 pfd;

	CHECK_INT(spawn_start(&sp, &rq, err, sizeof(err)), 0);
	pfd.fd = sp.out;
	pfd.events = POLLIN;
	CHECK_INT(poll(&pfd, 1, 5000), 1);
	CHECK(spawn_read(&sp.out, out, sizeof(out) - 1) > 0);
	gc = (pid_t)atol(out);
	CHECK(gc > 0);
	CHECK_INT(getpgid(gc), sp.pid);
	spawn_kill(&sp, SIGKILL);
	CHECK_INT(spawn_reap(&sp, 1), 1);
	CHECK(WIFSIGNALED(sp.status) && WTERMSIG(sp.status) == SIGKILL);
	/* We are the subreaper: the orphan comes back to us. */
	CHECK(gone_within(gc, 3000));
	spawn_end(&sp);
}

/* A middle process spawns a sleeper and dies by SIGKILL: the sleeper
 * goes too (PR_SET_PDEATHSIG), as after kill -9 of the monitor. */
static void
test_parent_death(void)
{
	static char	*argv[] = { S("sleep"), S("30"), NULL };
	struct spawn_req rq = {
	    .path = "/bin/sleep", .argv = argv };
	struct spawn	 sp;
	char		 err[256];
	int		 p[2], st;
	pid_t		 mid, sleeper = -1;

	CHECK_INT(pipe(p), 0);
	if ((mid = fork()) == 0) {
		close(p[0]);
		if (spawn_start(&sp, &rq, err, sizeof(err)) != 0)
			_exit(1);
		if (write(p[1], &sp.pid, sizeof(sp.pid)) < 0)
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
	CHECK(sleeper > 0 && gone_within(sleeper, 3000));
}

static void
test_deadline(void)
{
	static char	*argv[] = { S("sleep"), S("30"), NULL };
	struct spawn_req rq = {
	    .path = "/bin/sleep", .argv = argv, .timeout_ms = 100 };
	struct spawn	 sp;
	char		 err[256];
	uint64_t	 now;

	CHECK_INT(spawn_start(&sp, &rq, err, sizeof(err)), 0);
	now = spawn_now_ms();
	CHECK(!spawn_expired(&sp, now));
	CHECK(spawn_timeout(&sp, now) > 0 && spawn_timeout(&sp, now) <= 100);
	CHECK(spawn_expired(&sp, now + 200));
	CHECK_INT(spawn_timeout(&sp, now + 200), 0);
	CHECK_INT(spawn_reap(&sp, 0), 0);
	spawn_end(&sp);
	CHECK(sp.pid == -1 && WIFSIGNALED(sp.status));
}

static void
child_fn(void *arg)
{
	const char	*s = arg;

	if (write(STDOUT_FILENO, s, strlen(s)) < 0)
		_exit(1);
	_exit(7);
}

static void
test_function(void)
{
	struct spawn_req rq = {
	    .fn = child_fn, .arg = S("from fn"), .flags = SPAWN_OUT };
	struct spawn	 sp;
	char		 out[64], err[256];

	CHECK_INT(spawn_start(&sp, &rq, err, sizeof(err)), 0);
	slurp(&sp.out, out, sizeof(out), 5000);
	CHECK_STR(out, "from fn");
	CHECK_INT(spawn_reap(&sp, 1), 1);
	CHECK(WIFEXITED(sp.status) && WEXITSTATUS(sp.status) == 7);
}

/* In the child after SPAWN_DROP: who it is, its parent-death signal and
 * its directory. */
static void
drop_fn(void *arg)
{
	gid_t	gs[8];
	char	buf[256], cwd[128];
	int	sig = -1, n, i, len;

	(void)arg;
	prctl(PR_GET_PDEATHSIG, &sig);
	n = getgroups(8, gs);
	len = snprintf(buf, sizeof(buf), "%ld %ld %d", (long)getuid(),
	    (long)getegid(), sig);
	for (i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, " %ld",
		    (long)gs[i]);
	if (getcwd(cwd, sizeof(cwd)) != NULL)
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, " %s",
		    cwd);
	if (write(STDOUT_FILENO, buf, (size_t)len) < 0)
		_exit(1);
	_exit(0);
}

/* Root becomes uid 65534 with groups 65534 and 100, in /tmp: the groups
 * given, and the parent-death signal set again after the switch (the
 * kernel clears it with the credentials); a directory he cannot enter
 * leaves him in /. */
static void
test_drop(void)
{
	static const gid_t groups[] = { 65534, 100 };
	struct spawn_req rq = {
	    .fn = drop_fn, .flags = SPAWN_OUT | SPAWN_DROP, .uid = 65534,
	    .gid = 65534, .groups = groups, .ngroups = 2, .dir = "/tmp" };
	struct spawn	 sp;
	char		 out[256], err[256];

	if (geteuid() != 0) {
		printf("  (not root: the switch of user is not tested)\n");
		return;
	}
	CHECK_INT(spawn_start(&sp, &rq, err, sizeof(err)), 0);
	slurp(&sp.out, out, sizeof(out), 5000);
	CHECK_STR(out, "65534 65534 9 100 65534 /tmp");	/* sorted */
	CHECK_INT(spawn_reap(&sp, 1), 1);
	rq.ngroups = 0;
	rq.dir = "/root";
	CHECK_INT(spawn_start(&sp, &rq, err, sizeof(err)), 0);
	slurp(&sp.out, out, sizeof(out), 5000);
	CHECK_STR(out, "65534 65534 9 /");
	CHECK_INT(spawn_reap(&sp, 1), 1);
}

/* A HELLO frame's start: type 1, a length varint, the magic. */
static const uint8_t hello1[] = { 1, 0x20, 'J', 'T', 'O', 'P', 2, 0 };
static const uint8_t hello3[] = { 1, 0x85, 0x82, 0x01, 'J', 'T', 'O', 'P' };

static void
test_hello(void)
{
	struct hello	h;
	uint8_t		buf[256];
	size_t		i, n;
	long		r = HELLO_MORE;

	hello_init(&h, 0);
	CHECK_INT(hello_scan(&h, hello1, sizeof(hello1)), 0);
	CHECK_INT((long)h.dropped, 0);

	/* A login shell's banner first, then the frame, byte by byte. */
	n = (size_t)snprintf((char *)buf, sizeof(buf), "Welcome\r\n\x1b[0m");
	memcpy(buf + n, hello3, sizeof(hello3));
	n += sizeof(hello3);
	hello_init(&h, 0);
	for (i = 1; i <= n && r == HELLO_MORE; i++)
		r = hello_scan(&h, buf, i);
	CHECK_INT(r, (long)(n - sizeof(hello3)));
	CHECK_STR(h.shown, "Welcome...[0m");
	CHECK_INT(hello_scan(&h, buf, n), 0);	/* found: stays found */

	/* The magic without a type byte before it is not a HELLO. */
	hello_init(&h, 0);
	memcpy(buf, "xx\x05JTOP and more", 16);
	CHECK_INT(hello_scan(&h, buf, 16), HELLO_MORE);

	/* Past the cap without one: give up. */
	hello_init(&h, 100);
	memset(buf, 'y', sizeof(buf));
	CHECK_INT(hello_scan(&h, buf, 90), HELLO_MORE);
	CHECK_INT(hello_scan(&h, buf, 200), HELLO_GIVEUP);
	CHECK_INT((long)h.dropped, 200);
}

int
main(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	RUN(test_pipes);
	RUN(test_exec_fails);
	RUN(test_no_leak);
	RUN(test_group);
	RUN(test_parent_death);
	RUN(test_deadline);
	RUN(test_function);
	RUN(test_drop);
	RUN(test_hello);
	return harness_done();
}
