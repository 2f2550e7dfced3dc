/* SPDX-License-Identifier: ISC */
/*
 * metrics: the catalogue of what the monitor derives for a node from its
 * probe's groups (htop's field table, applied to metrics).  One row per
 * metric: its key, title, unit and aggregation across nodes, the groups
 * and fields it comes from, which instances count, how they fold (sum,
 * maximum, mean, ratio) and the scale of the fields' units.  A row is
 * bound to group and field positions once per schema (the binding is
 * kept with the schema, which nodes that sent the same bytes share), so a
 * sample costs no name lookups.
 *
 * How to add a metric: its probe source, then one row here (its
 * enum value and metric_cat[] entry in metrics.c).  The history keeps a
 * ring per row.  A row with a .col title is a column of the node table
 * (ui/panel-nodes.c builds its columns from the catalogue); rows made of
 * others (.terms) are columns only.  The report charts every kept row
 * but the .noplot ones (src/report.c); the header's lines of optional
 * sources show the rows with a .hdr label (ui/panel-header.c); the job's
 * series (history.h) are every row folded across nodes.  A rank metric
 * is one row of rank_cat[] (below) and its enum hist_rank_metric value.
 */
#ifndef JOBTOP_METRICS_H
#define JOBTOP_METRICS_H

#include "model.h"

/* The rows, in catalogue order (the history's per-node series). */
enum hist_node_metric {
	HN_CPU,			/* cpu.busy, percent of the node */
	HN_MEM,			/* memory in use, bytes (the job's if known) */
	HN_MEMPCT,		/* HN_MEM as percent of the limit */
	HN_LOAD,		/* load1 */
	HN_DISK,		/* read + write bytes/s, every disk */
	HN_NET,			/* rx + tx bytes/s, every interface but lo */
	HN_GPU,			/* mean GPU utilisation, percent */
	HN_PROBE_CPU,		/* the probe's CPU, percent of one CPU */
	HN_PROBE_BYTES,		/* the probe's bytes sent per second */
	HN_GPU_MEM,		/* GPU memory used, bytes, every GPU */
	HN_GPU_MEMTOTAL,	/* GPU memory, bytes, every GPU */
	HN_GPU_POWER,		/* watts, every GPU */
	HN_GPU_TEMP,		/* the hottest GPU, degrees Celsius */
	HN_GPU_JOB,		/* the job's share of its GPUs' processes,
				   percent (of their utilisation, else of
				   their memory) */
	HN_IB_RX,		/* InfiniBand / Omni-Path bytes/s, every port */
	HN_IB_TX,
	HN_LUSTRE_READ,		/* Lustre client bytes/s (llite, else osc) */
	HN_LUSTRE_WRITE,
	HN_NFS_READ,		/* NFS client bytes/s, every mount */
	HN_NFS_WRITE,
	HN_POWER_PKG,		/* RAPL watts: every package, */
	HN_POWER_DRAM,		/* every DRAM domain */
	HN_TEMP,		/* the hottest sensor (thermal, hwmon), C */
	HN_IPC,			/* instructions per cycle, every rank */
	HN_MPI,			/* mean of the ranks' MPI shares, percent */
	HN_POWER_NODE,		/* whole-node watts: IPMI DCMI, else the
				   largest whole-node hwmon meter */
	HN_NMETRICS,		/* the rows kept in the history */
	/* Rows made of others (their .terms), evaluated when read: */
	HN_IB = HN_NMETRICS,	/* InfiniBand received + sent */
	HN_FS,			/* Lustre and NFS read + write */
	HN_POWER,		/* RAPL package + DRAM */
	HN_NROWS
};

/* The rank catalogue's rows (rank_cat[]: the history's per-rank
 * series), in order. */
enum hist_rank_metric {
	HR_CPU,			/* percent of one CPU */
	HR_RSS,			/* bytes */
	HR_READ,		/* bytes/s */
	HR_WRITE,		/* bytes/s */
	HR_IPC,			/* instructions per cycle (perf) */
	HR_MPI,			/* percent of its sampled CPU time in MPI */
	HR_NMETRICS
};

/* Which instances of the source groups count. */
enum metric_inst {
	MI_ALL,			/* every instance */
	MI_NODE,		/* the node-wide one (named "") */
	MI_PREFIX,		/* those whose name starts with inst */
	MI_SKIP			/* all but the one named inst */
};

/* How the values of the counted instances and fields fold into one. */
enum metric_fold {
	MF_SUM,			/* sum of what is there; absent without any */
	MF_MAX,			/* the largest */
	MF_MEAN,		/* the mean */
	MF_BOTH,		/* field[0] + field[1], both needed */
	MF_RATIO,		/* sum of field[0] / sum of field[1] (> 0) */
	MF_SPECIAL		/* a rule of its own (metrics.c) */
};

#define METRIC_GROUPS	2	/* source groups a row folds, in order */
#define METRIC_FIELDS	2	/* fields of each, in order */
#define METRIC_TERMS	4	/* rows a row made of others adds */

/* How a table cell shows a row's value (struct metric_col.fmt). */
enum metric_fmt {
	MV_NUM,			/* a number with .prec decimals: "12.5" */
	MV_BYTES,		/* bytes (or bytes/s): "1.2G" */
	MV_WHOLE,		/* a whole number and the row's unit: "245W" */
	MV_OF			/* bytes of a total: "3.1G/16G", the total
				   the row .of, else the memory limit */
};

/* A row as an item of the header's lines of optional sources: its label
 * and where it goes among them (.pos, ascending).  No label: not one. */
struct metric_hdr {
	const char	*label;
	unsigned char	 pos;
};

/*
 * A row as a column of the node table: its header title, where it goes
 * among the metric columns (.pos, ascending), its width and drop
 * priority on a narrow terminal (widget.h), its cell format, whether it
 * sorts ascending first (most sort descending: the biggest on top),
 * whether it is shown only when some node has a value (an optional
 * source), and whether it is no sort key of its own (MEM: MEM% sorts).
 * Its key in settings (node_columns, sort) is the row's key; .alias is
 * the older key still read.  No .title: not a column.
 */
struct metric_col {
	const char	*title;
	const char	*alias;
	unsigned char	 pos, width, prio, fmt, prec;
	unsigned char	 asc, optional, nosort;
	signed char	 of;		/* MV_OF: the total's row, -1 limit */
};

struct metric_def {
	const char	*key;		/* "gpu_mem" */
	const char	*title;		/* "GPU memory used" */
	const char	*unit;		/* "%", "B", "B/s", "W", "C", "" */
	const char	*agg;		/* across nodes: "sum", "mean", "max" */
	const char	*group[METRIC_GROUPS];	/* NULL: unused */
	const char	*field[METRIC_FIELDS];	/* of each group */
	const char	*derived;	/* a model_derived value of the
					   group instead of fields */
	unsigned char	 inst;		/* enum metric_inst */
	const char	*iname;		/* its prefix or name */
	unsigned char	 fold;		/* enum metric_fold */
	/* Groups read when no row of the pair (this one and row pair) had
	 * a value from group[] (Lustre: llite, else osc). */
	const char	*alt;
	int		 pair;
	/* A row made of others: the sum of its terms where any is a
	 * number (HN_FS is Lustre read + write and NFS read + write). */
	unsigned char	 nterms;
	unsigned char	 terms[METRIC_TERMS];
	struct metric_col col;		/* its node table column */
	struct metric_hdr hdr;		/* its header item */
	unsigned char	 noplot;	/* the report draws no chart of it */
};

/* Indexed by enum hist_node_metric. */
extern const struct metric_def metric_cat[HN_NROWS];

/*
 * The rank catalogue, indexed by enum hist_rank_metric: per rank, a row
 * reads the rank's own instance of group "rank", or the instance of its
 * group (rankperf, rankmpi) that is named by the rank's pid: one field's
 * value (a gauge's level, a counter's rate), a derived value of the
 * group (model.h's model_derived), or the ratio of two fields' rates
 * (MF_RATIO: instructions per cycle).  Bound to each schema once, with
 * the node rows.  The report charts each rank's rows but the .noplot
 * ones ("rank_" and the key).
 */
extern const struct metric_def rank_cat[HR_NMETRICS];

/* Rank row k of one instance of its group: 1 with *v (NaN for a ratio
 * without cycles), 0 when the instance has none. */
int	 metrics_rank_value(const struct node_model *, const struct minst *,
	     enum hist_rank_metric, double *);
/* The schema's position of rank row k's group, or -1. */
int	 metrics_rank_group(const struct node_model *, enum hist_rank_metric);

/* A kept row's index by key, or -1. */
int	 metrics_find(const char *);

/* The row whose "used of total" cell (MV_OF) row k is the total of:
 * HN_GPU_MEM for HN_GPU_MEMTOTAL; -1 for any other row. */
int	 metrics_total_of(int);

/* x + y where either is a number (NaN when neither is): how a row made
 * of others adds its terms, and how a table adds nodes. */
double	 metrics_add(double, double);

/*
 * Every row's value for a node's latest sample into out[HN_NMETRICS]
 * (NaN: absent, never 0 for absent), and its memory limit in bytes
 * (0 unknown) into *limit when limit is not NULL.
 */
void	 metrics_node_values(const struct node_model *, double *, double *);

/* Free a schema's binding (model.c, with the schema). */
void	 metrics_unbind(void *);

#endif
