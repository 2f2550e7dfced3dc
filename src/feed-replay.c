/* SPDX-License-Identifier: ISC */
/*
 * feed-replay: the player.  Time is a virtual clock: pos_ms is the
 * recorded time on the screen, and every message that arrived at or
 * before it has been handed to the UI.  While playing, the clock moves by
 * the real time that passed times the speed; job-wide history samples are
 * taken on it once per recorded interval, as the live UI takes them once
 * per real one.
 *
 * The player drives the monitor core (src/monitor.c) as the live
 * session's hooks do; the views are sinks of that monitor.
 *
 * A seek rebuilds the monitor's state at the new time T: it forgets
 * everything, the node states and the monitor's events recorded before
 * the window come from a list made by one quick pass over the file (EVENT
 * blocks only, the others skipped by their headers), then the player
 * seeks to the keyframe before T minus the window (as many intervals as
 * the widest sparkline has columns) and replays the window as fast as it
 * can, so the sparklines, rates and detector flags at T are what they
 * were live.  A big job's window is replayed a slice per loop pass (keys
 * and the screen go on meanwhile), a small one's at once.
 *
 * History (twin) mode plays the live session's own recording while it is
 * written: when the clock reaches the last block read, the file is opened
 * again (at most once a second) and play goes on from the same time.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "clock.h"
#include "feed-replay.h"
#include "history.h"
#include "model.h"
#include "monitor.h"
#include "session.h"
#include "stream.h"
#include "xmalloc.h"

#define REPLAY_WAKE_MIN_MS	20	/* the clock runs at most this often */
#define REPLAY_WAKE_MAX_MS	1000
#define REPLAY_GROW_MS		1000	/* twin: look for new data this often */
#define REPLAY_SLICE_MS		40	/* a seek's rebuilding per loop pass */
#define REPLAY_SNAPS		8	/* snapshots to step back to */
#define REPLAY_SNAP_EVERY	5	/* intervals between two */

static const double replay_speeds[] = {
	0.25, 0.5, 1, 2, 4, 8, 16, 32, 64
};
#define REPLAY_NSPEEDS	(sizeof(replay_speeds) / sizeof(replay_speeds[0]))
#define REPLAY_1X	2

/* A monitor event of the recording (a node's state, a detector's flag). */
struct replay_ev {
	uint64_t		 offset;	/* of its block */
	uint32_t		 node;
	struct proto_event	 ev;
	struct rec_subject	 subj;
	int			 typed;	/* subj was recorded */
};

/* The monitor's state at recorded time t (every block up to t played,
 * the job-wide samples up to t taken): a step back restores the newest
 * one before its time and plays on from there, instead of rebuilding the
 * whole window. */
struct replay_snap {
	uint64_t		 t;
	uint64_t		 next_tick;
	unsigned char		*connecting;
	struct monitor_snap	*ms;
};

struct replay {
	char			*path;
	int			 twin;
	struct rec_reader	*rd;
	struct rec_play		*play;
	struct monitor		*mon;
	unsigned		 nnodes;
	uint64_t		 start_ms;
	uint64_t		 end_ms;	/* the last block read */
	uint64_t		 interval_ms;
	unsigned		 window;	/* samples rebuilt by a seek */
	unsigned		 slice_ms;	/* rebuilding per loop pass */

	uint64_t		 pos_ms;
	uint64_t		 target_ms;	/* a seek's, while rebuilding */
	uint64_t		 from_ms;	/* where the rebuilding began */
	int			 rebuilding;
	uint64_t		 next_tick;	/* the next job-wide sample */
	int			 playing;
	int			 speed;		/* in replay_speeds */
	uint64_t		 real_ms;	/* monotonic ms, last run */
	double			 carry;		/* clock ms not yet moved */
	int			 at_end;
	int			 quit;		/* the feed was stopped */
	uint64_t		 grow_at;	/* twin: next look at it */
	unsigned char		*connecting;	/* per node: no state yet */

	struct replay_ev	*evs;		/* the pass over the file */
	size_t			 nevs, capevs;
	uint64_t		 scanned;	/* where the pass got to */
	char			 note[320];

	struct replay_snap	 snaps[REPLAY_SNAPS];
	unsigned		 nextsnap;
};

/* Note why reading stopped early (kept for the timeline). */
static void
replay_note_reader(struct replay *rp)
{
	const char	*e = rec_reader_error(rp->rd);

	if (e == NULL)
		e = rec_reader_warning(rp->rd);
	if (e != NULL && !rp->twin)
		snprintf(rp->note, sizeof(rp->note), "%s", e);
}

/* The monitor's events from scanned on: the pass over the file. */
static void
replay_scan(struct replay *rp)
{
	struct rec_block	b;
	struct replay_ev	*e;

	rec_reader_set_offset(rp->rd, rp->scanned);
	while (rec_reader_next_of(rp->rd, REC_BLK_EVENT, &b) > 0) {
		if (b.type != REC_BLK_EVENT)
			continue;
		if (rp->nevs == rp->capevs) {
			rp->capevs = rp->capevs == 0 ? 64 : rp->capevs * 2;
			rp->evs = xreallocarray(rp->evs, rp->capevs,
			    sizeof(*rp->evs));
		}
		e = &rp->evs[rp->nevs++];
		e->offset = b.offset;
		e->node = b.node;
		e->ev = b.ev;
		e->subj = b.subj;
		e->typed = b.typed;
	}
	rp->scanned = rec_reader_offset(rp->rd);
	replay_note_reader(rp);
}

/* Open (or open again) the file: reader, player, the events pass.
 * Returns 0, or -1 with err. */
static int
replay_load(struct replay *rp, char *err, size_t errsz)
{
	struct rec_reader	*rd;
	const struct rec_meta	*m;

	if (rec_reader_open(rp->path, &rd, err, errsz) != 0)
		return -1;
	m = rec_reader_meta(rd);
	if (rp->rd != NULL && (m->nnodes != rp->nnodes ||
	    m->start_ms != rp->start_ms)) {
		snprintf(err, errsz, "the recording was replaced");
		rec_reader_free(rd);
		return -1;
	}
	rec_play_free(rp->play);
	rec_reader_free(rp->rd);
	rp->rd = rd;
	rp->play = rec_play_new(rd);
	rp->nnodes = m->nnodes;
	rp->start_ms = m->start_ms;
	rp->interval_ms = m->interval_ms > 0 ? m->interval_ms : 1000;
	rp->end_ms = rec_reader_end_ms(rd);
	replay_scan(rp);
	return 0;
}

struct replay *
replay_open(const char *path, int twin, char *err, size_t errsz)
{
	struct replay	*rp;

	rp = xcalloc(1, sizeof(*rp));
	rp->path = xstrdup(path);
	rp->twin = twin;
	rp->speed = REPLAY_1X;
	rp->window = HIST_NODE_DEPTH;
	rp->slice_ms = REPLAY_SLICE_MS;
	if (replay_load(rp, err, errsz) != 0) {
		replay_free(rp);
		return NULL;
	}
	rp->connecting = xcalloc(rp->nnodes > 0 ? rp->nnodes : 1, 1);
	rp->pos_ms = rp->start_ms;
	rp->next_tick = rp->start_ms + rp->interval_ms;
	return rp;
}

static void
replay_snaps_clear(struct replay *rp)
{
	unsigned	k;

	for (k = 0; k < REPLAY_SNAPS; k++) {
		monitor_snap_free(rp->snaps[k].ms);
		free(rp->snaps[k].connecting);
		memset(&rp->snaps[k], 0, sizeof(rp->snaps[k]));
	}
}

/* Keep the monitor's state at t (the oldest snapshot gives way). */
static void
replay_snap_take(struct replay *rp, uint64_t t)
{
	struct replay_snap	*sn;
	unsigned		 k;

	for (k = 0; k < REPLAY_SNAPS; k++)
		if (rp->snaps[k].ms != NULL && rp->snaps[k].t == t)
			return;
	sn = &rp->snaps[rp->nextsnap];
	rp->nextsnap = (rp->nextsnap + 1) % REPLAY_SNAPS;
	monitor_snap_free(sn->ms);
	if (sn->connecting == NULL)
		sn->connecting = xcalloc(rp->nnodes > 0 ? rp->nnodes : 1, 1);
	memcpy(sn->connecting, rp->connecting, rp->nnodes);
	sn->t = t;
	sn->next_tick = rp->next_tick;
	sn->ms = monitor_snapshot(rp->mon);
}

void
replay_free(struct replay *rp)
{
	if (rp == NULL)
		return;
	replay_snaps_clear(rp);
	rec_play_free(rp->play);
	rec_reader_free(rp->rd);
	free(rp->connecting);
	free(rp->evs);
	free(rp->path);
	free(rp);
}

const struct rec_meta *
replay_meta(const struct replay *rp)
{
	return rec_reader_meta(rp->rd);
}

/* The monitor's models: the player's decoders. */
static const struct node_model *
replay_model(void *arg, int i)
{
	struct replay	*rp = arg;

	if (i < 0 || (unsigned)i >= rp->nnodes)
		return NULL;
	return stream_model(rec_play_stream(rp->play, (unsigned)i));
}

void
replay_attach(struct replay *rp, struct monitor *mon)
{
	const struct rec_meta	*m = rec_reader_meta(rp->rd);

	rp->mon = mon;
	monitor_add_recorded(mon, m);
	monitor_set_models(mon, replay_model, rp);
	monitor_set_replayed(mon, 1);
	monitor_set_clock(mon, rp->pos_ms, rp->start_ms);
}

void
replay_set_slice(struct replay *rp, unsigned ms)
{
	rp->slice_ms = ms;
}

void
replay_set_window(struct replay *rp, unsigned n)
{
	rp->window = n < 2 ? 2 : n > HIST_NODE_DEPTH ? HIST_NODE_DEPTH : n;
}

/* A node's state as the live session recorded it: its phase when the
 * recording has it (minor 2 on), else the text parsed (-1). */
static void
replay_state(struct replay *rp, int i, const char *text, int phase)
{
	if (i < 0 || (unsigned)i >= rp->nnodes)
		return;
	monitor_recorded_state(rp->mon, i, text, phase);
	rp->connecting[i] = monitor_node_phase(rp->mon, i) ==
	    FEED_CONNECTING;
}

/* A monitor event of the recording: a state, or a line of the log. */
static void
replay_event(struct replay *rp, uint32_t node, const struct proto_event *ev,
    const struct rec_subject *sj)
{
	int	i = node == REC_NODE_NONE ? -1 : (int)node;

	monitor_set_clock(rp->mon, ev->time_ms, rp->start_ms);
	if (strcmp(ev->code, "state") == 0)
		replay_state(rp, i, ev->text, sj != NULL ? sj->phase : -1);
	else
		monitor_recorded_event(rp->mon, i, ev->level, ev->code,
		    ev->text, ev->time_ms, sj != NULL ? sj->pid : -1);
}

/* Hand one decoded message to the UI, as the live hooks do. */
static void
replay_deliver(struct replay *rp, const struct rec_msg *msg)
{
	const struct node_model	*m;
	char			 text[384];
	int			 i = (int)msg->node;

	monitor_set_clock(rp->mon, msg->time_ms, rp->start_ms);
	switch (msg->type) {
	case MSG_SAMPLE:
		/* A recording without state events (an old one): data
		 * means live. */
		if (rp->connecting[i])
			replay_state(rp, i, "live", FEED_LIVE);
		m = stream_model(rec_play_stream(rp->play, msg->node));
		monitor_sample(rp->mon, i, m, msg->time_ms);
		break;
	case MSG_EVENT:
		monitor_probe_event(rp->mon, i, msg->ev);
		break;
	case REC_MSG_EVENT:
		replay_event(rp, msg->node, msg->ev, msg->subj);
		break;
	case REC_MSG_STREAM_ERR:
		snprintf(text, sizeof(text), "failed: %s", msg->text);
		replay_state(rp, i, text, FEED_FAILED);
		break;
	}
}

/* Every message that arrived at or before t. */
static void
replay_until(struct replay *rp, uint64_t t)
{
	struct rec_msg	msg;
	uint64_t	next;
	int		rc;

	while ((rc = rec_play_until(rp->play, t, &msg, &next)) > 0)
		replay_deliver(rp, &msg);
	if (rc < 0)
		replay_note_reader(rp);
}

/* Move the clock on to t: the messages and job-wide samples up to it. */
static void
replay_advance(struct replay *rp, uint64_t t)
{
	if (t < rp->pos_ms)
		t = rp->pos_ms;
	while (rp->next_tick <= t) {
		uint64_t	tick = rp->next_tick;

		replay_until(rp, tick);
		monitor_set_clock(rp->mon, tick, rp->start_ms);
		monitor_job_tick(rp->mon, tick);
		rp->next_tick += rp->interval_ms;
		/* Rebuilding a seek's last intervals: the states a step
		 * back goes to. */
		if (rp->rebuilding && (tick - rp->start_ms) /
		    rp->interval_ms % REPLAY_SNAP_EVERY == 0 &&
		    rp->target_ms - tick <= (uint64_t)REPLAY_SNAPS *
		    REPLAY_SNAP_EVERY * rp->interval_ms)
			replay_snap_take(rp, tick);
	}
	replay_until(rp, t);
	rp->pos_ms = t;
	monitor_set_clock(rp->mon, t, rp->start_ms);
}

/* Twin mode: open the growing file again when it has more.  Returns 1
 * when more data can be played. */
static int
replay_grow(struct replay *rp, uint64_t now)
{
	char	err[256];

	if (!rp->twin || now < rp->grow_at)
		return 0;
	rp->grow_at = now + REPLAY_GROW_MS;
	if (replay_load(rp, err, sizeof(err)) != 0) {
		snprintf(rp->note, sizeof(rp->note), "%s", err);
		return 0;
	}
	/* The new player takes over where the old one was: everything up
	 * to pos_ms was delivered, and pos_ms never passed the data. */
	if (rec_play_seek(rp->play, rp->pos_ms) < 0)
		replay_note_reader(rp);
	return rp->end_ms > rp->pos_ms;
}

/* Go on replaying a seek's window until the deadline (monotonic ms), an
 * interval at a time: 1 when the clock is at the seek's time. */
static int
replay_rebuild(struct replay *rp, uint64_t deadline)
{
	uint64_t	t;

	while (rp->pos_ms < rp->target_ms) {
		t = rp->pos_ms + rp->interval_ms;
		replay_advance(rp, t < rp->target_ms ? t : rp->target_ms);
		if (rp->pos_ms < rp->target_ms && clock_mono_ms() >= deadline)
			return 0;
	}
	rp->rebuilding = 0;
	rp->at_end = !rp->twin && !rp->playing && rp->pos_ms >= rp->end_ms;
	return 1;
}

/* Seek to t from the newest snapshot at or before it, when one is
 * nearer than a window's rebuilding: 1 done, 0 none fits. */
static int
replay_seek_snap(struct replay *rp, uint64_t t)
{
	struct replay_snap	*sn = NULL;
	uint64_t		 span;
	unsigned		 k;

	span = (uint64_t)rp->window * rp->interval_ms;
	for (k = 0; k < REPLAY_SNAPS; k++) {
		if (rp->snaps[k].ms == NULL || rp->snaps[k].t > t ||
		    t - rp->snaps[k].t >= span / 2)
			continue;
		if (sn == NULL || rp->snaps[k].t > sn->t)
			sn = &rp->snaps[k];
	}
	if (sn == NULL || monitor_restore(rp->mon, sn->ms) != 0)
		return 0;
	memcpy(rp->connecting, sn->connecting, rp->nnodes);
	if (rec_play_seek(rp->play, sn->t) < 0)
		replay_note_reader(rp);
	rp->next_tick = sn->next_tick;
	rp->pos_ms = rp->from_ms = sn->t;
	rp->target_ms = t;
	rp->rebuilding = 1;
	rp->at_end = 0;
	replay_rebuild(rp, clock_mono_ms() + rp->slice_ms);
	return 1;
}

void
replay_seek(struct replay *rp, uint64_t t)
{
	const struct replay_ev	*e;
	uint64_t		 from, stop, span;
	size_t			 k;

	if (rp->twin && t > rp->end_ms) {
		rp->grow_at = 0;
		replay_grow(rp, clock_mono_ms());
	}
	if (t > rp->end_ms)
		t = rp->end_ms;
	if (t < rp->start_ms)
		t = rp->start_ms;
	if (replay_seek_snap(rp, t))
		return;
	monitor_reset(rp->mon);
	memset(rp->connecting, 1, rp->nnodes);
	span = (uint64_t)rp->window * rp->interval_ms;
	from = t - rp->start_ms > span ? t - span : rp->start_ms;
	if (rec_play_seek(rp->play, from) < 0)
		replay_note_reader(rp);
	/* What the window does not replay: the states and events before
	 * it, from the list (blocks before where the player stands). */
	stop = rec_reader_offset(rp->rd);
	for (k = 0; k < rp->nevs; k++) {
		e = &rp->evs[k];
		if (e->offset >= stop)
			break;
		replay_event(rp, e->node, &e->ev, e->typed ? &e->subj : NULL);
	}
	rp->next_tick = from + rp->interval_ms -
	    (from - rp->start_ms) % rp->interval_ms;
	rp->pos_ms = rp->from_ms = from;
	rp->target_ms = t;
	rp->rebuilding = 1;
	rp->at_end = 0;
	replay_rebuild(rp, clock_mono_ms() + rp->slice_ms);
}

void
replay_play(struct replay *rp, int on, uint64_t now)
{
	if (on && !rp->playing && rp->at_end)
		replay_seek(rp, rp->start_ms);
	rp->playing = on;
	rp->real_ms = now;
	rp->carry = 0;
	if (on)
		rp->at_end = 0;
}

void
replay_step(struct replay *rp, int dir)
{
	uint64_t	t;

	rp->playing = 0;
	t = rp->rebuilding ? rp->target_ms : rp->pos_ms;
	if (dir < 0) {
		replay_seek(rp, t - rp->start_ms > rp->interval_ms ?
		    t - rp->interval_ms : rp->start_ms);
		return;
	}
	if (rp->rebuilding) {
		/* One more interval to rebuild. */
		t += rp->interval_ms;
		rp->target_ms = t < rp->end_ms ? t : rp->end_ms;
		return;
	}
	if (rp->twin && rp->pos_ms + rp->interval_ms > rp->end_ms) {
		rp->grow_at = 0;
		replay_grow(rp, clock_mono_ms());
	}
	t = rp->pos_ms + rp->interval_ms;
	if (t > rp->end_ms)
		t = rp->end_ms;
	replay_advance(rp, t);
	rp->at_end = !rp->twin && t >= rp->end_ms;
}

void
replay_speed(struct replay *rp, int dir)
{
	if (dir > 0 && rp->speed + 1 < (int)REPLAY_NSPEEDS)
		rp->speed++;
	else if (dir < 0 && rp->speed > 0)
		rp->speed--;
}

int
replay_tick(struct replay *rp, uint64_t now)
{
	double		adv, speed = replay_speeds[rp->speed];
	uint64_t	t, ms;

	if (rp->rebuilding) {
		/* Play starts once the history is there. */
		rp->real_ms = now;
		if (!replay_rebuild(rp, now + rp->slice_ms))
			return 0;
	}
	if (!rp->playing) {
		rp->real_ms = now;
		/* Twin mode: the end of the timeline is now. */
		return rp->twin ? REPLAY_WAKE_MAX_MS : -1;
	}
	adv = (double)(now - rp->real_ms) * speed + rp->carry;
	rp->real_ms = now;
	t = rp->pos_ms + (uint64_t)adv;
	rp->carry = adv - floor(adv);
	if (t >= rp->end_ms && rp->twin && replay_grow(rp, now) == 0 &&
	    t >= rp->end_ms) {
		/* At the edge of what is recorded: wait for more. */
		replay_advance(rp, rp->end_ms);
		rp->carry = 0;
		return REPLAY_GROW_MS;
	}
	if (t >= rp->end_ms) {
		t = rp->end_ms;
		if (!rp->twin) {
			rp->playing = 0;
			rp->at_end = 1;
		}
	}
	replay_advance(rp, t);
	if (!rp->playing)
		return -1;
	/* Wake for the next job-wide sample: messages come with it. */
	ms = (uint64_t)((double)(rp->next_tick - rp->pos_ms) / speed);
	if (ms < REPLAY_WAKE_MIN_MS)
		ms = REPLAY_WAKE_MIN_MS;
	if (ms > REPLAY_WAKE_MAX_MS)
		ms = REPLAY_WAKE_MAX_MS;
	return (int)ms;
}

void
replay_status(const struct replay *rp, struct replay_status *st)
{
	memset(st, 0, sizeof(*st));
	st->start_ms = rp->start_ms;
	st->end_ms = rp->twin ? clock_wall_ms() : rp->end_ms;
	if (st->end_ms < rp->end_ms)
		st->end_ms = rp->end_ms;
	st->pos_ms = rp->rebuilding ? rp->target_ms : rp->pos_ms;
	if (rp->rebuilding)
		st->rebuilt = (int)((rp->pos_ms - rp->from_ms) * 100 /
		    (rp->target_ms > rp->from_ms ? rp->target_ms - rp->from_ms :
		    1));
	else
		st->rebuilt = -1;
	st->speed = replay_speeds[rp->speed];
	st->playing = rp->playing;
	st->at_end = rp->at_end;
	st->twin = rp->twin;
	st->note = rp->note[0] != '\0' ? rp->note : NULL;
}

/* "+1h30m", "-5m", "+90": signed milliseconds, or -1. */
static int
replay_parse_offset(const char *s, int64_t *out)
{
	const char	*p = s + 1;
	char		*end;
	double		 v, total = 0, unit;

	if (*p == '\0')
		return -1;
	while (*p != '\0') {
		errno = 0;
		v = strtod(p, &end);
		if (end == p || errno != 0 || !isfinite(v) || v < 0)
			return -1;
		switch (*end) {
		case 'd':
			unit = 86400e3;
			end++;
			break;
		case 'h':
			unit = 3600e3;
			end++;
			break;
		case 'm':
			unit = 60e3;
			end++;
			break;
		case 's':
			end++;
			/* FALLTHROUGH */
		case '\0':
			unit = 1e3;
			break;
		default:
			return -1;
		}
		total += v * unit;
		p = end;
	}
	if (total > 1e15)
		return -1;
	*out = (int64_t)(s[0] == '-' ? -total : total);
	return 0;
}

/* "HH:MM[:SS]" local time within the recording, or -1. */
static int
replay_parse_clock(const struct replay *rp, const char *s, uint64_t end,
    uint64_t *t)
{
	struct tm	tm;
	time_t		day, c;
	int		h, m, sec = 0, n = 0;

	if (sscanf(s, "%2d:%2d:%2d%n", &h, &m, &sec, &n) != 3 ||
	    s[n] != '\0') {
		sec = n = 0;
		if (sscanf(s, "%2d:%2d%n", &h, &m, &n) != 2 || s[n] != '\0')
			return -1;
	}
	if (h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 59)
		return -1;
	/* The first day of the recording on which that time falls in it. */
	for (day = (time_t)(rp->start_ms / 1000); day <= (time_t)(end / 1000) +
	    86400; day += 86400) {
		if (localtime_r(&day, &tm) == NULL)
			return -1;
		tm.tm_hour = h;
		tm.tm_min = m;
		tm.tm_sec = sec;
		tm.tm_isdst = -1;
		if ((c = mktime(&tm)) == (time_t)-1)
			return -1;
		if ((uint64_t)c * 1000 + 999 >= rp->start_ms &&
		    (uint64_t)c * 1000 <= end) {
			*t = (uint64_t)c * 1000;
			if (*t < rp->start_ms)
				*t = rp->start_ms;
			return 0;
		}
	}
	return 1;
}

/* A unix ms as local HH:MM:SS. */
static const char *
replay_clock(char *buf, size_t size, uint64_t ms)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, size, "%H:%M:%S", &tm) == 0)
		snprintf(buf, size, "?");
	return buf;
}

int
replay_parse_time(const struct replay *rp, const char *in, uint64_t *t,
    char *err, size_t errsz)
{
	struct replay_status	 st;
	char			 s[64], a[16], b[16], *end;
	int64_t			 off;
	double			 pct;
	size_t			 i, n = 0;
	int			 rc;

	replay_status(rp, &st);
	for (i = 0; in[i] != '\0' && n + 1 < sizeof(s); i++)
		if (!isspace((unsigned char)in[i]))
			s[n++] = in[i];
	s[n] = '\0';
	if (n > 0 && s[n - 1] == '%') {
		errno = 0;
		pct = strtod(s, &end);
		if (end != s + n - 1 || errno != 0 || !isfinite(pct) ||
		    pct < 0 || pct > 100) {
			snprintf(err, errsz, "give a percentage from 0%% to "
			    "100%%");
			return -1;
		}
		*t = st.start_ms + (uint64_t)((double)(st.end_ms -
		    st.start_ms) * pct / 100.0);
		return 0;
	}
	if (s[0] == '+' || s[0] == '-') {
		if (replay_parse_offset(s, &off) != 0) {
			snprintf(err, errsz, "bad offset '%s': give +30s, -5m, "
			    "+1h30m or -2d", s);
			return -1;
		}
		if (off < 0 && (uint64_t)-off > st.pos_ms - st.start_ms)
			*t = st.start_ms;
		else
			*t = st.pos_ms + (uint64_t)off;
		if (*t > st.end_ms)
			*t = st.end_ms;
		return 0;
	}
	if (strchr(s, ':') != NULL) {
		if ((rc = replay_parse_clock(rp, s, st.end_ms, t)) == 0)
			return 0;
		if (rc > 0)
			snprintf(err, errsz, "%s is not in the recording "
			    "(%s to %s)", s, replay_clock(a, sizeof(a),
			    st.start_ms), replay_clock(b, sizeof(b),
			    st.end_ms));
		else
			snprintf(err, errsz, "bad time '%s': give HH:MM:SS", s);
		return -1;
	}
	snprintf(err, errsz, "give a time (12:30:00), an offset (-5m, +30s) "
	    "or a percentage (50%%)");
	return -1;
}

/*
 * The session's feed in a replay: the loop needs one feed that is not
 * done, and a quit (a key, a signal) stops it.  The clock itself runs in
 * the UI's timeout hook.
 */
static int
replay_feed_pollfds(struct feed *f, struct pollfd *pfd)
{
	return 0;
}

static int
replay_feed_timeout(struct feed *f, uint64_t now)
{
	return -1;
}

static void
replay_feed_step(struct feed *f, uint64_t now, const struct pollfd *pfd,
    int n)
{
}

static ssize_t
replay_feed_read(struct feed *f, void *buf, size_t n)
{
	return 0;
}

static void
replay_feed_stop(struct feed *f)
{
	struct replay	*rp = f->impl;

	rp->quit = 1;
}

static int
replay_feed_done(struct feed *f)
{
	struct replay	*rp = f->impl;

	return rp->quit;
}

/* The replay drives itself; to the session loop it is one live node. */
static enum feed_phase
replay_feed_phase(struct feed *f, const char **why)
{
	*why = "replay";
	return FEED_LIVE;
}

static void
replay_feed_free(struct feed *f)
{
}

static const struct feed_ops replay_feed_ops = {
	.name = "replay",
	.pollfds = replay_feed_pollfds,
	.timeout = replay_feed_timeout,
	.step = replay_feed_step,
	.read = replay_feed_read,
	.stop = replay_feed_stop,
	.done = replay_feed_done,
	.phase = replay_feed_phase,
	.free = replay_feed_free,
};

struct feed *
feed_new_replay(struct replay *rp)
{
	return feed_alloc(&replay_feed_ops, rp);
}
