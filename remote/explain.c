/* SPDX-License-Identifier: ISC */
/*
 * explain: jobtop --explain.  Each rung runs in a session of its own with
 * one node and a sample count of one, so it ends by itself once the node
 * delivered a sample; a deadline hook ends it otherwise.  What the session
 * saw (its states, the probe's HELLO, its events) and what the transport
 * knows (for libssh2: how it authenticated or what it tried) become
 * lines.  Every foreign string (node names, probe text, ssh's stderr)
 * passes through text_clean before it is printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libssh2.h>

#include "clock.h"
#include "explain.h"
#include "feed-launch.h"
#include "feed-srun.h"
#include "hostlist.h"
#include "ladder.h"
#include "model.h"
#include "proto.h"
#include "rconf.h"
#include "rsess.h"
#include "runas.h"
#include "rutil.h"
#include "sched.h"
#include "textsafe.h"
#include "xmalloc.h"

#define EXPLAIN_SSH_DEADLINE_MS	8000
#define EXPLAIN_SSH_OUT_MAX	65536

/* One rung's run: the session and what its hooks collected. */
struct explain_try {
	struct session	*s;
	uint64_t	 deadline;
	int		 timed_out;
	char		 states[512];	/* "connecting -> live" */
	char		 ranks[PROTO_TEXT_MAX];	/* ranks-found */
	char		 events[1024];	/* warn and error events */
	enum feed_fail	 fail;		/* as it failed (stopping may
					 * change the phase later) */
	char		 reason[512];
};

static void
explain_append(char *buf, size_t size, const char *sep, const char *s)
{
	size_t	n = strlen(buf);

	if (n + 1 >= size)
		return;
	snprintf(buf + n, size - n, "%s%s", n > 0 ? sep : "", s);
}

static void
explain_on_state(void *arg, struct session *s, int i, const char *old,
    const char *new)
{
	struct explain_try	*t = arg;
	struct feed		*f;
	const char		*why;
	char			 buf[256];

	explain_append(t->states, sizeof(t->states), " -> ",
	    text_clean(buf, sizeof(buf), new));
	/* The failure's class now: the session's stop at the end may move
	 * the feed on to "closed". */
	if (t->fail == FEED_FAIL_NONE && (f = session_node_feed(s, i)) !=
	    NULL && (t->fail = feed_failure(f)) != FEED_FAIL_NONE) {
		feed_phase(f, &why);
		snprintf(t->reason, sizeof(t->reason), "%s", why);
	}
}

static void
explain_on_message(void *arg, struct session *s, int i, int type)
{
	struct explain_try		*t = arg;
	const struct proto_event	*ev;
	char				 buf[PROTO_TEXT_MAX + 64];
	char				 code[PROTO_NAME_MAX];
	char				 text[PROTO_TEXT_MAX];

	if (type != MSG_EVENT || (ev = session_node_event(s, i)) == NULL)
		return;
	text_clean(text, sizeof(text), ev->text);
	if (strcmp(ev->code, "ranks-found") == 0) {
		snprintf(t->ranks, sizeof(t->ranks), "%s", text);
		return;
	}
	if (ev->level < EV_WARN)
		return;
	snprintf(buf, sizeof(buf), "%s %s: %s", ev->level == EV_WARN ?
	    "warn" : "error", text_clean(code, sizeof(code), ev->code), text);
	explain_append(t->events, sizeof(t->events), "\n", buf);
}

/* The deadline: the session ends (its probes are asked to stop). */
static int
explain_on_timeout(void *arg, uint64_t now)
{
	struct explain_try	*t = arg;

	if (t->s == NULL || t->timed_out)
		return -1;
	if (now >= t->deadline) {
		t->timed_out = 1;
		session_quit(t->s);
		return -1;
	}
	return (int)(t->deadline - now);
}

/* The job, as its scheduler reported it. */
static void
explain_job(const struct job *job, FILE *out)
{
	char	id[320], user[64], st[32], nl[512];

	if (strcmp(job->sched, "hostlist") == 0) {
		fprintf(out, "job: none (nodes given with -w or --hostfile: "
		    "%s, %zu node%s)\n", text_clean(nl, sizeof(nl),
		    job->nodelist != NULL ? job->nodelist : ""),
		    hostlist_count(job->nodes),
		    hostlist_count(job->nodes) == 1 ? "" : "s");
		return;
	}
	fprintf(out, "job: %s%s%s (%s), user %s", text_clean(id, sizeof(id),
	    job->id), job->step[0] != '\0' ? "." : "", job->step, job->sched,
	    job->user[0] != '\0' ? text_clean(user, sizeof(user), job->user) :
	    "unknown");
	if (job->uid_known)
		fprintf(out, " (uid %lu)", (unsigned long)job->uid);
	fprintf(out, ", state %s, %zu node%s %s\n",
	    job->state_name[0] != '\0' ? text_clean(st, sizeof(st),
	    job->state_name) : "unknown", hostlist_count(job->nodes),
	    hostlist_count(job->nodes) == 1 ? "" : "s",
	    text_clean(nl, sizeof(nl), job->nodelist != NULL ?
	    job->nodelist : ""));
}

/* Read a big-endian length-prefixed string of an SSH key blob. */
static const uint8_t *
explain_blob_str(const uint8_t **p, const uint8_t *end, uint32_t *len)
{
	const uint8_t	*s;

	if (end - *p < 4)
		return NULL;
	*len = (uint32_t)(*p)[0] << 24 | (uint32_t)(*p)[1] << 16 |
	    (uint32_t)(*p)[2] << 8 | (*p)[3];
	if ((size_t)(end - *p - 4) < *len)
		return NULL;
	s = *p + 4;
	*p = s + *len;
	return s;
}

/*
 * The type and size of the key whose private file is at path (as shown:
 * "~/" is the home), read from the public key beside it: "RSA 3072
 * bits", "ED25519".  0, or -1 when there is no readable .pub.
 */
static int
explain_key_type(const char *shown, char *buf, size_t size)
{
	const char	*home = getenv("HOME"), *q;
	const uint8_t	*p, *end, *s;
	uint8_t		 blob[4096];
	char		 path[1024], text[8192], *sp, *b64;
	uint32_t	 len;
	long		 n;
	int		 fd, bits;
	ssize_t		 r;

	if (strncmp(shown, "~/", 2) == 0 && home != NULL)
		snprintf(path, sizeof(path), "%s/%s.pub", home, shown + 2);
	else
		snprintf(path, sizeof(path), "%s.pub", shown);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return -1;
	r = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (r <= 0)
		return -1;
	text[r] = '\0';
	if ((sp = strchr(text, ' ')) == NULL)
		return -1;
	b64 = sp + 1;
	b64[strcspn(b64, " \n")] = '\0';
	if ((n = rutil_b64_decode(b64, strlen(b64), blob, sizeof(blob))) < 0)
		return -1;
	p = blob;
	end = blob + n;
	if ((s = explain_blob_str(&p, end, &len)) == NULL)
		return -1;
	if (len == 7 && memcmp(s, "ssh-rsa", 7) == 0) {
		/* e, then n: the modulus' bits are the key's size. */
		if (explain_blob_str(&p, end, &len) == NULL ||
		    (s = explain_blob_str(&p, end, &len)) == NULL)
			return -1;
		while (len > 0 && *s == 0) {
			s++;
			len--;
		}
		bits = (int)len * 8;
		if (len > 0)
			for (q = (const char *)s, n = 0x80; n > 0 &&
			    !(*(const uint8_t *)q & n); n >>= 1)
				bits--;
		snprintf(buf, size, "RSA %d bits", bits);
	} else if (len == 11 && memcmp(s, "ssh-ed25519", 11) == 0)
		snprintf(buf, size, "ED25519");
	else if (len > 11 && memcmp(s, "ecdsa-sha2-", 11) == 0)
		snprintf(buf, size, "ECDSA %.*s", (int)len - 11, s + 11);
	else
		snprintf(buf, size, "%.*s", (int)(len > 64 ? 64 : len), s);
	return 0;
}

/* What libssh2 did: how it authenticated, or what it tried and why that
 * was refused. */
static void
explain_libssh2(struct rsess *rs, FILE *out)
{
	const char	*how = rsess_auth_method(rs), *tried;
	char		 kt[128], buf[512], one[512], *tok, *save;

	if (how[0] != '\0') {
		fprintf(out, "  auth: publickey as %s with %s",
		    text_clean(buf, sizeof(buf), rsess_user(rs)),
		    text_clean(one, sizeof(one), how));
		if (explain_key_type(how, kt, sizeof(kt)) == 0)
			fprintf(out, " (%s)", kt);
		fputc('\n', out);
		if ((tried = rsess_auth_tried(rs))[0] != '\0')
			fprintf(out, "  auth tried before: %s\n",
			    text_clean(buf, sizeof(buf), tried));
		return;
	}
	if ((tried = rsess_auth_tried(rs))[0] == '\0')
		return;
	fprintf(out, "  auth tried: %s\n", text_clean(buf, sizeof(buf),
	    tried));
	/* Each "~/.ssh/id_x" tried: its type, and for RSA why it fails. */
	snprintf(buf, sizeof(buf), "%s", tried);
	for (tok = strtok_r(buf, ";", &save); tok != NULL;
	    tok = strtok_r(NULL, ";", &save)) {
		while (*tok == ' ')
			tok++;
		if (strchr(tok, ' ') != NULL || strchr(tok, ':') != NULL ||
		    explain_key_type(tok, kt, sizeof(kt)) != 0)
			continue;
		fprintf(out, "  key %s: %s\n", text_clean(one, sizeof(one),
		    tok), kt);
#if LIBSSH2_VERSION_NUM < 0x010b00
		if (strncmp(kt, "RSA", 3) == 0)
			fprintf(out, "  why: libssh2 %s signs with an RSA key "
			    "only as ssh-rsa (SHA-1), which OpenSSH 8.8 and "
			    "later refuse; the OpenSSH client (transport "
			    "ssh) signs with rsa-sha2-256/512\n",
			    LIBSSH2_VERSION);
#endif
	}
}

/* Is this line of `ssh -v` about reaching the node or authenticating? */
static int
explain_ssh_line_wanted(const char *l)
{
	static const char *const keys[] = {
		"Connecting to", "connect to address", "Connection established",
		"Authenticating to", "Authentications that can continue",
		"Next authentication method", "Offering public key",
		"Server accepts key", "Authenticated to", "Permission denied",
		"Connection refused", "Connection timed out", "No route",
		"Could not resolve", "Host key verification failed",
		"Setting implicit ProxyCommand", "Executing proxy",
		"proxy", "jump", "Will attempt key",
		"no such identity", "send_pubkey_test", "closed by",
		"kex_exchange_identification", "not accepted",
		"Bad configuration", "sign_and_send_pubkey", NULL
	};
	int	i;

	for (i = 0; keys[i] != NULL; i++)
		if (strstr(l, keys[i]) != NULL)
			return 1;
	return 0;
}

/*
 * Run `ssh -v -o BatchMode=yes NODE true` with a deadline and print the
 * lines of its stderr that say how it connected and authenticated, and
 * its outcome.  Returns 1 when it worked.
 */
static int
explain_ssh_client(const char *node, FILE *out)
{
	char		*buf, line[1024], *p, *nl;
	int		 pfd[2], status = -1, ok, timed_out = 0;
	size_t		 len = 0;
	struct pollfd	 pf;
	struct timespec	 ts;
	uint64_t	 t0, now;
	pid_t		 pid;
	ssize_t		 r;

	if (pipe2(pfd, O_CLOEXEC) != 0)
		return 0;
	if ((pid = fork()) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return 0;
	}
	if (pid == 0) {
		int	null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(pfd[1], STDERR_FILENO);
		setpgid(0, 0);
		execlp("ssh", "ssh", "-v", "-o", "BatchMode=yes", "-o",
		    "ConnectTimeout=5", "--", node, "true", (char *)NULL);
		dprintf(STDERR_FILENO, "cannot run ssh: %s\n",
		    strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	buf = xmalloc(EXPLAIN_SSH_OUT_MAX + 1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	pf.fd = pfd[0];
	pf.events = POLLIN;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec /
		    1000000;
		if (now - t0 >= EXPLAIN_SSH_DEADLINE_MS) {
			timed_out = 1;
			break;
		}
		if (poll(&pf, 1, (int)(EXPLAIN_SSH_DEADLINE_MS -
		    (now - t0))) < 0 && errno != EINTR)
			break;
		r = read(pfd[0], line, sizeof(line));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (len + (size_t)r > EXPLAIN_SSH_OUT_MAX)
			r = (ssize_t)(EXPLAIN_SSH_OUT_MAX - len);
		memcpy(buf + len, line, (size_t)r);
		len += (size_t)r;
	}
	close(pfd[0]);
	if (timed_out)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	for (p = buf; *p != '\0'; p = nl != NULL ? nl + 1 : p + strlen(p)) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		p[strcspn(p, "\r")] = '\0';
		if (strncmp(p, "debug1: ", 8) == 0 &&
		    !explain_ssh_line_wanted(p + 8))
			continue;
		if (strncmp(p, "debug", 5) == 0 && strncmp(p, "debug1: ", 8))
			continue;
		if (*p == '\0' || strncmp(p, "OpenSSH_", 8) == 0 ||
		    strncmp(p, "Transferred: ", 13) == 0 ||
		    strncmp(p, "Bytes per second: ", 18) == 0)
			continue;
		/* Default key files that do not exist: noise. */
		if (strncmp(p, "debug1: Will attempt key: ", 26) == 0 &&
		    strstr(p, " SHA256:") == NULL)
			continue;
		fprintf(out, "  ssh -v: %s\n", text_clean(line, sizeof(line),
		    strncmp(p, "debug1: ", 8) == 0 ? p + 8 : p));
	}
	free(buf);
	ok = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (timed_out)
		fprintf(out, "  ssh -v: no answer within %d s\n",
		    EXPLAIN_SSH_DEADLINE_MS / 1000);
	else if (!ok)
		fprintf(out, "  ssh -v: `ssh %s true` failed (exit %d)\n",
		    text_clean(line, sizeof(line), node), WIFEXITED(status) ?
		    WEXITSTATUS(status) : -1);
	return ok;
}

/* Is rung name one of the schedulers' launchers (not SSH)? */
static int
explain_is_launcher(const char *name)
{
	return feed_transport_has(name, FEED_T_LAUNCHER);
}

/*
 * Another user's job (jobtop.1, "Admins and launchers"): as root, who the
 * launchers' children become and the step or client each would start; as
 * anyone else (a site's admin group, Slurm's operators), what the
 * launchers refuse them and what is left.
 */
static void
explain_launchers(const struct job *job, const char *node,
    const struct explain_rung *rungs, int n, FILE *out)
{
	const struct rconf	*rc = NULL;
	const struct runas	*ra;
	char			 who[512], cmd[1024], buf[1024];
	uid_t			 owner;
	int			 i;

	for (i = 0; i < n && rc == NULL; i++)
		rc = rungs[i].rc;
	if (rc == NULL || !runas_owner(rc, &owner) || owner == getuid())
		return;
	if (!runas_wanted(rc)) {
		fprintf(out, "launchers: job %s is uid %lu's and this is uid "
		    "%lu, not root: a scheduler's launcher starts work in a "
		    "job for its owner only (Slurm refuses the step, even to "
		    "AdminLevel and operators; oarsh needs the job's key in "
		    "OAR_JOB_KEY_FILE; a Flux instance serves its owner; "
		    "LSF's and PBS's launchers work from within the job), "
		    "and only root can start them as the owner: watch over "
		    "SSH (%s) with the site's admin keys, or as root\n",
		    text_clean(buf, sizeof(buf), job->id),
		    (unsigned long)owner, (unsigned long)getuid(),
		    feed_transports_with(FEED_T_SSH, cmd, sizeof(cmd)));
		return;
	}
	if ((ra = runas_get(rc, who, sizeof(who))) == NULL) {
		fprintf(out, "launchers: as root, cannot start them as the "
		    "job's owner: %s\n", text_clean(buf, sizeof(buf), who));
		return;
	}
	runas_describe(ra, who, sizeof(who));
	fprintf(out, "launchers: job %s is %s's; as root, a launcher's child "
	    "starts as %s, in %s, with HOME, USER, LOGNAME and SHELL his, "
	    "PATH, locale and the schedulers' settings kept and nothing "
	    "else of root's; the probe runs with his rights\n",
	    text_clean(buf, sizeof(buf), job->id), ra->name, who, ra->home);
	for (i = 0; i < n; i++) {
		if (rungs[i].local || !explain_is_launcher(rungs[i].name))
			continue;
		/* Another scheduler's launcher: not worth a line. */
		if (rungs[i].skip != NULL && (strstr(rungs[i].skip,
		    "jobs only") != NULL || strstr(rungs[i].skip,
		    "not a Slurm job") != NULL))
			continue;
		if (rungs[i].skip != NULL) {
			fprintf(out, "launcher %s: would not start: %s\n",
			    rungs[i].name, text_clean(buf, sizeof(buf),
			    rungs[i].skip));
			continue;
		}
		if (feed_srun_is(rungs[i].name))
			feed_srun_command(rc, node, cmd, sizeof(cmd));
		else
			feed_launch_command(rungs[i].name, rc, node, cmd,
			    sizeof(cmd));
		fprintf(out, "launcher %s: would start %s%s, as %s\n",
		    rungs[i].name, feed_srun_is(rungs[i].name) ?
		    "the step " : "", text_clean(buf, sizeof(buf), cmd), who);
	}
}

/* What the probe reported: its HELLO, each source, the job's processes. */
static void
explain_probe(const struct explain_try *t, const struct node_model *m,
    const struct job *job, const char *via, FILE *out)
{
	const struct model_hello	*h = &m->hello;
	char				 a[PROTO_TEXT_MAX];
	char				 b[PROTO_TEXT_MAX];
	char				 c[PROTO_TEXT_MAX];
	char				 d[PROTO_TEXT_MAX];
	unsigned			 i;

	fprintf(out, "probe: jobtop-probe %s (protocol %u.%u) through %s on "
	    "%s: %s %s, %u CPUs, %llu MiB\n", text_clean(a, sizeof(a),
	    h->version), h->major, h->minor, via, text_clean(b, sizeof(b),
	    h->host), text_clean(c, sizeof(c), h->kernel),
	    text_clean(d, sizeof(d), h->arch), h->ncpu,
	    (unsigned long long)(h->mem_total >> 20));
	if (strcmp(job->sched, "hostlist") == 0)
		fprintf(out, "ranks: no job: the probe shows the user's "
		    "processes (root: the busiest)\n");
	else if (t->ranks[0] != '\0')
		fprintf(out, "ranks: %s\n", t->ranks);
	else
		fprintf(out, "ranks: no process of job %s found on this node "
		    "in the first sample (not started yet, or not the "
		    "owner's)\n", text_clean(a, sizeof(a), job->id));
	for (i = 0; i < h->nsources; i++) {
		if (h->sources[i].on)
			fprintf(out, "source %s: on\n", text_clean(a,
			    sizeof(a), h->sources[i].name));
		else
			fprintf(out, "source %s: off: %s\n", text_clean(a,
			    sizeof(a), h->sources[i].name),
			    text_clean(b, sizeof(b), h->sources[i].reason));
	}
	if (t->events[0] != '\0')
		fprintf(out, "probe events:\n  %s\n", t->events);
}

/* The ladder's verdict on this failure: where auto sends the node next,
 * and why, or that it stays failed. */
static void
explain_ladder(const struct explain_rung *r, const char *node,
    const struct explain_try *t, FILE *out)
{
	static const char *const classes[] = {
		"none", "authentication refused", "the node refuses the user",
		"not supported by this transport", "other"
	};
	const char	*next;
	char		 why[512], buf[512];

	if (t->fail == FEED_FAIL_NONE)
		return;
	why[0] = '\0';
	next = feed_ladder_next(r->rc, node, r->name, t->fail, t->reason, why,
	    sizeof(why));
	fprintf(out, "  failure class: %s; auto: %s%s%s%s%s\n",
	    (unsigned)t->fail < sizeof(classes) / sizeof(classes[0]) ?
	    classes[t->fail] : "other", next != NULL ? "moves the node to " :
	    "stays failed", next != NULL ? next : "",
	    why[0] != '\0' ? " (" : "", why[0] != '\0' ?
	    text_clean(buf, sizeof(buf), why) : "", why[0] != '\0' ? ")" : "");
}

/* Try one rung; its lines go to out, and the probe's (once, for the
 * first rung that works) to probe.  Returns 1 when a sample came. */
static int
explain_try_rung(const struct explain_rung *r, const struct job *job,
    const char *node, const struct session_conf *sc0, FILE *out,
    FILE *probe)
{
	struct explain_try	 t;
	struct session_hooks	 hooks;
	struct session_conf	 sc = *sc0;
	struct feed		*f;
	struct rsess		*rs;
	const char		*why;
	char			 err[512], buf[512];
	uint64_t		 t0, ms;
	int			 ok;

	memset(&t, 0, sizeof(t));
	memset(&hooks, 0, sizeof(hooks));
	hooks.arg = &t;
	hooks.state = explain_on_state;
	hooks.message = explain_on_message;
	hooks.timeout = explain_on_timeout;
	sc.count = 1;
	err[0] = '\0';
	t0 = clock_mono_ms();
	t.deadline = t0 + EXPLAIN_DEADLINE_MS;
	f = r->start(r->arg, node, err, sizeof(err));
	t.s = session_new(&sc, &hooks);
	session_add(t.s, node, f, err);
	session_run(t.s);
	ms = clock_mono_ms() - t0;
	ok = session_node_samples(t.s, 0) > 0;
	if (ok)
		fprintf(out, "transport %s: ok: a sample from %s in %llu ms\n",
		    r->name, text_clean(buf, sizeof(buf), node),
		    (unsigned long long)ms);
	else {
		why = session_node_error(t.s, 0);
		if (why == NULL || why[0] == '\0')
			why = t.timed_out ? "no sample before the deadline" :
			    session_node_state(t.s, 0);
		fprintf(out, "transport %s: FAILED after %llu ms: %s%s\n",
		    r->name, (unsigned long long)ms,
		    text_clean(buf, sizeof(buf), why), t.timed_out ?
		    " (deadline)" : "");
	}
	if (t.states[0] != '\0')
		fprintf(out, "  states: %s\n", t.states);
	if (session_node_feed(t.s, 0) != NULL &&
	    feed_skipped(session_node_feed(t.s, 0))[0] != '\0')
		fprintf(out, "  skipped before: %s\n", text_clean(buf,
		    sizeof(buf), feed_skipped(session_node_feed(t.s, 0))));
	if ((rs = feed_libssh2_rsess(session_node_feed(t.s, 0))) != NULL)
		explain_libssh2(rs, out);
	/* What auto would do after this failure: the ladder's own rule. */
	if (!ok && r->rc != NULL)
		explain_ladder(r, node, &t, out);
	if (ok && probe != NULL && session_node_model(t.s, 0)->have_hello)
		explain_probe(&t, session_node_model(t.s, 0), job, r->name,
		    probe);
	session_free(t.s);
	return ok;
}

int
explain_run(const struct job *job, const char *node,
    const struct explain_rung *rungs, int n, const struct session_conf *sc,
    FILE *out)
{
	char		*ptext = NULL, buf[256], host[256], works[256] = "";
	char		 date[64];
	size_t		 plen = 0;
	FILE		*probe;
	time_t		 now = time(NULL);
	struct tm	 tm;
	int		 i, ok, first = -1, ssh_rung = 0;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = '\0';
	fprintf(out, "jobtop %s --explain, %s, from %s as uid %lu\n",
	    JOBTOP_VERSION, date, text_clean(buf, sizeof(buf), host),
	    (unsigned long)getuid());
	explain_job(job, out);
	fprintf(out, "node: %s%s\n", text_clean(buf, sizeof(buf), node),
	    strcmp(node, hostlist_get(job->nodes, 0)) == 0 &&
	    hostlist_count(job->nodes) > 1 ? " (the first of the job's)" :
	    "");
	explain_launchers(job, node, rungs, n, out);
	fflush(out);

	probe = open_memstream(&ptext, &plen);
	for (i = 0; i < n; i++) {
		if (rungs[i].skip != NULL) {
			fprintf(out, "transport %s: not tried: %s\n",
			    rungs[i].name, rungs[i].skip);
			if (strcmp(rungs[i].name, "ssh") == 0)
				ssh_rung = 1;
			else
				continue;
		} else {
			ok = explain_try_rung(&rungs[i], job, node, sc, out,
			    first < 0 ? probe : NULL);
			if (ok && first < 0)
				first = i;
			if (ok)
				explain_append(works, sizeof(works), ", ",
				    rungs[i].name);
		}
		/* The OpenSSH client's own view: every way it tried. */
		if (!rungs[i].local && strcmp(rungs[i].name, "ssh") == 0) {
			ssh_rung = 1;
			explain_ssh_client(node, out);
		}
		fflush(out);
	}
	/* No ssh rung in this build: still show what OpenSSH does, which
	 * tells libssh2's failures apart from the node's. */
	if (!ssh_rung && !(n == 1 && rungs[0].local)) {
		fprintf(out, "OpenSSH client (no ssh transport in this "
		    "build):\n");
		explain_ssh_client(node, out);
	}
	fclose(probe);
	if (plen > 0)
		fputs(ptext, out);
	free(ptext);
	/* A rung auto starts with (srun for a very large job) wins when it
	 * works. */
	for (i = 0; i < n; i++)
		if (rungs[i].first != NULL && strstr(works, rungs[i].name) !=
		    NULL) {
			fprintf(out, "auto: %s (%s)\n", rungs[i].name,
			    text_clean(buf, sizeof(buf), rungs[i].first));
			fflush(out);
			return 0;
		}
	if (first < 0) {
		fprintf(out, "auto: none: no transport reaches %s\n",
		    text_clean(buf, sizeof(buf), node));
		fflush(out);
		return 1;
	}
	if (rungs[first].local)
		fprintf(out, "auto: %s (this machine: the probe runs as a "
		    "child, no transport)\n", rungs[first].name);
	else
		fprintf(out, "auto: %s (the cheapest rung of the ladder that "
		    "reaches %s; reached by: %s)\n", rungs[first].name,
		    text_clean(buf, sizeof(buf), node), works);
	fflush(out);
	return 0;
}
