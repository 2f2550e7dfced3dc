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
 * ring per row.  The report plots the rows listed in report_hn[]
 * (src/report.c), the node table and header show the rows they have a
 * column or item for (ui/panel-nodes.c, ui/panel-header.c): each is one
 * more line there.
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
	HN_NMETRICS
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
};

/* Indexed by enum hist_node_metric. */
extern const struct metric_def metric_cat[HN_NMETRICS];

/* A row's index by key, or -1. */
int	 metrics_find(const char *);

/*
 * Every row's value for a node's latest sample into out[HN_NMETRICS]
 * (NaN: absent, never 0 for absent), and its memory limit in bytes
 * (0 unknown) into *limit when limit is not NULL.
 */
void	 metrics_node_values(const struct node_model *, double *, double *);

/* Free a schema's binding (model.c, with the schema). */
void	 metrics_unbind(void *);

#endif
