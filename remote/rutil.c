/* SPDX-License-Identifier: ISC */
/*
 * rutil: base64, key file inspection and file reading for the transport.
 * Passphrase detection exists so a protected key without an agent is
 * skipped with a clear message instead of a vague libssh2 failure: the
 * OpenSSH format names its cipher inside the base64 body, the old PEM
 * formats say so in a header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "rutil.h"
#include "sha256.h"
#include "xmalloc.h"

static const char rutil_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
rutil_b64_encode(const uint8_t *p, size_t len, int pad)
{
	char		*out, *o;
	uint32_t	 v;
	size_t		 i;

	out = o = xmalloc(4 * ((len + 2) / 3) + 1);
	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*o++ = rutil_b64[v >> 18];
		*o++ = rutil_b64[(v >> 12) & 63];
		*o++ = rutil_b64[(v >> 6) & 63];
		*o++ = rutil_b64[v & 63];
	}
	if (i < len) {
		v = (uint32_t)p[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		*o++ = rutil_b64[v >> 18];
		*o++ = rutil_b64[(v >> 12) & 63];
		if (i + 1 < len)
			*o++ = rutil_b64[(v >> 6) & 63];
		else if (pad)
			*o++ = '=';
		if (pad)
			*o++ = '=';
	}
	*o = '\0';
	return out;
}

long
rutil_b64_decode(const char *s, size_t len, uint8_t *out, size_t outlen)
{
	const char	*c;
	uint32_t	 v = 0;
	size_t		 i, n = 0;
	int		 bits = 0, pad = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
		    s[i] == '\n')
			continue;
		if (s[i] == '=') {
			pad++;
			continue;
		}
		if (pad || s[i] == '\0' ||
		    (c = strchr(rutil_b64, s[i])) == NULL)
			return -1;
		v = (v << 6) | (uint32_t)(c - rutil_b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n >= outlen)
				return -1;
			out[n++] = (uint8_t)(v >> bits);
		}
	}
	if (pad > 2)
		return -1;
	return (long)n;
}

/* Find a line that starts with the marker; return what follows it. */
static const char *
rutil_find_line(const char *text, size_t len, const char *marker)
{
	size_t	ml = strlen(marker), i;

	for (i = 0; i + ml <= len; i++) {
		if ((i == 0 || text[i - 1] == '\n') &&
		    memcmp(text + i, marker, ml) == 0)
			return text + i + ml;
	}
	return NULL;
}

int
rutil_key_text_encrypted(const char *text, size_t len)
{
	static const char	 magic[] = "openssh-key-v1";
	const char		*b, *e;
	uint8_t			 bin[256];
	long			 n;
	uint32_t		 clen;

	if (rutil_find_line(text, len, "-----BEGIN ENCRYPTED PRIVATE KEY")
	    != NULL)
		return 1;
	if (rutil_find_line(text, len, "Proc-Type: 4,ENCRYPTED") != NULL)
		return 1;
	b = rutil_find_line(text, len, "-----BEGIN OPENSSH PRIVATE KEY-----");
	if (b == NULL)
		return 0;
	if ((e = rutil_find_line(b, len - (size_t)(b - text),
	    "-----END OPENSSH PRIVATE KEY-----")) == NULL)
		return 0;
	e -= strlen("-----END OPENSSH PRIVATE KEY-----");
	/* Only the start matters: magic, then the cipher name. */
	if ((size_t)(e - b) > 4 * sizeof(bin) / 3)
		e = b + 4 * sizeof(bin) / 3;
	while (e > b && strchr(rutil_b64, e[-1]) == NULL)
		e--;
	if ((n = rutil_b64_decode(b, (size_t)(e - b), bin, sizeof(bin))) < 0)
		return 0;
	if ((size_t)n < sizeof(magic) + 4 ||
	    memcmp(bin, magic, sizeof(magic)) != 0)
		return 0;
	clen = (uint32_t)bin[sizeof(magic)] << 24 |
	    (uint32_t)bin[sizeof(magic) + 1] << 16 |
	    (uint32_t)bin[sizeof(magic) + 2] << 8 | bin[sizeof(magic) + 3];
	if (clen > (size_t)n - sizeof(magic) - 4)
		return 0;
	return !(clen == 4 && memcmp(bin + sizeof(magic) + 4, "none", 4) == 0);
}

int
rutil_key_encrypted(const char *path)
{
	char	*text;
	size_t	 len;
	int	 rc;

	if ((text = rutil_read_file(path, 1 << 20, &len)) == NULL)
		return -1;
	rc = rutil_key_text_encrypted(text, len);
	free(text);
	return rc;
}

void
rutil_fingerprint(const uint8_t *key, size_t len, char *buf, size_t size)
{
	struct sha256	 c;
	uint8_t		 d[SHA256_LEN];
	char		*b;

	sha256_init(&c);
	sha256_update(&c, key, len);
	sha256_final(&c, d);
	b = rutil_b64_encode(d, sizeof(d), 0);
	snprintf(buf, size, "SHA256:%s", b);
	free(b);
}

int
rutil_perm_ok(const struct stat *st, const char *path, char *err,
    size_t errlen)
{
	if ((st->st_uid == 0 || st->st_uid == getuid()) &&
	    (st->st_mode & 022) == 0)
		return 0;
	snprintf(err, errlen, "%s: bad owner or permissions (uid %lu, mode "
	    "%04o): it must be yours or root's, and writable by nobody else",
	    path, (unsigned long)st->st_uid, (unsigned)(st->st_mode & 07777));
	return -1;
}

/* Read an open file of at most max bytes (see rutil_read_file); with
 * check, it must pass rutil_perm_ok.  Closes fd. */
static char *
rutil_read_fd(int fd, const char *path, size_t max, size_t *lenp,
    char *err, size_t errlen)
{
	struct stat	 st;
	char		*buf = NULL;
	int		 save;

	if (fstat(fd, &st) == 0) {
		if (err != NULL && S_ISREG(st.st_mode) &&
		    rutil_perm_ok(&st, path, err, errlen) != 0)
			errno = EPERM;
		else
			buf = fs_read_fd(fd, max, lenp);
	}
	save = errno;
	close(fd);
	errno = save;
	return buf;
}

char *
rutil_read_file(const char *path, size_t max, size_t *lenp)
{
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return NULL;
	return rutil_read_fd(fd, path, max, lenp, NULL, 0);
}

char *
rutil_read_trusted(const char *path, size_t max, size_t *lenp, char *err,
    size_t errlen)
{
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return NULL;
	return rutil_read_fd(fd, path, max, lenp, err, errlen);
}

int
rutil_key_perm(const char *path, char *err, size_t errlen)
{
	struct stat	st;

	if (stat(path, &st) != 0)
		return 1;
	if (st.st_uid == getuid() && (st.st_mode & 077) != 0) {
		snprintf(err, errlen, "permissions %04o are too open, "
		    "chmod 600 it", (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}
