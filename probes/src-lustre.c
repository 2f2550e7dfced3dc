/* SPDX-License-Identifier: ISC */
/*
 * lustre: the Lustre client's statistics.  Group "llite" has one instance
 * per mounted file system, named by its fsname (the stats directory
 * "FSNAME-ffff8800b8c3b800" without its superblock suffix), with the VFS
 * operations the client served; group "osc" has one per OST the client
 * talks to ("FSNAME-OST0000", from "FSNAME-OST0000-osc-ffff..."), with the
 * bulk RPCs it sent.  When a file system is mounted twice, the instances
 * of both mounts keep their full directory names.
 *
 * Clients before 2.12 keep the stats files under /proc/fs/lustre, newer
 * ones under /sys/kernel/debug/lustre, which is normally readable by root
 * only; both are looked at, and an unreadable one is the reason given.
 * The format, as lprocfs writes it:
 *
 *	snapshot_time             1523008010.817348638 secs.nsecs
 *	read_bytes                25673 samples [bytes] 1 3366225 145121869
 *	open                      42 samples [usecs] 3 290 1433 177049
 *
 * that is "name count samples [unit] min max sum [sumsq]", min and the
 * rest only for counters that keep them.  A counter that never counted is
 * left out of the file, so an operation missing from it is sent as 0.
 * Byte fields are the sum column of read_bytes and write_bytes (llite:
 * what read() and write() moved, cache hits included; osc: what went over
 * the wire), reads and writes their count column (calls, or bulk RPCs),
 * the others the count column; req_wait_us is the sum of the osc's
 * req_waittime, in microseconds.  Directories are listed at start-up
 * only: a file system mounted later is not seen, and one unmounted makes
 * its instances vanish.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

enum {
	LL_READ_BYTES, LL_WRITE_BYTES, LL_READS, LL_WRITES, LL_OPEN,
	LL_CLOSE, LL_GETATTR, LL_SETATTR, LL_STATFS, LL_FSYNC, LL_SEEK,
	LL_MMAP, LL_TRUNCATE, LL_CREATE, LL_UNLINK, LL_MKDIR, LL_RMDIR,
	LL_RENAME, LL_READDIR, LL_GETXATTR, LL_SETXATTR, LL_FLOCK,
	LL_NFIELDS
};

static const struct field_def ll_fields[LL_NFIELDS] = {
	{ "read_bytes",		"bytes", PF_COUNTER },
	{ "write_bytes",	"bytes", PF_COUNTER },
	{ "reads",		"count", PF_COUNTER },
	{ "writes",		"count", PF_COUNTER },
	{ "open",		"count", PF_COUNTER },
	{ "close",		"count", PF_COUNTER },
	{ "getattr",		"count", PF_COUNTER },
	{ "setattr",		"count", PF_COUNTER },
	{ "statfs",		"count", PF_COUNTER },
	{ "fsync",		"count", PF_COUNTER },
	{ "seek",		"count", PF_COUNTER },
	{ "mmap",		"count", PF_COUNTER },
	{ "truncate",		"count", PF_COUNTER },
	{ "create",		"count", PF_COUNTER },
	{ "unlink",		"count", PF_COUNTER },
	{ "mkdir",		"count", PF_COUNTER },
	{ "rmdir",		"count", PF_COUNTER },
	{ "rename",		"count", PF_COUNTER },
	{ "readdir",		"count", PF_COUNTER },
	{ "getxattr",		"count", PF_COUNTER },
	{ "setxattr",		"count", PF_COUNTER },
	{ "flock",		"count", PF_COUNTER },
};
static const struct group_def ll_group = {
	"llite", ll_fields, LL_NFIELDS
};

enum {
	OSC_READ_BYTES, OSC_WRITE_BYTES, OSC_READS, OSC_WRITES, OSC_REQS,
	OSC_REQ_WAIT, OSC_NFIELDS
};

static const struct field_def osc_fields[OSC_NFIELDS] = {
	{ "read_bytes",		"bytes", PF_COUNTER },
	{ "write_bytes",	"bytes", PF_COUNTER },
	{ "reads",		"count", PF_COUNTER },
	{ "writes",		"count", PF_COUNTER },
	{ "reqs",		"count", PF_COUNTER },
	{ "req_wait_us",	"us",	 PF_COUNTER },
};
static const struct group_def osc_group = {
	"osc", osc_fields, OSC_NFIELDS
};
static const struct group_def *lu_groups[] = { &ll_group, &osc_group, NULL };

/* A line of a stats file and the fields its count and sum go to (-1:
 * not sent). */
struct lu_stat {
	const char	*name;
	int		 count;
	int		 sum;
};

static const struct lu_stat ll_stats[] = {
	{ "read_bytes",		LL_READS,	LL_READ_BYTES },
	{ "write_bytes",	LL_WRITES,	LL_WRITE_BYTES },
	{ "open",		LL_OPEN,	-1 },
	{ "close",		LL_CLOSE,	-1 },
	{ "getattr",		LL_GETATTR,	-1 },
	{ "setattr",		LL_SETATTR,	-1 },
	{ "statfs",		LL_STATFS,	-1 },
	{ "fsync",		LL_FSYNC,	-1 },
	{ "seek",		LL_SEEK,	-1 },
	{ "mmap",		LL_MMAP,	-1 },
	{ "truncate",		LL_TRUNCATE,	-1 },
	{ "create",		LL_CREATE,	-1 },
	{ "unlink",		LL_UNLINK,	-1 },
	{ "mkdir",		LL_MKDIR,	-1 },
	{ "rmdir",		LL_RMDIR,	-1 },
	{ "rename",		LL_RENAME,	-1 },
	{ "readdir",		LL_READDIR,	-1 },
	{ "getxattr",		LL_GETXATTR,	-1 },
	{ "setxattr",		LL_SETXATTR,	-1 },
	{ "flock",		LL_FLOCK,	-1 },
	{ NULL,			-1,		-1 },
};

static const struct lu_stat osc_stats[] = {
	{ "read_bytes",		OSC_READS,	OSC_READ_BYTES },
	{ "write_bytes",	OSC_WRITES,	OSC_WRITE_BYTES },
	{ "req_waittime",	OSC_REQS,	OSC_REQ_WAIT },
	{ NULL,			-1,		-1 },
};

/* Where a client keeps them: old (procfs), then new (debugfs). */
static const char *const lu_llite_dirs[] = {
	"/proc/fs/lustre/llite", "/sys/kernel/debug/lustre/llite", NULL
};
static const char *const lu_osc_dirs[] = {
	"/proc/fs/lustre/osc", "/sys/kernel/debug/lustre/osc", NULL
};

#define LU_MAX		1024	/* stats files, llite and osc */

struct lu_file {
	const struct group_def	*group;
	const struct lu_stat	*stats;
	char			 dir[PROTO_NAME_MAX];	/* directory */
	char			 name[PROTO_NAME_MAX];	/* instance */
	int			 fd;
	int			 shared;	/* name taken by another */
};

static struct lu_file	lu_files[LU_MAX];
static unsigned		lu_nfiles;
static char		lu_buf[16384];

/* A directory name the probe takes: printable, no '/', not hidden. */
static int
lu_name_ok(const char *s)
{
	size_t	n = strlen(s);

	if (n == 0 || n >= PROTO_NAME_MAX || s[0] == '.')
		return 0;
	for (; *s != '\0'; s++) {
		if (*s <= ' ' || *s > '~' || *s == '"' || *s == '\\')
			return 0;
	}
	return 1;
}

/* Copy a string that fits (the caller checked) without snprintf. */
static void
lu_copy(char *dst, const char *src)
{
	size_t	n = strlen(src);

	if (n >= PROTO_NAME_MAX)
		n = PROTO_NAME_MAX - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The instance name of a stats directory: "FSNAME-ffff..." -> "FSNAME",
 * "FSNAME-OST0000-osc-ffff..." -> "FSNAME-OST0000". */
static void
lu_inst_name(struct lu_file *lf)
{
	char	*cut;

	lu_copy(lf->name, lf->dir);
	if (lf->group == &osc_group)
		cut = strstr(lf->name, "-osc-");
	else
		cut = strrchr(lf->name, '-');
	if (cut != NULL && cut != lf->name)
		*cut = '\0';
}

/* Mounts of one file system share a short name: they all keep their
 * directory's name instead. */
static void
lu_unshare(void)
{
	unsigned	i, j;
	int		shared;

	for (i = 0; i < lu_nfiles; i++) {
		shared = 0;
		for (j = 0; j < lu_nfiles; j++) {
			if (j != i && lu_files[j].group == lu_files[i].group &&
			    strcmp(lu_files[j].name, lu_files[i].name) == 0)
				shared = 1;
		}
		if (shared)
			lu_files[i].shared = 1;
	}
	for (i = 0; i < lu_nfiles; i++) {
		if (lu_files[i].shared)
			lu_copy(lu_files[i].name, lu_files[i].dir);
	}
}

/* Open DIR/ENTRY/stats for every entry of one directory.  Returns -1 with
 * errno when the directory cannot be listed; *denied counts stats files
 * that exist but cannot be read. */
static int
lu_scan(const char *dir, const struct group_def *g,
    const struct lu_stat *stats, int *denied)
{
	DIR		*d;
	struct dirent	*de;
	struct lu_file	*lf;
	char		 path[4096], rel[256];
	unsigned	 i;
	int		 fd, dup;

	if ((d = opendir(probe_path(path, sizeof(path), dir))) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL && lu_nfiles < LU_MAX) {
		if (!lu_name_ok(de->d_name))
			continue;
		for (i = 0, dup = 0; i < lu_nfiles; i++) {
			if (lu_files[i].group == g &&
			    strcmp(lu_files[i].dir, de->d_name) == 0)
				dup = 1;
		}
		if (dup)
			continue;
		if (snprintf(rel, sizeof(rel), "%s/%s/stats", dir,
		    de->d_name) >= (int)sizeof(rel))
			continue;
		if ((fd = probe_open(rel)) < 0) {
			if (errno == EACCES || errno == EPERM)
				(*denied)++;
			continue;
		}
		lf = &lu_files[lu_nfiles];
		lf->group = g;
		lf->stats = stats;
		lf->fd = fd;
		lu_copy(lf->dir, de->d_name);
		lu_inst_name(lf);
		lu_nfiles++;
	}
	closedir(d);
	return 0;
}

/* On when a mounted file system's llite stats can be opened. */
static int
lu_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	const char	*unreadable = NULL;
	unsigned	 i, nllite;
	int		 denied = 0, err = 0;

	for (i = 0; lu_llite_dirs[i] != NULL; i++) {
		if (lu_scan(lu_llite_dirs[i], &ll_group, ll_stats,
		    &denied) < 0 && errno != ENOENT && errno != ENOTDIR) {
			unreadable = lu_llite_dirs[i];
			err = errno;
		}
	}
	if ((nllite = lu_nfiles) == 0) {
		if (denied > 0)
			snprintf(why, whysz, "Lustre client stats are not "
			    "readable (permission denied)");
		else if (unreadable != NULL)
			snprintf(why, whysz, "cannot list %s: %s", unreadable,
			    strerror(err));
		else
			snprintf(why, whysz, "no Lustre client (no %s or %s)",
			    lu_llite_dirs[0], lu_llite_dirs[1]);
		return -1;
	}
	for (i = 0; lu_osc_dirs[i] != NULL; i++)
		lu_scan(lu_osc_dirs[i], &osc_group, osc_stats, &denied);
	lu_unshare();
	return 0;
}

/* Parse one stats file into an instance: every known operation is sent,
 * as 0 when its line is missing. */
static void
lu_parse(const struct lu_file *lf, struct pinst *pi)
{
	const struct lu_stat	*ls;
	const char		*p, *q, *eol;
	uint64_t		 count, v[3];
	size_t			 len;
	unsigned		 n;

	for (ls = lf->stats; ls->name != NULL; ls++) {
		if (ls->count >= 0)
			pinst_set(pi, (unsigned)ls->count, 0);
		if (ls->sum >= 0)
			pinst_set(pi, (unsigned)ls->sum, 0);
	}
	for (p = lu_buf; *p != '\0'; p = *eol != '\0' ? eol + 1 : eol) {
		if ((eol = strchr(p, '\n')) == NULL)
			eol = p + strlen(p);
		len = strcspn(p, " \t\n");
		for (ls = lf->stats; ls->name != NULL; ls++) {
			if (strlen(ls->name) == len &&
			    memcmp(ls->name, p, len) == 0)
				break;
		}
		if (ls->name == NULL ||
		    (q = probe_parse_u64(p + len, &count)) == NULL)
			continue;
		if (ls->count >= 0)
			pinst_set(pi, (unsigned)ls->count, (int64_t)count);
		if (ls->sum < 0)
			continue;
		/* " samples [unit] min max sum" */
		q = probe_skip_space(q);
		if (strncmp(q, "samples", 7) != 0)
			continue;
		q = probe_skip_space(q + 7);
		if (*q != '[' || (q = memchr(q, ']', (size_t)(eol - q))) ==
		    NULL)
			continue;
		q++;
		for (n = 0; n < 3; n++) {
			if ((q = probe_parse_u64(q, &v[n])) == NULL)
				break;
		}
		if (n == 3)
			pinst_set(pi, (unsigned)ls->sum, (int64_t)v[2]);
	}
}

/* Read every stats file into its instance. */
static void
lu_sample(const struct probe_conf *conf)
{
	struct lu_file	*lf;
	struct pinst	*pi;
	ssize_t		 n;
	unsigned	 i;

	for (i = 0; i < lu_nfiles; i++) {
		lf = &lu_files[i];
		if (lf->fd < 0)
			continue;
		/* Unmounted: the file reads no more; forget it. */
		if ((n = probe_pread(lf->fd, lu_buf, sizeof(lu_buf))) <= 0) {
			if (n < 0) {
				close(lf->fd);
				lf->fd = -1;
			}
			continue;
		}
		if ((pi = probe_inst(lf->group, lf->name)) != NULL)
			lu_parse(lf, pi);
	}
}

const struct source src_lustre = {
	"lustre", lu_groups, lu_init, lu_sample
};
