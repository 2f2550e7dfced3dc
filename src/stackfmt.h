/* SPDX-License-Identifier: ISC */
/*
 * stackfmt: the user-space stacks of a job's ranks, as text, shared by the
 * probe (jobtop-probe --stacks, probes/stacks.c) and the monitor
 * (stacks.c).  Three parsers and one writer, libc only, no exit, no log:
 *
 *  - stk_parse_debugger: what eu-stack (-m) or gdb (bt, thread apply all
 *    bt) printed for one process, into its threads' frames;
 *  - the node's compact answer (PROTOCOL.md, "Stacks"): only the distinct
 *    stacks of a node travel, each once, with the ranks that had it in
 *    each take as a range list; stk_decode reads it back;
 *  - range lists ("0-1,3"): stk_ranges_write and stk_ranges_parse.
 *
 * A stack is its frames outermost first (root = _start), each a function
 * name or "?? (libfoo.so)" when the debugger had no name, cleaned of
 * control characters and tabs.
 */
#ifndef JOBTOP_STACKFMT_H
#define JOBTOP_STACKFMT_H

#include <stddef.h>
#include <stdint.h>

#define STK_VERSION		1
#define STK_NAME_MAX		255	/* a frame's name, bytes */
#define STK_FRAMES_MAX		1024	/* frames of one stack */
#define STK_STACKS_MAX		65536	/* distinct stacks of a node */
#define STK_RANKS_MAX		(1 << 20)	/* ranks named in one list */
#define STK_LINE_MAX		(1 << 20)

/* One thread's stack as a debugger printed it. */
struct stk_thread {
	long		 tid;		/* 0: not said (gdb's plain bt) */
	unsigned	 nframes;
	char		**frames;	/* outermost first, allocated */
	unsigned char	*lib;		/* 1: in a shared library */
	int		 cut;		/* frames past the cap were dropped */
};

struct stk_proc {
	unsigned		 nthreads;
	struct stk_thread	*threads;
};

enum stk_tool {
	STK_EUSTACK,
	STK_GDB
};

/*
 * Parse a debugger's output (stdout and stderr together; lines that are
 * neither a thread header nor a frame are skipped).  exe, when not NULL,
 * is the process's executable: eu-stack -m's frames in another module are
 * library frames; gdb's are those it says are "from" a library.  At most
 * maxframes frames a thread (the innermost are kept, the cut is marked)
 * and maxthreads threads.  0, or -1 with the reason in err (out of memory,
 * no frame at all).
 */
int	 stk_parse_debugger(enum stk_tool, const char *, size_t, const char *,
	    unsigned, unsigned, struct stk_proc *, char *, size_t);
void	 stk_proc_free(struct stk_proc *);

/* The call path of a stack, for progress: its frames from the outermost
 * through the first library frame below the innermost frame of the
 * program itself (where the program called into a library: PMPI_Allreduce,
 * read).  Returns how many frames of t that is. */
unsigned stk_callpath_len(const struct stk_thread *);

/* Write a frame name cleaned (no control characters, no tab, at most
 * STK_NAME_MAX bytes) into dst of size dstsz. */
void	 stk_clean(char *, size_t, const char *, size_t);

/* A sorted list of ids (duplicates allowed) as "0-1,3" into dst (cut at
 * dstsz with "..." when it does not fit).  Returns the length it needed. */
size_t	 stk_ranges_write(char *, size_t, const int64_t *, size_t);
/* Parse "0-1,3" (ids 0..2^31-1, ascending, at most max in all) into an
 * allocated array: its count, or -1 (bad syntax, too many). */
long	 stk_ranges_parse(const char *, size_t, size_t, int64_t **);

/* A node's decoded answer. */
struct stk_take {
	unsigned	 take;		/* 1 or 2 */
	unsigned	 stack;		/* index into stacks */
	unsigned	 nthreads;	/* threads with it, >= nranks */
	int		 kernel;	/* a kernel stack (/proc/PID/stack) */
	size_t		 nranks;
	int64_t		*ranks;
};

struct stk_err {
	char		*why;
	size_t		 nranks;
	int64_t		*ranks;
};

struct stk_node {
	unsigned	 version;
	char		 tool[16];
	long		 as_uid;	/* -1: not dropped */
	unsigned	 gap_ms;
	unsigned	 frames;	/* the cap used */
	unsigned	 takes;		/* 1 or 2 */
	unsigned	 take_ms[2];	/* wall time of each take */
	unsigned	 cpu_ms;	/* CPU of the probe and its debuggers */
	unsigned	 ntasks;	/* ranks asked for */
	int		 timed_out;	/* the deadline cut a take */
	int		 ended;		/* "end" was read */
	unsigned	 nstacks;
	unsigned	*nframes;
	char		***stacks;	/* [i][frame] outermost first */
	unsigned	 ntakes;
	struct stk_take	*tk;
	size_t		 nmoved, nstuck;
	int64_t		*moved, *stuck;
	unsigned	 nerrs;
	struct stk_err	*errs;
};

/* Decode a node's answer.  0, or -1 with the reason (and the line) in
 * err; what was decoded up to there stays in out for stk_node_free. */
int	 stk_decode(const char *, size_t, struct stk_node *, char *, size_t);
void	 stk_node_free(struct stk_node *);

#endif
