/* placeholder until the cpu source lands */
#include <stdio.h>
#include "source.h"
static const struct group_def *cpu_groups[] = { NULL };
static int cpu_init(const struct probe_conf *c, char *why, size_t n) { snprintf(why, n, "not built"); return -1; }
static void cpu_sample(const struct probe_conf *c) { }
const struct source src_cpu = { "cpu", cpu_groups, cpu_init, cpu_sample };
