/* SPDX-License-Identifier: ISC */
/*
 * test-ui-big: a job of 1024 nodes with 32 ranks each, synthetic streams
 * through the real decoder into the real history, detectors and panels,
 * drawn into a 200x60 curses screen on /dev/null.  As a unit test it
 * checks that the node table folds look-alike nodes while an outlier keeps
 * its row and that the rank table holds all 32768 ranks.  With
 * JOBTOP_BENCH=1 it is the measuring part of tests/bench/bench-ui.sh: it
 * times frames of each view and the monitor's CPU per simulated second at
 * 1 Hz (decode, history, detectors, a job tick and a frame), and prints
 * "name value unit" lines.  JOBTOP_BENCH_SOURCES=1 gives every node the
 * optional sources too (two GPUs, InfiniBand, Lustre, NFS, RAPL, sensors,
 * perf counters and NUMA placement of every rank).
 */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "ui-priv.h"
#include "test-ui-synth.h"

#define NODES	1024
#define RANKS	32

static struct synth_node	*nodes;
static uint64_t			 now = 100000;

static const struct node_model *
models(void *arg, int i)
{
	return synth_model(&nodes[i]);
}

static double
cpu_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One simulated second: every node's sample decoded and recorded.  The
 * encoding (the probes' work) is done first and not counted in *spent. */
static void
second(struct ui *ui, double *spent)
{
	static long	len[NODES];
	double		t;
	int		i;

	for (i = 0; i < NODES; i++) {
		nodes[i].busy = 90 + (i * 7 % 10) * 0.5;
		len[i] = synth_node_encode(&nodes[i]);
	}
	t = cpu_ms();
	for (i = 0; i < NODES; i++) {
		if (synth_node_feed(&nodes[i], len[i]) != MSG_SAMPLE)
			CHECK(0);
		ui_node_sample(ui, i, synth_model(&nodes[i]), now);
	}
	now += 1000;
	ui_job_tick(ui, now);
	if (spent != NULL)
		*spent += cpu_ms() - t;
}

/* Mean CPU ms of n frames of the current view (CPU, not wall time: the
 * figure must not depend on what else the machine runs).  fresh: as if
 * a sample came before each frame, so nothing prepared can be reused. */
static double
frames(struct ui *ui, int n, int fresh)
{
	double	t = cpu_ms();
	int	k;

	for (k = 0; k < n; k++) {
		if (fresh)
			ui->data_gen++;
		ui->dirty = 1;
		ui_frame(ui, now);
	}
	return (cpu_ms() - t) / n;
}

int
main(void)
{
	struct ui_conf	 c;
	struct ui	*ui;
	FILE		*out, *in;
	char		 name[32], err[256], line[1024];
	double		 spent = 0, f_nodes, f_ranks, f_detail, f_flat, t0;
	double		 f_ranks_again, f_ranks_cpu;
	int		 i, k, y, bench = getenv("JOBTOP_BENCH") != NULL;
	int		 seconds = bench ? 30 : 0, found;
	int		 sources = getenv("JOBTOP_BENCH_SOURCES") != NULL;

	setlocale(LC_CTYPE, "C.UTF-8");
	setenv("TERM", "xterm-256color", 1);
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	nodes = calloc(NODES, sizeof(*nodes));
	if (out == NULL || in == NULL || nodes == NULL)
		return 1;
	memset(&c, 0, sizeof(c));
	c.job_id = "1";
	c.interval = 1;
	c.utf8 = 1;
	c.theme = "default";
	ui = ui_new(&c, err, sizeof(err));
	CHECK(ui != NULL);
	if (ui == NULL)
		return harness_done();
	t0 = cpu_ms();
	for (i = 0; i < NODES; i++) {
		snprintf(name, sizeof(name), "node%04d", i + 1);
		synth_node_init(&nodes[i], name, RANKS, i * RANKS, 1000);
		if (sources)
			synth_node_extra(&nodes[i]);
		ui_add_node(ui, name, 0);
		ui_node_state(ui, i, "live", 0);
	}
	ui_set_models(ui, models, NULL);
	CHECK_INT(ui_start_on(ui, out, in, "xterm-256color", 60, 200, err,
	    sizeof(err)), 0);
	for (k = 0; k < 3; k++)
		second(ui, NULL);
	/* An outlier: one node at 10% CPU. */
	nodes[500].busy = 10;
	if (bench)
		printf("setup_ms %.1f ms\n", cpu_ms() - t0);

	ui_frame(ui, now);
	for (y = 0, found = 0; y < ui->rows; y++) {
		ui_screen_line(ui, y, line, sizeof(line));
		if (strstr(line, "look-alike nodes folded") != NULL)
			found |= 1;
		if (strncmp(line, "node[", 5) == 0)
			found |= 2;
	}
	CHECK_INT(found, 3);
	ui_key(ui, 'r', now);
	ui_frame(ui, now);
	CHECK_INT(ui->nrrows, NODES * RANKS);
	ui_key(ui, 27, now);

	for (k = 0; k < seconds; k++)
		second(ui, &spent);
	if (!bench) {
		ui_free(ui);
		for (i = 0; i < NODES; i++)
			synth_node_free(&nodes[i]);
		free(nodes);
		fclose(out);
		fclose(in);
		return harness_done();
	}
	f_nodes = frames(ui, 200, 1);
	ui_key(ui, 'f', now);
	ui_key(ui, 'f', now);		/* never fold: 1024 rows */
	f_flat = frames(ui, 200, 1);
	ui_key(ui, 'f', now);
	ui_key(ui, 'r', now);		/* every rank: 32768 rows */
	f_ranks = frames(ui, 50, 1);
	f_ranks_again = frames(ui, 200, 0);
	ui_key(ui, 'P', now);		/* by %CPU: no order to reuse */
	f_ranks_cpu = frames(ui, 50, 1);
	ui_key(ui, '\r', now);
	f_detail = frames(ui, 200, 1);
	printf("frame_nodes_folded %.3f ms\n", f_nodes);
	printf("frame_nodes_flat %.3f ms\n", f_flat);
	printf("frame_ranks_all %.3f ms\n", f_ranks);
	printf("frame_ranks_all_keys %.3f ms\n", f_ranks_again);
	printf("frame_ranks_all_by_cpu %.3f ms\n", f_ranks_cpu);
	printf("frame_detail %.3f ms\n", f_detail);
	printf("ingest_per_second %.2f ms\n", spent / seconds);
	printf("cpu_per_second_1hz %.2f ms\n", spent / seconds + f_nodes);
	ui_free(ui);
	for (i = 0; i < NODES; i++)
		synth_node_free(&nodes[i]);
	free(nodes);
	fclose(out);
	fclose(in);
	return harness_done();
}
