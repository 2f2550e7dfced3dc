/* SPDX-License-Identifier: ISC */
/*
 * jobwatch: the scheduler asked again, in a child, while the monitor runs.
 * sched_resolve() blocks (it runs the scheduler's command and waits up to
 * SCHED_TIMEOUT_MS for it), so it runs in a forked child that writes one
 * line back through a pipe and exits; the poll loop only reaps it.  The
 * child goes into its own process group with the default signal
 * dispositions and closes every descriptor it inherited (the SSH sockets,
 * the terminal), so it neither holds a node's connection open nor takes a
 * key or a ^C meant for the monitor.
 *
 * The line: the sched_resolve() code, a space, the state word, a newline,
 * then its one-line message (for the debug log).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobwatch.h"
#include "log.h"
#include "sched.h"
#include "spawn.h"
#include "xmalloc.h"

#define JOBWATCH_LINE_MAX	640
#define JOBWATCH_POLL_MS	1000	/* reap check, should SIGCHLD be lost */
#define JOBWATCH_GONE_TIMES	2	/* "no such job" answers to end */

struct jobwatch {
	char		*sched;
	char		*id;
	pid_t		 pid;		/* the query running, or -1 */
	int		 fd;		/* its answer, or -1 */
	uint64_t	 next;		/* the next query (monotonic ms) */
	uint64_t	 deadline;	/* the running query's */
	int		 gone;		/* "no such job" answers in a row */
	int		 ended;
	char		 state[32];
};

struct jobwatch *
jobwatch_new(const char *sched, const char *id, uint64_t now)
{
	struct jobwatch	*jw;

	if (sched == NULL || id == NULL || *id == '\0' ||
	    sched_by_name(sched) == NULL)
		return NULL;
	jw = xcalloc(1, sizeof(*jw));
	jw->sched = xstrdup(sched);
	jw->id = xstrdup(id);
	jw->pid = -1;
	jw->fd = -1;
	jw->next = now + JOBWATCH_PERIOD_MS;
	return jw;
}

/* The child (spawn.c: its own group, default signals, stdin and stderr
 * /dev/null, nothing else open): ask the scheduler, write the answer on
 * stdout, exit. */
static void
jobwatch_child(void *arg)
{
	const struct jobwatch *jw = arg;
	struct job	 job;
	char		 line[JOBWATCH_LINE_MAX], err[512];
	const char	*st;
	size_t		 len, off;
	ssize_t		 n;
	int		 r;

	log_set_fatal_hook(NULL);

	sched_job_init(&job);
	err[0] = '\0';
	r = sched_resolve(jw->sched, jw->id, &job, err, sizeof(err));
	st = job.state_name[0] != '\0' ? job.state_name :
	    sched_state_name(job.state);
	snprintf(line, sizeof(line), "%d %.31s\n%s\n", r, st, err);
	len = strlen(line);
	for (off = 0; off < len; off += (size_t)n) {
		if ((n = write(STDOUT_FILENO, line + off, len - off)) <= 0)
			_exit(1);
	}
	_exit(0);
}

/* Start a query: a child and its pipe. */
static void
jobwatch_start(struct jobwatch *jw, uint64_t now)
{
	struct spawn_req rq;
	struct spawn	 sp;
	char		 err[256];

	jw->next = now + JOBWATCH_PERIOD_MS;
	memset(&rq, 0, sizeof(rq));
	rq.fn = jobwatch_child;
	rq.arg = jw;
	rq.flags = SPAWN_OUT | SPAWN_PGRP;
	if (spawn_start(&sp, &rq, err, sizeof(err)) != 0) {
		log_debug("job %s: %s", jw->id, err);
		return;
	}
	jw->pid = sp.pid;
	jw->fd = sp.out;
	jw->deadline = now + JOBWATCH_DEADLINE_MS;
}

/* Keep only the characters a state word has: it reaches the screen. */
static void
jobwatch_set_state(struct jobwatch *jw, const char *w)
{
	size_t	i, k = 0;

	for (i = 0; w[i] != '\0' && k + 1 < sizeof(jw->state); i++) {
		if ((w[i] >= 'A' && w[i] <= 'Z') ||
		    (w[i] >= 'a' && w[i] <= 'z') ||
		    (w[i] >= '0' && w[i] <= '9') || w[i] == '_' ||
		    w[i] == '-' || w[i] == '+')
			jw->state[k++] = w[i];
	}
	jw->state[k] = '\0';
	if (k == 0)
		snprintf(jw->state, sizeof(jw->state), "ENDED");
}

/* The query ended with status st: read its answer and judge it. */
static void
jobwatch_collect(struct jobwatch *jw, int st)
{
	char	 buf[JOBWATCH_LINE_MAX + 1], word[32], *nl;
	size_t	 len = 0;
	ssize_t	 n;
	int	 r;

	while (len < sizeof(buf) - 1 &&
	    (n = read(jw->fd, buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(jw->fd);
	jw->fd = -1;
	jw->pid = -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    sscanf(buf, "%d %31s", &r, word) != 2) {
		log_debug("job %s: the scheduler query failed (status %d)",
		    jw->id, st);
		return;
	}
	if ((nl = strchr(buf, '\n')) != NULL)
		nl++;
	switch (r) {
	case SCHED_OK:
		jw->gone = 0;
		return;
	case SCHED_EFINISHED:
	case SCHED_EPENDING:	/* requeued: this run of it is over */
		jw->ended = 1;
		jobwatch_set_state(jw, word);
		break;
	case SCHED_ENOJOB:
		if (++jw->gone < JOBWATCH_GONE_TIMES)
			return;
		jw->ended = 1;
		jobwatch_set_state(jw, "ENDED");
		break;
	default:
		/* A scheduler that did not answer: ask again later. */
		log_debug("job %s: %s", jw->id, nl != NULL ? nl : "");
		return;
	}
	log_debug("job %s has ended: %s", jw->id, jw->state);
}

/* Kill the query running and its process group; reap it. */
static void
jobwatch_kill(struct jobwatch *jw)
{
	if (jw->pid <= 0)
		return;
	kill(-jw->pid, SIGKILL);
	kill(jw->pid, SIGKILL);
	while (waitpid(jw->pid, NULL, 0) == -1 && errno == EINTR)
		;
	close(jw->fd);
	jw->fd = -1;
	jw->pid = -1;
}

int
jobwatch_step(struct jobwatch *jw, uint64_t now)
{
	pid_t	r;
	int	st;

	if (jw->ended)
		return -1;
	if (jw->pid > 0) {
		r = waitpid(jw->pid, &st, WNOHANG);
		if (r == jw->pid)
			jobwatch_collect(jw, st);
		else if (r == -1 && errno != EINTR) {
			log_debug("job %s: waitpid: %s", jw->id,
			    strerror(errno));
			close(jw->fd);
			jw->fd = -1;
			jw->pid = -1;
		} else if (now >= jw->deadline) {
			log_debug("job %s: the scheduler did not answer in "
			    "%d s", jw->id, JOBWATCH_DEADLINE_MS / 1000);
			jobwatch_kill(jw);
		}
		if (jw->ended)
			return -1;
		/* A period between one answer and the next question. */
		if (jw->pid < 0)
			jw->next = now + JOBWATCH_PERIOD_MS;
	}
	if (jw->pid < 0 && now >= jw->next)
		jobwatch_start(jw, now);
	if (jw->pid > 0)
		return jw->deadline <= now ? 0 : jw->deadline - now <
		    JOBWATCH_POLL_MS ? (int)(jw->deadline - now) :
		    JOBWATCH_POLL_MS;
	return jw->next <= now ? 0 : (int)(jw->next - now);
}

int
jobwatch_ended(const struct jobwatch *jw)
{
	return jw != NULL && jw->ended;
}

const char *
jobwatch_state(const struct jobwatch *jw)
{
	return jw != NULL && jw->ended ? jw->state : "";
}

void
jobwatch_free(struct jobwatch *jw)
{
	if (jw == NULL)
		return;
	jobwatch_kill(jw);
	free(jw->sched);
	free(jw->id);
	free(jw);
}
