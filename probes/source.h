/* SPDX-License-Identifier: ISC */
/*
 * The probe's metric sources.  A source is one file, probes/src-<name>.c,
 * exporting one `const struct source`; probes/sources.c lists them all in
 * one registry.  At start-up each source's init decides whether it is on
 * (and if not, says why: that text reaches the monitor in HELLO).  Every
 * sample, each enabled source reads its files and writes values into
 * instances of its groups; the probe core diffs them against the previous
 * sample and sends only what changed.
 *
 * A group is what the schema names: "cpu", "mem", "disk", "rank".  It has
 * up to PINST_FIELDS fields, each a gauge, a counter (raw, monotonic) or a
 * string.  An instance is one row of a group: "" for node-wide groups, the
 * device, interface, core or pid otherwise.  An instance not touched during
 * a sample is dropped; a field not set during a sample is absent.
 *
 * Sources must not call malloc after init: keep file descriptors open and
 * read them with pread into static buffers (probe_pread).
 */
#ifndef JOBTOP_SOURCE_H
#define JOBTOP_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto.h"

#define PINST_FIELDS	36	/* fields per group the probe supports */
#define PINST_STRS	5	/* string fields per group */
#define PINST_STRLEN	64	/* bytes per string value, with the NUL */
#define PINST_TEXTS	4	/* long texts per instance (pinst_set_text) */
#define PINST_MAX	4096	/* live instances, all groups together */

struct field_def {
	const char	*name;
	const char	*unit;	/* see PROTOCOL.md: bytes, jiffies, ... */
	uint8_t		 kind;	/* PF_GAUGE, PF_COUNTER, PF_STRING */
};

struct group_def {
	const char		*name;
	const struct field_def	*fields;
	unsigned		 nfields;
};

/* What the probe was asked to do. */
struct probe_conf {
	const char	*root;		/* "" or a fixture tree prefix */
	const char	*job;		/* job id, or NULL: the user's processes */
	const char	*nvml;		/* jobtop-nvml to run, or NULL */
	double		 interval;	/* seconds */
	long		 count;		/* samples, 0 = until stdin closes */
	uid_t		 uid;		/* the probe's real uid */
	int64_t		 owner;		/* --uid: the job owner's, or -1 */
	const char	*step;		/* --step: the Slurm step to show
					 * ("0", "batch", "extern"), or NULL:
					 * the job's best step class */
	const char	*sluid;		/* --sluid: the job's Slurm SLUID, or
					 * NULL (ranks.h) */
	pid_t		 self;		/* the probe's pid */
	uint32_t	 clk_tck;
	uint32_t	 page_size;
	uint32_t	 ncpu;
};

struct source {
	const char		 *name;
	const struct group_def	**groups;	/* NULL-terminated */
	/* 0 when on; -1 when off, with the reason written to why. */
	int			(*init)(const struct probe_conf *, char *,
				    size_t);
	void			(*sample)(const struct probe_conf *);
};

/*
 * The registry (probes/sources.c).  How to add a source: write
 * probes/src-<name>.c with its group tables and a `const struct source
 * src_<name>`, declare it below, and list it in sources[] in the order its
 * values should appear.
 */
extern const struct source *const sources[];

extern const struct source src_cpu;
extern const struct source src_mem;
extern const struct source src_load;
extern const struct source src_disk;
extern const struct source src_net;
extern const struct source src_self;
extern const struct source src_ranks;
extern const struct source src_kstack;
extern const struct source src_delayacct;
extern const struct source src_ib;
extern const struct source src_lustre;
extern const struct source src_nfs;
extern const struct source src_numa;
extern const struct source src_cgroup;
extern const struct source src_nvgpu;
extern const struct source src_amdgpu;
extern const struct source src_rapl;
extern const struct source src_thermal;
extern const struct source src_power;
extern const struct source src_ipmi;
extern const struct source src_perf;
extern const struct source src_mpi;

struct pinst;

/* Find or create this sample's instance of a group by name; NULL when the
 * table is full (the value is then not reported this sample). */
struct pinst	*probe_inst(const struct group_def *, const char *);
void		 pinst_set(struct pinst *, unsigned, int64_t);
void		 pinst_set_str(struct pinst *, unsigned, const char *);
/* A string field longer than PINST_STRLEN (up to PROTO_TEXT_MAX - 1
 * bytes), PINST_TEXTS per instance: the source keeps the text, which must
 * stay unchanged until the next sample, and says whether it changed since
 * it last set it (it is sent then, or when it was absent).  String fields
 * of a group past its first PINST_STRS can only be set this way. */
void		 pinst_set_text(struct pinst *, unsigned, const char *, int);
/* The value this field had in the previous sample, if it was present. */
int		 pinst_prev(const struct pinst *, unsigned, int64_t *);

/* The monotonic clock in microseconds. */
uint64_t	 probe_mono_us(void);
/* Bytes the probe has written to its output so far (the self source). */
uint64_t	 probe_bytes_sent(void);
/* Report a problem to the monitor as an EVENT frame (rate-limited per
 * code: the same code is sent once). */
void		 probe_event(int, const char *, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

/* File access under conf->root.  probe_open returns an fd or -1;
 * probe_pread reads the whole file from offset 0 into buf (NUL-terminated,
 * at most size-1 bytes) and returns the length or -1. */
int		 probe_open(const char *);
ssize_t		 probe_pread(int, char *, size_t);
ssize_t		 probe_read_file(const char *, char *, size_t);
int		 probe_read_line(const char *, char *, size_t);
unsigned	 probe_list_nums(const char *, const char *, const char *,
		     int *, unsigned);
/* The thread ids in /proc/PID/task (under --root), at most max, in the
 * kernel's order (the main thread first); how many, -1 when it is gone. */
int		 probe_list_tasks(pid_t, pid_t *, int);
/* Set the prefix every path is read under (--root). */
void		 probe_set_root(const char *);
/* Build root + path into buf; returns buf. */
char		*probe_path(char *, size_t, const char *);

/* Run path with argv in a child of the probe: it dies with the probe
 * (PR_SET_PDEATHSIG SIGKILL), has SIGPIPE's default action, /dev/null as
 * standard input and a pipe as standard output, whose read end (non-
 * blocking, close-on-exec: no later child inherits it) goes to *fd.  Its
 * standard error goes to /dev/null (PROBE_SPAWN_ERRNULL) or into the pipe
 * too (PROBE_SPAWN_ERRPIPE: the program's messages, and "cannot run PATH:
 * REASON" when the exec fails).
 * Returns the child's pid (the caller reaps it), or -1 with errno set. */
#define PROBE_SPAWN_ERRNULL	0
#define PROBE_SPAWN_ERRPIPE	1
pid_t		 probe_spawn(const char *, char *const [], int, int *);

/* Parsing helpers: skip spaces, read an unsigned or signed decimal. */
const char	*probe_skip_space(const char *);
const char	*probe_parse_u64(const char *, uint64_t *);
const char	*probe_parse_i64(const char *, int64_t *);
/* Find "key" at a line start in a "key: value" or "key value" file and
 * parse the number after it. */
int		 probe_find_u64(const char *, const char *, uint64_t *);

#endif
