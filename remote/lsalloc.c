/* SPDX-License-Identifier: ISC */
/*
 * lsalloc: libssh2's allocator, big blocks mapped on their own so that
 * their untouched zero pages can be given back (lsalloc.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lsalloc.h"

/* Before each block: its size, the length of its mapping (0: it came
 * from malloc), and a mark that lsalloc_trim checks before it touches a
 * block (a libssh2 that handed out a pointer of its own would otherwise
 * have its memory read as a header).  32 bytes keep malloc's alignment. */
#define LSALLOC_MAGIC	((size_t)0x6a746c73616c6c63ULL)	/* "jtlsallc" */

struct lsalloc_hdr {
	size_t	size;
	size_t	mapped;
	size_t	magic;
	size_t	pad;
};

static size_t
lsalloc_page(void)
{
	static size_t	page;
	long		n;

	if (page == 0)
		page = (n = sysconf(_SC_PAGESIZE)) > 0 ? (size_t)n : 4096;
	return page;
}

void *
lsalloc_alloc(size_t n, void **abstract)
{
	struct lsalloc_hdr	*h;
	size_t			 len, page = lsalloc_page();
	void			*p;

	(void)abstract;
	if (n > SIZE_MAX - sizeof(*h) - page)
		return NULL;
	if (n < LSALLOC_BIG) {
		if ((h = malloc(sizeof(*h) + n)) == NULL)
			return NULL;
		h->mapped = 0;
	} else {
		len = (sizeof(*h) + n + page - 1) / page * page;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		h = p;
		h->mapped = len;
	}
	h->size = n;
	h->magic = LSALLOC_MAGIC;
	h->pad = 0;
	return h + 1;
}

void
lsalloc_free(void *p, void **abstract)
{
	struct lsalloc_hdr	*h;

	(void)abstract;
	if (p == NULL)
		return;
	h = (struct lsalloc_hdr *)p - 1;
	if (h->mapped != 0)
		munmap(h, h->mapped);
	else
		free(h);
}

void *
lsalloc_realloc(void *p, size_t n, void **abstract)
{
	struct lsalloc_hdr	*h, *nh;
	void			*q;

	if (p == NULL)
		return lsalloc_alloc(n, abstract);
	h = (struct lsalloc_hdr *)p - 1;
	if (h->mapped == 0 && n < LSALLOC_BIG) {
		if ((nh = realloc(h, sizeof(*nh) + n)) == NULL)
			return NULL;
		nh->size = n;
		return nh + 1;	/* the mark moved with it */
	}
	if ((q = lsalloc_alloc(n, abstract)) == NULL)
		return NULL;
	memcpy(q, p, h->size < n ? h->size : n);
	lsalloc_free(p, abstract);
	return q;
}

/* Whether the page at p holds only zeroes. */
static int
lsalloc_zero(const unsigned char *p, size_t page)
{
	const uint64_t	*w = (const uint64_t *)(const void *)p;
	size_t		 i;

	for (i = 0; i < page / sizeof(*w); i++) {
		if (w[i] != 0)
			return 0;
	}
	return 1;
}

size_t
lsalloc_trim(void *p)
{
	struct lsalloc_hdr	*h;
	unsigned char		*pg, *end;
	size_t			 page = lsalloc_page(), dropped = 0;

	if (p == NULL)
		return 0;
	/* Only a mapped block starts a page before its header. */
	h = (struct lsalloc_hdr *)p - 1;
	if ((uintptr_t)h % page != 0 || h->magic != LSALLOC_MAGIC ||
	    h->mapped == 0)
		return 0;
	/* The mapping starts at h, on a page: the first page holds the
	 * header, so it is never all zero. */
	end = (unsigned char *)h + h->mapped;
	for (pg = (unsigned char *)h + page; pg < end; pg += page) {
		if (!lsalloc_zero(pg, page) ||
		    madvise(pg, page, MADV_DONTNEED) != 0)
			continue;
		dropped += page;
	}
	return dropped;
}
