/* SPDX-License-Identifier: ISC */
/*
 * test-remote-config: the SSH transport's pieces that need no server.
 * ssh_config parsing and lookup (patterns, negation, first value wins,
 * IdentityFile expansion, Include, Match, errors with file:line); known
 * host decisions on temporary known_hosts files (plain, hashed, other
 * ports, changed, other key types, revoked, lines libssh2 cannot parse,
 * appending); base64, fingerprints, passphrase detection, SHA-256; the
 * push scripts' output and decisions; the state table.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libssh2.h>

#include "feed-launch.h"
#include "feed-local.h"
#include "fsutil.h"
#include "harness.h"
#include "hostkey.h"
#include "rconf.h"
#include "rpush.h"
#include "rsess.h"
#include "rutil.h"
#include "sha1.h"
#include "sha256.h"
#include "sshconf.h"

static char	tmp[64];

/* Public keys made with ssh-keygen for these tests (no private part). */
#define KEY_A	"AAAAC3NzaC1lZDI1NTE5AAAAIDxi7klxuuU98kFlHVq6GuRQ2p4evjmTC+" \
		"C2V9uCRY25"
#define KEY_B	"AAAAC3NzaC1lZDI1NTE5AAAAIPyCu/U7Gn/QGycpYBmn2g/e1JVGZgDeZH" \
		"aGrihEf4Hp"
#define KEY_C	"AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBP8jGQ" \
		"+dr0ym4POG8i4xc7wIUYim9JyJYmp6QPkWUpAssB8yP+3/JkMWKbxjfPbAe" \
		"JnQs8FHGlwk0acoGrIZyJs="
/* ssh-keygen -H of "node7 KEY_A" and "[node8]:2222 KEY_A". */
#define HASHED_7 "|1|6U5Fjz1fcg+uGz90UIVcrLP6xKI=|wodHctunkDHmR1inZHpqkBSqAks="
#define HASHED_8 "|1|U7dAGL9uYzj7fVBXr55fwinJFbI=|k/9FKF8/XU0cVSTifWC/ALvKmeI="

static void
put(const char *name, const char *text)
{
	char	 path[256];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static size_t
blob(const char *b64, uint8_t *out, size_t size)
{
	long	n = rutil_b64_decode(b64, strlen(b64), out, size);

	return n < 0 ? 0 : (size_t)n;
}

static int
parse(struct sshconf *c, const char *text, char *err, size_t errlen)
{
	return sshconf_parse(c, "cfg", text, strlen(text), 0, err, errlen);
}

static void
test_patterns(void)
{
	char	 p1[] = "node*", p2[] = "!node3";
	char	*l1[] = { p1, p2 };
	char	*l2[] = { p2 };

	CHECK(sshconf_match_pattern("node*", "node12"));
	CHECK(sshconf_match_pattern("NODE?", "node1"));
	CHECK(!sshconf_match_pattern("node?", "node12"));
	CHECK(sshconf_match_pattern("*", ""));
	CHECK(sshconf_match_pattern("*.a.*.b", "x.a.y.a.z.b"));
	CHECK(!sshconf_match_pattern("*.a.*.b", "x.a.y.a.z.c"));
	CHECK(sshconf_match_pattern("a*b*c*d", "aXXbYYcZZd"));
	CHECK(!sshconf_match_pattern("a*b*c*d", "aXXbYYcZZ"));
	CHECK(sshconf_match_list(l1, 2, "node1"));
	CHECK(!sshconf_match_list(l1, 2, "node3"));
	CHECK(!sshconf_match_list(l1, 2, "gpu1"));
	/* A negation alone matches nothing, as in ssh. */
	CHECK(!sshconf_match_list(l2, 1, "node1"));
}

static void
test_config_lookup(void)
{
	static const char text[] =
	    "# comment\n"
	    "Host node1 gpu?\n"
	    "    HostName %h.cluster.example\n"
	    "    User alice\n"
	    "    IdentityFile ~/.ssh/cluster_%r_%h\n"
	    "Host node* !node3\n"
	    "\tPort=2222\n"
	    "\tUser bob\n"
	    "Host node3\n"
	    "  IdentitiesOnly yes\n"
	    "  ServerAliveInterval 5\n"
	    "  IdentityFile \"/keys/with space\"\n"
	    "Host *\n"
	    "  Port 22\n"
	    "  User carol\n"
	    "  IdentityFile %d/.ssh/all_%u_%p%%\n"
	    "  ConnectTimeout 7\n"
	    "  UnknownKeyword whatever we like\n";
	struct sshconf		*c;
	struct sshconf_host	 h;
	char			 err[256];

	c = sshconf_new("/home/me", "me", 0);
	CHECK_INT(parse(c, text, err, sizeof(err)), 0);

	CHECK_INT(sshconf_lookup(c, "node1", "me", &h, err, sizeof(err)), 0);
	CHECK_STR(h.hostname, "node1.cluster.example");
	CHECK_STR(h.user, "alice");
	CHECK_INT(h.port, 2222);
	CHECK_INT(h.nidentity, 2);
	if (h.nidentity == 2) {
		CHECK_STR(h.identity[0],
		    "/home/me/.ssh/cluster_alice_node1.cluster.example");
		CHECK_STR(h.identity[1], "/home/me/.ssh/all_me_2222%");
	}
	CHECK_INT(h.connect_timeout, 7);
	CHECK_INT(h.identities_only, -1);
	CHECK_INT(h.server_alive, -1);
	sshconf_host_free(&h);

	CHECK_INT(sshconf_lookup(c, "node3", "me", &h, err, sizeof(err)), 0);
	CHECK_STR(h.hostname, "node3");
	CHECK_STR(h.user, "carol");
	CHECK_INT(h.port, 22);
	CHECK_INT(h.server_alive, 5);
	CHECK_INT(h.identities_only, 1);
	CHECK(h.nidentity == 2 && strcmp(h.identity[0], "/keys/with space")
	    == 0);
	sshconf_host_free(&h);

	CHECK_INT(sshconf_lookup(c, "login", "me", &h, err, sizeof(err)), 0);
	CHECK_STR(h.hostname, "login");
	CHECK_STR(h.user, "carol");
	sshconf_host_free(&h);
	sshconf_free(c);

	/* Nothing applies: everything unset. */
	c = sshconf_new("/h", "me", 0);
	CHECK_INT(sshconf_lookup(c, "x", "me", &h, err, sizeof(err)), 0);
	CHECK_STR(h.hostname, "x");
	CHECK(h.user == NULL && h.port == 0 && h.nidentity == 0);
	sshconf_host_free(&h);
	sshconf_free(c);
}

/* UserKnownHostsFile and GlobalKnownHostsFile: lists, ~ and %-tokens,
 * "none", the first value wins; the rconf reads each set of files once
 * and appends to the first user file. */
static void
test_config_known_files(void)
{
	static const char text[] =
	    "Host a*\n"
	    "  UserKnownHostsFile ~/.ssh/kh_%h \"/etc/kh two\"\n"
	    "  GlobalKnownHostsFile none\n"
	    "Host b*\n"
	    "  UserKnownHostsFile none\n"
	    "Host *\n"
	    "  UserKnownHostsFile /never/used\n";
	struct sshconf		*c;
	struct sshconf_host	 h;
	struct rconf		 rc;
	struct hostkeys		*hk1, *hk2, *hk3;
	const char		*app, *kerr;
	char			 err[256], path[256];
	uint8_t			 a[128];
	size_t			 la;
	char			*one[1];

	c = sshconf_new("/home/me", "me", 0);
	CHECK_INT(parse(c, text, err, sizeof(err)), 0);
	CHECK_INT(sshconf_lookup(c, "a1", "me", &h, err, sizeof(err)), 0);
	CHECK_INT(h.nknown_user, 2);
	if (h.nknown_user == 2) {
		CHECK_STR(h.known_user[0], "/home/me/.ssh/kh_a1");
		CHECK_STR(h.known_user[1], "/etc/kh two");
	}
	CHECK_INT(h.nknown_global, 0);
	sshconf_host_free(&h);
	CHECK_INT(sshconf_lookup(c, "b1", "me", &h, err, sizeof(err)), 0);
	CHECK_INT(h.nknown_user, 0);
	CHECK_INT(h.nknown_global, -1);
	sshconf_host_free(&h);
	sshconf_free(c);
	c = sshconf_new("/home/me", "me", 0);
	CHECK_INT(sshconf_lookup(c, "x", "me", &h, err, sizeof(err)), 0);
	CHECK(h.nknown_user == -1 && h.nknown_global == -1);
	sshconf_host_free(&h);
	CHECK_INT(parse(c, "UserKnownHostsFile ~/%k\n", err, sizeof(err)),
	    -1);
	CHECK_STR(err, "cfg:1: unknown token %k in UserKnownHostsFile");
	sshconf_free(c);

	/* The rconf's sets: the default, one read per set, the append
	 * target. */
	la = blob(KEY_A, a, sizeof(a));
	put("kh_user", "n1 ssh-ed25519 " KEY_A "\n");
	put("kh_main", "");
	put("rc_probe", "");
	{
		static const uint8_t elf64[20] = { 0x7f, 'E', 'L', 'F', 2, 1,
		    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 62, 0 };
		FILE	*f;

		snprintf(path, sizeof(path), "%s/rc_probe", tmp);
		f = fopen(path, "w");
		fwrite(elf64, 1, sizeof(elf64), f);
		fclose(f);
	}
	rconf_init(&rc);
	rc.probe_path = strdup(path);
	free(rc.ssh_config);
	rc.ssh_config = NULL;
	free(rc.ssh_config_sys);
	rc.ssh_config_sys = NULL;
	free(rc.known_hosts);
	snprintf(path, sizeof(path), "%s/kh_main", tmp);
	rc.known_hosts = strdup(path);
	free(rc.known_hosts_sys);
	rc.known_hosts_sys = NULL;
	CHECK_INT(rconf_ready(&rc, err, sizeof(err)), 0);
	hk1 = rconf_hostkeys_for(&rc, NULL, -1, NULL, -1, &app, &kerr);
	CHECK(hk1 == rconf_hostkeys(&rc) && app != NULL &&
	    strcmp(app, path) == 0);
	CHECK_INT(hostkeys_check(hk1, "n1", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_UNKNOWN);
	snprintf(path, sizeof(path), "%s/kh_user", tmp);
	one[0] = path;
	hk2 = rconf_hostkeys_for(&rc, one, 1, NULL, -1, &app, &kerr);
	CHECK(hk2 != hk1 && app != NULL && strcmp(app, path) == 0);
	CHECK_INT(hostkeys_check(hk2, "n1", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	CHECK(rconf_hostkeys_for(&rc, one, 1, NULL, -1, &app, &kerr) == hk2);
	hk3 = rconf_hostkeys_for(&rc, NULL, 0, one, 1, &app, &kerr);
	CHECK(hk3 != hk2 && app == NULL);	/* UserKnownHostsFile none */
	CHECK_INT(hostkeys_check(hk3, "n1", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	rconf_free(&rc);
}

/* OpenSSH's owner and mode rules: ssh_config (and its Includes) and
 * known_hosts writable by others are refused, a private key readable by
 * others is, and, as root, a program under a directory others may write
 * to (unless sticky). */
static void
test_perms(void)
{
	struct sshconf	*c;
	struct hostkeys	*hk;
	char		 path[256], err[512], want[512], *text;
	size_t		 len;
	int		 skipped;

	put("perm_cfg", "Host x\n  Port 2\n");
	snprintf(path, sizeof(path), "%s/perm_cfg", tmp);
	CHECK(chmod(path, 0644) == 0);
	c = sshconf_new(tmp, "me", 0);
	CHECK_INT(sshconf_load(c, path, 0, err, sizeof(err)), 0);
	CHECK(chmod(path, 0666) == 0);
	CHECK_INT(sshconf_load(c, path, 0, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: bad owner or permissions (uid %lu, "
	    "mode 0666): it must be yours or root's, and writable by nobody "
	    "else", path, (unsigned long)getuid());
	CHECK_STR(err, want);
	CHECK(chmod(path, 0620) == 0);		/* group-writable */
	CHECK_INT(sshconf_load(c, path, 0, err, sizeof(err)), -1);
	/* An Include of such a file is refused with the line naming it. */
	CHECK(chmod(path, 0666) == 0);
	put("perm_top", "Include perm_cfg\n");
	snprintf(path, sizeof(path), "%s/perm_top", tmp);
	CHECK_INT(sshconf_load(c, path, 1, err, sizeof(err)), 0);
	sshconf_free(c);
	c = sshconf_new(tmp, "me", 0);
	snprintf(want, sizeof(want), "Include %s/perm_cfg\n", tmp);
	put("perm_top", want);
	CHECK_INT(sshconf_load(c, path, 0, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:1: Include %s/perm_cfg: bad owner "
	    "or permissions", path, tmp);
	CHECK(strncmp(err, want, strlen(want)) == 0);
	sshconf_free(c);

	/* known_hosts */
	put("perm_kh", "n1 ssh-ed25519 " KEY_A "\n");
	snprintf(path, sizeof(path), "%s/perm_kh", tmp);
	CHECK(chmod(path, 0602) == 0);
	hk = hostkeys_new();
	CHECK_INT(hostkeys_load(hk, path, &skipped, err, sizeof(err)), -1);
	CHECK_INT(errno, EPERM);
	CHECK(strstr(err, "mode 0602") != NULL);
	CHECK(chmod(path, 0644) == 0);
	CHECK_INT(hostkeys_load(hk, path, &skipped, err, sizeof(err)), 1);
	hostkeys_free(hk);
	CHECK((text = rutil_read_trusted(path, 100, &len, err,
	    sizeof(err))) != NULL);
	free(text);

	/* Private keys: 0600 and 0400 do, 0640 and 0644 do not. */
	CHECK(chmod(path, 0600) == 0);
	CHECK_INT(rutil_key_perm(path, err, sizeof(err)), 0);
	CHECK(chmod(path, 0400) == 0);
	CHECK_INT(rutil_key_perm(path, err, sizeof(err)), 0);
	CHECK(chmod(path, 0640) == 0);
	CHECK_INT(rutil_key_perm(path, err, sizeof(err)), -1);
	CHECK(chmod(path, 0644) == 0);
	CHECK_INT(rutil_key_perm(path, err, sizeof(err)), -1);
	CHECK_STR(err, "permissions 0644 are too open, chmod 600 it");
	snprintf(want, sizeof(want), "%s/nothing", tmp);
	CHECK_INT(rutil_key_perm(want, err, sizeof(err)), 1);

	/* A program and the directories above it. */
	snprintf(want, sizeof(want), "mkdir -p '%s/pd/sub' && chmod 755 "
	    "'%s/pd' '%s/pd/sub' && : > '%s/pd/sub/prog' && chmod 755 "
	    "'%s/pd/sub/prog'", tmp, tmp, tmp, tmp, tmp);
	CHECK_INT(system(want), 0);
	snprintf(path, sizeof(path), "%s/pd/sub/prog", tmp);
	CHECK_INT(fs_path_safe(path, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/pd", tmp);
	CHECK(chmod(want, 0775) == 0);
	CHECK_INT(fs_path_safe(path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s/pd is writable by group or others "
	    "(mode 0775)", tmp);
	CHECK_STR(err, want);
	snprintf(want, sizeof(want), "%s/pd", tmp);
	CHECK(chmod(want, 01777) == 0);		/* sticky */
	CHECK_INT(fs_path_safe(path, err, sizeof(err)), 0);
	CHECK(chmod(want, 0755) == 0);
	CHECK(chmod(path, 0757) == 0);
	CHECK_INT(fs_path_safe(path, err, sizeof(err)), -1);
	CHECK(chmod(path, 0755) == 0);
	if (geteuid() == 0) {
		CHECK(chown(path, 65534, 65534) == 0);
		CHECK_INT(fs_path_safe(path, err, sizeof(err)), -1);
		snprintf(want, sizeof(want), "%s is owned by uid 65534, "
		    "neither root nor you", path);
		CHECK_STR(err, want);
		/* The probe finder says so too (JOBTOP_PROBE). */
		setenv("JOBTOP_PROBE", path, 1);
		CHECK(feed_local_find_probe(err, sizeof(err)) == NULL);
		CHECK(strstr(err, "is not safe to run as root: ") != NULL);
		unsetenv("JOBTOP_PROBE");
	}
}

static void
test_config_match_proxy(void)
{
	static const char text[] =
	    "Host short\n"
	    "  HostName long.example\n"
	    "Match host *.example\n"
	    "  User matched\n"
	    "Match originalhost jump*\n"
	    "  ProxyJump bastion\n"
	    "Match exec \"true\"\n"
	    "  Port 99\n"
	    "Match all\n"
	    "  Port 23\n";
	struct sshconf		*c;
	struct sshconf_host	 h;
	char			 err[256];

	c = sshconf_new("/h", "me", 0);
	CHECK_INT(parse(c, text, err, sizeof(err)), 0);
	CHECK_INT(sshconf_lookup(c, "short", "me", &h, err, sizeof(err)), 0);
	CHECK_STR(h.user, "matched");
	CHECK_INT(h.port, 23);		/* Match exec never runs here */
	sshconf_host_free(&h);
	/* Not an error any more: the ladder sends such a host to ssh. */
	CHECK_INT(sshconf_lookup(c, "jumphost", "me", &h, err, sizeof(err)),
	    0);
	CHECK_STR(h.proxy, "ProxyJump bastion");
	CHECK_STR(h.openssh, "ProxyJump bastion");
	sshconf_host_free(&h);
	sshconf_free(c);
}

/* What only OpenSSH does is noted per host; "no" or "none" is not. */
static void
test_config_openssh_only(void)
{
	static const char text[] =
	    "Host krb*\n"
	    "  GSSAPIAuthentication yes\n"
	    "Host hb\n"
	    "  HostbasedAuthentication no\n"
	    "  ControlPath none\n"
	    "Host hb cm\n"
	    "  ControlMaster auto\n"
	    "Host cert\n"
	    "  CertificateFile ~/.ssh/id_ed25519-cert.pub\n";
	struct sshconf		*c;
	struct sshconf_host	 h;
	char			 err[256];

	c = sshconf_new("/h", "me", 0);
	CHECK_INT(parse(c, text, err, sizeof(err)), 0);
	CHECK_INT(sshconf_lookup(c, "krb1", "me", &h, err, sizeof(err)), 0);
	CHECK(h.openssh == NULL);
	CHECK_INT(h.gssapi, 1);
	sshconf_host_free(&h);
	/* The first value of each keyword counts: ControlPath none and
	 * HostbasedAuthentication no settle those, ControlMaster does not. */
	CHECK_INT(sshconf_lookup(c, "hb", "me", &h, err, sizeof(err)), 0);
	CHECK_STR(h.openssh, "ControlMaster auto");
	sshconf_host_free(&h);
	CHECK_INT(sshconf_lookup(c, "cert", "me", &h, err, sizeof(err)), 0);
	CHECK_STR(h.openssh, "CertificateFile ~/.ssh/id_ed25519-cert.pub");
	sshconf_host_free(&h);
	CHECK_INT(sshconf_lookup(c, "plain", "me", &h, err, sizeof(err)), 0);
	CHECK(h.openssh == NULL);
	CHECK_INT(h.gssapi, 0);
	sshconf_host_free(&h);
	sshconf_free(c);
}

static void
test_config_errors(void)
{
	static const struct {
		const char	*text;
		const char	*err;
	} cases[] = {
		{ "Host a\n  Port 0\n", "cfg:2: bad port \"0\"" },
		{ "Host a\n\n  Port 70000\n", "cfg:3: bad port \"70000\"" },
		{ "Port x1\n", "cfg:1: bad port \"x1\"" },
		{ "Host\n", "cfg:1: Host needs an argument" },
		{ "User \"alice\n", "cfg:1: unterminated quote" },
		{ "User alice bob\n", "cfg:1: User takes one argument" },
		{ "IdentityFile ~/.ssh/id_%z\n",
		  "cfg:1: unknown token %z in IdentityFile" },
		{ "HostName %u.x\n", "cfg:1: unknown token %u in HostName" },
		{ "IdentitiesOnly maybe\n",
		  "cfg:1: IdentitiesOnly must be yes or no" },
		{ "ConnectTimeout -1\n", "cfg:1: bad ConnectTimeout \"-1\"" },
		{ "ServerAliveInterval 1s\n",
		  "cfg:1: bad ServerAliveInterval \"1s\"" },
		{ "Match host\n", "cfg:1: Match host needs an argument" },
		{ "Host a\nHost !\n", "cfg:2: empty Host pattern" },
	};
	struct sshconf	*c;
	char		 err[256];
	size_t		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = sshconf_new("/h", "me", 0);
		err[0] = '\0';
		CHECK_INT(parse(c, cases[i].text, err, sizeof(err)), -1);
		CHECK_STR(err, cases[i].err);
		sshconf_free(c);
	}
	c = sshconf_new("/h", "me", SSHCONF_NO_INCLUDE);
	CHECK_INT(parse(c, "Include x\n", err, sizeof(err)), -1);
	CHECK_STR(err, "cfg:1: Include is not allowed here");
	sshconf_free(c);
}

static void
test_config_include(void)
{
	struct sshconf		*c;
	struct sshconf_host	 h;
	char			 err[512], path[256], main[512];

	snprintf(path, sizeof(path), "%s/.ssh", tmp);
	mkdir(path, 0700);
	put(".ssh/inc-a.conf", "Port 1001\nHost other\n  User other\n");
	put(".ssh/inc-b.conf", "User fromb\n");
	put(".ssh/bad.conf", "\n\nPort none\n");
	snprintf(main, sizeof(main),
	    "Host node*\n"
	    "  Include inc-*.conf\n"
	    "  HostName after-include\n"
	    "Host *\n"
	    "  Include %s/.ssh/missing-*.conf\n"
	    "  User last\n", tmp);
	c = sshconf_new(tmp, "me", 0);
	CHECK_INT(parse(c, main, err, sizeof(err)), 0);
	CHECK_INT(sshconf_lookup(c, "node1", "me", &h, err, sizeof(err)), 0);
	CHECK_INT(h.port, 1001);
	CHECK_STR(h.user, "fromb");
	CHECK_STR(h.hostname, "after-include");
	sshconf_host_free(&h);
	/* An Include inside "Host node*" applies to node* only. */
	CHECK_INT(sshconf_lookup(c, "other", "me", &h, err, sizeof(err)), 0);
	CHECK_STR(h.user, "last");
	CHECK_INT(h.port, 0);
	sshconf_host_free(&h);
	sshconf_free(c);

	c = sshconf_new(tmp, "me", 0);
	CHECK_INT(parse(c, "Include bad.conf\n", err, sizeof(err)), -1);
	snprintf(main, sizeof(main), "%s/.ssh/bad.conf:3: bad port \"none\"",
	    tmp);
	CHECK_STR(err, main);
	sshconf_free(c);

	/* A file that includes itself stops at the depth limit. */
	put(".ssh/loop.conf", "Include loop.conf\n");
	c = sshconf_new(tmp, "me", 0);
	CHECK_INT(parse(c, "Include loop.conf\n", err, sizeof(err)), -1);
	CHECK(strstr(err, "Include nested too deeply") != NULL);
	sshconf_free(c);

	/* sshconf_load: a missing file is fine, a bad one names itself. */
	c = sshconf_new(tmp, "me", 0);
	snprintf(path, sizeof(path), "%s/none", tmp);
	CHECK_INT(sshconf_load(c, path, 0, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/.ssh/bad.conf", tmp);
	CHECK_INT(sshconf_load(c, path, 0, err, sizeof(err)), -1);
	sshconf_free(c);
}

static void
test_hostkeys(void)
{
	struct hostkeys	*hk;
	uint8_t		 a[128], b[128], cc[256];
	size_t		 la, lb, lc;
	char		 path[256], err[256], pref[256];
	char		 text[4096];
	int		 skipped;

	la = blob(KEY_A, a, sizeof(a));
	lb = blob(KEY_B, b, sizeof(b));
	lc = blob(KEY_C, cc, sizeof(cc));
	CHECK(la == 51 && lb == 51 && lc > 100);

	/* An unparsable line first must not hide the lines after it. */
	snprintf(text, sizeof(text),
	    "# known hosts\n"
	    "@cert-authority *.example ssh-ed25519 %s\n"
	    "strange-host sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1\n"
	    "node1,node1.example,n1 ssh-ed25519 %s\n"
	    "[node2]:2222 ssh-ed25519 %s\n"
	    "node4 ecdsa-sha2-nistp256 %s\n"
	    HASHED_7 " ssh-ed25519 %s\n"
	    HASHED_8 " ssh-ed25519 %s\n"
	    "@revoked * ssh-ed25519 %s\n",
	    KEY_A, KEY_A, KEY_A, KEY_C, KEY_A, KEY_A, KEY_B);
	put("known_hosts", text);
	snprintf(path, sizeof(path), "%s/known_hosts", tmp);
	hk = hostkeys_new();
	CHECK_INT(hostkeys_load(hk, path, &skipped, err, sizeof(err)), 8);
	CHECK_INT(skipped, 0);

	CHECK_INT(hostkeys_check(hk, "node1", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	CHECK_INT(hostkeys_check(hk, "NODE1.example", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	CHECK_INT(hostkeys_check(hk, "node2", 2222, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	/* Port 22's entry is not the key of another port, and back. */
	CHECK_INT(hostkeys_check(hk, "node1", 2222, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_UNKNOWN);
	CHECK_INT(hostkeys_check(hk, "node2", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_UNKNOWN);
	CHECK_INT(hostkeys_check(hk, "node7", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	CHECK_INT(hostkeys_check(hk, "node8", 2222, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	CHECK_INT(hostkeys_check(hk, "node9", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_UNKNOWN);
	/* A name of two characters (libssh2 1.10 never matches one). */
	CHECK_INT(hostkeys_check(hk, "n1", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	/* The ecdsa key for node4 now offered for node1: changed. */
	CHECK_INT(hostkeys_check(hk, "node1", 22, cc, lc,
	    LIBSSH2_HOSTKEY_TYPE_ECDSA_256), HK_CHANGED);
	CHECK_INT(hostkeys_check(hk, "node4", 22, cc, lc,
	    LIBSSH2_HOSTKEY_TYPE_ECDSA_256), HK_MATCH);
	/* node4 known only as ecdsa, offered ed25519: as bad as a change. */
	CHECK_INT(hostkeys_check(hk, "node4", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_CHANGED);
	/* Another ed25519 key for a known name; the revoked key anywhere. */
	memcpy(cc, a, la);
	cc[la - 1] ^= 1;
	CHECK_INT(hostkeys_check(hk, "node7", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_CHANGED);
	CHECK_INT(hostkeys_check(hk, "node1", 22, b, lb,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_REVOKED);
	CHECK_INT(hostkeys_check(hk, "nowhere", 22, b, lb,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_REVOKED);
	CHECK_INT(hostkeys_check(hk, "node1", 22, a, la, 99), HK_ERROR);

	/* Preferred algorithms: the known types first. */
	CHECK_INT(hostkeys_known_types(hk, "node4", 22),
	    1u << LIBSSH2_HOSTKEY_TYPE_ECDSA_256);
	CHECK_INT(hostkeys_known_types(hk, "node7", 22),
	    1u << LIBSSH2_HOSTKEY_TYPE_ED25519);
	CHECK_INT(hostkeys_known_types(hk, "node9", 22), 0);
	hostkeys_method_pref(hostkeys_known_types(hk, "node4", 22), pref,
	    sizeof(pref));
	CHECK(strncmp(pref, "ecdsa-sha2-nistp256,ssh-ed25519,", 32) == 0);
	CHECK(strstr(pref, "rsa-sha2-512") != NULL);

	/* Appending: a file without a final newline gets one first. */
	put("kh2", "node1 ssh-ed25519 " KEY_A);
	snprintf(path, sizeof(path), "%s/kh2", tmp);
	CHECK_INT(hostkeys_add(hk, path, "node5", 2200, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519, err, sizeof(err)), 0);
	CHECK_INT(hostkeys_check(hk, "node5", 2200, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	hostkeys_free(hk);
	hk = hostkeys_new();
	CHECK_INT(hostkeys_load(hk, path, &skipped, err, sizeof(err)), 2);
	CHECK_INT(hostkeys_check(hk, "node5", 2200, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	{
		struct stat	st;

		CHECK(stat(path, &st) == 0);
	}
	/* A new file in a new directory: both private. */
	snprintf(path, sizeof(path), "%s/newdir/known_hosts", tmp);
	CHECK_INT(hostkeys_add(hk, path, "node6", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519, err, sizeof(err)), 0);
	{
		struct stat	st;

		CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
		snprintf(path, sizeof(path), "%s/newdir", tmp);
		CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0700);
	}
	snprintf(path, sizeof(path), "%s/nodir/x/known_hosts", tmp);
	CHECK_INT(hostkeys_add(hk, path, "node6", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519, err, sizeof(err)), -1);
	CHECK(strstr(err, "No such file or directory") != NULL);
	snprintf(path, sizeof(path), "%s/missing", tmp);
	CHECK_INT(hostkeys_load(hk, path, &skipped, err, sizeof(err)), -1);
	hostkeys_free(hk);

	/* Patterns, negation and a certificate authority, as ssh matches
	 * them: a covered host with another key is changed, not new; a
	 * host only a CA covers is neither known nor new. */
	snprintf(text, sizeof(text),
	    "*.cluster,!bad.cluster ssh-ed25519 %s\n"
	    "[127.0.0.1]:* ssh-ed25519 %s\n"
	    "gpu?? ecdsa-sha2-nistp256 %s\n"
	    "@cert-authority *.example,!free.example ssh-ed25519 %s\n"
	    "@cert-authority\n",
	    KEY_A, KEY_A, KEY_C, KEY_B);
	put("kh3", text);
	snprintf(path, sizeof(path), "%s/kh3", tmp);
	hk = hostkeys_new();
	CHECK_INT(hostkeys_load(hk, path, &skipped, err, sizeof(err)), 4);
	CHECK_INT(skipped, 1);
	memcpy(cc, a, la);
	cc[la - 1] ^= 1;	/* another ed25519 key */
	CHECK_INT(hostkeys_check(hk, "n1.cluster", 22, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	CHECK_INT(hostkeys_check(hk, "N1.Cluster", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_CHANGED);
	CHECK_INT(hostkeys_check(hk, "bad.cluster", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_UNKNOWN);
	CHECK_INT(hostkeys_check(hk, "127.0.0.1", 22777, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_CHANGED);
	CHECK_INT(hostkeys_check(hk, "127.0.0.1", 22777, a, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	CHECK_INT(hostkeys_check(hk, "127.0.0.1", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_UNKNOWN);
	/* gpu12 known as ecdsa by a pattern: ed25519 is a change. */
	CHECK_INT(hostkeys_check(hk, "gpu12", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_CHANGED);
	CHECK_INT(hostkeys_check(hk, "gpu123", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_UNKNOWN);
	CHECK_INT(hostkeys_known_types(hk, "gpu12", 22),
	    1u << LIBSSH2_HOSTKEY_TYPE_ECDSA_256);
	CHECK_INT(hostkeys_known_types(hk, "x.cluster", 22),
	    1u << LIBSSH2_HOSTKEY_TYPE_ED25519);
	CHECK_INT(hostkeys_check(hk, "n1.example", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_CA);
	CHECK_INT(hostkeys_check(hk, "free.example", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_UNKNOWN);
	/* Keys are compared as bytes: base64 without its padding too. */
	{
		char	unpadded[sizeof(KEY_C)];

		snprintf(unpadded, sizeof(unpadded), "%s", KEY_C);
		unpadded[strcspn(unpadded, "=")] = '\0';
		snprintf(text, sizeof(text), "up?.x ecdsa-sha2-nistp256 %s\n",
		    unpadded);
		CHECK_INT(hostkeys_parse(hk, text, &skipped), 1);
		lc = blob(KEY_C, cc + 128, 128);
		CHECK_INT(hostkeys_check(hk, "up1.x", 22, cc + 128, lc,
		    LIBSSH2_HOSTKEY_TYPE_ECDSA_256), HK_MATCH);
	}
	/* A plain line for the host still counts, CA or not. */
	CHECK_INT(hostkeys_add(hk, path, "n1.example", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519, err, sizeof(err)), 0);
	CHECK_INT(hostkeys_check(hk, "n1.example", 22, cc, la,
	    LIBSSH2_HOSTKEY_TYPE_ED25519), HK_MATCH);
	hostkeys_free(hk);

	hostkeys_name("n", 22, text, sizeof(text));
	CHECK_STR(text, "n");
	hostkeys_name("n", 2022, text, sizeof(text));
	CHECK_STR(text, "[n]:2022");
	CHECK_STR(hostkeys_type_name(LIBSSH2_HOSTKEY_TYPE_ED25519),
	    "ssh-ed25519");
}

static void
test_b64_fingerprint_sha(void)
{
	uint8_t	 out[64], a[128];
	char	*s, fp[80], hex[65];
	size_t	 la;

	s = rutil_b64_encode((const uint8_t *)"foobar", 6, 1);
	CHECK_STR(s, "Zm9vYmFy");
	free(s);
	s = rutil_b64_encode((const uint8_t *)"fooba", 5, 1);
	CHECK_STR(s, "Zm9vYmE=");
	free(s);
	s = rutil_b64_encode((const uint8_t *)"f", 1, 0);
	CHECK_STR(s, "Zg");
	free(s);
	CHECK_INT(rutil_b64_decode("Zm9v\nYmE=", 9, out, sizeof(out)), 5);
	CHECK(memcmp(out, "fooba", 5) == 0);
	CHECK_INT(rutil_b64_decode("Zm9v!", 5, out, sizeof(out)), -1);
	CHECK_INT(rutil_b64_decode("Zm9vYmFy", 8, out, 3), -1);
	CHECK_INT(rutil_b64_decode("Zg=a", 4, out, sizeof(out)), -1);

	/* As `ssh-keygen -lf` prints it for KEY_A. */
	la = blob(KEY_A, a, sizeof(a));
	rutil_fingerprint(a, la, fp, sizeof(fp));
	CHECK_STR(fp, "SHA256:FRR6IQkK3e5zyKU8xP8rZj4F/uA8kUtPEypayp0cVIs");

	sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495"
	    "991b7852b855");
	sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410"
	    "ff61f20015ad");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	    56, hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ec"
	    "edd419db06c1");
	{
		static uint8_t	m[1000000];
		struct sha256	c;
		uint8_t		d[SHA256_LEN];
		size_t		i;

		memset(m, 'a', sizeof(m));
		sha256_init(&c);
		for (i = 0; i < sizeof(m); i += 777)
			sha256_update(&c, m + i, i + 777 > sizeof(m) ?
			    sizeof(m) - i : 777);
		sha256_final(&c, d);
		CHECK(d[0] == 0xcd && d[1] == 0xc7 && d[31] == 0xd0);
	}
}

/* HMAC-SHA1 against RFC 2202's test cases 1, 2 and 6 (a key longer than a
 * block), and a name of known_hosts hashed by OpenSSH (HASHED_7). */
static void
test_hmac_sha1(void)
{
	uint8_t	k[80], mac[SHA1_LEN], salt[20], want[SHA1_LEN];
	char	hex[2 * SHA1_LEN + 1];
	size_t	i;

#define HEX(m) do {							\
		for (i = 0; i < SHA1_LEN; i++)				\
			snprintf(hex + 2 * i, 3, "%02x", (m)[i]);	\
	} while (0)
	memset(k, 0x0b, 20);
	hmac_sha1(k, 20, "Hi There", 8, mac);
	HEX(mac);
	CHECK_STR(hex, "b617318655057264e28bc0b6fb378c8ef146be00");
	hmac_sha1("Jefe", 4, "what do ya want for nothing?", 28, mac);
	HEX(mac);
	CHECK_STR(hex, "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
	memset(k, 0xaa, 80);
	hmac_sha1(k, 80, "Test Using Larger Than Block-Size Key - Hash Key "
	    "First", 54, mac);
	HEX(mac);
	CHECK_STR(hex, "aa4ae5e15272d00e95705637ce8a3b55ed402112");
#undef HEX
	/* HASHED_7 is ssh-keygen -H of "node7": HMAC-SHA1(salt, "node7"),
	 * what test_hostkeys checks through hostkeys_check, here by hand. */
	CHECK_INT(rutil_b64_decode("6U5Fjz1fcg+uGz90UIVcrLP6xKI=", 28, salt,
	    sizeof(salt)), 20);
	CHECK_INT(rutil_b64_decode("wodHctunkDHmR1inZHpqkBSqAks=", 28, want,
	    sizeof(want)), 20);
	hmac_sha1(salt, sizeof(salt), "node7", 5, mac);
	CHECK(memcmp(mac, want, SHA1_LEN) == 0);
	hmac_sha1(salt, sizeof(salt), "node8", 5, mac);
	CHECK(memcmp(mac, want, SHA1_LEN) != 0);
}

/* Private key text in OpenSSH's format with the given cipher name; only
 * its start matters to the check. */
static char *
fake_key(const char *cipher)
{
	uint8_t	 bin[200];
	size_t	 n = 0, cl = strlen(cipher);
	char	*b64, *text;

	memcpy(bin, "openssh-key-v1", 15);
	n = 15;
	bin[n++] = 0;
	bin[n++] = 0;
	bin[n++] = 0;
	bin[n++] = (uint8_t)cl;
	memcpy(bin + n, cipher, cl);
	n += cl;
	memset(bin + n, 0x41, 60);
	n += 60;
	b64 = rutil_b64_encode(bin, n, 1);
	if (asprintf(&text, "-----BEGIN OPENSSH PRIVATE KEY-----\n%.70s\n%s\n"
	    "-----END OPENSSH PRIVATE KEY-----\n", b64,
	    strlen(b64) > 70 ? b64 + 70 : "") < 0)
		exit(1);
	free(b64);
	return text;
}

static void
test_key_encrypted(void)
{
	static const char pem_enc[] =
	    "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
	    "DEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n";
	static const char pem[] =
	    "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n"
	    "-----END RSA PRIVATE KEY-----\n";
	static const char p8[] =
	    "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n"
	    "-----END ENCRYPTED PRIVATE KEY-----\n";
	char	*k, path[256];

	k = fake_key("none");
	CHECK_INT(rutil_key_text_encrypted(k, strlen(k)), 0);
	free(k);
	k = fake_key("aes256-ctr");
	CHECK_INT(rutil_key_text_encrypted(k, strlen(k)), 1);
	put("enc_key", k);
	free(k);
	CHECK_INT(rutil_key_text_encrypted(pem_enc, strlen(pem_enc)), 1);
	CHECK_INT(rutil_key_text_encrypted(pem, strlen(pem)), 0);
	CHECK_INT(rutil_key_text_encrypted(p8, strlen(p8)), 1);
	CHECK_INT(rutil_key_text_encrypted("garbage", 7), 0);
	snprintf(path, sizeof(path), "%s/enc_key", tmp);
	CHECK_INT(rutil_key_encrypted(path), 1);
	snprintf(path, sizeof(path), "%s/no_such_key", tmp);
	CHECK_INT(rutil_key_encrypted(path), -1);
}

static int
count(const char *s, char c)
{
	int	n = 0;

	for (; *s != '\0'; s++)
		n += *s == c;
	return n;
}

static void
test_push(void)
{
	static const char hash[] =
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	struct rpush_report	 r;
	char			 why[256], out[512], *cmd;

	CHECK(rpush_safe(".cache/jobtop"));
	CHECK(rpush_safe("/tmp/x/cache"));
	CHECK(rpush_safe("123[4]"));
	CHECK(!rpush_safe("a'b"));
	CHECK(!rpush_safe("a b"));
	CHECK(!rpush_safe("$(x)"));
	CHECK(!rpush_safe("../x"));
	CHECK(!rpush_safe("-x"));
	CHECK(!rpush_safe(""));
	CHECK(rpush_arch_ok("x86_64", "x86_64"));
	CHECK(rpush_arch_ok("arm64", "aarch64"));
	CHECK(rpush_arch_ok("i586", "i686"));
	CHECK(!rpush_arch_ok("aarch64", "x86_64"));

	snprintf(out, sizeof(out), "arch x86_64\r\ndir ok\nfile 1000 %s  -\n",
	    hash);
	rpush_parse(out, strlen(out), &r);
	CHECK_STR(r.arch, "x86_64");
	CHECK_STR(r.dir, "ok");
	CHECK_INT(r.file, 1);
	CHECK_INT(r.size, 1000);
	CHECK_STR(r.hash, hash);
	CHECK_INT(rpush_decide(&r, "x86_64", 1000, hash, "d", why,
	    sizeof(why)), RP_CACHED);
	CHECK_INT(rpush_decide(&r, "x86_64", 1001, hash, "d", why,
	    sizeof(why)), RP_UPLOAD);
	r.hash[0] = '\0';	/* no hash tool on the node: upload again */
	CHECK_INT(rpush_decide(&r, "x86_64", 1000, hash, "d", why,
	    sizeof(why)), RP_UPLOAD);
	CHECK_INT(rpush_decide(&r, "aarch64", 1000, hash, "d", why,
	    sizeof(why)), RP_ARCH);
	CHECK_STR(why, "node is x86_64, probe is aarch64");

	rpush_parse("arch x86_64\ndir is a symbolic link\n", 36, &r);
	CHECK_INT(rpush_decide(&r, "x86_64", 1, hash, "~/.cache/jobtop", why,
	    sizeof(why)), RP_DIR);
	CHECK_STR(why, "~/.cache/jobtop on the node is a symbolic link");
	rpush_parse("arch x86_64\ndir ok\nfile none\n", 29, &r);
	CHECK_INT(rpush_decide(&r, "x86_64", 1, hash, "d", why, sizeof(why)),
	    RP_UPLOAD);
	rpush_parse("Welcome to the cluster!\n", 24, &r);
	CHECK_INT(rpush_decide(&r, "x86_64", 1, hash, "d", why, sizeof(why)),
	    RP_GARBAGE);
	rpush_parse("arch x86_64\ndir ok\nfile 12x\n", 28, &r);
	CHECK_INT(rpush_decide(&r, "x86_64", 1, hash, "d", why, sizeof(why)),
	    RP_GARBAGE);
	rpush_parse("upload 10 \n", 11, &r);
	CHECK(r.file == 1 && r.upload && r.size == 10 && r.hash[0] == '\0');

	/* The probe runs as ./name in the directory entered with cd -P. */
	cmd = rpush_exec_cmd(".cache/jobtop", "jobtop-probe-x", "42_1", NULL, NULL, 0.5, 0,
	    -1, NULL);
	CHECK(strncmp(cmd, "exec /bin/sh -c '", 17) == 0);
	CHECK(strstr(cmd, "cd -P -- \".cache/jobtop\" && [ -O . ] && pv && "
	    "w=$(sp); then") != NULL);
	CHECK(strstr(cmd, "exec \"./jobtop-probe-x\" --interval 0.500 "
	    "--job \"42_1\"; fi; ") != NULL);
	CHECK_INT(count(cmd, '\''), 2);
	CHECK_INT(count(cmd, '\n'), 0);
	free(cmd);
	cmd = rpush_exec_cmd(".cache/jobtop", "jobtop-probe-x", "42_1", NULL, NULL, 0.5,
	    120, 1000, "jobtop-nvml-y");
	CHECK(strstr(cmd, "exec \"./jobtop-probe-x\" --interval 0.500 "
	    "--watchdog 120 --uid 1000 --nvml \"./jobtop-nvml-y\" "
	    "--job \"42_1\"; fi") != NULL);
	CHECK_INT(count(cmd, '\''), 2);
	free(cmd);
	cmd = rpush_fast_cmd(".cache/jobtop", "jobtop-probe-x", 5, hash, NULL, NULL, NULL,
	    1, 0, -1, "jobtop-nvml-y", 6, hash);
	CHECK(strstr(cmd, "cd -P -- \".cache/jobtop\"") != NULL);
	CHECK(strstr(cmd, "ok \"./jobtop-nvml-y\" 6 ") != NULL);
	CHECK(strstr(cmd, "exec \"./jobtop-probe-x\"") != NULL);
	CHECK(strstr(cmd, "[ -z \"$h\" ]") == NULL);	/* a hash or nothing */
	CHECK_INT(count(cmd, '\''), 2);
	CHECK_INT(count(cmd, '\n'), 0);
	free(cmd);
	cmd = rpush_upload_cmd(".cache/jobtop", ".t.tmp");
	CHECK_INT(count(cmd, '\''), 2);
	CHECK(strstr(cmd, "cd -P -- \".cache/jobtop\" && [ -O . ] && "
	    "cat > \"./.t.tmp\"") != NULL);
	free(cmd);
	/* A Slurm step narrows the probe to that step's ranks. */
	cmd = rpush_exec_cmd(".cache/jobtop", "jobtop-probe-x", "42", "batch", NULL,
	    0.5, 0, -1, NULL);
	CHECK(strstr(cmd, " --step \"batch\" --job \"42\"; fi") != NULL);
	free(cmd);
	/* Slurm 26.05: the job's SLUID names its cgroup (probes/ranks.h). */
	cmd = rpush_exec_cmd(".cache/jobtop", "jobtop-probe-x", "42", "0",
	    "sEKNKTV3WPV500", 0.5, 0, -1, NULL);
	CHECK(strstr(cmd, " --step \"0\" --sluid \"sEKNKTV3WPV500\" "
	    "--job \"42\"; fi") != NULL);
	free(cmd);
	cmd = rpush_fast_cmd(".cache/jobtop", "jobtop-probe-x", 10, hash,
	    "42", NULL, "sEKNKTV3WPV500", 0.5, 0, -1, NULL, 0, NULL);
	CHECK(strstr(cmd, " --sluid \"sEKNKTV3WPV500\" --job \"42\"") !=
	    NULL);
	free(cmd);
	/* The cached start passes the owner's uid the same way (F3). */
	cmd = rpush_fast_cmd(".cache/jobtop", "jobtop-probe-x", 10, hash,
	    "42_1", NULL, NULL, 0.5, 0, 0, NULL, 0, NULL);
	CHECK(strstr(cmd, " --interval 0.500 --uid 0 --job \"42_1\"") !=
	    NULL);
	free(cmd);
	cmd = rpush_fast_cmd(".cache/jobtop", "jobtop-probe-x", 10, hash,
	    "42_1", NULL, NULL, 0.5, 120, -1, NULL, 0, NULL);
	CHECK(strstr(cmd, "--uid") == NULL &&
	    strstr(cmd, " --watchdog 120 --job \"42_1\"") != NULL);
	free(cmd);
	/* The NVML helper's line: cached only with its size and hash. */
	snprintf(out, sizeof(out), "arch x86_64\ndir ok\nhelper 20 \nfile none\n");
	rpush_parse(out, strlen(out), &r);
	CHECK(r.helper == 1 && r.hsize == 20 && r.hhash[0] == '\0');
	CHECK(!rpush_helper_cached(&r, 20, hash));	/* no hash: push */
	memcpy(r.hhash, hash, 65);
	CHECK(rpush_helper_cached(&r, 20, hash));
	CHECK(!rpush_helper_cached(&r, 21, hash));
	r.hhash[0] = r.hhash[0] == 'a' ? 'b' : 'a';
	CHECK(!rpush_helper_cached(&r, 20, hash));
	snprintf(out, sizeof(out), "arch x86_64\ndir ok\nhelper none\nfile none\n");
	rpush_parse(out, strlen(out), &r);
	CHECK(r.helper == 0 && !rpush_helper_cached(&r, 0, hash));
	snprintf(out, sizeof(out), "arch x86_64\ndir ok\nfile none\n");
	rpush_parse(out, strlen(out), &r);
	CHECK(r.helper == -1);
	cmd = rpush_check_cmd(".cache/jobtop", "jobtop-probe-x", "x86_64", 0,
	    NULL);
	CHECK(strstr(cmd, "kill") == NULL);
	CHECK(strncmp(cmd, "exec /bin/sh -c '", 17) == 0);
	CHECK_INT(count(cmd, '\''), 2);
	CHECK_INT(count(cmd, '\n'), 0);
	free(cmd);
	cmd = rpush_install_cmd("d", "t", "n", 5, hash);
	CHECK(strstr(cmd, "h=${h%% *}") != NULL);
	CHECK_INT(count(cmd, '\''), 2);
	CHECK(cmd[strlen(cmd) - 1] == '\'');
	free(cmd);
}

/* Run the check script through sh in a scratch home: it must create the
 * private directory and refuse a symlink. */
static void
test_push_script(void)
{
	struct rpush_report	 r;
	char			 cmd[2048], out[1024], *c;
	FILE			*f;
	size_t			 n;
	pid_t			 pid;
	int			 wst;

	if (access("/bin/sh", X_OK) != 0)
		return;
	c = rpush_check_cmd("cache/jobtop", "jobtop-probe-x", "x86_64", 0,
	    NULL);
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", tmp, c);
	free(c);
	if ((f = popen(cmd, "r")) == NULL)
		return;
	n = fread(out, 1, sizeof(out) - 1, f);
	pclose(f);
	out[n] = '\0';
	rpush_parse(out, n, &r);
	if (strcmp(r.arch, "x86_64") != 0)
		return;		/* another machine: nothing more to see */
	CHECK_STR(r.dir, "ok");
	CHECK_INT(r.file, 0);
	snprintf(cmd, sizeof(cmd), "%s/cache/jobtop", tmp);
	{
		struct stat	st;

		CHECK(lstat(cmd, &st) == 0 && S_ISDIR(st.st_mode) &&
		    (st.st_mode & 0777) == 0700);
	}
	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir -p real && "
	    "ln -s ../real cache/link", tmp);
	CHECK_INT(system(cmd), 0);
	c = rpush_check_cmd("cache/link", "jobtop-probe-x", "x86_64", 0,
	    NULL);
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", tmp, c);
	free(c);
	if ((f = popen(cmd, "r")) == NULL)
		return;
	n = fread(out, 1, sizeof(out) - 1, f);
	pclose(f);
	out[n] = '\0';
	rpush_parse(out, n, &r);
	CHECK_STR(r.dir, "is a symbolic link");

	/* A stale probe (a copy of sleep by the probe's name) is killed; a
	 * pid that runs something else is left alone. */
	snprintf(cmd, sizeof(cmd), "cp /bin/sleep '%s/jobtop-probe-x'", tmp);
	if (system(cmd) != 0)
		return;
	if ((pid = fork()) == 0) {
		snprintf(cmd, sizeof(cmd), "%s/jobtop-probe-x", tmp);
		execl(cmd, cmd, "30", (char *)NULL);
		_exit(127);
	}
	usleep(100000);
	c = rpush_check_cmd("cache/jobtop", "jobtop-probe-x", "x86_64",
	    (long)getpid(), NULL);
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s >/dev/null", tmp, c);
	free(c);
	CHECK_INT(system(cmd), 0);	/* we are still here */
	c = rpush_check_cmd("cache/jobtop", "jobtop-probe-x", "x86_64",
	    (long)pid, NULL);
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", tmp, c);
	free(c);
	if ((f = popen(cmd, "r")) == NULL)
		return;
	n = fread(out, 1, sizeof(out) - 1, f);
	pclose(f);
	out[n] = '\0';
	rpush_parse(out, n, &r);
	CHECK_INT(r.killed, pid);
	CHECK(waitpid(pid, &wst, 0) == pid && WIFSIGNALED(wst) &&
	    WTERMSIG(wst) == SIGTERM);
}

/* Run a shell command in dir with PATH led by pathdir (when not NULL);
 * its output into out, its exit status returned. */
static int
sh_out(const char *dir, const char *pathdir, const char *script, char *out,
    size_t size)
{
	char	*cmd;
	FILE	*f;
	size_t	 n;
	int	 st;

	if (asprintf(&cmd, "cd '%s' && %s%s%s%s 2>&1", dir,
	    pathdir != NULL ? "PATH='" : "", pathdir != NULL ? pathdir : "",
	    pathdir != NULL ? "':\"$PATH\" " : "", script) < 0)
		exit(1);
	if ((f = popen(cmd, "r")) == NULL)
		exit(1);
	free(cmd);
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * The cache is entered with cd -P, checked from / down, and its files run
 * as ./name: a cache under a group-writable directory is refused by the
 * check, the fast path and the exec; a sticky one is fine; a directory
 * swapped for another one while the script runs (the review's race, made
 * certain here by an ls that swaps on its first call) does not change
 * what runs; a node without any hash tool never counts as cached.
 */
static void
test_push_safe_path(void)
{
	static const char real[] = "#!/bin/sh\necho \"REAL $0 $(pwd -P)\"\n";
	static const char evil[] = "#!/bin/sh\necho \"EVIL $0 $(pwd -P)\"\n";
	struct rpush_report	 r;
	char			 home[128], bin[128], bare[128], path[256];
	char			 out[2048], hash[65], why[256], *c;
	const char		*ls;
	int			 rc;

	ls = access("/bin/ls", X_OK) == 0 ? "/bin/ls" : "/usr/bin/ls";
	snprintf(home, sizeof(home), "%s/sp-home", tmp);
	snprintf(bin, sizeof(bin), "%s/sp-bin", tmp);
	snprintf(bare, sizeof(bare), "%s/sp-bare", tmp);
	snprintf(out, sizeof(out), "mkdir -p '%s' '%s' '%s' && chmod 755 '%s'",
	    home, bin, bare, home);
	CHECK_INT(system(out), 0);
	c = rpush_check_cmd("cache/jobtop", "jobtop-probe-x", "x86_64", 0,
	    NULL);
	rc = sh_out(home, NULL, c, out, sizeof(out));
	rpush_parse(out, strlen(out), &r);
	if (strcmp(r.arch, "x86_64") != 0) {
		free(c);
		return;		/* another machine: nothing more to see */
	}
	CHECK_STR(r.dir, "ok");
	snprintf(path, sizeof(path), "%s/cache/jobtop/jobtop-probe-x", home);
	snprintf(out, sizeof(out), "%s/sp-probe", tmp);
	put("sp-probe", real);
	CHECK(rename(out, path) == 0 && chmod(path, 0700) == 0);
	sha256_hex(real, strlen(real), hash);

	/* Cached: the check sees the hash; the fast path runs ./name in
	 * the physical directory. */
	rc = sh_out(home, NULL, c, out, sizeof(out));
	rpush_parse(out, strlen(out), &r);
	CHECK_STR(r.hash, hash);
	CHECK_INT(rpush_decide(&r, "x86_64", strlen(real), hash, "d", why,
	    sizeof(why)), RP_CACHED);
	{
		char	*fast, want[256];

		fast = rpush_fast_cmd("cache/jobtop", "jobtop-probe-x",
		    strlen(real), hash, NULL, NULL, NULL, 1, 0, -1, NULL, 0, NULL);
		rc = sh_out(home, NULL, fast, out, sizeof(out));
		CHECK_INT(rc, 0);
		snprintf(want, sizeof(want), "REAL ./jobtop-probe-x %s/cache/"
		    "jobtop\n", home);
		CHECK(strstr(out, want) != NULL);

		/* A group-writable directory above: refused everywhere. */
		snprintf(path, sizeof(path), "%s/cache", home);
		CHECK(chmod(path, 0775) == 0);
		rc = sh_out(home, NULL, c, out, sizeof(out));
		rpush_parse(out, strlen(out), &r);
		snprintf(want, sizeof(want), "is in an unsafe place: %s/cache "
		    "is writable by group or others", home);
		CHECK_STR(r.dir, want);
		CHECK_INT(rpush_decide(&r, "x86_64", strlen(real), hash,
		    "cache/jobtop", why, sizeof(why)), RP_DIR);
		rc = sh_out(home, NULL, fast, out, sizeof(out));
		CHECK_INT(rc, RPUSH_NOT_CACHED_STATUS);
		CHECK(strstr(out, "REAL") == NULL);
		{
			char	*ex;

			ex = rpush_exec_cmd("cache/jobtop", "jobtop-probe-x",
			    NULL, NULL, NULL, 1, 0, -1, NULL);
			rc = sh_out(home, NULL, ex, out, sizeof(out));
			free(ex);
			CHECK_INT(rc, 1);
			CHECK(strstr(out, "REAL") == NULL);
			CHECK(strstr(out, "the probe cache is not safe: ") !=
			    NULL);
		}
		/* Sticky (as /tmp): nobody else can rename our entries. */
		CHECK(chmod(path, 01777) == 0);
		CHECK_INT(sh_out(home, NULL, fast, out, sizeof(out)), 0);
		CHECK(strstr(out, "REAL ./jobtop-probe-x") != NULL);
		CHECK(chmod(path, 0755) == 0);
		/* A cache that is not private is not used as it is. */
		snprintf(path, sizeof(path), "%s/cache/jobtop", home);
		CHECK(chmod(path, 0750) == 0);
		CHECK_INT(sh_out(home, NULL, fast, out, sizeof(out)),
		    RPUSH_NOT_CACHED_STATUS);
		rc = sh_out(home, NULL, c, out, sizeof(out));
		rpush_parse(out, strlen(out), &r);
		CHECK_STR(r.dir, "ok");		/* the check makes it 0700 */
		CHECK_INT(sh_out(home, NULL, fast, out, sizeof(out)), 0);

		/* The race: the first ls (inside the checks) swaps the
		 * cache for a directory with another program of the same
		 * name; what runs is still the checked one. */
		snprintf(path, sizeof(path), "%s/cache/evil", home);
		CHECK(mkdir(path, 0700) == 0);
		put("sp-evil", evil);
		snprintf(out, sizeof(out), "%s/sp-evil", tmp);
		snprintf(path, sizeof(path), "%s/cache/evil/jobtop-probe-x",
		    home);
		CHECK(rename(out, path) == 0 && chmod(path, 0700) == 0);
		snprintf(out, sizeof(out), "#!/bin/sh\n"
		    "if mkdir '%s/swapped' 2>/dev/null; then\n"
		    "  mv '%s/cache/jobtop' '%s/cache/real' &&\n"
		    "  mv '%s/cache/evil' '%s/cache/jobtop'\n"
		    "fi\nexec %s \"$@\"\n", tmp, home, home, home, home, ls);
		put("sp-bin/ls", out);
		snprintf(path, sizeof(path), "%s/ls", bin);
		CHECK(chmod(path, 0755) == 0);
		rc = sh_out(home, bin, fast, out, sizeof(out));
		CHECK_INT(rc, 0);
		snprintf(want, sizeof(want), "REAL ./jobtop-probe-x %s/cache/"
		    "real\n", home);
		CHECK(strstr(out, want) != NULL);
		CHECK(strstr(out, "EVIL") == NULL);
		snprintf(path, sizeof(path), "%s/swapped", tmp);
		CHECK(access(path, F_OK) == 0);		/* it did swap */
		free(fast);
	}

	/* No sha256sum, openssl, shasum or busybox: the file is described
	 * without a hash, and that is never "cached". */
	snprintf(out, sizeof(out), "for t in uname id pwd ls wc mkdir chmod "
	    "find rm mv cat grep; do p=$(command -v $t) && "
	    "ln -s \"$p\" '%s/'$t || exit 1; done", bare);
	if (system(out) == 0) {
		rc = sh_out(home, NULL, "mv cache/jobtop cache/evil && "
		    "mv cache/real cache/jobtop", out, sizeof(out));
		CHECK_INT(rc, 0);
		snprintf(out, sizeof(out), "PATH='%s' %s", bare, c);
		rc = sh_out(home, NULL, out, out, sizeof(out));
		rpush_parse(out, strlen(out), &r);
		CHECK_STR(r.dir, "ok");
		CHECK(r.file == 1 && r.size == strlen(real) &&
		    r.hash[0] == '\0');
		CHECK_INT(rpush_decide(&r, "x86_64", strlen(real), hash, "d",
		    why, sizeof(why)), RP_UPLOAD);
	}
	free(c);
}

static void
test_state_table(void)
{
	static const char *names[] = { "RESOLVE", "CONNECT", "HANDSHAKE",
	    "HOSTKEY", "AUTH", "PUSH", "EXEC", "STREAM", "BACKOFF", "DEAD" };
	int	i;

	for (i = 0; i < RS_NSTATES; i++)
		CHECK_STR(rsess_state_name((enum rsess_state)i), names[i]);
	CHECK_STR(rsess_state_name(RS_NSTATES), "?");
	CHECK(rsess_state_timeout(RS_HANDSHAKE) > 0);
	CHECK(rsess_state_timeout(RS_AUTH) > 0);
	CHECK(rsess_state_timeout(RS_PUSH) > 0);
	CHECK_INT(rsess_state_timeout(RS_DEAD), 0);
	CHECK_INT(rsess_state_timeout(RS_CONNECT), 0);	/* from the rconf */
}

static void
test_rconf(void)
{
	static const uint8_t elf64[20] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0,
	    0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 62, 0 };
	struct rconf	 c;
	struct rsess	*s;
	struct pollfd	 pfd;
	char		 path[256], err[512];
	uint8_t		 e[20];

	CHECK_STR(rconf_elf_arch(elf64, sizeof(elf64)), "x86_64");
	memcpy(e, elf64, sizeof(e));
	e[18] = 183;
	CHECK_STR(rconf_elf_arch(e, sizeof(e)), "aarch64");
	e[18] = 1;
	CHECK(rconf_elf_arch(e, sizeof(e)) == NULL);
	CHECK(rconf_elf_arch((const uint8_t *)"#!/bin/sh\nexit 0\n....", 20) ==
	    NULL);

	put("probe", "");
	snprintf(path, sizeof(path), "%s/probe", tmp);
	{
		FILE *f = fopen(path, "w");

		fwrite(elf64, 1, sizeof(elf64), f);
		fclose(f);
	}
	rconf_init(&c);
	CHECK_INT(c.port, 22);
	CHECK_INT(c.max_inflight, 32);
	CHECK_INT(c.backoff_ms[0], 1000);
	CHECK_INT(c.backoff_ms[c.nbackoff - 1], 30000);
	free(c.home);
	c.home = strdup(tmp);
	free(c.ssh_config);
	snprintf(path, sizeof(path), "%s/bad_config", tmp);
	put("bad_config", "Host x\n  Port 0\n");
	c.ssh_config = strdup(path);
	free(c.ssh_config_sys);
	c.ssh_config_sys = NULL;
	free(c.known_hosts_sys);
	c.known_hosts_sys = NULL;
	snprintf(path, sizeof(path), "%s/probe", tmp);
	c.probe_path = strdup(path);
	CHECK_INT(rconf_ready(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "bad_config:2: bad port \"0\"") != NULL);
	CHECK(c.priv == NULL);
	put("bad_config", "Host jump\n  ProxyJump gw\n");
	CHECK_INT(rconf_ready(&c, err, sizeof(err)), 0);
	CHECK_STR(rconf_probe_arch(&c), "x86_64");
	CHECK(strncmp(rconf_probe_name(&c), "jobtop-probe-", 13) == 0);
	CHECK_INT(strlen(rconf_probe_name(&c)), 13 + 16);
	CHECK_INT(strlen(rconf_probe_hash(&c)), 64);

	/* No rank list: no rank for any node. */
	CHECK_INT(rconf_rank(&c, "node1"), -1);

	/* Nothing happens before a step; a host ssh_config cannot serve
	 * is refused at its first step. */
	s = rsess_new(&c, "jump");
	CHECK_STR(rsess_state(s), "connecting");
	rsess_pollfd(s, &pfd);
	CHECK_INT(pfd.fd, -1);
	CHECK_INT(rsess_timeout(s, 0), 0);
	rsess_step(s, 1);
	CHECK_INT(rsess_phase(s), RS_DEAD);
	CHECK(rsess_refused(s));
	CHECK_STR(rsess_state(s),
	    "refused: ProxyJump gw is not supported");
	CHECK_INT(rsess_timeout(s, 1), -1);
	rsess_close(s);

	/* Stopping a session that never went live ends it at once. */
	s = rsess_new(&c, "node1");
	rsess_stop(s);
	CHECK_STR(rsess_state(s), "closed");
	CHECK_INT(rsess_read(s, e, sizeof(e)), 0);
	rsess_close(s);
	rconf_free(&c);

	/* Flux's ranks: the job's node list in its own order, not the
	 * sorted node set's; a node not in it has none. */
	rconf_init(&c);
	free(c.ssh_config);
	free(c.ssh_config_sys);
	free(c.known_hosts);
	free(c.known_hosts_sys);
	c.ssh_config = c.ssh_config_sys = NULL;
	c.known_hosts = c.known_hosts_sys = NULL;
	snprintf(path, sizeof(path), "%s/probe", tmp);
	c.probe_path = strdup(path);
	c.rank_nodes = strdup("gpu[2,1],cpu[9-10]");
	CHECK_INT(rconf_ready(&c, err, sizeof(err)), 0);
	CHECK_INT(rconf_rank(&c, "gpu2"), 0);
	CHECK_INT(rconf_rank(&c, "gpu1"), 1);
	CHECK_INT(rconf_rank(&c, "cpu9"), 2);
	CHECK_INT(rconf_rank(&c, "cpu10"), 3);
	CHECK_INT(rconf_rank(&c, "cpu1"), -1);
	CHECK_INT(rconf_rank(&c, "gpu"), -1);
	CHECK_INT(rconf_rank(&c, ""), -1);

	/* The flux row takes a node only by its rank in a Flux job of
	 * the user's own, with the client there; one line why not. */
	{
		char	 fx[256], why[256];
		FILE	*f;

		snprintf(fx, sizeof(fx), "%s/flux", tmp);
		f = fopen(fx, "w");
		fputs("#!/bin/sh\nexit 0\n", f);
		fclose(f);
		chmod(fx, 0755);
		setenv("JOBTOP_FLUX", fx, 1);
		c.job = strdup("f3AakAX9");
		c.sched = "flux";
		CHECK_INT(feed_flux_usable(&c, "gpu1", why, sizeof(why)), 0);
		CHECK_INT(feed_flux_usable(&c, "cpu1", why, sizeof(why)), -1);
		CHECK_STR(why, "flux: cpu1 is not in job f3AakAX9's node list");
		c.owner_known = 1;
		c.owner = getuid() + 1;
		/* Root runs flux as the job's owner (runas.h, issue 27). */
		if (getuid() == 0)
			CHECK_INT(feed_flux_usable(&c, "gpu1", why,
			    sizeof(why)), 0);
		else {
			CHECK_INT(feed_flux_usable(&c, "gpu1", why,
			    sizeof(why)), -1);
			CHECK(strstr(why, "runs commands for its owner only") !=
			    NULL);
		}
		c.owner = getuid();
		c.sched = "pbs";
		CHECK_INT(feed_flux_usable(&c, "gpu1", why, sizeof(why)), -1);
		CHECK_STR(why, "flux: serves flux jobs only");
		c.sched = NULL;
		CHECK_INT(feed_flux_usable(&c, "gpu1", why, sizeof(why)), -1);
		CHECK_STR(why, "flux: serves flux jobs only (a job id, not a "
		    "host list)");
		c.sched = "flux";
		setenv("JOBTOP_FLUX", "/nonexistent/flux", 1);
		CHECK_INT(feed_flux_usable(&c, "gpu1", why, sizeof(why)), -1);
		CHECK_STR(why, "flux: flux is not in PATH");
		unsetenv("JOBTOP_FLUX");
	}
	rconf_free(&c);
	rconf_init(&c);
	free(c.ssh_config);
	free(c.known_hosts);
	c.ssh_config = c.known_hosts = NULL;
	c.probe_path = strdup(path);
	c.rank_nodes = strdup("gpu[2-1]");
	CHECK_INT(rconf_ready(&c, err, sizeof(err)), -1);
	CHECK(strncmp(err, "the job's node list: ", 21) == 0);
	CHECK(c.priv == NULL);
	rconf_free(&c);

	rconf_init(&c);
	free(c.job);
	c.job = strdup("1'2");
	CHECK_INT(rconf_ready(&c, err, sizeof(err)), -1);
	CHECK_STR(err, "job id unusable on the command line");
	rconf_free(&c);
	rconf_init(&c);
	c.probe_path = strdup("/nonexistent/jobtop-probe");
	CHECK_INT(rconf_ready(&c, err, sizeof(err)), -1);
	CHECK_STR(err, "/nonexistent/jobtop-probe: No such file or directory");
	rconf_free(&c);
}

int
main(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/jobtop-rconf.XXXXXX");
	if (mkdtemp(tmp) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_patterns);
	RUN(test_config_lookup);
	RUN(test_config_known_files);
	RUN(test_perms);
	RUN(test_config_match_proxy);
	RUN(test_config_openssh_only);
	RUN(test_config_errors);
	RUN(test_config_include);
	RUN(test_hostkeys);
	RUN(test_b64_fingerprint_sha);
	RUN(test_hmac_sha1);
	RUN(test_key_encrypted);
	RUN(test_push);
	RUN(test_push_script);
	RUN(test_push_safe_path);
	RUN(test_state_table);
	RUN(test_rconf);
	{
		char	cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmp);
	}
	return harness_done();
}
