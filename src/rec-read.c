/* SPDX-License-Identifier: ISC */
/*
 * rec-read: reading recordings, and playing them through the stream
 * decoder.  Nothing in a file is trusted: every block's length is bounded
 * and its CRC checked before it is used, index entries must point inside
 * the data, and a block that fails stops reading there with everything
 * before it delivered.  A block cut by the end of the file is what a
 * killed monitor leaves: a warning, not an error.
 *
 * Opening costs a few reads whatever the size: the header, the fixed-size
 * tail and the full index it points at.  A file without a tail (the
 * monitor died) is searched backwards for its last INDEX block, whose
 * chain gives the older keyframes; only the blocks after it are scanned.
 * Files are read through a window (pread) so a huge recording needs no
 * more memory than its largest block and its index.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feed.h"
#include "model.h"
#include "rec.h"
#include "textsafe.h"
#include "validate.h"
#include "xmalloc.h"

#define REC_WINDOW		(1u << 20)	/* bytes read at a time */
#define REC_TAIL_SIZE		18		/* the whole TAIL block */
#define REC_SCAN_CHUNK		(1u << 20)
#define REC_SCAN_OVERLAP	64	/* an INDEX head across chunks */
#define REC_INDEX_HOPS_MAX	(1u << 20)

/* Set by the fuzz target only: blocks are read whatever their CRC, so
 * mutated inputs reach the decoders behind the checksum. */
static int	 rec_read_ignore_crc;

struct rec_reader {
	int		 fd;		/* -1: reading memory */
	const uint8_t	*mem;
	uint64_t	 size;
	uint8_t		*win;		/* a window of the file */
	uint64_t	 winoff;
	size_t		 winlen;
	size_t		 wincap;

	struct rec_meta	 meta;
	uint64_t	 data_start;	/* the first block after META */
	uint64_t	 data_end;	/* where the blocks end */
	uint64_t	 off;		/* the next block */
	uint64_t	 end_ms;
	uint64_t	 last_ms;	/* time of the last timed block read */
	int		 complete;

	struct rec_index_entry *idx;
	size_t		 nidx;
	size_t		 capidx;

	int		 errcode;
	char		 warn[96];
	char		 err[256];
};

/* The n bytes at off: WIRE_OK with *p, WIRE_ERR_TRUNC past the end, or
 * REC_ERR_IO.  *p is valid until the next call. */
static int
rec_reader_get(struct rec_reader *r, uint64_t off, size_t n,
    const uint8_t **p)
{
	size_t	want, got, back = 0;
	ssize_t	k;

	if (off > r->size || n > r->size - off)
		return WIRE_ERR_TRUNC;
	if (n == 0) {
		/* Nothing to read (an empty file has no window yet). */
		*p = (const uint8_t *)"";
		return WIRE_OK;
	}
	if (r->fd < 0) {
		*p = r->mem + off;
		return WIRE_OK;
	}
	if (off >= r->winoff && off + n <= r->winoff + r->winlen) {
		*p = r->win + (off - r->winoff);
		return WIRE_OK;
	}
	want = n > REC_WINDOW ? n : REC_WINDOW;
	/* Reading backwards (an INDEX chain, the search for the last
	 * index): most of the window lies before the bytes wanted, so the
	 * next steps back are in it too, and a little after, for the rest
	 * of the block whose head was read. */
	if (r->winlen > 0 && off < r->winoff && want > n) {
		back = (want - n) - (want - n) / 4;
		if (back > off)
			back = (size_t)off;
		off -= back;
		n += back;
	}
	if (want > r->size - off)
		want = (size_t)(r->size - off);
	if (want > r->wincap) {
		free(r->win);
		r->win = xmalloc(want);
		r->wincap = want;
	}
	r->winlen = 0;
	for (got = 0; got < want; got += (size_t)k) {
		k = pread(r->fd, r->win + got, want - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR) {
			k = 0;
			continue;
		}
		if (k < 0) {
			snprintf(r->err, sizeof(r->err), "read error at byte "
			    "%llu: %s", (unsigned long long)(off + got),
			    strerror(errno));
			return REC_ERR_IO;
		}
		if (k == 0)
			break;
	}
	r->winoff = off;
	r->winlen = got;
	if (got < n) {
		/* The file shrank under us: it ends here. */
		r->size = off + got;
		return WIRE_ERR_TRUNC;
	}
	*p = r->win + back;
	return WIRE_OK;
}

static uint32_t
rec_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/*
 * The block at off: WIRE_OK with its type and payload (valid until the
 * next read) and *next; WIRE_ERR_TRUNC when the file ends inside it;
 * WIRE_ERR_CRC (*next is set), REC_ERR_DAMAGED (a length no block may
 * have) or REC_ERR_IO otherwise.
 */
static int
rec_reader_raw(struct rec_reader *r, uint64_t off, uint8_t *type,
    const uint8_t **payload, size_t *len, uint64_t *next)
{
	struct wreader	 rd;
	const uint8_t	*p;
	uint64_t	 plen;
	size_t		 avail, hdr;
	uint32_t	 crc;
	int		 rc;

	avail = r->size - off < REC_BLOCK_HDR_MAX ? (size_t)(r->size - off) :
	    REC_BLOCK_HDR_MAX;
	if (avail == 0)
		return WIRE_ERR_TRUNC;
	if ((rc = rec_reader_get(r, off, avail, &p)) != WIRE_OK)
		return rc;
	wreader_init(&rd, p + 1, avail - 1);
	rc = wire_get_varint(&rd, &plen);
	if (rc == WIRE_ERR_TRUNC && avail < REC_BLOCK_HDR_MAX)
		return WIRE_ERR_TRUNC;
	if (rc != WIRE_OK || plen > REC_BLOCK_MAX || rd.off > 5)
		return REC_ERR_DAMAGED;
	hdr = 1 + rd.off + 4;
	if (hdr > avail || plen > r->size - off - hdr)
		return WIRE_ERR_TRUNC;
	if ((rc = rec_reader_get(r, off, hdr + (size_t)plen, &p)) != WIRE_OK)
		return rc;
	*next = off + hdr + plen;
	crc = wire_crc32c(0, p, hdr - 4);
	crc = wire_crc32c(crc, p + hdr, (size_t)plen);
	if (crc != rec_le32(p + hdr - 4) && !rec_read_ignore_crc)
		return WIRE_ERR_CRC;
	*type = p[0];
	*payload = p + hdr;
	*len = (size_t)plen;
	return WIRE_OK;
}

/* Node and time at the head of a timed block. */
static int
rec_reader_prefix(struct rec_reader *r, struct wreader *rd,
    struct rec_block *b, int node_plus_one)
{
	uint64_t	node;
	int64_t		t;

	if (wire_get_varint(rd, &node) != WIRE_OK ||
	    wire_get_svarint(rd, &t) != WIRE_OK)
		return REC_ERR_DAMAGED;
	if (node_plus_one)
		node = node == 0 ? REC_NODE_NONE : node - 1;
	if (node != REC_NODE_NONE && node >= r->meta.nnodes)
		return REC_ERR_DAMAGED;
	b->node = (uint32_t)node;
	b->time_ms = r->meta.start_ms + (uint64_t)t;
	return WIRE_OK;
}

/* A subject field: 0 none, else the value + 1 (past INT64_MAX: none,
 * since no rank id or pid is that large). */
static int
rec_reader_plus_one(struct wreader *rd, int64_t *v)
{
	uint64_t	u;

	if (wire_get_varint(rd, &u) != WIRE_OK)
		return REC_ERR_DAMAGED;
	*v = u == 0 || u - 1 > INT64_MAX ? -1 : (int64_t)(u - 1);
	return WIRE_OK;
}

/*
 * The subject after an EVENT's text: in a file of minor 2 on, every EVENT
 * has it (a block without reads as having none); fields a later minor
 * adds after it are skipped.  Older files have none to read: readers go
 * by the text.
 */
static int
rec_reader_subject(struct rec_reader *r, struct wreader *rd,
    struct rec_block *b)
{
	int64_t	ph;

	rec_subject_none(&b->subj);
	if (r->meta.minor < REC_MINOR_SUBJECT)
		return WIRE_OK;
	b->typed = 1;
	if (wreader_left(rd) == 0)
		return WIRE_OK;
	if (rec_reader_plus_one(rd, &b->subj.rank) != WIRE_OK ||
	    rec_reader_plus_one(rd, &b->subj.pid) != WIRE_OK ||
	    rec_reader_plus_one(rd, &ph) != WIRE_OK)
		return REC_ERR_DAMAGED;
	/* A phase of a newer jobtop: none known here. */
	b->subj.phase = ph >= 0 && ph < FEED_NPHASES ? (int)ph : -1;
	return WIRE_OK;
}

void
rec_subject_from_text(const struct proto_event *ev, struct rec_subject *sj)
{
	const char	*t = ev->text;
	char		*end;
	long long	 v;

	rec_subject_none(sj);
	if (strcmp(ev->code, "state") == 0) {
		if (strncmp(t, "lost", 4) == 0)
			sj->phase = FEED_LOST;
		else if (strncmp(t, "failed", 6) == 0)
			sj->phase = FEED_FAILED;
		return;
	}
	/* "rank 3 (pid 1003) ..." or "pid 160 ...", as the detectors
	 * begin their texts about a process. */
	if (strncmp(t, "rank ", 5) == 0) {
		v = strtoll(t + 5, &end, 10);
		if (end != t + 5)
			sj->rank = v;
	} else if (strncmp(t, "pid ", 4) == 0) {
		v = strtoll(t + 4, &end, 10);
		if (end != t + 4)
			sj->pid = v;
	}
}

const struct rec_subject *
rec_subject_of(const struct proto_event *ev, const struct rec_subject *sj,
    struct rec_subject *buf)
{
	if (sj != NULL)
		return sj;
	rec_subject_from_text(ev, buf);
	return buf;
}

/* Decode the fields of a block whose payload is in b. */
static int
rec_reader_decode(struct rec_reader *r, struct rec_block *b)
{
	struct wreader	rd;
	uint8_t		u;

	wreader_init(&rd, b->data, b->len);
	b->node = REC_NODE_NONE;
	b->time_ms = r->last_ms;
	switch (b->type) {
	case REC_BLK_DATA:
	case REC_BLK_RESTART:
		if (rec_reader_prefix(r, &rd, b, 0) != WIRE_OK ||
		    b->node == REC_NODE_NONE)
			return REC_ERR_DAMAGED;
		break;
	case REC_BLK_KEY:
		if (rec_reader_prefix(r, &rd, b, 0) != WIRE_OK ||
		    b->node == REC_NODE_NONE ||
		    wire_get_u8(&rd, &b->key_state) != WIRE_OK)
			return REC_ERR_DAMAGED;
		break;
	case REC_BLK_EVENT:
		memset(&b->ev, 0, sizeof(b->ev));
		if (rec_reader_prefix(r, &rd, b, 1) != WIRE_OK ||
		    wire_get_u8(&rd, &u) != WIRE_OK ||
		    wire_get_cstr(&rd, b->ev.code, sizeof(b->ev.code)) !=
		    WIRE_OK ||
		    wire_get_cstr(&rd, b->ev.text, sizeof(b->ev.text)) !=
		    WIRE_OK)
			return REC_ERR_DAMAGED;
		b->ev.level = u;
		b->ev.time_ms = b->time_ms;
		if (rec_reader_subject(r, &rd, b) != WIRE_OK)
			return REC_ERR_DAMAGED;
		break;
	default:
		return WIRE_OK;
	}
	r->last_ms = b->time_ms;
	b->data += rd.off;
	b->len -= rd.off;
	return WIRE_OK;
}

/* Read and decode the block at off. */
static int
rec_reader_block_at(struct rec_reader *r, uint64_t off, struct rec_block *b,
    uint64_t *next)
{
	int	rc;

	memset(b, 0, sizeof(*b));
	b->offset = off;
	*next = 0;
	if ((rc = rec_reader_raw(r, off, &b->type, &b->data, &b->len,
	    next)) != WIRE_OK)
		return rc;
	return rec_reader_decode(r, b);
}

/* Are the bytes from off to the end zeros (a tail the file system
 * extended but never wrote)?  Only short tails are looked at. */
static int
rec_reader_zero_tail(struct rec_reader *r, uint64_t off)
{
	const uint8_t	*p;
	size_t		 n, i;

	if (r->size - off > REC_WINDOW)
		return 0;
	n = (size_t)(r->size - off);
	if (rec_reader_get(r, off, n, &p) != WIRE_OK)
		return 0;
	for (i = 0; i < n; i++) {
		if (p[i] != 0)
			return 0;
	}
	return 1;
}

/* Why reading stopped at off: the end of a crashed file (a warning: the
 * last block is cut short or garbled) or damage inside it (an error).
 * Returns 0 or the error code. */
static int
rec_reader_stop(struct rec_reader *r, uint64_t off, uint64_t next, int rc)
{
	const char	*why;

	if (rc == WIRE_ERR_TRUNC || (rc == WIRE_ERR_CRC && next == r->size) ||
	    (rc != REC_ERR_IO && rec_reader_zero_tail(r, off))) {
		snprintf(r->warn, sizeof(r->warn), "truncated at byte %llu",
		    (unsigned long long)off);
		r->data_end = off;
		return 0;
	}
	if (rc != REC_ERR_IO) {
		why = rc == WIRE_ERR_CRC ? "bad checksum" : "malformed block";
		snprintf(r->err, sizeof(r->err), "damaged block at byte %llu "
		    "(%s)", (unsigned long long)off, why);
	}
	return r->errcode = rc == REC_ERR_IO ? rc : REC_ERR_DAMAGED;
}

int
rec_reader_next(struct rec_reader *r, struct rec_block *b)
{
	uint64_t	next;
	int		rc;

	if (r->errcode != 0)
		return r->errcode;
	if (r->off >= r->data_end)
		return 0;
	if ((rc = rec_reader_block_at(r, r->off, b, &next)) != WIRE_OK)
		return rec_reader_stop(r, r->off, next, rc);
	r->off = next;
	return 1;
}

int
rec_reader_next_of(struct rec_reader *r, uint8_t type, struct rec_block *b)
{
	struct wreader	 rd;
	const uint8_t	*p;
	uint64_t	 plen, next;
	size_t		 avail;

	while (r->errcode == 0 && r->off < r->data_end) {
		avail = r->data_end - r->off < REC_BLOCK_HDR_MAX ?
		    (size_t)(r->data_end - r->off) : REC_BLOCK_HDR_MAX;
		if (rec_reader_get(r, r->off, avail, &p) != WIRE_OK ||
		    p[0] == type)
			break;
		wreader_init(&rd, p + 1, avail - 1);
		if (wire_get_varint(&rd, &plen) != WIRE_OK ||
		    plen > REC_BLOCK_MAX || rd.off > 5)
			break;
		next = r->off + 1 + rd.off + 4 + plen;
		if (next > r->data_end)
			break;
		r->off = next;
	}
	/* The block wanted, the end, or what stopped the skipping: read
	 * as usual, so damage and a torn end are reported the same way. */
	return rec_reader_next(r, b);
}

void
rec_reader_set_offset(struct rec_reader *r, uint64_t off)
{
	r->off = off < r->data_start ? r->data_start : off;
	if (r->errcode != REC_ERR_IO)
		r->errcode = 0;
}

uint64_t
rec_reader_offset(const struct rec_reader *r)
{
	return r->off;
}

const char *
rec_reader_warning(const struct rec_reader *r)
{
	return r->warn[0] != '\0' ? r->warn : NULL;
}

const char *
rec_reader_error(const struct rec_reader *r)
{
	return r->errcode != 0 ? r->err : NULL;
}

const struct rec_meta *
rec_reader_meta(const struct rec_reader *r)
{
	return &r->meta;
}

uint64_t
rec_reader_end_ms(const struct rec_reader *r)
{
	return r->end_ms;
}

int
rec_reader_complete(const struct rec_reader *r)
{
	return r->complete;
}

size_t
rec_reader_index(const struct rec_reader *r,
    const struct rec_index_entry **out)
{
	*out = r->idx;
	return r->nidx;
}

/* Decode the META payload into r->meta. */
static int
rec_reader_meta_parse(struct rec_reader *r, const uint8_t *p, size_t len)
{
	struct rec_meta	*m = &r->meta;
	struct wreader	 rd;
	uint64_t	 v, n, i;
	char		 name[PROTO_HOST_MAX];

	wreader_init(&rd, p, len);
	if (wire_get_varint(&rd, &m->start_ms) != WIRE_OK ||
	    wire_get_varint_max(&rd, UINT32_MAX, &v) != WIRE_OK)
		return REC_ERR_DAMAGED;
	m->interval_ms = (uint32_t)v;
	if (wire_get_varint_max(&rd, UINT32_MAX, &v) != WIRE_OK)
		return REC_ERR_DAMAGED;
	m->keyframe_ms = (uint32_t)v;
	if (wire_get_cstr(&rd, m->version, sizeof(m->version)) != WIRE_OK ||
	    wire_get_cstr(&rd, m->job, sizeof(m->job)) != WIRE_OK ||
	    wire_get_cstr(&rd, m->name, sizeof(m->name)) != WIRE_OK ||
	    wire_get_cstr(&rd, m->user, sizeof(m->user)) != WIRE_OK ||
	    wire_get_cstr(&rd, m->host, sizeof(m->host)) != WIRE_OK ||
	    wire_get_varint_max(&rd, REC_NODES_MAX, &n) != WIRE_OK)
		return REC_ERR_DAMAGED;
	/* Each name takes a byte at least: a count the block cannot hold
	 * is refused before anything is allocated. */
	if (n > wreader_left(&rd))
		return REC_ERR_DAMAGED;
	/* Foreign text, cleaned where it enters: these reach the screen,
	 * the outputs and the report. */
	text_clean_inplace(m->version);
	text_clean_inplace(m->job);
	text_clean_inplace(m->name);
	text_clean_inplace(m->user);
	text_clean_inplace(m->host);
	m->nodes = xcalloc((size_t)n, sizeof(*m->nodes));
	for (i = 0; i < n; i++) {
		if (wire_get_cstr(&rd, name, sizeof(name)) != WIRE_OK)
			return REC_ERR_DAMAGED;
		/* Live, every node name passed this check: a name that
		 * does not is a forged file. */
		if (!validate_hostname(name)) {
			snprintf(r->err, sizeof(r->err), "node %llu of the "
			    "recording header is not a host name",
			    (unsigned long long)i + 1);
			return REC_ERR_DAMAGED;
		}
		m->nodes[i] = xstrdup(name);
		m->nnodes++;
	}
	/* Later fields are optional. */
	if (wreader_left(&rd) > 0 && wire_get_varint(&rd, &m->count) !=
	    WIRE_OK)
		return REC_ERR_DAMAGED;
	/* The tasks expected, 0 unknown; a count past any job's is too. */
	m->ntasks = -1;
	if (wreader_left(&rd) > 0) {
		if (wire_get_varint(&rd, &v) != WIRE_OK)
			return REC_ERR_DAMAGED;
		if (v > 0 && v <= UINT32_MAX)
			m->ntasks = (long)v;
	}
	/* The allocation (0: unknown); counts past any machine's are
	 * dropped, not trusted. */
	m->time_limit = REC_LIMIT_UNKNOWN;
	if (wreader_left(&rd) > 0) {
		if (wire_get_varint(&rd, &v) != WIRE_OK)
			return REC_ERR_DAMAGED;
		m->cpus = v <= (1ULL << 32) ? v : 0;
	}
	if (wreader_left(&rd) > 0) {
		if (wire_get_varint(&rd, &v) != WIRE_OK)
			return REC_ERR_DAMAGED;
		m->mem = v <= (1ULL << 60) ? v : 0;
	}
	if (wreader_left(&rd) > 0) {
		if (wire_get_varint(&rd, &v) != WIRE_OK)
			return REC_ERR_DAMAGED;
		if (v == 1)
			m->time_limit = REC_LIMIT_NONE;
		else if (v >= 2 && v - 2 <= 100000000000ULL)
			m->time_limit = (int64_t)(v - 2);
	}
	if (wreader_left(&rd) > 0) {
		if (wire_get_cstr(&rd, m->partition, sizeof(m->partition)) !=
		    WIRE_OK)
			return REC_ERR_DAMAGED;
		text_clean_inplace(m->partition);
	}
	/* The scheduler's GPUs per node: one per node or none. */
	if (wreader_left(&rd) > 0) {
		if (wire_get_varint(&rd, &v) != WIRE_OK)
			return REC_ERR_DAMAGED;
		if (v != 0 && v != m->nnodes) {
			snprintf(r->err, sizeof(r->err), "the recording header "
			    "has GPUs for %llu nodes of %u",
			    (unsigned long long)v, m->nnodes);
			return REC_ERR_DAMAGED;
		}
		if (v != 0)
			m->gpus = xcalloc(m->nnodes, sizeof(*m->gpus));
		for (i = 0; v != 0 && i < m->nnodes; i++) {
			uint64_t	g;

			if (wire_get_varint(&rd, &g) != WIRE_OK)
				return REC_ERR_DAMAGED;
			/* Indexes 0-62 only: anything else unknown. */
			m->gpus[i] = g == 0 || g - 1 >= (1ULL << 63) ? -1 :
			    (int64_t)(g - 1);
		}
	}
	return WIRE_OK;
}

/* Append an index entry. */
static void
rec_reader_add_entry(struct rec_reader *r, uint64_t t, uint64_t off)
{
	if (r->nidx == r->capidx) {
		r->capidx = r->capidx == 0 ? 64 : r->capidx * 2;
		r->idx = xreallocarray(r->idx, r->capidx, sizeof(*r->idx));
	}
	r->idx[r->nidx].time_ms = t;
	r->idx[r->nidx].offset = off;
	r->nidx++;
}

/*
 * Parse the INDEX block at off: its entries are appended to the list in
 * their order (rec_reader_chain puts the hops in order at the end), *prev
 * and *end_ms set.  The list never holds more entries than the file has
 * room for KEY blocks (9 bytes at least each).
 */
static int
rec_reader_index_at(struct rec_reader *r, uint64_t off, uint64_t *prev,
    uint64_t *end_ms)
{
	struct rec_block	 b;
	struct wreader		 rd;
	const uint8_t		*magic;
	uint64_t		 next, n, i, doff, t, o = 0;
	int64_t			 dt, et;

	if (rec_reader_block_at(r, off, &b, &next) != WIRE_OK ||
	    b.type != REC_BLK_INDEX)
		return REC_ERR_DAMAGED;
	wreader_init(&rd, b.data, b.len);
	if (wire_get_bytes(&rd, 4, &magic) != WIRE_OK ||
	    memcmp(magic, "JTIX", 4) != 0 ||
	    wire_get_varint(&rd, prev) != WIRE_OK ||
	    wire_get_svarint(&rd, &et) != WIRE_OK ||
	    wire_get_varint(&rd, &n) != WIRE_OK || n > wreader_left(&rd) / 2 ||
	    n > r->size / 8 - r->nidx)
		return REC_ERR_DAMAGED;
	*end_ms = r->meta.start_ms + (uint64_t)et;
	t = r->meta.start_ms;
	for (i = 0; i < n; i++) {
		if (wire_get_svarint(&rd, &dt) != WIRE_OK ||
		    wire_get_varint(&rd, &doff) != WIRE_OK)
			return REC_ERR_DAMAGED;
		t += (uint64_t)dt;
		o += doff;
		rec_reader_add_entry(r, t, o);
	}
	return WIRE_OK;
}

/* Entries must point at KEY blocks inside the data, in order. */
static int
rec_reader_index_ok(const struct rec_reader *r, uint64_t end)
{
	size_t	i;

	for (i = 0; i < r->nidx; i++) {
		if (r->idx[i].offset < r->data_start ||
		    r->idx[i].offset >= end ||
		    (i > 0 && r->idx[i].offset <= r->idx[i - 1].offset))
			return 0;
	}
	return 1;
}

/*
 * Follow an INDEX chain from off (newest first).  Each hop's entries are
 * appended as they come and where each hop began is noted; the hops are
 * put oldest first once at the end, so a long chain costs linear time.
 */
static int
rec_reader_chain(struct rec_reader *r, uint64_t off, uint64_t *end_ms)
{
	struct rec_index_entry	*all;
	uint64_t		 prev, e, first = off;
	size_t			*starts = NULL, nstarts = 0, capstarts = 0;
	size_t			 h, from, to, k;
	int			 rc = REC_ERR_DAMAGED;

	r->nidx = 0;
	while (nstarts < REC_INDEX_HOPS_MAX) {
		if (nstarts == capstarts) {
			capstarts = capstarts == 0 ? 64 : capstarts * 2;
			starts = xreallocarray(starts, capstarts,
			    sizeof(*starts));
		}
		starts[nstarts++] = r->nidx;
		if (rec_reader_index_at(r, off, &prev, &e) != WIRE_OK)
			break;
		if (nstarts == 1)
			*end_ms = e;
		if (prev == 0) {
			rc = WIRE_OK;
			break;
		}
		if (prev >= off || prev < r->data_start)
			break;
		off = prev;
	}
	if (rc == WIRE_OK && nstarts > 1 && r->nidx > 0) {
		all = xreallocarray(NULL, r->nidx, sizeof(*all));
		k = 0;
		for (h = nstarts; h-- > 0; ) {
			from = starts[h];
			to = h + 1 < nstarts ? starts[h + 1] : r->nidx;
			memcpy(all + k, r->idx + from, (to - from) *
			    sizeof(*all));
			k += to - from;
		}
		free(r->idx);
		r->idx = all;
		r->capidx = r->nidx;
	}
	free(starts);
	if (rc == WIRE_OK && !rec_reader_index_ok(r, first))
		rc = REC_ERR_DAMAGED;
	return rc;
}

/* A file closed properly ends with a TAIL that points at the full index. */
static int
rec_reader_tail(struct rec_reader *r)
{
	const uint8_t	*p;
	uint8_t		 type;
	uint64_t	 off, at = 0, next;
	size_t		 len;
	unsigned	 i;

	if (r->size < r->data_start + REC_TAIL_SIZE)
		return 0;
	off = r->size - REC_TAIL_SIZE;
	if (rec_reader_raw(r, off, &type, &p, &len, &next) != WIRE_OK ||
	    type != REC_BLK_TAIL || len != 12 || next != r->size ||
	    memcmp(p, "JTND", 4) != 0)
		return 0;
	for (i = 0; i < 8; i++)
		at |= (uint64_t)p[4 + i] << (8 * i);
	if (at < r->data_start || at >= off ||
	    rec_reader_chain(r, at, &r->end_ms) != WIRE_OK) {
		r->nidx = 0;
		return 0;
	}
	r->data_end = at;
	r->complete = 1;
	return 1;
}

/*
 * Read blocks from off to the end or the first bad one: keyframe sets
 * become index entries, the last block time the end time, and where it
 * stopped the end of the data.
 */
static void
rec_reader_scan(struct rec_reader *r, uint64_t off)
{
	struct rec_block	b;
	uint64_t		next;
	int			rc, prev_key = 0;

	r->data_end = r->size;
	while (off < r->size) {
		if ((rc = rec_reader_block_at(r, off, &b, &next)) != WIRE_OK) {
			if (rec_reader_stop(r, off, next, rc) != 0) {
				/* Damage: the data ends there for seeking;
				 * reading reports it again when it gets
				 * there. */
				r->errcode = 0;
				r->data_end = r->size;
			}
			break;
		}
		if (b.type == REC_BLK_KEY && !prev_key &&
		    (r->nidx == 0 || off > r->idx[r->nidx - 1].offset))
			rec_reader_add_entry(r, b.time_ms, off);
		prev_key = b.type == REC_BLK_KEY;
		if (b.type == REC_BLK_DATA || b.type == REC_BLK_EVENT ||
		    b.type == REC_BLK_KEY || b.type == REC_BLK_RESTART)
			r->end_ms = b.time_ms;
		off = next;
	}
	r->last_ms = r->meta.start_ms;
}

/*
 * Could an INDEX block start at q (avail bytes), at file offset at?  Its
 * header and the start of its payload are checked before any checksum is
 * computed: the type, the magic, a previous index before it, a count the
 * payload can hold and a payload no longer than that count needs.  The
 * payload length, or 0.
 */
static uint64_t
rec_reader_index_magic(const uint8_t *q, size_t avail, uint64_t at)
{
	struct wreader	rd;
	const uint8_t	*magic;
	uint64_t	len, prev, n;
	int64_t		et;
	size_t		hdr;

	if (q[0] != REC_BLK_INDEX || avail < 2)
		return 0;
	wreader_init(&rd, q + 1, avail - 1 < 5 ? avail - 1 : 5);
	if (wire_get_varint(&rd, &len) != WIRE_OK || len < 7)
		return 0;
	hdr = 1 + rd.off + 4;
	if (avail < hdr)
		return 0;
	wreader_init(&rd, q + hdr, avail - hdr < len ? avail - hdr :
	    (size_t)len);
	if (wire_get_bytes(&rd, 4, &magic) != WIRE_OK ||
	    memcmp(magic, "JTIX", 4) != 0 ||
	    wire_get_varint(&rd, &prev) != WIRE_OK || prev >= at ||
	    wire_get_svarint(&rd, &et) != WIRE_OK ||
	    wire_get_varint(&rd, &n) != WIRE_OK ||
	    n > (len - rd.off) / 2 || len > 40 + 20 * n)
		return 0;
	return len;
}

/*
 * The offset of the last valid INDEX block, searching backwards from the
 * end, or 0.  The checksums computed are bounded (twice the file's size):
 * a file full of fake headers is given up on and read from the start.
 */
static uint64_t
rec_reader_scan_back(struct rec_reader *r)
{
	const uint8_t	*p, *q;
	uint64_t	 pos = r->size, lo, at, next, plen, budget;
	size_t		 len, n, ext, k;
	uint8_t		 type;

	budget = 2 * r->size + REC_SCAN_CHUNK;
	while (pos > r->data_start) {
		lo = pos - r->data_start > REC_SCAN_CHUNK ?
		    pos - REC_SCAN_CHUNK : r->data_start;
		n = (size_t)(pos - lo);
		ext = r->size - lo < (uint64_t)n + REC_SCAN_OVERLAP ?
		    (size_t)(r->size - lo) : n + REC_SCAN_OVERLAP;
		if (rec_reader_get(r, lo, ext, &p) != WIRE_OK)
			return 0;
		for (k = n; k-- > 0; ) {
			at = lo + k;
			if ((plen = rec_reader_index_magic(p + k, ext - k,
			    at)) == 0)
				continue;
			if (plen > budget)
				return 0;
			budget -= plen;
			if (rec_reader_raw(r, at, &type, &q, &len, &next) ==
			    WIRE_OK)
				return at;
			/* The check may have moved the window. */
			if (rec_reader_get(r, lo, ext, &p) != WIRE_OK)
				return 0;
		}
		pos = lo;
	}
	return 0;
}

/* Find the keyframes and the end of the data of a file without a tail. */
static void
rec_reader_recover(struct rec_reader *r)
{
	struct rec_block	b;
	uint64_t		at, next, end_ms = r->meta.start_ms;

	r->end_ms = r->meta.start_ms;
	at = rec_reader_scan_back(r);
	if (at != 0 && rec_reader_chain(r, at, &end_ms) == WIRE_OK &&
	    rec_reader_block_at(r, at, &b, &next) == WIRE_OK) {
		r->end_ms = end_ms;
		rec_reader_scan(r, next);
		return;
	}
	r->nidx = 0;
	rec_reader_scan(r, r->data_start);
}

/* Check the header and META, then find the index. */
static int
rec_reader_init(struct rec_reader *r, char *err, size_t errsz)
{
	const uint8_t	*p;
	uint8_t		 type;
	size_t		 len;
	uint64_t	 next;
	int		 rc;

	if (rec_reader_get(r, 0, r->size < 6 ? (size_t)r->size : 6, &p) !=
	    WIRE_OK || r->size < 6 || memcmp(p, REC_MAGIC, 4) != 0) {
		if (r->size < 6 && r->size > 0 && rec_reader_get(r, 0,
		    (size_t)r->size, &p) == WIRE_OK && memcmp(p, REC_MAGIC,
		    r->size < 4 ? (size_t)r->size : 4) == 0)
			snprintf(err, errsz, "recording cut inside its header");
		else
			snprintf(err, errsz, "not a jobtop recording");
		return REC_ERR_MAGIC;
	}
	r->meta.major = p[4];
	r->meta.minor = p[5];
	if (p[4] != REC_MAJOR) {
		if (p[4] > REC_MAJOR)
			snprintf(err, errsz, "recording format %u.%u is newer "
			    "than this jobtop reads (%d.x): use a newer jobtop",
			    p[4], p[5], REC_MAJOR);
		else
			snprintf(err, errsz, "bad recording format version "
			    "%u.%u", p[4], p[5]);
		return WIRE_ERR_VERSION;
	}
	rc = rec_reader_raw(r, 6, &type, &p, &len, &next);
	if (rc == WIRE_OK && type != REC_BLK_META)
		rc = REC_ERR_DAMAGED;
	if (rc == WIRE_OK)
		rc = rec_reader_meta_parse(r, p, len);
	if (rc != WIRE_OK) {
		if (rc == REC_ERR_IO)
			snprintf(err, errsz, "%s", r->err);
		else if (rc == WIRE_ERR_TRUNC)
			snprintf(err, errsz, "recording cut inside its header");
		else if (r->err[0] != '\0')
			snprintf(err, errsz, "damaged recording header: %s",
			    r->err);
		else
			snprintf(err, errsz, "damaged recording header");
		return rc;
	}
	r->data_start = next;
	r->data_end = r->size;
	r->last_ms = r->meta.start_ms;
	if (!rec_reader_tail(r))
		rec_reader_recover(r);
	r->off = r->data_start;
	r->last_ms = r->meta.start_ms;
	if (r->end_ms < r->meta.start_ms)
		r->end_ms = r->meta.start_ms;
	return WIRE_OK;
}

/* A new reader over memory or an fd. */
static struct rec_reader *
rec_reader_new(int fd, const void *mem, uint64_t size)
{
	struct rec_reader	*r;

	r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->mem = mem;
	r->size = size;
	return r;
}

void
rec_reader_ignore_crc(int on)
{
	rec_read_ignore_crc = on;
}

int
rec_reader_open(const char *path, struct rec_reader **out, char *err,
    size_t errsz)
{
	struct rec_reader	*r;
	struct stat		 st;
	int			 fd, rc;

	*out = NULL;
	/* O_NONBLOCK: a FIFO or a device opens at once and is refused
	 * below instead of waiting for a writer. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		snprintf(err, errsz, "%s", strerror(errno));
		return REC_ERR_IO;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "not a regular file");
		close(fd);
		return REC_ERR_IO;
	}
	r = rec_reader_new(fd, NULL, (uint64_t)st.st_size);
	if ((rc = rec_reader_init(r, err, errsz)) != WIRE_OK) {
		rec_reader_free(r);
		return rc;
	}
	*out = r;
	return WIRE_OK;
}

int
rec_reader_open_mem(const void *p, size_t len, struct rec_reader **out,
    char *err, size_t errsz)
{
	struct rec_reader	*r;
	int			 rc;

	*out = NULL;
	r = rec_reader_new(-1, p, len);
	if ((rc = rec_reader_init(r, err, errsz)) != WIRE_OK) {
		rec_reader_free(r);
		return rc;
	}
	*out = r;
	return WIRE_OK;
}

void
rec_reader_free(struct rec_reader *r)
{
	if (r == NULL)
		return;
	if (r->fd >= 0)
		close(r->fd);
	rec_meta_free(&r->meta);
	free(r->win);
	free(r->idx);
	free(r);
}

/*
 * Playing.  Each node has a decoder; DATA blocks are fed to it and its
 * messages handed out one by one.  A node is "unknown" after a seek that
 * found no usable keyframe for it: its data is skipped until a keyframe
 * or a restart gives a clean start.
 */
enum rec_pstate {
	REC_P_OK,
	REC_P_FAILED,		/* its stream broke, as it did live */
	REC_P_UNKNOWN,		/* no state to continue from */
};

struct rec_pnode {
	struct stream	*st;
	enum rec_pstate	 state;
};

struct rec_play {
	struct rec_reader	*r;
	unsigned		 n;
	struct rec_pnode	*nodes;
	int			 cur;	/* node with frames to decode, -1 */
	uint64_t		 cur_ms;
	uint64_t		 time_ms;
	struct proto_event	 ev;
	struct rec_subject	 subj;
	char			 text[320];
};

/* A fresh decoder for node i, named as the user named the node. */
static void
rec_play_reset(struct rec_play *p, unsigned i, enum rec_pstate state)
{
	stream_free(p->nodes[i].st);
	p->nodes[i].st = stream_new(p->r->meta.nodes[i]);
	model_fix_name(stream_model(p->nodes[i].st));
	p->nodes[i].state = state;
}

struct rec_play *
rec_play_new(struct rec_reader *r)
{
	struct rec_play	*p;
	unsigned	 i;

	p = xcalloc(1, sizeof(*p));
	p->r = r;
	p->n = r->meta.nnodes;
	p->nodes = xcalloc(p->n, sizeof(*p->nodes));
	for (i = 0; i < p->n; i++)
		rec_play_reset(p, i, REC_P_OK);
	p->cur = -1;
	p->time_ms = r->meta.start_ms;
	return p;
}

void
rec_play_free(struct rec_play *p)
{
	unsigned	i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		stream_free(p->nodes[i].st);
	free(p->nodes);
	free(p);
}

struct stream *
rec_play_stream(struct rec_play *p, unsigned i)
{
	return i < p->n ? p->nodes[i].st : NULL;
}

unsigned
rec_play_nnodes(const struct rec_play *p)
{
	return p->n;
}

uint64_t
rec_play_time(const struct rec_play *p)
{
	return p->time_ms;
}

/* Rebuild a node from its KEY block. */
static void
rec_play_key(struct rec_play *p, const struct rec_block *b)
{
	struct rec_pnode	*nd = &p->nodes[b->node];
	int			 t;

	switch (b->key_state) {
	case REC_KEY_EMPTY:
		rec_play_reset(p, b->node, REC_P_OK);
		break;
	case REC_KEY_STREAM:
		rec_play_reset(p, b->node, REC_P_OK);
		stream_feed(nd->st, b->data, b->len);
		while ((t = stream_next(nd->st)) > 0)
			;
		if (t < 0)
			rec_play_reset(p, b->node, REC_P_UNKNOWN);
		break;
	default:
		rec_play_reset(p, b->node, REC_P_UNKNOWN);
		break;
	}
}

/* Pull the next decoded message of the current node: 1, or 0 when its
 * input is used up. */
static int
rec_play_drain(struct rec_play *p, struct rec_msg *msg)
{
	struct rec_pnode	*nd;
	char			 err[256];
	int			 t;

	if (p->cur < 0)
		return 0;
	nd = &p->nodes[p->cur];
	if ((t = stream_next(nd->st)) == 0) {
		p->cur = -1;
		return 0;
	}
	memset(msg, 0, sizeof(*msg));
	msg->node = (uint32_t)p->cur;
	msg->time_ms = p->cur_ms;
	if (t > 0) {
		msg->type = t;
		if (t == MSG_EVENT)
			msg->ev = stream_event(nd->st);
		return 1;
	}
	stream_error(nd->st, err, sizeof(err));
	snprintf(p->text, sizeof(p->text), "probe stream: %s", err);
	nd->state = REC_P_FAILED;
	msg->type = REC_MSG_STREAM_ERR;
	msg->text = p->text;
	p->cur = -1;
	return 1;
}

/* Apply one block; 1 when it makes a message of its own. */
static int
rec_play_block(struct rec_play *p, const struct rec_block *b,
    struct rec_msg *msg)
{
	struct rec_pnode	*nd;

	switch (b->type) {
	case REC_BLK_DATA:
		p->time_ms = b->time_ms;
		nd = &p->nodes[b->node];
		if (nd->state != REC_P_OK)
			return 0;
		stream_feed(nd->st, b->data, b->len);
		p->cur = (int)b->node;
		p->cur_ms = b->time_ms;
		return 0;
	case REC_BLK_KEY:
		p->time_ms = b->time_ms;
		if (p->nodes[b->node].state == REC_P_UNKNOWN)
			rec_play_key(p, b);
		return 0;
	case REC_BLK_RESTART:
		p->time_ms = b->time_ms;
		rec_play_reset(p, b->node, REC_P_OK);
		memset(msg, 0, sizeof(*msg));
		msg->type = REC_MSG_RESTART;
		msg->node = b->node;
		msg->time_ms = b->time_ms;
		return 1;
	case REC_BLK_EVENT:
		p->time_ms = b->time_ms;
		p->ev = b->ev;
		p->subj = b->subj;
		memset(msg, 0, sizeof(*msg));
		msg->type = REC_MSG_EVENT;
		msg->node = b->node;
		msg->time_ms = b->time_ms;
		msg->ev = &p->ev;
		msg->subj = b->typed ? &p->subj : NULL;
		return 1;
	}
	return 0;
}

int
rec_play_next(struct rec_play *p, struct rec_msg *msg)
{
	struct rec_block	b;
	int			rc;

	for (;;) {
		if (rec_play_drain(p, msg))
			return 1;
		if ((rc = rec_reader_next(p->r, &b)) <= 0)
			return rc;
		if (rec_play_block(p, &b, msg))
			return 1;
	}
}

/* Does the block carry an arrival time? */
static int
rec_play_timed(const struct rec_block *b)
{
	return b->type == REC_BLK_DATA || b->type == REC_BLK_EVENT ||
	    b->type == REC_BLK_KEY || b->type == REC_BLK_RESTART;
}

int
rec_play_until(struct rec_play *p, uint64_t t, struct rec_msg *msg,
    uint64_t *next_ms)
{
	struct rec_block	b;
	uint64_t		last;
	int			rc;

	*next_ms = UINT64_MAX;
	for (;;) {
		if (rec_play_drain(p, msg))
			return 1;
		last = p->r->last_ms;
		if ((rc = rec_reader_next(p->r, &b)) <= 0)
			return rc;
		if (rec_play_timed(&b) && b.time_ms > t) {
			/* Not yet: read it again next time. */
			rec_reader_set_offset(p->r, b.offset);
			p->r->last_ms = last;
			*next_ms = b.time_ms;
			return 0;
		}
		if (rec_play_block(p, &b, msg))
			return 1;
	}
}

/* The last keyframe set at or before t, or NULL. */
static const struct rec_index_entry *
rec_play_find(const struct rec_reader *r, uint64_t t)
{
	size_t	lo = 0, hi = r->nidx, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->idx[mid].time_ms <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? &r->idx[lo - 1] : NULL;
}

int
rec_play_seek(struct rec_play *p, uint64_t t)
{
	const struct rec_index_entry	*e;
	struct rec_block		 b;
	struct rec_msg			 msg;
	unsigned			 i;
	int				 rc, in_set;

	e = rec_play_find(p->r, t);
	for (i = 0; i < p->n; i++)
		rec_play_reset(p, i, e != NULL ? REC_P_UNKNOWN : REC_P_OK);
	p->cur = -1;
	rec_reader_set_offset(p->r, e != NULL ? e->offset : 0);
	p->r->last_ms = e != NULL ? e->time_ms : p->r->meta.start_ms;
	p->time_ms = p->r->last_ms;
	in_set = e != NULL;
	for (;;) {
		while (rec_play_drain(p, &msg))
			;
		if ((rc = rec_reader_next(p->r, &b)) <= 0)
			return rc;
		if (b.type == REC_BLK_KEY && in_set) {
			rec_play_key(p, &b);
			continue;
		}
		in_set = 0;
		if ((b.type == REC_BLK_DATA || b.type == REC_BLK_EVENT ||
		    b.type == REC_BLK_KEY || b.type == REC_BLK_RESTART) &&
		    b.time_ms > t) {
			rec_reader_set_offset(p->r, b.offset);
			p->time_ms = t;
			return 0;
		}
		rec_play_block(p, &b, &msg);
	}
}
