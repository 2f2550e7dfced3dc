/* SPDX-License-Identifier: ISC */
/*
 * proto: encoders and decoders for the probe-to-monitor protocol.  The
 * format is specified in PROTOCOL.md; this file is its only implementation,
 * compiled into both the probe and the monitor.  Decoders check every length
 * against what is left and every count against its limit.
 */
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define CHECK(x) do { int e_ = (x); if (e_ != WIRE_OK) return e_; } while (0)

const char *
proto_msg_name(uint8_t type)
{
	switch (type) {
	case MSG_HELLO:		return "HELLO";
	case MSG_SCHEMA:	return "SCHEMA";
	case MSG_SAMPLE:	return "SAMPLE";
	case MSG_EVENT:		return "EVENT";
	case MSG_BYE:		return "BYE";
	}
	return "UNKNOWN";
}

const char *
proto_kind_name(uint8_t kind)
{
	switch (kind) {
	case PF_GAUGE:		return "gauge";
	case PF_COUNTER:	return "counter";
	case PF_STRING:		return "string";
	}
	return "unknown";
}

int
proto_frame_parse(const uint8_t *buf, size_t len, struct proto_frame *f,
    size_t *used)
{
	struct wreader	 r;
	uint8_t		 type;
	uint64_t	 plen;
	int		 err;

	wreader_init(&r, buf, len);
	CHECK(wire_get_u8(&r, &type));
	if (type == 0)
		return WIRE_ERR_BADMSG;
	err = wire_get_varint(&r, &plen);
	if (err == WIRE_ERR_TRUNC && len - 1 >= 3)
		return WIRE_ERR_TOOBIG;	/* a 4th length byte: over the max */
	if (err != WIRE_OK)
		return err;
	if (r.off > PROTO_FRAME_HDR_MAX || plen > PROTO_FRAME_MAX)
		return WIRE_ERR_TOOBIG;
	if (plen > wreader_left(&r))
		return WIRE_ERR_TRUNC;
	f->type = type;
	f->payload = buf + r.off;
	f->len = (size_t)plen;
	*used = r.off + (size_t)plen;
	return WIRE_OK;
}

int
proto_frame_begin(struct wbuf *w, uint8_t type, size_t *start)
{
	*start = w->len;
	CHECK(wire_put_u8(w, type));
	/* Room for the longest length; proto_frame_end compacts it. */
	return wire_put_bytes(w, "\0\0\0", 3);
}

int
proto_frame_end(struct wbuf *w, size_t start)
{
	size_t	 body = start + PROTO_FRAME_HDR_MAX, plen, n, i;
	uint8_t	*p;
	uint64_t v;

	if (w->err != WIRE_OK)
		return w->err;
	if (w->len < body)
		return WIRE_ERR_BADMSG;
	plen = w->len - body;
	if (plen > PROTO_FRAME_MAX) {
		w->len = start;
		return WIRE_ERR_TOOBIG;
	}
	n = wire_varint_len(plen);
	p = w->data + start + 1;
	v = plen;
	for (i = 0; i < n; i++) {
		p[i] = (uint8_t)((v & 0x7f) | (i + 1 < n ? 0x80 : 0));
		v >>= 7;
	}
	if (n < 3) {
		memmove(p + n, w->data + body, plen);
		w->len -= 3 - n;
	}
	return WIRE_OK;
}

int
proto_put_hello(struct wbuf *w, const struct proto_hello *h)
{
	size_t		start;
	unsigned	i;

	if (h->nsources > PROTO_MAX_SOURCES)
		return WIRE_ERR_RANGE;
	CHECK(proto_frame_begin(w, MSG_HELLO, &start));
	wire_put_bytes(w, PROTO_MAGIC, 4);
	wire_put_u8(w, PROTO_MAJOR);
	wire_put_u8(w, PROTO_MINOR);
	wire_put_str(w, h->version);
	wire_put_str(w, h->host);
	wire_put_str(w, h->kernel);
	wire_put_str(w, h->arch);
	wire_put_varint(w, h->ncpu);
	wire_put_varint(w, h->mem_total);
	wire_put_varint(w, h->clk_tck);
	wire_put_varint(w, h->page_size);
	wire_put_varint(w, h->start_ms);
	wire_put_varint(w, h->interval_ms);
	wire_put_str(w, h->job);
	wire_put_varint(w, h->nsources);
	for (i = 0; i < h->nsources; i++) {
		wire_put_str(w, h->sources[i].name);
		wire_put_u8(w, h->sources[i].on ? 1 : 0);
		wire_put_str(w, h->sources[i].reason);
	}
	return proto_frame_end(w, start);
}

static int
get_u32(struct wreader *r, uint32_t *v)
{
	uint64_t	u;

	CHECK(wire_get_varint_max(r, UINT32_MAX, &u));
	*v = (uint32_t)u;
	return WIRE_OK;
}

int
proto_get_hello(const uint8_t *p, size_t len, struct proto_hello *h)
{
	struct wreader	 r;
	const uint8_t	*magic;
	uint64_t	 n;
	unsigned	 i;
	uint8_t		 on;

	memset(h, 0, sizeof(*h));
	wreader_init(&r, p, len);
	CHECK(wire_get_bytes(&r, 4, &magic));
	if (memcmp(magic, PROTO_MAGIC, 4) != 0)
		return WIRE_ERR_BADMSG;
	CHECK(wire_get_u8(&r, &h->major));
	CHECK(wire_get_u8(&r, &h->minor));
	if (h->major != PROTO_MAJOR)
		return WIRE_ERR_VERSION;
	CHECK(wire_get_cstr(&r, h->version, sizeof(h->version)));
	CHECK(wire_get_cstr(&r, h->host, sizeof(h->host)));
	CHECK(wire_get_cstr(&r, h->kernel, sizeof(h->kernel)));
	CHECK(wire_get_cstr(&r, h->arch, sizeof(h->arch)));
	CHECK(get_u32(&r, &h->ncpu));
	CHECK(wire_get_varint(&r, &h->mem_total));
	CHECK(get_u32(&r, &h->clk_tck));
	CHECK(get_u32(&r, &h->page_size));
	CHECK(wire_get_varint(&r, &h->start_ms));
	CHECK(get_u32(&r, &h->interval_ms));
	CHECK(wire_get_cstr(&r, h->job, sizeof(h->job)));
	CHECK(wire_get_varint_max(&r, PROTO_MAX_SOURCES, &n));
	h->nsources = (unsigned)n;
	for (i = 0; i < h->nsources; i++) {
		CHECK(wire_get_cstr(&r, h->sources[i].name,
		    sizeof(h->sources[i].name)));
		CHECK(wire_get_u8(&r, &on));
		if (on > 1)
			return WIRE_ERR_BADMSG;
		h->sources[i].on = on;
		CHECK(wire_get_cstr(&r, h->sources[i].reason,
		    sizeof(h->sources[i].reason)));
	}
	/* Bytes left over are additions of a later minor version. */
	if (h->host[0] == '\0' || h->clk_tck == 0)
		return WIRE_ERR_BADMSG;
	return WIRE_OK;
}

int
proto_schema_begin(struct wbuf *w, size_t *start, unsigned ngroups)
{
	if (ngroups > PROTO_MAX_GROUPS)
		return WIRE_ERR_RANGE;
	CHECK(proto_frame_begin(w, MSG_SCHEMA, start));
	return wire_put_varint(w, ngroups);
}

int
proto_schema_group(struct wbuf *w, const char *name, unsigned nfields)
{
	if (nfields > PROTO_MAX_FIELDS || strlen(name) >= PROTO_NAME_MAX)
		return WIRE_ERR_RANGE;
	CHECK(wire_put_str(w, name));
	return wire_put_varint(w, nfields);
}

int
proto_schema_field(struct wbuf *w, const char *name, const char *unit,
    uint8_t kind)
{
	if (strlen(name) >= PROTO_NAME_MAX || strlen(unit) >= PROTO_UNIT_MAX ||
	    kind > PF_STRING)
		return WIRE_ERR_RANGE;
	CHECK(wire_put_str(w, name));
	CHECK(wire_put_str(w, unit));
	return wire_put_u8(w, kind);
}

int
proto_schema_end(struct wbuf *w, size_t start)
{
	return proto_frame_end(w, start);
}

void
proto_schema_free(struct proto_schema *s)
{
	free(s);
}

/* A name must be non-empty printable ASCII without spaces or dots. */
static int
proto_name_ok(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (*s <= ' ' || *s > '~' || *s == '.' || *s == '"' ||
		    *s == '\\')
			return 0;
	}
	return 1;
}

int
proto_get_schema(const uint8_t *p, size_t len, struct proto_schema **out)
{
	struct wreader		 r;
	struct proto_schema	*s;
	struct proto_field	*fields;
	uint64_t		 ng, nf, total = 0;
	unsigned		 g, i;
	uint8_t			 kind;
	size_t			 save;
	int			 err;

	*out = NULL;
	wreader_init(&r, p, len);
	CHECK(wire_get_varint_max(&r, PROTO_MAX_GROUPS, &ng));
	/* First pass: count fields so one allocation holds everything. */
	save = r.off;
	for (g = 0; g < ng; g++) {
		const char	*nm;
		size_t		 nl;
		CHECK(wire_get_str(&r, PROTO_NAME_MAX - 1, &nm, &nl));
		CHECK(wire_get_varint_max(&r, PROTO_MAX_FIELDS, &nf));
		total += nf;
		for (i = 0; i < nf; i++) {
			CHECK(wire_get_str(&r, PROTO_NAME_MAX - 1, &nm, &nl));
			CHECK(wire_get_str(&r, PROTO_UNIT_MAX - 1, &nm, &nl));
			CHECK(wire_get_u8(&r, &kind));
		}
	}
	s = calloc(1, sizeof(*s) + ng * sizeof(struct proto_group) +
	    total * sizeof(struct proto_field));
	if (s == NULL)
		return WIRE_ERR_BADMSG;
	s->ngroups = (unsigned)ng;
	s->groups = (struct proto_group *)(s + 1);
	fields = (struct proto_field *)(s->groups + ng);
	r.off = save;
	err = WIRE_OK;
	for (g = 0; g < ng && err == WIRE_OK; g++) {
		struct proto_group *gr = &s->groups[g];
		if ((err = wire_get_cstr(&r, gr->name, sizeof(gr->name))) !=
		    WIRE_OK)
			break;
		if ((err = wire_get_varint_max(&r, PROTO_MAX_FIELDS, &nf)) !=
		    WIRE_OK)
			break;
		gr->nfields = (unsigned)nf;
		gr->fields = fields;
		fields += nf;
		if (!proto_name_ok(gr->name) ||
		    proto_schema_group_index(s, gr->name) != (int)g) {
			err = WIRE_ERR_BADMSG;
			break;
		}
		for (i = 0; i < nf; i++) {
			struct proto_field *f = &gr->fields[i];
			if ((err = wire_get_cstr(&r, f->name, sizeof(f->name)))
			    != WIRE_OK ||
			    (err = wire_get_cstr(&r, f->unit, sizeof(f->unit)))
			    != WIRE_OK ||
			    (err = wire_get_u8(&r, &f->kind)) != WIRE_OK)
				break;
			if (f->kind > PF_STRING || !proto_name_ok(f->name) ||
			    proto_schema_field_index(gr, f->name) != (int)i) {
				err = WIRE_ERR_BADMSG;
				break;
			}
		}
	}
	if (err != WIRE_OK) {
		free(s);
		return err;
	}
	*out = s;
	return WIRE_OK;
}

int
proto_schema_group_index(const struct proto_schema *s, const char *name)
{
	unsigned	g;

	/* The first byte first: most names asked for (a source a node
	 * lacks) match no group, and the monitor asks for dozens per
	 * sample of every node. */
	for (g = 0; g < s->ngroups; g++) {
		if (s->groups[g].name[0] == name[0] &&
		    strcmp(s->groups[g].name, name) == 0)
			return (int)g;
	}
	return -1;
}

int
proto_schema_field_index(const struct proto_group *gr, const char *name)
{
	unsigned	i;

	for (i = 0; i < gr->nfields; i++) {
		if (gr->fields[i].name[0] == name[0] &&
		    strcmp(gr->fields[i].name, name) == 0)
			return (int)i;
	}
	return -1;
}

int
proto_sample_begin(struct proto_sample_wr *sw, struct wbuf *w, uint64_t seq,
    int64_t dt_ms)
{
	sw->w = w;
	sw->prev_inst = -1;
	CHECK(proto_frame_begin(w, MSG_SAMPLE, &sw->start));
	CHECK(wire_put_varint(w, seq));
	return wire_put_svarint(w, dt_ms);
}

/* Item header: instance as a zigzag step from the previous item's, and the
 * item kind in the low 3 bits.  Consecutive instances cost one byte. */
static int
proto_item_hdr(struct proto_sample_wr *sw, uint32_t inst, uint8_t kind)
{
	int64_t	step = (int64_t)inst - sw->prev_inst - 1;

	if (inst >= PROTO_INST_MAX)
		return WIRE_ERR_RANGE;
	sw->prev_inst = inst;
	return wire_put_varint(sw->w, (wire_zigzag(step) << 3) | kind);
}

int
proto_sample_add(struct proto_sample_wr *sw, uint32_t inst, uint32_t group,
    const char *name)
{
	if (group >= PROTO_MAX_GROUPS || strlen(name) >= PROTO_NAME_MAX)
		return WIRE_ERR_RANGE;
	CHECK(proto_item_hdr(sw, inst, ITEM_ADD));
	CHECK(wire_put_varint(sw->w, group));
	return wire_put_str(sw->w, name);
}

int
proto_sample_drop(struct proto_sample_wr *sw, uint32_t inst)
{
	return proto_item_hdr(sw, inst, ITEM_DROP);
}

int
proto_sample_vals(struct proto_sample_wr *sw, uint32_t inst, uint64_t mask,
    const int64_t *deltas)
{
	unsigned	i, n;

	if (mask == 0)
		return WIRE_OK;
	CHECK(proto_item_hdr(sw, inst, ITEM_VALS));
	CHECK(wire_put_varint(sw->w, mask));
	n = (unsigned)__builtin_popcountll(mask);
	for (i = 0; i < n; i++)
		CHECK(wire_put_svarint(sw->w, deltas[i]));
	return WIRE_OK;
}

int
proto_sample_clear(struct proto_sample_wr *sw, uint32_t inst, uint64_t mask)
{
	if (mask == 0)
		return WIRE_OK;
	CHECK(proto_item_hdr(sw, inst, ITEM_CLEAR));
	return wire_put_varint(sw->w, mask);
}

int
proto_sample_str(struct proto_sample_wr *sw, uint32_t inst, uint32_t field,
    const char *s, size_t n)
{
	if (field >= PROTO_MAX_FIELDS || n >= PROTO_TEXT_MAX)
		return WIRE_ERR_RANGE;
	CHECK(proto_item_hdr(sw, inst, ITEM_STR));
	CHECK(wire_put_varint(sw->w, field));
	return wire_put_strn(sw->w, s, n);
}

int
proto_sample_diff(struct proto_sample_wr *sw, uint32_t inst, uint64_t intmask,
    const int64_t *old, uint64_t oldp, const int64_t *cur, uint64_t curp)
{
	int64_t		deltas[PROTO_MAX_FIELDS];
	uint64_t	changed = 0, gone, bit;
	unsigned	i, n = 0;

	curp &= intmask;
	oldp &= intmask;
	for (i = 0; i < PROTO_MAX_FIELDS; i++) {
		bit = (uint64_t)1 << i;
		if (bit > curp)
			break;
		if ((curp & bit) == 0)
			continue;
		/* A field that reappears is sent relative to zero. */
		if ((oldp & bit) == 0) {
			changed |= bit;
			deltas[n++] = cur[i];
		} else if (cur[i] != old[i]) {
			changed |= bit;
			deltas[n++] = (int64_t)((uint64_t)cur[i] -
			    (uint64_t)old[i]);
		}
	}
	gone = oldp & ~curp;
	CHECK(proto_sample_clear(sw, inst, gone));
	return proto_sample_vals(sw, inst, changed, deltas);
}

int
proto_sample_end(struct proto_sample_wr *sw)
{
	return proto_frame_end(sw->w, sw->start);
}

int
proto_sample_open(struct proto_sample_rd *sr, const uint8_t *p, size_t len)
{
	wreader_init(&sr->r, p, len);
	sr->prev_inst = -1;
	CHECK(wire_get_varint(&sr->r, &sr->seq));
	return wire_get_svarint(&sr->r, &sr->dt_ms);
}

int
proto_sample_next(struct proto_sample_rd *sr, struct proto_item *it)
{
	uint64_t	h, v;
	int64_t		inst;
	unsigned	i;

	if (wreader_left(&sr->r) == 0)
		return 0;
	CHECK(wire_get_varint(&sr->r, &h));
	it->kind = (uint8_t)(h & 7);
	inst = sr->prev_inst + 1 + wire_unzigzag(h >> 3);
	if (inst < 0 || inst >= (int64_t)PROTO_INST_MAX)
		return WIRE_ERR_RANGE;
	sr->prev_inst = inst;
	it->inst = (uint32_t)inst;
	it->mask = 0;
	it->ndeltas = 0;
	it->str = NULL;
	it->strlen = 0;
	switch (it->kind) {
	case ITEM_VALS:
		CHECK(wire_get_varint(&sr->r, &it->mask));
		if (it->mask == 0)
			return WIRE_ERR_BADMSG;
		it->ndeltas = (unsigned)__builtin_popcountll(it->mask);
		for (i = 0; i < it->ndeltas; i++)
			CHECK(wire_get_svarint(&sr->r, &it->deltas[i]));
		break;
	case ITEM_CLEAR:
		CHECK(wire_get_varint(&sr->r, &it->mask));
		if (it->mask == 0)
			return WIRE_ERR_BADMSG;
		break;
	case ITEM_ADD:
		CHECK(wire_get_varint_max(&sr->r, PROTO_MAX_GROUPS - 1, &v));
		it->group = (uint32_t)v;
		CHECK(wire_get_str(&sr->r, PROTO_NAME_MAX - 1, &it->str,
		    &it->strlen));
		if (memchr(it->str, '\0', it->strlen) != NULL)
			return WIRE_ERR_BADMSG;
		break;
	case ITEM_DROP:
		break;
	case ITEM_STR:
		CHECK(wire_get_varint_max(&sr->r, PROTO_MAX_FIELDS - 1, &v));
		it->field = (uint32_t)v;
		CHECK(wire_get_str(&sr->r, PROTO_TEXT_MAX - 1, &it->str,
		    &it->strlen));
		if (memchr(it->str, '\0', it->strlen) != NULL)
			return WIRE_ERR_BADMSG;
		break;
	default:
		return WIRE_ERR_BADMSG;
	}
	return 1;
}

int
proto_put_event(struct wbuf *w, const struct proto_event *ev)
{
	size_t	start;

	if (ev->level > EV_ERROR)
		return WIRE_ERR_RANGE;
	CHECK(proto_frame_begin(w, MSG_EVENT, &start));
	wire_put_varint(w, ev->time_ms);
	wire_put_u8(w, ev->level);
	wire_put_str(w, ev->code);
	wire_put_str(w, ev->text);
	return proto_frame_end(w, start);
}

int
proto_get_event(const uint8_t *p, size_t len, struct proto_event *ev)
{
	struct wreader	r;

	memset(ev, 0, sizeof(*ev));
	wreader_init(&r, p, len);
	CHECK(wire_get_varint(&r, &ev->time_ms));
	CHECK(wire_get_u8(&r, &ev->level));
	if (ev->level > EV_ERROR)
		return WIRE_ERR_BADMSG;
	CHECK(wire_get_cstr(&r, ev->code, sizeof(ev->code)));
	return wire_get_cstr(&r, ev->text, sizeof(ev->text));
}

int
proto_put_bye(struct wbuf *w, uint32_t code, const char *text)
{
	size_t	start;

	CHECK(proto_frame_begin(w, MSG_BYE, &start));
	wire_put_varint(w, code);
	wire_put_str(w, text);
	return proto_frame_end(w, start);
}

int
proto_get_bye(const uint8_t *p, size_t len, uint32_t *code, char *text,
    size_t textsz)
{
	struct wreader	r;

	wreader_init(&r, p, len);
	CHECK(get_u32(&r, code));
	return wire_get_cstr(&r, text, textsz);
}
