/* SPDX-License-Identifier: ISC */
/*
 * monitor: the one core between the feeds and the views.  Per node it
 * keeps the name, a typed phase (enum feed_phase plus the text people
 * see), and, for every node together, the history and the detectors; a
 * driver hands it what it decoded (the live session's hooks in batch and
 * curses mode, the player in a replay) and it passes what it learnt on to
 * its sinks, in the style of ncdu's dir_output: a node added, a sample
 * (after the history and the detectors took it), a phase, an event (the
 * detectors', a probe's, a recorded one, or one of its own such as "node3
 * live"), a job-wide tick, a reset (a replay's seek), the clock of the
 * data, and, live, a node's transport and raw bytes.  The sinks are the
 * curses UI, batch mode's records and the recorder (one sink with batch
 * mode's records in src/main.c); none of them wires history and
 * detectors by hand, and export drives one over a recording too.
 *
 * Use, live (batch and curses mode alike):
 *	mon = monitor_new(&conf); monitor_add_sink(mon, &sink, arg)...
 *	monitor_hooks(mon, &hooks); s = session_new(&sc, &hooks);
 *	monitor_set_session(mon, s); monitor_add_node(mon, name) and
 *	session_add(s, name, ...) per node; session_run(s).
 * The monitor then takes every hook of the session itself (samples,
 * events, states, transports, bytes, the poll's descriptors and
 * wake-ups) and makes the job tick on its own deadline; the recorder,
 * batch mode's records and the curses UI are sinks, none relayed through
 * another.  A player (src/feed-replay.c) or export drives it instead:
 * monitor_sample / monitor_recorded_state / monitor_probe_event, and
 * monitor_job_tick on the recording's clock; a replay adds
 * monitor_set_replayed (the recorded events stand in for the detectors'
 * own), monitor_set_clock and monitor_reset.
 */
#ifndef JOBTOP_MONITOR_H
#define JOBTOP_MONITOR_H

#include <poll.h>
#include <stdint.h>

#include "detect.h"
#include "feed.h"
#include "history.h"
#include "model.h"
#include "proto.h"
#include "rec.h"

/* Where an event comes from. */
enum monitor_origin {
	MON_EV_DETECT,		/* the detectors (recorded live) */
	MON_EV_PROBE,		/* a probe's EVENT message */
	MON_EV_RECORDED,	/* a recording's monitor event */
	MON_EV_MONITOR		/* the monitor's own: live, failed */
};

struct monitor_event {
	enum monitor_origin	 origin;
	int			 node;	/* -1: the job */
	int			 level;	/* EV_* */
	const char		*code;
	const char		*text;
	uint64_t		 time_ms;	/* unix ms */
	int64_t			 pid;	/* the process it is about: a
					 * detector's, a recorded one's
					 * (minor 2 on); -1 none or unknown */
	/* The detector's event (MON_EV_DETECT), else NULL. */
	const struct detect_event *de;
	/* The probe's event as it came (MON_EV_PROBE), else NULL. */
	const struct proto_event *pe;
};

/* A sink: every member may be NULL. */
struct monitor_sink {
	void	(*node_added)(void *, int, const char *);
	void	(*sample)(void *, int, const struct node_model *, uint64_t);
	/* node, phase, the text ("lost: no data for 5.0 s"), lost, and the
	 * wall ms of the change (one reading for every sink) */
	void	(*phase)(void *, int, enum feed_phase, const char *, int,
		    uint64_t);
	void	(*event)(void *, const struct monitor_event *);
	void	(*job_tick)(void *, uint64_t);
	void	(*reset)(void *);
	/* The wall time of the data and of its start (replay), 0: now. */
	void	(*clock)(void *, uint64_t, uint64_t);
	/*
	 * Attached to a live session (monitor_hooks), what the session
	 * tells and the monitor hands on: a node's bytes before they are
	 * decoded and its stream's restarts (wall ms: the recorder), its
	 * transport and why cheaper ones were skipped (wall ms), a decoded
	 * message that is neither a sample nor an event (a HELLO);
	 * descriptors to poll beside the probes' (at most max; ready gets
	 * back this sink's own), and the ms until the sink needs a
	 * wake-up (-1 none).
	 */
	void	(*bytes)(void *, int, uint64_t, const void *, size_t);
	void	(*restart)(void *, int, uint64_t);
	void	(*transport)(void *, int, const char *, const char *,
		    uint64_t);
	void	(*message)(void *, int, int);
	int	(*pollfds)(void *, struct pollfd *, int);
	void	(*ready)(void *, const struct pollfd *, int, uint64_t);
	int	(*timeout)(void *, uint64_t);
};

struct monitor_conf {
	int	 ranks;		/* a job's ranks judged (not -w) */
	long	 ntasks;	/* the scheduler's, -1 unknown */
	double	 mem_node;	/* bytes allocated a node, 0 unknown */
	double	 cpus_node;	/* CPUs allocated a node, 0 unknown */
	uint64_t alloc_ms;	/* watched this long before the allocation
				 * hints, 0: DETECT_ALLOC_MIN_MS */
	double	 interval;	/* seconds between samples */
};

struct monitor;

/* The configuration a recording's meta gives (the player, export,
 * the report): ranks judged when it has a job id, its tasks, and what
 * the scheduler allocated a node; the allocation hints after their
 * default time. */
void		 monitor_conf_recorded(struct monitor_conf *,
		     const struct rec_meta *);

struct monitor	*monitor_new(const struct monitor_conf *);
void		 monitor_free(struct monitor *);
/* At most 4 sinks, told in the order added. */
void		 monitor_add_sink(struct monitor *,
		     const struct monitor_sink *, void *);

/* The recording's nodes, in its order, each with the GPUs the scheduler
 * allocated it (gpu-idle), as live. */
void		 monitor_add_recorded(struct monitor *,
		     const struct rec_meta *);
/*
 * The live session's hooks, all of them the monitor's: it decodes nothing
 * itself but takes each node's samples, events, states, transport and
 * bytes from the session, keeps them per node, and hands them to its
 * sinks; it makes the job tick on its own deadline (every interval, until
 * the job ends; not in a replay, whose player ticks on its clock) and
 * polls the sinks' descriptors.  Then monitor_set_session with the
 * session made from them: the nodes' models are its decoders'.
 */
struct session;
struct session_hooks;
void		 monitor_hooks(struct monitor *, struct session_hooks *);
void		 monitor_set_session(struct monitor *, struct session *);
struct session	*monitor_session(const struct monitor *);
/* Node i's transport is t, cheaper ones skipped for the reason skipped
 * ("" none): the session's hook (tests call it too); kept and told. */
void		 monitor_node_set_transport(struct monitor *, int,
		     const char *, const char *);
/* Node i's transport ("" before it is known) and why cheaper ones were
 * skipped ("" none). */
const char	*monitor_node_transport(const struct monitor *, int);
const char	*monitor_node_skipped(const struct monitor *, int);
/* The samples' interval changed (the UI's key): the job tick follows at
 * once when its next one is further away. */
void		 monitor_set_interval(struct monitor *, double, uint64_t);
/* Node n (the next index); its phase is connecting. */
int		 monitor_add_node(struct monitor *, const char *);
int		 monitor_nnodes(const struct monitor *);
const char	*monitor_node_name(const struct monitor *, int);
enum feed_phase	 monitor_node_phase(const struct monitor *, int);
const char	*monitor_node_text(const struct monitor *, int);
/* Node i has failed for good (said once in the events). */
int		 monitor_node_failed(const struct monitor *, int);
/* Node i is lost (its phase, or no data for too long). */
int		 monitor_node_lost(const struct monitor *, int);

/* Where the nodes' models come from (the session's, the player's). */
void		 monitor_set_models(struct monitor *,
		     const struct node_model *(*)(void *, int), void *);
const struct node_model *monitor_model(const struct monitor *, int);

/* A decoded sample of node i at monotonic (live) or recorded ms now. */
void		 monitor_sample(struct monitor *, int,
		     const struct node_model *, uint64_t);
/* The state text a feed (or a recording) gave node i; lost: the
 * session's no-data verdict.  Parsed once here into the phase. */
void		 monitor_state(struct monitor *, int, const char *, int);
/* The same with the phase known (a recording's, minor 2 on): the text is
 * kept for people, never parsed. */
void		 monitor_state_phase(struct monitor *, int, enum feed_phase,
		     const char *, int);
/* A recorded state of node i: with its phase where the recording has
 * it (minor 2 on), else (-1) its text parsed. */
void		 monitor_recorded_state(struct monitor *, int, const char *,
		     int);
/* A probe's EVENT of node i. */
void		 monitor_probe_event(struct monitor *, int,
		     const struct proto_event *);
/* A recorded monitor event: node (-1 the job), level, code, text, ms,
 * the pid it is about (-1 none, or an older recording's). */
void		 monitor_recorded_event(struct monitor *, int, int,
		     const char *, const char *, uint64_t, int64_t);
/* A job-wide history sample at now (the same clock as the samples). */
void		 monitor_job_tick(struct monitor *, uint64_t);
/* The job ended: ranks that go from now on are not news. */
void		 monitor_job_ended(struct monitor *);
/* Forget every sample, flag, phase and event (a replay's seek). */
void		 monitor_reset(struct monitor *);
/* The GPUs the scheduler allocated the job on node i (job->gpus: bit k
 * its index k, -1 unknown), for gpu-idle (detect_gpu_set_sched). */
void		 monitor_node_gpus(struct monitor *, int, int64_t);
/* A replay: the detectors' events are not told (the recorded ones
 * stand in for them). */
void		 monitor_set_replayed(struct monitor *, int);
/* The data's wall clock (replay), 0 for now. */
void		 monitor_set_clock(struct monitor *, uint64_t, uint64_t);

/* The whole state (history, detectors, phases, the replay's events) to
 * go back to: a replay steps back from a snapshot instead of rebuilding
 * its window.  Restoring tells the sinks reset, then the phases and the
 * events again.  -1: not this monitor's nodes. */
struct monitor_snap;
struct monitor_snap *monitor_snapshot(const struct monitor *);
int		 monitor_restore(struct monitor *,
		     const struct monitor_snap *);
void		 monitor_snap_free(struct monitor_snap *);
/* What a snapshot holds, to draw from (a paused screen). */
struct history	*monitor_snap_history(const struct monitor_snap *);
struct detect	*monitor_snap_detect(const struct monitor_snap *);

struct history	*monitor_history(const struct monitor *);
struct detect	*monitor_detect(const struct monitor *);
/* Node i's GPUs flagged gpu-idle now, a bit per index (detect-gpu.h). */
uint64_t	 monitor_gpu_idle(const struct monitor *, int);
/* The flags' names (at most max) of node i's record (mi NULL: the
 * node's, gpu-idle among them) or of its process mi in model m: what a
 * JSON record carries, live and in an export.  Returns how many. */
int		 monitor_flag_names(const struct monitor *, int,
		     const struct node_model *, const struct minst *,
		     const char **, int);

/* The phase of a state text: "live", "lost: ...", "failed: ...", and the
 * words of old recordings ("reconnecting", "exited ...", "done"). */
enum feed_phase	 monitor_phase_of(const char *);

#endif
