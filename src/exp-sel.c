/* SPDX-License-Identifier: ISC */
/*
 * exp-sel: the time window and the metric selection of an export.  Times
 * are absolute (ISO 8601, a clock time, unix seconds) or relative to the
 * recording's start ("+5m") or end ("-10m"), as below's and sadf's
 * windows are; metrics are globs over "group.field".
 */
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exp-sel.h"
#include "xmalloc.h"

/* A century: no window is longer. */
#define EXP_SEL_MAX_MS	(100.0 * 365 * 86400 * 1000)

struct exp_fields {
	size_t	  n;
	char	**globs;
};

/* At most n bytes of s for an error line: bytes that are not printable
 * ASCII become '?' (argv may hold a newline or an escape). */
static void
exp_sel_quote(char *dst, size_t size, const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n && i + 1 < size && s[i] != '\0'; i++)
		dst[i] = s[i] >= ' ' && s[i] < 0x7f ? s[i] : '?';
	dst[i] = '\0';
}

/* "1h30m", "90", "2.5s": milliseconds in *ms; -1 on anything else. */
static int
exp_sel_duration(const char *s, double *ms)
{
	double	 total = 0, v, unit;
	char	*end;

	if (*s == '\0')
		return -1;
	while (*s != '\0') {
		if (!isdigit((unsigned char)*s))
			return -1;
		v = strtod(s, &end);
		/* strtod takes hex, exponents and infinities: digits and
		 * one point only. */
		for (; s < end; s++)
			if (!isdigit((unsigned char)*s) && *s != '.')
				return -1;
		switch (*s) {
		case '\0':
			unit = 1000;
			break;
		case 's':
			unit = 1000;
			break;
		case 'm':
			unit = 60e3;
			break;
		case 'h':
			unit = 3600e3;
			break;
		case 'd':
			unit = 86400e3;
			break;
		default:
			return -1;
		}
		if (*s != '\0')
			s++;
		total += v * unit;
		if (!isfinite(total) || total > EXP_SEL_MAX_MS)
			return -1;
	}
	*ms = total;
	return 0;
}

/* Digits exactly n long at s into *v. */
static int
exp_sel_digits(const char *s, int n, int *v)
{
	int	i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

/* "HH:MM[:SS]" at s: fills tm and returns the length, or -1. */
static int
exp_sel_clock(const char *s, struct tm *tm)
{
	int	h, mi, se = 0, len = 5;

	if (exp_sel_digits(s, 2, &h) != 0 || s[2] != ':' ||
	    exp_sel_digits(s + 3, 2, &mi) != 0)
		return -1;
	if (s[5] == ':') {
		if (exp_sel_digits(s + 6, 2, &se) != 0)
			return -1;
		len = 8;
	}
	if (h > 23 || mi > 59 || se > 60)
		return -1;
	tm->tm_hour = h;
	tm->tm_min = mi;
	tm->tm_sec = se;
	return len;
}

/* "YYYY-MM-DD[T ]HH:MM[:SS][Z|+HH:MM|-HH:MM]": unix ms, or -1. */
static int
exp_sel_iso(const char *s, double *ms)
{
	struct tm	tm, chk;
	time_t		t;
	int		y, mo, d, n, oh, om, sign;

	memset(&tm, 0, sizeof(tm));
	if (exp_sel_digits(s, 4, &y) != 0 || s[4] != '-' ||
	    exp_sel_digits(s + 5, 2, &mo) != 0 || s[7] != '-' ||
	    exp_sel_digits(s + 8, 2, &d) != 0 || (s[10] != 'T' &&
	    s[10] != ' ') || y < 1970 || mo < 1 || mo > 12 || d < 1 ||
	    d > 31)
		return -1;
	if ((n = exp_sel_clock(s + 11, &tm)) < 0)
		return -1;
	s += 11 + n;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	chk = tm;
	if (*s == '\0') {
		tm.tm_isdst = -1;
		if ((t = mktime(&tm)) == (time_t)-1)
			return -1;
	} else {
		if (*s == 'Z' && s[1] == '\0')
			oh = om = 0, sign = 1;
		else if ((*s == '+' || *s == '-') &&
		    exp_sel_digits(s + 1, 2, &oh) == 0 && s[3] == ':' &&
		    exp_sel_digits(s + 4, 2, &om) == 0 && s[6] == '\0' &&
		    oh <= 14 && om <= 59)
			sign = *s == '+' ? 1 : -1;
		else
			return -1;
		if ((t = timegm(&tm)) == (time_t)-1)
			return -1;
		t -= sign * (oh * 3600 + om * 60);
	}
	/* mktime and timegm roll 31 February over into March. */
	if (tm.tm_mday != chk.tm_mday || tm.tm_mon != chk.tm_mon)
		return -1;
	*ms = (double)t * 1000;
	return 0;
}

int
exp_time_parse(const char *s, uint64_t start_ms, uint64_t end_ms,
    uint64_t *out, char *err, size_t errlen)
{
	struct tm	 tm;
	time_t		 t;
	double		 ms, v;
	char		*end, q[48];
	int		 n;

	if (*s == '+' || *s == '-') {
		if (exp_sel_duration(s + 1, &ms) != 0)
			goto bad;
		v = *s == '+' ? (double)start_ms + ms : (double)end_ms - ms;
	} else if (*s == '@') {
		for (n = 1; s[n] != '\0'; n++)
			if (!isdigit((unsigned char)s[n]) && s[n] != '.')
				goto bad;
		v = strtod(s + 1, &end) * 1000;
		if (s[1] == '\0' || *end != '\0' || !isfinite(v) ||
		    v > EXP_SEL_MAX_MS * 1.6)
			goto bad;
	} else if (strlen(s) > 8) {
		if (exp_sel_iso(s, &v) != 0)
			goto bad;
	} else {
		t = (time_t)(start_ms / 1000);
		if (localtime_r(&t, &tm) == NULL ||
		    (n = exp_sel_clock(s, &tm)) < 0 || s[n] != '\0')
			goto bad;
		tm.tm_isdst = -1;
		if ((t = mktime(&tm)) == (time_t)-1)
			goto bad;
		v = (double)t * 1000;
		if (v < (double)start_ms - 1000 &&
		    v + 86400e3 <= (double)end_ms)
			v += 86400e3;
	}
	*out = v < 0 ? 0 : (uint64_t)v;
	return 0;
bad:
	exp_sel_quote(q, sizeof(q), s, 40);
	snprintf(err, errlen, "\"%s\" is not a time (give +5m from the "
	    "start, -10m before the end, 12:30[:00], 2026-11-25T12:30:00Z or "
	    "@UNIXSECONDS)", q);
	return -1;
}

struct exp_fields *
exp_fields_parse(const char *list, char *err, size_t errlen)
{
	struct exp_fields	*fl;
	const char		*p, *q;
	char			 shown[64];
	size_t			 len, i;

	fl = xcalloc(1, sizeof(*fl));
	for (p = list;; p = q + 1) {
		q = strchr(p, ',');
		len = q != NULL ? (size_t)(q - p) : strlen(p);
		if (len == 0 || len > 128) {
			exp_sel_quote(shown, sizeof(shown), list, 60);
			snprintf(err, errlen, "--fields: %s in \"%s\"",
			    len == 0 ? "an empty name" : "a name too long",
			    shown);
			goto bad;
		}
		for (i = 0; i < len; i++) {
			if (!isalnum((unsigned char)p[i]) &&
			    strchr("_.*?[]!-", p[i]) == NULL) {
				exp_sel_quote(shown, sizeof(shown), p,
				    len);
				snprintf(err, errlen, "--fields: \"%s\" is "
				    "not a metric name or glob (like cpu.*, "
				    "rank.cpu)", shown);
				goto bad;
			}
		}
		fl->globs = xreallocarray(fl->globs, fl->n + 1,
		    sizeof(*fl->globs));
		fl->globs[fl->n++] = xstrndup(p, len);
		if (q == NULL)
			break;
	}
	return fl;
bad:
	exp_fields_free(fl);
	return NULL;
}

void
exp_fields_free(struct exp_fields *fl)
{
	size_t	i;

	if (fl == NULL)
		return;
	for (i = 0; i < fl->n; i++)
		free(fl->globs[i]);
	free(fl->globs);
	free(fl);
}

int
exp_fields_match(const struct exp_fields *fl, const char *group,
    const char *field)
{
	char	name[160];
	size_t	i;

	if (fl == NULL)
		return 1;
	snprintf(name, sizeof(name), "%s.%s", group, field);
	for (i = 0; i < fl->n; i++)
		if (fnmatch(fl->globs[i], name, 0) == 0)
			return 1;
	return 0;
}
