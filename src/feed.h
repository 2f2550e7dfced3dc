/* SPDX-License-Identifier: ISC */
/*
 * feed: where one node's probe stream comes from, as a const descriptor of
 * operations so the session loop drives every transport the same way.
 * Transports: a local child over pipes (feed-local.c), and for other
 * nodes those listed in feed_transports[] (remote/ladder.c): libssh2
 * sessions (remote/feed-libssh2.c), the system OpenSSH client
 * (remote/feed-ssh.c), the schedulers' launchers, and whatever a later
 * file adds.  src/ knows them only through this interface and the table
 * src/main.c registers (feed_register_transports).
 *
 * How to add a transport: one file (remote/feed-NAME.c) with its
 * `const struct feed_ops` and a constructor of type feed_open_fn (its
 * prototype, and its usable() check's if it has one, in remote/ladder.h),
 * and one row in feed_transports[] (remote/ladder.c) whose .what is its
 * line in --help.  --transport NAME, the settings file's transport and
 * --help then know it by name.  --transport auto tries it in the row's
 * order if the row is marked FEED_T_LADDER, and its flags and .first say
 * how it stands on the ladder (an SSH rung, a scheduler's launcher, the
 * start of a large job); when a node moves to a launcher after SSH
 * refused it is feed_ladder_next's decision (ladder.c), which names the
 * launchers' rules (feed-srun.c, feed-ssh.c).  The Makefile takes every
 * .c file in remote/.
 *
 * The loop, for every feed: pollfds() to fill pollfd slots, timeout() for
 * its deadline; after poll(), step() with the slots' revents; then read()
 * until it returns 0 (nothing now) or -1 (this probe stream ended: a
 * transport that reconnects may start a new one later, beginning with a
 * new HELLO; hello.c finds it after what a login shell printed).
 */
#ifndef JOBTOP_FEED_H
#define JOBTOP_FEED_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FEED_MAX_FDS	6

struct feed;
struct rconf;

/* Where a node stands.  The words people see (feed_state) come from it
 * in one place, feed_phase_word.  Recordings store these values (a state
 * event's subject, PROTOCOL.md): add at the end, never renumber. */
enum feed_phase {
	FEED_WAITING,		/* for a slot (fan-out limit) */
	FEED_CONNECTING,
	FEED_PUSHING,		/* the probe goes to the node's cache */
	FEED_STARTING,		/* the probe is being started */
	FEED_LIVE,
	FEED_STOPPING,		/* asked to end, its stream still comes */
	FEED_LOST,		/* will retry: reason says why it was lost */
	FEED_REFUSED,		/* for good, a retry cannot fix it */
	FEED_FAILED,		/* for good, gave up */
	FEED_CLOSED,		/* ended as asked */
	FEED_NPHASES
};

/* Why a transport failed for a node, for the ladder's next step. */
enum feed_fail {
	FEED_FAIL_NONE,
	FEED_FAIL_AUTH,		/* authentication refused */
	FEED_FAIL_DENIED,	/* the node refuses this user at all
				 * (DenyUsers, pam_slurm_adopt, no sshd) */
	FEED_FAIL_UNSUPPORTED,	/* the transport cannot do what the
				 * user's setup needs */
	FEED_FAIL_OTHER
};

/*
 * A side command on the node (a backtrace): runs beside the probe, never
 * blocks, is driven by the feed's steps.  Its stdout and stderr are kept
 * up to cap bytes each (the rest is dropped); after timeout_ms it is
 * ended.  status is its exit status, -1 while it runs or when it did not
 * exit; why is "" or why it ended early ("timed out after 15 s", "the
 * connection to the node was lost").  free lets go of it, running or not.
 */
struct feed_exec;
struct feed_exec_ops {
	int		(*done)(const struct feed_exec *);
	const char	*(*out)(const struct feed_exec *, size_t *);
	const char	*(*err)(const struct feed_exec *, size_t *);
	int		(*status)(const struct feed_exec *);
	const char	*(*why)(const struct feed_exec *);
	void		(*free)(struct feed_exec *);
};
struct feed_exec {
	const struct feed_exec_ops *ops;
	void			*impl;
};

struct feed_ops {
	const char	*name;		/* the transport: "local", "ssh" */
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
	/* The phase, and its reason ("" when none; never NULL). */
	enum feed_phase	(*phase)(struct feed *, const char **);
	/* Why it ended for good, as a class for the ladder (NULL: OTHER
	 * when it failed or was refused). */
	enum feed_fail	(*failure)(struct feed *);
	/* Tell the probe to sample every ms; 0, or -1 when it cannot. */
	int		(*set_interval)(struct feed *, unsigned);
	/* A side command (struct feed_exec); NULL with the reason in err.
	 * NULL op: this transport cannot. */
	struct feed_exec *(*exec_start)(struct feed *, const char *, size_t,
			    unsigned, char *, size_t);
	/* The transport's name for this node when it varies (the ladder);
	 * NULL: ops->name. */
	const char	*(*transport)(struct feed *);
	void		(*free)(struct feed *);
};

struct feed {
	const struct feed_ops	*ops;
	void			*impl;
	/* Why cheaper transports were skipped for this node: NULL (none)
	 * or "libssh2: RSA key needs rsa-sha2 signatures ...", set by the
	 * ladder.  Both strings are allocated only for the nodes that have
	 * them: a thousand healthy nodes hold none (they were 1.1 KiB of
	 * every feed, and a node has two under the ladder). */
	char			*skipped;
	char			*statebuf;	/* "lost: why", FEED_STATE_MAX */
};

/* The longest skipped list and state text kept (longer ones are cut). */
#define FEED_SKIPPED_MAX	512
#define FEED_STATE_MAX		640

/* A transport's constructor: a feed for host with the shared
 * configuration, or NULL with the reason in err. */
typedef struct feed *(*feed_open_fn)(const struct rconf *, const char *,
	    char *, size_t);
/* Can the transport serve host at all, before trying?  0, or -1 with why
 * not ("libssh2: ProxyJump node1 in ~/.ssh/config") in why. */
typedef int (*feed_usable_fn)(const struct rconf *, const char *, char *,
	    size_t);

#define FEED_T_LADDER	0x1	/* part of --transport auto, in order */
#define FEED_T_SSH	0x2	/* an SSH rung: its refusal of the user
				 * sends the node to a launcher */
#define FEED_T_LAUNCHER	0x4	/* a scheduler's launcher, not SSH */

struct feed_transport {
	const char	*name;
	feed_open_fn	 open;
	feed_usable_fn	 usable;	/* NULL: always */
	int		 flags;
	const char	*what;		/* one line for --help */
	/* Does the ladder start every node of the job here, before any
	 * SSH rung (a job too large for a session per node)?  1 with why
	 * the cheaper ones are skipped, else 0.  NULL: never. */
	int		(*first)(const struct rconf *, char *, size_t);
	/* After an SSH rung (cur) failed for host with fail and reason:
	 * this transport's name to move the node to, with why the cheaper
	 * one could not serve it; NULL: not here.  NULL op: never. */
	const char	*(*takeover)(const struct rconf *, const char *,
			    const char *, enum feed_fail, const char *, char *,
			    size_t);
};

/* The registry of remote transports, ending with a NULL name: remote/'s
 * feed_transports[], handed over by src/main.c (and tests) before any
 * lookup; until then no transport is known but "auto". */
void		 feed_register_transports(const struct feed_transport *);
const struct feed_transport *feed_transport_find(const char *);
/* "auto, libssh2, ssh": for messages. */
const char	*feed_transport_names(void);

/* A probe run locally with argv (argv[0] is its path); NULL with the
 * reason in err. */
struct feed	*feed_new_local(const char *, char *const [], char *, size_t);
/* For a transport's constructor: a feed with ops and impl, all else 0. */
struct feed	*feed_alloc(const struct feed_ops *, void *);
void		 feed_free(struct feed *);

/* The phase and its reason (never NULL). */
enum feed_phase	 feed_phase(struct feed *, const char **);
/* "live", "lost: Connection refused", "refused: host key for node3
 * changed", "failed: ...", "closed": the words the UI, batch output and
 * recordings have always shown, from the phase. */
const char	*feed_state(struct feed *);
const char	*feed_phase_word(enum feed_phase);
/* Why it ended for good, "" when it did not or ended as asked. */
const char	*feed_error(struct feed *);
enum feed_fail	 feed_failure(struct feed *);
/* The transport now serving the node ("ssh"). */
const char	*feed_transport(struct feed *);
/* Why cheaper transports were skipped: "" when none were. */
const char	*feed_skipped(const struct feed *);
void		 feed_set_skipped(struct feed *, const char *);
/* Tell the probe to sample every ms (a control line, PROTOCOL.md); a
 * transport that restarts probes starts them with it.  0, or -1 when the
 * transport cannot (a replay, a stopped probe). */
int		 feed_set_interval(struct feed *, unsigned);
/* A side command on the node (see struct feed_exec); NULL with the
 * reason in err. */
struct feed_exec *feed_exec_start(struct feed *, const char *, size_t,
		    unsigned, char *, size_t);
int		 feed_exec_done(const struct feed_exec *);
const char	*feed_exec_out(const struct feed_exec *, size_t *);
const char	*feed_exec_err(const struct feed_exec *, size_t *);
int		 feed_exec_status(const struct feed_exec *);
const char	*feed_exec_why(const struct feed_exec *);
void		 feed_exec_free(struct feed_exec *);

/*
 * A side command as a local child (sh -c cmd through spawn.c), for
 * transports that run commands with a local process (the local feed: the
 * command itself; the ssh transport: a second ssh).  The owning feed
 * polls and steps it: feed_cmd_pollfds (at most 2 slots), feed_cmd_step
 * and feed_cmd_timeout.  argv NULL: /bin/sh -c cmd.
 */
struct feed_exec *feed_cmd_start(char *const [], const char *, size_t,
		    unsigned, char *, size_t);
/* The same from a request the caller filled (spawn.h: path, argv, envp,
 * and the uid, groups and directory of SPAWN_DROP: a launcher that root
 * starts as the job's owner); its pipes, session and deadline are added. */
struct spawn_req;
struct feed_exec *feed_cmd_start_req(const struct spawn_req *, size_t,
		    unsigned, char *, size_t);
int		 feed_cmd_pollfds(struct feed_exec *, struct pollfd *);
int		 feed_cmd_timeout(struct feed_exec *, uint64_t);
void		 feed_cmd_step(struct feed_exec *, uint64_t);
/* The owner's side: free *xp once it ended and its caller let go (then
 * *xp becomes NULL); disown ends it now ("the session closed") and frees
 * it, or leaves it to its caller's feed_exec_free. */
void		 feed_cmd_reap(struct feed_exec **);
void		 feed_cmd_disown(struct feed_exec **);

#endif
