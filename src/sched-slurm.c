/*
 * sched-slurm: Slurm jobs, from `scontrol show job -o JOBID`.
 *
 * The one-line form prints one line per job record as space-separated
 * Key=Value fields (scontrol(1), "show job"; the record layout is
 * slurm_sprint_job_info() in src/api/job_info.c).  A job array gives one
 * line per task that has started plus one for the tasks still pending
 * ("ArrayJobId=123 ArrayTaskId=5-10"); a heterogeneous job gives one line
 * per component ("JobId=124 HetJobId=123 HetJobOffset=1").  "123" means
 * every line of the job and the union of their nodes, "123_4" one array
 * task, "123+1" one het component.  A job that is not (or no longer) known
 * makes scontrol exit 1 with "slurm_load_jobs error: Invalid job id
 * specified", or "Job 123_4 not found" for a task or component.
 *
 * Values may contain spaces (JobName, Command): a token that does not look
 * like "Key=" continues the previous value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "sched.h"

#define SLURM_MAXFIELDS	256

/* One parsed line: its fields in order. */
struct slurm_rec {
	char	*key[SLURM_MAXFIELDS];
	char	*val[SLURM_MAXFIELDS];
	int	 n;
};

/* What a job id asks for. */
struct slurm_want {
	char	 base[32];
	long	 task;		/* array task, or -1 */
	long	 offset;	/* het component, or -1 */
};

/* Does a token start a new field ("Key=...", "AllocNode:Sid=...")? */
static int
slurm_is_key(const char *t)
{
	if (!((*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z')))
		return 0;
	for (t++; *t != '\0' && *t != ' ' && *t != '='; t++) {
		if (!((*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z') ||
		    (*t >= '0' && *t <= '9') || *t == '_' || *t == ':' ||
		    *t == '/'))
			return 0;
	}
	return *t == '=';
}

/* Split a line (modified in place) into its fields. */
static void
slurm_split(char *line, struct slurm_rec *rec)
{
	char	*p = line, *tok, *eq, *vend = NULL;

	rec->n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p == '\0')
			break;
		tok = p;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (slurm_is_key(tok) && rec->n < SLURM_MAXFIELDS) {
			if (vend != NULL)
				*vend = '\0';
			eq = strchr(tok, '=');
			*eq = '\0';
			rec->key[rec->n] = tok;
			rec->val[rec->n] = eq + 1;
			rec->n++;
		}
		vend = p;
	}
	if (vend != NULL)
		*vend = '\0';
}

static const char *
slurm_get(const struct slurm_rec *rec, const char *key)
{
	int	i;

	for (i = 0; i < rec->n; i++)
		if (strcmp(rec->key[i], key) == 0)
			return rec->val[i];
	return NULL;
}

/* Is key's value exactly s? */
static int
slurm_is(const struct slurm_rec *rec, const char *key, const char *s)
{
	const char	*v = slurm_get(rec, key);

	return v != NULL && strcmp(v, s) == 0;
}

/* Is task n in an ArrayTaskId spec ("4", "2-10", "1-9:2,12", "1-5%2")? */
static int
slurm_task_in(const char *spec, long n)
{
	const char	*p = spec;
	char		*end;
	long		 lo, hi, step;

	while (*p != '\0' && *p != '%') {
		lo = strtol(p, &end, 10);
		if (end == p)
			return 0;
		hi = lo;
		step = 1;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		if (*p == ':') {
			step = strtol(p + 1, &end, 10);
			p = end;
		}
		if (step < 1)
			step = 1;
		if (n >= lo && n <= hi && (n - lo) % step == 0)
			return 1;
		if (*p == ',')
			p++;
		else if (*p != '\0' && *p != '%')
			return 0;
	}
	return 0;
}

/* Split "123", "123_4" or "123+1". */
static void
slurm_want(const char *jobid, struct slurm_want *w)
{
	size_t	n = strspn(jobid, "0123456789");

	if (n >= sizeof(w->base))
		n = sizeof(w->base) - 1;
	memcpy(w->base, jobid, n);
	w->base[n] = '\0';
	w->task = w->offset = -1;
	if (jobid[n] == '_')
		w->task = strtol(jobid + n + 1, NULL, 10);
	else if (jobid[n] == '+')
		w->offset = strtol(jobid + n + 1, NULL, 10);
}

/* Is this record part of what was asked for? */
static int
slurm_match(const struct slurm_rec *rec, const struct slurm_want *w)
{
	const char	*t;

	if (w->task >= 0) {
		if (!slurm_is(rec, "ArrayJobId", w->base))
			return 0;
		t = slurm_get(rec, "ArrayTaskId");
		return t != NULL && slurm_task_in(t, w->task);
	}
	if (w->offset >= 0) {
		t = slurm_get(rec, "HetJobOffset");
		return slurm_is(rec, "HetJobId", w->base) && t != NULL &&
		    strtol(t, NULL, 10) == w->offset;
	}
	return slurm_is(rec, "JobId", w->base) ||
	    slurm_is(rec, "ArrayJobId", w->base) ||
	    slurm_is(rec, "HetJobId", w->base);
}

/* JobState words (squeue(1), JOB STATE CODES). */
static enum job_state
slurm_state(const char *s)
{
	static const struct {
		const char	*word;
		enum job_state	 st;
	} map[] = {
		{ "PENDING", JOB_PENDING },
		{ "REQUEUED", JOB_PENDING },
		{ "REQUEUE_HOLD", JOB_PENDING },
		{ "REQUEUE_FED", JOB_PENDING },
		{ "RESV_DEL_HOLD", JOB_PENDING },
		{ "CONFIGURING", JOB_RUNNING },
		{ "RUNNING", JOB_RUNNING },
		{ "RESIZING", JOB_RUNNING },
		{ "SIGNALING", JOB_RUNNING },
		{ "STAGE_OUT", JOB_COMPLETING },
		{ "SUSPENDED", JOB_SUSPENDED },
		{ "STOPPED", JOB_SUSPENDED },
		{ "COMPLETING", JOB_COMPLETING },
		{ "COMPLETED", JOB_COMPLETED },
		{ "CANCELLED", JOB_CANCELLED },
		{ "TIMEOUT", JOB_TIMEOUT },
		{ "DEADLINE", JOB_TIMEOUT },
		{ "FAILED", JOB_FAILED },
		{ "BOOT_FAIL", JOB_FAILED },
		{ "NODE_FAIL", JOB_FAILED },
		{ "OUT_OF_MEMORY", JOB_FAILED },
		{ "PREEMPTED", JOB_FAILED },
		{ "REVOKED", JOB_CANCELLED },
		{ "SPECIAL_EXIT", JOB_FAILED },
	};
	size_t	i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (s != NULL && strcmp(s, map[i].word) == 0)
			return map[i].st;
	return JOB_UNKNOWN;
}

/* Which of two states describes a job with both kinds of records. */
static int
slurm_rank(enum job_state st)
{
	switch (st) {
	case JOB_RUNNING:
		return 5;
	case JOB_SUSPENDED:
		return 4;
	case JOB_COMPLETING:
		return 3;
	case JOB_PENDING:
		return 2;
	case JOB_UNKNOWN:
		return 0;
	default:
		return 1;
	}
}

/* UserId=alice(1000) */
static void
slurm_user(const char *v, struct job *job)
{
	const char	*lp;
	char		*end;
	long		 uid;
	size_t		 n;

	if (v == NULL)
		return;
	if ((lp = strchr(v, '(')) == NULL) {
		sched_copy(job->user, sizeof(job->user), v);
		return;
	}
	n = (size_t)(lp - v);
	if (n >= sizeof(job->user))
		n = sizeof(job->user) - 1;
	memcpy(job->user, v, n);
	job->user[n] = '\0';
	uid = strtol(lp + 1, &end, 10);
	if (end != lp + 1 && *end == ')' && uid >= 0) {
		job->uid = (uid_t)uid;
		job->uid_known = 1;
	}
}

/* Fold one matching record into the job. */
static int
slurm_add(struct job *job, const struct slurm_rec *rec, int first,
    char *err, size_t errsz)
{
	const char	*v, *nodes;
	enum job_state	 st;
	long		 t;
	int		 r;

	st = slurm_state(slurm_get(rec, "JobState"));
	if (first) {
		sched_copy(job->name, sizeof(job->name),
		    slurm_get(rec, "JobName"));
		slurm_user(slurm_get(rec, "UserId"), job);
		job->time_limit = sched_parse_duration(slurm_get(rec,
		    "TimeLimit"));
	}
	if (first || slurm_rank(st) > slurm_rank(job->state)) {
		job->state = st;
		sched_copy(job->state_name, sizeof(job->state_name),
		    slurm_get(rec, "JobState"));
		v = slurm_get(rec, "Reason");
		sched_copy(job->reason, sizeof(job->reason),
		    v != NULL && strcmp(v, "None") != 0 ? v : "");
	}
	if (st != JOB_RUNNING && st != JOB_SUSPENDED && st != JOB_COMPLETING)
		return SCHED_OK;
	nodes = slurm_get(rec, "NodeList");
	if (nodes != NULL && *nodes != '\0' && strcmp(nodes, "(null)") != 0 &&
	    (r = sched_job_add_nodes(job, nodes, err, errsz)) != SCHED_OK)
		return r;
	if ((v = slurm_get(rec, "NumTasks")) != NULL && *v >= '0' &&
	    *v <= '9') {
		t = strtol(v, NULL, 10);
		job->ntasks = (job->ntasks < 0 ? 0 : job->ntasks) + t;
	}
	t = sched_parse_duration(slurm_get(rec, "RunTime"));
	if (t >= 0 && t > job->elapsed)
		job->elapsed = t;
	return SCHED_OK;
}

/* Parse `scontrol show job -o` output for jobid into job. */
static int
slurm_parse(const char *text, const char *jobid, struct job *job, char *err,
    size_t errsz)
{
	struct slurm_rec	*rec;
	struct slurm_want	 w;
	char			*copy, *line, *next;
	int			 r = SCHED_OK, matched = 0;

	sched_copy(job->id, sizeof(job->id), jobid);
	job->sched = "slurm";
	slurm_want(jobid, &w);
	if ((copy = strdup(text)) == NULL ||
	    (rec = malloc(sizeof(*rec))) == NULL) {
		free(copy);
		snprintf(err, errsz, "out of memory reading Slurm's answer");
		return SCHED_ENOMEM;
	}
	for (line = copy; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		slurm_split(line, rec);
		if (slurm_get(rec, "JobId") == NULL || !slurm_match(rec, &w))
			continue;
		if ((r = slurm_add(job, rec, !matched, err, errsz)) !=
		    SCHED_OK)
			break;
		matched++;
	}
	free(rec);
	free(copy);
	if (r != SCHED_OK)
		return r;
	if (!matched) {
		job->state = JOB_UNKNOWN;
		snprintf(err, errsz, "job %s: no such job", jobid);
		return SCHED_ENOJOB;
	}
	return sched_job_finish(job, err, errsz);
}

static int
slurm_detect(void)
{
	if (getenv("SLURM_JOB_ID") != NULL || getenv("SLURM_JOBID") != NULL)
		return 2;
	return sched_in_path("scontrol") ? 1 : 0;
}

static int
slurm_resolve(const char *jobid, struct job *job, char *err, size_t errsz)
{
	struct slurm_want	 w;
	const char		*argv[6];
	char			*out, errtxt[512];
	int			 r, status;

	slurm_want(jobid, &w);
	argv[0] = "scontrol";
	argv[1] = "show";
	argv[2] = "job";
	argv[3] = "-o";
	argv[4] = w.offset >= 0 ? w.base : jobid;
	argv[5] = NULL;
	sched_copy(job->id, sizeof(job->id), jobid);
	if ((r = sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    errsz)) != SCHED_OK)
		return r;
	if (status != 0) {
		if (strstr(errtxt, "Invalid job id") != NULL ||
		    strstr(errtxt, "not found") != NULL ||
		    strstr(out, "not found") != NULL) {
			snprintf(err, errsz, "job %s: no such job", jobid);
			r = SCHED_ENOJOB;
		} else {
			snprintf(err, errsz, "scontrol show job %s: %s", jobid,
			    errtxt[0] != '\0' ? errtxt : "failed");
			r = SCHED_ECMD;
		}
		free(out);
		return r;
	}
	r = slurm_parse(out, jobid, job, err, errsz);
	free(out);
	return r;
}

const struct sched sched_slurm = {
	"slurm", "scontrol", VJ_SLURM, slurm_detect, slurm_resolve,
	slurm_parse
};
