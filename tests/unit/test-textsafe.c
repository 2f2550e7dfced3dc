/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the one text filter (src/textsafe.c) and of the exits that
 * use it: the log file and stderr lines (src/log.c), the text output's
 * state line (src/out-text.c), and how the log file is opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feed.h"
#include "harness.h"
#include "log.h"
#include "out.h"
#include "textsafe.h"

/* Terminal attacks: OSC title, clear screen, UTF-8 CSI, SO, bidi. */
#define EVIL	"a\x1b]0;T\x07\x1b[2J\xc2\x9b" "1m\x0e\xe2\x80\xae\t\x7fz"
#define EVIL_CLEAN	"a?]0;T??[2J??1m??????z"

/* Does the file hold any byte a terminal could act on? */
static int
file_has_control(const char *path)
{
	FILE	*f;
	int	 c, bad = 0;

	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while ((c = fgetc(f)) != EOF)
		if ((c < ' ' && c != '\n') || c >= 0x7f)
			bad = 1;
	fclose(f);
	return bad;
}

static char *
file_read(const char *path)
{
	static char	 buf[8192];
	FILE		*f;
	size_t		 n;

	buf[0] = '\0';
	if ((f = fopen(path, "r")) == NULL)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void
test_clean(void)
{
	char	buf[64], small[4], in[64];

	CHECK_STR(text_clean(buf, sizeof(buf), EVIL), EVIL_CLEAN);
	CHECK_STR(text_clean(buf, sizeof(buf), "node-1.x_y:9"),
	    "node-1.x_y:9");
	CHECK_STR(text_clean(small, sizeof(small), "abcdef"), "abc");
	CHECK_STR(text_clean(small, sizeof(small), "\x1b\x1b\x1b\x1b"),
	    "???");
	CHECK_STR(text_clean(buf, 0, "abc"), "");
	CHECK_STR(text_clean(buf, 1, "abc"), "");
	snprintf(in, sizeof(in), "%s", EVIL);
	CHECK(text_clean_inplace(in) == in);
	CHECK_STR(in, EVIL_CLEAN);
	CHECK(text_is_clean(in));
	CHECK(text_is_clean(""));
	CHECK(!text_is_clean(EVIL));
	CHECK(!text_is_clean("caf\xc3\xa9"));
	CHECK(!text_is_clean("tab\there"));
}

/* The log file and the stderr line never carry a control byte. */
static void
test_log_clean(void)
{
	char	 dir[] = "/tmp/jobtop-test-textsafe.XXXXXX", path[256];
	char	 errpath[256];
	int	 fd, saved;

	if (mkdtemp(dir) == NULL) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/sub/jobtop.log", dir);
	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	CHECK_INT(log_open(path), 0);
	log_debug("debug %s", EVIL);
	log_warn("warn %s", EVIL);

	/* log_error's stderr line, into a file. */
	fflush(stderr);
	saved = dup(2);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	log_error("error %s", EVIL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	log_close();

	CHECK_INT(file_has_control(path), 0);
	CHECK_INT(file_has_control(errpath), 0);
	CHECK(strstr(file_read(path), "debug " EVIL_CLEAN "\n") != NULL);
	CHECK(strstr(file_read(path), "warn " EVIL_CLEAN "\n") != NULL);
	CHECK(strstr(file_read(path), "error " EVIL_CLEAN "\n") != NULL);
	CHECK_STR(file_read(errpath), "jobtop: error " EVIL_CLEAN "\n");
	unlink(errpath);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

/* A long message is cut, not overflowed. */
static void
test_log_long(void)
{
	char	 dir[] = "/tmp/jobtop-test-textsafe.XXXXXX", path[256];
	char	*big;
	struct stat st;

	if (mkdtemp(dir) == NULL) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/log", dir);
	big = malloc(100000);
	memset(big, '\x1b', 99999);
	big[99999] = '\0';
	CHECK_INT(log_open(path), 0);
	log_debug("%s", big);
	log_close();
	CHECK_INT(stat(path, &st), 0);
	CHECK(st.st_size > 1000 && st.st_size < 3000);
	CHECK_INT(file_has_control(path), 0);
	free(big);
	unlink(path);
	rmdir(dir);
}

/* The log is private, and a planted link or a FIFO is refused. */
static void
test_log_open(void)
{
	char		 dir[] = "/tmp/jobtop-test-textsafe.XXXXXX";
	char		 path[256], target[256], fifo[256];
	struct stat	 st;
	int		 fd;

	if (mkdtemp(dir) == NULL) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/new.log", dir);
	CHECK_INT(log_open(path), 0);
	log_close();
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);

	/* An existing world-readable log is made private. */
	chmod(path, 0644);
	CHECK_INT(log_open(path), 0);
	log_close();
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);

	/* A symlink to a file the caller may write is not followed. */
	snprintf(target, sizeof(target), "%s/target", dir);
	fd = open(target, O_WRONLY | O_CREAT, 0644);
	close(fd);
	unlink(path);
	CHECK_INT(symlink(target, path), 0);
	errno = 0;
	CHECK_INT(log_open(path), -1);
	CHECK_INT(errno, ELOOP);
	CHECK_INT(stat(target, &st), 0);
	CHECK_INT(st.st_size, 0);
	CHECK(!log_enabled());

	/* A FIFO does not block the monitor. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	errno = 0;
	CHECK_INT(log_open(fifo), -1);
	CHECK(errno == ENXIO || errno == EINVAL);
	CHECK(!log_enabled());

	unlink(fifo);
	unlink(path);
	unlink(target);
	rmdir(dir);
}

/* out-text's state line cleans the node name as well as the state. */
static void
test_out_text_state(void)
{
	char	 buf[512];
	FILE	*f;

	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf), "w");
	out_text.state(f, "\x1b]0;PWN\x07node1", 0, "failed: " EVIL,
	    FEED_FAILED);
	fclose(f);
	CHECK(strstr(buf, " ?]0;PWN?node1: failed: " EVIL_CLEAN "\n") !=
	    NULL);
	CHECK(strchr(buf, '\x1b') == NULL);
}

int
main(void)
{
	RUN(test_clean);
	RUN(test_log_clean);
	RUN(test_log_long);
	RUN(test_log_open);
	RUN(test_out_text_state);
	return harness_done();
}
