/* SPDX-License-Identifier: ISC */
/*
 * feed-srun: the transport "srun".  Every node of a Slurm job is reached
 * through Slurm itself: one `srun --overlap --jobid=JOB -l --input=all`
 * runs one `jobtop-probe --armour` per node and its output is taken apart
 * per node (srun-demux.c).  The nodes' feeds of one job share that srun
 * (a group); the login node holds one process for the whole job.
 */
#ifndef JOBTOP_FEED_SRUN_H
#define JOBTOP_FEED_SRUN_H

#include <stddef.h>

#include "feed.h"

/* Jobs with more nodes than this start on srun under --transport auto:
 * libssh2 costs about 95 MiB and 4% of a core per 1024 nodes at 1 Hz
 * (issue 10's measurement) and one socket each, the ssh client a process
 * each; past a thousand nodes the login node's share grows with every
 * node while srun stays one process. */
#define FEED_SRUN_NODES	1024

/* The transport's constructor (feed_open_fn): node host of the job rc
 * names.  Feeds of one rc share one group and its srun. */
struct feed	*feed_new_srun(const struct rconf *, const char *, char *,
		    size_t);
/* feed_usable_fn: a Slurm job, and srun in PATH. */
int		 feed_srun_usable(const struct rconf *, const char *, char *,
		    size_t);
/* The ladder's srun rung (feed_ladder_next, after its SSH rules found no
 * other SSH client to try): after SSH (libssh2 or ssh) refused the user on
 * a node of a Slurm job ("Access denied by pam_slurm_adopt", no sshd,
 * DenyUsers: authentication refused with a usable key), "srun" with the
 * reason in why; NULL otherwise. */
const char	*feed_srun_ladder(const struct rconf *, const char *,
		    const char *, enum feed_fail, const char *, char *,
		    size_t);
/* The step the transport would start for host, as one line for
 * --explain ("srun --overlap --jobid=75 -w node2 ... --job 75"), with
 * whom it runs as ("as jtuser (uid 1001, ...)" for root on another user's
 * job, from runas.h). */
void		 feed_srun_command(const struct rconf *, const char *, char *,
		    size_t);
/* Should a node of this job start on srun at once (a job larger than
 * FEED_SRUN_NODES)?  1 with the reason for skipping SSH in why. */
int		 feed_srun_first(const struct rconf *, char *, size_t);
/* Is transport name this one (--explain's launcher report)? */
int		 feed_srun_is(const char *);

#endif
