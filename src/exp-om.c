/* SPDX-License-Identifier: ISC */
/*
 * exp-om: a recording as OpenMetrics text, for `promtool tsdb
 * create-blocks-from openmetrics` (Prometheus, hence Grafana).  Every
 * numeric value is a gauge sample with its time: family
 * jobtop_GROUP_FIELD[_UNIT] ("jobtop_disk_read_bytes_bytes_per_second"),
 * labels job, node, and instance or rank and pid; the detectors' flags are
 * jobtop_flag{...,flag="stalled"} 1 while raised; the job's allocation is
 * jobtop_job_cpus, jobtop_job_memory_bytes and
 * jobtop_job_time_limit_seconds{job,partition} at its start and end.
 * Words (a rank's state) and events have no place in a time series and
 * are left out.
 *
 * The format wants each family's samples together and each series in
 * time order, and a recording interleaves nodes and times: the samples
 * are kept in memory and sorted before writing.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "out-json.h"
#include "xmalloc.h"

struct exp_om_family {
	char	*name;		/* sanitized, with the unit suffix */
	char	*key;		/* "group.field" */
	char	*unit;		/* OpenMetrics unit, "" none */
	char	*help;
};

struct exp_om_series {
	size_t	 family;
	char	*labels;	/* job="1",node="n1",... */
};

struct exp_om_point {
	size_t	 series;
	uint64_t ms;
	double	 v;
	size_t	 ord;		/* arrival: the sort keeps it */
};

/* A string-keyed index into one of the arrays (open addressing). */
struct exp_om_map {
	size_t	*slot;		/* index + 1, 0 empty */
	size_t	 cap, n;
};

struct exp_om {
	struct exp_om_family	*fam;
	size_t			 nfam, capfam;
	struct exp_om_series	*ser;
	size_t			 nser, capser;
	struct exp_om_point	*pt;
	size_t			 npt, cappt;
	struct exp_om_map	 fmap, smap;
	char			*job;
	size_t			 flagfam;
};

static uint64_t
exp_om_fnv(const char *a, const char *b)
{
	uint64_t	h = 14695981039346656037ULL;

	for (; *a != '\0'; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; b != NULL && *b != '\0'; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return h;
}

/* The family and series keys of entry i. */
static void
exp_om_keys(const struct exp_om *om, int series, size_t i, const char **a,
    const char **b, char *buf, size_t len)
{
	if (series) {
		snprintf(buf, len, "%zu", om->ser[i].family);
		*a = buf;
		*b = om->ser[i].labels;
	} else {
		*a = om->fam[i].key;
		*b = NULL;
	}
}

static void
exp_om_map_grow(const struct exp_om *om, struct exp_om_map *mp, int series)
{
	const char	*a, *b;
	char		 buf[32];
	size_t		 i, j;

	free(mp->slot);
	mp->cap = mp->cap == 0 ? 1024 : mp->cap * 2;
	mp->slot = xcalloc(mp->cap, sizeof(*mp->slot));
	for (i = 0; i < mp->n; i++) {
		exp_om_keys(om, series, i, &a, &b, buf, sizeof(buf));
		j = exp_om_fnv(a, b) & (mp->cap - 1);
		while (mp->slot[j] != 0)
			j = (j + 1) & (mp->cap - 1);
		mp->slot[j] = i + 1;
	}
}

/* Find (a, b) in the map: the index, or the free slot's in *free_slot. */
static int
exp_om_find(const struct exp_om *om, struct exp_om_map *mp, int series,
    const char *a, const char *b, size_t *out)
{
	const char	*ka, *kb;
	char		 buf[32];
	size_t		 j;

	if (mp->cap == 0 || (mp->n + 1) * 2 > mp->cap)
		exp_om_map_grow(om, mp, series);
	j = exp_om_fnv(a, b) & (mp->cap - 1);
	for (; mp->slot[j] != 0; j = (j + 1) & (mp->cap - 1)) {
		exp_om_keys(om, series, mp->slot[j] - 1, &ka, &kb, buf,
		    sizeof(buf));
		if (strcmp(ka, a) == 0 && (b == NULL || strcmp(kb, b) == 0)) {
			*out = mp->slot[j] - 1;
			return 1;
		}
	}
	*out = j;
	return 0;
}

/* Letters, digits and _ only (a metric name). */
static void
exp_om_sanitize(char *s)
{
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			*s = '_';
}

/* An export unit as an OpenMetrics unit suffix. */
static char *
exp_om_unit(const char *u)
{
	size_t	 len = strlen(u);
	char	*s;

	if (strcmp(u, "%") == 0)
		return xstrdup("percent");
	if (strcmp(u, "s") == 0)
		return xstrdup("seconds");
	if (strcmp(u, "/s") == 0)
		return xstrdup("per_second");
	if (strcmp(u, "count") == 0 || len == 0)
		return xstrdup("");
	if (len > 2 && strcmp(u + len - 2, "/s") == 0) {
		s = xasprintf("%.*s_per_second", (int)(len - 2), u);
	} else
		s = xstrdup(u);
	exp_om_sanitize(s);
	return s;
}

static size_t
exp_om_family(struct exp_om *om, const char *group, const char *field,
    const char *unit)
{
	struct exp_om_family	*f;
	char			 key[160];
	size_t			 j, len, ulen;
	char			*name;

	snprintf(key, sizeof(key), "%s.%s", group, field);
	if (exp_om_find(om, &om->fmap, 0, key, NULL, &j))
		return j;
	if (om->nfam == om->capfam) {
		om->capfam = om->capfam == 0 ? 64 : om->capfam * 2;
		om->fam = xreallocarray(om->fam, om->capfam, sizeof(*om->fam));
	}
	f = &om->fam[om->nfam];
	f->key = xstrdup(key);
	f->unit = exp_om_unit(unit);
	name = xasprintf("jobtop_%s_%s", group, field);
	exp_om_sanitize(name);
	len = strlen(name);
	ulen = strlen(f->unit);
	if (ulen > 0 && (len <= ulen || name[len - ulen - 1] != '_' ||
	    strcmp(name + len - ulen, f->unit) != 0)) {
		f->name = xasprintf("%s_%s", name, f->unit);
		free(name);
	} else
		f->name = name;
	f->help = unit[0] != '\0' ? xasprintf("%s in %s", key, unit) :
	    xstrdup(key);
	om->fmap.slot[j] = ++om->nfam;
	om->fmap.n++;
	return om->nfam - 1;
}

/* A label: name="value" with \\, \" and \n escaped, other bytes that
 * are not printable ASCII as '?'. */
static size_t
exp_om_label(char *buf, size_t len, size_t at, const char *name,
    const char *v)
{
	int	n;

	if (at >= len)
		return at;
	n = snprintf(buf + at, len - at, "%s%s=\"", at > 0 ? "," : "", name);
	at += n > 0 ? (size_t)n : 0;
	for (; *v != '\0' && at + 3 < len; v++) {
		if (*v == '\\' || *v == '"') {
			buf[at++] = '\\';
			buf[at++] = *v;
		} else if (*v == '\n') {
			buf[at++] = '\\';
			buf[at++] = 'n';
		} else if (*v < ' ' || *v > '~')
			buf[at++] = '?';	/* controls, and no bad UTF-8 */
		else
			buf[at++] = *v;
	}
	if (at + 1 < len)
		buf[at++] = '"';
	buf[at < len ? at : len - 1] = '\0';
	return at;
}

static void
exp_om_point(struct exp_om *om, size_t fam, const char *labels, uint64_t ms,
    double v)
{
	struct exp_om_series	*s;
	struct exp_om_point	*p;
	char			 fk[32];
	size_t			 j, si;

	snprintf(fk, sizeof(fk), "%zu", fam);
	if (exp_om_find(om, &om->smap, 1, fk, labels, &j))
		si = j;
	else {
		if (om->nser == om->capser) {
			om->capser = om->capser == 0 ? 256 : om->capser * 2;
			om->ser = xreallocarray(om->ser, om->capser,
			    sizeof(*om->ser));
		}
		s = &om->ser[om->nser];
		s->family = fam;
		s->labels = xstrdup(labels);
		om->smap.slot[j] = ++om->nser;
		om->smap.n++;
		si = om->nser - 1;
	}
	if (om->npt == om->cappt) {
		om->cappt = om->cappt == 0 ? 4096 : om->cappt * 2;
		om->pt = xreallocarray(om->pt, om->cappt, sizeof(*om->pt));
	}
	p = &om->pt[om->npt++];
	p->series = si;
	p->ms = ms;
	p->v = v;
	p->ord = om->npt - 1;
}

/* The labels of a node record or a rank. */
static size_t
exp_om_where(const struct exp_om *om, const struct exp_where *w, char *buf,
    size_t len)
{
	char	num[32];
	size_t	at = 0;

	buf[0] = '\0';
	at = exp_om_label(buf, len, at, "job", om->job);
	at = exp_om_label(buf, len, at, "node", w->name);
	if (w->rank != NULL) {
		if (w->have_rank) {
			snprintf(num, sizeof(num), "%" PRId64, w->rank_id);
			at = exp_om_label(buf, len, at, "rank", num);
		}
		if (w->have_pid) {
			snprintf(num, sizeof(num), "%" PRId64, w->pid);
			at = exp_om_label(buf, len, at, "pid", num);
		}
	}
	return at;
}

static void
exp_om_rec(void *arg, const struct exp_where *w)
{
	struct exp_ctx	*ctx = arg;
	struct exp_om	*om = ctx->priv;
	const char	*names[16];
	char		 labels[1024];
	size_t		 at;
	int		 i, n;

	n = export_flags(ctx, w, names, 16);
	for (i = 0; i < n; i++) {
		at = exp_om_where(om, w, labels, sizeof(labels));
		exp_om_label(labels, sizeof(labels), at, "flag", names[i]);
		exp_om_point(om, om->flagfam, labels, w->time_ms, 1);
	}
}

/*
 * COMM%'s library (rankmpi.family: MPI, NCCL, gloo...) as the label
 * "comm" of rankmpi.share, where the probe names it: a recording from
 * before the field exports as it did.
 */
static const char *
exp_om_comm(const struct exp_where *w, const struct exp_value *v)
{
	int	g;

	if (strcmp(v->group, "rankmpi") != 0 || strcmp(v->field, "share") != 0
	    || w->m == NULL || (g = model_group_index(w->m, "rankmpi")) < 0 ||
	    model_field_index(w->m, (unsigned)g, "family") < 0)
		return NULL;
	if (v->inst != NULL)
		return model_comm_family(w->m, strtoll(v->inst, NULL, 10));
	return w->have_pid ? model_comm_family(w->m, (long long)w->pid) : NULL;
}

static void
exp_om_val(void *arg, const struct exp_where *w, const struct exp_value *v)
{
	struct exp_ctx	*ctx = arg;
	struct exp_om	*om = ctx->priv;
	char		 labels[1024];
	const char	*comm;
	size_t		 at, fam;

	/* Words have no place in a series, nor has a value that is not
	 * a number (the format has NaN, Prometheus reads it as a stale
	 * marker). */
	if (v->kind == 's' || (v->kind == 'd' && !isfinite(v->d)))
		return;
	fam = exp_om_family(om, v->group, v->field, v->unit);
	at = exp_om_where(om, w, labels, sizeof(labels));
	if (v->inst != NULL)
		at = exp_om_label(labels, sizeof(labels), at, "instance",
		    v->inst);
	if ((comm = exp_om_comm(w, v)) != NULL)
		exp_om_label(labels, sizeof(labels), at, "comm", comm);
	exp_om_point(om, fam, labels, w->time_ms, v->kind == 'i' ?
	    (double)v->i : v->d);
}

/* The job's allocation, a gauge at its start and end each (what Slurm
 * or PBS gave it; none for a host list or an unknown value). */
static void
exp_om_alloc(struct exp_om *om, const struct exp_ctx *ctx, const char *field,
    const char *unit, double v)
{
	char	labels[512];
	size_t	fam, at;

	if (!(v > 0))
		return;
	fam = exp_om_family(om, "job", field, unit);
	at = exp_om_label(labels, sizeof(labels), 0, "job", om->job);
	if (ctx->meta->partition[0] != '\0')
		exp_om_label(labels, sizeof(labels), at, "partition",
		    ctx->meta->partition);
	exp_om_point(om, fam, labels, ctx->start_ms, v);
	if (ctx->end_ms > ctx->start_ms)
		exp_om_point(om, fam, labels, ctx->end_ms, v);
}

static int
exp_om_begin(struct exp_ctx *ctx)
{
	const struct rec_meta	*meta = ctx->meta;
	struct exp_om		*om;

	om = xcalloc(1, sizeof(*om));
	om->job = xstrdup(ctx->job);
	ctx->priv = om;
	om->flagfam = exp_om_family(om, "flag", "raised", "");
	free(om->fam[om->flagfam].name);
	free(om->fam[om->flagfam].help);
	om->fam[om->flagfam].name = xstrdup("jobtop_flag");
	om->fam[om->flagfam].help = xstrdup("a detector's flag "
	    "(stalled, straggler, memory, lost) raised on a node or rank");
	exp_om_alloc(om, ctx, "cpus", "", (double)meta->cpus);
	exp_om_alloc(om, ctx, "memory", "bytes", (double)meta->mem);
	exp_om_alloc(om, ctx, "time_limit", "s", (double)meta->time_limit);
	return 0;
}

static void
exp_om_sample(struct exp_ctx *ctx, int node, const struct node_model *m)
{
	export_walk(ctx, node, m, exp_om_rec, exp_om_val, ctx);
}

static const struct exp_om *exp_om_sorting;

static int
exp_om_cmp(const void *a, const void *b)
{
	const struct exp_om_point	*x = a, *y = b;
	const struct exp_om		*om = exp_om_sorting;
	size_t				 fx, fy;

	fx = om->ser[x->series].family;
	fy = om->ser[y->series].family;
	if (fx != fy)
		return fx < fy ? -1 : 1;
	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	if (x->ms != y->ms)
		return x->ms < y->ms ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int
exp_om_end(struct exp_ctx *ctx, int failed)
{
	struct exp_om		*om = ctx->priv;
	const struct exp_om_family *f;
	FILE			*out = ctx->f;
	size_t			 i, fam = (size_t)-1;

	if (om == NULL)
		return 0;
	if (!failed) {
		exp_om_sorting = om;
		if (om->npt > 1)
			qsort(om->pt, om->npt, sizeof(*om->pt), exp_om_cmp);
		for (i = 0; i < om->npt; i++) {
			/* One value per series and time: the last. */
			if (i + 1 < om->npt &&
			    om->pt[i + 1].series == om->pt[i].series &&
			    om->pt[i + 1].ms == om->pt[i].ms)
				continue;
			if (om->ser[om->pt[i].series].family != fam) {
				fam = om->ser[om->pt[i].series].family;
				f = &om->fam[fam];
				fprintf(out, "# TYPE %s gauge\n", f->name);
				if (f->unit[0] != '\0')
					fprintf(out, "# UNIT %s %s\n", f->name,
					    f->unit);
				fprintf(out, "# HELP %s %s\n", f->name,
				    f->help);
			}
			fprintf(out, "%s{%s} ", om->fam[fam].name,
			    om->ser[om->pt[i].series].labels);
			out_json_number(out, om->pt[i].v);
			fputc(' ', out);
			out_json_time(out, om->pt[i].ms);
			fputc('\n', out);
		}
		fputs("# EOF\n", out);
	}
	for (i = 0; i < om->nfam; i++) {
		free(om->fam[i].name);
		free(om->fam[i].key);
		free(om->fam[i].unit);
		free(om->fam[i].help);
	}
	for (i = 0; i < om->nser; i++)
		free(om->ser[i].labels);
	free(om->fam);
	free(om->ser);
	free(om->pt);
	free(om->fmap.slot);
	free(om->smap.slot);
	free(om->job);
	free(om);
	ctx->priv = NULL;
	return 0;
}

const struct exp_writer exp_openmetrics = {
	.name = "openmetrics",
	.passes = 1,
	.begin = exp_om_begin,
	.sample = exp_om_sample,
	.end = exp_om_end,
};
