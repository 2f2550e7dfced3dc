/* SPDX-License-Identifier: ISC */
/*
 * feed-replay: a recording played into the interactive monitor, on a
 * clock of its own.  The same decoder as live (rec_play over src/stream.c)
 * turns the recorded frames into node models, and each decoded message
 * reaches the monitor core (monitor.h) through the calls the live
 * session's hooks make, so the history, the detectors and every view (a
 * sink of that monitor) work as they do live.
 *
 * Use (jobtop -r FILE, main.c):
 *	rp = replay_open(path, 0, err, sizeof(err));   NULL: one line
 *	ui = ui_new(conf made from replay_meta(rp)...);
 *	session with feed_new_replay(rp) as its one feed (it only keeps the
 *	    poll loop going until a quit) and the ui's pollfds, ready and
 *	    timeout hooks; ui_set_session(ui, s); ui_attach_replay(ui, rp);
 *	ui_start(ui); replay_seek(rp, start); replay_play(rp, 1, now);
 *	session_run(s); ... replay_free(rp) after ui_free(ui).
 * The UI's timeout hook runs the clock (replay_tick) and its keys call the
 * controls.  History (twin) mode opens the live session's own recording
 * with twin set: the file keeps growing, and the player reopens it when
 * its clock reaches what was read.
 */
#ifndef JOBTOP_FEED_REPLAY_H
#define JOBTOP_FEED_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "feed.h"
#include "rec.h"

struct replay;
struct monitor;

/* What the timeline shows. */
struct replay_status {
	uint64_t	 start_ms;	/* unix ms */
	uint64_t	 end_ms;	/* the last data (twin mode: now) */
	uint64_t	 pos_ms;	/* the time shown */
	double		 speed;		/* 0.25 to 64 */
	int		 playing;
	int		 at_end;	/* stopped at the recording's end */
	int		 rebuilt;	/* a seek's history, percent; -1 done */
	int		 twin;		/* the live session's own recording */
	const char	*note;		/* a problem reading, or NULL */
};

/* Open a recording: NULL with one phrase in err. */
struct replay	*replay_open(const char *, int, char *, size_t);
void		 replay_free(struct replay *);
const struct rec_meta *replay_meta(const struct replay *);
/* Play into a monitor: its nodes become the recording's, its models the
 * player's, its detectors' events give way to the recorded ones. */
void		 replay_attach(struct replay *, struct monitor *);
/* The session's one feed in a replay: done once stopped (a quit). */
struct feed	*feed_new_replay(struct replay *);

/* Run the clock at monotonic ms now (and the rebuilding a seek left):
 * ms until it must run again, -1 when nothing moves (paused). */
int		 replay_tick(struct replay *, uint64_t);
void		 replay_status(const struct replay *, struct replay_status *);
/* Samples the sparklines show at most: history rebuilt after a seek. */
void		 replay_set_window(struct replay *, unsigned);
/* Rebuilding a seek does per loop pass, in ms (0: one interval; tests). */
void		 replay_set_slice(struct replay *, unsigned);

/* Controls.  A seek rebuilds the monitor's state at t (clamped to the
 * recording): at once for a small job, else partly, and replay_tick goes
 * on with it (replay_status says how far).  A step pauses and moves one
 * sample interval. */
void		 replay_play(struct replay *, int, uint64_t);
void		 replay_seek(struct replay *, uint64_t);
void		 replay_step(struct replay *, int);
void		 replay_speed(struct replay *, int);
/* A time to jump to: "12:30:00" (or "12:30", local time, within the
 * recording), "-5m", "+1h30m", "+90" (seconds) or "50%".  0 with *t, or -1
 * with one phrase in err. */
int		 replay_parse_time(const struct replay *, const char *,
		     uint64_t *, char *, size_t);

#endif
