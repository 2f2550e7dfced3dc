/* SPDX-License-Identifier: ISC */
/*
 * metrics: the catalogue of node metrics and its evaluation.  A row is
 * bound to a schema once: its groups' and fields' positions, the scale of
 * each field's unit, its derivation's function; the binding hangs off the
 * schema (struct mschema.metrics) and goes with it.  Evaluating a row is
 * then a walk over the instances of its groups.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "xmalloc.h"

#define G(a, b)		{ a, b }
#define F(a, b)		{ a, b }

const struct metric_def metric_cat[HN_NROWS] = {
	/* The cpu group's node-wide busy (model.c: 100 - idle - iowait). */
	[HN_CPU] = { .key = "cpu", .title = "CPU busy", .unit = "%",
	    .agg = "mean", .group = G("cpu", NULL), .field = F(NULL, NULL),
	    .derived = "busy", .inst = MI_NODE, .fold = MF_SUM,
	    .col = { .title = "CPU%", .pos = 10, .width = 5, .prec = 1 } },
	/* The job's cgroup (mem_current of mem_max, the node's total if
	 * less) when it has a limit, else mem.used of mem.total. */
	[HN_MEM] = { .key = "mem", .title = "Memory used", .unit = "B",
	    .agg = "sum", .group = G("mem", NULL), .field = F("total", NULL),
	    .derived = "used", .inst = MI_NODE, .fold = MF_SPECIAL,
	    .col = { .title = "MEM", .pos = 30, .width = 11, .prio = 4,
	    .fmt = MV_OF, .of = -1, .nosort = 1 } },
	[HN_MEMPCT] = { .key = "mem_pct", .title = "Memory of the limit",
	    .unit = "%", .agg = "mean", .group = G("mem", NULL),
	    .field = F("total", NULL), .derived = "used", .inst = MI_NODE,
	    .fold = MF_SPECIAL,
	    .col = { .title = "MEM%", .alias = "mempct", .pos = 20, .width = 5,
	    .prec = 1 } },
	[HN_LOAD] = { .key = "load", .title = "Load average (1 min)",
	    .unit = "", .agg = "mean", .group = G("load", NULL),
	    .field = F("load1", NULL), .inst = MI_NODE, .fold = MF_SUM,
	    .col = { .title = "LOAD", .pos = 40, .width = 6, .prio = 3,
	    .prec = 2 } },
	[HN_DISK] = { .key = "disk", .title = "Disk read + write",
	    .unit = "B/s", .agg = "sum", .group = G("disk", NULL),
	    .field = F("read_bytes", "write_bytes"), .inst = MI_ALL,
	    .fold = MF_SUM,
	    .col = { .title = "DISK/s", .pos = 50, .width = 7, .prio = 2,
	    .fmt = MV_BYTES } },
	[HN_NET] = { .key = "net", .title = "Network rx + tx", .unit = "B/s",
	    .agg = "sum", .group = G("net", NULL),
	    .field = F("rx_bytes", "tx_bytes"), .inst = MI_SKIP, .iname = "lo",
	    .fold = MF_SUM,
	    .col = { .title = "NET/s", .pos = 60, .width = 7, .prio = 2,
	    .fmt = MV_BYTES } },
	[HN_GPU] = { .key = "gpu", .title = "GPU utilisation", .unit = "%",
	    .agg = "mean", .group = G("gpu", "amdgpu"),
	    .field = F("util", NULL), .inst = MI_ALL, .fold = MF_MEAN,
	    .col = { .title = "GPU%", .pos = 70, .width = 5, .prio = 2,
	    .optional = 1 } },
	[HN_PROBE_CPU] = { .key = "probe_cpu", .title = "Probe CPU",
	    .unit = "%", .agg = "sum", .group = G("self", NULL),
	    .field = F("utime", "stime"), .inst = MI_NODE, .fold = MF_BOTH,
	    .noplot = 1 },
	[HN_PROBE_BYTES] = { .key = "probe_bytes", .title = "Probe bytes sent",
	    .unit = "B/s", .agg = "sum", .group = G("self", NULL),
	    .field = F("bytes_sent", NULL), .inst = MI_NODE, .fold = MF_SUM,
	    .noplot = 1 },
	[HN_GPU_MEM] = { .key = "gpu_mem", .title = "GPU memory used",
	    .unit = "B", .agg = "sum", .group = G("gpu", "amdgpu"),
	    .field = F("mem_used", NULL), .inst = MI_ALL, .fold = MF_SUM,
	    .col = { .title = "GPUMEM", .alias = "gpumem", .pos = 80,
	    .width = 11, .prio = 4, .fmt = MV_OF, .of = HN_GPU_MEMTOTAL,
	    .optional = 1 },
	    .hdr = { .label = "GMEM", .pos = 10 } },
	[HN_GPU_MEMTOTAL] = { .key = "gpu_mem_total", .title = "GPU memory",
	    .unit = "B", .agg = "sum", .group = G("gpu", "amdgpu"),
	    .field = F("mem_total", NULL), .inst = MI_ALL, .fold = MF_SUM,
	    .noplot = 1 },
	[HN_GPU_POWER] = { .key = "gpu_power", .title = "GPU power",
	    .unit = "W", .agg = "sum", .group = G("gpu", "amdgpu"),
	    .field = F("power", NULL), .inst = MI_ALL, .fold = MF_SUM,
	    .col = { .title = "GPUPWR", .alias = "gpupwr", .pos = 90,
	    .width = 6, .prio = 5, .fmt = MV_WHOLE, .optional = 1 },
	    .hdr = { .label = "GPUW", .pos = 20 } },
	[HN_GPU_TEMP] = { .key = "gpu_temp",
	    .title = "GPU temperature (hottest)", .unit = "C", .agg = "max",
	    .group = G("gpu", "amdgpu"), .field = F("temp", NULL),
	    .inst = MI_ALL, .fold = MF_MAX,
	    .col = { .title = "GTEMP", .alias = "gtemp", .pos = 100,
	    .width = 5, .prio = 6, .fmt = MV_WHOLE, .optional = 1 },
	    .hdr = { .label = "GTEMP", .pos = 80 } },
	/* Of what every process on the GPUs uses (gpuproc util, else
	 * mem_used), the part of the job's ranks (rank pid). */
	[HN_GPU_JOB] = { .key = "gpu_job", .title = "Job's share of the GPUs",
	    .unit = "%", .agg = "mean", .group = G("gpuproc", NULL),
	    .field = F("pid", NULL), .inst = MI_ALL, .fold = MF_SPECIAL,
	    .col = { .title = "GJOB%", .alias = "gjob", .pos = 110,
	    .width = 5, .prio = 5, .optional = 1 },
	    .hdr = { .label = "GJOB", .pos = 90 } },
	[HN_IB_RX] = { .key = "ib_rx", .title = "InfiniBand received",
	    .unit = "B/s", .agg = "sum", .group = G("ib", NULL),
	    .field = F("rcv_bytes", NULL), .inst = MI_ALL, .fold = MF_SUM },
	[HN_IB_TX] = { .key = "ib_tx", .title = "InfiniBand sent",
	    .unit = "B/s", .agg = "sum", .group = G("ib", NULL),
	    .field = F("xmit_bytes", NULL), .inst = MI_ALL, .fold = MF_SUM },
	/* llite is what the job read and wrote; the OSCs count the same
	 * bytes again on their way to each target. */
	[HN_LUSTRE_READ] = { .key = "lustre_read", .title = "Lustre read",
	    .unit = "B/s", .agg = "sum", .group = G("llite", NULL),
	    .field = F("read_bytes", NULL), .inst = MI_ALL, .fold = MF_SUM,
	    .alt = "osc", .pair = HN_LUSTRE_WRITE },
	[HN_LUSTRE_WRITE] = { .key = "lustre_write", .title = "Lustre write",
	    .unit = "B/s", .agg = "sum", .group = G("llite", NULL),
	    .field = F("write_bytes", NULL), .inst = MI_ALL, .fold = MF_SUM,
	    .alt = "osc", .pair = HN_LUSTRE_READ },
	[HN_NFS_READ] = { .key = "nfs_read", .title = "NFS read",
	    .unit = "B/s", .agg = "sum", .group = G("nfs", NULL),
	    .field = F("read_bytes", NULL), .inst = MI_ALL, .fold = MF_SUM },
	[HN_NFS_WRITE] = { .key = "nfs_write", .title = "NFS write",
	    .unit = "B/s", .agg = "sum", .group = G("nfs", NULL),
	    .field = F("write_bytes", NULL), .inst = MI_ALL, .fold = MF_SUM },
	[HN_POWER_PKG] = { .key = "power_pkg",
	    .title = "CPU package power (RAPL)", .unit = "W", .agg = "sum",
	    .group = G("rapl", NULL), .field = F("energy", NULL),
	    .inst = MI_PREFIX, .iname = "package-", .fold = MF_SUM },
	[HN_POWER_DRAM] = { .key = "power_dram", .title = "DRAM power (RAPL)",
	    .unit = "W", .agg = "sum", .group = G("rapl", NULL),
	    .field = F("energy", NULL), .inst = MI_PREFIX, .iname = "dram-",
	    .fold = MF_SUM },
	[HN_TEMP] = { .key = "temp", .title = "Temperature (hottest sensor)",
	    .unit = "C", .agg = "max", .group = G("temp", NULL),
	    .field = F("temp", NULL), .inst = MI_ALL, .fold = MF_MAX,
	    .col = { .title = "TEMP", .pos = 160, .width = 4, .prio = 6,
	    .fmt = MV_WHOLE, .optional = 1 },
	    .hdr = { .label = "TEMP", .pos = 70 } },
	[HN_IPC] = { .key = "ipc", .title = "Instructions per cycle",
	    .unit = "", .agg = "mean", .group = G("rankperf", NULL),
	    .field = F("instructions", "cycles"), .inst = MI_ALL,
	    .fold = MF_RATIO,
	    .hdr = { .label = "IPC", .pos = 100 } },
	[HN_MPI] = { .key = "mpi",
	    .title = "Ranks' CPU time in MPI, collectives (COMM%)",
	    .unit = "%", .agg = "mean", .group = G("rankmpi", NULL),
	    .field = F(NULL, NULL), .derived = "share", .inst = MI_ALL,
	    .fold = MF_MEAN,
	    .hdr = { .label = "COMM", .pos = 110 } },
	/* The BMC's DCMI reading, else the largest hwmon meter of the whole
	 * node (power.node 1); two meters of a node are not added. */
	[HN_POWER_NODE] = { .key = "power_node",
	    .title = "Node power (IPMI, meters)", .unit = "W", .agg = "sum",
	    .group = G("ipmipower", "power"), .field = F("power", NULL),
	    .inst = MI_ALL, .fold = MF_SPECIAL,
	    .col = { .title = "NODEW", .alias = "nodew", .pos = 150,
	    .width = 6, .prio = 5, .fmt = MV_WHOLE, .optional = 1 },
	    .hdr = { .label = "NODEW", .pos = 60 } },
	/* Rows made of others: the node table's IB/s, FS/s and POWER
	 * columns and the job's series of them. */
	[HN_IB] = { .key = "ib", .title = "InfiniBand received + sent",
	    .unit = "B/s", .agg = "sum", .nterms = 2,
	    .terms = { HN_IB_RX, HN_IB_TX },
	    .col = { .title = "IB/s", .pos = 120, .width = 7, .prio = 3,
	    .fmt = MV_BYTES, .optional = 1 },
	    .hdr = { .label = "IB", .pos = 30 } },
	[HN_FS] = { .key = "fs", .title = "Lustre and NFS read + write",
	    .unit = "B/s", .agg = "sum", .nterms = 4,
	    .terms = { HN_LUSTRE_READ, HN_LUSTRE_WRITE, HN_NFS_READ,
	    HN_NFS_WRITE },
	    .col = { .title = "FS/s", .pos = 130, .width = 7, .prio = 3,
	    .fmt = MV_BYTES, .optional = 1 },
	    .hdr = { .label = "FS", .pos = 40 } },
	[HN_POWER] = { .key = "power", .title = "RAPL package + DRAM power",
	    .unit = "W", .agg = "sum", .nterms = 2,
	    .terms = { HN_POWER_PKG, HN_POWER_DRAM },
	    .col = { .title = "POWER", .pos = 140, .width = 6, .prio = 5,
	    .fmt = MV_WHOLE, .optional = 1 },
	    .hdr = { .label = "POWER", .pos = 50 } },
};

const struct metric_def rank_cat[HR_NMETRICS] = {
	[HR_CPU] = { .key = "cpu", .title = "Rank CPU", .unit = "%",
	    .agg = "sum", .group = G("rank", NULL), .derived = "cpu",
	    .fold = MF_SUM },
	[HR_RSS] = { .key = "rss", .title = "Rank resident memory",
	    .unit = "B", .agg = "sum", .group = G("rank", NULL),
	    .field = F("rss", NULL), .fold = MF_SUM },
	[HR_READ] = { .key = "read", .title = "Rank storage read",
	    .unit = "B/s", .agg = "sum", .group = G("rank", NULL),
	    .field = F("read_bytes", NULL), .fold = MF_SUM, .noplot = 1 },
	[HR_WRITE] = { .key = "write", .title = "Rank storage written",
	    .unit = "B/s", .agg = "sum", .group = G("rank", NULL),
	    .field = F("write_bytes", NULL), .fold = MF_SUM, .noplot = 1 },
	[HR_IPC] = { .key = "ipc", .title = "Rank instructions per cycle",
	    .unit = "", .agg = "mean", .group = G("rankperf", NULL),
	    .field = F("instructions", "cycles"), .fold = MF_RATIO },
	[HR_MPI] = { .key = "mpi",
	    .title = "Rank CPU time in MPI or collectives (COMM%)",
	    .unit = "%", .agg = "mean", .group = G("rankmpi", NULL),
	    .derived = "share", .fold = MF_SUM },
};

#undef G
#undef F

/* One source group of a row as bound to a schema. */
struct metric_src {
	int		 g;			/* -1: not in the schema */
	int		 f[METRIC_FIELDS];	/* -1: not in the group */
	double		 scale[METRIC_FIELDS];
	unsigned char	 celsius[METRIC_FIELDS];
};

struct metric_row {
	struct metric_src src[METRIC_GROUPS];
	struct metric_src alt;
	int		(*derive)(const struct node_model *,
			    const struct minst *, double *);
};

/* Fields the special rows read beyond their row's. */
struct metric_bind {
	struct metric_row row[HN_NMETRICS];
	struct metric_row rank[HR_NMETRICS];
	int	cg, cg_max, cg_cur;		/* cgroup */
	int	mem, mem_total;			/* mem */
	int	gp, gp_pid, gp_util, gp_mem;	/* gpuproc */
	int	rk, rk_pid;			/* rank */
	int	ipmi, ipmi_power;		/* ipmipower */
	int	pw, pw_power, pw_node;		/* power */
};

int
metrics_total_of(int k)
{
	int	u;

	for (u = 0; u < HN_NROWS; u++)
		if (metric_cat[u].col.fmt == MV_OF && metric_cat[u].col.of == k)
			return u;
	return -1;
}

double
metrics_add(double x, double y)
{
	if (!isfinite(x))
		return y;
	return isfinite(y) ? x + y : x;
}

int
metrics_find(const char *key)
{
	int	k;

	for (k = 0; k < HN_NMETRICS; k++) {
		if (strcmp(metric_cat[k].key, key) == 0)
			return k;
	}
	return -1;
}

/*
 * What one unit of a field is in the unit the UI shows: milliwatts and
 * millidegrees as watts and degrees, a microjoule counter (whose rate is
 * microwatts) as watts.
 */
static double
metrics_unit_scale(const char *unit)
{
	if (strcmp(unit, "mW") == 0 || strcmp(unit, "celsius-milli") == 0)
		return 1e-3;
	if (strcmp(unit, "uJ") == 0 || strcmp(unit, "uW") == 0)
		return 1e-6;
	return 1;
}

/* A field's position in group g, or -1 (g -1 or name NULL: -1). */
static int
metrics_field(const struct node_model *m, int g, const char *name)
{
	if (g < 0 || name == NULL)
		return -1;
	return model_field_index(m, (unsigned)g, name);
}

static void
metrics_bind_src(const struct node_model *m, const struct metric_def *d,
    const char *group, struct metric_src *s)
{
	const char	*unit;
	unsigned	 j;

	s->g = group != NULL ? model_group_index(m, group) : -1;
	for (j = 0; j < METRIC_FIELDS; j++) {
		s->f[j] = metrics_field(m, s->g, d->field[j]);
		s->scale[j] = 1;
		s->celsius[j] = 0;
		if (s->f[j] < 0)
			continue;
		unit = model_group(m, (unsigned)s->g)->def->
		    fields[s->f[j]].unit;
		s->scale[j] = metrics_unit_scale(unit);
		s->celsius[j] = strncmp(unit, "celsius", 7) == 0;
	}
}

static struct metric_bind *
metrics_bind_new(const struct node_model *m)
{
	const struct model_derived	*md;
	const struct metric_def		*d;
	struct metric_bind		*b;
	struct metric_row		*r;
	unsigned			 k, j;

	b = xcalloc(1, sizeof(*b));
	for (k = 0; k < HN_NMETRICS + HR_NMETRICS; k++) {
		d = k < HN_NMETRICS ? &metric_cat[k] :
		    &rank_cat[k - HN_NMETRICS];
		r = k < HN_NMETRICS ? &b->row[k] : &b->rank[k - HN_NMETRICS];
		for (j = 0; j < METRIC_GROUPS; j++)
			metrics_bind_src(m, d, d->group[j], &r->src[j]);
		metrics_bind_src(m, d, d->alt, &r->alt);
		for (md = model_derived; d->derived != NULL &&
		    md->group != NULL; md++) {
			if (strcmp(md->group, d->group[0]) == 0 &&
			    strcmp(md->name, d->derived) == 0)
				r->derive = md->fn;
		}
	}
	b->cg = model_group_index(m, "cgroup");
	b->cg_max = metrics_field(m, b->cg, "mem_max");
	b->cg_cur = metrics_field(m, b->cg, "mem_current");
	b->mem = model_group_index(m, "mem");
	b->mem_total = metrics_field(m, b->mem, "total");
	b->gp = model_group_index(m, "gpuproc");
	b->gp_pid = metrics_field(m, b->gp, "pid");
	b->gp_util = metrics_field(m, b->gp, "util");
	b->gp_mem = metrics_field(m, b->gp, "mem_used");
	b->rk = model_group_index(m, "rank");
	b->rk_pid = metrics_field(m, b->rk, "pid");
	b->ipmi = model_group_index(m, "ipmipower");
	b->ipmi_power = metrics_field(m, b->ipmi, "power");
	b->pw = model_group_index(m, "power");
	b->pw_power = metrics_field(m, b->pw, "power");
	b->pw_node = metrics_field(m, b->pw, "node");
	return b;
}

void
metrics_unbind(void *b)
{
	free(b);
}

/* The node's schema's binding, made on first use; NULL without schema. */
static const struct metric_bind *
metrics_bound(const struct node_model *m)
{
	if (m->schema == NULL)
		return NULL;
	if (m->schema->metrics == NULL)
		m->schema->metrics = metrics_bind_new(m);
	return m->schema->metrics;
}

/* The node-wide instance of group g (named ""), or NULL. */
static const struct minst *
metrics_node_inst(const struct node_model *m, int g)
{
	const struct minst	*mi;

	if (g < 0)
		return NULL;
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if (mi->name[0] == '\0')
			return mi;
	}
	return NULL;
}

/* Does instance mi count for row d? */
static int
metrics_counts(const struct metric_def *d, const struct minst *mi)
{
	switch (d->inst) {
	case MI_NODE:
		return mi->name[0] == '\0';
	case MI_PREFIX:
		return strncmp(mi->name, d->iname, strlen(d->iname)) == 0;
	case MI_SKIP:
		return strcmp(mi->name, d->iname) != 0;
	default:
		return 1;
	}
}

/* Fold x into a sum or maximum of n values so far. */
static void
metrics_acc(int how, double x, double *acc, unsigned *n)
{
	if (how == MF_MAX)
		*acc = *n == 0 || x > *acc ? x : *acc;
	else
		*acc += x;
	(*n)++;
}

/*
 * Fold the fields (field j only when j >= 0) or the derived value of the
 * counted instances of one source group into *acc; *n counts the values.
 * A sensor not ready reads below absolute zero (-274 C from some
 * drivers): no temperature.
 */
static void
metrics_fold(const struct node_model *m, const struct metric_def *d,
    const struct metric_row *r, const struct metric_src *s, int only,
    double *acc, unsigned *n)
{
	const struct minst	*mi;
	double			 x;
	unsigned		 j;

	if (s->g < 0)
		return;
	for (mi = m->gfirst[s->g]; mi != NULL; mi = mi->gnext) {
		if (!metrics_counts(d, mi))
			continue;
		if (d->derived != NULL) {
			if (r->derive != NULL && r->derive(m, mi, &x) &&
			    isfinite(x))
				metrics_acc(d->fold, x, acc, n);
		} else {
			for (j = 0; j < METRIC_FIELDS; j++) {
				if (s->f[j] < 0 || (only >= 0 &&
				    j != (unsigned)only) ||
				    !model_metric(m, mi, (unsigned)s->f[j],
				    &x))
					continue;
				x *= s->scale[j];
				if (s->celsius[j] && x < -273.15)
					continue;
				metrics_acc(d->fold, x, acc, n);
			}
		}
		if (d->inst == MI_NODE)
			break;
	}
}

/* A row from its groups (or its alternative group), NaN without. */
static double
metrics_row(const struct node_model *m, const struct metric_def *d,
    const struct metric_row *r, int alt)
{
	const struct minst	*mi;
	double			 acc = 0, ins = 0, cyc = 0, x, y;
	unsigned		 n = 0, ni = 0, nc = 0, j;

	switch (d->fold) {
	case MF_BOTH:
		if ((mi = metrics_node_inst(m, r->src[0].g)) == NULL ||
		    r->src[0].f[0] < 0 || r->src[0].f[1] < 0 ||
		    !model_metric(m, mi, (unsigned)r->src[0].f[0], &x) ||
		    !model_metric(m, mi, (unsigned)r->src[0].f[1], &y))
			return NAN;
		return x * r->src[0].scale[0] + y * r->src[0].scale[1];
	case MF_RATIO:
		metrics_fold(m, d, r, &r->src[0], 0, &ins, &ni);
		metrics_fold(m, d, r, &r->src[0], 1, &cyc, &nc);
		return ni > 0 && nc > 0 && cyc > 0 ? ins / cyc : NAN;
	default:
		if (alt)
			metrics_fold(m, d, r, &r->alt, -1, &acc, &n);
		else
			for (j = 0; j < METRIC_GROUPS; j++)
				metrics_fold(m, d, r, &r->src[j], -1, &acc,
				    &n);
		if (n == 0)
			return NAN;
		return d->fold == MF_MEAN ? acc / n : acc;
	}
}

/* The first instance of group g, or NULL. */
static const struct minst *
metrics_first(const struct node_model *m, int g)
{
	return g >= 0 ? m->gfirst[g] : NULL;
}

/* A raw value of field f of instance mi: 1 when present. */
static int
metrics_raw(const struct minst *mi, int f, int64_t *v)
{
	return mi != NULL && f >= 0 && model_value(mi, (unsigned)f, v);
}

/* Memory in use and its limit (HN_MEM, HN_MEMPCT). */
static void
metrics_memory(const struct node_model *m, const struct metric_bind *b,
    double *used, double *limit)
{
	const struct minst	*cg = metrics_first(m, b->cg), *mi;
	int64_t			 cur, max, total;

	*used = NAN;
	*limit = 0;
	mi = metrics_node_inst(m, b->mem);
	if (metrics_raw(cg, b->cg_max, &max) && max > 0 &&
	    metrics_raw(cg, b->cg_cur, &cur)) {
		*used = (double)cur;
		*limit = (double)max;
		if (metrics_raw(mi, b->mem_total, &total) && total > 0 &&
		    total < max)
			*limit = (double)total;
		return;
	}
	if (mi != NULL && b->row[HN_MEM].derive != NULL)
		b->row[HN_MEM].derive(m, mi, used);
	if (metrics_raw(mi, b->mem_total, &total) && total > 0)
		*limit = (double)total;
	else if (m->have_hello && m->hello.mem_total > 0)
		*limit = (double)m->hello.mem_total;
}

/* Is pid one of the node's ranks? */
static int
metrics_is_rank(const struct node_model *m, const struct metric_bind *b,
    int64_t pid)
{
	const struct minst	*mi;
	int64_t			 x;

	for (mi = m->gfirst[b->rk]; mi != NULL; mi = mi->gnext) {
		if (model_value(mi, (unsigned)b->rk_pid, &x) && x == pid)
			return 1;
	}
	return 0;
}

/*
 * The job's share of the node's GPUs: of what every process on them uses
 * (their utilisation when the probe sends it per process, else their
 * memory), the part of processes that are the job's ranks, in percent.
 * NaN without a process list, without ranks, or when the processes use
 * nothing.
 */
static double
metrics_gpu_job(const struct node_model *m, const struct metric_bind *b)
{
	const struct minst	*mi;
	int64_t			 pid, x;
	double			 job = 0, all = 0;
	int			 f, n = 0;

	if (b->gp < 0 || b->gp_pid < 0)
		return NAN;
	/* Utilisation when any process has it. */
	f = b->gp_mem;
	for (mi = m->gfirst[b->gp]; b->gp_util >= 0 && mi != NULL;
	    mi = mi->gnext) {
		if (model_value(mi, (unsigned)b->gp_util, &x)) {
			f = b->gp_util;
			break;
		}
	}
	if (f < 0)
		return NAN;
	/* Without ranks the job's processes are unknown, not absent. */
	if (b->rk < 0 || m->gfirst[b->rk] == NULL || b->rk_pid < 0)
		return NAN;
	for (mi = m->gfirst[b->gp]; mi != NULL; mi = mi->gnext) {
		if (!model_value(mi, (unsigned)b->gp_pid, &pid) ||
		    !model_value(mi, (unsigned)f, &x) || x < 0)
			continue;
		all += (double)x;
		n++;
		if (metrics_is_rank(m, b, pid))
			job += (double)x;
	}
	return n > 0 && all > 0 ? job * 100.0 / all : NAN;
}

/* Whole-node power in watts (HN_POWER_NODE). */
static double
metrics_power_node(const struct node_model *m, const struct metric_bind *b)
{
	const struct minst	*mi;
	int64_t			 v, whole;
	double			 best = NAN;

	if (b->ipmi >= 0 && b->ipmi_power >= 0) {
		for (mi = m->gfirst[b->ipmi]; mi != NULL; mi = mi->gnext) {
			if (model_value(mi, (unsigned)b->ipmi_power, &v) &&
			    v >= 0 && !(v / 1e6 < best))
				best = v / 1e6;
		}
		if (isfinite(best))
			return best;
	}
	if (b->pw < 0 || b->pw_power < 0 || b->pw_node < 0)
		return NAN;
	for (mi = m->gfirst[b->pw]; mi != NULL; mi = mi->gnext) {
		if (model_value(mi, (unsigned)b->pw_node, &whole) &&
		    whole == 1 && model_value(mi, (unsigned)b->pw_power, &v) &&
		    v >= 0 && !(v / 1e6 < best))
			best = v / 1e6;
	}
	return best;
}

void
metrics_node_values(const struct node_model *m, double *out, double *limit)
{
	const struct metric_bind	*b = metrics_bound(m);
	const struct metric_def		*d;
	double				 used, lim;
	unsigned			 k;
	int				 p;

	if (b == NULL) {
		for (k = 0; k < HN_NMETRICS; k++)
			out[k] = NAN;
		if (limit != NULL)
			*limit = m->have_hello && m->hello.mem_total > 0 ?
			    (double)m->hello.mem_total : 0;
		return;
	}
	for (k = 0; k < HN_NMETRICS; k++) {
		d = &metric_cat[k];
		if (d->fold != MF_SPECIAL)
			out[k] = metrics_row(m, d, &b->row[k], 0);
	}
	/* A pair without a value from its groups reads its alternative. */
	for (k = 0; k < HN_NMETRICS; k++) {
		d = &metric_cat[k];
		p = d->pair;
		if (d->alt == NULL || (unsigned)p <= k || isfinite(out[k]) ||
		    isfinite(out[p]))
			continue;
		out[k] = metrics_row(m, d, &b->row[k], 1);
		out[p] = metrics_row(m, &metric_cat[p], &b->row[p], 1);
	}
	metrics_memory(m, b, &used, &lim);
	out[HN_MEM] = used;
	out[HN_MEMPCT] = lim > 0 ? used * 100.0 / lim : NAN;
	out[HN_GPU_JOB] = metrics_gpu_job(m, b);
	out[HN_POWER_NODE] = metrics_power_node(m, b);
	if (limit != NULL)
		*limit = lim;
}

int
metrics_rank_group(const struct node_model *m, enum hist_rank_metric k)
{
	const struct metric_bind	*b = metrics_bound(m);

	return b != NULL && (unsigned)k < HR_NMETRICS ? b->rank[k].src[0].g :
	    -1;
}

int
metrics_rank_value(const struct node_model *m, const struct minst *mi,
    enum hist_rank_metric k, double *v)
{
	const struct metric_bind	*b = metrics_bound(m);
	const struct metric_row		*r;
	double				 x, y;

	if (b == NULL || (unsigned)k >= HR_NMETRICS)
		return 0;
	r = &b->rank[k];
	if (r->src[0].g < 0 || mi->group != (unsigned)r->src[0].g)
		return 0;
	if (r->derive != NULL)
		return r->derive(m, mi, v);
	if (r->src[0].f[0] < 0 ||
	    !model_metric(m, mi, (unsigned)r->src[0].f[0], &x))
		return 0;
	if (rank_cat[k].fold != MF_RATIO) {
		*v = x;
		return 1;
	}
	if (r->src[0].f[1] < 0 ||
	    !model_metric(m, mi, (unsigned)r->src[0].f[1], &y))
		return 0;
	*v = isfinite(x) && isfinite(y) && y > 0 ? x / y : NAN;
	return 1;
}
