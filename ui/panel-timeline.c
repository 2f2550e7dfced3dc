/* SPDX-License-Identifier: ISC */
/*
 * panel-timeline: the player's line and keys, in a replay (-r) and in
 * history (twin) mode.  The line shows the play state and speed, the time
 * shown as a clock, its offset from the start and a bar between the
 * recording's start and end; in history mode it says that live goes on.
 *
 * History mode is a second ui (the twin) fed by a player of the session's
 * own recording, drawn on the live ui's screen in its place and given
 * every key.  The live ui meanwhile receives, records and judges every
 * sample as before; L (or H, or $) gives it its screen back, with the
 * view the twin was in.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "feed-replay.h"
#include "ui-priv.h"
#include "xmalloc.h"

static int
timeline_height(const struct ui *ui, int avail)
{
	return ui->replay != NULL ? 1 : 0;
}

static void
timeline_prepare(struct ui *ui, const struct ui_rect *r)
{
	/* The widest sparkline: the history a seek rebuilds. */
	replay_set_window(ui->replay, (unsigned)ui->cols);
}

/* Local HH:MM:SS of a unix ms. */
static const char *
timeline_clock(char *buf, size_t size, uint64_t ms)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, size, "%H:%M:%S", &tm) == 0)
		snprintf(buf, size, "--:--:--");
	return buf;
}

static const char *
timeline_speed(char *buf, size_t size, double speed)
{
	if (speed < 1)
		snprintf(buf, size, "1/%.0fx", 1 / speed);
	else
		snprintf(buf, size, "%.0fx", speed);
	return buf;
}

/* The jump prompt in place of the line. */
static void
timeline_draw_prompt(const struct ui *ui, const struct ui_rect *r)
{
	int	x;

	x = widget_put(r->y, r->x, r->w, ui->attr[TR_STATUS_KEY],
	    " Jump to: ");
	x += widget_put(r->y, r->x + x, r->w - x, ui->attr[TR_STATUS],
	    ui->tl_edit);
	x += widget_put(r->y, r->x + x, r->w - x, ui->attr[TR_STATUS_KEY],
	    "_");
	widget_put(r->y, r->x + x + 3, r->w - x - 3, ui->attr[TR_STATUS],
	    "12:30:00, 12:30, -5m, +1h30m, 50%   Enter jump  Esc cancel");
}

static void
timeline_draw(const struct ui *ui, const struct ui_rect *r)
{
	struct replay_status	 st;
	char			 line[256], a[16], b[16], c[24], sp[16];
	char			 off[32];
	int			 x, bw, k, mark, w = r->w;
	uint64_t		 span;

	widget_fill(r->y, r->x, w, ui->attr[TR_STATUS]);
	if (ui->tl_prompt) {
		timeline_draw_prompt(ui, r);
		return;
	}
	replay_status(ui->replay, &st);
	if (st.twin)
		x = widget_put(r->y, r->x, w, ui->attr[TR_STATUS_ERROR],
		    " HISTORY: live goes on, L returns ");
	else
		x = widget_put(r->y, r->x, w, ui->attr[TR_STATUS_KEY],
		    " REPLAY ");
	widget_duration(off, sizeof(off), (long)((st.pos_ms - st.start_ms) /
	    1000));
	if (st.rebuilt >= 0)
		snprintf(c, sizeof(c), "seeking %d%%", st.rebuilt);
	snprintf(line, sizeof(line), " %s %s  %s (+%s) ", st.rebuilt >= 0 ?
	    c : st.at_end ? "end" : st.playing ? "playing" : "paused",
	    timeline_speed(sp, sizeof(sp), st.speed), timeline_clock(a,
	    sizeof(a), st.pos_ms), off);
	x += widget_put(r->y, r->x + x, w - x, ui->attr[TR_STATUS], line);

	/* start [=====|------] end */
	snprintf(line, sizeof(line), " %s [", timeline_clock(b, sizeof(b),
	    st.start_ms));
	snprintf(c, sizeof(c), "] %s%s ", st.twin ? "now " : "",
	    timeline_clock(a, sizeof(a), st.end_ms));
	bw = w - x - (int)strlen(line) - (int)strlen(c);
	if (st.note != NULL)
		bw -= (int)strlen(st.note) + 2;
	if (bw > 60)
		bw = 60;
	if (bw >= 8) {
		x += widget_put(r->y, r->x + x, w - x, ui->attr[TR_STATUS],
		    line);
		span = st.end_ms > st.start_ms ? st.end_ms - st.start_ms : 1;
		mark = (int)((double)(st.pos_ms - st.start_ms) * (bw - 1) /
		    (double)span);
		for (k = 0; k < bw; k++)
			widget_put(r->y, r->x + x + k, 1, k <= mark ?
			    ui->attr[TR_STATUS_KEY] : ui->attr[TR_STATUS],
			    k == mark ? "|" : k < mark ? "=" : "-");
		x += bw;
		x += widget_put(r->y, r->x + x, w - x, ui->attr[TR_STATUS], c);
	}
	if (st.note != NULL && w - x > 4) {
		snprintf(line, sizeof(line), " %s", st.note);
		widget_put(r->y, r->x + x, w - x, ui->attr[TR_STATUS_ERROR],
		    line);
	}
}

/* Copy what the user looks at (view, cursors, filter, scope) between a
 * live ui and its twin. */
static void
timeline_copy_view(struct ui *to, const struct ui *from)
{
	char	err[256];

	ui_set_scope(to, from->scope, from->nscope, from->scope_label);
	memcpy(to->stack, from->stack, sizeof(to->stack));
	to->depth = from->depth;
	to->fold = from->fold;
	to->ntab = from->ntab;
	to->rtab = from->rtab;
	to->etab = from->etab;
	to->htab = from->htab;
	to->sel_node = from->sel_node;
	to->sel_rnode = from->sel_rnode;
	to->sel_pid = from->sel_pid;
	to->det_node = from->det_node;
	to->det_pid = from->det_pid;
	to->det_start = from->det_start;
	to->det_scroll = 0;
	to->det_mi = NULL;
	to->det_hr = NULL;
	to->refresh_ms = from->refresh_ms;
	filter_free(to->filter);
	to->filter = from->filter != NULL ? filter_new(filter_pattern(
	    from->filter), err, sizeof(err)) : NULL;
	to->view_gen++;
	to->rrows_valid = 0;
	to->dirty = 1;
}

int
timeline_enter(struct ui *ui)
{
	struct replay_status	 st;
	struct replay		*rp;
	struct ui		*tw;
	char			 err[512];

	if (ui->replay != NULL) {
		ui_message(ui, 0, "this is a replay already: [ ] step, J "
		    "jumps");
		return -1;
	}
	if (ui->twin != NULL)
		return 0;
	if (ui->rec_path == NULL) {
		ui_message(ui, 1, "no history: this session is not being "
		    "recorded (--no-record, or the recording could not start)");
		return -1;
	}
	if ((rp = replay_open(ui->rec_path, 1, err, sizeof(err))) == NULL) {
		ui_message(ui, 1, "history: %s: %s", ui->rec_path, err);
		return -1;
	}
	if ((tw = ui_new(&ui->conf, err, sizeof(err))) == NULL) {
		replay_free(rp);
		ui_message(ui, 1, "history: %s", err);
		return -1;
	}
	ui_attach_replay(tw, rp);
	/* The twin draws on the live ui's screen. */
	tw->started = 1;
	tw->own_tty = 0;
	tw->rows = ui->rows;
	tw->cols = ui->cols;
	tw->utf8 = ui->utf8;
	tw->colors = ui->colors;
	tw->no_color = ui->no_color;
	tw->theme_idx = ui->theme_idx;
	memcpy(tw->attr, ui->attr, sizeof(tw->attr));
	tw->live = ui;
	timeline_copy_view(tw, ui);
	ui->twin = tw;
	replay_set_window(rp, (unsigned)ui->cols);
	replay_status(rp, &st);
	replay_seek(rp, st.end_ms);
	ui_message(tw, 0, "history of this session: live goes on meanwhile; "
	    "L returns to it");
	ui->dirty = 1;
	return 0;
}

void
timeline_leave(struct ui *ui)
{
	struct ui	*tw = ui->twin;
	struct theme	*t;

	if (tw == NULL)
		return;
	timeline_copy_view(ui, tw);
	if (tw->theme_idx != ui->theme_idx) {
		/* A theme chosen in history stays. */
		t = ui->theme;
		ui->theme = tw->theme;
		tw->theme = t;
		ui->theme_idx = tw->theme_idx;
		memcpy(ui->attr, tw->attr, sizeof(ui->attr));
	}
	ui->twin = NULL;
	tw->started = 0;	/* the screen is the live ui's */
	replay_free(tw->replay);
	tw->replay = NULL;
	ui_free(tw);
	ui_message(ui, 0, "live");
	ui->dirty = 1;
}

int
timeline_tick(struct ui *ui, uint64_t now)
{
	struct replay_status	a, b;
	int			t;

	replay_status(ui->replay, &a);
	t = replay_tick(ui->replay, now);
	replay_status(ui->replay, &b);
	/* The line moves with the clock; in history its end is now. */
	if (a.pos_ms / 1000 != b.pos_ms / 1000 || a.playing != b.playing ||
	    a.rebuilt != b.rebuilt || b.twin)
		ui->dirty = 1;
	if (b.at_end && !a.at_end)
		ui_message(ui, 0, "end of the recording: Space plays it again, "
		    "[ steps back");
	return t;
}

/* A key while a time is typed. */
static void
timeline_prompt_key(struct ui *ui, int key)
{
	char		err[256], a[16];
	uint64_t	t;

	switch (key) {
	case 27:	/* Esc */
		ui->tl_prompt = 0;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
		ui->tl_prompt = 0;
		if (replay_parse_time(ui->replay, ui->tl_edit, &t, err,
		    sizeof(err)) != 0) {
			ui_message(ui, 1, "jump: %s", err);
			break;
		}
		replay_seek(ui->replay, t);
		ui_message(ui, 0, "at %s", timeline_clock(a, sizeof(a), t));
		break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (ui->tl_len > 0)
			ui->tl_edit[--ui->tl_len] = '\0';
		break;
	case 0x15:	/* ^U */
		ui->tl_len = 0;
		ui->tl_edit[0] = '\0';
		break;
	default:
		if (key > ' ' && key < 0x7f && ui->tl_len + 1 <
		    sizeof(ui->tl_edit)) {
			ui->tl_edit[ui->tl_len++] = (char)key;
			ui->tl_edit[ui->tl_len] = '\0';
		}
		break;
	}
	ui->dirty = 1;
}

/* Every key while history is on the screen: the twin's, but for those
 * that return to live. */
static int
timeline_twin_key(struct ui *ui, int key)
{
	struct ui	*tw = ui->twin;

	if (!tw->editing && !tw->tl_prompt &&
	    (key == 'L' || key == 'H' || key == '$')) {
		timeline_leave(ui);
		return 1;
	}
	ui_key(tw, key, ui->now);
	if (tw->quitting && !ui->quitting)
		ui_quit(ui);
	ui->dirty = 1;
	return 1;
}

static int
timeline_key(struct ui *ui, int key)
{
	struct replay_status	 st;
	struct replay		*rp = ui->replay;
	char			 a[16];

	if (ui->twin != NULL)
		return timeline_twin_key(ui, key);
	if (rp != NULL && ui->tl_prompt) {
		timeline_prompt_key(ui, key);
		return 1;
	}
	if (ui->editing || ui_view(ui) == UV_HELP)
		return 0;
	if (rp == NULL) {
		/* Live: these go into history. */
		if (key != 'H' && key != '[' && key != 'J')
			return 0;
		if (timeline_enter(ui) == 0 && key != 'H')
			timeline_twin_key(ui, key);
		return 1;
	}
	replay_status(rp, &st);
	switch (key) {
	case ' ':
	case 'p':
		replay_play(rp, !st.playing, ui->now);
		replay_status(rp, &st);
		/* No time in the message: the timeline line shows it, and
		 * a time here would go stale as the replay moves. */
		ui_message(ui, 0, "%s", st.playing ? "playing (Space pauses)" :
		    "paused (Space plays, [ ] step)");
		return 1;
	case '[':
		replay_step(rp, -1);
		ui->msg_until = 0;	/* an older message would be stale */
		return 1;
	case ']':
		replay_step(rp, 1);
		ui->msg_until = 0;
		return 1;
	case '{':
	case '}':
		replay_speed(rp, key == '}' ? 1 : -1);
		replay_status(rp, &st);
		ui_message(ui, 0, "speed %s", timeline_speed(a, sizeof(a),
		    st.speed));
		return 1;
	case 'J':
		ui->tl_prompt = 1;
		ui->tl_len = 0;
		ui->tl_edit[0] = '\0';
		return 1;
	case '^':
		replay_seek(rp, st.start_ms);
		ui_message(ui, 0, "at the start, %s", timeline_clock(a,
		    sizeof(a), st.start_ms));
		return 1;
	case '$':
		replay_seek(rp, st.end_ms);
		ui_message(ui, 0, "at the end, %s", timeline_clock(a,
		    sizeof(a), st.end_ms));
		return 1;
	case 'H':
	case 'L':
		ui_message(ui, 0, "this is a replay: there is no live");
		return 1;
	}
	return 0;
}

const struct panel panel_timeline = {
	.name = "timeline",
	.keys =
	    "Space p\tplay or pause\n"
	    "[ ]\tone sample back / forward (live: [ goes into history)\n"
	    "{ }\tslower / faster: 1/4x to 64x\n"
	    "J\tjump to 12:30:00, 12:30, -5m, +1h30m or 50% (live: into "
	    "history)\n"
	    "^ $\tthe start / the end of the recording\n"
	    "H\tlive: history of this session, while live goes on\n"
	    "L H $\thistory: back to live\n",
	.height = timeline_height,
	.prepare = timeline_prepare,
	.draw = timeline_draw,
	.key = timeline_key,
};
