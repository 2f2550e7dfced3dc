/* SPDX-License-Identifier: ISC */
/*
 * test-remote-ssh: the SSH transport against a real sshd on loopback.  The
 * test starts its own /usr/sbin/sshd (a generated config, host key and
 * authorized key in a temporary directory, 127.0.0.1 and 127.0.0.2 on a
 * free port), points HOME at a temporary home so ~/.ssh is its own, and
 * drives sessions through the rsess API in a poll loop exactly as the
 * monitor does: unknown host keys refused, then accepted and recorded;
 * two nodes (one through a HostName alias) pushing and streaming HELLO
 * with a fan-out of one; the second run finding the cached probe, with a
 * hashed known_hosts; a changed key refused; a wrong key, a passphrase-
 * protected key and a dead port each with a clear error; a probe for
 * another machine refused; an ssh-agent login; a killed probe reconnected
 * after backoff; a lost connection whose sshd still holds the probe (the
 * reconnect kills it); a login shell that prints a banner (scp breaks, cat
 * uploads, the stream is found after the banner); a graceful stop; and no
 * probe left after rsess_close.  The NVML helper is pushed beside the
 * probe (and named to it with --nvml), found cached by the next run, and
 * not pushed when it is built for another machine.  Trust: known_hosts
 * pattern and @cert-authority lines refuse the node even with accept-new
 * (the file unchanged); UserKnownHostsFile from ssh_config is read and
 * written; as root, a backtrace's debugger runs as the target's owner,
 * here and on the node.
 *
 * Set VERBOSE=1 to see the transport's log, KEEP=1 to keep the temporary
 * directory, TIMEOUT_SCALE=N to give every wait N times longer (valgrind).
 *
 * With "--drive [--accept-new] [--cache DIR] [--interval S] NODE..." it is
 * instead a small driver for tests/regress/remote-loopback.sh: it uses the
 * caller's HOME, prints "NODE live" when a node's HELLO arrives, the
 * transport's log on stderr, and streams until it is killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backtrace.h"
#include "feed.h"
#include "ladder.h"
#include "harness.h"
#include "rconf.h"
#include "rsess.h"

#define MAXN	4

static char	 tmp[64];		/* the test's directory */
static char	 home[128];
static char	 probe[PATH_MAX];
static int	 port, deadport;
static pid_t	 sshd_pid = -1, agent_pid = -1;
static char	 logbuf[1 << 16];
static size_t	 loglen;
static int	 verbose;
static unsigned	 scale = 1;	/* $TIMEOUT_SCALE: slower under valgrind */
static const char *conf_nvml;		/* the NVML helper for conf_make */
static const char *fill_at;		/* a log line: take every descriptor */
static int	 fill_fds[1024], fill_n;

/* Take every descriptor the limit allows (test_key_emfile). */
static void
fill_take(void)
{
	int	fd;

	while (fill_n < 1024 && (fd = open("/dev/null", O_RDONLY)) >= 0)
		fill_fds[fill_n++] = fd;
}

static void
fill_release(void)
{
	while (fill_n > 0)
		close(fill_fds[--fill_n]);
}

static uint64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The transport's debug lines: kept for checks, printed with VERBOSE. */
static void
test_log(void *arg, const char *line)
{
	size_t	n = strlen(line);

	(void)arg;
	if (verbose)
		fprintf(stderr, "  log: %s\n", line);
	if (fill_at != NULL && strstr(line, fill_at) != NULL) {
		fill_at = NULL;
		fill_take();
	}
	if (loglen + n + 2 < sizeof(logbuf)) {
		memcpy(logbuf + loglen, line, n);
		loglen += n;
		logbuf[loglen++] = '\n';
		logbuf[loglen] = '\0';
	}
}

static int
run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run a shell command; its exit status. */
static int
run(const char *fmt, ...)
{
	char	cmd[4096];
	va_list	ap;
	int	rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* A port nothing listens on now. */
static int
free_port(void)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	int			fd, p;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
		close(fd);
		return -1;
	}
	p = ntohs(sin.sin_port);
	close(fd);
	return p;
}

static int
port_open(const char *addr, int p)
{
	struct sockaddr_in	sin;
	int			fd, ok;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)p);
	inet_pton(AF_INET, addr, &sin.sin_addr);
	ok = connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
	close(fd);
	return ok;
}

static void
cleanup(void)
{
	if (agent_pid > 0) {
		kill(agent_pid, SIGTERM);
		waitpid(agent_pid, NULL, 0);
		agent_pid = -1;
	}
	if (sshd_pid > 0) {
		kill(sshd_pid, SIGTERM);
		waitpid(sshd_pid, NULL, 0);
		sshd_pid = -1;
	}
	if (tmp[0] != '\0' && getenv("KEEP") == NULL)
		run("rm -rf '%s'", tmp);
}

static void
skip(const char *why)
{
	cleanup();
	printf("%s\n", why);
	exit(77);
}

/* Is a process whose command line holds name alive?  pgrep is run
 * directly (no shell, whose own command line would match). */
static int
probe_running(const char *name)
{
	pid_t	pid;
	int	st, fd;
	char	pat[160];

	/* The probe's own command line: "DIR/NAME --interval ..."; the
	 * check script also names the file, but not so. */
	snprintf(pat, sizeof(pat), "%s --interval", name);
	if ((pid = fork()) == 0) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execlp("pgrep", "pgrep", "-f", pat, (char *)NULL);
		_exit(2);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st) == 0;
}

/* SIGKILL every process whose command line holds name, as a node that
 * loses its probe; pkill's status. */
static int
kill_probe(const char *name)
{
	pid_t	pid;
	int	st;
	char	pat[160];

	snprintf(pat, sizeof(pat), "%s --interval", name);
	if ((pid = fork()) == 0) {
		execlp("pkill", "pkill", "-KILL", "-f", pat, (char *)NULL);
		_exit(2);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Wait up to ms for no process to match name: 1 when none is left. */
static int
probe_gone(const char *name, unsigned ms)
{
	uint64_t	end = now_ms() + ms;

	do {
		if (probe_running(name) == 0)
			return 1;
		usleep(50000);
	} while (now_ms() < end);
	run("echo 'still running:'; ps -eo pid,ppid,etimes,args | "
	    "grep '[%c]%s --interval'", name[0], name + 1);
	return 0;
}

/* The sshd, keys and client home of the test. */
static void
lab_up(void)
{
	char	cfg[8192];
	int	i;

	snprintf(tmp, sizeof(tmp), "/tmp/jobtop-ssh.XXXXXX");
	if (mkdtemp(tmp) == NULL)
		skip("cannot make a temporary directory");
	snprintf(home, sizeof(home), "%s/home", tmp);
	if (run("mkdir -p '%s/.ssh' '%s/cache' && chmod 700 '%s/.ssh' && "
	    "ssh-keygen -q -t ed25519 -N '' -C host -f '%s/hostkey' && "
	    "ssh-keygen -q -t ed25519 -N '' -C other -f '%s/otherkey' && "
	    "ssh-keygen -q -t ed25519 -N '' -C user -f '%s/.ssh/id_ed25519' &&"
	    " ssh-keygen -q -t ed25519 -N '' -C wrong -f '%s/.ssh/wrong' && "
	    "ssh-keygen -q -t ed25519 -N secret -C locked "
	    "-f '%s/.ssh/locked' && "
	    "ssh-keygen -q -t ed25519 -N '' -C agent -f '%s/agentkey' && "
	    "cat '%s/.ssh/id_ed25519.pub' '%s/.ssh/locked.pub' "
	    "'%s/agentkey.pub' > '%s/authorized_keys'",
	    home, tmp, home, tmp, tmp, home, home, home, tmp, home, home,
	    tmp, tmp) != 0)
		skip("ssh-keygen failed");
	if ((port = free_port()) < 0 || (deadport = free_port()) < 0)
		skip("no free port on 127.0.0.1");
	snprintf(cfg, sizeof(cfg),
	    "Port %d\nListenAddress 127.0.0.1\nListenAddress 127.0.0.2\n"
	    "ListenAddress 127.0.0.3\n"
	    "HostKey %s/hostkey\nAuthorizedKeysFile %s/authorized_keys\n"
	    "PidFile %s/sshd.pid\nUsePAM no\nStrictModes no\nUseDNS no\n"
	    "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
	    "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
	    "MaxStartups 100\nMaxSessions 100\nMaxAuthTries 20\n"
	    "Subsystem sftp internal-sftp\nLogLevel VERBOSE\n"
	    "Match LocalAddress 127.0.0.3\n"
	    "\tForceCommand echo 'Welcome to the cluster'; "
	    "eval \"$SSH_ORIGINAL_COMMAND\"\n"
	    "Match LocalAddress 127.0.0.2\n"
	    "\tSetEnv PATH=%s/btbin:/usr/local/bin:/usr/bin:/bin:"
	    "/usr/sbin:/sbin\n",
	    port, tmp, tmp, tmp, tmp);
	{
		char	path[512];

		snprintf(path, sizeof(path), "%s/sshd_config", tmp);
		write_file(path, cfg, 0600);
		snprintf(cfg, sizeof(cfg),
		    "# the test's own client configuration\n"
		    "Host node1\n\tHostName 127.0.0.1\n\tPort %d\n"
		    "Host node2\n\tHostName 127.0.0.2\n\tPort %d\n"
		    "Host badkey\n\tHostName 127.0.0.1\n\tPort %d\n"
		    "\tIdentityFile ~/.ssh/wrong\n"
		    "Host lockedkey\n\tHostName 127.0.0.1\n\tPort %d\n"
		    "\tIdentityFile ~/.ssh/locked\n"
		    "Host deadport\n\tHostName 127.0.0.1\n\tPort %d\n"
		    "Host chatty\n\tHostName 127.0.0.3\n\tPort %d\n"
		    "Host byname\n\tHostName localhost\n\tPort %d\n"
		    "Host ukh\n\tHostName 127.0.0.2\n\tPort %d\n"
		    "\tUserKnownHostsFile ~/.ssh/kh_%%n\n"
		    "Host ukhnone\n\tHostName 127.0.0.2\n\tPort %d\n"
		    "\tUserKnownHostsFile none\n",
		    port, port, port, port, deadport, port, port, port, port);
		snprintf(path, sizeof(path), "%s/.ssh/config", home);
		write_file(path, cfg, 0600);
	}
	if (access("/run/sshd", F_OK) != 0 && geteuid() == 0)
		mkdir("/run/sshd", 0755);
	if ((sshd_pid = fork()) == 0) {
		char	cfgpath[512], logpath[512];
		int	fd;

		snprintf(cfgpath, sizeof(cfgpath), "%s/sshd_config", tmp);
		snprintf(logpath, sizeof(logpath), "%s/sshd.log", tmp);
		fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		dup2(fd, 1);
		/* Even if this test crashes, its sshd goes with it. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f",
		    cfgpath, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100; i++) {
		if (port_open("127.0.0.1", port))
			return;
		if (waitpid(sshd_pid, NULL, WNOHANG) == sshd_pid) {
			sshd_pid = -1;
			run("tail -n 5 '%s/sshd.log'", tmp);
			skip("sshd did not start (see above)");
		}
		usleep(50000);
	}
	skip("sshd did not listen within 5 s");
}

/* A configuration as the monitor would make it, for the test's home. */
static void
conf_make_probe(struct rconf *c, int accept_new, const char *path)
{
	char	err[512];

	rconf_init(c);
	free(c->known_hosts_sys);
	c->known_hosts_sys = NULL;
	free(c->ssh_config_sys);
	c->ssh_config_sys = NULL;
	c->use_agent = 0;
	c->accept_new = accept_new;
	c->probe_path = strdup(path);
	if (conf_nvml != NULL)
		c->nvml_path = strdup(conf_nvml);
	c->interval = 0.5;
	free(c->cache_dir);
	if (asprintf(&c->cache_dir, "%s/cache", tmp) < 0)
		exit(1);
	c->retries = 0;
	c->connect_timeout_ms = 5000 * scale;
	c->log = test_log;
	if (rconf_ready(c, err, sizeof(err)) != 0) {
		fprintf(stderr, "rconf_ready: %s\n", err);
		exit(1);
	}
}

static void
conf_make(struct rconf *c, int accept_new)
{
	conf_make_probe(c, accept_new, probe);
}

struct node {
	struct rsess	*s;
	uint8_t		 head[64];
	size_t		 nhead;
	uint64_t	 bytes;
	int		 ends;		/* rsess_read returned -1 */
};

/* Does the start of a stream look like HELLO: type 1, a varint, "JTOP"? */
static int
is_hello(const struct node *n)
{
	return n->nhead >= 6 && n->head[0] == 1 &&
	    (memcmp(n->head + 2, "JTOP", 4) == 0 ||
	    (n->head[1] >= 0x80 && memcmp(n->head + 3, "JTOP", 4) == 0));
}

/* The monitor's loop in small: step, read, until every node has shown
 * HELLO (or is DEAD), or until done() says so, or the time is up. */
static void
drive(struct node *nodes, int n, unsigned ms,
    int (*done)(struct node *, int))
{
	struct pollfd	pfd[MAXN];
	uint8_t		buf[4096];
	uint64_t	end = now_ms() + (uint64_t)ms * scale, now;
	ssize_t		r;
	int		i, t, tmin, alldone;

	for (;;) {
		now = now_ms();
		alldone = 1;
		for (i = 0; i < n; i++) {
			rsess_step(nodes[i].s, now);
			while ((r = rsess_read(nodes[i].s, buf,
			    sizeof(buf))) != 0) {
				if (r < 0) {
					nodes[i].ends++;
					nodes[i].nhead = 0;
					continue;
				}
				if (nodes[i].nhead < sizeof(nodes[i].head)) {
					size_t k = sizeof(nodes[i].head) -
					    nodes[i].nhead;

					if (k > (size_t)r)
						k = (size_t)r;
					memcpy(nodes[i].head + nodes[i].nhead,
					    buf, k);
					nodes[i].nhead += k;
				}
				nodes[i].bytes += (uint64_t)r;
			}
		}
		for (i = 0; i < n; i++) {
			if (!is_hello(&nodes[i]) &&
			    rsess_phase(nodes[i].s) != RS_DEAD)
				alldone = 0;
		}
		if (done != NULL ? done(nodes, n) : alldone)
			return;
		if (now >= end)
			return;
		tmin = (int)(end - now);
		for (i = 0; i < n; i++) {
			rsess_pollfd(nodes[i].s, &pfd[i]);
			t = rsess_timeout(nodes[i].s, now);
			if (t >= 0 && t < tmin)
				tmin = t;
		}
		poll(pfd, (nfds_t)n, tmin);
	}
}

static void
nodes_close(struct node *nodes, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		rsess_close(nodes[i].s);
}

static int
contains(const char *hay, const char *needle)
{
	return hay != NULL && strstr(hay, needle) != NULL;
}

/* One node alone until HELLO or DEAD; the session stays open. */
static void
one(struct node *nd, const struct rconf *c, const char *host, unsigned ms)
{
	memset(nd, 0, sizeof(*nd));
	nd->s = rsess_new(c, host);
	drive(nd, 1, ms, NULL);
}

static void
test_unknown_refused(void)
{
	struct rconf	c;
	struct node	nd;

	conf_make(&c, 0);
	one(&nd, &c, "node1", 20000);
	CHECK_INT(rsess_phase(nd.s), RS_DEAD);
	CHECK(rsess_refused(nd.s));
	CHECK(contains(rsess_state(nd.s),
	    "refused: host key for node1 is unknown"));
	CHECK(contains(logbuf, "node1: HANDSHAKE -> HOSTKEY"));
	CHECK(contains(logbuf, "node1: HOSTKEY -> DEAD"));
	nodes_close(&nd, 1);
	rconf_free(&c);
}

static void
test_accept_new_two_nodes(void)
{
	struct rconf	 c;
	struct node	 nd[2];
	char		 path[512], name[128], *kh;
	FILE		*f;
	size_t		 n;
	int		 i;

	conf_make(&c, 1);
	c.max_inflight = 1;		/* one connects while one waits */
	snprintf(name, sizeof(name), "%s", rconf_probe_name(&c));
	memset(nd, 0, sizeof(nd));
	nd[0].s = rsess_new(&c, "node1");
	nd[1].s = rsess_new(&c, "node2");
	CHECK_STR(rsess_state(nd[0].s), "connecting");
	rsess_step(nd[0].s, now_ms());
	CHECK_STR(rsess_state(nd[1].s), "waiting");
	CHECK_INT(rsess_timeout(nd[1].s, now_ms()), -1);
	drive(nd, 2, 30000, NULL);
	for (i = 0; i < 2; i++) {
		CHECK_STR(rsess_state(nd[i].s), "live");
		CHECK(is_hello(&nd[i]));
		CHECK_INT(rsess_error(nd[i].s)[0], '\0');
	}
	CHECK(rsess_uploads(nd[0].s) + rsess_uploads(nd[1].s) >= 1);
	CHECK(contains(logbuf, "node1: EXEC -> STREAM"));
	CHECK(contains(logbuf, "node2: EXEC -> STREAM"));
	CHECK(contains(logbuf, "added host key ssh-ed25519 SHA256:"));

	snprintf(path, sizeof(path), "%s/.ssh/known_hosts", home);
	kh = calloc(1, 8192);
	if ((f = fopen(path, "r")) != NULL) {
		n = fread(kh, 1, 8191, f);
		kh[n] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "[127.0.0.1]:%d ssh-ed25519 ", port);
	CHECK(contains(kh, path));
	snprintf(path, sizeof(path), "[127.0.0.2]:%d ssh-ed25519 ", port);
	CHECK(contains(kh, path));
	free(kh);

	/* The cached file: private directory, executable probe. */
	{
		struct stat	st;

		snprintf(path, sizeof(path), "%s/cache", tmp);
		CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0700);
		snprintf(path, sizeof(path), "%s/cache/%s", tmp, name);
		CHECK(stat(path, &st) == 0 && (st.st_mode & 0100) != 0);
	}

	/* Keep streaming: samples follow HELLO. */
	drive(nd, 2, 1500, NULL);
	CHECK(probe_running(name) == 1);
	nodes_close(nd, 2);
	CHECK(probe_gone(name, 2000));
	rconf_free(&c);
}

static void
test_cached_hashed(void)
{
	struct rconf	c;
	struct node	nd;

	/* Hash the names in known_hosts, as HashKnownHosts would. */
	CHECK_INT(run("ssh-keygen -q -H -f '%s/.ssh/known_hosts' "
	    ">/dev/null 2>&1", home), 0);
	CHECK_INT(run("grep -q '^|1|' '%s/.ssh/known_hosts'", home), 0);
	loglen = 0;
	conf_make(&c, 0);
	one(&nd, &c, "node1", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK(is_hello(&nd));
	CHECK_INT(rsess_uploads(nd.s), 0);
	CHECK(contains(logbuf, "is cached"));
	CHECK(!contains(logbuf, "uploading"));
	nodes_close(&nd, 1);
	rconf_free(&c);
}

/* The NVML helper beside the probe: pushed once into the same private
 * directory, named to the probe, then found cached; one built for another
 * machine is left out. */
static void
test_nvml_push(void)
{
	struct rconf	 c;
	struct node	 nd;
	struct stat	 st;
	char		 helper[PATH_MAX], path[PATH_MAX + 128], name[128];
	const char	*slash;
	int		 fd;
	uint8_t		 m[2] = { 183, 0 };	/* EM_AARCH64 */

	slash = strrchr(probe, '/');
	snprintf(helper, sizeof(helper), "%.*sjobtop-nvml",
	    slash != NULL ? (int)(slash - probe + 1) : 0, probe);
	CHECK(access(helper, R_OK) == 0);
	loglen = 0;
	conf_nvml = helper;
	conf_make(&c, 0);
	conf_nvml = NULL;
	snprintf(name, sizeof(name), "%s", rconf_nvml_name(&c));
	CHECK(strncmp(name, "jobtop-nvml-", 12) == 0 && strlen(name) == 28);
	one(&nd, &c, "node1", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK_INT(rsess_uploads(nd.s), 1);	/* the probe is cached */
	CHECK(contains(logbuf, "NVML helper installed as"));
	snprintf(path, sizeof(path), "%s/cache/%s", tmp, name);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 0777) == 0700);
	CHECK_INT(run("cmp -s '%s' '%s'", helper, path), 0);
	/* exec: no shell of ours in the way to match the pattern too. */
	CHECK_INT(run("exec pgrep -f -- '--nvml ./%s' >/dev/null", name), 0);
	nodes_close(&nd, 1);
	rconf_free(&c);

	loglen = 0;
	conf_nvml = helper;
	conf_make(&c, 0);
	conf_nvml = NULL;
	one(&nd, &c, "node1", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK_INT(rsess_uploads(nd.s), 0);
	CHECK(contains(logbuf, "is cached, NVML helper too"));
	CHECK(!contains(logbuf, "uploading"));
	nodes_close(&nd, 1);
	rconf_free(&c);

	snprintf(path, sizeof(path), "%s/nvml-arm", tmp);
	CHECK_INT(run("cp '%s' '%s'", helper, path), 0);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, m, 2, 18) == 2);
	close(fd);
	loglen = 0;
	conf_nvml = path;
	conf_make(&c, 0);
	conf_nvml = NULL;
	CHECK(contains(logbuf, "is for aarch64, the probe for x86_64; NVML "
	    "helper not pushed"));
	one(&nd, &c, "node1", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK_INT(rsess_uploads(nd.s), 0);
	CHECK(!contains(logbuf, "NVML helper too"));
	nodes_close(&nd, 1);
	rconf_free(&c);
}

static void
test_changed_key(void)
{
	struct rconf	c;
	struct node	nd;
	char		save[512];

	snprintf(save, sizeof(save), "%s/known_hosts.good", tmp);
	CHECK_INT(run("cp '%s/.ssh/known_hosts' '%s' && "
	    "printf '[127.0.0.1]:%d ' > '%s/.ssh/known_hosts' && "
	    "cut -d' ' -f1,2 '%s/otherkey.pub' >> '%s/.ssh/known_hosts'",
	    home, save, port, home, tmp, home), 0);
	conf_make(&c, 1);	/* accept-new never overrides a change */
	one(&nd, &c, "node1", 20000);
	CHECK_INT(rsess_phase(nd.s), RS_DEAD);
	CHECK(rsess_refused(nd.s));
	CHECK(contains(rsess_state(nd.s),
	    "refused: host key for node1 changed"));
	nodes_close(&nd, 1);
	rconf_free(&c);
	CHECK_INT(run("cp '%s' '%s/.ssh/known_hosts'", save, home), 0);
}

/* known_hosts covering the node by a pattern with another key, or by a
 * @cert-authority line: refused even with accept-new, the file unchanged
 * (OpenSSH says CHANGED for the first and wants a certificate for the
 * second). */
static void
test_pattern_and_ca(void)
{
	static const char *lines[] = {
	    "*.example,[127.0.0.1]:* ",
	    "@cert-authority *.example,[127.0.0.1]:* ",
	};
	struct rconf	c;
	struct node	nd;
	char		save[512], copy[512];
	size_t		i;

	snprintf(save, sizeof(save), "%s/known_hosts.good", tmp);
	snprintf(copy, sizeof(copy), "%s/known_hosts.before", tmp);
	CHECK_INT(run("cp '%s/.ssh/known_hosts' '%s'", home, save), 0);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		CHECK_INT(run("printf '%%s' '%s' > '%s/.ssh/known_hosts' && "
		    "cut -d' ' -f1,2 '%s/otherkey.pub' >> "
		    "'%s/.ssh/known_hosts' && cp '%s/.ssh/known_hosts' '%s'",
		    lines[i], home, tmp, home, home, copy), 0);
		loglen = 0;
		conf_make(&c, 1);
		one(&nd, &c, "node1", 20000);
		CHECK_INT(rsess_phase(nd.s), RS_DEAD);
		CHECK(rsess_refused(nd.s));
		if (i == 0)
			CHECK(contains(rsess_state(nd.s),
			    "refused: host key for node1 changed"));
		else
			CHECK(contains(rsess_state(nd.s),
			    "refused: host key for node1 can only be trusted "
			    "through a @cert-authority line of known_hosts, "
			    "and libssh2 cannot check host certificates"));
		CHECK(!contains(logbuf, "added host key"));
		CHECK_INT(run("cmp -s '%s/.ssh/known_hosts' '%s'", home, copy),
		    0);
		nodes_close(&nd, 1);
		rconf_free(&c);
	}
	CHECK_INT(run("cp '%s' '%s/.ssh/known_hosts'", save, home), 0);
}

/* UserKnownHostsFile from ssh_config: accept-new records the key there
 * (and nowhere else), the next session finds it there; with "none" there
 * is nowhere to record it, and an unknown key stays refused. */
static void
test_user_known_file(void)
{
	struct rconf	c;
	struct node	nd;
	char		copy[512];

	snprintf(copy, sizeof(copy), "%s/known_hosts.before", tmp);
	CHECK_INT(run("cp '%s/.ssh/known_hosts' '%s'", home, copy), 0);
	loglen = 0;
	conf_make(&c, 1);
	one(&nd, &c, "ukh", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK(contains(logbuf, "added host key ssh-ed25519 SHA256:"));
	CHECK(contains(logbuf, "to ~/.ssh/kh_ukh"));
	CHECK_INT(run("grep -q '^\\[127.0.0.2\\]:%d ssh-ed25519 ' "
	    "'%s/.ssh/kh_ukh'", port, home), 0);
	CHECK_INT(run("cmp -s '%s/.ssh/known_hosts' '%s'", home, copy), 0);
	nodes_close(&nd, 1);
	rconf_free(&c);

	loglen = 0;
	conf_make(&c, 0);
	one(&nd, &c, "ukh", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK(contains(logbuf, "host key ssh-ed25519 SHA256:"));
	nodes_close(&nd, 1);
	rconf_free(&c);

	conf_make(&c, 1);
	one(&nd, &c, "ukhnone", 20000);
	CHECK(rsess_refused(nd.s));
	CHECK(contains(rsess_state(nd.s),
	    "refused: host key for ukhnone is unknown"));
	nodes_close(&nd, 1);
	rconf_free(&c);
	CHECK_INT(run("cmp -s '%s/.ssh/known_hosts' '%s'", home, copy), 0);
}

/* A process of user nobody that sleeps; its pid. */
static pid_t
nobody_sleeper(void)
{
	pid_t	pid;

	if ((pid = fork()) == 0) {
		execlp("setpriv", "setpriv", "--reuid=65534", "--regid=65534",
		    "--clear-groups", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	usleep(200000);
	return pid;
}

/* Drive a backtrace (and, for a remote one, its session) to its end. */
static void
bt_finish(struct backtrace *bt, struct rsess *s)
{
	struct pollfd	pfd[2];
	uint8_t		buf[4096];
	uint64_t	end = now_ms() + 30000 * scale;

	while (!backtrace_check(bt, now_ms()) && now_ms() < end) {
		if (s != NULL) {
			rsess_step(s, now_ms());
			while (rsess_read(s, buf, sizeof(buf)) > 0)
				;
			rsess_pollfd(s, &pfd[0]);
		} else {
			pfd[0].fd = -1;
			pfd[0].events = 0;
		}
		pfd[0].events |= POLLIN;
		pfd[1].fd = backtrace_fd(bt);
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, 50) > 0 && pfd[1].revents != 0)
			backtrace_read(bt);
	}
}

/*
 * As root, the debugger runs as the owner of the process it reads, here
 * and on a node: an eu-stack stand-in (first in PATH, and in node2's PATH
 * through sshd's SetEnv) reports the uid, gid and groups it got; the real
 * gdb then takes a backtrace as that user.  A root process still gets a
 * root debugger.
 */
static void
test_backtrace_owner(void)
{
	struct backtrace	*bt;
	struct rconf		 c;
	struct node		 nd;
	struct feed		*nf;
	char			 err[256], path[512], *oldpath;
	pid_t			 pid, rootpid;
	int			 st;

	if (geteuid() != 0) {
		printf("  (not root: the debugger keeps the monitor's rights)\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/btbin", tmp);
	CHECK(mkdir(path, 0755) == 0 && chmod(tmp, 0711) == 0);
	snprintf(path, sizeof(path), "%s/btbin/eu-stack", tmp);
	write_file(path, "#!/bin/sh\necho \"stand-in ran as $(id -u):$(id -g) "
	    "groups $(id -G) for $2\"\n", 0755);
	pid = nobody_sleeper();
	if ((rootpid = fork()) == 0) {
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	oldpath = strdup(getenv("PATH") != NULL ? getenv("PATH") :
	    "/usr/bin:/bin");
	snprintf(path, sizeof(path), "%s/btbin:%s", tmp, oldpath);
	setenv("PATH", path, 1);

	/* Here. */
	bt = backtrace_start(pid, now_ms(), err, sizeof(err));
	CHECK(bt != NULL);
	if (bt != NULL) {
		bt_finish(bt, NULL);
		snprintf(path, sizeof(path), "stand-in ran as 65534:65534 "
		    "groups 65534 for %ld\n", (long)pid);
		CHECK(contains(backtrace_text(bt), path));
		CHECK_STR(backtrace_status(bt), "eu-stack exited with status "
		    "0, as uid 65534 (the process's owner)");
		backtrace_free(bt);
	}
	bt = backtrace_start(rootpid, now_ms(), err, sizeof(err));
	CHECK(bt != NULL);
	if (bt != NULL) {
		bt_finish(bt, NULL);
		CHECK(contains(backtrace_text(bt), "stand-in ran as 0:0 "));
		CHECK_STR(backtrace_status(bt), "eu-stack exited with status "
		    "0");
		backtrace_free(bt);
	}
	setenv("PATH", oldpath, 1);
	if (run("command -v gdb >/dev/null && ! command -v eu-stack "
	    ">/dev/null") == 0) {
		bt = backtrace_start(pid, now_ms(), err, sizeof(err));
		CHECK(bt != NULL);
		if (bt != NULL) {
			bt_finish(bt, NULL);
			CHECK_STR(backtrace_status(bt), "gdb exited with "
			    "status 0, as uid 65534 (the process's owner)");
			CHECK(contains(backtrace_text(bt), "#0 "));
			backtrace_free(bt);
		}
	}

	/* On node2, through the node's session. */
	conf_make(&c, 0);
	one(&nd, &c, "node2", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	nf = feed_libssh2_of(nd.s);
	bt = backtrace_start_remote(nf, "node2", pid, now_ms(), err,
	    sizeof(err));
	CHECK(bt != NULL);
	if (bt != NULL) {
		bt_finish(bt, nd.s);
		snprintf(path, sizeof(path), "stand-in ran as 65534:65534 "
		    "groups 65534 for %ld\n", (long)pid);
		CHECK(contains(backtrace_text(bt), path));
		CHECK_STR(backtrace_status(bt), "eu-stack on node2 exited with "
		    "status 0, as uid 65534 (the process's owner)");
		backtrace_free(bt);
	}
	bt = backtrace_start_remote(nf, "node2", rootpid, now_ms(), err,
	    sizeof(err));
	CHECK(bt != NULL);
	if (bt != NULL) {
		bt_finish(bt, nd.s);
		CHECK(contains(backtrace_text(bt), "stand-in ran as 0:0 "));
		CHECK_STR(backtrace_status(bt), "eu-stack on node2 exited with "
		    "status 0");
		backtrace_free(bt);
	}
	feed_free(nf);
	nodes_close(&nd, 1);
	rconf_free(&c);
	free(oldpath);
	kill(pid, SIGKILL);
	kill(rootpid, SIGKILL);
	waitpid(pid, &st, 0);
	waitpid(rootpid, &st, 0);
	chmod(tmp, 0700);
}

static void
test_wrong_key(void)
{
	struct rconf	c;
	struct node	nd;

	conf_make(&c, 0);
	one(&nd, &c, "badkey", 20000);
	CHECK_INT(rsess_phase(nd.s), RS_DEAD);
	CHECK(rsess_refused(nd.s));
	CHECK(contains(rsess_error(nd.s), "authentication refused for "));
	CHECK(contains(rsess_error(nd.s), "~/.ssh/wrong"));
	nodes_close(&nd, 1);

	one(&nd, &c, "lockedkey", 20000);
	CHECK_INT(rsess_phase(nd.s), RS_DEAD);
	CHECK(contains(rsess_error(nd.s), "~/.ssh/locked skipped: "
	    "passphrase-protected"));
	nodes_close(&nd, 1);
	rconf_free(&c);
}

static int
done_backoff(struct node *nd, int n)
{
	return rsess_phase(nd->s) == RS_BACKOFF ||
	    rsess_phase(nd->s) == RS_DEAD || is_hello(nd);
}

/* No descriptor left when the key file is read: this machine's shortage,
 * not a refusal; the session backs off and logs in once there are.  The
 * descriptors are taken the moment the session logs its way into AUTH
 * (test_log, inside the step): the same step may go on to read the key
 * when the server answers at once, so no check between steps would be in
 * time on a fast machine. */
static void
test_key_emfile(void)
{
	struct rconf	c;
	struct node	nd;
	struct rlimit	rl, low;

	conf_make(&c, 0);
	c.retries = 2;			/* jobtop's own: a first login retries */
	memset(&nd, 0, sizeof(nd));
	/* Every descriptor the (lowered) limit allows, from AUTH on. */
	getrlimit(RLIMIT_NOFILE, &rl);
	low = rl;
	low.rlim_cur = 512;
	CHECK_INT(setrlimit(RLIMIT_NOFILE, &low), 0);
	fill_at = "HOSTKEY -> AUTH";
	nd.s = rsess_new(&c, "node1");
	drive(&nd, 1, 20000, done_backoff);
	CHECK(fill_at == NULL);
	CHECK(fill_n > 0 && fill_n < 1024);
	fill_at = NULL;
	fill_release();
	setrlimit(RLIMIT_NOFILE, &rl);
	CHECK_INT(rsess_phase(nd.s), RS_BACKOFF);
	CHECK(!rsess_refused(nd.s));
	CHECK(contains(rsess_error(nd.s), "Too many open files"));
	drive(&nd, 1, 20000, NULL);
	CHECK(is_hello(&nd));
	CHECK_STR(rsess_state(nd.s), "live");
	nodes_close(&nd, 1);
	rconf_free(&c);
}

/* A name (not an address) resolves on the resolver's thread: no step waits
 * for it, and the node comes up as any other. */
static void
test_resolve_by_name(void)
{
	struct rconf	c;
	struct node	nd;
	uint64_t	t0, t1, worst = 0;
	int		i;

	conf_make(&c, 1);
	memset(&nd, 0, sizeof(nd));
	nd.s = rsess_new(&c, "byname");
	for (i = 0; i < 20 && rsess_phase(nd.s) == RS_RESOLVE; i++) {
		t0 = now_ms();
		rsess_step(nd.s, t0);
		t1 = now_ms();
		if (t1 - t0 > worst)
			worst = t1 - t0;
		if (rsess_phase(nd.s) == RS_RESOLVE)
			CHECK(rsess_timeout(nd.s, t1) <= 10);
		usleep(5000);
	}
	/* A step that waited for the resolver would take as long as the
	 * lookup; on this loaded 2-core machine a step that does not wait can
	 * still be kept off the CPU for a while (over 100 ms once, in a full
	 * run beside the lab's CPU tests): a second is no step's own work. */
	CHECK(worst < 1000);
	drive(&nd, 1, 20000, NULL);
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK(is_hello(&nd));
	nodes_close(&nd, 1);
	rconf_free(&c);
}

static void
test_dead_port(void)
{
	struct rconf	c;
	struct node	nd;

	conf_make(&c, 0);
	one(&nd, &c, "deadport", 5000);
	CHECK_INT(rsess_phase(nd.s), RS_DEAD);
	CHECK(!rsess_refused(nd.s));
	CHECK_STR(rsess_error(nd.s), "Connection refused");
	CHECK_STR(rsess_state(nd.s), "failed: Connection refused");
	nodes_close(&nd, 1);
	rconf_free(&c);

	/* With retries left it backs off first. */
	conf_make(&c, 0);
	c.retries = 3;
	memset(&nd, 0, sizeof(nd));
	nd.s = rsess_new(&c, "deadport");
	rsess_step(nd.s, now_ms());
	rsess_step(nd.s, now_ms());
	CHECK_INT(rsess_phase(nd.s), RS_BACKOFF);
	CHECK_STR(rsess_state(nd.s), "lost: Connection refused");
	CHECK(rsess_timeout(nd.s, now_ms()) > 500);
	{
		struct pollfd	pfd;

		rsess_pollfd(nd.s, &pfd);
		CHECK_INT(pfd.fd, -1);
	}
	nodes_close(&nd, 1);
	rconf_free(&c);
}

static void
test_arch(void)
{
	struct rconf	c;
	struct node	nd;
	char		path[512];
	int		fd;
	uint8_t		m[2] = { 183, 0 };	/* EM_AARCH64 */

	snprintf(path, sizeof(path), "%s/probe-arm", tmp);
	CHECK_INT(run("cp '%s' '%s'", probe, path), 0);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, m, 2, 18) == 2);
	close(fd);
	conf_make_probe(&c, 0, path);
	CHECK_STR(rconf_probe_arch(&c), "aarch64");
	one(&nd, &c, "node1", 20000);
	CHECK_INT(rsess_phase(nd.s), RS_DEAD);
	CHECK(rsess_refused(nd.s));
	CHECK_STR(rsess_state(nd.s),
	    "refused: node is x86_64, probe is aarch64");
	nodes_close(&nd, 1);
	rconf_free(&c);
}

static void
test_agent(void)
{
	struct rconf	c;
	struct node	nd;
	char		sock[512];
	int		i;

	if (access("/usr/bin/ssh-agent", X_OK) != 0) {
		printf("no ssh-agent: agent login not tested\n");
		return;
	}
	snprintf(sock, sizeof(sock), "%s/agent.sock", tmp);
	if ((agent_pid = fork()) == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl("/usr/bin/ssh-agent", "ssh-agent", "-D", "-a", sock,
		    (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100 && access(sock, F_OK) != 0; i++)
		usleep(20000);
	setenv("SSH_AUTH_SOCK", sock, 1);
	CHECK_INT(run("ssh-add -q '%s/agentkey' 2>/dev/null", tmp), 0);
	conf_make(&c, 0);
	c.use_agent = 1;
	for (i = 0; i < c.nidentity; i++)
		free(c.identity[i]);
	c.nidentity = 0;
	loglen = 0;
	one(&nd, &c, "node1", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK(contains(logbuf, "with an ssh-agent key"));
	nodes_close(&nd, 1);
	rconf_free(&c);
	unsetenv("SSH_AUTH_SOCK");
	kill(agent_pid, SIGTERM);
	waitpid(agent_pid, NULL, 0);
	agent_pid = -1;
}

/* Until the node has ended one stream and shows HELLO again. */
static int
done_reconnected(struct node *nd, int n)
{
	(void)n;
	return rsess_phase(nd->s) == RS_DEAD ||
	    (nd->ends >= 1 && is_hello(nd));
}

static void
test_lost_and_back(void)
{
	struct rconf	c;
	struct node	nd;
	char		name[128];

	conf_make(&c, 0);
	snprintf(name, sizeof(name), "%s", rconf_probe_name(&c));
	loglen = 0;
	one(&nd, &c, "node1", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	/* The node loses its probe: the stream ends, backoff, reconnect. */
	CHECK_INT(kill_probe(name), 0);
	drive(&nd, 1, 25000, done_reconnected);
	CHECK_INT(nd.ends, 1);
	CHECK(is_hello(&nd));
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK(contains(logbuf, "node1: STREAM -> BACKOFF"));
	CHECK(contains(logbuf, "node1: BACKOFF -> RESOLVE"));
	CHECK(contains(logbuf, "probe killed by SIGKILL"));
	nodes_close(&nd, 1);
	CHECK(probe_gone(name, 2000));
	rconf_free(&c);
}

/* The state letter of a process ('Z' zombie), or 0 when it is gone. */
static char
proc_state(long pid, long *ppid)
{
	char	 path[64], buf[512], *p;
	FILE	*f;
	size_t	 n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] == '\0')
		return 0;
	if (ppid != NULL)
		*ppid = strtol(p + 3, NULL, 10);
	return p[2];
}

/* A connection lost while its sshd still holds the probe (the sshd is
 * stopped, as if it had not noticed a dead link): the reconnect kills the
 * old probe, so a node never runs two. */
static void
test_stale_probe(void)
{
	struct rconf	 c;
	struct node	 nd;
	const char	*p;
	long		 pid = 0, ppid = 0;
	char		 want[96];

	conf_make(&c, 0);
	c.data_timeout_ms = 3000 * scale;
	loglen = 0;
	one(&nd, &c, "node1", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	if ((p = strstr(logbuf, "probe runs as pid ")) != NULL)
		pid = strtol(p + 18, NULL, 10);
	CHECK(pid > 0 && proc_state(pid, &ppid) != 0 && ppid > 1);
	if (pid <= 0 || ppid <= 1) {
		nodes_close(&nd, 1);
		rconf_free(&c);
		return;
	}
	kill((pid_t)ppid, SIGSTOP);
	drive(&nd, 1, 30000, done_reconnected);
	CHECK_INT(nd.ends, 1);
	CHECK(is_hello(&nd));
	CHECK(contains(logbuf, "node1: no data for "));
	snprintf(want, sizeof(want), "stopped the probe of the lost "
	    "connection (pid %ld)", pid);
	CHECK(contains(logbuf, want));
	CHECK(proc_state(pid, NULL) == 0 || proc_state(pid, NULL) == 'Z');
	kill((pid_t)ppid, SIGCONT);
	nodes_close(&nd, 1);
	CHECK(probe_gone(rconf_probe_name(&c), 2000));
	rconf_free(&c);
}

/* A login that prints a banner before every command: it breaks scp,
 * so the upload goes through cat on the retry, and the probe's stream is
 * found after the banner. */
static void
test_chatty_login(void)
{
	struct rconf	c;
	struct node	nd;

	CHECK_INT(run("rm -f '%s'/cache/jobtop-probe-*", tmp), 0);
	conf_make(&c, 1);
	c.retries = 2;
	loglen = 0;
	one(&nd, &c, "chatty", 40000);
	CHECK_STR(rsess_state(nd.s), "live");
	CHECK(is_hello(&nd));
	CHECK_INT(rsess_uploads(nd.s), 1);
	CHECK(contains(logbuf, "chatty: PUSH -> BACKOFF"));
	CHECK(contains(logbuf, "through cat"));
	CHECK(contains(logbuf, "dropped output before the probe's HELLO: "
	    "\"Welcome to the cluster.\""));
	nodes_close(&nd, 1);
	rconf_free(&c);
}

static int
done_closed(struct node *nd, int n)
{
	(void)n;
	return rsess_phase(nd->s) == RS_DEAD && nd->ends > 0;
}

static void
test_stop(void)
{
	struct rconf	c;
	struct node	nd;

	conf_make(&c, 0);
	one(&nd, &c, "node1", 20000);
	CHECK_STR(rsess_state(nd.s), "live");
	rsess_stop(nd.s);
	CHECK_STR(rsess_state(nd.s), "stopping");
	drive(&nd, 1, 5000, done_closed);
	CHECK_INT(nd.ends, 1);
	CHECK_STR(rsess_state(nd.s), "closed");
	CHECK_INT(rsess_error(nd.s)[0], '\0');
	CHECK(probe_gone(rconf_probe_name(&c), 2000));
	nodes_close(&nd, 1);
	rconf_free(&c);
}

static volatile sig_atomic_t drive_quit;

static void
drive_on_signal(int sig)
{
	drive_quit = sig;
}

/* --drive: stream from the named nodes until killed. */
static int
drive_main(int argc, char **argv)
{
	struct rconf	 c;
	struct node	 nd[MAXN];
	struct pollfd	 pfd[MAXN];
	uint8_t		 buf[4096];
	char		 err[512];
	ssize_t		 r;
	int		 i, n = 0, t, tmin, said[MAXN];

	rconf_init(&c);
	c.use_agent = 0;
	c.log = test_log;
	verbose = 1;
	if (getenv("PROBE") != NULL)
		c.probe_path = strdup(getenv("PROBE"));
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--accept-new") == 0)
			c.accept_new = 1;
		else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc) {
			free(c.cache_dir);
			c.cache_dir = strdup(argv[++i]);
		} else if (strcmp(argv[i], "--interval") == 0 && i + 1 < argc)
			c.interval = atof(argv[++i]);
		else if (n < MAXN)
			n++;
	}
	if (rconf_ready(&c, err, sizeof(err)) != 0) {
		fprintf(stderr, "rsess-drive: %s\n", err);
		return 1;
	}
	signal(SIGTERM, drive_on_signal);
	signal(SIGINT, drive_on_signal);
	memset(nd, 0, sizeof(nd));
	memset(said, 0, sizeof(said));
	n = 0;
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--cache") == 0 ||
		    strcmp(argv[i], "--interval") == 0)
			i++;
		else if (strcmp(argv[i], "--accept-new") != 0 && n < MAXN)
			nd[n++].s = rsess_new(&c, argv[i]);
	}
	printf("probe %s\n", rconf_probe_name(&c));
	fflush(stdout);
	while (!drive_quit) {
		tmin = 1000;
		for (i = 0; i < n; i++) {
			rsess_step(nd[i].s, now_ms());
			while ((r = rsess_read(nd[i].s, buf,
			    sizeof(buf))) > 0) {
				if (!said[i]) {
					printf("%s live\n",
					    rsess_host(nd[i].s));
					fflush(stdout);
					said[i] = 1;
				}
			}
			if (rsess_phase(nd[i].s) == RS_DEAD && said[i] != 2) {
				printf("%s %s\n", rsess_host(nd[i].s),
				    rsess_state(nd[i].s));
				fflush(stdout);
				said[i] = 2;
			}
		}
		for (i = 0; i < n; i++) {
			rsess_pollfd(nd[i].s, &pfd[i]);
			t = rsess_timeout(nd[i].s, now_ms());
			if (t >= 0 && t < tmin)
				tmin = t;
		}
		poll(pfd, (nfds_t)n, tmin);
	}
	nodes_close(nd, n);
	rconf_free(&c);
	return 0;
}

/* The probe: $PROBE, else ../../jobtop-probe beside this binary. */
static int
find_probe(const char *argv0)
{
	const char	*env = getenv("PROBE");
	char		 self[PATH_MAX], *slash;
	ssize_t		 n;

	if (env != NULL && access(env, R_OK) == 0) {
		snprintf(probe, sizeof(probe), "%s", env);
		return 0;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL)
			*slash = '\0';
		snprintf(probe, sizeof(probe), "%.*s/../../jobtop-probe",
		    (int)(sizeof(probe) - 32), self);
		if (access(probe, R_OK) == 0)
			return 0;
	}
	(void)argv0;
	snprintf(probe, sizeof(probe), "jobtop-probe");
	return access(probe, R_OK) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--drive") == 0)
		return drive_main(argc, argv);
	verbose = getenv("VERBOSE") != NULL;
	if (getenv("TIMEOUT_SCALE") != NULL &&
	    atoi(getenv("TIMEOUT_SCALE")) > 0)
		scale = (unsigned)atoi(getenv("TIMEOUT_SCALE"));
	signal(SIGPIPE, SIG_IGN);
	if (access("/usr/sbin/sshd", X_OK) != 0)
		skip("no /usr/sbin/sshd (install openssh-server)");
	if (system("command -v ssh-keygen >/dev/null 2>&1") != 0)
		skip("no ssh-keygen (install openssh-client)");
	if (system("command -v pgrep >/dev/null 2>&1") != 0)
		skip("no pgrep (install procps)");
	if (find_probe(argv[0]) != 0)
		skip("no jobtop-probe: run make first, or set PROBE");
	lab_up();
	/*
	 * A probe of our own content (the same binary with this run's
	 * directory name appended, which an ELF file ignores), so that its
	 * cache name is ours alone and killing "our" probes by name never
	 * touches another test's (a lab running beside us).
	 */
	{
		char	own[PATH_MAX];

		const char	*slash = strrchr(probe, '/');

		/* The NVML helper that lies beside the probe comes along. */
		snprintf(own, sizeof(own), "%.*sjobtop-nvml",
		    slash != NULL ? (int)(slash - probe + 1) : 0, probe);
		if (access(own, R_OK) == 0 &&
		    run("cp '%s' '%s/'", own, tmp) != 0)
			skip("cannot copy the NVML helper");
		snprintf(own, sizeof(own), "%s/jobtop-probe", tmp);
		if (run("cp '%s' '%s' && printf '%%s' '%s' >>'%s'", probe,
		    own, tmp, own) != 0)
			skip("cannot copy the probe");
		snprintf(probe, sizeof(probe), "%s", own);
	}
	setenv("HOME", home, 1);
	unsetenv("SSH_AUTH_SOCK");

	RUN(test_unknown_refused);
	RUN(test_accept_new_two_nodes);
	RUN(test_cached_hashed);
	RUN(test_nvml_push);
	RUN(test_changed_key);
	RUN(test_pattern_and_ca);
	RUN(test_user_known_file);
	RUN(test_backtrace_owner);
	RUN(test_wrong_key);
	RUN(test_key_emfile);
	RUN(test_dead_port);
	RUN(test_resolve_by_name);
	RUN(test_arch);
	RUN(test_agent);
	RUN(test_lost_and_back);
	RUN(test_stale_probe);
	RUN(test_chatty_login);
	RUN(test_stop);

	if (harness_failures > 0)
		run("tail -n 20 '%s/sshd.log' >&2", tmp);
	cleanup();
	return harness_done();
}
