/* SPDX-License-Identifier: ISC */
/*
 * wire: a bounds-checked byte buffer with varint codecs, shared by the probe
 * and the monitor.  libc only; every call returns an error code and never
 * exits, logs or allocates.
 *
 * A writer (struct wbuf) writes into storage its caller owns, so the probe
 * can keep its buffers static.  A reader (struct wreader) walks a byte range
 * it does not own; strings it returns point into that range.
 *
 * Integers travel as LEB128 varints (7 bits a byte, low first, at most 10
 * bytes); signed ones are zigzag-encoded first.
 */
#ifndef JOBTOP_WIRE_H
#define JOBTOP_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Error codes shared by wire, proto and rec.  0 is success. */
#define WIRE_OK		 0
#define WIRE_ERR_TRUNC	-1	/* input ended inside a value or frame */
#define WIRE_ERR_OVERFLOW -2	/* varint longer than 10 bytes or > 64 bits */
#define WIRE_ERR_FULL	-3	/* writer out of space */
#define WIRE_ERR_BADMSG	-4	/* malformed message */
#define WIRE_ERR_VERSION -5	/* incompatible protocol major version */
#define WIRE_ERR_TOOBIG	-6	/* frame larger than PROTO_FRAME_MAX */
#define WIRE_ERR_RANGE	-7	/* value out of its allowed range */
#define WIRE_ERR_CRC	-8	/* checksum mismatch (recordings) */

struct wbuf {
	uint8_t		*data;
	size_t		 cap;
	size_t		 len;
	int		 err;	/* sticky: first error, later puts are no-ops */
};

struct wreader {
	const uint8_t	*data;
	size_t		 len;
	size_t		 off;
};

/* Human-readable text for an error code. */
const char	*wire_strerror(int);

void	 wbuf_init(struct wbuf *, void *, size_t);
void	 wbuf_reset(struct wbuf *);
size_t	 wbuf_len(const struct wbuf *);

/* Writers: return WIRE_OK or WIRE_ERR_FULL (and set the sticky error). */
int	 wire_put_u8(struct wbuf *, uint8_t);
int	 wire_put_varint(struct wbuf *, uint64_t);
int	 wire_put_svarint(struct wbuf *, int64_t);
int	 wire_put_bytes(struct wbuf *, const void *, size_t);
/* A string: varint length then the bytes (no terminator). */
int	 wire_put_str(struct wbuf *, const char *);
int	 wire_put_strn(struct wbuf *, const char *, size_t);
/* Patch a byte already written at offset off. */
int	 wire_patch_u8(struct wbuf *, size_t, uint8_t);
/* Bytes a varint of this value takes. */
size_t	 wire_varint_len(uint64_t);

void	 wreader_init(struct wreader *, const void *, size_t);
size_t	 wreader_left(const struct wreader *);

/* Readers: return WIRE_OK, WIRE_ERR_TRUNC or WIRE_ERR_OVERFLOW. */
int	 wire_get_u8(struct wreader *, uint8_t *);
int	 wire_get_varint(struct wreader *, uint64_t *);
int	 wire_get_svarint(struct wreader *, int64_t *);
/* A varint that must be <= max, else WIRE_ERR_RANGE. */
int	 wire_get_varint_max(struct wreader *, uint64_t, uint64_t *);
int	 wire_get_bytes(struct wreader *, size_t, const uint8_t **);
/* A string of at most max bytes; *s points into the reader's range. */
int	 wire_get_str(struct wreader *, size_t, const char **, size_t *);
/* Copy a string into dst (size dstsz, NUL-terminated), refusing longer ones
 * and embedded NULs with WIRE_ERR_RANGE. */
int	 wire_get_cstr(struct wreader *, char *, size_t);

uint64_t wire_zigzag(int64_t);
int64_t	 wire_unzigzag(uint64_t);

/* CRC-32C (Castagnoli) of a byte range, continuing from crc (start at 0). */
uint32_t wire_crc32c(uint32_t, const void *, size_t);

#endif
