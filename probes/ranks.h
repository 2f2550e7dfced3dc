/* SPDX-License-Identifier: ISC */
/*
 * ranks: the processes of a job on this node, as the "rank" source sees
 * them.  Two modules share this header: probes/ranks-find.c decides which
 * processes belong (a scan of /proc that examines each process once) and
 * probes/src-ranks.c samples them every interval.  The table of tracked
 * processes lives in src-ranks.c; ranks-find.c adds to it with ranks_track
 * and removes from it with ranks_untrack.
 *
 * A tracked process is named by its pid and its start time (field 22 of
 * /proc/PID/stat, jiffies since boot): together they never name two
 * processes, so a reused pid is never mistaken for the process it replaced.
 */
#ifndef JOBTOP_RANKS_H
#define JOBTOP_RANKS_H

#include <stdint.h>
#include <sys/types.h>

#include "source.h"

#define RANKS_MAX	2048	/* tracked processes */
#define RANKS_COMM_MAX	64	/* comm as stat shows it (kernel: 16) */

/* Slurm step ids as slurm.h numbers them; the probe keeps the number. */
#define RANKS_STEP_NONE		0xfffffff9u	/* no step known */
#define RANKS_STEP_INTERACTIVE	0xfffffffau
#define RANKS_STEP_BATCH	0xfffffffbu
#define RANKS_STEP_EXTERN	0xfffffffcu
#define RANKS_STEP_BATCH_OLD	0xfffffffeu	/* before Slurm 20.11 */
#define RANKS_STEP_EXTERN_OLD	0xffffffffu

/*
 * What is shown of a job on a node: the tasks of its parallel steps; the
 * batch step (the script and the sruns it runs) only where no parallel
 * step's task runs; the extern step (its placeholder and adopted ssh
 * sessions) only where neither does.  Without --job every process is
 * RANKS_CLASS_TASK.
 */
#define RANKS_CLASS_EXTERN	0
#define RANKS_CLASS_BATCH	1
#define RANKS_CLASS_TASK	2

/*
 * What a tracked process is to the job.  A rank is the topmost process of
 * the job that carries a rank id (or, without one, any process of the job
 * that no rank holds); its descendants with the same rank id or none are
 * RANKS_ROLE_CHILD, folded into it: their CPU time, I/O, memory and delay
 * count for the rank, and they are never reported on their own.  A
 * launcher's process (hydra_pmi_proxy, orted, prted, mpiexec, mpirun,
 * srun: ranks_find_is_helper) is RANKS_ROLE_HELPER: reported with role
 * "helper", never with a rank id, and never folded into a rank.
 */
#define RANKS_ROLE_RANK		0
#define RANKS_ROLE_HELPER	1
#define RANKS_ROLE_CHILD	2

/* The fields of /proc/PID/stat the source uses (proc(5) numbers them). */
struct ranks_stat {
	char		comm[RANKS_COMM_MAX];	/* 2 */
	char		state;			/* 3 */
	int64_t		ppid;			/* 4 */
	uint64_t	flags;			/* 9 */
	uint64_t	minflt;			/* 10 */
	uint64_t	cminflt;		/* 11 */
	uint64_t	majflt;			/* 12 */
	uint64_t	cmajflt;		/* 13 */
	uint64_t	utime;			/* 14 */
	uint64_t	stime;			/* 15 */
	uint64_t	cutime;			/* 16: reaped children's */
	uint64_t	cstime;			/* 17 */
	int64_t		threads;		/* 20 */
	uint64_t	start;			/* 22 */
	uint64_t	vsize;			/* 23 */
	int64_t		rss;			/* 24, pages */
	int64_t		processor;		/* 39, or -1 */
	uint64_t	blkio;			/* 42: delayacct_blkio_ticks */
};

/* The process is a kernel thread (PF_KTHREAD in stat's flags). */
#define RANKS_PF_KTHREAD	0x00200000u

/* Parse the text of /proc/PID/stat; 0 on success, -1 when malformed. */
int		 ranks_parse_stat(const char *, struct ranks_stat *);
/* A step id as text: "0", "batch", "extern", "interactive"; "" for none. */
void		 ranks_step_name(uint32_t, char *, size_t);
/* /proc/PID/stack made compact: "pipe_read < vfs_read < ..." (function
 * names without offsets, innermost first, at most 8). */
void		 ranks_kstack_compact(const char *, char *, size_t);
/* What kind of step a step id is: RANKS_CLASS_*. */
int		 ranks_step_class(uint32_t);
/* A step as Slurm names it ("0", "batch", "extern", "interactive"), or
 * RANKS_STEP_NONE when s is none. */
uint32_t	 ranks_parse_step(const char *);
/* Do two steps name the same one (the old and new batch and extern
 * numbers alike)? */
int		 ranks_same_step(uint32_t, uint32_t);

/* src-ranks.c: start tracking a process with its rank id, step, role
 * (RANKS_ROLE_*) and, for RANKS_ROLE_CHILD, the slot of the rank it is
 * folded into; the slot, or -1 when full. */
int		 ranks_track(pid_t, const struct ranks_stat *, int64_t,
		    uint32_t, int, int);
/* The slot of the rank a tracked process counts for (its own for a rank
 * or helper), its role and its rank id (-1 none); -1 when not tracked. */
int		 ranks_tracked_top(int);
/*
 * Where a rank's id came from: the index of its variable in ranks-find.c's
 * table (strongest first; from RANKS_PRIO_WEAK on the scheduler's task
 * numbers, weak ones: Slurm's global task id from `scontrol listpids`,
 * then SLURM_PROCID; RANKS_PRIO_NONE: no id), the variable's name
 * (static, sent as rank_var) and the size of the launcher's world (-1
 * unknown, sent as world).  ranks_demote makes a rank a helper, and what
 * is folded into it too: a process below it took a rank id of its own
 * (torchrun's agent, a per-node shell that starts the workers, the batch
 * script of mpirun).
 */
#define RANKS_PRIO_WEAK	9
#define RANKS_PRIO_NONE	255
void		 ranks_set_origin(int, unsigned, const char *, int64_t);
/* A rank (not a helper, not folded) whose id is weaker than prio, or
 * none, takes the id rank by prio (its variable var, static): Slurm's
 * task id, which `scontrol listpids` gave after the process was found.
 * Its world and what is folded into it stay. */
void		 ranks_set_task(int, int64_t, unsigned, const char *);
/*
 * A rank in a container (Apptainer, Enroot/pyxis, Podman): its pid is
 * the host's (/proc's, the one NVML reports), its pid in its own PID
 * namespace is the last of status's NSpid, and the container is named by
 * what its environment says (name: "apptainer /images/x.sif", "enroot
 * /path/rootfs", "podman", or NULL) or else by its root directory when
 * that is not the probe's; a process in a PID namespace of its own
 * without either is "pid namespace".  ranks-find.c calls this once, when
 * it starts tracking the process.
 */
#define RANKS_CTR_MAX	256
void		 ranks_set_container(int, const char *);
unsigned	 ranks_tracked_prio(int);
void		 ranks_demote(int);
int		 ranks_tracked_role(int);
int64_t		 ranks_tracked_rank(int);
/* Is this slot still the process pid that started at start? */
int		 ranks_tracked(int, pid_t, uint64_t);
/* The step a tracked process was found in. */
uint32_t	 ranks_tracked_step(int);
/* Stop tracking the slot if it is still that process. */
void		 ranks_untrack(int, pid_t, uint64_t);
/* The processes the rank source reported in its latest sample, one a
 * call: start with *it at 0; 0 with the pid and start time set, -1 after
 * the last.  After a 0, *it - 1 is the process's slot: below RANKS_MAX,
 * the same while it is tracked.  A source listed after ranks in the
 * registry sees this sample's. */
int		 ranks_reported(unsigned *, pid_t *, uint64_t *);
/* How many samples the process in that slot was seen running in (a
 * process of one thread whose schedstat did not move did not run; any
 * other counts as running): unchanged, it touched no memory since. */
uint64_t	 ranks_activity(unsigned);

/*
 * Between two samples, every RANKS_SUB_MS the probe's loop calls
 * ranks_subsample: it reads again the stat of the processes reported in
 * the last sample (their files are open already) so that each rank's
 * peak CPU % (over windows of about RANKS_SUB_MS) and peak resident size
 * (of its whole tree) see what happens between two samples.
 */
#define RANKS_SUB_MS	250
void		 ranks_subsample(void);

/* ranks-find.c: open /proc and learn who the probe is; 0 or -1 with why. */
int		 ranks_find_init(const struct probe_conf *, char *, size_t);
/* Find processes started since the last call and track those that
 * belong; cheap when no process was created. */
void		 ranks_find_update(const struct probe_conf *);
/* Between samples: read what a running `scontrol listpids` printed, and
 * start one that is due (ranks-find.c); never waits. */
void		 ranks_find_listpids(void);
/* Scan all of /proc at the next update (a tracked process went away). */
void		 ranks_find_rescan(void);
/* Is a process of this comm a launcher's (an MPI or Slurm helper)? */
int		 ranks_find_is_helper(const char *);
/*
 * Is the cgroup path [path, path+len) ("/slurm/uid_1000/job_123/step_0")
 * inside job's cgroup as the scheduler makes it, anchored at the root of
 * the hierarchy: Slurm v1 /slurm/uid_U/job_ID or /slurm_NODE/uid_U/job_ID,
 * v2 ROOT/system.slice/slurmstepd.scope/job_ID or ROOT/system.slice/
 * NODE_slurmstepd.scope/job_ID (ROOT: ranks_find_v2_root), or the same
 * with the job's SLUID for job_ID once known (else 0), the PBS hook's
 * /pbs_jobs.service/jobid/ID.SERVER?  Only root makes these; a user can
 * make look-alikes of any name below user.slice/user-U.slice/
 * user@U.service, so nothing below another component counts.  1: yes,
 * with *dirlen the length of the job directory's path and *step from a
 * step_S component after it (else RANKS_STEP_NONE); -1: another job's
 * cgroup, or with uid >= 0 a v1 one of another uid; 0: no job's.
 */
int		 ranks_find_cgroup_path(const char *, size_t, const char *,
		    int64_t, size_t *, uint32_t *);
/*
 * Slurm 26.05 names a job's cgroup v2 directory by the job's SLUID
 * (".../slurmstepd.scope/sEKNKTV3WPV500/step_0/user/task_0") unless
 * cgroup.conf has CgroupJobIdPaths=yes.  A SLUID is an 's' and
 * RANKS_SLUID_MIN to RANKS_SLUID_MAX - 2 upper-case letters and digits
 * (Crockford base 32: 13 of them in Slurm's).  The probe learns the job's
 * from --sluid (squeue's Sluid field, through the monitor), from
 * SLURM_JOB_SLUID in the environment of a process of the job, or from
 * the cgroup of the job's own step daemon or of a process it started;
 * until then a SLUID-named directory is no job's known to it (neither
 * the job's nor another's), afterwards only that one is the job's.
 */
#define RANKS_SLUID_MIN	10
#define RANKS_SLUID_MAX	24
int		 ranks_is_sluid(const char *, size_t);
/* Set the job's SLUID once (from: where it came from, static text);
 * 0, or -1 when it is not one or another is known already. */
int		 ranks_find_set_sluid(const char *, size_t, const char *);
/* The job's SLUID, "" while unknown, and where it came from (or NULL). */
const char	*ranks_find_sluid(const char **);
/* Where Slurm's cgroup v2 system.slice is: "" at the root, else the
 * directory of PID 1's cgroup (a container's), as ranks_find_init read
 * it from /proc/1/cgroup. */
const char	*ranks_find_v2_root(void);
/* How the job's first process on this node was found (step daemon,
 * cgroup or environment), where its rank id came from, and the job's
 * cgroup: one line in buf, or NULL while none was found.  Sent once as
 * the info event "ranks-found" (jobtop --explain prints it). */
const char	*ranks_find_how(char *, size_t);

#endif
