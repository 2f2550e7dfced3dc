/* SPDX-License-Identifier: ISC */
/*
 * rconf: defaults, the one-time reading of everything the sessions share,
 * and the fan-out counter.  The probe is read into memory once: it is
 * hashed for its name on the nodes and written from memory on upload, so a
 * probe binary replaced while the monitor runs cannot be pushed half old,
 * half new.
 */
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh2.h>

#include "fsutil.h"
#include "hostkey.h"
#include "hostlist.h"
#include "rconf.h"
#include "rpush.h"
#include "rutil.h"
#include "sha256.h"
#include "sshconf.h"
#include "xmalloc.h"

#define RCONF_PROBE_MAX	(64 << 20)

/* The keys of a set of known_hosts files that ssh_config names for some
 * hosts (UserKnownHostsFile, GlobalKnownHostsFile), read once. */
struct rconf_known {
	char		*key;		/* the file names, one a line */
	char		*append;	/* the first user file, or NULL */
	struct hostkeys	*hk;
	char		*err;		/* a file of it is not safe */
};

struct rconf_priv {
	uint8_t		*probe;
	size_t		 probe_len;
	char		 hash[2 * SHA256_LEN + 1];
	char		 name[64];
	const char	*arch;
	uint8_t		*nvml;		/* NULL: no helper to push */
	size_t		 nvml_len;
	char		 nvml_hash[2 * SHA256_LEN + 1];
	char		 nvml_name[64];
	struct sshconf	*sshconf;
	struct hostkeys	*hostkeys;
	struct rconf_known *known;	/* other known_hosts file sets */
	size_t		 nknown;
	int		 inflight;
	unsigned	 seq;
	int		 libssh2;
	struct hostlist	*ranks;		/* rank_nodes, in order, or NULL */
	/* Its names sorted (the first of equal names first), for
	 * rconf_rank: every node of a 10,000-node job looks itself up. */
	struct rconf_rankent *rankidx;
	size_t		 nranks;
};

/* A node name and its rank (its position in rank_nodes). */
struct rconf_rankent {
	const char	*name;
	long		 rank;
};

static int
rconf_rankent_cmp(const void *a, const void *b)
{
	const struct rconf_rankent	*x = a, *y = b;
	int				 r = strcmp(x->name, y->name);

	return r != 0 ? r : (x->rank > y->rank) - (x->rank < y->rank);
}

void
rconf_init(struct rconf *c)
{
	static const char	*keys[] = { "id_ed25519", "id_ecdsa",
				    "id_rsa" };
	static const unsigned	 backoff[] = { 1000, 2000, 4000, 8000, 16000,
				    30000 };
	struct passwd		*pw;
	const char		*home, *user;
	size_t			 i;

	memset(c, 0, sizeof(*c));
	pw = getpwuid(getuid());
	if ((home = getenv("HOME")) == NULL || *home == '\0')
		home = pw != NULL ? pw->pw_dir : "/";
	user = pw != NULL ? pw->pw_name : getenv("USER");
	c->home = xstrdup(home);
	c->user = xstrdup(user != NULL ? user : "");
	c->port = 22;
	c->known_hosts = xasprintf("%s/.ssh/known_hosts", home);
	c->known_hosts_sys = xstrdup("/etc/ssh/ssh_known_hosts");
	c->use_agent = 1;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		c->identity[c->nidentity++] = xasprintf("%s/.ssh/%s", home,
		    keys[i]);
	c->ssh_config = xasprintf("%s/.ssh/config", home);
	c->ssh_config_sys = xstrdup("/etc/ssh/ssh_config");
	c->connect_timeout_ms = 10000;
	c->keepalive_s = 30;
	for (i = 0; i < sizeof(backoff) / sizeof(backoff[0]); i++)
		c->backoff_ms[c->nbackoff++] = backoff[i];
	c->retries = 2;
	c->max_inflight = 32;
	c->interval = 1.0;
	c->cache_dir = xstrdup(".cache/jobtop");
}

const char *
rconf_elf_arch(const uint8_t *p, size_t len)
{
	unsigned	machine;

	if (len < 20 || memcmp(p, "\177ELF", 4) != 0)
		return NULL;
	machine = p[5] == 2 ? (unsigned)p[18] << 8 | p[19] :
	    (unsigned)p[19] << 8 | p[18];
	switch (machine) {
	case 3:
		return "i686";
	case 40:
		return "armv7l";
	case 62:
		return "x86_64";
	case 183:
		return "aarch64";
	case 21:
		return p[5] == 1 ? "ppc64le" : "ppc64";
	case 22:
		return "s390x";
	case 243:
		return p[4] == 2 ? "riscv64" : "riscv32";
	default:
		return NULL;
	}
}

/* As root, the probe and its helper run as root on every node: refuse
 * one that someone else could have replaced (the file or a directory on
 * its path). */
static int
rconf_path_safe(const char *path, char *err, size_t errlen)
{
	char	why[512];

	if (geteuid() != 0 || fs_path_safe(path, why, sizeof(why)) == 0)
		return 0;
	snprintf(err, errlen, "%s is not safe to run as root: %.400s", path,
	    why);
	return -1;
}

/* Read the probe: content, hash, name, machine. */
static int
rconf_load_probe(struct rconf *c, char *err, size_t errlen)
{
	struct rconf_priv	*p = c->priv;

	if (c->probe_path == NULL) {
		snprintf(err, errlen, "no probe binary given");
		return -1;
	}
	if ((p->probe = (uint8_t *)rutil_read_file(c->probe_path,
	    RCONF_PROBE_MAX, &p->probe_len)) == NULL) {
		snprintf(err, errlen, "%s: %s", c->probe_path,
		    strerror(errno));
		return -1;
	}
	if (rconf_path_safe(c->probe_path, err, errlen) != 0)
		return -1;
	if ((p->arch = rconf_elf_arch(p->probe, p->probe_len)) == NULL) {
		snprintf(err, errlen, "%s: not a probe binary for a machine "
		    "jobtop knows", c->probe_path);
		return -1;
	}
	sha256_hex(p->probe, p->probe_len, p->hash);
	snprintf(p->name, sizeof(p->name), "jobtop-probe-%.16s", p->hash);
	return 0;
}

/* Read the NVML helper, if any.  It is optional: one that cannot be read
 * or is built for another machine than the probe is logged and not
 * pushed (the probes then use nvidia-smi). */
static void
rconf_load_nvml(struct rconf *c)
{
	struct rconf_priv	*p = c->priv;
	const char		*arch;
	char			 why[512];

	if (c->nvml_path == NULL)
		return;
	if (rconf_path_safe(c->nvml_path, why, sizeof(why)) != 0) {
		rconf_log(c, "%s; NVML helper not pushed", why);
		return;
	}
	if ((p->nvml = (uint8_t *)rutil_read_file(c->nvml_path,
	    RCONF_PROBE_MAX, &p->nvml_len)) == NULL) {
		rconf_log(c, "%s: %s; NVML helper not pushed", c->nvml_path,
		    strerror(errno));
		return;
	}
	if ((arch = rconf_elf_arch(p->nvml, p->nvml_len)) == NULL ||
	    strcmp(arch, p->arch) != 0) {
		rconf_log(c, "%s is for %s, the probe for %s; NVML helper not "
		    "pushed", c->nvml_path, arch != NULL ? arch : "no known "
		    "machine", p->arch);
		free(p->nvml);
		p->nvml = NULL;
		return;
	}
	sha256_hex(p->nvml, p->nvml_len, p->nvml_hash);
	snprintf(p->nvml_name, sizeof(p->nvml_name), "jobtop-nvml-%.16s",
	    p->nvml_hash);
	rconf_log(c, "NVML helper %s, %zu bytes", p->nvml_name,
	    p->nvml_len);
}

/* Read one known_hosts file into a collection: 0, or -1 with err for a
 * file others may change (trusting it, or writing to it with accept-new,
 * would hand them the host keys). */
static int
rconf_load_known(const struct rconf *c, struct hostkeys *hk,
    const char *path, char *err, size_t errlen)
{
	char	buf[512];
	int	n, skipped;

	if (path == NULL)
		return 0;
	n = hostkeys_load(hk, path, &skipped, err, errlen);
	if (n < 0 && errno == EPERM)
		return -1;
	if (n < 0 && errno != ENOENT)
		rconf_log(c, "%s: %s", rconf_tilde(c, path, buf, sizeof(buf)),
		    strerror(errno));
	else if (n >= 0)
		rconf_log(c, "%s: %d host keys%s", rconf_tilde(c, path, buf,
		    sizeof(buf)), n, skipped > 0 ? ", some lines skipped "
		    "(markers or key types libssh2 does not know)" : "");
	return 0;
}

/* Everything rconf_ready made. */
static void
rconf_free_priv(struct rconf_priv *p)
{
	size_t	i;

	if (p == NULL)
		return;
	free(p->probe);
	free(p->nvml);
	sshconf_free(p->sshconf);
	/* The collections hold a libssh2 session: free them before exit. */
	hostkeys_free(p->hostkeys);
	for (i = 0; i < p->nknown; i++) {
		free(p->known[i].key);
		free(p->known[i].append);
		free(p->known[i].err);
		hostkeys_free(p->known[i].hk);
	}
	free(p->known);
	hostlist_free(p->ranks);
	free(p->rankidx);
	if (p->libssh2)
		libssh2_exit();
	free(p);
}

int
rconf_ready(struct rconf *c, char *err, size_t errlen)
{
	struct rconf_priv	*p;
	char			 why[512];
	size_t			 i;

	if (c->priv != NULL)
		return 0;
	if (c->job != NULL && (!rpush_safe(c->job) || strchr(c->job, '/')
	    != NULL)) {
		snprintf(err, errlen, "job id unusable on the command line");
		return -1;
	}
	if (c->step != NULL && (!rpush_safe(c->step) ||
	    strchr(c->step, '/') != NULL)) {
		snprintf(err, errlen, "step unusable on the command line");
		return -1;
	}
	if (c->sluid != NULL && (!rpush_safe(c->sluid) ||
	    strchr(c->sluid, '/') != NULL)) {
		snprintf(err, errlen, "SLUID unusable on the command line");
		return -1;
	}
	if (c->cache_dir == NULL || !rpush_safe(c->cache_dir)) {
		snprintf(err, errlen, "bad remote cache directory");
		return -1;
	}
	if (!(c->interval >= 0.01 && c->interval <= 86400)) {
		snprintf(err, errlen, "bad sample interval");
		return -1;
	}
	if (c->max_inflight < 1)
		c->max_inflight = 1;
	if (c->nbackoff < 1)
		c->backoff_ms[c->nbackoff++] = 1000;
	c->priv = p = xcalloc(1, sizeof(*p));
	p->sshconf = sshconf_new(c->home, c->user, 0);
	if (libssh2_init(0) != 0) {
		snprintf(err, errlen, "libssh2 cannot start");
		goto fail;
	}
	p->libssh2 = 1;
	p->hostkeys = hostkeys_new();
	if (rconf_load_probe(c, err, errlen) != 0)
		goto fail;
	rconf_load_nvml(c);
	if (c->ssh_config != NULL && sshconf_load(p->sshconf, c->ssh_config,
	    0, err, errlen) != 0)
		goto fail;
	if (c->ssh_config_sys != NULL && sshconf_load(p->sshconf,
	    c->ssh_config_sys, 1, why, sizeof(why)) != 0)
		rconf_log(c, "ignoring the rest of %s: %s", c->ssh_config_sys,
		    why);
	if (rconf_load_known(c, p->hostkeys, c->known_hosts, err,
	    errlen) != 0 || rconf_load_known(c, p->hostkeys,
	    c->known_hosts_sys, err, errlen) != 0)
		goto fail;
	/* Expanded once, in its order: every node looks itself up. */
	if (c->rank_nodes != NULL) {
		if ((p->ranks = hostlist_new()) == NULL) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		hostlist_keep_order(p->ranks);
		if (hostlist_push(p->ranks, c->rank_nodes, why,
		    sizeof(why)) != HL_OK) {
			snprintf(err, errlen, "the job's node list: %s", why);
			goto fail;
		}
		p->nranks = hostlist_count(p->ranks);
		p->rankidx = xreallocarray(NULL, p->nranks + 1,
		    sizeof(*p->rankidx));
		for (i = 0; i < p->nranks; i++) {
			p->rankidx[i].name = hostlist_get(p->ranks, i);
			p->rankidx[i].rank = (long)i;
		}
		qsort(p->rankidx, p->nranks, sizeof(*p->rankidx),
		    rconf_rankent_cmp);
	}
	rconf_log(c, "probe %s for %s, %zu bytes", p->name, p->arch,
	    p->probe_len);
	return 0;

fail:
	rconf_free_priv(p);
	c->priv = NULL;
	return -1;
}

void
rconf_free(struct rconf *c)
{
	int	i;

	rconf_free_priv(c->priv);
	free(c->home);
	free(c->user);
	free(c->known_hosts);
	free(c->known_hosts_sys);
	for (i = 0; i < c->nidentity; i++)
		free(c->identity[i]);
	free(c->ssh_config);
	free(c->ssh_config_sys);
	free(c->probe_path);
	free(c->job);
	free(c->step);
	free(c->sluid);
	free(c->rank_nodes);
	free(c->cache_dir);
	free(c->nvml_path);
	memset(c, 0, sizeof(*c));
}

long
rconf_rank(const struct rconf *c, const char *host)
{
	const struct rconf_priv	*p = c->priv;
	size_t			 lo = 0, hi, mid;

	if (p == NULL || p->rankidx == NULL)
		return -1;
	/* The first entry not below host: its first rank if it is host. */
	hi = p->nranks;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(p->rankidx[mid].name, host) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nranks && strcmp(p->rankidx[lo].name, host) == 0 ?
	    p->rankidx[lo].rank : -1;
}

const uint8_t *
rconf_probe_data(const struct rconf *c, size_t *len)
{
	*len = c->priv->probe_len;
	return c->priv->probe;
}

const char *
rconf_probe_hash(const struct rconf *c)
{
	return c->priv->hash;
}

const char *
rconf_probe_name(const struct rconf *c)
{
	return c->priv->name;
}

const char *
rconf_probe_arch(const struct rconf *c)
{
	return c->priv->arch;
}

const uint8_t *
rconf_nvml_data(const struct rconf *c, size_t *len)
{
	*len = c->priv->nvml_len;
	return c->priv->nvml;
}

const char *
rconf_nvml_hash(const struct rconf *c)
{
	return c->priv->nvml_hash;
}

const char *
rconf_nvml_name(const struct rconf *c)
{
	return c->priv->nvml_name;
}

struct hostkeys *
rconf_hostkeys(const struct rconf *c)
{
	return c->priv->hostkeys;
}

/* Add file names to a set's key, one a line. */
static void
rconf_known_key(char **key, char *const *files, int n, const char *dflt)
{
	char	*nk;
	int	 i;

	for (i = 0; i < (n < 0 ? dflt != NULL : n); i++) {
		nk = xasprintf("%s%s\n", *key, n < 0 ? dflt : files[i]);
		free(*key);
		*key = nk;
	}
}

struct hostkeys *
rconf_hostkeys_for(const struct rconf *c, char *const *user, int nuser,
    char *const *global, int nglobal, const char **append, const char **err)
{
	struct rconf_priv	*p = c->priv;
	struct rconf_known	*k;
	char			*key, *copy, *q, *f, why[512];
	const char		*app;
	size_t			 i;

	*append = c->known_hosts;
	*err = NULL;
	if (nuser < 0 && nglobal < 0)
		return p->hostkeys;
	/* An unset half keeps its default, as in ssh. */
	key = xstrdup("");
	rconf_known_key(&key, user, nuser, c->known_hosts);
	rconf_known_key(&key, global, nglobal, c->known_hosts_sys);
	app = nuser < 0 ? c->known_hosts : nuser > 0 ? user[0] : NULL;
	for (i = 0; i < p->nknown; i++) {
		k = &p->known[i];
		if (strcmp(k->key, key) == 0 && (k->append == NULL ?
		    app == NULL : app != NULL && strcmp(k->append, app) == 0)) {
			free(key);
			*append = k->append;
			*err = k->err;
			return k->err == NULL ? k->hk : NULL;
		}
	}
	p->known = xreallocarray(p->known, p->nknown + 1, sizeof(*p->known));
	k = &p->known[p->nknown++];
	k->key = key;
	k->append = app != NULL ? xstrdup(app) : NULL;
	k->hk = hostkeys_new();
	k->err = NULL;
	copy = q = xstrdup(key);
	while (k->err == NULL && (f = strsep(&q, "\n")) != NULL) {
		if (*f != '\0' && rconf_load_known(c, k->hk, f, why,
		    sizeof(why)) != 0)
			k->err = xstrdup(why);
	}
	free(copy);
	*append = k->append;
	*err = k->err;
	return k->err == NULL ? k->hk : NULL;
}

struct sshconf *
rconf_sshconf(const struct rconf *c)
{
	return c->priv->sshconf;
}

int
rconf_slot_take(const struct rconf *c)
{
	if (c->priv->inflight >= c->max_inflight)
		return 0;
	c->priv->inflight++;
	return 1;
}

void
rconf_slot_give(const struct rconf *c)
{
	if (c->priv->inflight > 0)
		c->priv->inflight--;
}

int
rconf_slot_free(const struct rconf *c)
{
	return c->priv->inflight < c->max_inflight;
}

unsigned
rconf_seq(const struct rconf *c)
{
	return ++c->priv->seq;
}

void
rconf_log(const struct rconf *c, const char *fmt, ...)
{
	va_list	ap;
	char	line[1024];

	if (c->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->log(c->log_arg, line);
}

const char *
rconf_tilde(const struct rconf *c, const char *path, char *buf, size_t size)
{
	size_t	n = strlen(c->home);

	if (n > 1 && strncmp(path, c->home, n) == 0 && path[n] == '/')
		snprintf(buf, size, "~%s", path + n);
	else
		snprintf(buf, size, "%s", path);
	return buf;
}
