/* SPDX-License-Identifier: ISC */
/*
 * log: a log file that exists only with -v, and the one-line error path to
 * stderr.  The module state is the open file, whether curses owns the
 * terminal, and the hook fatal() runs first.  Every line is passed through
 * text_clean on its way out: messages carry node error text, probe stderr
 * and scheduler output, none of which may put an escape sequence on the
 * terminal or into the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"
#include "textsafe.h"
#include "xmalloc.h"

/* The longest line written; longer messages are cut. */
#define LOG_LINE_MAX	2048

static FILE	*log_file;
static int	 log_tty_owned;
static void	(*log_fatal_hook)(void);
static int	 log_in_fatal;

int
log_open(const char *path)
{
	struct stat	 st;
	FILE		*f;
	int		 fd, save;

	if (fs_mkdir_parents(path) != 0)
		return -1;
	/* Not through a symlink someone planted, not into a FIFO that
	 * would block, and not readable by others: the log holds other
	 * users' process names. */
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK, 0600)) < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;		/* not a file */
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		errno = EPERM;		/* someone else's file */
		goto fail;
	}
	if (((st.st_mode & 077) != 0 && fchmod(fd, st.st_mode & 0600) != 0) ||
	    fcntl(fd, F_SETFL, O_APPEND) != 0 ||
	    (f = fdopen(fd, "a")) == NULL)
		goto fail;
	if (log_file != NULL) {
		save = errno;
		fclose(log_file);
		errno = save;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	log_file = f;
	log_debug("log opened, pid %ld", (long)getpid());
	return 0;

fail:
	save = errno;
	close(fd);
	errno = save;
	return -1;
}

void
log_close(void)
{
	if (log_file != NULL)
		fclose(log_file);
	log_file = NULL;
}

int
log_enabled(void)
{
	return log_file != NULL;
}

char *
log_default_path(void)
{
	const char	*state, *home;

	if ((state = getenv("XDG_STATE_HOME")) != NULL && *state == '/')
		return xasprintf("%s/jobtop/jobtop.log", state);
	if ((home = getenv("HOME")) != NULL && *home != '\0')
		return xasprintf("%s/.local/state/jobtop/jobtop.log", home);
	return NULL;
}

void
log_set_terminal_owned(int owned)
{
	log_tty_owned = owned;
}

void
log_set_fatal_hook(void (*hook)(void))
{
	log_fatal_hook = hook;
}

static void	log_format(char *, const char *, va_list)
		    __attribute__((format(printf, 2, 0)));
static void	log_vwrite(const char *, const char *, va_list)
		    __attribute__((format(printf, 2, 0)));
static void	log_stderr(const char *, va_list)
		    __attribute__((format(printf, 1, 0)));

/* Format a message into buf (LOG_LINE_MAX bytes) as printable ASCII.  No
 * allocation: fatal() runs when memory is out. */
static void
log_format(char *buf, const char *fmt, va_list ap)
{
	vsnprintf(buf, LOG_LINE_MAX, fmt, ap);
	text_clean_inplace(buf);
}

/* Write one timestamped line to the log file. */
static void
log_vwrite(const char *level, const char *fmt, va_list ap)
{
	struct timeval	 tv;
	struct tm	 tm;
	char		 stamp[32], line[LOG_LINE_MAX];

	if (log_file == NULL)
		return;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	log_format(line, fmt, ap);
	fprintf(log_file, "%s.%03ld %s %s\n", stamp,
	    (long)tv.tv_usec / 1000, level, line);
}

/* The one line on stderr. */
static void
log_stderr(const char *fmt, va_list ap)
{
	char	line[LOG_LINE_MAX];

	log_format(line, fmt, ap);
	fprintf(stderr, "jobtop: %s\n", line);
}

void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("debug", fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("warn", fmt, ap);
	va_end(ap);
}

void
log_error(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("error", fmt, ap);
	va_end(ap);
	if (log_tty_owned)
		return;
	/* Records printed before it come out before it: every stream
	 * (batch mode's records go through one of their own). */
	fflush(NULL);
	va_start(ap, fmt);
	log_stderr(fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	ap;

	/* A hook that fails must not recurse back here. */
	if (!log_in_fatal) {
		log_in_fatal = 1;
		if (log_fatal_hook != NULL)
			log_fatal_hook();
	}
	log_tty_owned = 0;
	va_start(ap, fmt);
	log_vwrite("fatal", fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	log_stderr(fmt, ap);
	va_end(ap);
	exit(1);
}
