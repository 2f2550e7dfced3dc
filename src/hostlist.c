/* SPDX-License-Identifier: ISC */
/*
 * hostlist: expand and fold Slurm/ClusterShell host list expressions.
 *
 * A name is seen the way ClusterShell sees it: a pattern (the name with
 * every run of digits replaced by "%s") and a vector of indexes (the digit
 * runs, kept as text so "01" and "1" stay different names).  The set is
 * sorted by pattern, then by each index (shorter first, then by text), which
 * is nodeset(1)'s order, and folding groups names by pattern: one digit run
 * folds into "[1-3,7]", several are folded axis by axis ("rack[1-2]-n[1-4]").
 *
 * Expansion follows ClusterShell's parser, including its less obvious
 * rules: digits right after "]" join that bracket's numbers
 * ("n[1-2]0" is n10,n20), digits right before "[" are prefixed to each
 * contiguous run ("n1[8-12]" is n18..n112), a bracket may not follow a
 * bracket, and padding must agree on both ends of a range.
 *
 * Names live in fixed-size blocks that never move, so the sorted array of
 * pointers stays valid while blocks are added.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

#define HL_BLOCK	65536
#define HL_MAXDIGITS	18	/* numbers in ranges stay below 10^18 */

struct hostlist_block {
	struct hostlist_block	*next;
	size_t			 used;
	char			 data[HL_BLOCK];
};

struct hostlist {
	struct hostlist_block	*blocks;
	char			**names;
	size_t			 n;
	size_t			 cap;
	size_t			 nsorted;	/* names[0..nsorted) in order */
	size_t			 limit;
	int			 ordered;	/* hostlist_keep_order */
};

/* One digit run (an index) or one generated number, as text. */
struct hostlist_idx {
	const char	*s;
	size_t		 len;
};

/* One "lo-hi/step" piece of a bracket, with ClusterShell's padding. */
struct hostlist_range {
	uint64_t	 lo;
	uint64_t	 hi;
	uint64_t	 step;
	int		 pad;
};

struct hostlist_rset {
	struct hostlist_range	*r;
	size_t			 n;
	size_t			 cap;
};

/* A literal followed by an optional bracket (rs.n == 0: none). */
struct hostlist_part {
	const char		*lit;
	size_t			 litlen;
	struct hostlist_rset	 rs;
};

/* One comma-separated item of an expression, parsed. */
struct hostlist_item {
	struct hostlist_part	*parts;
	size_t			 nparts;
	uint64_t		 count;
	size_t			 maxlen;
};

/* Generated numbers of one bracket, as text. */
struct hostlist_elems {
	char			*buf;
	struct hostlist_idx	*v;
	size_t			 n;
};

/* A growing string. */
struct hostlist_buf {
	char		*s;
	size_t		 len;
	size_t		 cap;
};

/* A set of indexes of one axis in an n-dimensional fold. */
struct hostlist_iset {
	struct hostlist_idx	*v;
	size_t			 n;
	int			 owned;
};

struct hostlist_vec {
	struct hostlist_iset	*dim;
	uint64_t		 size;
	int			 dead;
};

static int	hostlist_err(char *, size_t, int, const char *, ...)
		    __attribute__((format(printf, 4, 5)));

/* The axis hostlist_vec_cmp_other skips, and how many there are. */
static int	hostlist_fold_dim;
static int	hostlist_fold_ndim;

static int
hostlist_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

/* Format an error message into err, if there is room for one. */
static int
hostlist_err(char *err, size_t errsz, int code, const char *fmt, ...)
{
	va_list	ap;

	if (err != NULL && errsz > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return code;
}

const char *
hostlist_strerror(int code)
{
	switch (code) {
	case HL_OK:
		return "success";
	case HL_ENOMEM:
		return "out of memory";
	case HL_ESYNTAX:
		return "syntax error in host list";
	case HL_ERANGE:
		return "bad range in host list";
	case HL_ETOOMANY:
		return "host list too large";
	case HL_ETOOLONG:
		return "host name too long";
	case HL_EEMPTY:
		return "empty host list";
	}
	return "unknown host list error";
}

struct hostlist *
hostlist_new(void)
{
	struct hostlist	*hl;

	if ((hl = calloc(1, sizeof(*hl))) == NULL)
		return NULL;
	hl->limit = HOSTLIST_MAX_NAMES;
	return hl;
}

void
hostlist_free(struct hostlist *hl)
{
	struct hostlist_block	*b, *next;

	if (hl == NULL)
		return;
	for (b = hl->blocks; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	free(hl->names);
	free(hl);
}

void
hostlist_set_limit(struct hostlist *hl, size_t limit)
{
	hl->limit = limit;
}

void
hostlist_keep_order(struct hostlist *hl)
{
	hl->ordered = 1;
}

/* Copy a name into block storage and append it to the unsorted tail. */
static int
hostlist_append(struct hostlist *hl, const char *s, size_t len)
{
	struct hostlist_block	*b;
	char		**nv;
	size_t		  ncap;

	if (hl->n == hl->cap) {
		ncap = hl->cap == 0 ? 64 : hl->cap * 2;
		if ((nv = realloc(hl->names, ncap * sizeof(*nv))) == NULL)
			return HL_ENOMEM;
		hl->names = nv;
		hl->cap = ncap;
	}
	b = hl->blocks;
	if (b == NULL || HL_BLOCK - b->used < len + 1) {
		if ((b = malloc(sizeof(*b))) == NULL)
			return HL_ENOMEM;
		b->used = 0;
		b->next = hl->blocks;
		hl->blocks = b;
	}
	memcpy(b->data + b->used, s, len);
	b->data[b->used + len] = '\0';
	hl->names[hl->n++] = b->data + b->used;
	b->used += len + 1;
	return HL_OK;
}

/*
 * Next character of a name's pattern: digit runs read as "%s" and '%' as
 * "%%", as in ClusterShell's pattern strings.  -1 at the end.
 */
static int
hostlist_pat_next(const char **pp, const char **pend)
{
	int	c;

	if (**pend != '\0')
		return (unsigned char)*(*pend)++;
	if (**pp == '\0')
		return -1;
	c = (unsigned char)*(*pp)++;
	if (hostlist_isdigit(c)) {
		while (hostlist_isdigit(**pp))
			(*pp)++;
		*pend = "s";
		return '%';
	}
	if (c == '%') {
		*pend = "%";
		return '%';
	}
	return c;
}

/* Compare two indexes: shorter first, then by text. */
static int
hostlist_idx_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

/* Compare two patterns only. */
static int
hostlist_pat_cmp(const char *a, const char *b)
{
	const char	*pa = a, *pb = b, *ea = "", *eb = "";
	int		 ca, cb;

	do {
		ca = hostlist_pat_next(&pa, &ea);
		cb = hostlist_pat_next(&pb, &eb);
		if (ca != cb)
			return ca < cb ? -1 : 1;
	} while (ca != -1);
	return 0;
}

/* The nodeset(1) order: pattern first, then each index in turn. */
static int
hostlist_name_cmp(const char *a, const char *b)
{
	size_t	la, lb;
	int	r;

	if ((r = hostlist_pat_cmp(a, b)) != 0)
		return r;
	for (;;) {
		while (*a != '\0' && !hostlist_isdigit((unsigned char)*a))
			a++;
		while (*b != '\0' && !hostlist_isdigit((unsigned char)*b))
			b++;
		if (*a == '\0' || *b == '\0')
			return 0;
		for (la = 0; hostlist_isdigit((unsigned char)a[la]); la++)
			;
		for (lb = 0; hostlist_isdigit((unsigned char)b[lb]); lb++)
			;
		if ((r = hostlist_idx_cmp(a, la, b, lb)) != 0)
			return r;
		a += la;
		b += lb;
	}
}

static int
hostlist_qsort_cmp(const void *a, const void *b)
{
	return hostlist_name_cmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and deduplicate everything added since the last call. */
static void
hostlist_normalize(struct hostlist *hl)
{
	size_t	i, o;

	if (hl->nsorted == hl->n || hl->ordered)
		return;
	qsort(hl->names, hl->n, sizeof(*hl->names), hostlist_qsort_cmp);
	for (i = o = 0; i < hl->n; i++) {
		if (o > 0 && strcmp(hl->names[o - 1], hl->names[i]) == 0)
			continue;
		hl->names[o++] = hl->names[i];
	}
	hl->n = hl->nsorted = o;
}

size_t
hostlist_count(struct hostlist *hl)
{
	hostlist_normalize(hl);
	return hl->n;
}

const char *
hostlist_get(struct hostlist *hl, size_t i)
{
	hostlist_normalize(hl);
	return i < hl->n ? hl->names[i] : NULL;
}

/* Binary search of the sorted part only. */
static long
hostlist_find_sorted(const struct hostlist *hl, const char *name)
{
	size_t	lo, hi, mid;
	int	r;

	lo = 0;
	hi = hl->nsorted;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = hostlist_name_cmp(name, hl->names[mid]);
		if (r == 0)
			return (long)mid;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

long
hostlist_find(struct hostlist *hl, const char *name)
{
	size_t	i;

	/* A list in its writer's order: the first of that name. */
	if (hl->ordered) {
		for (i = 0; i < hl->n; i++)
			if (strcmp(hl->names[i], name) == 0)
				return (long)i;
		return -1;
	}
	hostlist_normalize(hl);
	return hostlist_find_sorted(hl, name);
}

/* Make room for add more names, or say why not. */
static int
hostlist_check_room(struct hostlist *hl, uint64_t add, char *err, size_t errsz)
{
	if (add <= hl->limit && hl->n <= hl->limit - add)
		return HL_OK;
	hostlist_normalize(hl);
	if (add <= hl->limit && hl->n <= hl->limit - add)
		return HL_OK;
	return hostlist_err(err, errsz, HL_ETOOMANY,
	    "host list has more than %zu names", hl->limit);
}

/* Check one literal name. */
static int
hostlist_check_name(const char *s, size_t len, char *err, size_t errsz)
{
	size_t	i;

	if (len == 0)
		return hostlist_err(err, errsz, HL_EEMPTY, "empty host name");
	if (len > HOSTLIST_MAX_NAME)
		return hostlist_err(err, errsz, HL_ETOOLONG,
		    "host name longer than %d bytes: \"%.32s...\"",
		    HOSTLIST_MAX_NAME, s);
	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return hostlist_err(err, errsz, HL_ESYNTAX,
			    "white space or control character in host name");
	}
	return HL_OK;
}

int
hostlist_push_name(struct hostlist *hl, const char *name, char *err,
    size_t errsz)
{
	size_t	len = strlen(name);
	int	r;

	if ((r = hostlist_check_name(name, len, err, errsz)) != HL_OK)
		return r;
	if ((r = hostlist_check_room(hl, 1, err, errsz)) != HL_OK)
		return hostlist_find(hl, name) >= 0 ? HL_OK : r;
	if ((r = hostlist_append(hl, name, len)) != HL_OK)
		return hostlist_err(err, errsz, r, "out of memory");
	return HL_OK;
}

int
hostlist_merge(struct hostlist *dst, struct hostlist *src)
{
	size_t	i, n0;
	int	r;

	hostlist_normalize(src);
	if ((r = hostlist_check_room(dst, src->n, NULL, 0)) != HL_OK)
		return r;
	n0 = dst->n;
	for (i = 0; i < src->n; i++) {
		if ((r = hostlist_append(dst, src->names[i],
		    strlen(src->names[i]))) != HL_OK) {
			dst->n = n0;
			return r;
		}
	}
	return HL_OK;
}

static void
hostlist_buf_free(struct hostlist_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static int
hostlist_buf_add(struct hostlist_buf *b, const char *s, size_t len)
{
	size_t	 ncap;
	char	*ns;

	if (b->len + len + 1 > b->cap) {
		ncap = b->cap == 0 ? 64 : b->cap;
		while (ncap < b->len + len + 1)
			ncap *= 2;
		if ((ns = realloc(b->s, ncap)) == NULL)
			return HL_ENOMEM;
		b->s = ns;
		b->cap = ncap;
	}
	if (len > 0)
		memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
	return HL_OK;
}

static int
hostlist_buf_addc(struct hostlist_buf *b, char c)
{
	return hostlist_buf_add(b, &c, 1);
}

static void
hostlist_rset_free(struct hostlist_rset *rs)
{
	free(rs->r);
	rs->r = NULL;
	rs->n = rs->cap = 0;
}

static int
hostlist_rset_add(struct hostlist_rset *rs, uint64_t lo, uint64_t hi,
    uint64_t step, int pad)
{
	struct hostlist_range	*nr;
	size_t		 ncap;

	if (rs->n == rs->cap) {
		ncap = rs->cap == 0 ? 4 : rs->cap * 2;
		if ((nr = realloc(rs->r, ncap * sizeof(*nr))) == NULL)
			return HL_ENOMEM;
		rs->r = nr;
		rs->cap = ncap;
	}
	rs->r[rs->n].lo = lo;
	rs->r[rs->n].hi = hi;
	rs->r[rs->n].step = step;
	rs->r[rs->n].pad = pad;
	rs->n++;
	return HL_OK;
}

/* Number of values a bracket stands for, saturating at UINT64_MAX. */
static uint64_t
hostlist_rset_count(const struct hostlist_rset *rs)
{
	uint64_t	c = 0, k;
	size_t		i;

	for (i = 0; i < rs->n; i++) {
		k = (rs->r[i].hi - rs->r[i].lo) / rs->r[i].step + 1;
		if (c > UINT64_MAX - k)
			return UINT64_MAX;
		c += k;
	}
	return c;
}

static size_t
hostlist_ndigits(uint64_t v)
{
	size_t	n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Longest number a bracket writes. */
static size_t
hostlist_rset_maxlen(const struct hostlist_rset *rs)
{
	size_t	i, m = 0, l;

	for (i = 0; i < rs->n; i++) {
		l = hostlist_ndigits(rs->r[i].hi);
		if ((size_t)rs->r[i].pad > l)
			l = (size_t)rs->r[i].pad;
		if (l > m)
			m = l;
	}
	return m;
}

/* Blanks between names: space, tab, newline (as Slurm reads them). */
static int
hostlist_isblank(int c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Trim blanks from both ends of s[0..*len). */
static const char *
hostlist_trim(const char *s, size_t *len)
{
	while (*len > 0 && hostlist_isblank((unsigned char)*s)) {
		s++;
		(*len)--;
	}
	while (*len > 0 && hostlist_isblank((unsigned char)s[*len - 1]))
		(*len)--;
	return s;
}

/* Parse a decimal number of at most HL_MAXDIGITS digits. */
static int
hostlist_number(const char *s, size_t len, uint64_t *out)
{
	uint64_t	v = 0;
	size_t		i;

	if (len == 0 || len > HL_MAXDIGITS)
		return -1;
	for (i = 0; i < len; i++) {
		if (!hostlist_isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Padding of a range bound: its length if it has a leading zero. */
static int
hostlist_bound_pad(const char *s, size_t len)
{
	return (len > 1 && s[0] == '0') ? (int)len : 0;
}

/*
 * Parse the inside of a bracket ("1-3,07,10-20/2") into ranges, with
 * ClusterShell's rules on padding and steps.
 */
static int
hostlist_rset_parse(const char *s, size_t len, struct hostlist_rset *rs,
    char *err, size_t errsz)
{
	const char	*sub, *end = s + len, *comma, *slash, *dash, *b, *e;
	size_t		 sublen, blen, elen;
	uint64_t	 lo, hi, step;
	int		 pad, endpad;

	rs->n = 0;
	for (sub = s; sub <= end; sub = comma + 1) {
		if ((comma = memchr(sub, ',', (size_t)(end - sub))) == NULL)
			comma = end;
		sublen = (size_t)(comma - sub);
		sub = hostlist_trim(sub, &sublen);
		if (sublen == 0)
			return hostlist_err(err, errsz, HL_ERANGE,
			    "empty range in \"[%.*s]\"", (int)len, s);
		step = 1;
		if ((slash = memchr(sub, '/', sublen)) != NULL) {
			b = slash + 1;
			blen = (size_t)(sub + sublen - b);
			b = hostlist_trim(b, &blen);
			if (hostlist_number(b, blen, &step) == -1 || step < 1)
				return hostlist_err(err, errsz, HL_ERANGE,
				    "bad step in \"%.*s\"", (int)sublen, sub);
			sublen = (size_t)(slash - sub);
		}
		if ((dash = memchr(sub, '-', sublen)) == NULL) {
			if (slash != NULL && step != 1)
				return hostlist_err(err, errsz, HL_ERANGE,
				    "step without a range in \"%.*s\"",
				    (int)(comma - sub), sub);
			blen = sublen;
			b = hostlist_trim(sub, &blen);
			e = b;
			elen = blen;
		} else {
			b = sub;
			blen = (size_t)(dash - sub);
			e = dash + 1;
			elen = (size_t)(sub + sublen - e);
			b = hostlist_trim(b, &blen);
			e = hostlist_trim(e, &elen);
			if (blen == 0 || memchr(e, '-', elen) != NULL)
				return hostlist_err(err, errsz, HL_ERANGE,
				    "bad range \"%.*s\" (negative numbers are "
				    "not supported)", (int)sublen, sub);
		}
		if (hostlist_number(b, blen, &lo) == -1 ||
		    hostlist_number(e, elen, &hi) == -1) {
			if ((blen > HL_MAXDIGITS || elen > HL_MAXDIGITS))
				return hostlist_err(err, errsz, HL_ERANGE,
				    "number too large in \"%.*s\"",
				    (int)sublen, sub);
			return hostlist_err(err, errsz, HL_ERANGE,
			    "not a number or range: \"%.*s\"", (int)sublen,
			    sub);
		}
		pad = hostlist_bound_pad(b, blen);
		endpad = (hi != 0) ? hostlist_bound_pad(e, elen) : 0;
		if ((pad > 0 || endpad > 0) && blen != elen)
			return hostlist_err(err, errsz, HL_ERANGE,
			    "padding length mismatch in \"%.*s\"",
			    (int)sublen, sub);
		if (lo > hi)
			return hostlist_err(err, errsz, HL_ERANGE,
			    "reversed range \"%.*s\"", (int)sublen, sub);
		if (hostlist_rset_add(rs, lo, hi, step, pad) != HL_OK)
			return hostlist_err(err, errsz, HL_ENOMEM,
			    "out of memory");
		if (comma == end)
			break;
	}
	return HL_OK;
}

static void
hostlist_elems_free(struct hostlist_elems *el)
{
	free(el->buf);
	free(el->v);
	memset(el, 0, sizeof(*el));
}

/* Write every number of a bracket as text; the count was checked. */
static int
hostlist_elems_make(const struct hostlist_rset *rs, struct hostlist_elems *el)
{
	uint64_t	count = hostlist_rset_count(rs), v;
	size_t		width = hostlist_rset_maxlen(rs) + 1, i, k, off;
	int		len;

	memset(el, 0, sizeof(*el));
	if ((el->buf = calloc(count, width)) == NULL ||
	    (el->v = calloc(count, sizeof(*el->v))) == NULL) {
		hostlist_elems_free(el);
		return HL_ENOMEM;
	}
	k = off = 0;
	for (i = 0; i < rs->n; i++) {
		for (v = rs->r[i].lo; ; v += rs->r[i].step) {
			len = snprintf(el->buf + off, width, "%0*llu",
			    rs->r[i].pad, (unsigned long long)v);
			el->v[k].s = el->buf + off;
			el->v[k].len = (size_t)len;
			k++;
			off += width;
			if (rs->r[i].hi - v < rs->r[i].step)
				break;
		}
	}
	el->n = k;
	return HL_OK;
}

static int
hostlist_idx_qsort_cmp(const void *a, const void *b)
{
	const struct hostlist_idx	*x = a, *y = b;

	return hostlist_idx_cmp(x->s, x->len, y->s, y->len);
}

/* Sort indexes in nodeset order and drop duplicates. */
static size_t
hostlist_idx_sort_uniq(struct hostlist_idx *v, size_t n)
{
	size_t	i, o;

	qsort(v, n, sizeof(*v), hostlist_idx_qsort_cmp);
	for (i = o = 0; i < n; i++) {
		if (o > 0 && hostlist_idx_cmp(v[o - 1].s, v[o - 1].len, v[i].s,
		    v[i].len) == 0)
			continue;
		v[o++] = v[i];
	}
	return o;
}

/* Does b hold the number right after a's? */
static int
hostlist_is_succ(const struct hostlist_idx *a, const struct hostlist_idx *b)
{
	char		 buf[HOSTLIST_MAX_NAME + 2];
	const char	*as = a->s, *bs = b->s, *p;
	size_t		 al = a->len, bl = b->len, n;
	size_t		 i;

	while (al > 0 && *as == '0') {
		as++;
		al--;
	}
	while (bl > 0 && *bs == '0') {
		bs++;
		bl--;
	}
	if (al + 1 > sizeof(buf) - 1)
		return 0;
	buf[0] = '0';
	memcpy(buf + 1, as, al);
	n = al + 1;
	for (i = n - 1; ; i--) {
		if (buf[i] != '9') {
			buf[i]++;
			break;
		}
		buf[i] = '0';
		if (i == 0)
			break;
	}
	p = buf;
	while (n > 0 && *p == '0') {
		p++;
		n--;
	}
	return n == bl && memcmp(p, bs, n) == 0;
}

static int
hostlist_idx_padded(const struct hostlist_idx *x)
{
	return x->len > 1 && x->s[0] == '0';
}

/*
 * Write sorted indexes as "a-b,c": runs of consecutive numbers whose
 * padding agrees, as ClusterShell's RangeSet prints them.  Each bound gets
 * pfx in front (for leading-digit amendment; NULL for none).
 */
static int
hostlist_emit_runs(struct hostlist_buf *out, const struct hostlist_idx *v,
    size_t n, const char *pfx, size_t pfxlen)
{
	size_t	i, j;
	int	padded;

	for (i = 0; i < n; i = j) {
		padded = hostlist_idx_padded(&v[i]);
		for (j = i + 1; j < n; j++) {
			if (padded ? v[j].len != v[i].len :
			    hostlist_idx_padded(&v[j]))
				break;
			if (!hostlist_is_succ(&v[j - 1], &v[j]))
				break;
		}
		if (i > 0 && hostlist_buf_addc(out, ',') != HL_OK)
			return HL_ENOMEM;
		if (hostlist_buf_add(out, pfx, pfxlen) != HL_OK ||
		    hostlist_buf_add(out, v[i].s, v[i].len) != HL_OK)
			return HL_ENOMEM;
		if (j - 1 > i) {
			if (hostlist_buf_addc(out, '-') != HL_OK ||
			    hostlist_buf_add(out, pfx, pfxlen) != HL_OK ||
			    hostlist_buf_add(out, v[j - 1].s, v[j - 1].len) !=
			    HL_OK)
				return HL_ENOMEM;
		}
	}
	return HL_OK;
}

/*
 * Digits right after "]" belong to that bracket: each bound gets them
 * appended and a range gets a step of 10^k ("1-3" + "0" is "10-30/10").
 */
static int
hostlist_amend_trailing(const char *rng, size_t len, const char *d, size_t dlen,
    struct hostlist_buf *out, char *err, size_t errsz)
{
	const char	*p, *end = rng + len, *comma, *dash;
	size_t		 i;
	int		 ranged;

	if (memchr(rng, '/', len) != NULL)
		return hostlist_err(err, errsz, HL_ERANGE,
		    "digits after a range with steps: \"[%.*s]%.*s\"",
		    (int)len, rng, (int)dlen, d);
	for (p = rng; p <= end; p = comma + 1) {
		if ((comma = memchr(p, ',', (size_t)(end - p))) == NULL)
			comma = end;
		if (p != rng && hostlist_buf_addc(out, ',') != HL_OK)
			return HL_ENOMEM;
		ranged = 0;
		while ((dash = memchr(p, '-', (size_t)(comma - p))) != NULL) {
			if (hostlist_buf_add(out, p, (size_t)(dash - p)) !=
			    HL_OK ||
			    hostlist_buf_add(out, d, dlen) != HL_OK ||
			    hostlist_buf_addc(out, '-') != HL_OK)
				return HL_ENOMEM;
			p = dash + 1;
			ranged = 1;
		}
		if (hostlist_buf_add(out, p, (size_t)(comma - p)) != HL_OK ||
		    hostlist_buf_add(out, d, dlen) != HL_OK)
			return HL_ENOMEM;
		if (ranged) {
			if (hostlist_buf_add(out, "/1", 2) != HL_OK)
				return HL_ENOMEM;
			for (i = 0; i < dlen; i++)
				if (hostlist_buf_addc(out, '0') != HL_OK)
					return HL_ENOMEM;
		}
		if (comma == end)
			break;
	}
	return HL_OK;
}

/*
 * Digits right before "[" are put in front of both bounds of every
 * contiguous run of the bracket ("1" + "8-12" is "18-112").
 */
static int
hostlist_amend_leading(const char *rng, size_t len, const char *d, size_t dlen,
    size_t limit, struct hostlist_buf *out, char *err, size_t errsz)
{
	struct hostlist_rset	 rs;
	struct hostlist_elems	 el;
	size_t		 n;
	int		 r;

	memset(&rs, 0, sizeof(rs));
	if ((r = hostlist_rset_parse(rng, len, &rs, err, errsz)) != HL_OK)
		goto out;
	if (hostlist_rset_count(&rs) > limit) {
		r = hostlist_err(err, errsz, HL_ETOOMANY,
		    "range \"[%.*s]\" has more than %zu numbers", (int)len,
		    rng, limit);
		goto out;
	}
	if ((r = hostlist_elems_make(&rs, &el)) != HL_OK) {
		r = hostlist_err(err, errsz, r, "out of memory");
		goto out;
	}
	n = hostlist_idx_sort_uniq(el.v, el.n);
	if ((r = hostlist_emit_runs(out, el.v, n, d, dlen)) != HL_OK)
		r = hostlist_err(err, errsz, r, "out of memory");
	hostlist_elems_free(&el);
out:
	hostlist_rset_free(&rs);
	return r;
}

static void
hostlist_item_free(struct hostlist_item *it)
{
	size_t	i;

	for (i = 0; i < it->nparts; i++)
		hostlist_rset_free(&it->parts[i].rs);
	free(it->parts);
	memset(it, 0, sizeof(*it));
}

static int
hostlist_item_add(struct hostlist_item *it, const char *lit, size_t litlen,
    struct hostlist_rset *rs)
{
	struct hostlist_part	*np;

	np = realloc(it->parts, (it->nparts + 1) * sizeof(*np));
	if (np == NULL)
		return HL_ENOMEM;
	it->parts = np;
	np[it->nparts].lit = lit;
	np[it->nparts].litlen = litlen;
	if (rs != NULL) {
		np[it->nparts].rs = *rs;
		memset(rs, 0, sizeof(*rs));
	} else
		memset(&np[it->nparts].rs, 0, sizeof(np[it->nparts].rs));
	it->nparts++;
	return HL_OK;
}

/* Characters refused outside brackets, and why. */
static int
hostlist_check_chars(const char *s, size_t len, char *err, size_t errsz)
{
	size_t	i;
	int	depth = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']')
			depth--;
		else if ((unsigned char)s[i] < ' ' || s[i] == 0x7f)
			return hostlist_err(err, errsz, HL_ESYNTAX,
			    "control character in host list");
		else if (depth == 0 && s[i] == ' ')
			return hostlist_err(err, errsz, HL_ESYNTAX,
			    "white space inside a host name: \"%.*s\"",
			    (int)len, s);
		else if (strchr("!&^@", s[i]) != NULL)
			return hostlist_err(err, errsz, HL_ESYNTAX,
			    "'%c' (ClusterShell set operators and groups) is "
			    "not supported: \"%.*s\"", s[i], (int)len, s);
	}
	return HL_OK;
}

/*
 * Parse one comma-separated item ("rack[1-2]-node[01-03]") into literals
 * and brackets, and work out how many names it gives and how long the
 * longest is.
 */
static int
hostlist_item_parse(const char *s, size_t len, size_t limit,
    struct hostlist_item *it, char *err, size_t errsz)
{
	struct hostlist_buf	 rng;
	struct hostlist_rset	 rs;
	const char	*rest = s, *end = s + len, *ob, *cb, *pfx, *sfx, *q;
	size_t		 pfxlen, dl, i;
	uint64_t	 k;
	int		 r;

	memset(it, 0, sizeof(*it));
	memset(&rng, 0, sizeof(rng));
	memset(&rs, 0, sizeof(rs));
	if ((r = hostlist_check_chars(s, len, err, errsz)) != HL_OK)
		return r;
	while (rest < end) {
		ob = memchr(rest, '[', (size_t)(end - rest));
		cb = memchr(rest, ']', (size_t)(end - rest));
		if (cb != NULL && (ob == NULL || cb < ob)) {
			r = hostlist_err(err, errsz, HL_ESYNTAX,
			    "unbalanced ']' in \"%.*s\"", (int)len, s);
			goto fail;
		}
		if (ob == NULL) {
			if ((r = hostlist_item_add(it, rest,
			    (size_t)(end - rest), NULL)) != HL_OK)
				goto nomem;
			break;
		}
		if (cb == NULL) {
			r = hostlist_err(err, errsz, HL_ESYNTAX,
			    "missing ']' in \"%.*s\"", (int)len, s);
			goto fail;
		}
		if (memchr(ob + 1, '[', (size_t)(cb - ob - 1)) != NULL) {
			r = hostlist_err(err, errsz, HL_ESYNTAX,
			    "nested '[' in \"%.*s\"", (int)len, s);
			goto fail;
		}
		pfx = rest;
		pfxlen = (size_t)(ob - rest);
		sfx = cb + 1;
		rng.len = 0;
		if (hostlist_buf_add(&rng, ob + 1, (size_t)(cb - ob - 1)) !=
		    HL_OK)
			goto nomem;

		for (q = sfx; q < end && hostlist_isdigit((unsigned char)*q);
		    q++)
			;
		if (q > sfx) {
			struct hostlist_buf	 t;

			memset(&t, 0, sizeof(t));
			r = hostlist_amend_trailing(rng.s, rng.len, sfx,
			    (size_t)(q - sfx), &t, err, errsz);
			hostlist_buf_free(&rng);
			rng = t;
			if (r != HL_OK)
				goto fail;
			sfx = q;
		}
		for (dl = 0; dl < pfxlen &&
		    hostlist_isdigit((unsigned char)pfx[pfxlen - 1 - dl]); dl++)
			;
		if (dl > 0) {
			struct hostlist_buf	 t;

			memset(&t, 0, sizeof(t));
			r = hostlist_amend_leading(rng.s, rng.len,
			    pfx + pfxlen - dl, dl, limit, &t, err, errsz);
			hostlist_buf_free(&rng);
			rng = t;
			if (r != HL_OK)
				goto fail;
			pfxlen -= dl;
		}
		if (sfx < end && *sfx == '[') {
			r = hostlist_err(err, errsz, HL_ESYNTAX,
			    "a bracket may not follow a bracket in \"%.*s\"",
			    (int)len, s);
			goto fail;
		}
		if ((r = hostlist_rset_parse(rng.s != NULL ? rng.s : "",
		    rng.len, &rs, err, errsz)) != HL_OK)
			goto fail;
		if ((r = hostlist_item_add(it, pfx, pfxlen, &rs)) != HL_OK)
			goto nomem;
		rest = sfx;
	}
	hostlist_buf_free(&rng);

	it->count = 1;
	it->maxlen = 0;
	for (i = 0; i < it->nparts; i++) {
		it->maxlen += it->parts[i].litlen;
		if (it->parts[i].rs.n == 0)
			continue;
		it->maxlen += hostlist_rset_maxlen(&it->parts[i].rs);
		k = hostlist_rset_count(&it->parts[i].rs);
		if (k > limit || it->count > limit / k)
			it->count = (uint64_t)limit + 1;
		else
			it->count *= k;
	}
	if (it->maxlen > HOSTLIST_MAX_NAME) {
		r = hostlist_err(err, errsz, HL_ETOOLONG,
		    "\"%.*s\" gives names longer than %d bytes",
		    len > 40 ? 40 : (int)len, s, HOSTLIST_MAX_NAME);
		hostlist_item_free(it);
		return r;
	}
	return HL_OK;

nomem:
	r = hostlist_err(err, errsz, HL_ENOMEM, "out of memory");
fail:
	hostlist_buf_free(&rng);
	hostlist_rset_free(&rs);
	hostlist_item_free(it);
	return r;
}

/* Append every name of a parsed item (the room was checked). */
static int
hostlist_item_generate(struct hostlist *hl, const struct hostlist_item *it)
{
	struct hostlist_elems	*el;
	size_t		*pos, i, len;
	char		 name[HOSTLIST_MAX_NAME + 1];
	int		 r = HL_OK;

	el = calloc(it->nparts, sizeof(*el));
	pos = calloc(it->nparts, sizeof(*pos));
	if (el == NULL || pos == NULL) {
		r = HL_ENOMEM;
		goto out;
	}
	for (i = 0; i < it->nparts; i++) {
		if (it->parts[i].rs.n > 0 &&
		    (r = hostlist_elems_make(&it->parts[i].rs, &el[i])) !=
		    HL_OK)
			goto out;
	}
	for (;;) {
		len = 0;
		for (i = 0; i < it->nparts; i++) {
			memcpy(name + len, it->parts[i].lit,
			    it->parts[i].litlen);
			len += it->parts[i].litlen;
			if (it->parts[i].rs.n == 0)
				continue;
			memcpy(name + len, el[i].v[pos[i]].s,
			    el[i].v[pos[i]].len);
			len += el[i].v[pos[i]].len;
		}
		if ((r = hostlist_append(hl, name, len)) != HL_OK)
			goto out;
		/* Odometer: the last bracket turns fastest. */
		for (i = it->nparts; i > 0; i--) {
			if (it->parts[i - 1].rs.n == 0)
				continue;
			if (++pos[i - 1] < el[i - 1].n)
				break;
			pos[i - 1] = 0;
		}
		if (i == 0)
			break;
	}
out:
	if (el != NULL) {
		for (i = 0; i < it->nparts; i++)
			hostlist_elems_free(&el[i]);
	}
	free(el);
	free(pos);
	return r;
}

/*
 * Near the limit, names already in the set do not count: generate into a
 * scratch set and add only the new names, if they fit.
 */
static int
hostlist_push_near_limit(struct hostlist *hl, struct hostlist_item *items,
    size_t nitems, char *err, size_t errsz)
{
	struct hostlist	*tmp;
	size_t		 i, fresh = 0, n0 = hl->n;
	int		 r = HL_OK;

	if ((tmp = hostlist_new()) == NULL)
		return hostlist_err(err, errsz, HL_ENOMEM, "out of memory");
	for (i = 0; i < nitems && r == HL_OK; i++)
		r = hostlist_item_generate(tmp, &items[i]);
	if (r != HL_OK) {
		hostlist_free(tmp);
		return hostlist_err(err, errsz, r, "out of memory");
	}
	hostlist_normalize(tmp);
	hostlist_normalize(hl);
	for (i = 0; i < tmp->n; i++)
		if (hostlist_find_sorted(hl, tmp->names[i]) < 0)
			fresh++;
	if (hl->n + fresh > hl->limit) {
		hostlist_free(tmp);
		return hostlist_err(err, errsz, HL_ETOOMANY,
		    "host list has more than %zu names", hl->limit);
	}
	for (i = 0; i < tmp->n; i++) {
		if (hostlist_find_sorted(hl, tmp->names[i]) >= 0)
			continue;
		if ((r = hostlist_append(hl, tmp->names[i],
		    strlen(tmp->names[i]))) != HL_OK) {
			hl->n = n0;
			r = hostlist_err(err, errsz, r, "out of memory");
			break;
		}
	}
	hostlist_free(tmp);
	return r;
}

int
hostlist_push(struct hostlist *hl, const char *expr, char *err, size_t errsz)
{
	struct hostlist_item	*items = NULL, *ni;
	const char	*s, *end, *p, *q, *item;
	size_t		 nitems = 0, itemcap = 0, i, len, n0;
	uint64_t	 total = 0;
	int		 depth, r = HL_OK;

	len = strlen(expr);
	s = hostlist_trim(expr, &len);
	if (len == 0)
		return hostlist_err(err, errsz, HL_EEMPTY, "empty host list");
	end = s + len;

	/* Parse every item first: nothing is added unless all are good. */
	for (item = p = s, depth = 0; ; p++) {
		if (p < end && *p == '[')
			depth++;
		else if (p < end && *p == ']')
			depth--;
		if (p < end && (depth > 0 || (*p != ',' &&
		    !hostlist_isblank((unsigned char)*p))))
			continue;
		len = (size_t)(p - item);
		item = hostlist_trim(item, &len);
		if (len == 0) {
			r = hostlist_err(err, errsz, HL_ESYNTAX,
			    "empty item in host list \"%.64s\"", s);
			goto out;
		}
		if (nitems == itemcap) {
			itemcap = itemcap == 0 ? 16 : itemcap * 2;
			ni = realloc(items, itemcap * sizeof(*ni));
			if (ni == NULL) {
				r = hostlist_err(err, errsz, HL_ENOMEM,
				    "out of memory");
				goto out;
			}
			items = ni;
		}
		r = hostlist_item_parse(item, len, hl->limit, &items[nitems],
		    err, errsz);
		if (r != HL_OK)
			goto out;
		total += items[nitems].count;
		nitems++;
		if (total > hl->limit) {
			r = hostlist_err(err, errsz, HL_ETOOMANY,
			    "host list has more than %zu names", hl->limit);
			goto out;
		}
		if (p >= end)
			break;
		/* One separator: blanks, at most one comma, blanks. */
		q = p;
		while (q < end && hostlist_isblank((unsigned char)*q))
			q++;
		if (q < end && *q == ',')
			q++;
		while (q < end && hostlist_isblank((unsigned char)*q))
			q++;
		item = q;
		p = q - 1;
	}
	/* Near the limit a set drops the names it has; a list keeps them
	 * all, so it is simply full. */
	if (hl->ordered && (r = hostlist_check_room(hl, total, err,
	    errsz)) != HL_OK)
		goto out;
	if (hostlist_check_room(hl, total, NULL, 0) != HL_OK) {
		r = hostlist_push_near_limit(hl, items, nitems, err, errsz);
		goto out;
	}
	n0 = hl->n;
	for (i = 0; i < nitems; i++) {
		if ((r = hostlist_item_generate(hl, &items[i])) != HL_OK) {
			hl->n = n0;
			r = hostlist_err(err, errsz, r, "out of memory");
			goto out;
		}
	}
out:
	for (i = 0; i < nitems; i++)
		hostlist_item_free(&items[i]);
	free(items);
	return r;
}

int
hostlist_expand(const char *expr, struct hostlist **out, char *err,
    size_t errsz)
{
	struct hostlist	*hl;
	int		 r;

	*out = NULL;
	if ((hl = hostlist_new()) == NULL)
		return hostlist_err(err, errsz, HL_ENOMEM, "out of memory");
	if ((r = hostlist_push(hl, expr, err, errsz)) != HL_OK) {
		hostlist_free(hl);
		return r;
	}
	*out = hl;
	return HL_OK;
}

/* Find the digit runs of a name; returns how many. */
static size_t
hostlist_runs(const char *s, struct hostlist_idx *runs, size_t max)
{
	size_t	n = 0;

	while (*s != '\0') {
		if (!hostlist_isdigit((unsigned char)*s)) {
			s++;
			continue;
		}
		if (n < max)
			runs[n].s = s;
		while (hostlist_isdigit((unsigned char)*s))
			s++;
		if (n < max)
			runs[n].len = (size_t)(s - runs[n].s);
		n++;
	}
	return n;
}

/* Compare two index sets element by element. */
static int
hostlist_iset_cmp(const struct hostlist_iset *a, const struct hostlist_iset *b)
{
	size_t	i;
	int	r;

	for (i = 0; i < a->n && i < b->n; i++) {
		r = hostlist_idx_cmp(a->v[i].s, a->v[i].len, b->v[i].s,
		    b->v[i].len);
		if (r != 0)
			return r;
	}
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	return 0;
}

/* Order vectors by every axis but hostlist_fold_dim, to find merge partners. */
static int
hostlist_vec_cmp_other(const void *pa, const void *pb)
{
	const struct hostlist_vec	*a = *(struct hostlist_vec *const *)pa;
	const struct hostlist_vec	*b = *(struct hostlist_vec *const *)pb;
	int			 d, r;

	for (d = 0; d < hostlist_fold_ndim; d++) {
		if (d == hostlist_fold_dim)
			continue;
		if ((r = hostlist_iset_cmp(&a->dim[d], &b->dim[d])) != 0)
			return r;
	}
	return 0;
}

/* Plain string order, as Python compares index strings. */
static int
hostlist_str_cmp(const struct hostlist_idx *a, const struct hostlist_idx *b)
{
	size_t	n = a->len < b->len ? a->len : b->len;
	int	r;

	if ((r = memcmp(a->s, b->s, n)) != 0)
		return r;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return 0;
}

/*
 * Output order of folded vectors, after ClusterShell's RangeSetND: larger
 * vectors first, then larger axes, then lower first and last indexes.
 */
static int
hostlist_vec_cmp_out(const void *pa, const void *pb)
{
	const struct hostlist_vec	*a = *(struct hostlist_vec *const *)pa;
	const struct hostlist_vec	*b = *(struct hostlist_vec *const *)pb;
	int			 d, r;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	for (d = 0; d < hostlist_fold_ndim; d++) {
		if (a->dim[d].n != b->dim[d].n)
			return a->dim[d].n > b->dim[d].n ? -1 : 1;
		r = hostlist_str_cmp(&a->dim[d].v[0], &b->dim[d].v[0]);
		if (r != 0)
			return r;
		r = hostlist_str_cmp(&a->dim[d].v[a->dim[d].n - 1],
		    &b->dim[d].v[b->dim[d].n - 1]);
		if (r != 0)
			return r;
	}
	return 0;
}

/*
 * Merge n vectors that agree on every axis but d into the first: axis d
 * becomes the union of theirs (disjoint, since names are unique).
 */
static int
hostlist_vec_merge(struct hostlist_vec **vp, size_t n, int d)
{
	struct hostlist_iset	*dst = &vp[0]->dim[d];
	struct hostlist_idx	*v;
	size_t		 i, k, total = 0;

	for (i = 0; i < n; i++)
		total += vp[i]->dim[d].n;
	if ((v = calloc(total, sizeof(*v))) == NULL)
		return HL_ENOMEM;
	for (i = k = 0; i < n; i++) {
		memcpy(v + k, vp[i]->dim[d].v, vp[i]->dim[d].n * sizeof(*v));
		k += vp[i]->dim[d].n;
		if (i > 0) {
			vp[0]->size += vp[i]->size;
			vp[i]->dead = 1;
		}
	}
	qsort(v, total, sizeof(*v), hostlist_idx_qsort_cmp);
	if (dst->owned)
		free(dst->v);
	dst->v = v;
	dst->n = total;
	dst->owned = 1;
	return HL_OK;
}

/* One merge pass along axis d: 1 if vectors merged, -1 out of memory. */
static int
hostlist_fold_axis(struct hostlist_vec **vp, size_t *nv, int d)
{
	size_t	i, j, k;
	int	changed = 0;

	hostlist_fold_dim = d;
	qsort(vp, *nv, sizeof(*vp), hostlist_vec_cmp_other);
	for (i = 0; i < *nv; i = j) {
		for (j = i + 1; j < *nv &&
		    hostlist_vec_cmp_other(&vp[i], &vp[j]) == 0; j++)
			;
		if (j - i == 1)
			continue;
		if (hostlist_vec_merge(vp + i, j - i, d) != HL_OK)
			return -1;
		changed = 1;
	}
	for (i = k = 0; i < *nv; i++)
		if (!vp[i]->dead)
			vp[k++] = vp[i];
	*nv = k;
	return changed;
}

/* Write one name pattern with each axis filled in from a vector. */
static int
hostlist_emit_vec(struct hostlist_buf *out, const char *tmpl,
    const struct hostlist_vec *vec)
{
	const char	*s = tmpl, *q;
	int		 d = 0;

	while (*s != '\0') {
		if (!hostlist_isdigit((unsigned char)*s)) {
			for (q = s; *q != '\0' &&
			    !hostlist_isdigit((unsigned char)*q); q++)
				;
			if (hostlist_buf_add(out, s, (size_t)(q - s)) != HL_OK)
				return HL_ENOMEM;
			s = q;
			continue;
		}
		while (hostlist_isdigit((unsigned char)*s))
			s++;
		if (vec->dim[d].n == 1) {
			if (hostlist_buf_add(out, vec->dim[d].v[0].s,
			    vec->dim[d].v[0].len) != HL_OK)
				return HL_ENOMEM;
		} else if (hostlist_buf_addc(out, '[') != HL_OK ||
		    hostlist_emit_runs(out, vec->dim[d].v, vec->dim[d].n, NULL,
		    0) != HL_OK || hostlist_buf_addc(out, ']') != HL_OK)
			return HL_ENOMEM;
		d++;
	}
	return HL_OK;
}

/*
 * Fold names sharing one pattern with ndim digit runs: start with one
 * vector per name and merge vectors that differ on one axis only, axis by
 * axis from the last, until nothing changes.
 */
static int
hostlist_fold_group(struct hostlist_buf *out, char **names, size_t n, int ndim)
{
	struct hostlist_idx	 *runs = NULL;
	struct hostlist_iset	 *isets = NULL;
	struct hostlist_vec	 *vecs = NULL, **vp = NULL;
	size_t		  i, nv;
	int		  d, m, changed, r = HL_ENOMEM;

	if (ndim == 0)
		return hostlist_buf_add(out, names[0], strlen(names[0]));
	if (ndim == 1) {
		if ((runs = calloc(n, sizeof(*runs))) == NULL)
			return HL_ENOMEM;
		for (i = 0; i < n; i++)
			hostlist_runs(names[i], &runs[i], 1);
		if (n == 1)
			r = hostlist_buf_add(out, names[0], strlen(names[0]));
		else if (hostlist_buf_add(out, names[0],
		    (size_t)(runs[0].s - names[0])) != HL_OK ||
		    hostlist_buf_addc(out, '[') != HL_OK ||
		    hostlist_emit_runs(out, runs, n, NULL, 0) != HL_OK ||
		    hostlist_buf_addc(out, ']') != HL_OK)
			r = HL_ENOMEM;
		else
			r = hostlist_buf_add(out, runs[0].s + runs[0].len,
			    strlen(runs[0].s + runs[0].len));
		free(runs);
		return r;
	}

	runs = calloc(n * (size_t)ndim, sizeof(*runs));
	isets = calloc(n * (size_t)ndim, sizeof(*isets));
	vecs = calloc(n, sizeof(*vecs));
	vp = calloc(n, sizeof(*vp));
	if (runs == NULL || isets == NULL || vecs == NULL || vp == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		hostlist_runs(names[i], &runs[i * (size_t)ndim], (size_t)ndim);
		vecs[i].dim = &isets[i * (size_t)ndim];
		vecs[i].size = 1;
		for (d = 0; d < ndim; d++) {
			vecs[i].dim[d].v = &runs[i * (size_t)ndim + (size_t)d];
			vecs[i].dim[d].n = 1;
		}
		vp[i] = &vecs[i];
	}
	nv = n;
	hostlist_fold_ndim = ndim;
	for (changed = 1; changed;) {
		changed = 0;
		for (d = ndim - 1; d >= 0; d--) {
			if ((m = hostlist_fold_axis(vp, &nv, d)) == -1)
				goto out;
			changed |= m;
		}
	}
	qsort(vp, nv, sizeof(*vp), hostlist_vec_cmp_out);
	for (i = 0; i < nv; i++) {
		if (i > 0 && hostlist_buf_addc(out, ',') != HL_OK)
			goto out;
		if (hostlist_emit_vec(out, names[0], vp[i]) != HL_OK)
			goto out;
	}
	r = HL_OK;
out:
	if (isets != NULL) {
		for (i = 0; i < n * (size_t)ndim; i++)
			if (isets[i].owned)
				free(isets[i].v);
	}
	free(runs);
	free(isets);
	free(vecs);
	free(vp);
	return r;
}

int
hostlist_fold(struct hostlist *hl, char **out)
{
	struct hostlist_buf	 b;
	size_t		 i, j;
	int		 ndim;

	*out = NULL;
	hostlist_normalize(hl);
	memset(&b, 0, sizeof(b));
	if (hostlist_buf_add(&b, "", 0) != HL_OK)
		return HL_ENOMEM;
	for (i = 0; i < hl->n; i = j) {
		for (j = i + 1; j < hl->n &&
		    hostlist_pat_cmp(hl->names[i], hl->names[j]) == 0; j++)
			;
		ndim = (int)hostlist_runs(hl->names[i], NULL, 0);
		if (i > 0 && hostlist_buf_addc(&b, ',') != HL_OK)
			goto nomem;
		if (hostlist_fold_group(&b, &hl->names[i], j - i, ndim) !=
		    HL_OK)
			goto nomem;
	}
	*out = b.s;
	return HL_OK;
nomem:
	hostlist_buf_free(&b);
	return HL_ENOMEM;
}
