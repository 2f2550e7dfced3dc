/* SPDX-License-Identifier: ISC */
/*
 * nvgpu: NVIDIA GPUs, through NVML or nvidia-smi.  Group "gpu" has one
 * instance per GPU, named by its index ("0"): utilization (percent),
 * memory used and total (bytes), power draw (milliwatts, unit "mW"),
 * temperature (whole degrees, unit "celsius"), SM clock (MHz), the active
 * clock throttle reasons (NVML's bitmask, nvml.h names the bits), and the
 * GPU's UUID and product name, "alloc": 1 for a GPU allocated to the
 * job, 0 for one that is not, absent when no rank says (nv_alloc below),
 * and "minor", its /dev/nvidiaN number, from the driver's
 * /proc/driver/nvidia/gpus/BUS/information (the monitor maps Slurm's GPU
 * indexes with it: nv_slurm_indexes_ok).
 * Group "gpuproc" has one instance per
 * process holding a compute context, named "GPU:PID" ("0:4242"): the GPU
 * index, the pid, the GPU memory it uses and (through NVML only) its SM
 * utilization, so the monitor can tell the job's share of a GPU it shares
 * with others.  Group "gpumig" (through NVML only) has one instance per
 * MIG instance of a GPU in MIG mode, named "GPU:GI" ("1:2"): the GPU
 * index, the GPU and compute instance ids, its memory used and total, its
 * MIG UUID and its name.
 *
 * How it reaches NVML (see probes/NVIDIA.md): the probe is a static musl
 * binary and cannot dlopen the driver's glibc libnvidia-ml.so, so a child
 * does.  The stream child is, by preference, jobtop-nvml (the helper of
 * probes/nvml/, given with --nvml PATH; the monitor pushes it beside the
 * probe), which loads NVML and writes, every interval, a line per GPU in
 * nvidia-smi's CSV format, a "proc, ..." line per compute process and
 * "end".  Without it, or when it ends before its first data line (no
 * libnvidia-ml.so.1, NVML cannot start, a glibc too old for it), the
 * stream is nvidia-smi, NVML's own command line front end:
 *	nvidia-smi --query-gpu=index,uuid,...,name
 *	    --format=csv,noheader,nounits -lms INTERVAL
 * and every NV_APPS_MS a one-shot
 * nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory lists the
 * processes, whose GPU UUIDs the stream's uuid column maps to indexes.
 * Either child writes into a non-blocking pipe, which each sample drains.
 * Nothing here ever waits on a child: a line not yet complete waits for
 * the next sample.
 *
 * The source is on when the driver is there (/dev/nvidiactl or
 * /proc/driver/nvidia/version, under --root) and the helper or an
 * nvidia-smi is found: under --root at ROOT/usr/bin/nvidia-smi first
 * (tests put a fake there), then on PATH (absolute entries only), then
 * /usr/bin/nvidia-smi.  Values the child does not have ("[N/A]", "[Not
 * Supported]") are absent; so are all of a GPU's values when its last line
 * is older than the stall window (five intervals, at least 5 s), and all
 * GPU values while the stream is stalled or not running.  Children die
 * with the probe (PR_SET_PDEATHSIG, and an atexit handler kills them) and
 * are reaped without blocking.  An nvidia-smi that refuses the throttle
 * column's name before its first line is retried at once with its newer
 * name, then without it (drivers differ there); otherwise an end is an EVENT (with the last line the child
 * wrote that was not data: its error message), a stall is an EVENT and,
 * after NV_KILL_MS, a SIGKILL; the stream is restarted after a back-off
 * that doubles from 10 s to 5 min.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ranks.h"
#include "source.h"

#define NV_GPUS_MAX	64	/* GPU indexes 0..63 */
#define NV_PROCS_MAX	512	/* compute processes, all GPUs together */
#define NV_UUID_MAX	48	/* "GPU-" and 36 characters */
#define NV_DIAG_MAX	160	/* a line nvidia-smi said instead of data */
#define NV_LMS_MIN	100	/* nvidia-smi loops no faster than this */
#define NV_GRACE_MS	30000	/* start-up before a stall is one */
#define NV_STALL_MIN_MS	5000
#define NV_KILL_MS	60000	/* a stalled stream is killed after this */
#define NV_BACKOFF_MS	10000	/* first restart delay; doubles */
#define NV_BACKOFF_MAX	300000
#define NV_APPS_MS	5000	/* between process lists */
#define NV_APPS_TIMEOUT	30000

enum {
	NV_UTIL, NV_MEM_USED, NV_MEM_TOTAL, NV_POWER, NV_TEMP, NV_CLOCK,
	NV_THROTTLE, NV_UUID, NV_NAME, NV_ALLOC, NV_MINOR, NV_NFIELDS
};

static const struct field_def nv_fields[NV_NFIELDS] = {
	{ "util",	"percent",	PF_GAUGE },
	{ "mem_used",	"bytes",	PF_GAUGE },
	{ "mem_total",	"bytes",	PF_GAUGE },
	{ "power",	"mW",		PF_GAUGE },
	{ "temp",	"celsius",	PF_GAUGE },
	{ "clock",	"MHz",		PF_GAUGE },
	{ "throttle",	"",		PF_GAUGE },
	{ "uuid",	"",		PF_STRING },
	{ "name",	"",		PF_STRING },
	{ "alloc",	"",		PF_GAUGE },	/* 1: the job's */
	{ "minor",	"",		PF_GAUGE },	/* /dev/nvidiaN */
};
static const struct group_def nv_group = {
	"gpu", nv_fields, NV_NFIELDS
};

enum { NVP_GPU, NVP_PID, NVP_MEM_USED, NVP_UTIL, NVP_NFIELDS };

static const struct field_def nvp_fields[NVP_NFIELDS] = {
	{ "gpu",	"",		PF_GAUGE },
	{ "pid",	"",		PF_GAUGE },
	{ "mem_used",	"bytes",	PF_GAUGE },
	{ "util",	"percent",	PF_GAUGE },	/* SM, NVML only */
};
static const struct group_def nvp_group = {
	"gpuproc", nvp_fields, NVP_NFIELDS
};
/* MIG instances (the helper's "mig" lines), named "GPU:GI" ("1:2"). */
enum { NVM_GPU, NVM_GI, NVM_CI, NVM_MEM_USED, NVM_MEM_TOTAL, NVM_UUID,
    NVM_NAME, NVM_NFIELDS };

static const struct field_def nvm_fields[NVM_NFIELDS] = {
	{ "gpu",	"",		PF_GAUGE },
	{ "gi",		"",		PF_GAUGE },	/* GPU instance id */
	{ "ci",		"",		PF_GAUGE },	/* compute instance */
	{ "mem_used",	"bytes",	PF_GAUGE },
	{ "mem_total",	"bytes",	PF_GAUGE },
	{ "uuid",	"",		PF_STRING },
	{ "name",	"",		PF_STRING },
};
static const struct group_def nvm_group = {
	"gpumig", nvm_fields, NVM_NFIELDS
};
static const struct group_def *nv_groups[] = { &nv_group, &nvp_group,
    &nvm_group, NULL };

/* The throttle column's names, tried in turn; NULL: without it. */
static const char *const nv_throttle_names[] = {
	"clocks_throttle_reasons.active",
	"clocks_event_reasons.active",
	NULL
};
#define NV_NVARIANTS	3

/* Which program the stream is. */
enum { NV_BE_SMI, NV_BE_NVML };

/* A child (nvidia-smi or jobtop-nvml) and what it has written so far. */
struct nv_child {
	pid_t		 pid;		/* 0: none */
	int		 fd;		/* read end of its output, or -1 */
	int		 killed;	/* sent SIGKILL, waiting to reap */
	uint64_t	 start_ms;
	size_t		 len;
	char		 buf[32768];
};

struct nv_gpu {
	int		 seen;
	uint64_t	 last_ms;	/* when its last line came */
	uint64_t	 present;	/* fields of the last line */
	int64_t		 v[NV_THROTTLE + 1];
	char		 uuid[NV_UUID_MAX];
	char		 name[PINST_STRLEN];
};

#define NV_MIGS_MAX	(NV_GPUS_MAX * 7)

struct nv_mig {
	char		 uuid[NV_UUID_MAX];	/* the parent GPU's */
	char		 mig[NV_UUID_MAX];	/* "MIG-...", "" unknown */
	char		 name[PINST_STRLEN];
	int64_t		 gi, ci, used, total;	/* -1 unknown */
};

struct nv_proc {
	char		 uuid[NV_UUID_MAX];
	int64_t		 pid;
	int64_t		 mem;
	int64_t		 util;
	int		 has_mem;
	int		 has_util;
};

static char		 nv_smi[4096];		/* nvidia-smi to run, or "" */
static char		 nv_helper[4096];	/* jobtop-nvml, or "" */
static int		 nv_backend;		/* NV_BE_SMI or NV_BE_NVML */
static char		 nv_smi_why[NV_DIAG_MAX + 96]; /* why not NVML */
static char		 nv_query[512], nv_lms[24];
static uint32_t		 nv_lms_ms;
static uint64_t		 nv_stall_ms;
static int		 nv_variant;		/* of nv_throttle_names */
/* Zero-initialised (bss, not 64 KB of data in the binary); nv_init sets
 * the descriptors to -1 before anything can use them. */
static struct nv_child	 nv_stream;
static struct nv_child	 nv_apps;
static unsigned		 nv_stream_lines;	/* data lines of this child */
static uint64_t		 nv_last_line_ms;
static uint64_t		 nv_restart_ms;		/* 0: now */
static uint64_t		 nv_backoff_ms = NV_BACKOFF_MS;
static int		 nv_stalled;
static char		 nv_diag[NV_DIAG_MAX];
static struct nv_gpu	 nv_gpus[NV_GPUS_MAX];
static struct nv_proc	 nv_procs[NV_PROCS_MAX];
static unsigned		 nv_nprocs;
static struct nv_proc	 nv_pend[NV_PROCS_MAX];	/* the helper's, until "end" */
static unsigned		 nv_npend;
static struct nv_mig	 nv_migs[NV_MIGS_MAX];
static unsigned		 nv_nmigs;
static struct nv_mig	 nv_mpend[NV_MIGS_MAX];	/* until "end" */
static unsigned		 nv_nmpend;
static uint64_t		 nv_procs_ms;		/* when the list was taken */
static uint64_t		 nv_apps_next_ms;

/* Is path an executable regular file? */
static int
nv_executable(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

/* Find the nvidia-smi to run (see the top of the file). */
static int
nv_find_smi(const struct probe_conf *conf)
{
	const char	*path, *p, *e;
	size_t		 n;

	if (conf->root[0] != '\0') {
		probe_path(nv_smi, sizeof(nv_smi), "/usr/bin/nvidia-smi");
		if (nv_executable(nv_smi))
			return 0;
	}
	if ((path = getenv("PATH")) != NULL) {
		for (p = path; *p != '\0'; p = *e == ':' ? e + 1 : e) {
			e = strchr(p, ':');
			if (e == NULL)
				e = p + strlen(p);
			n = (size_t)(e - p);
			if (n == 0 || *p != '/' || n > sizeof(nv_smi) - 16)
				continue;
			snprintf(nv_smi, sizeof(nv_smi), "%.*s/nvidia-smi",
			    (int)n, p);
			if (nv_executable(nv_smi))
				return 0;
		}
	}
	snprintf(nv_smi, sizeof(nv_smi), "/usr/bin/nvidia-smi");
	return nv_executable(nv_smi) ? 0 : -1;
}

/* Kill the children: the probe is ending.  Reaping waits at most 100 ms
 * (a child stuck in the driver is left to init). */
static void
nv_atexit(void)
{
	struct nv_child	*c[2] = { &nv_stream, &nv_apps };
	unsigned	 i, k;

	for (i = 0; i < 2; i++) {
		if (c[i]->pid <= 0)
			continue;
		kill(c[i]->pid, SIGKILL);
		for (k = 0; k < 50; k++) {
			if (waitpid(c[i]->pid, NULL, WNOHANG) != 0)
				break;
			usleep(2000);
		}
		c[i]->pid = 0;
	}
}

/* Start path with argv, its output (and errors) into c's pipe. */
static int
nv_spawn(struct nv_child *c, const char *path, char *const argv[],
    uint64_t now)
{
	pid_t	pid;

	if ((pid = probe_spawn(path, argv, PROBE_SPAWN_ERRPIPE, &c->fd)) < 0)
		return -1;
	c->pid = pid;
	c->killed = 0;
	c->start_ms = now;
	c->len = 0;
	return 0;
}

/* The stream's program, for messages. */
static const char *
nv_prog(void)
{
	return nv_backend == NV_BE_NVML ? "jobtop-nvml" : "nvidia-smi";
}

/* Does the stream have the throttle column? */
static int
nv_has_throttle(void)
{
	return nv_backend == NV_BE_NVML ||
	    nv_throttle_names[nv_variant] != NULL;
}

/* Start the stream: the helper, or nvidia-smi with the current throttle
 * column variant. */
static void
nv_start_stream(uint64_t now)
{
	static char	 a0[] = "nvidia-smi";
	static char	 a2[] = "--format=csv,noheader,nounits";
	static char	 a3[] = "-lms";
	static char	 h0[] = "jobtop-nvml";
	static char	 h1[] = "--interval-ms";
	char		*argv[6];
	const char	*thr = nv_throttle_names[nv_variant], *path = nv_smi;

	snprintf(nv_query, sizeof(nv_query), "--query-gpu=index,uuid,"
	    "utilization.gpu,memory.used,memory.total,power.draw,"
	    "temperature.gpu,clocks.sm%s%s,name", thr != NULL ? "," : "",
	    thr != NULL ? thr : "");
	argv[0] = a0;
	argv[1] = nv_query;
	argv[2] = a2;
	argv[3] = a3;
	argv[4] = nv_lms;
	argv[5] = NULL;
	if (nv_backend == NV_BE_NVML) {
		path = nv_helper;
		argv[0] = h0;
		argv[1] = h1;
		argv[2] = nv_lms;
		argv[3] = NULL;
	}
	nv_stream_lines = 0;
	nv_last_line_ms = now;
	nv_stalled = 0;
	nv_diag[0] = '\0';
	nv_npend = nv_nmpend = 0;
	if (nv_spawn(&nv_stream, path, argv, now) < 0) {
		probe_event(EV_WARN, "nvgpu-spawn", "cannot run %s: %s",
		    path, strerror(errno));
		nv_restart_ms = now + nv_backoff_ms;
	}
}

/* Start a one-shot list of the compute processes. */
static void
nv_start_apps(uint64_t now)
{
	static char	 a0[] = "nvidia-smi";
	static char	 a1[] = "--query-compute-apps=gpu_uuid,pid,used_memory";
	static char	 a2[] = "--format=csv,noheader,nounits";
	char		*argv[4];

	argv[0] = a0;
	argv[1] = a1;
	argv[2] = a2;
	argv[3] = NULL;
	if (nv_spawn(&nv_apps, nv_smi, argv, now) < 0)
		probe_event(EV_WARN, "nvgpu-spawn", "cannot run %s: %s",
		    nv_smi, strerror(errno));
}

static int
nv_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	char		path[4096];
	uint64_t	ms;

	nv_stream.fd = nv_apps.fd = -1;
	if (access(probe_path(path, sizeof(path), "/dev/nvidiactl"),
	    F_OK) < 0 && access(probe_path(path, sizeof(path),
	    "/proc/driver/nvidia/version"), F_OK) < 0) {
		snprintf(why, whysz, "no NVIDIA driver (no /dev/nvidiactl or "
		    "/proc/driver/nvidia/version)");
		return -1;
	}
	if (nv_find_smi(conf) < 0)
		nv_smi[0] = '\0';
	if (conf->nvml != NULL && *conf->nvml != '\0') {
		if (nv_executable(conf->nvml)) {
			snprintf(nv_helper, sizeof(nv_helper), "%s",
			    conf->nvml);
			nv_backend = NV_BE_NVML;
		} else
			snprintf(nv_smi_why, sizeof(nv_smi_why), "%s is not "
			    "an executable file", conf->nvml);
	} else
		snprintf(nv_smi_why, sizeof(nv_smi_why), "no NVML helper "
		    "given");
	if (nv_backend == NV_BE_NVML)
		snprintf(why, whysz, "NVML through %s%s", nv_helper,
		    nv_smi[0] != '\0' ? ", nvidia-smi as fallback" : "");
	else if (nv_smi[0] != '\0')
		snprintf(why, whysz, "nvidia-smi: %s", nv_smi_why);
	else if (conf->nvml != NULL && *conf->nvml != '\0') {
		snprintf(why, whysz, "NVIDIA driver but no nvidia-smi, and "
		    "%s", nv_smi_why);
		return -1;
	} else {
		snprintf(why, whysz, "NVIDIA driver but no nvidia-smi (not "
		    "on PATH or in /usr/bin)");
		return -1;
	}
	ms = (uint64_t)(conf->interval * 1000 + 0.5);
	nv_lms_ms = ms < NV_LMS_MIN ? NV_LMS_MIN : (uint32_t)ms;
	snprintf(nv_lms, sizeof(nv_lms), "%u", nv_lms_ms);
	nv_stall_ms = (uint64_t)nv_lms_ms * 5;
	if (nv_stall_ms < NV_STALL_MIN_MS)
		nv_stall_ms = NV_STALL_MIN_MS;
	atexit(nv_atexit);
	nv_start_stream(probe_mono_us() / 1000);
	return 0;
}

/* Cut the next comma-separated column out of *pp, blanks trimmed. */
static char *
nv_column(char **pp)
{
	char	*s = *pp, *e, *end;

	if (s == NULL)
		return NULL;
	while (*s == ' ')
		s++;
	if ((e = strchr(s, ',')) != NULL) {
		*e = '\0';
		*pp = e + 1;
	} else
		*pp = NULL;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* A whole decimal column; -1 for "[N/A]" and the like. */
static int
nv_parse_int(const char *s, int64_t *v)
{
	const char	*p;

	if ((p = probe_parse_i64(s, v)) == NULL || *p != '\0')
		return -1;
	return 0;
}

/* "69.54" (watts) as thousandths, 69540. */
static int
nv_parse_milli(const char *s, int64_t *v)
{
	const char	*p;
	uint64_t	 ip, fp = 0;
	int		 digits = 0;

	if ((p = probe_parse_u64(s, &ip)) == NULL || ip > UINT32_MAX)
		return -1;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (digits < 3)
				fp = fp * 10 + (uint64_t)(*p - '0');
		}
		for (; digits < 3; digits++)
			fp *= 10;
	}
	if (*p != '\0')
		return -1;
	*v = (int64_t)(ip * 1000 + fp);
	return 0;
}

/* "0x0000000000000004". */
static int
nv_parse_hex(const char *s, int64_t *v)
{
	char			*end;
	unsigned long long	 x;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s[2] == '\0')
		return -1;
	errno = 0;
	x = strtoull(s + 2, &end, 16);
	if (*end != '\0' || errno != 0)
		return -1;
	*v = (int64_t)x;
	return 0;
}

/* Keep a line nvidia-smi wrote that is not data, for the EVENT text. */
static void
nv_keep_diag(const char *line)
{
	if (*line != '\0')
		snprintf(nv_diag, sizeof(nv_diag), "%s", line);
}

/* One process of a list: uuid, pid, memory (MiB) and, when util is
 * set, SM utilization (%).  1 when it is one. */
static int
nv_proc_parse(char *p, struct nv_proc *pr, int util)
{
	char	*col;
	int64_t	 v;

	if ((col = nv_column(&p)) == NULL || strncmp(col, "GPU-", 4) != 0)
		return 0;
	snprintf(pr->uuid, sizeof(pr->uuid), "%s", col);
	if ((col = nv_column(&p)) == NULL ||
	    nv_parse_int(col, &pr->pid) < 0 || pr->pid <= 0)
		return 0;
	pr->has_mem = (col = nv_column(&p)) != NULL &&
	    nv_parse_int(col, &v) == 0 && v >= 0 && v < (INT64_MAX >> 20);
	pr->mem = pr->has_mem ? v * 1024 * 1024 : 0;
	pr->has_util = util && (col = nv_column(&p)) != NULL &&
	    nv_parse_int(col, &pr->util) == 0 && pr->util >= 0;
	return 1;
}

/* A MIG instance: parent uuid, gi, ci, MIG uuid, MiB used and total,
 * name.  1 when it is one. */
static int
nv_mig_parse(char *p, struct nv_mig *mg)
{
	char	*col;
	int64_t	 v;

	if ((col = nv_column(&p)) == NULL || strncmp(col, "GPU-", 4) != 0)
		return 0;
	snprintf(mg->uuid, sizeof(mg->uuid), "%s", col);
	mg->gi = (col = nv_column(&p)) != NULL && nv_parse_int(col, &v) == 0 &&
	    v >= 0 ? v : -1;
	mg->ci = (col = nv_column(&p)) != NULL && nv_parse_int(col, &v) == 0 &&
	    v >= 0 ? v : -1;
	if (mg->gi < 0)
		return 0;
	mg->mig[0] = '\0';
	if ((col = nv_column(&p)) != NULL && strncmp(col, "MIG-", 4) == 0)
		snprintf(mg->mig, sizeof(mg->mig), "%s", col);
	mg->used = (col = nv_column(&p)) != NULL && nv_parse_int(col, &v) ==
	    0 && v >= 0 && v < (INT64_MAX >> 20) ? v << 20 : -1;
	mg->total = (col = nv_column(&p)) != NULL && nv_parse_int(col, &v) ==
	    0 && v >= 0 && v < (INT64_MAX >> 20) ? v << 20 : -1;
	mg->name[0] = '\0';
	if ((col = nv_column(&p)) != NULL && strcmp(col, "[N/A]") != 0)
		snprintf(mg->name, sizeof(mg->name), "%s", col);
	return 1;
}

/* The helper's lines that are not a GPU's: "proc, ..." adds a process to
 * the pending list, "mig, ..." a MIG instance, "end" makes them the
 * lists.  1 when it was one. */
static int
nv_helper_line(char *line, uint64_t now)
{
	if (strncmp(line, "mig,", 4) == 0) {
		if (nv_nmpend < NV_MIGS_MAX &&
		    nv_mig_parse(line + 4, &nv_mpend[nv_nmpend]))
			nv_nmpend++;
		return 1;
	}
	if (strncmp(line, "proc,", 5) == 0) {
		if (nv_npend < NV_PROCS_MAX &&
		    nv_proc_parse(line + 5, &nv_pend[nv_npend], 1))
			nv_npend++;
		return 1;
	}
	if (strcmp(line, "end") == 0) {
		memcpy(nv_procs, nv_pend, nv_npend * sizeof(nv_pend[0]));
		nv_nprocs = nv_npend;
		nv_npend = 0;
		memcpy(nv_migs, nv_mpend, nv_nmpend * sizeof(nv_mpend[0]));
		nv_nmigs = nv_nmpend;
		nv_nmpend = 0;
		nv_procs_ms = now;
		return 1;
	}
	return 0;
}

/* One line of the stream: index, uuid, numbers, [throttle,] name. */
static void
nv_stream_line(char *line, uint64_t now)
{
	struct nv_gpu	*g;
	char		*p = line, *col;
	int64_t		 idx, v;
	unsigned	 f, last;
	int		 ok;

	if (nv_backend == NV_BE_NVML && nv_helper_line(line, now))
		return;
	if (*line < '0' || *line > '9') {
		nv_keep_diag(line);
		return;
	}
	if ((col = nv_column(&p)) == NULL || nv_parse_int(col, &idx) < 0 ||
	    idx < 0 || idx >= NV_GPUS_MAX || p == NULL)
		return;
	g = &nv_gpus[idx];
	g->present = 0;
	if ((col = nv_column(&p)) == NULL)
		return;
	snprintf(g->uuid, sizeof(g->uuid), "%s", col);
	if (strncmp(g->uuid, "GPU-", 4) == 0)
		g->present |= (uint64_t)1 << NV_UUID;
	last = nv_has_throttle() ? NV_THROTTLE : NV_CLOCK;
	for (f = NV_UTIL; f <= last; f++) {
		if ((col = nv_column(&p)) == NULL)
			return;
		switch (f) {
		case NV_MEM_USED:
		case NV_MEM_TOTAL:
			ok = nv_parse_int(col, &v) == 0 && v >= 0 &&
			    v < (INT64_MAX >> 20);
			if (ok)
				v *= 1024 * 1024;	/* MiB */
			break;
		case NV_POWER:
			ok = nv_parse_milli(col, &v) == 0;
			break;
		case NV_THROTTLE:
			ok = nv_parse_hex(col, &v) == 0;
			break;
		default:
			ok = nv_parse_int(col, &v) == 0;
			break;
		}
		if (ok) {
			g->v[f] = v;
			g->present |= (uint64_t)1 << f;
		}
	}
	/* The name is last: whatever is left, commas and all. */
	if (p != NULL) {
		while (*p == ' ')
			p++;
		if (*p != '\0' && *p != '[') {
			snprintf(g->name, sizeof(g->name), "%s", p);
			g->present |= (uint64_t)1 << NV_NAME;
		}
	}
	g->seen = 1;
	g->last_ms = now;
	if (nv_stream_lines++ == 0) {
		nv_backoff_ms = NV_BACKOFF_MS;
		if (nv_backend == NV_BE_NVML)
			probe_event(EV_INFO, "nvgpu-backend", "GPU values "
			    "from NVML through %s", nv_helper);
		else
			probe_event(EV_INFO, "nvgpu-backend", "GPU values "
			    "from %s (%s)", nv_smi, nv_smi_why);
	}
	nv_last_line_ms = now;
}

/* Read what a child wrote; each complete line goes to fn.  Returns 1 at
 * end of file, 0 otherwise. */
static int
nv_drain(struct nv_child *c, void (*fn)(char *, uint64_t), uint64_t now)
{
	ssize_t	 n;
	char	*nl, *start, skip[512];
	size_t	 used;

	for (;;) {
		if (c->len == sizeof(c->buf) - 1 && fn == NULL) {
			/* Keep what fits; read the rest to nowhere. */
			n = read(c->fd, skip, sizeof(skip));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			continue;
		}
		if (c->len == sizeof(c->buf) - 1)
			c->len = 0;	/* a line this long is not data */
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		c->len += (size_t)n;
		c->buf[c->len] = '\0';
		if (fn == NULL)
			continue;
		start = c->buf;
		while ((nl = strchr(start, '\n')) != NULL) {
			*nl = '\0';
			fn(start, now);
			start = nl + 1;
		}
		used = (size_t)(start - c->buf);
		memmove(c->buf, start, c->len - used);
		c->len -= used;
	}
	return n == 0;
}

/* What became of a child that ended, for an EVENT. */
static void
nv_status_text(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d",
		    WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, size, "ended");
}

/* Reap a child if it has ended, reading the rest of its output into fn:
 * 1 with its status, else 0. */
static int
nv_reap(struct nv_child *c, void (*fn)(char *, uint64_t), uint64_t now,
    int *status)
{
	pid_t	r;

	if (c->pid <= 0)
		return 0;
	while ((r = waitpid(c->pid, status, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return 0;
	if (r < 0)
		*status = 0;
	c->pid = 0;
	if (c->fd >= 0) {
		/* What it wrote between the last read and its end. */
		nv_drain(c, fn, now);
		close(c->fd);
		c->fd = -1;
	}
	return 1;
}

/* Kill a child that no longer answers; nv_reap collects it later. */
static void
nv_kill(struct nv_child *c)
{
	if (c->pid > 0 && !c->killed) {
		kill(c->pid, SIGKILL);
		c->killed = 1;
	}
}

/* The stream's child ended: fall back from the helper to nvidia-smi, try
 * nvidia-smi's next column variant, or report it and restart it later. */
static void
nv_stream_ended(int status, uint64_t now)
{
	char	what[64];

	/* What it said no longer holds. */
	memset(nv_gpus, 0, sizeof(nv_gpus));
	nv_nprocs = nv_npend = 0;
	nv_nmigs = nv_nmpend = 0;
	nv_status_text(status, what, sizeof(what));
	if (nv_backend == NV_BE_NVML && nv_stream_lines == 0 &&
	    nv_smi[0] != '\0') {
		snprintf(nv_smi_why, sizeof(nv_smi_why), "jobtop-nvml %s%s%s",
		    what, nv_diag[0] != '\0' ? ": " : "", nv_diag);
		probe_event(EV_WARN, "nvgpu-fallback", "%s before any data; "
		    "using nvidia-smi", nv_smi_why);
		nv_backend = NV_BE_SMI;
		nv_start_stream(now);
		return;
	}
	/* Only a rejected field name moves on to the next variant: a
	 * driver that failed keeps the column for when it recovers. */
	if (nv_backend == NV_BE_SMI && nv_stream_lines == 0 &&
	    !nv_stalled && strstr(nv_diag, "is not a valid field") != NULL &&
	    nv_variant + 1 < NV_NVARIANTS) {
		nv_variant++;
		nv_start_stream(now);
		return;
	}
	probe_event(EV_WARN, "nvgpu-exited", "%s %s%s%s; GPU values absent "
	    "until it restarts", nv_prog(), what, nv_diag[0] != '\0' ?
	    ": " : "", nv_diag);
	nv_restart_ms = now + nv_backoff_ms;
	if (nv_backoff_ms < NV_BACKOFF_MAX)
		nv_backoff_ms *= 2;
}

/* Drain, reap, watch and restart the stream. */
static void
nv_tend_stream(uint64_t now)
{
	int	status, eof = 0;

	if (nv_stream.pid <= 0) {
		if (now >= nv_restart_ms)
			nv_start_stream(now);
		return;
	}
	if (nv_stream.fd >= 0)
		eof = nv_drain(&nv_stream, nv_stream_line, now);
	if (nv_reap(&nv_stream, nv_stream_line, now, &status)) {
		nv_stream_ended(status, now);
		return;
	}
	if (eof) {
		/* Its output closed but it lives on: it is of no use. */
		nv_kill(&nv_stream);
		return;
	}
	if (now - nv_stream.start_ms < NV_GRACE_MS && nv_stream_lines == 0)
		return;
	if (now - nv_last_line_ms >= nv_stall_ms && !nv_stalled) {
		nv_stalled = 1;
		probe_event(EV_WARN, "nvgpu-stalled", "%s wrote nothing "
		    "for %llu s; GPU values absent", nv_prog(),
		    (unsigned long long)(now - nv_last_line_ms) / 1000);
	}
	if (nv_stalled && now - nv_last_line_ms >= NV_KILL_MS)
		nv_kill(&nv_stream);
}

/* Parse the process list a finished one-shot wrote. */
static void
nv_apps_commit(void)
{
	char	*line, *nl;

	nv_nprocs = 0;
	nv_apps.buf[nv_apps.len] = '\0';
	for (line = nv_apps.buf; *line != '\0'; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			break;
		*nl = '\0';
		if (nv_nprocs < NV_PROCS_MAX &&
		    nv_proc_parse(line, &nv_procs[nv_nprocs], 0))
			nv_nprocs++;
	}
}

/* Run the process list every NV_APPS_MS while nvidia-smi's stream works
 * (the helper's stream lists the processes itself). */
static void
nv_tend_apps(uint64_t now)
{
	char	what[64];
	int	status;

	if (nv_apps.pid <= 0) {
		if (nv_backend == NV_BE_SMI && nv_stream_lines > 0 &&
		    !nv_stalled &&
		    now >= nv_apps_next_ms) {
			nv_apps_next_ms = now + (NV_APPS_MS > nv_lms_ms ?
			    NV_APPS_MS : nv_lms_ms);
			nv_start_apps(now);
		}
		return;
	}
	if (nv_apps.fd >= 0)
		nv_drain(&nv_apps, NULL, now);
	if (nv_reap(&nv_apps, NULL, now, &status)) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			nv_apps_commit();
			nv_procs_ms = now;
		} else {
			nv_status_text(status, what, sizeof(what));
			probe_event(EV_WARN, "nvgpu-apps", "nvidia-smi "
			    "--query-compute-apps %s", what);
		}
		return;
	}
	if (now - nv_apps.start_ms >= NV_APPS_TIMEOUT)
		nv_kill(&nv_apps);
}

/* How often the process list is renewed: the helper's every interval,
 * nvidia-smi's every NV_APPS_MS (or interval, if longer). */
static uint64_t
nv_procs_period(void)
{
	if (nv_backend == NV_BE_NVML || nv_lms_ms > NV_APPS_MS)
		return nv_lms_ms;
	return NV_APPS_MS;
}

/* The index of the GPU with this UUID, or -1. */
static int
nv_gpu_by_uuid(const char *uuid)
{
	unsigned	i;

	for (i = 0; i < NV_GPUS_MAX; i++) {
		if (nv_gpus[i].seen && strcmp(nv_gpus[i].uuid, uuid) == 0)
			return (int)i;
	}
	return -1;
}

/*
 * The GPUs allocated to the job on this node, from the environment of
 * the ranks the rank source reported (jobtop(1), GPUS):
 *  - SLURM_STEP_GPUS, else SLURM_JOB_GPUS: Slurm's indexes of the node's
 *    GPUs (they stay right where the step's cgroup renumbers the devices).
 *    They are NVML's indexes only when no GPU is in MIG mode (Slurm then
 *    counts MIG instances, not GPUs) and no GPU's device minor differs
 *    from its NVML index (a hand-written gres.conf follows /dev/nvidiaN,
 *    AutoDetect=nvml follows NVML: only where the two agree is the index
 *    certain).  Otherwise they are not used;
 *  - else CUDA_VISIBLE_DEVICES: GPU and MIG UUIDs (a MIG instance stands
 *    for its GPU) always; numbers only outside a Slurm job, since under
 *    Slurm's ConstrainDevices they count the job's own GPUs from 0.
 * A process's environment is read once (it does not change what it was
 * started with); what it names is mapped at every sample, as GPUs and MIG
 * instances become known.  Returns 1 with *mask, 0 when no rank says.
 */
#define NV_CVD_MAX	400
struct nv_envc {
	uint64_t	 start;		/* the slot's process, 0 none */
	uint64_t	 slurm;		/* SLURM_*_GPUS' indexes */
	int		 has_slurm;
	int		 in_slurm;	/* SLURM_JOB_ID is set */
	char		 cvd[NV_CVD_MAX];	/* CUDA_VISIBLE_DEVICES, or "" */
	int		 has_cvd;
};
static struct nv_envc	 nv_envc[RANKS_MAX];

/* Device minors of the driver's GPUs, by UUID (nv_read_minors). */
struct nv_minor {
	char		 uuid[NV_UUID_MAX];
	int		 minor;
};
static struct nv_minor	 nv_minors[NV_GPUS_MAX];
static unsigned		 nv_nminors;

/*
 * The driver's /proc/driver/nvidia/gpus/BUS/information files ("Device
 * Minor:" and "GPU UUID:" lines): no root needed, no device opened.
 */
static void
nv_read_minors(void)
{
	char		 path[4096], line[256], uuid[NV_UUID_MAX];
	struct dirent	*de;
	DIR		*d;
	FILE		*f;
	char		*v;
	int64_t		 val;

	if ((d = opendir(probe_path(path, sizeof(path),
	    "/proc/driver/nvidia/gpus"))) == NULL)
		return;
	while ((de = readdir(d)) != NULL && nv_nminors < NV_GPUS_MAX) {
		if (de->d_name[0] == '.' || strlen(de->d_name) > 64)
			continue;
		snprintf(line, sizeof(line), "/proc/driver/nvidia/gpus/%s/"
		    "information", de->d_name);
		if ((f = fopen(probe_path(path, sizeof(path), line), "re")) ==
		    NULL)
			continue;
		val = -1;
		uuid[0] = '\0';
		while (fgets(line, sizeof(line), f) != NULL) {
			if ((v = strchr(line, ':')) == NULL)
				continue;
			*v++ = '\0';
			v += strspn(v, " \t");
			v[strcspn(v, " \t\r\n")] = '\0';
			if (strcmp(line, "Device Minor") == 0 &&
			    nv_parse_int(v, &val) < 0)
				val = -1;
			else if (strcmp(line, "GPU UUID") == 0 &&
			    strncmp(v, "GPU-", 4) == 0 &&
			    strlen(v) < sizeof(uuid))
				snprintf(uuid, sizeof(uuid), "%s", v);
		}
		fclose(f);
		if (val >= 0 && val < 1048576 && uuid[0] != '\0') {
			snprintf(nv_minors[nv_nminors].uuid,
			    sizeof(nv_minors[0].uuid), "%s", uuid);
			nv_minors[nv_nminors++].minor = (int)val;
		}
	}
	closedir(d);
}

/* GPU i's device minor, -1 unknown. */
static int
nv_minor_of(unsigned i)
{
	unsigned	j;

	if (!nv_gpus[i].seen || !(nv_gpus[i].present &
	    ((uint64_t)1 << NV_UUID)))
		return -1;
	for (j = 0; j < nv_nminors; j++)
		if (strcmp(nv_minors[j].uuid, nv_gpus[i].uuid) == 0)
			return nv_minors[j].minor;
	return -1;
}

/* Are Slurm's GPU indexes NVML's here?  Not with a GPU in MIG mode, nor
 * with a known minor that is not its GPU's index. */
static int
nv_slurm_indexes_ok(void)
{
	unsigned	i;
	int		m;

	if (nv_nmigs > 0)
		return 0;
	for (i = 0; i < NV_GPUS_MAX; i++)
		if ((m = nv_minor_of(i)) >= 0 && (unsigned)m != i)
			return 0;
	return 1;
}

/* The GPU a MIG UUID belongs to, -1 unknown. */
static int
nv_gpu_by_mig(const char *mig)
{
	unsigned	i;

	for (i = 0; i < nv_nmigs; i++)
		if (strcmp(nv_migs[i].mig, mig) == 0)
			return nv_gpu_by_uuid(nv_migs[i].uuid);
	return -1;
}

/* The GPUs a list names: numbers when numbers_ok, GPU and MIG UUIDs;
 * *usable: whether any item could be read so, *partial: whether some
 * could not. */
static uint64_t
nv_alloc_list(const char *v, int numbers_ok, int *usable, int *partial)
{
	char		 item[NV_UUID_MAX + 16];
	const char	*p = v, *e;
	uint64_t	 mask = 0;
	size_t		 n;
	long		 k;
	char		*end;
	int		 i;

	while (*p != '\0') {
		e = strchr(p, ',');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n < sizeof(item)) {
			memcpy(item, p, n);
			item[n] = '\0';
			k = strtol(item, &end, 10);
			i = -1;
			if (n > 0 && *end == '\0' && k >= 0 &&
			    k < NV_GPUS_MAX) {
				if (numbers_ok)
					i = (int)k;
			} else if (strncmp(item, "GPU-", 4) == 0)
				i = nv_gpu_by_uuid(item);
			else if (strncmp(item, "MIG-", 4) == 0)
				i = nv_gpu_by_mig(item);
			if (i >= 0) {
				mask |= (uint64_t)1 << i;
				*usable = 1;
			} else
				*partial = 1;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return mask;
}

/* Read one process's environment into c. */
static void
nv_alloc_environ(const struct probe_conf *conf, pid_t pid, struct nv_envc *c)
{
	static char	 buf[65536];
	char		 path[4096];
	const char	*step = NULL, *job = NULL, *p;
	ssize_t		 n, len = 0;
	int		 fd;

	c->has_slurm = c->in_slurm = c->has_cvd = 0;
	c->cvd[0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/%d/environ", conf->root,
	    (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	    (n = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	for (p = buf; p < buf + len; p += strlen(p) + 1) {
		if (strncmp(p, "SLURM_STEP_GPUS=", 16) == 0)
			step = p + 16;
		else if (strncmp(p, "SLURM_JOB_GPUS=", 15) == 0)
			job = p + 15;
		else if (strncmp(p, "SLURM_JOB_ID=", 13) == 0)
			c->in_slurm = 1;
		else if (strncmp(p, "CUDA_VISIBLE_DEVICES=", 21) == 0 &&
		    strlen(p + 21) < sizeof(c->cvd)) {
			snprintf(c->cvd, sizeof(c->cvd), "%s", p + 21);
			c->has_cvd = 1;
		}
	}
	if (step != NULL || job != NULL) {
		int	u = 0, partial = 0;

		c->slurm = nv_alloc_list(step != NULL ? step : job, 1, &u,
		    &partial);
		c->has_slurm = 1;	/* "" too: no GPU of the node */
	}
}

/* *partial: some rank named a GPU that cannot be told (a number under
 * Slurm, a UUID not seen): only the GPUs in *mask are known then. */
static int
nv_alloc(const struct probe_conf *conf, uint64_t *mask, int *partial)
{
	struct nv_envc	*c;
	unsigned	 it = 0;
	uint64_t	 start;
	pid_t		 pid;
	int		 known = 0, slurm_ok = nv_slurm_indexes_ok();

	*mask = 0;
	*partial = 0;
	while (ranks_reported(&it, &pid, &start) == 0) {
		if (it == 0 || it - 1 >= RANKS_MAX)
			continue;
		c = &nv_envc[it - 1];
		if (c->start != start + 1) {
			c->start = start + 1;
			nv_alloc_environ(conf, pid, c);
		}
		if (c->has_slurm && slurm_ok) {
			*mask |= c->slurm;
			known = 1;
		} else if (c->has_cvd)
			*mask |= nv_alloc_list(c->cvd, !c->in_slurm &&
			    !c->has_slurm, &known, partial);
	}
	return known;
}

static void
nv_sample(const struct probe_conf *conf)
{
	struct nv_gpu	*g;
	struct nv_proc	*pr;
	struct nv_mig	*mg;
	struct pinst	*pi;
	uint64_t	 now = probe_mono_us() / 1000, alloc;
	unsigned	 i, f;
	char		 name[32];
	int		 idx, known, partial, minor;
	static int	 minors_read;

	if (!minors_read) {
		nv_read_minors();
		minors_read = 1;
	}
	nv_tend_stream(now);
	nv_tend_apps(now);
	if (nv_stream.pid <= 0 || nv_stalled)
		return;
	known = nv_alloc(conf, &alloc, &partial);
	for (i = 0; i < NV_GPUS_MAX; i++) {
		g = &nv_gpus[i];
		if (!g->seen || now - g->last_ms >= nv_stall_ms)
			continue;
		snprintf(name, sizeof(name), "%u", i);
		if ((pi = probe_inst(&nv_group, name)) == NULL)
			continue;
		for (f = 0; f <= NV_THROTTLE; f++) {
			if (g->present & ((uint64_t)1 << f))
				pinst_set(pi, f, g->v[f]);
		}
		if (g->present & ((uint64_t)1 << NV_UUID))
			pinst_set_str(pi, NV_UUID, g->uuid);
		if (g->present & ((uint64_t)1 << NV_NAME))
			pinst_set_str(pi, NV_NAME, g->name);
		if (known && (!partial || (alloc >> i & 1)))
			pinst_set(pi, NV_ALLOC, (int64_t)(alloc >> i & 1));
		if ((minor = nv_minor_of(i)) >= 0)
			pinst_set(pi, NV_MINOR, minor);
	}
	/* A list older than three periods (and than the stall window, for
	 * the helper's short periods) is no longer the truth. */
	if (nv_procs_ms == 0 || now - nv_procs_ms > (3 * nv_procs_period() >
	    nv_stall_ms ? 3 * nv_procs_period() : nv_stall_ms))
		return;
	for (i = 0; i < nv_nmigs; i++) {
		mg = &nv_migs[i];
		if ((idx = nv_gpu_by_uuid(mg->uuid)) < 0)
			continue;
		snprintf(name, sizeof(name), "%d:%lld", idx,
		    (long long)mg->gi);
		if ((pi = probe_inst(&nvm_group, name)) == NULL)
			continue;
		pinst_set(pi, NVM_GPU, idx);
		pinst_set(pi, NVM_GI, mg->gi);
		if (mg->ci >= 0)
			pinst_set(pi, NVM_CI, mg->ci);
		if (mg->used >= 0)
			pinst_set(pi, NVM_MEM_USED, mg->used);
		if (mg->total >= 0)
			pinst_set(pi, NVM_MEM_TOTAL, mg->total);
		if (mg->mig[0] != '\0')
			pinst_set_str(pi, NVM_UUID, mg->mig);
		if (mg->name[0] != '\0')
			pinst_set_str(pi, NVM_NAME, mg->name);
	}
	for (i = 0; i < nv_nprocs; i++) {
		pr = &nv_procs[i];
		if ((idx = nv_gpu_by_uuid(pr->uuid)) < 0)
			continue;
		snprintf(name, sizeof(name), "%d:%lld", idx,
		    (long long)pr->pid);
		if ((pi = probe_inst(&nvp_group, name)) == NULL)
			continue;
		pinst_set(pi, NVP_GPU, idx);
		pinst_set(pi, NVP_PID, pr->pid);
		if (pr->has_mem)
			pinst_set(pi, NVP_MEM_USED, pr->mem);
		if (pr->has_util)
			pinst_set(pi, NVP_UTIL, pr->util);
	}
}

const struct source src_nvgpu = {
	"nvgpu", nv_groups, nv_init, nv_sample
};
