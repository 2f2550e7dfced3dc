/* SPDX-License-Identifier: ISC */
/*
 * proto: the probe-to-monitor wire protocol (specified in src/PROTOCOL.md).
 * Bump PROTO_MAJOR if any encoding here changes incompatibly; additions that
 * old decoders can skip (trailing HELLO fields, new message types) bump
 * PROTO_MINOR.  libc only, shared by the probe and the monitor: functions
 * return WIRE_* codes and never exit, log or touch the terminal.
 *
 * A stream is a sequence of frames: u8 type, varint payload length, payload.
 * HELLO comes first, then SCHEMA once, then SAMPLEs and EVENTs, then BYE.
 */
#ifndef JOBTOP_PROTO_H
#define JOBTOP_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#define PROTO_MAGIC		"JTOP"
#define PROTO_MAJOR		1
#define PROTO_MINOR		1

#define PROTO_FRAME_MAX		(1u << 20)	/* payload bytes */
#define PROTO_FRAME_HDR_MAX	4		/* type + 3-byte varint */
#define PROTO_NAME_MAX		64	/* group, field, source, instance names */
#define PROTO_UNIT_MAX		16
#define PROTO_TEXT_MAX		256	/* reasons, strings, event text */
#define PROTO_HOST_MAX		256
#define PROTO_MAX_SOURCES	64
#define PROTO_MAX_GROUPS	64
#define PROTO_MAX_FIELDS	64	/* per group: one bit in a mask each */
#define PROTO_INST_MAX		(1u << 24)	/* instance ids are below this */

enum proto_msg {
	MSG_HELLO = 1,
	MSG_SCHEMA = 2,
	MSG_SAMPLE = 3,
	MSG_EVENT = 4,
	MSG_BYE = 5,
};

enum proto_kind {
	PF_GAUGE = 0,		/* a level: memory used, threads */
	PF_COUNTER = 1,		/* monotonic raw counter: the monitor takes rates */
	PF_STRING = 2,		/* text: state, command, wait channel */
};

enum proto_item_kind {
	ITEM_VALS = 0,		/* changed integer fields as deltas */
	ITEM_CLEAR = 1,		/* fields that became absent */
	ITEM_ADD = 2,		/* a new instance of a group, with its name */
	ITEM_DROP = 3,		/* an instance that is gone */
	ITEM_STR = 4,		/* a string field's new value */
};

enum proto_level {
	EV_INFO = 0,
	EV_WARN = 1,
	EV_ERROR = 2,
};

/* A parsed frame; payload points into the caller's buffer. */
struct proto_frame {
	uint8_t		 type;
	const uint8_t	*payload;
	size_t		 len;
};

struct proto_source {
	char		name[PROTO_NAME_MAX];
	uint8_t		on;
	char		reason[PROTO_TEXT_MAX];	/* why it is off ("" if on) */
};

struct proto_hello {
	uint8_t		major;
	uint8_t		minor;
	char		version[PROTO_NAME_MAX];	/* probe version */
	char		host[PROTO_HOST_MAX];
	char		kernel[PROTO_TEXT_MAX];
	char		arch[PROTO_TEXT_MAX];
	uint32_t	ncpu;
	uint64_t	mem_total;	/* bytes */
	uint32_t	clk_tck;	/* jiffies per second */
	uint32_t	page_size;
	uint64_t	start_ms;	/* unix time in ms; samples count from it */
	uint32_t	interval_ms;
	char		job[PROTO_NAME_MAX];	/* job id the probe looks for */
	unsigned	nsources;
	struct proto_source sources[PROTO_MAX_SOURCES];
};

struct proto_field {
	char		name[PROTO_NAME_MAX];
	char		unit[PROTO_UNIT_MAX];
	uint8_t		kind;		/* enum proto_kind */
};

struct proto_group {
	char		 name[PROTO_NAME_MAX];
	unsigned	 nfields;
	struct proto_field *fields;
};

/* A decoded schema: one allocation, freed with proto_schema_free. */
struct proto_schema {
	unsigned	 ngroups;
	struct proto_group *groups;
};

struct proto_event {
	uint64_t	 time_ms;
	uint8_t		 level;		/* enum proto_level */
	char		 code[PROTO_NAME_MAX];
	char		 text[PROTO_TEXT_MAX];
};

/* Writer state for one SAMPLE frame. */
struct proto_sample_wr {
	struct wbuf	*w;
	size_t		 start;
	int64_t		 prev_inst;
};

/* Reader state for one SAMPLE payload. */
struct proto_sample_rd {
	struct wreader	 r;
	int64_t		 prev_inst;
	uint64_t	 seq;
	int64_t		 dt_ms;		/* time since the previous sample */
};

/* One decoded SAMPLE item; str points into the payload. */
struct proto_item {
	uint8_t		 kind;		/* enum proto_item_kind */
	uint32_t	 inst;
	uint32_t	 group;		/* ITEM_ADD */
	uint32_t	 field;		/* ITEM_STR */
	uint64_t	 mask;		/* ITEM_VALS, ITEM_CLEAR */
	unsigned	 ndeltas;	/* popcount(mask) for ITEM_VALS */
	int64_t		 deltas[PROTO_MAX_FIELDS];	/* in mask bit order */
	const char	*str;		/* ITEM_ADD name, ITEM_STR value */
	size_t		 strlen;
};

/*
 * Framing.  proto_frame_parse looks at buf: on WIRE_OK it fills f and sets
 * *used to the frame's total size; WIRE_ERR_TRUNC means more bytes are
 * needed; other codes mean the stream is broken.
 */
int	 proto_frame_parse(const uint8_t *, size_t, struct proto_frame *,
	    size_t *);
/* Begin a frame of this type at the writer's end; end it (fills in the
 * length and compacts the header).  Returns WIRE_ERR_TOOBIG past the max. */
int	 proto_frame_begin(struct wbuf *, uint8_t, size_t *);
int	 proto_frame_end(struct wbuf *, size_t);

/* HELLO */
int	 proto_put_hello(struct wbuf *, const struct proto_hello *);
int	 proto_get_hello(const uint8_t *, size_t, struct proto_hello *);

/* SCHEMA: the writer takes the group and field tables piecewise so the
 * probe can write from its static tables. */
int	 proto_schema_begin(struct wbuf *, size_t *, unsigned);
int	 proto_schema_group(struct wbuf *, const char *, unsigned);
int	 proto_schema_field(struct wbuf *, const char *, const char *,
	    uint8_t);
int	 proto_schema_end(struct wbuf *, size_t);
/* Decode a SCHEMA payload; *out is allocated (free with proto_schema_free).
 * Returns WIRE_ERR_BADMSG on out-of-memory too, as it must not exit. */
int	 proto_get_schema(const uint8_t *, size_t, struct proto_schema **);
void	 proto_schema_free(struct proto_schema *);
/* Field index of "group.field"-style lookup, or -1. */
int	 proto_schema_group_index(const struct proto_schema *, const char *);
int	 proto_schema_field_index(const struct proto_group *, const char *);

/* SAMPLE writer. */
int	 proto_sample_begin(struct proto_sample_wr *, struct wbuf *, uint64_t,
	    int64_t);
int	 proto_sample_add(struct proto_sample_wr *, uint32_t, uint32_t,
	    const char *);
int	 proto_sample_drop(struct proto_sample_wr *, uint32_t);
int	 proto_sample_vals(struct proto_sample_wr *, uint32_t, uint64_t,
	    const int64_t *);
int	 proto_sample_clear(struct proto_sample_wr *, uint32_t, uint64_t);
int	 proto_sample_str(struct proto_sample_wr *, uint32_t, uint32_t,
	    const char *, size_t);
/*
 * Write what changed for one instance of nfields integer/string fields:
 * old/new values with their present masks; intmask says which fields are
 * integers (the others are left to proto_sample_str).  Emits ITEM_VALS for
 * integers that changed or appeared and ITEM_CLEAR for those that vanished.
 */
int	 proto_sample_diff(struct proto_sample_wr *, uint32_t, uint64_t,
	    const int64_t *, uint64_t, const int64_t *, uint64_t);
int	 proto_sample_end(struct proto_sample_wr *);

/* SAMPLE reader: open reads the header; next returns 1 with an item, 0 at
 * the end of the payload, or a negative WIRE_* code. */
int	 proto_sample_open(struct proto_sample_rd *, const uint8_t *, size_t);
int	 proto_sample_next(struct proto_sample_rd *, struct proto_item *);

/* EVENT and BYE */
int	 proto_put_event(struct wbuf *, const struct proto_event *);
int	 proto_get_event(const uint8_t *, size_t, struct proto_event *);
int	 proto_put_bye(struct wbuf *, uint32_t, const char *);
int	 proto_get_bye(const uint8_t *, size_t, uint32_t *, char *, size_t);

const char *proto_msg_name(uint8_t);
const char *proto_kind_name(uint8_t);

#endif
