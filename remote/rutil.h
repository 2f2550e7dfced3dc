/* SPDX-License-Identifier: ISC */
/*
 * rutil: small helpers of the SSH transport that need no session: base64
 * as OpenSSH writes it (known_hosts lines, key files, fingerprints),
 * whether a private key file is protected by a passphrase, paths under
 * the user's home, and OpenSSH's permission rules for the files that
 * decide whom to trust.
 */
#ifndef JOBTOP_RUTIL_H
#define JOBTOP_RUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Encode len bytes; returns an allocated NUL-terminated string.  With
 * pad 0 the trailing '=' are left out (as in "SHA256:..." fingerprints). */
char	*rutil_b64_encode(const uint8_t *, size_t, int);
/* Decode base64 text, skipping whitespace; returns the decoded length or
 * -1 when the text is not base64 or does not fit in outlen bytes. */
long	 rutil_b64_decode(const char *, size_t, uint8_t *, size_t);

/* Is the private key in this file protected by a passphrase?  1 yes, 0 no
 * (or a format this does not know, which libssh2 will judge), -1 when it
 * cannot be read (errno set). */
int	 rutil_key_encrypted(const char *);
/* The same for key text in memory. */
int	 rutil_key_text_encrypted(const char *, size_t);

/* "SHA256:" and the unpadded base64 of the SHA-256 of a key blob, as
 * ssh-keygen -l prints it, into buf. */
void	 rutil_fingerprint(const uint8_t *, size_t, char *, size_t);

/* Read a whole regular file of at most max bytes: an allocated buffer
 * (NUL-terminated) with its length in *len, or NULL with errno set
 * (EFBIG when it is larger). */
char	*rutil_read_file(const char *, size_t, size_t *);

/* OpenSSH's rule for ssh_config, its Includes and known_hosts: owned by
 * the caller or root and not writable by group or others.  0, or -1 with
 * "PATH: bad owner or permissions (uid 1001, mode 0666): ..." in err. */
int	 rutil_perm_ok(const struct stat *, const char *, char *, size_t);
/* rutil_read_file for such a file: the rule is applied to the file that
 * was opened; a file that breaks it gives NULL, errno EPERM and err. */
char	*rutil_read_trusted(const char *, size_t, size_t *, char *, size_t);
/* A private key the caller owns must not be open to group or others (any
 * 077 bit), as ssh requires.  0, or -1 with "permissions 0644 are too
 * open, chmod 600 it" in err (1 when it cannot be looked at: errno). */
int	 rutil_key_perm(const char *, char *, size_t);

#endif
