/* SPDX-License-Identifier: ISC */
/*
 * log: the monitor's diagnostics.  Debug and warning lines go to a log file
 * only when -v opened one; user-facing errors go to stderr as one line
 * "jobtop: ..." unless the curses UI owns the terminal, in which case they
 * go to the log alone.  fatal() is for out-of-memory and broken invariants:
 * it runs the hook the UI registered (to restore the terminal), prints one
 * line and exits 1.
 */
#ifndef JOBTOP_LOG_H
#define JOBTOP_LOG_H

#include <stdarg.h>

/* Open (append) the log file, creating missing directories with mode 0700
 * and the file with 0600 (an existing one is made 0600).  A symlink, a
 * file that is not regular (EINVAL) or another user's (EPERM) is refused.
 * Returns 0, or -1 with errno set. */
int	 log_open(const char *);
void	 log_close(void);
int	 log_enabled(void);
/* The default log path, $XDG_STATE_HOME/jobtop/jobtop.log or
 * ~/.local/state/jobtop/jobtop.log, allocated; NULL without a home. */
char	*log_default_path(void);

/* While set, nothing is written to stderr (curses owns the terminal). */
void	 log_set_terminal_owned(int);
/* Called by fatal() before it prints (restore the terminal there). */
void	 log_set_fatal_hook(void (*)(void));

void	 log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
/* One line "jobtop: ..." on stderr (unless the terminal is owned), and in
 * the log.  Every line, in the log and on stderr, is cut at 2 KiB and
 * passed through text_clean: the message may hold node or scheduler text.
 */
void	 log_error(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif
