/* SPDX-License-Identifier: ISC */
/*
 * exp-sqlite: a recording into an SQLite database through libsqlite3, one
 * transaction and prepared statements.  One schema for every job, keyed
 * by job_id, so the exports of many jobs merge into one file (pandas,
 * DuckDB and sqlite3 read it); exporting a job already in the file is
 * refused, and a failed export leaves the file as it was (rolled back; a
 * file this export created is removed).
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "log.h"
#include "xmalloc.h"

/* Bump with any change below; a file of another version is refused. */
#define EXP_SQLITE_VERSION	2

static const char exp_sqlite_schema[] =
"CREATE TABLE IF NOT EXISTS job(job_id TEXT PRIMARY KEY, name TEXT,"
" user TEXT, host TEXT, version TEXT, start_time REAL, end_time REAL,"
" interval REAL, ntasks INTEGER, nnodes INTEGER, cpus INTEGER,"
" mem INTEGER, time_limit REAL, partition TEXT);"
"CREATE TABLE IF NOT EXISTS nodes(job_id TEXT, node TEXT, idx INTEGER,"
" hostname TEXT, ncpu INTEGER, mem_total INTEGER, kernel TEXT, arch TEXT,"
" probe_version TEXT, PRIMARY KEY(job_id, node));"
"CREATE TABLE IF NOT EXISTS samples(job_id TEXT, time REAL, seq INTEGER,"
" node TEXT, metric TEXT, instance TEXT, value REAL, unit TEXT,"
" text TEXT);"
"CREATE TABLE IF NOT EXISTS ranks(job_id TEXT, time REAL, seq INTEGER,"
" node TEXT, rank INTEGER, pid INTEGER, metric TEXT, value REAL,"
" unit TEXT, text TEXT);"
"CREATE TABLE IF NOT EXISTS events(job_id TEXT, time REAL, node TEXT,"
" type TEXT, level TEXT, code TEXT, text TEXT);"
"CREATE TABLE IF NOT EXISTS flags(job_id TEXT, time REAL, seq INTEGER,"
" node TEXT, rank INTEGER, pid INTEGER, flag TEXT);";

enum {
	EXQ_JOB, EXQ_NODE, EXQ_NODE_HELLO, EXQ_SAMPLE, EXQ_RANK, EXQ_EVENT,
	EXQ_FLAG, EXQ_N
};

static const char *const exp_sqlite_sql[EXQ_N] = {
	"INSERT INTO job VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO nodes(job_id, node, idx) VALUES(?,?,?)",
	("UPDATE nodes SET hostname=?, ncpu=?, mem_total=?, kernel=?,"
	" arch=?, probe_version=? WHERE job_id=? AND node=?"),
	"INSERT INTO samples VALUES(?,?,?,?,?,?,?,?,?)",
	"INSERT INTO ranks VALUES(?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO events VALUES(?,?,?,?,?,?,?)",
	"INSERT INTO flags VALUES(?,?,?,?,?,?,?)",
};

struct exp_sqlite {
	sqlite3		*db;
	sqlite3_stmt	*q[EXQ_N];
	char		*path;
	char		*job;
	int		 created;	/* the file is this export's */
	int		 failed;	/* a statement failed (said once) */
	unsigned char	*said;		/* per node: HELLO stored */
};

static void
exp_sqlite_error(struct exp_sqlite *xs, const char *what)
{
	if (xs->failed)
		return;
	xs->failed = 1;
	log_error("export: %s: %s: %s", xs->path, what,
	    sqlite3_errmsg(xs->db));
}

/* Run a bound statement and reset it. */
static void
exp_sqlite_step(struct exp_sqlite *xs, int k)
{
	if (sqlite3_step(xs->q[k]) != SQLITE_DONE)
		exp_sqlite_error(xs, "insert");
	sqlite3_reset(xs->q[k]);
	sqlite3_clear_bindings(xs->q[k]);
}

static void
exp_sqlite_text(sqlite3_stmt *q, int i, const char *s)
{
	if (s != NULL)
		sqlite3_bind_text(q, i, s, -1, SQLITE_TRANSIENT);
}

static int
exp_sqlite_exec(struct exp_sqlite *xs, const char *sql, const char *what)
{
	if (sqlite3_exec(xs->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		exp_sqlite_error(xs, what);
		return -1;
	}
	return 0;
}

/* The file's schema version: 0 for a new file.  -1 on error. */
static int
exp_sqlite_version(struct exp_sqlite *xs)
{
	sqlite3_stmt	*q;
	int		 v = -1;

	if (sqlite3_prepare_v2(xs->db, "PRAGMA user_version", -1, &q, NULL) !=
	    SQLITE_OK) {
		exp_sqlite_error(xs, "not an SQLite database");
		return -1;
	}
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int(q, 0);
	else
		exp_sqlite_error(xs, "not an SQLite database");
	sqlite3_finalize(q);
	return v;
}

/* Is the job already in the file? */
static int
exp_sqlite_has_job(struct exp_sqlite *xs, const char *job)
{
	sqlite3_stmt	*q;
	int		 has;

	if (sqlite3_prepare_v2(xs->db, "SELECT 1 FROM job WHERE job_id=?",
	    -1, &q, NULL) != SQLITE_OK) {
		exp_sqlite_error(xs, "reading table job");
		return -1;
	}
	sqlite3_bind_text(q, 1, job, -1, SQLITE_TRANSIENT);
	has = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return has;
}

static void
exp_sqlite_close(struct exp_sqlite *xs, int ok)
{
	int	k;

	for (k = 0; k < EXQ_N; k++)
		sqlite3_finalize(xs->q[k]);
	if (!ok && xs->db != NULL)
		sqlite3_exec(xs->db, "ROLLBACK", NULL, NULL, NULL);
	if (xs->db != NULL && sqlite3_close(xs->db) != SQLITE_OK && ok)
		log_error("export: %s: closing: %s", xs->path,
		    sqlite3_errmsg(xs->db));
	if (!ok && xs->created)
		unlink(xs->path);
	free(xs->path);
	free(xs->job);
	free(xs->said);
	free(xs);
}

static int
exp_sqlite_begin(struct exp_ctx *ctx)
{
	const struct rec_meta	*meta = ctx->meta;
	struct exp_sqlite	*xs;
	struct stat		 sb;
	sqlite3_stmt		*q;
	int			 k, v, has;
	unsigned		 i;

	xs = xcalloc(1, sizeof(*xs));
	xs->path = xstrdup(ctx->o->sqlite);
	xs->job = xstrdup(ctx->job);
	xs->said = xcalloc(meta->nnodes + 1, 1);
	xs->created = stat(xs->path, &sb) != 0 && errno == ENOENT;
	if (sqlite3_open_v2(xs->path, &xs->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		exp_sqlite_error(xs, "open");
		goto fail;
	}
	sqlite3_busy_timeout(xs->db, 5000);
	if ((v = exp_sqlite_version(xs)) < 0)
		goto fail;
	if (v != 0 && v != EXP_SQLITE_VERSION) {
		log_error("export: %s: schema version %d, this jobtop writes "
		    "%d: give another database", xs->path, v,
		    EXP_SQLITE_VERSION);
		xs->failed = 1;
		goto fail;
	}
	if (exp_sqlite_exec(xs, "BEGIN IMMEDIATE", "begin") != 0 ||
	    exp_sqlite_exec(xs, exp_sqlite_schema, "creating the tables") !=
	    0 || exp_sqlite_exec(xs, "PRAGMA user_version = 2",
	    "setting the schema version") != 0)
		goto fail;
	if ((has = exp_sqlite_has_job(xs, ctx->job)) != 0) {
		if (has > 0)
			log_error("export: %s: job %s is already there "
			    "(refused: delete its rows from every table to "
			    "export it again)", xs->path, ctx->job);
		xs->failed = 1;
		goto fail;
	}
	for (k = 0; k < EXQ_N; k++)
		if (sqlite3_prepare_v2(xs->db, exp_sqlite_sql[k], -1, &xs->q[k],
		    NULL) != SQLITE_OK) {
			exp_sqlite_error(xs, "preparing the inserts");
			goto fail;
		}
	q = xs->q[EXQ_JOB];
	exp_sqlite_text(q, 1, ctx->job);
	exp_sqlite_text(q, 2, meta->name);
	exp_sqlite_text(q, 3, meta->user);
	exp_sqlite_text(q, 4, meta->host);
	exp_sqlite_text(q, 5, meta->version);
	sqlite3_bind_double(q, 6, ctx->start_ms / 1e3);
	sqlite3_bind_double(q, 7, ctx->end_ms / 1e3);
	sqlite3_bind_double(q, 8, meta->interval_ms / 1e3);
	if (meta->ntasks > 0)
		sqlite3_bind_int64(q, 9, meta->ntasks);
	sqlite3_bind_int64(q, 10, meta->nnodes);
	if (meta->cpus > 0)
		sqlite3_bind_int64(q, 11, (sqlite3_int64)meta->cpus);
	if (meta->mem > 0)
		sqlite3_bind_int64(q, 12, (sqlite3_int64)meta->mem);
	if (meta->time_limit >= 0)
		sqlite3_bind_double(q, 13, (double)meta->time_limit);
	else if (meta->time_limit == REC_LIMIT_NONE)
		sqlite3_bind_double(q, 13, INFINITY);
	if (meta->partition[0] != '\0')
		exp_sqlite_text(q, 14, meta->partition);
	exp_sqlite_step(xs, EXQ_JOB);
	q = xs->q[EXQ_NODE];
	for (i = 0; i < meta->nnodes; i++) {
		exp_sqlite_text(q, 1, ctx->job);
		exp_sqlite_text(q, 2, meta->nodes[i]);
		sqlite3_bind_int64(q, 3, i);
		exp_sqlite_step(xs, EXQ_NODE);
	}
	if (xs->failed)
		goto fail;
	ctx->priv = xs;
	return 0;
fail:
	exp_sqlite_close(xs, 0);
	return 1;
}

static void
exp_sqlite_flag(void *arg, const struct exp_where *w)
{
	struct exp_ctx		*ctx = arg;
	struct exp_sqlite	*xs = ctx->priv;
	sqlite3_stmt		*q = xs->q[EXQ_FLAG];
	const char		*names[16];
	int			 i, n;

	n = export_flags(ctx, w, names, 16);
	for (i = 0; i < n; i++) {
		exp_sqlite_text(q, 1, xs->job);
		sqlite3_bind_double(q, 2, w->time_ms / 1e3);
		sqlite3_bind_int64(q, 3, (sqlite3_int64)w->seq);
		exp_sqlite_text(q, 4, w->name);
		if (w->have_rank)
			sqlite3_bind_int64(q, 5, w->rank_id);
		if (w->have_pid)
			sqlite3_bind_int64(q, 6, w->pid);
		exp_sqlite_text(q, 7, names[i]);
		exp_sqlite_step(xs, EXQ_FLAG);
	}
}

static void
exp_sqlite_val(void *arg, const struct exp_where *w,
    const struct exp_value *v)
{
	struct exp_ctx		*ctx = arg;
	struct exp_sqlite	*xs = ctx->priv;
	sqlite3_stmt		*q;
	char			 metric[160];
	int			 k = w->rank != NULL ? EXQ_RANK : EXQ_SAMPLE;
	int			 i = 1;

	q = xs->q[k];
	snprintf(metric, sizeof(metric), "%s.%s", v->group, v->field);
	sqlite3_bind_text(q, i++, xs->job, -1, SQLITE_STATIC);
	sqlite3_bind_double(q, i++, w->time_ms / 1e3);
	sqlite3_bind_int64(q, i++, (sqlite3_int64)w->seq);
	sqlite3_bind_text(q, i++, w->name, -1, SQLITE_STATIC);
	if (k == EXQ_RANK) {
		if (w->have_rank)
			sqlite3_bind_int64(q, i, w->rank_id);
		i++;
		if (w->have_pid)
			sqlite3_bind_int64(q, i, w->pid);
		i++;
	}
	sqlite3_bind_text(q, i++, metric, -1, SQLITE_TRANSIENT);
	if (k == EXQ_SAMPLE) {
		exp_sqlite_text(q, i, v->inst);
		i++;
	}
	if (v->kind == 'i')
		sqlite3_bind_int64(q, i, v->i);
	else if (v->kind == 'd')
		sqlite3_bind_double(q, i, v->d);
	i++;
	sqlite3_bind_text(q, i++, v->unit, -1, SQLITE_STATIC);
	if (v->kind == 's')
		exp_sqlite_text(q, i, v->s);
	exp_sqlite_step(xs, k);
}

static void
exp_sqlite_sample(struct exp_ctx *ctx, int node, const struct node_model *m)
{
	struct exp_sqlite		*xs = ctx->priv;
	const struct model_hello	*h = &m->hello;
	sqlite3_stmt			*q = xs->q[EXQ_NODE_HELLO];

	if (xs->failed)
		return;
	if (m->have_hello && !xs->said[node]) {
		xs->said[node] = 1;
		exp_sqlite_text(q, 1, h->host);
		sqlite3_bind_int64(q, 2, h->ncpu);
		sqlite3_bind_int64(q, 3, (sqlite3_int64)h->mem_total);
		exp_sqlite_text(q, 4, h->kernel);
		exp_sqlite_text(q, 5, h->arch);
		exp_sqlite_text(q, 6, h->version);
		exp_sqlite_text(q, 7, xs->job);
		exp_sqlite_text(q, 8, ctx->meta->nodes[node]);
		exp_sqlite_step(xs, EXQ_NODE_HELLO);
	}
	export_walk(ctx, node, m, exp_sqlite_flag, exp_sqlite_val, ctx);
}

static void
exp_sqlite_note(struct exp_ctx *ctx, const struct exp_note *n)
{
	static const char *const levels[] = { "info", "warn", "error" };
	struct exp_sqlite	*xs = ctx->priv;
	sqlite3_stmt		*q = xs->q[EXQ_EVENT];

	if (xs->failed)
		return;
	exp_sqlite_text(q, 1, xs->job);
	sqlite3_bind_double(q, 2, n->time_ms / 1e3);
	exp_sqlite_text(q, 3, n->name);
	exp_sqlite_text(q, 4, n->type);
	exp_sqlite_text(q, 5, n->level >= 0 && n->level <= 2 ?
	    levels[n->level] : "error");
	exp_sqlite_text(q, 6, n->code);
	exp_sqlite_text(q, 7, n->text);
	exp_sqlite_step(xs, EXQ_EVENT);
}

static int
exp_sqlite_end(struct exp_ctx *ctx, int failed)
{
	struct exp_sqlite	*xs = ctx->priv;
	int			 ok;

	if (xs == NULL)
		return failed;
	ctx->priv = NULL;
	ok = !failed && !xs->failed &&
	    exp_sqlite_exec(xs, "COMMIT", "commit") == 0;
	exp_sqlite_close(xs, ok);
	return !ok;
}

const struct exp_writer exp_sqlite = {
	.name = "sqlite",
	.passes = 1,
	.begin = exp_sqlite_begin,
	.sample = exp_sqlite_sample,
	.note = exp_sqlite_note,
	.end = exp_sqlite_end,
};
