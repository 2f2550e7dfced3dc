/* SPDX-License-Identifier: ISC */
/*
 * rsess: the per-node session state machine.  Each state has one step
 * function in rsess_states[]; a step makes one libssh2 (or socket) call and
 * says whether to go on (STEP_GO) or to wait (STEP_WAIT) for the socket in
 * the direction libssh2_session_block_directions() names, or for a timer.
 * On LIBSSH2_ERROR_EAGAIN the same call is repeated with the same
 * arguments at the next step, as libssh2 requires, so every piece of a
 * call's input lives in the session, not on the stack.  States with
 * several calls (AUTH, PUSH) keep a sub-step index.
 *
 * A command on a channel of its own (struct rsess_cmd) has one machine,
 * rsess_cmd_step: open (or scp), exec, write its stdin, EOF, read both
 * streams to EOF, close, wait for the close and its exit status, free.
 * PUSH runs its set-up commands (check, upload, install) on it, one at a
 * time, and fails the session when one fails.  Beside the probe's
 * channel a live session runs at most one extra command on the same
 * machine (rsess_exec_*: a backtrace on the node), under a deadline of
 * its own.  It is stepped from STREAM before the probe's output is read;
 * when one of its calls returns EAGAIN while libssh2 holds an unsent
 * packet (the session blocks outbound), the step ends there so that the
 * same call comes first next time, as libssh2 requires; an EAGAIN that
 * only waits for input lets the probe's channel be read meanwhile.  Its
 * failures end the command, never the session.
 *
 * Failures go through rsess_fail: a refusal a retry cannot fix (host key,
 * authentication, architecture, unsafe cache directory) ends in DEAD; other
 * failures go to BACKOFF, and a node that was never live gives up after
 * rconf.retries of them.
 *
 * RESOLVE never blocks: a numeric address resolves at once, and a name
 * goes to glibc's asynchronous resolver (getaddrinfo_a, which asks
 * /etc/hosts, DNS and the rest of nsswitch on a thread of its own); the
 * step polls for the answer on a short timer while it runs, gives up after
 * RSESS_DNS_MS, and each name is resolved once per session, not at every
 * reconnect.
 */
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libssh2.h>

#include "pstream.h"
#include "hostkey.h"
#include "lsalloc.h"
#include "rconf.h"
#include "rpush.h"
#include "rsess.h"
#include "rutil.h"
#include "sshconf.h"
#include "textsafe.h"
#include "xmalloc.h"

#define RSESS_BUF_MAX	(1 << 20)	/* probe bytes held for the caller */
#define RSESS_STEPS	64		/* steps per rsess_step call */
#define RSESS_T_CONF	UINT32_MAX	/* timeout comes from the rconf */
#define RSESS_SLOW_DNS	200		/* ms: log a slow lookup */
#define RSESS_DNS_MS	10000		/* ms: give up on a lookup */
#define RSESS_DNS_TICK	10		/* ms: poll a running lookup */
/* A probe that hears nothing on its stdin (the heartbeat goes with every
 * keepalive) for this many keepalive intervals ends by itself: a monitor
 * that died behind a dead link leaves no probe behind for long. */
#define RSESS_WATCHDOG_KA	4

/* One asynchronous lookup; the resolver's thread owns it until done. */
struct rsess_gai {
	struct gaicb		 cb;
	struct addrinfo		 hints;
	char			 port[16];
	uint64_t		 since;
	uint64_t		 next;		/* look again then */
};

enum { STEP_WAIT, STEP_GO };

/* The phases of a command on a channel: open (or scp), exec, write, EOF,
 * read until EOF, close, wait for the close, free. */
enum rsess_cmd_phase {
	CMD_OPEN, CMD_EXEC, CMD_WRITE, CMD_EOF, CMD_READ, CMD_CLOSE,
	CMD_WAIT, CMD_FREE, CMD_DONE
};

/* What one rsess_cmd_step did: a call returned EAGAIN and must come
 * again (WAIT), it moved on (GO), no output yet (IDLE), the command is
 * over (DONE), or it failed (FAIL: why says how; its channel, if open,
 * is still to close). */
enum { CMD_R_WAIT, CMD_R_GO, CMD_R_IDLE, CMD_R_DONE, CMD_R_FAIL };

struct rsess_cmd {
	enum rsess_cmd_phase	 phase;
	LIBSSH2_CHANNEL		*ch;
	char			*cmd;		/* exec; NULL for scp */
	char			*scp_path;	/* scp destination */
	const uint8_t		*data;		/* written to stdin (scp) */
	size_t			 len, off;
	/* What it prints: up to outcap and errcap bytes kept (each buffer
	 * one more, for the NUL).  A set-up command's are allocated by
	 * rsess_cmd_start and given back once the probe streams (2.5 KiB
	 * a node that a thousand live sessions held for nothing). */
	char			*out, *err;
	size_t			 outcap, errcap;
	size_t			 outlen, errlen;
	int			 status;	/* -1: did not exit */
	int			 verbose;	/* log its start and end */
	char			 why[256];	/* "" or why it failed */
};

#define RSESS_CMD_OUT	2048	/* a set-up command's stdout kept */
#define RSESS_CMD_ERR	512	/* and its stderr */

/* The extra command: the machine's command, its deadline, its caller. */
struct rsess_exec {
	struct rsess		*s;		/* NULL once the session went */
	struct rsess_cmd	 c;
	unsigned		 timeout_ms;
	uint64_t		 deadline;	/* 0 until it starts */
	int			 released;	/* the caller let go */
};

/* Sub-steps of PUSH; the NVML helper's upload and install follow the
 * probe's. */
enum {
	PUSH_START, PUSH_CHECK, PUSH_UPLOAD, PUSH_INSTALL, PUSH_HUPLOAD,
	PUSH_HINSTALL
};

/* Sub-steps of AUTH. */
enum {
	AUTH_LIST, AUTH_AGENT, AUTH_AGENT_NEXT, AUTH_AGENT_TRY, AUTH_FILE,
	AUTH_FILE_TRY
};

struct rsess {
	const struct rconf	*conf;
	char			*host;		/* as given */
	char			*hostname;	/* to connect to */
	char			*user;
	int			 port;
	char			**ids;		/* key files to try */
	int			 nids;
	int			 ids_only;
	unsigned		 connect_ms;
	char			*config_err;	/* ssh_config refused it */
	struct hostkeys		*hk;		/* its known_hosts files */
	const char		*known_add;	/* accept-new's file, NULL */

	enum rsess_state	 state;
	int			 sub;
	uint64_t		 now;
	uint64_t		 deadline;	/* 0: none */
	uint64_t		 wake;		/* BACKOFF timer */
	uint64_t		 ka_next;	/* next keepalive */
	unsigned		 ka_s;		/* keepalive interval, 0 off */
	int			 ctl_alive;	/* a heartbeat still to send */
	int			 ready;		/* step again without I/O */
	int			 slot;		/* holds a fan-out slot */
	int			 live;		/* ever delivered data */
	int			 fails;
	int			 refused;
	int			 auth_refused;	/* refused in AUTH */
	int			 stopping;
	int			 stopped;
	int			 eof_sent;	/* on the probe's channel */
	int			 scp_failed;	/* upload through cat instead */
	int			 fast;		/* EXEC without a check first */
	int			 fast_miss;	/* ... and it was not cached */
	int			 nvml_up;	/* the helper needs an upload */
	int			 nvml_ok;	/* the helper is there: --nvml */
	long			 probe_pid;	/* the live probe's, on the node */
	unsigned		 interval_ms;	/* 0: the rconf's */
	unsigned		 ctl_ms;	/* an interval still to send, 0 */
	char			 ctl[64];	/* a control line being sent */
	size_t			 ctllen, ctloff;
	long			 stale_pid;	/* a lost one's, to kill */
	unsigned		 uploads;

	struct addrinfo		*ai, *aicur;
	struct rsess_gai	*gai;		/* a lookup in flight */
	int			 sock;
	int			 sock_err;
	LIBSSH2_SESSION		*ssh;

	LIBSSH2_AGENT		*agent;
	struct libssh2_agent_publickey *ident;
	int			 id_idx;
	int			 agent_keys;
	char			 tried[512];
	char			 authed[512];	/* how it logged in */

	struct rsess_cmd	 cmd;
	char			*tmpname;
	struct rsess_exec	*x;		/* an extra command, or NULL */

	LIBSSH2_CHANNEL		*ch;		/* the probe's */
	struct pstream		 ps;		/* the probe's stream */
	size_t			 junk;
	char			 lasterr[256];	/* probe's last stderr line */
	char			 errline[256];	/* partial stderr line */
	size_t			 errlinelen;

	char			 err[512];
	char			 statebuf[600];
};

static int	rsess_do_resolve(struct rsess *);
static void	rsess_gai_drop(struct rsess *);
static int	rsess_do_connect(struct rsess *);
static int	rsess_do_handshake(struct rsess *);
static int	rsess_do_hostkey(struct rsess *);
static int	rsess_do_auth(struct rsess *);
static int	rsess_do_push(struct rsess *);
static int	rsess_do_exec(struct rsess *);
static int	rsess_do_stream(struct rsess *);
static int	rsess_do_backoff(struct rsess *);
static int	rsess_do_dead(struct rsess *);

/*
 * The states, in the order a session goes through them.  To add one: a
 * value in enum rsess_state (rsess.h) at the same position, a step
 * function that makes one call and returns STEP_GO or STEP_WAIT, its
 * deadline in ms (0 none, RSESS_T_CONF from the rconf), and what the UI
 * shows while in it.
 */
static const struct rsess_state_def {
	const char	*name;
	int		(*step)(struct rsess *);
	uint32_t	 timeout_ms;
	const char	*ui;
} rsess_states[RS_NSTATES] = {
	{ .name = "RESOLVE", .step = rsess_do_resolve, .ui = "connecting" },
	{ .name = "CONNECT", .step = rsess_do_connect,
	    .timeout_ms = RSESS_T_CONF, .ui = "connecting" },
	{ .name = "HANDSHAKE", .step = rsess_do_handshake, .timeout_ms = 20000,
	    .ui = "connecting" },
	{ .name = "HOSTKEY", .step = rsess_do_hostkey, .ui = "connecting" },
	{ .name = "AUTH", .step = rsess_do_auth, .timeout_ms = 30000,
	    .ui = "connecting" },
	{ .name = "PUSH", .step = rsess_do_push, .timeout_ms = 120000,
	    .ui = "pushing" },
	{ .name = "EXEC", .step = rsess_do_exec, .timeout_ms = 20000,
	    .ui = "starting" },
	{ .name = "STREAM", .step = rsess_do_stream,
	    .timeout_ms = RSESS_T_CONF, .ui = "live" },
	{ .name = "BACKOFF", .step = rsess_do_backoff, .ui = "lost" },
	{ .name = "DEAD", .step = rsess_do_dead, .ui = "failed" },
};

const char *
rsess_state_name(enum rsess_state st)
{
	return (unsigned)st < RS_NSTATES ? rsess_states[st].name : "?";
}

unsigned
rsess_state_timeout(enum rsess_state st)
{
	if ((unsigned)st >= RS_NSTATES ||
	    rsess_states[st].timeout_ms == RSESS_T_CONF)
		return 0;
	return rsess_states[st].timeout_ms;
}

static void	rsess_log(const struct rsess *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static int	rsess_fail(struct rsess *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

static void
rsess_log(const struct rsess *s, const char *fmt, ...)
{
	va_list	ap;
	char	line[900];

	if (s->conf->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rconf_log(s->conf, "%s: %s", s->host, line);
}

/* A state's time limit in ms, 0 for none. */
/* Allowed on top of the silence limit before a stream's first bytes. */
#define RSESS_FIRST_DATA_MS	10000

static uint32_t
rsess_limit(const struct rsess *s, enum rsess_state st)
{
	if (st == RS_CONNECT)
		return s->connect_ms;
	if (st == RS_STREAM) {
		uint32_t	t;

		if (s->conf->data_timeout_ms != 0)
			return s->conf->data_timeout_ms;
		t = s->interval_ms != 0 ? 5000 + s->interval_ms * 3 :
		    5000 + (uint32_t)(s->conf->interval * 3000);
		/* Until the stream's first bytes, the login shell runs too:
		 * a site's profile (Lmod, conda, pyenv) on a busy node takes
		 * seconds before the probe starts, and is no lost node. */
		return s->live ? t : t + RSESS_FIRST_DATA_MS;
	}
	return rsess_states[st].timeout_ms;
}

/* The deadline of a state entered now. */
static uint64_t
rsess_deadline(const struct rsess *s, enum rsess_state st)
{
	uint32_t	t = rsess_limit(s, st);

	return t == 0 ? 0 : s->now + t;
}

/* Give back the fan-out slot, once. */
static void
rsess_slot_give(struct rsess *s)
{
	if (s->slot) {
		rconf_slot_give(s->conf);
		s->slot = 0;
	}
}

/* No set-up command: what the last one held goes back. */
static void
rsess_cmd_clear(struct rsess *s)
{
	free(s->cmd.cmd);
	free(s->cmd.scp_path);
	free(s->cmd.out);
	free(s->cmd.err);
	memset(&s->cmd, 0, sizeof(s->cmd));
}

/* Enter a state: log the transition, reset the sub-step, set the
 * deadline. */
static void
rsess_enter(struct rsess *s, enum rsess_state st)
{
	rsess_log(s, "%s -> %s", rsess_states[s->state].name,
	    rsess_states[st].name);
	s->state = st;
	s->sub = 0;
	s->deadline = rsess_deadline(s, st);
	/* The set-up commands are over: their output buffers go back. */
	if (st == RS_STREAM) {
		free(s->cmd.out);
		free(s->cmd.err);
		s->cmd.out = s->cmd.err = NULL;
		s->cmd.outlen = s->cmd.errlen = 0;
	}
}

/* libssh2's text for its last error. */
static const char *
rsess_ssh_error(struct rsess *s)
{
	char	*msg = NULL;

	if (s->ssh == NULL)
		return "no session";
	libssh2_session_last_error(s->ssh, &msg, NULL, 0);
	return msg != NULL && *msg != '\0' ? msg : "unknown error";
}

/* Free a channel whatever its state: the socket is shut down first, so
 * libssh2 cannot wait on it (a close it tries to send fails at once). */
static void
rsess_channel_drop(struct rsess *s, LIBSSH2_CHANNEL **chp)
{
	if (*chp == NULL)
		return;
	if (libssh2_channel_free(*chp) == LIBSSH2_ERROR_EAGAIN) {
		libssh2_session_set_blocking(s->ssh, 1);
		libssh2_channel_free(*chp);
		libssh2_session_set_blocking(s->ssh, 0);
	}
	*chp = NULL;
}

static void	rsess_exec_end(struct rsess *, const char *);

/* Tear the connection down without waiting.  With graceful set, first try
 * (once, non-blocking) to send EOF and close on the probe's channel and a
 * disconnect message; the probe also sees EOF when the connection goes. */
static void
rsess_teardown(struct rsess *s, int graceful)
{
	if (s->ssh != NULL && graceful) {
		if (s->ch != NULL) {
			if (!s->eof_sent)
				libssh2_channel_send_eof(s->ch);
			libssh2_channel_close(s->ch);
		}
		libssh2_session_disconnect(s->ssh, "jobtop closing");
	}
	if (s->sock >= 0)
		shutdown(s->sock, SHUT_RDWR);
	if (s->ssh != NULL) {
		rsess_channel_drop(s, &s->ch);
		rsess_channel_drop(s, &s->cmd.ch);
		if (s->x != NULL)
			rsess_channel_drop(s, &s->x->c.ch);
		if (s->agent != NULL) {
			libssh2_agent_disconnect(s->agent);
			libssh2_agent_free(s->agent);
			s->agent = NULL;
		}
		if (libssh2_session_free(s->ssh) == LIBSSH2_ERROR_EAGAIN) {
			libssh2_session_set_blocking(s->ssh, 1);
			libssh2_session_free(s->ssh);
		}
		s->ssh = NULL;
	}
	if (s->sock >= 0) {
		close(s->sock);
		s->sock = -1;
	}
	s->ident = NULL;
	rsess_exec_end(s, s->stopping ? "the session closed" :
	    "the connection to the node was lost");
	rsess_cmd_clear(s);
	free(s->tmpname);
	s->tmpname = NULL;
	rsess_slot_give(s);
	if (s->ps.eos == 0 && s->state == RS_STREAM)
		pstream_end(&s->ps);
	/* A probe whose end was not seen may outlive its connection. */
	if (s->probe_pid > 0)
		s->stale_pid = s->probe_pid;
	s->probe_pid = 0;
}

/* A failure: record it, tear down, and go to BACKOFF or DEAD. */
static int
rsess_fail(struct rsess *s, int permanent, const char *fmt, ...)
{
	va_list		ap;
	char		msg[sizeof(s->err)];
	unsigned	wait;
	int		i;

	/* The message may be built from s->err itself. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* It may hold node text: stderr lines, a signal name. */
	text_clean_inplace(msg);
	memcpy(s->err, msg, sizeof(s->err));
	rsess_log(s, "%s in %s", s->err, rsess_states[s->state].name);
	rsess_teardown(s, 0);
	s->fails++;
	if (permanent || s->stopping ||
	    (!s->live && s->fails > s->conf->retries)) {
		s->refused = permanent;
		rsess_enter(s, RS_DEAD);
		return STEP_GO;
	}
	i = s->fails - 1 < s->conf->nbackoff ? s->fails - 1 :
	    s->conf->nbackoff - 1;
	wait = s->conf->backoff_ms[i];
	s->wake = s->now + wait;
	rsess_enter(s, RS_BACKOFF);
	rsess_log(s, "retry in %.1f s", wait / 1000.0);
	return STEP_GO;
}

/* What a libssh2 call returned: STEP_WAIT on EAGAIN, else fail. */
static int
rsess_ssh_fail(struct rsess *s, int rc, int permanent, const char *what)
{
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return STEP_WAIT;
	return rsess_fail(s, permanent, "%s: %s", what, rsess_ssh_error(s));
}

struct rsess *
rsess_new(const struct rconf *conf, const char *host)
{
	struct sshconf_host	 h;
	struct rsess		*s;
	char			 err[512];
	int			 i;

	s = xcalloc(1, sizeof(*s));
	pstream_init(&s->ps, RSESS_BUF_MAX);
	s->conf = conf;
	s->host = xstrdup(host);
	s->sock = -1;
	s->state = RS_RESOLVE;
	if (sshconf_lookup(rconf_sshconf(conf), host, conf->user, &h, err,
	    sizeof(err)) != 0)
		s->config_err = xstrdup(err);
	else if (h.proxy != NULL)
		s->config_err = xasprintf("%s is not supported", h.proxy);
	s->hostname = xstrdup(h.hostname);
	s->user = xstrdup(h.user != NULL ? h.user : conf->user);
	s->port = h.port != 0 ? h.port : conf->port;
	s->ids_only = h.identities_only == 1;
	s->connect_ms = h.connect_timeout > 0 ?
	    (unsigned)h.connect_timeout * 1000 : conf->connect_timeout_ms;
	s->ka_s = h.server_alive >= 0 ? (unsigned)h.server_alive :
	    conf->keepalive_s;
	{
		const char	*kerr;

		s->hk = rconf_hostkeys_for(conf, h.known_user, h.nknown_user,
		    h.known_global, h.nknown_global, &s->known_add, &kerr);
		if (s->hk == NULL && s->config_err == NULL)
			s->config_err = xstrdup(kerr);
	}
	if (h.nidentity > 0) {
		s->ids = h.identity;
		s->nids = h.nidentity;
		h.identity = NULL;
		h.nidentity = 0;
	} else {
		s->ids = xcalloc((size_t)conf->nidentity + 1,
		    sizeof(*s->ids));
		for (i = 0; i < conf->nidentity; i++)
			s->ids[s->nids++] = xstrdup(conf->identity[i]);
	}
	sshconf_host_free(&h);
	if (strcmp(s->hostname, host) != 0 || s->port != 22)
		rsess_log(s, "is %s@%s port %d", s->user, s->hostname,
		    s->port);
	return s;
}

void
rsess_close(struct rsess *s)
{
	int	i;

	if (s == NULL)
		return;
	rsess_teardown(s, 1);
	rsess_gai_drop(s);
	if (s->ai != NULL)
		freeaddrinfo(s->ai);
	for (i = 0; i < s->nids; i++)
		free(s->ids[i]);
	free(s->ids);
	free(s->host);
	free(s->hostname);
	free(s->user);
	free(s->config_err);
	pstream_free(&s->ps);
	if (s->x != NULL)
		s->x->s = NULL;		/* the caller still holds it */
	free(s);
}

void
rsess_stop(struct rsess *s)
{
	if (s->stopping)
		return;
	s->stopping = 1;
	if (s->state != RS_STREAM) {
		rsess_teardown(s, 1);
		s->err[0] = '\0';
		s->stopped = 1;
		rsess_enter(s, RS_DEAD);
		return;
	}
	rsess_log(s, "asking the probe to stop");
	s->ready = 1;
}

/*
 * Forget a lookup in flight.  One the resolver cannot cancel any more is
 * still being written by its thread: it is left to it (a few hundred
 * bytes, only when a session closes in the middle of a lookup).
 */
static void
rsess_gai_drop(struct rsess *s)
{
	struct rsess_gai	*g = s->gai;

	if (g == NULL)
		return;
	s->gai = NULL;
	if (gai_error(&g->cb) == EAI_INPROGRESS &&
	    gai_cancel(&g->cb) == EAI_NOTCANCELED)
		return;
	if (g->cb.ar_result != NULL)
		freeaddrinfo(g->cb.ar_result);
	free(g);
}

/* Start looking name up without waiting: 0, or a getaddrinfo error. */
static int
rsess_gai_start(struct rsess *s)
{
	struct rsess_gai	*g;
	struct gaicb		*list[1];
	int			 rc;

	g = xcalloc(1, sizeof(*g));
	g->hints.ai_family = AF_UNSPEC;
	g->hints.ai_socktype = SOCK_STREAM;
	g->hints.ai_flags = AI_NUMERICSERV;
	snprintf(g->port, sizeof(g->port), "%d", s->port);
	g->cb.ar_name = s->hostname;
	g->cb.ar_service = g->port;
	g->cb.ar_request = &g->hints;
	g->since = s->now;
	list[0] = &g->cb;
	if ((rc = getaddrinfo_a(GAI_NOWAIT, list, 1, NULL)) != 0) {
		free(g);
		return rc;
	}
	s->gai = g;
	return 0;
}

/*
 * The name did not resolve (getaddrinfo's RC): "cannot resolve NAME: ...".
 * Only a temporary failure (EAI_AGAIN) is retried.  A name that does not
 * exist is final, but it is no refusal by the node: the session ends
 * failed, not refused, so the node is not said to have refused anything.
 */
static int
rsess_unresolved(struct rsess *s, int rc)
{
	int	step;

	step = rsess_fail(s, rc != EAI_AGAIN, "cannot resolve %s: %s",
	    s->hostname, rc == EAI_SYSTEM ? strerror(errno) :
	    gai_strerror(rc));
	s->refused = 0;
	return step;
}

/* RESOLVE: take a fan-out slot, then the addresses (once a session). */
static int
rsess_do_resolve(struct rsess *s)
{
	struct addrinfo	 hints;
	char		 port[16];
	int		 rc;

	if (s->config_err != NULL)
		return rsess_fail(s, 1, "%s", s->config_err);
	if (!s->slot) {
		if (!rconf_slot_take(s->conf))
			return STEP_WAIT;
		s->slot = 1;
	}
	if (s->ai == NULL && s->gai == NULL) {
		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
		snprintf(port, sizeof(port), "%d", s->port);
		rc = getaddrinfo(s->hostname, port, &hints, &s->ai);
		if (rc == EAI_NONAME)
			rc = rsess_gai_start(s);
		if (rc != 0) {
			s->ai = NULL;
			return rsess_unresolved(s, rc);
		}
	}
	if (s->gai != NULL) {
		rc = gai_error(&s->gai->cb);
		if (rc == EAI_INPROGRESS) {
			if (s->now - s->gai->since < RSESS_DNS_MS) {
				s->gai->next = s->now + RSESS_DNS_TICK;
				return STEP_WAIT;
			}
			rsess_gai_drop(s);
			return rsess_fail(s, 0, "%s: no answer from the "
			    "resolver in %d s", s->hostname,
			    RSESS_DNS_MS / 1000);
		}
		if (s->now - s->gai->since >= RSESS_SLOW_DNS)
			rsess_log(s, "resolving %s took %llu ms", s->hostname,
			    (unsigned long long)(s->now - s->gai->since));
		if (rc != 0) {
			rsess_gai_drop(s);
			return rsess_unresolved(s, rc);
		}
		s->ai = s->gai->cb.ar_result;
		s->gai->cb.ar_result = NULL;
		rsess_gai_drop(s);
	}
	s->aicur = s->ai;
	s->sock_err = 0;
	rsess_enter(s, RS_CONNECT);
	return STEP_GO;
}

/* CONNECT: a non-blocking connect to each address in turn. */
static int
rsess_do_connect(struct rsess *s)
{
	struct pollfd	pfd;
	socklen_t	len;
	char		addr[INET6_ADDRSTRLEN];
	int		one = 1, e;

	if (s->sock < 0) {
		if (s->aicur == NULL)
			return rsess_fail(s, 0, "%s", strerror(s->sock_err !=
			    0 ? s->sock_err : ECONNREFUSED));
		s->sock = socket(s->aicur->ai_family, s->aicur->ai_socktype |
		    SOCK_NONBLOCK | SOCK_CLOEXEC, s->aicur->ai_protocol);
		if (s->sock < 0) {
			s->sock_err = errno;
			s->aicur = s->aicur->ai_next;
			return STEP_GO;
		}
		addr[0] = '\0';
		if (s->aicur->ai_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)
			    s->aicur->ai_addr)->sin_addr, addr, sizeof(addr));
		else if (s->aicur->ai_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)(void *)
			    s->aicur->ai_addr)->sin6_addr, addr, sizeof(addr));
		rsess_log(s, "connecting to %s port %d", addr, s->port);
		if (connect(s->sock, s->aicur->ai_addr,
		    s->aicur->ai_addrlen) == 0)
			goto connected;
		if (errno == EINPROGRESS)
			return STEP_WAIT;
		e = errno;
		goto next;
	}
	pfd.fd = s->sock;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, 0) <= 0)
		return STEP_WAIT;
	e = 0;
	len = sizeof(e);
	if (getsockopt(s->sock, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
		e = errno;
	if (e == 0)
		goto connected;
next:
	s->sock_err = e;
	close(s->sock);
	s->sock = -1;
	s->aicur = s->aicur->ai_next;
	return STEP_GO;

connected:
	setsockopt(s->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(s->sock, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	rsess_enter(s, RS_HANDSHAKE);
	return STEP_GO;
}

/* Keep only the algorithms this libssh2 knows: libssh2 1.10 strips the
 * others itself with an overlapping memcpy. */
static void
rsess_supported(LIBSSH2_SESSION *ssh, char *pref)
{
	const char	**algs = NULL;
	char		 *copy, *p, *w, *out = pref;
	int		  n, i, ok;

	if ((n = libssh2_session_supported_algs(ssh, LIBSSH2_METHOD_HOSTKEY,
	    &algs)) <= 0)
		return;
	copy = p = xstrdup(pref);
	while ((w = strsep(&p, ",")) != NULL) {
		for (i = 0, ok = 0; i < n && !ok; i++)
			ok = strcmp(algs[i], w) == 0;
		if (!ok)
			continue;
		if (out != pref)
			*out++ = ',';
		memmove(out, w, strlen(w));
		out += strlen(w);
	}
	*out = '\0';
	free(copy);
	libssh2_free(ssh, algs);
}

/* HANDSHAKE: a session preferring the host key types known_hosts has for
 * the node, as ssh does, then the key exchange. */
static int
rsess_do_handshake(struct rsess *s)
{
	char	pref[256];
	int	rc;

	if (s->ssh == NULL) {
		if ((s->ssh = libssh2_session_init_ex(lsalloc_alloc,
		    lsalloc_free, lsalloc_realloc, s)) == NULL)
			return rsess_fail(s, 0, "cannot create an SSH session");
		/* libssh2 zeroed its whole session, buffers and all: the
		 * pages a small-packet stream never reaches go back
		 * (lsalloc.h). */
		lsalloc_trim(s->ssh);
		libssh2_session_set_blocking(s->ssh, 0);
		hostkeys_method_pref(hostkeys_known_types(s->hk,
		    s->hostname, s->port), pref, sizeof(pref));
		rsess_supported(s->ssh, pref);
		if (pref[0] != '\0')
			libssh2_session_method_pref(s->ssh,
			    LIBSSH2_METHOD_HOSTKEY, pref);
		if (s->ka_s > 0)
			libssh2_keepalive_config(s->ssh, 1, s->ka_s);
	}
	rc = libssh2_session_handshake(s->ssh, s->sock);
	if (rc == 0) {
		rsess_enter(s, RS_HOSTKEY);
		return STEP_GO;
	}
	return rsess_ssh_fail(s, rc, rc == LIBSSH2_ERROR_KEX_FAILURE ||
	    rc == LIBSSH2_ERROR_METHOD_NONE, "SSH handshake");
}

/* HOSTKEY: known, or unknown and accepted, or refused for good. */
static int
rsess_do_hostkey(struct rsess *s)
{
	const char	*key, *tname;
	char		 fp[80], err[512], path[512];
	size_t		 len;
	int		 type;

	if ((key = libssh2_session_hostkey(s->ssh, &len, &type)) == NULL)
		return rsess_fail(s, 0, "no host key from the server");
	tname = hostkeys_type_name(type);
	rutil_fingerprint((const uint8_t *)key, len, fp, sizeof(fp));
	switch (hostkeys_check(s->hk, s->hostname, s->port,
	    (const uint8_t *)key, len, type)) {
	case HK_MATCH:
		rsess_log(s, "host key %s %s known", tname, fp);
		break;
	case HK_CHANGED:
		return rsess_fail(s, 1, "host key for %s changed (now %s %s)",
		    s->host, tname, fp);
	case HK_REVOKED:
		return rsess_fail(s, 1, "host key for %s is revoked (%s %s)",
		    s->host, tname, fp);
	case HK_CA:
		/* --accept-new must not write down a plain key for a host
		 * whose keys a certificate authority vouches for. */
		return rsess_fail(s, 1, "host key for %s can only be trusted "
		    "through a @cert-authority line of known_hosts, and "
		    "libssh2 cannot check host certificates (%s %s)", s->host,
		    tname, fp);
	case HK_UNKNOWN:
		if (!s->conf->accept_new || s->known_add == NULL)
			return rsess_fail(s, 1, "host key for %s is unknown "
			    "(%s %s)", s->host, tname, fp);
		if (hostkeys_add(s->hk, s->known_add, s->hostname, s->port,
		    (const uint8_t *)key, len, type, err, sizeof(err)) != 0)
			return rsess_fail(s, 1, "cannot record the host key "
			    "for %s: %s", s->host, err);
		rsess_log(s, "added host key %s %s to %s", tname, fp,
		    rconf_tilde(s->conf, s->known_add, path,
		    sizeof(path)));
		break;
	default:
		return rsess_fail(s, 1, "host key for %s is of a type jobtop "
		    "cannot check (%s)", s->host, tname);
	}
	rsess_enter(s, RS_AUTH);
	return STEP_GO;
}

/* Did a libssh2 call fail because the connection did? */
static int
rsess_socket_error(int rc)
{
	return rc == LIBSSH2_ERROR_SOCKET_SEND ||
	    rc == LIBSSH2_ERROR_SOCKET_RECV ||
	    rc == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
	    rc == LIBSSH2_ERROR_SOCKET_TIMEOUT ||
	    rc == LIBSSH2_ERROR_TIMEOUT;
}

/* Note one method tried, for the final message. */
static void
rsess_tried(struct rsess *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
rsess_tried(struct rsess *s, const char *fmt, ...)
{
	va_list	ap;
	size_t	n = strlen(s->tried);

	if (n + 3 >= sizeof(s->tried))
		return;
	if (n > 0) {
		memcpy(s->tried + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(s->tried + n, sizeof(s->tried) - n, fmt, ap);
	va_end(ap);
}

/* Authenticated: drop the agent, on to PUSH. */
static int
rsess_authed(struct rsess *s, const char *how)
{
	rsess_log(s, "authenticated as %s with %s", s->user, how);
	snprintf(s->authed, sizeof(s->authed), "%s", how);
	if (s->agent != NULL) {
		libssh2_agent_disconnect(s->agent);
		libssh2_agent_free(s->agent);
		s->agent = NULL;
		s->ident = NULL;
	}
	/*
	 * Once the probe is cached, checking for it costs a command (a
	 * channel, a shell on the node) at every start: start it through a
	 * guard instead, which falls back to the check when it is not there.
	 * A stale probe to stop still needs the check.
	 */
	s->fast = s->stale_pid == 0;
	s->fast_miss = 0;
	rsess_enter(s, s->fast ? RS_EXEC : RS_PUSH);
	return STEP_GO;
}

/* AUTH: the methods the server allows, then every agent key, then the
 * key files; a passphrase-protected file is skipped (no prompt here). */
static int
rsess_do_auth(struct rsess *s)
{
	const char	*list, *path;
	char		 shown[512], why[256];
	int		 rc, enc;

	switch (s->sub) {
	case AUTH_LIST:
		s->tried[0] = '\0';
		s->agent_keys = 0;
		s->id_idx = 0;
		list = libssh2_userauth_list(s->ssh, s->user,
		    (unsigned)strlen(s->user));
		if (list == NULL) {
			if (libssh2_userauth_authenticated(s->ssh))
				return rsess_authed(s, "no authentication");
			return rsess_ssh_fail(s, libssh2_session_last_errno(
			    s->ssh), 0, "authentication");
		}
		if (strstr(list, "publickey") == NULL)
			return rsess_fail(s, 1, "%s@%s accepts no keys (only "
			    "%s)", s->user, s->host, list);
		s->sub = AUTH_AGENT;
		return STEP_GO;
	case AUTH_AGENT:
		s->sub = AUTH_FILE;
		if (!s->conf->use_agent || s->ids_only ||
		    getenv("SSH_AUTH_SOCK") == NULL)
			return STEP_GO;
		if ((s->agent = libssh2_agent_init(s->ssh)) == NULL)
			return STEP_GO;
		/* A local socket: these two do not wait on the network. */
		if (libssh2_agent_connect(s->agent) != 0 ||
		    libssh2_agent_list_identities(s->agent) != 0) {
			rsess_log(s, "ssh-agent: %s", rsess_ssh_error(s));
			libssh2_agent_free(s->agent);
			s->agent = NULL;
			return STEP_GO;
		}
		s->ident = NULL;
		s->sub = AUTH_AGENT_NEXT;
		return STEP_GO;
	case AUTH_AGENT_NEXT:
		rc = libssh2_agent_get_identity(s->agent, &s->ident, s->ident);
		if (rc != 0) {
			rsess_tried(s, "ssh-agent (%d key%s)", s->agent_keys,
			    s->agent_keys == 1 ? "" : "s");
			libssh2_agent_disconnect(s->agent);
			libssh2_agent_free(s->agent);
			s->agent = NULL;
			s->ident = NULL;
			s->sub = AUTH_FILE;
			return STEP_GO;
		}
		s->agent_keys++;
		s->sub = AUTH_AGENT_TRY;
		return STEP_GO;
	case AUTH_AGENT_TRY:
		rc = libssh2_agent_userauth(s->agent, s->user, s->ident);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return STEP_WAIT;
		if (rc == 0)
			return rsess_authed(s, "an ssh-agent key");
		rsess_log(s, "agent key %s: %s", s->ident->comment != NULL ?
		    s->ident->comment : "", rsess_ssh_error(s));
		if (rsess_socket_error(rc))
			return rsess_fail(s, 0, "authentication: %s",
			    rsess_ssh_error(s));
		s->sub = AUTH_AGENT_NEXT;
		return STEP_GO;
	case AUTH_FILE:
		if (s->id_idx >= s->nids) {
			if (s->tried[0] == '\0')
				rsess_tried(s, "no key");
			s->auth_refused = 1;
			return rsess_fail(s, 1, "authentication refused for "
			    "%s@%s (%s)", s->user, s->host, s->tried);
		}
		path = s->ids[s->id_idx];
		rconf_tilde(s->conf, path, shown, sizeof(shown));
		if (access(path, F_OK) != 0) {
			/* Named in ssh_config but absent: worth a word. */
			if (s->nids == 1 || errno != ENOENT)
				rsess_tried(s, "%s: %s", shown,
				    strerror(errno));
			s->id_idx++;
			return STEP_GO;
		}
		/* As ssh: a key others can read is no secret; skip it. */
		if (rutil_key_perm(path, why, sizeof(why)) < 0) {
			rsess_tried(s, "%s skipped: %s", shown, why);
			s->id_idx++;
			return STEP_GO;
		}
		if ((enc = rutil_key_encrypted(path)) < 0 && (errno == EMFILE ||
		    errno == ENFILE || errno == ENOMEM))
			/* This machine ran short, the key is fine: no
			 * refusal, a retry after the backoff. */
			return rsess_fail(s, 0, "reading %s: %s", shown,
			    strerror(errno));
		if (enc != 0) {
			rsess_tried(s, "%s skipped: %s", shown, enc > 0 ?
			    "passphrase-protected, load it into ssh-agent" :
			    strerror(errno));
			s->id_idx++;
			return STEP_GO;
		}
		s->sub = AUTH_FILE_TRY;
		return STEP_GO;
	case AUTH_FILE_TRY:
		path = s->ids[s->id_idx];
		rc = libssh2_userauth_publickey_fromfile_ex(s->ssh, s->user,
		    (unsigned)strlen(s->user), NULL, path, "");
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return STEP_WAIT;
		rconf_tilde(s->conf, path, shown, sizeof(shown));
		if (rc == 0)
			return rsess_authed(s, shown);
		if (rsess_socket_error(rc))
			return rsess_fail(s, 0, "authentication: %s",
			    rsess_ssh_error(s));
		rsess_tried(s, "%s%s", shown,
		    rc == LIBSSH2_ERROR_FILE ? " (unreadable key)" : "");
		s->id_idx++;
		s->sub = AUTH_FILE;
		return STEP_GO;
	}
	return rsess_fail(s, 0, "broken AUTH step %d", s->sub);
}

/* Set a command up: cmd (exec) or scp_path and data (an scp upload),
 * keeping up to outcap and errcap bytes of what it prints. */
static void
rsess_cmd_init(struct rsess_cmd *c, char *cmd, char *scp_path,
    const uint8_t *data, size_t len, size_t outcap, size_t errcap)
{
	memset(c, 0, sizeof(*c));
	c->out = xmalloc(outcap + 1);
	c->err = xmalloc(errcap + 1);
	c->out[0] = c->err[0] = '\0';
	c->outcap = outcap;
	c->errcap = errcap;
	c->cmd = cmd;
	c->scp_path = scp_path;
	c->data = data;
	c->len = len;
	c->status = -1;
	c->phase = CMD_OPEN;
}

/* Start a set-up command (cmd set) or an scp upload (scp_path and data
 * set). */
static void
rsess_cmd_start(struct rsess *s, char *cmd, char *scp_path,
    const uint8_t *data, size_t len)
{
	rsess_cmd_clear(s);
	rsess_cmd_init(&s->cmd, cmd, scp_path, data, len, RSESS_CMD_OUT - 1,
	    RSESS_CMD_ERR - 1);
}

/* Read what a command prints (both streams) until EAGAIN, keeping what
 * fits: 1 at EOF, 0, -1 on an error. */
static int
rsess_cmd_read(struct rsess_cmd *c)
{
	char	 junk[2048];
	ssize_t	 n;
	size_t	*len, cap;
	char	*buf;
	int	 stream, progress;

	do {
		progress = 0;
		for (stream = 0; stream < 2; stream++) {
			buf = stream == 0 ? c->out : c->err;
			len = stream == 0 ? &c->outlen : &c->errlen;
			cap = stream == 0 ? c->outcap : c->errcap;
			if (*len < cap)
				n = libssh2_channel_read_ex(c->ch, stream,
				    buf + *len, cap - *len);
			else
				n = libssh2_channel_read_ex(c->ch, stream,
				    junk, sizeof(junk));
			if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
				continue;
			if (n < 0)
				return -1;
			progress = 1;
			if (*len < cap) {
				*len += (size_t)n;
				buf[*len] = '\0';
			}
		}
	} while (progress);
	return libssh2_channel_eof(c->ch) ? 1 : 0;
}

/* A call of the command failed: say why (CMD_R_FAIL). */
static int
rsess_cmd_failed(struct rsess *s, struct rsess_cmd *c, const char *what)
{
	snprintf(c->why, sizeof(c->why), "%s: %s", what, rsess_ssh_error(s));
	return CMD_R_FAIL;
}

/* One call of a command (the machine above). */
static int
rsess_cmd_step(struct rsess *s, struct rsess_cmd *c)
{
	ssize_t	n;
	int	rc;

	switch (c->phase) {
	case CMD_OPEN:
		if (c->cmd != NULL)
			c->ch = libssh2_channel_open_session(s->ssh);
		else
			c->ch = libssh2_scp_send64(s->ssh, c->scp_path, 0700,
			    (libssh2_int64_t)c->len, 0, 0);
		if (c->ch == NULL) {
			if (libssh2_session_last_errno(s->ssh) ==
			    LIBSSH2_ERROR_EAGAIN)
				return CMD_R_WAIT;
			return rsess_cmd_failed(s, c, c->cmd != NULL ?
			    "opening a channel" : "scp");
		}
		c->phase = c->cmd != NULL ? CMD_EXEC : CMD_WRITE;
		return CMD_R_GO;
	case CMD_EXEC:
		rc = libssh2_channel_exec(c->ch, c->cmd);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return CMD_R_WAIT;
		if (rc != 0)
			return rsess_cmd_failed(s, c, "exec");
		if (c->verbose)
			rsess_log(s, "running %s", c->cmd);
		c->phase = c->data != NULL ? CMD_WRITE : CMD_EOF;
		return CMD_R_GO;
	case CMD_WRITE:
		/* The data; for scp then "\0", the source's "done". */
		if (c->off < c->len)
			n = libssh2_channel_write(c->ch,
			    (const char *)c->data + c->off, c->len - c->off);
		else if (c->cmd == NULL)
			n = libssh2_channel_write(c->ch, "", 1);
		else
			n = 0;
		if (n == LIBSSH2_ERROR_EAGAIN)
			return CMD_R_WAIT;
		if (n < 0)
			return rsess_cmd_failed(s, c, "upload");
		if (c->off >= c->len)
			c->phase = CMD_EOF;
		c->off += (size_t)n;
		return CMD_R_GO;
	case CMD_EOF:
		rc = libssh2_channel_send_eof(c->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return CMD_R_WAIT;
		c->phase = CMD_READ;
		return CMD_R_GO;
	case CMD_READ:
		rc = rsess_cmd_read(c);
		if (rc < 0)
			return rsess_cmd_failed(s, c, "reading a command's "
			    "output");
		if (rc == 0)
			return CMD_R_IDLE;
		c->phase = CMD_CLOSE;
		return CMD_R_GO;
	case CMD_CLOSE:
		rc = libssh2_channel_close(c->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return CMD_R_WAIT;
		c->phase = CMD_WAIT;
		return CMD_R_GO;
	case CMD_WAIT:
		rc = libssh2_channel_wait_closed(c->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return CMD_R_WAIT;
		/* A command cut short (a failure, a deadline) has none. */
		if (c->why[0] == '\0')
			c->status = libssh2_channel_get_exit_status(c->ch);
		c->phase = CMD_FREE;
		return CMD_R_GO;
	case CMD_FREE:
		rc = libssh2_channel_free(c->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return CMD_R_WAIT;
		c->ch = NULL;
		if (c->verbose)
			rsess_log(s, "command ended: status %d%s%s",
			    c->status, c->why[0] != '\0' ? ", " : "", c->why);
		c->phase = CMD_DONE;
		return CMD_R_DONE;
	case CMD_DONE:
		return CMD_R_DONE;
	}
	snprintf(c->why, sizeof(c->why), "broken command phase %d",
	    (int)c->phase);
	return CMD_R_FAIL;
}

/* The first line of a command's stderr, for messages. */
static const char *
rsess_cmd_errline(struct rsess_cmd *c, char *buf, size_t size)
{
	const char	*e = c->err != NULL ? c->err : "";

	while (*e == '\n' || *e == '\r')
		e++;
	snprintf(buf, size, "%.*s", (int)strcspn(e, "\r\n"), e);
	return buf;
}

/* Upload data as name through a temporary file (scp, or cat where scp
 * failed before), on to sub-step next. */
static int
rsess_push_upload(struct rsess *s, const char *name, const uint8_t *data,
    size_t len, int next)
{
	const struct rconf	*cf = s->conf;

	free(s->tmpname);
	s->tmpname = xasprintf(".%s.%ld.%u.tmp", name, (long)getpid(),
	    rconf_seq(cf));
	rsess_log(s, "uploading %zu bytes as %s/%s%s", len, cf->cache_dir,
	    s->tmpname, s->scp_failed ? " through cat" : "");
	if (s->scp_failed)
		rsess_cmd_start(s, rpush_upload_cmd(cf->cache_dir,
		    s->tmpname), NULL, data, len);
	else
		rsess_cmd_start(s, NULL, xasprintf("%s/%s", cf->cache_dir,
		    s->tmpname), data, len);
	s->sub = next;
	return STEP_GO;
}

/* The probe is in place: upload the NVML helper when it is missing, else
 * on to EXEC. */
static int
rsess_push_helper(struct rsess *s)
{
	const struct rconf	*cf = s->conf;
	const uint8_t		*data;
	size_t			 len;

	if (s->nvml_up) {
		data = rconf_nvml_data(cf, &len);
		return rsess_push_upload(s, rconf_nvml_name(cf), data, len,
		    PUSH_HUPLOAD);
	}
	rsess_enter(s, RS_EXEC);
	return STEP_GO;
}

/* PUSH: check the node (machine, cache directory, cached probe and NVML
 * helper); when the probe is missing upload it under a temporary name and
 * install it with a rename, so a half-written probe is never run; then the
 * helper the same way.  The helper is optional: when its upload fails the
 * probe runs without it (and uses nvidia-smi). */
static int
rsess_do_push(struct rsess *s)
{
	struct rpush_report	 r;
	const struct rconf	*cf = s->conf;
	const uint8_t		*probe, *nvml;
	size_t			 plen, nlen;
	char			 why[512], line[256];
	int			 rc;

	probe = rconf_probe_data(cf, &plen);
	nvml = rconf_nvml_data(cf, &nlen);
	if (s->sub == PUSH_START) {
		rsess_cmd_start(s, rpush_check_cmd(cf->cache_dir,
		    rconf_probe_name(cf), rconf_probe_arch(cf), s->stale_pid,
		    nvml != NULL ? rconf_nvml_name(cf) : NULL), NULL, NULL, 0);
		s->sub = PUSH_CHECK;
	}
	rc = rsess_cmd_step(s, &s->cmd);
	if (rc == CMD_R_WAIT || rc == CMD_R_IDLE)
		return STEP_WAIT;
	if (rc == CMD_R_FAIL) {
		/* No scp there, or a login shell that prints and so breaks
		 * scp's protocol: the next attempt writes through cat. */
		if ((s->sub == PUSH_UPLOAD || s->sub == PUSH_HUPLOAD) &&
		    s->cmd.cmd == NULL)
			s->scp_failed = 1;
		return rsess_fail(s, 0, "%s", s->cmd.why);
	}
	if (rc == CMD_R_GO)
		return STEP_GO;

	switch (s->sub) {
	case PUSH_CHECK:
		rpush_parse(s->cmd.out, s->cmd.outlen, &r);
		if (r.killed > 0)
			rsess_log(s, "stopped the probe of the lost connection "
			    "(pid %ld)", r.killed);
		s->stale_pid = 0;
		s->nvml_ok = nvml != NULL && rpush_helper_cached(&r, nlen,
		    rconf_nvml_hash(cf));
		s->nvml_up = nvml != NULL && !s->nvml_ok;
		switch (rpush_decide(&r, rconf_probe_arch(cf), plen,
		    rconf_probe_hash(cf), cf->cache_dir, why, sizeof(why))) {
		case RP_CACHED:
			rsess_log(s, "probe %s is cached%s",
			    rconf_probe_name(cf), s->nvml_ok ?
			    ", NVML helper too" : "");
			return rsess_push_helper(s);
		case RP_ARCH:
		case RP_DIR:
			return rsess_fail(s, 1, "%s", why);
		case RP_GARBAGE:
			return rsess_fail(s, 0, "%s (status %d%s%s)", why,
			    s->cmd.status, s->cmd.errlen > 0 ? ": " : "",
			    rsess_cmd_errline(&s->cmd, line, sizeof(line)));
		case RP_UPLOAD:
			break;
		}
		return rsess_push_upload(s, rconf_probe_name(cf), probe, plen,
		    PUSH_UPLOAD);
	case PUSH_UPLOAD:
	case PUSH_HUPLOAD:
		if (s->cmd.status != 0)
			rsess_log(s, "upload exited with status %d%s%s",
			    s->cmd.status, s->cmd.errlen > 0 ? ": " : "",
			    rsess_cmd_errline(&s->cmd, line, sizeof(line)));
		if (s->sub == PUSH_UPLOAD)
			rsess_cmd_start(s, rpush_install_cmd(cf->cache_dir,
			    s->tmpname, rconf_probe_name(cf), plen,
			    rconf_probe_hash(cf)), NULL, NULL, 0);
		else
			rsess_cmd_start(s, rpush_install_cmd(cf->cache_dir,
			    s->tmpname, rconf_nvml_name(cf), nlen,
			    rconf_nvml_hash(cf)), NULL, NULL, 0);
		s->sub = s->sub == PUSH_UPLOAD ? PUSH_INSTALL : PUSH_HINSTALL;
		return STEP_GO;
	case PUSH_INSTALL:
		rpush_parse(s->cmd.out, s->cmd.outlen, &r);
		if (r.file != 1 || r.upload || r.size != plen ||
		    (r.hash[0] != '\0' && strcmp(r.hash,
		    rconf_probe_hash(cf)) != 0)) {
			s->scp_failed = 1;
			return rsess_fail(s, 0, "upload of the probe failed "
			    "(%llu of %zu bytes arrived%s%s)",
			    (unsigned long long)r.size, plen,
			    s->cmd.errlen > 0 ? ": " : "",
			    rsess_cmd_errline(&s->cmd, line, sizeof(line)));
		}
		s->uploads++;
		rsess_log(s, "probe installed as %s/%s", cf->cache_dir,
		    rconf_probe_name(cf));
		return rsess_push_helper(s);
	case PUSH_HINSTALL:
		rpush_parse(s->cmd.out, s->cmd.outlen, &r);
		s->nvml_up = 0;
		if (r.file != 1 || r.upload || r.size != nlen ||
		    (r.hash[0] != '\0' && strcmp(r.hash,
		    rconf_nvml_hash(cf)) != 0)) {
			/* Not worth a reconnect: nvidia-smi stands in. */
			rsess_log(s, "upload of the NVML helper failed (%llu "
			    "of %zu bytes arrived%s%s); the probe runs "
			    "without it", (unsigned long long)r.size, nlen,
			    s->cmd.errlen > 0 ? ": " : "",
			    rsess_cmd_errline(&s->cmd, line, sizeof(line)));
		} else {
			s->uploads++;
			s->nvml_ok = 1;
			rsess_log(s, "NVML helper installed as %s/%s",
			    cf->cache_dir, rconf_nvml_name(cf));
		}
		rsess_enter(s, RS_EXEC);
		return STEP_GO;
	}
	return rsess_fail(s, 0, "broken PUSH step %d", s->sub);
}

/* EXEC: a session channel (no pty: the probe must see EOF on stdin when
 * the channel goes) running the probe. */
static int
rsess_do_exec(struct rsess *s)
{
	const struct rconf	*cf = s->conf;
	char			*cmd;
	int			 rc;

	if (s->sub == 0) {
		if ((s->ch = libssh2_channel_open_session(s->ssh)) == NULL)
			return rsess_ssh_fail(s, libssh2_session_last_errno(
			    s->ssh), 0, "opening a channel");
		s->sub = 1;
	}
	/* A probe started after rsess_set_interval starts at that one. */
	if (s->fast) {
		const uint8_t	*nvml;
		size_t		 plen, nlen;

		rconf_probe_data(cf, &plen);
		nvml = rconf_nvml_data(cf, &nlen);
		cmd = rpush_fast_cmd(cf->cache_dir, rconf_probe_name(cf),
		    plen, rconf_probe_hash(cf), cf->job, cf->step,
		    cf->sluid,
		    s->interval_ms != 0 ?
		    s->interval_ms / 1000.0 : cf->interval,
		    s->ka_s * RSESS_WATCHDOG_KA, cf->owner_known ?
		    (long long)cf->owner : -1,
		    nvml != NULL ? rconf_nvml_name(cf) : NULL, nlen,
		    nvml != NULL ? rconf_nvml_hash(cf) : NULL);
	} else
		cmd = rpush_exec_cmd(cf->cache_dir, rconf_probe_name(cf),
		    cf->job, cf->step, cf->sluid, s->interval_ms != 0 ?
		    s->interval_ms / 1000.0 :
		    cf->interval, s->ka_s * RSESS_WATCHDOG_KA, cf->owner_known ?
		    (long long)cf->owner : -1,
		    s->nvml_ok ? rconf_nvml_name(cf) : NULL);
	rc = libssh2_channel_exec(s->ch, cmd);
	free(cmd);
	if (rc != 0)
		return rsess_ssh_fail(s, rc, 0, "starting the probe");
	rsess_slot_give(s);
	pstream_reset(&s->ps);
	s->junk = 0;
	s->lasterr[0] = '\0';
	s->errlinelen = 0;
	s->ka_next = s->now + (uint64_t)s->ka_s * 1000;
	s->eof_sent = 0;
	s->probe_pid = 0;
	s->ctl_ms = 0;
	s->ctl_alive = 0;
	s->ctllen = s->ctloff = 0;
	rsess_enter(s, RS_STREAM);
	return STEP_GO;
}

/* Keep the probe's stderr: each line to the log, the last for messages. */
static void
rsess_stderr(struct rsess *s, const char *p, size_t n)
{
	size_t	i, nlen;

	for (i = 0; i < n; i++) {
		if (p[i] != '\n' && s->errlinelen + 1 < sizeof(s->errline)) {
			if (p[i] != '\r')
				s->errline[s->errlinelen++] = p[i];
			continue;
		}
		if (p[i] != '\n')
			continue;
		s->errline[s->errlinelen] = '\0';
		text_clean_inplace(s->errline);
		if (s->probe_pid == 0 && strncmp(s->errline,
		    "jobtop-probe-pid ", 17) == 0) {
			s->probe_pid = strtol(s->errline + 17, NULL, 10);
			if (s->fast)
				rsess_log(s, "probe %s is cached%s (started "
				    "without a check)",
				    rconf_probe_name(s->conf),
				    rconf_nvml_data(s->conf, &nlen) != NULL ?
				    ", NVML helper too" : "");
			rsess_log(s, "probe runs as pid %ld", s->probe_pid);
		} else if (s->fast && strcmp(s->errline, RPUSH_NOT_CACHED) ==
		    0) {
			s->fast_miss = 1;
		} else if (s->errlinelen > 0) {
			rsess_log(s, "probe: %s", s->errline);
			memcpy(s->lasterr, s->errline, s->errlinelen + 1);
		}
		s->errlinelen = 0;
	}
}

/* The probe's HELLO was found (pstream.c, hello.c): say what a login
 * shell printed before it, which was dropped.  Until it shows, everything
 * is kept (up to HELLO_CAP) so the log can say what was printed. */
static void
rsess_sync(struct rsess *s)
{
	if (s->ps.hello.dropped == 0)
		return;
	rsess_log(s, "dropped output before the probe's HELLO: \"%s\"",
	    s->ps.hello.shown);
	s->junk = s->ps.hello.dropped;
}

/* Read the probe's stdout into the buffer and its stderr until both
 * would block.  1 at EOF, 0, or -1 on a transport error. */
static int
rsess_stream_read(struct rsess *s)
{
	char	 ebuf[1024];
	uint8_t	*room;
	size_t	 size;
	ssize_t	 n;
	int	 again;

	/*
	 * Every libssh2 read first reads the socket until EAGAIN (libssh2
	 * 1.10's _libssh2_channel_read), then hands over what its packet
	 * list holds for the stream.  So: stdout until a read leaves room
	 * (the list held no more), and stderr only when the list holds some
	 * (libssh2_poll_channel_read looks without reading the socket).  A
	 * sample costs one recv with data and one EAGAIN, not five (the
	 * previous loop read both streams until neither gave anything: ~4%
	 * of the monitor's CPU at 1024 nodes).  A stderr read may have
	 * queued more stdout: stdout again then, since the socket will not
	 * wake poll for what libssh2 already took in.
	 */
	do {
		again = 0;
		for (;;) {
			if ((room = pstream_space(&s->ps, &size)) == NULL) {
				/* The caller has not read yet: come back
				 * then. */
				s->ready = 1;
				return 0;
			}
			n = libssh2_channel_read(s->ch, (char *)room, size);
			if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
				return -1;
			if (n <= 0)
				break;
			s->deadline = rsess_deadline(s, RS_STREAM);
			if (!s->live) {
				s->live = 1;
				s->fails = 0;
			}
			if (pstream_added(&s->ps, (size_t)n) == 1)
				rsess_sync(s);
			if ((size_t)n < size)
				break;
		}
		if (libssh2_poll_channel_read(s->ch, 1) != 0) {
			n = libssh2_channel_read_stderr(s->ch, ebuf,
			    sizeof(ebuf));
			if (n > 0) {
				rsess_stderr(s, ebuf, (size_t)n);
				again = 1;
			} else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
				return -1;
		}
	} while (again);
	if (!s->ps.synced && s->ps.blen - s->ps.boff > HELLO_CAP) {
		s->junk = s->ps.blen - s->ps.boff;
		return -2;
	}
	return libssh2_channel_eof(s->ch) ? 1 : 0;
}

/* Is a libssh2 call that returned EAGAIN holding a packet it could not
 * send?  Then that same call must come first at the next step. */
static int
rsess_blocked_out(struct rsess *s)
{
	return (libssh2_session_block_directions(s->ssh) &
	    LIBSSH2_SESSION_BLOCK_OUTBOUND) != 0;
}

/* Send the pending control line to the probe's stdin: STEP_GO when it is
 * out (or there is none), STEP_WAIT when the write must be repeated. */
static int
rsess_control_send(struct rsess *s)
{
	ssize_t	n;

	if (s->ctllen == 0 && s->ctl_ms != 0) {
		s->ctllen = (size_t)snprintf(s->ctl, sizeof(s->ctl),
		    "interval %u\n", s->ctl_ms);
		s->ctloff = 0;
		s->ctl_ms = 0;
	} else if (s->ctllen == 0 && s->ctl_alive) {
		s->ctllen = (size_t)snprintf(s->ctl, sizeof(s->ctl),
		    "alive\n");
		s->ctloff = 0;
		s->ctl_alive = 0;
	}
	while (s->ctloff < s->ctllen) {
		n = libssh2_channel_write(s->ch, s->ctl + s->ctloff,
		    s->ctllen - s->ctloff);
		if (n == LIBSSH2_ERROR_EAGAIN)
			return rsess_blocked_out(s) ? STEP_WAIT : STEP_GO;
		if (n < 0)
			return rsess_fail(s, 0, "writing to the probe: %s",
			    rsess_ssh_error(s));
		s->ctloff += (size_t)n;
	}
	if (s->ctllen > 0 && strcmp(s->ctl, "alive\n") != 0)
		rsess_log(s, "sent \"%.*s\"", (int)s->ctllen - 1, s->ctl);
	s->ctllen = s->ctloff = 0;
	return STEP_GO;
}

static void
rsess_exec_dispose(struct rsess_exec *x)
{
	free(x->c.cmd);
	free(x->c.out);
	free(x->c.err);
	free(x);
}

/* The extra command is over (its channel already gone): keep why, and
 * free it when its caller has let go. */
static void
rsess_exec_end(struct rsess *s, const char *why)
{
	struct rsess_exec	*x = s->x;

	if (x == NULL)
		return;
	if (x->c.ch == NULL && x->c.phase != CMD_DONE) {
		if (x->c.why[0] == '\0' && why != NULL)
			snprintf(x->c.why, sizeof(x->c.why), "%s", why);
		x->c.phase = CMD_DONE;
	}
	if (x->c.phase != CMD_DONE)
		return;
	s->x = NULL;
	if (x->released)
		rsess_exec_dispose(x);
	else
		x->s = NULL;
}

/* Advance the extra command as far as it goes: STEP_GO to go on with the
 * probe's channel, STEP_WAIT when a call must be repeated first (one
 * that returned EAGAIN while libssh2 holds its unsent packet).  Its
 * failures end the command, never the session. */
static int
rsess_exec_step(struct rsess *s)
{
	struct rsess_exec	*x = s->x;
	struct rsess_cmd	*c = &x->c;

	if (x->deadline == 0)
		x->deadline = s->now + x->timeout_ms;
	if (c->phase <= CMD_READ && (s->now >= x->deadline || x->released)) {
		if (!x->released)
			snprintf(c->why, sizeof(c->why), "timed out after "
			    "%.0f s", x->timeout_ms / 1000.0);
		c->phase = c->ch != NULL ? CMD_CLOSE : CMD_DONE;
	}
	for (;;) {
		switch (rsess_cmd_step(s, c)) {
		case CMD_R_WAIT:
			return rsess_blocked_out(s) ? STEP_WAIT : STEP_GO;
		case CMD_R_IDLE:
			return STEP_GO;		/* wait for output */
		case CMD_R_FAIL:
			c->phase = c->ch != NULL ? CMD_CLOSE : CMD_DONE;
			break;
		case CMD_R_DONE:
			rsess_exec_end(s, NULL);
			return STEP_GO;
		default:
			break;
		}
	}
}

struct rsess_exec *
rsess_exec_start(struct rsess *s, const char *cmd, size_t cap,
    unsigned timeout_ms, char *err, size_t errsz)
{
	struct rsess_exec	*x;

	if (s->state != RS_STREAM || s->stopping) {
		snprintf(err, errsz, "%s is not live (%s)", s->host,
		    rsess_state(s));
		return NULL;
	}
	if (s->x != NULL) {
		snprintf(err, errsz, "a command still runs on %s", s->host);
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->s = s;
	rsess_cmd_init(&x->c, xstrdup(cmd), NULL, NULL, 0, cap, cap);
	x->c.verbose = 1;
	x->timeout_ms = timeout_ms;
	s->x = x;
	s->ready = 1;		/* start at the next step */
	return x;
}

int
rsess_exec_done(const struct rsess_exec *x)
{
	return x->c.phase == CMD_DONE;
}

const char *
rsess_exec_out(const struct rsess_exec *x, size_t *len)
{
	if (len != NULL)
		*len = x->c.outlen;
	return x->c.out;
}

const char *
rsess_exec_err(const struct rsess_exec *x, size_t *len)
{
	if (len != NULL)
		*len = x->c.errlen;
	return x->c.err;
}

int
rsess_exec_status(const struct rsess_exec *x)
{
	return x->c.phase == CMD_DONE ? x->c.status : -1;
}

const char *
rsess_exec_why(const struct rsess_exec *x)
{
	return x->c.why;
}

void
rsess_exec_free(struct rsess_exec *x)
{
	if (x == NULL)
		return;
	if (x->s == NULL || x->c.phase == CMD_DONE) {
		if (x->s != NULL)
			x->s->x = NULL;
		rsess_exec_dispose(x);
		return;
	}
	/* Its channel closes at the session's next steps. */
	x->released = 1;
	x->s->ready = 1;
}

/* STREAM: keepalive, the probe's output, its end.  Sub-steps after EOF:
 * close the channel, wait for the close, judge the exit. */
static int
rsess_do_stream(struct rsess *s)
{
	int	rc, secs, status;
	char	*sig = NULL, signame[32];

	switch (s->sub) {
	case 0:
		if (s->stopping) {
			rc = libssh2_channel_send_eof(s->ch);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return STEP_WAIT;
			s->eof_sent = 1;
			s->sub = 1;
			return STEP_GO;
		}
		/* FALLTHROUGH */
	case 1:
		if (s->x != NULL && rsess_exec_step(s) == STEP_WAIT)
			return STEP_WAIT;
		if (!s->stopping && (s->ctllen > 0 || s->ctl_ms != 0 ||
		    s->ctl_alive)) {
			if (rsess_control_send(s) == STEP_WAIT)
				return STEP_WAIT;
			if (s->state != RS_STREAM)
				return STEP_GO;		/* it failed */
		}
		if (s->ka_s > 0 && s->now >= s->ka_next) {
			secs = 0;
			if (libssh2_keepalive_send(s->ssh, &secs) != 0)
				return rsess_fail(s, 0, "connection lost: %s",
				    rsess_ssh_error(s));
			s->ka_next = s->now + (uint64_t)(secs > 0 ? secs : 1) *
			    1000;
			/* The probe's heartbeat, with the keepalive. */
			s->ctl_alive = 1;
			return STEP_GO;
		}
		rc = rsess_stream_read(s);
		if (rc == -2)
			return rsess_fail(s, 0, "no HELLO from the probe after "
			    "%zu bytes of other output", s->junk);
		if (rc < 0)
			return rsess_fail(s, 0, "connection lost: %s",
			    rsess_ssh_error(s));
		if (rc == 0)
			return STEP_WAIT;
		s->sub = 2;
		return STEP_GO;
	case 2:
		rc = libssh2_channel_close(s->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return STEP_WAIT;
		s->sub = 3;
		return STEP_GO;
	case 3:
		rc = libssh2_channel_wait_closed(s->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return STEP_WAIT;
		status = libssh2_channel_get_exit_status(s->ch);
		signame[0] = '\0';
		if (libssh2_channel_get_exit_signal(s->ch, &sig, NULL, NULL,
		    NULL, NULL, NULL) == 0 && sig != NULL) {
			snprintf(signame, sizeof(signame), "%s", sig);
			libssh2_free(s->ssh, sig);
		}
		s->probe_pid = 0;	/* it ended */
		/* Closed both ways: free it here, nothing more to send. */
		if (libssh2_channel_free(s->ch) == 0)
			s->ch = NULL;
		if (s->fast && !s->ps.synced && !s->stopping &&
		    (s->fast_miss || status == 126 || status == 127)) {
			/* Not cached (or not runnable here): check and push
			 * in this same session. */
			rsess_log(s, "probe %s not cached here (status %d): "
			    "checking", rconf_probe_name(s->conf), status);
			s->fast = s->fast_miss = 0;
			pstream_reset(&s->ps);
			s->junk = 0;
			rsess_enter(s, RS_PUSH);
		} else if (s->stopping) {
			rsess_log(s, "probe stopped (status %d)", status);
			rsess_teardown(s, 1);
			s->stopped = 1;
			s->err[0] = '\0';
			rsess_enter(s, RS_DEAD);
		} else if (signame[0] != '\0')
			rsess_fail(s, 0, "probe killed by SIG%s%s%s", signame,
			    s->lasterr[0] != '\0' ? ": " : "", s->lasterr);
		else
			rsess_fail(s, 0, "probe exited with status %d%s%s",
			    status, s->lasterr[0] != '\0' ? ": " : "",
			    s->lasterr);
		return STEP_GO;
	}
	return rsess_fail(s, 0, "broken STREAM step %d", s->sub);
}

/* BACKOFF: wait for the timer (and for the caller to take the end of the
 * last stream), then start over. */
static int
rsess_do_backoff(struct rsess *s)
{
	if (s->now < s->wake || pstream_pending(&s->ps))
		return STEP_WAIT;
	rsess_enter(s, RS_RESOLVE);
	return STEP_GO;
}

static int
rsess_do_dead(struct rsess *s)
{
	return STEP_WAIT;
}

void
rsess_step(struct rsess *s, uint64_t now)
{
	int	i;

	s->now = now;
	s->ready = 0;
	for (i = 0; i < RSESS_STEPS; i++) {
		if (s->deadline != 0 && now >= s->deadline) {
			if (s->state == RS_STREAM)
				rsess_fail(s, 0, "no data for %.1f s",
				    rsess_limit(s, RS_STREAM) / 1000.0);
			else if (s->state == RS_CONNECT)
				rsess_fail(s, 0, "connection timed out after "
				    "%.1f s", s->connect_ms / 1000.0);
			else
				rsess_fail(s, 0, "timed out in %s after %.1f s",
				    rsess_states[s->state].name,
				    rsess_limit(s, s->state) / 1000.0);
			continue;
		}
		if (rsess_states[s->state].step(s) == STEP_WAIT)
			return;
	}
	s->ready = 1;
}

void
rsess_pollfd(const struct rsess *s, struct pollfd *pfd)
{
	int	dirs;

	pfd->fd = -1;
	pfd->events = 0;
	pfd->revents = 0;
	switch (s->state) {
	case RS_CONNECT:
		if (s->sock >= 0) {
			pfd->fd = s->sock;
			pfd->events = POLLOUT;
		}
		return;
	case RS_HANDSHAKE:
	case RS_AUTH:
	case RS_PUSH:
	case RS_EXEC:
	case RS_STREAM:
		if (s->sock < 0 || s->ssh == NULL)
			return;
		pfd->fd = s->sock;
		dirs = libssh2_session_block_directions(s->ssh);
		if (dirs & LIBSSH2_SESSION_BLOCK_INBOUND)
			pfd->events |= POLLIN;
		if (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND)
			pfd->events |= POLLOUT;
		if (s->state == RS_STREAM || pfd->events == 0)
			pfd->events |= POLLIN;
		return;
	default:
		return;
	}
}

int
rsess_timeout(const struct rsess *s, uint64_t now)
{
	uint64_t	t = UINT64_MAX;

	if (s->ready || pstream_pending(&s->ps))
		return 0;
	if (s->state == RS_STREAM && !s->stopping && s->ctllen == 0 &&
	    (s->ctl_ms != 0 || s->ctl_alive))
		return 0;
	switch (s->state) {
	case RS_RESOLVE:
		if (s->gai != NULL) {
			t = s->gai->next;
			break;
		}
		return s->slot || rconf_slot_free(s->conf) ? 0 : -1;
	case RS_HOSTKEY:
		return 0;
	case RS_BACKOFF:
		t = s->wake;
		break;
	case RS_DEAD:
		return -1;
	case RS_STREAM:
		if (s->ka_s > 0)
			t = s->ka_next;
		if (s->x != NULL && s->x->deadline != 0 && s->x->deadline < t)
			t = s->x->deadline;
		/* FALLTHROUGH */
	default:
		if (s->deadline != 0 && s->deadline < t)
			t = s->deadline;
		break;
	}
	if (t == UINT64_MAX)
		return -1;
	if (t <= now)
		return 0;
	return t - now > INT32_MAX ? INT32_MAX : (int)(t - now);
}

ssize_t
rsess_read(struct rsess *s, void *buf, size_t len)
{
	return pstream_read(&s->ps, buf, len);
}

const char *
rsess_state(const struct rsess *s)
{
	struct rsess	*w = (struct rsess *)(uintptr_t)s;

	switch (s->state) {
	case RS_RESOLVE:
		return s->slot || rconf_slot_free(s->conf) ? "connecting" :
		    "waiting";
	case RS_STREAM:
		return s->stopping ? "stopping" : "live";
	case RS_BACKOFF:
		snprintf(w->statebuf, sizeof(w->statebuf), "lost: %s", s->err);
		return s->statebuf;
	case RS_DEAD:
		if (s->stopped)
			return "closed";
		snprintf(w->statebuf, sizeof(w->statebuf), "%s: %s",
		    s->refused ? "refused" : "failed", s->err);
		return s->statebuf;
	default:
		return rsess_states[s->state].ui;
	}
}

void
rsess_set_interval(struct rsess *s, unsigned ms)
{
	if (ms == 0 || ms == s->interval_ms)
		return;
	s->interval_ms = ms;
	if (s->state != RS_STREAM || s->stopping)
		return;		/* the next probe starts with it */
	s->ctl_ms = ms;
	/* The silence allowed follows the interval from now on. */
	s->deadline = rsess_deadline(s, RS_STREAM);
}

enum rsess_state
rsess_phase(const struct rsess *s)
{
	return s->state;
}

const char *
rsess_error(const struct rsess *s)
{
	return s->err;
}

int
rsess_refused(const struct rsess *s)
{
	return s->state == RS_DEAD && s->refused;
}

const char *
rsess_host(const struct rsess *s)
{
	return s->host;
}

unsigned
rsess_uploads(const struct rsess *s)
{
	return s->uploads;
}

const char *
rsess_auth_method(const struct rsess *s)
{
	return s->authed;
}

const char *
rsess_auth_tried(const struct rsess *s)
{
	return s->tried;
}

const char *
rsess_user(const struct rsess *s)
{
	return s->user;
}

int
rsess_auth_refused(const struct rsess *s)
{
	return s->state == RS_DEAD && s->auth_refused;
}

int
rsess_config_refused(const struct rsess *s)
{
	return s->state == RS_DEAD && s->config_err != NULL &&
	    strcmp(s->err, s->config_err) == 0;
}
