/* SPDX-License-Identifier: ISC */
/*
 * feed-ssh: the `ssh` transport, the system OpenSSH client as one child
 * process per node (spawn.c: its own process group, PR_SET_PDEATHSIG so
 * that a kill -9 of the monitor takes it along, and with it the node's
 * probe, which sees EOF on its stdin).  It inherits everything the user's
 * OpenSSH does: keys of every type and signature algorithm, certificates,
 * the agent, GSSAPI, host-based authentication, ProxyJump and
 * ProxyCommand, ControlMaster, known_hosts and ~/.ssh/config as ssh reads
 * them.  jobtop adds only -T (no tty), BatchMode=yes (never a prompt),
 * ConnectTimeout when ssh_config sets none, and StrictHostKeyChecking=
 * accept-new with --accept-new.
 *
 * Each start is one connection running rpush_ssh_cmd: the cached probe
 * (the content-hash cache of rpush.c, the same as libssh2's) starts at
 * once; when missing it is sent over the same connection's stdin and
 * verified before it runs.  The probe gets the same options and the same
 * watchdog as over libssh2, with an "alive" line on its stdin every
 * keepalive interval.
 *
 *	WAITING (a fan-out slot, or the backoff timer) -> CONNECTING (ssh
 *	runs) -> PUSHING (the node asked for the probe) -> STARTING (the
 *	probe's pid came) -> LIVE (its HELLO came);  a live node that goes
 *	silent or whose ssh ends -> LOST, then after 1, 2, 4 .. 30 s a new
 *	ssh;  "Permission denied", "Host key verification failed" and the
 *	script's own refusals -> REFUSED for good, with ssh's words.
 *
 * A side command (a backtrace) is a second ssh (feed-cmd.c).
 *
 * The same machinery serves the schedulers' own remote shells, one row
 * each in fssh_launchers[] (feed-launch.h): a client that takes "NODE
 * COMMAND" like ssh (OAR's oarsh, LSF's blaunch, PBS's pbs_tmrsh), the
 * scheduler it serves and what it needs from the environment.  The node
 * table then names the row ("oarsh"), not "ssh".  Flux's row names the
 * node by its rank in the job's own instance instead: "flux proxy JOB
 * flux exec -r RANK -d HOME COMMAND" (flux-proxy(1), flux-exec(1)).
 *
 * As root on another user's job, a launcher row whose scheduler lets the
 * job's owner reach the nodes from outside the job (oarsh: OAR checks that
 * the job is its caller's; flux: a job's instance serves its owner) starts
 * its client as the owner (runas.h: his uid and groups switched to before
 * exec, his environment and home), and names itself "oarsh as jtuser".
 * The rows that work only from within the job (blaunch, pbs_tmrsh) refuse
 * root outside it with the scheduler's rule (fssh_client.rule).  The ssh
 * transport itself stays root's own.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "feed-launch.h"
#include "feed.h"
#include "fsutil.h"
#include "ladder.h"
#include "pstream.h"
#include "rconf.h"
#include "rpush.h"
#include "runas.h"
#include "sched.h"
#include "spawn.h"
#include "sshconf.h"
#include "textsafe.h"
#include "xmalloc.h"

#define FSSH_BUF_MAX	(1 << 20)	/* probe bytes held for the caller */
#define FSSH_START_MS	120000		/* connect, push and start */
#define FSSH_STOP_MS	5000		/* after EOF, before SIGKILL */
#define FSSH_WATCHDOG_KA 4		/* as rsess: keepalives of silence */
#define FSSH_ARGS_MAX	16	/* flux's: 9, /bin/sh -c CMD, NULL */

/*
 * A client run like ssh: prog NODE COMMAND.  shell: it hands COMMAND to
 * a login shell on the node as one string (ssh, oarsh); else it runs
 * argv itself, so the command goes as /bin/sh -c COMMAND.  inside: the
 * client works only within the job (its environment variable names the
 * job); jobvar: the variable it takes the job from, set from the job
 * jobtop watches when inside is not set.  rank: the client reaches the
 * node as a rank of the job's own instance (Flux), not by its name; it
 * needs the job and the node's rank, not inside or jobvar.
 */
struct fssh_client {
	const char	*name;		/* the transport */
	const struct sched *sched;	/* the scheduler it serves */
	const char	*prog;		/* found in PATH */
	const char	*override;	/* an absolute path instead */
	const char	*inside;
	const char	*jobvar;
	int		 shell;
	int		 rank;
	/* Who the scheduler lets use it on a job from outside, for the
	 * refusals of root and of other users (jobtop.1, "Admins and
	 * launchers"); NULL: the job's owner, and root as the owner. */
	const char	*rule;
};

static const struct fssh_client fssh_launchers[] = {
	/* oarsh: OAR's sshd (port 6667, user oar) and oarsh_shell put the
	 * command into the job's cpuset; with OAR_JOB_KEY_FILE the job's
	 * key, else OAR_JOB_ID and oarstat find the job. */
	{ .name = "oarsh", .sched = &sched_oar, .prog = "oarsh",
	    .override = "JOBTOP_OARSH", .inside = "OAR_JOB_KEY_FILE",
	    .jobvar = "OAR_JOB_ID", .shell = 1 },
	/* blaunch NODE CMD: LSF's res starts it in the job, from within
	 * the job only (LSB_JOBID). */
	{ .name = "blaunch", .sched = &sched_lsf, .prog = "blaunch",
	    .override = "JOBTOP_BLAUNCH", .inside = "LSB_JOBID",
	    .rule = "LSF's blaunch starts tasks only from within the job "
	    "(LSB_JOBID, on its hosts), for root and LSF administrators "
	    "too" },
	/* pbs_tmrsh NODE CMD: PBS's TM interface (tm_spawn) through the
	 * job's MoM, from within the job only (PBS_JOBID). */
	{ .name = "pbs_tmrsh", .sched = &sched_pbs, .prog = "pbs_tmrsh",
	    .override = "JOBTOP_PBS_TMRSH", .inside = "PBS_JOBID",
	    .rule = "PBS's TM interface (pbs_tmrsh) serves only the "
	    "job's own tasks, from within the job (PBS_JOBID and its "
	    "cookie), for root and PBS managers too" },
	/* flux proxy JOB flux exec -r RANK: a batch job is a Flux instance
	 * with one broker per node, ranked in the order of the job's node
	 * list; its owner runs argv (no shell) on a broker with flux exec,
	 * from wherever flux proxy reaches the instance. */
	{ .name = "flux", .sched = &sched_flux, .prog = "flux",
	    .override = "JOBTOP_FLUX", .rank = 1 },
	{ .name = NULL },
};

struct feed_ssh {
	const struct rconf	*rc;
	char			*host;
	const char		*name;		/* "ssh", "oarsh" */
	int			 shell;		/* see fssh_client */
	int			 byrank;	/* argv names the node: no
						   NODE word after it */
	char			*ssh;		/* the client's path */
	char			*envbin;	/* /usr/bin/env, or NULL */
	char			*jobset;	/* "OAR_JOB_ID=12", or the
						   rank ("3"), or NULL */
	const struct runas	*ra;		/* root as the job's owner */
	char			 tname[128];	/* "oarsh as jtuser" */
	char			*argv[FSSH_ARGS_MAX];
	int			 argc;		/* before the command */
	char			 ctimeout[48];

	enum feed_phase		 phase;
	enum feed_fail		 fail;
	char			 reason[512];
	struct spawn		 sp;
	int			 running;	/* sp holds a child */
	int			 slot;		/* holds a fan-out slot */
	int			 fails;
	int			 live;		/* this run delivered data */
	int			 ever;		/* some run did */
	int			 stopping;
	int			 permanent;	/* a refusal seen on stderr */
	char			 kill_why[256];	/* why we ended the child */
	uint64_t		 now;
	uint64_t		 deadline;	/* of the phase, 0 none */
	uint64_t		 wake;		/* WAITING until then */
	unsigned		 interval_ms;	/* 0: the rconf's */
	unsigned		 ka_s;
	uint64_t		 alive_next;

	struct pstream		 ps;		/* the probe's stream */
	char			 errline[512];
	size_t			 errlen;
	char			 lasterr[512];	/* ssh's or the probe's */
	long			 probe_pid, stale_pid;

	const uint8_t		*up;		/* an upload being sent */
	size_t			 uplen, upoff;
	char			 ctl[64];	/* a control line being sent */
	size_t			 ctllen, ctloff;
	unsigned		 ctl_ms;	/* an interval to send, 0 */
	int			 ctl_alive;

	struct feed_exec	*x;		/* a side command */
};

static void	fssh_log(const struct feed_ssh *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

static void
fssh_log(const struct feed_ssh *s, const char *fmt, ...)
{
	va_list	ap;
	char	line[900];

	if (s->rc->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rconf_log(s->rc, "%s: %s: %s", s->host, s->name, line);
}

/* $JOBTOP_SSH (a site's wrapper, a test's), else the first executable
 * ssh in PATH, allocated, or NULL; the same for a launcher's prog and
 * override (NULL: none). */
static char *
fssh_which(const char *prog, const char *override)
{
	const char	*p;
	char		 path[4096];

	if (override != NULL && (p = getenv(override)) != NULL &&
	    *p == '/')
		return access(p, X_OK) == 0 ? xstrdup(p) : NULL;
	return fs_which(prog, path, sizeof(path)) == 0 ? xstrdup(path) : NULL;
}

static void
fssh_slot_give(struct feed_ssh *s)
{
	if (s->slot) {
		rconf_slot_give(s->rc);
		s->slot = 0;
	}
}

/* The probe's silence allowed while live, as rsess's STREAM. */
static unsigned
fssh_data_ms(const struct feed_ssh *s)
{
	if (s->rc->data_timeout_ms != 0)
		return s->rc->data_timeout_ms;
	if (s->interval_ms != 0)
		return 5000 + s->interval_ms * 3;
	return 5000 + (unsigned)(s->rc->interval * 3000);
}

/* The command for this start. */
static char *
fssh_command(struct feed_ssh *s)
{
	const struct rconf	*rc = s->rc;
	struct rpush_ssh	 a;
	size_t			 plen, hlen;

	memset(&a, 0, sizeof(a));
	a.dir = rc->cache_dir;
	a.name = rconf_probe_name(rc);
	rconf_probe_data(rc, &plen);
	a.size = plen;
	a.hash = rconf_probe_hash(rc);
	a.arch = rconf_probe_arch(rc);
	a.job = rc->job;
	a.step = rc->step;
	a.sluid = rc->sluid;
	a.interval = s->interval_ms != 0 ? s->interval_ms / 1000.0 :
	    rc->interval;
	a.watchdog = s->ka_s * FSSH_WATCHDOG_KA;
	/* The owner's processes are the ranks: the scheduler's uid, or as
	 * root the owner named by his scheduler (runas.h). */
	a.uid = rc->owner_known ? (long long)rc->owner : s->ra != NULL ?
	    (long long)s->ra->uid : -1;
	a.stale = s->stale_pid;
	if (rconf_nvml_data(rc, &hlen) != NULL) {
		a.helper = rconf_nvml_name(rc);
		a.hsize = hlen;
		a.hhash = rconf_nvml_hash(rc);
	}
	return rpush_ssh_cmd(&a);
}

/* Start ssh for one run. */
static int
fssh_start(struct feed_ssh *s)
{
	struct spawn_req	 rq;
	char			*cmd, err[256];
	static char		 a_sh[] = "/bin/sh", a_c[] = "-c";
	int			 k = s->argc;

	cmd = fssh_command(s);
	if (!s->byrank)
		s->argv[k++] = s->host;
	if (!s->shell) {
		s->argv[k++] = a_sh;
		s->argv[k++] = a_c;
	}
	s->argv[k++] = cmd;
	s->argv[k] = NULL;
	memset(&rq, 0, sizeof(rq));
	rq.path = s->argv[0];
	rq.argv = s->argv;
	rq.flags = SPAWN_IN | SPAWN_OUT | SPAWN_ERR | SPAWN_PGRP;
	/* Root for the job's owner: the client becomes him before exec
	 * (a setuid client such as oarsh then sees him as its caller). */
	runas_req(s->ra, &rq);
	if (s->ra != NULL)
		rq.envp = runas_env(s->ra, NULL, NULL);
	k = spawn_start(&s->sp, &rq, err, sizeof(err));
	free((void *)(uintptr_t)(s->ra != NULL ? rq.envp : NULL));
	if (k != 0) {
		free(cmd);
		s->argv[s->argc] = NULL;
		snprintf(s->reason, sizeof(s->reason), "%s", err);
		return -1;
	}
	free(cmd);
	s->argv[s->argc] = NULL;
	s->running = 1;
	s->live = 0;
	s->permanent = 0;
	s->kill_why[0] = '\0';
	pstream_reset(&s->ps);
	s->errlen = 0;
	s->lasterr[0] = '\0';
	s->probe_pid = 0;
	s->up = NULL;
	s->ctllen = s->ctloff = 0;
	s->ctl_ms = 0;
	s->ctl_alive = 0;
	s->phase = FEED_CONNECTING;
	s->deadline = s->now + FSSH_START_MS;
	if (s->byrank)
		fssh_log(s, "started %s as rank %s, pid %ld%s%s", s->ssh,
		    s->jobset, (long)s->sp.pid, s->ra != NULL ? ", " : "",
		    s->ra != NULL ? s->ra->says : "");
	else
		fssh_log(s, "started %s, pid %ld%s%s", s->ssh,
		    (long)s->sp.pid, s->ra != NULL ? ", " : "",
		    s->ra != NULL ? s->ra->says : "");
	return 0;
}

/* End the running child now, saying why (it is reaped later). */
static void
fssh_kill(struct feed_ssh *s, const char *why)
{
	if (!s->running)
		return;
	if (why != NULL && s->kill_why[0] == '\0')
		snprintf(s->kill_why, sizeof(s->kill_why), "%s", why);
	spawn_kill(&s->sp, SIGKILL);
	spawn_close_in(&s->sp);
}

/* A refusal for good, from ssh's or the script's words. */
static void
fssh_refuse(struct feed_ssh *s, enum feed_fail fail, const char *why)
{
	if (s->permanent)
		return;
	s->permanent = 1;
	s->fail = fail;
	snprintf(s->reason, sizeof(s->reason), "%s", why);
	text_clean_inplace(s->reason);
}

/* One complete stderr line: ours, the probe's, or ssh's. */
static void
fssh_line(struct feed_ssh *s, char *line)
{
	char		 why[512];
	unsigned long long n;
	size_t		 len;
	int		 i;

	text_clean_inplace(line);
	if (*line == '\0')
		return;
	if (strncmp(line, "jobtop-probe-pid ", 17) == 0) {
		s->probe_pid = strtol(line + 17, NULL, 10);
		if (s->phase == FEED_CONNECTING || s->phase == FEED_PUSHING)
			s->phase = FEED_STARTING;
		fssh_log(s, "probe runs as pid %ld", s->probe_pid);
		return;
	}
	if (sscanf(line, "jobtop-send %d %llu", &i, &n) == 2) {
		s->phase = FEED_PUSHING;
		s->up = i == 0 ? rconf_probe_data(s->rc, &len) :
		    rconf_nvml_data(s->rc, &len);
		if (s->up == NULL || (unsigned long long)len != n) {
			fssh_refuse(s, FEED_FAIL_OTHER, "the node asked for "
			    "a file of the wrong size");
			fssh_kill(s, NULL);
			return;
		}
		s->uplen = len;
		s->upoff = 0;
		fssh_log(s, "sending %s (%zu bytes)", i == 0 ?
		    rconf_probe_name(s->rc) : rconf_nvml_name(s->rc), len);
		return;
	}
	if (strncmp(line, "jobtop-arch ", 12) == 0) {
		snprintf(why, sizeof(why), "node is %s, probe is %s", line + 12,
		    rconf_probe_arch(s->rc));
		fssh_refuse(s, FEED_FAIL_OTHER, why);
		return;
	}
	if (strncmp(line, "jobtop-dir ", 11) == 0) {
		snprintf(why, sizeof(why), "%s on the node %s",
		    s->rc->cache_dir, line + 11);
		fssh_refuse(s, FEED_FAIL_OTHER, why);
		return;
	}
	fssh_log(s, "%s", line);
	if (strstr(line, "Permission denied") != NULL) {
		/* oarsh's "seems like job N is not yours": OAR's rule. */
		snprintf(why, sizeof(why), "%s: %s%s", s->name, line,
		    strstr(line, "is not yours") != NULL ? " (OAR lets only "
		    "the job's owner, or a holder of its key in "
		    "OAR_JOB_KEY_FILE, reach its nodes; root's jobtop runs "
		    "oarsh as the owner)" : "");
		fssh_refuse(s, FEED_FAIL_DENIED, why);
		return;
	}
	if (strstr(line, "Host key verification failed") != NULL ||
	    strstr(line, "REMOTE HOST IDENTIFICATION HAS CHANGED") !=
	    NULL) {
		snprintf(why, sizeof(why), "%s: host key for %s: %s",
		    s->name, s->host, line);
		fssh_refuse(s, FEED_FAIL_OTHER, why);
		return;
	}
	if (strncmp(line, "Warning: Permanently added", 26) == 0 ||
	    strncmp(line, "@@@", 3) == 0)
		return;
	/* Worded as the libssh2 transport words it (remote/rsess.c). */
	if (strncmp(line, "ssh: Could not resolve hostname ", 32) == 0) {
		snprintf(s->lasterr, sizeof(s->lasterr), "cannot resolve %s",
		    line + 32);
		return;
	}
	snprintf(s->lasterr, sizeof(s->lasterr), "%s", line);
}

static void
fssh_read_err(struct feed_ssh *s)
{
	char	 chunk[2048];
	ssize_t	 n;
	ssize_t	 i;

	while (s->sp.err >= 0) {
		n = spawn_read(&s->sp.err, chunk, sizeof(chunk));
		if (n == -1)
			return;
		if (n <= 0) {
			if (s->errlen > 0) {
				s->errline[s->errlen] = '\0';
				fssh_line(s, s->errline);
			}
			s->errlen = 0;
			return;
		}
		for (i = 0; i < n; i++) {
			if (chunk[i] == '\n') {
				s->errline[s->errlen] = '\0';
				fssh_line(s, s->errline);
				s->errlen = 0;
			} else if (chunk[i] != '\r' &&
			    s->errlen + 1 < sizeof(s->errline))
				s->errline[s->errlen++] = chunk[i];
		}
	}
}

static void
fssh_read_out(struct feed_ssh *s)
{
	uint8_t	*room;
	size_t	 size;
	ssize_t	 n;
	int	 f;

	while (s->sp.out >= 0) {
		if ((room = pstream_space(&s->ps, &size)) == NULL)
			return;		/* the caller reads first */
		n = spawn_read(&s->sp.out, room, size);
		if (n == -1)
			return;
		if (n <= 0) {
			if (s->ps.synced)
				pstream_end(&s->ps);
			return;
		}
		f = pstream_added(&s->ps, (size_t)n);
		if (f == -1) {
			fssh_kill(s, "no HELLO from the probe");
			fssh_log(s, "no HELLO after: \"%s\"",
			    s->ps.hello.shown);
			return;
		}
		if (!s->ps.synced)
			continue;
		if (f == 1) {
			if (s->ps.hello.dropped > 0)
				fssh_log(s, "dropped output before the "
				    "probe's HELLO: \"%s\"", s->ps.hello.shown);
			s->phase = s->stopping ? FEED_STOPPING : FEED_LIVE;
			fssh_slot_give(s);
			s->alive_next = s->now + (uint64_t)s->ka_s * 1000;
		}
		s->live = s->ever = 1;
		s->fails = 0;
		s->deadline = s->now + fssh_data_ms(s);
	}
}

/* Write what is pending on the child's stdin: an upload, or once live a
 * control line (never both: the script reads exact sizes). */
static void
fssh_write(struct feed_ssh *s)
{
	ssize_t	n;

	while (s->up != NULL && s->upoff < s->uplen) {
		n = spawn_write(&s->sp, s->up + s->upoff, s->uplen - s->upoff);
		if (n <= 0) {
			if (n < 0)
				s->up = NULL;
			return;
		}
		s->upoff += (size_t)n;
	}
	s->up = NULL;
	if (!s->ps.synced || s->stopping || s->sp.in < 0)
		return;
	if (s->ctllen == 0 && s->ctl_ms != 0) {
		s->ctllen = (size_t)snprintf(s->ctl, sizeof(s->ctl),
		    "interval %u\n", s->ctl_ms);
		s->ctloff = 0;
		fssh_log(s, "sent \"interval %u\"", s->ctl_ms);
		s->ctl_ms = 0;
	} else if (s->ctllen == 0 && s->ctl_alive) {
		s->ctllen = (size_t)snprintf(s->ctl, sizeof(s->ctl),
		    "alive\n");
		s->ctloff = 0;
		s->ctl_alive = 0;
	}
	while (s->ctloff < s->ctllen) {
		n = spawn_write(&s->sp, s->ctl + s->ctloff,
		    s->ctllen - s->ctloff);
		if (n <= 0)
			return;
		s->ctloff += (size_t)n;
	}
	s->ctllen = s->ctloff = 0;
}

/* The child is gone: closed, lost (retry later) or refused. */
static void
fssh_ended(struct feed_ssh *s)
{
	char		 how[128];
	unsigned	 wait;
	int		 i, st = s->sp.status;

	s->running = 0;
	spawn_end(&s->sp);
	fssh_slot_give(s);
	/* The stream ended, if one began: read says so once. */
	if (s->ps.synced)
		pstream_end(&s->ps);
	if (s->probe_pid > 0)
		s->stale_pid = s->probe_pid;
	if (s->stopping) {
		fssh_log(s, "closed");
		s->phase = FEED_CLOSED;
		s->reason[0] = '\0';
		return;
	}
	if (s->permanent) {
		fssh_log(s, "refused: %s", s->reason);
		s->phase = FEED_REFUSED;
		return;
	}
	if (s->kill_why[0] != '\0')
		snprintf(s->reason, sizeof(s->reason), "%s", s->kill_why);
	else if (s->lasterr[0] != '\0')
		snprintf(s->reason, sizeof(s->reason), "%s", s->lasterr);
	else {
		spawn_describe(st, how, sizeof(how));
		snprintf(s->reason, sizeof(s->reason), "%s %s", s->name,
		    how);
	}
	s->fails++;
	if (!s->ever && s->fails > s->rc->retries) {
		fssh_log(s, "gives up: %s", s->reason);
		s->fail = FEED_FAIL_OTHER;
		s->phase = FEED_FAILED;
		return;
	}
	i = s->fails - 1 < s->rc->nbackoff ? s->fails - 1 :
	    s->rc->nbackoff - 1;
	wait = s->rc->nbackoff > 0 ? s->rc->backoff_ms[i] : 1000;
	s->wake = s->now + wait;
	s->phase = FEED_LOST;
	fssh_log(s, "lost (%s); retry in %.1f s", s->reason, wait / 1000.0);
}

static int
fssh_pollfds(struct feed *f, struct pollfd *p)
{
	struct feed_ssh	*s = f->impl;
	int		 n = 0;

	if (s->running) {
		if (s->sp.out >= 0 && s->ps.blen < s->ps.cap) {
			p[n].fd = s->sp.out;
			p[n++].events = POLLIN;
		}
		if (s->sp.err >= 0) {
			p[n].fd = s->sp.err;
			p[n++].events = POLLIN;
		}
		if (s->sp.in >= 0 && (s->up != NULL || s->ctllen > 0)) {
			p[n].fd = s->sp.in;
			p[n++].events = POLLOUT;
		}
	}
	if (s->x != NULL)
		n += feed_cmd_pollfds(s->x, p + n);
	return n;
}

static int
fssh_timeout(struct feed *f, uint64_t now)
{
	struct feed_ssh	*s = f->impl;
	uint64_t	 t = UINT64_MAX;
	int		 xt;

	if (pstream_pending(&s->ps))
		return 0;
	if (s->x != NULL && (xt = feed_cmd_timeout(s->x, now)) >= 0)
		t = now + (uint64_t)xt;
	switch (s->phase) {
	case FEED_WAITING:
		if (s->stopping)
			return 0;
		if (!rconf_slot_free(s->rc) && !s->slot)
			break;
		return 0;
	case FEED_LOST:
		if (s->running)
			return 50;	/* being reaped */
		if (s->wake < t)
			t = s->wake;
		break;
	case FEED_REFUSED:
	case FEED_FAILED:
	case FEED_CLOSED:
		break;
	default:
		/* Output closed: reap on SIGCHLD, this is the fallback. */
		if (s->running && s->sp.out < 0 && s->sp.err < 0)
			return 50;
		if (s->deadline != 0 && s->deadline < t)
			t = s->deadline;
		if (s->ps.synced && s->ka_s > 0 && s->alive_next < t)
			t = s->alive_next;
		if ((s->ctl_ms != 0 || s->ctl_alive) && s->ps.synced)
			return 0;
		break;
	}
	if (t == UINT64_MAX)
		return -1;
	if (t <= now)
		return 0;
	return t - now > INT32_MAX ? INT32_MAX : (int)(t - now);
}

static void
fssh_step(struct feed *f, uint64_t now, const struct pollfd *p, int n)
{
	struct feed_ssh	*s = f->impl;

	(void)p;
	(void)n;
	s->now = now;
	if (s->x != NULL) {
		feed_cmd_step(s->x, now);
		feed_cmd_reap(&s->x);
	}
	if ((s->phase == FEED_WAITING || s->phase == FEED_LOST) &&
	    !s->running) {
		if (s->stopping) {
			fssh_slot_give(s);
			s->phase = FEED_CLOSED;
			return;
		}
		if (s->phase == FEED_LOST && now < s->wake)
			return;
		if (!s->slot && !rconf_slot_take(s->rc)) {
			s->phase = FEED_WAITING;
			s->wake = 0;
			return;
		}
		s->slot = 1;
		if (fssh_start(s) != 0) {
			fssh_slot_give(s);
			s->fail = FEED_FAIL_OTHER;
			s->phase = FEED_FAILED;
			return;
		}
	}
	if (!s->running)
		return;
	fssh_read_err(s);
	fssh_read_out(s);
	if (s->ps.synced && s->ka_s > 0 && now >= s->alive_next) {
		s->ctl_alive = 1;
		s->alive_next = now + (uint64_t)s->ka_s * 1000;
	}
	fssh_write(s);
	if (s->permanent && s->sp.pid > 0 && !s->sp.killed &&
	    s->phase != FEED_LIVE)
		fssh_kill(s, NULL);
	if (s->deadline != 0 && now >= s->deadline && !s->sp.killed) {
		if (s->stopping)
			fssh_kill(s, "it did not stop");
		else if (s->ps.synced)
			fssh_kill(s, "no data");
		else
			fssh_kill(s, "no probe after 120 s");
		if (s->ps.synced && !s->stopping) {
			snprintf(s->kill_why, sizeof(s->kill_why), "no data "
			    "for %.1f s", fssh_data_ms(s) / 1000.0);
		}
	}
	/* Reap once both outputs ended (or it was killed). */
	if ((s->sp.out < 0 && s->sp.err < 0) || s->sp.killed) {
		if (s->sp.killed) {
			fssh_read_err(s);
			fssh_read_out(s);
		}
		if (spawn_reap(&s->sp, 0))
			fssh_ended(s);
	}
}

static ssize_t
fssh_read(struct feed *f, void *buf, size_t len)
{
	struct feed_ssh	*s = f->impl;

	return pstream_read(&s->ps, buf, len);
}

static void
fssh_stop(struct feed *f)
{
	struct feed_ssh	*s = f->impl;

	if (s->stopping)
		return;
	s->stopping = 1;
	if (!s->running)
		return;		/* the next step closes it */
	if (s->ps.synced) {
		/* EOF: the probe says BYE and ends, then ssh. */
		spawn_close_in(&s->sp);
		s->phase = FEED_STOPPING;
		s->deadline = s->now + FSSH_STOP_MS;
	} else
		fssh_kill(s, NULL);
}

static int
fssh_done(struct feed *f)
{
	struct feed_ssh	*s = f->impl;

	return !s->running && (s->phase == FEED_REFUSED ||
	    s->phase == FEED_FAILED || s->phase == FEED_CLOSED);
}

static enum feed_phase
fssh_phase(struct feed *f, const char **why)
{
	struct feed_ssh	*s = f->impl;

	*why = "";
	if (s->phase == FEED_LOST || s->phase == FEED_REFUSED ||
	    s->phase == FEED_FAILED)
		*why = s->reason;
	if (s->phase == FEED_WAITING && (s->slot ||
	    rconf_slot_free(s->rc)))
		return FEED_CONNECTING;
	return s->phase;
}

static enum feed_fail
fssh_failure(struct feed *f)
{
	struct feed_ssh	*s = f->impl;

	return s->fail;
}

static int
fssh_set_interval(struct feed *f, unsigned ms)
{
	struct feed_ssh	*s = f->impl;

	if (ms == 0 || s->stopping)
		return -1;
	s->interval_ms = ms;
	if (s->ps.synced) {
		s->ctl_ms = ms;
		s->deadline = s->now + fssh_data_ms(s);
	}
	return 0;
}

/* The side command: a second ssh to the same host. */
static struct feed_exec *
fssh_exec_start(struct feed *f, const char *cmd, size_t cap,
    unsigned timeout_ms, char *err, size_t errsz)
{
	struct feed_ssh		*s = f->impl;
	struct spawn_req	 rq;
	char			*argv[FSSH_ARGS_MAX];
	int			 k;

	if (s->x != NULL && !feed_exec_done(s->x)) {
		snprintf(err, errsz, "a command is running already on %s",
		    s->host);
		return NULL;
	}
	feed_cmd_disown(&s->x);
	for (k = 0; k < s->argc; k++)
		argv[k] = s->argv[k];
	if (!s->byrank)
		argv[k++] = s->host;
	if (!s->shell) {
		argv[k++] = (char *)(uintptr_t)"/bin/sh";
		argv[k++] = (char *)(uintptr_t)"-c";
	}
	argv[k++] = (char *)(uintptr_t)cmd;
	argv[k] = NULL;
	/* As root on another user's job, the client starts as that user,
	 * like the probe's own (the scheduler refuses root's). */
	memset(&rq, 0, sizeof(rq));
	rq.path = argv[0];
	rq.argv = argv;
	runas_req(s->ra, &rq);
	if (s->ra != NULL)
		rq.envp = runas_env(s->ra, NULL, NULL);
	s->x = feed_cmd_start_req(&rq, cap, timeout_ms, err, errsz);
	free((void *)(uintptr_t)(s->ra != NULL ? rq.envp : NULL));
	return s->x;
}

static void
fssh_free(struct feed *f)
{
	struct feed_ssh	*s = f->impl;

	feed_cmd_disown(&s->x);
	if (s->running)
		spawn_end(&s->sp);
	fssh_slot_give(s);
	pstream_free(&s->ps);
	free(s->ssh);
	free(s->envbin);
	free(s->jobset);
	free(s->host);
	free(s);
}

/* "ssh", or the launcher's row. */
static const char *
fssh_transport(struct feed *f)
{
	struct feed_ssh	*s = f->impl;

	return s->ra != NULL ? s->tname : s->name;
}

static const struct feed_ops feed_ssh_ops = {
	"ssh", fssh_pollfds, fssh_timeout, fssh_step, fssh_read, fssh_stop,
	fssh_done, fssh_phase, fssh_failure, fssh_set_interval,
	fssh_exec_start, fssh_transport, fssh_free
};

struct feed *
feed_new_ssh(const struct rconf *rc, const char *host, char *err,
    size_t errsz)
{
	static char		 a_t[] = "-T", a_o[] = "-o",
				 a_batch[] = "BatchMode=yes",
				 a_accept[] = "StrictHostKeyChecking=accept-new",
				 a_end[] = "--";
	struct sshconf_host	 h;
	struct feed_ssh		*s;
	char			*ssh, why[256];
	int			 k = 0, ct = -1;

	if ((ssh = fssh_which("ssh", "JOBTOP_SSH")) == NULL) {
		snprintf(err, errsz, "no ssh client (in PATH, or an "
		    "absolute JOBTOP_SSH)");
		return NULL;
	}
	/* ConnectTimeout only when the user's config has none. */
	s = xcalloc(1, sizeof(*s));
	pstream_init(&s->ps, FSSH_BUF_MAX);
	s->ka_s = rc->keepalive_s;
	if (sshconf_lookup(rconf_sshconf(rc), host, rc->user, &h, why,
	    sizeof(why)) == 0) {
		ct = h.connect_timeout;
		/* The heartbeat follows the host's ServerAliveInterval, as
		 * over libssh2 (PROTOCOL.md). */
		if (h.server_alive >= 0)
			s->ka_s = (unsigned)h.server_alive;
	}
	sshconf_host_free(&h);
	s->rc = rc;
	s->host = xstrdup(host);
	s->name = "ssh";
	s->shell = 1;
	s->ssh = ssh;
	s->phase = FEED_WAITING;
	s->argv[k++] = s->ssh;
	s->argv[k++] = a_t;
	s->argv[k++] = a_o;
	s->argv[k++] = a_batch;
	if (ct < 0) {
		snprintf(s->ctimeout, sizeof(s->ctimeout),
		    "ConnectTimeout=%u", (rc->connect_timeout_ms + 999) / 1000);
		s->argv[k++] = a_o;
		s->argv[k++] = s->ctimeout;
	}
	if (rc->accept_new) {
		s->argv[k++] = a_o;
		s->argv[k++] = a_accept;
	}
	s->argv[k++] = a_end;
	s->argc = k;
	return feed_alloc(&feed_ssh_ops, s);
}

/* --- the schedulers' remote shells (feed-launch.h) --------------------- */

static const struct fssh_client *
fssh_launcher(const char *name)
{
	const struct fssh_client	*c;

	for (c = fssh_launchers; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* Does the environment's job id v name the job jobtop watches?  PBS's
 * "12.server" names job 12. */
static int
fssh_same_job(const char *v, const char *job)
{
	size_t	n;

	if (job == NULL || *job == '\0')
		return 1;
	n = strlen(job);
	return strncmp(v, job, n) == 0 && (v[n] == '\0' || v[n] == '.');
}

/*
 * A row that names the node by its rank in the job's instance (Flux):
 * a job of that scheduler (not a host list: no instance, no ranks), the
 * user's own (flux exec serves the instance owner only), the node's rank
 * in the job's node list, and the client in PATH.
 */
static int
fssh_rank_usable(const struct fssh_client *c, const struct rconf *rc,
    const char *host, char *why, size_t whysz)
{
	char	*path;

	if (rc->sched == NULL || rc->job == NULL || *rc->job == '\0') {
		snprintf(why, whysz, "%s: serves %s jobs only (a job id, not "
		    "a host list)", c->name, c->sched->name);
		return -1;
	}
	/* Root starts it as the owner (runas.h); nobody else can. */
	if (rc->owner_known && rc->owner != getuid() && !runas_wanted(rc)) {
		snprintf(why, whysz, "%s: job %s is uid %lu's; its instance "
		    "runs commands for its owner only (root's jobtop runs "
		    "flux as the owner)", c->name, rc->job,
		    (unsigned long)rc->owner);
		return -1;
	}
	if (host == NULL || rconf_rank(rc, host) < 0) {
		snprintf(why, whysz, "%s: %s is not in job %s's node list",
		    c->name, host != NULL ? host : "the node", rc->job);
		return -1;
	}
	if ((path = fssh_which(c->prog, c->override)) == NULL) {
		snprintf(why, whysz, "%s: %s is not in PATH", c->name,
		    c->prog);
		return -1;
	}
	free(path);
	return 0;
}

int
feed_launch_usable(const char *name, const struct rconf *rc,
    const char *host, char *why, size_t whysz)
{
	const struct fssh_client	*c = fssh_launcher(name);
	const char			*v;
	char				*path;

	if (c == NULL) {
		snprintf(why, whysz, "%s: not a launcher", name);
		return -1;
	}
	if (host != NULL && *host == '-') {
		snprintf(why, whysz, "%s: node name %s", name, host);
		return -1;
	}
	if (rc->sched != NULL && strcmp(rc->sched, c->sched->name) != 0) {
		snprintf(why, whysz, "%s: serves %s jobs only", name,
		    c->sched->name);
		return -1;
	}
	if (c->rank)
		return fssh_rank_usable(c, rc, host, why, whysz);
	v = getenv(c->inside);
	/* Only from within the job: outside it, on a job, the
	 * scheduler's rule (what root and its admins cannot do either). */
	if (c->rule != NULL && (v == NULL || *v == '\0') &&
	    rc->job != NULL && *rc->job != '\0') {
		snprintf(why, whysz, "%s: works only within the job (%s is "
		    "not set): %s", name, c->inside, c->rule);
		return -1;
	}
	if (c->jobvar == NULL && (v == NULL || *v == '\0')) {
		snprintf(why, whysz, "%s: works only within the job (%s "
		    "is not set)", name, c->inside);
		return -1;
	}
	if (c->jobvar == NULL && !fssh_same_job(v, rc->job)) {
		snprintf(why, whysz, "%s: %s is job %s, not %s", name,
		    c->inside, v, rc->job);
		return -1;
	}
	if (c->jobvar != NULL && (v == NULL || *v == '\0') &&
	    (rc->job == NULL || *rc->job == '\0') &&
	    (v = getenv(c->jobvar)) == NULL) {
		snprintf(why, whysz, "%s: no job (%s or %s)", name, c->inside,
		    c->jobvar);
		return -1;
	}
	if ((path = fssh_which(c->prog, c->override)) == NULL) {
		snprintf(why, whysz, "%s: %s is not in PATH", name, c->prog);
		return -1;
	}
	free(path);
	return 0;
}

struct feed *
feed_new_launch(const char *name, const struct rconf *rc, const char *host,
    char *err, size_t errsz)
{
	const struct fssh_client	*c;
	const struct runas		*ra = NULL;
	struct feed_ssh			*s;
	const char			*v;
	char				 who[512];
	int				 k = 0;

	if (feed_launch_usable(name, rc, host, err, errsz) != 0)
		return NULL;
	c = fssh_launcher(name);
	if (runas_wanted(rc) && (ra = runas_get(rc, who, sizeof(who))) ==
	    NULL) {
		snprintf(err, errsz, "%s: cannot start it as the job's owner: "
		    "%s", name, who);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	pstream_init(&s->ps, FSSH_BUF_MAX);
	s->ka_s = rc->keepalive_s;
	s->rc = rc;
	s->host = xstrdup(host);
	s->name = c->name;
	s->ra = ra;
	if (ra != NULL) {
		snprintf(s->tname, sizeof(s->tname), "%s %.96s", c->name,
		    ra->says);
		runas_describe(ra, who, sizeof(who));
		fssh_log(s, "job %s is uid %lu's: root starts %s as %s",
		    rc->job, (unsigned long)ra->uid, c->name, who);
	}
	s->shell = c->shell;
	s->ssh = fssh_which(c->prog, c->override);
	s->phase = FEED_WAITING;
	/* The job it serves: the one jobtop watches, through env(1) so
	 * that a side command's client gets it too. */
	v = c->inside != NULL ? getenv(c->inside) : NULL;
	if (c->jobvar != NULL && (v == NULL || *v == '\0') &&
	    rc->job != NULL && *rc->job != '\0') {
		s->envbin = fssh_which("env", NULL);
		if (s->envbin == NULL) {
			snprintf(err, errsz, "%s: no env in PATH", name);
			free(s->ssh);
			free(s->host);
			free(s);
			return NULL;
		}
		s->jobset = xasprintf("%s=%s", c->jobvar, rc->job);
		s->argv[k++] = s->envbin;
		s->argv[k++] = s->jobset;
	}
	s->argv[k++] = s->ssh;
	if (c->rank) {
		/* The job's instance, then its broker on the node: flux
		 * exec runs argv there (no shell: /bin/sh -c, as blaunch)
		 * and forwards our stdin to it, the probe's upload and
		 * "alive" lines.  Its default directory is ours, which
		 * the node may not have: the home, as ssh's. */
		s->byrank = 1;
		s->jobset = xasprintf("%ld", rconf_rank(rc, host));
		s->argv[k++] = (char *)(uintptr_t)"proxy";
		s->argv[k++] = rc->job;
		s->argv[k++] = s->ssh;
		s->argv[k++] = (char *)(uintptr_t)"exec";
		s->argv[k++] = (char *)(uintptr_t)"-r";
		s->argv[k++] = s->jobset;
		if (ra != NULL || rc->home != NULL) {
			s->argv[k++] = (char *)(uintptr_t)"-d";
			s->argv[k++] = ra != NULL ? ra->home : rc->home;
		}
	}
	s->argc = k;
	return feed_alloc(&feed_ssh_ops, s);
}

#define FSSH_ROW(n)							\
struct feed *								\
feed_new_##n(const struct rconf *rc, const char *host, char *err,	\
    size_t errsz)							\
{									\
	return feed_new_launch(#n, rc, host, err, errsz);		\
}									\
int									\
feed_##n##_usable(const struct rconf *rc, const char *host, char *why,	\
    size_t whysz)							\
{									\
	return feed_launch_usable(#n, rc, host, why, whysz);		\
}									\
const char *								\
feed_##n##_takeover(const struct rconf *rc, const char *host,		\
    const char *cur, enum feed_fail fail, const char *reason,		\
    char *why, size_t whysz)						\
{									\
	return feed_launch_takeover(#n, rc, host, cur, fail, reason,	\
	    why, whysz);						\
}
FSSH_ROW(oarsh)
FSSH_ROW(blaunch)
FSSH_ROW(pbs_tmrsh)
FSSH_ROW(flux)

void
feed_launch_command(const char *name, const struct rconf *rc,
    const char *host, char *buf, size_t size)
{
	const struct fssh_client	*c = fssh_launcher(name);
	const char			*v;

	if (c == NULL) {
		snprintf(buf, size, "%s: not a launcher", name);
		return;
	}
	v = c->inside != NULL ? getenv(c->inside) : NULL;
	if (c->rank)
		snprintf(buf, size, "%s proxy %s %s exec -r %ld -d HOME /bin/sh "
		    "-c '<the probe's script>'", c->prog, rc->job, c->prog,
		    rconf_rank(rc, host));
	else if (c->jobvar != NULL && (v == NULL || *v == '\0') &&
	    rc->job != NULL)
		snprintf(buf, size, "env %s=%s %s %s '<the probe's script>'",
		    c->jobvar, rc->job, c->prog, host);
	else
		snprintf(buf, size, "%s %s %s'<the probe's script>'", c->prog,
		    host, c->shell ? "" : "/bin/sh -c ");
}

const char *
feed_launch_takeover(const char *name, const struct rconf *rc,
    const char *host, const char *cur, enum feed_fail fail,
    const char *reason, char *why, size_t whysz)
{
	static const char		*const words[] = {
		"Access denied", "Permission denied", "Connection refused",
		"not allowed", "DenyUsers", NULL
	};
	const struct fssh_client	*c = fssh_launcher(name);
	char				 tmp[256];
	int				 i, refused;

	if (c == NULL || rc->sched == NULL ||
	    !feed_transport_has(cur, FEED_T_SSH))
		return NULL;
	/* SSH itself refused this user, not a slow or broken link. */
	refused = fail == FEED_FAIL_DENIED || fail == FEED_FAIL_AUTH;
	for (i = 0; !refused && reason != NULL && words[i] != NULL; i++)
		refused = strstr(reason, words[i]) != NULL;
	if (!refused)
		return NULL;
	if (strcmp(c->sched->name, rc->sched) != 0 ||
	    feed_launch_usable(c->name, rc, host, tmp, sizeof(tmp)) != 0)
		return NULL;
	snprintf(why, whysz, "%s: %s; the node is reached through %s "
	    "instead", cur, reason != NULL && *reason != '\0' ? reason :
	    "refused", c->name);
	return c->name;
}
