/* SPDX-License-Identifier: ISC */
/*
 * columns: which columns the rank and node tables show, chosen by the
 * user (a settings file's `rank_columns =` / `node_columns =`, a setup
 * screen).  Each table names its columns by short keys ("rank", "pid",
 * "peak_rss", "cpu"), defined next to the columns themselves in
 * ui/panel-ranks.c and ui/panel-nodes.c.  A hidden column is never drawn
 * and the sort keys step over it; a shown one may still be dropped on a
 * narrow terminal, or when no node reports its source.
 *
 * The choice is kept here, process-wide (one UI per process), so that a
 * settings file can be applied before the UI starts.
 *
 * A spec, as a settings file holds it, is a comma-separated list of keys
 * (blanks around them are ignored):
 *	rank,node,pid,cpu,rss,command	exactly these (in the table's order)
 *	-wchan,-syscall,+user		the default set, changed
 * Every item of a list carries a sign or none does; an empty list or one
 * that leaves no column is refused.  "default" is the default set.
 */
#ifndef JOBTOP_COLUMNS_H
#define JOBTOP_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

enum { COLUMNS_RANKS, COLUMNS_NODES, COLUMNS_NTABLES };

#define COLUMNS_MAX	64	/* columns a table may have */

/* What a table says of its columns (its panel defines it). */
struct columns_def {
	const char		*setting;	/* "rank_columns" */
	unsigned		 ncols;
	const char *const	*keys;		/* ncols keys */
	const char *const	*titles;	/* ncols header titles */
	/* NULL, or ncols older keys still read (NULL: none). */
	const char *const	*aliases;
	uint64_t		 hidden;	/* hidden by default */
};

/* The node table's columns, built from the metric catalogue on first
 * use (ui/panel-nodes.c). */
const struct columns_def *panel_nodes_columns(void);

/* The number of columns of a table (COLUMNS_RANKS, COLUMNS_NODES; 0 for
 * another), the key and header title of column i (NULL out of range). */
unsigned	 columns_count(int);
const char	*columns_key(int, unsigned);
const char	*columns_title(int, unsigned);
/* The setting's name: "rank_columns", "node_columns". */
const char	*columns_setting(int);
/* Column i of a table by key (or an older key), or -1. */
int		 columns_find(int, const char *);
/* Is column i chosen (shown when room and data allow)? */
int		 columns_shown(int, unsigned);
/* Show (on 1) or hide (on 0) a column by key: 0, or -1 for an unknown
 * key or when it would hide the table's last column. */
int		 columns_set(int, const char *, int);
/* The default set again. */
void		 columns_reset(int);
/* Apply a spec (above) to a table: 0, or -1 with one line in err and the
 * choice unchanged. */
int		 columns_parse(int, const char *, char *, size_t);
/* The current choice as a spec that columns_parse takes back: the shown
 * keys in table order ("rank,node,pid,..."); its length (snprintf's:
 * truncated to the buffer when longer). */
size_t		 columns_string(int, char *, size_t);
/* Does the choice differ from the default (worth writing to a file)? */
int		 columns_changed(int);
/* Changes bump this (the tables' cached rows depend on it). */
extern unsigned	 columns_gen;

/* A user name for a uid (getpwuid, cached), else the number: buf. */
const char	*columns_user(int64_t, char *, size_t);

#endif
