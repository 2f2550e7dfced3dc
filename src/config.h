/*
 * config: the user's settings file, $XDG_CONFIG_HOME/jobtop/jobtop.conf
 * (~/.config/jobtop/jobtop.conf without XDG_CONFIG_HOME).  Lines are
 * `key = value`; '#' starts a comment, blank lines are ignored, blanks
 * around the key and the value are dropped.  A setting is a default: the
 * command line wins over it.
 *
 * A line that is not `key = value`, a known key with a bad value or a key
 * given twice is an error naming FILE:LINE.  An unknown key is a warning
 * and is ignored, so a file written for a newer jobtop still works.
 * Parsing never prints, exits or touches the terminal.
 */
#ifndef JOBTOP_CONFIG_H
#define JOBTOP_CONFIG_H

#include <stddef.h>

#define CONFIG_LINE_MAX		4096	/* a longer line is an error */
#define CONFIG_FILE_MAX		(1024 * 1024)

/* The settings; a NULL or 0 field was not set by the file. */
struct config {
	char	*transport;	/* auto or one of feed_transports[] */
	char	*path;		/* the file read, or NULL */
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

/* The default path (allocated), or NULL when neither XDG_CONFIG_HOME nor
 * HOME is an absolute path. */
char	*config_default_path(void);

/* Read and parse the file at PATH (the default path when NULL).  A missing
 * file is no error (returns 0 with nothing set).  Returns 0, or -1 with
 * one line in ERR (unreadable, not a regular file, too large, bad line). */
int	 config_load(struct config *, const char *, config_warn_fn, void *,
	    char *, size_t);

/* The transports a settings file may name, for messages: "auto, ..." */
const char *config_transport_names(void);

#endif
