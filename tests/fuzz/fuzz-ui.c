/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the curses monitor's panels (security review,
 * section 5: the UI variant of fuzz-consumers): the input is one node's
 * probe stream, fed in two pieces split by its first byte.  A monitor
 * draws into a real curses screen on /dev/null (newterm, 120x36, UTF-8);
 * after every message the node's sample, events and state reach it as the
 * session's hooks hand them over, a key from a fixed tour is pressed
 * (node table, a node's ranks, a rank's detail, every rank, sorting, the
 * event log, help, folding, themes) and a frame is drawn.  Keys that start
 * processes, quit or need a session (b, q, +, -, /) are left out.
 */
#include <curses.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "model.h"
#include "stream.h"
#include "ui.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static FILE	*fuzz_out, *fuzz_in;

static const int fuzz_keys[] = {
	'\r', 'r', KEY_DOWN, '\r', 's', 27, '\t', 'F', KEY_NPAGE, '\r',
	'e', KEY_UP, 'n', 'f', 'h', 27, 't', 0x0c, KEY_LEFT, 'r', '\r'
};

struct fuzz_ui {
	struct ui	*ui;
	struct stream	*st;
	uint64_t	 now;
	unsigned	 key;
};

static const struct node_model *
fuzz_models(void *arg, int i)
{
	struct fuzz_ui	*f = arg;

	return i == 0 ? stream_model(f->st) : NULL;
}

static void
fuzz_frame(struct fuzz_ui *f)
{
	ui_key(f->ui, fuzz_keys[f->key++ % (sizeof(fuzz_keys) /
	    sizeof(fuzz_keys[0]))], f->now);
	ui_frame(f->ui, f->now);
}

static int
fuzz_piece(struct fuzz_ui *f, const uint8_t *p, size_t n)
{
	char	err[256], st[300];
	int	t;

	stream_feed(f->st, p, n);
	while ((t = stream_next(f->st)) > 0) {
		f->now += 700;
		if (t == MSG_SAMPLE) {
			ui_node_sample(f->ui, 0, stream_model(f->st), f->now);
			ui_job_tick(f->ui, f->now);
		} else if (t == MSG_EVENT)
			ui_node_event(f->ui, 0, stream_event(f->st));
		else if (t == MSG_BYE)
			ui_node_state(f->ui, 0, "probe ended", 0);
		fuzz_frame(f);
	}
	if (t < 0) {
		stream_error(f->st, err, sizeof(err));
		snprintf(st, sizeof(st), "failed: probe stream: %s", err);
		ui_node_state(f->ui, 0, st, 0);
		fuzz_frame(f);
	}
	return t;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzz_ui	 f;
	struct ui_conf	 c;
	size_t		 cut;
	char		 err[256];

	if (len == 0)
		return 0;
	if (fuzz_out == NULL) {
		setlocale(LC_ALL, "C.UTF-8");
		if ((fuzz_out = fopen("/dev/null", "w")) == NULL ||
		    (fuzz_in = fopen("/dev/null", "r")) == NULL)
			abort();
		log_set_terminal_owned(1);
	}
	memset(&c, 0, sizeof(c));
	c.job_id = "42";
	c.job_name = "job\x1b]0;title\x07";
	c.job_user = "user";
	c.job_state = "RUNNING";
	c.elapsed = 10;
	c.time_limit = 600;
	c.ntasks = 4;
	c.interval = 1;
	c.utf8 = 1;
	c.theme = "default";
	memset(&f, 0, sizeof(f));
	f.now = 100000;
	if ((f.ui = ui_new(&c, err, sizeof(err))) == NULL)
		abort();
	f.st = stream_new("n\x1b[2J" "1");
	model_fix_name(stream_model(f.st));
	ui_add_node(f.ui, "n\x1b[2J" "1", 0);
	ui_node_state(f.ui, 0, "live", 0);
	ui_set_models(f.ui, fuzz_models, &f);
	if (ui_start_on(f.ui, fuzz_out, fuzz_in, "xterm-256color", 36, 120,
	    err, sizeof(err)) != 0)
		abort();

	cut = data[0] % len;
	if (fuzz_piece(&f, data + 1, cut > 0 ? cut - 1 : 0) == 0)
		fuzz_piece(&f, data + (cut > 0 ? cut : 1),
		    len - (cut > 0 ? cut : 1));
	stream_finish(f.st);
	fuzz_frame(&f);

	ui_free(f.ui);
	stream_free(f.st);
	return 0;
}
