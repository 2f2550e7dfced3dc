/*
 * fsutil: small file-system helpers (fsutil.h).
 */
#include <errno.h>
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
