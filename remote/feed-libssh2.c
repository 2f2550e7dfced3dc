/* SPDX-License-Identifier: ISC */
/*
 * feed-libssh2: the libssh2 transport, one SSH session per node in this
 * process (rsess.c keeps its own states, timers, reconnects and
 * refusals); the cheapest per node, first on the ladder.  Its usable()
 * says no for a host whose ssh_config asks for what only OpenSSH does
 * (ProxyJump, GSSAPI, ControlMaster...) or whose key is a certificate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh2.h>

#include "feed.h"
#include "ladder.h"
#include "rconf.h"
#include "rsess.h"
#include "sshconf.h"
#include "xmalloc.h"

struct feed_l2 {
	struct rsess		*s;
	const struct rconf	*rc;		/* NULL: a borrowed session */
	char			 why[900];	/* a refusal, explained */
};

#define L2(f)	(((struct feed_l2 *)(f)->impl)->s)

static int
feed_l2_pollfds(struct feed *f, struct pollfd *p)
{
	rsess_pollfd(L2(f), p);
	return p->fd >= 0 ? 1 : 0;
}

static int
feed_l2_timeout(struct feed *f, uint64_t now)
{
	return rsess_timeout(L2(f), now);
}

static void
feed_l2_step(struct feed *f, uint64_t now, const struct pollfd *p, int n)
{
	if ((n > 0 && p[0].revents != 0) ||
	    rsess_timeout(L2(f), now) == 0)
		rsess_step(L2(f), now);
}

static ssize_t
feed_l2_read(struct feed *f, void *buf, size_t size)
{
	return rsess_read(L2(f), buf, size);
}

static void
feed_l2_stop(struct feed *f)
{
	rsess_stop(L2(f));
}

static int
feed_l2_done(struct feed *f)
{
	return rsess_phase(L2(f)) == RS_DEAD;
}

static enum feed_phase
feed_l2_phase(struct feed *f, const char **why)
{
	struct feed_l2	*l = f->impl;
	struct rsess	*s = l->s;
	const char	*st;
	char		 other[512];

	*why = "";
	switch (rsess_phase(s)) {
	case RS_RESOLVE:
		st = rsess_state(s);
		return strcmp(st, "waiting") == 0 ? FEED_WAITING :
		    FEED_CONNECTING;
	case RS_CONNECT:
	case RS_HANDSHAKE:
	case RS_HOSTKEY:
	case RS_AUTH:
		return FEED_CONNECTING;
	case RS_PUSH:
		return FEED_PUSHING;
	case RS_EXEC:
		return FEED_STARTING;
	case RS_STREAM:
		return strcmp(rsess_state(s), "stopping") == 0 ?
		    FEED_STOPPING : FEED_LIVE;
	case RS_BACKOFF:
		*why = rsess_error(s);
		return FEED_LOST;
	default:
		if (strcmp(rsess_state(s), "closed") == 0)
			return FEED_CLOSED;
		*why = rsess_error(s);
		/* Say why an RSA key was refused, and what works. */
		if (l->rc != NULL && rsess_auth_refused(s) && l->why[0] ==
		    '\0' && feed_libssh2_rsa_why(l->rc, rsess_host(s),
		    l->why, sizeof(l->why)))
			snprintf(l->why, sizeof(l->why), "%s: libssh2 %s signs "
			    "RSA keys with SHA-1 only, which OpenSSH 8.8 and "
			    "later refuse; the system ssh (--transport ssh) "
			    "signs with rsa-sha2", rsess_error(s),
			    feed_libssh2_version());
		/* Or what the user's OpenSSH would have used instead (a
		 * certificate, ProxyJump, a Kerberos ticket). */
		if (l->rc != NULL && rsess_auth_refused(s) && l->why[0] ==
		    '\0' && feed_libssh2_usable(l->rc, rsess_host(s), other,
		    sizeof(other)) < 0)
			snprintf(l->why, sizeof(l->why), "%s; %s: the system "
			    "ssh (--transport ssh) can", rsess_error(s), other);
		if (rsess_auth_refused(s) && l->why[0] != '\0')
			*why = l->why;
		return rsess_refused(s) ? FEED_REFUSED : FEED_FAILED;
	}
}

static enum feed_fail
feed_l2_failure(struct feed *f)
{
	if (rsess_auth_refused(L2(f)))
		return FEED_FAIL_AUTH;
	if (rsess_config_refused(L2(f)))
		return FEED_FAIL_UNSUPPORTED;
	return FEED_FAIL_OTHER;
}

static int
feed_l2_set_interval(struct feed *f, unsigned ms)
{
	rsess_set_interval(L2(f), ms);
	return 0;
}

/* The side command: rsess_exec_* behind struct feed_exec. */
static int
feed_l2x_done(const struct feed_exec *x)
{
	return rsess_exec_done(x->impl);
}

static const char *
feed_l2x_out(const struct feed_exec *x, size_t *len)
{
	return rsess_exec_out(x->impl, len);
}

static const char *
feed_l2x_err(const struct feed_exec *x, size_t *len)
{
	return rsess_exec_err(x->impl, len);
}

static int
feed_l2x_status(const struct feed_exec *x)
{
	return rsess_exec_status(x->impl);
}

static const char *
feed_l2x_why(const struct feed_exec *x)
{
	return rsess_exec_why(x->impl);
}

static void
feed_l2x_free(struct feed_exec *x)
{
	rsess_exec_free(x->impl);
	free(x);
}

static const struct feed_exec_ops feed_l2x_ops = {
	.done = feed_l2x_done,
	.out = feed_l2x_out,
	.err = feed_l2x_err,
	.status = feed_l2x_status,
	.why = feed_l2x_why,
	.free = feed_l2x_free,
};

static struct feed_exec *
feed_l2_exec_start(struct feed *f, const char *cmd, size_t cap,
    unsigned timeout_ms, char *err, size_t errsz)
{
	struct rsess_exec	*rx;
	struct feed_exec	*x;

	if ((rx = rsess_exec_start(L2(f), cmd, cap, timeout_ms, err,
	    errsz)) == NULL)
		return NULL;
	if ((x = calloc(1, sizeof(*x))) == NULL) {
		rsess_exec_free(rx);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	x->ops = &feed_l2x_ops;
	x->impl = rx;
	return x;
}

static void
feed_l2_free(struct feed *f)
{
	rsess_close(L2(f));
	free(f->impl);
}

static const struct feed_ops feed_libssh2_ops = {
	.name = "libssh2",
	.pollfds = feed_l2_pollfds,
	.timeout = feed_l2_timeout,
	.step = feed_l2_step,
	.read = feed_l2_read,
	.stop = feed_l2_stop,
	.done = feed_l2_done,
	.phase = feed_l2_phase,
	.failure = feed_l2_failure,
	.set_interval = feed_l2_set_interval,
	.exec_start = feed_l2_exec_start,
	.free = feed_l2_free,
};

/* The same over a session the caller keeps (tests drive rsess directly). */
static void
feed_l2_release(struct feed *f)
{
	free(f->impl);
}

static const struct feed_ops feed_libssh2_borrowed_ops = {
	.name = "libssh2",
	.pollfds = feed_l2_pollfds,
	.timeout = feed_l2_timeout,
	.step = feed_l2_step,
	.read = feed_l2_read,
	.stop = feed_l2_stop,
	.done = feed_l2_done,
	.phase = feed_l2_phase,
	.failure = feed_l2_failure,
	.set_interval = feed_l2_set_interval,
	.exec_start = feed_l2_exec_start,
	.free = feed_l2_release,
};

/* The session behind a libssh2 feed, NULL for other feeds (--explain
 * asks it how it authenticated). */
struct rsess *
feed_libssh2_rsess(struct feed *f)
{
	if (f == NULL || (f->ops != &feed_libssh2_ops &&
	    f->ops != &feed_libssh2_borrowed_ops))
		return NULL;
	return L2(f);
}

struct feed *
feed_libssh2_of(struct rsess *s)
{
	struct feed_l2	*l = xcalloc(1, sizeof(*l));

	l->s = s;
	return feed_alloc(&feed_libssh2_borrowed_ops, l);
}

struct feed *
feed_new_libssh2(const struct rconf *rc, const char *host, char *err,
    size_t errsz)
{
	struct feed_l2	*l = xcalloc(1, sizeof(*l));

	(void)err;
	(void)errsz;
	l->s = rsess_new(rc, host);
	l->rc = rc;
	return feed_alloc(&feed_libssh2_ops, l);
}

/* Is the public key beside this private key file an RSA key? */
static int
feed_l2_is_rsa(const char *path)
{
	char	 pub[4096], line[16];
	FILE	*fp;
	int	 rsa = 0;

	snprintf(pub, sizeof(pub), "%s.pub", path);
	if ((fp = fopen(pub, "re")) == NULL)
		return 0;
	if (fgets(line, sizeof(line), fp) != NULL &&
	    strncmp(line, "ssh-rsa ", 8) == 0)
		rsa = 1;
	fclose(fp);
	return rsa;
}

int
feed_libssh2_rsa_why(const struct rconf *rc, const char *host, char *why,
    size_t whysz)
{
	struct sshconf_host	 h;
	char			 err[256];
	char *const		*ids;
	int			 i, n, rsa = 0;

	/* From 1.11 on libssh2 signs with rsa-sha2 too. */
	if (libssh2_version(0x010b00) != NULL)
		return 0;
	if (sshconf_lookup(rconf_sshconf(rc), host, rc->user, &h, err,
	    sizeof(err)) != 0)
		h.nidentity = 0;
	ids = h.nidentity > 0 ? h.identity : rc->identity;
	n = h.nidentity > 0 ? h.nidentity : rc->nidentity;
	for (i = 0; i < n && !rsa; i++)
		rsa = access(ids[i], R_OK) == 0 && feed_l2_is_rsa(ids[i]);
	sshconf_host_free(&h);
	if (rsa)
		snprintf(why, whysz, "libssh2: RSA key needs rsa-sha2 "
		    "signatures (libssh2 %s signs SHA-1 only)",
		    feed_libssh2_version());
	return rsa;
}

const char *
feed_libssh2_version(void)
{
	const char	*v = libssh2_version(0);

	return v != NULL ? v : LIBSSH2_VERSION;
}

/* Does the user hold a Kerberos ticket cache (GSSAPI could log in)? */
static int
feed_l2_kerberos(void)
{
	const char	*cc = getenv("KRB5CCNAME");
	char		 path[64];

	if (cc != NULL && *cc != '\0') {
		if (strncmp(cc, "FILE:", 5) == 0)
			cc += 5;
		/* KEYRING:, KCM:, DIR:...: a cache exists somewhere. */
		return *cc != '/' || access(cc, R_OK) == 0;
	}
	snprintf(path, sizeof(path), "/tmp/krb5cc_%ld", (long)getuid());
	return access(path, R_OK) == 0;
}

int
feed_libssh2_usable(const struct rconf *rc, const char *host, char *why,
    size_t whysz)
{
	struct sshconf_host	 h;
	char			 err[512], cert[4096], shown[512];
	int			 i, n, r = 0;
	char *const		*ids;

	if (sshconf_lookup(rconf_sshconf(rc), host, rc->user, &h, err,
	    sizeof(err)) != 0) {
		/* A bad config: libssh2's own session says so. */
		sshconf_host_free(&h);
		return 0;
	}
	if (h.openssh != NULL) {
		snprintf(why, whysz, "libssh2: %s in the ssh configuration "
		    "(OpenSSH only)", h.openssh);
		sshconf_host_free(&h);
		return -1;
	}
	if (h.gssapi && feed_l2_kerberos()) {
		snprintf(why, whysz, "libssh2: GSSAPIAuthentication with a "
		    "Kerberos ticket (OpenSSH only)");
		sshconf_host_free(&h);
		return -1;
	}
	ids = h.nidentity > 0 ? h.identity : rc->identity;
	n = h.nidentity > 0 ? h.nidentity : rc->nidentity;
	for (i = 0; i < n && r == 0; i++) {
		snprintf(cert, sizeof(cert), "%s-cert.pub", ids[i]);
		if (access(cert, R_OK) != 0)
			continue;
		rconf_tilde(rc, cert, shown, sizeof(shown));
		snprintf(why, whysz, "libssh2: certificate %s (libssh2 "
		    "cannot authenticate with OpenSSH certificates)", shown);
		r = -1;
	}
	sshconf_host_free(&h);
	return r;
}
