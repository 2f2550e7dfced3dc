/* SPDX-License-Identifier: ISC */
/*
 * sched-flux: Flux jobs, from
 *
 *	flux jobs -n -o FLUX_FORMAT JOBID
 *
 * flux-jobs(1) lists the job ids given on its command line whatever their
 * state; -n drops the header and -o takes a Python format string of the
 * fields documented under OUTPUT FORMAT.  We ask for them joined by '|':
 * id.f58, userid, username, status_abbrev (N new, D depend, P priority, S
 * sched: all pending, real Flux 0.88 prints S for a job waiting for
 * resources; R running, C cleanup, CD completed, F failed, CA canceled,
 * TO timeout; PD from older releases), ntasks, runtime and
 * t_remaining (floating seconds), nodelist (an RFC 29 hostlist, the same
 * syntax as Slurm's; empty until the job runs) and, last because it may
 * hold '|', name.  LC_ALL=C (sched_run) makes id.f58 start with an ASCII
 * 'f' rather than U+0192.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "jobvars.h"
#include "sched.h"

#define FLUX_FORMAT	"{id.f58}|{userid}|{username}|{status_abbrev}|" \
			"{ntasks}|{runtime}|{t_remaining}|{nodelist}|{name}"

enum {
	FLUX_ID,
	FLUX_USERID,
	FLUX_USERNAME,
	FLUX_STATUS,
	FLUX_NTASKS,
	FLUX_RUNTIME,
	FLUX_REMAINING,
	FLUX_NODELIST,
	FLUX_NAME,
	FLUX_NFIELDS
};

static enum job_state
flux_state(const char *s)
{
	if (strcmp(s, "PD") == 0 || strcmp(s, "P") == 0 ||
	    strcmp(s, "D") == 0 || strcmp(s, "S") == 0 ||
	    strcmp(s, "N") == 0)
		return JOB_PENDING;
	if (strcmp(s, "R") == 0)
		return JOB_RUNNING;
	if (strcmp(s, "C") == 0)
		return JOB_COMPLETING;
	if (strcmp(s, "CD") == 0)
		return JOB_COMPLETED;
	if (strcmp(s, "F") == 0)
		return JOB_FAILED;
	if (strcmp(s, "CA") == 0)
		return JOB_CANCELLED;
	if (strcmp(s, "TO") == 0)
		return JOB_TIMEOUT;
	return JOB_UNKNOWN;
}

/* The base58 part of an f58 id ('f' or U+0192 first), or NULL. */
static const char *
flux_f58_body(const char *s)
{
	if (strncmp(s, "\xc6\x92", 2) == 0)
		return s + 2;
	if (*s == 'f')
		return s + 1;
	return NULL;
}

/* Same f58 job id, whichever 'f' each is written with? */
static int
flux_same_id(const char *a, const char *b)
{
	const char	*ba = flux_f58_body(a), *bb = flux_f58_body(b);

	return ba != NULL && bb != NULL && strcmp(ba, bb) == 0;
}

/* Parse `flux jobs -n -o FLUX_FORMAT` output for jobid into job. */
static int
flux_parse(const char *text, const char *jobid, struct job *job, char *err,
    size_t errsz)
{
	char		*copy, *line, *next, *p, *bar, *f[FLUX_NFIELDS], *end;
	double		 run, left;
	long		 uid;
	int		 i, r = SCHED_OK, matched = 0;

	sched_copy(job->id, sizeof(job->id), jobid);
	job->sched = "flux";
	if ((copy = strdup(text)) == NULL)
		return SCHED_ENOMEM;
	for (line = copy; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		for (p = line, i = 0; i < FLUX_NFIELDS; i++) {
			f[i] = p;
			if (i == FLUX_NFIELDS - 1 ||
			    (bar = strchr(p, '|')) == NULL)
				break;
			*bar = '\0';
			p = bar + 1;
		}
		if (i != FLUX_NFIELDS - 1)
			continue;
		/* A decimal id asked for: take the one line we got. */
		if (!flux_same_id(f[FLUX_ID], jobid) &&
		    strspn(jobid, "0123456789") != strlen(jobid))
			continue;
		matched = 1;
		if ((r = sched_check_recid(job, f[FLUX_ID], VJ_FLUX, err,
		    errsz)) != SCHED_OK)
			break;
		/* The job by its ASCII f58 id from here on (a decimal id
		 * or U+0192, as FLUX_JOB_ID has it, asked for): the
		 * probes and the remote command line take that form. */
		if (*f[FLUX_ID] == 'f')
			sched_copy(job->id, sizeof(job->id), f[FLUX_ID]);
		if ((r = sched_set_user(job, f[FLUX_USERNAME], err, errsz)) !=
		    SCHED_OK)
			break;
		uid = strtol(f[FLUX_USERID], &end, 10);
		if (end != f[FLUX_USERID] && *end == '\0' && uid >= 0) {
			job->uid = (uid_t)uid;
			job->uid_known = 1;
		}
		sched_copy_text(job->name, sizeof(job->name), f[FLUX_NAME]);
		sched_copy_text(job->state_name, sizeof(job->state_name),
		    f[FLUX_STATUS]);
		job->state = flux_state(f[FLUX_STATUS]);
		if (*f[FLUX_NTASKS] >= '0' && *f[FLUX_NTASKS] <= '9')
			job->ntasks = strtol(f[FLUX_NTASKS], NULL, 10);
		run = strtod(f[FLUX_RUNTIME], &end);
		if (end != f[FLUX_RUNTIME] && run >= 0) {
			job->elapsed = sched_secs(run);
			left = strtod(f[FLUX_REMAINING], &end);
			if (end != f[FLUX_REMAINING] && left > 0)
				job->time_limit = sched_secs(run + left +
				    0.5);
		}
		/* Cleanup of a job that never ran (rejected, or canceled
		 * while pending): it holds no node and has ended. */
		if (job->state == JOB_COMPLETING && *f[FLUX_NODELIST] == '\0')
			job->state = JOB_FAILED;
		if (sched_job_active(job) && *f[FLUX_NODELIST] != '\0') {
			r = sched_job_add_nodes(job, f[FLUX_NODELIST], err,
			    errsz);
			/* The nodes set sorts them; the job's instance
			 * ranks its brokers in this order (the flux
			 * transport's "flux exec -r RANK"). */
			free(job->rank_nodes);
			if (r == SCHED_OK && (job->rank_nodes =
			    strdup(f[FLUX_NODELIST])) == NULL)
				r = SCHED_ENOMEM;
		}
		break;
	}
	free(copy);
	if (r != SCHED_OK)
		return r;
	if (!matched) {
		snprintf(err, errsz, "job %s: no such job", jobid);
		return SCHED_ENOJOB;
	}
	return sched_job_finish(job, err, errsz);
}

static const struct jobvar flux_jobvars[] = { JOBVARS_FLUX, JOBVARS_END };

const struct sched sched_flux = {
	.name = "flux",
	.command = "flux",
	.idkind = VJ_FLUX,
	.jobvars = flux_jobvars,
	/* Flux sets no node variable: the job is asked for. */
	.env = { .how = SCHED_ENV_QUERY },
	.mine_argv = (const char *const []){ "flux", "jobs", "-n",
	    "--filter=running", "-o", "{id.f58}", NULL },
	.query_argv = (const char *const []){ "flux", "jobs", "-n", "-o",
	    FLUX_FORMAT, "%j", NULL },
	.query_what = "flux jobs",
	.nojob_words = (const char *const []){ "nknown", "not found",
	    "No such", NULL },
	.parse = flux_parse,
};
