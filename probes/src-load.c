/* SPDX-License-Identifier: ISC */
/*
 * load: the node's load averages and runnable/total task counts from
 * /proc/loadavg.  Load is sent as hundredths (unit "centi") so it travels
 * as an integer.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

enum { LOAD_1, LOAD_5, LOAD_15, LOAD_RUNNING, LOAD_TASKS, LOAD_NFIELDS };

static const struct field_def load_fields[LOAD_NFIELDS] = {
	{ "load1",	"centi", PF_GAUGE },
	{ "load5",	"centi", PF_GAUGE },
	{ "load15",	"centi", PF_GAUGE },
	{ "running",	"count", PF_GAUGE },
	{ "tasks",	"count", PF_GAUGE },
};
static const struct group_def load_group = {
	"load", load_fields, LOAD_NFIELDS
};
static const struct group_def *load_groups[] = { &load_group, NULL };

static int load_fd = -1;

static int
load_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	char	buf[256];

	if ((load_fd = probe_open("/proc/loadavg")) < 0 ||
	    probe_pread(load_fd, buf, sizeof(buf)) <= 0) {
		snprintf(why, whysz, "cannot read /proc/loadavg");
		return -1;
	}
	return 0;
}

/* "0.52 0.58 0.59 2/389 12345": two decimals each, then running/total. */
static const char *
load_parse_centi(const char *p, int64_t *v)
{
	uint64_t	ip, fp = 0;
	int		digits = 0;

	if ((p = probe_parse_u64(p, &ip)) == NULL)
		return NULL;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (digits < 2)
				fp = fp * 10 + (uint64_t)(*p - '0');
		}
		if (digits == 1)
			fp *= 10;
	}
	*v = (int64_t)(ip * 100 + fp);
	return p;
}

static void
load_sample(const struct probe_conf *conf)
{
	struct pinst	*pi;
	char		 buf[256];
	const char	*p = buf;
	int64_t		 v;
	uint64_t	 u;
	unsigned	 f;

	if (probe_pread(load_fd, buf, sizeof(buf)) <= 0)
		return;
	pi = probe_inst(&load_group, "");
	for (f = LOAD_1; f <= LOAD_15; f++) {
		if ((p = load_parse_centi(p, &v)) == NULL)
			return;
		pinst_set(pi, f, v);
	}
	if ((p = probe_parse_u64(p, &u)) == NULL || *p != '/')
		return;
	pinst_set(pi, LOAD_RUNNING, (int64_t)u);
	if ((p = probe_parse_u64(p + 1, &u)) == NULL)
		return;
	pinst_set(pi, LOAD_TASKS, (int64_t)u);
}

const struct source src_load = {
	"load", load_groups, load_init, load_sample
};
