/* SPDX-License-Identifier: ISC */
/*
 * test-ui-sources: the optional sources (GPUs and the job's share of them,
 * InfiniBand, Lustre, NFS, RAPL power, temperatures, perf counters, NUMA
 * placement) from synthetic nodes fed through the real decoder, as the
 * history derives them and as the panels draw them in a real curses
 * screen: node table columns with their values, blank cells for a node
 * without the source and no column at all when no node has it, the
 * least important columns dropped first on a narrow terminal, the
 * header's items, the rank table's IPC column, the rank detail's IPC,
 * NUMA and GPU lines, and sorting by RANK in both directions.  The same
 * synthetic streams recorded (rec-write) and read back by `jobtop report`
 * give a plot of every source a node sent, and of nothing else, and each
 * rank with perf counters an IPC series.
 */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "rec.h"
#include "report.h"
#include "ui-priv.h"
#include "test-ui-synth.h"

#define MAXN	4

static struct synth_node	 nodes[MAXN];
static int			 nnodes;
static FILE			*out, *in;
static uint64_t			 now = 100000;

static const struct node_model *
models(void *arg, int i)
{
	return i < nnodes ? synth_model(&nodes[i]) : NULL;
}

/* A monitor of n synthetic nodes of r ranks each, ASCII; the nodes whose
 * bit is set in extra send the optional sources. */
static struct ui *
start(int n, int r, unsigned extra, int rows, int cols)
{
	struct ui_conf	 c;
	struct ui	*ui;
	char		 name[32], err[256];
	int		 i;

	memset(&c, 0, sizeof(c));
	c.job_id = "77";
	c.interval = 1;
	c.utf8 = 0;
	c.theme = "default";
	ui = ui_new(&c, err, sizeof(err));
	CHECK(ui != NULL);
	if (ui == NULL)
		return NULL;
	nnodes = n;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%d", i + 1);
		synth_node_init(&nodes[i], name, r, i * r, 1000);
		if (extra & (1u << i))
			synth_node_extra(&nodes[i]);
		ui_add_node(ui, name, 0);
		ui_node_state(ui, i, "live", 0);
	}
	ui_set_models(ui, models, NULL);
	CHECK_INT(ui_start_on(ui, out, in, "xterm-256color", rows, cols, err,
	    sizeof(err)), 0);
	return ui;
}

static void
finish(struct ui *ui)
{
	int	i;

	ui_free(ui);
	for (i = 0; i < nnodes; i++)
		synth_node_free(&nodes[i]);
	nnodes = 0;
}

static void
step(struct ui *ui)
{
	int	i;

	for (i = 0; i < nnodes; i++) {
		CHECK(synth_node_step(&nodes[i]) == MSG_SAMPLE);
		ui_node_sample(ui, i, synth_model(&nodes[i]), now);
	}
	now += 1000;
	ui_job_tick(ui, now);
}

/* The first line of the screen holding s (a copy), or NULL. */
static const char *
line_with(struct ui *ui, const char *s)
{
	static char	line[2048];
	int		y;

	ui_frame(ui, now);
	for (y = 0; y < ui->rows; y++) {
		ui_screen_line(ui, y, line, sizeof(line));
		if (strstr(line, s) != NULL)
			return line;
	}
	return NULL;
}

/* The first line starting with s (a copy), or NULL. */
static const char *
line_from(struct ui *ui, const char *s)
{
	static char	line[2048];
	int		y;

	ui_frame(ui, now);
	for (y = 0; y < ui->rows; y++) {
		ui_screen_line(ui, y, line, sizeof(line));
		if (strncmp(line, s, strlen(s)) == 0)
			return line;
	}
	return NULL;
}

/*
 * The cell of a right-aligned column in the row starting with row, the
 * table's header being the line holding head: the word that ends
 * where the column's title ends.  "" when the cell is blank, NULL when
 * there is no such column or row.
 */
static const char *
cell(struct ui *ui, const char *head, const char *title, const char *row)
{
	static char	 buf[64];
	char		 h[2048];
	const char	*l, *t;
	size_t		 end, b;

	if ((l = line_with(ui, head)) == NULL)
		return NULL;
	snprintf(h, sizeof(h), "%s ", l);
	/* The title as a whole word (the sort arrow may follow it). */
	for (t = h; (t = strstr(t, title)) != NULL; t++) {
		if ((t == h || t[-1] == ' ') && (t[strlen(title)] == ' ' ||
		    t[strlen(title)] == '^' || t[strlen(title)] == 'v'))
			break;
	}
	if (t == NULL)
		return NULL;
	end = (size_t)(t - h) + strlen(title);
	if (t[strlen(title)] != ' ')
		end++;
	if ((l = line_from(ui, row)) == NULL || strlen(l) < end)
		return l == NULL ? NULL : "";
	for (b = end; b > 0 && l[b - 1] != ' '; b--)
		;
	snprintf(buf, sizeof(buf), "%.*s", (int)(end - b), l + b);
	return buf;
}

#define NODEHEAD	"NODE"

/* The table's first row: the line after the one holding head (a copy). */
static const char *
first_row(struct ui *ui, const char *head)
{
	static char	line[2048];
	int		y;

	ui_frame(ui, now);
	for (y = 0; y + 1 < ui->rows; y++) {
		ui_screen_line(ui, y, line, sizeof(line));
		if (strstr(line, head) != NULL) {
			ui_screen_line(ui, y + 1, line, sizeof(line));
			return line;
		}
	}
	return NULL;
}

/* What the history derives from the raw groups. */
static void
test_history(void)
{
	struct ui	*ui = start(2, 2, 1, 40, 200);
	double		 v[HN_NMETRICS];
	int		 i;

	for (i = 0; i < 3; i++)
		step(ui);
	history_node_values(synth_model(&nodes[0]), v);
	CHECK_NEAR(v[HN_GPU], 60, 1e-9);
	CHECK_NEAR(v[HN_GPU_MEM], 40.0 * (1 << 30), 1);
	CHECK_NEAR(v[HN_GPU_MEMTOTAL], 160.0 * (1 << 30), 1);
	CHECK_NEAR(v[HN_GPU_POWER], 450, 1e-9);
	CHECK_NEAR(v[HN_GPU_TEMP], 71, 1e-9);
	/* Ranks 0 and 1 use 3G + 2G, a stranger 5G. */
	CHECK_NEAR(v[HN_GPU_JOB], 50, 1e-9);
	CHECK_NEAR(v[HN_IB_RX], 3 << 20, 2);
	CHECK_NEAR(v[HN_IB_TX], 1 << 20, 2);
	CHECK_NEAR(v[HN_LUSTRE_READ], 4 << 20, 2);
	CHECK_NEAR(v[HN_LUSTRE_WRITE], 2 << 20, 2);
	CHECK_NEAR(v[HN_NFS_READ], 1 << 20, 2);
	CHECK_NEAR(v[HN_NFS_WRITE], 1 << 20, 2);
	CHECK_NEAR(v[HN_POWER_PKG], 200, 1e-3);
	CHECK_NEAR(v[HN_POWER_DRAM], 40, 1e-3);
	CHECK_NEAR(v[HN_TEMP], 78, 1e-9);
	CHECK_NEAR(v[HN_IPC], 1.5, 1e-6);
	CHECK_NEAR(history_rank_get(history_rank_const(ui->hist, 0, 0),
	    HR_IPC, 0), 1.5, 1e-6);
	/* The node without the sources has none of them: NaN, never 0. */
	history_node_values(synth_model(&nodes[1]), v);
	for (i = HN_GPU_MEM; i < HN_NMETRICS; i++)
		CHECK(isnan(v[i]));
	CHECK(isnan(v[HN_GPU]));
	CHECK(isnan(history_node_get(ui->hist, 1, HN_IB_RX, 0)));
	CHECK(isnan(history_rank_get(history_rank_const(ui->hist, 1, 0),
	    HR_IPC, 0)));
	/* Job-wide: sums, the hottest, means. */
	CHECK_NEAR(history_job_get(ui->hist, HN_IB, 0), 4 << 20, 4);
	CHECK_NEAR(history_job_get(ui->hist, HN_FS, 0), 8 << 20, 8);
	CHECK_NEAR(history_job_get(ui->hist, HN_POWER, 0), 240, 1e-3);
	CHECK_NEAR(history_job_get(ui->hist, HN_GPU_TEMP, 0), 71, 1e-9);
	CHECK_NEAR(history_job_get(ui->hist, HN_IPC, 0), 1.5, 1e-6);
	/* An AMD GPU beside the NVIDIA ones: its units (mW, millidegrees)
	 * as the others'. */
	nodes[0].ex->amd = 1;
	step(ui);
	history_node_values(synth_model(&nodes[0]), v);
	CHECK_NEAR(v[HN_GPU], (80 + 40 + 20) / 3.0, 1e-9);
	CHECK_NEAR(v[HN_GPU_MEM], 48.0 * (1 << 30), 1);
	CHECK_NEAR(v[HN_GPU_MEMTOTAL], 176.0 * (1 << 30), 1);
	CHECK_NEAR(v[HN_GPU_POWER], 550, 1e-9);
	CHECK_NEAR(v[HN_GPU_TEMP], 90.5, 1e-9);
	/* Only sensors below absolute zero: no temperature. */
	nodes[0].ex->temp_mc = -274000;
	step(ui);
	history_node_values(synth_model(&nodes[0]), v);
	CHECK_NEAR(v[HN_TEMP], 35, 1e-9);
	nodes[0].ex->temp_mc = 78000;
	/* With utilisation per process the share is of that: 90 of 110. */
	nodes[0].ex->proc_util[0] = 60;
	nodes[0].ex->proc_util[1] = 30;
	nodes[0].ex->proc_util[2] = 20;
	nodes[0].ex->util_on = 1;
	step(ui);
	history_node_values(synth_model(&nodes[0]), v);
	CHECK_NEAR(v[HN_GPU_JOB], 90.0 * 100 / 110, 1e-9);
	/* A counter's first sample has no rate: absent, not 0. */
	nodes[0].ex->perf = 0;
	step(ui);
	CHECK(isnan(history_rank_get(history_rank_const(ui->hist, 0, 0),
	    HR_IPC, 0)));
	finish(ui);
}

/* The node table's columns, values and blanks. */
static void
test_node_columns(void)
{
	struct ui	*ui;
	const char	*l;
	int		 i;

	ui = start(2, 2, 1, 40, 200);
	for (i = 0; i < 3; i++)
		step(ui);
	CHECK_STR(cell(ui, NODEHEAD, "GPU%", "n1 "), "60");
	CHECK_STR(cell(ui, NODEHEAD, "GPUMEM", "n1 "), "40G/160G");
	CHECK_STR(cell(ui, NODEHEAD, "GPUPWR", "n1 "), "450W");
	CHECK_STR(cell(ui, NODEHEAD, "GTEMP", "n1 "), "71C");
	CHECK_STR(cell(ui, NODEHEAD, "GJOB%", "n1 "), "50");
	CHECK_STR(cell(ui, NODEHEAD, "IB/s", "n1 "), "4.0M");
	CHECK_STR(cell(ui, NODEHEAD, "FS/s", "n1 "), "8.0M");
	CHECK_STR(cell(ui, NODEHEAD, "POWER", "n1 "), "240W");
	CHECK_STR(cell(ui, NODEHEAD, "TEMP", "n1 "), "78C");
	/* n2 has none of them: "-", never 0. */
	CHECK_STR(cell(ui, NODEHEAD, "GPU%", "n2 "), "-");
	CHECK_STR(cell(ui, NODEHEAD, "GPUMEM", "n2 "), "-");
	CHECK_STR(cell(ui, NODEHEAD, "IB/s", "n2 "), "-");
	CHECK_STR(cell(ui, NODEHEAD, "FS/s", "n2 "), "-");
	CHECK_STR(cell(ui, NODEHEAD, "POWER", "n2 "), "-");
	CHECK_STR(cell(ui, NODEHEAD, "TEMP", "n2 "), "-");
	/* The old columns are where they were. */
	CHECK_STR(cell(ui, NODEHEAD, "CPU%", "n2 "), "50.0");
	/* Sort keys: by IB/s the node that has it first, either way. */
	ui_key(ui, 's', now);
	for (i = 0; i < 30 && (l = line_with(ui, "nodes sorted by ")) !=
	    NULL && strstr(l, "sorted by IB/s") == NULL; i++)
		ui_key(ui, 's', now);
	CHECK(line_with(ui, "nodes sorted by IB/s") != NULL);
	l = first_row(ui, NODEHEAD);
	CHECK(l != NULL && strncmp(l, "n1 ", 3) == 0);
	ui_key(ui, 'I', now);
	l = first_row(ui, NODEHEAD);
	CHECK(l != NULL && strncmp(l, "n1 ", 3) == 0);

	/* Narrower: the temperatures go first, GPU% and the rates stay. */
	resizeterm(40, 145);
	CHECK(cell(ui, NODEHEAD, "TEMP", "n1 ") == NULL);
	CHECK(cell(ui, NODEHEAD, "GTEMP", "n1 ") == NULL);
	CHECK_STR(cell(ui, NODEHEAD, "GPU%", "n1 "), "60");
	CHECK_STR(cell(ui, NODEHEAD, "IB/s", "n1 "), "4.0M");
	CHECK_STR(cell(ui, NODEHEAD, "FS/s", "n1 "), "8.0M");
	CHECK_STR(cell(ui, NODEHEAD, "CPU%", "n1 "), "50.0");
	/* 80 columns: today's columns stay (the header has the rates). */
	resizeterm(40, 80);
	l = line_from(ui, NODEHEAD);
	CHECK(l != NULL && strstr(l, "STATE") != NULL);
	CHECK(l != NULL && strstr(l, "LOAD") != NULL);
	CHECK(l != NULL && strstr(l, "GPU%") != NULL);
	CHECK(l != NULL && strstr(l, "IB/s") == NULL);
	l = line_with(ui, "GMEM");
	CHECK(l != NULL && strstr(l, " IB ") != NULL &&
	    strstr(l, "4.0M/s") != NULL);
	finish(ui);

	/* No node has a source: today's layout, no new column. */
	ui = start(2, 2, 0, 40, 200);
	for (i = 0; i < 3; i++)
		step(ui);
	l = line_from(ui, NODEHEAD);
	CHECK(l != NULL && strstr(l, "NET/s FLAGS") != NULL);
	for (i = 0; l != NULL && i < 9; i++) {
		static const char *const t[] = { "GPU%", "GPUMEM", "GPUPWR",
		    "GTEMP", "GJOB%", "IB/s", "FS/s", "POWER", "TEMP" };

		CHECK(strstr(l, t[i]) == NULL);
	}
	CHECK(line_with(ui, "GMEM") == NULL);
	CHECK(line_with(ui, "COST probes") != NULL);
	finish(ui);
}

/* The header's job-wide items. */
static void
test_header(void)
{
	struct ui	*ui = start(2, 2, 3, 40, 200);
	const char	*l;
	int		 i;

	nodes[1].ex->temp_mc = 91000;
	nodes[1].ex->gpu_temp[1] = 85;
	for (i = 0; i < 3; i++)
		step(ui);
	l = line_with(ui, "GMEM");
	CHECK(l != NULL && strstr(l, "80G/320G") != NULL);
	CHECK(l != NULL && strstr(l, "900W") != NULL);		/* GPUW */
	CHECK(l != NULL && strstr(l, "8.0M/s") != NULL);	/* IB */
	CHECK(l != NULL && strstr(l, "16M/s") != NULL);		/* FS */
	CHECK(l != NULL && strstr(l, "480W") != NULL);		/* POWER */
	l = line_with(ui, "GTEMP");
	CHECK(l != NULL && strstr(l, "91C") != NULL);		/* TEMP */
	CHECK(l != NULL && strstr(l, "85C") != NULL);		/* GTEMP */
	CHECK(l != NULL && strstr(l, "50%") != NULL);		/* GJOB */
	CHECK(l != NULL && strstr(l, "1.50") != NULL);		/* IPC */
	CHECK(line_with(ui, "COST probes") != NULL);
	/* A short terminal keeps the old four lines. */
	resizeterm(22, 200);
	CHECK(line_with(ui, "GMEM") == NULL);
	CHECK(line_with(ui, "COST probes") != NULL);
	finish(ui);
}

/* The rank table's IPC column, the detail's lines, sorting by RANK. */
static void
test_ranks(void)
{
	struct ui	*ui = start(2, 3, 1, 40, 200);
	const char	*l;
	int		 i;

	for (i = 0; i < 3; i++)
		step(ui);
	ui_frame(ui, now);
	ui_key(ui, '\r', now);		/* n1's ranks */
	CHECK(line_with(ui, "Ranks of n1") != NULL);
	CHECK_STR(cell(ui, "RANK", "IPC", "    0 "), "1.50");
	ui_key(ui, 'N', now);
	l = first_row(ui, "RANK");
	CHECK(l != NULL && strncmp(l, "    0 ", 6) == 0);
	ui_key(ui, 'I', now);
	l = first_row(ui, "RANK");
	CHECK(l != NULL && strncmp(l, "    2 ", 6) == 0);
	ui_key(ui, 'I', now);
	l = first_row(ui, "RANK");
	CHECK(l != NULL && strncmp(l, "    0 ", 6) == 0);
	ui_key(ui, '\r', now);		/* rank 0's detail */
	l = line_with(ui, "ipc ");
	CHECK(l != NULL && strstr(l, "1.50 instructions per cycle") != NULL);
	l = line_with(ui, "numa ");
	CHECK(l != NULL && strstr(l, "node0 75M (75%)  node1 25M (25%)") !=
	    NULL);
	l = line_with(ui, "gpu ");
	CHECK(l != NULL && strstr(l, "GPU 0: 3.0G of memory, 38% of the "
	    "GPU's processes'") != NULL);
	CHECK(l != NULL && strstr(l, "busy") == NULL);
	nodes[0].ex->proc_util[0] = 60;
	nodes[0].ex->util_on = 1;
	step(ui);
	l = line_with(ui, "gpu ");
	CHECK(l != NULL && strstr(l, "38% of the GPU's processes'; 60% busy")
	    != NULL);
	ui_key(ui, 27, now);
	/* The rank table's GPU column: each rank's GPUs by pid. */
	l = line_from(ui, "    0 ");
	CHECK(l != NULL && strstr(l, " 0:60% 3.0G ") != NULL);
	l = line_from(ui, "    1 ");
	CHECK(l != NULL && strstr(l, " 1:0% 2.0G ") != NULL);
	l = line_from(ui, "    2 ");
	CHECK(l != NULL && strstr(l, "G ") == NULL);
	CHECK(line_with(ui, " GPU ") != NULL);
	ui_key(ui, 27, now);

	/* n2 has no perf counters: no IPC column in its ranks, no lines. */
	ui_key(ui, 'j', now);
	ui_key(ui, '\r', now);
	CHECK(line_with(ui, "Ranks of n2") != NULL);
	CHECK(cell(ui, "RANK", "IPC", "    3 ") == NULL);
	ui_key(ui, '\r', now);
	CHECK(line_with(ui, "ipc ") == NULL);
	CHECK(line_with(ui, "numa ") == NULL);
	CHECK(line_with(ui, "gpu ") == NULL);
	finish(ui);

	/* A node whose perf is off among others: blank cells. */
	ui = start(2, 1, 3, 40, 200);
	nodes[1].ex->perf = 0;
	for (i = 0; i < 3; i++)
		step(ui);
	ui_frame(ui, now);
	ui_key(ui, 'r', now);
	CHECK(line_with(ui, "Ranks of the job") != NULL);
	CHECK_STR(cell(ui, "RANK", "IPC", "    0 "), "1.50");
	CHECK_STR(cell(ui, "RANK", "IPC", "    1 "), "");
	finish(ui);
}

/* How many times s occurs in text. */
static int
count(const char *text, const char *s)
{
	int	n = 0;

	for (; (text = strstr(text, s)) != NULL; text += strlen(s))
		n++;
	return n;
}

/* A recording of a node with every source and a plain one, reported. */
static void
test_report(void)
{
	static const char *const names[] = { "g1", "p2" };
	static const char *const keys[] = { "gpu", "gpu_mem", "gpu_power",
	    "gpu_temp", "gpu_job", "ib_rx", "ib_tx", "lustre_read",
	    "lustre_write", "nfs_read", "nfs_write", "power_pkg",
	    "power_dram", "temp", "ipc", "cpu", "mem" };
	struct synth_node	 sn[2];
	struct rec_meta		 meta;
	struct rec		*rc;
	char			 path[] = "/tmp/jt-uisrc-XXXXXX", file[64];
	char			 page[64], err[256], key[64], *text;
	FILE			*f;
	long			 len, n;
	uint64_t		 t;
	int			 i, k;

	CHECK(mkdtemp(path) != NULL);
	snprintf(file, sizeof(file), "%s/r.jtr", path);
	snprintf(page, sizeof(page), "%s/r.html", path);
	rec_meta_init(&meta, SYNTH_START_MS);
	meta.interval_ms = 1000;
	rec_meta_set_nodes(&meta, 2, names);
	rc = rec_open(file, &meta, 0, err, sizeof(err));
	CHECK(rc != NULL);
	if (rc == NULL)
		return;
	for (i = 0; i < 2; i++)
		synth_node_init(&sn[i], names[i], 3, i * 3, 1000);
	synth_node_extra(&sn[0]);
	for (k = 0, t = SYNTH_START_MS; k < 8; k++, t += 1000) {
		for (i = 0; i < 2; i++) {
			len = synth_node_encode(&sn[i]);
			CHECK(len > 0);
			CHECK_INT(rec_node_bytes(rc, (unsigned)i, t, sn[i].buf,
			    (size_t)len), 0);
		}
		rec_tick(rc, t);
	}
	CHECK_INT(rec_close(rc, err, sizeof(err)), 0);
	rec_meta_free(&meta);
	for (i = 0; i < 2; i++)
		synth_node_free(&sn[i]);

	f = fopen(page, "w");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK_INT(report_file(file, f), 0);
	fclose(f);
	f = fopen(page, "r");
	text = calloc(1, 4 << 20);
	n = f != NULL && text != NULL ? (long)fread(text, 1, (4 << 20) - 1,
	    f) : 0;
	if (f != NULL)
		fclose(f);
	CHECK(n > 0);
	for (k = 0; text != NULL && k < (int)(sizeof(keys) /
	    sizeof(keys[0])); k++) {
		/* A chart of the job and one of the nodes. */
		snprintf(key, sizeof(key), "data-key=\"%s\"", keys[k]);
		CHECK_INT(count(text, key), 2);
	}
	/* The hottest, not a sum; no series of what nobody sent. */
	CHECK(text != NULL && strstr(text, "<figcaption>Temperature (hottest "
	    "sensor) <small>the highest node</small>") != NULL);
	CHECK_INT(count(text, "data-key=\"load\""), 2);
	CHECK_INT(count(text, "data-key=\"probe_cpu\""), 0);
	/* g1's three ranks have IPC, p2's none; the page draws them. */
	CHECK(text != NULL && strstr(text, "<figcaption>Rank instructions per "
	    "cycle <small>3 ranks</small>") != NULL);
	free(text);
	unlink(file);
	unlink(page);
	rmdir(path);
}

/*
 * gpu-idle (detect-gpu.h): n1 has one rank, whose process is on GPU 0;
 * GPU 1 holds only a stranger's process.  Both allocated: after 5
 * samples GPU 1 is flagged (the node's FLAGS cell, the event log naming
 * the node and the GPU), GPU 0 never; when the stranger's process is the
 * rank's the flag clears.
 */
static void
test_gpu_idle(void)
{
	struct ui	*ui = start(1, 1, 1, 40, 200);
	const char	*l;
	int		 i;

	nodes[0].ex->alloc_on = 1;
	nodes[0].ex->gpu_alloc[0] = nodes[0].ex->gpu_alloc[1] = 1;
	for (i = 0; i < 4; i++)
		step(ui);
	CHECK(line_with(ui, "gpu-idle") == NULL);
	step(ui);
	l = line_from(ui, "n1 ");
	CHECK(l != NULL && strstr(l, "gpu-idle 1") != NULL);
	CHECK(l != NULL && strstr(l, "gpu-idle 0") == NULL);
	CHECK(line_with(ui, "n1 GPU 1 is allocated to the job but no rank used "
	    "it for 5 samples") != NULL);
	CHECK(line_with(ui, "GPU 0 is allocated") == NULL);
	CHECK(line_with(ui, "FLAGS 1 idle GPU") != NULL);
	nodes[0].ex->gpu_alloc[1] = 0;	/* no longer the job's */
	step(ui);
	l = line_from(ui, "n1 ");
	CHECK(l != NULL && strstr(l, "gpu-idle") == NULL);
	CHECK(line_with(ui, "n1 GPU 1 no longer idle") != NULL);
	CHECK(line_with(ui, "idle GPU") == NULL);
	finish(ui);
}

/*
 * gpu-idle from the scheduler's allocation (monitor_node_gpus): no rank
 * of n1 names a GPU (no gpu.alloc), Slurm gave the job GPUs 1 and 5 of
 * the node (5 it does not have).  GPU 1 is flagged after 5 samples,
 * nothing for GPU 5; not where a device minor shows Slurm's index is not
 * the probe's, and not before.
 */
static void
test_gpu_idle_sched(void)
{
	struct ui		*ui = start(1, 1, 1, 40, 200);
	struct monitor_snap	*sn;
	const char		*l;
	int			 i;

	nodes[0].ex->minor_on = 1;
	nodes[0].ex->gpu_minor[0] = 1;	/* swapped: not Slurm's order */
	nodes[0].ex->gpu_minor[1] = 0;
	monitor_node_gpus(ui_monitor(ui), 0, 0x22);
	for (i = 0; i < 7; i++)
		step(ui);
	CHECK(line_with(ui, "gpu-idle") == NULL);
	CHECK(line_with(ui, "is allocated") == NULL);
	nodes[0].ex->gpu_minor[0] = 0;	/* minors as the indexes */
	nodes[0].ex->gpu_minor[1] = 1;
	for (i = 0; i < 4; i++)
		step(ui);
	CHECK(line_with(ui, "gpu-idle") == NULL);
	step(ui);
	l = line_from(ui, "n1 ");
	CHECK(l != NULL && strstr(l, "gpu-idle 1") != NULL);
	CHECK(line_with(ui, "n1 GPU 1 is allocated to the job but no rank used "
	    "it for 5 samples") != NULL);
	CHECK(line_with(ui, "GPU 0 is allocated") == NULL);
	CHECK(line_with(ui, "GPU 5") == NULL);
	/* A snapshot (a replay's step back, a frozen screen) keeps the
	 * flag: restored after it cleared, it is there again. */
	sn = monitor_snapshot(ui_monitor(ui));
	CHECK(monitor_gpu_idle(ui_monitor(ui), 0) == 0x2);
	/* The job no longer holds it (a scheduler's -1: unknown). */
	monitor_node_gpus(ui_monitor(ui), 0, -1);
	step(ui);
	CHECK(line_with(ui, "n1 GPU 1 no longer idle") != NULL);
	CHECK(monitor_gpu_idle(ui_monitor(ui), 0) == 0);
	monitor_node_gpus(ui_monitor(ui), 0, 0x22);
	CHECK_INT(monitor_restore(ui_monitor(ui), sn), 0);
	CHECK(monitor_gpu_idle(ui_monitor(ui), 0) == 0x2);
	monitor_snap_free(sn);
	finish(ui);

	/* A node where the job runs no rank: the hint says so. */
	ui = start(1, 0, 1, 40, 200);
	monitor_node_gpus(ui_monitor(ui), 0, 0x1);
	for (i = 0; i < 5; i++)
		step(ui);
	CHECK(line_with(ui, "n1 GPU 0 is allocated to the job but no rank used "
	    "it for 5 samples: the job runs no rank on n1") != NULL);
	finish(ui);
}

int
main(void)
{
	setlocale(LC_CTYPE, "C");
	setenv("TERM", "xterm-256color", 1);
	unsetenv("NO_COLOR");
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	if (out == NULL || in == NULL)
		return 1;
	RUN(test_history);
	RUN(test_node_columns);
	RUN(test_header);
	RUN(test_ranks);
	RUN(test_gpu_idle);
	RUN(test_gpu_idle_sched);
	RUN(test_report);
	fclose(out);
	fclose(in);
	return harness_done();
}
