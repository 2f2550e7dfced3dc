/* SPDX-License-Identifier: ISC */
/*
 * out-json: the model as newline-delimited JSON.  A node record carries
 * every group but the ranks: fields of node-wide groups as plain
 * "group.field" values, fields of groups with named instances (core, disk,
 * net) as objects keyed by instance name.  Each rank gets its own record,
 * with the fields of the groups keyed by its pid (rankmpi.share,
 * ranknuma.n0) as plain values too; the node record keeps them keyed by
 * pid for the readers that join.
 * A job record ({"type": "job", "job": ID, "ranks": 3, "ntasks": 4})
 * comes once per interval when batch mode watches a job.
 * Counters appear as rates (model_metric), so a counter has no key at all
 * on its first sample: absent is never written as 0.
 *
 * Each record (a node's sample with its ranks: one) is composed in a
 * buffer of this file's own and handed to stdio in one unlocked write: a
 * thousand-node job prints some 200,000 tokens a second, and stdio's
 * calls per token (each a function call, a lock, a buffer check) and
 * printf's format parsing for every integer were about a quarter of the
 * monitor's CPU (perf of `jobtop -r REC -b --json` on a 1,024-node
 * recording).  The monitor writes its output from one thread.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect-gpu.h"
#include "feed.h"
#include "out.h"
#include "out-json.h"
#include "xmalloc.h"



/* A record being composed. */
struct jbuf {
	char	*p;
	size_t	 n, cap;
};

static struct jbuf	jrec;		/* the record being written */

static void
jb_grow(struct jbuf *b, size_t k)
{
	size_t	cap = b->cap != 0 ? b->cap : 4096;

	while (cap - b->n < k)
		cap *= 2;
	b->p = xreallocarray(b->p, cap, 1);
	b->cap = cap;
}

static inline void
jb_put(struct jbuf *b, const void *p, size_t k)
{
	if (b->cap - b->n < k)
		jb_grow(b, k);
	memcpy(b->p + b->n, p, k);
	b->n += k;
}

static inline void
jb_c(struct jbuf *b, char c)
{
	if (b->n == b->cap)
		jb_grow(b, 1);
	b->p[b->n++] = c;
}

/* A constant string. */
#define jb_lit(b, s)	jb_put((b), (s), sizeof(s) - 1)
/* A following key: ,"k": */
#define jb_key(b, k)	jb_lit((b), ",\"" k "\":")

static inline void
jb_s(struct jbuf *b, const char *s)
{
	jb_put(b, s, strlen(s));
}

/* The record out, in one write. */
static void
jb_out(struct jbuf *b, FILE *f)
{
	if (b->n > 0)
		fwrite_unlocked(b->p, 1, b->n, f);
	b->n = 0;
}

static void
jb_u64(struct jbuf *b, uint64_t x)
{
	char	buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + x % 10);
		x /= 10;
	} while (x != 0);
	jb_put(b, p, (size_t)(buf + sizeof(buf) - p));
}

static void
jb_i64(struct jbuf *b, int64_t x)
{
	if (x < 0) {
		jb_c(b, '-');
		jb_u64(b, (uint64_t)0 - (uint64_t)x);
	} else
		jb_u64(b, (uint64_t)x);
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0; its
 * code point in *cpp. */
static size_t
out_json_utf8_len(const unsigned char *p, size_t n, uint32_t *cpp)
{
	uint32_t	cp;
	size_t		len, i;

	if (p[0] < 0xc2)
		return 0;
	if (p[0] < 0xe0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] < 0xf0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] < 0xf5) {
		len = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	*cpp = cp;
	return len;
}

/* Code points valid in JSON that a terminal or an editor may still act
 * on: the C1 controls (U+009B is CSI), the line and paragraph separators
 * and the bidi marks, embeddings, overrides and isolates.  They are
 * written as \uXXXX, which JSON readers decode to the same string. */
static int
out_json_escape_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
	    cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

static void
jb_str(struct jbuf *b, const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, n, run;
	uint32_t		 cp;
	char			 hex[16];

	jb_c(b, '"');
	while (i < len) {
		/* The plain run: copied in one go. */
		for (run = i; run < len && p[run] >= 0x20 && p[run] < 0x7f &&
		    p[run] != '"' && p[run] != '\\'; run++)
			;
		if (run > i) {
			jb_put(b, p + i, run - i);
			i = run;
			if (i == len)
				break;
		}
		if (p[i] >= 0x80) {
			if ((n = out_json_utf8_len(p + i, len - i, &cp)) ==
			    0) {
				jb_lit(b, "\\ufffd");
				i++;
			} else if (out_json_escape_cp(cp)) {
				snprintf(hex, sizeof(hex), "\\u%04x",
				    (unsigned)cp);
				jb_put(b, hex, 6);
				i += n;
			} else {
				jb_put(b, p + i, n);
				i += n;
			}
			continue;
		}
		switch (p[i]) {
		case '"':
			jb_lit(b, "\\\"");
			break;
		case '\\':
			jb_lit(b, "\\\\");
			break;
		case '\n':
			jb_lit(b, "\\n");
			break;
		case '\r':
			jb_lit(b, "\\r");
			break;
		case '\t':
			jb_lit(b, "\\t");
			break;
		default:
			snprintf(hex, sizeof(hex), "\\u%04x", p[i]);
			jb_put(b, hex, 6);
			break;
		}
		i++;
	}
	jb_c(b, '"');
}

static inline void
jb_cstr(struct jbuf *b, const char *s)
{
	jb_str(b, s, strlen(s));
}

static void
jb_num(struct jbuf *b, double v)
{
	char		 buf[64], *p = buf + sizeof(buf);
	double		 m, f;
	long long	 x, t;
	unsigned	 frac = 0, k, neg;
	size_t		 len;

	if (!isfinite(v)) {
		jb_lit(b, "null");
		return;
	}
	if (fabs(v) >= 1e15) {
		len = (size_t)snprintf(buf, sizeof(buf), "%.17g", v);
		jb_put(b, buf, len);
		return;
	}
	/*
	 * What "%.0f" or "%.3f" with trailing zeros cut would print, without
	 * printf (a thousand-node job prints fifty thousand numbers a
	 * second): thousandths rounded to nearest, and printf itself where
	 * v * 1000 falls within a few units in the last place of a half
	 * (where the rounding depends on digits the product lost) or has
	 * too few bits for its integer part (1e12 and more).
	 */
	if (v == floor(v))
		x = (long long)v;
	else {
		m = v * 1000;
		/* m to nearest by integers (nearbyint is a libm call on
		 * x86-64's baseline ISA); halves go to printf below. */
		t = fabs(v) < 1e12 ? (long long)m : 0;
		f = m - (double)t;
		if (fabs(v) >= 1e12 || fabs(fabs(f) - 0.5) <
		    fabs(m) * 1e-15 + 1e-9) {
			snprintf(buf, sizeof(buf), "%.3f", v);
			len = strlen(buf);
			while (len > 0 && buf[len - 1] == '0')
				buf[--len] = '\0';
			if (len > 0 && buf[len - 1] == '.')
				buf[--len] = '\0';
			if (strcmp(buf, "-0") == 0)
				jb_c(b, '0');
			else
				jb_put(b, buf, len);
			return;
		}
		t += f > 0.5 ? 1 : f < -0.5 ? -1 : 0;
		x = t / 1000;
		frac = (unsigned)llabs(t % 1000);
		neg = t < 0;
		if (frac != 0) {
			for (k = 0; frac % 10 == 0; k++)
				frac /= 10;
			for (; k < 3; k++) {
				*--p = (char)('0' + frac % 10);
				frac /= 10;
			}
			*--p = '.';
		}
		/* -0.xyz: no negative integer part to carry the sign */
		if (x == 0 && neg && p != buf + sizeof(buf)) {
			*--p = '0';
			*--p = '-';
			jb_put(b, p, (size_t)(buf + sizeof(buf) - p));
			return;
		}
	}
	neg = x < 0;
	do {
		*--p = (char)('0' + (unsigned)llabs(x % 10));
		x /= 10;
	} while (x != 0);
	if (neg)
		*--p = '-';
	jb_put(b, p, (size_t)(buf + sizeof(buf) - p));
}

/* Unix milliseconds as seconds with three decimals. */
static void
jb_time(struct jbuf *b, uint64_t ms)
{
	char	frac[4];

	jb_u64(b, ms / 1000);
	frac[0] = '.';
	frac[1] = (char)('0' + ms % 1000 / 100);
	frac[2] = (char)('0' + ms % 100 / 10);
	frac[3] = (char)('0' + ms % 10);
	jb_put(b, frac, 4);
}

/* The three for other writers (exports, the event log): each a write of
 * its own on f. */
void
out_json_string(FILE *f, const char *s, size_t len)
{
	static struct jbuf	b;

	jb_str(&b, s, len);
	jb_out(&b, f);
}

void
out_json_number(FILE *f, double v)
{
	static struct jbuf	b;

	jb_num(&b, v);
	jb_out(&b, f);
}

void
out_json_time(FILE *f, uint64_t ms)
{
	static struct jbuf	b;

	jb_time(&b, ms);
	jb_out(&b, f);
}

static int	(*out_json_flags_fn)(void *, const struct node_model *,
		    const struct minst *, const char **, int);
static void	*out_json_flags_arg;

void
out_json_set_flags(int (*fn)(void *, const struct node_model *,
    const struct minst *, const char **, int), void *arg)
{
	out_json_flags_fn = fn;
	out_json_flags_arg = arg;
}

/* ,"flags":[...] when a hook is set. */
static void
out_json_flags(struct jbuf *b, const struct node_model *m,
    const struct minst *mi)
{
	const char	*names[16];
	int		 i, n;

	if (out_json_flags_fn == NULL)
		return;
	n = out_json_flags_fn(out_json_flags_arg, m, mi, names, 16);
	jb_lit(b, ",\"flags\":[");
	for (i = 0; i < n; i++) {
		if (i > 0)
			jb_c(b, ',');
		jb_cstr(b, names[i]);
	}
	jb_c(b, ']');
}

static int	(*out_json_keep_fn)(void *, const char *, const char *);
static void	*out_json_keep_arg;

void
out_json_set_keep(int (*fn)(void *, const char *, const char *), void *arg)
{
	out_json_keep_fn = fn;
	out_json_keep_arg = arg;
}

/* Is group.field printed (export --fields)? */
static int
out_json_keep(const char *group, const char *field)
{
	return out_json_keep_fn == NULL ||
	    out_json_keep_fn(out_json_keep_arg, group, field);
}

int
out_json_value(const struct node_model *m, const struct minst *mi, unsigned f,
    struct out_json_val *v)
{
	const struct proto_field	*pf = &mi->mg->def->fields[f];

	if (pf->kind == PF_STRING) {
		v->kind = 's';
		return (v->s = model_str(mi, f)) != NULL;
	}
	if (pf->kind == PF_GAUGE &&
	    (mi->mg->centimask & ((uint64_t)1 << f)) == 0) {
		v->kind = 'i';
		return model_value(mi, f, &v->i);
	}
	v->kind = 'd';
	return model_metric(m, mi, f, &v->d);
}

static void
out_json_put(struct jbuf *b, const struct out_json_val *v)
{
	switch (v->kind) {
	case 'i':
		jb_i64(b, v->i);
		break;
	case 's':
		jb_cstr(b, v->s);
		break;
	default:
		jb_num(b, v->d);
		break;
	}
}

/* A field's key ",\"group.field\":" (schema names need no escaping:
 * proto checks them), bound per schema. */
static inline void
out_json_key(struct jbuf *b, const struct mgroup *mg, unsigned f)
{
	jb_lit(b, ",\"");
	jb_put(b, mg->qnames + mg->qoff[f], mg->qlen[f]);
	jb_lit(b, "\":");
}

/* A derived value's key. */
static inline void
out_json_dkey(struct jbuf *b, const struct model_derived *d)
{
	jb_lit(b, ",\"");
	jb_s(b, d->qname);
	jb_lit(b, "\":");
}

/* The record's common head: time, node and type. */
static void
out_json_head(struct jbuf *b, const char *node, uint64_t time_ms,
    const char *type)
{
	jb_lit(b, "{\"time\":");
	jb_time(b, time_ms);
	jb_key(b, "node");
	jb_cstr(b, node);
	jb_lit(b, ",\"type\":\"");
	jb_s(b, type);
	jb_c(b, '"');
}

/* Every field of a group with named instances: one object per field. */
static void
out_json_named_group(struct jbuf *b, const struct node_model *m, unsigned g)
{
	const struct mgroup	*mg = model_group(m, g);
	const struct minst	*mi;
	const struct model_derived *d;
	struct out_json_val	 v;
	unsigned		 fi, di;
	int			 open;

	for (fi = 0; fi < mg->def->nfields; fi++) {
		open = 0;
		if (!out_json_keep(mg->def->name, mg->def->fields[fi].name))
			continue;
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			if (!out_json_value(m, mi, fi, &v))
				continue;
			if (!open)
				out_json_key(b, mg, fi);
			jb_c(b, open ? ',' : '{');
			open = 1;
			jb_cstr(b, mi->name);
			jb_c(b, ':');
			out_json_put(b, &v);
		}
		if (open)
			jb_c(b, '}');
	}
	for (di = 0; di < mg->nderived; di++) {
		d = &model_derived[mg->derived[di]];
		if (!out_json_keep(d->group, d->name))
			continue;
		open = 0;
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			if (!d->fn(m, mi, &v.d))
				continue;
			if (!open)
				out_json_dkey(b, d);
			jb_c(b, open ? ',' : '{');
			open = 1;
			jb_cstr(b, mi->name);
			jb_c(b, ':');
			jb_num(b, v.d);
		}
		if (open)
			jb_c(b, '}');
	}
}

/* A node-wide group's (or a rank's) fields and derived values as plain
 * "group.field" keys, but those in skip. */
static void
out_json_plain(struct jbuf *b, const struct node_model *m,
    const struct minst *mi, uint64_t skip)
{
	const struct mgroup		*mg = mi->mg;
	const struct model_derived	*d;
	struct out_json_val		 v;
	unsigned			 fi, di;
	double				 x;

	for (fi = 0; fi < mg->def->nfields; fi++) {
		if ((skip & ((uint64_t)1 << fi)) != 0 ||
		    !out_json_keep(mg->def->name, mg->def->fields[fi].name) ||
		    !out_json_value(m, mi, fi, &v))
			continue;
		out_json_key(b, mg, fi);
		out_json_put(b, &v);
	}
	for (di = 0; di < mg->nderived; di++) {
		d = &model_derived[mg->derived[di]];
		if (out_json_keep(d->group, d->name) && d->fn(m, mi, &x)) {
			out_json_dkey(b, d);
			jb_num(b, x);
		}
	}
}

/*
 * The groups keyed by a rank's pid (PROTOCOL.md: a name "rank" and more,
 * rankmpi, ranknuma, rankperf): each one's instance named like the rank
 * record's goes into that record too, so a consumer needs no join.  Their
 * instances come in the order of the rank's, so a cursor per group finds
 * each in one step; a search from the group's start otherwise.
 */
#define OUT_JSON_PIDGROUPS	8

struct out_json_pid {
	unsigned		 n;
	unsigned		 g[OUT_JSON_PIDGROUPS];
	const struct minst	*cur[OUT_JSON_PIDGROUPS];
};

static void
out_json_pid_begin(const struct node_model *m, int rank_g,
    struct out_json_pid *pk)
{
	const char	*name;
	unsigned	 g;

	pk->n = 0;
	for (g = 0; g < m->schema->ngroups && pk->n < OUT_JSON_PIDGROUPS;
	    g++) {
		name = model_group(m, g)->def->name;
		if ((int)g == rank_g || strncmp(name, "rank", 4) != 0 ||
		    name[4] == '\0' || m->gfirst[g] == NULL)
			continue;
		pk->g[pk->n] = g;
		pk->cur[pk->n++] = m->gfirst[g];
	}
}

/* The pid-keyed groups' fields of rank instance mi, as "group.field". */
static void
out_json_pid_fields(struct jbuf *b, const struct node_model *m,
    const struct minst *mi, struct out_json_pid *pk)
{
	const struct minst	*x;
	unsigned		 k;

	for (k = 0; k < pk->n; k++) {
		x = pk->cur[k];
		if (x == NULL || strcmp(x->name, mi->name) != 0)
			x = model_inst_by_name(m, pk->g[k], mi->name);
		if (x == NULL)
			continue;
		pk->cur[k] = x->gnext;
		out_json_plain(b, m, x, 0);
	}
}

/* ,"gpus":[{"gpu":0,"util":37,"mem_used":B}] of the GPUs the rank's
 * process uses (gpuproc by pid, detect-gpu.h); nothing when none. */
static void
out_json_rank_gpus(struct jbuf *b, const struct node_model *m,
    const struct minst *mi)
{
	struct rank_gpu	rg[8];
	int64_t		pid;
	unsigned	n, k;
	int		fp;

	if ((fp = mi->mg->known[MGF_PID]) < 0 ||
	    !model_value(mi, (unsigned)fp, &pid) ||
	    (n = rank_gpus(m, pid, rg, 8)) == 0)
		return;
	jb_lit(b, ",\"gpus\":[");
	for (k = 0; k < n; k++) {
		if (k > 0)
			jb_c(b, ',');
		jb_lit(b, "{\"gpu\":");
		jb_i64(b, rg[k].gpu);
		if (isfinite(rg[k].util)) {
			jb_lit(b, ",\"util\":");
			jb_num(b, rg[k].util);
		}
		if (isfinite(rg[k].mem)) {
			jb_lit(b, ",\"mem_used\":");
			jb_num(b, rg[k].mem);
		}
		jb_c(b, '}');
	}
	jb_c(b, ']');
}

/* One rank's record: rank, pid and state first, the rest as rank.*, then
 * what the pid-keyed groups say of it (rankmpi.share, ranknuma.n0). */
static void
out_json_rank(struct jbuf *b, const struct node_model *m,
    const struct minst *mi, struct out_json_pid *pk)
{
	static const char	*lead[] = { "rank", "pid", "state" };
	static const enum mgroup_known	known[] = {
		MGF_RANK, MGF_PID, MGF_STATE
	};
	struct out_json_val	 v;
	uint64_t		 skip = 0;
	unsigned		 i;
	int			 fi;

	out_json_head(b, model_name(m), m->time_ms, "rank");
	for (i = 0; i < sizeof(lead) / sizeof(lead[0]); i++) {
		if ((fi = mi->mg->known[known[i]]) < 0)
			continue;
		skip |= (uint64_t)1 << fi;
		if (!out_json_value(m, mi, (unsigned)fi, &v))
			continue;
		jb_lit(b, ",\"");
		jb_s(b, lead[i]);
		jb_lit(b, "\":");
		out_json_put(b, &v);
	}
	out_json_plain(b, m, mi, skip);
	out_json_pid_fields(b, m, mi, pk);
	out_json_rank_gpus(b, m, mi);
	out_json_flags(b, m, mi);
	jb_lit(b, "}\n");
}

static void
out_json_sample(FILE *f, const struct node_model *m)
{
	struct jbuf		*b = &jrec;
	const struct minst	*mi;
	struct out_json_pid	 pk;
	unsigned		 g;
	int			 rank_g;

	if (m->schema == NULL)
		return;
	rank_g = model_group_index(m, OUT_RANK_GROUP);
	out_json_head(b, model_name(m), m->time_ms, "node");
	jb_key(b, "seq");
	jb_u64(b, m->seq);
	for (g = 0; g < m->schema->ngroups; g++) {
		if ((int)g == rank_g || m->gfirst[g] == NULL)
			continue;
		if (model_group_named(m, g))
			out_json_named_group(b, m, g);
		else
			out_json_plain(b, m, m->gfirst[g], 0);
	}
	out_json_flags(b, m, NULL);
	jb_lit(b, "}\n");
	if (rank_g >= 0) {
		out_json_pid_begin(m, rank_g, &pk);
		for (mi = m->gfirst[rank_g]; mi != NULL; mi = mi->gnext)
			out_json_rank(b, m, mi, &pk);
	}
	jb_out(b, f);
}

static void
out_json_hello(FILE *f, const struct node_model *m)
{
	struct jbuf			*b = &jrec;
	const struct model_hello	*h = &m->hello;
	const struct model_source	*src;
	char				 val[PROTO_TEXT_MAX + 8];
	unsigned			 i;

	out_json_head(b, model_name(m), h->start_ms, "hello");
	jb_lit(b, ",\"protocol\":\"");
	jb_u64(b, h->major);
	jb_c(b, '.');
	jb_u64(b, h->minor);
	jb_lit(b, "\",\"version\":");
	jb_cstr(b, h->version);
	jb_key(b, "kernel");
	jb_cstr(b, h->kernel);
	jb_key(b, "arch");
	jb_cstr(b, h->arch);
	jb_key(b, "ncpu");
	jb_u64(b, h->ncpu);
	jb_key(b, "mem_total");
	jb_u64(b, h->mem_total);
	jb_key(b, "clk_tck");
	jb_u64(b, h->clk_tck);
	jb_key(b, "page_size");
	jb_u64(b, h->page_size);
	jb_key(b, "interval");
	jb_num(b, h->interval_ms / 1000.0);
	if (h->job[0] != '\0') {
		jb_key(b, "job");
		jb_cstr(b, h->job);
	}
	jb_lit(b, ",\"sources\":{");
	for (i = 0; i < h->nsources; i++) {
		src = &h->sources[i];
		if (i > 0)
			jb_c(b, ',');
		jb_cstr(b, src->name);
		jb_c(b, ':');
		if (src->on)
			jb_lit(b, "\"on\"");
		else {
			snprintf(val, sizeof(val), "off: %s", src->reason);
			jb_cstr(b, val);
		}
	}
	jb_lit(b, "}}\n");
	jb_out(b, f);
}

/* {..., "type": "event", "level", "code", "text", "rank", "pid"}: rank
 * and pid only when the event names them (a detector's flag on a rank). */
static void
out_json_event(FILE *f, const struct node_model *m,
    const struct proto_event *ev, const struct rec_subject *sj)
{
	static const char	*levels[] = { "info", "warn", "error" };
	struct jbuf		*b = &jrec;

	out_json_head(b, model_name(m), ev->time_ms, "event");
	jb_lit(b, ",\"level\":\"");
	jb_s(b, ev->level <= EV_ERROR ? levels[ev->level] : "error");
	jb_lit(b, "\",\"code\":");
	jb_cstr(b, ev->code);
	jb_key(b, "text");
	jb_cstr(b, ev->text);
	if (sj != NULL && sj->rank >= 0) {
		jb_key(b, "rank");
		jb_i64(b, sj->rank);
	}
	if (sj != NULL && sj->pid >= 0) {
		jb_key(b, "pid");
		jb_i64(b, sj->pid);
	}
	jb_lit(b, "}\n");
	jb_out(b, f);
}

static void
out_json_bye(FILE *f, const struct node_model *m)
{
	struct jbuf	*b = &jrec;

	out_json_head(b, model_name(m), m->time_ms, "bye");
	jb_key(b, "code");
	jb_u64(b, m->bye_code);
	jb_key(b, "text");
	jb_cstr(b, m->bye_text != NULL ? m->bye_text : "");
	jb_lit(b, "}\n");
	jb_out(b, f);
}

/* {"time": T, "node": N, "type": "state", "state": S, "flags": [...]} */
static void
out_json_state(FILE *f, const char *node, uint64_t ms, const char *state,
    int phase)
{
	struct jbuf	*b = &jrec;

	out_json_head(b, node, ms, "state");
	jb_key(b, "state");
	jb_cstr(b, state);
	if (phase == FEED_LOST)
		jb_lit(b, ",\"flags\":[\"lost\"]");
	jb_lit(b, "}\n");
	jb_out(b, f);
}

/* {"time": T, "type": "job", "job": ID, "ranks": R | "procs": P,
 * "ntasks": N}: procs without ranks, ntasks only when known; the last
 * record of a job that ended is {"time", "type": "job", "job", "state"}. */
static void
out_json_job(FILE *f, uint64_t ms, const struct out_job *j)
{
	struct jbuf	*b = &jrec;

	jb_lit(b, "{\"time\":");
	jb_time(b, ms);
	jb_lit(b, ",\"type\":\"job\",\"job\":");
	jb_cstr(b, j->id);
	if (j->ranks >= 0) {
		jb_key(b, "ranks");
		jb_i64(b, j->ranks);
	} else if (j->procs >= 0) {
		jb_key(b, "procs");
		jb_i64(b, j->procs);
	}
	if (j->ntasks > 0) {
		jb_key(b, "ntasks");
		jb_i64(b, j->ntasks);
	}
	if (j->state != NULL) {
		jb_key(b, "state");
		jb_cstr(b, j->state);
	}
	jb_lit(b, "}\n");
	jb_out(b, f);
}

/* {"time": T, "node": N, "type": "transport", "transport": "ssh",
 * "skipped": "libssh2: ..."}: skipped only when some were. */
static void
out_json_transport(FILE *f, const char *node, uint64_t ms, const char *t,
    const char *skipped)
{
	struct jbuf	*b = &jrec;

	out_json_head(b, node, ms, "transport");
	jb_key(b, "transport");
	jb_cstr(b, t);
	if (*skipped != '\0') {
		jb_key(b, "skipped");
		jb_cstr(b, skipped);
	}
	jb_lit(b, "}\n");
	jb_out(b, f);
}

const struct output out_json = {
	.name = "json",
	.hello = out_json_hello,
	.sample = out_json_sample,
	.event = out_json_event,
	.bye = out_json_bye,
	.state = out_json_state,
	.job = out_json_job,
	.transport = out_json_transport,
};
