/* SPDX-License-Identifier: ISC */
/*
 * sshconf: ssh_config files as a list of blocks.  Each Host or Match line
 * opens a block whose condition is its patterns and, for a block read from
 * an Include inside another block, that block's condition too (the
 * `parent`): ssh applies an included file only where the Include line was
 * active.  Lookup walks the blocks in file order and keeps the first value
 * of each keyword, as ssh does; expansion of ~ and %-tokens happens only
 * then, once the user and port are settled.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "rutil.h"
#include "sshconf.h"
#include "xmalloc.h"

#define SSHCONF_DEPTH_MAX	16	/* Include nesting, as ssh */
#define SSHCONF_ARGS_MAX	256
#define SSHCONF_FILE_MAX	(1 << 20)

enum sshconf_kw {
	KW_UNKNOWN, KW_HOST, KW_MATCH, KW_INCLUDE, KW_HOSTNAME, KW_USER,
	KW_PORT, KW_IDENTITYFILE, KW_IDENTITIESONLY, KW_CONNECTTIMEOUT,
	KW_PROXYJUMP, KW_PROXYCOMMAND, KW_SERVERALIVEINTERVAL,
	KW_USERKNOWNHOSTSFILE, KW_GLOBALKNOWNHOSTSFILE, KW_GSSAPI,
	KW_HOSTBASED, KW_CONTROLMASTER, KW_CONTROLPATH, KW_CERTIFICATEFILE
};

static const struct {
	const char		*name;
	enum sshconf_kw		 kw;
} sshconf_keywords[] = {
	{ .name = "host", .kw = KW_HOST },
	{ .name = "match", .kw = KW_MATCH },
	{ .name = "include", .kw = KW_INCLUDE },
	{ .name = "hostname", .kw = KW_HOSTNAME },
	{ .name = "user", .kw = KW_USER },
	{ .name = "port", .kw = KW_PORT },
	{ .name = "identityfile", .kw = KW_IDENTITYFILE },
	{ .name = "identitiesonly", .kw = KW_IDENTITIESONLY },
	{ .name = "connecttimeout", .kw = KW_CONNECTTIMEOUT },
	{ .name = "proxyjump", .kw = KW_PROXYJUMP },
	{ .name = "proxycommand", .kw = KW_PROXYCOMMAND },
	{ .name = "serveraliveinterval", .kw = KW_SERVERALIVEINTERVAL },
	{ .name = "userknownhostsfile", .kw = KW_USERKNOWNHOSTSFILE },
	{ .name = "globalknownhostsfile", .kw = KW_GLOBALKNOWNHOSTSFILE },
	/* Only whether they apply: what only OpenSSH can do. */
	{ .name = "gssapiauthentication", .kw = KW_GSSAPI },
	{ .name = "hostbasedauthentication", .kw = KW_HOSTBASED },
	{ .name = "controlmaster", .kw = KW_CONTROLMASTER },
	{ .name = "controlpath", .kw = KW_CONTROLPATH },
	{ .name = "certificatefile", .kw = KW_CERTIFICATEFILE },
};

enum sshconf_bkind {
	B_ALWAYS,	/* before the first Host, or after an Include */
	B_HOST,		/* Host patterns */
	B_MATCH		/* Match criteria */
};

/* One Match criterion: "all", "host list", "originalhost list"; anything
 * else never matches (ssh would run or check something we do not). */
enum sshconf_crit { C_ALL, C_HOST, C_ORIGHOST, C_NEVER };

struct sshconf_cond {
	enum sshconf_crit	  crit;
	int			  neg;
	char			**pats;
	int			  npats;
};

struct sshconf_opt {
	enum sshconf_kw	 kw;
	char		*val;
	const char	*file;
	int		 line;
};

struct sshconf_block {
	enum sshconf_bkind	 kind;
	long			 parent;	/* block index, -1 none */
	char			**pats;		/* B_HOST */
	int			 npats;
	struct sshconf_cond	*conds;		/* B_MATCH */
	int			 nconds;
	struct sshconf_opt	*opts;
	size_t			 nopts;
};

struct sshconf {
	char			*home;
	char			*user;
	int			 flags;
	int			 depth;
	struct sshconf_block	*blocks;
	size_t			 nblocks;
	char			**files;	/* names, for messages */
	size_t			 nfiles;
};

struct sshconf *
sshconf_new(const char *home, const char *user, int flags)
{
	struct sshconf	*c;

	c = xcalloc(1, sizeof(*c));
	c->home = xstrdup(home != NULL ? home : "/");
	c->user = xstrdup(user != NULL ? user : "");
	c->flags = flags;
	return c;
}

static void
sshconf_free_pats(char **pats, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		free(pats[i]);
	free(pats);
}

void
sshconf_free(struct sshconf *c)
{
	struct sshconf_block	*b;
	size_t			 i, j;
	int			 k;

	if (c == NULL)
		return;
	for (i = 0; i < c->nblocks; i++) {
		b = &c->blocks[i];
		sshconf_free_pats(b->pats, b->npats);
		for (k = 0; k < b->nconds; k++)
			sshconf_free_pats(b->conds[k].pats, b->conds[k].npats);
		free(b->conds);
		for (j = 0; j < b->nopts; j++)
			free(b->opts[j].val);
		free(b->opts);
	}
	free(c->blocks);
	for (i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	free(c->home);
	free(c->user);
	free(c);
}

/* A new block; returns its index. */
static long
sshconf_add_block(struct sshconf *c, enum sshconf_bkind kind, long parent)
{
	struct sshconf_block	*b;

	c->blocks = xreallocarray(c->blocks, c->nblocks + 1,
	    sizeof(*c->blocks));
	b = &c->blocks[c->nblocks];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->parent = parent;
	return (long)c->nblocks++;
}

/* Split a line's arguments: whitespace-separated, "double quotes" group,
 * a word starting with # ends the line.  Modifies s.  Count, or -1 on an
 * unterminated quote. */
static int
sshconf_split(char *s, char **argv, int max)
{
	char	*w;
	int	 n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '\0' || *s == '#')
			return n;
		if (n == max)
			return -2;
		if (*s == '"') {
			w = ++s;
			while (*s != '\0' && *s != '"')
				s++;
			if (*s != '"')
				return -1;
			*s++ = '\0';
		} else {
			w = s;
			while (*s != '\0' && *s != ' ' && *s != '\t' &&
			    *s != '\r' && *s != '"')
				s++;
			if (*s == '"')
				return -1;
			if (*s != '\0')
				*s++ = '\0';
		}
		argv[n++] = w;
	}
}

/* Check the %-tokens of a value against the allowed letters. */
static int
sshconf_check_tokens(const char *v, const char *allowed, char *bad)
{
	for (; *v != '\0'; v++) {
		if (*v != '%')
			continue;
		v++;
		if (*v == '%')
			continue;
		if (*v == '\0' || strchr(allowed, *v) == NULL) {
			*bad = *v;
			return -1;
		}
	}
	return 0;
}

static void
sshconf_add_opt(struct sshconf *c, long bi, enum sshconf_kw kw,
    const char *val, const char *file, int line)
{
	struct sshconf_block	*b = &c->blocks[bi];

	b->opts = xreallocarray(b->opts, b->nopts + 1, sizeof(*b->opts));
	b->opts[b->nopts].kw = kw;
	b->opts[b->nopts].val = xstrdup(val);
	b->opts[b->nopts].file = file;
	b->opts[b->nopts].line = line;
	b->nopts++;
}

/* Split a comma-separated list into patterns. */
static void
sshconf_add_list(char ***pats, int *npats, const char *list)
{
	char	*copy, *p, *w;

	copy = p = xstrdup(list);
	while ((w = strsep(&p, ",")) != NULL) {
		if (*w == '\0')
			continue;
		*pats = xreallocarray(*pats, (size_t)*npats + 1,
		    sizeof(**pats));
		(*pats)[(*npats)++] = xstrdup(w);
	}
	free(copy);
}

/* A Match line: criteria into the block, "all" alone or with others. */
static int
sshconf_parse_match(struct sshconf *c, long bi, char **argv, int argc,
    char *err, size_t errlen, const char *where)
{
	struct sshconf_block	*b = &c->blocks[bi];
	struct sshconf_cond	*cd;
	const char		*w;
	int			 i, neg;

	if (argc == 0) {
		snprintf(err, errlen, "%s: Match needs criteria", where);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		w = argv[i];
		neg = *w == '!';
		if (neg)
			w++;
		b->conds = xreallocarray(b->conds, (size_t)b->nconds + 1,
		    sizeof(*b->conds));
		cd = &b->conds[b->nconds++];
		memset(cd, 0, sizeof(*cd));
		cd->neg = neg;
		if (strcasecmp(w, "all") == 0) {
			cd->crit = C_ALL;
			continue;
		}
		if (strcasecmp(w, "canonical") == 0 ||
		    strcasecmp(w, "final") == 0) {
			/* Both passes are one here: always true. */
			cd->crit = C_ALL;
			continue;
		}
		if (i + 1 >= argc) {
			snprintf(err, errlen, "%s: Match %s needs an argument",
			    where, w);
			return -1;
		}
		if (strcasecmp(w, "host") == 0)
			cd->crit = C_HOST;
		else if (strcasecmp(w, "originalhost") == 0)
			cd->crit = C_ORIGHOST;
		else
			cd->crit = C_NEVER;
		sshconf_add_list(&cd->pats, &cd->npats, argv[++i]);
	}
	return 0;
}

static int	sshconf_parse_depth(struct sshconf *, const char *,
		    const char *, size_t, int, long, char *, size_t);

/* Include: every file a glob names, in order, under the current block. */
static int
sshconf_include(struct sshconf *c, long *bi, char **argv, int argc,
    int system, char *err, size_t errlen, const char *where)
{
	glob_t	 g;
	char	*pat, *text, perr[512];
	size_t	 len, j;
	long	 parent = *bi;
	int	 i, rc = 0, grc;

	if ((c->flags & SSHCONF_NO_INCLUDE) != 0) {
		snprintf(err, errlen, "%s: Include is not allowed here",
		    where);
		return -1;
	}
	if (c->depth >= SSHCONF_DEPTH_MAX) {
		snprintf(err, errlen, "%s: Include nested too deeply", where);
		return -1;
	}
	for (i = 0; i < argc && rc == 0; i++) {
		if (argv[i][0] == '/')
			pat = xstrdup(argv[i]);
		else if (argv[i][0] == '~' && argv[i][1] == '/')
			pat = xasprintf("%s%s", c->home, argv[i] + 1);
		else if (system)
			pat = xasprintf("/etc/ssh/%s", argv[i]);
		else
			pat = xasprintf("%s/.ssh/%s", c->home, argv[i]);
		memset(&g, 0, sizeof(g));
		grc = glob(pat, 0, NULL, &g);
		free(pat);
		if (grc != 0 && grc != GLOB_NOMATCH) {
			snprintf(err, errlen, "%s: Include %s: cannot list",
			    where, argv[i]);
			rc = -1;
		}
		for (j = 0; rc == 0 && grc == 0 && j < g.gl_pathc; j++) {
			if ((text = rutil_read_trusted(g.gl_pathv[j],
			    SSHCONF_FILE_MAX, &len, perr, sizeof(perr))) ==
			    NULL) {
				if (errno == ENOENT)
					continue;
				if (errno == EPERM)
					snprintf(err, errlen, "%s: Include %s",
					    where, perr);
				else
					snprintf(err, errlen, "%s: Include "
					    "%s: %s", where, g.gl_pathv[j],
					    strerror(errno));
				rc = -1;
				break;
			}
			c->depth++;
			rc = sshconf_parse_depth(c, g.gl_pathv[j], text, len,
			    system, parent, err, errlen);
			c->depth--;
			free(text);
		}
		globfree(&g);
	}
	/* What follows the Include belongs to the enclosing block again. */
	if ((size_t)parent + 1 != c->nblocks)
		*bi = sshconf_add_block(c, B_ALWAYS, parent);
	return rc;
}

/* Remember a file name for messages; returns the stored copy. */
static const char *
sshconf_intern(struct sshconf *c, const char *name)
{
	c->files = xreallocarray(c->files, c->nfiles + 1, sizeof(*c->files));
	c->files[c->nfiles] = xstrdup(name);
	return c->files[c->nfiles++];
}

/* UserKnownHostsFile or GlobalKnownHostsFile: one or more files, kept as
 * one value with the names on lines of their own. */
static int
sshconf_known_files(struct sshconf *c, long bi, enum sshconf_kw kw,
    char **argv, int argc, const char *file, int lineno, char *err,
    size_t errlen, const char *where)
{
	char	*val, *nv, bad;
	int	 i;

	val = xstrdup("");
	for (i = 0; i < argc; i++) {
		if (sshconf_check_tokens(argv[i], "dhinpru", &bad) != 0) {
			snprintf(err, errlen, "%s: unknown token %%%c in %s",
			    where, bad != '\0' ? bad : '?',
			    kw == KW_USERKNOWNHOSTSFILE ?
			    "UserKnownHostsFile" : "GlobalKnownHostsFile");
			free(val);
			return -1;
		}
		nv = xasprintf("%s%s%s", val, i > 0 ? "\n" : "", argv[i]);
		free(val);
		val = nv;
	}
	sshconf_add_opt(c, bi, kw, val, file, lineno);
	free(val);
	return 0;
}

/* One keyword line into block *bi (which Host and Match replace). */
static int
sshconf_line(struct sshconf *c, long *bi, long parent, char *line,
    const char *file, int lineno, int system, char *err, size_t errlen)
{
	char		*argv[SSHCONF_ARGS_MAX], *kwname, *end, where[512];
	enum sshconf_kw	 kw = KW_UNKNOWN;
	long		 v;
	size_t		 i;
	int		 argc;
	char		 bad;

	snprintf(where, sizeof(where), "%s:%d", file, lineno);
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == '\0' || *line == '#' || *line == '\r')
		return 0;
	kwname = line;
	line += strcspn(line, " \t=\r");
	if (*line != '\0') {
		*line++ = '\0';
		line += strspn(line, " \t");
		if (*line == '=')
			line++;
	}
	for (i = 0; i < sizeof(sshconf_keywords) /
	    sizeof(sshconf_keywords[0]); i++) {
		if (strcasecmp(kwname, sshconf_keywords[i].name) == 0)
			kw = sshconf_keywords[i].kw;
	}
	if (kw == KW_UNKNOWN)
		return 0;
	argc = sshconf_split(line, argv, SSHCONF_ARGS_MAX);
	if (argc == -1) {
		snprintf(err, errlen, "%s: unterminated quote", where);
		return -1;
	}
	if (argc < 0) {
		snprintf(err, errlen, "%s: too many arguments", where);
		return -1;
	}
	if (argc == 0) {
		snprintf(err, errlen, "%s: %s needs an argument", where,
		    kwname);
		return -1;
	}
	switch (kw) {
	case KW_HOST:
		*bi = sshconf_add_block(c, B_HOST, parent);
		for (i = 0; i < (size_t)argc; i++) {
			if (argv[i][0] == '\0' || (argv[i][0] == '!' &&
			    argv[i][1] == '\0')) {
				snprintf(err, errlen, "%s: empty Host pattern",
				    where);
				return -1;
			}
			sshconf_add_list(&c->blocks[*bi].pats,
			    &c->blocks[*bi].npats, argv[i]);
		}
		return 0;
	case KW_MATCH:
		*bi = sshconf_add_block(c, B_MATCH, parent);
		return sshconf_parse_match(c, *bi, argv, argc, err, errlen,
		    where);
	case KW_INCLUDE:
		return sshconf_include(c, bi, argv, argc, system, err, errlen,
		    where);
	default:
		break;
	}
	if (kw == KW_USERKNOWNHOSTSFILE || kw == KW_GLOBALKNOWNHOSTSFILE)
		return sshconf_known_files(c, *bi, kw, argv, argc, file,
		    lineno, err, errlen, where);
	if (argc > 1 && kw != KW_PROXYCOMMAND) {
		snprintf(err, errlen, "%s: %s takes one argument", where,
		    kwname);
		return -1;
	}
	switch (kw) {
	case KW_PORT:
		errno = 0;
		v = strtol(argv[0], &end, 10);
		if (*end != '\0' || end == argv[0] || v < 1 || v > 65535) {
			snprintf(err, errlen, "%s: bad port \"%.64s\"", where,
			    argv[0]);
			return -1;
		}
		break;
	case KW_CONNECTTIMEOUT:
	case KW_SERVERALIVEINTERVAL:
		/* Seconds, up to a day; ConnectTimeout may be "none". */
		if (kw == KW_CONNECTTIMEOUT && strcasecmp(argv[0], "none") == 0)
			break;
		v = strtol(argv[0], &end, 10);
		if (*end != '\0' || end == argv[0] || v < 0 || v > 86400) {
			snprintf(err, errlen, "%s: bad %s \"%.64s\"", where,
			    kw == KW_CONNECTTIMEOUT ? "ConnectTimeout" :
			    "ServerAliveInterval", argv[0]);
			return -1;
		}
		break;
	case KW_IDENTITIESONLY:
		if (strcasecmp(argv[0], "yes") != 0 &&
		    strcasecmp(argv[0], "no") != 0) {
			snprintf(err, errlen, "%s: IdentitiesOnly must be yes "
			    "or no", where);
			return -1;
		}
		break;
	case KW_HOSTNAME:
		if (sshconf_check_tokens(argv[0], "h", &bad) != 0) {
			snprintf(err, errlen, "%s: unknown token %%%c in "
			    "HostName", where, bad != '\0' ? bad : '?');
			return -1;
		}
		break;
	case KW_IDENTITYFILE:
		if (sshconf_check_tokens(argv[0], "dhinpru", &bad) != 0) {
			snprintf(err, errlen, "%s: unknown token %%%c in "
			    "IdentityFile", where, bad != '\0' ? bad : '?');
			return -1;
		}
		break;
	default:
		break;
	}
	if (kw == KW_PROXYCOMMAND) {
		/* Only whether one is set matters: keep the keyword. */
		sshconf_add_opt(c, *bi, kw, "ProxyCommand", file, lineno);
		return 0;
	}
	sshconf_add_opt(c, *bi, kw, argv[0], file, lineno);
	return 0;
}

static int
sshconf_parse_depth(struct sshconf *c, const char *name, const char *text,
    size_t len, int system, long parent, char *err, size_t errlen)
{
	const char	*file, *p = text, *end = text + len, *nl;
	char		*line;
	long		 bi;
	int		 lineno = 0, rc = 0;

	file = sshconf_intern(c, name);
	bi = sshconf_add_block(c, B_ALWAYS, parent);
	while (p < end && rc == 0) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (memchr(p, '\0', (size_t)(nl - p)) != NULL) {
			snprintf(err, errlen, "%s:%d: NUL byte in line", file,
			    lineno);
			return -1;
		}
		line = xstrndup(p, (size_t)(nl - p));
		rc = sshconf_line(c, &bi, parent, line, file, lineno, system,
		    err, errlen);
		free(line);
		p = nl + 1;
	}
	return rc;
}

int
sshconf_parse(struct sshconf *c, const char *name, const char *text,
    size_t len, int system, char *err, size_t errlen)
{
	return sshconf_parse_depth(c, name, text, len, system, -1, err,
	    errlen);
}

int
sshconf_load(struct sshconf *c, const char *path, int system, char *err,
    size_t errlen)
{
	char	*text;
	size_t	 len;
	int	 rc;

	/* As ssh: a config others may change is refused, Includes too. */
	if ((text = rutil_read_trusted(path, SSHCONF_FILE_MAX, &len, err,
	    errlen)) == NULL) {
		if (errno == ENOENT)
			return 0;
		if (errno != EPERM)
			snprintf(err, errlen, "%s: %s", path,
			    strerror(errno));
		return -1;
	}
	rc = sshconf_parse(c, path, text, len, system, err, errlen);
	free(text);
	return rc;
}

int
sshconf_match_pattern(const char *pat, const char *s)
{
	const char	*star = NULL, *back = NULL;
	int		 a, b;

	/* Greedy with one backtrack point: linear in practice, never
	 * exponential, whatever the pattern. */
	while (*s != '\0') {
		a = (unsigned char)*pat;
		b = (unsigned char)*s;
		if (a >= 'A' && a <= 'Z')
			a += 'a' - 'A';
		if (b >= 'A' && b <= 'Z')
			b += 'a' - 'A';
		if (*pat == '*') {
			star = ++pat;
			back = s;
		} else if (*pat != '\0' && (*pat == '?' || a == b)) {
			pat++;
			s++;
		} else if (star != NULL) {
			pat = star;
			s = ++back;
		} else
			return 0;
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

int
sshconf_match_list(char *const *pats, int npats, const char *s)
{
	int	i, hit = 0;

	for (i = 0; i < npats; i++) {
		if (pats[i][0] == '!') {
			if (sshconf_match_pattern(pats[i] + 1, s))
				return 0;
		} else if (sshconf_match_pattern(pats[i], s))
			hit = 1;
	}
	return hit;
}

/* Does block bi (and every block it sits in) apply? */
static int
sshconf_block_applies(const struct sshconf *c, long bi, const char *orig,
    const char *hostname)
{
	const struct sshconf_block	*b;
	const struct sshconf_cond	*cd;
	int				 i, ok;

	for (; bi >= 0; bi = b->parent) {
		b = &c->blocks[bi];
		if (b->kind == B_HOST &&
		    !sshconf_match_list(b->pats, b->npats, orig))
			return 0;
		if (b->kind != B_MATCH)
			continue;
		for (i = 0; i < b->nconds; i++) {
			cd = &b->conds[i];
			switch (cd->crit) {
			case C_ALL:
				ok = 1;
				break;
			case C_HOST:
				ok = sshconf_match_list(cd->pats, cd->npats,
				    hostname);
				break;
			case C_ORIGHOST:
				ok = sshconf_match_list(cd->pats, cd->npats,
				    orig);
				break;
			default:
				ok = 0;
				break;
			}
			if (ok == cd->neg)
				return 0;
		}
	}
	return 1;
}

/* Append a string to a growing buffer. */
static void
sshconf_append(char **out, size_t *len, size_t *cap, const char *add)
{
	size_t	n = strlen(add);

	while (*len + n + 1 > *cap)
		*cap *= 2;
	*out = xreallocarray(*out, *cap, 1);
	memcpy(*out + *len, add, n);
	*len += n;
	(*out)[*len] = '\0';
}

/* Expand ~ and the %-tokens of an IdentityFile or HostName value. */
static char *
sshconf_expand(const struct sshconf *c, const char *v, const char *orig,
    const char *hostname, const char *ruser, int port)
{
	char		*out, num[16];
	const char	*add;
	size_t		 len = 0, cap = 64;

	out = xmalloc(cap);
	out[0] = '\0';
	if (v[0] == '~' && (v[1] == '/' || v[1] == '\0')) {
		sshconf_append(&out, &len, &cap, c->home);
		v++;
	}
	while (*v != '\0') {
		add = num;
		if (*v != '%' || v[1] == '\0') {
			num[0] = *v++;
			num[1] = '\0';
			sshconf_append(&out, &len, &cap, add);
			continue;
		}
		switch (v[1]) {
		case 'd':
			add = c->home;
			break;
		case 'h':
			add = hostname;
			break;
		case 'n':
			add = orig;
			break;
		case 'p':
			snprintf(num, sizeof(num), "%d", port);
			break;
		case 'r':
			add = ruser;
			break;
		case 'u':
			add = c->user;
			break;
		case 'i':
			snprintf(num, sizeof(num), "%u", (unsigned)getuid());
			break;
		default:	/* %%; the parser refused other tokens */
			num[0] = v[1];
			num[1] = '\0';
			break;
		}
		v += 2;
		sshconf_append(&out, &len, &cap, add);
	}
	return out;
}

/* The files of a known_hosts keyword's value (names on lines of their
 * own), expanded; "none" is no file.  *n stays -1 when val is NULL. */
static void
sshconf_known_expand(const struct sshconf *c, const char *val,
    const char *host, const struct sshconf_host *h, char ***files, int *n,
    const char *default_user)
{
	char	*copy, *p, *w;

	*files = NULL;
	*n = -1;
	if (val == NULL)
		return;
	*n = 0;
	copy = p = xstrdup(val);
	while ((w = strsep(&p, "\n")) != NULL) {
		if (*w == '\0' || strcasecmp(w, "none") == 0)
			continue;
		*files = xreallocarray(*files, (size_t)*n + 1,
		    sizeof(**files));
		(*files)[(*n)++] = sshconf_expand(c, w, host, h->hostname,
		    h->user != NULL ? h->user : default_user,
		    h->port != 0 ? h->port : 22);
	}
	free(copy);
}

/* The first option that applies and that only OpenSSH can honour (each
 * keyword's first value counts, as ssh reads them). */
static void
sshconf_openssh(struct sshconf_host *h, const struct sshconf_opt *o)
{
	static const struct {
		enum sshconf_kw	 kw;
		const char	*name;
		const char	*off;	/* the value that turns it off */
	} k[] = {
		{ KW_GSSAPI,		"GSSAPIAuthentication",	"no" },
		{ KW_HOSTBASED,		"HostbasedAuthentication", "no" },
		{ KW_CONTROLMASTER,	"ControlMaster",	"no" },
		{ KW_CONTROLPATH,	"ControlPath",		"none" },
		{ KW_CERTIFICATEFILE,	"CertificateFile",	"none" }
	};
	unsigned	i, bit;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (k[i].kw != o->kw)
			continue;
		bit = 1U << i;
		if (h->seen & bit)
			return;
		h->seen |= bit;
		if (strcasecmp(o->val, k[i].off) == 0)
			return;
		/* Debian's /etc/ssh/ssh_config turns GSSAPI on for every
		 * host: whether it matters depends on a Kerberos ticket. */
		if (o->kw == KW_GSSAPI) {
			h->gssapi = 1;
			return;
		}
		if (h->openssh != NULL)
			return;
		h->openssh = xasprintf("%s %s", k[i].name, o->val);
		return;
	}
}

int
sshconf_lookup(const struct sshconf *c, const char *host,
    const char *default_user, struct sshconf_host *h, char *err,
    size_t errlen)
{
	const struct sshconf_block	 *b;
	const struct sshconf_opt	 *o;
	const char			**ids = NULL, *hostname_raw = NULL;
	const char			 *known[2] = { NULL, NULL };
	char				 *hostname;
	size_t				  i, j, nids = 0;

	memset(h, 0, sizeof(*h));
	h->identities_only = -1;
	h->connect_timeout = -1;
	h->server_alive = -1;
	hostname = xstrdup(host);
	for (i = 0; i < c->nblocks; i++) {
		b = &c->blocks[i];
		if (b->nopts == 0 ||
		    !sshconf_block_applies(c, (long)i, host, hostname))
			continue;
		for (j = 0; j < b->nopts; j++) {
			o = &b->opts[j];
			switch (o->kw) {
			case KW_HOSTNAME:
				if (hostname_raw != NULL)
					break;
				hostname_raw = o->val;
				free(hostname);
				hostname = sshconf_expand(c, o->val, host,
				    host, "", 0);
				break;
			case KW_USER:
				if (h->user == NULL)
					h->user = xstrdup(o->val);
				break;
			case KW_PORT:
				if (h->port == 0)
					h->port = atoi(o->val);
				break;
			case KW_IDENTITYFILE:
				ids = xreallocarray(ids, nids + 1,
				    sizeof(*ids));
				ids[nids++] = o->val;
				break;
			case KW_IDENTITIESONLY:
				if (h->identities_only == -1)
					h->identities_only =
					    strcasecmp(o->val, "yes") == 0;
				break;
			case KW_CONNECTTIMEOUT:
				if (h->connect_timeout == -1)
					h->connect_timeout =
					    strcasecmp(o->val, "none") == 0 ?
					    0 : atoi(o->val);
				break;
			case KW_SERVERALIVEINTERVAL:
				if (h->server_alive == -1)
					h->server_alive = atoi(o->val);
				break;
			case KW_USERKNOWNHOSTSFILE:
			case KW_GLOBALKNOWNHOSTSFILE:
				if (known[o->kw == KW_GLOBALKNOWNHOSTSFILE]
				    == NULL)
					known[o->kw == KW_GLOBALKNOWNHOSTSFILE]
					    = o->val;
				break;
			case KW_PROXYJUMP:
			case KW_PROXYCOMMAND:
				if (h->proxy == NULL &&
				    strcasecmp(o->val, "none") != 0)
					h->proxy = o->kw == KW_PROXYJUMP ?
					    xasprintf("ProxyJump %s", o->val) :
					    xstrdup("ProxyCommand");
				break;
			case KW_GSSAPI:
			case KW_HOSTBASED:
			case KW_CONTROLMASTER:
			case KW_CONTROLPATH:
			case KW_CERTIFICATEFILE:
				sshconf_openssh(h, o);
				break;
			default:
				break;
			}
		}
	}
	h->hostname = hostname;
	sshconf_known_expand(c, known[0], host, h, &h->known_user,
	    &h->nknown_user, default_user);
	sshconf_known_expand(c, known[1], host, h, &h->known_global,
	    &h->nknown_global, default_user);
	for (i = 0; i < nids; i++) {
		if (strcasecmp(ids[i], "none") == 0)
			continue;
		h->identity = xreallocarray(h->identity,
		    (size_t)h->nidentity + 1, sizeof(*h->identity));
		h->identity[h->nidentity++] = sshconf_expand(c, ids[i], host,
		    hostname, h->user != NULL ? h->user : default_user,
		    h->port != 0 ? h->port : 22);
	}
	free(ids);
	if (h->proxy != NULL && h->openssh == NULL)
		h->openssh = xstrdup(h->proxy);
	return 0;
}

void
sshconf_host_free(struct sshconf_host *h)
{
	int	i;

	free(h->hostname);
	free(h->user);
	free(h->proxy);
	free(h->openssh);
	for (i = 0; i < h->nidentity; i++)
		free(h->identity[i]);
	free(h->identity);
	for (i = 0; i < h->nknown_user; i++)
		free(h->known_user[i]);
	free(h->known_user);
	for (i = 0; i < h->nknown_global; i++)
		free(h->known_global[i]);
	free(h->known_global);
	memset(h, 0, sizeof(*h));
}
