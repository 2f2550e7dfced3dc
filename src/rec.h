/* SPDX-License-Identifier: ISC */
/*
 * rec: session recordings (the format is specified in src/PROTOCOL.md,
 * "Recording format").  A recording is an append-only file of checksummed
 * blocks: a header with the job's metadata, then every byte each node's
 * probe sent (cut at frame boundaries, with its arrival time), the
 * monitor's events, and every so often a keyframe (per node, the HELLO and
 * SCHEMA frames plus a synthetic SAMPLE of the full state) with an index of
 * keyframes, so a reader can start at any keyframe instead of the start.
 * Replay feeds the recorded frames to the same stream decoder as live.
 *
 * Writing (rec-write.c): rec_open, then from the poll loop rec_node_bytes
 * for every read a node's feed delivers (before decoding it),
 * rec_node_restart when a node's transport starts a new probe stream,
 * rec_event for the monitor's own events (node lost or back, later
 * stalls), rec_tick once a loop; rec_close at the end.  Each block is one
 * write(): a monitor killed with SIGKILL leaves every block it wrote.  A
 * write error (a full disk) stops the recording, never the monitor: the
 * call that stopped it returns -1 and rec_error says why.
 *
 * Reading (rec-read.c): rec_reader_open checks the header, finds the index
 * (from the tail, or by scanning backwards after a crash) and returns
 * blocks in file order; a torn last block ends the file with a warning.
 * rec_play sits on top: one stream decoder per node, decoded messages out,
 * and seeking to any time through the keyframes.
 *
 * All functions return error codes (WIRE_* and REC_ERR_*) and never log or
 * exit, except through xmalloc on out-of-memory.
 */
#ifndef JOBTOP_REC_H
#define JOBTOP_REC_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "stream.h"

#define REC_MAGIC		"JTRC"
/* Bump REC_MAJOR if an encoding below changes incompatibly; new block
 * types and trailing fields (which old readers skip) bump REC_MINOR. */
#define REC_MAJOR		1
#define REC_LIMIT_UNKNOWN	(-1)	/* rec_meta.time_limit */
#define REC_LIMIT_NONE		(-2)
#define REC_MINOR		2
/* Minor 1: the live run hid each probe's first sample (seq 0, the base of
 * its rates; PROTOCOL.md), so a replay that prints what it printed hides
 * it too.  Minor 0 showed it. */
#define REC_MINOR_HIDES_BASE	1
/* Minor 2: every EVENT block ends with its subject, typed (struct
 * rec_subject): readers stop parsing the rank out of a detector's text and
 * the phase out of a state's.  Older files have only the texts. */
#define REC_MINOR_SUBJECT	2

#define REC_BLOCK_MAX		(16u << 20)	/* payload bytes */
#define REC_BLOCK_HDR_MAX	10	/* type, 5-byte length, CRC */
#define REC_NODES_MAX		(1u << 20)
#define REC_KEYFRAME_MS		60000	/* default keyframe interval */
#define REC_SYNC_MS		5000	/* flush to disk at most this often */
#define REC_NODE_NONE		UINT32_MAX	/* an event of the whole job */

enum rec_block_type {
	REC_BLK_META = 1,	/* first block: the job's metadata */
	REC_BLK_DATA = 2,	/* bytes a node's probe sent */
	REC_BLK_EVENT = 3,	/* the monitor's event */
	REC_BLK_KEY = 4,	/* one node's keyframe */
	REC_BLK_INDEX = 5,	/* time -> offset of keyframe sets */
	REC_BLK_TAIL = 6,	/* last block: where the full index is */
	REC_BLK_RESTART = 7,	/* a node's new probe stream begins */
};

/* What a keyframe holds for its node. */
enum rec_key_state {
	REC_KEY_EMPTY = 0,	/* nothing decoded yet: a fresh decoder */
	REC_KEY_STREAM = 1,	/* frames that rebuild the decoder's state */
	REC_KEY_BROKEN = 2,	/* the stream broke: its data is unusable */
	REC_KEY_NOSTATE = 3,	/* state too large for one frame */
};

/* Reader errors besides the WIRE_* codes. */
#define REC_ERR_IO		-40	/* read failed (errno in the text) */
#define REC_ERR_MAGIC		-41	/* not a recording */
#define REC_ERR_DAMAGED		-42	/* a bad block inside the file */

/* A recording's metadata (the META block). */
struct rec_meta {
	uint64_t	 start_ms;	/* unix ms; block times count from it */
	uint32_t	 interval_ms;	/* the sampling interval asked for */
	uint32_t	 keyframe_ms;
	uint64_t	 count;		/* samples per node shown live (-n),
					   0: no limit */
	long		 ntasks;	/* tasks the scheduler expects, -1
					   unknown (a later addition) */
	/* The job's allocation as the scheduler gave it (later additions
	 * too): 0, -1 or "" when unknown. */
	uint64_t	 cpus;		/* CPUs in all */
	uint64_t	 mem;		/* memory in all, bytes */
	int64_t		 time_limit;	/* s; -1 unknown, -2 none */
	char		 partition[PROTO_NAME_MAX];	/* or queue */
	uint8_t		 major, minor;	/* of the file (reading) */
	char		 version[PROTO_NAME_MAX];	/* jobtop's */
	char		 job[PROTO_TEXT_MAX];	/* job id, "" for a hostlist */
	char		 name[PROTO_TEXT_MAX];	/* job name */
	char		 user[PROTO_TEXT_MAX];
	char		 host[PROTO_HOST_MAX];	/* where the monitor ran */
	unsigned	 nnodes;
	char		**nodes;	/* names as the user gave them */
	/* The GPUs the scheduler allocated on each node (a later addition;
	 * job->gpus): bit k for its GPU index k, 0 none, -1 unknown; NULL
	 * when it did not say.  nnodes entries. */
	int64_t		*gpus;
};

/* Fill a meta with defaults (this jobtop, now); the caller sets the job
 * and the nodes.  Free the nodes with rec_meta_free. */
void	 rec_meta_init(struct rec_meta *, uint64_t);
void	 rec_meta_set_nodes(struct rec_meta *, unsigned, const char *const *);
void	 rec_meta_free(struct rec_meta *);


/* Writing. */
struct rec;

/*
 * The default path: $XDG_STATE_HOME/jobtop/ (or ~/.local/state/jobtop/)
 * then "<job or first node>-<YYYYmmdd-HHMMSS>.jtr" in local time.
 * Allocated; NULL when there is no home.
 */
char	*rec_default_path(const char *, uint64_t);
/*
 * The newest recording of a job (or, for a session of -w nodes, of its
 * first node) in the default directory: the one whose name has the
 * latest time, then the highest "-N".  Allocated; NULL with the reason in
 * err when there is none.
 */
char	*rec_find_latest(const char *, char *, size_t);
/*
 * What -r, export and report take: a recording's path, or, when no such
 * file exists and the argument looks like a job id or a node name (no
 * '/'), the newest recording of that job or node (rec_find_latest).
 * Allocated; NULL with "ARG: no such file, and ..." in err.
 */
char	*rec_resolve(const char *, char *, size_t);

/* How rec_open creates its file.  Recordings are created 0600 (they hold
 * other users' command names) and never through a symbolic link. */
enum rec_create {
	REC_CREATE_NEW = 0,	/* -o FILE: an existing name is an error */
	REC_CREATE_DEFAULT = 1,	/* the default path: its directory is made
				   (0700, and made private when it is the
				   caller's), a taken name gets "-2"... */
	REC_CREATE_FORCE = 2,	/* -o FILE --force: a regular file of the
				   caller's is replaced (by rename) */
};
/*
 * Create a recording at path as asked and write its header.  NULL with
 * the reason in err on failure.  Only REC_CREATE_DEFAULT makes missing
 * directories.
 */
struct rec *rec_open(const char *, const struct rec_meta *, enum rec_create,
	    char *, size_t);
/* The path actually written. */
const char *rec_path(const struct rec *);
/* A warning from the open (the default directory is open to others and
 * could not be made private), or NULL. */
const char *rec_warning(const struct rec *);
/* Bytes written so far. */
uint64_t rec_size(const struct rec *);
/*
 * Bytes a node's probe sent, at wall-clock ms now: complete frames are
 * written at once, a partial one when it completes.  A stream that breaks
 * the framing is written raw from there on, with an event.  0, or -1 when
 * this call stopped the recording (rec_error says why); calls on a
 * stopped recording do nothing and return 0.
 */
int	 rec_node_bytes(struct rec *, unsigned, uint64_t, const void *,
	    size_t);
/* The node's probe stream ended; the next bytes begin a new one. */
int	 rec_node_restart(struct rec *, unsigned, uint64_t);
/* Keyframes from these models (the live session's decoders, which decode
 * every byte rec_node_bytes was given, in order) instead of a decoder of
 * the recorder's own: one decoder per node.  fn(arg, node) returns NULL
 * for a node whose decoder refused a frame.  Without it (tests, tools)
 * the recorder decodes what it writes itself. */
void	 rec_set_models(struct rec *, const struct node_model *(*)(void *,
	    unsigned), void *);
/*
 * What a monitor event is about, beside its text (minor 2 on): the rank id
 * and process a detector's flag or a rank's coming and going names, and
 * for code "state" the node's phase.  -1 in a field: none (a node's flag
 * has no rank; a process without a rank id has a pid only).
 */
struct rec_subject {
	int64_t		 rank;		/* rank id, -1 none */
	int64_t		 pid;		/* process id, -1 none */
	int		 phase;		/* "state": enum feed_phase (feed.h),
					   -1 none or one this jobtop does
					   not know */
};
/* Fill a subject with "none" in every field. */
void	 rec_subject_none(struct rec_subject *);
/*
 * A monitor event about a node (REC_NODE_NONE: the job), with its subject
 * (NULL: none).  Code "state" records a node's state text ("live",
 * "lost: ...") and its phase in the subject.
 */
int	 rec_event(struct rec *, unsigned, uint64_t, uint8_t, const char *,
	    const char *, const struct rec_subject *);
/* Keyframes and flushes that are due; call once per loop. */
int	 rec_tick(struct rec *, uint64_t);
/* Write out the blocks gathered so far (batch mode calls it before any
 * output reaches stdout); -1 if that stopped the recording. */
int	 rec_flush(struct rec *);
/* Milliseconds until rec_tick has work, for the poll timeout. */
int	 rec_timeout(const struct rec *, uint64_t);
/* Why the recording stopped ("No space left on device (PATH)"), or NULL
 * while it records. */
const char *rec_error(const struct rec *);
/* Append a block of any type (tests; later minor additions). */
int	 rec_put_block(struct rec *, uint8_t, const void *, size_t);
/* Flush what is pending, write the full index and the tail, close and
 * free.  0, or -1 when the close itself failed (the text is in err); a
 * recording that had stopped before was reported then and gives 0. */
int	 rec_close(struct rec *, char *, size_t);

/* Reading. */
struct rec_reader;

/* One block as the reader returns it; data points into the reader and is
 * valid until the next call. */
struct rec_block {
	uint8_t		 type;		/* enum rec_block_type, or unknown */
	uint64_t	 offset;	/* in the file */
	uint32_t	 node;		/* DATA, KEY, RESTART, EVENT */
	uint64_t	 time_ms;	/* unix ms */
	uint8_t		 key_state;	/* KEY: enum rec_key_state */
	const uint8_t	*data;		/* DATA bytes, KEY frames, payload */
	size_t		 len;
	struct proto_event ev;		/* EVENT */
	struct rec_subject subj;	/* EVENT: all -1 when none recorded */
	int		 typed;		/* EVENT: subj was recorded (minor 2
					   on), else only the text says */
};

/* A keyframe set: its time and the offset of its first KEY block. */
struct rec_index_entry {
	uint64_t	 time_ms;
	uint64_t	 offset;
};

/* Open a recording: 0, or an error code with one phrase in err
 * ("not a jobtop recording", "recording format 2.0 is newer..."). */
int	 rec_reader_open(const char *, struct rec_reader **, char *, size_t);
/* The same over bytes in memory (not copied: keep them while open). */
int	 rec_reader_open_mem(const void *, size_t, struct rec_reader **,
	    char *, size_t);
void	 rec_reader_free(struct rec_reader *);
/* Fuzzing only: read blocks whatever their CRC says. */
void	 rec_reader_ignore_crc(int);
const struct rec_meta *rec_reader_meta(const struct rec_reader *);
/* Time of the last complete block (unix ms). */
uint64_t rec_reader_end_ms(const struct rec_reader *);
/* The keyframe sets found, oldest first. */
size_t	 rec_reader_index(const struct rec_reader *,
	    const struct rec_index_entry **);
/* Was the file closed properly (it ends with a tail)? */
int	 rec_reader_complete(const struct rec_reader *);
/* The next block: 1, 0 at the end of the data, or a negative code at
 * damage inside the file (every block before it was returned).  Unknown
 * block types are returned as they are; callers skip them. */
int	 rec_reader_next(struct rec_reader *, struct rec_block *);
/* The next block of one type, the others skipped by their headers
 * without reading them (a quick pass over a big file): as
 * rec_reader_next. */
int	 rec_reader_next_of(struct rec_reader *, uint8_t, struct rec_block *);
/* Continue reading at this offset (a block start). */
void	 rec_reader_set_offset(struct rec_reader *, uint64_t);
uint64_t rec_reader_offset(const struct rec_reader *);
/* "truncated at byte N" when the file ends inside a block (a crash), or
 * NULL. */
const char *rec_reader_warning(const struct rec_reader *);
/* The error rec_reader_next returned, as one phrase. */
const char *rec_reader_error(const struct rec_reader *);

/* Playing: decoded messages from every node. */
struct rec_play;

/* Message types besides MSG_*. */
#define REC_MSG_EVENT		100	/* a monitor event (msg.ev) */
#define REC_MSG_STREAM_ERR	101	/* the node's stream broke (msg.text) */
#define REC_MSG_RESTART		102	/* the node's new stream begins */

struct rec_msg {
	int		 type;		/* MSG_* or REC_MSG_* */
	uint32_t	 node;		/* REC_NODE_NONE: the job */
	uint64_t	 time_ms;	/* when it arrived */
	const struct proto_event *ev;	/* MSG_EVENT, REC_MSG_EVENT */
	/* REC_MSG_EVENT: what it is about as recorded (minor 2 on); NULL
	 * in older recordings and for a probe's events, whose texts are
	 * all there is (rec_subject_from_text). */
	const struct rec_subject *subj;
	const char	*text;		/* REC_MSG_STREAM_ERR */
};

/*
 * The subject of an event recorded without one (a recording before minor
 * 2, a probe's event), as readers have always read it from the text: a
 * detector's flag (codes "stalled", "memory"... and "-cleared") that
 * begins "rank N" is about rank N, one that begins "pid P" about process
 * P; a "state" that begins "lost" is FEED_LOST, "failed" FEED_FAILED, any
 * other state no phase.  Readers use it only when msg.subj is NULL.
 */
void	 rec_subject_from_text(const struct proto_event *,
	    struct rec_subject *);
/* The subject of an event: subj when recorded, else from the text into
 * buf.  Never NULL. */
const struct rec_subject *rec_subject_of(const struct proto_event *,
	    const struct rec_subject *, struct rec_subject *);

/* A player over an open reader (which it does not own). */
struct rec_play *rec_play_new(struct rec_reader *);
void	 rec_play_free(struct rec_play *);
/* The next message: 1, 0 at the end, or the reader's negative code. */
int	 rec_play_next(struct rec_play *, struct rec_msg *);
/*
 * Go to time t (unix ms): every node's decoder holds the state after all
 * data that arrived at or before t, rebuilt from the last keyframe before
 * it; rec_play_next goes on from there.  0 or a negative code.
 */
int	 rec_play_seek(struct rec_play *, uint64_t);
/*
 * The next message that arrived at or before t (unix ms): 1, or 0 when
 * every message up to t was returned, with *next_ms the arrival of the
 * next block (UINT64_MAX at the end), or the reader's negative code.
 * Nothing that arrived after t is decoded: a player on a clock.
 */
int	 rec_play_until(struct rec_play *, uint64_t, struct rec_msg *,
	    uint64_t *);
/* A node's decoder (and model). */
struct stream *rec_play_stream(struct rec_play *, unsigned);
unsigned rec_play_nnodes(const struct rec_play *);
/* Time of the last block played. */
uint64_t rec_play_time(const struct rec_play *);

#endif
