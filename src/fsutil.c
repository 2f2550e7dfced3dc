/*
 * fsutil: small file-system helpers (fsutil.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

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
