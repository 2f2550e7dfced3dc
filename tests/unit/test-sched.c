/* SPDX-License-Identifier: ISC */
/*
 * test-sched: job resolution.  Every scheduler's parser on the fixture
 * outputs under tests/data/sched/ (running, pending, finished, array, het,
 * multi-node, unknown), the hostlist/hostfile/environment sources, the
 * ownership rule, validation of host names and job ids, the JSON reader,
 * and sched_run() with fake scheduler commands in a private PATH (argument
 * vectors, no shell, timeout, bounded output).
 */
#include <sys/stat.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hostlist.h"
#include "jobvars.h"
#include "sched.h"
#include "validate.h"

static char	 fixdir[4096];
static char	 bindir[4096];

/* Read a fixture into a new string (empty on failure, with a check). */
static char *
fixture(const char *name)
{
	char	 path[8192], *buf;
	FILE	*f;
	long	 len;

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	if ((f = fopen(path, "r")) == NULL) {
		harness_check(0, __FILE__, __LINE__, "open %s: %s", path,
		    strerror(errno));
		return strdup("");
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)len + 1);
	if (fread(buf, 1, (size_t)len, f) != (size_t)len)
		harness_check(0, __FILE__, __LINE__, "read %s", path);
	fclose(f);
	return buf;
}

/* Parse a fixture with a scheduler's parser, then the verdict. */
static int
parse(const struct sched *s, const char *file, const char *jobid,
    struct job *job, char *err, size_t errsz)
{
	char	*text = fixture(file);
	int	 r;

	sched_job_init(job);
	err[0] = '\0';
	r = s->parse(text, jobid, job, err, errsz);
	free(text);
	if (r == SCHED_OK)
		r = sched_job_check(job, err, errsz);
	return r;
}

/* The job's folded node list must be want. */
static void
check_nodes(const struct job *job, const char *want, int line)
{
	harness_check(job->nodelist != NULL && strcmp(job->nodelist, want) ==
	    0, __FILE__, line, "nodelist \"%s\", want \"%s\"",
	    job->nodelist != NULL ? job->nodelist : "(null)", want);
}

/* Slots of one node of the job. */
static long
slots_of(struct job *job, const char *name)
{
	long	i = hostlist_find(job->nodes, name);

	if (i < 0 || job->slots == NULL)
		return -1;
	return job->slots[i];
}

static void
test_slurm(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_slurm, "slurm/running.txt", "12", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "node[1-4]", __LINE__);
	CHECK_STR(job.user, "jtuser");
	CHECK_INT(job.uid_known, 1);
	CHECK_INT(job.uid, 1001);
	CHECK_STR(job.name, "healthy");
	CHECK_INT(job.state, JOB_RUNNING);
	CHECK_STR(job.state_name, "RUNNING");
	CHECK_INT(job.ntasks, 4);
	CHECK_INT(job.time_limit, 900);
	CHECK_INT(job.elapsed, 2);
	CHECK_STR(job.sched, "slurm");
	/* The allocation, from NumCPUs, tres-alloc and Partition. */
	CHECK_INT(job.cpus, 4);
	CHECK(job.mem == 2000ULL << 20);
	CHECK_STR(job.partition, "lab");
	sched_job_free(&job);
	/* Sizes as schedulers print them. */
	CHECK(sched_parse_size("2000M", 1) == 2000ULL << 20);
	CHECK(sched_parse_size("4gb", 1) == 4ULL << 30);
	CHECK(sched_parse_size("1.5T", 1) == 3ULL << 39);
	CHECK(sched_parse_size("100", 1024) == 102400);
	CHECK(sched_parse_size("2000X", 1) == 0);
	CHECK(sched_parse_size("-1M", 1) == 0);
	CHECK(sched_parse_size("", 1) == 0);
	CHECK(sched_parse_size("99999999P", 1) == 0);

	CHECK_INT(parse(&sched_slurm, "slurm/pending.txt", "13", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job 13 is pending (Resources)");
	CHECK(job.nodes == NULL || hostlist_count(job.nodes) == 0);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/completed.txt", "10", &job, err,
	    sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job 10 has finished (COMPLETED)");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/running.txt", "99", &job, err,
	    sizeof(err)), SCHED_ENOJOB);
	CHECK_STR(err, "job 99: no such job");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/unlimited-suspended.txt", "77",
	    &job, err, sizeof(err)), SCHED_OK);
	CHECK_INT(job.state, JOB_SUSPENDED);
	CHECK_INT(job.time_limit, JOB_TIME_UNLIMITED);
	check_nodes(&job, "node[7-8]", __LINE__);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/multinode.txt", "4242", &job,
	    err, sizeof(err)), SCHED_OK);
	CHECK_INT(hostlist_count(job.nodes), 136);
	check_nodes(&job, "cn[001-128,130],gpu3,rack[1-2]-n[01-03]",
	    __LINE__);
	CHECK_STR(job.name, "big run with spaces");
	CHECK_STR(job.user, "alice");
	CHECK_INT(job.ntasks, 4352);
	CHECK_INT(job.time_limit, 7 * 86400);
	CHECK_INT(job.elapsed, 3 * 86400 + 4 * 3600 + 5 * 60 + 6);
	sched_job_free(&job);

	/* A name that is not a host name never gets through. */
	CHECK_INT(parse(&sched_slurm, "slurm/badhost.txt", "66", &job, err,
	    sizeof(err)), SCHED_EINVAL);
	CHECK(strstr(err, "invalid host name") != NULL);
	sched_job_free(&job);
}

/* No control byte, no byte outside printable ASCII. */
static int
all_printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/*
 * A job name made of another record (Key=value words, squeue's own
 * fields with '|', JSON, escape sequences, newlines): the job stays the
 * one Slurm describes, and the name keeps no control byte.
 */
static void
test_slurm_hostile(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_slurm, "slurm/hostile.txt", "9", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "node2", __LINE__);
	CHECK_STR(job.user, "jtuser");
	CHECK_INT(job.uid, 1001);
	CHECK_INT(job.state, JOB_RUNNING);
	CHECK_STR(job.state_name, "RUNNING");
	CHECK_INT(job.ntasks, 1);
	CHECK(strncmp(job.name, "x JobState=COMPLETED NodeList=node4 ", 36) ==
	    0);
	CHECK(strstr(job.name, "?]0;PWN??[2J") != NULL);
	CHECK(all_printable(job.name));
	sched_job_free(&job);

	/* Without the separator's line the text is refused. */
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("9|9|N/A|N/A|N/A|0|root|RUNNING|0:01|"
	    "1:00|1|1|"
	    "cpu=1,mem=100M,node=1|100M|lab|"
	    "node4|None|y|\n", "9", &job, err, sizeof(err)),
	    SCHED_EPARSE);
	sched_job_free(&job);
	/* A record cut short, or with more fields than asked for. */
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=|\n9|9|N/A|N/A|N/A|0|root|RUNNING|"
	    "0:01|1:00|1|1|"
	    "cpu=1,mem=100M,node=1|100M|lab|"
	    "node4|None|\n", "9", &job, err, sizeof(err)),
	    SCHED_EPARSE);
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=|\n9|9|N/A|N/A|N/A|0|root|RUNNING|"
	    "0:01|1:00|1|1|"
	    "cpu=1,mem=100M,node=1|100M|lab|"
	    "node4|None|y|z|\n", "9", &job, err, sizeof(err)),
	    SCHED_EPARSE);
	sched_job_free(&job);
	/* Slurm 25.11+: the Sluid field last ("sep=S sluid"); a SLUID is
	 * kept, anything else is not (N/A, a lower-case or short word). */
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=| sluid\n9|9|N/A|N/A|N/A|0|root|"
	    "RUNNING|0:01|1:00|1|1|cpu=1,mem=100M,node=1|100M|lab|node4|None|y|"
	    "sEKNKTV3WPV500|\n", "9", &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.sluid, "sEKNKTV3WPV500");
	CHECK_STR(job.name, "y");
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=| sluid\n9|9|N/A|N/A|N/A|0|root|"
	    "RUNNING|0:01|1:00|1|1|cpu=1,mem=100M,node=1|100M|lab|node4|None|y|"
	    "N/A|\n", "9", &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.sluid, "");
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=| sluid\n9|9|N/A|N/A|N/A|0|root|"
	    "RUNNING|0:01|1:00|1|1|cpu=1,mem=100M,node=1|100M|lab|node4|None|y|"
	    "sekn;rm|\n", "9", &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.sluid, "");
	sched_job_free(&job);
	/* Without the field asked for, the same record is one too long; and
	 * a record without it when it was asked for is one too short. */
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=|\n9|9|N/A|N/A|N/A|0|root|"
	    "RUNNING|0:01|1:00|1|1|cpu=1,mem=100M,node=1|100M|lab|node4|None|y|"
	    "sEKNKTV3WPV500|\n", "9", &job, err, sizeof(err)), SCHED_EPARSE);
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=| sluid\n9|9|N/A|N/A|N/A|0|root|"
	    "RUNNING|0:01|1:00|1|1|cpu=1,mem=100M,node=1|100M|lab|node4|None|y|"
	    "\n", "9", &job, err, sizeof(err)), SCHED_EPARSE);
	sched_job_free(&job);
	/* A user that is not a user name, an id that is not a number. */
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=|\n9|9|N/A|N/A|N/A|0|ro ot|RUNNING|"
	    "0:01|1:00|1|1|"
	    "cpu=1,mem=100M,node=1|100M|lab|"
	    "node4|None|y|\n", "9", &job, err, sizeof(err)),
	    SCHED_EPARSE);
	CHECK(strstr(err, "invalid user name") != NULL);
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=|\n9|9|N/A|N/A|N/A|0|\033[2J|"
	    "RUNNING|0:01|1:00|1|1|"
	    "cpu=1,mem=100M,node=1|100M|lab|node4|None|y|\n", "9", &job, err,
	    sizeof(err)), SCHED_EPARSE);
	CHECK(all_printable(err));
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=|\n9x|9|N/A|N/A|N/A|0|root|RUNNING|"
	    "0:01|1:00|1|1|"
	    "cpu=1,mem=100M,node=1|100M|lab|"
	    "node4|None|y|\n", "9", &job, err, sizeof(err)),
	    SCHED_EPARSE);
	sched_job_free(&job);
	/* A state word and reason with escapes are cleaned. */
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=|\n9|9|N/A|N/A|N/A|0|root|PENDING|"
	    "0:01|1:00|1|1|"
	    "cpu=1,mem=100M,node=1|100M|lab||R\033]0;X\007|y|\n", "9", &job, err,
	    sizeof(err)), SCHED_OK);
	CHECK_INT(sched_job_check(&job, err, sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job 9 is pending (R?]0;X?)");
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_slurm.parse("sep=|\n9|9|N/A|N/A|N/A|0|root|DONE"
	    "\033[2J|0:01|1:00|1|1|"
	    "cpu=1,mem=100M,node=1|100M|lab|"
	    "|None|y|\n", "9", &job, err, sizeof(err)),
	    SCHED_OK);
	CHECK_INT(job.state, JOB_UNKNOWN);
	CHECK_STR(job.state_name, "DONE?[2J");
	sched_job_free(&job);
}

/* One running record on node[1-2] with the given NumCPUs, tres-alloc and
 * MinMemory fields: its job's memory, or ~0 if refused. */
static unsigned long long
slurm_mem_of(const char *cpus, const char *tres, const char *minmem)
{
	struct job		job;
	char			text[512], err[256];
	unsigned long long	mem = ~0ULL;

	snprintf(text, sizeof(text), "sep=|\n9|9|N/A|N/A|N/A|0|root|RUNNING|"
	    "0:01|1:00|2|%s|%s|%s|lab|node[1-2]|None|y|\n", cpus, tres,
	    minmem);
	sched_job_init(&job);
	if (sched_slurm.parse(text, "9", &job, err, sizeof(err)) == SCHED_OK)
		mem = job.mem;
	sched_job_free(&job);
	return mem;
}

/*
 * squeue's MinMemory (what the job asked, per node or per CPU: squeue
 * prints both alike) counts only where tres-alloc has no mem= (memory
 * not consumable: CR_CPU, CR_Core) and the record has one CPU a node.
 */
/* A job on nodes (a hostlist expression), for the GRES parsers. */
static void
gres_job(struct job *job, const char *nodes)
{
	char	err[256];

	sched_job_init(job);
	CHECK_INT(sched_job_add_nodes(job, nodes, err, sizeof(err)),
	    SCHED_OK);
	CHECK_INT(sched_job_finish(job, err, sizeof(err)), SCHED_OK);
}

/* job->gpus of node name (-3: no list at all). */
static long long
gres_of(struct job *job, const char *name)
{
	long	i = hostlist_find(job->nodes, name);

	if (job->gpus == NULL)
		return -3;
	return i < 0 ? -4 : (long long)job->gpus[i];
}

/* One node's GRES detail string. */
static long long
gres1(const char *s)
{
	int64_t	m = -7;

	return sched_gres_detail(s, &m) == 0 ? (long long)m : -1;
}

/* Slurm's per-node GRES detail: the forms of 22.05-25.11, JSON and the
 * -o text with its forgery guard (issue 24, item 4). */
static void
test_slurm_gres(void)
{
	struct job	 job;
	char		*t;

	CHECK(gres1("gpu:a100:2(IDX:0-1)") == 0x3);
	CHECK(gres1("gpu:2(IDX:0,2-3)") == 0xd);
	CHECK(gres1("gpu:a100:1(IDX:0),gpu:v100:1(IDX:2)") == 0x5);
	CHECK(gres1("gpu:a100:2(IDX:0-1),nic:1(IDX:0)") == 0x3);
	CHECK(gres1("nic:1(IDX:0)") == 0);
	CHECK(gres1("") == 0);
	/* 23.11+ shares: GPUs 0 and 1 have some taken. */
	CHECK(gres1("shard:3(2/4,1/4,0/4,0/4)") == 0x3);
	CHECK(gres1("mps:50(IDX:1)") == 0x2);
	/* A count without indexes says no GPU by name. */
	CHECK(gres1("gpu(CNT:2)") == -1);
	CHECK(gres1("gpu:1(IDX:0),gpu:tesla(CNT:1)") == 0x1);
	CHECK(gres1("gpu:1(IDX:62)") == (long long)1 << 62);
	/* Malformed or hostile: not used. */
	CHECK(gres1("gpu:1(IDX:63)") == -1);
	CHECK(gres1("gpu:1(IDX:3-1)") == -1);
	CHECK(gres1("gpu:1(IDX:0,)") == -1);
	CHECK(gres1("gpu:1(IDX:)") == -1);
	CHECK(gres1("gpu:1(IDX:0") == -1);
	CHECK(gres1("gpu:1IDX:0)") == -1);
	CHECK(gres1("gpu:1(IDX:0)),x") == -1);
	CHECK(gres1("gpu:1(IDX:0),") == -1);
	CHECK(gres1(",gpu:1(IDX:0)") == -1);
	CHECK(gres1("gpu:1(IDX:-1)") == -1);
	CHECK(gres1("gpu:1(IDX:99999999999999999999)") == -1);
	CHECK(gres1("shard:1(1/0)") == -1);
	CHECK(gres1("shard:1(x)") == -1);

	/* JSON: one string per node of "nodes", in Slurm's order; the
	 * name's forged words are a JSON string and change nothing. */
	gres_job(&job, "gpu[01-03]");
	t = fixture("slurm-gres/synth-2311.json");
	CHECK_INT(sched_gres_json(t, &job), 0);
	CHECK(gres_of(&job, "gpu01") == 0x3);
	CHECK(gres_of(&job, "gpu02") == 0x5);
	CHECK(gres_of(&job, "gpu03") == 0xa);
	free(t);
	sched_job_free(&job);
	/* A node of the job the record does not name: none there. */
	gres_job(&job, "gpu[01-04]");
	t = fixture("slurm-gres/synth-2311.json");
	CHECK_INT(sched_gres_json(t, &job), 0);
	CHECK(gres_of(&job, "gpu04") == 0);
	free(t);
	sched_job_free(&job);
	/* Slurm 22.05's empty list, or no jobs: not said. */
	gres_job(&job, "gpu01");
	CHECK_INT(sched_gres_json("{\"jobs\":[{\"nodes\":\"gpu01\","
	    "\"gres_detail\":[]}]}", &job), -1);
	CHECK(job.gpus == NULL);
	CHECK_INT(sched_gres_json("{\"jobs\":[]}", &job), -1);
	CHECK_INT(sched_gres_json("not json", &job), -1);
	CHECK(job.gpus == NULL);
	/* Two records on one node (an array's tasks): the union; one
	 * unknown makes it unknown. */
	CHECK_INT(sched_gres_json("{\"jobs\":[{\"nodes\":\"gpu01\","
	    "\"gres_detail\":[\"gpu:1(IDX:1)\"]},{\"nodes\":\"gpu01\","
	    "\"gres_detail\":[\"gpu:1(IDX:3)\"]}]}", &job), 0);
	CHECK(gres_of(&job, "gpu01") == 0xa);
	CHECK_INT(sched_gres_json("{\"jobs\":[{\"nodes\":\"gpu01\","
	    "\"gres_detail\":[\"gpu(CNT:1)\"]},{\"nodes\":\"gpu01\","
	    "\"gres_detail\":[\"gpu:1(IDX:3)\"]}]}", &job), 0);
	CHECK(gres_of(&job, "gpu01") == -1);
	/* Fewer strings than nodes: the others unknown. */
	CHECK_INT(sched_gres_json("{\"jobs\":[{\"nodes\":\"gpu[01-02]\","
	    "\"gres_detail\":[\"gpu:1(IDX:1)\"]}]}", &job), 0);
	CHECK(gres_of(&job, "gpu01") == 0x2);
	sched_job_free(&job);
	gres_job(&job, "gpu[01-02]");
	CHECK_INT(sched_gres_json("{\"jobs\":[{\"nodes\":\"gpu[01-02]\","
	    "\"gres_detail\":[\"gpu:1(IDX:1)\"]}]}", &job), 0);
	CHECK(gres_of(&job, "gpu02") == -1);
	sched_job_free(&job);

	/* 22.05's -o text: node groups; a node without GRES has none. */
	gres_job(&job, "gpu[01-04]");
	t = fixture("slurm-gres/synth-2205-o-d-groups.txt");
	CHECK_INT(sched_gres_text(t, &job), 0);
	CHECK(gres_of(&job, "gpu01") == 0x3);
	CHECK(gres_of(&job, "gpu02") == 0x3);
	CHECK(gres_of(&job, "gpu03") == 0x8);
	CHECK(gres_of(&job, "gpu04") == 0);
	free(t);
	sched_job_free(&job);
	/* The lab's Slurm 22.05.8, real: job B took GPU 1 where job A held
	 * GPU 0 (node1-2), GPU 0 elsewhere; groups 3 blanks apart. */
	gres_job(&job, "node[1-4]");
	t = fixture("slurm-gres/lab-2205-o-d.txt");
	CHECK_INT(sched_gres_text(t, &job), 0);
	CHECK(gres_of(&job, "node1") == 0x2 && gres_of(&job, "node2") == 0x2);
	CHECK(gres_of(&job, "node3") == 0x1 && gres_of(&job, "node4") == 0x1);
	free(t);
	sched_job_free(&job);
	/* A name that forges a GRES record makes two JOB_GRES words: the
	 * record is not used at all. */
	gres_job(&job, "gpu01");
	t = fixture("slurm-gres/synth-2205-o-d-forged.txt");
	CHECK_INT(sched_gres_text(t, &job), -1);
	CHECK(job.gpus == NULL);
	free(t);
	/* Two records (a name with a newline, or a het job): not used. */
	CHECK_INT(sched_gres_text("JobId=1 JobName=a JOB_GRES=gpu:1 "
	    "Nodes=gpu01 CPU_IDs=0 Mem=0 GRES=gpu:1(IDX:0) MinCPUsNode=1\n"
	    "JobId=1 JobName=b MinCPUsNode=1\n", &job), -1);
	/* No JOB_GRES (no -d), or no end word. */
	CHECK_INT(sched_gres_text("JobId=1 JobName=a MinCPUsNode=1\n", &job),
	    -1);
	CHECK_INT(sched_gres_text("JobId=1 JOB_GRES=gpu:1 Nodes=gpu01 "
	    "GRES=gpu:1(IDX:0)\n", &job), -1);
	CHECK(job.gpus == NULL);
	sched_job_free(&job);
	/* The scheduler registry: Slurm says, the others cannot. */
	CHECK(sched_slurm.gpus != NULL);
	CHECK(sched_pbs.gpus == NULL && sched_oar.gpus == NULL &&
	    sched_flux.gpus == NULL && sched_lsf.gpus == NULL);
}

static void
test_slurm_minmem(void)
{
	struct job	job;
	char		err[256];

	/* The lab's memhog: --mem=330M, 4 nodes, one CPU each. */
	CHECK_INT(parse(&sched_slurm, "slurm/lab-memhog.txt", "14", &job, err,
	    sizeof(err)), SCHED_OK);
	CHECK(job.mem == 4 * (330ULL << 20));
	sched_job_free(&job);
	/* 4 CPUs on 2 nodes: 330M per node or per CPU cannot be told. */
	CHECK_INT(parse(&sched_slurm, "slurm/percpu.txt", "15", &job, err,
	    sizeof(err)), SCHED_OK);
	CHECK(job.mem == 0);
	sched_job_free(&job);
	/* tres-alloc's mem= wins. */
	CHECK(slurm_mem_of("2", "cpu=2,mem=1000M,node=2", "330M") ==
	    1000ULL << 20);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "330M") == 2 * (330ULL << 20));
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "2.50G") ==
	    2 * (2560ULL << 20));
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "4G") == 8ULL << 30);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "1T") == 2ULL << 40);
	/* Nothing asked, absent, or per CPU with 2 CPUs a node: 0. */
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "0") == 0);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "") == 0);
	CHECK(slurm_mem_of("2", "N/A", "N/A") == 0);
	CHECK(slurm_mem_of("4", "cpu=4,node=2", "330M") == 0);
	CHECK(slurm_mem_of("N/A", "cpu=2,node=2", "330M") == 0);
	/* Hostile or out-of-range values are refused, the record kept. */
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "330M;rm") == 0);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "-330M") == 0);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "0x10M") == 0);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "1e9M") == 0);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "16.00?") == 0);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "99999999999999M") == 0);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "999999P") == 0);
	CHECK(slurm_mem_of("2", "cpu=2,node=2", "330M\033[2J") == 0);
}

/* Outputs of the lab's Slurm 22.05 (squeue -O, '|' after each field). */
static void
test_slurm_lab(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_slurm, "slurm/lab-array.txt", "3", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "node[2-3]", __LINE__);
	CHECK_INT(job.ntasks, 3);
	CHECK_INT(job.time_limit, 365 * 86400);
	CHECK_INT(job.elapsed, 3);
	/* Every running task's allocation, summed. */
	CHECK_INT(job.cpus, 3);
	CHECK(job.mem == 1500ULL << 20);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_slurm, "slurm/lab-array.txt", "3_0", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "node2", __LINE__);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_slurm, "slurm/lab-array.txt", "3_5", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "node3", __LINE__);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_slurm, "slurm/lab-het-pending.txt", "4+1",
	    &job, err, sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job 4+1 is pending (Resources)");
	sched_job_free(&job);
	CHECK_INT(parse(&sched_slurm, "slurm/lab-done.txt", "1", &job, err,
	    sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job 1 has finished (COMPLETED)");
	CHECK_STR(job.name, "done job");
	sched_job_free(&job);
}

static void
test_slurm_array_het(void)
{
	struct job	job;
	char		err[256];

	/* The whole array: the running tasks' nodes. */
	CHECK_INT(parse(&sched_slurm, "slurm/array.txt", "200", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "cn[01-03]", __LINE__);
	CHECK_INT(job.ntasks, 6);
	CHECK_INT(job.state, JOB_RUNNING);
	CHECK_INT(job.time_limit, 86400);
	CHECK_INT(job.elapsed, 600);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/array.txt", "200_2", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "cn[02-03]", __LINE__);
	CHECK_INT(job.ntasks, 4);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/array.txt", "200_4", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job 200_4 is pending (JobArrayTaskLimit)");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/array.txt", "200_7", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/array.txt", "200_6", &job, err,
	    sizeof(err)), SCHED_ENOJOB);
	sched_job_free(&job);

	/* A het job: every component; one component. */
	CHECK_INT(parse(&sched_slurm, "slurm/het.txt", "300", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "cpu[001-004],gpu[01-02]", __LINE__);
	CHECK_INT(job.ntasks, 130);
	CHECK_STR(job.name, "coupled");
	CHECK_INT(job.time_limit, 7200);
	CHECK_INT(job.elapsed, 3723);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/het.txt", "300+1", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "cpu[001-004]", __LINE__);
	CHECK_INT(job.ntasks, 128);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/het.txt", "300+0", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "gpu[01-02]", __LINE__);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_slurm, "slurm/het.txt", "300+2", &job, err,
	    sizeof(err)), SCHED_ENOJOB);
	sched_job_free(&job);

	/* Component 301 asked for by its own id. */
	CHECK_INT(parse(&sched_slurm, "slurm/het.txt", "301", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "cpu[001-004]", __LINE__);
	sched_job_free(&job);
}

static void
test_pbs(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_pbs, "pbs/running.txt", "1234.pbs01", &job,
	    err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "n[001-002]", __LINE__);
	CHECK_INT(slots_of(&job, "n001"), 2);
	CHECK_INT(slots_of(&job, "n002"), 2);
	CHECK_INT(job.ntasks, 4);
	CHECK_STR(job.user, "alice");
	CHECK_INT(job.uid_known, 0);
	CHECK_STR(job.name, "cfd_run");
	CHECK_STR(job.state_name, "R");
	CHECK_INT(job.time_limit, 7200);
	CHECK_INT(job.elapsed, 930);
	CHECK_INT(job.cpus, 4);
	CHECK(job.mem == 4ULL << 30);
	CHECK_STR(job.partition, "workq");
	sched_job_free(&job);

	/* Without the server part. */
	CHECK_INT(parse(&sched_pbs, "pbs/running.txt", "1234", &job, err,
	    sizeof(err)), SCHED_OK);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/running.txt", "1234.other", &job,
	    err, sizeof(err)), SCHED_ENOJOB);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/running.txt", "123", &job, err,
	    sizeof(err)), SCHED_ENOJOB);
	sched_job_free(&job);

	/* A comment continued over a tab-indented line. */
	CHECK_INT(parse(&sched_pbs, "pbs/queued.txt", "1240.pbs01", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job 1240.pbs01 is pending (Not Running: Insufficient "
	    "amount of resource: ncpus (R: 64 A: 32 T: 32))");
	sched_job_free(&job);

	/* Torque: one entry per slot, an exec_host over two lines. */
	CHECK_INT(parse(&sched_pbs, "pbs/torque-running.txt",
	    "5678.torque-srv.cluster", &job, err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "node[01-03]", __LINE__);
	CHECK_INT(slots_of(&job, "node01"), 4);
	CHECK_INT(slots_of(&job, "node02"), 4);
	CHECK_INT(slots_of(&job, "node03"), 4);
	CHECK_INT(job.ntasks, 12);
	CHECK_STR(job.user, "bob");
	CHECK_INT(job.time_limit, 3600);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_pbs, "pbs/torque-completed.txt", "5600", &job,
	    err, sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job 5600 has finished (C)");
	sched_job_free(&job);

	/* An array: the parent and its running subjobs. */
	CHECK_INT(parse(&sched_pbs, "pbs/array.txt", "500[].pbs01", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "c[1-2]", __LINE__);
	CHECK_INT(job.ntasks, 8);
	CHECK_STR(job.user, "carol");
	CHECK_INT(job.time_limit, 1800);
	CHECK_INT(job.elapsed, 60);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/array.txt", "500[]", &job, err,
	    sizeof(err)), SCHED_OK);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/array.txt", "500[2].pbs01", &job,
	    err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "c2", __LINE__);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/array.txt", "500[3].pbs01", &job,
	    err, sizeof(err)), SCHED_EPENDING);
	sched_job_free(&job);
}

static void
test_lsf(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_lsf, "lsf/running.json", "4711", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "hpc-n[01-02]", __LINE__);
	CHECK_INT(slots_of(&job, "hpc-n01"), 4);
	CHECK_INT(job.ntasks, 8);
	CHECK_STR(job.user, "dave");
	CHECK_STR(job.name, "wrf \"big\" run");
	CHECK_STR(job.state_name, "RUN");
	CHECK_INT(job.time_limit, 86400);
	CHECK_INT(job.elapsed, 16038);
	sched_job_free(&job);

	/* The -noheader delimiter='|' text form. */
	CHECK_INT(parse(&sched_lsf, "lsf/running.txt", "4711", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "hpc-n[01-02]", __LINE__);
	CHECK_INT(job.ntasks, 8);
	CHECK_STR(job.name, "wrf|big|run");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_lsf, "lsf/pending.json", "4712", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job 4712 is pending (New job is waiting for "
	    "scheduling)");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_lsf, "lsf/done.json", "4700", &job, err,
	    sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job 4700 has finished (DONE)");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_lsf, "lsf/array.json", "4800", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "hpc-n[10-11]", __LINE__);
	CHECK_INT(job.ntasks, 4);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_lsf, "lsf/array.json", "4800[2]", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "hpc-n11", __LINE__);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_lsf, "lsf/array.json", "4800[3]", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_lsf, "lsf/notfound.json", "9999", &job, err,
	    sizeof(err)), SCHED_ENOJOB);
	CHECK_STR(err, "job 9999: no such job");
	sched_job_free(&job);
}

static void
test_oar(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_oar, "oar/running.json", "5150", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "grisou-[1-2].nancy.grid5000.fr", __LINE__);
	CHECK_STR(job.user, "frank");
	CHECK_STR(job.name, "mpi-bench");
	CHECK_STR(job.state_name, "Running");
	CHECK_INT(job.ntasks, 8);
	CHECK_INT(job.time_limit, 7200);
	CHECK(job.elapsed > 0);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_oar, "oar/waiting.json", "5151", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job 5151 is pending (Waiting, Cannot find enough "
	    "resources which fit for the job 5151)");
	CHECK_STR(job.name, "");
	CHECK_INT(job.time_limit, 3600);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_oar, "oar/terminated.json", "5100", &job, err,
	    sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job 5100 has finished (Terminated)");
	CHECK_INT(job.time_limit, 3600);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_oar, "oar/unknown.json", "5", &job, err,
	    sizeof(err)), SCHED_ENOJOB);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_oar, "oar/running.json", "5", &job, err,
	    sizeof(err)), SCHED_ENOJOB);
	sched_job_free(&job);
}

static void
test_flux(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_flux, "flux/running.txt", "fA1b2C3", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "node[1-2]", __LINE__);
	CHECK_STR(job.user, "grace");
	CHECK_INT(job.uid, 1001);
	CHECK_INT(job.uid_known, 1);
	CHECK_STR(job.name, "hello world");
	CHECK_INT(job.ntasks, 8);
	CHECK_INT(job.elapsed, 123);
	CHECK_INT(job.time_limit, 3600);
	sched_job_free(&job);

	/* 'f' and U+0192 name the same job. */
	CHECK_INT(parse(&sched_flux, "flux/running.txt", "\xc6\x92" "A1b2C3",
	    &job, err, sizeof(err)), SCHED_OK);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_flux, "flux/running-utf8.txt", "fD4e5F6", &job,
	    err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "node9", __LINE__);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_flux, "flux/pending.txt", "fB2c3D4", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job fB2c3D4 is pending");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_flux, "flux/completed.txt", "fC3d4E5", &job,
	    err, sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job fC3d4E5 has finished (CD)");
	CHECK_STR(job.name, "done|with|bars");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_flux, "flux/running.txt", "fZZZ", &job, err,
	    sizeof(err)), SCHED_ENOJOB);
	sched_job_free(&job);
}

/*
 * A hostile job name for every other scheduler: words of the scheduler's
 * own output format, JSON, escape sequences.  The job stays the one the
 * scheduler describes; forged lines are refused; nothing keeps a control
 * byte.
 */
static void
test_hostile_names(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_pbs, "pbs/hostile.txt", "1234.pbs01", &job,
	    err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "n[001-002]", __LINE__);
	CHECK_STR(job.user, "alice");
	CHECK_STR(job.state_name, "R");
	CHECK(strncmp(job.name, "x job_state = F exec_host = evil", 32) == 0);
	CHECK(all_printable(job.name));
	sched_job_free(&job);
	/* A name with newlines forges attribute lines: refused. */
	CHECK_INT(parse(&sched_pbs, "pbs/hostile-newline.txt", "1234.pbs01",
	    &job, err, sizeof(err)), SCHED_EPARSE);
	CHECK(strstr(err, "twice") != NULL);
	sched_job_free(&job);
	/* ... or a whole record: refused too. */
	CHECK_INT(parse(&sched_pbs, "pbs/hostile-record.txt", "1234.pbs01",
	    &job, err, sizeof(err)), SCHED_EPARSE);
	CHECK(strstr(err, "more than one record") != NULL);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_lsf, "lsf/hostile.json", "4711", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "hpc-n[01-02]", __LINE__);
	CHECK_STR(job.user, "dave");
	CHECK_STR(job.state_name, "RUN");
	CHECK(strncmp(job.name, "x\",\"USER\":\"root\"", 16) == 0);
	CHECK(all_printable(job.name));
	sched_job_free(&job);
	CHECK_INT(parse(&sched_lsf, "lsf/hostile.txt", "4711", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "hpc-n[01-02]", __LINE__);
	CHECK_STR(job.user, "dave");
	CHECK(strncmp(job.name, "x|0|root|DONE|4*evil|", 21) == 0);
	CHECK(all_printable(job.name));
	sched_job_free(&job);

	CHECK_INT(parse(&sched_oar, "oar/hostile.json", "5150", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "grisou-[1-2].nancy.grid5000.fr", __LINE__);
	CHECK_STR(job.user, "frank");
	CHECK_STR(job.state_name, "Running");
	CHECK(strstr(job.name, "\"owner\" : \"root\"") != NULL);
	CHECK(all_printable(job.name));
	sched_job_free(&job);

	CHECK_INT(parse(&sched_flux, "flux/hostile.txt", "fA1b2C3", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "node[1-2]", __LINE__);
	CHECK_STR(job.user, "grace");
	CHECK_INT(job.uid, 1001);
	CHECK_INT(job.state, JOB_RUNNING);
	CHECK(strncmp(job.name, "x|0|root|CD|", 12) == 0);
	CHECK(all_printable(job.name));
	sched_job_free(&job);

	/* A user or record id of the wrong shape is refused, cleanly. */
	sched_job_init(&job);
	CHECK_INT(sched_flux.parse("fA1b2C3|0|\033[2J|R|1|1.0|0.0|n1|y\n",
	    "fA1b2C3", &job, err, sizeof(err)), SCHED_EPARSE);
	CHECK(strstr(err, "invalid user name") != NULL);
	CHECK(all_printable(err));
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_oar.parse("{\"7\":{\"Job_Id\":\"7;x\",\"owner\":"
	    "\"a\",\"state\":\"Running\"}}", "7", &job, err, sizeof(err)),
	    SCHED_EPARSE);
	CHECK(strstr(err, "invalid job id") != NULL);
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_lsf.parse("{\"RECORDS\":[{\"JOBID\":\"4711\","
	    "\"USER\":\"-rf\",\"STAT\":\"RUN\",\"EXEC_HOST\":\"n1\"}]}",
	    "4711", &job, err, sizeof(err)), SCHED_EPARSE);
	sched_job_free(&job);
}

static void
test_hostlist_source(void)
{
	struct job	job;
	char		err[256];

	sched_job_init(&job);
	CHECK_INT(sched_from_hostlist("node[1-3],gpu1", &job, err,
	    sizeof(err)), SCHED_OK);
	CHECK_INT(hostlist_count(job.nodes), 4);
	CHECK_STR(job.nodelist, "gpu1,node[1-3]");
	CHECK_STR(job.sched, "hostlist");
	CHECK_STR(job.user, "");
	CHECK(job.slots == NULL);
	sched_job_free(&job);

	sched_job_init(&job);
	CHECK_INT(sched_from_hostlist("node1,-oProxyCommand=x", &job, err,
	    sizeof(err)), SCHED_EINVAL);
	CHECK(strstr(err, "invalid host name") != NULL);
	sched_job_free(&job);

	sched_job_init(&job);
	CHECK_INT(sched_from_hostlist("node[1-3", &job, err, sizeof(err)),
	    SCHED_EINVAL);
	CHECK(strstr(err, "missing ']'") != NULL);
	sched_job_free(&job);

	sched_job_init(&job);
	CHECK_INT(sched_from_hostlist("n[1-2000000]", &job, err, sizeof(err)),
	    SCHED_EINVAL);
	sched_job_free(&job);
}

static void
test_hostfile(void)
{
	struct job	job;
	char		err[512], path[8192];

	sched_job_init(&job);
	snprintf(path, sizeof(path), "%s/hostfile/pbs_nodefile", fixdir);
	CHECK_INT(sched_from_hostfile(path, &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.nodelist, "n[01-02]");
	CHECK_INT(slots_of(&job, "n01"), 4);
	CHECK_INT(slots_of(&job, "n02"), 4);
	CHECK_INT(job.ntasks, 8);
	sched_job_free(&job);

	sched_job_init(&job);
	snprintf(path, sizeof(path), "%s/hostfile/mixed", fixdir);
	CHECK_INT(sched_from_hostfile(path, &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.nodelist, "gpu[1-2],node[01-02,07]");
	CHECK_INT(slots_of(&job, "node01"), 5);
	CHECK_INT(slots_of(&job, "node02"), 2);
	CHECK_INT(slots_of(&job, "node07"), 1);
	CHECK_INT(slots_of(&job, "gpu1"), 0);
	CHECK_INT(job.ntasks, 8);
	sched_job_free(&job);

	sched_job_init(&job);
	snprintf(path, sizeof(path), "%s/hostfile/bad", fixdir);
	CHECK_INT(sched_from_hostfile(path, &job, err, sizeof(err)),
	    SCHED_EINVAL);
	CHECK(strstr(err, "bad:2: invalid host name") != NULL);
	sched_job_free(&job);

	sched_job_init(&job);
	snprintf(path, sizeof(path), "%s/hostfile/empty", fixdir);
	CHECK_INT(sched_from_hostfile(path, &job, err, sizeof(err)),
	    SCHED_EINVAL);
	CHECK(strstr(err, "no host names") != NULL);
	sched_job_free(&job);

	sched_job_init(&job);
	CHECK_INT(sched_from_hostfile("/nonexistent/hosts", &job, err,
	    sizeof(err)), SCHED_EINVAL);
	CHECK(strstr(err, "No such file") != NULL);
	sched_job_free(&job);

	sched_job_init(&job);
	CHECK_INT(sched_from_hostfile(fixdir, &job, err, sizeof(err)),
	    SCHED_EINVAL);
	sched_job_free(&job);
}

/* Clear every variable sched_from_env looks at. */
static void
clear_job_env(void)
{
	static const char *vars[] = {
		"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NODELIST",
		"SLURM_NODELIST", "SLURM_NTASKS", "SLURM_NPROCS", "PBS_JOBID",
		"PBS_NODEFILE", "LSB_JOBID", "LSB_MCPU_HOSTS", "LSB_HOSTS",
		"OAR_JOB_ID", "OAR_JOBID", "OAR_NODEFILE", "OAR_NODE_FILE",
		"OAR_FILE_NODES", "FLUX_JOB_ID",
	};
	size_t	i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static void
test_may_watch(void)
{
	struct job	 job;
	struct passwd	*pw;
	struct group	*gr;
	char		 err[256] = "";
	uid_t		 other;

	sched_job_init(&job);
	sched_copy(job.id, sizeof(job.id), "123");
	sched_copy(job.user, sizeof(job.user), "alice");
	job.uid = 1000;
	job.uid_known = 1;
	unsetenv("JOBTOP_ADMIN_GROUP");
	CHECK_INT(sched_may_watch(&job, 0, err, sizeof(err)), 1);
	CHECK_INT(sched_may_watch(&job, 1000, err, sizeof(err)), 1);
	CHECK_INT(sched_may_watch(&job, 1001, err, sizeof(err)), 0);
	CHECK_STR(err, "job 123 belongs to alice; only its owner or an admin "
	    "can watch it");

	/*
	 * Admins: members (here: primary group) of the group named in the
	 * configuration file, which counts only when root owns it and no
	 * one else may write it; the environment names no admins.
	 */
	if ((pw = getpwnam("nobody")) != NULL && pw->pw_uid != 1000 &&
	    (gr = getgrgid(pw->pw_gid)) != NULL) {
		char	conf[] = "/tmp/jobtop-conf.XXXXXX", group[256];
		FILE	*f;
		int	 fd;

		other = pw->pw_uid;
		sched_set_conf("/nonexistent/jobtop.conf");
		CHECK_INT(sched_may_watch(&job, other, err, sizeof(err)), 0);
		setenv("JOBTOP_ADMIN_GROUP", gr->gr_name, 1);
		CHECK_INT(sched_may_watch(&job, other, err, sizeof(err)), 0);
		unsetenv("JOBTOP_ADMIN_GROUP");
		CHECK((fd = mkstemp(conf)) != -1);
		CHECK((f = fdopen(fd, "w")) != NULL);
		fprintf(f, "# site admins\n  admin-group %s\n", gr->gr_name);
		fclose(f);
		sched_set_conf(conf);
		if (getuid() == 0) {
			CHECK_INT(sched_admin_group(conf, group,
			    sizeof(group)), 1);
			CHECK_STR(group, gr->gr_name);
			CHECK_INT(sched_may_watch(&job, other, err,
			    sizeof(err)), 1);
			/* Writable by the group: ignored. */
			chmod(conf, 0664);
			CHECK_INT(sched_may_watch(&job, other, err,
			    sizeof(err)), 0);
			chmod(conf, 0644);
			/* Not root's: ignored. */
			CHECK(chown(conf, 1, (gid_t)-1) == 0);
			CHECK_INT(sched_admin_group(conf, group,
			    sizeof(group)), 0);
			CHECK(chown(conf, 0, (gid_t)-1) == 0);
		} else
			CHECK_INT(sched_admin_group(conf, group,
			    sizeof(group)), 0);
		f = fopen(conf, "w");
		CHECK(f != NULL);
		fprintf(f, "admin-group no-such-group-jt\n");
		fclose(f);
		CHECK_INT(sched_may_watch(&job, other, err, sizeof(err)), 0);
		f = fopen(conf, "w");
		CHECK(f != NULL);
		fprintf(f, "admin-group bad;group\n");
		fclose(f);
		CHECK_INT(sched_admin_group(conf, group, sizeof(group)), 0);
		CHECK_INT(sched_may_watch(&job, other, err, sizeof(err)), 0);
		unlink(conf);
		sched_set_conf("/nonexistent/jobtop.conf");
	}

	/* Without a uid, the user name decides. */
	job.uid_known = 0;
	if ((pw = getpwuid(getuid())) != NULL) {
		sched_copy(job.user, sizeof(job.user), pw->pw_name);
		CHECK_INT(sched_may_watch(&job, getuid(), err, sizeof(err)),
		    1);
	}
	sched_copy(job.user, sizeof(job.user), "alice");
	CHECK_INT(sched_may_watch(&job, 4242, err, sizeof(err)), 0);

	/* A job whose owner nobody said: only root and admins (F5). */
	job.user[0] = '\0';
	CHECK_INT(sched_may_watch(&job, 4242, err, sizeof(err)), 0);
	CHECK(strstr(err, "did not say who owns it") != NULL);
	CHECK_INT(sched_may_watch(&job, 0, err, sizeof(err)), 1);
	/* A hostlist names no job and has no owner: anyone's. */
	job.id[0] = '\0';
	CHECK_INT(sched_may_watch(&job, 4242, err, sizeof(err)), 1);
}

static void
test_validate(void)
{
	char	buf[300];

	CHECK(validate_hostname("node01"));
	CHECK(validate_hostname("n1.cluster.example.org"));
	CHECK(validate_hostname("a"));
	CHECK(validate_hostname("1node"));
	CHECK(validate_hostname("10.0.0.1"));
	CHECK(validate_hostname("rack1-node-01"));
	memset(buf, 'a', 63);
	buf[63] = '\0';
	CHECK(validate_hostname(buf));
	memset(buf, 'a', 64);
	buf[64] = '\0';
	CHECK(!validate_hostname(buf));
	/* 4 labels of 63 and one of 1: 253 bytes, the most. */
	snprintf(buf, sizeof(buf), "%.63s.%.63s.%.63s.%.61s",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	CHECK_INT(strlen(buf), 253);
	CHECK(validate_hostname(buf));
	strcat(buf, "a");
	CHECK(!validate_hostname(buf));
	CHECK(!validate_hostname(""));
	CHECK(!validate_hostname(NULL));
	CHECK(!validate_hostname("-oProxyCommand=x"));
	CHECK(!validate_hostname("node-"));
	/* '_' as sites use it; still no leading or trailing '-'. */
	CHECK(validate_hostname("rack0_blade41"));
	CHECK(validate_hostname("_a.b_"));
	CHECK(validate_hostname("a_-b"));
	CHECK(!validate_hostname("_.-a"));
	CHECK(!validate_hostname("a_b-"));
	CHECK(!validate_hostname("a_b\n"));
	CHECK(!validate_hostname("a_b c"));
	CHECK(!validate_hostname("no de"));
	CHECK(!validate_hostname("node;ls"));
	CHECK(!validate_hostname("node$(id)"));
	CHECK(!validate_hostname("node`id`"));
	CHECK(!validate_hostname("a..b"));
	CHECK(!validate_hostname(".a"));
	CHECK(!validate_hostname("node1\n"));
	CHECK(validate_hostname("node_1"));
	CHECK(!validate_hostname("user@node"));
	CHECK(!validate_hostname("node:22"));
	CHECK(!validate_hostname("n[1-2]"));

	CHECK(validate_jobid("123", VJ_SLURM));
	CHECK(validate_jobid("123_4", VJ_SLURM));
	CHECK(validate_jobid("123+1", VJ_SLURM));
	CHECK(!validate_jobid("123_", VJ_SLURM));
	CHECK(!validate_jobid("123_4+1", VJ_SLURM));
	CHECK(!validate_jobid("12345678901", VJ_SLURM));
	CHECK(!validate_jobid("123\n", VJ_SLURM));
	CHECK(!validate_jobid("-1", VJ_SLURM));
	CHECK(validate_jobid("123.server", VJ_PBS));
	CHECK(validate_jobid("123[].pbs01.example.org", VJ_PBS));
	CHECK(validate_jobid("123[4].pbs01", VJ_PBS));
	CHECK(validate_jobid("123", VJ_PBS));
	CHECK(!validate_jobid("123.server;id", VJ_PBS));
	CHECK(!validate_jobid("123.-x", VJ_PBS));
	CHECK(validate_jobid("123", VJ_LSF));
	CHECK(validate_jobid("123[4]", VJ_LSF));
	CHECK(!validate_jobid("123[]", VJ_LSF));
	CHECK(validate_jobid("123", VJ_OAR));
	CHECK(!validate_jobid("123_4", VJ_OAR));
	CHECK(validate_jobid("fA1b2C3", VJ_FLUX));
	CHECK(validate_jobid("\xc6\x92" "A1b2C3", VJ_FLUX));
	CHECK(validate_jobid("123456789", VJ_FLUX));
	CHECK(!validate_jobid("f0OIl", VJ_FLUX));
	CHECK(!validate_jobid("f", VJ_FLUX));
	CHECK(!validate_jobid("g123", VJ_FLUX));
	CHECK(validate_jobid("123_4", VJ_ANY));
	CHECK(validate_jobid("fA1", VJ_ANY));
	CHECK(!validate_jobid("123;rm", VJ_ANY));
	CHECK(!validate_jobid("", VJ_ANY));
	CHECK(!validate_jobid("$(id)", VJ_ANY));

	CHECK(validate_username("alice"));
	CHECK(validate_username("hpc-admins"));
	CHECK(validate_username("_svc.x"));
	CHECK(!validate_username("-x"));
	CHECK(!validate_username("a b"));
	CHECK(!validate_username(""));

	/* Patterns are compiled again after a cleanup. */
	validate_cleanup();
	CHECK(validate_hostname("node01"));
}

static void
test_json(void)
{
	struct sched_json	*j, *a;

	j = sched_json_parse(" {\"a\": [1, -2.5e1, true, false, null, "
	    "\"x\\u00e9\\\"\\n\\ud83d\\ude00\"], \"b\": {\"c\": \"d\"}} ");
	CHECK(j != NULL);
	if (j != NULL) {
		a = sched_json_get(j, "a");
		CHECK(a != NULL && a->type == SJ_ARRAY);
		if (a != NULL && a->child != NULL) {
			CHECK_STR(a->child->str, "1");
			CHECK_NEAR(a->child->next->num, -25.0, 1e-9);
			CHECK_INT(a->child->next->next->type, SJ_BOOL);
			CHECK_STR(a->child->next->next->next->next->next->str,
			    "x\xc3\xa9\"\n\xf0\x9f\x98\x80");
		}
		CHECK_STR(sched_json_str(sched_json_get(j, "b"), "c"), "d");
		CHECK(sched_json_get(j, "zz") == NULL);
		CHECK(sched_json_str(j, "a") == NULL);
		sched_json_free(j);
	}
	CHECK(sched_json_parse("") == NULL);
	CHECK(sched_json_parse("{") == NULL);
	CHECK(sched_json_parse("{\"a\":1,}") == NULL);
	CHECK(sched_json_parse("{\"a\" 1}") == NULL);
	CHECK(sched_json_parse("[1] x") == NULL);
	CHECK(sched_json_parse("\"abc") == NULL);
	CHECK(sched_json_parse("\"\\u0000\"") == NULL);
	CHECK(sched_json_parse("\"\\q\"") == NULL);
	CHECK(sched_json_parse("[\"a\x01\"]") == NULL);
	{
		char	deep[300];

		memset(deep, '[', 200);
		deep[200] = '\0';
		CHECK(sched_json_parse(deep) == NULL);
	}
}

static void
test_duration(void)
{
	CHECK_INT(sched_parse_duration("00:15:00"), 900);
	CHECK_INT(sched_parse_duration("1-02:03:04"), 93784);
	CHECK_INT(sched_parse_duration("05:30"), 330);
	CHECK_INT(sched_parse_duration("10"), 600);
	CHECK_INT(sched_parse_duration("2-03"), 2 * 86400 + 3 * 3600);
	CHECK_INT(sched_parse_duration("UNLIMITED"), JOB_TIME_UNLIMITED);
	CHECK_INT(sched_parse_duration("N/A"), JOB_TIME_UNKNOWN);
	CHECK_INT(sched_parse_duration("Partition_Limit"), JOB_TIME_UNKNOWN);
	CHECK_INT(sched_parse_duration(""), JOB_TIME_UNKNOWN);
	CHECK_INT(sched_parse_duration(NULL), JOB_TIME_UNKNOWN);
	CHECK_INT(sched_parse_duration("1:2:3:4"), JOB_TIME_UNKNOWN);
	CHECK_STR(sched_state_name(JOB_CANCELLED), "CANCELLED");
}

static void
test_registry(void)
{
	const struct sched	*s;
	char			 err[256];
	size_t			 i;

	for (i = 0; (s = sched_get(i)) != NULL; i++) {
		/* Complete: nothing falls through to another scheduler's
		 * query (a sixth one without its own "my jobs" argv was
		 * once asked `flux jobs`). */
		CHECK(s->name != NULL && s->command != NULL &&
		    (s->resolve != NULL || s->query_argv != NULL) &&
		    s->parse != NULL && s->query_what != NULL);
		CHECK(s->jobvars != NULL && s->jobvars[0].name != NULL);
		CHECK(s->mine_argv != NULL &&
		    strcmp(s->mine_argv[0], s->command) == 0);
		CHECK(s->query_argv == NULL ||
		    strcmp(s->query_argv[0], s->command) == 0);
		CHECK(s->env.how == SCHED_ENV_QUERY ||
		    s->env.nodes[0] != NULL);
		CHECK(sched_by_name(s->name) == s);
	}
	CHECK_INT(i, 5);
	CHECK(sched_by_name("sge") == NULL);
	CHECK_INT(sched_select("sge", "1", &s, err, sizeof(err)),
	    SCHED_ENOSCHED);
	CHECK(strstr(err, "unknown scheduler") != NULL);
	CHECK_INT(sched_select("slurm", "fA1b", &s, err, sizeof(err)),
	    SCHED_EINVAL);
	CHECK_INT(sched_select("flux", "fA1b", &s, err, sizeof(err)),
	    SCHED_OK);
	CHECK(s == &sched_flux);
	CHECK_INT(sched_select(NULL, "1;reboot", &s, err, sizeof(err)),
	    SCHED_EINVAL);
}

/* Write an executable script into the fake bin directory. */
static void
fake_command(const char *name, const char *body)
{
	char	 path[8192];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", bindir, name);
	if ((f = fopen(path, "w")) == NULL) {
		harness_check(0, __FILE__, __LINE__, "%s: %s", path,
		    strerror(errno));
		return;
	}
	fprintf(f, "#!/bin/sh\nPATH=/usr/bin:/bin\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

/* A fake command: records its arguments, prints $JT_OUT and $JT_ERR. */
#define FAKE_BODY							\
	"printf '%s\\n' \"$@\" > \"$JT_ARGS\"\n"			\
	"echo \"LC_ALL=$LC_ALL\" >> \"$JT_ARGS\"\n"			\
	"[ -n \"$JT_ERR\" ] && cat \"$JT_ERR\" >&2\n"			\
	"[ -n \"$JT_OUT\" ] && cat \"$JT_OUT\"\n"			\
	"exit ${JT_RC:-0}"

/*
 * A fake squeue: prints a fixture written with '|' (after its "sep=|"
 * line) with the separator of the -O format it was given instead.
 */
#define FAKE_SQUEUE							\
	"printf '%s\\n' \"$@\" > \"$JT_ARGS\"\n"			\
	"echo \"LC_ALL=$LC_ALL\" >> \"$JT_ARGS\"\n"			\
	"[ -n \"$JT_ERR\" ] && cat \"$JT_ERR\" >&2\n"			\
	"for a; do case $a in JobID:0*) f=$a;; esac; done\n"		\
	"s=${f#JobID:0}; s=${s%%,*}\n"					\
	"[ -n \"$JT_OUT\" ] && tail -n +2 \"$JT_OUT\" | sed \"s/|/$s/g\"\n" \
	"exit ${JT_RC:-0}"

/* Point the fake commands at fixture files. */
static void
fake_setup(const char *out, const char *errf, int rc)
{
	char	path[8192], num[16];

	if (out != NULL) {
		snprintf(path, sizeof(path), "%s/%s", fixdir, out);
		setenv("JT_OUT", path, 1);
	} else
		unsetenv("JT_OUT");
	if (errf != NULL) {
		snprintf(path, sizeof(path), "%s/%s", fixdir, errf);
		setenv("JT_ERR", path, 1);
	} else
		unsetenv("JT_ERR");
	snprintf(num, sizeof(num), "%d", rc);
	setenv("JT_RC", num, 1);
}

/* The arguments the last fake command got, one per line. */
static char *
fake_args(void)
{
	char	 buf[4096];
	FILE	*f;
	size_t	 n;

	if ((f = fopen(getenv("JT_ARGS"), "r")) == NULL)
		return strdup("");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strdup(buf);
}

/* A fresh directory of fake commands as the whole PATH. */
static void
fake_bindir(void)
{
	char	path[8192];

	snprintf(bindir, sizeof(bindir), "%s/jtsched.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(bindir) == NULL) {
		harness_check(0, __FILE__, __LINE__, "mkdtemp: %s",
		    strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/args", bindir);
	setenv("JT_ARGS", path, 1);
	setenv("PATH", bindir, 1);
}

/* Write a temporary node file; its path in path. */
static void
node_file(char *path, size_t pathsz, const char *text)
{
	FILE	*f;

	snprintf(path, pathsz, "%s/nodefile", bindir);
	if ((f = fopen(path, "w")) != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static void
test_env(void)
{
	struct job	 job;
	char		 err[512], path[8192], *oldpath;

	oldpath = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
	fake_bindir();
	clear_job_env();
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_ENOENV);
	CHECK(strstr(err, "not inside") != NULL);
	sched_job_free(&job);

	/*
	 * Review F5: the environment alone proves nothing.  No squeue, not
	 * in the job's cgroup nor under its slurmstepd: refused.
	 */
	setenv("SLURM_JOB_ID", "12", 1);
	setenv("SLURM_JOB_NODELIST", "node[1-2]", 1);
	sched_job_init(&job);
	if (getuid() != 0) {
		CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)),
		    SCHED_EPERM);
		CHECK(strstr(err, "SLURM_JOB_ID=12: cannot check that job: "
		    "squeue is not in PATH") != NULL);
	} else {
		/* Root may watch anything: the environment stands. */
		CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)),
		    SCHED_OK);
		CHECK_INT(job.uid, 0);
		CHECK_STR(job.nodelist, "node[1-2]");
	}
	sched_job_free(&job);

	/* With squeue: Slurm's owner, the variables' nodes if they are the
	 * job's. */
	fake_command("squeue", FAKE_SQUEUE);
	fake_setup("slurm/running.txt", NULL, 0);
	setenv("SLURM_NTASKS", "2", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.id, "12");
	CHECK_STR(job.sched, "slurm");
	CHECK_STR(job.nodelist, "node[1-2]");
	CHECK_INT(job.ntasks, 2);
	CHECK_STR(job.user, "jtuser");
	CHECK_INT(job.uid_known, 1);
	CHECK_INT(job.uid, 1001);
	CHECK_STR(job.name, "healthy");
	CHECK_INT(job.state, JOB_RUNNING);
	CHECK_INT(job.time_limit, 900);
	sched_job_free(&job);
	/* A node that is not the job's: refused. */
	setenv("SLURM_JOB_NODELIST", "node[1-2],mgmt1", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_EPERM);
	CHECK_STR(err, "SLURM_JOB_ID names mgmt1, which is not a node of "
	    "slurm job 12");
	sched_job_free(&job);
	/* A job Slurm does not know (refused but to root), or that is not
	 * running (refused). */
	setenv("SLURM_JOB_ID", "4242", 1);
	setenv("SLURM_JOB_NODELIST", "node1", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)),
	    getuid() == 0 ? SCHED_OK : SCHED_ENOJOB);
	sched_job_free(&job);
	fake_setup("slurm/pending.txt", NULL, 0);
	setenv("SLURM_JOB_ID", "13", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)),
	    SCHED_EPENDING);
	sched_job_free(&job);

	setenv("SLURM_JOB_ID", "42;reboot", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_EINVAL);
	sched_job_free(&job);
	unsetenv("SLURM_JOB_NODELIST");
	setenv("SLURM_JOB_ID", "42", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_ENOENV);
	sched_job_free(&job);
	clear_job_env();

	/* PBS: its nodefile's slots, qstat's owner. */
	node_file(path, sizeof(path), "n001\nn001\nn002\n");
	setenv("PBS_JOBID", "1234.pbs01", 1);
	setenv("PBS_NODEFILE", path, 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)),
	    getuid() == 0 ? SCHED_OK : SCHED_EPERM);
	sched_job_free(&job);
	fake_command("qstat", FAKE_BODY);
	fake_setup("pbs/running.txt", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.sched, "pbs");
	CHECK_STR(job.nodelist, "n[001-002]");
	CHECK_INT(job.ntasks, 3);
	CHECK_STR(job.user, "alice");
	sched_job_free(&job);
	snprintf(path, sizeof(path), "%s/hostfile/pbs_nodefile", fixdir);
	setenv("PBS_NODEFILE", path, 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_EPERM);
	sched_job_free(&job);
	clear_job_env();

	fake_command("bjobs", FAKE_BODY);
	fake_setup("lsf/running.json", NULL, 0);
	setenv("LSB_JOBID", "4711", 1);
	setenv("LSB_MCPU_HOSTS", "hpc-n01 4 hpc-n02 2", 1);
	setenv("LSB_HOSTS", "ignored", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.nodelist, "hpc-n[01-02]");
	CHECK_INT(slots_of(&job, "hpc-n01"), 4);
	CHECK_INT(job.ntasks, 6);
	CHECK_STR(job.user, "dave");
	sched_job_free(&job);
	unsetenv("LSB_MCPU_HOSTS");
	setenv("LSB_HOSTS", "hpc-n02 hpc-n02 hpc-n01", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.nodelist, "hpc-n[01-02]");
	CHECK_INT(slots_of(&job, "hpc-n02"), 2);
	sched_job_free(&job);
	setenv("LSB_HOSTS", "hpc-n03 hpc-n03 hpc-n04", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_EPERM);
	sched_job_free(&job);
	setenv("LSB_MCPU_HOSTS", "hpc-n01 four", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_EINVAL);
	sched_job_free(&job);
	clear_job_env();

	fake_command("oarstat", FAKE_BODY);
	fake_setup("oar/running.json", NULL, 0);
	node_file(path, sizeof(path), "grisou-1.nancy.grid5000.fr\n"
	    "grisou-2.nancy.grid5000.fr\n");
	setenv("OAR_JOBID", "5150", 1);
	setenv("OAR_FILE_NODES", path, 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.sched, "oar");
	CHECK_INT(hostlist_count(job.nodes), 2);
	CHECK_STR(job.user, "frank");
	sched_job_free(&job);

	/* --scheduler picks among the allocations the environment names. */
	fake_setup("slurm/running.txt", NULL, 0);
	setenv("SLURM_JOB_ID", "12", 1);
	setenv("SLURM_JOB_NODELIST", "node[1-2]", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.sched, "slurm");
	sched_job_free(&job);
	fake_setup("oar/running.json", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_from_env("oar", &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.sched, "oar");
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_from_env("pbs", &job, err, sizeof(err)),
	    SCHED_ENOENV);
	CHECK_STR(err, "no job given and not inside a pbs job; give a job "
	    "id, -w HOSTLIST or --hostfile FILE");
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_from_env("sge", &job, err, sizeof(err)),
	    SCHED_ENOSCHED);
	sched_job_free(&job);
	clear_job_env();

	if (oldpath != NULL) {
		setenv("PATH", oldpath, 1);
		free(oldpath);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", bindir);
	if (system(path) != 0)
		harness_check(0, __FILE__, __LINE__, "cleanup %s", bindir);
}

/* Slurm's cgroup, anchored at its root, is proof; a look-alike is not. */
static void
test_slurm_cgroup(void)
{
	CHECK(sched_slurm_cgroup_has_job("12:pids:/slurm/uid_1001/job_77/"
	    "step_0/task_0\n", "77", 1001));
	CHECK(sched_slurm_cgroup_has_job("3:cpu:/\n4:memory:/slurm_node2/"
	    "uid_1001/job_77/step_batch\n", "77", 1001));
	CHECK(sched_slurm_cgroup_has_job("0::/system.slice/slurmstepd.scope/"
	    "job_77/step_0/user/task_0\n", "77", 1001));
	CHECK(sched_slurm_cgroup_has_job("0::/system.slice/node3_slurmstepd."
	    "scope/job_77/step_0\n", "77", 0));
	/* Another job, another uid, a prefix of the id. */
	CHECK(!sched_slurm_cgroup_has_job("12:pids:/slurm/uid_1001/job_77/\n",
	    "7", 1001));
	CHECK(!sched_slurm_cgroup_has_job("12:pids:/slurm/uid_1001/job_77/\n",
	    "77", 1002));
	CHECK(!sched_slurm_cgroup_has_job("0::/system.slice/slurmstepd.scope/"
	    "job_778\n", "77", 0));
	/* A user's own delegated tree (review F3): not Slurm's. */
	CHECK(!sched_slurm_cgroup_has_job("0::/user.slice/user-2000.slice/"
	    "user@2000.service/app.slice/evil_slurmstepd.scope/job_77\n",
	    "77", 2000));
	CHECK(!sched_slurm_cgroup_has_job("0::/system.slice/evilslurmstepd."
	    "scope/job_77\n", "77", 0));
	CHECK(!sched_slurm_cgroup_has_job("0::/user.slice/slurm/uid_2000/"
	    "job_77\n", "77", 2000));
	CHECK(!sched_slurm_cgroup_has_job("garbage\n::\n0:x\n", "77", 0));
	CHECK(!sched_slurm_cgroup_has_job("0::/slurm/uid_0/job_\n", "", 0));
}

static void
test_run(void)
{
	struct job		 job;
	const char		*argv[8];
	char			 err[512], errtxt[256], *out, *args, path[8192];
	char			*oldpath;
	struct timespec		 t0, t1;
	const struct sched	*s;
	int			 status;
	double			 secs;

	snprintf(bindir, sizeof(bindir), "%s/jtsched.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(bindir) == NULL) {
		harness_check(0, __FILE__, __LINE__, "mkdtemp: %s",
		    strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/args", bindir);
	setenv("JT_ARGS", path, 1);
	oldpath = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
	/* Only the fake commands (they set their own PATH inside). */
	setenv("PATH", bindir, 1);
	clear_job_env();

	/* Nothing installed: no scheduler. */
	CHECK_INT(sched_select(NULL, "12", &s, err, sizeof(err)),
	    SCHED_ENOSCHED);

	fake_command("squeue", FAKE_SQUEUE);
	fake_setup("slurm/running.txt", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_resolve(NULL, "12", &job, err, sizeof(err)),
	    SCHED_OK);
	CHECK_STR(job.nodelist, "node[1-4]");
	CHECK_STR(job.sched, "slurm");
	args = fake_args();
	CHECK(strncmp(args, "-h\n-t\nall\n-j\n12\n-O\nJobID:0~jt", 29) ==
	    0);
	CHECK(strstr(args, ",Name:0~jt") != NULL);
	CHECK(strstr(args, "\nLC_ALL=C\n") != NULL);
	free(args);
	sched_job_free(&job);

	/* A het component is asked for by its job, then picked out. */
	fake_setup("slurm/het.txt", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("slurm", "300+1", &job, err, sizeof(err)),
	    SCHED_OK);
	CHECK_STR(job.nodelist, "cpu[001-004]");
	args = fake_args();
	CHECK(strncmp(args, "-h\n-t\nall\n-j\n300\n-O\n", 20) == 0);
	free(args);
	sched_job_free(&job);

	fake_setup(NULL, "slurm/notfound.stderr", 1);
	sched_job_init(&job);
	CHECK_INT(sched_resolve(NULL, "99", &job, err, sizeof(err)),
	    SCHED_ENOJOB);
	CHECK_STR(err, "job 99: no such job");
	sched_job_free(&job);

	fake_setup("slurm/pending.txt", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_resolve(NULL, "13", &job, err, sizeof(err)),
	    SCHED_EPENDING);
	CHECK_STR(err, "job 13 is pending (Resources)");
	sched_job_free(&job);

	fake_setup(NULL, "pbs/notfound.stderr", 2);
	sched_job_init(&job);
	CHECK_INT(sched_resolve(NULL, "99", &job, err, sizeof(err)),
	    SCHED_ECMD);
	CHECK(strstr(err, "squeue -j 99: qstat: Unknown") != NULL);
	sched_job_free(&job);

	/* Inside a PBS job, PBS wins over a Slurm in PATH. */
	fake_command("qstat", FAKE_BODY);
	setenv("PBS_JOBID", "1.x", 1);
	CHECK_INT(sched_select(NULL, "1234", &s, err, sizeof(err)), SCHED_OK);
	CHECK(s == &sched_pbs);
	unsetenv("PBS_JOBID");
	CHECK_INT(sched_select(NULL, "1234", &s, err, sizeof(err)), SCHED_OK);
	CHECK(s == &sched_slurm);
	/* Only PBS takes a server part. */
	CHECK_INT(sched_select(NULL, "1234.pbs01", &s, err, sizeof(err)),
	    SCHED_OK);
	CHECK(s == &sched_pbs);

	fake_setup(NULL, "pbs/finished.stderr", 35);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("pbs", "1234.pbs01", &job, err, sizeof(err)),
	    SCHED_EFINISHED);
	CHECK_STR(err, "job 1234.pbs01 has finished (F)");
	sched_job_free(&job);

	fake_setup("pbs/array.txt", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("pbs", "500[].pbs01", &job, err, sizeof(err)),
	    SCHED_OK);
	args = fake_args();
	CHECK_STR(args, "-f\n-t\n500[].pbs01\nLC_ALL=C\n");
	free(args);
	sched_job_free(&job);

	fake_command("bjobs", FAKE_BODY);
	fake_setup("lsf/running.json", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("lsf", "4711", &job, err, sizeof(err)),
	    SCHED_OK);
	CHECK_STR(job.nodelist, "hpc-n[01-02]");
	args = fake_args();
	CHECK_STR(args, "-o\njobid jobindex user stat exec_host run_time "
	    "runtimelimit pend_reason job_name\n-json\n4711\nLC_ALL=C\n");
	free(args);
	sched_job_free(&job);
	fake_setup(NULL, "lsf/notfound.stderr", 255);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("lsf", "9999", &job, err, sizeof(err)),
	    SCHED_ENOJOB);
	sched_job_free(&job);

	fake_command("oarstat", FAKE_BODY);
	fake_setup("oar/running.json", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("oar", "5150", &job, err, sizeof(err)),
	    SCHED_OK);
	args = fake_args();
	CHECK_STR(args, "-f\n-J\n-j\n5150\nLC_ALL=C\n");
	free(args);
	sched_job_free(&job);

	fake_command("flux", FAKE_BODY);
	fake_setup("flux/running.txt", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_resolve(NULL, "fA1b2C3", &job, err, sizeof(err)),
	    SCHED_OK);
	CHECK_STR(job.sched, "flux");
	CHECK_STR(job.nodelist, "node[1-2]");
	sched_job_free(&job);

	/* Arguments reach the command verbatim: no shell in between. */
	fake_setup(NULL, NULL, 3);
	argv[0] = "squeue";
	argv[1] = "a b";
	argv[2] = "$(touch /tmp/jt-pwned)";
	argv[3] = ";";
	argv[4] = "*";
	argv[5] = NULL;
	CHECK_INT(sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    sizeof(err)), SCHED_OK);
	CHECK_INT(status, 3);
	CHECK_STR(out, "");
	free(out);
	args = fake_args();
	CHECK_STR(args, "a b\n$(touch /tmp/jt-pwned)\n;\n*\nLC_ALL=C\n");
	free(args);

	/* A command that hangs is killed after the timeout. */
	fake_command("sleepy", "exec sleep 30");
	argv[0] = "sleepy";
	argv[1] = NULL;
	sched_set_timeout(300);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    sizeof(err)), SCHED_ECMD);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(secs < 3.0);
	CHECK(strstr(err, "no answer") != NULL);
	/* Also when a child it left behind holds the pipe open. */
	fake_command("sleepy2", "sleep 30 &\necho started");
	argv[0] = "sleepy2";
	CHECK_INT(sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    sizeof(err)), SCHED_ECMD);
	sched_set_timeout(0);

	/* Output is bounded. */
	fake_command("chatty", "exec head -c 20000000 /dev/zero");
	argv[0] = "chatty";
	CHECK_INT(sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    sizeof(err)), SCHED_ECMD);
	CHECK(strstr(err, "more than") != NULL);

	/* Stderr is kept, truncated, for the message. */
	fake_command("noisy", "echo out; echo 'some error' >&2; exit 1");
	argv[0] = "noisy";
	CHECK_INT(sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    sizeof(err)), SCHED_OK);
	CHECK_STR(out, "out\n");
	CHECK_STR(errtxt, "some error");
	CHECK_INT(status, 1);
	free(out);
	/* Its control bytes never get through (review F4d). */
	fake_command("evilerr", "printf 'bad \\033]0;T\\007\\033[2Jx\\n' >&2; "
	    "exit 1");
	argv[0] = "evilerr";
	CHECK_INT(sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    sizeof(err)), SCHED_OK);
	CHECK_STR(errtxt, "bad ?]0;T??[2Jx");
	free(out);

	argv[0] = "no-such-command-jt";
	CHECK_INT(sched_run(argv, &out, errtxt, sizeof(errtxt), &status, err,
	    sizeof(err)), SCHED_ECMD);
	CHECK(strstr(err, "command not found") != NULL);
	CHECK(sched_in_path("squeue"));
	CHECK(!sched_in_path("no-such-command-jt"));

	if (oldpath != NULL) {
		setenv("PATH", oldpath, 1);
		free(oldpath);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", bindir);
	if (system(path) != 0)
		harness_check(0, __FILE__, __LINE__, "cleanup %s", bindir);
}

/* Slurm step ids ("123.0", "123.batch") split into job and step; any
 * other form (a PBS id, a bad step) is left alone. */
static void
test_step_ids(void)
{
	char	base[64], step[16];

	CHECK(sched_slurm_step_split("123.0", base, sizeof(base), step,
	    sizeof(step)));
	CHECK_STR(base, "123");
	CHECK_STR(step, "0");
	CHECK(sched_slurm_step_split("123.batch", base, sizeof(base), step,
	    sizeof(step)));
	CHECK_STR(step, "batch");
	CHECK(sched_slurm_step_split("123.extern", base, sizeof(base), step,
	    sizeof(step)));
	CHECK_STR(step, "extern");
	CHECK(sched_slurm_step_split("123.interactive", base, sizeof(base),
	    step, sizeof(step)));
	CHECK(sched_slurm_step_split("123_4.2", base, sizeof(base), step,
	    sizeof(step)));
	CHECK_STR(base, "123_4");
	CHECK_STR(step, "2");
	CHECK(sched_slurm_step_split("123+1.0", base, sizeof(base), step,
	    sizeof(step)));
	CHECK_STR(base, "123+1");
	CHECK(!sched_slurm_step_split("123", base, sizeof(base), step,
	    sizeof(step)));
	CHECK(!sched_slurm_step_split("123.pbs01", base, sizeof(base), step,
	    sizeof(step)));
	CHECK(!sched_slurm_step_split("123.", base, sizeof(base), step,
	    sizeof(step)));
	CHECK(!sched_slurm_step_split(".0", base, sizeof(base), step,
	    sizeof(step)));
	CHECK(!sched_slurm_step_split("12a.0", base, sizeof(base), step,
	    sizeof(step)));
	CHECK(!sched_slurm_step_split("123.0.0", base, sizeof(base), step,
	    sizeof(step)));
	CHECK(!sched_slurm_step_split("123.-1", base, sizeof(base), step,
	    sizeof(step)));
	CHECK(!sched_slurm_step_split("123.12345678901", base, sizeof(base),
	    step, sizeof(step)));
}

/* Remove the fake bin directory of the tests below. */
static void
rm_bindir(void)
{
	char	cmd[8192];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", bindir);
	if (system(cmd) != 0)
		harness_check(0, __FILE__, __LINE__, "cleanup %s", bindir);
}

/*
 * Real Flux 0.88 output (tests/data/sched/flux/real, captured with the
 * format sched-flux.c asks for): every state it printed.
 */
static void
test_flux_real(void)
{
	static const char *running[] = {
		"flux/real/running-jobtop-fmt.txt",
		"flux/real/running-jobtop-fmt-decid.txt",
		"flux/real/running-jobtop-fmt-utf8id-arg.txt",
		"flux/real/running-jobtop-fmt-utf8locale.txt",
	};
	static const char *ids[] = {
		"f3AakAX9", "82426462208", "\306\2223AakAX9", "f3AakAX9",
	};
	struct job	job;
	char		err[256];
	size_t		i;

	for (i = 0; i < 4; i++) {
		CHECK_INT(parse(&sched_flux, running[i], ids[i], &job, err,
		    sizeof(err)), SCHED_OK);
		check_nodes(&job, "fnode[1-2]", __LINE__);
		/* As flux printed it: its order is the ranks'. */
		CHECK(job.rank_nodes != NULL &&
		    strcmp(job.rank_nodes, "fnode[1-2]") == 0);
		CHECK_STR(job.user, "oartest");
		CHECK_INT(job.uid, 1003);
		CHECK_INT(job.ntasks, 4);
		CHECK_STR(job.name, "mpi-test");
		CHECK_INT(job.time_limit, JOB_TIME_UNKNOWN);
		/* One ASCII f58 id for the probes, whatever was asked. */
		if (i != 3)
			CHECK_STR(job.id, "f3AakAX9");
		sched_job_free(&job);
	}
	CHECK_INT(parse(&sched_flux, "flux/real/running-limit-jobtop-fmt.txt",
	    "fAbcuMdy", &job, err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "fnode3", __LINE__);
	CHECK_INT(job.elapsed, 11);
	CHECK_INT(job.time_limit, 600);
	sched_job_free(&job);

	/* Pending is S in real Flux, never PD. */
	CHECK_INT(parse(&sched_flux, "flux/real/pending-jobtop-fmt.txt",
	    "fAfnZLaB", &job, err, sizeof(err)), SCHED_EPENDING);
	CHECK(job.rank_nodes == NULL);
	CHECK_STR(err, "job fAfnZLaB is pending");
	sched_job_free(&job);
	CHECK_INT(parse(&sched_flux, "flux/real/completed-jobtop-fmt.txt",
	    "fAjGBeu5", &job, err, sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job fAjGBeu5 has finished (CD)");
	sched_job_free(&job);
	CHECK_INT(parse(&sched_flux, "flux/real/failed-jobtop-fmt.txt",
	    "fAom7UVm", &job, err, sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job fAom7UVm has finished (F)");
	sched_job_free(&job);
	CHECK_INT(parse(&sched_flux, "flux/real/timeout-jobtop-fmt.txt",
	    "fAvzfyFM", &job, err, sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job fAvzfyFM has finished (TO)");
	sched_job_free(&job);
	CHECK_INT(parse(&sched_flux,
	    "flux/real/canceled-running-jobtop-fmt.txt", "fAbcuMdy", &job, err,
	    sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job fAbcuMdy has finished (CA)");
	sched_job_free(&job);
	/* Canceled before it ran: no node list, and still "finished". */
	CHECK_INT(parse(&sched_flux,
	    "flux/real/canceled-pending-jobtop-fmt.txt", "fAfnZLaB", &job, err,
	    sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job fAfnZLaB has finished (CA)");
	sched_job_free(&job);
}

/* States real Flux prints that the captures did not catch: N (new), D,
 * P, C (cleanup) of a job that ran and of one rejected before running. */
static void
test_flux_states(void)
{
	struct job	job;
	char		err[256];
	int		r;

	sched_job_init(&job);
	r = sched_flux.parse("fAAA|1|u|N|1|0.0|0.0||x\n", "fAAA", &job, err,
	    sizeof(err));
	CHECK_INT(r, SCHED_OK);
	CHECK_INT(sched_job_check(&job, err, sizeof(err)), SCHED_EPENDING);
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_flux.parse("fAAA|1|u|D|1|0.0|0.0||x\n", "fAAA", &job,
	    err, sizeof(err)), SCHED_OK);
	CHECK_INT(job.state, JOB_PENDING);
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_flux.parse("fAAA|1|u|C|1|3.0|0.0|n1|x\n", "fAAA",
	    &job, err, sizeof(err)), SCHED_OK);
	CHECK_INT(sched_job_check(&job, err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "n1", __LINE__);
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_flux.parse("fAAA|1|u|C|1|0.0|0.0||x\n", "fAAA", &job,
	    err, sizeof(err)), SCHED_OK);
	CHECK_INT(sched_job_check(&job, err, sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job fAAA has finished (C)");
	sched_job_free(&job);
}

/* Real OpenPBS 23.06 qstat -f records (tests/data/sched/pbs/real). */
static void
test_pbs_real(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_pbs, "pbs/real/running-f.txt", "0.vm", &job,
	    err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "pnode[1-2]", __LINE__);
	CHECK_STR(job.user, "oartest");
	CHECK_STR(job.name, "mpi-test");
	CHECK_INT(job.time_limit, 600);
	CHECK_INT(slots_of(&job, "pnode1"), 2);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/real/running-f.txt", "0", &job,
	    err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "pnode[1-2]", __LINE__);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/real/running-f-noserver.txt", "0",
	    &job, err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "pnode[1-2]", __LINE__);
	sched_job_free(&job);
	/* E while the MoM delivers output: the nodes are still held. */
	CHECK_INT(parse(&sched_pbs, "pbs/real/exiting-f.txt", "0.vm", &job,
	    err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "pnode[1-2]", __LINE__);
	CHECK_INT(job.state, JOB_COMPLETING);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/real/queued-f.txt", "1.vm", &job,
	    err, sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job 1.vm is pending (Not Running: Not enough free "
	    "nodes available)");
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/real/queued-f-later.txt", "1.vm",
	    &job, err, sizeof(err)), SCHED_EPENDING);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/real/array-f-t.txt", "2[].vm", &job,
	    err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "pnode3", __LINE__);
	sched_job_free(&job);
	/* Later the third subjob ran too, on pnode1. */
	CHECK_INT(parse(&sched_pbs, "pbs/real/array-f-t-later.txt", "2[].vm",
	    &job, err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "pnode[1,3]", __LINE__);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/real/subjob-f.txt", "2[1].vm", &job,
	    err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "pnode3", __LINE__);
	sched_job_free(&job);
	/* The parent without -t: begun (B), no exec_host of its own. */
	CHECK_INT(parse(&sched_pbs, "pbs/real/array-f-not.txt", "2[].vm",
	    &job, err, sizeof(err)), SCHED_EPARSE);
	CHECK(strstr(err, "no node list") != NULL);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_pbs, "pbs/real/history-x-f-5.txt", "5.vm", &job,
	    err, sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job 5.vm has finished (F)");
	sched_job_free(&job);
}

/* LSF times as sites print them, and the OpenLava-style bjobs -w table
 * (constructed from the documented forms: no LSF was at hand). */
static void
test_lsf_forms(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_lsf, "lsf/hms.json", "4242", &job, err,
	    sizeof(err)), SCHED_OK);
	CHECK_INT(job.elapsed, 1);
	CHECK_INT(job.time_limit, 600);
	check_nodes(&job, "n[01-02]", __LINE__);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_lsf, "lsf/seconds.json", "4243", &job, err,
	    sizeof(err)), SCHED_OK);
	CHECK_INT(job.elapsed, 1);
	CHECK_INT(job.time_limit, 600);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_lsf, "lsf/wide.txt", "4244", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "n[01-02]", __LINE__);
	CHECK_INT(slots_of(&job, "n01"), 4);
	CHECK_STR(job.user, "alice");
	CHECK_STR(job.name, "my job");
	sched_job_free(&job);
	CHECK_INT(parse(&sched_lsf, "lsf/wide.txt", "4245", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	CHECK_STR(job.name, "waiting");
	sched_job_free(&job);
	CHECK_INT(parse(&sched_lsf, "lsf/wide.txt", "4246", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "n[05-06]", __LINE__);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_lsf, "lsf/wide.txt", "4246[4]", &job, err,
	    sizeof(err)), SCHED_OK);
	check_nodes(&job, "n06", __LINE__);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_lsf, "lsf/wide.txt", "4247", &job, err,
	    sizeof(err)), SCHED_ENOJOB);
	sched_job_free(&job);
}

/*
 * The error answers, replayed through the real resolve paths by fake
 * commands that print the captured stderr and exit status: Flux's unknown
 * id, PBS's "Unknown Job Id" with and without job history, "Job has
 * finished" then qstat -x -f, and LSF's fallback to bjobs -w.
 */
#define REPLAY_FLUX							\
	"for a; do id=$a; done\n"					\
	"[ \"$id\" = f2222222 ] || "					\
	"exec cat \"$JT_DIR/flux/real/running-jobtop-fmt.txt\"\n"	\
	"cat \"$JT_DIR/flux/real/unknown.stderr\" >&2; exit 1"
#define REPLAY_QSTAT							\
	"case \"$*\" in\n"						\
	"'-B -f') [ -n \"$JT_HIST\" ] && "				\
	"cat \"$JT_DIR/pbs/real/qstat-Bf.txt\"; exit 0 ;;\n"		\
	"'-x -f 5.vm') cat \"$JT_DIR/pbs/real/history-x-f-5.txt\"; "	\
	"exit 0 ;;\n"							\
	"'-f 5.vm') cat \"$JT_DIR/pbs/real/qstat-f-5.vm.stderr.txt\" >&2;" \
	" exit 35 ;;\n"							\
	"*) cat \"$JT_DIR/pbs/real/qstat-f-999.vm.stderr.txt\" >&2; "	\
	"exit 153 ;;\n"							\
	"esac"
#define REPLAY_BJOBS							\
	"case \"$1\" in\n"						\
	"-o) echo \"bjobs: invalid option -- 'o'\" >&2; exit 255 ;;\n"	\
	"-w) [ \"$2\" = 4244 ] && exec cat \"$JT_DIR/lsf/wide.txt\"\n"	\
	"    echo \"Job <$2> is not found\" >&2; exit 255 ;;\n"		\
	"esac; exit 2"

static void
test_replay_errors(void)
{
	struct job	 job;
	char		 err[256], *oldpath;

	snprintf(bindir, sizeof(bindir), "%s/jtreplay.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(bindir) == NULL) {
		harness_check(0, __FILE__, __LINE__, "mkdtemp: %s",
		    strerror(errno));
		return;
	}
	oldpath = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", bindir, 1);
	setenv("JT_DIR", fixdir, 1);
	fake_command("flux", REPLAY_FLUX);
	fake_command("qstat", REPLAY_QSTAT);
	fake_command("bjobs", REPLAY_BJOBS);

	sched_job_init(&job);
	CHECK_INT(sched_resolve("flux", "f2222222", &job, err, sizeof(err)),
	    SCHED_ENOJOB);
	CHECK_STR(err, "job f2222222: no such job");
	sched_job_free(&job);

	/* Inside a Flux job: FLUX_JOB_ID as Flux sets it (U+0192). */
	clear_job_env();
	setenv("FLUX_JOB_ID", "\xc6\x92" "3AakAX9", 1);
	sched_job_init(&job);
	CHECK_INT(sched_from_env(NULL, &job, err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.id, "f3AakAX9");
	CHECK_STR(job.sched, "flux");
	check_nodes(&job, "fnode[1-2]", __LINE__);
	sched_job_free(&job);
	unsetenv("FLUX_JOB_ID");

	/* No history: a finished job reads like one never seen. */
	unsetenv("JT_HIST");
	sched_job_init(&job);
	CHECK_INT(sched_resolve("pbs", "999.vm", &job, err, sizeof(err)),
	    SCHED_ENOJOB);
	CHECK_STR(err, "job 999.vm: unknown or finished (PBS keeps no "
	    "history here)");
	sched_job_free(&job);
	setenv("JT_HIST", "1", 1);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("pbs", "999.vm", &job, err, sizeof(err)),
	    SCHED_ENOJOB);
	CHECK_STR(err, "job 999.vm: no such job");
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("pbs", "5.vm", &job, err, sizeof(err)),
	    SCHED_EFINISHED);
	CHECK_STR(err, "job 5.vm has finished (F)");
	CHECK_STR(job.name, "short2");
	sched_job_free(&job);

	sched_job_init(&job);
	CHECK_INT(sched_resolve("lsf", "4244", &job, err, sizeof(err)),
	    SCHED_OK);
	check_nodes(&job, "n[01-02]", __LINE__);
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("lsf", "4299", &job, err, sizeof(err)),
	    SCHED_ENOJOB);
	CHECK_STR(err, "job 4299: no such job");
	sched_job_free(&job);

	if (oldpath != NULL) {
		setenv("PATH", oldpath, 1);
		free(oldpath);
	}
	unsetenv("JT_HIST");
	unsetenv("JT_DIR");
	rm_bindir();
}

/*
 * No job named outside a job: the caller's running jobs.  A fake bjobs
 * (no -o, as OpenLava) serves lsf/wide.txt with the caller's name put in
 * for alice (and for bob when JT_BOB is set).
 */
#define MINE_BJOBS							\
	"me=$(id -un); b=bob; [ -n \"$JT_BOB\" ] && b=$me\n"		\
	"[ -n \"$JT_FAIL\" ] && { echo 'bjobs: LIM is down' >&2; exit 1; }\n" \
	"case \"$1\" in -o) echo \"bjobs: invalid option\" >&2; exit 255;;"\
	" esac\n"							\
	"sed \"s/alice/$me/; s/bob/$b/\" \"$JT_DIR/lsf/wide.txt\""

static void
test_mine(void)
{
	struct job	 job;
	char		 err[512], *oldpath, *table, ids[8][64];
	int		 r;

	CHECK_INT(sched_mine_ids(&sched_pbs, "\npbs01:\n"
	    "Job ID          Username Queue    Jobname    SessID NDS TSK\n"
	    "--------------- -------- -------- ---------- ------ --- ---\n"
	    "1234.pbs0*      alice    workq    mpi         4242   2   8\n"
	    "77[].pbs01      alice    workq    arr            --   1   1\n",
	    ids, 8), 2);
	CHECK_STR(ids[0], "1234");
	CHECK_STR(ids[1], "77[]");
	CHECK_INT(sched_mine_ids(&sched_slurm, "12\n13_4\n14+1\n15_[5-9]\n12\n"
	    "x;rm\n", ids, 8), 3);
	CHECK_STR(ids[2], "14+1");
	CHECK_INT(sched_mine_ids(&sched_oar, "Job id     Name   User  S\n"
	    "---------- ------ ----- -\n5150       t      bob   R\n", ids, 8),
	    1);
	CHECK_INT(sched_mine_ids(&sched_flux, "f3AakAX9\nfAbcuMdy\n", ids, 1),
	    1);
	/* Real OAR 2.5.9 `oarstat` text (what `oarstat -u USER` prints). */
	table = fixture("oar/list-text-real.txt");
	CHECK_INT(sched_mine_ids(&sched_oar, table, ids, 8), 1);
	CHECK_STR(ids[0], "1");
	free(table);

	snprintf(bindir, sizeof(bindir), "%s/jtmine.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(bindir) == NULL) {
		harness_check(0, __FILE__, __LINE__, "mkdtemp: %s",
		    strerror(errno));
		return;
	}
	oldpath = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", bindir, 1);
	setenv("JT_DIR", fixdir, 1);
	clear_job_env();
	CHECK(!sched_env_inside(NULL));
	sched_job_init(&job);
	CHECK_INT(sched_mine(NULL, getuid(), &job, &table, err, sizeof(err)),
	    SCHED_ENOENV);
	CHECK(table == NULL);
	CHECK(strstr(err, "no batch scheduler found") != NULL);
	fake_command("bjobs", MINE_BJOBS);

	/* 4244 runs, 4245 waits, 4246 is bob's: one job, watched. */
	r = sched_mine(NULL, getuid(), &job, &table, err, sizeof(err));
	CHECK_INT(r, SCHED_OK);
	CHECK(table == NULL);
	CHECK_STR(job.id, "4244");
	check_nodes(&job, "n[01-02]", __LINE__);
	sched_job_free(&job);

	/* Two running jobs: listed, none chosen. */
	setenv("JT_BOB", "1", 1);
	sched_job_init(&job);
	r = sched_mine(NULL, getuid(), &job, &table, err, sizeof(err));
	CHECK_INT(r, SCHED_ENOENV);
	CHECK(table != NULL && strncmp(table, "SCHED ", 6) == 0);
	CHECK(table != NULL && strstr(table, "\nlsf    4244 ") != NULL);
	CHECK(table != NULL && strstr(table, "\nlsf    4246 ") != NULL);
	CHECK(table != NULL && strstr(table, "n[05-06]") != NULL);
	CHECK(table != NULL && strstr(table, "4245") == NULL);
	CHECK(strstr(err, "2 running jobs") != NULL);
	free(table);
	unsetenv("JT_BOB");

	/* Only another scheduler asked for: nothing. */
	CHECK_INT(sched_mine("slurm", getuid(), &job, &table, err,
	    sizeof(err)), SCHED_ENOENV);
	CHECK(strstr(err, "no batch scheduler found") != NULL);
	/* The query fails: said so, not "no job". */
	setenv("JT_FAIL", "1", 1);
	CHECK_INT(sched_mine(NULL, getuid(), &job, &table, err, sizeof(err)),
	    SCHED_ENOENV);
	CHECK(strstr(err, "bjobs failed") != NULL);
	unsetenv("JT_FAIL");
	sched_job_free(&job);

	if (oldpath != NULL) {
		setenv("PATH", oldpath, 1);
		free(oldpath);
	}
	unsetenv("JT_DIR");
	rm_bindir();
}

/* Real OAR 2.5.9 outputs (tests/data/sched/oar-real, captured with the
 * commands in ../README): what oarstat -f -J really prints. */
static void
test_oar_real(void)
{
	struct job	job;
	char		err[256];

	CHECK_INT(parse(&sched_oar, "oar-real/running-f-J.txt", "1", &job,
	    err, sizeof(err)), SCHED_OK);
	CHECK_STR(job.user, "oartest");
	CHECK_STR(job.state_name, "Running");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_oar, "oar-real/running-2nodes-f-J.txt", "4",
	    &job, err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "nodeA,nodeB", __LINE__);
	CHECK_STR(job.user, "oartest");
	CHECK_STR(job.name, "two-nodes");
	CHECK_INT(job.ntasks, 4);
	CHECK_INT(job.time_limit, 600);
	CHECK(job.elapsed > 0);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_oar, "oar-real/running3-f-J.txt", "2", &job,
	    err, sizeof(err)), SCHED_OK);
	sched_job_free(&job);

	/* An array: one record per element; each element is a job. */
	CHECK_INT(parse(&sched_oar, "oar-real/array-f-J-array5.txt", "5",
	    &job, err, sizeof(err)), SCHED_OK);
	check_nodes(&job, "nodeC", __LINE__);
	CHECK_INT(job.ntasks, 2);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_oar, "oar-real/array-f-J-array5.txt", "6",
	    &job, err, sizeof(err)), SCHED_EPENDING);
	sched_job_free(&job);
	CHECK_INT(parse(&sched_oar, "oar-real/array-elem5-f-J.txt", "5",
	    &job, err, sizeof(err)), SCHED_OK);
	sched_job_free(&job);

	CHECK_INT(parse(&sched_oar, "oar-real/waiting-f-J.txt", "2", &job,
	    err, sizeof(err)), SCHED_EPENDING);
	CHECK_STR(err, "job 2 is pending (Waiting, R=6,W=0:5:0,J=B "
	    "(Karma=0.000,quota_ok))");
	sched_job_free(&job);

	CHECK_INT(parse(&sched_oar, "oar-real/terminated-f-J.txt", "3",
	    &job, err, sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job 3 has finished (Terminated)");
	sched_job_free(&job);

	/* oardel: Error, but deleted, not failed. */
	CHECK_INT(parse(&sched_oar, "oar-real/deleted-f-J.txt", "1", &job,
	    err, sizeof(err)), SCHED_EFINISHED);
	CHECK_STR(err, "job 1 has finished (Error: deleted by oardel)");
	CHECK_INT(job.state, JOB_CANCELLED);
	sched_job_free(&job);

	/* Unknown: nothing at all on stdout, exit 0. */
	CHECK_INT(parse(&sched_oar, "oar-real/unknown-f-J.txt", "99", &job,
	    err, sizeof(err)), SCHED_ENOJOB);
	CHECK_STR(err, "job 99: no such job");
	sched_job_free(&job);
	/* A record of another id is not this job. */
	CHECK_INT(parse(&sched_oar, "oar-real/running-2nodes-f-J.txt", "5",
	    &job, err, sizeof(err)), SCHED_ENOJOB);
	sched_job_free(&job);
	/* Without -J's JSON (the YAML and text forms) nothing is guessed. */
	CHECK_INT(parse(&sched_oar, "oar-real/running-f-text.txt", "1", &job,
	    err, sizeof(err)), SCHED_EPARSE);
	sched_job_free(&job);

	/* OAR 3: the jobs table's columns; nodes from a second output. */
	CHECK_INT(parse(&sched_oar, "oar/oar3-running.json", "12", &job, err,
	    sizeof(err)), SCHED_EPARSE);
	CHECK_STR(job.user, "alice");
	CHECK_STR(job.name, "bench");
	CHECK_STR(err, "job 12: the scheduler gave no node list");
	sched_job_free(&job);
	CHECK_INT(parse(&sched_oar, "oar/oar3-waiting.json", "13", &job, err,
	    sizeof(err)), SCHED_EPENDING);
	sched_job_free(&job);
}

/* The commands the OAR resolver really runs, against a fake oarstat that
 * prints real captured outputs. */
#define FAKE_OARSTAT							\
	"printf '%s\\n' \"$@\" >> \"$JT_ARGS\"\n"			\
	"[ -n \"$JT_ERR\" ] && cat \"$JT_ERR\" >&2\n"			\
	"case $1 in -p) f=$JT_OUT2;; *) f=$JT_OUT;; esac\n"		\
	"[ -n \"$f\" ] && cat \"$f\"\n"					\
	"exit ${JT_RC:-0}"

static void
test_oar_real_resolve(void)
{
	struct job	 job;
	char		 err[512], path[8192], *oldpath, *args;

	oldpath = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
	fake_bindir();
	fake_command("oarstat", FAKE_OARSTAT);

	/* Unknown job: empty output, exit 0. */
	fake_setup("oar-real/unknown-f-J.txt", NULL, 0);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("oar", "99", &job, err, sizeof(err)),
	    SCHED_ENOJOB);
	CHECK_STR(err, "job 99: no such job");
	sched_job_free(&job);

	/* No Perl JSON module: oarstat's own line. */
	fake_setup("oar-real/nojson-f-J.txt", "oar-real/nojson-f-J.stderr.txt",
	    1);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("oar", "4", &job, err, sizeof(err)),
	    SCHED_ECMD);
	CHECK(strstr(err, "No Perl JSON module") != NULL);
	sched_job_free(&job);

	/* oarstat's own refusal (exit 255) is passed on as it is. */
	fake_setup("oar-real/badid-f-J.txt", "oar-real/badid-f-J.stderr.txt",
	    255);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("oar", "4", &job, err, sizeof(err)),
	    SCHED_ECMD);
	CHECK(strstr(err, "No job id provided") != NULL);
	sched_job_free(&job);

	/* OAR 3: -f -J, then -p -J for the nodes. */
	snprintf(path, sizeof(path), "%s/args", bindir);
	unlink(path);
	fake_setup("oar/oar3-running.json", NULL, 0);
	snprintf(path, sizeof(path), "%s/oar/oar3-running-props.json",
	    fixdir);
	setenv("JT_OUT2", path, 1);
	sched_job_init(&job);
	CHECK_INT(sched_resolve("oar", "12", &job, err, sizeof(err)),
	    SCHED_OK);
	CHECK_STR(job.nodelist, "node[1-2]");
	CHECK_STR(job.user, "alice");
	CHECK_INT(job.ntasks, 4);
	args = fake_args();
	CHECK_STR(args, "-f\n-J\n-j\n12\n-p\n-J\n-j\n12\n");
	free(args);
	sched_job_free(&job);
	unsetenv("JT_OUT2");

	if (oldpath != NULL) {
		setenv("PATH", oldpath, 1);
		free(oldpath);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", bindir);
	if (system(path) != 0)
		harness_check(0, __FILE__, __LINE__, "cleanup %s", bindir);
}

/* A slot count no node has is refused (its sum used to overflow, found
 * by fuzz-sched); the largest allowed ones still add up. */
static void
test_slots_bound(void)
{
	struct job	job;
	char		err[256];

	sched_job_init(&job);
	CHECK_INT(sched_job_add_host(&job, "n1", LONG_MAX, err, sizeof(err)),
	    SCHED_EINVAL);
	CHECK(strstr(err, "implausible slot count") != NULL);
	sched_job_free(&job);
	sched_job_init(&job);
	CHECK_INT(sched_job_add_host(&job, "n1", SCHED_SLOTS_MAX, err,
	    sizeof(err)), SCHED_OK);
	CHECK_INT(sched_job_add_host(&job, "n1", SCHED_SLOTS_MAX, err,
	    sizeof(err)), SCHED_OK);
	CHECK_INT(sched_job_finish(&job, err, sizeof(err)), SCHED_OK);
	CHECK(job.ntasks == 2 * SCHED_SLOTS_MAX);
	sched_job_free(&job);
}

int
main(void)
{
	const char	*top = getenv("TOP");

	snprintf(fixdir, sizeof(fixdir), "%s/tests/data/sched",
	    top != NULL ? top : ".");
	RUN(test_slurm);
	RUN(test_slurm_array_het);
	RUN(test_slurm_hostile);
	RUN(test_slurm_minmem);
	RUN(test_slurm_gres);
	RUN(test_slurm_lab);
	RUN(test_hostile_names);
	RUN(test_slurm_cgroup);
	RUN(test_pbs);
	RUN(test_lsf);
	RUN(test_oar);
	RUN(test_flux);
	RUN(test_hostlist_source);
	RUN(test_hostfile);
	RUN(test_env);
	RUN(test_may_watch);
	RUN(test_validate);
	RUN(test_json);
	RUN(test_duration);
	RUN(test_slots_bound);
	RUN(test_registry);
	RUN(test_run);
	RUN(test_step_ids);
	RUN(test_flux_real);
	RUN(test_flux_states);
	RUN(test_pbs_real);
	RUN(test_lsf_forms);
	RUN(test_replay_errors);
	RUN(test_mine);
	RUN(test_oar_real);
	RUN(test_oar_real_resolve);
	validate_cleanup();
	return harness_done();
}
