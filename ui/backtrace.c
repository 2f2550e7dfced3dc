/*
 * backtrace: fork and exec a debugger with its output on a non-blocking
 * pipe.  The child runs in its own session with /dev/null as input, so it
 * can neither read the terminal curses owns nor write to it; the monitor's
 * SIGCHLD (the session's self-pipe) wakes the loop when it exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backtrace.h"
#include "xmalloc.h"

struct backtrace {
	pid_t		 target;
	pid_t		 child;		/* -1 once reaped */
	int		 fd;
	const char	*tool;
	uint64_t	 deadline;
	int		 done;
	int		 killed;
	char		*buf;
	size_t		 len;
	char		 status[128];
};

/* The first executable name found in PATH, allocated, or NULL. */
static char *
backtrace_which(const char *name)
{
	const char	*path = getenv("PATH"), *p, *end;
	char		*cand;

	if (path == NULL || *path == '\0')
		path = "/usr/bin:/bin";
	for (p = path; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		if (end == p)
			continue;
		cand = xasprintf("%.*s/%s", (int)(end - p), p, name);
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return NULL;
}

struct backtrace *
backtrace_start(pid_t pid, uint64_t now, char *err, size_t errsz)
{
	struct backtrace	*bt;
	char			*tool, pidbuf[32], *argv[12];
	int			 p[2], devnull, k = 0;
	pid_t			 child;
	static char		 a_batch[] = "-batch", a_nx[] = "-nx",
				 a_p[] = "-p", a_ex[] = "-ex",
				 a_bt[] = "thread apply all bt",
				 a_q[] = "-q";
	const char		*name = "gdb";

	if ((tool = backtrace_which("gdb")) == NULL) {
		name = "eu-stack";
		if ((tool = backtrace_which("eu-stack")) == NULL) {
			snprintf(err, errsz, "no gdb or eu-stack in PATH: "
			    "install one for user-space backtraces");
			return NULL;
		}
	}
	snprintf(pidbuf, sizeof(pidbuf), "%ld", (long)pid);
	argv[k++] = tool;
	if (strcmp(name, "gdb") == 0) {
		argv[k++] = a_batch;
		argv[k++] = a_nx;
		argv[k++] = a_q;
		argv[k++] = a_p;
		argv[k++] = pidbuf;
		argv[k++] = a_ex;
		argv[k++] = a_bt;
	} else {
		argv[k++] = a_p;
		argv[k++] = pidbuf;
	}
	argv[k] = NULL;
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		free(tool);
		return NULL;
	}
	if ((child = fork()) < 0) {
		snprintf(err, errsz, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		free(tool);
		return NULL;
	}
	if (child == 0) {
		/* Only async-signal-safe calls from here to exec. */
		setsid();
		devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		signal(SIGPIPE, SIG_DFL);
		execv(tool, argv);
		_exit(127);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	free(tool);
	bt = xcalloc(1, sizeof(*bt));
	bt->target = pid;
	bt->child = child;
	bt->fd = p[0];
	bt->tool = name;
	bt->deadline = now + BACKTRACE_TIMEOUT_MS;
	bt->buf = xmalloc(BACKTRACE_OUTPUT_MAX + 1);
	bt->buf[0] = '\0';
	return bt;
}

void
backtrace_free(struct backtrace *bt)
{
	int	st;

	if (bt == NULL)
		return;
	if (bt->child > 0) {
		kill(bt->child, SIGKILL);
		while (waitpid(bt->child, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (bt->fd >= 0)
		close(bt->fd);
	free(bt->buf);
	free(bt);
}

int
backtrace_fd(const struct backtrace *bt)
{
	return bt != NULL ? bt->fd : -1;
}

void
backtrace_read(struct backtrace *bt)
{
	char	junk[4096];
	ssize_t	n;

	while (bt->fd >= 0) {
		if (bt->len < BACKTRACE_OUTPUT_MAX)
			n = read(bt->fd, bt->buf + bt->len,
			    BACKTRACE_OUTPUT_MAX - bt->len);
		else
			n = read(bt->fd, junk, sizeof(junk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(bt->fd);
			bt->fd = -1;
			return;
		}
		if (bt->len < BACKTRACE_OUTPUT_MAX)
			bt->len += (size_t)n;
		bt->buf[bt->len] = '\0';
	}
}

int
backtrace_check(struct backtrace *bt, uint64_t now)
{
	int	st;
	pid_t	r;

	if (bt->done)
		return 1;
	if (bt->child > 0 && !bt->killed && now >= bt->deadline) {
		kill(bt->child, SIGKILL);
		bt->killed = 1;
	}
	if (bt->child > 0) {
		r = waitpid(bt->child, &st, WNOHANG);
		if (r == bt->child) {
			bt->child = -1;
			if (bt->killed)
				snprintf(bt->status, sizeof(bt->status),
				    "%s timed out after %d s", bt->tool,
				    BACKTRACE_TIMEOUT_MS / 1000);
			else if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
				snprintf(bt->status, sizeof(bt->status),
				    "%s could not be run", bt->tool);
			else if (WIFEXITED(st))
				snprintf(bt->status, sizeof(bt->status),
				    "%s exited with status %d", bt->tool,
				    WEXITSTATUS(st));
			else
				snprintf(bt->status, sizeof(bt->status),
				    "%s killed by signal %d", bt->tool,
				    WTERMSIG(st));
		}
	}
	if (bt->child < 0 && bt->fd >= 0)
		backtrace_read(bt);
	if (bt->child < 0 && bt->fd < 0)
		bt->done = 1;
	return bt->done;
}

int
backtrace_timeout(const struct backtrace *bt, uint64_t now)
{
	if (bt == NULL || bt->done)
		return -1;
	if (bt->child < 0)
		return 50;	/* reaped; the pipe drains on the next wake */
	if (bt->killed)
		return 100;	/* wait for the kill to be reaped */
	return now >= bt->deadline ? 0 : (int)(bt->deadline - now);
}

int
backtrace_done(const struct backtrace *bt)
{
	return bt->done;
}

pid_t
backtrace_pid(const struct backtrace *bt)
{
	return bt->target;
}

const char *
backtrace_text(const struct backtrace *bt)
{
	return bt->buf;
}

const char *
backtrace_status(const struct backtrace *bt)
{
	return bt->status;
}

const char *
backtrace_tool(const struct backtrace *bt)
{
	return bt->tool;
}
