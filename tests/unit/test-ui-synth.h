/* SPDX-License-Identifier: ISC */
/*
 * test-ui-synth: synthetic nodes for the detector and UI tests and the UI
 * benchmark.  A synthetic node writes a real probe stream (HELLO, SCHEMA,
 * SAMPLEs with the protocol writers of src/proto.h) from values the test
 * sets per sample (CPU busy, each rank's %CPU, I/O and state) and feeds it
 * to a real stream decoder, so the model the code under test reads is
 * exactly what a probe would produce.  synth_node_extra adds the optional
 * sources' groups as the probe sends them (gpu, gpuproc, ib, llite, nfs,
 * rapl, temp, rankperf, ranknuma, amdgpu) with counters that advance at the rates
 * the test sets; n->mpi adds the mpi source's rankmpi group, whose
 * counters advance by what the test puts in each rank's mpi_dk and
 * mpi_dm.  Header only (static inline).
 */
#ifndef JOBTOP_TEST_UI_SYNTH_H
#define JOBTOP_TEST_UI_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "proto.h"
#include "stream.h"

#define SYNTH_RANKS_MAX		64
#define SYNTH_BUF		(64 << 10)
#define SYNTH_START_MS		1700000000000ULL

enum { SG_CPU, SG_MEM, SG_LOAD, SG_DISK, SG_NET, SG_SELF, SG_RANK, SG_CGROUP,
    SG_N, SG_GPU = SG_N, SG_GPUPROC, SG_IB, SG_LLITE, SG_NFS, SG_RAPL,
    SG_TEMP, SG_RANKPERF, SG_RANKNUMA, SG_AMDGPU, SG_NALL };
enum { SX_GPU = 0, SX_PROC = 2, SX_IB = 5, SX_LLITE, SX_NFS, SX_PKG, SX_DRAM,
    SX_TEMP, SX_AMD = SX_TEMP + 3, SX_PERF = SX_TEMP + 4, SX_NUMA = SX_PERF + 64, SX_N = SX_NUMA + 64 };
enum { SC_USER, SC_SYSTEM, SC_IDLE, SC_IOWAIT, SC_N };
enum { SM_TOTAL, SM_AVAIL, SM_N };
enum { SF_UTIME, SF_STIME, SF_RSS, SF_BYTES, SF_N };
enum {
	SR_RANK, SR_PID, SR_STATE, SR_COMM, SR_UTIME, SR_STIME, SR_RSS,
	SR_READ, SR_WRITE, SR_WCHAN, SR_SYSCALL, SR_START, SR_THREADS,
	SR_KSTACK, SR_RQ, SR_BLKIO, SR_CPUS_ALLOWED, SR_PROCESSOR, SR_N
};

struct synth_rank {
	int64_t		 rank, pid, start;
	double		 cpu;		/* % of one CPU in the next sample */
	double		 rd, wr;	/* bytes/s */
	int64_t		 rss;
	char		 state[4];
	char		 wchan[64];
	char		 comm[32];
	int64_t		 syscall;
	double		 rq;		/* % of the interval waiting for a CPU */
	double		 blkio;		/* % of the interval in block I/O */
	int64_t		 cpus_allowed, cpus_mask;	/* affinity (0: none) */
	double		 blkj;		/* cumulative block I/O delay */
	double		 ticks, rdb, wrb, rqns;	/* cumulative */
	int64_t		 old[SR_N];
	uint64_t	 oldp;
	char		 sent_state[4], sent_wchan[64];
	char		 kstack[200], sent_kstack[200];	/* "" absent */
	int		 added;
	int		 gone;		/* set: the process exits (dropped
					 * from the next sample on) */
	int		 dropped;
	int64_t		 mpi_dk, mpi_dm;	/* rankmpi: samples, MPI
						 * ones, next interval */
	int64_t		 mpi_k, mpi_m;	/* cumulative */
	int64_t		 mpi_old[2];
	uint64_t	 mpi_oldp;
};

/* An optional source's instance: what was sent last. */
struct synth_xinst {
	int64_t		 old[8];
	uint64_t	 oldp;
};

/* The optional sources of a node (synth_node_extra). */
struct synth_extra {
	int64_t		 gpu_util[2], gpu_mem[2], gpu_total, gpu_mw[2];
	int64_t		 gpu_temp[2];
	int64_t		 gpu_alloc[2];	/* gpu.alloc; sent when alloc_on */
	int		 alloc_on;
	int64_t		 gpu_minor[2];	/* gpu.minor; sent when minor_on */
	int		 minor_on;
	int64_t		 proc_mem[3];	/* rank 0's, rank 1's, a stranger's */
	int64_t		 proc_util[3];	/* percent; sent when util_on */
	int		 util_on;
	double		 ib_rx, ib_tx, lu_r, lu_w, nfs_r, nfs_w;  /* B/s */
	double		 pkg_w, dram_w;		/* watts */
	int64_t		 temp_mc;		/* millidegrees */
	double		 ipc;			/* of every rank */
	int		 perf;			/* send rankperf */
	int		 amd;			/* and an AMD GPU */
	double		 c[8];			/* cumulative counters */
	double		 instr[SYNTH_RANKS_MAX], cyc[SYNTH_RANKS_MAX];
	struct synth_xinst x[SX_N];
};

struct synth_node {
	struct stream	*st;
	struct synth_extra *ex;		/* NULL: the basic groups only */
	char		 host[64];
	uint64_t	 seq;
	int		 dt_ms;
	int		 started;
	double		 busy;		/* % of the node */
	double		 mem_used_pct;
	int64_t		 mem_total;
	double		 disk_rate, net_rate;
	int64_t		 cg_max, cg_current;	/* a job cgroup when max > 0 */
	double		 cpu[SC_N], disk, net, self_ticks, self_bytes;
	int64_t		 old[SG_N][SR_N];
	uint64_t	 oldp[SG_N];
	int		 nranks;
	int		 mpi;		/* send rankmpi (from the first
					 * sample on) */
	char		 kstack_why[128];	/* kstack source off: why */
	struct synth_rank r[SYNTH_RANKS_MAX];
	uint8_t		*buf;
};

static inline void
synth_node_init(struct synth_node *n, const char *host, int nranks,
    int first_rank, int dt_ms)
{
	int	k;

	memset(n, 0, sizeof(*n));
	snprintf(n->host, sizeof(n->host), "%s", host);
	n->st = stream_new(host);
	model_fix_name(stream_model(n->st));
	n->dt_ms = dt_ms;
	n->busy = 50;
	n->mem_used_pct = 30;
	n->mem_total = 64LL << 30;
	n->disk_rate = 1 << 20;
	n->net_rate = 2 << 20;
	n->nranks = nranks > SYNTH_RANKS_MAX ? SYNTH_RANKS_MAX : nranks;
	for (k = 0; k < n->nranks; k++) {
		n->r[k].rank = first_rank + k;
		n->r[k].pid = 1000 + first_rank + k;
		n->r[k].start = 5000 + k;
		n->r[k].cpu = 100;
		n->r[k].rss = 100LL << 20;
		snprintf(n->r[k].state, sizeof(n->r[k].state), "R");
		snprintf(n->r[k].comm, sizeof(n->r[k].comm), "solver");
		n->r[k].syscall = -1;
	}
	n->buf = malloc(SYNTH_BUF);
}

/* A new process on the node from the next sample on (rank -1: none); its
 * index, or -1 when the node is full. */
static inline int
synth_node_add_rank(struct synth_node *n, int64_t rank, int64_t pid,
    const char *comm)
{
	struct synth_rank	*r;

	if (n->nranks >= SYNTH_RANKS_MAX)
		return -1;
	r = &n->r[n->nranks];
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	r->pid = pid;
	r->start = 9000 + n->nranks;
	r->cpu = 100;
	r->rss = 100LL << 20;
	snprintf(r->state, sizeof(r->state), "R");
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->syscall = -1;
	return n->nranks++;
}

static inline void
synth_node_free(struct synth_node *n)
{
	stream_free(n->st);
	free(n->buf);
	free(n->ex);
}

/* Send the optional sources too, with these values (before the first
 * sample): two GPUs, rank 0 and 1 and a stranger on them, one IB port,
 * a Lustre and an NFS mount, RAPL package and DRAM, two sensors, perf. */
static inline void
synth_node_extra(struct synth_node *n)
{
	struct synth_extra	*e;

	e = n->ex = calloc(1, sizeof(*n->ex));
	e->gpu_util[0] = 80;
	e->gpu_util[1] = 40;
	e->gpu_mem[0] = 30LL << 30;
	e->gpu_mem[1] = 10LL << 30;
	e->gpu_total = 80LL << 30;
	e->gpu_mw[0] = 300000;
	e->gpu_mw[1] = 150000;
	e->gpu_temp[0] = 71;
	e->gpu_temp[1] = 64;
	e->proc_mem[0] = 3LL << 30;
	e->proc_mem[1] = 2LL << 30;
	e->proc_mem[2] = 5LL << 30;
	e->ib_rx = 3 << 20;
	e->ib_tx = 1 << 20;
	e->lu_r = 4 << 20;
	e->lu_w = 2 << 20;
	e->nfs_r = 1 << 20;
	e->nfs_w = 1 << 20;
	e->pkg_w = 200;
	e->dram_w = 40;
	e->temp_mc = 78000;
	e->ipc = 1.5;
	e->perf = 1;
}

/* One optional instance's new values (added on its first sample), the
 * fields of mask present. */
static inline void
synth_xinst_mask(struct synth_node *n, struct proto_sample_wr *sw,
    unsigned slot, unsigned g, const char *name, const int64_t *cur,
    unsigned nf, uint64_t mask)
{
	struct synth_xinst	*x = &n->ex->x[slot];
	uint32_t		 id = 1000 + slot;

	if (x->oldp == 0)
		proto_sample_add(sw, id, g, name);
	proto_sample_diff(sw, id, mask, x->old, x->oldp, cur, mask);
	memcpy(x->old, cur, nf * sizeof(*cur));
	x->oldp = mask;
}

/* The same with every one of the nf fields. */
static inline void
synth_xinst(struct synth_node *n, struct proto_sample_wr *sw, unsigned slot,
    unsigned g, const char *name, const int64_t *cur, unsigned nf)
{
	synth_xinst_mask(n, sw, slot, g, name, cur, nf,
	    ((uint64_t)1 << nf) - 1);
}

/* The optional sources' part of a sample. */
static inline void
synth_extra_sample(struct synth_node *n, struct proto_sample_wr *sw,
    double dt)
{
	struct synth_extra	*e = n->ex;
	int64_t			 v[8];
	char			 name[32];
	int			 k;

	for (k = 0; k < 2; k++) {
		v[0] = e->gpu_util[k];
		v[1] = e->gpu_mem[k];
		v[2] = e->gpu_total;
		v[3] = e->gpu_mw[k];
		v[4] = e->gpu_temp[k];
		v[5] = e->gpu_alloc[k];
		v[6] = e->gpu_minor[k];
		snprintf(name, sizeof(name), "%d", k);
		/* alloc and minor sent as asked: a mask past the first 5. */
		synth_xinst_mask(n, sw, SX_GPU + k, SG_GPU, name, v, 7,
		    (((uint64_t)1 << 5) - 1) | (uint64_t)e->alloc_on << 5 |
		    (uint64_t)e->minor_on << 6);
	}
	for (k = 0; k < 3; k++) {
		v[0] = k == 1;
		v[1] = k < 2 && k < n->nranks ? n->r[k].pid : 99999;
		v[2] = e->proc_mem[k];
		v[3] = e->proc_util[k];
		snprintf(name, sizeof(name), "%lld:%lld", (long long)v[0],
		    (long long)v[1]);
		synth_xinst(n, sw, SX_PROC + k, SG_GPUPROC, name, v,
		    e->util_on ? 4 : 3);
	}
	e->c[0] += e->ib_rx * dt;
	e->c[1] += e->ib_tx * dt;
	e->c[2] += e->lu_r * dt;
	e->c[3] += e->lu_w * dt;
	e->c[4] += e->nfs_r * dt;
	e->c[5] += e->nfs_w * dt;
	e->c[6] += e->pkg_w * 1e6 * dt;
	e->c[7] += e->dram_w * 1e6 * dt;
	v[0] = (int64_t)e->c[0];
	v[1] = (int64_t)e->c[1];
	synth_xinst(n, sw, SX_IB, SG_IB, "mlx5_0/1", v, 2);
	v[0] = (int64_t)e->c[2];
	v[1] = (int64_t)e->c[3];
	synth_xinst(n, sw, SX_LLITE, SG_LLITE, "scratch-ffff8f0e", v, 2);
	v[0] = (int64_t)e->c[4];
	v[1] = (int64_t)e->c[5];
	synth_xinst(n, sw, SX_NFS, SG_NFS, "/home", v, 2);
	v[0] = (int64_t)e->c[6];
	synth_xinst(n, sw, SX_PKG, SG_RAPL, "package-0", v, 1);
	v[0] = (int64_t)e->c[7];
	synth_xinst(n, sw, SX_DRAM, SG_RAPL, "dram-0", v, 1);
	v[0] = e->temp_mc;
	synth_xinst(n, sw, SX_TEMP, SG_TEMP, "coretemp/Package id 0", v, 1);
	v[0] = 35000;
	synth_xinst(n, sw, SX_TEMP + 1, SG_TEMP, "acpitz", v, 1);
	v[0] = -274000;		/* a sensor not ready, as iwlwifi reads */
	synth_xinst(n, sw, SX_TEMP + 2, SG_TEMP, "iwlwifi_1", v, 1);
	if (e->amd) {
		v[0] = 20;
		v[1] = 8LL << 30;
		v[2] = 16LL << 30;
		v[3] = 100000;		/* mW */
		v[4] = 90500;		/* millidegrees */
		synth_xinst(n, sw, SX_AMD, SG_AMDGPU, "card0", v, 5);
	}
	for (k = 0; k < n->nranks; k++) {
		snprintf(name, sizeof(name), "%lld", (long long)n->r[k].pid);
		if (e->perf) {
			e->cyc[k] += 2e9 * dt;
			e->instr[k] += 2e9 * dt * e->ipc;
			v[0] = (int64_t)e->instr[k];
			v[1] = (int64_t)e->cyc[k];
			synth_xinst(n, sw, SX_PERF + k, SG_RANKPERF, name, v,
			    2);
		}
		v[0] = 3 * (n->r[k].rss / 4);
		v[1] = n->r[k].rss / 4;
		synth_xinst(n, sw, SX_NUMA + k, SG_RANKNUMA, name, v, 2);
	}
}

static inline void
synth_hello(struct synth_node *n, struct wbuf *w)
{
	static struct proto_hello	h;
	size_t				start;

	memset(&h, 0, sizeof(h));
	snprintf(h.version, sizeof(h.version), "synth");
	snprintf(h.host, sizeof(h.host), "%s", n->host);
	snprintf(h.kernel, sizeof(h.kernel), "6.1");
	snprintf(h.arch, sizeof(h.arch), "x86_64");
	h.ncpu = 4;
	h.mem_total = (uint64_t)n->mem_total;
	h.clk_tck = 100;
	h.page_size = 4096;
	h.start_ms = SYNTH_START_MS;
	h.interval_ms = (uint32_t)n->dt_ms;
	h.nsources = 2;
	snprintf(h.sources[0].name, PROTO_NAME_MAX, "all");
	h.sources[0].on = 1;
	snprintf(h.sources[1].name, PROTO_NAME_MAX, "kstack");
	h.sources[1].on = n->kstack_why[0] == '\0';
	snprintf(h.sources[1].reason, PROTO_TEXT_MAX, "%s", n->kstack_why);
	proto_put_hello(w, &h);

	proto_schema_begin(w, &start, (n->ex != NULL ? SG_NALL : SG_N) +
	    (n->mpi != 0));
	proto_schema_group(w, "cpu", SC_N);
	proto_schema_field(w, "user", "cpu-jiffies", PF_COUNTER);
	proto_schema_field(w, "system", "cpu-jiffies", PF_COUNTER);
	proto_schema_field(w, "idle", "cpu-jiffies", PF_COUNTER);
	proto_schema_field(w, "iowait", "cpu-jiffies", PF_COUNTER);
	proto_schema_group(w, "mem", SM_N);
	proto_schema_field(w, "total", "bytes", PF_GAUGE);
	proto_schema_field(w, "available", "bytes", PF_GAUGE);
	proto_schema_group(w, "load", 1);
	proto_schema_field(w, "load1", "centi", PF_GAUGE);
	proto_schema_group(w, "disk", 2);
	proto_schema_field(w, "read_bytes", "bytes", PF_COUNTER);
	proto_schema_field(w, "write_bytes", "bytes", PF_COUNTER);
	proto_schema_group(w, "net", 2);
	proto_schema_field(w, "rx_bytes", "bytes", PF_COUNTER);
	proto_schema_field(w, "tx_bytes", "bytes", PF_COUNTER);
	proto_schema_group(w, "self", SF_N);
	proto_schema_field(w, "utime", "jiffies", PF_COUNTER);
	proto_schema_field(w, "stime", "jiffies", PF_COUNTER);
	proto_schema_field(w, "rss", "bytes", PF_GAUGE);
	proto_schema_field(w, "bytes_sent", "bytes", PF_COUNTER);
	proto_schema_group(w, "rank", SR_N);
	proto_schema_field(w, "rank", "", PF_GAUGE);
	proto_schema_field(w, "pid", "", PF_GAUGE);
	proto_schema_field(w, "state", "", PF_STRING);
	proto_schema_field(w, "comm", "", PF_STRING);
	proto_schema_field(w, "utime", "jiffies", PF_COUNTER);
	proto_schema_field(w, "stime", "jiffies", PF_COUNTER);
	proto_schema_field(w, "rss", "bytes", PF_GAUGE);
	proto_schema_field(w, "read_bytes", "bytes", PF_COUNTER);
	proto_schema_field(w, "write_bytes", "bytes", PF_COUNTER);
	proto_schema_field(w, "wchan", "", PF_STRING);
	proto_schema_field(w, "syscall", "", PF_GAUGE);
	proto_schema_field(w, "start_time", "jiffies", PF_GAUGE);
	proto_schema_field(w, "threads", "count", PF_GAUGE);
	proto_schema_field(w, "kstack", "", PF_STRING);
	proto_schema_field(w, "rq_delay", "ns", PF_COUNTER);
	proto_schema_field(w, "blkio_delay", "jiffies", PF_COUNTER);
	proto_schema_field(w, "cpus_allowed", "count", PF_GAUGE);
	proto_schema_field(w, "processor", "", PF_GAUGE);
	proto_schema_group(w, "cgroup", 2);
	proto_schema_field(w, "mem_current", "bytes", PF_GAUGE);
	proto_schema_field(w, "mem_max", "bytes", PF_GAUGE);
	if (n->ex != NULL) {
		proto_schema_group(w, "gpu", 7);
		proto_schema_field(w, "util", "percent", PF_GAUGE);
		proto_schema_field(w, "mem_used", "bytes", PF_GAUGE);
		proto_schema_field(w, "mem_total", "bytes", PF_GAUGE);
		proto_schema_field(w, "power", "mW", PF_GAUGE);
		proto_schema_field(w, "temp", "celsius", PF_GAUGE);
		proto_schema_field(w, "alloc", "", PF_GAUGE);
		proto_schema_field(w, "minor", "", PF_GAUGE);
		proto_schema_group(w, "gpuproc", 4);
		proto_schema_field(w, "gpu", "", PF_GAUGE);
		proto_schema_field(w, "pid", "", PF_GAUGE);
		proto_schema_field(w, "mem_used", "bytes", PF_GAUGE);
		proto_schema_field(w, "util", "percent", PF_GAUGE);
		proto_schema_group(w, "ib", 2);
		proto_schema_field(w, "rcv_bytes", "bytes", PF_COUNTER);
		proto_schema_field(w, "xmit_bytes", "bytes", PF_COUNTER);
		proto_schema_group(w, "llite", 2);
		proto_schema_field(w, "read_bytes", "bytes", PF_COUNTER);
		proto_schema_field(w, "write_bytes", "bytes", PF_COUNTER);
		proto_schema_group(w, "nfs", 2);
		proto_schema_field(w, "read_bytes", "bytes", PF_COUNTER);
		proto_schema_field(w, "write_bytes", "bytes", PF_COUNTER);
		proto_schema_group(w, "rapl", 1);
		proto_schema_field(w, "energy", "uJ", PF_COUNTER);
		proto_schema_group(w, "temp", 1);
		proto_schema_field(w, "temp", "celsius-milli", PF_GAUGE);
		proto_schema_group(w, "rankperf", 2);
		proto_schema_field(w, "instructions", "count", PF_COUNTER);
		proto_schema_field(w, "cycles", "count", PF_COUNTER);
		proto_schema_group(w, "ranknuma", 2);
		proto_schema_field(w, "n0", "bytes", PF_GAUGE);
		proto_schema_field(w, "n1", "bytes", PF_GAUGE);
		proto_schema_group(w, "amdgpu", 5);
		proto_schema_field(w, "util", "percent", PF_GAUGE);
		proto_schema_field(w, "mem_used", "bytes", PF_GAUGE);
		proto_schema_field(w, "mem_total", "bytes", PF_GAUGE);
		proto_schema_field(w, "power", "mW", PF_GAUGE);
		proto_schema_field(w, "temp", "celsius-milli", PF_GAUGE);
	}
	if (n->mpi) {	/* group SG_NALL, or SG_N without extras */
		proto_schema_group(w, "rankmpi", 2);
		proto_schema_field(w, "samples", "count", PF_COUNTER);
		proto_schema_field(w, "mpi", "count", PF_COUNTER);
	}
	proto_schema_end(w, start);
}

/* One node-wide instance's new values. */
static inline void
synth_inst(struct synth_node *n, struct proto_sample_wr *sw, unsigned g,
    const char *name, const int64_t *cur, unsigned nf)
{
	uint64_t	mask = ((uint64_t)1 << nf) - 1;

	if (n->oldp[g] == 0)
		proto_sample_add(sw, g, g, name);
	proto_sample_diff(sw, g, mask, n->old[g], n->oldp[g], cur, mask);
	memcpy(n->old[g], cur, nf * sizeof(*cur));
	n->oldp[g] = mask;
}

/* Write the next sample (HELLO and SCHEMA first) into n->buf: its length,
 * or a negative WIRE_* error. */
static inline long
synth_node_encode(struct synth_node *n)
{
	struct proto_sample_wr	 sw;
	struct wbuf		 w;
	struct synth_rank	*r;
	int64_t			 v[SR_N];
	double			 dt = n->dt_ms / 1000.0, total;
	uint64_t		 intmask;
	int			 k;

	wbuf_init(&w, n->buf, SYNTH_BUF);
	if (!n->started)
		synth_hello(n, &w);
	proto_sample_begin(&sw, &w, n->seq++, n->dt_ms);
	total = 4 * 100 * dt;
	n->cpu[SC_USER] += total * n->busy / 100 * 0.9;
	n->cpu[SC_SYSTEM] += total * n->busy / 100 * 0.1;
	n->cpu[SC_IDLE] += total * (100 - n->busy) / 100;
	for (k = 0; k < SC_N; k++)
		v[k] = (int64_t)floor(n->cpu[k]);
	synth_inst(n, &sw, SG_CPU, "", v, SC_N);
	v[SM_TOTAL] = n->mem_total;
	v[SM_AVAIL] = (int64_t)(n->mem_total * (100 - n->mem_used_pct) / 100);
	synth_inst(n, &sw, SG_MEM, "", v, SM_N);
	v[0] = 150;
	synth_inst(n, &sw, SG_LOAD, "", v, 1);
	n->disk += n->disk_rate * dt;
	v[0] = v[1] = (int64_t)(n->disk / 2);
	synth_inst(n, &sw, SG_DISK, "sda", v, 2);
	n->net += n->net_rate * dt;
	v[0] = v[1] = (int64_t)(n->net / 2);
	synth_inst(n, &sw, SG_NET, "eth0", v, 2);
	n->self_ticks += 0.2 * dt;
	n->self_bytes += 300 * dt;
	v[SF_UTIME] = (int64_t)n->self_ticks;
	v[SF_STIME] = 0;
	v[SF_RSS] = 1 << 20;
	v[SF_BYTES] = (int64_t)n->self_bytes;
	synth_inst(n, &sw, SG_SELF, "", v, SF_N);
	if (n->cg_max > 0) {
		v[0] = n->cg_current;
		v[1] = n->cg_max;
		synth_inst(n, &sw, SG_CGROUP, "/slurm/uid_1000/job_1", v, 2);
	}

	intmask = ((uint64_t)1 << SR_N) - 1;
	intmask &= ~((1ULL << SR_STATE) | (1ULL << SR_COMM) |
	    (1ULL << SR_WCHAN) | (1ULL << SR_KSTACK));
	for (k = 0; k < n->nranks; k++) {
		char	name[24];
		uint32_t id = 16 + (uint32_t)k;

		r = &n->r[k];
		if (r->gone) {
			if (r->added && !r->dropped)
				proto_sample_drop(&sw, id);
			r->dropped = 1;
			continue;
		}
		r->ticks += r->cpu * dt;
		r->rdb += r->rd * dt;
		r->wrb += r->wr * dt;
		r->rqns += r->rq * 1e7 * dt;
		r->blkj += r->blkio * dt;
		memset(v, 0, sizeof(v));
		v[SR_RANK] = r->rank;
		v[SR_PID] = r->pid;
		v[SR_UTIME] = (int64_t)floor(r->ticks);
		v[SR_STIME] = 0;
		v[SR_RSS] = r->rss;
		v[SR_READ] = (int64_t)r->rdb;
		v[SR_WRITE] = (int64_t)r->wrb;
		v[SR_SYSCALL] = r->syscall;
		v[SR_START] = r->start;
		v[SR_THREADS] = 1;
		v[SR_RQ] = (int64_t)r->rqns;
		v[SR_BLKIO] = (int64_t)r->blkj;
		v[SR_CPUS_ALLOWED] = r->cpus_allowed;
		/* processor: the lowest CPU of its affinity. */
		v[SR_PROCESSOR] = r->cpus_mask > 0 ?
		    __builtin_ctzll((unsigned long long)r->cpus_mask) : 0;
		if (!r->added) {
			snprintf(name, sizeof(name), "%lld",
			    (long long)r->pid);
			proto_sample_add(&sw, id, SG_RANK, name);
			proto_sample_str(&sw, id, SR_COMM, r->comm,
			    strlen(r->comm));
		}
		proto_sample_diff(&sw, id, intmask, r->old, r->oldp, v,
		    intmask);
		memcpy(r->old, v, sizeof(v));
		r->oldp = intmask;
		if (!r->added || strcmp(r->sent_state, r->state) != 0) {
			proto_sample_str(&sw, id, SR_STATE, r->state,
			    strlen(r->state));
			memcpy(r->sent_state, r->state, sizeof(r->state));
		}
		if (!r->added || strcmp(r->sent_wchan, r->wchan) != 0) {
			proto_sample_str(&sw, id, SR_WCHAN, r->wchan,
			    strlen(r->wchan));
			memcpy(r->sent_wchan, r->wchan, sizeof(r->wchan));
		}
		if (strcmp(r->sent_kstack, r->kstack) != 0) {
			if (r->kstack[0] != '\0')
				proto_sample_str(&sw, id, SR_KSTACK, r->kstack,
				    strlen(r->kstack));
			else
				proto_sample_clear(&sw, id,
				    1ULL << SR_KSTACK);
			memcpy(r->sent_kstack, r->kstack, sizeof(r->kstack));
		}
		r->added = 1;
	}
	if (n->ex != NULL)
		synth_extra_sample(n, &sw, dt);
	for (k = 0; n->mpi && k < n->nranks; k++) {
		char	name[24];
		uint32_t id = 3000 + (uint32_t)k;

		r = &n->r[k];
		if (r->gone) {
			if (r->mpi_oldp != 0)
				proto_sample_drop(&sw, id);
			r->mpi_oldp = 0;
			continue;
		}
		r->mpi_k += r->mpi_dk;
		r->mpi_m += r->mpi_dm;
		v[0] = r->mpi_k;
		v[1] = r->mpi_m;
		if (r->mpi_oldp == 0) {
			snprintf(name, sizeof(name), "%lld",
			    (long long)r->pid);
			proto_sample_add(&sw, id, n->ex != NULL ? SG_NALL :
			    SG_N, name);
		}
		proto_sample_diff(&sw, id, 3, r->mpi_old, r->mpi_oldp, v, 3);
		memcpy(r->mpi_old, v, sizeof(r->mpi_old));
		r->mpi_oldp = 3;
	}
	proto_sample_end(&sw);
	n->started = 1;
	return w.err != 0 ? w.err : (long)w.len;
}

/* Decode len bytes of n->buf: the last message type, or an error. */
static inline int
synth_node_feed(struct synth_node *n, long len)
{
	int	t, last = 0;

	if (len < 0)
		return (int)len;
	stream_feed(n->st, n->buf, (size_t)len);
	while ((t = stream_next(n->st)) > 0)
		last = t;
	return t < 0 ? t : last;
}

/* Write the next sample and decode it. */
static inline int
synth_node_step(struct synth_node *n)
{
	return synth_node_feed(n, synth_node_encode(n));
}

static inline const struct node_model *
synth_model(struct synth_node *n)
{
	return stream_model(n->st);
}

#endif
