/* SPDX-License-Identifier: ISC */
/*
 * sched-slurm: Slurm jobs, from squeue(1):
 *
 *	squeue -h -t all -j JOBID -O "JobID:0S,ArrayJobID:0S,...,Name:0S"
 *
 * (and ",Sluid:0S" where squeue is 25.11 or later: slurm_has_sluid)
 *
 * one line per job record, every field followed by S, a separator made
 * of random bytes for each query ("~jt" and 16 hex digits).
 *
 * Why this and not the rest (issue 11, review F1): the job's owner writes
 * its name (and its Comment, Command, WorkDir, StdOut, mail user, burst
 * buffer text...), so no field can be found in text that also holds the
 * name by its look alone.  `scontrol show job -o` prints the name before
 * UserId, JobState and NodeList, and free text again after them; a name
 * may hold spaces, "Key=value" words and even newlines (sbatch -J accepts
 * all of them: seen on Slurm 22.05), so a name can forge the fields after
 * it or a whole record line, and no rule (first key, last key, field
 * order) tells the forged words from the real ones.  `scontrol --json`
 * exists only from Slurm 23.02, and `squeue --json` of 21.08-22.05
 * ignores -j ("All other formatting and filtering arguments will be
 * ignored") and prints every job of the cluster, far beyond what a login
 * node should read to find one.  squeue -O asks slurmctld for that one job
 * only, prints exactly the fields named, and the one field a user writes,
 * Name, cannot hold a separator it could not know; so it works the same
 * on every Slurm since 17.11, and the parse below needs no guess.
 *
 * A job array gives one record per task that has started plus one for the
 * tasks still pending (ArrayTaskID "3-5,7"); a heterogeneous job one per
 * component (HetJobID, HetJobOffset).  "123" means every record of the
 * job and the union of their nodes, "123_4" one array task, "123+1" one
 * het component.  A job that is not (or no longer) known makes squeue
 * exit 1 with "slurm_load_jobs error: Invalid job id specified".
 *
 * Every record's ids must be numbers (or N/A), its user a user name; its
 * name, state word and reason are cleaned of control bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostlist.h"
#include "jobvars.h"
#include "sched.h"
#include "validate.h"

/* The fields asked for, in order. */
enum {
	SL_JOBID,
	SL_ARRAYJOB,
	SL_ARRAYTASK,
	SL_HETJOB,
	SL_HETOFF,
	SL_UID,
	SL_USER,
	SL_STATE,
	SL_USED,
	SL_LIMIT,
	SL_NTASKS,
	SL_CPUS,
	SL_TRES,
	SL_MINMEM,
	SL_PART,
	SL_NODES,
	SL_REASON,
	SL_NAME,
	SL_NFIELDS,
	SL_SLUID = SL_NFIELDS,	/* asked for only where squeue has it */
	SL_NMAX
};

static const char *const slurm_fields[SL_NFIELDS] = {
	"JobID", "ArrayJobID", "ArrayTaskID", "HetJobID", "HetJobOffset",
	"UserID", "UserName", "State", "TimeUsed", "TimeLimit", "NumTasks",
	"NumCPUs", "tres-alloc", "MinMemory", "Partition", "NodeList",
	"Reason", "Name",
};

/* Slurm names job cgroups by the job's SLUID from 26.05 (the probe
 * finds them by it: probes/ranks.h); squeue's Sluid field came with the
 * SLUIDs in 25.11.  Older squeue refuses the field name, so it is asked
 * for only from that version on. */
#define SLURM_SLUID_MAJOR	25
#define SLURM_SLUID_MINOR	11

#define SLURM_SEPMAX	32

/* What a job id asks for. */
struct slurm_want {
	char	 base[32];
	long	 task;		/* array task, or -1 */
	long	 offset;	/* het component, or -1 */
};

/* Is task n in an ArrayTaskId spec ("4", "2-10", "1-9:2,12", "1-5%2")? */
static int
slurm_task_in(const char *spec, long n)
{
	const char	*p = spec;
	char		*end;
	long		 lo, hi, step;

	while (*p != '\0' && *p != '%') {
		lo = strtol(p, &end, 10);
		if (end == p)
			return 0;
		hi = lo;
		step = 1;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		if (*p == ':') {
			step = strtol(p + 1, &end, 10);
			p = end;
		}
		if (step < 1)
			step = 1;
		if (n >= lo && n <= hi && (n - lo) % step == 0)
			return 1;
		if (*p == ',')
			p++;
		else if (*p != '\0' && *p != '%')
			return 0;
	}
	return 0;
}

/* Split "123", "123_4" or "123+1". */
static void
slurm_want(const char *jobid, struct slurm_want *w)
{
	size_t	n = strspn(jobid, "0123456789");

	if (n >= sizeof(w->base))
		n = sizeof(w->base) - 1;
	memcpy(w->base, jobid, n);
	w->base[n] = '\0';
	w->task = w->offset = -1;
	if (jobid[n] == '_')
		w->task = strtol(jobid + n + 1, NULL, 10);
	else if (jobid[n] == '+')
		w->offset = strtol(jobid + n + 1, NULL, 10);
}

/* JobState words (squeue(1), JOB STATE CODES). */
static enum job_state
slurm_state(const char *s)
{
	static const struct {
		const char	*word;
		enum job_state	 st;
	} map[] = {
		{ "PENDING", JOB_PENDING },
		{ "REQUEUED", JOB_PENDING },
		{ "REQUEUE_HOLD", JOB_PENDING },
		{ "REQUEUE_FED", JOB_PENDING },
		{ "RESV_DEL_HOLD", JOB_PENDING },
		{ "CONFIGURING", JOB_RUNNING },
		{ "RUNNING", JOB_RUNNING },
		{ "RESIZING", JOB_RUNNING },
		{ "SIGNALING", JOB_RUNNING },
		{ "STAGE_OUT", JOB_COMPLETING },
		{ "SUSPENDED", JOB_SUSPENDED },
		{ "STOPPED", JOB_SUSPENDED },
		{ "COMPLETING", JOB_COMPLETING },
		{ "COMPLETED", JOB_COMPLETED },
		{ "CANCELLED", JOB_CANCELLED },
		{ "TIMEOUT", JOB_TIMEOUT },
		{ "DEADLINE", JOB_TIMEOUT },
		{ "FAILED", JOB_FAILED },
		{ "BOOT_FAIL", JOB_FAILED },
		{ "NODE_FAIL", JOB_FAILED },
		{ "OUT_OF_MEMORY", JOB_FAILED },
		{ "PREEMPTED", JOB_FAILED },
		{ "REVOKED", JOB_CANCELLED },
		{ "SPECIAL_EXIT", JOB_FAILED },
	};
	size_t	i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (s != NULL && strcmp(s, map[i].word) == 0)
			return map[i].st;
	return JOB_UNKNOWN;
}

/* Which of two states describes a job with both kinds of records. */
static int
slurm_rank(enum job_state st)
{
	switch (st) {
	case JOB_RUNNING:
		return 5;
	case JOB_SUSPENDED:
		return 4;
	case JOB_COMPLETING:
		return 3;
	case JOB_PENDING:
		return 2;
	case JOB_UNKNOWN:
		return 0;
	default:
		return 1;
	}
}

/* A number, or "N/A" (na_ok), or "" (empty_ok)? */
static int
slurm_num(const char *v, int na_ok)
{
	if (na_ok && strcmp(v, "N/A") == 0)
		return 1;
	return *v != '\0' && strspn(v, "0123456789") == strlen(v) &&
	    strlen(v) <= 10;
}

/* Is this record part of what was asked for? */
static int
slurm_match(char *const *f, const struct slurm_want *w)
{
	if (w->task >= 0)
		return strcmp(f[SL_ARRAYJOB], w->base) == 0 &&
		    slurm_task_in(f[SL_ARRAYTASK], w->task);
	if (w->offset >= 0)
		return strcmp(f[SL_HETJOB], w->base) == 0 &&
		    slurm_num(f[SL_HETOFF], 0) &&
		    strtol(f[SL_HETOFF], NULL, 10) == w->offset;
	return strcmp(f[SL_JOBID], w->base) == 0 ||
	    strcmp(f[SL_ARRAYJOB], w->base) == 0 ||
	    strcmp(f[SL_HETJOB], w->base) == 0;
}

/* Check the shape of a record's own fields before any is used. */
static int
slurm_check(const struct job *job, char *const *f, char *err, size_t errsz)
{
	const char	*t = f[SL_ARRAYTASK];
	int		 r;

	if ((r = sched_check_recid(job, f[SL_JOBID], VJ_SLURM, err,
	    errsz)) != SCHED_OK)
		return r;
	if (!slurm_num(f[SL_JOBID], 0) || !slurm_num(f[SL_ARRAYJOB], 1) ||
	    !slurm_num(f[SL_HETJOB], 1) || !slurm_num(f[SL_HETOFF], 1) ||
	    !slurm_num(f[SL_UID], 1) || (strcmp(t, "N/A") != 0 &&
	    (*t == '\0' || strspn(t, "0123456789,-:%") != strlen(t)))) {
		snprintf(err, errsz, "job %s: squeue gave a record that is "
		    "not a job's", job->id);
		return SCHED_EPARSE;
	}
	return SCHED_OK;
}

/* The memory of a tres-alloc list ("cpu=4,mem=2000M,node=2"): bytes,
 * 0 if none. */
static unsigned long long
slurm_tres_mem(const char *tres)
{
	const char	*p;
	char		 v[32];
	size_t		 n;

	for (p = tres; p != NULL && *p != '\0'; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (strncmp(p, "mem=", 4) != 0)
			continue;
		p += 4;
		n = strcspn(p, ",");
		if (n >= sizeof(v))
			return 0;
		memcpy(v, p, n);
		v[n] = '\0';
		return sched_parse_size(v, 1ULL << 20);
	}
	return 0;
}

/*
 * The memory a running record asked for, from squeue's MinMemory field,
 * for a record whose tres-alloc has no mem= (a Slurm where memory is not
 * a consumable resource: SelectTypeParameters CR_CPU or CR_Core, as the
 * lab's): bytes over the record's nnodes nodes and ncpus CPUs, 0 if not
 * known.
 *
 * squeue prints the job's pn_min_memory with the MEM_PER_CPU flag
 * cleared (src/squeue/print.c _print_pn_min_memory, alike in 22.05 and
 * 25.11), in M, G, T with up to two decimals ("330M", "2.50G"), "0" when
 * the job asked none.  So --mem=330M and --mem-per-cpu=330M both read
 * "330M", and nothing else squeue prints tells them apart.  The value is
 * the memory of a node only where both readings agree: one CPU on each
 * node (ncpus == nnodes, as each node holds at least one).  With more
 * CPUs on a node a per-CPU request would be that many times larger, so
 * the field is not used there rather than give a wrong number.
 */
static unsigned long long
slurm_min_mem(const char *v, long ncpus, size_t nnodes)
{
	unsigned long long	 m;
	size_t			 n;

	n = strspn(v, "0123456789");
	if (n == 0 || n > 12)
		return 0;
	if (v[n] == '.' && (n += 1 + strspn(v + n + 1, "0123456789")) > 16)
		return 0;
	if (v[n] != '\0' && strchr("MGTP", v[n]) != NULL)
		n++;
	if (v[n] != '\0' || nnodes == 0 || ncpus <= 0 ||
	    (unsigned long)ncpus != nnodes)
		return 0;
	m = sched_parse_size(v, 1ULL << 20);
	if (m == 0 || m > (1ULL << 60) / nnodes)
		return 0;
	return m * nnodes;
}

/* Is s a SLUID as Slurm writes it ("sEKNKTV3WPV500": 's', then upper-case
 * letters and digits)? */
static int
slurm_is_sluid(const char *s)
{
	size_t	n = strlen(s);

	return n >= 11 && n < sizeof(((struct job *)0)->sluid) &&
	    s[0] == 's' && strspn(s + 1, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	    == n - 1;
}

/* Fold one matching record into the job (nf fields: SL_NFIELDS, or
 * SL_NMAX with the SLUID). */
static int
slurm_add(struct job *job, char *const *f, int nf, int first, char *err,
    size_t errsz)
{
	const char	*nodes = f[SL_NODES];
	struct hostlist	*hl;
	unsigned long long mem;
	enum job_state	 st;
	long		 t, cpus = 0;
	size_t		 nnodes = 0;
	char		 hlerr[256];
	int		 r;

	st = slurm_state(f[SL_STATE]);
	if (first) {
		sched_copy_text(job->name, sizeof(job->name), f[SL_NAME]);
		if ((r = sched_set_user(job, f[SL_USER], err, errsz)) !=
		    SCHED_OK)
			return r;
		if (slurm_num(f[SL_UID], 0)) {
			job->uid = (uid_t)strtol(f[SL_UID], NULL, 10);
			job->uid_known = 1;
		}
		job->time_limit = sched_parse_duration(f[SL_LIMIT]);
		sched_copy_text(job->partition, sizeof(job->partition),
		    f[SL_PART]);
		if (nf > SL_SLUID && slurm_is_sluid(f[SL_SLUID]))
			sched_copy(job->sluid, sizeof(job->sluid),
			    f[SL_SLUID]);
	}
	if (first || slurm_rank(st) > slurm_rank(job->state)) {
		job->state = st;
		sched_copy_text(job->state_name, sizeof(job->state_name),
		    f[SL_STATE]);
		sched_copy_text(job->reason, sizeof(job->reason),
		    strcmp(f[SL_REASON], "None") != 0 ? f[SL_REASON] : "");
	}
	if (st != JOB_RUNNING && st != JOB_SUSPENDED && st != JOB_COMPLETING)
		return SCHED_OK;
	if (*nodes != '\0' && strcmp(nodes, "(null)") != 0) {
		if ((r = sched_job_add_nodes(job, nodes, err, errsz)) !=
		    SCHED_OK)
			return r;
		/* The record's own nodes, for MinMemory below. */
		if (hostlist_expand(nodes, &hl, hlerr, sizeof(hlerr)) ==
		    HL_OK) {
			nnodes = hostlist_count(hl);
			hostlist_free(hl);
		}
	}
	if (slurm_num(f[SL_NTASKS], 0)) {
		t = strtol(f[SL_NTASKS], NULL, 10);
		job->ntasks = (job->ntasks < 0 ? 0 : job->ntasks) + t;
	}
	/* What the running records hold, summed like the tasks. */
	if (slurm_num(f[SL_CPUS], 0) && (t = strtol(f[SL_CPUS], NULL,
	    10)) > 0 && t <= SCHED_SLOTS_MAX) {
		job->cpus += t;
		cpus = t;
	}
	/* tres-alloc's mem= is what Slurm allocated: it wins; MinMemory
	 * (what the job asked) only where there is none. */
	if ((mem = slurm_tres_mem(f[SL_TRES])) == 0)
		mem = slurm_min_mem(f[SL_MINMEM], cpus, nnodes);
	job->mem += mem;
	t = sched_parse_duration(f[SL_USED]);
	if (t >= 0 && t > job->elapsed)
		job->elapsed = t;
	return SCHED_OK;
}

/*
 * Parse squeue's answer, records of nf fields (SL_NFIELDS, or SL_NMAX
 * with Sluid) each followed by sep, a newline after each record.
 */
static int
slurm_parse_sep(const char *text, const char *sep, int nf, const char *jobid,
    struct job *job, char *err, size_t errsz)
{
	struct slurm_want	 w;
	char			*copy, *p, *q, *f[SL_NMAX];
	size_t			 seplen = strlen(sep);
	int			 i, r = SCHED_OK, matched = 0;

	sched_copy(job->id, sizeof(job->id), jobid);
	job->sched = "slurm";
	slurm_want(jobid, &w);
	if (seplen == 0) {
		snprintf(err, errsz, "job %s: no field separator", jobid);
		return SCHED_EPARSE;
	}
	if ((copy = strdup(text)) == NULL) {
		snprintf(err, errsz, "out of memory reading Slurm's answer");
		return SCHED_ENOMEM;
	}
	for (p = copy; *p != '\0' && r == SCHED_OK; ) {
		for (i = 0; i < nf; i++) {
			if ((q = strstr(p, sep)) == NULL)
				break;
			*q = '\0';
			f[i] = p;
			p = q + seplen;
		}
		if (i < nf || (*p != '\n' && *p != '\0')) {
			snprintf(err, errsz, "job %s: squeue's answer is not "
			    "understood", jobid);
			r = SCHED_EPARSE;
			break;
		}
		if (*p == '\n')
			p++;
		if ((r = slurm_check(job, f, err, errsz)) != SCHED_OK ||
		    !slurm_match(f, &w))
			continue;
		if ((r = slurm_add(job, f, nf, !matched, err, errsz)) ==
		    SCHED_OK)
			matched++;
	}
	free(copy);
	if (r != SCHED_OK)
		return r;
	if (!matched) {
		job->state = JOB_UNKNOWN;
		snprintf(err, errsz, "job %s: no such job", jobid);
		return SCHED_ENOJOB;
	}
	return sched_job_finish(job, err, errsz);
}

/*
 * The parser as the tests and the fuzzer see it: the text starts with a
 * line "sep=S" naming the separator that resolve() chose at random, or
 * "sep=S sluid" when the records end with the Sluid field.
 */
static int
slurm_parse(const char *text, const char *jobid, struct job *job, char *err,
    size_t errsz)
{
	char	sep[SLURM_SEPMAX + 1];
	size_t	n, skip = 0;
	int	nf = SL_NFIELDS;

	sched_copy(job->id, sizeof(job->id), jobid);
	if (strncmp(text, "sep=", 4) != 0 ||
	    (n = strcspn(text + 4, " \n")) == 0 || n > SLURM_SEPMAX) {
		snprintf(err, errsz, "job %s: no \"sep=\" line", jobid);
		return SCHED_EPARSE;
	}
	if (strncmp(text + 4 + n, " sluid\n", 7) == 0) {
		nf = SL_NMAX;
		skip = 6;
	} else if (text[4 + n] != '\n') {
		snprintf(err, errsz, "job %s: no \"sep=\" line", jobid);
		return SCHED_EPARSE;
	}
	memcpy(sep, text + 4, n);
	sep[n] = '\0';
	return slurm_parse_sep(text + 4 + n + skip + 1, sep, nf, jobid, job,
	    err, errsz);
}

/*
 * The Slurm version, asked once: `squeue --version` prints "slurm 25.11.2"
 * as SchedMD builds it, "slurm-wlm 22.05.8" as Debian and Ubuntu package
 * it.  Anything else (it failed, another form): 0.0, an old Slurm.
 */
static void
slurm_version(int *major, int *minor)
{
	static int	 known, ma, mi;
	const char	*argv[] = { "squeue", "--version", NULL };
	char		*out = NULL, errtxt[256], err[256];
	int		 status;

	if (!known) {
		known = 1;
		if (sched_run(argv, &out, errtxt, sizeof(errtxt), &status,
		    err, sizeof(err)) != SCHED_OK || status != 0 ||
		    out == NULL || (sscanf(out, "slurm %d.%d", &ma, &mi) != 2 &&
		    sscanf(out, "slurm-wlm %d.%d", &ma, &mi) != 2))
			ma = mi = 0;
		free(out);
	}
	*major = ma;
	*minor = mi;
}

/* Is this Slurm major.minor or later? */
static int
slurm_at_least(int major, int minor)
{
	int	ma, mi;

	slurm_version(&ma, &mi);
	return ma > major || (ma == major && mi >= minor);
}

/* Does this squeue have the Sluid field (Slurm 25.11 and later)? */
static int
slurm_has_sluid(void)
{
	return slurm_at_least(SLURM_SLUID_MAJOR, SLURM_SLUID_MINOR);
}

/* A separator no job name can hold: "~jt" and 16 random hex digits. */
static int
slurm_sep(char *sep, size_t sepsz)
{
	unsigned char	rnd[8];
	size_t		i;

	if (getentropy(rnd, sizeof(rnd)) == -1)
		return -1;
	snprintf(sep, sepsz, "~jt");
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(sep + 3 + 2 * i, sepsz - 3 - 2 * i, "%02x", rnd[i]);
	return 0;
}

static int
slurm_resolve(const char *jobid, struct job *job, char *err, size_t errsz)
{
	struct slurm_want	 w;
	const char		*argv[9];
	char			*out, errtxt[512], sep[SLURM_SEPMAX + 1];
	char			 fmt[SL_NMAX * (16 + SLURM_SEPMAX)];
	size_t			 len = 0;
	int			 i, r, status, nf;

	slurm_want(jobid, &w);
	sched_copy(job->id, sizeof(job->id), jobid);
	if (slurm_sep(sep, sizeof(sep)) == -1) {
		snprintf(err, errsz, "no random bytes for the squeue query");
		return SCHED_ECMD;
	}
	nf = slurm_has_sluid() ? SL_NMAX : SL_NFIELDS;
	for (i = 0; i < nf; i++)
		len += (size_t)snprintf(fmt + len, sizeof(fmt) - len,
		    "%s%s:0%s", i > 0 ? "," : "", i < SL_NFIELDS ?
		    slurm_fields[i] : "Sluid", sep);
	if (sched_argv(sched_slurm.query_argv, argv, sizeof(argv) /
	    sizeof(argv[0]), w.offset >= 0 ? w.base : jobid, NULL, fmt) != 0) {
		snprintf(err, errsz, "squeue: no query for a job");
		return SCHED_ECMD;
	}
	if ((r = sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    errsz)) != SCHED_OK)
		return r;
	if (status != 0) {
		free(out);
		return sched_query_failed(&sched_slurm, jobid, errtxt, err,
		    errsz);
	}
	r = slurm_parse_sep(out, sep, nf, jobid, job, err, errsz);
	free(out);
	return r;
}

/*
 * The GPUs allocated on each node (sched-gres.c): `scontrol -d --json show
 * job ID` from Slurm 23.02, `scontrol -o -d show job ID` before it.
 */
static int
slurm_gpus(struct job *job, char *err, size_t errsz)
{
	const char	*json[] = { "scontrol", "-d", "--json", "show", "job",
	    job->id, NULL };
	const char	*text[] = { "scontrol", "-o", "-d", "show", "job",
	    job->id, NULL };
	char		*out, errtxt[512];
	int		 r, status, use_json = slurm_at_least(23, 2);

	if ((r = sched_run(use_json ? json : text, &out, errtxt,
	    sizeof(errtxt), &status, err, errsz)) != SCHED_OK)
		return r;
	if (status != 0) {
		free(out);
		snprintf(err, errsz, "scontrol show job %s: %s", job->id,
		    errtxt[0] != '\0' ? errtxt : "failed");
		return SCHED_ECMD;
	}
	r = use_json ? sched_gres_json(out, job) : sched_gres_text(out, job);
	free(out);
	if (r != 0) {
		snprintf(err, errsz, "scontrol show job %s: no GPU detail "
		    "jobtop can trust", job->id);
		return SCHED_EPARSE;
	}
	return SCHED_OK;
}

static const struct jobvar slurm_jobvars[] = { JOBVARS_SLURM, JOBVARS_END };

const struct sched sched_slurm = {
	.name = "slurm",
	.command = "squeue",
	.idkind = VJ_SLURM,
	.jobvars = slurm_jobvars,
	.env = { .how = SCHED_ENV_HOSTLIST,
	    .nodes = { "SLURM_JOB_NODELIST", "SLURM_NODELIST" },
	    .ntasks = { "SLURM_NTASKS", "SLURM_NPROCS" } },
	.mine_argv = (const char *const []){ "squeue", "-h", "-t",
	    "RUNNING,SUSPENDED,COMPLETING", "-u", "%u", "-o", "%i", NULL },
	/* "%o": the -O field list, with a separator made per query. */
	.query_argv = (const char *const []){ "squeue", "-h", "-t", "all",
	    "-j", "%j", "-O", "%o", NULL },
	.query_what = "squeue -j",
	.nojob_words = (const char *const []){ "Invalid job id",
	    "not found", NULL },
	.resolve = slurm_resolve,
	.parse = slurm_parse,
	.gpus = slurm_gpus,
};
