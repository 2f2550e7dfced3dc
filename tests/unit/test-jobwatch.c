/* SPDX-License-Identifier: ISC */
/*
 * test-jobwatch: the job's end seen through jobwatch.  The scheduler is
 * LSF's bjobs, a script in a private PATH that prints the fixture files of
 * tests/data/sched/lsf (as test-sched does), so the real sched_resolve()
 * runs in jobwatch's child.  The clock is passed in, so a period or a
 * deadline passes without waiting for it; the children are real and
 * reaped by jobwatch_step.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "jobwatch.h"
#include "sched.h"

static char	 fixdir[4096];
static char	 bindir[4096];

/* bjobs printing fixture out (NULL: none) with stderr errf, exit rc,
 * after sleeping secs. */
static void
fake_bjobs(const char *out, const char *errf, int rc, int secs)
{
	char	 path[8192];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/bjobs", bindir);
	if ((f = fopen(path, "w")) == NULL) {
		harness_check(0, __FILE__, __LINE__, "%s: %s", path,
		    strerror(errno));
		return;
	}
	fprintf(f, "#!/bin/sh\nPATH=/usr/bin:/bin\n");
	if (secs > 0)
		fprintf(f, "sleep %d\n", secs);
	if (errf != NULL)
		fprintf(f, "cat '%s/%s' >&2\n", fixdir, errf);
	if (out != NULL)
		fprintf(f, "cat '%s/%s'\n", fixdir, out);
	fprintf(f, "exit %d\n", rc);
	fclose(f);
	chmod(path, 0755);
}

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * One query: at fake time *t, a period on, it starts; then steps at that
 * same time reap the child (real time, at most 15 s).  Returns 0 once it
 * was answered (the next one is a period away), -1 if it never was.
 */
static int
query(struct jobwatch *jw, uint64_t *t)
{
	double	t0 = now_s();
	int	r;

	*t += JOBWATCH_PERIOD_MS + 10;
	r = jobwatch_step(jw, *t);
	CHECK(r > 0 && r <= 1000);
	while (now_s() - t0 < 15) {
		usleep(20000);
		r = jobwatch_step(jw, *t);
		if (jobwatch_ended(jw) || r == JOBWATCH_PERIOD_MS)
			return 0;
	}
	return -1;
}

static void
test_none(void)
{
	CHECK(jobwatch_new("hostlist", "x", 0) == NULL);
	CHECK(jobwatch_new("hostfile", "x", 0) == NULL);
	CHECK(jobwatch_new("lsf", "", 0) == NULL);
	CHECK(jobwatch_new("lsf", NULL, 0) == NULL);
	CHECK(!jobwatch_ended(NULL));
	CHECK_STR(jobwatch_state(NULL), "");
}

static void
test_running_then_done(void)
{
	struct jobwatch	*jw;
	struct job	 job;
	char		 err[256];
	uint64_t	 t = 1000;

	/* The first query waits one period. */
	fake_bjobs("lsf/running.json", NULL, 0, 0);
	jw = jobwatch_new("lsf", "4711", t);
	CHECK(jw != NULL);
	if (jw == NULL)
		return;
	CHECK_INT(jobwatch_step(jw, t), JOBWATCH_PERIOD_MS);
	CHECK_INT(query(jw, &t), 0);
	CHECK(!jobwatch_ended(jw));
	CHECK_STR(jobwatch_state(jw), "");
	jobwatch_free(jw);

	/* Done: the scheduler's own word, as sched_resolve gives it. */
	fake_bjobs("lsf/done.json", NULL, 0, 0);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("lsf", "4700", &job, err, sizeof(err)),
	    SCHED_EFINISHED);
	jw = jobwatch_new("lsf", "4700", t);
	CHECK_INT(query(jw, &t), 0);
	CHECK(jobwatch_ended(jw));
	CHECK_STR(jobwatch_state(jw), job.state_name);
	CHECK_INT(jobwatch_step(jw, t + 100000), -1);
	jobwatch_free(jw);
	sched_job_free(&job);
}

static void
test_gone(void)
{
	struct jobwatch	*jw;
	uint64_t	 t = 0;

	/* "No such job" once may be a hiccup; twice, the job is gone. */
	fake_bjobs(NULL, "lsf/notfound.stderr", 255, 0);
	jw = jobwatch_new("lsf", "9999", t);
	CHECK_INT(query(jw, &t), 0);
	CHECK(!jobwatch_ended(jw));
	CHECK_INT(query(jw, &t), 0);
	CHECK(jobwatch_ended(jw));
	CHECK_STR(jobwatch_state(jw), "ENDED");
	jobwatch_free(jw);
}

static void
test_failing(void)
{
	struct jobwatch	*jw;
	uint64_t	 t = 0;
	double		 t0;
	int		 i;

	/* A scheduler that fails or prints nonsense ends nothing. */
	fake_bjobs("lsf/running.txt", NULL, 1, 0);
	jw = jobwatch_new("lsf", "4711", t);
	for (i = 0; i < 3; i++)
		CHECK_INT(query(jw, &t), 0);
	CHECK(!jobwatch_ended(jw));
	jobwatch_free(jw);

	/* One that does not answer is killed at the deadline, at once. */
	fake_bjobs("lsf/done.json", NULL, 0, 2);
	jw = jobwatch_new("lsf", "4700", t);
	t += JOBWATCH_PERIOD_MS + 10;
	CHECK(jobwatch_step(jw, t) > 0);
	t0 = now_s();
	t += JOBWATCH_DEADLINE_MS;
	CHECK_INT(jobwatch_step(jw, t), JOBWATCH_PERIOD_MS);
	CHECK(now_s() - t0 < 1);
	CHECK(!jobwatch_ended(jw));
	/* And a query running when the watch ends is killed, not waited. */
	t += JOBWATCH_PERIOD_MS + 10;
	CHECK(jobwatch_step(jw, t) > 0);
	t0 = now_s();
	jobwatch_free(jw);
	CHECK(now_s() - t0 < 1);
}

int
main(void)
{
	const char	*top = getenv("TOP");
	char		 cmd[8300];

	snprintf(fixdir, sizeof(fixdir), "%s/tests/data/sched",
	    top != NULL ? top : ".");
	snprintf(bindir, sizeof(bindir), "%s/jtwatch.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(bindir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	/* Only the fake bjobs (it sets its own PATH inside); the session's
	 * SIGCHLD handling is not needed: jobwatch_step reaps. */
	setenv("PATH", bindir, 1);
	unsetenv("LSB_JOBID");
	RUN(test_none);
	RUN(test_running_then_done);
	RUN(test_gone);
	RUN(test_failing);
	snprintf(cmd, sizeof(cmd), "/bin/rm -rf '%s'", bindir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", bindir);
	return harness_done();
}
