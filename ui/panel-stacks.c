/* SPDX-License-Identifier: ISC */
/*
 * panel-stacks: the stacks view ('B'), the tree of `jobtop --stacks` for
 * the live job.  B takes the stacks of every rank on every node now
 * (src/stackrun.c, through the session's feeds, as `b` takes one rank's
 * backtrace) and opens the view; it fills in once every node answered,
 * and shows how many did meanwhile.  B again takes them again; Esc goes
 * back, the arrows and page keys scroll.  The tree is the text output,
 * kept as lines: the view draws them, with the odd ones out and the
 * nodes without an answer in the warning and error colours.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stackrun.h"
#include "ui-priv.h"
#include "xmalloc.h"

struct ui_stacks {
	struct stackrun_conf	 conf;
	char			*probe_local, *cache_dir, *probe_name;
	struct stackrun		*run;
	uint64_t		 started;	/* monotonic ms */
	time_t			 taken;		/* wall clock, when done */
	char			*text;		/* the tree, lines */
	char			**lines;
	int			 nlines;
	int			 scroll;
	int			 shown;
};

void
ui_set_stacks(struct ui *ui, const struct stackrun_conf *c)
{
	struct ui_stacks	*st;

	if (ui->stacks == NULL)
		ui->stacks = xcalloc(1, sizeof(*ui->stacks));
	st = ui->stacks;
	free(st->probe_local);
	free(st->cache_dir);
	free(st->probe_name);
	st->conf = *c;
	st->probe_local = c->probe_local ? xstrdup(c->probe_local) : NULL;
	st->cache_dir = c->cache_dir ? xstrdup(c->cache_dir) : NULL;
	st->probe_name = c->probe_name ? xstrdup(c->probe_name) : NULL;
	st->conf.probe_local = st->probe_local;
	st->conf.cache_dir = st->cache_dir;
	st->conf.probe_name = st->probe_name;
}

void
stacks_view_free(struct ui *ui)
{
	struct ui_stacks	*st = ui->stacks;

	if (st == NULL)
		return;
	stackrun_free(st->run);
	free(st->text);
	free(st->lines);
	free(st->probe_local);
	free(st->cache_dir);
	free(st->probe_name);
	free(st);
	ui->stacks = NULL;
}

/* The tree as lines, once the run is done. */
static void
stacks_view_render(struct ui *ui)
{
	struct ui_stacks	*st = ui->stacks;
	struct stree		*t = stackrun_tree(st->run);
	FILE			*f;
	size_t			 len = 0;
	char			*p, *nl;
	const char		*job = ui->conf.job_id != NULL &&
				    *ui->conf.job_id != '\0' ?
				    ui->conf.job_id : "these nodes";

	free(st->text);
	free(st->lines);
	st->text = NULL;
	st->lines = NULL;
	st->nlines = 0;
	if (t == NULL || (f = open_memstream(&st->text, &len)) == NULL)
		return;
	stree_print_text(t, f, job);
	fclose(f);
	for (p = st->text; *p != '\0'; p = nl + 1) {
		st->lines = xreallocarray(st->lines, (size_t)st->nlines + 1,
		    sizeof(*st->lines));
		st->lines[st->nlines++] = p;
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		*nl = '\0';
	}
	st->taken = time(NULL);
	st->scroll = 0;
}

void
stacks_view_open(struct ui *ui)
{
	struct ui_stacks	*st = ui->stacks;

	if (ui->replay != NULL || ui->sess == NULL || !ui_live(ui)) {
		ui_message(ui, 1, "a replay has no live process to take "
		    "stacks of");
		return;
	}
	if (st == NULL) {
		ui_message(ui, 1, "stacks cannot be taken in this session");
		return;
	}
	if (ui_view(ui) != UV_STACKS)
		ui_push(ui, UV_STACKS);
	if (st->run != NULL && stackrun_tree(st->run) == NULL) {
		ui_message(ui, 0, "stacks are being taken");
		return;
	}
	stackrun_free(st->run);
	st->conf.ranks = ui->conf.job_id != NULL && *ui->conf.job_id != '\0';
	st->run = stackrun_new(&st->conf, ui->sess);
	st->started = ui->now;
	if (stackrun_start(st->run, ui->now) != 0)
		ui_message(ui, 1, "no node is live: the stacks will say why");
	if (stackrun_tree(st->run) != NULL)
		stacks_view_render(ui);
	ui->dirty = 1;
}

int
stacks_view_tick(struct ui *ui, uint64_t now)
{
	struct ui_stacks	*st = ui->stacks;

	if (st == NULL || st->run == NULL || stackrun_tree(st->run) != NULL)
		return -1;
	if (stackrun_check(st->run, now)) {
		stacks_view_render(ui);
		ui->dirty = 1;
		return -1;
	}
	/* The count of nodes that answered moves on the screen. */
	if (ui_view(ui) == UV_STACKS)
		ui->dirty = 1;
	return stackrun_timeout(st->run, now) > 500 ? 500 :
	    stackrun_timeout(st->run, now);
}

static int
stacks_height(const struct ui *ui, int avail)
{
	return -1;
}

static void
stacks_prepare(struct ui *ui, const struct ui_rect *r)
{
	struct ui_stacks	*st = ui->stacks;
	int			 max;

	if (st == NULL)
		return;
	st->shown = r->h - 1;
	max = st->nlines - st->shown;
	if (st->scroll > max)
		st->scroll = max;
	if (st->scroll < 0)
		st->scroll = 0;
}

static void
stacks_draw(const struct ui *ui, const struct ui_rect *r)
{
	const struct ui_stacks	*st = ui->stacks;
	char			 line[256], stamp[16], prog[128];
	struct tm		 tm;
	int			 y, i;
	attr_t			 a;

	widget_fill(r->y, r->x, r->w, ui->attr[TR_TABLE_HEAD]);
	if (st == NULL || st->run == NULL)
		snprintf(line, sizeof(line), " Stacks: B takes them");
	else if (stackrun_tree(st->run) == NULL) {
		stackrun_progress(st->run, prog, sizeof(prog));
		snprintf(line, sizeof(line), " Stacks: taking them, %.1f s: %s",
		    (double)(ui->now - st->started) / 1000, prog);
	} else {
		if (localtime_r(&st->taken, &tm) == NULL ||
		    strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm) == 0)
			snprintf(stamp, sizeof(stamp), "--:--:--");
		snprintf(line, sizeof(line), " Stacks taken at %s  "
		    "(B: again, Esc: back, arrows: scroll) %d-%d of %d",
		    stamp, st->nlines > 0 ? st->scroll + 1 : 0,
		    st->scroll + st->shown < st->nlines ? st->scroll +
		    st->shown : st->nlines, st->nlines);
	}
	widget_put(r->y, r->x, r->w, ui->attr[TR_TABLE_HEAD], line);
	if (st == NULL)
		return;
	for (y = 1, i = st->scroll; y < r->h && i < st->nlines; y++, i++) {
		a = ui->attr[TR_TABLE_ROW];
		if (strstr(st->lines[i], "<- odd one out") != NULL)
			a = ui->attr[TR_EVENT_WARN];
		else if (strstr(st->lines[i], ": no stacks: ") != NULL ||
		    strstr(st->lines[i], "deadline cut") != NULL)
			a = ui->attr[TR_EVENT_ERROR];
		widget_fill(r->y + y, r->x, r->w, ui->attr[TR_TABLE_ROW]);
		widget_put_cut(r->y + y, r->x, r->w, a, st->lines[i],
		    ui->utf8);
	}
}

static int
stacks_key(struct ui *ui, int key)
{
	struct ui_stacks	*st = ui->stacks;
	int			 page;

	if (st == NULL)
		return 0;
	page = st->shown > 1 ? st->shown - 1 : 1;
	switch (key) {
	case KEY_UP:
	case 'k':
		st->scroll--;
		break;
	case KEY_DOWN:
	case 'j':
		st->scroll++;
		break;
	case KEY_PPAGE:
		st->scroll -= page;
		break;
	case KEY_NPAGE:
	case ' ':
		st->scroll += page;
		break;
	case KEY_HOME:
	case 'g':
		st->scroll = 0;
		break;
	case KEY_END:
	case 'G':
		st->scroll = st->nlines;
		break;
	default:
		return 0;
	}
	ui->dirty = 1;
	return 1;
}

const struct panel panel_stacks = {
	.name = "stacks",
	.keys = "B\tevery rank's stack now, merged into one tree (again: "
	    "retake)\n"
	    "Up Down PgUp PgDn\tscroll the tree",
	.height = stacks_height,
	.prepare = stacks_prepare,
	.draw = stacks_draw,
	.key = stacks_key,
};
