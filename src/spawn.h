/* SPDX-License-Identifier: ISC */
/*
 * spawn: the one way the monitor starts a child process.  A child gets
 * pipes for the standard descriptors it is given (the parent's ends
 * non-blocking and close-on-exec, for the caller's poll loop), /dev/null
 * for the others, default signal dispositions and an empty signal mask,
 * PR_SET_PDEATHSIG(SIGKILL) so that it dies with the monitor even after a
 * kill -9, and every other descriptor closed at exec.  It may get its own
 * process group (then spawn_kill signals the whole group: what a shell or
 * ssh started dies with it) and a deadline after which the caller kills
 * it.  An exec failure is reported by spawn_start itself, through a
 * close-on-exec pipe, not as a child exiting 127.
 *
 * With SPAWN_DROP the child becomes another user before exec: setgroups
 * (the groups given, or none), setresgid and setresuid, in that order, so
 * that no root privilege is left; the parent-death signal, which the
 * kernel clears on a change of credentials, is set again after the switch.
 *
 * The child may also run a function instead of a program (fn): it then
 * gets the same descriptors, every other one closed, and must end with
 * _exit.
 */
#ifndef JOBTOP_SPAWN_H
#define JOBTOP_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SPAWN_IN	0x01	/* a pipe to the child's stdin */
#define SPAWN_OUT	0x02	/* a pipe from its stdout */
#define SPAWN_ERR	0x04	/* a pipe from its stderr */
#define SPAWN_ERR2OUT	0x08	/* stderr into the stdout pipe */
#define SPAWN_PGRP	0x10	/* its own process group */
#define SPAWN_SETSID	0x20	/* its own session (no terminal) */
#define SPAWN_NODEATH	0x40	/* no PR_SET_PDEATHSIG */
#define SPAWN_DROP	0x80	/* become uid/gid with groups (none when
				 * ngroups is 0), in dir when given */

struct spawn {
	pid_t		 pid;		/* -1 once reaped, or never started */
	int		 in, out, err;	/* parent's ends, -1 when closed */
	int		 flags;
	uint64_t	 deadline;	/* monotonic ms, 0: none */
	int		 killed;	/* spawn_kill sent SIGKILL */
	int		 status;	/* wait status once reaped */
};

struct spawn_req {
	const char	*path;		/* the program; NULL with fn */
	char *const	*argv;
	char *const	*envp;		/* NULL: the monitor's environment */
	void		(*fn)(void *);	/* instead of a program */
	void		*arg;
	int		 flags;
	unsigned	 timeout_ms;	/* 0: no deadline */
	uid_t		 uid;		/* with SPAWN_DROP */
	gid_t		 gid;
	const gid_t	*groups;	/* supplementary groups, or NULL */
	size_t		 ngroups;
	const char	*dir;		/* cwd after the switch ("/" when it
					 * cannot go there), or NULL */
};

/* Start a child: 0, or -1 with the reason in err (nothing is left
 * behind).  The struct is the caller's; spawn_start fills it. */
int		 spawn_start(struct spawn *, const struct spawn_req *, char *,
		    size_t);
/* Read without blocking from one of the pipes (*fdp is sp->out or
 * sp->err): bytes read, 0 at EOF (the fd is then closed and set to -1),
 * -1 when nothing is ready, -2 on an error (closed too; errno set). */
ssize_t		 spawn_read(int *, void *, size_t);
/* Write without blocking to the child's stdin: bytes written (maybe
 * fewer), 0 when the pipe is full, -1 when it is closed or broken. */
ssize_t		 spawn_write(struct spawn *, const void *, size_t);
/* Close the child's stdin (EOF for it). */
void		 spawn_close_in(struct spawn *);
/* Milliseconds until the deadline (0: it passed), -1 without one. */
int		 spawn_timeout(const struct spawn *, uint64_t);
/* Has the deadline passed? */
int		 spawn_expired(const struct spawn *, uint64_t);
/* Signal the child, or its group when it has its own.  Nothing once
 * reaped. */
void		 spawn_kill(struct spawn *, int);
/* Reap without blocking (block 0) or blocking: 1 once reaped (status
 * set), 0 while it runs. */
int		 spawn_reap(struct spawn *, int);
/* SIGKILL (the group too), reap, close every pipe. */
void		 spawn_end(struct spawn *);
/* A wait status as text: "exited with status 1", "killed by signal 9". */
void		 spawn_describe(int, char *, size_t);
uint64_t	 spawn_now_ms(void);

#endif
