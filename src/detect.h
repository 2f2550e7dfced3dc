/* SPDX-License-Identifier: ISC */
/*
 * detect: the judgements the monitor makes about a job from its history,
 * raised as flags on nodes and ranks and announced as events.
 *
 *   stalled    a rank whose CPU time and I/O stopped advancing for several
 *              consecutive samples while the median rank of the job is
 *              busy: judged on samples, not on elapsed time;
 *   straggler  a node (CPU busy) far from the job's median by a robust
 *              measure (median absolute deviation, with a minimum absolute
 *              and relative gap so noise never flags), or a rank whose
 *              level (median of its own last samples) is far from its
 *              peers' without itself (leave-one-out median and MAD, over a
 *              floor that follows the job's sample-to-sample noise; two
 *              ranks: only the lower, under half the other), sustained
 *              for several samples;
 *   memory     memory in use over 90% of the limit (the job's cgroup limit
 *              when the node sends it, else the node's memory), for a node,
 *              or one rank's RSS over 90% of it;
 *   lost       a node the session reports lost (silent or reconnecting).
 *
 * Only processes with a rank id are judged as ranks (stalled, straggler);
 * the job's other processes are judged on memory alone.
 *
 * The ranks are also the job's members: a rank id on a node (with every
 * process that carries it: a rank's helper children inherit its id) is one
 * rank of the job.  A rank that appears after its node's first sample
 * ("rank-appear") or whose last process is gone ("rank-exit") is an event
 * naming the node, the rank id, a pid and the command; when many of one
 * node come or go in one sample they make one event, and exits after
 * detect_job_ended() make none (the job's end is not news).  Judged only
 * for a job (conf.ranks): a hostlist's processes come and go as they like.
 *
 * The detector reads the history (history.h) after each node sample and
 * keeps each rank's flags in its struct hist_rank.  Every flag that is
 * raised or cleared is handed to the callback (the event log, batch JSON,
 * the recorder).  Job-wide medians are recomputed once per round of
 * samples (as many samples as live nodes), so the cost of a round is
 * linear in the number of ranks.
 */
#ifndef JOBTOP_DETECT_H
#define JOBTOP_DETECT_H

#include <stdint.h>

#include "history.h"
#include "model.h"

#define DF_STALLED	0x01
#define DF_STRAGGLER	0x02
#define DF_MEMORY	0x04
#define DF_LOST		0x08
#define DF_NFLAGS	4

struct detect_conf {
	int		 ranks;		/* judge ranks (0: processes of a
					 * hostlist, not a job's ranks) */
	unsigned	 stall_samples;	/* idle samples before "stalled" */
	double		 idle_cpu;	/* a rank under this %CPU is idle */
	double		 busy_cpu;	/* the median rank over this is busy */
	unsigned	 strag_samples;	/* far samples before "straggler" */
	unsigned	 clear_samples;	/* normal samples before a clear */
	double		 strag_mads;	/* far: this many scaled MADs, */
	double		 strag_gap;	/* at least this many %-points, */
	double		 strag_frac;	/* and this fraction of the median */
	unsigned	 strag_min;	/* peers needed to judge (nodes, ranks) */
	double		 mem_pct;	/* raise over this percent */
	double		 mem_clear_pct;	/* clear under this percent */
	unsigned	 mem_samples;	/* samples over before a raise */
	long		 ntasks;	/* ranks the scheduler expects, -1
					 * unknown (said in rank events) */
	double		 mem_node;	/* bytes the scheduler allocated a
					 * node, 0 unknown: a rank's memory
					 * limit where its node has no job
					 * cgroup limit */
	unsigned	 member_group;	/* ranks of a node coming or going in
					 * one sample that make one event */
	double		 cpus_node;	/* CPUs the scheduler allocated a
					 * node, 0 unknown */
	uint64_t	 alloc_ms;	/* watched this long before the
					 * allocation is judged */
};

/* The allocation used a fraction: judged once the job has run (been
 * watched, live; recorded, in the summary) this long, said when it used
 * under this fraction of what it was given. */
#define DETECT_ALLOC_MIN_MS	(5 * 60 * 1000)
#define DETECT_ALLOC_FRAC	0.25

struct detect_event {
	uint64_t	 time_ms;	/* unix ms */
	int		 node;
	int		 is_rank;
	int64_t		 rank;		/* -1 unknown or a node event */
	int64_t		 pid;
	unsigned	 flag;		/* one DF_*, 0 a membership event */
	int		 raised;	/* 1 raised, 0 cleared */
	int		 member;	/* +1 ranks appeared, -1 exited, 0 a
					 * flag */
	unsigned	 count;		/* ranks of a membership event */
	int		 level;		/* EV_WARN raised, EV_INFO cleared;
					 * EV_WARN exited, EV_INFO appeared */
	char		 code[32];	/* "stalled", "stalled-cleared",
					 * "rank-exit", "rank-appear" */
	char		 text[256];	/* one line for people */
};

struct detect;

/* The defaults (ranks judged, 3 idle samples, 5 far samples, 90%,
 * ntasks unknown, 3 ranks at once make one membership event). */
void		 detect_conf_default(struct detect_conf *);
/* A detector over h (not owned); conf NULL for the defaults; cb may be
 * NULL. */
struct detect	*detect_new(struct history *, const struct detect_conf *,
		     void (*)(void *, const struct detect_event *), void *);
void		 detect_free(struct detect *);
/* A deep copy over h (the history's copy), telling cb. */
struct detect	*detect_clone(const struct detect *, struct history *,
		     void (*)(void *, const struct detect_event *), void *);

/* Judge a node's latest sample (after history_node_sample); time_ms is
 * the sample's unix time for the events. */
void		 detect_node_sample(struct detect *, int,
		     const struct node_model *, uint64_t);
/* The session's view of a node changed: lost (1) or not (0), with the
 * state text and a name for the event. */
void		 detect_node_state(struct detect *, int, const char *, int,
		     const char *, uint64_t);

unsigned	 detect_node_flags(const struct detect *, int);
unsigned	 detect_rank_flags(const struct hist_rank *);
/* Is a rank instance one of the launcher's helpers (the probe's
 * rank.helper: hydra_pmi_proxy, orted, mpiexec, srun)?  Never judged. */
int		 detect_is_helper(const struct node_model *,
		    const struct minst *);
/* What a rank that does not run waits for, from its delay accounting and
 * state, as text in buf ("waiting on storage: block I/O delay 92% of the
 * time"); 0 and "" when nothing says (no delay known, or too little). */
int		 detect_rank_waits(const struct node_model *,
		    const struct minst *, char *, size_t);
/* The union of the flags of node i's ranks and how many have one. */
void		 detect_node_ranks(const struct detect *, int, unsigned *,
		     unsigned *);
/* How many nodes and ranks carry each flag: counts[DF_NFLAGS] indexed by
 * bit number. */
void		 detect_counts(const struct detect *, unsigned *, unsigned *);
/*
 * The job's ranks now (rank ids per node, summed over the nodes, a lost
 * node's as last seen), or -1 when no process ever had a rank id or ranks
 * are not judged (count processes instead).
 */
long		 detect_ranks(const struct detect *);
/* The ranks the job is expected to have: the largest launcher's world
 * its ranks carry (rank.world: torchrun's WORLD_SIZE where the scheduler
 * counts one agent a node), else the scheduler's (conf.ntasks); -1
 * unknown. */
long		 detect_ntasks(const struct detect *);
/* The verdicts with a hint said and not cleared: nodes with ranks pinned
 * to one shared CPU ("pinned"), I/O-bound ranks ("io-bound"), nodes whose
 * memory grows toward the limit ("mem-growth"). */
void		 detect_hint_counts(const struct detect *, unsigned *,
		     unsigned *, unsigned *);
/* The allocation used a fraction, as people read it: "uses 3.1 GB of
 * 64 GB memory per node at most: --mem=4G would do", "uses 0.9 of 16 CPUs
 * per node at most: 2 CPUs per node would do" for the most the job used
 * on a node against what a node was given; 0 and "" when it used more
 * than DETECT_ALLOC_FRAC of it or a value is unknown (CPUs: under 2). */
int		 detect_alloc_mem_text(char *, size_t, double, double);
int		 detect_alloc_cpu_text(char *, size_t, double, double);
/* The allocation hints said and not cleared ("alloc-mem", "alloc-cpu":
 * the job watched conf.alloc_ms used a fraction of it). */
void		 detect_alloc_said(const struct detect *, int *, int *);
/* The job has ended: the ranks that go from now on raise no event. */
void		 detect_job_ended(struct detect *);
/* The job-wide medians the last judgements used (NaN before any). */
double		 detect_rank_median(const struct detect *);
double		 detect_node_median(const struct detect *);

/* "stalled", "straggler", "memory", "lost" for one bit; NULL otherwise. */
const char	*detect_flag_name(unsigned);
/* The names of the bits set, in a fixed order; returns how many. */
int		 detect_flag_names(unsigned, const char **, int);

#endif
