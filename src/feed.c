/*
 * feed: the two transports behind struct feed_ops.  The local one wraps a
 * probe child (feed-local.c) and adds what the loop needs from it: a grace
 * period after a stop before SIGKILL, reaping, and an account of how the
 * child ended.  The SSH one maps the operations onto remote/rsess.c,
 * which keeps its own states, timers, reconnects and refusals.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feed-local.h"
#include "feed.h"
#include "feed-srun.h"
#include "log.h"
#include "rsess.h"
#include "textsafe.h"
#include "xmalloc.h"

#define FEED_LOCAL_GRACE_MS	2000	/* after a stop, before SIGKILL */

static uint64_t
feed_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct feed_lc {
	struct feed_local	*fl;
	uint64_t		 kill_at;	/* 0: not stopping */
	int			 stopped;
	int			 killed;
	int			 ended;		/* stdout reached EOF */
	int			 reaped;
	int			 status;
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
	return n;
}

static int
feed_lc_timeout(struct feed *f, uint64_t now)
{
	struct feed_lc	*lc = f->impl;

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
		lc->kill_at = feed_now_ms() + FEED_LOCAL_GRACE_MS;
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
		lc->kill_at = feed_now_ms() + FEED_LOCAL_GRACE_MS;
}

static int
feed_lc_done(struct feed *f)
{
	struct feed_lc	*lc = f->impl;

	return lc->reaped;
}

static const char *
feed_lc_state(struct feed *f)
{
	struct feed_lc	*lc = f->impl;

	if (lc->reaped)
		return lc->state;
	return lc->stopped ? "stopping" : "live";
}

static const char *
feed_lc_error(struct feed *f)
{
	struct feed_lc	*lc = f->impl;

	return lc->error;
}

static void
feed_lc_free(struct feed *f)
{
	struct feed_lc	*lc = f->impl;

	feed_local_free(lc->fl);
	free(lc);
}

static const struct feed_ops feed_local_ops = {
	"local", feed_lc_pollfds, feed_lc_timeout, feed_lc_step,
	feed_lc_read, feed_lc_stop, feed_lc_done, feed_lc_state,
	feed_lc_error, feed_lc_free
};

struct feed *
feed_new_local(const char *path, char *const argv[], char *err,
    size_t errsz)
{
	struct feed	*f;
	struct feed_lc	*lc;
	struct feed_local *fl;

	if ((fl = feed_local_start(path, argv, err, errsz)) == NULL)
		return NULL;
	lc = xcalloc(1, sizeof(*lc));
	lc->fl = fl;
	f = xcalloc(1, sizeof(*f));
	f->ops = &feed_local_ops;
	f->impl = lc;
	return f;
}

static int
feed_ssh_pollfds(struct feed *f, struct pollfd *p)
{
	rsess_pollfd(f->impl, p);
	return p->fd >= 0 ? 1 : 0;
}

static int
feed_ssh_timeout(struct feed *f, uint64_t now)
{
	return rsess_timeout(f->impl, now);
}

static void
feed_ssh_step(struct feed *f, uint64_t now, const struct pollfd *p, int n)
{
	if ((n > 0 && p[0].revents != 0) ||
	    rsess_timeout(f->impl, now) == 0)
		rsess_step(f->impl, now);
}

static ssize_t
feed_ssh_read(struct feed *f, void *buf, size_t size)
{
	return rsess_read(f->impl, buf, size);
}

static void
feed_ssh_stop(struct feed *f)
{
	rsess_stop(f->impl);
}

static int
feed_ssh_done(struct feed *f)
{
	return rsess_phase(f->impl) == RS_DEAD;
}

static const char *
feed_ssh_state(struct feed *f)
{
	return rsess_state(f->impl);
}

static const char *
feed_ssh_error(struct feed *f)
{
	const char	*s = rsess_state(f->impl);

	if (rsess_phase(f->impl) != RS_DEAD || strcmp(s, "closed") == 0)
		return "";
	return s;
}

static void
feed_ssh_free(struct feed *f)
{
	rsess_close(f->impl);
}

static const struct feed_ops feed_ssh_ops = {
	"ssh", feed_ssh_pollfds, feed_ssh_timeout, feed_ssh_step,
	feed_ssh_read, feed_ssh_stop, feed_ssh_done, feed_ssh_state,
	feed_ssh_error, feed_ssh_free
};

struct feed *
feed_new_ssh(const struct rconf *rc, const char *host)
{
	struct feed	*f;

	f = xcalloc(1, sizeof(*f));
	f->ops = &feed_ssh_ops;
	f->impl = rsess_new(rc, host);
	return f;
}

int
feed_set_interval(struct feed *f, unsigned ms)
{
	struct feed_lc	*lc;
	char		 line[64];

	if (f->ops == &feed_ssh_ops) {
		rsess_set_interval(f->impl, ms);
		return 0;
	}
	if (feed_is_srun(f))
		return feed_srun_set_interval(f, ms);
	if (f->ops == &feed_local_ops) {
		lc = f->impl;
		if (lc->stopped || lc->ended)
			return -1;
		snprintf(line, sizeof(line), "interval %u\n", ms);
		return feed_local_control(lc->fl, line);
	}
	return -1;
}

struct rsess *
feed_rsess(struct feed *f)
{
	return f != NULL && f->ops == &feed_ssh_ops ? f->impl : NULL;
}

void
feed_free(struct feed *f)
{
	if (f == NULL)
		return;
	f->ops->free(f);
	free(f);
}
