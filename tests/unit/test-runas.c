/* SPDX-License-Identifier: ISC */
/*
 * test-runas: root's launcher children as the job's owner (remote/runas.c,
 * issue 27): when the switch is wanted, the owner's identity and groups,
 * the environment his child gets (his HOME, USER, LOGNAME, SHELL; PATH,
 * locale and the schedulers' settings kept; root's credentials and
 * sockets left out), whether he can read a file, and the one-line
 * refusals of the launchers that work only from within the job.  The
 * identity checks need root (the test user is uid 65534, "nobody").
 */
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feed-launch.h"
#include "harness.h"
#include "rconf.h"
#include "runas.h"
#include "spawn.h"

#define S(x)	((char *)(uintptr_t)(x))

static int
no_slurm(const char *e)
{
	return strncmp(e, "SLURM_", 6) == 0 && strncmp(e, "SLURM_CONF=", 11);
}

static int
has(char **env, const char *want)
{
	for (; *env != NULL; env++)
		if (strcmp(*env, want) == 0)
			return 1;
	return 0;
}

static int
has_name(char **env, const char *name)
{
	size_t	n = strlen(name);

	for (; *env != NULL; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return 1;
	return 0;
}

static void
test_wanted(void)
{
	struct rconf	rc;

	memset(&rc, 0, sizeof(rc));
	rc.job = S("75");
	rc.owner = 65534;
	rc.owner_known = 1;
	CHECK_INT(runas_wanted(&rc), getuid() == 0);
	rc.owner = 0;			/* root's own job */
	CHECK_INT(runas_wanted(&rc), 0);
	rc.owner = 65534;
	rc.job = NULL;			/* a host list: nobody's */
	CHECK_INT(runas_wanted(&rc), 0);
}

static void
test_identity(void)
{
	static char	*env[] = {
	    S("PATH=/usr/bin:/bin"), S("HOME=/root"), S("USER=root"),
	    S("LOGNAME=root"), S("SHELL=/bin/bash"), S("LANG=C.UTF-8"),
	    S("LC_ALL=C"), S("TZ=UTC"), S("SLURM_CONF=/etc/slurm/x.conf"),
	    S("SLURM_JOB_ID=9"), S("SSH_AUTH_SOCK=/tmp/agent"),
	    S("KRB5CCNAME=FILE:/tmp/krb5cc_0"), S("XDG_RUNTIME_DIR=/run/0"),
	    S("TMPDIR=/root/tmp"), S("MAIL=/var/mail/root"),
	    S("OAR_JOB_KEY_FILE=/home/u/key"), NULL };
	const struct runas	*ra;
	struct passwd		*pw;
	struct spawn_req	 rq;
	struct rconf		 rc;
	char			 err[256], buf[512], want[300], **e;
	int			 i, self = 0;

	if (getuid() != 0 || (pw = getpwuid(65534)) == NULL) {
		printf("  (not root, or no uid 65534: not tested)\n");
		return;
	}
	memset(&rc, 0, sizeof(rc));
	rc.job = S("75");
	rc.owner = 65534;
	rc.owner_known = 1;
	ra = runas_get(&rc, err, sizeof(err));
	CHECK(ra != NULL);
	if (ra == NULL)
		return;
	CHECK_INT(ra->uid, 65534);
	CHECK_INT(ra->gid, pw->pw_gid);
	CHECK_STR(ra->name, pw->pw_name);
	CHECK_STR(ra->says, "as nobody");
	for (i = 0; i < ra->ngroups; i++)
		self |= ra->groups[i] == pw->pw_gid;
	CHECK(self);
	CHECK(runas_get(&rc, err, sizeof(err)) == ra);	/* kept */
	runas_describe(ra, buf, sizeof(buf));
	snprintf(want, sizeof(want), "nobody (uid 65534, gid %lu, groups ",
	    (unsigned long)pw->pw_gid);
	CHECK(strncmp(buf, want, strlen(want)) == 0);

	e = runas_env(ra, env, no_slurm);
	snprintf(want, sizeof(want), "HOME=%s", pw->pw_dir);
	CHECK(has(e, want));
	CHECK(has(e, "USER=nobody"));
	CHECK(has(e, "LOGNAME=nobody"));
	CHECK(has(e, "PATH=/usr/bin:/bin"));
	CHECK(has(e, "LANG=C.UTF-8"));
	CHECK(has(e, "LC_ALL=C"));
	CHECK(has(e, "TZ=UTC"));
	CHECK(has(e, "SLURM_CONF=/etc/slurm/x.conf"));
	CHECK(has(e, "OAR_JOB_KEY_FILE=/home/u/key"));
	CHECK(!has(e, "HOME=/root"));
	CHECK(!has(e, "USER=root"));
	CHECK(!has_name(e, "SLURM_JOB_ID"));
	CHECK(!has_name(e, "SSH_AUTH_SOCK"));
	CHECK(!has_name(e, "KRB5CCNAME"));
	CHECK(!has_name(e, "XDG_RUNTIME_DIR"));
	CHECK(!has_name(e, "TMPDIR"));
	CHECK(!has_name(e, "MAIL"));
	free(e);

	memset(&rq, 0, sizeof(rq));
	runas_req(ra, &rq);
	CHECK(rq.flags & SPAWN_DROP);
	CHECK_INT(rq.uid, 65534);
	CHECK_INT((long)rq.ngroups, ra->ngroups);
	CHECK_STR(rq.dir, ra->home);
	memset(&rq, 0, sizeof(rq));
	runas_req(NULL, &rq);
	CHECK_INT(rq.flags, 0);
}

/* A file in a directory only root enters is not his; one in /tmp with
 * mode 0644 is. */
static void
test_can_read(void)
{
	const struct runas	*ra;
	struct rconf		 rc;
	char			 dir[] = "/tmp/test-runas-XXXXXX", path[64];
	char			 err[256];
	FILE			*f;

	if (getuid() != 0 || getpwuid(65534) == NULL)
		return;
	memset(&rc, 0, sizeof(rc));
	rc.job = S("75");
	rc.owner = 65534;
	rc.owner_known = 1;
	if ((ra = runas_get(&rc, err, sizeof(err))) == NULL ||
	    mkdtemp(dir) == NULL)
		return;
	snprintf(path, sizeof(path), "%s/probe", dir);
	if ((f = fopen(path, "w")) != NULL)
		fclose(f);
	chmod(path, 0644);
	chmod(dir, 0700);
	CHECK_INT(runas_can_read(ra, path), 0);
	chmod(dir, 0755);
	CHECK_INT(runas_can_read(ra, path), 1);
	chmod(path, 0600);
	CHECK_INT(runas_can_read(ra, path), 0);
	CHECK_INT(runas_can_read(ra, "/nonexistent/probe"), 0);
	unlink(path);
	rmdir(dir);
}

/* blaunch and pbs_tmrsh outside their job, on a job: one line with the
 * scheduler's rule (for root too). */
static void
test_rules(void)
{
	struct rconf	rc;
	char		why[512];

	unsetenv("LSB_JOBID");
	unsetenv("PBS_JOBID");
	memset(&rc, 0, sizeof(rc));
	rc.job = S("12");
	rc.sched = "lsf";
	rc.owner = 65534;
	rc.owner_known = 1;
	CHECK_INT(feed_blaunch_usable(&rc, "node1", why, sizeof(why)), -1);
	CHECK_STR(why, "blaunch: works only within the job (LSB_JOBID is not "
	    "set): LSF's blaunch starts tasks only from within the job "
	    "(LSB_JOBID, on its hosts), for root and LSF administrators too");
	rc.sched = "pbs";
	CHECK_INT(feed_pbs_tmrsh_usable(&rc, "node1", why, sizeof(why)), -1);
	CHECK(strstr(why, "pbs_tmrsh: works only within the job (PBS_JOBID "
	    "is not set): PBS's TM interface") == why);
}

int
main(void)
{
	RUN(test_wanted);
	RUN(test_identity);
	RUN(test_can_read);
	RUN(test_rules);
	runas_reset();
	return harness_done();
}
