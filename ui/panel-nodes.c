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

/*
 * The columns: the node's name and state, one column for every
 * catalogue row that has a view (metrics.h: struct metric_col, in its
 * .pos order), then the flags and the CPU sparkline.  Built once from the
 * catalogue: a new node metric is one catalogue row, nothing here.
 */
enum { NC_NAME, NC_STATE, NC_METRIC };
#define NC_MAX		(NC_METRIC + HN_NROWS + 2)

static struct widget_col nodes_cols[NC_MAX];
static int		 nodes_desc[NC_MAX];	/* sorts descending first */
static int		 nodes_row[NC_MAX];	/* catalogue row, -1 */
static const char	*nodes_keys[NC_MAX], *nodes_titles[NC_MAX];
static const char	*nodes_aliases[NC_MAX];
static int		 nodes_ncols, NC_FLAGS, NC_SPARK;
static struct columns_def nodes_columns_def;

/* A fixed column. */
static void
nodes_fixed(int c, const char *key, const char *title, int width, int flex,
    int prio, int desc)
{
	nodes_cols[c] = (struct widget_col){ .title = title, .width = width,
	    .flex = flex, .prio = prio };
	nodes_keys[c] = key;
	nodes_titles[c] = title;
	nodes_desc[c] = desc;
	nodes_row[c] = -1;
}

static void
nodes_build(void)
{
	const struct metric_col	*mc;
	int			 order[HN_NROWS], n = 0, i, j, t, c;

	if (nodes_ncols > 0)
		return;
	for (i = 0; i < HN_NROWS; i++) {
		if (metric_cat[i].col.title == NULL)
			continue;
		/* Insertion by position: a handful of rows, once. */
		for (j = n; j > 0 && metric_cat[order[j - 1]].col.pos >
		    metric_cat[i].col.pos; j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	nodes_fixed(NC_NAME, "node", "NODE", 8, 0, 0, 0);
	nodes_fixed(NC_STATE, "state", "STATE", 10, 0, 3, 0);
	for (t = 0; t < n; t++) {
		c = NC_METRIC + t;
		mc = &metric_cat[order[t]].col;
		nodes_cols[c] = (struct widget_col){ .title = mc->title,
		    .width = mc->width, .prio = mc->prio, .right = 1 };
		nodes_keys[c] = metric_cat[order[t]].key;
		nodes_aliases[c] = mc->alias;
		nodes_titles[c] = mc->title;
		nodes_desc[c] = !mc->asc;
		nodes_row[c] = order[t];
	}
	NC_FLAGS = NC_METRIC + n;
	NC_SPARK = NC_FLAGS + 1;
	nodes_fixed(NC_FLAGS, "flags", "FLAGS", 8, 22, 1, 1);
	nodes_fixed(NC_SPARK, "history", "CPU HISTORY", 10, 120, 0, 0);
	nodes_ncols = NC_SPARK + 1;
	nodes_columns_def = (struct columns_def){ .setting = "node_columns",
	    .ncols = (unsigned)nodes_ncols, .keys = nodes_keys,
	    .titles = nodes_titles, .aliases = nodes_aliases };
}

/* The columns as the user chooses them (columns.h). */
const struct columns_def *
panel_nodes_columns(void)
{
	nodes_build();
	return &nodes_columns_def;
}

/* The column of a catalogue row, or -1. */
static int
nodes_col(int row)
{
	int	c;

	for (c = NC_METRIC; c < NC_FLAGS; c++)
		if (nodes_row[c] == row)
			return c;
	return -1;
}

/* Columns of optional sources: shown when a row has a value (prepare
 * sets it, draw and the sort keys read it). */
static int	nodes_have[NC_MAX];

/* Is a column shown (when the terminal is wide enough)? */
static int
nodes_shown(int col)
{
	return columns_shown(COLUMNS_NODES, (unsigned)col) &&
	    (nodes_row[col] < 0 || !metric_cat[nodes_row[col]].col.optional ||
	    nodes_have[col]);
}

/* Can the table sort by a column? */
static int
nodes_sortable(int col)
{
	return col != NC_SPARK && (nodes_row[col] < 0 ||
	    !metric_cat[nodes_row[col]].col.nosort);
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
	if (nodes_row[col] >= 0)
		return r->v[nodes_row[col]];
	if (col == NC_STATE)
		return r->sclass;
	if (col == NC_FLAGS)
		return __builtin_popcount(r->flags) * 1000.0 + r->nrflagged;
	return r->node;
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

/* Fill a row from one node's latest history and flags. */
static void
nodes_fill(const struct ui *ui, struct ui_nrow *r, int i)
{
	int	k;

	memset(r, 0, sizeof(*r));
	r->node = i;
	r->sclass = ui_sclass(ui, i);
	for (k = 0; k < HN_NROWS; k++)
		/* A lost or failed node's last values are stale, not
		 * live: shown as "-" (D8); its sparkline keeps its past. */
		r->v[k] = r->sclass == US_LOST || r->sclass == US_FAILED ?
		    NAN : history_node_get(ui->hist, i,
		    (enum hist_node_metric)k, 0);
	r->limit = history_node_mem_limit(ui->hist, i);
	r->flags = detect_node_flags(ui->det, i);
	r->gidle = monitor_gpu_idle(ui->mon, i);
	r->nranks = history_nranks(ui->hist, i);
	detect_node_ranks(ui->det, i, &r->rflags, &r->nrflagged);
	r->outlier = r->flags != 0 || r->rflags != 0 || r->gidle != 0 ||
	    r->sclass != US_LIVE || (isfinite(r->v[HN_MEMPCT]) &&
	    r->v[HN_MEMPCT] > NODES_MEM_HIGH);
	if (!r->outlier && isfinite(r->v[HN_CPU]) &&
	    isfinite(detect_node_median(ui->det)) &&
	    fabs(r->v[HN_CPU] - detect_node_median(ui->det)) > NODES_FAR_CPU)
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

/* The look-alike band of a node: -1 for no CPU value. */
static int
nodes_band(const struct ui_nrow *r, int coarse)
{
	int	cb, mb;
	/* Compared as doubles first: a node's value may be far outside
	 * any int. */
	double	cpu = r->v[HN_CPU], mem = r->v[HN_MEMPCT];

	cb = !isfinite(cpu) ? -1 : cpu >= 4 * NODES_CPU_BAND ? 4 :
	    cpu < 0 ? 0 : (int)(cpu / NODES_CPU_BAND);
	if (coarse)
		return cb + 1;
	mb = !isfinite(mem) ? -1 : mem >= 3 * NODES_MEM_BAND ?
	    3 : mem < 0 ? 0 : (int)(mem / NODES_MEM_BAND);
	return (cb + 1) * 5 + mb + 1;
}

#define NODES_NBANDS	30

/*
 * A group's value of each catalogue row from its members' (m of them):
 * by the row's aggregation across nodes (sum, mean or max of those that
 * have one); the total of a "used of total" column (MV_OF: GPU memory)
 * only over the members that have the used part, as the memory limit;
 * the memory percent then of those sums, not a mean of percents.
 */
static void
nodes_fold_values(struct ui_nrow *g, const struct ui_nrow *const *m,
    unsigned n)
{
	unsigned		 cnt, j;
	int			 k, u, max;
	double			 x;

	for (k = 0; k < HN_NROWS; k++) {
		max = strcmp(metric_cat[k].agg, "max") == 0;
		/* The row whose total this row is, if any. */
		u = metrics_total_of(k);
		g->v[k] = NAN;
		cnt = 0;
		for (j = 0; j < n; j++) {
			x = m[j]->v[k];
			if (!isfinite(x) || (u >= 0 && !isfinite(m[j]->v[u])))
				continue;
			if (max)
				g->v[k] = cnt == 0 || x > g->v[k] ? x :
				    g->v[k];
			else
				g->v[k] = cnt == 0 ? x : g->v[k] + x;
			cnt++;
		}
		if (cnt > 0 && strcmp(metric_cat[k].agg, "mean") == 0)
			g->v[k] /= cnt;
	}
	for (j = 0; j < n; j++) {
		if (isfinite(m[j]->v[HN_MEM]))
			g->limit += m[j]->limit;
		g->nranks += m[j]->nranks;
	}
	g->v[HN_MEMPCT] = g->limit > 0 ? g->v[HN_MEM] * 100.0 / g->limit :
	    NAN;
}

/*
 * Fold the n plain rows into groups by band, appended to the table: each
 * group becomes one row (its members in ui->members); groups of one stay
 * plain.  Returns the rows there are after folding.
 */
static unsigned
nodes_fold(struct ui *ui, const struct ui_nrow *plain, unsigned n, int coarse)
{
	struct ui_nrow		 *g;
	const struct ui_nrow	**mem;
	struct hostlist		 *hl;
	unsigned		  count[NODES_NBANDS];
	unsigned		  start[NODES_NBANDS], fill[NODES_NBANDS], k, b;
	unsigned		  m, nm;
	char			 *label, err[64];

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
	mem = xreallocarray(NULL, n, sizeof(*mem));
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
		hl = hostlist_new();
		for (k = 0, nm = 0; k < n; k++) {
			if ((unsigned)nodes_band(&plain[k], coarse) != b)
				continue;
			if (hl != NULL)
				hostlist_push_name(hl,
				    ui->nodes[plain[k].node].name, err,
				    sizeof(err));
			mem[nm++] = &plain[k];
		}
		nodes_fold_values(g, mem, nm);
		label = NULL;
		if (hl == NULL || hostlist_fold(hl, &label) != HL_OK)
			label = xasprintf("%u nodes", count[b]);
		g->label = label;
		hostlist_free(hl);
	}
	free(mem);
	return ui->nnrows;
}

static void
nodes_prepare(struct ui *ui, const struct ui_rect *r)
{
	struct ui_nrow	*plain;
	unsigned	 k, nvis = 0, nplain = 0, base;
	int		 i, avail = r->h - 2, want;

	nodes_build();
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
		for (k = NC_METRIC; k < (unsigned)NC_FLAGS; k++)
			if (isfinite(ui->nall[nvis].v[nodes_row[k]]))
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

/* A metric cell's text (struct metric_col's formats); "-" for none. */
static const char *
nodes_cell(char *buf, size_t size, const struct ui_nrow *r, int k)
{
	const struct metric_def	*d = &metric_cat[k];
	char			 a[32], b[32];
	double			 x = r->v[k];

	switch (d->col.fmt) {
	case MV_BYTES:
		return widget_bytes(buf, size, x);
	case MV_WHOLE:
		if (!isfinite(x))
			return widget_num(buf, size, x, 0);
		snprintf(buf, size, "%.0f%s", x, d->unit);
		return buf;
	case MV_OF:
		/* Of a row: "-" without the used part; of the memory
		 * limit: both parts, each "-" when unknown. */
		if (d->col.of >= 0 && !isfinite(x))
			return widget_num(buf, size, x, 0);
		snprintf(buf, size, "%s/%s", widget_bytes(a, sizeof(a), x),
		    widget_bytes(b, sizeof(b), d->col.of >= 0 ?
		    r->v[d->col.of] : r->limit > 0 ? r->limit : NAN));
		return buf;
	default:
		return widget_num(buf, size, x, d->col.prec);
	}
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

/* A row's attribute: a folded group, an outlier, a plain row. */
static attr_t
nodes_row_attr(const struct ui *ui, const void *ctx, int k)
{
	const struct ui_nrow	*row = &ui->nrows[k];

	return ui->attr[row->node < 0 ? TR_TABLE_GROUP : row->outlier ?
	    TR_OUTLIER : TR_TABLE_ROW];
}

/* One cell of the node table (struct table). */
static void
nodes_table_cell(const struct ui *ui, const void *ctx, int k, int col,
    struct table_cell *c, char *buf, size_t size)
{
	const struct ui_nrow	*row = &ui->nrows[k];
	const char		*reason;

	if (nodes_row[col] >= 0) {
		c->text = nodes_cell(buf, size, row, nodes_row[col]);
		return;
	}
	if (col == NC_NAME) {
		c->text = row->node >= 0 ? ui->nodes[row->node].name :
		    row->label;
	} else if (col == NC_STATE) {
		if (row->node < 0)
			snprintf(buf, size, "%u nodes", row->count);
		else if (nodes_transport_shown(ui, row->node))
			/* The ladder moved it, or it was asked for:
			 * "live/ssh". */
			snprintf(buf, size, "%s/%s",
			    ui_sclass_name(row->sclass),
			    monitor_node_transport(ui->mon, row->node));
		else
			snprintf(buf, size, "%s", ui_sclass_name(row->sclass));
		c->text = buf;
		c->role = row->node < 0 ? TR_TABLE_GROUP :
		    ui_sclass_role(row->sclass);
	} else if (col == NC_FLAGS) {
		c->role = nodes_flags_text(row, buf, size);
		/* A failed or lost node has no flags to show: its reason
		 * goes there (pdsh's "node: reason"). */
		if (buf[0] == '\0' && row->node >= 0 &&
		    (reason = ui_node_reason(ui, row->node)) != NULL) {
			snprintf(buf, size, "%s", reason);
			c->role = ui_sclass_role(row->sclass);
		}
		c->text = buf;
	} else if (col == NC_SPARK) {
		c->how = TC_SPARK;
		c->role = TR_SPARK;
		nodes_series(ui, row, c->v, c->n);
	}
}

static void
nodes_draw(const struct ui *ui, const struct ui_rect *r)
{
	struct widget_col	 c[NC_MAX];
	const struct ui_nrow	*row;
	struct table		 t;
	char			 buf[256];
	int			 i, k, namew = 8;
	unsigned		 live = 0;

	nodes_build();
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
	for (k = 0; k < nodes_ncols; k++)
		if (!nodes_shown(k))
			c[k].width = 0;

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
	t = (struct table){ .cols = c, .ncols = nodes_ncols,
	    .ut = &ui->ntab, .nrows = (int)ui->nnrows,
	    .empty = ui->filter != NULL ? "no node matches the filter" :
	    "no nodes", .empty_role = TR_LABEL,
	    .row_attr = nodes_row_attr, .cell = nodes_table_cell };
	table_draw(ui, r->y + 1, r->x, r->h - 1, r->w, &t);
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
			col = (col + 1) % nodes_ncols;
		while ((!nodes_sortable(col) || !nodes_shown(col)) &&
		    ++k < nodes_ncols);
		if (k < nodes_ncols)
			nodes_sort_by(ui, col);
		return 1;
	case '<':
	case ',':
		col = ui->ntab.sort;
		k = 0;
		do
			col = (col + nodes_ncols - 1) % nodes_ncols;
		while ((!nodes_sortable(col) || !nodes_shown(col)) &&
		    ++k < nodes_ncols);
		if (k < nodes_ncols)
			nodes_sort_by(ui, col);
		return 1;
	case 'I':
		ui->ntab.rev = !ui->ntab.rev;
		return 1;
	case 'P':
		nodes_sort_by(ui, nodes_col(HN_CPU));
		return 1;
	case 'M':
		nodes_sort_by(ui, nodes_col(HN_MEMPCT));
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
	nodes_build();
	*desc = i >= 0 && i < nodes_ncols ? nodes_desc[i] : 0;
	return i >= 0 && i < nodes_ncols && nodes_sortable(i);
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
