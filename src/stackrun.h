/* SPDX-License-Identifier: ISC */
/*
 * stackrun: take the stacks of every rank of a live session, all nodes in
 * parallel.  On each node, once its probe has named the node's ranks (the
 * first sample with a rank table), one side command (feed_exec_start, the
 * way `b` takes one backtrace) runs the node's own probe binary as
 * `jobtop-probe --stacks PID:RANK ...` (probes/stacks.c), which answers
 * with the node's distinct stacks (stackfmt.h); the answers are merged
 * into one tree (stacktree.h).  Used by `jobtop --stacks` (its own session
 * hooks, stackrun_hooks) and by the monitor's stacks view (stackrun_start
 * on the UI's session, stackrun_check on every wake-up).  Nothing blocks.
 */
#ifndef JOBTOP_STACKRUN_H
#define JOBTOP_STACKRUN_H

#include <stdint.h>

#include "session.h"
#include "stacktree.h"

struct stackrun_conf {
	unsigned	 gap_ms;	/* between the takes, 0: one take */
	unsigned	 deadline_ms;	/* a take's, on a node */
	unsigned	 frames;	/* at most, a stack */
	int		 threads;	/* every thread, not the main one */
	int		 ranks;		/* ids are ranks (a job), else pids */
	/* Where the probe is: this machine's, for local nodes; the
	 * remote cache directory (relative to the home unless absolute)
	 * and the probe's name there, for the others (NULL: none). */
	const char	*probe_local;
	const char	*cache_dir;
	const char	*probe_name;
};

#define STACKRUN_GAP_MS		3000
#define STACKRUN_DEADLINE_MS	10000
#define STACKRUN_FRAMES		64

/* The defaults above, nothing else. */
void		 stackrun_conf_init(struct stackrun_conf *);
/* A command-line option of --stacks and the stacks view by its long name
 * ("stacks-gap", "stacks-deadline", "stacks-frames", "threads"): 0, or
 * -1 with one line in err. */
int		 stackrun_option(struct stackrun_conf *, const char *,
		    const char *, char *, size_t);

struct stackrun;

struct stackrun	*stackrun_new(const struct stackrun_conf *, struct session *);
void		 stackrun_free(struct stackrun *);
/* Start on every node whose ranks are known; the others start as their
 * first sample comes (stackrun_check).  0, or -1 when no node is live. */
int		 stackrun_start(struct stackrun *, uint64_t);
/* Start what can start, collect what ended: 1 once every node answered
 * or failed. */
int		 stackrun_check(struct stackrun *, uint64_t);
/* Milliseconds until it wants stackrun_check again, -1 once done. */
int		 stackrun_timeout(const struct stackrun *, uint64_t);
/* The merged tree (finished once done; NULL before). */
struct stree	*stackrun_tree(struct stackrun *);
/* After the session's loop: the nodes still waiting fail with their
 * state, and the tree is done. */
void		 stackrun_settle(struct stackrun *, uint64_t);
/* How far: "3 of 4 nodes answered". */
void		 stackrun_progress(const struct stackrun *, char *, size_t);
/* The session hooks of `jobtop --stacks`: start on the first sample, quit
 * the session once every node answered.  Set before session_new; the
 * session is given with stackrun_set_session. */
void		 stackrun_hooks(struct stackrun *, struct session_hooks *);
void		 stackrun_set_session(struct stackrun *, struct session *);

/* The node-side command for a node (allocated), from the conf and the
 * node's ranks as "PID:RANK" words; local: the node is this machine. */
char		*stackrun_command(const struct stackrun_conf *, int,
		    const char *);

#endif
