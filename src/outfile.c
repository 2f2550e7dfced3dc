/* SPDX-License-Identifier: ISC */
/*
 * outfile: output files that never clobber data or follow a link.  New
 * files are opened O_CREAT|O_EXCL|O_NOFOLLOW, so a name that exists (a
 * link another user planted in a shared directory included) is refused,
 * never truncated or followed.  Replacing a file goes through a
 * temporary file in the same directory and rename(), which swaps the
 * directory entry: the old file stays whole until the new one is
 * complete, and a link at the target is replaced, not followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "outfile.h"
#include "xmalloc.h"

#define OUTFILE_TRIES		100
#define OUTFILE_BASE_MAX	200	/* of the target's name in the tmp's */

static volatile sig_atomic_t	 outfile_sig;
static struct sigaction		 outfile_old[3];
static const int		 outfile_sigs[3] = { SIGINT, SIGTERM, SIGHUP };
static int			 outfile_caught;

/* A signal while a temporary file is open: remember it; the caller
 * stops, removes the file and exits. */
static void
outfile_on_signal(int sig)
{
	outfile_sig = sig;
}

static void
outfile_catch(int on)
{
	struct sigaction	sa;
	int			i;

	if (on == outfile_caught)
		return;
	outfile_caught = on;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = outfile_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++) {
		if (!on)
			sigaction(outfile_sigs[i], &outfile_old[i], NULL);
		else if (sigaction(outfile_sigs[i], &sa, &outfile_old[i]) ==
		    0 && outfile_old[i].sa_handler == SIG_IGN)
			/* Ignored when we started (nohup, a background
			 * job): it stays ignored. */
			sigaction(outfile_sigs[i], &outfile_old[i], NULL);
	}
}

int
outfile_same(const char *in, const char *out)
{
	struct stat	a, b;

	return stat(in, &a) == 0 && stat(out, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int
outfile_interrupted(void)
{
	return outfile_sig;
}

int
outfile_create(const char *path, mode_t mode, char *err, size_t errsz)
{
	struct stat	st;
	int		fd, e;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd >= 0)
		return fd;
	e = errno;
	if (e == EEXIST && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		snprintf(err, errsz, "%s is a symbolic link: not followed",
		    path);
	else if (e == EEXIST)
		snprintf(err, errsz, "%s exists", path);
	else
		snprintf(err, errsz, "cannot create %s: %s", path,
		    strerror(e));
	errno = e;
	return -1;
}

/* May path be replaced: absent, or a regular file of the caller's? */
static int
outfile_check(const char *path, char *err, size_t errsz)
{
	struct stat	st;

	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		snprintf(err, errsz, "%s is a symbolic link: not followed",
		    path);
	else if (S_ISDIR(st.st_mode))
		snprintf(err, errsz, "%s is a directory", path);
	else if (!S_ISREG(st.st_mode))
		snprintf(err, errsz, "%s is not a regular file (give - for "
		    "standard output)", path);
	else if (st.st_uid != geteuid())
		snprintf(err, errsz, "%s belongs to another user: not "
		    "replaced", path);
	else
		return 0;
	return -1;
}

/* A name for the temporary file: ".NAME.XXXXXXXX" in the target's
 * directory. */
static char *
outfile_tmpname(const char *path)
{
	const char	*slash, *base;
	unsigned int	 rnd;
	int		 dirlen;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (unsigned int)getpid() ^ (unsigned int)time(NULL) ^
		    (unsigned int)rand();
	slash = strrchr(path, '/');
	base = slash != NULL ? slash + 1 : path;
	dirlen = slash != NULL ? (int)(slash - path) + 1 : 0;
	return xasprintf("%.*s.%.*s.%08x", dirlen, path, OUTFILE_BASE_MAX,
	    base, rnd);
}

int
outfile_begin(struct outfile *of, const char *path, mode_t mode, char *err,
    size_t errsz)
{
	char	*tmp = NULL;
	int	 fd = -1, k;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	if (path[0] == '\0' || path[strlen(path) - 1] == '/') {
		snprintf(err, errsz, "%s: not a file name", path);
		return -1;
	}
	if (outfile_check(path, err, errsz) != 0)
		return -1;
	/* Caught before the file exists: a signal between its creation and
	 * the handler would leave it behind. */
	outfile_catch(1);
	for (k = 0; k < OUTFILE_TRIES; k++) {
		tmp = outfile_tmpname(path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, mode);
		if (fd >= 0)
			break;
		free(tmp);
		if (errno != EEXIST)
			break;
	}
	if (fd < 0) {
		snprintf(err, errsz, "cannot create %s: %s", path,
		    strerror(errno));
		outfile_catch(0);
		return -1;
	}
	of->path = xstrdup(path);
	of->tmp = tmp;
	of->fd = fd;
	return 0;
}

static void
outfile_free(struct outfile *of)
{
	free(of->path);
	free(of->tmp);
	of->path = of->tmp = NULL;
	outfile_catch(0);
}

int
outfile_commit(struct outfile *of, char *err, size_t errsz)
{
	int	rc = 0;

	/* The target may have become something else meanwhile. */
	if (outfile_check(of->path, err, errsz) != 0)
		rc = -1;
	else if (rename(of->tmp, of->path) != 0) {
		snprintf(err, errsz, "cannot replace %s: %s", of->path,
		    strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		unlink(of->tmp);
	outfile_free(of);
	return rc;
}

void
outfile_abort(struct outfile *of)
{
	if (of->tmp != NULL)
		unlink(of->tmp);
	outfile_free(of);
}

int
outfile_end(struct outfile *of, int rc, const char *what)
{
	char	err[512];
	int	sig;

	if ((sig = outfile_interrupted()) != 0) {
		outfile_abort(of);
		return 128 + sig;
	}
	if (rc != 0) {
		outfile_abort(of);
		return rc;
	}
	if (outfile_commit(of, err, sizeof(err)) != 0) {
		log_error("%s: %s", what, err);
		return 1;
	}
	return 0;
}
