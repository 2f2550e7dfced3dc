/* SPDX-License-Identifier: ISC */
/*
 * ui: the interactive monitor, a sink of the monitor core (src/monitor.h),
 * which takes the session's hooks (ui_hooks: monitor_hooks): decoded
 * samples go to the history and the detectors, state changes and probe
 * events to the event log, the keyboard and the window size through the
 * sink's descriptors, and redraws happen on a dirty flag at most once per
 * refresh interval.  Draw functions only read the
 * models, the history, the detectors and the UI's own cursor state.
 *
 * Use (main_interactive):
 *	if (ui_check_terminal(err, sizeof(err)) != 0) -> one line, exit 2
 *	ui = ui_new(&conf, err, sizeof(err))          -> NULL: bad theme
 *	ui_hooks(ui, &hooks); s = session_new(&sc, &hooks);
 *	ui_set_session(ui, s); ui_add_node(ui, name, local)... session_add...
 *	ui_start(ui, ...); session_run(s); ui_stop(ui); ui_free(ui);
 */
#ifndef JOBTOP_UI_H
#define JOBTOP_UI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "detect.h"
#include "model.h"
#include "monitor.h"
#include "session.h"

struct config;

struct ui_conf {
	const char	*job_id;	/* "" for a hostlist */
	const char	*job_name;
	const char	*job_user;
	const char	*job_state;
	long		 elapsed;	/* seconds at start, <0 unknown */
	long		 time_limit;	/* seconds, <0 unknown/unlimited */
	long		 ntasks;	/* <0 unknown */
	double		 mem_node;	/* bytes the scheduler allocated a node,
					   0 unknown */
	double		 cpus_node;	/* CPUs the scheduler allocated a node,
					   0 unknown */
	double		 interval;	/* the probes' sample interval, s */
	const char	*theme;		/* -t, NULL: default (or NO_COLOR) */
	/* The settings file (src/config.h), read by main; NULL: none.  It
	 * must outlive the ui: the setup screen (F2) saves over it. */
	const struct config *settings;
	int		 utf8;		/* 1, 0, or -1 from the locale */
};

struct ui;

/* Can this terminal run the monitor?  0, or -1 with one line in err (the
 * terminal is left untouched). */
int		 ui_check_terminal(char *, size_t);
/* A monitor; NULL with the reason (a theme that does not load). */
struct ui	*ui_new(const struct ui_conf *, char *, size_t);
void		 ui_free(struct ui *);

/* Nodes, in session order; local: the monitor's own machine (a backtrace
 * can be taken there). */
void		 ui_add_node(struct ui *, const char *, int);
/* Offer the stacks view (key B) with these options and probe paths
 * (src/stackrun.h; copied). */
struct stackrun_conf;
void		 ui_set_stacks(struct ui *, const struct stackrun_conf *);
/* The session: the models, state and quit come from it. */
void		 ui_set_session(struct ui *, struct session *);
/* The monitor core the ui is a sink of (its history, detectors and
 * nodes' phases): more sinks (the recorder) join it here. */
struct monitor	*ui_monitor(const struct ui *);
/* Where models come from without a session (tests): the monitor's. */
void		 ui_set_models(struct ui *, const struct node_model *(*)(void *,
		     int), void *);
/* The session hooks: the ui's monitor's (monitor_hooks), whose sink the
 * ui is, keyboard and redraws included; the recorder is one more sink of
 * that monitor (ui_monitor). */
void		 ui_hooks(struct ui *, struct session_hooks *);

/* The scheduler says the job has ended in this state (its word): the
 * header shows it instead of RUNNING, the clock and the job's series stop,
 * and the screen stays as it is until q. */
void		 ui_job_end(struct ui *, const char *);

/* The session's recording (path), which history (twin) mode plays while
 * live goes on; NULL: none (--no-record). */
void		 ui_set_recording(struct ui *, const char *);
/* A problem of the monitor itself, such as the recording stopping: a
 * line in the event log and on the status line (stderr is the screen's). */
void		 ui_warn(struct ui *, const char *);

/*
 * Replay (src/feed-replay.c).  The player drives the ui's monitor on a
 * clock of its own (the header shows it), the recorded events stand in
 * for the detectors' own, and the timeline panel shows the player.
 * ui_attach_replay attaches the player to the ui's monitor and shows it.
 */
struct replay;
void		 ui_set_replay(struct ui *, struct replay *);
void		 ui_attach_replay(struct ui *, struct replay *);

/* Take the terminal (curses on stdin/stdout) / give it back. */
int		 ui_start(struct ui *, char *, size_t);
/* Draw into a screen on these files instead (tests, benchmarks): term is
 * the terminfo name, rows and cols the size. */
int		 ui_start_on(struct ui *, FILE *, FILE *, const char *, int, int,
		     char *, size_t);
void		 ui_stop(struct ui *);

/* What the hooks call, public for tests and benchmarks. */
void		 ui_node_sample(struct ui *, int, const struct node_model *,
		     uint64_t);
/* A state text (its phase parsed from it), or the phase as the session
 * has it with the text. */
void		 ui_node_state(struct ui *, int, const char *, int);
void		 ui_node_phase(struct ui *, int, enum feed_phase, const char *,
		     int);
void		 ui_node_event(struct ui *, int, const struct proto_event *);
/* Push a job-wide history sample now. */
void		 ui_job_tick(struct ui *, uint64_t);
/* Prepare and draw one frame now. */
void		 ui_frame(struct ui *, uint64_t);
/* Handle one key (curses key code); 1 when the monitor should quit. */
int		 ui_key(struct ui *, int, uint64_t);
/* Read back screen line y (tests): at most size-1 bytes of text. */
void		 ui_screen_line(struct ui *, int, char *, size_t);

#endif
