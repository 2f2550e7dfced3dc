/* SPDX-License-Identifier: ISC */
/*
 * detect: stalled ranks, stragglers, memory pressure and lost nodes, from
 * the history.  Every judgement counts consecutive samples, so a single
 * odd sample never raises a flag and a flag never blinks: raising needs
 * several samples in a row, clearing needs the rank to progress (stalled)
 * or several normal samples (straggler), or memory to fall under a lower
 * threshold (hysteresis).  Where the nodes sample the ranks' share of CPU
 * time in MPI, a job whose ranks spin in MPI judges stragglers by that
 * share instead of %CPU (detect_mpi_stats).
 *
 * Membership: each node keeps its ranks (rank ids) sorted by id, each with
 * the pid and command of one of its processes for the events.  A sample
 * looks every process up by binary search, appends the ids it does not
 * know, sorts once, and drops the ids no process carried: O(n log n) for
 * the first sample of a thousand ranks, O(n log n) lookups after that.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"
#include "textsafe.h"
#include "xmalloc.h"

#define DETECT_MAD_SCALE	1.4826	/* MAD to a normal's sigma */
/*
 * Ranks (%CPU rule, detect_rank_far): a rank's level is the median of
 * its own last DETECT_PAST samples, so one odd sample moves nothing; it is
 * compared with the median and MAD of its peers' levels without its own
 * (leave-one-out: one noisy peer among four cannot widen the spread
 * enough to hide a fourth rank at a quarter of the others); the distance
 * must clear DETECT_NOISE_K times the job's sample-to-sample noise (the
 * median over the ranks of each one's median |x(t) - x(t-1)|, as a
 * normal's sigma), the relative and robust gaps of the conf, and
 * DETECT_RANK_GAP points.  Up to DETECT_LOO_EXACT ranks the peers' median
 * and MAD are recomputed without the rank; above, one rank moves them by
 * nothing that matters and the job's are used.
 * Few ranks: one rank alone is never judged; of two, only the lower one,
 * and only under DETECT_PAIR_RATIO of the other (a rank cannot be told
 * from a single peer by spread: the one that works less is the one the
 * other waits for); three or more by the rule above (with three, the two
 * peers must agree: their MAD is half their gap).
 */
#define DETECT_PAST		5
#define DETECT_NOISE_K		2.5
#define DETECT_DIFF_SIGMA	0.9539	/* median |difference| of two
					 * normal draws over sigma */
#define DETECT_RANK_GAP		2.0	/* %-points */
#define DETECT_DEMAND_GAP	10.0	/* %-points between demands */
#define DETECT_LOO_EXACT	64
#define DETECT_PAIR_RATIO	0.5
#define DETECT_CLEAR_FRAC	0.5	/* a flagged straggler is back only
					 * within this part of the distance
					 * that raised it (hysteresis) */
#define DETECT_GROUP_DEFAULT	3	/* ranks at once: one event */
#define DETECT_HINT_SAMPLES	3	/* samples before a verdict is said,
					 * and normal ones before it clears */
#define DETECT_MG_N		30	/* memory samples in the slope */
#define DETECT_MG_HORIZON	600.0	/* s: a limit nearer is news */
#define DETECT_MG_FIT		0.9	/* r^2 of the line at least */
#define DETECT_IDLE_CORE	50.0	/* % idle: a CPU the job could use */

/* One rank of the job on a node: a rank id and one process carrying it. */
struct detect_member {
	int64_t		 rank;
	int64_t		 pid;		/* the process the events name */
	uint64_t	 order;		/* first seen (ties in the sort) */
	uint64_t	 seen;		/* the node's last sample with it */
	uint64_t	 pid_seen;	/* ... with the process pid */
	const struct minst *alt;	/* during a sample: another process
					 * with the id (NULL none) */
	char		 comm[16];
};

struct detect_node {
	unsigned	 flags;
	int		 lost;
	unsigned	 far, near, mem;
	unsigned	 rflags;		/* union of its ranks' flags */
	unsigned	 nrflagged;		/* ranks with a flag */
	unsigned	 rcount[DF_NFLAGS];	/* ranks with each flag */
	struct detect_member *memb;		/* its ranks, by rank id */
	unsigned	 nmemb, capmemb;
	uint64_t	 msamples;		/* samples with a rank group */
	int64_t		 world;			/* largest rank.world of its
						   ranks' last sample, -1 */
	/* Verdicts with a hint (detect_pinning, detect_memgrow). */
	unsigned	 pin_run, pin_ok;
	int		 pinned;
	unsigned	 nio;			/* its I/O-bound ranks */
	double		 mg_t[DETECT_MG_N], mg_v[DETECT_MG_N];
	unsigned	 mg_head, mg_len, mg_run, mg_ok;
	int		 memgrow;
	/* What the job used of its allocation here (detect_alloc): the
	 * largest memory (the job's: its cgroup, else the node's) and CPUs
	 * (its cgroup's, else its ranks'; never the node's) in a sample;
	 * the job cgroup's memory limit, 0 none. */
	double		 al_mem, al_cpu, al_limit;
};

struct detect {
	struct history		*h;
	struct detect_conf	 conf;
	void			(*cb)(void *, const struct detect_event *);
	void			*arg;
	struct detect_node	*nodes;
	int			 nnodes;
	float			*scratch;
	size_t			 capscratch;
	unsigned		 since;		/* node samples since stats */
	int			 valid;
	double			 rank_med, rank_mad;	/* of the levels */
	unsigned		 rank_n;
	double			 noise;		/* sample-to-sample sigma */
	float			*lv;		/* the levels, sorted */
	size_t			 caplv;
	float			*dv;		/* the demands, sorted */
	unsigned		 dv_n;
	double			 dv_med, dv_mad;
	unsigned		 gen;		/* stats rounds (hr->det_gen) */
	uint64_t		 hint_ms;	/* the sample a hint is about */
	double			 node_med, node_mad;
	unsigned		 node_n;
	double			 mpi_med, mpi_mad;	/* detect_mpi_stats */
	double			 mpi_others, spin_med;
	unsigned		 mpi_n;
	size_t			 rank_total;	/* ranks known, rates or not */
	unsigned		 live_at_stats;	/* live nodes then */
	long			 members;	/* every node's nmem */
	int			 had_members;	/* a rank id ever seen */
	int			 ended;		/* detect_job_ended() */
	uint64_t		 morder;
	struct detect_member	*mscratch;	/* a sample's comings/goings */
	size_t			 capmscratch;
	uint64_t		 al_first, al_last;	/* detect_alloc's
							 * first and last
							 * judgement, ms */
	int			 al_memsaid, al_cpusaid;
};

static const char *const detect_names[DF_NFLAGS] = {
	"stalled", "straggler", "memory", "lost"
};

void
detect_conf_default(struct detect_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->ranks = 1;
	c->stall_samples = 3;
	c->idle_cpu = 1.0;
	c->busy_cpu = 3.0;
	c->strag_samples = 5;
	c->clear_samples = 3;
	c->strag_mads = 4.0;
	c->strag_gap = 25.0;
	c->strag_frac = 0.25;
	c->strag_min = 3;
	c->mem_pct = 90.0;
	c->mem_clear_pct = 85.0;
	c->mem_samples = 2;
	c->ntasks = -1;
	c->member_group = DETECT_GROUP_DEFAULT;
	c->alloc_ms = DETECT_ALLOC_MIN_MS;
}

struct detect *
detect_new(struct history *h, const struct detect_conf *conf,
    void (*cb)(void *, const struct detect_event *), void *arg)
{
	struct detect	*d;

	d = xcalloc(1, sizeof(*d));
	d->h = h;
	if (conf != NULL)
		d->conf = *conf;
	else
		detect_conf_default(&d->conf);
	d->cb = cb;
	d->arg = arg;
	d->rank_med = d->node_med = d->noise = NAN;
	return d;
}

struct detect *
detect_clone(const struct detect *d, struct history *h,
    void (*cb)(void *, const struct detect_event *), void *arg)
{
	struct detect	*c;
	int		 i;
	unsigned	 k;

	c = xcalloc(1, sizeof(*c));
	*c = *d;
	c->h = h;
	c->cb = cb;
	c->arg = arg;
	c->scratch = NULL;
	c->capscratch = 0;
	c->mscratch = NULL;
	c->capmscratch = 0;
	c->lv = c->dv = NULL;
	c->caplv = 0;
	if (d->caplv > 0) {
		c->caplv = d->caplv;
		c->lv = xreallocarray(NULL, c->caplv, sizeof(*c->lv));
		c->dv = xreallocarray(NULL, c->caplv, sizeof(*c->dv));
		memcpy(c->lv, d->lv, d->rank_n * sizeof(*c->lv));
		memcpy(c->dv, d->dv, d->dv_n * sizeof(*c->dv));
	}
	c->nodes = d->nnodes > 0 ? xreallocarray(NULL, (size_t)d->nnodes,
	    sizeof(*c->nodes)) : NULL;
	for (i = 0; i < d->nnodes; i++) {
		c->nodes[i] = d->nodes[i];
		c->nodes[i].memb = NULL;
		if (d->nodes[i].capmemb == 0)
			continue;
		c->nodes[i].memb = xreallocarray(NULL, d->nodes[i].capmemb,
		    sizeof(*c->nodes[i].memb));
		memcpy(c->nodes[i].memb, d->nodes[i].memb,
		    d->nodes[i].nmemb * sizeof(*c->nodes[i].memb));
		for (k = 0; k < d->nodes[i].nmemb; k++)
			c->nodes[i].memb[k].alt = NULL;
	}
	return c;
}

void
detect_free(struct detect *d)
{
	int	i;

	if (d == NULL)
		return;
	for (i = 0; i < d->nnodes; i++)
		free(d->nodes[i].memb);
	free(d->mscratch);
	free(d->lv);
	free(d->dv);
	free(d->nodes);
	free(d->scratch);
	free(d);
}

const char *
detect_flag_name(unsigned bit)
{
	unsigned	i;

	for (i = 0; i < DF_NFLAGS; i++) {
		if (bit == (1u << i))
			return detect_names[i];
	}
	return NULL;
}

int
detect_flag_names(unsigned flags, const char **names, int max)
{
	unsigned	i;
	int		n = 0;

	for (i = 0; i < DF_NFLAGS && n < max; i++) {
		if ((flags & (1u << i)) != 0)
			names[n++] = detect_names[i];
	}
	return n;
}

static void
detect_grow(struct detect *d, int n)
{
	if (n <= d->nnodes)
		return;
	d->nodes = xreallocarray(d->nodes, (size_t)n, sizeof(*d->nodes));
	memset(d->nodes + d->nnodes, 0, (size_t)(n - d->nnodes) *
	    sizeof(*d->nodes));
	d->nnodes = n;
}

unsigned
detect_node_flags(const struct detect *d, int i)
{
	return i >= 0 && i < d->nnodes ? d->nodes[i].flags : 0;
}

unsigned
detect_rank_flags(const struct hist_rank *hr)
{
	return hr != NULL ? hr->flags : 0;
}

double
detect_rank_median(const struct detect *d)
{
	return d->rank_med;
}

double
detect_node_median(const struct detect *d)
{
	return d->node_med;
}

void
detect_counts(const struct detect *d, unsigned *nodes, unsigned *ranks)
{
	const struct detect_node	*dn;
	unsigned			 b;
	int				 i;

	memset(nodes, 0, DF_NFLAGS * sizeof(*nodes));
	memset(ranks, 0, DF_NFLAGS * sizeof(*ranks));
	for (i = 0; i < d->nnodes; i++) {
		dn = &d->nodes[i];
		for (b = 0; b < DF_NFLAGS; b++) {
			if ((dn->flags & (1u << b)) != 0)
				nodes[b]++;
			ranks[b] += dn->rcount[b];
		}
	}
}

void
detect_node_ranks(const struct detect *d, int i, unsigned *flags,
    unsigned *nflagged)
{
	*flags = *nflagged = 0;
	if (i >= 0 && i < d->nnodes) {
		*flags = d->nodes[i].rflags;
		*nflagged = d->nodes[i].nrflagged;
	}
}

/* Count the flags of a node's ranks (after its sample). */
static void
detect_recount(struct detect *d, int i)
{
	struct detect_node	*dn = &d->nodes[i];
	const struct hist_rank	*hr;
	unsigned		 k, b, n = history_nranks(d->h, i);

	dn->rflags = dn->nrflagged = 0;
	memset(dn->rcount, 0, sizeof(dn->rcount));
	for (k = 0; k < n; k++) {
		hr = history_rank_const(d->h, i, k);
		if (hr->flags == 0)
			continue;
		dn->rflags |= hr->flags;
		dn->nrflagged++;
		for (b = 0; b < DF_NFLAGS; b++)
			if ((hr->flags & (1u << b)) != 0)
				dn->rcount[b]++;
	}
}

/* Reorder v so that v[k] is the (k+1)-th smallest, nothing greater
 * before it and nothing smaller after it (quickselect: a median per
 * round of samples need not sort 32768 ranks). */
static void
detect_select(float *v, unsigned n, unsigned k)
{
	unsigned	lo = 0, hi = n - 1, i, j;
	float		pivot, t;

	while (lo < hi) {
		pivot = v[lo + (hi - lo) / 2];
		i = lo;
		j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
}

/* The median of n values (reordered). */
static double
detect_median(float *v, unsigned n)
{
	float		lower;
	unsigned	i;

	detect_select(v, n, n / 2);
	if (n % 2)
		return v[n / 2];
	for (i = 1, lower = v[0]; i < n / 2; i++)
		if (v[i] > lower)
			lower = v[i];
	return ((double)lower + v[n / 2]) / 2;
}

/* Median and median absolute deviation of n values (reordered). */
static void
detect_median_mad(float *v, unsigned n, double *med, double *mad)
{
	unsigned	i;

	if (n == 0) {
		*med = *mad = NAN;
		return;
	}
	*med = detect_median(v, n);
	for (i = 0; i < n; i++)
		v[i] = (float)fabs(v[i] - *med);
	*mad = detect_median(v, n);
}

static float *
detect_scratch(struct detect *d, size_t n)
{
	if (n > d->capscratch) {
		d->capscratch = n + n / 2 + 64;
		free(d->scratch);
		d->scratch = xreallocarray(NULL, d->capscratch,
		    sizeof(*d->scratch));
	}
	return d->scratch;
}

/* Is node i part of the job's current picture? */
static int
detect_live(const struct detect *d, int i)
{
	return history_node_samples(d->h, i) > 0 &&
	    !(i < d->nnodes && d->nodes[i].lost);
}

/*
 * MPI waiting (the mpi source): a rank's %CPU times its share of CPU time
 * in MPI is the CPU it spends spinning in MPI, which most MPI libraries
 * do while they wait for a peer.  When the ranks wait for someone, the
 * one whose share of CPU time in MPI is far below the others' is the one
 * they wait for: the straggler, even though every rank shows 100% CPU.
 * In such a job %CPU says nothing (spinning is not work), so this rule
 * replaces the %CPU rule for the ranks that have a share.  The share,
 * not the spin, is compared: it does not depend on how many CPUs the
 * ranks share.  Two tests, either makes a rank far:
 *  - the robust distance of the %CPU rule (detect_far) from the median
 *    share, when the median rank spins at least busy_cpu;
 *  - a share under a third (DETECT_MPI_RATIO) of the median share of
 *    the other ranks, when that is at least DETECT_MPI_SHARE%, whatever
 *    the CPU: ranks that oversubscribe their CPUs wait partly in the
 *    kernel (blocked in poll, sched_yield), which is not sampled, so a
 *    waiting rank's share can stay near 30% and its CPU near 20% while
 *    the straggler's share is 0, a gap no fixed number of points tells
 *    from noise (four noisy ranks make the MAD large) but a ratio does.
 *    So that a few samples (a rank at 2% CPU) cannot make it, the rank's
 *    MPI samples must also be improbable (DETECT_MPI_ALPHA) were it
 *    waiting like the others (detect_mpi_unlikely).
 * A balanced job's shares (all alike, often under 10%) meet neither.
 * Median and MAD of the share (mpi_med, mpi_mad), the median share of
 * the others for a rank under the median (mpi_others: the median without
 * the lowest share) and the median spin (spin_med), over the ranks with
 * a share (mpi_n); v is scratch.
 */
#define DETECT_MPI_RATIO	3.0	/* others' median share / this */
#define DETECT_MPI_SHARE	15.0	/* ... at least this (%) */
#define DETECT_MPI_ALPHA	0.05	/* chance of so few MPI samples */

static int	detect_far(const struct detect *, double, double, double);

static double
detect_mpi_spin(const struct hist_rank *hr)
{
	double	cpu = history_rank_get(hr, HR_CPU, 0);
	double	mpi = history_rank_get(hr, HR_MPI, 0);

	return isfinite(cpu) && isfinite(mpi) ? cpu * mpi / 100.0 : NAN;
}

static void
detect_mpi_stats(struct detect *d, float *v)
{
	const struct hist_rank	*hr;
	unsigned		 n, k, pass;
	double			 x, mad;
	int			 i, nn = history_nnodes(d->h);

	for (pass = 0; pass < 2; pass++) {
		for (i = 0, n = 0; i < nn; i++) {
			if (!detect_live(d, i))
				continue;
			for (k = 0; k < history_nranks(d->h, i); k++) {
				hr = history_rank_const(d->h, i, k);
				x = pass == 0 ? detect_mpi_spin(hr) :
				    history_rank_get(hr, HR_MPI, 0);
				if (isfinite(x) && isfinite(detect_mpi_spin(hr))
				    && hr->rank >= 0)
					v[n++] = (float)x;
			}
		}
		if (pass == 0) {
			detect_median_mad(v, n, &d->spin_med, &mad);
			continue;
		}
		/* Without the lowest share, the median is the others' for
		 * every rank whose share is under the median. */
		d->mpi_others = NAN;
		if (n >= 2) {
			unsigned	lo = 0, j;
			float		t;

			for (j = 1; j < n; j++)
				if (v[j] < v[lo])
					lo = j;
			t = v[lo];
			v[lo] = v[n - 1];
			v[n - 1] = t;
			d->mpi_others = detect_median(v, n - 1);
		}
		detect_median_mad(v, n, &d->mpi_med, &d->mpi_mad);
	}
	d->mpi_n = n;
}

/*
 * Of k samples, mpi fell in MPI: is that at most DETECT_MPI_ALPHA likely
 * were each sample in MPI with probability p (the binomial distribution's
 * P(X <= mpi))?  Only called with mpi < k p / 3, where the terms grow
 * with j, so the sum stops early and an underflowing first term means a
 * vanishing sum.
 */
static int
detect_mpi_unlikely(double k, double mpi, double p)
{
	double	term, sum;
	long	j;

	if (!(k >= 1) || !(p > 0 && p < 1))
		return !(k < 1) && p >= 1;
	term = exp(k * log1p(-p));
	for (j = 0, sum = term; j < (long)mpi && sum <= DETECT_MPI_ALPHA;
	    j++) {
		term *= (k - (double)j) / (double)(j + 1) * p / (1 - p);
		sum += term;
	}
	return sum <= DETECT_MPI_ALPHA;
}

/* The rank's samples and MPI samples over the node's last interval, from
 * the rates of the mpi source's counters: 1 when known. */
static int
detect_mpi_counts(const struct node_model *m, const struct hist_rank *hr,
    double *k, double *mpi)
{
	const struct minst	*mi;
	char			 name[24];
	int			 g, fs, fm;

	if ((g = model_group_index(m, "rankmpi")) < 0 ||
	    (fs = model_field_index(m, (unsigned)g, "samples")) < 0 ||
	    (fm = model_field_index(m, (unsigned)g, "mpi")) < 0)
		return 0;
	snprintf(name, sizeof(name), "%lld", (long long)hr->pid);
	if ((mi = model_inst_by_name(m, (unsigned)g, name)) == NULL ||
	    !model_metric(m, mi, (unsigned)fs, k) ||
	    !model_metric(m, mi, (unsigned)fm, mpi) || m->dt_ms <= 0)
		return 0;
	*k = floor(*k * (double)m->dt_ms / 1000.0 + 0.5);
	*mpi = floor(*mpi * (double)m->dt_ms / 1000.0 + 0.5);
	return 1;
}

/* The communication library the rank's share is of (COMM%: MPI, NCCL,
 * gloo...), for the straggler's event. */
static const char *
detect_comm(const struct node_model *m, const struct hist_rank *hr)
{
	const char	*fam = model_comm_family(m, (long long)hr->pid);

	return fam != NULL ? fam : "MPI";
}

/*
 * Does the MPI rule judge this rank (1)?  Then *far says whether its
 * share of CPU time in MPI is far below the others', *share what it is.
 * -1: it would, but the rank has no share this once (no sample fell in
 * the interval, as on a loaded node), which neither raises nor clears.
 */
static int
detect_mpi_far(const struct detect *d, const struct node_model *m,
    const struct hist_rank *hr, int *far, double *share)
{
	double	k, mpi;
	int	spins, waits;

	*share = history_rank_get(hr, HR_MPI, 0);
	if (d->mpi_n < d->conf.strag_min)
		return 0;
	spins = isfinite(d->spin_med) && d->spin_med >= d->conf.busy_cpu;
	waits = isfinite(d->mpi_others) && d->mpi_others >= DETECT_MPI_SHARE;
	if (!spins && !waits)
		return 0;
	if (!isfinite(*share))
		return isfinite(history_rank_get(hr, HR_MPI, 1)) ? -1 : 0;
	*far = *share < d->mpi_med && ((spins && detect_far(d, *share,
	    d->mpi_med, d->mpi_mad)) || (waits && *share * DETECT_MPI_RATIO <
	    d->mpi_others && detect_mpi_counts(m, hr, &k, &mpi) &&
	    detect_mpi_unlikely(k, mpi, d->mpi_others / 100.0)));
	return 1;
}

static int
detect_float_cmp(const void *a, const void *b)
{
	float	x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

/*
 * A rank's level: the median of its last DETECT_PAST %CPU samples (those
 * it has), and in *diff the median of their sample-to-sample changes (NaN
 * under two samples).  Returns the samples used.
 */
static unsigned
detect_rank_level(const struct hist_rank *hr, double *level, double *diff)
{
	float		x[DETECT_PAST], dx[DETECT_PAST];
	double		a, prev = NAN;
	unsigned	n = 0, nd = 0, k;

	for (k = 0; k < DETECT_PAST; k++) {
		a = history_rank_get(hr, HR_CPU, k);
		if (!isfinite(a)) {
			prev = NAN;
			continue;
		}
		x[n++] = (float)a;
		if (isfinite(prev))
			dx[nd++] = (float)fabs(prev - a);
		prev = a;
	}
	*level = n > 0 ? detect_median(x, n) : NAN;
	*diff = nd > 0 ? detect_median(dx, nd) : NAN;
	return n;
}

/* Recompute the job-wide medians of node CPU busy and rank %CPU. */
static void
detect_stats(struct detect *d)
{
	struct hist_rank	*hr;
	size_t			 total = 0;
	unsigned		 n, nd, k;
	float			*v;
	double			 x, dx, mad;
	int			 i, nn = history_nnodes(d->h);

	for (i = 0; i < nn; i++)
		total += history_nranks(d->h, i);
	d->rank_total = total;
	v = detect_scratch(d, total > (size_t)nn ? total : (size_t)nn);
	for (i = 0, n = 0; i < nn; i++) {
		if (!detect_live(d, i))
			continue;
		x = history_node_get(d->h, i, HN_CPU, 0);
		if (isfinite(x))
			v[n++] = (float)x;
	}
	d->node_n = n;
	detect_median_mad(v, n, &d->node_med, &d->node_mad);
	for (i = 0, d->live_at_stats = 0; i < nn; i++)
		d->live_at_stats += detect_live(d, i);
	/* Ranks have rank ids (SLURM_PROCID, PMI_RANK...); other processes
	 * (the batch shell waiting for srun, a user's editor on a -w node,
	 * the busiest processes root sees) are no peers to compare with.
	 * Each is counted by its level (its own recent past), kept sorted
	 * for the leave-one-out statistics (detect_rank_peers); the scratch
	 * gathers the ranks' sample-to-sample changes. */
	if (total > d->caplv) {
		d->caplv = total + total / 2 + 16;
		free(d->lv);
		free(d->dv);
		d->lv = xreallocarray(NULL, d->caplv, sizeof(*d->lv));
		d->dv = xreallocarray(NULL, d->caplv, sizeof(*d->dv));
	}
	if (++d->gen == 0)
		d->gen = 1;
	d->dv_n = 0;
	for (i = 0, n = nd = 0; i < nn; i++) {
		if (!detect_live(d, i))
			continue;
		for (k = 0; k < history_nranks(d->h, i); k++) {
			hr = history_rank(d->h, i, k);
			hr->det_gen = hr->det_dgen = 0;
			if (hr->rank >= 0 && hr->det_dok &&
			    isfinite(hr->det_demand)) {
				d->dv[d->dv_n++] = hr->det_demand;
				hr->det_dgen = d->gen;
			}
			if (hr->rank < 0 || !isfinite(history_rank_get(hr,
			    HR_CPU, 0)) || detect_rank_level(hr, &x, &dx) == 0)
				continue;
			hr->det_level = (float)x;
			hr->det_gen = d->gen;
			d->lv[n++] = (float)x;
			if (isfinite(dx))
				v[nd++] = (float)dx;
		}
	}
	d->rank_n = n;
	detect_median_mad(v, nd, &dx, &mad);
	d->noise = nd > 0 ? dx / DETECT_DIFF_SIGMA : NAN;
	if (n > 0)
		qsort(d->lv, n, sizeof(*d->lv), detect_float_cmp);
	if (n > 0)
		memcpy(v, d->lv, n * sizeof(*v));
	detect_median_mad(v, n, &d->rank_med, &d->rank_mad);
	if (d->dv_n > 0) {
		qsort(d->dv, d->dv_n, sizeof(*d->dv), detect_float_cmp);
		memcpy(v, d->dv, d->dv_n * sizeof(*v));
	}
	detect_median_mad(v, d->dv_n, &d->dv_med, &d->dv_mad);
	detect_mpi_stats(d, v);
	d->valid = 1;
	d->since = 0;
}

/*
 * The peers of a rank: the median and MAD of the n sorted values lv
 * (levels or demands, of median med and MAD mad) without its own, own,
 * when it was counted (in): returns how many peers.
 */
static unsigned
detect_rank_peers(struct detect *d, const float *lv, unsigned n, double med0,
    double mad0, int in, float own, double *med, double *mad)
{
	float		*v;
	unsigned	 lo = 0, hi = n, mid, k;

	*med = med0;
	*mad = mad0;
	if (!in || n == 0)
		return n;
	if (n > DETECT_LOO_EXACT)
		return n - 1;
	/* Its own value: the first not below it in the sorted values. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (lv[mid] < own)
			lo = mid + 1;
		else
			hi = mid;
	}
	v = detect_scratch(d, n);
	for (k = 0; k < n; k++)
		if (k != lo)
			v[k - (k > lo)] = lv[k];
	detect_median_mad(v, n - 1, med, mad);
	return n - 1;
}

/*
 * The distance past which a rank is far from its peers: by its level
 * (DETECT_BY_LEVEL) or by its demand, %CPU plus run-queue delay
 * (DETECT_BY_DEMAND).  Sets the peers' median and the distance; returns
 * how many peers (0: none to compare with).
 */
#define DETECT_BY_LEVEL		0
#define DETECT_BY_DEMAND	1

static unsigned
detect_rank_thr(struct detect *d, const struct hist_rank *hr, int how,
    double *med, double *thr)
{
	double		mad;
	unsigned	np;

	if (how != DETECT_BY_LEVEL)
		np = detect_rank_peers(d, d->dv, d->dv_n, d->dv_med,
		    d->dv_mad, hr->det_dgen == d->gen, hr->det_demand, med,
		    &mad);
	else
		np = detect_rank_peers(d, d->lv, d->rank_n, d->rank_med,
		    d->rank_mad, hr->det_gen == d->gen, hr->det_level, med,
		    &mad);
	if (np == 0 || !isfinite(*med))
		return 0;
	*thr = d->conf.strag_mads * DETECT_MAD_SCALE * mad;
	if (isfinite(d->noise) && *thr < DETECT_NOISE_K * d->noise)
		*thr = DETECT_NOISE_K * d->noise;
	/* The relative gap is for levels.  Demands sit near 100% on an
	 * oversubscribed node, where a quarter of the median (25 points)
	 * would let a rank that sleeps a quarter of its time (25% CPU and
	 * 50% run-queue delay beside peers at 36% and 64%: seen in the lab
	 * with the suite beside it) pass for one that wanted the CPU as
	 * much as they did; their gap is DETECT_DEMAND_GAP points at least
	 * (with only the absolute 2, a rank whose delay dipped for a few
	 * samples was flagged straggler for 1.5 s in test-rank-exit). */
	if (how == DETECT_BY_LEVEL && *thr < d->conf.strag_frac * fabs(*med))
		*thr = d->conf.strag_frac * fabs(*med);
	if (how == DETECT_BY_DEMAND && *thr < DETECT_DEMAND_GAP)
		*thr = DETECT_DEMAND_GAP;
	if (*thr < DETECT_RANK_GAP)
		*thr = DETECT_RANK_GAP;
	return np;
}

/*
 * Is a rank at x far from its peers: its level from theirs (demand 0), or
 * its demand (%CPU plus run-queue delay) from theirs (demand 1)?  See
 * DETECT_PAST for the rule.  A rank already flagged straggler is still
 * far until it comes within DETECT_CLEAR_FRAC of the distance: a rank
 * whose level sits near the line (a straggler on a loaded node, its own
 * noise in the job's) does not flap between raised and cleared.
 */
static int
detect_rank_far(struct detect *d, const struct hist_rank *hr, int demand,
    double x, double *med)
{
	double		thr;
	unsigned	np;

	np = detect_rank_thr(d, hr, demand ? DETECT_BY_DEMAND :
	    DETECT_BY_LEVEL, med, &thr);
	if (np == 0 || !isfinite(x))
		return 0;
	if (!demand && (hr->flags & DF_STRAGGLER) != 0 && hr->det_by_cpu)
		thr *= DETECT_CLEAR_FRAC;
	if (np == 1)
		return *med - x > thr && x < DETECT_PAIR_RATIO * *med;
	return fabs(x - *med) > thr;
}

/*
 * DETECT_SLEEPER: a rank that sleeps while its peers queue for a CPU.  On an
 * oversubscribed node a rank's %CPU is its share, not what it wants:
 * ranks that compute flat out get 40% of a CPU each and wait 60% for
 * one; a rank that needs 25 ms of CPU every 100 ms gets its 25% and
 * waits 49% (when it wants a CPU it queues as they do), a demand of 74%
 * against their 100%.  Its level alone sits near the line (15 points
 * below the peers' median against a distance of 9 to 12 by their noise:
 * the lab's straggler beside a CPU hog and the rest of the suite was
 * flagged after 4 to 16 samples, once too late).  Its demand tells it
 * apart.  Where the job's ranks queue (the median demand DETECT_DEMAND_GAP
 * over the median level; without queueing a demand is its level and
 * this rule is off, so it flags nothing the level rule would not), a
 * rank whose demand is below its peers' by their robust distance and
 * DETECT_DEMAND_GAP, and whose level is below theirs by DETECT_SLEEP_PART
 * of the level rule's distance, is far.  Both need two peers or more;
 * the demand is the one the stats counted.
 */
#define DETECT_SLEEP_PART	0.5
#define DETECT_SLEEPER		(-1)	/* directions of detect_by_demand */
#define DETECT_HUNGRY		1

/*
 * Its mirror, DETECT_HUNGRY: a rank that works while its peers wait,
 * held back by its CPU.  The peers of a gloo or blocking-MPI job wait for
 * it blocked in the kernel (asleep, off the run queue); it computes and,
 * on a node whose CPUs are shared with something else (a busy loop per
 * core beside the lab's eight gloo workers), gets a quarter of a CPU and
 * queues for the rest.  Its level is above theirs by little (25% against
 * 11%: a gap near the level rule's distance when the other load makes the
 * job's sample-to-sample noise large, once flagged after 12 samples, its
 * bound 10), but its demand is far above theirs (49% against 27%).  Where
 * the rank itself queues (its demand DETECT_DEMAND_GAP over its level),
 * a rank whose demand is above its peers' by their robust distance and
 * DETECT_DEMAND_GAP, and whose level is above theirs by DETECT_SLEEP_PART
 * of the level rule's distance, is far.  Without queueing its demand is
 * its level and the rule is off.
 */
static int
detect_by_demand(struct detect *d, const struct hist_rank *hr, int dir,
    double level, double *dmed)
{
	double	med, thr;
	int	queues;

	if (!hr->det_dok || hr->det_dgen != d->gen || !isfinite(level))
		return 0;
	queues = dir == DETECT_SLEEPER ?
	    d->dv_med - d->rank_med >= DETECT_DEMAND_GAP :
	    hr->det_demand - level >= DETECT_DEMAND_GAP;
	if (!queues ||
	    detect_rank_thr(d, hr, DETECT_BY_LEVEL, &med, &thr) < 2 ||
	    !(dir * (level - med) > DETECT_SLEEP_PART * thr) ||
	    detect_rank_thr(d, hr, DETECT_BY_DEMAND, dmed, &thr) < 2)
		return 0;
	return dir * (hr->det_demand - *dmed) > thr;
}

/* Does node i's latest sample give any rank a rate? */
static int
detect_has_rates(const struct detect *d, int i)
{
	unsigned	k, n = history_nranks(d->h, i);

	for (k = 0; k < n; k++)
		if (isfinite(history_rank_get(history_rank_const(d->h, i, k),
		    HR_CPU, 0)))
			return 1;
	return 0;
}

/*
 * Refresh the medians once per round of samples (as many as live nodes).
 * Until there are peers to compare with, a sample that brings rank rates
 * refreshes them at once, so the first judgements need not wait a round.
 */
static void
detect_maybe_stats(struct detect *d, int i)
{
	d->since++;
	if (d->valid && d->since < (d->live_at_stats > 0 ?
	    d->live_at_stats : 1) && !(d->rank_n < 2 && d->rank_total >= 2 &&
	    detect_has_rates(d, i)))
		return;
	detect_stats(d);
}

/* Is x far from the median by the robust measure? */
static int
detect_far(const struct detect *d, double x, double med, double mad)
{
	double	thr;

	thr = d->conf.strag_mads * DETECT_MAD_SCALE * mad;
	if (thr < d->conf.strag_gap)
		thr = d->conf.strag_gap;
	if (thr < d->conf.strag_frac * fabs(med))
		thr = d->conf.strag_frac * fabs(med);
	return fabs(x - med) > thr;
}

static void	detect_emit(struct detect *, int, const struct hist_rank *,
		    unsigned, int, uint64_t, const char *, ...)
		    __attribute__((format(printf, 7, 8)));

/* Hand one raised or cleared flag to the callback. */
static void
detect_emit(struct detect *d, int node, const struct hist_rank *hr,
    unsigned flag, int raised, uint64_t ms, const char *fmt, ...)
{
	struct detect_event	ev;
	va_list			ap;

	if (d->cb == NULL)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = ms;
	ev.node = node;
	ev.is_rank = hr != NULL;
	ev.rank = hr != NULL ? hr->rank : -1;
	ev.pid = hr != NULL ? hr->pid : -1;
	ev.flag = flag;
	ev.raised = raised;
	ev.level = raised ? EV_WARN : EV_INFO;
	snprintf(ev.code, sizeof(ev.code), "%s%s", detect_flag_name(flag),
	    raised ? "" : "-cleared");
	va_start(ap, fmt);
	vsnprintf(ev.text, sizeof(ev.text), fmt, ap);
	va_end(ap);
	d->cb(d->arg, &ev);
}

/* "node3 rank 2 (pid 160)" or "node3 pid 160": every rank event names
 * its node first, as the node events do, so a line read alone (the log,
 * the report, a ticket) says where. */
static const char *
detect_who(char *buf, size_t size, const struct node_model *m,
    const struct hist_rank *hr)
{
	char	node[128];

	text_clean(node, sizeof(node), m != NULL && model_name(m) != NULL ?
	    model_name(m) : "?");
	if (hr->rank >= 0)
		snprintf(buf, size, "%s rank %lld (pid %lld)", node,
		    (long long)hr->rank, (long long)hr->pid);
	else
		snprintf(buf, size, "%s pid %lld", node, (long long)hr->pid);
	return buf;
}

/* A rank string field by name, or "?". */
static const char *
detect_str(const struct node_model *m, const struct minst *mi,
    const char *field)
{
	const char	*s;
	int		 f;

	if ((f = model_field_index(m, mi->group, field)) < 0 ||
	    (s = model_str(mi, (unsigned)f)) == NULL || *s == '\0')
		return "?";
	return s;
}

int
detect_is_helper(const struct node_model *m, const struct minst *mi)
{
	int64_t	v;
	int	f;

	return (f = model_field_index(m, mi->group, "helper")) >= 0 &&
	    model_value(mi, (unsigned)f, &v) && v != 0;
}

/* A delay of the rank as percent of the time, or NaN. */
static double
detect_delay(const struct node_model *m, const struct minst *mi,
    const char *field, double scale)
{
	double	v;
	int	f;

	if ((f = model_field_index(m, mi->group, field)) < 0 ||
	    !model_metric(m, mi, (unsigned)f, &v) || !isfinite(v))
		return NAN;
	return v * scale;
}

/*
 * A block I/O delay of DETECT_WAIT_PCT % of the time or more while in state
 * D is waiting on storage, and so is one of DETECT_IO_SURE_PCT % or more in
 * whatever state the sample found the rank (the delay accrues only while
 * it waits on block I/O: the state at one instant is a noisy sample of
 * the same fact, R or S between two synchronous writes); a run-queue
 * delay of DETECT_WAIT_PCT %, waiting for a CPU.
 * The sure share is of the time the rank did not queue for a CPU: on a
 * node whose CPUs are taken, a rank that writes synchronously waits 60%
 * for a CPU and 17% on storage, 42% of the rest, and the samples seldom
 * find it in D (the lab's iowait rank beside a busy loop on every core
 * was never said I/O-bound in 25 samples).  Where it does not queue the
 * two shares are one.
 * blkio_delay is in jiffies (its rate is percent of one CPU already),
 * rq_delay in ns (its rate in ns/s; 1e7 ns/s is 1%).
 */
#define DETECT_WAIT_PCT	5.0
#define DETECT_IO_SURE_PCT	25.0

int
detect_rank_waits(const struct node_model *m, const struct minst *mi,
    char *buf, size_t size)
{
	const char	*st;
	double		 io, rq, own;
	int		 f;

	buf[0] = '\0';
	io = detect_delay(m, mi, "blkio_delay", 1.0);
	rq = detect_delay(m, mi, "rq_delay", 1e-7);
	st = (f = model_field_index(m, mi->group, "state")) >= 0 ?
	    model_str(mi, (unsigned)f) : NULL;
	/* Its share of the time off the run queue. */
	own = io;
	if (isfinite(io) && isfinite(rq) && rq >= DETECT_WAIT_PCT)
		own = rq < 95 ? io * 100 / (100 - rq) : 100;
	if (isfinite(io) && io >= DETECT_WAIT_PCT && ((st != NULL &&
	    st[0] == 'D') || own >= DETECT_IO_SURE_PCT)) {
		if (own >= io + 1)
			snprintf(buf, size, "waiting on storage: block I/O "
			    "delay %.0f%% of the time, %.0f%% off the run "
			    "queue", io > 100 ? 100 : io, own > 100 ? 100 :
			    own);
		else
			snprintf(buf, size, "waiting on storage: block I/O "
			    "delay %.0f%% of the time", io > 100 ? 100 : io);
		return 1;
	}
	if (isfinite(rq) && rq >= DETECT_WAIT_PCT) {
		snprintf(buf, size, "waiting for a CPU: run-queue delay "
		    "%.0f%% of the time", rq > 100 ? 100 : rq);
		return 1;
	}
	return 0;
}

/* Memory: raise over mem_pct for mem_samples, clear under mem_clear_pct. */
static int
detect_memory(const struct detect *d, double pct, unsigned *run,
    unsigned flags)
{
	if (!isfinite(pct))
		return 0;
	if ((flags & DF_MEMORY) == 0) {
		*run = pct > d->conf.mem_pct ? *run + 1 : 0;
		return *run >= d->conf.mem_samples ? 1 : 0;
	}
	if (pct < d->conf.mem_clear_pct) {
		*run = 0;
		return -1;
	}
	return 0;
}

/* Straggler: count far and near samples; 1 raise, -1 clear, 0 nothing. */
static int
detect_straggle(const struct detect *d, int far, unsigned *nfar,
    unsigned *nnear, unsigned flags)
{
	if (far) {
		(*nfar)++;
		*nnear = 0;
	} else {
		(*nnear)++;
		*nfar = 0;
	}
	if ((flags & DF_STRAGGLER) == 0 && *nfar >= d->conf.strag_samples)
		return 1;
	if ((flags & DF_STRAGGLER) != 0 && *nnear >= d->conf.clear_samples)
		return -1;
	return 0;
}

/*
 * A rank under the median %CPU whose time on a CPU plus its time waiting
 * for one (the run-queue delay of its main thread) is not far from the
 * median of its peers wanted to run as much as the others and was not let: its node's
 * CPUs are oversubscribed (other jobs, OS noise, SMT siblings, a second
 * monitor), which is no sign of the rank's own work.  Only the %CPU rule
 * asks: a straggler there is a rank that runs less because it sleeps,
 * reads or waits for a child, not because it queues.
 */
static int
detect_starved(struct detect *d, const struct node_model *m,
    const struct minst *mi, struct hist_rank *hr, double level, double med)
{
	double	rq, peers;

	rq = detect_delay(m, mi, "rq_delay", 1e-7);
	hr->det_dok = isfinite(rq) && isfinite(level);
	hr->det_demand = hr->det_dok ? (float)(level + rq) : 0;
	if (!(level < med) || !isfinite(rq) || !(rq > 0))
		return 0;
	if (d->dv_n < 2)	/* no peer's demand known: against levels */
		return !detect_rank_far(d, hr, 0, level + rq, &peers);
	return !detect_rank_far(d, hr, 1, level + rq, &peers);
}

/* The rank's name in an event, made only when one is said. */
#define WHO	(detect_who(who, sizeof(who), m, hr), who)

/* Judge one rank of node i. */
static void
detect_rank(struct detect *d, int i, const struct node_model *m,
    const struct minst *mi, struct hist_rank *hr, uint64_t ms)
{
	char		 who[192], waits[96];
	double		 cpu, rd, wr, limit, pct;
	int		 idle, r, far = 0, mfar = 0, cfar = 0, by_mpi;
	int		 spinning, cjudge, dfar = 0;
	double		 share, level = NAN, med = NAN, dmed = NAN;

	if (hr->rank < 0 || !d->conf.ranks)
		cpu = NAN;	/* not a rank: only memory is judged */
	else
		cpu = history_rank_get(hr, HR_CPU, 0);
	rd = history_rank_get(hr, HR_READ, 0);
	wr = history_rank_get(hr, HR_WRITE, 0);

	/* Stalled: no CPU time and no I/O while the median rank works. */
	if (isfinite(cpu)) {
		idle = cpu < d->conf.idle_cpu && hr->dticks <= 0 &&
		    !(isfinite(rd) && rd > 0) && !(isfinite(wr) && wr > 0);
		if (idle && d->rank_n >= 2 && d->rank_med >= d->conf.busy_cpu)
			hr->det_idle++;
		else
			hr->det_idle = 0;
		if (!idle && (hr->flags & DF_STALLED) != 0) {
			hr->flags &= ~DF_STALLED;
			detect_emit(d, i, hr, DF_STALLED, 0, ms,
			    "%s progresses again (%.0f%% CPU)", WHO, cpu);
		} else if (idle && (hr->flags & DF_STALLED) == 0 &&
		    hr->det_idle >= d->conf.stall_samples) {
			hr->flags |= DF_STALLED;
			detect_emit(d, i, hr, DF_STALLED, 1, ms,
			    "%s made no progress for %u samples (state %s, "
			    "wchan %s%s%s) while the median rank runs at "
			    "%.0f%% CPU", WHO, hr->det_idle, detect_str(m, mi,
			    "state"), detect_str(m, mi, "wchan"),
			    detect_rank_waits(m, mi, waits, sizeof(waits)) ?
			    "; " : "", waits, d->rank_med);
		}
	}

	/* Straggler: far from its peers; a stalled rank is already flagged
	 * for what matters more.  The MPI rule judges by the rank's share
	 * of CPU time in MPI (HR_MPI, detect_mpi_far), the %CPU rule by its
	 * level against its peers' (detect_rank_far); far by either is far,
	 * near is near by both that judged. */
	by_mpi = isfinite(cpu) ? detect_mpi_far(d, m, hr, &mfar, &share) : 0;
	/* Either rule may find the rank far.  The %CPU rule judges too where
	 * the ranks do not spin in their library (their CPU then says who
	 * computes while the others wait, blocked in the kernel: a gloo or
	 * blocking MPI job, whose COMM% shares come and go with the few
	 * samples a mostly idle rank gets); where they spin, every rank
	 * shows 100% and only COMM% tells. */
	spinning = by_mpi != 0 && isfinite(d->spin_med) &&
	    d->spin_med >= d->conf.busy_cpu;
	cjudge = !spinning && isfinite(cpu) && d->rank_n >= 2 &&
	    hr->det_gen == d->gen;
	if (cjudge) {
		level = hr->det_level;
		cfar = detect_rank_far(d, hr, 0, level, &med);
		/* Before detect_starved: the demand the stats counted. */
		if (!cfar && detect_by_demand(d, hr, DETECT_SLEEPER, level,
		    &dmed))
			dfar = DETECT_SLEEPER;
		else if (!cfar && detect_by_demand(d, hr, DETECT_HUNGRY,
		    level, &dmed))
			dfar = DETECT_HUNGRY;
		cfar = !detect_starved(d, m, mi, hr, level, med) &&
		    (cfar || dfar != 0);
		if (!cfar)
			dfar = 0;
	}
	if (by_mpi == 1 || cjudge) {
		far = (by_mpi == 1 && mfar) || (cjudge && cfar);
		far = far && (hr->flags & DF_STALLED) == 0;
		r = detect_straggle(d, far, &hr->det_far, &hr->det_near,
		    hr->flags);
		by_mpi = by_mpi == 1 && mfar;	/* the rule that names it */
		if (r > 0)
			hr->det_by_cpu = !by_mpi;
		if (r > 0 && by_mpi) {
			hr->flags |= DF_STRAGGLER;
			detect_emit(d, i, hr, DF_STRAGGLER, 1, ms,
			    "%s spends %.0f%% of its CPU time in %s while the "
			    "other ranks' median spends %.0f%% there waiting, "
			    "for %u samples: the others wait for it", WHO,
			    share, detect_comm(m, hr), d->mpi_others,
			    hr->det_far);
		} else if (r > 0 && dfar != 0) {
			hr->flags |= DF_STRAGGLER;
			detect_emit(d, i, hr, DF_STRAGGLER, 1, ms,
			    "%s runs at %.0f%% CPU (%.0f%% over its last %d "
			    "samples) against the other ranks' median %.0f%% "
			    "and wants %s (%.0f%% with its wait for a CPU, "
			    "theirs %.0f%%): %s, for %u samples", WHO, cpu,
			    level, DETECT_PAST, med, dfar == DETECT_SLEEPER ?
			    "little more" : "far more", hr->det_demand, dmed,
			    dfar == DETECT_SLEEPER ? "it sleeps while they work" :
			    "it works while they wait", hr->det_far);
		} else if (r > 0) {
			hr->flags |= DF_STRAGGLER;
			detect_emit(d, i, hr, DF_STRAGGLER, 1, ms,
			    "%s runs at %.0f%% CPU (%.0f%% over its last %d "
			    "samples), far from the other ranks' median "
			    "%.0f%%, for %u samples", WHO, cpu, level,
			    DETECT_PAST, med, hr->det_far);
		} else if (r < 0) {
			hr->flags &= ~DF_STRAGGLER;
			detect_emit(d, i, hr, DF_STRAGGLER, 0, ms,
			    "%s is back near the median (%.0f%% CPU)", WHO,
			    cpu);
		}
	}

	/* Memory: one rank holding most of the limit: the job cgroup's, or
	 * the node's memory where it has none, or what the scheduler
	 * allocated a node when that is less (a node without a job cgroup:
	 * the job is held to its --mem there by the scheduler's accounting,
	 * or will be where cgroups enforce it). */
	limit = history_node_mem_limit(d->h, i);
	if (d->conf.mem_node > 0 && !(limit > 0 && limit <= d->conf.mem_node))
		limit = d->conf.mem_node;
	pct = limit > 0 ? history_rank_get(hr, HR_RSS, 0) * 100.0 / limit :
	    NAN;
	r = detect_memory(d, pct, &hr->det_mem, hr->flags);
	if (r > 0) {
		hr->flags |= DF_MEMORY;
		detect_emit(d, i, hr, DF_MEMORY, 1, ms,
		    "%s uses %.0f%% of the memory limit", WHO, pct);
	} else if (r < 0) {
		hr->flags &= ~DF_MEMORY;
		detect_emit(d, i, hr, DF_MEMORY, 0, ms,
		    "%s memory back to %.0f%% of the limit", WHO, pct);
	}
}

#undef WHO

long
detect_ranks(const struct detect *d)
{
	return d->conf.ranks && d->had_members ? d->members : -1;
}

/* The launcher's world where the ranks carry one (torchrun's WORLD_SIZE
 * where the scheduler counts one agent a node), else the scheduler's. */
long
detect_ntasks(const struct detect *d)
{
	int64_t	world = -1;
	int	i;

	for (i = 0; d->conf.ranks && i < d->nnodes; i++)
		if (d->nodes[i].world > world)
			world = d->nodes[i].world;
	if (world > 0)
		return world > LONG_MAX ? LONG_MAX : (long)world;
	return d->conf.ntasks > 0 ? d->conf.ntasks : -1;
}

void
detect_job_ended(struct detect *d)
{
	d->ended = 1;
}

static int
detect_member_cmp(const void *a, const void *b)
{
	const struct detect_member	*x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The member with rank id r among the first n (sorted), or NULL. */
static struct detect_member *
detect_member_find(struct detect_member *mem, unsigned n, int64_t r)
{
	unsigned	lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (mem[mid].rank == r)
			return &mem[mid];
		if (mem[mid].rank < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The process a member's events name: its pid and command (field fc). */
static void
detect_member_take(struct detect_member *mb, const struct minst *mi,
    int fc, int64_t pid)
{
	const char	*s = fc >= 0 ? model_str(mi, (unsigned)fc) : NULL;

	mb->pid = pid;
	text_clean(mb->comm, sizeof(mb->comm), s != NULL && *s != '\0' ? s :
	    "?");
}

static struct detect_member *
detect_mscratch(struct detect *d, size_t n)
{
	if (n > d->capmscratch) {
		d->capmscratch = n + n / 2 + 16;
		free(d->mscratch);
		d->mscratch = xreallocarray(NULL, d->capmscratch,
		    sizeof(*d->mscratch));
	}
	return d->mscratch;
}

/* "ranks 3 of 4", or "ranks 3" when the scheduler did not say. */
static void
detect_count_text(const struct detect *d, char *buf, size_t size)
{
	long	e = detect_ntasks(d);

	if (e > 0)
		snprintf(buf, size, "ranks %ld of %ld", d->members, e);
	else
		snprintf(buf, size, "ranks %ld", d->members);
}

/* The rank ids of n members (sorted) as "0-3,8", cut with ",..." to fit
 * size bytes. */
static void
detect_id_list(char *buf, size_t size, const struct detect_member *v,
    unsigned n)
{
	char		item[64];
	size_t		len = 0, il;
	unsigned	i, j;

	buf[0] = '\0';
	for (i = 0; i < n; i = j + 1) {
		for (j = i; j + 1 < n && v[j + 1].rank == v[j].rank + 1; j++)
			;
		if (j > i)
			snprintf(item, sizeof(item), "%s%lld-%lld",
			    i > 0 ? "," : "", (long long)v[i].rank,
			    (long long)v[j].rank);
		else
			snprintf(item, sizeof(item), "%s%lld",
			    i > 0 ? "," : "", (long long)v[i].rank);
		il = strlen(item);
		if (len + il + 5 > size) {
			if (len + 5 <= size)
				memcpy(buf + len, ",...", 5);
			return;
		}
		memcpy(buf + len, item, il + 1);
		len += il;
	}
}

/* The events of n members of a node that appeared (dir 1) or exited (-1)
 * in one sample: one each, or one for them all when they are many. */
static void
detect_emit_members(struct detect *d, int node, const char *name,
    const struct detect_member *v, unsigned n, int dir, uint64_t ms)
{
	struct detect_event	 ev;
	const char		*what = dir > 0 ? "appeared" : "exited";
	char			 ids[128], count[64];
	unsigned		 group, k;

	if (d->cb == NULL || n == 0)
		return;
	group = d->conf.member_group > 0 ? d->conf.member_group :
	    DETECT_GROUP_DEFAULT;
	detect_count_text(d, count, sizeof(count));
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = ms;
	ev.node = node;
	ev.member = dir;
	ev.raised = dir > 0;
	ev.level = dir > 0 ? EV_INFO : EV_WARN;
	snprintf(ev.code, sizeof(ev.code), "rank-%s", dir > 0 ? "appear" :
	    "exit");
	if (n >= group) {
		ev.rank = ev.pid = -1;
		ev.count = n;
		detect_id_list(ids, sizeof(ids), v, n);
		snprintf(ev.text, sizeof(ev.text), "%u ranks %s on %s "
		    "(ranks %s); %s", n, what, name, ids, count);
		d->cb(d->arg, &ev);
		return;
	}
	ev.is_rank = 1;
	ev.count = 1;
	for (k = 0; k < n; k++) {
		ev.rank = v[k].rank;
		ev.pid = v[k].pid;
		snprintf(ev.text, sizeof(ev.text), "rank %lld (pid %lld, %s) "
		    "%s on %s; %s", (long long)v[k].rank, (long long)v[k].pid,
		    v[k].comm, what, name, count);
		d->cb(d->arg, &ev);
	}
}

/*
 * Node i's ranks in this sample: the rank ids its processes carry.  An id
 * no process carries any more exited; a new one appeared (unless this is
 * the node's first sample: those were there before us).  A node without
 * the rank source says nothing about its ranks.
 */
static void
detect_members(struct detect *d, int i, const struct node_model *m,
    uint64_t ms)
{
	struct detect_node	*dn = &d->nodes[i];
	struct detect_member	*mb, *v;
	const struct minst	*mi;
	int64_t			 pid, rank, world;
	uint64_t		 cur, first_new = d->morder + 1;
	unsigned		 n0 = dn->nmemb, k, j, ngone = 0, nnew = 0;
	char			 name[256];
	int			 g, fp, fr, fc, fw;

	if (!d->conf.ranks || (g = model_group_index(m, "rank")) < 0)
		return;
	cur = ++dn->msamples;
	/* The fields by name once a sample, not once a process. */
	fp = model_field_index(m, (unsigned)g, "pid");
	fr = model_field_index(m, (unsigned)g, "rank");
	fc = model_field_index(m, (unsigned)g, "comm");
	fw = model_field_index(m, (unsigned)g, "world");
	dn->world = -1;
	for (mi = m->gfirst[g]; fp >= 0 && fr >= 0 && mi != NULL;
	    mi = mi->gnext) {
		if (!model_value(mi, (unsigned)fp, &pid) ||
		    !model_value(mi, (unsigned)fr, &rank) || rank < 0)
			continue;
		if (fw >= 0 && model_value(mi, (unsigned)fw, &world) &&
		    world > dn->world)
			dn->world = world;
		if ((mb = detect_member_find(dn->memb, n0, rank)) != NULL) {
			if (mb->seen != cur) {
				mb->seen = cur;
				mb->alt = NULL;
			}
			if (pid == mb->pid)
				mb->pid_seen = cur;
			else if (mb->alt == NULL)
				mb->alt = mi;
			continue;
		}
		/* New (a second process of a new id is merged below). */
		if (dn->nmemb == dn->capmemb) {
			dn->capmemb = dn->capmemb > 0 ? dn->capmemb * 2 : 8;
			dn->memb = xreallocarray(dn->memb, dn->capmemb,
			    sizeof(*dn->memb));
		}
		mb = &dn->memb[dn->nmemb++];
		memset(mb, 0, sizeof(*mb));
		mb->rank = rank;
		mb->order = ++d->morder;
		mb->seen = mb->pid_seen = cur;
		detect_member_take(mb, mi, fc, pid);
	}
	if (dn->nmemb > n0) {
		qsort(dn->memb, dn->nmemb, sizeof(*dn->memb), detect_member_cmp);
		for (k = j = 0; k < dn->nmemb; k++)
			if (j == 0 || dn->memb[j - 1].rank != dn->memb[k].rank)
				dn->memb[j++] = dn->memb[k];
		dn->nmemb = j;
	}

	/* Gone ones to the front of the scratch, new ones after them. */
	v = detect_mscratch(d, 2 * (size_t)dn->nmemb);
	for (k = j = 0; k < dn->nmemb; k++) {
		mb = &dn->memb[k];
		if (mb->seen != cur) {
			v[ngone++] = *mb;
			continue;
		}
		/* Its process ended, another with its id goes on. */
		if (mb->pid_seen != cur && mb->alt != NULL &&
		    model_value(mb->alt, (unsigned)fp, &pid))
			detect_member_take(mb, mb->alt, fc, pid);
		mb->alt = NULL;
		if (mb->order >= first_new && cur > 1)
			v[dn->nmemb + nnew++] = *mb;
		dn->memb[j++] = *mb;
	}
	dn->nmemb = j;
	d->members += (long)j - (long)n0;
	if (j > 0)
		d->had_members = 1;
	if (ngone == 0 && nnew == 0)
		return;
	text_clean(name, sizeof(name), model_name(m));
	if (!d->ended)
		detect_emit_members(d, i, name, v, ngone, -1, ms);
	detect_emit_members(d, i, name, v + (dn->nmemb + ngone), nnew, 1, ms);
}

/*
 * Verdicts with a hint: what is wrong and what to do, said once when it
 * has held DETECT_HINT_SAMPLES samples and cleared after as many without
 * it.  They are events (codes "pinned", "io-bound", "mem-growth" and
 * their "-cleared"), so the event log, --json, the recording, replay,
 * the summary and the report carry them; no DF_* flag (a rank can be a
 * straggler because it is pinned: the flag says what, the hint why).
 */
static void	detect_hint(struct detect *, int, const struct hist_rank *,
		    int, const char *, const char *, ...)
		    __attribute__((format(printf, 6, 7)));

static void
detect_hint(struct detect *d, int node, const struct hist_rank *hr,
    int raised, const char *code, const char *fmt, ...)
{
	struct detect_event	ev;
	va_list			ap;

	if (d->cb == NULL)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = d->hint_ms;
	ev.node = node;
	ev.is_rank = hr != NULL;
	ev.rank = hr != NULL ? hr->rank : -1;
	ev.pid = hr != NULL ? hr->pid : -1;
	ev.raised = raised;
	ev.level = raised ? EV_WARN : EV_INFO;
	snprintf(ev.code, sizeof(ev.code), "%s%s", code, raised ? "" :
	    "-cleared");
	va_start(ap, fmt);
	vsnprintf(ev.text, sizeof(ev.text), fmt, ap);
	va_end(ap);
	d->cb(d->arg, &ev);
}

/* Count a sample with (yes) or without a condition; 1 raise, -1 clear. */
static int
detect_hint_count(int yes, unsigned *run, unsigned *ok, int *on)
{
	if (yes) {
		(*run)++;
		*ok = 0;
	} else {
		(*ok)++;
		*run = 0;
	}
	if (!*on && *run >= DETECT_HINT_SAMPLES) {
		*on = 1;
		return 1;
	}
	if (*on && *ok >= DETECT_HINT_SAMPLES) {
		*on = 0;
		return -1;
	}
	return 0;
}

/*
 * Pinned: two or more ranks whose affinity is one CPU, the same one, on
 * a node of more CPUs: a binding mistake (srun --cpu-bind, taskset, an
 * MPI's --bind-to, OMP_PROC_BIND).  The text names the idlest other CPU,
 * "idle" when it is (DETECT_IDLE_CORE, from the per-core times), else
 * outside their affinity (a shared node, other work on it).
 */
static void
detect_pinning(struct detect *d, int i, const struct node_model *m)
{
	struct detect_node	*dn = &d->nodes[i];
	const struct minst	*mi;
	int64_t			 rank, n, mask;
	int64_t			 ids[63][8];
	unsigned		 cnt[63];
	double			 idle, best_idle = -1;
	int			 g, gc, fr, fa, fm, fh, fi, c, best = -1;
	int			 other = -1, yes = 0, r, npin = 0;
	char			 node[128], who[96];

	memset(cnt, 0, sizeof(cnt));
	if ((g = model_group_index(m, "rank")) < 0 ||
	    (fr = model_field_index(m, (unsigned)g, "rank")) < 0 ||
	    (fa = model_field_index(m, (unsigned)g, "cpus_allowed")) < 0 ||
	    (fm = model_field_index(m, (unsigned)g, "processor")) < 0)
		goto judge;
	fh = model_field_index(m, (unsigned)g, "helper");
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if (fh >= 0 && model_value(mi, (unsigned)fh, &n) && n != 0)
			continue;
		if (!model_value(mi, (unsigned)fr, &rank) || rank < 0)
			continue;
		/* Allowed one CPU: the one it runs on (processor). */
		if (!model_value(mi, (unsigned)fa, &n) || n != 1 ||
		    !model_value(mi, (unsigned)fm, &mask) || mask < 0 ||
		    mask >= 63)
			continue;
		c = (int)mask;
		if (cnt[c] < 8)
			ids[c][cnt[c]] = rank;
		cnt[c]++;
		if (best < 0 || cnt[c] > cnt[best])
			best = c;
	}
	if (best < 0 || cnt[best] < 2)
		goto judge;
	npin = (int)cnt[best];
	/* The CPU the others could use: the idlest other core. */
	if ((gc = model_group_index(m, "core")) >= 0 &&
	    (fi = model_field_index(m, (unsigned)gc, "idle")) >= 0) {
		for (mi = m->gfirst[gc]; mi != NULL; mi = mi->gnext) {
			c = mi->name != NULL ? atoi(mi->name) : -1;
			if (c < 0 || c == best || !model_metric(m, mi,
			    (unsigned)fi, &idle) || !isfinite(idle))
				continue;
			if (idle > best_idle) {
				best_idle = idle;
				other = c;
			}
		}
	}
	if (other < 0 && m->hello.ncpu > 1)
		other = best == 0 ? 1 : 0;	/* no per-core times */
	yes = other >= 0;
judge:
	r = detect_hint_count(yes, &dn->pin_run, &dn->pin_ok, &dn->pinned);
	if (r == 0)
		return;
	text_clean(node, sizeof(node), model_name(m));
	if (r < 0) {
		detect_hint(d, i, NULL, 0, "pinned", "%s: ranks no longer "
		    "share one CPU while another is free", node);
		return;
	}
	if (npin == 2)
		snprintf(who, sizeof(who), "ranks %lld and %lld",
		    (long long)ids[best][0], (long long)ids[best][1]);
	else {
		snprintf(who, sizeof(who), "%d ranks (", npin);
		for (c = 0; c < npin && c < 8; c++)
			snprintf(who + strlen(who), sizeof(who) - strlen(who),
			    "%s%lld", c > 0 ? ", " : "", (long long)ids[best][c]);
		snprintf(who + strlen(who), sizeof(who) - strlen(who), "%s)",
		    npin > 8 ? ", ..." : "");
	}
	if (best_idle >= DETECT_IDLE_CORE)
		detect_hint(d, i, NULL, 1, "pinned", "%s: %s share CPU %d while "
		    "CPU %d is idle: check --cpu-bind or taskset", node, who,
		    best, other);
	else
		detect_hint(d, i, NULL, 1, "pinned", "%s: %s share CPU %d while "
		    "CPU %d is outside their affinity (busy with other work): "
		    "check --cpu-bind or taskset", node, who, best, other);
}

/*
 * Memory growing toward the limit: the least-squares slope of the node's
 * memory in use over its last DETECT_MG_N samples, when the line fits
 * (DETECT_MG_FIT) and reaches the limit within DETECT_MG_HORIZON s: said
 * before the OOM killer acts, with the time left.  The memory is the job
 * cgroup's against its limit; where the scheduler allocated the node less
 * than that limit (no job cgroup holds the job to its --mem: the limit is
 * the node's own memory), the job's is its ranks' resident memory on the
 * node, against what the scheduler allocated (as for the memory rule).
 */
static void
detect_memgrow(struct detect *d, int i, const struct node_model *m,
    uint64_t ms)
{
	struct detect_node	*dn = &d->nodes[i];
	const struct hist_rank	*hr;
	double			 mem, limit, st = 0, sv = 0, stt = 0, stv = 0;
	double			 svv = 0, t, v, nn, slope, r2, den, left, x;
	unsigned		 k, j;
	int			 yes = 0, r, any;
	char			 node[128], a[32], b[32];

	mem = history_node_get(d->h, i, HN_MEM, 0);
	limit = history_node_mem_limit(d->h, i);
	if (d->conf.mem_node > 0 && !(limit > 0 && limit <=
	    d->conf.mem_node)) {
		limit = d->conf.mem_node;
		mem = 0;
		any = 0;
		for (k = 0; k < history_nranks(d->h, i); k++) {
			hr = history_rank_const(d->h, i, k);
			x = history_rank_get(hr, HR_RSS, 0);
			if (isfinite(x)) {
				mem += x;
				any = 1;
			}
		}
		if (!any)
			mem = NAN;
	}
	if (!isfinite(mem))
		return;
	dn->mg_t[dn->mg_head] = (double)ms / 1000.0;
	dn->mg_v[dn->mg_head] = mem;
	dn->mg_head = (dn->mg_head + 1) % DETECT_MG_N;
	if (dn->mg_len < DETECT_MG_N)
		dn->mg_len++;
	slope = left = NAN;
	if (dn->mg_len >= 10 && limit > 0) {
		nn = dn->mg_len;
		for (k = 0; k < dn->mg_len; k++) {
			j = (dn->mg_head + DETECT_MG_N - 1 - k) % DETECT_MG_N;
			t = dn->mg_t[j] - dn->mg_t[(dn->mg_head + DETECT_MG_N -
			    1) % DETECT_MG_N];
			v = dn->mg_v[j] / 1048576.0;
			st += t;
			sv += v;
			stt += t * t;
			stv += t * v;
			svv += v * v;
		}
		den = nn * stt - st * st;
		if (den > 0) {
			slope = (nn * stv - st * sv) / den;	/* MiB/s */
			r2 = nn * svv - sv * sv > 0 ? (nn * stv - st * sv) *
			    (nn * stv - st * sv) / (den * (nn * svv - sv *
			    sv)) : 0;
			left = (limit - mem) / 1048576.0 / slope;
			yes = slope > 0 && r2 >= DETECT_MG_FIT && left > 0 &&
			    left < DETECT_MG_HORIZON && mem > limit / 4;
		}
	}
	r = detect_hint_count(yes, &dn->mg_run, &dn->mg_ok, &dn->memgrow);
	if (r == 0)
		return;
	text_clean(node, sizeof(node), model_name(m));
	if (r < 0) {
		detect_hint(d, i, NULL, 0, "mem-growth", "%s: memory no "
		    "longer grows toward the limit", node);
		return;
	}
	snprintf(a, sizeof(a), "%.1f GB", mem / 1e9);
	snprintf(b, sizeof(b), "%.1f GB", limit / 1e9);
	detect_hint(d, i, NULL, 1, "mem-growth", "%s: memory grows %.1f "
	    "MB/s, %s of %s: the limit in about %.0f s: look for a leak, or "
	    "ask for more memory (--mem) before the OOM killer acts", node,
	    slope * 1.048576, a, b, left);
}

/*
 * I/O-bound: a rank in state D whose block I/O delay is a large part of
 * its time (detect_rank_waits) for DETECT_HINT_SAMPLES samples.
 */
static void
detect_iobound(struct detect *d, int i, const struct node_model *m,
    const struct minst *mi, struct hist_rank *hr)
{
	char	waits[96], who[192], node[128];
	int	r, yes;

	yes = hr->rank >= 0 && detect_rank_waits(m, mi, waits,
	    sizeof(waits)) && strncmp(waits, "waiting on storage", 18) == 0;
	r = detect_hint_count(yes, &hr->det_io, &hr->det_io_ok,
	    &hr->det_iobound);
	if (r == 0)
		return;
	detect_who(who, sizeof(who), m, hr);
	text_clean(node, sizeof(node), model_name(m));
	if (r > 0)
		detect_hint(d, i, hr, 1, "io-bound", "%s is I/O-bound (%s%s): "
		    "check its file system's load and the I/O pattern (many "
		    "small or synchronous writes)", who,
		    detect_str(m, mi, "state")[0] == 'D' ? "state D, " : "",
		    waits);
	else
		detect_hint(d, i, hr, 0, "io-bound", "%s no longer waits on "
		    "storage", who);
}

int
detect_alloc_mem_text(char *buf, size_t size, double peak, double limit)
{
	char	a[32], b[32];
	double	g;

	buf[0] = '\0';
	if (!(limit > 0) || !(peak > 0) || !(peak < DETECT_ALLOC_FRAC * limit))
		return 0;
	/* --mem: the peak plus a quarter, rounded up to GiB. */
	g = ceil(peak * 1.25 / 1073741824.0);
	text_bytes(a, sizeof(a), peak);
	text_bytes(b, sizeof(b), limit);
	snprintf(buf, size, "uses %s of %s memory per node at most: "
	    "--mem=%.0fG would do", a, b, g < 1 ? 1 : g);
	return 1;
}

int
detect_alloc_cpu_text(char *buf, size_t size, double peak, double cpus)
{
	unsigned	ask;

	buf[0] = '\0';
	if (!(cpus >= 2) || !(peak > 0) || !(peak < DETECT_ALLOC_FRAC * cpus))
		return 0;
	ask = (unsigned)ceil(peak * 1.25);
	snprintf(buf, size, "uses %.1f of %.3g CPUs per node at most: %u "
	    "CPU%s per node would do", peak, cpus, ask, ask == 1 ? "" : "s");
	return 1;
}

/* Node i's sample: the memory and CPUs the job used there (as the
 * summary counts them, summary.c); rcpu the CPUs of its ranks, NaN
 * none known. */
static void
detect_alloc_node(struct detect *d, int i, const struct node_model *m,
    double rcpu)
{
	struct detect_node	*dn = &d->nodes[i];
	double			 x, limit, peak, cpus;

	x = history_node_get(d->h, i, HN_MEM, 0);
	if (isfinite(x) && x > dn->al_mem)
		dn->al_mem = x;
	/* The job cgroup's, where the node has one (summary.c reads the
	 * same). */
	model_job_cgroup(m, &limit, &peak, &cpus);
	if (isfinite(limit))
		dn->al_limit = limit;
	if (peak > dn->al_mem)
		dn->al_mem = peak;
	/* Else its ranks' (summed in detect_node_sample's walk). */
	if (!isfinite(cpus))
		cpus = rcpu;
	if (isfinite(cpus) && cpus > dn->al_cpu)
		dn->al_cpu = cpus;
}

/* One allocation hint now yes or not: said when it changes. */
static void
detect_alloc_say(struct detect *d, int *said, int yes, int node,
    const char *code, const char *text, const char *what, uint64_t ms)
{
	if (yes == *said)
		return;
	*said = yes;
	d->hint_ms = ms;
	if (yes)
		detect_hint(d, node, NULL, 1, code, "the job %s", text);
	else
		detect_hint(d, node, NULL, 0, code, "the job now uses more "
		    "than a quarter of its %s", what);
}

/*
 * The allocation used a fraction: once the job has been watched
 * conf.alloc_ms, the most memory and CPUs it used on any node against
 * what the scheduler gave a node (conf.mem_node, else the job cgroups'
 * limit; conf.cpus_node), under DETECT_ALLOC_FRAC of it.  Judged once a
 * second of data; said once ("alloc-mem", "alloc-cpu"), on the node of
 * the peak, and cleared if the job later uses more.
 */
static void
detect_alloc(struct detect *d, int i, uint64_t ms)
{
	double	mem = 0, limit = 0, cpu = 0;
	char	text[160];
	int	j, at_mem = i, at_cpu = i;

	if (d->cb == NULL || !d->conf.ranks)
		return;
	if (d->al_first == 0)
		d->al_first = ms;
	if (ms < d->al_first + d->conf.alloc_ms || ms < d->al_last + 1000)
		return;
	d->al_last = ms;
	for (j = 0; j < d->nnodes; j++) {
		const struct detect_node *dn = &d->nodes[j];
		if ((d->conf.mem_node > 0 || dn->al_limit > 0) &&
		    dn->al_mem > mem) {
			mem = dn->al_mem;
			at_mem = j;
		}
		if (dn->al_limit > limit)
			limit = dn->al_limit;
		if (dn->al_cpu > cpu) {
			cpu = dn->al_cpu;
			at_cpu = j;
		}
	}
	if (d->conf.mem_node > 0 && mem > 0)
		limit = d->conf.mem_node;
	detect_alloc_say(d, &d->al_memsaid, detect_alloc_mem_text(text,
	    sizeof(text), mem, limit), at_mem, "alloc-mem", text, "memory",
	    ms);
	detect_alloc_say(d, &d->al_cpusaid, detect_alloc_cpu_text(text,
	    sizeof(text), cpu, d->conf.cpus_node), at_cpu, "alloc-cpu", text,
	    "CPUs", ms);
}

void
detect_node_sample(struct detect *d, int i, const struct node_model *m,
    uint64_t ms)
{
	struct detect_node	*dn;
	struct hist_rank	*hr;
	const struct minst	*mi;
	const char		*name = model_name(m);
	int64_t			 pid, start, rank, v;
	double			 x, rcpu = NAN;
	unsigned		 k;
	int			 g, r, fh;

	if (i < 0)
		return;
	detect_grow(d, i + 1);
	dn = &d->nodes[i];
	detect_maybe_stats(d, i);

	r = detect_memory(d, history_node_get(d->h, i, HN_MEMPCT, 0),
	    &dn->mem, dn->flags);
	x = history_node_get(d->h, i, HN_MEMPCT, 0);
	if (r > 0) {
		dn->flags |= DF_MEMORY;
		detect_emit(d, i, NULL, DF_MEMORY, 1, ms,
		    "%s memory at %.0f%% of its limit", name, x);
	} else if (r < 0) {
		dn->flags &= ~DF_MEMORY;
		detect_emit(d, i, NULL, DF_MEMORY, 0, ms,
		    "%s memory back to %.0f%% of its limit", name, x);
	}

	x = history_node_get(d->h, i, HN_CPU, 0);
	if (isfinite(x) && d->node_n >= d->conf.strag_min &&
	    isfinite(d->node_med)) {
		r = detect_straggle(d, detect_far(d, x, d->node_med,
		    d->node_mad), &dn->far, &dn->near, dn->flags);
		if (r > 0) {
			dn->flags |= DF_STRAGGLER;
			detect_emit(d, i, NULL, DF_STRAGGLER, 1, ms,
			    "%s CPU busy %.0f%%, far from the median node's "
			    "%.0f%%, for %u samples", name, x, d->node_med,
			    dn->far);
		} else if (r < 0) {
			dn->flags &= ~DF_STRAGGLER;
			detect_emit(d, i, NULL, DF_STRAGGLER, 0, ms,
			    "%s CPU back near the median (%.0f%%)", name, x);
		}
	}

	if ((g = model_group_index(m, "rank")) >= 0) {
		fh = model_field_index(m, (unsigned)g, "helper");
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			/* The launcher's helpers are never judged. */
			if (fh >= 0 && model_value(mi, (unsigned)fh, &v) &&
			    v != 0)
				continue;
			if (!history_rank_ident(m, mi, &pid, &start, &rank) ||
			    (hr = history_rank_find(d->h, i, pid, start)) ==
			    NULL)
				continue;
			detect_rank(d, i, m, mi, hr, ms);
			d->hint_ms = ms;
			detect_iobound(d, i, m, mi, hr);
			if (isfinite(hr->cur[HR_CPU]))
				rcpu = (isfinite(rcpu) ? rcpu : 0) +
				    hr->cur[HR_CPU] / 100.0;
		}
	}
	detect_recount(d, i);
	detect_members(d, i, m, ms);
	d->hint_ms = ms;
	dn->nio = 0;
	for (k = 0; k < history_nranks(d->h, i); k++)
		dn->nio += history_rank_const(d->h, i, k)->det_iobound != 0;
	detect_pinning(d, i, m);
	detect_memgrow(d, i, m, ms);
	detect_alloc_node(d, i, m, rcpu);
	detect_alloc(d, i, ms);
}

void
detect_alloc_said(const struct detect *d, int *mem, int *cpu)
{
	*mem = d->al_memsaid;
	*cpu = d->al_cpusaid;
}

void
detect_hint_counts(const struct detect *d, unsigned *pinned, unsigned *io,
    unsigned *memgrow)
{
	int	i;

	*pinned = *io = *memgrow = 0;
	for (i = 0; i < d->nnodes; i++) {
		*pinned += d->nodes[i].pinned != 0;
		*io += d->nodes[i].nio;
		*memgrow += d->nodes[i].memgrow != 0;
	}
}

void
detect_node_state(struct detect *d, int i, const char *name, int lost,
    const char *state, uint64_t ms)
{
	struct detect_node	*dn;

	if (i < 0)
		return;
	detect_grow(d, i + 1);
	dn = &d->nodes[i];
	dn->lost = lost;
	if (lost && (dn->flags & DF_LOST) == 0) {
		dn->flags |= DF_LOST;
		detect_emit(d, i, NULL, DF_LOST, 1, ms, "%s %s", name, state);
	} else if (!lost && (dn->flags & DF_LOST) != 0) {
		dn->flags &= ~DF_LOST;
		/* "back" only when live, never for "connecting" (D8). */
		if (strcmp(state, "live") == 0)
			detect_emit(d, i, NULL, DF_LOST, 0, ms, "%s back",
			    name);
		else
			detect_emit(d, i, NULL, DF_LOST, 0, ms, "%s %s", name,
			    state);
	}
}
