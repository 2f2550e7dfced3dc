/* SPDX-License-Identifier: ISC */
/*
 * setup: the monitor's setup screen (F2, as htop's) and the settings file
 * seen from the UI.  At start the settings of jobtoprc (src/config.h)
 * that belong to the screen (fold, the tables' sort and columns) are
 * applied; a value the UI cannot use (a column no table has) is one
 * warning naming FILE:LINE on the status line and in the event log, and
 * the rest still applies.  In the setup screen the user changes the
 * theme, the sorts, fold, the sample interval and the columns; each
 * change applies at once, and `w` writes them to jobtoprc.  Nothing else
 * ever writes the file.
 *
 * A table reaches the setup screen through one struct setup_table, its
 * binding, defined beside the table (panel-nodes.c, panel-ranks.c): its
 * columns are those of the column choice API (columns.h), which names
 * them by key ("cpu", "peak_rss") for the sort and columns settings.
 */
#ifndef JOBTOP_SETUP_H
#define JOBTOP_SETUP_H

#include <stddef.h>

struct config;
struct ui;
struct ui_table;

struct setup_table {
	const char	*name;		/* "node", "rank": in messages */
	int		 columns;	/* COLUMNS_NODES, COLUMNS_RANKS */
	/* Can the table sort by column i?  *desc: its natural direction. */
	int		(*col_sortable)(int, int *);
	/* The cursor holding the table's sort column and direction. */
	struct ui_table	*(*tab)(struct ui *);
};

extern const struct setup_table	setup_node_table;
extern const struct setup_table	setup_rank_table;

/* Apply the screen's settings of C (fold, sorts, columns) to the UI, with
 * one warning per value it cannot use.  C may be NULL.  The columns are
 * the process's (columns.h), so the call before the first ui_new does. */
void		 setup_apply(struct ui *, const struct config *);
/* Open the setup screen. */
void		 setup_open(struct ui *);
/* Write the current settings to jobtoprc (over what the file holds):
 * 0, or -1 after a message on the status line. */
int		 setup_save(struct ui *);

#endif
