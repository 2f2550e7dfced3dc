/* SPDX-License-Identifier: ISC */
/*
 * outfile: creating the files jobtop writes for its user (recordings,
 * exports, reports) so that no data is lost and no link is followed.
 *
 * A new file is created with O_CREAT|O_EXCL|O_NOFOLLOW: an existing name,
 * a symbolic link planted there included, is never opened.  A file that
 * replaces another (export, report, a recording with --force) is written
 * to a temporary file beside the target, created the same way, and
 * renamed over it only when complete; the target must be absent or a
 * regular file of the caller's (not a link, a FIFO or a device).  A
 * failure removes the temporary file and leaves the target as it was.
 *
 * The functions return 0 or -1 with one phrase in err ("cannot create
 * PATH: No such file or directory", "PATH is a symbolic link: not
 * followed"); they never log or exit.
 */
#ifndef JOBTOP_OUTFILE_H
#define JOBTOP_OUTFILE_H

#include <stddef.h>
#include <sys/types.h>

/* A file being written under a temporary name. */
struct outfile {
	char	*path;		/* the target */
	char	*tmp;		/* the temporary file beside it */
	int	 fd;
};

/* Create path, which must not exist, with mode (umask applies): the fd,
 * or -1 (errno set; EEXIST also for a link there). */
int	 outfile_create(const char *, mode_t, char *, size_t);
/*
 * Check that path may be replaced (absent, or a regular file owned by the
 * caller) and create a temporary file beside it with mode (umask
 * applies).  While one is open, SIGINT, SIGTERM and SIGHUP only set a
 * flag (outfile_interrupted) so the caller can stop and remove it.
 */
int	 outfile_begin(struct outfile *, const char *, mode_t, char *,
	    size_t);
/* Rename the temporary file over the target.  The fd is the caller's
 * to close, before or after.  On failure the temporary file is removed.
 * Either way the struct is freed. */
int	 outfile_commit(struct outfile *, char *, size_t);
/* Remove the temporary file and free the struct (not the fd). */
void	 outfile_abort(struct outfile *);
/* Would writing out replace the file at in (the same file, or a link to
 * it)?  The input of an export must not become its output. */
int	 outfile_same(const char *, const char *);
/* The signal that arrived while a temporary file was open, or 0. */
int	 outfile_interrupted(void);
/*
 * End a write that returned rc (0: it went well): commit only when it did
 * and no signal came, else remove the temporary file, so the old output
 * stays as it was.  Returns the exit status: 0, rc, 128 + the signal, or 1
 * after "what: why" on stderr when the rename failed.
 */
int	 outfile_end(struct outfile *, int, const char *);

#endif
