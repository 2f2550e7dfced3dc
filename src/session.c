/* SPDX-License-Identifier: ISC */
/*
 * session: the poll loop over all nodes.  One process, one thread, one
 * poll() with one deadline: the earliest of every feed's timer, every
 * node's lost deadline and the hooks' own.  Signals arrive through a
 * self-pipe.  A node whose stream breaks is a failed node, shown and
 * reported; the others go on.
 *
 * Every byte is decoded as it comes (the UI's pause freezes only what it
 * draws: ui/ui.c).
 *
 * The nodes' descriptors live in one epoll set, and each node's wishes
 * (its descriptors, its next deadline, its state) are asked again only
 * after it was stepped or touched from outside (dirty): a pass costs what
 * the nodes that had I/O or a deadline cost, not a walk of a thousand
 * libssh2 sessions and a poll() over a thousand sockets.  The epoll
 * descriptor itself joins the poll() of the signal pipe and the hooks'
 * descriptors (the keyboard), which keeps the loop one poll() with one
 * deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "proto.h"
#include "session.h"
#include "stream.h"
#include "textsafe.h"
#include "xmalloc.h"

#define SESSION_READ_SIZE	65536
#define SESSION_READS_PER_WAKE	16	/* then let other nodes in */
#define SESSION_EXTRA_FDS	8
#define SESSION_QUIT_GRACE_MS	3000	/* after a quit, before giving up */
#define SESSION_STATE_MAX	256

struct snode {
	char		*name;
	struct feed	*feed;
	struct stream	*st;
	int		 st_ended;	/* the current stream ended */
	int		 refused;	/* its decoder refused a frame */
	int		 stopping;
	int		 failed;
	int		 lost;
	int		 silent;	/* lost for its silence (said once) */
	int		 down;		/* lost, not live since: a reconnect
					   is still lost (D8) */
	unsigned	 tries;		/* reconnects begun since lost */
	enum feed_phase	 rawph;		/* the feed's phase last seen */
	int		 got_data;	/* the current stream sent bytes */
	char		*error;
	uint64_t	 samples;
	uint64_t	 last_data;	/* monotonic ms */
	char		 state[SESSION_STATE_MAX];
	enum feed_phase	 phase;		/* the state's, from the feed */
	char		 transport[32];	/* the feed's, as last told */
	char		*skipped;	/* why cheaper ones were skipped */
	/* What the loop last asked of the feed (session_ask). */
	struct pollfd	 pf[FEED_MAX_FDS];	/* registered in the set */
	int		 npf;
	int		 pf_live;	/* pf registered while live */
	uint64_t	 due;		/* step by then; UINT64_MAX: no need */
	int		 done;		/* the feed finished for good */
	int		 dirty;		/* ask again before the next poll */
	int		 ready;		/* pf has revents: step it */
};

struct session {
	struct session_conf	 conf;
	struct session_hooks	 hooks;
	struct snode		*nodes;
	int			 nnodes;
	int			 quit;
	uint64_t		 quit_at;
	int			 linger;	/* probes stopped, loop on */
	uint8_t			*buf;
	uint64_t		 last_pass;	/* when the nodes were stepped */
	int			 epfd;		/* every node's descriptors */
	int			*fdowner;	/* fd -> node that registered it */
	int			 nfdowner;
	int			 all_dirty;	/* ask every node again */
};

/*
 * With many nodes, every probe's sample arriving on its own woke the loop
 * once per node and interval, and each wake-up polls and steps every node:
 * O(nodes^2) a second (36% of a core at 1024 nodes at 1 Hz).  Once nearly
 * all nodes stream, the loop lets arrivals gather for a tenth of the
 * interval (at most 100 ms) between passes, so one pass serves many nodes.
 * Signals and the UI's descriptors (keys) still wake it at once, and a
 * feed with work due now (buffered data, a timer) is not held back.
 */
#define SESSION_PACE_NODES	64
#define SESSION_PACE_MAX_MS	100

static volatile sig_atomic_t	 session_signalled;
static int			 session_sigfd[2] = { -1, -1 };

static void
session_on_signal(int sig)
{
	int	save = errno;
	char	c = (char)sig;
	ssize_t	n;

	if (sig != SIGCHLD)
		session_signalled = sig;
	/* A full pipe already holds a wake-up. */
	n = write(session_sigfd[1], &c, 1);
	(void)n;
	errno = save;
}

static void
session_signals(void)
{
	struct sigaction	sa, old;

	if (session_sigfd[0] >= 0)
		return;
	if (pipe2(session_sigfd, O_CLOEXEC | O_NONBLOCK) != 0)
		fatal("pipe: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = session_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* nohup: a hangup ignored at the start stays ignored. */
	if (sigaction(SIGHUP, NULL, &old) != 0 || old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* A node costs a socket or two pipes: take every descriptor the hard limit
 * allows, so a thousand nodes do not fail on the soft limit of 1024. */
static void
session_raise_nofile(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		log_debug("setrlimit NOFILE: %s", strerror(errno));
}

struct session *
session_new(const struct session_conf *conf, const struct session_hooks *h)
{
	struct session	*s;

	s = xcalloc(1, sizeof(*s));
	s->conf = *conf;
	if (h != NULL)
		s->hooks = *h;
	s->buf = xmalloc(SESSION_READ_SIZE);
	s->epfd = -1;
	session_signals();
	session_raise_nofile();
	return s;
}

/* Set a node's state, its phase and the text, and tell the hook when it
 * changed: the phase comes from where the text was made, so nobody needs
 * to parse the text back. */
static void
session_set_state(struct session *s, int i, enum feed_phase ph,
    const char *st)
{
	struct snode	*nd = &s->nodes[i];
	char		 old[SESSION_STATE_MAX], clean[SESSION_STATE_MAX];

	text_clean(clean, sizeof(clean), st);
	if (strcmp(nd->state, clean) == 0)
		return;
	snprintf(old, sizeof(old), "%s", nd->state);
	snprintf(nd->state, sizeof(nd->state), "%s", clean);
	nd->phase = ph;
	log_debug("%s: state %s", nd->name, nd->state);
	if (s->hooks.state != NULL)
		s->hooks.state(s->hooks.arg, s, i, old, nd->state);
}

/* A node failed for good: keep the reason, stop its probe. */
static void
session_fail(struct session *s, int i, const char *why)
{
	struct snode	*nd = &s->nodes[i];
	char		 st[SESSION_STATE_MAX];

	if (!nd->failed) {
		nd->failed = 1;
		/* Node text (probe stderr, exit signal names): kept clean. */
		nd->error = text_clean_inplace(xstrdup(why));
		snprintf(st, sizeof(st), "failed: %s", nd->error);
		session_set_state(s, i, FEED_FAILED, st);
	}
	if (nd->feed != NULL && !nd->stopping) {
		nd->stopping = 1;
		nd->feed->ops->stop(nd->feed);
	}
}

int
session_add(struct session *s, const char *name, struct feed *f,
    const char *why)
{
	struct snode	*nd;
	const char	*reason;
	int		 i = s->nnodes;

	s->nodes = xreallocarray(s->nodes, (size_t)s->nnodes + 1,
	    sizeof(*s->nodes));
	nd = &s->nodes[s->nnodes++];
	memset(nd, 0, sizeof(*nd));
	nd->name = xstrdup(name);
	nd->feed = f;
	nd->skipped = xstrdup("");
	nd->st = stream_new(name);
	model_fix_name(stream_model(nd->st));
	nd->last_data = clock_mono_ms();
	nd->dirty = 1;
	nd->due = UINT64_MAX;
	nd->phase = FEED_CONNECTING;
	if (f == NULL)
		session_fail(s, i, why != NULL ? why : "cannot start");
	else
		session_set_state(s, i, feed_phase(f, &reason), feed_state(f));
	return i;
}

int
session_set_interval(struct session *s, double secs)
{
	unsigned	ms = (unsigned)(secs * 1000 + 0.5);
	int		i, n = 0;

	s->conf.interval = secs;
	/* Lost after two and a half silent intervals, at least a second,
	 * as main sets it at the start. */
	s->conf.lost_ms = ms * 5 / 2 < 1000 ? 1000 : ms * 5 / 2;
	s->all_dirty = 1;
	for (i = 0; i < s->nnodes; i++) {
		struct snode *nd = &s->nodes[i];
		if (nd->feed == NULL || nd->stopping || nd->failed ||
		    nd->feed->ops->done(nd->feed))
			continue;
		if (feed_set_interval(nd->feed, ms) == 0)
			n++;
		/* Silence is judged from now: the new interval may be
		 * longer than the time since the last sample. */
		if (!nd->lost)
			nd->last_data = clock_mono_ms();
	}
	log_debug("interval %u ms: %d probes told", ms, n);
	return n;
}

struct feed *
session_node_feed(struct session *s, int i)
{
	if (i < 0 || i >= s->nnodes)
		return NULL;
	/* The caller may give it work (a backtrace): ask it again. */
	s->nodes[i].dirty = 1;
	return s->nodes[i].feed;
}

/* Ask every probe to end. */
static void
session_stop_all(struct session *s)
{
	int	i;

	s->all_dirty = 1;
	for (i = 0; i < s->nnodes; i++) {
		if (s->nodes[i].feed != NULL && !s->nodes[i].stopping) {
			s->nodes[i].stopping = 1;
			s->nodes[i].feed->ops->stop(s->nodes[i].feed);
		}
	}
}

void
session_quit(struct session *s)
{
	if (s->quit)
		return;
	s->quit = 1;
	s->quit_at = clock_mono_ms() + SESSION_QUIT_GRACE_MS;
	session_stop_all(s);
}

void
session_stop_probes(struct session *s)
{
	if (s->quit || s->linger)
		return;
	s->linger = 1;
	session_stop_all(s);
}

/* Decode a node's bytes and tell the hooks what they held. */
static void
session_decode(struct session *s, int i, const uint8_t *buf, size_t n)
{
	struct snode	*nd = &s->nodes[i];
	char		 err[256], msg[300];
	int		 t;

	if (nd->failed)
		return;
	stream_feed(nd->st, buf, n);
	while ((t = stream_next(nd->st)) > 0) {
		/* A probe's first sample (seq 0) is the baseline of its
		 * rates: decoded into the model, neither shown nor counted
		 * (the probe sends the next one soon, PROTOCOL.md). */
		if (t == MSG_SAMPLE && stream_model(nd->st)->seq == 0)
			continue;
		if (t == MSG_SAMPLE)
			nd->samples++;
		if (s->hooks.message != NULL && !(nd->stopping &&
		    t == MSG_SAMPLE && s->conf.count > 0 &&
		    nd->samples > (uint64_t)s->conf.count))
			s->hooks.message(s->hooks.arg, s, i, t);
		if (t == MSG_SAMPLE && s->conf.count > 0 &&
		    nd->samples == (uint64_t)s->conf.count &&
		    !nd->stopping) {
			nd->stopping = 1;
			nd->feed->ops->stop(nd->feed);
		}
	}
	if (t < 0) {
		nd->refused = 1;
		stream_error(nd->st, err, sizeof(err));
		snprintf(msg, sizeof(msg), "probe stream: %s", err);
		session_fail(s, i, msg);
	}
}

/* The node's probe stream ended. */
static void
session_stream_end(struct session *s, int i)
{
	struct snode	*nd = &s->nodes[i];

	if (!nd->st_ended && stream_finish(nd->st) < 0 && !nd->stopping)
		log_debug("%s: stream ended inside a frame", nd->name);
	nd->st_ended = 1;
}

static void	session_update_state(struct session *, int, uint64_t);

/* Move what a node's feed has into its decoder. */
static void
session_drain(struct session *s, int i, uint64_t now)
{
	struct snode	*nd = &s->nodes[i];
	ssize_t		 n;
	int		 k;

	for (k = 0; k < SESSION_READS_PER_WAKE; k++) {
		n = nd->feed->ops->read(nd->feed, s->buf, SESSION_READ_SIZE);
		if (n == 0)
			return;
		if (n < 0) {
			session_stream_end(s, i);
			nd->got_data = 0;
			return;
		}
		if (nd->failed)
			continue;	/* draining a broken stream */
		if (nd->st_ended) {
			/* A reconnect: a new probe, a new HELLO. */
			stream_free(nd->st);
			nd->st = stream_new(nd->name);
			model_fix_name(stream_model(nd->st));
			nd->st_ended = 0;
			nd->refused = 0;
			if (s->hooks.restart != NULL)
				s->hooks.restart(s->hooks.arg, s, i,
				    clock_wall_ms());
		}
		/* A stream's first bytes: its state ("live") goes out before
		 * the records they carry (a feed may go from connecting to
		 * delivering within one step). */
		if (!nd->got_data)
			session_update_state(s, i, now);
		nd->last_data = now;
		nd->got_data = 1;
		if (s->hooks.bytes != NULL)
			s->hooks.bytes(s->hooks.arg, s, i, clock_wall_ms(),
			    s->buf, (size_t)n);
		session_decode(s, i, s->buf, (size_t)n);
	}
}

/* The state people see: the feed's, or lost when a live feed is silent. */
static void
session_update_state(struct session *s, int i, uint64_t now)
{
	struct snode	*nd = &s->nodes[i];
	const char	*st, *err, *why;
	enum feed_phase	 ph;
	char		 buf[SESSION_STATE_MAX];

	if (nd->feed == NULL)
		return;
	if (nd->feed->ops->done(nd->feed)) {
		err = feed_error(nd->feed);
		if (*err != '\0' && !nd->failed && !s->quit && !s->linger)
			session_fail(s, i, err);
		else if (!nd->failed)
			session_set_state(s, i, feed_phase(nd->feed, &why),
			    feed_state(nd->feed));
		return;
	}
	if (nd->failed)
		return;
	st = feed_state(nd->feed);
	ph = feed_phase(nd->feed, &why);
	nd->lost = 0;
	/* A probe still starting (a slow login shell) is not lost: only a
	 * stream that delivered and then went silent. */
	if (ph == FEED_LIVE && !nd->stopping && nd->got_data &&
	    now - nd->last_data > s->conf.lost_ms) {
		snprintf(buf, sizeof(buf), "lost: no data for %.1f s",
		    (now - nd->last_data) / 1000.0);
		/* Report the moment it is lost, not every tenth. */
		if (!nd->silent)
			session_set_state(s, i, FEED_LOST, buf);
		nd->silent = 1;
		nd->lost = 1;
		nd->down = 1;
		return;
	}
	/* Lost for its silence, then its stream ended (the feed ended the
	 * client, not yet reaped): still lost until the feed says what
	 * comes next or a new stream delivers, not "live" for a moment. */
	if (ph == FEED_LIVE && nd->silent && !nd->got_data &&
	    !nd->stopping) {
		nd->lost = 1;
		return;
	}
	nd->silent = 0;
	if (ph == FEED_LOST) {
		nd->lost = 1;
		nd->down = 1;
	} else if (ph == FEED_LIVE || ph == FEED_STOPPING ||
	    ph == FEED_CLOSED || ph == FEED_REFUSED || ph == FEED_FAILED) {
		nd->down = 0;
		nd->tries = 0;
	} else if (nd->down) {
		/* Lost, and reconnecting: still lost until live, never
		 * "connecting" as if it were back; each new connection
		 * is one more try. */
		if (ph == FEED_CONNECTING && nd->rawph != FEED_CONNECTING)
			nd->tries++;
		nd->rawph = ph;
		nd->lost = 1;
		if (nd->tries == 0)
			return;		/* waiting to retry: the lost text */
		snprintf(buf, sizeof(buf), "reconnecting (try %u): %s",
		    nd->tries, st);
		session_set_state(s, i, FEED_LOST, buf);
		return;
	}
	nd->rawph = ph;
	session_set_state(s, i, ph, st);
}

/* The node's transport (the ladder may move it): tell the hook when it
 * changes, with why cheaper ones were skipped. */
static void
session_check_transport(struct session *s, int i)
{
	struct snode	*nd = &s->nodes[i];
	const char	*t;

	if (nd->feed == NULL)
		return;
	t = feed_transport(nd->feed);
	if (strcmp(t, nd->transport) == 0 &&
	    strcmp(feed_skipped(nd->feed), nd->skipped) == 0)
		return;
	snprintf(nd->transport, sizeof(nd->transport), "%s", t);
	free(nd->skipped);
	nd->skipped = xstrdup(feed_skipped(nd->feed));
	log_debug("%s: transport %s%s%s", nd->name, nd->transport,
	    *nd->skipped != '\0' ? "; skipped: " : "", nd->skipped);
	if (s->hooks.transport != NULL)
		s->hooks.transport(s->hooks.arg, s, i, nd->transport,
		    nd->skipped);
}

/* Put a node's descriptors in the epoll set as pollfds gave them.  A
 * descriptor the feed closed left the set by itself, and its number may
 * be another node's now: only the node that registered a number last
 * takes it out. */
static void
session_watch(struct session *s, int i, const struct pollfd *pf, int n)
{
	struct snode		*nd = &s->nodes[i];
	struct epoll_event	 ev;
	int			 j, k, fd, op, old;

	/*
	 * A live stream asks for the same descriptors every step: no
	 * epoll_ctl then (at 1024 nodes one per node sample, with the
	 * kernel polling the socket again each time, was ~5% of the
	 * monitor's CPU).  Only while live, before and now: a feed that
	 * reconnects (a new descriptor may get the old number) passes
	 * through another phase first; one that did not would go silent,
	 * be lost, and be registered again then.
	 */
	if (nd->pf_live && nd->phase == FEED_LIVE && n == nd->npf) {
		for (k = 0; k < n && pf[k].fd == nd->pf[k].fd &&
		    pf[k].events == nd->pf[k].events; k++)
			;
		if (k == n)
			return;
	}
	nd->pf_live = nd->phase == FEED_LIVE;
	for (k = 0; k < nd->npf; k++) {
		fd = nd->pf[k].fd;
		for (j = 0; j < n && pf[j].fd != fd; j++)
			;
		if (j == n && fd >= 0 && fd < s->nfdowner &&
		    s->fdowner[fd] == i) {
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL);
			s->fdowner[fd] = -1;
		}
	}
	nd->npf = 0;
	for (k = 0; k < n; k++) {
		if ((fd = pf[k].fd) < 0)
			continue;
		if (fd >= s->nfdowner) {
			old = s->nfdowner;
			s->nfdowner = fd * 2 + 64;
			s->fdowner = xreallocarray(s->fdowner,
			    (size_t)s->nfdowner, sizeof(*s->fdowner));
			for (j = old; j < s->nfdowner; j++)
				s->fdowner[j] = -1;
		}
		memset(&ev, 0, sizeof(ev));
		ev.events = (pf[k].events & POLLIN ? EPOLLIN : 0) |
		    (pf[k].events & POLLOUT ? EPOLLOUT : 0) |
		    (pf[k].events & POLLPRI ? EPOLLPRI : 0);
		ev.data.u64 = (uint64_t)i << 8 | (uint64_t)nd->npf;
		/* The same number may be a new descriptor (a reconnect):
		 * either operation may have to be the other. */
		op = s->fdowner[fd] == i ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
		if (epoll_ctl(s->epfd, op, fd, &ev) != 0 &&
		    epoll_ctl(s->epfd, op == EPOLL_CTL_MOD ? EPOLL_CTL_ADD :
		    EPOLL_CTL_MOD, fd, &ev) != 0)
			fatal("epoll_ctl %d: %s", fd, strerror(errno));
		s->fdowner[fd] = i;
		nd->pf[nd->npf] = pf[k];
		nd->pf[nd->npf++].revents = 0;
	}
}

/* Ask a node's feed what it waits for: its state, whether it is done,
 * its descriptors and its deadline (or the moment it would count as
 * lost, when that comes first). */
static void
session_ask(struct session *s, int i, uint64_t now)
{
	struct snode	*nd = &s->nodes[i];
	struct pollfd	 pf[FEED_MAX_FDS];
	int		 n, t;

	nd->dirty = 0;
	session_check_transport(s, i);
	session_update_state(s, i, now);
	if (nd->feed->ops->done(nd->feed)) {
		session_watch(s, i, pf, 0);
		nd->done = 1;
		nd->due = UINT64_MAX;
		return;
	}
	nd->done = 0;
	n = nd->feed->ops->pollfds(nd->feed, pf);
	session_watch(s, i, pf, n);
	t = nd->feed->ops->timeout(nd->feed, now);
	nd->due = t >= 0 ? now + (uint64_t)t : UINT64_MAX;
	/* Wake to notice a live node going silent. */
	if (!nd->lost && !nd->stopping && nd->got_data &&
	    nd->last_data + s->conf.lost_ms + 1 < nd->due)
		nd->due = nd->last_data + s->conf.lost_ms + 1;
}

int
session_run(struct session *s)
{
	struct pollfd		 pfd[2 + SESSION_EXTRA_FDS];
	struct epoll_event	*evs;
	int			 i, k, np, n, timeout, t, left, rc = 0;
	int			 nextra, connecting, pace, maxev, ep;
	uint64_t		 now, next;
	char			 drain[64];

	if ((s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		fatal("epoll_create1: %s", strerror(errno));
	maxev = FEED_MAX_FDS * s->nnodes + 1;
	evs = xcalloc((size_t)maxev, sizeof(*evs));
	s->all_dirty = 1;
	for (;;) {
		now = clock_mono_ms();
		if (session_signalled && !s->quit)
			session_quit(s);
		left = connecting = 0;
		next = UINT64_MAX;
		for (i = 0; i < s->nnodes; i++) {
			struct snode *nd = &s->nodes[i];
			if (nd->feed == NULL)
				continue;
			/* A feed that waits on nothing (a free connection
			 * slot, a child's end) is asked every pass. */
			if (nd->dirty || s->all_dirty || (!nd->done &&
			    nd->npf == 0 && nd->due == UINT64_MAX))
				session_ask(s, i, now);
			if (nd->done)
				continue;
			left++;
			if (!nd->got_data)
				connecting++;
			if (nd->due < next)
				next = nd->due;
		}
		s->all_dirty = 0;
		/* Lingering: the probes are gone, the hooks (the screen and
		 * its keys) go on until a quit. */
		if (left == 0 && (!s->linger || s->quit))
			break;
		if (s->quit) {
			if (now >= s->quit_at)
				break;
			if (s->quit_at < next)
				next = s->quit_at;
		}
		pfd[0].fd = session_sigfd[0];
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		np = 1;
		nextra = 0;
		if (s->hooks.pollfds != NULL) {
			nextra = s->hooks.pollfds(s->hooks.arg, pfd + np,
			    SESSION_EXTRA_FDS);
			for (k = 0; k < nextra; k++)
				pfd[np + k].revents = 0;
			np += nextra;
		}
		ep = np++;
		pfd[ep].fd = s->epfd;
		pfd[ep].events = POLLIN;
		pfd[ep].revents = 0;
		if (s->hooks.timeout != NULL &&
		    (t = s->hooks.timeout(s->hooks.arg, now)) >= 0 &&
		    now + (uint64_t)t < next)
			next = now + (uint64_t)t;
		timeout = next == UINT64_MAX ? -1 : next <= now ? 0 :
		    (int)(next - now);
		if (left >= SESSION_PACE_NODES && connecting <= left / 16 &&
		    timeout != 0 && !s->quit) {
			pace = (int)(s->conf.interval * 1000 / 10);
			if (pace > SESSION_PACE_MAX_MS)
				pace = SESSION_PACE_MAX_MS;
			if (now < s->last_pass + (uint64_t)pace) {
				pace = (int)(s->last_pass + (uint64_t)pace -
				    now);
				if (timeout >= 0 && timeout < pace)
					pace = timeout;
				/* Only the signal pipe and the hooks' fds. */
				if (poll(pfd, (nfds_t)(1 + nextra), pace) < 0 &&
				    errno != EINTR)
					fatal("poll: %s", strerror(errno));
				now = clock_mono_ms();
				timeout = next == UINT64_MAX ? -1 :
				    next <= now ? 0 : (int)(next - now);
			}
		}
		if (poll(pfd, (nfds_t)np, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %s", strerror(errno));
		}
		now = clock_mono_ms();
		s->last_pass = now;
		if (pfd[0].revents != 0) {
			while (read(session_sigfd[0], drain, sizeof(drain)) > 0)
				;
			s->all_dirty = 1;	/* a child ended, a signal */
		}
		if (nextra > 0 && s->hooks.ready != NULL) {
			for (k = 1; k <= nextra; k++) {
				if (pfd[k].revents != 0)
					s->all_dirty = 1;	/* a key */
			}
			s->hooks.ready(s->hooks.arg, s, pfd + 1, nextra, now);
		}
		if (pfd[ep].revents != 0) {
			n = epoll_wait(s->epfd, evs, maxev, 0);
			for (k = 0; k < n; k++) {
				struct snode *nd;
				unsigned slot = evs[k].data.u64 & 0xff;
				i = (int)(evs[k].data.u64 >> 8);
				if (i < 0 || i >= s->nnodes)
					continue;
				nd = &s->nodes[i];
				if (slot >= (unsigned)nd->npf)
					continue;
				nd->pf[slot].revents = (short)(
				    (evs[k].events & EPOLLIN ? POLLIN : 0) |
				    (evs[k].events & EPOLLOUT ? POLLOUT : 0) |
				    (evs[k].events & EPOLLPRI ? POLLPRI : 0) |
				    (evs[k].events & EPOLLERR ? POLLERR : 0) |
				    (evs[k].events & EPOLLHUP ? POLLHUP : 0));
				nd->ready = 1;
			}
		}
		/* Step the feeds that had I/O or whose time came. */
		for (i = 0; i < s->nnodes; i++) {
			struct snode *nd = &s->nodes[i];
			if (nd->feed == NULL || (nd->done && !nd->ready))
				continue;
			if (!nd->ready && nd->due > now && !s->all_dirty &&
			    !nd->dirty)
				continue;
			nd->feed->ops->step(nd->feed, now, nd->pf, nd->npf);
			for (k = 0; k < nd->npf; k++)
				nd->pf[k].revents = 0;
			nd->ready = 0;
			nd->dirty = 1;
			session_drain(s, i, now);
		}
	}
	for (i = 0; i < s->nnodes; i++) {
		if (s->nodes[i].failed)
			rc = 1;
	}
	free(evs);
	close(s->epfd);
	s->epfd = -1;
	free(s->fdowner);
	s->fdowner = NULL;
	s->nfdowner = 0;
	return rc;
}

void
session_free(struct session *s)
{
	int	i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nnodes; i++) {
		feed_free(s->nodes[i].feed);
		stream_free(s->nodes[i].st);
		free(s->nodes[i].name);
		free(s->nodes[i].error);
		free(s->nodes[i].skipped);
	}
	free(s->nodes);
	free(s->buf);
	free(s);
}

int
session_nnodes(const struct session *s)
{
	return s->nnodes;
}

const char *
session_node_name(const struct session *s, int i)
{
	return s->nodes[i].name;
}

const struct node_model *
session_node_model(const struct session *s, int i)
{
	return stream_model(s->nodes[i].st);
}

const char *
session_node_transport(const struct session *s, int i)
{
	return s->nodes[i].transport;
}

const char *
session_node_skipped(const struct session *s, int i)
{
	return s->nodes[i].skipped;
}

const char *
session_node_state(const struct session *s, int i)
{
	return s->nodes[i].state;
}

enum feed_phase
session_node_phase(const struct session *s, int i)
{
	return s->nodes[i].phase;
}

int
session_node_refused(const struct session *s, int i)
{
	return i >= 0 && i < s->nnodes && s->nodes[i].refused;
}

const char *
session_node_error(const struct session *s, int i)
{
	return s->nodes[i].error;
}

uint64_t
session_node_samples(const struct session *s, int i)
{
	return s->nodes[i].samples;
}

int
session_node_lost(const struct session *s, int i)
{
	return s->nodes[i].lost;
}

const struct proto_event *
session_node_event(const struct session *s, int i)
{
	return stream_event(s->nodes[i].st);
}
