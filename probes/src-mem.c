/* SPDX-License-Identifier: ISC */
/*
 * mem: the node's memory from /proc/meminfo, node-wide (group "mem",
 * instance "").  The kernel reports kB; values travel as bytes.  Used
 * memory is not sent: the monitor derives it as total - available, as
 * free(1) does.  A key the kernel lacks (MemAvailable before 3.14) is
 * simply absent.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

enum {
	MEM_TOTAL, MEM_FREE, MEM_AVAILABLE, MEM_BUFFERS, MEM_CACHED,
	MEM_SHMEM, MEM_SRECLAIMABLE, MEM_DIRTY, MEM_SWAP_TOTAL, MEM_SWAP_FREE,
	MEM_NFIELDS
};

static const struct field_def mem_fields[MEM_NFIELDS] = {
	{ "total",		"bytes", PF_GAUGE },
	{ "free",		"bytes", PF_GAUGE },
	{ "available",		"bytes", PF_GAUGE },
	{ "buffers",		"bytes", PF_GAUGE },
	{ "cached",		"bytes", PF_GAUGE },
	{ "shmem",		"bytes", PF_GAUGE },
	{ "sreclaimable",	"bytes", PF_GAUGE },
	{ "dirty",		"bytes", PF_GAUGE },
	{ "swap_total",		"bytes", PF_GAUGE },
	{ "swap_free",		"bytes", PF_GAUGE },
};
static const struct group_def mem_group = {
	"mem", mem_fields, MEM_NFIELDS
};
static const struct group_def *mem_groups[] = { &mem_group, NULL };

/* The /proc/meminfo key of each field, in field order. */
static const char *const mem_keys[MEM_NFIELDS] = {
	"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached",
	"Shmem", "SReclaimable", "Dirty", "SwapTotal", "SwapFree",
};

static char	mem_buf[16 * 1024];
static int	mem_fd = -1;

static int
mem_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	if ((mem_fd = probe_open("/proc/meminfo")) < 0) {
		snprintf(why, whysz, "no /proc/meminfo");
		return -1;
	}
	if (probe_pread(mem_fd, mem_buf, sizeof(mem_buf)) <= 0) {
		snprintf(why, whysz, "cannot read /proc/meminfo");
		close(mem_fd);
		mem_fd = -1;
		return -1;
	}
	return 0;
}

/* The field a "Key:" of length len names, or -1. */
static int
mem_field(const char *key, size_t len)
{
	unsigned	f;

	for (f = 0; f < MEM_NFIELDS; f++) {
		if (strlen(mem_keys[f]) == len &&
		    memcmp(mem_keys[f], key, len) == 0)
			return (int)f;
	}
	return -1;
}

/* One pass over "Key:   12345 kB" lines. */
static void
mem_sample(const struct probe_conf *conf)
{
	struct pinst	*pi = NULL;
	const char	*p, *q, *colon;
	uint64_t	 v;
	ssize_t		 n;
	int		 f;

	if ((n = probe_pread(mem_fd, mem_buf, sizeof(mem_buf))) <= 0)
		return;
	for (p = mem_buf; *p != '\0'; p = q) {
		if ((q = strchr(p, '\n')) != NULL)
			q++;
		else
			q = p + strlen(p);
		if ((colon = memchr(p, ':', (size_t)(q - p))) == NULL ||
		    (f = mem_field(p, (size_t)(colon - p))) < 0)
			continue;
		if ((colon = probe_parse_u64(colon + 1, &v)) == NULL)
			continue;
		/* A line cut short in the middle of " kB" is not trusted. */
		if (strncmp(colon, " kB", 3) != 0)
			continue;
		if (v > (uint64_t)INT64_MAX / 1024)
			continue;
		if (pi == NULL)
			pi = probe_inst(&mem_group, "");
		pinst_set(pi, (unsigned)f, (int64_t)(v * 1024));
	}
}

const struct source src_mem = {
	"mem", mem_groups, mem_init, mem_sample
};
