/* SPDX-License-Identifier: ISC */
/*
 * feed-srun's ladder decisions: when SSH's refusal moves a node of a
 * Slurm job to srun, when a large job starts there, and when neither
 * (not Slurm, no srun in PATH, a refusal that another SSH rung may fix).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feed-srun.h"
#include "harness.h"
#include "rconf.h"

static char	bindir[] = "/tmp/jobtop-test-srun-XXXXXX";

/* A PATH with an executable named srun (or without one). */
static void
path_with_srun(int yes)
{
	char	 p[256];
	FILE	*f;

	snprintf(p, sizeof(p), "%s/srun", bindir);
	if (yes) {
		if ((f = fopen(p, "w")) != NULL) {
			fputs("#!/bin/sh\nexit 0\n", f);
			fclose(f);
		}
		chmod(p, 0755);
	} else
		unlink(p);
	setenv("PATH", bindir, 1);
}

static void
test_ladder(void)
{
	struct rconf	rc;
	char		why[512];
	const char	*next;

	memset(&rc, 0, sizeof(rc));
	rc.job = (char *)(uintptr_t)"123";
	rc.sched = "slurm";
	rc.nnodes = 4;
	path_with_srun(1);

	next = feed_srun_ladder(&rc, "node1", "libssh2", FEED_FAIL_OTHER,
	    "Access denied by pam_slurm_adopt: you have no active jobs on "
	    "this node", why, sizeof(why));
	CHECK_STR(next != NULL ? next : "(null)", "srun");
	CHECK(strstr(why, "pam_slurm_adopt") != NULL);
	CHECK(strstr(why, "srun") != NULL);
	next = feed_srun_ladder(&rc, "node1", "libssh2", FEED_FAIL_OTHER,
	    "connect: Connection refused", why, sizeof(why));
	CHECK_STR(next != NULL ? next : "(null)", "srun");
	next = feed_srun_ladder(&rc, "node1", "libssh2", FEED_FAIL_DENIED,
	    "refused", why, sizeof(why));
	CHECK_STR(next != NULL ? next : "(null)", "srun");
	/* The system ssh could not log in either: SSH is closed. */
	next = feed_srun_ladder(&rc, "node1", "ssh", FEED_FAIL_AUTH,
	    "Permission denied (publickey)", why, sizeof(why));
	CHECK_STR(next != NULL ? next : "(null)", "srun");
	/* Called when the ssh rung had nothing to offer: libssh2's
	 * refusal with an ed25519 key is OpenSSH's too (DenyUsers). */
	next = feed_srun_ladder(&rc, "node1", "libssh2", FEED_FAIL_AUTH,
	    "authentication refused for u@node1 (~/.ssh/id_ed25519)", why,
	    sizeof(why));
	CHECK_STR(next != NULL ? next : "(null)", "srun");
	/* A slow or cut link is not a refusal. */
	CHECK(feed_srun_ladder(&rc, "node1", "libssh2", FEED_FAIL_OTHER,
	    "connect: Connection timed out", why, sizeof(why)) == NULL);
	CHECK(feed_srun_ladder(&rc, "node1", "srun", FEED_FAIL_OTHER,
	    "Connection refused", why, sizeof(why)) == NULL);
	/* Not a Slurm job, or no srun: stays where it is. */
	rc.sched = "pbs";
	CHECK(feed_srun_ladder(&rc, "node1", "libssh2", FEED_FAIL_DENIED,
	    "refused", why, sizeof(why)) == NULL);
	rc.sched = NULL;
	rc.job = NULL;
	CHECK(feed_srun_ladder(&rc, "node1", "libssh2", FEED_FAIL_DENIED,
	    "refused", why, sizeof(why)) == NULL);
	rc.job = (char *)(uintptr_t)"123";
	rc.sched = "slurm";
	path_with_srun(0);
	CHECK(feed_srun_ladder(&rc, "node1", "libssh2", FEED_FAIL_DENIED,
	    "refused", why, sizeof(why)) == NULL);
	CHECK(feed_srun_usable(&rc, "node1", why, sizeof(why)) != 0);
	CHECK(strstr(why, "not in PATH") != NULL);
}

static void
test_first(void)
{
	struct rconf	rc;
	char		why[512];

	memset(&rc, 0, sizeof(rc));
	rc.job = (char *)(uintptr_t)"9";
	rc.sched = "slurm";
	path_with_srun(1);
	rc.nnodes = FEED_SRUN_NODES;
	CHECK_INT(feed_srun_first(&rc, why, sizeof(why)), 0);
	rc.nnodes = 10000;
	CHECK_INT(feed_srun_first(&rc, why, sizeof(why)), 1);
	CHECK(strstr(why, "10000 nodes") != NULL);
	rc.sched = "oar";
	CHECK_INT(feed_srun_first(&rc, why, sizeof(why)), 0);
	rc.sched = "slurm";
	path_with_srun(0);
	CHECK_INT(feed_srun_first(&rc, why, sizeof(why)), 0);
}

int
main(void)
{
	char	p[256];

	if (mkdtemp(bindir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_ladder);
	RUN(test_first);
	snprintf(p, sizeof(p), "%s/srun", bindir);
	unlink(p);
	rmdir(bindir);
	return harness_done();
}
