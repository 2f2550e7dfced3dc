/* SPDX-License-Identifier: ISC */
/*
 * feed-launch: the schedulers' own remote shells as transports, run like
 * the ssh client by feed-ssh.c (one process per node): "oarsh" (OAR),
 * "blaunch" (LSF), "pbs_tmrsh" (PBS), "flux" (Flux: flux proxy JOB flux
 * exec -r RANK, the node's rank in the job's instance from rconf_rank).
 * Each row knows the scheduler it serves and what it needs from the
 * environment; usable() says why not.
 */
#ifndef JOBTOP_FEED_LAUNCH_H
#define JOBTOP_FEED_LAUNCH_H

#include <stddef.h>

#include "feed.h"

struct rconf;

struct feed	*feed_new_launch(const char *, const struct rconf *,
		    const char *, char *, size_t);
int		 feed_launch_usable(const char *, const struct rconf *,
		    const char *, char *, size_t);
struct feed	*feed_new_oarsh(const struct rconf *, const char *, char *,
		    size_t);
int		 feed_oarsh_usable(const struct rconf *, const char *, char *,
		    size_t);
struct feed	*feed_new_blaunch(const struct rconf *, const char *, char *,
		    size_t);
int		 feed_blaunch_usable(const struct rconf *, const char *,
		    char *, size_t);
struct feed	*feed_new_pbs_tmrsh(const struct rconf *, const char *, char *,
		    size_t);
int		 feed_pbs_tmrsh_usable(const struct rconf *, const char *,
		    char *, size_t);
struct feed	*feed_new_flux(const struct rconf *, const char *, char *,
		    size_t);
int		 feed_flux_usable(const struct rconf *, const char *, char *,
		    size_t);
/* The client command line a launcher row would start for host, for
 * --explain ("env OAR_JOB_ID=12 oarsh node2 <the probe's script>"). */
void		 feed_launch_command(const char *, const struct rconf *,
		    const char *, char *, size_t);
/* After SSH (libssh2 or ssh) refused the user on a node of a job: the
 * job's scheduler's launcher row when one is usable, with why; NULL. */
const char	*feed_launch_ladder(const struct rconf *, const char *,
		    const char *, enum feed_fail, const char *, char *,
		    size_t);

#endif
