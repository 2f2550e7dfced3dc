/* SPDX-License-Identifier: ISC */
/*
 * history: ring buffers of recent values per node, per rank and for the
 * whole job.  Each node keeps its ranks in an array (first-seen order) with
 * an open-addressing index by pid, rebuilt whenever a rank comes or goes;
 * a sample costs one lookup per rank.  Values are floats: sparklines and
 * detectors need shapes and medians, not the exact counters (those stay in
 * the model and in the recording).  A node keeps a ring only for the
 * metrics whose past something reads (HN_PAST), allocated when the metric
 * first has a value, so a node without GPUs or InfiniBand pays nothing for
 * them; the others keep their newest value.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "log.h"
#include "xmalloc.h"

struct hist_node {
	uint64_t	 samples;
	uint64_t	 last_ms;
	unsigned	 head, len;
	hist_val	*v[HN_NMETRICS];	/* NULL: never had a value */
	float		 cur[HN_NMETRICS];	/* each ring's newest, exact */
	double		 mem_limit;
	struct hist_rank **ranks;
	unsigned	 nranks, capranks;
	unsigned	*index;		/* by pid: rank index + 1, 0 empty */
	unsigned	 capindex;	/* a power of two, > 2 * nranks */
};

struct history {
	struct hist_node **nodes;
	int		 nnodes;
	uint64_t	 jsamples;
	unsigned	 jhead, jlen;
	hist_val	 jv[HJ_NMETRICS][HIST_NODE_DEPTH];
	float		 jcur[HJ_NMETRICS];
};

struct history *
history_new(void)
{
	return xcalloc(1, sizeof(struct history));
}

static void
history_node_free(struct hist_node *hn)
{
	unsigned	i;

	if (hn == NULL)
		return;
	for (i = 0; i < HN_NMETRICS; i++)
		free(hn->v[i]);
	for (i = 0; i < hn->nranks; i++)
		free(hn->ranks[i]);
	free(hn->ranks);
	free(hn->index);
	free(hn);
}

void
history_free(struct history *h)
{
	int	i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nnodes; i++)
		history_node_free(h->nodes[i]);
	free(h->nodes);
	free(h);
}

void
history_resize(struct history *h, int n)
{
	int	i;

	if (n <= h->nnodes)
		return;
	h->nodes = xreallocarray(h->nodes, (size_t)n, sizeof(*h->nodes));
	for (i = h->nnodes; i < n; i++)
		h->nodes[i] = xcalloc(1, sizeof(struct hist_node));
	h->nnodes = n;
}

int
history_nnodes(const struct history *h)
{
	return h->nnodes;
}

/*
 * The rings hold bfloat16 (a float's upper 16 bits, rounded to nearest
 * even): three significant digits over a float's whole range, half the
 * bytes.  The newest value of every ring is kept exact beside it (cur[]),
 * and that is what the detectors, the tables, the header and the report
 * read; only the past (sparklines, timelines) comes from the ring.  At
 * 1024 nodes the rings were 8 KiB a node, half of the core's per-node
 * memory (heaptrack of the srun transport at 64 lab nodes).
 */
static hist_val
history_pack(float f)
{
	uint32_t	u;

	if (isnan(f))
		return 0x7fc0;
	memcpy(&u, &f, sizeof(u));
	u += 0x7fff + ((u >> 16) & 1);
	return (hist_val)(u >> 16);
}

float
hist_val_float(hist_val h)
{
	uint32_t	u = (uint32_t)h << 16;
	float		f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* v as the history keeps it: a float, NaN when not finite. */
static float
history_float(double v)
{
	return isfinite(v) ? (float)v : NAN;
}

/* Write v at the ring's head slot of one series; v as a float. */
static float
history_put(hist_val *series, unsigned head, double v)
{
	float	f = history_float(v);

	series[head] = history_pack(f);
	return f;
}

/* Does node metric k keep its past (HN_PAST)? */
static int
history_node_past(enum hist_node_metric k)
{
	return (HN_PAST & ((uint64_t)1 << k)) != 0;
}

/* Write a rank's newest value of metric k into its ring's slot (the
 * newest) and beside its identity. */
static void
history_rank_put(struct hist_rank *hr, enum hist_rank_metric k,
    unsigned slot, double v)
{
	hr->cur[k] = history_put(hr->v[k], slot, v);
}

/* Write v at the head slot of a node's series, making its ring on the
 * first value; a metric without a past (HN_PAST) keeps the value only. */
static void
history_node_put(struct hist_node *hn, enum hist_node_metric k,
    unsigned head, double v)
{
	unsigned	i;

	if (!history_node_past(k)) {
		hn->cur[k] = history_float(v);
		return;
	}
	if (hn->v[k] == NULL) {
		if (!isfinite(v))
			return;
		hn->v[k] = xreallocarray(NULL, HIST_NODE_DEPTH,
		    sizeof(*hn->v[k]));
		for (i = 0; i < HIST_NODE_DEPTH; i++)
			hn->v[k][i] = history_pack(NAN);
	}
	hn->cur[k] = history_put(hn->v[k], head, v);
}

/* Value k back in a ring of depth d whose next slot is head (a NULL ring
 * never had a value). */
static double
history_ring_get(const hist_val *series, const float *cur, unsigned depth,
    unsigned head, unsigned len, unsigned k)
{
	if (k >= len || series == NULL)
		return NAN;
	if (k == 0)
		return *cur;
	return hist_val_float(series[(head + depth - 1 - k) % depth]);
}

/* The last n values oldest first, NaN where the ring is shorter. */
static void
history_ring_series(const hist_val *series, const float *cur,
    unsigned depth, unsigned head, unsigned len, float *out, unsigned n)
{
	unsigned	i;

	for (i = 0; i < n; i++)
		out[n - 1 - i] = (float)history_ring_get(series, cur, depth,
		    head, len, i);
}

void
history_node_values(const struct node_model *m, double *out)
{
	metrics_node_values(m, out, NULL);
}

int
history_rank_ident(const struct node_model *m, const struct minst *mi,
    int64_t *pid, int64_t *start, int64_t *rank)
{
	int	f;

	*pid = *start = *rank = -1;
	if ((f = mi->mg->known[MGF_PID]) < 0 ||
	    !model_value(mi, (unsigned)f, pid))
		return 0;
	if ((f = mi->mg->known[MGF_START_TIME]) >= 0)
		model_value(mi, (unsigned)f, start);
	if ((f = mi->mg->known[MGF_RANK]) >= 0)
		model_value(mi, (unsigned)f, rank);
	return 1;
}

static unsigned
history_hash(int64_t pid, unsigned cap)
{
	return (unsigned)(((uint64_t)pid * 0x9e3779b97f4a7c15ULL) >> 40) &
	    (cap - 1);
}

/* Rebuild a node's pid index for its current ranks. */
static void
history_reindex(struct hist_node *hn)
{
	unsigned	i, k, cap = 16;

	while (cap <= 2 * hn->nranks)
		cap *= 2;
	if (cap != hn->capindex) {
		free(hn->index);
		hn->index = xcalloc(cap, sizeof(*hn->index));
		hn->capindex = cap;
	} else
		memset(hn->index, 0, cap * sizeof(*hn->index));
	for (i = 0; i < hn->nranks; i++) {
		k = history_hash(hn->ranks[i]->pid, cap);
		while (hn->index[k] != 0)
			k = (k + 1) & (cap - 1);
		hn->index[k] = i + 1;
	}
}

/* The index of a node's rank with this pid, or -1. */
static long
history_lookup(const struct hist_node *hn, int64_t pid)
{
	unsigned	k;

	if (hn->capindex == 0)
		return -1;
	k = history_hash(pid, hn->capindex);
	while (hn->index[k] != 0) {
		if (hn->ranks[hn->index[k] - 1]->pid == pid)
			return (long)hn->index[k] - 1;
		k = (k + 1) & (hn->capindex - 1);
	}
	return -1;
}

/* What the rank table reads of each rank shares one cache line. */
_Static_assert(offsetof(struct hist_rank, seen) <= 64,
    "a rank's newest values outgrew a cache line");

/* A zeroed rank on a cache line of its own (free() releases it). */
static struct hist_rank *
history_rank_alloc(void)
{
	void	*p;

	if (posix_memalign(&p, 64, sizeof(struct hist_rank)) != 0)
		fatal("out of memory");
	memset(p, 0, sizeof(struct hist_rank));
	return p;
}

/* A copy of node hn, rings, ranks and index. */
static struct hist_node *
history_node_clone(const struct hist_node *hn)
{
	struct hist_node	*c;
	unsigned		 i;

	c = xcalloc(1, sizeof(*c));
	*c = *hn;
	for (i = 0; i < HN_NMETRICS; i++) {
		if (hn->v[i] == NULL)
			continue;
		c->v[i] = xreallocarray(NULL, HIST_NODE_DEPTH,
		    sizeof(*c->v[i]));
		memcpy(c->v[i], hn->v[i], HIST_NODE_DEPTH * sizeof(*c->v[i]));
	}
	c->ranks = NULL;
	if (hn->capranks > 0) {
		c->ranks = xreallocarray(NULL, hn->capranks,
		    sizeof(*c->ranks));
		for (i = 0; i < hn->nranks; i++) {
			c->ranks[i] = history_rank_alloc();
			memcpy(c->ranks[i], hn->ranks[i],
			    sizeof(*hn->ranks[i]));
		}
	}
	c->index = NULL;
	if (hn->capindex > 0) {
		c->index = xcalloc(hn->capindex, sizeof(*c->index));
		memcpy(c->index, hn->index, hn->capindex * sizeof(*c->index));
	}
	return c;
}

struct history *
history_clone(const struct history *h)
{
	struct history	*c;
	int		 i;

	c = xcalloc(1, sizeof(*c));
	*c = *h;
	c->nodes = h->nnodes > 0 ? xreallocarray(NULL, (size_t)h->nnodes,
	    sizeof(*c->nodes)) : NULL;
	for (i = 0; i < h->nnodes; i++)
		c->nodes[i] = history_node_clone(h->nodes[i]);
	return c;
}

/* Record one rank instance of the sample. */
static int
history_rank_sample(struct hist_node *hn, const struct node_model *m,
    const struct minst *mi, const int *fi)
{
	struct hist_rank	*hr;
	int64_t			 pid, start, rank, ut, st, sum;
	int64_t			 rd = -1, wr = -1;
	double			 x;
	const char		*s;
	long			 k;
	unsigned		 j;
	int			 added = 0;

	if (!history_rank_ident(m, mi, &pid, &start, &rank))
		return 0;
	k = history_lookup(hn, pid);
	if (k >= 0 && start >= 0 && hn->ranks[k]->start >= 0 &&
	    hn->ranks[k]->start != start) {
		/* The pid was reused: a new process. */
		memset(hn->ranks[k], 0, sizeof(*hn->ranks[k]));
		hr = hn->ranks[k];
		hr->ticks = -1;
	} else if (k >= 0)
		hr = hn->ranks[k];
	else {
		if (hn->nranks == hn->capranks) {
			hn->capranks = hn->capranks ? hn->capranks * 2 : 8;
			hn->ranks = xreallocarray(hn->ranks, hn->capranks,
			    sizeof(*hn->ranks));
		}
		hr = history_rank_alloc();
		hr->ticks = -1;
		hn->ranks[hn->nranks++] = hr;
		added = 1;
	}
	hr->pid = pid;
	hr->start = start;
	hr->rank = rank;

	/* The rank catalogue's rows of this instance; those of other
	 * groups (perf, mpi) come after, by pid (history_by_pid). */
	for (j = 0; j < HR_NMETRICS; j++) {
		x = NAN;
		if (metrics_rank_value(m, mi, (enum hist_rank_metric)j, &x) &&
		    (j == HR_READ || j == HR_WRITE))
			hr->io_known = 1;
		history_rank_put(hr, (enum hist_rank_metric)j, hr->head, x);
	}
	if (fi[1] >= 0 && model_value(mi, (unsigned)fi[1], &rd))
		hr->io_known = 1;
	if (fi[2] >= 0 && model_value(mi, (unsigned)fi[2], &wr))
		hr->io_known = 1;
	hr->head = (hr->head + 1) % HIST_RANK_DEPTH;
	if (hr->len < HIST_RANK_DEPTH)
		hr->len++;

	/* The node's values may be anything: negative or overflowing
	 * ticks are unknown, not undefined behaviour. */
	hr->dticks = -1;
	if (fi[3] >= 0 && fi[4] >= 0 &&
	    model_value(mi, (unsigned)fi[3], &ut) &&
	    model_value(mi, (unsigned)fi[4], &st) && ut >= 0 && st >= 0 &&
	    ut <= INT64_MAX - st) {
		sum = ut + st;
		if (hr->ticks >= 0 && hr->seen + 1 == hn->samples &&
		    sum >= hr->ticks)
			hr->dticks = sum - hr->ticks;
		hr->ticks = sum;
	} else
		hr->ticks = -1;
	hr->state = '?';
	if (fi[5] >= 0 && (s = model_str(mi, (unsigned)fi[5])) != NULL &&
	    *s != '\0')
		hr->state = *s;
	hr->syscall = -2;
	if (fi[6] >= 0)
		model_value(mi, (unsigned)fi[6], &hr->syscall);
	hr->seen = hn->samples;
	return added;
}

/* Record every rank of the sample; forget those that are gone. */
static void
history_ranks(struct hist_node *hn, const struct node_model *m)
{
	static const char	*names[] = { "rss", "read_bytes",
	    "write_bytes", "utime", "stime", "state", "syscall" };
	const struct minst	*mi;
	unsigned		 i, j;
	int			 g, fi[7], changed = 0;

	if ((g = model_group_index(m, "rank")) >= 0) {
		for (i = 0; i < 7; i++)
			fi[i] = model_field_index(m, (unsigned)g, names[i]);
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			if (history_rank_sample(hn, m, mi, fi)) {
				/* Index it now: a later instance may share
				 * the pid only by mistake, never silently. */
				history_reindex(hn);
			}
		}
	}
	for (i = j = 0; i < hn->nranks; i++) {
		if (hn->ranks[i]->seen == hn->samples)
			hn->ranks[j++] = hn->ranks[i];
		else {
			free(hn->ranks[i]);
			changed = 1;
		}
	}
	hn->nranks = j;
	if (changed)
		history_reindex(hn);
}

/* Each rank's rows of the catalogue that other groups hold, in the
 * instance named by its pid: IPC (rankperf), the share of CPU time in
 * MPI or collectives (rankmpi). */
static void
history_by_pid(struct hist_node *hn, const struct node_model *m)
{
	const struct minst	*mi;
	struct hist_rank	*hr;
	double			 x;
	char			*end;
	long long		 pid;
	long			 k;
	unsigned		 j;
	int			 g;

	for (j = 0; j < HR_NMETRICS; j++) {
		if ((g = metrics_rank_group(m, (enum hist_rank_metric)j)) < 0 ||
		    strcmp(rank_cat[j].group[0], "rank") == 0)
			continue;
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			pid = strtoll(mi->name, &end, 10);
			if (end == mi->name || *end != '\0' ||
			    (k = history_lookup(hn, pid)) < 0)
				continue;
			hr = hn->ranks[k];
			if (hr->seen != hn->samples ||
			    !metrics_rank_value(m, mi,
			    (enum hist_rank_metric)j, &x))
				continue;
			history_rank_put(hr, (enum hist_rank_metric)j,
			    (hr->head + HIST_RANK_DEPTH - 1) %
			    HIST_RANK_DEPTH, x);
		}
	}
}

void
history_node_sample(struct history *h, int i, const struct node_model *m,
    uint64_t now_ms)
{
	struct hist_node	*hn;
	double			 v[HN_NMETRICS];
	unsigned		 hd, k;

	if (i < 0)
		return;
	if (i >= h->nnodes)
		history_resize(h, i + 1);
	hn = h->nodes[i];
	hn->samples++;
	hn->last_ms = now_ms;
	hd = hn->head;

	metrics_node_values(m, v, &hn->mem_limit);
	for (k = 0; k < HN_NMETRICS; k++)
		history_node_put(hn, (enum hist_node_metric)k, hd, v[k]);
	hn->head = (hd + 1) % HIST_NODE_DEPTH;
	if (hn->len < HIST_NODE_DEPTH)
		hn->len++;
	history_ranks(hn, m);
	history_by_pid(hn, m);
}

uint64_t
history_node_samples(const struct history *h, int i)
{
	return i >= 0 && i < h->nnodes ? h->nodes[i]->samples : 0;
}

uint64_t
history_node_last_ms(const struct history *h, int i)
{
	return i >= 0 && i < h->nnodes ? h->nodes[i]->last_ms : 0;
}

double
history_node_mem_limit(const struct history *h, int i)
{
	return i >= 0 && i < h->nnodes ? h->nodes[i]->mem_limit : 0;
}

double
history_node_get(const struct history *h, int i, enum hist_node_metric k,
    unsigned back)
{
	const struct hist_node	*hn;

	double			 v;
	unsigned		 t;

	if (i < 0 || i >= h->nnodes || (unsigned)k >= HN_NROWS)
		return NAN;
	if (k >= HN_NMETRICS) {
		/* A row made of others: the sum of its terms. */
		v = NAN;
		for (t = 0; t < metric_cat[k].nterms; t++)
			v = metrics_add(v, history_node_get(h, i,
			    (enum hist_node_metric)metric_cat[k].terms[t],
			    back));
		return v;
	}
	hn = h->nodes[i];
	if (!history_node_past(k))
		return back == 0 && hn->len > 0 ? hn->cur[k] : NAN;
	return history_ring_get(hn->v[k], &hn->cur[k], HIST_NODE_DEPTH,
	    hn->head, hn->len, back);
}

void
history_node_series(const struct history *h, int i, enum hist_node_metric k,
    float *out, unsigned n)
{
	const struct hist_node	*hn;
	unsigned		 j;

	if (i < 0 || i >= h->nnodes) {
		for (j = 0; j < n; j++)
			out[j] = NAN;
		return;
	}
	hn = h->nodes[i];
	if (!history_node_past(k)) {
		for (j = 0; j < n; j++)
			out[n - 1 - j] = (float)history_node_get(h, i, k, j);
		return;
	}
	history_ring_series(hn->v[k], &hn->cur[k], HIST_NODE_DEPTH, hn->head,
	    hn->len, out, n);
}

unsigned
history_nranks(const struct history *h, int i)
{
	return i >= 0 && i < h->nnodes ? h->nodes[i]->nranks : 0;
}

struct hist_rank *
history_rank(struct history *h, int i, unsigned k)
{
	if (i < 0 || i >= h->nnodes || k >= h->nodes[i]->nranks)
		return NULL;
	return h->nodes[i]->ranks[k];
}

const struct hist_rank *
history_rank_const(const struct history *h, int i, unsigned k)
{
	if (i < 0 || i >= h->nnodes || k >= h->nodes[i]->nranks)
		return NULL;
	return h->nodes[i]->ranks[k];
}

struct hist_rank *const *
history_node_ranks(const struct history *h, int i, unsigned *n)
{
	*n = 0;
	if (i < 0 || i >= h->nnodes || h->nodes[i] == NULL)
		return NULL;
	*n = h->nodes[i]->nranks;
	return h->nodes[i]->ranks;
}

struct hist_rank *
history_rank_find(const struct history *h, int i, int64_t pid,
    int64_t start)
{
	struct hist_rank	*hr;
	long			 k;

	if (i < 0 || i >= h->nnodes ||
	    (k = history_lookup(h->nodes[i], pid)) < 0)
		return NULL;
	hr = h->nodes[i]->ranks[k];
	if (start >= 0 && hr->start >= 0 && hr->start != start)
		return NULL;
	return hr;
}

double
history_rank_get(const struct hist_rank *hr, enum hist_rank_metric k,
    unsigned back)
{
	return history_ring_get(hr->v[k], &hr->cur[k], HIST_RANK_DEPTH,
	    hr->head, hr->len, back);
}

void
history_rank_series(const struct hist_rank *hr, enum hist_rank_metric k,
    float *out, unsigned n)
{
	history_ring_series(hr->v[k], &hr->cur[k], HIST_RANK_DEPTH, hr->head,
	    hr->len, out, n);
}

/* Add x to a sum when it is a number; count it. */
static void
history_acc(double *sum, unsigned *n, double x)
{
	if (isfinite(x)) {
		*sum += x;
		(*n)++;
	}
}

/* The larger of a maximum so far and x when it is a number; count it. */
static void
history_acc_max(double *max, unsigned *n, double x)
{
	if (isfinite(x)) {
		*max = *n == 0 || x > *max ? x : *max;
		(*n)++;
	}
}

void
history_job_sample(struct history *h, uint64_t now_ms, uint64_t stale_ms)
{
	const struct hist_node	*hn;
	double			 sum[HJ_NMETRICS], x;
	unsigned		 cnt[HJ_NMETRICS], k, r;
	int			 i, u, tot[HN_NROWS], max[HN_NROWS];

	memset(sum, 0, sizeof(sum));
	memset(cnt, 0, sizeof(cnt));
	for (k = 0; k < HN_NROWS; k++) {
		tot[k] = metrics_total_of((int)k);
		max[k] = strcmp(metric_cat[k].agg, "max") == 0;
	}
	for (i = 0; i < h->nnodes; i++) {
		hn = h->nodes[i];
		if (hn->samples == 0 || now_ms - hn->last_ms > stale_ms)
			continue;
		for (k = 0; k < HN_NROWS; k++) {
			x = history_node_get(h, i, (enum hist_node_metric)k, 0);
			/* A total counts where its used part is. */
			if ((u = tot[k]) >= 0 && !isfinite(history_node_get(h,
			    i, (enum hist_node_metric)u, 0)))
				continue;
			if (max[k])
				history_acc_max(&sum[k], &cnt[k], x);
			else
				history_acc(&sum[k], &cnt[k], x);
		}
		x = history_node_get(h, i, HN_MEM, 0);
		if (isfinite(x) && hn->mem_limit > 0)
			history_acc(&sum[HJ_MEMTOTAL], &cnt[HJ_MEMTOTAL],
			    hn->mem_limit);
		for (r = 0; r < hn->nranks; r++)
			history_acc(&sum[HJ_RANKCPU], &cnt[HJ_RANKCPU],
			    history_rank_get(hn->ranks[r], HR_CPU, 0));
	}
	for (k = 0; k < HJ_NMETRICS; k++) {
		x = cnt[k] == 0 ? NAN : sum[k];
		if (k < HN_NROWS && cnt[k] > 0 &&
		    strcmp(metric_cat[k].agg, "mean") == 0)
			x /= cnt[k];
		h->jcur[k] = history_put(h->jv[k], h->jhead, x);
	}
	h->jhead = (h->jhead + 1) % HIST_NODE_DEPTH;
	if (h->jlen < HIST_NODE_DEPTH)
		h->jlen++;
	h->jsamples++;
}

double
history_job_get(const struct history *h, int k,
    unsigned back)
{
	if (k < 0 || k >= HJ_NMETRICS)
		return NAN;
	return history_ring_get(h->jv[k], &h->jcur[k], HIST_NODE_DEPTH,
	    h->jhead, h->jlen, back);
}

void
history_job_series(const struct history *h, int k,
    float *out, unsigned n)
{
	history_ring_series(h->jv[k], &h->jcur[k], HIST_NODE_DEPTH, h->jhead,
	    h->jlen, out, n);
}

uint64_t
history_job_samples(const struct history *h)
{
	return h->jsamples;
}
