/* SPDX-License-Identifier: ISC */
/*
 * stackrun: one side command per node, all started as soon as each node's
 * ranks are known, checked on every pass of the session's loop.  The
 * command finds the probe binary the node already runs (this machine's
 * for a local node; the content-named copy in the per-user cache for the
 * others, where the SSH transports and srun put it) and execs it with
 * --stacks; no other program is pushed, and only the node's distinct
 * stacks come back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "log.h"
#include "model.h"
#include "stackfmt.h"
#include "stackrun.h"
#include "xmalloc.h"

#define STACKRUN_OUT_MAX	(8u << 20)	/* a node's answer, bytes */
#define STACKRUN_SLACK_MS	20000	/* a connection's start, a probe's */
#define STACKRUN_NORANKS	3	/* samples without ranks: none */

enum stackrun_state {
	SR_WAIT,	/* for the node's ranks */
	SR_RUN,
	SR_DONE,
	SR_FAIL
};

struct stackrun_node {
	enum stackrun_state	 state;
	struct feed_exec	*x;
	uint64_t		 until;		/* SR_RUN: gives up then */
};

struct stackrun {
	struct stackrun_conf	 conf;
	char			*probe_local, *cache_dir, *probe_name;
	struct session		*s;
	struct stackrun_node	*nodes;
	int			 nnodes;
	int			 started;
	int			 finished;
	struct stree		*tree;
};

struct stackrun *
stackrun_new(const struct stackrun_conf *c, struct session *s)
{
	struct stackrun	*sr = xcalloc(1, sizeof(*sr));

	sr->conf = *c;
	sr->probe_local = c->probe_local ? xstrdup(c->probe_local) : NULL;
	sr->cache_dir = c->cache_dir ? xstrdup(c->cache_dir) : NULL;
	sr->probe_name = c->probe_name ? xstrdup(c->probe_name) : NULL;
	sr->conf.probe_local = sr->probe_local;
	sr->conf.cache_dir = sr->cache_dir;
	sr->conf.probe_name = sr->probe_name;
	sr->tree = stree_new(c->ranks);
	if (s != NULL)
		stackrun_set_session(sr, s);
	return sr;
}

void
stackrun_set_session(struct stackrun *sr, struct session *s)
{
	sr->s = s;
}

void
stackrun_free(struct stackrun *sr)
{
	int	i;

	if (sr == NULL)
		return;
	for (i = 0; i < sr->nnodes; i++)
		if (sr->nodes[i].x != NULL)
			feed_exec_free(sr->nodes[i].x);
	free(sr->nodes);
	stree_free(sr->tree);
	free(sr->probe_local);
	free(sr->cache_dir);
	free(sr->probe_name);
	free(sr);
}

/* Only characters no shell treats specially (rpush_safe's set). */
static int
stackrun_safe(const char *s)
{
	return s != NULL && *s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+.-/@:") == strlen(s);
}

char *
stackrun_command(const struct stackrun_conf *c, int local, const char *pids)
{
	char	cand[4096], opts[160];
	size_t	n = 0;

	cand[0] = '\0';
	if (local && stackrun_safe(c->probe_local))
		n += (size_t)snprintf(cand + n, sizeof(cand) - n, " %s",
		    c->probe_local);
	if (!local && stackrun_safe(c->probe_name) &&
	    stackrun_safe(c->cache_dir) && n < sizeof(cand)) {
		n += (size_t)snprintf(cand + n, sizeof(cand) - n,
		    " %s%s/%s \"/tmp/jobtop-$(id -u)/%s\"",
		    c->cache_dir[0] == '/' ? "" : "\"$HOME\"/", c->cache_dir,
		    c->probe_name, c->probe_name);
	}
	snprintf(opts, sizeof(opts), "--gap %u --frames %u --deadline %u%s",
	    c->gap_ms, c->frames, c->deadline_ms, c->threads ?
	    " --threads" : "");
	/* The probe must be a file of ours, not a link someone left. */
	return xasprintf("exec /bin/sh -c 'for p in%s; do "
	    "if [ -f \"$p\" ] && [ ! -L \"$p\" ] && [ -x \"$p\" ]; then "
	    "exec \"$p\" --stacks %s %s; fi; done; "
	    "echo jobtop-stacks-noprobe; exit 127'", cand, opts, pids);
}

/* The node's ranks as "PID:ID ..." (allocated), NULL when none. */
static char *
stackrun_pids(const struct stackrun *sr, const struct node_model *m)
{
	const struct minst	*mi;
	char			*buf = NULL, w[48];
	size_t			 len = 0, cap = 0, k;
	int			 g, f, fr;
	int64_t			 pid, rank;

	if (m == NULL || (g = model_group_index(m, "rank")) < 0)
		return NULL;
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if ((f = mi->mg->known[MGF_PID]) < 0 ||
		    !model_value(mi, (unsigned)f, &pid) || pid <= 0)
			continue;
		rank = -1;
		if ((fr = mi->mg->known[MGF_RANK]) >= 0)
			model_value(mi, (unsigned)fr, &rank);
		/* A job's rows without a rank id are its helpers. */
		if (sr->conf.ranks && rank < 0)
			continue;
		k = (size_t)snprintf(w, sizeof(w), "%s%lld:%lld", len ? " " :
		    "", (long long)pid, (long long)(sr->conf.ranks ? rank :
		    pid));
		if (len + k + 1 > cap) {
			cap = (len + k + 1) * 2;
			buf = xreallocarray(buf, cap, 1);
		}
		memcpy(buf + len, w, k + 1);
		len += k;
	}
	return buf;
}

/* Start on node i when it can; a node that cannot fails with why. */
static void
stackrun_node_start(struct stackrun *sr, int i, uint64_t now)
{
	struct stackrun_node	*nd = &sr->nodes[i];
	enum feed_phase		 ph = session_node_phase(sr->s, i);
	const struct node_model	*m = session_node_model(sr->s, i);
	const char		*name = session_node_name(sr->s, i);
	struct feed		*f;
	char			*pids, *cmd, err[512];
	unsigned		 to;
	int			 local;

	if (ph == FEED_REFUSED || ph == FEED_FAILED || ph == FEED_CLOSED) {
		nd->state = SR_FAIL;
		stree_fail_node(sr->tree, name, session_node_state(sr->s, i));
		return;
	}
	if (ph != FEED_LIVE || session_node_samples(sr->s, i) < 1)
		return;
	if ((pids = stackrun_pids(sr, m)) == NULL) {
		if (session_node_samples(sr->s, i) >= STACKRUN_NORANKS) {
			nd->state = SR_FAIL;
			stree_fail_node(sr->tree, name, sr->conf.ranks ?
			    "no ranks of the job on this node" :
			    "no processes on this node");
		}
		return;
	}
	if ((f = session_node_feed(sr->s, i)) == NULL) {
		free(pids);
		nd->state = SR_FAIL;
		stree_fail_node(sr->tree, name, "no live connection");
		return;
	}
	local = strcmp(session_node_transport(sr->s, i), "local") == 0;
	cmd = stackrun_command(&sr->conf, local, pids);
	free(pids);
	to = 2 * sr->conf.deadline_ms + sr->conf.gap_ms + STACKRUN_SLACK_MS;
	log_debug("%s: stacks: %s", name, cmd);
	nd->x = feed_exec_start(f, cmd, STACKRUN_OUT_MAX, to, err, sizeof(err));
	free(cmd);
	if (nd->x == NULL) {
		nd->state = SR_FAIL;
		stree_fail_node(sr->tree, name, err);
		return;
	}
	nd->state = SR_RUN;
	nd->until = now + to + 5000;
}

/*
 * A command whose node went away, or that outlived its time: its feed may
 * no longer step it, so it ends here with the reason.  Gone is what the
 * transport says (its connection or child ended), not the session's
 * silence rule: a node whose samples stop for a few seconds ("lost: no
 * data for 2.8 s", a probe starved of CPU beside a busy job or the
 * debugger it runs) still runs its command, which ends with its own
 * reason if the connection goes; only the deadline gives up on it.
 */
static void
stackrun_node_abandon(struct stackrun *sr, int i, uint64_t now)
{
	struct stackrun_node	*nd = &sr->nodes[i];
	struct feed		*f = session_node_feed(sr->s, i);
	const char		*fw;
	enum feed_phase		 ph = f != NULL ? feed_phase(f, &fw) :
				    FEED_CLOSED;
	char			 why[FEED_STATE_MAX + 80];

	if (ph == FEED_LIVE || ph == FEED_STOPPING) {
		if (now < nd->until)
			return;
		snprintf(why, sizeof(why), "no answer within %llu s",
		    (unsigned long long)(2 * sr->conf.deadline_ms +
		    sr->conf.gap_ms + STACKRUN_SLACK_MS + 5000) / 1000);
	} else
		snprintf(why, sizeof(why), "the node's connection ended "
		    "before its stacks came (%s)", session_node_state(sr->s,
		    i));
	stree_fail_node(sr->tree, session_node_name(sr->s, i), why);
	feed_exec_free(nd->x);
	nd->x = NULL;
	nd->state = SR_FAIL;
}

/* Node i's command ended: its answer into the tree. */
static void
stackrun_node_end(struct stackrun *sr, int i)
{
	struct stackrun_node	*nd = &sr->nodes[i];
	const char		*name = session_node_name(sr->s, i), *out;
	const char		*eo, *why;
	struct stk_node		 sn;
	char			 err[512], first[200];
	size_t			 len, elen, k;

	out = feed_exec_out(nd->x, &len);
	log_debug("%s: stacks: %zu bytes, status %d %s", name, len,
	    feed_exec_status(nd->x), feed_exec_why(nd->x));
	if (stk_decode(out, len, &sn, err, sizeof(err)) == 0) {
		stree_add_node(sr->tree, name, &sn);
		nd->state = SR_DONE;
	} else {
		eo = feed_exec_err(nd->x, &elen);
		why = feed_exec_why(nd->x);
		for (k = 0; k < elen && eo[k] != '\n' && k + 1 < sizeof(first);
		    k++)
			first[k] = eo[k];
		first[k] = '\0';
		stk_clean(first, sizeof(first), first, k);
		if (len >= 21 && memmem(out, len, "jobtop-stacks-noprobe",
		    21) != NULL)
			snprintf(err, sizeof(err), "the probe binary is not "
			    "in its cache on the node");
		if (*why != '\0')
			snprintf(err + strlen(err), sizeof(err) - strlen(err),
			    " (%s)", why);
		else if (*first != '\0')
			snprintf(err + strlen(err), sizeof(err) - strlen(err),
			    " (%s)", first);
		stree_fail_node(sr->tree, name, err);
		nd->state = SR_FAIL;
	}
	stk_node_free(&sn);
	feed_exec_free(nd->x);
	nd->x = NULL;
}

int
stackrun_start(struct stackrun *sr, uint64_t now)
{
	int	i, live = 0;

	if (sr->s == NULL)
		return -1;
	sr->nnodes = session_nnodes(sr->s);
	sr->nodes = xcalloc((size_t)sr->nnodes + 1, sizeof(*sr->nodes));
	sr->started = 1;
	for (i = 0; i < sr->nnodes; i++)
		live += session_node_phase(sr->s, i) != FEED_FAILED &&
		    session_node_phase(sr->s, i) != FEED_REFUSED &&
		    session_node_phase(sr->s, i) != FEED_CLOSED;
	stackrun_check(sr, now);
	return live > 0 ? 0 : -1;
}

int
stackrun_check(struct stackrun *sr, uint64_t now)
{
	int	i, open = 0;

	if (!sr->started || sr->finished)
		return sr->finished;
	for (i = 0; i < sr->nnodes; i++) {
		struct stackrun_node	*nd = &sr->nodes[i];

		if (nd->state == SR_WAIT)
			stackrun_node_start(sr, i, now);
		if (nd->state == SR_RUN && feed_exec_done(nd->x))
			stackrun_node_end(sr, i);
		else if (nd->state == SR_RUN)
			stackrun_node_abandon(sr, i, now);
		open += nd->state == SR_WAIT || nd->state == SR_RUN;
	}
	if (open == 0) {
		stree_finish(sr->tree);
		sr->finished = 1;
	}
	return sr->finished;
}

int
stackrun_timeout(const struct stackrun *sr, uint64_t now)
{
	return sr->finished ? -1 : 100;
}

/*
 * The session's loop ended (every node failed for good before the first
 * timeout, or a signal): nodes that never answered fail with what their
 * session said, so the tree holds every node and why.
 */
void
stackrun_settle(struct stackrun *sr, uint64_t now)
{
	char	why[FEED_STATE_MAX + 64];
	int	i;

	if (sr->s == NULL || sr->finished)
		return;
	if (!sr->started)
		stackrun_start(sr, now);
	if (stackrun_check(sr, now))
		return;
	for (i = 0; i < sr->nnodes; i++) {
		struct stackrun_node	*nd = &sr->nodes[i];

		if (nd->state != SR_WAIT && nd->state != SR_RUN)
			continue;
		snprintf(why, sizeof(why), "the run ended before its stacks "
		    "came (%s)", session_node_state(sr->s, i));
		stree_fail_node(sr->tree, session_node_name(sr->s, i), why);
		feed_exec_free(nd->x);
		nd->x = NULL;
		nd->state = SR_FAIL;
	}
	stree_finish(sr->tree);
	sr->finished = 1;
}

struct stree *
stackrun_tree(struct stackrun *sr)
{
	return sr->finished ? sr->tree : NULL;
}

void
stackrun_progress(const struct stackrun *sr, char *buf, size_t size)
{
	int	i, done = 0, run = 0;

	for (i = 0; i < sr->nnodes; i++) {
		done += sr->nodes[i].state == SR_DONE ||
		    sr->nodes[i].state == SR_FAIL;
		run += sr->nodes[i].state == SR_RUN;
	}
	snprintf(buf, size, "%d of %d node%s answered, %d taking stacks",
	    done, sr->nnodes, sr->nnodes == 1 ? "" : "s", run);
}

static int
stackrun_on_timeout(void *arg, uint64_t now)
{
	struct stackrun	*sr = arg;

	if (sr->s == NULL)
		return 100;
	if (!sr->started)
		stackrun_start(sr, now);
	if (stackrun_check(sr, now)) {
		session_quit(sr->s);
		return -1;
	}
	return stackrun_timeout(sr, now);
}

void
stackrun_hooks(struct stackrun *sr, struct session_hooks *h)
{
	memset(h, 0, sizeof(*h));
	h->arg = sr;
	h->timeout = stackrun_on_timeout;
}

void
stackrun_conf_init(struct stackrun_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->gap_ms = STACKRUN_GAP_MS;
	c->deadline_ms = STACKRUN_DEADLINE_MS;
	c->frames = STACKRUN_FRAMES;
}

/* Seconds from lo to hi (fractions allowed) into milliseconds. */
static int
stackrun_secs(const char *s, double lo, double hi, unsigned *ms)
{
	char	*end;
	double	 v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !(v >= lo) ||
	    !(v <= hi))
		return -1;
	*ms = (unsigned)(v * 1000 + 0.5);
	return 0;
}

int
stackrun_option(struct stackrun_conf *c, const char *name, const char *arg,
    char *err, size_t errsz)
{
	char		*end;
	unsigned long	 v;

	if (strcmp(name, "threads") == 0) {
		c->threads = 1;
		return 0;
	}
	if (arg == NULL)
		arg = "";
	if (strcmp(name, "stacks-gap") == 0) {
		if (stackrun_secs(arg, 0, 600, &c->gap_ms) == 0)
			return 0;
		snprintf(err, errsz, "bad --stacks-gap: give seconds from 0 "
		    "(one take) to 600");
		return -1;
	}
	if (strcmp(name, "stacks-deadline") == 0) {
		if (stackrun_secs(arg, 0.1, 600, &c->deadline_ms) == 0)
			return 0;
		snprintf(err, errsz, "bad --stacks-deadline: give seconds "
		    "from 0.1 to 600");
		return -1;
	}
	if (strcmp(name, "stacks-frames") == 0) {
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (*arg >= '0' && *arg <= '9' && *end == '\0' && errno == 0 &&
		    v >= 1 && v <= STK_FRAMES_MAX) {
			c->frames = (unsigned)v;
			return 0;
		}
		snprintf(err, errsz, "bad --stacks-frames: give a number from "
		    "1 to %d", STK_FRAMES_MAX);
		return -1;
	}
	snprintf(err, errsz, "unknown stacks option");
	return -1;
}
