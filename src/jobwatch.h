/* SPDX-License-Identifier: ISC */
/*
 * jobwatch: does the job still run?  While the monitor watches a job that
 * a scheduler resolved, every JOBWATCH_PERIOD_MS a child process asks the
 * scheduler again (sched_resolve, the same query and parser as at the
 * start) and hands the verdict back through a pipe, so the poll loop never
 * waits on the scheduler.  The child's end wakes the loop (the session
 * catches SIGCHLD); one that outlives its deadline is killed.
 *
 * Use, from the session's timeout hook (called once per loop pass):
 *
 *	jw = jobwatch_new(job.sched, job.id, clock_mono_ms());  NULL: -w
 *	t = jobwatch_step(jw, now);       ms until it needs a call again
 *	if (jobwatch_ended(jw)) ... jobwatch_state(jw) ... stop the probes
 *	jobwatch_free(jw);                kills a query still running
 */
#ifndef JOBTOP_JOBWATCH_H
#define JOBTOP_JOBWATCH_H

#include <stdint.h>

#define JOBWATCH_PERIOD_MS	10000	/* between two queries */
#define JOBWATCH_DEADLINE_MS	20000	/* a query running longer is killed */

struct jobwatch;

/* A watch for job id of scheduler sched (the names of struct job); NULL
 * when sched is no scheduler (a hostlist, a hostfile).  The first query
 * starts one period after now. */
struct jobwatch	*jobwatch_new(const char *, const char *, uint64_t);
/* Start a query that is due, collect one that ended, kill one past its
 * deadline.  Returns the milliseconds until it needs a call again. */
int		 jobwatch_step(struct jobwatch *, uint64_t);
/* 1 once the scheduler said the job is no longer running: it finished
 * (COMPLETED, FAILED, CANCELLED, TIMEOUT...), went back to the queue, or
 * the scheduler no longer knows it (twice in a row: "ENDED"). */
int		 jobwatch_ended(const struct jobwatch *);
/* The final state in the scheduler's words ("COMPLETED"), "" before. */
const char	*jobwatch_state(const struct jobwatch *);
void		 jobwatch_free(struct jobwatch *);

#endif
