/*
 * filter: the '/' filter of the monitor, a PCRE2 pattern matched against
 * node names and rank commands.  Smart case: a pattern without capitals
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

#endif
