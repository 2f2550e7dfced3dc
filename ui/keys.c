/* SPDX-License-Identifier: ISC */
/*
 * keys: the monitor's global keys, one table that both dispatches them and
 * writes the help screen.  A panel sees a key first (panel->key); what it
 * leaves comes here.  How to add a key: write a ui_key_NAME function and
 * list it in ui_keys[] with the name and the one line the help shows.
 */
#include <string.h>

#include "setup.h"
#include "ui-priv.h"

static void
ui_key_quit(struct ui *ui)
{
	ui_quit(ui);
}

static void
ui_key_help(struct ui *ui)
{
	ui->htab.sel = ui->htab.top = 0;
	ui_push(ui, UV_HELP);
}

static void
ui_key_back(struct ui *ui)
{
	if (ui->depth > 1)
		ui_pop(ui);
	else if (ui->filter != NULL) {
		filter_free(ui->filter);
		ui->filter = NULL;
		ui->view_gen++;
		ui_message(ui, 0, "filter cleared");
	}
}

static void
ui_key_pause(struct ui *ui)
{
	ui_pause(ui, !ui->paused);
	ui_message(ui, 0, "%s", ui->paused ? "paused: the display is frozen; "
	    "data keeps coming and is recorded; p resumes" :
	    "resumed");
}

static void
ui_key_slower(struct ui *ui)
{
	ui_refresh_step(ui, 1);
}

static void
ui_key_faster(struct ui *ui)
{
	ui_refresh_step(ui, -1);
}

static void
ui_key_theme(struct ui *ui)
{
	ui_theme_next(ui);
}

static void
ui_key_filter(struct ui *ui)
{
	ui_filter_begin(ui);
}

/* Tab: between the node table and the table of every rank. */
static void
ui_key_tab(struct ui *ui)
{
	if (ui_view(ui) == UV_NODES) {
		ui_set_scope(ui, NULL, 0, NULL);
		ui_push(ui, UV_RANKS);
	} else {
		ui->depth = 1;
		ui->dirty = 1;
	}
}

static void
ui_key_nodes(struct ui *ui)
{
	ui->depth = 1;
	ui->dirty = 1;
}

static void
ui_key_ranks(struct ui *ui)
{
	ui->depth = 1;
	ui_set_scope(ui, NULL, 0, NULL);
	ui_push(ui, UV_RANKS);
}

static void
ui_key_events(struct ui *ui)
{
	ui->etab.sel = (int)ui->evlen - 1;
	ui_push(ui, UV_EVENTS);
}

static void
ui_key_fold(struct ui *ui)
{
	static const char *const modes[] = { "when the nodes do not fit",
	    "always", "never" };

	ui->fold = (ui->fold + 1) % 3;
	ui_message(ui, 0, "fold look-alike nodes: %s", modes[ui->fold]);
}

static void
ui_key_setup(struct ui *ui)
{
	setup_open(ui);
}

static void
ui_key_worst(struct ui *ui)
{
	ui_open_worst(ui);
}

/* htop's F9 (kill) and F5 (tree): say what jobtop does instead. */
static void
ui_key_kill(struct ui *ui)
{
	ui_message(ui, 0, "jobtop only watches: it sends no signal to ranks "
	    "(scancel the job, or kill on the node)");
}

static void
ui_key_tree(struct ui *ui)
{
	ui_message(ui, 0, "no process tree: Enter on a node lists its ranks "
	    "(Tab: every rank of the job)");
}

static void
ui_key_redraw(struct ui *ui)
{
	clearok(curscr, TRUE);
	ui->dirty = 1;
}

const struct ui_key ui_keys[] = {
	{ .key = 'q', .alt = KEY_F(10), .name = "q F10",
	    .what = "quit (stops every probe)", .fn = ui_key_quit },
	{ .key = 'h', .alt = '?', .name = "h ?", .what = "this help",
	    .fn = ui_key_help },
	{ .key = KEY_F(1), .name = "F1", .what = "this help",
	    .fn = ui_key_help },
	{ .key = KEY_F(2), .name = "F2", .what = "setup: theme, sorts, fold, "
	    "interval, columns; w saves them to jobtoprc",
	    .fn = ui_key_setup },
	{ .key = 27, .alt = KEY_LEFT, .name = "Esc",
	    .what = "back (Left too); on the node table, clear the filter",
	    .fn = ui_key_back },
	{ .key = '\t', .name = "Tab", .what = "switch between the node table "
	    "and every rank", .fn = ui_key_tab },
	{ .key = 'n', .name = "n", .what = "the node table",
	    .fn = ui_key_nodes },
	{ .key = 'r', .name = "r", .what = "every rank of the job",
	    .fn = ui_key_ranks },
	{ .key = 'e', .name = "e", .what = "the event log",
	    .fn = ui_key_events },
	{ .key = '/', .alt = KEY_F(4), .name = "/ F4",
	    .what = "filter node names and commands "
	    "(PCRE2; lower case ignores case)", .fn = ui_key_filter },
	{ .key = KEY_F(3), .name = "F3", .what = "search: the same as / (the "
	    "table keeps the rows that match)", .fn = ui_key_filter },
	{ .key = '!', .name = "!", .what = "open the worst flagged rank "
	    "(stalled first): its detail", .fn = ui_key_worst },
	{ .key = KEY_F(9), .name = "F9",
	    .what = "(htop: kill) jobtop sends no signal", .fn = ui_key_kill },
	{ .key = KEY_F(5), .name = "F5",
	    .what = "(htop: tree) no process tree", .fn = ui_key_tree },
	{ .key = 'p', .alt = 'Z', .name = "p",
	    .what = "pause: freeze the display (data "
	    "keeps coming and is recorded)", .fn = ui_key_pause },
	{ .key = '+', .alt = '=', .name = "+",
	    .what = "sample less often (longer interval, up to 60 s)",
	    .fn = ui_key_slower },
	{ .key = '-', .alt = '_', .name = "-",
	    .what = "sample more often (shorter interval, down to 0.1 s)",
	    .fn = ui_key_faster },
	{ .key = 't', .name = "t", .what = "next colour theme",
	    .fn = ui_key_theme },
	{ .key = 'B', .name = "B", .what = "stacks: every rank's stack now, "
	    "merged into one tree", .fn = stacks_view_open },
	{ .key = 'f', .name = "f", .what = "fold look-alike nodes: when they "
	    "do not fit, always, never", .fn = ui_key_fold },
	{ .key = 0x0c, .name = "^L", .what = "redraw the screen",
	    .fn = ui_key_redraw },
	{ .key = 0 },
};
