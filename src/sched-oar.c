/* SPDX-License-Identifier: ISC */
/*
 * sched-oar: OAR jobs, from `oarstat -f -J -j JOBID`.
 *
 * Checked against real OAR 2.5.9 (tests/data/sched/oar-real): -J prints
 * JSON (it needs the Perl JSON module, which oar-user does not pull in;
 * without it: an error and a non-zero exit) and -f adds the node names.
 * The output is an object keyed by job id, each value the job's record:
 * "Job_Id" (a number), "owner" and "job_user", "name" (may be null),
 * "state" (Waiting, Hold, toLaunch, toError, toAckReservation, Launching,
 * Running, Suspended, Resuming, Finishing, Terminated, Error),
 * "assigned_network_address" (the node names), "assigned_resources"
 * (resource ids, one per core or whatever the resource unit is),
 * "walltime" (seconds), "startTime" (epoch seconds), "message" and
 * "events".  An unknown job prints nothing at all and exits 0.  A job
 * deleted with oardel ends in Error with a FRAG_JOB_REQUEST event.
 *
 * OAR 3 (oar/cli/oarstat.py) dumps the jobs table instead: "id", "user",
 * "state", "name", "message", "start_time", no walltime and no node
 * names; those come from `oarstat -p -J -j JOBID` (each resource's
 * properties, "network_address" among them): {"JOBID": [{...}, ...]}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostlist.h"
#include "jobvars.h"
#include "sched.h"

static enum job_state
oar_state(const char *s)
{
	static const struct {
		const char	*word;
		enum job_state	 st;
	} map[] = {
		{ "Waiting", JOB_PENDING },
		{ "Hold", JOB_PENDING },
		{ "toLaunch", JOB_PENDING },
		{ "toAckReservation", JOB_PENDING },
		{ "Launching", JOB_PENDING },
		{ "Running", JOB_RUNNING },
		{ "Suspended", JOB_SUSPENDED },
		{ "Resuming", JOB_SUSPENDED },
		{ "Finishing", JOB_COMPLETING },
		{ "Terminated", JOB_COMPLETED },
		{ "toError", JOB_FAILED },
		{ "Error", JOB_FAILED },
	};
	size_t	i;

	for (i = 0; s != NULL && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(s, map[i].word) == 0)
			return map[i].st;
	return JOB_UNKNOWN;
}

/* The record of jobid: the member of that name, or the only member. */
static struct sched_json *
oar_record(struct sched_json *doc, const char *jobid)
{
	struct sched_json	*j;
	const char		*id;

	if (doc == NULL || doc->type != SJ_OBJECT)
		return NULL;
	if ((j = sched_json_get(doc, jobid)) != NULL)
		return j->type == SJ_OBJECT ? j : NULL;
	for (j = doc->child; j != NULL; j = j->next) {
		id = sched_json_str(j, "Job_Id");
		if (id != NULL && strcmp(id, jobid) == 0)
			return j;
	}
	return NULL;
}

/* Did oardel end this job?  Its events say so (FRAG_JOB_REQUEST). */
static int
oar_deleted(const struct sched_json *rec)
{
	struct sched_json	*ev, *e;
	const char		*t;

	if ((ev = sched_json_get(rec, "events")) == NULL ||
	    ev->type != SJ_ARRAY)
		return 0;
	for (e = ev->child; e != NULL; e = e->next)
		if ((t = sched_json_str(e, "type")) != NULL &&
		    strcmp(t, "FRAG_JOB_REQUEST") == 0)
			return 1;
	return 0;
}

/* Only whitespace: what oarstat prints for a job it does not know. */
static int
oar_blank(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return 0;
	return 1;
}

/* Parse `oarstat -J` output for jobid into job, short of the final check
 * (OAR 3 names the nodes in a second output). */
static int
oar_parse_rec(const char *text, const char *jobid, struct job *job,
    char *err, size_t errsz)
{
	struct sched_json	*doc, *rec, *j, *a;
	const char		*v, *m;
	char			 reason[sizeof(job->reason)];
	long			 n;
	int			 r = SCHED_OK;

	sched_copy(job->id, sizeof(job->id), jobid);
	job->sched = "oar";
	if (oar_blank(text)) {
		snprintf(err, errsz, "job %s: no such job", jobid);
		return SCHED_ENOJOB;
	}
	if ((doc = sched_json_parse(text)) == NULL) {
		snprintf(err, errsz, "oarstat: output is not JSON");
		return SCHED_EPARSE;
	}
	if ((rec = oar_record(doc, jobid)) == NULL) {
		sched_json_free(doc);
		snprintf(err, errsz, "job %s: no such job", jobid);
		return SCHED_ENOJOB;
	}
	if ((v = sched_json_str(rec, "Job_Id")) == NULL)
		v = sched_json_str(rec, "id");		/* OAR 3 */
	if (v != NULL &&
	    (r = sched_check_recid(job, v, VJ_OAR, err, errsz)) != SCHED_OK) {
		sched_json_free(doc);
		return r;
	}
	sched_copy_text(job->name, sizeof(job->name),
	    sched_json_str(rec, "name"));
	if ((v = sched_json_str(rec, "owner")) == NULL &&
	    (v = sched_json_str(rec, "job_user")) == NULL)
		v = sched_json_str(rec, "user");	/* OAR 3 */
	if ((r = sched_set_user(job, v, err, errsz)) != SCHED_OK) {
		sched_json_free(doc);
		return r;
	}
	v = sched_json_str(rec, "state");
	job->state = oar_state(v);
	sched_copy_text(job->state_name, sizeof(job->state_name), v);
	if (job->state == JOB_FAILED && oar_deleted(rec)) {
		job->state = JOB_CANCELLED;
		snprintf(job->state_name, sizeof(job->state_name),
		    "%s: deleted by oardel", v);
	}
	/* Hold (oarresume needed) or Waiting, then OAR's own message. */
	if (job->state == JOB_PENDING) {
		if ((m = sched_json_str(rec, "message")) == NULL)
			m = "";
		snprintf(reason, sizeof(reason), "%s%s%s", v,
		    m[0] != '\0' ? ", " : "", m);
		sched_copy_text(job->reason, sizeof(job->reason), reason);
	}
	if ((j = sched_json_get(rec, "walltime")) != NULL) {
		if (j->type == SJ_NUMBER)
			job->time_limit = sched_secs(j->num);
		else if (j->type == SJ_STRING)
			job->time_limit = sched_parse_duration(j->str);
	}
	if (sched_job_active(job)) {
		if ((j = sched_json_get(rec, "startTime")) == NULL)
			j = sched_json_get(rec, "start_time");	/* OAR 3 */
		if (j != NULL && j->type == SJ_NUMBER && j->num > 0)
			job->elapsed = sched_secs((double)time(NULL) -
			    j->num);
		if ((j = sched_json_get(rec, "assigned_resources")) != NULL &&
		    j->type == SJ_ARRAY) {
			for (n = 0, a = j->child; a != NULL; a = a->next)
				n++;
			job->ntasks = n;
		}
		j = sched_json_get(rec, "assigned_network_address");
		for (a = j != NULL ? j->child : NULL; a != NULL; a = a->next) {
			if (a->type != SJ_STRING) {
				snprintf(err, errsz, "oarstat: bad "
				    "assigned_network_address");
				r = SCHED_EPARSE;
				break;
			}
			if ((r = sched_job_add_host(job, a->str, 0, err,
			    errsz)) != SCHED_OK)
				break;
		}
	}
	sched_json_free(doc);
	return r;
}

/* OAR 3's `oarstat -p -J -j JOBID`: {"JOBID": [{"network_address": ...,
 * ...}, ...]}, one object per resource of the job. */
static int
oar_parse_props(const char *text, const char *jobid, struct job *job,
    char *err, size_t errsz)
{
	struct sched_json	*doc, *list, *a;
	const char		*v;
	long			 n = 0;
	int			 r = SCHED_OK;

	if ((doc = sched_json_parse(text)) == NULL) {
		snprintf(err, errsz, "oarstat -p: output is not JSON");
		return SCHED_EPARSE;
	}
	if (doc->type != SJ_OBJECT ||
	    (list = sched_json_get(doc, jobid)) == NULL ||
	    list->type != SJ_ARRAY) {
		sched_json_free(doc);
		return SCHED_OK;	/* no resources: no node list */
	}
	for (a = list->child; a != NULL; a = a->next, n++) {
		if ((v = sched_json_str(a, "network_address")) == NULL) {
			snprintf(err, errsz, "oarstat -p: a resource without "
			    "network_address");
			r = SCHED_EPARSE;
			break;
		}
		if ((r = sched_job_add_host(job, v, 0, err, errsz)) !=
		    SCHED_OK)
			break;
	}
	if (r == SCHED_OK && job->ntasks < 0)
		job->ntasks = n;
	sched_json_free(doc);
	return r;
}

static int
oar_parse(const char *text, const char *jobid, struct job *job, char *err,
    size_t errsz)
{
	int	r;

	if ((r = oar_parse_rec(text, jobid, job, err, errsz)) != SCHED_OK)
		return r;
	return sched_job_finish(job, err, errsz);
}

/* Run `oarstat OPT -J -j JOBID` into *out.  Its JSON module missing, a
 * bad id...: an error message and a non-zero exit, reported as is. */
static int
oar_run(const char *opt, const char *jobid, char **out, char *err,
    size_t errsz)
{
	const char	*argv[6];
	char		 errtxt[512];
	int		 r, status;

	if (sched_argv(sched_oar.query_argv, argv, sizeof(argv) /
	    sizeof(argv[0]), jobid, NULL, opt) != 0) {
		snprintf(err, errsz, "oarstat: no query for a job");
		return SCHED_ECMD;
	}
	if ((r = sched_run(argv, out, errtxt, sizeof(errtxt), &status, err,
	    errsz)) != SCHED_OK)
		return r;
	if (status != 0 && (*out)[0] != '{') {
		snprintf(err, errsz, "%s %s: %s", sched_oar.query_what, jobid,
		    errtxt[0] != '\0' ? errtxt : "failed");
		free(*out);
		*out = NULL;
		return SCHED_ECMD;
	}
	return SCHED_OK;
}

static int
oar_resolve(const char *jobid, struct job *job, char *err, size_t errsz)
{
	char	*out;
	int	 r;

	sched_copy(job->id, sizeof(job->id), jobid);
	if ((r = oar_run("-f", jobid, &out, err, errsz)) != SCHED_OK)
		return r;
	r = oar_parse_rec(out, jobid, job, err, errsz);
	free(out);
	if (r != SCHED_OK)
		return r;
	/* OAR 3: the record names no node; ask for the job's resources. */
	if (sched_job_active(job) && job->nodes == NULL) {
		if ((r = oar_run("-p", jobid, &out, err, errsz)) != SCHED_OK)
			return r;
		r = oar_parse_props(out, jobid, job, err, errsz);
		free(out);
		if (r != SCHED_OK)
			return r;
	}
	return sched_job_finish(job, err, errsz);
}

static const struct jobvar oar_jobvars[] = { JOBVARS_OAR, JOBVARS_END };

const struct sched sched_oar = {
	.name = "oar",
	.command = "oarstat",
	.idkind = VJ_OAR,
	.jobvars = oar_jobvars,
	.env = { .how = SCHED_ENV_HOSTFILE,
	    .nodes = { "OAR_NODEFILE", "OAR_NODE_FILE", "OAR_FILE_NODES" } },
	.mine_argv = (const char *const []){ "oarstat", "-u", "%u", NULL },
	/* "%o": -f (the job) or -p (its resources, OAR 3), oar_resolve's.
	 * An unknown job is an empty answer, not an error (oar_parse). */
	.query_argv = (const char *const []){ "oarstat", "%o", "-J", "-j",
	    "%j", NULL },
	.query_what = "oarstat -j",
	.resolve = oar_resolve,
	.parse = oar_parse,
};
