/* SPDX-License-Identifier: ISC */
/*
 * wire: bounds-checked buffers and varints.  See wire.h for the contract.
 * Nothing here trusts a length it read: every get checks what is left.
 */
#include <string.h>

#include "wire.h"

const char *
wire_strerror(int err)
{
	switch (err) {
	case WIRE_OK:		return "success";
	case WIRE_ERR_TRUNC:	return "truncated input";
	case WIRE_ERR_OVERFLOW:	return "integer overflow in varint";
	case WIRE_ERR_FULL:	return "buffer full";
	case WIRE_ERR_BADMSG:	return "malformed message";
	case WIRE_ERR_VERSION:	return "incompatible protocol version";
	case WIRE_ERR_TOOBIG:	return "frame too large";
	case WIRE_ERR_RANGE:	return "value out of range";
	case WIRE_ERR_CRC:	return "checksum mismatch";
	}
	return "unknown error";
}

void
wbuf_init(struct wbuf *w, void *mem, size_t cap)
{
	w->data = mem;
	w->cap = cap;
	w->len = 0;
	w->err = WIRE_OK;
}

void
wbuf_reset(struct wbuf *w)
{
	w->len = 0;
	w->err = WIRE_OK;
}

size_t
wbuf_len(const struct wbuf *w)
{
	return w->len;
}

/* Reserve n bytes, or set the sticky error. */
static uint8_t *
wbuf_reserve(struct wbuf *w, size_t n)
{
	uint8_t	*p;

	if (w->err != WIRE_OK)
		return NULL;
	if (n > w->cap - w->len) {
		w->err = WIRE_ERR_FULL;
		return NULL;
	}
	p = w->data + w->len;
	w->len += n;
	return p;
}

int
wire_put_u8(struct wbuf *w, uint8_t v)
{
	uint8_t	*p;

	if ((p = wbuf_reserve(w, 1)) == NULL)
		return w->err;
	*p = v;
	return WIRE_OK;
}

size_t
wire_varint_len(uint64_t v)
{
	size_t	n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

int
wire_put_varint(struct wbuf *w, uint64_t v)
{
	uint8_t	*p;

	if ((p = wbuf_reserve(w, wire_varint_len(v))) == NULL)
		return w->err;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p = (uint8_t)v;
	return WIRE_OK;
}

uint64_t
wire_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

int64_t
wire_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int
wire_put_svarint(struct wbuf *w, int64_t v)
{
	return wire_put_varint(w, wire_zigzag(v));
}

int
wire_put_bytes(struct wbuf *w, const void *src, size_t n)
{
	uint8_t	*p;

	if ((p = wbuf_reserve(w, n)) == NULL)
		return w->err;
	if (n > 0)
		memcpy(p, src, n);
	return WIRE_OK;
}

int
wire_put_strn(struct wbuf *w, const char *s, size_t n)
{
	if (wire_put_varint(w, n) != WIRE_OK)
		return w->err;
	return wire_put_bytes(w, s, n);
}

int
wire_put_str(struct wbuf *w, const char *s)
{
	return wire_put_strn(w, s, s == NULL ? 0 : strlen(s));
}

int
wire_patch_u8(struct wbuf *w, size_t off, uint8_t v)
{
	if (off >= w->len)
		return WIRE_ERR_RANGE;
	w->data[off] = v;
	return WIRE_OK;
}

void
wreader_init(struct wreader *r, const void *data, size_t len)
{
	r->data = data;
	r->len = len;
	r->off = 0;
}

size_t
wreader_left(const struct wreader *r)
{
	return r->len - r->off;
}

int
wire_get_u8(struct wreader *r, uint8_t *v)
{
	if (r->off >= r->len)
		return WIRE_ERR_TRUNC;
	*v = r->data[r->off++];
	return WIRE_OK;
}

int
wire_get_varint(struct wreader *r, uint64_t *v)
{
	uint64_t	acc = 0;
	unsigned	shift = 0;
	size_t		off = r->off;
	uint8_t		b;

	for (;;) {
		if (off >= r->len)
			return WIRE_ERR_TRUNC;
		b = r->data[off++];
		/* The tenth byte may only carry the top bit of 64. */
		if (shift == 63 && (b & 0xfe) != 0)
			return WIRE_ERR_OVERFLOW;
		acc |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0)
			break;
		shift += 7;
		if (shift > 63)
			return WIRE_ERR_OVERFLOW;
	}
	r->off = off;
	*v = acc;
	return WIRE_OK;
}

int
wire_get_svarint(struct wreader *r, int64_t *v)
{
	uint64_t	u;
	int		err;

	if ((err = wire_get_varint(r, &u)) != WIRE_OK)
		return err;
	*v = wire_unzigzag(u);
	return WIRE_OK;
}

int
wire_get_varint_max(struct wreader *r, uint64_t max, uint64_t *v)
{
	size_t		save = r->off;
	uint64_t	u;
	int		err;

	if ((err = wire_get_varint(r, &u)) != WIRE_OK)
		return err;
	if (u > max) {
		r->off = save;
		return WIRE_ERR_RANGE;
	}
	*v = u;
	return WIRE_OK;
}

int
wire_get_bytes(struct wreader *r, size_t n, const uint8_t **p)
{
	if (n > r->len - r->off)
		return WIRE_ERR_TRUNC;
	*p = r->data + r->off;
	r->off += n;
	return WIRE_OK;
}

int
wire_get_str(struct wreader *r, size_t max, const char **s, size_t *n)
{
	size_t		 save = r->off;
	uint64_t	 len;
	const uint8_t	*p;
	int		 err;

	if ((err = wire_get_varint(r, &len)) != WIRE_OK)
		return err;
	if (len > max) {
		r->off = save;
		return WIRE_ERR_RANGE;
	}
	if ((err = wire_get_bytes(r, (size_t)len, &p)) != WIRE_OK) {
		r->off = save;
		return err;
	}
	*s = (const char *)p;
	*n = (size_t)len;
	return WIRE_OK;
}

int
wire_get_cstr(struct wreader *r, char *dst, size_t dstsz)
{
	size_t		 save = r->off, n;
	const char	*s;
	int		 err;

	if (dstsz == 0)
		return WIRE_ERR_RANGE;
	if ((err = wire_get_str(r, dstsz - 1, &s, &n)) != WIRE_OK)
		return err;
	if (memchr(s, '\0', n) != NULL) {
		r->off = save;
		return WIRE_ERR_RANGE;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
	return WIRE_OK;
}

/* CRC-32C a byte at a time through a table (1 KiB, made on first use):
 * replaying checks every block it reads, and the bitwise loop was a
 * quarter of the time a seek takes. */
uint32_t
wire_crc32c(uint32_t crc, const void *data, size_t n)
{
	/* Slicing by 8: eight bytes per step through eight tables (table
	 * k: the CRC of a byte followed by k zero bytes).  A replay checks
	 * every block it reads. */
	static uint32_t	 t[8][256];
	static int	 ready;
	const uint8_t	*p = data;
	uint32_t	 c, lo, hi;
	int		 i, k;

	if (!ready) {
		for (i = 0; i < 256; i++) {
			c = (uint32_t)i;
			for (k = 0; k < 8; k++)
				c = (c >> 1) ^ (0x82f63b78u & -(c & 1));
			t[0][i] = c;
		}
		for (i = 0; i < 256; i++)
			for (k = 1; k < 8; k++)
				t[k][i] = (t[k - 1][i] >> 8) ^
				    t[0][t[k - 1][i] & 0xff];
		ready = 1;
	}
	crc = ~crc;
	while (n >= 8) {
		lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
		    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 |
		    (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		    t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		    t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		    t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return ~crc;
}
