/* SPDX-License-Identifier: ISC */
/*
 * spawn: fork and exec with pipes, for every child the monitor starts.
 * fork rather than posix_spawn: the child needs PR_SET_PDEATHSIG, a
 * process group or session, and its descriptors marked close-on-exec
 * before exec, and an exec failure comes back through a close-on-exec
 * pipe at once.  Between fork and exec only async-signal-safe calls.
 */
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

extern char	**environ;

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

uint64_t
spawn_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
spawn_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int
spawn_nonblock(int fd)
{
	int	flags;

	if ((flags = fcntl(fd, F_GETFL)) < 0)
		return -1;
	return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* Mark every descriptor from 3 up close-on-exec (the child's pipes were
 * dup2'd to 0-2, which clears the flag there). */
static void
spawn_cloexec_rest(void)
{
	long	i, max;

	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	if ((max = sysconf(_SC_OPEN_MAX)) < 0 || max > 65536)
		max = 65536;
	for (i = 3; i < max; i++)
		fcntl((int)i, F_SETFD, FD_CLOEXEC);
}

static void
spawn_close_rest(void)
{
	long	i, max;

	if ((max = sysconf(_SC_OPEN_MAX)) < 0 || max > 65536)
		max = 65536;
	for (i = 3; i < max; i++)
		close((int)i);
}

/* In the child: set up and exec (or run fn); never returns. */
static void
spawn_child(const struct spawn_req *rq, pid_t parent, int in, int out,
    int err, int report)
{
	static const int	 sigs[] = {
		SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP,
		SIGTTIN, SIGTTOU, SIGWINCH, SIGUSR1, SIGUSR2, SIGALRM
	};
	struct sigaction	 sa;
	sigset_t		 none;
	unsigned		 i;
	int			 e[2] = { 0, 0 };

	if (!(rq->flags & SPAWN_NODEATH)) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The monitor may have died before the prctl. */
		if (getppid() != parent)
			_exit(127);
	}
	if (rq->flags & SPAWN_SETSID)
		setsid();
	else if (rq->flags & SPAWN_PGRP)
		setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(err, STDERR_FILENO) < 0)
		goto fail;
	if ((rq->flags & SPAWN_DROP) && (setgroups(rq->ngroups, rq->ngroups >
	    0 ? rq->groups : NULL) != 0 ||
	    setresgid(rq->gid, rq->gid, rq->gid) != 0 ||
	    setresuid(rq->uid, rq->uid, rq->uid) != 0)) {
		e[0] = 1;
		goto fail;
	}
	if (rq->flags & SPAWN_DROP) {
		/* The kernel cleared the parent-death signal with the
		 * credentials: set it again, and look once more whether the
		 * monitor is still there. */
		if (!(rq->flags & SPAWN_NODEATH)) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(127);
		}
		if (rq->dir != NULL && chdir(rq->dir) != 0 &&
		    chdir("/") != 0) {
			e[0] = 2;
			goto fail;
		}
	}
	if (rq->fn != NULL) {
		/* No exec to close them: close them now (the report pipe
		 * too, which tells the parent it started). */
		if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
			spawn_close_rest();
		rq->fn(rq->arg);
		_exit(0);
	}
	spawn_cloexec_rest();
	execve(rq->path, rq->argv, rq->envp != NULL ? rq->envp : environ);
fail:
	e[1] = errno;
	if (write(report, e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int
spawn_start(struct spawn *sp, const struct spawn_req *rq, char *err,
    size_t errsz)
{
	int	 in[2] = { -1, -1 }, out[2] = { -1, -1 }, ep[2] = { -1, -1 };
	int	 rep[2] = { -1, -1 }, null = -1, cin, cout, cerr, e[2], st;
	ssize_t	 n;
	pid_t	 pid, me = getpid();

	memset(sp, 0, sizeof(*sp));
	sp->pid = -1;
	sp->in = sp->out = sp->err = -1;
	sp->flags = rq->flags;
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
	    pipe2(rep, O_CLOEXEC) != 0 ||
	    ((rq->flags & SPAWN_IN) && pipe2(in, O_CLOEXEC) != 0) ||
	    ((rq->flags & (SPAWN_OUT | SPAWN_ERR2OUT)) &&
	    pipe2(out, O_CLOEXEC) != 0) ||
	    ((rq->flags & SPAWN_ERR) && !(rq->flags & SPAWN_ERR2OUT) &&
	    pipe2(ep, O_CLOEXEC) != 0)) {
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		goto fail;
	}
	cin = in[0] >= 0 ? in[0] : null;
	cout = out[1] >= 0 ? out[1] : null;
	cerr = (rq->flags & SPAWN_ERR2OUT) ? cout : ep[1] >= 0 ? ep[1] : null;
	if ((pid = fork()) < 0) {
		snprintf(err, errsz, "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		spawn_child(rq, me, cin, cout, cerr, rep[1]);
	/* Both sides set the group: whichever runs first, kill(-pid) then
	 * reaches it. */
	if (rq->flags & (SPAWN_PGRP | SPAWN_SETSID))
		setpgid(pid, pid);
	spawn_close(&rep[1]);
	do
		n = read(rep[0], e, sizeof(e));
	while (n < 0 && errno == EINTR);
	spawn_close(&rep[0]);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (e[0] == 1)
			snprintf(err, errsz, "cannot become uid %ld: %s",
			    (long)rq->uid, strerror(e[1]));
		else if (e[0] == 2)
			snprintf(err, errsz, "uid %ld cannot enter /: %s",
			    (long)rq->uid, strerror(e[1]));
		else
			snprintf(err, errsz, "cannot run %s: %s", rq->path !=
			    NULL ? rq->path : "a child", strerror(e[1]));
		goto fail;
	}
	spawn_close(&null);
	spawn_close(&in[0]);
	spawn_close(&out[1]);
	spawn_close(&ep[1]);
	sp->pid = pid;
	sp->in = in[1];
	sp->out = out[0];
	sp->err = ep[0];
	if ((sp->in >= 0 && spawn_nonblock(sp->in) != 0) ||
	    (sp->out >= 0 && spawn_nonblock(sp->out) != 0) ||
	    (sp->err >= 0 && spawn_nonblock(sp->err) != 0)) {
		snprintf(err, errsz, "fcntl: %s", strerror(errno));
		spawn_end(sp);
		return -1;
	}
	if (rq->timeout_ms != 0)
		sp->deadline = spawn_now_ms() + rq->timeout_ms;
	return 0;

fail:
	spawn_close(&null);
	spawn_close(&rep[0]);
	spawn_close(&rep[1]);
	spawn_close(&in[0]);
	spawn_close(&in[1]);
	spawn_close(&out[0]);
	spawn_close(&out[1]);
	spawn_close(&ep[0]);
	spawn_close(&ep[1]);
	return -1;
}

ssize_t
spawn_read(int *fdp, void *buf, size_t size)
{
	ssize_t	n;
	int	save;

	if (*fdp < 0)
		return 0;
	do
		n = read(*fdp, buf, size);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		return n;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -1;
	save = errno;
	spawn_close(fdp);
	errno = save;
	return n == 0 ? 0 : -2;
}

ssize_t
spawn_write(struct spawn *sp, const void *buf, size_t len)
{
	ssize_t	n;

	if (sp->in < 0)
		return -1;
	do
		n = write(sp->in, buf, len);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return 0;
	return -1;
}

void
spawn_close_in(struct spawn *sp)
{
	spawn_close(&sp->in);
}

int
spawn_timeout(const struct spawn *sp, uint64_t now)
{
	if (sp->deadline == 0 || sp->pid < 0)
		return -1;
	if (sp->deadline <= now)
		return 0;
	return sp->deadline - now > INT32_MAX ? INT32_MAX :
	    (int)(sp->deadline - now);
}

int
spawn_expired(const struct spawn *sp, uint64_t now)
{
	return sp->deadline != 0 && now >= sp->deadline;
}

void
spawn_kill(struct spawn *sp, int sig)
{
	if (sp->pid <= 0)
		return;
	if (sig == SIGKILL)
		sp->killed = 1;
	if ((sp->flags & (SPAWN_PGRP | SPAWN_SETSID)) &&
	    kill(-sp->pid, sig) == 0)
		return;
	kill(sp->pid, sig);
}

int
spawn_reap(struct spawn *sp, int block)
{
	pid_t	r;

	if (sp->pid < 0)
		return 1;
	do
		r = waitpid(sp->pid, &sp->status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0)
		sp->status = 0;
	sp->pid = -1;
	return 1;
}

void
spawn_end(struct spawn *sp)
{
	spawn_close(&sp->in);
	spawn_close(&sp->out);
	spawn_close(&sp->err);
	if (sp->pid > 0) {
		spawn_kill(sp, SIGKILL);
		spawn_reap(sp, 1);
	} else if (sp->pid == 0)
		sp->pid = -1;
}

void
spawn_describe(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d",
		    WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d (%s)",
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "ended (wait status %d)", status);
}
