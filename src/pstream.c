/* SPDX-License-Identifier: ISC */
/*
 * pstream: the buffered probe stream of a transport (pstream.h).
 */
#include <stdlib.h>
#include <string.h>

#include "pstream.h"
#include "xmalloc.h"

void
pstream_init(struct pstream *ps, size_t cap)
{
	memset(ps, 0, sizeof(*ps));
	ps->cap = cap;
	hello_init(&ps->hello, HELLO_CAP);
}

void
pstream_reset(struct pstream *ps)
{
	ps->blen = ps->boff = 0;
	ps->synced = 0;
	ps->eos = 0;
	hello_init(&ps->hello, HELLO_CAP);
}

/* A new buffer starts at this size and doubles up to the cap. */
#define PSTREAM_FIRST	4096

/* Nothing is held: the buffer goes back.  A node's probe sends one burst
 * an interval and it is read at once, so between bursts every node held
 * a buffer it did not use (4 KiB a node, a tenth of the monitor's own
 * memory per node at 1024 nodes); a malloc and free of 4 KiB per burst
 * cost far less than the read itself. */
static void
pstream_release(struct pstream *ps)
{
	free(ps->buf);
	ps->buf = NULL;
	ps->bcap = ps->blen = ps->boff = 0;
}

void
pstream_free(struct pstream *ps)
{
	pstream_release(ps);
}

uint8_t *
pstream_space(struct pstream *ps, size_t *room)
{
	size_t	n;

	if (ps->boff > 0 && ps->boff == ps->blen)
		pstream_release(ps);
	if (ps->blen == ps->bcap && ps->boff > 0) {
		memmove(ps->buf, ps->buf + ps->boff, ps->blen - ps->boff);
		ps->blen -= ps->boff;
		ps->boff = 0;
	}
	if (ps->blen == ps->bcap && ps->bcap < ps->cap) {
		n = ps->bcap == 0 ? PSTREAM_FIRST : ps->bcap * 2;
		if (n > ps->cap)
			n = ps->cap;
		ps->buf = xreallocarray(ps->buf, n, 1);
		ps->bcap = n;
	}
	*room = ps->bcap - ps->blen;
	if (*room == 0)
		return NULL;
	return ps->buf + ps->blen;
}

int
pstream_added(struct pstream *ps, size_t n)
{
	long	f;

	ps->blen += n;
	if (ps->synced)
		return 0;
	f = hello_scan(&ps->hello, ps->buf + ps->boff, ps->blen - ps->boff);
	if (f == HELLO_GIVEUP)
		return -1;
	if (f < 0)
		return 0;
	ps->boff += (size_t)f;
	ps->synced = 1;
	return 1;
}

void
pstream_end(struct pstream *ps)
{
	ps->eos = 1;
}

int
pstream_pending(const struct pstream *ps)
{
	return (ps->synced && ps->boff < ps->blen) || ps->eos == 1;
}

ssize_t
pstream_read(struct pstream *ps, void *buf, size_t len)
{
	size_t	n;

	if (ps->synced && ps->boff < ps->blen) {
		n = ps->blen - ps->boff;
		if (n > len)
			n = len;
		memcpy(buf, ps->buf + ps->boff, n);
		ps->boff += n;
		if (ps->boff == ps->blen)
			pstream_release(ps);
		return (ssize_t)n;
	}
	if (ps->eos == 1) {
		pstream_reset(ps);
		return -1;
	}
	return 0;
}
