/* SPDX-License-Identifier: ISC */
/*
 * stream: the decoder of one node's probe stream, the one place that turns
 * protocol frames into a node model.  It knows nothing of where bytes come
 * from (a pipe, an SSH channel, a recording): callers hand it whatever they
 * read, in pieces of any size, and pull decoded messages out.  Nothing in
 * the input is trusted: lengths, counts, group and field indexes and
 * instance ids are all checked, and a stream that breaks any rule stops
 * with an error code instead of changing the model further.
 *
 * Use:
 *	stream_feed(s, buf, n);
 *	while ((t = stream_next(s)) > 0)
 *		...t is MSG_HELLO, MSG_SCHEMA, MSG_SAMPLE, MSG_EVENT or MSG_BYE,
 *		   already applied to stream_model(s)...
 *	if (t < 0) ...stream_error(s, ...)...
 *	at end of input: stream_finish(s)
 *
 * The bytes given to stream_feed are read in place until stream_next
 * returns 0 or an error; a partial frame is then copied, so the caller may
 * reuse its buffer.  Memory per node is the model plus at most one partial
 * frame.
 */
#ifndef JOBTOP_STREAM_H
#define JOBTOP_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "proto.h"

/* Errors besides the WIRE_* codes (frames that parse but break rules);
 * keep them consecutive, stream_strerror indexes a table by them. */
#define STREAM_ERR_NOHELLO	-20	/* first frame is not HELLO */
#define STREAM_ERR_TWICE	-21	/* a second HELLO or SCHEMA */
#define STREAM_ERR_NOSCHEMA	-22	/* SAMPLE before SCHEMA */
#define STREAM_ERR_NOINST	-23	/* item for an instance never added */
#define STREAM_ERR_DUPINST	-24	/* ADD of an instance that exists */
#define STREAM_ERR_GROUP	-25	/* ADD with an unknown group */
#define STREAM_ERR_FIELD	-26	/* field beyond the group's fields */
#define STREAM_ERR_NOTSTR	-27	/* STR on a non-string field */
#define STREAM_ERR_ISSTR	-28	/* VALS on a string field */
#define STREAM_ERR_AFTERBYE	-29	/* data after BYE */
#define STREAM_ERR_TOOMANY	-30	/* over STREAM_INST_MAX instances */
#define STREAM_ERR_STRBYTES	-31	/* strings over STREAM_STR_MAX bytes */

/* Live instances a node may have: what the probe can send (its PINST_MAX),
 * so a hostile node cannot make the monitor hold more. */
#define STREAM_INST_MAX		4096
/* Bytes of instance names and string values a node may have at once.  A
 * real probe's ranks need well under 1 MiB (4096 ranks with a comm, state,
 * wait channel and kernel stack); without a limit a node could make the
 * monitor hold 4096 instances x 64 strings x 255 bytes, twice (session
 * and recorder). */
#define STREAM_STR_MAX		(16 * 1024 * 1024)

struct stream;

/* A new decoder whose model is labelled (the node name until HELLO). */
struct stream	*stream_new(const char *);
void		 stream_free(struct stream *);

/* Give the decoder more input (see above for how long it is read). */
void		 stream_feed(struct stream *, const void *, size_t);
/* Decode and apply the next frame: a MSG_* type, 0 when more input is
 * needed, or a negative error (repeated on every later call).  Frames of
 * unknown types are skipped, as PROTOCOL.md asks. */
int		 stream_next(struct stream *);
/* The input ended: 0 when it ended between frames, else WIRE_ERR_TRUNC
 * (or the error the stream already had). */
int		 stream_finish(struct stream *);

struct node_model *stream_model(struct stream *);
/* The EVENT stream_next just returned. */
const struct proto_event *stream_event(const struct stream *);
/* Bytes consumed so far: the offset of the next frame. */
uint64_t	 stream_offset(const struct stream *);
/* Text of an error code. */
const char	*stream_strerror(int);
/* The stream's error as one phrase: "truncated frame at byte 1234",
 * "bad SAMPLE frame at byte 99: item for an instance never added". */
void		 stream_error(const struct stream *, char *, size_t);

#endif
