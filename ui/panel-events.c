/* SPDX-License-Identifier: ISC */
/*
 * panel-events: the event log.  Under the node table it shows the latest
 * few events; as a view of its own ('e') it scrolls through all that are
 * kept.  Events come from the detectors (stalled, straggler, memory, lost
 * and back, and their clearing), from node states (live, failed) and from
 * the probes' own EVENT messages.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "proto.h"
#include "ui-priv.h"

static int
events_height(const struct ui *ui, int avail)
{
	int	h;

	if (ui_view(ui) == UV_EVENTS)
		return -1;
	if (avail < 20)
		return 0;
	h = avail / 4;
	return h > 7 ? 7 : h;
}

static void
events_prepare(struct ui *ui, const struct ui_rect *r)
{
	if (ui_view(ui) == UV_EVENTS)
		ui_table_clamp(&ui->etab, (int)ui->evlen, r->h - 1);
}

static int
events_role(int level)
{
	return level >= EV_ERROR ? TR_EVENT_ERROR : level == EV_WARN ?
	    TR_EVENT_WARN : TR_EVENT_INFO;
}

/* One event on one line: time, node, level, text. */
static void
events_line(const struct ui *ui, int y, const struct ui_rect *r,
    const struct ui_event *e, int sel)
{
	static const char *const levels[] = { "info", "warn", "error" };
	struct tm	tm;
	time_t		t = (time_t)(e->ms / 1000);
	char		stamp[16], buf[400];
	attr_t		a = sel ? ui->attr[TR_TABLE_SELECTED] :
			    ui->attr[events_role(e->level)];

	if (localtime_r(&t, &tm) == NULL)
		snprintf(stamp, sizeof(stamp), "--:--:--");
	else
		strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
	snprintf(buf, sizeof(buf), "%s %-5s %s", stamp,
	    e->level <= EV_ERROR ? levels[e->level] : "error", e->text);
	if (sel)
		widget_fill(y, r->x, r->w, a);
	widget_put(y, r->x, r->w, a, buf);
}

static void
events_draw(const struct ui *ui, const struct ui_rect *r)
{
	char	buf[96];
	int	y, k, first;

	snprintf(buf, sizeof(buf), "Events: %llu%s",
	    (unsigned long long)ui->evtotal, ui_view(ui) == UV_EVENTS ?
	    "  (Esc: back)" : "  (e: all)");
	widget_fill(r->y, r->x, r->w, ui->attr[TR_TABLE_HEAD]);
	widget_put(r->y, r->x, r->w, ui->attr[TR_TABLE_HEAD], buf);
	if (ui->evlen == 0) {
		if (r->h > 1)
			widget_put(r->y + 1, r->x, r->w, ui->attr[TR_LABEL],
			    "no events yet");
		return;
	}
	if (ui_view(ui) == UV_EVENTS) {
		for (y = 0; y < r->h - 1; y++) {
			k = ui->etab.top + y;
			if (k >= (int)ui->evlen)
				break;
			events_line(ui, r->y + 1 + y, r, ui_event_get(ui,
			    (unsigned)k), k == ui->etab.sel);
		}
		return;
	}
	/* The newest at the bottom. */
	first = (int)ui->evlen - (r->h - 1);
	if (first < 0)
		first = 0;
	for (k = first, y = 1; k < (int)ui->evlen && y < r->h; k++, y++)
		events_line(ui, r->y + y, r, ui_event_get(ui, (unsigned)k), 0);
}

static int
events_key(struct ui *ui, int key)
{
	return ui_table_key(&ui->etab, key, (int)ui->evlen);
}

const struct panel panel_events = {
	.name = "events",
	.keys = "Up Down j k\tscroll the event log (its own view: e)\n",
	.height = events_height,
	.prepare = events_prepare,
	.draw = events_draw,
	.key = events_key,
};
