/* SPDX-License-Identifier: ISC */
/*
 * session: the monitor's one poll() loop over every node of a job.  Each
 * node has a feed (its transport) and a stream decoder; the loop moves
 * bytes from feeds into decoders, tracks each node's state (connecting,
 * live, lost, refused...), stops probes after --count samples or on a
 * signal, and tells its user through hooks: raw bytes as they arrive (the
 * recorder), decoded messages (batch output, the UI), and state changes.
 * Extra descriptors (the UI's keyboard) join the same poll through hooks.
 */
#ifndef JOBTOP_SESSION_H
#define JOBTOP_SESSION_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "feed.h"
#include "model.h"

struct session;

struct session_hooks {
	void	*arg;
	/* Bytes a node's probe sent, before decoding (wall-clock ms). */
	void	(*bytes)(void *, struct session *, int, uint64_t,
		    const void *, size_t);
	/* The node's probe stream starts again (a reconnect: a new HELLO
	 * follows), before its first bytes reach the bytes hook. */
	void	(*restart)(void *, struct session *, int, uint64_t);
	/* A message decoded and applied to the node's model. */
	void	(*message)(void *, struct session *, int, int);
	/* The node's state text changed (old is "" at first). */
	void	(*state)(void *, struct session *, int, const char *,
		    const char *);
	/* Extra descriptors to poll (at most max); returns how many. */
	int	(*pollfds)(void *, struct pollfd *, int);
	/* After poll(): the extra descriptors with their revents. */
	void	(*ready)(void *, struct session *, const struct pollfd *,
		    int, uint64_t);
	/* Milliseconds until the hooks need a wake-up; -1 none. */
	int	(*timeout)(void *, uint64_t);
	/* The node's transport ("libssh2", "ssh") is known or changed;
	 * skipped says why cheaper ones were skipped ("" none). */
	void	(*transport)(void *, struct session *, int, const char *,
		    const char *);
};

struct session_conf {
	long long	count;		/* samples per node, 0 unlimited */
	double		interval;	/* seconds */
	unsigned	lost_ms;	/* live but silent this long: lost */
};

struct session	*session_new(const struct session_conf *,
		    const struct session_hooks *);
/* Add a node; the session owns the feed (NULL: the node failed to
 * start, with the reason). */
int		 session_add(struct session *, const char *, struct feed *,
		    const char *);
/* Run until every node is done or a quit; 0, or 1 when a node failed. */
int		 session_run(struct session *);
/* Sample every secs from now on: every live probe is told, probes that
 * start later (reconnects) start with it, and a node counts as lost after
 * two and a half silent intervals of the new length.  Returns how many
 * probes were told. */
int		 session_set_interval(struct session *, double);
/* Node i's feed (for a side command: feed_exec_start), NULL when it has
 * none. */
struct feed	*session_node_feed(struct session *, int);
/* Ask every probe to stop (a hook may call it: the 'q' key); the run
 * ends once they have, or after a grace of a few seconds. */
void		 session_quit(struct session *);
/* Ask every probe to stop but keep the loop going for the hooks (keys,
 * timers) until session_quit or a signal: the job ended and the screen
 * stays until q. */
void		 session_stop_probes(struct session *);
void		 session_free(struct session *);

int		 session_nnodes(const struct session *);
const char	*session_node_name(const struct session *, int);
const struct node_model *session_node_model(const struct session *, int);
const char	*session_node_state(const struct session *, int);
/* The phase of that state, as the feed (or the session: lost for no
 * data, failed) gave it with the text. */
enum feed_phase	 session_node_phase(const struct session *, int);
/* The transport serving node i ("" before it is known), and why cheaper
 * ones were skipped ("" when none were). */
const char	*session_node_transport(const struct session *, int);
const char	*session_node_skipped(const struct session *, int);
/* Why the node failed for good, or NULL. */
const char	*session_node_error(const struct session *, int);
/* Node i's decoder refused a frame of its current stream. */
int		 session_node_refused(const struct session *, int);
uint64_t	 session_node_samples(const struct session *, int);
/* The EVENT the message hook was just called for. */
const struct proto_event *session_node_event(const struct session *, int);
int		 session_node_lost(const struct session *, int);


#endif
