/* SPDX-License-Identifier: ISC */
/*
 * test-columns: the user's choice of the rank and node tables' columns
 * (ui/columns.h): keys, specs as a settings file holds them (a list, or
 * changes to the default with + and -), their errors, the current set as
 * a string that parses back, and the rank and node tables drawn into a
 * real curses screen from synthetic nodes showing and hiding a column.
 */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "columns.h"
#include "ui-priv.h"
#include "test-ui-synth.h"

static struct synth_node	 nodes[2];
static FILE			*out, *in;
static uint64_t			 now = 100000;

static const struct node_model *
models(void *arg, int i)
{
	return i < 2 ? synth_model(&nodes[i]) : NULL;
}

/* The line holding s, or NULL. */
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

static void
test_api(void)
{
	char	buf[512], err[256];
	size_t	len;

	CHECK(columns_count(COLUMNS_RANKS) >= 18);
	CHECK(columns_count(COLUMNS_NODES) >= 18);
	CHECK_INT(columns_count(7), 0);
	CHECK_STR(columns_setting(COLUMNS_RANKS), "rank_columns");
	CHECK_STR(columns_setting(COLUMNS_NODES), "node_columns");
	CHECK_STR(columns_key(COLUMNS_RANKS, 0), "rank");
	CHECK_STR(columns_title(COLUMNS_RANKS, 0), "RANK");
	CHECK(columns_key(COLUMNS_RANKS, 999) == NULL);
	CHECK(columns_find(COLUMNS_RANKS, "peak_rss") > 0);
	CHECK(columns_find(COLUMNS_RANKS, "nosuch") == -1);
	CHECK_STR(columns_title(COLUMNS_RANKS, (unsigned)columns_find(
	    COLUMNS_RANKS, "peak_rss")), "PEAKRSS");

	/* Every column by default; the string lists them all. */
	CHECK(!columns_changed(COLUMNS_RANKS));
	len = columns_string(COLUMNS_RANKS, buf, sizeof(buf));
	CHECK_INT(len, strlen(buf));
	CHECK(strncmp(buf, "rank,node,pid,state,cpu,peak_cpu,", 33) == 0);

	/* Changes to the default. */
	CHECK_INT(columns_parse(COLUMNS_RANKS, " -wchan , -syscall", err,
	    sizeof(err)), 0);
	CHECK(!columns_shown(COLUMNS_RANKS, (unsigned)columns_find(
	    COLUMNS_RANKS, "wchan")));
	CHECK(columns_shown(COLUMNS_RANKS, 0));
	CHECK(columns_changed(COLUMNS_RANKS));
	columns_string(COLUMNS_RANKS, buf, sizeof(buf));
	CHECK(strstr(buf, "wchan") == NULL && strstr(buf, "syscall") == NULL);
	CHECK(strstr(buf, "command") != NULL);

	/* A list: exactly these, in the table's order. */
	CHECK_INT(columns_parse(COLUMNS_RANKS, "command,rank,peak_rss", err,
	    sizeof(err)), 0);
	columns_string(COLUMNS_RANKS, buf, sizeof(buf));
	CHECK_STR(buf, "rank,peak_rss,command");
	/* What the string says parses back to the same. */
	CHECK_INT(columns_parse(COLUMNS_RANKS, buf, err, sizeof(err)), 0);
	columns_string(COLUMNS_RANKS, buf, sizeof(buf));
	CHECK_STR(buf, "rank,peak_rss,command");
	/* Truncated output still says its whole length. */
	CHECK_INT(columns_string(COLUMNS_RANKS, buf, 5), 21);
	CHECK_STR(buf, "rank");

	/* Errors leave the choice as it was. */
	CHECK_INT(columns_parse(COLUMNS_RANKS, "rank,bogus", err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "rank_columns: unknown column \"bogus\"") != NULL);
	CHECK_INT(columns_parse(COLUMNS_RANKS, "rank,-pid", err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "either every column") != NULL);
	CHECK_INT(columns_parse(COLUMNS_RANKS, "rank,,pid", err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "empty column name") != NULL);
	CHECK_INT(columns_parse(COLUMNS_RANKS, "", err, sizeof(err)), -1);
	CHECK_INT(columns_parse(COLUMNS_RANKS, "-rank,-peak_rss,-command",
	    err, sizeof(err)), -1);
	CHECK(strstr(err, "no column left") != NULL);
	columns_string(COLUMNS_RANKS, buf, sizeof(buf));
	CHECK_STR(buf, "rank,peak_rss,command");

	/* One by one; the last column cannot go. */
	CHECK_INT(columns_set(COLUMNS_RANKS, "pid", 1), 0);
	CHECK_INT(columns_set(COLUMNS_RANKS, "rank", 0), 0);
	CHECK_INT(columns_set(COLUMNS_RANKS, "nosuch", 1), -1);
	CHECK_INT(columns_set(COLUMNS_RANKS, "peak_rss", 0), 0);
	CHECK_INT(columns_set(COLUMNS_RANKS, "command", 0), 0);
	CHECK_INT(columns_set(COLUMNS_RANKS, "pid", 0), -1);
	columns_string(COLUMNS_RANKS, buf, sizeof(buf));
	CHECK_STR(buf, "pid");
	CHECK_INT(columns_parse(COLUMNS_RANKS, "default", err, sizeof(err)),
	    0);
	CHECK(!columns_changed(COLUMNS_RANKS));

	CHECK_INT(columns_parse(COLUMNS_NODES, "node,cpu,flags", err,
	    sizeof(err)), 0);
	columns_string(COLUMNS_NODES, buf, sizeof(buf));
	CHECK_STR(buf, "node,cpu,flags");
	columns_reset(COLUMNS_NODES);
	CHECK(!columns_changed(COLUMNS_NODES));
}

/* The node table's columns come from the metric catalogue: in the order
 * the table has always had, keyed by the catalogue's names, with the
 * older keys still read and written back in the new names. */
static void
test_catalogue(void)
{
	static const char *const keys[] = { "node", "state", "cpu",
	    "mem_pct", "mem", "load", "disk", "net", "gpu", "gpu_mem",
	    "gpu_power", "gpu_temp", "gpu_job", "ib", "fs", "power",
	    "power_node", "temp", "flags", "history" };
	static const char *const titles[] = { "NODE", "STATE", "CPU%",
	    "MEM%", "MEM", "LOAD", "DISK/s", "NET/s", "GPU%", "GPUMEM",
	    "GPUPWR", "GTEMP", "GJOB%", "IB/s", "FS/s", "POWER", "NODEW",
	    "TEMP", "FLAGS", "CPU HISTORY" };
	static const char *const old[][2] = { { "mempct", "mem_pct" },
	    { "gpumem", "gpu_mem" }, { "gpupwr", "gpu_power" },
	    { "gtemp", "gpu_temp" }, { "gjob", "gpu_job" },
	    { "nodew", "power_node" } };
	char		buf[512], err[256];
	unsigned	i;

	CHECK_INT(columns_count(COLUMNS_NODES), 20);
	for (i = 0; i < 20; i++) {
		CHECK_STR(columns_key(COLUMNS_NODES, i), keys[i]);
		CHECK_STR(columns_title(COLUMNS_NODES, i), titles[i]);
	}
	for (i = 0; i < 6; i++) {
		CHECK(columns_find(COLUMNS_NODES, old[i][0]) >= 0);
		CHECK_INT(columns_find(COLUMNS_NODES, old[i][0]),
		    columns_find(COLUMNS_NODES, old[i][1]));
	}
	CHECK_INT(columns_parse(COLUMNS_NODES, "-gpumem,-nodew,-mempct", err,
	    sizeof(err)), 0);
	CHECK(!columns_shown(COLUMNS_NODES,
	    (unsigned)columns_find(COLUMNS_NODES, "gpu_mem")));
	columns_string(COLUMNS_NODES, buf, sizeof(buf));
	CHECK(strstr(buf, "gpu_mem") == NULL && strstr(buf, "gpumem") ==
	    NULL && strstr(buf, "mem_pct") == NULL && strstr(buf, "gpu_power")
	    != NULL);
	CHECK_INT(columns_parse(COLUMNS_NODES, buf, err, sizeof(err)), 0);
	CHECK(columns_changed(COLUMNS_NODES));
	columns_reset(COLUMNS_NODES);
	CHECK(columns_find(COLUMNS_NODES, "ib_rx") < 0);
}

/* The tables drawn: a column the user hides is gone, the others stay. */
static void
test_screen(void)
{
	struct ui_conf	 c;
	struct ui	*ui;
	char		 err[256];
	const char	*l;
	int		 i, k;

	memset(&c, 0, sizeof(c));
	c.job_id = "4242";
	c.job_name = "solver";
	c.job_user = "jtuser";
	c.job_state = "RUNNING";
	c.interval = 1;
	c.utf8 = 1;
	c.theme = "default";
	ui = ui_new(&c, err, sizeof(err));
	CHECK(ui != NULL);
	if (ui == NULL)
		return;
	for (i = 0; i < 2; i++) {
		synth_node_init(&nodes[i], i ? "n2" : "n1", 2, i * 2, 1000);
		nodes[i].busy = 90;
		ui_add_node(ui, i ? "n2" : "n1", i == 0);
		ui_node_state(ui, i, "live", 0);
	}
	ui_set_models(ui, models, NULL);
	CHECK_INT(ui_start_on(ui, out, in, "xterm-256color", 40, 250, err,
	    sizeof(err)), 0);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 2; i++) {
			CHECK(synth_node_step(&nodes[i]) == MSG_SAMPLE);
			ui_node_sample(ui, i, synth_model(&nodes[i]), now);
		}
		now += 1000;
		ui_job_tick(ui, now);
	}
	l = line_with(ui, "NODE");
	CHECK(l != NULL && strstr(l, " LOAD ") != NULL);
	CHECK_INT(columns_set(COLUMNS_NODES, "load", 0), 0);
	l = line_with(ui, "NODE");
	CHECK(l != NULL && strstr(l, " LOAD ") == NULL &&
	    strstr(l, "CPU%") != NULL);
	columns_reset(COLUMNS_NODES);

	ui_key(ui, '\r', now);
	CHECK(line_with(ui, "Ranks of n1: 2") != NULL);
	l = line_with(ui, "RANK");
	CHECK(l != NULL && strstr(l, " PEAKRSS ") != NULL &&
	    strstr(l, " WCHAN ") != NULL && strstr(l, "COMMAND") != NULL);
	CHECK_INT(columns_parse(COLUMNS_RANKS, "-peak_rss,-wchan", err,
	    sizeof(err)), 0);
	l = line_with(ui, "RANK");
	CHECK(l != NULL && strstr(l, "PEAKRSS") == NULL &&
	    strstr(l, "WCHAN") == NULL && strstr(l, " RSS ") != NULL &&
	    strstr(l, "COMMAND") != NULL);
	/* The sort keys step over hidden columns: from RSS, past
	 * PEAKRSS, to READ/s. */
	ui_key(ui, 'M', now);
	ui_key(ui, '>', now);
	CHECK(line_with(ui, "ranks sorted by READ/s") != NULL);
	columns_reset(COLUMNS_RANKS);
	l = line_with(ui, "RANK");
	CHECK(l != NULL && strstr(l, " PEAKRSS ") != NULL);
	ui_free(ui);
	for (i = 0; i < 2; i++)
		synth_node_free(&nodes[i]);
}

int
main(void)
{
	setlocale(LC_CTYPE, "C.UTF-8");
	setenv("TERM", "xterm-256color", 1);
	unsetenv("NO_COLOR");
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	if (out == NULL || in == NULL)
		return 1;
	RUN(test_api);
	RUN(test_catalogue);
	RUN(test_screen);
	fclose(out);
	fclose(in);
	return harness_done();
}
