/* SPDX-License-Identifier: ISC */
/*
 * srun-demux: takes apart the standard output of one `srun -l` that runs
 * a `jobtop-probe --armour` per node (PROTOCOL.md, "Armour").  srun
 * interleaves its tasks' lines and puts "TASK: " before each; the demux
 * checks every armour line (format, CRC-32C, stream id, line number,
 * record order), keeps one record buffer per task so that frames of two
 * nodes are never mixed, and hands each task's records (whole probe
 * frames, the node's exact byte stream from its HELLO on) to its owner.
 *
 * A damaged line (cut, garbled, out of order, missing) breaks that task's
 * stream: it is counted, reported once through the broken hook, and the
 * task's lines are skipped until a new stream starts (a line 0).  Parsing
 * itself never loses step: every newline starts a fresh line, and a line
 * longer than SDEMUX_LINE_MAX is cut off and counted as damaged.
 */
#ifndef JOBTOP_SRUN_DEMUX_H
#define JOBTOP_SRUN_DEMUX_H

#include <stddef.h>
#include <stdint.h>

/* A line as srun writes it: label and armour line (372 bytes).  srun's
 * messages are 1024 bytes: a longer line would be split and labelled
 * again in the middle. */
#define SDEMUX_LINE_MAX		1024
/* The most a record may hold: what the probe writes at once (a 1 MiB
 * frame and what came with it). */
#define SDEMUX_RECORD_MAX	(2 * 1024 * 1024)
/* Raw bytes a line carries at most, and a line's length at most. */
#define SDEMUX_RAW_MAX		255
#define SDEMUX_ARMOUR_MAX	400

struct sdemux;

struct sdemux_hooks {
	void	*arg;
	/* Task's stream begins; name is the node's name (its N line). */
	void	(*start)(void *, unsigned, const char *);
	/* A whole record of task's stream: probe frames. */
	void	(*data)(void *, unsigned, const void *, size_t);
	/* Task's stream broke (once per stream): why. */
	void	(*broken)(void *, unsigned, const char *);
	/* A line that is not armour, task or -1 without a label (srun's
	 * and the shell's own words: errors of a task). */
	void	(*text)(void *, int, const char *);
};

struct sdemux_stats {
	uint64_t	lines;		/* every line */
	uint64_t	armour;		/* good armour lines */
	uint64_t	damaged;	/* armour lines refused */
	uint64_t	skipped;	/* lines of a broken stream */
	uint64_t	text;		/* lines that are not armour */
	uint64_t	records;
};

/* Tasks 0 .. ntasks-1; a label outside that is text. */
struct sdemux	*sdemux_new(const struct sdemux_hooks *, unsigned);
void		 sdemux_free(struct sdemux *);
/* srun's standard output, as it comes. */
void		 sdemux_input(struct sdemux *, const void *, size_t);
/* The end of it: a line cut short counts as damaged. */
void		 sdemux_end(struct sdemux *);
const struct sdemux_stats *sdemux_stats(const struct sdemux *);

/*
 * One armour line, as the probe writes it (for tests and the fuzzer):
 * "J1 SID SEQ KIND BASE64 CRC\n" into buf (at least SDEMUX_ARMOUR_MAX
 * bytes); len at most SDEMUX_RAW_MAX.  Returns the line's length.
 */
size_t		 sdemux_encode(char *, uint32_t, uint32_t, char,
		    const void *, size_t);

#endif
