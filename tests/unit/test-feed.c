/* SPDX-License-Identifier: ISC */
/*
 * test-feed: the transport interface (src/feed.h) over its local
 * transport, with real children: the phase and the state words derived
 * from it, the side command (feed_exec, what a backtrace uses; the ssh
 * transport runs its second ssh through the same code) with its output,
 * exit status, time limit and early release, and the registry.
 */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feed.h"
#include "ladder.h"
#include "harness.h"
#include "rconf.h"
#include "spawn.h"

#define S(x)	((char *)(uintptr_t)(x))

/* Drive f's loop until cond(arg) or ms pass. */
static void
drive(struct feed *f, int (*cond)(void *), void *arg, int ms)
{
	struct pollfd	pf[FEED_MAX_FDS];
	uint64_t	end = spawn_now_ms() + (uint64_t)ms, now;
	char		buf[4096];
	int		n, t;

	while (!cond(arg) && (now = spawn_now_ms()) < end) {
		n = f->ops->pollfds(f, pf);
		t = f->ops->timeout(f, now);
		if (t < 0 || t > 50)
			t = 50;
		poll(pf, (nfds_t)n, t);
		f->ops->step(f, spawn_now_ms(), pf, n);
		while (f->ops->read(f, buf, sizeof(buf)) > 0)
			;
	}
}

static int
exec_done(void *arg)
{
	return feed_exec_done(arg);
}

static int
feed_done(void *arg)
{
	return ((struct feed *)arg)->ops->done(arg);
}

static void
test_phase(void)
{
	static char	*argv[] = { S("sh"), S("-c"), S("cat >/dev/null"),
	    NULL };
	struct feed	*f;
	const char	*why;
	char		 err[256];

	f = feed_new_local("/bin/sh", argv, err, sizeof(err));
	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK_INT(feed_phase(f, &why), FEED_LIVE);
	CHECK_STR(feed_state(f), "live");
	CHECK_STR(feed_transport(f), "local");
	CHECK_STR(feed_skipped(f), "");
	CHECK_INT(feed_failure(f), FEED_FAIL_NONE);
	f->ops->stop(f);
	CHECK_STR(feed_state(f), "stopping");
	drive(f, feed_done, f, 5000);
	CHECK_INT(feed_phase(f, &why), FEED_CLOSED);
	CHECK_STR(feed_state(f), "probe exited with status 0");
	CHECK_STR(feed_error(f), "");
	feed_free(f);

	/* A probe that fails: failed, with how it ended. */
	argv[2] = S("echo boom >&2; exit 3");
	f = feed_new_local("/bin/sh", argv, err, sizeof(err));
	CHECK(f != NULL);
	if (f == NULL)
		return;
	drive(f, feed_done, f, 5000);
	CHECK_INT(feed_phase(f, &why), FEED_FAILED);
	CHECK_STR(feed_error(f), "probe exited with status 3: boom");
	CHECK_STR(feed_state(f), "failed: probe exited with status 3: boom");
	CHECK_INT(feed_failure(f), FEED_FAIL_OTHER);
	feed_free(f);
	CHECK_STR(feed_phase_word(FEED_WAITING), "waiting");
	CHECK_STR(feed_phase_word(FEED_REFUSED), "refused");
}

static void
test_exec(void)
{
	static char	*argv[] = { S("sh"), S("-c"), S("cat >/dev/null"),
	    NULL };
	struct feed	 *f;
	struct feed_exec *x, *y;
	const char	 *out;
	char		  err[256];
	size_t		  len;

	f = feed_new_local("/bin/sh", argv, err, sizeof(err));
	CHECK(f != NULL);
	if (f == NULL)
		return;
	x = feed_exec_start(f, "echo hi; echo oops >&2; exit 3", 1024, 5000,
	    err, sizeof(err));
	CHECK(x != NULL);
	if (x == NULL)
		return;
	/* One at a time. */
	CHECK(feed_exec_start(f, "true", 16, 1000, err, sizeof(err)) == NULL);
	drive(f, exec_done, x, 5000);
	CHECK(feed_exec_done(x));
	out = feed_exec_out(x, &len);
	CHECK_STR(out, "hi\n");
	out = feed_exec_err(x, &len);
	CHECK_STR(out, "oops\n");
	CHECK_INT(feed_exec_status(x), 3);
	CHECK_STR(feed_exec_why(x), "");
	feed_exec_free(x);

	/* Output past the cap is dropped; a command past its time is
	 * ended, and says so. */
	x = feed_exec_start(f, "yes | head -c 100000; sleep 30", 10, 300,
	    err, sizeof(err));
	CHECK(x != NULL);
	if (x == NULL)
		return;
	drive(f, exec_done, x, 5000);
	CHECK(feed_exec_done(x));
	feed_exec_out(x, &len);
	CHECK_INT((long)len, 10);
	CHECK_INT(feed_exec_status(x), -1);
	CHECK_STR(feed_exec_why(x), "timed out after 1 s");
	feed_exec_free(x);

	/* Let go while it runs: the feed ends and frees it; the feed can
	 * then run the next one. */
	x = feed_exec_start(f, "sleep 30", 16, 60000, err, sizeof(err));
	CHECK(x != NULL);
	feed_exec_free(x);
	y = NULL;
	{
		uint64_t end = spawn_now_ms() + 5000;

		while (y == NULL && spawn_now_ms() < end) {
			drive(f, feed_done, f, 50);
			y = feed_exec_start(f, "true", 16, 1000, err,
			    sizeof(err));
		}
	}
	CHECK(y != NULL);
	/* The feed goes first: the command is ended, its caller still
	 * holds it. */
	feed_free(f);
	if (y != NULL) {
		CHECK(feed_exec_done(y));
		feed_exec_free(y);
	}
}

/* A side command from a filled request, as root for another user (what a
 * launcher's backtrace step does as root on another user's job): the
 * child runs with that uid, those groups, that directory and the
 * environment given, nothing of the caller's. */
static void
test_exec_as(void)
{
	static char	*argv[] = { S("/bin/sh"), S("-c"),
	    S("id -u; id -G; pwd; echo \"$HOME:${JOBTOP_CANARY:-none}\""),
	    NULL };
	static char	*envp[] = { S("HOME=/nonexistent-home"),
	    S("PATH=/usr/bin:/bin"), NULL };
	static const gid_t groups[] = { 65534 };
	struct spawn_req  rq;
	struct feed_exec *x;
	struct pollfd	  pf[2];
	const char	 *out;
	char		  err[256];
	size_t		  len;
	uint64_t	  end;

	if (geteuid() != 0) {
		printf("  (test_exec_as: not root, the switch is not tried)\n");
		return;
	}
	setenv("JOBTOP_CANARY", "root-only", 1);
	memset(&rq, 0, sizeof(rq));
	rq.path = argv[0];
	rq.argv = argv;
	rq.envp = envp;
	rq.flags = SPAWN_DROP;
	rq.uid = 65534;
	rq.gid = 65534;
	rq.groups = groups;
	rq.ngroups = 1;
	rq.dir = "/";
	x = feed_cmd_start_req(&rq, 1024, 5000, err, sizeof(err));
	CHECK(x != NULL);
	if (x == NULL)
		return;
	end = spawn_now_ms() + 5000;
	while (!feed_exec_done(x) && spawn_now_ms() < end) {
		int n = feed_cmd_pollfds(x, pf);

		poll(pf, (nfds_t)n, 50);
		feed_cmd_step(x, spawn_now_ms());
	}
	CHECK(feed_exec_done(x));
	out = feed_exec_out(x, &len);
	CHECK_STR(out, "65534\n65534\n/\n/nonexistent-home:none\n");
	CHECK_INT(feed_exec_status(x), 0);
	feed_exec_free(x);
	feed_cmd_reap(&x);
	unsetenv("JOBTOP_CANARY");
}

static void
test_registry(void)
{
	CHECK(feed_transport_find("libssh2") != NULL);
	CHECK(feed_transport_find("ssh") != NULL);
	CHECK(feed_transport_find("auto") == NULL);
	CHECK(feed_transport_find("telnet") == NULL);
	CHECK(strncmp(feed_transport_names(), "auto, libssh2, ssh", 18) == 0);
}

static int
feed_live(void *arg)
{
	const char	*why;
	struct feed	*f = arg;

	return feed_phase(f, &why) == FEED_LIVE || f->ops->done(f);
}

/*
 * --ssh-exec HOST CMD (for regress/remote-ssh-client): HOST over the ssh
 * transport with the probe $PROBE; once live, CMD as its side command (a
 * second ssh).  Prints "out: ...", "err: ...", "status N", "why ..." and
 * exits 0 when the node went live and the command ended.  --exec-via
 * TRANSPORT HOST CMD does the same through another row, for the job that
 * $JOB, $SCHED and $RANK_NODES name (regress/remote-launch-flux).
 */
static int
ssh_exec(const char *transport, const char *host, const char *cmd)
{
	struct rconf	  rc;
	struct feed	 *f;
	struct feed_exec *x;
	const char	 *p, *why;
	char		  err[512];
	size_t		  len;

	rconf_init(&rc);
	rc.probe_path = strdup(getenv("PROBE") != NULL ? getenv("PROBE") :
	    "jobtop-probe");
	rc.interval = 0.5;
	if (getenv("JOB") != NULL)
		rc.job = strdup(getenv("JOB"));
	rc.sched = getenv("SCHED");
	if (getenv("RANK_NODES") != NULL)
		rc.rank_nodes = strdup(getenv("RANK_NODES"));
	if (rconf_ready(&rc, err, sizeof(err)) != 0) {
		fprintf(stderr, "rconf_ready: %s\n", err);
		return 1;
	}
	if ((f = feed_new_remote(transport, &rc, host, err, sizeof(err))) ==
	    NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	drive(f, feed_live, f, 30000);
	if (feed_phase(f, &why) != FEED_LIVE) {
		fprintf(stderr, "not live: %s\n", feed_state(f));
		return 1;
	}
	if ((x = feed_exec_start(f, cmd, 4096, 10000, err, sizeof(err))) ==
	    NULL) {
		fprintf(stderr, "exec: %s\n", err);
		return 1;
	}
	drive(f, exec_done, x, 20000);
	p = feed_exec_out(x, &len);
	printf("out: %s", p);
	p = feed_exec_err(x, &len);
	printf("err: %s", p);
	printf("status %d\nwhy %s\n", feed_exec_status(x), feed_exec_why(x));
	feed_exec_free(x);
	f->ops->stop(f);
	drive(f, feed_done, f, 10000);
	printf("end %s\n", feed_state(f));
	feed_free(f);
	rconf_free(&rc);
	return 0;
}

int
main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	feed_register_transports(feed_transports);
	if (argc == 4 && strcmp(argv[1], "--ssh-exec") == 0)
		return ssh_exec("ssh", argv[2], argv[3]);
	if (argc == 5 && strcmp(argv[1], "--exec-via") == 0)
		return ssh_exec(argv[2], argv[3], argv[4]);
	RUN(test_phase);
	RUN(test_exec);
	RUN(test_exec_as);
	RUN(test_registry);
	return harness_done();
}
