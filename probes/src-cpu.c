/* SPDX-License-Identifier: ISC */
/*
 * cpu: processor time from one read of /proc/stat.  The "cpu" line is the
 * node total (group "cpu", instance ""), the "cpuN" lines are the online
 * cores (group "core", instance "N").  Times are the kernel's raw tick
 * counters (unit "cpu-jiffies"): the monitor turns each into a percent of
 * its line's total.  Guest time is already part of user and nice, so the
 * guest columns are not sent.  The "cpu" group also carries the context
 * switch and interrupt counters, the runnable and blocked task counts, and
 * btime, the node's boot time in Unix seconds (ranks' start_time counts
 * clock ticks from it; it changes only when the clock is set, so the
 * wire's deltas send it once).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

enum {
	CPU_USER, CPU_NICE, CPU_SYSTEM, CPU_IDLE, CPU_IOWAIT, CPU_IRQ,
	CPU_SOFTIRQ, CPU_STEAL,
	CPU_NTIMES,			/* the "core" group ends here */
	CPU_CTXT = CPU_NTIMES, CPU_INTR, CPU_RUNNING, CPU_BLOCKED,
	CPU_BTIME,
	CPU_NFIELDS
};

static const struct field_def cpu_fields[CPU_NFIELDS] = {
	{ "user",		"cpu-jiffies",	PF_COUNTER },
	{ "nice",		"cpu-jiffies",	PF_COUNTER },
	{ "system",		"cpu-jiffies",	PF_COUNTER },
	{ "idle",		"cpu-jiffies",	PF_COUNTER },
	{ "iowait",		"cpu-jiffies",	PF_COUNTER },
	{ "irq",		"cpu-jiffies",	PF_COUNTER },
	{ "softirq",		"cpu-jiffies",	PF_COUNTER },
	{ "steal",		"cpu-jiffies",	PF_COUNTER },
	{ "ctxt",		"count",	PF_COUNTER },
	{ "intr",		"count",	PF_COUNTER },
	{ "procs_running",	"count",	PF_GAUGE },
	{ "procs_blocked",	"count",	PF_GAUGE },
	{ "btime",		"s",		PF_GAUGE },
};
static const struct group_def cpu_group = {
	"cpu", cpu_fields, CPU_NFIELDS
};
/* A core has the same time columns as the total, and nothing else. */
static const struct group_def cpu_core_group = {
	"core", cpu_fields, CPU_NTIMES
};
static const struct group_def *cpu_groups[] = {
	&cpu_group, &cpu_core_group, NULL
};

/* The intr line alone lists every interrupt: room for large machines. */
static char	cpu_buf[256 * 1024];
static int	cpu_fd = -1;

/* Read /proc/stat; a read that fills the buffer loses its last line. */
static ssize_t
cpu_read(void)
{
	ssize_t	 n;
	char	*nl;

	if ((n = probe_pread(cpu_fd, cpu_buf, sizeof(cpu_buf))) <= 0)
		return -1;
	if ((size_t)n == sizeof(cpu_buf) - 1) {
		if ((nl = strrchr(cpu_buf, '\n')) == NULL)
			return -1;
		nl[1] = '\0';
		n = nl + 1 - cpu_buf;
	}
	return n;
}

static int
cpu_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	if ((cpu_fd = probe_open("/proc/stat")) < 0) {
		snprintf(why, whysz, "no /proc/stat");
		return -1;
	}
	if (cpu_read() < 0 || strncmp(cpu_buf, "cpu ", 4) != 0) {
		snprintf(why, whysz, "cannot read /proc/stat");
		close(cpu_fd);
		cpu_fd = -1;
		return -1;
	}
	return 0;
}

/* The time columns after "cpu" or "cpuN": as many as the kernel has, but
 * at least user, nice, system and idle, or the line is skipped. */
static void
cpu_parse_times(const struct group_def *g, const char *name, const char *p)
{
	struct pinst	*pi;
	uint64_t	 v[CPU_NTIMES];
	unsigned	 f, n;

	for (n = 0; n < CPU_NTIMES; n++) {
		if ((p = probe_parse_u64(p, &v[n])) == NULL)
			break;
	}
	if (n <= CPU_IDLE || (pi = probe_inst(g, name)) == NULL)
		return;
	for (f = 0; f < n; f++)
		pinst_set(pi, f, (int64_t)v[f]);
}

/* The single-number lines that join the total line's instance. */
static const struct {
	const char	*key;		/* with its trailing space */
	unsigned	 field;
} cpu_keys[] = {
	{ "ctxt ",		CPU_CTXT },
	{ "intr ",		CPU_INTR },
	{ "procs_running ",	CPU_RUNNING },
	{ "procs_blocked ",	CPU_BLOCKED },
	{ "btime ",		CPU_BTIME },
};

/* "key N ...": set the key's field from the first number after it. */
static void
cpu_parse_key(const char *p)
{
	uint64_t	v;
	unsigned	i;
	size_t		len;

	for (i = 0; i < sizeof(cpu_keys) / sizeof(cpu_keys[0]); i++) {
		len = strlen(cpu_keys[i].key);
		if (strncmp(p, cpu_keys[i].key, len) != 0)
			continue;
		if (probe_parse_u64(p + len, &v) != NULL)
			pinst_set(probe_inst(&cpu_group, ""),
			    cpu_keys[i].field, (int64_t)v);
		return;
	}
}

static void
cpu_sample(const struct probe_conf *conf)
{
	const char	*p, *q;
	char		 name[16];
	size_t		 n;

	if (cpu_read() < 0)
		return;
	for (p = cpu_buf; *p != '\0'; p = q) {
		if ((q = strchr(p, '\n')) != NULL)
			q++;
		else
			q = p + strlen(p);
		if (strncmp(p, "cpu", 3) == 0) {
			if (p[3] == ' ') {
				cpu_parse_times(&cpu_group, "", p + 3);
				continue;
			}
			n = strspn(p + 3, "0123456789");
			if (n == 0 || n >= sizeof(name) || p[3 + n] != ' ')
				continue;
			memcpy(name, p + 3, n);
			name[n] = '\0';
			cpu_parse_times(&cpu_core_group, name, p + 3 + n);
			continue;
		}
		cpu_parse_key(p);
	}
}

const struct source src_cpu = {
	"cpu", cpu_groups, cpu_init, cpu_sample
};
