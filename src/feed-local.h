/* SPDX-License-Identifier: ISC */
/*
 * feed-local: a probe run as a local child process over pipes, the
 * transport for the monitor's own machine.  The child's standard input is
 * a pipe the monitor holds open: closing it (feed_local_stop) tells the
 * probe to say BYE and exit.  Its standard output is the probe stream and
 * its standard error is kept line by line for the log and for error
 * messages.  Every descriptor is non-blocking and meant for the caller's
 * poll loop; nothing here blocks or decodes.
 */
#ifndef JOBTOP_FEED_LOCAL_H
#define JOBTOP_FEED_LOCAL_H

#include <stddef.h>
#include <sys/types.h>

struct feed_local;

/* The probe binary: $JOBTOP_PROBE, else jobtop-probe beside the running
 * executable (the build tree), else in ../libexec/jobtop from the
 * executable's directory (a relocated install), else
 * JOBTOP_LIBEXECDIR/jobtop-probe.  As root it must pass fs_path_safe.
 * Returns an allocated path, or NULL with the reason written to err. */
char	*feed_local_find_probe(char *, size_t);
/* The probe's NVML helper: $JOBTOP_NVML (set but empty: none), else
 * jobtop-nvml beside the probe.  An allocated path, or NULL when there is
 * none (the probe then uses nvidia-smi). */
char	*feed_local_find_nvml(const char *);

/* Start path with argv (argv[0] included, NULL-terminated).  NULL with the
 * reason in err when it cannot be started. */
struct feed_local *feed_local_start(const char *, char *const [], char *,
	    size_t);
/* Stop the child if it still runs (SIGKILL), reap it, close everything. */
void	 feed_local_free(struct feed_local *);

/* Descriptors to poll for input; -1 once that stream reached EOF. */
int	 feed_local_out_fd(const struct feed_local *);
int	 feed_local_err_fd(const struct feed_local *);
pid_t	 feed_local_pid(const struct feed_local *);

/* Read the probe's output: bytes read, 0 at EOF (the fd is then closed),
 * -1 when nothing is ready (EAGAIN), -2 on a read error (errno set; the fd
 * is closed). */
ssize_t	 feed_local_read(struct feed_local *, void *, size_t);
/* Read what the probe wrote to stderr: every complete line goes to the
 * log; the last one is kept.  Closes the fd at EOF. */
void	 feed_local_read_err(struct feed_local *);
/* The last line the probe wrote to stderr, or "". */
const char *feed_local_last_err(const struct feed_local *);

/* Close the probe's standard input: it ends within one interval. */
void	 feed_local_stop(struct feed_local *);
/* Write a control line ("interval 500\n") to the probe's stdin without
 * blocking: 0, or -1 when it could not go (stopped, or the pipe full). */
int	 feed_local_control(struct feed_local *, const char *);
/* Send a signal to the probe if it has not been reaped. */
void	 feed_local_kill(struct feed_local *, int);
/* Reap the child without blocking: 1 once it exited (*status is the wait
 * status), 0 while it runs. */
int	 feed_local_reap(struct feed_local *, int *);
/* The exit as text: "exited with status 1", "killed by signal 9". */
void	 feed_local_describe(int, char *, size_t);

#endif
