/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for a node's compact stacks answer (src/stackfmt.c,
 * stk_decode and its range lists) and the merge of what it decoded into
 * the job's tree (src/stacktree.c), printed as text and JSON: whatever a
 * node (or a login shell before it) sends must decode or be refused with
 * a reason, and a decoded answer must merge and print.  Range lists must
 * read back as they were written.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackfmt.h"
#include "stacktree.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Every range list decoded is ascending and writes back to a list that
 * parses to the same ids (duplicates folded). */
static void
fuzz_ranges(const int64_t *v, size_t n)
{
	char	*buf;
	size_t	 len, i;
	int64_t	*w;
	long	 m;

	for (i = 1; i < n; i++)
		if (v[i] < v[i - 1])
			abort();
	len = stk_ranges_write(NULL, 0, v, n);
	if ((buf = malloc(len + 1)) == NULL)
		return;
	stk_ranges_write(buf, len + 1, v, n);
	m = stk_ranges_parse(buf, len, STK_RANKS_MAX, &w);
	if (m < 0 || (size_t)m > n)
		abort();
	free(w);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct stk_node	 n;
	struct stree	*t;
	char		 err[512], *out = NULL;
	size_t		 olen = 0;
	unsigned	 i;
	FILE		*f;

	if (stk_decode((const char *)data, len, &n, err, sizeof(err)) != 0) {
		if (strlen(err) == 0)
			abort();
		stk_node_free(&n);
		return 0;
	}
	for (i = 0; i < n.ntakes; i++) {
		if (n.tk[i].stack >= n.nstacks || n.tk[i].nranks == 0)
			abort();
		fuzz_ranges(n.tk[i].ranks, n.tk[i].nranks);
	}
	fuzz_ranges(n.moved, n.nmoved);
	fuzz_ranges(n.stuck, n.nstuck);
	t = stree_new(len & 1);
	stree_add_node(t, "node1", &n);
	stree_add_node(t, "node2", &n);
	stree_finish(t);
	if ((f = open_memstream(&out, &olen)) != NULL) {
		stree_print_text(t, f, "job");
		stree_print_json(t, f, "job");
		fclose(f);
		free(out);
	}
	stree_free(t);
	stk_node_free(&n);
	return 0;
}
