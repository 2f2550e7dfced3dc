/*
 * feed: what every transport shares (the phase words, the side-command
 * calls), the local transport, the registry of remote transports and the
 * ladder that moves a node from one to the next.
 *
 * The local transport wraps a probe child (feed-local.c) and adds what
 * the loop needs from it: a grace period after a stop before SIGKILL,
 * reaping, and an account of how the child ended.
 *
 * The ladder (--transport auto) is a feed that holds the node's current
 * transport's feed.  It starts with the first transport of
 * feed_transports[] marked FEED_T_LADDER whose usable() accepts the node
 * (the others' reasons are kept in feed->skipped), and when that feed
 * ends for good without being asked to, feed_ladder_next says whether
 * another transport should have the node.
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
#include "feed-launch.h"
#include "feed-srun.h"
#include "log.h"
#include "rconf.h"
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
	"local", feed_lc_pollfds, feed_lc_timeout, feed_lc_step,
	feed_lc_read, feed_lc_stop, feed_lc_done, feed_lc_phase, NULL,
	feed_lc_set_interval, feed_lc_exec_start, NULL, feed_lc_free
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
		snprintf(f->statebuf, sizeof(f->statebuf), "%s: %s",
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
	return f->skipped;
}

void
feed_set_skipped(struct feed *f, const char *why)
{
	snprintf(f->skipped, sizeof(f->skipped), "%s", why);
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
 * The registry of remote transports.  How to add one: its file
 * (remote/feed-NAME.c) with a constructor, an optional usable() check,
 * and a line here.  The order of the FEED_T_LADDER ones is the ladder's:
 * cheapest per node first.
 */
const struct feed_transport feed_transports[] = {
	{ "libssh2", feed_new_libssh2, feed_libssh2_usable, FEED_T_LADDER,
	    "one libssh2 session per node, in this process" },
	{ "ssh", feed_new_ssh, NULL, FEED_T_LADDER,
	    "the system OpenSSH client, one ssh process per node" },
	{ "srun", feed_new_srun, feed_srun_usable, FEED_T_LADDER,
	    "one srun for the whole Slurm job, through Slurm's own tree" },
	{ "oarsh", feed_new_oarsh, feed_oarsh_usable, FEED_T_LADDER,
	    "OAR's oarsh, one per node (OAR_JOB_KEY_FILE or the job's id)" },
	{ "blaunch", feed_new_blaunch, feed_blaunch_usable, FEED_T_LADDER,
	    "LSF's blaunch, one per node, from within the job" },
	{ "pbs_tmrsh", feed_new_pbs_tmrsh, feed_pbs_tmrsh_usable,
	    FEED_T_LADDER, "PBS's pbs_tmrsh, one per node, within the job" },
	{ NULL, NULL, NULL, 0, NULL }
};

const struct feed_transport *
feed_transport_find(const char *name)
{
	const struct feed_transport	*t;

	for (t = feed_transports; t->name != NULL; t++) {
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

	if (buf[0] != '\0')
		return buf;
	n = (size_t)snprintf(buf, sizeof(buf), "auto");
	for (t = feed_transports; t->name != NULL && n < sizeof(buf); t++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", %s",
		    t->name);
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
	const struct feed_transport	*next;
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
	 * scheduler's launcher (feed-srun.c). */
	if ((next_name = feed_srun_ladder(rc, host, cur, fail, reason, why,
	    whysz)) != NULL)
		return next_name;
	/* The other schedulers' remote shells (feed-ssh.c). */
	return feed_launch_ladder(rc, host, cur, fail, reason, why, whysz);
}

/* The ladder's feed: the node's current transport's feed. */
struct feed_auto {
	const struct rconf	*rc;
	char			*host;
	struct feed		*cur;
	const char		*name;		/* cur's transport */
	int			 stopped;
	char			 why[1024];	/* a last failure, and before */
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
	size_t	n = strlen(f->skipped);

	snprintf(f->skipped + n, sizeof(f->skipped) - n, "%s%s",
	    n > 0 ? "; " : "", why);
	text_clean_inplace(f->skipped);
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
	    f->skipped[0] != '\0') {
		snprintf(a->why, sizeof(a->why), "%s (%s)", *why,
		    f->skipped);
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
	free(a);
}

static const struct feed_ops feed_auto_ops = {
	"auto", feed_auto_pollfds, feed_auto_timeout, feed_auto_step,
	feed_auto_read, feed_auto_stop, feed_auto_done, feed_auto_phase,
	feed_auto_failure, feed_auto_set_interval, feed_auto_exec_start,
	feed_auto_transport, feed_auto_free
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

	skipped[0] = '\0';
	/* A job too large for one SSH session per node starts on srun. */
	if (feed_srun_first(rc, skipped, sizeof(skipped)) &&
	    (t = feed_transport_find("srun")) != NULL &&
	    (cur = t->open(rc, host, err, errsz)) != NULL)
		goto found;
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
