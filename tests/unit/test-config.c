/*
 * test-config: the settings file (src/config.c).  Good files (comments,
 * blanks, CRLF, '#' inside a value), every kind of bad line with its
 * FILE:LINE message, unknown keys as warnings, a key given twice, the
 * default path from XDG_CONFIG_HOME and HOME, and loading real files
 * (missing, a directory, too large, unreadable, a good one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "feed.h"
#include "harness.h"

static char	warned[2048];
static int	nwarn;

static void
warn_collect(void *arg, const char *line)
{
	nwarn++;
	snprintf(warned, sizeof(warned), "%s", line);
}

/* Parse TEXT into a fresh config; return the parse result. */
static int
parse(struct config *c, const char *text, char *err, size_t errlen)
{
	config_init(c);
	nwarn = 0;
	warned[0] = err[0] = '\0';
	return config_parse(c, "f.conf", text, strlen(text), warn_collect,
	    NULL, err, errlen);
}

static void
test_good(void)
{
	struct config	c;
	char		err[512];

	CHECK_INT(parse(&c, "", err, sizeof(err)), 0);
	CHECK(c.transport == NULL);
	config_free(&c);

	CHECK_INT(parse(&c, "# settings\n\n  transport=libssh2\n", err,
	    sizeof(err)), 0);
	CHECK_STR(c.transport, "libssh2");
	config_free(&c);

	CHECK_INT(parse(&c, "\ttransport \t=  auto   # the ladder\r\n",
	    err, sizeof(err)), 0);
	CHECK_STR(c.transport, "auto");
	config_free(&c);

	/* No newline at the end of the file. */
	CHECK_INT(parse(&c, "transport = libssh2", err, sizeof(err)), 0);
	CHECK_STR(c.transport, "libssh2");
	config_free(&c);

	CHECK_INT(parse(&c, "transport = auto\n#transport = bad\n", err,
	    sizeof(err)), 0);
	CHECK_STR(c.transport, "auto");
	CHECK_INT(nwarn, 0);
	config_free(&c);
}

static void
test_bad(void)
{
	static const struct {
		const char	*text;
		const char	*err;
	} cases[] = {
		{ "transport = rsh\n",
		  "f.conf:1: unknown transport 'rsh': give " },
		{ "\n\ntransport\n", "f.conf:3: expected 'key = value'" },
		{ "= ssh\n", "f.conf:1: no key before '='" },
		{ "transport =\n", "f.conf:1: no value after '='" },
		{ "transport = # none\n", "f.conf:1: no value after '='" },
		{ "Transport = ssh\n", "f.conf:1: a key is lowercase letters, "
		  "digits, '_' and '-'" },
		{ "transport = auto\ntransport = libssh2\n",
		  "f.conf:2: transport given twice" },
		{ "transport = s\033sh\n",
		  "f.conf:1: control character 0x1b in the line" },
		{ "transport = SSH\n", "f.conf:1: unknown transport 'SSH': "
		  "give " },
		{ "transport = ssh#x\n", "f.conf:1: unknown transport "
		  "'ssh#x': give " },
	};
	struct config	c;
	char		err[512];
	size_t		i;

	char		want[512];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(parse(&c, cases[i].text, err, sizeof(err)), -1);
		/* The transports are this build's (feed_transports[]). */
		snprintf(want, sizeof(want), "%s%s", cases[i].err,
		    strstr(cases[i].err, ": give ") != NULL ?
		    feed_transport_names() : "");
		CHECK_STR(err, want);
		config_free(&c);
	}

	/* A NUL byte, and a line over the limit. */
	{
		static const char	nul[] = "transport = auto\nx\0y = 1\n";
		char			*big;

		config_init(&c);
		CHECK_INT(config_parse(&c, "f.conf", nul, sizeof(nul) - 1,
		    NULL, NULL, err, sizeof(err)), -1);
		CHECK_STR(err, "f.conf:2: NUL byte in the line");
		config_free(&c);

		big = malloc(CONFIG_LINE_MAX + 20);
		memset(big, 'a', CONFIG_LINE_MAX + 19);
		big[CONFIG_LINE_MAX + 19] = '\0';
		CHECK_INT(parse(&c, big, err, sizeof(err)), -1);
		CHECK_STR(err, "f.conf:1: line longer than 4096 bytes");
		config_free(&c);
		free(big);
	}
}

static void
test_unknown(void)
{
	struct config	c;
	char		err[512];

	CHECK_INT(parse(&c, "interval = 2\ntransport = libssh2\ntheme = dark\n",
	    err, sizeof(err)), 0);
	CHECK_STR(c.transport, "libssh2");
	CHECK_INT(nwarn, 2);
	CHECK_STR(warned, "f.conf:3: unknown setting 'theme' ignored");
	config_free(&c);

	/* Without a warning function unknown keys are still ignored. */
	config_init(&c);
	CHECK_INT(config_parse(&c, "f.conf", "x-y = 1\n", 8, NULL, NULL, err,
	    sizeof(err)), 0);
	config_free(&c);
}

static void
test_paths(void)
{
	char	*p;

	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	setenv("HOME", "/home/u", 1);
	p = config_default_path();
	CHECK_STR(p, "/x/conf/jobtop/jobtop.conf");
	free(p);
	setenv("XDG_CONFIG_HOME", "relative", 1);
	p = config_default_path();
	CHECK_STR(p, "/home/u/.config/jobtop/jobtop.conf");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	p = config_default_path();
	CHECK_STR(p, "/home/u/.config/jobtop/jobtop.conf");
	free(p);
	unsetenv("HOME");
	CHECK(config_default_path() == NULL);
}

static void
test_load(void)
{
	struct config	c;
	char		dir[] = "/tmp/jobtop-test-config.XXXXXX", path[256];
	char		err[1024], *big;
	FILE		*f;
	int		 fd;

	if (mkdtemp(dir) == NULL) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/jobtop.conf", dir);

	config_init(&c);
	CHECK_INT(config_load(&c, path, NULL, NULL, err, sizeof(err)), 0);
	CHECK(c.transport == NULL && c.path == NULL);

	f = fopen(path, "w");
	fputs("transport = libssh2\n", f);
	fclose(f);
	CHECK_INT(config_load(&c, path, NULL, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.transport, "libssh2");
	CHECK_STR(c.path, path);
	config_free(&c);

	/* The default path follows XDG_CONFIG_HOME. */
	{
		char	sub[300], p2[320];

		snprintf(sub, sizeof(sub), "%s/x", dir);
		mkdir(sub, 0700);
		snprintf(p2, sizeof(p2), "%s/jobtop", sub);
		mkdir(p2, 0700);
		snprintf(p2, sizeof(p2), "%s/jobtop/jobtop.conf", sub);
		f = fopen(p2, "w");
		fputs("transport = auto\n", f);
		fclose(f);
		setenv("XDG_CONFIG_HOME", sub, 1);
		config_init(&c);
		CHECK_INT(config_load(&c, NULL, NULL, NULL, err, sizeof(err)),
		    0);
		CHECK_STR(c.transport, "auto");
		config_free(&c);
		unlink(p2);
		snprintf(p2, sizeof(p2), "%s/jobtop", sub);
		rmdir(p2);
		rmdir(sub);
	}

	f = fopen(path, "w");
	fputs("# ok\ntransport = auto\nbroken line\n", f);
	fclose(f);
	config_init(&c);
	CHECK_INT(config_load(&c, path, NULL, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "jobtop.conf:3: expected 'key = value'") != NULL);
	config_free(&c);

	/* Too large. */
	fd = open(path, O_WRONLY | O_TRUNC);
	big = calloc(1, CONFIG_FILE_MAX + 1);
	memset(big, '#', CONFIG_FILE_MAX + 1);
	CHECK_INT(write(fd, big, CONFIG_FILE_MAX + 1), CONFIG_FILE_MAX + 1);
	close(fd);
	free(big);
	config_init(&c);
	CHECK_INT(config_load(&c, path, NULL, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "are larger than") != NULL);
	config_free(&c);
	unlink(path);

	/* A directory. */
	mkdir(path, 0700);
	config_init(&c);
	CHECK_INT(config_load(&c, path, NULL, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "not a regular file") != NULL);
	config_free(&c);
	rmdir(path);

	/* Unreadable (root reads everything: only checked as a user). */
	if (geteuid() != 0) {
		f = fopen(path, "w");
		fclose(f);
		chmod(path, 0);
		config_init(&c);
		CHECK_INT(config_load(&c, path, NULL, NULL, err, sizeof(err)),
		    -1);
		CHECK(strstr(err, "Permission denied") != NULL);
		config_free(&c);
		unlink(path);
	}
	rmdir(dir);
}

int
main(void)
{
	RUN(test_good);
	RUN(test_bad);
	RUN(test_unknown);
	RUN(test_paths);
	RUN(test_load);
	return harness_done();
}
