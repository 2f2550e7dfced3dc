/* SPDX-License-Identifier: ISC */
/*
 * exp-csv: CSV for people with spreadsheets and data frames.
 *
 * Tidy (the default): one row per value, columns
 *   record,job,time,seq,node,rank,pid,metric,instance,value,unit,text
 * where record says what the row is: "job" and "node" rows first (the
 * recording's job, user, nodes, and each node's facts from its probe),
 * then per sample "sample" rows (a metric of the node or of one rank),
 * "flag" rows (a detector's flag in force at that sample: text is the
 * flag, value 1), and "event", "state", "transport" rows as they
 * happened (metric is the code, instance the level, text the words).
 * value is always a number or empty: words (a rank's state, a command
 * name) go to text, so a data frame reads value as floats.
 *
 * Wide (--wide, --wide=rank): one row per node sample (or per rank
 * sample) and one column per metric ("disk.read_bytes[vda] (bytes/s)"),
 * learnt in a first pass over the recording; flags in one column.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "out-json.h"
#include "xmalloc.h"

static const char *const exp_csv_levels[] = { "info", "warn", "error" };

/* A number column: integers exactly, others as JSON writes them. */
static void
exp_csv_value(FILE *f, const struct exp_value *v)
{
	if (v->kind == 'i')
		fprintf(f, "%" PRId64, v->i);
	else if (v->kind == 'd')
		out_json_number(f, v->d);
}

/* Tidy: the node rows once each node sent its HELLO. */
struct exp_tidy {
	unsigned char	*said;		/* per node: facts written */
	unsigned	 nnodes;
};

/* The columns up to pid. */
static void
exp_tidy_head(FILE *f, const struct exp_ctx *ctx, const char *record,
    uint64_t ms, const uint64_t *seq, const char *node, const int64_t *rank,
    const int64_t *pid)
{
	fputs(record, f);
	fputc(',', f);
	export_csv_field(f, ctx->job);
	fputc(',', f);
	out_json_time(f, ms);
	fputc(',', f);
	if (seq != NULL)
		fprintf(f, "%" PRIu64, *seq);
	fputc(',', f);
	if (node != NULL)
		export_csv_field(f, node);
	fputc(',', f);
	if (rank != NULL)
		fprintf(f, "%" PRId64, *rank);
	fputc(',', f);
	if (pid != NULL)
		fprintf(f, "%" PRId64, *pid);
	fputc(',', f);
}

/* metric,instance,value,unit,text for a fact. */
static void
exp_tidy_fact(FILE *f, const struct exp_ctx *ctx, const char *record,
    const char *node, const char *metric, int have, double v,
    const char *unit, const char *text)
{
	exp_tidy_head(f, ctx, record, ctx->start_ms, NULL, node, NULL, NULL);
	fprintf(f, "%s,,", metric);
	if (have)
		out_json_number(f, v);
	fprintf(f, ",%s,", unit);
	if (text != NULL)
		export_csv_field(f, text);
	fputc('\n', f);
}

static int
exp_tidy_begin(struct exp_ctx *ctx)
{
	const struct rec_meta	*meta = ctx->meta;
	struct exp_tidy		*t;
	FILE			*f = ctx->f;
	unsigned		 i;

	t = xcalloc(1, sizeof(*t));
	t->nnodes = meta->nnodes;
	t->said = xcalloc(meta->nnodes + 1, 1);
	ctx->priv = t;
	fputs("record,job,time,seq,node,rank,pid,metric,instance,value,unit,"
	    "text\n", f);
	exp_tidy_fact(f, ctx, "job", NULL, "name", 0, 0, "", meta->name);
	exp_tidy_fact(f, ctx, "job", NULL, "user", 0, 0, "", meta->user);
	exp_tidy_fact(f, ctx, "job", NULL, "host", 0, 0, "", meta->host);
	exp_tidy_fact(f, ctx, "job", NULL, "version", 0, 0, "",
	    meta->version);
	exp_tidy_fact(f, ctx, "job", NULL, "start", 1, ctx->start_ms / 1e3,
	    "s", NULL);
	exp_tidy_fact(f, ctx, "job", NULL, "end", 1, ctx->end_ms / 1e3, "s",
	    NULL);
	exp_tidy_fact(f, ctx, "job", NULL, "interval", 1,
	    meta->interval_ms / 1e3, "s", NULL);
	exp_tidy_fact(f, ctx, "job", NULL, "nnodes", 1, meta->nnodes, "",
	    NULL);
	exp_tidy_fact(f, ctx, "job", NULL, "ntasks", meta->ntasks > 0,
	    (double)meta->ntasks, "", NULL);
	exp_tidy_fact(f, ctx, "job", NULL, "cpus", meta->cpus > 0,
	    (double)meta->cpus, "", NULL);
	exp_tidy_fact(f, ctx, "job", NULL, "mem", meta->mem > 0,
	    (double)meta->mem, "B", NULL);
	exp_tidy_fact(f, ctx, "job", NULL, "time_limit", meta->time_limit >=
	    0, (double)meta->time_limit, "s", meta->time_limit ==
	    REC_LIMIT_NONE ? "none" : NULL);
	exp_tidy_fact(f, ctx, "job", NULL, "partition", 0, 0, "",
	    meta->partition);
	for (i = 0; i < meta->nnodes; i++)
		exp_tidy_fact(f, ctx, "node", meta->nodes[i], "index", 1, i,
		    "", NULL);
	return 0;
}

/* A node's facts from its HELLO, before its first sample's rows. */
static void
exp_tidy_node(struct exp_ctx *ctx, int node, const struct node_model *m)
{
	const struct model_hello	*h = &m->hello;
	const char			*name = ctx->meta->nodes[node];
	FILE				*f = ctx->f;

	exp_tidy_fact(f, ctx, "node", name, "ncpu", 1, h->ncpu, "", NULL);
	exp_tidy_fact(f, ctx, "node", name, "mem_total", 1,
	    (double)h->mem_total, "bytes", NULL);
	exp_tidy_fact(f, ctx, "node", name, "kernel", 0, 0, "", h->kernel);
	exp_tidy_fact(f, ctx, "node", name, "arch", 0, 0, "", h->arch);
	exp_tidy_fact(f, ctx, "node", name, "probe_version", 0, 0, "",
	    h->version);
	if (h->host != NULL)
		exp_tidy_fact(f, ctx, "node", name, "hostname", 0, 0, "",
		    h->host);
}

struct exp_tidy_walk {
	struct exp_ctx	*ctx;
};

/* The flags in force on the node record or a rank. */
static void
exp_tidy_rec(void *arg, const struct exp_where *w)
{
	struct exp_ctx	*ctx = arg;
	const char	*names[16];
	int		 i, n;

	n = export_flags(ctx, w, names, 16);
	for (i = 0; i < n; i++) {
		exp_tidy_head(ctx->f, ctx, "flag", w->time_ms, &w->seq,
		    w->name, w->have_rank ? &w->rank_id : NULL,
		    w->have_pid ? &w->pid : NULL);
		fprintf(ctx->f, "flag,,1,,%s\n", names[i]);
	}
}

static void
exp_tidy_val(void *arg, const struct exp_where *w, const struct exp_value *v)
{
	struct exp_ctx	*ctx = arg;
	FILE		*f = ctx->f;
	char		 metric[2 * PROTO_NAME_MAX + 2];

	exp_tidy_head(f, ctx, "sample", w->time_ms, &w->seq, w->name,
	    w->have_rank ? &w->rank_id : NULL, w->have_pid ? &w->pid : NULL);
	/* Schema names are printable, but may hold a comma. */
	snprintf(metric, sizeof(metric), "%s.%s", v->group, v->field);
	export_csv_field(f, metric);
	fputc(',', f);
	if (v->inst != NULL)
		export_csv_field(f, v->inst);
	fputc(',', f);
	exp_csv_value(f, v);
	fputc(',', f);
	fputs(v->unit, f);
	fputc(',', f);
	if (v->kind == 's')
		export_csv_field(f, v->s);
	fputc('\n', f);
}

static void
exp_tidy_sample(struct exp_ctx *ctx, int node, const struct node_model *m)
{
	struct exp_tidy	*t = ctx->priv;

	if (m->have_hello && !t->said[node]) {
		t->said[node] = 1;
		exp_tidy_node(ctx, node, m);
	}
	export_walk(ctx, node, m, exp_tidy_rec, exp_tidy_val, ctx);
}

static void
exp_tidy_note(struct exp_ctx *ctx, const struct exp_note *n)
{
	FILE	*f = ctx->f;

	/* The rank and pid columns of an event that names them (recorded
	 * from minor 2 on), empty otherwise. */
	exp_tidy_head(f, ctx, n->type, n->time_ms, NULL, n->name,
	    n->rank >= 0 ? &n->rank : NULL, n->pid >= 0 ? &n->pid : NULL);
	export_csv_field(f, n->code);
	fprintf(f, ",%s,,,", n->level >= 0 && n->level <= 2 ?
	    exp_csv_levels[n->level] : "error");
	export_csv_field(f, n->text);
	fputc('\n', f);
}

static int
exp_tidy_end(struct exp_ctx *ctx, int failed)
{
	struct exp_tidy	*t = ctx->priv;

	if (t != NULL) {
		free(t->said);
		free(t);
	}
	ctx->priv = NULL;
	return 0;
}

const struct exp_writer exp_csv_tidy = {
	.name = "csv",
	.passes = 1,
	.begin = exp_tidy_begin,
	.sample = exp_tidy_sample,
	.note = exp_tidy_note,
	.end = exp_tidy_end,
};

/* Wide: the columns (pass 0), then the rows (pass 1). */
struct exp_wcol {
	char			*key;	/* "group.field[inst]" */
	char			*unit;
	int			 set;		/* in the current row */
	struct exp_value	 v;
};

struct exp_wide {
	int		 ranks;		/* a row per rank */
	struct exp_wcol	*cols;
	size_t		 ncols, capcols;
	size_t		*hash;		/* column + 1, 0 empty */
	size_t		 hcap;
	struct exp_where row;		/* the row being filled */
	int		 open;
	int		 headed;	/* the header was written */
	const char	*flags[16];
	int		 nflags;
};

static uint64_t
exp_wide_fnv(const char *s)
{
	uint64_t	h = 14695981039346656037ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void
exp_wide_rehash(struct exp_wide *wd)
{
	size_t	i, j;

	free(wd->hash);
	wd->hcap = wd->hcap == 0 ? 256 : wd->hcap * 2;
	wd->hash = xcalloc(wd->hcap, sizeof(*wd->hash));
	for (i = 0; i < wd->ncols; i++) {
		j = exp_wide_fnv(wd->cols[i].key) & (wd->hcap - 1);
		while (wd->hash[j] != 0)
			j = (j + 1) & (wd->hcap - 1);
		wd->hash[j] = i + 1;
	}
}

/* The column of key: found, or added in pass 0 (else NULL). */
static struct exp_wcol *
exp_wide_col(struct exp_wide *wd, const char *key, const char *unit,
    int add)
{
	struct exp_wcol	*c;
	size_t		 j;

	if (wd->hcap == 0)
		exp_wide_rehash(wd);
	j = exp_wide_fnv(key) & (wd->hcap - 1);
	for (; wd->hash[j] != 0; j = (j + 1) & (wd->hcap - 1))
		if (strcmp(wd->cols[wd->hash[j] - 1].key, key) == 0)
			return &wd->cols[wd->hash[j] - 1];
	if (!add)
		return NULL;
	if (wd->ncols == wd->capcols) {
		wd->capcols = wd->capcols == 0 ? 64 : wd->capcols * 2;
		wd->cols = xreallocarray(wd->cols, wd->capcols,
		    sizeof(*wd->cols));
	}
	c = &wd->cols[wd->ncols++];
	memset(c, 0, sizeof(*c));
	c->key = xstrdup(key);
	c->unit = xstrdup(unit);
	wd->hash[j] = wd->ncols;
	if (wd->ncols * 2 > wd->hcap)
		exp_wide_rehash(wd);
	return &wd->cols[wd->ncols - 1];
}

static int
exp_wide_begin(struct exp_ctx *ctx)
{
	struct exp_wide	*wd;

	wd = xcalloc(1, sizeof(*wd));
	wd->ranks = ctx->o->wide == EXPORT_WIDE_RANK;
	ctx->priv = wd;
	return 0;
}

/* Write the row filled so far. */
static void
exp_wide_flush(struct exp_ctx *ctx, struct exp_wide *wd)
{
	FILE	*f = ctx->f;
	size_t	 i;
	int	 k;

	if (!wd->open)
		return;
	wd->open = 0;
	export_csv_field(f, ctx->job);
	fputc(',', f);
	out_json_time(f, wd->row.time_ms);
	fprintf(f, ",%" PRIu64 ",", wd->row.seq);
	export_csv_field(f, wd->row.name);
	if (wd->ranks) {
		fputc(',', f);
		if (wd->row.have_rank)
			fprintf(f, "%" PRId64, wd->row.rank_id);
		fputc(',', f);
		if (wd->row.have_pid)
			fprintf(f, "%" PRId64, wd->row.pid);
	}
	fputc(',', f);
	for (k = 0; k < wd->nflags; k++)
		fprintf(f, "%s%s", k > 0 ? " " : "", wd->flags[k]);
	for (i = 0; i < wd->ncols; i++) {
		fputc(',', f);
		if (!wd->cols[i].set)
			continue;
		wd->cols[i].set = 0;
		if (wd->cols[i].v.kind == 's')
			export_csv_field(f, wd->cols[i].v.s);
		else
			exp_csv_value(f, &wd->cols[i].v);
	}
	fputc('\n', f);
}

static void
exp_wide_rec(void *arg, const struct exp_where *w)
{
	struct exp_ctx	*ctx = arg;
	struct exp_wide	*wd = ctx->priv;

	if (ctx->pass == 0 || (w->rank != NULL) != wd->ranks)
		return;
	exp_wide_flush(ctx, wd);
	wd->row = *w;
	wd->open = 1;
	wd->nflags = export_flags(ctx, w, wd->flags, 16);
}

static void
exp_wide_val(void *arg, const struct exp_where *w, const struct exp_value *v)
{
	struct exp_ctx	*ctx = arg;
	struct exp_wide	*wd = ctx->priv;
	struct exp_wcol	*c;
	char		 key[256];

	if ((w->rank != NULL) != wd->ranks)
		return;
	if (v->inst != NULL)
		snprintf(key, sizeof(key), "%s.%s[%s]", v->group, v->field,
		    v->inst);
	else
		snprintf(key, sizeof(key), "%s.%s", v->group, v->field);
	if ((c = exp_wide_col(wd, key, v->unit, ctx->pass == 0)) == NULL ||
	    ctx->pass == 0)
		return;
	c->set = 1;
	c->v = *v;
}

static void
exp_wide_header(struct exp_ctx *ctx, struct exp_wide *wd)
{
	FILE	*f = ctx->f;
	char	*h;
	size_t	 i;

	fputs(wd->ranks ? "job,time,seq,node,rank,pid,flags" :
	    "job,time,seq,node,flags", f);
	for (i = 0; i < wd->ncols; i++) {
		fputc(',', f);
		if (wd->cols[i].unit[0] != '\0') {
			h = xasprintf("%s (%s)", wd->cols[i].key,
			    wd->cols[i].unit);
			export_csv_field(f, h);
			free(h);
		} else
			export_csv_field(f, wd->cols[i].key);
	}
	fputc('\n', f);
}

static void
exp_wide_sample(struct exp_ctx *ctx, int node, const struct node_model *m)
{
	struct exp_wide	*wd = ctx->priv;

	if (ctx->pass == 1 && !wd->headed) {
		exp_wide_header(ctx, wd);
		wd->headed = 1;
	}
	export_walk(ctx, node, m, exp_wide_rec, exp_wide_val, ctx);
	if (ctx->pass == 1)
		exp_wide_flush(ctx, wd);
}

static int
exp_wide_end(struct exp_ctx *ctx, int failed)
{
	struct exp_wide	*wd = ctx->priv;
	size_t		 i;

	if (wd == NULL)
		return 0;
	if (!failed && !wd->headed)
		exp_wide_header(ctx, wd);
	for (i = 0; i < wd->ncols; i++) {
		free(wd->cols[i].key);
		free(wd->cols[i].unit);
	}
	free(wd->cols);
	free(wd->hash);
	free(wd);
	ctx->priv = NULL;
	return 0;
}

const struct exp_writer exp_csv_wide = {
	.name = "csv-wide",
	.passes = 2,
	.begin = exp_wide_begin,
	.sample = exp_wide_sample,
	.end = exp_wide_end,
};
