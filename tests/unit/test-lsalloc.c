/* SPDX-License-Identifier: ISC */
/*
 * test-lsalloc: libssh2's allocator (remote/lsalloc.c).  Small blocks
 * come from malloc and keep their bytes through realloc; a big block is
 * mapped, and lsalloc_trim gives back exactly its all-zero pages (mincore
 * says they are no longer resident) while every byte reads as before; a
 * pointer of malloc's own is left alone.  Then a real libssh2 session
 * made with it: most of its 54 KB struct goes back right after
 * libssh2_session_init_ex, and the session still frees cleanly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libssh2.h>

#include "harness.h"
#include "lsalloc.h"

static size_t	page;

/* Resident pages of [p, p + len), p on a page. */
static size_t
resident(void *p, size_t len)
{
	unsigned char	vec[256];
	size_t		n = (len + page - 1) / page, i, r = 0;

	if (n > sizeof(vec) || mincore(p, len, vec) != 0)
		return (size_t)-1;
	for (i = 0; i < n; i++)
		r += vec[i] & 1;
	return r;
}

static void
test_small(void)
{
	char	*p, *q;

	p = lsalloc_alloc(100, NULL);
	CHECK(p != NULL);
	memcpy(p, "hello", 6);
	q = lsalloc_realloc(p, 5000, NULL);
	CHECK(q != NULL && strcmp(q, "hello") == 0);
	/* small to big and back: the bytes move along */
	q = lsalloc_realloc(q, 3 * LSALLOC_BIG, NULL);
	CHECK(q != NULL && strcmp(q, "hello") == 0);
	q = lsalloc_realloc(q, 10, NULL);
	CHECK(q != NULL && strcmp(q, "hello") == 0);
	CHECK_INT((int)lsalloc_trim(q), 0);
	lsalloc_free(q, NULL);
	lsalloc_free(NULL, NULL);
	/* Not ours: left alone. */
	p = malloc(64 << 10);
	memset(p, 0, 64 << 10);
	CHECK_INT((int)lsalloc_trim(p), 0);
	free(p);
}

static void
test_big(void)
{
	size_t		 len = 64 << 10, pages, before, after, dropped;
	unsigned char	*p, *base;

	p = lsalloc_alloc(len, NULL);
	CHECK(p != NULL);
	if (p == NULL)
		return;
	/* As libssh2 does: zero it all, then set a few fields. */
	memset(p, 0, len);
	p[0] = 1;
	p[20000] = 2;
	p[len - 1] = 3;
	base = p - 32;
	CHECK(((uintptr_t)base % page) == 0);
	pages = (len + 32 + page - 1) / page;
	before = resident(base, pages * page);
	CHECK_INT((int)before, (int)pages);
	dropped = lsalloc_trim(p);
	/* Kept: the header's page (with p[0]), p[20000]'s, the last. */
	CHECK_INT((int)dropped, (int)((pages - 3) * page));
	after = resident(base, pages * page);
	CHECK_INT((int)after, 3);
	/* A write to a given-back page gets a page again. */
	p[40000] = 4;
	CHECK_INT((int)resident(base, pages * page), 4);
	/* Every byte reads as before (a read of a given-back page maps the
	 * kernel's shared zero page, which mincore counts but RSS does
	 * not: so it comes last). */
	CHECK(p[0] == 1 && p[20000] == 2 && p[len - 1] == 3 &&
	    p[40000] == 4);
	CHECK(p[1] == 0 && p[30000] == 0 && p[len - 2] == 0);
	/* Again: nothing more is all zero. */
	CHECK_INT((int)lsalloc_trim(p), (int)((pages - 4) * page));
	lsalloc_free(p, NULL);
}

static void
test_libssh2(void)
{
	LIBSSH2_SESSION	*s;
	size_t		 dropped;

	CHECK_INT(libssh2_init(0), 0);
	s = libssh2_session_init_ex(lsalloc_alloc, lsalloc_free,
	    lsalloc_realloc, NULL);
	CHECK(s != NULL);
	if (s == NULL)
		return;
	dropped = lsalloc_trim(s);
	printf("libssh2 %s: %zu bytes of a new session given back\n",
	    libssh2_version(0), dropped);
	/* Its packet buffers are most of it (54,840 bytes in 1.10). */
	CHECK(dropped >= 32 << 10);
	libssh2_session_set_blocking(s, 0);
	CHECK_INT(libssh2_session_free(s), 0);
	libssh2_exit();
}

int
main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	RUN(test_small);
	RUN(test_big);
	RUN(test_libssh2);
	return harness_done();
}
