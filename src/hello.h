/* SPDX-License-Identifier: ISC */
/*
 * hello: find the probe's first frame (its HELLO: type 1, a varint length,
 * then "JTOP", PROTOCOL.md) in what a transport received, after whatever
 * a login shell, an sshd banner or a launcher printed before it.  Every
 * transport keeps the bytes of a starting stream and calls hello_scan on
 * all of them as they grow; the scan resumes where it stopped, so the cost
 * is linear.  What came before the HELLO is dropped, counted and kept (its
 * first bytes, printable) for the log; a stream that shows no HELLO within
 * the cap is given up.
 */
#ifndef JOBTOP_HELLO_H
#define JOBTOP_HELLO_H

#include <stddef.h>
#include <stdint.h>

#define HELLO_CAP	(64 << 10)	/* bytes before HELLO, at most */
#define HELLO_MORE	(-1)		/* not found yet */
#define HELLO_GIVEUP	(-2)		/* more than the cap without it */

struct hello {
	size_t	 cap;
	size_t	 scanned;	/* resume the scan here */
	size_t	 dropped;	/* bytes before the HELLO */
	int	 found;
	char	 shown[81];	/* their start, non-printables as '.' */
};

void		 hello_init(struct hello *, size_t);
/* buf holds every byte of the stream so far (n of them): the offset of
 * the HELLO (what is before it is dropped: shown and dropped say what),
 * HELLO_MORE, or HELLO_GIVEUP once n passes the cap without one.  After
 * it was found, it returns 0 (the caller dropped the junk). */
long		 hello_scan(struct hello *, const uint8_t *, size_t);

#endif
