/* SPDX-License-Identifier: ISC */
/*
 * test-hostlist: unit tests of hostlist expansion and folding, and a small
 * driver for tests/regress/hostlist-oracle.sh:
 *
 *	test-hostlist --expand EXPR	print the names, one per line
 *	test-hostlist --fold NAME...	print the folded expression
 *
 * On error the driver prints the message on stderr and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hostlist.h"

/* Expand expr and compare with the names in want (space-separated). */
static void
check_expand(const char *expr, const char *want, const char *wantfold)
{
	struct hostlist	*hl;
	char		 err[256], joined[8192], *fold;
	size_t		 i, len = 0;
	int		 r;

	r = hostlist_expand(expr, &hl, err, sizeof(err));
	harness_check(r == HL_OK, __FILE__, __LINE__, "expand \"%s\": %s",
	    expr, err);
	if (r != HL_OK)
		return;
	joined[0] = '\0';
	for (i = 0; i < hostlist_count(hl); i++) {
		len += (size_t)snprintf(joined + len, sizeof(joined) - len,
		    "%s%s", i > 0 ? " " : "", hostlist_get(hl, i));
		if (len >= sizeof(joined))
			break;
	}
	harness_check(strcmp(joined, want) == 0, __FILE__, __LINE__,
	    "expand \"%s\": got \"%s\", want \"%s\"", expr, joined, want);
	if (wantfold != NULL) {
		CHECK_INT(hostlist_fold(hl, &fold), HL_OK);
		harness_check(fold != NULL && strcmp(fold, wantfold) == 0,
		    __FILE__, __LINE__, "fold \"%s\": got \"%s\", want \"%s\"",
		    expr, fold != NULL ? fold : "(null)", wantfold);
		free(fold);
	}
	hostlist_free(hl);
}

/* expr must fail with code, and the message must mention what. */
static void
check_error(const char *expr, int code, const char *what)
{
	struct hostlist	*hl;
	char		 err[256] = "";
	int		 r;

	r = hostlist_expand(expr, &hl, err, sizeof(err));
	harness_check(r == code && hl == NULL, __FILE__, __LINE__,
	    "expand \"%.60s\": got %d (%s), want %d", expr, r, err, code);
	harness_check(what == NULL || strstr(err, what) != NULL, __FILE__,
	    __LINE__, "expand \"%.60s\": message \"%s\" lacks \"%s\"", expr,
	    err, what != NULL ? what : "");
}

/* Fold the names (space-separated) and compare. */
static void
check_fold(const char *names, const char *want)
{
	struct hostlist	*hl = hostlist_new();
	char		 copy[4096], *tok, *save, err[256], *fold = NULL;

	snprintf(copy, sizeof(copy), "%s", names);
	for (tok = strtok_r(copy, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save))
		CHECK_INT(hostlist_push_name(hl, tok, err, sizeof(err)),
		    HL_OK);
	CHECK_INT(hostlist_fold(hl, &fold), HL_OK);
	harness_check(fold != NULL && strcmp(fold, want) == 0, __FILE__,
	    __LINE__, "fold \"%s\": got \"%s\", want \"%s\"", names,
	    fold != NULL ? fold : "(null)", want);
	free(fold);
	hostlist_free(hl);
}

/* fold(expand(expr)) must expand to the same set again. */
static void
check_roundtrip(const char *expr)
{
	struct hostlist	*a, *b;
	char		 err[256], *fold;
	size_t		 i, n;
	int		 same;

	if (hostlist_expand(expr, &a, err, sizeof(err)) != HL_OK) {
		harness_check(0, __FILE__, __LINE__, "%s: %s", expr, err);
		return;
	}
	CHECK_INT(hostlist_fold(a, &fold), HL_OK);
	if (hostlist_expand(fold, &b, err, sizeof(err)) != HL_OK) {
		harness_check(0, __FILE__, __LINE__, "refold %s: %s", fold,
		    err);
		free(fold);
		hostlist_free(a);
		return;
	}
	n = hostlist_count(a);
	same = n == hostlist_count(b);
	for (i = 0; same && i < n; i++)
		same = strcmp(hostlist_get(a, i), hostlist_get(b, i)) == 0;
	harness_check(same, __FILE__, __LINE__, "%s -> %s changes the set",
	    expr, fold);
	free(fold);
	hostlist_free(a);
	hostlist_free(b);
}

static void
test_expand(void)
{
	check_expand("node[01-16,20],gpu3", "gpu3 node01 node02 node03 "
	    "node04 node05 node06 node07 node08 node09 node10 node11 node12 "
	    "node13 node14 node15 node16 node20", "gpu3,node[01-16,20]");
	check_expand("rack[1-2]-node[01-03]", "rack1-node01 rack1-node02 "
	    "rack1-node03 rack2-node01 rack2-node02 rack2-node03",
	    "rack[1-2]-node[01-03]");
	check_expand("n[1-3]-ib", "n1-ib n2-ib n3-ib", "n[1-3]-ib");
	check_expand("n[1-2]-ib[0-1]", "n1-ib0 n1-ib1 n2-ib0 n2-ib1",
	    "n[1-2]-ib[0-1]");
	check_expand("login", "login", "login");
	check_expand("b,a,c", "a b c", "a,b,c");
	check_expand("n[1,3],n2", "n1 n2 n3", "n[1-3]");
	check_expand("n3,n1,n2,n1,n3", "n1 n2 n3", "n[1-3]");
	check_expand("n10,n9,n1", "n1 n9 n10", "n[1,9-10]");
	check_expand("n[8-11]", "n8 n9 n10 n11", "n[8-11]");
	check_expand("n[08-11]", "n08 n09 n10 n11", "n[08-11]");
	check_expand("n[098-101]", "n098 n099 n100 n101", "n[098-101]");
	check_expand("n1,n01,n001", "n1 n01 n001", "n[1,01,001]");
	check_expand("n[0-1],n[00-01]", "n0 n1 n00 n01", "n[0-1,00-01]");
	check_expand("n[1-9/2]", "n1 n3 n5 n7 n9", "n[1,3,5,7,9]");
	check_expand("n[ 1 - 3 , 5 ]", "n1 n2 n3 n5", "n[1-3,5]");
	check_expand("  a , b  ", "a b", "a,b");
	check_expand("n[1-3,2-4]", "n1 n2 n3 n4", "n[1-4]");
	check_expand("x[0]", "x0", "x0");
	check_expand("[1-3]", "1 2 3", "[1-3]");
	check_expand("a1b[1-2]c", "a1b1c a1b2c", "a1b[1-2]c");
	check_expand("n[1-2].cluster.org", "n1.cluster.org n2.cluster.org",
	    "n[1-2].cluster.org");
	check_expand("10.0.0.[1-3]", "10.0.0.1 10.0.0.2 10.0.0.3",
	    "10.0.0.[1-3]");
	/* ClusterShell's digit rules around brackets. */
	check_expand("n[1-2]0", "n10 n20", "n[10,20]");
	check_expand("n0[1-3]", "n01 n02 n03", "n[01-03]");
	check_expand("n1[01-02]", "n101 n102", "n[101-102]");
	check_expand("gpu-[1-2]-ib", "gpu-1-ib gpu-2-ib", "gpu-[1-2]-ib");
	/* Slurm's own sort ("n9" before "n10"); the set is a set. */
	check_expand("gpu3,node[1-2],gpu[1-2]", "gpu1 gpu2 gpu3 node1 node2",
	    "gpu[1-3],node[1-2]");
}

static void
test_expand_big(void)
{
	struct hostlist	*hl;
	char		 err[256], *fold, expr[64];
	int		 r;

	r = hostlist_expand("cn[000001-200000]", &hl, err, sizeof(err));
	CHECK_INT(r, HL_OK);
	if (r != HL_OK)
		return;
	CHECK_INT(hostlist_count(hl), 200000);
	CHECK_STR(hostlist_get(hl, 0), "cn000001");
	CHECK_STR(hostlist_get(hl, 199999), "cn200000");
	CHECK_INT(hostlist_find(hl, "cn100000"), 99999);
	CHECK_INT(hostlist_find(hl, "cn1"), -1);
	CHECK(hostlist_get(hl, 200000) == NULL);
	CHECK_INT(hostlist_fold(hl, &fold), HL_OK);
	CHECK_STR(fold, "cn[000001-200000]");
	free(fold);
	hostlist_free(hl);

	/* Exactly at the limit is fine. */
	snprintf(expr, sizeof(expr), "n[1-%d]", HOSTLIST_MAX_NAMES);
	CHECK_INT(hostlist_expand(expr, &hl, err, sizeof(err)), HL_OK);
	if (hl != NULL)
		CHECK_INT(hostlist_count(hl), HOSTLIST_MAX_NAMES);
	hostlist_free(hl);
}

static void
test_errors(void)
{
	char	long_name[300], expr[400];

	check_error("node[1-3", HL_ESYNTAX, "missing ']'");
	check_error("node1-3]", HL_ESYNTAX, "unbalanced ']'");
	check_error("node[1-[3]]", HL_ESYNTAX, NULL);
	check_error("node[5-1]", HL_ERANGE, "reversed");
	check_error("node[1-2,9-3]", HL_ERANGE, "reversed");
	check_error("", HL_EEMPTY, "empty");
	check_error("   ", HL_EEMPTY, "empty");
	check_error("a,,b", HL_ESYNTAX, "empty item");
	check_error(",a", HL_ESYNTAX, "empty item");
	check_error("a,", HL_ESYNTAX, "empty item");
	check_error("node[]", HL_ERANGE, "empty range");
	check_error("node[1,]", HL_ERANGE, "empty range");
	check_error("node[a-b]", HL_ERANGE, "not a number");
	check_error("node[1-2-3]", HL_ERANGE, NULL);
	check_error("node[-3]", HL_ERANGE, "negative");
	check_error("node[01-100]", HL_ERANGE, "padding");
	check_error("node[1-010]", HL_ERANGE, "padding");
	check_error("n0[8-12]", HL_ERANGE, "padding");
	check_error("n[1-2][3-4]", HL_ESYNTAX, "bracket may not follow");
	check_error("n[1-2]5[3-4]", HL_ESYNTAX, "bracket may not follow");
	check_error("n[1-9/0]", HL_ERANGE, "step");
	check_error("n[5/2]", HL_ERANGE, "step");
	check_error("n[1-9/2]0", HL_ERANGE, "steps");
	/* Blanks separate names as in Slurm (one separator per run). */
	check_expand("a b", "a b", "a,b");
	check_expand("a\tb\n", "a b", "a,b");
	check_expand("b\n\na \n , c", "a b c", "a,b,c");
	check_expand("rack[0-1]_blade[0-1]",
	    "rack0_blade0 rack0_blade1 rack1_blade0 rack1_blade1",
	    "rack[0-1]_blade[0-1]");
	check_error("a ,, b", HL_ESYNTAX, "empty item");
	check_error("a\rb", HL_ESYNTAX, "control");
	check_error("n[1,\n2]", HL_ESYNTAX, "control");
	check_error("a!b", HL_ESYNTAX, "not supported");
	check_error("@group", HL_ESYNTAX, "not supported");
	check_error("x[1-1000001]", HL_ETOOMANY, "more than");
	check_error("x[1-999999999999999999]", HL_ETOOMANY, NULL);
	check_error("x[1-1000],y[1-1000]z[1-1000]", HL_ETOOMANY, NULL);
	check_error("x[1-9999999999999999999]", HL_ERANGE, "too large");
	check_error("n1[1-999999999999]", HL_ETOOMANY, NULL);
	memset(long_name, 'a', 256);
	long_name[256] = '\0';
	check_error(long_name, HL_ETOOLONG, "longer than");
	memset(long_name, 'a', 250);
	snprintf(expr, sizeof(expr), "%.250s[1-100000]", long_name);
	check_error(expr, HL_ETOOLONG, "longer than");
}

/* 250 bytes of prefix and 5 digits: the longest name allowed. */
static void
test_longest_name(void)
{
	struct hostlist	*hl;
	char		 expr[400], err[256];

	memset(expr, 'a', 250);
	snprintf(expr + 250, sizeof(expr) - 250, "[1-10000]");
	CHECK_INT(hostlist_expand(expr, &hl, err, sizeof(err)), HL_OK);
	if (hl != NULL) {
		CHECK_INT(hostlist_count(hl), 10000);
		CHECK_INT(strlen(hostlist_get(hl, 9999)), HOSTLIST_MAX_NAME);
	}
	hostlist_free(hl);
}

static void
test_set(void)
{
	struct hostlist	*hl = hostlist_new();
	char		 err[256], *fold;

	CHECK_INT(hostlist_count(hl), 0);
	CHECK_INT(hostlist_fold(hl, &fold), HL_OK);
	CHECK_STR(fold, "");
	free(fold);

	/* A failed push leaves the set as it was. */
	CHECK_INT(hostlist_push(hl, "a,b", err, sizeof(err)), HL_OK);
	CHECK_INT(hostlist_push(hl, "c,d[", err, sizeof(err)), HL_ESYNTAX);
	CHECK_INT(hostlist_count(hl), 2);

	/* Limits count distinct names. */
	hostlist_set_limit(hl, 10);
	CHECK_INT(hostlist_push(hl, "n[1-8]", err, sizeof(err)), HL_OK);
	CHECK_INT(hostlist_count(hl), 10);
	CHECK_INT(hostlist_push(hl, "n9", err, sizeof(err)), HL_ETOOMANY);
	CHECK_INT(hostlist_push_name(hl, "n9", err, sizeof(err)),
	    HL_ETOOMANY);
	CHECK_INT(hostlist_push(hl, "n[3-5]", err, sizeof(err)), HL_OK);
	CHECK_INT(hostlist_push_name(hl, "a", err, sizeof(err)), HL_OK);
	CHECK_INT(hostlist_count(hl), 10);
	CHECK_INT(hostlist_push_name(hl, "", err, sizeof(err)), HL_EEMPTY);
	CHECK_INT(hostlist_push_name(hl, "a b", err, sizeof(err)),
	    HL_ESYNTAX);
	CHECK_INT(hostlist_find(hl, "n8"), 9);
	CHECK_INT(hostlist_find(hl, "b"), 1);
	CHECK_INT(hostlist_fold(hl, &fold), HL_OK);
	CHECK_STR(fold, "a,b,n[1-8]");
	free(fold);
	hostlist_free(hl);
	hostlist_free(NULL);

	CHECK(strcmp(hostlist_strerror(HL_ERANGE), "bad range in host list")
	    == 0);
	CHECK(hostlist_strerror(12345) != NULL);
}

static void
test_merge(void)
{
	struct hostlist	*a, *b;
	char		 err[256], *fold;

	CHECK_INT(hostlist_expand("n[1-3]", &a, err, sizeof(err)), HL_OK);
	CHECK_INT(hostlist_expand("n[3-5],m1", &b, err, sizeof(err)), HL_OK);
	CHECK_INT(hostlist_merge(a, b), HL_OK);
	CHECK_INT(hostlist_fold(a, &fold), HL_OK);
	CHECK_STR(fold, "m1,n[1-5]");
	free(fold);
	hostlist_free(a);
	hostlist_free(b);
}

/* A list in its writer's order (Flux numbers a job's brokers so). */
static void
test_keep_order(void)
{
	struct hostlist	*hl;
	char		 err[256];

	hl = hostlist_new();
	hostlist_keep_order(hl);
	CHECK_INT(hostlist_push(hl, "node[3,1-2],gpu1 node10,node9", err,
	    sizeof(err)), HL_OK);
	CHECK_INT(hostlist_count(hl), 6);
	CHECK_STR(hostlist_get(hl, 0), "node3");
	CHECK_STR(hostlist_get(hl, 1), "node1");
	CHECK_STR(hostlist_get(hl, 3), "gpu1");
	CHECK_STR(hostlist_get(hl, 5), "node9");
	CHECK_INT(hostlist_find(hl, "node3"), 0);
	CHECK_INT(hostlist_find(hl, "node2"), 2);
	CHECK_INT(hostlist_find(hl, "node10"), 4);
	CHECK_INT(hostlist_find(hl, "node4"), -1);
	/* Duplicates stay: the first is found. */
	CHECK_INT(hostlist_push_name(hl, "node1", err, sizeof(err)), HL_OK);
	CHECK_INT(hostlist_count(hl), 7);
	CHECK_INT(hostlist_find(hl, "node1"), 1);
	/* Full is full: no dropping of names it has. */
	hostlist_set_limit(hl, 8);
	CHECK_INT(hostlist_push(hl, "node[1-2]", err, sizeof(err)),
	    HL_ETOOMANY);
	CHECK_INT(hostlist_count(hl), 7);
	hostlist_free(hl);
}

static void
test_fold(void)
{
	check_fold("n1 n01 n10 n9 n0 n00 n001 n0010",
	    "n[0-1,9,00-01,10,001,0010]");
	check_fold("rack1-node01 rack1-node02 rack1-node03 rack2-node01 "
	    "rack2-node02", "rack1-node[01-03],rack2-node[01-02]");
	check_fold("a1b1 a1b2 a2b1 a2b2 a3b1", "a[1-2]b[1-2],a3b1");
	check_fold("r1n1 r2n1 r3n1", "r[1-3]n1");
	check_fold("r1n1 r1n2 r2n3", "r1n[1-2],r2n3");
	check_fold("x1y1z1 x1y1z2 x2y1z1 x2y1z2 x1y2z1 x1y2z2 x2y2z1 x2y2z2",
	    "x[1-2]y[1-2]z[1-2]");
	check_fold("node9 node10 node11", "node[9-11]");
	check_fold("node09 node10 node11", "node[09-11]");
	check_fold("node99 node100", "node[99-100]");
	check_fold("node099 node100", "node[099-100]");
	check_fold("node1 node3 node5", "node[1,3,5]");
	check_fold("gpu3 node1 login", "gpu3,login,node1");
	check_fold("node-ib node%1 node1", "node%1,node1,node-ib");
	check_fold("n18446744073709551615 n18446744073709551616",
	    "n[18446744073709551615-18446744073709551616]");
	check_fold("n99999999999999999999999999 n100000000000000000000000000",
	    "n[99999999999999999999999999-100000000000000000000000000]");
}

static void
test_roundtrip(void)
{
	static const char *exprs[] = {
		"node[01-16,20],gpu3", "rack[1-4]-node[001-128]",
		"a[1-3]b[1-3],a4b1,a5b[2-3]", "n[1-2]0", "n1[8-12]",
		"x[1-5]y[1-5]z[1,3,5]", "n[1,01,001,0001]",
		"login[1-2],compute[001-100,200-300]-ib[0-1]",
	};
	size_t	i;

	for (i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++)
		check_roundtrip(exprs[i]);
}

/* The driver mode used by tests/regress/hostlist-oracle.sh. */
static int
driver(int argc, char **argv)
{
	struct hostlist	*hl;
	char		 err[256], *fold;
	size_t		 i;
	int		 a;

	if (strcmp(argv[1], "--expand") == 0 && argc == 3) {
		if (hostlist_expand(argv[2], &hl, err, sizeof(err)) != HL_OK) {
			fprintf(stderr, "test-hostlist: %s\n", err);
			return 1;
		}
		for (i = 0; i < hostlist_count(hl); i++)
			printf("%s\n", hostlist_get(hl, i));
		hostlist_free(hl);
		return 0;
	}
	if (strcmp(argv[1], "--fold") == 0) {
		if ((hl = hostlist_new()) == NULL)
			return 1;
		for (a = 2; a < argc; a++) {
			if (hostlist_push(hl, argv[a], err, sizeof(err)) !=
			    HL_OK) {
				fprintf(stderr, "test-hostlist: %s\n", err);
				return 1;
			}
		}
		if (hostlist_fold(hl, &fold) != HL_OK)
			return 1;
		printf("%s\n", fold);
		free(fold);
		hostlist_free(hl);
		return 0;
	}
	fprintf(stderr, "usage: test-hostlist [--expand EXPR | --fold "
	    "EXPR...]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		return driver(argc, argv);
	RUN(test_expand);
	RUN(test_expand_big);
	RUN(test_errors);
	RUN(test_longest_name);
	RUN(test_set);
	RUN(test_merge);
	RUN(test_keep_order);
	RUN(test_fold);
	RUN(test_roundtrip);
	return harness_done();
}
