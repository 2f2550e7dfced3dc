/* SPDX-License-Identifier: ISC */
/*
 * explain: jobtop --explain, a report a user can paste into a support
 * ticket.  For one node of the job it tries every transport of the ladder
 * in order, each in a session of its own with a deadline, and prints line
 * by line what worked and what failed and why (for SSH the exact method
 * and key type), what the probe found there (its HELLO, each source on or
 * off with its reason, how the job's processes were found and its
 * cgroup), and which transport auto would choose.  Text only, no curses.
 */
#ifndef JOBTOP_EXPLAIN_H
#define JOBTOP_EXPLAIN_H

#include <stdio.h>

#include "feed.h"
#include "session.h"

struct job;

#define EXPLAIN_DEADLINE_MS	10000	/* per transport */

/*
 * One rung of the ladder as explain tries it.  start() makes the feed for
 * the node (NULL with the reason in err); skip, when set, says why the
 * rung is not tried at all here (srun for a job of no Slurm, a transport
 * this build lacks).  local: a probe run as a child on this machine, which
 * is no transport and needs none.
 */
struct explain_rung {
	const char	*name;
	struct feed	*(*start)(void *, const char *, char *, size_t);
	void		*arg;
	const char	*skip;
	int		 local;
	/* The shared configuration, for the ladder's verdict on a failure
	 * (feed_ladder_next); NULL for the local child. */
	const struct rconf *rc;
	/* auto starts here, and why ("a job of 2000 nodes ..."); NULL:
	 * in ladder order */
	const char	*first;
};

/*
 * Report on node (one of job's) through rungs[0..n-1], in ladder order,
 * to out.  sc: the session timing (count is forced to 1).  Returns 0 when
 * some rung delivered a sample from the node, 1 when none did.
 */
int	explain_run(const struct job *, const char *,
	    const struct explain_rung *, int, const struct session_conf *,
	    FILE *);

#endif
