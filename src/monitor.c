/* SPDX-License-Identifier: ISC */
/*
 * monitor: the core between the feeds and the views (monitor.h).  The
 * history and the detectors are made here, once, for every mode; a node's
 * state text is parsed into its phase here, once, where it comes in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "detect-gpu.h"
#include "monitor.h"
#include "session.h"
#include "xmalloc.h"

#define MONITOR_MAX_SINKS	4
#define MONITOR_TEXT_MAX	160
#define MONITOR_LOG_MAX		1000	/* a replay's events kept */

struct mon_node {
	char		*name;
	enum feed_phase	 phase;
	char		 text[MONITOR_TEXT_MAX];
	int		 lost;
	int		 failed;	/* said once */
	int		 live_once;	/* said once */
	int64_t		 gpus;		/* the scheduler's, -1 unknown */
	char		 transport[32];	/* the feed's, "" not yet known */
	char		*skipped;	/* why cheaper ones were, NULL none */
};

/* An event as a replay's monitor keeps it (to tell again after a
 * snapshot is restored). */
struct mon_logent {
	enum monitor_origin	 origin;
	int			 node;
	int			 level;
	uint64_t		 time_ms;
	int64_t			 pid;
	char			 code[32];
	char			 text[320];
};

struct mon_log {
	struct mon_logent	*e;	/* ring of MONITOR_LOG_MAX */
	unsigned		 head, len;
};

struct monitor_snap {
	struct history		*hist;
	struct detect		*det;
	struct detect_gpu	*dgpu;
	struct mon_node		*nodes;	/* names borrowed */
	int			 nnodes;
	struct mon_log		 log;
	uint64_t		 vclock, vstart;
};

struct mon_sink {
	struct monitor_sink	 s;
	void			*arg;
	int			 npfd;	/* its descriptors in this poll */
};

struct monitor {
	struct monitor_conf	 conf;
	struct history		*hist;
	struct detect		*det;
	struct detect_gpu	*dgpu;	/* gpu-idle (detect-gpu.h) */
	struct mon_node		*nodes;
	int			 nnodes;
	struct mon_sink		 sinks[MONITOR_MAX_SINKS];
	int			 nsinks;
	const struct node_model *(*models)(void *, int);
	void			*models_arg;
	int			 replayed;
	struct mon_log		 log;	/* replayed: the events */
	uint64_t		 vclock, vstart;
	struct session		*sess;	/* attached: monitor_hooks */
	uint64_t		 next_tick;	/* monotonic ms, 0: unset */
	int			 ended;	/* the job: no more ticks */
};

/* Call member fn of every sink that has it. */
#define MON_TELL(m, fn, ...) do {					\
	int	 k_;							\
	for (k_ = 0; k_ < (m)->nsinks; k_++)				\
		if ((m)->sinks[k_].s.fn != NULL)			\
			(m)->sinks[k_].s.fn((m)->sinks[k_].arg, __VA_ARGS__); \
} while (0)

static void
monitor_tell_event(struct monitor *m, enum monitor_origin o, int node,
    int level, const char *code, const char *text, uint64_t ms, int64_t pid,
    const struct detect_event *de, const struct proto_event *pe)
{
	struct monitor_event	e;

	memset(&e, 0, sizeof(e));
	e.origin = o;
	e.node = node >= 0 && node < m->nnodes ? node : -1;
	e.level = level;
	e.code = code;
	e.text = text;
	e.time_ms = ms;
	e.pid = pid;
	e.de = de;
	e.pe = pe;
	if (m->log.e != NULL) {
		struct mon_logent	*l;

		l = &m->log.e[(m->log.head + m->log.len) % MONITOR_LOG_MAX];
		if (m->log.len == MONITOR_LOG_MAX)
			m->log.head = (m->log.head + 1) % MONITOR_LOG_MAX;
		else
			m->log.len++;
		l->origin = o;
		l->node = e.node;
		l->level = level;
		l->time_ms = ms;
		l->pid = pid;
		snprintf(l->code, sizeof(l->code), "%s", code);
		snprintf(l->text, sizeof(l->text), "%s", text);
	}
	MON_TELL(m, event, &e);
}

static void
monitor_on_detect(void *arg, const struct detect_event *de)
{
	struct monitor	*m = arg;

	if (m->replayed)
		return;
	monitor_tell_event(m, MON_EV_DETECT, de->node, de->level, de->code,
	    de->text, de->time_ms, de->pid, de, NULL);
}

static void
monitor_make(struct monitor *m)
{
	struct detect_conf	dc;

	m->hist = history_new();
	history_resize(m->hist, m->nnodes);
	detect_conf_default(&dc);
	/* Without a job (-w) the processes shown are no job's ranks. */
	dc.ranks = m->conf.ranks;
	dc.ntasks = m->conf.ntasks;	/* said in rank events */
	dc.mem_node = m->conf.mem_node;
	dc.cpus_node = m->conf.cpus_node;
	if (m->conf.alloc_ms > 0)
		dc.alloc_ms = m->conf.alloc_ms;
	m->det = detect_new(m->hist, &dc, monitor_on_detect, m);
	m->dgpu = detect_gpu_new();
}

struct monitor *
monitor_new(const struct monitor_conf *conf)
{
	struct monitor	*m;

	m = xcalloc(1, sizeof(*m));
	m->conf = *conf;
	monitor_make(m);
	return m;
}

void
monitor_free(struct monitor *m)
{
	int	i;

	if (m == NULL)
		return;
	detect_free(m->det);
	detect_gpu_free(m->dgpu);
	history_free(m->hist);
	for (i = 0; i < m->nnodes; i++) {
		free(m->nodes[i].name);
		free(m->nodes[i].skipped);
	}
	free(m->nodes);
	free(m->log.e);
	free(m);
}

void
monitor_add_sink(struct monitor *m, const struct monitor_sink *s, void *arg)
{
	if (m->nsinks == MONITOR_MAX_SINKS)
		abort();
	m->sinks[m->nsinks].s = *s;
	m->sinks[m->nsinks++].arg = arg;
}

static void
monitor_node_clear(struct mon_node *n)
{
	n->phase = FEED_CONNECTING;
	snprintf(n->text, sizeof(n->text), "connecting");
	n->lost = n->failed = n->live_once = 0;
}

int
monitor_add_node(struct monitor *m, const char *name)
{
	struct mon_node	*n;
	int		 i = m->nnodes;

	m->nodes = xreallocarray(m->nodes, (size_t)m->nnodes + 1,
	    sizeof(*m->nodes));
	n = &m->nodes[m->nnodes++];
	memset(n, 0, sizeof(*n));
	n->name = xstrdup(name);
	n->gpus = -1;
	monitor_node_clear(n);
	history_resize(m->hist, m->nnodes);
	MON_TELL(m, node_added, i, n->name);
	return i;
}

void
monitor_node_gpus(struct monitor *m, int i, int64_t mask)
{
	if (i < 0 || i >= m->nnodes)
		return;
	m->nodes[i].gpus = mask;
	detect_gpu_set_sched(m->dgpu, i, mask);
}

int
monitor_nnodes(const struct monitor *m)
{
	return m->nnodes;
}

const char *
monitor_node_name(const struct monitor *m, int i)
{
	return i >= 0 && i < m->nnodes ? m->nodes[i].name : "";
}

enum feed_phase
monitor_node_phase(const struct monitor *m, int i)
{
	return i >= 0 && i < m->nnodes ? m->nodes[i].phase : FEED_CONNECTING;
}

const char *
monitor_node_text(const struct monitor *m, int i)
{
	return i >= 0 && i < m->nnodes ? m->nodes[i].text : "";
}

void
monitor_set_models(struct monitor *m,
    const struct node_model *(*fn)(void *, int), void *arg)
{
	m->models = fn;
	m->models_arg = arg;
}

const struct node_model *
monitor_model(const struct monitor *m, int i)
{
	if (m->models == NULL || i < 0 || i >= m->nnodes)
		return NULL;
	return m->models(m->models_arg, i);
}

void
monitor_sample(struct monitor *m, int i, const struct node_model *model,
    uint64_t now)
{
	if (i < 0 || i >= m->nnodes || model == NULL)
		return;
	history_node_sample(m->hist, i, model, now);
	detect_node_sample(m->det, i, model, model->time_ms);
	detect_gpu_sample(m->dgpu, i, m->nodes[i].name, model, model->time_ms,
	    monitor_on_detect, m);
	MON_TELL(m, sample, i, model, now);
}

/* Wall-clock ms of the data: a replay's clock, else now. */
static uint64_t
monitor_wall(const struct monitor *m)
{
	return m->vclock != 0 ? m->vclock : clock_wall_ms();
}

/* Does text begin with word? */
static int
monitor_word(const char *text, const char *word)
{
	return strncmp(text, word, strlen(word)) == 0;
}

enum feed_phase
monitor_phase_of(const char *t)
{
	if (monitor_word(t, "failed"))
		return FEED_FAILED;
	if (monitor_word(t, "lost") || monitor_word(t, "reconnect"))
		return FEED_LOST;
	if (strcmp(t, "live") == 0)
		return FEED_LIVE;
	if (strcmp(t, "stopping") == 0)
		return FEED_STOPPING;
	/* A probe asked to stop (q, the job's end) is done: "closed" over
	 * SSH, a local probe's exit in words, older recordings' words. */
	if (strcmp(t, "done") == 0 || monitor_word(t, "ended") ||
	    monitor_word(t, "exited") || strcmp(t, "closed") == 0)
		return FEED_CLOSED;
	if (monitor_word(t, "refused"))
		return FEED_REFUSED;
	if (strcmp(t, "waiting") == 0)
		return FEED_WAITING;
	if (strcmp(t, "pushing") == 0)
		return FEED_PUSHING;
	if (strcmp(t, "starting") == 0)
		return FEED_STARTING;
	return FEED_CONNECTING;
}

/* N of a state "reconnecting (try N): ...", else 0. */
static unsigned
monitor_try(const char *text)
{
	static const char	pre[] = "reconnecting (try ";
	unsigned long		n;

	if (strncmp(text, pre, sizeof(pre) - 1) != 0)
		return 0;
	n = strtoul(text + sizeof(pre) - 1, NULL, 10);
	return n < 100000 ? (unsigned)n : 100000;
}

void
monitor_state(struct monitor *m, int i, const char *text, int lost)
{
	monitor_state_phase(m, i, monitor_phase_of(text), text, lost);
}

void
monitor_state_phase(struct monitor *m, int i, enum feed_phase ph,
    const char *text, int lost)
{
	struct mon_node	*n;
	char		 line[256];
	uint64_t	 wall = monitor_wall(m);

	if (i < 0 || i >= m->nnodes)
		return;
	n = &m->nodes[i];
	ph = (unsigned)ph < FEED_NPHASES ? ph : FEED_CONNECTING;
	/* Each reconnect try of a lost node, once ("node3 reconnecting
	 * (try 2)"): never a recovery, that is "back" when live. */
	if (ph == FEED_LOST && monitor_try(text) > 0 &&
	    monitor_try(text) != monitor_try(n->text)) {
		snprintf(line, sizeof(line), "%s reconnecting (try %u)",
		    n->name, monitor_try(text));
		monitor_tell_event(m, MON_EV_MONITOR, i, EV_INFO, "reconnect",
		    line, wall, -1, NULL, NULL);
	}
	snprintf(n->text, sizeof(n->text), "%s", text);
	/* A lost node stays lost until it is live again (or done): its
	 * connecting between tries (older recordings say just that) is
	 * not a recovery. */
	n->lost = lost || ph == FEED_LOST || (n->lost &&
	    (ph == FEED_WAITING || ph == FEED_CONNECTING ||
	    ph == FEED_PUSHING || ph == FEED_STARTING));
	n->phase = ph;
	/* The text as given: the recorder, batch mode's records and its
	 * stderr line keep a refusal's whole reason (the node's copy is
	 * cut at MONITOR_TEXT_MAX). */
	MON_TELL(m, phase, i, n->phase, text, n->lost, wall);
	if (n->phase == FEED_FAILED && !n->failed) {
		n->failed = 1;
		snprintf(line, sizeof(line), "%s %s", n->name, text);
		monitor_tell_event(m, MON_EV_MONITOR, i, EV_ERROR, "failed",
		    line, wall, -1, NULL, NULL);
	} else if (n->phase == FEED_LIVE && !n->live_once) {
		n->live_once = 1;
		snprintf(line, sizeof(line), "%s live", n->name);
		monitor_tell_event(m, MON_EV_MONITOR, i, EV_INFO, "live",
		    line, wall, -1, NULL, NULL);
	}
	detect_node_state(m->det, i, n->name, n->lost, text, wall);
}

void
monitor_recorded_state(struct monitor *m, int i, const char *text, int phase)
{
	if (phase >= 0)
		monitor_state_phase(m, i, (enum feed_phase)phase, text, 0);
	else
		monitor_state(m, i, text, 0);
}

int
monitor_node_failed(const struct monitor *m, int i)
{
	return i >= 0 && i < m->nnodes && m->nodes[i].failed;
}

int
monitor_node_lost(const struct monitor *m, int i)
{
	return i >= 0 && i < m->nnodes && m->nodes[i].lost;
}

struct history *
monitor_snap_history(const struct monitor_snap *sn)
{
	return sn->hist;
}

struct detect *
monitor_snap_detect(const struct monitor_snap *sn)
{
	return sn->det;
}

void
monitor_probe_event(struct monitor *m, int i, const struct proto_event *ev)
{
	char	text[320];

	if (i < 0 || i >= m->nnodes || ev == NULL)
		return;
	snprintf(text, sizeof(text), "%s probe: %s", m->nodes[i].name,
	    ev->text);
	monitor_tell_event(m, MON_EV_PROBE, i, ev->level, ev->code, text,
	    ev->time_ms, -1, NULL, ev);
}

void
monitor_recorded_event(struct monitor *m, int node, int level,
    const char *code, const char *text, uint64_t ms, int64_t pid)
{
	monitor_tell_event(m, MON_EV_RECORDED, node, level, code, text, ms,
	    pid, NULL, NULL);
}

void
monitor_job_tick(struct monitor *m, uint64_t now)
{
	uint64_t	stale = (uint64_t)(m->conf.interval * 1000) * 5 / 2;

	if (stale < 1000)
		stale = 1000;
	history_job_sample(m->hist, now, stale);
	MON_TELL(m, job_tick, now);
}

void
monitor_job_ended(struct monitor *m)
{
	m->ended = 1;
	detect_job_ended(m->det);
}

void
monitor_reset(struct monitor *m)
{
	int	i;

	detect_free(m->det);
	detect_gpu_free(m->dgpu);
	history_free(m->hist);
	monitor_make(m);
	for (i = 0; i < m->nnodes; i++) {
		monitor_node_clear(&m->nodes[i]);
		detect_gpu_set_sched(m->dgpu, i, m->nodes[i].gpus);
	}
	m->log.head = m->log.len = 0;
	for (i = 0; i < m->nsinks; i++)
		if (m->sinks[i].s.reset != NULL)
			m->sinks[i].s.reset(m->sinks[i].arg);
}

void
monitor_set_replayed(struct monitor *m, int on)
{
	m->replayed = on;
	if (on && m->log.e == NULL)
		m->log.e = xcalloc(MONITOR_LOG_MAX, sizeof(*m->log.e));
}

static void
monitor_log_copy(struct mon_log *to, const struct mon_log *from)
{
	if (from->e == NULL) {
		to->e = NULL;
		to->head = to->len = 0;
		return;
	}
	if (to->e == NULL)
		to->e = xcalloc(MONITOR_LOG_MAX, sizeof(*to->e));
	memcpy(to->e, from->e, MONITOR_LOG_MAX * sizeof(*to->e));
	to->head = from->head;
	to->len = from->len;
}

struct monitor_snap *
monitor_snapshot(const struct monitor *m)
{
	struct monitor_snap	*sn;

	sn = xcalloc(1, sizeof(*sn));
	sn->hist = history_clone(m->hist);
	sn->det = detect_clone(m->det, sn->hist, NULL, NULL);
	sn->dgpu = detect_gpu_clone(m->dgpu);
	sn->nnodes = m->nnodes;
	sn->nodes = xreallocarray(NULL, m->nnodes > 0 ? (size_t)m->nnodes : 1,
	    sizeof(*sn->nodes));
	memcpy(sn->nodes, m->nodes, (size_t)m->nnodes * sizeof(*sn->nodes));
	monitor_log_copy(&sn->log, &m->log);
	sn->vclock = m->vclock;
	sn->vstart = m->vstart;
	return sn;
}

void
monitor_snap_free(struct monitor_snap *sn)
{
	if (sn == NULL)
		return;
	detect_free(sn->det);
	detect_gpu_free(sn->dgpu);
	history_free(sn->hist);
	free(sn->nodes);
	free(sn->log.e);
	free(sn);
}

int
monitor_restore(struct monitor *m, const struct monitor_snap *sn)
{
	struct monitor_event	 e;
	const struct mon_logent	*l;
	struct mon_node		*n;
	unsigned		 k;
	int			 i;

	if (sn->nnodes != m->nnodes)
		return -1;
	detect_free(m->det);
	detect_gpu_free(m->dgpu);
	history_free(m->hist);
	m->hist = history_clone(sn->hist);
	m->det = detect_clone(sn->det, m->hist, monitor_on_detect, m);
	/* gpu-idle's counters and flags as they were; the scheduler's GPUs
	 * are the nodes' (they do not change). */
	m->dgpu = detect_gpu_clone(sn->dgpu);
	for (i = 0; i < m->nnodes; i++)
		detect_gpu_set_sched(m->dgpu, i, m->nodes[i].gpus);
	for (i = 0; i < m->nnodes; i++) {
		n = &m->nodes[i];
		n->phase = sn->nodes[i].phase;
		memcpy(n->text, sn->nodes[i].text, sizeof(n->text));
		n->lost = sn->nodes[i].lost;
		n->failed = sn->nodes[i].failed;
		n->live_once = sn->nodes[i].live_once;
	}
	monitor_log_copy(&m->log, &sn->log);
	/* The sinks start over from what the snapshot holds. */
	for (i = 0; i < m->nsinks; i++)
		if (m->sinks[i].s.reset != NULL)
			m->sinks[i].s.reset(m->sinks[i].arg);
	for (i = 0; i < m->nnodes; i++) {
		n = &m->nodes[i];
		if (n->phase != FEED_CONNECTING ||
		    strcmp(n->text, "connecting") != 0)
			MON_TELL(m, phase, i, n->phase, n->text, n->lost,
			    monitor_wall(m));
	}
	for (k = 0; m->log.e != NULL && k < m->log.len; k++) {
		l = &m->log.e[(m->log.head + k) % MONITOR_LOG_MAX];
		memset(&e, 0, sizeof(e));
		e.origin = l->origin;
		e.node = l->node;
		e.level = l->level;
		e.code = l->code;
		e.text = l->text;
		e.time_ms = l->time_ms;
		e.pid = l->pid;
		MON_TELL(m, event, &e);
	}
	monitor_set_clock(m, sn->vclock, sn->vstart);
	return 0;
}

void
monitor_set_clock(struct monitor *m, uint64_t wall_ms, uint64_t start_ms)
{
	m->vclock = wall_ms;
	m->vstart = start_ms;
	MON_TELL(m, clock, wall_ms, start_ms);
}

struct history *
monitor_history(const struct monitor *m)
{
	return m->hist;
}

struct detect *
monitor_detect(const struct monitor *m)
{
	return m->det;
}

uint64_t
monitor_gpu_idle(const struct monitor *m, int i)
{
	return detect_gpu_idle(m->dgpu, i);
}

int
monitor_flag_names(const struct monitor *m, int i,
    const struct node_model *model, const struct minst *mi,
    const char **names, int max)
{
	const struct hist_rank	*hr;
	int64_t			 pid, start, rank;
	int			 n;

	if (mi == NULL) {
		n = detect_flag_names(detect_node_flags(m->det, i), names,
		    max);
		if (n < max && monitor_gpu_idle(m, i) != 0)
			names[n++] = DETECT_GPU_FLAG;
		return n;
	}
	if (!history_rank_ident(model, mi, &pid, &start, &rank) ||
	    (hr = history_rank_find(m->hist, i, pid, start)) == NULL)
		return 0;
	return detect_flag_names(detect_rank_flags(hr), names, max);
}

void
monitor_conf_recorded(struct monitor_conf *c, const struct rec_meta *meta)
{
	memset(c, 0, sizeof(*c));
	c->ranks = meta->job[0] != '\0';
	c->ntasks = meta->ntasks;
	c->mem_node = meta->nnodes > 0 ? (double)meta->mem / meta->nnodes :
	    0;
	c->cpus_node = meta->nnodes > 0 ? (double)meta->cpus / meta->nnodes :
	    0;
	c->interval = meta->interval_ms > 0 ? meta->interval_ms / 1000.0 : 1;
}

void
monitor_add_recorded(struct monitor *m, const struct rec_meta *meta)
{
	unsigned	i;
	int		k;

	for (i = 0; i < meta->nnodes; i++) {
		k = monitor_add_node(m, meta->nodes[i]);
		if (meta->gpus != NULL)
			monitor_node_gpus(m, k, meta->gpus[i]);
	}
}

/* The live session's hooks: see monitor_hooks. */
static void
monitor_on_bytes(void *arg, struct session *s, int i, uint64_t wall,
    const void *buf, size_t n)
{
	struct monitor	*m = arg;

	MON_TELL(m, bytes, i, wall, buf, n);
}

static void
monitor_on_restart(void *arg, struct session *s, int i, uint64_t wall)
{
	struct monitor	*m = arg;

	MON_TELL(m, restart, i, wall);
}

static void
monitor_on_message(void *arg, struct session *s, int i, int type)
{
	struct monitor	*m = arg;

	if (type == MSG_SAMPLE)
		monitor_sample(m, i, session_node_model(s, i),
		    clock_mono_ms());
	else if (type == MSG_EVENT)
		monitor_probe_event(m, i, session_node_event(s, i));
	else
		MON_TELL(m, message, i, type);
}

static void
monitor_on_state(void *arg, struct session *s, int i, const char *old,
    const char *cur)
{
	struct monitor	*m = arg;

	monitor_state_phase(m, i, session_node_phase(s, i), cur,
	    session_node_lost(s, i));
}

static void
monitor_on_transport(void *arg, struct session *s, int i, const char *t,
    const char *skipped)
{
	monitor_node_set_transport(arg, i, t, skipped);
}

void
monitor_node_set_transport(struct monitor *m, int i, const char *t,
    const char *skipped)
{
	struct mon_node	*n;

	if (i < 0 || i >= m->nnodes)
		return;
	n = &m->nodes[i];
	snprintf(n->transport, sizeof(n->transport), "%s", t);
	free(n->skipped);
	n->skipped = *skipped != '\0' ? xstrdup(skipped) : NULL;
	/* One clock reading for every sink: the record printed and the
	 * recording's must say the same time. */
	MON_TELL(m, transport, i, t, skipped, clock_wall_ms());
}

/* The sinks' descriptors one after the other; each gets its own back. */
static int
monitor_on_pollfds(void *arg, struct pollfd *pfd, int max)
{
	struct monitor	*m = arg;
	struct mon_sink	*k;
	int		 n = 0, i;

	for (i = 0; i < m->nsinks; i++) {
		k = &m->sinks[i];
		k->npfd = 0;
		if (k->s.pollfds != NULL && n < max)
			k->npfd = k->s.pollfds(k->arg, pfd + n, max - n);
		n += k->npfd;
	}
	return n;
}

static void
monitor_on_ready(void *arg, struct session *s, const struct pollfd *pfd,
    int n, uint64_t now)
{
	struct monitor	*m = arg;
	struct mon_sink	*k;
	int		 off = 0, i, c;

	for (i = 0; i < m->nsinks && off < n; i++) {
		k = &m->sinks[i];
		c = k->npfd < n - off ? k->npfd : n - off;
		if (c > 0 && k->s.ready != NULL)
			k->s.ready(k->arg, pfd + off, c, now);
		off += k->npfd;
	}
}

/* The samples' interval in ms, as the job tick's period. */
static uint64_t
monitor_tick_ms(const struct monitor *m)
{
	uint64_t	ms = (uint64_t)(m->conf.interval * 1000);

	return ms < 10 ? 10 : ms;
}

/*
 * The job tick on the monitor's own deadline, once per interval from one
 * interval after the first pass, while the data is live (a replay's
 * player ticks on its clock) and the job runs; then the sinks' wake-ups.
 */
static int
monitor_on_timeout(void *arg, uint64_t now)
{
	struct monitor	*m = arg;
	struct mon_sink	*k;
	int		 t = -1, c, i;

	if (!m->replayed && !m->ended && m->sess != NULL) {
		if (m->next_tick == 0)
			m->next_tick = now + monitor_tick_ms(m);
		else if (now >= m->next_tick) {
			/* Paused screens too: the history goes on. */
			monitor_job_tick(m, now);
			m->next_tick += monitor_tick_ms(m);
			if (m->next_tick <= now)
				m->next_tick = now + monitor_tick_ms(m);
		}
		t = (int)(m->next_tick - now);
	}
	for (i = 0; i < m->nsinks; i++) {
		k = &m->sinks[i];
		if (k->s.timeout != NULL &&
		    (c = k->s.timeout(k->arg, now)) >= 0 && (t < 0 || c < t))
			t = c;
	}
	return t;
}

void
monitor_hooks(struct monitor *m, struct session_hooks *h)
{
	memset(h, 0, sizeof(*h));
	h->arg = m;
	h->bytes = monitor_on_bytes;
	h->restart = monitor_on_restart;
	h->message = monitor_on_message;
	h->state = monitor_on_state;
	h->transport = monitor_on_transport;
	h->pollfds = monitor_on_pollfds;
	h->ready = monitor_on_ready;
	h->timeout = monitor_on_timeout;
}

/* Models from the session (always the current stream's: a reconnect
 * replaces it). */
static const struct node_model *
monitor_session_model(void *arg, int i)
{
	struct monitor	*m = arg;

	return m->sess != NULL && i < session_nnodes(m->sess) ?
	    session_node_model(m->sess, i) : NULL;
}

void
monitor_set_session(struct monitor *m, struct session *s)
{
	m->sess = s;
	monitor_set_models(m, monitor_session_model, m);
}

struct session *
monitor_session(const struct monitor *m)
{
	return m->sess;
}

const char *
monitor_node_transport(const struct monitor *m, int i)
{
	return i >= 0 && i < m->nnodes ? m->nodes[i].transport : "";
}

const char *
monitor_node_skipped(const struct monitor *m, int i)
{
	return i >= 0 && i < m->nnodes && m->nodes[i].skipped != NULL ?
	    m->nodes[i].skipped : "";
}

void
monitor_set_interval(struct monitor *m, double secs, uint64_t now)
{
	uint64_t	ms;

	m->conf.interval = secs;
	ms = monitor_tick_ms(m);
	if (m->next_tick > now + ms)
		m->next_tick = now + ms;
}
