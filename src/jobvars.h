/* SPDX-License-Identifier: ISC */
/*
 * jobvars: the environment variables by which each batch scheduler names
 * the job a process belongs to.  Each scheduler's descriptor holds its
 * own (struct sched .jobvars, src/sched-NAME.c: the monitor's allocation
 * detection, which job do we run inside); the probe's rank discovery
 * (probes/ranks-find.c: is this process the job's) reads all of them
 * from jobvars[] here.  Both come from one list per scheduler,
 * JOBVARS_NAME below.  Header-only (the probe is built from probes/NAME.c
 * and a few src/ files, static, without the monitor's objects), so the
 * table is static in each user.
 *
 * How the value names the job:
 *	JV_WHOLE	the whole value is the id ("123")
 *	JV_SERVER	the id, or the part before the first '.' is
 *			("123.server", PBS)
 *	JV_F58		a Flux f58 id ("f3AakAX9", or with U+0192 in
 *			UTF-8, as Flux sets FLUX_JOB_ID in the job)
 * Within a scheduler, earlier names are preferred (SLURM_JOB_ID before
 * the older SLURM_JOBID); schedulers come in detection order (sched.c's
 * sched_table).  A new scheduler: its JOBVARS_NAME here, in jobvars[]
 * and in its descriptor.
 */
#ifndef JOBTOP_JOBVARS_H
#define JOBTOP_JOBVARS_H

enum jobvar_match {
	JV_WHOLE,
	JV_SERVER,
	JV_F58,
};

struct jobvar {
	const char		*name;
	enum jobvar_match	 match;
};

#define JOBVARS_END		{ .name = NULL, .match = JV_WHOLE }

#define JOBVARS_SLURM							\
	{ .name = "SLURM_JOB_ID",	.match = JV_WHOLE },		\
	{ .name = "SLURM_JOBID",	.match = JV_WHOLE }
#define JOBVARS_PBS							\
	{ .name = "PBS_JOBID",		.match = JV_SERVER }
#define JOBVARS_LSF							\
	{ .name = "LSB_JOBID",		.match = JV_WHOLE }
#define JOBVARS_OAR							\
	{ .name = "OAR_JOB_ID",		.match = JV_WHOLE },		\
	{ .name = "OAR_JOBID",		.match = JV_WHOLE }
#define JOBVARS_FLUX							\
	{ .name = "FLUX_JOB_ID",	.match = JV_F58 }

/* Every scheduler's, for the probe. */
static const struct jobvar jobvars[] = {
	JOBVARS_SLURM,
	JOBVARS_PBS,
	JOBVARS_LSF,
	JOBVARS_OAR,
	JOBVARS_FLUX,
	JOBVARS_END
};

#endif
