/* SPDX-License-Identifier: ISC */
/*
 * export: play a recording (rec_play) and print what each message means.
 * JSON and text go through the live outputs, message by message, exactly
 * as batch mode's hooks print them: samples, the probes' events, and the
 * node states the monitor recorded as events with code "state".  The
 * detector runs again over the replayed samples, as live batch mode runs
 * it, so node and rank records carry the same "flags"; the job record
 * comes once per interval as live.  The other formats are writers
 * (exp-*.c) fed by one walk over each sample (export_walk): the values
 * out_json_value gives, with their units, inside the --begin/--end window
 * and the --fields selection.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect.h"
#include "exp-sel.h"
#include "export.h"
#include "feed.h"
#include "history.h"
#include "log.h"
#include "model.h"
#include "monitor.h"
#include "out-json.h"
#include "outfile.h"
#include "rec.h"
#include "xmalloc.h"

/*
 * A CSV field, quoted when it must be; control bytes become '?'.  A text
 * that a spreadsheet would take for a formula (it starts with = + - @,
 * a tab or a CR) gets a leading "'", so a process named "=cmd|..." stays
 * text (numbers are written by the callers, never through here).
 */
void
export_csv_field(FILE *f, const char *s)
{
	const char	*p;
	int		 formula;

	formula = s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
	if (strpbrk(s, ",\"\r\n") == NULL && s[0] != ' ' &&
	    (s[0] == '\0' || s[strlen(s) - 1] != ' ')) {
		if (formula)
			fputc('\'', f);
		for (p = s; *p != '\0'; p++)
			fputc((unsigned char)*p < ' ' ? '?' : *p, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (p = s; *p != '\0'; p++) {
		if (*p == '"')
			fputs("\"\"", f);
		else if (*p == '\n' || *p == '\r')
			fputc(*p, f);
		else
			fputc((unsigned char)*p < ' ' ? '?' : *p, f);
	}
	fputc('"', f);
}

/* The recording's "transport" event ("ssh; skipped: libssh2: ...", as
 * src/main.c writes it) back into the batch record the live run printed. */
static void
export_transport(FILE *f, const struct output *out, const char *node,
    uint64_t ms, const char *text)
{
	static const char	 sep[] = "; skipped: ";
	char			 t[PROTO_TEXT_MAX];
	const char		*skipped = "", *p;

	snprintf(t, sizeof(t), "%s", text);
	if ((p = strstr(t, sep)) != NULL) {
		skipped = text + (p - t) + sizeof(sep) - 1;
		t[p - t] = '\0';
	}
	out->transport(f, node, ms, t, skipped);
}

/*
 * The formats, a row per format and layout.  How to add a format: write
 * exp-NAME.c with one const struct exp_writer (begin, sample, note, end),
 * declare it and its enum export_format value in export.h, and add its
 * row here with its option: the command line (getopt's table), the usage
 * and the error texts are built from these rows.  JSON and text are not
 * writers but the live outputs (JSON's row has no writer, text none).
 */
static const struct exp_row {
	enum export_format	 fmt;
	enum export_wide	 wide;
	const struct exp_writer	*w;		/* NULL: a live output */
	const char		*option;	/* --OPTION, or NULL: another
						 * layout of the format */
	const char		*arg;		/* its argument, or NULL */
	const char		*more;		/* after it in the synopsis */
	const char		*usage;		/* its lines in --help */
} exp_writers[] = {
	{ .fmt = EXPORT_JSON, .option = "json", .usage =
"  --json         newline-delimited JSON records (NDJSON), as --json live\n" },
	{ .fmt = EXPORT_CSV, .wide = EXPORT_TIDY, .w = &exp_csv_tidy,
	    .option = "csv", .more = " [--wide[=node|rank]]", .usage =
"  --csv          tidy CSV: record,job,time,seq,node,rank,pid,metric,\n"
"                 instance,value,unit,text (value is always a number)\n"
"  --wide[=node|rank]  CSV with a row per node (or rank) sample and a\n"
"                 column per metric\n" },
	{ .fmt = EXPORT_CSV, .wide = EXPORT_WIDE_NODE, .w = &exp_csv_wide },
	{ .fmt = EXPORT_CSV, .wide = EXPORT_WIDE_RANK, .w = &exp_csv_wide },
	{ .fmt = EXPORT_SQLITE, .wide = EXPORT_TIDY, .w = &exp_sqlite,
	    .option = "sqlite", .arg = "DB", .usage =
"  --sqlite DB    into an SQLite database (tables job, nodes, samples,\n"
"                 ranks, events, flags); other jobs already there stay\n" },
	{ .fmt = EXPORT_OPENMETRICS, .wide = EXPORT_TIDY,
	    .w = &exp_openmetrics, .option = "openmetrics", .usage =
"  --openmetrics  OpenMetrics text for promtool tsdb create-blocks-from\n" },
};

#define EXP_NROWS	(sizeof(exp_writers) / sizeof(exp_writers[0]))

const char *
export_format_options(char *buf, size_t bufsz, const char *sep,
    int lower)
{
	size_t	i, n = 0, k;

	if (bufsz == 0)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < EXP_NROWS && n < bufsz; i++) {
		if (exp_writers[i].option == NULL)
			continue;
		n += (size_t)snprintf(buf + n, bufsz - n, "%s--%s",
		    n > 0 ? sep : "", exp_writers[i].option);
		if (exp_writers[i].arg == NULL || n >= bufsz)
			continue;
		k = n + 1;
		n += (size_t)snprintf(buf + n, bufsz - n, " %s",
		    exp_writers[i].arg);
		for (; lower && k < n && k < bufsz; k++)
			buf[k] = (char)(buf[k] >= 'A' && buf[k] <= 'Z' ?
			    buf[k] - 'A' + 'a' : buf[k]);
	}
	return buf;
}

/* The player: the recording, the detector over its samples, the window. */
struct export_play {
	struct exp_ctx		 ctx;
	const struct output	*out;	/* JSON, text, or NULL */
	const struct exp_writer	*w;
	struct monitor		*mon;	/* history, detectors, phases */
	int			 cur;		/* node being printed */
	uint64_t		 begin_ms, end_ms;
	uint64_t		 next_job;
	uint64_t		 interval_ms;
	char			*jobown;	/* ctx.job when made here */
	unsigned char		*united;	/* JSON: units record sent */
};

/* The flags of the record being printed (out_json_set_flags), from the
 * replayed detector, as main_flags gives them live. */
static int
export_flags_of(struct export_play *ep, int node, const struct node_model *m,
    const struct minst *mi, const char **names, int max)
{
	return monitor_flag_names(ep->mon, node, m, mi, names, max);
}

static int
export_json_flags(void *arg, const struct node_model *m,
    const struct minst *mi, const char **names, int max)
{
	struct export_play	*ep = arg;

	return export_flags_of(ep, ep->cur, m, mi, names, max);
}

int
export_flags(struct exp_ctx *ctx, const struct exp_where *w,
    const char **names, int max)
{
	struct export_play	*ep = (struct export_play *)ctx;

	return export_flags_of(ep, w->node, w->m, w->rank, names, max);
}

static int
export_json_keep(void *arg, const char *group, const char *field)
{
	return exp_fields_match(arg, group, field);
}

/*
 * The unit of a value as out_json_value gives it, in buf.  The probe's
 * unit comes from the wire unchecked: anything but printable ASCII, a
 * comma, a quote or a backslash becomes '?', so no output's syntax (CSV,
 * the OpenMetrics HELP line) can be broken by it.
 */
static const char *
export_unit(const struct proto_field *pf, char *buf, size_t len)
{
	char	*p;

	buf[0] = '\0';
	if (pf->kind == PF_STRING)
		return buf;
	if (pf->kind == PF_GAUGE) {
		if (strcmp(pf->unit, "jiffies") == 0)	/* export_walk */
			snprintf(buf, len, "s");
		else if (strcmp(pf->unit, "centi") != 0)
			snprintf(buf, len, "%s", pf->unit);
	} else if (strcmp(pf->unit, "jiffies") == 0 ||
	    strcmp(pf->unit, "cpu-jiffies") == 0)
		snprintf(buf, len, "%%");
	else if (strcmp(pf->unit, "count") == 0 || pf->unit[0] == '\0')
		snprintf(buf, len, "/s");
	else
		snprintf(buf, len, "%s/s", pf->unit);
	for (p = buf; *p != '\0'; p++)
		if (*p <= ' ' || *p > '~' || *p == ',' || *p == '"' ||
		    *p == '\\')
			*p = '?';
	return buf;
}

/* Units of the derived values (model_derived[] has none). */
static const struct {
	const char	*group, *name, *unit;
} export_derived_units[] = {
	{ .group = "cpu", .name = "busy", .unit = "%" },
	{ .group = "mem", .name = "used", .unit = "bytes" },
	{ .group = "rank", .name = "cputime", .unit = "s" },
	{ .group = "rank", .name = "cpu", .unit = "%" },
	/* Unix time */
	{ .group = "rank", .name = "start_wall", .unit = "s" },
	{ .group = "rankmpi", .name = "share", .unit = "%" },
};

static const char *
export_derived_unit(const char *group, const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(export_derived_units) /
	    sizeof(export_derived_units[0]); i++)
		if (strcmp(export_derived_units[i].group, group) == 0 &&
		    strcmp(export_derived_units[i].name, name) == 0)
			return export_derived_units[i].unit;
	return "";
}

/* Every kept field and derived value of one instance. */
static void
export_walk_inst(struct exp_ctx *ctx, const struct exp_where *w,
    const struct minst *mi, const char *inst, uint64_t skip,
    void (*val)(void *, const struct exp_where *, const struct exp_value *),
    void *arg)
{
	const struct mgroup		*mg = mi->mg;
	const struct model_derived	*d;
	const struct proto_field	*pf;
	struct out_json_val		 ov;
	struct exp_value		 v;
	char				 ubuf[PROTO_UNIT_MAX + 4];
	unsigned			 fi;

	v.group = mg->def->name;
	v.inst = inst;
	for (fi = 0; fi < mi->nfields; fi++) {
		pf = &mg->def->fields[fi];
		if ((skip & ((uint64_t)1 << fi)) != 0 ||
		    !exp_fields_match(ctx->fields, v.group, pf->name) ||
		    !out_json_value(w->m, mi, fi, &ov))
			continue;
		v.field = pf->name;
		v.unit = export_unit(pf, ubuf, sizeof(ubuf));
		v.kind = ov.kind;
		v.i = ov.i;
		v.d = ov.d;
		v.s = ov.s;
		/* A time in clock ticks since the node's boot (start_time):
		 * seconds since boot, as the unit says. */
		if (pf->kind == PF_GAUGE && strcmp(pf->unit, "jiffies") == 0) {
			if (!w->m->have_hello || w->m->hello.clk_tck == 0)
				continue;
			v.kind = 'd';
			v.d = (double)ov.i / w->m->hello.clk_tck;
		}
		val(arg, w, &v);
	}
	for (d = model_derived; d->group != NULL; d++) {
		if (strcmp(d->group, v.group) != 0 ||
		    !exp_fields_match(ctx->fields, d->group, d->name) ||
		    !d->fn(w->m, mi, &v.d))
			continue;
		v.field = d->name;
		v.unit = export_derived_unit(d->group, d->name);
		v.kind = 'd';
		val(arg, w, &v);
	}
}

void
export_walk(struct exp_ctx *ctx, int node, const struct node_model *m,
    void (*rec)(void *, const struct exp_where *),
    void (*val)(void *, const struct exp_where *, const struct exp_value *),
    void *arg)
{
	const struct minst	*mi;
	struct exp_where	 w;
	uint64_t		 skip;
	unsigned		 g;
	int			 rank_g, fr, fp, named;

	if (m->schema == NULL)
		return;
	memset(&w, 0, sizeof(w));
	w.time_ms = m->time_ms;
	w.seq = m->seq;
	w.node = node;
	w.name = ctx->meta->nodes[node];
	w.m = m;
	if (rec != NULL)
		rec(arg, &w);
	rank_g = model_group_index(m, OUT_RANK_GROUP);
	for (g = 0; g < m->schema->ngroups; g++) {
		if ((int)g == rank_g)
			continue;
		named = model_group_named(m, g);
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext)
			export_walk_inst(ctx, &w, mi, named ? mi->name : NULL,
			    0, val, arg);
	}
	if (rank_g < 0)
		return;
	fr = model_field_index(m, (unsigned)rank_g, "rank");
	fp = model_field_index(m, (unsigned)rank_g, "pid");
	skip = (fr >= 0 ? (uint64_t)1 << fr : 0) |
	    (fp >= 0 ? (uint64_t)1 << fp : 0);
	for (mi = m->gfirst[rank_g]; mi != NULL; mi = mi->gnext) {
		w.rank = mi;
		w.have_rank = fr >= 0 && model_value(mi, (unsigned)fr,
		    &w.rank_id);
		w.have_pid = fp >= 0 && model_value(mi, (unsigned)fp, &w.pid);
		if (rec != NULL)
			rec(arg, &w);
		export_walk_inst(ctx, &w, mi, NULL, skip, val, arg);
	}
}

/*
 * {"time":T,"node":N,"type":"units","units":{"cpu.busy":"%",...}}: the
 * unit of every key the node's records can carry, as the other formats
 * give them, once before the node's first record (JSON only).
 */
void
export_json_units(FILE *f, const char *name, const struct node_model *m,
    const struct exp_fields *fields)
{
	const struct model_derived	*d;
	const struct mgroup		*mg;
	char				 key[2 * PROTO_NAME_MAX + 2];
	char				 ubuf[PROTO_UNIT_MAX + 4];
	const char			*u;
	unsigned			 g, fi;
	int				 n = 0;

	fputs("{\"time\":", f);
	out_json_time(f, m->time_ms);
	fputs(",\"node\":", f);
	out_json_string(f, name, strlen(name));
	fputs(",\"type\":\"units\",\"units\":{", f);
	for (g = 0; g < m->schema->ngroups; g++) {
		mg = model_group(m, g);
		for (fi = 0; fi < mg->def->nfields; fi++) {
			if (mg->def->fields[fi].kind == PF_STRING ||
			    !exp_fields_match(fields, mg->def->name,
			    mg->def->fields[fi].name))
				continue;
			snprintf(key, sizeof(key), "%s.%s", mg->def->name,
			    mg->def->fields[fi].name);
			fputs(n++ > 0 ? "," : "", f);
			out_json_string(f, key, strlen(key));
			fputc(':', f);
			/* JSON keeps start_time in clock ticks. */
			if (mg->def->fields[fi].kind == PF_GAUGE && strcmp(
			    mg->def->fields[fi].unit, "jiffies") == 0)
				fputs("\"ticks\"", f);
			else {
				u = export_unit(&mg->def->fields[fi], ubuf,
				    sizeof(ubuf));
				out_json_string(f, u, strlen(u));
			}
		}
		for (d = model_derived; d->group != NULL; d++) {
			if (strcmp(d->group, mg->def->name) != 0 ||
			    !exp_fields_match(fields, d->group, d->name))
				continue;
			snprintf(key, sizeof(key), "%s.%s", d->group, d->name);
			fputs(n++ > 0 ? "," : "", f);
			out_json_string(f, key, strlen(key));
			fprintf(f, ":\"%s\"", export_derived_unit(d->group,
			    d->name));
		}
	}
	fputs("}}\n", f);
}

char *
export_job_id(const struct rec_meta *meta)
{
	struct tm	tm;
	time_t		t;
	char		start[32];

	if (meta->job[0] != '\0')
		return xstrdup(meta->job);
	/* A session of -w nodes: its first node and start, as the
	 * recording is named. */
	t = (time_t)(meta->start_ms / 1000);
	gmtime_r(&t, &tm);
	strftime(start, sizeof(start), "%Y%m%dT%H%M%SZ", &tm);
	return xasprintf("%s-%s", meta->nnodes > 0 ? meta->nodes[0] :
	    "nodes", start);
}

/* ,"gpus":{"node1":[0,1],...}: the scheduler's GPU indexes per node, the
 * nodes it said something of; nothing when it said nothing. */
static void
export_json_gpus(FILE *f, const struct rec_meta *meta)
{
	unsigned	i, k, n = 0;

	if (meta->gpus == NULL)
		return;
	fputs(",\"gpus\":{", f);
	for (i = 0; i < meta->nnodes; i++) {
		if (meta->gpus[i] < 0)
			continue;
		if (n++ > 0)
			fputc(',', f);
		out_json_string(f, meta->nodes[i], strlen(meta->nodes[i]));
		fputs(":[", f);
		for (k = 0; k < 63; k++)
			if (meta->gpus[i] >> k & 1)
				fprintf(f, "%s%u", (meta->gpus[i] &
				    (((int64_t)1 << k) - 1)) != 0 ? "," : "",
				    k);
		fputc(']', f);
	}
	fputc('}', f);
}

/* {"type":"meta",...}: the recording's job, once, first (JSON only). */
void
export_json_meta(FILE *f, const struct rec_meta *meta, const char *job,
    uint64_t end_ms)
{
	unsigned		 i;

	fputs("{\"time\":", f);
	out_json_time(f, meta->start_ms);
	fputs(",\"type\":\"meta\",\"job\":", f);
	out_json_string(f, job, strlen(job));
	fputs(",\"name\":", f);
	out_json_string(f, meta->name, strlen(meta->name));
	fputs(",\"user\":", f);
	out_json_string(f, meta->user, strlen(meta->user));
	fputs(",\"host\":", f);
	out_json_string(f, meta->host, strlen(meta->host));
	fputs(",\"version\":", f);
	out_json_string(f, meta->version, strlen(meta->version));
	if (end_ms > 0) {
		fputs(",\"end\":", f);
		out_json_time(f, end_ms);
	}
	fputs(",\"interval\":", f);
	out_json_number(f, meta->interval_ms / 1000.0);
	if (meta->ntasks > 0)
		fprintf(f, ",\"ntasks\":%ld", meta->ntasks);
	/* The allocation, each only when the scheduler said. */
	if (meta->cpus > 0)
		fprintf(f, ",\"cpus\":%" PRIu64, meta->cpus);
	if (meta->mem > 0)
		fprintf(f, ",\"mem\":%" PRIu64, meta->mem);
	if (meta->time_limit >= 0)
		fprintf(f, ",\"time_limit\":%" PRId64, meta->time_limit);
	else if (meta->time_limit == REC_LIMIT_NONE)
		fputs(",\"time_limit\":null", f);
	if (meta->partition[0] != '\0') {
		fputs(",\"partition\":", f);
		out_json_string(f, meta->partition,
		    strlen(meta->partition));
	}
	fputs(",\"nodes\":[", f);
	for (i = 0; i < meta->nnodes; i++) {
		if (i > 0)
			fputc(',', f);
		out_json_string(f, meta->nodes[i], strlen(meta->nodes[i]));
	}
	fputc(']', f);
	export_json_gpus(f, meta);
	fputs("}\n", f);
}

/* Batch mode's job record once per interval of samples, as live. */
static void
export_job_tick(struct export_play *ep, FILE *f, uint64_t ms)
{
	struct out_job	j;
	int		i;

	if (ep->ctx.meta->job[0] == '\0' || ms < ep->next_job)
		return;
	ep->next_job = ms + ep->interval_ms;
	memset(&j, 0, sizeof(j));
	for (i = 0; i < history_nnodes(monitor_history(ep->mon)); i++)
		j.procs += history_nranks(monitor_history(ep->mon), i);
	j.id = ep->ctx.meta->job;
	j.ranks = detect_ranks(monitor_detect(ep->mon));
	j.ntasks = ep->ctx.meta->ntasks;
	ep->out->job(f, ms, &j);
}

/* A monitor event of the recording, for a writer. */
static void
export_note(struct export_play *ep, const struct rec_msg *msg,
    const char *type)
{
	struct exp_note	n;

	if (ep->w->note == NULL || msg->time_ms < ep->begin_ms ||
	    msg->time_ms > ep->end_ms)
		return;
	memset(&n, 0, sizeof(n));
	n.time_ms = msg->type == MSG_EVENT ? msg->ev->time_ms : msg->time_ms;
	n.node = msg->node != REC_NODE_NONE ? (int)msg->node : -1;
	n.name = n.node >= 0 ? ep->ctx.meta->nodes[n.node] : NULL;
	n.type = type;
	n.level = msg->ev->level;
	n.code = msg->ev->code;
	n.text = msg->ev->text;
	/* What it is about only when recorded: an older recording's notes
	 * stay as they were. */
	n.rank = msg->subj != NULL ? msg->subj->rank : -1;
	n.pid = msg->subj != NULL ? msg->subj->pid : -1;
	ep->w->note(&ep->ctx, &n);
}

/* One message: into the detector, then out through the format. */
static void
export_emit(struct export_play *ep, struct rec_play *p,
    const struct rec_msg *msg, const struct node_model *job)
{
	const struct rec_meta	*meta = ep->ctx.meta;
	const struct output	*out = ep->out;
	FILE			*f = ep->ctx.f;
	struct stream		*st;
	const struct node_model	*m = NULL;
	const struct proto_event *ev = msg->ev;
	const struct rec_subject *sj = NULL;
	struct rec_subject	 buf;
	int			 in;

	st = msg->node != REC_NODE_NONE ? rec_play_stream(p, msg->node) :
	    NULL;
	if (st != NULL)
		m = stream_model(st);
	ep->cur = (int)msg->node;
	if (msg->type == MSG_SAMPLE) {
		monitor_sample(ep->mon, (int)msg->node, m, msg->time_ms);
		in = m->time_ms >= ep->begin_ms && m->time_ms <= ep->end_ms;
		if (!in)
			return;
		if (out != NULL) {
			if (out == &out_json && ep->united != NULL &&
			    !ep->united[msg->node]) {
				ep->united[msg->node] = 1;
				export_json_units(f,
				    meta->nodes[msg->node], m,
				    ep->ctx.fields);
			}
			out->sample(f, m);
			export_job_tick(ep, f, m->time_ms);
		} else
			ep->w->sample(&ep->ctx, (int)msg->node, m);
		return;
	}
	if (msg->type != MSG_EVENT && msg->type != REC_MSG_EVENT)
		return;
	if (msg->type == REC_MSG_EVENT)
		sj = rec_subject_of(ev, msg->subj, &buf);
	if (msg->type == REC_MSG_EVENT && st != NULL &&
	    strcmp(ev->code, "state") == 0) {
		/* At the recorded time: the phase the live run had. */
		monitor_set_clock(ep->mon, msg->time_ms, meta->start_ms);
		monitor_recorded_state(ep->mon, (int)msg->node, ev->text,
		    msg->subj != NULL ? msg->subj->phase : -1);
	}
	if (out == NULL) {
		export_note(ep, msg, msg->type == MSG_EVENT ? "event" :
		    st != NULL && strcmp(ev->code, "state") == 0 ? "state" :
		    st != NULL && strcmp(ev->code, "transport") == 0 ?
		    "transport" : st == NULL && strcmp(ev->code, "job") == 0 ?
		    "job" : "event");
		return;
	}
	in = msg->time_ms >= ep->begin_ms && msg->time_ms <= ep->end_ms;
	if (!in)
		return;
	if (msg->type == MSG_EVENT)
		out->event(f, m, ev, NULL);
	else if (strcmp(ev->code, "state") == 0 && st != NULL)
		out->state(f, meta->nodes[msg->node], msg->time_ms, ev->text,
		    sj->phase);
	else if (strcmp(ev->code, "transport") == 0 && st != NULL &&
	    out->transport != NULL)
		export_transport(f, out, meta->nodes[msg->node], msg->time_ms,
		    ev->text);
	else
		out->event(f, m != NULL ? m : job, ev, msg->subj);
}

/* The window and the fields from the options: 0, or 1 after an error. */
static int
export_select(struct export_play *ep, const struct export_opts *o)
{
	char	err[256];

	ep->begin_ms = 0;
	ep->end_ms = UINT64_MAX;
	if (o->begin != NULL && exp_time_parse(o->begin, ep->ctx.start_ms,
	    ep->ctx.end_ms, &ep->begin_ms, err, sizeof(err)) != 0) {
		log_error("export: --begin: %s", err);
		return 1;
	}
	if (o->end != NULL && exp_time_parse(o->end, ep->ctx.start_ms,
	    ep->ctx.end_ms, &ep->end_ms, err, sizeof(err)) != 0) {
		log_error("export: --end: %s", err);
		return 1;
	}
	if (ep->begin_ms > ep->end_ms) {
		log_error("export: --begin is after --end");
		return 1;
	}
	if (o->fields != NULL &&
	    (ep->ctx.fields = exp_fields_parse(o->fields, err, sizeof(err))) ==
	    NULL) {
		log_error("export: %s", err);
		return 1;
	}
	return 0;
}

/* One pass over the recording. */
static int
export_pass(const char *path, struct export_play *ep, int *opened)
{
	const struct export_opts *o = ep->ctx.o;
	struct rec_reader	*rd;
	struct rec_play		*p;
	struct rec_msg		 msg;
	struct node_model	 job;
	const struct rec_meta	*meta;
	struct monitor_conf	 mconf;
	uint64_t		*samples;
	long long		 count = o->count;
	char			 err[256];
	int			 rc, ret = 0;

	if (rec_reader_open(path, &rd, err, sizeof(err)) != 0) {
		log_error("%s: %s", path, err);
		return 1;
	}
	meta = rec_reader_meta(rd);
	ep->ctx.meta = meta;
	ep->ctx.start_ms = meta->start_ms;
	ep->ctx.end_ms = rec_reader_end_ms(rd);
	if (ep->ctx.end_ms < meta->start_ms)
		ep->ctx.end_ms = meta->start_ms;
	ep->interval_ms = meta->interval_ms != 0 ? meta->interval_ms : 1000;
	ep->next_job = 0;
	ep->jobown = export_job_id(meta);
	ep->ctx.job = ep->jobown;
	if (!*opened) {
		if (export_select(ep, o) != 0 || (ep->w != NULL &&
		    ep->w->begin != NULL && ep->w->begin(&ep->ctx) != 0)) {
			free(ep->jobown);
			ep->jobown = NULL;
			rec_reader_free(rd);
			return 1;
		}
		*opened = 1;
	}
	p = rec_play_new(rd);
	samples = xcalloc(meta->nnodes + 1, sizeof(*samples));
	ep->united = xcalloc(meta->nnodes + 1, 1);
	model_init(&job, meta->job[0] != '\0' ? meta->job : "job");
	model_fix_name(&job);
	/* The monitor core, as the live run and the player assemble it;
	 * the recorded events are printed, so it has no sink: it flags. */
	monitor_conf_recorded(&mconf, meta);
	ep->mon = monitor_new(&mconf);
	monitor_add_recorded(ep->mon, meta);
	if (ep->out == &out_json) {
		out_json_set_flags(export_json_flags, ep);
		if (ep->ctx.fields != NULL)
			out_json_set_keep(export_json_keep, ep->ctx.fields);
		if (ep->ctx.pass == 0)
			export_json_meta(ep->ctx.f, meta, ep->ctx.job,
			    ep->ctx.end_ms);
	}
	/* What the live run printed: it stopped each node after -n. */
	if (count == 0)
		count = (long long)meta->count;
	while ((rc = rec_play_next(p, &msg)) > 0) {
		/* A probe's first sample is only the base of its rates:
		 * the live run neither printed nor counted it (session.c),
		 * unless the recording is older than that (rec.h). */
		if (msg.type == MSG_SAMPLE &&
		    meta->minor >= REC_MINOR_HIDES_BASE &&
		    stream_model(rec_play_stream(p, msg.node))->seq == 0)
			continue;
		if (msg.type == MSG_SAMPLE && count > 0 &&
		    ++samples[msg.node] > (uint64_t)count)
			continue;
		if (msg.type == REC_MSG_EVENT && msg.node == REC_NODE_NONE &&
		    strcmp(msg.ev->code, "job") == 0 && ep->out != NULL &&
		    meta->job[0] != '\0') {
			/* The job ended: live prints its final record. */
			struct out_job	j = { meta->job, -1, -1, -1,
			    msg.ev->text };

			if (msg.time_ms >= ep->begin_ms &&
			    msg.time_ms <= ep->end_ms)
				ep->out->job(ep->ctx.f, msg.time_ms, &j);
			continue;
		}
		export_emit(ep, p, &msg, &job);
		if ((ep->ctx.f != NULL && ferror(ep->ctx.f)) ||
		    outfile_interrupted())
			break;
	}
	out_json_set_flags(NULL, NULL);
	out_json_set_keep(NULL, NULL);
	if (rc == 0 && outfile_interrupted()) {
		log_error("export: interrupted");
		ret = 1;
	}
	if (ep->ctx.f != NULL && (fflush(ep->ctx.f) != 0 ||
	    ferror(ep->ctx.f))) {
		if (errno != EPIPE)
			log_error("writing the records: %s", strerror(errno));
		ret = 1;
	} else if (rc < 0) {
		log_error("%s: %s (%s)", path, rec_reader_error(rd),
		    ep->ctx.f == stdout ? "the records before it were written" :
		    "nothing written");
		ret = 1;
	} else if (rec_reader_warning(rd) != NULL && ep->ctx.pass == 0)
		log_error("%s: %s: the recording was not closed (its monitor "
		    "was killed?); read up to there", path,
		    rec_reader_warning(rd));
	monitor_free(ep->mon);
	ep->mon = NULL;
	model_free(&job);
	free(samples);
	free(ep->united);
	ep->united = NULL;
	rec_play_free(p);
	free(ep->jobown);
	ep->jobown = NULL;
	ep->ctx.job = NULL;
	rec_reader_free(rd);
	ep->ctx.meta = NULL;
	return ret;
}

int
export_run(const char *path, const struct export_opts *o, FILE *f)
{
	struct export_play	 ep;
	size_t			 i;
	unsigned		 passes = 1;
	int			 opened = 0, ret = 0;

	memset(&ep, 0, sizeof(ep));
	ep.ctx.f = f;
	ep.ctx.o = o;
	if (o->fmt == EXPORT_JSON)
		ep.out = &out_json;
	else if (o->fmt == EXPORT_TEXT)
		ep.out = &out_text;
	else {
		for (i = 0; i < sizeof(exp_writers) / sizeof(exp_writers[0]);
		    i++)
			if (exp_writers[i].fmt == o->fmt &&
			    exp_writers[i].wide == o->wide)
				ep.w = exp_writers[i].w;
		if (ep.w == NULL)
			fatal("export: no writer for format %d", (int)o->fmt);
		passes = ep.w->passes;
	}
	for (ep.ctx.pass = 0; ep.ctx.pass < passes && ret == 0;
	    ep.ctx.pass++)
		ret = export_pass(path, &ep, &opened);
	/* end() sees the meta no more: writers keep what they need. */
	if (ep.w != NULL && opened && ep.w->end != NULL &&
	    ep.w->end(&ep.ctx, ret) != 0)
		ret = 1;
	exp_fields_free(ep.ctx.fields);
	return ret;
}

int
export_file(const char *path, enum export_format fmt, FILE *f,
    long long count)
{
	struct export_opts	o;

	memset(&o, 0, sizeof(o));
	o.fmt = fmt;
	o.count = count;
	return export_run(path, &o, f);
}

/*
 * export -o OUT: into a temporary file beside OUT, renamed over it only
 * when the whole export was written; a failure (a missing or damaged
 * recording, a full disk, a signal) leaves OUT as it was.
 */
static int
export_to(const char *path, const struct export_opts *o, const char *outpath)
{
	struct outfile	 of;
	char		 err[PATH_MAX + 128];
	FILE		*f;
	int		 rc;

	if (outfile_same(path, outpath)) {
		log_error("export: %s is the recording itself: give another "
		    "output", outpath);
		return 1;
	}
	if (outfile_begin(&of, outpath, 0666, err, sizeof(err)) != 0) {
		log_error("export: %s", err);
		return 1;
	}
	if ((f = fdopen(of.fd, "w")) == NULL)
		fatal("fdopen: %s", strerror(errno));
	rc = export_run(path, o, f);
	if (fclose(f) != 0 && rc == 0) {
		log_error("export: %s: %s", outpath, strerror(errno));
		rc = 1;
	}
	return outfile_end(&of, rc, "export");
}

/* Put word on the synopsis line at *col, wrapping past 72 columns. */
static void
export_usage_word(FILE *f, const char *word, size_t *col)
{
	size_t	len = strlen(word);

	if (*col + len > 72) {
		fprintf(f, "\n%27s", "");
		*col = 27;
		word += word[0] == ' ';
		len = strlen(word);
	}
	fputs(word, f);
	*col += len;
}

static void
export_usage(FILE *f)
{
	char	word[128];
	size_t	i, col = 27, n = 0;

	fputs("usage: jobtop export FILE [", f);
	for (i = 0; i < EXP_NROWS; i++) {
		if (exp_writers[i].option == NULL)
			continue;
		if (n > 0)
			export_usage_word(f, " |", &col);
		snprintf(word, sizeof(word), "%s--%s%s%s%s", n++ > 0 ? " " : "",
		    exp_writers[i].option, exp_writers[i].arg != NULL ? " " :
		    "", exp_writers[i].arg != NULL ? exp_writers[i].arg : "",
		    exp_writers[i].more != NULL ? exp_writers[i].more : "");
		export_usage_word(f, word, &col);
	}
	fputs("]\n", f);
	fputs(
"                          [--begin T] [--end T] [--fields LIST] [-o OUT]\n",
	    f);
	for (i = 0; i < EXP_NROWS; i++)
		if (exp_writers[i].usage != NULL)
			fputs(exp_writers[i].usage, f);
	fputs(
"  --begin T, --end T  a window: +5m from the start, -10m before the end,\n"
"                 12:30[:00], 2026-11-25T12:30:00Z or @UNIXSECONDS\n"
"  --fields LIST  metrics to keep: comma-separated globs (cpu.*,rank.cpu)\n"
"  -o OUT         write OUT (replaced only once complete); - is stdout\n",
	    f);
}

static int	export_main_in(const char *, const struct export_opts *,
		    const char *);

int
export_main(int argc, char **argv)
{
	/* The formats' options are OPT_FMT + their row in exp_writers[]. */
	enum { OPT_FMT = 256, OPT_WIDE = 512, OPT_BEGIN, OPT_END,
	    OPT_FIELDS };
	static const struct option fixed[] = {
		{ "wide",	optional_argument,	NULL, OPT_WIDE },
		{ "begin",	required_argument,	NULL, OPT_BEGIN },
		{ "end",	required_argument,	NULL, OPT_END },
		{ "fields",	required_argument,	NULL, OPT_FIELDS },
		{ "output",	required_argument,	NULL, 'o' },
		{ "help",	no_argument,		NULL, 'h' },
	};
	struct option		 longopts[EXP_NROWS + sizeof(fixed) /
				    sizeof(fixed[0]) + 1];
	struct export_opts	 o;
	const struct exp_row	*r;
	const char		*outpath = NULL;
	char			 err[PATH_MAX + 256], *in, fmts[128];
	int			 ch, fmtch = 0, nfmt = 0, rc;
	size_t			 i, n = 0;

	for (i = 0; i < EXP_NROWS; i++) {
		if ((r = &exp_writers[i])->option == NULL)
			continue;
		longopts[n].name = r->option;
		longopts[n].has_arg = r->arg != NULL ? required_argument :
		    no_argument;
		longopts[n].flag = NULL;
		longopts[n++].val = OPT_FMT + (int)i;
	}
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		longopts[n++] = fixed[i];
	memset(&longopts[n], 0, sizeof(longopts[n]));
	memset(&o, 0, sizeof(o));
	o.fmt = EXPORT_JSON;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		if (ch >= OPT_FMT && ch < OPT_FMT + (int)EXP_NROWS) {
			r = &exp_writers[ch - OPT_FMT];
			if (nfmt++ > 0 && fmtch != ch) {
				log_error("export: give one format (--%s and "
				    "--%s)", exp_writers[fmtch - OPT_FMT].option,
				    r->option);
				return 2;
			}
			fmtch = ch;
			o.fmt = r->fmt;
			if (r->fmt == EXPORT_SQLITE)
				o.sqlite = optarg;
			continue;
		}
		switch (ch) {
		case OPT_WIDE:
			if (optarg == NULL || strcmp(optarg, "node") == 0)
				o.wide = EXPORT_WIDE_NODE;
			else if (strcmp(optarg, "rank") == 0)
				o.wide = EXPORT_WIDE_RANK;
			else {
				log_error("export: --wide=%s: give node or "
				    "rank", optarg);
				return 2;
			}
			break;
		case OPT_BEGIN:
			o.begin = optarg;
			break;
		case OPT_END:
			o.end = optarg;
			break;
		case OPT_FIELDS:
			o.fields = optarg;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'h':
			export_usage(stdout);
			return 0;
		case ':':
			log_error("export: option %s needs an argument",
			    argv[optind - 1]);
			return 2;
		default:
			log_error("export: unknown option %s (see jobtop "
			    "export --help)", argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind != 1) {
		log_error("export: give one recording (jobtop export FILE "
		    "[%s] [-o OUT])", export_format_options(fmts,
		    sizeof(fmts), "|", 0));
		return 2;
	}
	if (o.wide != EXPORT_TIDY && nfmt > 0 && o.fmt != EXPORT_CSV) {
		log_error("export: --wide is a CSV layout");
		return 2;
	}
	if (o.fmt == EXPORT_SQLITE && outpath != NULL) {
		log_error("export: --sqlite DB is the output: no -o");
		return 2;
	}
	/* A job id (or node name) as -r takes it: its newest recording. */
	if ((in = rec_resolve(argv[optind], err, sizeof(err))) == NULL) {
		log_error("%s", err);
		return 1;
	}
	rc = export_main_in(in, &o, outpath);
	free(in);
	return rc;
}

/* export_main's work on the recording in. */
static int
export_main_in(const char *in, const struct export_opts *op,
    const char *outpath)
{
	struct export_opts	o = *op;

	if (o.wide != EXPORT_TIDY)
		o.fmt = EXPORT_CSV;
	if (o.fmt == EXPORT_SQLITE) {
		if (outfile_same(in, o.sqlite)) {
			log_error("export: %s is the recording itself: give "
			    "another database", o.sqlite);
			return 1;
		}
		return export_run(in, &o, NULL);
	}
	if (outpath == NULL || strcmp(outpath, "-") == 0)
		return export_run(in, &o, stdout);
	return export_to(in, &o, outpath);
}
