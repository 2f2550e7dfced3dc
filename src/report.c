/*
 * report: one pass over the recording (rec_play) gathers per-node series
 * of the main metrics, and of every optional source's metric the nodes
 * sent (GPUs, InfiniBand, Lustre, NFS, RAPL and whole-node power,
 * temperatures, IPC, the ranks' mean share of CPU time in MPI, as the
 * monitor's history derives them), and per-rank CPU, RSS, IPC and MPI
 * share into time buckets (means),
 * the events and the flagged ones; the page (report-page.c) is written
 * around them as one JSON document the page's script draws from.  The
 * number of buckets is bounded, so the page stays small however long the
 * recording is; a bucket without data is null, never 0.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "history.h"
#include "log.h"
#include "model.h"
#include "out-json.h"
#include "out.h"
#include "outfile.h"
#include "rec.h"
#include "report.h"
#include "xmalloc.h"

#define REPORT_BUCKETS		600	/* points of a node plot at most */
#define REPORT_RANK_BUCKETS	200	/* of a rank plot */
#define REPORT_RANKS_MAX	1024	/* ranks plotted (then "more") */
#define REPORT_EVENTS_MAX	2000

/*
 * The plotted metrics of a node.  How to add one: a row here and either a
 * case in report_node_value or, for a metric of the history (history.h),
 * its HN_* index in report_hn[] (its key, title and unit come from there).
 * A metric is plotted when a node has it.
 */
enum report_metric {
	RM_CPU,
	RM_MEM,
	RM_LOAD,
	RM_DISK_R,
	RM_DISK_W,
	RM_NET_RX,
	RM_NET_TX,
	RM_BASE,
	RM_GPU = RM_BASE,
	RM_GPU_MEM,
	RM_GPU_POWER,
	RM_GPU_TEMP,
	RM_GPU_JOB,
	RM_IB_RX,
	RM_IB_TX,
	RM_LUSTRE_R,
	RM_LUSTRE_W,
	RM_NFS_R,
	RM_NFS_W,
	RM_POWER_PKG,
	RM_POWER_DRAM,
	RM_TEMP,
	RM_IPC,
	RM_MPI,
	RM_POWER_NODE,
	RM_N
};

static const struct {
	const char	*key;
	const char	*title;
	const char	*unit;	/* "%", "B", "B/s", "W", "C", "" */
	const char	*agg;	/* across nodes: "sum", "mean" or "max" */
} report_metrics[RM_BASE] = {
	{ "cpu",	"CPU busy",		"%",	"mean" },
	{ "mem",	"Memory used",		"B",	"sum" },
	{ "load",	"Load average (1 min)",	"",	"mean" },
	{ "disk_read",	"Disk read",		"B/s",	"sum" },
	{ "disk_write",	"Disk write",		"B/s",	"sum" },
	{ "net_rx",	"Network received",	"B/s",	"sum" },
	{ "net_tx",	"Network sent",		"B/s",	"sum" },
};

/* The history metric of each optional one. */
static const enum hist_node_metric report_hn[RM_N - RM_BASE] = {
	HN_GPU, HN_GPU_MEM, HN_GPU_POWER, HN_GPU_TEMP, HN_GPU_JOB,
	HN_IB_RX, HN_IB_TX, HN_LUSTRE_READ, HN_LUSTRE_WRITE, HN_NFS_READ,
	HN_NFS_WRITE, HN_POWER_PKG, HN_POWER_DRAM, HN_TEMP, HN_IPC, HN_MPI,
	HN_POWER_NODE
};

/* A metric's description, wherever it comes from. */
static void
report_metric_info(unsigned k, const char **key, const char **title,
    const char **unit, const char **agg)
{
	const struct hist_metric_info	*hi;

	if (k < RM_BASE) {
		*key = report_metrics[k].key;
		*title = report_metrics[k].title;
		*unit = report_metrics[k].unit;
		*agg = report_metrics[k].agg;
		return;
	}
	hi = &hist_node_info[report_hn[k - RM_BASE]];
	*key = hi->key;
	*title = hi->title;
	*unit = hi->unit;
	*agg = hi->agg;
}

/* Means per bucket: sums and counts, allocated on the first value (NULL:
 * none yet), so a metric no node has costs nothing. */
struct report_series {
	double		*sum;
	uint32_t	*cnt;
	unsigned	 n;
};

struct report_rank {
	int64_t		 key;		/* rank id, else pid */
	int		 is_rank;
	char		 comm[PROTO_NAME_MAX];
	struct report_series cpu, rss, ipc, mpi;
};

struct report_node {
	struct report_series	 m[RM_N];
	struct report_rank	*ranks;
	size_t			 nranks;
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
	uint64_t		 t0, t1;	/* unix ms */
	unsigned		 nb, nrb;	/* buckets */
	struct report_node	*nodes;
	size_t			 nranks;	/* all nodes */
	size_t			 ranks_dropped;
	struct report_event	*events;
	size_t			 nevents, capevents, events_dropped;
	uint64_t		 samples;
};

static void
report_series_init(struct report_series *s, unsigned n)
{
	s->sum = NULL;
	s->cnt = NULL;
	s->n = n;
}

static void
report_series_free(struct report_series *s)
{
	free(s->sum);
	free(s->cnt);
}

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
report_add(struct report_series *s, unsigned b, double v)
{
	if (s->sum == NULL) {
		s->sum = xcalloc(s->n, sizeof(*s->sum));
		s->cnt = xcalloc(s->n, sizeof(*s->cnt));
	}
	s->sum[b] += v;
	s->cnt[b]++;
}

/* The sum of a field's metric over a group's instances (lo excluded):
 * 1 when any is present. */
static int
report_group_sum(const struct node_model *m, const char *group,
    const char *field, double *v)
{
	const struct minst	*mi;
	double			 x;
	int			 g, f, any = 0;

	if ((g = model_group_index(m, group)) < 0 ||
	    (f = model_field_index(m, (unsigned)g, field)) < 0)
		return 0;
	*v = 0;
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if (strcmp(mi->name, "lo") == 0 ||
		    !model_metric(m, mi, (unsigned)f, &x))
			continue;
		*v += x;
		any = 1;
	}
	return any;
}

/* A derived value of a node-wide group. */
static int
report_derived(const struct node_model *m, const char *group,
    const char *name, double *v)
{
	const struct minst	*mi;
	int			 g;

	if ((g = model_group_index(m, group)) < 0 ||
	    (mi = model_inst_by_name(m, (unsigned)g, "")) == NULL)
		return 0;
	return model_derive(m, mi, name, v);
}

/* One metric of a node's current sample: 1 when present. */
static int
report_node_value(const struct node_model *m, enum report_metric k,
    double *v)
{
	switch (k) {
	case RM_CPU:
		return report_derived(m, "cpu", "busy", v);
	case RM_MEM:
		return report_derived(m, "mem", "used", v);
	case RM_LOAD:
		return model_metric_by_name(m, "load", "", "load1", v);
	case RM_DISK_R:
		return report_group_sum(m, "disk", "read_bytes", v);
	case RM_DISK_W:
		return report_group_sum(m, "disk", "write_bytes", v);
	case RM_NET_RX:
		return report_group_sum(m, "net", "rx_bytes", v);
	case RM_NET_TX:
		return report_group_sum(m, "net", "tx_bytes", v);
	default:
		return 0;
	}
}

/* The node's series of a rank (by rank id, else pid), made on first
 * sight; NULL past the limit. */
static struct report_rank *
report_rank(struct report *rp, struct report_node *nd, int64_t key,
    int is_rank)
{
	struct report_rank	*rr;
	size_t			 i;

	for (i = 0; i < nd->nranks; i++) {
		if (nd->ranks[i].key == key && nd->ranks[i].is_rank == is_rank)
			return &nd->ranks[i];
	}
	if (rp->nranks >= REPORT_RANKS_MAX) {
		rp->ranks_dropped++;
		return NULL;
	}
	nd->ranks = xreallocarray(nd->ranks, nd->nranks + 1,
	    sizeof(*nd->ranks));
	rr = &nd->ranks[nd->nranks++];
	memset(rr, 0, sizeof(*rr));
	rr->key = key;
	rr->is_rank = is_rank;
	report_series_init(&rr->cpu, rp->nrb);
	report_series_init(&rr->rss, rp->nrb);
	report_series_init(&rr->ipc, rp->nrb);
	report_series_init(&rr->mpi, rp->nrb);
	rp->nranks++;
	return rr;
}

/* A process's instructions per cycle over the last interval, from its
 * perf counters (group "rankperf", an instance named by pid): 1 when
 * known. */
static int
report_rank_ipc(const struct node_model *m, int64_t pid, double *v)
{
	const struct minst	*mi;
	char			 name[24];
	double			 ins, cyc;
	int			 g, fi, fc;

	if ((g = model_group_index(m, "rankperf")) < 0 ||
	    (fi = model_field_index(m, (unsigned)g, "instructions")) < 0 ||
	    (fc = model_field_index(m, (unsigned)g, "cycles")) < 0)
		return 0;
	snprintf(name, sizeof(name), "%lld", (long long)pid);
	if ((mi = model_inst_by_name(m, (unsigned)g, name)) == NULL ||
	    !model_metric(m, mi, (unsigned)fi, &ins) ||
	    !model_metric(m, mi, (unsigned)fc, &cyc) || cyc <= 0)
		return 0;
	*v = ins / cyc;
	return 1;
}

/* A process's share of CPU time in MPI over the last interval, percent
 * (group "rankmpi", an instance named by pid): 1 when known. */
static int
report_rank_mpi(const struct node_model *m, int64_t pid, double *v)
{
	const struct minst	*mi;
	char			 name[24];
	int			 g;

	if ((g = model_group_index(m, "rankmpi")) < 0)
		return 0;
	snprintf(name, sizeof(name), "%lld", (long long)pid);
	return (mi = model_inst_by_name(m, (unsigned)g, name)) != NULL &&
	    model_derive(m, mi, "share", v);
}

/* Gather one sample of node i. */
static void
report_sample(struct report *rp, unsigned i, const struct node_model *m)
{
	struct report_node	*nd = &rp->nodes[i];
	struct report_rank	*rr;
	const struct minst	*mi;
	const char		*comm;
	int64_t			 key, pid;
	double			 v, hv[HN_NMETRICS];
	unsigned		 b, k;
	int			 g, fr, fp, fc, frss, is_rank;

	if (m->schema == NULL)
		return;
	rp->samples++;
	b = report_bucket(rp, m->time_ms, rp->nb);
	for (k = 0; k < RM_BASE; k++) {
		if (report_node_value(m, (enum report_metric)k, &v))
			report_add(&nd->m[k], b, v);
	}
	history_node_values(m, hv);
	for (k = RM_BASE; k < RM_N; k++) {
		v = hv[report_hn[k - RM_BASE]];
		if (isfinite(v))
			report_add(&nd->m[k], b, v);
	}
	if ((g = model_group_index(m, OUT_RANK_GROUP)) < 0)
		return;
	fr = model_field_index(m, (unsigned)g, "rank");
	fp = model_field_index(m, (unsigned)g, "pid");
	fc = model_field_index(m, (unsigned)g, "comm");
	frss = model_field_index(m, (unsigned)g, "rss");
	b = report_bucket(rp, m->time_ms, rp->nrb);
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		is_rank = fr >= 0 && model_value(mi, (unsigned)fr, &key);
		if (!is_rank && (fp < 0 || !model_value(mi, (unsigned)fp,
		    &key)))
			continue;
		if ((rr = report_rank(rp, nd, key, is_rank)) == NULL)
			continue;
		if (fc >= 0 && (comm = model_str(mi, (unsigned)fc)) != NULL)
			snprintf(rr->comm, sizeof(rr->comm), "%s", comm);
		if (model_derive(m, mi, "cpu", &v))
			report_add(&rr->cpu, b, v);
		if (frss >= 0 && model_metric(m, mi, (unsigned)frss, &v))
			report_add(&rr->rss, b, v);
		if (fp >= 0 && model_value(mi, (unsigned)fp, &pid) &&
		    report_rank_ipc(m, pid, &v))
			report_add(&rr->ipc, b, v);
		if (fp >= 0 && model_value(mi, (unsigned)fp, &pid) &&
		    report_rank_mpi(m, pid, &v))
			report_add(&rr->mpi, b, v);
	}
}

/* Keep an event for the page. */
static void
report_event(struct report *rp, uint32_t node, uint64_t t,
    const struct proto_event *ev)
{
	struct report_event	*e;

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

/* Is an event one the page lists as flagged? */
static int
report_flagged(const struct report_event *e)
{
	static const char *const words[] = {
		"stall", "straggl", "memory", "oom", "lost", "swap"
	};
	size_t	i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcasestr(e->code, words[i]) != NULL ||
		    (strcmp(e->code, "state") == 0 &&
		    strcasestr(e->text, words[i]) != NULL))
			return 1;
	}
	return strcmp(e->code, "state") == 0 &&
	    strncmp(e->text, "failed", 6) == 0;
}

/* The means of a series as a JSON array (null for empty buckets). */
static void
report_json_series(FILE *f, const struct report_series *s, unsigned n)
{
	unsigned	b;

	fputc('[', f);
	for (b = 0; b < n; b++) {
		if (b > 0)
			fputc(',', f);
		if (s->cnt == NULL || s->cnt[b] == 0)
			fputs("null", f);
		else
			out_json_number(f, s->sum[b] / s->cnt[b]);
	}
	fputc(']', f);
}

/* The bucket times as seconds since the start (centres). */
static void
report_json_times(FILE *f, const struct report *rp, unsigned n)
{
	double		span = (double)(rp->t1 - rp->t0 + 1);
	unsigned	b;

	fputc('[', f);
	for (b = 0; b < n; b++) {
		if (b > 0)
			fputc(',', f);
		out_json_number(f, (span * (b + 0.5) / n) / 1000.0);
	}
	fputc(']', f);
}

static void
report_json_str(FILE *f, const char *s)
{
	out_json_string(f, s, strlen(s));
}

/* Everything the page draws, as one JSON document. */
static void
report_json(FILE *f, const struct report *rp, const char *path,
    const char *warning)
{
	const struct rec_meta	*m = rp->meta;
	const struct report_rank *rr;
	const struct report_event *e;
	static const char	*levels[] = { "info", "warn", "error" };
	const char		*name, *key, *title, *unit, *agg;
	size_t			 i, j;
	unsigned		 k;
	int			 first, any;

	fputs("{\"meta\":{\"file\":", f);
	report_json_str(f, path);
	fputs(",\"job\":", f);
	report_json_str(f, m->job);
	fputs(",\"name\":", f);
	report_json_str(f, m->name);
	fputs(",\"user\":", f);
	report_json_str(f, m->user);
	fputs(",\"host\":", f);
	report_json_str(f, m->host);
	fputs(",\"version\":", f);
	report_json_str(f, m->version);
	fprintf(f, ",\"format\":\"%u.%u\",\"start\":", m->major, m->minor);
	out_json_time(f, rp->t0);
	fputs(",\"end\":", f);
	out_json_time(f, rp->t1);
	fputs(",\"interval\":", f);
	out_json_number(f, m->interval_ms / 1000.0);
	fprintf(f, ",\"samples\":%" PRIu64 ",\"warning\":", rp->samples);
	report_json_str(f, warning != NULL ? warning : "");
	fprintf(f, ",\"ranks_dropped\":%zu,\"events_dropped\":%zu",
	    rp->ranks_dropped, rp->events_dropped);
	fputs(",\"nodes\":[", f);
	for (i = 0; i < m->nnodes; i++) {
		if (i > 0)
			fputc(',', f);
		report_json_str(f, m->nodes[i]);
	}
	fputs("]},\"t\":", f);
	report_json_times(f, rp, rp->nb);
	fputs(",\"metrics\":[", f);
	first = 1;
	for (k = 0; k < RM_N; k++) {
		/* A metric only when a node sent it. */
		for (i = 0, any = 0; i < m->nnodes && !any; i++)
			any = rp->nodes[i].m[k].sum != NULL;
		if (!any)
			continue;
		report_metric_info(k, &key, &title, &unit, &agg);
		fprintf(f, "%s{\"key\":\"%s\",\"title\":\"%s\",\"unit\":\"%s\","
		    "\"agg\":\"%s\",\"nodes\":[", first ? "" : ",", key, title,
		    unit, agg);
		first = 0;
		for (i = 0; i < m->nnodes; i++) {
			if (i > 0)
				fputc(',', f);
			report_json_series(f, &rp->nodes[i].m[k], rp->nb);
		}
		fputs("]}", f);
	}
	fputs("],\"ranks\":{\"t\":", f);
	report_json_times(f, rp, rp->nrb);
	fputs(",\"list\":[", f);
	first = 1;
	for (i = 0; i < m->nnodes; i++) {
		for (j = 0; j < rp->nodes[i].nranks; j++) {
			rr = &rp->nodes[i].ranks[j];
			fputs(first ? "{\"node\":" : ",{\"node\":", f);
			first = 0;
			report_json_str(f, m->nodes[i]);
			fprintf(f, ",\"%s\":%" PRId64 ",\"comm\":",
			    rr->is_rank ? "rank" : "pid", rr->key);
			report_json_str(f, rr->comm);
			fputs(",\"cpu\":", f);
			report_json_series(f, &rr->cpu, rp->nrb);
			fputs(",\"rss\":", f);
			report_json_series(f, &rr->rss, rp->nrb);
			if (rr->mpi.sum != NULL) {
				fputs(",\"mpi\":", f);
				report_json_series(f, &rr->mpi, rp->nrb);
			}
			if (rr->ipc.sum != NULL) {
				fputs(",\"ipc\":", f);
				report_json_series(f, &rr->ipc, rp->nrb);
			}
			fputc('}', f);
		}
	}
	fputs("]},\"events\":[", f);
	for (i = 0; i < rp->nevents; i++) {
		e = &rp->events[i];
		name = e->node == REC_NODE_NONE ? "" : m->nodes[e->node];
		fputs(i > 0 ? ",{\"time\":" : "{\"time\":", f);
		out_json_time(f, e->time_ms);
		fputs(",\"node\":", f);
		report_json_str(f, name);
		fprintf(f, ",\"level\":\"%s\",\"code\":",
		    e->level <= EV_ERROR ? levels[e->level] : "error");
		report_json_str(f, e->code);
		fputs(",\"text\":", f);
		report_json_str(f, e->text);
		fprintf(f, ",\"flagged\":%s}", report_flagged(e) ? "true" :
		    "false");
	}
	fputs("]}", f);
}

/* Copy JSON into the page: '<', '>' and '&' escaped so nothing in a
 * string can close the script element. */
static void
report_put_json(FILE *f, const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '<':
			fputs("\\u003c", f);
			break;
		case '>':
			fputs("\\u003e", f);
			break;
		case '&':
			fputs("\\u0026", f);
			break;
		default:
			fputc(s[i], f);
			break;
		}
	}
}

/* Read the whole recording into rp. */
static int
report_gather(struct report *rp, struct rec_reader *rd, struct rec_play *p)
{
	struct rec_msg		 msg;
	struct proto_event	 ev;
	unsigned		 i, k;
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
	rp->nodes = xcalloc(rp->meta->nnodes, sizeof(*rp->nodes));
	for (i = 0; i < rp->meta->nnodes; i++) {
		for (k = 0; k < RM_N; k++)
			report_series_init(&rp->nodes[i].m[k], rp->nb);
	}
	while ((rc = rec_play_next(p, &msg)) > 0 && !outfile_interrupted()) {
		switch (msg.type) {
		case MSG_SAMPLE:
			report_sample(rp, msg.node, stream_model(
			    rec_play_stream(p, msg.node)));
			break;
		case MSG_EVENT:
		case REC_MSG_EVENT:
			report_event(rp, msg.node, msg.time_ms, msg.ev);
			break;
		case REC_MSG_STREAM_ERR:
			memset(&ev, 0, sizeof(ev));
			ev.level = EV_ERROR;
			snprintf(ev.code, sizeof(ev.code), "stream-error");
			snprintf(ev.text, sizeof(ev.text), "%s", msg.text);
			report_event(rp, msg.node, msg.time_ms, &ev);
			break;
		}
	}
	return rc;
}

static void
report_free(struct report *rp)
{
	size_t		i, j;
	unsigned	k;

	for (i = 0; rp->nodes != NULL && i < rp->meta->nnodes; i++) {
		for (k = 0; k < RM_N; k++)
			report_series_free(&rp->nodes[i].m[k]);
		for (j = 0; j < rp->nodes[i].nranks; j++) {
			report_series_free(&rp->nodes[i].ranks[j].cpu);
			report_series_free(&rp->nodes[i].ranks[j].rss);
			report_series_free(&rp->nodes[i].ranks[j].ipc);
			report_series_free(&rp->nodes[i].ranks[j].mpi);
		}
		free(rp->nodes[i].ranks);
	}
	free(rp->nodes);
	free(rp->events);
}

int
report_file(const char *path, FILE *f)
{
	struct rec_reader	*rd;
	struct rec_play		*p;
	struct report		 rp;
	char			 err[256], *json = NULL, *csp;
	const char		*warning;
	size_t			 len = 0;
	FILE			*mf;
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
	if ((mf = open_memstream(&json, &len)) == NULL)
		fatal("open_memstream: %s", strerror(errno));
	report_json(mf, &rp, path, warning);
	if (fclose(mf) != 0)
		fatal("open_memstream: %s", strerror(errno));
	csp = report_page_csp();
	fputs(report_page_head, f);
	fprintf(f, "<meta http-equiv=\"Content-Security-Policy\" "
	    "content=\"%s\">\n", csp);
	fputs(report_page_style, f);
	fprintf(f, "<script>%s</script>\n", report_page_catcher_js);
	fputs(report_page_body, f);
	report_put_json(f, json, len);
	fputs(report_page_data_end, f);
	fprintf(f, "<script>%s</script>\n", report_page_draw_js);
	fputs(report_page_end, f);
	free(csp);
	free(json);
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
	if (strcmp(outpath, "-") == 0) {
		rc = report_file(argv[optind], stdout);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			log_error("report: writing standard output: %s",
			    strerror(errno));
			rc = 1;
		}
		return rc;
	}
	return report_to(argv[optind], outpath);
}
