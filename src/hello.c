/* SPDX-License-Identifier: ISC */
/*
 * hello: the HELLO scanner.  A frame starts with its type byte (1 for
 * HELLO), then its length as a varint of one to three bytes (all but the
 * last with the high bit set), then the magic "JTOP".  The scan looks for
 * the magic and checks the bytes before it; a match needs at least two
 * bytes before the magic, so a resumed scan backs up by the longest
 * prefix and magic (seven bytes) to catch one split between calls.
 */
#include <string.h>

#include "hello.h"

#define HELLO_BACK	7

void
hello_init(struct hello *h, size_t cap)
{
	memset(h, 0, sizeof(*h));
	h->cap = cap != 0 ? cap : HELLO_CAP;
}

static void
hello_show(struct hello *h, const uint8_t *b, size_t f)
{
	size_t	k;

	for (k = 0; k < f && k < sizeof(h->shown) - 1; k++)
		h->shown[k] = b[k] >= 0x20 && b[k] < 0x7f ? (char)b[k] : '.';
	h->shown[k] = '\0';
	h->dropped = f;
}

long
hello_scan(struct hello *h, const uint8_t *b, size_t n)
{
	size_t	i, f, k;

	if (h->found)
		return 0;
	i = h->scanned > HELLO_BACK ? h->scanned - HELLO_BACK : 0;
	if (i < 2)
		i = 2;
	for (; i + 4 <= n; i++) {
		if (memcmp(b + i, "JTOP", 4) != 0 || b[i - 1] >= 0x80)
			continue;
		for (k = 1; k <= 3 && k < i; k++) {
			f = i - 1 - k;
			if (b[f] == 1) {
				h->found = 1;
				hello_show(h, b, f);
				return (long)f;
			}
			if (b[f] < 0x80)
				break;
		}
	}
	h->scanned = n;
	if (n > h->cap) {
		hello_show(h, b, n);
		return HELLO_GIVEUP;
	}
	return HELLO_MORE;
}
