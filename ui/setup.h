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
 * binding, defined beside the table (panel-nodes.c, panel-ranks.c).
 * Sorting needs only the column titles and the table's cursor.  Column
 * choice needs two functions from the table's column API (the column
 * helpers of ui/columns.h, branch t14-ranks):
 *	col_shown(ui, i)	is column i chosen (not hidden by the user)?
 *	col_show(ui, i, on)	choose or hide column i: 0, or -1 when the
 *				column cannot be hidden (the name column)
 * While a binding leaves them NULL, the setup screen says column choice
 * is not available and a `columns` setting is kept in the file unchanged
 * (a warning names its line).  The columns setting is the chosen
 * columns' keys in the table's order, "name,state,cpu%": a key is the
 * column's title in lower case with blanks as '_' ("cpu_history").
 */
#ifndef JOBTOP_SETUP_H
#define JOBTOP_SETUP_H

#include <stddef.h>

struct config;
struct ui;
struct ui_table;

struct setup_table {
	const char	*name;		/* "node", "rank": in messages */
	int		 ncols;
	/* Column i's header title ("CPU%"). */
	const char	*(*col_title)(int);
	/* Can the table sort by column i?  *desc: its natural direction. */
	int		(*col_sortable)(int, int *);
	/* The cursor holding the table's sort column and direction. */
	struct ui_table	*(*tab)(struct ui *);
	/* Column choice: NULL until the column API binds them. */
	int		(*col_shown)(const struct ui *, int);
	int		(*col_show)(struct ui *, int, int);
};

extern const struct setup_table	setup_node_table;
extern const struct setup_table	setup_rank_table;

/* Column i's settings key into buf: "cpu%", "cpu_history". */
const char	*setup_col_key(const struct setup_table *, int, char *,
		    size_t);
/* The column whose key is KEY, or -1. */
int		 setup_col_find(const struct setup_table *, const char *);

/* Apply the screen's settings of C (fold, sorts, columns) to the UI, with
 * one warning per value it cannot use.  C may be NULL. */
void		 setup_apply(struct ui *, const struct config *);
/* Open the setup screen. */
void		 setup_open(struct ui *);
/* Write the current settings to jobtoprc (over what the file holds):
 * 0, or -1 after a message on the status line. */
int		 setup_save(struct ui *);

#endif
