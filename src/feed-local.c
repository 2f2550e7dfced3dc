/*
 * feed-local: spawn the probe as a child with three pipes.  The monitor
 * keeps the write end of the child's stdin open and never writes to it:
 * the probe watches that pipe and ends when it closes, which is how the
 * monitor stops it (and how it stops when the monitor dies).  Every pipe end
 * the monitor keeps is close-on-exec and non-blocking.  fork and exec
 * rather than posix_spawn: an exec failure comes back through a
 * close-on-exec pipe, so a missing or broken probe is reported at once.
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

#include "feed-local.h"
#include "log.h"
#include "rutil.h"
#include "selfpath.h"
#include "xmalloc.h"

#ifndef JOBTOP_LIBEXECDIR
#define JOBTOP_LIBEXECDIR "/usr/local/libexec/jobtop"
#endif

#define FEED_LOCAL_ERRLINE	256

struct feed_local {
	pid_t	 pid;		/* -1 once reaped */
	int	 in_fd;		/* the child's stdin, held open */
	int	 out_fd;
	int	 err_fd;
	int	 status;
	char	 errbuf[FEED_LOCAL_ERRLINE];	/* a partial stderr line */
	size_t	 errlen;
	char	 lastline[FEED_LOCAL_ERRLINE];
};

/* Is path an executable regular file? */
static int
feed_local_executable(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

/*
 * As root, a program jobtop runs (here and on every node) must be one that
 * nobody else could have replaced: owned by root, not writable by group or
 * others, and the same for every directory above it (OpenSSH's rule).
 * path is returned, or NULL after freeing it with the reason in err.
 */
static char *
feed_local_trusted(char *path, const char *what, char *err, size_t errsz)
{
	char	why[512];

	if (geteuid() != 0 || rutil_path_safe(path, why, sizeof(why)) == 0)
		return path;
	snprintf(err, errsz, "%s %s is not safe to run as root: %s", what,
	    path, why);
	free(path);
	return NULL;
}

/* An executable path/jobtop-probe: allocated, or NULL (path is freed). */
static char *
feed_local_probe_in(char *dir)
{
	char	*path;

	if (dir == NULL)
		return NULL;
	path = xasprintf("%s/jobtop-probe", dir);
	free(dir);
	if (feed_local_executable(path))
		return path;
	free(path);
	return NULL;
}

/*
 * In order: the build tree (jobtop beside jobtop-probe, as the tests run
 * it), the install the executable is part of (PREFIX/bin/jobtop and
 * PREFIX/libexec/jobtop/jobtop-probe, wherever PREFIX was moved to), then
 * the directory it was built for.  The first one found is the one: as root
 * an unsafe probe there is an error, never a reason to look further.
 */
char *
feed_local_find_probe(char *err, size_t errsz)
{
	const char	*env;
	char		*path, *rel;

	if ((env = getenv("JOBTOP_PROBE")) != NULL && *env != '\0') {
		if (feed_local_executable(env))
			return feed_local_trusted(xstrdup(env),
			    "JOBTOP_PROBE", err, errsz);
		snprintf(err, errsz, "JOBTOP_PROBE=%s is not an executable "
		    "file", env);
		return NULL;
	}
	if ((path = feed_local_probe_in(selfpath_dir())) != NULL ||
	    (path = feed_local_probe_in(selfpath_prefixed(
	    "libexec/jobtop"))) != NULL ||
	    (path = feed_local_probe_in(xstrdup(JOBTOP_LIBEXECDIR))) != NULL)
		return feed_local_trusted(path, "the probe", err, errsz);
	rel = selfpath_prefixed("libexec/jobtop");
	snprintf(err, errsz, "cannot find jobtop-probe (looked beside jobtop, "
	    "in %s and in %s; set JOBTOP_PROBE)", rel != NULL ? rel :
	    "../libexec/jobtop", JOBTOP_LIBEXECDIR);
	free(rel);
	return NULL;
}

char *
feed_local_find_nvml(const char *probe)
{
	const char	*env, *slash;
	char		*path, why[1024];

	if ((env = getenv("JOBTOP_NVML")) != NULL) {
		if (*env == '\0')
			return NULL;
		if (feed_local_executable(env))
			path = xstrdup(env);
		else {
			log_warn("JOBTOP_NVML=%s is not an executable file",
			    env);
			return NULL;
		}
	} else {
		if ((slash = strrchr(probe, '/')) == NULL)
			return NULL;
		path = xasprintf("%.*sjobtop-nvml", (int)(slash - probe + 1),
		    probe);
		if (!feed_local_executable(path)) {
			free(path);
			return NULL;
		}
	}
	/* Optional: one that is not safe is left out (nvidia-smi). */
	if ((path = feed_local_trusted(path, "the NVML helper", why,
	    sizeof(why))) == NULL)
		log_warn("%s; it is not used", why);
	return path;
}

static void
feed_local_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int
feed_local_nonblock(int fd)
{
	int	flags;

	if ((flags = fcntl(fd, F_GETFL)) < 0)
		return -1;
	return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* In the child between fork and exec: only async-signal-safe calls. */
static void
feed_local_child(const char *path, char *const argv[], int in, int out,
    int err, int report)
{
	static const int	 sigs[] = {
		SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP
	};
	struct sigaction	 sa;
	sigset_t		 none;
	unsigned		 i;
	int			 e;

	/* The monitor ignores SIGPIPE; the probe starts with defaults. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(in, STDIN_FILENO) >= 0 && dup2(out, STDOUT_FILENO) >= 0 &&
	    dup2(err, STDERR_FILENO) >= 0)
		execv(path, argv);
	/* Tell the parent why through the close-on-exec pipe. */
	e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

struct feed_local *
feed_local_start(const char *path, char *const argv[], char *err,
    size_t errsz)
{
	struct feed_local	*fl;
	int			 in[2] = { -1, -1 }, out[2] = { -1, -1 };
	int			 errp[2] = { -1, -1 }, rep[2] = { -1, -1 };
	int			 e, status;
	ssize_t			 n;
	pid_t			 pid;

	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
	    pipe2(errp, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0) {
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		goto fail;
	}
	if ((pid = fork()) < 0) {
		snprintf(err, errsz, "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		feed_local_child(path, argv, in[0], out[1], errp[1], rep[1]);
	feed_local_close(&rep[1]);
	/* EOF when exec worked; an errno when it did not.  Immediate. */
	do
		n = read(rep[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	feed_local_close(&rep[0]);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		snprintf(err, errsz, "cannot run %s: %s", path, strerror(e));
		goto fail;
	}
	feed_local_close(&in[0]);
	feed_local_close(&out[1]);
	feed_local_close(&errp[1]);
	fl = xcalloc(1, sizeof(*fl));
	fl->pid = pid;
	fl->in_fd = in[1];
	fl->out_fd = out[0];
	fl->err_fd = errp[0];
	if (feed_local_nonblock(fl->out_fd) != 0 ||
	    feed_local_nonblock(fl->err_fd) != 0 ||
	    feed_local_nonblock(fl->in_fd) != 0)
		fatal("fcntl: %s", strerror(errno));
	log_debug("started %s as pid %ld", path, (long)pid);
	return fl;

fail:
	feed_local_close(&in[0]);
	feed_local_close(&in[1]);
	feed_local_close(&out[0]);
	feed_local_close(&out[1]);
	feed_local_close(&errp[0]);
	feed_local_close(&errp[1]);
	feed_local_close(&rep[0]);
	feed_local_close(&rep[1]);
	return NULL;
}

int
feed_local_control(struct feed_local *fl, const char *line)
{
	size_t	len = strlen(line);
	ssize_t	n;

	if (fl->in_fd < 0)
		return -1;
	do
		n = write(fl->in_fd, line, len);
	while (n < 0 && errno == EINTR);
	/* A line is far below PIPE_BUF: it goes whole or not at all. */
	return n == (ssize_t)len ? 0 : -1;
}

void
feed_local_free(struct feed_local *fl)
{
	if (fl == NULL)
		return;
	feed_local_close(&fl->in_fd);
	feed_local_close(&fl->out_fd);
	feed_local_close(&fl->err_fd);
	if (fl->pid > 0) {
		kill(fl->pid, SIGKILL);
		while (waitpid(fl->pid, &fl->status, 0) < 0 && errno == EINTR)
			;
	}
	free(fl);
}

int
feed_local_out_fd(const struct feed_local *fl)
{
	return fl->out_fd;
}

int
feed_local_err_fd(const struct feed_local *fl)
{
	return fl->err_fd;
}

pid_t
feed_local_pid(const struct feed_local *fl)
{
	return fl->pid;
}

ssize_t
feed_local_read(struct feed_local *fl, void *buf, size_t size)
{
	ssize_t	n;

	if (fl->out_fd < 0)
		return 0;
	do
		n = read(fl->out_fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -1;
	if (n <= 0) {
		int save = errno;
		feed_local_close(&fl->out_fd);
		errno = save;
		return n == 0 ? 0 : -2;
	}
	return n;
}

/* A complete stderr line: log it and keep it. */
static void
feed_local_err_line(struct feed_local *fl, const char *line, size_t len)
{
	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (len == 0)
		return;
	if (len >= sizeof(fl->lastline))
		len = sizeof(fl->lastline) - 1;
	memcpy(fl->lastline, line, len);
	fl->lastline[len] = '\0';
	log_warn("probe %ld: %s", (long)fl->pid, fl->lastline);
}

void
feed_local_read_err(struct feed_local *fl)
{
	char	 chunk[1024], *nl, *p;
	ssize_t	 n;
	size_t	 left, take;

	while (fl->err_fd >= 0) {
		n = read(fl->err_fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			feed_local_close(&fl->err_fd);
			feed_local_err_line(fl, fl->errbuf, fl->errlen);
			fl->errlen = 0;
			return;
		}
		p = chunk;
		left = (size_t)n;
		while (left > 0) {
			nl = memchr(p, '\n', left);
			take = nl != NULL ? (size_t)(nl - p) : left;
			/* Overlong lines are cut, not buffered without end. */
			if (take > sizeof(fl->errbuf) - fl->errlen)
				take = sizeof(fl->errbuf) - fl->errlen;
			memcpy(fl->errbuf + fl->errlen, p, take);
			fl->errlen += take;
			if (nl != NULL) {
				feed_local_err_line(fl, fl->errbuf,
				    fl->errlen);
				fl->errlen = 0;
				left -= (size_t)(nl - p) + 1;
				p = nl + 1;
			} else {
				left = 0;
			}
		}
	}
}

const char *
feed_local_last_err(const struct feed_local *fl)
{
	return fl->lastline;
}

void
feed_local_stop(struct feed_local *fl)
{
	feed_local_close(&fl->in_fd);
}

void
feed_local_kill(struct feed_local *fl, int sig)
{
	if (fl->pid > 0)
		kill(fl->pid, sig);
}

int
feed_local_reap(struct feed_local *fl, int *status)
{
	pid_t	r;

	if (fl->pid > 0) {
		do
			r = waitpid(fl->pid, &fl->status, WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			return 0;
		if (r < 0)
			fl->status = 0;
		log_debug("probe %ld ended (wait status %d)", (long)fl->pid,
		    fl->status);
		fl->pid = -1;
	}
	*status = fl->status;
	return 1;
}

void
feed_local_describe(int status, char *buf, size_t size)
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
