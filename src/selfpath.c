/* SPDX-License-Identifier: ISC */
/*
 * selfpath: the running executable's directory from /proc/self/exe, which
 * the kernel gives with every symbolic link resolved: a `jobtop` linked
 * into a Spack view or /usr/local/bin still leads to its real prefix.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selfpath.h"
#include "xmalloc.h"

char *
selfpath_dir(void)
{
	char	self[PATH_MAX], *slash;
	ssize_t	n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || self[0] != '/')
		return NULL;
	self[n] = '\0';
	/* An executable deleted since it started: the name is gone. */
	if (n > 10 && strcmp(self + n - 10, " (deleted)") == 0)
		return NULL;
	slash = strrchr(self, '/');
	*slash = '\0';
	return xstrdup(self);
}

char *
selfpath_prefixed(const char *rel)
{
	char	*dir, *slash, *path;

	if ((dir = selfpath_dir()) == NULL)
		return NULL;
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	path = xasprintf("%s/%s", dir, rel);
	free(dir);
	return path;
}
