/* SPDX-License-Identifier: ISC */
/*
 * pstream: the buffered probe stream shared by the libssh2 session and
 * the system ssh client: junk before the HELLO dropped (also when the
 * HELLO is split between two fills), bytes read in order, a full buffer
 * refused until read, the unread rest moved to the front, the buffer
 * given back once drained, the end of a stream reported once and the
 * next stream searched anew, and a stream with no HELLO given up after
 * the cap.
 */
#include <string.h>

#include "harness.h"
#include "pstream.h"

static void
fill(struct pstream *ps, const void *p, size_t n, int *res)
{
	uint8_t	*room;
	size_t	 size;

	room = pstream_space(ps, &size);
	CHECK(room != NULL && size >= n);
	if (room == NULL || size < n)
		return;
	memcpy(room, p, n);
	*res = pstream_added(ps, n);
}

static void
test_junk_then_hello(void)
{
	struct pstream	ps;
	const char	junk[] = "Welcome to node1\n";
	const uint8_t	h1[] = { 1, 9, 'J', 'T' };
	const uint8_t	h2[] = { 'O', 'P', 'x', 'y', 'z' };
	uint8_t		out[64];
	int		res = 9;

	pstream_init(&ps, 64);
	fill(&ps, junk, strlen(junk), &res);
	CHECK_INT(res, 0);
	CHECK_INT((int)pstream_read(&ps, out, sizeof(out)), 0);
	CHECK(!pstream_pending(&ps));
	fill(&ps, h1, sizeof(h1), &res);
	CHECK_INT(res, 0);
	fill(&ps, h2, sizeof(h2), &res);
	CHECK_INT(res, 1);
	CHECK_INT((int)ps.hello.dropped, (int)strlen(junk));
	CHECK_STR(ps.hello.shown, "Welcome to node1.");
	CHECK(pstream_pending(&ps));
	/* Read in two pieces: the HELLO's bytes on, nothing of the junk. */
	CHECK_INT((int)pstream_read(&ps, out, 3), 3);
	CHECK(memcmp(out, "\001\011J", 3) == 0);
	CHECK_INT((int)pstream_read(&ps, out, sizeof(out)), 6);
	CHECK(memcmp(out, "TOPxyz", 6) == 0);
	CHECK_INT((int)pstream_read(&ps, out, sizeof(out)), 0);
	/* Once synced, more bytes are plain data. */
	fill(&ps, "\001\011JTOP", 6, &res);
	CHECK_INT(res, 0);
	CHECK_INT((int)pstream_read(&ps, out, sizeof(out)), 6);
	/* The end: -1 once, then a new stream needs its HELLO again. */
	pstream_end(&ps);
	CHECK(pstream_pending(&ps));
	CHECK_INT((int)pstream_read(&ps, out, sizeof(out)), -1);
	CHECK_INT((int)pstream_read(&ps, out, sizeof(out)), 0);
	CHECK(!ps.synced);
	fill(&ps, "ab\001\011JTOPq", 9, &res);
	CHECK_INT(res, 1);
	CHECK_INT((int)ps.hello.dropped, 2);
	CHECK_INT((int)pstream_read(&ps, out, sizeof(out)), 7);
	pstream_free(&ps);
}

static void
test_full_and_compact(void)
{
	struct pstream	ps;
	uint8_t		big[16], out[16], *room;
	size_t		size;
	int		res = 9;

	memset(big, 'd', sizeof(big));
	pstream_init(&ps, 16);
	fill(&ps, "\001\011JTOP", 6, &res);
	CHECK_INT(res, 1);
	fill(&ps, big, 10, &res);
	/* Full: no room until the feed reads. */
	room = pstream_space(&ps, &size);
	CHECK(room == NULL && size == 0);
	CHECK_INT((int)pstream_read(&ps, out, 8), 8);
	/* The unread 8 bytes move to the front: room for 8. */
	room = pstream_space(&ps, &size);
	CHECK(room != NULL && size == 8);
	CHECK_INT((int)ps.boff, 0);
	CHECK(memcmp(ps.buf, "dddddddd", 8) == 0);
	fill(&ps, "EEEEEEEE", 8, &res);
	CHECK_INT((int)pstream_read(&ps, out, 16), 16);
	CHECK(memcmp(out + 8, "EEEEEEEE", 8) == 0);
	/* All read: nothing is held between bursts (the buffer went back),
	 * and the next fill starts a new one at the front. */
	CHECK(ps.buf == NULL && ps.bcap == 0);
	room = pstream_space(&ps, &size);
	CHECK(room == ps.buf && size == 16);
	/* Read in pieces: released only at the last byte. */
	fill(&ps, "0123456789", 10, &res);
	CHECK_INT((int)pstream_read(&ps, out, 4), 4);
	CHECK(ps.buf != NULL);
	CHECK_INT((int)pstream_read(&ps, out, 16), 6);
	CHECK(memcmp(out, "456789", 6) == 0);
	CHECK(ps.buf == NULL);
	pstream_free(&ps);
}

static void
test_giveup(void)
{
	struct pstream	ps;
	uint8_t		junk[4096];
	int		res = 0, i;

	memset(junk, 'x', sizeof(junk));
	pstream_init(&ps, HELLO_CAP + 2 * sizeof(junk));
	for (i = 0; i < HELLO_CAP / (int)sizeof(junk) && res == 0; i++)
		fill(&ps, junk, sizeof(junk), &res);
	CHECK_INT(res, 0);		/* exactly the cap: not yet */
	fill(&ps, junk, 1, &res);
	CHECK_INT(res, -1);
	CHECK(!ps.synced);
	pstream_free(&ps);
}

int
main(void)
{
	RUN(test_junk_then_hello);
	RUN(test_full_and_compact);
	RUN(test_giveup);
	return harness_done();
}
