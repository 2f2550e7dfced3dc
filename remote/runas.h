/* SPDX-License-Identifier: ISC */
/*
 * runas: root watching another user's job through the scheduler's own
 * launcher (issue 27).  A scheduler starts work in a job only for the
 * job's owner: Slurm creates steps for the job's user alone (root's own
 * srun is refused "Access/permission denied"), OAR's oarsh checks that the
 * job is its caller's, a Flux job's instance runs commands for its owner
 * only.  So as root the launcher's child becomes the owner the scheduler
 * named (rconf's owner uid): his passwd entry's primary group and his
 * supplementary groups (getgrouplist, as initgroups would set them and as
 * slurmd sets them for the job's tasks), then setresgid and setresuid in
 * the child before exec (spawn.c's SPAWN_DROP; never a shell, su or
 * runuser), in his home directory, with an environment of his own: HOME,
 * USER, LOGNAME and SHELL his, PATH, locale, TZ, TERM and the schedulers'
 * configuration variables kept, everything else of root's left out
 * (SSH_AUTH_SOCK, KRB5CCNAME, XDG_RUNTIME_DIR, TMPDIR, MAIL ...).  The
 * probe then runs with the owner's rights: it sees the job's processes,
 * not more.
 *
 * Only when the monitor runs as root (real and effective uid 0) on a job
 * whose owner is known and is not root; never for a host list.
 */
#ifndef JOBTOP_RUNAS_H
#define JOBTOP_RUNAS_H

#include <sys/types.h>

#include <stddef.h>

struct rconf;
struct spawn_req;

struct runas {
	uid_t		 uid;
	gid_t		 gid;
	gid_t		*groups;	/* supplementary, gid among them */
	int		 ngroups;
	char		*name;
	char		*home;
	char		*shell;
	char		**envp;		/* the child's environment */
	char		 says[96];	/* "as jtuser" */
};

/* The job's owner: rconf's uid, or the passwd entry of the name its
 * scheduler gives (OAR, PBS, LSF name him only; asked once per job).
 * 1 with *uid set, or 0. */
int		 runas_owner(const struct rconf *, uid_t *);
/* Should launchers for this rconf start as the job's owner?  1 (root on
 * another user's job), else 0. */
int		 runas_wanted(const struct rconf *);
/* The owner's identity for rc (looked up once and kept for the
 * process), or NULL with the reason in err when runas_wanted is 0 (err
 * then ""), or the owner has no passwd entry. */
const struct runas *runas_get(const struct rconf *, char *, size_t);
/* Fill rq's uid, gid, groups, dir and SPAWN_DROP for ra (NULL: nothing
 * changes).  The environment is the caller's to set (runas_env). */
void		 runas_req(const struct runas *, struct spawn_req *);
/* The environment for a child started as ra, from env (NULL: the
 * monitor's), with skip() leaving out more names (NULL: none).  The array
 * is allocated, its strings point into env or into ra. */
char		**runas_env(const struct runas *, char *const *,
		    int (*)(const char *));
/* "jtuser (uid 1001, gid 1001, groups 1001,100)", for --explain and -v. */
void		 runas_describe(const struct runas *, char *, size_t);
/* Can uid ra read the file at path (its mode, and search permission on
 * every directory above it)?  1 yes, 0 no. */
int		 runas_can_read(const struct runas *, const char *);
/* Drop the kept identities (tests). */
void		 runas_reset(void);

#endif
