/* SPDX-License-Identifier: ISC */
/*
 * perf: hardware counters of the job's processes, one instance of group
 * "rankperf" per process the rank source reports, named like its rank
 * instance (the pid): instructions and cycles retired in user space, raw
 * counters (unit "count") whose rates the monitor divides into IPC.
 *
 * Counting: perf_event_open per thread, a group of two (cycles leads,
 * instructions follows, so both count over the same time when the PMU is
 * shared), opened on every thread the process has when it is first
 * reported (/proc/PID/task).  With inherit and inherit_thread (Linux
 * 5.13) a thread created later is counted by the event of the thread that
 * created it, whose read() returns its own count plus its inherited
 * threads', exited ones included; a child process is not inherited (it
 * is a rank of its own, or not the job's), so nothing is counted twice.
 * A thread created between the listing of task/ and the opening of its
 * creator's events is missed.  Older kernels refuse inherit_thread: the
 * events are then not inherited and task/ is listed again every sample,
 * so a new thread counts from the sample that finds it.  The counter sent
 * is the sum over the process's threads; it stays monotonic, as an
 * exited thread's event keeps its final count.  Kernel and hypervisor
 * time are excluded (exclude_kernel, exclude_hv): what
 * perf_event_paranoid=2 allows unprivileged users on their own processes,
 * and the IPC of the application's own code.  Counts are not scaled: when
 * other users of the PMU force multiplexing both counters run less (an
 * EVENT says so) and their ratio stays right.  Events are opened when a
 * process first shows and closed when it no longer does (gone, or out of
 * the busiest list); nothing is allocated: threads' descriptors live in a
 * static pool.
 *
 * Off, with the reason, when perf_event_paranoid forbids counters to an
 * unprivileged probe (3 and above, a Debian/Ubuntu extension), when the
 * node has no hardware PMU (virtual machines often lack one: ENOENT), and
 * under --root, where the processes are a fixture's, not this node's.
 * A process that cannot be counted (another user's, without privilege)
 * is an EVENT once and left out.
 *
 * For tests on machines without a PMU, JOBTOP_PERF_SOFTWARE=1 in the
 * probe's environment counts the software task clock (nanoseconds on the
 * CPU) in both fields instead: a busy thread then shows 1e9 a second.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ranks.h"

#define PERF_THR_MAX	8192	/* counted threads, all processes */
#define PERF_FD_RESERVE	256	/* descriptors left for everyone else */

enum { PERF_INSTRUCTIONS, PERF_CYCLES, PERF_NFIELDS };

static const struct field_def perf_fields[PERF_NFIELDS] = {
	{ "instructions",	"count",	PF_COUNTER },
	{ "cycles",		"count",	PF_COUNTER },
};
static const struct group_def perf_group = {
	"rankperf", perf_fields, PERF_NFIELDS
};
static const struct group_def *perf_groups[] = { &perf_group, NULL };

/*
 * The first 64 bytes of struct perf_event_attr (PERF_ATTR_SIZE_VER0),
 * which every kernel accepts; the probe builds against musl, which has
 * no <linux/perf_event.h>.  The flag bits are declared as the kernel
 * declares them, so they land where its ABI puts them on any byte order.
 */
struct perf_attr {
	uint32_t	type;
	uint32_t	size;
	uint64_t	config;
	uint64_t	sample_period;
	uint64_t	sample_type;
	uint64_t	read_format;
	uint64_t	disabled:1, inherit:1, pinned:1, exclusive:1,
			exclude_user:1, exclude_kernel:1, exclude_hv:1,
			flags_mid:28, inherit_thread:1, flags_rest:28;
	uint32_t	wakeup_events;
	uint32_t	bp_type;
	uint64_t	config1;
};

#define PERF_ATTR_SIZE_VER0		64
#define PERF_TYPE_HARDWARE		0
#define PERF_TYPE_SOFTWARE		1
#define PERF_COUNT_HW_CPU_CYCLES	0
#define PERF_COUNT_HW_INSTRUCTIONS	1
#define PERF_COUNT_SW_TASK_CLOCK	1
#define PERF_FORMAT_TOTAL_TIME_ENABLED	1
#define PERF_FORMAT_TOTAL_TIME_RUNNING	2
#define PERF_FLAG_FD_CLOEXEC		8

/* One thread's pair of events; next chains a process's threads. */
struct perf_thr {
	int	fd[PERF_NFIELDS];
	pid_t	tid;
	int	next;
};

/* The counted process in a rank slot. */
struct perf_proc {
	pid_t		pid;		/* 0: none */
	uint64_t	start;
	int		first;		/* its threads, -1 ends */
	int		denied;		/* it cannot be counted */
	uint64_t	seen;		/* sample it was last reported in */
	char		name[12];
};

static struct perf_proc	 perf_procs[RANKS_MAX];
static struct perf_thr	 perf_thrs[PERF_THR_MAX];
static int		 perf_free = -1;	/* free list of perf_thrs */
static unsigned		 perf_nfds, perf_fd_budget;
static uint64_t		 perf_seq;
static int		 perf_rescan;	/* no inherit_thread: list threads */
static uint32_t		 perf_type = PERF_TYPE_HARDWARE;
static uint64_t		 perf_config[PERF_NFIELDS] = {
	PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES
};
static pid_t		 perf_tids[PERF_THR_MAX];

static int
perf_event_open(uint64_t config, pid_t tid, int group, uint64_t fmt)
{
	struct perf_attr	a;

	memset(&a, 0, sizeof(a));
	a.type = perf_type;
	a.size = PERF_ATTR_SIZE_VER0;
	a.config = config;
	a.read_format = fmt;
	a.inherit = !perf_rescan;
	a.inherit_thread = !perf_rescan;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, group,
	    PERF_FLAG_FD_CLOEXEC);
}

/* Open one thread's group: cycles (the leader, with its enabled and
 * running times) then instructions.  The pool slot, or -1 with errno. */
static int
perf_open_thread(pid_t tid)
{
	struct perf_thr	*t;
	int		 k, lead, ins;

	if (perf_free < 0 || perf_nfds + PERF_NFIELDS > perf_fd_budget) {
		errno = EMFILE;
		return -1;
	}
	if ((lead = perf_event_open(perf_config[PERF_CYCLES], tid, -1,
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING))
	    < 0)
		return -1;
	if ((ins = perf_event_open(perf_config[PERF_INSTRUCTIONS], tid, lead,
	    0)) < 0) {
		k = errno;
		close(lead);
		errno = k;
		return -1;
	}
	k = perf_free;
	t = &perf_thrs[k];
	perf_free = t->next;
	t->fd[PERF_CYCLES] = lead;
	t->fd[PERF_INSTRUCTIONS] = ins;
	t->tid = tid;
	perf_nfds += PERF_NFIELDS;
	return k;
}

/* Close a process's events and forget it. */
static void
perf_close_proc(struct perf_proc *pp)
{
	struct perf_thr	*t;
	int		 k, next;

	for (k = pp->first; k >= 0; k = next) {
		t = &perf_thrs[k];
		next = t->next;
		close(t->fd[0]);
		close(t->fd[1]);
		perf_nfds -= PERF_NFIELDS;
		t->next = perf_free;
		perf_free = k;
	}
	pp->first = -1;
	pp->pid = 0;
}

/* Why a process could not be counted, once as an EVENT. */
static void
perf_fail(struct perf_proc *pp, int err)
{
	if (err == EACCES || err == EPERM) {
		pp->denied = 1;
		probe_event(EV_WARN, "perf-denied", "cannot count process "
		    "%d: %s; it and others like it are left out",
		    (int)pp->pid, strerror(err));
	} else if (err == EMFILE || err == ENFILE) {
		probe_event(EV_WARN, "perf-full", "no descriptors left for "
		    "counters; some threads are not counted");
	} else if (err != ESRCH)
		probe_event(EV_WARN, "perf-open", "cannot count process %d: "
		    "%s", (int)pp->pid, strerror(err));
}

/* Are a thread's events open already? */
static int
perf_has_thread(const struct perf_proc *pp, pid_t tid)
{
	int	k;

	for (k = pp->first; k >= 0; k = perf_thrs[k].next) {
		if (perf_thrs[k].tid == tid)
			return 1;
	}
	return 0;
}

/*
 * Open events on every thread a process has now that has none.  The
 * threads are all listed before any event is opened: a thread created
 * after the listing is inherited by its creator's event, and must not
 * be opened on its own as well.
 */
static void
perf_open_proc(struct perf_proc *pp)
{
	unsigned	 ntids, i;
	int		 n, k, err = 0;

	if ((n = probe_list_tasks(pp->pid, perf_tids, PERF_THR_MAX)) < 0)
		return;
	ntids = (unsigned)n;
	for (i = 0; i < ntids; i++) {
		if (perf_has_thread(pp, perf_tids[i]))
			continue;
		if ((k = perf_open_thread(perf_tids[i])) < 0) {
			/* A thread that just ended is no failure. */
			if (errno != ESRCH && err == 0)
				err = errno;
			continue;
		}
		perf_thrs[k].next = pp->first;
		pp->first = k;
	}
	if (pp->first < 0 && err != 0)
		perf_fail(pp, err);
	else if (err == EMFILE || err == ENFILE)
		perf_fail(pp, err);
}

/* Sum a process's threads and report them; -1 when nothing was read. */
static int
perf_report(struct perf_proc *pp)
{
	struct perf_thr	*t;
	struct pinst	*pi;
	uint64_t	 sum[PERF_NFIELDS] = { 0, 0 }, lead[3], v;
	int		 k;

	if (pp->first < 0)
		return -1;
	for (k = pp->first; k >= 0; k = t->next) {
		t = &perf_thrs[k];
		/* A sum without one thread would fall, then jump back. */
		if (read(t->fd[PERF_CYCLES], lead, sizeof(lead)) !=
		    (ssize_t)sizeof(lead) ||
		    read(t->fd[PERF_INSTRUCTIONS], &v, sizeof(v)) !=
		    (ssize_t)sizeof(v))
			return -1;
		sum[PERF_CYCLES] += lead[0];
		sum[PERF_INSTRUCTIONS] += v;
		if (lead[2] < lead[1] - lead[1] / 100)
			probe_event(EV_INFO, "perf-multiplexed", "the PMU is "
			    "shared: counters run part of the time, so their "
			    "rates are low (IPC stays right)");
	}
	if ((pi = probe_inst(&perf_group, pp->name)) == NULL)
		return -1;
	pinst_set(pi, PERF_INSTRUCTIONS, (int64_t)sum[PERF_INSTRUCTIONS]);
	pinst_set(pi, PERF_CYCLES, (int64_t)sum[PERF_CYCLES]);
	return 0;
}

/* Count the processes the rank source reported this sample. */
static void
perf_sample(const struct probe_conf *conf)
{
	struct perf_proc	*pp;
	unsigned		 it = 0, i;
	pid_t			 pid;
	uint64_t		 start;

	perf_seq++;
	while (ranks_reported(&it, &pid, &start) == 0) {
		if (it == 0 || it > RANKS_MAX)
			break;
		pp = &perf_procs[it - 1];
		if (pp->pid != pid || pp->start != start) {
			perf_close_proc(pp);
			pp->pid = pid;
			pp->start = start;
			pp->denied = 0;
			snprintf(pp->name, sizeof(pp->name), "%d", (int)pid);
			perf_open_proc(pp);
		}
		else if (perf_rescan && !pp->denied)
			perf_open_proc(pp);
		pp->seen = perf_seq;
		if (!pp->denied)
			perf_report(pp);
	}
	for (i = 0; i < RANKS_MAX; i++) {
		pp = &perf_procs[i];
		if (pp->pid != 0 && pp->seen != perf_seq)
			perf_close_proc(pp);
	}
}

/* Can counters be opened here?  0, or -1 with the reason. */
static int
perf_probe_pmu(const struct probe_conf *conf, int paranoid, char *why,
    size_t whysz)
{
	int	fd, f, err;

	for (f = 0; f < PERF_NFIELDS; f++) {
		if ((fd = perf_event_open(perf_config[f], 0, -1, 0)) < 0 &&
		    errno == EINVAL && !perf_rescan) {
			/* Before Linux 5.13: no inherit_thread. */
			perf_rescan = 1;
			fd = perf_event_open(perf_config[f], 0, -1, 0);
		}
		if (fd >= 0) {
			close(fd);
			continue;
		}
		err = errno;
		if (err == EACCES || err == EPERM)
			snprintf(why, whysz, "perf_event_paranoid=%d forbids "
			    "counters", paranoid);
		else if (err == ENOENT || err == EOPNOTSUPP ||
		    err == ENODEV || err == EINVAL)
			snprintf(why, whysz, "no hardware counters (PMU) on "
			    "this node");
		else if (err == ENOSYS)
			snprintf(why, whysz, "no perf_event_open in this "
			    "kernel");
		else
			snprintf(why, whysz, "perf_event_open: %s",
			    strerror(err));
		return -1;
	}
	return 0;
}

static int
perf_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	struct rlimit	 rl;
	char		 buf[32];
	int64_t		 v;
	int		 paranoid = 2;
	const char	*sw;
	unsigned	 i;

	if (probe_read_file("/proc/sys/kernel/perf_event_paranoid", buf,
	    sizeof(buf)) > 0 && probe_parse_i64(buf, &v) != NULL)
		paranoid = (int)v;
	if (conf->uid != 0 && paranoid >= 3) {
		snprintf(why, whysz, "perf_event_paranoid=%d forbids counters",
		    paranoid);
		return -1;
	}
	if ((sw = getenv("JOBTOP_PERF_SOFTWARE")) != NULL &&
	    strcmp(sw, "1") == 0) {
		perf_type = PERF_TYPE_SOFTWARE;
		perf_config[PERF_INSTRUCTIONS] = PERF_COUNT_SW_TASK_CLOCK;
		perf_config[PERF_CYCLES] = PERF_COUNT_SW_TASK_CLOCK;
	}
	if (perf_probe_pmu(conf, paranoid, why, whysz) < 0)
		return -1;
	if (conf->root[0] != '\0') {
		snprintf(why, whysz, "counters need this node's processes, "
		    "not --root's");
		return -1;
	}
	/* The rank source has raised the limit and keeps up to about
	 * 6144 files open: take what is beyond, or a quarter. */
	perf_fd_budget = PERF_THR_MAX * PERF_NFIELDS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur !=
	    RLIM_INFINITY) {
		if (rl.rlim_cur > 6144 + PERF_FD_RESERVE + 1024)
			v = (int64_t)rl.rlim_cur - 6144 - PERF_FD_RESERVE;
		else
			v = (int64_t)rl.rlim_cur / 4;
		if (v < perf_fd_budget)
			perf_fd_budget = (unsigned)v;
	}
	for (i = 0; i < PERF_THR_MAX; i++)
		perf_thrs[i].next = i + 1 < PERF_THR_MAX ? (int)i + 1 : -1;
	perf_free = 0;
	for (i = 0; i < RANKS_MAX; i++)
		perf_procs[i].first = -1;
	return 0;
}

const struct source src_perf = {
	"perf", perf_groups, perf_init, perf_sample
};
