/*
 * sched-oar: OAR jobs, from `oarstat -f -J -j JOBID`.
 *
 * -J prints JSON (oarstat(1): "-J, --JSON"; with machine-readable output
 * -f adds nothing, everything is there): an object keyed by job id, each
 * value the job's record as the REST API's GET /jobs/<id> documents it:
 * "Job_Id", "owner", "name" (may be null), "state" (Waiting, Hold,
 * toLaunch, toError, toAckReservation, Launching, Running, Suspended,
 * Resuming, Finishing, Terminated, Error), "assigned_network_address" (the
 * node names), "assigned_resources" (resource ids, one per core or
 * whatever the resource unit is), "walltime" (seconds, or "H:M:S" in
 * older versions), "startTime" (epoch seconds) and "message".  An unknown
 * job gives an empty object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostlist.h"
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

/* Parse `oarstat -J` output for jobid into job. */
static int
oar_parse(const char *text, const char *jobid, struct job *job, char *err,
    size_t errsz)
{
	struct sched_json	*doc, *rec, *j, *a;
	const char		*v;
	long			 n;
	int			 r = SCHED_OK;

	sched_copy(job->id, sizeof(job->id), jobid);
	job->sched = "oar";
	if ((doc = sched_json_parse(text)) == NULL) {
		snprintf(err, errsz, "oarstat: output is not JSON");
		return SCHED_EPARSE;
	}
	if ((rec = oar_record(doc, jobid)) == NULL) {
		sched_json_free(doc);
		snprintf(err, errsz, "job %s: no such job", jobid);
		return SCHED_ENOJOB;
	}
	if ((v = sched_json_str(rec, "Job_Id")) != NULL &&
	    (r = sched_check_recid(job, v, VJ_OAR, err, errsz)) != SCHED_OK) {
		sched_json_free(doc);
		return r;
	}
	sched_copy_text(job->name, sizeof(job->name),
	    sched_json_str(rec, "name"));
	v = sched_json_str(rec, "owner");
	if ((r = sched_set_user(job, v != NULL ? v : sched_json_str(rec,
	    "job_user"), err, errsz)) != SCHED_OK) {
		sched_json_free(doc);
		return r;
	}
	v = sched_json_str(rec, "state");
	job->state = oar_state(v);
	sched_copy_text(job->state_name, sizeof(job->state_name), v);
	if (job->state == JOB_PENDING)
		sched_copy_text(job->reason, sizeof(job->reason),
		    sched_json_str(rec, "message"));
	if ((j = sched_json_get(rec, "walltime")) != NULL) {
		if (j->type == SJ_NUMBER)
			job->time_limit = sched_secs(j->num);
		else if (j->type == SJ_STRING)
			job->time_limit = sched_parse_duration(j->str);
	}
	if (sched_job_active(job)) {
		if ((j = sched_json_get(rec, "startTime")) != NULL &&
		    j->type == SJ_NUMBER && j->num > 0)
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
	if (r != SCHED_OK)
		return r;
	return sched_job_finish(job, err, errsz);
}

static int
oar_detect(void)
{
	if (getenv("OAR_JOB_ID") != NULL || getenv("OAR_JOBID") != NULL)
		return 2;
	return sched_in_path("oarstat") ? 1 : 0;
}

static int
oar_resolve(const char *jobid, struct job *job, char *err, size_t errsz)
{
	const char	*argv[6];
	char		*out, errtxt[512];
	int		 r, status;

	argv[0] = "oarstat";
	argv[1] = "-f";
	argv[2] = "-J";
	argv[3] = "-j";
	argv[4] = jobid;
	argv[5] = NULL;
	sched_copy(job->id, sizeof(job->id), jobid);
	if ((r = sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    errsz)) != SCHED_OK)
		return r;
	if (status != 0 && out[0] != '{') {
		snprintf(err, errsz, "oarstat -j %s: %s", jobid,
		    errtxt[0] != '\0' ? errtxt : "failed");
		free(out);
		return SCHED_ECMD;
	}
	r = oar_parse(out, jobid, job, err, errsz);
	free(out);
	return r;
}

const struct sched sched_oar = {
	"oar", "oarstat", VJ_OAR, oar_detect, oar_resolve, oar_parse
};
