/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the stacks parsers and the merge (src/stackfmt.c,
 * src/stacktree.c): real eu-stack and gdb output of a hung MPICH job
 * (tests/data/stacks/, taken from tests/data/mpi/hang.c), range lists,
 * the node's compact answer with its refusals, and the prefix tree of two
 * nodes' answers with its odd one out and progress.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "stackfmt.h"
#include "stacktree.h"

#define DATA	"tests/data/stacks/"
#define EXE	"/tmp/stk/hang"

static char *
slurp(const char *name, size_t *len)
{
	FILE		*f;
	char		*buf, path[4096];
	const char	*top = getenv("TOP");
	long		 n;

	snprintf(path, sizeof(path), "%s/%s", top != NULL ? top : ".", name);
	if ((f = fopen(path, "re")) == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		*len = 0;
		return calloc(1, 1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* The index of frame name in t, -1 when absent. */
static int
frame_at(const struct stk_thread *t, const char *name)
{
	unsigned	i;

	for (i = 0; i < t->nframes; i++)
		if (strcmp(t->frames[i], name) == 0)
			return (int)i;
	return -1;
}

static void
test_eustack(void)
{
	struct stk_proc	 p;
	char		*buf, err[128];
	size_t		 len;
	int		 k;
	const struct stk_thread *t;

	buf = slurp(DATA "eu-stack-read.txt", &len);
	CHECK_INT(stk_parse_debugger(STK_EUSTACK, buf, len, EXE, 64, 64, &p,
	    err, sizeof(err)), 0);
	CHECK(p.nthreads >= 2);
	t = &p.threads[0];
	CHECK_INT(t->tid, 17414);
	CHECK_STR(t->frames[0], "_start");
	CHECK_STR(t->frames[t->nframes - 1], "read");
	k = frame_at(t, "jobtop_stuck_in_read");
	CHECK_INT(k, (int)t->nframes - 2);
	CHECK_INT(t->lib[k], 0);
	CHECK_INT(t->lib[t->nframes - 1], 1);
	CHECK_INT(t->cut, 0);
	/* The call path runs into read, the library call. */
	CHECK_INT(stk_callpath_len(t), t->nframes);
	/* An unnamed frame says its module. */
	CHECK(frame_at(&p.threads[1], "?? (libucs.so.0.0.0)") >= 0);
	stk_proc_free(&p);
	free(buf);

	buf = slurp(DATA "eu-stack-allreduce.txt", &len);
	CHECK_INT(stk_parse_debugger(STK_EUSTACK, buf, len, EXE, 64, 64, &p,
	    err, sizeof(err)), 0);
	t = &p.threads[0];
	CHECK_STR(t->frames[0], "_start");
	CHECK_STR(t->frames[t->nframes - 1], "?? (libuct.so.0.0.0)");
	k = frame_at(t, "PMPI_Allreduce");
	CHECK(k > 0);
	/* Through PMPI_Allreduce, not into the spinning progress engine. */
	CHECK_INT(stk_callpath_len(t), k + 1);
	stk_proc_free(&p);

	/* The cap keeps the innermost frames and says it cut. */
	CHECK_INT(stk_parse_debugger(STK_EUSTACK, buf, len, EXE, 3, 1, &p,
	    err, sizeof(err)), 0);
	CHECK_INT(p.nthreads, 1);
	CHECK_INT(p.threads[0].nframes, 3);
	CHECK_INT(p.threads[0].cut, 1);
	CHECK_STR(p.threads[0].frames[2], "?? (libuct.so.0.0.0)");
	CHECK_STR(p.threads[0].frames[1], "ucp_worker_progress");
	stk_proc_free(&p);
	free(buf);
}

static void
test_gdb(void)
{
	struct stk_proc	 p;
	char		*buf, err[128];
	size_t		 len;
	unsigned	 i;
	int		 k, found = 0;
	const struct stk_thread *t;

	buf = slurp(DATA "gdb-read.txt", &len);
	CHECK_INT(stk_parse_debugger(STK_GDB, buf, len, EXE, 64, 64, &p, err,
	    sizeof(err)), 0);
	CHECK_INT(p.nthreads, 2);
	for (i = 0; i < p.nthreads; i++) {
		t = &p.threads[i];
		if (t->tid != 17414)
			continue;
		found = 1;
		CHECK_STR(t->frames[0], "main");
		k = frame_at(t, "jobtop_stuck_in_read");
		CHECK_INT(k, 1);
		CHECK_INT(t->lib[k], 0);
	}
	CHECK(found);
	stk_proc_free(&p);
	free(buf);

	/* A plain bt: no thread header, frames "from" libraries. */
	buf = slurp(DATA "gdb-allreduce.txt", &len);
	CHECK_INT(stk_parse_debugger(STK_GDB, buf, len, EXE, 64, 64, &p, err,
	    sizeof(err)), 0);
	CHECK_INT(p.nthreads, 1);
	t = &p.threads[0];
	CHECK_INT(t->tid, 0);
	CHECK_STR(t->frames[0], "main");
	k = frame_at(t, "PMPI_Allreduce");
	CHECK_INT(k, 1);
	CHECK_INT(t->lib[k], 1);
	CHECK(frame_at(t, "?? (libmpich.so.12)") > k);
	CHECK_INT(stk_callpath_len(t), 2);
	stk_proc_free(&p);
	free(buf);

	/* Nothing that is a frame: refused with a reason. */
	CHECK_INT(stk_parse_debugger(STK_GDB, "ptrace: Operation not "
	    "permitted.\n", 31, NULL, 64, 64, &p, err, sizeof(err)), -1);
	CHECK(strstr(err, "no frame") != NULL);
	CHECK_INT(stk_parse_debugger(STK_EUSTACK, "", 0, NULL, 64, 64, &p,
	    err, sizeof(err)), -1);
}

static void
test_ranges(void)
{
	int64_t	 a[] = { 0, 1, 3 }, b[] = { 1, 1, 2, 7, 8, 9, 11 }, *v;
	char	 buf[64];
	long	 n;

	CHECK_INT(stk_ranges_write(buf, sizeof(buf), a, 3), 5);
	CHECK_STR(buf, "0-1,3");
	stk_ranges_write(buf, sizeof(buf), b, 7);
	CHECK_STR(buf, "1-2,7-9,11");
	stk_ranges_write(buf, sizeof(buf), a, 0);
	CHECK_STR(buf, "");
	/* Too long for the buffer: cut with "...", the need returned. */
	CHECK_INT(stk_ranges_write(buf, 6, b, 7), 10);
	CHECK(strstr(buf, "...") != NULL && strlen(buf) < 6);

	CHECK_INT(n = stk_ranges_parse("0-1,3", 5, 100, &v), 3);
	CHECK(n == 3 && v[0] == 0 && v[1] == 1 && v[2] == 3);
	free(v);
	CHECK_INT(stk_ranges_parse("", 0, 100, &v), 0);
	CHECK_INT(stk_ranges_parse("3,1", 3, 100, &v), -1);
	CHECK_INT(stk_ranges_parse("1-", 2, 100, &v), -1);
	CHECK_INT(stk_ranges_parse("2-1", 3, 100, &v), -1);
	CHECK_INT(stk_ranges_parse("1,,2", 4, 100, &v), -1);
	CHECK_INT(stk_ranges_parse("x", 1, 100, &v), -1);
	CHECK_INT(stk_ranges_parse("2147483648", 10, 100, &v), -1);
	CHECK_INT(stk_ranges_parse("0-2147483647", 12, 100, &v), -1);
	CHECK_INT(stk_ranges_parse("0-99", 4, 100, &v), 100);
	free(v);
}

/* Node A: ranks 0 and 1 in the collective; node B: rank 2 stuck in its
 * read, rank 3 in the collective.  Login-shell noise comes first. */
static const char node_a[] =
    "Welcome to the cluster\n"
    "jobtop-stacks 1\ntool\teu-stack\nas\t1000\ngap\t3000\nframes\t64\n"
    "tasks\t2\n"
    "S\t0\t_start\tmain\tPMPI_Allreduce\t?? (libmpich.so.12)\n"
    "S\t1\tirqentry_exit_to_user_mode\n"
    "T\t1\t0\t2\t0-1\nT\t2\t0\t2\t0-1\nK\t2\t1\t2\t0-1\n"
    "moved\t\nstuck\t0-1\nfuture\tkey\tignored\ncost\t2\t120\t110\t80\nend\n";
static const char node_b[] =
    "jobtop-stacks 1\ntool\teu-stack\ngap\t3000\nframes\t64\ntasks\t3\n"
    "S\t0\t_start\tmain\tjobtop_stuck_in_read\tread\n"
    "S\t1\t_start\tmain\tPMPI_Allreduce\tucp_worker_progress\n"
    "S\t2\t_start\tmain\tcompute\n"
    "T\t1\t0\t1\t2\nT\t1\t2\t1\t3\nT\t2\t0\t1\t2\nT\t2\t1\t1\t3\n"
    "moved\t3\nstuck\t2\nE\t4\tthe process is gone\n"
    "cost\t2\t300\t250\t90\nend\n";

static void
test_decode(void)
{
	struct stk_node	 n;
	char		 err[128];

	CHECK_INT(stk_decode(node_a, strlen(node_a), &n, err, sizeof(err)), 0);
	CHECK_STR(n.tool, "eu-stack");
	CHECK_INT(n.as_uid, 1000);
	CHECK_INT(n.gap_ms, 3000);
	CHECK_INT(n.nstacks, 2);
	CHECK_INT(n.nframes[0], 4);
	CHECK_STR(n.stacks[0][3], "?? (libmpich.so.12)");
	CHECK_INT(n.ntakes, 3);
	CHECK_INT(n.tk[2].kernel, 1);
	CHECK_INT(n.nstuck, 2);
	CHECK_INT(n.nmoved, 0);
	CHECK_INT(n.take_ms[1], 110);
	CHECK_INT(n.cpu_ms, 80);
	stk_node_free(&n);

	/* Refusals: cut short, a stack out of order, a take of an unknown
	 * stack, more threads claimed than... fewer, another version. */
	CHECK_INT(stk_decode("jobtop-stacks 1\nS\t0\tmain\n", 26, &n, err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "cut short") != NULL);
	stk_node_free(&n);
	CHECK_INT(stk_decode("jobtop-stacks 1\nS\t1\tmain\nend\n", 30, &n,
	    err, sizeof(err)), -1);
	CHECK(strstr(err, "line 2") != NULL);
	stk_node_free(&n);
	CHECK_INT(stk_decode("jobtop-stacks 1\nT\t1\t0\t1\t0\nend\n", 31, &n,
	    err, sizeof(err)), -1);
	stk_node_free(&n);
	CHECK_INT(stk_decode("jobtop-stacks 1\nS\t0\tm\nT\t1\t0\t1\t0-3\nend\n",
	    38, &n, err, sizeof(err)), -1);
	stk_node_free(&n);
	CHECK_INT(stk_decode("jobtop-stacks 2\nend\n", 20, &n, err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "version 2") != NULL);
	stk_node_free(&n);
	CHECK_INT(stk_decode("hello\n", 6, &n, err, sizeof(err)), -1);
	CHECK(strstr(err, "no stacks answer") != NULL);
	stk_node_free(&n);
	CHECK_INT(stk_decode("jobtop-stacks 1\nS\t0\ta\t\tb\nend\n", 29, &n,
	    err, sizeof(err)), -1);
	stk_node_free(&n);
}

static void
test_tree(void)
{
	struct stk_node		 a, b;
	struct stree		*t;
	struct stree_branch	 br;
	char			 err[128], *out = NULL;
	static char		 f0[] = "_start", f1[] = "main",
				 f2[] = "PMPI_Allreduce",
				 f3[] = "jobtop_stuck_in_read",
				 f4[] = "compute", f5[] = "nowhere";
	char			*coll[] = { f0, f1, f2 };
	char			*stuck[] = { f0, f1, f3 };
	const int64_t		*ids;
	size_t			 len = 0;
	FILE			*f;

	CHECK_INT(stk_decode(node_a, strlen(node_a), &a, err, sizeof(err)), 0);
	CHECK_INT(stk_decode(node_b, strlen(node_b), &b, err, sizeof(err)), 0);
	t = stree_new(1);
	stree_add_node(t, "node1", &a);
	stree_add_node(t, "node2", &b);
	stree_fail_node(t, "node3", "no live connection");
	stk_node_free(&a);
	stk_node_free(&b);
	stree_finish(t);
	CHECK(stree_answered(t));

	CHECK_INT(stree_find(t, STREE_TAKE2, coll, 3, &br), 0);
	CHECK_INT(br.nranks, 3);
	CHECK(br.nranks == 3 && br.ranks[0] == 0 && br.ranks[1] == 1 &&
	    br.ranks[2] == 3);
	CHECK_INT(br.odd, 0);
	CHECK_INT(stree_find(t, STREE_TAKE2, stuck, 3, &br), 0);
	CHECK(br.nranks == 1 && br.ranks[0] == 2);
	CHECK_INT(br.odd, 1);
	/* In the first take rank 3 computed: three branches of 2, 1, 1. */
	coll[2] = f4;
	CHECK_INT(stree_find(t, STREE_TAKE1, coll, 3, &br), 0);
	CHECK(br.nranks == 1 && br.ranks[0] == 3 && br.odd);
	coll[2] = f5;
	CHECK_INT(stree_find(t, STREE_TAKE1, coll, 3, &br), -1);
	CHECK_INT(stree_progress(t, 1, &ids), 1);
	CHECK_INT(ids[0], 3);
	CHECK_INT(stree_progress(t, 0, &ids), 3);

	f = open_memstream(&out, &len);
	stree_print_text(t, f, "job 77");
	fclose(f);
	CHECK(strstr(out, "stacks of job 77: 5 ranks on 2 nodes") != NULL);
	CHECK(strstr(out, " +- 3 ranks [0-1,3]\n") != NULL);
	CHECK(strstr(out, " +- 1 rank [2]  <- odd one out\n") != NULL);
	CHECK(strstr(out, "progress over 3.0 s: 1 of 4 moved") != NULL);
	CHECK(strstr(out, "no progress (same call path in both takes): 3 "
	    "ranks [0-2]") != NULL);
	CHECK(strstr(out, "node2: 1 rank [4]: the process is gone") != NULL);
	CHECK(strstr(out, "node3: no stacks: no live connection") != NULL);
	CHECK(strstr(out, "kernel stacks:\n2 ranks [0-1]") != NULL);
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	stree_print_json(t, f, "77");
	fclose(f);
	CHECK(strncmp(out, "{\"type\":\"stacks\",\"job\":\"77\"", 27) == 0);
	CHECK(strstr(out, "\"frame\":\"jobtop_stuck_in_read\",\"count\":1,"
	    "\"threads\":1,\"ids\":\"2\",\"odd\":true") != NULL);
	CHECK(strstr(out, "\"moved\":\"3\",\"stuck\":\"0-2\"") != NULL);
	CHECK(strstr(out, "\"as_uid\":1000") != NULL);
	CHECK(out[len - 1] == '\n');
	free(out);
	stree_free(t);
}

int
main(void)
{
	RUN(test_eustack);
	RUN(test_gdb);
	RUN(test_ranges);
	RUN(test_decode);
	RUN(test_tree);
	return harness_done();
}
