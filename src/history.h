/* SPDX-License-Identifier: ISC */
/*
 * history: the recent past of every node and every rank of a job, as ring
 * buffers of the values people look at (CPU busy, memory, disk and network
 * rates; GPUs, InfiniBand, Lustre and NFS rates, power and temperatures
 * when a node has them; a rank's %CPU, RSS, I/O rates, IPC and share of
 * CPU time in MPI) plus
 * job-wide rings of the aggregates.  Sparklines draw from it and the
 * detectors judge from it.
 *
 * A node is known by its index in the session and a rank by its pid and
 * start time, not by the probe's instance ids, so the history survives a
 * reconnect (a new probe, a new stream, a new model).  A value that was
 * absent in a sample is stored as NaN, never as 0.  The history copies
 * values out of the model after each sample; it keeps no pointer into a
 * model.
 */
#ifndef JOBTOP_HISTORY_H
#define JOBTOP_HISTORY_H

#include <stdint.h>

#include "metrics.h"
#include "model.h"

/* Powers of two: the ring index is a mask. */
#define HIST_NODE_DEPTH		256	/* samples kept per node and job */
#define HIST_RANK_DEPTH		64	/* samples kept per rank */

/* Per-node series: one per row of the metric catalogue (metrics.h,
 * enum hist_node_metric). */
/* Per-rank series: one per row of the rank catalogue (metrics.h,
 * enum hist_rank_metric). */

/*
 * Job-wide series, from the latest value of every node that is not stale:
 * one per row of the node catalogue (metrics.h, its enum
 * hist_node_metric), folded across nodes by the row's aggregation (sum,
 * mean or max; the total of a "used of total" row only over the nodes
 * that have the used part), then these:
 */
enum hist_job_metric {
	HJ_MEMTOTAL = HN_NROWS,	/* the nodes' limits where HN_MEM is */
	HJ_RANKCPU,		/* sum of the ranks' %CPU */
	HJ_NMETRICS
};

/* What a node metric is, for the outputs that list them (the report):
 * the catalogue's rows, whose first members are key, title, unit and
 * agg. */
#define hist_metric_info	metric_def
#define hist_node_info		metric_cat

/* A ring's value: bfloat16 (history.c); the newest is kept exact. */
typedef uint16_t hist_val;
float	hist_val_float(hist_val);

/* One rank's past.  The det_* fields belong to detect.c. */
struct hist_rank {
	int64_t		 pid;
	int64_t		 start;		/* start_time (jiffies), -1 unknown */
	int64_t		 rank;		/* rank id, -1 unknown */
	/* The newest value of each ring, the state, the flags and the
	 * syscall beside the identity: the rank table reads 32768 of these
	 * a frame, one aligned cache line each. */
	float		 cur[HR_NMETRICS];
	char		 state;		/* the state letter, '?' unknown */
	unsigned	 flags;		/* DF_* (detect.c) */
	int64_t		 syscall;	/* the syscall number, -1 running,
					 * -2 unknown */
	uint64_t	 seen;		/* the node's sample count when seen */
	unsigned	 head;		/* next slot to write */
	unsigned	 len;		/* valid samples, up to the depth */
	hist_val	 v[HR_NMETRICS][HIST_RANK_DEPTH];	/* history.c */
	int64_t		 ticks;		/* utime + stime, -1 unknown */
	int64_t		 dticks;	/* since the previous sample, -1 */
	int		 io_known;	/* read or write bytes were readable */
	unsigned	 det_idle;	/* consecutive idle samples */
	unsigned	 det_far;	/* consecutive straggling samples */
	unsigned	 det_near;	/* consecutive normal samples */
	int		 det_by_cpu;	/* the straggler flag was raised by
					 * the %CPU rule (not COMM%) */
	unsigned	 det_mem;	/* consecutive samples over the limit */
	unsigned	 det_io, det_io_ok;	/* I/O-bound samples, others */
	int		 det_iobound;	/* the io-bound verdict is raised */
	float		 det_level;	/* its level in the last peer stats */
	unsigned	 det_gen;	/* ... of that round (0: not in) */
	float		 det_demand;	/* %CPU plus run-queue delay at its
					 * last judgement, if det_dok */
	int		 det_dok;
	unsigned	 det_dgen;	/* round its demand was counted in */
};

struct history;

struct history	*history_new(void);
void		 history_free(struct history *);
/* A deep copy (a replay's snapshot to step back to). */
struct history	*history_clone(const struct history *);

/* Make room for nodes 0..n-1 (new nodes have no samples). */
void		 history_resize(struct history *, int);
int		 history_nnodes(const struct history *);

/*
 * Record the sample a node's model just applied: its series and every
 * rank of the rank group (ranks missing from the sample are forgotten).
 * now_ms is the monotonic time it arrived.
 */
void		 history_node_sample(struct history *, int,
		     const struct node_model *, uint64_t);

/* Samples recorded for a node (0: none yet) and when the last came. */
uint64_t	 history_node_samples(const struct history *, int);
uint64_t	 history_node_last_ms(const struct history *, int);
/* The node's memory limit in bytes (the job's cgroup limit when the node
 * sends one, else its memory), 0 when unknown. */
double		 history_node_mem_limit(const struct history *, int);
/*
 * The node metrics whose past is kept, a ring of HIST_NODE_DEPTH each: the
 * ones something reads back in time (today the node table's CPU
 * sparkline; the detectors, tables, summary and report read the newest
 * value).  The others keep their newest value only, and their past reads
 * as NaN.  Rings of all eight metrics a lab node has were 4 KiB of the
 * core's ~15 KiB per node (heaptrack of the srun transport at 64 nodes);
 * a panel that draws another node metric's past adds its bit here.
 */
#define HN_PAST		((uint64_t)1 << HN_CPU)

/* Value k samples back (0: the latest); NaN when absent or too old (any
 * back > 0 outside HN_PAST). */
double		 history_node_get(const struct history *, int,
		     enum hist_node_metric, unsigned);
/* The last n values oldest first into out (NaN-padded at the front). */
void		 history_node_series(const struct history *, int,
		     enum hist_node_metric, float *, unsigned);

/* A node's ranks, in the order they were first seen. */
unsigned	 history_nranks(const struct history *, int);
struct hist_rank *history_rank(struct history *, int, unsigned);
const struct hist_rank *history_rank_const(const struct history *, int,
		     unsigned);
/* The rank with this pid and start time (start -1 matches any), or NULL. */
/* The ranks of node i's latest sample, in the order they first came; n
 * gets their count.  Valid until the node's next sample. */
struct hist_rank *const *history_node_ranks(const struct history *, int,
		     unsigned *);
struct hist_rank *history_rank_find(const struct history *, int, int64_t,
		     int64_t);
double		 history_rank_get(const struct hist_rank *,
		     enum hist_rank_metric, unsigned);
void		 history_rank_series(const struct hist_rank *,
		     enum hist_rank_metric, float *, unsigned);

/*
 * Push one job-wide sample: the aggregate of every node whose latest
 * sample is younger than stale_ms at now_ms.  Call once per interval.
 */
void		 history_job_sample(struct history *, uint64_t, uint64_t);
/* A job series' value back samples ago, and the newest n (oldest
 * first); k is a catalogue row (HN_*) or an HJ_* series. */
double		 history_job_get(const struct history *, int, unsigned);
void		 history_job_series(const struct history *, int, float *,
		     unsigned);
/* Job samples pushed so far. */
uint64_t	 history_job_samples(const struct history *);

/*
 * Every node metric of a model's current sample into out[HN_NMETRICS]
 * (NaN where absent), as history_node_sample records them; for outputs
 * that keep no history (the report).
 */
void		 history_node_values(const struct node_model *, double *);

/* Helpers shared with the detectors and the UI: the identity fields of a
 * rank instance (0 when it has no pid). */
int		 history_rank_ident(const struct node_model *,
		     const struct minst *, int64_t *, int64_t *, int64_t *);

#endif
