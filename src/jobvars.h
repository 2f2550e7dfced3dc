/* SPDX-License-Identifier: ISC */
/*
 * jobvars: the environment variables by which each batch scheduler names
 * the job a process belongs to.  One table for the two places that read
 * them: the monitor's allocation detection (sched-env.c: which job do we
 * run inside) and the probe's rank discovery (probes/ranks-find.c: is
 * this process the job's).  Header-only (the probe is built from
 * probes/NAME.c and a few src/ files, static, without the monitor's
 * objects), so the table is static in each user.
 *
 * How the value names the job:
 *	JV_WHOLE	the whole value is the id ("123")
 *	JV_SERVER	the id, or the part before the first '.' is
 *			("123.server", PBS)
 *	JV_F58		a Flux f58 id ("f3AakAX9", or with U+0192 in
 *			UTF-8, as Flux sets FLUX_JOB_ID in the job)
 * Within a scheduler, earlier names are preferred (SLURM_JOB_ID before
 * the older SLURM_JOBID); schedulers come in detection order.
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
	const char		*sched;
	enum jobvar_match	 match;
};

static const struct jobvar jobvars[] = {
	{ "SLURM_JOB_ID",	"slurm",	JV_WHOLE },
	{ "SLURM_JOBID",	"slurm",	JV_WHOLE },
	{ "PBS_JOBID",		"pbs",		JV_SERVER },
	{ "LSB_JOBID",		"lsf",		JV_WHOLE },
	{ "OAR_JOB_ID",		"oar",		JV_WHOLE },
	{ "OAR_JOBID",		"oar",		JV_WHOLE },
	{ "FLUX_JOB_ID",	"flux",		JV_F58 },
	{ NULL,			NULL,		JV_WHOLE },
};

#endif
