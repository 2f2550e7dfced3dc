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
/* What feed-ssh.c's FSSH_ROW(n) defines for launcher row n: its
 * constructor, usable() and takeover() (struct feed_transport). */
#define FEED_LAUNCH_ROW(n)						\
struct feed	*feed_new_##n(const struct rconf *, const char *,	\
		    char *, size_t);					\
int		 feed_##n##_usable(const struct rconf *, const char *,	\
		    char *, size_t);					\
const char	*feed_##n##_takeover(const struct rconf *,		\
		    const char *, const char *, enum feed_fail,		\
		    const char *, char *, size_t);
FEED_LAUNCH_ROW(oarsh)
FEED_LAUNCH_ROW(blaunch)
FEED_LAUNCH_ROW(pbs_tmrsh)
FEED_LAUNCH_ROW(flux)
/* The client command line a launcher row would start for host, for
 * --explain ("env OAR_JOB_ID=12 oarsh node2 <the probe's script>"). */
void		 feed_launch_command(const char *, const struct rconf *,
		    const char *, char *, size_t);
/* After an SSH rung (FEED_T_SSH) refused the user on a node of a job:
 * launcher row name when it serves the job's scheduler and is usable,
 * with why; NULL. */
const char	*feed_launch_takeover(const char *, const struct rconf *,
		    const char *, const char *, enum feed_fail, const char *,
		    char *, size_t);

#endif
