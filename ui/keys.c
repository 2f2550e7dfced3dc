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
	{ 'q',		KEY_F(10),	"q F10", "quit (stops every probe)",
	    ui_key_quit },
	{ 'h',		'?',		"h ?",	"this help",
	    ui_key_help },
	{ KEY_F(1),	0,		"F1",	"this help", ui_key_help },
	{ KEY_F(2),	0,		"F2",	"setup: theme, sorts, fold, "
	    "interval, columns; w saves them to jobtoprc", ui_key_setup },
	{ 27,		KEY_LEFT,	"Esc",	"back (Left too); on the node "
	    "table, clear the filter", ui_key_back },
	{ '\t',		0,		"Tab",	"switch between the node table "
	    "and every rank", ui_key_tab },
	{ 'n',		0,		"n",	"the node table", ui_key_nodes },
	{ 'r',		0,		"r",	"every rank of the job",
	    ui_key_ranks },
	{ 'e',		0,		"e",	"the event log", ui_key_events },
	{ '/',		KEY_F(4),	"/ F4",	"filter node names and commands "
	    "(PCRE2; lower case ignores case)", ui_key_filter },
	{ KEY_F(3),	0,		"F3",	"search: the same as / (the "
	    "table keeps the rows that match)", ui_key_filter },
	{ '!',		0,		"!",	"open the worst flagged rank "
	    "(stalled first): its detail", ui_key_worst },
	{ KEY_F(9),	0,		"F9",	"(htop: kill) jobtop sends no "
	    "signal", ui_key_kill },
	{ KEY_F(5),	0,		"F5",	"(htop: tree) no process tree",
	    ui_key_tree },
	{ 'p',		'Z',		"p",	"pause: freeze the display (data "
	    "keeps coming and is recorded)", ui_key_pause },
	{ '+',		'=',		"+",	"sample less often (longer "
	    "interval, up to 60 s)", ui_key_slower },
	{ '-',		'_',		"-",	"sample more often (shorter "
	    "interval, down to 0.1 s)", ui_key_faster },
	{ 't',		0,		"t",	"next colour theme", ui_key_theme },
	{ 'B',		0,		"B",	"stacks: every rank's stack now, "
	    "merged into one tree", stacks_view_open },
	{ 'f',		0,		"f",	"fold look-alike nodes: when they "
	    "do not fit, always, never", ui_key_fold },
	{ 0x0c,		0,		"^L",	"redraw the screen",
	    ui_key_redraw },
	{ 0,		0,		NULL,	NULL,	NULL }
};
