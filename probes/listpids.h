/* SPDX-License-Identifier: ISC */
/*
 * listpids: the reader of `scontrol --json listpids JOBID` (Slurm 24.11
 * and later): pid -> job, step, local and global task id on the node,
 * which scontrol asks the node's step daemons (slurmstepd), not
 * slurmctld.  Its output, as Slurm's source makes it (SchedMD/slurm
 * src/scontrol/info_job.c, src/plugins/data_parser/v0.0.42/parsers.c;
 * tests/data/listpids/README):
 *
 *	{"pids": [{"global_task_id": {"set": true, "infinite": false,
 *	           "number": 4},
 *	           "local_task_id": {"set": true, "infinite": false,
 *	           "number": 0},
 *	           "job_id": 4242, "pid": 41877, "step_id": "0"}, ...],
 *	 "meta": {...}, "errors": [], "warnings": []}
 *
 * one entry per live task of each step, then one per other process of the
 * step (a task's children, whatever else is in the step's container),
 * whose ids are not set ({"set": false, ...}).  With data_parser's
 * "+complex" flag an id is a bare number, null when not set.  step_id is
 * "0", "batch", "extern", "interactive", or "0+1" for a heterogeneous
 * step's component.
 *
 * Libc only and no allocation: the probe reads it (ranks-find.c), so do
 * its unit test and fuzz target.
 */
#ifndef JOBTOP_LISTPIDS_H
#define JOBTOP_LISTPIDS_H

#include <stddef.h>
#include <stdint.h>

/* One task of a step on the node. */
struct listpids_task {
	int32_t		pid;
	uint32_t	job;
	uint32_t	step;	/* ranks.h's numbering: 0.., RANKS_STEP_BATCH,
				 * ..., RANKS_STEP_NONE when unreadable */
	int32_t		gtid;	/* global task id: SLURM_PROCID's value */
	int32_t		ltid;	/* local task id on the node, -1 unset */
};

/*
 * Parse the whole output [buf, buf+len).  The entries that are tasks (a
 * global task id set) go to out, at most max of them, in the order
 * listed; *nother counts the other entries (processes of a step that are
 * no task).  Returns how many tasks, or -1 with *why set (static text)
 * when the text is not that document: not JSON (the plain table that
 * scontrol before 24.11 prints whatever --json says), no "pids" array,
 * an entry without its pid, job_id or step_id or with one out of range,
 * more than max tasks, errors scontrol reported, nesting deeper than
 * LISTPIDS_DEPTH.
 */
#define LISTPIDS_DEPTH	16
int	listpids_parse(const char *, size_t, struct listpids_task *,
	    unsigned, unsigned *, const char **);

/*
 * Is the first line of `scontrol --version` ("slurm 24.11.0", Debian's
 * "slurm-wlm 22.05.8") a Slurm of 24.11 or later?  1 yes, 0 older, -1
 * not a version line.
 */
int	listpids_version_ok(const char *, size_t);

#endif
