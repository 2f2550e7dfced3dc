/* SPDX-License-Identifier: ISC */
/*
 * pstream: a probe's byte stream as a transport receives it (from an SSH
 * channel or a child's pipe): one buffer that the transport fills and the
 * feed's read empties, the HELLO search (hello.c) at each stream's start,
 * and the end of a stream, which the feed's read reports once (-1) before
 * the next stream (a reconnect) begins.  Used by the libssh2 session
 * (rsess.c) and the system ssh client (feed-ssh.c).
 *
 *	ps.buf ... boff ......... blen ....... bcap (<= cap)
 *	           [ unread bytes ][ room to fill ]
 *
 * The buffer is allocated when bytes come, grows by doubling up to cap as
 * they wait unread, and is given back once drained: a node streaming a
 * sample a second holds nothing between its bursts, not cap bytes (1 MiB
 * for SSH) nor a page.
 *
 * Until the HELLO is found (synced), the bytes are kept from the start
 * of the stream (boff stays at what was dropped before), so that the
 * scan sees everything and the log can show what came before it.
 */
#ifndef JOBTOP_PSTREAM_H
#define JOBTOP_PSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hello.h"

struct pstream {
	uint8_t		*buf;		/* while bytes are held, else NULL */
	size_t		 bcap;		/* its size */
	size_t		 cap;		/* the most it may grow to */
	size_t		 blen, boff;
	int		 synced;	/* the HELLO was found */
	int		 eos;		/* 1: a stream ended, not yet read */
	struct hello	 hello;
};

/* Empty, holding at most cap bytes. */
void		 pstream_init(struct pstream *, size_t);
/* A new stream begins: nothing held, the HELLO searched for again. */
void		 pstream_reset(struct pstream *);
void		 pstream_free(struct pstream *);
/* Where to put more bytes (*room of them), after moving what is unread
 * to the front when needed; NULL when full (the feed reads first). */
uint8_t		*pstream_space(struct pstream *, size_t *);
/* n bytes were put there.  Before the HELLO: 1 when this found it (what
 * came before is dropped: hello.dropped and hello.shown say what), 0 when
 * not yet, -1 once more than the HELLO cap came without one.  After it:
 * 0. */
int		 pstream_added(struct pstream *, size_t);
/* The stream ended: the feed's read says so once, after its bytes. */
void		 pstream_end(struct pstream *);
/* Bytes or an end for the feed's read. */
int		 pstream_pending(const struct pstream *);
/* The feed's read: bytes (> 0), 0 for none now, -1 once at a stream's
 * end (then the next stream starts from nothing). */
ssize_t		 pstream_read(struct pstream *, void *, size_t);

#endif
