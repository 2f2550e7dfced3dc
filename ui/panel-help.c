/* SPDX-License-Identifier: ISC */
/*
 * panel-help: the keys, written from the global key table (keys.c) and
 * every panel's own keys (ui_panels[]), then what the flags and node
 * states mean.  Up and Down scroll; any other key goes back, as in top.
 */
#include <stdio.h>
#include <string.h>

#include "ui-priv.h"

static const char *const help_legend[] = {
	"",
	"Flags (raised after several samples, never on one):",
	"  stalled    a rank whose CPU time and I/O stopped while the median",
	"             rank of the job computes",
	"  straggler  a node or rank far from the job's median CPU (robust:",
	"             median absolute deviation, and a minimum gap)",
	"  memory     memory over 90% of the limit (the job's cgroup limit, else",
	"             the node's memory)",
	"  lost       a node that stopped sending (SSH or probe trouble)",
	"",
	"Node states: connecting, live, lost (silent or reconnecting), failed.",
	"Folded rows (node[001-480]) stand for look-alike nodes; outliers keep",
	"their own rows.  + and - change the probes' sample interval (-d) for",
	"every node, from 0.1 to 60 s; p freezes the display (data keeps coming).",
	NULL
};

/* The help as lines: "KEY  what"; returns how many (into lines[max]). */
static int
help_lines(char lines[][160], int max)
{
	const struct ui_key	*k;
	const struct panel	*const *pp;
	const char		*p, *tab, *nl;
	int			 n = 0, i;

	snprintf(lines[n++], 160, "jobtop keys (Up/Down scroll; any other "
	    "key returns)");
	snprintf(lines[n++], 160, "%s", "");
	for (k = ui_keys; k->name != NULL && n < max; k++)
		snprintf(lines[n++], 160, "  %-13s %s", k->name, k->what);
	for (pp = ui_panels; *pp != NULL && n < max; pp++) {
		if ((*pp)->keys == NULL)
			continue;
		snprintf(lines[n++], 160, "%s", "");
		snprintf(lines[n++], 160, "In the %s panel:", (*pp)->name);
		for (p = (*pp)->keys; *p != '\0' && n < max; p = nl + 1) {
			nl = strchr(p, '\n');
			if (nl == NULL)
				break;
			tab = memchr(p, '\t', (size_t)(nl - p));
			if (tab == NULL)
				continue;
			snprintf(lines[n++], 160, "  %-13.*s %.*s",
			    (int)(tab - p), p, (int)(nl - tab - 1), tab + 1);
		}
	}
	for (i = 0; help_legend[i] != NULL && n < max; i++)
		snprintf(lines[n++], 160, "%s", help_legend[i]);
	return n;
}

#define HELP_MAX	128

static int
help_height(const struct ui *ui, int avail)
{
	return -1;
}

static void
help_prepare(struct ui *ui, const struct ui_rect *r)
{
	char	lines[HELP_MAX][160];
	int	n = help_lines(lines, HELP_MAX);

	/* The cursor is the top line. */
	if (ui->htab.sel > n - r->h)
		ui->htab.sel = n - r->h;
	if (ui->htab.sel < 0)
		ui->htab.sel = 0;
	ui->htab.shown = r->h;
}

static void
help_draw(const struct ui *ui, const struct ui_rect *r)
{
	char	lines[HELP_MAX][160];
	int	n = help_lines(lines, HELP_MAX), y, k;

	for (y = 0; y < r->h; y++) {
		k = ui->htab.sel + y;
		if (k >= n)
			break;
		if (k == 0)
			widget_put(r->y + y, r->x, r->w, ui->attr[TR_TITLE],
			    lines[k]);
		else if (strncmp(lines[k], "  ", 2) == 0 &&
		    lines[k][2] != ' ') {
			widget_put(r->y + y, r->x, r->w, ui->attr[TR_DEFAULT],
			    lines[k]);
			widget_put(r->y + y, r->x + 2, 13, ui->attr[TR_HELP_KEY],
			    lines[k] + 2);
		} else
			widget_put(r->y + y, r->x, r->w, ui->attr[TR_DEFAULT],
			    lines[k]);
	}
}

static int
help_key(struct ui *ui, int key)
{
	switch (key) {
	case KEY_DOWN:
	case 'j':
		ui->htab.sel++;
		break;
	case KEY_UP:
	case 'k':
		ui->htab.sel--;
		break;
	case KEY_NPAGE:
	case ' ':
		ui->htab.sel += ui->htab.shown > 1 ? ui->htab.shown - 1 : 1;
		break;
	case KEY_PPAGE:
		ui->htab.sel -= ui->htab.shown > 1 ? ui->htab.shown - 1 : 1;
		break;
	default:
		ui_pop(ui);
		break;
	}
	ui->dirty = 1;
	return 1;
}

const struct panel panel_help = {
	.name = "help",
	.height = help_height,
	.prepare = help_prepare,
	.draw = help_draw,
	.key = help_key,
};
