/* SPDX-License-Identifier: ISC */
/*
 * report: one pass over the recording (rec_play) feeds the summary
 * (summary.c: the verdict, per-node and per-rank statistics, the flags as
 * intervals) and keeps, per node and per rank, the metrics of the
 * catalogues (metrics.h) in time buckets (means).  The page is
 * static HTML: the verdict first, then the node and rank tables, then
 * every chart as inline SVG drawn here, with the flags, lost nodes, OOM
 * kills and broken streams marked on each, on an axis of absolute times
 * in the local zone.  Many nodes (or ranks) make one band (min, median,
 * max) with the few outliers drawn as lines, never one line each.  The
 * page needs no script; its one small script only sorts tables.  The
 * number of buckets is bounded, so the page stays small however long the
 * recording is or how many nodes it has; a bucket without data is a gap,
 * never 0.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect.h"
#include "history.h"
#include "log.h"
#include "model.h"
#include "out.h"
#include "outfile.h"
#include "rec.h"
#include "report.h"
#include "summary.h"
#include "textsafe.h"
#include "xmalloc.h"

#define REPORT_BUCKETS		600	/* points of a node plot at most */
#define REPORT_RANK_BUCKETS	200	/* of a rank plot */
#define REPORT_RANKS_MAX	1024	/* ranks plotted (then "more") */
#define REPORT_EVENTS_MAX	2000	/* events listed */
#define REPORT_LINES_MAX	16	/* series drawn one line each */
#define REPORT_OUTLIERS		3	/* lines drawn over a band */
#define REPORT_ROWS_MAX		64	/* rows of a node or rank table */
#define REPORT_MARKS_MAX	200	/* markers on one chart */

/*
 * The plotted metrics: every kept row of the node catalogue (metrics.h;
 * key, title, unit and how it combines across nodes in metric_cat[]) and
 * of the rank catalogue (rank_cat[]) in catalogue order, but those marked
 * .noplot.  A series is indexed by its row (RM_N per node, RR_N per
 * rank); a metric is charted when a node has it.
 */
#define RM_N	HN_NMETRICS
#define RR_N	HR_NMETRICS

/* Means per bucket: sums and counts, allocated on the first value (NULL:
 * none yet), so a metric no node has costs nothing. */
struct report_series {
	float		*sum;
	uint16_t	*cnt;
};

struct report_event {
	uint64_t	 time_ms;
	uint32_t	 node;
	uint8_t		 level;
	char		 code[PROTO_NAME_MAX];
	char		 text[PROTO_TEXT_MAX];
};

struct report {
	const struct rec_meta	*meta;
	struct summary		*sum;
	uint64_t		 t0, t1;	/* unix ms */
	unsigned		 nb, nrb;	/* buckets */
	struct report_series	*node;		/* [node * RM_N + k] */
	struct report_series	*rank;		/* [rank * RR_N + k] */
	size_t			 nrank;		/* ranks with series */
	size_t			 ranks_dropped;
	struct report_event	*events;
	size_t			 nevents, capevents, events_dropped;
	uint64_t		 samples;
	int			 chart;		/* charts written */
};

/* The bucket of time t among n. */
static unsigned
report_bucket(const struct report *rp, uint64_t t, unsigned n)
{
	uint64_t	span = rp->t1 - rp->t0 + 1, b;

	if (t <= rp->t0)
		return 0;
	b = (t - rp->t0) * n / span;
	return b >= n ? n - 1 : (unsigned)b;
}

static void
report_add(struct report_series *s, unsigned n, unsigned b, double v)
{
	if (!isfinite(v))
		return;
	if (s->sum == NULL) {
		s->sum = xcalloc(n, sizeof(*s->sum));
		s->cnt = xcalloc(n, sizeof(*s->cnt));
	}
	if (s->cnt[b] == UINT16_MAX)
		return;
	s->sum[b] += (float)v;
	s->cnt[b]++;
}

/* A bucket's mean, NaN when empty. */
static double
report_mean(const struct report_series *s, unsigned b)
{
	if (s == NULL || s->cnt == NULL || s->cnt[b] == 0)
		return NAN;
	return (double)s->sum[b] / s->cnt[b];
}

/* Gather one sample of node i. */
static void
report_sample(struct report *rp, unsigned i, const struct node_model *m)
{
	const struct summary	*sm = rp->sum;
	const struct summary_rank *sr;
	struct report_series	*rs;
	size_t			 j, r;
	unsigned		 b, k;

	if (m->schema == NULL || i >= rp->meta->nnodes)
		return;
	rp->samples++;
	summary_sample(rp->sum, i, m);
	b = report_bucket(rp, m->time_ms, rp->nb);
	for (k = 0; k < RM_N; k++)
		if (!metric_cat[k].noplot)
			report_add(&rp->node[i * RM_N + k], rp->nb, b,
			    history_node_get(summary_history(sm), (int)i,
			    (enum hist_node_metric)k, 0));
	b = report_bucket(rp, m->time_ms, rp->nrb);
	for (j = 0; j < sm->nnoderanks[i]; j++) {
		r = sm->noderanks[i][j];
		if (r >= REPORT_RANKS_MAX)
			continue;
		if (r >= rp->nrank) {
			rp->rank = xreallocarray(rp->rank, r + 1,
			    RR_N * sizeof(*rp->rank));
			memset(rp->rank + rp->nrank * RR_N, 0, (r + 1 -
			    rp->nrank) * RR_N * sizeof(*rp->rank));
			rp->nrank = r + 1;
		}
		sr = &sm->ranks[r];
		rs = &rp->rank[r * RR_N];
		for (k = 0; k < RR_N; k++)
			if (!rank_cat[k].noplot)
				report_add(&rs[k], rp->nrb, b, sr->now[k]);
	}
}

/* Keep an event for the page. */
static void
report_event(struct report *rp, uint32_t node, uint64_t t,
    const struct proto_event *ev, const struct rec_subject *sj)
{
	struct report_event	*e;

	summary_event(rp->sum, node, t, ev, sj);
	if (rp->nevents >= REPORT_EVENTS_MAX) {
		rp->events_dropped++;
		return;
	}
	if (rp->nevents == rp->capevents) {
		rp->capevents = rp->capevents == 0 ? 64 : rp->capevents * 2;
		rp->events = xreallocarray(rp->events, rp->capevents,
		    sizeof(*rp->events));
	}
	e = &rp->events[rp->nevents++];
	e->time_ms = t;
	e->node = node;
	e->level = ev->level;
	snprintf(e->code, sizeof(e->code), "%s", ev->code);
	snprintf(e->text, sizeof(e->text), "%s", ev->text);
}

/* Text into HTML. */
static void
report_html(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
			break;
		}
	}
}

/* A value in its unit, for people. */
static void
report_fmt(char *buf, size_t size, double v, const char *unit)
{
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (strcmp(unit, "%") == 0)
		snprintf(buf, size, "%.*f%%", v < 10 ? 1 : 0, v);
	else if (strcmp(unit, "B") == 0)
		text_bytes(buf, size, v);
	else if (strcmp(unit, "B/s") == 0) {
		text_bytes(buf, size, v);
		snprintf(buf + strlen(buf), size - strlen(buf), "/s");
	} else if (strcmp(unit, "W") == 0)
		snprintf(buf, size, "%.*f W", v < 10 ? 1 : 0, v);
	else if (strcmp(unit, "C") == 0)
		snprintf(buf, size, "%.*f \xc2\xb0" "C", v < 10 ? 1 : 0, v);
	else
		snprintf(buf, size, "%.*f", fabs(v) < 10 ? 2 : 1, v);
}

static void
report_fmt_html(FILE *f, double v, const char *unit)
{
	char	buf[64];

	report_fmt(buf, sizeof(buf), v, unit);
	report_html(f, buf);
}

/* A round top for the y axis. */
static double
report_nice_max(double v, const char *unit)
{
	static const double	steps[] = { 1, 2, 2.5, 5, 10 };
	static const double	bsteps[] = { 1, 2, 4, 8, 10 };
	const double		*st = steps;
	double			base = 1, p, x;
	unsigned		i;

	if (!(v > 0))
		return strcmp(unit, "%") == 0 ? 100 : 1;
	if (strcmp(unit, "%") == 0 && v <= 100)
		return 100;
	/* Bytes in powers of 1024, on steps that a quarter divides. */
	if (strcmp(unit, "B") == 0 || strcmp(unit, "B/s") == 0) {
		while (v / base >= 1000)
			base *= 1024;
		st = bsteps;
	}
	x = v / base;
	p = pow(10, floor(log10(x)));
	for (i = 0; i < 5; i++)
		if (st[i] * p >= x * 0.9999)
			return st[i] * p * base;
	return 10 * p * base;
}

/* The chart geometry (SVG user units). */
#define CW	560
#define CH	230
#define CL	64
#define CR	10
#define CT	24
#define CB	40

struct report_axes {
	double	 ymax;
	double	 lo, hi;	/* of the values drawn */
	double	 t0, span;	/* seconds since the epoch */
};

static double
report_x(const struct report_axes *ax, double t)
{
	return CL + (CW - CL - CR) * (t - ax->t0) / ax->span;
}

static double
report_y(const struct report_axes *ax, double v)
{
	if (v > ax->ymax)
		v = ax->ymax;
	if (v < 0)
		v = 0;
	return CT + (CH - CT - CB) * (1 - v / ax->ymax);
}

/* The centre time of bucket b of n, in seconds. */
static double
report_bt(const struct report *rp, unsigned b, unsigned n)
{
	double	span = (double)(rp->t1 - rp->t0 + 1);

	return (rp->t0 + span * (b + 0.5) / n) / 1000.0;
}

/* Ticks on the time axis at round local times. */
static void
report_time_axis(FILE *f, const struct report_axes *ax)
{
	static const long	steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300,
	    600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400 };
	struct tm		tm;
	time_t			tt;
	long			step = steps[17], off;
	double			t, x;
	unsigned		i;
	char			buf[64], zone[80];

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (ax->span / steps[i] <= 6) {
			step = steps[i];
			break;
		}
	}
	/* Past 6 days: whole days, still at most 6 ticks. */
	if (ax->span / step > 6)
		step = (long)fmin(ceil(ax->span / 6 / 86400), 1e9) * 86400;
	tt = (time_t)ax->t0;
	if (localtime_r(&tt, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	off = tm.tm_gmtoff;
	t = ceil((ax->t0 + off) / step) * step - off;
	for (i = 0; i < 8 && t <= ax->t0 + ax->span; i++, t += step) {
		x = report_x(ax, t);
		tt = (time_t)t;
		if (localtime_r(&tt, &tm) == NULL)
			memset(&tm, 0, sizeof(tm));
		strftime(buf, sizeof(buf), step >= 86400 ? "%m-%d" :
		    step >= 60 ? "%H:%M" : "%H:%M:%S", &tm);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
		    "class=\"vgrid\"/><text x=\"%.1f\" y=\"%d\" "
		    "text-anchor=\"middle\">%s</text>\n", x, x, CT, CH - CB, x,
		    CH - CB + 13, buf);
	}
	tt = (time_t)ax->t0;
	if (localtime_r(&tt, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
	summary_zone(zone, sizeof(zone), (uint64_t)(ax->t0 * 1000));
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
	    "class=\"axis\">time from %s, ", CW - CR, CH - 6, buf);
	report_html(f, zone);
	fputs("</text>\n", f);
}

/* The frame of a chart: title, grid, y labels, time axis. */
static void
report_chart_begin(FILE *f, struct report *rp, const char *key,
    const char *title, const char *sub, const char *unit,
    const struct report_axes *ax, unsigned nseries)
{
	char		buf[64];
	double		y;
	unsigned	i;

	rp->chart++;
	/* The metric's key and the range of what is drawn, for scripts
	 * and tests that read the page. */
	fprintf(f, "<figure class=\"plot\" data-key=\"%s\" data-min=\"%g\" "
	    "data-max=\"%g\"><figcaption>", key, isfinite(ax->lo) ? ax->lo :
	    0, isfinite(ax->hi) ? ax->hi : 0);
	report_html(f, title);
	if (sub != NULL && *sub != '\0') {
		fputs(" <small>", f);
		report_html(f, sub);
		fputs("</small>", f);
	}
	fprintf(f, "</figcaption>\n<svg class=\"chart\" viewBox=\"0 0 %d %d\""
	    " role=\"img\" data-series=\"%u\" xmlns=\"http://www.w3.org/2000/"
	    "svg\"><title>", CW, CH, nseries);
	report_html(f, title);
	fputs("</title>\n", f);
	for (i = 0; i <= 4; i++) {
		y = report_y(ax, ax->ymax * i / 4);
		report_fmt(buf, sizeof(buf), ax->ymax * i / 4, unit);
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
		    "class=\"hgrid\"/><text x=\"%d\" y=\"%.1f\" "
		    "text-anchor=\"end\">", CL, CW - CR, y, y, CL - 6, y + 3);
		report_html(f, buf);
		fputs("</text>\n", f);
	}
	report_time_axis(f, ax);
}

/* One series as a path (gaps where there is no data). */
static void
report_path(FILE *f, const struct report *rp, const struct report_axes *ax,
    const double *v, unsigned n, const char *cls, const char *color,
    const char *label)
{
	unsigned	b, pts = 0;
	int		pen = 0;

	for (b = 0; b < n; b++) {
		if (!isfinite(v[b])) {
			pen = 0;
			continue;
		}
		if (pts == 0)
			fprintf(f, "<path class=\"%s\" stroke=\"%s\" d=\"", cls,
			    color);
		fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M',
		    report_x(ax, report_bt(rp, b, n)), report_y(ax, v[b]));
		pen = 1;
		pts++;
	}
	if (pts == 0)
		return;
	if (pts == 1)
		fputs("h1", f);
	fputs("\"><title>", f);
	report_html(f, label);
	fputs("</title></path>\n", f);
}

/* A band from lo to hi (gaps split it). */
static void
report_band(FILE *f, const struct report *rp, const struct report_axes *ax,
    const double *lo, const double *hi, unsigned n, const char *label)
{
	unsigned	b, e, k;

	for (b = 0; b < n; b = e) {
		if (!isfinite(lo[b]) || !isfinite(hi[b])) {
			e = b + 1;
			continue;
		}
		for (e = b; e < n && isfinite(lo[e]) && isfinite(hi[e]); e++)
			;
		fputs("<path class=\"band\" d=\"", f);
		for (k = b; k < e; k++)
			fprintf(f, "%c%.1f %.1f", k == b ? 'M' : 'L',
			    report_x(ax, report_bt(rp, k, n)),
			    report_y(ax, hi[k]));
		for (k = e; k-- > b;)
			fprintf(f, "L%.1f %.1f", report_x(ax,
			    report_bt(rp, k, n)), report_y(ax, lo[k]));
		if (e == b + 1)
			fputs("h1", f);
		fputs("Z\"><title>", f);
		report_html(f, label);
		fputs("</title></path>\n", f);
	}
}

/* The class of a marker by its flag. */
static const char *
report_mark_class(unsigned flag)
{
	switch (flag) {
	case DF_STALLED:
		return "mk-stalled";
	case DF_STRAGGLER:
		return "mk-straggler";
	case DF_MEMORY:
		return "mk-memory";
	case DF_LOST:
		return "mk-lost";
	case SUMMARY_F_FAILED:
		return "mk-failed";
	case SUMMARY_F_OOM:
		return "mk-oom";
	default:
		return "mk-error";
	}
}

static const char *
report_mark_word(unsigned flag)
{
	if (flag == SUMMARY_F_OOM)
		return "OOM kill";
	if (flag == SUMMARY_F_FAILED)
		return "failed";
	if (detect_flag_name(flag) != NULL)
		return detect_flag_name(flag);
	return "stream error";
}

/* A marker's hover text: "stalled: cn001: rank 3 ... (14:03:07 to ...)". */
static void
report_mark_title(FILE *f, const struct report *rp,
    const struct summary_mark *mk)
{
	char	a[96], b[48];

	summary_time(a, sizeof(a), mk->from);
	summary_span(b, sizeof(b), (double)(mk->to - mk->from) / 1000.0);
	fprintf(f, "<title>%s: ", report_mark_word(mk->flag));
	report_html(f, mk->node < rp->meta->nnodes ?
	    rp->meta->nodes[mk->node] : "job");
	fputs(": ", f);
	report_html(f, mk->text);
	fprintf(f, " (%s", a);
	if (mk->to > mk->from)
		fprintf(f, ", for %s%s", b, mk->open ? ", until the end" : "");
	fputs(")</title>", f);
}

/* The markers: a line where each flag was raised (or a node lost, a
 * process killed for memory, a stream broken), a strip as long as it
 * lasted.  At most one marker of a kind per pixel, and a bound per
 * chart. */
static void
report_marks(FILE *f, const struct report *rp, const struct report_axes *ax)
{
	const struct summary	*sm = rp->sum;
	const struct summary_mark *mk;
	unsigned		 drawn = 0;
	int			 lastx[8], x, c;
	size_t			 k;

	memset(lastx, -1, sizeof(lastx));
	for (k = 0; k < sm->nmarks && drawn < REPORT_MARKS_MAX; k++) {
		mk = &sm->marks[k];
		x = (int)report_x(ax, mk->from / 1000.0);
		c = summary_bit_index(mk->flag);
		if (lastx[c] == x && mk->to - mk->from < 1000)
			continue;
		lastx[c] = x;
		drawn++;
		fprintf(f, "<g class=\"marker %s\">",
		    report_mark_class(mk->flag));
		report_mark_title(f, rp, mk);
		if (mk->to > mk->from)
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
			    " height=\"2.6\"/>", report_x(ax, mk->from /
			    1000.0), 2 + c * 2.8, fmax(1, report_x(ax, mk->to /
			    1000.0) - report_x(ax, mk->from / 1000.0)));
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
		    "y2=\"%d\"/></g>\n", x, x, 2 + c * 2.8, CH - CB);
	}
}

static const char *const report_colors[] = {
	"#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2",
	"#ca8a04", "#db2777", "#4b5563", "#65a30d", "#7c3aed", "#0d9488",
	"#be123c", "#1d4ed8", "#a16207", "#15803d"
};
#define REPORT_NCOLORS	(sizeof(report_colors) / sizeof(report_colors[0]))

static int
report_cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * A chart of many series (nodes or ranks), each n buckets in vals[i * n],
 * labels[i]: a line each when there are few; else the band from min to
 * max with the median, and over it the outliers: the series whose mean
 * is furthest from the median of the means (more than 3 scaled MADs and
 * 5% of the scale away), then those of prio[] (flagged), at most
 * REPORT_OUTLIERS + 1 of them.  The legend names what is drawn.
 */
static void
report_chart_many(FILE *f, struct report *rp, const char *key,
    const char *title, const char *what, const char *unit,
    const double *vals, size_t nser, unsigned n, const char *const *labels,
    const long *prio, size_t nprio)
{
	struct report_axes	 ax;
	double			*lo, *md, *hi, *col, *mean, med, mad, x;
	size_t			 i, j, c, nout = 0, out[REPORT_OUTLIERS + 2];
	unsigned		 b, cnt;
	char			 sub[128];
	double			 max = 0, best;

	ax.lo = INFINITY;
	ax.hi = -INFINITY;
	for (i = 0; i < nser * n; i++) {
		if (!isfinite(vals[i]))
			continue;
		ax.lo = fmin(ax.lo, vals[i]);
		ax.hi = fmax(ax.hi, vals[i]);
		if (vals[i] > max)
			max = vals[i];
	}
	ax.ymax = report_nice_max(max, unit);
	ax.t0 = rp->t0 / 1000.0;
	ax.span = (rp->t1 - rp->t0 + 1) / 1000.0;
	if (nser <= REPORT_LINES_MAX) {
		snprintf(sub, sizeof(sub), "%zu %s%s", nser, what,
		    nser == 1 ? "" : "s");
		report_chart_begin(f, rp, key, title, sub, unit, &ax,
		    (unsigned)nser);
		for (i = 0; i < nser; i++)
			report_path(f, rp, &ax, vals + i * n, n, "series",
			    report_colors[i % REPORT_NCOLORS], labels[i]);
		report_marks(f, rp, &ax);
		fputs("</svg>\n<div class=\"legend\">", f);
		for (i = 0; i < nser; i++) {
			fprintf(f, "<span><i style=\"background:%s\"></i>",
			    report_colors[i % REPORT_NCOLORS]);
			report_html(f, labels[i]);
			fputs("</span>", f);
		}
		fputs("</div></figure>\n", f);
		return;
	}
	lo = xcalloc(n, sizeof(*lo));
	md = xcalloc(n, sizeof(*md));
	hi = xcalloc(n, sizeof(*hi));
	col = xcalloc(nser, sizeof(*col));
	mean = xcalloc(nser, sizeof(*mean));
	for (b = 0; b < n; b++) {
		for (i = cnt = 0; i < nser; i++)
			if (isfinite(vals[i * n + b]))
				col[cnt++] = vals[i * n + b];
		if (cnt == 0) {
			lo[b] = md[b] = hi[b] = NAN;
			continue;
		}
		qsort(col, cnt, sizeof(*col), report_cmp_double);
		lo[b] = col[0];
		hi[b] = col[cnt - 1];
		md[b] = cnt % 2 ? col[cnt / 2] : (col[cnt / 2 - 1] +
		    col[cnt / 2]) / 2;
	}
	/* Each series' mean, then their median and MAD. */
	for (i = c = 0; i < nser; i++) {
		mean[i] = 0;
		for (b = cnt = 0; b < n; b++)
			if (isfinite(vals[i * n + b])) {
				mean[i] += vals[i * n + b];
				cnt++;
			}
		mean[i] = cnt ? mean[i] / cnt : NAN;
		if (isfinite(mean[i]))
			col[c++] = mean[i];
	}
	qsort(col, c, sizeof(*col), report_cmp_double);
	med = c ? col[c / 2] : NAN;
	for (i = 0; i < c; i++)
		col[i] = fabs(col[i] - med);
	qsort(col, c, sizeof(*col), report_cmp_double);
	mad = c ? col[c / 2] * 1.4826 : NAN;
	for (j = 0; j < nprio && nout < REPORT_OUTLIERS + 1; j++)
		if (prio[j] >= 0 && (size_t)prio[j] < nser)
			out[nout++] = (size_t)prio[j];
	while (nout < REPORT_OUTLIERS + 1 && isfinite(med)) {
		best = 0;
		c = SIZE_MAX;
		for (i = 0; i < nser; i++) {
			x = fabs(mean[i] - med);
			if (!isfinite(x) || x <= 3 * mad ||
			    x <= 0.05 * ax.ymax || x <= best)
				continue;
			for (j = 0; j < nout && out[j] != i; j++)
				;
			if (j < nout)
				continue;
			best = x;
			c = i;
		}
		if (c == SIZE_MAX)
			break;
		out[nout++] = c;
	}
	snprintf(sub, sizeof(sub), "%zu %ss: min to max, median, %zu "
	    "outlier%s", nser, what, nout, nout == 1 ? "" : "s");
	report_chart_begin(f, rp, key, title, sub, unit, &ax,
	    (unsigned)(3 + nout));
	snprintf(sub, sizeof(sub), "min to max of %zu %ss", nser, what);
	report_band(f, rp, &ax, lo, hi, n, sub);
	report_path(f, rp, &ax, md, n, "series median", "#1d2330", "median");
	for (j = 0; j < nout; j++)
		report_path(f, rp, &ax, vals + out[j] * n, n, "series outlier",
		    report_colors[(j + 1) % REPORT_NCOLORS], labels[out[j]]);
	report_marks(f, rp, &ax);
	fputs("</svg>\n<div class=\"legend\"><span><i class=\"band-key\">"
	    "</i>min to max</span><span><i style=\"background:#1d2330\"></i>"
	    "median</span>", f);
	for (j = 0; j < nout; j++) {
		fprintf(f, "<span><i style=\"background:%s\"></i>",
		    report_colors[(j + 1) % REPORT_NCOLORS]);
		report_html(f, labels[out[j]]);
		fputs("</span>", f);
	}
	fputs("</div></figure>\n", f);
	free(lo);
	free(md);
	free(hi);
	free(col);
	free(mean);
}

/* A metric present on any node? */
static int
report_has(const struct report *rp, unsigned k)
{
	unsigned	i;

	for (i = 0; i < rp->meta->nnodes; i++)
		if (rp->node[i * RM_N + k].sum != NULL)
			return 1;
	return 0;
}

/* The job-wide chart of a metric: its nodes combined as the metric
 * says (sum, mean or max), one line. */
static void
report_chart_job(FILE *f, struct report *rp, unsigned k)
{
	const struct hist_metric_info *hi = &hist_node_info[k];
	struct report_axes	 ax;
	double			*v, x, max = 0;
	unsigned		 b, i, cnt;
	const char		*sub;

	v = xcalloc(rp->nb, sizeof(*v));
	ax.lo = INFINITY;
	ax.hi = -INFINITY;
	for (b = 0; b < rp->nb; b++) {
		v[b] = 0;
		for (i = cnt = 0; i < rp->meta->nnodes; i++) {
			x = report_mean(&rp->node[i * RM_N + k], b);
			if (!isfinite(x))
				continue;
			if (strcmp(hi->agg, "max") == 0)
				v[b] = cnt == 0 || x > v[b] ? x : v[b];
			else
				v[b] += x;
			cnt++;
		}
		if (cnt == 0)
			v[b] = NAN;
		else if (strcmp(hi->agg, "mean") == 0)
			v[b] /= cnt;
		if (!isfinite(v[b]))
			continue;
		ax.lo = fmin(ax.lo, v[b]);
		ax.hi = fmax(ax.hi, v[b]);
		if (v[b] > max)
			max = v[b];
	}
	ax.ymax = report_nice_max(max, hi->unit);
	ax.t0 = rp->t0 / 1000.0;
	ax.span = (rp->t1 - rp->t0 + 1) / 1000.0;
	sub = strcmp(hi->agg, "mean") == 0 ? "mean of the nodes" :
	    strcmp(hi->agg, "max") == 0 ? "the highest node" :
	    "all nodes together";
	report_chart_begin(f, rp, hi->key, hi->title, sub, hi->unit, &ax, 1);
	report_path(f, rp, &ax, v, rp->nb, "series", report_colors[0], "job");
	report_marks(f, rp, &ax);
	fputs("</svg></figure>\n", f);
	free(v);
}

/* The nodes' chart of a metric. */
static void
report_chart_nodes(FILE *f, struct report *rp, unsigned k)
{
	const struct hist_metric_info *hi = &hist_node_info[k];
	double		*v;
	unsigned	 i, b, n = rp->meta->nnodes;
	long		 prio = rp->sum->worst_node;

	v = xcalloc((size_t)n * rp->nb, sizeof(*v));
	for (i = 0; i < n; i++)
		for (b = 0; b < rp->nb; b++)
			v[(size_t)i * rp->nb + b] = report_mean(
			    &rp->node[i * RM_N + k], b);
	/* The worst node is drawn over the band only when it was
	 * flagged. */
	if (prio >= 0 && summary_node_flags_ms(&rp->sum->nodes[prio]) == 0)
		prio = -1;
	report_chart_many(f, rp, hi->key, hi->title, "node", hi->unit, v, n,
	    rp->nb, (const char *const *)rp->meta->nodes, &prio, 1);
	free(v);
}

/* The ranks' chart of a rank metric. */
static void
report_chart_ranks(FILE *f, struct report *rp, unsigned k, char **labels)
{
	const struct summary	*sm = rp->sum;
	double			*v;
	size_t			 r, m = 0, *idx;
	long			 prio[REPORT_OUTLIERS + 1];
	size_t			 np = 0;
	unsigned		 b;

	idx = xcalloc(rp->nrank + 1, sizeof(*idx));
	for (r = 0; r < rp->nrank; r++)
		if (rp->rank[r * RR_N + k].sum != NULL)
			idx[m++] = r;
	if (m == 0) {
		free(idx);
		return;
	}
	v = xcalloc(m * rp->nrb, sizeof(*v));
	for (r = 0; r < m; r++) {
		for (b = 0; b < rp->nrb; b++)
			v[r * rp->nrb + b] = report_mean(
			    &rp->rank[idx[r] * RR_N + k], b);
		if (sm->ranks[idx[r]].flags != 0 && np < REPORT_OUTLIERS)
			prio[np++] = (long)r;
	}
	{
		const char	**lab = xcalloc(m, sizeof(*lab));
		char		  key[32];

		for (r = 0; r < m; r++)
			lab[r] = labels[idx[r]];
		snprintf(key, sizeof(key), "rank_%s", rank_cat[k].key);
		report_chart_many(f, rp, key, rank_cat[k].title, "rank",
		    rank_cat[k].unit, v, m, rp->nrb, lab, prio, np);
		free(lab);
	}
	free(v);
	free(idx);
}

/* The verdict, first on the page. */
static void
report_verdict(FILE *f, const struct report *rp)
{
	const struct summary	*sm = rp->sum;
	unsigned		 i;

	fputs("<section id=\"jt-verdict\"><h2>Verdict</h2>\n"
	    "<table class=\"verdict\">\n", f);
	for (i = 0; i < sm->nlines; i++) {
		fprintf(f, "<tr%s><th>", sm->lines[i].bad ?
		    " class=\"bad\"" : "");
		report_html(f, sm->lines[i].label);
		fputs("</th><td>", f);
		report_html(f, sm->lines[i].text);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
}

static void
report_meta_row(FILE *f, const char *k, const char *v)
{
	fputs("<tr><td>", f);
	report_html(f, k);
	fputs("</td><td>", f);
	report_html(f, v);
	fputs("</td></tr>\n", f);
}

static void
report_meta(FILE *f, const struct report *rp, const char *path,
    const char *warning)
{
	const struct rec_meta	*m = rp->meta;
	char			 a[96], b[96], sp[48], buf[512];
	unsigned		 i;

	fputs("<table class=\"meta\" id=\"jt-meta\">\n", f);
	report_meta_row(f, "Job", m->job[0] != '\0' ? m->job :
	    "(no job: a host list)");
	if (m->name[0] != '\0')
		report_meta_row(f, "Name", m->name);
	if (m->user[0] != '\0')
		report_meta_row(f, "User", m->user);
	fprintf(f, "<tr><td>Nodes</td><td>%u: ", m->nnodes);
	for (i = 0; i < m->nnodes && i < 40; i++) {
		if (i > 0)
			fputs(", ", f);
		report_html(f, m->nodes[i]);
	}
	fputs(m->nnodes > 40 ? ", ...</td></tr>\n" : "</td></tr>\n", f);
	summary_time(a, sizeof(a), rp->t0);
	summary_time(b, sizeof(b), rp->t1);
	summary_span(sp, sizeof(sp), (rp->t1 - rp->t0) / 1000.0);
	snprintf(buf, sizeof(buf), "%s to %s (%s)", a, b, sp);
	report_meta_row(f, "Recorded", buf);
	snprintf(buf, sizeof(buf), "%g s, %" PRIu64 " node samples",
	    m->interval_ms / 1000.0, rp->samples);
	report_meta_row(f, "Interval", buf);
	snprintf(buf, sizeof(buf), "jobtop %s on %s, recording format %u.%u",
	    m->version, m->host[0] != '\0' ? m->host : "?", m->major,
	    m->minor);
	report_meta_row(f, "Monitor", buf);
	report_meta_row(f, "File", path);
	fputs("</table>\n", f);
	if (warning != NULL && *warning != '\0') {
		fputs("<div class=\"warning\">This recording is incomplete: ",
		    f);
		report_html(f, warning);
		fputs(".</div>\n", f);
	}
}

/* "min / median / max" of a node metric from its buckets; the median is
 * of the bucket means (exact while a bucket holds one sample). */
static void
report_cell_stats(FILE *f, const struct report *rp, unsigned i, unsigned k)
{
	const struct report_series *s = &rp->node[i * RM_N + k];
	const char	*unit = hist_node_info[k].unit;
	double		*v, lo = INFINITY, hi = -INFINITY;
	unsigned	 b, n = 0;

	if (s->sum == NULL) {
		fputs("<td class=\"num\">-</td>", f);
		return;
	}
	v = xcalloc(rp->nb, sizeof(*v));
	for (b = 0; b < rp->nb; b++)
		if (isfinite(v[n] = report_mean(s, b)))
			n++;
	qsort(v, n, sizeof(*v), report_cmp_double);
	if (n > 0) {
		lo = v[0];
		hi = v[n - 1];
	}
	fprintf(f, "<td class=\"num\" data-v=\"%g\">", n ? v[n / 2] : 0.0);
	report_fmt_html(f, lo, unit);
	fputs(" / ", f);
	report_fmt_html(f, n ? v[n / 2] : NAN, unit);
	fputs(" / ", f);
	report_fmt_html(f, hi, unit);
	fputs("</td>", f);
	free(v);
}

/* A node's or rank's flags with their time: "stalled 2 min 30 s". */
static void
report_cell_flags(FILE *f, const struct report *rp, unsigned node,
    const struct summary_rank *sr)
{
	const struct summary_mark *mk;
	const struct summary	*sm = rp->sum;
	uint64_t		 t[8] = { 0 };
	unsigned		 seen = 0, c;
	size_t			 k;
	char			 buf[48];
	int			 any = 0;

	for (k = 0; k < sm->nmarks; k++) {
		mk = &sm->marks[k];
		if (mk->flag == 0 || mk->node != node)
			continue;
		if (sr != NULL && (mk->who != sr->key ||
		    mk->is_rank != sr->is_rank))
			continue;
		c = (unsigned)summary_bit_index(mk->flag);
		t[c] += mk->to - mk->from;
		seen |= 1u << c;
	}
	fputs("<td>", f);
	for (c = 0; c < 8; c++) {
		if ((seen & (1u << c)) == 0)
			continue;
		fprintf(f, "%s<span class=\"flag %s\">%s", any++ ? ", " : "",
		    report_mark_class(summary_bit_flag(c)),
		    report_mark_word(summary_bit_flag(c)));
		if (t[c] > 0) {
			summary_span(buf, sizeof(buf), t[c] / 1000.0);
			fprintf(f, " %s", buf);
		}
		fputs("</span>", f);
	}
	fputs("</td>", f);
}

static const struct summary *report_sort_sum;

/* Worst first: flagged longest, then the lowest mean CPU. */
static int
report_cmp_node(const void *a, const void *b)
{
	const struct summary_node *x = &report_sort_sum->nodes[*(const
	    unsigned *)a], *y = &report_sort_sum->nodes[*(const unsigned *)b];
	uint64_t	fx = summary_node_flags_ms(x) + (x->flags != 0);
	uint64_t	fy = summary_node_flags_ms(y) + (y->flags != 0);
	double		cx, cy;

	if (fx != fy)
		return fx > fy ? -1 : 1;
	cx = x->st[SM_CPU].n ? x->st[SM_CPU].sum / x->st[SM_CPU].n : 1e9;
	cy = y->st[SM_CPU].n ? y->st[SM_CPU].sum / y->st[SM_CPU].n : 1e9;
	return cx < cy ? -1 : cx > cy;
}

static int
report_cmp_rank(const void *a, const void *b)
{
	const struct summary_rank *x = &report_sort_sum->ranks[*(const
	    size_t *)a], *y = &report_sort_sum->ranks[*(const size_t *)b];
	uint64_t	fx = x->flag_ms + (x->flags != 0);
	uint64_t	fy = y->flag_ms + (y->flags != 0);
	double		cx, cy;

	if (fx != fy)
		return fx > fy ? -1 : 1;
	cx = x->cpu.n ? x->cpu.sum / x->cpu.n : 1e9;
	cy = y->cpu.n ? y->cpu.sum / y->cpu.n : 1e9;
	return cx < cy ? -1 : cx > cy;
}

/* Per node: min / median / max of the main metrics, peak memory against
 * the limit, CPU efficiency, flags. */
static void
report_node_table(FILE *f, const struct report *rp)
{
	static const enum hist_node_metric cols[] = {
		HN_CPU, HN_LOAD, HN_DISK, HN_NET, HN_GPU
	};
	const struct summary	*sm = rp->sum;
	const struct summary_node *nd;
	unsigned		 n = rp->meta->nnodes, i, j, r, k, shown;
	unsigned		*order, kc[5];
	int			 have[5];

	fputs("<h2>Nodes</h2>\n", f);
	for (j = 0; j < 5; j++) {
		k = (unsigned)cols[j];
		kc[j] = k;
		have[j] = k < RM_N && report_has(rp, k);
	}
	order = xcalloc(n ? n : 1, sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = i;
	shown = n;
	if (n > REPORT_ROWS_MAX) {
		report_sort_sum = sm;
		qsort(order, n, sizeof(*order), report_cmp_node);
		shown = REPORT_ROWS_MAX;
		fprintf(f, "<p class=\"note\">The %u worst of %u nodes "
		    "(flagged longest, then the lowest CPU busy); the charts "
		    "below show them all.</p>\n", shown, n);
	}
	/* The verdict's denominator (summary_node_eff), said in the
	 * header. */
	fprintf(f, "<table class=\"stats sortable\" id=\"jt-nodes\"><thead>"
	    "<tr><th>Node</th><th>CPUs<br><small>%s</small></th><th>CPU "
	    "efficiency<br><small>of %s, time measured</small></th>",
	    rp->meta->cpus > 0 ? "allocated / node's" : "node's",
	    summary_cpus_basis(sm));
	if (have[0])
		fprintf(f, "<th>%s<br><small>min / median / max</small></th>",
		    hist_node_info[cols[0]].title);
	fputs("<th>Memory peak</th><th>Memory mean</th><th>Limit "
	    "(request)</th>", f);
	for (j = 1; j < 5; j++)
		if (have[j])
			fprintf(f, "<th>%s<br><small>min / median / max</small>"
			    "</th>", hist_node_info[cols[j]].title);
	fputs("<th>Flags</th></tr></thead><tbody>\n", f);
	for (r = 0; r < shown; r++) {
		i = order[r];
		nd = &sm->nodes[i];
		fputs("<tr><td>", f);
		report_html(f, rp->meta->nodes[i]);
		if (rp->meta->cpus > 0)
			fprintf(f, "</td><td class=\"num\">%.3g / %u</td>",
			    summary_node_cpus(sm, i), nd->ncpu);
		else
			fprintf(f, "</td><td class=\"num\">%u</td>", nd->ncpu);
		if (isfinite(summary_node_eff(sm, i)))
			fprintf(f, "<td class=\"num\">%.1f%%</td>",
			    summary_node_eff(sm, i));
		else
			fputs("<td class=\"num\">-</td>", f);
		if (have[0])
			report_cell_stats(f, rp, i, kc[0]);
		fprintf(f, "<td class=\"num\" data-v=\"%g\">", nd->mem_peak);
		report_fmt_html(f, nd->st[SM_MEM].n ? nd->mem_peak : NAN, "B");
		fputs("</td><td class=\"num\">", f);
		report_fmt_html(f, nd->st[SM_MEM].n ? nd->st[SM_MEM].sum /
		    nd->st[SM_MEM].n : NAN, "B");
		fputs("</td><td class=\"num\">", f);
		if (nd->mem_limit > 0)
			report_fmt_html(f, nd->mem_limit, "B");
		else
			fputs("unknown", f);
		fputs("</td>", f);
		for (j = 1; j < 5; j++)
			if (have[j])
				report_cell_stats(f, rp, i, kc[j]);
		report_cell_flags(f, rp, i, NULL);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	free(order);
}

/* Per rank: CPU time, CPU min / mean / max, RSS mean and peak, flags. */
static void
report_rank_table(FILE *f, const struct report *rp)
{
	const struct summary	*sm = rp->sum;
	const struct summary_rank *sr;
	size_t			*order, i, shown = sm->nranks;
	char			 buf[48];

	fputs("<h2>Ranks</h2>\n", f);
	if (sm->nranks == 0) {
		fputs("<p class=\"none\">no ranks were recorded</p>\n", f);
		return;
	}
	order = xcalloc(sm->nranks, sizeof(*order));
	for (i = 0; i < sm->nranks; i++)
		order[i] = i;
	if (sm->nranks > REPORT_ROWS_MAX) {
		report_sort_sum = sm;
		qsort(order, sm->nranks, sizeof(*order), report_cmp_rank);
		shown = REPORT_ROWS_MAX;
		fprintf(f, "<p class=\"note\">The %zu worst of %zu ranks "
		    "(flagged longest, then the lowest CPU).</p>\n", shown,
		    sm->nranks);
	}
	fputs("<table class=\"stats sortable\" id=\"jt-ranks\"><thead><tr>"
	    "<th>Node</th><th>Rank</th><th>Command</th><th>CPU time</th>"
	    "<th>CPU<br><small>min / mean / max, % of a CPU</small></th>"
	    "<th>RSS mean</th><th>RSS peak</th><th>Flags</th></tr></thead>"
	    "<tbody>\n", f);
	for (i = 0; i < shown; i++) {
		sr = &sm->ranks[order[i]];
		fputs("<tr><td>", f);
		report_html(f, rp->meta->nodes[sr->node]);
		fprintf(f, "</td><td class=\"num\">%s%lld</td><td>",
		    sr->is_rank ? "" : "pid ", (long long)sr->key);
		report_html(f, sr->comm);
		summary_span(buf, sizeof(buf), sr->cpu_s);
		fprintf(f, "</td><td class=\"num\" data-v=\"%g\">%s</td>",
		    sr->cpu_s, buf);
		if (sr->cpu.n > 0)
			fprintf(f, "<td class=\"num\" data-v=\"%g\">%.0f / "
			    "%.0f / %.0f</td>", sr->cpu.sum / sr->cpu.n,
			    sr->cpu.min, sr->cpu.sum / sr->cpu.n, sr->cpu.max);
		else
			fputs("<td class=\"num\">-</td>", f);
		fprintf(f, "<td class=\"num\" data-v=\"%g\">", sr->rss.n ?
		    sr->rss.sum / sr->rss.n : 0.0);
		report_fmt_html(f, sr->rss.n ? sr->rss.sum / sr->rss.n : NAN,
		    "B");
		fprintf(f, "</td><td class=\"num rss-peak\" data-v=\"%.0f\">",
		    sr->rss_peak);
		report_fmt_html(f, sr->rss_peak > 0 ? sr->rss_peak : NAN, "B");
		fputs("</td>", f);
		report_cell_flags(f, rp, sr->node, sr);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	free(order);
}

/* The flags, lost nodes and OOM kills as intervals. */
static void
report_flag_table(FILE *f, const struct report *rp)
{
	const struct summary	*sm = rp->sum;
	const struct summary_mark *mk;
	size_t			 k, n = 0;
	char			 a[96], b[48];

	fputs("<h2>Flagged ranks and nodes</h2>\n", f);
	for (k = 0; k < sm->nmarks; k++)
		n += sm->marks[k].flag != 0;
	if (n == 0) {
		fputs("<p class=\"none\" id=\"jt-flagged\">none</p>\n", f);
		return;
	}
	fputs("<table class=\"events\" id=\"jt-flagged\"><thead><tr>"
	    "<th>From</th><th>For</th><th>Node</th><th>Flag</th><th>What</th>"
	    "</tr></thead><tbody>\n", f);
	for (k = 0; k < sm->nmarks; k++) {
		mk = &sm->marks[k];
		if (mk->flag == 0)
			continue;
		summary_time(a, sizeof(a), mk->from);
		summary_span(b, sizeof(b), (mk->to - mk->from) / 1000.0);
		fprintf(f, "<tr class=\"lvl-warn\"><td>%s</td><td>%s%s</td>"
		    "<td>", a, mk->to > mk->from ? b : "-", mk->open ?
		    " (to the end)" : "");
		report_html(f, mk->node < rp->meta->nnodes ?
		    rp->meta->nodes[mk->node] : "(job)");
		fprintf(f, "</td><td><span class=\"flag %s\">%s</span></td>"
		    "<td>", report_mark_class(mk->flag),
		    report_mark_word(mk->flag));
		report_html(f, mk->text);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void
report_event_table(FILE *f, const struct report *rp)
{
	static const char	*levels[] = { "info", "warn", "error" };
	const struct report_event *e;
	const char		*lv;
	size_t			 i;
	char			 a[96];

	fputs("<h2>Events</h2>\n", f);
	if (rp->nevents == 0) {
		fputs("<p class=\"none\" id=\"jt-events\">none</p>\n", f);
		return;
	}
	fputs("<table class=\"events\" id=\"jt-events\"><thead><tr>"
	    "<th>Time</th><th>Node</th><th>Level</th><th>Code</th>"
	    "<th>What</th></tr></thead><tbody>\n", f);
	for (i = 0; i < rp->nevents; i++) {
		e = &rp->events[i];
		lv = e->level <= EV_ERROR ? levels[e->level] : "error";
		summary_time(a, sizeof(a), e->time_ms);
		fprintf(f, "<tr class=\"lvl-%s\"><td>%s</td><td>", lv, a);
		report_html(f, e->node < rp->meta->nnodes ?
		    rp->meta->nodes[e->node] : "(job)");
		fprintf(f, "</td><td>%s</td><td>", lv);
		report_html(f, e->code);
		fputs("</td><td>", f);
		report_html(f, e->text);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (rp->events_dropped > 0)
		fprintf(f, "<p class=\"none\">%zu more events are not shown"
		    "</p>\n", rp->events_dropped);
}

/* The markers' key, once above the charts. */
static void
report_mark_key(FILE *f)
{
	static const unsigned	flags[] = { DF_STALLED, DF_STRAGGLER,
	    DF_MEMORY, DF_LOST, SUMMARY_F_FAILED, SUMMARY_F_OOM, 0 };
	unsigned		i;

	fputs("<p class=\"legend mark-key\">Markers: ", f);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		fprintf(f, "<span><i class=\"%s\"></i>%s</span>",
		    report_mark_class(flags[i]), report_mark_word(flags[i]));
	fputs(" (a line where it began, a strip as long as it lasted; hover "
	    "for the text)</p>\n", f);
}

/* The body of the page. */
static void
report_body(FILE *f, struct report *rp, const char *path,
    const char *warning)
{
	const struct summary	*sm = rp->sum;
	char			**labels;
	size_t			 r;
	unsigned		 k;

	fputs("<h1>jobtop report", f);
	if (rp->meta->job[0] != '\0') {
		fputs(": job ", f);
		report_html(f, rp->meta->job);
	}
	fputs("</h1>\n", f);
	report_verdict(f, rp);
	report_meta(f, rp, path, warning);
	report_node_table(f, rp);

	fputs("<h2>Job</h2>\n", f);
	report_mark_key(f);
	fputs("<div class=\"grid\">\n", f);
	for (k = 0; k < RM_N; k++)
		if (report_has(rp, k))
			report_chart_job(f, rp, k);
	fputs("</div>\n<h2>Each node</h2>\n<div class=\"grid\">\n", f);
	for (k = 0; k < RM_N; k++)
		if (report_has(rp, k))
			report_chart_nodes(f, rp, k);
	fputs("</div>\n", f);
	report_rank_table(f, rp);
	if (rp->nrank > 0) {
		labels = xcalloc(rp->nrank, sizeof(*labels));
		for (r = 0; r < rp->nrank; r++) {
			labels[r] = xmalloc(PROTO_TEXT_MAX);
			summary_rank_name(sm, &sm->ranks[r], labels[r],
			    PROTO_TEXT_MAX);
		}
		fputs("<div class=\"grid\">\n", f);
		for (k = 0; k < RR_N; k++)
			report_chart_ranks(f, rp, k, labels);
		fputs("</div>\n", f);
		if (sm->nranks > rp->nrank)
			fprintf(f, "<p class=\"none\">ranks past the first %zu "
			    "are not plotted</p>\n", rp->nrank);
		for (r = 0; r < rp->nrank; r++)
			free(labels[r]);
		free(labels);
	}
	report_flag_table(f, rp);
	report_event_table(f, rp);
	fputs("<footer>Made by jobtop ", f);
	report_html(f, rp->meta->version);
	fputs(" from ", f);
	report_html(f, path);
	fprintf(f, ". Self-contained: no script, style or data comes from "
	    "elsewhere, and no script is needed to read it. %d charts.</footer>"
	    "\n", rp->chart);
}

/* Read the whole recording into rp. */
static int
report_gather(struct report *rp, struct rec_reader *rd, struct rec_play *p)
{
	struct rec_msg		 msg;
	struct proto_event	 ev;
	uint64_t		 span;
	int			 rc;

	rp->meta = rec_reader_meta(rd);
	rp->t0 = rp->meta->start_ms;
	rp->t1 = rec_reader_end_ms(rd);
	if (rp->t1 < rp->t0)
		rp->t1 = rp->t0;
	span = rp->t1 - rp->t0;
	rp->nb = REPORT_BUCKETS;
	if (rp->meta->interval_ms > 0 &&
	    span / rp->meta->interval_ms + 1 < rp->nb)
		rp->nb = (unsigned)(span / rp->meta->interval_ms + 1);
	rp->nrb = rp->nb < REPORT_RANK_BUCKETS ? rp->nb : REPORT_RANK_BUCKETS;
	rp->node = xcalloc((size_t)rp->meta->nnodes * RM_N + 1,
	    sizeof(*rp->node));
	rp->sum = summary_new(rp->meta, rp->t0, rp->t1);
	while ((rc = rec_play_next(p, &msg)) > 0 && !outfile_interrupted()) {
		switch (msg.type) {
		case MSG_SAMPLE:
			report_sample(rp, msg.node, stream_model(
			    rec_play_stream(p, msg.node)));
			break;
		case MSG_EVENT:
		case REC_MSG_EVENT:
			report_event(rp, msg.node, msg.time_ms, msg.ev,
			    msg.subj);
			break;
		case REC_MSG_STREAM_ERR:
			memset(&ev, 0, sizeof(ev));
			ev.level = EV_ERROR;
			snprintf(ev.code, sizeof(ev.code), "stream-error");
			snprintf(ev.text, sizeof(ev.text), "%s", msg.text);
			report_event(rp, msg.node, msg.time_ms, &ev, NULL);
			break;
		}
	}
	summary_finish(rp->sum);
	return rc;
}

static void
report_free(struct report *rp)
{
	size_t	i;

	for (i = 0; rp->node != NULL && i < rp->meta->nnodes * RM_N; i++) {
		free(rp->node[i].sum);
		free(rp->node[i].cnt);
	}
	for (i = 0; i < rp->nrank * RR_N; i++) {
		free(rp->rank[i].sum);
		free(rp->rank[i].cnt);
	}
	free(rp->node);
	free(rp->rank);
	free(rp->events);
	summary_free(rp->sum);
}

int
report_file(const char *path, FILE *f)
{
	struct rec_reader	*rd;
	struct rec_play		*p;
	struct report		 rp;
	char			 err[256], *csp;
	const char		*warning;
	int			 rc, ret = 0;

	if (rec_reader_open(path, &rd, err, sizeof(err)) != 0) {
		log_error("%s: %s", path, err);
		return 1;
	}
	memset(&rp, 0, sizeof(rp));
	p = rec_play_new(rd);
	rc = report_gather(&rp, rd, p);
	if (rc < 0) {
		log_error("%s: %s (%s)", path, rec_reader_error(rd),
		    f == stdout ? "the report shows what came before" :
		    "nothing written");
		ret = 1;
	}
	warning = rc < 0 ? rec_reader_error(rd) : rec_reader_warning(rd);
	csp = report_page_csp();
	fputs(report_page_head, f);
	fprintf(f, "<meta http-equiv=\"Content-Security-Policy\" "
	    "content=\"%s\">\n", csp);
	fputs(report_page_style, f);
	fputs("<title>jobtop report", f);
	if (rp.meta->job[0] != '\0') {
		fputs(": job ", f);
		report_html(f, rp.meta->job);
	}
	fputs("</title>\n", f);
	fprintf(f, "<script>%s</script>\n", report_page_catcher_js);
	fputs(report_page_body, f);
	report_body(f, &rp, path, warning);
	fprintf(f, "<script>%s</script>\n", report_page_sort_js);
	fputs(report_page_end, f);
	free(csp);
	report_free(&rp);
	rec_play_free(p);
	rec_reader_free(rd);
	return ret;
}

/*
 * report -o OUT: into a temporary file beside OUT, renamed over it only
 * when the whole page was written; a failure (a missing or damaged
 * recording, a full disk, a signal) leaves OUT as it was.
 */
static int
report_to(const char *path, const char *outpath)
{
	struct outfile	 of;
	char		 err[PATH_MAX + 128];
	FILE		*f;
	int		 rc;

	if (outfile_same(path, outpath)) {
		log_error("report: %s is the recording itself: give another "
		    "output", outpath);
		return 1;
	}
	if (outfile_begin(&of, outpath, 0666, err, sizeof(err)) != 0) {
		log_error("report: %s", err);
		return 1;
	}
	if ((f = fdopen(of.fd, "w")) == NULL)
		fatal("fdopen: %s", strerror(errno));
	rc = report_file(path, f);
	if (fflush(f) != 0 || ferror(f)) {
		if (rc == 0)
			log_error("report: writing %s: %s", outpath,
			    strerror(errno));
		rc = 1;
	}
	if (fclose(f) != 0 && rc == 0) {
		log_error("report: %s: %s", outpath, strerror(errno));
		rc = 1;
	}
	return outfile_end(&of, rc, "report");
}

static void
report_usage(FILE *f)
{
	fprintf(f, "usage: jobtop report FILE -o report.html\n");
}

int
report_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const char	*outpath = NULL;
	char		 err[PATH_MAX + 256], *in;
	int		 ch, rc;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			outpath = optarg;
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		case ':':
			log_error("report: option %s needs an argument",
			    argv[optind - 1]);
			return 2;
		default:
			log_error("report: unknown option %s (see jobtop "
			    "report --help)", argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind != 1) {
		log_error("report: give one recording (jobtop report FILE -o "
		    "report.html)");
		return 2;
	}
	if (outpath == NULL) {
		log_error("report: give the page to write with -o FILE "
		    "(- for standard output)");
		return 2;
	}
	/* A job id (or node name) as -r takes it: its newest recording. */
	if ((in = rec_resolve(argv[optind], err, sizeof(err))) == NULL) {
		log_error("%s", err);
		return 1;
	}
	if (strcmp(outpath, "-") == 0) {
		rc = report_file(in, stdout);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			log_error("report: writing standard output: %s",
			    strerror(errno));
			rc = 1;
		}
	} else
		rc = report_to(in, outpath);
	free(in);
	return rc;
}
