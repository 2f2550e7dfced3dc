/* SPDX-License-Identifier: ISC */
/*
 * The registry of metric sources, in the order their groups appear in the
 * schema.  How to add one: see probes/source.h.
 */
#include <stddef.h>

#include "source.h"

const struct source *const sources[] = {
	&src_cpu,
	&src_mem,
	&src_load,
	&src_disk,
	&src_net,
	&src_self,
	&src_ranks,
	&src_kstack,
	&src_delayacct,
	&src_ib,
	&src_lustre,
	&src_nfs,
	&src_numa,
	&src_cgroup,
	&src_nvgpu,
	&src_amdgpu,
	&src_rapl,
	&src_thermal,
	&src_power,
	&src_ipmi,
	&src_perf,
	&src_mpi,
	NULL
};
