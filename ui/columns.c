/* SPDX-License-Identifier: ISC */
/*
 * columns: the user's choice of the rank and node tables' columns
 * (columns.h).  The tables' keys live with their panels; this file keeps
 * one mask of hidden columns per table and parses specs.
 */
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "columns.h"

extern const struct columns_def panel_ranks_columns;

unsigned	 columns_gen;

static uint64_t	 columns_hidden[COLUMNS_NTABLES];
static int	 columns_inited[COLUMNS_NTABLES];

static const struct columns_def *
columns_def(int t)
{
	const struct columns_def	*d;

	if (t == COLUMNS_RANKS)
		d = &panel_ranks_columns;
	else if (t == COLUMNS_NODES)
		d = panel_nodes_columns();
	else
		return NULL;
	if (!columns_inited[t]) {
		columns_inited[t] = 1;
		columns_hidden[t] = d->hidden;
	}
	return d;
}

/* Every column of the table, as a mask. */
static uint64_t
columns_all(const struct columns_def *d)
{
	return d->ncols >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << d->ncols) - 1;
}

unsigned
columns_count(int t)
{
	const struct columns_def	*d = columns_def(t);

	return d != NULL ? d->ncols : 0;
}

const char *
columns_key(int t, unsigned i)
{
	const struct columns_def	*d = columns_def(t);

	return d != NULL && i < d->ncols ? d->keys[i] : NULL;
}

const char *
columns_title(int t, unsigned i)
{
	const struct columns_def	*d = columns_def(t);

	return d != NULL && i < d->ncols ? d->titles[i] : NULL;
}

const char *
columns_setting(int t)
{
	const struct columns_def	*d = columns_def(t);

	return d != NULL ? d->setting : NULL;
}

/* Column of a table by the n bytes of key at s, or -1. */
static int
columns_findn(const struct columns_def *d, const char *s, size_t n)
{
	const char	*k;
	unsigned	 i, a;

	for (a = 0; a < 2; a++) {
		for (i = 0; i < d->ncols; i++) {
			k = a == 0 ? d->keys[i] : d->aliases != NULL ?
			    d->aliases[i] : NULL;
			if (k != NULL && strlen(k) == n &&
			    strncmp(k, s, n) == 0)
				return (int)i;
		}
	}
	return -1;
}

int
columns_find(int t, const char *key)
{
	const struct columns_def	*d = columns_def(t);

	return d != NULL && key != NULL ? columns_findn(d, key,
	    strlen(key)) : -1;
}

int
columns_shown(int t, unsigned i)
{
	const struct columns_def	*d = columns_def(t);

	return d != NULL && i < d->ncols &&
	    (columns_hidden[t] & ((uint64_t)1 << i)) == 0;
}

int
columns_set(int t, const char *key, int on)
{
	const struct columns_def	*d = columns_def(t);
	uint64_t			 h;
	int				 i;

	if (d == NULL || (i = columns_find(t, key)) < 0)
		return -1;
	h = columns_hidden[t];
	if (on)
		h &= ~((uint64_t)1 << i);
	else
		h |= (uint64_t)1 << i;
	if ((h & columns_all(d)) == columns_all(d))
		return -1;
	if (h != columns_hidden[t])
		columns_gen++;
	columns_hidden[t] = h;
	return 0;
}

void
columns_reset(int t)
{
	const struct columns_def	*d = columns_def(t);

	if (d != NULL && columns_hidden[t] != d->hidden) {
		columns_hidden[t] = d->hidden;
		columns_gen++;
	}
}

/* "unknown column" with the name as printable text, at most 40 bytes. */
static void
columns_unknown(const struct columns_def *d, const char *b, size_t n,
    char *err, size_t errsz)
{
	char	name[44];
	size_t	k;

	for (k = 0; k < n && k < 40; k++)
		name[k] = b[k] > ' ' && b[k] < 0x7f ? b[k] : '?';
	name[k] = '\0';
	snprintf(err, errsz, "%s: unknown column \"%s%s\" (the columns: "
	    "%s, %s, ...)", d->setting, name, n > 40 ? "..." : "",
	    d->keys[0], d->keys[1]);
}

int
columns_parse(int t, const char *spec, char *err, size_t errsz)
{
	const struct columns_def	*d = columns_def(t);
	const char			*p, *e, *b;
	uint64_t			 h, all;
	size_t				 n;
	int				 i, sign, signs = -1, items = 0;

	if (d == NULL) {
		snprintf(err, errsz, "no such table");
		return -1;
	}
	all = columns_all(d);
	while (*spec == ' ' || *spec == '\t')
		spec++;
	if (strcmp(spec, "default") == 0) {
		columns_reset(t);
		return 0;
	}
	h = all;
	for (p = spec;; p = e + 1) {
		e = p + strcspn(p, ",");
		for (b = p; b < e && (*b == ' ' || *b == '\t'); b++)
			;
		n = (size_t)(e - b);
		while (n > 0 && (b[n - 1] == ' ' || b[n - 1] == '\t'))
			n--;
		if (n == 0) {
			snprintf(err, errsz, "%s: empty column name",
			    d->setting);
			return -1;
		}
		sign = *b == '+' || *b == '-';
		if (signs >= 0 && sign != signs) {
			snprintf(err, errsz, "%s: either every column has a "
			    "+ or - or none has", d->setting);
			return -1;
		}
		if (signs < 0 && sign)
			h = columns_hidden[t];
		signs = sign;
		if ((i = columns_findn(d, b + sign, n - (size_t)sign)) < 0) {
			columns_unknown(d, b, n, err, errsz);
			return -1;
		}
		if (sign && *b == '-')
			h |= (uint64_t)1 << i;
		else
			h &= ~((uint64_t)1 << i);
		items++;
		if (*e == '\0')
			break;
	}
	if ((h & all) == all) {
		snprintf(err, errsz, "%s: no column left to show",
		    d->setting);
		return -1;
	}
	if (h != columns_hidden[t])
		columns_gen++;
	columns_hidden[t] = h;
	return items > 0 ? 0 : -1;
}

size_t
columns_string(int t, char *buf, size_t size)
{
	const struct columns_def	*d = columns_def(t);
	size_t				 len = 0;
	unsigned			 i;
	int				 n;

	if (size > 0)
		buf[0] = '\0';
	if (d == NULL)
		return 0;
	for (i = 0; i < d->ncols; i++) {
		if (!columns_shown(t, i))
			continue;
		n = snprintf(buf + (len < size ? len : size),
		    len < size ? size - len : 0, "%s%s", len > 0 ? "," : "",
		    d->keys[i]);
		if (n > 0)
			len += (size_t)n;
	}
	return len;
}

int
columns_changed(int t)
{
	const struct columns_def	*d = columns_def(t);

	return d != NULL && columns_hidden[t] != d->hidden;
}

/* A few uids' names: a rank table shows few users, and a directory
 * service may be slow. */
#define COLUMNS_USERS	16

const char *
columns_user(int64_t uid, char *buf, size_t size)
{
	static struct {
		int64_t	uid;
		char	name[33];
	}		 cache[COLUMNS_USERS];
	static unsigned	 ncache, next;
	struct passwd	*pw;
	unsigned	 i;

	for (i = 0; i < ncache; i++) {
		if (cache[i].uid == uid) {
			snprintf(buf, size, "%s", cache[i].name);
			return buf;
		}
	}
	i = ncache < COLUMNS_USERS ? ncache++ : next++ % COLUMNS_USERS;
	cache[i].uid = uid;
	if (uid >= 0 && uid <= 0xfffffffeLL &&
	    (pw = getpwuid((uid_t)uid)) != NULL && pw->pw_name != NULL &&
	    strlen(pw->pw_name) < sizeof(cache[i].name) &&
	    strspn(pw->pw_name, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-$@") ==
	    strlen(pw->pw_name) && pw->pw_name[0] != '\0')
		snprintf(cache[i].name, sizeof(cache[i].name), "%s",
		    pw->pw_name);
	else
		snprintf(cache[i].name, sizeof(cache[i].name), "%lld",
		    (long long)uid);
	snprintf(buf, size, "%s", cache[i].name);
	return buf;
}
