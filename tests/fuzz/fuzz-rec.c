/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the recording reader and player (src/rec-read.c):
 * the input is a recording in memory.  Every block is read, the whole
 * recording is played through the stream decoders with every model value
 * read back, then it is seeked to times taken from the input and played
 * on from there (once on a clock, as the replay screen plays).  The
 * replay screen's pass over the EVENT blocks is run too.  Inputs of odd
 * length are read with CRC checks off, so mutations reach the block
 * decoders behind the checksums too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "rec.h"
#include "stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_read_model(const struct node_model *m)
{
	const struct minst	*mi;
	double			 v;
	int64_t			 raw;
	uint32_t		 i;
	unsigned		 f;

	for (i = 0; i < m->ninsts; i++) {
		mi = m->insts[i];
		for (f = 0; f < mi->nfields; f++) {
			model_value(mi, f, &raw);
			model_metric(m, mi, f, &v);
			model_str(mi, f);
		}
	}
}

/* Play to the end, reading each model a message changed. */
static void
fuzz_play(struct rec_play *p)
{
	struct rec_msg	msg;
	int		n = 0;

	while (rec_play_next(p, &msg) > 0 && n++ < 100000) {
		if (msg.node < rec_play_nnodes(p))
			fuzz_read_model(stream_model(rec_play_stream(p,
			    msg.node)));
	}
}

/* Play on a clock, a second at a time, as the replay screen does. */
static void
fuzz_play_until(struct rec_play *p, uint64_t t, uint64_t end)
{
	struct rec_msg	msg;
	uint64_t	next;
	int		n = 0, rc;

	for (; t <= end && n < 100000; t += 1000) {
		while ((rc = rec_play_until(p, t, &msg, &next)) > 0 &&
		    n++ < 100000)
			if (msg.node < rec_play_nnodes(p))
				fuzz_read_model(stream_model(
				    rec_play_stream(p, msg.node)));
		if (rc < 0 || (rc == 0 && next == UINT64_MAX))
			break;
		if (next > t + 1000 && next != UINT64_MAX)
			t = next - 1000;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct rec_reader	*r;
	struct rec_play		*p;
	struct rec_block	 b;
	const struct rec_index_entry *ix;
	uint64_t		 start, end, t;
	char			 err[256];
	size_t			 n;
	int			 k;

	rec_reader_ignore_crc(len % 2);
	if (rec_reader_open_mem(data, len, &r, err, sizeof(err)) != 0)
		return 0;
	while (rec_reader_next(r, &b) > 0)
		;
	/* The replay screen's pass over the events, skipping the rest. */
	rec_reader_set_offset(r, 0);
	while (rec_reader_next_of(r, REC_BLK_EVENT, &b) > 0)
		;
	rec_reader_warning(r);
	rec_reader_error(r);
	n = rec_reader_index(r, &ix);
	start = rec_reader_meta(r)->start_ms;
	end = rec_reader_end_ms(r);
	p = rec_play_new(r);
	fuzz_play(p);
	for (k = 0; k < 3; k++) {
		if (k == 0 && n > 0)
			t = ix[n - 1].time_ms;
		else
			t = start + (end > start ? (uint64_t)(len * (k + 1) *
			    7919) % (end - start + 1) : 0);
		rec_play_seek(p, t);
		if (k == 1)
			fuzz_play_until(p, t, end);
		fuzz_play(p);
	}
	rec_play_free(p);
	rec_reader_free(r);
	return 0;
}
