/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the probe's reader of `scontrol --json listpids`
 * (probes/listpids.c), on the outputs of tests/data/listpids/ made as
 * Slurm 24.11's source makes them (see the README there): the default
 * form, data_parser's +complex form, and the plain table that scontrol
 * before 24.11 prints whatever --json says.  Then what must be refused
 * (every cut of the document, errors scontrol reported, ids out of range,
 * more tasks than room, nesting), and `scontrol --version` lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "../../probes/listpids.c"

static char	doc[65536];

/* Read tests/data/listpids/NAME into doc; its length, or -1. */
static long
fixture(const char *name)
{
	char		 path[1024];
	const char	*top = getenv("TOP");
	FILE		*f;
	size_t		 n;

	snprintf(path, sizeof(path), "%s/tests/data/listpids/%s",
	    top != NULL ? top : ".", name);
	if ((f = fopen(path, "r")) == NULL) {
		printf("cannot open %s\n", path);
		return -1;
	}
	n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[n] = '\0';
	return (long)n;
}

static int
parse(const char *s, size_t len, struct listpids_task *t, unsigned max,
    unsigned *nother, const char **why)
{
	return listpids_parse(s, len, t, max, nother, why);
}

/* The five tasks of node2's spec: step 0's four, the batch script. */
static void
check_node2(const struct listpids_task *t, int n, unsigned nother)
{
	static const int32_t	pids[] = { 41877, 41878, 41879, 41880, 41866 };
	int			i;

	CHECK_INT(n, 5);
	CHECK_INT(nother, 4);
	if (n != 5)
		return;
	for (i = 0; i < 4; i++) {
		CHECK_INT(t[i].pid, pids[i]);
		CHECK_INT(t[i].job, 4242);
		CHECK_INT(t[i].step, 0);
		CHECK_INT(t[i].ltid, i);
		CHECK_INT(t[i].gtid, 4 + i);
	}
	CHECK_INT(t[4].pid, 41866);
	CHECK_INT(t[4].step, RANKS_STEP_BATCH);
	CHECK_INT(t[4].gtid, 0);
	CHECK_INT(t[4].ltid, 0);
}

static void
test_fixtures(void)
{
	struct listpids_task	 t[16];
	unsigned		 nother = 99;
	const char		*why = "x";
	long			 len;
	int			 n;

	CHECK((len = fixture("node2.json")) > 0);
	n = parse(doc, (size_t)len, t, 16, &nother, &why);
	CHECK(why == NULL);
	check_node2(t, n, nother);

	CHECK((len = fixture("node2-complex.json")) > 0);
	n = parse(doc, (size_t)len, t, 16, &nother, &why);
	CHECK(why == NULL);
	check_node2(t, n, nother);

	/* Before 24.11 listpids ignores --json: the table. */
	CHECK((len = fixture("node2-plain.txt")) > 0);
	CHECK_INT(parse(doc, (size_t)len, t, 16, &nother, &why), -1);
	CHECK(why != NULL && strstr(why, "before 24.11") != NULL);
}

/* Every cut of the document is refused, and no byte past the cut is
 * read (ASan: each prefix is copied to a buffer of exactly its size). */
static void
test_truncated(void)
{
	struct listpids_task	 t[16];
	unsigned		 nother;
	const char		*why;
	char			*cut;
	long			 len, i;
	int			 bad = 0, n;

	CHECK((len = fixture("node2.json")) > 0);
	for (i = 0; i < len; i++) {
		if ((cut = malloc((size_t)i + 1)) == NULL)
			continue;
		memcpy(cut, doc, (size_t)i);
		n = parse(cut, (size_t)i, t, 16, &nother, &why);
		/* Only the final newline may go. */
		if (i < len - 1 && (n != -1 || why == NULL))
			bad++;
		if (i == len - 1 && n != 5)
			bad++;
		free(cut);
	}
	CHECK_INT(bad, 0);
}

static void
test_refused(void)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"pids\": [], \"errors\": [{\"error\": \"x\"}]}",
		"{\"meta\": {}}",
		"{\"pids\": {}}",
		"{\"pids\": [], \"pids\": []}",
		"{\"pids\": [1]}",
		"{\"pids\": []} x",
		"{\"pids\": [{\"job_id\": 1, \"step_id\": \"0\"}]}",
		"{\"pids\": [{\"pid\": 5, \"step_id\": \"0\"}]}",
		"{\"pids\": [{\"pid\": 5, \"job_id\": 1}]}",
		"{\"pids\": [{\"pid\": 0, \"job_id\": 1, \"step_id\": \"0\"}]}",
		"{\"pids\": [{\"pid\": 2147483648, \"job_id\": 1, "
		    "\"step_id\": \"0\"}]}",
		"{\"pids\": [{\"pid\": 5.0, \"job_id\": 1, \"step_id\": \"0\"}]}",
		"{\"pids\": [{\"pid\": \"5\", \"job_id\": 1, "
		    "\"step_id\": \"0\"}]}",
		"{\"pids\": [{\"pid\": 5, \"job_id\": 4294967294, "
		    "\"step_id\": \"0\"}]}",
		/* A set id that is Slurm's NO_VAL, or negative. */
		"{\"pids\": [{\"pid\": 5, \"job_id\": 1, \"step_id\": \"0\", "
		    "\"global_task_id\": {\"set\": true, \"infinite\": false, "
		    "\"number\": 4294967294}}]}",
		"{\"pids\": [{\"pid\": 5, \"job_id\": 1, \"step_id\": \"0\", "
		    "\"global_task_id\": -1}]}",
		"{\"pids\": [{\"pid\": 5, \"job_id\": 1, \"step_id\": \"0\", "
		    "\"global_task_id\": {\"set\": 1}}]}",
		"{\"pids\": [], \"meta\": \"a\001\"}",
		"{\"pids\": [], \"meta\": \"\\x\"}",
		"{\"pids\": [], \"meta\": 01}",
		"{\"pids\": [], \"meta\": 1.}",
		"{\"pids\": [], \"meta\": tru}",
		"{\"pids\": [],}",
		NULL
	};
	struct listpids_task	 t[4];
	unsigned		 nother, i;
	const char		*why;
	char			 deep[256];

	for (i = 0; bad[i] != NULL; i++) {
		why = NULL;
		if (parse(bad[i], strlen(bad[i]), t, 4, &nother, &why) != -1 ||
		    why == NULL)
			harness_check(0, __FILE__, __LINE__,
			    "not refused: %s", bad[i]);
	}
	/* Deeper than LISTPIDS_DEPTH, inside a member the reader skips. */
	snprintf(deep, sizeof(deep), "{\"pids\": [], \"meta\": %.*s1%.*s}",
	    LISTPIDS_DEPTH, "[[[[[[[[[[[[[[[[[[[[[[[[",
	    LISTPIDS_DEPTH, "]]]]]]]]]]]]]]]]]]]]]]]]");
	CHECK_INT(parse(deep, strlen(deep), t, 4, &nother, &why), -1);
	CHECK_STR(why, "nested too deep");
	/* More tasks than room. */
	CHECK(fixture("node2.json") > 0);
	CHECK_INT(parse(doc, strlen(doc), t, 4, &nother, &why), -1);
}

static void
test_accepted(void)
{
	/* A step's other processes, and ids that are no task's: set
	 * false, infinite, null, "Infinity"; steps as Slurm names them. */
	static const char	 s[] =
	    "{\"pids\":[{\"pid\":7,\"job_id\":9,\"step_id\":\"3+1\","
	    "\"global_task_id\":{\"set\":true,\"infinite\":false,\"number\":"
	    "12},\"local_task_id\":{\"number\":2,\"set\":true}},"
	    "{\"pid\":8,\"job_id\":9,\"step_id\":\"3\",\"global_task_id\":"
	    "{\"set\":true,\"infinite\":true,\"number\":0}},"
	    "{\"pid\":9,\"job_id\":9,\"step_id\":\"3\",\"global_task_id\":"
	    "null,\"local_task_id\":null},"
	    "{\"pid\":10,\"job_id\":9,\"step_id\":\"3\",\"global_task_id\":"
	    "\"Infinity\"},"
	    "{\"pid\":11,\"job_id\":9,\"step_id\":\"TBD\",\"global_task_id\":"
	    "0,\"future\":{\"a\":[1,2.5e3,\"\\u00e9\"]}},"
	    "{\"pid\":12,\"job_id\":9,\"step_id\":\"interactive\","
	    "\"global_task_id\":1},"
	    "{\"pid\":13,\"job_id\":9,\"step_id\":\"extern\","
	    "\"global_task_id\":{\"set\":false,\"infinite\":false,"
	    "\"number\":0}}],"
	    "\"warnings\":[{\"description\":\"w\"}],\"errors\":[]} \n";
	static const char	 none[] = "{\"pids\": null}";
	struct listpids_task	 t[8];
	unsigned		 nother;
	const char		*why;
	int			 n;

	n = parse(s, strlen(s), t, 8, &nother, &why);
	CHECK_INT(n, 3);
	CHECK_INT(nother, 4);
	CHECK(why == NULL);
	if (n == 3) {
		CHECK_INT(t[0].pid, 7);
		CHECK_INT(t[0].step, 3);
		CHECK_INT(t[0].gtid, 12);
		CHECK_INT(t[0].ltid, 2);
		CHECK_INT(t[1].pid, 11);
		CHECK_INT(t[1].step, RANKS_STEP_NONE);
		CHECK_INT(t[1].ltid, -1);
		CHECK_INT(t[2].step, RANKS_STEP_INTERACTIVE);
	}
	CHECK_INT(parse(none, strlen(none), t, 8, &nother, &why), 0);
}

static void
test_version(void)
{
	static const struct {
		const char	*line;
		int		 ok;
	} v[] = {
		{ "slurm 24.11.0\n", 1 },
		{ "slurm 24.11.0-0rc1\n", 1 },
		{ "slurm 25.05.3\nslurm_api_version: 1\n", 1 },
		{ "slurm 26.05.0", 1 },
		{ "slurm 24.05.8\n", 0 },
		{ "slurm-wlm 22.05.8\n", 0 },
		{ "slurm 23.11.10\n", 0 },
		{ "slurm\n", -1 },
		{ "scontrol: error: x\n", -1 },
		{ "slurm 24\n", -1 },
		{ "", -1 },
	};
	unsigned	i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (listpids_version_ok(v[i].line, strlen(v[i].line)) !=
		    v[i].ok)
			harness_check(0, __FILE__, __LINE__,
			    "version %s: not %d", v[i].line, v[i].ok);
}

int
main(void)
{
	RUN(test_fixtures);
	RUN(test_truncated);
	RUN(test_refused);
	RUN(test_accepted);
	RUN(test_version);
	return harness_done();
}
