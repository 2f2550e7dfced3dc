/* SPDX-License-Identifier: ISC */
/*
 * out-text: the model as compact top-like text for batch mode: per sample a
 * node line (CPU busy, memory used of total, load averages) and a table of
 * the node's ranks in rank order; once per interval a job line ("job 123:
 * ranks 3 of 4").  A value the node did not send prints as "-", never as
 * 0.  Every string from a node or a recording goes through text_clean, so
 * a command name cannot move the cursor or break the columns.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "out.h"
#include "textsafe.h"
#include "xmalloc.h"

/* Unix milliseconds as local "HH:MM:SS.mmm". */
static void
out_text_time(char *buf, size_t size, uint64_t ms)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);
	char		hms[16];

	if (localtime_r(&t, &tm) == NULL)
		snprintf(hms, sizeof(hms), "??:??:??");
	else
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03u", hms, (unsigned)(ms % 1000));
}

/* Bytes in binary units, at most 6 characters: "512K", "1.5G". */
static void
out_text_bytes(char *buf, size_t size, double v)
{
	static const char	 units[] = "BKMGTPE";
	unsigned		 u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) - 1) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f", v);
	else if (v < 10)
		snprintf(buf, size, "%.1f%c", v, units[u]);
	else
		snprintf(buf, size, "%.0f%c", v, units[u]);
}

/* A metric of the node-wide instance of a group with 2 decimals, or "-". */
static const char *
out_text_metric(const struct node_model *m, const char *group,
    const char *field, char *buf, size_t size)
{
	double	v;

	if (!model_metric_by_name(m, group, "", field, &v))
		return "-";
	snprintf(buf, size, "%.2f", v);
	return buf;
}

/* A derived metric of a group's node-wide instance. */
static int
out_text_derived(const struct node_model *m, const char *group,
    const char *name, double *v)
{
	const struct minst	*mi;
	int			 g;

	if ((g = model_group_index(m, group)) < 0 ||
	    (mi = model_inst_by_name(m, (unsigned)g, "")) == NULL)
		return 0;
	return model_derive(m, mi, name, v);
}

/* Ranks sort by rank id, then pid; those without come last. */
struct out_text_row {
	const struct minst	*mi;
	int64_t			 rank;
	int64_t			 pid;
	int			 has_rank;
};

static int
out_text_cmp(const void *a, const void *b)
{
	const struct out_text_row	*ra = a, *rb = b;

	if (ra->has_rank != rb->has_rank)
		return ra->has_rank ? -1 : 1;
	if (ra->has_rank && ra->rank != rb->rank)
		return ra->rank < rb->rank ? -1 : 1;
	if (ra->pid != rb->pid)
		return ra->pid < rb->pid ? -1 : 1;
	return 0;
}

/* A string field of a rank by name, or "-". */
static const char *
out_text_rank_str(const struct node_model *m, const struct minst *mi,
    const char *field)
{
	const char	*s;
	int		 f;

	if ((f = model_field_index(m, mi->group, field)) < 0 ||
	    (s = model_str(mi, (unsigned)f)) == NULL || *s == '\0')
		return "-";
	return s;
}

static void
out_text_ranks(FILE *f, const struct node_model *m, unsigned g)
{
	struct out_text_row	*rows;
	const struct minst	*mi;
	char			 cpu[16], rss[16], rk[24], pid[24], c1[64];
	char			 c2[64], st[2];
	uint32_t		 n = 0, i;
	int			 frank, fpid, frss;
	int64_t			 v;
	double			 x;

	if (m->gcount[g] == 0)
		return;
	frank = model_field_index(m, g, "rank");
	fpid = model_field_index(m, g, "pid");
	frss = model_field_index(m, g, "rss");
	rows = xreallocarray(NULL, m->gcount[g], sizeof(*rows));
	for (mi = m->gfirst[g]; mi != NULL && n < m->gcount[g];
	    mi = mi->gnext) {
		rows[n].mi = mi;
		rows[n].has_rank = frank >= 0 &&
		    model_value(mi, (unsigned)frank, &rows[n].rank);
		if (fpid < 0 || !model_value(mi, (unsigned)fpid, &rows[n].pid))
			rows[n].pid = -1;
		n++;
	}
	qsort(rows, n, sizeof(*rows), out_text_cmp);
	fprintf(f, "  %5s %8s %1s %6s %6s %-16s %s\n", "RANK", "PID", "S",
	    "%CPU", "RSS", "COMMAND", "WCHAN");
	for (i = 0; i < n; i++) {
		mi = rows[i].mi;
		if (rows[i].has_rank)
			snprintf(rk, sizeof(rk), "%" PRId64, rows[i].rank);
		else
			snprintf(rk, sizeof(rk), "-");
		if (rows[i].pid >= 0)
			snprintf(pid, sizeof(pid), "%" PRId64, rows[i].pid);
		else
			snprintf(pid, sizeof(pid), "-");
		if (model_derive(m, mi, "cpu", &x))
			snprintf(cpu, sizeof(cpu), "%.1f", x);
		else
			snprintf(cpu, sizeof(cpu), "-");
		snprintf(rss, sizeof(rss), "-");
		if (frss >= 0 && model_value(mi, (unsigned)frss, &v))
			out_text_bytes(rss, sizeof(rss), (double)v);
		fprintf(f, "  %5s %8s %1s %6s %6s %-16s %s\n", rk, pid,
		    text_clean(st, sizeof(st),
		    out_text_rank_str(m, mi, "state")), cpu, rss,
		    text_clean(c1, sizeof(c1),
		    out_text_rank_str(m, mi, "comm")),
		    text_clean(c2, sizeof(c2),
		    out_text_rank_str(m, mi, "wchan")));
	}
	free(rows);
}

static void
out_text_sample(FILE *f, const struct node_model *m)
{
	char	 when[32], cpu[16], used[16], total[16], l1[16], l5[16];
	char	 l15[16], name[PROTO_HOST_MAX];
	double	 v;
	int64_t	 t;
	int	 g, fi;

	if (m->schema == NULL)
		return;
	out_text_time(when, sizeof(when), m->time_ms);
	if (out_text_derived(m, "cpu", "busy", &v))
		snprintf(cpu, sizeof(cpu), "%.1f%%", v);
	else
		snprintf(cpu, sizeof(cpu), "-");
	snprintf(used, sizeof(used), "-");
	snprintf(total, sizeof(total), "-");
	if (out_text_derived(m, "mem", "used", &v))
		out_text_bytes(used, sizeof(used), v);
	g = model_group_index(m, "mem");
	if (g >= 0 && (fi = model_field_index(m, (unsigned)g, "total")) >= 0) {
		const struct minst *mi = model_inst_by_name(m, (unsigned)g,
		    "");
		if (mi != NULL && model_value(mi, (unsigned)fi, &t))
			out_text_bytes(total, sizeof(total), (double)t);
	}
	fprintf(f, "%s %s #%" PRIu64 "  cpu %s  mem %s/%s  load %s %s %s\n",
	    text_clean(name, sizeof(name), model_name(m)), when, m->seq,
	    cpu, used, total,
	    out_text_metric(m, "load", "load1", l1, sizeof(l1)),
	    out_text_metric(m, "load", "load5", l5, sizeof(l5)),
	    out_text_metric(m, "load", "load15", l15, sizeof(l15)));
	if ((g = model_group_index(m, OUT_RANK_GROUP)) >= 0)
		out_text_ranks(f, m, (unsigned)g);
}

static void
out_text_hello(FILE *f, const struct node_model *m)
{
	const struct model_hello	*h = &m->hello;
	const struct model_source	*src;
	char				 mem[16], when[32], buf[PROTO_TEXT_MAX];
	unsigned			 i;

	out_text_bytes(mem, sizeof(mem), (double)h->mem_total);
	out_text_time(when, sizeof(when), h->start_ms);
	fprintf(f, "%s", text_clean(buf, sizeof(buf), model_name(m)));
	fprintf(f, " %s hello: kernel %s", when,
	    text_clean(buf, sizeof(buf), h->kernel));
	fprintf(f, " %s", text_clean(buf, sizeof(buf), h->arch));
	fprintf(f, ", %u cpus, %s memory, probe %s", h->ncpu, mem,
	    text_clean(buf, sizeof(buf), h->version));
	fprintf(f, " (protocol %u.%u), interval %.3fs", h->major, h->minor,
	    h->interval_ms / 1000.0);
	if (h->job[0] != '\0')
		fprintf(f, ", job %s", text_clean(buf, sizeof(buf),
		    h->job));
	fputs("; sources:", f);
	for (i = 0; i < h->nsources; i++) {
		src = &h->sources[i];
		fprintf(f, "%s %s", i > 0 ? "," : "",
		    text_clean(buf, sizeof(buf), src->name));
		if (src->on)
			fputs(" on", f);
		else
			fprintf(f, " off (%s)", text_clean(buf,
			    sizeof(buf), src->reason));
	}
	fputc('\n', f);
}

static void
out_text_event(FILE *f, const struct node_model *m,
    const struct proto_event *ev, const struct rec_subject *sj)
{
	static const char	*levels[] = { "info", "warn", "error" };
	char			 when[32], name[PROTO_HOST_MAX];
	char			 code[PROTO_NAME_MAX], text[PROTO_TEXT_MAX];

	out_text_time(when, sizeof(when), ev->time_ms);
	fprintf(f, "%s %s %s %s: %s\n",
	    text_clean(name, sizeof(name), model_name(m)), when,
	    ev->level <= EV_ERROR ? levels[ev->level] : "error",
	    text_clean(code, sizeof(code), ev->code),
	    text_clean(text, sizeof(text), ev->text));
}

static void
out_text_bye(FILE *f, const struct node_model *m)
{
	char	when[32], name[PROTO_HOST_MAX], text[PROTO_TEXT_MAX];

	out_text_time(when, sizeof(when), m->time_ms);
	fprintf(f, "%s %s probe ended: %s (%u)\n",
	    text_clean(name, sizeof(name), model_name(m)), when,
	    text_clean(text, sizeof(text),
	    m->bye_text != NULL ? m->bye_text : ""), m->bye_code);
}

static void
out_text_state(FILE *f, const char *node, uint64_t ms, const char *state,
    int phase)
{
	char	when[32], name[PROTO_HOST_MAX], clean[256];

	out_text_time(when, sizeof(when), ms);
	fprintf(f, "%s %s: %s\n", when, text_clean(name, sizeof(name), node),
	    text_clean(clean, sizeof(clean), state));
}

/* "HH:MM:SS.mmm job 123: ranks 3 of 4" ("procs 5" without rank ids);
 * "HH:MM:SS.mmm job 123: COMPLETED" once it ended. */
static void
out_text_job(FILE *f, uint64_t ms, const struct out_job *j)
{
	char	when[32], id[128], state[64];

	out_text_time(when, sizeof(when), ms);
	fprintf(f, "%s job %s: ", when, text_clean(id, sizeof(id), j->id));
	if (j->state != NULL) {
		fprintf(f, "%s\n", text_clean(state, sizeof(state),
		    j->state));
		return;
	}
	if (j->ranks >= 0)
		fprintf(f, "ranks %ld", j->ranks);
	else
		fprintf(f, "procs %ld", j->procs);
	if (j->ntasks > 0)
		fprintf(f, " of %ld", j->ntasks);
	fputc('\n', f);
}

/* "HH:MM:SS.mmm node1: transport ssh (libssh2: RSA key needs ...)" */
static void
out_text_transport(FILE *f, const char *node, uint64_t ms, const char *t,
    const char *skipped)
{
	char	when[32], name[PROTO_HOST_MAX], tr[64], why[512];

	out_text_time(when, sizeof(when), ms);
	fprintf(f, "%s %s: transport %s", when, text_clean(name, sizeof(name),
	    node), text_clean(tr, sizeof(tr), t));
	if (*skipped != '\0')
		fprintf(f, " (%s)", text_clean(why, sizeof(why), skipped));
	fputc('\n', f);
}

const struct output out_text = {
	.name = "text",
	.hello = out_text_hello,
	.sample = out_text_sample,
	.event = out_text_event,
	.bye = out_text_bye,
	.state = out_text_state,
	.job = out_text_job,
	.transport = out_text_transport,
};
