/* SPDX-License-Identifier: ISC */
/*
 * feed-local: spawn the probe as a child with three pipes.  The monitor
 * keeps the write end of the child's stdin open and never writes to it:
 * the probe watches that pipe and ends when it closes, which is how the
 * monitor stops it (and how it stops when the monitor dies).  The child
 * comes from spawn.c (non-blocking close-on-exec pipes, PR_SET_PDEATHSIG,
 * an exec failure reported at once).
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
#include "fsutil.h"
#include "log.h"
#include "selfpath.h"
#include "spawn.h"
#include "textsafe.h"
#include "xmalloc.h"

#ifndef JOBTOP_LIBEXECDIR
#define JOBTOP_LIBEXECDIR "/usr/local/libexec/jobtop"
#endif

#define FEED_LOCAL_ERRLINE	256

struct feed_local {
	struct spawn	 sp;	/* in: the child's stdin, held open */
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

	if (geteuid() != 0 || fs_path_safe(path, why, sizeof(why)) == 0)
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

struct feed_local *
feed_local_start(const char *path, char *const argv[], char *err,
    size_t errsz)
{
	struct feed_local	*fl;
	struct spawn_req	 rq;

	memset(&rq, 0, sizeof(rq));
	rq.path = path;
	rq.argv = argv;
	rq.flags = SPAWN_IN | SPAWN_OUT | SPAWN_ERR;
	fl = xcalloc(1, sizeof(*fl));
	if (spawn_start(&fl->sp, &rq, err, errsz) != 0) {
		free(fl);
		return NULL;
	}
	log_debug("started %s as pid %ld", path, (long)fl->sp.pid);
	return fl;
}

int
feed_local_control(struct feed_local *fl, const char *line)
{
	size_t	len = strlen(line);
	ssize_t	n;

	n = spawn_write(&fl->sp, line, len);
	/* A line is far below PIPE_BUF: it goes whole or not at all. */
	return n == (ssize_t)len ? 0 : -1;
}

void
feed_local_free(struct feed_local *fl)
{
	if (fl == NULL)
		return;
	spawn_end(&fl->sp);
	free(fl);
}

int
feed_local_out_fd(const struct feed_local *fl)
{
	return fl->sp.out;
}

int
feed_local_err_fd(const struct feed_local *fl)
{
	return fl->sp.err;
}

pid_t
feed_local_pid(const struct feed_local *fl)
{
	return fl->sp.pid;
}

ssize_t
feed_local_read(struct feed_local *fl, void *buf, size_t size)
{
	return spawn_read(&fl->sp.out, buf, size);
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
	text_clean_inplace(fl->lastline);
	log_warn("probe %ld: %s", (long)fl->sp.pid, fl->lastline);
}

void
feed_local_read_err(struct feed_local *fl)
{
	char	 chunk[1024], *nl, *p;
	ssize_t	 n;
	size_t	 left, take;

	while (fl->sp.err >= 0) {
		n = spawn_read(&fl->sp.err, chunk, sizeof(chunk));
		if (n == -1)
			return;
		if (n <= 0) {
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
	spawn_close_in(&fl->sp);
}

void
feed_local_kill(struct feed_local *fl, int sig)
{
	spawn_kill(&fl->sp, sig);
}

int
feed_local_reap(struct feed_local *fl, int *status)
{
	pid_t	pid = fl->sp.pid;

	if (!spawn_reap(&fl->sp, 0))
		return 0;
	if (pid > 0)
		log_debug("probe %ld ended (wait status %d)", (long)pid,
		    fl->sp.status);
	*status = fl->sp.status;
	return 1;
}

void
feed_local_describe(int status, char *buf, size_t size)
{
	spawn_describe(status, buf, size);
}
