/*
 * feed-srun: the transport "srun".  Every node of a Slurm job is reached
 * through Slurm itself: one `srun --overlap --jobid=JOB -l --input=all`
 * runs one `jobtop-probe --armour` per node and its output is taken apart
 * per node (srun-demux.c).  The nodes' feeds of one job share that srun
 * (a group); the login node holds one process for the whole job.
 */
#ifndef JOBTOP_FEED_SRUN_H
#define JOBTOP_FEED_SRUN_H

struct feed;
struct rconf;

/* Node host of the job rc names (rc->job must be set, rconf_ready done).
 * Feeds made with the same rc share one group. */
struct feed	*feed_new_srun(const struct rconf *, const char *);
/* Sample every ms: a control line to every probe of the feed's group. */
int		 feed_srun_set_interval(struct feed *, unsigned);
/* Is f an srun feed? */
int		 feed_is_srun(const struct feed *);

#endif
