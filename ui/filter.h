/* SPDX-License-Identifier: ISC */
/*
 * filter: the '/' filter of the monitor, a PCRE2 pattern matched against
 * node names and rank commands (the process name and its whole command
 * line, so `/burn` finds `python3 burn.py`).  Smart case: a pattern without capitals
 * ignores case.  Compiled once (with the JIT when the library has it) and
 * matched many times per frame without allocating.
 */
#ifndef JOBTOP_FILTER_H
#define JOBTOP_FILTER_H

#include <stddef.h>

struct filter;

/* Compile a pattern: NULL with PCRE2's message and the offset in err. */
struct filter	*filter_new(const char *, char *, size_t);
void		 filter_free(struct filter *);
const char	*filter_pattern(const struct filter *);
/* Does the pattern match anywhere in s?  A NULL filter matches all. */
int		 filter_match(const struct filter *, const char *);
/* Does it match a rank instance (of the model's "rank" group, g its
 * index): its comm or its cmdline?  filter_rank_fields finds the two
 * fields' indexes (-1: none) once per node, for every rank of it. */
struct node_model;
struct minst;
void		 filter_rank_fields(const struct node_model *, unsigned,
		    int[2]);
int		 filter_match_rank(const struct filter *, const struct minst *,
		    const int[2]);

#endif
