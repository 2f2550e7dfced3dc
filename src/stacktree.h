/* SPDX-License-Identifier: ISC */
/*
 * stacktree: the stacks of a whole job merged into one prefix tree, as
 * LLNL's STAT shows them: the root is the outermost frame, every node
 * counts the ranks (and threads) whose stacks pass through it and keeps
 * their ids, and where the stacks part, the smallest branches are the odd
 * ones out.  The nodes' answers (stackfmt.h) are added one by one; a
 * node that gave none is added with its reason.  Text (a tree, range
 * lists: "3 ranks [0-1,3]") and one JSON object come out.
 */
#ifndef JOBTOP_STACKTREE_H
#define JOBTOP_STACKTREE_H

#include <stdint.h>
#include <stdio.h>

#include "stackfmt.h"

struct stree;

/* ids: 1 when they are rank ids, 0 when pids (-w: processes). */
struct stree	*stree_new(int);
void		 stree_free(struct stree *);
/* A node's answer (the tree takes copies of what it keeps). */
void		 stree_add_node(struct stree *, const char *,
		    const struct stk_node *);
/* A node that gave no answer, and why. */
void		 stree_fail_node(struct stree *, const char *, const char *);
/* A path of frames (outermost first) in tree which (STREE_*) with
 * nthreads threads of these ranks. */
#define STREE_KERNEL	0
#define STREE_TAKE1	1
#define STREE_TAKE2	2
void		 stree_add_path(struct stree *, int, char *const *, unsigned,
		    unsigned, const int64_t *, size_t);

/* Did any node answer? */
int		 stree_answered(const struct stree *);
/* The first node that failed and why (NULL: none). */
const char	*stree_failure(const struct stree *, const char **);
/* Sort ids and find the odd ones out: after the last add. */
void		 stree_finish(struct stree *);
/* The job's name for the header ("job 123", "node1,node2"). */
void		 stree_print_text(struct stree *, FILE *, const char *);
void		 stree_print_json(struct stree *, FILE *, const char *);

/* The branch of tree which for a path of frames: 0, or -1 when no
 * stack has that prefix. */
struct stree_branch {
	unsigned	 nthreads;
	size_t		 nranks;
	const int64_t	*ranks;
	int		 odd;
};
int		 stree_find(const struct stree *, int, char *const *,
		    unsigned, struct stree_branch *);
/* The ranks that moved (1) or did not (0) between the takes, sorted. */
size_t		 stree_progress(const struct stree *, int,
		    const int64_t **);

#endif
