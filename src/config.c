/* SPDX-License-Identifier: ISC */
/*
 * config: the settings file.  One table lists the keys, each with the
 * function that checks and stores its value; the parser only splits lines
 * into key and value, so a new setting is one row and one setter.  The
 * file is the user's own, but it is still foreign text: every byte that
 * reaches a message passes through text_clean.
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
#include "fsutil.h"
#include "textsafe.h"
#include "xmalloc.h"

/* A setter stores VALUE in C, or returns -1 with the reason in ERR (the
 * parser puts FILE:LINE in front). */
typedef int	(*config_set_fn)(struct config *, const char *, char *,
		    size_t);

static int	config_set_transport(struct config *, const char *, char *,
		    size_t);
static int	config_set_theme(struct config *, const char *, char *,
		    size_t);
static int	config_set_sort(struct config *, const char *, char *,
		    size_t);
static int	config_set_rank_sort(struct config *, const char *, char *,
		    size_t);
static int	config_set_columns(struct config *, const char *, char *,
		    size_t);
static int	config_set_rank_columns(struct config *, const char *, char *,
		    size_t);
static int	config_set_fold(struct config *, const char *, char *,
		    size_t);
static int	config_set_interval(struct config *, const char *, char *,
		    size_t);

/* A setter's line number, for the values the caller checks itself. */
static int	config_lineno;

/*
 * The keys.  To add one: a field in struct config (config.h), freed in
 * config_free, a setter that validates and stores it, a row here (with
 * the function that writes its value back, for config_render), and a line
 * in jobtop.1's FILES section.  The command line must still win: main
 * applies a setting only where its option was not given.
 */
typedef int	(*config_show_fn)(const struct config *, char *, size_t);

static int	config_show_transport(const struct config *, char *, size_t);
static int	config_show_theme(const struct config *, char *, size_t);
static int	config_show_sort(const struct config *, char *, size_t);
static int	config_show_rank_sort(const struct config *, char *, size_t);
static int	config_show_columns(const struct config *, char *, size_t);
static int	config_show_rank_columns(const struct config *, char *,
		    size_t);
static int	config_show_fold(const struct config *, char *, size_t);
static int	config_show_interval(const struct config *, char *, size_t);
static int	config_set_alloc_after(struct config *, const char *, char *,
		    size_t);
static int	config_show_alloc_after(const struct config *, char *, size_t);

static const struct config_key {
	const char	*name;
	config_set_fn	 set;
	config_show_fn	 show;	/* 1 with the value when C sets it */
} config_keys[] = {
	{ .name = "transport", .set = config_set_transport,
	    .show = config_show_transport },
	{ .name = "theme", .set = config_set_theme,
	    .show = config_show_theme },
	{ .name = "sort", .set = config_set_sort, .show = config_show_sort },
	{ .name = "rank_sort", .set = config_set_rank_sort,
	    .show = config_show_rank_sort },
	{ .name = "node_columns", .set = config_set_columns,
	    .show = config_show_columns },
	{ .name = "rank_columns", .set = config_set_rank_columns,
	    .show = config_show_rank_columns },
	{ .name = "fold", .set = config_set_fold, .show = config_show_fold },
	{ .name = "interval", .set = config_set_interval,
	    .show = config_show_interval },
	{ .name = "alloc_after", .set = config_set_alloc_after,
	    .show = config_show_alloc_after },
};
#define CONFIG_NKEYS	(sizeof(config_keys) / sizeof(config_keys[0]))

static const char *const config_folds[] = { "auto", "always", "never" };

const char *
config_transport_names(void)
{
	return feed_transport_names();
}

const char *
config_fold_name(int f)
{
	return f >= 0 && f < 3 ? config_folds[f] : NULL;
}

void
config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->fold = CONFIG_FOLD_UNSET;
	c->sort.desc = c->rank_sort.desc = -1;
}

void
config_free(struct config *c)
{
	free(c->transport);
	free(c->theme);
	free(c->sort.column);
	free(c->rank_sort.column);
	free(c->node_columns);
	free(c->rank_columns);
	free(c->path);
	config_init(c);
}

/* A transport of this build (the registered feed_transports[]) or auto. */
static int
config_set_transport(struct config *c, const char *v, char *err,
    size_t errlen)
{
	char	buf[64];

	if (strcmp(v, "auto") != 0 && feed_transport_find(v) == NULL) {
		snprintf(err, errlen, "unknown transport '%s': give %s",
		    text_clean(buf, sizeof(buf), v),
		    config_transport_names());
		return -1;
	}
	free(c->transport);
	c->transport = xstrdup(v);
	return 0;
}

/* Is every byte of V in SET, and V no longer than CONFIG_VALUE_MAX? */
static int
config_chars(const char *v, const char *set, const char *what, char *err,
    size_t errlen)
{
	char	buf[64];
	size_t	n = strspn(v, set);

	if (strlen(v) > CONFIG_VALUE_MAX) {
		snprintf(err, errlen, "%s longer than %d bytes", what,
		    CONFIG_VALUE_MAX);
		return -1;
	}
	if (v[n] != '\0') {
		snprintf(err, errlen, "%s '%s': '%c' is not allowed", what,
		    text_clean(buf, sizeof(buf), v), (unsigned char)v[n] <
		    0x80 ? v[n] : '?');
		return -1;
	}
	return 0;
}

/* Store a copy of V in *DST. */
static void
config_store(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

/* A theme's name or a path to a .theme file; ui/theme.c finds it, so
 * only the bytes are checked here: no blank or control character. */
static int
config_set_theme(struct config *c, const char *v, char *err, size_t errlen)
{
	if (strpbrk(v, " \t") != NULL) {
		snprintf(err, errlen, "a theme is a name or a path without "
		    "blanks");
		return -1;
	}
	if (config_chars(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_-./~+@%:", "theme", err, errlen) != 0)
		return -1;
	config_store(&c->theme, v);
	c->theme_line = config_lineno;
	return 0;
}

#define CONFIG_COLCHARS	"abcdefghijklmnopqrstuvwxyz0123456789_%/"
#define CONFIG_SPECCHARS	CONFIG_COLCHARS "+-"

/* "COLUMN [ascending|descending]": a column key the UI checks itself. */
static int
config_sort(struct config_sort *so, const char *v, char *err, size_t errlen)
{
	char	col[CONFIG_VALUE_MAX + 1], *dir, buf[64];
	int	desc = -1;

	if (strlen(v) > CONFIG_VALUE_MAX) {
		snprintf(err, errlen, "sort longer than %d bytes",
		    CONFIG_VALUE_MAX);
		return -1;
	}
	snprintf(col, sizeof(col), "%s", v);
	if ((dir = strpbrk(col, " \t")) != NULL) {
		*dir++ = '\0';
		dir += strspn(dir, " \t");
		if (strcmp(dir, "ascending") == 0 || strcmp(dir, "asc") == 0)
			desc = 0;
		else if (strcmp(dir, "descending") == 0 ||
		    strcmp(dir, "desc") == 0)
			desc = 1;
		else {
			snprintf(err, errlen, "sort '%s': give a column and "
			    "'ascending' or 'descending'",
			    text_clean(buf, sizeof(buf), v));
			return -1;
		}
	}
	if (col[0] == '\0' || config_chars(col, CONFIG_COLCHARS, "sort column",
	    err, errlen) != 0) {
		if (col[0] == '\0')
			snprintf(err, errlen, "sort: no column");
		return -1;
	}
	config_store(&so->column, col);
	so->desc = desc;
	so->line = config_lineno;
	return 0;
}

static int
config_set_sort(struct config *c, const char *v, char *err, size_t errlen)
{
	return config_sort(&c->sort, v, err, errlen);
}

static int
config_set_rank_sort(struct config *c, const char *v, char *err,
    size_t errlen)
{
	return config_sort(&c->rank_sort, v, err, errlen);
}

/* "key,key,...", "-key,+key" or "default" (ui/columns.h): the columns
 * shown; the UI checks the keys.  Blanks around the commas are dropped. */
static int
config_columns(char **dst, int *line, const char *v, char *err,
    size_t errlen)
{
	char	out[CONFIG_VALUE_MAX + 1];
	size_t	n = 0;

	if (config_chars(v, CONFIG_SPECCHARS ", \t", "columns", err,
	    errlen) != 0)
		return -1;
	for (; *v != '\0'; v++) {
		if (*v == ' ' || *v == '\t')
			continue;
		if (*v == ',' && (n == 0 || out[n - 1] == ',')) {
			snprintf(err, errlen, "an empty column key "
			    "between commas");
			return -1;
		}
		out[n++] = *v;
	}
	out[n] = '\0';
	if (n == 0 || out[n - 1] == ',') {
		snprintf(err, errlen, "an empty column key at the "
		    "end");
		return -1;
	}
	config_store(dst, out);
	*line = config_lineno;
	return 0;
}

static int
config_set_columns(struct config *c, const char *v, char *err, size_t errlen)
{
	return config_columns(&c->node_columns, &c->node_columns_line, v, err,
	    errlen);
}

static int
config_set_rank_columns(struct config *c, const char *v, char *err,
    size_t errlen)
{
	return config_columns(&c->rank_columns, &c->rank_columns_line, v, err,
	    errlen);
}

static int
config_set_fold(struct config *c, const char *v, char *err, size_t errlen)
{
	char	buf[64];
	int	i;

	for (i = 0; i < 3; i++)
		if (strcmp(v, config_folds[i]) == 0) {
			c->fold = i;
			return 0;
		}
	snprintf(err, errlen, "fold '%s': give auto, always or never",
	    text_clean(buf, sizeof(buf), v));
	return -1;
}

/* Seconds as plain decimals ("2", "0.5"): no sign, exponent or hex, so
 * "0x10" is not 16 s. */
static int
config_set_interval(struct config *c, const char *v, char *err,
    size_t errlen)
{
	char	buf[64], *end;
	double	d;
	size_t	n = strspn(v, "0123456789");

	if (n == 0 || (v[n] != '\0' && (v[n] != '.' ||
	    v[n + 1 + strspn(v + n + 1, "0123456789")] != '\0')))
		d = -1;
	else
		d = strtod(v, &end);
	if (!(d >= CONFIG_IVL_MIN && d <= CONFIG_IVL_MAX)) {
		snprintf(err, errlen, "interval '%s': give seconds from %.2g "
		    "to %.0f", text_clean(buf, sizeof(buf), v), CONFIG_IVL_MIN,
		    CONFIG_IVL_MAX);
		return -1;
	}
	c->interval = d;
	return 0;
}

static int
config_show_transport(const struct config *c, char *buf, size_t len)
{
	if (c->transport == NULL)
		return 0;
	snprintf(buf, len, "%s", c->transport);
	return 1;
}

static int
config_show_theme(const struct config *c, char *buf, size_t len)
{
	if (c->theme == NULL)
		return 0;
	snprintf(buf, len, "%s", c->theme);
	return 1;
}

static int
config_show_one_sort(const struct config_sort *so, char *buf, size_t len)
{
	if (so->column == NULL)
		return 0;
	snprintf(buf, len, "%s%s", so->column, so->desc == 1 ?
	    " descending" : so->desc == 0 ? " ascending" : "");
	return 1;
}

static int
config_show_sort(const struct config *c, char *buf, size_t len)
{
	return config_show_one_sort(&c->sort, buf, len);
}

static int
config_show_rank_sort(const struct config *c, char *buf, size_t len)
{
	return config_show_one_sort(&c->rank_sort, buf, len);
}

static int
config_show_columns(const struct config *c, char *buf, size_t len)
{
	if (c->node_columns == NULL)
		return 0;
	snprintf(buf, len, "%s", c->node_columns);
	return 1;
}

static int
config_show_rank_columns(const struct config *c, char *buf, size_t len)
{
	if (c->rank_columns == NULL)
		return 0;
	snprintf(buf, len, "%s", c->rank_columns);
	return 1;
}

static int
config_show_fold(const struct config *c, char *buf, size_t len)
{
	if (config_fold_name(c->fold) == NULL)
		return 0;
	snprintf(buf, len, "%s", config_fold_name(c->fold));
	return 1;
}

/* Whole seconds, 1 to CONFIG_ALLOC_MAX, plain digits. */
static int
config_set_alloc_after(struct config *c, const char *v, char *err,
    size_t errlen)
{
	char	buf[64];
	size_t	n = strspn(v, "0123456789");
	long	s = -1;

	if (n > 0 && n <= 7 && v[n] == '\0')
		s = strtol(v, NULL, 10);
	if (s < 1 || s > CONFIG_ALLOC_MAX) {
		snprintf(err, errlen, "alloc_after '%s': give whole seconds "
		    "from 1 to %d", text_clean(buf, sizeof(buf), v),
		    CONFIG_ALLOC_MAX);
		return -1;
	}
	c->alloc_after = s;
	return 0;
}

static int
config_show_alloc_after(const struct config *c, char *buf, size_t len)
{
	if (c->alloc_after <= 0)
		return 0;
	snprintf(buf, len, "%ld", c->alloc_after);
	return 1;
}

/* The shortest text that reads back as the same double. */
static int
config_show_interval(const struct config *c, char *buf, size_t len)
{
	int	prec;

	if (c->interval <= 0)
		return 0;
	for (prec = 1; prec <= 20; prec++) {	/* 17 digits from 0.05 s */
		snprintf(buf, len, "%.*f", prec, c->interval);
		if (strtod(buf, NULL) == c->interval)
			break;
	}
	/* "2.0" -> "2", "0.50" -> "0.5": trailing zeros are noise. */
	if (strchr(buf, '.') != NULL) {
		prec = (int)strlen(buf);
		while (buf[prec - 1] == '0')
			buf[--prec] = '\0';
		if (buf[prec - 1] == '.')
			buf[--prec] = '\0';
	}
	return 1;
}

static const struct config_key *
config_key_find(const char *name)
{
	size_t	i;

	for (i = 0; i < CONFIG_NKEYS; i++)
		if (strcmp(config_keys[i].name, name) == 0)
			return &config_keys[i];
	return NULL;
}

/* Is C a blank (space or tab)? */
static int
config_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * One line (NUL-terminated, no newline, writable) into key and value.
 * '#' opens a comment at the start of the line or after a blank, so a
 * value may hold a '#' (a colour, a path) as long as it is not preceded
 * by a blank.  Returns 1 for a setting, 0 for a blank or comment line,
 * -1 with the reason in ERR.
 */
static int
config_split(char *line, char **key, char **value, char *err, size_t errlen)
{
	char	*p, *eq, *end;

	for (p = line; *p != '\0'; p++) {
		if (*p == '#' && (p == line || config_blank(p[-1]))) {
			*p = '\0';
			break;
		}
		if ((unsigned char)*p < 0x20 && *p != '\t') {
			snprintf(err, errlen, "control character 0x%02x in the "
			    "line", (unsigned char)*p);
			return -1;
		}
		if ((unsigned char)*p == 0x7f) {
			snprintf(err, errlen, "control character 0x7f in the "
			    "line");
			return -1;
		}
	}
	for (p = line; config_blank(*p); p++)
		;
	if (*p == '\0')
		return 0;
	if ((eq = strchr(p, '=')) == NULL) {
		snprintf(err, errlen, "expected 'key = value'");
		return -1;
	}
	for (end = eq; end > p && config_blank(end[-1]); end--)
		;
	*end = '\0';
	if (*p == '\0') {
		snprintf(err, errlen, "no key before '='");
		return -1;
	}
	if (p[strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_-")] != '\0') {
		snprintf(err, errlen, "a key is lowercase letters, digits, "
		    "'_' and '-'");
		return -1;
	}
	*key = p;
	for (p = eq + 1; config_blank(*p); p++)
		;
	for (end = p + strlen(p); end > p && config_blank(end[-1]); end--)
		;
	*end = '\0';
	if (*p == '\0') {
		snprintf(err, errlen, "no value after '='");
		return -1;
	}
	*value = p;
	return 1;
}

int
config_parse(struct config *c, const char *name, const char *text,
    size_t len, config_warn_fn warn, void *arg, char *err, size_t errlen)
{
	const struct config_key	*k;
	char			 line[CONFIG_LINE_MAX + 1], why[512];
	char			 nb[256];
	char			 msg[1024], kb[64], *key, *value;
	unsigned		 seen = 0;
	size_t			 at = 0, n, lineno = 0;
	const char		*nl;
	int			 r;

	text_clean(nb, sizeof(nb), name);
	while (at < len) {
		lineno++;
		nl = memchr(text + at, '\n', len - at);
		n = nl != NULL ? (size_t)(nl - (text + at)) : len - at;
		if (n > CONFIG_LINE_MAX) {
			snprintf(err, errlen, "%s:%zu: line longer than %d "
			    "bytes", nb, lineno, CONFIG_LINE_MAX);
			return -1;
		}
		if (memchr(text + at, '\0', n) != NULL) {
			snprintf(err, errlen, "%s:%zu: NUL byte in the line",
			    nb, lineno);
			return -1;
		}
		memcpy(line, text + at, n);
		line[n] = '\0';
		if (n > 0 && line[n - 1] == '\r')	/* a DOS line end */
			line[n - 1] = '\0';
		at += n + (nl != NULL);
		r = config_split(line, &key, &value, why, sizeof(why));
		if (r == 0)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s:%zu: %s", nb, lineno, why);
			return -1;
		}
		if ((k = config_key_find(key)) == NULL) {
			if (warn != NULL) {
				snprintf(msg, sizeof(msg), "%s:%zu: unknown "
				    "setting '%s' ignored", nb, lineno,
				    text_clean(kb, sizeof(kb), key));
				warn(arg, msg);
			}
			continue;
		}
		if (seen & (1u << (k - config_keys))) {
			snprintf(err, errlen, "%s:%zu: %s given twice", nb,
			    lineno, k->name);
			return -1;
		}
		seen |= 1u << (k - config_keys);
		config_lineno = (int)(lineno < 1000000 ? lineno : 1000000);
		if (k->set(c, value, why, sizeof(why)) != 0) {
			snprintf(err, errlen, "%s:%zu: %s", nb, lineno, why);
			return -1;
		}
	}
	return 0;
}

/* FILE in the settings directory (allocated), or NULL. */
static char *
config_dir_path(const char *file)
{
	const char	*dir, *home;

	if ((dir = getenv("XDG_CONFIG_HOME")) != NULL && dir[0] == '/')
		return xasprintf("%s/jobtop/%s", dir, file);
	if ((home = getenv("HOME")) != NULL && home[0] == '/')
		return xasprintf("%s/.config/jobtop/%s", home, file);
	return NULL;
}

char *
config_default_path(void)
{
	return config_dir_path("jobtoprc");
}

char *
config_legacy_path(void)
{
	return config_dir_path("jobtop.conf");
}

/* Read the whole file at PATH (at most CONFIG_FILE_MAX bytes) into
 * *TEXT (allocated) and *LEN.  Returns 0, 1 when there is no such file,
 * or -1 with one line in ERR. */
static int
config_read(const char *path, char **textp, size_t *lenp, char *err,
    size_t errlen)
{
	char		*text, pb[256];
	size_t		 len;
	int		 fd, save;

	text_clean(pb, sizeof(pb), path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) <
	    0) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "cannot read the settings %s: %s", pb,
		    strerror(errno));
		return -1;
	}
	text = fs_read_fd(fd, CONFIG_FILE_MAX, &len);
	save = errno;
	close(fd);
	if (text != NULL) {
		*textp = text;
		*lenp = len;
		return 0;
	}
	if (save == EISDIR || save == EINVAL)
		snprintf(err, errlen, "the settings %s are not a regular file",
		    pb);
	else if (save == EFBIG)
		snprintf(err, errlen, "the settings %s are larger than %d "
		    "bytes", pb, CONFIG_FILE_MAX);
	else
		snprintf(err, errlen, "cannot read the settings %s: %s", pb,
		    strerror(save));
	return -1;
}

int
config_load(struct config *c, const char *path, config_warn_fn warn,
    void *arg, char *err, size_t errlen)
{
	char	*own = NULL, *text = NULL;
	size_t	 len = 0;
	int	 rc;

	if (path == NULL) {
		if ((path = own = config_default_path()) == NULL)
			return 0;
		/* No jobtoprc: the file of earlier versions. */
		if (access(own, F_OK) != 0 && errno == ENOENT) {
			free(own);
			if ((path = own = config_legacy_path()) == NULL)
				return 0;
		}
	}
	if ((rc = config_read(path, &text, &len, err, errlen)) == 1)
		rc = 0;
	else if (rc == 0 && (rc = config_parse(c, path, text, len, warn, arg,
	    err, errlen)) == 0) {
		free(c->path);
		c->path = xstrdup(path);
	}
	free(text);
	free(own);
	return rc;
}

/* Append LEN bytes of S to the buffer *B (*N used, *CAP allocated). */
static void
config_append(char **b, size_t *n, size_t *cap, const char *s, size_t len)
{
	while (*n + len + 1 > *cap) {
		*cap = *cap < 256 ? 256 : *cap * 2;
		*b = xreallocarray(*b, *cap, 1);
	}
	memcpy(*b + *n, s, len);
	*n += len;
	(*b)[*n] = '\0';
}

char *
config_render(const struct config *c, const char *old, size_t len)
{
	const struct config_key	*k;
	char			 line[CONFIG_LINE_MAX + 1], why[256];
	char			 val[CONFIG_LINE_MAX], out[CONFIG_LINE_MAX + 64];
	char			*key, *value, *b = NULL;
	unsigned		 done = 0;
	size_t			 at = 0, n, w, used = 0, cap = 0, i;
	const char		*nl;
	int			 r;

	config_append(&b, &used, &cap, "", 0);
	while (old != NULL && at < len) {
		nl = memchr(old + at, '\n', len - at);
		n = nl != NULL ? (size_t)(nl - (old + at)) : len - at;
		k = NULL;
		/* A line the parser would take for a key C sets is
		 * replaced; any other line (comments, blanks, unknown or
		 * unset keys, even a bad line) is kept byte for byte. */
		if (n <= CONFIG_LINE_MAX && memchr(old + at, '\0', n) == NULL) {
			memcpy(line, old + at, n);
			line[n] = '\0';
			if (n > 0 && line[n - 1] == '\r')
				line[n - 1] = '\0';
			r = config_split(line, &key, &value, why, sizeof(why));
			if (r < 0 && strchr(line, '=') != NULL) {
				/* "key =" with no value: still that key. */
				key = line + strspn(line, " \t");
				key[strcspn(key, " \t=")] = '\0';
				r = 1;
			}
			if (r > 0)
				k = config_key_find(key);
		}
		if (k != NULL && k->show(c, val, sizeof(val))) {
			/* The first such line takes the value; a second
			 * (an error to the parser) goes. */
			if (!(done & (1u << (k - config_keys)))) {
				w = (size_t)snprintf(out, sizeof(out),
				    "%s = %s\n", k->name, val);
				config_append(&b, &used, &cap, out, w <
				    sizeof(out) ? w : sizeof(out) - 1);
			}
			done |= 1u << (k - config_keys);
		} else {
			config_append(&b, &used, &cap, old + at, n);
			config_append(&b, &used, &cap, "\n", 1);
		}
		at += n + (nl != NULL);
	}
	for (i = 0; i < CONFIG_NKEYS; i++) {
		if ((done & (1u << i)) || !config_keys[i].show(c, val,
		    sizeof(val)))
			continue;
		n = (size_t)snprintf(out, sizeof(out), "%s = %s\n",
		    config_keys[i].name, val);
		config_append(&b, &used, &cap, out, n < sizeof(out) ? n :
		    sizeof(out) - 1);
	}
	return b;
}

/* mkdir -p of PATH's directory, each missing level mode 0700. */
static int
config_mkdirs(const char *path, char *err, size_t errlen)
{
	char	*dir, *p, pb[256], c;
	int	 rc = 0;

	dir = xstrdup(path);
	if ((p = strrchr(dir, '/')) != NULL)
		*p = '\0';
	for (p = dir + 1; rc == 0; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s",
			    text_clean(pb, sizeof(pb), dir), strerror(errno));
			rc = -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	free(dir);
	return rc;
}

int
config_save(const struct config *c, const char *path, char *err,
    size_t errlen)
{
	struct stat	 st;
	char		*own = NULL, *old = NULL, *text = NULL, *tmp = NULL;
	char		*real = NULL, pb[256];
	size_t		 len = 0, off = 0, n;
	ssize_t		 w;
	int		 fd = -1, rc = -1, r;

	if (path == NULL && (path = own = config_default_path()) == NULL) {
		snprintf(err, errlen, "no place for the settings: set HOME "
		    "or XDG_CONFIG_HOME");
		return -1;
	}
	/* A settings file linked from elsewhere (a dotfiles repository)
	 * stays a link: its target is the file replaced. */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
	    (real = realpath(path, NULL)) != NULL)
		path = real;
	text_clean(pb, sizeof(pb), path);
	/* Keep what the file says beyond our keys: the file there, or
	 * the one these settings came from (jobtop.conf). */
	r = config_read(path, &old, &len, err, errlen);
	if (r == 1 && c->path != NULL && strcmp(c->path, path) != 0)
		r = config_read(c->path, &old, &len, err, errlen);
	if (r < 0)
		goto out;
	text = config_render(c, old, r == 0 ? len : 0);
	if (config_mkdirs(path, err, errlen) != 0)
		goto out;
	tmp = xasprintf("%s.tmp.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0) {
		snprintf(err, errlen, "cannot write the settings %s: %s", pb,
		    strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	fchmod(fd, 0600);
	n = strlen(text);
	while (off < n) {
		w = write(fd, text + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (off < n || fsync(fd) != 0 || close(fd) != 0) {
		snprintf(err, errlen, "cannot write the settings %s: %s", pb,
		    strerror(errno));
		if (off >= n)
			fd = -1;	/* closed, or close failed */
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot write the settings %s: %s", pb,
		    strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp != NULL)
		unlink(tmp);
	free(tmp);
	free(text);
	free(old);
	free(real);
	free(own);
	return rc;
}
