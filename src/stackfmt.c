/* SPDX-License-Identifier: ISC */
/*
 * stackfmt: parse debuggers' backtraces, write and read range lists, and
 * decode the compact answer a node sends for --stacks (PROTOCOL.md,
 * "Stacks").  Compiled into the probe and the monitor: libc only, every
 * failure an error code, every input bounded (frames, names, stacks, ids).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackfmt.h"

void
stk_clean(char *dst, size_t dstsz, const char *s, size_t n)
{
	size_t	i, k = 0;

	if (dstsz == 0)
		return;
	for (i = 0; i < n && k + 1 < dstsz && k < STK_NAME_MAX; i++) {
		unsigned char	c = (unsigned char)s[i];

		dst[k++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	dst[k] = '\0';
}

/* A line's end, or the buffer's. */
static const char *
stk_eol(const char *p, const char *end)
{
	const char	*nl = memchr(p, '\n', (size_t)(end - p));

	return nl != NULL ? nl : end;
}

/* A decimal number at p, never read past e (0 when there is none). */
static long
stk_long(const char *p, const char *e)
{
	long	v = 0;

	while (p < e && *p == ' ')
		p++;
	for (; p < e && *p >= '0' && *p <= '9' && v < 100000000L; p++)
		v = v * 10 + (*p - '0');
	return v;
}

static int
stk_thread_new(struct stk_proc *p, long tid, unsigned maxthreads)
{
	struct stk_thread	*t;

	if (p->nthreads >= maxthreads)
		return 1;
	t = realloc(p->threads, (p->nthreads + 1) * sizeof(*t));
	if (t == NULL)
		return -1;
	p->threads = t;
	memset(&t[p->nthreads], 0, sizeof(*t));
	t[p->nthreads++].tid = tid;
	return 0;
}

/* Add a frame (innermost first while parsing; reversed at the end). */
static int
stk_frame_add(struct stk_thread *t, const char *name, size_t n,
    const char *mod, size_t mlen, int lib, unsigned maxframes)
{
	char		 buf[STK_NAME_MAX + 1], **fv;
	unsigned char	*lv;
	const char	*b;
	size_t		 k;

	if (t->nframes >= maxframes) {
		t->cut = 1;
		return 0;
	}
	if (n == 0 || (n == 2 && memcmp(name, "??", 2) == 0)) {
		/* No name: the module's base name says where. */
		for (b = mod + mlen; b > mod && b[-1] != '/'; b--)
			;
		k = (size_t)(mod + mlen - b);
		if (k > 0)
			snprintf(buf, sizeof(buf), "?? (%.*s)",
			    (int)(k > 200 ? 200 : k), b);
		else
			snprintf(buf, sizeof(buf), "??");
		stk_clean(buf, sizeof(buf), buf, strlen(buf));
	} else
		stk_clean(buf, sizeof(buf), name, n);
	if ((fv = realloc(t->frames, (t->nframes + 1) * sizeof(*fv))) == NULL)
		return -1;
	t->frames = fv;
	if ((lv = realloc(t->lib, t->nframes + 1)) == NULL)
		return -1;
	t->lib = lv;
	if ((fv[t->nframes] = strdup(buf)) == NULL)
		return -1;
	lv[t->nframes++] = (unsigned char)lib;
	return 0;
}

/* Does module m (len n) name the executable exe? */
static int
stk_is_exe(const char *m, size_t n, const char *exe)
{
	const char	*b;

	if (exe == NULL || *exe == '\0')
		return n == 0;
	if (n == strlen(exe) && memcmp(m, exe, n) == 0)
		return 1;
	/* A deleted or moved executable: the base names. */
	if ((b = strrchr(exe, '/')) != NULL)
		b++;
	else
		b = exe;
	return n >= strlen(b) && memcmp(m + n - strlen(b), b, strlen(b)) == 0
	    && (n == strlen(b) || m[n - strlen(b) - 1] == '/');
}

/* One eu-stack frame line after "#N": "  0xADDR NAME - MODULE". */
static int
stk_eu_frame(struct stk_thread *t, const char *p, const char *e,
    const char *exe, unsigned maxframes)
{
	const char	*name, *mod = e, *q;
	size_t		 n, mlen = 0;

	while (p < e && *p == ' ')
		p++;
	if (e - p < 3 || p[0] != '0' || p[1] != 'x')
		return 0;
	while (p < e && *p != ' ')
		p++;
	while (p < e && *p == ' ')
		p++;
	name = p;
	/* The module after the last " - " (-m), or "- MODULE" alone. */
	for (q = e; q > p; q--)
		if (q - p >= 2 && q[-1] == ' ' && q[-2] == '-' &&
		    (q - p == 2 || q[-3] == ' '))
			break;
	if (q > p) {
		mod = q;
		mlen = (size_t)(e - q);
		n = (size_t)(q - p) >= 3 ? (size_t)(q - p) - 3 : 0;
	} else
		n = (size_t)(e - p);
	while (n > 0 && name[n - 1] == ' ')
		n--;
	return stk_frame_add(t, name, n, mod, mlen, mlen > 0 &&
	    !stk_is_exe(mod, mlen, exe), maxframes);
}

/* One gdb frame line after "#N": "  0xADDR in NAME (ARGS) from LIB",
 * "  NAME (ARGS) at FILE:LINE", "  <signal handler called>". */
static int
stk_gdb_frame(struct stk_thread *t, const char *p, const char *e,
    unsigned maxframes)
{
	const char	*name, *q, *mod = e;
	size_t		 n, mlen = 0, k;

	while (p < e && *p == ' ')
		p++;
	if (e - p > 2 && p[0] == '0' && p[1] == 'x') {
		while (p < e && *p != ' ')
			p++;
		if (e - p >= 4 && memcmp(p, " in ", 4) == 0)
			p += 4;
		else
			while (p < e && *p == ' ')
				p++;
	}
	name = p;
	if (p < e && *p == '<') {
		q = memchr(p, '>', (size_t)(e - p));
		n = q != NULL ? (size_t)(q - p) + 1 : (size_t)(e - p);
		return stk_frame_add(t, name, n, e, 0, 0, maxframes);
	}
	/* The name ends at " (" (its arguments); C++ names keep their
	 * own parentheses, before a space. */
	for (q = p; q < e; q++)
		if (*q == ' ' && q + 1 < e && q[1] == '(')
			break;
	n = (size_t)(q - p);
	for (k = 0; (size_t)(e - q) >= 6 + k; k++) {
		const char	*r = e - 6 - k;

		if (r >= q && memcmp(r, " from ", 6) == 0) {
			mod = r + 6;
			mlen = (size_t)(e - mod);
			break;
		}
	}
	return stk_frame_add(t, name, n, mod, mlen, mlen > 0, maxframes);
}

int
stk_parse_debugger(enum stk_tool tool, const char *buf, size_t len,
    const char *exe, unsigned maxframes, unsigned maxthreads,
    struct stk_proc *p, char *err, size_t errsz)
{
	const char	*s = buf, *end = buf + len, *e, *q;
	struct stk_thread *t = NULL;
	long		 tid;
	unsigned	 i, j;
	int		 r = 0, skip = 0;

	memset(p, 0, sizeof(*p));
	if (maxframes == 0 || maxframes > STK_FRAMES_MAX)
		maxframes = STK_FRAMES_MAX;
	for (; s < end && r >= 0; s = e + 1) {
		e = stk_eol(s, end);
		if (tool == STK_EUSTACK && e - s > 4 &&
		    memcmp(s, "TID ", 4) == 0) {
			tid = stk_long(s + 4, e);
			r = stk_thread_new(p, tid, maxthreads);
			skip = r != 0;
			t = r == 0 ? &p->threads[p->nthreads - 1] : NULL;
			r = r < 0 ? -1 : 0;
			continue;
		}
		if (tool == STK_GDB && e - s > 7 && memcmp(s, "Thread ", 7) == 0
		    && (q = memchr(s, '(', (size_t)(e - s))) != NULL) {
			const char *l = NULL;

			for (q = s; q + 4 < e && l == NULL; q++)
				if (memcmp(q, "LWP ", 4) == 0)
					l = q + 4;
				else if (e - q > 8 &&
				    memcmp(q, "process ", 8) == 0)
					l = q + 8;
			tid = l != NULL && l < e ? stk_long(l, e) : 0;
			r = stk_thread_new(p, tid, maxthreads);
			skip = r != 0;
			t = r == 0 ? &p->threads[p->nthreads - 1] : NULL;
			r = r < 0 ? -1 : 0;
			continue;
		}
		if (e - s < 2 || s[0] != '#' || s[1] < '0' || s[1] > '9')
			continue;
		for (q = s + 1; q < e && *q >= '0' && *q <= '9'; q++)
			;
		/* gdb's plain bt has no header: a #0 starts a thread. */
		if ((t == NULL && !skip) || (tool == STK_GDB && q - s == 2 &&
		    s[1] == '0' && t != NULL && t->nframes > 0)) {
			r = stk_thread_new(p, 0, maxthreads);
			skip = r != 0;
			t = r == 0 ? &p->threads[p->nthreads - 1] : NULL;
			r = r < 0 ? -1 : 0;
		}
		if (t == NULL)
			continue;
		if (tool == STK_EUSTACK)
			r = stk_eu_frame(t, q, e, exe, maxframes);
		else
			r = stk_gdb_frame(t, q, e, maxframes);
	}
	if (r < 0) {
		snprintf(err, errsz, "out of memory");
		stk_proc_free(p);
		return -1;
	}
	/* Outermost first: the tree's root is _start. */
	for (i = 0; i < p->nthreads; i++) {
		t = &p->threads[i];
		for (j = 0; j < t->nframes / 2; j++) {
			char		*f = t->frames[j];
			unsigned char	 l = t->lib[j];

			t->frames[j] = t->frames[t->nframes - 1 - j];
			t->frames[t->nframes - 1 - j] = f;
			t->lib[j] = t->lib[t->nframes - 1 - j];
			t->lib[t->nframes - 1 - j] = l;
		}
	}
	for (i = 0; i < p->nthreads && p->threads[i].nframes == 0; i++)
		;
	if (i == p->nthreads) {
		snprintf(err, errsz, "no frame in the debugger's output");
		stk_proc_free(p);
		return -1;
	}
	return 0;
}

void
stk_proc_free(struct stk_proc *p)
{
	unsigned	i, j;

	for (i = 0; i < p->nthreads; i++) {
		for (j = 0; j < p->threads[i].nframes; j++)
			free(p->threads[i].frames[j]);
		free(p->threads[i].frames);
		free(p->threads[i].lib);
	}
	free(p->threads);
	memset(p, 0, sizeof(*p));
}

unsigned
stk_callpath_len(const struct stk_thread *t)
{
	unsigned	i, last = t->nframes;

	/* The innermost frame of the program (outermost first: the last
	 * one not in a library); a stack all in libraries is all path. */
	for (i = 0; i < t->nframes; i++)
		if (!t->lib[i])
			last = i;
	if (last == t->nframes)
		return t->nframes;
	return last + 2 <= t->nframes ? last + 2 : t->nframes;
}

size_t
stk_ranges_write(char *dst, size_t dstsz, const int64_t *v, size_t n)
{
	char	item[48];
	size_t	i = 0, j, len = 0, m;

	if (dstsz > 0)
		dst[0] = '\0';
	while (i < n) {
		for (j = i; j + 1 < n && (v[j + 1] == v[j] ||
		    v[j + 1] == v[j] + 1); j++)
			;
		if (v[j] == v[i])
			m = (size_t)snprintf(item, sizeof(item), "%s%lld",
			    len > 0 ? "," : "", (long long)v[i]);
		else
			m = (size_t)snprintf(item, sizeof(item), "%s%lld-%lld",
			    len > 0 ? "," : "", (long long)v[i],
			    (long long)v[j]);
		if (len + m < dstsz)
			memcpy(dst + len, item, m + 1);
		else if (dstsz > 4 && len < dstsz)
			memcpy(dst + (len + 4 < dstsz ? len : dstsz - 4),
			    "...", 4);
		len += m;
		i = j + 1;
	}
	return len;
}

/* A decimal id 0..INT32_MAX at *pp: 0, or -1. */
static int
stk_id(const char **pp, const char *e, int64_t *v)
{
	const char	*p = *pp;
	int64_t		 x = 0;

	if (p >= e || *p < '0' || *p > '9')
		return -1;
	for (; p < e && *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (*p - '0');
		if (x > INT32_MAX)
			return -1;
	}
	*v = x;
	*pp = p;
	return 0;
}

long
stk_ranges_parse(const char *s, size_t len, size_t max, int64_t **out)
{
	const char	*p = s, *e = s + len;
	int64_t		 a, b, *v = NULL, *nv, prev = -1, x;
	size_t		 n = 0, cap = 0;

	*out = NULL;
	if (len == 0)
		return 0;
	for (;;) {
		if (stk_id(&p, e, &a) != 0)
			goto bad;
		b = a;
		if (p < e && *p == '-') {
			p++;
			if (stk_id(&p, e, &b) != 0 || b < a)
				goto bad;
		}
		if (a < prev)
			goto bad;
		if ((uint64_t)(b - a) + 1 > max - n)
			goto bad;
		for (x = a; x <= b; x++) {
			if (n == cap) {
				cap = cap == 0 ? 16 : cap * 2;
				if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
					goto bad;
				v = nv;
			}
			v[n++] = x;
		}
		prev = b;
		if (p == e)
			break;
		if (*p++ != ',')
			goto bad;
	}
	*out = v;
	return (long)n;
bad:
	free(v);
	return -1;
}

/* The tab-separated fields of a line: up to max, the last one takes the
 * rest.  Returns how many. */
static unsigned
stk_fields(const char *s, const char *e, const char **f, size_t *fl,
    unsigned max)
{
	unsigned	n = 0;
	const char	*t;

	while (n < max) {
		t = n + 1 == max ? NULL : memchr(s, '\t', (size_t)(e - s));
		f[n] = s;
		fl[n] = (size_t)((t != NULL ? t : e) - s);
		n++;
		if (t == NULL)
			break;
		s = t + 1;
	}
	return n;
}

/* An unsigned decimal field below limit: 0, or -1. */
static int
stk_uint(const char *s, size_t n, unsigned long limit, unsigned *v)
{
	unsigned long	x = 0;
	size_t		i;

	if (n == 0 || n > 10)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (unsigned long)(s[i] - '0');
	}
	if (x > limit)
		return -1;
	*v = (unsigned)x;
	return 0;
}

/* "S\tID\tFRAME\tFRAME...": a distinct stack, its id the next index. */
static int
stk_decode_stack(struct stk_node *o, const char *s, const char *e)
{
	const char	*p, *t;
	unsigned	 id, n = 0, k;
	char		**fv, ***sv;
	unsigned	*nv;

	t = memchr(s, '\t', (size_t)(e - s));
	if (t == NULL || stk_uint(s, (size_t)(t - s), STK_STACKS_MAX, &id) != 0
	    || id != o->nstacks || o->nstacks >= STK_STACKS_MAX)
		return -1;
	for (p = t; p < e; p++)
		if (*p == '\t')
			n++;
	if (n == 0 || n > STK_FRAMES_MAX)
		return -1;
	if ((sv = realloc(o->stacks, (o->nstacks + 1) * sizeof(*sv))) == NULL)
		return -1;
	o->stacks = sv;
	if ((nv = realloc(o->nframes, (o->nstacks + 1) * sizeof(*nv))) == NULL)
		return -1;
	o->nframes = nv;
	if ((fv = calloc(n, sizeof(*fv))) == NULL)
		return -1;
	sv[o->nstacks] = fv;
	nv[o->nstacks] = 0;
	o->nstacks++;
	for (k = 0, p = t + 1; k < n; k++) {
		t = memchr(p, '\t', (size_t)(e - p));
		if (t == NULL)
			t = e;
		if (t == p || t - p > STK_NAME_MAX)
			return -1;
		if ((fv[k] = malloc((size_t)(t - p) + 1)) == NULL)
			return -1;
		stk_clean(fv[k], (size_t)(t - p) + 1, p, (size_t)(t - p));
		nv[o->nstacks - 1] = k + 1;
		p = t + 1;
	}
	return 0;
}

/* "T\tTAKE\tSTACK\tTHREADS\tRANKS" (K: a kernel stack). */
static int
stk_decode_take(struct stk_node *o, const char *s, const char *e, int kernel)
{
	const char	*f[4];
	size_t		 fl[4];
	struct stk_take	 tk, *nt;
	long		 n;

	memset(&tk, 0, sizeof(tk));
	if (stk_fields(s, e, f, fl, 4) != 4 ||
	    stk_uint(f[0], fl[0], 2, &tk.take) != 0 || tk.take == 0 ||
	    stk_uint(f[1], fl[1], STK_STACKS_MAX, &tk.stack) != 0 ||
	    tk.stack >= o->nstacks ||
	    stk_uint(f[2], fl[2], STK_RANKS_MAX, &tk.nthreads) != 0 ||
	    (n = stk_ranges_parse(f[3], fl[3], STK_RANKS_MAX, &tk.ranks)) <= 0)
		return -1;
	tk.nranks = (size_t)n;
	tk.kernel = kernel;
	if (tk.nthreads < tk.nranks ||
	    (nt = realloc(o->tk, (o->ntakes + 1) * sizeof(*nt))) == NULL) {
		free(tk.ranks);
		return -1;
	}
	o->tk = nt;
	o->tk[o->ntakes++] = tk;
	return 0;
}

/* "E\tRANKS\tWHY": ranks whose stacks could not be taken. */
static int
stk_decode_err(struct stk_node *o, const char *s, const char *e)
{
	const char	*f[2];
	size_t		 fl[2];
	struct stk_err	 er, *ne;
	long		 n;

	memset(&er, 0, sizeof(er));
	if (stk_fields(s, e, f, fl, 2) != 2 || o->nerrs >= 4096 ||
	    (n = stk_ranges_parse(f[0], fl[0], STK_RANKS_MAX, &er.ranks)) <= 0)
		return -1;
	er.nranks = (size_t)n;
	if (fl[1] > 400)
		fl[1] = 400;
	if ((er.why = malloc(fl[1] + 1)) == NULL ||
	    (ne = realloc(o->errs, (o->nerrs + 1) * sizeof(*ne))) == NULL) {
		free(er.why);
		free(er.ranks);
		return -1;
	}
	stk_clean(er.why, fl[1] + 1, f[1], fl[1]);
	o->errs = ne;
	o->errs[o->nerrs++] = er;
	return 0;
}

/* A "key value..." line of the header. */
static int
stk_decode_meta(struct stk_node *o, const char *s, const char *e)
{
	const char	*f[5];
	size_t		 fl[5];
	unsigned	 n, v;
	long		 c;

	n = stk_fields(s, e, f, fl, 5);
	if (fl[0] == 4 && memcmp(f[0], "tool", 4) == 0 && n == 2) {
		stk_clean(o->tool, sizeof(o->tool), f[1], fl[1]);
		return 0;
	}
	if (fl[0] == 2 && memcmp(f[0], "as", 2) == 0 && n == 2)
		return stk_uint(f[1], fl[1], INT32_MAX, &v) == 0 ?
		    (o->as_uid = (long)v, 0) : -1;
	if (fl[0] == 3 && memcmp(f[0], "gap", 3) == 0 && n == 2)
		return stk_uint(f[1], fl[1], 3600000, &o->gap_ms);
	if (fl[0] == 6 && memcmp(f[0], "frames", 6) == 0 && n == 2)
		return stk_uint(f[1], fl[1], STK_FRAMES_MAX, &o->frames);
	if (fl[0] == 4 && memcmp(f[0], "cost", 4) == 0 && n == 5) {
		if (stk_uint(f[1], fl[1], 2, &o->takes) != 0 || o->takes == 0 ||
		    stk_uint(f[2], fl[2], 86400000, &o->take_ms[0]) != 0 ||
		    stk_uint(f[3], fl[3], 86400000, &o->take_ms[1]) != 0 ||
		    stk_uint(f[4], fl[4], 86400000, &o->cpu_ms) != 0)
			return -1;
		return 0;
	}
	if (fl[0] == 5 && memcmp(f[0], "tasks", 5) == 0 && n == 2)
		return stk_uint(f[1], fl[1], STK_RANKS_MAX, &o->ntasks);
	if (fl[0] == 8 && memcmp(f[0], "deadline", 8) == 0 && n == 1) {
		o->timed_out = 1;
		return 0;
	}
	if (fl[0] == 5 && (memcmp(f[0], "moved", 5) == 0 ||
	    memcmp(f[0], "stuck", 5) == 0) && n == 2) {
		int64_t	**vp = f[0][0] == 'm' ? &o->moved : &o->stuck;
		size_t	 *np = f[0][0] == 'm' ? &o->nmoved : &o->nstuck;

		if (*vp != NULL || (c = stk_ranges_parse(f[1], fl[1],
		    STK_RANKS_MAX, vp)) < 0)
			return -1;
		*np = (size_t)c;
		return 0;
	}
	return 1;	/* unknown: a later version's, skipped */
}

int
stk_decode(const char *buf, size_t len, struct stk_node *o, char *err,
    size_t errsz)
{
	const char	*s = buf, *end = buf + len, *e;
	unsigned	 line = 0;
	int		 r = 0;

	memset(o, 0, sizeof(*o));
	o->as_uid = -1;
	for (; s < end; s = e + 1) {
		e = stk_eol(s, end);
		line++;
		if (e - s > STK_LINE_MAX) {
			r = -1;
			break;
		}
		if (o->version == 0) {
			/* Whatever a login shell printed comes first. */
			if (e - s >= 15 && memcmp(s, "jobtop-stacks ", 14) == 0) {
				if (stk_uint(s + 14, (size_t)(e - s - 14), 1000,
				    &o->version) != 0 || o->version == 0) {
					r = -1;
					break;
				}
				if (o->version != STK_VERSION) {
					snprintf(err, errsz, "the node's probe "
					    "speaks stacks version %u, not %d",
					    o->version, STK_VERSION);
					return -1;
				}
			}
			continue;
		}
		if (o->ended)
			break;
		if (e - s == 3 && memcmp(s, "end", 3) == 0) {
			o->ended = 1;
			continue;
		}
		if (e - s > 2 && s[1] == '\t' && s[0] == 'S')
			r = stk_decode_stack(o, s + 2, e);
		else if (e - s > 2 && s[1] == '\t' && (s[0] == 'T' ||
		    s[0] == 'K'))
			r = stk_decode_take(o, s + 2, e, s[0] == 'K');
		else if (e - s > 2 && s[1] == '\t' && s[0] == 'E')
			r = stk_decode_err(o, s + 2, e);
		else if (e > s)
			r = stk_decode_meta(o, s, e) < 0 ? -1 : 0;
		if (r != 0)
			break;
	}
	if (r != 0) {
		snprintf(err, errsz, "bad stacks answer at line %u", line);
		return -1;
	}
	if (o->version == 0) {
		snprintf(err, errsz, "no stacks answer from the node's probe");
		return -1;
	}
	if (!o->ended) {
		snprintf(err, errsz, "the stacks answer was cut short");
		return -1;
	}
	return 0;
}

void
stk_node_free(struct stk_node *o)
{
	unsigned	i, j;

	for (i = 0; i < o->nstacks; i++) {
		for (j = 0; j < o->nframes[i]; j++)
			free(o->stacks[i][j]);
		free(o->stacks[i]);
	}
	free(o->stacks);
	free(o->nframes);
	for (i = 0; i < o->ntakes; i++)
		free(o->tk[i].ranks);
	free(o->tk);
	for (i = 0; i < o->nerrs; i++) {
		free(o->errs[i].why);
		free(o->errs[i].ranks);
	}
	free(o->errs);
	free(o->moved);
	free(o->stuck);
	memset(o, 0, sizeof(*o));
}
