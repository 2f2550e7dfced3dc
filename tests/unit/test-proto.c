/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of src/wire.c and src/proto.c: every message round-trips, and
 * every message cut at every byte is refused as truncated, never misread.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "proto.h"

static uint8_t	 mem[1 << 16];

static void
test_varint(void)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 255, 16383, 16384,
	    UINT32_MAX, (uint64_t)1 << 63, UINT64_MAX };
	static const int64_t svals[] = { 0, -1, 1, -64, 63, -65, INT64_MIN,
	    INT64_MAX };
	struct wbuf	 w;
	struct wreader	 r;
	uint64_t	 u;
	int64_t		 s;
	unsigned	 i;
	size_t		 cut;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		wbuf_init(&w, mem, sizeof(mem));
		CHECK_INT(wire_put_varint(&w, vals[i]), WIRE_OK);
		CHECK_INT(w.len, wire_varint_len(vals[i]));
		wreader_init(&r, mem, w.len);
		CHECK_INT(wire_get_varint(&r, &u), WIRE_OK);
		CHECK(u == vals[i]);
		for (cut = 0; cut < w.len; cut++) {
			wreader_init(&r, mem, cut);
			CHECK_INT(wire_get_varint(&r, &u), WIRE_ERR_TRUNC);
			CHECK_INT(r.off, 0);
		}
	}
	for (i = 0; i < sizeof(svals) / sizeof(svals[0]); i++) {
		wbuf_init(&w, mem, sizeof(mem));
		wire_put_svarint(&w, svals[i]);
		wreader_init(&r, mem, w.len);
		CHECK_INT(wire_get_svarint(&r, &s), WIRE_OK);
		CHECK(s == svals[i]);
	}
	wbuf_init(&w, mem, sizeof(mem));
	wire_put_svarint(&w, -1);
	CHECK_INT(w.len, 1);

	/* Eleven continuation bytes, and a tenth byte carrying bit 64. */
	memset(mem, 0x80, 11);
	wreader_init(&r, mem, 11);
	CHECK_INT(wire_get_varint(&r, &u), WIRE_ERR_OVERFLOW);
	memset(mem, 0xff, 9);
	mem[9] = 0x02;
	wreader_init(&r, mem, 10);
	CHECK_INT(wire_get_varint(&r, &u), WIRE_ERR_OVERFLOW);
	mem[9] = 0x01;
	wreader_init(&r, mem, 10);
	CHECK_INT(wire_get_varint(&r, &u), WIRE_OK);
	CHECK(u == UINT64_MAX);
}

static void
test_wbuf_full(void)
{
	uint8_t		small[4];
	struct wbuf	w;

	wbuf_init(&w, small, sizeof(small));
	CHECK_INT(wire_put_str(&w, "abc"), WIRE_OK);
	CHECK_INT(wire_put_u8(&w, 1), WIRE_ERR_FULL);
	/* The error is sticky: a later small put does not succeed. */
	CHECK_INT(wire_put_bytes(&w, "", 0), WIRE_ERR_FULL);
	CHECK_INT(w.len, 4);
}

static void
test_strings(void)
{
	struct wbuf	 w;
	struct wreader	 r;
	char		 dst[8];
	const char	*s;
	size_t		 n;

	wbuf_init(&w, mem, sizeof(mem));
	wire_put_str(&w, "hello");
	wire_put_strn(&w, "a\0b", 3);
	wire_put_str(&w, "toolongforit");
	wreader_init(&r, mem, w.len);
	CHECK_INT(wire_get_cstr(&r, dst, sizeof(dst)), WIRE_OK);
	CHECK_STR(dst, "hello");
	CHECK_INT(wire_get_cstr(&r, dst, sizeof(dst)), WIRE_ERR_RANGE);
	CHECK_INT(wire_get_str(&r, 8, &s, &n), WIRE_OK);	/* skip it */
	CHECK_INT(wire_get_cstr(&r, dst, sizeof(dst)), WIRE_ERR_RANGE);
	/* A length that runs past the end is truncation, not a read. */
	mem[0] = 100;
	wreader_init(&r, mem, 10);
	CHECK_INT(wire_get_str(&r, 1000, &s, &n), WIRE_ERR_TRUNC);
}

static void
test_crc(void)
{
	/* The CRC-32C check value of "123456789". */
	CHECK(wire_crc32c(0, "123456789", 9) == 0xe3069283u);
	CHECK(wire_crc32c(wire_crc32c(0, "1234", 4), "56789", 5) ==
	    0xe3069283u);
}

static void
fill_hello(struct proto_hello *h)
{
	memset(h, 0, sizeof(*h));
	strcpy(h->version, "1.2.3");
	strcpy(h->host, "node042");
	strcpy(h->kernel, "6.1.0-13-amd64");
	strcpy(h->arch, "x86_64");
	h->ncpu = 128;
	h->mem_total = 512ULL << 30;
	h->clk_tck = 100;
	h->page_size = 4096;
	h->start_ms = 1763780000123ULL;
	h->interval_ms = 500;
	strcpy(h->job, "123_4");
	h->nsources = 2;
	strcpy(h->sources[0].name, "cpu");
	h->sources[0].on = 1;
	strcpy(h->sources[1].name, "gpu");
	strcpy(h->sources[1].reason, "no NVIDIA driver");
}

/* Every proper prefix of a frame is truncated; the whole parses. */
static void
check_cuts(const uint8_t *f, size_t len, uint8_t type)
{
	struct proto_frame	fr;
	size_t			used, cut;
	int			err;

	for (cut = 0; cut < len; cut++) {
		err = proto_frame_parse(f, cut, &fr, &used);
		CHECK(err == WIRE_ERR_TRUNC);
	}
	CHECK_INT(proto_frame_parse(f, len, &fr, &used), WIRE_OK);
	CHECK_INT(used, len);
	CHECK_INT(fr.type, type);
}

static void
test_hello(void)
{
	struct proto_hello	h, g;
	struct proto_frame	fr;
	struct wbuf		w;
	size_t			used, cut;

	fill_hello(&h);
	wbuf_init(&w, mem, sizeof(mem));
	CHECK_INT(proto_put_hello(&w, &h), WIRE_OK);
	check_cuts(mem, w.len, MSG_HELLO);
	proto_frame_parse(mem, w.len, &fr, &used);
	CHECK_INT(proto_get_hello(fr.payload, fr.len, &g), WIRE_OK);
	CHECK_STR(g.host, "node042");
	CHECK_STR(g.kernel, h.kernel);
	CHECK_STR(g.job, "123_4");
	CHECK_INT(g.ncpu, 128);
	CHECK(g.mem_total == h.mem_total);
	CHECK(g.start_ms == h.start_ms);
	CHECK_INT(g.interval_ms, 500);
	CHECK_INT(g.nsources, 2);
	CHECK_INT(g.sources[1].on, 0);
	CHECK_STR(g.sources[1].reason, "no NVIDIA driver");
	/* A payload cut anywhere is an error, never a half-filled hello. */
	for (cut = 0; cut < fr.len; cut++)
		CHECK(proto_get_hello(fr.payload, cut, &g) != WIRE_OK);
	/* Trailing bytes are a later minor version's additions. */
	{
		uint8_t	more[1024];
		memcpy(more, fr.payload, fr.len);
		memcpy(more + fr.len, "\x05extra", 6);
		CHECK_INT(proto_get_hello(more, fr.len + 6, &g), WIRE_OK);
		more[4] = PROTO_MAJOR + 1;
		CHECK_INT(proto_get_hello(more, fr.len, &g),
		    WIRE_ERR_VERSION);
		more[4] = PROTO_MAJOR;
		more[0] = 'X';
		CHECK_INT(proto_get_hello(more, fr.len, &g), WIRE_ERR_BADMSG);
	}
}

static void
test_schema(void)
{
	struct proto_schema	*s;
	struct proto_frame	 fr;
	struct wbuf		 w;
	size_t			 start, used, cut;

	wbuf_init(&w, mem, sizeof(mem));
	CHECK_INT(proto_schema_begin(&w, &start, 2), WIRE_OK);
	proto_schema_group(&w, "mem", 2);
	proto_schema_field(&w, "total", "bytes", PF_GAUGE);
	proto_schema_field(&w, "free", "bytes", PF_GAUGE);
	proto_schema_group(&w, "rank", 3);
	proto_schema_field(&w, "utime", "jiffies", PF_COUNTER);
	proto_schema_field(&w, "state", "", PF_STRING);
	proto_schema_field(&w, "rss", "bytes", PF_GAUGE);
	CHECK_INT(proto_schema_end(&w, start), WIRE_OK);
	check_cuts(mem, w.len, MSG_SCHEMA);
	proto_frame_parse(mem, w.len, &fr, &used);
	CHECK_INT(proto_get_schema(fr.payload, fr.len, &s), WIRE_OK);
	if (s != NULL) {
		CHECK_INT(s->ngroups, 2);
		CHECK_STR(s->groups[1].name, "rank");
		CHECK_INT(s->groups[1].nfields, 3);
		CHECK_STR(s->groups[1].fields[1].name, "state");
		CHECK_INT(s->groups[1].fields[1].kind, PF_STRING);
		CHECK_STR(s->groups[1].fields[0].unit, "jiffies");
		CHECK_INT(proto_schema_group_index(s, "rank"), 1);
		CHECK_INT(proto_schema_field_index(&s->groups[1], "rss"), 2);
		CHECK_INT(proto_schema_group_index(s, "gpu"), -1);
		proto_schema_free(s);
	}
	for (cut = 0; cut < fr.len; cut++) {
		s = NULL;
		CHECK(proto_get_schema(fr.payload, cut, &s) != WIRE_OK);
		CHECK(s == NULL);
	}
	/* Duplicate groups, bad names and bad kinds are refused. */
	wbuf_init(&w, mem, sizeof(mem));
	proto_schema_begin(&w, &start, 2);
	proto_schema_group(&w, "mem", 0);
	proto_schema_group(&w, "mem", 0);
	proto_schema_end(&w, start);
	proto_frame_parse(mem, w.len, &fr, &used);
	CHECK_INT(proto_get_schema(fr.payload, fr.len, &s), WIRE_ERR_BADMSG);
	wbuf_init(&w, mem, sizeof(mem));
	proto_schema_begin(&w, &start, 1);
	proto_schema_group(&w, "a.b", 0);
	proto_schema_end(&w, start);
	proto_frame_parse(mem, w.len, &fr, &used);
	CHECK_INT(proto_get_schema(fr.payload, fr.len, &s), WIRE_ERR_BADMSG);
	CHECK_INT(proto_schema_field(&w, "x", "u", 7), WIRE_ERR_RANGE);
}

static void
test_sample(void)
{
	static const int64_t old[4] = { 10, 20, 30, 40 };
	static const int64_t cur[4] = { 10, 25, 5, 40 };
	struct proto_sample_wr	 sw;
	struct proto_sample_rd	 sr;
	struct proto_item	 it;
	struct proto_frame	 fr;
	struct wbuf		 w;
	size_t			 used, cut;
	int			 n;
	int64_t			 d[2] = { -3, 1000000 };

	wbuf_init(&w, mem, sizeof(mem));
	CHECK_INT(proto_sample_begin(&sw, &w, 7, 1000), WIRE_OK);
	proto_sample_add(&sw, 0, 1, "");
	proto_sample_vals(&sw, 0, 0x5, d);
	proto_sample_add(&sw, 5, 3, "1234");
	proto_sample_str(&sw, 5, 2, "pipe_read", 9);
	/* field 3 vanished, 1 and 2 changed, 0 same */
	proto_sample_diff(&sw, 5, 0xb, old, 0xb, cur, 0x3);
	proto_sample_drop(&sw, 2);
	CHECK_INT(proto_sample_end(&sw), WIRE_OK);
	check_cuts(mem, w.len, MSG_SAMPLE);
	proto_frame_parse(mem, w.len, &fr, &used);

	CHECK_INT(proto_sample_open(&sr, fr.payload, fr.len), WIRE_OK);
	CHECK(sr.seq == 7);
	CHECK(sr.dt_ms == 1000);
	CHECK_INT(proto_sample_next(&sr, &it), 1);
	CHECK_INT(it.kind, ITEM_ADD);
	CHECK_INT(it.inst, 0);
	CHECK_INT(it.group, 1);
	CHECK_INT(it.strlen, 0);
	CHECK_INT(proto_sample_next(&sr, &it), 1);
	CHECK_INT(it.kind, ITEM_VALS);
	CHECK(it.mask == 0x5);
	CHECK_INT(it.ndeltas, 2);
	CHECK(it.deltas[0] == -3 && it.deltas[1] == 1000000);
	CHECK_INT(proto_sample_next(&sr, &it), 1);
	CHECK_INT(it.kind, ITEM_ADD);
	CHECK_INT(it.inst, 5);
	CHECK(it.strlen == 4 && memcmp(it.str, "1234", 4) == 0);
	CHECK_INT(proto_sample_next(&sr, &it), 1);
	CHECK_INT(it.kind, ITEM_STR);
	CHECK_INT(it.field, 2);
	CHECK(it.strlen == 9 && memcmp(it.str, "pipe_read", 9) == 0);
	CHECK_INT(proto_sample_next(&sr, &it), 1);
	CHECK_INT(it.kind, ITEM_CLEAR);
	CHECK(it.mask == 0x8);
	CHECK_INT(proto_sample_next(&sr, &it), 1);
	CHECK_INT(it.kind, ITEM_VALS);
	CHECK(it.mask == 0x2);	/* field 2 is not an integer (intmask) */
	CHECK(it.deltas[0] == 5);
	CHECK_INT(proto_sample_next(&sr, &it), 1);
	CHECK_INT(it.kind, ITEM_DROP);
	CHECK_INT(it.inst, 2);
	CHECK_INT(proto_sample_next(&sr, &it), 0);

	/* Every cut payload ends in an error or a clean end, and a cut
	 * inside an item is never a complete item. */
	for (cut = 0; cut < fr.len; cut++) {
		int items = 0;
		if (proto_sample_open(&sr, fr.payload, cut) != WIRE_OK)
			continue;
		while ((n = proto_sample_next(&sr, &it)) > 0)
			items++;
		CHECK(items <= 7);
		CHECK(n < 0 || items < 7 || cut == fr.len);
	}
	/* A VALS with an empty mask and an unknown item kind are bad. */
	{
		const uint8_t bad1[] = { 0, 0, 0x00, 0x00 };
		const uint8_t bad2[] = { 0, 0, 0x07 };
		proto_sample_open(&sr, bad1, sizeof(bad1));
		CHECK_INT(proto_sample_next(&sr, &it), WIRE_ERR_BADMSG);
		proto_sample_open(&sr, bad2, sizeof(bad2));
		CHECK_INT(proto_sample_next(&sr, &it), WIRE_ERR_BADMSG);
	}
}

static void
test_event_bye(void)
{
	struct proto_event	ev, got;
	struct proto_frame	fr;
	struct wbuf		w;
	char			text[64];
	uint32_t		code;
	size_t			used, cut;

	memset(&ev, 0, sizeof(ev));
	ev.time_ms = 1763780000999ULL;
	ev.level = EV_WARN;
	strcpy(ev.code, "instances-full");
	strcpy(ev.text, "more than 4096 instances");
	wbuf_init(&w, mem, sizeof(mem));
	CHECK_INT(proto_put_event(&w, &ev), WIRE_OK);
	check_cuts(mem, w.len, MSG_EVENT);
	proto_frame_parse(mem, w.len, &fr, &used);
	CHECK_INT(proto_get_event(fr.payload, fr.len, &got), WIRE_OK);
	CHECK(got.time_ms == ev.time_ms);
	CHECK_INT(got.level, EV_WARN);
	CHECK_STR(got.code, ev.code);
	CHECK_STR(got.text, ev.text);
	for (cut = 0; cut < fr.len; cut++)
		CHECK(proto_get_event(fr.payload, cut, &got) != WIRE_OK);

	wbuf_init(&w, mem, sizeof(mem));
	CHECK_INT(proto_put_bye(&w, 1, "signal"), WIRE_OK);
	check_cuts(mem, w.len, MSG_BYE);
	proto_frame_parse(mem, w.len, &fr, &used);
	CHECK_INT(proto_get_bye(fr.payload, fr.len, &code, text,
	    sizeof(text)), WIRE_OK);
	CHECK_INT(code, 1);
	CHECK_STR(text, "signal");
	for (cut = 0; cut < fr.len; cut++)
		CHECK(proto_get_bye(fr.payload, cut, &code, text,
		    sizeof(text)) != WIRE_OK);
}

static void
test_frame_limits(void)
{
	static uint8_t		 big[PROTO_FRAME_MAX + 64];
	struct proto_frame	 fr;
	struct wbuf		 w;
	size_t			 used, start;
	const uint8_t		 four[] = { MSG_SAMPLE, 0x80, 0x80, 0x80, 0x01 };
	const uint8_t		 over[] = { MSG_SAMPLE, 0x81, 0x80, 0x40 };
	const uint8_t		 zero[] = { 0, 0 };

	CHECK_INT(proto_frame_parse(four, sizeof(four), &fr, &used),
	    WIRE_ERR_TOOBIG);
	CHECK_INT(proto_frame_parse(over, sizeof(over), &fr, &used),
	    WIRE_ERR_TOOBIG);
	CHECK_INT(proto_frame_parse(zero, sizeof(zero), &fr, &used),
	    WIRE_ERR_BADMSG);
	/* The largest frame fits; one byte more is refused by the writer. */
	wbuf_init(&w, big, sizeof(big));
	proto_frame_begin(&w, MSG_EVENT, &start);
	w.len += PROTO_FRAME_MAX;
	CHECK_INT(proto_frame_end(&w, start), WIRE_OK);
	CHECK_INT(proto_frame_parse(big, w.len, &fr, &used), WIRE_OK);
	CHECK_INT(fr.len, PROTO_FRAME_MAX);
	wbuf_init(&w, big, sizeof(big));
	proto_frame_begin(&w, MSG_EVENT, &start);
	w.len += PROTO_FRAME_MAX + 1;
	CHECK_INT(proto_frame_end(&w, start), WIRE_ERR_TOOBIG);
	/* Short frames get a one-byte length. */
	wbuf_init(&w, mem, sizeof(mem));
	proto_put_bye(&w, 0, "");
	CHECK_INT(w.len, 4);
}

int
main(void)
{
	RUN(test_varint);
	RUN(test_wbuf_full);
	RUN(test_strings);
	RUN(test_crc);
	RUN(test_hello);
	RUN(test_schema);
	RUN(test_sample);
	RUN(test_event_bye);
	RUN(test_frame_limits);
	return harness_done();
}
