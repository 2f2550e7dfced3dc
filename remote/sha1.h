/* SPDX-License-Identifier: ISC */
/*
 * sha1: SHA-1 (FIPS 180-4) and HMAC-SHA1 (RFC 2104), for one use only: the
 * hashed names of known_hosts ("|1|salt|hash", OpenSSH's HashKnownHosts),
 * which are HMAC-SHA1(salt, name).  libssh2 1.10 can match them but leaks
 * an HMAC context per hashed line per check with OpenSSL 3 (hundreds of
 * bytes each, every host, every key type, every reconnect); like sha256.c,
 * a small implementation here instead of linking libcrypto.
 */
#ifndef JOBTOP_SHA1_H
#define JOBTOP_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_LEN	20

struct sha1 {
	uint32_t	h[5];
	uint64_t	total;
	uint8_t		block[64];
	size_t		used;
};

void	sha1_init(struct sha1 *);
void	sha1_update(struct sha1 *, const void *, size_t);
void	sha1_final(struct sha1 *, uint8_t [SHA1_LEN]);
/* HMAC-SHA1 of data under key. */
void	hmac_sha1(const void *, size_t, const void *, size_t,
	    uint8_t [SHA1_LEN]);

#endif
