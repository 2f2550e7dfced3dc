/* SPDX-License-Identifier: ISC */
/*
 * self: what the probe itself costs the node (group "self", instance ""):
 * its CPU time, resident memory and the bytes it has sent.  These files are
 * always the real /proc/self, never under --root: a fixture tree describes
 * some other machine, but the process measuring itself is this one.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

enum { SELF_UTIME, SELF_STIME, SELF_RSS, SELF_BYTES_SENT, SELF_NFIELDS };

static const struct field_def self_fields[SELF_NFIELDS] = {
	{ "utime",	"jiffies",	PF_COUNTER },
	{ "stime",	"jiffies",	PF_COUNTER },
	{ "rss",	"bytes",	PF_GAUGE },
	{ "bytes_sent",	"bytes",	PF_COUNTER },
};
static const struct group_def self_group = {
	"self", self_fields, SELF_NFIELDS
};
static const struct group_def *self_groups[] = { &self_group, NULL };

static char	self_buf[1024];
static int	self_stat_fd = -1;
static int	self_statm_fd = -1;

static int
self_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	/* Not probe_open: --root must not apply here. */
	self_stat_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	self_statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (self_stat_fd < 0 || self_statm_fd < 0) {
		snprintf(why, whysz, "no /proc/self/stat");
		return -1;
	}
	return 0;
}

/* utime and stime are fields 14 and 15 of stat, counted from the pid;
 * the command before them may hold spaces and parentheses, so count
 * from the last ')'. */
static void
self_parse_stat(struct pinst *pi)
{
	const char	*p;
	uint64_t	 v;
	int64_t		 skip;
	unsigned	 i;

	if (probe_pread(self_stat_fd, self_buf, sizeof(self_buf)) <= 0 ||
	    (p = strrchr(self_buf, ')')) == NULL)
		return;
	/* After ')': the state letter (3), then fields 4..13 to skip. */
	p = probe_skip_space(p + 1);
	if (*p == '\0' || *p == '\n')
		return;
	p++;
	for (i = 4; i <= 13; i++) {
		if ((p = probe_parse_i64(p, &skip)) == NULL)
			return;
	}
	if ((p = probe_parse_u64(p, &v)) == NULL)
		return;
	pinst_set(pi, SELF_UTIME, (int64_t)v);
	if (probe_parse_u64(p, &v) != NULL)
		pinst_set(pi, SELF_STIME, (int64_t)v);
}

/* statm: size resident shared ... in pages. */
static void
self_parse_statm(const struct probe_conf *conf, struct pinst *pi)
{
	const char	*p;
	uint64_t	 v;

	if (probe_pread(self_statm_fd, self_buf, sizeof(self_buf)) <= 0 ||
	    (p = probe_parse_u64(self_buf, &v)) == NULL ||
	    probe_parse_u64(p, &v) == NULL)
		return;
	pinst_set(pi, SELF_RSS, (int64_t)(v * conf->page_size));
}

static void
self_sample(const struct probe_conf *conf)
{
	struct pinst	*pi;

	if ((pi = probe_inst(&self_group, "")) == NULL)
		return;
	self_parse_stat(pi);
	self_parse_statm(conf, pi);
	pinst_set(pi, SELF_BYTES_SENT, (int64_t)probe_bytes_sent());
}

const struct source src_self = {
	"self", self_groups, self_init, self_sample
};
