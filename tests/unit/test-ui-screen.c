/* SPDX-License-Identifier: ISC */
/*
 * test-ui-screen: the monitor's panels drawn into a real curses screen
 * (newterm on /dev/null, 140x40 unless a test resizes it) from synthetic
 * nodes fed through the real decoder, read back line by line.  Checks the
 * node table with sparklines (UTF-8 and ASCII), flags, drill-down to a
 * stalled rank's wait channel, the filter and its errors, folding of many
 * nodes with outliers kept apart, the too-small message, help, sort keys
 * and themes, the job's ranks against the scheduler's task count, and a
 * pause that freezes the screen while the data goes on.
 */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ui-priv.h"
#include "test-ui-synth.h"

#define MAXN	256

static struct synth_node	 nodes[MAXN];
static int			 nnodes;
static FILE			*out, *in;
static uint64_t			 now = 100000;
static const char		*conf_job = "4242";	/* start()'s job */
static long			 conf_ntasks;		/* 0: unknown */

static const struct node_model *
models(void *arg, int i)
{
	return i < nnodes ? synth_model(&nodes[i]) : NULL;
}

/* A monitor of n synthetic nodes of r ranks each. */
static struct ui *
start(int n, int r, int utf8, int rows, int cols)
{
	struct ui_conf	 c;
	struct ui	*ui;
	char		 name[32], err[256];
	int		 i;

	memset(&c, 0, sizeof(c));
	c.job_id = conf_job;
	c.ntasks = conf_ntasks;
	c.job_name = "solver";
	c.job_user = "jtuser";
	c.job_state = "RUNNING";
	c.elapsed = 61;
	c.time_limit = 900;
	c.interval = 1;
	c.utf8 = utf8;
	c.theme = "default";
	ui = ui_new(&c, err, sizeof(err));
	CHECK(ui != NULL);
	if (ui == NULL)
		return NULL;
	nnodes = n;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), n > 99 ? "n%03d" : "n%d", i + 1);
		synth_node_init(&nodes[i], name, r, i * r, 1000);
		nodes[i].busy = 90;
		ui_add_node(ui, name, i == 0);
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

/* One sample of every node, then a job tick. */
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

/* The screen as text, lines joined by '\n'. */
static const char *
screen(struct ui *ui)
{
	static char	buf[64 * 1024];
	char		line[2048];
	size_t		len = 0;
	int		y;

	ui_frame(ui, now);
	buf[0] = '\0';
	for (y = 0; y < ui->rows && len + sizeof(line) < sizeof(buf); y++) {
		ui_screen_line(ui, y, line, sizeof(line));
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s\n",
		    line);
	}
	return buf;
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

/* Is there a line starting with s? */
static int
row_of(struct ui *ui, const char *s)
{
	char	line[2048];
	int	y;

	ui_frame(ui, now);
	for (y = 0; y < ui->rows; y++) {
		ui_screen_line(ui, y, line, sizeof(line));
		if (strncmp(line, s, strlen(s)) == 0)
			return 1;
	}
	return 0;
}

static void
keys(struct ui *ui, const char *s)
{
	for (; *s != '\0'; s++)
		ui_key(ui, (unsigned char)*s, now);
}

static void
test_nodes(void)
{
	struct ui	*ui = start(4, 2, 1, 40, 140);
	const char	*l;
	int		 i;

	for (i = 0; i < 5; i++)
		step(ui);
	l = line_with(ui, "job 4242");
	CHECK(l != NULL && strstr(l, "solver of jtuser RUNNING") != NULL);
	CHECK(l != NULL && strstr(l, "/ 15:00") != NULL);
	CHECK(l != NULL && strstr(l, "4 live") != NULL);
	for (i = 1; i <= 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d ", i);
		l = line_with(ui, name);
		CHECK(l != NULL && strstr(l, "live") != NULL);
		/* 90% busy draws the 8th-but-one block. */
		CHECK(l != NULL && strstr(l, "\xe2\x96\x88") != NULL);
		CHECK(l != NULL && strstr(l, "90.0") != NULL);
	}
	CHECK(line_with(ui, "CPU HISTORY") != NULL);
	CHECK(line_with(ui, "FLAGS none") != NULL);
	CHECK(line_with(ui, "COST probes") != NULL);
	/* The event: the same line of every node, folded into one. */
	CHECK(line_with(ui, "n[1-4] live") != NULL);
	CHECK(line_with(ui, "n1 live") == NULL);
	/* A node the ladder moved to ssh says so, in its row and the
	 * event log; the usual transport is not named. */
	monitor_node_set_transport(ui_monitor(ui), 0, "libssh2", "");
	monitor_node_set_transport(ui_monitor(ui), 2, "ssh", "libssh2: RSA "
	    "key needs rsa-sha2 signatures");
	step(ui);
	l = line_with(ui, "n3 ");
	CHECK(l != NULL && strstr(l, "live/ssh") != NULL);
	l = line_with(ui, "n1 ");
	CHECK(l != NULL && strstr(l, "live/") == NULL);
	CHECK(line_with(ui, "n3 via ssh: libssh2: RSA key") != NULL);
	finish(ui);

	ui = start(4, 2, 0, 40, 140);
	for (i = 0; i < 5; i++)
		step(ui);
	l = line_with(ui, "n2 ");
	CHECK(l != NULL && strstr(l, "####") != NULL);
	CHECK(l != NULL && strstr(l, "\xe2\x96") == NULL);
	finish(ui);
}

static void
test_stalled(void)
{
	struct ui	*ui = start(4, 1, 1, 40, 140);
	const char	*l;
	int		 i;

	/* n4's probe may not read kernel stacks. */
	snprintf(nodes[3].kstack_why, sizeof(nodes[3].kstack_why),
	    "needs root on the node (/proc/PID/stack wants CAP_SYS_ADMIN)");
	for (i = 0; i < 3; i++)
		step(ui);
	nodes[2].r[0].cpu = 0;
	snprintf(nodes[2].r[0].state, 4, "S");
	snprintf(nodes[2].r[0].wchan, 64, "anon_pipe_read");
	snprintf(nodes[2].r[0].kstack, sizeof(nodes[2].r[0].kstack),
	    "anon_pipe_read < vfs_read < ksys_read < do_syscall_64 < "
	    "entry_SYSCALL_64_after_hwframe < alpha_function_one < "
	    "beta_function_two < gamma_function_three");
	nodes[2].r[0].syscall = 0;
	for (i = 0; i < 4; i++)
		step(ui);
	l = line_with(ui, "n3 ");
	CHECK(l != NULL && strstr(l, "1 stalled rank") != NULL);
	CHECK(line_with(ui, "1 stalled rank") != NULL);
	/* The event names the node, as the node events do. */
	CHECK(line_with(ui, "n3 rank 2 (pid 1002) made no progress") != NULL);
	/* Sorted by name, the flagged node comes first: Enter, its ranks. */
	l = strstr(screen(ui), "\nNODE");
	CHECK(l != NULL && strncmp(strchr(l + 1, '\n') + 1, "n3 ", 3) == 0);
	ui_key(ui, KEY_HOME, now);
	ui_key(ui, '\r', now);
	CHECK(line_with(ui, "Ranks of n3: 1") != NULL);
	/* The header names the worst rank and its wait channel. */
	CHECK(line_with(ui, "FLAGS 1 stalled rank: n3 rank 2 (anon_pipe_read), "
	    "! opens it") != NULL);
	l = line_with(ui, "stalled anon_pipe_read");
	CHECK(l != NULL && strstr(l, " 1002 ") != NULL);
	CHECK(l != NULL && strstr(l, " read ") != NULL);	/* syscall */
	ui_key(ui, '\r', now);
	CHECK(line_with(ui, "Rank 2 (pid 1002) on n3") != NULL);
	l = line_with(ui, "wchan");
	CHECK(l != NULL && strstr(l, "anon_pipe_read") != NULL);
	l = line_with(ui, "syscall");
	CHECK(l != NULL && strstr(l, "0 (read)") != NULL);
	/* The kernel stack, broken at " < " over two lines at 140 columns. */
	l = line_with(ui, "kstack");
	CHECK(l != NULL && strstr(l, "kstack    anon_pipe_read < vfs_read < "
	    "ksys_read < do_syscall_64 < ") != NULL);
	CHECK(l != NULL && strstr(l, "gamma_function_three") == NULL);
	CHECK(line_with(ui, "          < gamma_function_three") != NULL);
	/* b on a remote node without a session (no SSH here) says so. */
	ui_key(ui, 'b', now);
	CHECK(line_with(ui, "no live connection to n3: a backtrace needs "
	    "one") != NULL);
	/* Esc twice: back to the nodes. */
	ui_key(ui, 27, now);
	ui_key(ui, 27, now);
	CHECK(line_with(ui, "Nodes 4, 4 live") != NULL);
	/* n4's probe says why it sends no kernel stacks (n4 is last: n3
	 * came first). */
	ui_key(ui, KEY_END, now);
	ui_key(ui, '\r', now);
	CHECK(line_with(ui, "Ranks of n4: 1") != NULL);
	ui_key(ui, '\r', now);
	CHECK(line_with(ui, "Rank 3 (pid 1003) on n4") != NULL);
	l = line_with(ui, "kstack");
	CHECK(l != NULL && strstr(l, "kernel stack: needs root on the node")
	    != NULL);
	ui_key(ui, 27, now);
	ui_key(ui, 27, now);
	/* ! opens the worst rank from anywhere. */
	CHECK(line_with(ui, "Rank 2 (pid 1002) on n3") == NULL);
	ui_key(ui, '!', now);
	CHECK(line_with(ui, "Rank 2 (pid 1002) on n3") != NULL);
	CHECK(line_with(ui, "the worst rank: n3 rank 2 (stalled)") != NULL);
	ui_key(ui, 27, now);
	ui_key(ui, 27, now);
	/* Tab: every rank, the flagged one first. */
	ui_key(ui, '\t', now);
	CHECK(line_with(ui, "Ranks of the job: 4") != NULL);
	l = strstr(screen(ui), "\nRANK");
	CHECK(l != NULL && strncmp(strchr(l + 1, '\n') + 1, "    2 n3 ", 9) ==
	    0);
	finish(ui);
}

static void
test_filter(void)
{
	struct ui	*ui = start(4, 1, 1, 40, 140);
	int		 i;

	for (i = 0; i < 3; i++)
		step(ui);
	keys(ui, "/n3");
	CHECK(line_with(ui, "Filter /n3_") != NULL);
	ui_key(ui, '\r', now);
	CHECK(row_of(ui, "n3 "));
	CHECK(!row_of(ui, "n2 "));
	CHECK(strstr(screen(ui), "filter /n3/: 1 rows") != NULL);
	/* Commands match too: every rank runs "solver". */
	keys(ui, "/");
	ui_key(ui, 0x15, now);
	keys(ui, "SOLV");
	ui_key(ui, '\r', now);
	CHECK(!row_of(ui, "n2 "));	/* capitals: exact case */
	keys(ui, "/");
	ui_key(ui, 0x15, now);
	keys(ui, "solv");
	ui_key(ui, '\r', now);
	CHECK(row_of(ui, "n2 "));
	/* A bad pattern: PCRE2's message, the filter unchanged. */
	keys(ui, "/");
	ui_key(ui, 0x15, now);
	keys(ui, "n(");
	ui_key(ui, '\r', now);
	CHECK(line_with(ui, "missing closing parenthesis") != NULL);
	ui_key(ui, 27, now);
	CHECK(strstr(screen(ui), "filter /solv/") != NULL);
	/* Esc on the node table clears it. */
	ui_key(ui, 27, now);
	CHECK(strstr(screen(ui), "filter /") == NULL);
	finish(ui);
}

/* A stalled rank on small terminals: the flag count keeps its place at the
 * end of the job line (no cost line at 15 rows; at 60 columns the line is
 * cut), the node row comes first, and the event names the node. */
static void
test_stalled_small(void)
{
	static const int	 sizes[][2] = { { 15, 60 }, { 45, 160 },
	    { 30, 80 } };
	struct ui		*ui;
	const char		*l;
	unsigned		 k;
	int			 i;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		ui = start(4, 1, 1, sizes[k][0], sizes[k][1]);
		for (i = 0; i < 3; i++)
			step(ui);
		nodes[2].r[0].cpu = 0;
		snprintf(nodes[2].r[0].state, 4, "S");
		snprintf(nodes[2].r[0].wchan, 64, "anon_pipe_read");
		for (i = 0; i < 4; i++)
			step(ui);
		l = line_with(ui, "jobtop job");
		if (sizes[k][0] < 20 || sizes[k][1] < 120)
			CHECK(l != NULL && strstr(l, "FLAGS 1 stalled rank") !=
			    NULL);
		l = strstr(screen(ui), "\nNODE");
		CHECK(l != NULL && strncmp(strchr(l + 1, '\n') + 1, "n3 ", 3) ==
		    0);
		if (sizes[k][0] >= 20)
			CHECK(line_with(ui, "FLAGS 1 stalled rank: n3 rank 2 "
			    "(anon_pipe_read)") != NULL);
		/* ! opens it at any size. */
		ui_key(ui, '!', now);
		CHECK(line_with(ui, "Rank 2 (pid 1002) on n3") != NULL);
		nodes[2].r[0].cpu = 100;
		snprintf(nodes[2].r[0].state, 4, "R");
		finish(ui);
	}
}

static void
test_fold(void)
{
	struct ui	*ui = start(200, 1, 1, 30, 140);
	const char	*s;
	int		 i;

	for (i = 0; i < 3; i++)
		step(ui);
	nodes[77].r[0].cpu = 0;
	for (i = 0; i < 4; i++)
		step(ui);
	s = screen(ui);
	CHECK(strstr(s, "look-alike nodes folded") != NULL);
	CHECK(strstr(s, "n[001-077,079-200]") != NULL);
	CHECK(strstr(s, "199 nodes") != NULL);
	CHECK(strstr(s, "n078 ") != NULL);
	/* Enter on the group (by name, after the flagged n078): its 199
	 * ranks. */
	ui_key(ui, KEY_HOME, now);
	ui_key(ui, KEY_DOWN, now);
	ui_key(ui, '\r', now);
	CHECK(line_with(ui, "Ranks of n[001-077,079-200]: 199") != NULL);
	ui_key(ui, 27, now);
	/* f: never fold. */
	ui_key(ui, 'f', now);
	ui_key(ui, 'f', now);
	s = screen(ui);
	CHECK(strstr(s, "folded") == NULL);
	CHECK(strstr(s, "n001 ") != NULL);
	finish(ui);
}

static void
test_small(void)
{
	struct ui	*ui = start(2, 1, 1, 8, 50);

	step(ui);
	CHECK(line_with(ui, "terminal too small (50x8):") != NULL);
	CHECK(line_with(ui, "jobtop needs at least 60x10") != NULL);
	resizeterm(24, 80);
	CHECK(line_with(ui, "Nodes 2, 2 live") != NULL);
	finish(ui);
}

static void
test_keys(void)
{
	struct ui	*ui = start(3, 2, 1, 40, 140);
	const char	*l;
	int		 i;

	for (i = 0; i < 3; i++)
		step(ui);
	nodes[1].busy = 10;
	step(ui);
	ui_key(ui, 'P', now);
	CHECK(line_with(ui, "nodes sorted by CPU%") != NULL);
	l = line_with(ui, "CPU%");
	CHECK(l != NULL && strstr(l, "CPU%\xe2\x96\xbc") != NULL);
	ui_key(ui, 'I', now);
	l = line_with(ui, "CPU%");
	CHECK(l != NULL && strstr(l, "CPU%\xe2\x96\xb2") != NULL);
	ui_key(ui, 'h', now);
	CHECK(line_with(ui, "quit (stops every probe)") != NULL);
	CHECK(line_with(ui, "In the nodes panel:") != NULL);
	ui_key(ui, 'x', now);
	CHECK(line_with(ui, "Nodes 3") != NULL);
	ui_key(ui, 'p', now);
	CHECK(line_with(ui, "PAUSED") != NULL);
	ui_key(ui, 'p', now);
	ui_key(ui, '+', now);
	CHECK(line_with(ui, "display refresh every 2 s") != NULL);
	ui_key(ui, '-', now);
	ui_key(ui, '-', now);
	CHECK(line_with(ui, "display refresh every 0.5 s") != NULL);
	ui_key(ui, 't', now);
	CHECK(line_with(ui, "theme dark") != NULL);
	ui_key(ui, 't', now);
	CHECK(line_with(ui, "theme light") != NULL);
	ui_key(ui, 'e', now);
	CHECK(line_with(ui, "Events:") != NULL);
	ui_key(ui, 27, now);
	CHECK_INT(ui_key(ui, 'q', now), 1);
	finish(ui);
}

/* The header counts the job's ranks against its tasks; a rank that
 * exits says so in the event panel, with the count. */
static void
test_ranks(void)
{
	struct ui	*ui;
	const char	*l;

	conf_ntasks = 4;
	ui = start(4, 1, 1, 40, 140);
	CHECK(line_with(ui, "ranks 0 of 4") != NULL);	/* no sample yet */
	step(ui);
	step(ui);
	CHECK(line_with(ui, "ranks 4 of 4  every 1s") != NULL);
	nodes[2].r[0].gone = 1;
	step(ui);
	l = line_with(ui, "jobtop job 4242");
	CHECK(l != NULL && strstr(l, "  ranks 3 of 4  ") != NULL);
	l = line_with(ui, "warn  rank 2 (pid 1002, solver) exited on n3; "
	    "ranks 3 of 4");
	CHECK(l != NULL);
	finish(ui);

	/* The scheduler did not say: the count alone. */
	conf_ntasks = -1;
	ui = start(2, 3, 1, 40, 140);
	step(ui);
	CHECK(line_with(ui, "  ranks 6  every") != NULL);
	finish(ui);

	/* A hostlist: processes, not ranks. */
	conf_job = "";
	ui = start(2, 3, 1, 40, 140);
	step(ui);
	CHECK(line_with(ui, "  procs 6  every") != NULL);
	nodes[0].r[1].gone = 1;
	step(ui);
	CHECK(line_with(ui, "  procs 5  every") != NULL);
	CHECK(line_with(ui, "exited") == NULL);
	finish(ui);
	conf_job = "4242";
	conf_ntasks = 0;
}

/* The node rows of the screen, joined. */
static char *
node_rows(struct ui *ui)
{
	char	line[2048], *buf;
	size_t	len = 0, cap = 16384;
	int	y;

	buf = calloc(1, cap);
	ui_frame(ui, now);
	for (y = 0; y < ui->rows; y++) {
		ui_screen_line(ui, y, line, sizeof(line));
		if (line[0] == 'n' && line[1] >= '1' && line[1] <= '9' &&
		    len + strlen(line) + 2 < cap)
			len += (size_t)snprintf(buf + len, cap - len, "%s\n",
			    line);
	}
	return buf;
}

/* A pause freezes the screen, not the data: 300 samples (more than the
 * history's depth) and a lost node later the rows are the same, while
 * the monitor's history took every sample; resuming shows them. */
static void
test_pause(void)
{
	struct ui	*ui = start(4, 2, 1, 40, 140);
	struct history	*h;
	char		*at_pause, *during, *after;
	uint64_t	 before;
	int		 k;

	for (k = 0; k < 10; k++) {
		nodes[0].busy = 10 + 8 * k;
		step(ui);
	}
	keys(ui, "p");
	CHECK(ui->paused);
	at_pause = node_rows(ui);
	CHECK(strstr(at_pause, "n1") != NULL);
	h = monitor_history(ui_monitor(ui));
	before = history_node_samples(h, 0);
	for (k = 0; k < 300; k++) {
		nodes[0].busy = k % 2 ? 5 : 95;
		step(ui);
	}
	ui_node_state(ui, 1, "lost: no data for 5.0 s", 1);
	keys(ui, "?");
	keys(ui, "\033");
	during = node_rows(ui);
	CHECK_STR(during, at_pause);
	CHECK(history_node_samples(h, 0) == before + 300);
	CHECK(monitor_node_phase(ui_monitor(ui), 1) == FEED_LOST);
	keys(ui, "p");
	CHECK(!ui->paused);
	after = node_rows(ui);
	CHECK(strcmp(after, at_pause) != 0);
	CHECK(strstr(after, "lost") != NULL);
	free(at_pause);
	free(during);
	free(after);
	finish(ui);
}

/*
 * A lost node (D8): its last values are stale, shown "-" not as live
 * numbers; the header keeps it lost while it reconnects, with the try;
 * each try is one event, never "back", and "back" comes when it is live.
 * A "connecting" without the session's words (an older recording) keeps
 * it lost too.
 */
static void
test_lost_stale(void)
{
	struct ui	*ui = start(4, 2, 1, 40, 160);
	const char	*l, *sc;
	int		 k, i;

	nodes[1].busy = 100;
	for (k = 0; k < 5; k++)
		step(ui);
	l = line_with(ui, "n2 ");
	CHECK(l != NULL && strstr(l, "100.0") != NULL);
	ui_node_phase(ui, 1, FEED_LOST, "lost: no data for 3.0 s", 1);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < nnodes; i++) {
			if (i == 1)
				continue;
			CHECK(synth_node_step(&nodes[i]) == MSG_SAMPLE);
			ui_node_sample(ui, i, synth_model(&nodes[i]), now);
		}
		now += 1000;
		ui_job_tick(ui, now);
	}
	l = line_with(ui, "n2 ");
	CHECK(l != NULL && strstr(l, "100.0") == NULL);
	CHECK(l != NULL && strstr(l, " - ") != NULL);
	CHECK(line_with(ui, "1 lost (unreachable)") != NULL);
	ui_node_phase(ui, 1, FEED_LOST, "reconnecting (try 1): connecting", 1);
	CHECK(line_with(ui, "1 lost (unreachable, retrying, 1st try)") !=
	    NULL);
	ui_node_phase(ui, 1, FEED_LOST, "lost: Connection refused", 1);
	CHECK(line_with(ui, "1 lost (unreachable, retrying, 1st try)") !=
	    NULL);
	ui_node_phase(ui, 1, FEED_LOST, "reconnecting (try 2): connecting", 1);
	ui_node_phase(ui, 1, FEED_LOST, "reconnecting (try 2): pushing", 1);
	ui_node_phase(ui, 1, FEED_LOST, "reconnecting (try 3): connecting", 1);
	/* Words of an older recording: connecting is not a recovery. */
	ui_node_phase(ui, 1, FEED_CONNECTING, "connecting", 0);
	sc = screen(ui);
	CHECK(strstr(sc, "1 lost (unreachable, retrying, 3rd try)") != NULL);
	/* Its ranks are stale too. */
	ui_key(ui, KEY_HOME, now);
	for (k = 0; k < 4 && ui->nnrows > 0 &&
	    ui->nrows[ui->ntab.sel].node != 1; k++)
		ui_key(ui, KEY_DOWN, now);
	ui_key(ui, '\r', now);
	sc = screen(ui);
	l = strstr(sc, "Ranks of n2");
	CHECK(l != NULL);
	l = l != NULL ? strstr(l, " solver") : NULL;
	for (i = 0; l != NULL; l = strstr(l + 1, " solver"), i++) {
		const char *bol = l;

		while (bol > sc && bol[-1] != '\n')
			bol--;
		/* STATE, then CPU and MEM columns: "-". */
		CHECK(strstr(bol, " - ") != NULL && strstr(bol, " - ") < l);
	}
	CHECK(i == 2);
	ui_key(ui, 27, now);
	sc = screen(ui);
	CHECK(strstr(sc, "FLAGS 1 lost node") != NULL ||
	    strstr(sc, "1 lost node") != NULL);
	CHECK(strstr(sc, "n2 reconnecting (try 2)") != NULL);
	CHECK(strstr(sc, "n2 reconnecting (try 3)") != NULL);
	CHECK(strstr(sc, "n2 back") == NULL);
	CHECK(strstr(sc, "1 connecting") == NULL);
	ui_node_phase(ui, 1, FEED_LIVE, "live", 0);
	step(ui);
	sc = screen(ui);
	CHECK(strstr(sc, "n2 back") != NULL);
	CHECK(strstr(sc, "n2 back:") == NULL);
	CHECK(strstr(sc, "unreachable") == NULL);
	CHECK(strstr(sc, "4 live") != NULL);
	l = line_with(ui, "n2 ");
	CHECK(l != NULL && strstr(l, "100.0") != NULL);
	if (strstr(sc, "n2 back") == NULL)
		fputs(sc, stderr);
	finish(ui);
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
	RUN(test_nodes);
	RUN(test_stalled);
	RUN(test_stalled_small);
	RUN(test_filter);
	RUN(test_fold);
	RUN(test_small);
	RUN(test_keys);
	RUN(test_ranks);
	RUN(test_pause);
	RUN(test_lost_stale);
	fclose(out);
	fclose(in);
	return harness_done();
}
