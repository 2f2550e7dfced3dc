/* SPDX-License-Identifier: ISC */
/*
 * mpi: how much of each rank's CPU time goes into its MPI library, live
 * and without relinking, one instance of group "rankmpi" per process the
 * rank source reports, named like its rank instance (the pid).
 *
 * Each thread of the process gets a sampling event of the software CPU
 * clock (perf_event_open, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK:
 * no PMU needed; allowed on one's own processes at perf_event_paranoid 2,
 * always for root) that records the user-space instruction pointer and
 * the top MPI_STACK bytes of the user stack (PERF_SAMPLE_IP, TID and
 * STACK_USER, exclude_kernel) at a low rate into a ring of 1 + 2^n pages
 * (MPI_RING_DATA bytes of data) the probe maps.  Every sample the probe
 * drains the rings and looks each address up in the process's executable
 * mappings (/proc/PID/maps): the mappings of the MPI libraries and
 * transports of mpi_libs[] below count as MPI; an address in a
 * system-call wrapper library (mpi_syslibs[]: libc, and libevent) counts
 * as MPI when a return address into an MPI library is among the stack
 * words (an MPI transport waiting in poll, recv or epoll_wait over TCP
 * spends most of its user-space time there), and "lib" is then that
 * library; everything else is not MPI.  The counters sent are the
 * samples taken ("samples") and those that fell in MPI ("mpi"); their
 * rates' ratio is the share of the process's user-space CPU time spent
 * in MPI, which the monitor computes.  "lib" is the library most of the
 * latest interval's MPI samples fell in.  Time in the kernel is not
 * sampled (exclude_kernel is what paranoid 2 allows): an MPI that waits
 * in a system call is seen only by the user-space side of its loop, the
 * wrappers included.  A kernel that refuses the stack dump gets
 * instruction pointers alone.
 *
 * Threads: an inherited sampling event cannot be mapped (the kernel
 * refuses mmap of an inherit event bound to a task), so each thread has
 * an event and a ring of its own; task/ is listed again every
 * MPI_RESCAN_US, which is how late a new thread (an MPI progress thread,
 * OpenMP workers) starts to be sampled.  At most MPI_THR_PER threads of a
 * process and MPI_THR_MAX in all are sampled; ring memory is locked
 * memory (perf_event_mlock_kb, then RLIMIT_MEMLOCK, for an unprivileged
 * probe), and when it runs out the threads left are not sampled (an
 * EVENT says so).
 *
 * Maps: read when the process is first seen, again when an address fell
 * in no executable mapping known (a library loaded since: MPI transports
 * are loaded at MPI_Init), at most once per MPI_REMAP_US then doubling
 * while rereading does not explain the addresses (code generated at run
 * time), and every MPI_NOLIB_US for a process that maps no MPI library
 * (mpi4py loads it on import).  Only the executable mappings are kept,
 * those of other files merged into spans between the MPI ones, so a
 * process needs a few ranges whatever it maps.
 *
 * Cost: the rate per thread starts at MPI_HZ_MAX and adapts each sample
 * so that this source's own CPU time (CLOCK_THREAD_CPUTIME_ID around its
 * sample function; the probe has one thread), smoothed, stays under
 * MPI_BUDGET_PPM of one CPU, and so that a ring cannot fill within one
 * interval.  The
 * kernel's cost of a sample is paid by the sampled thread (a timer
 * interrupt: about a microsecond each, so 0.01% of a rank at 100 Hz).
 * The rate in use is the gauge "hz".
 *
 * A process without a share has the string "why" instead of counters:
 * it maps no known MPI library, sampling it is not allowed (another
 * user's process, seccomp), its maps are not readable, or there is no
 * ring memory left.  The source is off, with its reason, when
 * perf_event_paranoid forbids an unprivileged probe (3 and above), when
 * the kernel has no perf_event_open or refuses the software clock (a
 * container's seccomp filter), under --root (the processes are a
 * fixture's, not this node's), and when JOBTOP_MPI_SAMPLE=0 is in the
 * probe's environment (how the benchmark measures it off).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ranks.h"

#define MPI_THR_MAX	4096	/* sampled threads, all processes */
#define MPI_THR_PER	64	/* sampled threads of one process */
#define MPI_RANGES	48	/* executable ranges kept per process */
#define MPI_LIBNAMES	64	/* MPI library names, all processes */
#define MPI_LIBLEN	32	/* bytes of a name, with the NUL */
#define MPI_HZ_MAX	100	/* per thread */
#define MPI_HZ_MIN	5
#define MPI_BUDGET_PPM	2000	/* of one CPU: 0.2% */
#define MPI_RESCAN_US	2000000	/* list a process's threads again */
#define MPI_REMAP_US	1000000	/* earliest reread on unknown addresses */
#define MPI_REMAP_MAX	64000000
#define MPI_NOLIB_US	10000000 /* reread the maps of a non-MPI process */

enum {
	M_SAMPLES, M_MPI, M_LIB, M_WHY, M_HZ, M_NFIELDS
};

static const struct field_def mpi_fields[M_NFIELDS] = {
	{ "samples",	"count",	PF_COUNTER },
	{ "mpi",	"count",	PF_COUNTER },
	{ "lib",	"",		PF_STRING },
	{ "why",	"",		PF_STRING },
	{ "hz",		"",		PF_GAUGE },
};
static const struct group_def mpi_group = {
	"rankmpi", mpi_fields, M_NFIELDS
};
static const struct group_def *mpi_groups[] = { &mpi_group, NULL };

/*
 * The MPI libraries and their transports, by the stem of the file name
 * (the base name before ".so"): STEM matches the stem itself or the stem
 * followed by '-', '_' or a digit ("libmlx5-rdmav34"), PREFIX any stem
 * that starts so, SUFFIX any stem that ends so (libfabric's providers).
 * How to add one: a line here.
 */
enum { MPI_STEM, MPI_PREFIX, MPI_SUFFIX };
struct mpi_libdef {
	const char	*name;
	int		 how;
};
static const struct mpi_libdef mpi_libs[] = {
	{ "libmpi",		MPI_PREFIX },	/* Open MPI, Intel MPI,
						 * MPICH's libmpich, libmpifort,
						 * Cray's libmpi_cray... */
	{ "libmpl",		MPI_STEM },	/* MPICH's utilities */
	{ "libopen-pal",	MPI_STEM },	/* Open MPI's progress engine */
	{ "libopen-rte",	MPI_STEM },
	{ "libompi",		MPI_PREFIX },
	{ "mca_",		MPI_PREFIX },	/* Open MPI components */
	{ "libmca_",		MPI_PREFIX },
	{ "libprrte",		MPI_STEM },
	{ "libpmi",		MPI_PREFIX },	/* PMI, PMI2, PMIx */
	{ "libfabric",		MPI_STEM },	/* OFI */
	{ "-fi",		MPI_SUFFIX },	/* its providers: libpsmx2-fi */
	{ "libucp",		MPI_PREFIX },	/* UCX */
	{ "libuct",		MPI_PREFIX },
	{ "libucs",		MPI_PREFIX },
	{ "libucm",		MPI_PREFIX },
	{ "libucc",		MPI_PREFIX },
	{ "libpsm",		MPI_PREFIX },	/* PSM, PSM2, PSM3 */
	{ "libibverbs",		MPI_STEM },	/* verbs and its drivers */
	{ "libmlx4",		MPI_STEM },
	{ "libmlx5",		MPI_STEM },
	{ "librdmacm",		MPI_STEM },
	{ "libhfi1verbs",	MPI_STEM },
	{ "libefa",		MPI_STEM },
	{ "libbnxt_re",		MPI_STEM },
	{ "libcxi",		MPI_STEM },	/* HPE Slingshot */
	{ "libugni",		MPI_STEM },	/* Cray Gemini/Aries */
	{ "libdmapp",		MPI_STEM },
	{ "libportals",		MPI_PREFIX },
	{ "libxpmem",		MPI_STEM },	/* shared-memory transports */
	{ "libknem",		MPI_STEM },
	{ "libhcoll",		MPI_PREFIX },	/* collective offload */
	{ "libsharp",		MPI_PREFIX },
};

/*
 * The system-call wrapper libraries, and libevent, through which Open MPI
 * polls where it links the system's: a sample whose address is in one of
 * these is an MPI sample when the MPI library called it (the transports
 * poll, recv and epoll_wait through them while they wait):
 * when a return address into an MPI library is among the words at the
 * top of the sampled thread's stack.  Only these, not any library: a
 * wrapper is a leaf or nearly, so its caller's return address is within
 * MPI_STACK bytes, which is not true of a library with deeper frames
 * (and an MPI callback under the program's own code would count).
 */
static const struct mpi_libdef mpi_syslibs[] = {
	{ "libc",		MPI_STEM },	/* glibc: libc.so.6 */
	{ "libpthread",		MPI_STEM },	/* glibc before 2.34 */
	{ "libc.musl",		MPI_PREFIX },	/* Alpine's musl */
	{ "ld-musl",		MPI_PREFIX },	/* musl is its own ld.so */
	{ "libevent",		MPI_PREFIX },	/* Open MPI's progress loop
						 * where it links the system's
						 * (Debian): libevent_core */
};

/* The first 96 bytes of struct perf_event_attr (PERF_ATTR_SIZE_VER3:
 * sample_stack_user is in it; musl has no <linux/perf_event.h>). */
struct mpi_attr {
	uint32_t	type;
	uint32_t	size;
	uint64_t	config;
	uint64_t	sample_period;
	uint64_t	sample_type;
	uint64_t	read_format;
	uint64_t	disabled:1, inherit:1, pinned:1, exclusive:1,
			exclude_user:1, exclude_kernel:1, exclude_hv:1,
			exclude_idle:1, flags_rest:56;
	uint32_t	wakeup_events;
	uint32_t	bp_type;
	uint64_t	config1;
	uint64_t	config2;
	uint64_t	branch_sample_type;
	uint64_t	sample_regs_user;
	uint32_t	sample_stack_user;
	int32_t		clockid;
};

#define MPI_ATTR_SIZE_VER3	96
#define MPI_TYPE_SOFTWARE	1
#define MPI_SW_CPU_CLOCK	0
#define MPI_SAMPLE_IP		(1u << 0)
#define MPI_SAMPLE_TID		(1u << 1)
#define MPI_SAMPLE_STACK_USER	(1u << 13)
/* Bytes of user stack each sample carries (a multiple of 8): the return
 * address of a system-call wrapper's caller is within its frame (glibc's
 * cancellable wrappers keep 40 bytes, with a call inside); 256 reaches
 * through libevent's loop (poll <- libevent <- libopen-pal: 128 did not,
 * Open MPI over TCP on Debian waiting at 29% instead of 77%). */
#define MPI_STACK		256
/* A sample record: header, ip, pid and tid, the stack's size, the stack,
 * its dynamic size; without the stack, up to pid and tid. */
#define MPI_REC_STACK		(8 + 8 + 8 + 8 + MPI_STACK + 8)
#define MPI_REC_PLAIN		(8 + 8 + 8)
/* Data bytes of a ring (a power of two of pages, at least one): a
 * second's records at MPI_HZ_MAX with room. */
#define MPI_RING_DATA		32768
#define MPI_FLAG_FD_CLOEXEC	8
#define MPI_IOC_PERIOD		_IOW('$', 4, uint64_t)
#define MPI_RECORD_LOST		2
#define MPI_RECORD_SAMPLE	9
/* struct perf_event_mmap_page: data_head and data_tail. */
#define MPI_DATA_HEAD		1024
#define MPI_DATA_TAIL		1032

/* What an address is, besides the index of an MPI library (>= 0). */
#define MPI_OTHER	(-1)	/* other code */
#define MPI_NONE	(-2)	/* in no executable mapping known */
#define MPI_SYSLIB	(-3)	/* in a system-call wrapper library */

/* One executable range of a process: MPI library lib, or MPI_OTHER or
 * MPI_SYSLIB. */
struct mpi_range {
	uint64_t	start, end;
	int16_t		lib;
};

/* A process's executable ranges, ascending. */
struct mpi_rset {
	unsigned	 n;
	int		 next;		/* the free list */
	struct mpi_range r[MPI_RANGES];
};

/* One sampled thread. */
struct mpi_thr {
	int		 fd;
	pid_t		 tid;
	int		 next;
	unsigned char	*ring;		/* the control page, then data */
	size_t		 ringsz;	/* mpi_ringsz, or two pages */
};

enum {
	MP_OK, MP_NOLIB, MP_DENIED, MP_NOMAPS, MP_NOMEM
};

/* The sampled process in a rank slot. */
struct mpi_proc {
	pid_t		 pid;		/* 0: none */
	uint64_t	 start;
	int		 first;		/* its threads, -1 ends */
	int		 state;		/* MP_* */
	int		 err;		/* errno of MP_DENIED, MP_NOMAPS */
	uint64_t	 seen;
	uint64_t	 samples, mpi;	/* the counters sent */
	uint64_t	 tasks_us;	/* task/ last listed */
	uint64_t	 maps_us;	/* maps last read */
	uint64_t	 remap_us;	/* wait before rereading them */
	int		 rset;		/* its ranges (MPI processes
					 * only), -1 none */
	char		 name[12];
};

static struct mpi_proc	 mpi_procs[RANKS_MAX];
/* Range sets, given to processes that map an MPI library: below
 * mpi_rset_hw, used or free, the others never touched. */
static struct mpi_rset	 mpi_rsets[RANKS_MAX];
static struct mpi_rset	 mpi_rscratch;	/* what maps was parsed into */
static unsigned		 mpi_rset_hw;
static int		 mpi_rset_free = -1;
static unsigned		 mpi_proc_hw;	/* slots used are below */
/* Threads' slots: below mpi_thr_hw, used or on the free list; none is
 * touched before it is needed, so the table costs memory as it fills. */
static struct mpi_thr	 mpi_thrs[MPI_THR_MAX];
static unsigned		 mpi_thr_hw;
static int		 mpi_free = -1;
static unsigned		 mpi_nthr, mpi_fd_budget;
static uint64_t		 mpi_seq;
static uint64_t		 mpi_period_ns;	/* 1e9 / hz */
static unsigned		 mpi_hz;
static size_t		 mpi_pgsz, mpi_ringsz;
static size_t		 mpi_recsz;	/* a sample record's bytes */
static int		 mpi_stack = 1;	/* samples carry the user stack */
static double		 mpi_interval;	/* seconds between samples */
static uint64_t		 mpi_last_us;	/* the previous sample */
static double		 mpi_cost_ns;	/* smoothed CPU ns a second */
static char		 mpi_libnames[MPI_LIBNAMES][MPI_LIBLEN];
static unsigned		 mpi_nlibnames;
static char		 mpi_maps[65536];
static pid_t		 mpi_tids[MPI_THR_PER * 4];
static uint64_t		 mpi_ips[4096];	/* one process's drained samples */
static uint32_t		 mpi_hits[MPI_LIBNAMES];

/*
 * Is the file at path (a maps line's path, up to its end) one of
 * mpi_libs[]?  The index of its stem in mpi_libnames (added when new,
 * the stem cut to MPI_LIBLEN - 1 bytes), -1 when it is not an MPI
 * library, -2 when it is but the name table is full.
 */
/*
 * Is the file at path (a maps line's path, up to its end) one of the n
 * libraries of tab?  Its stem (the base name before ".so") in *base and
 * *slen when it is.
 */
static int
mpi_match(const char *path, size_t len, const struct mpi_libdef *tab,
    size_t n, const char **basep, size_t *slenp)
{
	const char	*base = path, *p, *e;
	size_t		 slen, nlen, i;
	int		 hit = 0;
	char		 c;

	for (p = path; p < path + len; p++) {
		if (*p == '/')
			base = p + 1;
	}
	e = path + len;
	/* The stem: up to ".so" (".so", ".so.12"). */
	for (p = base; p + 3 <= e; p++) {
		if (p[0] == '.' && p[1] == 's' && p[2] == 'o' &&
		    (p + 3 == e || p[3] == '.'))
			break;
	}
	if (p + 3 > e)
		return 0;	/* not a shared object */
	slen = (size_t)(p - base);
	if (slen == 0)
		return 0;
	for (i = 0; i < n && !hit; i++) {
		nlen = strlen(tab[i].name);
		if (nlen > slen)
			continue;
		switch (tab[i].how) {
		case MPI_STEM:
			c = slen > nlen ? base[nlen] : '\0';
			hit = memcmp(base, tab[i].name, nlen) == 0 &&
			    (c == '\0' || c == '-' || c == '_' ||
			    (c >= '0' && c <= '9'));
			break;
		case MPI_PREFIX:
			hit = memcmp(base, tab[i].name, nlen) == 0;
			break;
		case MPI_SUFFIX:
			hit = memcmp(base + slen - nlen, tab[i].name,
			    nlen) == 0;
			break;
		}
	}
	*basep = base;
	*slenp = slen;
	return hit;
}

/* Is the file at path one of mpi_syslibs[]? */
static int
mpi_is_syslib(const char *path, size_t len)
{
	const char	*base;
	size_t		 slen;

	return mpi_match(path, len, mpi_syslibs, sizeof(mpi_syslibs) /
	    sizeof(mpi_syslibs[0]), &base, &slen);
}

static int
mpi_classify(const char *path, size_t len)
{
	const char	*base;
	size_t		 slen, i;
	char		 stem[MPI_LIBLEN];
	char		 c;

	if (!mpi_match(path, len, mpi_libs, sizeof(mpi_libs) /
	    sizeof(mpi_libs[0]), &base, &slen))
		return -1;
	if (slen >= sizeof(stem))
		slen = sizeof(stem) - 1;
	for (i = 0; i < slen; i++) {
		c = base[i];
		stem[i] = c > ' ' && c <= '~' && c != '"' && c != '\\' ? c :
		    '_';
	}
	stem[slen] = '\0';
	for (i = 0; i < mpi_nlibnames; i++) {
		if (strcmp(mpi_libnames[i], stem) == 0)
			return (int)i;
	}
	if (mpi_nlibnames == MPI_LIBNAMES)
		return -2;
	memcpy(mpi_libnames[mpi_nlibnames], stem, slen + 1);
	return (int)mpi_nlibnames++;
}

/* Add [start, end) to the ranges, merging an "other" range into an
 * "other" span before it.  -1 when full. */
static int
mpi_range_add(struct mpi_range *r, unsigned *n, uint64_t start,
    uint64_t end, int lib)
{
	if (*n > 0 && lib == MPI_OTHER && r[*n - 1].lib == MPI_OTHER &&
	    start >= r[*n - 1].end) {
		r[*n - 1].end = end;
		return 0;
	}
	if (*n == MPI_RANGES)
		return -1;
	r[*n].start = start;
	r[*n].end = end;
	r[*n].lib = (int16_t)lib;
	(*n)++;
	return 0;
}

/*
 * Parse the text of /proc/PID/maps ("start-end perms offset dev inode
 * path" a line, ascending and not overlapping) into the executable
 * ranges r, at most MPI_RANGES; how many, with *mpi set when one is an
 * MPI library's.  A malformed line, one out of order or not executable
 * is skipped; what does not fit is left out (its addresses are then
 * "unknown", as in a library loaded since).
 */
static unsigned
mpi_maps_parse(const char *buf, struct mpi_range *r, int *mpi)
{
	const char	*p = buf, *nl, *q, *path;
	uint64_t	 start, end, last = 0;
	unsigned	 n = 0, f;
	int		 lib;
	char		*x;

	*mpi = 0;
	for (; *p != '\0'; p = *nl != '\0' ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		start = strtoull(p, &x, 16);
		if (x == p || *x != '-')
			continue;
		q = x + 1;
		end = strtoull(q, &x, 16);
		if (x == q || *x != ' ' || end <= start || start < last ||
		    x + 5 > nl)
			continue;
		q = x + 1;
		if (q[2] != 'x')
			continue;
		/* The path: after perms, offset, dev and inode, if any. */
		for (f = 0, path = q; f < 4 && path < nl; f++) {
			path += strcspn(path, " \n");
			while (path < nl && *path == ' ')
				path++;
		}
		lib = MPI_OTHER;
		if (f == 4 && path < nl && *path == '/') {
			lib = mpi_classify(path, (size_t)(nl - path));
			if (lib < 0)
				lib = mpi_is_syslib(path, (size_t)(nl - path)) ?
				    MPI_SYSLIB : MPI_OTHER;
		}
		if (lib >= 0)
			*mpi = 1;
		if (mpi_range_add(r, &n, start, end, lib) < 0)
			break;
		last = end;
	}
	return n;
}

/* The range holding ip: the MPI library (>= 0), MPI_OTHER,
 * MPI_SYSLIB, or MPI_NONE. */
static int
mpi_lookup(const struct mpi_rset *rs, uint64_t ip)
{
	unsigned	lo = 0, hi = rs->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ip < rs->r[mid].start)
			hi = mid;
		else if (ip >= rs->r[mid].end)
			lo = mid + 1;
		else
			return rs->r[mid].lib;
	}
	return MPI_NONE;
}

/* Give a process's range set back. */
static void
mpi_rset_put(struct mpi_proc *mp)
{
	if (mp->rset < 0)
		return;
	mpi_rsets[mp->rset].next = mpi_rset_free;
	mpi_rset_free = mp->rset;
	mp->rset = -1;
}

/* A range set for a process (there are as many as rank slots). */
static struct mpi_rset *
mpi_rset_get(struct mpi_proc *mp)
{
	if (mp->rset < 0) {
		if (mpi_rset_free >= 0) {
			mp->rset = mpi_rset_free;
			mpi_rset_free = mpi_rsets[mp->rset].next;
		} else
			mp->rset = (int)mpi_rset_hw++;
	}
	return &mpi_rsets[mp->rset];
}

/* Read a process's maps; 0, or -1 with the state set. */
static int
mpi_read_maps(struct mpi_proc *mp, uint64_t now)
{
	struct mpi_rset	*rs;
	char		 path[64];
	int		 fd, mpi, err;
	ssize_t		 n, got = 0;

	mp->maps_us = now;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)mp->pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		err = errno;
		goto fail;
	}
	/* maps comes a page or so a read; a longer file is cut off. */
	while ((size_t)got < sizeof(mpi_maps) - 1 && (n = read(fd,
	    mpi_maps + got, sizeof(mpi_maps) - 1 - (size_t)got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			close(fd);
			goto fail;
		}
		got += n;
	}
	close(fd);
	/* Cut at the last whole line. */
	while (got > 0 && mpi_maps[got - 1] != '\n')
		got--;
	mpi_maps[got] = '\0';
	mpi_rscratch.n = mpi_maps_parse(mpi_maps, mpi_rscratch.r, &mpi);
	if (!mpi) {
		/* Only processes with an MPI library keep their ranges. */
		mpi_rset_put(mp);
		mp->state = MP_NOLIB;
		return -1;
	}
	rs = mpi_rset_get(mp);
	rs->n = mpi_rscratch.n;
	memcpy(rs->r, mpi_rscratch.r, rs->n * sizeof(rs->r[0]));
	if (mp->state == MP_NOLIB || mp->state == MP_NOMAPS)
		mp->state = MP_OK;
	return 0;
fail:
	if (err != ESRCH && err != ENOENT) {
		mp->state = MP_NOMAPS;
		mp->err = err;
	}
	return -1;
}

static int
mpi_event_open(pid_t tid)
{
	struct mpi_attr	a;

	memset(&a, 0, sizeof(a));
	a.type = MPI_TYPE_SOFTWARE;
	a.size = MPI_ATTR_SIZE_VER3;
	a.config = MPI_SW_CPU_CLOCK;
	a.sample_period = mpi_period_ns;
	a.sample_type = MPI_SAMPLE_IP | MPI_SAMPLE_TID;
	if (mpi_stack) {
		a.sample_type |= MPI_SAMPLE_STACK_USER;
		a.sample_stack_user = MPI_STACK;
	}
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	/* No wakeups: nobody polls these; the ring is read each sample. */
	a.wakeup_events = 0;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1,
	    MPI_FLAG_FD_CLOEXEC);
}

/* Open and map one thread's event: its pool slot, or -1 with errno. */
static int
mpi_open_thread(pid_t tid)
{
	struct mpi_thr	*t;
	void		*ring;
	size_t		 sz;
	int		 fd, k, err;

	if ((mpi_free < 0 && mpi_thr_hw == MPI_THR_MAX) ||
	    mpi_nthr >= mpi_fd_budget) {
		errno = EMFILE;
		return -1;
	}
	if ((fd = mpi_event_open(tid)) < 0)
		return -1;
	/* Over the locked-memory limit (EPERM), a ring of one data page
	 * still takes samples: those past it in an interval are lost, the
	 * share stays. */
	sz = mpi_ringsz;
	while ((ring = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0)) == MAP_FAILED) {
		err = errno;
		if (err == EPERM && sz > 2 * mpi_pgsz) {
			sz = 2 * mpi_pgsz;
			continue;
		}
		close(fd);
		errno = err == EPERM ? ENOMEM : err;
		return -1;
	}
	if (mpi_free >= 0) {
		k = mpi_free;
		mpi_free = mpi_thrs[k].next;
	} else
		k = (int)mpi_thr_hw++;
	t = &mpi_thrs[k];
	t->fd = fd;
	t->tid = tid;
	t->ring = ring;
	t->ringsz = sz;
	mpi_nthr++;
	return k;
}

static void
mpi_close_thread(int k)
{
	struct mpi_thr	*t = &mpi_thrs[k];

	munmap(t->ring, t->ringsz);
	close(t->fd);
	t->fd = -1;
	t->next = mpi_free;
	mpi_free = k;
	mpi_nthr--;
}

static void
mpi_close_proc(struct mpi_proc *mp)
{
	int	k, next;

	if (mp->pid == 0)
		return;		/* a slot never used */
	mpi_rset_put(mp);
	for (k = mp->first; k >= 0; k = next) {
		next = mpi_thrs[k].next;
		mpi_close_thread(k);
	}
	mp->first = -1;
	mp->pid = 0;
}

/* List the process's threads into mpi_tids; how many, -1 when gone. */
static int
mpi_list_tasks(const struct mpi_proc *mp)
{
	return probe_list_tasks(mp->pid, mpi_tids,
	    (int)(sizeof(mpi_tids) / sizeof(mpi_tids[0])));
}

/*
 * Sample the threads the process has now: open events on new ones (the
 * main thread first: task/ lists it first), close those of threads gone
 * (their rings are drained first by the caller's order: drain, then
 * rescan).
 */
static void
mpi_rescan(struct mpi_proc *mp, uint64_t now)
{
	int	 ntids, i, k, prev, next, have, err = 0;

	mp->tasks_us = now;
	if ((ntids = mpi_list_tasks(mp)) < 0)
		return;
	/* Close the events of threads that ended. */
	for (prev = -1, k = mp->first; k >= 0; k = next) {
		next = mpi_thrs[k].next;
		for (i = 0; i < ntids && mpi_tids[i] != mpi_thrs[k].tid; i++)
			;
		if (i < ntids) {
			prev = k;
			continue;
		}
		if (prev < 0)
			mp->first = next;
		else
			mpi_thrs[prev].next = next;
		mpi_close_thread(k);
	}
	for (have = 0, k = mp->first; k >= 0; k = mpi_thrs[k].next)
		have++;
	for (i = 0; i < ntids && have < MPI_THR_PER; i++) {
		for (k = mp->first; k >= 0 && mpi_thrs[k].tid != mpi_tids[i];
		    k = mpi_thrs[k].next)
			;
		if (k >= 0)
			continue;
		if ((k = mpi_open_thread(mpi_tids[i])) < 0) {
			if (errno != ESRCH && err == 0)
				err = errno;
			if (errno == ENOMEM || errno == EMFILE)
				break;
			continue;
		}
		mpi_thrs[k].next = mp->first;
		mp->first = k;
		have++;
	}
	if (err == EACCES || err == EPERM) {
		if (mp->first < 0) {
			mp->state = MP_DENIED;
			mp->err = err;
		}
	} else if (err == ENOMEM || err == EMFILE) {
		if (mp->first < 0)
			mp->state = MP_NOMEM;
		probe_event(EV_WARN, "mpi-full", "no ring memory or "
		    "descriptors left for MPI sampling (perf_event_mlock_kb, "
		    "RLIMIT_MEMLOCK); %u threads are sampled, others not",
		    mpi_nthr);
	} else if (err != 0 && mp->first < 0) {
		mp->state = MP_DENIED;
		mp->err = err;
	}
}

/* Copy len bytes (at most dsz) at offset off of a data ring of dsz
 * bytes (a power of two), across its end. */
static void
mpi_ring_copy(const unsigned char *data, size_t dsz, uint64_t off,
    void *dst, size_t len)
{
	size_t	at, first;

	at = (size_t)(off & (dsz - 1));
	first = dsz - at < len ? dsz - at : len;
	memcpy(dst, data + at, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

/*
 * A sample in a system-call wrapper: the MPI return address among the
 * stack words of the record at rec (of size bytes, its stack, when it
 * carries one, at byte 24: "u64 size, data, u64 dyn_size", only the size
 * when it is 0), else ip.  Any word in an MPI library's code counts:
 * the search cannot stop at the first return address into other code,
 * since the "other" ranges are merged into spans that cover the heap and
 * the stack between them (a saved frame pointer would end it).  So a
 * libc call of the program's own can be taken for MPI when a stale MPI
 * address lies in an uninitialised slot of its frames within MPI_STACK
 * bytes; only samples in the wrapper libraries are exposed to it.
 */
static uint64_t
mpi_stack_ip(const unsigned char *data, size_t dsz, uint64_t rec,
    size_t size, const struct mpi_rset *rs, uint64_t ip)
{
	uint64_t	ssz, dyn, w[MPI_STACK / 8];
	size_t		nw, i;

	if (size < 32)
		return ip;
	mpi_ring_copy(data, dsz, rec + 24, &ssz, 8);
	if (ssz == 0 || size < 40 || ssz > (uint64_t)size - 40)
		return ip;	/* none dumped, or does not fit */
	mpi_ring_copy(data, dsz, rec + 32 + ssz, &dyn, 8);
	if (dyn > ssz)
		dyn = ssz;
	nw = (size_t)dyn / 8;
	if (nw > sizeof(w) / sizeof(w[0]))
		nw = sizeof(w) / sizeof(w[0]);
	mpi_ring_copy(data, dsz, rec + 32, w, nw * 8);
	for (i = 0; i < nw; i++) {
		if (mpi_lookup(rs, w[i]) >= 0)
			return w[i];
	}
	return ip;
}

/*
 * Parse the records of a data ring of dsz bytes (a power of two) from
 * tail to head into mpi_ips from *n: a sample's instruction pointer, or
 * for one in a system-call wrapper library of rs (may be NULL) the MPI
 * return address its stack holds, which attributes it to that library.
 * Returns the samples lost: the kernel's PERF_RECORD_LOST counts, and
 * those mpi_ips had no room for.  A record that cannot be (a size under
 * 8 or past head) ends the parse: the caller drops the rest.
 */
static uint64_t
mpi_ring_parse(const unsigned char *data, size_t dsz, uint64_t tail,
    uint64_t head, const struct mpi_rset *rs, unsigned *n)
{
	uint64_t	lost = 0, hdr, ip, v[2];
	uint32_t	type;
	uint16_t	size;

	if (head - tail > dsz)
		tail = head;	/* cannot be: start again */
	while (head - tail >= 8) {
		mpi_ring_copy(data, dsz, tail, &hdr, 8);
		type = (uint32_t)(hdr & 0xffffffffu);
		size = (uint16_t)(hdr >> 48);
		if (size < 8 || size > head - tail)
			break;
		if (type == MPI_RECORD_SAMPLE && size >= 16) {
			mpi_ring_copy(data, dsz, tail + 8, &ip, 8);
			if (mpi_stack && rs != NULL &&
			    mpi_lookup(rs, ip) == MPI_SYSLIB)
				ip = mpi_stack_ip(data, dsz, tail, size, rs,
				    ip);
			if (*n < sizeof(mpi_ips) / sizeof(mpi_ips[0]))
				mpi_ips[(*n)++] = ip;
			else
				lost++;
		} else if (type == MPI_RECORD_LOST && size >= 24) {
			/* u64 id, u64 lost */
			mpi_ring_copy(data, dsz, tail + 8, v, 16);
			lost += v[1];
		}
		tail += size;
	}
	return lost;
}

/* Drain one thread's ring into mpi_ips from *n; how many were lost. */
static uint64_t
mpi_drain(const struct mpi_thr *t, const struct mpi_rset *rs, unsigned *n)
{
	uint64_t	*headp, *tailp, head, lost;

	headp = (uint64_t *)(void *)(t->ring + MPI_DATA_HEAD);
	tailp = (uint64_t *)(void *)(t->ring + MPI_DATA_TAIL);
	head = __atomic_load_n(headp, __ATOMIC_ACQUIRE);
	lost = mpi_ring_parse(t->ring + mpi_pgsz, t->ringsz - mpi_pgsz,
	    *tailp, head, rs, n);
	__atomic_store_n(tailp, head, __ATOMIC_RELEASE);
	return lost;
}

/* Attribute the drained samples; how many fell in no known range. */
static unsigned
mpi_attribute(struct mpi_proc *mp, unsigned n, uint64_t *mpi)
{
	unsigned	i, unknown = 0;
	int		lib;

	for (i = 0; i < n; i++) {
		lib = mp->rset >= 0 ? mpi_lookup(&mpi_rsets[mp->rset],
		    mpi_ips[i]) : MPI_NONE;
		if (lib >= 0) {
			(*mpi)++;
			mpi_hits[lib]++;
		} else if (lib == MPI_NONE)
			mpi_ips[unknown++] = mpi_ips[i];
	}
	return unknown;
}

/* Drain a process's threads, attribute and report. */
static void
mpi_report(struct mpi_proc *mp, uint64_t now)
{
	struct pinst	*pi;
	const char	*why = NULL;
	char		 buf[96];
	uint64_t	 mpi = 0;
	unsigned	 n = 0, unknown, i, best = 0;
	int		 k;

	if (mp->state == MP_NOLIB && now - mp->maps_us >= MPI_NOLIB_US &&
	    mpi_read_maps(mp, now) == 0)
		mp->tasks_us = 0;	/* sample it from now on */
	if (mp->state == MP_OK && now - mp->tasks_us >= MPI_RESCAN_US)
		mpi_rescan(mp, now);
	memset(mpi_hits, 0, sizeof(mpi_hits));
	for (k = mp->first; k >= 0; k = mpi_thrs[k].next)
		mpi_drain(&mpi_thrs[k], mp->rset >= 0 ?
		    &mpi_rsets[mp->rset] : NULL, &n);
	unknown = mpi_attribute(mp, n, &mpi);
	if (unknown > 0 && now - mp->maps_us >= mp->remap_us) {
		/* A library loaded since?  Read the maps again and look the
		 * unknown addresses up once more. */
		mpi_read_maps(mp, now);
		i = mpi_attribute(mp, unknown, &mpi);
		if (i == unknown && mp->remap_us < MPI_REMAP_MAX)
			mp->remap_us *= 2;
		else if (i < unknown)
			mp->remap_us = MPI_REMAP_US;
	}
	mp->samples += n;
	mp->mpi += mpi;
	/* Its maps have no MPI library any more (it ran exec): stop. */
	while (mp->state == MP_NOLIB && mp->first >= 0) {
		k = mp->first;
		mp->first = mpi_thrs[k].next;
		mpi_close_thread(k);
	}

	if ((pi = probe_inst(&mpi_group, mp->name)) == NULL)
		return;
	switch (mp->state) {
	case MP_NOLIB:
		why = "maps no known MPI library";
		break;
	case MP_DENIED:
		snprintf(buf, sizeof(buf), "sampling not allowed: %s",
		    strerror(mp->err));
		why = buf;
		break;
	case MP_NOMAPS:
		snprintf(buf, sizeof(buf), "/proc/PID/maps: %s",
		    strerror(mp->err));
		why = buf;
		break;
	case MP_NOMEM:
		why = "no ring memory left (perf_event_mlock_kb)";
		break;
	}
	if (why != NULL && mp->first < 0) {
		pinst_set_str(pi, M_WHY, why);
		return;
	}
	pinst_set(pi, M_SAMPLES, (int64_t)mp->samples);
	pinst_set(pi, M_MPI, (int64_t)mp->mpi);
	pinst_set(pi, M_HZ, mpi_hz);
	for (i = 1; i < mpi_nlibnames; i++) {
		if (mpi_hits[i] > mpi_hits[best])
			best = i;
	}
	if (mpi_nlibnames > 0 && mpi_hits[best] > 0)
		pinst_set_str(pi, M_LIB, mpi_libnames[best]);
}

/* The CPU time this thread has used, in nanoseconds. */
static uint64_t
mpi_cpu_ns(void)
{
	struct timespec	ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Choose the rate for the next interval from this source's smoothed CPU
 * time per second against the budget: down in proportion when over it,
 * up by half when under half of it, within [MPI_HZ_MIN, MPI_HZ_MAX] and
 * what a ring holds in one interval; set it on every event when it moved
 * by a quarter or more.  Part of the cost (maps, thread lists) does not
 * shrink with the rate: when that alone is over the budget the rate
 * stays at the minimum.
 */
static void
mpi_adapt(uint64_t cost_ns)
{
	double		 budget, hz, cap, rate;
	unsigned	 want, i;

	rate = (double)cost_ns / mpi_interval;	/* ns a second */
	mpi_cost_ns = mpi_cost_ns == 0 ? rate : (mpi_cost_ns * 3 + rate) / 4;
	if (mpi_nthr == 0)
		return;
	budget = MPI_BUDGET_PPM * 1e3;		/* ns a second */
	hz = mpi_hz;
	if (mpi_cost_ns > budget)
		hz = mpi_hz * budget / mpi_cost_ns;
	else if (mpi_cost_ns < budget / 2)
		hz = mpi_hz * 1.5;
	/* A ring's records in one interval, with room. */
	cap = (double)(mpi_ringsz - mpi_pgsz) / mpi_recsz * 0.75 /
	    mpi_interval;
	if (hz > cap)
		hz = cap;
	if (hz > MPI_HZ_MAX)
		hz = MPI_HZ_MAX;
	if (hz < MPI_HZ_MIN)
		hz = MPI_HZ_MIN > cap ? cap : MPI_HZ_MIN;
	want = hz < 1 ? 1 : (unsigned)hz;
	if (want * 4 >= mpi_hz * 3 && want * 4 <= mpi_hz * 5)
		return;
	mpi_hz = want;
	mpi_period_ns = 1000000000u / want;
	for (i = 0; i < mpi_thr_hw; i++) {
		if (mpi_thrs[i].fd >= 0)
			ioctl(mpi_thrs[i].fd, MPI_IOC_PERIOD, &mpi_period_ns);
	}
}

/* Sample the processes the rank source reported this sample. */
static void
mpi_sample(const struct probe_conf *conf)
{
	struct mpi_proc	*mp;
	unsigned	 it = 0, i;
	pid_t		 pid;
	uint64_t	 start, now, cpu0;

	cpu0 = mpi_cpu_ns();
	now = probe_mono_us();
	/* The monitor may change the interval (the "interval" control
	 * line): measure it. */
	if (mpi_last_us != 0 && now > mpi_last_us + 1000)
		mpi_interval = (now - mpi_last_us) / 1e6;
	mpi_last_us = now;
	mpi_seq++;
	while (ranks_reported(&it, &pid, &start) == 0) {
		if (it == 0 || it > RANKS_MAX)
			break;
		mp = &mpi_procs[it - 1];
		if (it > mpi_proc_hw)
			mpi_proc_hw = it;
		if (mp->pid != pid || mp->start != start) {
			mpi_close_proc(mp);
			memset(mp, 0, sizeof(*mp));
			mp->first = -1;
			mp->rset = -1;
			mp->pid = pid;
			mp->start = start;
			mp->remap_us = MPI_REMAP_US;
			snprintf(mp->name, sizeof(mp->name), "%d", (int)pid);
			if (mpi_read_maps(mp, now) == 0)
				mpi_rescan(mp, now);
		}
		mp->seen = mpi_seq;
		mpi_report(mp, now);
	}
	for (i = 0; i < mpi_proc_hw; i++) {
		mp = &mpi_procs[i];
		if (mp->pid != 0 && mp->seen != mpi_seq)
			mpi_close_proc(mp);
	}
	mpi_adapt(mpi_cpu_ns() - cpu0);
}

/* Can this probe sample a process of its own?  0, or -1 with why. */
static int
mpi_try(int paranoid, char *why, size_t whysz, int *errp)
{
	void	*ring;
	int	 fd, err;

	*errp = 0;
	if ((fd = mpi_event_open(0)) < 0) {
		err = *errp = errno;
		if (err == EACCES || err == EPERM)
			snprintf(why, whysz, "perf_event_paranoid=%d or a "
			    "seccomp filter forbids sampling", paranoid);
		else if (err == ENOSYS)
			snprintf(why, whysz, "no perf_event_open in this "
			    "kernel (or a seccomp filter hides it)");
		else if (err == ENOENT || err == EOPNOTSUPP || err == EINVAL)
			snprintf(why, whysz, "the kernel has no software CPU "
			    "clock event");
		else
			snprintf(why, whysz, "perf_event_open: %s",
			    strerror(err));
		return -1;
	}
	/* The smallest ring a thread may get. */
	if ((ring = mmap(NULL, 2 * mpi_pgsz, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0)) == MAP_FAILED) {
		snprintf(why, whysz, "cannot map a sample ring: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	munmap(ring, 2 * mpi_pgsz);
	close(fd);
	return 0;
}

static int
mpi_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	struct rlimit	 rl;
	char		 buf[32];
	const char	*env;
	int64_t		 v;
	size_t		 pages;
	int		 paranoid = 2, err;

	if ((env = getenv("JOBTOP_MPI_SAMPLE")) != NULL &&
	    strcmp(env, "0") == 0) {
		snprintf(why, whysz, "turned off (JOBTOP_MPI_SAMPLE=0)");
		return -1;
	}
	if (conf->root[0] != '\0') {
		snprintf(why, whysz, "sampling needs this node's processes, "
		    "not --root's");
		return -1;
	}
	if (probe_read_file("/proc/sys/kernel/perf_event_paranoid", buf,
	    sizeof(buf)) > 0 && probe_parse_i64(buf, &v) != NULL)
		paranoid = (int)v;
	if (conf->uid != 0 && paranoid >= 3) {
		snprintf(why, whysz, "perf_event_paranoid=%d forbids sampling",
		    paranoid);
		return -1;
	}
	mpi_pgsz = conf->page_size > 0 ? conf->page_size : 4096;
	/* The control page, then 2^n data pages. */
	for (pages = 1; pages * mpi_pgsz < MPI_RING_DATA; pages *= 2)
		;
	mpi_ringsz = (1 + pages) * mpi_pgsz;
	mpi_interval = conf->interval > 0 ? conf->interval : 1;
	/* A kernel that cannot dump the user stack (before 3.7, or one
	 * that refuses it): instruction pointers alone, as before. */
	for (mpi_stack = 1; mpi_stack >= 0; mpi_stack--) {
		mpi_recsz = mpi_stack ? MPI_REC_STACK : MPI_REC_PLAIN;
		mpi_hz = MPI_HZ_MAX;
		if (mpi_hz > (mpi_ringsz - mpi_pgsz) / mpi_recsz * 3 / 4 /
		    mpi_interval)
			mpi_hz = (unsigned)((mpi_ringsz - mpi_pgsz) /
			    mpi_recsz * 3 / 4 / mpi_interval);
		if (mpi_hz < 1)
			mpi_hz = 1;
		mpi_period_ns = 1000000000u / mpi_hz;
		if (mpi_try(paranoid, why, whysz, &err) == 0)
			break;
		if (!mpi_stack || (err != EINVAL && err != E2BIG))
			return -1;
	}
	/* Descriptors: a quarter of the limit (the rank source has
	 * raised it to the hard maximum). */
	mpi_fd_budget = MPI_THR_MAX;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur !=
	    RLIM_INFINITY) {
		v = (int64_t)rl.rlim_cur / 4;
		if (v < (int64_t)mpi_fd_budget)
			mpi_fd_budget = (unsigned)v;
	}
	return 0;
}

const struct source src_mpi = {
	"mpi", mpi_groups, mpi_init, mpi_sample
};
