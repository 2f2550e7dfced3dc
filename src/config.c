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
#include "textsafe.h"
#include "xmalloc.h"

/* A setter stores VALUE in C, or returns -1 with the reason in ERR (the
 * parser puts FILE:LINE in front). */
typedef int	(*config_set_fn)(struct config *, const char *, char *,
		    size_t);

static int	config_set_transport(struct config *, const char *, char *,
		    size_t);

/*
 * The keys.  To add one: a field in struct config (config.h), freed in
 * config_free, a setter that validates and stores it, a row here, and a
 * line in jobtop.1's FILES section.  The command line must still win:
 * main applies a setting only where its option was not given.
 */
static const struct config_key {
	const char	*name;
	config_set_fn	 set;
} config_keys[] = {
	{ "transport",	config_set_transport },
};

const char *
config_transport_names(void)
{
	return feed_transport_names();
}

void
config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
}

void
config_free(struct config *c)
{
	free(c->transport);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

/* A transport of this build (feed_transports[], src/feed.c) or auto. */
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

static const struct config_key *
config_key_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(config_keys) / sizeof(config_keys[0]); i++)
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
		if (k->set(c, value, why, sizeof(why)) != 0) {
			snprintf(err, errlen, "%s:%zu: %s", nb, lineno, why);
			return -1;
		}
	}
	return 0;
}

char *
config_default_path(void)
{
	const char	*dir, *home;

	if ((dir = getenv("XDG_CONFIG_HOME")) != NULL && dir[0] == '/')
		return xasprintf("%s/jobtop/jobtop.conf", dir);
	if ((home = getenv("HOME")) != NULL && home[0] == '/')
		return xasprintf("%s/.config/jobtop/jobtop.conf", home);
	return NULL;
}

int
config_load(struct config *c, const char *path, config_warn_fn warn,
    void *arg, char *err, size_t errlen)
{
	struct stat	 st;
	char		*own = NULL, *text = NULL, pb[256];
	ssize_t		 r;
	size_t		 len = 0;
	int		 fd, rc = -1;

	if (path == NULL && (path = own = config_default_path()) == NULL)
		return 0;
	text_clean(pb, sizeof(pb), path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) <
	    0) {
		if (errno == ENOENT) {
			free(own);
			return 0;
		}
		snprintf(err, errlen, "cannot read the settings %s: %s", pb,
		    strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "the settings %s are not a regular file",
		    pb);
		goto out;
	}
	if (st.st_size > CONFIG_FILE_MAX) {
		snprintf(err, errlen, "the settings %s are larger than %d "
		    "bytes", pb, CONFIG_FILE_MAX);
		goto out;
	}
	text = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size + 1) {
		r = read(fd, text + len, (size_t)st.st_size + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "cannot read the settings %s: %s",
			    pb, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (len > (size_t)st.st_size) {
		snprintf(err, errlen, "the settings %s grew while read", pb);
		goto out;
	}
	if ((rc = config_parse(c, path, text, len, warn, arg, err, errlen)) ==
	    0) {
		free(c->path);
		c->path = xstrdup(path);
	}
out:
	if (fd >= 0)
		close(fd);
	free(text);
	free(own);
	return rc;
}
