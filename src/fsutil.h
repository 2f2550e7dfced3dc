/* SPDX-License-Identifier: ISC */
/*
 * fsutil: small file-system helpers the monitor's modules share.
 */
#ifndef JOBTOP_FSUTIL_H
#define JOBTOP_FSUTIL_H

/* Create every missing directory above path (mkdir -p of its dirname),
 * mode 0700.  0, or -1 with errno. */
int	 fs_mkdir_parents(const char *);
/* A program that is run with the caller's rights (the probe, pushed to
 * every node): the file and every directory from / down to it are owned
 * by the caller or root and not writable by group or others (a sticky
 * directory may be).  0, or -1 with the first problem in err. */
int	 fs_path_safe(const char *, char *, size_t);
/* The path of an executable regular file name as the shell's PATH search
 * finds it (PATH unset or empty: /usr/bin:/bin; empty components skipped),
 * or name itself when it holds a '/', into out: 0, or -1 when there is
 * none (or out is too small). */
int	 fs_which(const char *, char *, size_t);
/* The whole regular file open on fd (left open), NUL-terminated, in an
 * allocated buffer, its length in *len: NULL with errno EISDIR or EINVAL
 * (a directory or no regular file: a FIFO is never read from), EFBIG
 * (more than max bytes, also when it grew past that while read), or
 * read's. */
char	*fs_read_fd(int, size_t, size_t *);

#endif
