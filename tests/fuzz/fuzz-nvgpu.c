/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the nvgpu source's line parser: what jobtop-nvml or
 * nvidia-smi writes into the probe's pipe (a driver's text, and the names
 * of GPUs and processes it reports), through nv_stream_line, which also
 * takes the helper's "proc, ...", "mig, ..." and "end" lines.  The probe's files are
 * compiled in whole so that the static parser can be called.  The input's
 * first byte picks the backend (bit 0: the helper, else nvidia-smi) and
 * whether the stream has a throttle column (bit 1); the rest is split into
 * lines at '\n', each parsed as the probe parses a drained line.
 * Properties checked beyond the sanitizers: every GPU slot and process
 * string is terminated and within its buffer; a GPU marked with its UUID
 * has one starting "GPU-"; memory values are non-negative whole MiB; the
 * process lists never exceed NV_PROCS_MAX and every listed process has a
 * positive pid and a "GPU-" UUID; the MIG lists never exceed NV_MIGS_MAX,
 * every MIG instance has a "GPU-" parent, a GPU instance id >= 0, a MIG
 * UUID empty or starting "MIG-" and memory in whole MiB.  Seeds: the real H100 outputs under
 * tests/data/nvml/h100-580.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/util.c"
#include "../../probes/src-nvgpu.c"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The sampling half of the file is never reached from the parser; the
 * first GPU line announces the backend through probe_event. */
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
pinst_set_str(struct pinst *pi, unsigned f, const char *s)
{
	abort();
}

void
pinst_set_text(struct pinst *pi, unsigned f, const char *s, int changed)
{
	abort();
}

/* The allocated GPUs (nv_alloc) are read when sampling, never here. */
int
ranks_reported(unsigned *it, pid_t *pid, uint64_t *start)
{
	abort();
}

void
probe_event(int level, const char *code, const char *fmt, ...)
{
	(void)level;
	if (code == NULL || fmt == NULL)
		abort();
}

static void
check_str(const char *s, size_t size)
{
	if (memchr(s, '\0', size) == NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char	 line[8192];
	size_t		 i, n;
	const uint8_t	*p, *e, *nl;

	if (size < 1)
		return 0;
	memset(nv_gpus, 0, sizeof(nv_gpus));
	nv_nprocs = nv_npend = 0;
	nv_nmigs = nv_nmpend = 0;
	nv_stream_lines = 0;
	nv_backend = (data[0] & 1) ? NV_BE_NVML : NV_BE_SMI;
	nv_variant = (data[0] & 2) ? 0 : 2;	/* 2: no throttle name */
	p = data + 1;
	e = data + size;
	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		n = (size_t)((nl != NULL ? nl : e) - p);
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		nv_stream_line(line, 1000);
		p = nl != NULL ? nl + 1 : e;
	}
	for (i = 0; i < NV_GPUS_MAX; i++) {
		const struct nv_gpu *g = &nv_gpus[i];

		check_str(g->uuid, sizeof(g->uuid));
		check_str(g->name, sizeof(g->name));
		if ((g->present & ((uint64_t)1 << NV_UUID)) &&
		    strncmp(g->uuid, "GPU-", 4) != 0)
			abort();
		if ((g->present & ((uint64_t)1 << NV_MEM_USED)) &&
		    (g->v[NV_MEM_USED] < 0 || g->v[NV_MEM_USED] % 1048576))
			abort();
	}
	if (nv_nprocs > NV_PROCS_MAX || nv_npend > NV_PROCS_MAX)
		abort();
	for (i = 0; i < nv_nprocs; i++) {
		check_str(nv_procs[i].uuid, sizeof(nv_procs[i].uuid));
		if (nv_procs[i].pid <= 0 ||
		    strncmp(nv_procs[i].uuid, "GPU-", 4) != 0)
			abort();
	}
	if (nv_nmigs > NV_MIGS_MAX || nv_nmpend > NV_MIGS_MAX)
		abort();
	for (i = 0; i < nv_nmigs; i++) {
		const struct nv_mig *mg = &nv_migs[i];

		check_str(mg->uuid, sizeof(mg->uuid));
		check_str(mg->mig, sizeof(mg->mig));
		check_str(mg->name, sizeof(mg->name));
		if (strncmp(mg->uuid, "GPU-", 4) != 0 || mg->gi < 0 ||
		    (mg->mig[0] != '\0' && strncmp(mg->mig, "MIG-", 4) != 0) ||
		    (mg->used >= 0 && mg->used % 1048576) ||
		    (mg->total >= 0 && mg->total % 1048576))
			abort();
	}
	check_str(nv_diag, sizeof(nv_diag));
	return 0;
}
