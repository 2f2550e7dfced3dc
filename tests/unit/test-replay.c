/* SPDX-License-Identifier: ISC */
/*
 * test-replay: the player in the monitor (src/feed-replay.c and the
 * timeline panel).  Synthetic nodes (test-ui-synth.h: real probe streams)
 * are recorded with the real recorder, keyframes every 10 s, one node
 * lost for a while, one reconnecting (a new stream), a detector event;
 * the recording is played into a real
 * ui drawn on a curses screen (newterm on /dev/null).  A seek must rebuild
 * exactly what a continuous play has at the same time: each node's and
 * the job's sparkline values, the node states and the event log.  Steps,
 * speeds and jumps move the clock as asked, the keys and the timeline
 * line work, and history (twin) mode plays a recording that is still
 * being written while the live ui goes on taking samples.  The recorder's
 * hooks (the monitor's) give a second sink restarts and states, and a
 * warning shows.
 *
 *	test-replay --seek FILE [SECONDS_FROM_END]: the time to open a big
 *	recording and seek in it with the history rebuilt (tests/bench).
 */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "feed-replay.h"
#include "feed.h"
#include "harness.h"
#include "rec.h"
#include "ui-priv.h"
#include "test-ui-synth.h"

#define NN		3
#define SAMPLES		200
#define T0		SYNTH_START_MS
#define LOST_FROM	50		/* node 2 sends nothing from here */
#define LOST_TO		80		/* to here */
#define STALL_AT	60
#define RESTART_AT	120		/* node 2 reconnects */

/* A subject for rec_event (one at a time: a static). */
static const struct rec_subject *
subj(int64_t rank, int64_t pid, int phase)
{
	static struct rec_subject	sj;

	sj.rank = rank;
	sj.pid = pid;
	sj.phase = phase;
	return &sj;
}

static struct synth_node	 sn[NN];
static FILE			*out, *in;
static char			 dir[] = "/tmp/jt-replay-XXXXXX";
static char			 path[128], livepath[128];

/* Node i's busy percent at sample s: a pattern the sparklines show. */
static double
busy_of(int i, int s)
{
	return (double)((s * (i + 3)) % 97);
}

/* Arrival time of node i's sample s. */
static uint64_t
at(int i, int s)
{
	return T0 + (uint64_t)s * 1000 + 10 * (uint64_t)i;
}

/* A recording of NN synthetic nodes at 1 Hz, keyframes every 10 s. */
static struct rec *
rec_begin(const char *p)
{
	struct rec_meta	 meta;
	struct rec	*r;
	const char	*names[NN] = { "n1", "n2", "n3" };
	char		 err[256];
	int		 i;

	rec_meta_init(&meta, T0);
	meta.keyframe_ms = 10000;
	snprintf(meta.job, sizeof(meta.job), "777");
	rec_meta_set_nodes(&meta, NN, names);
	r = rec_open(p, &meta, 0, err, sizeof(err));
	CHECK(r != NULL);
	rec_meta_free(&meta);
	for (i = 0; i < NN; i++) {
		synth_node_free(&sn[i]);
		synth_node_init(&sn[i], names[i], 4, 4 * i, 1000);
		CHECK_INT(rec_event(r, (unsigned)i, T0 + 1, EV_INFO, "state",
		    "live", subj(-1, -1, FEED_LIVE)), 0);
	}
	return r;
}

/* Samples [from, to) of every node, with the events of the story. */
static void
rec_samples(struct rec *r, int from, int to)
{
	long	len;
	int	s, i;

	for (s = from; s < to; s++) {
		if (s == RESTART_AT) {
			/* Node 2 reconnects: a new probe, a new stream. */
			CHECK_INT(rec_node_restart(r, 1, at(1, s) - 100), 0);
			synth_node_free(&sn[1]);
			synth_node_init(&sn[1], "n2", 4, 4, 1000);
		}
		for (i = 0; i < NN; i++) {
			if (i == 2 && s >= LOST_FROM && s < LOST_TO)
				continue;
			sn[i].busy = busy_of(i, s);
			len = synth_node_encode(&sn[i]);
			CHECK(len > 0);
			CHECK_INT(rec_node_bytes(r, (unsigned)i, at(i, s),
			    sn[i].buf, (size_t)len), 0);
		}
		if (s == LOST_FROM)
			rec_event(r, 2, at(2, s) + 500, EV_WARN, "state",
			    "lost: no data for 2.5 s", subj(-1, -1, FEED_LOST));
		if (s == LOST_TO)
			rec_event(r, 2, at(2, s) - 5, EV_INFO, "state", "live",
			    subj(-1, -1, FEED_LIVE));
		if (s == STALL_AT)
			rec_event(r, 0, at(0, s) + 600, EV_WARN, "stalled",
			    "rank 1 (pid 1001) made no progress for 30 s",
			    subj(1, 1001, -1));
		rec_tick(r, at(0, s) + 900);
	}
}

static void
rec_make(void)
{
	struct rec	*r;
	char		 err[256];

	r = rec_begin(path);
	rec_samples(r, 0, SAMPLES);
	CHECK_INT(rec_close(r, err, sizeof(err)), 0);
}

/* A replay ui on a screen of cols columns. */
static struct ui *
replay_ui(struct replay **rpp, int cols)
{
	struct ui_conf	 c;
	struct ui	*ui;
	char		 err[256];

	*rpp = replay_open(path, 0, err, sizeof(err));
	CHECK(*rpp != NULL);
	memset(&c, 0, sizeof(c));
	c.job_id = replay_meta(*rpp)->job;
	c.interval = 1;
	c.utf8 = 1;
	c.theme = "default";
	c.elapsed = c.time_limit = c.ntasks = -1;
	ui = ui_new(&c, err, sizeof(err));
	CHECK(ui != NULL);
	ui_attach_replay(ui, *rpp);
	CHECK_INT(ui_start_on(ui, out, in, "xterm-256color", 40, cols, err,
	    sizeof(err)), 0);
	return ui;
}

static void
replay_ui_free(struct ui *ui, struct replay *rp)
{
	ui_free(ui);
	replay_free(rp);
}

/* Screen line y. */
static const char *
line(struct ui *ui, int y)
{
	static char	buf[1024];

	ui_frame(ui, clock_mono_ms());
	ui_screen_line(ui, y, buf, sizeof(buf));
	return buf;
}

/* Is s anywhere on the screen? */
static int
on_screen(struct ui *ui, const char *s)
{
	char	buf[1024];
	int	y;

	ui_frame(ui, clock_mono_ms());
	for (y = 0; y < ui->rows; y++) {
		ui_screen_line(ui, y, buf, sizeof(buf));
		if (strstr(buf, s) != NULL)
			return 1;
	}
	return 0;
}

static uint64_t
pos(const struct replay *rp)
{
	struct replay_status	st;

	replay_status(rp, &st);
	return st.pos_ms;
}

/* Let a seek's rebuilding finish (a small recording's does at once). */
static void
settle(struct replay *rp)
{
	struct replay_status	st;
	int			n;

	for (n = 0, replay_status(rp, &st); st.rebuilt >= 0 && n < 100000;
	    n++, replay_status(rp, &st))
		replay_tick(rp, clock_mono_ms());
	CHECK_INT(st.rebuilt, -1);
}

/* The history, states and events of a ui seeked to t must be those of
 * one that played there sample by sample. */
static void
compare_at(struct ui *play, struct ui *seek, unsigned window)
{
	const struct ui_event	*a, *b;
	unsigned		 k, i;
	double			 x, y;

	for (i = 0; i < NN; i++) {
		CHECK_STR(play->nodes[i].state, seek->nodes[i].state);
		for (k = 0; k + 2 < window; k++) {
			x = history_node_get(play->hist, (int)i, HN_CPU, k);
			y = history_node_get(seek->hist, (int)i, HN_CPU, k);
			/* The window is time: a node silent in it (lost)
			 * has fewer samples than a play shows. */
			if (isnan(y) && !isnan(x))
				CHECK_INT(i, 2);
			else if (isnan(x) || isnan(y))
				CHECK(isnan(x) && isnan(y));
			else
				CHECK_NEAR(x, y, 1e-9);
		}
	}
	for (k = 0; k + 3 < window; k++) {
		x = history_job_get(play->hist, HN_CPU, k);
		y = history_job_get(seek->hist, HN_CPU, k);
		if (isnan(x) || isnan(y))
			CHECK(isnan(x) && isnan(y));
		else
			CHECK_NEAR(x, y, 1e-9);
	}
	CHECK_INT(play->evlen, seek->evlen);
	for (k = 0; k < play->evlen && k < seek->evlen; k++) {
		a = ui_event_get(play, k);
		b = ui_event_get(seek, k);
		CHECK_INT(a->ms, b->ms);
		CHECK_STR(a->text, b->text);
		CHECK_INT(a->pid, b->pid);
	}
}

/* A seek anywhere rebuilds what playing up to there built. */
static void
test_seek_is_play(void)
{
	struct replay_status st;
	struct replay	*rp, *rs;
	struct ui	*play, *seek;
	static const int targets[] = { 5, 40, 65, 101, 150, 199 };
	unsigned	 window = 60;
	size_t		 k;
	int		 s = 0;

	play = replay_ui(&rp, 120);
	seek = replay_ui(&rs, 120);
	replay_set_window(rp, HIST_NODE_DEPTH);
	replay_seek(rp, T0);
	settle(rp);
	for (k = 0; k < sizeof(targets) / sizeof(targets[0]); k++) {
		for (; s < targets[k]; s++) {
			replay_step(rp, 1);
			settle(rp);
		}
		CHECK_INT(pos(rp), T0 + (uint64_t)targets[k] * 1000);
		replay_set_window(rs, window);
		if (targets[k] != 101) {
			replay_seek(rs, T0 + (uint64_t)targets[k] * 1000);
			settle(rs);
		} else {
			/* Rebuilt a slice per loop pass: the line says how
			 * far, keys go on meanwhile, the end is the same. */
			replay_set_slice(rs, 0);
			replay_seek(rs, T0 + 100000);
			replay_status(rs, &st);
			CHECK(st.rebuilt >= 0 && st.rebuilt < 100);
			CHECK_INT(st.pos_ms, T0 + 100000);
			CHECK(strstr(line(seek, 38), "seeking ") != NULL);
			replay_step(rs, 1);
			replay_tick(rs, clock_mono_ms());
			replay_status(rs, &st);
			CHECK(st.rebuilt > 0 && st.rebuilt < 100);
			settle(rs);
			replay_set_slice(rs, 40);
		}
		CHECK_INT(pos(rs), pos(rp));
		compare_at(play, seek, window);
		/* The values on the screen: the latest samples (node 2's
		 * arrive 10 ms after the second, from a new stream after
		 * 120). */
		CHECK_NEAR(history_node_get(seek->hist, 0, HN_CPU, 0),
		    busy_of(0, targets[k]), 1.0);
		CHECK_NEAR(history_node_get(seek->hist, 1, HN_CPU, 0),
		    busy_of(1, targets[k] - 1), 1.0);
	}
	/* Node 3 was lost from 50 to 80: its state at 65, from the list
	 * of recorded events when the window starts after it. */
	replay_set_window(rs, 5);
	replay_seek(rs, T0 + 65 * 1000);
	settle(rs);
	CHECK(strncmp(seek->nodes[2].state, "lost", 4) == 0);
	replay_seek(rs, T0 + 120 * 1000);
	settle(rs);
	CHECK_STR(seek->nodes[2].state, "live");
	CHECK(on_screen(seek, "made no progress for 30 s"));
	/* The rank's pid comes with the recorded event (minor 2), not out
	 * of its text: the detail panel finds the event by it. */
	for (k = 0; k < seek->evlen; k++) {
		if (strcmp(ui_event_get(seek, (unsigned)k)->code, "stalled") ==
		    0)
			break;
	}
	CHECK(k < seek->evlen);
	if (k < seek->evlen)
		CHECK_INT(ui_event_get(seek, (unsigned)k)->pid, 1001);
	replay_ui_free(play, rp);
	replay_ui_free(seek, rs);
}

/* Steps, speeds, play to the end, jumps. */
static void
test_controls(void)
{
	struct replay_status	 st;
	struct replay		*rp;
	struct ui		*ui;
	char			 err[256], hms[16];
	uint64_t		 t, now = 1000000;
	struct tm		 tm;
	time_t			 tt;
	int			 i;

	ui = replay_ui(&rp, 120);
	replay_seek(rp, T0 + 100500);
	settle(rp);
	replay_step(rp, -1);
	settle(rp);
	CHECK_INT(pos(rp), T0 + 99500);
	CHECK_NEAR(history_node_get(ui->hist, 1, HN_CPU, 0), busy_of(1, 99),
	    1.0);
	replay_step(rp, 1);
	settle(rp);
	replay_step(rp, 1);
	settle(rp);
	CHECK_INT(pos(rp), T0 + 101500);
	CHECK_NEAR(history_node_get(ui->hist, 1, HN_CPU, 0), busy_of(1, 101),
	    1.0);

	/* 8x: a real second moves the clock 8 s. */
	for (i = 0; i < 3; i++)
		replay_speed(rp, 1);
	replay_play(rp, 1, now);
	replay_status(rp, &st);
	CHECK_NEAR(st.speed, 8, 0);
	CHECK(replay_tick(rp, now + 1000) > 0);
	CHECK_INT(pos(rp), T0 + 109500);
	CHECK_NEAR(history_node_get(ui->hist, 0, HN_CPU, 0), busy_of(0, 109),
	    1.0);
	for (i = 0; i < 10; i++)
		replay_speed(rp, -1);
	replay_status(rp, &st);
	CHECK_NEAR(st.speed, 0.25, 0);
	replay_tick(rp, now + 5000);
	CHECK_INT(pos(rp), T0 + 110500);
	/* To the end: it stops there. */
	for (i = 0; i < 20; i++)
		replay_speed(rp, 1);
	replay_status(rp, &st);
	CHECK_NEAR(st.speed, 64, 0);
	CHECK_INT(replay_tick(rp, now + 10000), -1);
	replay_status(rp, &st);
	CHECK(!st.playing && st.at_end);
	CHECK_INT(st.pos_ms, st.end_ms);
	/* Space at the end plays it again from the start. */
	replay_play(rp, 1, now);
	CHECK_INT(pos(rp), T0);

	CHECK_INT(replay_parse_time(rp, "50%", &t, err, sizeof(err)), 0);
	CHECK_INT(t, T0 + (st.end_ms - T0) / 2);
	replay_seek(rp, T0 + 100000);
	settle(rp);
	CHECK_INT(replay_parse_time(rp, "-1m30s", &t, err, sizeof(err)), 0);
	CHECK_INT(t, T0 + 10000);
	CHECK_INT(replay_parse_time(rp, "+ 30", &t, err, sizeof(err)), 0);
	CHECK_INT(t, T0 + 130000);
	CHECK_INT(replay_parse_time(rp, "-1h", &t, err, sizeof(err)), 0);
	CHECK_INT(t, T0);
	CHECK_INT(replay_parse_time(rp, "+1d", &t, err, sizeof(err)), 0);
	CHECK_INT(t, st.end_ms);
	tt = (time_t)(T0 / 1000) + 42;
	localtime_r(&tt, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	CHECK_INT(replay_parse_time(rp, hms, &t, err, sizeof(err)), 0);
	CHECK_INT(t, T0 + 42000);
	tt = (time_t)(T0 / 1000) + 3 * 3600;
	localtime_r(&tt, &tm);
	strftime(hms, sizeof(hms), "%H:%M", &tm);
	CHECK_INT(replay_parse_time(rp, hms, &t, err, sizeof(err)), -1);
	CHECK(strstr(err, "is not in the recording") != NULL);
	CHECK_INT(replay_parse_time(rp, "soon", &t, err, sizeof(err)), -1);
	CHECK_INT(replay_parse_time(rp, "120%", &t, err, sizeof(err)), -1);
	CHECK_INT(replay_parse_time(rp, "-5x", &t, err, sizeof(err)), -1);
	CHECK_INT(replay_parse_time(rp, "25:00", &t, err, sizeof(err)), -1);
	replay_ui_free(ui, rp);
}

static void
keys(struct ui *ui, const char *s)
{
	for (; *s != '\0'; s++)
		ui_key(ui, (unsigned char)*s, clock_mono_ms());
	if (ui->replay != NULL)
		settle(ui->replay);
	if (ui->twin != NULL)
		settle(ui->twin->replay);
}

/* The timeline line and the keys. */
static void
test_keys(void)
{
	struct replay_status	 st;
	struct replay		*rp;
	struct ui		*ui;
	uint64_t		 t;
	int			 i;

	ui = replay_ui(&rp, 140);
	replay_seek(rp, T0 + 30000);
	settle(rp);
	CHECK(strstr(line(ui, 38), "REPLAY") != NULL);
	CHECK(strstr(line(ui, 38), "paused 1x") != NULL);
	CHECK(strstr(line(ui, 38), "(+00:30)") != NULL);
	keys(ui, " ");
	replay_status(rp, &st);
	CHECK(st.playing);
	CHECK(strstr(line(ui, 38), "playing 1x") != NULL);
	keys(ui, "p}}");
	replay_status(rp, &st);
	CHECK(!st.playing);
	CHECK_NEAR(st.speed, 4, 0);
	CHECK(strstr(line(ui, 38), "paused 4x") != NULL);
	t = pos(rp);
	keys(ui, "]]][");
	CHECK_INT(pos(rp), t + 2000);
	keys(ui, "J+1m\r");
	CHECK_INT(pos(rp), t + 62000);
	CHECK(strstr(line(ui, 38), "(+01:32)") != NULL);
	keys(ui, "Jnever\r");
	CHECK(strstr(line(ui, 39), "jump: give a time") != NULL);
	CHECK_INT(pos(rp), t + 62000);
	keys(ui, "J");
	CHECK(strstr(line(ui, 38), "Jump to:") != NULL);
	ui_key(ui, 27, clock_mono_ms());
	CHECK(strstr(line(ui, 38), "REPLAY") != NULL);
	keys(ui, "$");
	replay_status(rp, &st);
	CHECK_INT(st.pos_ms, st.end_ms);
	keys(ui, "^");
	CHECK_INT(pos(rp), T0);
	/* The help lists them; a backtrace is refused. */
	keys(ui, "h");
	for (i = 0; i < 5 && !on_screen(ui, "In the timeline panel:"); i++)
		keys(ui, " ");
	CHECK(on_screen(ui, "In the timeline panel:"));
	CHECK(on_screen(ui, "jump to 12:30:00"));
	ui_key(ui, 27, clock_mono_ms());
	keys(ui, "H");
	CHECK(strstr(line(ui, 39), "this is a replay") != NULL);
	replay_ui_free(ui, rp);
}

/* A live ui of NN synthetic nodes. */
static struct synth_node	live[NN];

static const struct node_model *
live_model(void *arg, int i)
{
	return i >= 0 && i < NN ? synth_model(&live[i]) : NULL;
}

static void
live_step(struct ui *ui, uint64_t now)
{
	int	i;

	for (i = 0; i < NN; i++) {
		CHECK(synth_node_step(&live[i]) == MSG_SAMPLE);
		ui_node_sample(ui, i, synth_model(&live[i]), now);
	}
	ui_job_tick(ui, now);
}

/* History mode: the twin plays the recording being written; the live
 * ui goes on; L returns. */
static void
test_twin(void)
{
	struct replay_status	 st;
	struct ui_conf		 c;
	struct ui		*ui;
	struct rec		*r;
	char			 err[256], name[8];
	uint64_t		 now = 5000000, old_end, samples;
	int			 i;

	r = rec_begin(livepath);
	rec_samples(r, 0, 30);
	memset(&c, 0, sizeof(c));
	c.job_id = "777";
	c.interval = 1;
	c.utf8 = 1;
	c.theme = "default";
	c.elapsed = c.time_limit = c.ntasks = -1;
	ui = ui_new(&c, err, sizeof(err));
	for (i = 0; i < NN; i++) {
		snprintf(name, sizeof(name), "n%d", i + 1);
		synth_node_init(&live[i], name, 2, 2 * i, 1000);
		ui_add_node(ui, name, 0);
		ui_node_state(ui, i, "live", 0);
	}
	ui_set_models(ui, live_model, NULL);
	CHECK_INT(ui_start_on(ui, out, in, "xterm-256color", 40, 140, err,
	    sizeof(err)), 0);
	live_step(ui, now);

	/* No recording: a message, no history. */
	ui_set_recording(ui, NULL);
	keys(ui, "H");
	CHECK(ui->twin == NULL);
	CHECK(strstr(line(ui, 39), "not being recorded") != NULL);

	ui_set_recording(ui, livepath);
	keys(ui, "H");
	CHECK(ui->twin != NULL);
	if (ui->twin == NULL)
		goto out;
	CHECK(strstr(line(ui, 38), "HISTORY: live goes on") != NULL);
	replay_status(ui->twin->replay, &st);
	CHECK(st.twin);
	old_end = st.pos_ms;
	CHECK_INT(old_end, at(2, 29));
	/* Live goes on while history shows; the file grows. */
	samples = history_node_samples(ui->hist, 0);
	live_step(ui, now + 1000);
	CHECK_INT(history_node_samples(ui->hist, 0), samples + 1);
	rec_samples(r, 30, 40);
	keys(ui, "[[[");
	CHECK_INT(pos(ui->twin->replay), old_end - 3000);
	keys(ui, "]]]]]]");
	CHECK_INT(pos(ui->twin->replay), old_end + 3000);
	CHECK_NEAR(history_node_get(ui->twin->hist, 0, HN_CPU, 0),
	    busy_of(0, 32), 1.0);
	/* Views carry over both ways. */
	keys(ui, "r");
	CHECK(on_screen(ui, "HISTORY: live goes on"));
	keys(ui, "L");
	CHECK(ui->twin == NULL);
	CHECK(!on_screen(ui, "HISTORY: live goes on"));
	CHECK(ui_view(ui) == UV_RANKS);
	/* [ goes straight into history, one sample back; q quits live. */
	keys(ui, "[");
	CHECK(ui->twin != NULL);
	if (ui->twin != NULL)
		CHECK_INT(pos(ui->twin->replay), at(2, 39) - 1000);
	keys(ui, "q");
	CHECK(ui->quitting);
out:
	ui_free(ui);
	rec_close(r, err, sizeof(err));
	for (i = 0; i < NN; i++)
		synth_node_free(&live[i]);
}

static int	 restarts, states;
static uint64_t	 state_wall;
static size_t	 state_len;

static void
count_restart(void *arg, int i, uint64_t wall)
{
	restarts++;
}

static void
count_phase(void *arg, int i, enum feed_phase ph, const char *text, int lost,
    uint64_t wall)
{
	states++;
	state_wall = wall;
	state_len = strlen(text);
}

/* What main.c records in interactive mode: a second sink of the ui's
 * monitor, which takes the session's hooks, sees its restarts and states
 * (no relay through the ui); its warnings reach the screen, history
 * shown or not. */
static void
test_hooks_warn(void)
{
	static const struct monitor_sink rec_sink = {
		.restart = count_restart,
		.phase = count_phase,
	};
	struct session_hooks	 h;
	struct session_conf	 sc;
	struct session		*sess;
	struct ui_conf		 c;
	struct ui		*ui;
	char			 err[256], reason[300];

	memset(&c, 0, sizeof(c));
	c.job_id = "";
	c.interval = 1;
	c.utf8 = 1;
	c.theme = "default";
	c.elapsed = c.time_limit = c.ntasks = -1;
	ui = ui_new(&c, err, sizeof(err));
	ui_add_node(ui, "n1", 0);
	monitor_add_sink(ui_monitor(ui), &rec_sink, NULL);
	ui_hooks(ui, &h);
	memset(&sc, 0, sizeof(sc));
	sc.interval = 1;
	sc.lost_ms = 2500;
	sess = session_new(&sc, &h);
	ui_set_session(ui, sess);
	/* A node that cannot start: its state goes to both, whole to the
	 * recorder (a refusal's reason may be long: OAR's is 230 bytes). */
	memset(reason, 'x', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	memcpy(reason, "cannot start ", 13);
	session_add(sess, "n1", NULL, reason);
	CHECK_INT(states, 1);
	CHECK(state_wall > 0);
	CHECK_INT((int)state_len, (int)strlen(session_node_state(sess, 0)));
	CHECK(state_len > 200);
	CHECK(strncmp(ui->nodes[0].state, "failed: cannot start xxx", 24) == 0);
	CHECK(h.restart != NULL);
	if (h.restart != NULL)
		h.restart(h.arg, sess, 0, T0);
	CHECK_INT(restarts, 1);
	CHECK_INT(ui_start_on(ui, out, in, "xterm-256color", 40, 140, err,
	    sizeof(err)), 0);
	ui_warn(ui, "recording stopped: No space left on device (/x.jtr)");
	CHECK(strstr(line(ui, 39), "recording stopped: No space left") !=
	    NULL);
	CHECK(on_screen(ui, "error recording stopped: No space left"));
	ui_free(ui);
	session_free(sess);
}

static double
clock_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU ms of this process: on a loaded machine the wall time includes
 * waiting for a CPU. */
static double
cpu_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* --seek FILE [BACK]: open, then seek BACK s before the end with 150
 * columns of history rebuilt, then one step back and one forward. */
static int
bench_seek(const char *file, unsigned back)
{
	struct replay_status	 st;
	struct replay		*rp;
	struct ui_conf		 c;
	struct ui		*ui;
	char			 err[256];
	double			 t0, t1, t2, t3, t4, t5, c2, c3, c4, c5;

	t0 = clock_ms();
	if ((rp = replay_open(file, 0, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s: %s\n", file, err);
		return 1;
	}
	t1 = clock_ms();
	memset(&c, 0, sizeof(c));
	c.job_id = "1";
	c.interval = 1;
	c.elapsed = c.time_limit = c.ntasks = -1;
	ui = ui_new(&c, err, sizeof(err));
	ui_attach_replay(ui, rp);
	replay_set_window(rp, 150);
	replay_status(rp, &st);
	t2 = clock_ms();
	c2 = cpu_ms();
	replay_seek(rp, st.end_ms - back * 1000ULL);
	settle(rp);
	t3 = clock_ms();
	c3 = cpu_ms();
	replay_step(rp, -1);
	settle(rp);
	t4 = clock_ms();
	c4 = cpu_ms();
	replay_step(rp, 1);
	settle(rp);
	t5 = clock_ms();
	c5 = cpu_ms();
	printf("open (events pass) %.1f ms; seek with 150 s of history "
	    "rebuilt %.1f ms (cpu %.1f ms); step back %.1f ms (cpu %.1f ms); "
	    "step forward %.1f ms (cpu %.1f ms) (%u nodes)\n", t1 - t0,
	    t3 - t2, c3 - c2, t4 - t3, c4 - c3, t5 - t4, c5 - c4,
	    (unsigned)replay_meta(rp)->nnodes);
	ui_free(ui);
	replay_free(rp);
	return 0;
}

int
main(int argc, char **argv)
{
	int	i;

	if (argc >= 3 && strcmp(argv[1], "--seek") == 0)
		return bench_seek(argv[2], argc > 3 ? (unsigned)atoi(argv[3]) :
		    60);
	setlocale(LC_CTYPE, "C.UTF-8");
	setenv("TERM", "xterm-256color", 1);
	unsetenv("NO_COLOR");
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	if (out == NULL || in == NULL || mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof(path), "%s/r.jtr", dir);
	snprintf(livepath, sizeof(livepath), "%s/live.jtr", dir);
	rec_make();
	RUN(test_seek_is_play);
	RUN(test_controls);
	RUN(test_keys);
	RUN(test_twin);
	RUN(test_hooks_warn);
	for (i = 0; i < NN; i++)
		synth_node_free(&sn[i]);
	unlink(path);
	unlink(livepath);
	rmdir(dir);
	fclose(out);
	fclose(in);
	return harness_done();
}
