/* SPDX-License-Identifier: ISC */
/*
 * detect-gpu: GPUs tied to ranks, and the gpu-idle verdict.  Kept apart
 * from detect.c (its own state, its own file): it reads only the node's
 * model, never the history.
 *
 * A rank's GPUs are the probe's "gpuproc" instances whose pid is the
 * rank's (NVML names processes by their host pid, so a rank in a
 * container, shown by its host pid, matches too): the GPU index, the SM
 * utilisation NVML sampled for that process and its GPU memory.
 *
 * gpu-idle: a GPU the probe marks allocated to the job ("gpu.alloc" 1,
 * from the ranks' SLURM_STEP_GPUS, SLURM_JOB_GPUS or CUDA_VISIBLE_DEVICES)
 * on which no rank of the node has a compute process for
 * DETECT_GPU_IDLE_SAMPLES samples in a row: one event "gpu-idle" (warn)
 * naming the node and the GPU's index, "gpu-idle-cleared" when a rank
 * uses it again or it is no longer listed.  The node's record carries the
 * flag "gpu-idle" meanwhile.
 */
#ifndef JOBTOP_DETECT_GPU_H
#define JOBTOP_DETECT_GPU_H

#include <stdint.h>

#include "detect.h"
#include "model.h"

#define DETECT_GPU_IDLE_SAMPLES	5
#define DETECT_GPU_MAX		64	/* GPU indexes 0..63 */
#define DETECT_GPU_FLAG		"gpu-idle"

struct rank_gpu {
	int64_t		 gpu;		/* its index on the node */
	double		 util;		/* SM %, NaN unknown */
	double		 mem;		/* bytes, NaN unknown */
};

/* The GPUs process pid uses on the node of m, up to max: how many. */
unsigned	 rank_gpus(const struct node_model *, int64_t,
		     struct rank_gpu *, unsigned);
/* "0:37% 1.0G" for a rank's GPUs ("1:- 2.0M" without a sample, "," between
 * GPUs), "" for none. */
void		 rank_gpus_text(const struct rank_gpu *, unsigned, char *,
		     size_t);

struct detect_gpu;

struct detect_gpu *detect_gpu_new(void);
void		 detect_gpu_free(struct detect_gpu *);
/* A copy of the whole state (a replay's snapshot). */
struct detect_gpu *detect_gpu_clone(const struct detect_gpu *);
/* Node i (named name) applied a sample at ms: judge its GPUs, telling cb
 * a raised or cleared gpu-idle as a detect_event (flag 0, code
 * "gpu-idle" or "gpu-idle-cleared"). */
void		 detect_gpu_sample(struct detect_gpu *, int, const char *,
		     const struct node_model *, uint64_t,
		     void (*)(void *, const struct detect_event *), void *);
/* The GPUs the scheduler allocated the job on node i (bit k: its index
 * k; -1 unknown): allocated too where the node's GPUs show its indexes
 * are NVML's (no MIG mode, every known device minor equal to its index),
 * and only GPUs the node has. */
void		 detect_gpu_set_sched(struct detect_gpu *, int, int64_t);
/* The GPUs of node i flagged gpu-idle now, one bit per index. */
uint64_t	 detect_gpu_idle(const struct detect_gpu *, int);

#endif
