/* SPDX-License-Identifier: ISC */
/*
 * sched: job resolution.  A job id (with a batch scheduler to ask), a
 * hostlist (-w), a hostfile (--hostfile) or the environment of a job we run
 * inside becomes a struct job: who owns it, what state it is in and, above
 * all, the expanded list of its nodes.
 *
 * Each scheduler is one const struct sched in its own sched-NAME.c, listed
 * once in sched_table (sched.c), that holds everything about it: its
 * command, job variables, how its environment names the nodes, its
 * queries.  Its query command runs through sched_run() (fork/exec with an
 * argument vector, never a shell; bounded output; a timeout), from its
 * query_argv (sched_query) or its own resolve(), and the text goes to its
 * parse(), which is separate so the tests can feed it fixture outputs.
 * Names in help, usage and error texts come from the registry.
 *
 * Every function returns SCHED_OK or a negative SCHED_E* code and writes one
 * line for the user into err (errsz bytes); nothing here exits or prints.
 *
 * Typical use from main:
 *
 *	struct job	job;
 *
 *	sched_job_init(&job);
 *	if (wflag)
 *		r = sched_from_hostlist(warg, &job, err, sizeof(err));
 *	else if (hostfile != NULL)
 *		r = sched_from_hostfile(hostfile, &job, err, sizeof(err));
 *	else if (jobid != NULL)
 *		r = sched_resolve(schedname, jobid, &job, err, sizeof(err));
 *	else
 *		r = sched_from_env(NULL, &job, err, sizeof(err));
 *	if (r == SCHED_OK && !sched_may_watch(&job, getuid(), err,
 *	    sizeof(err)))
 *		r = SCHED_EPERM;
 *	if (r != SCHED_OK)
 *		errx(1, "%s", err);
 *	for (i = 0; i < hostlist_count(job.nodes); i++)   (--list)
 *		puts(hostlist_get(job.nodes, i));
 *	sched_job_free(&job);
 */
#ifndef JOBTOP_SCHED_H
#define JOBTOP_SCHED_H

#include <sys/types.h>

#include <stddef.h>

#include "validate.h"

struct hostlist;
struct jobvar;

enum {
	SCHED_OK = 0,
	SCHED_ENOMEM = -1,
	SCHED_EINVAL = -2,	/* malformed job id, host name or hostfile */
	SCHED_ENOSCHED = -3,	/* unknown --scheduler name, none detected */
	SCHED_ENOJOB = -4,	/* the scheduler does not know the job */
	SCHED_EPENDING = -5,	/* the job has not started */
	SCHED_EFINISHED = -6,	/* the job has ended */
	SCHED_ECMD = -7,	/* command missing, failed or timed out */
	SCHED_EPARSE = -8,	/* command output not understood */
	SCHED_ENOENV = -9,	/* not inside a job, and no job named */
	SCHED_EPERM = -10,	/* another user's job (sched_may_watch) */
};

enum job_state {
	JOB_UNKNOWN,
	JOB_PENDING,
	JOB_RUNNING,
	JOB_SUSPENDED,
	JOB_COMPLETING,		/* ending: nodes still allocated */
	JOB_COMPLETED,
	JOB_FAILED,
	JOB_CANCELLED,
	JOB_TIMEOUT,
};

#define JOB_TIME_UNKNOWN	(-1L)
#define JOB_TIME_UNLIMITED	(-2L)

/* One host added before sched_job_finish() sums slots per node. */
struct job_slot {
	char		*name;
	long		 slots;
};

struct job {
	char		 id[320];	/* as asked for (or from the env),
					 * without a Slurm step suffix */
	char		 step[16];	/* Slurm step asked for ("0",
					 * "batch", "extern"), or "" */
	char		 name[256];	/* job name, "" if unknown */
	char		 user[64];	/* owner, "" if none (a hostlist) */
	uid_t		 uid;
	int		 uid_known;
	enum job_state	 state;
	char		 state_name[32];	/* the scheduler's own word */
	char		 reason[256];	/* why pending, when told */
	const char	*sched;		/* "slurm", ..., "hostlist" */
	struct hostlist	*nodes;		/* expanded, sorted, unique */
	char		*nodelist;	/* folded expression of nodes */
	char		*rank_nodes;	/* the node list as the scheduler
					 * wrote it, whose order numbers the
					 * nodes (Flux: the job's broker
					 * ranks 0..N-1), or NULL */
	long		 ntasks;	/* tasks (ranks), -1 if unknown */
	long		*slots;		/* per node, in nodes order, or NULL */
	long		 time_limit;	/* seconds, or JOB_TIME_* */
	long		 elapsed;	/* seconds, or JOB_TIME_UNKNOWN */
	/* Requested (allocated, once running) resources, summed over the
	 * job's records; 0 or "" when the scheduler did not say. */
	long		 cpus;		/* CPUs in all */
	unsigned long long mem;		/* memory in all, bytes */
	char		 partition[64];	/* partition or queue */
	char		 sluid[24];	/* Slurm's SLUID of the job (squeue's
					 * Sluid, Slurm 25.11+), or "" */
	/* The GPUs the scheduler allocated on each node, in nodes order:
	 * bit k for its GPU index k on the node (Slurm's, sched-gres.c), 0
	 * none, -1 unknown; NULL when not asked or not said (sched_gpus). */
	int64_t		*gpus;

	/* Private to sched: hosts with slot counts, until finished. */
	struct job_slot	*pend;
	size_t		 npend;
};

/* How a job's environment names its nodes (sched_from_env). */
enum sched_env_nodes {
	SCHED_ENV_QUERY,	/* it does not: the job is resolved with the
				 * query command, as a named one is (Flux) */
	SCHED_ENV_HOSTLIST,	/* a hostlist expression (Slurm) */
	SCHED_ENV_HOSTFILE,	/* a file in --hostfile's syntax, one line
				 * per slot (PBS, OAR) */
	SCHED_ENV_LSF,		/* nodes[0] "n1 4 n2 4" (host and slots),
				 * else nodes[1] "n1 n1 n2" (LSF) */
};

struct sched_env {
	enum sched_env_nodes	 how;
	const char		*nodes[3];	/* the first set, not empty */
	const char		*ntasks[2];	/* the job's task count */
};

/*
 * A scheduler: everything about it that is not its parser.  Detection is
 * sched_detect()'s: 2 inside one of its jobs (a job variable is set), 1
 * its command is in PATH, 0 neither.  A job id already checked against
 * idkind is resolved by resolve(), or, when it is NULL, by running
 * query_argv and handing its output to parse() (the text, the id asked
 * for).  Both return SCHED_ENOJOB for an unknown job and leave the
 * pending/finished verdict to sched_resolve().
 *
 * In the argument vectors (NULL-terminated) "%j" stands for the job id,
 * "%u" for the user name, "%o" for what the resolve() passes
 * (sched_argv).
 */
struct sched {
	const char		*name;		/* --scheduler NAME */
	const char		*command;	/* its query command */
	enum validate_job	 idkind;
	/* Its job variables (src/jobvars.h, which the probe reads too),
	 * preferred first, ending with a NULL name; [0] names the job in
	 * messages. */
	const struct jobvar	*jobvars;
	struct sched_env	 env;
	/* The ids of the caller's running jobs, one a line, first word. */
	const char *const	*mine_argv;
	/* The job's record, for parse(). */
	const char *const	*query_argv;
	/* "squeue -j": the query in its error messages. */
	const char		*query_what;
	/* Any of these in the query's error output: no such job. */
	const char *const	*nojob_words;
	int			(*resolve)(const char *, struct job *, char *,
				    size_t);
	int			(*parse)(const char *, const char *,
				    struct job *, char *, size_t);
	/* The GPUs allocated on each node of a running job into job->gpus;
	 * NULL where the scheduler cannot say. */
	int			(*gpus)(struct job *, char *, size_t);
};

extern const struct sched	sched_slurm;
extern const struct sched	sched_pbs;
extern const struct sched	sched_lsf;
extern const struct sched	sched_oar;
extern const struct sched	sched_flux;

/* The registry, in auto-detection order; NULL past the end. */
const struct sched	*sched_get(size_t);
/* The registry's names into buf, "slurm, pbs, lsf, oar, flux" with last
 * (", ", " or ") before the last one; buf returned. */
const char		*sched_names(char *, size_t, const char *);
/* SCHED_ENOSCHED, "unknown scheduler \"x\" (known: slurm, ...)" in err. */
int			 sched_unknown(const char *, char *, size_t);
/* 2 inside one of its jobs, 1 its command is in PATH, 0 neither. */
int			 sched_detect(const struct sched *);
/* By name for --scheduler, or NULL. */
const struct sched	*sched_by_name(const char *);
/*
 * Choose the scheduler for a job id: the one named (NULL: detect), which
 * must accept the id's form.  Detection prefers the scheduler whose job we
 * run inside, then the first with its command in PATH.
 */
int	sched_select(const char *, const char *, const struct sched **,
	    char *, size_t);
/*
 * Resolve a job id (scheduler named or NULL to detect) into a running job;
 * SCHED_EPENDING / SCHED_EFINISHED / SCHED_ENOJOB with the messages
 * "job 123 is pending (Resources)", "job 123 has finished (COMPLETED)",
 * "job 123: no such job".  The job is filled as far as known even then.
 */
int	sched_resolve(const char *, const char *, struct job *, char *,
	    size_t);
/*
 * A Slurm step id "JOB.STEP" (JOB a Slurm job id: "123", "123_4",
 * "123+1"; STEP a number, "batch", "extern" or "interactive") into its
 * job and step: 1, or 0 for any other form.  sched_resolve() resolves
 * such an id as the job (it used to read "123.0" as a PBS id) and keeps
 * the step in job->step.
 */
int	sched_slurm_step_split(const char *, char *, size_t, char *, size_t);

/* Hostlist sources (sched-env.c). */
/* -w HOSTLIST: every name checked with validate_hostname(). */
int	sched_from_hostlist(const char *, struct job *, char *, size_t);
/*
 * --hostfile FILE: one name per line, '#' comments, optional "slots=N" or
 * "name:N"; a name repeated (PBS_NODEFILE style) adds slots.
 */
int	sched_from_hostfile(const char *, struct job *, char *, size_t);
/*
 * No job named: the job we run inside, from the first job variable set
 * of the schedulers in registry order (each its .jobvars, in order) and
 * the variables its .env names for the nodes (SLURM_JOB_ID and
 * SLURM_JOB_NODELIST, PBS_JOBID and PBS_NODEFILE, ...; FLUX_JOB_ID is
 * resolved with flux jobs: Flux sets no node variable); only those of
 * scheduler `only` unless it is NULL.
 * The environment is not trusted for the owner: with the scheduler's
 * command in PATH the job is resolved there (owner, state; the variables'
 * nodes must all be the job's), without it only a Slurm job is accepted,
 * and only when this process is in the job's cgroup or under its
 * slurmstepd (root's); else SCHED_EPERM.
 * SCHED_ENOENV outside a job, SCHED_ENOSCHED for an unknown `only`.
 */
int	sched_from_env(const char *, struct job *, char *, size_t);

/* Is a job variable of scheduler `only` (NULL: any) set and not empty? */
int	sched_env_inside(const char *);

/*
 * No job named and none in the environment: the running jobs of uid on
 * every scheduler whose command is in PATH (only `only`'s unless NULL),
 * like squeue --me.  Each id the scheduler lists is resolved as a named
 * job would be, and only active jobs whose owner is uid are kept.  One
 * job: SCHED_OK with it in job.  None: SCHED_ENOENV and one line.
 * Several: SCHED_ENOENV, the line, and in *table (allocated, caller
 * frees) a header and one line per job (scheduler, id, name, state,
 * elapsed, nodes) for the caller to print.
 */
int	sched_mine(const char *, uid_t, struct job *, char **, char *,
	    size_t);
/* The job ids in a listing (tests): at most max, each checked against
 * the scheduler's id form, PBS "1234.serv*" cut to "1234"; the count. */
int	sched_mine_ids(const struct sched *, const char *, char [][64],
	    size_t);

/*
 * Does /proc/self/cgroup text (in the first argument) put this process in
 * Slurm job id's cgroup, anchored at Slurm's own root: v1
 * "/slurm[_NODE]/uid_U/job_ID/..." with U the uid given, or v2
 * "/system.slice/[NODE_]slurmstepd.scope/job_ID/..."?  A job_ID found
 * anywhere else (a cgroup a user made under their own delegated tree)
 * does not count.
 */
int	sched_slurm_cgroup_has_job(const char *, const char *, uid_t);

/*
 * May user uid watch this job?  Root, the owner, and members of the site's
 * admin group may; a hostlist or hostfile (no job id) is anyone's, and a
 * job whose owner the scheduler did not give is only root's and the
 * admins' (fail closed).  The
 * admin group is named only by an "admin-group NAME" line in the
 * configuration file (JOBTOP_SYSCONFDIR/jobtop.conf), and only if that file
 * is a regular file owned by root and writable by no one else: never by the
 * environment.  Returns 1, or 0 with "job 123 belongs to alice; only its
 * owner or an admin can watch it" in err.
 */
int	sched_may_watch(const struct job *, uid_t, char *, size_t);

/*
 * The admin group configured in file path into group: 1 if there is one,
 * 0 if the file is missing, not root's, writable by others, or names none.
 */
int	sched_admin_group(const char *, char *, size_t);

/* Use another configuration file (tests). */
void	sched_set_conf(const char *);

/*
 * The GPUs the job's scheduler allocated it on each node (job->gpus), for
 * a running job: asked once, the allocation does not change.  SCHED_OK,
 * or an error with the reason in err (job->gpus stays NULL).
 */
int		 sched_gpus(struct job *, char *, size_t);
/* sched-gres.c, for sched-slurm.c and the tests: one node's GRES detail
 * ("gpu:a100:2(IDX:0-1)") into *mask, 0, or -1 when it is not one or
 * does not say which GPUs; a scontrol -d --json or -o -d record into
 * job->gpus, 0, or -1 when it cannot be trusted or says nothing. */
int		 sched_gres_detail(const char *, int64_t *);
int		 sched_gres_json(const char *, struct job *);
int		 sched_gres_text(const char *, struct job *);

/* Job records. */
void		 sched_job_init(struct job *);
void		 sched_job_free(struct job *);
const char	*sched_state_name(enum job_state);
/* Is the job holding nodes (running, suspended or completing)? */
int		 sched_job_active(const struct job *);
/* SCHED_OK for an active job, else EPENDING/EFINISHED and the message. */
int		 sched_job_check(const struct job *, char *, size_t);

/* Helpers for the sched-*.c files. */
/* Add the names of a hostlist expression, each a valid host name. */
int	sched_job_add_nodes(struct job *, const char *, char *, size_t);
/* Add one host running slots tasks (0: unknown). */
int	sched_job_add_host(struct job *, const char *, long, char *, size_t);
/* Sort out slots per node and fold the node list. */
int	sched_job_finish(struct job *, char *, size_t);
/* Copy src into a fixed field, truncating. */
void	sched_copy(char *, size_t, const char *);
/* The same for the scheduler's free text (name, reason, state word):
 * cleaned with text_clean_inplace(), so no control byte is kept. */
void	sched_copy_text(char *, size_t, const char *);
/* Set the owner's name after validate_username(); "" or NULL leaves it
 * unset; SCHED_EPARSE with the message for a name of another shape. */
int	sched_set_user(struct job *, const char *, char *, size_t);
/* SCHED_OK if a record's own job id has the scheduler's form, else
 * SCHED_EPARSE and the message. */
int	sched_check_recid(const struct job *, const char *,
	    enum validate_job, char *, size_t);
/* Seconds from a number the scheduler printed: JOB_TIME_UNKNOWN when
 * negative, not a number or beyond 1e11 (no cast out of range). */
long	sched_secs(double);
/* A size "2000M", "4G", "512K", "1.5T", "100" (unit: the default
 * multiplier) -> bytes, or 0 when not understood or past 2^60. */
unsigned long long sched_parse_size(const char *, unsigned long long);
/* "[D-]HH:MM:SS", "MM:SS", "UNLIMITED" -> seconds or JOB_TIME_*. */
long	sched_parse_duration(const char *);

/*
 * Run argv[0] (looked up in PATH) with argv, no shell, stdin from
 * /dev/null and LC_ALL=C.  Stdout is returned in *out (NUL-terminated,
 * caller frees; at most SCHED_OUT_MAX bytes), the start of stderr in
 * errtxt, the exit status in *status (-1 if killed by a signal).  A
 * command still running after the timeout is killed: SCHED_ECMD.
 */
#define SCHED_OUT_MAX		(16 * 1024 * 1024)
#define SCHED_TIMEOUT_MS	10000
/* The most slots (CPUs, tasks) one host may be given. */
#define SCHED_SLOTS_MAX		(1L << 24)
int	sched_run(const char *const *, char **, char *, size_t, int *,
	    char *, size_t);
/* Change the timeout of sched_run (for tests), in milliseconds. */
void	sched_set_timeout(int);
/* Is a command in PATH? */
int	sched_in_path(const char *);
/* argv (max words with the NULL) from a descriptor's vector: "%j" the
 * job id, "%u" the user, "%o" extra.  0, or -1 when it does not fit. */
int	sched_argv(const char *const *, const char **, size_t, const char *,
	    const char *, const char *);
/* Does the query's error output errtxt say the job does not exist (one of
 * s->nojob_words in it)? */
int	sched_nojob(const struct sched *, const char *);
/* A query of s for jobid that failed: SCHED_ENOJOB "job ID: no such job"
 * (sched_nojob), else SCHED_ECMD "QUERY_WHAT ID: errtxt" ("failed" when
 * errtxt is empty). */
int	sched_query_failed(const struct sched *, const char *, const char *,
	    char *, size_t);
/* Resolve jobid with s: its resolve(), or its query_argv and parse(). */
int	sched_query(const struct sched *, const char *, struct job *, char *,
	    size_t);

/* A tiny JSON reader for the schedulers that print JSON (LSF, OAR). */
enum sched_json_type {
	SJ_NULL,
	SJ_BOOL,
	SJ_NUMBER,
	SJ_STRING,
	SJ_ARRAY,
	SJ_OBJECT,
};

struct sched_json {
	enum sched_json_type	 type;
	char			*key;	/* member name inside an object */
	char			*str;	/* SJ_STRING decoded, SJ_NUMBER text */
	double			 num;	/* SJ_NUMBER, SJ_BOOL */
	struct sched_json	*child;	/* first element or member */
	struct sched_json	*next;	/* next sibling */
};

/* Parse a whole document; NULL if malformed, too deep or out of memory. */
struct sched_json	*sched_json_parse(const char *);
void			 sched_json_free(struct sched_json *);
/* Member of an object by name, or NULL. */
struct sched_json	*sched_json_get(const struct sched_json *,
			    const char *);
/* Member as a string (numbers as written), or NULL. */
const char		*sched_json_str(const struct sched_json *,
			    const char *);

#endif
