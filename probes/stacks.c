/* SPDX-License-Identifier: ISC */
/*
 * stacks: jobtop-probe --stacks, the node's half of `jobtop --stacks`.
 * The monitor names the node's ranks (PID:RANK ...); this takes each
 * one's user-space stack with a debugger (eu-stack, else gdb), several at
 * once, twice GAP apart, keeps only the distinct stacks and writes them
 * once each with the ranks that had them (stackfmt.h, PROTOCOL.md
 * "Stacks"): a node of 64 ranks waiting in one collective sends one stack,
 * not 64.  It also says, per rank, whether its call path changed between
 * the takes, and as root adds the kernel stacks (/proc/PID/stack).
 *
 * A debugger parses the target's ELF and DWARF, which the target's owner
 * controls: as root, each child drops to the target's uid and gid (no
 * supplementary groups) before exec, as ui/backtrace.c does.  Each take
 * has a deadline: a debugger still running then is killed and its rank
 * reported as timed out.  This is a one-shot mode, not the sampling loop:
 * it allocates as it goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stackfmt.h"
#include "stacks.h"

#define STACKS_OUT_MAX		(512 * 1024)	/* a debugger's output */
#define STACKS_THREADS_MAX	4096
#define STACKS_KFRAMES		64

struct stacks_task {
	long		 pid;
	long		 rank;
	/* per take: the debugger child */
	pid_t		 child;
	int		 fd;
	char		*out;
	size_t		 len;
	int		 status;	/* wait status, -1 killed */
	int		 running;
	uid_t		 uid;
	gid_t		 gid;
	char		 pstate;	/* its state before the attach */
	char		 exe[1024];
	char		 key[2][64];	/* call path hash per take */
	int		 have[2];
};

/* One row: a rank's thread had stack sid in a take. */
struct stacks_row {
	unsigned	 take;
	int		 kernel;
	unsigned	 sid;
	long		 rank;
};

struct stacks_run {
	const char	*tool;		/* "eu-stack", "gdb" */
	char		 toolpath[4096];
	unsigned	 frames;
	unsigned	 deadline_ms;
	unsigned	 parallel;
	int		 threads;
	int		 root;
	struct stacks_task *t;
	unsigned	 nt;
	unsigned	 nasked;	/* PID:RANK arguments */
	/* distinct stacks: "frame\tframe..." */
	char		**stk;
	unsigned	 nstk, capstk;
	unsigned	*hash;		/* open addressing: sid + 1, 0 free */
	unsigned	 caphash;
	struct stacks_row *rows;
	size_t		 nrows, caprows;
	/* errors: "why" per rank */
	char		**ewhy;
	long		*erank;
	unsigned	 nerr;
	int		 timed_out;
};

static uint64_t
stacks_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void *
stacks_alloc(void *p, size_t n)
{
	if ((p = realloc(p, n)) == NULL) {
		fprintf(stderr, "jobtop-probe: out of memory\n");
		exit(1);
	}
	return p;
}

static char *
stacks_strdup(const char *s)
{
	size_t	n = strlen(s) + 1;

	return memcpy(stacks_alloc(NULL, n), s, n);
}

/* Is name an executable in PATH?  Its path into buf. */
static int
stacks_which(const char *name, char *buf, size_t size)
{
	const char	*path = getenv("PATH"), *p, *e;
	struct stat	 st;

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		if ((e = strchr(p, ':')) == NULL)
			e = p + strlen(p);
		if (e == p || *p != '/')
			continue;
		snprintf(buf, size, "%.*s/%s", (int)(e - p), p, name);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* The owner and executable of a process: 0, or -1 when it is gone. */
static int
stacks_owner(struct stacks_task *t)
{
	char		 path[64], line[256];
	FILE		*f;
	unsigned long	 v;
	int		 got = 0;
	ssize_t		 n;

	snprintf(path, sizeof(path), "/proc/%ld/status", t->pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (got != 3 && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "Uid: %lu", &v) == 1) {
			t->uid = (uid_t)v;
			got |= 1;
		} else if (sscanf(line, "Gid: %lu", &v) == 1) {
			t->gid = (gid_t)v;
			got |= 2;
		}
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%ld/exe", t->pid);
	n = readlink(path, t->exe, sizeof(t->exe) - 1);
	t->exe[n > 0 ? n : 0] = '\0';
	return got == 3 ? 0 : -1;
}

/* A process's state letter from /proc/PID/stat, '?' when unknown. */
static char
stacks_pstate(long pid)
{
	char	 path[64], buf[512], *p;
	FILE	*f;
	size_t	 n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((f = fopen(path, "re")) == NULL)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return '?';
	return p[2];
}

/* Start the debugger on one task; 0, or -1 with why recorded. */
static int
stacks_spawn(struct stacks_run *r, struct stacks_task *t)
{
	char	 pidbuf[24], nbuf[24], cmd[64], *argv[16];
	int	 p[2], k = 0, fd;
	pid_t	 c;

	snprintf(pidbuf, sizeof(pidbuf), "%ld", t->pid);
	/* One frame more than kept: the parser then sees the cut. */
	snprintf(nbuf, sizeof(nbuf), "%u", r->frames + 1);
	argv[k++] = r->toolpath;
	if (strcmp(r->tool, "eu-stack") == 0) {
		argv[k++] = (char *)(uintptr_t)"-m";
		argv[k++] = (char *)(uintptr_t)"-n";
		argv[k++] = nbuf;
		argv[k++] = (char *)(uintptr_t)"-p";
		argv[k++] = pidbuf;
	} else {
		snprintf(cmd, sizeof(cmd), "%sbt %u", r->threads ?
		    "thread apply all " : "", r->frames + 1);
		argv[k++] = (char *)(uintptr_t)"-q";
		argv[k++] = (char *)(uintptr_t)"-batch";
		argv[k++] = (char *)(uintptr_t)"-nx";
		/* Never a download of debug info on a compute node, never a
		 * script from the target's directories. */
		argv[k++] = (char *)(uintptr_t)"-iex";
		argv[k++] = (char *)(uintptr_t)"set debuginfod enabled off";
		argv[k++] = (char *)(uintptr_t)"-iex";
		argv[k++] = (char *)(uintptr_t)"set auto-load off";
		argv[k++] = (char *)(uintptr_t)"-p";
		argv[k++] = pidbuf;
		argv[k++] = (char *)(uintptr_t)"-ex";
		argv[k++] = cmd;
	}
	argv[k] = NULL;
	t->pstate = stacks_pstate(t->pid);
	if (pipe(p) != 0)
		return -1;
	if ((c = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (c == 0) {
		setpgid(0, 0);
		if ((fd = open("/dev/null", O_RDONLY)) >= 0)
			dup2(fd, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		/* As root: the target's owner, nothing more. */
		if (r->root && t->uid != 0 && (setgroups(0, NULL) != 0 ||
		    setgid(t->gid) != 0 || setuid(t->uid) != 0 ||
		    setuid(0) == 0))
			_exit(126);
		execv(r->toolpath, argv);
		_exit(127);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	t->child = c;
	t->fd = p[0];
	t->running = 1;
	t->len = 0;
	t->status = 0;
	return 0;
}

static void
stacks_err(struct stacks_run *r, long rank, const char *why)
{
	r->ewhy = stacks_alloc(r->ewhy, (r->nerr + 1) * sizeof(*r->ewhy));
	r->erank = stacks_alloc(r->erank, (r->nerr + 1) * sizeof(*r->erank));
	r->ewhy[r->nerr] = stacks_strdup(why);
	r->erank[r->nerr++] = rank;
}

/* The id of a distinct stack (added when new). */
static unsigned
stacks_intern(struct stacks_run *r, const char *key)
{
	unsigned	h = 2166136261u, i, j, nc;
	const char	*p;
	unsigned	*nh;

	if (2 * (r->nstk + 1) > r->caphash) {
		nc = r->caphash == 0 ? 64 : r->caphash * 2;
		nh = stacks_alloc(NULL, nc * sizeof(*nh));
		memset(nh, 0, nc * sizeof(*nh));
		for (i = 0; i < r->nstk; i++) {
			h = 2166136261u;
			for (p = r->stk[i]; *p != '\0'; p++)
				h = (h ^ (unsigned char)*p) * 16777619u;
			for (j = h & (nc - 1); nh[j] != 0; j = (j + 1) &
			    (nc - 1))
				;
			nh[j] = i + 1;
		}
		free(r->hash);
		r->hash = nh;
		r->caphash = nc;
	}
	h = 2166136261u;
	for (p = key; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (j = h & (r->caphash - 1); r->hash[j] != 0;
	    j = (j + 1) & (r->caphash - 1))
		if (strcmp(r->stk[r->hash[j] - 1], key) == 0)
			return r->hash[j] - 1;
	if (r->nstk == r->capstk) {
		r->capstk = r->capstk == 0 ? 32 : r->capstk * 2;
		r->stk = stacks_alloc(r->stk, r->capstk * sizeof(*r->stk));
	}
	r->stk[r->nstk] = stacks_strdup(key);
	r->hash[j] = ++r->nstk;
	return r->nstk - 1;
}

static void
stacks_row(struct stacks_run *r, unsigned take, int kernel, unsigned sid,
    long rank)
{
	if (r->nrows == r->caprows) {
		r->caprows = r->caprows == 0 ? 64 : r->caprows * 2;
		r->rows = stacks_alloc(r->rows, r->caprows * sizeof(*r->rows));
	}
	r->rows[r->nrows].take = take;
	r->rows[r->nrows].kernel = kernel;
	r->rows[r->nrows].sid = sid;
	r->rows[r->nrows++].rank = rank;
}

/* Frames joined by tabs, outermost first, n of them. */
static char *
stacks_join(char *const *frames, unsigned n, int cut)
{
	size_t	 len = cut ? 4 : 0, k = 0;
	unsigned i;
	char	*s;

	for (i = 0; i < n; i++)
		len += strlen(frames[i]) + 1;
	s = stacks_alloc(NULL, len + 1);
	if (cut) {
		memcpy(s, "...\t", 4);
		k = 4;
	}
	for (i = 0; i < n; i++) {
		len = strlen(frames[i]);
		memcpy(s + k, frames[i], len);
		k += len;
		s[k++] = '\t';
	}
	s[k > 0 ? k - 1 : 0] = '\0';
	return s;
}

/* A short hash of a call path, to compare the takes. */
static void
stacks_pathkey(const struct stk_thread *th, char *out, size_t size)
{
	unsigned long long	h = 1469598103934665603ULL;
	unsigned		i, n = stk_callpath_len(th);
	const char		*p;

	for (i = 0; i < n; i++) {
		for (p = th->frames[i]; *p != '\0'; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ '\t') * 1099511628211ULL;
	}
	snprintf(out, size, "%u:%016llx", n, h);
}

/* A finished debugger's output into rows (or an error). */
static void
stacks_collect(struct stacks_run *r, struct stacks_task *t, unsigned take)
{
	struct stk_proc	 p;
	char		 err[256], why[400], first[160], *key;
	unsigned	 i, sel = 0;
	const char	*nl;

	t->out[t->len] = '\0';
	if (t->status == -1) {
		snprintf(why, sizeof(why), "%s timed out after %u ms", r->tool,
		    r->deadline_ms);
		stacks_err(r, t->rank, why);
		return;
	}
	if (WIFEXITED(t->status) && WEXITSTATUS(t->status) == 126) {
		snprintf(why, sizeof(why), "%s not run: it cannot run as uid "
		    "%lu, the process's owner", r->tool, (unsigned long)t->uid);
		stacks_err(r, t->rank, why);
		return;
	}
	if (stk_parse_debugger(strcmp(r->tool, "gdb") == 0 ? STK_GDB :
	    STK_EUSTACK, t->out, t->len, t->exe, r->frames, STACKS_THREADS_MAX,
	    &p, err, sizeof(err)) != 0) {
		nl = strchr(t->out, '\n');
		stk_clean(first, sizeof(first), t->out, nl != NULL ?
		    (size_t)(nl - t->out) : t->len);
		if (strstr(t->out, "Operation not permitted") != NULL)
			snprintf(why, sizeof(why), "%s could not attach: ptrace "
			    "refused (kernel.yama.ptrace_scope, or traced "
			    "already)", r->tool);
		else if (WIFEXITED(t->status))
			snprintf(why, sizeof(why), "%s exited with status %d: "
			    "%s", r->tool, WEXITSTATUS(t->status), *first ?
			    first : err);
		else
			snprintf(why, sizeof(why), "%s killed by signal %d",
			    r->tool, WTERMSIG(t->status));
		stacks_err(r, t->rank, why);
		return;
	}
	/* The main thread: the one whose id is the pid, else the first
	 * (gdb's plain bt says none). */
	for (i = 0; i < p.nthreads; i++)
		if (p.threads[i].tid == t->pid)
			sel = i;
	for (i = 0; i < p.nthreads; i++) {
		if (!r->threads && i != sel)
			continue;
		if (p.threads[i].nframes == 0)
			continue;
		key = stacks_join(p.threads[i].frames, p.threads[i].nframes,
		    p.threads[i].cut);
		stacks_row(r, take, 0, stacks_intern(r, key), t->rank);
		free(key);
	}
	if (sel < p.nthreads && p.threads[sel].nframes > 0) {
		stacks_pathkey(&p.threads[sel], t->key[take - 1],
		    sizeof(t->key[0]));
		t->have[take - 1] = 1;
	}
	stk_proc_free(&p);
}

/* The kernel stack of a task's main thread (root only): a row. */
static void
stacks_kernel(struct stacks_run *r, struct stacks_task *t, unsigned take)
{
	char	 path[64], line[256], *f[STACKS_KFRAMES], *key, *p, *q;
	FILE	*fp;
	unsigned n = 0, i;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stack", t->pid,
	    t->pid);
	if ((fp = fopen(path, "re")) == NULL)
		return;
	/* "[<0>] pipe_read+0x2f2/0x3d0": the function, innermost first. */
	while (n < STACKS_KFRAMES && fgets(line, sizeof(line), fp) != NULL) {
		p = strchr(line, ']');
		p = p != NULL ? p + 1 : line;
		while (*p == ' ')
			p++;
		if ((q = strpbrk(p, "+ \n")) != NULL)
			*q = '\0';
		if (*p == '\0')
			continue;
		stk_clean(line, sizeof(line), p, strlen(p));
		f[n++] = stacks_strdup(line);
	}
	fclose(fp);
	if (n == 0)
		return;
	for (i = 0; i < n / 2; i++) {
		p = f[i];
		f[i] = f[n - 1 - i];
		f[n - 1 - i] = p;
	}
	key = stacks_join(f, n, 0);
	stacks_row(r, take, 1, stacks_intern(r, key), t->rank);
	free(key);
	for (i = 0; i < n; i++)
		free(f[i]);
}

/* One take: every task's debugger, parallel at most r->parallel. */
static void
stacks_take(struct stacks_run *r, unsigned take)
{
	struct pollfd	*pfd;
	unsigned	 i, next = 0, running = 0, *map, np;
	uint64_t	 deadline = stacks_now() + r->deadline_ms, now;
	ssize_t		 n;
	char		 junk[4096];
	pid_t		 w;
	int		 st;

	pfd = stacks_alloc(NULL, (r->nt + 1) * sizeof(*pfd));
	map = stacks_alloc(NULL, (r->nt + 1) * sizeof(*map));
	for (i = 0; i < r->nt; i++)
		r->t[i].status = 0;
	for (;;) {
		/* Past the deadline nothing more starts: the ranks left are
		 * said to be, not each killed at once. */
		if (next < r->nt && stacks_now() >= deadline) {
			snprintf(junk, sizeof(junk), "not taken: the take's "
			    "deadline (%u ms) passed before its turn",
			    r->deadline_ms);
			for (; next < r->nt; next++)
				stacks_err(r, r->t[next].rank, junk);
			r->timed_out = 1;
		}
		while (running < r->parallel && next < r->nt) {
			struct stacks_task *t = &r->t[next++];

			if (r->root)
				stacks_kernel(r, t, take);
			if (stacks_spawn(r, t) != 0) {
				stacks_err(r, t->rank, "cannot start the "
				    "debugger");
				continue;
			}
			running++;
		}
		if (running == 0)
			break;
		for (i = np = 0; i < r->nt; i++)
			if (r->t[i].running && r->t[i].fd >= 0) {
				pfd[np].fd = r->t[i].fd;
				pfd[np].events = POLLIN;
				map[np++] = i;
			}
		now = stacks_now();
		if (np > 0)
			poll(pfd, np, now >= deadline ? 0 : (int)(deadline -
			    now) > 100 ? 100 : (int)(deadline - now));
		else
			poll(NULL, 0, 20);
		for (i = 0; i < np; i++) {
			struct stacks_task *t = &r->t[map[i]];

			if (pfd[i].revents == 0)
				continue;
			for (;;) {
				if (t->len < STACKS_OUT_MAX)
					n = read(t->fd, t->out + t->len,
					    STACKS_OUT_MAX - t->len);
				else
					n = read(t->fd, junk, sizeof(junk));
				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0)
					break;
				if (t->len < STACKS_OUT_MAX)
					t->len += (size_t)n;
			}
			if (n == 0) {
				close(t->fd);
				t->fd = -1;
			}
		}
		now = stacks_now();
		for (i = 0; i < r->nt; i++) {
			struct stacks_task *t = &r->t[i];

			if (!t->running)
				continue;
			if (now >= deadline && t->status != -1) {
				kill(-t->child, SIGKILL);
				kill(t->child, SIGKILL);
				t->status = -1;
				r->timed_out = 1;
			}
			if (t->fd >= 0 && t->status != -1)
				continue;
			w = waitpid(t->child, &st, t->status == -1 ? 0 :
			    WNOHANG);
			if (w != t->child)
				continue;
			if (t->status != -1)
				t->status = st;
			/* A debugger killed between its attach and its
			 * detach can leave the rank stopped by the attach's
			 * SIGSTOP: it was not stopped before, so it goes on. */
			else if (stacks_pstate(t->pid) == 'T' &&
			    t->pstate != 'T' && t->pstate != '?')
				kill((pid_t)t->pid, SIGCONT);
			if (t->fd >= 0) {
				close(t->fd);
				t->fd = -1;
			}
			t->running = 0;
			running--;
			stacks_collect(r, t, take);
		}
	}
	free(pfd);
	free(map);
}

static int
stacks_row_cmp(const void *a, const void *b)
{
	const struct stacks_row	*x = a, *y = b;

	if (x->kernel != y->kernel)
		return x->kernel - y->kernel;
	if (x->take != y->take)
		return x->take < y->take ? -1 : 1;
	if (x->sid != y->sid)
		return x->sid < y->sid ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int
stacks_long_cmp(const void *a, const void *b)
{
	long	x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Print a sorted list of ids as a range list. */
static void
stacks_ranges(FILE *f, const long *v, size_t n)
{
	int64_t	*w = stacks_alloc(NULL, (n + 1) * sizeof(*w));
	size_t	 i, len;
	char	*buf;

	for (i = 0; i < n; i++)
		w[i] = v[i];
	len = stk_ranges_write(NULL, 0, w, n);
	buf = stacks_alloc(NULL, len + 1);
	stk_ranges_write(buf, len + 1, w, n);
	fputs(buf, f);
	free(buf);
	free(w);
}

/* The answer: header, distinct stacks, takes, progress, errors. */
static void
stacks_print(struct stacks_run *r, FILE *f, unsigned gap, unsigned takes,
    const unsigned *take_ms, unsigned cpu_ms)
{
	size_t	 i, j, k;
	long	*v;
	unsigned nth;
	size_t	 nm = 0, ns = 0;
	long	*moved, *stuck;

	fprintf(f, "jobtop-stacks %d\ntool\t%s\n", STK_VERSION, r->tool);
	if (r->root && r->nt > 0 && r->t[0].uid != 0)
		fprintf(f, "as\t%lu\n", (unsigned long)r->t[0].uid);
	fprintf(f, "gap\t%u\nframes\t%u\ntasks\t%u\n", gap, r->frames, r->nasked);
	for (i = 0; i < r->nstk; i++)
		fprintf(f, "S\t%zu\t%s\n", i, r->stk[i]);
	qsort(r->rows, r->nrows, sizeof(*r->rows), stacks_row_cmp);
	v = stacks_alloc(NULL, (r->nrows + 1) * sizeof(*v));
	for (i = 0; i < r->nrows; i = j) {
		for (j = i; j < r->nrows && r->rows[j].take == r->rows[i].take
		    && r->rows[j].kernel == r->rows[i].kernel &&
		    r->rows[j].sid == r->rows[i].sid; j++)
			;
		nth = (unsigned)(j - i);
		for (k = 0; k < nth; k++)
			v[k] = r->rows[i + k].rank;
		fprintf(f, "%c\t%u\t%u\t%u\t", r->rows[i].kernel ? 'K' : 'T',
		    r->rows[i].take, r->rows[i].sid, nth);
		stacks_ranges(f, v, nth);
		fputc('\n', f);
	}
	free(v);
	if (takes == 2) {
		moved = stacks_alloc(NULL, (r->nt + 1) * sizeof(*moved));
		stuck = stacks_alloc(NULL, (r->nt + 1) * sizeof(*stuck));
		for (i = 0; i < r->nt; i++) {
			if (!r->t[i].have[0] || !r->t[i].have[1])
				continue;
			if (strcmp(r->t[i].key[0], r->t[i].key[1]) == 0)
				stuck[ns++] = r->t[i].rank;
			else
				moved[nm++] = r->t[i].rank;
		}
		qsort(moved, nm, sizeof(*moved), stacks_long_cmp);
		qsort(stuck, ns, sizeof(*stuck), stacks_long_cmp);
		fputs("moved\t", f);
		stacks_ranges(f, moved, nm);
		fputs("\nstuck\t", f);
		stacks_ranges(f, stuck, ns);
		fputc('\n', f);
		free(moved);
		free(stuck);
	}
	/* Errors, one line per reason with its ranks. */
	for (i = 0; i < r->nerr; i++) {
		if (r->ewhy[i] == NULL)
			continue;
		v = stacks_alloc(NULL, (r->nerr + 1) * sizeof(*v));
		for (j = i, k = 0; j < r->nerr; j++)
			if (r->ewhy[j] != NULL && strcmp(r->ewhy[j],
			    r->ewhy[i]) == 0) {
				v[k++] = r->erank[j];
				if (j != i) {
					free(r->ewhy[j]);
					r->ewhy[j] = NULL;
				}
			}
		qsort(v, k, sizeof(*v), stacks_long_cmp);
		for (j = 1, nth = 1; j < k; j++)	/* one per rank */
			if (v[j] != v[nth - 1])
				v[nth++] = v[j];
		fputs("E\t", f);
		stacks_ranges(f, v, nth);
		fprintf(f, "\t%s\n", r->ewhy[i]);
		free(v);
	}
	if (r->timed_out)
		fputs("deadline\n", f);
	fprintf(f, "cost\t%u\t%u\t%u\t%u\nend\n", takes, take_ms[0],
	    take_ms[1], cpu_ms);
}

static unsigned
stacks_cpu_ms(void)
{
	struct rusage	a, b;

	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return (unsigned)((a.ru_utime.tv_sec + a.ru_stime.tv_sec +
	    b.ru_utime.tv_sec + b.ru_stime.tv_sec) * 1000 +
	    (a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec +
	    b.ru_stime.tv_usec) / 1000);
}

/* A number option: 0, or -1 after a message. */
static int
stacks_num(const char *opt, const char *s, unsigned lo, unsigned hi,
    unsigned *v)
{
	char		*end;
	unsigned long	 x;

	errno = 0;
	x = s != NULL ? strtoul(s, &end, 10) : 0;
	if (s == NULL || errno != 0 || end == s || *end != '\0' || x < lo ||
	    x > hi) {
		fprintf(stderr, "jobtop-probe: --stacks %s wants a number "
		    "from %u to %u\n", opt, lo, hi);
		return -1;
	}
	*v = (unsigned)x;
	return 0;
}

int
stacks_main(int argc, char **argv)
{
	struct stacks_run r;
	unsigned	 gap = 3000, takes = 2, take_ms[2] = { 0, 0 }, i;
	uint64_t	 t0;
	long		 ncpu;
	char		*end;
	int		 k;

	memset(&r, 0, sizeof(r));
	r.frames = 64;
	r.deadline_ms = 10000;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	r.parallel = ncpu > 0 ? (unsigned)ncpu : 1;
	if (r.parallel > 16)
		r.parallel = 16;
	r.root = geteuid() == 0;
	signal(SIGPIPE, SIG_IGN);
	for (k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--threads") == 0)
			r.threads = 1;
		else if (strcmp(argv[k], "--gap") == 0) {
			if (stacks_num("--gap", argv[++k < argc ? k : 0], 0,
			    600000, &gap) != 0)
				return 2;
		} else if (strcmp(argv[k], "--frames") == 0) {
			if (stacks_num("--frames", argv[++k < argc ? k : 0], 1,
			    STK_FRAMES_MAX, &r.frames) != 0)
				return 2;
		} else if (strcmp(argv[k], "--deadline") == 0) {
			if (stacks_num("--deadline", argv[++k < argc ? k : 0],
			    100, 600000, &r.deadline_ms) != 0)
				return 2;
		} else if (strcmp(argv[k], "--parallel") == 0) {
			if (stacks_num("--parallel", argv[++k < argc ? k : 0],
			    1, 256, &r.parallel) != 0)
				return 2;
		} else if (strcmp(argv[k], "--stacks") == 0)
			continue;
		else
			break;
	}
	if (k >= argc) {
		fprintf(stderr, "jobtop-probe: --stacks wants PID:RANK ...\n");
		return 2;
	}
	r.t = stacks_alloc(NULL, (size_t)(argc - k) * sizeof(*r.t));
	for (; k < argc; k++) {
		struct stacks_task *t = &r.t[r.nt];

		memset(t, 0, sizeof(*t));
		errno = 0;
		t->pid = strtol(argv[k], &end, 10);
		if (errno != 0 || end == argv[k] || *end != ':' || t->pid <= 0
		    || t->pid > 0x3fffffff) {
			fprintf(stderr, "jobtop-probe: --stacks: bad PID:RANK "
			    "%.64s\n", argv[k]);
			return 2;
		}
		t->rank = strtol(end + 1, &end, 10);
		if (errno != 0 || *end != '\0' || t->rank < 0 ||
		    t->rank > 0x7fffffff) {
			fprintf(stderr, "jobtop-probe: --stacks: bad PID:RANK "
			    "%.64s\n", argv[k]);
			return 2;
		}
		t->fd = -1;
		t->out = stacks_alloc(NULL, STACKS_OUT_MAX + 1);
		r.nt++;
	}
	r.nasked = r.nt;
	if (stacks_which("eu-stack", r.toolpath, sizeof(r.toolpath)) == 0)
		r.tool = "eu-stack";
	else if (stacks_which("gdb", r.toolpath, sizeof(r.toolpath)) == 0)
		r.tool = "gdb";
	else {
		printf("jobtop-stacks %d\ntool\tnone\nE\t", STK_VERSION);
		for (i = 0; i < r.nt; i++)
			printf("%s%ld", i > 0 ? "," : "", r.t[i].rank);
		printf("\tno eu-stack or gdb on this node: install one\n"
		    "cost\t1\t0\t0\t0\nend\n");
		return 0;
	}
	/* Gone processes are errors; the rest are ranked for printing. */
	for (i = 0; i < r.nt; i++)
		if (stacks_owner(&r.t[i]) != 0) {
			stacks_err(&r, r.t[i].rank, "the process is gone");
			memmove(&r.t[i], &r.t[i + 1], (r.nt - i - 1) *
			    sizeof(*r.t));
			r.nt--;
			i--;
		}
	if (gap == 0)
		takes = 1;
	t0 = stacks_now();
	stacks_take(&r, 1);
	take_ms[0] = (unsigned)(stacks_now() - t0);
	if (takes == 2) {
		poll(NULL, 0, (int)gap);
		t0 = stacks_now();
		stacks_take(&r, 2);
		take_ms[1] = (unsigned)(stacks_now() - t0);
	}
	stacks_print(&r, stdout, gap, takes, take_ms, stacks_cpu_ms());
	fflush(stdout);
	return ferror(stdout) ? 1 : 0;
}
