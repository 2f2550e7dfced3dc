/* SPDX-License-Identifier: ISC */
/*
 * mpi: how much of each rank's CPU time goes into its MPI library, or its
 * collective library (NCCL, RCCL, oneCCL, UCC, gloo: COMM% in the
 * monitor, "family" names which), live and without relinking, one
 * instance of group "rankmpi" per process the rank source reports, named
 * like its rank instance (the pid).  Libraries that embed collective
 * code (libtorch's gloo and c10d) count only in the functions whose
 * symbols match mpi_embed_pats[], found per sample in a cache of sorted
 * ranges read once per file (elfsym.c; mpi_sym_get below for its bounds).
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
 * sample function, less the one-off reading of a library's symbols; the
 * probe has one thread), smoothed, stays under
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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "elfsym.h"
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
	M_SAMPLES, M_MPI, M_LIB, M_WHY, M_HZ, M_FAMILY, M_SYMBOL, M_NFIELDS
};

static const struct field_def mpi_fields[M_NFIELDS] = {
	{ "samples",	"count",	PF_COUNTER },
	{ "mpi",	"count",	PF_COUNTER },
	{ "lib",	"",		PF_STRING },
	{ "why",	"",		PF_STRING },
	{ "hz",		"",		PF_GAUGE },
	{ "family",	"",		PF_STRING },
	{ "symbol",	"count",	PF_COUNTER },
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

/*
 * The families of communication libraries, as "family" names them: the
 * library a rank's collectives go through.  COMM_C10D is torch's
 * distributed layer where the backend cannot be told (a fallback only).
 */
enum {
	COMM_NONE, COMM_MPI, COMM_NCCL, COMM_RCCL, COMM_ONECCL, COMM_UCC,
	COMM_GLOO, COMM_C10D, COMM_NFAM
};
static const char *const mpi_famname[COMM_NFAM] = {
	"", "MPI", "NCCL", "RCCL", "oneCCL", "UCC", "gloo", "c10d"
};

/* A library's flags: WEAK, a transport (UCX, verbs, libfabric...) whose
 * samples are the family of the process's own library (its fam only
 * when none is known: an MPI linked statically maps only these); EMBED,
 * a bigger library that carries collective code inside it (libtorch):
 * only its functions that mpi_embed_pats[] match count, found by the
 * sample's symbol (elfsym.c). */
#define MPI_WEAK	1
#define MPI_EMBED	2

struct mpi_libdef {
	const char	*name;
	int		 how;
	unsigned char	 fam;
	unsigned char	 flags;
};
#define W	MPI_WEAK
static const struct mpi_libdef mpi_libs[] = {
	/* MPI: Open MPI, Intel MPI, MPICH's libmpich, libmpifort, Cray's
	 * libmpi_cray... */
	{ "libmpi",		MPI_PREFIX,	COMM_MPI,	0 },
	{ "libmpl",		MPI_STEM,	COMM_MPI,	0 },	/* MPICH */
	{ "libopen-pal",	MPI_STEM,	COMM_MPI,	0 },	/* Open MPI */
	{ "libopen-rte",	MPI_STEM,	COMM_MPI,	0 },
	{ "libompi",		MPI_PREFIX,	COMM_MPI,	0 },
	{ "mca_",		MPI_PREFIX,	COMM_MPI,	0 },	/* components */
	{ "libmca_",		MPI_PREFIX,	COMM_MPI,	0 },
	{ "libprrte",		MPI_STEM,	COMM_MPI,	0 },
	{ "libpmi",		MPI_PREFIX,	COMM_MPI,	0 },	/* PMI, PMIx */
	/* Collective libraries of GPU and AI training. */
	{ "libnccl",		MPI_PREFIX,	COMM_NCCL,	0 },	/* and its
								 * net plugins */
	{ "librccl",		MPI_PREFIX,	COMM_RCCL,	0 },	/* AMD */
	{ "libccl",		MPI_STEM,	COMM_ONECCL,	0 },	/* oneCCL */
	{ "liboneccl_bindings",	MPI_PREFIX,	COMM_ONECCL,	0 },
	{ "libucc",		MPI_PREFIX,	COMM_UCC,	0 },	/* and its
								 * components */
	{ "libgloo",		MPI_STEM,	COMM_GLOO,	0 },	/* Debian's */
	/* libtorch, libtorch_cpu, libtorch_cuda, libtorch_python: gloo and
	 * torch.distributed (c10d) compiled in. */
	{ "libtorch",		MPI_STEM,	COMM_C10D,	MPI_EMBED },
	/* Transports. */
	{ "libfabric",		MPI_STEM,	COMM_MPI,	W },	/* OFI */
	{ "-fi",		MPI_SUFFIX,	COMM_MPI,	W },	/* libpsmx2-fi */
	{ "libucp",		MPI_PREFIX,	COMM_MPI,	W },	/* UCX */
	{ "libuct",		MPI_PREFIX,	COMM_MPI,	W },
	{ "libucs",		MPI_PREFIX,	COMM_MPI,	W },
	{ "libucm",		MPI_PREFIX,	COMM_MPI,	W },
	{ "libpsm",		MPI_PREFIX,	COMM_MPI,	W },	/* PSM 1-3 */
	{ "libibverbs",		MPI_STEM,	COMM_MPI,	W },	/* verbs */
	{ "libmlx4",		MPI_STEM,	COMM_MPI,	W },
	{ "libmlx5",		MPI_STEM,	COMM_MPI,	W },
	{ "librdmacm",		MPI_STEM,	COMM_MPI,	W },
	{ "libhfi1verbs",	MPI_STEM,	COMM_MPI,	W },
	{ "libefa",		MPI_STEM,	COMM_MPI,	W },
	{ "libbnxt_re",		MPI_STEM,	COMM_MPI,	W },
	{ "libcxi",		MPI_STEM,	COMM_MPI,	W },	/* Slingshot */
	{ "libugni",		MPI_STEM,	COMM_MPI,	W },	/* Cray */
	{ "libdmapp",		MPI_STEM,	COMM_MPI,	W },
	{ "libportals",		MPI_PREFIX,	COMM_MPI,	W },
	{ "libxpmem",		MPI_STEM,	COMM_MPI,	W },	/* shared */
	{ "libknem",		MPI_STEM,	COMM_MPI,	W },	/* memory */
	{ "libhcoll",		MPI_PREFIX,	COMM_MPI,	W },	/* offload */
	{ "libsharp",		MPI_PREFIX,	COMM_MPI,	W },
};
#undef W

/*
 * The collective code inside an MPI_EMBED library, by the mangled name
 * of its functions (elfsym.h): the first pattern that matches names the
 * component, which is the sample's "lib", of the family given.  gloo's
 * own namespace, and c10d's process groups by backend; the rest of c10d
 * (work queues, the reducer of DistributedDataParallel, the stores) is
 * torch.distributed's layer whatever the backend.
 */
static const struct {
	const char	*prefix, *lib;
	unsigned char	 fam, flags;
} mpi_embed_pats[] = {
	{ "4gloo",			"gloo",		COMM_GLOO,	0 },
	{ "4c10d16ProcessGroupGloo",	"gloo",		COMM_GLOO,	0 },
	{ "4c10d16ProcessGroupNCCL",	"c10d-nccl",	COMM_NCCL,	0 },
	{ "4c10d15ProcessGroupMPI",	"c10d-mpi",	COMM_MPI,	0 },
	{ "4c10d15ProcessGroupUCC",	"c10d-ucc",	COMM_UCC,	0 },
	{ "4c10d",			"c10d",		COMM_C10D,	MPI_WEAK },
};
#define MPI_NPATS	(sizeof(mpi_embed_pats) / sizeof(mpi_embed_pats[0]))

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
	{ "libc",		MPI_STEM,	0, 0 },	/* glibc: libc.so.6 */
	{ "libpthread",		MPI_STEM,	0, 0 },	/* glibc < 2.34 */
	{ "libc.musl",		MPI_PREFIX,	0, 0 },	/* Alpine's musl */
	{ "ld-musl",		MPI_PREFIX,	0, 0 },	/* musl's ld.so */
	{ "libevent",		MPI_PREFIX,	0, 0 },	/* Open MPI's loop
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
#define MPI_EMBEDDED	(-4)	/* mpi_classify: an MPI_EMBED library */

/* One executable range of a process: MPI library lib, or MPI_OTHER or
 * MPI_SYSLIB; a mapping of an MPI_EMBED library (lib MPI_OTHER) has the
 * symbols of its file in mpi_symfiles[sym], and the file offset of its
 * start in off. */
struct mpi_range {
	uint64_t	start, end;
	uint64_t	off;
	int16_t		lib;
	int16_t		sym;		/* -1: none */
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
	uint64_t	 symbol;	/* of mpi: resolved by symbol */
	unsigned char	 fam;		/* the family last named by a
					 * library of its own (COMM_*) */
	unsigned char	 mapfam;	/* the first its maps have */
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
static unsigned char	 mpi_libfam[MPI_LIBNAMES];	/* COMM_* */
static unsigned char	 mpi_libflags[MPI_LIBNAMES];	/* MPI_WEAK */
static unsigned		 mpi_nlibnames;
/* The components of mpi_embed_pats[] as library names, -1 unknown. */
static int		 mpi_patlib[MPI_NPATS];
static struct elfsym_pat mpi_elfpats[MPI_NPATS];

/*
 * The symbols of the MPI_EMBED libraries mapped, one entry a file (by
 * device and inode, as maps names it), loaded when a process that maps
 * it is first seen or its maps are read again, never again after: at
 * most MPI_SYMFILES files, and MPI_SYM_RANGES function ranges (16 bytes
 * each) in all, 1 MiB; a file past either, or one that cannot be read
 * or parsed, resolves nothing (its samples are not in a collective) and
 * an EVENT says why.  Only the ranges of the functions that
 * mpi_embed_pats[] match are kept, sorted: a sample costs a binary
 * search.
 */
#define MPI_SYMFILES	8
#define MPI_SYM_RANGES	65536
struct mpi_symfile {
	uint64_t		 dev, ino;
	int			 state;		/* 0 free, 1 ok, -1 failed */
	struct elfsym_file	 f;
};
static struct mpi_symfile mpi_symfiles[MPI_SYMFILES];
static unsigned		 mpi_nsymfiles, mpi_symranges;
static int		 mpi_nosym;	/* JOBTOP_COMM_SYMBOLS=0 */
static uint64_t		 mpi_symload_ns;	/* CPU reading symbols, this
						 * sample (once a file) */
static pid_t		 mpi_parse_pid;	/* whose maps are parsed: 0, none
					 * (no symbols are loaded) */
static char		 mpi_maps[65536];
static pid_t		 mpi_tids[MPI_THR_PER * 4];
static uint64_t		 mpi_ips[4096];	/* one process's drained samples */
static uint32_t		 mpi_hits[MPI_LIBNAMES];

/*
 * Is the file at path (a maps line's path, up to its end) one of the n
 * libraries of tab?  Its index in tab plus one (0: none), its stem (the
 * base name before ".so") in *base and *slen.
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
	return hit ? (int)i : 0;	/* the entry's index + 1 */
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

/* The index of library name base (slen bytes, made printable) in
 * mpi_libnames, added with its family and flags when new; -2 when the
 * table is full. */
static int
mpi_libname(const char *base, size_t slen, unsigned fam, unsigned flags)
{
	size_t		 i;
	char		 stem[MPI_LIBLEN];
	char		 c;

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
	mpi_libfam[mpi_nlibnames] = (unsigned char)fam;
	mpi_libflags[mpi_nlibnames] = (unsigned char)flags;
	return (int)mpi_nlibnames++;
}

/*
 * Is the file at path (a maps line's path, up to its end) one of
 * mpi_libs[]?  The index of its stem in mpi_libnames (added when new,
 * the stem cut to MPI_LIBLEN - 1 bytes), -1 when it is not an MPI
 * library, -2 when it is but the name table is full, MPI_EMBEDDED for a
 * library that embeds collective code (its samples are resolved by
 * symbol).
 */
static int
mpi_classify(const char *path, size_t len)
{
	const char	*base;
	size_t		 slen;
	int		 k;

	if ((k = mpi_match(path, len, mpi_libs, sizeof(mpi_libs) /
	    sizeof(mpi_libs[0]), &base, &slen)) == 0)
		return -1;
	k--;
	if (mpi_libs[k].flags & MPI_EMBED)
		return MPI_EMBEDDED;
	return mpi_libname(base, slen, mpi_libs[k].fam, mpi_libs[k].flags);
}

static uint64_t	mpi_cpu_ns(void);

/* The bytes the symbol cache holds (the benchmark prints it). */
static size_t
mpi_sym_bytes(void)
{
	return sizeof(mpi_symfiles) + (size_t)mpi_symranges *
	    sizeof(struct elfsym_range);
}

/* The mpi_embed_pats[] as elfsym patterns and library names, once. */
static void
mpi_sym_pats(void)
{
	size_t	i;

	if (mpi_elfpats[0].prefix != NULL)
		return;
	for (i = 0; i < MPI_NPATS; i++) {
		mpi_elfpats[i].prefix = mpi_embed_pats[i].prefix;
		mpi_elfpats[i].comp = (uint16_t)i;
		mpi_patlib[i] = mpi_libname(mpi_embed_pats[i].lib,
		    strlen(mpi_embed_pats[i].lib), mpi_embed_pats[i].fam,
		    mpi_embed_pats[i].flags | MPI_EMBED);
	}
}

/*
 * The symbol cache entry of the MPI_EMBED library at path (len bytes, as
 * process pid's maps name it: opened through /proc/PID/root, so that a
 * container's file is its own) with device dev (major << 32 | minor) and
 * inode ino: loaded on first use, never again; -1 when it cannot be.
 */
static int
mpi_sym_get(pid_t pid, const char *path, size_t len, uint64_t dev,
    uint64_t ino)
{
	struct mpi_symfile	*sf;
	struct stat		 st;
	char			 file[PATH_MAX];
	const char		*why = NULL;
	void			*img = MAP_FAILED;
	uint64_t		 t0, c0;
	unsigned		 i;
	int			 fd = -1, n;

	if (mpi_nosym)
		return -1;
	for (i = 0; i < mpi_nsymfiles; i++) {
		sf = &mpi_symfiles[i];
		if (sf->dev == dev && sf->ino == ino)
			return sf->state > 0 ? (int)i : -1;
	}
	n = snprintf(file, sizeof(file), "/proc/%d/root%.*s", (int)pid,
	    (int)len, path);
	if (n < 0 || (size_t)n >= sizeof(file))
		return -1;
	if (mpi_nsymfiles == MPI_SYMFILES) {
		probe_event(EV_WARN, "mpi-symbols", "%s: not resolved: the "
		    "symbols of %d libraries are kept already", file + n - len,
		    MPI_SYMFILES);
		return -1;
	}
	mpi_sym_pats();
	t0 = probe_mono_us();
	c0 = mpi_cpu_ns();
	sf = &mpi_symfiles[mpi_nsymfiles];
	memset(sf, 0, sizeof(*sf));
	sf->dev = dev;
	sf->ino = ino;
	sf->state = -1;
	i = mpi_nsymfiles++;
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0 ||
	    fstat(fd, &st) < 0)
		why = strerror(errno);
	else if ((uint64_t)st.st_ino != ino)
		why = "the file was replaced since it was mapped";
	else if (st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX)
		why = "empty";
	else if ((img = mmap(NULL, (size_t)st.st_size, PROT_READ,
	    MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		why = strerror(errno);
	else if (elfsym_parse(img, (size_t)st.st_size, mpi_elfpats,
	    MPI_NPATS, MPI_SYM_RANGES - mpi_symranges, &sf->f, &why) == 0)
		sf->state = 1;
	if (img != MAP_FAILED)
		munmap(img, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	mpi_symload_ns += mpi_cpu_ns() - c0;
	if (sf->state < 0) {
		probe_event(EV_WARN, "mpi-symbols", "%.*s: its collective code "
		    "is not resolved: %s", (int)len, path, why);
		return -1;
	}
	mpi_symranges += sf->f.n;
	probe_event(EV_INFO, "mpi-symbols", "%.*s: %u function ranges of "
	    "collectives%s, read in %.1f ms; symbol cache %zu bytes",
	    (int)len, path, sf->f.n, sf->f.truncated > 0 ? " (more over the "
	    "cap left out)" : "", (double)(probe_mono_us() - t0) / 1e3,
	    mpi_sym_bytes());
	return (int)i;
}

/* Add [start, end) to the ranges, merging an "other" range into an
 * "other" span before it.  -1 when full. */
static int
mpi_range_add(struct mpi_range *r, unsigned *n, uint64_t start,
    uint64_t end, int lib)
{
	if (*n > 0 && lib == MPI_OTHER && r[*n - 1].lib == MPI_OTHER &&
	    r[*n - 1].sym < 0 && start >= r[*n - 1].end) {
		r[*n - 1].end = end;
		return 0;
	}
	if (*n == MPI_RANGES)
		return -1;
	r[*n].start = start;
	r[*n].end = end;
	r[*n].off = 0;
	r[*n].lib = (int16_t)lib;
	r[*n].sym = -1;
	(*n)++;
	return 0;
}

/*
 * Parse the text of /proc/PID/maps ("start-end perms offset dev inode
 * path" a line, ascending and not overlapping) into the executable
 * ranges r, at most MPI_RANGES; how many, with *mpi set when one is an
 * MPI library's (bit 0; bit 1 << family for each family of a library
 * of its own).  A malformed line, one out of order or not executable
 * is skipped; what does not fit is left out (its addresses are then
 * "unknown", as in a library loaded since).  mpi_maps_more parses one
 * more part of the text (whole lines) after *n ranges ending at *last.
 */
static void
mpi_maps_more(const char *buf, struct mpi_range *r, unsigned *np,
    uint64_t *lastp, int *mpi)
{
	const char	*p = buf, *nl, *q, *path, *fld[4];
	uint64_t	 start, end, last = *lastp, off, ino, maj, min;
	unsigned	 n = *np, f;
	int		 lib;
	char		*x;
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
			fld[f] = path;
			path += strcspn(path, " \n");
			while (path < nl && *path == ' ')
				path++;
		}
		lib = MPI_OTHER;
		if (f == 4 && path < nl && *path == '/') {
			lib = mpi_classify(path, (size_t)(nl - path));
			if (lib < 0 && lib != MPI_EMBEDDED)
				lib = mpi_is_syslib(path, (size_t)(nl - path)) ?
				    MPI_SYSLIB : MPI_OTHER;
		}
		if (lib >= 0) {
			*mpi |= 1;
			if (!(mpi_libflags[lib] & MPI_WEAK))
				*mpi |= 1 << mpi_libfam[lib];
		}
		if (lib == MPI_EMBEDDED) {
			/* Kept apart (not merged), resolved by symbol. */
			*mpi |= 1;
			if (mpi_range_add(r, &n, start, end, lib) < 0)
				break;
			r[n - 1].lib = MPI_OTHER;
			/* offset (hex), dev (major:minor, hex), inode */
			off = strtoull(fld[1], &x, 16);
			maj = strtoull(fld[2], &x, 16);
			min = *x == ':' ? strtoull(x + 1, NULL, 16) : 0;
			ino = strtoull(fld[3], NULL, 10);
			r[n - 1].off = off;
			if (mpi_parse_pid > 0)
				r[n - 1].sym = (int16_t)mpi_sym_get(
				    mpi_parse_pid, path, (size_t)(nl - path),
				    maj << 32 | min, ino);
		} else if (mpi_range_add(r, &n, start, end, lib) < 0)
			break;
		last = end;
	}
	*np = n;
	*lastp = last;
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

/*
 * What the sample at ip is: mpi_lookup's answer, except in a range of an
 * MPI_EMBED library, where it is the library name of the collective
 * component whose function holds ip (elfsym), else MPI_OTHER.
 */
static int
mpi_resolve(const struct mpi_rset *rs, uint64_t ip)
{
	const struct mpi_range	*r;
	unsigned		 lo = 0, hi = rs->n, mid;
	int			 c;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		r = &rs->r[mid];
		if (ip < r->start)
			hi = mid;
		else if (ip >= r->end)
			lo = mid + 1;
		else if (r->sym < 0)
			return r->lib;
		else {
			c = elfsym_lookup(&mpi_symfiles[r->sym].f,
			    ip - r->start + r->off);
			return c >= 0 && mpi_patlib[c] >= 0 ? mpi_patlib[c] :
			    MPI_OTHER;
		}
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
	char		 path[64], *e;
	uint64_t	 last = 0;
	unsigned	 nr = 0;
	int		 fd, mpi = 0, err;
	ssize_t		 n, got = 0;
	size_t		 k;

	mp->maps_us = now;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)mp->pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		err = errno;
		goto fail;
	}
	/* maps comes a page or so a read, and a Python process with torch
	 * has 200 kB of it: parsed a buffer of whole lines at a time.  A
	 * line longer than the buffer (a path near PATH_MAX) is cut. */
	mpi_parse_pid = mp->pid;
	for (;;) {
		n = read(fd, mpi_maps + got, sizeof(mpi_maps) - 1 -
		    (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			close(fd);
			mpi_parse_pid = 0;
			goto fail;
		}
		got += n;
		mpi_maps[got] = '\0';
		if ((e = strrchr(mpi_maps, '\n')) != NULL) {
			*e = '\0';
			mpi_maps_more(mpi_maps, mpi_rscratch.r, &nr, &last,
			    &mpi);
			k = (size_t)(got - (e + 1 - mpi_maps));
			memmove(mpi_maps, e + 1, k);
			got = (ssize_t)k;
		} else if ((size_t)got == sizeof(mpi_maps) - 1)
			got = 0;	/* a line too long: dropped */
		if (n == 0)
			break;
	}
	close(fd);
	mpi_parse_pid = 0;
	mpi_rscratch.n = nr;
	if (!mpi) {
		/* Only processes with an MPI library keep their ranges. */
		mpi_rset_put(mp);
		mp->state = MP_NOLIB;
		return -1;
	}
	for (mp->mapfam = COMM_MPI; mp->mapfam < COMM_NFAM &&
	    !(mpi & 1 << mp->mapfam); mp->mapfam++)
		;
	if (mp->mapfam == COMM_NFAM)
		mp->mapfam = COMM_NONE;
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
		if (mpi_resolve(rs, w[i]) >= 0)
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
		lib = mp->rset >= 0 ? mpi_resolve(&mpi_rsets[mp->rset],
		    mpi_ips[i]) : MPI_NONE;
		if (lib >= 0) {
			(*mpi)++;
			mpi_hits[lib]++;
			if (mpi_libflags[lib] & MPI_EMBED)
				mp->symbol++;
		} else if (lib == MPI_NONE)
			mpi_ips[unknown++] = mpi_ips[i];
	}
	return unknown;
}

/*
 * The family the interval's samples name (mpi_hits): the one with most
 * samples in libraries of their own; when only transports (MPI_WEAK)
 * took samples, or none did, the process's own (the last named, else
 * the first its maps have), else the most-hit transport's (best).
 */
static unsigned
mpi_family(struct mpi_proc *mp, unsigned best)
{
	uint32_t	 fh[COMM_NFAM];
	unsigned	 i, top = COMM_NONE;

	memset(fh, 0, sizeof(fh));
	for (i = 0; i < mpi_nlibnames; i++) {
		if (!(mpi_libflags[i] & MPI_WEAK))
			fh[mpi_libfam[i]] += mpi_hits[i];
	}
	for (i = COMM_MPI; i < COMM_NFAM; i++) {
		if (fh[i] > fh[top])
			top = i;
	}
	if (top != COMM_NONE && fh[top] > 0)
		return mp->fam = (unsigned char)top;
	if (mp->fam != COMM_NONE)
		return mp->fam;
	if (mp->mapfam != COMM_NONE)
		return mp->mapfam;
	if (mpi_nlibnames > 0 && mpi_hits[best] > 0)
		return mpi_libfam[best];
	return COMM_NONE;
}

/* Drain a process's threads, attribute and report. */
static void
mpi_report(struct mpi_proc *mp, uint64_t now)
{
	struct pinst	*pi;
	const char	*why = NULL;
	char		 buf[96];
	uint64_t	 mpi = 0;
	unsigned	 n = 0, unknown, i, best = 0, fam;
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
	pinst_set(pi, M_SYMBOL, (int64_t)mp->symbol);
	pinst_set(pi, M_HZ, mpi_hz);
	for (i = 1; i < mpi_nlibnames; i++) {
		if (mpi_hits[i] > mpi_hits[best])
			best = i;
	}
	if (mpi_nlibnames > 0 && mpi_hits[best] > 0)
		pinst_set_str(pi, M_LIB, mpi_libnames[best]);
	fam = mpi_family(mp, best);
	if (fam != COMM_NONE)
		pinst_set_str(pi, M_FAMILY, mpi_famname[fam]);
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
	uint64_t	 start, now, cpu0, cost;

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
	/* Reading a library's symbols is done once a file: not a cost the
	 * rate can lower, so not counted against the budget. */
	cost = mpi_cpu_ns() - cpu0;
	mpi_adapt(cost > mpi_symload_ns ? cost - mpi_symload_ns : 0);
	mpi_symload_ns = 0;
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
	/* Symbol resolution off: the embedded collective code of libtorch
	 * counts as other code (how the benchmark measures its cost). */
	mpi_nosym = (env = getenv("JOBTOP_COMM_SYMBOLS")) != NULL &&
	    strcmp(env, "0") == 0;
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
