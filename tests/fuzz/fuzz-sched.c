/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the scheduler parsers (src/sched-*.c): the first
 * byte picks the scheduler and the job id asked for, the rest is the
 * query command's output.  Besides memory errors it checks what the
 * parsers promise (review F1, F4d): a job that parses has an owner of a
 * user name's shape or none, and its name, state word and reason hold no
 * control byte.  The same text also goes to the JSON reader, to the
 * Slurm cgroup check and to Slurm's GRES detail readers (sched-gres.c: a
 * node's mask is -1 or a mask of indexes 0-62, every node of the job has
 * one when any has).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "sched.h"
#include "textsafe.h"
#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const struct {
	const struct sched	*s;
	const char		*id;
} cases[] = {
	{ &sched_slurm, "12" }, { &sched_slurm, "200_4" },
	{ &sched_slurm, "300+1" }, { &sched_pbs, "1234.pbs01" },
	{ &sched_pbs, "500[].pbs01" }, { &sched_lsf, "4711" },
	{ &sched_lsf, "4711[3]" }, { &sched_oar, "5150" },
	{ &sched_flux, "fA1b2C3" }, { &sched_flux, "12345" },
};

#define NCASES	(sizeof(cases) / sizeof(cases[0]))

/* A job on gpu[01-04] read by one GRES reader: what it promises. */
static void
fuzz_gres_check(struct job *job, int r)
{
	size_t	i;

	if (r == 0 && job->gpus == NULL)
		abort();
	for (i = 0; job->gpus != NULL && i < 4; i++)
		if (job->gpus[i] < -1)
			abort();
}

static void
fuzz_gres(const char *text)
{
	struct job	job;
	char		err[256];
	int64_t		mask = -7;
	int		r;

	if (sched_gres_detail(text, &mask) == 0 && mask < 0)
		abort();
	sched_job_init(&job);
	if (sched_job_add_nodes(&job, "gpu[01-04]", err, sizeof(err)) != 0 ||
	    sched_job_finish(&job, err, sizeof(err)) != 0)
		abort();
	r = sched_gres_json(text, &job);
	fuzz_gres_check(&job, r);
	r = sched_gres_text(text, &job);
	fuzz_gres_check(&job, r);
	sched_job_free(&job);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct sched_json	*j;
	struct job		 job;
	char			*text, err[512];
	size_t			 c;
	int			 r;

	if (len < 1)
		return 0;
	c = data[0] % NCASES;
	if ((text = malloc(len)) == NULL)
		return 0;
	memcpy(text, data + 1, len - 1);
	text[len - 1] = '\0';

	sched_job_init(&job);
	err[0] = '\0';
	r = cases[c].s->parse(text, cases[c].id, &job, err, sizeof(err));
	if (r == SCHED_OK)
		r = sched_job_check(&job, err, sizeof(err));
	if (job.user[0] != '\0' && !validate_username(job.user))
		abort();
	if (!text_is_clean(job.name) || !text_is_clean(job.state_name) ||
	    !text_is_clean(job.reason) || !text_is_clean(job.partition))
		abort();
	/* The allocation is bounded as the parsers promise. */
	if (job.cpus < 0 || job.mem > (1ULL << 62))
		abort();
	if (r == SCHED_OK && (job.nodes == NULL ||
	    hostlist_count(job.nodes) == 0))
		abort();
	sched_job_free(&job);

	if ((j = sched_json_parse(text)) != NULL)
		sched_json_free(j);
	fuzz_gres(text);
	(void)sched_slurm_cgroup_has_job(text, "77", 1001);
	free(text);
	return 0;
}
