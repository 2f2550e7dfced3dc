/* SPDX-License-Identifier: ISC */
/*
 * test-detect: the history and the detectors on synthetic jobs whose
 * probe streams go through the real decoder (test-ui-synth.h).  A healthy
 * noisy job must never raise a flag; a rank that stops is "stalled" after
 * exactly the configured number of idle samples and clears when it runs
 * again; stragglers need a sustained, robust distance from the median;
 * memory has hysteresis; lost nodes come from the session state; the
 * history of a rank survives a reconnect; ranks that exit or appear
 * after their node's first sample are events, counted against the
 * scheduler's task count.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"
#include "harness.h"
#include "history.h"
#include "test-ui-synth.h"

#define NODES	8
#define RANKS	4

struct job {
	struct synth_node	 n[NODES];
	struct history		*h;
	struct detect		*d;
	uint64_t		 now;
	int			 nevents;
	struct detect_event	 ev[64];
};

static uint32_t	rnd_state = 12345;

/* A deterministic noise in [-1, 1]. */
static double
rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return ((rnd_state >> 8) & 0xffff) / 32767.5 - 1.0;
}

static void
on_event(void *arg, const struct detect_event *ev)
{
	struct job	*j = arg;

	if (j->nevents < 64)
		j->ev[j->nevents] = *ev;
	j->nevents++;
}

/* A job whose detectors run with conf (NULL: the defaults). */
static void
job_init_conf(struct job *j, const struct detect_conf *conf)
{
	char	name[16];
	int	i;

	memset(j, 0, sizeof(*j));
	for (i = 0; i < NODES; i++) {
		snprintf(name, sizeof(name), "n%d", i + 1);
		synth_node_init(&j->n[i], name, RANKS, i * RANKS, 1000);
		j->n[i].busy = 90;
	}
	j->h = history_new();
	history_resize(j->h, NODES);
	j->d = detect_new(j->h, conf, on_event, j);
	j->now = 1000;
}

static void
job_init(struct job *j)
{
	job_init_conf(j, NULL);
}

static void
job_free(struct job *j)
{
	int	i;

	for (i = 0; i < NODES; i++)
		synth_node_free(&j->n[i]);
	detect_free(j->d);
	history_free(j->h);
}

/* One sample of every node, with noise on CPU. */
static void
job_step(struct job *j, double noise)
{
	const struct node_model	*m;
	int			 i, k;

	for (i = 0; i < NODES; i++) {
		for (k = 0; k < RANKS; k++) {
			/* Noise on the ranks that run flat out. */
			if (j->n[i].r[k].cpu >= 80 && noise > 0)
				j->n[i].r[k].cpu = 95 + noise * rnd();
		}
		if (j->n[i].busy >= 80 && noise > 0)
			j->n[i].busy = 90 + noise * rnd();
		CHECK(synth_node_step(&j->n[i]) == MSG_SAMPLE);
		m = synth_model(&j->n[i]);
		history_node_sample(j->h, i, m, j->now);
		detect_node_sample(j->d, i, m, m->time_ms);
	}
	j->now += 1000;
	history_job_sample(j->h, j->now, 2500);
}

static unsigned
job_flags(struct job *j)
{
	unsigned	f = 0, k;
	int		i;

	for (i = 0; i < NODES; i++) {
		f |= detect_node_flags(j->d, i);
		for (k = 0; k < history_nranks(j->h, i); k++)
			f |= history_rank_const(j->h, i, k)->flags;
	}
	return f;
}

static const struct hist_rank *
job_rank(struct job *j, int node, int k)
{
	return history_rank_find(j->h, node, j->n[node].r[k].pid, -1);
}

/* x read back from a ring holding want: NaN for NaN, else within
 * bfloat16's rounding. */
static int
packed_close(double x, double want)
{
	if (isnan(want))
		return isnan(x);
	return fabs(x - want) <= fabs(want) / 256;
}

/* The rings keep the past as bfloat16: the newest value exact (what the
 * detectors, tables and report read), every older one within 1/256 of
 * itself, as the sparklines read it; a missing value stays missing. */
static void
test_history_packed(void)
{
	struct job		 j;
	const struct hist_rank	*hr;
	double			 node[40], rank[40], x;
	float			 series[40];
	int			 s, back, inexact = 0;

	job_init(&j);
	for (s = 0; s < 40; s++) {
		job_step(&j, 8);
		node[s] = history_node_get(j.h, 0, HN_CPU, 0);
		hr = job_rank(&j, 0, 0);
		rank[s] = hr != NULL ? history_rank_get(hr, HR_CPU, 0) : NAN;
	}
	hr = job_rank(&j, 0, 0);
	CHECK(hr != NULL);
	for (back = 0; back < 40 && hr != NULL; back++) {
		x = history_node_get(j.h, 0, HN_CPU, (unsigned)back);
		CHECK(packed_close(x, node[39 - back]));
		inexact += isfinite(x) && x != node[39 - back];
		x = history_rank_get(hr, HR_CPU, (unsigned)back);
		CHECK(packed_close(x, rank[39 - back]));
	}
	/* Newest exact; the noisy past not all exact (it is packed). */
	CHECK(history_node_get(j.h, 0, HN_CPU, 0) == node[39]);
	CHECK(inexact > 0);
	history_node_series(j.h, 0, HN_CPU, series, 40);
	CHECK((double)series[39] == (double)(float)node[39]);
	CHECK(packed_close(series[0], node[0]));
	CHECK(packed_close(series[1], node[1]) && isfinite(node[1]));
	/* Before the first sample: NaN, not 0. */
	CHECK(isnan(history_node_get(j.h, 0, HN_CPU, 40)));
	/* A metric without a kept past (HN_PAST): its newest value exact,
	 * nothing before it. */
	CHECK((HN_PAST & ((uint64_t)1 << HN_MEM)) == 0);
	x = history_node_get(j.h, 0, HN_MEM, 0);
	CHECK(isfinite(x) && x > 0);
	CHECK(isnan(history_node_get(j.h, 0, HN_MEM, 1)));
	history_node_series(j.h, 0, HN_MEM, series, 40);
	CHECK((double)series[39] == x && isnan(series[38]) &&
	    isnan(series[0]));
	CHECK(isnan(hist_val_float(0x7fc0)));
	job_free(&j);
}

/* A noisy healthy job: no flag in 600 samples. */
static void
test_healthy(void)
{
	struct job	j;
	int		s;
	unsigned	f = 0;

	job_init(&j);
	for (s = 0; s < 600; s++) {
		job_step(&j, 8);
		f |= job_flags(&j);
	}
	CHECK_INT(f, 0);
	CHECK_INT(j.nevents, 0);
	CHECK_INT(history_nranks(j.h, 0), RANKS);
	CHECK_NEAR(detect_rank_median(j.d), 95, 6);
	CHECK(isfinite(history_job_get(j.h, HN_CPU, 0)));
	job_free(&j);
}

/* A rank that blocks is stalled after 3 idle samples, not before. */
static void
test_stall(void)
{
	struct job		 j;
	const struct hist_rank	*hr;
	int			 s, first = -1;

	job_init(&j);
	for (s = 0; s < 10; s++)
		job_step(&j, 3);
	CHECK_INT(job_flags(&j), 0);
	j.n[2].r[1].cpu = 0;
	snprintf(j.n[2].r[1].state, 4, "S");
	snprintf(j.n[2].r[1].wchan, 64, "anon_pipe_read");
	for (s = 0; s < 6; s++) {
		job_step(&j, 3);
		hr = job_rank(&j, 2, 1);
		if (first < 0 && hr != NULL && (hr->flags & DF_STALLED))
			first = s;
	}
	CHECK_INT(first, 2);	/* the third idle sample */
	hr = job_rank(&j, 2, 1);
	CHECK(hr != NULL && hr->flags == DF_STALLED);
	CHECK(j.nevents >= 1);
	CHECK_STR(j.ev[0].code, "stalled");
	CHECK_INT(j.ev[0].node, 2);
	CHECK_INT(j.ev[0].rank, j.n[2].r[1].rank);
	CHECK(strstr(j.ev[0].text, "anon_pipe_read") != NULL);
	CHECK(strstr(j.ev[0].text, "rank 9 (pid 1009)") != NULL);
	CHECK_INT(job_flags(&j), DF_STALLED);	/* no straggler on top */
	/* It runs again: cleared at once. */
	j.n[2].r[1].cpu = 95;
	snprintf(j.n[2].r[1].state, 4, "R");
	job_step(&j, 3);
	CHECK_INT(job_flags(&j), 0);
	CHECK_STR(j.ev[j.nevents - 1].code, "stalled-cleared");
	job_free(&j);
}

/* A rank doing I/O without CPU is not stalled; nor is an idle rank
 * while every rank is idle. */
static void
test_no_stall(void)
{
	struct job	j;
	int		s, i, k;

	job_init(&j);
	j.n[0].r[0].cpu = 0;
	j.n[0].r[0].rd = 1 << 20;
	for (s = 0; s < 20; s++)
		job_step(&j, 3);
	CHECK_INT(job_flags(&j) & DF_STALLED, 0);
	job_free(&j);

	job_init(&j);
	for (i = 0; i < NODES; i++)
		for (k = 0; k < RANKS; k++)
			j.n[i].r[k].cpu = 0;
	for (s = 0; s < 20; s++)
		job_step(&j, 0);
	CHECK_INT(job_flags(&j), 0);
	job_free(&j);
}

/* A straggler node: sustained 5 samples; noise within the gap never. */
static void
test_straggler_node(void)
{
	struct job	j;
	int		s, first = -1;

	job_init(&j);
	for (s = 0; s < 5; s++)
		job_step(&j, 2);
	j.n[5].busy = 20;
	for (s = 0; s < 10; s++) {
		job_step(&j, 0);
		if (first < 0 && (detect_node_flags(j.d, 5) & DF_STRAGGLER))
			first = s;
	}
	CHECK_INT(first, 4);
	CHECK_INT(detect_node_flags(j.d, 4), 0);
	/* Back near the median: cleared after 3 normal samples. */
	j.n[5].busy = 88;
	for (s = 0; s < 2; s++)
		job_step(&j, 0);
	CHECK_INT(detect_node_flags(j.d, 5), DF_STRAGGLER);
	job_step(&j, 0);
	CHECK_INT(detect_node_flags(j.d, 5), 0);
	job_free(&j);

	/* 15 points off the median (the gap is 25): never flagged. */
	job_init(&j);
	j.n[3].busy = 75;
	for (s = 0; s < 50; s++)
		job_step(&j, 0);
	CHECK_INT(detect_node_flags(j.d, 3), 0);
	job_free(&j);
}

/* A straggler rank: one rank at 40% while the others run at 95%. */
static void
test_straggler_rank(void)
{
	struct job		 j;
	const struct hist_rank	*hr;
	int			 s;

	job_init(&j);
	j.n[1].r[2].cpu = 40;
	for (s = 0; s < 10; s++)
		job_step(&j, 2);
	hr = job_rank(&j, 1, 2);
	CHECK(hr != NULL && (hr->flags & DF_STRAGGLER) != 0);
	CHECK(hr != NULL && (hr->flags & DF_STALLED) == 0);
	CHECK_INT(job_flags(&j), DF_STRAGGLER);
	job_free(&j);
}

/*
 * Hysteresis: a rank flagged at 40% against the others' 95% that comes
 * back to 77% (18 points off: inside the 24 that raise a flag, outside
 * half of it) stays flagged, however long; at 90% it is back, and the
 * flag clears once its level follows (DETECT_PAST) plus 3 samples.
 */
static void
test_straggler_hysteresis(void)
{
	struct job		 j;
	const struct hist_rank	*hr;
	int			 s, cleared = -1;

	job_init(&j);
	j.n[1].r[2].cpu = 40;
	for (s = 0; s < 10; s++)
		job_step(&j, 2);
	hr = job_rank(&j, 1, 2);
	CHECK(hr != NULL && (hr->flags & DF_STRAGGLER) != 0);
	j.n[1].r[2].cpu = 77;
	for (s = 0; s < 20; s++)
		job_step(&j, 2);
	hr = job_rank(&j, 1, 2);
	CHECK(hr != NULL && (hr->flags & DF_STRAGGLER) != 0);
	for (s = 0; s < j.nevents && s < 64; s++)
		CHECK(strcmp(j.ev[s].code, "straggler-cleared") != 0);
	j.n[1].r[2].cpu = 90;
	for (s = 0; s < 12 && cleared < 0; s++) {
		job_step(&j, 2);
		hr = job_rank(&j, 1, 2);
		if (hr != NULL && (hr->flags & DF_STRAGGLER) == 0)
			cleared = s;
	}
	CHECK(cleared >= 2 && cleared <= 7);
	CHECK_INT(job_flags(&j), 0);
	job_free(&j);
}

/*
 * A rank held off its CPU: at 40% while the others run at 95%, but it
 * waited 55% of the time in the run queue (an oversubscribed node, noise):
 * it wanted to run as much as they did and is no straggler.  The same rank
 * at 40% with a run-queue delay of 5% (it sleeps) is one.
 */
static void
test_straggler_starved(void)
{
	struct job		 j;
	const struct hist_rank	*hr;
	int			 s;

	job_init(&j);
	j.n[1].r[2].cpu = 40;
	j.n[1].r[2].rq = 55;
	for (s = 0; s < 10; s++)
		job_step(&j, 2);
	hr = job_rank(&j, 1, 2);
	CHECK(hr != NULL && (hr->flags & DF_STRAGGLER) == 0);
	CHECK_INT(job_flags(&j), 0);
	j.n[1].r[2].rq = 5;
	for (s = 0; s < 10; s++)
		job_step(&j, 2);
	hr = job_rank(&j, 1, 2);
	CHECK(hr != NULL && (hr->flags & DF_STRAGGLER) != 0);
	job_free(&j);
}

/* Every rank of an oversubscribed job queues (36% CPU, 64% run-queue
 * delay: they all want the CPU all the time); one runs 25% and waits 50%:
 * it sleeps a quarter of its time, which no queueing explains: straggler
 * (its demand, 75%, is 25 points from its peers' 100%: the relative gap
 * for levels once called that near and the rank starved). */
/* The flags of a job whose ranks all run 36% CPU with 64% run-queue
 * delay but rank 2 of node 1, at cpu and rq, after 12 samples. */
static unsigned
contended_flags(double cpu, double rq, int *rank_flagged)
{
	struct job		 j;
	const struct hist_rank	*hr;
	unsigned		 f;
	int			 s, i, k;

	job_init(&j);
	for (i = 0; i < NODES; i++)
		for (k = 0; k < RANKS; k++) {
			j.n[i].r[k].cpu = 36;
			j.n[i].r[k].rq = 64;
		}
	j.n[1].r[2].cpu = cpu;
	j.n[1].r[2].rq = rq;
	for (s = 0; s < 12; s++)
		job_step(&j, 0);
	hr = job_rank(&j, 1, 2);
	*rank_flagged = hr != NULL && (hr->flags & DF_STRAGGLER) != 0;
	f = job_flags(&j);
	job_free(&j);
	return f;
}

static void
test_straggler_contended(void)
{
	int	flagged;

	CHECK_INT(contended_flags(25, 50, &flagged), DF_STRAGGLER);
	CHECK(flagged);
	/* One that ran less but queued the more (25% and 70%: its demand
	 * within DETECT_DEMAND_GAP of theirs) wanted the CPU as they did. */
	CHECK_INT(contended_flags(25, 70, &flagged), 0);
}

/*
 * A sleeper among noisy queueing ranks: every rank of an oversubscribed
 * job gets 36% of a CPU give or take 6 points a sample and waits for one
 * the rest of the time; rank 2 of node 1 runs 28% and waits rq.  Its
 * level is 8 points under its peers', inside the level rule's distance
 * (their noise makes it 9 or more): the level rule alone never names it,
 * as in the lab, where such a rank was flagged after 8 to 16 samples.
 * Waiting 5% (it sleeps while they work) it is a straggler by its
 * demand, within 10 samples, said so, and so it is waiting 49% (when it
 * wants the CPU it queues too); waiting 72% (it wanted the CPU as
 * they did) it is none; nor is it where nobody queues (rq 0 for all:
 * its demand is its level, and the sleeper rule says nothing the level
 * rule would not).  The flags of the job and whether the rank is flagged
 * after SAMPLES; *at: the sample it was raised at (0 none).
 */
static unsigned	demand_flags(double, double, double, double, double, int *,
		    char *, size_t);

static unsigned
sleeper_flags(double rq, double peer_rq, int *at, char *text, size_t size)
{
	return demand_flags(36, 6, peer_rq > 0 ? -1 : 0, 28, rq, at, text,
	    size);
}

static void
test_straggler_sleeper(void)
{
	char	text[512];
	int	at;

	CHECK_INT(sleeper_flags(5, 64, &at, text, sizeof(text)),
	    DF_STRAGGLER);
	CHECK(at >= 5 && at <= 10);
	printf("  sleeper flagged at sample %d\n", at);
	CHECK(strstr(text, "n2 rank 6") != NULL);
	CHECK(strstr(text, "it sleeps while they work") != NULL);
	if (strstr(text, "it sleeps") == NULL)
		printf("  event: %s\n", text);
	/* Waiting 49% when it wants the CPU (as the lab's rank at 25% duty
	 * beside a hog does): a demand of 77% against their 100%. */
	CHECK_INT(sleeper_flags(49, 64, &at, text, sizeof(text)),
	    DF_STRAGGLER);
	CHECK(at >= 5 && at <= 10);
	CHECK_INT(sleeper_flags(72, 64, &at, text, sizeof(text)), 0);
	CHECK_INT(at, 0);
	CHECK_INT(sleeper_flags(0, 0, &at, text, sizeof(text)), 0);
	CHECK_INT(at, 0);
}

/*
 * A rank that works while its peers wait blocked, on CPUs shared with
 * other load: the lab's eight gloo workers beside a busy loop per core
 * got 10-13% of a CPU and waited 14-18% for one; the slow worker got 25%
 * and waited 24% (test-torch, HOG).  Here the peers run 12% give or take
 * 8 points a sample (noise that makes the level rule's distance 12 or
 * more: the lab's worker was once flagged after 12 samples, its bound
 * 10) and wait peer_rq; rank 2 of node 1 runs 22% and waits rq.  Waiting
 * 24% beside peers waiting 16% (a demand of 46% against 28%) it is a
 * straggler within 10 samples, said to work while they wait; where
 * nobody queues (rq 0: its demand is its level) the rule is off and the
 * level rule alone does not name it; nor does it when its peers queue as
 * much (peer_rq 24: a demand of 36% against its 46%, inside the demand
 * distance).  *at: the sample it was raised at (0 none).
 */
static unsigned
hungry_flags(double rq, double peer_rq, int *at, char *text, size_t size)
{
	return demand_flags(12, 8, peer_rq, 22, rq, at, text, size);
}

/*
 * The job of both: every rank runs peer_cpu give or take spread points a
 * sample and waits peer_rq for a CPU (-1: the rest of the time, 100 less
 * its CPU); rank 2 of node 1 runs cpu and waits rq.  The job's flags
 * after 20 samples; *at: the sample the rank was raised at (0 none), text
 * its event.
 */
static unsigned
demand_flags(double peer_cpu, double spread, double peer_rq, double cpu,
    double rq, int *at, char *text, size_t size)
{
	struct job		 j;
	const struct hist_rank	*hr;
	unsigned		 f;
	int			 s, i, k;

	job_init(&j);
	*at = 0;
	text[0] = '\0';
	for (s = 1; s <= 20; s++) {
		for (i = 0; i < NODES; i++)
			for (k = 0; k < RANKS; k++) {
				j.n[i].r[k].cpu = peer_cpu + spread * rnd();
				j.n[i].r[k].rq = peer_rq >= 0 ? peer_rq :
				    100 - j.n[i].r[k].cpu;
			}
		j.n[1].r[2].cpu = cpu;
		j.n[1].r[2].rq = rq;
		job_step(&j, 0);
		hr = job_rank(&j, 1, 2);
		if (*at == 0 && hr != NULL && (hr->flags & DF_STRAGGLER)) {
			*at = s;
			for (k = 0; k < j.nevents && k < 64; k++)
				if (j.ev[k].flag == DF_STRAGGLER && j.ev[k].raised)
					snprintf(text, size, "%s", j.ev[k].text);
		}
	}
	f = job_flags(&j);
	job_free(&j);
	return f;
}

static void
test_straggler_hungry(void)
{
	char	text[512];
	int	at;

	CHECK_INT(hungry_flags(24, 16, &at, text, sizeof(text)),
	    DF_STRAGGLER);
	CHECK(at >= 5 && at <= 10);
	printf("  hungry rank flagged at sample %d\n", at);
	CHECK(strstr(text, "n2 rank 6") != NULL);
	CHECK(strstr(text, "it works while they wait") != NULL);
	if (strstr(text, "it works while") == NULL)
		printf("  event: %s\n", text);
	CHECK_INT(hungry_flags(0, 0, &at, text, sizeof(text)), 0);
	CHECK_INT(at, 0);
	CHECK_INT(hungry_flags(24, 24, &at, text, sizeof(text)), 0);
	CHECK_INT(at, 0);
}

/* Memory: over 90% for 2 samples raises; under 85% clears. */
static void
test_memory(void)
{
	struct job	j;
	int		s;

	job_init(&j);
	job_step(&j, 0);
	j.n[6].mem_used_pct = 95;
	job_step(&j, 0);
	CHECK_INT(detect_node_flags(j.d, 6) & DF_MEMORY, 0);
	job_step(&j, 0);
	CHECK_INT(detect_node_flags(j.d, 6) & DF_MEMORY, DF_MEMORY);
	CHECK_NEAR(history_node_get(j.h, 6, HN_MEMPCT, 0), 95, 0.01);
	j.n[6].mem_used_pct = 87;
	for (s = 0; s < 3; s++)
		job_step(&j, 0);
	CHECK_INT(detect_node_flags(j.d, 6) & DF_MEMORY, DF_MEMORY);
	j.n[6].mem_used_pct = 80;
	job_step(&j, 0);
	CHECK_INT(detect_node_flags(j.d, 6), 0);
	job_free(&j);
}

/* The job's cgroup limit, when a node sends one, is the limit. */
static void
test_cgroup_memory(void)
{
	struct job	j;

	job_init(&j);
	j.n[4].cg_max = 4LL << 30;
	j.n[4].cg_current = 2LL << 30;
	job_step(&j, 0);
	job_step(&j, 0);
	CHECK_NEAR(history_node_mem_limit(j.h, 4), 4.0 * (1 << 30), 1);
	CHECK_NEAR(history_node_get(j.h, 4, HN_MEMPCT, 0), 50, 0.01);
	CHECK_INT(detect_node_flags(j.d, 4), 0);
	j.n[4].cg_current = (int64_t)(3.8 * (1 << 30));
	/* And one rank holds most of it. */
	j.n[4].r[0].rss = (int64_t)(3.7 * (1 << 30));
	job_step(&j, 0);
	job_step(&j, 0);
	CHECK_INT(detect_node_flags(j.d, 4), DF_MEMORY);
	CHECK(job_rank(&j, 4, 0) != NULL &&
	    job_rank(&j, 4, 0)->flags == DF_MEMORY);
	CHECK(job_rank(&j, 4, 1) != NULL && job_rank(&j, 4, 1)->flags == 0);
	/* Other nodes: 30% of 64G, no flag. */
	CHECK_INT(detect_node_flags(j.d, 3), 0);
	job_free(&j);
}

/* No job cgroup on the node: the memory the scheduler allocated a node
 * (conf.mem_node, --mem) is a rank's limit.  A rank holding 300 of 330 MiB
 * is flagged; with no allocation known, nothing is (the node's 64 GiB are
 * no rank's limit). */
static void
test_sched_memory(void)
{
	struct detect_conf	c;
	struct job		j;

	detect_conf_default(&c);
	c.mem_node = 330.0 * (1 << 20);
	job_init_conf(&j, &c);
	j.n[1].r[0].rss = 300LL << 20;
	job_step(&j, 0);
	job_step(&j, 0);
	job_step(&j, 0);
	CHECK(job_rank(&j, 1, 0) != NULL &&
	    job_rank(&j, 1, 0)->flags == DF_MEMORY);
	CHECK(job_rank(&j, 1, 1) != NULL && job_rank(&j, 1, 1)->flags == 0);
	job_free(&j);

	job_init(&j);
	j.n[1].r[0].rss = 300LL << 20;
	job_step(&j, 0);
	job_step(&j, 0);
	job_step(&j, 0);
	CHECK(job_rank(&j, 1, 0) != NULL && job_rank(&j, 1, 0)->flags == 0);
	job_free(&j);
}

/* Lost and back, from the session. */
static void
test_lost(void)
{
	struct job	j;
	const char	*names[4];

	job_init(&j);
	job_step(&j, 0);
	detect_node_state(j.d, 3, "n4", 1, "lost: no data for 2.5 s", 1);
	CHECK_INT(detect_node_flags(j.d, 3), DF_LOST);
	CHECK_STR(j.ev[0].code, "lost");
	CHECK(strstr(j.ev[0].text, "n4 lost") != NULL);
	detect_node_state(j.d, 3, "n4", 1, "reconnecting", 2);
	CHECK_INT(j.nevents, 1);
	detect_node_state(j.d, 3, "n4", 0, "live", 3);
	CHECK_INT(detect_node_flags(j.d, 3), 0);
	CHECK_STR(j.ev[1].code, "lost-cleared");
	CHECK_INT(detect_flag_names(DF_STALLED | DF_LOST, names, 4), 2);
	CHECK_STR(names[0], "stalled");
	CHECK_STR(names[1], "lost");
	CHECK_STR(detect_flag_name(DF_MEMORY), "memory");
	CHECK(detect_flag_name(3) == NULL);
	job_free(&j);
}

/* A process without a rank id (the batch shell) is not judged against
 * the ranks. */
static void
test_unranked(void)
{
	struct job	j;
	int		s;

	job_init(&j);
	j.n[0].r[3].rank = -1;
	j.n[0].r[3].cpu = 0;
	snprintf(j.n[0].r[3].state, 4, "S");
	for (s = 0; s < 10; s++)
		job_step(&j, 2);
	CHECK_INT(job_flags(&j), 0);
	job_free(&j);
}

/* A reconnect: a new stream, same processes; the history goes on. */
static void
test_reconnect(void)
{
	struct job		 j;
	const struct hist_rank	*hr;
	const struct node_model	*m;
	unsigned		 len;
	int			 s;

	job_init(&j);
	for (s = 0; s < 5; s++)
		job_step(&j, 0);
	hr = job_rank(&j, 0, 0);
	CHECK(hr != NULL);
	len = hr != NULL ? hr->len : 0;
	/* A new probe: new stream and model, counters from the same
	 * processes, instance ids from scratch. */
	stream_free(j.n[0].st);
	j.n[0].st = stream_new("n1");
	j.n[0].started = 0;
	memset(j.n[0].oldp, 0, sizeof(j.n[0].oldp));
	for (s = 0; s < RANKS; s++) {
		j.n[0].r[s].added = 0;
		j.n[0].r[s].oldp = 0;
	}
	CHECK(synth_node_step(&j.n[0]) == MSG_SAMPLE);
	m = synth_model(&j.n[0]);
	history_node_sample(j.h, 0, m, j.now);
	hr = job_rank(&j, 0, 0);
	CHECK(hr != NULL && hr->len == len + 1);
	CHECK(hr != NULL && isnan(history_rank_get(hr, HR_CPU, 0)));
	CHECK(hr != NULL && isfinite(history_rank_get(hr, HR_CPU, 1)));
	/* Ticks carry over: the next sample has a delta again. */
	CHECK(synth_node_step(&j.n[0]) == MSG_SAMPLE);
	history_node_sample(j.h, 0, synth_model(&j.n[0]), j.now + 1000);
	hr = job_rank(&j, 0, 0);
	CHECK(hr != NULL && hr->dticks > 0);
	CHECK(hr != NULL && isfinite(history_rank_get(hr, HR_CPU, 0)));
	job_free(&j);
}

/* Series are oldest first and NaN-padded. */
static void
test_series(void)
{
	struct job	j;
	float		v[8];
	int		s;

	job_init(&j);
	for (s = 0; s < 3; s++)
		job_step(&j, 0);
	history_node_series(j.h, 0, HN_CPU, v, 8);
	CHECK(isnan(v[0]) && isnan(v[5]));
	CHECK(isnan(v[5]));	/* the first sample has no rate */
	CHECK_NEAR(v[6], 90, 0.5);
	CHECK_NEAR(v[7], 90, 0.5);
	CHECK_NEAR(history_node_get(j.h, 0, HN_DISK, 0), 1 << 20, 2);
	CHECK_NEAR(history_node_get(j.h, 0, HN_NET, 0), 2 << 20, 2);
	CHECK_NEAR(history_node_get(j.h, 0, HN_PROBE_BYTES, 0), 300, 1);
	CHECK_NEAR(history_job_get(j.h, HN_DISK, 0), NODES * (1 << 20),
	    NODES * 2);
	CHECK(isnan(history_node_get(j.h, 0, HN_GPU, 0)));
	job_free(&j);
}

/* The events of one code since event k; the first in *first. */
static int
job_events(const struct job *j, int k, const char *code,
    const struct detect_event **first)
{
	int	n = 0;

	*first = NULL;
	for (; k < j->nevents && k < 64; k++) {
		if (strcmp(j->ev[k].code, code) != 0)
			continue;
		if (n++ == 0)
			*first = &j->ev[k];
	}
	return n;
}

/* A job of 32 tasks: the ranks at the start are no news; one that exits
 * is one event naming node, rank, pid and command, and the count says
 * "31 of 32"; one that appears later is an event too. */
static void
test_member_exit(void)
{
	struct detect_conf		 c;
	struct job			 j;
	const struct detect_event	*e;
	int				 s, k;

	detect_conf_default(&c);
	c.ntasks = NODES * RANKS;
	job_init_conf(&j, &c);
	CHECK_INT(detect_ranks(j.d), -1);	/* nothing seen yet */
	CHECK_INT(detect_ntasks(j.d), NODES * RANKS);
	for (s = 0; s < 5; s++)
		job_step(&j, 2);
	CHECK_INT(j.nevents, 0);
	CHECK_INT(detect_ranks(j.d), NODES * RANKS);

	j.n[2].r[1].gone = 1;
	job_step(&j, 2);
	CHECK_INT(detect_ranks(j.d), NODES * RANKS - 1);
	CHECK_INT(j.nevents, 1);
	CHECK_STR(j.ev[0].code, "rank-exit");
	CHECK_INT(j.ev[0].level, EV_WARN);
	CHECK_INT(j.ev[0].member, -1);
	CHECK_INT(j.ev[0].node, 2);
	CHECK_INT(j.ev[0].rank, 9);
	CHECK_INT(j.ev[0].pid, 1009);
	CHECK_INT(j.ev[0].flag, 0);
	CHECK_STR(j.ev[0].text,
	    "rank 9 (pid 1009, solver) exited on n3; ranks 31 of 32");
	/* Its peers going on is no news. */
	for (s = 0; s < 5; s++)
		job_step(&j, 2);
	CHECK_INT(j.nevents, 1);
	CHECK_INT(detect_ranks(j.d), NODES * RANKS - 1);

	/* A new rank (a new step, a respawn) after the first sample. */
	k = synth_node_add_rank(&j.n[4], 40, 4040, "post\033[2Jproc");
	CHECK(k >= 0);
	job_step(&j, 2);
	CHECK_INT(job_events(&j, 1, "rank-appear", &e), 1);
	CHECK(e != NULL && e->node == 4 && e->rank == 40 && e->pid == 4040 &&
	    e->level == EV_INFO && e->member == 1);
	/* The command is foreign text: cleaned before it is kept. */
	CHECK_STR(e != NULL ? e->text : "",
	    "rank 40 (pid 4040, post?[2Jproc) appeared on n5; ranks 32 of 32");
	CHECK_INT(detect_ranks(j.d), NODES * RANKS);
	job_free(&j);
}

/* A rank's helper child carries its rank id: no event when it comes or
 * goes, and when the rank's first process ends while the child goes on,
 * the rank is still there; its exit then names the child. */
static void
test_member_children(void)
{
	struct job			 j;
	const struct detect_event	*e;
	int				 s, k;

	job_init(&j);
	for (s = 0; s < 3; s++)
		job_step(&j, 2);
	k = synth_node_add_rank(&j.n[1], 5, 2222, "sh");
	CHECK(k >= 0);
	job_step(&j, 2);
	CHECK_INT(j.nevents, 0);
	CHECK_INT(detect_ranks(j.d), NODES * RANKS);
	j.n[1].r[1].gone = 1;		/* rank 5's own process */
	job_step(&j, 2);
	CHECK_INT(j.nevents, 0);
	CHECK_INT(detect_ranks(j.d), NODES * RANKS);
	j.n[1].r[k].gone = 1;
	job_step(&j, 2);
	CHECK_INT(job_events(&j, 0, "rank-exit", &e), 1);
	CHECK_STR(e != NULL ? e->text : "",
	    "rank 5 (pid 2222, sh) exited on n2; ranks 31");
	/* A process without a rank id (the batch shell) is no member. */
	k = synth_node_add_rank(&j.n[0], -1, 3333, "bash");
	job_step(&j, 2);
	j.n[0].r[k].gone = 1;
	job_step(&j, 2);
	CHECK_INT(j.nevents, 1);
	CHECK_INT(detect_ranks(j.d), NODES * RANKS - 1);
	job_free(&j);
}

/* Many ranks of a node at once: one line; after the job ended, none. */
static void
test_member_many(void)
{
	struct detect_conf		 c;
	struct job			 j;
	const struct detect_event	*e;
	int				 s, k;

	detect_conf_default(&c);
	c.ntasks = NODES * RANKS;
	job_init_conf(&j, &c);
	for (s = 0; s < 3; s++)
		job_step(&j, 2);
	for (k = 0; k < RANKS; k++)
		j.n[5].r[k].gone = 1;
	job_step(&j, 2);
	CHECK_INT(j.nevents, 1);
	CHECK_STR(j.ev[0].code, "rank-exit");
	CHECK_INT(j.ev[0].count, RANKS);
	CHECK_INT(j.ev[0].rank, -1);
	CHECK_STR(j.ev[0].text,
	    "4 ranks exited on n6 (ranks 20-23); ranks 28 of 32");
	/* Two at once are still named one by one. */
	j.n[6].r[0].gone = j.n[6].r[2].gone = 1;
	job_step(&j, 2);
	CHECK_INT(job_events(&j, 1, "rank-exit", &e), 2);
	CHECK_INT(detect_ranks(j.d), 26);
	/* The scheduler says the job ended: its ranks leave quietly. */
	detect_job_ended(j.d);
	for (k = 0; k < RANKS; k++)
		j.n[7].r[k].gone = 1;
	j.n[0].r[0].gone = 1;
	job_step(&j, 2);
	CHECK_INT(j.nevents, 3);
	CHECK_INT(detect_ranks(j.d), 21);
	job_free(&j);
}

/* Ids in a grouped event: ranges, and a cut that fits the line. */
static void
test_member_idlist(void)
{
	struct detect_conf	 c;
	struct job		 j;
	int			 s, k;

	detect_conf_default(&c);
	c.member_group = 2;
	job_init_conf(&j, &c);
	for (s = 0; s < 2; s++)
		job_step(&j, 0);
	for (k = 0; k < 60; k++)
		synth_node_add_rank(&j.n[3], 1000 + 3 * k, 7000 + k, "x");
	job_step(&j, 0);
	CHECK_INT(j.nevents, 1);
	CHECK_STR(j.ev[0].code, "rank-appear");
	CHECK_INT(j.ev[0].count, 60);
	CHECK(strncmp(j.ev[0].text, "60 ranks appeared on n4 (ranks "
	    "1000,1003,1006,", 45) == 0);
	CHECK(strstr(j.ev[0].text, ",...); ranks 92") != NULL);
	j.n[3].r[0].gone = j.n[3].r[1].gone = j.n[3].r[3].gone = 1;
	job_step(&j, 0);
	CHECK_INT(j.nevents, 2);
	CHECK_STR(j.ev[1].text, "3 ranks exited on n4 (ranks 12-13,15); "
	    "ranks 89");
	job_free(&j);
}

/* A reconnect (a new probe, instance ids from scratch) is no news for
 * the ranks still there; one that ended meanwhile exits then. */
static void
test_member_reconnect(void)
{
	struct job			 j;
	const struct node_model		*m;
	int				 s;

	job_init(&j);
	for (s = 0; s < 3; s++)
		job_step(&j, 0);
	stream_free(j.n[3].st);
	j.n[3].st = stream_new("n4");
	j.n[3].started = 0;
	memset(j.n[3].oldp, 0, sizeof(j.n[3].oldp));
	for (s = 0; s < RANKS; s++) {
		j.n[3].r[s].added = 0;
		j.n[3].r[s].oldp = 0;
	}
	j.n[3].r[2].gone = 1;	/* never in the new stream */
	CHECK(synth_node_step(&j.n[3]) == MSG_SAMPLE);
	m = synth_model(&j.n[3]);
	history_node_sample(j.h, 3, m, j.now);
	detect_node_sample(j.d, 3, m, m->time_ms);
	CHECK_INT(j.nevents, 1);
	CHECK_STR(j.ev[0].text,
	    "rank 14 (pid 1014, solver) exited on n4; ranks 31");
	job_step(&j, 0);
	CHECK_INT(j.nevents, 1);
	CHECK_INT(detect_ranks(j.d), NODES * RANKS - 1);
	job_free(&j);
}

/* Processes of a hostlist are no job's ranks: counted by the caller,
 * never an event. */
static void
test_member_hostlist(void)
{
	struct detect_conf	 c;
	struct job		 j;
	int			 s;

	detect_conf_default(&c);
	c.ranks = 0;
	job_init_conf(&j, &c);
	for (s = 0; s < 3; s++)
		job_step(&j, 0);
	j.n[0].r[0].gone = 1;
	synth_node_add_rank(&j.n[1], 77, 7777, "vim");
	job_step(&j, 0);
	CHECK_INT(j.nevents, 0);
	CHECK_INT(detect_ranks(j.d), -1);
	job_free(&j);
}

/*
 * The MPI rule (the mpi source's shares).  mpi_step draws each rank's
 * samples of the next interval: k samples, each in MPI with probability
 * p% (the others: p plus or minus noise points), the rank at (node
 * sn, index sk) with probability sp% (sp < 0: no sample at all); every
 * rank at cpu% CPU.
 */
static void
mpi_step(struct job *j, double cpu, int k, double p, double noise, int sn,
    int sk, double sp)
{
	struct synth_rank	*r;
	double			 q;
	int			 i, x, n, m;

	for (i = 0; i < NODES; i++) {
		j->n[i].mpi = 1;
		for (x = 0; x < RANKS; x++) {
			r = &j->n[i].r[x];
			r->cpu = cpu;
			q = i == sn && x == sk ? sp : p + noise * rnd();
			for (n = 0, m = 0; n < k && q >= 0; n++)
				m += (rnd() + 1) / 2 * 100 < q;
			r->mpi_dk = q >= 0 ? k : 0;
			r->mpi_dm = m;
		}
	}
	job_step(j, 0);
}

/* Ranks that share CPUs (50% each) and wait partly in the kernel: the
 * waiting ranks' shares are 20-50%, the straggler's 0.  The MAD of such
 * noisy shares keeps the distance test quiet; the ratio test flags it. */
static void
test_mpi_straggler(void)
{
	struct job		 j;
	const struct hist_rank	*hr;
	int			 s, first = -1, e;

	job_init(&j);
	for (s = 0; s < 12; s++) {
		mpi_step(&j, 50, 50, 35, 15, 1, 2, 0);
		hr = job_rank(&j, 1, 2);
		if (first < 0 && hr != NULL && (hr->flags & DF_STRAGGLER))
			first = s;
	}
	/* The first sample has no rate, the second the first share: 5
	 * samples from the second on. */
	CHECK_INT(first, 5);
	CHECK_INT(job_flags(&j), DF_STRAGGLER);
	for (s = 0, e = -1; s < j.nevents && s < 64; s++)
		if (strcmp(j.ev[s].code, "straggler") == 0)
			e = e < 0 ? s : -2;
	CHECK(e >= 0);
	if (e >= 0) {
		CHECK(strstr(j.ev[e].text, "rank 6 (pid 1006) spends 0% of "
		    "its CPU time in MPI") != NULL);
		CHECK(strstr(j.ev[e].text, "the others wait for it") != NULL);
	}
	/* An interval without a sample neither clears nor counts. */
	mpi_step(&j, 50, 50, 35, 15, 1, 2, -1);
	CHECK(isnan(history_rank_get(job_rank(&j, 1, 2), HR_MPI, 0)));
	mpi_step(&j, 50, 50, 35, 15, 1, 2, 35);
	mpi_step(&j, 50, 50, 35, 15, 1, 2, 35);
	CHECK_INT(job_rank(&j, 1, 2)->flags, DF_STRAGGLER);
	/* Waiting like the others again: cleared after 3 samples. */
	mpi_step(&j, 50, 50, 35, 15, 1, 2, 35);
	CHECK_INT(job_flags(&j), 0);
	job_free(&j);
}

/* Balanced MPI jobs raise nothing in 600 samples: noisy shares of 20-50%;
 * ranks at 3% CPU with 3 samples an interval, where a share of 0 is
 * common but not improbable; 10 samples an interval; shares of 0-10%. */
static void
test_mpi_balanced(void)
{
	static const struct {
		double	cpu;
		int	k;
		double	p, noise;
	} c[] = {
		{ 50, 50, 35, 15 },
		{ 3, 3, 30, 0 },
		{ 50, 10, 30, 0 },
		{ 50, 50, 5, 5 },
	};
	struct job	j;
	size_t		i;
	int		s;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		job_init(&j);
		for (s = 0; s < 600; s++)
			mpi_step(&j, c[i].cpu, c[i].k, c[i].p, c[i].noise,
			    -1, -1, 0);
		CHECK_INT(job_flags(&j), 0);
		CHECK_INT(j.nevents, 0);
		job_free(&j);
	}
}

/*
 * One node of n ranks whose %CPU and run-queue delay come from a series
 * (cpu[s][k], rq[s][k]); returns the first sample (0-based) at which each
 * rank was flagged straggler in first[] (-1 never) and the union of all
 * flags raised.
 */
#define SERIES_MAX	128
#define SERIES_RANKS	4

struct series {
	int	 n, nranks;
	double	 cpu[SERIES_MAX][SERIES_RANKS];
	double	 rq[SERIES_MAX][SERIES_RANKS];
};

static unsigned
series_run(const struct series *se, int *first, int *last_flags)
{
	struct synth_node	 node;
	struct history		*h;
	struct detect		*d;
	const struct node_model	*m;
	const struct hist_rank	*hr;
	struct job		 dummy;
	unsigned		 all = 0;
	int			 s, k;

	memset(&dummy, 0, sizeof(dummy));
	synth_node_init(&node, "node1", se->nranks, 0, 1000);
	node.busy = 100;
	h = history_new();
	history_resize(h, 1);
	d = detect_new(h, NULL, on_event, &dummy);
	for (k = 0; k < se->nranks; k++)
		first[k] = -1;
	for (s = 0; s < se->n; s++) {
		for (k = 0; k < se->nranks; k++) {
			node.r[k].cpu = se->cpu[s][k];
			node.r[k].rq = isfinite(se->rq[s][k]) ?
			    se->rq[s][k] : 0;
		}
		CHECK(synth_node_step(&node) == MSG_SAMPLE);
		m = synth_model(&node);
		history_node_sample(h, 0, m, 1000 + (uint64_t)s * 1000);
		detect_node_sample(d, 0, m, m->time_ms);
		for (k = 0; k < se->nranks; k++) {
			hr = history_rank_find(h, 0, node.r[k].pid, -1);
			if (hr == NULL)
				continue;
			all |= hr->flags;
			if (first[k] < 0 && (hr->flags & DF_STRAGGLER))
				first[k] = s;
			if (last_flags != NULL)
				last_flags[k] = (int)hr->flags;
		}
	}
	detect_free(d);
	history_free(h);
	synth_node_free(&node);
	return all;
}

/*
 * A series recorded on a real machine (tests/data/detect/NAME.txt, see
 * the comments there): rows where the probe left a rank out (root's
 * busiest processes) are skipped whole, so every sample fed is real.
 */
static int
series_load(struct series *se, const char *name)
{
	char		 path[1024], line[512];
	const char	*top = getenv("TOP");
	FILE		*f;
	double		 t, c[SERIES_RANKS], q[SERIES_RANKS];
	int		 k, ok;

	memset(se, 0, sizeof(*se));
	se->nranks = SERIES_RANKS;
	snprintf(path, sizeof(path), "%s/tests/data/detect/%s.txt",
	    top != NULL ? top : ".", name);
	if ((f = fopen(path, "r")) == NULL) {
		printf("cannot open %s\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL && se->n < SERIES_MAX) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf", &t,
		    &c[0], &q[0], &c[1], &q[1], &c[2], &q[2], &c[3],
		    &q[3]) != 9)
			continue;
		for (k = 0, ok = 1; k < SERIES_RANKS; k++)
			ok &= isfinite(c[k]) && isfinite(q[k]);
		if (!ok)
			continue;
		for (k = 0; k < SERIES_RANKS; k++) {
			se->cpu[se->n][k] = c[k];
			se->rq[se->n][k] = q[k];
		}
		se->n++;
	}
	fclose(f);
	return se->n;
}

/* Recorded with a CPU hog beside the ranks on a loaded 2-CPU machine: the
 * rank at 1% duty among ranks at 3-20% (all waiting 70-120% of the time
 * in the run queue, it 7-25%) is flagged within 10 samples, and no other
 * rank; the healthy job's ranks jump 3-20% and nothing is flagged; a rank
 * asking 25% while the CPUs give everyone less runs like its peers and
 * is not flagged. */
static void
test_recorded_series(void)
{
	struct series	se;
	int		first[SERIES_RANKS], last[SERIES_RANKS];
	unsigned	all;

	CHECK(series_load(&se, "duty1-straggler") >= 50);
	all = series_run(&se, first, last);
	CHECK(first[3] >= 0 && first[3] < 10);
	CHECK_INT(first[0], -1);
	CHECK_INT(first[1], -1);
	CHECK_INT(first[2], -1);
	CHECK_INT(all, DF_STRAGGLER);
	CHECK_INT(last[3], DF_STRAGGLER);

	CHECK(series_load(&se, "healthy-noisy") >= 50);
	CHECK_INT(series_run(&se, first, NULL), 0);

	CHECK(series_load(&se, "duty25-overloaded") >= 50);
	CHECK_INT(series_run(&se, first, NULL), 0);
}

/*
 * The case that motivated leave-one-out: four ranks at 55, 55, 73 and 13%
 * (rank 3 computes a quarter of the time) with the healthy ones jumping
 * 47-73%: rank 3 is flagged within 10 samples; the same job without it
 * raises nothing in 600 samples.
 */
static void
test_loo_four(void)
{
	struct series	se;
	int		first[SERIES_RANKS], s, k;

	memset(&se, 0, sizeof(se));
	se.nranks = 4;
	se.n = 100;
	for (s = 0; s < se.n; s++) {
		for (k = 0; k < 3; k++)
			se.cpu[s][k] = 60 + 13 * rnd();
		se.cpu[s][3] = 13 + 3 * rnd();
	}
	se.cpu[0][0] = se.cpu[0][1] = 55;
	se.cpu[0][2] = 73;
	se.cpu[0][3] = 13;
	CHECK_INT(series_run(&se, first, NULL), DF_STRAGGLER);
	CHECK(first[3] >= 0 && first[3] < 10);
	for (k = 0; k < 3; k++)
		CHECK_INT(first[k], -1);

	for (s = 0; s < 6; s++) {
		se.n = SERIES_MAX;
		for (k = 0; k < 4; k++)
			for (int t = 0; t < se.n; t++)
				se.cpu[t][k] = 60 + 13 * rnd();
		CHECK_INT(series_run(&se, first, NULL), 0);
	}
}

/* Few ranks: of two, the lower one under half the other is flagged and
 * the higher never; two ranks 30% apart are not; of three, a rank far
 * from two that agree is flagged, and nothing when the two disagree as
 * much. */
static void
test_few_ranks(void)
{
	struct series	se;
	int		first[SERIES_RANKS], s;

	memset(&se, 0, sizeof(se));
	se.nranks = 2;
	se.n = 40;
	for (s = 0; s < se.n; s++) {
		se.cpu[s][0] = 95 + 3 * rnd();
		se.cpu[s][1] = 30 + 3 * rnd();
	}
	CHECK_INT(series_run(&se, first, NULL), DF_STRAGGLER);
	CHECK_INT(first[0], -1);
	CHECK(first[1] >= 0 && first[1] < 10);
	for (s = 0; s < se.n; s++)
		se.cpu[s][1] = 65 + 3 * rnd();
	CHECK_INT(series_run(&se, first, NULL), 0);

	se.nranks = 3;
	for (s = 0; s < se.n; s++) {
		se.cpu[s][0] = 95 + 3 * rnd();
		se.cpu[s][1] = 92 + 3 * rnd();
		se.cpu[s][2] = 40 + 3 * rnd();
	}
	CHECK_INT(series_run(&se, first, NULL), DF_STRAGGLER);
	CHECK(first[2] >= 0 && first[2] < 10);
	CHECK(first[0] < 0 && first[1] < 0);
	for (s = 0; s < se.n; s++) {
		se.cpu[s][0] = 95 + 3 * rnd();
		se.cpu[s][1] = 50 + 3 * rnd();
		se.cpu[s][2] = 20 + 3 * rnd();
	}
	CHECK_INT(series_run(&se, first, NULL) & DF_STRAGGLER, 0);
	se.nranks = 1;
	for (s = 0; s < se.n; s++)
		se.cpu[s][0] = 5;
	CHECK_INT(series_run(&se, first, NULL), 0);
}

/* A one-node job of 4 ranks for the verdicts with a hint: n samples. */
struct hjob {
	struct synth_node	 node;
	struct history		*h;
	struct detect		*d;
	struct job		 ev;	/* its events (on_event) */
	uint64_t		 now;
};

static void
hjob_init(struct hjob *j)
{
	int	k;

	memset(j, 0, sizeof(*j));
	synth_node_init(&j->node, "node1", 4, 0, 1000);
	for (k = 0; k < 4; k++) {
		j->node.r[k].cpu = 95;
		j->node.r[k].cpus_allowed = 4;
		j->node.r[k].cpus_mask = 15;
	}
	j->h = history_new();
	history_resize(j->h, 1);
	j->d = detect_new(j->h, NULL, on_event, &j->ev);
	j->now = 1000;
}

static void
hjob_step(struct hjob *j, int n)
{
	const struct node_model	*m;

	while (n-- > 0) {
		CHECK(synth_node_step(&j->node) == MSG_SAMPLE);
		m = synth_model(&j->node);
		history_node_sample(j->h, 0, m, j->now);
		detect_node_sample(j->d, 0, m, m->time_ms);
		j->now += 1000;
	}
}

static void
hjob_free(struct hjob *j)
{
	detect_free(j->d);
	history_free(j->h);
	synth_node_free(&j->node);
}

/* The first event with this code, or NULL. */
static const struct detect_event *
hjob_event(const struct hjob *j, const char *code)
{
	int	k;

	for (k = 0; k < j->ev.nevents && k < 64; k++)
		if (strcmp(j->ev.ev[k].code, code) == 0)
			return &j->ev.ev[k];
	return NULL;
}

/* Ranks 0 and 1 pinned to CPU 0 (affinity of one CPU each): "pinned"
 * after 3 samples with the hint, cleared 3 samples after they are
 * unpinned; ranks each pinned to its own CPU say nothing. */
static void
test_hint_pinned(void)
{
	struct hjob			 j;
	const struct detect_event	*ev;
	unsigned			 p, io, mg;
	int				 k;

	hjob_init(&j);
	for (k = 0; k < 2; k++) {
		j.node.r[k].cpus_allowed = 1;
		j.node.r[k].cpus_mask = 1;
		j.node.r[k].cpu = 50;
	}
	hjob_step(&j, 2);
	CHECK(hjob_event(&j, "pinned") == NULL);
	hjob_step(&j, 1);
	ev = hjob_event(&j, "pinned");
	CHECK(ev != NULL);
	if (ev != NULL) {
		CHECK(strstr(ev->text, "node1: ranks 0 and 1 share CPU 0 "
		    "while CPU ") != NULL);
		CHECK(strstr(ev->text, "check --cpu-bind or taskset") != NULL);
		CHECK_INT(ev->level, EV_WARN);
	}
	detect_hint_counts(j.d, &p, &io, &mg);
	CHECK_INT(p, 1);
	CHECK_INT(io + mg, 0);
	for (k = 0; k < 2; k++) {
		j.node.r[k].cpus_allowed = 4;
		j.node.r[k].cpus_mask = 15;
	}
	hjob_step(&j, 3);
	CHECK(hjob_event(&j, "pinned-cleared") != NULL);
	detect_hint_counts(j.d, &p, &io, &mg);
	CHECK_INT(p, 0);
	hjob_free(&j);

	hjob_init(&j);
	for (k = 0; k < 4; k++) {
		j.node.r[k].cpus_allowed = 1;
		j.node.r[k].cpus_mask = 1 << k;
	}
	hjob_step(&j, 10);
	CHECK(hjob_event(&j, "pinned") == NULL);
	hjob_free(&j);
}

/* A rank in state D with a block I/O delay of 80%: "io-bound" after 3
 * samples naming it; a rank in D without the delay (a short NFS wait
 * unmeasured) is not; a large delay makes it I/O-bound whatever state a
 * sample finds it in. */
static void
test_hint_io(void)
{
	struct hjob			 j;
	const struct detect_event	*ev;

	hjob_init(&j);
	snprintf(j.node.r[2].state, 4, "D");
	j.node.r[2].cpu = 10;
	j.node.r[2].blkio = 80;
	j.node.r[3].cpu = 10;
	snprintf(j.node.r[3].state, 4, "D");
	hjob_step(&j, 4);
	ev = hjob_event(&j, "io-bound");
	CHECK(ev != NULL);
	if (ev != NULL) {
		CHECK_INT(ev->rank, 2);
		CHECK(strstr(ev->text, "rank 2") != NULL);
		CHECK(strstr(ev->text, "I/O-bound (state D, waiting on "
		    "storage: block I/O delay 80% of the time)") != NULL);
	}
	CHECK_INT(j.ev.nevents >= 1, 1);
	j.node.r[2].blkio = 0;
	snprintf(j.node.r[2].state, 4, "R");
	hjob_step(&j, 3);
	CHECK(hjob_event(&j, "io-bound-cleared") != NULL);
	hjob_free(&j);

	/* A rank waiting on storage 70% of the time that the samples find
	 * in R between two synchronous writes is I/O-bound all the same; one
	 * at 15% found in S is not (its state says nothing of a wait). */
	hjob_init(&j);
	snprintf(j.node.r[1].state, 4, "R");
	j.node.r[1].cpu = 20;
	j.node.r[1].blkio = 70;
	snprintf(j.node.r[3].state, 4, "S");
	j.node.r[3].cpu = 20;
	j.node.r[3].blkio = 15;
	hjob_step(&j, 4);
	ev = hjob_event(&j, "io-bound");
	CHECK(ev != NULL);
	if (ev != NULL)
		CHECK_INT(ev->rank, 1);
	CHECK_INT(j.ev.nevents, 1);
	hjob_free(&j);

	/* On a node whose CPUs are taken: 15% on storage while it waits 55%
	 * for a CPU is a third of its time off the run queue, I/O-bound in
	 * whatever state (the event says both shares); 15% with 5% queued
	 * (16% of the rest) is not. */
	hjob_init(&j);
	snprintf(j.node.r[1].state, 4, "R");
	j.node.r[1].cpu = 20;
	j.node.r[1].blkio = 15;
	j.node.r[1].rq = 55;
	snprintf(j.node.r[3].state, 4, "S");
	j.node.r[3].cpu = 20;
	j.node.r[3].blkio = 15;
	j.node.r[3].rq = 5;
	hjob_step(&j, 4);
	ev = hjob_event(&j, "io-bound");
	CHECK(ev != NULL);
	if (ev != NULL) {
		CHECK_INT(ev->rank, 1);
		CHECK(strstr(ev->text, "I/O-bound (waiting on storage: block "
		    "I/O delay 15% of the time, 33% off the run queue)") !=
		    NULL);
	}
	CHECK_INT(j.ev.nevents, 1);
	hjob_free(&j);
}

/* The job's memory grows 100 MiB/s toward a 4 GiB limit from 2 GiB:
 * "mem-growth" with the time left, before the limit; a flat job with
 * noise says nothing. */
static void
test_hint_memgrow(void)
{
	struct hjob			 j;
	const struct detect_event	*ev;
	int				 s, at = -1;

	hjob_init(&j);
	j.node.cg_max = 4LL << 30;
	j.node.cg_current = 2LL << 30;
	for (s = 0; s < 20; s++) {
		j.node.cg_current += 100LL << 20;
		hjob_step(&j, 1);
		if (at < 0 && hjob_event(&j, "mem-growth") != NULL)
			at = s;
	}
	ev = hjob_event(&j, "mem-growth");
	CHECK(ev != NULL && at >= 9 && at < 15);
	if (ev != NULL) {
		CHECK(strstr(ev->text, "node1: memory grows 10") != NULL);
		CHECK(strstr(ev->text, "the limit in about") != NULL);
	}
	hjob_free(&j);

	hjob_init(&j);
	j.node.cg_max = 4LL << 30;
	for (s = 0; s < 100; s++) {
		j.node.cg_current = (3LL << 30) + (int64_t)(rnd() * (50 <<
		    20));
		hjob_step(&j, 1);
	}
	CHECK(hjob_event(&j, "mem-growth") == NULL);
	hjob_free(&j);
}

/* The allocation used a fraction: a job given 16 CPUs and 64 GiB a node
 * whose 4 ranks use 3.8 CPUs and whose cgroup holds 3 GiB says both once
 * it has been watched conf.alloc_ms (not before), with what would do;
 * the memory hint clears when the job later holds 20 GiB; the header's
 * state follows.  Unknown allocations (0) and a hostlist (-w) say
 * nothing. */
static void
test_hint_alloc(void)
{
	struct detect_conf		 c;
	struct hjob			 j;
	const struct detect_event	*ev;
	int				 pass, am, ac;

	for (pass = 0; pass < 3; pass++) {
		hjob_init(&j);
		detect_free(j.d);
		detect_conf_default(&c);
		c.alloc_ms = 10000;
		if (pass != 1) {
			c.cpus_node = 16;
			c.mem_node = 64.0 * (1 << 30);
		}
		c.ranks = pass != 2;
		j.d = detect_new(j.h, &c, on_event, &j.ev);
		j.node.cg_max = 128LL << 30;
		j.node.cg_current = 3LL << 30;
		hjob_step(&j, 10);
		CHECK(hjob_event(&j, "alloc-mem") == NULL);
		CHECK(hjob_event(&j, "alloc-cpu") == NULL);
		hjob_step(&j, 2);
		if (pass == 1) {
			/* No scheduler memory: the cgroup's 128 GiB. */
			ev = hjob_event(&j, "alloc-mem");
			CHECK(ev != NULL && strstr(ev->text, "uses 3.00 GiB of "
			    "128 GiB memory per node at most: --mem=4G would "
			    "do") != NULL);
			CHECK(hjob_event(&j, "alloc-cpu") == NULL);
			hjob_free(&j);
			continue;
		}
		if (pass == 2) {
			CHECK(hjob_event(&j, "alloc-mem") == NULL);
			CHECK(hjob_event(&j, "alloc-cpu") == NULL);
			hjob_free(&j);
			continue;
		}
		ev = hjob_event(&j, "alloc-mem");
		CHECK(ev != NULL && strcmp(ev->text, "the job uses 3.00 GiB of "
		    "64.0 GiB memory per node at most: --mem=4G would do") ==
		    0);
		CHECK(ev != NULL && ev->raised && ev->node == 0);
		ev = hjob_event(&j, "alloc-cpu");
		CHECK(ev != NULL && strcmp(ev->text, "the job uses 3.8 of 16 "
		    "CPUs per node at most: 5 CPUs per node would do") == 0);
		detect_alloc_said(j.d, &am, &ac);
		CHECK_INT(am, 1);
		CHECK_INT(ac, 1);
		/* Said once. */
		hjob_step(&j, 5);
		CHECK_INT(j.ev.nevents, 2);
		j.node.cg_current = 20LL << 30;
		hjob_step(&j, 2);
		ev = hjob_event(&j, "alloc-mem-cleared");
		CHECK(ev != NULL && !ev->raised);
		detect_alloc_said(j.d, &am, &ac);
		CHECK_INT(am, 0);
		CHECK_INT(ac, 1);
		hjob_free(&j);
	}
}

/* A node without a job cgroup (its limit is its own 64 GiB) where the
 * scheduler allocated 1 GiB: rank 1's resident memory grows 20 MiB/s from
 * 300 MiB: "mem-growth" against the 1 GiB, from the ranks' memory, before
 * the limit; without the allocation known nothing is said (the node's
 * memory in use does not move); flat ranks with noise say nothing. */
static void
test_hint_memgrow_ranks(void)
{
	struct detect_conf		 c;
	struct hjob			 j;
	const struct detect_event	*ev;
	int				 s, at, pass;

	for (pass = 0; pass < 3; pass++) {
		hjob_init(&j);
		detect_free(j.d);
		detect_conf_default(&c);
		if (pass != 1)
			c.mem_node = 1024.0 * (1 << 20);
		j.d = detect_new(j.h, &c, on_event, &j.ev);
		j.node.r[1].rss = 300LL << 20;
		at = -1;
		for (s = 0; s < 30; s++) {
			if (pass == 2)
				j.node.r[1].rss = (300LL << 20) +
				    (int64_t)(rnd() * (20 << 20));
			else
				j.node.r[1].rss += 20LL << 20;
			hjob_step(&j, 1);
			if (at < 0 && hjob_event(&j, "mem-growth") != NULL)
				at = s;
		}
		ev = hjob_event(&j, "mem-growth");
		if (pass == 0) {
			CHECK(ev != NULL && at >= 9 && at < 15);
			if (ev != NULL) {
				CHECK(strstr(ev->text, "node1: memory grows "
				    "2") != NULL);
				CHECK(strstr(ev->text, "of 1.1 GB") != NULL);
			}
		} else
			CHECK(ev == NULL);
		hjob_free(&j);
	}
}

int
main(void)
{
	RUN(test_healthy);
	RUN(test_history_packed);
	RUN(test_stall);
	RUN(test_no_stall);
	RUN(test_straggler_node);
	RUN(test_straggler_rank);
	RUN(test_straggler_hysteresis);
	RUN(test_straggler_starved);
	RUN(test_straggler_contended);
	RUN(test_straggler_sleeper);
	RUN(test_straggler_hungry);
	RUN(test_memory);
	RUN(test_cgroup_memory);
	RUN(test_sched_memory);
	RUN(test_lost);
	RUN(test_unranked);
	RUN(test_reconnect);
	RUN(test_series);
	RUN(test_member_exit);
	RUN(test_member_children);
	RUN(test_member_many);
	RUN(test_member_idlist);
	RUN(test_member_reconnect);
	RUN(test_member_hostlist);
	RUN(test_mpi_straggler);
	RUN(test_mpi_balanced);
	RUN(test_recorded_series);
	RUN(test_loo_four);
	RUN(test_few_ranks);
	RUN(test_hint_pinned);
	RUN(test_hint_io);
	RUN(test_hint_memgrow);
	RUN(test_hint_memgrow_ranks);
	RUN(test_hint_alloc);
	return harness_done();
}
