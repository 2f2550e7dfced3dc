/* SPDX-License-Identifier: ISC */
/*
 * fsutil: small file-system helpers (fsutil.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "xmalloc.h"

int
fs_mkdir_parents(const char *path)
{
	char	*dir, *p;
	int	 rc = 0, save;

	dir = xstrdup(path);
	for (p = dir + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			rc = -1;
			break;
		}
		*p = '/';
	}
	save = errno;
	free(dir);
	errno = save;
	return rc;
}

/* One step of fs_path_safe: a file, or a directory (dir set). */
static int
fs_path_one(const char *path, int dir, char *err, size_t errlen)
{
	struct stat	st;

	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != getuid()) {
		snprintf(err, errlen, "%s is owned by uid %lu, neither root "
		    "nor you", path, (unsigned long)st.st_uid);
		return -1;
	}
	if ((st.st_mode & 022) != 0 && !(dir && (st.st_mode & S_ISVTX))) {
		snprintf(err, errlen, "%s is writable by group or others "
		    "(mode %04o)", path, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int
fs_path_safe(const char *path, char *err, size_t errlen)
{
	char	*real, *slash;
	int	 rc;

	if ((real = realpath(path, NULL)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = fs_path_one(real, 0, err, errlen);
	while (rc == 0 && (slash = strrchr(real, '/')) != NULL) {
		if (slash == real) {
			rc = fs_path_one("/", 1, err, errlen);
			break;
		}
		*slash = '\0';
		rc = fs_path_one(real, 1, err, errlen);
	}
	free(real);
	return rc;
}

/* One candidate of fs_which: an executable regular file. */
static int
fs_which_one(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0 ? 0 : -1;
}

int
fs_which(const char *name, char *out, size_t size)
{
	const char	*path = getenv("PATH"), *p, *end;
	int		 n;

	if (strchr(name, '/') != NULL) {
		n = snprintf(out, size, "%s", name);
		return n > 0 && (size_t)n < size ? fs_which_one(out) : -1;
	}
	if (path == NULL || *path == '\0')
		path = "/usr/bin:/bin";
	for (p = path; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		if (end == p)
			continue;
		n = snprintf(out, size, "%.*s/%s", (int)(end - p), p, name);
		if (n > 0 && (size_t)n < size && fs_which_one(out) == 0)
			return 0;
	}
	return -1;
}

char *
fs_read_fd(int fd, size_t max, size_t *lenp)
{
	struct stat	 st;
	char		*buf;
	size_t		 len = 0, cap;
	ssize_t		 n;
	int		 save;

	if (fstat(fd, &st) != 0)
		return NULL;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return NULL;
	}
	if ((uint64_t)st.st_size > max) {
		errno = EFBIG;
		return NULL;
	}
	/* The size is a hint: one byte more shows a file that grew. */
	cap = (size_t)st.st_size + 1;
	buf = xmalloc(cap + 1);
	for (;;) {
		if (len == cap) {
			if (len > max)
				break;
			cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
			buf = xreallocarray(buf, cap + 1, 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			save = errno;
			free(buf);
			errno = save;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	buf[len] = '\0';
	*lenp = len;
	return buf;
}
