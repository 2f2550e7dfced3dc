/* SPDX-License-Identifier: ISC */
/*
 * backtrace: a user-space backtrace of a process, taken by a debugger
 * (gdb -batch, else eu-stack) with a time limit: on this machine as a
 * child, or on a node through an extra exec channel of the node's SSH
 * feed (feed_exec_start), the debugger found there with `command -v`.
 * Nothing blocks: the caller polls the child's output descriptor in its
 * loop (-1 for a remote one, which the session's poll drives), calls
 * backtrace_read when it is readable and backtrace_check on every
 * wake-up (reaping, the deadline).  One backtrace at a time.  When the
 * kernel refuses ptrace, the status says so and why (yama's ptrace_scope
 * on the machine that ran the debugger).
 */
#ifndef JOBTOP_BACKTRACE_H
#define JOBTOP_BACKTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BACKTRACE_TIMEOUT_MS	15000
#define BACKTRACE_REMOTE_LIMIT	12	/* s: the debugger's own, remote */
#define BACKTRACE_OUTPUT_MAX	65536

struct backtrace;
struct feed;

/* Start one for pid at now_ms.  NULL with the reason in err (no debugger
 * in PATH, fork failed). */
struct backtrace *backtrace_start(pid_t, uint64_t, char *, size_t);
/* Start one for pid on the node of this SSH session (named node, for
 * messages).  NULL with the reason in err (the node is not live). */
struct backtrace *backtrace_start_remote(struct feed *, const char *, pid_t,
		     uint64_t, char *, size_t);
/* Kill the child if it still runs, reap it, free everything. */
void		 backtrace_free(struct backtrace *);
/* The descriptor to poll for input, -1 once at EOF. */
int		 backtrace_fd(const struct backtrace *);
/* Read what is ready (never blocks). */
void		 backtrace_read(struct backtrace *);
/* Reap the child or kill it past its deadline; 1 once finished. */
int		 backtrace_check(struct backtrace *, uint64_t);
/* Milliseconds until the deadline, -1 once finished. */
int		 backtrace_timeout(const struct backtrace *, uint64_t);
int		 backtrace_done(const struct backtrace *);
pid_t		 backtrace_pid(const struct backtrace *);
/* The output so far, and how it ended ("gdb exited with status 0",
 * "timed out after 15 s"; "" while running). */
const char	*backtrace_text(const struct backtrace *);
const char	*backtrace_status(const struct backtrace *);
/* The debugger's name ("gdb", "eu-stack"; "debugger" until a remote
 * node said which). */
const char	*backtrace_tool(const struct backtrace *);

#endif
