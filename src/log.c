/*
 * log: a log file that exists only with -v, and the one-line error path to
 * stderr.  The module state is the open file, whether curses owns the
 * terminal, and the hook fatal() runs first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "xmalloc.h"

static FILE	*log_file;
static int	 log_tty_owned;
static void	(*log_fatal_hook)(void);
static int	 log_in_fatal;

/* Create every missing directory above path (like mkdir -p of dirname). */
static int
log_mkdirs(const char *path)
{
	char	*dir, *p;
	int	 rc = 0;

	dir = xstrdup(path);
	for (p = dir + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			rc = -1;
			break;
		}
		*p = '/';
	}
	free(dir);
	return rc;
}

int
log_open(const char *path)
{
	FILE	*f;
	int	 save;

	if (log_mkdirs(path) != 0)
		return -1;
	if ((f = fopen(path, "ae")) == NULL)
		return -1;
	if (log_file != NULL) {
		save = errno;
		fclose(log_file);
		errno = save;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	log_file = f;
	log_debug("log opened, pid %ld", (long)getpid());
	return 0;
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

static void	log_vwrite(const char *, const char *, va_list)
		    __attribute__((format(printf, 2, 0)));

/* Write one timestamped line to the log file. */
static void
log_vwrite(const char *level, const char *fmt, va_list ap)
{
	struct timeval	 tv;
	struct tm	 tm;
	char		 stamp[32];

	if (log_file == NULL)
		return;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(log_file, "%s.%03ld %s ", stamp, (long)tv.tv_usec / 1000,
	    level);
	vfprintf(log_file, fmt, ap);
	fputc('\n', log_file);
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
	fflush(stdout);
	fputs("jobtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
	fputs("jobtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
