/* SPDX-License-Identifier: ISC */
/*
 * stream: frames in, node model out.  Complete frames are decoded straight
 * from the caller's buffer; only a frame split across reads is copied into
 * the stream's own buffer, which is freed again once it is empty and large.
 * Every rule PROTOCOL.md sets for a stream (HELLO first, one SCHEMA before
 * any SAMPLE, items only for instances that exist, fields within their
 * group and of the right kind) is checked here before the model changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "xmalloc.h"

/* A partial-frame buffer larger than this is freed once drained. */
#define STREAM_BUF_KEEP		4096

struct stream {
	struct node_model	 model;

	const uint8_t		*in;	/* the caller's bytes, not yet read */
	size_t			 inlen;
	uint8_t			*buf;	/* a frame split across feeds */
	size_t			 bufoff;
	size_t			 buflen;
	size_t			 bufcap;

	uint64_t		 offset;	/* bytes consumed */
	int			 err;
	uint64_t		 err_offset;
	uint8_t			 err_type;

	struct proto_event	 ev;
};

struct stream *
stream_new(const char *label)
{
	struct stream	*s;

	s = xcalloc(1, sizeof(*s));
	model_init(&s->model, label);
	return s;
}

void
stream_free(struct stream *s)
{
	if (s == NULL)
		return;
	model_free(&s->model);
	free(s->buf);
	free(s);
}

struct node_model *
stream_model(struct stream *s)
{
	return &s->model;
}

const struct proto_event *
stream_event(const struct stream *s)
{
	return &s->ev;
}

uint64_t
stream_offset(const struct stream *s)
{
	return s->offset;
}

void
stream_feed(struct stream *s, const void *p, size_t len)
{
	s->in = p;
	s->inlen = len;
}

/* Append n bytes to the partial-frame buffer. */
static void
stream_buf_append(struct stream *s, const uint8_t *p, size_t n)
{
	if (s->bufoff > 0) {
		memmove(s->buf, s->buf + s->bufoff, s->buflen - s->bufoff);
		s->buflen -= s->bufoff;
		s->bufoff = 0;
	}
	if (n > s->bufcap - s->buflen) {
		while (n > s->bufcap - s->buflen)
			s->bufcap = s->bufcap == 0 ? 256 : s->bufcap * 2;
		s->buf = xreallocarray(s->buf, s->bufcap, 1);
	}
	memcpy(s->buf + s->buflen, p, n);
	s->buflen += n;
}

/* Record the first error; the stream stays failed. */
static int
stream_fail(struct stream *s, int err, uint8_t type, uint64_t offset)
{
	s->err = err;
	s->err_type = type;
	s->err_offset = offset;
	return err;
}

/* The mask of valid field bits of a group with n fields. */
static uint64_t
stream_field_mask(unsigned n)
{
	return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* Apply one SAMPLE item to the model after checking it. */
static int
stream_apply_item(struct stream *s, const struct proto_item *it)
{
	struct node_model	*m = &s->model;
	struct minst		*mi = NULL;
	const char		*old;
	uint64_t		 valid;

	if (it->kind == ITEM_ADD) {
		if (it->group >= m->schema->ngroups)
			return STREAM_ERR_GROUP;
		if (model_find(m, it->inst) != NULL)
			return STREAM_ERR_DUPINST;
		if (m->ninsts >= STREAM_INST_MAX)
			return STREAM_ERR_TOOMANY;
		if (it->strlen > STREAM_STR_MAX - m->strbytes)
			return STREAM_ERR_STRBYTES;
		model_add(m, it->inst, it->group, it->str, it->strlen);
		return WIRE_OK;
	}
	if ((mi = model_find(m, it->inst)) == NULL)
		return STREAM_ERR_NOINST;
	valid = stream_field_mask(mi->nfields);
	switch (it->kind) {
	case ITEM_DROP:
		model_drop(m, mi);
		break;
	case ITEM_VALS:
		if ((it->mask & ~valid) != 0)
			return STREAM_ERR_FIELD;
		if ((it->mask & mi->mg->strmask) != 0)
			return STREAM_ERR_ISSTR;
		model_apply_vals(mi, it->mask, it->deltas);
		break;
	case ITEM_CLEAR:
		if ((it->mask & ~valid) != 0)
			return STREAM_ERR_FIELD;
		model_clear_fields(m, mi, it->mask);
		break;
	case ITEM_STR:
		if (it->field >= mi->nfields)
			return STREAM_ERR_FIELD;
		if ((mi->mg->strmask & ((uint64_t)1 << it->field)) == 0)
			return STREAM_ERR_NOTSTR;
		old = mi->strs[mi->mg->strslot[it->field]];
		if (it->strlen > STREAM_STR_MAX - m->strbytes +
		    (old != NULL ? strlen(old) : 0))
			return STREAM_ERR_STRBYTES;
		model_set_str(m, mi, it->field, it->str, it->strlen);
		break;
	default:
		return WIRE_ERR_BADMSG;
	}
	return WIRE_OK;
}

static int
stream_apply_sample(struct stream *s, const struct proto_frame *f)
{
	struct proto_sample_rd	 sr;
	struct proto_item	 it;
	int			 rc;

	if (s->model.schema == NULL)
		return STREAM_ERR_NOSCHEMA;
	if ((rc = proto_sample_open(&sr, f->payload, f->len)) != WIRE_OK)
		return rc;
	model_begin_sample(&s->model);
	while ((rc = proto_sample_next(&sr, &it)) > 0) {
		if ((rc = stream_apply_item(s, &it)) != WIRE_OK)
			return rc;
	}
	if (rc < 0)
		return rc;
	model_end_sample(&s->model, sr.seq, sr.dt_ms);
	return MSG_SAMPLE;
}

static int
stream_apply_hello(struct stream *s, const struct proto_frame *f)
{
	struct proto_hello	*h;
	int			 rc;

	if (s->model.have_hello)
		return STREAM_ERR_TWICE;
	/* Decoded into a scratch copy: the model keeps only what it needs. */
	h = xmalloc(sizeof(*h));
	if ((rc = proto_get_hello(f->payload, f->len, h)) == WIRE_OK)
		model_set_hello(&s->model, h);
	free(h);
	return rc == WIRE_OK ? MSG_HELLO : rc;
}

/* Check and apply one frame: its type, 0 to skip it, or an error. */
static int
stream_apply(struct stream *s, const struct proto_frame *f)
{
	struct node_model	*m = &s->model;
	char			 text[PROTO_TEXT_MAX];
	uint32_t		 code;
	int			 rc;

	if (m->ended)
		return STREAM_ERR_AFTERBYE;
	if (f->type == MSG_HELLO)
		return stream_apply_hello(s, f);
	if (!m->have_hello)
		return STREAM_ERR_NOHELLO;
	switch (f->type) {
	case MSG_SCHEMA:
		if (m->schema != NULL)
			return STREAM_ERR_TWICE;
		if ((rc = model_set_schema(m, f->payload, f->len)) != WIRE_OK)
			return rc;
		return MSG_SCHEMA;
	case MSG_SAMPLE:
		return stream_apply_sample(s, f);
	case MSG_EVENT:
		if ((rc = proto_get_event(f->payload, f->len, &s->ev)) !=
		    WIRE_OK)
			return rc;
		return MSG_EVENT;
	case MSG_BYE:
		if ((rc = proto_get_bye(f->payload, f->len, &code, text,
		    sizeof(text))) != WIRE_OK)
			return rc;
		model_set_bye(m, code, text);
		return MSG_BYE;
	}
	return 0;
}

int
stream_next(struct stream *s)
{
	struct proto_frame	 f;
	const uint8_t		*p;
	size_t			 avail, used;
	uint64_t		 at;
	int			 from_buf, rc;

	if (s->err != 0)
		return s->err;
	for (;;) {
		if (s->bufoff < s->buflen) {
			if (s->inlen > 0) {
				stream_buf_append(s, s->in, s->inlen);
				s->inlen = 0;
			}
			p = s->buf + s->bufoff;
			avail = s->buflen - s->bufoff;
			from_buf = 1;
		} else {
			s->bufoff = s->buflen = 0;
			if (s->bufcap > STREAM_BUF_KEEP) {
				free(s->buf);
				s->buf = NULL;
				s->bufcap = 0;
			}
			p = s->in;
			avail = s->inlen;
			from_buf = 0;
		}
		if (avail == 0)
			return 0;
		rc = proto_frame_parse(p, avail, &f, &used);
		if (rc == WIRE_ERR_TRUNC) {
			if (!from_buf) {
				stream_buf_append(s, s->in, s->inlen);
				s->inlen = 0;
			}
			return 0;
		}
		if (rc != WIRE_OK)
			return stream_fail(s, rc, p[0], s->offset);
		if (from_buf)
			s->bufoff += used;
		else {
			s->in += used;
			s->inlen -= used;
		}
		at = s->offset;
		s->offset += used;
		if ((rc = stream_apply(s, &f)) < 0)
			return stream_fail(s, rc, f.type, at);
		if (rc > 0)
			return rc;
	}
}

int
stream_finish(struct stream *s)
{
	const uint8_t	*p;

	if (s->err != 0)
		return s->err;
	if (s->bufoff < s->buflen || s->inlen > 0) {
		p = s->bufoff < s->buflen ? s->buf + s->bufoff : s->in;
		return stream_fail(s, WIRE_ERR_TRUNC, p[0], s->offset);
	}
	if (!s->model.have_hello)
		return stream_fail(s, STREAM_ERR_NOHELLO, 0, s->offset);
	return 0;
}

/* Messages of the stream's own codes, in code order from -20. */
static const char *const stream_errors[] = {
	"stream does not start with HELLO",
	"HELLO or SCHEMA sent twice",
	"SAMPLE before SCHEMA",
	"item for an instance never added",
	"ADD of an instance that exists",
	"ADD with an unknown group",
	"field beyond its group's fields",
	"STR on a field that is not a string",
	"VALS on a string field",
	"data after BYE",
	"too many instances (a probe sends at most 4096)",
	"strings over the 16 MiB a node may hold",
};

const char *
stream_strerror(int err)
{
	int	i = STREAM_ERR_NOHELLO - err;

	if (err == WIRE_ERR_TRUNC)
		return "truncated frame";
	if (i >= 0 && i < (int)(sizeof(stream_errors) /
	    sizeof(stream_errors[0])))
		return stream_errors[i];
	return wire_strerror(err);
}

void
stream_error(const struct stream *s, char *buf, size_t size)
{
	unsigned long long	at = (unsigned long long)s->err_offset;

	if (s->err == 0)
		snprintf(buf, size, "no error");
	else if (s->err == WIRE_ERR_TRUNC)
		snprintf(buf, size, "truncated frame at byte %llu", at);
	else if (s->err == STREAM_ERR_NOHELLO && s->err_type == 0)
		snprintf(buf, size, at == 0 ? "empty stream" :
		    "no HELLO in the stream");
	else if (s->err == WIRE_ERR_TOOBIG || s->err == WIRE_ERR_OVERFLOW ||
	    s->err_type == 0)
		snprintf(buf, size, "bad frame at byte %llu: %s", at,
		    stream_strerror(s->err));
	else if (s->err_type > MSG_BYE)
		snprintf(buf, size, "bad frame (type %u) at byte %llu: %s",
		    s->err_type, at, stream_strerror(s->err));
	else
		snprintf(buf, size, "bad %s frame at byte %llu: %s",
		    proto_msg_name(s->err_type), at, stream_strerror(s->err));
}
