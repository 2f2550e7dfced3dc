/* SPDX-License-Identifier: ISC */
/*
 * backtrace: run a debugger (spawn.c) with its output on a non-blocking
 * pipe.  The child runs in its own session with /dev/null as input, so it
 * can neither read the terminal curses owns nor write to it; the monitor's
 * SIGCHLD (the session's self-pipe) wakes the loop when it exits.
 *
 * On a remote node a small sh script runs as the node's feed's side
 * command (feed_exec_start: an exec channel of its libssh2 session, or a
 * second ssh): it picks gdb or eu-stack with `command -v`, runs it
 * under timeout(1) when there is one, and brackets the output with
 * "jobtop-bt" lines (the tool, yama's ptrace_scope) that are read here
 * and not shown.
 *
 * A debugger parses the target's ELF and DWARF, which the process's owner
 * controls, so it never runs as root against another user's process: as
 * root, the child drops to the target's uid and gid (no supplementary
 * groups) before exec, and the remote script does the same with setpriv
 * or runuser (or refuses).  ptrace by the same uid still works where yama
 * allows it.  eu-stack, the smaller parser, is preferred to gdb.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backtrace.h"
#include "feed.h"
#include "fsutil.h"
#include "spawn.h"
#include "xmalloc.h"

#define BT_MARK		"jobtop-bt "

struct backtrace {
	struct feed_exec *rx;		/* remote; NULL for a local child */
	char		 node[64];
	char		 toolname[16];
	pid_t		 target;
	pid_t		 child;		/* -1 once reaped */
	int		 fd;
	const char	*tool;
	uint64_t	 deadline;
	int		 done;
	int		 killed;
	long		 as_uid;	/* dropped to this uid, -1 not */
	char		*buf;
	size_t		 len;
	char		 status[400];
};

/* The first executable name found in PATH, allocated, or NULL. */
static char *
backtrace_which(const char *name)
{
	char	path[4096];

	return fs_which(name, path, sizeof(path)) == 0 ? xstrdup(path) : NULL;
}

/* The real uid and gid of a process: 0, or -1 when it is gone. */
static int
backtrace_owner(pid_t pid, uid_t *uid, gid_t *gid)
{
	char		 path[64], line[256];
	FILE		*f;
	unsigned long	 v;
	int		 got = 0;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (got != 3 && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "Uid: %lu", &v) == 1) {
			*uid = (uid_t)v;
			got |= 1;
		} else if (sscanf(line, "Gid: %lu", &v) == 1) {
			*gid = (gid_t)v;
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

struct backtrace *
backtrace_start(pid_t pid, uint64_t now, char *err, size_t errsz)
{
	struct backtrace	*bt;
	char			*tool, pidbuf[32], *argv[12], why[256];
	int			 k = 0, drop = 0;
	struct spawn		 sp;
	struct spawn_req	 rq;
	pid_t			 child;
	uid_t			 uid = 0;
	gid_t			 gid = 0;
	static char		 a_batch[] = "-batch", a_nx[] = "-nx",
				 a_p[] = "-p", a_ex[] = "-ex",
				 a_bt[] = "thread apply all bt",
				 a_q[] = "-q";
	const char		*name = "eu-stack";

	if ((tool = backtrace_which("eu-stack")) == NULL) {
		name = "gdb";
		if ((tool = backtrace_which("gdb")) == NULL) {
			snprintf(err, errsz, "no gdb or eu-stack in PATH: "
			    "install one for user-space backtraces");
			return NULL;
		}
	}
	if (geteuid() == 0) {
		if (backtrace_owner(pid, &uid, &gid) != 0) {
			snprintf(err, errsz, "pid %ld is gone", (long)pid);
			free(tool);
			return NULL;
		}
		drop = uid != 0;
	}
	snprintf(pidbuf, sizeof(pidbuf), "%ld", (long)pid);
	argv[k++] = tool;
	if (strcmp(name, "gdb") == 0) {
		argv[k++] = a_batch;
		argv[k++] = a_nx;
		argv[k++] = a_q;
		argv[k++] = a_p;
		argv[k++] = pidbuf;
		argv[k++] = a_ex;
		argv[k++] = a_bt;
	} else {
		argv[k++] = a_p;
		argv[k++] = pidbuf;
	}
	argv[k] = NULL;
	/* Its own session with /dev/null as input: it can neither read
	 * the terminal curses owns nor write to it. */
	memset(&rq, 0, sizeof(rq));
	rq.path = tool;
	rq.argv = argv;
	rq.flags = SPAWN_OUT | SPAWN_ERR2OUT | SPAWN_SETSID |
	    (drop ? SPAWN_DROP : 0);
	rq.uid = uid;
	rq.gid = gid;
	if (spawn_start(&sp, &rq, why, sizeof(why)) != 0) {
		if (drop)
			snprintf(err, errsz, "%s not run: it cannot run as uid "
			    "%ld, the process's owner (%s)", name, (long)uid,
			    why);
		else
			snprintf(err, errsz, "%s", why);
		free(tool);
		return NULL;
	}
	child = sp.pid;
	free(tool);
	bt = xcalloc(1, sizeof(*bt));
	bt->target = pid;
	bt->child = child;
	bt->fd = sp.out;
	bt->tool = name;
	bt->as_uid = drop ? (long)uid : -1;
	bt->deadline = now + BACKTRACE_TIMEOUT_MS;
	bt->buf = xmalloc(BACKTRACE_OUTPUT_MAX + 1);
	bt->buf[0] = '\0';
	return bt;
}

struct backtrace *
backtrace_start_remote(struct feed *f, const char *node, pid_t pid,
    uint64_t now, char *err, size_t errsz)
{
	struct backtrace	*bt;
	struct feed_exec	*rx;
	char			*cmd;

	/* The pid is the node's (its probe read it there).  As root, the
	 * debugger runs as the process's owner (setpriv, else runuser), or
	 * not at all. */
	cmd = xasprintf("exec /bin/sh -c '"
	    "p=%ld; "
	    "if command -v eu-stack >/dev/null 2>&1; then "
	    "echo \"" BT_MARK "eu-stack\"; set -- eu-stack -p $p; "
	    "elif command -v gdb >/dev/null 2>&1; then echo \"" BT_MARK "gdb\"; "
	    "set -- gdb -q -batch -nx -p $p -ex \"thread apply all bt\"; "
	    "else echo \"" BT_MARK "none\"; exit 127; fi; "
	    "if [ \"$(id -u)\" = 0 ]; then u=; g=; "
	    "[ -r /proc/$p/status ] && while read -r k a b; do "
	    "case $k in Uid:) u=$a;; Gid:) g=$a;; esac; "
	    "done </proc/$p/status; "
	    "if [ -z \"$u\" ] || [ -z \"$g\" ]; then "
	    "echo \"" BT_MARK "gone\"; exit 3; fi; "
	    "if [ \"$u\" != 0 ]; then "
	    "if command -v setpriv >/dev/null 2>&1; then "
	    "set -- setpriv --reuid=$u --regid=$g --clear-groups \"$@\"; "
	    "elif command -v runuser >/dev/null 2>&1 && "
	    "n=$(id -nu $u 2>/dev/null); then "
	    "set -- runuser -u \"$n\" -- \"$@\"; "
	    "else echo \"" BT_MARK "nodrop $u\"; exit 126; fi; "
	    "echo \"" BT_MARK "as $u\"; fi; fi; "
	    "if command -v timeout >/dev/null 2>&1; then "
	    "set -- timeout -k 2 %d \"$@\"; fi; "
	    "\"$@\" </dev/null 2>&1; s=$?; "
	    "if [ -r /proc/sys/kernel/yama/ptrace_scope ]; then "
	    "echo \"" BT_MARK "ptrace_scope $(cat "
	    "/proc/sys/kernel/yama/ptrace_scope)\"; fi; exit $s'",
	    (long)pid, BACKTRACE_REMOTE_LIMIT);
	rx = feed_exec_start(f, cmd, BACKTRACE_OUTPUT_MAX,
	    BACKTRACE_TIMEOUT_MS, err, errsz);
	free(cmd);
	if (rx == NULL)
		return NULL;
	bt = xcalloc(1, sizeof(*bt));
	bt->rx = rx;
	snprintf(bt->node, sizeof(bt->node), "%s", node);
	snprintf(bt->toolname, sizeof(bt->toolname), "debugger");
	bt->tool = bt->toolname;
	bt->target = pid;
	bt->as_uid = -1;
	bt->child = -1;
	bt->fd = -1;
	bt->deadline = now + BACKTRACE_TIMEOUT_MS;
	bt->buf = xmalloc(BACKTRACE_OUTPUT_MAX + 1);
	bt->buf[0] = '\0';
	return bt;
}

/* Did the debugger say the kernel refused to let it attach? */
static int
backtrace_refused(const char *text)
{
	/* gdb: "ptrace: Operation not permitted."; eu-stack:
	 * "dwfl_linux_proc_attach pid N: Operation not permitted" or, on a
	 * process traced already, "dwfl_thread_getframes tid N: Operation
	 * not permitted". */
	return strstr(text, "ptrace: Operation not permitted") != NULL ||
	    (strstr(text, "Operation not permitted") != NULL &&
	    (strstr(text, "attach") != NULL ||
	    strstr(text, "dwfl_thread_getframes") != NULL));
}

/* The status of a refused attach: why, as far as the machine says. */
static void
backtrace_why_refused(struct backtrace *bt, const char *where, int scope)
{
	char	tail[200];

	if (scope > 0 && bt->as_uid >= 0)
		snprintf(tail, sizeof(tail), "kernel.yama.ptrace_scope is %d "
		    "%s, and the debugger runs as the process's owner, uid "
		    "%ld; 0 lets it trace", scope, bt->rx != NULL ? "there" :
		    "here", bt->as_uid);
	else if (scope > 0)
		snprintf(tail, sizeof(tail), "kernel.yama.ptrace_scope is %d "
		    "%s; 0 lets a user trace their own processes, or run "
		    "jobtop as root", scope, bt->rx != NULL ? "there" : "here");
	else
		snprintf(tail, sizeof(tail), "it is traced already, by a "
		    "debugger or strace, or it is another user's");
	snprintf(bt->status, sizeof(bt->status), "%s%s could not attach to "
	    "pid %ld: ptrace refused (%s)", bt->tool, where, (long)bt->target,
	    tail);
}

/* Say whose rights the debugger had, when not the monitor's. */
static void
backtrace_as(struct backtrace *bt)
{
	size_t	n = strlen(bt->status);

	if (bt->as_uid >= 0 && n + 1 < sizeof(bt->status))
		snprintf(bt->status + n, sizeof(bt->status) - n, ", as uid "
		    "%ld (the process's owner)", bt->as_uid);
}

/* A remote backtrace ended: keep the debugger's lines, read the marks. */
static void
backtrace_remote_end(struct backtrace *bt)
{
	const char	*p, *nl, *out, *err, *why;
	size_t		 n, len, errlen;
	int		 scope = -1, none = 0, gone = 0, st;
	long		 nodrop = -1;
	char		 where[80];

	out = feed_exec_out(bt->rx, &len);
	bt->len = 0;
	for (p = out; p < out + len; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(out + len - p))) == NULL)
			nl = out + len;
		n = (size_t)(nl - p);
		if (n >= strlen(BT_MARK) && memcmp(p, BT_MARK,
		    strlen(BT_MARK)) == 0) {
			p += strlen(BT_MARK);
			n -= strlen(BT_MARK);
			if (n == 4 && memcmp(p, "none", 4) == 0)
				none = 1;
			else if (n == 4 && memcmp(p, "gone", 4) == 0)
				gone = 1;
			else if (n > 3 && memcmp(p, "as ", 3) == 0)
				bt->as_uid = strtol(p + 3, NULL, 10);
			else if (n > 7 && memcmp(p, "nodrop ", 7) == 0)
				nodrop = strtol(p + 7, NULL, 10);
			else if (n > 13 && memcmp(p, "ptrace_scope ", 13) == 0)
				scope = atoi(p + 13);
			else if (n < sizeof(bt->toolname))
				snprintf(bt->toolname, sizeof(bt->toolname),
				    "%.*s", (int)n, p);
			continue;
		}
		if (bt->len + n + 1 > BACKTRACE_OUTPUT_MAX)
			break;
		memcpy(bt->buf + bt->len, p, n);
		bt->len += n;
		bt->buf[bt->len++] = '\n';
	}
	/* What the login shell or ssh said on stderr goes last. */
	err = feed_exec_err(bt->rx, &errlen);
	if (errlen > 0 && bt->len + errlen < BACKTRACE_OUTPUT_MAX) {
		memcpy(bt->buf + bt->len, err, errlen);
		bt->len += errlen;
	}
	bt->buf[bt->len] = '\0';
	snprintf(where, sizeof(where), " on %s", bt->node);
	st = feed_exec_status(bt->rx);
	why = feed_exec_why(bt->rx);
	if (none)
		snprintf(bt->status, sizeof(bt->status), "no gdb or eu-stack "
		    "on %s: install one there for user-space backtraces",
		    bt->node);
	else if (gone)
		snprintf(bt->status, sizeof(bt->status), "pid %ld is gone on "
		    "%s", (long)bt->target, bt->node);
	else if (nodrop >= 0)
		snprintf(bt->status, sizeof(bt->status), "%s%s not run: it "
		    "would run as root, and neither setpriv nor runuser can "
		    "make it run as uid %ld, the process's owner", bt->tool,
		    where, nodrop);
	else if (*why != '\0')
		snprintf(bt->status, sizeof(bt->status), "%s%s: %s", bt->tool,
		    where, why);
	else if (backtrace_refused(bt->buf))
		backtrace_why_refused(bt, where, scope);
	else if (st == 124)
		snprintf(bt->status, sizeof(bt->status), "%s%s timed out after "
		    "%d s", bt->tool, where, BACKTRACE_REMOTE_LIMIT);
	else
		snprintf(bt->status, sizeof(bt->status), "%s%s exited with "
		    "status %d", bt->tool, where, st);
	backtrace_as(bt);
	bt->done = 1;
}

/* yama's ptrace_scope on this machine, -1 without yama. */
static int
backtrace_scope_here(void)
{
	FILE	*f;
	int	 v = -1;

	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re")) != NULL) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

void
backtrace_free(struct backtrace *bt)
{
	int	st;

	if (bt == NULL)
		return;
	if (bt->rx != NULL)
		feed_exec_free(bt->rx);
	if (bt->child > 0) {
		kill(bt->child, SIGKILL);
		while (waitpid(bt->child, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (bt->fd >= 0)
		close(bt->fd);
	free(bt->buf);
	free(bt);
}

int
backtrace_fd(const struct backtrace *bt)
{
	return bt != NULL ? bt->fd : -1;
}

void
backtrace_read(struct backtrace *bt)
{
	char	junk[4096];
	ssize_t	n;

	while (bt->fd >= 0) {
		if (bt->len < BACKTRACE_OUTPUT_MAX)
			n = read(bt->fd, bt->buf + bt->len,
			    BACKTRACE_OUTPUT_MAX - bt->len);
		else
			n = read(bt->fd, junk, sizeof(junk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(bt->fd);
			bt->fd = -1;
			return;
		}
		if (bt->len < BACKTRACE_OUTPUT_MAX)
			bt->len += (size_t)n;
		bt->buf[bt->len] = '\0';
	}
}

int
backtrace_check(struct backtrace *bt, uint64_t now)
{
	int	st;
	pid_t	r;

	if (bt->done)
		return 1;
	if (bt->rx != NULL) {
		if (feed_exec_done(bt->rx))
			backtrace_remote_end(bt);
		return bt->done;
	}
	if (bt->child > 0 && !bt->killed && now >= bt->deadline) {
		kill(bt->child, SIGKILL);
		bt->killed = 1;
	}
	if (bt->child > 0) {
		r = waitpid(bt->child, &st, WNOHANG);
		if (r == bt->child) {
			bt->child = -1;
			if (bt->killed)
				snprintf(bt->status, sizeof(bt->status),
				    "%s timed out after %d s", bt->tool,
				    BACKTRACE_TIMEOUT_MS / 1000);
			else if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
				snprintf(bt->status, sizeof(bt->status),
				    "%s could not be run", bt->tool);
			else if (WIFEXITED(st) && WEXITSTATUS(st) == 126 &&
			    bt->as_uid >= 0)
				snprintf(bt->status, sizeof(bt->status),
				    "%s not run: it cannot run as uid %ld, "
				    "the process's owner", bt->tool,
				    bt->as_uid);
			else if (WIFEXITED(st) && (backtrace_read(bt),
			    backtrace_refused(bt->buf)))
				backtrace_why_refused(bt, "",
				    backtrace_scope_here());
			else if (WIFEXITED(st))
				snprintf(bt->status, sizeof(bt->status),
				    "%s exited with status %d", bt->tool,
				    WEXITSTATUS(st));
			else
				snprintf(bt->status, sizeof(bt->status),
				    "%s killed by signal %d", bt->tool,
				    WTERMSIG(st));
			if (!(WIFEXITED(st) && WEXITSTATUS(st) == 126))
				backtrace_as(bt);
		}
	}
	if (bt->child < 0 && bt->fd >= 0)
		backtrace_read(bt);
	if (bt->child < 0 && bt->fd < 0)
		bt->done = 1;
	return bt->done;
}

int
backtrace_timeout(const struct backtrace *bt, uint64_t now)
{
	if (bt == NULL || bt->done || bt->rx != NULL)
		return -1;
	if (bt->child < 0)
		return 50;	/* reaped; the pipe drains on the next wake */
	if (bt->killed)
		return 100;	/* wait for the kill to be reaped */
	return now >= bt->deadline ? 0 : (int)(bt->deadline - now);
}

int
backtrace_done(const struct backtrace *bt)
{
	return bt->done;
}

pid_t
backtrace_pid(const struct backtrace *bt)
{
	return bt->target;
}

const char *
backtrace_text(const struct backtrace *bt)
{
	return bt->buf;
}

const char *
backtrace_status(const struct backtrace *bt)
{
	return bt->status;
}

const char *
backtrace_tool(const struct backtrace *bt)
{
	return bt->tool;
}
