/* SPDX-License-Identifier: ISC */
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
#include "ladder.h"

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

	CHECK_INT(parse(&c, "colour = 2\ntransport = libssh2\nhidden = x\n",
	    err, sizeof(err)), 0);
	CHECK_STR(c.transport, "libssh2");
	CHECK_INT(nwarn, 2);
	CHECK_STR(warned, "f.conf:3: unknown setting 'hidden' ignored");
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
	CHECK_STR(p, "/x/conf/jobtop/jobtoprc");
	free(p);
	p = config_legacy_path();
	CHECK_STR(p, "/x/conf/jobtop/jobtop.conf");
	free(p);
	setenv("XDG_CONFIG_HOME", "relative", 1);
	p = config_default_path();
	CHECK_STR(p, "/home/u/.config/jobtop/jobtoprc");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	p = config_default_path();
	CHECK_STR(p, "/home/u/.config/jobtop/jobtoprc");
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

/* Every new key: good values, and a bad one with its FILE:LINE. */
static void
test_habits(void)
{
	static const struct {
		const char	*text;
		const char	*err;
	} bad[] = {
		{ "fold = sometimes\n",
		  "f.conf:1: fold 'sometimes': give auto, always or never" },
		{ "interval = 0x10\n",
		  "f.conf:1: interval '0x10': give seconds from 0.05 to 86400" },
		{ "interval = 0.01\n",
		  "f.conf:1: interval '0.01': give seconds from 0.05 to 86400" },
		{ "interval = 1e3\n",
		  "f.conf:1: interval '1e3': give seconds from 0.05 to 86400" },
		{ "interval = -1\n",
		  "f.conf:1: interval '-1': give seconds from 0.05 to 86400" },
		{ "sort = cpu sideways\n", "f.conf:1: sort 'cpu sideways': "
		  "give a column and 'ascending' or 'descending'" },
		{ "sort = CPU\n",
		  "f.conf:1: sort column 'CPU': 'C' is not allowed" },
		{ "node_columns = node,,cpu\n",
		  "f.conf:1: an empty column key between commas" },
		{ "rank_columns = name,cpu,\n",
		  "f.conf:1: an empty column key at the end" },
		{ "theme = my theme\n",
		  "f.conf:1: a theme is a name or a path without blanks" },
		{ "\nfold = auto\nfold = never\n", "f.conf:3: fold given twice" },
		{ "alloc_after = 0\n", "f.conf:1: alloc_after '0': give whole "
		  "seconds from 1 to 604800" },
		{ "alloc_after = 604801\n", "f.conf:1: alloc_after '604801': "
		  "give whole seconds from 1 to 604800" },
		{ "alloc_after = 1.5\n", "f.conf:1: alloc_after '1.5': give "
		  "whole seconds from 1 to 604800" },
		{ "alloc_after = -3\n", "f.conf:1: alloc_after '-3': give "
		  "whole seconds from 1 to 604800" },
		{ "alloc_after = 99999999999999999999\n", "f.conf:1: alloc_after "
		  "'99999999999999999999': give whole seconds from 1 to 604800" },
	};
	struct config	c;
	char		err[512];
	size_t		i;

	CHECK_INT(parse(&c, "theme = dark\nsort = cpu%  descending\n"
	    "rank_sort = rss ascending\nnode_columns = name, state ,cpu%\n"
	    "rank_columns = -wchan,+user\nfold = never\ninterval = 2.5\n", err,
	    sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_STR(c.theme, "dark");
	CHECK_INT(c.theme_line, 1);
	CHECK_STR(c.sort.column, "cpu%");
	CHECK_INT(c.sort.desc, 1);
	CHECK_INT(c.sort.line, 2);
	CHECK_STR(c.rank_sort.column, "rss");
	CHECK_INT(c.rank_sort.desc, 0);
	CHECK_STR(c.node_columns, "name,state,cpu%");
	CHECK_INT(c.node_columns_line, 4);
	CHECK_STR(c.rank_columns, "-wchan,+user");
	CHECK_INT(c.fold, CONFIG_FOLD_NEVER);
	CHECK(c.interval == 2.5);
	config_free(&c);

	CHECK_INT(parse(&c, "sort = node\ninterval = 300\nalloc_after = 20\n",
	    err, sizeof(err)), 0);
	CHECK_INT(c.sort.desc, -1);
	CHECK(c.interval == 300);
	CHECK_INT(c.alloc_after, 20);
	CHECK_INT(c.fold, CONFIG_FOLD_UNSET);
	config_free(&c);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(parse(&c, bad[i].text, err, sizeof(err)), -1);
		CHECK_STR(err, bad[i].err);
		config_free(&c);
	}
}

/* Rendering keeps every other line and reads back to the same values. */
static void
test_render(void)
{
	static const char old[] = "# my settings\r\n\ncolour = red  # later\n"
	    "theme = light\n  fold=auto # inline\nbroken line\ntheme = x\n";
	struct config	c, back;
	char		err[512], *t;

	config_init(&c);
	c.theme = strdup("dark");
	c.interval = 0.25;
	c.sort.column = strdup("mem%");
	c.sort.desc = 1;
	c.fold = CONFIG_FOLD_NEVER;
	t = config_render(&c, old, sizeof(old) - 1);
	CHECK_STR(t, "# my settings\r\n\ncolour = red  # later\n"
	    "theme = dark\nfold = never\nbroken line\n"
	    "sort = mem% descending\ninterval = 0.25\n");
	free(t);

	/* From nothing, and back through the parser. */
	c.node_columns = strdup("name,cpu%");
	c.transport = strdup("auto");
	c.interval = 1.0 / 3;
	c.alloc_after = 604800;
	t = config_render(&c, NULL, 0);
	config_init(&back);
	CHECK_INT(config_parse(&back, "r", t, strlen(t), NULL, NULL, err,
	    sizeof(err)), 0);
	CHECK_STR(back.theme, "dark");
	CHECK_STR(back.node_columns, "name,cpu%");
	CHECK_STR(back.sort.column, "mem%");
	CHECK_INT(back.sort.desc, 1);
	CHECK_INT(back.fold, CONFIG_FOLD_NEVER);
	CHECK(back.interval == c.interval);
	CHECK_INT(back.alloc_after, 604800);
	CHECK_STR(back.transport, "auto");
	free(t);
	config_free(&back);
	config_free(&c);
}

/* Saving: the directory made, comments kept, the old jobtop.conf's
 * lines carried into jobtoprc, no temporary file left behind. */
static void
test_save(void)
{
	struct config	c;
	char		dir[] = "/tmp/jobtop-test-save.XXXXXX", rc[400];
	char		conf[300], legacy[400], err[1024], buf[512];
	FILE		*f;
	size_t		 n;

	if (mkdtemp(dir) == NULL) {
		CHECK(!"mkdtemp");
		return;
	}
	setenv("XDG_CONFIG_HOME", dir, 1);
	snprintf(conf, sizeof(conf), "%.200s/jobtop", dir);
	snprintf(rc, sizeof(rc), "%s/jobtoprc", conf);
	snprintf(legacy, sizeof(legacy), "%s/jobtop.conf", conf);

	/* Nothing yet: the directory is made. */
	config_init(&c);
	CHECK_INT(config_load(&c, NULL, NULL, NULL, err, sizeof(err)), 0);
	CHECK(c.path == NULL);
	c.fold = CONFIG_FOLD_ALWAYS;
	CHECK_INT(config_save(&c, NULL, err, sizeof(err)), 0);
	config_free(&c);
	f = fopen(rc, "r");
	CHECK(f != NULL);
	if (f != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		CHECK_STR(buf, "fold = always\n");
	}
	unlink(rc);

	/* Only jobtop.conf: read, and carried into jobtoprc. */
	f = fopen(legacy, "w");
	fputs("# old\ntransport = auto\n", f);
	fclose(f);
	config_init(&c);
	CHECK_INT(config_load(&c, NULL, NULL, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.path, legacy);
	CHECK_STR(c.transport, "auto");
	c.theme = strdup("mono");
	CHECK_INT(config_save(&c, NULL, err, sizeof(err)), 0);
	config_free(&c);
	config_init(&c);
	CHECK_INT(config_load(&c, NULL, NULL, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.path, rc);
	CHECK_STR(c.theme, "mono");
	CHECK_STR(c.transport, "auto");
	config_free(&c);
	f = fopen(rc, "r");
	if (f != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		CHECK_STR(buf, "# old\ntransport = auto\ntheme = mono\n");
	}

	/* A link (dotfiles): stays a link, its target gets the text. */
	{
		char	target[420];
		struct stat st;

		snprintf(target, sizeof(target), "%s/real-rc", conf);
		CHECK_INT(rename(rc, target), 0);
		CHECK_INT(symlink(target, rc), 0);
		config_init(&c);
		c.fold = CONFIG_FOLD_NEVER;
		CHECK_INT(config_save(&c, NULL, err, sizeof(err)), 0);
		config_free(&c);
		CHECK(lstat(rc, &st) == 0 && S_ISLNK(st.st_mode));
		config_init(&c);
		CHECK_INT(config_load(&c, NULL, NULL, NULL, err, sizeof(err)),
		    0);
		CHECK_INT(c.fold, CONFIG_FOLD_NEVER);
		CHECK_STR(c.theme, "mono");
		config_free(&c);
		unlink(rc);
		CHECK_INT(rename(target, rc), 0);
	}

	/* An unwritable directory: one line, the old file kept. */
	if (geteuid() != 0) {
		chmod(conf, 0500);
		config_init(&c);
		c.theme = strdup("dark");
		CHECK_INT(config_save(&c, NULL, err, sizeof(err)), -1);
		CHECK(strstr(err, "cannot write the settings") != NULL);
		config_free(&c);
		chmod(conf, 0700);
	}
	unlink(rc);
	unlink(legacy);
	rmdir(conf);
	CHECK_INT(rmdir(dir), 0);
	unsetenv("XDG_CONFIG_HOME");
}

int
main(void)
{
	/* As src/main.c does: the transports are remote/'s. */
	feed_register_transports(feed_transports);
	RUN(test_good);
	RUN(test_bad);
	RUN(test_unknown);
	RUN(test_paths);
	RUN(test_load);
	RUN(test_habits);
	RUN(test_render);
	RUN(test_save);
	return harness_done();
}
