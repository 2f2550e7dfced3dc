/* SPDX-License-Identifier: ISC */
/*
 * ladder: the registry of remote transports (feed_transports[]) and the
 * ladder that moves a node from one to the next (--transport auto).
 *
 * The ladder is a feed that holds the node's current transport's feed.
 * It starts with the first transport of feed_transports[] marked
 * FEED_T_LADDER whose usable() accepts the node (the others' reasons are
 * kept in feed->skipped), and when that feed ends for good without being
 * asked to, feed_ladder_next says whether another transport should have
 * the node.
 *
 * The monitor core (src/) knows transports only through struct feed and
 * the table src/main.c hands it (feed_register_transports): src/ includes
 * nothing from remote/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feed-launch.h"
#include "feed-srun.h"
#include "feed.h"
#include "ladder.h"
#include "rconf.h"
#include "textsafe.h"
#include "xmalloc.h"

/*
 * The registry of remote transports.  How to add one: its file
 * (remote/feed-NAME.c) with a constructor, an optional usable() check
 * (their prototypes in ladder.h), and a row here whose .what is its line
 * in --help (keep it under 58 columns).  The order of the FEED_T_LADDER
 * ones is the ladder's: cheapest per node first.  The rest of the ladder
 * is the rows' data too: FEED_T_SSH marks the SSH rungs whose refusal of
 * the user sends a node to a launcher (FEED_T_LAUNCHER, which --explain
 * reports as one) whose .takeover says it serves the node's job (the
 * first that does, in row order: srun, then the other schedulers'
 * shells, feed-ssh.c's fssh_launchers[]), and .first a transport that
 * takes a whole large job before any SSH rung.  A launcher row of
 * feed-ssh.c is its FSSH_ROW there, FEED_LAUNCH_ROW in feed-launch.h and
 * a row here.
 */
const struct feed_transport feed_transports[] = {
	{ .name = "libssh2", .open = feed_new_libssh2,
	    .usable = feed_libssh2_usable, .flags = FEED_T_LADDER | FEED_T_SSH,
	    .what = "one libssh2 session per node, in this process" },
	{ .name = "ssh", .open = feed_new_ssh,
	    .flags = FEED_T_LADDER | FEED_T_SSH,
	    .what = "the system OpenSSH client, one ssh process per node" },
	{ .name = "srun", .open = feed_new_srun, .usable = feed_srun_usable,
	    .flags = FEED_T_LADDER | FEED_T_LAUNCHER, .what =
	    "one srun for the whole Slurm job, through Slurm's own tree",
	    .first = feed_srun_first, .takeover = feed_srun_ladder },
	{ .name = "oarsh", .open = feed_new_oarsh, .usable = feed_oarsh_usable,
	    .flags = FEED_T_LADDER | FEED_T_LAUNCHER, .what =
	    "OAR's oarsh, one per node (the job's key file or its id)",
	    .takeover = feed_oarsh_takeover },
	{ .name = "blaunch", .open = feed_new_blaunch,
	    .usable = feed_blaunch_usable,
	    .flags = FEED_T_LADDER | FEED_T_LAUNCHER,
	    .what = "LSF's blaunch, one per node, from within the job",
	    .takeover = feed_blaunch_takeover },
	{ .name = "pbs_tmrsh", .open = feed_new_pbs_tmrsh,
	    .usable = feed_pbs_tmrsh_usable,
	    .flags = FEED_T_LADDER | FEED_T_LAUNCHER,
	    .what = "PBS's pbs_tmrsh, one per node, within the job",
	    .takeover = feed_pbs_tmrsh_takeover },
	{ .name = "flux", .open = feed_new_flux, .usable = feed_flux_usable,
	    .flags = FEED_T_LADDER | FEED_T_LAUNCHER,
	    .what = "Flux's flux proxy JOB flux exec -r RANK, one per node",
	    .takeover = feed_flux_takeover },
	{ .name = NULL },
};

int
feed_transport_has(const char *name, int flag)
{
	const struct feed_transport	*t;

	for (t = feed_transports; name != NULL && t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return (t->flags & flag) != 0;
	return 0;
}

const char *
feed_transports_with(int flag, char *buf, size_t bufsz)
{
	const struct feed_transport	*t;
	size_t				 n = 0;

	if (bufsz == 0)
		return buf;
	buf[0] = '\0';
	for (t = feed_transports; t->name != NULL && n < bufsz; t++)
		if (t->flags & flag)
			n += (size_t)snprintf(buf + n, bufsz - n, "%s%s",
			    n > 0 ? ", " : "", t->name);
	return buf;
}

/* The ladder transport after name, NULL at the end. */
static const struct feed_transport *
feed_ladder_after(const char *name)
{
	const struct feed_transport	*t = feed_transport_find(name);

	if (t == NULL)
		return NULL;
	for (t++; t->name != NULL; t++) {
		if (t->flags & FEED_T_LADDER)
			return t;
	}
	return NULL;
}

/*
 * The ladder's decision after transport cur ended for a node.  Here is
 * where a launcher transport goes: "SSH refused (FEED_FAIL_DENIED) ->
 * the scheduler's launcher".
 */
const char *
feed_ladder_next(const struct rconf *rc, const char *host, const char *cur,
    enum feed_fail fail, const char *reason, char *why, size_t whysz)
{
	const struct feed_transport	*next, *t;
	const char			*next_name;

	if (fail == FEED_FAIL_NONE || (next = feed_ladder_after(cur)) == NULL)
		return NULL;
	/* OpenSSH signs RSA with rsa-sha2; with other keys it would be
	 * refused as well (what else it could use, certificates, GSSAPI,
	 * host-based, was seen before libssh2 started: usable()). */
	if (strcmp(cur, "libssh2") == 0 && fail == FEED_FAIL_AUTH &&
	    feed_libssh2_rsa_why(rc, host, why, whysz))
		return next->name;
	if (strcmp(cur, "libssh2") == 0 && fail == FEED_FAIL_UNSUPPORTED) {
		snprintf(why, whysz, "libssh2: %s", reason);
		return next->name;
	}
	/* SSH refused the user, and no other SSH rung can help: the
	 * scheduler's launcher, the first whose takeover() says so (srun,
	 * feed-srun.c; the other schedulers' remote shells, feed-ssh.c). */
	for (t = feed_transports; t->name != NULL; t++)
		if ((t->flags & FEED_T_LADDER) && t->takeover != NULL &&
		    (next_name = t->takeover(rc, host, cur, fail, reason, why,
		    whysz)) != NULL)
			return next_name;
	return NULL;
}

#define FEED_AUTO_WHY_MAX	1024

/* The ladder's feed: the node's current transport's feed. */
struct feed_auto {
	const struct rconf	*rc;
	char			*host;
	struct feed		*cur;
	const char		*name;		/* cur's transport */
	int			 stopped;
	char			*why;		/* a last failure, and before:
						   FEED_AUTO_WHY_MAX, when
						   there is one */
};

static int
feed_auto_pollfds(struct feed *f, struct pollfd *p)
{
	struct feed_auto	*a = f->impl;

	return a->cur->ops->pollfds(a->cur, p);
}

static int
feed_auto_timeout(struct feed *f, uint64_t now)
{
	struct feed_auto	*a = f->impl;

	return a->cur->ops->timeout(a->cur, now);
}

/* Add a reason to the node's list of skipped transports. */
static void
feed_auto_skip(struct feed *f, const char *why)
{
	const char	*had = feed_skipped(f);
	char		*all;

	all = xasprintf("%s%s%s", had, *had != '\0' ? "; " : "", why);
	feed_set_skipped(f, all);
	free(all);
}

/* The current transport ended for good: move on when the ladder says. */
static void
feed_auto_climb(struct feed *f)
{
	struct feed_auto	*a = f->impl;
	const struct feed_transport *t;
	struct feed		*nf;
	const char		*next;
	char			 why[512], err[512];
	enum feed_fail		 fail;

	while (!a->stopped && a->cur->ops->done(a->cur) &&
	    (fail = feed_failure(a->cur)) != FEED_FAIL_NONE) {
		why[0] = '\0';
		next = feed_ladder_next(a->rc, a->host, a->name, fail,
		    feed_error(a->cur), why, sizeof(why));
		if (next == NULL || (t = feed_transport_find(next)) == NULL)
			return;
		err[0] = '\0';
		if ((nf = t->open(a->rc, a->host, err, sizeof(err))) ==
		    NULL) {
			/* Stay failed, and say why it could not move. */
			rconf_log(a->rc, "%s: cannot move to %s: %s", a->host,
			    next, err);
			snprintf(why, sizeof(why), "%s: %s", next, err);
			feed_auto_skip(f, why);
			return;
		}
		rconf_log(a->rc, "%s: moves from %s to %s: %s", a->host,
		    a->name, next, why);
		feed_auto_skip(f, why);
		feed_free(a->cur);
		a->cur = nf;
		a->name = t->name;
	}
}

static void
feed_auto_step(struct feed *f, uint64_t now, const struct pollfd *p, int n)
{
	struct feed_auto	*a = f->impl;

	a->cur->ops->step(a->cur, now, p, n);
	feed_auto_climb(f);
}

static ssize_t
feed_auto_read(struct feed *f, void *buf, size_t size)
{
	struct feed_auto	*a = f->impl;

	return a->cur->ops->read(a->cur, buf, size);
}

static void
feed_auto_stop(struct feed *f)
{
	struct feed_auto	*a = f->impl;

	a->stopped = 1;
	a->cur->ops->stop(a->cur);
}

static int
feed_auto_done(struct feed *f)
{
	struct feed_auto	*a = f->impl;

	return a->cur->ops->done(a->cur);
}

/* A failure for good on the last transport says what the cheaper ones
 * said too. */
static enum feed_phase
feed_auto_phase(struct feed *f, const char **why)
{
	struct feed_auto	*a = f->impl;
	enum feed_phase		 ph;

	ph = feed_phase(a->cur, why);
	if ((ph == FEED_REFUSED || ph == FEED_FAILED) &&
	    *feed_skipped(f) != '\0') {
		if (a->why == NULL)
			a->why = xmalloc(FEED_AUTO_WHY_MAX);
		snprintf(a->why, FEED_AUTO_WHY_MAX, "%s (%s)", *why,
		    feed_skipped(f));
		*why = a->why;
	}
	return ph;
}

static enum feed_fail
feed_auto_failure(struct feed *f)
{
	struct feed_auto	*a = f->impl;

	return feed_failure(a->cur);
}

static int
feed_auto_set_interval(struct feed *f, unsigned ms)
{
	struct feed_auto	*a = f->impl;

	return feed_set_interval(a->cur, ms);
}

static struct feed_exec *
feed_auto_exec_start(struct feed *f, const char *cmd, size_t cap,
    unsigned timeout_ms, char *err, size_t errsz)
{
	struct feed_auto	*a = f->impl;

	return feed_exec_start(a->cur, cmd, cap, timeout_ms, err, errsz);
}

static const char *
feed_auto_transport(struct feed *f)
{
	struct feed_auto	*a = f->impl;

	return feed_transport(a->cur);
}

static void
feed_auto_free(struct feed *f)
{
	struct feed_auto	*a = f->impl;

	feed_free(a->cur);
	free(a->host);
	free(a->why);
	free(a);
}

static const struct feed_ops feed_auto_ops = {
	.name = "auto",
	.pollfds = feed_auto_pollfds,
	.timeout = feed_auto_timeout,
	.step = feed_auto_step,
	.read = feed_auto_read,
	.stop = feed_auto_stop,
	.done = feed_auto_done,
	.phase = feed_auto_phase,
	.failure = feed_auto_failure,
	.set_interval = feed_auto_set_interval,
	.exec_start = feed_auto_exec_start,
	.transport = feed_auto_transport,
	.free = feed_auto_free,
};

/* The ladder: the first transport that says it can serve the node. */
static struct feed *
feed_new_auto(const struct rconf *rc, const char *host, char *err,
    size_t errsz)
{
	const struct feed_transport	*t;
	struct feed_auto		*a;
	struct feed			*f, *cur = NULL;
	char				 why[512], skipped[512];
	size_t				 n = 0;

	/* A job too large for one SSH session per node starts on the
	 * transport that says so (srun). */
	for (t = feed_transports; t->name != NULL; t++) {
		skipped[0] = '\0';
		if ((t->flags & FEED_T_LADDER) && t->first != NULL &&
		    t->first(rc, skipped, sizeof(skipped)) &&
		    (cur = t->open(rc, host, err, errsz)) != NULL)
			goto found;
	}
	skipped[0] = '\0';
	for (t = feed_transports; t->name != NULL; t++) {
		if (!(t->flags & FEED_T_LADDER))
			continue;
		why[0] = '\0';
		if (t->usable != NULL && t->usable(rc, host, why,
		    sizeof(why)) != 0) {
			rconf_log(rc, "%s: skips %s: %s", host, t->name, why);
			n += (size_t)snprintf(skipped + n, n < sizeof(skipped) ?
			    sizeof(skipped) - n : 0, "%s%s", n > 0 ? "; " : "",
			    why);
			if (n >= sizeof(skipped))
				n = sizeof(skipped) - 1;
			continue;
		}
		if ((cur = t->open(rc, host, err, errsz)) != NULL)
			break;
		rconf_log(rc, "%s: %s: %s", host, t->name, err);
		n += (size_t)snprintf(skipped + n, n < sizeof(skipped) ?
		    sizeof(skipped) - n : 0, "%s%s: %s", n > 0 ? "; " : "",
		    t->name, err);
		if (n >= sizeof(skipped))
			n = sizeof(skipped) - 1;
	}
	if (cur == NULL) {
		if (t->name == NULL)
			snprintf(err, errsz, "no transport reaches %s: %s",
			    host, skipped);
		return NULL;
	}
found:
	a = xcalloc(1, sizeof(*a));
	a->rc = rc;
	a->host = xstrdup(host);
	a->cur = cur;
	a->name = t->name;
	f = feed_alloc(&feed_auto_ops, a);
	feed_set_skipped(f, skipped);
	return f;
}

struct feed *
feed_new_remote(const char *transport, const struct rconf *rc,
    const char *host, char *err, size_t errsz)
{
	const struct feed_transport	*t;

	if (transport == NULL || strcmp(transport, "auto") == 0)
		return feed_new_auto(rc, host, err, errsz);
	if ((t = feed_transport_find(transport)) == NULL) {
		snprintf(err, errsz, "unknown transport \"%s\" (%s)",
		    transport, feed_transport_names());
		return NULL;
	}
	return t->open(rc, host, err, errsz);
}
