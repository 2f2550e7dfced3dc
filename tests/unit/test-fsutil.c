/* SPDX-License-Identifier: ISC */
/*
 * test-fsutil: the one PATH search (fs_which) that the scheduler
 * commands, srun, ssh and the launchers, and the backtrace tools share,
 * the one whole-file read (fs_read_fd: settings, keys, known_hosts, the
 * probe), and the mkdir -p of recordings (fs_mkdir_parents).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "harness.h"

static char	dir[] = "/tmp/jt-fsutil.XXXXXX";

static void
touch(const char *name, mode_t mode)
{
	char	path[512];
	int	fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	chmod(path, mode);
}

static void
test_which(void)
{
	char	path[1024], want[1024], small[8];

	snprintf(path, sizeof(path), "%s/a", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/b", dir);
	mkdir(path, 0755);
	/* a/tool is not executable, and a/dirtool a directory: both are
	 * passed over for b's. */
	touch("a/tool", 0644);
	touch("b/tool", 0755);
	snprintf(path, sizeof(path), "%s/a/dirtool", dir);
	mkdir(path, 0755);
	touch("b/dirtool", 0755);
	snprintf(path, sizeof(path), "::%s/a::%s/b:", dir, dir);
	setenv("PATH", path, 1);

	snprintf(want, sizeof(want), "%s/b/tool", dir);
	CHECK_INT(fs_which("tool", path, sizeof(path)), 0);
	CHECK_STR(path, want);
	snprintf(want, sizeof(want), "%s/b/dirtool", dir);
	CHECK_INT(fs_which("dirtool", path, sizeof(path)), 0);
	CHECK_STR(path, want);
	CHECK_INT(fs_which("nosuchtool", path, sizeof(path)), -1);
	/* Too small for the path: not found rather than cut. */
	CHECK_INT(fs_which("tool", small, sizeof(small)), -1);

	/* A name with a slash is taken as it is. */
	snprintf(want, sizeof(want), "%s/b/tool", dir);
	CHECK_INT(fs_which(want, path, sizeof(path)), 0);
	CHECK_STR(path, want);
	snprintf(want, sizeof(want), "%s/a/tool", dir);
	CHECK_INT(fs_which(want, path, sizeof(path)), -1);

	/* PATH unset or empty: /usr/bin:/bin, as execvp does. */
	setenv("PATH", "", 1);
	CHECK_INT(fs_which("sh", path, sizeof(path)), 0);
	CHECK(strcmp(path, "/usr/bin/sh") == 0 ||
	    strcmp(path, "/bin/sh") == 0);
	unsetenv("PATH");
	CHECK_INT(fs_which("sh", path, sizeof(path)), 0);
}

/* fs_read_fd of dir/name with limit max: the text, or NULL with errno. */
static char *
readit(const char *name, size_t max, size_t *len)
{
	char	 path[512], *t;
	int	 fd, save;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0)
		return NULL;
	t = fs_read_fd(fd, max, len);
	save = errno;
	close(fd);
	errno = save;
	return t;
}

static void
test_read(void)
{
	char	 path[512], big[10000], *t;
	size_t	 len = 0;
	FILE	*f;

	memset(big, 'x', sizeof(big));
	snprintf(path, sizeof(path), "%s/ten", dir);
	f = fopen(path, "w");
	fwrite(big, 1, 10, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/big", dir);
	f = fopen(path, "w");
	fwrite(big, 1, sizeof(big), f);
	fclose(f);
	touch("empty", 0644);

	t = readit("ten", 10, &len);
	CHECK(t != NULL && len == 10 && strcmp(t, "xxxxxxxxxx") == 0);
	free(t);
	errno = 0;
	CHECK(readit("ten", 9, &len) == NULL && errno == EFBIG);
	t = readit("big", sizeof(big), &len);
	CHECK(t != NULL && len == sizeof(big) && t[len] == '\0');
	free(t);
	t = readit("empty", 10, &len);
	CHECK(t != NULL && len == 0 && t[0] == '\0');
	free(t);
	errno = 0;
	CHECK(readit(".", 10, &len) == NULL && errno == EISDIR);
	/* A FIFO with no writer would block a read: never read from. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK_INT(mkfifo(path, 0600), 0);
	errno = 0;
	CHECK(readit("fifo", 10, &len) == NULL && errno == EINVAL);
}

static void
test_mkdir(void)
{
	char		path[1024];
	struct stat	st;

	snprintf(path, sizeof(path), "%s/x/y/z/file.jtr", dir);
	CHECK_INT(fs_mkdir_parents(path), 0);
	snprintf(path, sizeof(path), "%s/x/y/z", dir);
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 0777) == 0700);
	/* Again: they exist already. */
	snprintf(path, sizeof(path), "%s/x/y/z/file.jtr", dir);
	CHECK_INT(fs_mkdir_parents(path), 0);
	/* A file where a directory should be. */
	touch("plain", 0644);
	snprintf(path, sizeof(path), "%s/plain/sub/file.jtr", dir);
	CHECK_INT(fs_mkdir_parents(path), -1);
	CHECK_INT(errno, ENOTDIR);
}

int
main(void)
{
	char	cmd[128];
	int	rc;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_which);
	RUN(test_read);
	RUN(test_mkdir);
	rc = harness_done();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
