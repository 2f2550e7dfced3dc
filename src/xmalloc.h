/* SPDX-License-Identifier: ISC */
/*
 * xmalloc: allocation helpers for the monitor that never return NULL.  Out
 * of memory is one of the few fatal conditions: the helpers call fatal(),
 * which restores the terminal, says so on stderr and exits.  Code shared
 * with the probe (wire, proto) must not use them.
 */
#ifndef JOBTOP_XMALLOC_H
#define JOBTOP_XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
/* Resize to nmemb * size bytes, failing on overflow; ptr may be NULL. */
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
/* Format into a new string. */
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));

#endif
