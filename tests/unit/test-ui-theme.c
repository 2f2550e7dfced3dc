/* SPDX-License-Identifier: ISC */
/*
 * test-ui-theme: the theme parser (values, inheritance, every error with
 * its file and line), the shipped theme files against the compiled-in
 * default, colour fitting to 8/16/256-colour terminals, the PCRE2 filter
 * and the pure widgets (sparklines, numbers, column layout).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "harness.h"
#include "theme.h"
#include "ui-priv.h"

static void
test_parse(void)
{
	struct theme	*t;
	char		 err[256];

	t = theme_parse("# comment\n"
	    "default = white on black\n"
	    "flag.stalled = red,bold   # a comment\n"
	    "header.fg = #ff0000\n"
	    "header.attr = underline,reverse\n"
	    "status = on blue\n"
	    "spark = colour208\n"
	    "label = bright-green,dim\n", "t", "t.theme", err, sizeof(err));
	if (t == NULL)
		fprintf(stderr, "%s\n", err);
	CHECK(t != NULL);
	if (t == NULL)
		return;
	CHECK_INT(t->style[TR_DEFAULT].fg, 7);
	CHECK_INT(t->style[TR_DEFAULT].bg, 0);
	CHECK_INT(t->style[TR_FLAG_STALLED].fg, 1);
	CHECK_INT(t->style[TR_FLAG_STALLED].bg, 0);	/* inherited */
	CHECK_INT(t->style[TR_FLAG_STALLED].attr, THEME_BOLD);
	CHECK_INT(t->style[TR_HEADER].fg, THEME_RGB | 0xff0000);
	CHECK_INT(t->style[TR_HEADER].attr, THEME_UNDERLINE | THEME_REVERSE);
	CHECK_INT(t->style[TR_STATUS].fg, 7);
	CHECK_INT(t->style[TR_STATUS].bg, 4);
	CHECK_INT(t->style[TR_SPARK].fg, 208);
	CHECK_INT(t->style[TR_LABEL].fg, 10);
	CHECK_INT(t->style[TR_LABEL].attr, THEME_DIM);
	CHECK_INT(t->style[TR_TITLE].fg, 7);
	theme_free(t);
}

/* Every error names the origin and the line. */
static void
test_errors(void)
{
	static const struct {
		const char	*text, *err;
	} cases[] = {
		{ "a = b\n",
		    "x.theme:1: unknown role \"a\"" },
		{ "\n\nheader = pinkish\n",
		    "x.theme:3: unknown colour \"pinkish\"" },
		{ "header\n", "x.theme:1: expected \"role = value\"" },
		{ "header =\n", "x.theme:1: no value for \"header\"" },
		{ "header.attr = red\n",
		    "x.theme:1: unknown attribute \"red\"" },
		{ "header = white on mauve\n",
		    "x.theme:1: unknown colour \"mauve\"" },
		{ "header = colour256\n",
		    "x.theme:1: unknown colour \"colour256\"" },
		{ "header = red, ,bold\n", "x.theme:1: empty value" },
		{ "header.zz = red\n", "x.theme:1: unknown role \"header.zz\"" },
	};
	struct theme	*t;
	char		 err[256];
	size_t		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		t = theme_parse(cases[i].text, "x", "x.theme", err,
		    sizeof(err));
		CHECK(t == NULL);
		CHECK_STR(err, cases[i].err);
		theme_free(t);
	}
	t = theme_load("no-such-theme", err, sizeof(err));
	CHECK(t == NULL);
	CHECK(strncmp(err, "unknown theme \"no-such-theme\"", 29) == 0);
	t = theme_load("../etc/passwd", err, sizeof(err));
	CHECK(t == NULL);
	t = theme_load("bad name", err, sizeof(err));
	CHECK(t == NULL);
	CHECK(strstr(err, "bad theme name") != NULL);
	t = theme_load("/nonexistent/x.theme", err, sizeof(err));
	CHECK(t == NULL);
	CHECK_STR(err, "/nonexistent/x.theme: No such file or directory");
}

/* themes/default.theme is the compiled-in theme; the others load. */
static void
test_files(void)
{
	static const char	*names[] = { "default", "dark", "light", "mono" };
	struct theme		*a, *b;
	char			 path[1024], err[256];
	const char		*top = getenv("TOP");
	size_t			 i;
	int			 r;

	if (top == NULL)
		top = ".";
	a = theme_parse(theme_default_text(), "default", "built-in", err,
	    sizeof(err));
	CHECK(a != NULL);
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/themes/%s.theme", top,
		    names[i]);
		b = theme_load(path, err, sizeof(err));
		if (b == NULL)
			fprintf(stderr, "%s\n", err);
		CHECK(b != NULL);
		if (b == NULL)
			continue;
		CHECK_STR(b->name, names[i]);
		for (r = 0; r < TR_NROLES; r++)
			CHECK(b->style[r].attr_set || r == TR_DEFAULT);
		if (i == 0 && a != NULL)
			CHECK(memcmp(a->style, b->style, sizeof(a->style)) == 0);
		if (i == 3)
			for (r = 0; r < TR_NROLES; r++)
				CHECK(b->style[r].fg == THEME_COLOR_DEFAULT &&
				    b->style[r].bg == THEME_COLOR_DEFAULT);
		theme_free(b);
	}
	theme_free(a);
	for (r = 0; r < TR_NROLES; r++)
		CHECK_INT(theme_role_by_name(theme_role_name(r),
		    strlen(theme_role_name(r))), r);
}

static void
test_fit(void)
{
	CHECK_INT(theme_fit_color(-1, 256), -1);
	CHECK_INT(theme_fit_color(3, 8), 3);
	CHECK_INT(theme_fit_color(9, 8), 1);		/* bright red: red */
	CHECK_INT(theme_fit_color(9, 16), 9);
	CHECK_INT(theme_fit_color(196, 256), 196);
	CHECK_INT(theme_fit_color(196, 8), 1);		/* pure red */
	CHECK_INT(theme_fit_color(21, 8), 4);		/* pure blue */
	CHECK_INT(theme_fit_color(THEME_RGB | 0xff0000, 256), 196);
	CHECK_INT(theme_fit_color(THEME_RGB | 0x000000, 256), 16);
	CHECK_INT(theme_fit_color(THEME_RGB | 0xffffff, 256), 231);
	CHECK_INT(theme_fit_color(THEME_RGB | 0x00cd00, 8), 2);
	CHECK_INT(theme_fit_color(THEME_RGB | 0xe5e5e5, 8), 7);
	CHECK_INT(theme_fit_color(5, 0), -1);
}

static void
test_filter(void)
{
	struct filter	*f;
	char		 err[256];

	f = filter_new("node[0-9]+$", err, sizeof(err));
	CHECK(f != NULL);
	CHECK(filter_match(f, "node12"));
	CHECK(filter_match(f, "NODE12"));	/* lower case: caseless */
	CHECK(!filter_match(f, "node12a"));
	CHECK(!filter_match(f, NULL));
	CHECK_STR(filter_pattern(f), "node[0-9]+$");
	filter_free(f);
	f = filter_new("Node", err, sizeof(err));
	CHECK(f != NULL && !filter_match(f, "node1"));
	CHECK(f != NULL && filter_match(f, "Node1"));
	CHECK(f != NULL && filter_match(f, "\xff\xfe" "Node"));
	filter_free(f);
	CHECK(filter_match(NULL, "anything"));
	f = filter_new("a(b", err, sizeof(err));
	CHECK(f == NULL);
	CHECK_STR(err, "bad pattern at offset 3: missing closing parenthesis");
	f = filter_new("*x", err, sizeof(err));
	CHECK(f == NULL);
	CHECK(strncmp(err, "bad pattern at offset 0: quantifier", 35) == 0);
}

static void
test_widgets(void)
{
	static const struct widget_col	c[4] = {
		{ "A", 4, 0, 0, 0 },
		{ "B", 6, 0, 1, 2 },
		{ "C", 5, 0, 0, 1 },
		{ "D", 3, 20, 0, 0 },
	};
	float	v[6] = { 0, 12.5, NAN, 50, 99, 150 };
	char	buf[64];
	int	x[4], w[4];

	widget_spark(v, 6, 0, 100, 0, buf, sizeof(buf));
	CHECK_STR(buf, "_. ~##");
	widget_spark(v, 2, 0, 100, 1, buf, sizeof(buf));
	CHECK_STR(buf, "\xe2\x96\x81\xe2\x96\x82");
	widget_spark(v, 6, 0, 0, 0, buf, 4);	/* auto scale, cut */
	CHECK_STR(buf, "__ ");
	CHECK_STR(widget_bytes(buf, sizeof(buf), 512), "512");
	CHECK_STR(widget_bytes(buf, sizeof(buf), 1536), "1.5K");
	CHECK_STR(widget_bytes(buf, sizeof(buf), 12.0 * (1 << 30)), "12G");
	CHECK_STR(widget_bytes(buf, sizeof(buf), NAN), "-");
	CHECK_STR(widget_num(buf, sizeof(buf), 3.14159, 1), "3.1");
	CHECK_STR(widget_duration(buf, sizeof(buf), 61), "01:01");
	CHECK_STR(widget_duration(buf, sizeof(buf), 3723), "1:02:03");
	CHECK_STR(widget_duration(buf, sizeof(buf), 90061), "1-01:01:01");

	widget_cols(c, 4, 40, x, w);
	CHECK_INT(w[0], 4);
	CHECK_INT(w[1], 6);
	CHECK_INT(w[2], 5);
	CHECK_INT(w[3], 20);
	CHECK_INT(x[3], 18);
	widget_cols(c, 4, 12, x, w);	/* B then C give way */
	CHECK_INT(w[1], 0);
	CHECK_INT(w[2], 0);
	CHECK_INT(w[0], 4);
	CHECK_INT(w[3], 7);
	CHECK_INT(x[3], 5);
}

int
main(void)
{
	RUN(test_parse);
	RUN(test_errors);
	RUN(test_files);
	RUN(test_fit);
	RUN(test_filter);
	RUN(test_widgets);
	return harness_done();
}
