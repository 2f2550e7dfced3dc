/* SPDX-License-Identifier: ISC */
/*
 * export: a recording played back into records.  JSON and text go
 * through the live batch outputs (out_json, out_text), with the detector
 * run again over the replayed samples so the records carry the flags the
 * live run printed; CSV (tidy or wide), SQLite and OpenMetrics are
 * writers (exp-*.c) over one walk of every value, whose values and units
 * are out_json_value's.  The functions print their errors (one line on
 * stderr) and return an exit status for main.
 */
#ifndef JOBTOP_EXPORT_H
#define JOBTOP_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "out.h"
#include "rec.h"

enum export_format {
	EXPORT_JSON,
	EXPORT_TEXT,
	EXPORT_CSV,
	EXPORT_SQLITE,
	EXPORT_OPENMETRICS,
};

enum export_wide {
	EXPORT_TIDY = 0,
	EXPORT_WIDE_NODE,	/* a row per node sample */
	EXPORT_WIDE_RANK,	/* a row per rank sample */
};

struct export_opts {
	enum export_format fmt;
	enum export_wide wide;		/* CSV only */
	const char	*begin, *end;	/* exp-sel.h times, or NULL */
	const char	*fields;	/* --fields list, or NULL */
	const char	*sqlite;	/* the database (EXPORT_SQLITE) */
	long long	 count;		/* -n; 0: as the live run showed */
};

/*
 * Play the recording at path and write it to f in the format; count > 0
 * stops each node after that many samples (-n; 0: as many as the live run
 * showed, which is all unless it ran with -n).  0, or 1 after an error
 * line; a recording cut short (its monitor was killed) is read to its
 * last whole block with a warning line and is not an error.
 */
int	 export_file(const char *, enum export_format, FILE *, long long);
/* The same with every option. */
int	 export_run(const char *, const struct export_opts *, FILE *);
/* The formats' options from the registry, "--json|--csv|--sqlite DB|..."
 * with sep between them (lower: "--sqlite db"); buf returned. */
const char *export_format_options(char *, size_t, const char *, int);
/* `jobtop export FILE [options]`: argv[0] is "export". */
int	 export_main(int, char **);

struct exp_fields;
/* The job's id in every export: its job id, or for a session of -w nodes
 * "FIRSTNODE-YYYYmmddTHHMMSSZ" (its start).  Allocated. */
char	*export_job_id(const struct rec_meta *);
/*
 * The JSON records that live --json and export --json share:
 * {"type":"meta",...}, the job (its id from export_job_id, "end" only
 * when end_ms is not 0: live does not know it yet), first; and
 * {"type":"units","node":N,"units":{"cpu.busy":"%",...}}, the unit of
 * every key a node's records can carry (of the fields kept; NULL: all),
 * before that node's first record.
 */
void	 export_json_meta(FILE *, const struct rec_meta *, const char *,
	    uint64_t);
void	 export_json_units(FILE *, const char *, const struct node_model *,
	    const struct exp_fields *);

/*
 * For the writers (exp-*.c).  A writer is one const descriptor listed in
 * export.c's exp_writers[]; export.c plays the recording, keeps the
 * window and the fields, and hands each writer what it keeps.
 */
struct exp_fields;
struct exp_ctx {
	FILE			*f;
	const struct export_opts *o;
	const struct rec_meta	*meta;
	const char		*job;		/* job id, or "NODE-START" */
	uint64_t		 start_ms, end_ms;	/* the recording */
	struct exp_fields	*fields;
	unsigned		 pass;		/* of the writer's passes */
	void			*priv;		/* the writer's */
};

/* Where a value belongs: a node record, or one of its ranks. */
struct exp_where {
	uint64_t		 time_ms;
	uint64_t		 seq;
	int			 node;		/* index in meta->nodes */
	const char		*name;		/* the node's */
	const struct node_model	*m;
	const struct minst	*rank;		/* NULL: the node record */
	int			 have_rank, have_pid;
	int64_t			 rank_id, pid;
};

/* One value: metric "group.field", instance name (NULL for node-wide
 * groups and ranks), the unit after conversion, and the value. */
struct exp_value {
	const char		*group, *field;
	const char		*inst;
	const char		*unit;
	int			 kind;		/* 'i', 'd' or 's' */
	int64_t			 i;
	double			 d;
	const char		*s;
};

/* Something that happened: a probe's or the monitor's event, a node's
 * state or transport, the job's end. */
struct exp_note {
	uint64_t		 time_ms;
	int			 node;		/* -1: the job */
	const char		*name;		/* the node's, or NULL */
	const char		*type;		/* "event", "state", ... */
	int			 level;		/* EV_* */
	const char		*code;
	const char		*text;
	int64_t			 rank;		/* its rank id, -1 none */
	int64_t			 pid;		/* its process, -1 none */
};

struct exp_writer {
	const char	*name;
	unsigned	 passes;	/* 2: a first pass to learn columns */
	/* Before anything: 0, or 1 after an error line. */
	int		(*begin)(struct exp_ctx *);
	/* A node's sample inside the window. */
	void		(*sample)(struct exp_ctx *, int,
			    const struct node_model *);
	void		(*note)(struct exp_ctx *, const struct exp_note *);
	/* After the last (failed: an error came before): 0 or 1. */
	int		(*end)(struct exp_ctx *, int);
};

extern const struct exp_writer exp_csv_tidy;
extern const struct exp_writer exp_csv_wide;
extern const struct exp_writer exp_sqlite;
extern const struct exp_writer exp_openmetrics;

/* Every kept value of a sample: rec for the node record and each rank
 * (before their values; may be NULL), val for each value. */
void	 export_walk(struct exp_ctx *, int, const struct node_model *,
	    void (*)(void *, const struct exp_where *),
	    void (*)(void *, const struct exp_where *,
	    const struct exp_value *), void *);
/* The detectors' flags of the node record (rank NULL) or a rank of the
 * sample being written: names into names[], how many. */
int	 export_flags(struct exp_ctx *, const struct exp_where *,
	    const char **, int);
/* A CSV field, quoted when it must be, formulas defused. */
void	 export_csv_field(FILE *, const char *);

#endif
