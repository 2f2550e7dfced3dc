/* SPDX-License-Identifier: ISC */
/*
 * hostkey: the known_hosts decision, strict as OpenSSH's.  Keys are read
 * from OpenSSH known_hosts files (plain and hashed "|1|" names, "[host]:port"
 * for other ports, several names a line) into one libssh2 collection that
 * every session shares, then a server's key is judged: known, unknown,
 * changed (the name is known with another key of that type, or only with
 * keys of other types) or revoked ("@revoked" lines).  Names are matched
 * as OpenSSH matches them, patterns (*, ?) and negation (!) included, so a
 * host a pattern line covers is never "unknown".  A host that only a
 * "@cert-authority" line covers needs a host certificate, which libssh2
 * cannot check: that is a verdict of its own.  Only the caller decides
 * what an unknown key means; hostkey_add appends a line for it.
 */
#ifndef JOBTOP_HOSTKEY_H
#define JOBTOP_HOSTKEY_H

#include <stddef.h>
#include <stdint.h>

enum hostkey_verdict {
	HK_MATCH,	/* the name is known with this key */
	HK_UNKNOWN,	/* no key of any type is known for the name */
	HK_CHANGED,	/* the name is known with other keys */
	HK_REVOKED,	/* the key is listed as @revoked */
	HK_CA,		/* only a @cert-authority line covers the name */
	HK_ERROR	/* the key type is not one libssh2 knows */
};

struct hostkeys;

struct hostkeys	*hostkeys_new(void);
void		 hostkeys_free(struct hostkeys *);

/* Read one known_hosts file.  Returns the entries read (lines that cannot
 * be parsed, such as unknown key types or markers other than @revoked and
 * @cert-authority, are skipped and counted in *skipped), or -1 with errno
 * set (ENOENT is normal; EPERM: a file others may change, which err
 * describes). */
int		 hostkeys_load(struct hostkeys *, const char *, int *, char *,
		    size_t);

/* The same for known_hosts text (NUL-terminated; changed in place). */
int		 hostkeys_parse(struct hostkeys *, char *, int *);

/* Judge a server key: name as the user wrote it or HostName gave it, port,
 * the raw key blob and its LIBSSH2_HOSTKEY_TYPE_*. */
enum hostkey_verdict hostkeys_check(struct hostkeys *, const char *, int,
		    const uint8_t *, size_t, int);

/* The LIBSSH2_HOSTKEY_TYPE_* values (as bits 1 << type) known for a name:
 * the session prefers those host key algorithms, as ssh does. */
unsigned	 hostkeys_known_types(struct hostkeys *, const char *, int);
/* A libssh2_session_method_pref(LIBSSH2_METHOD_HOSTKEY) list with the
 * known types first, into buf. */
void		 hostkeys_method_pref(unsigned, char *, size_t);

/* Append "name type key" to the file (created 0600, its directory 0700
 * when missing) and to the collection.  0, or -1 with the reason in err. */
int		 hostkeys_add(struct hostkeys *, const char *, const char *,
		    int, const uint8_t *, size_t, int, char *, size_t);

/* "ssh-ed25519", "ecdsa-sha2-nistp256", ... for a LIBSSH2_HOSTKEY_TYPE_*. */
const char	*hostkeys_type_name(int);
/* The known_hosts name: "host", or "[host]:port" when port is not 22,
 * lowercased as ssh does. */
void		 hostkeys_name(const char *, int, char *, size_t);

#endif
