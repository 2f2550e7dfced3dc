/* SPDX-License-Identifier: ISC */
/*
 * listpids: the reader of `scontrol --json listpids` (listpids.h).  A
 * recursive descent over the whole document that checks it is JSON
 * (RFC 8259: no trailing garbage, no control characters in strings,
 * numbers as the grammar writes them) and picks out what it needs: each
 * entry of the top-level "pids" array, and whether "errors" is empty.
 * Every other member (meta, warnings, members a later Slurm adds) is
 * checked and skipped.  Nothing is allocated and the depth is bounded.
 */
#include <string.h>

#include "listpids.h"
#include "ranks.h"

struct lp_parser {
	const char	*p;
	const char	*end;
	const char	*why;
	unsigned	 depth;
};

/* What a task id value said. */
#define LP_ID_UNSET	(-1)	/* NO_VAL, "set": false, null */
#define LP_ID_BAD	(-2)	/* out of range, not a task id */

static int lp_value(struct lp_parser *);

static int
lp_fail(struct lp_parser *ps, const char *why)
{
	if (ps->why == NULL)
		ps->why = why;
	return -1;
}

static void
lp_ws(struct lp_parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
	    *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int
lp_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/* A string at p: its raw text (escapes left as written) in [*s, *s+*n);
 * *plain is 0 when it has an escape. */
static int
lp_string(struct lp_parser *ps, const char **s, size_t *n, int *plain)
{
	const char	*start;
	unsigned char	 c;
	int		 i;

	if (ps->p >= ps->end || *ps->p != '"')
		return lp_fail(ps, "a string was expected");
	start = ++ps->p;
	*plain = 1;
	while (ps->p < ps->end) {
		c = (unsigned char)*ps->p;
		if (c == '"') {
			*s = start;
			*n = (size_t)(ps->p - start);
			ps->p++;
			return 0;
		}
		if (c < 0x20)
			return lp_fail(ps, "a control character in a string");
		if (c == '\\') {
			*plain = 0;
			if (++ps->p >= ps->end)
				break;
			c = (unsigned char)*ps->p;
			if (c == 'u') {
				for (i = 1; i <= 4; i++)
					if (ps->p + i >= ps->end ||
					    !lp_hex(ps->p[i]))
						return lp_fail(ps, "a bad \\u "
						    "escape");
				ps->p += 4;
			} else if (strchr("\"\\/bfnrt", c) == NULL || c == '\0')
				return lp_fail(ps, "a bad escape");
		}
		ps->p++;
	}
	return lp_fail(ps, "a string does not end");
}

/*
 * A number at p.  *isint: an integer without fraction or exponent, whose
 * value is *v (saturated at INT64_MAX; negative ones are not integers
 * here: no id is negative).
 */
static int
lp_number(struct lp_parser *ps, int *isint, int64_t *v)
{
	const char	*q = ps->p;
	int		 neg = 0, digits = 0;

	*isint = 1;
	*v = 0;
	if (q < ps->end && *q == '-') {
		neg = 1;
		q++;
	}
	if (q < ps->end && *q == '0') {
		q++;
		digits = 1;
	} else {
		while (q < ps->end && *q >= '0' && *q <= '9') {
			if (*v > (INT64_MAX - 9) / 10)
				*v = INT64_MAX;
			else
				*v = *v * 10 + (*q - '0');
			q++;
			digits++;
		}
	}
	if (digits == 0)
		return lp_fail(ps, "a bad number");
	if (q < ps->end && *q == '.') {
		*isint = 0;
		if (++q >= ps->end || *q < '0' || *q > '9')
			return lp_fail(ps, "a bad number");
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		*isint = 0;
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= ps->end || *q < '0' || *q > '9')
			return lp_fail(ps, "a bad number");
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (neg)
		*isint = 0;
	ps->p = q;
	return 0;
}

/* The literal lit at p. */
static int
lp_literal(struct lp_parser *ps, const char *lit)
{
	size_t	n = strlen(lit);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, lit, n) != 0)
		return lp_fail(ps, "not JSON");
	ps->p += n;
	return 0;
}

/*
 * Walk an object ('{' at p): for each member, fn(ps, key, keylen, arg)
 * reads its value (from p, after the colon and white space), or when fn
 * is NULL the value is skipped.
 */
typedef int (*lp_member_fn)(struct lp_parser *, const char *, size_t,
    void *);

static int
lp_object(struct lp_parser *ps, lp_member_fn fn, void *arg)
{
	const char	*k;
	size_t		 kn;
	int		 plain, r;

	if (ps->p >= ps->end || *ps->p != '{')
		return lp_fail(ps, "an object was expected");
	if (++ps->depth > LISTPIDS_DEPTH)
		return lp_fail(ps, "nested too deep");
	ps->p++;
	lp_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		lp_ws(ps);
		if (lp_string(ps, &k, &kn, &plain) < 0)
			return -1;
		lp_ws(ps);
		if (ps->p >= ps->end || *ps->p != ':')
			return lp_fail(ps, "a colon was expected");
		ps->p++;
		lp_ws(ps);
		/* A key with an escape is none of ours. */
		r = fn != NULL && plain ? fn(ps, k, kn, arg) : lp_value(ps);
		if (r < 0)
			return -1;
		lp_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == '}') {
			ps->p++;
			ps->depth--;
			return 0;
		}
		return lp_fail(ps, "a comma or '}' was expected");
	}
}

/* Walk an array ('[' at p): fn(ps, index, arg) reads each element, or
 * they are skipped; *count is how many. */
typedef int (*lp_elem_fn)(struct lp_parser *, unsigned, void *);

static int
lp_array(struct lp_parser *ps, lp_elem_fn fn, void *arg, unsigned *count)
{
	unsigned	i = 0;

	if (count != NULL)
		*count = 0;
	if (ps->p >= ps->end || *ps->p != '[')
		return lp_fail(ps, "an array was expected");
	if (++ps->depth > LISTPIDS_DEPTH)
		return lp_fail(ps, "nested too deep");
	ps->p++;
	lp_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;; i++) {
		lp_ws(ps);
		if ((fn != NULL ? fn(ps, i, arg) : lp_value(ps)) < 0)
			return -1;
		if (count != NULL)
			*count = i + 1;
		lp_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == ']') {
			ps->p++;
			ps->depth--;
			return 0;
		}
		return lp_fail(ps, "a comma or ']' was expected");
	}
}

/* Any value: checked and skipped. */
static int
lp_value(struct lp_parser *ps)
{
	const char	*s;
	size_t		 n;
	int64_t		 v;
	int		 plain, isint;

	if (ps->p >= ps->end)
		return lp_fail(ps, "the text ends early");
	switch (*ps->p) {
	case '{':
		return lp_object(ps, NULL, NULL);
	case '[':
		return lp_array(ps, NULL, NULL, NULL);
	case '"':
		return lp_string(ps, &s, &n, &plain);
	case 't':
		return lp_literal(ps, "true");
	case 'f':
		return lp_literal(ps, "false");
	case 'n':
		return lp_literal(ps, "null");
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return lp_number(ps, &isint, &v);
		return lp_fail(ps, "not JSON");
	}
}

static int
lp_key(const char *k, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(k, lit, n) == 0;
}

/* A task id as UINT32_NO_VAL's struct holds it. */
struct lp_noval {
	int	set;		/* -1 absent, 0 false, 1 true */
	int	infinite;
	int64_t	number;		/* -1 absent or not an integer */
};

static int
lp_bool(struct lp_parser *ps, int *b)
{
	if (ps->p < ps->end && *ps->p == 't') {
		*b = 1;
		return lp_literal(ps, "true");
	}
	if (ps->p < ps->end && *ps->p == 'f') {
		*b = 0;
		return lp_literal(ps, "false");
	}
	return lp_fail(ps, "a task id's set or infinite is no boolean");
}

static int
lp_noval_member(struct lp_parser *ps, const char *k, size_t n, void *arg)
{
	struct lp_noval	*nv = arg;
	int		 isint;

	if (lp_key(k, n, "set"))
		return lp_bool(ps, &nv->set);
	if (lp_key(k, n, "infinite"))
		return lp_bool(ps, &nv->infinite);
	if (lp_key(k, n, "number")) {
		if (ps->p >= ps->end || !(*ps->p == '-' ||
		    (*ps->p >= '0' && *ps->p <= '9')))
			return lp_fail(ps, "a task id's number is no number");
		if (lp_number(ps, &isint, &nv->number) < 0)
			return -1;
		if (!isint)
			nv->number = -1;
		return 0;
	}
	return lp_value(ps);
}

/*
 * A task id (global_task_id, local_task_id): {"set", "infinite",
 * "number"}, or with +complex a number, null or "Infinity".  *id: the id,
 * LP_ID_UNSET, or LP_ID_BAD for one that is set but no uint32 below
 * NO_VAL (0xfffffffe: Slurm's INFINITE and NO_VAL are no ids).
 */
static int
lp_task_id(struct lp_parser *ps, int64_t *id)
{
	struct lp_noval	nv = { -1, 0, -1 };
	int		isint;
	int64_t		v;

	if (ps->p >= ps->end)
		return lp_fail(ps, "the text ends early");
	if (*ps->p == '{') {
		if (lp_object(ps, lp_noval_member, &nv) < 0)
			return -1;
		if (nv.set != 1 || nv.infinite == 1)
			*id = LP_ID_UNSET;
		else if (nv.number < 0 || nv.number >= 0xfffffffe)
			*id = LP_ID_BAD;
		else
			*id = nv.number;
		return 0;
	}
	if (*ps->p == 'n') {
		*id = LP_ID_UNSET;
		return lp_literal(ps, "null");
	}
	if (*ps->p == '"') {
		/* "Infinity" (INFINITE): no task's id. */
		*id = LP_ID_UNSET;
		return lp_value(ps);
	}
	if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) {
		if (lp_number(ps, &isint, &v) < 0)
			return -1;
		*id = !isint || v >= 0xfffffffe ? LP_ID_BAD : v;
		return 0;
	}
	return lp_fail(ps, "a task id is no object, number or null");
}

/* A step as log_build_step_id_str writes it without its job. */
static uint32_t
lp_step(const char *s, size_t n)
{
	uint64_t	v = 0;
	size_t		i, j;

	if (n == 5 && memcmp(s, "batch", 5) == 0)
		return RANKS_STEP_BATCH;
	if (n == 6 && memcmp(s, "extern", 6) == 0)
		return RANKS_STEP_EXTERN;
	if (n == 11 && memcmp(s, "interactive", 11) == 0)
		return RANKS_STEP_INTERACTIVE;
	for (i = 0; i < n && s[i] >= '0' && s[i] <= '9' && i < 10; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	if (i == 0 || v >= 0xfffffff0u)
		return RANKS_STEP_NONE;
	if (i < n) {
		/* "0+1": component 1 of heterogeneous step 0. */
		if (s[i] != '+' || i + 1 == n)
			return RANKS_STEP_NONE;
		for (j = i + 1; j < n; j++)
			if (s[j] < '0' || s[j] > '9')
				return RANKS_STEP_NONE;
	}
	return (uint32_t)v;
}

/* One entry of "pids". */
struct lp_entry {
	int64_t		gtid, ltid, job, pid;
	uint32_t	step;
	int		has_step;
};

static int
lp_entry_member(struct lp_parser *ps, const char *k, size_t n, void *arg)
{
	struct lp_entry	*e = arg;
	const char	*s;
	size_t		 sn;
	int		 plain, isint;

	if (lp_key(k, n, "global_task_id"))
		return lp_task_id(ps, &e->gtid);
	if (lp_key(k, n, "local_task_id"))
		return lp_task_id(ps, &e->ltid);
	if (lp_key(k, n, "job_id") || lp_key(k, n, "pid")) {
		int64_t	*v = lp_key(k, n, "pid") ? &e->pid : &e->job;

		if (ps->p >= ps->end || !(*ps->p >= '0' && *ps->p <= '9'))
			return lp_fail(ps, "a pid or job_id is no number");
		if (lp_number(ps, &isint, v) < 0)
			return -1;
		if (!isint)
			return lp_fail(ps, "a pid or job_id is no integer");
		return 0;
	}
	if (lp_key(k, n, "step_id")) {
		if (ps->p >= ps->end || *ps->p != '"')
			return lp_fail(ps, "a step_id is no string");
		if (lp_string(ps, &s, &sn, &plain) < 0)
			return -1;
		e->step = plain ? lp_step(s, sn) : RANKS_STEP_NONE;
		e->has_step = 1;
		return 0;
	}
	return lp_value(ps);
}

struct lp_out {
	struct listpids_task	*out;
	unsigned		 max;
	unsigned		 ntask;
	unsigned		 nother;
};

static int
lp_pid_elem(struct lp_parser *ps, unsigned i, void *arg)
{
	struct lp_out		*o = arg;
	struct lp_entry		 e = { LP_ID_UNSET, LP_ID_UNSET, -1, -1,
	    RANKS_STEP_NONE, 0 };
	struct listpids_task	*t;

	if (ps->p >= ps->end || *ps->p != '{')
		return lp_fail(ps, "an entry of pids is no object");
	if (lp_object(ps, lp_entry_member, &e) < 0)
		return -1;
	if (e.pid <= 0 || e.pid > INT32_MAX)
		return lp_fail(ps, "an entry without a pid");
	if (e.job <= 0 || e.job >= 0xfffffffe)
		return lp_fail(ps, "an entry without a job_id");
	if (!e.has_step)
		return lp_fail(ps, "an entry without a step_id");
	if (e.gtid == LP_ID_BAD || e.ltid == LP_ID_BAD)
		return lp_fail(ps, "a task id out of range");
	if (e.gtid == LP_ID_UNSET || e.gtid > INT32_MAX ||
	    e.ltid > INT32_MAX) {
		o->nother++;
		return 0;
	}
	if (o->ntask >= o->max)
		return lp_fail(ps, "more tasks than the probe tracks");
	t = &o->out[o->ntask++];
	t->pid = (int32_t)e.pid;
	t->job = (uint32_t)e.job;
	t->step = e.step;
	t->gtid = (int32_t)e.gtid;
	t->ltid = e.ltid >= 0 ? (int32_t)e.ltid : -1;
	return 0;
}

struct lp_top {
	struct lp_out	*o;
	int		 pids;		/* "pids" seen */
	unsigned	 errors;	/* entries of "errors" */
};

static int
lp_top_member(struct lp_parser *ps, const char *k, size_t n, void *arg)
{
	struct lp_top	*t = arg;

	if (lp_key(k, n, "pids")) {
		if (t->pids)
			return lp_fail(ps, "two pids arrays");
		t->pids = 1;
		/* A list of no steps may be dumped as null. */
		if (ps->p < ps->end && *ps->p == 'n')
			return lp_literal(ps, "null");
		if (ps->p >= ps->end || *ps->p != '[')
			return lp_fail(ps, "pids is no array");
		return lp_array(ps, lp_pid_elem, t->o, NULL);
	}
	if (lp_key(k, n, "errors")) {
		if (ps->p < ps->end && *ps->p == '[')
			return lp_array(ps, NULL, NULL, &t->errors);
		return lp_value(ps);
	}
	return lp_value(ps);
}

int
listpids_parse(const char *buf, size_t len, struct listpids_task *out,
    unsigned max, unsigned *nother, const char **why)
{
	struct lp_parser	ps = { buf, buf + len, NULL, 0 };
	struct lp_out		o = { out, max, 0, 0 };
	struct lp_top		t = { &o, 0, 0 };

	*nother = 0;
	*why = NULL;
	lp_ws(&ps);
	if (ps.p >= ps.end || *ps.p != '{') {
		*why = "no JSON object (scontrol before 24.11 prints a "
		    "table)";
		return -1;
	}
	if (lp_object(&ps, lp_top_member, &t) < 0) {
		*why = ps.why;
		return -1;
	}
	lp_ws(&ps);
	if (ps.p != ps.end) {
		*why = "text after the JSON object";
		return -1;
	}
	if (!t.pids) {
		*why = "no pids array";
		return -1;
	}
	if (t.errors > 0) {
		*why = "scontrol reported errors";
		return -1;
	}
	*nother = o.nother;
	return (int)o.ntask;
}

int
listpids_version_ok(const char *buf, size_t len)
{
	const char	*eol, *p, *word;
	uint64_t	 major = 0, minor = 0;
	unsigned	 nd;

	if ((eol = memchr(buf, '\n', len)) == NULL)
		eol = buf + len;
	/* "NAME VERSION": the last word of the first line. */
	while (eol > buf && (eol[-1] == ' ' || eol[-1] == '\r'))
		eol--;
	for (word = eol; word > buf && word[-1] != ' '; word--)
		;
	if (word == buf)
		return -1;
	for (p = word, nd = 0; p < eol && *p >= '0' && *p <= '9' && nd < 4;
	    p++, nd++)
		major = major * 10 + (uint64_t)(*p - '0');
	if (nd == 0 || p >= eol || *p != '.')
		return -1;
	for (p++, nd = 0; p < eol && *p >= '0' && *p <= '9' && nd < 4;
	    p++, nd++)
		minor = minor * 10 + (uint64_t)(*p - '0');
	if (nd == 0)
		return -1;
	return major > 24 || (major == 24 && minor >= 11);
}
