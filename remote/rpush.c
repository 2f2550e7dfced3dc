/* SPDX-License-Identifier: ISC */
/*
 * rpush: commands and their output.  The scripts are single lines inside
 * single quotes for /bin/sh, so the login shell only sees
 * `exec /bin/sh -c '...'`; every value put into them passed rpush_safe.
 * Ownership and symlink checks use test -O and -L, which dash, bash,
 * busybox and ksh all have.  The size is read with $(( )) so BSD-style
 * padded wc output compares too.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpush.h"
#include "xmalloc.h"

static const char rpush_garbage[] = "unexpected output from the node's shell";

/* uname -m answers that fit each machine name the probe can have. */
static const struct {
	const char	*arch;
	const char	*pattern;
} rpush_arches[] = {
	{ .arch = "x86_64", .pattern = "x86_64|amd64" },
	{ .arch = "aarch64", .pattern = "aarch64|arm64" },
	{ .arch = "i686", .pattern = "i[3456]86" },
	{ .arch = "armv7l", .pattern = "arm*" },
};

int
rpush_safe(const char *s)
{
	if (*s == '\0' || *s == '-')
		return 0;
	if (strstr(s, "..") != NULL)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_+.-/@:[]") == strlen(s);
}

/* The sh case pattern for a probe machine. */
static const char *
rpush_pattern(const char *arch)
{
	size_t	i;

	for (i = 0; i < sizeof(rpush_arches) / sizeof(rpush_arches[0]); i++) {
		if (strcmp(rpush_arches[i].arch, arch) == 0)
			return rpush_arches[i].pattern;
	}
	return arch;
}

int
rpush_arch_ok(const char *uname_m, const char *arch)
{
	char	*pats, *p, *w;
	int	 ok = 0;

	pats = p = xstrdup(rpush_pattern(arch));
	while (!ok && (w = strsep(&p, "|")) != NULL)
		ok = fnmatch(w, uname_m, 0) == 0;
	free(pats);
	return ok;
}

/*
 * Shell pieces every script shares.  set -f: nothing below globs, and the
 * words of ls output must not.
 *
 * hs FILE sets h to the file's SHA-256 in hex, or to "" when the node has
 * no tool for it: sha256sum (coreutils, busybox), openssl dgst (prints
 * "SHA2-256(stdin)= HEX"), shasum (BSD, macOS), busybox by name.
 *
 * sp checks the working directory and every directory above it up to /
 * (OpenSSH's safe_path rule for StrictModes): each must be owned by the
 * user or root and not writable by group or others unless sticky, so
 * nobody else can rename the cache or a directory on its path.  It prints
 * the first problem and fails.
 *
 * pv: the working directory is private (no group or other bits at all).
 */
#define RPUSH_HS	"hs() { h=$(sha256sum <\"$1\" 2>/dev/null || " \
			"openssl dgst -sha256 <\"$1\" 2>/dev/null || " \
			"shasum -a 256 <\"$1\" 2>/dev/null || " \
			"busybox sha256sum <\"$1\" 2>/dev/null); " \
			"h=${h##*= }; h=${h%%%% *}; }; "
#define RPUSH_SP	"sp() { u=$(id -u); p=$(pwd -P) || return 1; " \
			"while :; do set -- $(ls -ldn \"${p:-/}\" " \
			"2>/dev/null); case \"$3\" in 0|\"$u\") ;; *) " \
			"echo \"${p:-/} is owned by another user\"; " \
			"return 1;; esac; case \"$1\" in ?????????[tT]*) ;; " \
			"?????w*|????????w*) echo \"${p:-/} is writable by " \
			"group or others\"; return 1;; esac; " \
			"[ -n \"$p\" ] || return 0; p=${p%%/*}; done; }; "
#define RPUSH_PV	"pv() { set -- $(ls -ldn .); case \"$1\" in " \
			"d[r-][w-][x-]------*) return 0;; esac; return 1; }; "

char *
rpush_check_cmd(const char *dir, const char *name, const char *arch,
    long stale, const char *helper)
{
	char	kill[256], help[512];

	kill[0] = help[0] = '\0';
	if (stale > 0)
		snprintf(kill, sizeof(kill), "p=%ld; "
		    "if grep -q \"%s\" /proc/$p/cmdline 2>/dev/null; then "
		    "kill $p && echo \"killed $p\"; fi; ", stale, name);
	if (helper != NULL)
		snprintf(help, sizeof(help), "g=\"./%s\"; "
		    "if [ -f \"$g\" ] && [ ! -L \"$g\" ] && [ -O \"$g\" ]; then "
		    "hs \"$g\"; echo \"helper $(($(wc -c <\"$g\"))) $h\"; "
		    "else echo \"helper none\"; fi; ", helper);
	/* The directory is entered with cd -P and checked from there: the
	 * working directory stays the inode that was checked, whatever
	 * happens to the path afterwards. */
	return xasprintf("exec /bin/sh -c 'set -f; unset CDPATH; "
	    "m=$(uname -m); echo \"arch $m\"; "
	    "case \"$m\" in %s) ;; *) exit 0;; esac; %s"
	    RPUSH_HS RPUSH_SP
	    "d=\"%s\"; umask 077; "
	    "[ -d \"$d\" ] || mkdir -p \"$d\" || "
	    "{ echo \"dir cannot be created\"; exit 0; }; "
	    "if [ -L \"$d\" ]; then echo \"dir is a symbolic link\"; "
	    "elif [ ! -d \"$d\" ]; then echo \"dir is not a directory\"; "
	    "elif ! cd -P -- \"$d\"; then echo \"dir cannot be entered\"; "
	    "elif [ ! -O . ]; then echo \"dir is owned by another user\"; "
	    "elif ! chmod 700 .; then echo \"dir cannot be made private\"; "
	    "elif ! w=$(sp); then echo \"dir is in an unsafe place: $w\"; "
	    "else echo \"dir ok\"; f=\"./%s\"; "
	    "find . -name \".jobtop-*.tmp\" -mmin +10 "
	    "-exec rm -f {} + 2>/dev/null; %s"
	    "if [ -f \"$f\" ] && [ ! -L \"$f\" ] && [ -O \"$f\" ]; then "
	    "hs \"$f\"; echo \"file $(($(wc -c <\"$f\"))) $h\"; "
	    "else echo \"file none\"; fi; fi'",
	    rpush_pattern(arch), kill, dir, name, help);
}

/* The install keeps a file whose hash cannot be computed when its size
 * is right: it is the upload just made into the private directory, and
 * the next start uploads again (the fast path and the check want a
 * hash). */
char *
rpush_install_cmd(const char *dir, const char *tmp, const char *name,
    uint64_t size, const char *hash)
{
	return xasprintf("exec /bin/sh -c 'set -f; unset CDPATH; "
	    RPUSH_HS RPUSH_PV
	    "cd -P -- \"%s\" && [ -O . ] && pv || "
	    "{ echo \"dir is not private\"; exit 0; }; "
	    "t=\"./%s\"; f=\"./%s\"; "
	    "s=$(($(wc -c <\"$t\"))); hs \"$t\"; "
	    "if [ \"$s\" = %llu ] && { [ -z \"$h\" ] || [ \"$h\" = %s ]; }; "
	    "then chmod 700 \"$t\" && mv -f \"$t\" \"$f\" && "
	    "echo \"file $s $h\"; "
	    "else rm -f \"$t\"; echo \"upload $s $h\"; fi'",
	    dir, tmp, name, (unsigned long long)size, hash);
}

char *
rpush_upload_cmd(const char *dir, const char *tmp)
{
	return xasprintf("exec /bin/sh -c 'umask 077; unset CDPATH; "
	    "cd -P -- \"%s\" && [ -O . ] && cat > \"./%s\"'", dir, tmp);
}

/* " --watchdog N" (nothing for 0), then " --uid U" (nothing below 0):
 * the options of the probe's command besides the interval, job and
 * helper. */
static void
rpush_probe_opts(unsigned watchdog, long long uid, char *buf, size_t size)
{
	int	n = 0;

	buf[0] = '\0';
	if (watchdog > 0)
		n = snprintf(buf, size, " --watchdog %u", watchdog);
	if (uid >= 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " --uid %lld", uid);
}

/* " [--step \"S\"] --job \"J\"", or nothing without a job. */
static void
rpush_job_arg(const char *job, const char *step, const char *sluid,
    char *buf, size_t size)
{
	char	sl[64] = "";

	buf[0] = '\0';
	if (job == NULL || *job == '\0')
		return;
	/* Slurm 26.05 names the job's cgroup by its SLUID (probes/ranks.h). */
	if (sluid != NULL && *sluid != '\0')
		snprintf(sl, sizeof(sl), " --sluid \"%s\"", sluid);
	if (step != NULL && *step != '\0')
		snprintf(buf, size, " --step \"%s\"%s --job \"%s\"", step, sl,
		    job);
	else
		snprintf(buf, size, "%s --job \"%s\"", sl, job);
}

char *
rpush_exec_cmd(const char *dir, const char *name, const char *job,
    const char *step, const char *sluid, double interval, unsigned watchdog,
    long long uid, const char *helper)
{
	char	jobarg[192], nvml[512], wd[64];

	jobarg[0] = nvml[0] = '\0';
	rpush_probe_opts(watchdog, uid, wd, sizeof(wd));
	rpush_job_arg(job, step, sluid, jobarg, sizeof(jobarg));
	if (helper != NULL)
		snprintf(nvml, sizeof(nvml), " --nvml \"./%s\"", helper);
	/* The check made the directory safe on another channel: enter it
	 * again and look again before running what is in it. */
	return xasprintf("exec /bin/sh -c 'set -f; unset CDPATH; "
	    RPUSH_SP RPUSH_PV
	    "w=\"it is not a private directory of the user\"; "
	    "if cd -P -- \"%s\" && [ -O . ] && pv && w=$(sp); then "
	    "echo \"jobtop-probe-pid $$\" >&2; "
	    "exec \"./%s\" --interval %.3f%s%s%s; fi; "
	    "echo \"jobtop: the probe cache is not safe: $w\" >&2; exit 1'",
	    dir, name, interval, wd, nvml, jobarg);
}

char *
rpush_fast_cmd(const char *dir, const char *name, uint64_t size,
    const char *hash, const char *job, const char *step, const char *sluid,
    double interval, unsigned watchdog, long long uid, const char *helper,
    uint64_t hsize, const char *hhash)
{
	char	jobarg[192], nvml[512], hguard[512], wd[64];

	jobarg[0] = nvml[0] = hguard[0] = '\0';
	rpush_probe_opts(watchdog, uid, wd, sizeof(wd));
	rpush_job_arg(job, step, sluid, jobarg, sizeof(jobarg));
	if (helper != NULL) {
		snprintf(nvml, sizeof(nvml), " --nvml \"./%s\"", helper);
		snprintf(hguard, sizeof(hguard), " && ok \"./%s\" %llu %s",
		    helper, (unsigned long long)hsize, hhash);
	}
	/* No hash tool: not cached, so the check and a fresh upload run. */
	return xasprintf("exec /bin/sh -c 'set -f; unset CDPATH; "
	    RPUSH_HS RPUSH_SP RPUSH_PV
	    "ok() { [ -f \"$1\" ] && [ ! -L \"$1\" ] && [ -O \"$1\" ] && "
	    "[ \"$(($(wc -c <\"$1\")))\" = \"$2\" ] && hs \"$1\" && "
	    "[ \"$h\" = \"$3\" ]; }; "
	    "if cd -P -- \"%s\" 2>/dev/null && [ -O . ] && pv && "
	    "sp >/dev/null && ok \"./%s\" %llu %s%s; then "
	    "echo \"jobtop-probe-pid $$\" >&2; "
	    "exec \"./%s\" --interval %.3f%s%s%s; fi; "
	    "echo " RPUSH_NOT_CACHED " >&2; exit %d'",
	    dir, name, (unsigned long long)size, hash, hguard, name, interval,
	    wd, nvml, jobarg, RPUSH_NOT_CACHED_STATUS);
}

/*
 * The ssh transport's one command (one connection per start): the fast
 * path's guard, and when the probe is not cached, the check's directory
 * rules, then the upload over the same connection's stdin: the script
 * says "jobtop-send I SIZE" on stderr and reads exactly SIZE bytes with
 * head -c (the monitor writes nothing else until the probe's HELLO), then
 * verifies size and hash and renames into place, as the install does.
 */
char *
rpush_ssh_cmd(const struct rpush_ssh *a)
{
	char	jobarg[192], nvml[512], hguard[512], wd[64], kill[256];
	char	hget[256];

	jobarg[0] = nvml[0] = hguard[0] = kill[0] = hget[0] = '\0';
	rpush_probe_opts(a->watchdog, a->uid, wd, sizeof(wd));
	rpush_job_arg(a->job, a->step, a->sluid, jobarg, sizeof(jobarg));
	if (a->helper != NULL) {
		snprintf(nvml, sizeof(nvml), " --nvml \"./%s\"", a->helper);
		snprintf(hguard, sizeof(hguard), " && ok \"./%s\" %llu %s",
		    a->helper, (unsigned long long)a->hsize, a->hhash);
		snprintf(hget, sizeof(hget), "get 1 \"%s\" %llu %s; ",
		    a->helper, (unsigned long long)a->hsize, a->hhash);
	}
	if (a->stale > 0)
		snprintf(kill, sizeof(kill), "p=%ld; "
		    "if grep -q \"%s\" /proc/$p/cmdline 2>/dev/null; then "
		    "kill $p; fi; ", a->stale, a->name);
	return xasprintf("exec /bin/sh -c 'set -f; unset CDPATH; "
	    RPUSH_HS RPUSH_SP RPUSH_PV
	    "ok() { [ -f \"$1\" ] && [ ! -L \"$1\" ] && [ -O \"$1\" ] && "
	    "[ \"$(($(wc -c <\"$1\")))\" = \"$2\" ] && hs \"$1\" && "
	    "[ \"$h\" = \"$3\" ]; }; "
	    "run() { echo \"jobtop-probe-pid $$\" >&2; "
	    "exec \"./%s\" --interval %.3f%s%s%s; }; %s"
	    "d=\"%s\"; "
	    "if cd -P -- \"$d\" 2>/dev/null && [ -O . ] && pv && "
	    "sp >/dev/null && ok \"./%s\" %llu %s%s; then run; fi; "
	    "m=$(uname -m); case \"$m\" in %s) ;; *) "
	    "echo \"jobtop-arch $m\" >&2; exit 98;; esac; "
	    "umask 077; [ -d \"$d\" ] || mkdir -p \"$d\" 2>/dev/null || "
	    "{ echo \"jobtop-dir cannot be created\" >&2; exit 99; }; w=; "
	    "if [ -L \"$d\" ]; then w=\"is a symbolic link\"; "
	    "elif [ ! -d \"$d\" ]; then w=\"is not a directory\"; "
	    "elif ! cd -P -- \"$d\"; then w=\"cannot be entered\"; "
	    "elif [ ! -O . ]; then w=\"is owned by another user\"; "
	    "elif ! chmod 700 .; then w=\"cannot be made private\"; "
	    "elif ! x=$(sp); then w=\"is in an unsafe place: $x\"; fi; "
	    "[ -z \"$w\" ] || { echo \"jobtop-dir $w\" >&2; exit 99; }; "
	    "find . -name \".jobtop-*.tmp\" -mmin +10 "
	    "-exec rm -f {} + 2>/dev/null; "
	    "get() { t=\"./.jobtop-$$-$1.tmp\"; "
	    "echo \"jobtop-send $1 $3\" >&2; head -c $3 >\"$t\"; "
	    "s=$(($(wc -c <\"$t\"))); hs \"$t\"; "
	    "if [ \"$s\" = $3 ] && { [ -z \"$h\" ] || [ \"$h\" = $4 ]; }; "
	    "then chmod 700 \"$t\" && mv -f \"$t\" \"./$2\"; else "
	    "rm -f \"$t\"; echo \"jobtop-bad-upload $2 $s $h\" >&2; "
	    "exit 1; fi; }; "
	    "get 0 \"%s\" %llu %s; %s"
	    "pv && sp >/dev/null && run; "
	    "echo \"jobtop: the probe cache is not safe\" >&2; exit 1'",
	    a->name, a->interval, wd, nvml, jobarg, kill, a->dir, a->name,
	    (unsigned long long)a->size, a->hash, hguard,
	    rpush_pattern(a->arch), a->name, (unsigned long long)a->size,
	    a->hash, hget);
}

/* Copy one word of at most size-1 bytes; returns what follows it. */
static const char *
rpush_word(const char *p, char *out, size_t size)
{
	size_t	n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n') {
		if (n + 1 < size)
			out[n++] = *p;
		p++;
	}
	if (size > 0)
		out[n] = '\0';
	return p;
}

/* "SIZE HASH" after "helper ": 0, or -1 when it is not that. */
static int
rpush_parse_helper(const char *p, struct rpush_report *r)
{
	char		 word[80], *end;
	const char	*q;

	q = rpush_word(p, word, sizeof(word));
	r->hsize = strtoull(word, &end, 10);
	if (*word == '\0' || *end != '\0')
		return -1;
	rpush_word(q, word, sizeof(word));
	if (strlen(word) == 64 && strspn(word, "0123456789abcdef") == 64)
		memcpy(r->hhash, word, 65);
	return 0;
}

void
rpush_parse(const char *out, size_t len, struct rpush_report *r)
{
	char		*text, *p, *line, word[80], *end;
	const char	*q;
	int		 upload;

	memset(r, 0, sizeof(*r));
	r->file = -1;
	r->helper = -1;
	text = p = xstrndup(out, len);
	while ((line = strsep(&p, "\n")) != NULL) {
		line[strcspn(line, "\r")] = '\0';
		if (strncmp(line, "arch ", 5) == 0 && r->arch[0] == '\0')
			rpush_word(line + 5, r->arch, sizeof(r->arch));
		else if (strncmp(line, "dir ", 4) == 0 && r->dir[0] == '\0')
			snprintf(r->dir, sizeof(r->dir), "%s", line + 4);
		else if (strncmp(line, "killed ", 7) == 0)
			r->killed = strtol(line + 7, NULL, 10);
		else if (strcmp(line, "file none") == 0 && r->file == -1)
			r->file = 0;
		else if (strcmp(line, "helper none") == 0 && r->helper == -1)
			r->helper = 0;
		else if (strncmp(line, "helper ", 7) == 0 && r->helper == -1)
			r->helper = rpush_parse_helper(line + 7, r) == 0 ? 1 :
			    -1;
		else if (((upload = strncmp(line, "upload ", 7) == 0) ||
		    strncmp(line, "file ", 5) == 0) && r->file == -1) {
			q = rpush_word(line + (upload ? 7 : 5), word,
			    sizeof(word));
			r->size = strtoull(word, &end, 10);
			if (*word == '\0' || *end != '\0')
				continue;
			rpush_word(q, word, sizeof(word));
			if (strlen(word) == 64 &&
			    strspn(word, "0123456789abcdef") == 64)
				memcpy(r->hash, word, 65);
			r->file = 1;
			r->upload = upload;
		}
	}
	free(text);
}

enum rpush_verdict
rpush_decide(const struct rpush_report *r, const char *arch, uint64_t size,
    const char *hash, const char *dir, char *why, size_t whylen)
{
	if (r->arch[0] == '\0') {
		snprintf(why, whylen, "%s", rpush_garbage);
		return RP_GARBAGE;
	}
	if (!rpush_arch_ok(r->arch, arch)) {
		snprintf(why, whylen, "node is %s, probe is %s", r->arch, arch);
		return RP_ARCH;
	}
	if (strcmp(r->dir, "ok") != 0) {
		snprintf(why, whylen, "%s on the node %s", dir,
		    r->dir[0] != '\0' ? r->dir : "could not be checked");
		return RP_DIR;
	}
	if (r->file == -1) {
		snprintf(why, whylen, "%s", rpush_garbage);
		return RP_GARBAGE;
	}
	/* Without a hash from the node the size proves nothing. */
	if (r->file == 1 && !r->upload && r->size == size &&
	    strcmp(r->hash, hash) == 0)
		return RP_CACHED;
	return RP_UPLOAD;
}

int
rpush_helper_cached(const struct rpush_report *r, uint64_t size,
    const char *hash)
{
	return r->helper == 1 && r->hsize == size &&
	    strcmp(r->hhash, hash) == 0;
}
