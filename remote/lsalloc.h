/* SPDX-License-Identifier: ISC */
/*
 * lsalloc: libssh2's allocator for jobtop's sessions.
 *
 * libssh2 1.10 allocates each session as one 54,840-byte struct (its
 * packet buffers are inline: 16 KiB for the packet being read, 35,000
 * bytes for the one being written) and zeroes it, so every page of it is
 * resident from the start: at a thousand nodes that is 54 MiB, more than
 * the rest of the monitor together.  A probe's stream is small packets
 * (a sample is a few hundred bytes to a few KiB), which touch only the
 * first pages of those buffers.  Blocks of LSALLOC_BIG bytes or more are
 * therefore mapped on their own, and lsalloc_trim gives back the pages
 * of one that hold nothing but zeroes (MADV_DONTNEED: a later read finds
 * zeroes again, a write gets a fresh page), which the caller does right
 * after libssh2_session_init_ex.  Smaller blocks come from malloc.  The
 * functions have libssh2's signatures (libssh2_session_init_ex).
 */
#ifndef JOBTOP_LSALLOC_H
#define JOBTOP_LSALLOC_H

#include <stddef.h>

#define LSALLOC_BIG	(16 << 10)

void	*lsalloc_alloc(size_t, void **);
void	 lsalloc_free(void *, void **);
void	*lsalloc_realloc(void *, size_t, void **);
/* Give back the all-zero pages of a block of lsalloc_alloc (none for a
 * small one): the bytes given back. */
size_t	 lsalloc_trim(void *);

#endif
