/* SPDX-License-Identifier: ISC */
/*
 * numa: the node's NUMA nodes and where the job's processes keep their
 * memory.  Group "numa" has one instance per NUMA node ("node0", ...)
 * with the allocation counters of /sys/devices/system/node/nodeN/numastat
 * (pages: numa_hit, numa_miss, numa_foreign, interleave_hit, local_node,
 * other_node) and the node's memory from nodeN/meminfo ("Node 0 MemTotal:
 * 123 kB" lines), sent as bytes.  Nodes are listed at start-up; the
 * source is off on a kernel without NUMA support (no node directory).
 *
 * Group "ranknuma" has one instance per process the rank source reported
 * in this sample (so numa must come after ranks in the registry), named
 * by its pid like the rank, with fields n0 to n7: the bytes of its memory
 * on nodes 0 to 7, from /proc/PID/numa_maps, where each mapping's line
 * counts its pages per node ("N1=42") in pages of kernelpagesize_kB (huge
 * pages count as their size).  Nodes above 7 are not shown.  numa_maps
 * makes the kernel walk the process's page tables, which costs time in
 * proportion to its memory (tens of milliseconds for a rank of many
 * gigabytes), so a process is read when first reported and then every
 * NUMA_MAPS_EVERY samples (staggered by process, so the cost spreads out)
 * at the most, and further apart when reads are dear: reading every
 * process's placement may cost at most 1/NUMA_MAPS_SHARE of a CPU (a
 * process's next read waits at least its last read's time, times that
 * share, times the number of processes).  A process that did not run
 * since its last read (ranks_activity: one thread whose scheduler
 * statistics did not move) touched no page, and the kernel moves a
 * process's pages on its own faults (NUMA balancing) or under memory
 * pressure only: it is read again after NUMA_MAPS_IDLE samples.  In
 * between its last values are sent again.  numa_maps is
 * opened and closed each time (it is read rarely, and an open one would
 * pin the process's mm).  A process whose numa_maps cannot be read
 * (ptrace rules) has no ranknuma instance.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ranks.h"

enum {
	NUMA_HIT, NUMA_MISS, NUMA_FOREIGN, NUMA_INTERLEAVE, NUMA_LOCAL,
	NUMA_OTHER, NUMA_MEM_TOTAL, NUMA_MEM_FREE, NUMA_MEM_USED,
	NUMA_MEM_FILE, NUMA_MEM_ANON, NUMA_NFIELDS
};

static const struct field_def numa_fields[NUMA_NFIELDS] = {
	{ "numa_hit",		"count", PF_COUNTER },
	{ "numa_miss",		"count", PF_COUNTER },
	{ "numa_foreign",	"count", PF_COUNTER },
	{ "interleave_hit",	"count", PF_COUNTER },
	{ "local_node",		"count", PF_COUNTER },
	{ "other_node",		"count", PF_COUNTER },
	{ "mem_total",		"bytes", PF_GAUGE },
	{ "mem_free",		"bytes", PF_GAUGE },
	{ "mem_used",		"bytes", PF_GAUGE },
	{ "mem_file",		"bytes", PF_GAUGE },
	{ "mem_anon",		"bytes", PF_GAUGE },
};
static const struct group_def numa_group = {
	"numa", numa_fields, NUMA_NFIELDS
};

/* The numastat key and the meminfo key of each field. */
static const char *const numa_keys[NUMA_NFIELDS] = {
	"numa_hit", "numa_miss", "numa_foreign", "interleave_hit",
	"local_node", "other_node", "MemTotal", "MemFree", "MemUsed",
	"FilePages", "AnonPages"
};

#define RN_NODES	8	/* nodes a rank's placement shows */

static const struct field_def rn_fields[RN_NODES] = {
	{ "n0", "bytes", PF_GAUGE },
	{ "n1", "bytes", PF_GAUGE },
	{ "n2", "bytes", PF_GAUGE },
	{ "n3", "bytes", PF_GAUGE },
	{ "n4", "bytes", PF_GAUGE },
	{ "n5", "bytes", PF_GAUGE },
	{ "n6", "bytes", PF_GAUGE },
	{ "n7", "bytes", PF_GAUGE },
};
static const struct group_def rn_group = {
	"ranknuma", rn_fields, RN_NODES
};
static const struct group_def *numa_groups[] = {
	&numa_group, &rn_group, NULL
};

#define NUMA_NODES_MAX	1024
#define NUMA_MAPS_EVERY	10	/* samples between numa_maps reads */
#define NUMA_MAPS_SHARE	100	/* at most 1/100 of a CPU for them */
#define NUMA_MAPS_IDLE	60	/* samples between reads of one that
				 * did not run */
#define NUMA_DIR	"/sys/devices/system/node"

struct numa_node {
	int	id;
	int	stat_fd;
	int	meminfo_fd;
	char	name[16];
};

/* A process's placement as its numa_maps last said. */
struct numa_rank {
	pid_t		pid;
	uint64_t	start;
	uint64_t	read_at;	/* sample of the last read */
	uint64_t	act_at;		/* ranks_activity then */
	uint64_t	next_us;	/* not again before (monotonic) */
	int		valid;		/* the last read succeeded */
	int		known;		/* pid and start are set */
	int64_t		bytes[RN_NODES];
};

static struct numa_node	numa_nodes[NUMA_NODES_MAX];
static unsigned		numa_nnodes;
static uint8_t		numa_present[RN_NODES];	/* node k exists */
static struct numa_rank	numa_ranks[RANKS_MAX];
static uint64_t		numa_seq;
static int64_t		numa_page_kb;
static char		numa_buf[8192];
static char		numa_maps_buf[64 * 1024];

/* On when sysfs lists a NUMA node; its files are opened. */
static int
numa_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	DIR		*d;
	struct dirent	*de;
	struct numa_node *nn;
	char		 path[4096];
	const char	*s;
	uint64_t	 id;

	numa_page_kb = conf->page_size / 1024;
	if ((d = opendir(probe_path(path, sizeof(path), NUMA_DIR))) == NULL) {
		snprintf(why, whysz, "no NUMA support (no %s)", NUMA_DIR);
		return -1;
	}
	while ((de = readdir(d)) != NULL && numa_nnodes < NUMA_NODES_MAX) {
		if (strncmp(de->d_name, "node", 4) != 0 ||
		    de->d_name[4] < '0' || de->d_name[4] > '9' ||
		    (s = probe_parse_u64(de->d_name + 4, &id)) == NULL ||
		    *s != '\0' || id > 65535)
			continue;
		nn = &numa_nodes[numa_nnodes];
		nn->id = (int)id;
		snprintf(nn->name, sizeof(nn->name), "node%d", nn->id);
		snprintf(path, sizeof(path), NUMA_DIR "/node%d/numastat",
		    nn->id);
		nn->stat_fd = probe_open(path);
		snprintf(path, sizeof(path), NUMA_DIR "/node%d/meminfo",
		    nn->id);
		nn->meminfo_fd = probe_open(path);
		if (nn->stat_fd < 0 && nn->meminfo_fd < 0)
			continue;
		if (id < RN_NODES)
			numa_present[id] = 1;
		numa_nnodes++;
	}
	closedir(d);
	if (numa_nnodes == 0) {
		snprintf(why, whysz, "no NUMA nodes in %s", NUMA_DIR);
		return -1;
	}
	return 0;
}

/* "Node 0 MemTotal:       16326972 kB": the value of key, in bytes. */
static int
numa_meminfo(const char *buf, const char *key, int64_t *v)
{
	const char	*p, *q;
	uint64_t	 n;
	size_t		 klen = strlen(key);

	for (p = buf; *p != '\0'; p = q) {
		if ((q = strchr(p, '\n')) != NULL)
			q++;
		else
			q = p + strlen(p);
		if (strncmp(p, "Node ", 5) != 0 ||
		    (p = probe_parse_u64(p + 5, &n)) == NULL)
			continue;
		p = probe_skip_space(p);
		if (strncmp(p, key, klen) != 0 || p[klen] != ':' ||
		    probe_parse_u64(p + klen + 1, &n) == NULL)
			continue;
		*v = (int64_t)n * 1024;
		return 0;
	}
	return -1;
}

/* The node counters and memory. */
static void
numa_sample_nodes(void)
{
	struct numa_node	*nn;
	struct pinst		*pi;
	uint64_t		 v;
	int64_t			 b;
	unsigned		 i, f;

	for (i = 0; i < numa_nnodes; i++) {
		nn = &numa_nodes[i];
		pi = NULL;
		if (probe_pread(nn->stat_fd, numa_buf, sizeof(numa_buf)) > 0 &&
		    (pi = probe_inst(&numa_group, nn->name)) != NULL) {
			for (f = NUMA_HIT; f <= NUMA_OTHER; f++) {
				if (probe_find_u64(numa_buf, numa_keys[f],
				    &v) == 0)
					pinst_set(pi, f, (int64_t)v);
			}
		}
		if (probe_pread(nn->meminfo_fd, numa_buf,
		    sizeof(numa_buf)) <= 0)
			continue;
		if (pi == NULL && (pi = probe_inst(&numa_group, nn->name)) ==
		    NULL)
			continue;
		for (f = NUMA_MEM_TOTAL; f < NUMA_NFIELDS; f++) {
			if (numa_meminfo(numa_buf, numa_keys[f], &b) == 0)
				pinst_set(pi, f, b);
		}
	}
}

/* a + b, or INT64_MAX when that does not fit (both at least 0). */
static uint64_t
numa_sat_add(uint64_t a, uint64_t b)
{
	return a > (uint64_t)INT64_MAX - b ? (uint64_t)INT64_MAX : a + b;
}

/* a * b, or INT64_MAX when that does not fit. */
static uint64_t
numa_sat_mul(uint64_t a, uint64_t b)
{
	return b != 0 && a > (uint64_t)INT64_MAX / b ? (uint64_t)INT64_MAX :
	    a * b;
}

/*
 * Add up one numa_maps line: "N1=42" per node, in pages of
 * "kernelpagesize_kB=4" (the base page when missing).  A word counts only
 * when it is all of that form.  The mapped file's name ("file=/path") is
 * skipped whole: the kernel writes space, tab, newline and '=' in it as
 * octal escapes ("\040"), so it is one word, and a file named
 * "x N0=99999999999" adds nothing.  Sums and products saturate at
 * INT64_MAX, whatever the counts say.
 */
static void
numa_maps_line(const char *p, int64_t *bytes)
{
	uint64_t	pages[RN_NODES] = { 0 }, node, n, kb;
	uint64_t	pkb = (uint64_t)numa_page_kb;
	const char	*q, *end;
	unsigned	k;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		end = p + strcspn(p, " ");
		if (strncmp(p, "file=", 5) == 0)
			;	/* the name: never parsed */
		else if (p[0] == 'N' && (q = probe_parse_u64(p + 1, &node)) !=
		    NULL && *q == '=' && (q = probe_parse_u64(q + 1, &n)) ==
		    end) {
			if (node < RN_NODES)
				pages[node] = numa_sat_add(pages[node], n);
		} else if (strncmp(p, "kernelpagesize_kB=", 18) == 0 &&
		    (q = probe_parse_u64(p + 18, &kb)) == end)
			pkb = kb;
		p = end;
	}
	for (k = 0; k < RN_NODES; k++)
		bytes[k] = (int64_t)numa_sat_add((uint64_t)bytes[k],
		    numa_sat_mul(numa_sat_mul(pages[k], pkb), 1024));
}

/* Read /proc/PID/numa_maps, a line at a time; -1 when it cannot be. */
static int
numa_maps_read(pid_t pid, int64_t *bytes)
{
	char	 path[64], *p, *nl;
	size_t	 have = 0;
	ssize_t	 n;
	int	 fd, skipping = 0;

	memset(bytes, 0, RN_NODES * sizeof(*bytes));
	snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)pid);
	if ((fd = probe_open(path)) < 0)
		return -1;
	for (;;) {
		n = read(fd, numa_maps_buf + have, sizeof(numa_maps_buf) - 1 -
		    have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		numa_maps_buf[have] = '\0';
		for (p = numa_maps_buf; (nl = strchr(p, '\n')) != NULL;
		    p = nl + 1) {
			*nl = '\0';
			if (!skipping)
				numa_maps_line(p, bytes);
			skipping = 0;
		}
		have -= (size_t)(p - numa_maps_buf);
		memmove(numa_maps_buf, p, have);
		/* A line longer than the buffer: skip to its end. */
		if (have == sizeof(numa_maps_buf) - 1) {
			have = 0;
			skipping = 1;
		}
	}
	close(fd);
	if (have > 0 && !skipping) {
		numa_maps_buf[have] = '\0';
		numa_maps_line(numa_maps_buf, bytes);
	}
	return 0;
}

/* Read a process's placement now; a read that took long puts the next
 * one far off. */
static void
numa_rank_read(struct numa_rank *nr, unsigned slot, unsigned nprocs)
{
	uint64_t	t0, t1;

	nr->act_at = ranks_activity(slot);
	t0 = probe_mono_us();
	nr->valid = numa_maps_read(nr->pid, nr->bytes) == 0;
	t1 = probe_mono_us();
	nr->read_at = numa_seq;
	nr->next_us = t1 + (t1 - t0) * NUMA_MAPS_SHARE *
	    (nprocs > 0 ? nprocs : 1);
}

/* The placement of each process the rank source reported. */
static void
numa_sample_ranks(void)
{
	struct numa_rank	*nr;
	struct pinst		*pi;
	char			 name[16];
	unsigned		 it = 0, k, nprocs = 0;
	pid_t			 pid;
	uint64_t		 start, now = probe_mono_us();

	while (ranks_reported(&it, &pid, &start) == 0)
		nprocs++;
	it = 0;
	while (ranks_reported(&it, &pid, &start) == 0) {
		nr = &numa_ranks[it - 1];
		if (!nr->known || nr->pid != pid || nr->start != start) {
			nr->known = 1;
			nr->pid = pid;
			nr->start = start;
			numa_rank_read(nr, it - 1, nprocs);
		} else if ((numa_seq + it) % NUMA_MAPS_EVERY == 0 &&
		    numa_seq != nr->read_at && now >= nr->next_us &&
		    (ranks_activity(it - 1) != nr->act_at ||
		    numa_seq - nr->read_at >= NUMA_MAPS_IDLE))
			numa_rank_read(nr, it - 1, nprocs);
		if (!nr->valid)
			continue;
		snprintf(name, sizeof(name), "%d", (int)pid);
		if ((pi = probe_inst(&rn_group, name)) == NULL)
			continue;
		for (k = 0; k < RN_NODES; k++) {
			if (numa_present[k] || nr->bytes[k] != 0)
				pinst_set(pi, k, nr->bytes[k]);
		}
	}
}

/* The nodes, then the ranks' placement. */
static void
numa_sample(const struct probe_conf *conf)
{
	numa_seq++;
	numa_sample_nodes();
	numa_sample_ranks();
}

const struct source src_numa = {
	"numa", numa_groups, numa_init, numa_sample
};
