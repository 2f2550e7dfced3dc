/* SPDX-License-Identifier: ISC */
/*
 * summary: the verdict on a recorded job, "was it healthy?", in numbers a
 * support engineer can paste into a ticket: CPU efficiency against the
 * allocation (CPU time used / (allocated CPUs x time measured), what seff
 * prints), peak and mean memory per node against the request (the job
 * cgroup's limit), GPU utilisation and I/O when the nodes sent them, the
 * flags raised and how long each lasted, and the worst node and rank with
 * the reason.  The HTML report (report.c) shows it first; the monitor
 * prints it when it ends (summary_print_file on the recording it wrote).
 *
 * It is built in one pass over a recording: summary_sample after each
 * node sample (it keeps a history, history.h, so every value is the
 * monitor's own definition), summary_event for each event, then
 * summary_finish.  What it keeps is bounded per node and per rank, never
 * per sample.
 *
 * Allocation: the scheduler's CPU count where the recording has it;
 * older recordings store none, so the allocated CPUs are the nodes' CPUs
 * (whole nodes assumed, as exclusive jobs have) and the summary says so
 * (summary_node_cpus below); when the scheduler's task
 * count is known and smaller, the efficiency per task's CPU is given too.
 * CPU time used is the job cgroup's CPU time where a node sends it, else
 * the ranks' CPU time, else the node's busy CPUs.
 */
#ifndef JOBTOP_SUMMARY_H
#define JOBTOP_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "detect.h"
#include "history.h"
#include "model.h"
#include "proto.h"
#include "rec.h"

/* The node metrics the summary keeps statistics of. */
enum summary_metric {
	SM_CPU,			/* busy, percent of the node */
	SM_MEM,			/* in use, bytes (the job's if known) */
	SM_LOAD,
	SM_DISK,		/* bytes/s */
	SM_NET,			/* bytes/s */
	SM_GPU,			/* utilisation, percent */
	SM_GPU_MEM,		/* bytes */
	SM_IB,			/* bytes/s */
	SM_FS,			/* Lustre and NFS, bytes/s */
	SM_N
};

/* Where a node's CPU time used came from (bits: a node can change). */
#define SUMMARY_CPU_CGROUP	0x1
#define SUMMARY_CPU_RANKS	0x2
#define SUMMARY_CPU_NODE	0x4

/* DF_* bits plus the summary's own. */
#define SUMMARY_F_OOM		0x10	/* the cgroup's oom_kills grew */
#define SUMMARY_F_FAILED	0x20	/* the node failed */

struct summary_stat {
	double		 min, max, sum;
	uint64_t	 n;
};

struct summary_node {
	struct summary_stat st[SM_N];
	uint32_t	 ncpu;		/* from its probe, 0 unknown */
	uint64_t	 mem_total;	/* bytes, 0 unknown */
	double		 mem_limit;	/* the job cgroup's, 0 none */
	double		 mem_peak;	/* sampled, or the cgroup's peak */
	double		 cpu_used_s;	/* CPU seconds of the job, over
					   cpu_meas_s only */
	double		 cpu_alloc_s;	/* ncpu x cpu_meas_s */
	double		 cpu_meas_s;	/* intervals with the job's CPU time
					   measured (summary_node_eff) */
	double		 cpu_gap_s;	/* intervals left out: the node lost,
					   or a gap in its samples */
	double		 cpu_peak;	/* the most CPUs the job used over one
					   measured interval (its cgroup or
					   ranks; not the node's), 0 unknown */
	int		 down;		/* lost or failed, not live since */
	unsigned	 cpu_src;	/* SUMMARY_CPU_* */
	double		 bytes[SM_N];	/* rates integrated: total bytes */
	uint64_t	 oom_kills;
	int64_t		 oom_raw;	/* the counter last seen, -1 */
	uint64_t	 flag_ms[DF_NFLAGS];	/* node or a rank flagged */
	unsigned	 flags;		/* DF_* and SUMMARY_F_* ever */
	uint64_t	 samples;
};

struct summary_rank {
	unsigned	 node;
	int64_t		 key;		/* rank id, else pid */
	int		 is_rank;
	char		 comm[PROTO_NAME_MAX];
	double		 cpu_s;		/* CPU seconds */
	struct summary_stat cpu;	/* percent of one CPU */
	struct summary_stat rss;	/* bytes */
	double		 rss_peak;	/* the probe's peak, else sampled */
	uint64_t	 flag_ms;
	unsigned	 flags;
	/* Scratch for the report: this sample's values (NaN absent). */
	double		 now[HR_NMETRICS];	/* this sample, by rank row */
};

/* A flag raised (and cleared, or open to the end), lost and failed
 * nodes, OOM kills and broken streams: the markers on the charts. */
struct summary_mark {
	uint64_t	 from, to;	/* unix ms; to == from: a moment */
	unsigned	 node;		/* REC_NODE_NONE: the job */
	unsigned	 flag;		/* one DF_* or SUMMARY_F_*, 0 other */
	int		 open;		/* not cleared before the end */
	int64_t		 who;		/* rank id or pid, -1 the node */
	int		 is_rank;
	char		 text[PROTO_TEXT_MAX];
};

/* A rank that exited while the job went on (a "rank-exit" event), or a
 * verdict with a hint ("pinned", "io-bound", "mem-growth"): the first of
 * each kind per node and rank is kept, with its text. */
struct summary_note {
	uint64_t	 t;		/* unix ms */
	unsigned	 node;
	int64_t		 rank;		/* -1: many ranks or the node */
	int64_t		 pid;		/* -1 unknown */
	unsigned	 count;		/* ranks of an exit */
	int		 open;		/* a hint not cleared */
	char		 code[32];
	char		 text[PROTO_TEXT_MAX];
};

#define SUMMARY_NOTES_MAX	256

/* One line of the verdict: "CPU efficiency", "47% of ...". */
struct summary_line {
	char		 label[32];
	char		 text[512];
	int		 bad;		/* worth a warning colour */
};

#define SUMMARY_LINES_MAX	12
#define SUMMARY_MARKS_MAX	4096

struct summary {
	const struct rec_meta	*meta;
	uint64_t		 t0, t1;	/* unix ms */
	struct history		*h;
	struct summary_node	*nodes;		/* meta->nnodes */
	struct summary_rank	*ranks;		/* every node's */
	size_t			 nranks, capranks;
	size_t			**noderanks;	/* per node: indices */
	size_t			*nnoderanks;
	size_t			*hint;		/* per node: last found */
	struct summary_mark	*marks;
	size_t			 nmarks, capmarks, marks_dropped;
	struct summary_line	 lines[SUMMARY_LINES_MAX];
	unsigned		 nlines;
	struct summary_note	*notes;		/* exits and hints */
	size_t			 nnotes, capnotes, notes_dropped;
	long			 exit_ranks;	/* ranks that exited early */
	long			 worst_node;	/* -1 none */
	long			 worst_rank;	/* index in ranks, -1 */
	/* gpu-idle (detect-gpu.h): each allocated GPU no rank used. */
	struct summary_gpu_idle {
		unsigned	 node;
		int64_t		 gpu;
		uint64_t	 from, to;	/* to 0: open */
	}			*gidle;
	size_t			 ngidle;
};

/* A summary of the job in meta, recorded from t0 to t1 (unix ms). */
struct summary	*summary_new(const struct rec_meta *, uint64_t, uint64_t);
void		 summary_free(struct summary *);
/* After node i's model applied a sample. */
void		 summary_sample(struct summary *, unsigned,
		     const struct node_model *);
/* An event of node i (REC_NODE_NONE: the job) at t, with its subject as
 * recorded (rec_msg.subj; NULL: read from the text, older recordings). */
void		 summary_event(struct summary *, uint32_t, uint64_t,
		     const struct proto_event *, const struct rec_subject *);
/* Close open flags at t1 and write the verdict lines. */
void		 summary_finish(struct summary *);
/* The history the samples went into (the report reads it). */
const struct history *summary_history(const struct summary *);

/* The verdict as text, a line each, "jobtop summary:" first. */
void		 summary_print(const struct summary *, FILE *);
/* Read a recording and print its verdict: 0, or 1 after an error
 * line. */
int		 summary_print_file(const char *, FILE *);

/*
 * CPU efficiency, one definition for the verdict, the report's node table
 * and every other page: CPU time used / (CPUs allocated x time measured),
 * node by node over the same intervals.  An interval counts on a node
 * when the node was live (not lost or failed, by its state events) and
 * its samples were no more than SUMMARY_GAP_INTERVALS intervals apart;
 * the others count in neither the numerator nor the denominator, and the
 * verdict says how long each node was not measured and why.  The CPUs
 * allocated on a node: the scheduler's count shared evenly over the nodes
 * when the recording has it, else the node's own CPUs (whole nodes).
 */
#define SUMMARY_GAP_INTERVALS	3
/* The CPUs node i's efficiency is taken of (0 unknown). */
double		 summary_node_cpus(const struct summary *, unsigned);
/* Node i's efficiency in percent, NaN when nothing was measured. */
double		 summary_node_eff(const struct summary *, unsigned);
/* What the CPUs of summary_node_cpus are: "the scheduler's CPUs" or
 * "the node's CPUs". */
const char	*summary_cpus_basis(const struct summary *);

/* Time a node or its ranks carried any DF_* flag, ms. */
uint64_t	 summary_node_flags_ms(const struct summary_node *);
/* A flag (one DF_* or SUMMARY_F_* bit, 0 other) as an index 0..7, and
 * back. */
int		 summary_bit_index(unsigned);
unsigned	 summary_bit_flag(int);

/* "2026-11-25 14:03:07 CET (UTC+01:00)" in the local time zone (TZ). */
void		 summary_time(char *, size_t, uint64_t);
/* The zone alone: "CET, UTC+01:00". */
void		 summary_zone(char *, size_t, uint64_t);
/* "2 h 05 min", "3 min 20 s", "4.5 s". */
void		 summary_span(char *, size_t, double);
/* "cn001 rank 3 (a.out)" or "cn001 pid 160 (a.out)". */
void		 summary_rank_name(const struct summary *,
		     const struct summary_rank *, char *, size_t);

#endif
