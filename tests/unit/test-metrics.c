/* SPDX-License-Identifier: ISC */
/*
 * test-metrics: the metric catalogue.  For every row, a node whose probe
 * sends only that row's source (each of its groups alone, and its
 * alternative group) through the real encoder and decoder has a value of
 * it; a node that sends every other row's sources and not this one's has
 * none (NaN, never 0).  The rows' keys are unique and found by key, and a
 * schema is bound once, shared by the nodes that sent it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "metrics.h"
#include "model.h"
#include "proto.h"
#include "stream.h"

#define BUF		(64 << 10)
#define MAXG		32
#define MAXF		8
#define MAXI		4

/* What a row's derivation or rule reads beyond its row's fields. */
static const struct {
	const char	*key, *group, *fields;
} extras[] = {
	{ "cpu",	"cpu",		"idle iowait" },
	{ "mem",	"mem",		"available" },
	{ "mem_pct",	"mem",		"available" },
	{ "gpu_job",	"gpuproc",	"util mem_used" },
	{ "gpu_job",	"rank",		"pid" },
	{ "mpi",	"rankmpi",	"samples mpi" },
	{ "power_node",	"power",	"node" },
};

/* A group of the test's schema: its fields and instances. */
struct tgroup {
	char	 name[32];
	char	 field[MAXF][32];
	unsigned nf;
	char	 inst[MAXI][32];
	unsigned ni;
	int	 on;
};

static struct tgroup	groups[MAXG];
static unsigned		ngroups;

static struct tgroup *
tgroup(const char *name)
{
	unsigned	i;

	for (i = 0; i < ngroups; i++) {
		if (strcmp(groups[i].name, name) == 0)
			return &groups[i];
	}
	CHECK(ngroups < MAXG);
	snprintf(groups[ngroups].name, sizeof(groups[0].name), "%s", name);
	return &groups[ngroups++];
}

static void
tgroup_field(struct tgroup *g, const char *f)
{
	unsigned	i;

	for (i = 0; i < g->nf; i++) {
		if (strcmp(g->field[i], f) == 0)
			return;
	}
	CHECK(g->nf < MAXF);
	snprintf(g->field[g->nf++], sizeof(g->field[0]), "%s", f);
}

static void
tgroup_inst(struct tgroup *g, const char *name)
{
	unsigned	i;

	for (i = 0; i < g->ni; i++) {
		if (strcmp(g->inst[i], name) == 0)
			return;
	}
	CHECK(g->ni < MAXI);
	snprintf(g->inst[g->ni++], sizeof(g->inst[0]), "%s", name);
}

/* An instance of a group that row d counts. */
static void
tgroup_row_inst(struct tgroup *g, const struct metric_def *d)
{
	char	name[32];

	switch (d->inst) {
	case MI_NODE:
		tgroup_inst(g, "");
		break;
	case MI_PREFIX:
		snprintf(name, sizeof(name), "%s0", d->iname);
		tgroup_inst(g, name);
		break;
	default:
		tgroup_inst(g, "i0");
	}
}

static void
add_row_group(const struct metric_def *d, const char *name)
{
	struct tgroup	*g = tgroup(name);
	unsigned	 j;

	for (j = 0; j < METRIC_FIELDS; j++)
		if (d->field[j] != NULL)
			tgroup_field(g, d->field[j]);
	tgroup_row_inst(g, d);
}

/* Every group any row reads, with every field and instance it needs. */
static void
build_groups(void)
{
	const struct metric_def	*d;
	struct tgroup		*g;
	char			 buf[64], *w, *save;
	unsigned		 k, j, e;

	ngroups = 0;
	memset(groups, 0, sizeof(groups));
	for (k = 0; k < HN_NMETRICS; k++) {
		d = &metric_cat[k];
		for (j = 0; j < METRIC_GROUPS; j++)
			if (d->group[j] != NULL)
				add_row_group(d, d->group[j]);
		if (d->alt != NULL)
			add_row_group(d, d->alt);
		for (e = 0; e < sizeof(extras) / sizeof(extras[0]); e++) {
			if (strcmp(extras[e].key, d->key) != 0)
				continue;
			g = tgroup(extras[e].group);
			snprintf(buf, sizeof(buf), "%s", extras[e].fields);
			for (w = strtok_r(buf, " ", &save); w != NULL;
			    w = strtok_r(NULL, " ", &save))
				tgroup_field(g, w);
			if (g->ni == 0)
				tgroup_inst(g, "i0");
		}
	}
}

/* A field's kind and unit as a probe sends it. */
static int
field_kind(const char *g, const char *f, const char **unit)
{
	static const char *counters[] = { "read_bytes", "write_bytes",
	    "rx_bytes", "tx_bytes", "rcv_bytes", "xmit_bytes", "bytes_sent",
	    "instructions", "cycles", "samples", "mpi", NULL };
	unsigned	i;

	if (strcmp(g, "cpu") == 0) {
		*unit = "cpu-jiffies";
		return PF_COUNTER;
	}
	if (strcmp(f, "utime") == 0 || strcmp(f, "stime") == 0) {
		*unit = "jiffies";
		return PF_COUNTER;
	}
	if (strcmp(f, "energy") == 0) {
		*unit = "uJ";
		return PF_COUNTER;
	}
	for (i = 0; counters[i] != NULL; i++) {
		if (strcmp(f, counters[i]) == 0) {
			*unit = "bytes";
			return PF_COUNTER;
		}
	}
	if (strcmp(f, "temp") == 0)
		*unit = "celsius";
	else if (strcmp(f, "power") == 0)
		*unit = "mW";
	else if (strcmp(f, "util") == 0)
		*unit = "percent";
	else if (strcmp(f, "load1") == 0)
		*unit = "centi";
	else
		*unit = "";
	return PF_GAUGE;
}

/* A node that sends the groups marked on, two samples of them. */
static struct stream *
node_with(const char *host)
{
	static struct proto_hello	 h;
	struct proto_sample_wr		 sw;
	struct stream			*st;
	struct wbuf			 w;
	struct tgroup			*g;
	const char			*unit;
	uint8_t				*buf = malloc(BUF);
	int64_t				 v[MAXF], old[MAXF];
	uint64_t			 mask;
	size_t				 start;
	unsigned			 i, j, k, s, ng = 0, gi;
	int				 t, kind;

	for (i = 0; i < ngroups; i++)
		ng += (unsigned)groups[i].on;
	st = stream_new(host);
	wbuf_init(&w, buf, BUF);
	memset(&h, 0, sizeof(h));
	snprintf(h.version, sizeof(h.version), "test");
	snprintf(h.host, sizeof(h.host), "%s", host);
	snprintf(h.kernel, sizeof(h.kernel), "6.1");
	snprintf(h.arch, sizeof(h.arch), "x86_64");
	h.ncpu = 4;
	h.clk_tck = 100;
	h.page_size = 4096;
	h.start_ms = 1700000000000ULL;
	h.interval_ms = 1000;
	proto_put_hello(&w, &h);
	proto_schema_begin(&w, &start, ng);
	for (i = 0; i < ngroups; i++) {
		g = &groups[i];
		if (!g->on)
			continue;
		proto_schema_group(&w, g->name, g->nf);
		for (j = 0; j < g->nf; j++) {
			kind = field_kind(g->name, g->field[j], &unit);
			proto_schema_field(&w, g->field[j], unit,
			    (unsigned)kind);
		}
	}
	proto_schema_end(&w, start);
	for (s = 0; s < 2; s++) {
		proto_sample_begin(&sw, &w, s, 1000);
		for (i = 0, gi = 0; i < ngroups; i++) {
			g = &groups[i];
			if (!g->on)
				continue;
			/* Counters go up 1000 * (field + 1) a second,
			 * gauges read 1. */
			for (j = 0; j < g->nf; j++) {
				kind = field_kind(g->name, g->field[j], &unit);
				v[j] = kind == PF_COUNTER ?
				    1000 * (int64_t)(s + 1) * (j + 1) : 1;
				old[j] = kind == PF_COUNTER ?
				    1000 * (int64_t)s * (j + 1) : 1;
			}
			mask = ((uint64_t)1 << g->nf) - 1;
			for (k = 0; k < g->ni; k++) {
				if (s == 0)
					proto_sample_add(&sw, gi * MAXI + k,
					    gi, g->inst[k]);
				proto_sample_diff(&sw, gi * MAXI + k, mask,
				    old, s == 0 ? 0 : mask, v, mask);
			}
			gi++;
		}
		proto_sample_end(&sw);
	}
	CHECK_INT(w.err, 0);
	stream_feed(st, buf, w.len);
	while ((t = stream_next(st)) > 0)
		;
	CHECK(t == 0);
	CHECK(stream_model(st)->nsamples == 2);
	free(buf);
	return st;
}

static void
only(const char *name)
{
	unsigned	i;

	for (i = 0; i < ngroups; i++)
		groups[i].on = strcmp(groups[i].name, name) == 0;
}

/* Mark the extras' groups of row d on. */
static void
with_extras(const struct metric_def *d)
{
	unsigned	e;

	for (e = 0; e < sizeof(extras) / sizeof(extras[0]); e++) {
		if (strcmp(extras[e].key, d->key) == 0)
			tgroup(extras[e].group)->on = 1;
	}
}

static void
check_row(unsigned k, const char *group)
{
	struct stream	*st;
	double		 v[HN_NMETRICS];

	only(group);
	with_extras(&metric_cat[k]);
	st = node_with("n1");
	metrics_node_values(stream_model(st), v, NULL);
	if (!isfinite(v[k]))
		fprintf(stderr, "row %s: no value from group %s\n",
		    metric_cat[k].key, group);
	CHECK(isfinite(v[k]));
	stream_free(st);
}

/* Each row from each of its groups alone (and its alternative). */
static void
test_bind(void)
{
	const struct metric_def	*d;
	unsigned		 k, j;

	build_groups();
	for (k = 0; k < HN_NMETRICS; k++) {
		d = &metric_cat[k];
		CHECK(d->group[0] != NULL);
		for (j = 0; j < METRIC_GROUPS; j++)
			if (d->group[j] != NULL)
				check_row(k, d->group[j]);
		if (d->alt != NULL)
			check_row(k, d->alt);
	}
}

/* Each row absent on a node that sends every other row's sources. */
static void
test_absent(void)
{
	const struct metric_def	*d;
	struct stream		*st;
	double			 v[HN_NMETRICS], lim;
	unsigned		 k, j, i, others;

	build_groups();
	for (k = 0; k < HN_NMETRICS; k++) {
		d = &metric_cat[k];
		for (i = 0; i < ngroups; i++)
			groups[i].on = 1;
		for (j = 0; j < METRIC_GROUPS; j++)
			if (d->group[j] != NULL)
				tgroup(d->group[j])->on = 0;
		if (d->alt != NULL)
			tgroup(d->alt)->on = 0;
		for (i = 0, others = 0; i < ngroups; i++)
			others += (unsigned)groups[i].on;
		CHECK(others > 0);
		st = node_with("n1");
		metrics_node_values(stream_model(st), v, &lim);
		if (!isnan(v[k]))
			fprintf(stderr, "row %s: %g without its source\n",
			    d->key, v[k]);
		CHECK(isnan(v[k]));
		/* The other rows whose sources it sends have values. */
		for (i = 0; i < HN_NMETRICS; i++) {
			if (i == k || (strcmp(metric_cat[i].key, "mem") == 0 &&
			    strcmp(d->key, "mem_pct") == 0) ||
			    (strcmp(metric_cat[i].key, "mem_pct") == 0 &&
			    strcmp(d->key, "mem") == 0))
				continue;
			if (metric_cat[i].group[0] != NULL &&
			    tgroup(metric_cat[i].group[0])->on) {
				if (!isfinite(v[i]))
					fprintf(stderr, "row %s absent beside "
					    "%s\n", metric_cat[i].key, d->key);
				CHECK(isfinite(v[i]));
			}
		}
		stream_free(st);
	}
	/* A node before its schema: nothing, not zeros. */
	st = stream_new("n0");
	metrics_node_values(stream_model(st), v, &lim);
	for (k = 0; k < HN_NMETRICS; k++)
		CHECK(isnan(v[k]));
	CHECK(lim == 0);
	stream_free(st);
}

/* Keys unique and found; a schema bound once and shared. */
static void
test_catalogue(void)
{
	struct stream	*a, *b;
	double		 v[HN_NMETRICS];
	unsigned	 k, j;

	for (k = 0; k < HN_NMETRICS; k++) {
		CHECK_INT(metrics_find(metric_cat[k].key), (int)k);
		CHECK(metric_cat[k].title != NULL &&
		    metric_cat[k].unit != NULL);
		CHECK(strcmp(metric_cat[k].agg, "sum") == 0 ||
		    strcmp(metric_cat[k].agg, "mean") == 0 ||
		    strcmp(metric_cat[k].agg, "max") == 0);
		for (j = 0; j < k; j++)
			CHECK(strcmp(metric_cat[j].key, metric_cat[k].key));
	}
	CHECK_INT(metrics_find("nope"), -1);
	/* Rows made of others: kept rows as terms, a key of their own,
	 * columns only (not found as kept rows: not exported). */
	for (k = HN_NMETRICS; k < HN_NROWS; k++) {
		CHECK(metric_cat[k].key != NULL && metric_cat[k].title !=
		    NULL && metric_cat[k].agg != NULL);
		CHECK(metric_cat[k].nterms > 0 &&
		    metric_cat[k].nterms <= METRIC_TERMS);
		for (j = 0; j < metric_cat[k].nterms; j++)
			CHECK(metric_cat[k].terms[j] < HN_NMETRICS);
		CHECK(metric_cat[k].group[0] == NULL);
		CHECK_INT(metrics_find(metric_cat[k].key), -1);
		for (j = 0; j < k; j++)
			CHECK(strcmp(metric_cat[j].key, metric_cat[k].key));
	}
	/* Columns: a width, distinct positions, a total that is a row. */
	for (k = 0; k < HN_NROWS; k++) {
		if (metric_cat[k].col.title == NULL)
			continue;
		CHECK(metric_cat[k].col.width > 0);
		CHECK(metric_cat[k].col.fmt != MV_OF ||
		    metric_cat[k].col.of < HN_NMETRICS);
		for (j = 0; j < k; j++)
			CHECK(metric_cat[j].col.title == NULL ||
			    metric_cat[j].col.pos != metric_cat[k].col.pos);
	}
	CHECK_NEAR(metrics_add(NAN, 2), 2, 0);
	CHECK_NEAR(metrics_add(1, NAN), 1, 0);
	CHECK_NEAR(metrics_add(1, 2), 3, 0);
	CHECK(isnan(metrics_add(NAN, NAN)));
	build_groups();
	only("disk");
	a = node_with("a");
	b = node_with("b");
	CHECK(stream_model(a)->schema == stream_model(b)->schema);
	CHECK(stream_model(a)->schema->metrics == NULL);
	metrics_node_values(stream_model(a), v, NULL);
	CHECK(stream_model(a)->schema->metrics != NULL);
	CHECK_NEAR(v[HN_DISK], 1000 + 2000, 1e-9);
	metrics_node_values(stream_model(b), v, NULL);
	CHECK_NEAR(v[HN_DISK], 3000, 1e-9);
	stream_free(a);
	stream_free(b);
}

int
main(void)
{
	RUN(test_catalogue);
	RUN(test_bind);
	RUN(test_absent);
	return harness_done();
}
