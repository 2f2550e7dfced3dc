/* SPDX-License-Identifier: ISC */
/*
 * hostkey: known_hosts files in a libssh2 knownhost collection.  Files are
 * read line by line rather than with libssh2_knownhost_readfile, which stops
 * at the first line it cannot parse: a @cert-authority line or an unusual
 * key type early in a file would otherwise hide every host after it, and a
 * hidden host looks unknown, which accept-new would then trust.  @revoked
 * lines are kept apart (libssh2 does not know markers) and refuse their key
 * for every name.
 *
 * Every line is matched here, as OpenSSH does, not by libssh2's knownhost
 * collection: libssh2 matches names literally (and, in 1.10, never matches
 * a name of one or two characters), and its hashed-name check leaks an
 * HMAC context per hashed line per check with OpenSSL 3.  Plain names may
 * hold patterns (*, ? or !negation); hashed names ("|1|salt|hash",
 * HashKnownHosts) are HMAC-SHA1(salt, name).  A host a line covers is
 * known, not new, and --accept-new must never write a key down for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libssh2.h>

#include "hostkey.h"
#include "log.h"
#include "rutil.h"
#include "sha1.h"
#include "sshconf.h"
#include "xmalloc.h"

/* A line: names or patterns, or one hashed name; a key or a certificate
 * authority. */
struct hostkeys_pat {
	char	**pats;		/* the comma-separated names */
	int	  npats;
	int	  hashed;	/* "|1|salt|hash": salt and hash below */
	uint8_t	  salt[64];
	size_t	  saltlen;
	uint8_t	  hash[SHA1_LEN];
	int	  ca;		/* @cert-authority */
	int	  type;		/* LIBSSH2_HOSTKEY_TYPE_*, -1 other */
	uint8_t	 *key;		/* the key blob */
	size_t	  keylen;
};

struct hostkeys {
	char			**revoked;	/* base64 key blobs */
	size_t			  nrevoked;
	struct hostkeys_pat	 *pat;
	size_t			  npat;
};

/* Host key types libssh2 reports, with their known_hosts names and the
 * algorithms that sign with them, best first. */
static const struct {
	int		 type;
	int		 mask;
	const char	*name;
	const char	*algs;
} hostkey_types[] = {
	{ .type = LIBSSH2_HOSTKEY_TYPE_ED25519,
	    .mask = LIBSSH2_KNOWNHOST_KEY_ED25519, .name = "ssh-ed25519",
	    .algs = "ssh-ed25519" },
	{ .type = LIBSSH2_HOSTKEY_TYPE_ECDSA_256,
	    .mask = LIBSSH2_KNOWNHOST_KEY_ECDSA_256,
	    .name = "ecdsa-sha2-nistp256", .algs = "ecdsa-sha2-nistp256" },
	{ .type = LIBSSH2_HOSTKEY_TYPE_ECDSA_384,
	    .mask = LIBSSH2_KNOWNHOST_KEY_ECDSA_384,
	    .name = "ecdsa-sha2-nistp384", .algs = "ecdsa-sha2-nistp384" },
	{ .type = LIBSSH2_HOSTKEY_TYPE_ECDSA_521,
	    .mask = LIBSSH2_KNOWNHOST_KEY_ECDSA_521,
	    .name = "ecdsa-sha2-nistp521", .algs = "ecdsa-sha2-nistp521" },
	{ .type = LIBSSH2_HOSTKEY_TYPE_RSA,
	    .mask = LIBSSH2_KNOWNHOST_KEY_SSHRSA, .name = "ssh-rsa",
	    .algs = "rsa-sha2-512,rsa-sha2-256,ssh-rsa" },
	{ .type = LIBSSH2_HOSTKEY_TYPE_DSS,
	    .mask = LIBSSH2_KNOWNHOST_KEY_SSHDSS, .name = "ssh-dss",
	    .algs = "ssh-dss" },
};
#define HOSTKEY_NTYPES	(sizeof(hostkey_types) / sizeof(hostkey_types[0]))

struct hostkeys *
hostkeys_new(void)
{
	struct hostkeys	*hk;

	hk = xcalloc(1, sizeof(*hk));
	return hk;
}

void
hostkeys_free(struct hostkeys *hk)
{
	size_t	i;

	if (hk == NULL)
		return;
	for (i = 0; i < hk->nrevoked; i++)
		free(hk->revoked[i]);
	free(hk->revoked);
	for (i = 0; i < hk->npat; i++) {
		while (hk->pat[i].npats > 0)
			free(hk->pat[i].pats[--hk->pat[i].npats]);
		free(hk->pat[i].pats);
		free(hk->pat[i].key);
	}
	free(hk->pat);
	free(hk);
}

const char *
hostkeys_type_name(int type)
{
	size_t	i;

	for (i = 0; i < HOSTKEY_NTYPES; i++) {
		if (hostkey_types[i].type == type)
			return hostkey_types[i].name;
	}
	return "unknown";
}

void
hostkeys_name(const char *host, int port, char *buf, size_t size)
{
	char	*p;

	if (port == 22 || port <= 0)
		snprintf(buf, size, "%s", host);
	else
		snprintf(buf, size, "[%s]:%d", host, port);
	/* ssh lowercases the name before it looks or writes. */
	for (p = buf; *p != '\0'; p++) {
		if (*p >= 'A' && *p <= 'Z')
			*p += 'a' - 'A';
	}
}

/* Split "hosts type key [comment]" into its three fields (in place): 0,
 * or -1 when a field is missing. */
static int
hostkeys_fields(char *line, char *f[3])
{
	char	*p = line;
	int	 n = 0;

	while (n < 3 && (f[n] = strsep(&p, " \t")) != NULL) {
		if (*f[n] != '\0')
			n++;
	}
	if (n < 3)
		return -1;
	f[2][strcspn(f[2], " \t\r\n")] = '\0';
	return 0;
}

/* Keep the key of a "@revoked hosts type key" line (after the marker). */
static int
hostkeys_add_revoked(struct hostkeys *hk, char *line)
{
	char	*f[3];

	if (hostkeys_fields(line, f) != 0)
		return -1;
	hk->revoked = xreallocarray(hk->revoked, hk->nrevoked + 1,
	    sizeof(*hk->revoked));
	hk->revoked[hk->nrevoked++] = xstrdup(f[2]);
	return 0;
}

/* The LIBSSH2_HOSTKEY_TYPE_* of a known_hosts key type name, or -1. */
static int
hostkeys_type_of(const char *name)
{
	size_t	i;

	for (i = 0; i < HOSTKEY_NTYPES; i++) {
		if (strcmp(hostkey_types[i].name, name) == 0)
			return hostkey_types[i].type;
	}
	return -1;
}

/* Is the name of a line hashed ("|1|salt|hash")? */
static int
hostkeys_hashed(const char *s)
{
	return strncmp(s, "|1|", 3) == 0;
}

/* The "salt|hash" of a hashed name into hp: 0, or -1 when malformed (the
 * line is then skipped, as ssh does). */
static int
hostkeys_pat_hash(struct hostkeys_pat *hp, const char *s)
{
	const char	*bar;
	uint8_t		 hash[64];
	long		 n;

	hp->hashed = 1;
	if ((bar = strchr(s, '|')) == NULL ||
	    (n = rutil_b64_decode(s, (size_t)(bar - s), hp->salt,
	    sizeof(hp->salt))) <= 0)
		return -1;
	hp->saltlen = (size_t)n;
	if (rutil_b64_decode(bar + 1, strlen(bar + 1), hash, sizeof(hash)) !=
	    SHA1_LEN)
		return -1;
	memcpy(hp->hash, hash, SHA1_LEN);
	return 0;
}

/* Does line hp name name (a pattern list, or a hashed name)? */
static int
hostkeys_pat_names(const struct hostkeys_pat *hp, const char *name)
{
	uint8_t	mac[SHA1_LEN];

	if (!hp->hashed)
		return sshconf_match_list(hp->pats, hp->npats, name);
	hmac_sha1(hp->salt, hp->saltlen, name, strlen(name), mac);
	return memcmp(mac, hp->hash, SHA1_LEN) == 0;
}

/* Keep "hosts type key" (after any marker) as a line of ours. */
static int
hostkeys_add_pat(struct hostkeys *hk, char *line, int ca)
{
	struct hostkeys_pat	*hp;
	char			*f[3], *p, *name;
	long			 klen;

	if (hostkeys_fields(line, f) != 0)
		return -1;
	hk->pat = xreallocarray(hk->pat, hk->npat + 1, sizeof(*hk->pat));
	hp = &hk->pat[hk->npat++];
	memset(hp, 0, sizeof(*hp));
	hp->ca = ca;
	hp->type = -1;		/* never matches until the key is read */
	/* Compared as bytes, as libssh2 does: base64 may be written with
	 * or without padding. */
	hp->key = xmalloc(strlen(f[2]));
	if ((klen = rutil_b64_decode(f[2], strlen(f[2]), hp->key,
	    strlen(f[2]))) <= 0)
		hp->type = -1;		/* never matches */
	else {
		hp->keylen = (size_t)klen;
		hp->type = hostkeys_type_of(f[1]);
	}
	if (hostkeys_hashed(f[0]))
		return hostkeys_pat_hash(hp, f[0] + 3);
	p = f[0];
	while ((name = strsep(&p, ",")) != NULL) {
		if (*name == '\0')
			continue;
		hp->pats = xreallocarray(hp->pats, (size_t)hp->npats + 1,
		    sizeof(*hp->pats));
		hp->pats[hp->npats++] = xstrdup(name);
	}
	return 0;
}

int
hostkeys_parse(struct hostkeys *hk, char *text, int *skipped)
{
	char	*line, *p, *s;
	int	 n = 0;

	*skipped = 0;
	for (p = text; p != NULL; ) {
		line = strsep(&p, "\n");
		for (s = line; *s == ' ' || *s == '\t'; s++)
			;
		if (*s == '\0' || *s == '#' || *s == '\r')
			continue;
		if (strncmp(s, "@revoked", 8) == 0 &&
		    (s[8] == ' ' || s[8] == '\t')) {
			if (hostkeys_add_revoked(hk, s + 8) == 0)
				n++;
			else
				(*skipped)++;
			continue;
		}
		if ((strncmp(s, "@cert-authority", 15) == 0 &&
		    (s[15] == ' ' || s[15] == '\t')) || *s != '@') {
			if (hostkeys_add_pat(hk, s + (*s == '@' ? 15 : 0),
			    *s == '@') == 0)
				n++;
			else
				(*skipped)++;
			continue;
		}
		(*skipped)++;		/* a marker ssh does not know */
	}
	return n;
}

int
hostkeys_load(struct hostkeys *hk, const char *path, int *skipped,
    char *err, size_t errlen)
{
	char	*text;
	size_t	 len;
	int	 n;

	*skipped = 0;
	if ((text = rutil_read_trusted(path, 64 << 20, &len, err, errlen)) ==
	    NULL)
		return -1;
	n = hostkeys_parse(hk, text, skipped);
	free(text);
	return n;
}

/* The knownhost KEY_* bits for a session host key type, or -1. */
static int
hostkeys_mask(int type)
{
	size_t	i;

	for (i = 0; i < HOSTKEY_NTYPES; i++) {
		if (hostkey_types[i].type == type)
			return hostkey_types[i].mask;
	}
	return -1;
}

/* What the pattern lines say about name and a key (a blob, NULL for
 * none) of type: PAT_MATCH, PAT_OTHER (a line of that type covers the
 * name with another key), or PAT_NONE; *types gets the types of the
 * lines covering the name, *ca whether a @cert-authority line does. */
enum { PAT_NONE, PAT_OTHER, PAT_MATCH };

static int
hostkeys_pat_check(const struct hostkeys *hk, const char *name,
    const uint8_t *key, size_t len, int type, unsigned *types, int *ca)
{
	const struct hostkeys_pat	*hp;
	size_t				 i;
	int				 rc = PAT_NONE;

	*types = 0;
	*ca = 0;
	for (i = 0; i < hk->npat; i++) {
		hp = &hk->pat[i];
		if (!hostkeys_pat_names(hp, name))
			continue;
		if (hp->ca) {
			*ca = 1;
			continue;
		}
		if (hp->type >= 0)
			*types |= 1u << hp->type;
		if (hp->type != type)
			continue;
		if (key != NULL && hp->keylen == len &&
		    memcmp(hp->key, key, len) == 0)
			return PAT_MATCH;
		rc = PAT_OTHER;
	}
	return rc;
}

unsigned
hostkeys_known_types(struct hostkeys *hk, const char *host, int port)
{
	char		 name[300];
	unsigned	 types;
	int		 ca;

	hostkeys_name(host, port, name, sizeof(name));
	hostkeys_pat_check(hk, name, NULL, 0, -1, &types, &ca);
	return types;
}

void
hostkeys_method_pref(unsigned known, char *buf, size_t size)
{
	size_t	i, off = 0;
	int	pass, n;

	buf[0] = '\0';
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < HOSTKEY_NTYPES; i++) {
			if (((known >> hostkey_types[i].type) & 1) != !pass)
				continue;
			n = snprintf(buf + off, size - off, "%s%s",
			    off > 0 ? "," : "", hostkey_types[i].algs);
			if (n < 0 || (size_t)n >= size - off)
				return;
			off += (size_t)n;
		}
	}
}

enum hostkey_verdict
hostkeys_check(struct hostkeys *hk, const char *host, int port,
    const uint8_t *key, size_t len, int type)
{
	char		 name[300], *b64;
	size_t		 i;
	unsigned	 types;
	int		 pat, ca;

	if (hostkeys_mask(type) < 0)
		return HK_ERROR;
	b64 = rutil_b64_encode(key, len, 1);
	for (i = 0; i < hk->nrevoked; i++) {
		if (strcmp(hk->revoked[i], b64) == 0) {
			free(b64);
			return HK_REVOKED;
		}
	}
	hostkeys_name(host, port, name, sizeof(name));
	free(b64);
	pat = hostkeys_pat_check(hk, name, key, len, type, &types, &ca);
	/* As ssh: one line with this key is enough, whichever it is. */
	if (pat == PAT_MATCH)
		return HK_MATCH;
	if (pat == PAT_OTHER)
		return HK_CHANGED;
	/* Known only with keys of other types: as suspicious as a change. */
	if (types != 0)
		return HK_CHANGED;
	/* Only a certificate signed by that authority would do. */
	if (ca)
		return HK_CA;
	return HK_UNKNOWN;
}

/* Create the directory of path with mode 0700 when it is missing. */
static int
hostkeys_mkdir(const char *path)
{
	char	*dir, *slash;
	int	 rc = 0;

	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			rc = -1;
	}
	free(dir);
	return rc;
}

int
hostkeys_add(struct hostkeys *hk, const char *path, const char *host,
    int port, const uint8_t *key, size_t len, int type, char *err,
    size_t errlen)
{
	struct stat	 st;
	char		 name[300], *b64, *line, last;
	ssize_t		 n;
	size_t		 ll;
	int		 fd, save, nl;

	if (hostkeys_mask(type) < 0) {
		snprintf(err, errlen, "unknown host key type");
		return -1;
	}
	hostkeys_name(host, port, name, sizeof(name));
	if (hostkeys_mkdir(path) != 0 || (fd = open(path,
	    O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* A file that does not end in a newline gets one first. */
	nl = fstat(fd, &st) == 0 && st.st_size > 0 &&
	    pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n';
	b64 = rutil_b64_encode(key, len, 1);
	line = xasprintf("%s%s %s %s\n", nl ? "\n" : "", name,
	    hostkeys_type_name(type), b64);
	free(b64);
	ll = strlen(line);
	n = write(fd, line, ll);
	save = errno;
	if (close(fd) != 0 && n == (ssize_t)ll) {
		n = -1;
		save = errno;
	}
	if (n != (ssize_t)ll) {
		snprintf(err, errlen, "%s: %s", path, n < 0 ? strerror(save) :
		    "short write");
		free(line);
		return -1;
	}
	hostkeys_add_pat(hk, line + nl, 0);
	free(line);
	return 0;
}
