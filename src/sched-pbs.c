/* SPDX-License-Identifier: ISC */
/*
 * sched-pbs: PBS Pro / OpenPBS and Torque jobs, from `qstat -f JOBID`.
 *
 * The full display (qstat(1B) of PBS Professional, "-f"; Torque's
 * qstat(1)) is one record per job: a "Job Id: 123.server" line, then
 * indented "attribute = value" lines; a long value goes on over lines that
 * start with a tab.  We use Job_Name, Job_Owner (user@host), euser,
 * job_state (Q queued, H held, W waiting, T transit, R running, E exiting,
 * S/U suspended, B array begun, C completed [Torque], F finished and X
 * finished subjob [PBS Pro]), exec_host, comment, Resource_List.walltime
 * and resources_used.walltime.
 *
 * exec_host lists the job's chunks joined by '+': PBS Pro writes
 * "n1/0*2+n2/0*2" (host/index*ncpus), Torque "n1/0-3+n2/0-3" or one
 * "n1/0+n1/1" entry per slot.  An array job ("123[].server") is asked for
 * with -t so that its subjobs ("123[1].server") come too; their nodes are
 * joined.  An unknown job makes qstat say "Unknown Job Id"; PBS Pro says
 * "Job has finished, use -x or -H" for a finished one when the server
 * keeps job history (job_history_enable), and we then read that record
 * with qstat -x -f; without history (the default, and Torque once the job
 * is purged) a finished job is "Unknown Job Id" too, which we say.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "jobvars.h"
#include "sched.h"
#include "textsafe.h"

/* The attributes of one record that we use. */
struct pbs_rec {
	char	*id;
	char	*name;
	char	*owner;
	char	*euser;
	char	*state;
	char	*exec_host;
	char	*comment;
	char	*walltime;
	char	*used;
	char	*ncpus;
	char	*mem;
	char	*queue;
};

static void
pbs_rec_free(struct pbs_rec *r)
{
	free(r->id);
	free(r->name);
	free(r->owner);
	free(r->euser);
	free(r->state);
	free(r->exec_host);
	free(r->comment);
	free(r->walltime);
	free(r->used);
	free(r->ncpus);
	free(r->mem);
	free(r->queue);
	memset(r, 0, sizeof(*r));
}

/* Where an attribute of interest is kept, or NULL. */
static char **
pbs_slot(struct pbs_rec *r, const char *key, size_t klen)
{
	static const struct {
		const char	*key;
		size_t		 off;
	} map[] = {
		{ "Job_Name", offsetof(struct pbs_rec, name) },
		{ "Job_Owner", offsetof(struct pbs_rec, owner) },
		{ "euser", offsetof(struct pbs_rec, euser) },
		{ "job_state", offsetof(struct pbs_rec, state) },
		{ "exec_host", offsetof(struct pbs_rec, exec_host) },
		{ "comment", offsetof(struct pbs_rec, comment) },
		{ "Resource_List.walltime", offsetof(struct pbs_rec,
		    walltime) },
		{ "resources_used.walltime", offsetof(struct pbs_rec, used) },
		{ "Resource_List.ncpus", offsetof(struct pbs_rec, ncpus) },
		{ "Resource_List.mem", offsetof(struct pbs_rec, mem) },
		{ "queue", offsetof(struct pbs_rec, queue) },
	};
	size_t	i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strlen(map[i].key) == klen &&
		    memcmp(map[i].key, key, klen) == 0)
			return (char **)(void *)((char *)r + map[i].off);
	}
	return NULL;
}

/* Append a continuation line to a value. */
static int
pbs_append(char **v, const char *s, size_t len)
{
	size_t	 old = *v != NULL ? strlen(*v) : 0;
	char	*nv;

	if ((nv = realloc(*v, old + len + 1)) == NULL)
		return -1;
	memcpy(nv + old, s, len);
	nv[old + len] = '\0';
	*v = nv;
	return 0;
}

static enum job_state
pbs_state(const char *s)
{
	if (s == NULL || s[0] == '\0' || s[1] != '\0')
		return JOB_UNKNOWN;
	switch (s[0]) {
	case 'Q':
	case 'H':
	case 'W':
	case 'T':
	case 'M':
		return JOB_PENDING;
	case 'R':
	case 'B':
		return JOB_RUNNING;
	case 'E':
		return JOB_COMPLETING;
	case 'S':
	case 'U':
		return JOB_SUSPENDED;
	case 'C':
	case 'F':
	case 'X':
		return JOB_COMPLETED;
	}
	return JOB_UNKNOWN;
}

/* Does a record id belong to what was asked for? */
static int
pbs_match(const char *recid, const char *want)
{
	size_t	wl = strcspn(want, "."), rl = strcspn(recid, ".");
	size_t	bl;

	/* "123[]" asks for the array and all its subjobs "123[N]". */
	if (wl >= 2 && want[wl - 2] == '[' && want[wl - 1] == ']') {
		bl = wl - 1;
		if (rl < bl || memcmp(recid, want, bl) != 0)
			return 0;
	} else if (rl != wl || memcmp(recid, want, wl) != 0)
		return 0;
	/* With a server part on both, it must agree. */
	if (want[wl] == '.' && recid[rl] == '.')
		return strcmp(want + wl, recid + rl) == 0;
	return 1;
}

/* Add the hosts of an exec_host value with their slot counts. */
static int
pbs_exec_host(struct job *job, const char *eh, char *err, size_t errsz)
{
	const char	*p = eh, *end, *slash, *q;
	char		 host[256], *e;
	long		 slots, a, b;
	size_t		 hl;
	int		 r;

	while (*p != '\0') {
		if ((end = strchr(p, '+')) == NULL)
			end = p + strlen(p);
		if ((slash = memchr(p, '/', (size_t)(end - p))) == NULL)
			slash = end;
		hl = (size_t)(slash - p);
		if (hl == 0 || hl >= sizeof(host)) {
			snprintf(err, errsz, "bad exec_host \"%.64s\"", eh);
			return SCHED_EPARSE;
		}
		memcpy(host, p, hl);
		host[hl] = '\0';
		slots = 1;
		if (slash < end) {
			/* "0*2" (PBS Pro) or "0-3,5" (Torque). */
			if ((q = memchr(slash, '*', (size_t)(end - slash))) !=
			    NULL)
				slots = strtol(q + 1, NULL, 10);
			else {
				slots = 0;
				for (q = slash + 1; q < end; q = e + 1) {
					a = b = strtol(q, &e, 10);
					if (*e == '-')
						b = strtol(e + 1, &e, 10);
					slots += b >= a ? b - a + 1 : 1;
					if (*e != ',')
						break;
				}
			}
			if (slots < 1)
				slots = 1;
		}
		if ((r = sched_job_add_host(job, host, slots, err, errsz)) !=
		    SCHED_OK)
			return r;
		p = *end == '+' ? end + 1 : end;
	}
	return SCHED_OK;
}

/* Fold one matching record into the job. */
static int
pbs_add(struct job *job, const struct pbs_rec *rec, int first, char *err,
    size_t errsz)
{
	enum job_state	 st = pbs_state(rec->state);
	const char	*u;
	char		 user[64];
	size_t		 n;
	long		 t;
	int		 r;

	if ((r = sched_check_recid(job, rec->id, VJ_PBS, err, errsz)) !=
	    SCHED_OK)
		return r;
	if (first) {
		sched_copy_text(job->name, sizeof(job->name), rec->name);
		u = rec->euser != NULL ? rec->euser : rec->owner;
		if (u != NULL) {
			/* Job_Owner is user@host. */
			n = strcspn(u, "@");
			if (n >= sizeof(user))
				n = sizeof(user) - 1;
			memcpy(user, u, n);
			user[n] = '\0';
			if ((r = sched_set_user(job, user, err, errsz)) !=
			    SCHED_OK)
				return r;
		}
		job->time_limit = sched_parse_duration(rec->walltime);
		/* The request (PBS sizes are bytes without a unit). */
		if (rec->ncpus != NULL && (n = strspn(rec->ncpus,
		    "0123456789")) > 0 && n <= 8 && rec->ncpus[n] == '\0')
			job->cpus = strtol(rec->ncpus, NULL, 10);
		job->mem = sched_parse_size(rec->mem, 1);
		if (rec->queue != NULL)
			sched_copy_text(job->partition,
			    sizeof(job->partition), rec->queue);
	}
	/* An array parent ("B") is running through its subjobs. */
	if (first || (st == JOB_RUNNING && job->state != JOB_RUNNING) ||
	    (job->state == JOB_UNKNOWN)) {
		job->state = st;
		sched_copy_text(job->state_name, sizeof(job->state_name),
		    rec->state);
		sched_copy_text(job->reason, sizeof(job->reason),
		    st == JOB_PENDING ? rec->comment : "");
	}
	if (!(st == JOB_RUNNING || st == JOB_SUSPENDED ||
	    st == JOB_COMPLETING) || rec->exec_host == NULL)
		return SCHED_OK;
	t = sched_parse_duration(rec->used);
	if (t > job->elapsed)
		job->elapsed = t;
	return pbs_exec_host(job, rec->exec_host, err, errsz);
}

/* Fold a finished record into the job if it is one asked for. */
static int
pbs_flush(struct job *job, struct pbs_rec *rec, const char *jobid,
    int *matched, char *err, size_t errsz)
{
	int	r = SCHED_OK;

	if (rec->id != NULL && pbs_match(rec->id, jobid)) {
		if ((r = pbs_add(job, rec, *matched == 0, err, errsz)) ==
		    SCHED_OK)
			(*matched)++;
	}
	pbs_rec_free(rec);
	return r;
}

/* Parse `qstat -f` output for jobid into job. */
static int
pbs_parse(const char *text, const char *jobid, struct job *job, char *err,
    size_t errsz)
{
	struct pbs_rec	 rec;
	const char	*line, *next, *eq, *k, *v, *end;
	char		**slot = NULL;
	size_t		 len;
	int		 r = SCHED_OK, matched = 0, nrec = 0;

	sched_copy(job->id, sizeof(job->id), jobid);
	job->sched = "pbs";
	memset(&rec, 0, sizeof(rec));
	for (line = text; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			len = (size_t)(next++ - line);
		else {
			len = strlen(line);
			next = line + len;
		}
		if (len > 0 && line[len - 1] == '\r')
			len--;
		end = line + len;
		if (len >= 7 && strncmp(line, "Job Id:", 7) == 0) {
			if ((r = pbs_flush(job, &rec, jobid, &matched, err,
			    errsz)) != SCHED_OK)
				break;
			slot = NULL;
			/*
			 * One job id that is not an array asks for one
			 * record: a second can only come from free text (a
			 * name or variable holding a newline).
			 */
			if (++nrec > 1 && strchr(jobid, '[') == NULL) {
				snprintf(err, errsz, "job %s: qstat gave more "
				    "than one record for it", jobid);
				r = SCHED_EPARSE;
				break;
			}
			for (k = line + 7; k < end && *k == ' '; k++)
				;
			if ((rec.id = strndup(k, (size_t)(end - k))) == NULL) {
				r = SCHED_ENOMEM;
				break;
			}
			continue;
		}
		if (rec.id == NULL || len == 0)
			continue;
		if (line[0] == '\t') {
			/* Continuation of the last attribute. */
			if (slot != NULL && pbs_append(slot, line + 1,
			    len - 1) == -1) {
				r = SCHED_ENOMEM;
				break;
			}
			continue;
		}
		slot = NULL;
		for (k = line; k < end && *k == ' '; k++)
			;
		for (eq = k; eq + 3 <= end && memcmp(eq, " = ", 3) != 0; eq++)
			;
		if (eq + 3 > end)
			continue;
		v = eq + 3;
		if ((slot = pbs_slot(&rec, k, (size_t)(eq - k))) == NULL)
			continue;
		/* Each attribute comes once: twice is a forged line. */
		if (*slot != NULL) {
			snprintf(err, errsz, "job %s: qstat gave %.*s twice",
			    jobid, (int)(eq - k), k);
			r = SCHED_EPARSE;
			break;
		}
		if ((*slot = strndup(v, (size_t)(end - v))) == NULL) {
			r = SCHED_ENOMEM;
			break;
		}
	}
	if (r == SCHED_OK)
		r = pbs_flush(job, &rec, jobid, &matched, err, errsz);
	pbs_rec_free(&rec);
	if (r != SCHED_OK) {
		if (r == SCHED_ENOMEM)
			snprintf(err, errsz, "out of memory");
		text_clean_inplace(err);
		return r;
	}
	if (!matched) {
		snprintf(err, errsz, "job %s: no such job", jobid);
		return SCHED_ENOJOB;
	}
	return sched_job_finish(job, err, errsz);
}

/* Run qstat -f [-x] [-t] jobid. */
static int
pbs_query(const char *jobid, int history, char **out, char *errtxt,
    size_t errtxtsz, int *status, char *err, size_t errsz)
{
	const char	*argv[6];
	int		 i = 0;
	size_t		 wl = strcspn(jobid, ".");

	argv[i++] = "qstat";
	if (history)
		argv[i++] = "-x";
	argv[i++] = "-f";
	if (wl >= 2 && jobid[wl - 1] == ']')
		argv[i++] = "-t";
	argv[i++] = jobid;
	argv[i] = NULL;
	return sched_run(argv, out, errtxt, errtxtsz, status, err, errsz);
}

/*
 * Does the server keep finished jobs (PBS Pro job_history_enable)?
 * Without it, qstat answers "Unknown Job Id" for a finished job exactly as
 * for one that never existed; Torque has no such attribute.
 */
static int
pbs_history_on(void)
{
	const char	*argv[] = { "qstat", "-B", "-f", NULL };
	char		*out, errtxt[256], err[256];
	int		 status, on;

	if (sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    sizeof(err)) != SCHED_OK)
		return 0;
	on = status == 0 && strstr(out, "job_history_enable = True") != NULL;
	free(out);
	return on;
}

static int
pbs_resolve(const char *jobid, struct job *job, char *err, size_t errsz)
{
	char		*out, errtxt[512];
	int		 r, status;

	sched_copy(job->id, sizeof(job->id), jobid);
	if ((r = pbs_query(jobid, 0, &out, errtxt, sizeof(errtxt), &status,
	    err, errsz)) != SCHED_OK)
		return r;
	if (status != 0 || out[0] == '\0') {
		free(out);
		if (strstr(errtxt, "has finished") != NULL) {
			/* History is on: read the finished record (F). */
			if (pbs_query(jobid, 1, &out, errtxt, sizeof(errtxt),
			    &status, err, errsz) == SCHED_OK) {
				if (status == 0 && out[0] != '\0') {
					r = pbs_parse(out, jobid, job, err,
					    errsz);
					free(out);
					return r;
				}
				free(out);
			}
			job->state = JOB_COMPLETED;
			sched_copy(job->state_name, sizeof(job->state_name),
			    "F");
			r = SCHED_OK;
		} else if (sched_nojob(&sched_pbs, errtxt) ||
		    errtxt[0] == '\0') {
			if (pbs_history_on())
				snprintf(err, errsz, "job %s: no such job",
				    jobid);
			else
				snprintf(err, errsz, "job %s: unknown or "
				    "finished (PBS keeps no history here)",
				    jobid);
			r = SCHED_ENOJOB;
		} else {
			snprintf(err, errsz, "%s %s: %s",
			    sched_pbs.query_what, jobid, errtxt);
			r = SCHED_ECMD;
		}
		return r;
	}
	r = pbs_parse(out, jobid, job, err, errsz);
	free(out);
	return r;
}

static const struct jobvar pbs_jobvars[] = { JOBVARS_PBS, JOBVARS_END };

const struct sched sched_pbs = {
	.name = "pbs",
	.command = "qstat",
	.idkind = VJ_PBS,
	.jobvars = pbs_jobvars,
	.env = { .how = SCHED_ENV_HOSTFILE, .nodes = { "PBS_NODEFILE" } },
	.mine_argv = (const char *const []){ "qstat", "-u", "%u", NULL },
	/* No query_argv: pbs_query builds `qstat [-x] -f [-t] JOBID` (-x
	 * a finished job's record, -t an array's subjobs). */
	.query_what = "qstat -f",
	.nojob_words = (const char *const []){ "Unknown Job Id", NULL },
	.resolve = pbs_resolve,
	.parse = pbs_parse,
};
