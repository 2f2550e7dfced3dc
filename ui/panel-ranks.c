/* SPDX-License-Identifier: ISC */
/*
 * panel-ranks: the rank table, every rank of the job or of the nodes the
 * user drilled into: rank, node, pid, state, %CPU, IPC (when a node sends
 * perf counters), COMM% (the share of its CPU time in its communication
 * library, MPI or a collective library, named beside it: "72 gloo",
 * when a node samples it), RSS, I/O rates, what the rank waits for (its delay
 * accounting: "io 40%" block I/O, "cpu 12%" run queue, the larger), flags,
 * wait channel, system call, a CPU sparkline, a COMM% sparkline, the
 * user and the command (its full command line when the node sends it,
 * else its name), and the peaks the probe keeps between samples (PEAK%:
 * the most CPU over a quarter second, PEAKRSS: the most memory), which
 * the user may hide or show with the other columns (columns.h).  Flagged
 * ranks are highlighted; the launchers' helpers
 * (hydra_pmi_proxy, orted, mpirun, srun: the probe's rank.helper) are
 * dimmed, "help" in the RANK column.  Enter opens one rank's detail.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "detect-gpu.h"
#include "setup.h"
#include "ui-priv.h"
#include "xmalloc.h"

enum {
	RC_RANK, RC_NODE, RC_PID, RC_STATE, RC_CPU, RC_PKCPU, RC_IPC, RC_MPI,
	RC_RSS, RC_PKRSS, RC_READ, RC_WRITE, RC_WAIT, RC_FLAGS, RC_WCHAN,
	RC_SYSCALL, RC_SPARK, RC_MPISPARK, RC_USER, RC_GPU, RC_COMM, RC_NCOLS
};

/* Every table below is indexed by column, by name: a merge that moves
 * one column cannot shift another's values (it once sorted FLAGS the
 * wrong way). */
static const struct widget_col ranks_cols[RC_NCOLS] = {
	[RC_RANK] = { .title = "RANK", .width = 5, .right = 1 },
	[RC_NODE] = { .title = "NODE", .width = 6, .prio = 1 },
	[RC_PID] = { .title = "PID", .width = 7, .right = 1 },
	[RC_STATE] = { .title = "S", .width = 1 },
	[RC_CPU] = { .title = "%CPU", .width = 6, .right = 1 },
	[RC_PKCPU] = { .title = "PEAK%", .width = 6, .right = 1, .prio = 3 },
	[RC_IPC] = { .title = "IPC", .width = 4, .right = 1, .prio = 2 },
	[RC_MPI] = { .title = "COMM%", .width = 10, .right = 1, .prio = 2 },
	[RC_RSS] = { .title = "RSS", .width = 6, .right = 1, .prio = 1 },
	[RC_PKRSS] = { .title = "PEAKRSS", .width = 7, .right = 1, .prio = 3 },
	[RC_READ] = { .title = "READ/s", .width = 7, .right = 1, .prio = 2 },
	[RC_WRITE] = { .title = "WRITE/s", .width = 7, .right = 1, .prio = 2 },
	[RC_WAIT] = { .title = "WAIT", .width = 8, .right = 1, .prio = 2 },
	[RC_FLAGS] = { .title = "FLAGS", .width = 8, .flex = 20 },
	[RC_WCHAN] = { .title = "WCHAN", .width = 14, .flex = 24, .prio = 1 },
	[RC_SYSCALL] = { .title = "SYSCALL", .width = 12, .prio = 3 },
	[RC_SPARK] = { .title = "CPU HISTORY", .width = 10, .flex = 20,
	    .prio = 2 },
	[RC_MPISPARK] = { .title = "COMM HISTORY", .width = 12, .flex = 20,
	    .prio = 3 },
	[RC_USER] = { .title = "USER", .width = 8, .prio = 3 },
	[RC_GPU] = { .title = "GPU", .width = 12, .flex = 24, .prio = 1 },
	[RC_COMM] = { .title = "COMMAND", .width = 15, .flex = 200,
	    .prio = 1 },
};

/* Sorting descends by default on these columns. */
static const int ranks_desc[RC_NCOLS] = {
	[RC_CPU] = 1, [RC_PKCPU] = 1, [RC_IPC] = 1, [RC_MPI] = 1,
	[RC_RSS] = 1, [RC_PKRSS] = 1, [RC_READ] = 1, [RC_WRITE] = 1,
	[RC_WAIT] = 1, [RC_FLAGS] = 1,
};

/* The columns as the user chooses them (columns.h): keys by column. */
static const char *const ranks_keys[RC_NCOLS] = {
	[RC_RANK] = "rank", [RC_NODE] = "node", [RC_PID] = "pid",
	[RC_STATE] = "state", [RC_CPU] = "cpu", [RC_PKCPU] = "peak_cpu",
	[RC_IPC] = "ipc", [RC_MPI] = "mpi", [RC_RSS] = "rss",
	[RC_PKRSS] = "peak_rss", [RC_READ] = "read", [RC_WRITE] = "write",
	[RC_WAIT] = "wait", [RC_FLAGS] = "flags", [RC_WCHAN] = "wchan",
	[RC_SYSCALL] = "syscall", [RC_SPARK] = "history",
	[RC_MPISPARK] = "mpi_history", [RC_USER] = "user",
	[RC_GPU] = "gpu", [RC_COMM] = "command",
};
static const char *const ranks_titles[RC_NCOLS] = {
	[RC_GPU] = "GPU",
	[RC_RANK] = "RANK", [RC_NODE] = "NODE", [RC_PID] = "PID",
	[RC_STATE] = "S", [RC_CPU] = "%CPU", [RC_PKCPU] = "PEAK%",
	[RC_IPC] = "IPC", [RC_MPI] = "COMM%", [RC_RSS] = "RSS",
	[RC_PKRSS] = "PEAKRSS", [RC_READ] = "READ/s", [RC_WRITE] = "WRITE/s",
	[RC_WAIT] = "WAIT", [RC_FLAGS] = "FLAGS", [RC_WCHAN] = "WCHAN",
	[RC_SYSCALL] = "SYSCALL", [RC_SPARK] = "CPU HISTORY",
	[RC_MPISPARK] = "COMM HISTORY", [RC_USER] = "USER",
	[RC_COMM] = "COMMAND",
};
const struct columns_def panel_ranks_columns = {
	.setting = "rank_columns",
	.ncols = RC_NCOLS,
	.keys = ranks_keys,
	.titles = ranks_titles,
};

/* The SM % a rank's process has on its GPUs together, NaN none. */
static double
ranks_gpu_util(const struct node_model *m, int64_t pid)
{
	struct rank_gpu	rg[8];
	unsigned	n, k;
	double		sum = NAN;

	n = m != NULL ? rank_gpus(m, pid, rg, 8) : 0;
	for (k = 0; k < n; k++)
		if (isfinite(rg[k].util))
			sum = isfinite(sum) ? sum + rg[k].util : rg[k].util;
	return n > 0 && !isfinite(sum) ? 0 : sum;
}

/* Does a node in scope list a GPU process (the GPU column shows)? */
static int
ranks_have_gpu(const struct ui *ui)
{
	const struct node_model	*m;
	int			 i, g;

	for (i = 0; i < ui->nnodes; i++) {
		if (!ui_in_scope(ui, i) || (m = ui_model(ui, i)) == NULL ||
		    m->schema == NULL)
			continue;
		if ((g = model_group_index(m, "gpuproc")) >= 0 &&
		    m->gfirst[g] != NULL)
			return 1;
	}
	return 0;
}

/* Columns whose values come from the model instance (strings, peaks):
 * sorting by them walks the instances, not the history's rows. */
static int
ranks_model_col(int col)
{
	return col == RC_WCHAN || col == RC_COMM || col == RC_WAIT ||
	    col == RC_PKCPU || col == RC_PKRSS || col == RC_USER ||
	    col == RC_GPU;
}

/* Does any row have an IPC (prepare sets it)?  Without perf counters the
 * column is not shown. */
static int	ranks_have_ipc;
/* The same for COMM% (a node's mpi source) and its sparkline; the keys
 * stay "mpi" and "mpi_history" (saved column choices). */
static int	ranks_have_mpi;

static int
ranks_height(const struct ui *ui, int avail)
{
	return -1;
}

/* COMM%'s cell: the share and the library's family ("72 gloo"). */
static const char *
ranks_comm(char *buf, size_t len, const struct node_model *m,
    const struct ui_rrow *row)
{
	const char	*fam = model_comm_family(m, (long long)row->pid);
	char		 a[32];

	snprintf(buf, len, "%s%s%.6s", widget_num(a, sizeof(a), row->mpi, 0),
	    fam != NULL ? " " : "", fam != NULL ? fam : "");
	return buf;
}

static int	ranks_sort_col, ranks_sort_rev;
static const struct ui *ranks_sort_ui;

/* A string field of a rank by name, or "". */
static const char *
ranks_str(const struct node_model *m, const struct minst *mi, const char *f)
{
	const char	*s;
	int		 k;

	if (m == NULL || mi == NULL ||
	    (k = model_field_index(m, mi->group, f)) < 0 ||
	    (s = model_str(mi, (unsigned)k)) == NULL)
		return "";
	return s;
}

/* What the COMMAND column shows: the command line without the program's
 * directory ("python3 train.py --lr 3", as htop without its program
 * path: the column is narrow), else the name.  The detail shows it whole
 * and the filter sees it whole. */
static int	ranks_cmd_mode;	/* ui->cmd_mode, set before a sort or draw */

static const char *
ranks_command(const struct node_model *m, const struct minst *mi)
{
	const char	*s = ranks_str(m, mi, "cmdline"), *e, *p;

	/* top's c: the program's name alone, or the whole line. */
	if (*s == '\0' || ranks_cmd_mode == 2)
		return ranks_str(m, mi, "comm");
	if (ranks_cmd_mode == 1)
		return s;
	e = s + strcspn(s, " ");
	for (p = s; p < e; p++)
		if (*p == '/' && p + 1 < e)
			s = p + 1;
	return s;
}

/* The USER column: the name of the process's uid, "" unknown. */
static const char *
ranks_user(const struct node_model *m, const struct minst *mi, char *buf,
    size_t size)
{
	int64_t	uid;
	int	k;

	if (m == NULL || mi == NULL ||
	    (k = model_field_index(m, mi->group, "uid")) < 0 ||
	    !model_value(mi, (unsigned)k, &uid))
		return "";
	return columns_user(uid, buf, size);
}

/* A counter of the rank as a rate (a gauge as it is), or NaN. */
static double
ranks_rate(const struct node_model *m, const struct minst *mi, const char *f)
{
	double	v;
	int	k;

	if (m == NULL || mi == NULL ||
	    (k = model_field_index(m, mi->group, f)) < 0 ||
	    !model_metric(m, mi, (unsigned)k, &v))
		return NAN;
	return v;
}

/*
 * What the rank waits for, in percent of the time: block I/O delay
 * (blkio_delay, jiffies: its rate is a percentage already) or run-queue
 * delay (rq_delay, ns: 1e7 ns/s is 1%), the larger; *io says which.  NaN
 * when the node reports neither.
 */
static double
ranks_wait(const struct node_model *m, const struct minst *mi, int *io)
{
	double	b = ranks_rate(m, mi, "blkio_delay");
	double	q = ranks_rate(m, mi, "rq_delay") / 1e7;

	*io = isfinite(b) && (!isfinite(q) || b >= q);
	return *io ? b : q;
}

/* Is the row one of the launcher's helpers? */
static int
ranks_is_helper(const struct ui *ui, const struct ui_rrow *r)
{
	const struct node_model	*m = ui_model(ui, r->node);

	return r->rank < 0 && m != NULL && r->mi != NULL &&
	    detect_is_helper(m, r->mi);
}

static int
ranks_cmp(const void *a, const void *b)
{
	const struct ui_rrow	*x = *(const struct ui_rrow *const *)a;
	const struct ui_rrow	*y = *(const struct ui_rrow *const *)b;
	const struct ui		*ui = ranks_sort_ui;
	double			 kx = 0, ky = 0;
	char			 ux[40], uy[40];
	int			 c = 0, s = 0, io;

	switch (ranks_sort_col) {
	case RC_RANK:
		/* Flagged ranks first in the default order (by rank id). */
		if (!ranks_sort_rev && (x->flags != 0) != (y->flags != 0))
			return x->flags != 0 ? -1 : 1;
		/* Ranks without an id last, whichever the direction. */
		if ((x->rank < 0) != (y->rank < 0))
			return x->rank < 0 ? 1 : -1;
		c = x->rank < y->rank ? -1 : x->rank > y->rank;
		break;
	case RC_NODE:
		c = x->node < y->node ? -1 : x->node > y->node;
		break;
	case RC_PID:
		c = x->pid < y->pid ? -1 : x->pid > y->pid;
		break;
	case RC_STATE:
		c = x->state < y->state ? -1 : x->state > y->state;
		break;
	case RC_CPU:
		kx = x->cpu, ky = y->cpu, s = 1;
		break;
	case RC_IPC:
		kx = x->ipc, ky = y->ipc, s = 1;
		break;
	case RC_MPI:
		kx = x->mpi, ky = y->mpi, s = 1;
		break;
	case RC_RSS:
		kx = x->rss, ky = y->rss, s = 1;
		break;
	case RC_READ:
		kx = x->rd, ky = y->rd, s = 1;
		break;
	case RC_WRITE:
		kx = x->wr, ky = y->wr, s = 1;
		break;
	case RC_FLAGS:
		kx = __builtin_popcount(x->flags);
		ky = __builtin_popcount(y->flags);
		s = 1;
		break;
	case RC_SYSCALL:
		c = x->syscall < y->syscall ? -1 : x->syscall > y->syscall;
		break;
	case RC_WCHAN:
		c = strcmp(ranks_str(ui_model(ui, x->node), x->mi, "wchan"),
		    ranks_str(ui_model(ui, y->node), y->mi, "wchan"));
		break;
	case RC_COMM:
		c = strcmp(ranks_command(ui_model(ui, x->node), x->mi),
		    ranks_command(ui_model(ui, y->node), y->mi));
		break;
	case RC_USER:
		c = strcmp(ranks_user(ui_model(ui, x->node), x->mi, ux,
		    sizeof(ux)), ranks_user(ui_model(ui, y->node), y->mi, uy,
		    sizeof(uy)));
		break;
	case RC_PKCPU:
		kx = ranks_rate(ui_model(ui, x->node), x->mi, "peak_cpu");
		ky = ranks_rate(ui_model(ui, y->node), y->mi, "peak_cpu");
		s = 1;
		break;
	case RC_PKRSS:
		kx = ranks_rate(ui_model(ui, x->node), x->mi, "peak_rss");
		ky = ranks_rate(ui_model(ui, y->node), y->mi, "peak_rss");
		s = 1;
		break;
	case RC_WAIT:
		kx = ranks_wait(ui_model(ui, x->node), x->mi, &io);
		ky = ranks_wait(ui_model(ui, y->node), y->mi, &io);
		s = 1;
		break;
	case RC_GPU:
		kx = ranks_gpu_util(ui_model(ui, x->node), x->pid);
		ky = ranks_gpu_util(ui_model(ui, y->node), y->pid);
		s = 1;
		break;
	default:
		break;
	}
	if (s) {
		if (isnan(kx) != isnan(ky))
			return isnan(kx) ? 1 : -1;
		if (!isnan(kx) && kx != ky)
			c = kx < ky ? -1 : 1;
	}
	if (ranks_sort_rev)
		c = -c;
	if (c != 0)
		return c;
	/* Then by rank id (ranks without one last), node and pid. */
	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * Sorting 32768 rows at every sample through qsort and ranks_cmp (an
 * indirect call and a walk to a 100-byte row per comparison) took most of
 * a frame.  For every column but the two text ones, each row gets a
 * compact key instead, built once, whose plain integer order is the order
 * ranks_cmp defines (missing values last whatever the direction, then
 * rank id, node and pid), and the keys are merge-sorted in place.
 */
struct ranks_key {
	uint64_t	k1;		/* the column, direction applied */
	uint64_t	k2;		/* rank id (missing last), node */
	int64_t		pid;
	uint32_t	idx;		/* the row */
	uint8_t		last;		/* no value: after every value */
};

/* A double as an unsigned integer of the same order. */
static uint64_t
ranks_key_double(double d)
{
	uint64_t	b;

	d += 0.0;			/* -0 sorts as 0 */
	memcpy(&b, &d, sizeof(b));
	return (b >> 63) ? ~b : b | (1ULL << 63);
}

/* The key of row r for column col; 0 when col has no integer key. */
static int
ranks_key_make(const struct ui_rrow *r, int col, int rev,
    struct ranks_key *k)
{
	double	d = 0;
	int	num = 0;

	k->last = 0;
	k->k1 = 0;
	switch (col) {
	case RC_RANK:
		k->last = r->rank < 0;
		k->k1 = (uint64_t)r->rank ^ (1ULL << 63);
		break;
	case RC_NODE:
		k->k1 = (uint64_t)(int64_t)r->node ^ (1ULL << 63);
		break;
	case RC_PID:
		k->k1 = (uint64_t)r->pid ^ (1ULL << 63);
		break;
	case RC_STATE:
		k->k1 = (unsigned char)r->state;
		break;
	case RC_SYSCALL:
		k->k1 = (uint64_t)r->syscall ^ (1ULL << 63);
		break;
	case RC_CPU:
		d = r->cpu, num = 1;
		break;
	case RC_IPC:
		d = r->ipc, num = 1;
		break;
	case RC_MPI:
		d = r->mpi, num = 1;
		break;
	case RC_RSS:
		d = r->rss, num = 1;
		break;
	case RC_READ:
		d = r->rd, num = 1;
		break;
	case RC_WRITE:
		d = r->wr, num = 1;
		break;
	case RC_FLAGS:
		d = __builtin_popcount(r->flags), num = 1;
		break;
	default:
		if (ranks_model_col(col))
			return 0;
		break;
	}
	if (num) {
		k->last = isnan(d);
		k->k1 = k->last ? 0 : ranks_key_double(d);
	}
	if (rev)
		k->k1 = ~k->k1;
	/* Flagged ranks first in the default order (by rank id), in rank
	 * order among themselves (k2). */
	if (col == RC_RANK && !rev && r->flags != 0)
		k->last = 0, k->k1 = 0;
	k->k2 = ((uint64_t)(r->rank < 0) << 63) |
	    (((uint64_t)(r->rank < 0 ? 0 : r->rank) & ((1ULL << 39) - 1)) <<
	    24) | ((uint64_t)r->node & 0xffffff);
	k->pid = r->pid;
	return 1;
}

static inline int
ranks_key_le(const struct ranks_key *a, const struct ranks_key *b)
{
	if (a->last != b->last)
		return a->last < b->last;
	if (a->k1 != b->k1)
		return a->k1 < b->k1;
	if (a->k2 != b->k2)
		return a->k2 < b->k2;
	return a->pid <= b->pid;
}

/* Sort n keys: insertion sort of short runs, then bottom-up merges. */
static void
ranks_key_sort(struct ranks_key *a, struct ranks_key *tmp, size_t n)
{
	struct ranks_key	*src = a, *dst = tmp, *t, x;
	size_t			 i, j, l, m, r, p, q, o, w, run = 16;

	/* Rows collected node by node are often in order already (ranks
	 * placed in blocks, sorted by rank): one pass tells. */
	for (i = 1; i < n && ranks_key_le(&a[i - 1], &a[i]); i++)
		;
	if (i >= n)
		return;
	for (l = 0; l < n; l += run) {
		r = l + run < n ? l + run : n;
		for (i = l + 1; i < r; i++) {
			x = a[i];
			for (j = i; j > l && !ranks_key_le(&a[j - 1], &x); j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
	}
	for (w = run; w < n; w *= 2) {
		for (l = 0; l < n; l += 2 * w) {
			m = l + w < n ? l + w : n;
			r = l + 2 * w < n ? l + 2 * w : n;
			p = l, q = m, o = l;
			while (p < m && q < r)
				dst[o++] = ranks_key_le(&src[p], &src[q]) ?
				    src[p++] : src[q++];
			while (p < m)
				dst[o++] = src[p++];
			while (q < r)
				dst[o++] = src[q++];
		}
		t = src, src = dst, dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Put the rows in the table's order. */
static void
ranks_sort(struct ui *ui)
{
	struct ui_rrow		**order, *sorted;
	struct ranks_key	 *keys, *tmp;
	size_t			  n = ui->nrrows, k;
	int			  fast = 1;

	sorted = xreallocarray(NULL, ui->caprrows > 0 ? ui->caprrows : 1,
	    sizeof(*sorted));
	keys = xreallocarray(NULL, n > 0 ? 2 * n : 1, sizeof(*keys));
	for (k = 0; k < n && fast; k++) {
		fast = ranks_key_make(&ui->rrows[k], ui->rtab.sort,
		    ui->rtab.rev, &keys[k]);
		keys[k].idx = (uint32_t)k;
	}
	if (fast) {
		tmp = keys + n;
		ranks_key_sort(keys, tmp, n);
		for (k = 0; k < n; k++)
			sorted[k] = ui->rrows[keys[k].idx];
	} else {
		/* The text columns: compare the strings themselves. */
		ranks_sort_col = ui->rtab.sort;
		ranks_sort_rev = ui->rtab.rev;
		ranks_sort_ui = ui;
		order = xreallocarray(NULL, n > 0 ? n : 1, sizeof(*order));
		for (k = 0; k < n; k++)
			order[k] = &ui->rrows[k];
		qsort(order, n, sizeof(*order), ranks_cmp);
		for (k = 0; k < n; k++)
			sorted[k] = *order[k];
		free(order);
	}
	free(keys);
	free(ui->rrows);
	ui->rrows = sorted;
}

static struct ui_rrow *
ranks_add_row(struct ui *ui)
{
	if (ui->nrrows == ui->caprrows) {
		ui->caprrows = ui->caprrows ? ui->caprrows * 2 : 256;
		ui->rrows = xreallocarray(ui->rrows, ui->caprrows,
		    sizeof(*ui->rrows));
	}
	return &ui->rrows[ui->nrrows++];
}

/*
 * Add every rank of node i from the history alone: its ranks hold the
 * identity and the newest values on one cache line each, where the model
 * needs an instance walk, a pid lookup and several cache lines per rank.
 * The model instance (comm, wchan) is found later for the shown rows only
 * (ranks_resolve).  For rows that need no string to be kept or sorted.
 */
static void
ranks_collect_history(struct ui *ui, int i)
{
	struct hist_rank *const	*hrs;
	const struct hist_rank	*hr;
	struct ui_rrow		*r;
	unsigned		 k, n;

	hrs = history_node_ranks(ui->hist, i, &n);
	for (k = 0; k < n; k++) {
		hr = hrs[k];
		r = ranks_add_row(ui);
		r->node = i;
		r->mi = NULL;
		r->hr = hr;
		r->pid = hr->pid;
		r->start = hr->start;
		r->rank = hr->rank;
		r->syscall = hr->syscall;
		r->state = hr->state;
		r->flags = hr->flags;
		if (hr->len > 0) {
			r->cpu = hr->cur[HR_CPU];
			r->ipc = hr->cur[HR_IPC];
			r->mpi = hr->cur[HR_MPI];
			r->rss = hr->cur[HR_RSS];
			r->rd = hr->cur[HR_READ];
			r->wr = hr->cur[HR_WRITE];
			if (isfinite(r->ipc))
				ranks_have_ipc = 1;
			if (isfinite(r->mpi))
				ranks_have_mpi = 1;
		} else
			r->cpu = r->ipc = r->mpi = r->rss = r->rd = r->wr =
			    NAN;
	}
}

/* A lost or failed node's ranks: their last values are stale, shown
 * "-" as the node's are (D8). */
static void
ranks_stale(struct ui *ui)
{
	struct ui_rrow	*r;
	unsigned	 k;
	int		 c;

	for (k = 0; k < ui->nrrows; k++) {
		r = &ui->rrows[k];
		c = ui_sclass(ui, r->node);
		if (c == US_LOST || c == US_FAILED)
			r->cpu = r->ipc = r->mpi = r->rss = r->rd = r->wr =
			    NAN;
	}
}

/* Add every rank of node i that passes the filter. */
static void
ranks_collect(struct ui *ui, int i)
{
	const struct node_model	*m = ui_model(ui, i);
	const struct minst	*mi;
	struct ui_rrow		*r;
	const char		*s;
	int			 g, fstate, fsys, fpid, fstart, frank;
	int			 name_ok, ff[2];

	if (m == NULL || (g = model_group_index(m, "rank")) < 0)
		return;
	/* Field indexes once per node, not per rank. */
	filter_rank_fields(m, (unsigned)g, ff);
	fstate = model_field_index(m, (unsigned)g, "state");
	fsys = model_field_index(m, (unsigned)g, "syscall");
	fpid = model_field_index(m, (unsigned)g, "pid");
	fstart = model_field_index(m, (unsigned)g, "start_time");
	frank = model_field_index(m, (unsigned)g, "rank");
	if (fpid < 0)
		return;
	name_ok = filter_match(ui->filter, ui->nodes[i].name);
	if (name_ok && !ranks_model_col(ui->rtab.sort)) {
		ranks_collect_history(ui, i);
		return;
	}
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		/* The filter sees the name and the whole command line. */
		if (!name_ok && !filter_match_rank(ui->filter, mi, ff))
			continue;
		r = ranks_add_row(ui);
		memset(r, 0, sizeof(*r));
		r->node = i;
		r->mi = mi;
		r->start = r->rank = -1;
		if (!model_value(mi, (unsigned)fpid, &r->pid)) {
			ui->nrrows--;
			continue;
		}
		if (fstart >= 0)
			model_value(mi, (unsigned)fstart, &r->start);
		if (frank >= 0)
			model_value(mi, (unsigned)frank, &r->rank);
		r->hr = history_rank_find(ui->hist, i, r->pid, r->start);
		r->cpu = r->rss = r->rd = r->wr = r->ipc = r->mpi = NAN;
		if (r->hr != NULL) {
			r->cpu = history_rank_get(r->hr, HR_CPU, 0);
			r->ipc = history_rank_get(r->hr, HR_IPC, 0);
			if (isfinite(r->ipc))
				ranks_have_ipc = 1;
			r->mpi = history_rank_get(r->hr, HR_MPI, 0);
			if (isfinite(r->mpi))
				ranks_have_mpi = 1;
			r->rss = history_rank_get(r->hr, HR_RSS, 0);
			r->rd = history_rank_get(r->hr, HR_READ, 0);
			r->wr = history_rank_get(r->hr, HR_WRITE, 0);
			r->flags = r->hr->flags;
		}
		r->state = '?';
		if (r->hr != NULL)	/* the same letter, nearer at hand */
			r->state = r->hr->state;
		else if (fstate >= 0 && (s = model_str(mi, (unsigned)fstate)) !=
		    NULL && *s != '\0')
			r->state = *s;
		r->syscall = -2;
		if (fsys >= 0)
			model_value(mi, (unsigned)fsys, &r->syscall);
	}
}

/* The model instance of a row's process in its node's current model. */
static void
ranks_resolve(const struct ui *ui, struct ui_rrow *r)
{
	const struct node_model	*m = ui_model(ui, r->node);
	const struct minst	*mi;
	int64_t			 pid, start, rank;
	int			 g;

	r->mi = NULL;
	r->hr = NULL;
	if (m == NULL || (g = model_group_index(m, "rank")) < 0)
		return;
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if (history_rank_ident(m, mi, &pid, &start, &rank) &&
		    pid == r->pid && (start < 0 || r->start < 0 ||
		    start == r->start)) {
			r->mi = mi;
			break;
		}
	}
	r->hr = history_rank_find(ui->hist, r->node, r->pid, r->start);
}

/* Find the model instances of the rows on the screen (all of them, or
 * only those that have none). */
static void
ranks_resolve_shown(const struct ui *ui, const struct ui_rect *rc,
    int missing)
{
	unsigned	k;

	for (k = (unsigned)ui->rtab.top; k < ui->nrrows &&
	    k < (unsigned)(ui->rtab.top + rc->h - 2); k++) {
		if (!missing || ui->rrows[k].mi == NULL)
			ranks_resolve(ui, &ui->rrows[k]);
	}
}

static void
ranks_prepare(struct ui *ui, const struct ui_rect *rc)
{
	unsigned	  k;
	int		  i;

	/* The rows stay valid while no sample came and no key was pressed
	 * (a redraw for the clock, an event): 32768 ranks take a while. */
	if (ui->rrows_valid && ui->rrows_data == ui->data_gen &&
	    ui->rrows_view == ui->view_gen) {
		ui_table_clamp(&ui->rtab, (int)ui->nrrows, rc->h - 2);
		/* Instances may have changed under the rows (a reconnect
		 * replaces the model): find the shown ones again. */
		ranks_resolve_shown(ui, rc, 0);
		return;
	}
	ui->rrows_valid = 1;
	ui->rrows_data = ui->data_gen;
	ui->rrows_view = ui->view_gen;
	ui->nrrows = 0;
	ranks_have_ipc = 0;
	ranks_have_mpi = 0;
	ranks_cmd_mode = ui->cmd_mode;
	if (ui->scope != NULL) {
		for (k = 0; k < ui->nscope; k++)
			ranks_collect(ui, ui->scope[k]);
	} else {
		for (i = 0; i < ui->nnodes; i++)
			ranks_collect(ui, i);
	}
	ranks_stale(ui);
	ranks_sort(ui);
	if (ui->sel_rnode >= 0) {
		for (k = 0; k < ui->nrrows; k++) {
			if (ui->rrows[k].node == ui->sel_rnode &&
			    ui->rrows[k].pid == ui->sel_pid) {
				ui->rtab.sel = (int)k;
				break;
			}
		}
	}
	ui_table_clamp(&ui->rtab, (int)ui->nrrows, rc->h - 2);
	if (ui->nrrows > 0) {
		ui->sel_rnode = ui->rrows[ui->rtab.sel].node;
		ui->sel_pid = ui->rrows[ui->rtab.sel].pid;
	}
	/* Rows taken from the history alone have no instance yet. */
	ranks_resolve_shown(ui, rc, 1);
}

/* The syscall column: "read", "0", "-" (running) or "". */
static const char *
ranks_syscall(const struct node_model *m, int64_t nr, char *buf,
    size_t size)
{
	const char	*name;

	if (nr == -2)
		return "";
	if (nr == -1)
		return "-";
	name = m != NULL && m->have_hello ? ui_syscall_name(m->hello.arch,
	    nr) : NULL;
	if (name != NULL)
		return name;
	snprintf(buf, size, "%lld", (long long)nr);
	return buf;
}

/*
 * Fit the columns to the rows on the screen: a column blank in every one
 * of them (FLAGS, WAIT, READ/s and WRITE/s of a quiet job) shrinks to its
 * title, WCHAN and the sparkline take what their text needs, and COMMAND,
 * the last, takes the rest of the width.
 */
static void
ranks_fit(const struct ui *ui, const struct ui_rect *r,
    struct widget_col *c)
{
	const struct ui_rrow	*row;
	const struct node_model	*m;
	const char		*names[DF_NFLAGS];
	int			 k, j, n, fl = 0, wch = 0, wait = 0, rd = 0;
	int			 wr = 0, len, io;
	double			 wt;

	for (k = ui->rtab.top; k < (int)ui->nrrows && k < ui->rtab.top +
	    r->h - 2; k++) {
		row = &ui->rrows[k];
		m = ui_model(ui, row->node);
		n = detect_flag_names(row->flags, names, DF_NFLAGS);
		for (j = 0, len = n > 0 ? n - 1 : 0; j < n; j++)
			len += (int)strlen(names[j]);
		if (len > fl)
			fl = len;
		len = (int)strlen(ranks_str(m, row->mi, "wchan"));
		if (len > wch)
			wch = len;
		wt = ranks_wait(m, row->mi, &io);
		wait |= isfinite(wt) && wt >= 1;
		rd |= isfinite(row->rd) && row->rd != 0;
		wr |= isfinite(row->wr) && row->wr != 0;
	}
	c[RC_FLAGS].width = fl > 5 ? fl : 5;
	c[RC_FLAGS].flex = 0;
	if (!wait)
		c[RC_WAIT].width = 4;
	if (!rd)
		c[RC_READ].width = 6;
	if (!wr)
		c[RC_WRITE].width = 7;
	c[RC_WCHAN].width = wch > 5 ? (wch > 20 ? 20 : wch) : 5;
	c[RC_WCHAN].flex = 0;
	c[RC_SPARK].width = c[RC_SPARK].flex = 11;
	if (c[RC_MPISPARK].width > 0)
		c[RC_MPISPARK].flex = 11;
	c[RC_COMM].flex = 4096;
}

/* A rank's flag role (the first of stalled, straggler, memory), -1. */
static int
ranks_role(const struct ui_rrow *row)
{
	return (row->flags & DF_STALLED) ? TR_FLAG_STALLED :
	    (row->flags & DF_STRAGGLER) ? TR_FLAG_STRAGGLER :
	    (row->flags & DF_MEMORY) ? TR_FLAG_MEMORY : -1;
}

/* A row's attribute: flagged, a launcher's helper (dimmed), plain. */
static attr_t
ranks_row_attr(const struct ui *ui, const void *ctx, int k)
{
	const struct ui_rrow	*row = &ui->rrows[k];

	return ui->attr[ranks_role(row) >= 0 ? TR_OUTLIER :
	    ranks_is_helper(ui, row) ? TR_LABEL : TR_TABLE_ROW];
}

/* One cell of the rank table (struct table). */
static void
ranks_table_cell(const struct ui *ui, const void *ctx, int k, int col,
    struct table_cell *c, char *buf, size_t size)
{
	const struct ui_rrow	*row = &ui->rrows[k];
	const struct node_model	*m = ui_model(ui, row->node);
	const char		*names[DF_NFLAGS];
	struct rank_gpu		 rg[4];
	size_t			 len;
	double			 wt;
	int			 n, j, io;

	c->text = buf;
	switch (col) {
	case RC_RANK:
		if (row->rank >= 0)
			snprintf(buf, size, "%lld", (long long)row->rank);
		else
			snprintf(buf, size, "%s", ranks_is_helper(ui, row) ?
			    "help" : "-");
		break;
	case RC_NODE:
		c->text = ui->nodes[row->node].name;
		break;
	case RC_PID:
		snprintf(buf, size, "%lld", (long long)row->pid);
		break;
	case RC_STATE:
		snprintf(buf, size, "%c", row->state);
		break;
	case RC_CPU:
		widget_num(buf, size, row->cpu, 1);
		break;
	case RC_IPC:
		c->text = isfinite(row->ipc) ? widget_num(buf, size, row->ipc,
		    2) : "";
		break;
	case RC_MPI:
		c->text = isfinite(row->mpi) ? ranks_comm(buf, size, m, row) :
		    "";
		break;
	case RC_PKCPU:
		widget_num(buf, size, ranks_rate(m, row->mi, "peak_cpu"), 1);
		break;
	case RC_RSS:
		widget_bytes(buf, size, row->rss);
		break;
	case RC_PKRSS:
		widget_bytes(buf, size, ranks_rate(m, row->mi, "peak_rss"));
		break;
	case RC_READ:
		widget_bytes(buf, size, row->rd);
		break;
	case RC_WRITE:
		widget_bytes(buf, size, row->wr);
		break;
	case RC_WAIT:
		wt = ranks_wait(m, row->mi, &io);
		if (isfinite(wt) && wt >= 1)
			snprintf(buf, size, "%s %.0f%%", io ? "io" : "cpu",
			    wt > 100 ? 100 : wt);
		break;
	case RC_GPU:
		/* The GPUs its process uses (detect-gpu.h): "0:37% 1.0G". */
		if (m == NULL)
			c->text = NULL;
		else
			rank_gpus_text(rg, rank_gpus(m, row->pid, rg, 4), buf,
			    size);
		break;
	case RC_WCHAN:
		c->how = TC_CUT;
		c->text = ranks_str(m, row->mi, "wchan");
		break;
	case RC_SYSCALL:
		c->how = TC_CUT;
		c->text = ranks_syscall(m, row->syscall, buf, size);
		break;
	case RC_USER:
		c->how = TC_CUT;
		c->text = ranks_user(m, row->mi, buf, size);
		break;
	case RC_COMM:
		c->how = TC_CUT;
		c->text = ranks_command(m, row->mi);
		break;
	case RC_FLAGS:
		n = detect_flag_names(row->flags, names, DF_NFLAGS);
		for (j = 0, len = 0; j < n && len < size; j++)
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
			    j ? "," : "", names[j]);
		c->role = ranks_role(row);
		c->how = TC_LEFT;
		break;
	case RC_SPARK:
	case RC_MPISPARK:
		c->how = TC_SPARK;
		c->role = TR_SPARK;
		if (row->hr == NULL) {
			c->n = 0;
			break;
		}
		if (c->n > HIST_RANK_DEPTH)
			c->n = HIST_RANK_DEPTH;
		history_rank_series(row->hr, col == RC_SPARK ? HR_CPU : HR_MPI,
		    c->v, c->n);
		break;
	}
}

static void
ranks_draw(const struct ui *ui, const struct ui_rect *r)
{
	struct widget_col	 c[RC_NCOLS];
	struct table		 t;
	char			 buf[256];
	int			 k, namew = 4;

	memcpy(c, ranks_cols, sizeof(c));
	for (k = 0; k < ui->nnodes; k++)
		if (ui_in_scope(ui, k) && (int)strlen(ui->nodes[k].name) > namew)
			namew = (int)strlen(ui->nodes[k].name);
	c[RC_NODE].width = namew > 24 ? 24 : namew;
	if (!ranks_have_ipc)
		c[RC_IPC].width = 0;
	if (!ranks_have_mpi)
		c[RC_MPI].width = c[RC_MPISPARK].width = 0;
	if (!ranks_have_gpu(ui))
		c[RC_GPU].width = 0;
	ranks_fit(ui, r, c);
	for (k = 0; k < RC_NCOLS; k++)
		if (!columns_shown(COLUMNS_RANKS, (unsigned)k))
			c[k].width = 0;

	if (ui->scope != NULL)
		snprintf(buf, sizeof(buf), "Ranks of %s: %u", ui->scope_label,
		    ui->nrrows);
	else
		snprintf(buf, sizeof(buf), "Ranks of the job: %u", ui->nrrows);
	k = widget_put(r->y, r->x, r->w, ui->attr[TR_TITLE], buf);
	if (ui->filter != NULL) {
		snprintf(buf, sizeof(buf), "  filter /%s/",
		    filter_pattern(ui->filter));
		k += widget_put(r->y, r->x + k, r->w - k, ui->attr[TR_LABEL],
		    buf);
	}
	widget_put(r->y, r->x + k, r->w - k, ui->attr[TR_LABEL],
	    "  (Enter: detail, Esc: back)");
	t = (struct table){ .cols = c, .ncols = RC_NCOLS, .ut = &ui->rtab,
	    .nrows = (int)ui->nrrows, .empty_role = TR_LABEL,
	    .empty = ui->filter != NULL ? "no rank matches the filter" :
	    "no ranks reported (yet)",
	    .row_attr = ranks_row_attr, .cell = ranks_table_cell };
	/* One node that failed: why, rather than "yet". */
	if (ui->nrrows == 0 && ui->filter == NULL && ui->scope != NULL &&
	    ui->nscope == 1 && ui_node_reason(ui, ui->scope[0]) != NULL) {
		snprintf(buf, sizeof(buf), "%s %s: %s",
		    ui->nodes[ui->scope[0]].name,
		    ui_sclass_name(ui_sclass(ui, ui->scope[0])),
		    ui_node_reason(ui, ui->scope[0]));
		t.empty = buf;
		t.empty_role = TR_STATE_FAILED;
	}
	table_draw(ui, r->y + 1, r->x, r->h - 1, r->w, &t);
}

/* A column the sort keys step over: sparklines, and what no row has. */
static int
ranks_skip_col(int col)
{
	return col == RC_SPARK || col == RC_MPISPARK ||
	    !columns_shown(COLUMNS_RANKS, (unsigned)col) ||
	    (col == RC_IPC && !ranks_have_ipc) ||
	    (col == RC_MPI && !ranks_have_mpi);
}

static void
ranks_sort_by(struct ui *ui, int col)
{
	ui->rtab.sort = col;
	ui->rtab.rev = ranks_desc[col];
	ui->view_gen++;
	ui_message(ui, 0, "ranks sorted by %s", ranks_cols[col].title);
}

static int
ranks_key(struct ui *ui, int key)
{
	const struct ui_rrow	*row;
	int			 col, n;

	if (ui_table_key(&ui->rtab, key, (int)ui->nrrows)) {
		if (ui->nrrows > 0) {
			ui->sel_rnode = ui->rrows[ui->rtab.sel].node;
			ui->sel_pid = ui->rrows[ui->rtab.sel].pid;
		}
		return 1;
	}
	switch (key) {
	case '\r':
	case '\n':
	case KEY_ENTER:
	case KEY_RIGHT:
		if (ui->nrrows == 0)
			return 1;
		row = &ui->rrows[ui->rtab.sel];
		if (ui->det_node != row->node || ui->det_pid != row->pid) {
			ui->bt_note[0] = '\0';
			ui->det_scroll = 0;
		}
		ui->det_node = row->node;
		ui->det_pid = row->pid;
		ui->det_start = row->start;
		ui_push(ui, UV_DETAIL);
		return 1;
	case 's':
	case '>':
	case '.':
	case KEY_F(6):
		col = ui->rtab.sort;
		n = 0;
		do
			col = (col + 1) % RC_NCOLS;
		while (ranks_skip_col(col) && ++n < RC_NCOLS);
		if (n < RC_NCOLS)
			ranks_sort_by(ui, col);
		return 1;
	case '<':
	case ',':
		col = ui->rtab.sort;
		n = 0;
		do
			col = (col + RC_NCOLS - 1) % RC_NCOLS;
		while (ranks_skip_col(col) && ++n < RC_NCOLS);
		if (n < RC_NCOLS)
			ranks_sort_by(ui, col);
		return 1;
	case 'I':
		ui->rtab.rev = !ui->rtab.rev;
		ui->view_gen++;
		return 1;
	case 'P':
		ranks_sort_by(ui, RC_CPU);
		return 1;
	case 'M':
		ranks_sort_by(ui, RC_RSS);
		return 1;
	case 'N':
		ranks_sort_by(ui, RC_RANK);
		return 1;
	case 'F':
		ranks_sort_by(ui, RC_FLAGS);
		return 1;
	case 'c':
		ui->cmd_mode = (ui->cmd_mode + 1) % 3;
		ui->view_gen++;
		ui_message(ui, 0, "COMMAND: %s (c: %s)", ui->cmd_mode == 0 ?
		    "the command line, program without its path" :
		    ui->cmd_mode == 1 ? "the full command line" :
		    "the program's name", ui->cmd_mode == 0 ? "with the path" :
		    ui->cmd_mode == 1 ? "the name alone" : "the line again");
		return 1;
	}
	return 0;
}

const struct panel panel_ranks = {
	.name = "ranks",
	.keys =
	    "Up Down j k\tmove (PgUp PgDn Home End too)\n"
	    "Enter Right\tthe rank's detail: state, wait channel, history\n"
	    "s > < F6\tsort by the next / previous column\n"
	    "P M N F\tsort by %CPU, RSS, rank (flagged ranks first), flags\n"
	    "I\tinvert the sort\n"
	    "c\tCOMMAND: the command line, with its path, the name alone\n",
	.height = ranks_height,
	.prepare = ranks_prepare,
	.draw = ranks_draw,
	.key = ranks_key,
};

/* The setup screen's binding (setup.h): the columns are columns.h's. */
static int
ranks_col_sortable(int i, int *desc)
{
	*desc = i >= 0 && i < RC_NCOLS ? ranks_desc[i] : 0;
	return i >= 0 && i < RC_NCOLS && i != RC_SPARK && i != RC_MPISPARK;
}

static struct ui_table *
ranks_tab(struct ui *ui)
{
	return &ui->rtab;
}

const struct setup_table setup_rank_table = {
	.name = "rank",
	.columns = COLUMNS_RANKS,
	.col_sortable = ranks_col_sortable,
	.tab = ranks_tab,
};
