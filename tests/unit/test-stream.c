/* SPDX-License-Identifier: ISC */
/*
 * test-stream: the stream decoder and the node model.  Streams are written
 * with the protocol writers of src/proto.h, fed to stream.c whole, byte by
 * byte and in odd chunks, and the model is checked for values, rates,
 * absent-versus-zero, drops and strings; then every rule a stream can break
 * must give its error code, and mangled streams must never crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model.h"
#include "out.h"
#include "out-json.h"
#include "proto.h"
#include "stream.h"

enum { G_CPU, G_MEM, G_LOAD, G_DISK, G_RANK, G_NGROUPS };
enum { CPU_USER, CPU_IDLE, CPU_IOWAIT, CPU_PROCS };
enum { MEM_TOTAL, MEM_AVAIL };
enum { R_RANK, R_PID, R_STATE, R_COMM, R_UTIME, R_STIME, R_RSS };

#define START_MS	1700000000000ULL

static uint8_t		 mem[4 << 20];
static struct wbuf	 w;

static void
put_hello(const char *host, uint8_t major)
{
	static struct proto_hello h;
	size_t	before = w.len, i;

	memset(&h, 0, sizeof(h));
	snprintf(h.version, sizeof(h.version), "test");
	snprintf(h.host, sizeof(h.host), "%s", host);
	snprintf(h.kernel, sizeof(h.kernel), "6.1");
	snprintf(h.arch, sizeof(h.arch), "x86_64");
	h.ncpu = 4;
	h.mem_total = 1000;
	h.clk_tck = 100;
	h.page_size = 4096;
	h.start_ms = START_MS;
	h.interval_ms = 1000;
	h.nsources = 2;
	snprintf(h.sources[0].name, PROTO_NAME_MAX, "cpu");
	h.sources[0].on = 1;
	snprintf(h.sources[1].name, PROTO_NAME_MAX, "gpu");
	snprintf(h.sources[1].reason, PROTO_TEXT_MAX, "no driver");
	CHECK_INT(proto_put_hello(&w, &h), WIRE_OK);
	if (major == PROTO_MAJOR)
		return;
	/* Patch the major version right after the magic. */
	for (i = before; i + 4 < w.len; i++) {
		if (memcmp(w.data + i, PROTO_MAGIC, 4) == 0) {
			w.data[i + 4] = major;
			break;
		}
	}
}

static void
put_field(const char *name, const char *unit, uint8_t kind)
{
	CHECK_INT(proto_schema_field(&w, name, unit, kind), WIRE_OK);
}

static void
put_schema(void)
{
	size_t	start;

	CHECK_INT(proto_schema_begin(&w, &start, G_NGROUPS), WIRE_OK);
	proto_schema_group(&w, "cpu", 4);
	put_field("user", "cpu-jiffies", PF_COUNTER);
	put_field("idle", "cpu-jiffies", PF_COUNTER);
	put_field("iowait", "cpu-jiffies", PF_COUNTER);
	put_field("procs", "count", PF_GAUGE);
	proto_schema_group(&w, "mem", 2);
	put_field("total", "bytes", PF_GAUGE);
	put_field("available", "bytes", PF_GAUGE);
	proto_schema_group(&w, "load", 1);
	put_field("load1", "centi", PF_GAUGE);
	proto_schema_group(&w, "disk", 1);
	put_field("read_bytes", "bytes", PF_COUNTER);
	proto_schema_group(&w, "rank", 7);
	put_field("rank", "", PF_GAUGE);
	put_field("pid", "", PF_GAUGE);
	put_field("state", "", PF_STRING);
	put_field("comm", "", PF_STRING);
	put_field("utime", "jiffies", PF_COUNTER);
	put_field("stime", "jiffies", PF_COUNTER);
	put_field("rss", "bytes", PF_GAUGE);
	CHECK_INT(proto_schema_end(&w, start), WIRE_OK);
}

static void
vals(struct proto_sample_wr *sw, uint32_t inst, uint64_t mask, int64_t a,
    int64_t b, int64_t c, int64_t d)
{
	int64_t	deltas[4] = { a, b, c, d };

	CHECK_INT(proto_sample_vals(sw, inst, mask, deltas), WIRE_OK);
}

/*
 * The reference stream: four samples exercising first values, rates,
 * clears, reappearing fields, drops, strings and a counter going back.
 */
static size_t
build_good(void)
{
	struct proto_sample_wr	 sw;
	struct proto_event	 ev;

	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR);
	put_schema();

	/* Sample 0: everything is new; counters have no rate yet. */
	proto_sample_begin(&sw, &w, 0, 100);
	proto_sample_add(&sw, 0, G_CPU, "");
	vals(&sw, 0, 0xf, 100, 800, 100, 3);
	proto_sample_add(&sw, 1, G_MEM, "");
	vals(&sw, 1, 0x3, 1000, 400, 0, 0);
	proto_sample_add(&sw, 2, G_LOAD, "");
	vals(&sw, 2, 0x1, 152, 0, 0, 0);
	proto_sample_add(&sw, 3, G_DISK, "sda");
	vals(&sw, 3, 0x1, 5000, 0, 0, 0);
	proto_sample_add(&sw, 4, G_RANK, "4242");
	vals(&sw, 4, (1 << R_RANK) | (1 << R_PID), 0, 4242, 0, 0);
	vals(&sw, 4, (1 << R_UTIME) | (1 << R_STIME), 50, 10, 0, 0);
	proto_sample_str(&sw, 4, R_STATE, "R", 1);
	proto_sample_str(&sw, 4, R_COMM, "a.\"out\"\n", 8);
	CHECK_INT(proto_sample_end(&sw), WIRE_OK);

	memset(&ev, 0, sizeof(ev));
	ev.time_ms = START_MS + 50;
	ev.level = EV_WARN;
	snprintf(ev.code, sizeof(ev.code), "test-event");
	snprintf(ev.text, sizeof(ev.text), "something happened");
	CHECK_INT(proto_put_event(&w, &ev), WIRE_OK);

	/* Sample 1, one second later. */
	proto_sample_begin(&sw, &w, 1, 1000);
	vals(&sw, 0, 0x7, 30, 60, 10, 0);
	proto_sample_clear(&sw, 1, 1 << MEM_AVAIL);
	vals(&sw, 3, 0x1, 2048, 0, 0, 0);
	vals(&sw, 4, 1 << R_UTIME, 50, 0, 0, 0);
	proto_sample_add(&sw, 5, G_DISK, "sdb");
	vals(&sw, 5, 0x1, 7, 0, 0, 0);
	CHECK_INT(proto_sample_end(&sw), WIRE_OK);

	/* Sample 2, half a second later. */
	proto_sample_begin(&sw, &w, 2, 500);
	proto_sample_clear(&sw, 0, 1 << CPU_IOWAIT);
	vals(&sw, 0, 0x3, 10, 40, 0, 0);
	vals(&sw, 1, 1 << MEM_AVAIL, 500, 0, 0, 0);
	proto_sample_drop(&sw, 3);
	proto_sample_str(&sw, 4, R_STATE, "S", 1);
	vals(&sw, 5, 0x1, 100, 0, 0, 0);
	CHECK_INT(proto_sample_end(&sw), WIRE_OK);

	/* Sample 3: iowait reappears; utime goes backwards. */
	proto_sample_begin(&sw, &w, 3, 1000);
	vals(&sw, 0, 0x7, 50, 50, 500, 0);
	proto_sample_clear(&sw, 4, 1 << R_COMM);
	vals(&sw, 4, 1 << R_UTIME, -10, 0, 0, 0);
	CHECK_INT(proto_sample_end(&sw), WIRE_OK);

	CHECK_INT(proto_put_bye(&w, 0, "done"), WIRE_OK);
	CHECK_INT(w.err, WIRE_OK);
	return w.len;
}

static const struct minst *
inst(const struct node_model *m, int g, const char *name)
{
	return model_inst_by_name(m, (unsigned)g, name);
}

/* The metric of a field, or -1 when absent (no test value is -1). */
static double
metric(const struct node_model *m, int g, const char *name, unsigned f)
{
	const struct minst	*mi = inst(m, g, name);
	double			 v;

	if (mi == NULL || !model_metric(m, mi, f, &v))
		return -1;
	return v;
}

static double
derived(const struct node_model *m, int g, const char *name, const char *d)
{
	const struct minst	*mi = inst(m, g, name);
	double			 v;

	if (mi == NULL || !model_derive(m, mi, d, &v))
		return -1;
	return v;
}

/* The JSON node record of the model, in a static buffer. */
static const char *
json_node(const struct node_model *m)
{
	static char	 buf[8192];
	FILE		*f;

	f = fmemopen(buf, sizeof(buf), "w");
	out_json.sample(f, m);
	fclose(f);
	return buf;
}

static void
check_sample(const struct node_model *m)
{
	const struct minst	*r = inst(m, G_RANK, "4242");
	const char		*js;
	int64_t			 v;

	CHECK(r != NULL);
	if (r == NULL)
		return;
	js = json_node(m);
	switch (m->seq) {
	case 0:
		CHECK_INT(m->time_ms, START_MS + 100);
		CHECK_NEAR(metric(m, G_CPU, "", CPU_USER), -1, 0);
		CHECK_NEAR(metric(m, G_CPU, "", CPU_PROCS), 3, 0);
		CHECK_NEAR(metric(m, G_LOAD, "", 0), 1.52, 1e-9);
		CHECK_NEAR(derived(m, G_MEM, "", "used"), 600, 0);
		CHECK_NEAR(derived(m, G_CPU, "", "busy"), -1, 0);
		CHECK_NEAR(metric(m, G_DISK, "sda", 0), -1, 0);
		CHECK(model_value(inst(m, G_DISK, "sda"), 0, &v) && v == 5000);
		CHECK_STR(model_str(r, R_STATE), "R");
		CHECK_STR(model_str(r, R_COMM), "a.\"out\"\n");
		CHECK_NEAR(derived(m, G_RANK, "4242", "cputime"), 0.6, 1e-9);
		CHECK_NEAR(derived(m, G_RANK, "4242", "cpu"), -1, 0);
		/* A first sample has no rate: the key is absent, not 0. */
		CHECK(strstr(js, "\"cpu.user\"") == NULL);
		CHECK(strstr(js, "\"disk.read_bytes\"") == NULL);
		CHECK(strstr(js, "\"cpu.procs\":3") != NULL);
		CHECK(strstr(js, "\"load.load1\":1.52") != NULL);
		CHECK(strstr(js, "\"mem.used\":600") != NULL);
		CHECK(strstr(js, "\"time\":1700000000.100") != NULL);
		CHECK(strstr(js, "\"comm\"") == NULL);
		CHECK(strstr(js, "\"rank.comm\":\"a.\\\"out\\\"\\n\"") !=
		    NULL);
		CHECK(strstr(js, "\"type\":\"rank\",\"rank\":0,\"pid\":4242,"
		    "\"state\":\"R\"") != NULL);
		break;
	case 1:
		CHECK_INT(m->time_ms, START_MS + 1100);
		CHECK_NEAR(metric(m, G_CPU, "", CPU_USER), 30, 1e-9);
		CHECK_NEAR(metric(m, G_CPU, "", CPU_IDLE), 60, 1e-9);
		CHECK_NEAR(metric(m, G_CPU, "", CPU_IOWAIT), 10, 1e-9);
		CHECK_NEAR(derived(m, G_CPU, "", "busy"), 30, 1e-9);
		CHECK_NEAR(metric(m, G_MEM, "", MEM_AVAIL), -1, 0);
		CHECK_NEAR(derived(m, G_MEM, "", "used"), -1, 0);
		CHECK_NEAR(metric(m, G_DISK, "sda", 0), 2048, 1e-9);
		CHECK_NEAR(metric(m, G_DISK, "sdb", 0), -1, 0);
		CHECK_NEAR(metric(m, G_RANK, "4242", R_UTIME), 50, 1e-9);
		/* Unchanged counter: present in both samples, rate 0. */
		CHECK_NEAR(metric(m, G_RANK, "4242", R_STIME), 0, 0);
		CHECK_NEAR(derived(m, G_RANK, "4242", "cpu"), 50, 1e-9);
		CHECK_NEAR(derived(m, G_RANK, "4242", "cputime"), 1.1, 1e-9);
		CHECK(strstr(js, "\"disk.read_bytes\":{\"sda\":2048}") !=
		    NULL);
		CHECK(strstr(js, "\"mem.available\"") == NULL);
		CHECK(strstr(js, "\"rank.stime\":0") != NULL);
		CHECK(strstr(js, "\"cpu.busy\":30") != NULL);
		break;
	case 2:
		CHECK_INT(m->time_ms, START_MS + 1600);
		CHECK(inst(m, G_DISK, "sda") == NULL);
		CHECK_INT(m->gcount[G_DISK], 1);
		CHECK_NEAR(metric(m, G_DISK, "sdb", 0), 200, 1e-9);
		CHECK_NEAR(metric(m, G_CPU, "", CPU_USER), 20, 1e-9);
		CHECK_NEAR(metric(m, G_CPU, "", CPU_IOWAIT), -1, 0);
		CHECK_NEAR(derived(m, G_CPU, "", "busy"), 20, 1e-9);
		CHECK_NEAR(metric(m, G_MEM, "", MEM_AVAIL), 500, 0);
		CHECK_STR(model_str(r, R_STATE), "S");
		CHECK(strstr(js, "\"disk.read_bytes\":{\"sdb\":200}") !=
		    NULL);
		break;
	case 3:
		CHECK_INT(m->time_ms, START_MS + 2600);
		CHECK(model_value(inst(m, G_CPU, ""), CPU_IOWAIT, &v) &&
		    v == 500);
		CHECK_NEAR(metric(m, G_CPU, "", CPU_IOWAIT), -1, 0);
		CHECK_NEAR(metric(m, G_CPU, "", CPU_USER), 50, 1e-9);
		CHECK_NEAR(metric(m, G_RANK, "4242", R_UTIME), -1, 0);
		CHECK(model_str(r, R_COMM) == NULL);
		CHECK(!model_value(r, R_RSS, &v));
		break;
	default:
		CHECK(!"unexpected sample");
	}
}

/* Feed len bytes in chunks of the given size (0: growing odd sizes) and
 * check every message; returns the message types seen as a string. */
static void
decode_good(const uint8_t *p, size_t len, size_t chunk, char *seen,
    size_t seensz)
{
	struct stream	*s = stream_new("label");
	size_t		 off = 0, n, ns = 0, step = 1;
	int		 t;

	while (off < len) {
		n = chunk != 0 ? chunk : step++ % 37 + 1;
		if (n > len - off)
			n = len - off;
		stream_feed(s, p + off, n);
		off += n;
		while ((t = stream_next(s)) > 0) {
			if (ns + 1 < seensz)
				seen[ns++] = "?HCSEB"[t <= MSG_BYE ? t : 0];
			if (t == MSG_SAMPLE)
				check_sample(stream_model(s));
			if (t == MSG_EVENT) {
				CHECK_STR(stream_event(s)->code,
				    "test-event");
				CHECK_INT(stream_event(s)->level, EV_WARN);
			}
		}
		CHECK_INT(t, 0);
	}
	seen[ns] = '\0';
	CHECK_INT(stream_finish(s), 0);
	CHECK_INT(stream_offset(s), len);
	CHECK_STR(model_name(stream_model(s)), "n1");
	CHECK(stream_model(s)->ended);
	CHECK_STR(stream_model(s)->bye_text, "done");
	CHECK_INT(stream_model(s)->nsamples, 4);
	stream_free(s);
}

static void
test_good_whole(void)
{
	char	seen[32];
	size_t	len = build_good();

	decode_good(mem, len, len, seen, sizeof(seen));
	CHECK_STR(seen, "HCSESSSB");
}

static void
test_good_bytewise(void)
{
	char	seen[32];
	size_t	len = build_good();

	decode_good(mem, len, 1, seen, sizeof(seen));
	CHECK_STR(seen, "HCSESSSB");
}

static void
test_good_chunks(void)
{
	char	seen[32];
	size_t	len = build_good();

	decode_good(mem, len, 0, seen, sizeof(seen));
	CHECK_STR(seen, "HCSESSSB");
	decode_good(mem, len, 7, seen, sizeof(seen));
	CHECK_STR(seen, "HCSESSSB");
}

/* Decode a whole buffer; the first error or, at the end, the finish. */
static int
decode_err(const uint8_t *p, size_t len, struct stream **sp)
{
	struct stream	*s = stream_new("x");
	int		 t;

	stream_feed(s, p, len);
	while ((t = stream_next(s)) > 0)
		;
	if (t == 0)
		t = stream_finish(s);
	if (sp != NULL)
		*sp = s;
	else
		stream_free(s);
	return t;
}

/* A stream of HELLO, SCHEMA and one ADD of the cpu instance; the sample
 * writer is left open for the caller's items. */
static void
begin_bad(struct proto_sample_wr *sw)
{
	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR);
	put_schema();
	proto_sample_begin(sw, &w, 0, 100);
	proto_sample_add(sw, 0, G_CPU, "");
	proto_sample_add(sw, 1, G_RANK, "77");
}

static int
end_bad(struct proto_sample_wr *sw)
{
	CHECK_INT(proto_sample_end(sw), WIRE_OK);
	return decode_err(mem, w.len, NULL);
}

static void
test_bad_items(void)
{
	struct proto_sample_wr	sw;

	begin_bad(&sw);
	vals(&sw, 9, 1, 1, 0, 0, 0);
	CHECK_INT(end_bad(&sw), STREAM_ERR_NOINST);

	begin_bad(&sw);
	proto_sample_drop(&sw, 5);
	CHECK_INT(end_bad(&sw), STREAM_ERR_NOINST);

	begin_bad(&sw);
	proto_sample_str(&sw, 6, 0, "x", 1);
	CHECK_INT(end_bad(&sw), STREAM_ERR_NOINST);

	begin_bad(&sw);
	proto_sample_add(&sw, 2, G_NGROUPS, "bogus");
	CHECK_INT(end_bad(&sw), STREAM_ERR_GROUP);

	begin_bad(&sw);
	proto_sample_add(&sw, 0, G_MEM, "");
	CHECK_INT(end_bad(&sw), STREAM_ERR_DUPINST);

	begin_bad(&sw);
	vals(&sw, 0, 1 << 4, 1, 0, 0, 0);	/* cpu has 4 fields */
	CHECK_INT(end_bad(&sw), STREAM_ERR_FIELD);

	begin_bad(&sw);
	vals(&sw, 0, (uint64_t)1 << 63, 1, 0, 0, 0);
	CHECK_INT(end_bad(&sw), STREAM_ERR_FIELD);

	begin_bad(&sw);
	proto_sample_clear(&sw, 0, 1 << 5);
	CHECK_INT(end_bad(&sw), STREAM_ERR_FIELD);

	begin_bad(&sw);
	proto_sample_str(&sw, 1, 7, "x", 1);	/* rank has 7 fields */
	CHECK_INT(end_bad(&sw), STREAM_ERR_FIELD);

	begin_bad(&sw);
	proto_sample_str(&sw, 1, R_PID, "x", 1);
	CHECK_INT(end_bad(&sw), STREAM_ERR_NOTSTR);

	begin_bad(&sw);
	vals(&sw, 1, 1 << R_STATE, 1, 0, 0, 0);
	CHECK_INT(end_bad(&sw), STREAM_ERR_ISSTR);

	/* After a drop the instance is gone. */
	begin_bad(&sw);
	proto_sample_drop(&sw, 1);
	vals(&sw, 1, 1, 1, 0, 0, 0);
	CHECK_INT(end_bad(&sw), STREAM_ERR_NOINST);

	/* A drop and a new ADD of the same id in one sample is fine. */
	begin_bad(&sw);
	proto_sample_drop(&sw, 1);
	proto_sample_add(&sw, 1, G_DISK, "sdc");
	vals(&sw, 1, 1, 5, 0, 0, 0);
	CHECK_INT(end_bad(&sw), 0);
}

static void
test_bad_order(void)
{
	struct proto_sample_wr	 sw;
	struct stream		*s;
	char			 msg[256];
	size_t			 start;

	/* SAMPLE before SCHEMA. */
	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR);
	proto_sample_begin(&sw, &w, 0, 100);
	proto_sample_end(&sw);
	CHECK_INT(decode_err(mem, w.len, NULL), STREAM_ERR_NOSCHEMA);

	/* SCHEMA before HELLO. */
	wbuf_init(&w, mem, sizeof(mem));
	put_schema();
	CHECK_INT(decode_err(mem, w.len, NULL), STREAM_ERR_NOHELLO);

	/* Two HELLOs, two SCHEMAs. */
	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR);
	put_hello("n1", PROTO_MAJOR);
	CHECK_INT(decode_err(mem, w.len, NULL), STREAM_ERR_TWICE);
	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR);
	put_schema();
	put_schema();
	CHECK_INT(decode_err(mem, w.len, NULL), STREAM_ERR_TWICE);

	/* Anything after BYE. */
	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR);
	proto_put_bye(&w, 0, "done");
	put_schema();
	CHECK_INT(decode_err(mem, w.len, NULL), STREAM_ERR_AFTERBYE);

	/* A major version from the future. */
	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR + 1);
	CHECK_INT(decode_err(mem, w.len, &s), WIRE_ERR_VERSION);
	stream_error(s, msg, sizeof(msg));
	CHECK_STR(msg, "bad HELLO frame at byte 0: incompatible protocol "
	    "version");
	stream_free(s);

	/* Nothing may come before HELLO, not even an EVENT. */
	wbuf_init(&w, mem, sizeof(mem));
	{
		struct proto_event ev;
		memset(&ev, 0, sizeof(ev));
		snprintf(ev.code, sizeof(ev.code), "early");
		proto_put_event(&w, &ev);
	}
	put_hello("n1", PROTO_MAJOR);
	CHECK_INT(decode_err(mem, w.len, NULL), STREAM_ERR_NOHELLO);
	CHECK_INT(decode_err(mem, 0, &s), STREAM_ERR_NOHELLO);
	stream_error(s, msg, sizeof(msg));
	CHECK_STR(msg, "empty stream");
	stream_free(s);

	/* Frames of unknown types are skipped. */
	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR);
	proto_frame_begin(&w, 42, &start);
	wire_put_str(&w, "from a later minor version");
	proto_frame_end(&w, start);
	put_schema();
	CHECK_INT(decode_err(mem, w.len, NULL), 0);
}

static void
test_bad_frames(void)
{
	struct stream	*s;
	char		 msg[256];
	size_t		 len, last;
	int		 t;

	/* Cut inside the last frame: truncated at that frame's start. */
	len = build_good();
	last = len - 8;		/* BYE: type, length, code, "done" */
	CHECK_INT(mem[last], MSG_BYE);
	CHECK_INT(decode_err(mem, len - 1, &s), WIRE_ERR_TRUNC);
	stream_error(s, msg, sizeof(msg));
	{
		char	want[64];
		snprintf(want, sizeof(want), "truncated frame at byte %zu",
		    last);
		CHECK_STR(msg, want);
	}
	/* Sticky: the same error again, and the model kept its samples. */
	CHECK_INT(stream_next(s), WIRE_ERR_TRUNC);
	CHECK_INT(stream_model(s)->nsamples, 4);
	stream_free(s);

	/* Frame type 0. */
	mem[0] = 0;
	mem[1] = 0;
	CHECK_INT(decode_err(mem, 2, NULL), WIRE_ERR_BADMSG);

	/* A length over the maximum. */
	mem[0] = MSG_SAMPLE;
	mem[1] = 0xff;
	mem[2] = 0xff;
	mem[3] = 0x7f;
	CHECK_INT(decode_err(mem, 4, NULL), WIRE_ERR_TOOBIG);

	/* Garbage in a SAMPLE payload: an unknown item kind. */
	len = build_good();
	s = stream_new("x");
	stream_feed(s, mem, len);
	while ((t = stream_next(s)) > 0 && t != MSG_SCHEMA)
		;
	{
		static const uint8_t bad[] = { MSG_SAMPLE, 3, 0, 0, 7 };
		stream_feed(s, bad, sizeof(bad));
		CHECK_INT(stream_next(s), WIRE_ERR_BADMSG);
	}
	stream_free(s);
}

static void
test_too_many(void)
{
	struct proto_sample_wr	sw;
	uint32_t		i;

	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR);
	put_schema();
	proto_sample_begin(&sw, &w, 0, 100);
	for (i = 0; i <= STREAM_INST_MAX; i++)
		proto_sample_add(&sw, i, G_LOAD, "");
	CHECK_INT(proto_sample_end(&sw), WIRE_OK);
	CHECK_INT(decode_err(mem, w.len, NULL), STREAM_ERR_TOOMANY);
}

/* Feed what w holds (from byte *at) and count the samples decoded. */
static int
feed_more(struct stream *s, size_t *at)
{
	int	t;

	stream_feed(s, mem + *at, w.len - *at);
	*at = w.len;
	while ((t = stream_next(s)) > 0)
		;
	return t;
}

/* One SAMPLE that adds instances first..last-1 of group 0 (64 string
 * fields) and fills every field with 255 bytes of c. */
static void
put_full(uint64_t seq, uint32_t first, uint32_t last, char c)
{
	struct proto_sample_wr	 sw;
	char			 v[256], name[16];
	uint32_t		 i;
	unsigned		 f;

	memset(v, c, 255);
	v[255] = '\0';
	wbuf_init(&w, mem, sizeof(mem));
	proto_sample_begin(&sw, &w, seq, 100);
	for (i = first; i < last; i++) {
		snprintf(name, sizeof(name), "%u", i);
		proto_sample_add(&sw, i, 0, name);
		for (f = 0; f < 64; f++)
			proto_sample_str(&sw, i, f, v, 255);
	}
	CHECK_INT(proto_sample_end(&sw), WIRE_OK);
}

/* A node may hold STREAM_STR_MAX bytes of strings and no more; dropped,
 * cleared and replaced strings give their bytes back. */
static void
test_str_budget(void)
{
	struct stream		*s;
	struct proto_sample_wr	 sw;
	size_t			 start, at, per, names = 0;
	uint32_t		 i, n, done = 0;
	uint64_t		 seq = 0;
	char			 fname[16], err[200], v[256];

	per = 64 * 255;
	n = (uint32_t)(STREAM_STR_MAX / (per + 4));	/* names take <= 4 */
	s = stream_new("x");
	wbuf_init(&w, mem, sizeof(mem));
	put_hello("n1", PROTO_MAJOR);
	CHECK_INT(proto_schema_begin(&w, &start, 1), WIRE_OK);
	proto_schema_group(&w, "s", 64);
	for (i = 0; i < 64; i++) {
		snprintf(fname, sizeof(fname), "f%u", i);
		put_field(fname, "", PF_STRING);
	}
	CHECK_INT(proto_schema_end(&w, start), WIRE_OK);
	at = 0;
	CHECK_INT(feed_more(s, &at), 0);
	/* Just under the budget, 60 instances (~1 MB) a frame. */
	while (done < n) {
		i = done + 60 < n ? done + 60 : n;
		put_full(seq++, done, i, 'a');
		for (; done < i; done++)
			names += (size_t)snprintf(fname, sizeof(fname), "%u",
			    done);
		at = 0;
		CHECK_INT(feed_more(s, &at), 0);
	}
	CHECK_INT(stream_model(s)->strbytes, (size_t)n * per + names);
	CHECK(stream_model(s)->strbytes <= STREAM_STR_MAX);
	/* New values of the same length cost nothing more; a DROP and a
	 * CLEAR of 32 fields give their bytes back. */
	memset(v, 'b', 255);
	v[255] = '\0';
	wbuf_init(&w, mem, sizeof(mem));
	proto_sample_begin(&sw, &w, seq++, 100);
	for (i = 0; i < 64; i++)
		proto_sample_str(&sw, 0, i, v, 255);
	proto_sample_drop(&sw, 1);
	proto_sample_clear(&sw, 2, 0xffffffffULL);
	CHECK_INT(proto_sample_end(&sw), WIRE_OK);
	at = 0;
	CHECK_INT(feed_more(s, &at), 0);
	CHECK_INT(stream_model(s)->strbytes, (size_t)(n - 1) * per -
	    32 * 255 + names - 1);
	/* So full instances fit again while the budget allows, and the
	 * first that does not fails the stream with a clear reason. */
	for (i = n; stream_model(s)->strbytes + per + 4 <= STREAM_STR_MAX;
	    i++) {
		put_full(seq++, i, i + 1, 'c');
		at = 0;
		CHECK_INT(feed_more(s, &at), 0);
	}
	CHECK(i > n);
	put_full(seq++, i, i + 1, 'd');
	at = 0;
	CHECK_INT(feed_more(s, &at), STREAM_ERR_STRBYTES);
	stream_error(s, err, sizeof(err));
	CHECK(strstr(err, "strings over the 16 MiB a node may hold") != NULL);
	stream_free(s);
}

static void
test_shared_schema(void)
{
	struct stream	*a, *b;
	size_t		 len = build_good();
	int		 t;

	a = stream_new("a");
	b = stream_new("b");
	stream_feed(a, mem, len);
	while ((t = stream_next(a)) > 0)
		;
	stream_feed(b, mem, len);
	while ((t = stream_next(b)) > 0)
		;
	CHECK(stream_model(a)->schema != NULL);
	CHECK(stream_model(a)->schema == stream_model(b)->schema);
	CHECK_INT(stream_model(a)->schema->refs, 2);
	stream_free(a);
	CHECK_INT(stream_model(b)->schema->refs, 1);
	stream_free(b);
}

/* A stream of just HELLO from host (and the gpu source's reason). */
static struct stream *
hello_stream(const char *host, const char *gpu_reason)
{
	struct stream	*s = stream_new(host);
	size_t		 i;

	wbuf_init(&w, mem, sizeof(mem));
	put_hello(host, PROTO_MAJOR);
	/* put_hello's gpu reason is "no driver": patch it in place. */
	for (i = 0; i + 9 <= w.len; i++)
		if (memcmp(w.data + i, "no driver", 9) == 0)
			memcpy(w.data + i, gpu_reason, 9);
	stream_feed(s, mem, w.len);
	while (stream_next(s) > 0)
		;
	CHECK(stream_model(s)->have_hello);
	return s;
}

/* Nodes that sent the same version, kernel, arch, job and sources share
 * them; the host is each node's own; a clone shares them too. */
static void
test_shared_hello(void)
{
	struct stream			*a, *b, *c;
	const struct model_hello	*ha, *hb, *hc;
	struct node_model		 copy;

	a = hello_stream("n1", "no driver");
	b = hello_stream("n2", "no driver");
	c = hello_stream("n3", "no device");
	ha = &stream_model(a)->hello;
	hb = &stream_model(b)->hello;
	hc = &stream_model(c)->hello;
	CHECK(ha->sources == hb->sources && ha->kernel == hb->kernel);
	CHECK(ha->sources != hc->sources);
	CHECK_STR(ha->host, "n1");
	CHECK_STR(hb->host, "n2");
	CHECK_STR(hc->host, "n3");
	CHECK_INT(hc->nsources, 2);
	CHECK_STR(hc->sources[1].reason, "no device");
	CHECK_STR(hb->sources[1].reason, "no driver");
	CHECK(hb->sources[0].on && !hb->sources[1].on);
	CHECK_STR(hb->sources[0].name, "cpu");
	CHECK_STR(hb->sources[0].reason, "");
	CHECK_STR(hb->version, "test");
	CHECK_STR(hb->kernel, "6.1");
	CHECK_STR(hb->arch, "x86_64");
	CHECK_STR(hb->job, "");
	model_clone(&copy, stream_model(a));
	stream_free(a);
	stream_free(b);
	/* The last references: the clone's and c's (ASan/valgrind read
	 * freed memory here if the count were wrong). */
	CHECK_STR(copy.hello.sources[1].reason, "no driver");
	CHECK_STR(copy.hello.host, "n1");
	model_free(&copy);
	CHECK_STR(hc->sources[1].name, "gpu");
	stream_free(c);
}

/* Mangled copies of the good stream must fail cleanly or decode. */
static void
test_mangled(void)
{
	static uint8_t	 copy[65536];
	size_t		 len = build_good(), i, n;
	unsigned	 seed = 12345, round;
	int		 rc, failed = 0;

	CHECK(len <= sizeof(copy));
	for (round = 0; round < 3000; round++) {
		memcpy(copy, mem, len);
		n = 1 + round % 4;
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			copy[(seed >> 8) % len] ^= (uint8_t)(1 + (seed >> 20) %
			    255);
		}
		rc = decode_err(copy, len - round % 3, NULL);
		if (rc < 0)
			failed++;
	}
	CHECK(failed > 0);
}

static void
test_json_strings(void)
{
	static const char	*in[] = {
		"plain", "q\"b\\s", "\x01\x1f\x7f", "caf\xc3\xa9",
		"bad\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf0\x9f\x98\x80",
		"\xe2\x82",
		"\x1b]0;T\x07\xc2\x9b" "31m",
		"\xc2\x80\xc2\x9f\xc2\xa0",
		"\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\x8e\xe2\x80\x8f",
		"\xe2\x80\xaa\xe2\x80\xae\xe2\x81\xa6\xe2\x81\xa9",
		"\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa",
		NULL
	};
	static const char	*want[] = {
		"\"plain\"", "\"q\\\"b\\\\s\"", "\"\\u0001\\u001f\\u007f\"",
		"\"caf\xc3\xa9\"", "\"bad\\ufffd\"", "\"\\ufffd\\ufffd\"",
		"\"\\ufffd\\ufffd\\ufffd\"", "\"\xf0\x9f\x98\x80\"",
		"\"\\ufffd\\ufffd\"",
		"\"\\u001b]0;T\\u0007\\u009b31m\"",
		"\"\\u0080\\u009f\xc2\xa0\"",
		"\"\\u2028\\u2029\\u200e\\u200f\"",
		"\"\\u202a\\u202e\\u2066\\u2069\"",
		/* the neighbours pass: U+200D, U+202F, U+2065, U+206A */
		"\"\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\""
	};
	char		 buf[128];
	FILE		*f;
	unsigned	 i;

	for (i = 0; in[i] != NULL; i++) {
		memset(buf, 0, sizeof(buf));
		f = fmemopen(buf, sizeof(buf), "w");
		out_json_string(f, in[i], strlen(in[i]));
		fclose(f);
		CHECK_STR(buf, want[i]);
	}
	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf), "w");
	out_json_number(f, 12.5);
	fputc(' ', f);
	out_json_number(f, 1.0 / 3);
	fputc(' ', f);
	out_json_number(f, -0.0001);
	fputc(' ', f);
	out_json_number(f, 1e300 * 1e300);
	fputc(' ', f);
	out_json_time(f, 1700000000005ULL);
	fclose(f);
	CHECK_STR(buf, "12.5 0.333 0 null 1700000000.005");
}

/* What out_json_number printed before it did without printf. */
static void
json_number_ref(double v, char *buf, size_t size)
{
	size_t	len;

	if (!isfinite(v)) {
		snprintf(buf, size, "null");
		return;
	}
	if (fabs(v) >= 1e15)
		snprintf(buf, size, "%.17g", v);
	else if (v == floor(v))
		snprintf(buf, size, "%.0f", v);
	else {
		snprintf(buf, size, "%.3f", v);
		len = strlen(buf);
		while (len > 0 && buf[len - 1] == '0')
			buf[--len] = '\0';
		if (len > 0 && buf[len - 1] == '.')
			buf[--len] = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, size, "0");
}

/* The number formatter against printf: edge values, halves of a
 * thousandth, and a million pseudo-random values of every magnitude. */
static void
test_json_numbers(void)
{
	static const double	edge[] = {
		0, -0.0, 1, -1, 0.5, -0.5, 0.0005, -0.0005, 0.0015, 2.0005,
		1.0005, 0.9995, -0.9995, 0.9999, -0.9999, 999.9995, 0.001,
		-0.001, 0.0004999, 123456789012345.0, 999999999999999.9,
		-999999999999999.9, 1e15, -1e15, 1e-300, -1e-300, 4.35,
		1234.5678, -1234.5678, 0.1, 0.2, 0.3, 2.675, 1.005,
	};
	char		 got[96], want[96];
	FILE		*f;
	uint64_t	 x = 88172645463325252ULL;
	double		 v;
	unsigned	 i, bad = 0;

	for (i = 0; i < sizeof(edge) / sizeof(edge[0]) + 1000000; i++) {
		if (i < sizeof(edge) / sizeof(edge[0]))
			v = edge[i];
		else {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* mantissa and a power of ten from 1e-5 to 1e16 */
			v = (double)(x >> 11) / (double)(1ULL << 53) *
			    pow(10, (double)(x % 22) - 5);
			if (x & 0x100000)
				v = -v;
			if ((x & 0x3000000) == 0)
				v = nearbyint(v * 1000) / 1000 +
				    (x & 1 ? 0.0005 : -0.0005);
		}
		memset(got, 0, sizeof(got));
		f = fmemopen(got, sizeof(got) - 1, "w");
		out_json_number(f, v);
		fclose(f);
		json_number_ref(v, want, sizeof(want));
		if (strcmp(got, want) != 0 && bad++ < 5)
			CHECK_STR(got, want);
	}
	CHECK_INT(bad, 0);
}

int
main(void)
{
	RUN(test_good_whole);
	RUN(test_json_numbers);
	RUN(test_good_bytewise);
	RUN(test_good_chunks);
	RUN(test_bad_items);
	RUN(test_bad_order);
	RUN(test_bad_frames);
	RUN(test_too_many);
	RUN(test_str_budget);
	RUN(test_shared_schema);
	RUN(test_shared_hello);
	RUN(test_mangled);
	RUN(test_json_strings);
	return harness_done();
}
