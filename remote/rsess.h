/* SPDX-License-Identifier: ISC */
/*
 * rsess: one node's SSH session as a state machine that never blocks, for
 * the monitor's single poll() loop.  A session resolves the node, connects,
 * does the SSH handshake, checks the host key, authenticates, pushes the
 * probe unless the node has it cached, runs it and streams its standard
 * output; when a live node is lost it reconnects after 1, 2, 4 ... 30 s.
 * Host key and authentication refusals are final.  States:
 *
 *	RESOLVE -> CONNECT -> HANDSHAKE -> HOSTKEY -> AUTH -> PUSH -> EXEC
 *	    -> STREAM;  any -> BACKOFF -> RESOLVE;  any -> DEAD
 *
 * The loop, for every session s:
 *
 *	rsess_pollfd(s, &pfd[i]);           fd -1: none (timer or done)
 *	t = rsess_timeout(s, now);          ms, -1: none; take the minimum
 *	poll(pfd, n, min t);
 *	if (pfd[i].revents != 0 || rsess_timeout(s, now) == 0)
 *		rsess_step(s, now);
 *	while ((n = rsess_read(s, buf, sizeof(buf))) > 0)
 *		stream_feed(...);
 *	if (n < 0) ...this probe stream ended: stream_finish, and a new
 *		decoder for the next one (after a reconnect)...
 *
 * Compute every session's pollfd and timeout after stepping all of them:
 * a session waiting for a fan-out slot (another session's) reports
 * timeout 0 once one is free.  Calling rsess_step when nothing is ready
 * is harmless.  Reading until rsess_read returns 0 after each step is
 * required: rsess_timeout stays 0 while bytes wait.
 */
#ifndef JOBTOP_RSESS_H
#define JOBTOP_RSESS_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rconf.h"

enum rsess_state {
	RS_RESOLVE,	/* wait for a fan-out slot, resolve the name */
	RS_CONNECT,	/* non-blocking TCP connect, address by address */
	RS_HANDSHAKE,	/* SSH key exchange */
	RS_HOSTKEY,	/* known_hosts decision */
	RS_AUTH,	/* agent keys, then key files */
	RS_PUSH,	/* uname -m, cache directory, upload when missing */
	RS_EXEC,	/* run the probe on an exec channel (no pty) */
	RS_STREAM,	/* live: probe stdout to the caller */
	RS_BACKOFF,	/* lost: wait, then RESOLVE again */
	RS_DEAD,	/* refused, given up, or stopped */
	RS_NSTATES
};

struct rsess;

/* A session for host (a name the caller validated; ssh_config applies to
 * it).  It starts in RESOLVE; nothing happens before rsess_step.  The
 * rconf must be ready and outlive the session. */
struct rsess	*rsess_new(const struct rconf *, const char *);
/* Close the channel (EOF to the probe, which then exits within one
 * interval even if the EOF is lost: the connection closes too), the
 * session and the socket, without waiting, and free everything. */
void		 rsess_close(struct rsess *);

/* Ask the probe to end: EOF on its stdin.  The session stays live until
 * the probe's stream ends (its BYE arrives, rsess_read returns -1), then
 * goes to DEAD with state "closed".  A session not live goes to DEAD now. */
void		 rsess_stop(struct rsess *);

/* Sample every ms from now on: the live probe is told (a control line on
 * its stdin, PROTOCOL.md), a probe started later (a reconnect) starts with
 * it, and the silence allowed before the node counts as lost follows it. */
void		 rsess_set_interval(struct rsess *, unsigned);

/*
 * One extra command on its own exec channel of a live session (a
 * backtrace on the node), driven by rsess_step like everything else:
 * never blocks.  Its stdout and stderr are kept up to cap bytes each (the
 * rest is read and dropped); after timeout_ms its channel is closed.  At
 * most one per session; NULL with the reason in err when the session is
 * not live or one still runs.  The session owns the channel: when the
 * connection goes, the command ends with a reason.
 */
struct rsess_exec;
struct rsess_exec *rsess_exec_start(struct rsess *, const char *, size_t,
		     unsigned, char *, size_t);
/* 1 once it ended: it exited (status), or why says what happened. */
int		 rsess_exec_done(const struct rsess_exec *);
const char	*rsess_exec_out(const struct rsess_exec *, size_t *);
const char	*rsess_exec_err(const struct rsess_exec *, size_t *);
/* Its exit status; -1 while it runs or when it did not exit. */
int		 rsess_exec_status(const struct rsess_exec *);
/* "" or why it ended without an exit status ("timed out after 15 s",
 * "the connection to the node was lost", "exec: ..."). */
const char	*rsess_exec_why(const struct rsess_exec *);
/* Let go of it (running or not): a running command's channel is closed
 * by the session at its next steps, without blocking. */
void		 rsess_exec_free(struct rsess_exec *);

/* The descriptor and events to poll (events from
 * libssh2_session_block_directions); fd -1 when waiting on a timer. */
void		 rsess_pollfd(const struct rsess *, struct pollfd *);
/* Milliseconds until the session needs a step even without I/O: 0 now,
 * -1 never (no deadline; DEAD, or waiting for a slot). */
int		 rsess_timeout(const struct rsess *, uint64_t);
/* Advance as far as possible: libssh2 calls until one would block
 * (LIBSSH2_ERROR_EAGAIN), a timer is pending or the state is final.
 * Never blocks (but see RESOLVE in rsess.c), never spins. */
void		 rsess_step(struct rsess *, uint64_t);

/* Probe output: bytes copied (from the probe's HELLO on: anything a
 * login shell printed before it is dropped and logged), 0 when none now,
 * -1 once when a probe stream ended (then 0 until a new stream starts
 * after a reconnect, with a new HELLO). */
ssize_t		 rsess_read(struct rsess *, void *, size_t);

/* For the UI: "waiting", "connecting", "pushing", "starting", "live",
 * "stopping", "lost: Connection refused", "refused: host key for node3
 * changed", "failed: ...", "closed". */
const char	*rsess_state(const struct rsess *);
enum rsess_state rsess_phase(const struct rsess *);
/* The last error alone ("Connection refused"), "" when none. */
const char	*rsess_error(const struct rsess *);
/* 1 when the session is DEAD because of a refusal that a retry cannot
 * fix (host key, authentication, architecture, cache directory). */
int		 rsess_refused(const struct rsess *);
/* 1 when it is DEAD because authentication was refused. */
int		 rsess_auth_refused(const struct rsess *);
/* 1 when it is DEAD because ssh_config asks for what it cannot do. */
int		 rsess_config_refused(const struct rsess *);
const char	*rsess_host(const struct rsess *);
/* For jobtop --explain: what authenticated ("~/.ssh/id_ed25519", "an
 * ssh-agent key"; "" before), the methods tried before ("" when none),
 * and the remote user. */
const char	*rsess_auth_method(const struct rsess *);
const char	*rsess_auth_tried(const struct rsess *);
const char	*rsess_user(const struct rsess *);
/* How many times the probe was uploaded (0 when the node had it). */
unsigned	 rsess_uploads(const struct rsess *);

/* The state table, for tests and logs: name ("HANDSHAKE") and the
 * state's own deadline in ms (0: none; CONNECT uses connect_timeout_ms,
 * STREAM the data timeout). */
const char	*rsess_state_name(enum rsess_state);
unsigned	 rsess_state_timeout(enum rsess_state);

#endif
