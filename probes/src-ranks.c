/* SPDX-License-Identifier: ISC */
/*
 * ranks: the job's processes on this node, one instance of group "rank"
 * per process, named by its pid in decimal.  probes/ranks-find.c decides
 * which processes those are; this file keeps them in a static table and
 * samples them.
 *
 * Cost is what matters here: a job may have a hundred ranks on a node and
 * the probe must cost little more than reading their files.  Each tracked
 * process keeps its files open (the first RK_KEEP processes, within the
 * descriptor limit, which init raises to its hard maximum); the others are
 * opened, read and closed each time.  Every file is read with one pread
 * into a static buffer: these proc files are produced whole by one read.
 * Every sample reads stat and the main thread's schedstat.  When schedstat
 * shows that the main thread has neither run nor been switched since the
 * last sample (same run time, same switch-in count) and its state letter
 * is the same, what only it can change is unchanged, and status (for the
 * context switch counts), wchan and syscall are not read again; io, which
 * counts every thread, is skipped that way only for a single-threaded
 * process that is not running.  wchan and syscall are read only for a
 * process not in state R; a running one reports syscall -1, as the file
 * itself would ("running").
 *
 * The kernel stack (/proc/PID/stack, readable only with CAP_SYS_ADMIN: the
 * kstack source below says whether it is) is read for a process in state
 * D or S, like wchan only when the process ran or switched since, and
 * sent compactly: the function names of the top RK_KSTACK_FRAMES frames
 * without offsets, innermost first, joined by " < ", and only when it
 * changed.
 *
 * Values: rss is stat's resident pages times the page size, free to read
 * as stat is read anyway.  Since Linux 6.2 the kernel keeps that count per
 * CPU and stat shows the cached total, which can trail status's VmRSS and
 * statm (exact sums, what procps-ng 4's ps shows) by up to a per-CPU batch
 * of pages per CPU: 172 KiB for a sleep on a 2-CPU machine.  vol_ctxsw and
 * invol_ctxsw are the main thread's, as status reports them; read_bytes and write_bytes are the storage I/O of
 * /proc/PID/io, absent when it is not readable (another user's process);
 * syscall is the first field of /proc/PID/syscall, absent when it is not
 * readable (ptrace rules).
 *
 * A rank is its process tree (ranks.h): each folded child costs its stat
 * and schedstat every sample, and its io as the rank's own (skipped when
 * schedstat says it did not run); its status, wchan, syscall and stack are
 * never read.  The rank's counters are the sums over the tree, its
 * reaped children's included (stat's cutime, cstime, cminflt, cmajflt;
 * /proc/PID/io counts them already).  blkio_delay is stat's field 42 and
 * rq_delay schedstat's second field, of each process's main thread.
 *
 * Without --job and as root, every process is tracked but only the
 * RANKS_TOP busiest are reported: by CPU time used since the previous
 * sample, and on the first sample (or a process's first) by CPU time since
 * it started.  With --job, the job's processes are shown by step class
 * (see ranks.h): the tasks of its parallel steps, else its batch step,
 * else its extern step.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ranks.h"

#define RK_KEEP		1024	/* processes whose files stay open */
#define RK_FD_RESERVE	64	/* descriptors left for the rest */
#define RANKS_TOP	32	/* root without --job: processes shown */
#define RK_WCHAN_MAX	48
#define RK_KSTACK_MAX	200	/* the compact kernel stack, with the NUL */
#define RK_KSTACK_FRAMES 8

enum {
	F_RANK, F_PID, F_PPID, F_STEP, F_STATE, F_COMM, F_UTIME, F_STIME,
	F_RSS, F_VSIZE, F_THREADS, F_MINFLT, F_MAJFLT, F_READ_BYTES,
	F_WRITE_BYTES, F_VOL_CTXSW, F_INVOL_CTXSW, F_WCHAN, F_SYSCALL,
	F_PROCESSOR, F_START_TIME, F_RANK_VAR, F_KSTACK, F_HELPER, F_PROCS, F_BLKIO_DELAY,
	F_RQ_DELAY, F_PEAK_RSS, F_PEAK_CPU, F_UID, F_CWD, F_CMDLINE, F_WORLD,
	F_NSPID, F_CONTAINER, F_CPUS_ALLOWED,
	F_NFIELDS
};

static const struct field_def ranks_fields[F_NFIELDS] = {
	{ "rank",		"",		PF_GAUGE },
	{ "pid",		"",		PF_GAUGE },
	{ "ppid",		"",		PF_GAUGE },
	{ "step",		"",		PF_STRING },
	{ "state",		"",		PF_STRING },
	{ "comm",		"",		PF_STRING },
	{ "utime",		"jiffies",	PF_COUNTER },
	{ "stime",		"jiffies",	PF_COUNTER },
	{ "rss",		"bytes",	PF_GAUGE },
	{ "vsize",		"bytes",	PF_GAUGE },
	{ "threads",		"count",	PF_GAUGE },
	{ "minflt",		"count",	PF_COUNTER },
	{ "majflt",		"count",	PF_COUNTER },
	{ "read_bytes",		"bytes",	PF_COUNTER },
	{ "write_bytes",	"bytes",	PF_COUNTER },
	{ "vol_ctxsw",		"count",	PF_COUNTER },
	{ "invol_ctxsw",	"count",	PF_COUNTER },
	{ "wchan",		"",		PF_STRING },
	{ "syscall",		"",		PF_GAUGE },
	{ "processor",		"",		PF_GAUGE },
	{ "start_time",		"jiffies",	PF_GAUGE },
	/* The fifth short string (PINST_STRS); kstack, cwd and cmdline
	 * are long texts. */
	{ "rank_var",		"",		PF_STRING },
	{ "kstack",		"",		PF_STRING },
	{ "helper",		"",		PF_GAUGE },
	{ "procs",		"count",	PF_GAUGE },
	{ "blkio_delay",	"jiffies",	PF_COUNTER },
	{ "rq_delay",		"ns",		PF_COUNTER },
	{ "peak_rss",		"bytes",	PF_GAUGE },
	{ "peak_cpu",		"centi",	PF_GAUGE },
	{ "uid",		"",		PF_GAUGE },
	{ "cwd",		"",		PF_STRING },
	{ "cmdline",		"",		PF_STRING },
	{ "world",		"count",	PF_GAUGE },
	/* A rank in a container: its pid there, and the container
	 * (ranks_set_container; a long text). */
	{ "nspid",		"",		PF_GAUGE },
	{ "container",		"",		PF_STRING },
	/* Its affinity (status's Cpus_allowed_list): how many CPUs it may
	 * run on (one: the CPU it runs on, processor, is that one). */
	{ "cpus_allowed",	"count",	PF_GAUGE },
};
static const struct group_def ranks_group = {
	"rank", ranks_fields, F_NFIELDS
};
static const struct group_def *ranks_groups[] = { &ranks_group, NULL };

/* The files of a process the source reads. */
enum {
	RK_STAT, RK_SCHED, RK_STATUS, RK_IO, RK_WCHAN, RK_SYSCALL, RK_STACK,
	RK_NFILES
};
static const char *const ranks_files[RK_NFILES] = {
	"stat", "schedstat", "status", "io", "wchan", "syscall", "stack"
};
#define RK_FD_NONE	-1	/* not open: open it when it is read */
#define RK_FD_BAD	-2	/* not readable: do not try again */

/* Values read from the files other than stat: present when the bit is. */
#define RK_HAS_CTX	0x01
#define RK_HAS_IO	0x02
#define RK_HAS_WCHAN	0x04
#define RK_HAS_SYSCALL	0x08
#define RK_HAS_KSTACK	0x10
#define RK_HAS_WAIT	0x20	/* schedstat's run-queue wait */
#define RK_HAS_CMD	0x40	/* cmdline */
#define RK_HAS_CWD	0x80

/*
 * A rank's totals over its process tree, as reported: counters never go
 * back (a folded child that exits unreaped by the rank, or that ends
 * between the rank's read and its own, would make them), so each is the
 * most reported so far.
 */
struct ranks_tree {
	uint64_t	 utime, stime, minflt, majflt, rbytes, wbytes;
	uint64_t	 blkio, wait_ns;
	uint64_t	 rss;		/* bytes, a gauge: as it is */
	uint64_t	 threads;
	uint8_t		 has_io, has_wait;
};

struct ranks_proc {
	pid_t		 pid;
	uint64_t	 start;
	int64_t		 rank;		/* -1: none */
	uint32_t	 step;
	int32_t		 top;		/* RANKS_ROLE_CHILD: its rank's slot */
	int32_t		 kid;		/* a rank: its first folded child */
	int32_t		 sib;		/* a child: the rank's next one */
	int		 fd[RK_NFILES];
	uint8_t		 used;
	uint8_t		 role;		/* RANKS_ROLE_* */
	uint8_t		 prio;		/* RANKS_PRIO_*: its id's variable */
	uint8_t		 keep;		/* files stay open */
	uint8_t		 has;		/* RK_HAS_* */
	uint8_t		 syscall_tried;	/* its syscall file was read */
	uint8_t		 kstack_new;	/* kstack changed since reported */
	char		 state;		/* at the last sample */
	uint64_t	 seen;		/* sample last reported in */
	uint64_t	 kseen;		/* a child: sample last read in */
	uint64_t	 run_ns;	/* schedstat at the last sample */
	uint64_t	 wait_ns;	/* ... run-queue wait */
	uint64_t	 pcount;
	struct ranks_tree out;		/* a rank's reported totals */
	unsigned	 nprocs;	/* live processes in its tree */
	uint64_t	 cpu;		/* utime + stime, or UINT64_MAX */
	uint64_t	 vcsw, ivcsw, rbytes, wbytes;
	int64_t		 syscall;
	char		 wchan[RK_WCHAN_MAX];
	char		 kstack[RK_KSTACK_MAX];
	char		 name[12];	/* the pid in decimal */
	char		 stepname[16];
	char		 comm[16];	/* when it was found */
	/* Peaks (a rank's tree): the most seen at a sample or a check
	 * between samples (ranks_subsample), and its own VmHWM. */
	uint64_t	 peak_rss;	/* bytes */
	uint64_t	 peak_cpu;	/* hundredths of a percent of a CPU */
	uint64_t	 pk_ticks;	/* tree CPU ticks at the last check */
	uint64_t	 pk_us;		/* its time (monotonic), 0: none */
	int64_t		 uid;		/* status's real uid, -1 unknown */
	int64_t		 allowed;	/* CPUs in its affinity, -1 unknown */
	int64_t		 amask;		/* ... as bits, -1 unknown or >62 */
	int64_t		 world;		/* the launcher's world size, -1 */
	const char	*rank_var;	/* the variable of its id, or NULL */
	uint8_t		 cmd_new, cwd_new;	/* changed since reported */
	uint8_t		 pk_ok;		/* peak_cpu has a window */
	uint8_t		 quiet;		/* main thread idle at the sample */
	uint8_t		 single;	/* one thread, no folded child */
	uint8_t		 sub_ok;	/* sub_run and sub_pcount are set */
	uint64_t	 sub_run, sub_pcount;	/* schedstat, last read */
	uint64_t	 act;		/* samples it was seen running in */
	char		 cmd_comm[16];	/* comm when cmdline was read */
	char		 cmdline[PROTO_TEXT_MAX];	/* NULs as spaces */
	char		 cwd[PROTO_TEXT_MAX];
	int64_t		 nspid;		/* pid in its PID namespace, or -1 */
	uint8_t		 ctr_new;
	char		 container[RANKS_CTR_MAX];	/* "" none */
};

/* A candidate for the busiest processes (root without --job). */
struct ranks_top {
	uint64_t		 delta;
	uint64_t		 cpu;
	struct ranks_proc	*rp;
	struct ranks_stat	 st;
};

static struct ranks_proc ranks_procs[RANKS_MAX];
static unsigned		 ranks_hw;	/* slots in use are below */
static unsigned		 ranks_nfds;	/* descriptors held open */
static unsigned		 ranks_fd_budget;
static uint64_t		 ranks_seq;	/* samples taken */
static uint32_t		 ranks_page_size;
static uint32_t		 ranks_clk_tck, ranks_ncpu;
static int		 ranks_busiest;	/* root without --job */
static int		 ranks_by_class;	/* --job */
static uint32_t		 ranks_only_step = RANKS_STEP_NONE; /* --step */
static int		 ranks_kstack;	/* /proc/PID/stack is readable */
static int		 ranks_delayacct; /* stat's field 42 is kept */
static char		 ranks_buf[8192];
static char		 ranks_how[PROTO_TEXT_MAX];	/* ranks-found */
static int		 ranks_how_sent;
static struct ranks_top	 ranks_top[RANKS_TOP];

int
ranks_parse_stat(const char *buf, struct ranks_stat *st)
{
	const char	*l, *r, *p, *q;
	int64_t		 v;
	size_t		 len;
	unsigned	 f;

	/* The command may hold spaces and parentheses: it ends at the last
	 * ')' of the line. */
	memset(st, 0, sizeof(*st));
	if ((l = strchr(buf, '(')) == NULL || (r = strrchr(buf, ')')) == NULL ||
	    r < l || r[1] != ' ')
		return -1;
	len = (size_t)(r - l - 1);
	if (len >= sizeof(st->comm))
		len = sizeof(st->comm) - 1;
	memcpy(st->comm, l + 1, len);
	st->comm[len] = '\0';
	p = r + 2;
	if (*p < 'A' || *p > 'z')
		return -1;
	st->state = *p++;
	st->processor = -1;
	for (f = 4; f <= 42; f++) {
		if ((q = probe_parse_i64(p, &v)) == NULL)
			break;
		p = q;
		switch (f) {
		case 4:
			st->ppid = v;
			break;
		case 9:
			st->flags = (uint64_t)v;
			break;
		case 10:
			st->minflt = (uint64_t)v;
			break;
		case 11:
			st->cminflt = (uint64_t)v;
			break;
		case 12:
			st->majflt = (uint64_t)v;
			break;
		case 13:
			st->cmajflt = (uint64_t)v;
			break;
		case 14:
			st->utime = (uint64_t)v;
			break;
		case 15:
			st->stime = (uint64_t)v;
			break;
		case 16:
			st->cutime = (uint64_t)(v > 0 ? v : 0);
			break;
		case 17:
			st->cstime = (uint64_t)(v > 0 ? v : 0);
			break;
		case 20:
			st->threads = v;
			break;
		case 22:
			st->start = (uint64_t)v;
			break;
		case 23:
			st->vsize = (uint64_t)v;
			break;
		case 24:
			st->rss = v;
			break;
		case 39:
			st->processor = v;
			break;
		case 42:
			st->blkio = (uint64_t)(v > 0 ? v : 0);
			break;
		}
	}
	return f > 24 ? 0 : -1;
}

void
ranks_step_name(uint32_t step, char *buf, size_t size)
{
	switch (step) {
	case RANKS_STEP_NONE:
		snprintf(buf, size, "%s", "");
		break;
	case RANKS_STEP_BATCH:
	case RANKS_STEP_BATCH_OLD:
		snprintf(buf, size, "batch");
		break;
	case RANKS_STEP_EXTERN:
	case RANKS_STEP_EXTERN_OLD:
		snprintf(buf, size, "extern");
		break;
	case RANKS_STEP_INTERACTIVE:
		snprintf(buf, size, "interactive");
		break;
	default:
		snprintf(buf, size, "%u", step);
		break;
	}
}

int
ranks_same_step(uint32_t a, uint32_t b)
{
	if (a == RANKS_STEP_BATCH_OLD)
		a = RANKS_STEP_BATCH;
	else if (a == RANKS_STEP_EXTERN_OLD)
		a = RANKS_STEP_EXTERN;
	if (b == RANKS_STEP_BATCH_OLD)
		b = RANKS_STEP_BATCH;
	else if (b == RANKS_STEP_EXTERN_OLD)
		b = RANKS_STEP_EXTERN;
	return a == b;
}

int
ranks_step_class(uint32_t step)
{
	switch (step) {
	case RANKS_STEP_BATCH:
	case RANKS_STEP_BATCH_OLD:
	case RANKS_STEP_INTERACTIVE:
		return RANKS_CLASS_BATCH;
	case RANKS_STEP_EXTERN:
	case RANKS_STEP_EXTERN_OLD:
		return RANKS_CLASS_EXTERN;
	default:
		return RANKS_CLASS_TASK;
	}
}

/* Close a process's files and free its slot.  A rank's folded children
 * go with it (the next scan judges them again); a child leaves its
 * rank's list. */
static void
ranks_drop(struct ranks_proc *rp)
{
	struct ranks_proc	*tp;
	int32_t			*link;
	unsigned		 i;

	if (rp->role == RANKS_ROLE_CHILD && rp->top >= 0) {
		tp = &ranks_procs[rp->top];
		for (link = &tp->kid; *link >= 0; link =
		    &ranks_procs[*link].sib) {
			if (&ranks_procs[*link] == rp) {
				*link = rp->sib;
				break;
			}
		}
		rp->top = -1;
	}
	while (rp->kid >= 0) {
		tp = &ranks_procs[rp->kid];
		rp->kid = tp->sib;
		tp->top = -1;
		ranks_drop(tp);
		ranks_find_rescan();
	}
	for (i = 0; i < RK_NFILES; i++) {
		if (rp->fd[i] >= 0) {
			close(rp->fd[i]);
			ranks_nfds--;
		}
	}
	rp->used = 0;
	while (ranks_hw > 0 && !ranks_procs[ranks_hw - 1].used)
		ranks_hw--;
}

int
ranks_track(pid_t pid, const struct ranks_stat *st, int64_t rank,
    uint32_t step, int role, int top)
{
	struct ranks_proc	*rp;
	unsigned		 i, slot = RANKS_MAX;

	for (i = 0; i < ranks_hw; i++) {
		rp = &ranks_procs[i];
		if (rp->used && rp->pid == pid)
			ranks_drop(rp);		/* a reused pid */
		if (!rp->used && slot == RANKS_MAX)
			slot = i;
	}
	if (slot == RANKS_MAX && ranks_hw < RANKS_MAX)
		slot = ranks_hw;
	if (slot == RANKS_MAX) {
		probe_event(EV_WARN, "ranks-full", "more than %d processes "
		    "to track; the others are not shown", RANKS_MAX);
		return -1;
	}
	rp = &ranks_procs[slot];
	memset(rp, 0, sizeof(*rp));
	rp->used = 1;
	rp->pid = pid;
	rp->start = st->start;
	rp->rank = rank;
	rp->step = step;
	rp->role = (uint8_t)role;
	rp->top = rp->kid = rp->sib = -1;
	if (role == RANKS_ROLE_CHILD) {
		if (top < 0 || top >= RANKS_MAX || !ranks_procs[top].used ||
		    ranks_procs[top].role != RANKS_ROLE_RANK)
			rp->role = RANKS_ROLE_RANK;
		else {
			rp->top = top;
			rp->sib = ranks_procs[top].kid;
			ranks_procs[top].kid = (int32_t)slot;
		}
	}
	rp->keep = slot < RK_KEEP;
	rp->cpu = UINT64_MAX;
	rp->uid = -1;
	rp->allowed = rp->amask = -1;
	rp->world = -1;
	rp->nspid = -1;
	rp->prio = RANKS_PRIO_NONE;
	for (i = 0; i < RK_NFILES; i++)
		rp->fd[i] = RK_FD_NONE;
	snprintf(rp->name, sizeof(rp->name), "%d", (int)pid);
	snprintf(rp->comm, sizeof(rp->comm), "%.15s", st->comm);
	ranks_step_name(step, rp->stepname, sizeof(rp->stepname));
	if (slot >= ranks_hw)
		ranks_hw = slot + 1;
	return (int)slot;
}

static ssize_t	ranks_read_once(const struct ranks_proc *, const char *, char *,
		    size_t);

/* Podman's /run/.containerenv in the container's root: image="NAME". */
static void
ranks_podman_image(struct ranks_proc *rp)
{
	const char	*p, *q;
	size_t		 n;

	if (ranks_read_once(rp, "root/run/.containerenv", ranks_buf,
	    sizeof(ranks_buf)) <= 0 || (p = strstr(ranks_buf, "\nimage=\""))
	    == NULL)
		return;
	p += 8;
	if ((q = strchr(p, '"')) == NULL || (n = (size_t)(q - p)) == 0)
		return;
	snprintf(rp->container, sizeof(rp->container), "podman %.*s", (int)n,
	    p);
}

void
ranks_set_container(int slot, const char *name)
{
	struct ranks_proc	*rp;
	const char		*p, *eol;
	char			 path[64], root[RANKS_CTR_MAX - 8];
	int64_t			 v, last = -1;
	unsigned		 n = 0;
	ssize_t			 len;

	if (slot < 0 || slot >= RANKS_MAX || !(rp = &ranks_procs[slot])->used)
		return;
	/* "NSpid:\t4242\t7": the host's pid first, its own last. */
	if (ranks_read_once(rp, "status", ranks_buf, sizeof(ranks_buf)) > 0 &&
	    (p = strstr(ranks_buf, "\nNSpid:")) != NULL) {
		eol = strchr(p + 1, '\n');
		for (p += 7; (eol == NULL || p < eol) && *p != '\0'; ) {
			while (*p == '\t' || *p == ' ')
				p++;
			if (*p < '0' || *p > '9')
				break;
			for (v = 0; *p >= '0' && *p <= '9' && v < INT32_MAX; p++)
				v = v * 10 + (*p - '0');
			last = v;
			n++;
		}
	}
	if (n > 1)
		rp->nspid = last;
	rp->container[0] = '\0';
	if (name != NULL) {
		snprintf(rp->container, sizeof(rp->container), "%s", name);
		if (strcmp(name, "podman") == 0)
			ranks_podman_image(rp);
	} else {
		/* Another root directory than the probe's (a chroot, a
		 * container the runtime did not name in the environment). */
		snprintf(path, sizeof(path), "/proc/%d/root", (int)rp->pid);
		if ((len = readlink(probe_path(ranks_buf, sizeof(ranks_buf),
		    path), root, sizeof(root) - 1)) > 1) {
			root[len] = '\0';
			snprintf(rp->container, sizeof(rp->container),
			    "root %s", root);
		} else if (n > 1)
			snprintf(rp->container, sizeof(rp->container),
			    "pid namespace");
	}
	rp->ctr_new = 1;
}

int
ranks_tracked(int slot, pid_t pid, uint64_t start)
{
	const struct ranks_proc	*rp;

	if (slot < 0 || slot >= RANKS_MAX)
		return 0;
	rp = &ranks_procs[slot];
	return rp->used && rp->pid == pid && rp->start == start;
}

int
ranks_tracked_top(int slot)
{
	if (slot < 0 || slot >= RANKS_MAX || !ranks_procs[slot].used)
		return -1;
	return ranks_procs[slot].top >= 0 ? ranks_procs[slot].top : slot;
}

void
ranks_set_origin(int slot, unsigned prio, const char *var, int64_t world)
{
	struct ranks_proc	*rp;

	if (slot < 0 || slot >= RANKS_MAX || !(rp = &ranks_procs[slot])->used)
		return;
	rp->prio = (uint8_t)(prio < RANKS_PRIO_NONE ? prio : RANKS_PRIO_NONE);
	rp->rank_var = var;
	rp->world = world;
}

void
ranks_set_task(int slot, int64_t rank, unsigned prio, const char *var)
{
	struct ranks_proc	*rp;
	int32_t			 k;

	if (slot < 0 || slot >= RANKS_MAX || !(rp = &ranks_procs[slot])->used ||
	    rp->role != RANKS_ROLE_RANK || rp->top >= 0 || rank < 0 ||
	    prio >= rp->prio)
		return;
	rp->rank = rank;
	rp->prio = (uint8_t)prio;
	rp->rank_var = var;
	for (k = rp->kid; k >= 0; k = ranks_procs[k].sib)
		ranks_procs[k].rank = rank;
}

unsigned
ranks_tracked_prio(int slot)
{
	if (slot < 0 || slot >= RANKS_MAX || !ranks_procs[slot].used)
		return RANKS_PRIO_NONE;
	return ranks_procs[slot].prio;
}

/* A rank becomes a helper, and so do the processes folded into it: they
 * leave its tree, and their CPU time and memory no longer count for a
 * rank. */
void
ranks_demote(int slot)
{
	struct ranks_proc	*rp, *kp;

	if (slot < 0 || slot >= RANKS_MAX || !(rp = &ranks_procs[slot])->used ||
	    rp->role != RANKS_ROLE_RANK)
		return;
	rp->role = RANKS_ROLE_HELPER;
	rp->rank = -1;
	rp->prio = RANKS_PRIO_NONE;
	rp->rank_var = NULL;
	rp->world = -1;
	while (rp->kid >= 0) {
		kp = &ranks_procs[rp->kid];
		rp->kid = kp->sib;
		kp->top = kp->sib = -1;
		kp->role = RANKS_ROLE_HELPER;
		kp->rank = -1;
		memset(&kp->out, 0, sizeof(kp->out));
		kp->seen = 0;
	}
}

int
ranks_tracked_role(int slot)
{
	if (slot < 0 || slot >= RANKS_MAX || !ranks_procs[slot].used)
		return -1;
	return ranks_procs[slot].role;
}

int64_t
ranks_tracked_rank(int slot)
{
	if (slot < 0 || slot >= RANKS_MAX || !ranks_procs[slot].used)
		return -1;
	return ranks_procs[slot].rank;
}

uint32_t
ranks_tracked_step(int slot)
{
	if (slot < 0 || slot >= RANKS_MAX || !ranks_procs[slot].used)
		return RANKS_STEP_NONE;
	return ranks_procs[slot].step;
}

void
ranks_untrack(int slot, pid_t pid, uint64_t start)
{
	if (ranks_tracked(slot, pid, start))
		ranks_drop(&ranks_procs[slot]);
}

int
ranks_reported(unsigned *it, pid_t *pid, uint64_t *start)
{
	const struct ranks_proc	*rp;

	while (*it < ranks_hw) {
		rp = &ranks_procs[(*it)++];
		if (rp->used && ranks_seq > 0 && rp->seen == ranks_seq) {
			*pid = rp->pid;
			*start = rp->start;
			return 0;
		}
	}
	return -1;
}

/*
 * Read one of a process's files into buf with a single pread: its length,
 * or -1.  A file that cannot be read for lack of permission (io, syscall
 * of another user's process) is not tried again.
 */
static ssize_t
ranks_read(struct ranks_proc *rp, int which, char *buf, size_t size)
{
	char	path[64];
	ssize_t	n;
	int	fd = rp->fd[which], err;

	if (fd == RK_FD_BAD)
		return -1;
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)rp->pid,
		    ranks_files[which]);
		if ((fd = probe_open(path)) < 0) {
			if (which != RK_STAT && (errno == EACCES ||
			    errno == EPERM || errno == ENOENT))
				rp->fd[which] = RK_FD_BAD;
			return -1;
		}
		if (rp->keep && ranks_nfds < ranks_fd_budget) {
			rp->fd[which] = fd;
			ranks_nfds++;
		}
	}
	while ((n = pread(fd, buf, size - 1, 0)) < 0 && errno == EINTR)
		;
	err = errno;
	if (n < 0 && which != RK_STAT && (err == EACCES || err == EPERM)) {
		if (rp->fd[which] >= 0)
			ranks_nfds--;
		rp->fd[which] = RK_FD_BAD;
		close(fd);
	} else if (rp->fd[which] != fd)
		close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * Read and parse stat; on failure (gone, or a new process under the same
 * pid) forget the process and have the next sample rescan.  So too for a
 * process whose rank id is not a strong one (a helper, a folded child, a
 * rank by SLURM_PROCID or without an id) whose command changed: it was
 * found between its fork and its exec (a proxy's child still named
 * hydra_pmi_proxy, a per-node shell's child still named bash, with their
 * environment), and what it runs now may be a rank; the next scan judges
 * it again.
 */
static int
ranks_read_stat(struct ranks_proc *rp, struct ranks_stat *st)
{
	if (ranks_read(rp, RK_STAT, ranks_buf, sizeof(ranks_buf)) <= 0 ||
	    ranks_parse_stat(ranks_buf, st) < 0 || st->start != rp->start ||
	    (rp->prio >= RANKS_PRIO_WEAK &&
	    strncmp(st->comm, rp->comm, sizeof(rp->comm) - 1) != 0)) {
		ranks_drop(rp);
		ranks_find_rescan();
		return -1;
	}
	return 0;
}

/* Read /proc/PID/schedstat (held open): run and run-queue wait in ns,
 * and the times it was scheduled.  0, or -1 when it cannot be read. */
static int
ranks_read_sched(struct ranks_proc *rp, uint64_t *run, uint64_t *wait,
    uint64_t *pcount)
{
	const char	*p;

	if (ranks_read(rp, RK_SCHED, ranks_buf, sizeof(ranks_buf)) <= 0 ||
	    (p = probe_parse_u64(ranks_buf, run)) == NULL ||
	    (p = probe_parse_u64(p, wait)) == NULL ||
	    probe_parse_u64(p, pcount) == NULL)
		return -1;
	return 0;
}

/* Did the main thread stay off the CPU, unswitched, since the last read?
 * Updates the stored schedstat either way. */
static int
ranks_quiet(struct ranks_proc *rp, const struct ranks_stat *st, int fresh)
{
	uint64_t	 run, wait, pcount;
	int		 quiet;

	rp->has &= ~RK_HAS_WAIT;
	if (ranks_read_sched(rp, &run, &wait, &pcount) != 0)
		return 0;
	/* "0 0 0": a kernel without scheduler statistics. */
	quiet = !fresh && (run != 0 || pcount != 0) && run == rp->run_ns &&
	    pcount == rp->pcount && st->state == rp->state;
	rp->run_ns = run;
	rp->wait_ns = wait;
	rp->has |= RK_HAS_WAIT;
	rp->pcount = pcount;
	return quiet;
}

/*
 * Make /proc/PID/stack ("[<0>] pipe_read+0x2d1/0x440" a line) compact in
 * out: "pipe_read < vfs_read < ...", at most RK_KSTACK_FRAMES names.
 */
void
ranks_kstack_compact(const char *buf, char *out, size_t size)
{
	const char	*p = buf, *name, *nl;
	size_t		 len, used = 0;
	unsigned	 frames = 0;

	out[0] = '\0';
	for (; *p != '\0' && frames < RK_KSTACK_FRAMES; p = *nl != '\0' ?
	    nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		name = p;
		if (*name == '[' && (name = memchr(p, ']', (size_t)(nl - p))) !=
		    NULL)
			name++;
		else
			name = p;
		while (name < nl && *name == ' ')
			name++;
		len = strcspn(name, "+ \n");
		if (name + len > nl)
			len = (size_t)(nl - name);
		if (len == 0)
			continue;
		if (used + len + (frames > 0 ? 3 : 0) + 1 > size)
			break;
		if (frames > 0) {
			memcpy(out + used, " < ", 3);
			used += 3;
		}
		memcpy(out + used, name, len);
		used += len;
		out[used] = '\0';
		frames++;
	}
}

/* Read the kernel stack of a process that is not running; note when it
 * changed. */
static void
ranks_read_kstack(struct ranks_proc *rp)
{
	char	compact[RK_KSTACK_MAX];

	if (ranks_read(rp, RK_STACK, ranks_buf, sizeof(ranks_buf)) < 0)
		return;
	ranks_kstack_compact(ranks_buf, compact, sizeof(compact));
	if (compact[0] == '\0')
		return;
	if ((rp->has & RK_HAS_KSTACK) == 0 ||
	    strcmp(compact, rp->kstack) != 0) {
		memcpy(rp->kstack, compact, sizeof(rp->kstack));
		rp->kstack_new = 1;
	}
	rp->has |= RK_HAS_KSTACK;
}

/* Read the storage I/O counters of /proc/PID/io. */
static void
ranks_read_io(struct ranks_proc *rp)
{
	uint64_t	a, b;

	rp->has &= ~RK_HAS_IO;
	if (ranks_read(rp, RK_IO, ranks_buf, sizeof(ranks_buf)) > 0 &&
	    probe_find_u64(ranks_buf, "read_bytes", &a) == 0 &&
	    probe_find_u64(ranks_buf, "write_bytes", &b) == 0) {
		rp->rbytes = a;
		rp->wbytes = b;
		rp->has |= RK_HAS_IO;
	}
}

/* Read a file of a process once (open, one pread, close): for files read
 * rarely, which keep no descriptor. */
static ssize_t
ranks_read_once(const struct ranks_proc *rp, const char *file, char *buf,
    size_t size)
{
	char	path[64];
	ssize_t	n;
	int	fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)rp->pid, file);
	if ((fd = probe_open(path)) < 0)
		return -1;
	n = probe_pread(fd, buf, size);
	close(fd);
	return n;
}

/* The command line, NULs and control bytes as spaces, at most
 * PROTO_TEXT_MAX - 1 bytes: read when first seen and when the command
 * changes (an exec).  Absent when empty (a zombie) or unreadable. */
static void
ranks_read_cmdline(struct ranks_proc *rp, const char *comm)
{
	ssize_t	n, i;

	snprintf(rp->cmd_comm, sizeof(rp->cmd_comm), "%s", comm);
	n = ranks_read_once(rp, "cmdline", ranks_buf, sizeof(ranks_buf));
	if (n > (ssize_t)sizeof(rp->cmdline) - 1)
		n = (ssize_t)sizeof(rp->cmdline) - 1;
	while (n > 0 && (ranks_buf[n - 1] == '\0' ||
	    ranks_buf[n - 1] == ' '))
		n--;
	if (n <= 0) {
		rp->has &= ~RK_HAS_CMD;
		return;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)ranks_buf[i] < 0x20 ||
		    ranks_buf[i] == 0x7f)
			ranks_buf[i] = ' ';
	}
	ranks_buf[n] = '\0';
	if ((rp->has & RK_HAS_CMD) == 0 || strcmp(rp->cmdline,
	    ranks_buf) != 0) {
		memcpy(rp->cmdline, ranks_buf, (size_t)n + 1);
		rp->cmd_new = 1;
	}
	rp->has |= RK_HAS_CMD;
}

/* The working directory (readlink of /proc/PID/cwd, another user's is
 * not readable): absent when it cannot be read. */
static void
ranks_read_cwd(struct ranks_proc *rp)
{
	char	path[64], full[4096];
	ssize_t	n;

	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)rp->pid);
	n = readlink(probe_path(full, sizeof(full), path), ranks_buf,
	    sizeof(rp->cwd) - 1);
	if (n <= 0) {
		rp->has &= ~RK_HAS_CWD;
		return;
	}
	ranks_buf[n] = '\0';
	if ((rp->has & RK_HAS_CWD) == 0 || strcmp(rp->cwd, ranks_buf) != 0) {
		memcpy(rp->cwd, ranks_buf, (size_t)n + 1);
		rp->cwd_new = 1;
	}
	rp->has |= RK_HAS_CWD;
}

/*
 * A check of a rank's peaks: ticks is its tree's CPU time (utime + stime
 * with reaped children's), rss its tree's resident bytes, threads its
 * tree's threads, now the monotonic time in us.  The CPU % of the window
 * since the last check counts when the window is 100 ms or more (a
 * shorter one waits: one tick is 10 ms), capped at what the threads and
 * CPUs allow (ticks come whole, so a short window of a busy rank can read
 * a tick more than it ran).
 */
static void
ranks_peak(struct ranks_proc *rp, uint64_t ticks, uint64_t rss,
    uint64_t threads, uint64_t now)
{
	uint64_t	pct, cap;

	if (rss > rp->peak_rss)
		rp->peak_rss = rss;
	if (rp->pk_us != 0 && ticks >= rp->pk_ticks) {
		if (now < rp->pk_us + 100000)
			return;
		pct = (ticks - rp->pk_ticks) * 10000 * 1000000 /
		    ((uint64_t)ranks_clk_tck * (now - rp->pk_us));
		cap = 10000 * (threads < ranks_ncpu ? threads : ranks_ncpu);
		if (pct > cap)
			pct = cap;
		if (pct > rp->peak_cpu)
			rp->peak_cpu = pct;
		rp->pk_ok = 1;
	}
	rp->pk_ticks = ticks;
	rp->pk_us = now;
}

/* status's Cpus_allowed_list ("0-3,8\n"): the count and, when every CPU
 * is under 63, the bits. */
static void
ranks_affinity(struct ranks_proc *rp, const char *p)
{
	unsigned long	a, b;
	int64_t		n = 0, mask = 0;
	char		*end;

	while (*p == ' ' || *p == '\t')
		p++;
	for (;;) {
		if (*p < '0' || *p > '9')
			return;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				return;
			b = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (b < a || b - a > 1u << 20)
			return;
		n += (int64_t)(b - a + 1);
		if (mask >= 0 && b < 63)
			mask |= (int64_t)(((1ULL << (b - a + 1)) - 1) << a);
		else
			mask = -1;
		if (*p != ',')
			break;
		p++;
	}
	/* Ranges the kernel never overlaps: counted by their bits. */
	rp->allowed = mask >= 0 ? __builtin_popcountll((unsigned long long)
	    mask) : n;
	rp->amask = mask;
}

/* Read what the process's other files say, as far as it can change. */
static void
ranks_read_more(struct ranks_proc *rp, const struct ranks_stat *st,
    int fresh)
{
	const char	*p;
	uint64_t	 a, b;
	int64_t		 v;
	size_t		 len;
	int		 quiet, running = st->state == 'R';

	quiet = ranks_quiet(rp, st, fresh);
	rp->quiet = (uint8_t)quiet;
	if (strcmp(rp->cmd_comm, st->comm) != 0)
		ranks_read_cmdline(rp, st->comm);
	if (!quiet) {
		rp->has &= ~RK_HAS_CTX;
		if (ranks_read(rp, RK_STATUS, ranks_buf,
		    sizeof(ranks_buf)) > 0) {
			/* VmHWM: the kernel's own peak of the resident
			 * size; Uid: the real one first. */
			if (probe_find_u64(ranks_buf, "VmHWM", &a) == 0 &&
			    a * 1024 > rp->peak_rss)
				rp->peak_rss = a * 1024;
			if (probe_find_u64(ranks_buf, "Uid", &a) == 0)
				rp->uid = (int64_t)a;
			if ((p = strstr(ranks_buf, "\nCpus_allowed_list:")) !=
			    NULL)
				ranks_affinity(rp, p + 19);
			if ((p = strstr(ranks_buf,
			    "\nvoluntary_ctxt_switches:")) != NULL &&
			    probe_find_u64(p + 1, "voluntary_ctxt_switches",
			    &a) == 0 && probe_find_u64(p + 1,
			    "nonvoluntary_ctxt_switches", &b) == 0) {
				rp->vcsw = a;
				rp->ivcsw = b;
				rp->has |= RK_HAS_CTX;
			}
		}
		/* A process that ran may have changed directory. */
		if (fresh || ranks_seq % 4 == 0)
			ranks_read_cwd(rp);
	}
	if (!quiet || st->threads != 1 || running)
		ranks_read_io(rp);
	if (st->state != 'D' && st->state != 'S')
		rp->has &= ~RK_HAS_KSTACK;
	if (running || st->state == 'Z' || st->state == 'X') {
		rp->has &= ~(RK_HAS_WCHAN | RK_HAS_SYSCALL);
		/* Read it once all the same, to learn whether it may be. */
		if (running && !rp->syscall_tried)
			ranks_read(rp, RK_SYSCALL, ranks_buf, sizeof(ranks_buf));
		rp->syscall_tried = 1;
		if (running && rp->fd[RK_SYSCALL] != RK_FD_BAD) {
			rp->syscall = -1;
			rp->has |= RK_HAS_SYSCALL;
		}
		return;
	}
	if (quiet && (rp->has & (RK_HAS_WCHAN | RK_HAS_SYSCALL)) != 0 &&
	    (!ranks_kstack || (rp->has & RK_HAS_KSTACK) != 0 ||
	    rp->fd[RK_STACK] == RK_FD_BAD ||
	    (st->state != 'D' && st->state != 'S')))
		return;
	rp->has &= ~(RK_HAS_WCHAN | RK_HAS_SYSCALL);
	if (ranks_kstack && (st->state == 'D' || st->state == 'S'))
		ranks_read_kstack(rp);
	else
		rp->has &= ~RK_HAS_KSTACK;
	if (ranks_read(rp, RK_WCHAN, ranks_buf, sizeof(ranks_buf)) > 0) {
		len = strcspn(ranks_buf, "\n");
		if (len >= sizeof(rp->wchan))
			len = sizeof(rp->wchan) - 1;
		if (len > 0 && !(len == 1 && ranks_buf[0] == '0')) {
			memcpy(rp->wchan, ranks_buf, len);
			rp->wchan[len] = '\0';
			rp->has |= RK_HAS_WCHAN;
		}
	}
	rp->syscall_tried = 1;
	if (ranks_read(rp, RK_SYSCALL, ranks_buf, sizeof(ranks_buf)) > 0) {
		if (strncmp(ranks_buf, "running", 7) == 0) {
			rp->syscall = -1;
			rp->has |= RK_HAS_SYSCALL;
		} else if (probe_parse_i64(ranks_buf, &v) != NULL) {
			rp->syscall = v;
			rp->has |= RK_HAS_SYSCALL;
		}
	}
}

/* A process's own share of its rank's totals: its stat (with its reaped
 * children's times and faults), schedstat and io as last read. */
static void
ranks_tree_add(struct ranks_tree *t, const struct ranks_proc *rp,
    const struct ranks_stat *st)
{
	t->utime += st->utime + st->cutime;
	t->stime += st->stime + st->cstime;
	t->minflt += st->minflt + st->cminflt;
	t->majflt += st->majflt + st->cmajflt;
	t->rss += (uint64_t)(st->rss > 0 ? st->rss : 0) * ranks_page_size;
	t->threads += (uint64_t)(st->threads > 0 ? st->threads : 1);
	t->blkio += st->blkio;
	if (rp->has & RK_HAS_WAIT) {
		t->wait_ns += rp->wait_ns;
		t->has_wait = 1;
	}
	if (rp->has & RK_HAS_IO) {
		t->rbytes += rp->rbytes;
		t->wbytes += rp->wbytes;
		t->has_io = 1;
	}
}

/*
 * Add a rank's folded children to its totals in t.  Each is read after
 * the rank (a child reaped in between is missed once, never counted twice)
 * and costs its stat and schedstat; io only as the rank's own (see the top
 * of the file).
 */
static void
ranks_read_kids(struct ranks_proc *rp, struct ranks_tree *t)
{
	struct ranks_proc	*kp;
	struct ranks_stat	 st;
	int32_t			 k, next;
	int			 quiet;

	for (k = rp->kid; k >= 0; k = next) {
		kp = &ranks_procs[k];
		next = kp->sib;
		if (ranks_read_stat(kp, &st) < 0)
			continue;	/* gone: dropped, off the list */
		quiet = ranks_quiet(kp, &st, kp->kseen == 0 ||
		    kp->kseen + 1 != ranks_seq);
		kp->state = st.state;
		kp->kseen = ranks_seq;
		if (!quiet || st.threads != 1 || st.state == 'R')
			ranks_read_io(kp);
		ranks_tree_add(t, kp, &st);
		rp->nprocs++;
	}
}

/* Keep a reported counter from going back (struct ranks_tree). */
static uint64_t
ranks_mono(uint64_t *out, uint64_t v)
{
	if (v > *out)
		*out = v;
	return *out;
}

/* Sample one process whose stat is parsed in st and report it. */
static void
ranks_report(struct ranks_proc *rp, const struct ranks_stat *st)
{
	struct ranks_tree	 t;
	struct ranks_tree	*o = &rp->out;
	struct pinst		*pi;
	char			 state[2];
	int			 fresh;

	fresh = rp->seen == 0 || rp->seen + 1 != ranks_seq;
	ranks_read_more(rp, st, fresh);
	rp->state = st->state;
	rp->seen = ranks_seq;
	memset(&t, 0, sizeof(t));
	ranks_tree_add(&t, rp, st);
	rp->nprocs = 1;
	ranks_read_kids(rp, &t);
	ranks_peak(rp, t.utime + t.stime, t.rss, t.threads, probe_mono_us());
	/* A process of one thread whose schedstat did not move did not run:
	 * the checks between samples and the numa source's rereads use it
	 * to skip what cannot have changed. */
	rp->single = st->threads == 1 && rp->nprocs == 1;
	rp->sub_ok = (rp->has & RK_HAS_WAIT) != 0 &&
	    (rp->run_ns != 0 || rp->pcount != 0);
	rp->sub_run = rp->run_ns;
	rp->sub_pcount = rp->pcount;
	if (!(rp->quiet && rp->single))
		rp->act++;

	if ((pi = probe_inst(&ranks_group, rp->name)) == NULL)
		return;
	if (rp->rank >= 0 && rp->role != RANKS_ROLE_HELPER) {
		pinst_set(pi, F_RANK, rp->rank);
		if (rp->world > 0)
			pinst_set(pi, F_WORLD, rp->world);
		if (rp->rank_var != NULL)
			pinst_set_str(pi, F_RANK_VAR, rp->rank_var);
	}
	if (rp->role == RANKS_ROLE_HELPER)
		pinst_set(pi, F_HELPER, 1);
	pinst_set(pi, F_PROCS, rp->nprocs);
	pinst_set(pi, F_PID, rp->pid);
	pinst_set(pi, F_PPID, st->ppid);
	if (rp->stepname[0] != '\0')
		pinst_set_str(pi, F_STEP, rp->stepname);
	state[0] = st->state;
	state[1] = '\0';
	pinst_set_str(pi, F_STATE, state);
	pinst_set_str(pi, F_COMM, st->comm);
	pinst_set(pi, F_UTIME, (int64_t)ranks_mono(&o->utime, t.utime));
	pinst_set(pi, F_STIME, (int64_t)ranks_mono(&o->stime, t.stime));
	pinst_set(pi, F_RSS, t.rss > INT64_MAX ? INT64_MAX : (int64_t)t.rss);
	pinst_set(pi, F_VSIZE, (int64_t)st->vsize);
	pinst_set(pi, F_THREADS, st->threads);
	pinst_set(pi, F_MINFLT, (int64_t)ranks_mono(&o->minflt, t.minflt));
	pinst_set(pi, F_MAJFLT, (int64_t)ranks_mono(&o->majflt, t.majflt));
	if (t.has_io) {
		pinst_set(pi, F_READ_BYTES, (int64_t)ranks_mono(&o->rbytes,
		    t.rbytes));
		pinst_set(pi, F_WRITE_BYTES, (int64_t)ranks_mono(&o->wbytes,
		    t.wbytes));
	}
	if (ranks_delayacct)
		pinst_set(pi, F_BLKIO_DELAY, (int64_t)ranks_mono(&o->blkio,
		    t.blkio));
	if (t.has_wait)
		pinst_set(pi, F_RQ_DELAY, (int64_t)ranks_mono(&o->wait_ns,
		    t.wait_ns));
	if (rp->has & RK_HAS_CTX) {
		pinst_set(pi, F_VOL_CTXSW, (int64_t)rp->vcsw);
		pinst_set(pi, F_INVOL_CTXSW, (int64_t)rp->ivcsw);
	}
	if (rp->has & RK_HAS_WCHAN)
		pinst_set_str(pi, F_WCHAN, rp->wchan);
	if (rp->has & RK_HAS_SYSCALL)
		pinst_set(pi, F_SYSCALL, rp->syscall);
	if (st->processor >= 0)
		pinst_set(pi, F_PROCESSOR, st->processor);
	pinst_set(pi, F_START_TIME, (int64_t)st->start);
	if (rp->has & RK_HAS_KSTACK) {
		pinst_set_text(pi, F_KSTACK, rp->kstack, rp->kstack_new);
		rp->kstack_new = 0;
	}
	pinst_set(pi, F_PEAK_RSS, rp->peak_rss > INT64_MAX ? INT64_MAX :
	    (int64_t)rp->peak_rss);
	if (rp->pk_ok)
		pinst_set(pi, F_PEAK_CPU, (int64_t)rp->peak_cpu);
	if (rp->uid >= 0)
		pinst_set(pi, F_UID, rp->uid);
	if (rp->allowed >= 0)
		pinst_set(pi, F_CPUS_ALLOWED, rp->allowed);
	if (rp->has & RK_HAS_CWD) {
		pinst_set_text(pi, F_CWD, rp->cwd, rp->cwd_new);
		rp->cwd_new = 0;
	}
	if (rp->has & RK_HAS_CMD) {
		pinst_set_text(pi, F_CMDLINE, rp->cmdline, rp->cmd_new);
		rp->cmd_new = 0;
	}
	if (rp->nspid >= 0)
		pinst_set(pi, F_NSPID, rp->nspid);
	if (rp->container[0] != '\0') {
		pinst_set_text(pi, F_CONTAINER, rp->container, rp->ctr_new);
		rp->ctr_new = 0;
	}
}

/* Has a single-threaded process's schedstat stayed as last read?  1
 * yes; 0 when it moved or cannot be read (it is then kept for the next
 * check). */
static int
ranks_still(struct ranks_proc *rp)
{
	uint64_t	 run, wait, pcount;

	if (ranks_read_sched(rp, &run, &wait, &pcount) != 0)
		return 0;
	if (run == rp->sub_run && pcount == rp->sub_pcount)
		return 1;
	rp->sub_run = run;
	rp->sub_pcount = pcount;
	return 0;
}

uint64_t
ranks_activity(unsigned slot)
{
	return slot < ranks_hw ? ranks_procs[slot].act : 0;
}

void
ranks_subsample(void)
{
	struct ranks_proc	*rp, *kp;
	struct ranks_stat	 st;
	uint64_t		 ticks, rss, threads;
	unsigned		 i;
	int32_t			 k;

	/* A scontrol listpids that answered or is due (ranks-find.c). */
	ranks_find_listpids();
	for (i = 0; i < ranks_hw; i++) {
		rp = &ranks_procs[i];
		if (!rp->used || rp->role == RANKS_ROLE_CHILD ||
		    rp->seen != ranks_seq || ranks_seq == 0)
			continue;
		/* One thread that did not run since the last read (its
		 * schedstat, a third of stat's cost, did not move): no CPU
		 * in the window, no page touched. */
		if (rp->single && rp->sub_ok && ranks_still(rp)) {
			ranks_peak(rp, rp->pk_ticks, 0, 1, probe_mono_us());
			continue;
		}
		ticks = rss = threads = 0;
		/* The rank, then its folded children; one gone since the
		 * sample is left to the next sample to drop. */
		for (kp = rp;;) {
			if (ranks_read(kp, RK_STAT, ranks_buf,
			    sizeof(ranks_buf)) > 0 &&
			    ranks_parse_stat(ranks_buf, &st) == 0 &&
			    st.start == kp->start) {
				ticks += st.utime + st.stime + st.cutime +
				    st.cstime;
				rss += (uint64_t)(st.rss > 0 ? st.rss : 0) *
				    ranks_page_size;
				threads += (uint64_t)(st.threads > 0 ?
				    st.threads : 1);
			}
			if ((k = kp == rp ? rp->kid : kp->sib) < 0)
				break;
			kp = &ranks_procs[k];
		}
		/* The time of the reads, not of the loop's start: a probe
		 * kept off the CPU between the two would see a window
		 * wrong by that long. */
		ranks_peak(rp, ticks, rss, threads, probe_mono_us());
	}
}

/* Root without --job: read every process's stat, report the busiest. */
static void
ranks_sample_busiest(void)
{
	struct ranks_proc	*rp;
	struct ranks_stat	 st;
	uint64_t		 cpu, delta;
	unsigned		 i, k, ntop = 0;

	for (i = 0; i < ranks_hw; i++) {
		rp = &ranks_procs[i];
		if (!rp->used || rp->role == RANKS_ROLE_CHILD ||
		    ranks_read_stat(rp, &st) < 0)
			continue;
		cpu = st.utime + st.stime + st.cutime + st.cstime;
		delta = rp->cpu == UINT64_MAX || cpu < rp->cpu ? cpu :
		    cpu - rp->cpu;
		rp->cpu = cpu;
		/* Keep the list sorted: most CPU in the interval first, then
		 * most CPU in all, then the lowest pid (the table order). */
		for (k = ntop; k > 0; k--) {
			if (ranks_top[k - 1].delta > delta ||
			    (ranks_top[k - 1].delta == delta &&
			    ranks_top[k - 1].cpu >= cpu))
				break;
		}
		if (k == RANKS_TOP)
			continue;
		if (ntop < RANKS_TOP)
			ntop++;
		memmove(&ranks_top[k + 1], &ranks_top[k],
		    (ntop - 1 - k) * sizeof(ranks_top[0]));
		ranks_top[k].delta = delta;
		ranks_top[k].cpu = cpu;
		ranks_top[k].rp = rp;
		ranks_top[k].st = st;
	}
	for (k = 0; k < ntop; k++)
		ranks_report(ranks_top[k].rp, &ranks_top[k].st);
}

/* Find new processes, then report the tracked ones that are shown. */
static void
ranks_sample(const struct probe_conf *conf)
{
	struct ranks_proc	*rp;
	struct ranks_stat	 st;
	unsigned		 i;
	int			 best = RANKS_CLASS_EXTERN, c;

	ranks_seq++;
	ranks_find_update(conf);
	if (!ranks_how_sent && ranks_find_how(ranks_how,
	    sizeof(ranks_how)) != NULL) {
		ranks_how_sent = 1;
		probe_event(EV_INFO, "ranks-found", "%s", ranks_how);
	}
	if (ranks_busiest) {
		ranks_sample_busiest();
		return;
	}
	if (ranks_by_class && ranks_only_step == RANKS_STEP_NONE) {
		for (i = 0; i < ranks_hw; i++) {
			rp = &ranks_procs[i];
			if (rp->used && (c = ranks_step_class(rp->step)) > best)
				best = c;
		}
	}
	for (i = 0; i < ranks_hw; i++) {
		rp = &ranks_procs[i];
		/* A folded child is read with its rank. */
		if (!rp->used || rp->role == RANKS_ROLE_CHILD)
			continue;
		/* --step: that step's processes; else the job's best
		 * class (its tasks, else its batch step, else extern). */
		if (ranks_only_step != RANKS_STEP_NONE ?
		    !ranks_same_step(rp->step, ranks_only_step) :
		    ranks_by_class && ranks_step_class(rp->step) != best)
			continue;
		if (ranks_read_stat(rp, &st) == 0)
			ranks_report(rp, &st);
	}
}

/* On whenever /proc can be listed. */
static int
ranks_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	struct rlimit	rl;
	rlim_t		avail;

	/* Open files are what keeps sampling cheap: take all we may. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
				getrlimit(RLIMIT_NOFILE, &rl);
		}
		avail = rl.rlim_cur > RK_FD_RESERVE ?
		    rl.rlim_cur - RK_FD_RESERVE : 0;
		ranks_fd_budget = avail < RK_KEEP * RK_NFILES ?
		    (unsigned)avail : RK_KEEP * RK_NFILES;
	}
	ranks_page_size = conf->page_size;
	ranks_clk_tck = conf->clk_tck > 0 ? conf->clk_tck : 100;
	ranks_ncpu = conf->ncpu > 0 ? conf->ncpu : 1;
	ranks_by_class = conf->job != NULL;
	ranks_only_step = conf->job != NULL && conf->step != NULL ?
	    ranks_parse_step(conf->step) : RANKS_STEP_NONE;
	ranks_busiest = conf->job == NULL && conf->uid == 0 &&
	    conf->owner < 0;
	if (ranks_find_init(conf, why, whysz) < 0)
		return -1;
	/* On, but say that any user's process may pass for a rank. */
	if (conf->job != NULL && conf->uid == 0 && conf->owner < 0)
		snprintf(why, whysz, "no --uid: processes of every user may "
		    "be taken for the job's");
	return 0;
}

const struct source src_ranks = {
	"ranks", ranks_groups, ranks_init, ranks_sample
};

/*
 * kstack: not a source of its own values but of the ranks' "kstack" field.
 * It is on when this probe may read kernel stacks (/proc/PID/stack needs
 * CAP_SYS_ADMIN, so in practice root), and its reason in HELLO tells the
 * monitor why rank details have no kernel stack.  It is listed after
 * ranks, whose first sample follows every init.
 */
static const struct group_def *kstack_groups[] = { NULL };

static int
kstack_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	char	path[64];
	int	fd, err;

	snprintf(path, sizeof(path), "/proc/%d/stack", (int)conf->self);
	if ((fd = probe_open(path)) >= 0) {
		if (probe_pread(fd, ranks_buf, sizeof(ranks_buf)) >= 0) {
			close(fd);
			ranks_kstack = 1;
			return 0;
		}
		err = errno;
		close(fd);
		errno = err;
	}
	if (errno == ENOENT)
		snprintf(why, whysz, "no /proc/PID/stack (a kernel without "
		    "CONFIG_STACKTRACE)");
	else if (errno == EACCES || errno == EPERM)
		snprintf(why, whysz, "needs root on the node "
		    "(/proc/PID/stack wants CAP_SYS_ADMIN)");
	else
		snprintf(why, whysz, "/proc/PID/stack: %s", strerror(errno));
	return -1;
}

static void
kstack_sample(const struct probe_conf *conf)
{
}

const struct source src_kstack = {
	"kstack", kstack_groups, kstack_init, kstack_sample
};

/*
 * delayacct: like kstack, no values of its own but whether the ranks'
 * "blkio_delay" field is filled.  /proc/PID/stat's field 42 holds the
 * block I/O delay of the process's main thread only where the kernel
 * keeps delay accounting: since Linux 5.14 that takes kernel.task_delayacct
 * = 1 (or the "delayacct" boot option); before, it was on unless booted
 * with "nodelayacct".  Where it is off the field reads 0, which must not
 * pass for "never waited": then the field is left out and this source is
 * off with the reason.  Decided when the probe starts.
 */
static const struct group_def *delayacct_groups[] = { NULL };

static int
delayacct_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	char		buf[32];
	uint64_t	v;
	ssize_t		n;

	ranks_delayacct = 0;
	n = probe_read_file("/proc/sys/kernel/task_delayacct", buf,
	    sizeof(buf));
	if (n < 0 && errno == ENOENT) {
		/* Before 5.14: on by default where the kernel has it. */
		ranks_delayacct = 1;
		return 0;
	}
	if (n <= 0 || probe_parse_u64(buf, &v) == NULL) {
		snprintf(why, whysz, "cannot read "
		    "/proc/sys/kernel/task_delayacct");
		return -1;
	}
	if (v == 0) {
		snprintf(why, whysz, "kernel.task_delayacct is 0: the kernel "
		    "does not account block I/O delay (sysctl "
		    "kernel.task_delayacct=1 turns it on)");
		return -1;
	}
	ranks_delayacct = 1;
	return 0;
}

static void
delayacct_sample(const struct probe_conf *conf)
{
}

const struct source src_delayacct = {
	"delayacct", delayacct_groups, delayacct_init, delayacct_sample
};
