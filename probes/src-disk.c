/* SPDX-License-Identifier: ISC */
/*
 * disk: block device I/O from /proc/diskstats, one instance of group
 * "disk" per whole device.  A device is whole when /sys/block/NAME exists
 * (partitions live below their disk there); loop and ram devices are left
 * out as they only mirror other I/O.  Deciding that costs a stat per name,
 * so the verdicts are cached and redone only when the list of names in
 * diskstats changes (a disk added or removed).  Sectors are always 512
 * bytes in diskstats, whatever the device's block size.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

enum {
	DISK_READS, DISK_READ_BYTES, DISK_WRITES, DISK_WRITE_BYTES,
	DISK_IO_MS, DISK_IN_FLIGHT, DISK_DISCARDS, DISK_NFIELDS
};

static const struct field_def disk_fields[DISK_NFIELDS] = {
	{ "reads",		"count",	PF_COUNTER },
	{ "read_bytes",		"bytes",	PF_COUNTER },
	{ "writes",		"count",	PF_COUNTER },
	{ "write_bytes",	"bytes",	PF_COUNTER },
	{ "io_ms",		"ms",		PF_COUNTER },
	{ "in_flight",		"count",	PF_GAUGE },
	{ "discards",		"count",	PF_COUNTER },
};
static const struct group_def disk_group = {
	"disk", disk_fields, DISK_NFIELDS
};
static const struct group_def *disk_groups[] = { &disk_group, NULL };

#define DISK_LINES	1024	/* diskstats lines whose verdict is cached */

/* The cached verdict for the name on one line of diskstats. */
struct disk_line {
	char	name[PROTO_NAME_MAX];
	int	whole;
};

static char		disk_buf[128 * 1024];
static int		disk_fd = -1;
static struct disk_line	disk_lines[DISK_LINES];
static unsigned		disk_nlines;
static int		disk_valid;	/* the cache matches diskstats */

static int
disk_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	if ((disk_fd = probe_open("/proc/diskstats")) < 0) {
		snprintf(why, whysz, "no /proc/diskstats");
		return -1;
	}
	if (probe_pread(disk_fd, disk_buf, sizeof(disk_buf)) < 0) {
		snprintf(why, whysz, "cannot read /proc/diskstats");
		close(disk_fd);
		disk_fd = -1;
		return -1;
	}
	return 0;
}

/* A name the protocol can carry: printable ASCII, no space or quote. */
static int
disk_name_ok(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || n >= PROTO_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] <= ' ' || s[i] > '~' || s[i] == '"' || s[i] == '\\')
			return 0;
	}
	return 1;
}

/* Whether a device is a whole disk worth reporting. */
static int
disk_is_whole(const char *name)
{
	struct stat	 st;
	char		 rel[PROTO_NAME_MAX + 16], full[4096];
	char		*p;

	if (strncmp(name, "loop", 4) == 0 || strncmp(name, "ram", 3) == 0)
		return 0;
	/* sysfs spells a '/' in a device name ("cciss/c0d0") as '!'. */
	snprintf(rel, sizeof(rel), "/sys/block/%s", name);
	for (p = rel + 11; *p != '\0'; p++) {
		if (*p == '/')
			*p = '!';
	}
	probe_path(full, sizeof(full), rel);
	return stat(full, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The verdict for the name on line i, checking sysfs when the cache does
 * not hold that name there; a change invalidates the rest of the cache. */
static int
disk_whole(unsigned i, const char *name)
{
	struct disk_line	*dl;

	if (i >= DISK_LINES)
		return disk_is_whole(name);
	dl = &disk_lines[i];
	if (disk_valid && i < disk_nlines && strcmp(dl->name, name) == 0)
		return dl->whole;
	disk_valid = 0;
	snprintf(dl->name, sizeof(dl->name), "%s", name);
	dl->whole = disk_is_whole(name);
	return dl->whole;
}

/* "major minor name" then the counters, 11 of them at least.  Returns
 * whether the line named a device (and so took a place in the cache). */
static int
disk_parse_line(unsigned i, const char *p)
{
	struct pinst	*pi;
	const char	*s;
	char		 name[PROTO_NAME_MAX];
	uint64_t	 v[15];
	unsigned	 n;
	size_t		 len;

	if ((p = probe_parse_u64(p, &v[0])) == NULL ||
	    (p = probe_parse_u64(p, &v[0])) == NULL)
		return 0;
	s = probe_skip_space(p);
	len = strcspn(s, " \t\n");
	if (!disk_name_ok(s, len))
		return 0;
	memcpy(name, s, len);
	name[len] = '\0';
	if (!disk_whole(i, name))
		return 1;
	p = s + len;
	for (n = 0; n < 15; n++) {
		if ((p = probe_parse_u64(p, &v[n])) == NULL)
			break;
	}
	if (n < 11 || (pi = probe_inst(&disk_group, name)) == NULL)
		return 1;
	pinst_set(pi, DISK_READS, (int64_t)v[0]);
	pinst_set(pi, DISK_READ_BYTES, (int64_t)(v[2] * 512));
	pinst_set(pi, DISK_WRITES, (int64_t)v[4]);
	pinst_set(pi, DISK_WRITE_BYTES, (int64_t)(v[6] * 512));
	pinst_set(pi, DISK_IN_FLIGHT, (int64_t)v[8]);
	pinst_set(pi, DISK_IO_MS, (int64_t)v[9]);
	if (n >= 12)
		pinst_set(pi, DISK_DISCARDS, (int64_t)v[11]);
	return 1;
}

static void
disk_sample(const struct probe_conf *conf)
{
	const char	*p, *q;
	unsigned	 i = 0;
	ssize_t		 n;

	if ((n = probe_pread(disk_fd, disk_buf, sizeof(disk_buf))) < 0)
		return;
	/* A read that fills the buffer may end inside a line: drop it. */
	if ((size_t)n == sizeof(disk_buf) - 1 &&
	    (q = strrchr(disk_buf, '\n')) != NULL)
		disk_buf[q + 1 - disk_buf] = '\0';
	for (p = disk_buf; *p != '\0'; p = q) {
		if ((q = strchr(p, '\n')) != NULL)
			q++;
		else
			q = p + strlen(p);
		if (disk_parse_line(i, p))
			i++;
	}
	if (i != disk_nlines)
		disk_valid = 0;
	if (!disk_valid) {
		disk_nlines = i < DISK_LINES ? i : DISK_LINES;
		disk_valid = 1;
	}
}

const struct source src_disk = {
	"disk", disk_groups, disk_init, disk_sample
};
