/* SPDX-License-Identifier: ISC */
/*
 * feed: what every transport shares (the phase words, the side-command
 * calls), the local transport, and the lookup of the registered remote
 * transports (their registry and ladder: remote/ladder.c).
 *
 * The local transport wraps a probe child (feed-local.c) and adds what
 * the loop needs from it: a grace period after a stop before SIGKILL,
 * reaping, and an account of how the child ended.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "feed-local.h"
#include "feed.h"
#include "log.h"
#include "textsafe.h"
#include "xmalloc.h"

#define FEED_LOCAL_GRACE_MS	2000	/* after a stop, before SIGKILL */

struct feed_lc {
	struct feed_local	*fl;
	uint64_t		 kill_at;	/* 0: not stopping */
	int			 stopped;
	int			 killed;
	int			 ended;		/* stdout reached EOF */
	int			 reaped;
	int			 status;
	struct feed_exec	*x;		/* a side command, NULL */
	char			 state[192];
	char			 error[384];
};

static int
feed_lc_pollfds(struct feed *f, struct pollfd *p)
{
	struct feed_lc	*lc = f->impl;
	int		 n = 0, fd;

	if ((fd = feed_local_out_fd(lc->fl)) >= 0) {
		p[n].fd = fd;
		p[n++].events = POLLIN;
	}
	if ((fd = feed_local_err_fd(lc->fl)) >= 0) {
		p[n].fd = fd;
		p[n++].events = POLLIN;
	}
	if (lc->x != NULL)
		n += feed_cmd_pollfds(lc->x, p + n);
	return n;
}

static int
feed_lc_timeout(struct feed *f, uint64_t now)
{
	struct feed_lc	*lc = f->impl;
	int		 t;

	if (lc->x != NULL && (t = feed_cmd_timeout(lc->x, now)) >= 0)
		return t;
	if (lc->reaped)
		return -1;
	/* A child that closed its output is reaped on the next wake-up;
	 * SIGCHLD wakes the loop, this is the fallback. */
	if (lc->ended && feed_local_err_fd(lc->fl) < 0)
		return 100;
	if (lc->kill_at != 0 && !lc->killed)
		return lc->kill_at <= now ? 0 : (int)(lc->kill_at - now);
	return -1;
}

/* The child is gone: say how, if that was not what we asked for. */
static void
feed_lc_judge(struct feed_lc *lc)
{
	const char	*why = feed_local_last_err(lc->fl);
	char		 how[128];

	feed_local_describe(lc->status, how, sizeof(how));
	snprintf(lc->state, sizeof(lc->state), "probe %s", how);
	if (lc->stopped || lc->status == 0)
		return;
	snprintf(lc->error, sizeof(lc->error), "probe %s%s%s", how,
	    *why != '\0' ? ": " : "", why);
	text_clean_inplace(lc->error);
}

static void
feed_lc_step(struct feed *f, uint64_t now, const struct pollfd *p, int n)
{
	struct feed_lc	*lc = f->impl;
	int		 i;

	if (lc->x != NULL) {
		feed_cmd_step(lc->x, now);
		feed_cmd_reap(&lc->x);
	}
	for (i = 0; i < n; i++) {
		if (p[i].revents != 0 &&
		    p[i].fd == feed_local_err_fd(lc->fl))
			feed_local_read_err(lc->fl);
	}
	if (lc->kill_at != 0 && !lc->killed && now >= lc->kill_at) {
		log_warn("probe pid %d did not stop; killing it",
		    (int)feed_local_pid(lc->fl));
		feed_local_kill(lc->fl, SIGKILL);
		lc->killed = 1;
	}
	if (!lc->reaped && lc->ended && feed_local_err_fd(lc->fl) < 0 &&
	    feed_local_reap(lc->fl, &lc->status)) {
		lc->reaped = 1;
		feed_lc_judge(lc);
	}
}

static ssize_t
feed_lc_read(struct feed *f, void *buf, size_t size)
{
	struct feed_lc	*lc = f->impl;
	ssize_t		 n;

	if (lc->ended)
		return 0;
	n = feed_local_read(lc->fl, buf, size);
	if (n > 0)
		return n;
	if (n == -1)
		return 0;
	if (n == -2)
		snprintf(lc->error, sizeof(lc->error), "reading from the "
		    "probe: %s", strerror(errno));
	lc->ended = 1;
	/* It closed its output, so it is ending: reap it, or kill it if it
	 * lingers. */
	if (lc->kill_at == 0)
		lc->kill_at = clock_mono_ms() + FEED_LOCAL_GRACE_MS;
	return -1;
}

static void
feed_lc_stop(struct feed *f)
{
	struct feed_lc	*lc = f->impl;

	if (lc->stopped)
		return;
	lc->stopped = 1;
	feed_local_stop(lc->fl);
	if (lc->kill_at == 0)
		lc->kill_at = clock_mono_ms() + FEED_LOCAL_GRACE_MS;
}

static int
feed_lc_done(struct feed *f)
{
	struct feed_lc	*lc = f->impl;

	return lc->reaped;
}

static enum feed_phase
feed_lc_phase(struct feed *f, const char **why)
{
	struct feed_lc	*lc = f->impl;

	*why = "";
	if (lc->reaped) {
		if (lc->error[0] != '\0') {
			*why = lc->error;
			return FEED_FAILED;
		}
		/* "probe exited with status 0": its word when it ended. */
		*why = lc->state;
		return FEED_CLOSED;
	}
	return lc->stopped ? FEED_STOPPING : FEED_LIVE;
}

static int
feed_lc_set_interval(struct feed *f, unsigned ms)
{
	struct feed_lc	*lc = f->impl;
	char		 line[64];

	if (lc->stopped || lc->ended)
		return -1;
	snprintf(line, sizeof(line), "interval %u\n", ms);
	return feed_local_control(lc->fl, line);
}

/* A side command here: a child of our own, polled with the probe's. */
static struct feed_exec *
feed_lc_exec_start(struct feed *f, const char *cmd, size_t cap,
    unsigned timeout_ms, char *err, size_t errsz)
{
	struct feed_lc	*lc = f->impl;

	if (lc->x != NULL && !feed_exec_done(lc->x)) {
		snprintf(err, errsz, "a command is running already");
		return NULL;
	}
	feed_cmd_disown(&lc->x);
	lc->x = feed_cmd_start(NULL, cmd, cap, timeout_ms, err, errsz);
	return lc->x;
}

static void
feed_lc_free(struct feed *f)
{
	struct feed_lc	*lc = f->impl;

	feed_cmd_disown(&lc->x);
	feed_local_free(lc->fl);
	free(lc);
}

static const struct feed_ops feed_local_ops = {
	.name = "local",
	.pollfds = feed_lc_pollfds,
	.timeout = feed_lc_timeout,
	.step = feed_lc_step,
	.read = feed_lc_read,
	.stop = feed_lc_stop,
	.done = feed_lc_done,
	.phase = feed_lc_phase,
	.set_interval = feed_lc_set_interval,
	.exec_start = feed_lc_exec_start,
	.free = feed_lc_free,
};

struct feed *
feed_new_local(const char *path, char *const argv[], char *err,
    size_t errsz)
{
	struct feed_lc	*lc;
	struct feed_local *fl;

	if ((fl = feed_local_start(path, argv, err, errsz)) == NULL)
		return NULL;
	lc = xcalloc(1, sizeof(*lc));
	lc->fl = fl;
	return feed_alloc(&feed_local_ops, lc);
}


struct feed *
feed_alloc(const struct feed_ops *ops, void *impl)
{
	struct feed	*f;

	f = xcalloc(1, sizeof(*f));
	f->ops = ops;
	f->impl = impl;
	return f;
}

void
feed_free(struct feed *f)
{
	if (f == NULL)
		return;
	f->ops->free(f);
	free(f->skipped);
	free(f->statebuf);
	free(f);
}

/* The words for each phase; lost, refused and failed add ": reason". */
static const char *const feed_words[FEED_NPHASES] = {
	"waiting", "connecting", "pushing", "starting", "live", "stopping",
	"lost", "refused", "failed", "closed"
};

const char *
feed_phase_word(enum feed_phase ph)
{
	return (unsigned)ph < FEED_NPHASES ? feed_words[ph] : "?";
}

enum feed_phase
feed_phase(struct feed *f, const char **why)
{
	const char	*w = NULL;
	enum feed_phase	 ph;

	ph = f->ops->phase(f, &w);
	*why = w != NULL ? w : "";
	return ph;
}

const char *
feed_state(struct feed *f)
{
	const char	*why;
	enum feed_phase	 ph = feed_phase(f, &why);

	switch (ph) {
	case FEED_LOST:
	case FEED_REFUSED:
	case FEED_FAILED:
		if (*why == '\0')
			return feed_phase_word(ph);
		if (f->statebuf == NULL)
			f->statebuf = xmalloc(FEED_STATE_MAX);
		snprintf(f->statebuf, FEED_STATE_MAX, "%s: %s",
		    feed_phase_word(ph), why);
		return f->statebuf;
	case FEED_CLOSED:
		/* A local probe's "probe exited with status 0". */
		return *why != '\0' ? why : feed_phase_word(ph);
	default:
		return feed_phase_word(ph);
	}
}

const char *
feed_error(struct feed *f)
{
	const char	*why;
	enum feed_phase	 ph;

	if (!f->ops->done(f))
		return "";
	ph = feed_phase(f, &why);
	if (ph == FEED_REFUSED)
		return feed_state(f);
	if (ph == FEED_FAILED)
		return *why != '\0' ? why : "failed";
	return "";
}

enum feed_fail
feed_failure(struct feed *f)
{
	const char	*why;
	enum feed_phase	 ph = feed_phase(f, &why);

	if (ph != FEED_REFUSED && ph != FEED_FAILED)
		return FEED_FAIL_NONE;
	return f->ops->failure != NULL ? f->ops->failure(f) :
	    FEED_FAIL_OTHER;
}

const char *
feed_transport(struct feed *f)
{
	if (f->ops->transport != NULL)
		return f->ops->transport(f);
	return f->ops->name;
}

const char *
feed_skipped(const struct feed *f)
{
	return f->skipped != NULL ? f->skipped : "";
}

void
feed_set_skipped(struct feed *f, const char *why)
{
	free(f->skipped);
	f->skipped = NULL;
	if (*why == '\0')
		return;
	f->skipped = xmalloc(FEED_SKIPPED_MAX);
	snprintf(f->skipped, FEED_SKIPPED_MAX, "%s", why);
	text_clean_inplace(f->skipped);
}

int
feed_set_interval(struct feed *f, unsigned ms)
{
	if (f->ops->set_interval == NULL)
		return -1;
	return f->ops->set_interval(f, ms);
}

struct feed_exec *
feed_exec_start(struct feed *f, const char *cmd, size_t cap,
    unsigned timeout_ms, char *err, size_t errsz)
{
	if (f->ops->exec_start == NULL) {
		snprintf(err, errsz, "the %s transport cannot run commands",
		    feed_transport(f));
		return NULL;
	}
	return f->ops->exec_start(f, cmd, cap, timeout_ms, err, errsz);
}

int
feed_exec_done(const struct feed_exec *x)
{
	return x->ops->done(x);
}

const char *
feed_exec_out(const struct feed_exec *x, size_t *len)
{
	return x->ops->out(x, len);
}

const char *
feed_exec_err(const struct feed_exec *x, size_t *len)
{
	return x->ops->err(x, len);
}

int
feed_exec_status(const struct feed_exec *x)
{
	return x->ops->status(x);
}

const char *
feed_exec_why(const struct feed_exec *x)
{
	return x->ops->why(x);
}

void
feed_exec_free(struct feed_exec *x)
{
	if (x != NULL)
		x->ops->free(x);
}

/*
 * The registry of transports is remote/'s (remote/ladder.c); src/main.c
 * hands it over at start-up, so that the monitor core names no transport.
 */
static const struct feed_transport *feed_registry;

void
feed_register_transports(const struct feed_transport *t)
{
	feed_registry = t;
}

const struct feed_transport *
feed_transport_find(const char *name)
{
	const struct feed_transport	*t;

	for (t = feed_registry; t != NULL && t->name != NULL; t++) {
		if (strcmp(t->name, name) == 0)
			return t;
	}
	return NULL;
}

const char *
feed_transport_names(void)
{
	static char			 buf[256];
	const struct feed_transport	*t;
	size_t				 n;

	n = (size_t)snprintf(buf, sizeof(buf), "auto");
	for (t = feed_registry; t != NULL && t->name != NULL &&
	    n < sizeof(buf); t++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", %s",
		    t->name);
	return buf;
}
