/* SPDX-License-Identifier: ISC */
/*
 * config: the user's settings file, $XDG_CONFIG_HOME/jobtop/jobtoprc
 * (~/.config/jobtop/jobtoprc without XDG_CONFIG_HOME).  When there is no
 * jobtoprc, jobtop.conf in the same directory (the name of earlier
 * versions) is read instead.  Lines are `key = value`; '#' starts a
 * comment, blank lines are ignored, blanks around the key and the value
 * are dropped.  A setting is a default: the command line wins over it.
 *
 * A line that is not `key = value`, a known key with a bad value or a key
 * given twice is an error naming FILE:LINE.  An unknown key is a warning
 * and is ignored, so a file written for a newer jobtop still works.
 * Parsing never prints, exits or touches the terminal.
 *
 * The file is written only on request (the monitor's setup screen, F2):
 * config_render keeps every line it does not set (comments, unknown keys,
 * blank lines) and config_save replaces the file atomically.
 */
#ifndef JOBTOP_CONFIG_H
#define JOBTOP_CONFIG_H

#include <stddef.h>

#define CONFIG_LINE_MAX		4096	/* a longer line is an error */
#define CONFIG_FILE_MAX		(1024 * 1024)
#define CONFIG_VALUE_MAX	512	/* a longer value is an error */
#define CONFIG_IVL_MIN		0.05	/* seconds: the bounds of -d too */
#define CONFIG_IVL_MAX		86400.0
#define CONFIG_ALLOC_MAX	604800	/* alloc_after: a week, seconds */

enum config_fold {
	CONFIG_FOLD_UNSET = -1,
	CONFIG_FOLD_AUTO,	/* fold look-alike nodes when they do not fit */
	CONFIG_FOLD_ALWAYS,
	CONFIG_FOLD_NEVER
};

/* A table's sort: a column key and a direction. */
struct config_sort {
	char	*column;	/* the column's key ("cpu"), NULL: not set */
	int	 desc;		/* 1 descending, 0 ascending, -1 natural */
	int	 line;		/* where it was set, for messages, 0: not */
};

/* The settings; a NULL, 0 or UNSET field was not set by the file.  The
 * *_line fields say where a value the caller checks itself (a theme, a
 * column key) was set, so its message can name FILE:LINE. */
struct config {
	char			*transport;	/* auto or feed_transports[] */
	char			*theme;		/* a name or a path */
	int			 theme_line;
	struct config_sort	 sort;		/* the node table */
	struct config_sort	 rank_sort;	/* the rank tables */
	char			*node_columns;	/* ui/columns.h's spec */
	int			 node_columns_line;
	char			*rank_columns;
	int			 rank_columns_line;
	int			 fold;		/* enum config_fold */
	double			 interval;	/* seconds, 0: not set */
	long			 alloc_after;	/* seconds watched before the
						 * allocation hints, 0: not
						 * set */
	char			*path;		/* the file read, or NULL */
};

/* Called once per warning with one line "FILE:LINE: ..." (no newline). */
typedef void	(*config_warn_fn)(void *, const char *);

void	 config_init(struct config *);
void	 config_free(struct config *);

/* Parse TEXT (LEN bytes, NUL bytes refused) named NAME in messages into C,
 * over whatever C already holds.  Returns 0, or -1 with one line
 * "NAME:LINE: ..." in ERR; C then keeps what the lines before set. */
int	 config_parse(struct config *, const char *, const char *, size_t,
	    config_warn_fn, void *, char *, size_t);

/* The settings file's path, jobtoprc (allocated), or NULL when neither
 * XDG_CONFIG_HOME nor HOME is an absolute path. */
char	*config_default_path(void);
/* The path of earlier versions, jobtop.conf in the same directory. */
char	*config_legacy_path(void);

/* Read and parse the file at PATH.  With PATH NULL: jobtoprc, or when
 * that does not exist jobtop.conf.  A missing file is no error (returns 0
 * with nothing set).  Returns 0, or -1 with one line in ERR (unreadable,
 * not a regular file, too large, bad line). */
int	 config_load(struct config *, const char *, config_warn_fn, void *,
	    char *, size_t);

/* The text of a settings file: OLD (LEN bytes, may be NULL) with the
 * lines of every key C sets replaced by C's values, in place, and the keys
 * OLD lacks appended; every other line is kept as it was.  Allocated,
 * NUL-terminated.  What it returns parses back to C's values. */
char	*config_render(const struct config *, const char *, size_t);

/* Write C to PATH (the default path when NULL) as config_render does over
 * the file there (or, when there is none, over C->path's, the file C was
 * read from), through a temporary file renamed over it: a crash leaves
 * the old file or the new one.  Creates the directory (mode 0700) when
 * missing.  Returns 0, or -1 with one line in ERR. */
int	 config_save(const struct config *, const char *, char *, size_t);

/* The transports a settings file may name, for messages: "auto, ..." */
const char *config_transport_names(void);
/* "auto", "always", "never" for CONFIG_FOLD_*, NULL for others. */
const char *config_fold_name(int);

#endif
