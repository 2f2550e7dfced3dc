/*
 * export: play a recording (rec_play) and print what each message means.
 * JSON and text go through the live outputs, message by message, exactly
 * as batch mode's hooks print them: samples, the probes' events, and the
 * node states the monitor recorded as events with code "state".  CSV
 * flattens each sample into rows: node-wide values as "group.field",
 * values of named instances as "group.field[instance]", and each rank's
 * fields as "rank.field" with its rank and pid in their own columns.
 * Values are what the outputs show: gauges as they are, counters as
 * rates, derived values (cpu.busy, mem.used, rank.cpu) included; an
 * absent value has no row.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "log.h"
#include "model.h"
#include "out-json.h"
#include "outfile.h"
#include "rec.h"
#include "xmalloc.h"

/* What a CSV row needs besides the metric and the value. */
struct export_row {
	FILE		*f;
	uint64_t	 time_ms;
	const char	*node;
	int		 have_rank, have_pid;
	int64_t		 rank, pid;
};

/*
 * A CSV field, quoted when it must be; control bytes become '?'.  A text
 * that a spreadsheet would take for a formula (it starts with = + - @,
 * a tab or a CR) gets a leading "'", so a process named "=cmd|..." stays
 * text (numbers are written by the callers, never through here).
 */
static void
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

/* The columns before the metric. */
static void
export_csv_head(const struct export_row *row)
{
	out_json_time(row->f, row->time_ms);
	fputc(',', row->f);
	export_csv_field(row->f, row->node);
	fputc(',', row->f);
	if (row->have_rank)
		fprintf(row->f, "%" PRId64, row->rank);
	fputc(',', row->f);
	if (row->have_pid)
		fprintf(row->f, "%" PRId64, row->pid);
	fputc(',', row->f);
}

/* The metric's name: group.field, with [instance] for named groups. */
static void
export_csv_metric(FILE *f, const char *group, const char *field,
    const char *inst)
{
	char	*name;

	if (inst != NULL)
		name = xasprintf("%s.%s[%s]", group, field, inst);
	else
		name = xasprintf("%s.%s", group, field);
	export_csv_field(f, name);
	free(name);
	fputc(',', f);
}

/* One field's row, as out_json shows the value; nothing when absent. */
static void
export_csv_value(const struct export_row *row, const struct node_model *m,
    const struct minst *mi, unsigned fi, const char *inst)
{
	const struct proto_field	*pf = &mi->mg->def->fields[fi];
	const char			*s = NULL;
	int64_t				 iv = 0;
	double				 dv = 0;
	int				 kind;

	if (pf->kind == PF_STRING) {
		if ((s = model_str(mi, fi)) == NULL)
			return;
		kind = 's';
	} else if (pf->kind == PF_GAUGE && strcmp(pf->unit, "centi") != 0) {
		if (!model_value(mi, fi, &iv))
			return;
		kind = 'i';
	} else {
		if (!model_metric(m, mi, fi, &dv))
			return;
		kind = 'd';
	}
	export_csv_head(row);
	export_csv_metric(row->f, mi->mg->def->name, pf->name, inst);
	if (kind == 's')
		export_csv_field(row->f, s);
	else if (kind == 'i')
		fprintf(row->f, "%" PRId64, iv);
	else
		out_json_number(row->f, dv);
	fputc('\n', row->f);
}

/* Every field and derived value of one instance. */
static void
export_csv_inst(const struct export_row *row, const struct node_model *m,
    const struct minst *mi, const char *inst, uint64_t skip)
{
	const struct model_derived	*d;
	unsigned			 fi;
	double				 v;

	for (fi = 0; fi < mi->nfields; fi++) {
		if ((skip & ((uint64_t)1 << fi)) == 0)
			export_csv_value(row, m, mi, fi, inst);
	}
	for (d = model_derived; d->group != NULL; d++) {
		if (strcmp(d->group, mi->mg->def->name) != 0 ||
		    !d->fn(m, mi, &v))
			continue;
		export_csv_head(row);
		export_csv_metric(row->f, d->group, d->name, inst);
		out_json_number(row->f, v);
		fputc('\n', row->f);
	}
}

/* A sample as CSV rows: the node's groups, then each rank. */
static void
export_csv_sample(FILE *f, const struct node_model *m)
{
	const struct minst	*mi;
	struct export_row	 row;
	uint64_t		 skip;
	unsigned		 g;
	int			 rank_g, fr, fp, named;

	if (m->schema == NULL)
		return;
	memset(&row, 0, sizeof(row));
	row.f = f;
	row.time_ms = m->time_ms;
	row.node = model_name(m);
	rank_g = model_group_index(m, OUT_RANK_GROUP);
	for (g = 0; g < m->schema->ngroups; g++) {
		if ((int)g == rank_g)
			continue;
		named = model_group_named(m, g);
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext)
			export_csv_inst(&row, m, mi, named ? mi->name : NULL,
			    0);
	}
	if (rank_g < 0)
		return;
	fr = model_field_index(m, (unsigned)rank_g, "rank");
	fp = model_field_index(m, (unsigned)rank_g, "pid");
	skip = (fr >= 0 ? (uint64_t)1 << fr : 0) |
	    (fp >= 0 ? (uint64_t)1 << fp : 0);
	for (mi = m->gfirst[rank_g]; mi != NULL; mi = mi->gnext) {
		row.have_rank = fr >= 0 && model_value(mi, (unsigned)fr,
		    &row.rank);
		row.have_pid = fp >= 0 && model_value(mi, (unsigned)fp,
		    &row.pid);
		export_csv_inst(&row, m, mi, NULL, skip);
	}
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

/* Print one message with a batch output, as the live hooks do. */
static void
export_emit(FILE *f, const struct output *out, struct rec_play *p,
    const struct rec_meta *meta, const struct rec_msg *msg,
    const struct node_model *job)
{
	struct stream	*st;

	st = msg->node != REC_NODE_NONE ? rec_play_stream(p, msg->node) :
	    NULL;
	switch (msg->type) {
	case MSG_SAMPLE:
		out->sample(f, stream_model(st));
		break;
	case MSG_EVENT:
		out->event(f, stream_model(st), msg->ev);
		break;
	case REC_MSG_EVENT:
		if (strcmp(msg->ev->code, "state") == 0 && st != NULL)
			out->state(f, meta->nodes[msg->node], msg->time_ms,
			    msg->ev->text);
		else if (strcmp(msg->ev->code, "transport") == 0 &&
		    st != NULL && out->transport != NULL)
			export_transport(f, out, meta->nodes[msg->node],
			    msg->time_ms, msg->ev->text);
		else
			out->event(f, st != NULL ? stream_model(st) : job,
			    msg->ev);
		break;
	}
}

int
export_file(const char *path, enum export_format fmt, FILE *f,
    long long count)
{
	const struct output	*out = fmt == EXPORT_TEXT ? &out_text :
				    &out_json;
	struct rec_reader	*rd;
	struct rec_play		*p;
	struct rec_msg		 msg;
	struct node_model	 job;
	const struct rec_meta	*meta;
	uint64_t		*samples;
	char			 err[256];
	int			 rc, ret = 0;

	if (rec_reader_open(path, &rd, err, sizeof(err)) != 0) {
		log_error("%s: %s", path, err);
		return 1;
	}
	meta = rec_reader_meta(rd);
	p = rec_play_new(rd);
	samples = xcalloc(meta->nnodes + 1, sizeof(*samples));
	model_init(&job, meta->job[0] != '\0' ? meta->job : "job");
	/* What the live run printed: it stopped each node after -n. */
	if (count == 0)
		count = (long long)meta->count;
	model_fix_name(&job);
	if (fmt == EXPORT_CSV)
		fputs("time,node,rank,pid,metric,value\n", f);
	while ((rc = rec_play_next(p, &msg)) > 0) {
		/* A probe's first sample is only the base of its rates:
		 * the live run neither printed nor counted it (session.c). */
		if (msg.type == MSG_SAMPLE && stream_model(rec_play_stream(p,
		    msg.node))->seq == 0)
			continue;
		if (msg.type == MSG_SAMPLE && count > 0 &&
		    ++samples[msg.node] > (uint64_t)count)
			continue;
		if (fmt == EXPORT_CSV) {
			if (msg.type == MSG_SAMPLE)
				export_csv_sample(f, stream_model(
				    rec_play_stream(p, msg.node)));
		} else
			export_emit(f, out, p, meta, &msg, &job);
		if (ferror(f) || outfile_interrupted())
			break;
	}
	if (fflush(f) != 0 || ferror(f)) {
		if (errno != EPIPE)
			log_error("writing the records: %s", strerror(errno));
		ret = 1;
	} else if (rc < 0) {
		log_error("%s: %s (%s)", path, rec_reader_error(rd),
		    f == stdout ? "the records before it were written" :
		    "nothing written");
		ret = 1;
	} else if (rec_reader_warning(rd) != NULL)
		log_error("%s: %s: the recording was not closed (its monitor "
		    "was killed?); read up to there", path,
		    rec_reader_warning(rd));
	model_free(&job);
	free(samples);
	rec_play_free(p);
	rec_reader_free(rd);
	return ret;
}

/*
 * export -o OUT: into a temporary file beside OUT, renamed over it only
 * when the whole export was written; a failure (a missing or damaged
 * recording, a full disk, a signal) leaves OUT as it was.
 */
static int
export_to(const char *path, enum export_format fmt, const char *outpath)
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
	rc = export_file(path, fmt, f, 0);
	if (fclose(f) != 0 && rc == 0) {
		log_error("export: %s: %s", outpath, strerror(errno));
		rc = 1;
	}
	return outfile_end(&of, rc, "export");
}

static void
export_usage(FILE *f)
{
	fprintf(f, "usage: jobtop export FILE [--csv | --json] [-o OUT]\n");
}

int
export_main(int argc, char **argv)
{
	enum { OPT_CSV = 256, OPT_JSON, OPT_HELP };
	static const struct option longopts[] = {
		{ "csv",	no_argument,		NULL, OPT_CSV },
		{ "json",	no_argument,		NULL, OPT_JSON },
		{ "output",	required_argument,	NULL, 'o' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	enum export_format	 fmt = EXPORT_JSON;
	const char		*outpath = NULL;
	int			 ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_CSV:
			fmt = EXPORT_CSV;
			break;
		case OPT_JSON:
			fmt = EXPORT_JSON;
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
		    "[--csv|--json] [-o OUT])");
		return 2;
	}
	if (outpath == NULL || strcmp(outpath, "-") == 0)
		return export_file(argv[optind], fmt, stdout, 0);
	return export_to(argv[optind], fmt, outpath);
}
