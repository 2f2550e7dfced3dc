/* SPDX-License-Identifier: ISC */
/*
 * sched: the scheduler registry, the choice of scheduler for a job id, the
 * job record and what the sched-*.c files share: running a query command
 * safely, reading durations and a small JSON reader.
 *
 * Commands run with fork/execve and an argument vector, never through a
 * shell, with stdin from /dev/null and LC_ALL=C so that their output does
 * not depend on the user's locale.  Output is bounded (SCHED_OUT_MAX), and
 * the command is killed, with its process group, after the timeout.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fsutil.h"
#include "hostlist.h"
#include "jobvars.h"
#include "sched.h"
#include "spawn.h"
#include "textsafe.h"
#include "validate.h"

extern char	**environ;

/*
 * The registry, in auto-detection order.  To add a scheduler: write
 * src/sched-NAME.c with its parse() (and resolve() when one query run
 * through query_argv is not enough) and one designated
 * `const struct sched sched_NAME = { ... };` that holds all the rest
 * (sched.h: its command, id form, job variables, how its environment
 * names the nodes, its "my jobs" and resolve queries, its no-such-job
 * words); declare it in sched.h and list it here; give its job variables
 * a JOBVARS_NAME in src/jobvars.h (the probe reads them too) and its id
 * form a VJ_* in validate.h and validate.c.  Put fixture outputs under
 * tests/data/sched/NAME/ with a parser test in tests/unit/test-sched.c,
 * whose registry test fails for a descriptor with a part missing.  The
 * names in --help, usage and error texts come from here.
 */
static const struct sched *const sched_table[] = {
	&sched_slurm,
	&sched_pbs,
	&sched_lsf,
	&sched_oar,
	&sched_flux,
};

#define SCHED_NTABLE	(sizeof(sched_table) / sizeof(sched_table[0]))
#define SCHED_JSON_DEPTH 64

static int	sched_timeout_ms = SCHED_TIMEOUT_MS;
static const char *sched_conf_path = JOBTOP_SYSCONFDIR "/jobtop.conf";

static int	sched_err(char *, size_t, int, const char *, ...)
		    __attribute__((format(printf, 4, 5)));

/* Format an error message into err, if there is room for one. */
static int
sched_err(char *err, size_t errsz, int code, const char *fmt, ...)
{
	va_list	ap;

	if (err != NULL && errsz > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return code;
}

const struct sched *
sched_get(size_t i)
{
	return i < SCHED_NTABLE ? sched_table[i] : NULL;
}

const char *
sched_names(char *buf, size_t bufsz, const char *last)
{
	size_t	i, n = 0;

	if (bufsz == 0)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < SCHED_NTABLE && n < bufsz; i++)
		n += (size_t)snprintf(buf + n, bufsz - n, "%s%s", i == 0 ? "" :
		    i + 1 == SCHED_NTABLE ? last : ", ", sched_table[i]->name);
	return buf;
}

/* The error for an unknown --scheduler name, with the known ones. */
int
sched_unknown(const char *name, char *err, size_t errsz)
{
	char	names[256];

	return sched_err(err, errsz, SCHED_ENOSCHED, "unknown scheduler "
	    "\"%.64s\" (known: %s)", name, sched_names(names, sizeof(names),
	    ", "));
}

int
sched_detect(const struct sched *s)
{
	const struct jobvar	*v;

	for (v = s->jobvars; v != NULL && v->name != NULL; v++)
		if (getenv(v->name) != NULL)
			return 2;
	return sched_in_path(s->command) ? 1 : 0;
}

const struct sched *
sched_by_name(const char *name)
{
	size_t	i;

	for (i = 0; i < SCHED_NTABLE; i++) {
		if (strcmp(sched_table[i]->name, name) == 0)
			return sched_table[i];
	}
	return NULL;
}

int
sched_select(const char *name, const char *jobid, const struct sched **out,
    char *err, size_t errsz)
{
	const struct sched	*s, *best = NULL;
	char			 forms[64];
	size_t			 i, n;
	int			 score, bestscore = 0, formok = 0;

	*out = NULL;
	if (name != NULL) {
		if ((s = sched_by_name(name)) == NULL)
			return sched_unknown(name, err, errsz);
		if (!validate_jobid(jobid, s->idkind))
			return sched_err(err, errsz, SCHED_EINVAL,
			    "\"%.64s\" is not a %s job id", jobid, s->name);
		*out = s;
		return SCHED_OK;
	}
	forms[0] = '\0';
	for (i = 0; i < SCHED_NTABLE; i++) {
		s = sched_table[i];
		if (!validate_jobid(jobid, s->idkind))
			continue;
		formok = 1;
		n = strlen(forms);
		snprintf(forms + n, sizeof(forms) - n, "%s%s",
		    n > 0 ? ", " : "", s->command);
		if ((score = sched_detect(s)) > bestscore) {
			best = s;
			bestscore = score;
		}
	}
	if (!formok)
		return sched_err(err, errsz, SCHED_EINVAL,
		    "\"%.64s\" is not a job id", jobid);
	if (best == NULL)
		return sched_err(err, errsz, SCHED_ENOSCHED,
		    "no batch scheduler found for job %.64s (ids of that "
		    "form go to %s: not in PATH); use --scheduler or -w",
		    jobid, forms);
	*out = best;
	return SCHED_OK;
}

int
sched_slurm_step_split(const char *jobid, char *base, size_t basesz,
    char *step, size_t stepsz)
{
	const char	*dot = strrchr(jobid, '.');
	const char	*sfx;
	size_t		 n;

	if (dot == NULL)
		return 0;
	n = (size_t)(dot - jobid);
	sfx = dot + 1;
	if (n == 0 || n >= basesz || strlen(sfx) >= stepsz)
		return 0;
	if (strcmp(sfx, "batch") != 0 && strcmp(sfx, "extern") != 0 &&
	    strcmp(sfx, "interactive") != 0 && (*sfx == '\0' ||
	    strlen(sfx) > 10 || strspn(sfx, "0123456789") != strlen(sfx)))
		return 0;
	memcpy(base, jobid, n);
	base[n] = '\0';
	if (!validate_jobid(base, VJ_SLURM))
		return 0;
	memcpy(step, sfx, strlen(sfx) + 1);
	return 1;
}

/*
 * Is a Slurm step id ("123.0", "123.batch") meant for Slurm?  With
 * --scheduler slurm, yes; else when Slurm is detected at least as surely
 * as the scheduler that would take the whole id ("123.0" is also a PBS id
 * on server "0"), or when none would.
 */
static int
sched_step_is_slurm(const char *name, const char *jobid)
{
	const struct sched	*s;
	char			 e[8];
	int			 score;

	if (name != NULL)
		return strcmp(name, sched_slurm.name) == 0;
	if ((score = sched_detect(&sched_slurm)) == 0)
		return 0;
	if (sched_select(NULL, jobid, &s, e, sizeof(e)) != SCHED_OK)
		return 1;
	return s == &sched_slurm || sched_detect(s) <= score;
}

int
sched_resolve(const char *name, const char *jobid, struct job *job,
    char *err, size_t errsz)
{
	const struct sched	*s;
	char			 base[64], step[16];
	int			 r;

	if (sched_slurm_step_split(jobid, base, sizeof(base), step,
	    sizeof(step)) && sched_step_is_slurm(name, jobid)) {
		s = &sched_slurm;
		jobid = base;
	} else {
		step[0] = '\0';
		if ((r = sched_select(name, jobid, &s, err, errsz)) !=
		    SCHED_OK)
			return r;
	}
	job->sched = s->name;
	if ((r = sched_query(s, jobid, job, err, errsz)) != SCHED_OK)
		return r;
	sched_copy(job->step, sizeof(job->step), step);
	return sched_job_check(job, err, errsz);
}

void
sched_job_init(struct job *job)
{
	memset(job, 0, sizeof(*job));
	job->state = JOB_UNKNOWN;
	job->ntasks = -1;
	job->time_limit = JOB_TIME_UNKNOWN;
	job->elapsed = JOB_TIME_UNKNOWN;
}

void
sched_job_free(struct job *job)
{
	size_t	i;

	hostlist_free(job->nodes);
	free(job->nodelist);
	free(job->rank_nodes);
	free(job->slots);
	free(job->gpus);
	for (i = 0; i < job->npend; i++)
		free(job->pend[i].name);
	free(job->pend);
	sched_job_init(job);
}

int
sched_gpus(struct job *job, char *err, size_t errsz)
{
	const struct sched	*s;

	if (job->sched == NULL || (s = sched_by_name(job->sched)) == NULL ||
	    s->gpus == NULL) {
		snprintf(err, errsz, "%s does not say which GPUs a node was "
		    "given", job->sched != NULL ? job->sched : "no scheduler");
		return SCHED_ECMD;
	}
	if (!sched_job_active(job)) {
		snprintf(err, errsz, "job %s is not running", job->id);
		return SCHED_ECMD;
	}
	return s->gpus(job, err, errsz);
}

const char *
sched_state_name(enum job_state st)
{
	switch (st) {
	case JOB_UNKNOWN:
		return "UNKNOWN";
	case JOB_PENDING:
		return "PENDING";
	case JOB_RUNNING:
		return "RUNNING";
	case JOB_SUSPENDED:
		return "SUSPENDED";
	case JOB_COMPLETING:
		return "COMPLETING";
	case JOB_COMPLETED:
		return "COMPLETED";
	case JOB_FAILED:
		return "FAILED";
	case JOB_CANCELLED:
		return "CANCELLED";
	case JOB_TIMEOUT:
		return "TIMEOUT";
	}
	return "UNKNOWN";
}

int
sched_job_active(const struct job *job)
{
	return job->state == JOB_RUNNING || job->state == JOB_SUSPENDED ||
	    job->state == JOB_COMPLETING;
}

int
sched_job_check(const struct job *job, char *err, size_t errsz)
{
	const char	*word;

	word = job->state_name[0] != '\0' ? job->state_name :
	    sched_state_name(job->state);
	if (job->state == JOB_PENDING) {
		if (job->reason[0] != '\0')
			return sched_err(err, errsz, SCHED_EPENDING,
			    "job %s is pending (%s)", job->id, job->reason);
		return sched_err(err, errsz, SCHED_EPENDING,
		    "job %s is pending", job->id);
	}
	if (!sched_job_active(job) && job->state != JOB_UNKNOWN)
		return sched_err(err, errsz, SCHED_EFINISHED,
		    "job %s has finished (%s)", job->id, word);
	if (job->nodes == NULL || hostlist_count(job->nodes) == 0)
		return sched_err(err, errsz, SCHED_EPARSE,
		    "job %s: the scheduler gave no node list", job->id);
	return SCHED_OK;
}

void
sched_copy(char *dst, size_t dstsz, const char *src)
{
	snprintf(dst, dstsz, "%s", src != NULL ? src : "");
}

void
sched_copy_text(char *dst, size_t dstsz, const char *src)
{
	sched_copy(dst, dstsz, src);
	text_clean_inplace(dst);
}

int
sched_set_user(struct job *job, const char *user, char *err, size_t errsz)
{
	char	shown[40];

	if (user == NULL || *user == '\0')
		return SCHED_OK;
	if (!validate_username(user))
		return sched_err(err, errsz, SCHED_EPARSE, "job %s: the "
		    "scheduler gave an invalid user name \"%s\"", job->id,
		    text_clean(shown, sizeof(shown), user));
	sched_copy(job->user, sizeof(job->user), user);
	return SCHED_OK;
}

int
sched_check_recid(const struct job *job, const char *id,
    enum validate_job kind, char *err, size_t errsz)
{
	char	shown[40];

	if (id != NULL && validate_jobid(id, kind))
		return SCHED_OK;
	return sched_err(err, errsz, SCHED_EPARSE, "job %s: the scheduler "
	    "gave a record with an invalid job id \"%s\"", job->id,
	    text_clean(shown, sizeof(shown), id != NULL ? id : ""));
}

/* The job's hostlist, created on first use. */
static int
sched_job_hostlist(struct job *job, char *err, size_t errsz)
{
	if (job->nodes == NULL && (job->nodes = hostlist_new()) == NULL)
		return sched_err(err, errsz, SCHED_ENOMEM, "out of memory");
	return SCHED_OK;
}

int
sched_job_add_nodes(struct job *job, const char *expr, char *err,
    size_t errsz)
{
	struct hostlist	*hl;
	size_t		 i, n;
	char		 hlerr[256];
	int		 r;

	if ((r = sched_job_hostlist(job, err, errsz)) != SCHED_OK)
		return r;
	if ((r = hostlist_expand(expr, &hl, hlerr, sizeof(hlerr))) != HL_OK)
		return sched_err(err, errsz, r == HL_ENOMEM ? SCHED_ENOMEM :
		    SCHED_EINVAL, "bad host list \"%.64s\": %s", expr, hlerr);
	n = hostlist_count(hl);
	for (i = 0; i < n; i++) {
		if (!validate_hostname(hostlist_get(hl, i))) {
			r = sched_err(err, errsz, SCHED_EINVAL,
			    "invalid host name \"%.64s\"", hostlist_get(hl, i));
			hostlist_free(hl);
			return r;
		}
	}
	r = hostlist_merge(job->nodes, hl);
	hostlist_free(hl);
	if (r != HL_OK)
		return sched_err(err, errsz, r == HL_ENOMEM ? SCHED_ENOMEM :
		    SCHED_EINVAL, "%s", hostlist_strerror(r));
	return SCHED_OK;
}

int
sched_job_add_host(struct job *job, const char *name, long slots, char *err,
    size_t errsz)
{
	struct job_slot	*np;
	char		 hlerr[256];
	int		 r;

	if (!validate_hostname(name))
		return sched_err(err, errsz, SCHED_EINVAL,
		    "invalid host name \"%.64s\"", name);
	if ((r = sched_job_hostlist(job, err, errsz)) != SCHED_OK)
		return r;
	if ((r = hostlist_push_name(job->nodes, name, hlerr,
	    sizeof(hlerr))) != HL_OK)
		return sched_err(err, errsz, r == HL_ENOMEM ? SCHED_ENOMEM :
		    SCHED_EINVAL, "%s", hlerr);
	if (slots <= 0)
		return SCHED_OK;
	/* No node has this many CPUs: a garbled line, refused before the
	 * sums in sched_job_finish could overflow. */
	if (slots > SCHED_SLOTS_MAX)
		return sched_err(err, errsz, SCHED_EINVAL, "host \"%.64s\": "
		    "implausible slot count %ld", name, slots);
	np = realloc(job->pend, (job->npend + 1) * sizeof(*np));
	if (np == NULL)
		return sched_err(err, errsz, SCHED_ENOMEM, "out of memory");
	job->pend = np;
	if ((np[job->npend].name = strdup(name)) == NULL)
		return sched_err(err, errsz, SCHED_ENOMEM, "out of memory");
	np[job->npend].slots = slots;
	job->npend++;
	return SCHED_OK;
}

int
sched_job_finish(struct job *job, char *err, size_t errsz)
{
	size_t	i, n;
	long	k, total = 0;
	int	r;

	if ((r = sched_job_hostlist(job, err, errsz)) != SCHED_OK)
		return r;
	free(job->nodelist);
	job->nodelist = NULL;
	if (hostlist_fold(job->nodes, &job->nodelist) != HL_OK)
		return sched_err(err, errsz, SCHED_ENOMEM, "out of memory");
	free(job->slots);
	job->slots = NULL;
	if (job->npend > 0) {
		n = hostlist_count(job->nodes);
		if ((job->slots = calloc(n == 0 ? 1 : n,
		    sizeof(*job->slots))) == NULL)
			return sched_err(err, errsz, SCHED_ENOMEM,
			    "out of memory");
		for (i = 0; i < job->npend; i++) {
			k = hostlist_find(job->nodes, job->pend[i].name);
			if (k >= 0)
				job->slots[k] += job->pend[i].slots;
			total += job->pend[i].slots;
			free(job->pend[i].name);
		}
		free(job->pend);
		job->pend = NULL;
		job->npend = 0;
		if (job->ntasks < 0)
			job->ntasks = total;
	}
	return SCHED_OK;
}

long
sched_secs(double d)
{
	if (!(d >= 0.0 && d < 1e11))
		return JOB_TIME_UNKNOWN;
	return (long)d;
}

unsigned long long
sched_parse_size(const char *s, unsigned long long unit)
{
	const char	*units = "KMGTP";
	const char	*u;
	char		*end;
	double		 v;

	if (s == NULL || *s < '0' || *s > '9')
		return 0;
	v = strtod(s, &end);
	if (end == s || !(v >= 0))
		return 0;
	if (*end != '\0' && (u = strchr(units, *end & ~0x20)) != NULL) {
		unit = 1ULL << (10 * (u - units + 1));
		end++;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end != '\0' || v * (double)unit >= (double)(1ULL << 60))
		return 0;
	return (unsigned long long)(v * (double)unit);
}

long
sched_parse_duration(const char *s)
{
	long	f[3] = { 0, 0, 0 }, days = 0, v;
	int	n = 0;
	char	*end;

	if (s == NULL || *s == '\0')
		return JOB_TIME_UNKNOWN;
	if (strcmp(s, "UNLIMITED") == 0 || strcmp(s, "INFINITE") == 0)
		return JOB_TIME_UNLIMITED;
	if (strchr(s, '-') != NULL) {
		days = strtol(s, &end, 10);
		/* Bounded, so that the sums below cannot overflow. */
		if (end == s || *end != '-' || days < 0 || days > 1000000)
			return JOB_TIME_UNKNOWN;
		s = end + 1;
	}
	for (;;) {
		if (*s < '0' || *s > '9')
			return JOB_TIME_UNKNOWN;
		v = strtol(s, &end, 10);
		if (n == 3 || v < 0 || v > 100000000)
			return JOB_TIME_UNKNOWN;
		f[n++] = v;
		if (*end == '\0')
			break;
		if (*end != ':')
			return JOB_TIME_UNKNOWN;
		s = end + 1;
	}
	/* h:m:s, m:s, or plain minutes (Slurm's input form). */
	if (n == 3)
		return days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
	if (n == 2)
		return days * 86400 + f[0] * 60 + f[1];
	if (days > 0)
		return days * 86400 + f[0] * 3600;
	return f[0] * 60;
}

/* Is the group's member list or the user's primary group a match? */
static int
sched_in_group(uid_t uid, const char *group)
{
	struct passwd	*pw;
	struct group	*gr;
	gid_t		 groups[256], gid;
	char		 user[256], **m;
	int		 i, n;

	if (group == NULL || *group == '\0' || !validate_username(group))
		return 0;
	if ((pw = getpwuid(uid)) == NULL)
		return 0;
	sched_copy(user, sizeof(user), pw->pw_name);
	gid = pw->pw_gid;
	if ((gr = getgrnam(group)) == NULL)
		return 0;
	if (gr->gr_gid == gid)
		return 1;
	for (m = gr->gr_mem; m != NULL && *m != NULL; m++)
		if (strcmp(*m, user) == 0)
			return 1;
	if (uid == getuid()) {
		n = getgroups((int)(sizeof(groups) / sizeof(groups[0])),
		    groups);
		for (i = 0; i < n; i++)
			if (groups[i] == gr->gr_gid)
				return 1;
	}
	return 0;
}

int
sched_admin_group(const char *path, char *group, size_t groupsz)
{
	struct stat	 st;
	FILE		*f;
	char		 line[512], key[64], val[256];
	int		 fd, found = 0;

	group[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	/*
	 * Only root may name the admins: a file anyone else could have
	 * written (or replaced) would let a user make themselves admin.
	 */
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
	    (f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return 0;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, " %63s %255s", key, val) != 2 ||
		    key[0] == '#' || strcmp(key, "admin-group") != 0)
			continue;
		if (validate_username(val)) {
			sched_copy(group, groupsz, val);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

void
sched_set_conf(const char *path)
{
	sched_conf_path = path;
}

int
sched_may_watch(const struct job *job, uid_t uid, char *err, size_t errsz)
{
	struct passwd	*pw;
	char		 group[256];

	/* A hostlist or hostfile names no job: it is anyone's. */
	if (uid == 0 || job->id[0] == '\0')
		return 1;
	if (job->uid_known) {
		if (job->uid == uid)
			return 1;
	} else if (job->user[0] != '\0' && (pw = getpwuid(uid)) != NULL &&
	    strcmp(pw->pw_name, job->user) == 0)
		return 1;
	if (sched_admin_group(sched_conf_path, group, sizeof(group)) &&
	    sched_in_group(uid, group))
		return 1;
	/* A job whose owner the scheduler did not say: fail closed. */
	if (job->user[0] == '\0' && !job->uid_known)
		sched_err(err, errsz, 0, "job %s: the scheduler did not say "
		    "who owns it; only an admin can watch it", job->id);
	else if (job->user[0] == '\0')
		sched_err(err, errsz, 0, "job %s belongs to uid %ld; only its "
		    "owner or an admin can watch it", job->id,
		    (long)job->uid);
	else
		sched_err(err, errsz, 0, "job %s belongs to %s; only its "
		    "owner or an admin can watch it", job->id, job->user);
	return 0;
}

void
sched_set_timeout(int ms)
{
	sched_timeout_ms = ms > 0 ? ms : SCHED_TIMEOUT_MS;
}

int
sched_in_path(const char *cmd)
{
	char	buf[4096];

	return fs_which(cmd, buf, sizeof(buf)) == 0;
}
/* The environment for a command: ours with LC_ALL=C. */
static char **
sched_child_env(void)
{
	char	**env;
	size_t	  n, i, k;

	for (n = 0; environ != NULL && environ[n] != NULL; n++)
		;
	if ((env = calloc(n + 2, sizeof(*env))) == NULL)
		return NULL;
	k = 0;
	env[k++] = (char *)(uintptr_t)"LC_ALL=C";
	for (i = 0; i < n; i++) {
		if (strncmp(environ[i], "LC_ALL=", 7) != 0)
			env[k++] = environ[i];
	}
	env[k] = NULL;
	return env;
}

/* Kill a command and its process group, and reap it. */
static void
sched_kill(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
}

int
sched_run(const char *const *argv, char **out, char *errtxt,
    size_t errtxtsz, int *status, char *err, size_t errsz)
{
	char		 path[4096], *buf = NULL, *nb, junk[4096], **env;
	char		 why[512];
	size_t		 len = 0, cap = 0, elen = 0;
	int		 st, r = SCHED_OK, nfd;
	struct pollfd	 pfd[2];
	struct spawn	 sp;
	struct spawn_req rq;
	long long	 deadline;
	ssize_t		 n;
	pid_t		 pid;

	*out = NULL;
	*status = -1;
	if (errtxtsz > 0)
		errtxt[0] = '\0';
	if (fs_which(argv[0], path, sizeof(path)) != 0)
		return sched_err(err, errsz, SCHED_ECMD,
		    "%s: command not found", argv[0]);
	if ((env = sched_child_env()) == NULL)
		return sched_err(err, errsz, SCHED_ENOMEM, "out of memory");
	/* Its own group (sched_kill ends what it started too), stdin
	 * /dev/null, dies with the monitor. */
	memset(&rq, 0, sizeof(rq));
	rq.path = path;
	rq.argv = (char *const *)(uintptr_t)argv;
	rq.envp = env;
	rq.flags = SPAWN_OUT | SPAWN_ERR | SPAWN_PGRP;
	sp.out = sp.err = -1;
	if (spawn_start(&sp, &rq, why, sizeof(why)) != 0) {
		r = sched_err(err, errsz, SCHED_ECMD, "%s: could not run it "
		    "(%s)", argv[0], why);
		goto out;
	}
	pid = sp.pid;

	deadline = (long long)clock_mono_ms() + sched_timeout_ms;
	while (sp.out != -1 || sp.err != -1) {
		long long	left = deadline - (long long)clock_mono_ms();

		if (left <= 0) {
			sched_kill(pid);
			r = sched_err(err, errsz, SCHED_ECMD,
			    "%s: no answer after %d s", argv[0],
			    (sched_timeout_ms + 999) / 1000);
			goto out;
		}
		nfd = 0;
		if (sp.out != -1) {
			pfd[nfd].fd = sp.out;
			pfd[nfd++].events = POLLIN;
		}
		if (sp.err != -1) {
			pfd[nfd].fd = sp.err;
			pfd[nfd++].events = POLLIN;
		}
		if (poll(pfd, (nfds_t)nfd, (int)left) == -1) {
			if (errno == EINTR)
				continue;
			sched_kill(pid);
			r = sched_err(err, errsz, SCHED_ECMD, "poll: %s",
			    strerror(errno));
			goto out;
		}
		if (sp.out != -1 && pfd[0].revents != 0) {
			if (cap - len < 65536 + 1) {
				cap = cap == 0 ? 65536 * 2 : cap * 2;
				if ((nb = realloc(buf, cap)) == NULL) {
					sched_kill(pid);
					r = sched_err(err, errsz, SCHED_ENOMEM,
					    "out of memory");
					goto out;
				}
				buf = nb;
			}
			n = read(sp.out, buf + len, cap - len - 1);
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(sp.out);
				sp.out = -1;
			} else if ((len += (size_t)n) > SCHED_OUT_MAX) {
				sched_kill(pid);
				r = sched_err(err, errsz, SCHED_ECMD,
				    "%s: more than %d bytes of output",
				    argv[0], SCHED_OUT_MAX);
				goto out;
			}
		}
		if (sp.err != -1 && pfd[nfd - 1].fd == sp.err &&
		    pfd[nfd - 1].revents != 0) {
			n = read(sp.err, junk, sizeof(junk));
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(sp.err);
				sp.err = -1;
			} else if (errtxtsz > 1 && elen < errtxtsz - 1) {
				size_t	k = (size_t)n;

				if (k > errtxtsz - 1 - elen)
					k = errtxtsz - 1 - elen;
				memcpy(errtxt + elen, junk, k);
				elen += k;
				errtxt[elen] = '\0';
			}
		}
	}
	while (waitpid(pid, &st, 0) == -1) {
		if (errno != EINTR) {
			r = sched_err(err, errsz, SCHED_ECMD, "waitpid: %s",
			    strerror(errno));
			goto out;
		}
	}
	if (WIFEXITED(st))
		*status = WEXITSTATUS(st);
	if (*status == 127 && len == 0) {
		r = sched_err(err, errsz, SCHED_ECMD, "%s: could not run it",
		    argv[0]);
		goto out;
	}
	if (buf == NULL && (buf = malloc(1)) == NULL) {
		r = sched_err(err, errsz, SCHED_ENOMEM, "out of memory");
		goto out;
	}
	buf[len] = '\0';
	*out = buf;
	buf = NULL;
	/* Trim the command's trailing newline off its error text. */
	while (elen > 0 && (errtxt[elen - 1] == '\n' ||
	    errtxt[elen - 1] == '\r'))
		errtxt[--elen] = '\0';
	/* Errors reach the user as one line: keep the command's last one,
	 * where tools put the verdict ("fatal: ..."). */
	if (elen > 0) {
		char	*nl = strrchr(errtxt, '\n');

		if (nl != NULL)
			memmove(errtxt, nl + 1, strlen(nl + 1) + 1);
	}
	/* The command's error text is foreign: no control bytes in it. */
	text_clean_inplace(errtxt);
out:
	if (sp.out != -1)
		close(sp.out);
	if (sp.err != -1)
		close(sp.err);
	free(buf);
	free(env);
	return r;
}

/* JSON reader state: the text and how deep we are. */
struct sched_jp {
	const char	*p;
	int		 depth;
};

static struct sched_json *sched_json_value(struct sched_jp *);

static void
sched_json_ws(struct sched_jp *jp)
{
	while (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' ||
	    *jp->p == '\r')
		jp->p++;
}

/* Append a code point as UTF-8. */
static size_t
sched_json_utf8(char *o, unsigned long cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Parse a string literal (at '"') into a new decoded string. */
static char *
sched_json_string(struct sched_jp *jp)
{
	const char	*s = jp->p + 1, *q;
	char		*out, *o, hex[5];
	unsigned long	 cp, lo;

	for (q = s; *q != '"'; q++) {
		if (*q == '\0')
			return NULL;
		if (*q == '\\' && *++q == '\0')
			return NULL;
	}
	if ((out = malloc((size_t)(q - s) + 1)) == NULL)
		return NULL;
	for (o = out; *s != '"'; s++) {
		if ((unsigned char)*s < 0x20)
			goto bad;
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		switch (*++s) {
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case '"':
		case '\\':
		case '/':
			*o++ = *s;
			break;
		case 'u':
			if (strspn(s + 1, "0123456789abcdefABCDEF") < 4)
				goto bad;
			memcpy(hex, s + 1, 4);
			hex[4] = '\0';
			cp = strtoul(hex, NULL, 16);
			s += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && s[1] == '\\' &&
			    s[2] == 'u' &&
			    strspn(s + 3, "0123456789abcdefABCDEF") >= 4) {
				memcpy(hex, s + 3, 4);
				lo = strtoul(hex, NULL, 16);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					    (lo - 0xdc00);
					s += 6;
				}
			}
			if (cp == 0)
				goto bad;
			/* \uXXXX is 6 bytes of input, at most 4 of output. */
			o += sched_json_utf8(o, cp);
			break;
		default:
			goto bad;
		}
	}
	*o = '\0';
	jp->p = s + 1;
	return out;
bad:
	free(out);
	return NULL;
}

static struct sched_json *
sched_json_new(enum sched_json_type type)
{
	struct sched_json	*j;

	if ((j = calloc(1, sizeof(*j))) != NULL)
		j->type = type;
	return j;
}

/* Parse an array or object (at '[' or '{'). */
static struct sched_json *
sched_json_container(struct sched_jp *jp, int isobj)
{
	struct sched_json	*j, *v, **tail;
	char			*key;
	char			 close = isobj ? '}' : ']';

	if (++jp->depth > SCHED_JSON_DEPTH)
		return NULL;
	if ((j = sched_json_new(isobj ? SJ_OBJECT : SJ_ARRAY)) == NULL)
		return NULL;
	tail = &j->child;
	jp->p++;
	sched_json_ws(jp);
	if (*jp->p == close) {
		jp->p++;
		jp->depth--;
		return j;
	}
	for (;;) {
		key = NULL;
		sched_json_ws(jp);
		if (isobj) {
			if (*jp->p != '"' || (key = sched_json_string(jp)) ==
			    NULL)
				goto bad;
			sched_json_ws(jp);
			if (*jp->p++ != ':') {
				free(key);
				goto bad;
			}
		}
		if ((v = sched_json_value(jp)) == NULL) {
			free(key);
			goto bad;
		}
		v->key = key;
		*tail = v;
		tail = &v->next;
		sched_json_ws(jp);
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p == close) {
			jp->p++;
			break;
		}
		goto bad;
	}
	jp->depth--;
	return j;
bad:
	sched_json_free(j);
	return NULL;
}

/* Parse any value. */
static struct sched_json *
sched_json_value(struct sched_jp *jp)
{
	struct sched_json	*j;
	const char		*start;
	char			*end;

	sched_json_ws(jp);
	switch (*jp->p) {
	case '{':
		return sched_json_container(jp, 1);
	case '[':
		return sched_json_container(jp, 0);
	case '"':
		if ((j = sched_json_new(SJ_STRING)) == NULL)
			return NULL;
		if ((j->str = sched_json_string(jp)) == NULL) {
			free(j);
			return NULL;
		}
		return j;
	}
	if (strncmp(jp->p, "true", 4) == 0 || strncmp(jp->p, "false", 5) == 0) {
		if ((j = sched_json_new(SJ_BOOL)) == NULL)
			return NULL;
		j->num = *jp->p == 't';
		jp->p += *jp->p == 't' ? 4 : 5;
		return j;
	}
	if (strncmp(jp->p, "null", 4) == 0) {
		jp->p += 4;
		return sched_json_new(SJ_NULL);
	}
	if (*jp->p == '-' || (*jp->p >= '0' && *jp->p <= '9')) {
		start = jp->p;
		if ((j = sched_json_new(SJ_NUMBER)) == NULL)
			return NULL;
		j->num = strtod(start, &end);
		if (end == start || (j->str = strndup(start,
		    (size_t)(end - start))) == NULL) {
			free(j);
			return NULL;
		}
		jp->p = end;
		return j;
	}
	return NULL;
}

struct sched_json *
sched_json_parse(const char *text)
{
	struct sched_jp		 jp;
	struct sched_json	*j;

	jp.p = text;
	jp.depth = 0;
	if ((j = sched_json_value(&jp)) == NULL)
		return NULL;
	sched_json_ws(&jp);
	if (*jp.p != '\0') {
		sched_json_free(j);
		return NULL;
	}
	return j;
}

void
sched_json_free(struct sched_json *j)
{
	struct sched_json	*next;

	for (; j != NULL; j = next) {
		next = j->next;
		sched_json_free(j->child);
		free(j->key);
		free(j->str);
		free(j);
	}
}

struct sched_json *
sched_json_get(const struct sched_json *obj, const char *key)
{
	struct sched_json	*c;

	if (obj == NULL || obj->type != SJ_OBJECT)
		return NULL;
	for (c = obj->child; c != NULL; c = c->next)
		if (c->key != NULL && strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

const char *
sched_json_str(const struct sched_json *obj, const char *key)
{
	struct sched_json	*c;

	if ((c = sched_json_get(obj, key)) == NULL)
		return NULL;
	if (c->type == SJ_STRING || c->type == SJ_NUMBER)
		return c->str;
	return NULL;
}

/*
 * The caller's running jobs (no job named, none in the environment).
 * Each scheduler whose command is in PATH is asked for the ids of the
 * caller's jobs in the plainest form it has; every id is then resolved as
 * a named one would be, so the owner, state, nodes and name shown are the
 * same parser's as for `jobtop ID`, and only active jobs of the caller's
 * uid are kept.
 */
#define SCHED_MINE_MAX	64	/* jobs resolved, at most */

/* Is id already among ids[0..n)? */
static int
sched_mine_seen(char ids[][64], size_t n, const char *id)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return 1;
	return 0;
}

int
sched_mine_ids(const struct sched *s, const char *text, char ids[][64],
    size_t max)
{
	const char	*line, *next;
	char		 tok[64];
	size_t		 n = 0, len;

	for (line = text; *line != '\0' && n < max; line = next) {
		len = strcspn(line, "\n");
		next = line[len] == '\n' ? line + len + 1 : line + len;
		line += strspn(line, " \t");
		len = strcspn(line, " \t\n");
		if (len == 0 || len >= sizeof(tok))
			continue;
		memcpy(tok, line, len);
		tok[len] = '\0';
		/* qstat -u prints "1234.server" cut to its column width
		 * ("1234.pbs0*"): the number names the job as well. */
		if (s == &sched_pbs)
			tok[strcspn(tok, ".")] = '\0';
		if (!validate_jobid(tok, s->idkind) ||
		    sched_mine_seen(ids, n, tok))
			continue;
		memcpy(ids[n++], tok, strlen(tok) + 1);
	}
	return (int)n;
}

/* "[D-]HH:MM:SS" or "-" into buf. */
static void
sched_fmt_elapsed(long t, char *buf, size_t bufsz)
{
	if (t < 0) {
		snprintf(buf, bufsz, "-");
		return;
	}
	if (t >= 86400)
		snprintf(buf, bufsz, "%ld-%02ld:%02ld:%02ld", t / 86400,
		    t % 86400 / 3600, t % 3600 / 60, t % 60);
	else
		snprintf(buf, bufsz, "%02ld:%02ld:%02ld", t / 3600,
		    t % 3600 / 60, t % 60);
}

/* Append one line to the growing table (NULL on out of memory). */
static char *
sched_table_add(char *tab, size_t *len, const char *line)
{
	size_t	 n = strlen(line);
	char	*nt;

	if ((nt = realloc(tab, *len + n + 2)) == NULL) {
		free(tab);
		return NULL;
	}
	memcpy(nt + *len, line, n);
	nt[*len + n] = '\n';
	nt[*len + n + 1] = '\0';
	*len += n + 1;
	return nt;
}

/* Is uid (named user) the job's owner, by uid or, where the scheduler
 * gives only a name (LSF, PBS), by name? */
static int
sched_mine_owner(const struct job *job, uid_t uid, const char *user)
{
	if (job->uid_known)
		return job->uid == uid;
	return job->user[0] != '\0' && strcmp(job->user, user) == 0;
}

int
sched_mine(const char *only, uid_t uid, struct job *job, char **table,
    char *err, size_t errsz)
{
	static char		 ids[SCHED_MINE_MAX][64];
	const struct sched	*s;
	const char		*argv[10];
	struct passwd		*pw;
	struct job		*found;
	char			*out, errtxt[256], e[256], user[64], line[512];
	char			 el[32], looked[128], failed[256];
	char			 cmds[128];
	size_t			 i, nfound = 0, tlen = 0, k;
	int			 n, j, status, rr;

	*table = NULL;
	if (only != NULL && sched_by_name(only) == NULL)
		return sched_unknown(only, err, errsz);
	if ((pw = getpwuid(uid)) == NULL || !validate_username(pw->pw_name))
		return sched_err(err, errsz, SCHED_ENOENV,
		    "no job given, not inside one, and uid %lu has no user "
		    "name to look its jobs up by", (unsigned long)uid);
	sched_copy(user, sizeof(user), pw->pw_name);
	if ((found = calloc(SCHED_MINE_MAX, sizeof(*found))) == NULL)
		return sched_err(err, errsz, SCHED_ENOMEM, "out of memory");
	looked[0] = failed[0] = '\0';
	for (i = 0; (s = sched_get(i)) != NULL; i++) {
		if ((only != NULL && strcmp(only, s->name) != 0) ||
		    !sched_in_path(s->command))
			continue;
		/* A scheduler without its "my jobs" query (a descriptor
		 * left incomplete) is a failure the message names. */
		if (sched_argv(s->mine_argv, argv, sizeof(argv) /
		    sizeof(argv[0]), NULL, user, NULL) != 0) {
			k = strlen(failed);
			snprintf(failed + k, sizeof(failed) - k, "%s%s: no "
			    "query for a user's jobs", k > 0 ? ", " : "",
			    s->name);
			continue;
		}
		rr = sched_run(argv, &out, errtxt, sizeof(errtxt), &status, e,
		    sizeof(e));
		if (rr == SCHED_OK && status != 0)
			free(out);
		if (rr != SCHED_OK || status != 0) {
			k = strlen(failed);
			snprintf(failed + k, sizeof(failed) - k, "%s%s",
			    k > 0 ? ", " : "", argv[0]);
			continue;
		}
		k = strlen(looked);
		snprintf(looked + k, sizeof(looked) - k, "%s%s",
		    k > 0 ? ", " : "", s->name);
		n = sched_mine_ids(s, out, ids, SCHED_MINE_MAX - nfound);
		free(out);
		for (j = 0; j < n && nfound < SCHED_MINE_MAX; j++) {
			sched_job_init(&found[nfound]);
			found[nfound].sched = s->name;
			if (sched_query(s, ids[j], &found[nfound], e, sizeof(e)) !=
			    SCHED_OK || sched_job_check(&found[nfound], e,
			    sizeof(e)) != SCHED_OK || !sched_mine_owner(
			    &found[nfound], uid, user)) {
				sched_job_free(&found[nfound]);
				continue;
			}
			nfound++;
		}
	}
	if (nfound == 1) {
		*job = found[0];
		free(found);
		return SCHED_OK;
	}
	if (nfound == 0) {
		free(found);
		/* A scheduler answered: the commands of others that failed
		 * (OAR's oarstat installed on a Slurm cluster) are noise
		 * there. */
		if (failed[0] != '\0' && looked[0] == '\0')
			return sched_err(err, errsz, SCHED_ENOENV,
			    "no job given, not inside one, and no running job "
			    "of %s found (%s failed); give a job id, -w "
			    "HOSTLIST or --hostfile FILE", user, failed);
		if (looked[0] == '\0') {
			for (i = 0, k = 0; (s = sched_get(i)) != NULL &&
			    k < sizeof(cmds); i++)
				k += (size_t)snprintf(cmds + k, sizeof(cmds) -
				    k, "%s%s", i > 0 ? ", " : "", s->command);
			return sched_err(err, errsz, SCHED_ENOENV,
			    "no job given and not inside one, and no batch "
			    "scheduler found (%s); give a job id, -w HOSTLIST "
			    "or --hostfile FILE", cmds);
		}
		return sched_err(err, errsz, SCHED_ENOENV,
		    "no job given, not inside one, and %s has no running "
		    "job (asked %s); give a job id, -w HOSTLIST or "
		    "--hostfile FILE", user, looked);
	}
	snprintf(line, sizeof(line), "%-6s %-16s %-20s %-10s %11s  %s",
	    "SCHED", "JOBID", "NAME", "STATE", "ELAPSED", "NODES");
	*table = sched_table_add(NULL, &tlen, line);
	for (i = 0; i < nfound; i++) {
		sched_fmt_elapsed(found[i].elapsed, el, sizeof(el));
		snprintf(line, sizeof(line), "%-6s %-16.64s %-20.20s %-10.10s "
		    "%11s  %.200s", found[i].sched, found[i].id,
		    found[i].name[0] != '\0' ? found[i].name : "-",
		    found[i].state_name[0] != '\0' ? found[i].state_name :
		    sched_state_name(found[i].state), el,
		    found[i].nodelist != NULL ? found[i].nodelist : "-");
		if (*table != NULL)
			*table = sched_table_add(*table, &tlen, line);
		sched_job_free(&found[i]);
	}
	free(found);
	if (*table == NULL)
		return sched_err(err, errsz, SCHED_ENOMEM, "out of memory");
	return sched_err(err, errsz, SCHED_ENOENV,
	    "no job given and not inside one: %zu running jobs of %s "
	    "(above); give one of their ids", nfound, user);
}

int
sched_env_inside(const char *only)
{
	const struct sched	*s;
	const struct jobvar	*jv;
	const char		*v;
	size_t			 i;

	for (i = 0; (s = sched_get(i)) != NULL; i++) {
		if (only != NULL && strcmp(only, s->name) != 0)
			continue;
		for (jv = s->jobvars; jv != NULL && jv->name != NULL; jv++)
			if ((v = getenv(jv->name)) != NULL && *v != '\0')
				return 1;
	}
	return 0;
}

int
sched_argv(const char *const *tmpl, const char **argv, size_t max,
    const char *jobid, const char *user, const char *extra)
{
	size_t	i;

	if (tmpl == NULL || max == 0)
		return -1;
	for (i = 0; tmpl[i] != NULL; i++) {
		if (i + 1 >= max)
			return -1;
		if (strcmp(tmpl[i], "%j") == 0)
			argv[i] = jobid;
		else if (strcmp(tmpl[i], "%u") == 0)
			argv[i] = user;
		else if (strcmp(tmpl[i], "%o") == 0)
			argv[i] = extra;
		else
			argv[i] = tmpl[i];
		if (argv[i] == NULL)
			return -1;
	}
	argv[i] = NULL;
	return 0;
}

int
sched_nojob(const struct sched *s, const char *errtxt)
{
	const char *const	*w;

	for (w = s->nojob_words; w != NULL && *w != NULL; w++)
		if (strstr(errtxt, *w) != NULL)
			return 1;
	return 0;
}

int
sched_query_failed(const struct sched *s, const char *jobid,
    const char *errtxt, char *err, size_t errsz)
{
	if (sched_nojob(s, errtxt))
		return sched_err(err, errsz, SCHED_ENOJOB,
		    "job %s: no such job", jobid);
	return sched_err(err, errsz, SCHED_ECMD, "%s %s: %s", s->query_what,
	    jobid, errtxt[0] != '\0' ? errtxt : "failed");
}

int
sched_query(const struct sched *s, const char *jobid, struct job *job,
    char *err, size_t errsz)
{
	const char	*argv[16];
	char		*out, errtxt[512];
	int		 r, status;

	if (s->resolve != NULL)
		return s->resolve(jobid, job, err, errsz);
	if (sched_argv(s->query_argv, argv, sizeof(argv) / sizeof(argv[0]),
	    jobid, NULL, NULL) != 0)
		return sched_err(err, errsz, SCHED_ECMD, "%s: no query for a "
		    "job", s->name);
	sched_copy(job->id, sizeof(job->id), jobid);
	if ((r = sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    errsz)) != SCHED_OK)
		return r;
	if (status != 0) {
		free(out);
		return sched_query_failed(s, jobid, errtxt, err, errsz);
	}
	r = s->parse(out, jobid, job, err, errsz);
	free(out);
	return r;
}
