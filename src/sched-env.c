/* SPDX-License-Identifier: ISC */
/*
 * sched-env: jobs that need no scheduler query.  A hostlist given with -w,
 * a hostfile given with --hostfile, or the job we run inside, found from
 * the variables each scheduler sets in a job's environment: its job
 * variables (struct sched .jobvars, from src/jobvars.h, which the probe
 * reads too) and those that name the job's nodes and tasks (.env: Slurm's
 * SLURM_JOB_NODELIST, PBS's PBS_NODEFILE, LSF's LSB_MCPU_HOSTS or
 * LSB_HOSTS, OAR's OAR_NODEFILE; Flux sets none and its job is resolved
 * with flux jobs).  Schedulers come in registry order, each one's
 * variables in their order.
 *
 * A hostfile has one host per line; '#' starts a comment; "name:N"
 * (MPICH) and "name slots=N" (Open MPI) give slot counts; a repeated name
 * (PBS_NODEFILE) adds one slot each time; a line may also be a hostlist
 * expression.  Every name must be a valid host name.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostlist.h"
#include "jobvars.h"
#include "sched.h"
#include "validate.h"

#define SCHED_HOSTFILE_MAX	(64 * 1024 * 1024)

/* The job is ours (we run inside it): owner is the user running jobtop. */
static void
sched_env_owner(struct job *job)
{
	struct passwd	*pw;

	job->uid = getuid();
	job->uid_known = 1;
	if ((pw = getpwuid(job->uid)) != NULL)
		sched_copy(job->user, sizeof(job->user), pw->pw_name);
}

/* Is s "job_<id>" exactly (n bytes)? */
static int
sched_env_is_jobdir(const char *s, size_t n, const char *id)
{
	size_t	idlen = strlen(id);

	return n == 4 + idlen && strncmp(s, "job_", 4) == 0 &&
	    strncmp(s + 4, id, idlen) == 0;
}

int
sched_slurm_cgroup_has_job(const char *text, const char *id, uid_t uid)
{
	const char	*line, *next, *p, *c[4];
	size_t		 n[4], len;
	char		 uidc[32];
	int		 i;

	if (*id == '\0' || strspn(id, "0123456789") != strlen(id))
		return 0;
	snprintf(uidc, sizeof(uidc), "uid_%lu", (unsigned long)uid);
	for (line = text; *line != '\0'; line = next) {
		len = strcspn(line, "\n");
		next = line[len] == '\n' ? line + len + 1 : line + len;
		/* "N:controllers:/path": the path after the second ':'. */
		if ((p = memchr(line, ':', len)) == NULL ||
		    (p = memchr(p + 1, ':', len - (size_t)(p + 1 - line))) ==
		    NULL || p[1] != '/')
			continue;
		p += 2;
		/* The first four components of the path. */
		for (i = 0; i < 4; i++) {
			c[i] = p;
			n[i] = strcspn(p, "/\n");
			p += n[i];
			if (*p == '/')
				p++;
		}
		/* cgroup v1: /slurm[_NODE]/uid_U/job_ID, U our uid. */
		if (((n[0] == 5 && strncmp(c[0], "slurm", 5) == 0) ||
		    (n[0] > 6 && strncmp(c[0], "slurm_", 6) == 0)) &&
		    n[1] == strlen(uidc) && strncmp(c[1], uidc, n[1]) == 0 &&
		    sched_env_is_jobdir(c[2], n[2], id))
			return 1;
		/* cgroup v2: /system.slice/[NODE_]slurmstepd.scope/job_ID. */
		if (n[0] == 12 && strncmp(c[0], "system.slice", 12) == 0 &&
		    n[1] >= 16 && strncmp(c[1] + n[1] - 16,
		    "slurmstepd.scope", 16) == 0 &&
		    (n[1] == 16 || c[1][n[1] - 17] == '_') &&
		    sched_env_is_jobdir(c[2], n[2], id))
			return 1;
	}
	return 0;
}

/* Read a small /proc file into buf, NUL-terminated; its length or -1. */
static ssize_t
sched_env_proc(const char *path, char *buf, size_t bufsz)
{
	ssize_t	n;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, bufsz - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * Do we run under the step daemon of Slurm job id?  An ancestor whose
 * comm is "slurmstepd", whose real uid is root and whose command line is
 * "slurmstepd: [ID.STEP]" (or "[ID.batch]", "[ID.extern]").
 */
static int
sched_env_under_stepd(const char *id)
{
	char		 path[64], buf[4096], want[400], *p;
	long		 pid = (long)getppid(), ppid;
	unsigned long	 ruid;
	ssize_t		 n;
	int		 hops;

	snprintf(want, sizeof(want), "slurmstepd: [%s.", id);
	for (hops = 0; hops < 64 && pid > 1; hops++) {
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if (sched_env_proc(path, buf, sizeof(buf)) <= 0 ||
		    (p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 1, " %*c %ld", &ppid) != 1)
			return 0;
		if (strncmp(strchr(buf, '(') != NULL ? strchr(buf, '(') + 1 :
		    "", "slurmstepd)", 11) == 0) {
			snprintf(path, sizeof(path), "/proc/%ld/status", pid);
			if (sched_env_proc(path, buf, sizeof(buf)) <= 0 ||
			    (p = strstr(buf, "\nUid:")) == NULL ||
			    sscanf(p + 5, "%lu", &ruid) != 1 || ruid != 0)
				return 0;
			snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
			if ((n = sched_env_proc(path, buf, sizeof(buf))) <= 0)
				return 0;
			return strncmp(buf, want, strlen(want)) == 0;
		}
		pid = ppid;
	}
	return 0;
}

/* In Slurm job id's cgroup, or under its slurmstepd? */
static int
sched_env_in_slurm_job(const char *id)
{
	char	buf[8192];

	return (sched_env_proc("/proc/self/cgroup", buf, sizeof(buf)) > 0 &&
	    sched_slurm_cgroup_has_job(buf, id, getuid())) ||
	    sched_env_under_stepd(id);
}

/* Is every node the environment names one of the scheduler's job's? */
static int
sched_env_nodes_in(const struct job *job, const struct job *sj,
    const char *var, char *err, size_t errsz)
{
	const char	*n;
	size_t		 i;

	for (i = 0; job->nodes != NULL && i < hostlist_count(job->nodes);
	    i++) {
		n = hostlist_get(job->nodes, i);
		if (hostlist_find(sj->nodes, n) < 0) {
			snprintf(err, errsz, "%s names %s, which is not a node "
			    "of %s job %s", var, n, job->sched, job->id);
			return SCHED_EPERM;
		}
	}
	return SCHED_OK;
}

/*
 * The environment names a job (review F5): never take its word for the
 * owner.  With the scheduler's command at hand, ask the scheduler: the
 * owner, state and name are its, and the environment's node list is kept
 * only if every node of it is one of the job's.  Without it, only a
 * Slurm job can be proven from here: this process sits in the job's
 * cgroup (anchored at Slurm's own root) or under the job's slurmstepd,
 * owned by root; then the job is ours.  Anything else is refused, except
 * to root, who may watch any job and any host list anyway: for root an
 * environment the scheduler cannot confirm (no command, no answer, no
 * such job) stands as it is, and one it contradicts does not.
 */
static int
sched_env_verify(struct job *job, const char *name, const char *var,
    char *err, size_t errsz)
{
	const struct sched	*s = sched_by_name(name);
	struct job		 sj;
	int			 r;

	if (s != NULL && sched_in_path(s->command)) {
		sched_job_init(&sj);
		if ((r = sched_query(s, job->id, &sj, err, errsz)) == SCHED_OK)
			r = sched_job_check(&sj, err, errsz);
		/* Root may watch any job and any hosts (-w): when the
		 * scheduler cannot say, its environment stands. */
		if ((r == SCHED_ECMD || r == SCHED_ENOJOB) && getuid() == 0) {
			sched_job_free(&sj);
			sched_env_owner(job);
			return SCHED_OK;
		}
		/* No answer (no controller in reach): the proof below. */
		if (r == SCHED_ECMD && s == &sched_slurm &&
		    sched_env_in_slurm_job(job->id)) {
			sched_job_free(&sj);
			sched_env_owner(job);
			return SCHED_OK;
		}
		if (r == SCHED_OK)
			r = sched_env_nodes_in(job, &sj, var, err, errsz);
		if (r == SCHED_OK) {
			memcpy(job->user, sj.user, sizeof(job->user));
			memcpy(job->name, sj.name, sizeof(job->name));
			memcpy(job->state_name, sj.state_name,
			    sizeof(job->state_name));
			memcpy(job->reason, sj.reason, sizeof(job->reason));
			job->uid = sj.uid;
			job->uid_known = sj.uid_known;
			job->state = sj.state;
			job->time_limit = sj.time_limit;
			job->elapsed = sj.elapsed;
			if (job->ntasks < 0)
				job->ntasks = sj.ntasks;
		}
		sched_job_free(&sj);
		return r;
	}
	if (getuid() == 0) {
		sched_env_owner(job);
		return SCHED_OK;
	}
	if (s == &sched_slurm && sched_env_in_slurm_job(job->id)) {
		sched_env_owner(job);
		return SCHED_OK;
	}
	snprintf(err, errsz, "%s=%s: cannot check that job: %s is not in "
	    "PATH%s; give the job id on a machine where it is", var, job->id,
	    s != NULL ? s->command : name, s == &sched_slurm ?
	    " and this process is not in its cgroup or under its "
	    "slurmstepd" : "");
	return SCHED_EPERM;
}

int
sched_from_hostlist(const char *expr, struct job *job, char *err,
    size_t errsz)
{
	int	r;

	job->sched = "hostlist";
	if ((r = sched_job_add_nodes(job, expr, err, errsz)) != SCHED_OK)
		return r;
	return sched_job_finish(job, err, errsz);
}

/* Read a whole file, bounded; the caller frees *out. */
static int
sched_env_read(const char *path, char **out, char *err, size_t errsz)
{
	struct stat	 st;
	char		*buf = NULL, *nb;
	size_t		 len = 0, cap = 0;
	ssize_t		 n;
	int		 fd;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return SCHED_EINVAL;
	}
	if (fstat(fd, &st) == -1 || S_ISDIR(st.st_mode)) {
		snprintf(err, errsz, "%s: not a file", path);
		close(fd);
		return SCHED_EINVAL;
	}
	for (;;) {
		if (cap - len < 4096 + 1) {
			cap = cap == 0 ? 8192 : cap * 2;
			if ((nb = realloc(buf, cap)) == NULL) {
				free(buf);
				close(fd);
				snprintf(err, errsz, "out of memory");
				return SCHED_ENOMEM;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(err, errsz, "%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return SCHED_EINVAL;
		}
		if (n == 0)
			break;
		if ((len += (size_t)n) > SCHED_HOSTFILE_MAX) {
			snprintf(err, errsz, "%s: larger than %d bytes", path,
			    SCHED_HOSTFILE_MAX);
			free(buf);
			close(fd);
			return SCHED_EINVAL;
		}
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return SCHED_OK;
}

/* One hostfile line (comment and blanks already removed). */
static int
sched_env_line(struct job *job, char *line, const char *path, int lineno,
    char *err, size_t errsz)
{
	char	*name, *tok, *colon, *end, sub[256];
	long	 slots = 1;
	int	 r;

	name = strtok_r(line, " \t", &end);
	if (name == NULL)
		return SCHED_OK;
	while ((tok = strtok_r(NULL, " \t", &end)) != NULL) {
		if (strncmp(tok, "slots=", 6) == 0)
			slots = strtol(tok + 6, NULL, 10);
	}
	if (strchr(name, '[') != NULL) {
		r = sched_job_add_nodes(job, name, sub, sizeof(sub));
	} else {
		if ((colon = strrchr(name, ':')) != NULL) {
			*colon = '\0';
			slots = strtol(colon + 1, NULL, 10);
		}
		if (slots < 1) {
			snprintf(err, errsz, "%s:%d: bad slot count", path,
			    lineno);
			return SCHED_EINVAL;
		}
		r = sched_job_add_host(job, name, slots, sub, sizeof(sub));
	}
	if (r != SCHED_OK)
		snprintf(err, errsz, "%s:%d: %s", path, lineno, sub);
	return r;
}

/* Add every host of a hostfile. */
static int
sched_env_hostfile(struct job *job, const char *path, char *err,
    size_t errsz)
{
	char	*text, *line, *next, *hash;
	int	 r, lineno = 0;

	if ((r = sched_env_read(path, &text, err, errsz)) != SCHED_OK)
		return r;
	for (line = text; line != NULL && *line != '\0'; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((hash = strchr(line, '#')) != NULL)
			*hash = '\0';
		line[strcspn(line, "\r")] = '\0';
		if ((r = sched_env_line(job, line, path, lineno, err,
		    errsz)) != SCHED_OK) {
			free(text);
			return r;
		}
	}
	free(text);
	if (job->nodes == NULL || hostlist_count(job->nodes) == 0) {
		snprintf(err, errsz, "%s: no host names in it", path);
		return SCHED_EINVAL;
	}
	return SCHED_OK;
}

int
sched_from_hostfile(const char *path, struct job *job, char *err,
    size_t errsz)
{
	int	r;

	job->sched = "hostfile";
	if ((r = sched_env_hostfile(job, path, err, errsz)) != SCHED_OK)
		return r;
	return sched_job_finish(job, err, errsz);
}

/* LSB_MCPU_HOSTS ("n1 4 n2 4", the value of var mvar) or LSB_HOSTS
 * ("n1 n1 n2"). */
static int
sched_env_lsf_hosts(struct job *job, const char *mcpu, const char *hosts,
    const char *mvar, char *err, size_t errsz)
{
	char	*copy, *tok, *end, *num;
	long	 slots;
	int	 r = SCHED_OK;

	if ((copy = strdup(mcpu != NULL ? mcpu : hosts)) == NULL) {
		snprintf(err, errsz, "out of memory");
		return SCHED_ENOMEM;
	}
	for (tok = strtok_r(copy, " \t\n", &end); tok != NULL;
	    tok = strtok_r(NULL, " \t\n", &end)) {
		slots = 1;
		if (mcpu != NULL) {
			if ((num = strtok_r(NULL, " \t\n", &end)) == NULL ||
			    (slots = strtol(num, NULL, 10)) < 1) {
				snprintf(err, errsz, "%s: bad slot count for "
				    "%.64s", mvar, tok);
				r = SCHED_EINVAL;
				break;
			}
		}
		if ((r = sched_job_add_host(job, tok, slots, err, errsz)) !=
		    SCHED_OK)
			break;
	}
	free(copy);
	return r;
}

/* The first of some variables (n at most, NULL ends) that is set and
 * not empty; its name in *which when which is not NULL. */
static const char *
sched_env_get(const char *const *names, size_t n, const char **which)
{
	const char	*v;
	size_t		 i;

	for (i = 0; i < n && names[i] != NULL; i++) {
		if ((v = getenv(names[i])) != NULL && *v != '\0') {
			if (which != NULL)
				*which = names[i];
			return v;
		}
	}
	return NULL;
}

/* Set the id and say where it came from. */
static int
sched_env_id(struct job *job, const char *sched, const char *var,
    const char *id, enum validate_job kind, char *err, size_t errsz)
{
	if (!validate_jobid(id, kind)) {
		snprintf(err, errsz, "%s is not a %s job id: \"%.64s\"", var,
		    sched, id);
		return SCHED_EINVAL;
	}
	sched_copy(job->id, sizeof(job->id), id);
	job->sched = sched;
	job->state = JOB_RUNNING;
	sched_copy(job->state_name, sizeof(job->state_name), "RUNNING");
	return SCHED_OK;
}

/*
 * A job variable names the job but no variable its nodes (Flux): the job
 * is resolved with the scheduler as a named one would be (owner, state
 * and nodes are the scheduler's, so nothing of the environment is
 * trusted).
 */
static int
sched_env_query(const struct sched *s, struct job *job, const char *var,
    const char *id, char *err, size_t errsz)
{
	if (!validate_jobid(id, s->idkind)) {
		snprintf(err, errsz, "%s is not a %s job id: \"%.64s\"", var,
		    s->name, id);
		return SCHED_EINVAL;
	}
	if (!sched_in_path(s->command)) {
		snprintf(err, errsz, "%s is set but %s is not in PATH to ask "
		    "for the job's nodes", var, s->command);
		return SCHED_ENOENV;
	}
	return sched_resolve(s->name, id, job, err, errsz);
}

/* The nodes (and tasks) of the job we run inside, from the variables
 * s->env names; var is its job variable, for messages. */
static int
sched_env_nodes(const struct sched *s, struct job *job, const char *var,
    char *err, size_t errsz)
{
	const struct sched_env	*e = &s->env;
	const size_t		 nn = sizeof(e->nodes) / sizeof(e->nodes[0]);
	const char		*v, *w = NULL;
	int			 r;

	if (e->how == SCHED_ENV_LSF) {
		v = sched_env_get(&e->nodes[0], 1, NULL);
		w = sched_env_get(&e->nodes[1], 1, NULL);
		if (v == NULL && w == NULL) {
			snprintf(err, errsz, "%s is set but neither %s nor %s",
			    var, e->nodes[0], e->nodes[1]);
			return SCHED_ENOENV;
		}
		return sched_env_lsf_hosts(job, v, w, e->nodes[0], err, errsz);
	}
	if ((v = sched_env_get(e->nodes, nn, NULL)) == NULL) {
		snprintf(err, errsz, "%s is set but not %s", var,
		    e->nodes[0] != NULL ? e->nodes[0] : "a node variable");
		return SCHED_ENOENV;
	}
	if (e->how == SCHED_ENV_HOSTFILE)
		r = sched_env_hostfile(job, v, err, errsz);
	else
		r = sched_job_add_nodes(job, v, err, errsz);
	if (r != SCHED_OK)
		return r;
	if ((v = sched_env_get(e->ntasks, sizeof(e->ntasks) /
	    sizeof(e->ntasks[0]), NULL)) != NULL)
		job->ntasks = strtol(v, NULL, 10);
	return SCHED_OK;
}

int
sched_from_env(const char *only, struct job *job, char *err, size_t errsz)
{
	const struct sched	*s, *found = NULL;
	const struct jobvar	*jv;
	const char		*id = NULL, *var;
	char			 vars[256];
	size_t			 i, n = 0;
	int			 r;

	if (only != NULL && sched_by_name(only) == NULL)
		return sched_unknown(only, err, errsz);
	/* The first job variable set, schedulers in registry order. */
	vars[0] = '\0';
	for (i = 0; found == NULL && (s = sched_get(i)) != NULL; i++) {
		if (only != NULL && strcmp(only, s->name) != 0)
			continue;
		for (jv = s->jobvars; jv != NULL && jv->name != NULL; jv++) {
			if ((id = sched_env_get(&jv->name, 1, NULL)) != NULL) {
				found = s;
				break;
			}
		}
		if (s->jobvars != NULL && s->jobvars[0].name != NULL &&
		    n < sizeof(vars))
			n += (size_t)snprintf(vars + n, sizeof(vars) - n,
			    "%s%s", n > 0 ? ", " : "", s->jobvars[0].name);
	}
	if (found == NULL && only != NULL) {
		snprintf(err, errsz, "no job given and not inside a %s job; "
		    "give a job id, -w HOSTLIST or --hostfile FILE", only);
		return SCHED_ENOENV;
	}
	if (found == NULL) {
		/* "A, B or C": the last ", " becomes " or ". */
		char	*last = strrchr(vars, ',');

		if (last != NULL && strlen(vars) + 2 < sizeof(vars)) {
			memmove(last + 3, last + 1, strlen(last + 1) + 1);
			memcpy(last, " or", 3);
		}
		snprintf(err, errsz, "no job given and not inside one (no "
		    "%s); give a job id, -w HOSTLIST or --hostfile FILE",
		    vars);
		return SCHED_ENOENV;
	}
	s = found;
	/* Messages name the scheduler's first variable (SLURM_JOB_ID even
	 * when SLURM_JOBID was set). */
	var = s->jobvars[0].name;
	if (s->env.how == SCHED_ENV_QUERY)
		return sched_env_query(s, job, var, id, err, errsz);
	if ((r = sched_env_id(job, s->name, var, id, s->idkind, err,
	    errsz)) != SCHED_OK)
		return r;
	if ((r = sched_env_nodes(s, job, var, err, errsz)) != SCHED_OK)
		return r;
	/* The slots of the environment's nodes first, then the check. */
	if ((r = sched_job_finish(job, err, errsz)) != SCHED_OK)
		return r;
	return sched_env_verify(job, job->sched, var, err, errsz);
}
