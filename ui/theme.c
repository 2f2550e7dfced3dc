/* SPDX-License-Identifier: ISC */
/*
 * theme: parse and find theme files.  The default theme is compiled in as
 * text and read by the same parser as the files, so the file
 * themes/default.theme and the built-in one cannot drift apart unnoticed
 * (tests/unit/test-ui-theme.c compares them).  Nothing here touches
 * curses: ui/screen.c turns a theme into colour pairs.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "selfpath.h"
#include "theme.h"
#include "xmalloc.h"

#ifndef JOBTOP_DATADIR
#define JOBTOP_DATADIR "/usr/local/share/jobtop"
#endif

#define THEME_FILE_MAX	65536
#define THEME_XDG_MAX	8	/* XDG_DATA_DIRS entries looked at */
#define THEME_DIRS_MAX	(THEME_XDG_MAX + 8)

static const char *const theme_roles[TR_NROLES] = {
	"default", "title", "header", "header.label", "meter.bar",
	"meter.text", "spark", "table.head", "table.sort", "table.row",
	"table.selected", "table.group", "outlier", "flag.stalled",
	"flag.straggler", "flag.memory", "flag.lost", "state.live",
	"state.connecting", "state.lost", "state.failed", "event.info",
	"event.warn", "event.error", "label", "status", "status.key",
	"status.error", "help.key"
};

static const char *const theme_colors[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"
};

static const struct {
	const char	*name;
	unsigned	 bit;
} theme_attrs[] = {
	{ .name = "bold", .bit = THEME_BOLD },
	{ .name = "dim", .bit = THEME_DIM },
	{ .name = "underline", .bit = THEME_UNDERLINE },
	{ .name = "reverse", .bit = THEME_REVERSE },
	{ .name = "standout", .bit = THEME_STANDOUT },
	{ .name = "italic", .bit = THEME_ITALIC },
	{ .name = "blink", .bit = THEME_BLINK },
	{ .name = "normal" },
};

/* The built-in theme; themes/default.theme holds the same text. */
static const char theme_default[] =
"# jobtop default theme: plain colours that read on dark and light\n"
"# terminals alike.  See jobtop(1), THEMES, for the format.\n"
"default = default\n"
"title = bold\n"
"header = default\n"
"header.label = cyan,bold\n"
"meter.bar = green\n"
"meter.text = default\n"
"spark = cyan\n"
"table.head = black on green\n"
"table.sort = black on cyan,bold\n"
"table.row = default\n"
"table.selected = black on cyan\n"
"table.group = blue,bold\n"
"outlier = yellow,bold\n"
"flag.stalled = red,bold\n"
"flag.straggler = yellow,bold\n"
"flag.memory = magenta,bold\n"
"flag.lost = red,reverse\n"
"state.live = green\n"
"state.connecting = yellow\n"
"state.lost = red,bold\n"
"state.failed = red\n"
"event.info = default\n"
"event.warn = yellow\n"
"event.error = red,bold\n"
"label = cyan\n"
"status = black on cyan\n"
"status.key = white on blue,bold\n"
"status.error = white on red,bold\n"
"help.key = cyan,bold\n";

const char *
theme_default_text(void)
{
	return theme_default;
}

const char *
theme_role_name(enum theme_role r)
{
	return r < TR_NROLES ? theme_roles[r] : "?";
}

int
theme_role_by_name(const char *s, size_t len)
{
	int	i;

	for (i = 0; i < TR_NROLES; i++) {
		if (strlen(theme_roles[i]) == len &&
		    strncmp(theme_roles[i], s, len) == 0)
			return i;
	}
	return -1;
}

/* A colour word: 1 with *c set, 0 when it is no colour. */
static int
theme_color(const char *s, int *c)
{
	const char	*p;
	char		*end;
	long		 v;
	unsigned	 i;

	if (strcmp(s, "default") == 0) {
		*c = THEME_COLOR_DEFAULT;
		return 1;
	}
	if (strcmp(s, "gray") == 0 || strcmp(s, "grey") == 0) {
		*c = 8;
		return 1;
	}
	p = s;
	if (strncmp(p, "bright-", 7) == 0)
		p += 7;
	for (i = 0; i < 8; i++) {
		if (strcmp(p, theme_colors[i]) == 0) {
			*c = (int)i + (p != s ? 8 : 0);
			return 1;
		}
	}
	if (strncmp(s, "color", 5) == 0 || strncmp(s, "colour", 6) == 0) {
		p = s + (strncmp(s, "colour", 6) == 0 ? 6 : 5);
		if (!isdigit((unsigned char)*p))
			return 0;
		v = strtol(p, &end, 10);
		if (*end != '\0' || v < 0 || v > 255)
			return 0;
		*c = (int)v;
		return 1;
	}
	if (s[0] == '#' && strlen(s) == 7) {
		for (i = 1; i < 7; i++)
			if (!isxdigit((unsigned char)s[i]))
				return 0;
		*c = THEME_RGB | (int)strtol(s + 1, NULL, 16);
		return 1;
	}
	return 0;
}

/* An attribute word: 1 with *bit set. */
static int
theme_attr(const char *s, unsigned *bit)
{
	unsigned	i;

	for (i = 0; i < sizeof(theme_attrs) / sizeof(theme_attrs[0]); i++) {
		if (strcmp(s, theme_attrs[i].name) == 0) {
			*bit = theme_attrs[i].bit;
			return 1;
		}
	}
	return 0;
}

/* Trim spaces at both ends in place. */
static char *
theme_trim(char *s)
{
	size_t	len;

	while (isspace((unsigned char)*s))
		s++;
	len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	return s;
}

/* Cut a comment: '#' first on the line, or followed by a space or the
 * end ("#rrggbb" is a colour). */
static void
theme_uncomment(char *s)
{
	char	*p;

	for (p = s; isspace((unsigned char)*p); p++)
		;
	if (*p == '#') {
		*s = '\0';
		return;
	}
	for (; *p != '\0'; p++) {
		if (*p == '#' && (p[1] == '\0' || isspace((unsigned char)p[1]))) {
			*p = '\0';
			return;
		}
	}
}

static void	theme_err(char *, size_t, const char *, unsigned,
		    const char *, ...) __attribute__((format(printf, 5, 6)));

/* "ORIGIN:LINE: what". */
static void
theme_err(char *err, size_t errsz, const char *origin, unsigned line,
    const char *fmt, ...)
{
	char	msg[256];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errsz, "%s:%u: %s", origin, line, msg);
}

/*
 * One value item of a role ("red", "white on blue", "on blue", "bold").
 * which: 0 any, 'f' a colour only, 'b' a colour only (as background),
 * 'a' attributes only.  Returns 0, or -1 after writing the error.
 */
static int
theme_item(struct theme_style *st, char *item, int which, const char *origin,
    unsigned line, char *err, size_t errsz)
{
	char		*on, *fg, *bg;
	unsigned	 bit;
	int		 c;

	item = theme_trim(item);
	if (*item == '\0') {
		theme_err(err, errsz, origin, line, "empty value");
		return -1;
	}
	if (which != 'b' && which != 'f' && theme_attr(item, &bit)) {
		st->attr |= bit;
		st->attr_set = 1;
		return 0;
	}
	if (which == 'a') {
		theme_err(err, errsz, origin, line, "unknown attribute \"%s\"",
		    item);
		return -1;
	}
	fg = item;
	bg = NULL;
	if (strncmp(item, "on ", 3) == 0) {
		fg = NULL;
		bg = theme_trim(item + 3);
	} else if ((on = strstr(item, " on ")) != NULL) {
		*on = '\0';
		fg = theme_trim(item);
		bg = theme_trim(on + 4);
	}
	if (which == 'b' && fg != NULL) {
		bg = fg;
		fg = NULL;
	}
	if (fg != NULL) {
		if (!theme_color(fg, &c)) {
			theme_err(err, errsz, origin, line,
			    "unknown colour \"%s\"", fg);
			return -1;
		}
		st->fg = c;
	}
	if (bg != NULL) {
		if (!theme_color(bg, &c)) {
			theme_err(err, errsz, origin, line,
			    "unknown colour \"%s\"", bg);
			return -1;
		}
		st->bg = c;
	}
	return 0;
}

/* One "KEY = VALUE" line. */
static int
theme_line(struct theme *t, char *s, const char *origin, unsigned line,
    char *err, size_t errsz)
{
	struct theme_style	*st;
	char			*eq, *key, *val, *item, *save = NULL;
	size_t			 klen;
	int			 role, which = 0;

	if ((eq = strchr(s, '=')) == NULL) {
		theme_err(err, errsz, origin, line,
		    "expected \"role = value\"");
		return -1;
	}
	*eq = '\0';
	key = theme_trim(s);
	val = theme_trim(eq + 1);
	klen = strlen(key);
	if ((role = theme_role_by_name(key, klen)) < 0) {
		if (klen > 3 && strcmp(key + klen - 3, ".fg") == 0) {
			which = 'f';
			klen -= 3;
		} else if (klen > 3 && strcmp(key + klen - 3, ".bg") == 0) {
			which = 'b';
			klen -= 3;
		} else if (klen > 5 && strcmp(key + klen - 5, ".attr") == 0) {
			which = 'a';
			klen -= 5;
		}
		if (which == 0 ||
		    (role = theme_role_by_name(key, klen)) < 0) {
			theme_err(err, errsz, origin, line,
			    "unknown role \"%.*s\"", (int)klen, key);
			return -1;
		}
	}
	st = &t->style[role];
	if (which == 0) {
		/* A whole value replaces what an earlier line set. */
		st->fg = st->bg = THEME_COLOR_UNSET;
		st->attr = 0;
		st->attr_set = 1;
	}
	if (*val == '\0') {
		theme_err(err, errsz, origin, line, "no value for \"%s\"",
		    key);
		return -1;
	}
	for (item = strtok_r(val, ",", &save); item != NULL;
	    item = strtok_r(NULL, ",", &save)) {
		if (theme_item(st, item, which, origin, line, err, errsz) != 0)
			return -1;
	}
	return 0;
}

struct theme *
theme_parse(const char *text, const char *name, const char *origin,
    char *err, size_t errsz)
{
	struct theme	*t;
	const char	*p = text, *nl;
	char		*line;
	unsigned	 lineno = 0;
	int		 i;

	t = xcalloc(1, sizeof(*t));
	t->name = xstrdup(name);
	for (i = 0; i < TR_NROLES; i++) {
		t->style[i].fg = t->style[i].bg = THEME_COLOR_UNSET;
		t->style[i].attr = 0;
	}
	while (*p != '\0') {
		lineno++;
		nl = strchr(p, '\n');
		line = nl != NULL ? xstrndup(p, (size_t)(nl - p)) :
		    xstrdup(p);
		p = nl != NULL ? nl + 1 : p + strlen(p);
		theme_uncomment(line);
		if (*theme_trim(line) != '\0' &&
		    theme_line(t, line, origin, lineno, err, errsz) != 0) {
			free(line);
			theme_free(t);
			return NULL;
		}
		free(line);
	}
	/* Unset colours take the default role's, then the terminal's. */
	for (i = 0; i < TR_NROLES; i++) {
		if (t->style[i].fg == THEME_COLOR_UNSET)
			t->style[i].fg = i == TR_DEFAULT ? THEME_COLOR_DEFAULT :
			    t->style[TR_DEFAULT].fg;
		if (t->style[i].bg == THEME_COLOR_UNSET)
			t->style[i].bg = i == TR_DEFAULT ? THEME_COLOR_DEFAULT :
			    t->style[TR_DEFAULT].bg;
		if (t->style[i].fg == THEME_COLOR_UNSET)
			t->style[i].fg = THEME_COLOR_DEFAULT;
		if (t->style[i].bg == THEME_COLOR_UNSET)
			t->style[i].bg = THEME_COLOR_DEFAULT;
	}
	return t;
}

void
theme_free(struct theme *t)
{
	if (t == NULL)
		return;
	free(t->name);
	free(t);
}

/* Add DIR (allocated) to the list unless it is there already. */
static void
theme_dir_add(char **dirs, size_t *n, char *dir)
{
	size_t	i;

	for (i = 0; i < *n; i++)
		if (strcmp(dirs[i], dir) == 0) {
			free(dir);
			return;
		}
	if (*n < THEME_DIRS_MAX)
		dirs[(*n)++] = dir;
	else
		free(dir);
}

/*
 * The directories searched, in order; returns how many (allocated).  The
 * user's own themes, then the data directories of the XDG base directory
 * specification, then the install the executable is part of (wherever it
 * was moved), the one it was built for, and last the source tree the
 * executable was built in (bin/../themes of a build that was never
 * installed) and ./themes.
 */
static size_t
theme_dirs(char **dirs)
{
	const char	*xdg, *home, *data, *p, *c;
	char		*rel, *self;
	size_t		 n = 0, k = 0;

	home = getenv("HOME");
	if ((xdg = getenv("XDG_CONFIG_HOME")) != NULL && *xdg == '/')
		theme_dir_add(dirs, &n, xasprintf("%s/jobtop/themes", xdg));
	else if (home != NULL && *home == '/')
		theme_dir_add(dirs, &n, xasprintf("%s/.config/jobtop/themes",
		    home));
	if ((xdg = getenv("XDG_DATA_HOME")) != NULL && *xdg == '/')
		theme_dir_add(dirs, &n, xasprintf("%s/jobtop/themes", xdg));
	else if (home != NULL && *home == '/')
		theme_dir_add(dirs, &n, xasprintf("%s/.local/share/jobtop/"
		    "themes", home));
	if ((data = getenv("JOBTOP_DATADIR")) != NULL && *data != '\0')
		theme_dir_add(dirs, &n, xasprintf("%s/themes", data));
	if ((rel = selfpath_prefixed("share/jobtop/themes")) != NULL)
		theme_dir_add(dirs, &n, rel);
	/* Relative entries are invalid and ignored, as the spec says. */
	if ((p = getenv("XDG_DATA_DIRS")) == NULL || *p == '\0')
		p = "/usr/local/share:/usr/share";
	for (; *p != '\0' && k < THEME_XDG_MAX; p = *c != '\0' ? c + 1 : c) {
		if ((c = strchr(p, ':')) == NULL)
			c = p + strlen(p);
		if (*p == '/' && c - p < 1024) {
			theme_dir_add(dirs, &n, xasprintf("%.*s/jobtop/themes",
			    (int)(c - p), p));
			k++;
		}
	}
	theme_dir_add(dirs, &n, xasprintf("%s/themes", JOBTOP_DATADIR));
	if ((self = selfpath_dir()) != NULL)
		theme_dir_add(dirs, &n, xasprintf("%s/themes", self));
	free(self);
	theme_dir_add(dirs, &n, xstrdup("./themes"));
	return n;
}

static void
theme_dirs_free(char **dirs, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(dirs[i]);
}

/* Read a whole (small) file: the text, or NULL with errno set. */
static char *
theme_read(const char *path)
{
	FILE	*f;
	char	*buf;
	size_t	 n;

	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	buf = xmalloc(THEME_FILE_MAX + 1);
	n = fread(buf, 1, THEME_FILE_MAX + 1, f);
	if (ferror(f) || n > THEME_FILE_MAX) {
		errno = ferror(f) ? EIO : EFBIG;
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (strlen(buf) != n) {
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	return buf;
}

/* A theme's name from a path: the file name without ".theme". */
static char *
theme_base(const char *path)
{
	const char	*b = strrchr(path, '/');
	size_t		 len;

	b = b != NULL ? b + 1 : path;
	len = strlen(b);
	if (len > 6 && strcmp(b + len - 6, ".theme") == 0)
		len -= 6;
	return xstrndup(b, len);
}

struct theme *
theme_load(const char *name, char *err, size_t errsz)
{
	struct theme	*t;
	char		*dirs[THEME_DIRS_MAX], *path, *text, *base;
	char		*where, *t2;
	size_t		 n, i, len = strlen(name);
	int		 ispath;

	ispath = strchr(name, '/') != NULL ||
	    (len > 6 && strcmp(name + len - 6, ".theme") == 0);
	if (ispath) {
		if ((text = theme_read(name)) == NULL) {
			snprintf(err, errsz, "%s: %s", name,
			    errno == EINVAL ? "not a text file" :
			    strerror(errno));
			return NULL;
		}
		base = theme_base(name);
		t = theme_parse(text, base, name, err, errsz);
		free(base);
		free(text);
		return t;
	}
	if (len == 0 || len > 64 || strspn(name, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != len ||
	    name[0] == '.') {
		snprintf(err, errsz, "bad theme name \"%s\": give a name or "
		    "a path to a .theme file", name);
		return NULL;
	}
	n = theme_dirs(dirs);
	for (i = 0; i < n; i++) {
		path = xasprintf("%s/%s.theme", dirs[i], name);
		if ((text = theme_read(path)) != NULL) {
			t = theme_parse(text, name, path, err, errsz);
			free(text);
			free(path);
			theme_dirs_free(dirs, n);
			return t;
		}
		if (errno != ENOENT) {
			snprintf(err, errsz, "%s: %s", path, strerror(errno));
			free(path);
			theme_dirs_free(dirs, n);
			return NULL;
		}
		free(path);
	}
	if (strcmp(name, "default") == 0) {
		theme_dirs_free(dirs, n);
		return theme_parse(theme_default, "default", "built-in theme",
		    err, errsz);
	}
	where = xstrdup("");
	for (i = 0; i < n; i++) {
		t2 = xasprintf("%s%s%s", where, i == 0 ? "" : i + 1 == n ?
		    " and " : ", ", dirs[i]);
		free(where);
		where = t2;
	}
	snprintf(err, errsz, "unknown theme \"%s\" (looked in %s)", name,
	    where);
	free(where);
	theme_dirs_free(dirs, n);
	return NULL;
}

char *
theme_where(void)
{
	char		*dirs[THEME_DIRS_MAX], *s, *t;
	struct stat	 st;
	size_t		 n, i;

	s = xstrdup("");
	n = theme_dirs(dirs);
	for (i = 0; i < n; i++) {
		if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		t = xasprintf("%s%s, ", s, dirs[i]);
		free(s);
		s = t;
	}
	theme_dirs_free(dirs, n);
	t = xasprintf("%sbuilt-in default", s);
	free(s);
	return t;
}

/* Order: the four shipped themes first, then by name. */
static int
theme_name_cmp(const void *a, const void *b)
{
	static const char *const first[] = { "default", "dark", "light",
	    "mono" };
	const char	*x = *(char *const *)a, *y = *(char *const *)b;
	int		 rx = 4, ry = 4, i;

	for (i = 0; i < 4; i++) {
		if (strcmp(x, first[i]) == 0)
			rx = i;
		if (strcmp(y, first[i]) == 0)
			ry = i;
	}
	if (rx != ry)
		return rx - ry;
	return strcmp(x, y);
}

char **
theme_names(size_t *np)
{
	char		*dirs[THEME_DIRS_MAX], **names = NULL, *b;
	DIR		*dp;
	struct dirent	*de;
	size_t		 n, i, k, count = 0, len;
	int		 dup;

	names = xreallocarray(NULL, 1, sizeof(*names));
	names[count++] = xstrdup("default");
	n = theme_dirs(dirs);
	for (i = 0; i < n; i++) {
		if ((dp = opendir(dirs[i])) == NULL)
			continue;
		while ((de = readdir(dp)) != NULL) {
			len = strlen(de->d_name);
			if (len <= 6 || de->d_name[0] == '.' ||
			    strcmp(de->d_name + len - 6, ".theme") != 0)
				continue;
			b = theme_base(de->d_name);
			for (k = 0, dup = 0; k < count && !dup; k++)
				dup = strcmp(names[k], b) == 0;
			if (dup || count >= 256) {
				free(b);
				continue;
			}
			names = xreallocarray(names, count + 1,
			    sizeof(*names));
			names[count++] = b;
		}
		closedir(dp);
	}
	theme_dirs_free(dirs, n);
	qsort(names, count, sizeof(*names), theme_name_cmp);
	*np = count;
	return names;
}

void
theme_names_free(char **names, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The RGB of a 256-colour index (xterm's palette). */
static void
theme_index_rgb(int c, int *r, int *g, int *b)
{
	static const int	base[16][3] = {
		{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
		{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 },
		{ 229, 229, 229 }, { 127, 127, 127 }, { 255, 0, 0 },
		{ 0, 255, 0 }, { 255, 255, 0 }, { 92, 92, 255 },
		{ 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 }
	};
	static const int	steps[6] = { 0, 95, 135, 175, 215, 255 };

	if (c < 16) {
		*r = base[c][0];
		*g = base[c][1];
		*b = base[c][2];
	} else if (c < 232) {
		c -= 16;
		*r = steps[c / 36];
		*g = steps[(c / 6) % 6];
		*b = steps[c % 6];
	} else
		*r = *g = *b = 8 + (c - 232) * 10;
}

/* The nearest of the first n palette colours to an RGB value. */
static int
theme_nearest(int r, int g, int b, int n)
{
	int	i, best = 0, pr, pg, pb;
	long	d, bestd = -1;

	for (i = 0; i < n; i++) {
		theme_index_rgb(i, &pr, &pg, &pb);
		d = (long)(pr - r) * (pr - r) + (long)(pg - g) * (pg - g) +
		    (long)(pb - b) * (pb - b);
		if (bestd < 0 || d < bestd) {
			bestd = d;
			best = i;
		}
	}
	return best;
}

int
theme_fit_color(int c, int ncolors)
{
	int	r, g, b;

	if (c < 0 || ncolors <= 0)
		return -1;
	if ((c & THEME_RGB) != 0) {
		r = (c >> 16) & 0xff;
		g = (c >> 8) & 0xff;
		b = c & 0xff;
		if (ncolors >= 256) {
			/* The 6x6x6 cube: round each channel to a step. */
			r = r < 48 ? 0 : r < 115 ? 1 : (r - 35) / 40;
			g = g < 48 ? 0 : g < 115 ? 1 : (g - 35) / 40;
			b = b < 48 ? 0 : b < 115 ? 1 : (b - 35) / 40;
			return 16 + 36 * r + 6 * g + b;
		}
		return theme_nearest(r, g, b, ncolors >= 16 ? 16 : 8);
	}
	if (c < ncolors)
		return c;
	if (c < 16)
		return c - 8;
	theme_index_rgb(c, &r, &g, &b);
	return theme_nearest(r, g, b, ncolors >= 16 ? 16 : 8);
}
