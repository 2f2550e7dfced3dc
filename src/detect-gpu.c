/* SPDX-License-Identifier: ISC */
/*
 * detect-gpu: GPUs tied to ranks, and the gpu-idle verdict (see
 * detect-gpu.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect-gpu.h"
#include "out.h"
#include "proto.h"
#include "xmalloc.h"

struct detect_gpu_node {
	unsigned	 unused[DETECT_GPU_MAX];	/* samples in a row */
	uint64_t	 idle;				/* flagged */
	uint64_t	 sched;		/* the scheduler's GPU indexes */
	int		 sched_known;
};

struct detect_gpu {
	struct detect_gpu_node	*nodes;
	int			 nnodes;
};

unsigned
rank_gpus(const struct node_model *m, int64_t pid, struct rank_gpu *out,
    unsigned max)
{
	const struct minst	*mi;
	int64_t			 p, gpu, v;
	unsigned		 n = 0;
	int			 g, fg, fp, fm, fu;

	if (m->schema == NULL || (g = model_group_index(m, "gpuproc")) < 0 ||
	    (fg = model_field_index(m, (unsigned)g, "gpu")) < 0 ||
	    (fp = model_field_index(m, (unsigned)g, "pid")) < 0)
		return 0;
	fm = model_field_index(m, (unsigned)g, "mem_used");
	fu = model_field_index(m, (unsigned)g, "util");
	for (mi = m->gfirst[g]; mi != NULL && n < max; mi = mi->gnext) {
		if (!model_value(mi, (unsigned)fp, &p) || p != pid ||
		    !model_value(mi, (unsigned)fg, &gpu))
			continue;
		out[n].gpu = gpu;
		out[n].util = fu >= 0 && model_value(mi, (unsigned)fu, &v) ?
		    (double)v : NAN;
		out[n].mem = fm >= 0 && model_value(mi, (unsigned)fm, &v) ?
		    (double)v : NAN;
		n++;
	}
	return n;
}

void
rank_gpus_text(const struct rank_gpu *rg, unsigned n, char *buf,
    size_t size)
{
	static const char	 units[] = "BKMGTPE";
	size_t			 len = 0;
	unsigned		 k, u;
	double			 v;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (k = 0; k < n && len < size; k++) {
		len += (size_t)snprintf(buf + len, size - len, "%s%lld:",
		    k > 0 ? "," : "", (long long)rg[k].gpu);
		if (len < size && isfinite(rg[k].util))
			len += (size_t)snprintf(buf + len, size - len, "%.0f%%",
			    rg[k].util);
		else if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "-");
		if (len < size && isfinite(rg[k].mem)) {
			for (v = rg[k].mem, u = 0; v >= 1024 && u < 6; u++)
				v /= 1024;
			len += (size_t)snprintf(buf + len, size - len,
			    u == 0 ? " %.0f%c" : " %.1f%c", v, units[u]);
		}
	}
}

struct detect_gpu *
detect_gpu_new(void)
{
	return xcalloc(1, sizeof(struct detect_gpu));
}

void
detect_gpu_free(struct detect_gpu *d)
{
	if (d == NULL)
		return;
	free(d->nodes);
	free(d);
}

struct detect_gpu *
detect_gpu_clone(const struct detect_gpu *d)
{
	struct detect_gpu	*c = detect_gpu_new();

	if (d != NULL && d->nnodes > 0) {
		c->nodes = xreallocarray(NULL, (size_t)d->nnodes,
		    sizeof(*c->nodes));
		memcpy(c->nodes, d->nodes, (size_t)d->nnodes *
		    sizeof(*c->nodes));
		c->nnodes = d->nnodes;
	}
	return c;
}

uint64_t
detect_gpu_idle(const struct detect_gpu *d, int i)
{
	return d != NULL && i >= 0 && i < d->nnodes ? d->nodes[i].idle : 0;
}

static void
detect_gpu_emit(int node, const char *name, int64_t gpu, int raised,
    int noranks, uint64_t ms, void (*cb)(void *, const struct detect_event *),
    void *arg)
{
	struct detect_event	ev;

	if (cb == NULL)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = ms;
	ev.node = node;
	ev.rank = ev.pid = -1;
	ev.raised = raised;
	ev.level = raised ? EV_WARN : EV_INFO;
	snprintf(ev.code, sizeof(ev.code), "%s%s", DETECT_GPU_FLAG,
	    raised ? "" : "-cleared");
	if (raised && noranks)
		snprintf(ev.text, sizeof(ev.text), "%s GPU %lld is allocated "
		    "to the job but no rank used it for %u samples: the job "
		    "runs no rank on %s; check the launch (srun -N, "
		    "--ntasks-per-node) or request fewer nodes", name,
		    (long long)gpu, DETECT_GPU_IDLE_SAMPLES, name);
	else if (raised)
		snprintf(ev.text, sizeof(ev.text), "%s GPU %lld is allocated "
		    "to the job but no rank used it for %u samples: check "
		    "that each rank selects its own GPU (LOCAL_RANK, "
		    "--gpus-per-task) or request fewer GPUs", name,
		    (long long)gpu, DETECT_GPU_IDLE_SAMPLES);
	else
		snprintf(ev.text, sizeof(ev.text), "%s GPU %lld no longer "
		    "idle: a rank uses it, or it is no longer the job's", name,
		    (long long)gpu);
	cb(arg, &ev);
}

/* Does node m run a rank of the job (a process that is not a launcher's
 * helper)? */
static int
detect_gpu_has_rank(const struct node_model *m)
{
	const struct minst	*r;
	int64_t			 role;
	int			 rg, rfh;

	if ((rg = model_group_index(m, OUT_RANK_GROUP)) < 0)
		return 0;
	rfh = model_field_index(m, (unsigned)rg, "helper");
	for (r = m->gfirst[rg]; r != NULL; r = r->gnext)
		if (rfh < 0 || !model_value(r, (unsigned)rfh, &role) ||
		    role == 0)
			return 1;
	return 0;
}

/* The ranks' pids of node m used on GPU index bits: a mask of the GPUs
 * some rank (not a launcher's helper) has a compute process on. */
static uint64_t
detect_gpu_used(const struct node_model *m)
{
	const struct minst	*mi, *r;
	int64_t			 p, gpu, rp, role;
	uint64_t		 used = 0;
	int			 g, fg, fp, rg, rfp, rfh;

	if ((g = model_group_index(m, "gpuproc")) < 0 ||
	    (fg = model_field_index(m, (unsigned)g, "gpu")) < 0 ||
	    (fp = model_field_index(m, (unsigned)g, "pid")) < 0 ||
	    (rg = model_group_index(m, OUT_RANK_GROUP)) < 0 ||
	    (rfp = model_field_index(m, (unsigned)rg, "pid")) < 0)
		return 0;
	rfh = model_field_index(m, (unsigned)rg, "helper");
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if (!model_value(mi, (unsigned)fp, &p) ||
		    !model_value(mi, (unsigned)fg, &gpu) || gpu < 0 ||
		    gpu >= DETECT_GPU_MAX)
			continue;
		for (r = m->gfirst[rg]; r != NULL; r = r->gnext) {
			if (rfh >= 0 && model_value(r, (unsigned)rfh, &role) &&
			    role != 0)
				continue;
			if (model_value(r, (unsigned)rfp, &rp) && rp == p) {
				used |= (uint64_t)1 << gpu;
				break;
			}
		}
	}
	return used;
}

/* Node i's state, made on first use. */
static struct detect_gpu_node *
detect_gpu_node(struct detect_gpu *d, int i)
{
	if (i >= d->nnodes) {
		d->nodes = xreallocarray(d->nodes, (size_t)i + 1,
		    sizeof(*d->nodes));
		memset(d->nodes + d->nnodes, 0, (size_t)(i + 1 - d->nnodes) *
		    sizeof(*d->nodes));
		d->nnodes = i + 1;
	}
	return &d->nodes[i];
}

void
detect_gpu_set_sched(struct detect_gpu *d, int i, int64_t mask)
{
	struct detect_gpu_node	*dn;

	if (d == NULL || i < 0)
		return;
	dn = detect_gpu_node(d, i);
	dn->sched = mask >= 0 ? (uint64_t)mask : 0;
	dn->sched_known = mask >= 0;
}

/*
 * The scheduler's indexes are the probe's (NVML's) only where no GPU of
 * the node is in MIG mode (Slurm then counts MIG instances) and no GPU's
 * device minor differs from its index (a hand-written gres.conf numbers
 * by /dev/nvidiaN): the probe's nv_slurm_indexes_ok, from its values.
 * The GPUs the node has into *have.
 */
static int
detect_gpu_sched_ok(const struct node_model *m, uint64_t *have)
{
	const struct minst	*mi;
	int64_t			 v;
	int			 g, fm, k;

	*have = 0;
	if ((g = model_group_index(m, "gpumig")) >= 0 && m->gfirst[g] != NULL)
		return 0;
	if ((g = model_group_index(m, "gpu")) < 0)
		return 0;
	fm = model_field_index(m, (unsigned)g, "minor");
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		k = atoi(mi->name);
		if (k < 0 || k >= DETECT_GPU_MAX)
			continue;
		if (fm >= 0 && model_value(mi, (unsigned)fm, &v) && v != k)
			return 0;
		*have |= (uint64_t)1 << k;
	}
	return 1;
}

void
detect_gpu_sample(struct detect_gpu *d, int i, const char *name,
    const struct node_model *m, uint64_t ms,
    void (*cb)(void *, const struct detect_event *), void *arg)
{
	struct detect_gpu_node	*dn;
	const struct minst	*mi;
	uint64_t		 alloc = 0, used, bit, have;
	int64_t			 v;
	int			 g, fa, k;

	if (d == NULL || i < 0 || m->schema == NULL)
		return;
	dn = detect_gpu_node(d, i);
	if ((g = model_group_index(m, "gpu")) >= 0 &&
	    (fa = model_field_index(m, (unsigned)g, "alloc")) >= 0) {
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			k = atoi(mi->name);
			if (k >= 0 && k < DETECT_GPU_MAX &&
			    model_value(mi, (unsigned)fa, &v) && v == 1)
				alloc |= (uint64_t)1 << k;
		}
	}
	/* The scheduler's allocation covers a node where no rank says,
	 * and GPUs of the job beside a step's own. */
	if (dn->sched_known && detect_gpu_sched_ok(m, &have))
		alloc |= dn->sched & have;
	used = detect_gpu_used(m);
	for (k = 0; k < DETECT_GPU_MAX; k++) {
		bit = (uint64_t)1 << k;
		if ((alloc & bit) != 0 && (used & bit) == 0) {
			if (dn->unused[k] < DETECT_GPU_IDLE_SAMPLES)
				dn->unused[k]++;
			if (dn->unused[k] >= DETECT_GPU_IDLE_SAMPLES &&
			    (dn->idle & bit) == 0) {
				dn->idle |= bit;
				detect_gpu_emit(i, name, k, 1,
				    !detect_gpu_has_rank(m), ms, cb, arg);
			}
			continue;
		}
		dn->unused[k] = 0;
		if ((dn->idle & bit) != 0) {
			dn->idle &= ~bit;
			detect_gpu_emit(i, name, k, 0, 0, ms, cb, arg);
		}
	}
}
