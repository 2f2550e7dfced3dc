/*
 * feed: where one node's probe stream comes from, as a const descriptor of
 * operations so the session loop drives every transport the same way.
 * Two transports exist: a local child over pipes (feed-local.c) and an SSH
 * session (remote/rsess.c).  How to add one: write its operations in
 * feed.c (or its own file) as a `const struct feed_ops`, and a constructor
 * that returns a struct feed with them.
 *
 * The loop, for every feed: pollfds() to fill pollfd slots, timeout() for
 * its deadline; after poll(), step() with the slots' revents; then read()
 * until it returns 0 (nothing now) or -1 (this probe stream ended: a
 * transport that reconnects may start a new one later, beginning with a
 * new HELLO).
 */
#ifndef JOBTOP_FEED_H
#define JOBTOP_FEED_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FEED_MAX_FDS	2

struct feed;
struct rconf;
struct rsess;

struct feed_ops {
	const char	*name;
	/* Fill up to FEED_MAX_FDS slots; returns how many. */
	int		(*pollfds)(struct feed *, struct pollfd *);
	/* Milliseconds until it needs a step without I/O; -1 none. */
	int		(*timeout)(struct feed *, uint64_t);
	/* Advance after poll(): the slots pollfds filled, with revents. */
	void		(*step)(struct feed *, uint64_t, const struct pollfd *,
			    int);
	/* Probe bytes: > 0 copied, 0 none now, -1 the stream ended. */
	ssize_t		(*read)(struct feed *, void *, size_t);
	/* Ask the probe to end (EOF on its stdin). */
	void		(*stop)(struct feed *);
	/* Finished for good: nothing more will come. */
	int		(*done)(struct feed *);
	/* A short state for people: "connecting", "live", "lost: ...". */
	const char	*(*state)(struct feed *);
	/* Why it failed for good ("" when it did not). */
	const char	*(*error)(struct feed *);
	void		(*free)(struct feed *);
};

struct feed {
	const struct feed_ops	*ops;
	void			*impl;
};

/* A probe run locally with argv (argv[0] is its path); NULL with the
 * reason in err. */
struct feed	*feed_new_local(const char *, char *const [], char *, size_t);
/* An SSH session to host with the shared configuration. */
struct feed	*feed_new_ssh(const struct rconf *, const char *);
void		 feed_free(struct feed *);
/* Tell the probe to sample every ms (a control line, PROTOCOL.md); a
 * transport that restarts probes starts them with it.  0, or -1 when the
 * transport cannot (a replay, a stopped probe). */
int		 feed_set_interval(struct feed *, unsigned);
/* The SSH session behind an SSH feed, NULL for other transports. */
struct rsess	*feed_rsess(struct feed *);

#endif
