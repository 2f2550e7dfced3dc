/* SPDX-License-Identifier: ISC */
/*
 * ui: the interactive monitor, a sink of the monitor core (src/monitor.c,
 * which owns the history, the detectors and the nodes' phases).  It keeps
 * what the screen shows of each node, an event log, and schedules
 * frames: data marks the screen dirty and a frame is drawn at most once
 * per refresh interval (never while paused); a key is answered with a
 * frame at once.  A pause freezes what is drawn, not the data: the
 * screen draws a copy of the monitor's state and of the nodes' models
 * taken at the pause, while samples, states and events go on into the
 * monitor, its history and detectors and the recording; so a key while
 * paused redraws the same data, a pause of any length drops nothing, and
 * resuming shows the monitor as it is, with the pause's events in the
 * log.  A frame
 * lays the current view's panels out top to bottom, lets each prepare
 * what it shows, then draws them and the status line.
 *
 * Views (how to add one: a UV_* value, a line in ui_views[], a key that
 * pushes it): nodes (header, node table, recent events), ranks (header,
 * rank table of all nodes or a chosen few), one rank's detail, the event
 * log, help.  Esc goes back.  In a replay, and in history (twin) mode,
 * the timeline panel joins every view above the status line
 * (panel-timeline.c).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "clock.h"
#include "config.h"
#include "feed-replay.h"
#include "hostlist.h"
#include "log.h"
#include "proto.h"
#include "setup.h"
#include "ui-priv.h"
#include "xmalloc.h"

#define UI_REFRESH_MIN_MS	100
#define UI_REFRESH_MAX_MS	10000

struct ui_view_def {
	const char		*name;
	const struct panel	*focus;
	const struct panel	*panels[4];	/* top to bottom, NULL ends */
};

static const struct ui_view_def ui_views[UV_NVIEWS] = {
	[UV_NODES] = { .name = "nodes", .focus = &panel_nodes,
	    .panels = { &panel_header, &panel_nodes, &panel_events, NULL } },
	[UV_RANKS] = { .name = "ranks", .focus = &panel_ranks,
	    .panels = { &panel_header, &panel_ranks, NULL } },
	[UV_DETAIL] = { .name = "rank detail", .focus = &panel_detail,
	    .panels = { &panel_header, &panel_detail, NULL } },
	[UV_EVENTS] = { .name = "events", .focus = &panel_events,
	    .panels = { &panel_header, &panel_events, NULL } },
	[UV_HELP] = { .name = "help", .focus = &panel_help,
	    .panels = { &panel_help, NULL } },
	[UV_SETUP] = { .name = "setup", .focus = &panel_setup,
	    .panels = { &panel_setup, NULL } },
	[UV_STACKS] = { .name = "stacks", .focus = &panel_stacks,
	    .panels = { &panel_header, &panel_stacks, NULL } },
};

/* Intervals '+' and '-' step through, in ms: the sampling interval of a
 * live session (the probes' bounds), the display refresh otherwise. */
static const unsigned ui_refresh_steps[] = {
	100, 200, 250, 500, 1000, 2000, 3000, 5000, 10000, 15000, 30000, 60000
};

static int	ui_sclass_of(enum feed_phase, int, int);
static void	ui_self_cost(struct ui *, uint64_t);
static void	ui_thaw(struct ui *);
static struct ui_event *ui_event_add(struct ui *, int, int, const char *,
		    const char *, uint64_t);
static int	ui_on_timeout(void *, uint64_t);
static void	ui_key_unknown(struct ui *, int);
static int	ui_key_escape(struct ui *);

int
ui_check_terminal(char *err, size_t errsz)
{
	return screen_check(err, errsz);
}

/* The theme to start with: -t, else the settings file's, else mono under
 * NO_COLOR, else default.  A settings file's theme that does not load is
 * a warning (the file can be fixed from the setup screen), -t's an
 * error. */
static struct theme *
ui_first_theme(struct ui *ui, char *err, size_t errsz)
{
	const struct config	*cf = ui->conf.settings;
	struct theme		*t;
	const char		*nc = getenv("NO_COLOR");
	char			 why[512], pb[200];

	if (ui->conf.theme != NULL) {
		if ((t = theme_load(ui->conf.theme, err, errsz)) != NULL)
			ui->theme_arg = xstrdup(ui->conf.theme);
		return t;
	}
	if (cf != NULL && cf->theme != NULL) {
		if ((t = theme_load(cf->theme, why, sizeof(why))) != NULL) {
			ui->theme_arg = xstrdup(cf->theme);
			return t;
		}
		snprintf(ui->theme_warn, sizeof(ui->theme_warn), "%s:%d: %s; "
		    "the default theme is used", text_clean(pb, sizeof(pb),
		    cf->path != NULL ? cf->path : "jobtoprc"), cf->theme_line,
		    why);
	}
	if (nc != NULL && *nc != '\0') {
		ui->no_color = 1;
		if ((t = theme_load("mono", err, errsz)) != NULL)
			return t;
	}
	return theme_load("default", err, errsz);
}

static void
ui_sink_node(void *arg, int i, const char *name)
{
	struct ui	*ui = arg;
	struct ui_node	*n;

	ui->nodes = xreallocarray(ui->nodes, (size_t)ui->nnodes + 1,
	    sizeof(*ui->nodes));
	n = &ui->nodes[ui->nnodes++];
	memset(n, 0, sizeof(*n));
	n->name = xstrdup(name);
	snprintf(n->state, sizeof(n->state), "connecting");
	n->sclass = US_CONNECTING;
	ui->dirty = 1;
}

static void
ui_sink_sample(void *arg, int i, const struct node_model *m, uint64_t now)
{
	struct ui	*ui = arg;

	/* Paused: the data goes on into the monitor, the screen stays. */
	if (ui->frozen != NULL)
		return;
	ui->data_gen++;
	ui->dirty = 1;
	/* A node's first data is drawn at once, not a refresh interval
	 * (up to 10 s with -d 300) after the empty first screen. */
	if (i >= 0 && i < ui->nnodes && !ui->nodes[i].sampled) {
		ui->nodes[i].sampled = 1;
		ui->last_draw = 0;
	}
}

static void
ui_sink_phase(void *arg, int i, enum feed_phase ph, const char *text,
    int lost, uint64_t wall)
{
	struct ui	*ui = arg;
	struct ui_node	*n = &ui->nodes[i];
	unsigned	 t;

	if (ui->frozen != NULL)
		return;		/* ui_pause catches up */
	snprintf(n->state, sizeof(n->state), "%s", text);
	n->lost = lost;
	/* The tries of a lost node's reconnect, kept between them (its
	 * text says "lost: why" while it waits for the next). */
	if (!lost)
		n->tries = 0;
	else if (sscanf(text, "reconnecting (try %u", &t) == 1 &&
	    t > n->tries)
		n->tries = t;
	n->failed |= ph == FEED_FAILED;
	n->sclass = ui_sclass_of(ph, n->failed, lost);
	ui->dirty = 1;
}

static void
ui_sink_event(void *arg, const struct monitor_event *e)
{
	struct ui	*ui = arg;
	struct ui_event	*h;

	if (ui->frozen == NULL) {
		ui_event_add(ui, e->node, e->level, e->code, e->text,
		    e->time_ms)->pid = e->pid;
		return;
	}
	/* Paused: logged on resume (the newest UI_EVENTS_MAX). */
	if (ui->held == NULL)
		ui->held = xcalloc(UI_EVENTS_MAX, sizeof(*ui->held));
	if (ui->nheld == UI_EVENTS_MAX) {
		memmove(ui->held, ui->held + 1,
		    (UI_EVENTS_MAX - 1) * sizeof(*ui->held));
		ui->nheld--;
	}
	h = &ui->held[ui->nheld++];
	h->ms = e->time_ms;
	h->node = e->node;
	h->level = e->level;
	h->pid = e->pid;
	snprintf(h->code, sizeof(h->code), "%s", e->code);
	snprintf(h->text, sizeof(h->text), "%s", e->text);
}

static void
ui_sink_tick(void *arg, uint64_t now)
{
	struct ui	*ui = arg;

	/* A replay's ticks are on its clock: the monitor's cost is not. */
	if (ui->replay == NULL)
		ui_self_cost(ui, now);
	else if (clock_mono_ms() >= ui->self_ticks_at + 1000)
		ui_self_cost(ui, clock_mono_ms());
	ui->dirty = 1;
}

static void
ui_sink_reset(void *arg)
{
	struct ui	*ui = arg;
	struct ui_node	*n;
	int		 i;

	ui->hist = monitor_history(ui->mon);
	ui->det = monitor_detect(ui->mon);
	for (i = 0; i < ui->nnodes; i++) {
		n = &ui->nodes[i];
		snprintf(n->state, sizeof(n->state), "connecting");
		n->lost = n->failed = 0;
		n->tries = 0;
		n->sclass = US_CONNECTING;
	}
	ui->evhead = ui->evlen = 0;
	ui->evtotal = 0;
	/* Prepared rows point into the old history. */
	ui->det_mi = NULL;
	ui->det_hr = NULL;
	ui->rrows_valid = 0;
	ui->data_gen++;
	ui->view_gen++;
	ui->dirty = 1;
}

static void
ui_sink_clock(void *arg, uint64_t wall_ms, uint64_t start_ms)
{
	struct ui	*ui = arg;

	ui->vclock = wall_ms;
	ui->vstart = start_ms;
}

static void	ui_sink_transport(void *, int, const char *, const char *,
		    uint64_t);
/* Another message (a HELLO): the node's facts may show. */
static void
ui_sink_message(void *arg, int i, int type)
{
	struct ui	*ui = arg;

	ui->dirty = 1;
}

static int	ui_on_pollfds(void *, struct pollfd *, int);
static void	ui_on_ready(void *, const struct pollfd *, int, uint64_t);
static int	ui_on_timeout(void *, uint64_t);

static const struct monitor_sink ui_sink = {
	.node_added = ui_sink_node,
	.sample = ui_sink_sample,
	.phase = ui_sink_phase,
	.event = ui_sink_event,
	.job_tick = ui_sink_tick,
	.reset = ui_sink_reset,
	.clock = ui_sink_clock,
	.transport = ui_sink_transport,
	.message = ui_sink_message,
	.pollfds = ui_on_pollfds,
	.ready = ui_on_ready,
	.timeout = ui_on_timeout,
};

struct ui *
ui_new(const struct ui_conf *conf, char *err, size_t errsz)
{
	struct monitor_conf	 mc;
	struct ui		*ui;
	size_t			 i;
	uint64_t		 ms;

	ui = xcalloc(1, sizeof(*ui));
	ui->conf = *conf;
	ui->conf.job_id = xstrdup(conf->job_id != NULL ? conf->job_id : "");
	ui->conf.job_name = xstrdup(conf->job_name != NULL ?
	    conf->job_name : "");
	ui->conf.job_user = xstrdup(conf->job_user != NULL ?
	    conf->job_user : "");
	ui->conf.job_state = xstrdup(conf->job_state != NULL ?
	    conf->job_state : "");
	ui->conf.theme = conf->theme != NULL ? xstrdup(conf->theme) : NULL;
	if ((ui->theme = ui_first_theme(ui, err, errsz)) == NULL) {
		ui_free(ui);
		return NULL;
	}
	ui->themes = theme_names(&ui->nthemes);
	for (i = 0; i < ui->nthemes; i++)
		if (strcmp(ui->themes[i], ui->theme->name) == 0)
			ui->theme_idx = i;
	memset(&mc, 0, sizeof(mc));
	/* Without a job (-w) the processes shown are no job's ranks. */
	mc.ranks = ui->conf.job_id[0] != '\0';
	mc.ntasks = ui->conf.ntasks;
	mc.mem_node = ui->conf.mem_node;
	mc.cpus_node = ui->conf.cpus_node;
	if (ui->conf.settings != NULL)
		mc.alloc_ms = (uint64_t)ui->conf.settings->alloc_after * 1000;
	mc.interval = conf->interval;
	ui->mon = monitor_new(&mc);
	monitor_add_sink(ui->mon, &ui_sink, ui);
	ui->hist = monitor_history(ui->mon);
	ui->det = monitor_detect(ui->mon);
	ui->events = xcalloc(UI_EVENTS_MAX, sizeof(*ui->events));
	ui->start_ms = clock_mono_ms();
	ui->interval_ms = (uint64_t)(conf->interval * 1000);
	if (ui->interval_ms < 10)
		ui->interval_ms = 10;
	ms = ui->interval_ms;
	if (ms < UI_REFRESH_MIN_MS)
		ms = UI_REFRESH_MIN_MS;
	if (ms > UI_REFRESH_MAX_MS)
		ms = UI_REFRESH_MAX_MS;
	ui->refresh_ms = ms;
	ui->stack[0] = UV_NODES;
	ui->depth = 1;
	ui->det_node = -1;
	ui->sel_rnode = -1;
	ui->bt_node = -1;
	ui->utf8 = conf->utf8 > 0;
	setup_apply(ui, conf->settings);
	if (ui->theme_warn[0] != '\0')
		ui_warn(ui, ui->theme_warn);
	return ui;
}

void
ui_free(struct ui *ui)
{
	int		i;
	unsigned	k;

	if (ui == NULL)
		return;
	if (ui->twin != NULL)
		timeline_leave(ui);
	if (ui->started)
		ui_stop(ui);
	backtrace_free(ui->bt);
	stacks_view_free(ui);
	ui_thaw(ui);
	free(ui->held);
	monitor_free(ui->mon);
	for (i = 0; i < ui->nnodes; i++)
		free(ui->nodes[i].name);
	free(ui->nodes);
	for (i = 0; ui->events != NULL && i < UI_EVENTS_MAX; i++)
		free(ui->events[i].fold);
	free(ui->events);
	for (k = 0; k < ui->nnrows; k++)
		free(ui->nrows[k].label);
	free(ui->nrows);
	free(ui->nall);
	free(ui->members);
	free(ui->rrows);
	free(ui->scope);
	free(ui->scope_label);
	filter_free(ui->filter);
	filter_free(ui->filter_saved);
	theme_free(ui->theme);
	free(ui->theme_arg);
	if (ui->themes != NULL)
		theme_names_free(ui->themes, ui->nthemes);
	free((char *)(uintptr_t)ui->conf.job_id);
	free((char *)(uintptr_t)ui->conf.job_name);
	free((char *)(uintptr_t)ui->conf.job_user);
	free((char *)(uintptr_t)ui->conf.job_state);
	free((char *)(uintptr_t)ui->conf.theme);
	free(ui->rec_path);
	free(ui);
}

void
ui_add_node(struct ui *ui, const char *name, int local)
{
	int	i = monitor_add_node(ui->mon, name);

	ui->nodes[i].local = local;
}

void
ui_set_session(struct ui *ui, struct session *s)
{
	ui->sess = s;
	monitor_set_session(ui->mon, s);
}

void
ui_set_models(struct ui *ui, const struct node_model *(*fn)(void *, int),
    void *arg)
{
	monitor_set_models(ui->mon, fn, arg);
}

struct monitor *
ui_monitor(const struct ui *ui)
{
	return ui->mon;
}

const struct node_model *
ui_model(const struct ui *ui, int i)
{
	if (ui->frozen != NULL)
		return i >= 0 && i < ui->nnodes && ui->frozen_have[i] ?
		    &ui->frozen_models[i] : NULL;
	return monitor_model(ui->mon, i);
}

#define UI_FOLD_BACK	16	/* events looked back at to fold into */
#define UI_FOLD_MS	30000	/* within this long of the first */

/* An event's text is "<node's name> <tail>": the tail, or NULL. */
static const char *
ui_event_tail(const struct ui *ui, int node, const char *text)
{
	size_t	n;

	if (node < 0 || node >= ui->nnodes)
		return NULL;
	n = strlen(ui->nodes[node].name);
	if (strncmp(text, ui->nodes[node].name, n) != 0 || text[n] != ' ')
		return NULL;
	return text + n + 1;
}

/* "node[1-4] tail" of a folded event's nodes. */
static void
ui_event_fold_text(struct ui *ui, struct ui_event *e)
{
	struct hostlist	*hl;
	char		 err[128], *names = NULL;
	size_t		 len, tl;
	unsigned	 k;

	if ((hl = hostlist_new()) != NULL) {
		for (k = 0; k < e->nfold; k++)
			if (hostlist_push_name(hl, ui->nodes[e->fold[k]].name,
			    err, sizeof(err)) != 0)
				break;
		if (k < e->nfold || hostlist_fold(hl, &names) != 0)
			names = NULL;
		hostlist_free(hl);
	}
	if (names == NULL)
		names = xasprintf("%u nodes:", e->nfold);
	len = strlen(names);
	if (len > sizeof(e->text) - 2)
		len = sizeof(e->text) - 2;
	memcpy(e->text, names, len);
	e->text[len++] = ' ';
	tl = strlen(e->tail);
	if (tl > sizeof(e->text) - 1 - len)
		tl = sizeof(e->text) - 1 - len;
	memcpy(e->text + len, e->tail, tl);
	e->text[len + tl] = '\0';
	free(names);
}

/*
 * The same info line that another node said a moment ago (every node's
 * probe says how it found the job's processes): folded into that line, so
 * four nodes take one row, not four.  A node already in it (it said so
 * again: a reconnect) makes a line of its own.  The folded event, or NULL.
 */
static struct ui_event *
ui_event_fold(struct ui *ui, int node, int level, const char *code,
    const char *text, uint64_t ms)
{
	struct ui_event	*e;
	const char	*tail;
	unsigned	 k, j;

	if (level != EV_INFO || (tail = ui_event_tail(ui, node, text)) == NULL)
		return NULL;
	for (k = 0; k < UI_FOLD_BACK && k < ui->evlen; k++) {
		e = &ui->events[(ui->evhead + ui->evlen - 1 - k) %
		    UI_EVENTS_MAX];
		if (e->nfold == 0 || e->level != level ||
		    strcmp(e->code, code) != 0 || strcmp(e->tail, tail) != 0 ||
		    ms > e->ms + UI_FOLD_MS || ms + UI_FOLD_MS < e->ms)
			continue;
		for (j = 0; j < e->nfold; j++)
			if (e->fold[j] == node)
				return NULL;
		e->fold = xreallocarray(e->fold, e->nfold + 1,
		    sizeof(*e->fold));
		e->fold[e->nfold++] = node;
		ui_event_fold_text(ui, e);
		ui->dirty = 1;
		return e;
	}
	return NULL;
}

/* Add one line to the event log, about no process (the caller may say
 * which). */
static struct ui_event *
ui_event_add(struct ui *ui, int node, int level, const char *code,
    const char *text, uint64_t ms)
{
	struct ui_event	*e;
	const char	*tail;
	unsigned	 slot;

	if ((e = ui_event_fold(ui, node, level, code, text, ms)) != NULL)
		return e;
	slot = (ui->evhead + ui->evlen) % UI_EVENTS_MAX;
	if (ui->evlen == UI_EVENTS_MAX)
		ui->evhead = (ui->evhead + 1) % UI_EVENTS_MAX;
	else
		ui->evlen++;
	e = &ui->events[slot];
	e->ms = ms;
	e->node = node;
	e->level = level;
	snprintf(e->code, sizeof(e->code), "%s", code);
	snprintf(e->text, sizeof(e->text), "%s", text);
	e->pid = -1;
	free(e->fold);
	e->fold = NULL;
	e->nfold = 0;
	if (level == EV_INFO && (tail = ui_event_tail(ui, node, text)) !=
	    NULL) {
		e->fold = xmalloc(sizeof(*e->fold));
		e->fold[0] = node;
		e->nfold = 1;
		snprintf(e->tail, sizeof(e->tail), "%s", tail);
	}
	ui->evtotal++;
	ui->dirty = 1;
	return e;
}

const struct ui_event *
ui_event_get(const struct ui *ui, unsigned k)
{
	if (k >= ui->evlen)
		return NULL;
	return &ui->events[(ui->evhead + k) % UI_EVENTS_MAX];
}

void
ui_node_sample(struct ui *ui, int i, const struct node_model *m,
    uint64_t now)
{
	if (i < 0 || i >= ui->nnodes)
		return;
	monitor_sample(ui->mon, i, m, now);
}

/* Wall-clock ms of the data shown: a replay's clock, else now. */
static uint64_t
ui_wall(const struct ui *ui)
{
	return ui->vclock != 0 ? ui->vclock : clock_wall_ms();
}

/* The node's transport (the monitor keeps it): told in the event log
 * when the ladder skipped cheaper ones (the user asked for none of
 * them). */
static void
ui_sink_transport(void *arg, int i, const char *t, const char *skipped,
    uint64_t wall)
{
	struct ui	*ui = arg;
	char		 text[256];

	if (i < 0 || i >= ui->nnodes || *skipped == '\0')
		return;
	snprintf(text, sizeof(text), "%s via %s: %s", ui->nodes[i].name, t,
	    skipped);
	ui_event_add(ui, i, EV_INFO, "transport", text, ui_wall(ui));
	ui->dirty = 1;
}

void
ui_node_state(struct ui *ui, int i, const char *state, int lost)
{
	monitor_state(ui->mon, i, state, lost);
}

void
ui_node_phase(struct ui *ui, int i, enum feed_phase ph, const char *state,
    int lost)
{
	monitor_state_phase(ui->mon, i, ph, state, lost);
}

void
ui_node_event(struct ui *ui, int i, const struct proto_event *ev)
{
	monitor_probe_event(ui->mon, i, ev);
}

void
ui_warn(struct ui *ui, const char *text)
{
	ui_event_add(ui, -1, EV_ERROR, "monitor", text, clock_wall_ms());
	ui_message(ui, 1, "%s", text);
	if (ui->twin != NULL)
		ui_message(ui->twin, 1, "%s", text);
}

void
ui_job_end(struct ui *ui, const char *state)
{
	char	text[128];

	if (ui->job_ended)
		return;
	ui->job_ended = 1;
	monitor_job_ended(ui->mon);
	ui->end_ms = ui->now != 0 ? ui->now : clock_mono_ms();
	free((char *)(uintptr_t)ui->conf.job_state);
	ui->conf.job_state = xstrdup(state);
	snprintf(text, sizeof(text), "the job has ended (%s): the probes "
	    "are stopped; q quits", state);
	ui_event_add(ui, -1, EV_INFO, "job", text, clock_wall_ms());
	ui_message(ui, 0, "%s", text);
	ui->dirty = 1;
}

void
ui_set_recording(struct ui *ui, const char *path)
{
	free(ui->rec_path);
	ui->rec_path = path != NULL ? xstrdup(path) : NULL;
}

void
ui_set_replay(struct ui *ui, struct replay *rp)
{
	ui->replay = rp;
	ui->dirty = 1;
}

void
ui_attach_replay(struct ui *ui, struct replay *rp)
{
	replay_attach(rp, ui->mon);
	ui_set_replay(ui, rp);
}

/* The monitor's own CPU since the last tick, percent of one CPU. */
static void
ui_self_cost(struct ui *ui, uint64_t now)
{
	struct rusage	ru;
	double		secs;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return;
	secs = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	if (ui->self_ticks_at != 0 && now > ui->self_ticks_at)
		ui->self_cpu = (secs - ui->self_secs) * 100.0 * 1000.0 /
		    (double)(now - ui->self_ticks_at);
	ui->self_secs = secs;
	ui->self_ticks_at = now;
}

void
ui_job_tick(struct ui *ui, uint64_t now)
{
	monitor_job_tick(ui->mon, now);
}

enum ui_view
ui_view(const struct ui *ui)
{
	return ui->stack[ui->depth - 1];
}

void
ui_push(struct ui *ui, enum ui_view v)
{
	if (ui_view(ui) == v)
		return;
	if (ui->depth < (int)(sizeof(ui->stack) / sizeof(ui->stack[0])))
		ui->depth++;
	ui->stack[ui->depth - 1] = v;
	ui->dirty = 1;
}

void
ui_pop(struct ui *ui)
{
	if (ui->depth > 1)
		ui->depth--;
	ui->dirty = 1;
}

void
ui_message(struct ui *ui, int error, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(ui->msg, sizeof(ui->msg), fmt, ap);
	va_end(ap);
	ui->msg_err = error;
	ui->msg_until = clock_mono_ms() + UI_MSG_MS;
	ui->dirty = 1;
}

int
ui_sclass(const struct ui *ui, int i)
{
	return ui->nodes[i].sclass;
}

/* The class of a node's phase (computed when it changes). */
static int
ui_sclass_of(enum feed_phase ph, int failed, int lost)
{
	if (failed || ph == FEED_FAILED)
		return US_FAILED;
	if (lost || ph == FEED_LOST)
		return US_LOST;
	if (ph == FEED_LIVE)
		return US_LIVE;
	/* A probe asked to stop (q, the job's end) is done, not
	 * connecting. */
	if (ph == FEED_CLOSED || ph == FEED_STOPPING)
		return US_DONE;
	return US_CONNECTING;
}

const char *
ui_sclass_name(int c)
{
	static const char *const names[] = { "live", "connecting", "lost",
	    "failed", "done" };

	return c >= 0 && c <= US_DONE ? names[c] : "?";
}

int
ui_sclass_role(int c)
{
	switch (c) {
	case US_LIVE:
		return TR_STATE_LIVE;
	case US_LOST:
		return TR_STATE_LOST;
	case US_FAILED:
		return TR_STATE_FAILED;
	default:
		return TR_STATE_CONNECTING;
	}
}

const char *
ui_node_reason(const struct ui *ui, int i)
{
	const char	*st, *c;
	int		 k;

	if (i < 0 || i >= ui->nnodes)
		return NULL;
	k = ui_sclass(ui, i);
	if (k != US_FAILED && k != US_LOST)
		return NULL;
	st = ui->nodes[i].state;
	/* "failed: WHY", "lost: WHY", "refused: WHY": the word is the
	 * STATE cell's already. */
	if ((c = strstr(st, ": ")) == NULL || c[2] == '\0')
		return NULL;
	return c + 2;
}

int
ui_node_visible(const struct ui *ui, int i)
{
	const struct node_model	*m;
	const struct minst	*mi;
	int			 g, f[2];

	if (ui->filter == NULL || filter_match(ui->filter, ui->nodes[i].name))
		return 1;
	if ((m = ui_model(ui, i)) == NULL ||
	    (g = model_group_index(m, "rank")) < 0)
		return 0;
	filter_rank_fields(m, (unsigned)g, f);
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext)
		if (filter_match_rank(ui->filter, mi, f))
			return 1;
	return 0;
}

int
ui_in_scope(const struct ui *ui, int i)
{
	unsigned	k;

	if (ui->scope == NULL)
		return 1;
	for (k = 0; k < ui->nscope; k++)
		if (ui->scope[k] == i)
			return 1;
	return 0;
}

void
ui_set_scope(struct ui *ui, const int *nodes, unsigned n, const char *label)
{
	free(ui->scope);
	free(ui->scope_label);
	ui->scope = NULL;
	ui->scope_label = NULL;
	ui->nscope = 0;
	if (nodes != NULL) {
		ui->scope = xreallocarray(NULL, n > 0 ? n : 1,
		    sizeof(*ui->scope));
		memcpy(ui->scope, nodes, n * sizeof(*nodes));
		ui->nscope = n;
		ui->scope_label = xstrdup(label);
	}
	ui->rtab.sel = ui->rtab.top = 0;
	ui->sel_rnode = -1;
	ui->view_gen++;
	ui->dirty = 1;
}

/* A flag's weight: the lowest DF_* bit is the most serious. */
static int
ui_flag_rank(unsigned flags)
{
	return flags == 0 ? DF_NFLAGS : __builtin_ctz(flags);
}

int
ui_worst_rank(const struct ui *ui, int *node, const struct hist_rank **out)
{
	struct hist_rank *const	*hrs;
	const struct hist_rank	*best = NULL, *hr;
	unsigned		 k, n;
	int			 i, bi = -1, w, bw = 0;
	double			 c, bc = 0;

	if (ui->hist == NULL)
		return 0;
	for (i = 0; i < ui->nnodes; i++) {
		hrs = history_node_ranks(ui->hist, i, &n);
		for (k = 0; k < n; k++) {
			hr = hrs[k];
			if (hr->flags == 0)
				continue;
			w = ui_flag_rank(hr->flags);
			c = hr->len > 0 ? hr->cur[HR_CPU] : 0;
			if (best != NULL && (w > bw || (w == bw &&
			    (__builtin_popcount(hr->flags) <
			    __builtin_popcount(best->flags) ||
			    (__builtin_popcount(hr->flags) ==
			    __builtin_popcount(best->flags) && !(c < bc))))))
				continue;
			best = hr, bi = i, bw = w, bc = c;
		}
	}
	if (best == NULL)
		return 0;
	*node = bi;
	*out = best;
	return 1;
}

const char *
ui_rank_str(const struct ui *ui, int node, int64_t pid, const char *field)
{
	const struct node_model	*m = ui_model(ui, node);
	const struct minst	*mi;
	const char		*s;
	char			 name[24];
	int			 g, f;

	if (m == NULL || (g = model_group_index(m, "rank")) < 0)
		return NULL;
	snprintf(name, sizeof(name), "%lld", (long long)pid);
	if ((mi = model_inst_by_name(m, (unsigned)g, name)) == NULL ||
	    (f = model_field_index(m, (unsigned)g, field)) < 0 ||
	    (s = model_str(mi, (unsigned)f)) == NULL || *s == '\0')
		return NULL;
	return s;
}

void
ui_open_worst(struct ui *ui)
{
	const struct hist_rank	*hr;
	const char		*names[DF_NFLAGS];
	int			 node, n;

	if (!ui_worst_rank(ui, &node, &hr)) {
		ui_message(ui, 0, "no rank is flagged (! opens the worst one "
		    "when there is)");
		return;
	}
	ui->depth = 1;
	ui_set_scope(ui, &node, 1, ui->nodes[node].name);
	ui_push(ui, UV_RANKS);
	if (ui->det_node != node || ui->det_pid != hr->pid) {
		ui->bt_note[0] = '\0';
		ui->det_scroll = 0;
	}
	ui->det_node = node;
	ui->det_pid = hr->pid;
	ui->det_start = hr->start;
	ui->sel_rnode = node;
	ui->sel_pid = hr->pid;
	ui_push(ui, UV_DETAIL);
	n = detect_flag_names(hr->flags, names, DF_NFLAGS);
	ui_message(ui, 0, "the worst rank: %s %s %lld (%s)",
	    ui->nodes[node].name, hr->rank >= 0 ? "rank" : "pid",
	    (long long)(hr->rank >= 0 ? hr->rank : hr->pid),
	    n > 0 ? names[0] : "flagged");
}

void
ui_table_clamp(struct ui_table *t, int n, int h)
{
	if (h < 1)
		h = 1;
	t->shown = h;
	if (t->sel >= n)
		t->sel = n - 1;
	if (t->sel < 0)
		t->sel = 0;
	if (t->top > t->sel)
		t->top = t->sel;
	if (t->sel >= t->top + h)
		t->top = t->sel - h + 1;
	if (t->top > n - h)
		t->top = n - h;
	if (t->top < 0)
		t->top = 0;
}

int
ui_table_key(struct ui_table *t, int key, int n)
{
	int	page = t->shown > 1 ? t->shown - 1 : 1;

	switch (key) {
	case KEY_UP:
	case 'k':
		t->sel--;
		break;
	case KEY_DOWN:
	case 'j':
		t->sel++;
		break;
	case KEY_PPAGE:
	case 0x02:	/* ^B */
		t->sel -= page;
		break;
	case KEY_NPAGE:
	case 0x06:	/* ^F */
	case ' ':
		t->sel += page;
		break;
	case KEY_HOME:
	case 'g':
		t->sel = 0;
		break;
	case KEY_END:
	case 'G':
		t->sel = n - 1;
		break;
	default:
		return 0;
	}
	ui_table_clamp(t, n, t->shown);
	return 1;
}

void
ui_quit(struct ui *ui)
{
	ui->quitting = 1;
	ui_message(ui, 0, "%s", ui->replay != NULL ? "quitting" :
	    "stopping the probes...");
	if (ui->sess != NULL)
		session_quit(ui->sess);
}

void
ui_theme_next(struct ui *ui)
{
	ui_theme_step(ui, 1);
}

void
ui_theme_step(struct ui *ui, int dir)
{
	struct theme	*t = NULL;
	char		 err[512];
	size_t		 tries;

	if (ui->nthemes < 2) {
		ui_message(ui, 0, "no other theme found: put NAME.theme files "
		    "in ~/.config/jobtop/themes");
		return;
	}
	for (tries = 0; tries < ui->nthemes && t == NULL; tries++) {
		ui->theme_idx = (ui->theme_idx + (dir < 0 ?
		    ui->nthemes - 1 : 1)) % ui->nthemes;
		if ((t = theme_load(ui->themes[ui->theme_idx], err,
		    sizeof(err))) == NULL)
			ui_message(ui, 1, "%s", err);
	}
	if (t == NULL)
		return;
	theme_free(ui->theme);
	ui->theme = t;
	free(ui->theme_arg);
	ui->theme_arg = xstrdup(ui->themes[ui->theme_idx]);
	if (ui->started)
		screen_apply_theme(ui);
	if (ui->msg_until == 0 || !ui->msg_err)
		ui_message(ui, 0, "theme %s%s", t->name, ui->no_color ?
		    " (NO_COLOR: attributes only)" : "");
}

void
ui_filter_begin(struct ui *ui)
{
	const char	*p = filter_pattern(ui->filter);
	char		 err[256];

	ui->editing = 1;
	snprintf(ui->edit, sizeof(ui->edit), "%s", p);
	ui->edit_len = strlen(ui->edit);
	filter_free(ui->filter_saved);
	ui->filter_saved = NULL;
	if (ui->filter != NULL)
		ui->filter_saved = filter_new(p, err, sizeof(err));
	ui->dirty = 1;
}

/* Compile what is typed so far; apply it when it compiles (live). */
static int
ui_filter_apply(struct ui *ui, int final)
{
	struct filter	*f;
	char		 err[256];

	ui->view_gen++;
	if (ui->edit_len == 0) {
		filter_free(ui->filter);
		ui->filter = NULL;
		return 0;
	}
	if ((f = filter_new(ui->edit, err, sizeof(err))) == NULL) {
		if (final)
			ui_message(ui, 1, "filter: %s", err);
		return -1;
	}
	filter_free(ui->filter);
	ui->filter = f;
	ui->ntab.sel = ui->rtab.sel = 0;
	return 0;
}

/* A key while the filter is being typed. */
static void
ui_filter_key(struct ui *ui, int key)
{
	switch (key) {
	case 27:	/* Esc: back to the filter there was */
		ui->view_gen++;
		filter_free(ui->filter);
		ui->filter = ui->filter_saved;
		ui->filter_saved = NULL;
		ui->editing = 0;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
		if (ui_filter_apply(ui, 1) == 0) {
			ui->editing = 0;
			filter_free(ui->filter_saved);
			ui->filter_saved = NULL;
			if (ui->filter != NULL)
				ui_message(ui, 0, "filter /%s/",
				    filter_pattern(ui->filter));
		}
		break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (ui->edit_len > 0)
			ui->edit[--ui->edit_len] = '\0';
		ui_filter_apply(ui, 0);
		break;
	case 0x15:	/* ^U */
		ui->edit_len = 0;
		ui->edit[0] = '\0';
		ui_filter_apply(ui, 0);
		break;
	default:
		if (key >= ' ' && key < 0x7f && ui->edit_len + 1 <
		    sizeof(ui->edit)) {
			ui->edit[ui->edit_len++] = (char)key;
			ui->edit[ui->edit_len] = '\0';
			ui->msg_until = 0;
			ui_filter_apply(ui, 0);
		}
		break;
	}
	ui->dirty = 1;
}

void
ui_backtrace(struct ui *ui)
{
	struct feed	*rs = NULL;
	char		 err[256];
	const char	*name;

	if (ui->det_node < 0 || ui->det_node >= ui->nnodes)
		return;
	if (ui->replay != NULL) {
		ui_message(ui, 1, "a replay has no live process to trace");
		return;
	}
	if (ui->bt != NULL && !backtrace_done(ui->bt)) {
		ui_message(ui, 1, "a backtrace is already being taken");
		return;
	}
	backtrace_free(ui->bt);
	ui->bt = NULL;
	ui->bt_node = ui->det_node;
	ui->bt_pid = ui->det_pid;
	ui->det_scroll = 0;
	name = ui->nodes[ui->det_node].name;
	if (!ui->nodes[ui->det_node].local) {
		/* On the node, through its transport. */
		if (ui->sess != NULL)
			rs = session_node_feed(ui->sess, ui->det_node);
		if (rs == NULL) {
			snprintf(ui->bt_note, sizeof(ui->bt_note), "no live "
			    "connection to %s: a backtrace needs one", name);
			ui->dirty = 1;
			return;
		}
		ui->bt = backtrace_start_remote(rs, name,
		    (pid_t)ui->det_pid, clock_mono_ms(), err, sizeof(err));
	} else
		ui->bt = backtrace_start((pid_t)ui->det_pid,
		    clock_mono_ms(), err, sizeof(err));
	if (ui->bt == NULL)
		snprintf(ui->bt_note, sizeof(ui->bt_note), "%s", err);
	else
		snprintf(ui->bt_note, sizeof(ui->bt_note), "running %s on pid "
		    "%lld on %s...", backtrace_tool(ui->bt),
		    (long long)ui->det_pid, name);
	ui->dirty = 1;
}

int
ui_key(struct ui *ui, int key, uint64_t now)
{
	const struct panel	*focus;
	const struct ui_key	*k;

	ui->now = now;
	ui->dirty = 1;
	if (key == KEY_RESIZE) {
		getmaxyx(stdscr, ui->rows, ui->cols);
		return 0;
	}
	/* Replay and history keys, and every key while history shows. */
	if (panel_timeline.key(ui, key))
		return ui->quitting;
	if (ui->editing) {
		ui_filter_key(ui, key);
		return 0;
	}
	if (ui->msg_until != 0 && ui->msg_err)
		ui->msg_until = 0;	/* a key dismisses an error */
	focus = ui_views[ui_view(ui)].focus;
	if (focus->key != NULL && focus->key(ui, key))
		return ui->quitting;
	for (k = ui_keys; k->name != NULL; k++) {
		if (key == k->key || (k->alt != 0 && key == k->alt)) {
			k->fn(ui);
			return ui->quitting;
		}
	}
	ui_key_unknown(ui, key);
	return ui->quitting;
}

/* A key nothing took: say so, as top does, rather than do nothing. */
static void
ui_key_unknown(struct ui *ui, int key)
{
	char	name[32];

	if (key == ERR || key == KEY_MOUSE)
		return;
	if (key >= KEY_F(0) && key <= KEY_F(63))
		snprintf(name, sizeof(name), "F%d", key - KEY_F(0));
	else if (key > 0x20 && key < 0x7f)
		snprintf(name, sizeof(name), "%c", key);
	else if (key == ' ')
		snprintf(name, sizeof(name), "Space");
	else if (key >= 0 && key < 0x20)
		snprintf(name, sizeof(name), "^%c", key + '@');
	else if (key >= 0x80 && key <= 0xff)
		snprintf(name, sizeof(name), "0x%02x", key);
	else
		text_clean(name, sizeof(name), keyname(key) != NULL ?
		    keyname(key) : "?");
	ui_message(ui, 0, "unknown key %s: press h or ? for help", name);
}

/* Prepared rows and the rank shown point into the data drawn: made
 * again from what is drawn now. */
static void
ui_data_switched(struct ui *ui)
{
	ui->det_mi = NULL;
	ui->det_hr = NULL;
	ui->rrows_valid = 0;
	ui->data_gen++;
	ui->view_gen++;
	ui->dirty = 1;
}

/* Freeze what the screen shows: a copy of the monitor's state and of
 * the nodes' models, drawn until resumed. */
static void
ui_freeze(struct ui *ui)
{
	const struct node_model	*m;
	int			 i;

	ui->frozen = monitor_snapshot(ui->mon);
	ui->frozen_models = xcalloc(ui->nnodes > 0 ? (size_t)ui->nnodes : 1,
	    sizeof(*ui->frozen_models));
	ui->frozen_have = xcalloc(ui->nnodes > 0 ? (size_t)ui->nnodes : 1, 1);
	for (i = 0; i < ui->nnodes; i++) {
		if ((m = monitor_model(ui->mon, i)) == NULL)
			continue;
		model_clone(&ui->frozen_models[i], m);
		ui->frozen_have[i] = 1;
	}
	ui->hist = monitor_snap_history(ui->frozen);
	ui->det = monitor_snap_detect(ui->frozen);
	ui_data_switched(ui);
}

/* Draw the monitor's state again: what changed while frozen. */
static void
ui_thaw(struct ui *ui)
{
	const struct ui_event	*h;
	struct monitor_snap	*sn = ui->frozen;
	unsigned		 k;
	int			 i;

	if (sn == NULL)
		return;
	ui->frozen = NULL;
	ui->hist = monitor_history(ui->mon);
	ui->det = monitor_detect(ui->mon);
	for (i = 0; i < ui->nnodes; i++)
		if (ui->frozen_have[i])
			model_free(&ui->frozen_models[i]);
	free(ui->frozen_models);
	free(ui->frozen_have);
	ui->frozen_models = NULL;
	ui->frozen_have = NULL;
	monitor_snap_free(sn);
	for (i = 0; i < ui->nnodes; i++)
		ui_sink_phase(ui, i, monitor_node_phase(ui->mon, i),
		    monitor_node_text(ui->mon, i),
		    monitor_node_lost(ui->mon, i), 0);
	for (k = 0; k < ui->nheld; k++) {
		h = &ui->held[k];
		ui_event_add(ui, h->node, h->level, h->code, h->text,
		    h->ms)->pid = h->pid;
	}
	ui->nheld = 0;
	ui_data_switched(ui);
}

void
ui_pause(struct ui *ui, int on)
{
	ui->paused = on;
	/* A live screen freezes; a replay's player has its own pause. */
	if (ui->replay == NULL) {
		if (on && ui->frozen == NULL)
			ui_freeze(ui);
		else if (!on)
			ui_thaw(ui);
	}
	ui->dirty = 1;
}

int
ui_live(const struct ui *ui)
{
	return ui->sess != NULL && ui->replay == NULL;
}

void
ui_refresh_step(struct ui *ui, int dir)
{
	size_t		i, n = sizeof(ui_refresh_steps) /
			    sizeof(ui_refresh_steps[0]);
	/* A replay's session has no probes: its keys step the display. */
	int		live = ui_live(ui);
	uint64_t	cur = live ? ui->interval_ms : ui->refresh_ms, ms;
	int		told;

	/* Without a session the keys step the display refresh, which
	 * stops at UI_REFRESH_MAX_MS. */
	while (!live && n > 1 &&
	    ui_refresh_steps[n - 1] > UI_REFRESH_MAX_MS)
		n--;
	/* The next step in the key's direction; past the last one (-d 300,
	 * -d 0.05) the interval stays: a key never moves it the other way. */
	if (dir > 0) {
		for (i = 0; i < n; i++)
			if (ui_refresh_steps[i] > cur)
				break;
		if (i == n) {
			ui_message(ui, 0, "already at the longest interval the "
			    "keys reach: %.3g s%s", cur / 1000.0, live ?
			    " (-d sets longer ones)" : "");
			return;
		}
		ms = ui_refresh_steps[i];
	} else {
		for (i = n; i > 0; i--)
			if (ui_refresh_steps[i - 1] < cur)
				break;
		if (i == 0) {
			ui_message(ui, 0, "already at the shortest interval "
			    "the keys reach: %.3g s", cur / 1000.0);
			return;
		}
		ms = ui_refresh_steps[i - 1];
	}
	ui->refresh_ms = ms < UI_REFRESH_MIN_MS ? UI_REFRESH_MIN_MS :
	    ms > UI_REFRESH_MAX_MS ? UI_REFRESH_MAX_MS : ms;
	if (!live) {
		ui_message(ui, 0, "display refresh every %.3g s",
		    ui->refresh_ms / 1000.0);
		return;
	}
	/* The probes take it at their next tick; samples carry their own
	 * dt_ms, so rates stay right across the change. */
	told = session_set_interval(ui->sess, ms / 1000.0);
	ui->interval_ms = ms;
	monitor_set_interval(ui->mon, ms / 1000.0, ui->now);
	ui_message(ui, 0, "sampling every %.3g s (%d probe%s told)",
	    ms / 1000.0, told, told == 1 ? "" : "s");
}

/* The bottom line: the filter being typed, a message, or key hints. */
static void
ui_status(const struct ui *ui, int y)
{
	char	right[160], pat[80];
	int	x, w = ui->cols, rw;

	widget_fill(y, 0, w, ui->attr[TR_STATUS]);
	if (ui->editing) {
		x = widget_put(y, 0, w, ui->attr[TR_STATUS_KEY], "Filter /");
		x += widget_put(y, x, w - x, ui->attr[TR_STATUS], ui->edit);
		x += widget_put(y, x, w - x, ui->attr[TR_STATUS_KEY], "_");
		if (ui->msg_until != 0 && ui->msg_err)
			widget_put(y, x + 2, w - x - 2,
			    ui->attr[TR_STATUS_ERROR], ui->msg);
		else
			widget_rput(y, 0, w, ui->attr[TR_STATUS],
			    "  Enter apply  Esc cancel  ^U clear ");
		return;
	}
	snprintf(right, sizeof(right), "%s%s%s%s refresh %.2gs ",
	    ui->paused ? " PAUSED " : "", ui->filter != NULL ? " /" : "",
	    ui->filter != NULL ? text_clean(pat, sizeof(pat),
	    filter_pattern(ui->filter)) : "", ui->filter != NULL ? "/" : "",
	    ui->refresh_ms / 1000.0);
	rw = (int)strlen(right);
	if (rw > w / 2)
		rw = 0;
	if (ui->msg_until != 0) {
		widget_put(y, 0, w - rw, ui->attr[ui->msg_err ?
		    TR_STATUS_ERROR : TR_STATUS], ui->msg);
	} else {
		x = 0;
		x += widget_put(y, x, w - rw - x, ui->attr[TR_STATUS_KEY],
		    ui_views[ui_view(ui)].name);
		x += widget_put(y, x, w - rw - x, ui->attr[TR_STATUS],
		    ui_view(ui) == UV_SETUP ? "  Up/Down choose  Left/Right "
		    "change  w save to jobtoprc  Esc back" :
		    ui->replay != NULL ? "  h help  q quit  Space play/pause"
		    "  [ ] step  { } speed  J jump  ^ $ start/end  / filter" :
		    "  h help  q quit  / filter  s sort  Enter open  Esc back"
		    "  p pause  t theme  +/- interval  F2 setup");
	}
	if (rw > 0)
		widget_put(y, w - rw, rw, ui->attr[ui->paused ?
		    TR_STATUS_ERROR : TR_STATUS], right);
}

/* Lay the view's panels out: rects[] and how many. */
static int
ui_layout(struct ui *ui, const struct panel **ps, struct ui_rect *r)
{
	const struct ui_view_def	*v = &ui_views[ui_view(ui)];
	int				 n, i, flex = -1, avail, h, tl;

	avail = ui->rows - 1;
	/* The timeline, when there is one, sits above the status line. */
	if ((tl = panel_timeline.height(ui, avail)) > 0 && avail - tl >= 4)
		avail -= tl;
	else
		tl = 0;
	for (n = 0; v->panels[n] != NULL; n++) {
		ps[n] = v->panels[n];
		r[n].x = 0;
		r[n].w = ui->cols;
		r[n].h = 0;
	}
	for (i = 0; i < n; i++) {
		h = ps[i]->height(ui, avail);
		if (h < 0) {
			flex = i;
			continue;
		}
		if (h > avail)
			h = avail;
		r[i].h = h;
		avail -= h;
	}
	/* The flex panel keeps at least 4 rows: optional panels give way
	 * from the bottom. */
	for (i = n - 1; i >= 0 && flex >= 0 && avail < 4; i--) {
		if (i == flex || ps[i] == &panel_header)
			continue;
		avail += r[i].h;
		r[i].h = 0;
	}
	if (flex >= 0)
		r[flex].h = avail > 0 ? avail : 0;
	for (i = 0, h = 0; i < n; i++) {
		r[i].y = h;
		h += r[i].h;
	}
	if (tl > 0) {
		ps[n] = &panel_timeline;
		r[n].x = 0;
		r[n].w = ui->cols;
		r[n].h = tl;
		r[n].y = ui->rows - 1 - tl;
		n++;
	}
	return n;
}

void
ui_frame(struct ui *ui, uint64_t now)
{
	const struct panel	*ps[5];
	struct ui_rect		 r[5];
	char			 msg[128];
	int			 n, i;

	ui->now = now;
	if (!ui->started)
		return;
	if (ui->twin != NULL) {
		/* History is on the screen. */
		ui_frame(ui->twin, now);
		ui->dirty = 0;
		ui->last_draw = now;
		return;
	}
	getmaxyx(stdscr, ui->rows, ui->cols);
	attrset(ui->attr[TR_DEFAULT]);
	erase();
	if (ui->rows < UI_MIN_ROWS || ui->cols < UI_MIN_COLS) {
		snprintf(msg, sizeof(msg), "terminal too small (%dx%d):",
		    ui->cols, ui->rows);
		widget_put(ui->rows / 2 - 1, 0, ui->cols,
		    ui->attr[TR_STATUS_ERROR], msg);
		snprintf(msg, sizeof(msg), "jobtop needs at least %dx%d",
		    UI_MIN_COLS, UI_MIN_ROWS);
		widget_put(ui->rows / 2, 0, ui->cols,
		    ui->attr[TR_STATUS_ERROR], msg);
	} else {
		n = ui_layout(ui, ps, r);
		for (i = 0; i < n; i++)
			if (r[i].h > 0 && ps[i]->prepare != NULL)
				ps[i]->prepare(ui, &r[i]);
		for (i = 0; i < n; i++)
			if (r[i].h > 0)
				ps[i]->draw(ui, &r[i]);
		ui_status(ui, ui->rows - 1);
	}
	wnoutrefresh(stdscr);
	doupdate();
	ui->dirty = 0;
	ui->last_draw = now;
	ui->frames++;
}

void
ui_screen_line(struct ui *ui, int y, char *buf, size_t size)
{
	wchar_t	wbuf[1024];
	size_t	n;

	buf[0] = '\0';
	if (!ui->started || size < 2)
		return;
	if (mvinnwstr(y, 0, wbuf, 1023) == ERR)
		return;
	wbuf[1023] = L'\0';
	n = wcstombs(buf, wbuf, size - 1);
	if (n == (size_t)-1)
		buf[0] = '\0';
	else
		buf[n < size ? n : size - 1] = '\0';
}

int
ui_start(struct ui *ui, char *err, size_t errsz)
{
	ui->own_tty = 1;
	return screen_start(ui, stdout, stdin, NULL, 0, 0, err, errsz);
}

int
ui_start_on(struct ui *ui, FILE *out, FILE *in, const char *term, int rows,
    int cols, char *err, size_t errsz)
{
	ui->own_tty = 0;
	return screen_start(ui, out, in, term, rows, cols, err, errsz);
}

void
ui_stop(struct ui *ui)
{
	screen_stop(ui);
}

/* The monitor's sink for the session's descriptors and wake-ups (the
 * keyboard, the window's size, a backtrace's pipe, the redraws). */

static int
ui_on_pollfds(void *arg, struct pollfd *pfd, int max)
{
	struct ui	*ui = arg;
	int		 n = 0;

	if (!ui->started)
		return 0;
	if (ui->own_tty && !ui->tty_gone && n < max) {
		pfd[n].fd = STDIN_FILENO;
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	if (screen_winch_fd(ui) >= 0 && n < max) {
		pfd[n].fd = screen_winch_fd(ui);
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	if (backtrace_fd(ui->bt) >= 0 && n < max) {
		pfd[n].fd = backtrace_fd(ui->bt);
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	return n;
}

/*
 * An Esc that arrived together with more bytes: curses did not know the
 * sequence (Home under TERM=xterm inside tmux, F5 under vt100), so it hands
 * over Esc, '[', '1', '~' one by one.  Read the rest of a CSI (Esc [
 * parameters final) or SS3 (Esc O final) sequence and drop it whole, so
 * its '[' never steps into history: 1 when swallowed.  A lone Esc (nothing
 * follows at once) or Esc plus another key goes on as before.
 */
static int
ui_key_escape(struct ui *ui)
{
	int	ch, n;

	if ((ch = getch()) == ERR)
		return 0;
	if (ch != '[' && ch != 'O') {
		ungetch(ch);
		return 0;
	}
	for (n = 0; n < 32; n++) {
		if ((ch = getch()) == ERR)
			break;
		/* SS3 takes one byte; CSI ends at a byte in 0x40-0x7e. */
		if (ch >= 0x40 && ch <= 0x7e)
			break;
		if (ch < 0x20 || ch > 0x3f) {
			ungetch(ch);
			break;
		}
	}
	ui_message(ui, 0, "unknown key (an escape sequence this terminal's "
	    "TERM does not describe): ignored");
	return 1;
}

/*
 * Is the terminal on standard input gone?  A terminal whose other side
 * closed (a killed tmux window, a dropped SSH connection) is hung up: it
 * polls readable, reads end of file and answers every ioctl with EIO.  Its
 * session leader gets SIGHUP, but the monitor does not when it runs under
 * one that stays (su, sudo): only the terminal tells it.
 */
static int
ui_tty_dead(void)
{
	struct termios	t;

	return tcgetattr(STDIN_FILENO, &t) != 0 && errno != EINTR;
}

/* The terminal went away: nobody sees the screen any more, so stop the
 * probes and end, as after q. */
static void
ui_tty_gone(struct ui *ui)
{
	log_debug("the terminal went away: quitting");
	ui->tty_gone = 1;	/* no more polls of it, no more frames */
	if (!ui->quitting)
		ui_quit(ui);
}

static void
ui_on_ready(void *arg, const struct pollfd *pfd, int n, uint64_t now)
{
	struct ui	*ui = arg;
	int		 i, ch, got, keys = 0;

	ui->now = now;
	for (i = 0; i < n; i++) {
		if (pfd[i].revents == 0)
			continue;
		if (pfd[i].fd == STDIN_FILENO) {
			if ((pfd[i].revents & (POLLHUP | POLLERR |
			    POLLNVAL)) != 0) {
				ui_tty_gone(ui);
				continue;
			}
			got = 0;
			while ((ch = getch()) != ERR) {
				got++;
				if (ch == 27 && ui_key_escape(ui))
					continue;	/* swallowed */
				if (ui_key(ui, ch, now))
					break;
			}
			keys += got;
			/* Readable without a key: end of file on the
			 * terminal, or a read error such as EIO. */
			if (got == 0 && ui_tty_dead())
				ui_tty_gone(ui);
		} else if (pfd[i].fd == screen_winch_fd(ui)) {
			screen_resize(ui);
			keys++;
		} else if (ui->bt != NULL && pfd[i].fd == backtrace_fd(ui->bt)) {
			backtrace_read(ui->bt);
			ui->dirty = 1;
		}
	}
	if (keys > 0)
		ui_frame(ui, now);
}

static int
ui_on_timeout(void *arg, uint64_t now)
{
	struct ui	*ui = arg;
	uint64_t	 next;
	int		 t, bt, tw = -1;

	ui->now = now;
	/* The monitor makes the live job ticks (monitor_hooks), a replay's
	 * clock its own. */
	if (ui->replay != NULL)
		tw = timeline_tick(ui, now);
	if (ui->bt != NULL && !backtrace_done(ui->bt) &&
	    backtrace_check(ui->bt, now)) {
		snprintf(ui->bt_note, sizeof(ui->bt_note), "%s",
		    backtrace_status(ui->bt));
		ui->dirty = 1;
	}
	if (ui->msg_until != 0 && now >= ui->msg_until) {
		ui->msg_until = 0;
		ui->dirty = 1;
	}
	if (ui->twin != NULL) {
		/* History is on the screen: the twin draws it. */
		ui->dirty = 0;
		tw = ui_on_timeout(ui->twin, now);
	}
	if (ui->started && ui->dirty && !ui->paused && !ui->tty_gone &&
	    now >= ui->last_draw + ui->refresh_ms)
		ui_frame(ui, now);

	next = now + UI_REFRESH_MAX_MS;
	if (ui->dirty && !ui->paused && ui->last_draw + ui->refresh_ms < next)
		next = ui->last_draw + ui->refresh_ms;
	if (ui->msg_until != 0 && ui->msg_until < next)
		next = ui->msg_until;
	t = next <= now ? 0 : (int)(next - now);
	if ((bt = backtrace_timeout(ui->bt, now)) >= 0 && bt < t)
		t = bt;
	if ((bt = stacks_view_tick(ui, now)) >= 0 && bt < t)
		t = bt;
	if (tw >= 0 && tw < t)
		t = tw;
	return t;
}

void
ui_hooks(struct ui *ui, struct session_hooks *h)
{
	monitor_hooks(ui->mon, h);
}
