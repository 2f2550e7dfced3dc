/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the probe's parsers of what other users control on
 * a node (security review F3, F16): a cgroup path from /proc/PID/cgroup,
 * judged by ranks_find_cgroup_path for job 123 (with and without the
 * owner's uid); a line of /proc/PID/numa_maps, summed by numa_maps_line;
 * and, as comm is the process's to set, a /proc/PID/stat line through
 * ranks_parse_stat; and a process's environment (NUL-separated entries, as
 * /proc/PID/environ gives it), read by ranks_find_env_entry and judged by
 * ranks_find_own.  The probe's files are compiled in whole so that their
 * static parsers can be called.  The low three bits of the input's first
 * byte pick the parser: 1 or 5 cgroup, 2 or 6 stat, 7 environ, 3 a
 * Cpus_allowed_list value (ranks_affinity), else numa_maps.
 * Properties checked beyond the sanitizers: a job directory found is a
 * prefix of the path that ends at a component boundary with the job's
 * component (job_123, or PBS's 123.SERVER); with the owner's uid a path is
 * never more the job's than without it; the bytes per NUMA node never go
 * negative (sums saturate); a parsed comm fits its buffer; a rank id is
 * the value of the strongest rank variable set (RANK only beside
 * WORLD_SIZE), never negative, with a world size positive or unknown,
 * and a process that inherited every variable from its parent has none;
 * an affinity parsed is a positive count, and where it has bits, as many
 * bits as the count.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/util.c"
#include "../../probes/listpids.c"
#include "../../probes/ranks-find.c"
#include "../../probes/src-ranks.c"
#include "../../probes/src-numa.c"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/*
 * What the two files call in the rest of the probe.  The parsers fuzzed
 * here never reach these (they read no file and track no process), so
 * reaching one is a bug of this target: abort.
 */
struct pinst *
probe_inst(const struct group_def *g, const char *name)
{
	abort();
}

void
pinst_set(struct pinst *pi, unsigned f, int64_t v)
{
	abort();
}

void
probe_event(int level, const char *code, const char *fmt, ...)
{
	abort();
}

static void
fuzz_cgroup(const char *path, size_t len)
{
	const char	*c;
	size_t		 dirlen = 0, dl2 = 0, n;
	uint32_t	 step, s2;
	int		 r, owned;

	r = ranks_find_cgroup_path(path, len, "123", -1, &dirlen, &step);
	owned = ranks_find_cgroup_path(path, len, "123", 1000, &dl2, &s2);
	if (owned > 0 && (r <= 0 || dl2 != dirlen))
		abort();	/* the owner's uid only ever refuses */
	if (r <= 0)
		return;
	if (dirlen < 4 || dirlen > len || (dirlen < len &&
	    path[dirlen] != '/'))
		abort();
	/* The last component is job_123, or PBS's 123 or 123.SERVER. */
	for (c = path + dirlen; c > path && c[-1] != '/'; c--)
		;
	n = (size_t)(path + dirlen - c);
	if (!(n == 7 && memcmp(c, "job_123", 7) == 0) && !(n >= 3 &&
	    memcmp(c, "123", 3) == 0 && (n == 3 || c[3] == '.')))
		abort();
}

static void
fuzz_environ(const char *buf, size_t len)
{
	struct rf_env	 env;
	const char	*p = buf, *end = buf + len, *nul;
	unsigned	 i;

	memset(&env, 0, sizeof(env));
	memset(env.vals, 0xff, sizeof(env.vals));
	memset(env.sizes, 0xff, sizeof(env.sizes));
	rf_job = "123";
	rf_joblen = 3;
	while (p < end) {
		if ((nul = memchr(p, '\0', (size_t)(end - p))) == NULL)
			nul = end;
		ranks_find_env_entry(&env, p, (size_t)(nul - p));
		p = nul + 1;
	}
	ranks_find_own(&env, NULL);
	if ((env.rank >= 0) != (env.rankprio < RF_NVARS) ||
	    (env.rank >= 0 && env.rank != env.vals[env.rankprio]) ||
	    env.world == 0 || env.world < -1 ||
	    (env.rank < 0 && env.world != -1))
		abort();
	if (env.rankprio == RF_RANK_TORCH && env.sizes[RF_RANK_TORCH] <= 0)
		abort();
	for (i = 0; i < RF_NVARS; i++) {
		if (env.vals[i] < -1 || env.sizes[i] == 0 || env.sizes[i] < -1 ||
		    (i < env.rankprio && env.vals[i] >= 0))
			abort();	/* not the strongest set */
	}
	/* Everything inherited from a parent with the same values. */
	ranks_find_own(&env, env.vals);
	if (env.rank != -1 || env.rankprio != RANKS_PRIO_NONE)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static char		line[65536];
	struct ranks_stat	st;
	int64_t			bytes[RN_NODES];
	unsigned		k;

	if (len < 1 || len > sizeof(line))
		return 0;
	memcpy(line, data + 1, len - 1);
	line[len - 1] = '\0';
	if ((data[0] & 7) == 7) {
		fuzz_environ(line, len - 1);
		return 0;
	}
	if ((data[0] & 3) == 1) {
		fuzz_cgroup(line, len - 1);
		return 0;
	}
	if ((data[0] & 7) == 3) {
		/* status's Cpus_allowed_list (the kernel's, but parsed). */
		struct ranks_proc	rp;

		memset(&rp, 0, sizeof(rp));
		rp.allowed = rp.amask = -1;
		ranks_affinity(&rp, line);
		if (rp.allowed == 0 || rp.allowed < -1 || rp.amask < -1 ||
		    (rp.allowed < 0 && rp.amask >= 0) || (rp.amask >= 0 &&
		    __builtin_popcountll((unsigned long long)rp.amask) !=
		    rp.allowed))
			abort();
		return 0;
	}
	if ((data[0] & 3) == 2) {
		/* /proc/PID/stat, whose comm the process sets. */
		if (ranks_parse_stat(line, &st) == 0 &&
		    strlen(st.comm) >= sizeof(st.comm))
			abort();
		return 0;
	}
	numa_page_kb = 4;
	memset(bytes, 0, sizeof(bytes));
	numa_maps_line(line, bytes);
	numa_maps_line(line, bytes);	/* sums across lines saturate too */
	for (k = 0; k < RN_NODES; k++) {
		if (bytes[k] < 0)
			abort();
	}
	return 0;
}
