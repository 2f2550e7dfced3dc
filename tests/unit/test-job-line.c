/* SPDX-License-Identifier: ISC */
/*
 * test-job-line: what batch mode says about the job as a whole: the job
 * line of the text output and the job record of the JSON output ("ranks 3
 * of 4", the processes when no rank has an id, the task count only when
 * the scheduler said one, a hostile job id kept harmless), and the task
 * count a recording keeps in its META for the replay's header.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "out.h"
#include "rec.h"

#define T_MS	1700000000123ULL

/* One job line of an output, as printed. */
static const char *
job_line(const struct output *out, const char *id, long ranks, long procs,
    long ntasks)
{
	static char	 buf[512];
	struct out_job	 j;
	FILE		*f;
	size_t		 n;

	memset(&j, 0, sizeof(j));
	j.id = id;
	j.ranks = ranks;
	j.procs = procs;
	j.ntasks = ntasks;
	buf[0] = '\0';
	if ((f = tmpfile()) == NULL)
		return buf;
	out->job(f, T_MS, &j);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void
test_json(void)
{
	CHECK_STR(job_line(&out_json, "4242", 3, 5, 4),
	    "{\"time\":1700000000.123,\"type\":\"job\",\"job\":\"4242\","
	    "\"ranks\":3,\"ntasks\":4}\n");
	CHECK_STR(job_line(&out_json, "4242", 3, 5, -1),
	    "{\"time\":1700000000.123,\"type\":\"job\",\"job\":\"4242\","
	    "\"ranks\":3}\n");
	CHECK_STR(job_line(&out_json, "77", -1, 2, 8),
	    "{\"time\":1700000000.123,\"type\":\"job\",\"job\":\"77\","
	    "\"procs\":2,\"ntasks\":8}\n");
	CHECK_STR(job_line(&out_json, "x\"\n", 0, 0, 4),
	    "{\"time\":1700000000.123,\"type\":\"job\",\"job\":\"x\\\"\\n\","
	    "\"ranks\":0,\"ntasks\":4}\n");
}

static void
test_text(void)
{
	const char	*l;

	/* The time is local: compare what follows it. */
	l = job_line(&out_text, "4242", 3, 5, 4);
	CHECK(strlen(l) > 13 && l[2] == ':' && l[8] == '.');
	CHECK_STR(strlen(l) > 13 ? l + 13 : l, "job 4242: ranks 3 of 4\n");
	l = job_line(&out_text, "4242", 3, 5, -1);
	CHECK_STR(strlen(l) > 13 ? l + 13 : l, "job 4242: ranks 3\n");
	l = job_line(&out_text, "77", -1, 2, 0);
	CHECK_STR(strlen(l) > 13 ? l + 13 : l, "job 77: procs 2\n");
	l = job_line(&out_text, "a\033]0;x\007b", 1, 1, 1);
	CHECK_STR(strlen(l) > 13 ? l + 13 : l, "job a?]0;x?b: ranks 1 of 1\n");
}

/* The META's ntasks: kept, and unknown when the run did not know it. */
static void
test_meta(void)
{
	struct rec_meta		 meta;
	struct rec_reader	*rd;
	const struct rec_meta	*m;
	struct rec		*r;
	const char		*names[] = { "node1", "node2" };
	char			 dir[] = "/tmp/test-job-line.XXXXXX", path[64];
	char			 err[256];
	long			 want[] = { 4, -1, 0, 131072 }, got;
	unsigned		 i;

	if (mkdtemp(dir) == NULL) {
		CHECK(0);
		return;
	}
	snprintf(path, sizeof(path), "%s/r.jtr", dir);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		rec_meta_init(&meta, T_MS);
		CHECK_INT(meta.ntasks, -1);
		snprintf(meta.job, sizeof(meta.job), "4242");
		rec_meta_set_nodes(&meta, 2, names);
		meta.ntasks = want[i];
		/* The allocation: known (0), unknown (1), no limit (2),
		 * past any machine's (3). */
		meta.cpus = i == 1 ? 0 : i == 3 ? (1ULL << 40) : 8;
		meta.mem = i == 1 ? 0 : i == 3 ? (1ULL << 62) : 3ULL << 30;
		meta.time_limit = i == 1 ? REC_LIMIT_UNKNOWN : i == 2 ?
		    REC_LIMIT_NONE : i == 3 ? 100000000001LL : 3600;
		snprintf(meta.partition, sizeof(meta.partition), "%s",
		    i == 0 ? "gpu\033[2J" : "");
		/* The scheduler's GPUs per node: said (0), not (1); index
		 * 62, none and unknown (2). */
		if (i == 0 || i == 2) {
			meta.gpus = calloc(2, sizeof(*meta.gpus));
			meta.gpus[0] = i == 0 ? 0x5 : (int64_t)1 << 62;
			meta.gpus[1] = i == 0 ? 0 : -1;
		}
		unlink(path);
		r = rec_open(path, &meta, 0, err, sizeof(err));
		rec_meta_free(&meta);
		CHECK(r != NULL);
		if (r == NULL)
			continue;
		CHECK_INT(rec_close(r, err, sizeof(err)), 0);
		CHECK_INT(rec_reader_open(path, &rd, err, sizeof(err)), 0);
		got = rd != NULL ? rec_reader_meta(rd)->ntasks : -2;
		CHECK_INT(got, want[i] > 0 ? want[i] : -1);
		CHECK_STR(rd != NULL ? rec_reader_meta(rd)->nodes[1] : "",
		    "node2");
		if (rd != NULL) {
			m = rec_reader_meta(rd);
			CHECK(m->cpus == (i == 0 || i == 2 ? 8 : 0));
			CHECK(m->mem == (i == 0 || i == 2 ? 3ULL << 30 : 0));
			CHECK_INT(m->time_limit, i == 0 ? 3600 : i == 2 ?
			    REC_LIMIT_NONE : REC_LIMIT_UNKNOWN);
			CHECK_STR(m->partition, i == 0 ? "gpu?[2J" : "");
			CHECK((m->gpus != NULL) == (i == 0 || i == 2));
			if (m->gpus != NULL && i == 0)
				CHECK(m->gpus[0] == 0x5 && m->gpus[1] == 0);
			if (m->gpus != NULL && i == 2)
				CHECK(m->gpus[0] == (int64_t)1 << 62 &&
				    m->gpus[1] == -1);
		}
		rec_reader_free(rd);
	}
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	RUN(test_json);
	RUN(test_text);
	RUN(test_meta);
	return harness_done();
}
