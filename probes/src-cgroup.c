/* SPDX-License-Identifier: ISC */
/*
 * cgroup: the job's cgroup accounting, one instance of group "cgroup"
 * named by the job cgroup's path in its hierarchy
 * ("/system.slice/slurmstepd.scope/job_123", "/slurm/uid_1000/job_123"),
 * or "job" when the path is too long for an instance name.  Needs --job.
 *
 * Where: /proc/self/mounts says where the hierarchies are mounted; with a
 * v1 memory controller mounted the job is looked for in v1 (memory, with
 * cpuacct, blkio and pids at the same path in theirs), else in the v2
 * (unified) hierarchy.  The job's directory is, as Slurm makes it,
 * v2 system.slice/slurmstepd.scope/job_ID or system.slice/
 * NODENAME_slurmstepd.scope/job_ID (system.slice beside PID 1's cgroup
 * when that is a container's: ranks_find_v2_root), v1 slurm/uid_U/job_ID
 * (or slurm_NODE/uid_U/job_ID for multiple slurmd; with --uid only the
 * owner's uid_U); failing those, init looks through /proc/PID/cgroup of
 * the node's processes for the same paths or PBS's /pbs_jobs.service/
 * jobid/ID.SERVER, anchored at the hierarchy's root
 * (ranks_find_cgroup_path), and takes the path up to the job.  Slurm
 * 26.05 names the v2 directory by the job's SLUID instead of job_ID
 * (slurmstepd.scope/sEKNKTV3WPV500, unless CgroupJobIdPaths=yes): once
 * the rank scan knows the SLUID (--sluid, SLURM_JOB_SLUID, the step
 * daemon's own cgroup: ranks.h) that directory is the job's; at start-up
 * a first rank scan is run for it when nothing else was found.  Not found at
 * start-up: the source is off, "no cgroup for job N".  When the directory
 * goes away (its files fail to read), its instance vanishes and the
 * search is redone every CG_RESEARCH samples, then also through the
 * cgroup files of the processes the rank source reports (so cgroup comes
 * after ranks in the registry).  Directories are listed with getdents64
 * on static buffers, so a search allocates nothing.
 *
 * Fields: memory in bytes (current usage; the limit, absent when there is
 * none: "max" in v2, a value of 2^62 or more in v1; peak usage, since
 * Linux 5.19 in v2; swap in use), mem_max_hits (times usage hit the limit:
 * v2 memory.events "max", v1 memory.failcnt), oom_kills (memory.events
 * oom_kill, v1 memory.oom_control oom_kill since 4.13), CPU time in
 * microseconds (v2 cpu.stat usage_usec, user_usec, system_usec,
 * throttled_usec; v1 cpuacct.usage in ns divided by 1000, cpuacct.stat
 * user and system in USER_HZ ticks converted), storage I/O bytes summed
 * over devices (v2 io.stat rbytes and wbytes, v1 blkio.throttle.
 * io_service_bytes Read and Write, which Slurm does not set up, so
 * usually absent), pids, and v2 pressure stall information: the 10-second
 * averages of cpu.pressure "some", memory and io "some" and "full" in
 * hundredths of a percent ("centi"), and the "some" totals in
 * microseconds.  A file the kernel lacks leaves its fields absent.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ranks.h"

enum {
	CG_MEM_CURRENT, CG_MEM_MAX, CG_MEM_PEAK, CG_MEM_SWAP, CG_MEM_MAX_HITS,
	CG_OOM_KILLS, CG_CPU_USAGE, CG_CPU_USER, CG_CPU_SYSTEM,
	CG_CPU_THROTTLED, CG_IO_RBYTES, CG_IO_WBYTES, CG_PIDS,
	CG_PSI_CPU_SOME10, CG_PSI_MEM_SOME10, CG_PSI_MEM_FULL10,
	CG_PSI_IO_SOME10, CG_PSI_IO_FULL10, CG_PSI_CPU_TOTAL,
	CG_PSI_MEM_TOTAL, CG_PSI_IO_TOTAL, CG_NFIELDS
};

static const struct field_def cg_fields[CG_NFIELDS] = {
	{ "mem_current",	"bytes", PF_GAUGE },
	{ "mem_max",		"bytes", PF_GAUGE },
	{ "mem_peak",		"bytes", PF_GAUGE },
	{ "mem_swap",		"bytes", PF_GAUGE },
	{ "mem_max_hits",	"count", PF_COUNTER },
	{ "oom_kills",		"count", PF_COUNTER },
	{ "cpu_usage",		"us",	 PF_COUNTER },
	{ "cpu_user",		"us",	 PF_COUNTER },
	{ "cpu_system",		"us",	 PF_COUNTER },
	{ "cpu_throttled",	"us",	 PF_COUNTER },
	{ "io_rbytes",		"bytes", PF_COUNTER },
	{ "io_wbytes",		"bytes", PF_COUNTER },
	{ "pids",		"count", PF_GAUGE },
	{ "psi_cpu_some10",	"centi", PF_GAUGE },
	{ "psi_mem_some10",	"centi", PF_GAUGE },
	{ "psi_mem_full10",	"centi", PF_GAUGE },
	{ "psi_io_some10",	"centi", PF_GAUGE },
	{ "psi_io_full10",	"centi", PF_GAUGE },
	{ "psi_cpu_total",	"us",	 PF_COUNTER },
	{ "psi_mem_total",	"us",	 PF_COUNTER },
	{ "psi_io_total",	"us",	 PF_COUNTER },
};
static const struct group_def cg_group = {
	"cgroup", cg_fields, CG_NFIELDS
};
static const struct group_def *cg_groups[] = { &cg_group, NULL };

/* The hierarchies: v2's, and v1's per controller. */
enum { CGH_V2, CGH_MEMORY, CGH_CPUACCT, CGH_BLKIO, CGH_PIDS, CGH_N };

/* The files read, each in one hierarchy. */
enum {
	CGF_MEM_CURRENT, CGF_MEM_MAX, CGF_MEM_PEAK, CGF_MEM_SWAP,
	CGF_MEM_EVENTS, CGF_CPU_STAT, CGF_IO_STAT, CGF_PIDS, CGF_PSI_CPU,
	CGF_PSI_MEM, CGF_PSI_IO,
	CGF_V1_USAGE, CGF_V1_LIMIT, CGF_V1_MAXUSAGE, CGF_V1_MEMSW,
	CGF_V1_FAILCNT, CGF_V1_OOM, CGF_V1_CPUACCT, CGF_V1_CPUSTAT,
	CGF_V1_BLKIO, CGF_V1_PIDS, CGF_N
};

static const struct {
	int		 hier;
	const char	*name;
} cg_files[CGF_N] = {
	{ CGH_V2,	"memory.current" },
	{ CGH_V2,	"memory.max" },
	{ CGH_V2,	"memory.peak" },
	{ CGH_V2,	"memory.swap.current" },
	{ CGH_V2,	"memory.events" },
	{ CGH_V2,	"cpu.stat" },
	{ CGH_V2,	"io.stat" },
	{ CGH_V2,	"pids.current" },
	{ CGH_V2,	"cpu.pressure" },
	{ CGH_V2,	"memory.pressure" },
	{ CGH_V2,	"io.pressure" },
	{ CGH_MEMORY,	"memory.usage_in_bytes" },
	{ CGH_MEMORY,	"memory.limit_in_bytes" },
	{ CGH_MEMORY,	"memory.max_usage_in_bytes" },
	{ CGH_MEMORY,	"memory.memsw.usage_in_bytes" },
	{ CGH_MEMORY,	"memory.failcnt" },
	{ CGH_MEMORY,	"memory.oom_control" },
	{ CGH_CPUACCT,	"cpuacct.usage" },
	{ CGH_CPUACCT,	"cpuacct.stat" },
	{ CGH_BLKIO,	"blkio.throttle.io_service_bytes" },
	{ CGH_PIDS,	"pids.current" },
};

#define CG_RESEARCH	10	/* samples between searches, absent */
#define CG_PATH_MAX	1024
#define CG_DIR_MAX	4096	/* entries a search looks at a dir */
#define CG_PROC_MAX	32768	/* processes searched at start-up */
#define CG_UNLIMITED	((uint64_t)1 << 62)

/* getdents64's record (struct linux_dirent64). */
struct cg_dirent {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

/* Where each hierarchy is mounted, "" where it is not. */
static char		 cg_mnt[CGH_N][CG_PATH_MAX];
static int		 cg_v1;		/* v1 (memory mounted) or v2 */
static const char	*cg_job;
static size_t		 cg_joblen;
static int64_t		 cg_owner;	/* --uid, or -1 */
static char		 cg_rel[CG_PATH_MAX];	/* "": none found */
static char		 cg_inst[PROTO_NAME_MAX];
static int		 cg_fd[CGF_N];
static uint64_t		 cg_seq, cg_lost_at;
static uint32_t		 cg_clk_tck;
static char		 cg_buf[8192];
static char		 cg_mounts_buf[128 * 1024];
static uint64_t		 cg_dents[3][8192 / sizeof(uint64_t)];

/* Call fn for each entry of directory path (under --root), with at most
 * CG_DIR_MAX of them; depth picks the buffer, so fn may list another
 * directory at depth + 1.  Stops early when fn returns nonzero, and
 * returns that; -1 when the directory cannot be opened. */
static int
cg_list(const char *path, int depth, int (*fn)(const char *, void *),
    void *arg)
{
	const struct cg_dirent	*d;
	char			 full[4096];
	long			 n, off;
	unsigned		 seen = 0;
	int			 fd, r = 0;

	if ((fd = open(probe_path(full, sizeof(full), path),
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	while (r == 0 && seen < CG_DIR_MAX && (n = syscall(SYS_getdents64, fd,
	    cg_dents[depth], sizeof(cg_dents[depth]))) > 0) {
		for (off = 0; off < n && r == 0 && seen < CG_DIR_MAX;
		    off += d->d_reclen) {
			d = (const struct cg_dirent *)(const void *)
			    ((const char *)cg_dents[depth] + off);
			if (d->d_name[0] == '.')
				continue;
			seen++;
			r = fn(d->d_name, arg);
		}
	}
	close(fd);
	return r;
}

/* Is path (under --root) a directory? */
static int
cg_isdir(const char *path)
{
	struct stat	st;
	char		full[4096];

	return stat(probe_path(full, sizeof(full), path), &st) == 0 &&
	    S_ISDIR(st.st_mode);
}

/* The job's directory rel (below the searched hierarchy) exists: take it. */
static int
cg_take(const char *rel)
{
	char	path[CG_PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s%s", cg_mnt[cg_v1 ? CGH_MEMORY :
	    CGH_V2], rel);
	if (strlen(rel) >= sizeof(cg_rel) || !cg_isdir(path))
		return 0;
	snprintf(cg_rel, sizeof(cg_rel), "%s", rel);
	return 1;
}

/* Does s end with suffix? */
static int
cg_ends(const char *s, const char *suffix)
{
	size_t	n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* v2: system.slice/ENTRY/job_ID, or ENTRY/SLUID once the job's SLUID is
 * known (Slurm 26.05: ranks.h), for a NODENAME_slurmstepd.scope. */
static int
cg_try_scope(const char *name, void *arg)
{
	char		 rel[CG_PATH_MAX];
	const char	*sluid = ranks_find_sluid(NULL);

	if (!cg_ends(name, "_slurmstepd.scope"))
		return 0;
	if (*sluid != '\0') {
		snprintf(rel, sizeof(rel), "%s/system.slice/%s/%s",
		    ranks_find_v2_root(), name, sluid);
		if (cg_take(rel))
			return 1;
	}
	snprintf(rel, sizeof(rel), "%s/system.slice/%s/job_%s",
	    ranks_find_v2_root(), name, cg_job);
	return cg_take(rel);
}

/* v1: SLURMDIR/uid_U/job_ID. */
static int
cg_try_uid(const char *name, void *arg)
{
	char	rel[CG_PATH_MAX], own[32];

	if (strncmp(name, "uid_", 4) != 0)
		return 0;
	/* With the owner known, only the owner's directory. */
	snprintf(own, sizeof(own), "uid_%lld", (long long)cg_owner);
	if (cg_owner >= 0 && strcmp(name, own) != 0)
		return 0;
	snprintf(rel, sizeof(rel), "/%s/%s/job_%s", (const char *)arg, name,
	    cg_job);
	return cg_take(rel);
}

/* v1: the uid directories of "slurm" or "slurm_NODE". */
static int
cg_try_slurm(const char *name, void *arg)
{
	char	path[CG_PATH_MAX * 2];

	if (strcmp(name, "slurm") != 0 && strncmp(name, "slurm_", 6) != 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", cg_mnt[CGH_MEMORY], name);
	return cg_list(path, 1, cg_try_uid, (void *)(uintptr_t)name) > 0;
}

/* The job's directory where Slurm puts it. */
static int
cg_search_dirs(void)
{
	char		 path[CG_PATH_MAX * 2], rel[CG_PATH_MAX];
	const char	*sluid = ranks_find_sluid(NULL);

	if (cg_v1)
		return cg_list(cg_mnt[CGH_MEMORY], 0, cg_try_slurm, NULL) > 0;
	if (*sluid != '\0') {
		snprintf(rel, sizeof(rel), "%s/system.slice/slurmstepd.scope/"
		    "%s", ranks_find_v2_root(), sluid);
		if (cg_take(rel))
			return 1;
	}
	snprintf(rel, sizeof(rel), "%s/system.slice/slurmstepd.scope/job_%s",
	    ranks_find_v2_root(), cg_job);
	if (cg_take(rel))
		return 1;
	snprintf(path, sizeof(path), "%s%s/system.slice", cg_mnt[CGH_V2],
	    ranks_find_v2_root());
	return cg_list(path, 0, cg_try_scope, NULL) > 0;
}

/*
 * The job's directory from a process's /proc/PID/cgroup: in the line of
 * the searched hierarchy ("0::/path" in v2, the one naming memory in v1),
 * the path up to the job's directory where the scheduler makes it
 * (ranks_find_cgroup_path: anchored at the hierarchy's root, so a
 * look-alike a user made in a delegated subtree never counts).
 */
static int
cg_from_pid(long pid)
{
	char		 path[64], rel[CG_PATH_MAX];
	const char	*line, *eol, *ctl, *p, *c, *end;
	size_t		 dirlen;
	uint32_t	 step;
	int		 mine;

	snprintf(path, sizeof(path), "/proc/%ld/cgroup", pid);
	if (probe_read_file(path, cg_buf, sizeof(cg_buf)) <= 0)
		return 0;
	for (line = cg_buf; *line != '\0'; line = *eol ? eol + 1 : eol) {
		if ((eol = strchr(line, '\n')) == NULL)
			eol = line + strlen(line);
		/* "ID:controllers:/path" */
		if ((ctl = memchr(line, ':', (size_t)(eol - line))) == NULL ||
		    (p = memchr(ctl + 1, ':', (size_t)(eol - ctl - 1))) ==
		    NULL)
			continue;
		ctl++;
		if (cg_v1) {
			mine = 0;
			for (c = ctl; c < p; c = end + 1) {
				if ((end = memchr(c, ',', (size_t)(p - c))) ==
				    NULL)
					end = p;
				if (end - c == 6 && memcmp(c, "memory", 6) == 0)
					mine = 1;
			}
		} else
			mine = p == ctl && line[0] == '0';
		if (!mine || ranks_find_cgroup_path(p + 1, (size_t)(eol - p -
		    1), cg_job, cg_owner, &dirlen, &step) <= 0)
			continue;
		if (dirlen >= sizeof(rel))
			return 0;
		snprintf(rel, sizeof(rel), "%.*s", (int)dirlen, p + 1);
		return cg_take(rel);
	}
	return 0;
}

/* Start-up: a process of /proc whose cgroup names the job. */
static int
cg_try_proc(const char *name, void *arg)
{
	unsigned	*left = arg;
	long		 pid = 0;
	const char	*s;

	for (s = name; *s >= '0' && *s <= '9' && pid < 100000000; s++)
		pid = pid * 10 + (*s - '0');
	if (*s != '\0' || pid <= 0)
		return 0;
	if (*left == 0)
		return -2;	/* enough: stop, not found */
	(*left)--;
	return cg_from_pid(pid);
}

/* Close the job's files. */
static void
cg_close(void)
{
	unsigned	i;

	for (i = 0; i < CGF_N; i++) {
		if (cg_fd[i] >= 0)
			close(cg_fd[i]);
		cg_fd[i] = -1;
	}
	cg_rel[0] = '\0';
}

/* Open the files of the job's directory; 0, or -1 when its memory usage
 * cannot be read (not a memory cgroup after all). */
static int
cg_open(void)
{
	char		path[CG_PATH_MAX * 3];
	unsigned	i;
	int		h;

	for (i = 0; i < CGF_N; i++) {
		cg_fd[i] = -1;
		h = cg_files[i].hier;
		if ((h == CGH_V2) == cg_v1 || cg_mnt[h][0] == '\0')
			continue;
		snprintf(path, sizeof(path), "%s%s/%s", cg_mnt[h], cg_rel,
		    cg_files[i].name);
		cg_fd[i] = probe_open(path);
	}
	if (cg_fd[cg_v1 ? CGF_V1_USAGE : CGF_MEM_CURRENT] < 0) {
		cg_close();
		return -1;
	}
	if (snprintf(cg_inst, sizeof(cg_inst), "%s", cg_rel) >=
	    (int)sizeof(cg_inst))
		snprintf(cg_inst, sizeof(cg_inst), "job");
	return 0;
}

/* The mount points of the hierarchies, from /proc/self/mounts: "cgroup2
 * /sys/fs/cgroup cgroup2 rw,... 0 0", "cgroup /sys/fs/cgroup/memory cgroup
 * rw,...,memory 0 0".  Without it, the usual places. */
static void
cg_mounts(void)
{
	static const char *const v1names[CGH_N] = {
		NULL, "memory", "cpuacct", "blkio", "pids"
	};
	char		 dir[CG_PATH_MAX], type[16], opts[512], *line, *eol;
	char		*o, *oe;
	unsigned	 h;

	if (probe_read_file("/proc/self/mounts", cg_mounts_buf,
	    sizeof(cg_mounts_buf)) <= 0) {
		snprintf(cg_mnt[CGH_MEMORY], CG_PATH_MAX, "/sys/fs/cgroup/"
		    "memory");
		if (cg_isdir(cg_mnt[CGH_MEMORY])) {
			snprintf(cg_mnt[CGH_CPUACCT], CG_PATH_MAX,
			    "/sys/fs/cgroup/cpuacct");
			snprintf(cg_mnt[CGH_BLKIO], CG_PATH_MAX,
			    "/sys/fs/cgroup/blkio");
			snprintf(cg_mnt[CGH_PIDS], CG_PATH_MAX,
			    "/sys/fs/cgroup/pids");
		} else {
			cg_mnt[CGH_MEMORY][0] = '\0';
			snprintf(cg_mnt[CGH_V2], CG_PATH_MAX, "/sys/fs/cgroup");
		}
		return;
	}
	for (line = cg_mounts_buf; *line != '\0'; line = eol) {
		if ((eol = strchr(line, '\n')) != NULL)
			*eol++ = '\0';
		else
			eol = line + strlen(line);
		if (sscanf(line, "%*s %1023s %15s %511s", dir, type, opts) != 3)
			continue;
		if (strcmp(type, "cgroup2") == 0) {
			if (cg_mnt[CGH_V2][0] == '\0')
				snprintf(cg_mnt[CGH_V2], CG_PATH_MAX, "%s",
				    dir);
			continue;
		}
		if (strcmp(type, "cgroup") != 0)
			continue;
		for (o = opts; o != NULL; o = oe) {
			if ((oe = strchr(o, ',')) != NULL)
				*oe++ = '\0';
			for (h = CGH_MEMORY; h < CGH_N; h++) {
				if (strcmp(o, v1names[h]) == 0 &&
				    cg_mnt[h][0] == '\0')
					snprintf(cg_mnt[h], CG_PATH_MAX, "%s",
					    dir);
			}
		}
	}
}

/* On when the job's cgroup is found (needs --job). */
static int
cg_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	unsigned	i, left = CG_PROC_MAX;

	for (i = 0; i < CGF_N; i++)
		cg_fd[i] = -1;
	if (conf->job == NULL) {
		snprintf(why, whysz, "no job given (--job)");
		return -1;
	}
	cg_job = conf->job;
	cg_joblen = strlen(cg_job);
	cg_owner = conf->owner;
	cg_clk_tck = conf->clk_tck > 0 ? conf->clk_tck : 100;
	cg_mounts();
	cg_v1 = cg_mnt[CGH_MEMORY][0] != '\0';
	if (!cg_v1 && cg_mnt[CGH_V2][0] == '\0') {
		snprintf(why, whysz, "no cgroup file system mounted");
		return -1;
	}
	if ((cg_search_dirs() || cg_list("/proc", 0, cg_try_proc, &left) > 0)
	    && cg_open() == 0)
		return 0;
	/* Slurm 26.05 names the job's directory by its SLUID: a scan for
	 * the job's processes learns it (from the step daemon's cgroup, a
	 * task's, SLURM_JOB_SLUID), then look again. */
	if (!cg_v1 && *ranks_find_sluid(NULL) == '\0') {
		ranks_find_update(conf);
		left = CG_PROC_MAX;
		if (*ranks_find_sluid(NULL) != '\0' && (cg_search_dirs() ||
		    cg_list("/proc", 0, cg_try_proc, &left) > 0) &&
		    cg_open() == 0)
			return 0;
	}
	snprintf(why, whysz, "no cgroup for job %s", cg_job);
	return -1;
}

/* Search again for a job whose directory went away. */
static void
cg_research(void)
{
	unsigned	it = 0;
	pid_t		pid;
	uint64_t	start;

	if (cg_seq - cg_lost_at < CG_RESEARCH)
		return;
	cg_lost_at = cg_seq;
	if (cg_search_dirs() && cg_open() == 0)
		return;
	while (ranks_reported(&it, &pid, &start) == 0) {
		if (cg_from_pid(pid) && cg_open() == 0)
			return;
	}
}

/* Read one of the job's files; its length, or -1. */
static ssize_t
cg_read(int f)
{
	if (cg_fd[f] < 0)
		return -1;
	return probe_pread(cg_fd[f], cg_buf, sizeof(cg_buf));
}

/* A file holding one number ("max" or a value past CG_UNLIMITED: none). */
static void
cg_one(struct pinst *pi, int f, unsigned field, int64_t div)
{
	uint64_t	v;

	if (cg_read(f) <= 0 || probe_parse_u64(cg_buf, &v) == NULL ||
	    v >= CG_UNLIMITED)
		return;
	pinst_set(pi, field, (int64_t)v / div);
}

/* A "key value" line of the file read last. */
static void
cg_key(struct pinst *pi, const char *key, unsigned field, int64_t mul,
    int64_t div)
{
	uint64_t	v;

	if (probe_find_u64(cg_buf, key, &v) == 0)
		pinst_set(pi, field, (int64_t)v * mul / div);
}

/* "some avg10=1.23 avg60=0.50 avg300=0.10 total=12345": avg10 in
 * hundredths, total in microseconds. */
static void
cg_psi(struct pinst *pi, int f, int some10, int full10, int total)
{
	const char	*line, *p;
	uint64_t	 ip, fp, v;
	int		 full, digits;

	if (cg_read(f) <= 0)
		return;
	for (line = cg_buf; line != NULL && *line != '\0';
	    line = (p = strchr(line, '\n')) != NULL ? p + 1 : NULL) {
		full = strncmp(line, "full ", 5) == 0;
		if (!full && strncmp(line, "some ", 5) != 0)
			continue;
		if ((p = strstr(line, "avg10=")) != NULL &&
		    (p = probe_parse_u64(p + 6, &ip)) != NULL) {
			fp = 0;
			digits = 0;
			if (*p == '.') {
				for (p++; *p >= '0' && *p <= '9'; p++) {
					if (digits++ < 2)
						fp = fp * 10 + (uint64_t)(*p -
						    '0');
				}
				if (digits == 1)
					fp *= 10;
			}
			if (full && full10 >= 0)
				pinst_set(pi, (unsigned)full10,
				    (int64_t)(ip * 100 + fp));
			else if (!full)
				pinst_set(pi, (unsigned)some10,
				    (int64_t)(ip * 100 + fp));
		}
		if (!full && (p = strstr(line, "total=")) != NULL &&
		    probe_parse_u64(p + 6, &v) != NULL)
			pinst_set(pi, (unsigned)total, (int64_t)v);
	}
}

/* Sum the "rbytes=" and "wbytes=" of io.stat's device lines, or the
 * "Read" and "Write" lines of blkio.throttle.io_service_bytes ("8:0 Read
 * 1234"; its last line, "Total N", is not a device's). */
static void
cg_io(struct pinst *pi, int f)
{
	const char	*line, *p, *eol;
	uint64_t	 r = 0, w = 0, v;
	int		 any = 0;

	if (cg_read(f) <= 0)
		return;
	for (line = cg_buf; *line != '\0'; line = *eol ? eol + 1 : eol) {
		if ((eol = strchr(line, '\n')) == NULL)
			eol = line + strlen(line);
		if (f == CGF_IO_STAT) {
			if ((p = strstr(line, " rbytes=")) != NULL && p < eol &&
			    probe_parse_u64(p + 8, &v) != NULL) {
				r += v;
				any = 1;
			}
			if ((p = strstr(line, " wbytes=")) != NULL && p < eol &&
			    probe_parse_u64(p + 8, &v) != NULL)
				w += v;
			continue;
		}
		if ((p = strchr(line, ' ')) == NULL || p > eol)
			continue;
		if (strncmp(p, " Read ", 6) == 0 &&
		    probe_parse_u64(p + 6, &v) != NULL) {
			r += v;
			any = 1;
		} else if (strncmp(p, " Write ", 7) == 0 &&
		    probe_parse_u64(p + 7, &v) != NULL)
			w += v;
	}
	if (!any && f == CGF_V1_BLKIO &&
	    strncmp(cg_buf, "Total ", 6) != 0)
		return;
	pinst_set(pi, CG_IO_RBYTES, (int64_t)r);
	pinst_set(pi, CG_IO_WBYTES, (int64_t)w);
}

/* The v2 files, after memory.current. */
static void
cg_sample_v2(struct pinst *pi)
{
	cg_one(pi, CGF_MEM_MAX, CG_MEM_MAX, 1);
	cg_one(pi, CGF_MEM_PEAK, CG_MEM_PEAK, 1);
	cg_one(pi, CGF_MEM_SWAP, CG_MEM_SWAP, 1);
	if (cg_read(CGF_MEM_EVENTS) > 0) {
		cg_key(pi, "max", CG_MEM_MAX_HITS, 1, 1);
		cg_key(pi, "oom_kill", CG_OOM_KILLS, 1, 1);
	}
	if (cg_read(CGF_CPU_STAT) > 0) {
		cg_key(pi, "usage_usec", CG_CPU_USAGE, 1, 1);
		cg_key(pi, "user_usec", CG_CPU_USER, 1, 1);
		cg_key(pi, "system_usec", CG_CPU_SYSTEM, 1, 1);
		cg_key(pi, "throttled_usec", CG_CPU_THROTTLED, 1, 1);
	}
	cg_io(pi, CGF_IO_STAT);
	cg_one(pi, CGF_PIDS, CG_PIDS, 1);
	cg_psi(pi, CGF_PSI_CPU, CG_PSI_CPU_SOME10, -1, CG_PSI_CPU_TOTAL);
	cg_psi(pi, CGF_PSI_MEM, CG_PSI_MEM_SOME10, CG_PSI_MEM_FULL10,
	    CG_PSI_MEM_TOTAL);
	cg_psi(pi, CGF_PSI_IO, CG_PSI_IO_SOME10, CG_PSI_IO_FULL10,
	    CG_PSI_IO_TOTAL);
}

/* The v1 files, after memory.usage_in_bytes. */
static void
cg_sample_v1(struct pinst *pi, int64_t usage)
{
	uint64_t	v;

	cg_one(pi, CGF_V1_LIMIT, CG_MEM_MAX, 1);
	cg_one(pi, CGF_V1_MAXUSAGE, CG_MEM_PEAK, 1);
	if (cg_read(CGF_V1_MEMSW) > 0 && probe_parse_u64(cg_buf, &v) != NULL &&
	    (int64_t)v >= usage)
		pinst_set(pi, CG_MEM_SWAP, (int64_t)v - usage);
	cg_one(pi, CGF_V1_FAILCNT, CG_MEM_MAX_HITS, 1);
	if (cg_read(CGF_V1_OOM) > 0)
		cg_key(pi, "oom_kill", CG_OOM_KILLS, 1, 1);
	cg_one(pi, CGF_V1_CPUACCT, CG_CPU_USAGE, 1000);
	if (cg_read(CGF_V1_CPUSTAT) > 0) {
		cg_key(pi, "user", CG_CPU_USER, 1000000, cg_clk_tck);
		cg_key(pi, "system", CG_CPU_SYSTEM, 1000000, cg_clk_tck);
	}
	cg_io(pi, CGF_V1_BLKIO);
	cg_one(pi, CGF_V1_PIDS, CG_PIDS, 1);
}

/* Report the job's cgroup, or look for it again. */
static void
cg_sample(const struct probe_conf *conf)
{
	struct pinst	*pi;
	uint64_t	 usage;

	cg_seq++;
	if (cg_rel[0] == '\0') {
		cg_research();
		if (cg_rel[0] == '\0')
			return;
	}
	/* The job's memory usage is always there: when it fails to read,
	 * the directory is gone. */
	if (cg_read(cg_v1 ? CGF_V1_USAGE : CGF_MEM_CURRENT) <= 0 ||
	    probe_parse_u64(cg_buf, &usage) == NULL) {
		cg_close();
		cg_lost_at = cg_seq;
		return;
	}
	if ((pi = probe_inst(&cg_group, cg_inst)) == NULL)
		return;
	pinst_set(pi, CG_MEM_CURRENT, (int64_t)usage);
	if (cg_v1)
		cg_sample_v1(pi, (int64_t)usage);
	else
		cg_sample_v2(pi);
}

const struct source src_cgroup = {
	"cgroup", cg_groups, cg_init, cg_sample
};
