/* SPDX-License-Identifier: ISC */
/*
 * sched-lsf: IBM Spectrum LSF jobs, from
 *
 *	bjobs -o "jobid jobindex user stat exec_host run_time runtimelimit
 *	    pend_reason job_name" -json JOBID
 *
 * bjobs -o with -json (LSF 10.1.0.2 and later; bjobs(1) "-json" and "-o")
 * prints {"COMMAND":"bjobs","JOBS":N,"RECORDS":[{"JOBID":"123",...}]} with
 * the field names upper-cased and every value a string.  Older versions
 * have only the text form with -noheader and delimiter='|', which this
 * parser also reads, fields in the same order.  STAT is PEND, PSUSP, RUN,
 * USUSP, SSUSP, DONE, EXIT, UNKWN, WAIT or ZOMBI.  EXEC_HOST is a list of
 * hosts joined by ':', one per slot ("n1:n1:n2") or compressed
 * ("4*n1:4*n2").  RUN_TIME reads "16038 second(s)" or, as sites print it,
 * "00:00:01"; RUNTIMELIMIT is in minutes ("1440.0") or "00:10:00"
 * (lsf_time).  OpenLava and other LSF forks have neither -o nor -json:
 * when bjobs refuses them we read `bjobs -w JOBID` (lsf_parse_wide).  An array job "123" has one record per element
 * (JOBINDEX); "123[4]" is one element.  An unknown job gives "Job <123> is
 * not found", on stderr or as a record's "ERROR".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "jobvars.h"
#include "sched.h"

#define LSF_FORMAT	"jobid jobindex user stat exec_host run_time " \
			"runtimelimit pend_reason job_name"

enum {
	LSF_JOBID,
	LSF_JOBINDEX,
	LSF_USER,
	LSF_STAT,
	LSF_EXEC_HOST,
	LSF_RUN_TIME,
	LSF_RUNTIMELIMIT,
	LSF_PEND_REASON,
	LSF_JOB_NAME,
	LSF_NFIELDS
};

static const char *lsf_names[LSF_NFIELDS] = {
	"JOBID", "JOBINDEX", "USER", "STAT", "EXEC_HOST", "RUN_TIME",
	"RUNTIMELIMIT", "PEND_REASON", "JOB_NAME"
};

static enum job_state
lsf_state(const char *s)
{
	if (s == NULL)
		return JOB_UNKNOWN;
	if (strcmp(s, "PEND") == 0 || strcmp(s, "PSUSP") == 0 ||
	    strcmp(s, "WAIT") == 0)
		return JOB_PENDING;
	if (strcmp(s, "RUN") == 0 || strcmp(s, "UNKWN") == 0)
		return JOB_RUNNING;
	if (strcmp(s, "USUSP") == 0 || strcmp(s, "SSUSP") == 0)
		return JOB_SUSPENDED;
	if (strcmp(s, "DONE") == 0)
		return JOB_COMPLETED;
	if (strcmp(s, "EXIT") == 0 || strcmp(s, "ZOMBI") == 0)
		return JOB_FAILED;
	return JOB_UNKNOWN;
}

static int
lsf_active(enum job_state st)
{
	return st == JOB_RUNNING || st == JOB_SUSPENDED;
}

/* A value, or NULL when LSF wrote it empty or as "-". */
static const char *
lsf_val(const char *const *f, int i)
{
	if (f[i] == NULL || f[i][0] == '\0' || strcmp(f[i], "-") == 0)
		return NULL;
	return f[i];
}

/* Add the hosts of an EXEC_HOST value with their slot counts. */
static int
lsf_exec_host(struct job *job, const char *eh, char *err, size_t errsz)
{
	const char	*p = eh, *end, *star, *h;
	char		 host[256];
	long		 slots;
	size_t		 hl;
	int		 r;

	while (*p != '\0') {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		slots = 1;
		h = p;
		if ((star = memchr(p, '*', (size_t)(end - p))) != NULL) {
			slots = strtol(p, NULL, 10);
			h = star + 1;
		}
		hl = (size_t)(end - h);
		if (hl == 0 || hl >= sizeof(host) || slots < 1) {
			snprintf(err, errsz, "bad EXEC_HOST \"%.64s\"", eh);
			return SCHED_EPARSE;
		}
		memcpy(host, h, hl);
		host[hl] = '\0';
		if ((r = sched_job_add_host(job, host, slots, err, errsz)) !=
		    SCHED_OK)
			return r;
		p = *end == ':' ? end + 1 : end;
	}
	return SCHED_OK;
}

/* Is this record the job, or one element of it, asked for? */
static int
lsf_match(const char *const *f, const char *jobid)
{
	size_t		 n = strcspn(jobid, "[");
	const char	*idx;

	if (f[LSF_JOBID] == NULL || strlen(f[LSF_JOBID]) != n ||
	    strncmp(f[LSF_JOBID], jobid, n) != 0)
		return 0;
	if (jobid[n] != '[' || (idx = lsf_val(f, LSF_JOBINDEX)) == NULL)
		return 1;
	return strtol(idx, NULL, 10) == strtol(jobid + n + 1, NULL, 10);
}

/*
 * A time as bjobs prints it: "H:M:S" or "H:M" (LSF's -W form), "N
 * second(s)", "N min", or a bare number of unit seconds (60 for
 * RUNTIMELIMIT's minutes, 1 for RUN_TIME).  JOB_TIME_UNKNOWN otherwise.
 */
static long
lsf_time(const char *v, double unit)
{
	char		*end;
	double		 d;
	long		 h, m, sec = 0;

	if (strchr(v, ':') != NULL) {
		h = strtol(v, &end, 10);
		if (end == v || *end != ':' || h < 0 || h > 100000000)
			return JOB_TIME_UNKNOWN;
		v = end + 1;
		m = strtol(v, &end, 10);
		if (end == v || m < 0 || m > 59)
			return JOB_TIME_UNKNOWN;
		if (*end == ':') {
			v = end + 1;
			sec = strtol(v, &end, 10);
			if (end == v || sec < 0 || sec > 59)
				return JOB_TIME_UNKNOWN;
		}
		if (*end != '\0')
			return JOB_TIME_UNKNOWN;
		return h * 3600 + m * 60 + sec;
	}
	d = strtod(v, &end);
	if (end == v || d < 0)
		return JOB_TIME_UNKNOWN;
	while (*end == ' ')
		end++;
	if (strncmp(end, "second", 6) == 0)
		unit = 1;
	else if (strncmp(end, "min", 3) == 0)
		unit = 60;
	else if (*end != '\0')
		return JOB_TIME_UNKNOWN;
	return sched_secs(d * unit);
}

/* Fold one record into the job. */
static int
lsf_add(struct job *job, const char *const *f, int first, char *err,
    size_t errsz)
{
	enum job_state	 st = lsf_state(f[LSF_STAT]);
	const char	*v;
	long		 t;
	int		 r;

	if ((r = sched_check_recid(job, f[LSF_JOBID], VJ_LSF, err,
	    errsz)) != SCHED_OK)
		return r;
	if (first) {
		sched_copy_text(job->name, sizeof(job->name),
		    f[LSF_JOB_NAME]);
		if ((r = sched_set_user(job, f[LSF_USER], err, errsz)) !=
		    SCHED_OK)
			return r;
		if ((v = lsf_val(f, LSF_RUNTIMELIMIT)) != NULL)
			job->time_limit = lsf_time(v, 60.0);
	}
	if (first || (lsf_active(st) && !lsf_active(job->state))) {
		job->state = st;
		sched_copy_text(job->state_name, sizeof(job->state_name),
		    f[LSF_STAT]);
		v = lsf_val(f, LSF_PEND_REASON);
		sched_copy_text(job->reason, sizeof(job->reason),
		    st == JOB_PENDING && v != NULL ? v : "");
		/* LSF ends its reasons with ';'. */
		if ((t = (long)strlen(job->reason)) > 0 &&
		    job->reason[t - 1] == ';')
			job->reason[t - 1] = '\0';
	}
	if (!lsf_active(st))
		return SCHED_OK;
	if ((v = lsf_val(f, LSF_RUN_TIME)) != NULL &&
	    (t = lsf_time(v, 1.0)) > job->elapsed)
		job->elapsed = t;
	if ((v = lsf_val(f, LSF_EXEC_HOST)) == NULL)
		return SCHED_OK;
	return lsf_exec_host(job, v, err, errsz);
}

/* The JSON form. */
static int
lsf_parse_json(const char *text, const char *jobid, struct job *job,
    int *matched, int *notfound, char *err, size_t errsz)
{
	struct sched_json	*doc, *recs, *rec;
	const char		*f[LSF_NFIELDS], *e;
	int			 i, r = SCHED_OK;

	if ((doc = sched_json_parse(text)) == NULL) {
		snprintf(err, errsz, "bjobs: output is not JSON");
		return SCHED_EPARSE;
	}
	if ((recs = sched_json_get(doc, "RECORDS")) == NULL ||
	    recs->type != SJ_ARRAY) {
		sched_json_free(doc);
		snprintf(err, errsz, "bjobs: no RECORDS in its output");
		return SCHED_EPARSE;
	}
	for (rec = recs->child; rec != NULL; rec = rec->next) {
		if ((e = sched_json_str(rec, "ERROR")) != NULL) {
			if (strstr(e, "not found") != NULL)
				(*notfound)++;
			continue;
		}
		for (i = 0; i < LSF_NFIELDS; i++)
			f[i] = sched_json_str(rec, lsf_names[i]);
		if (!lsf_match(f, jobid))
			continue;
		if ((r = lsf_add(job, f, *matched == 0, err, errsz)) !=
		    SCHED_OK)
			break;
		(*matched)++;
	}
	sched_json_free(doc);
	return r;
}

/* The -noheader text form, fields separated by '|'. */
static int
lsf_parse_text(const char *text, const char *jobid, struct job *job,
    int *matched, int *notfound, char *err, size_t errsz)
{
	const char	*f[LSF_NFIELDS];
	char		*copy, *line, *next, *p, *bar;
	int		 i, r = SCHED_OK;

	if ((copy = strdup(text)) == NULL)
		return SCHED_ENOMEM;
	for (line = copy; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strstr(line, "is not found") != NULL) {
			(*notfound)++;
			continue;
		}
		p = line;
		for (i = 0; i < LSF_NFIELDS; i++) {
			f[i] = p;
			/* The job name comes last and may hold '|'. */
			if (i == LSF_NFIELDS - 1 ||
			    (bar = strchr(p, '|')) == NULL)
				break;
			*bar = '\0';
			p = bar + 1;
		}
		if (i != LSF_NFIELDS - 1 || !lsf_match(f, jobid))
			continue;
		if ((r = lsf_add(job, f, *matched == 0, err, errsz)) !=
		    SCHED_OK)
			break;
		(*matched)++;
	}
	free(copy);
	return r;
}

/*
 * The `bjobs -w` table of OpenLava-style sites:
 *
 *	JOBID USER STAT QUEUE FROM_HOST EXEC_HOST JOB_NAME SUBMIT_TIME
 *	123   bob  RUN  normal login1   4*n1:4*n2 my job   Nov 25 11:00
 *
 * columns separated by blanks; EXEC_HOST is missing while the job waits;
 * JOB_NAME (which may hold blanks) runs up to the three words of
 * SUBMIT_TIME; an array element's index is only in its name ("a[4]").
 */
#define LSF_WIDE_MAX	64
static int
lsf_parse_wide(const char *text, const char *jobid, struct job *job,
    int *matched, int *notfound, char *err, size_t errsz)
{
	const char	*f[LSF_NFIELDS], *w[LSF_WIDE_MAX];
	char		*copy, *line, *next, *p, name[256];
	char		 idx[16];
	size_t		 nw, i, k, nl;
	int		 r = SCHED_OK, header = 0;

	if ((copy = strdup(text)) == NULL)
		return SCHED_ENOMEM;
	for (line = copy; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strstr(line, "is not found") != NULL) {
			(*notfound)++;
			continue;
		}
		for (nw = 0, p = line; nw < LSF_WIDE_MAX; ) {
			while (*p == ' ' || *p == '\t')
				*p++ = '\0';
			if (*p == '\0')
				break;
			w[nw++] = p;
			while (*p != '\0' && *p != ' ' && *p != '\t')
				p++;
		}
		if (nw > 0 && strcmp(w[0], "JOBID") == 0) {
			header = 1;
			continue;
		}
		if (!header || nw < 8)
			continue;
		memset(f, 0, sizeof(f));
		f[LSF_JOBID] = w[0];
		f[LSF_USER] = w[1];
		f[LSF_STAT] = w[2];
		k = 5;
		if (lsf_active(lsf_state(w[2])) ||
		    strcmp(w[2], "DONE") == 0 || strcmp(w[2], "EXIT") == 0)
			f[LSF_EXEC_HOST] = nw >= 10 ? w[k++] : NULL;
		for (name[0] = '\0', i = k; i + 3 < nw; i++) {
			nl = strlen(name);
			snprintf(name + nl, sizeof(name) - nl, "%s%s",
			    i > k ? " " : "", w[i]);
		}
		f[LSF_JOB_NAME] = name;
		/* "name[4]": the element's index. */
		idx[0] = '\0';
		if ((nl = strlen(name)) > 2 && name[nl - 1] == ']' &&
		    (p = strrchr(name, '[')) != NULL &&
		    strspn(p + 1, "0123456789") == nl - 2 -
		    (size_t)(p - name) && nl - 2 - (size_t)(p - name) <
		    sizeof(idx)) {
			memcpy(idx, p + 1, nl - 2 - (size_t)(p - name));
			idx[nl - 2 - (size_t)(p - name)] = '\0';
			f[LSF_JOBINDEX] = idx;
		}
		if (!lsf_match(f, jobid))
			continue;
		if ((r = lsf_add(job, f, *matched == 0, err, errsz)) !=
		    SCHED_OK)
			break;
		(*matched)++;
	}
	free(copy);
	return r;
}

/* Parse bjobs output (JSON or delimited text) for jobid into job. */
static int
lsf_parse(const char *text, const char *jobid, struct job *job, char *err,
    size_t errsz)
{
	const char	*p = text;
	int		 r, matched = 0, notfound = 0;

	sched_copy(job->id, sizeof(job->id), jobid);
	job->sched = "lsf";
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	if (*p == '{')
		r = lsf_parse_json(p, jobid, job, &matched, &notfound, err,
		    errsz);
	else if (strncmp(p, "JOBID", 5) == 0)
		r = lsf_parse_wide(p, jobid, job, &matched, &notfound, err,
		    errsz);
	else
		r = lsf_parse_text(p, jobid, job, &matched, &notfound, err,
		    errsz);
	if (r != SCHED_OK)
		return r;
	if (!matched) {
		snprintf(err, errsz, "job %s: no such job", jobid);
		return SCHED_ENOJOB;
	}
	return sched_job_finish(job, err, errsz);
}

static int
lsf_resolve(const char *jobid, struct job *job, char *err, size_t errsz)
{
	const char	*argv[6];
	char		*out, errtxt[512];
	int		 r, status;

	if (sched_argv(sched_lsf.query_argv, argv, sizeof(argv) /
	    sizeof(argv[0]), jobid, NULL, NULL) != 0) {
		snprintf(err, errsz, "bjobs: no query for a job");
		return SCHED_ECMD;
	}
	sched_copy(job->id, sizeof(job->id), jobid);
	if ((r = sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    errsz)) != SCHED_OK)
		return r;
	if (status != 0 && strstr(out, "RECORDS") == NULL &&
	    !sched_nojob(&sched_lsf, errtxt)) {
		/* No -o/-json here (OpenLava and kin): the wide table. */
		free(out);
		argv[1] = "-w";
		argv[2] = jobid;
		argv[3] = NULL;
		if ((r = sched_run(argv, &out, errtxt, sizeof(errtxt),
		    &status, err, errsz)) != SCHED_OK)
			return r;
	}
	if (status != 0 && strstr(out, "RECORDS") == NULL &&
	    strncmp(out, "JOBID", 5) != 0) {
		free(out);
		return sched_query_failed(&sched_lsf, jobid, errtxt, err,
		    errsz);
	}
	r = lsf_parse(out, jobid, job, err, errsz);
	free(out);
	return r;
}

static const struct jobvar lsf_jobvars[] = { JOBVARS_LSF, JOBVARS_END };

const struct sched sched_lsf = {
	.name = "lsf",
	.command = "bjobs",
	.idkind = VJ_LSF,
	.jobvars = lsf_jobvars,
	.env = { .how = SCHED_ENV_LSF,
	    .nodes = { "LSB_MCPU_HOSTS", "LSB_HOSTS" } },
	/* bjobs lists the caller's own jobs; -w works on OpenLava too. */
	.mine_argv = (const char *const []){ "bjobs", "-r", "-w", NULL },
	/* lsf_resolve falls back to `bjobs -w JOBID` where -o/-json are
	 * missing (OpenLava and kin). */
	.query_argv = (const char *const []){ "bjobs", "-o", LSF_FORMAT,
	    "-json", "%j", NULL },
	.query_what = "bjobs",
	.nojob_words = (const char *const []){ "not found", NULL },
	.resolve = lsf_resolve,
	.parse = lsf_parse,
};
