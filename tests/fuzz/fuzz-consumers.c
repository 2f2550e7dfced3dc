/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for everything that consumes a decoded probe stream
 * (security review, section 5): the input is one node's probe stream, fed
 * in two pieces split by its first byte as fuzz-stream does.  After every
 * message the text and JSON outputs print it, the history records the
 * sample (node, ranks, job) and the detectors judge it; the same bytes go
 * to the recorder (rec_node_bytes, rec_tick with keyframes every second of
 * the recording's clock), which re-encodes the model into keyframes.  The
 * recording is then closed, exported as CSV, JSON and text (export_file:
 * the CSV path and the outputs' state lines), reopened with
 * rec_reader_open and played and seeked.  Output goes to /dev/null, error
 * lines nowhere.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect.h"
#include "export.h"
#include "feed.h"
#include "history.h"
#include "log.h"
#include "model.h"
#include "out.h"
#include "rec.h"
#include "stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_T0		1795600000000ULL
#define FUZZ_STEP_MS	700

static FILE		*fuzz_null;
static char		 fuzz_path[64];
static struct rec_meta	 fuzz_meta;

struct fuzz_run {
	struct stream	*st;
	struct history	*h;
	struct detect	*d;
	struct rec	*rec;
	uint64_t	 now;		/* the recording's clock, unix ms */
	uint64_t	 mono;		/* the history's clock */
};

static void
fuzz_setup(void)
{
	/* A host name, as the monitor only ever records (names are
	 * validated before they are used); a recording whose header names
	 * anything else is refused on read (rec-read.c, regress/rec-files). */
	static const char *const	 nodes[] = { "n1" };

	if (fuzz_null != NULL)
		return;
	if ((fuzz_null = fopen("/dev/null", "w")) == NULL)
		abort();
	/* Error lines of export_file: not to stderr. */
	log_set_terminal_owned(1);
	/* In memory where there is a tmpfs: the recorder syncs. */
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/fuzz-consumers.%ld.jtr",
	    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
	    (long)getpid());
	rec_meta_init(&fuzz_meta, FUZZ_T0);
	fuzz_meta.keyframe_ms = 1000;
	snprintf(fuzz_meta.job, sizeof(fuzz_meta.job), "42");
	rec_meta_set_nodes(&fuzz_meta, 1, nodes);
}

static void
fuzz_detect_cb(void *arg, const struct detect_event *ev)
{
	(void)arg;
	fprintf(fuzz_null, "%s %s\n", ev->code, ev->text);
}

/* What the batch hooks and the UI's history do with one message. */
static void
fuzz_message(struct fuzz_run *r, int t)
{
	const struct node_model	*m = stream_model(r->st);
	const struct output	*outs[] = { &out_text, &out_json };
	unsigned		 i, nr, flags, counts[DF_NFLAGS];

	for (i = 0; i < 2; i++) {
		switch (t) {
		case MSG_HELLO:
			outs[i]->hello(fuzz_null, m);
			break;
		case MSG_SAMPLE:
			outs[i]->sample(fuzz_null, m);
			break;
		case MSG_EVENT:
			outs[i]->event(fuzz_null, m, stream_event(r->st), NULL);
			break;
		case MSG_BYE:
			outs[i]->bye(fuzz_null, m);
			break;
		}
	}
	if (t != MSG_SAMPLE)
		return;
	r->mono += FUZZ_STEP_MS;
	history_node_sample(r->h, 0, m, r->mono);
	detect_node_sample(r->d, 0, m, m->time_ms);
	history_job_sample(r->h, r->mono, 5000);
	detect_node_ranks(r->d, 0, &flags, &nr);
	detect_counts(r->d, counts, counts);
	history_job_get(r->h, 0, 0);
	history_node_get(r->h, 0, 0, 0);
}

/* Decode and record one piece of the stream. */
static int
fuzz_piece(struct fuzz_run *r, const uint8_t *p, size_t n)
{
	struct rec_subject	sj;
	char			err[256];
	int			t;

	r->now += FUZZ_STEP_MS;
	rec_node_bytes(r->rec, 0, r->now, p, n);
	rec_tick(r->rec, r->now);
	stream_feed(r->st, p, n);
	while ((t = stream_next(r->st)) > 0) {
		fuzz_message(r, t);
		r->now += FUZZ_STEP_MS / 7;
		rec_tick(r->rec, r->now);
	}
	if (t < 0) {
		stream_error(r->st, err, sizeof(err));
		out_text.state(fuzz_null, "n1", r->now, err, FEED_FAILED);
		out_json.state(fuzz_null, "n1", r->now, err, FEED_FAILED);
		detect_node_state(r->d, 0, "failed", 0, "n1", r->now);
		rec_subject_none(&sj);
		sj.phase = FEED_FAILED;
		rec_event(r->rec, 0, r->now, EV_ERROR, "state", err, &sj);
	}
	return t;
}

/* Play a recording to its end, then from three times inside it. */
static void
fuzz_replay(void)
{
	struct rec_reader	*rd;
	struct rec_play		*p;
	struct rec_msg		 msg;
	uint64_t		 end, start, t;
	char			 err[256];
	int			 k, n;

	if (rec_reader_open(fuzz_path, &rd, err, sizeof(err)) != 0) {
		/* the recorder wrote a recording we refuse */
		fprintf(stderr, "refused: %s\n", err);
		abort();
	}
	start = rec_reader_meta(rd)->start_ms;
	end = rec_reader_end_ms(rd);
	p = rec_play_new(rd);
	for (k = 0; k < 4; k++) {
		if (k > 0) {
			t = start + (end > start ? (end - start) * (uint64_t)k /
			    3 : 0);
			rec_play_seek(p, t);
		}
		for (n = 0; n < 100000 && rec_play_next(p, &msg) > 0; n++)
			if (msg.node < rec_play_nnodes(p) && msg.type ==
			    MSG_SAMPLE)
				out_json.sample(fuzz_null, stream_model(
				    rec_play_stream(p, msg.node)));
	}
	rec_play_free(p);
	rec_reader_free(rd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzz_run	 r;
	size_t		 cut;
	char		 err[256];
	int		 t;

	if (len == 0)
		return 0;
	fuzz_setup();
	memset(&r, 0, sizeof(r));
	r.now = FUZZ_T0;
	r.mono = 1000;
	if ((r.rec = rec_open(fuzz_path, &fuzz_meta, 0, err, sizeof(err))) ==
	    NULL)
		abort();
	r.st = stream_new("n1");
	model_fix_name(stream_model(r.st));
	r.h = history_new();
	history_resize(r.h, 1);
	r.d = detect_new(r.h, NULL, fuzz_detect_cb, NULL);

	cut = data[0] % len;
	t = fuzz_piece(&r, data + 1, cut > 0 ? cut - 1 : 0);
	if (t == 0)
		fuzz_piece(&r, data + (cut > 0 ? cut : 1),
		    len - (cut > 0 ? cut : 1));
	stream_finish(r.st);
	r.now += 3000;
	rec_tick(r.rec, r.now);
	if (rec_close(r.rec, err, sizeof(err)) != 0)
		abort();

	export_file(fuzz_path, EXPORT_CSV, fuzz_null, 0);
	export_file(fuzz_path, EXPORT_JSON, fuzz_null, 0);
	export_file(fuzz_path, EXPORT_TEXT, fuzz_null, 2);
	fuzz_replay();

	detect_free(r.d);
	history_free(r.h);
	stream_free(r.st);
	unlink(fuzz_path);
	return 0;
}
