/* SPDX-License-Identifier: ISC */
/*
 * runas: the job owner's identity for root's launcher children (see
 * runas.h).  Looked up once per owner in the parent (NSS is not for the
 * child between fork and exec); the child only calls setgroups,
 * setresgid, setresuid and chdir (spawn.c).
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rconf.h"
#include "runas.h"
#include "sched.h"
#include "spawn.h"
#include "xmalloc.h"

#define RUNAS_GROUPS_MAX	1024

extern char	**environ;

static struct runas	*runas_kept;

/* The owner of a job whose scheduler gave only his name (OAR, PBS, LSF:
 * rconf's owner is then unknown), looked up once per job. */
static char	 runas_named_job[320];
static int	 runas_named_known;
static uid_t	 runas_named_uid;

int
runas_owner(const struct rconf *rc, uid_t *uid)
{
	struct job	 job;
	struct passwd	*pw;
	char		 err[512];

	if (rc->owner_known) {
		*uid = rc->owner;
		return 1;
	}
	if (rc->sched == NULL || rc->job == NULL || *rc->job == '\0' ||
	    strlen(rc->job) >= sizeof(runas_named_job))
		return 0;
	if (strcmp(runas_named_job, rc->job) != 0) {
		snprintf(runas_named_job, sizeof(runas_named_job), "%s",
		    rc->job);
		runas_named_known = 0;
		sched_job_init(&job);
		if (sched_resolve(rc->sched, rc->job, &job, err,
		    sizeof(err)) == SCHED_OK) {
			if (job.uid_known) {
				runas_named_uid = job.uid;
				runas_named_known = 1;
			} else if (job.user[0] != '\0' &&
			    (pw = getpwnam(job.user)) != NULL) {
				runas_named_uid = pw->pw_uid;
				runas_named_known = 1;
			}
		}
		sched_job_free(&job);
	}
	*uid = runas_named_uid;
	return runas_named_known;
}

int
runas_wanted(const struct rconf *rc)
{
	uid_t	uid;

	return getuid() == 0 && geteuid() == 0 && rc->job != NULL &&
	    *rc->job != '\0' && runas_owner(rc, &uid) && uid != 0;
}

void
runas_reset(void)
{
	struct runas	*ra = runas_kept;
	int		 i;

	if (ra == NULL)
		return;
	for (i = 0; ra->envp != NULL && ra->envp[i] != NULL; i++)
		free(ra->envp[i]);
	free(ra->groups);
	free(ra->name);
	free(ra->home);
	free(ra->shell);
	free(ra->envp);
	free(ra);
	runas_kept = NULL;
}

/* The variables a child of the owner's keeps from root's environment:
 * where programs are and how they speak, and the schedulers' own
 * configuration (never a credential, a socket or a directory of root's). */
static int
runas_keep(const char *e)
{
	static const char	*const names[] = {
		"PATH", "LANG", "LANGUAGE", "TZ", "TERM", "SLURM_CONF",
		"OAR_JOB_KEY_FILE", "FLUX_URI", "LSF_ENVDIR",
		"PBS_CONF_FILE", NULL
	};
	size_t			 n = strcspn(e, "=");
	int			 i;

	if (e[n] != '=')
		return 0;
	if (strncmp(e, "LC_", 3) == 0)
		return 1;
	for (i = 0; names[i] != NULL; i++)
		if (strlen(names[i]) == n && strncmp(e, names[i], n) == 0)
			return 1;
	return 0;
}

char **
runas_env(const struct runas *ra, char *const *env, int (*skip)(const char *))
{
	char	**out;
	size_t	  n = 0, k = 0;

	if (env == NULL)
		env = environ;
	while (env[n] != NULL)
		n++;
	out = xcalloc(n + 5, sizeof(*out));
	for (n = 0; env[n] != NULL; n++) {
		if (!runas_keep(env[n]) || (skip != NULL && skip(env[n])))
			continue;
		out[k++] = env[n];
	}
	/* The owner's own: built once in runas_get (envp's first four). */
	out[k++] = ra->envp[0];
	out[k++] = ra->envp[1];
	out[k++] = ra->envp[2];
	out[k++] = ra->envp[3];
	out[k] = NULL;
	return out;
}

const struct runas *
runas_get(const struct rconf *rc, char *err, size_t errsz)
{
	struct runas	*ra;
	struct passwd	*pw;
	gid_t		*gs;
	uid_t		 owner;
	int		 n = 64;

	if (errsz > 0)
		err[0] = '\0';
	if (!runas_wanted(rc) || !runas_owner(rc, &owner))
		return NULL;
	if (runas_kept != NULL && runas_kept->uid == owner)
		return runas_kept;
	errno = 0;
	if ((pw = getpwuid(owner)) == NULL) {
		snprintf(err, errsz, "uid %lu, the job's owner, has no passwd "
		    "entry here%s%s", (unsigned long)owner,
		    errno != 0 ? ": " : "", errno != 0 ? strerror(errno) : "");
		return NULL;
	}
	gs = xcalloc((size_t)n, sizeof(*gs));
	while (getgrouplist(pw->pw_name, pw->pw_gid, gs, &n) < 0) {
		if (n <= 0 || n > RUNAS_GROUPS_MAX) {
			free(gs);
			snprintf(err, errsz, "%s has more than %d groups",
			    pw->pw_name, RUNAS_GROUPS_MAX);
			return NULL;
		}
		gs = xreallocarray(gs, (size_t)n, sizeof(*gs));
	}
	runas_reset();
	ra = xcalloc(1, sizeof(*ra));
	ra->uid = pw->pw_uid;
	ra->gid = pw->pw_gid;
	ra->groups = gs;
	ra->ngroups = n;
	ra->name = xstrdup(pw->pw_name);
	ra->home = xstrdup(pw->pw_dir != NULL && *pw->pw_dir == '/' ?
	    pw->pw_dir : "/");
	ra->shell = xstrdup(pw->pw_shell != NULL && *pw->pw_shell == '/' ?
	    pw->pw_shell : "/bin/sh");
	/* The four variables of his own (runas_env appends them). */
	ra->envp = xcalloc(5, sizeof(*ra->envp));
	ra->envp[0] = xasprintf("HOME=%s", ra->home);
	ra->envp[1] = xasprintf("USER=%s", ra->name);
	ra->envp[2] = xasprintf("LOGNAME=%s", ra->name);
	ra->envp[3] = xasprintf("SHELL=%s", ra->shell);
	snprintf(ra->says, sizeof(ra->says), "as %s", ra->name);
	runas_kept = ra;
	return ra;
}

void
runas_req(const struct runas *ra, struct spawn_req *rq)
{
	if (ra == NULL)
		return;
	rq->flags |= SPAWN_DROP;
	rq->uid = ra->uid;
	rq->gid = ra->gid;
	rq->groups = ra->groups;
	rq->ngroups = (size_t)ra->ngroups;
	rq->dir = ra->home;
}

void
runas_describe(const struct runas *ra, char *buf, size_t size)
{
	size_t	len;
	int	i;

	len = (size_t)snprintf(buf, size, "%s (uid %lu, gid %lu, groups ",
	    ra->name, (unsigned long)ra->uid, (unsigned long)ra->gid);
	for (i = 0; i < ra->ngroups && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%lu",
		    i > 0 ? "," : "", (unsigned long)ra->groups[i]);
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

/* May ra do want (4 read, 1 search) to st by its mode bits? */
static int
runas_may(const struct runas *ra, const struct stat *st, unsigned want)
{
	int	i;

	if (st->st_uid == ra->uid)
		return ((st->st_mode >> 6) & want) == want;
	for (i = 0; i < ra->ngroups; i++)
		if (st->st_gid == ra->groups[i])
			return ((st->st_mode >> 3) & want) == want;
	return (st->st_mode & want) == want;
}

int
runas_can_read(const struct runas *ra, const char *path)
{
	char		 real[PATH_MAX], *p;
	struct stat	 st;

	if (realpath(path, real) == NULL || stat(real, &st) != 0 ||
	    !runas_may(ra, &st, 4))
		return 0;
	/* Every directory above it, up to /. */
	while ((p = strrchr(real, '/')) != NULL) {
		if (p == real)
			p[1] = '\0';
		else
			*p = '\0';
		if (stat(real, &st) != 0 || !runas_may(ra, &st, 1))
			return 0;
		if (p == real)
			break;
	}
	return 1;
}
