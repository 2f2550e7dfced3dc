/* SPDX-License-Identifier: ISC */
/*
 * sha256: the SHA-256 hash (FIPS 180-4), used to name the probe binary by
 * its content on the nodes and to print host key fingerprints the way
 * OpenSSH does.  libssh2 keeps its own crypto library private, so the
 * monitor carries this small implementation instead of linking libcrypto.
 */
#ifndef JOBTOP_SHA256_H
#define JOBTOP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN	32

struct sha256 {
	uint32_t	h[8];
	uint64_t	total;
	uint8_t		block[64];
	size_t		used;
};

void	sha256_init(struct sha256 *);
void	sha256_update(struct sha256 *, const void *, size_t);
void	sha256_final(struct sha256 *, uint8_t [SHA256_LEN]);
/* The hash of a buffer as 64 lowercase hex digits and a NUL. */
void	sha256_hex(const void *, size_t, char [2 * SHA256_LEN + 1]);

#endif
