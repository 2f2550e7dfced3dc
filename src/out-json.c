/*
 * out-json: the model as newline-delimited JSON.  A node record carries
 * every group but the ranks: fields of node-wide groups as plain
 * "group.field" values, fields of groups with named instances (core, disk,
 * net) as objects keyed by instance name.  Each rank gets its own record.
 * A job record ({"type": "job", "job": ID, "ranks": 3, "ntasks": 4})
 * comes once per interval when batch mode watches a job.
 * Counters appear as rates (model_metric), so a counter has no key at all
 * on its first sample: absent is never written as 0.
 *
 * Output goes through stdio's unlocked calls: a thousand-node job prints
 * some 200,000 tokens a second, and stdio's calls, each taking the
 * stream's lock, came to about a tenth of the monitor's CPU (perf,
 * bench-fanout at 1024 nodes).  The monitor writes its output from one
 * thread.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "out.h"
#include "out-json.h"


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

void
out_json_string(FILE *f, const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, n;
	uint32_t		 cp;

	putc_unlocked('"', f);
	while (i < len) {
		if (p[i] >= 0x80) {
			if ((n = out_json_utf8_len(p + i, len - i, &cp)) ==
			    0) {
				fputs_unlocked("\\ufffd", f);
				i++;
			} else if (out_json_escape_cp(cp)) {
				fprintf(f, "\\u%04x", (unsigned)cp);
				i += n;
			} else {
				fwrite_unlocked(p + i, 1, n, f);
				i += n;
			}
			continue;
		}
		switch (p[i]) {
		case '"':
			fputs_unlocked("\\\"", f);
			break;
		case '\\':
			fputs_unlocked("\\\\", f);
			break;
		case '\n':
			fputs_unlocked("\\n", f);
			break;
		case '\r':
			fputs_unlocked("\\r", f);
			break;
		case '\t':
			fputs_unlocked("\\t", f);
			break;
		default:
			if (p[i] < 0x20 || p[i] == 0x7f)
				fprintf(f, "\\u%04x", p[i]);
			else
				putc_unlocked(p[i], f);
			break;
		}
		i++;
	}
	putc_unlocked('"', f);
}

void
out_json_number(FILE *f, double v)
{
	char		 buf[64], *p = buf + sizeof(buf);
	double		 m, r;
	long long	 x;
	unsigned	 frac = 0, k, neg;
	size_t		 len;

	if (!isfinite(v)) {
		fputs_unlocked("null", f);
		return;
	}
	if (fabs(v) >= 1e15) {
		len = (size_t)snprintf(buf, sizeof(buf), "%.17g", v);
		fwrite_unlocked(buf, 1, len, f);
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
		r = nearbyint(m);
		if (fabs(v) >= 1e12 || fabs(fabs(m - trunc(m)) - 0.5) <
		    fabs(m) * 1e-15 + 1e-9) {
			snprintf(buf, sizeof(buf), "%.3f", v);
			len = strlen(buf);
			while (len > 0 && buf[len - 1] == '0')
				buf[--len] = '\0';
			if (len > 0 && buf[len - 1] == '.')
				buf[--len] = '\0';
			if (strcmp(buf, "-0") == 0)
				putc_unlocked('0', f);
			else
				fwrite_unlocked(buf, 1, len, f);
			return;
		}
		x = (long long)r / 1000;
		frac = (unsigned)llabs((long long)r % 1000);
		neg = r < 0;
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
			fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), f);
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
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

void
out_json_time(FILE *f, uint64_t ms)
{
	fprintf(f, "%" PRIu64 ".%03u", ms / 1000, (unsigned)(ms % 1000));
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
out_json_flags(FILE *f, const struct node_model *m, const struct minst *mi)
{
	const char	*names[16];
	int		 i, n;

	if (out_json_flags_fn == NULL)
		return;
	n = out_json_flags_fn(out_json_flags_arg, m, mi, names, 16);
	fputs_unlocked(",\"flags\":[", f);
	for (i = 0; i < n; i++) {
		if (i > 0)
			putc_unlocked(',', f);
		out_json_string(f, names[i], strlen(names[i]));
	}
	putc_unlocked(']', f);
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
	if (pf->kind == PF_GAUGE && strcmp(pf->unit, "centi") != 0) {
		v->kind = 'i';
		return model_value(mi, f, &v->i);
	}
	v->kind = 'd';
	return model_metric(m, mi, f, &v->d);
}

static void
out_json_put(FILE *f, const struct out_json_val *v)
{
	switch (v->kind) {
	case 'i':
		fprintf(f, "%" PRId64, v->i);
		break;
	case 's':
		out_json_string(f, v->s, strlen(v->s));
		break;
	default:
		out_json_number(f, v->d);
		break;
	}
}

/* A key "group.field" (JSON-escaped, though schema names need none). */
static void
out_json_key2(FILE *f, const char *group, const char *field)
{
	char	buf[2 * PROTO_NAME_MAX + 8];
	size_t	gl = strlen(group), fl = strlen(field), n = 0;

	/* One write instead of six: a thousand-node job prints a hundred
	 * thousand keys a second. */
	if (gl >= PROTO_NAME_MAX || fl >= PROTO_NAME_MAX) {
		fprintf(f, ",\"%s.%s\":", group, field);
		return;
	}
	buf[n++] = ',';
	buf[n++] = '"';
	memcpy(buf + n, group, gl);
	n += gl;
	buf[n++] = '.';
	memcpy(buf + n, field, fl);
	n += fl;
	buf[n++] = '"';
	buf[n++] = ':';
	fwrite_unlocked(buf, 1, n, f);
}

/* The record's common head: time, node and type. */
static void
out_json_head(FILE *f, const struct node_model *m, uint64_t time_ms,
    const char *type)
{
	const char	*name = model_name(m);

	fputs_unlocked("{\"time\":", f);
	out_json_time(f, time_ms);
	fputs_unlocked(",\"node\":", f);
	out_json_string(f, name, strlen(name));
	fprintf(f, ",\"type\":\"%s\"", type);
}

/* Every field of a group with named instances: one object per field. */
static void
out_json_named_group(FILE *f, const struct node_model *m, unsigned g)
{
	const struct mgroup	*mg = model_group(m, g);
	const struct minst	*mi;
	const struct model_derived *d;
	struct out_json_val	 v;
	unsigned		 fi;
	int			 open;

	for (fi = 0; fi < mg->def->nfields; fi++) {
		open = 0;
		if (!out_json_keep(mg->def->name, mg->def->fields[fi].name))
			continue;
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			if (!out_json_value(m, mi, fi, &v))
				continue;
			if (!open)
				out_json_key2(f, mg->def->name,
				    mg->def->fields[fi].name);
			putc_unlocked(open ? ',' : '{', f);
			open = 1;
			out_json_string(f, mi->name, strlen(mi->name));
			putc_unlocked(':', f);
			out_json_put(f, &v);
		}
		if (open)
			putc_unlocked('}', f);
	}
	for (d = model_derived; d->group != NULL; d++) {
		if (strcmp(d->group, mg->def->name) != 0 ||
		    !out_json_keep(d->group, d->name))
			continue;
		open = 0;
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			if (!d->fn(m, mi, &v.d))
				continue;
			if (!open)
				out_json_key2(f, d->group, d->name);
			putc_unlocked(open ? ',' : '{', f);
			open = 1;
			out_json_string(f, mi->name, strlen(mi->name));
			putc_unlocked(':', f);
			out_json_number(f, v.d);
		}
		if (open)
			putc_unlocked('}', f);
	}
}

/* A node-wide group's fields and derived values as plain keys.  With
 * prefix NULL the field names are used alone (the rank record's own
 * keys). */
static void
out_json_plain(FILE *f, const struct node_model *m, const struct minst *mi,
    const char *prefix, uint64_t skip)
{
	const struct mgroup		*mg = mi->mg;
	const struct model_derived	*d;
	struct out_json_val		 v;
	unsigned			 fi;
	double				 x;

	for (fi = 0; fi < mg->def->nfields; fi++) {
		if ((skip & ((uint64_t)1 << fi)) != 0 ||
		    !out_json_keep(mg->def->name, mg->def->fields[fi].name) ||
		    !out_json_value(m, mi, fi, &v))
			continue;
		out_json_key2(f, prefix, mg->def->fields[fi].name);
		out_json_put(f, &v);
	}
	for (d = model_derived; d->group != NULL; d++) {
		if (strcmp(d->group, mg->def->name) == 0 &&
		    out_json_keep(d->group, d->name) && d->fn(m, mi, &x)) {
			out_json_key2(f, prefix, d->name);
			out_json_number(f, x);
		}
	}
}

/* One rank's record: rank, pid and state first, the rest as rank.*. */
static void
out_json_rank(FILE *f, const struct node_model *m, const struct minst *mi)
{
	static const char	*lead[] = { "rank", "pid", "state" };
	struct out_json_val	 v;
	uint64_t		 skip = 0;
	unsigned		 i;
	int			 fi;

	out_json_head(f, m, m->time_ms, "rank");
	for (i = 0; i < sizeof(lead) / sizeof(lead[0]); i++) {
		if ((fi = model_field_index(m, mi->group, lead[i])) < 0)
			continue;
		skip |= (uint64_t)1 << fi;
		if (!out_json_value(m, mi, (unsigned)fi, &v))
			continue;
		fprintf(f, ",\"%s\":", lead[i]);
		out_json_put(f, &v);
	}
	out_json_plain(f, m, mi, mi->mg->def->name, skip);
	out_json_flags(f, m, mi);
	fputs_unlocked("}\n", f);
}

static void
out_json_sample(FILE *f, const struct node_model *m)
{
	const struct mgroup	*mg;
	const struct minst	*mi;
	unsigned		 g;
	int			 rank_g;

	if (m->schema == NULL)
		return;
	rank_g = model_group_index(m, OUT_RANK_GROUP);
	out_json_head(f, m, m->time_ms, "node");
	fprintf(f, ",\"seq\":%" PRIu64, m->seq);
	for (g = 0; g < m->schema->ngroups; g++) {
		mg = model_group(m, g);
		if ((int)g == rank_g || m->gfirst[g] == NULL)
			continue;
		if (model_group_named(m, g))
			out_json_named_group(f, m, g);
		else
			out_json_plain(f, m, m->gfirst[g], mg->def->name, 0);
	}
	out_json_flags(f, m, NULL);
	fputs_unlocked("}\n", f);
	if (rank_g < 0)
		return;
	for (mi = m->gfirst[rank_g]; mi != NULL; mi = mi->gnext)
		out_json_rank(f, m, mi);
}

static void
out_json_hello(FILE *f, const struct node_model *m)
{
	const struct model_hello	*h = &m->hello;
	const struct model_source	*src;
	char				 val[PROTO_TEXT_MAX + 8];
	unsigned			 i;

	out_json_head(f, m, h->start_ms, "hello");
	fprintf(f, ",\"protocol\":\"%u.%u\",\"version\":", h->major, h->minor);
	out_json_string(f, h->version, strlen(h->version));
	fputs_unlocked(",\"kernel\":", f);
	out_json_string(f, h->kernel, strlen(h->kernel));
	fputs_unlocked(",\"arch\":", f);
	out_json_string(f, h->arch, strlen(h->arch));
	fprintf(f, ",\"ncpu\":%u,\"mem_total\":%" PRIu64 ",\"clk_tck\":%u"
	    ",\"page_size\":%u,\"interval\":", h->ncpu, h->mem_total,
	    h->clk_tck, h->page_size);
	out_json_number(f, h->interval_ms / 1000.0);
	if (h->job[0] != '\0') {
		fputs_unlocked(",\"job\":", f);
		out_json_string(f, h->job, strlen(h->job));
	}
	fputs_unlocked(",\"sources\":{", f);
	for (i = 0; i < h->nsources; i++) {
		src = &h->sources[i];
		if (i > 0)
			putc_unlocked(',', f);
		out_json_string(f, src->name, strlen(src->name));
		putc_unlocked(':', f);
		if (src->on)
			fputs_unlocked("\"on\"", f);
		else {
			snprintf(val, sizeof(val), "off: %s", src->reason);
			out_json_string(f, val, strlen(val));
		}
	}
	fputs_unlocked("}}\n", f);
}

/* {..., "type": "event", "level", "code", "text", "rank", "pid"}: rank
 * and pid only when the event names them (a detector's flag on a rank). */
static void
out_json_event(FILE *f, const struct node_model *m,
    const struct proto_event *ev, const struct rec_subject *sj)
{
	static const char	*levels[] = { "info", "warn", "error" };

	out_json_head(f, m, ev->time_ms, "event");
	fprintf(f, ",\"level\":\"%s\",\"code\":",
	    ev->level <= EV_ERROR ? levels[ev->level] : "error");
	out_json_string(f, ev->code, strlen(ev->code));
	fputs_unlocked(",\"text\":", f);
	out_json_string(f, ev->text, strlen(ev->text));
	if (sj != NULL && sj->rank >= 0)
		fprintf(f, ",\"rank\":%lld", (long long)sj->rank);
	if (sj != NULL && sj->pid >= 0)
		fprintf(f, ",\"pid\":%lld", (long long)sj->pid);
	fputs_unlocked("}\n", f);
}

static void
out_json_bye(FILE *f, const struct node_model *m)
{
	const char	*text = m->bye_text != NULL ? m->bye_text : "";

	out_json_head(f, m, m->time_ms, "bye");
	fprintf(f, ",\"code\":%u,\"text\":", m->bye_code);
	out_json_string(f, text, strlen(text));
	fputs_unlocked("}\n", f);
}

/* {"time": T, "node": N, "type": "state", "state": S, "flags": [...]} */
static void
out_json_state(FILE *f, const char *node, uint64_t ms, const char *state,
    int phase)
{
	fputs_unlocked("{\"time\":", f);
	out_json_time(f, ms);
	fputs_unlocked(",\"node\":", f);
	out_json_string(f, node, strlen(node));
	fputs_unlocked(",\"type\":\"state\",\"state\":", f);
	out_json_string(f, state, strlen(state));
	if (phase == FEED_LOST)
		fputs_unlocked(",\"flags\":[\"lost\"]", f);
	fputs_unlocked("}\n", f);
}

/* {"time": T, "type": "job", "job": ID, "ranks": R | "procs": P,
 * "ntasks": N}: procs without ranks, ntasks only when known; the last
 * record of a job that ended is {"time", "type": "job", "job", "state"}. */
static void
out_json_job(FILE *f, uint64_t ms, const struct out_job *j)
{
	fputs_unlocked("{\"time\":", f);
	out_json_time(f, ms);
	fputs_unlocked(",\"type\":\"job\",\"job\":", f);
	out_json_string(f, j->id, strlen(j->id));
	if (j->ranks >= 0)
		fprintf(f, ",\"ranks\":%ld", j->ranks);
	else if (j->procs >= 0)
		fprintf(f, ",\"procs\":%ld", j->procs);
	if (j->ntasks > 0)
		fprintf(f, ",\"ntasks\":%ld", j->ntasks);
	if (j->state != NULL) {
		fputs_unlocked(",\"state\":", f);
		out_json_string(f, j->state, strlen(j->state));
	}
	fputs_unlocked("}\n", f);
}

/* {"time": T, "node": N, "type": "transport", "transport": "ssh",
 * "skipped": "libssh2: ..."}: skipped only when some were. */
static void
out_json_transport(FILE *f, const char *node, uint64_t ms, const char *t,
    const char *skipped)
{
	fputs_unlocked("{\"time\":", f);
	out_json_time(f, ms);
	fputs_unlocked(",\"node\":", f);
	out_json_string(f, node, strlen(node));
	fputs_unlocked(",\"type\":\"transport\",\"transport\":", f);
	out_json_string(f, t, strlen(t));
	if (*skipped != '\0') {
		fputs_unlocked(",\"skipped\":", f);
		out_json_string(f, skipped, strlen(skipped));
	}
	fputs_unlocked("}\n", f);
}

const struct output out_json = {
	"json", out_json_hello, out_json_sample, out_json_event, out_json_bye,
	out_json_state, out_json_job, out_json_transport
};
