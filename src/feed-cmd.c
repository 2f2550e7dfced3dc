/* SPDX-License-Identifier: ISC */
/*
 * feed-cmd: a side command (struct feed_exec) run as a local child through
 * spawn.c: /bin/sh -c CMD for the local transport, or any argv (a second
 * ssh for the ssh transport).  The feed that started it owns it and
 * drives it from its own pollfds, timeout and step; the caller reads it
 * through feed_exec_* and lets go with feed_exec_free, after which the
 * owner frees it once it ended (feed_cmd_reap), or at once when the owner
 * goes first (feed_cmd_disown).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "feed.h"
#include "spawn.h"
#include "xmalloc.h"

struct feed_cmd {
	struct feed_exec	 x;
	struct spawn		 sp;
	size_t			 cap;
	unsigned		 timeout_ms;
	char			*out, *err;
	size_t			 outlen, errlen;
	int			 status;	/* -1: did not exit */
	int			 done;
	int			 released;	/* the caller let go */
	int			 owned;		/* a feed still holds it */
	char			 why[256];
};

static int
feed_cmd_done_op(const struct feed_exec *x)
{
	return ((const struct feed_cmd *)x->impl)->done;
}

static const char *
feed_cmd_out_op(const struct feed_exec *x, size_t *len)
{
	const struct feed_cmd	*c = x->impl;

	*len = c->outlen;
	return c->out;
}

static const char *
feed_cmd_err_op(const struct feed_exec *x, size_t *len)
{
	const struct feed_cmd	*c = x->impl;

	*len = c->errlen;
	return c->err;
}

static int
feed_cmd_status_op(const struct feed_exec *x)
{
	return ((const struct feed_cmd *)x->impl)->status;
}

static const char *
feed_cmd_why_op(const struct feed_exec *x)
{
	return ((const struct feed_cmd *)x->impl)->why;
}

static void
feed_cmd_destroy(struct feed_cmd *c)
{
	spawn_end(&c->sp);
	free(c->out);
	free(c->err);
	free(c);
}

static void
feed_cmd_free_op(struct feed_exec *x)
{
	struct feed_cmd	*c = x->impl;

	if (!c->owned) {
		feed_cmd_destroy(c);
		return;
	}
	c->released = 1;
	/* Nobody reads it any more: end it now. */
	if (!c->done) {
		spawn_kill(&c->sp, SIGKILL);
		snprintf(c->why, sizeof(c->why), "abandoned");
	}
}

static const struct feed_exec_ops feed_cmd_ops = {
	.done = feed_cmd_done_op,
	.out = feed_cmd_out_op,
	.err = feed_cmd_err_op,
	.status = feed_cmd_status_op,
	.why = feed_cmd_why_op,
	.free = feed_cmd_free_op,
};

struct feed_exec *
feed_cmd_start(char *const argv[], const char *cmd, size_t cap,
    unsigned timeout_ms, char *err, size_t errsz)
{
	struct spawn_req	 rq;
	char			*shargv[4];

	shargv[0] = (char *)(uintptr_t)"sh";
	shargv[1] = (char *)(uintptr_t)"-c";
	shargv[2] = (char *)(uintptr_t)cmd;
	shargv[3] = NULL;
	memset(&rq, 0, sizeof(rq));
	rq.path = argv != NULL ? argv[0] : "/bin/sh";
	rq.argv = argv != NULL ? argv : shargv;
	return feed_cmd_start_req(&rq, cap, timeout_ms, err, errsz);
}

struct feed_exec *
feed_cmd_start_req(const struct spawn_req *base, size_t cap,
    unsigned timeout_ms, char *err, size_t errsz)
{
	struct feed_cmd		*c;
	struct spawn_req	 rq = *base;

	rq.flags |= SPAWN_OUT | SPAWN_ERR | SPAWN_SETSID;
	rq.timeout_ms = timeout_ms;
	c = xcalloc(1, sizeof(*c));
	if (spawn_start(&c->sp, &rq, err, errsz) != 0) {
		free(c);
		return NULL;
	}
	c->cap = cap;
	c->timeout_ms = timeout_ms;
	c->out = xmalloc(cap + 1);
	c->err = xmalloc(cap + 1);
	c->out[0] = c->err[0] = '\0';
	c->status = -1;
	c->owned = 1;
	c->x.ops = &feed_cmd_ops;
	c->x.impl = c;
	return &c->x;
}

int
feed_cmd_pollfds(struct feed_exec *x, struct pollfd *p)
{
	struct feed_cmd	*c = x->impl;
	int		 n = 0;

	if (c->sp.out >= 0) {
		p[n].fd = c->sp.out;
		p[n++].events = POLLIN;
	}
	if (c->sp.err >= 0) {
		p[n].fd = c->sp.err;
		p[n++].events = POLLIN;
	}
	return n;
}

int
feed_cmd_timeout(struct feed_exec *x, uint64_t now)
{
	struct feed_cmd	*c = x->impl;

	if (c->done)
		return c->released ? 0 : -1;
	/* Output closed: the child is ending; SIGCHLD wakes the loop, this
	 * is the fallback. */
	if (c->sp.out < 0 && c->sp.err < 0)
		return 50;
	return spawn_timeout(&c->sp, now);
}

/* Read what a pipe has, keeping up to cap bytes. */
static void
feed_cmd_drain(struct feed_cmd *c, int *fd, char *buf, size_t *len)
{
	char	junk[4096];
	ssize_t	n;

	for (;;) {
		if (*len < c->cap)
			n = spawn_read(fd, buf + *len, c->cap - *len);
		else
			n = spawn_read(fd, junk, sizeof(junk));
		if (n <= 0)
			break;
		if (*len < c->cap)
			*len += (size_t)n;
	}
	buf[*len] = '\0';
}

void
feed_cmd_step(struct feed_exec *x, uint64_t now)
{
	struct feed_cmd	*c = x->impl;
	char		 how[128];

	if (c->done)
		return;
	feed_cmd_drain(c, &c->sp.out, c->out, &c->outlen);
	feed_cmd_drain(c, &c->sp.err, c->err, &c->errlen);
	if (!c->sp.killed && spawn_expired(&c->sp, now)) {
		spawn_kill(&c->sp, SIGKILL);
		snprintf(c->why, sizeof(c->why), "timed out after %u s",
		    (c->timeout_ms + 999) / 1000);
	}
	if ((c->sp.out >= 0 || c->sp.err >= 0) && !c->sp.killed)
		return;
	if (!spawn_reap(&c->sp, 0))
		return;
	if (WIFEXITED(c->sp.status) && c->why[0] == '\0')
		c->status = WEXITSTATUS(c->sp.status);
	else if (c->why[0] == '\0') {
		spawn_describe(c->sp.status, how, sizeof(how));
		snprintf(c->why, sizeof(c->why), "%s", how);
	}
	c->done = 1;
}

void
feed_cmd_reap(struct feed_exec **xp)
{
	struct feed_cmd	*c;

	if (*xp == NULL)
		return;
	c = (*xp)->impl;
	if (c->released && (c->done || c->sp.pid < 0 || c->sp.killed)) {
		feed_cmd_destroy(c);
		*xp = NULL;
	}
}

void
feed_cmd_disown(struct feed_exec **xp)
{
	struct feed_cmd	*c;

	if (*xp == NULL)
		return;
	c = (*xp)->impl;
	*xp = NULL;
	if (c->released) {
		feed_cmd_destroy(c);
		return;
	}
	if (!c->done) {
		spawn_kill(&c->sp, SIGKILL);
		spawn_reap(&c->sp, 1);
		snprintf(c->why, sizeof(c->why), "the session closed");
		c->done = 1;
	}
	c->owned = 0;
}
