/* SPDX-License-Identifier: ISC */
/*
 * ranks-find: which processes on this node are the job's.  A scan lists
 * /proc with getdents64 on a descriptor opened at start-up, merges the
 * sorted pid list with the previous scan's, and examines only the pids it
 * has not seen before; a pid whose /proc directory has a new inode is
 * looked at again, and kept only if its start time is unchanged, so a
 * reused pid is judged afresh.  Scans run when the last pid the kernel
 * handed out (the fifth field of /proc/loadavg) moved, when a tracked
 * process went away, and every RF_SCAN_EVERY samples as a safety net; on a
 * node that forks nothing the scan costs one small read.
 *
 * With --job ID a process is the job's when any of these holds:
 *  - it descends from a Slurm step daemon of the job: a process owned by
 *    root whose cmdline reads "slurmstepd: [ID.STEP]" (the daemon itself
 *    is not a rank; a child of it that has not yet exec'd its task still
 *    reads so, and is one; a look-alike root does not own is judged as any
 *    other process), or from any other process of the job;
 *  - its /proc/PID/cgroup puts it in the job's cgroup where the scheduler
 *    makes it, from the root of the hierarchy (ranks_find_cgroup_path):
 *    cgroup v1 /slurm/uid_U/job_ID/step_S/task_T, v2 /system.slice/
 *    slurmstepd.scope/job_ID/step_S/user/task_T (or NODENAME_slurmstepd.
 *    scope), PBS's cgroup hook /pbs_jobs.service/jobid/ID.SERVER; the same
 *    names below another directory (a user's delegated user@U.service)
 *    never count;
 *  - its environment holds a job variable of src/jobvars.h naming ID:
 *    SLURM_JOB_ID (or SLURM_JOBID), LSB_JOBID, OAR_JOB_ID or OAR_JOBID
 *    equal to ID, PBS_JOBID equal to ID or whose part before the first
 *    '.' is ID, FLUX_JOB_ID the same f58 id ('f' or U+0192 first).
 * With --uid U (the job owner's, from the scheduler) only processes whose
 * real uid is U are the job's: anyone can put a job id in their own
 * environment, and root can move any process anywhere.  A root child of a
 * step daemon is looked at again at the next scan, as Slurm's task takes
 * the owner's uid just before its exec.
 * A process in another job's cgroup is not examined further, unless it
 * descends from the job.  The step is the cgroup's step_S component, else
 * the step of the daemon it descends from, else SLURM_STEP_ID.
 *
 * Rank ids: a process's rank id is the strongest of the rank variables of
 * rf_rank_vars (PMI_RANK, PMIX_RANK, OMPI_COMM_WORLD_RANK,
 * MV2_COMM_WORLD_RANK, PALS_RANKID, JSM_NAMESPACE_RANK, FLUX_TASK_RANK,
 * HOROVOD_RANK, RANK beside WORLD_SIZE, Slurm's global task id from
 * `scontrol listpids`, SLURM_PROCID, in that order) that is its own: one
 * its tracked parent does not carry with the same value.
 * What a process inherited names its launcher's task, not its rank: under
 * MPI launchers started through srun (hydra's proxies, Open MPI's daemons)
 * SLURM_PROCID numbers the launcher's tasks, one a node, and the MPI
 * variables the ranks; torchrun's workers carry the agent's SLURM_PROCID,
 * FLUX_TASK_RANK or PALS_RANKID beside their own RANK.  The size variable
 * of the id's family (else the first one set) is the launcher's world,
 * which the monitor counts the ranks against.
 *
 * Roles (ranks.h): a process whose comm is a launcher's (rf_helpers) is a
 * helper, and so is what a helper runs that carries no rank id of its own
 * but SLURM_PROCID (hydra's ssh to the other nodes, mpirun's srun).  Any
 * other process whose parent counts for a rank (the rank or one of its
 * folded descendants) and that has no rank id of its own (or the rank's
 * id by the rank's variable) is folded into that rank: a wrapper script
 * and the program it runs, `timeout` and its command, a driver and the
 * tools it calls are one rank, reported once, as its topmost process.
 * The parent is decided first, so the topmost process of a tree is always
 * the one that becomes the rank.  A process with a rank id of its own
 * (other than a weak one, SLURM_PROCID's or listpids') makes the ranks
 * above it helpers, unless their id is by the same variable, and so, in
 * --job mode, ranks without an id
 * above it: the per-node agent or shell that started it (torchrun's
 * elastic agent, DeepSpeed's launcher), the batch script (SLURM_PROCID 0)
 * that runs mpirun, which starts its node's ranks itself.  A process
 * without a strong rank id whose comm changes (it was seen between its
 * fork and its exec) is judged again (src-ranks.c).
 *
 * Slurm's task ids (Slurm 24.11 and later): `scontrol --json listpids
 * JOB` asks the node's step daemons, not slurmctld, which pid is which
 * task of which step (probes/listpids.h).  Its global task id is the
 * task's SLURM_PROCID as the step daemon knows it, whatever the task's
 * environment says or whether it can be read: above SLURM_PROCID in the
 * table, below every launcher's own variable, so a task that is an MPI
 * rank or a torch worker keeps the launcher's id, and a per-node agent
 * that is the task still becomes a helper when its workers show theirs.
 * It only names processes found as the job's already: a pid it lists is
 * never made the job's by it, a process it lists that is no task (its
 * ids unset) gets no id from it, nor does a helper or a process folded
 * into a rank, and only a parallel step's tasks (not the batch script,
 * not the extern step's) take it.  scontrol runs in the background
 * (rf_lp_*), never waited for: once `scontrol --version` says 24.11 or
 * later, then listpids when a process of a parallel step of the job
 * appears that no finished listpids could have seen (the top of a task's
 * tree: its parent is no process of the job), at most once a second, and
 * killed after RF_LP_TIMEOUT_MS.  Its answer goes to the processes it
 * names that are still the same (started before scontrol did), and is
 * kept for those judged later.  Not at all under --root, without scontrol
 * in PATH, before 24.11, for a job id that is not a number, or after
 * RF_LP_FAILS failed runs in a row; rank ids then come from the
 * environment alone.  The info event ranks-listpids says once that
 * listpids answered, or why it was given up after it ran (not for a
 * node without scontrol or with an older one: that is no fault).
 *
 * environ and cmdline, which the kernel reads out of the process's memory
 * (and which can stall on a process stuck with its memory map locked),
 * are read once per process, when it is first seen; cmdline only for a
 * process named slurmstepd.
 *
 * Without --job the probe shows the processes of --uid, else its own
 * uid's, or for root every process (src-ranks.c keeps the busiest).
 * Kernel threads never count, and neither do the probe and its ancestors
 * (its shell and ssh session), which pam_slurm_adopt may well have put
 * into the job's cgroup; under --root the tree is not the probe's own
 * /proc, so nothing is skipped.  Nor do another jobtop session's probes,
 * its srun step's shell and what they run, in any mode
 * (ranks_find_other_probe).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobvars.h"
#include "listpids.h"
#include "ranks.h"

#define RF_SCAN_MAX	16384	/* processes on the node a scan keeps */
#define RF_ANCESTORS	64	/* the probe and its ancestors */
#define RF_DEPTH	64	/* parents followed to decide a process */
#define RF_SCAN_EVERY	16	/* samples between unconditional scans */
#define RF_NVARS	11	/* rank variables (rf_rank_vars) */
#define RF_RANK_TORCH	8	/* RANK's index: only beside WORLD_SIZE */
#define RF_RANK_WEAK	RANKS_PRIO_WEAK	/* the first weak one */
#define RF_RANK_LISTPIDS 9	/* scontrol listpids' global task id */
#define RF_RANK_PROCID	10	/* SLURM_PROCID's */
#define RF_LP_TIMEOUT_MS 3000	/* a scontrol that runs longer is killed */
#define RF_LP_GAP_MS	1000	/* between the starts of two listpids */
#define RF_LP_FAILS	3	/* failed listpids in a row: no more */
#define RF_LP_OUT	(256 * 1024)	/* its output without blanks: about
					 * 1600 processes of the job */
/* A process that started less than this many clock ticks before a
 * listpids did may not be in it yet (slurmstepd notes a task's pid just
 * after its fork): if the listpids did not name it, one more runs. */
#define RF_LP_SLACK_TK	2

enum rf_kind {
	RF_NEW,		/* not examined yet */
	RF_OTHER,	/* not the job's */
	RF_STEPD,	/* a step daemon of the job: its children are */
	RF_JOB,		/* tracked in slot */
	RF_RETRY,	/* examine again at the next scan */
	RF_BUSY,	/* being examined: guards against ppid cycles */
	RF_PROBE,	/* a jobtop probe or what it runs: never the job's */
};

enum rf_mode {
	RF_MODE_JOB,	/* --job */
	RF_MODE_UID,	/* the probe's uid */
	RF_MODE_ALL,	/* root without --job: every process */
};

/* One process as the last scan saw it, sorted by pid. */
struct rf_ent {
	uint64_t	ino;	/* of /proc/PID: new for a reused pid */
	uint64_t	start;	/* stat field 22 */
	int32_t		pid;
	int32_t		ppid;
	int32_t		slot;	/* RF_JOB */
	uint32_t	step;	/* RF_STEPD */
	uint8_t		kind;
	uint8_t		recheck;	/* new inode: check the start */
};

/* What the environment of a process says. */
struct rf_env {
	int		job;		/* a job variable names it */
	int		probe;		/* JOBTOP_PROBE_SESSION is set */
	int		jobname;	/* SLURM_JOB_NAME=jobtop */
	char		sluid[RANKS_SLUID_MAX];	/* SLURM_JOB_SLUID, or "" */
	char		ctr[RANKS_CTR_MAX];	/* the container, or "" */
	int64_t		rank;		/* -1: none (ranks_find_own) */
	unsigned	rankprio;	/* index in rf_rank_vars of rank */
	int64_t		world;		/* -1: unknown */
	uint32_t	step;
	int32_t		vals[RF_NVARS];	/* each rank variable, -1 unset */
	int64_t		sizes[RF_NVARS];	/* each size variable, -1 */
};

/* getdents64's record (struct linux_dirent64). */
struct rf_dirent {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

static struct rf_ent	 rf_ents[2][RF_SCAN_MAX];
static unsigned		 rf_nents[2];
static unsigned		 rf_cur;	/* rf_ents[rf_cur]: last scan */
static int		 rf_proc_fd = -1;
static int		 rf_loadavg_fd = -1;
static uint64_t		 rf_last_pid;
static int		 rf_scanned;
static int		 rf_force;
static unsigned		 rf_since;
static pid_t		 rf_skip[RF_ANCESTORS];
static unsigned		 rf_nskip;
static enum rf_mode	 rf_mode;
static uid_t		 rf_uid;
static int64_t		 rf_owner = -1;	/* --uid, or -1 */
static char		 rf_v2root[512];	/* see ranks_find_v2_root */
static const char	*rf_job;
static size_t		 rf_joblen;
/* The job's SLUID (Slurm 26.05 names the job's cgroup by it), "" while
 * unknown, and where it came from. */
static char		 rf_sluid[RANKS_SLUID_MAX];
static const char	*rf_sluid_from;
static int		 rf_rejudge;	/* learnt: judge RF_OTHER again */
/* The probe's own executable (device and inode; 0 under --root). */
static uint64_t		 rf_self_dev, rf_self_ino;

/* How the first process of the job was found, and the job's cgroup, for
 * the "ranks-found" event (ranks_find_how; jobtop --explain shows it). */
static char		 rf_how[160];
static char		 rf_cgroup[PROTO_TEXT_MAX / 2];

static uint64_t		 rf_dents[32768 / sizeof(uint64_t)];
static char		 rf_buf[8192];	/* stat, cgroup, cmdline... */
static char		 rf_envbuf[16384];

/*
 * The variables that give a process its global rank, strongest first
 * (jobtop.1, "Ranks of the job"), and beside each the one that gives the
 * size of that world ("" none): MPICH's and Slurm's PMI, PMIx, Open MPI,
 * MVAPICH2, HPE Cray PALS, IBM jsrun, Flux, Horovod, torch.distributed
 * (torchrun, DeepSpeed, Accelerate: RANK counts only beside WORLD_SIZE),
 * and last the scheduler's task numbers, the weak ones: Slurm's global
 * task id as `scontrol listpids` gives it (no variable: "", its world is
 * SLURM_NTASKS's), then SLURM_PROCID.
 */
static const char *const rf_rank_vars[RF_NVARS] = {
	"PMI_RANK=", "PMIX_RANK=", "OMPI_COMM_WORLD_RANK=",
	"MV2_COMM_WORLD_RANK=", "PALS_RANKID=", "JSM_NAMESPACE_RANK=",
	"FLUX_TASK_RANK=", "HOROVOD_RANK=", "RANK=", "", "SLURM_PROCID="
};
static const char *const rf_size_vars[RF_NVARS] = {
	"PMI_SIZE=", "", "OMPI_COMM_WORLD_SIZE=", "MV2_COMM_WORLD_SIZE=",
	"", "JSM_NAMESPACE_SIZE=", "FLUX_JOB_SIZE=", "HOROVOD_SIZE=",
	"WORLD_SIZE=", "", "SLURM_NTASKS="
};
/* rank_var of an id from listpids. */
#define RF_LP_NAME	"scontrol listpids"
/* The names without '=' (rank_var, ranks-found); filled at init. */
static char		 rf_var_names[RF_NVARS][24];
/* Each tracked process's rank variables, by slot (-1 unset): what its
 * children inherit is not theirs. */
static int32_t		 rf_slot_vals[RANKS_MAX][RF_NVARS];

/* The comms of launchers' processes: MPICH's hydra, Open MPI's and PRRTE's
 * daemons and launchers, Slurm's srun, MVAPICH2's, Flux's job shell,
 * torchrun's and horovodrun's agents (comm is at most 15 characters).
 * Other agents (a per-node shell, DeepSpeed's or Accelerate's launcher)
 * become helpers when their workers show rank ids of their own. */
static const char *const rf_helpers[] = {
	"hydra_pmi_proxy", "hydra_nameserve", "mpiexec", "mpiexec.hydra",
	"mpiexec.mpich", "mpiexec.openmpi", "mpirun", "mpirun.mpich",
	"mpirun.openmpi", "orterun", "orted", "prted", "prterun", "prte",
	"srun", "sattach", "mpirun_rsh", "mpispawn", "flux-shell", "torchrun",
	"horovodrun", NULL
};

int
ranks_find_is_helper(const char *comm)
{
	unsigned	i;

	for (i = 0; rf_helpers[i] != NULL; i++)
		if (strcmp(comm, rf_helpers[i]) == 0)
			return 1;
	return 0;
}

/* Read /proc/PID/NAME (under --root) into buf; its length or -1. */
static ssize_t
ranks_find_read(pid_t pid, const char *name, char *buf, size_t size)
{
	char	path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return probe_read_file(path, buf, size);
}

/* Skip the 'f' or U+0192 (UTF-8) before a Flux f58 id's base58 digits;
 * *len shrinks with it.  NULL when s is not in that form. */
static const char *
ranks_find_f58_body(const char *s, size_t *len)
{
	if (*len >= 3 && (unsigned char)s[0] == 0xc6 &&
	    (unsigned char)s[1] == 0x92) {
		*len -= 2;
		return s + 2;
	}
	if (*len >= 2 && s[0] == 'f') {
		*len -= 1;
		return s + 1;
	}
	return NULL;
}

/* Does s (len bytes), a job variable's value read as match says
 * (jobvars.h), name the job? */
static int
ranks_find_is_job(const char *s, size_t len, enum jobvar_match match)
{
	const char	*dot, *a, *b;
	size_t		 bl = rf_joblen;

	if (rf_job == NULL)
		return 0;
	if (match == JV_F58) {
		if ((a = ranks_find_f58_body(s, &len)) == NULL ||
		    (b = ranks_find_f58_body(rf_job, &bl)) == NULL)
			return 0;
		return len == bl && memcmp(a, b, len) == 0;
	}
	if (len == rf_joblen && memcmp(s, rf_job, len) == 0)
		return 1;
	if (match == JV_SERVER && (dot = memchr(s, '.', len)) != NULL)
		len = (size_t)(dot - s);
	return len == rf_joblen && memcmp(s, rf_job, len) == 0;
}

/* A step as Slurm names it in a cgroup, a step daemon's title or
 * SLURM_STEP_ID: "0", "batch", "extern", "interactive". */
static uint32_t
ranks_find_parse_step(const char *s, size_t len)
{
	uint64_t	v = 0;
	size_t		i;

	if (len == 5 && memcmp(s, "batch", 5) == 0)
		return RANKS_STEP_BATCH;
	if (len == 6 && memcmp(s, "extern", 6) == 0)
		return RANKS_STEP_EXTERN;
	if (len == 11 && memcmp(s, "interactive", 11) == 0)
		return RANKS_STEP_INTERACTIVE;
	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > 0xffffffffu)
			return RANKS_STEP_NONE;
	}
	if (i == 0 || (i < len && s[i] != '+'))
		return RANKS_STEP_NONE;
	if (v == RANKS_STEP_NONE || v == 0xfffffffdu)	/* pending */
		return RANKS_STEP_NONE;
	return (uint32_t)v;
}

uint32_t
ranks_parse_step(const char *s)
{
	size_t	len = strlen(s);

	/* All of s: "0+1" (a het component's step) is not a step name. */
	if (len == 0 || strchr(s, '+') != NULL)
		return RANKS_STEP_NONE;
	return ranks_find_parse_step(s, len);
}

/* Parse an unsigned decimal that is all of s; -1 if it is not one. */
static int64_t
ranks_find_parse_uint(const char *s, size_t len)
{
	int64_t	v = 0;
	size_t	i;

	if (len == 0 || len > 18)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* One NAME=VALUE entry of an environment. */
static void
ranks_find_env_entry(struct rf_env *env, const char *s, size_t len)
{
	size_t	n;
	int64_t	v;
	int	i;

	if (len >= 21 && memcmp(s, "JOBTOP_PROBE_SESSION=", 21) == 0) {
		env->probe = 1;
		return;
	}
	if (len == 21 && memcmp(s, "SLURM_JOB_NAME=jobtop", 21) == 0) {
		env->jobname = 1;
		return;
	}
	/* The container runtimes' own variables (see ranks_set_container):
	 * Apptainer's image, Singularity's, Enroot's root file system
	 * (pyxis runs Enroot), and the "container" variable Podman sets. */
	if (len > 20 && memcmp(s, "APPTAINER_CONTAINER=", 20) == 0) {
		snprintf(env->ctr, sizeof(env->ctr), "apptainer %.*s",
		    (int)(len - 20), s + 20);
		return;
	}
	if (len > 22 && memcmp(s, "SINGULARITY_CONTAINER=", 22) == 0) {
		if (env->ctr[0] == '\0')
			snprintf(env->ctr, sizeof(env->ctr), "singularity "
			    "%.*s", (int)(len - 22), s + 22);
		return;
	}
	if (len > 14 && memcmp(s, "ENROOT_ROOTFS=", 14) == 0) {
		snprintf(env->ctr, sizeof(env->ctr), "enroot %.*s",
		    (int)(len - 14), s + 14);
		return;
	}
	if (len > 10 && memcmp(s, "container=", 10) == 0) {
		if (env->ctr[0] == '\0')
			snprintf(env->ctr, sizeof(env->ctr), "%.*s",
			    (int)(len - 10), s + 10);
		return;
	}
	if (len > 16 && memcmp(s, "SLURM_JOB_SLUID=", 16) == 0) {
		if (ranks_is_sluid(s + 16, len - 16))
			snprintf(env->sluid, sizeof(env->sluid), "%.*s",
			    (int)(len - 16), s + 16);
		return;
	}
	for (i = 0; jobvars[i].name != NULL; i++) {
		n = strlen(jobvars[i].name);
		if (len > n && memcmp(s, jobvars[i].name, n) == 0 &&
		    s[n] == '=') {
			if (ranks_find_is_job(s + n + 1, len - n - 1,
			    jobvars[i].match))
				env->job = 1;
			return;
		}
	}
	if (len >= 14 && memcmp(s, "SLURM_STEP_ID=", 14) == 0) {
		env->step = ranks_find_parse_step(s + 14, len - 14);
		return;
	}
	for (i = 0; i < RF_NVARS; i++) {
		n = strlen(rf_rank_vars[i]);
		if (n > 0 && len >= n && memcmp(s, rf_rank_vars[i], n) == 0) {
			if ((v = ranks_find_parse_uint(s + n, len - n)) >= 0 &&
			    v <= INT32_MAX)
				env->vals[i] = (int32_t)v;
			return;
		}
		n = strlen(rf_size_vars[i]);
		if (n > 0 && len >= n && memcmp(s, rf_size_vars[i], n) == 0) {
			if ((v = ranks_find_parse_uint(s + n, len - n)) > 0)
				env->sizes[i] = v;
			return;
		}
	}
}

/*
 * The process's rank id: the strongest rank variable of its own, one its
 * parent (tracked, its variables pv; NULL when not) does not carry with
 * the same value.  What it inherited says where its launcher runs, not
 * which rank it is: torchrun's workers inherit the agent's SLURM_PROCID
 * or FLUX_TASK_RANK beside their own RANK.  Without one of its own, rank
 * is -1 (it is folded into its parent's rank, or a helper below a
 * helper).  world: the size variable of the id's family, else the first
 * one set in the table's order.
 */
static void
ranks_find_own(struct rf_env *env, const int32_t *pv)
{
	unsigned	i;

	if (env->sizes[RF_RANK_TORCH] < 0)
		env->vals[RF_RANK_TORCH] = -1;
	env->rank = -1;
	env->rankprio = RANKS_PRIO_NONE;
	env->world = -1;
	for (i = 0; i < RF_NVARS; i++) {
		if (env->vals[i] >= 0 && (pv == NULL ||
		    pv[i] != env->vals[i])) {
			env->rank = env->vals[i];
			env->rankprio = i;
			break;
		}
	}
	if (env->rank >= 0 && (env->world = env->sizes[env->rankprio ==
	    RF_RANK_LISTPIDS ? RF_RANK_PROCID : env->rankprio]) > 0)
		return;
	for (i = 0; i < RF_NVARS && env->rank >= 0; i++)
		if ((env->world = env->sizes[i]) > 0)
			return;
}

/* Read /proc/PID/environ in pieces (it can be large) and note the
 * variables that matter; an entry longer than the buffer is skipped. */
static int
ranks_find_environ(pid_t pid, struct rf_env *env)
{
	char		 path[64];
	const char	*nul;
	size_t		 have = 0, start;
	ssize_t		 n;
	int		 fd, skipping = 0;

	env->job = 0;
	env->probe = 0;
	env->jobname = 0;
	env->sluid[0] = '\0';
	env->ctr[0] = '\0';
	env->rank = -1;
	env->rankprio = RANKS_PRIO_NONE;
	env->world = -1;
	env->step = RANKS_STEP_NONE;
	memset(env->vals, 0xff, sizeof(env->vals));
	memset(env->sizes, 0xff, sizeof(env->sizes));
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if ((fd = probe_open(path)) < 0)
		return -1;
	for (;;) {
		n = read(fd, rf_envbuf + have, sizeof(rf_envbuf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		start = 0;
		while ((nul = memchr(rf_envbuf + start, '\0', have - start)) !=
		    NULL) {
			if (!skipping)
				ranks_find_env_entry(env, rf_envbuf + start,
				    (size_t)(nul - rf_envbuf) - start);
			skipping = 0;
			start = (size_t)(nul - rf_envbuf) + 1;
		}
		if (start == 0 && have == sizeof(rf_envbuf)) {
			skipping = 1;
			have = 0;
			continue;
		}
		memmove(rf_envbuf, rf_envbuf + start, have - start);
		have -= start;
	}
	if (have > 0 && !skipping)
		ranks_find_env_entry(env, rf_envbuf, have);
	close(fd);
	return 0;
}

/* Is [s, s+n) the literal lit? */
static int
ranks_find_comp_is(const char *s, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

/* Does [s, s+n) start with prefix and have more after it? */
static int
ranks_find_comp_pre(const char *s, size_t n, const char *prefix)
{
	size_t	m = strlen(prefix);

	return n > m && memcmp(s, prefix, m) == 0;
}

/* Split a cgroup path into its first (at most 4) components; how many. */
static unsigned
ranks_find_split(const char *p, const char *end, const char **c, size_t *n)
{
	const char	*e;
	unsigned	 nc = 0;

	while (nc < 4 && p < end) {
		while (p < end && *p == '/')
			p++;
		if (p >= end)
			break;
		if ((e = memchr(p, '/', (size_t)(end - p))) == NULL)
			e = end;
		c[nc] = p;
		n[nc++] = (size_t)(e - p);
		p = e;
	}
	return nc;
}

/* Does [s, s+n) end with suffix and have more before it? */
static int
ranks_find_comp_suf(const char *s, size_t n, const char *suffix)
{
	size_t	m = strlen(suffix);

	return n > m && memcmp(s + n - m, suffix, m) == 0;
}

const char *
ranks_find_v2_root(void)
{
	return rf_v2root;
}

int
ranks_is_sluid(const char *s, size_t len)
{
	size_t	i;

	if (len < 1 + RANKS_SLUID_MIN || len > RANKS_SLUID_MAX - 1 ||
	    s[0] != 's')
		return 0;
	for (i = 1; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	return 1;
}

int
ranks_find_set_sluid(const char *s, size_t len, const char *from)
{
	if (!ranks_is_sluid(s, len))
		return -1;
	if (rf_sluid[0] != '\0')
		return strlen(rf_sluid) == len && memcmp(rf_sluid, s, len) ==
		    0 ? 0 : -1;
	snprintf(rf_sluid, sizeof(rf_sluid), "%.*s", (int)len, s);
	rf_sluid_from = from;
	/* What the scans judged before may be the job's after all. */
	rf_rejudge = 1;
	rf_force = 1;
	return 0;
}

const char *
ranks_find_sluid(const char **from)
{
	if (from != NULL)
		*from = rf_sluid_from;
	return rf_sluid;
}

/* The job's SLUID from a cgroup v2 path of a process known to be the
 * job's (its step daemon, a task it started): ROOT/system.slice/
 * [NODE_]slurmstepd.scope/SLUID/...; only root makes directories there. */
static void
ranks_find_learn_path(const char *path, size_t len, const char *from)
{
	const char	*c[4], *end = path + len;
	size_t		 n[4], rl = strlen(rf_v2root);

	if (rf_sluid[0] != '\0' || len == 0 || *path != '/')
		return;
	if (rl > 0 && !(len > rl && memcmp(path, rf_v2root, rl) == 0 &&
	    path[rl] == '/'))
		return;
	if (ranks_find_split(path + rl, end, c, n) < 3 ||
	    !ranks_find_comp_is(c[0], n[0], "system.slice") ||
	    !(ranks_find_comp_is(c[1], n[1], "slurmstepd.scope") ||
	    ranks_find_comp_suf(c[1], n[1], "_slurmstepd.scope")))
		return;
	(void)ranks_find_set_sluid(c[2], n[2], from);
}

int
ranks_find_cgroup_path(const char *path, size_t len, const char *job,
    int64_t uid, size_t *dirlen, uint32_t *step)
{
	const char	*c[4], *end = path + len, *e, *id;
	size_t		 n[4], idlen, jl, rl = strlen(rf_v2root);
	unsigned	 nc;
	int64_t		 u;
	int		 numeric = 0, sluid = 0;

	*step = RANKS_STEP_NONE;
	if (len == 0 || *path != '/' || job == NULL)
		return 0;
	nc = ranks_find_split(path, end, c, n);
	if (nc >= 3 && (ranks_find_comp_is(c[0], n[0], "slurm") ||
	    ranks_find_comp_pre(c[0], n[0], "slurm_"))) {
		/* v1: /slurm/uid_U/job_ID, /slurm_NODE/uid_U/job_ID */
		if (!ranks_find_comp_pre(c[1], n[1], "uid_") ||
		    (u = ranks_find_parse_uint(c[1] + 4, n[1] - 4)) < 0 ||
		    !ranks_find_comp_pre(c[2], n[2], "job_"))
			return 0;
		if (uid >= 0 && u != uid)
			return -1;
		id = c[2] + 4;
		idlen = n[2] - 4;
	} else if (nc >= 3 && ranks_find_comp_is(c[0], n[0],
	    "pbs_jobs.service") && ranks_find_comp_is(c[1], n[1], "jobid")) {
		/* The PBS cgroup hook: /pbs_jobs.service/jobid/ID.SERVER */
		id = c[2];
		idlen = n[2];
		numeric = 1;
	} else {
		/* v2: ROOT/system.slice/[NODE_]slurmstepd.scope/job_ID */
		if (rl > 0 && !(len > rl && memcmp(path, rf_v2root, rl) == 0 &&
		    path[rl] == '/'))
			return 0;
		if ((nc = ranks_find_split(path + rl, end, c, n)) < 3 ||
		    !ranks_find_comp_is(c[0], n[0], "system.slice") ||
		    !(ranks_find_comp_is(c[1], n[1], "slurmstepd.scope") ||
		    ranks_find_comp_suf(c[1], n[1], "_slurmstepd.scope")))
			return 0;
		if (ranks_is_sluid(c[2], n[2])) {
			/* Slurm 26.05: the job's SLUID, once known. */
			if (rf_sluid[0] == '\0')
				return 0;
			if (n[2] != strlen(rf_sluid) ||
			    memcmp(c[2], rf_sluid, n[2]) != 0)
				return -1;
			sluid = 1;
		} else if (!ranks_find_comp_pre(c[2], n[2], "job_"))
			return 0;
		id = c[2] + 4;
		idlen = n[2] - 4;
	}
	jl = strlen(job);
	if (numeric && (e = memchr(id, '.', idlen)) != NULL)
		idlen = (size_t)(e - id);
	if (!sluid && (idlen != jl || memcmp(id, job, jl) != 0))
		return -1;
	*dirlen = (size_t)(c[2] + n[2] - path);
	if (nc == 4 && ranks_find_comp_pre(c[3], n[3], "step_"))
		*step = ranks_find_parse_step(c[3] + 5, n[3] - 5);
	return 1;
}

/*
 * Where Slurm puts system.slice in cgroup v2, as it works it out itself:
 * beside PID 1's cgroup ("0::/init.scope" gives "", and a container's
 * init in "/docker.slice/docker-ID.scope/init.scope" gives
 * "/docker.slice/docker-ID.scope"), or at the root when PID 1 is there.
 */
static void
ranks_find_init_v2root(void)
{
	const char	*line, *eol, *last;
	char		 buf[1024];
	size_t		 len;

	rf_v2root[0] = '\0';
	if (probe_read_file("/proc/1/cgroup", buf, sizeof(buf)) <= 0)
		return;
	for (line = buf; *line != '\0'; line = *eol ? eol + 1 : eol) {
		if ((eol = strchr(line, '\n')) == NULL)
			eol = line + strlen(line);
		if (eol - line < 4 || memcmp(line, "0::/", 4) != 0)
			continue;
		/* The path without its last component, and no "/" alone. */
		for (last = eol; last > line + 3 && last[-1] != '/'; last--)
			;
		len = (size_t)(last - (line + 3));
		while (len > 0 && line[3 + len - 1] == '/')
			len--;
		if (len < sizeof(rf_v2root))
			snprintf(rf_v2root, sizeof(rf_v2root), "%.*s",
			    (int)len, line + 3);
		return;
	}
}

/*
 * Where /proc/PID/cgroup puts the process: 1 in the job (with *step set
 * from a step_S component when there is one), -1 in another job of Slurm
 * or PBS, 0 in no job cgroup.
 */
static int
ranks_find_cgroup(pid_t pid, uint32_t *step, const char *learn)
{
	const char	*line, *eol, *p;
	size_t		 dirlen;
	int		 other = 0, r, colons;

	*step = RANKS_STEP_NONE;
	if (ranks_find_read(pid, "cgroup", rf_buf, sizeof(rf_buf)) <= 0)
		return 0;
	for (line = rf_buf; *line != '\0'; line = *eol ? eol + 1 : eol) {
		if ((eol = strchr(line, '\n')) == NULL)
			eol = line + strlen(line);
		/* "ID:controllers:/path" */
		for (p = line, colons = 0; p < eol && colons < 2; p++)
			colons += *p == ':';
		if (colons < 2)
			continue;
		if (learn != NULL && line[0] == '0' && p == line + 3)
			ranks_find_learn_path(p, (size_t)(eol - p), learn);
		r = ranks_find_cgroup_path(p, (size_t)(eol - p), rf_job,
		    rf_owner, &dirlen, step);
		if (r > 0 && rf_cgroup[0] == '\0')
			snprintf(rf_cgroup, sizeof(rf_cgroup), "%.*s",
			    (int)dirlen, p);
		if (r > 0)
			return 1;
		if (r < 0)
			other = 1;
	}
	*step = RANKS_STEP_NONE;
	return other ? -1 : 0;
}

/* A slurmstepd's title, "slurmstepd: [ID.STEP]": 1 when it is one of the
 * job's (step set), -1 another job's, 0 not a step daemon's title. */
static int
ranks_find_stepd(pid_t pid, uint32_t *step)
{
	static const char	 title[] = "slurmstepd: [";
	const char		*id, *end;
	ssize_t			 n;

	if ((n = ranks_find_read(pid, "cmdline", rf_buf, 256)) <= 0 ||
	    strncmp(rf_buf, title, sizeof(title) - 1) != 0)
		return 0;
	id = rf_buf + sizeof(title) - 1;
	if ((end = strchr(id, ']')) == NULL)
		return 0;
	if (rf_job == NULL || strncmp(id, rf_job, rf_joblen) != 0 ||
	    id[rf_joblen] != '.')
		return -1;
	id += rf_joblen + 1;
	*step = end > id ? ranks_find_parse_step(id, (size_t)(end - id)) :
	    RANKS_STEP_NONE;
	return 1;
}

/* Is comm a probe's as jobtop names it: "jobtop-probe..." (installed) or
 * "probe-HEX..." (the per-user cache; comm is cut at 15 characters)? */
static int
ranks_find_probe_name(const char *s)
{
	size_t	i;

	if (strncmp(s, "jobtop-probe", 12) == 0)
		return 1;
	if (strncmp(s, "probe-", 6) != 0 || s[6] == '\0')
		return 0;
	for (i = 6; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* Does the command line of pid say a jobtop probe (its program a probe's
 * name with one of the options every transport gives it) or the shell of
 * a jobtop srun step ("/bin/sh -c SCRIPT jobtop-srun ...")? */
static int
ranks_find_probe_cmdline(pid_t pid)
{
	static const char *const opts[] = { "--interval", "--armour",
	    "--watchdog", "--job", NULL };
	const char	*a, *base, *end;
	ssize_t		 n;
	unsigned	 i, j;
	int		 named = 0;

	if ((n = ranks_find_read(pid, "cmdline", rf_buf, 4096)) <= 0)
		return 0;
	end = rf_buf + n;
	for (a = rf_buf, i = 0; a < end && i < 16; a += strlen(a) + 1, i++) {
		if ((base = strrchr(a, '/')) != NULL)
			base++;
		else
			base = a;
		if (i == 3 && strcmp(a, "jobtop-srun") == 0)
			return 1;
		if (i <= 1 && ranks_find_probe_name(base))
			named = 1;
		for (j = 0; named && i > 0 && opts[j] != NULL; j++)
			if (strcmp(a, opts[j]) == 0)
				return 1;
	}
	return 0;
}

/*
 * Is the process another jobtop's probe, or something such a probe or
 * jobtop's own Slurm step runs?  A second jobtop session on the same job
 * (a user and an admin, two windows) starts its probes inside the job:
 * through srun they are tasks of a step of the job (srun --overlap
 * --job-name=jobtop), over SSH pam_slurm_adopt may put them in the job's
 * cgroup, and they carry the job's variables.  They are never ranks:
 *  - the marker JOBTOP_PROBE_SESSION in the environment: the srun
 *    transport passes it to its whole step (--export), so the step's
 *    shell that waits for a push carries it too, and every probe sets it
 *    on itself at start (probe.c), whatever started it; what a probe
 *    runs (nvidia-smi, eu-stack, gdb) inherits it;
 *  - the same executable as this probe's (device and inode of
 *    /proc/PID/exe): a probe in the moment before it set the marker;
 *  - a probe's name with a probe's options on its command line, and the
 *    srun step's shell by its name jobtop-srun, read only for a process
 *    named like a probe or whose SLURM_JOB_NAME is jobtop (the name srun
 *    gives the step's tasks): probes of an older jobtop.  SLURM_JOB_NAME
 *    alone does not do: a user may name a job jobtop.
 * What descends from such a process is never the job's either.
 */
static int
ranks_find_other_probe(pid_t pid, const struct ranks_stat *st,
    const struct rf_env *env)
{
	char		path[64];
	struct stat	sb;

	if (env != NULL && env->probe)
		return 1;
	if (rf_self_ino != 0) {
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		if (stat(path, &sb) == 0 && (uint64_t)sb.st_ino ==
		    rf_self_ino && (uint64_t)sb.st_dev == rf_self_dev)
			return 1;
	}
	if (ranks_find_probe_name(st->comm) ||
	    (env != NULL && env->jobname))
		return ranks_find_probe_cmdline(pid);
	return 0;
}

/* Is pid the probe or one of its ancestors? */
static int
ranks_find_skipped(pid_t pid)
{
	unsigned	i;

	for (i = 0; i < rf_nskip; i++) {
		if (rf_skip[i] == pid)
			return 1;
	}
	return 0;
}

/* The entry of pid in the sorted scan, or NULL. */
static struct rf_ent *
ranks_find_lookup(struct rf_ent *ents, unsigned n, int64_t pid)
{
	unsigned	lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ents[mid].pid == pid)
			return &ents[mid];
		if (ents[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * scontrol listpids (see the top of the file).  One scontrol at a time:
 * first `scontrol --version`, then `scontrol --json listpids JOB` when
 * rf_lp_want says a process appeared that no finished run could have
 * seen.  Its output comes through a non-blocking pipe, read at each
 * sample and between samples (ranks_find_listpids), without blanks
 * outside strings; its standard error goes to /dev/null.
 */
enum rf_lp_state {
	RF_LP_UNTRIED,	/* scontrol not looked for yet */
	RF_LP_VERSION,	/* scontrol --version runs */
	RF_LP_READY,	/* Slurm 24.11 or later: listpids when wanted */
	RF_LP_RUNNING,	/* scontrol --json listpids JOB runs */
	RF_LP_OFF,	/* not used (rf_lp_why) */
};

/* A task of the last listpids read, by pid. */
struct rf_lp_task {
	int32_t		pid;
	uint32_t	step;
	int32_t		gtid;
};

static enum rf_lp_state	 rf_lp_state;
static char		 rf_lp_path[4096];	/* scontrol */
static pid_t		 rf_lp_child = -1;	/* until reaped */
static int		 rf_lp_fd = -1;		/* until end of file */
static uint64_t		 rf_lp_start_ms;	/* of the child, monotonic */
static uint64_t		 rf_lp_last_ms;		/* of the last listpids */
static uint32_t		 rf_lp_job;		/* the job id as a number */
static uint64_t		 rf_lp_start_tk;	/* the same, ticks since boot */
static uint64_t		 rf_lp_known_tk;	/* rf_lp_start_tk of the run
						 * rf_lp_tasks is from */
static int		 rf_lp_want;
static unsigned		 rf_lp_fails;
static int		 rf_lp_said;		/* ranks-listpids sent */
static uint32_t		 rf_lp_clk_tck = 100;
static char		 rf_lp_version[64];
static char		 rf_lp_out[RF_LP_OUT] __attribute__((aligned(4096)));
static size_t		 rf_lp_len;
static int		 rf_lp_instr, rf_lp_esc, rf_lp_over, rf_lp_raw;
static struct listpids_task rf_lp_got[RANKS_MAX] __attribute__((aligned(4096)));
static struct rf_lp_task rf_lp_tasks[RANKS_MAX];
static unsigned		 rf_lp_ntasks;

static uint64_t
rf_lp_now_ms(void)
{
	return probe_mono_us() / 1000;
}

/* Now in clock ticks since boot, as /proc/PID/stat's start time. */
static uint64_t
rf_lp_boot_ticks(void)
{
	struct timespec	ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * rf_lp_clk_tck + (uint64_t)ts.tv_nsec /
	    (1000000000u / rf_lp_clk_tck);
}

/* Stop using listpids, and say why once (why NULL: nothing to say, a
 * Slurm without it is no fault). */
static void
rf_lp_off(const char *why)
{
	rf_lp_state = RF_LP_OFF;
	rf_lp_want = 0;
	if (rf_lp_said || why == NULL)
		return;
	rf_lp_said = 1;
	probe_event(EV_INFO, "ranks-listpids", "Slurm task ids not from "
	    "scontrol listpids: %s; rank ids from the environment", why);
}

/* scontrol in PATH (the probe's own environment), or -1. */
static int
rf_lp_find(void)
{
	const char	*path, *p, *e;
	size_t		 n;

	if ((path = getenv("PATH")) == NULL)
		return -1;
	for (p = path; *p != '\0'; p = *e == ':' ? e + 1 : e) {
		if ((e = strchr(p, ':')) == NULL)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (n == 0 || *p != '/' || n + 10 > sizeof(rf_lp_path))
			continue;
		snprintf(rf_lp_path, sizeof(rf_lp_path), "%.*s/scontrol",
		    (int)n, p);
		if (access(rf_lp_path, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* Start scontrol with argv, its standard output into rf_lp_fd, kept
 * as it is (raw) or without blanks outside strings. */
static int
rf_lp_spawn(char *const argv[], int raw)
{
	pid_t	pid;

	if ((pid = probe_spawn(rf_lp_path, argv, PROBE_SPAWN_ERRNULL,
	    &rf_lp_fd)) < 0)
		return -1;
	rf_lp_child = pid;
	rf_lp_start_ms = rf_lp_now_ms();
	rf_lp_start_tk = rf_lp_boot_ticks();
	rf_lp_len = 0;
	rf_lp_instr = rf_lp_esc = rf_lp_over = 0;
	rf_lp_raw = raw;
	return 0;
}

/* Read what is there; 1 at end of file, 0 when more may come. */
static int
rf_lp_drain(void)
{
	char		buf[4096];
	ssize_t		n, i;
	char		c;

	for (;;) {
		if ((n = read(rf_lp_fd, buf, sizeof(buf))) == 0)
			return 1;
		if (n < 0)
			return errno == EINTR ? 0 : errno == EAGAIN ? 0 : 1;
		for (i = 0; i < n; i++) {
			c = buf[i];
			if (!rf_lp_raw && !rf_lp_instr && (c == ' ' ||
			    c == '\n' || c == '\t' || c == '\r'))
				continue;
			if (rf_lp_esc)
				rf_lp_esc = 0;
			else if (c == '\\' && rf_lp_instr)
				rf_lp_esc = 1;
			else if (c == '"')
				rf_lp_instr = !rf_lp_instr;
			if (rf_lp_len < sizeof(rf_lp_out))
				rf_lp_out[rf_lp_len++] = c;
			else
				rf_lp_over = 1;
		}
	}
}

static int
rf_lp_cmp(const void *a, const void *b)
{
	const struct rf_lp_task	*x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The task pid is, by the last listpids read, if it is the process that
 * started at start in step (RANKS_STEP_NONE: unknown): its global task
 * id, else -1. */
static int32_t
rf_lp_lookup(pid_t pid, uint64_t start, uint32_t step)
{
	unsigned	lo = 0, hi = rf_lp_ntasks, mid;

	if (rf_lp_ntasks == 0 || start > rf_lp_known_tk)
		return -1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rf_lp_tasks[mid].pid == pid) {
			if (ranks_step_class(rf_lp_tasks[mid].step) !=
			    RANKS_CLASS_TASK || (step != RANKS_STEP_NONE &&
			    !ranks_same_step(step, rf_lp_tasks[mid].step)))
				return -1;
			return rf_lp_tasks[mid].gtid;
		}
		if (rf_lp_tasks[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* A process of a parallel step of the job, the top of its tree, started
 * at start: is there a listpids to run for it? */
static void
rf_lp_need(uint64_t start)
{
	if (rf_lp_state == RF_LP_OFF ||
	    start + RF_LP_SLACK_TK <= rf_lp_known_tk ||
	    (rf_lp_state == RF_LP_RUNNING &&
	    start + RF_LP_SLACK_TK <= rf_lp_start_tk))
		return;
	rf_lp_want = 1;
}

/* The ranks already found that the new answer names take its ids. */
static void
rf_lp_apply(void)
{
	struct rf_ent	*ents = rf_ents[rf_cur], *e;
	unsigned	 n = rf_nents[rf_cur], i;
	int32_t		 g;

	for (i = 0; i < rf_lp_ntasks; i++) {
		e = ranks_find_lookup(ents, n, rf_lp_tasks[i].pid);
		if (e == NULL || e->kind != RF_JOB ||
		    !ranks_tracked(e->slot, e->pid, e->start) ||
		    ranks_tracked_top(e->slot) != e->slot ||
		    ranks_tracked_role(e->slot) != RANKS_ROLE_RANK ||
		    ranks_tracked_prio(e->slot) <= RF_RANK_LISTPIDS ||
		    (g = rf_lp_lookup(e->pid, e->start,
		    ranks_tracked_step(e->slot))) < 0)
			continue;
		ranks_set_task(e->slot, g, RF_RANK_LISTPIDS,
		    rf_var_names[RF_RANK_LISTPIDS]);
		rf_slot_vals[e->slot][RF_RANK_LISTPIDS] = g;
	}
}

/* A listpids that gave nothing usable. */
static void
rf_lp_failed(const char *why)
{
	char	msg[256];

	rf_lp_state = RF_LP_READY;
	rf_lp_want = 1;		/* try again, after the gap */
	if (++rf_lp_fails < RF_LP_FAILS)
		return;
	snprintf(msg, sizeof(msg), "%u runs of it in a row failed, the "
	    "last: %s", rf_lp_fails, why);
	rf_lp_off(msg);
}

/* The pages of a large answer go back to the kernel once it was read:
 * they are touched only while scontrol runs, once per step start. */
static void
rf_lp_release(void)
{
	size_t	n = (rf_lp_len + 4095) & ~(size_t)4095;

	if (n > 0)
		(void)madvise(rf_lp_out, n < sizeof(rf_lp_out) ? n :
		    sizeof(rf_lp_out), MADV_DONTNEED);
	(void)madvise(rf_lp_got, sizeof(rf_lp_got) & ~(size_t)4095,
	    MADV_DONTNEED);
	rf_lp_len = 0;
}

/* scontrol's output is complete: what it says. */
static void
rf_lp_done(void)
{
	const char	*why;
	char		*eol, msg[256];
	unsigned	 nother, i, k;
	uint64_t	 ms = rf_lp_now_ms() - rf_lp_start_ms;
	int		 n, v;

	if (rf_lp_state == RF_LP_VERSION) {
		v = listpids_version_ok(rf_lp_out, rf_lp_len);
		rf_lp_out[rf_lp_len < sizeof(rf_lp_out) ? rf_lp_len :
		    sizeof(rf_lp_out) - 1] = '\0';
		if ((eol = strchr(rf_lp_out, '\n')) != NULL)
			*eol = '\0';
		snprintf(rf_lp_version, sizeof(rf_lp_version), "%.*s",
		    (int)sizeof(rf_lp_version) - 1, rf_lp_out);
		if (v > 0) {
			rf_lp_state = RF_LP_READY;
			return;
		}
		/* Before 24.11 its listpids has no --json. */
		if (v == 0)
			rf_lp_off(NULL);
		else {
			snprintf(msg, sizeof(msg), "%.160s --version printed no "
			    "Slurm version", rf_lp_path);
			rf_lp_off(msg);
		}
		return;
	}
	if (rf_lp_over) {
		rf_lp_failed("its output was larger than the probe reads");
		return;
	}
	if ((n = listpids_parse(rf_lp_out, rf_lp_len, rf_lp_got, RANKS_MAX,
	    &nother, &why)) < 0) {
		rf_lp_failed(why);
		return;
	}
	for (i = k = 0; i < (unsigned)n; i++) {
		if (rf_lp_got[i].job != rf_lp_job)
			continue;	/* another job's: none of ours */
		rf_lp_tasks[k].pid = rf_lp_got[i].pid;
		rf_lp_tasks[k].step = rf_lp_got[i].step;
		rf_lp_tasks[k].gtid = rf_lp_got[i].gtid;
		k++;
	}
	qsort(rf_lp_tasks, k, sizeof(rf_lp_tasks[0]), rf_lp_cmp);
	rf_lp_ntasks = k;
	rf_lp_known_tk = rf_lp_start_tk;
	rf_lp_fails = 0;
	rf_lp_state = RF_LP_READY;
	rf_lp_apply();
	if (!rf_lp_said) {
		rf_lp_said = 1;
		probe_event(EV_INFO, "ranks-listpids", "Slurm task ids from "
		    "scontrol listpids (%s): %u tasks and %u other processes "
		    "of job %s on the node, read %llu ms after it started",
		    rf_lp_version, k, nother + (unsigned)n - k, rf_job,
		    (unsigned long long)ms);
	}
}

/* Reap an ended scontrol; never waits. */
static void
rf_lp_reap(void)
{
	if (rf_lp_child > 0 && waitpid(rf_lp_child, NULL, WNOHANG) != 0)
		rf_lp_child = -1;
}

void
ranks_find_listpids(void)
{
	static char	 a0[] = "scontrol", version[] = "--version";
	static char	 json[] = "--json", cmd[] = "listpids";
	static char	 job[16];
	char		*argv[5], msg[256];
	uint64_t	 now;

	if (rf_lp_state == RF_LP_OFF && rf_lp_child < 0)
		return;
	if (rf_lp_fd >= 0) {
		if (rf_lp_drain()) {
			close(rf_lp_fd);
			rf_lp_fd = -1;
			rf_lp_done();
			rf_lp_release();
		} else if (rf_lp_now_ms() - rf_lp_start_ms >=
		    RF_LP_TIMEOUT_MS) {
			kill(rf_lp_child, SIGKILL);
			close(rf_lp_fd);
			rf_lp_fd = -1;
			rf_lp_release();
			if (rf_lp_state == RF_LP_VERSION) {
				snprintf(msg, sizeof(msg), "%.160s --version took "
				    "longer than %d ms", rf_lp_path,
				    RF_LP_TIMEOUT_MS);
				rf_lp_off(msg);
			} else
				rf_lp_failed("it took longer than the "
				    "probe waits");
		}
	}
	rf_lp_reap();
	if (!rf_lp_want || rf_lp_fd >= 0 || rf_lp_child > 0)
		return;
	now = rf_lp_now_ms();
	argv[0] = a0;
	if (rf_lp_state == RF_LP_UNTRIED) {
		if (rf_lp_find() < 0) {
			rf_lp_off(NULL);
			return;
		}
		argv[1] = version;
		argv[2] = NULL;
		if (rf_lp_spawn(argv, 1) < 0) {
			snprintf(msg, sizeof(msg), "cannot run %.160s: %s",
			    rf_lp_path, strerror(errno));
			rf_lp_off(msg);
			return;
		}
		rf_lp_state = RF_LP_VERSION;
		return;
	}
	if (rf_lp_state != RF_LP_READY || (rf_lp_last_ms != 0 &&
	    now - rf_lp_last_ms < RF_LP_GAP_MS))
		return;
	snprintf(job, sizeof(job), "%u", (unsigned)rf_lp_job);
	argv[1] = json;
	argv[2] = cmd;
	argv[3] = job;
	argv[4] = NULL;
	if (rf_lp_spawn(argv, 0) < 0) {
		rf_lp_failed(strerror(errno));
		return;
	}
	rf_lp_last_ms = now;
	rf_lp_want = 0;
	rf_lp_state = RF_LP_RUNNING;
}

/* The probe ends: a scontrol still running goes with it.  Reaping
 * waits at most 100 ms (one stuck in the kernel is left to init). */
static void
rf_lp_atexit(void)
{
	unsigned	k;

	if (rf_lp_child <= 0)
		return;
	kill(rf_lp_child, SIGKILL);
	for (k = 0; k < 50; k++) {
		if (waitpid(rf_lp_child, NULL, WNOHANG) != 0)
			break;
		usleep(2000);
	}
	rf_lp_child = -1;
}

/* Whether listpids may be used at all: a live node (no --root) and a
 * Slurm job id, which is a number. */
static void
ranks_find_lp_init(const struct probe_conf *conf)
{
	static int	registered;
	uint64_t	v = 0;
	size_t		i;

	rf_lp_state = RF_LP_OFF;
	rf_lp_said = 1;		/* nothing to say: not asked for */
	rf_lp_want = 0;
	rf_lp_fails = 0;
	rf_lp_ntasks = 0;
	rf_lp_known_tk = 0;
	rf_lp_last_ms = 0;
	rf_lp_clk_tck = conf->clk_tck > 0 ? conf->clk_tck : 100;
	if (conf->root[0] != '\0' || rf_job == NULL || rf_joblen == 0 ||
	    rf_joblen > 9)
		return;
	for (i = 0; i < rf_joblen; i++) {
		if (rf_job[i] < '0' || rf_job[i] > '9')
			return;
		v = v * 10 + (uint64_t)(rf_job[i] - '0');
	}
	if (v == 0)
		return;
	rf_lp_job = (uint32_t)v;
	rf_lp_state = RF_LP_UNTRIED;
	rf_lp_said = 0;
	if (!registered && atexit(rf_lp_atexit) == 0)
		registered = 1;
}

/*
 * Track a process that belongs, as a helper, folded into the rank its
 * parent p (tracked, else NULL) counts for, or as a rank of its own (see
 * the top of the file); RF_RETRY when the table is full.  env (NULL when
 * unreadable) gets the process's own rank id (ranks_find_own).
 */
static int
ranks_find_take(struct rf_ent *ents, unsigned n, struct rf_ent *e,
    const struct ranks_stat *st, struct rf_env *env, uint32_t step,
    const struct rf_ent *p)
{
	const struct rf_ent	*a;
	int			 role = RANKS_ROLE_RANK, top = -1, depth;
	unsigned		 prio = RANKS_PRIO_NONE, tprio;
	int64_t			 trank, rank = -1, world = -1;

	if (env != NULL) {
		ranks_find_own(env, p != NULL ? rf_slot_vals[p->slot] : NULL);
		rank = env->rank;
		prio = env->rankprio;
		world = env->world;
	}
	if (ranks_find_is_helper(st->comm) || (prio >= RF_RANK_WEAK &&
	    p != NULL && ranks_tracked_role(p->slot) == RANKS_ROLE_HELPER)) {
		/* A launcher, or what a launcher runs that has no rank id
		 * of its own (hydra's ssh to the other nodes). */
		role = RANKS_ROLE_HELPER;
		rank = -1;
	} else if (p != NULL && (top = ranks_tracked_top(p->slot)) >= 0 &&
	    ranks_tracked_role(top) == RANKS_ROLE_RANK &&
	    (trank = ranks_tracked_rank(top)) >= 0 &&
	    (rank < 0 || (rank == trank && prio == ranks_tracked_prio(top)))) {
		role = RANKS_ROLE_CHILD;
		rank = trank;
	} else
		top = -1;
	if ((e->slot = ranks_track(e->pid, st, rank, step, role, top)) < 0)
		return RF_RETRY;
	ranks_set_container(e->slot, env != NULL && env->ctr[0] != '\0' ?
	    env->ctr : NULL);
	if (env != NULL)
		memcpy(rf_slot_vals[e->slot], env->vals,
		    sizeof(rf_slot_vals[e->slot]));
	else
		memset(rf_slot_vals[e->slot], 0xff,
		    sizeof(rf_slot_vals[e->slot]));
	if (role != RANKS_ROLE_RANK || rank < 0)
		return RF_JOB;
	ranks_set_origin(e->slot, prio, rf_var_names[prio], world);
	if (prio >= RF_RANK_WEAK)
		return RF_JOB;
	/* A rank id of its own below other ranks: those are its launcher's
	 * agents (torchrun's, a per-node shell, the batch script that runs
	 * mpirun, which starts this rank itself), helpers from now on; so
	 * are ranks without an id above it in --job mode.  A rank above it
	 * by the same variable is a rank of its own. */
	for (a = p, depth = 0; a != NULL && a->kind == RF_JOB &&
	    depth < RF_DEPTH; depth++) {
		if ((top = ranks_tracked_top(a->slot)) >= 0 &&
		    ranks_tracked_role(top) == RANKS_ROLE_RANK &&
		    ((tprio = ranks_tracked_prio(top)) == RANKS_PRIO_NONE ?
		    rf_mode == RF_MODE_JOB : tprio != prio))
			ranks_demote(top);
		a = ranks_find_lookup(ents, n, a->ppid);
	}
	return RF_JOB;
}

static int ranks_find_decide(struct rf_ent *, unsigned, struct rf_ent *,
    int);

/* The real uid of a process (the first of status's "Uid:"), or -1. */
static int64_t
ranks_find_uid(pid_t pid)
{
	uint64_t	uid;

	if (ranks_find_read(pid, "status", rf_buf, sizeof(rf_buf)) <= 0 ||
	    probe_find_u64(rf_buf, "Uid", &uid) < 0 || uid > 0xffffffffu)
		return -1;
	return (int64_t)uid;
}

/* Judge a process in --job mode (see the top of the file). */
static int
ranks_find_judge_job(struct rf_ent *ents, unsigned n, struct rf_ent *e,
    const struct ranks_stat *st, int depth)
{
	struct rf_ent	*p;
	struct rf_env	 env;
	uint32_t	 step = RANKS_STEP_NONE, s;
	int64_t		 uid = -1;
	int32_t		 task;
	int		 member = 0, r, k = RF_OTHER, envok, pk;
	const char	*via = NULL;

	/* status is read only where the uid matters: with --uid, and for
	 * a step daemon, which root must own. */
	if ((rf_owner >= 0 || strcmp(st->comm, "slurmstepd") == 0) &&
	    (uid = ranks_find_uid(e->pid)) < 0)
		return RF_OTHER;	/* gone already */
	p = ranks_find_lookup(ents, n, st->ppid);
	if (p != NULL && depth < RF_DEPTH)
		k = ranks_find_decide(ents, n, p, depth + 1);
	if (k == RF_PROBE)
		return RF_PROBE;
	if (strcmp(st->comm, "slurmstepd") == 0) {
		if ((r = ranks_find_stepd(e->pid, &s)) < 0)
			return RF_OTHER;
		if (r > 0 && k == RF_STEPD) {
			/* A daemon's child before it execs the task. */
			member = 1;
			step = s;
			via = "a child of the job's slurmstepd";
		} else if (r > 0 && uid == 0) {
			e->step = s;
			if (rf_sluid[0] == '\0')
				(void)ranks_find_cgroup(e->pid, &s,
				    "the cgroup of the job's step daemon");
			return RF_STEPD;
		}
		/* Not root: a look-alike, judged as any process. */
	}
	if (!member && k == RF_STEPD) {
		member = 1;
		step = p->step;
		via = "a child of the job's slurmstepd";
	} else if (!member && k == RF_JOB) {
		member = 1;
		step = ranks_tracked_step(p->slot);
		via = "a descendant of the job's processes";
	}
	if (rf_owner >= 0 && uid != rf_owner) {
		/* Never a rank.  A daemon's child is root until it takes
		 * the owner's uid before its exec: look again next scan. */
		return member && uid == 0 ? RF_RETRY : RF_OTHER;
	}
	if ((r = ranks_find_cgroup(e->pid, &s, member ?
	    "the cgroup of a process of the job" : NULL)) > 0) {
		if (!member)
			via = "its cgroup";
		member = 1;
		if (s != RANKS_STEP_NONE)
			step = s;
	} else if (r < 0 && !member)
		return RF_OTHER;
	envok = ranks_find_environ(e->pid, &env) == 0;
	if (ranks_find_other_probe(e->pid, st, envok ? &env : NULL))
		return RF_PROBE;
	if (!member && !(envok && env.job))
		return RF_OTHER;
	/* SLURM_JOB_SLUID (Slurm 25.11+) of a process of the job: one the
	 * step daemon started, or with --uid one of the owner's. */
	if (envok && env.sluid[0] != '\0' && rf_sluid[0] == '\0' &&
	    (member || rf_owner >= 0))
		(void)ranks_find_set_sluid(env.sluid, strlen(env.sluid),
		    "SLURM_JOB_SLUID of a process of the job");
	if (step == RANKS_STEP_NONE && envok)
		step = env.step;
	/* Slurm's task id, when a listpids that saw it named it (env is
	 * set up even when environ could not be read). */
	if ((task = rf_lp_lookup(e->pid, st->start, step)) >= 0)
		env.vals[RF_RANK_LISTPIDS] = task;
	pk = k;
	k = ranks_find_take(ents, n, e, st, envok || task >= 0 ? &env : NULL,
	    step, k == RF_JOB ? p : NULL);
	/* The top of a tree of a parallel step: a task, which a listpids
	 * may name. */
	if (k == RF_JOB && pk != RF_JOB && task < 0 &&
	    step != RANKS_STEP_NONE &&
	    ranks_step_class(step) == RANKS_CLASS_TASK)
		rf_lp_need(st->start);
	if (rf_how[0] == '\0')
		snprintf(rf_how, sizeof(rf_how), "%s; rank id from %s",
		    via != NULL ? via : "its environment names the job",
		    (envok || task >= 0) && env.rank >= 0 ?
		    rf_var_names[env.rankprio] : "none");
	return k;
}

/* Decide whether the process of entry e belongs, examining its parent
 * first when that is new too; returns its kind. */
static int
ranks_find_decide(struct rf_ent *ents, unsigned n, struct rf_ent *e,
    int depth)
{
	struct ranks_stat	st;
	struct rf_env		env;
	struct rf_ent		*p;
	int			prev = e->kind, envok, k = RF_OTHER;

	if (prev == RF_BUSY)
		return RF_OTHER;
	if (prev != RF_NEW && !e->recheck)
		return prev;
	e->kind = RF_BUSY;
	if (ranks_find_read(e->pid, "stat", rf_buf, sizeof(rf_buf)) <= 0 ||
	    ranks_parse_stat(rf_buf, &st) < 0) {
		/* Gone already; if it is still listed, look again. */
		if (e->recheck && prev == RF_JOB)
			ranks_untrack(e->slot, e->pid, e->start);
		e->recheck = 0;
		return e->kind = RF_RETRY;
	}
	if (e->recheck) {
		e->recheck = 0;
		if (st.start == e->start)
			return e->kind = (uint8_t)prev;
		if (prev == RF_JOB)
			ranks_untrack(e->slot, e->pid, e->start);
	}
	e->start = st.start;
	e->ppid = (int32_t)st.ppid;
	e->slot = -1;
	e->step = RANKS_STEP_NONE;
	/* rf_skip[0] is the probe: its own children (nvidia-smi) are
	 * helpers, never ranks. */
	if (ranks_find_skipped(e->pid) || e->pid == 2 ||
	    (rf_nskip > 0 && st.ppid == rf_skip[0]) ||
	    (st.flags & RANKS_PF_KTHREAD) != 0)
		return e->kind = RF_OTHER;
	switch (rf_mode) {
	case RF_MODE_JOB:
		e->kind = (uint8_t)ranks_find_judge_job(ents, n, e, &st,
		    depth);
		return e->kind;
	case RF_MODE_UID:
		if (ranks_find_uid(e->pid) != (int64_t)rf_uid)
			return e->kind = RF_OTHER;
		break;
	case RF_MODE_ALL:
		break;
	}
	/* The parent first: its child may fold into its rank. */
	if ((p = ranks_find_lookup(ents, n, st.ppid)) != NULL &&
	    depth < RF_DEPTH)
		k = ranks_find_decide(ents, n, p, depth + 1);
	if (k == RF_PROBE)
		return e->kind = RF_PROBE;
	envok = ranks_find_environ(e->pid, &env) == 0;
	if (ranks_find_other_probe(e->pid, &st, envok ? &env : NULL))
		return e->kind = RF_PROBE;
	e->kind = (uint8_t)ranks_find_take(ents, n, e, &st, envok ? &env :
	    NULL, envok ? env.step : RANKS_STEP_NONE, k == RF_JOB ? p : NULL);
	return e->kind;
}

/* A process of the previous scan is no longer listed. */
static void
ranks_find_gone(const struct rf_ent *o)
{
	if (o->kind == RF_JOB)
		ranks_untrack(o->slot, o->pid, o->start);
}

/* List the pids of /proc into ents, sorted; their count. */
static unsigned
ranks_find_list(struct rf_ent *ents)
{
	const struct rf_dirent	*d;
	struct rf_ent		 t;
	const char		*s;
	long			 n, off;
	unsigned		 cnt = 0, i, j;
	int64_t			 pid;

	if (lseek(rf_proc_fd, 0, SEEK_SET) < 0)
		return 0;
	while ((n = syscall(SYS_getdents64, rf_proc_fd, rf_dents,
	    sizeof(rf_dents))) > 0) {
		for (off = 0; off < n; off += d->d_reclen) {
			d = (const struct rf_dirent *)(const void *)
			    ((const char *)rf_dents + off);
			s = d->d_name;
			if (*s < '1' || *s > '9' ||
			    (pid = ranks_find_parse_uint(s, strlen(s))) <= 0 ||
			    pid > 0x7fffffff)
				continue;
			if (cnt == RF_SCAN_MAX) {
				probe_event(EV_WARN, "ranks-scan-full",
				    "more than %d processes on the node; "
				    "some are not examined", RF_SCAN_MAX);
				continue;
			}
			memset(&ents[cnt], 0, sizeof(ents[cnt]));
			ents[cnt].pid = (int32_t)pid;
			ents[cnt].ino = d->d_ino;
			ents[cnt].kind = RF_NEW;
			ents[cnt].slot = -1;
			ents[cnt].step = RANKS_STEP_NONE;
			cnt++;
		}
	}
	/* /proc lists pids in order; a fixture directory may not. */
	for (i = 1; i < cnt; i++) {
		if (ents[i - 1].pid <= ents[i].pid)
			continue;
		t = ents[i];
		for (j = i; j > 0 && ents[j - 1].pid > t.pid; j--)
			ents[j] = ents[j - 1];
		ents[j] = t;
	}
	return cnt;
}

/* Scan /proc: carry over what the last scan decided, judge the rest. */
static void
ranks_find_scan(void)
{
	struct rf_ent	*old = rf_ents[rf_cur], *new = rf_ents[!rf_cur];
	struct rf_ent	*o, *e;
	unsigned	 nold = rf_nents[rf_cur], nnew, i, j = 0;
	uint64_t	 ino;
	int		 rejudge = rf_rejudge;

	rf_rejudge = 0;
	nnew = ranks_find_list(new);
	for (i = 0; i < nnew; i++) {
		e = &new[i];
		while (j < nold && old[j].pid < e->pid)
			ranks_find_gone(&old[j++]);
		if (j == nold || old[j].pid != e->pid)
			continue;
		o = &old[j++];
		if (o->kind == RF_RETRY || o->kind == RF_NEW ||
		    o->kind == RF_BUSY || (rejudge && o->kind == RF_OTHER) ||
		    (o->kind == RF_JOB &&
		    !ranks_tracked(o->slot, o->pid, o->start)))
			continue;
		ino = e->ino;
		*e = *o;
		e->recheck = o->ino != ino;
		e->ino = ino;
	}
	while (j < nold)
		ranks_find_gone(&old[j++]);
	for (i = 0; i < nnew; i++)
		ranks_find_decide(new, nnew, &new[i], 0);
	rf_cur = !rf_cur;
	rf_nents[rf_cur] = nnew;
}

void
ranks_find_rescan(void)
{
	rf_force = 1;
}

/* Scan when a process may have appeared (see the top of the file). */
void
ranks_find_update(const struct probe_conf *conf)
{
	char		 buf[128];
	const char	*p;
	uint64_t	 last;
	int		 scan;

	/* What a listpids said first, so that this scan's new processes
	 * find it; one that is due is started after the scan. */
	ranks_find_listpids();
	scan = !rf_scanned || rf_force || ++rf_since >= RF_SCAN_EVERY;
	/* "0.52 0.58 0.59 2/389 12345": the last is the newest pid. */
	if (probe_pread(rf_loadavg_fd, buf, sizeof(buf)) > 0 &&
	    (p = strrchr(buf, ' ')) != NULL &&
	    probe_parse_u64(p + 1, &last) != NULL) {
		if (last != rf_last_pid)
			scan = 1;
		rf_last_pid = last;
	} else
		scan = 1;
	if (!scan)
		return;
	rf_scanned = 1;
	rf_force = 0;
	rf_since = 0;
	ranks_find_scan();
	ranks_find_listpids();
}

/* The probe and its ancestors, from the real /proc. */
static void
ranks_find_ancestors(const struct probe_conf *conf)
{
	struct ranks_stat	st;
	pid_t			pid = conf->self;

	rf_nskip = 0;
	while (pid > 0 && rf_nskip < RF_ANCESTORS) {
		rf_skip[rf_nskip++] = pid;
		if (pid == 1 || ranks_find_read(pid, "stat", rf_buf,
		    sizeof(rf_buf)) <= 0 || ranks_parse_stat(rf_buf, &st) < 0)
			break;
		pid = (pid_t)st.ppid;
	}
}

/* Open /proc for the scans and /proc/loadavg for the last pid. */
int
ranks_find_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	char		path[4096];
	struct stat	sb;
	unsigned	i;

	rf_job = conf->job;
	rf_joblen = rf_job != NULL ? strlen(rf_job) : 0;
	rf_uid = conf->owner >= 0 ? (uid_t)conf->owner : conf->uid;
	rf_owner = conf->owner;
	if (rf_job != NULL)
		rf_mode = RF_MODE_JOB;
	else
		rf_mode = conf->uid == 0 && conf->owner < 0 ? RF_MODE_ALL :
		    RF_MODE_UID;
	rf_proc_fd = open(probe_path(path, sizeof(path), "/proc"),
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rf_proc_fd < 0) {
		snprintf(why, whysz, "cannot open %s: %s", path,
		    strerror(errno));
		return -1;
	}
	rf_loadavg_fd = probe_open("/proc/loadavg");
	for (i = 0; i < RF_NVARS; i++)
		snprintf(rf_var_names[i], sizeof(rf_var_names[i]), "%.*s",
		    (int)strcspn(rf_rank_vars[i], "="), rf_rank_vars[i]);
	snprintf(rf_var_names[RF_RANK_LISTPIDS],
	    sizeof(rf_var_names[RF_RANK_LISTPIDS]), "%s", RF_LP_NAME);
	ranks_find_lp_init(conf);
	ranks_find_init_v2root();
	rf_sluid[0] = '\0';
	rf_sluid_from = NULL;
	if (conf->sluid != NULL && ranks_find_set_sluid(conf->sluid,
	    strlen(conf->sluid), "--sluid (squeue's Sluid)") < 0) {
		snprintf(why, whysz, "bad SLUID: %s", conf->sluid);
		return -1;
	}
	rf_nskip = 0;
	rf_self_dev = rf_self_ino = 0;
	if (conf->root[0] == '\0') {
		ranks_find_ancestors(conf);
		if (stat("/proc/self/exe", &sb) == 0) {
			rf_self_dev = (uint64_t)sb.st_dev;
			rf_self_ino = (uint64_t)sb.st_ino;
		}
	}
	return 0;
}

const char *
ranks_find_how(char *buf, size_t size)
{
	if (rf_how[0] == '\0')
		return NULL;
	snprintf(buf, size, "found as %s; job cgroup %s%s%s%s%s", rf_how,
	    rf_cgroup[0] != '\0' ? rf_cgroup : "none (no process of the job "
	    "is in a scheduler's job cgroup)", rf_sluid[0] != '\0' ?
	    "; SLUID " : "", rf_sluid, rf_sluid[0] != '\0' ? " from " : "",
	    rf_sluid[0] != '\0' && rf_sluid_from != NULL ? rf_sluid_from :
	    "");
	return buf;
}
