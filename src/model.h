/* SPDX-License-Identifier: ISC */
/*
 * model: what the monitor knows about one node, built from the probe's
 * frames by stream.c and read by the outputs (and later the UI, replay and
 * recording).  A node has the facts its probe sent in HELLO, the schema
 * (groups of fields, shared between nodes that sent identical bytes), and a
 * table of live instances: one row of a group each ("" for node-wide
 * groups, a device, core or pid otherwise).  Every instance keeps the
 * current sample's integer values, and its counters' previous ones, with
 * present bits, so a value that is absent is never confused with 0, and
 * rates are computed here from raw counters.  Strings are owned by the
 * model.
 *
 * The structs are visible so readers can walk them; only model.c and
 * stream.c change them.
 */
#ifndef JOBTOP_MODEL_H
#define JOBTOP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct model_source {
	const char	*name;
	int		 on;
	const char	*reason;	/* why it is off, "" when on */
};

/* HELLO, kept compactly.  The host is the node's own string; the probe's
 * version, kernel, arch, job and the source list are the same on most
 * nodes of a job and shared, by reference count, between the nodes that
 * sent the same (22 sources were 1.2 KiB a node in 45 allocations). */
struct model_hello {
	uint8_t		 major, minor;
	const char	*version;
	char		*host;
	const char	*kernel;
	const char	*arch;
	const char	*job;
	uint32_t	 ncpu;
	uint64_t	 mem_total;
	uint32_t	 clk_tck;
	uint32_t	 page_size;
	uint64_t	 start_ms;
	uint32_t	 interval_ms;
	unsigned	 nsources;
	const struct model_source *sources;
	struct mfacts	*facts;		/* model.c's: what the above share */
};

/* Fields the monitor reads for every rank of every sample, and those the
 * derived values (model_derived[]) are made of, bound to their positions
 * in each group once per schema (mgroup.known): no name lookups on the
 * hot path (at 1024 nodes the derived values' lookups were ~4% of the
 * monitor's CPU in the --json writer). */
enum mgroup_known {
	MGF_PID,
	MGF_START_TIME,
	MGF_RANK,
	MGF_UTIME,
	MGF_STIME,
	MGF_IDLE,		/* cpu.busy */
	MGF_IOWAIT,
	MGF_TOTAL,		/* mem.used */
	MGF_AVAILABLE,
	MGF_SAMPLES,		/* rankmpi.share */
	MGF_MPI,
	MGF_STATE,		/* the JSON rank record's lead keys */
	MGF_NKNOWN
};

/* A group of the schema with what the model derives from its fields. */
/* Rows of model_derived[] one group may have (model.c has six in all). */
#define MODEL_MAX_DERIVED	8

struct mgroup {
	const struct proto_group *def;	/* name, nfields, fields[] */
	uint64_t	 strmask;	/* PF_STRING fields */
	uint64_t	 cpujmask;	/* counters in unit "cpu-jiffies" */
	uint64_t	 jiffmask;	/* counters in unit "jiffies" */
	uint64_t	 centimask;	/* gauges in unit "centi" */
	uint64_t	 ctrmask;	/* counters: they keep a previous value */
	unsigned	 nctr;
	unsigned	 nstr;
	int8_t		 strslot[PROTO_MAX_FIELDS];	/* -1: not a string */
	int8_t		 known[MGF_NKNOWN];	/* field, -1 absent */
	uint8_t		 nderived;	/* model_derived[] rows of this group */
	uint8_t		 derived[MODEL_MAX_DERIVED];
	char		*qnames;	/* "group.field\0" for every field */
	uint16_t	 qoff[PROTO_MAX_FIELDS];	/* field's in qnames */
	uint8_t		 qlen[PROTO_MAX_FIELDS];	/* its strlen */
};

/* A decoded schema; nodes that sent the same bytes share one. */
struct mschema {
	struct proto_schema	*ps;
	unsigned		 ngroups;
	struct mgroup		*groups;
	uint8_t			*raw;
	size_t			 rawlen;
	unsigned		 refs;
	void			*metrics;	/* metrics.c's binding of
						   its catalogue, or NULL */
	struct mschema		*next;
};

/* One instance: a row of a group.  v[0..nfields-1] are the current values,
 * v[nfields..nfields+nctr-1] the previous sample's of the group's counters
 * (mgroup.ctrmask), in field order: only rates need the past, and gauges
 * are about half the fields. */
struct minst {
	struct minst	*gnext, *gprev;	/* the group's instances, ADD order */
	const struct mgroup *mg;	/* its group in the node's schema */
	uint32_t	 id;
	uint16_t	 group;
	uint8_t		 nfields;
	uint8_t		 nstr;
	uint64_t	 curp;		/* present bits of this sample */
	uint64_t	 prevp;		/* and of the previous one (counters) */
	char		*name;
	char		**strs;		/* nstr owned strings, NULL absent */
	int64_t		 v[];
};

struct node_model {
	char		*label;		/* name until HELLO gives the host */
	int		 label_fixed;	/* the label wins over HELLO's host */
	int		 have_hello;
	struct model_hello hello;
	struct mschema	*schema;	/* NULL before SCHEMA */

	struct minst	**insts;	/* sorted by id */
	uint32_t	 ninsts;
	size_t		 strbytes;	/* instance names and string values */
	uint32_t	 capinsts;
	uint32_t	 hint;		/* index of the last lookup */
	struct minst	**gfirst;	/* per group: first and last */
	struct minst	**glast;
	uint32_t	*gcount;	/* per group: instances */

	uint64_t	 nsamples;
	uint64_t	 seq;		/* of the last sample */
	int64_t		 dt_ms;		/* its interval */
	uint64_t	 time_ms;	/* start_ms + every dt_ms so far */

	int		 ended;		/* BYE seen */
	uint32_t	 bye_code;
	char		*bye_text;
};

/*
 * Values the monitor derives from others.  How to add one: write a
 * function that returns 1 and sets *v when its inputs are present, and list
 * it in model_derived[] (model.c) under the group whose records carry it.
 */
struct model_derived {
	const char	*group;
	const char	*name;
	const char	*qname;		/* "group.name" */
	int		(*fn)(const struct node_model *, const struct minst *,
			    double *);
};
extern const struct model_derived model_derived[];
/* The derived value of this name for an instance of its group: 1 when
 * present. */
int	 model_derive(const struct node_model *, const struct minst *,
	    const char *, double *);

void	 model_init(struct node_model *, const char *);
/* Free everything the model holds (it can be initialised again). */
void	 model_free(struct node_model *);
/* to becomes a deep copy of from (a paused screen's models). */
void	 model_clone(struct node_model *, const struct node_model *);
/* The node's name: HELLO's host, else the label; the label always once
 * model_fix_name was called (a job's node name as the user knows it). */
const char *model_name(const struct node_model *);
void	 model_fix_name(struct node_model *);

/* Updates (stream.c).  Callers validate first: these trust their input. */
void	 model_set_hello(struct node_model *, const struct proto_hello *);
/* Decode or share a SCHEMA payload: a WIRE_* code. */
int	 model_set_schema(struct node_model *, const uint8_t *, size_t);
void	 model_begin_sample(struct node_model *);
void	 model_end_sample(struct node_model *, uint64_t, int64_t);
struct minst *model_find(struct node_model *, uint32_t);
struct minst *model_add(struct node_model *, uint32_t, unsigned,
	    const char *, size_t);
void	 model_drop(struct node_model *, struct minst *);
void	 model_apply_vals(struct minst *, uint64_t, const int64_t *);
void	 model_clear_fields(struct node_model *, struct minst *, uint64_t);
/* Set a string field (the caller checked it is one). */
void	 model_set_str(struct node_model *, struct minst *, unsigned,
	    const char *, size_t);
void	 model_set_bye(struct node_model *, uint32_t, const char *);

/* Reading. */
int	 model_group_index(const struct node_model *, const char *);
int	 model_field_index(const struct node_model *, unsigned, const char *);
const struct mgroup *model_group(const struct node_model *, unsigned);
/* Does any instance of the group have a non-empty name? */
int	 model_group_named(const struct node_model *, unsigned);
/* The raw current value of an integer field: 1 when present. */
int	 model_value(const struct minst *, unsigned, int64_t *);
/* Every integer field's previous value into prev[nfields] (a gauge has
 * none kept: its current one) and their present bits (the recording's
 * key frames). */
uint64_t model_prev_values(const struct minst *, int64_t *);
/* A string field's value, or NULL when absent. */
const char *model_str(const struct minst *, unsigned);
/*
 * A field as the user sees it: gauges as they are ("centi" / 100);
 * counters as rates over the last interval: "jiffies" as percent of one
 * CPU, "cpu-jiffies" as percent of the instance's total ticks, anything
 * else per second.  Returns 1 and sets *v when present; a counter has no
 * rate on an instance's first sample, after it reappears, or when it went
 * backwards.
 */
int	 model_metric(const struct node_model *, const struct minst *,
	    unsigned, double *);
/* The job cgroup's (group "cgroup") memory limit in bytes, its memory
 * peak, and the CPUs it used over the last interval (cpu_usage, us/s,
 * over 1e6), each NaN where the sample has none: what the summary and
 * the allocation hints judge.  Returns the instance, or NULL without
 * one (all three NaN). */
const struct minst *model_job_cgroup(const struct node_model *, double *,
	    double *, double *);
/* Metric of the first instance of "group" named name by field name. */
int	 model_metric_by_name(const struct node_model *, const char *,
	    const char *, const char *, double *);
/* The first instance of a group with this name, or NULL. */
const char	*model_comm_family(const struct node_model *, long long);
const struct minst *model_inst_by_name(const struct node_model *, unsigned,
	    const char *);

#endif
