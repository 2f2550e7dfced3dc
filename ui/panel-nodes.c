/* SPDX-License-Identifier: ISC */
/*
 * panel-nodes: the node table, one row per node with its state, CPU busy,
 * memory, load, disk and network rates, the flags the detectors raised and
 * a sparkline of its CPU.  Columns of the optional sources (GPU use,
 * memory, power and temperature, the job's share of the GPUs, InfiniBand
 * and file-system rates, RAPL power, whole-node power (NODEW: IPMI or a
 * power meter), the hottest sensor) are shown only
 * when some node has the source, and are the first dropped on a narrow
 * terminal.  Outliers (a flag, a state other than live, CPU or memory far
 * from the job's median) are highlighted.
 *
 * When the nodes do not fit (or always, with 'f'), nodes that look alike
 * fold into one row named by their hostlist ("node[001-480]") showing the
 * group's aggregate, while every outlier keeps a row of its own.  Look
 * alike: live, unflagged, in the same band of CPU busy and memory use.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "hostlist.h"
#include "setup.h"
#include "ui-priv.h"
#include "xmalloc.h"

enum {
	NC_NAME, NC_STATE, NC_CPU, NC_MEMPCT, NC_MEM, NC_LOAD, NC_DISK,
	NC_NET, NC_GPU, NC_GMEM, NC_GPOW, NC_GTEMP, NC_GJOB, NC_IB, NC_FS,
	NC_POWER, NC_NODEW, NC_TEMP, NC_FLAGS, NC_SPARK, NC_NCOLS
};

static const struct widget_col nodes_cols[NC_NCOLS] = {
	{ .title = "NODE", .width = 8 },
	{ .title = "STATE", .width = 10, .prio = 3 },
	{ .title = "CPU%", .width = 5, .right = 1 },
	{ .title = "MEM%", .width = 5, .right = 1 },
	{ .title = "MEM", .width = 11, .right = 1, .prio = 4 },
	{ .title = "LOAD", .width = 6, .right = 1, .prio = 3 },
	{ .title = "DISK/s", .width = 7, .right = 1, .prio = 2 },
	{ .title = "NET/s", .width = 7, .right = 1, .prio = 2 },
	{ .title = "GPU%", .width = 5, .right = 1, .prio = 2 },
	{ .title = "GPUMEM", .width = 11, .right = 1, .prio = 4 },
	{ .title = "GPUPWR", .width = 6, .right = 1, .prio = 5 },
	{ .title = "GTEMP", .width = 5, .right = 1, .prio = 6 },
	{ .title = "GJOB%", .width = 5, .right = 1, .prio = 5 },
	{ .title = "IB/s", .width = 7, .right = 1, .prio = 3 },
	{ .title = "FS/s", .width = 7, .right = 1, .prio = 3 },
	{ .title = "POWER", .width = 6, .right = 1, .prio = 5 },
	{ .title = "NODEW", .width = 6, .right = 1, .prio = 5 },
	{ .title = "TEMP", .width = 4, .right = 1, .prio = 6 },
	{ .title = "FLAGS", .width = 8, .flex = 22, .prio = 1 },
	{ .title = "CPU HISTORY", .width = 10, .flex = 120 },
};

/* Sorting descends by default on these columns. */
static const int nodes_desc[NC_NCOLS] = {
	0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0
};

/* The columns as the user chooses them (columns.h): keys by column. */
static const char *const nodes_keys[NC_NCOLS] = {
	[NC_NAME] = "node", [NC_STATE] = "state", [NC_CPU] = "cpu",
	[NC_MEMPCT] = "mempct", [NC_MEM] = "mem", [NC_LOAD] = "load",
	[NC_DISK] = "disk", [NC_NET] = "net", [NC_GPU] = "gpu",
	[NC_GMEM] = "gpumem", [NC_GPOW] = "gpupwr", [NC_GTEMP] = "gtemp",
	[NC_GJOB] = "gjob", [NC_IB] = "ib", [NC_FS] = "fs",
	[NC_POWER] = "power", [NC_NODEW] = "nodew", [NC_TEMP] = "temp",
	[NC_FLAGS] = "flags", [NC_SPARK] = "history",
};
static const char *const nodes_titles[NC_NCOLS] = {
	[NC_NAME] = "NODE", [NC_STATE] = "STATE", [NC_CPU] = "CPU%",
	[NC_MEMPCT] = "MEM%", [NC_MEM] = "MEM", [NC_LOAD] = "LOAD",
	[NC_DISK] = "DISK/s", [NC_NET] = "NET/s", [NC_GPU] = "GPU%",
	[NC_GMEM] = "GPUMEM", [NC_GPOW] = "GPUPWR", [NC_GTEMP] = "GTEMP",
	[NC_GJOB] = "GJOB%", [NC_IB] = "IB/s", [NC_FS] = "FS/s",
	[NC_POWER] = "POWER", [NC_NODEW] = "NODEW", [NC_TEMP] = "TEMP",
	[NC_FLAGS] = "FLAGS", [NC_SPARK] = "CPU HISTORY",
};
const struct columns_def panel_nodes_columns = {
	.setting = "node_columns",
	.ncols = NC_NCOLS,
	.keys = nodes_keys,
	.titles = nodes_titles,
};

/* Columns of optional sources: shown when a row has a value (prepare
 * sets it, draw and the sort keys read it). */
static int	nodes_have[NC_NCOLS];

/* Is a column shown (when the terminal is wide enough)? */
static int
nodes_shown(int col)
{
	return columns_shown(COLUMNS_NODES, (unsigned)col) &&
	    (col < NC_GPU || col > NC_TEMP || nodes_have[col]);
}

#define NODES_FAR_CPU		25.0	/* %-points from the median */
#define NODES_MEM_HIGH		90.0
#define NODES_CPU_BAND		20.0	/* look-alike bands */
#define NODES_MEM_BAND		25.0

static int
nodes_height(const struct ui *ui, int avail)
{
	return -1;
}

/* A row's value for a sort column. */
static double
nodes_sortval(const struct ui_nrow *r, int col)
{
	switch (col) {
	case NC_STATE:
		return r->sclass;
	case NC_CPU:
		return r->cpu;
	case NC_MEMPCT:
		return r->mempct;
	case NC_MEM:
		return r->mem;
	case NC_LOAD:
		return r->load;
	case NC_DISK:
		return r->disk;
	case NC_NET:
		return r->net;
	case NC_GPU:
		return r->gpu;
	case NC_GMEM:
		return r->gmem;
	case NC_GPOW:
		return r->gpow;
	case NC_GTEMP:
		return r->gtemp;
	case NC_GJOB:
		return r->gjob;
	case NC_IB:
		return r->ib;
	case NC_FS:
		return r->fs;
	case NC_POWER:
		return r->power;
	case NC_NODEW:
		return r->nodew;
	case NC_TEMP:
		return r->temp;
	case NC_FLAGS:
		return __builtin_popcount(r->flags) * 1000.0 +
		    r->nrflagged;
	default:
		return r->node;
	}
}

/* qsort has no argument: the sort is set before each call. */
static int	nodes_sort_col, nodes_sort_rev;
static const int *nodes_sort_members;

static int
nodes_cmp(const void *a, const void *b)
{
	const struct ui_nrow	*x = a, *y = b;
	double			 kx = nodes_sortval(x, nodes_sort_col);
	double			 ky = nodes_sortval(y, nodes_sort_col);
	int			 fx = x->node >= 0 ? x->node :
				    nodes_sort_members[x->first];
	int			 fy = y->node >= 0 ? y->node :
				    nodes_sort_members[y->first];
	int			 c = 0, px, py;

	/* Sorted by name (the default), the problems come first, as in
	 * atop: a flagged node or one with a flagged rank, then one lost or
	 * failed. */
	if (nodes_sort_col == NC_NAME && !nodes_sort_rev) {
		px = (x->flags | x->rflags) != 0 ? 0 : x->sclass == US_LOST ||
		    x->sclass == US_FAILED ? 1 : 2;
		py = (y->flags | y->rflags) != 0 ? 0 : y->sclass == US_LOST ||
		    y->sclass == US_FAILED ? 1 : 2;
		if (px != py)
			return px < py ? -1 : 1;
	}
	/* Absent values sort last either way. */
	if (isnan(kx) != isnan(ky))
		return isnan(kx) ? 1 : -1;
	if (!isnan(kx) && kx != ky)
		c = kx < ky ? -1 : 1;
	if (nodes_sort_col == NC_NAME)
		c = fx < fy ? -1 : fx > fy;
	if (nodes_sort_rev)
		c = -c;
	if (c == 0)
		c = fx < fy ? -1 : fx > fy;
	return c;
}

/*
 * The node table's metric cells and the catalogue rows (metrics.h) each
 * one shows: one row, or the sum of two terms where either is a number,
 * a term being one row or such a sum of two (IB is received + sent, FS
 * Lustre read + write and NFS read + write, POWER RAPL package + DRAM);
 * -1: none.
 */
static const struct {
	size_t	off;			/* of the double in struct ui_nrow */
	int	t[2][2];
} nodes_cells[] = {
	{ .off = offsetof(struct ui_nrow, cpu),
	    .t = { { HN_CPU, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, mem),
	    .t = { { HN_MEM, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, mempct),
	    .t = { { HN_MEMPCT, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, load),
	    .t = { { HN_LOAD, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, disk),
	    .t = { { HN_DISK, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, net),
	    .t = { { HN_NET, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, gpu),
	    .t = { { HN_GPU, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, gmem),
	    .t = { { HN_GPU_MEM, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, gmemtot),
	    .t = { { HN_GPU_MEMTOTAL, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, gpow),
	    .t = { { HN_GPU_POWER, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, gtemp),
	    .t = { { HN_GPU_TEMP, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, gjob),
	    .t = { { HN_GPU_JOB, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, ib),
	    .t = { { HN_IB_RX, HN_IB_TX }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, fs),
	    .t = { { HN_LUSTRE_READ, HN_LUSTRE_WRITE },
	    { HN_NFS_READ, HN_NFS_WRITE } } },
	{ .off = offsetof(struct ui_nrow, power),
	    .t = { { HN_POWER_PKG, HN_POWER_DRAM }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, nodew),
	    .t = { { HN_POWER_NODE, -1 }, { -1 } } },
	{ .off = offsetof(struct ui_nrow, temp),
	    .t = { { HN_TEMP, -1 }, { -1 } } },
};

/* x + y where either is a number (NaN when neither is). */
static double
nodes_add(double x, double y)
{
	if (!isfinite(x))
		return y;
	return isfinite(y) ? x + y : x;
}

/* A row's latest value, or NaN for -1. */
static double
nodes_get(const struct ui *ui, int i, int k)
{
	return k < 0 ? NAN : history_node_get(ui->hist, i,
	    (enum hist_node_metric)k, 0);
}

/* Fill a row from one node's latest history and flags. */
static void
nodes_fill(const struct ui *ui, struct ui_nrow *r, int i)
{
	double		v, x;
	unsigned	c, t;

	memset(r, 0, sizeof(*r));
	r->node = i;
	r->sclass = ui_sclass(ui, i);
	for (c = 0; c < sizeof(nodes_cells) / sizeof(nodes_cells[0]); c++) {
		v = NAN;
		for (t = 0; t < 2 && nodes_cells[c].t[t][0] >= 0; t++) {
			x = nodes_get(ui, i, nodes_cells[c].t[t][0]);
			if (nodes_cells[c].t[t][1] >= 0)
				x = nodes_add(x, nodes_get(ui, i,
				    nodes_cells[c].t[t][1]));
			v = t == 0 ? x : nodes_add(v, x);
		}
		/* A lost or failed node's last values are stale, not
		 * live: shown as "-" (D8); its sparkline keeps its past. */
		if (r->sclass == US_LOST || r->sclass == US_FAILED)
			v = NAN;
		memcpy((char *)r + nodes_cells[c].off, &v, sizeof(v));
	}
	r->limit = history_node_mem_limit(ui->hist, i);
	r->flags = detect_node_flags(ui->det, i);
	r->gidle = monitor_gpu_idle(ui->mon, i);
	r->nranks = history_nranks(ui->hist, i);
	detect_node_ranks(ui->det, i, &r->rflags, &r->nrflagged);
	r->outlier = r->flags != 0 || r->rflags != 0 || r->gidle != 0 ||
	    r->sclass != US_LIVE || (isfinite(r->mempct) &&
	    r->mempct > NODES_MEM_HIGH);
	if (!r->outlier && isfinite(r->cpu) &&
	    isfinite(detect_node_median(ui->det)) &&
	    fabs(r->cpu - detect_node_median(ui->det)) > NODES_FAR_CPU)
		r->outlier = 1;
}

static struct ui_nrow *
nodes_add_row(struct ui *ui)
{
	if (ui->nnrows == ui->capnrows) {
		ui->capnrows = ui->capnrows ? ui->capnrows * 2 : 64;
		ui->nrows = xreallocarray(ui->nrows, ui->capnrows,
		    sizeof(*ui->nrows));
	}
	return &ui->nrows[ui->nnrows++];
}

/* Sum x into *s when it is a number (NaN stays NaN until one is). */
static void
nodes_acc(double *s, double x)
{
	if (!isfinite(x))
		return;
	*s = isfinite(*s) ? *s + x : x;
}

/* The larger of *s and x when x is a number. */
static void
nodes_max(double *s, double x)
{
	if (isfinite(x) && (!isfinite(*s) || x > *s))
		*s = x;
}

/* The look-alike band of a node: -1 for no CPU value. */
static int
nodes_band(const struct ui_nrow *r, int coarse)
{
	int	cb, mb;

	/* Compared as doubles first: a node's value may be far outside
	 * any int. */
	cb = !isfinite(r->cpu) ? -1 : r->cpu >= 4 * NODES_CPU_BAND ? 4 :
	    r->cpu < 0 ? 0 : (int)(r->cpu / NODES_CPU_BAND);
	if (coarse)
		return cb + 1;
	mb = !isfinite(r->mempct) ? -1 : r->mempct >= 3 * NODES_MEM_BAND ?
	    3 : r->mempct < 0 ? 0 : (int)(r->mempct / NODES_MEM_BAND);
	return (cb + 1) * 5 + mb + 1;
}

#define NODES_NBANDS	30

/*
 * Fold the n plain rows into groups by band, appended to the table: each
 * group becomes one row (its members in ui->members); groups of one stay
 * plain.  Returns the rows there are after folding.
 */
static unsigned
nodes_fold(struct ui *ui, const struct ui_nrow *plain, unsigned n, int coarse)
{
	struct ui_nrow	*g;
	struct hostlist	*hl;
	unsigned	 count[NODES_NBANDS];
	unsigned	 start[NODES_NBANDS], fill[NODES_NBANDS], k, b, m;
	double		 cpu_sum[NODES_NBANDS], load_sum[NODES_NBANDS];
	double		 gpu_sum[NODES_NBANDS], gjob_sum[NODES_NBANDS];
	unsigned	 cpu_n[NODES_NBANDS], load_n[NODES_NBANDS];
	unsigned	 gpu_n[NODES_NBANDS], gjob_n[NODES_NBANDS];
	char		*label, err[64];

	if (n == 0)
		return ui->nnrows;
	memset(count, 0, sizeof(count));
	for (k = 0; k < n; k++)
		count[nodes_band(&plain[k], coarse)]++;
	if (ui->capmembers < n) {
		ui->capmembers = n;
		ui->members = xreallocarray(ui->members, n,
		    sizeof(*ui->members));
	}
	for (b = 0, m = 0; b < NODES_NBANDS; b++) {
		start[b] = fill[b] = m;
		m += count[b];
	}
	for (k = 0; k < n; k++) {
		b = (unsigned)nodes_band(&plain[k], coarse);
		ui->members[fill[b]++] = plain[k].node;
	}
	for (b = 0; b < NODES_NBANDS; b++) {
		if (count[b] == 0)
			continue;
		if (count[b] == 1) {
			for (k = 0; k < n; k++)
				if (plain[k].node == ui->members[start[b]])
					*nodes_add_row(ui) = plain[k];
			continue;
		}
		g = nodes_add_row(ui);
		memset(g, 0, sizeof(*g));
		g->node = -1;
		g->first = start[b];
		g->count = count[b];
		g->sclass = US_LIVE;
		g->cpu = g->mem = g->load = g->disk = g->net = g->gpu = NAN;
		g->gmem = g->gmemtot = g->gpow = g->gtemp = g->gjob = NAN;
		g->ib = g->fs = g->power = g->nodew = g->temp = NAN;
		cpu_sum[b] = load_sum[b] = gpu_sum[b] = gjob_sum[b] = 0;
		cpu_n[b] = load_n[b] = gpu_n[b] = gjob_n[b] = 0;
		hl = hostlist_new();
		for (k = 0; k < n; k++) {
			const struct ui_nrow *p = &plain[k];

			if ((unsigned)nodes_band(p, coarse) != b)
				continue;
			if (hl != NULL)
				hostlist_push_name(hl, ui->nodes[p->node].name,
				    err, sizeof(err));
			if (isfinite(p->cpu)) {
				cpu_sum[b] += p->cpu;
				cpu_n[b]++;
			}
			if (isfinite(p->load)) {
				load_sum[b] += p->load;
				load_n[b]++;
			}
			if (isfinite(p->gpu)) {
				gpu_sum[b] += p->gpu;
				gpu_n[b]++;
			}
			nodes_acc(&g->mem, p->mem);
			if (isfinite(p->mem))
				g->limit += p->limit;
			nodes_acc(&g->disk, p->disk);
			nodes_acc(&g->net, p->net);
			if (isfinite(p->gjob)) {
				gjob_sum[b] += p->gjob;
				gjob_n[b]++;
			}
			nodes_acc(&g->gmem, p->gmem);
			if (isfinite(p->gmem))
				nodes_acc(&g->gmemtot, p->gmemtot);
			nodes_acc(&g->gpow, p->gpow);
			nodes_max(&g->gtemp, p->gtemp);
			nodes_acc(&g->ib, p->ib);
			nodes_acc(&g->fs, p->fs);
			nodes_acc(&g->power, p->power);
			nodes_acc(&g->nodew, p->nodew);
			nodes_max(&g->temp, p->temp);
			g->nranks += p->nranks;
		}
		g->cpu = cpu_n[b] ? cpu_sum[b] / cpu_n[b] : NAN;
		g->load = load_n[b] ? load_sum[b] / load_n[b] : NAN;
		g->gpu = gpu_n[b] ? gpu_sum[b] / gpu_n[b] : NAN;
		g->gjob = gjob_n[b] ? gjob_sum[b] / gjob_n[b] : NAN;
		g->mempct = g->limit > 0 ? g->mem * 100.0 / g->limit : NAN;
		label = NULL;
		if (hl == NULL || hostlist_fold(hl, &label) != HL_OK)
			label = xasprintf("%u nodes", count[b]);
		g->label = label;
		hostlist_free(hl);
	}
	return ui->nnrows;
}

static void
nodes_prepare(struct ui *ui, const struct ui_rect *r)
{
	struct ui_nrow	*plain;
	unsigned	 k, nvis = 0, nplain = 0, base;
	int		 i, avail = r->h - 2, want;

	for (k = 0; k < ui->nnrows; k++)
		free(ui->nrows[k].label);
	ui->nnrows = 0;
	if (ui->capnall < (unsigned)ui->nnodes) {
		ui->capnall = (unsigned)ui->nnodes;
		ui->nall = xreallocarray(ui->nall, ui->capnall,
		    sizeof(*ui->nall));
	}
	/* Every visible node's row, once; which optional columns have a
	 * value in any. */
	memset(nodes_have, 0, sizeof(nodes_have));
	for (i = 0; i < ui->nnodes; i++) {
		if (!ui_node_visible(ui, i))
			continue;
		nodes_fill(ui, &ui->nall[nvis], i);
		for (k = NC_GPU; k <= NC_TEMP; k++)
			if (isfinite(nodes_sortval(&ui->nall[nvis], (int)k)))
				nodes_have[k] = 1;
		nvis++;
	}
	want = ui->fold == UF_ALWAYS ||
	    (ui->fold == UF_AUTO && (int)nvis > avail);
	ui->folded = 0;
	if (!want) {
		for (k = 0; k < nvis; k++)
			*nodes_add_row(ui) = ui->nall[k];
	} else {
		/* Outliers keep their rows; the plain ones are gathered at
		 * the end of nall and fold. */
		plain = xreallocarray(NULL, nvis > 0 ? nvis : 1,
		    sizeof(*plain));
		for (k = 0; k < nvis; k++) {
			if (ui->nall[k].outlier)
				*nodes_add_row(ui) = ui->nall[k];
			else
				plain[nplain++] = ui->nall[k];
		}
		base = ui->nnrows;
		if (nodes_fold(ui, plain, nplain, 0) > (unsigned)avail &&
		    ui->nnrows > base) {
			/* Still too many: fold again by CPU alone. */
			for (k = base; k < ui->nnrows; k++)
				free(ui->nrows[k].label);
			ui->nnrows = base;
			nodes_fold(ui, plain, nplain, 1);
		}
		free(plain);
		ui->folded = ui->nnrows < nvis;
	}
	nodes_sort_col = ui->ntab.sort;
	nodes_sort_rev = ui->ntab.rev;
	nodes_sort_members = ui->members;
	qsort(ui->nrows, ui->nnrows, sizeof(*ui->nrows), nodes_cmp);

	/* Keep the cursor on the node it was on. */
	for (k = 0; k < ui->nnrows; k++) {
		const struct ui_nrow *nr = &ui->nrows[k];
		unsigned m;

		if (nr->node == ui->sel_node) {
			ui->ntab.sel = (int)k;
			break;
		}
		for (m = 0; nr->node < 0 && m < nr->count; m++)
			if (ui->members[nr->first + m] == ui->sel_node)
				break;
		if (nr->node < 0 && m < nr->count) {
			ui->ntab.sel = (int)k;
			break;
		}
	}
	ui_table_clamp(&ui->ntab, (int)ui->nnrows, avail);
	if (ui->nnrows > 0) {
		const struct ui_nrow *nr = &ui->nrows[ui->ntab.sel];

		ui->sel_node = nr->node >= 0 ? nr->node :
		    ui->members[nr->first];
	}
}

/* The mean CPU series of a row (a node's own, or its group's). */
static void
nodes_series(const struct ui *ui, const struct ui_nrow *r, float *v,
    unsigned n)
{
	float		tmp[UI_SPARK_MAX];
	unsigned	cnt[UI_SPARK_MAX], j, m;

	if (r->node >= 0) {
		history_node_series(ui->hist, r->node, HN_CPU, v, n);
		return;
	}
	for (j = 0; j < n; j++) {
		v[j] = 0;
		cnt[j] = 0;
	}
	for (m = 0; m < r->count; m++) {
		history_node_series(ui->hist, ui->members[r->first + m],
		    HN_CPU, tmp, n);
		for (j = 0; j < n; j++) {
			if (isfinite(tmp[j])) {
				v[j] += tmp[j];
				cnt[j]++;
			}
		}
	}
	for (j = 0; j < n; j++)
		v[j] = cnt[j] ? v[j] / cnt[j] : NAN;
}

/* A whole number with its unit, "245W", or "-". */
static const char *
nodes_unit(char *buf, size_t size, double x, const char *unit)
{
	if (!isfinite(x))
		return widget_num(buf, size, x, 0);
	snprintf(buf, size, "%.0f%s", x, unit);
	return buf;
}

/* Does the STATE cell name the node's transport?  Not for the usual
 * ones (libssh2, this machine's own probe, a replay). */
static int
nodes_transport_shown(const struct ui *ui, int i)
{
	const char	*t = monitor_node_transport(ui->mon, i);

	return *t != '\0' && strcmp(t, "libssh2") != 0 &&
	    strcmp(t, "local") != 0 && strcmp(t, "replay") != 0;
}

/* "lost, 1 stalled rank" for the FLAGS column. */
static int
nodes_flags_text(const struct ui_nrow *r, char *buf, size_t size)
{
	const char	*names[DF_NFLAGS];
	size_t		 len = 0;
	int		 n, i, role = -1;

	buf[0] = '\0';
	n = detect_flag_names(r->flags, names, DF_NFLAGS);
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    i > 0 ? "," : "", names[i]);
	if (r->flags & DF_LOST)
		role = TR_FLAG_LOST;
	else if (r->flags & DF_STRAGGLER)
		role = TR_FLAG_STRAGGLER;
	else if (r->flags & DF_MEMORY)
		role = TR_FLAG_MEMORY;
	/* "gpu-idle 1,3": the allocated GPUs no rank uses. */
	for (i = 0; i < 64 && r->gidle != 0 && len < size; i++) {
		if ((r->gidle >> i & 1) == 0)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%d",
		    len == 0 ? "gpu-idle " : (r->gidle & (((uint64_t)1 << i) -
		    1)) == 0 ? " gpu-idle " : ",", i);
		if (role < 0)
			role = TR_FLAG_STRAGGLER;
	}
	if (r->nrflagged > 0 && len < size) {
		n = detect_flag_names(r->rflags, names, DF_NFLAGS);
		len += (size_t)snprintf(buf + len, size - len, "%s%u %s rank%s",
		    len > 0 ? " " : "", r->nrflagged, names[0],
		    r->nrflagged > 1 ? "s" : "");
		if (role < 0)
			role = (r->rflags & DF_STALLED) ? TR_FLAG_STALLED :
			    (r->rflags & DF_STRAGGLER) ? TR_FLAG_STRAGGLER :
			    TR_FLAG_MEMORY;
	}
	return role;
}

static void
nodes_draw(const struct ui *ui, const struct ui_rect *r)
{
	struct widget_col	 c[NC_NCOLS];
	const struct ui_nrow	*row;
	const char		*reason;
	float			 v[UI_SPARK_MAX];
	char			 buf[256], a[32], b[32];
	char			 spark[UI_SPARK_MAX * 3 + 1];
	int			 x[NC_NCOLS], w[NC_NCOLS], i, y, k, role;
	int			 namew = 8, sel;
	unsigned		 live = 0;
	attr_t			 base;

	memcpy(c, nodes_cols, sizeof(c));
	for (k = 0; k < (int)ui->nnrows; k++) {
		row = &ui->nrows[k];
		i = row->node >= 0 ? (int)strlen(ui->nodes[row->node].name) :
		    (int)strlen(row->label);
		if (i > namew)
			namew = i;
	}
	for (i = 0; i < ui->nnodes; i++)
		live += ui_sclass(ui, i) == US_LIVE;
	c[NC_NAME].width = namew > 32 ? 32 : namew;
	for (k = 0; k < NC_NCOLS; k++)
		if (!nodes_shown(k))
			c[k].width = 0;
	widget_cols(c, NC_NCOLS, r->w, x, w);

	/* Title. */
	snprintf(buf, sizeof(buf), "Nodes %d, %u live", ui->nnodes, live);
	k = widget_put(r->y, r->x, r->w, ui->attr[TR_TITLE], buf);
	if (ui->folded) {
		snprintf(buf, sizeof(buf), "  (look-alike nodes folded into "
		    "%u rows; f changes)", ui->nnrows);
		k += widget_put(r->y, r->x + k, r->w - k, ui->attr[TR_LABEL],
		    buf);
	}
	if (ui->filter != NULL) {
		snprintf(buf, sizeof(buf), "  filter /%s/: %u rows",
		    filter_pattern(ui->filter), ui->nnrows);
		widget_put(r->y, r->x + k, r->w - k, ui->attr[TR_LABEL], buf);
	}
	widget_head(r->y + 1, r->x, r->w, ui->attr[TR_TABLE_HEAD],
	    ui->attr[TR_TABLE_SORT], c, NC_NCOLS, x, w, ui->ntab.sort,
	    ui->ntab.rev, ui->utf8);
	if (ui->nnrows == 0) {
		widget_put(r->y + 2, r->x, r->w, ui->attr[TR_LABEL],
		    ui->filter != NULL ? "no node matches the filter" :
		    "no nodes");
		return;
	}

	for (y = 0; y < r->h - 2; y++) {
		k = ui->ntab.top + y;
		if (k >= (int)ui->nnrows)
			break;
		row = &ui->nrows[k];
		sel = k == ui->ntab.sel;
		base = sel ? ui->attr[TR_TABLE_SELECTED] : row->node < 0 ?
		    ui->attr[TR_TABLE_GROUP] : row->outlier ?
		    ui->attr[TR_OUTLIER] : ui->attr[TR_TABLE_ROW];
		widget_fill(r->y + 2 + y, r->x, r->w, sel ? base :
		    ui->attr[TR_TABLE_ROW]);
#define NCELL(col, right, text) do {					\
	if (w[col] > 0) {						\
		if (right)						\
			widget_rput(r->y + 2 + y, r->x + x[col], w[col],\
			    base, text);				\
		else							\
			widget_put(r->y + 2 + y, r->x + x[col], w[col],\
			    base, text);				\
	}								\
} while (0)
		NCELL(NC_NAME, 0, row->node >= 0 ?
		    ui->nodes[row->node].name : row->label);
		if (w[NC_STATE] > 0) {
			if (row->node < 0)
				snprintf(buf, sizeof(buf), "%u nodes",
				    row->count);
			else if (nodes_transport_shown(ui, row->node))
				/* The ladder moved it, or it was asked for:
				 * "live/ssh". */
				snprintf(buf, sizeof(buf), "%s/%s",
				    ui_sclass_name(row->sclass),
				    monitor_node_transport(ui->mon,
				    row->node));
			else
				snprintf(buf, sizeof(buf), "%s",
				    ui_sclass_name(row->sclass));
			widget_put(r->y + 2 + y, r->x + x[NC_STATE],
			    w[NC_STATE], sel ? base :
			    ui->attr[row->node < 0 ? TR_TABLE_GROUP :
			    ui_sclass_role(row->sclass)], buf);
		}
		NCELL(NC_CPU, 1, widget_num(a, sizeof(a), row->cpu, 1));
		NCELL(NC_MEMPCT, 1, widget_num(a, sizeof(a), row->mempct, 1));
		snprintf(buf, sizeof(buf), "%s/%s", widget_bytes(a, sizeof(a),
		    row->mem), widget_bytes(b, sizeof(b), row->limit > 0 ?
		    row->limit : NAN));
		NCELL(NC_MEM, 1, buf);
		NCELL(NC_LOAD, 1, widget_num(a, sizeof(a), row->load, 2));
		NCELL(NC_DISK, 1, widget_bytes(a, sizeof(a), row->disk));
		NCELL(NC_NET, 1, widget_bytes(a, sizeof(a), row->net));
		NCELL(NC_GPU, 1, widget_num(a, sizeof(a), row->gpu, 0));
		if (isfinite(row->gmem))
			snprintf(buf, sizeof(buf), "%s/%s", widget_bytes(a,
			    sizeof(a), row->gmem), widget_bytes(b, sizeof(b),
			    row->gmemtot));
		else
			snprintf(buf, sizeof(buf), "-");
		NCELL(NC_GMEM, 1, buf);
		NCELL(NC_GPOW, 1, nodes_unit(a, sizeof(a), row->gpow, "W"));
		NCELL(NC_GTEMP, 1, nodes_unit(a, sizeof(a), row->gtemp, "C"));
		NCELL(NC_GJOB, 1, widget_num(a, sizeof(a), row->gjob, 0));
		NCELL(NC_IB, 1, widget_bytes(a, sizeof(a), row->ib));
		NCELL(NC_FS, 1, widget_bytes(a, sizeof(a), row->fs));
		NCELL(NC_POWER, 1, nodes_unit(a, sizeof(a), row->power, "W"));
		NCELL(NC_NODEW, 1, nodes_unit(a, sizeof(a), row->nodew, "W"));
		NCELL(NC_TEMP, 1, nodes_unit(a, sizeof(a), row->temp, "C"));
#undef NCELL
		if (w[NC_FLAGS] > 0) {
			role = nodes_flags_text(row, buf, sizeof(buf));
			/* A failed or lost node has no flags to show: its
			 * reason goes there (pdsh's "node: reason"). */
			if (buf[0] == '\0' && row->node >= 0 &&
			    (reason = ui_node_reason(ui, row->node)) != NULL) {
				snprintf(buf, sizeof(buf), "%s", reason);
				role = ui_sclass_role(row->sclass);
			}
			widget_put(r->y + 2 + y, r->x + x[NC_FLAGS],
			    w[NC_FLAGS], sel || role < 0 ? base :
			    ui->attr[role], buf);
		}
		if (w[NC_SPARK] > 0) {
			k = w[NC_SPARK] > UI_SPARK_MAX ? UI_SPARK_MAX :
			    w[NC_SPARK];
			nodes_series(ui, row, v, (unsigned)k);
			widget_spark(v, (unsigned)k, 0, 100, ui->utf8, spark,
			    sizeof(spark));
			widget_put_spark(r->y + 2 + y, r->x + x[NC_SPARK],
			    sel ? base : ui->attr[TR_SPARK], spark);
		}
	}
}

/* Sort by a column, with its natural direction. */
static void
nodes_sort_by(struct ui *ui, int col)
{
	ui->ntab.sort = col;
	ui->ntab.rev = nodes_desc[col];
	ui_message(ui, 0, "nodes sorted by %s", nodes_cols[col].title);
}

static int
nodes_key(struct ui *ui, int key)
{
	const struct ui_nrow	*row;
	int			 col, k;

	if (ui_table_key(&ui->ntab, key, (int)ui->nnrows)) {
		if (ui->nnrows > 0) {
			row = &ui->nrows[ui->ntab.sel];
			ui->sel_node = row->node >= 0 ? row->node :
			    ui->members[row->first];
		}
		return 1;
	}
	switch (key) {
	case '\r':
	case '\n':
	case KEY_ENTER:
	case KEY_RIGHT:
		if (ui->nnrows == 0)
			return 1;
		row = &ui->nrows[ui->ntab.sel];
		if (row->node >= 0)
			ui_set_scope(ui, &row->node, 1,
			    ui->nodes[row->node].name);
		else
			ui_set_scope(ui, ui->members + row->first, row->count,
			    row->label);
		ui_push(ui, UV_RANKS);
		return 1;
	case 's':
	case '>':
	case '.':
	case KEY_F(6):
		col = ui->ntab.sort;
		k = 0;
		do
			col = (col + 1) % NC_NCOLS;
		while ((col == NC_SPARK || col == NC_MEM ||
		    !nodes_shown(col)) && ++k < NC_NCOLS);
		if (k < NC_NCOLS)
			nodes_sort_by(ui, col);
		return 1;
	case '<':
	case ',':
		col = ui->ntab.sort;
		k = 0;
		do
			col = (col + NC_NCOLS - 1) % NC_NCOLS;
		while ((col == NC_SPARK || col == NC_MEM ||
		    !nodes_shown(col)) && ++k < NC_NCOLS);
		if (k < NC_NCOLS)
			nodes_sort_by(ui, col);
		return 1;
	case 'I':
		ui->ntab.rev = !ui->ntab.rev;
		return 1;
	case 'P':
		nodes_sort_by(ui, NC_CPU);
		return 1;
	case 'M':
		nodes_sort_by(ui, NC_MEMPCT);
		return 1;
	case 'N':
		nodes_sort_by(ui, NC_NAME);
		return 1;
	case 'F':
		nodes_sort_by(ui, NC_FLAGS);
		return 1;
	}
	return 0;
}

const struct panel panel_nodes = {
	.name = "nodes",
	.keys =
	    "Up Down j k\tmove (PgUp PgDn Home End too)\n"
	    "Enter Right\tthe ranks of the node (or of the folded group)\n"
	    "s > < F6\tsort by the next / previous column\n"
	    "P M N F\tsort by CPU, memory, name (flagged and unreachable "
	    "nodes first), flags\n"
	    "I\tinvert the sort\n",
	.height = nodes_height,
	.prepare = nodes_prepare,
	.draw = nodes_draw,
	.key = nodes_key,
};

/* The setup screen's binding (setup.h): the columns are columns.h's. */
static int
nodes_col_sortable(int i, int *desc)
{
	*desc = i >= 0 && i < NC_NCOLS ? nodes_desc[i] : 0;
	return i >= 0 && i < NC_NCOLS && i != NC_SPARK && i != NC_MEM;
}

static struct ui_table *
nodes_tab(struct ui *ui)
{
	return &ui->ntab;
}

const struct setup_table setup_node_table = {
	.name = "node",
	.columns = COLUMNS_NODES,
	.col_sortable = nodes_col_sortable,
	.tab = nodes_tab,
};
