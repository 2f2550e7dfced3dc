/* SPDX-License-Identifier: ISC */
/*
 * summary: statistics kept per node and per rank over one pass of a
 * recording (never per sample), the flags paired into intervals, and the
 * verdict written from them.  Values come from the history (history.c),
 * so "CPU busy" or "memory in use" mean here what they mean in the
 * monitor's tables.  See summary.h for what the verdict says.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect.h"
#include "detect-gpu.h"
#include "feed.h"
#include "history.h"
#include "log.h"
#include "model.h"
#include "out.h"
#include "rec.h"
#include "summary.h"
#include "textsafe.h"
#include "xmalloc.h"

/* The catalogue row behind each summary metric (IB and FS are rows made
 * of others: metrics.h). */
static const struct {
	enum hist_node_metric	 row;
	int			 rate;	/* bytes/s: integrated to bytes */
} summary_src[SM_N] = {
	[SM_CPU] = { .row = HN_CPU },
	[SM_MEM] = { .row = HN_MEM },
	[SM_LOAD] = { .row = HN_LOAD },
	[SM_DISK] = { .row = HN_DISK, .rate = 1 },
	[SM_NET] = { .row = HN_NET, .rate = 1 },
	[SM_GPU] = { .row = HN_GPU },
	[SM_GPU_MEM] = { .row = HN_GPU_MEM },
	[SM_IB] = { .row = HN_IB, .rate = 1 },
	[SM_FS] = { .row = HN_FS, .rate = 1 },
};

static void
summary_stat_add(struct summary_stat *st, double v)
{
	if (!isfinite(v))
		return;
	if (st->n == 0 || v < st->min)
		st->min = v;
	if (st->n == 0 || v > st->max)
		st->max = v;
	st->sum += v;
	st->n++;
}

static double
summary_mean(const struct summary_stat *st)
{
	return st->n > 0 ? st->sum / (double)st->n : NAN;
}

struct summary *
summary_new(const struct rec_meta *meta, uint64_t t0, uint64_t t1)
{
	struct summary	*s;
	unsigned	 i;

	s = xcalloc(1, sizeof(*s));
	s->meta = meta;
	s->t0 = t0;
	s->t1 = t1 < t0 ? t0 : t1;
	s->h = history_new();
	history_resize(s->h, (int)meta->nnodes);
	s->nodes = xcalloc(meta->nnodes ? meta->nnodes : 1,
	    sizeof(*s->nodes));
	for (i = 0; i < meta->nnodes; i++)
		s->nodes[i].oom_raw = -1;
	s->noderanks = xcalloc(meta->nnodes ? meta->nnodes : 1,
	    sizeof(*s->noderanks));
	s->nnoderanks = xcalloc(meta->nnodes ? meta->nnodes : 1,
	    sizeof(*s->nnoderanks));
	s->hint = xcalloc(meta->nnodes ? meta->nnodes : 1,
	    sizeof(*s->hint));
	s->worst_node = s->worst_rank = -1;
	return s;
}

void
summary_free(struct summary *s)
{
	unsigned	i;

	if (s == NULL)
		return;
	for (i = 0; i < s->meta->nnodes; i++)
		free(s->noderanks[i]);
	free(s->noderanks);
	free(s->nnoderanks);
	free(s->hint);
	free(s->gidle);
	free(s->ranks);
	free(s->marks);
	free(s->notes);
	free(s->nodes);
	history_free(s->h);
	free(s);
}

const struct history *
summary_history(const struct summary *s)
{
	return s->h;
}

/* The rank of node i with this key, made on first sight. */
static struct summary_rank *
summary_rank_get(struct summary *s, unsigned i, int64_t key, int is_rank)
{
	struct summary_rank	*sr;
	size_t			 n = s->nnoderanks[i], j, k;

	for (j = 0; j < n; j++) {
		k = (s->hint[i] + j) % n;
		sr = &s->ranks[s->noderanks[i][k]];
		if (sr->key == key && sr->is_rank == is_rank) {
			s->hint[i] = (k + 1) % n;
			return sr;
		}
	}
	if (s->nranks == s->capranks) {
		s->capranks = s->capranks ? s->capranks * 2 : 64;
		s->ranks = xreallocarray(s->ranks, s->capranks,
		    sizeof(*s->ranks));
	}
	s->noderanks[i] = xreallocarray(s->noderanks[i], n + 1,
	    sizeof(**s->noderanks));
	s->noderanks[i][n] = s->nranks;
	s->nnoderanks[i] = n + 1;
	sr = &s->ranks[s->nranks++];
	memset(sr, 0, sizeof(*sr));
	sr->node = i;
	sr->key = key;
	sr->is_rank = is_rank;
	for (k = 0; k < HR_NMETRICS; k++)
		sr->now[k] = NAN;
	return sr;
}

/* A rank's peak RSS as the probe keeps it between samples, when it sends
 * one (a field "rss_peak" or "peak_rss"): 1 when present. */
static int
summary_rank_peak(const struct node_model *m, const struct minst *mi,
    double *v)
{
	int64_t	x;
	int	f;

	if (((f = model_field_index(m, mi->group, "rss_peak")) >= 0 ||
	    (f = model_field_index(m, mi->group, "peak_rss")) >= 0) &&
	    model_value(mi, (unsigned)f, &x) && x >= 0) {
		*v = (double)x;
		return 1;
	}
	return 0;
}

static void
summary_acc(double *a, double v)
{
	if (isfinite(v))
		*a = isfinite(*a) ? *a + v : v;
}

/* Mark a moment or start an interval. */
static struct summary_mark *
summary_mark_add(struct summary *s, uint64_t t, unsigned node,
    unsigned flag, int64_t who, int is_rank, const char *text)
{
	struct summary_mark	*mk;

	if (s->nmarks >= SUMMARY_MARKS_MAX) {
		s->marks_dropped++;
		return NULL;
	}
	if (s->nmarks == s->capmarks) {
		s->capmarks = s->capmarks ? s->capmarks * 2 : 32;
		s->marks = xreallocarray(s->marks, s->capmarks,
		    sizeof(*s->marks));
	}
	mk = &s->marks[s->nmarks++];
	memset(mk, 0, sizeof(*mk));
	mk->from = mk->to = t;
	mk->node = node;
	mk->flag = flag;
	mk->who = who;
	mk->is_rank = is_rank;
	snprintf(mk->text, sizeof(mk->text), "%s", text);
	return mk;
}

/* The job cgroup's values: CPUs in use (NaN unknown). */
static double
summary_cgroup(struct summary *s, unsigned i, const struct node_model *m)
{
	struct summary_node	*nd = &s->nodes[i];
	const struct minst	*mi;
	char			 text[128];
	double			 limit, peak, cpus;
	int64_t			 x;
	int			 g, f;

	if ((mi = model_job_cgroup(m, &limit, &peak, &cpus)) == NULL)
		return NAN;
	if (isfinite(limit))
		nd->mem_limit = limit;
	if (peak > nd->mem_peak)
		nd->mem_peak = peak;
	g = model_group_index(m, "cgroup");
	if ((f = model_field_index(m, (unsigned)g, "oom_kills")) >= 0 &&
	    model_value(mi, (unsigned)f, &x)) {
		if (nd->oom_raw >= 0 && x > nd->oom_raw) {
			nd->oom_kills += (uint64_t)(x - nd->oom_raw);
			nd->flags |= SUMMARY_F_OOM;
			snprintf(text, sizeof(text), "%lld process%s of the "
			    "job killed for memory (OOM)", (long long)(x -
			    nd->oom_raw), x - nd->oom_raw > 1 ? "es" : "");
			summary_mark_add(s, m->time_ms, i, SUMMARY_F_OOM, -1, 0,
			    text);
		}
		nd->oom_raw = x;
	}
	return cpus;
}

/* Every rank of the sample: its values now, summed over the processes
 * that carry one rank id; the CPUs they use together (NaN: none). */
static double
summary_ranks(struct summary *s, unsigned i, const struct node_model *m,
    double dt)
{
	const struct minst	*mi;
	const struct hist_rank	*hr;
	struct summary_rank	*sr;
	const char		*comm;
	size_t			 j;
	double			 v, cpus = NAN;
	int64_t			 pid, start, rank;
	unsigned		 k;
	int			 g, fc, fr;

	for (j = 0; j < s->nnoderanks[i]; j++) {
		sr = &s->ranks[s->noderanks[i][j]];
		for (k = 0; k < HR_NMETRICS; k++)
			sr->now[k] = NAN;
	}
	if ((g = model_group_index(m, OUT_RANK_GROUP)) < 0)
		return NAN;
	fc = model_field_index(m, (unsigned)g, "comm");
	fr = model_field_index(m, (unsigned)g, "rss");
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if (detect_is_helper(m, mi) ||
		    !history_rank_ident(m, mi, &pid, &start, &rank))
			continue;
		sr = summary_rank_get(s, i, rank >= 0 ? rank : pid, rank >= 0);
		if (sr->comm[0] == '\0' && fc >= 0 &&
		    (comm = model_str(mi, (unsigned)fc)) != NULL)
			snprintf(sr->comm, sizeof(sr->comm), "%s", comm);
		hr = history_rank_find(s->h, (int)i, pid, start);
		/* Processes of one rank: the sums add up, the others keep
		 * the last that has a value. */
		for (k = 0; hr != NULL && k < HR_NMETRICS; k++) {
			if (strcmp(rank_cat[k].agg, "sum") == 0)
				summary_acc(&sr->now[k], hr->cur[k]);
			else if (isfinite(hr->cur[k]))
				sr->now[k] = hr->cur[k];
		}
		if (hr == NULL && fr >= 0 && model_metric(m, mi, (unsigned)fr,
		    &v))
			summary_acc(&sr->now[HR_RSS], v);
		if (summary_rank_peak(m, mi, &v) && v > sr->rss_peak)
			sr->rss_peak = v;
	}
	for (j = 0; j < s->nnoderanks[i]; j++) {
		sr = &s->ranks[s->noderanks[i][j]];
		summary_stat_add(&sr->cpu, sr->now[HR_CPU]);
		summary_stat_add(&sr->rss, sr->now[HR_RSS]);
		if (isfinite(sr->now[HR_RSS]) && sr->now[HR_RSS] >
		    sr->rss_peak)
			sr->rss_peak = sr->now[HR_RSS];
		if (isfinite(sr->now[HR_CPU])) {
			sr->cpu_s += sr->now[HR_CPU] / 100.0 * dt;
			summary_acc(&cpus, sr->now[HR_CPU] / 100.0);
		}
	}
	return cpus;
}

void
summary_sample(struct summary *s, unsigned i, const struct node_model *m)
{
	struct summary_node	*nd;
	double			 v, x, dt, cg, rk, used;
	unsigned		 k, iv;

	if (m->schema == NULL || i >= s->meta->nnodes)
		return;
	nd = &s->nodes[i];
	history_node_sample(s->h, (int)i, m, m->time_ms);
	nd->samples++;
	if (m->have_hello) {
		nd->ncpu = m->hello.ncpu;
		nd->mem_total = m->hello.mem_total;
	}
	/* Rates cover the interval before this sample; the first has none
	 * (and a counter that restarted gives none either). */
	dt = m->nsamples > 1 && m->dt_ms > 0 ? m->dt_ms / 1000.0 : 0;
	for (k = 0; k < SM_N; k++) {
		v = history_node_get(s->h, (int)i, summary_src[k].row, 0);
		summary_stat_add(&nd->st[k], v);
		if (summary_src[k].rate && isfinite(v))
			nd->bytes[k] += v * dt;
	}
	x = history_node_get(s->h, (int)i, HN_MEM, 0);
	if (isfinite(x) && x > nd->mem_peak)
		nd->mem_peak = x;
	cg = summary_cgroup(s, i, m);
	rk = summary_ranks(s, i, m, dt);
	v = history_node_get(s->h, (int)i, HN_CPU, 0);
	used = NAN;
	if (isfinite(cg)) {
		used = cg;
		nd->cpu_src |= SUMMARY_CPU_CGROUP;
	} else if (isfinite(rk)) {
		used = rk;
		nd->cpu_src |= SUMMARY_CPU_RANKS;
	} else if (isfinite(v) && nd->ncpu > 0) {
		used = v / 100.0 * nd->ncpu;
		nd->cpu_src |= SUMMARY_CPU_NODE;
	}
	/* One span for both sides of the efficiency (summary.h): an
	 * interval while the node was lost, or one spanning a gap in its
	 * samples, counts in neither. */
	iv = m->have_hello && m->hello.interval_ms > 0 ?
	    m->hello.interval_ms : s->meta->interval_ms;
	if (dt > 0 && (nd->down || (iv > 0 &&
	    dt * 1000.0 > SUMMARY_GAP_INTERVALS * (double)iv)))
		nd->cpu_gap_s += dt;
	else if (isfinite(used) && nd->ncpu > 0 && dt > 0) {
		if ((isfinite(cg) || isfinite(rk)) && used > nd->cpu_peak)
			nd->cpu_peak = used;
		nd->cpu_used_s += used * dt;
		nd->cpu_alloc_s += nd->ncpu * dt;
		nd->cpu_meas_s += dt;
	}
}

double
summary_node_cpus(const struct summary *s, unsigned i)
{
	if (i >= s->meta->nnodes)
		return 0;
	if (s->meta->cpus > 0)
		return (double)s->meta->cpus / s->meta->nnodes;
	return s->nodes[i].ncpu;
}

double
summary_node_eff(const struct summary *s, unsigned i)
{
	double	c = summary_node_cpus(s, i);

	if (c <= 0 || s->nodes[i].cpu_meas_s <= 0)
		return NAN;
	return s->nodes[i].cpu_used_s / (c * s->nodes[i].cpu_meas_s) * 100.0;
}

const char *
summary_cpus_basis(const struct summary *s)
{
	return s->meta->cpus > 0 ? "the scheduler's CPUs" : "the node's CPUs";
}

/* Who a detector's flag is about: its rank, else its process, else the
 * node itself (who -1). */
static void
summary_who(const struct rec_subject *sj, int64_t *who, int *is_rank)
{
	*who = -1;
	*is_rank = 0;
	if (sj->rank >= 0) {
		*who = sj->rank;
		*is_rank = 1;
	} else if (sj->pid >= 0)
		*who = sj->pid;
}

/* The open interval of this flag, or NULL. */
static struct summary_mark *
summary_open(struct summary *s, unsigned node, unsigned flag, int64_t who,
    int is_rank)
{
	size_t	j;

	for (j = s->nmarks; j-- > 0;) {
		if (s->marks[j].open && s->marks[j].node == node &&
		    s->marks[j].flag == flag && s->marks[j].who == who &&
		    s->marks[j].is_rank == is_rank)
			return &s->marks[j];
	}
	return NULL;
}

static void
summary_raise(struct summary *s, unsigned node, uint64_t t, unsigned flag,
    int64_t who, int is_rank, const char *text)
{
	struct summary_mark	*mk;

	if (summary_open(s, node, flag, who, is_rank) != NULL)
		return;
	if ((mk = summary_mark_add(s, t, node, flag, who, is_rank,
	    text)) != NULL)
		mk->open = 1;
}

static void
summary_clear(struct summary *s, unsigned node, uint64_t t, unsigned flag,
    int64_t who, int is_rank)
{
	struct summary_mark	*mk;

	if ((mk = summary_open(s, node, flag, who, is_rank)) != NULL) {
		mk->to = t > mk->from ? t : mk->from;
		mk->open = 0;
	}
}

/* ---- gpu-idle (detect-gpu.h): kept apart from the flags above. ---- */

/* A gpu-idle event: 1 when it was one (kept, and marked on the charts). */
static int
summary_gpu_event(struct summary *s, uint32_t node, uint64_t t,
    const struct proto_event *ev)
{
	static const char	 key[] = " GPU ";
	size_t			 len = strlen(DETECT_GPU_FLAG), k;
	const char		*p;
	int64_t			 gpu;

	if (strncmp(ev->code, DETECT_GPU_FLAG, len) != 0 ||
	    node >= s->meta->nnodes ||
	    (p = strstr(ev->text, key)) == NULL)
		return 0;
	gpu = strtoll(p + sizeof(key) - 1, NULL, 10);
	if (ev->code[len] == '\0') {
		if (s->ngidle % 16 == 0)
			s->gidle = xreallocarray(s->gidle, s->ngidle + 16,
			    sizeof(*s->gidle));
		s->gidle[s->ngidle].node = node;
		s->gidle[s->ngidle].gpu = gpu;
		s->gidle[s->ngidle].from = t;
		s->gidle[s->ngidle++].to = 0;
		summary_mark_add(s, t, node, 0, -1, 0, ev->text);
	} else if (strcmp(ev->code + len, "-cleared") == 0) {
		for (k = s->ngidle; k-- > 0;)
			if (s->gidle[k].node == node && s->gidle[k].gpu ==
			    gpu && s->gidle[k].to == 0) {
				s->gidle[k].to = t > s->gidle[k].from ? t :
				    s->gidle[k].from + 1;
				break;
			}
	}
	return 1;
}

/* ---- end of gpu-idle events (its verdict: summary_v_gpu_idle) ---- */

/* The hint verdicts' event codes (detect.c); "-cleared" closes one. */
static const char *const summary_hint_codes[] = {
	"pinned", "io-bound", "mem-growth", NULL
};

/*
 * An early exit ("rank-exit") or a verdict with a hint: kept as a note
 * (the first of each code per node and rank; a hint's "-cleared" closes
 * it).  1 when the event was one of them.
 */
static int
summary_note_event(struct summary *s, uint32_t node, uint64_t t,
    const struct proto_event *ev, const struct rec_subject *sj)
{
	struct summary_note	*nt;
	const char		*code = ev->code;
	size_t			 j, len;
	int			 k, cleared = 0;

	if (strcmp(code, "rank-exit") != 0) {
		for (k = 0; summary_hint_codes[k] != NULL; k++) {
			len = strlen(summary_hint_codes[k]);
			if (strncmp(code, summary_hint_codes[k], len) == 0 &&
			    (code[len] == '\0' || strcmp(code + len,
			    "-cleared") == 0))
				break;
		}
		if (summary_hint_codes[k] == NULL)
			return 0;
		cleared = code[len] != '\0';
		code = summary_hint_codes[k];
	}
	if (node == REC_NODE_NONE || node >= s->meta->nnodes)
		return 1;
	for (j = 0; j < s->nnotes; j++) {
		nt = &s->notes[j];
		if (nt->node == node && nt->rank == sj->rank &&
		    strcmp(nt->code, code) == 0) {
			if (cleared)
				nt->open = 0;
			else if (strcmp(code, "rank-exit") != 0)
				nt->open = 1;
			return 1;
		}
	}
	if (cleared)
		return 1;
	if (s->nnotes >= SUMMARY_NOTES_MAX) {
		s->notes_dropped++;
		return 1;
	}
	if (s->nnotes == s->capnotes) {
		s->capnotes = s->capnotes > 0 ? s->capnotes * 2 : 8;
		s->notes = xreallocarray(s->notes, s->capnotes,
		    sizeof(*s->notes));
	}
	nt = &s->notes[s->nnotes++];
	memset(nt, 0, sizeof(*nt));
	nt->t = t;
	nt->node = node;
	nt->rank = sj->rank;
	nt->pid = sj->pid;
	nt->count = sj->rank >= 0 ? 1 : 0;
	nt->open = strcmp(code, "rank-exit") != 0;
	snprintf(nt->code, sizeof(nt->code), "%.31s", code);
	snprintf(nt->text, sizeof(nt->text), "%s", ev->text);
	/* "3 ranks exited on node2 (ranks 4-6); ..." */
	if (nt->count == 0 && strcmp(code, "rank-exit") == 0)
		nt->count = (unsigned)strtoul(ev->text, NULL, 10);
	return 1;
}

void
summary_event(struct summary *s, uint32_t node, uint64_t t,
    const struct proto_event *ev, const struct rec_subject *recorded)
{
	const struct rec_subject	*sj;
	struct rec_subject		 buf;
	const char			*name;
	size_t				 len;
	int64_t				 who;
	unsigned			 bit;
	int				 is_rank;

	if (node != REC_NODE_NONE && node >= s->meta->nnodes)
		return;
	sj = rec_subject_of(ev, recorded, &buf);
	if (summary_note_event(s, node, t, ev, sj))
		return;
	for (bit = 1; bit < (1u << DF_NFLAGS); bit <<= 1) {
		name = detect_flag_name(bit);
		len = strlen(name);
		if (strncmp(ev->code, name, len) != 0)
			continue;
		summary_who(sj, &who, &is_rank);
		if (ev->code[len] == '\0')
			summary_raise(s, node, t, bit, who, is_rank, ev->text);
		else if (strcmp(ev->code + len, "-cleared") == 0)
			summary_clear(s, node, t, bit, who, is_rank);
		return;
	}
	if (summary_gpu_event(s, node, t, ev))
		return;
	/* A node's state: its phase, the text ("lost: no data for 3 s",
	 * "failed: Connection refused") says why. */
	if (strcmp(ev->code, "state") == 0 && node != REC_NODE_NONE) {
		/* Not measured from lost or failed until live again. */
		if (sj->phase == FEED_LOST || sj->phase == FEED_FAILED)
			s->nodes[node].down = 1;
		else if (sj->phase == FEED_LIVE)
			s->nodes[node].down = 0;
		if (sj->phase == FEED_LOST)
			summary_raise(s, node, t, DF_LOST, -1, 0, ev->text);
		else {
			summary_clear(s, node, t, DF_LOST, -1, 0);
			if (sj->phase == FEED_FAILED)
				summary_raise(s, node, t, SUMMARY_F_FAILED, -1,
				    0, ev->text);
		}
	} else if (strcmp(ev->code, "stream-error") == 0)
		summary_mark_add(s, t, node, 0, -1, 0, ev->text);
}

/* The rank a flag names, or NULL. */
static struct summary_rank *
summary_rank_of(struct summary *s, const struct summary_mark *mk)
{
	struct summary_rank	*sr;
	size_t			 j;

	if (mk->who < 0 || mk->node >= s->meta->nnodes)
		return NULL;
	for (j = 0; j < s->nnoderanks[mk->node]; j++) {
		sr = &s->ranks[s->noderanks[mk->node][j]];
		if (sr->key == mk->who && sr->is_rank == mk->is_rank)
			return sr;
	}
	return NULL;
}

static int
summary_bit(unsigned flag)
{
	int	b;

	for (b = 0; b < DF_NFLAGS; b++)
		if (flag == (1u << b))
			return b;
	return -1;
}

int
summary_bit_index(unsigned flag)
{
	int	b;

	if ((b = summary_bit(flag)) >= 0)
		return b;
	return flag == SUMMARY_F_OOM ? DF_NFLAGS : flag == SUMMARY_F_FAILED ?
	    DF_NFLAGS + 1 : DF_NFLAGS + 2;
}

unsigned
summary_bit_flag(int c)
{
	if (c < DF_NFLAGS)
		return 1u << c;
	return c == DF_NFLAGS ? SUMMARY_F_OOM : c == DF_NFLAGS + 1 ?
	    SUMMARY_F_FAILED : 0;
}

uint64_t
summary_node_flags_ms(const struct summary_node *nd)
{
	uint64_t	t = 0;
	int		b;

	for (b = 0; b < DF_NFLAGS; b++)
		t += nd->flag_ms[b];
	return t;
}

static int
summary_cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the finite values (sorted in place), NaN when none. */
static double
summary_median(double *v, size_t n)
{
	size_t	i, k = 0;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	if (k == 0)
		return NAN;
	qsort(v, k, sizeof(*v), summary_cmp_double);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static struct summary_line *
summary_line(struct summary *s, const char *label, int bad)
{
	struct summary_line	*l;

	if (s->nlines >= SUMMARY_LINES_MAX)
		return NULL;
	l = &s->lines[s->nlines++];
	snprintf(l->label, sizeof(l->label), "%s", label);
	l->text[0] = '\0';
	l->bad = bad;
	return l;
}

/* Append to a line's text. */
static void
summary_cat(struct summary_line *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
summary_cat(struct summary_line *l, const char *fmt, ...)
{
	va_list	ap;
	size_t	len;

	if (l == NULL)
		return;
	len = strlen(l->text);
	va_start(ap, fmt);
	vsnprintf(l->text + len, sizeof(l->text) - len, fmt, ap);
	va_end(ap);
}

static const char *
summary_node_name(const struct summary *s, unsigned i)
{
	return i < s->meta->nnodes ? s->meta->nodes[i] : "(job)";
}

static void
summary_v_job(struct summary *s)
{
	struct summary_line	*l;
	char			 a[80], b[80], sp[48];
	unsigned		 i, ngpu;

	l = summary_line(s, "Job", 0);
	summary_time(b, sizeof(b), s->t1);
	summary_span(sp, sizeof(sp), (double)(s->t1 - s->t0) / 1000.0);
	if (s->meta->job[0] != '\0')
		summary_cat(l, "%s", s->meta->job);
	else
		summary_cat(l, "(a host list)");
	if (s->meta->name[0] != '\0')
		summary_cat(l, " \"%s\"", s->meta->name);
	if (s->meta->user[0] != '\0')
		summary_cat(l, " of %s", s->meta->user);
	summary_cat(l, ", %u node%s", s->meta->nnodes,
	    s->meta->nnodes == 1 ? "" : "s");
	if (s->meta->ntasks > 0)
		summary_cat(l, ", %ld tasks", s->meta->ntasks);
	if (s->meta->cpus > 0)
		summary_cat(l, ", %llu CPUs", (unsigned long long)
		    s->meta->cpus);
	if (s->meta->mem > 0) {
		text_bytes(a, sizeof(a), (double)s->meta->mem);
		summary_cat(l, ", %s of memory", a);
	}
	for (i = 0, ngpu = 0; s->meta->gpus != NULL && i < s->meta->nnodes;
	    i++)
		if (s->meta->gpus[i] > 0)
			ngpu += (unsigned)__builtin_popcountll(
			    (unsigned long long)s->meta->gpus[i]);
	if (ngpu > 0)
		summary_cat(l, ", %u GPU%s", ngpu, ngpu == 1 ? "" : "s");
	if (s->meta->time_limit >= 0) {
		summary_span(a, sizeof(a), (double)s->meta->time_limit);
		summary_cat(l, ", limit %s", a);
	} else if (s->meta->time_limit == REC_LIMIT_NONE)
		summary_cat(l, ", no time limit");
	if (s->meta->partition[0] != '\0')
		summary_cat(l, ", partition %s", s->meta->partition);
	summary_time(a, sizeof(a), s->t0);
	summary_cat(l, "; recorded %s to %s (%s)", a, b, sp);
}

static void
summary_v_cpu(struct summary *s)
{
	struct summary_line	*l;
	const struct summary_node *nd;
	double			 used = 0, alloc = 0, eff, meas = 0, span, miss;
	double			 lost;
	unsigned		 i, src = 0, ncpu = 0, nn = 0, said = 0, iv;
	char			 u[48], a[48], m[48], r[48], t[48];
	int			 b;

	/* One denominator (summary.h): each node's CPUs x the time it was
	 * measured, the numerator over the same intervals. */
	for (i = 0; i < s->meta->nnodes; i++) {
		nd = &s->nodes[i];
		src |= nd->cpu_src;
		if (nd->cpu_meas_s > 0 && summary_node_cpus(s, i) > 0) {
			used += nd->cpu_used_s;
			alloc += summary_node_cpus(s, i) * nd->cpu_meas_s;
			meas += nd->cpu_meas_s;
			ncpu += nd->ncpu;
			nn++;
		}
	}
	if (alloc <= 0) {
		l = summary_line(s, "CPU efficiency", 0);
		summary_cat(l, "unknown: no CPU time was measured (no job "
		    "cgroup, rank or node CPU over two samples)");
		return;
	}
	span = (double)(s->t1 - s->t0) / 1000.0;
	eff = used / alloc * 100.0;
	l = summary_line(s, "CPU efficiency", eff < 50);
	summary_span(u, sizeof(u), used);
	summary_span(a, sizeof(a), alloc);
	summary_span(m, sizeof(m), meas);
	summary_span(r, sizeof(r), span);
	summary_cat(l, "%.1f%%: %s of CPU time used of %s allocated ", eff,
	    u, a);
	if (s->meta->cpus > 0)
		summary_cat(l, "(%llu CPUs the scheduler allocated x the time "
		    "each node was measured, %.3g CPU%s a node", (unsigned long
		    long)s->meta->cpus, summary_node_cpus(s, 0),
		    summary_node_cpus(s, 0) == 1 ? "" : "s");
	else
		summary_cat(l, "(%u CPUs on %u node%s x the time each node was "
		    "measured; whole nodes assumed, the recording has no CPU "
		    "count from the scheduler", ncpu, nn, nn == 1 ? "" : "s");
	summary_cat(l, "; measured %s of %u node%s x %s recorded)", m,
	    s->meta->nnodes, s->meta->nnodes == 1 ? "" : "s", r);
	/* The time left out, said: nodes not measured for more than a few
	 * intervals (every node misses its first). */
	iv = s->meta->interval_ms > 0 ? s->meta->interval_ms : 1000;
	b = summary_bit(DF_LOST);
	for (i = 0; i < s->meta->nnodes; i++) {
		nd = &s->nodes[i];
		miss = span - nd->cpu_meas_s;
		if (miss * 1000.0 <= SUMMARY_GAP_INTERVALS * (double)iv)
			continue;
		if (said == 4) {
			summary_cat(l, ", ...");
			said++;
		}
		if (said++ > 4)
			continue;
		summary_span(t, sizeof(t), miss);
		summary_cat(l, "%s%s not measured for %s", said == 1 ? "; " :
		    ", ", summary_node_name(s, i), t);
		lost = b >= 0 ? (double)nd->flag_ms[b] / 1000.0 : 0;
		if (nd->cpu_meas_s <= 0)
			summary_cat(l, " (no CPU time)");
		else if (lost > 0) {
			summary_span(t, sizeof(t), lost);
			summary_cat(l, " (lost %s)", t);
		} else if (nd->cpu_gap_s > 0) {
			summary_span(t, sizeof(t), nd->cpu_gap_s);
			summary_cat(l, " (gaps of %s in its samples)", t);
		}
	}
	if (said > 0)
		summary_cat(l, ": the CPU time used then is not counted");
	if (s->meta->cpus == 0 && s->meta->ntasks > 0 &&
	    (unsigned long)s->meta->ntasks < ncpu)
		summary_cat(l, "; %.1f%% of %ld CPUs if the job has one per "
		    "task", used / (alloc * s->meta->ntasks / ncpu) * 100.0,
		    s->meta->ntasks);
	summary_cat(l, "; CPU time from %s", (src & SUMMARY_CPU_CGROUP) &&
	    src == SUMMARY_CPU_CGROUP ? "the job's cgroups" :
	    src == SUMMARY_CPU_RANKS ? "the ranks' processes" :
	    src == SUMMARY_CPU_NODE ? "the nodes' busy CPUs (no job cgroup "
	    "or ranks seen)" : "the job's cgroups, else its ranks, else the "
	    "nodes' busy CPUs");
}

static void
summary_v_mem(struct summary *s)
{
	struct summary_line	*l;
	const struct summary_node *nd;
	double			 peak = -1, sum = 0, limit = 0, pct;
	unsigned		 i, pi = 0, n = 0, nlim = 0, oom = 0;
	uint64_t		 kills = 0;
	char			 a[32], b[32], c[32];

	for (i = 0; i < s->meta->nnodes; i++) {
		nd = &s->nodes[i];
		if (nd->st[SM_MEM].n == 0)
			continue;
		if (nd->mem_peak > peak) {
			peak = nd->mem_peak;
			pi = i;
		}
		sum += summary_mean(&nd->st[SM_MEM]);
		n++;
		if (nd->mem_limit > 0)
			nlim++;
		kills += nd->oom_kills;
		oom += nd->oom_kills > 0;
	}
	if (n == 0) {
		l = summary_line(s, "Memory", 0);
		summary_cat(l, "unknown: no node sent memory");
		return;
	}
	nd = &s->nodes[pi];
	/* The scheduler's request, shared evenly by the nodes, else the
	 * job cgroup's limit on the peak node. */
	if (s->meta->mem > 0 && s->meta->nnodes > 0)
		limit = (double)s->meta->mem / s->meta->nnodes;
	else
		limit = nd->mem_limit;
	pct = limit > 0 ? peak / limit * 100 : NAN;
	l = summary_line(s, "Memory", kills > 0 || pct >= 90);
	text_bytes(a, sizeof(a), peak);
	text_bytes(b, sizeof(b), sum / n);
	summary_cat(l, "peak %s on %s", a, summary_node_name(s, pi));
	if (s->meta->mem > 0 && limit > 0) {
		text_bytes(c, sizeof(c), limit);
		summary_cat(l, " (%.0f%% of the %s requested per node", pct,
		    c);
		if (s->meta->nnodes > 1) {
			text_bytes(c, sizeof(c), (double)s->meta->mem);
			summary_cat(l, ", %s in all shared evenly", c);
		}
		summary_cat(l, ", from the scheduler)");
	} else if (limit > 0) {
		text_bytes(c, sizeof(c), limit);
		summary_cat(l, " (%.0f%% of the %s requested there, the job "
		    "cgroup's limit)", pct, c);
	} else if (nd->mem_total > 0) {
		text_bytes(c, sizeof(c), (double)nd->mem_total);
		summary_cat(l, " (%.0f%% of the node's %s)", peak /
		    (double)nd->mem_total * 100, c);
	}
	summary_cat(l, ", mean %s per node", b);
	if (s->meta->mem == 0 && nlim == 0)
		summary_cat(l, "; the request is unknown (no job cgroup "
		    "limit was seen): memory is the node's in use");
	else if (s->meta->mem == 0 && nlim < n)
		summary_cat(l, "; the request is known on %u of %u nodes",
		    nlim, n);
	if (kills > 0)
		summary_cat(l, "; %llu process%s killed for memory (OOM) on %u "
		    "node%s", (unsigned long long)kills, kills > 1 ? "es" : "",
		    oom, oom > 1 ? "s" : "");
}

static void
summary_v_gpu(struct summary *s)
{
	struct summary_line	*l;
	const struct summary_node *nd;
	double			 sum = 0, lo = INFINITY, hi = 0, mem = 0, v;
	unsigned		 i, n = 0, li = 0, mi = 0;
	char			 a[32];

	for (i = 0; i < s->meta->nnodes; i++) {
		nd = &s->nodes[i];
		if (nd->st[SM_GPU].n == 0)
			continue;
		v = summary_mean(&nd->st[SM_GPU]);
		sum += v;
		n++;
		if (v < lo) {
			lo = v;
			li = i;
		}
		if (nd->st[SM_GPU].max > hi)
			hi = nd->st[SM_GPU].max;
		if (nd->st[SM_GPU_MEM].n > 0 && nd->st[SM_GPU_MEM].max > mem) {
			mem = nd->st[SM_GPU_MEM].max;
			mi = i;
		}
	}
	if (n == 0)
		return;
	l = summary_line(s, "GPU", sum / n < 50);
	summary_cat(l, "utilisation (duty cycle) mean %.0f%% over %u node%s, "
	    "peak %.0f%%", sum / n, n, n > 1 ? "s" : "", hi);
	if (n > 1)
		summary_cat(l, ", lowest node %s at %.0f%%",
		    summary_node_name(s, li), lo);
	if (mem > 0) {
		text_bytes(a, sizeof(a), mem);
		summary_cat(l, "; GPU memory peak %s on %s", a,
		    summary_node_name(s, mi));
	}
}

/* ---- gpu-idle verdict (detect-gpu.h) ---- */
/* "Idle GPUs: node1 GPU 1 idle 3 min 10 s (allocated, no rank used
 * it)", the longest first few. */
static void
summary_v_gpu_idle(struct summary *s)
{
	struct summary_line	*l;
	char			 a[48];
	size_t			 k;
	uint64_t		 to;

	if (s->ngidle == 0)
		return;
	l = summary_line(s, "Idle GPUs", 1);
	for (k = 0; k < s->ngidle && k < 6; k++) {
		to = s->gidle[k].to != 0 ? s->gidle[k].to : s->t1;
		summary_span(a, sizeof(a), to > s->gidle[k].from ?
		    (double)(to - s->gidle[k].from) / 1000.0 : 0);
		summary_cat(l, "%s%s GPU %lld idle %s%s", k > 0 ? "; " : "",
		    summary_node_name(s, s->gidle[k].node),
		    (long long)s->gidle[k].gpu, a, s->gidle[k].to == 0 ?
		    " (to the end)" : "");
	}
	if (s->ngidle > 6)
		summary_cat(l, "; %zu more", s->ngidle - 6);
	summary_cat(l, ": allocated to the job, no rank used it for %u "
	    "samples or more; check that each rank selects its own GPU, or "
	    "request fewer", DETECT_GPU_IDLE_SAMPLES);
}

/* ---- end of gpu-idle verdict ---- */

static void
summary_v_io(struct summary *s)
{
	static const struct {
		enum summary_metric	 k;
		const char		*what;
	} io[] = {
		{ SM_DISK, "disk" }, { SM_NET, "network" },
		{ SM_FS, "Lustre and NFS" }, { SM_IB, "InfiniBand" },
	};
	struct summary_line	*l = NULL;
	double			 tot, peak;
	unsigned		 i, j, n, pi;
	char			 a[32], b[32];

	for (j = 0; j < sizeof(io) / sizeof(io[0]); j++) {
		tot = peak = 0;
		n = pi = 0;
		for (i = 0; i < s->meta->nnodes; i++) {
			if (s->nodes[i].st[io[j].k].n == 0)
				continue;
			n++;
			tot += s->nodes[i].bytes[io[j].k];
			if (s->nodes[i].st[io[j].k].max > peak) {
				peak = s->nodes[i].st[io[j].k].max;
				pi = i;
			}
		}
		if (n == 0)
			continue;
		if (l == NULL)
			l = summary_line(s, "I/O", 0);
		else
			summary_cat(l, "; ");
		text_bytes(a, sizeof(a), tot);
		text_bytes(b, sizeof(b), peak);
		summary_cat(l, "%s %s in all (peak %s/s on %s)", io[j].what, a,
		    b, summary_node_name(s, pi));
	}
}

static const char *
summary_flag_word(unsigned flag)
{
	if (flag == SUMMARY_F_OOM)
		return "oom";
	if (flag == SUMMARY_F_FAILED)
		return "failed";
	return detect_flag_name(flag) != NULL ? detect_flag_name(flag) :
	    "error";
}

static void
summary_v_flags(struct summary *s)
{
	static const unsigned	 order[] = { DF_STALLED, DF_STRAGGLER,
	    DF_MEMORY, DF_LOST, SUMMARY_F_FAILED, SUMMARY_F_OOM };
	struct summary_line	*l;
	const struct summary_mark *mk, *longest;
	uint64_t		 tot;
	unsigned		 j, n, nn;
	size_t			 k;
	char			 a[48], b[48], who[160];
	int			 any = 0;

	l = summary_line(s, "Flags", 0);
	for (j = 0; j < sizeof(order) / sizeof(order[0]); j++) {
		tot = 0;
		n = nn = 0;
		longest = NULL;
		for (k = 0; k < s->nmarks; k++) {
			mk = &s->marks[k];
			if (mk->flag != order[j])
				continue;
			n++;
			nn += mk->who < 0;
			tot += mk->to - mk->from;
			if (longest == NULL || mk->to - mk->from >
			    longest->to - longest->from)
				longest = mk;
		}
		if (n == 0)
			continue;
		l->bad = 1;
		if (any++)
			summary_cat(l, "; ");
		summary_cat(l, "%s %u time%s", summary_flag_word(order[j]), n,
		    n > 1 ? "s" : "");
		if (order[j] == SUMMARY_F_OOM) {
			summary_cat(l, " (%s)", longest->text);
			continue;
		}
		summary_span(a, sizeof(a), (double)tot / 1000.0);
		summary_span(b, sizeof(b), (double)(longest->to -
		    longest->from) / 1000.0);
		if (longest->who >= 0)
			snprintf(who, sizeof(who), "%s %s %lld",
			    summary_node_name(s, longest->node),
			    longest->is_rank ? "rank" : "pid",
			    (long long)longest->who);
		else
			snprintf(who, sizeof(who), "%s",
			    summary_node_name(s, longest->node));
		summary_cat(l, ", %s in all; longest %s, %s%s", a, who, b,
		    longest->open ? " (until the end)" : "");
	}
	if (!any)
		summary_cat(l, "none raised");
	if (s->marks_dropped > 0)
		summary_cat(l, " (%zu more events not counted)",
		    s->marks_dropped);
}

/* "lost 1 min 5 s, stalled 30 s" for a node or rank's flags. */
static void
summary_flag_list(struct summary *s, struct summary_line *l, unsigned node,
    const struct summary_rank *sr)
{
	const struct summary_mark *mk;
	uint64_t		 t;
	unsigned		 j, flag;
	size_t			 k;
	char			 a[48];
	int			 any = 0;

	for (j = 0; j < DF_NFLAGS + 2; j++) {
		flag = j < DF_NFLAGS ? 1u << j : j == DF_NFLAGS ?
		    SUMMARY_F_FAILED : SUMMARY_F_OOM;
		t = 0;
		for (k = 0; k < s->nmarks; k++) {
			mk = &s->marks[k];
			if (mk->flag != flag || mk->node != node ||
			    (sr != NULL && summary_rank_of(s, mk) != sr))
				continue;
			t += mk->to - mk->from + 1;
		}
		if (t == 0)
			continue;
		summary_cat(l, "%s%s", any++ ? ", " : "",
		    summary_flag_word(flag));
		if (flag != SUMMARY_F_OOM) {
			summary_span(a, sizeof(a), (double)(t - 1) / 1000.0);
			summary_cat(l, " for %s", a);
		}
	}
}

static int	summary_v_exit(struct summary *, struct summary_line *);

static void
summary_v_worst(struct summary *s)
{
	struct summary_line	*l;
	const struct summary_node *nd;
	const struct summary_rank *sr;
	double			*v, med, lo = INFINITY, x;
	uint64_t		 t, best = 0;
	unsigned		 i, n = s->meta->nnodes;
	size_t			 j, k;
	char			 name[200];
	long			 flagged;

	/* The node flagged longest (failed and OOM count first), else the
	 * one furthest below the median CPU. */
	for (i = 0; i < n; i++) {
		nd = &s->nodes[i];
		t = summary_node_flags_ms(nd) + ((nd->flags &
		    (SUMMARY_F_FAILED | SUMMARY_F_OOM)) ? (UINT64_MAX >> 2) :
		    0);
		if (t > best) {
			best = t;
			s->worst_node = i;
		}
	}
	l = summary_line(s, "Worst node", best > 0);
	if (s->worst_node >= 0) {
		summary_cat(l, "%s: ", summary_node_name(s,
		    (unsigned)s->worst_node));
		summary_flag_list(s, l, (unsigned)s->worst_node, NULL);
		summary_cat(l, " (flags of the node or its ranks)");
	} else if (n > 0) {
		v = xcalloc(n, sizeof(*v));
		for (i = 0; i < n; i++) {
			v[i] = summary_mean(&s->nodes[i].st[SM_CPU]);
			if (isfinite(v[i]) && v[i] < lo) {
				lo = v[i];
				s->worst_node = i;
			}
		}
		med = summary_median(v, n);
		free(v);
		if (s->worst_node < 0)
			summary_cat(l, "none: no node sent CPU data");
		else if (n == 1)
			summary_cat(l, "%s, the only node: nothing flagged, "
			    "CPU busy %.0f%% on average",
			    summary_node_name(s, 0), lo);
		else if (med - lo < 10) {
			summary_cat(l, "none stands out: nothing flagged, the "
			    "lowest CPU busy (%s, %.0f%% on average) is near "
			    "the median node's %.0f%%", summary_node_name(s,
			    (unsigned)s->worst_node), lo, med);
			s->worst_node = -1;
		} else
			summary_cat(l, "%s: nothing flagged; the lowest CPU "
			    "busy, %.0f%% on average against the median "
			    "node's %.0f%%", summary_node_name(s,
			    (unsigned)s->worst_node), lo, med);
	}

	/* The rank flagged longest, else the one furthest below the
	 * median CPU. */
	best = 0;
	for (j = 0; j < s->nranks; j++) {
		if (s->ranks[j].flag_ms + (s->ranks[j].flags != 0) > best) {
			best = s->ranks[j].flag_ms + (s->ranks[j].flags != 0);
			s->worst_rank = (long)j;
		}
	}
	l = summary_line(s, "Worst rank", best > 0);
	if (s->nranks == 0) {
		summary_cat(l, "none: no rank or process of the job was "
		    "recorded");
		return;
	}
	/* A rank that exited while the others went on comes first (D7): the
	 * job cannot end well without it, whatever else was flagged (a
	 * loaded node's rank flagged straggler for two seconds beside it
	 * named the wrong culprit); the rank flagged longest follows. */
	flagged = s->worst_rank;
	s->worst_rank = -1;
	if (summary_v_exit(s, l)) {
		if (flagged >= 0) {
			sr = &s->ranks[flagged];
			summary_rank_name(s, sr, name, sizeof(name));
			summary_cat(l, "; flagged longest: %s: ", name);
			summary_flag_list(s, l, sr->node, sr);
		}
		return;
	}
	s->worst_rank = flagged;
	if (s->worst_rank >= 0) {
		sr = &s->ranks[s->worst_rank];
		summary_rank_name(s, sr, name, sizeof(name));
		summary_cat(l, "%s: ", name);
		summary_flag_list(s, l, sr->node, sr);
		summary_cat(l, "; CPU %.0f%% of a CPU on average, peak RSS ",
		    summary_mean(&sr->cpu));
		text_bytes(name, sizeof(name), sr->rss_peak);
		summary_cat(l, "%s", name);
		return;
	}
	/* lo still held the lowest node's CPU: a rank at or above it was
	 * never taken, so a node idle at 0% hid every rank. */
	lo = INFINITY;
	v = xcalloc(s->nranks, sizeof(*v));
	for (j = k = 0; j < s->nranks; j++) {
		x = summary_mean(&s->ranks[j].cpu);
		v[k++] = x;
		if (isfinite(x) && x < lo) {
			lo = x;
			s->worst_rank = (long)j;
		}
	}
	med = summary_median(v, k);
	free(v);
	if (s->worst_rank < 0) {
		summary_cat(l, "none: no rank's CPU was measured");
		return;
	}
	sr = &s->ranks[s->worst_rank];
	summary_rank_name(s, sr, name, sizeof(name));
	if (s->nranks > 1 && med - lo < 10) {
		summary_cat(l, "none stands out: nothing flagged, the lowest "
		    "CPU (%s, %.0f%% of a CPU on average) is near the median "
		    "rank's %.0f%%", name, lo, med);
		s->worst_rank = -1;
		return;
	}
	summary_cat(l, "%s: nothing flagged; the lowest CPU, %.0f%% of a CPU "
	    "on average against the median rank's %.0f%%, peak RSS ", name,
	    lo, med);
	text_bytes(name, sizeof(name), sr->rss_peak);
	summary_cat(l, "%s", name);
}

/* "23:41:23" in the local time zone. */
static void
summary_clock(char *buf, size_t size, uint64_t ms)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	if (localtime_r(&t, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	strftime(buf, size, "%H:%M:%S", &tm);
}

/* An exit is early when ranks went on after it for a while: not the
 * ranks of a job that ends, leaving one sample apart. */
#define SUMMARY_EXIT_BEFORE_MS	5000

/*
 * The ranks that exited while others went on, the first named: "rank 2
 * on node3 exited at 23:41:23 while 3 ranks went on".  0 when none.
 */
static int
summary_v_exit(struct summary *s, struct summary_line *l)
{
	const struct summary_note *nt, *first = NULL;
	const struct summary_rank *sr;
	long			 known = 0, gone = 0, more = 0, left;
	size_t			 j;
	char			 at[16], pid[64];

	for (j = 0; j < s->nranks; j++)
		known += s->ranks[j].is_rank;
	for (j = 0; j < s->nnotes; j++) {
		nt = &s->notes[j];
		if (strcmp(nt->code, "rank-exit") != 0 ||
		    nt->t + SUMMARY_EXIT_BEFORE_MS > s->t1)
			continue;
		gone += nt->count > 0 ? nt->count : 1;
		if (first == NULL && known - gone > 0)
			first = nt;
		else
			more += nt->count > 0 ? nt->count : 1;
	}
	s->exit_ranks = first != NULL ? 1 + more : 0;
	if (first == NULL)
		return 0;
	l->bad = 1;
	left = known;
	for (j = 0; j < s->nnotes; j++)
		if (strcmp(s->notes[j].code, "rank-exit") == 0 &&
		    s->notes[j].t <= first->t)
			left -= s->notes[j].count > 0 ? s->notes[j].count : 1;
	summary_clock(at, sizeof(at), first->t);
	pid[0] = '\0';
	if (first->rank >= 0)
		snprintf(pid, sizeof(pid), "rank %lld", (long long)first->rank);
	else
		snprintf(pid, sizeof(pid), "%u ranks", first->count);
	summary_cat(l, "%s on %s exited at %s while %ld rank%s went on", pid,
	    summary_node_name(s, first->node), at, left, left == 1 ? "" : "s");
	for (j = 0; first->rank >= 0 && j < s->nnoderanks[first->node]; j++) {
		sr = &s->ranks[s->noderanks[first->node][j]];
		if (sr->is_rank && sr->key == first->rank) {
			summary_cat(l, " (pid %lld, %s, %.0f%% of a CPU on "
			    "average before)", (long long)first->pid,
			    sr->comm[0] != '\0' ? sr->comm : "?",
			    summary_mean(&sr->cpu));
			break;
		}
	}
	if (first->rank < 0)
		summary_cat(l, " (%s)", first->text);
	if (more > 0)
		summary_cat(l, "; %ld more rank%s exited early", more,
		    more == 1 ? "" : "s");
	return 1;
}

#define SUMMARY_SEP(l)		((l) != NULL && (l)->text[0] != '\0' ? "; " : "")

/*
 * Verdicts with a hint: what the detectors said (pinned ranks, I/O-bound
 * ranks, memory growing toward the limit: the first of each), then the
 * allocation used a fraction (memory against what the job was given,
 * CPUs against what the scheduler allocated, once it ran
 * DETECT_ALLOC_MIN_MS; idle GPUs are gpu-idle's verdict).
 * No line when nothing.
 */
static void
summary_v_hints(struct summary *s)
{
	struct summary_line	*l = NULL;
	const struct summary_note *nt;
	const struct summary_node *nd;
	double			 peak = 0, limit = 0, cpeak = 0;
	unsigned		 i;
	size_t			 j;
	int			 k, n;
	char			 text[160];

	for (k = 0; summary_hint_codes[k] != NULL; k++) {
		for (j = 0, n = 0; j < s->nnotes; j++) {
			nt = &s->notes[j];
			if (strcmp(nt->code, summary_hint_codes[k]) != 0)
				continue;
			if (n++ > 0)
				continue;
			if (l == NULL)
				l = summary_line(s, "Hints", 1);
			summary_cat(l, "%s%s%s", SUMMARY_SEP(l), nt->text,
			    nt->open ? " (until the end)" : "");
		}
		if (n > 1)
			summary_cat(l, " (and %d more)", n - 1);
	}
	if (s->t1 - s->t0 < DETECT_ALLOC_MIN_MS)
		return;
	/* Against the scheduler's memory shared evenly by the nodes (what
	 * --mem asked; on a Slurm where memory is not consumable no job
	 * cgroup has a limit), as the Memory line; else the largest job
	 * cgroup limit.  Without a cgroup the peak is the node's memory
	 * in use, more than the job's: the hint errs toward silence.  The
	 * live detector judges the same (detect_alloc). */
	for (i = 0; i < s->meta->nnodes; i++) {
		nd = &s->nodes[i];
		if ((s->meta->mem > 0 || nd->mem_limit > 0) &&
		    nd->mem_peak > 0) {
			if (nd->mem_peak > peak)
				peak = nd->mem_peak;
			if (nd->mem_limit > limit)
				limit = nd->mem_limit;
		}
	}
	if (s->meta->mem > 0 && s->meta->nnodes > 0 && peak > 0)
		limit = (double)s->meta->mem / s->meta->nnodes;
	if (detect_alloc_mem_text(text, sizeof(text), peak, limit)) {
		if (l == NULL)
			l = summary_line(s, "Hints", 1);
		summary_cat(l, "%s%s", SUMMARY_SEP(l), text);
	}
	/* CPUs: only against the scheduler's count (whole nodes assumed
	 * say nothing about what was asked), and only from the job's own
	 * CPU time (its cgroup or ranks, not the node's). */
	if (s->meta->cpus == 0 || s->meta->nnodes == 0)
		return;
	for (i = 0; i < s->meta->nnodes; i++)
		if (s->nodes[i].cpu_peak > cpeak)
			cpeak = s->nodes[i].cpu_peak;
	if (detect_alloc_cpu_text(text, sizeof(text), cpeak,
	    summary_node_cpus(s, 0))) {
		if (l == NULL)
			l = summary_line(s, "Hints", 1);
		summary_cat(l, "%s%s", SUMMARY_SEP(l), text);
	}
}

void
summary_finish(struct summary *s)
{
	struct summary_mark	*mk;
	struct summary_rank	*sr;
	size_t			 k;
	int			 b;

	for (k = 0; k < s->nmarks; k++) {
		mk = &s->marks[k];
		if (mk->open)
			mk->to = s->t1 > mk->from ? s->t1 : mk->from;
		if (mk->node >= s->meta->nnodes)
			continue;
		s->nodes[mk->node].flags |= mk->flag;
		if ((b = summary_bit(mk->flag)) >= 0)
			s->nodes[mk->node].flag_ms[b] += mk->to - mk->from;
		if ((sr = summary_rank_of(s, mk)) != NULL) {
			sr->flags |= mk->flag;
			sr->flag_ms += mk->to - mk->from;
		}
	}
	s->nlines = 0;
	s->worst_node = s->worst_rank = -1;
	summary_v_job(s);
	summary_v_cpu(s);
	summary_v_mem(s);
	summary_v_gpu(s);
	summary_v_gpu_idle(s);
	summary_v_io(s);
	summary_v_flags(s);
	summary_v_worst(s);
	summary_v_hints(s);
	/* Job and node names, commands and event texts came from outside:
	 * printable ASCII only, for the terminal the verdict may reach. */
	for (k = 0; k < s->nlines; k++)
		text_clean_inplace(s->lines[k].text);
}

void
summary_print(const struct summary *s, FILE *f)
{
	unsigned	i;

	fprintf(f, "jobtop summary:\n");
	for (i = 0; i < s->nlines; i++)
		fprintf(f, "  %s: %s\n", s->lines[i].label, s->lines[i].text);
}

int
summary_print_file(const char *path, FILE *f)
{
	struct rec_reader	*rd;
	struct rec_play		*p;
	struct rec_msg		 msg;
	struct summary		*s;
	char			 err[256];
	int			 rc;

	if (rec_reader_open(path, &rd, err, sizeof(err)) != 0) {
		log_error("summary: %s: %s", path, err);
		return 1;
	}
	s = summary_new(rec_reader_meta(rd), rec_reader_meta(rd)->start_ms,
	    rec_reader_end_ms(rd));
	p = rec_play_new(rd);
	while ((rc = rec_play_next(p, &msg)) > 0) {
		if (msg.type == MSG_SAMPLE)
			summary_sample(s, msg.node, stream_model(
			    rec_play_stream(p, msg.node)));
		else if (msg.type == MSG_EVENT || msg.type == REC_MSG_EVENT)
			summary_event(s, msg.node, msg.time_ms, msg.ev,
			    msg.subj);
	}
	summary_finish(s);
	summary_print(s, f);
	summary_free(s);
	rec_play_free(p);
	rec_reader_free(rd);
	return rc < 0;
}

void
summary_time(char *buf, size_t size, uint64_t ms)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);
	char		z[64];

	if (localtime_r(&t, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	summary_zone(z, sizeof(z), ms);
	snprintf(buf + strlen(buf), size - strlen(buf), " %s", z);
}

void
summary_zone(char *buf, size_t size, uint64_t ms)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);
	long		off;
	char		name[32];

	if (localtime_r(&t, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	off = tm.tm_gmtoff;
	strftime(name, sizeof(name), "%Z", &tm);
	if (off == 0 && strcmp(name, "UTC") == 0)
		snprintf(buf, size, "UTC");
	else
		snprintf(buf, size, "%s (UTC%c%02ld:%02ld)", name,
		    off < 0 ? '-' : '+', labs(off) / 3600,
		    labs(off) % 3600 / 60);
}

void
summary_span(char *buf, size_t size, double sec)
{
	long	s;

	if (!isfinite(sec) || sec < 0)
		sec = 0;
	if (sec < 10) {
		snprintf(buf, size, "%.1f s", sec);
		return;
	}
	s = (long)(sec + 0.5);
	if (s < 60)
		snprintf(buf, size, "%ld s", s);
	else if (s < 3600)
		snprintf(buf, size, "%ld min %02ld s", s / 60, s % 60);
	else
		snprintf(buf, size, "%ld h %02ld min", s / 3600,
		    s % 3600 / 60);
}


void
summary_rank_name(const struct summary *s, const struct summary_rank *sr,
    char *buf, size_t size)
{
	snprintf(buf, size, "%s %s %lld%s%s%s", summary_node_name(s,
	    sr->node), sr->is_rank ? "rank" : "pid", (long long)sr->key,
	    sr->comm[0] != '\0' ? " (" : "", sr->comm,
	    sr->comm[0] != '\0' ? ")" : "");
}
