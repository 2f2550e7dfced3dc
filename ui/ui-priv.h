/* SPDX-License-Identifier: ISC */
/*
 * ui-priv: the monitor's state as the panels see it, and the panel class.
 * A panel is one const struct panel in its own panel-NAME.c, listed once
 * in ui_panels[] (panels.c).  Its prepare() builds what it shows (sorted,
 * filtered and folded rows) and may move its cursor; its draw() only reads
 * the models, the history, the detectors and this state.
 */
#ifndef JOBTOP_UI_PRIV_H
#define JOBTOP_UI_PRIV_H

#include <curses.h>
#include <stdint.h>

#include "backtrace.h"
#include "detect.h"
#include "filter.h"
#include "history.h"
#include "session.h"
#include "textsafe.h"
#include "theme.h"
#include "ui.h"

#define UI_MIN_COLS		60
#define UI_MIN_ROWS		10
#define UI_EVENTS_MAX		1000
#define UI_MSG_MS		5000	/* a status message stays this long */
#define UI_EDIT_MAX		256
#define UI_SPARK_MAX		256

enum ui_view {
	UV_NODES,
	UV_RANKS,
	UV_DETAIL,
	UV_EVENTS,
	UV_HELP,
	UV_SETUP,
	UV_STACKS,
	UV_NVIEWS
};

/* How a node's state reads: what colour, what sort order. */
enum ui_sclass {
	US_LIVE,
	US_CONNECTING,
	US_LOST,
	US_FAILED,
	US_DONE
};

enum ui_fold {
	UF_AUTO,	/* fold when the nodes do not fit */
	UF_ALWAYS,
	UF_NEVER
};

struct ui_node {
	char		*name;
	int		 local;
	char		 state[160];
	int		 lost;
	int		 failed;
	int		 live_once;
	int		 sampled;	/* a sample has been shown */
	int		 sclass;	/* enum ui_sclass of state */
	unsigned	 tries;		/* lost: reconnect tries so far */
};

struct ui_event {
	uint64_t	 ms;		/* unix ms */
	int		 node;		/* -1: the job */
	int		 level;		/* EV_* */
	int64_t		 pid;		/* the process it is about, -1 none
					 * or unknown (monitor_event) */
	char		 code[32];
	char		 text[256];
	/* The same info line from several nodes, folded into one
	 * ("node[1-4] probe: ..."): the nodes and the text after the name. */
	int		*fold;
	unsigned	 nfold;
	char		 tail[256];
};

/* A table's cursor. */
struct ui_table {
	int		 sel;		/* selected row */
	int		 top;		/* first row shown */
	int		 sort;		/* sort column */
	int		 rev;		/* descending */
	int		 shown;		/* rows that fit last frame */
};

/* One row of the node table: a node, or a group of look-alike nodes. */
struct ui_nrow {
	int		 node;		/* -1: a group */
	unsigned	 first, count;	/* members in ui->members */
	char		*label;		/* a group's folded names */
	int		 sclass;
	double		 v[HN_NROWS];	/* each catalogue row's (NaN: none) */
	double		 limit;		/* memory limit, bytes (0: none) */
	unsigned	 flags;		/* the node's DF_* (groups: union) */
	unsigned	 rflags;	/* union of its ranks' DF_* */
	unsigned	 nrflagged;	/* ranks with a flag */
	uint64_t	 gidle;		/* its GPUs flagged gpu-idle */
	unsigned	 nranks;
	int		 outlier;
};

/* One row of the rank table. */
struct ui_rrow {
	int			 node;
	const struct minst	*mi;
	const struct hist_rank	*hr;
	int64_t			 rank, pid, start, syscall;
	double			 cpu, rss, rd, wr;
	double			 ipc;		/* NaN without perf */
	double			 mpi;		/* % in MPI, NaN without */
	char			 state;
	unsigned		 flags;
};

struct ui_rect {
	int		 y, x, h, w;
};

struct ui;

struct panel {
	const char	*name;
	/* Lines "KEYS\tWHAT" for the help screen, or NULL. */
	const char	*keys;
	/* Rows wanted out of avail; -1 takes what the others leave. */
	int		(*height)(const struct ui *, int);
	/* Build what draw shows; may move the cursor. */
	void		(*prepare)(struct ui *, const struct ui_rect *);
	/* Draw into the rectangle; reads only. */
	void		(*draw)(const struct ui *, const struct ui_rect *);
	/* A key while this panel has the focus: 1 when handled. */
	int		(*key)(struct ui *, int);
};

extern const struct panel	panel_header;
extern const struct panel	panel_nodes;
extern const struct panel	panel_ranks;
extern const struct panel	panel_detail;
extern const struct panel	panel_events;
extern const struct panel	panel_help;
extern const struct panel	panel_timeline;
extern const struct panel	panel_setup;
extern const struct panel	panel_stacks;
extern const struct panel *const ui_panels[];

/* A global key (keys.c). */
struct ui_key {
	int		 key;
	int		 alt;		/* another key doing the same, or 0 */
	const char	*name;		/* as the help shows it */
	const char	*what;
	void		(*fn)(struct ui *);
};
extern const struct ui_key	ui_keys[];

struct ui {
	struct ui_conf		 conf;
	uint64_t		 start_ms;	/* monotonic */
	uint64_t		 now;		/* monotonic, this frame */
	struct session		*sess;
	struct monitor		*mon;	/* history, detectors... */
	/* Paused: what the screen shows, frozen (the monitor goes on). */
	struct monitor_snap	*frozen;
	struct node_model	*frozen_models;	/* per node */
	unsigned char		*frozen_have;	/* per node: model */
	struct ui_event		*held;	/* events while paused */
	unsigned		 nheld;

	struct history		*hist;
	struct detect		*det;
	struct ui_node		*nodes;
	int			 nnodes;
	uint64_t		 interval_ms;

	struct ui_event		*events;	/* ring of UI_EVENTS_MAX */
	unsigned		 evhead, evlen;
	uint64_t		 evtotal;

	/* Screen. */
	int			 started;
	SCREEN			*scr;
	FILE			*scr_out, *scr_in;
	int			 own_tty;	/* stdin/stdout, signals */
	int			 rows, cols;
	int			 utf8;
	int			 colors;	/* 0: attributes only */
	int			 no_color;
	attr_t			 attr[TR_NROLES];
	struct theme		*theme;
	char			**themes;
	size_t			 nthemes;
	size_t			 theme_idx;
	char			*theme_arg;	/* what loaded it, to save;
						 * NULL: nobody chose it */
	char			 theme_warn[600];	/* settings' theme */

	/* Frame scheduling. */
	int			 dirty;
	int			 paused;
	int			 quitting;
	int			 tty_gone;	/* the terminal hung up */
	int			 job_ended;	/* the scheduler said so */
	uint64_t		 end_ms;	/* when (monotonic ms) */
	uint64_t		 refresh_ms;
	uint64_t		 last_draw;
	uint64_t		 frames;
	uint64_t		 msg_until;
	char			 msg[256];
	int			 msg_err;

	/* Views. */
	enum ui_view		 stack[8];
	int			 depth;
	int			 fold;
	struct ui_table		 ntab, rtab, etab, htab;
	struct ui_table		 stab;		/* setup screen (setup.c) */

	/* Node table rows (prepared), and every visible node's row. */
	struct ui_nrow		*nrows;
	unsigned		 nnrows, capnrows;
	struct ui_nrow		*nall;
	unsigned		 capnall;
	int			*members;
	unsigned		 capmembers;
	int			 sel_node;	/* first node of the selection */
	int			 folded;	/* rows are folded this frame */

	/* Rank table (prepared) and its scope; the rows are rebuilt only
	 * when data, sort, filter or scope changed (rgen...). */
	struct ui_rrow		*rrows;
	unsigned		 nrrows, caprrows;
	uint64_t		 data_gen;	/* bumped by every sample */
	uint64_t		 view_gen;	/* bumped by sort/filter/scope */
	uint64_t		 rrows_data, rrows_view;
	int			 rrows_valid;
	int			*scope;		/* nodes shown, NULL: all */
	unsigned		 nscope;
	char			*scope_label;
	int			 sel_rnode;
	int64_t			 sel_pid;
	int			 cmd_mode;	/* COMMAND: 0 line, 1 with the
						 * path, 2 name (key c) */

	/* Detail of one rank. */
	int			 det_node;
	int64_t			 det_pid, det_start;
	int			 det_scroll;
	const struct minst	*det_mi;	/* prepared */
	const struct hist_rank	*det_hr;
	struct backtrace	*bt;
	int			 bt_node;
	int64_t			 bt_pid;
	char			 bt_note[400];
	/* The stacks view (panel-stacks.c), NULL: not offered. */
	struct ui_stacks	*stacks;

	/* Filter. */
	struct filter		*filter;
	int			 editing;
	char			 edit[UI_EDIT_MAX];
	size_t			 edit_len;
	struct filter		*filter_saved;

	/* Monitor cost. */
	double			 self_cpu;	/* percent of one CPU */
	uint64_t		 self_ticks_at;
	double			 self_secs;

	/* Replay and history (panel-timeline.c).  A replay's ui has its
	 * player and its clock; a live ui in history (twin) mode shows a
	 * second ui, fed from the session's recording, on its screen. */
	struct replay		*replay;	/* feeding this ui, or NULL */
	uint64_t		 vclock;	/* the data's unix ms, 0: live */
	uint64_t		 vstart;	/* the recording's start */
	char			*rec_path;	/* the session's recording */
	struct ui		*twin;		/* shown instead (history) */
	struct ui		*live;		/* a twin's live ui */
	int			 tl_prompt;	/* typing a time to jump to */
	char			 tl_edit[64];
	size_t			 tl_len;
};

/* ui.c: shared helpers for panels and keys. */
const struct node_model *ui_model(const struct ui *, int);
enum ui_view	 ui_view(const struct ui *);
void		 ui_push(struct ui *, enum ui_view);
void		 ui_pop(struct ui *);
void		 ui_message(struct ui *, int, const char *, ...)
		     __attribute__((format(printf, 3, 4)));
int		 ui_sclass(const struct ui *, int);
const char	*ui_sclass_name(int);
int		 ui_sclass_role(int);
/* Why node i failed or was lost ("cannot resolve x: ..."), NULL when it
 * did not or no reason is known. */
const char	*ui_node_reason(const struct ui *, int);
/* Does node i pass the filter (its name or any rank's command)? */
int		 ui_node_visible(const struct ui *, int);
/* Is node i in the rank table's scope? */
int		 ui_in_scope(const struct ui *, int);
void		 ui_set_scope(struct ui *, const int *, unsigned, const char *);
const struct ui_event *ui_event_get(const struct ui *, unsigned);
void		 ui_quit(struct ui *);
/* The flagged rank that matters most (stalled before straggler before
 * memory, then more flags, then the least CPU): 1 with its node and past,
 * 0 when no rank is flagged. */
int		 ui_worst_rank(const struct ui *, int *, const struct hist_rank **);
/* A rank's string field ("wchan", "comm") in its node's model, or NULL. */
const char	*ui_rank_str(const struct ui *, int, int64_t, const char *);
/* Open the worst rank's detail (key !); says so when none is flagged. */
void		 ui_open_worst(struct ui *);
void		 ui_theme_next(struct ui *);
/* The next (dir > 0) or previous theme. */
void		 ui_theme_step(struct ui *, int);
void		 ui_filter_begin(struct ui *);
void		 ui_backtrace(struct ui *);
/* Pause (freeze what is drawn; data keeps coming and is recorded) or
 * resume. */
void		 ui_pause(struct ui *, int);
/* Does the ui show a live session (probes), not a replay or history? */
int		 ui_live(const struct ui *);
/* Step the refresh interval: dir > 0 longer, < 0 shorter. */
void		 ui_refresh_step(struct ui *, int);

/* A table's cursor moved by a navigation key over n rows: 1 handled. */
int		 ui_table_key(struct ui_table *, int, int);
/* Keep the selection in 0..n-1 and visible in h rows. */
void		 ui_table_clamp(struct ui_table *, int, int);

/* widget.c: drawing and formatting. */
/* Text clipped to w columns (control bytes shown as '?'); returns the
 * columns used. */
int		 widget_put(int, int, int, attr_t, const char *);
int		 widget_putf(int, int, int, attr_t, const char *, ...)
		     __attribute__((format(printf, 5, 6)));
void		 widget_fill(int, int, int, attr_t);
/* Right-aligned in w columns. */
void		 widget_rput(int, int, int, attr_t, const char *);
/* Text clipped to w columns with an ellipsis (UTF-8 or '~') where it is
 * cut; returns the columns used. */
int		 widget_put_cut(int, int, int, attr_t, const char *, int);
/* A sparkline of n values scaled to lo..hi (hi <= lo: the series' own
 * maximum) into out (UTF-8 blocks or ASCII); NaN draws a blank. */
void		 widget_spark(const float *, unsigned, double, double, int,
		     char *, size_t);
/* Draw a sparkline string of n columns. */
void		 widget_put_spark(int, int, attr_t, const char *);
/* A bar meter "[|||||     45.0%]" in w columns. */
void		 widget_bar(int, int, int, attr_t, attr_t, double, const char *);
/* "512", "1.5K", "12M", "3.2G" (binary), "-" for NaN. */
const char	*widget_bytes(char *, size_t, double);
/* "0.0", "12.3", "-". */
const char	*widget_num(char *, size_t, double, int);
/* "1:02:03" or "12:03"; "-" when unknown. */
const char	*widget_duration(char *, size_t, long);

/* A table column: hidden (width 0) when the screen is too narrow for it
 * and its priority is low; flex columns share what is left. */
struct widget_col {
	const char	*title;
	int		 width;		/* fixed, or the minimum of a flex one */
	int		 flex;		/* 0 fixed, else the most it takes */
	int		 right;		/* right-aligned */
	int		 prio;		/* dropped first: the highest */
};
/* Place n columns in w: x[] and width[] (0: hidden), 1 space apart. */
void		 widget_cols(const struct widget_col *, int, int, int *,
		     int *);
/* The header row of a table: sort column marked. */
void		 widget_head(int, int, int, attr_t, attr_t,
		     const struct widget_col *, int, const int *, const int *,
		     int, int, int);

/* table.c: the node and rank tables' widget. */
enum { TC_LEFT, TC_RIGHT, TC_CUT, TC_SPARK };
/* A cell as a table's cell function gives it: its text (NULL: empty) and
 * how it is put (TC_CUT: cut with a marker), or a sparkline of n values
 * (0..100) written to v (n comes as the most there is room for; 0 draws
 * nothing); a theme role of its own (-1: the row's attribute; a selected
 * row keeps the selection's). */
struct table_cell {
	const char	*text;
	float		*v;
	unsigned	 n;
	int		 how;
	int		 role;
};
struct table {
	const struct widget_col	*cols;		/* width 0: not shown */
	int			 ncols;
	const struct ui_table	*ut;		/* sort, top, selection */
	int			 nrows;
	const char		*empty;		/* the line without rows */
	int			 empty_role;
	const void		*ctx;
	/* A row's attribute when not selected. */
	attr_t	(*row_attr)(const struct ui *, const void *, int);
	/* Row k's cell of column col; buf is room for its text. */
	void	(*cell)(const struct ui *, const void *, int, int,
		    struct table_cell *, char *, size_t);
};
/* The header at line y, the rows below it, in h lines and w columns. */
void		 table_draw(const struct ui *, int, int, int, int,
		     const struct table *);

/* screen.c: the terminal. */
int		 screen_check(char *, size_t);
int		 screen_start(struct ui *, FILE *, FILE *, const char *, int,
		     int, char *, size_t);
void		 screen_stop(struct ui *);
void		 screen_apply_theme(struct ui *);
/* The window changed size: pick up the new size. */
void		 screen_resize(struct ui *);
/* The SIGWINCH self-pipe's read end (-1 none), drained by screen_resize. */
int		 screen_winch_fd(const struct ui *);

/* panel-timeline.c: history (twin) mode of a live ui. */
/* Go into history at the latest recorded time: 0, or -1 with a message. */
int		 timeline_enter(struct ui *);
/* Back to live: the twin goes, its view stays. */
void		 timeline_leave(struct ui *);
/* The replay's clock ran: ms until it needs to run again, -1 none. */
int		 timeline_tick(struct ui *, uint64_t);

/* panel-stacks.c: take every rank's stack and show the view (key B);
 * run it on every wake-up (ms until the next, -1 none); free it. */
void		 stacks_view_open(struct ui *);
int		 stacks_view_tick(struct ui *, uint64_t);
void		 stacks_view_free(struct ui *);
/* syscalls.c: the name of a syscall number on an architecture, or NULL. */
const char	*ui_syscall_name(const char *, int64_t);

#endif
