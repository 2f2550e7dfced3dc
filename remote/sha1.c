/* SPDX-License-Identifier: ISC */
/*
 * sha1: see sha1.h.
 */
#include <string.h>

#include "sha1.h"

static inline uint32_t
sha1_rol(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void
sha1_block(struct sha1 *s, const uint8_t *p)
{
	uint32_t	w[80], a, b, c, d, e, f, k, t;
	unsigned	i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 80; i++)
		w[i] = sha1_rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	a = s->h[0];
	b = s->h[1];
	c = s->h[2];
	d = s->h[3];
	e = s->h[4];
	for (i = 0; i < 80; i++) {
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = sha1_rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = sha1_rol(b, 30);
		b = a;
		a = t;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
}

void
sha1_init(struct sha1 *s)
{
	static const uint32_t	h0[5] = {
		0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0
	};

	memcpy(s->h, h0, sizeof(h0));
	s->total = 0;
	s->used = 0;
}

void
sha1_update(struct sha1 *s, const void *data, size_t len)
{
	const uint8_t	*p = data;
	size_t		 n;

	s->total += len;
	while (len > 0) {
		n = 64 - s->used < len ? 64 - s->used : len;
		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used == 64) {
			sha1_block(s, s->block);
			s->used = 0;
		}
	}
}

void
sha1_final(struct sha1 *s, uint8_t out[SHA1_LEN])
{
	uint64_t	bits = s->total * 8;
	unsigned	i;

	s->block[s->used++] = 0x80;
	if (s->used > 56) {
		memset(s->block + s->used, 0, 64 - s->used);
		sha1_block(s, s->block);
		s->used = 0;
	}
	memset(s->block + s->used, 0, 56 - s->used);
	for (i = 0; i < 8; i++)
		s->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha1_block(s, s->block);
	for (i = 0; i < 5; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

void
hmac_sha1(const void *key, size_t klen, const void *data, size_t dlen,
    uint8_t out[SHA1_LEN])
{
	struct sha1	s;
	uint8_t		k[64], pad[64], inner[SHA1_LEN];
	unsigned	i;

	memset(k, 0, sizeof(k));
	if (klen > sizeof(k)) {
		sha1_init(&s);
		sha1_update(&s, key, klen);
		sha1_final(&s, k);
	} else if (klen > 0)
		memcpy(k, key, klen);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha1_init(&s);
	sha1_update(&s, pad, sizeof(pad));
	sha1_update(&s, data, dlen);
	sha1_final(&s, inner);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha1_init(&s);
	sha1_update(&s, pad, sizeof(pad));
	sha1_update(&s, inner, sizeof(inner));
	sha1_final(&s, out);
}
