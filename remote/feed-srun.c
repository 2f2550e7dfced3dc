/* SPDX-License-Identifier: ISC */
/*
 * feed-srun: the transport "srun" (see feed-srun.h and PROTOCOL.md,
 * "Armour").  One group per job holds every node's feed and the children
 * that serve them:
 *
 *  - a run: `srun --overlap --jobid=JOB -w NODES -N n --ntasks-per-node=1
 *    -l --input=all /bin/sh -c SCRIPT ...`, one task per node.  SCRIPT
 *    makes /tmp/jobtop-UID private (0700, the user's, not a link), and
 *    runs the cached probe-HASH there with --armour, or says
 *    "jobtop-srun-need NODE" when the node lacks it and waits for the
 *    push ("jobtop-pushed" on its stdin; exit 3 if it did not come).  The
 *    first run serves the whole job; later runs serve the nodes that need
 *    one again (--nodelist), so a lost node never disturbs the others;
 *  - a push: `sbcast --jobid=JOB -f PROBE /tmp/jobtop-UID-probe-HASH.new`
 *    through Slurm's tree, when a node said it needs the probe (into /tmp
 *    itself: sbcast writes to every node of the job, also to those where
 *    no task made the directory yet); the next run for those nodes checks
 *    the copy (a regular file of the user's), copies it into the
 *    directory and checks its size there.
 *
 * Every child runs in its own process group (a ^C on the terminal is the
 * monitor's), without the SLURM_* variables of the monitor's environment
 * (but SLURM_CONF), and gets SIGTERM when the monitor dies
 * (PR_SET_PDEATHSIG): srun then ends its step, and the probes end at the
 * EOF of their input.  The probes also get --watchdog: the group writes
 * "alive" to every run every SR_ALIVE_MS.
 *
 * As root on another user's job (runas.h), every child (srun, sbcast)
 * becomes the job's owner before exec: Slurm creates steps in a job for
 * its owner only.  The nodes' directory is then the owner's
 * (/tmp/jobtop-OWNERUID), the environment his, and the transport says so
 * ("srun as jtuser"): the node table, the JSON transport records, the
 * recording's transport events and the -v log all carry it.
 *
 * The session polls one descriptor per group (an epoll set of every
 * child's pipes), through the first node that is not done; the others
 * wait on nothing and read what the demux put in their buffers.  After
 * data arrived for them the group raises SIGCHLD, the session's own
 * "something changed" wake-up, so that they are read in the same turn.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "feed-srun.h"
#include "feed.h"
#include "fsutil.h"
#include "hostlist.h"
#include "ladder.h"
#include "log.h"
#include "rconf.h"
#include "runas.h"
#include "sched.h"
#include "spawn.h"
#include "srun-demux.h"
#include "textsafe.h"
#include "xmalloc.h"

#define SR_ALIVE_MS	10000	/* heartbeat to every probe */
#define SR_WATCHDOG_S	45	/* the probes' --watchdog */
#define SR_GRACE_MS	3000	/* after EOF, before SIGTERM to srun */
#define SR_KILL_MS	2000	/* after SIGTERM, before SIGKILL */
#define SR_BACKOFF_MAX	30000
#define SR_LINE		512
#define SR_NEED_EXIT	3
#define SR_BATCH_MS	100	/* nodes joining within it share a run */
#define SR_SLACK_MS	1000	/* a retry due within it joins a run */
/* Every process of jobtop's steps carries JOBTOP_PROBE_SESSION: a second
 * jobtop session on the job never takes them for ranks (ranks-find.c). */
#define SR_EXPORT_MARK	"--export=ALL,JOBTOP_PROBE_SESSION=srun"

extern char **environ;
static char **sr_envp;		/* sr_child's, between fork and exec */
static pid_t sr_parent;

struct sr_group;

struct sr_run {
	struct sr_group	*g;
	struct sr_run	*next;
	int		 push;		/* an sbcast, not an srun */
	struct spawn	 sp;
	struct sdemux	*dm;
	int		*task_node;	/* task -> node index, -1 */
	int		 ntasks;
	int		 armour;	/* any good stream started */
	uint64_t	 started;
	uint64_t	 term_at, kill_at;	/* 0: not due */
	char		 errbuf[SR_LINE];
	size_t		 errlen;
	char		 lasterr[SR_LINE];
};

struct sr_node {
	struct sr_group	*g;
	int		 idx;
	char		*name;
	struct sr_run	*run;		/* serving it, or NULL */
	uint8_t		*buf;
	size_t		 len, cap, off;
	size_t		 end_at;	/* its stream ended there, -1 */
	int		 live;
	int		 need;		/* the node lacks the probe */
	int		 stopped;
	int		 done;
	int		 failed;	/* done, for good, with error */
	int		 freed;
	int		 nfail;
	int		 npush;		/* sbcasts it waited for */
	uint64_t	 need_run;	/* start of the run that said need */
	char		*why;		/* what its task last said, or NULL */
	struct feed_exec *x;		/* a side command, or NULL */
	int		 comp;		/* het job component, 0 */
	uint64_t	 retry_at;	/* 0: not waiting */
	enum feed_phase	 phase;
	char		*state;		/* the phase's reason, NULL: none
					 * (texts on the heap when there are
					 * some: 1 KiB a node inline) */
};

struct sr_group {
	const struct rconf	*rc;
	struct sr_group		*next;
	struct sr_node		**nodes;
	int			 nnodes, cap;
	struct sr_run		*runs;
	int			 epfd;
	int			 started;
	int			 stopping;
	int			 pushing;
	uint64_t		 push_ok_at;	/* the last good sbcast's end */
	int			 nruns;		/* runs started */
	unsigned		 interval_ms;
	uint64_t		 next_alive;
	char			 dir[64];
	char			 file[96];
	char			 stage[176];	/* sbcast's target */
	long long		 size;
	int			 ncomp;		/* het parts, 0 */
	struct hostlist		*comps[16];	/* their nodes */
	char			 jobid[64];	/* "123" of "123+1" */
	int			 onecomp;	/* 1 of "123+1", -1 */
	int			 kick;
	const struct runas	*ra;		/* root as the owner, NULL */
	char			 tname[128];	/* "srun", "srun as jtuser" */
};

static struct sr_group	*sr_groups;

static void	sr_write_all(struct sr_group *, const char *);

static uint64_t
sr_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
sr_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static const char *
sr_srun_name(void)
{
	return "srun";
}

/* A SLURM_* variable other than SLURM_CONF. */
static int
sr_slurm_var(const char *e)
{
	return strncmp(e, "SLURM_", 6) == 0 &&
	    strncmp(e, "SLURM_CONF=", 11) != 0;
}

/* The monitor's environment without its SLURM_* (a monitor run inside
 * another job would hand srun that job's sizes), SLURM_CONF kept; as
 * root for the job's owner, his environment (runas_env) without them. */
static char **
sr_env(const struct runas *ra)
{
	char	**env;
	size_t	  n = 0, k = 0;

	if (ra != NULL)
		return runas_env(ra, NULL, sr_slurm_var);
	while (environ[n] != NULL)
		n++;
	env = xcalloc(n + 1, sizeof(*env));
	for (n = 0; environ[n] != NULL; n++) {
		if (sr_slurm_var(environ[n]))
			continue;
		env[k++] = environ[n];
	}
	env[k] = NULL;
	return env;
}

/* In the child (spawn.c's fn): SIGTERM, not SIGKILL, when the monitor
 * dies, because a SIGKILLed srun leaves its step and tasks running
 * (measured: still there 8 s later) while on SIGTERM it cancels the step
 * within a second.  Then exec through PATH.  As root for the owner, the
 * child is the owner already (spawn.c switched before calling this), so
 * the signal is set after the switch, which would have cleared it. */
static void
sr_child(void *arg)
{
	char *const	*argv = arg;
	char		 msg[256];
	int		 n;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != sr_parent)
		_exit(127);
	execvpe(argv[0], argv, sr_envp);
	n = snprintf(msg, sizeof(msg), "jobtop: cannot run %s: %s\n", argv[0],
	    strerror(errno));
	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0)
		_exit(127);
	_exit(127);
}

/* Start argv: stdin (srun, not sbcast), stdout and stderr pipes, its own
 * process group (a ^C on the terminal is the monitor's alone). */
static int
sr_spawn(struct sr_run *r, char *const argv[], char *err, size_t errsz)
{
	struct spawn_req	rq;
	int			rc;

	sr_envp = sr_env(r->g->ra);
	sr_parent = getpid();
	memset(&rq, 0, sizeof(rq));
	rq.fn = sr_child;
	rq.arg = (void *)(uintptr_t)argv;
	rq.argv = argv;
	rq.flags = SPAWN_OUT | SPAWN_ERR | SPAWN_PGRP | SPAWN_NODEATH |
	    (r->push ? 0 : SPAWN_IN);
	/* Root for the job's owner: his uid and groups, in his home. */
	runas_req(r->g->ra, &rq);
	rc = spawn_start(&r->sp, &rq, err, errsz);
	free(sr_envp);
	sr_envp = NULL;
	return rc;
}

static void
sr_set(struct sr_node *nd, enum feed_phase ph, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The node's phase and its reason. */
static void
sr_set(struct sr_node *nd, enum feed_phase ph, const char *fmt, ...)
{
	va_list	ap;
	char	buf[400];

	nd->phase = ph;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	text_clean_inplace(buf);
	free(nd->state);
	nd->state = buf[0] != '\0' ? xstrdup(buf) : NULL;
}

/* What its task last said. */
static void
sr_why(struct sr_node *nd, const char *why)
{
	free(nd->why);
	nd->why = xstrndup(why, 255);
}

static struct sr_node *
sr_find(struct sr_group *g, const char *name)
{
	int	i;

	for (i = 0; i < g->nnodes; i++)
		if (!g->nodes[i]->freed && strcmp(g->nodes[i]->name, name) == 0)
			return g->nodes[i];
	return NULL;
}

static void
sr_append(struct sr_node *nd, const void *p, size_t n)
{
	if (nd->off > 0 && nd->off == nd->len && nd->end_at == (size_t)-1)
		nd->off = nd->len = 0;
	if (nd->len + n > nd->cap) {
		nd->cap = (nd->len + n) * 2;
		nd->buf = xreallocarray(nd->buf, nd->cap, 1);
	}
	memcpy(nd->buf + nd->len, p, n);
	nd->len += n;
	nd->g->kick = 1;
}

/* The node's stream ended here (a reconnect begins after it). */
static void
sr_end_stream(struct sr_node *nd)
{
	if (nd->live)
		nd->end_at = nd->len;
	nd->live = 0;
	nd->g->kick = 1;
}

static unsigned
sr_backoff(int nfail)
{
	unsigned	ms = 1000;

	while (--nfail > 0 && ms < SR_BACKOFF_MAX)
		ms *= 2;
	return ms < SR_BACKOFF_MAX ? ms : SR_BACKOFF_MAX;
}

/* The node is no longer served by its run: why, and when to try again. */
static void
sr_lose(struct sr_node *nd, const char *why)
{
	uint64_t	now = sr_now();
	unsigned	ms;

	nd->run = NULL;
	sr_end_stream(nd);
	if (nd->stopped || nd->g->stopping) {
		nd->done = 1;
		sr_set(nd, FEED_CLOSED, "%s", "");
		return;
	}
	if (nd->need) {
		sr_set(nd, FEED_PUSHING, "sbcast");
		nd->retry_at = 0;
		return;
	}
	ms = sr_backoff(++nd->nfail);
	nd->retry_at = now + ms;
	sr_set(nd, FEED_LOST, "%s; again in %u s", why, ms / 1000);
	log_warn("%s: lost: %s", nd->name,
	    nd->state != NULL ? nd->state : "");
}

/* --- the demux's hooks ------------------------------------------------ */

static void
sr_on_start(void *arg, unsigned task, const char *name)
{
	struct sr_run	*r = arg;
	struct sr_node	*nd = sr_find(r->g, name);

	if (nd == NULL || nd->run != r) {
		log_warn("srun task %u says it is %s, which this run does "
		    "not serve; ignored", task, name);
		return;
	}
	if ((int)task < r->ntasks)
		r->task_node[task] = nd->idx;
	r->armour = 1;
	if (nd->live)
		sr_end_stream(nd);
	nd->live = 1;
	nd->need = 0;
	nd->nfail = 0;
	nd->npush = 0;
	sr_set(nd, FEED_LIVE, "%s", "");
}

static struct sr_node *
sr_task_node(struct sr_run *r, unsigned task)
{
	struct sr_node	*nd;

	if ((int)task >= r->ntasks || r->task_node[task] < 0)
		return NULL;
	nd = r->g->nodes[r->task_node[task]];
	return nd->run == r && !nd->freed ? nd : NULL;
}

static void
sr_on_data(void *arg, unsigned task, const void *p, size_t n)
{
	struct sr_node	*nd = sr_task_node(arg, task);

	if (nd != NULL && nd->live)
		sr_append(nd, p, n);
}

static void
sr_on_broken(void *arg, unsigned task, const char *why)
{
	struct sr_node	*nd = sr_task_node(arg, task);

	log_warn("srun task %u%s%s: %s", task, nd != NULL ? " on " : "",
	    nd != NULL ? nd->name : "", why);
	/* Its probe goes on in this run, unheard: a new one replaces it. */
	if (nd != NULL)
		sr_lose(nd, why);
}

static void
sr_on_text(void *arg, int task, const char *line)
{
	log_debug("srun output (task %d): %s", task, line);
}

/* --- runs ------------------------------------------------------------- */

static void
sr_run_free(struct sr_run *r)
{
	spawn_end(&r->sp);
	sdemux_free(r->dm);
	free(r->task_node);
	free(r);
}

static void
sr_watch(struct sr_group *g, int fd)
{
	struct epoll_event	ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = fd;
	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		fatal("epoll_ctl: %s", strerror(errno));
}

/* The task's shell: $1 directory, $2 file, $3 its size, $4 where sbcast
 * leaves a pushed copy, then the probe's arguments.  The copy lands in
 * /tmp itself ($4: /tmp/jobtop-UID-probe-HASH.new), not in $1: sbcast
 * writes to every node of the job, and $1 exists only where a task of an
 * earlier run made it (a node that never ran one answered sbcast with
 * ENOENT).  In a sticky /tmp only its owner can rename or remove the
 * copy, so once it is a regular file of the user's (not a link) of the
 * full size it is copied into $1 (sbcast may still hold it open: a
 * renamed file would fail to run with ETXTBSY), made 0700 there, and
 * checked again before it runs.  A task that lacks the probe says so and
 * waits for it, reading its standard input (no polling: 128 lab nodes
 * share 2 cores): the push comes while the step runs, and its end is the
 * line "jobtop-pushed" (the probe ignores it), so a cold start is one
 * srun and one sbcast for the whole job.  A task that still lacks the
 * probe then exits 3 and is started again; "alive" lines only make it
 * look again, EOF ends it. */
static const char sr_script[] =
    "set -f; umask 077; unset CDPATH; d=$1; f=./$2; s=$3; t=$4; shift 4; "
    "n=${SLURMD_NODENAME:-$(hostname)}; "
    "[ -e \"$d\" ] || [ -L \"$d\" ] || mkdir -m 700 \"$d\" 2>/dev/null; "
    "if [ -L \"$d\" ] || [ ! -d \"$d\" ] || ! cd -P -- \"$d\" || "
    "[ ! -O . ] || ! chmod 700 .; then "
    "echo \"jobtop-srun: $n: $d is not a private directory of the user\" "
    ">&2; exit 4; fi; "
    "sz() { [ -f \"$1\" ] && [ ! -L \"$1\" ] && [ -O \"$1\" ] && "
    "[ \"$(($(wc -c <\"$1\")))\" = \"$s\" ]; }; "
    "get() { if ! sz \"$f\" && sz \"$t\"; then "
    "cp -- \"$t\" \"$f.new\" && rm -f -- \"$t\"; fi; "
    "if ! sz \"$f\" && sz \"$f.new\"; then "
    "chmod 700 \"$f.new\" && mv -f \"$f.new\" \"$f\"; fi; sz \"$f\"; }; "
    "nop() { if [ -L \"$t\" ] || { [ -e \"$t\" ] && [ ! -O \"$t\" ]; }; "
    "then echo \"jobtop-srun: $n: $t is not the user's own file\" >&2; "
    "else echo \"jobtop-srun: $n: the probe did not arrive through "
    "sbcast\" >&2; fi; exit 3; }; "
    "if ! get; then echo \"jobtop-srun-need $n\" >&2; "
    "while ! get; do IFS= read -r l || exit 3; "
    "case $l in jobtop-pushed) get || nop ;; esac; done; fi; "
    "exec \"$f\" \"$@\"";

static void
sr_fail_all(struct sr_group *g, struct sr_run *r, const char *why)
{
	int	i;

	for (i = 0; i < g->nnodes; i++) {
		struct sr_node *nd = g->nodes[i];
		if (nd->freed || nd->run != r)
			continue;
		nd->run = NULL;
		nd->done = nd->failed = 1;
		sr_set(nd, FEED_FAILED, "srun: %.300s", why);
	}
}

/* The srun options and command of one part (a het job component, or the
 * whole job) serving the nodes in hl; appended to argv at *k. */
static char *
sr_run_part(struct sr_group *g, struct hostlist *hl, int comp, char **argv,
    int *k, char (*bufs)[96])
{
	const struct rconf	*rc = g->rc;
	char			*fold = NULL;
	int			 j = *k;

	if (hostlist_fold(hl, &fold) != HL_OK)
		fatal("out of memory");
	snprintf(bufs[0], 96, "--jobid=%s", g->jobid);
	snprintf(bufs[1], 96, "-N%zu", hostlist_count(hl));
	snprintf(bufs[2], 96, "--het-group=%d", g->onecomp >= 0 ?
	    g->onecomp : comp);
	argv[j++] = (char *)(uintptr_t)"--overlap";
	argv[j++] = bufs[0];
	if (g->ncomp > 1 || g->onecomp >= 0)
		argv[j++] = bufs[2];
	argv[j++] = bufs[1];
	argv[j++] = (char *)(uintptr_t)"-w";
	argv[j++] = fold;		/* returned: the caller frees it */
	argv[j++] = (char *)(uintptr_t)"--ntasks-per-node=1";
	argv[j++] = (char *)(uintptr_t)"--kill-on-bad-exit=0";
	argv[j++] = (char *)(uintptr_t)"--chdir=/";
	argv[j++] = (char *)(uintptr_t)"--job-name=jobtop";
	/* Another jobtop on the job never takes this step for ranks. */
	argv[j++] = (char *)(uintptr_t)SR_EXPORT_MARK;
	argv[j++] = (char *)(uintptr_t)"/bin/sh";
	argv[j++] = (char *)(uintptr_t)"-c";
	argv[j++] = (char *)(uintptr_t)sr_script;
	argv[j++] = (char *)(uintptr_t)"jobtop-srun";
	argv[j++] = g->dir;
	argv[j++] = g->file;
	argv[j++] = bufs[3];		/* size */
	argv[j++] = g->stage;
	argv[j++] = (char *)(uintptr_t)"--armour";
	argv[j++] = (char *)(uintptr_t)"--interval";
	argv[j++] = bufs[4];
	argv[j++] = (char *)(uintptr_t)"--watchdog";
	argv[j++] = bufs[5];
	if (rc->owner_known) {
		argv[j++] = (char *)(uintptr_t)"--uid";
		argv[j++] = bufs[6];
	}
	if (rc->step != NULL && *rc->step != '\0') {
		argv[j++] = (char *)(uintptr_t)"--step";
		argv[j++] = rc->step;
	}
	if (rc->sluid != NULL && *rc->sluid != '\0') {
		argv[j++] = (char *)(uintptr_t)"--sluid";
		argv[j++] = rc->sluid;
	}
	argv[j++] = (char *)(uintptr_t)"--job";
	argv[j++] = rc->job;
	*k = j;
	return fold;
}

#define SR_PART_ARGS	34
#define SR_MAX_PARTS	16

/*
 * Start one run for the nodes in want (n of them): one srun, and for a
 * het job one part per component that has nodes in want (srun's "A : B"
 * syntax, --het-group=C each: -N applies per component).
 */
static void
sr_run_start(struct sr_group *g, int *want, int n, uint64_t now)
{
	struct sdemux_hooks	 h;
	struct sr_run		*r;
	struct hostlist		*hl;
	char			**argv, *folds[SR_MAX_PARTS], msg[1024];
	char			 bufs[SR_MAX_PARTS][7][96], err[512];
	int			 i, k = 0, c, nc, nparts = 0;

	nc = g->ncomp > 1 ? g->ncomp : 1;
	if (nc > SR_MAX_PARTS)
		nc = SR_MAX_PARTS;
	argv = xcalloc((size_t)(SR_PART_ARGS + 1) * (size_t)nc + 4,
	    sizeof(*argv));
	argv[k++] = (char *)(uintptr_t)sr_srun_name();
	argv[k++] = (char *)(uintptr_t)"-l";
	argv[k++] = (char *)(uintptr_t)"--input=all";
	argv[k++] = (char *)(uintptr_t)"--quiet";
	msg[0] = '\0';
	for (c = 0; c < nc; c++) {
		hl = hostlist_new();
		for (i = 0; i < n; i++)
			if (g->nodes[want[i]]->comp == c)
				hostlist_push_name(hl,
				    g->nodes[want[i]]->name, err,
				    sizeof(err));
		if (hostlist_count(hl) == 0) {
			hostlist_free(hl);
			continue;
		}
		if (nparts > 0)
			argv[k++] = (char *)(uintptr_t)":";
		snprintf(bufs[nparts][3], 96, "%lld", g->size);
		snprintf(bufs[nparts][4], 96, "%.3f",
		    g->interval_ms / 1000.0);
		snprintf(bufs[nparts][5], 96, "%d", SR_WATCHDOG_S);
		snprintf(bufs[nparts][6], 96, "%lu",
		    (unsigned long)g->rc->owner);
		folds[nparts] = sr_run_part(g, hl, c, argv, &k, bufs[nparts]);
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "%s%s",
		    nparts > 0 ? " : " : "", folds[nparts]);
		hostlist_free(hl);
		nparts++;
	}
	argv[k] = NULL;

	r = xcalloc(1, sizeof(*r));
	r->g = g;
	r->started = now;
	r->ntasks = g->nnodes;
	r->task_node = xcalloc((size_t)r->ntasks, sizeof(int));
	for (i = 0; i < r->ntasks; i++)
		r->task_node[i] = -1;
	memset(&h, 0, sizeof(h));
	h.arg = r;
	h.start = sr_on_start;
	h.data = sr_on_data;
	h.broken = sr_on_broken;
	h.text = sr_on_text;
	r->dm = sdemux_new(&h, (unsigned)r->ntasks);
	log_debug("srun for %d node%s: %s", n, n == 1 ? "" : "s", msg);
	i = sr_spawn(r, argv, err, sizeof(err));
	for (c = 0; c < nparts; c++)
		free(folds[c]);
	free(argv);
	if (i != 0) {
		for (i = 0; i < n; i++)
			g->nodes[want[i]]->run = r;
		sr_fail_all(g, r, err);
		sdemux_free(r->dm);
		free(r->task_node);
		free(r);
		return;
	}
	g->nruns++;
	sr_watch(g, r->sp.out);
	sr_watch(g, r->sp.err);
	r->next = g->runs;
	g->runs = r;
	for (i = 0; i < n; i++) {
		struct sr_node *nd = g->nodes[want[i]];
		nd->run = r;
		nd->retry_at = 0;
		sr_set(nd, FEED_STARTING, "srun");
	}
}

/* The push: sbcast the probe next to its place on every node. */
static void
sr_push_start(struct sr_group *g, uint64_t now)
{
	struct sr_run	*r;
	char		*argv[12], jobarg[96], err[512];
	int		 k = 0, i;

	snprintf(jobarg, sizeof(jobarg), "--jobid=%s", g->jobid);
	argv[k++] = (char *)(uintptr_t)"sbcast";
	argv[k++] = jobarg;
	argv[k++] = (char *)(uintptr_t)"--force";
	argv[k++] = g->rc->probe_path;
	argv[k++] = g->stage;
	argv[k] = NULL;
	r = xcalloc(1, sizeof(*r));
	r->g = g;
	r->push = 1;
	r->started = now;
	if (sr_spawn(r, argv, err, sizeof(err)) != 0) {
		free(r);
		for (i = 0; i < g->nnodes; i++) {
			struct sr_node *nd = g->nodes[i];
			if (nd->need && !nd->freed && !nd->done) {
				nd->need = 0;
				sr_lose(nd, err);
			}
		}
		return;
	}
	sr_close(&r->sp.in);
	log_debug("sbcast %s to %s", g->rc->probe_path, g->stage);
	g->pushing = 1;
	sr_watch(g, r->sp.out);
	sr_watch(g, r->sp.err);
	r->next = g->runs;
	g->runs = r;
}

/* srun's own words on stderr: "srun: error: NODE: task T: Exited ...". */
static void
sr_err_line(struct sr_run *r, char *line)
{
	struct sr_group	*g = r->g;
	struct sr_node	*nd;
	char		*p, *q, name[HOSTLIST_MAX_NAME + 1];
	size_t		 n;

	text_clean_inplace(line);
	if (*line == '\0')
		return;
	/* A task's line: "T: text". */
	p = line;
	while (*p == ' ')
		p++;
	if (*p >= '0' && *p <= '9') {
		q = p + strspn(p, "0123456789");
		if (q[0] == ':' && q[1] == ' ')
			p = q + 2;
		else
			p = line;
	} else
		p = line;
	if (strncmp(p, "jobtop-srun-need ", 17) == 0) {
		if ((nd = sr_find(g, p + 17)) == NULL || nd->run != r)
			return;
		/* Twice pushed and still missing: a lost node, not a
		 * third push at once. */
		if (nd->npush >= 2) {
			sr_why(nd, "the probe did not arrive through sbcast");
			return;
		}
		nd->need = 1;
		nd->need_run = r->started;
		sr_set(nd, FEED_PUSHING, "sbcast");
		log_debug("%s: the probe is not cached there", nd->name);
		return;
	}
	snprintf(r->lasterr, sizeof(r->lasterr), "%s", p);
	/* The task's own "jobtop-srun: NODE: why": the node's reason. */
	if (strncmp(p, "jobtop-srun: ", 13) == 0 &&
	    (n = strcspn(p + 13, ":")) > 0 && n <= HOSTLIST_MAX_NAME &&
	    p[13 + n] == ':') {
		memcpy(name, p + 13, n);
		name[n] = '\0';
		if ((nd = sr_find(g, name)) != NULL && nd->run == r)
			sr_why(nd, p + 13 + n + 1 + (p[14 + n] == ' '));
	}
	n = 0;
	if (strncmp(p, "srun: error: ", 13) == 0) {
		n = strcspn(p + 13, ":");
		if (n == 0 || n > HOSTLIST_MAX_NAME ||
		    strncmp(p + 13 + n, ": task ", 7) != 0)
			n = 0;
	}
	if (n == 0) {
		log_warn("%s%s", r->push ? "sbcast: " : "", p);
		return;
	}
	/* "srun: error: NODE: task T: ...": that node's probe ended. */
	memcpy(name, p + 13, n);
	name[n] = '\0';
	if ((nd = sr_find(g, name)) == NULL || nd->run != r) {
		log_debug("%s", p);
		return;
	}
	if (nd->need)
		log_debug("%s", p);	/* it said why: no probe yet */
	else
		log_warn("%s", p);
	snprintf(name, sizeof(name), "%s", nd->why != NULL ? nd->why : "");
	free(nd->why);
	nd->why = NULL;
	sr_lose(nd, name[0] != '\0' ? name : p + 13 + n + 2);
}

static void
sr_read_err(struct sr_run *r)
{
	char	 chunk[2048], *nl, *p;
	ssize_t	 n;
	size_t	 left, take;

	while (r->sp.err >= 0) {
		n = read(r->sp.err, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			epoll_ctl(r->g->epfd, EPOLL_CTL_DEL, r->sp.err, NULL);
			sr_close(&r->sp.err);
			if (r->errlen > 0) {
				r->errbuf[r->errlen] = '\0';
				sr_err_line(r, r->errbuf);
			}
			r->errlen = 0;
			return;
		}
		p = chunk;
		left = (size_t)n;
		while (left > 0) {
			nl = memchr(p, '\n', left);
			take = nl != NULL ? (size_t)(nl - p) : left;
			if (take > sizeof(r->errbuf) - 1 - r->errlen)
				take = sizeof(r->errbuf) - 1 - r->errlen;
			memcpy(r->errbuf + r->errlen, p, take);
			r->errlen += take;
			if (nl == NULL)
				break;
			r->errbuf[r->errlen] = '\0';
			sr_err_line(r, r->errbuf);
			r->errlen = 0;
			left -= (size_t)(nl - p) + 1;
			p = nl + 1;
		}
	}
}

static void
sr_read_out(struct sr_run *r)
{
	char	 chunk[65536];
	ssize_t	 n;
	int	 k;

	for (k = 0; k < 16 && r->sp.out >= 0; k++) {
		n = read(r->sp.out, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			epoll_ctl(r->g->epfd, EPOLL_CTL_DEL, r->sp.out, NULL);
			sr_close(&r->sp.out);
			if (r->dm != NULL)
				sdemux_end(r->dm);
			return;
		}
		if (r->dm != NULL)
			sdemux_input(r->dm, chunk, (size_t)n);
	}
}

/* Is srun's error Slurm's final word on this job for this user (not a
 * node down or a busy controller, which a retry may get past)? */
static int
sr_refusal(const char *line)
{
	static const char	*const words[] = {
		"Access/permission denied", "Invalid job id",
		"Invalid user id", "already completing or completed",
		"has expired", "Job not found", NULL
	};
	int			 i;

	for (i = 0; words[i] != NULL; i++)
		if (strstr(line, words[i]) != NULL)
			return 1;
	return 0;
}

/* Slurm refused a step to a user who is not the job's owner (a site
 * admin, an operator, a jobtop admin group's member): Slurm's rule, for
 * the refusal's text (jobtop.1, "Admins and launchers"). */
static const char *
sr_rule(const struct sr_group *g, const char *lasterr)
{
	if (g->ra != NULL || !g->rc->owner_known ||
	    g->rc->owner == getuid() ||
	    strstr(lasterr, "Access/permission denied") == NULL)
		return "";
	return " (Slurm creates steps in a job for its owner only: "
	    "AdminLevel and operators do not count; root's jobtop starts "
	    "them as the owner, other admins watch over SSH)";
}

/* A child ended and its pipes are drained: settle its nodes. */
static void
sr_run_ended(struct sr_group *g, struct sr_run *r)
{
	char	 how[SR_LINE + 64];
	int	 i, refused;

	if (WIFEXITED(r->sp.status))
		snprintf(how, sizeof(how), "%s exited with status %d%s%s",
		    r->push ? "sbcast" : "srun", WEXITSTATUS(r->sp.status),
		    r->lasterr[0] != '\0' ? ": " : "", r->lasterr);
	else
		snprintf(how, sizeof(how), "%s killed by signal %d%s%s",
		    r->push ? "sbcast" : "srun", WTERMSIG(r->sp.status),
		    r->lasterr[0] != '\0' ? ": " : "", r->lasterr);
	log_debug("%s", how);
	if (r->push) {
		g->pushing = 0;
		if (r->sp.status == 0)
			g->push_ok_at = sr_now();
		/* The tasks that wait for it look now (and give up if it
		 * did not come). */
		sr_write_all(g, "jobtop-pushed\n");
		for (i = 0; i < g->nnodes; i++) {
			struct sr_node *nd = g->nodes[i];
			if (!nd->need || nd->freed || nd->done)
				continue;
			/* A task that waits in its run takes the copy
			 * itself, or exits 3 when none came. */
			if (nd->run != NULL) {
				nd->need = 0;
				continue;
			}
			nd->need = 0;
			nd->npush++;
			if (r->sp.status == 0) {
				nd->retry_at = sr_now();
				sr_set(nd, FEED_STARTING, "srun");
			} else
				sr_lose(nd, how);
		}
		return;
	}
	/* Slurm refused the step before any probe spoke (not the user's
	 * job, an unknown or ended job): that is the answer, no retry. */
	refused = !r->armour && r->sp.status != 0 && !g->stopping &&
	    strncmp(r->lasterr, "srun: error: ", 13) == 0 &&
	    sr_refusal(r->lasterr);
	for (i = 0; i < g->nnodes; i++) {
		struct sr_node *nd = g->nodes[i];
		if (nd->freed || nd->run != r)
			continue;
		if (refused && !nd->need && g->nruns == 1) {
			nd->run = NULL;
			nd->done = nd->failed = 1;
			sr_set(nd, FEED_REFUSED, "srun: %.300s%s",
			    r->lasterr + 13, sr_rule(g, r->lasterr));
		} else
			sr_lose(nd, how);
	}
}

static void
sr_reap(struct sr_group *g)
{
	struct sr_run	**rp, *r;

	for (rp = &g->runs; (r = *rp) != NULL; ) {
		spawn_reap(&r->sp, 0);
		if (r->sp.pid > 0 || r->sp.out >= 0 || r->sp.err >= 0) {
			rp = &r->next;
			continue;
		}
		*rp = r->next;
		sr_run_ended(g, r);
		sr_run_free(r);
	}
}

static void
sr_write_run(struct sr_run *r, const char *line)
{
	size_t	len = strlen(line);

	if (r->push || r->sp.in < 0)
		return;
	/* A short line fits a pipe whole or not at all. */
	if (write(r->sp.in, line, len) != (ssize_t)len)
		log_debug("srun input: %s", strerror(errno));
}

static void
sr_write_all(struct sr_group *g, const char *line)
{
	struct sr_run	*r;

	for (r = g->runs; r != NULL; r = r->next)
		sr_write_run(r, line);
}

static void
sr_stop_all(struct sr_group *g, uint64_t now)
{
	struct sr_run	*r;
	int		 i;

	if (g->stopping)
		return;
	g->stopping = 1;
	for (r = g->runs; r != NULL; r = r->next) {
		sr_close(&r->sp.in);		/* EOF to every probe */
		r->term_at = now + SR_GRACE_MS;
	}
	for (i = 0; i < g->nnodes; i++) {
		struct sr_node *nd = g->nodes[i];
		if (!nd->freed && !nd->done && nd->run == NULL) {
			nd->done = 1;
			sr_end_stream(nd);
			sr_set(nd, FEED_CLOSED, "%s", "");
		}
	}
}

/* A het job's components from squeue ("J+C NODES" lines): each node's
 * component; g->ncomp 0 for a job that has none. */
static void
sr_components(struct sr_group *g)
{
	char		 cmd[256], line[4096], *sp, *end, err[256];
	struct hostlist	*hl;
	FILE		*f;
	long		 c;
	size_t		 i;
	struct sr_node	*nd;

	g->ncomp = 0;
	if (g->onecomp >= 0 ||
	    strspn(g->rc->job, "0123456789") != strlen(g->rc->job))
		return;
	snprintf(cmd, sizeof(cmd), "squeue -h -j %s -o '%%i %%N' 2>/dev/null",
	    g->rc->job);
	if ((f = popen(cmd, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((sp = strchr(line, '+')) == NULL)
			continue;
		c = strtol(sp + 1, &end, 10);
		if (*end != ' ' || c < 0 || c >= SR_MAX_PARTS)
			continue;
		if (c + 1 > g->ncomp)
			g->ncomp = (int)c + 1;
		if (g->comps[c] != NULL || (hl = hostlist_new()) == NULL)
			continue;
		if (hostlist_push(hl, end + 1, err, sizeof(err)) == HL_OK)
			for (i = 0; i < hostlist_count(hl); i++)
				if ((nd = sr_find(g, hostlist_get(hl, i))))
					nd->comp = (int)c;
		g->comps[c] = hl;
	}
	pclose(f);
	if (g->ncomp > 0)
		log_debug("job %s has %d components", g->rc->job, g->ncomp);
}

/* The het component a node is in (0 when none is known). */
static int
sr_comp_of(struct sr_group *g, const char *host)
{
	int	c;

	for (c = 0; c < g->ncomp && c < SR_MAX_PARTS; c++)
		if (g->comps[c] != NULL &&
		    hostlist_find(g->comps[c], host) >= 0)
			return c;
	return 0;
}

static void
sr_start(struct sr_group *g, uint64_t now)
{
	const char	*name = rconf_probe_name(g->rc);
	size_t		 size;
	int		*want, n = 0, i;

	g->started = 1;
	snprintf(g->dir, sizeof(g->dir), "/tmp/jobtop-%lu",
	    (unsigned long)(g->ra != NULL ? g->ra->uid : getuid()));
	/* "jobtop-probe-HASH" there is "probe-HASH" here. */
	snprintf(g->file, sizeof(g->file), "%s",
	    strncmp(name, "jobtop-", 7) == 0 ? name + 7 : name);
	snprintf(g->stage, sizeof(g->stage), "%s-%s.new", g->dir, g->file);
	rconf_probe_data(g->rc, &size);
	g->size = (long long)size;
	/* One component of a het job ("123+1"): srun takes the job and
	 * --het-group=1. */
	snprintf(g->jobid, sizeof(g->jobid), "%.*s",
	    (int)strcspn(g->rc->job, "+"), g->rc->job);
	g->onecomp = -1;
	if (g->rc->job[strlen(g->jobid)] == '+')
		g->onecomp = atoi(g->rc->job + strlen(g->jobid) + 1);
	sr_components(g);
	g->next_alive = now + SR_ALIVE_MS;
	want = xcalloc((size_t)g->nnodes, sizeof(int));
	for (i = 0; i < g->nnodes; i++)
		if (!g->nodes[i]->freed && !g->nodes[i]->done)
			want[n++] = i;
	if (n > 0)
		sr_run_start(g, want, n, now);
	free(want);
}

/* Everything the group does: read, reap, push, restart, heartbeat. */
static void
sr_pump(struct sr_group *g, uint64_t now)
{
	struct epoll_event	 evs[16];
	struct sr_run		*r;
	int			*want, n = 0, i, need = 0, due = 0;

	if (!g->started)
		sr_start(g, now);
	while (epoll_wait(g->epfd, evs, 16, 0) > 0)
		for (r = g->runs; r != NULL; r = r->next) {
			sr_read_out(r);
			sr_read_err(r);
		}
	for (r = g->runs; r != NULL; r = r->next) {
		sr_read_out(r);
		sr_read_err(r);
		if (r->sp.pid > 0 && r->term_at != 0 && now >= r->term_at &&
		    r->kill_at == 0) {
			kill(r->sp.pid, SIGTERM);
			r->kill_at = now + SR_KILL_MS;
		} else if (r->sp.pid > 0 && r->kill_at != 0 &&
		    now >= r->kill_at)
			spawn_kill(&r->sp, SIGKILL);
	}
	sr_reap(g);
	if (g->stopping)
		goto out;
	if (now >= g->next_alive) {
		sr_write_all(g, "alive\n");
		g->next_alive = now + SR_ALIVE_MS;
	}
	want = xcalloc((size_t)g->nnodes, sizeof(int));
	for (i = 0; i < g->nnodes; i++) {
		struct sr_node *nd = g->nodes[i];
		if (nd->freed || nd->done || nd->stopped)
			continue;
		/* sbcast writes to every node of the job: a node whose
		 * task looked before the last good push ended only needs to
		 * look again (at 128 nodes the tasks' need lines came over
		 * 3 s, and each late one started a new sbcast: 5 in all);
		 * a task that still waits in its run finds it itself. */
		if (nd->need && !g->pushing && nd->need_run < g->push_ok_at) {
			nd->need = 0;
			if (nd->run == NULL) {
				want[n++] = i;
				due = 1;
			} else
				sr_write_run(nd->run, "jobtop-pushed\n");
		} else if (nd->need)
			need++;
		else if (nd->run == NULL && nd->retry_at != 0 &&
		    nd->retry_at <= now + SR_SLACK_MS) {
			due |= nd->retry_at <= now;
			want[n++] = i;
		}
	}
	/* Nodes lost together (a failed sbcast, a step that could not
	 * start) come back in one run, not one srun each a few ms apart:
	 * at 128 lab nodes 30 sruns and sbcasts at once overloaded the
	 * slurmds (their 2 s TCPTimeout passed), which lost more nodes. */
	if (!due)
		n = 0;
	if (need > 0 && !g->pushing)
		sr_push_start(g, now);
	if (n > 0)
		sr_run_start(g, want, n, now);
	free(want);
out:
	if (g->kick) {
		g->kick = 0;
		raise(SIGCHLD);	/* the session steps every node */
	}
}

/* Milliseconds until the group needs a pump. */
static int
sr_group_timeout(struct sr_group *g, uint64_t now)
{
	struct sr_run	*r;
	uint64_t	 next = UINT64_MAX;
	int		 i;

	if (!g->started)
		return 0;
	if (!g->stopping && g->runs != NULL)
		next = g->next_alive;
	for (r = g->runs; r != NULL; r = r->next) {
		if (r->kill_at != 0 && r->kill_at < next)
			next = r->kill_at;
		else if (r->term_at != 0 && r->kill_at == 0 &&
		    r->term_at < next)
			next = r->term_at;
		/* A child whose pipes closed: reap it soon. */
		if (r->sp.out < 0 && r->sp.err < 0 && now + 100 < next)
			next = now + 100;
	}
	for (i = 0; i < g->nnodes && !g->stopping; i++) {
		struct sr_node *nd = g->nodes[i];
		if (!nd->freed && !nd->done && nd->run == NULL &&
		    nd->retry_at != 0 && nd->retry_at < next)
			next = nd->retry_at;
	}
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}

/* The node that polls for the group: the first one not done. */
static struct sr_node *
sr_owner(struct sr_group *g)
{
	int	i;

	for (i = 0; i < g->nnodes; i++)
		if (!g->nodes[i]->freed && !g->nodes[i]->done)
			return g->nodes[i];
	return NULL;
}

/* --- the feed operations ---------------------------------------------- */

static int
sr_pollfds(struct feed *f, struct pollfd *p)
{
	struct sr_node	*nd = f->impl;
	int		 n = 0;

	if (sr_owner(nd->g) == nd) {
		p[0].fd = nd->g->epfd;
		p[0].events = POLLIN;
		n = 1;
	}
	if (nd->x != NULL)
		n += feed_cmd_pollfds(nd->x, p + n);
	return n;
}

static int
sr_pending(const struct sr_node *nd)
{
	return nd->off < nd->len || nd->end_at != (size_t)-1;
}

static int
sr_timeout(struct feed *f, uint64_t now)
{
	struct sr_node	*nd = f->impl;
	int		 t = -1, tx;

	if (sr_pending(nd))
		return 0;
	if (sr_owner(nd->g) == nd)
		t = sr_group_timeout(nd->g, now);
	if (nd->x != NULL && (tx = feed_cmd_timeout(nd->x, now)) >= 0 &&
	    (t < 0 || tx < t))
		t = tx;
	return t;
}

static void
sr_step(struct feed *f, uint64_t now, const struct pollfd *p, int n)
{
	struct sr_node	*nd = f->impl;

	if (nd->x != NULL) {
		feed_cmd_step(nd->x, now);
		feed_cmd_reap(&nd->x);
	}
	if (sr_owner(nd->g) == nd || !nd->g->started)
		sr_pump(nd->g, now);
}

static ssize_t
sr_read(struct feed *f, void *buf, size_t size)
{
	struct sr_node	*nd = f->impl;
	size_t		 lim;

	lim = nd->end_at != (size_t)-1 ? nd->end_at : nd->len;

	if (nd->off < lim) {
		if (size > lim - nd->off)
			size = lim - nd->off;
		memcpy(buf, nd->buf + nd->off, size);
		nd->off += size;
		return (ssize_t)size;
	}
	if (nd->end_at != (size_t)-1) {
		nd->end_at = (size_t)-1;
		return -1;
	}
	if (nd->off == nd->len) {
		nd->off = nd->len = 0;
		/* Drained: the buffer goes back (a thousand nodes each kept
		 * twice their largest burst otherwise), as pstream's does. */
		free(nd->buf);
		nd->buf = NULL;
		nd->cap = 0;
	}
	return 0;
}

static void
sr_stop(struct feed *f)
{
	struct sr_node	*nd = f->impl;
	struct sr_group	*g = nd->g;
	int		 i;

	nd->stopped = 1;
	if (!nd->done && nd->run == NULL) {
		nd->done = 1;
		sr_set(nd, FEED_CLOSED, "%s", "");
	} else if (!nd->done)
		sr_set(nd, FEED_STOPPING, "%s", "");
	for (i = 0; i < g->nnodes; i++)
		if (!g->nodes[i]->freed && !g->nodes[i]->stopped)
			return;
	sr_stop_all(g, sr_now());
}

static int
sr_done(struct feed *f)
{
	struct sr_node	*nd = f->impl;

	return nd->done && !sr_pending(nd);
}

static enum feed_phase
sr_phase(struct feed *f, const char **why)
{
	struct sr_node	*nd = f->impl;

	*why = nd->state != NULL ? nd->state : "";
	return nd->phase;
}

static enum feed_fail
sr_failure(struct feed *f)
{
	struct sr_node	*nd = f->impl;

	return nd->failed ? FEED_FAIL_OTHER : FEED_FAIL_NONE;
}

static int
sr_set_interval(struct feed *f, unsigned ms)
{
	struct sr_node	*nd = f->impl;
	char		 line[64];

	if (nd->g->interval_ms != ms) {
		nd->g->interval_ms = ms;
		snprintf(line, sizeof(line), "interval %u\n", ms);
		sr_write_all(nd->g, line);
	}
	return nd->done || nd->stopped ? -1 : 0;
}

/* A side command (a backtrace) on the node: a second, short srun step on
 * that node alone, run by the feed_cmd helper and stepped by this node's
 * feed. */
static struct feed_exec *
sr_exec_start(struct feed *f, const char *cmd, size_t cap,
    unsigned timeout_ms, char *err, size_t errsz)
{
	struct sr_node		*nd = f->impl;
	struct spawn_req	 rq;
	char			*argv[16], path[4096], jobarg[96];
	char			**envp;
	char			 wl[HOSTLIST_MAX_NAME + 8];
	int			 k = 0;

	if (nd->x != NULL) {
		snprintf(err, errsz, "a command already runs on %s", nd->name);
		return NULL;
	}
	if (fs_which(sr_srun_name(), path, sizeof(path)) != 0) {
		snprintf(err, errsz, "srun is not in PATH");
		return NULL;
	}
	snprintf(jobarg, sizeof(jobarg), "--jobid=%s", nd->g->jobid[0] != '\0' ?
	    nd->g->jobid : nd->g->rc->job);
	snprintf(wl, sizeof(wl), "-w%s", nd->name);
	argv[k++] = path;
	argv[k++] = (char *)(uintptr_t)"--overlap";
	argv[k++] = jobarg;
	argv[k++] = wl;
	argv[k++] = (char *)(uintptr_t)"-N1";
	argv[k++] = (char *)(uintptr_t)"-n1";
	argv[k++] = (char *)(uintptr_t)"--quiet";
	argv[k++] = (char *)(uintptr_t)"--chdir=/";
	argv[k++] = (char *)(uintptr_t)"--job-name=jobtop";
	argv[k++] = (char *)(uintptr_t)SR_EXPORT_MARK;
	argv[k++] = (char *)(uintptr_t)"/bin/sh";
	argv[k++] = (char *)(uintptr_t)"-c";
	argv[k++] = (char *)(uintptr_t)cmd;
	argv[k] = NULL;
	/* Like the probe's step: without the monitor's SLURM_* and, as
	 * root on another user's job, as that user (Slurm refuses root's
	 * own step in it), in his home and environment. */
	memset(&rq, 0, sizeof(rq));
	rq.path = path;
	rq.argv = argv;
	rq.envp = envp = sr_env(nd->g->ra);
	runas_req(nd->g->ra, &rq);
	nd->x = feed_cmd_start_req(&rq, cap, timeout_ms, err, errsz);
	free(envp);
	return nd->x;
}

static void
sr_group_free(struct sr_group *g)
{
	struct sr_group	**gp;
	struct sr_run	 *r;
	uint64_t	  until = sr_now() + 2000;
	int		  i;

	/* Ask politely first: srun ends its step on SIGTERM. */
	for (r = g->runs; r != NULL; r = r->next) {
		sr_close(&r->sp.in);
		if (r->sp.pid > 0)
			kill(r->sp.pid, SIGTERM);
	}
	for (r = g->runs; r != NULL; r = r->next)
		while (!spawn_reap(&r->sp, 0) && sr_now() < until)
			usleep(20000);
	while ((r = g->runs) != NULL) {
		g->runs = r->next;
		sr_run_free(r);
	}
	for (gp = &sr_groups; *gp != NULL; gp = &(*gp)->next)
		if (*gp == g) {
			*gp = g->next;
			break;
		}
	for (i = 0; i < SR_MAX_PARTS; i++)
		hostlist_free(g->comps[i]);
	close(g->epfd);
	free(g->nodes);
	free(g);
}

static void
sr_free(struct feed *f)
{
	struct sr_node	*nd = f->impl;
	struct sr_group	*g = nd->g;
	int		 i;

	nd->freed = 1;
	if (nd->x != NULL)
		feed_cmd_disown(&nd->x);
	for (i = 0; i < g->nnodes; i++)
		if (!g->nodes[i]->freed)
			break;
	if (i == g->nnodes) {
		for (i = 0; i < g->nnodes; i++) {
			free(g->nodes[i]->name);
			free(g->nodes[i]->buf);
			free(g->nodes[i]->state);
			free(g->nodes[i]->why);
			free(g->nodes[i]);
		}
		sr_group_free(g);
	}
}

/* "srun", or "srun as jtuser" when root watches as the job's owner. */
static const char *
sr_transport(struct feed *f)
{
	struct sr_node	*nd = f->impl;

	return nd->g->tname;
}

static const struct feed_ops feed_srun_ops = {
	.name = "srun",
	.pollfds = sr_pollfds,
	.timeout = sr_timeout,
	.step = sr_step,
	.read = sr_read,
	.stop = sr_stop,
	.done = sr_done,
	.phase = sr_phase,
	.failure = sr_failure,
	.set_interval = sr_set_interval,
	.exec_start = sr_exec_start,
	.transport = sr_transport,
	.free = sr_free,
};

struct feed *
feed_new_srun(const struct rconf *rc, const char *host, char *err,
    size_t errsz)
{
	struct sr_group	*g;
	struct sr_node	*nd;

	if (rc->job == NULL || *rc->job == '\0') {
		snprintf(err, errsz, "the srun transport needs a Slurm job "
		    "(-w names hosts, not a job)");
		return NULL;
	}
	/* Nodes that come later (the ladder moves them one by one) join
	 * the job's group and share its next srun. */
	for (g = sr_groups; g != NULL; g = g->next)
		if (g->rc == rc && !g->stopping)
			break;
	if (g == NULL) {
		const struct runas	*ra = NULL;
		char			 who[512];

		/* Root on another user's job: Slurm makes steps for the
		 * job's owner only, so every child becomes him. */
		if (runas_wanted(rc)) {
			if ((ra = runas_get(rc, who, sizeof(who))) == NULL) {
				snprintf(err, errsz, "srun: cannot start the "
				    "step as the job's owner: %s", who);
				return NULL;
			}
			/* sbcast reads the probe as the owner. */
			if (!runas_can_read(ra, rc->probe_path)) {
				snprintf(err, errsz, "srun: sbcast runs as "
				    "%s, the job's owner, who cannot read "
				    "the probe %s (make it and its "
				    "directories readable by all)", ra->name,
				    rc->probe_path);
				return NULL;
			}
		}
		g = xcalloc(1, sizeof(*g));
		g->rc = rc;
		g->ra = ra;
		if (ra != NULL) {
			snprintf(g->tname, sizeof(g->tname), "srun %s",
			    ra->says);
			runas_describe(ra, who, sizeof(who));
			log_debug("job %s is uid %lu's: root starts its srun "
			    "step as %s", rc->job, (unsigned long)rc->owner,
			    who);
		} else
			snprintf(g->tname, sizeof(g->tname), "srun");
		g->interval_ms = (unsigned)(rc->interval * 1000 + 0.5);
		if ((g->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
			fatal("epoll_create1: %s", strerror(errno));
		g->next = sr_groups;
		sr_groups = g;
	}
	if (g->nnodes == g->cap) {
		g->cap = g->cap > 0 ? g->cap * 2 : 16;
		g->nodes = xreallocarray(g->nodes, (size_t)g->cap,
		    sizeof(*g->nodes));
	}
	nd = xcalloc(1, sizeof(*nd));
	nd->g = g;
	nd->idx = g->nnodes;
	nd->name = xstrdup(host);
	nd->end_at = (size_t)-1;
	g->nodes[g->nnodes++] = nd;
	sr_set(nd, FEED_STARTING, "srun");
	if (g->started) {
		nd->comp = sr_comp_of(g, host);
		nd->retry_at = sr_now() + SR_BATCH_MS;
	}
	return feed_alloc(&feed_srun_ops, nd);
}

int
feed_srun_usable(const struct rconf *rc, const char *host, char *why,
    size_t whysz)
{
	char	path[4096];

	(void)host;
	if (rc->job == NULL || *rc->job == '\0' || rc->sched == NULL ||
	    strcmp(rc->sched, sched_slurm.name) != 0) {
		snprintf(why, whysz, "srun: not a Slurm job");
		return -1;
	}
	if (fs_which(sr_srun_name(), path, sizeof(path)) != 0) {
		snprintf(why, whysz, "srun: %s is not in PATH",
		    sr_srun_name());
		return -1;
	}
	return 0;
}

/* Did SSH itself refuse this user (not a slow or broken link)? */
static int
sr_ssh_refused(const char *cur, enum feed_fail fail, const char *reason)
{
	static const char	*const words[] = {
		"pam_slurm_adopt", "Access denied", "Permission denied",
		"Connection refused", "not allowed", "DenyUsers", NULL
	};
	int			 i;

	/* Authentication refused where the ladder found nothing another
	 * SSH client could do (the ssh client's own refusal, or libssh2's
	 * with keys OpenSSH would offer the same way): SSH is closed to
	 * this user, as with DenyUsers. */
	if (fail == FEED_FAIL_DENIED || fail == FEED_FAIL_AUTH)
		return 1;
	for (i = 0; reason != NULL && words[i] != NULL; i++)
		if (strstr(reason, words[i]) != NULL)
			return 1;
	return 0;
}

int
feed_srun_is(const char *name)
{
	return strcmp(name, "srun") == 0;
}

const char *
feed_srun_ladder(const struct rconf *rc, const char *host, const char *cur,
    enum feed_fail fail, const char *reason, char *why, size_t whysz)
{
	char	tmp[256];

	if (fail == FEED_FAIL_NONE || !feed_transport_has(cur, FEED_T_SSH) ||
	    !sr_ssh_refused(cur, fail, reason) ||
	    feed_srun_usable(rc, host, tmp, sizeof(tmp)) != 0)
		return NULL;
	snprintf(why, whysz, "%s: %s; the node is reached through Slurm's "
	    "srun instead", cur, reason != NULL && *reason != '\0' ? reason :
	    "refused");
	return "srun";
}

void
feed_srun_command(const struct rconf *rc, const char *host, char *buf,
    size_t size)
{
	const struct runas	*ra = NULL;
	const char		*name = rconf_probe_name(rc);
	const char		*job = rc->job != NULL ? rc->job : "";
	char			 err[256], uidarg[48] = "";

	if (runas_wanted(rc))
		ra = runas_get(rc, err, sizeof(err));
	if (rc->owner_known)
		snprintf(uidarg, sizeof(uidarg), " --uid %lu",
		    (unsigned long)rc->owner);
	snprintf(buf, size, "%s -l --input=all --quiet --overlap "
	    "--jobid=%.*s -N1 -w %s --ntasks-per-node=1 --job-name=jobtop "
	    SR_EXPORT_MARK " /bin/sh -c '<cache script>' jobtop-srun /tmp/jobtop-%lu %s ... "
	    "--armour%s --job %s", sr_srun_name(), (int)strcspn(job, "+"),
	    job, host, (unsigned long)(ra != NULL ? ra->uid : getuid()),
	    strncmp(name, "jobtop-", 7) == 0 ? name + 7 : name, uidarg, job);
}

int
feed_srun_first(const struct rconf *rc, char *why, size_t whysz)
{
	char	tmp[256], ssh[64];

	if (rc->nnodes <= FEED_SRUN_NODES ||
	    feed_srun_usable(rc, NULL, tmp, sizeof(tmp)) != 0)
		return 0;
	/* 95 MiB and 3.9% of a core for 1024 nodes over libssh2 (issue 10),
	 * one socket each; the ssh client is a process per node. */
	snprintf(why, whysz, "%s: the job has %zu nodes (more than %d): one "
	    "SSH session per node would hold %zu sockets and about %zu MiB on "
	    "this host; one srun serves them all", feed_transports_with(
	    FEED_T_SSH, ssh, sizeof(ssh)), rc->nnodes, FEED_SRUN_NODES,
	    rc->nnodes, rc->nnodes * 95 / 1024);
	return 1;
}
