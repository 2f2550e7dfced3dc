/* SPDX-License-Identifier: ISC */
/*
 * panel-detail: one rank up close.  Its state, wait channel and system
 * call (what a stalled rank is stuck in), CPU, memory and I/O with
 * sparklines of their recent past, the flags raised and why, the kernel
 * stack when the probe may read it (else why not), and on 'b' a user-space
 * backtrace taken with gdb or eu-stack on the rank's node: as a child
 * when the node is this machine, through an extra exec channel of the
 * node's SSH session otherwise (backtrace.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "ui-priv.h"

#define DETAIL_LABEL	10

static int
detail_height(const struct ui *ui, int avail)
{
	return -1;
}

static void
detail_prepare(struct ui *ui, const struct ui_rect *r)
{
	const struct node_model	*m = ui_model(ui, ui->det_node);
	const struct minst	*mi;
	int64_t			 pid, start, rank;
	int			 g;

	ui->det_mi = NULL;
	ui->det_hr = NULL;
	if (m == NULL)
		return;
	if ((g = model_group_index(m, "rank")) >= 0) {
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			if (history_rank_ident(m, mi, &pid, &start, &rank) &&
			    pid == ui->det_pid && (ui->det_start < 0 ||
			    start < 0 || start == ui->det_start)) {
				ui->det_mi = mi;
				break;
			}
		}
	}
	ui->det_hr = history_rank_find(ui->hist, ui->det_node, ui->det_pid,
	    ui->det_start);
}

/* A string field of the rank, or NULL. */
static const char *
detail_str(const struct node_model *m, const struct minst *mi, const char *f)
{
	const char	*s;
	int		 k;

	if (m == NULL || mi == NULL ||
	    (k = model_field_index(m, mi->group, f)) < 0 ||
	    (s = model_str(mi, (unsigned)k)) == NULL || *s == '\0')
		return NULL;
	return s;
}

/* A value of the rank as the user sees it (gauge or rate), or NaN. */
static double
detail_metric(const struct node_model *m, const struct minst *mi,
    const char *f)
{
	double	v;
	int	k;

	if (m == NULL || mi == NULL ||
	    (k = model_field_index(m, mi->group, f)) < 0 ||
	    !model_metric(m, mi, (unsigned)k, &v))
		return NAN;
	return v;
}

static const char *
detail_state_word(char c)
{
	switch (c) {
	case 'R':
		return "running";
	case 'S':
		return "sleeping, interruptible";
	case 'D':
		return "waiting, uninterruptible (usually I/O)";
	case 'Z':
		return "zombie";
	case 'T':
		return "stopped";
	case 't':
		return "stopped by a tracer";
	case 'I':
		return "idle kernel thread";
	case 'X':
		return "dead";
	default:
		return "unknown";
	}
}

/* "LABEL  value" and return the next line. */
static int
detail_line(const struct ui *ui, const struct ui_rect *r, int y,
    const char *label, const char *text)
{
	if (y >= r->y + r->h)
		return y;
	widget_put(y, r->x, DETAIL_LABEL, ui->attr[TR_LABEL], label);
	widget_put(y, r->x + DETAIL_LABEL, r->w - DETAIL_LABEL,
	    ui->attr[TR_DEFAULT], text);
	return y + 1;
}

/* "LABEL  text" over as many lines as the text needs, at most max. */
static int
detail_wrap(const struct ui *ui, const struct ui_rect *r, int y,
    const char *label, const char *text, int max)
{
	char	buf[512];
	int	w = r->w - DETAIL_LABEL, n, line;
	size_t	len = strlen(text);

	if (w < 8)
		return detail_line(ui, r, y, label, text);
	for (line = 0; line < max && (line == 0 || len > 0); line++) {
		n = len > (size_t)w ? w : (int)len;
		if (line == max - 1 && len > (size_t)w)
			n = w - 1;	/* room for the mark of the cut */
		if (n > (int)sizeof(buf) - 4)
			n = (int)sizeof(buf) - 4;
		snprintf(buf, sizeof(buf), "%.*s%s", n, text,
		    line == max - 1 && len > (size_t)n ? "~" : "");
		y = detail_line(ui, r, y, line == 0 ? label : "", buf);
		text += n;
		len -= (size_t)n;
	}
	return y;
}

/* A history sparkline line with its latest value. */
static int
detail_spark(const struct ui *ui, const struct ui_rect *r, int y,
    const char *label, enum hist_rank_metric k, int bytes)
{
	float	v[HIST_RANK_DEPTH];
	char	spark[HIST_RANK_DEPTH * 3 + 1], num[32], text[48];
	int	n = r->w - DETAIL_LABEL - 12;
	double	x;

	if (y >= r->y + r->h || ui->det_hr == NULL)
		return y;
	if (n > HIST_RANK_DEPTH)
		n = HIST_RANK_DEPTH;
	if (n < 4)
		n = 4;
	widget_put(y, r->x, DETAIL_LABEL, ui->attr[TR_LABEL], label);
	history_rank_series(ui->det_hr, k, v, (unsigned)n);
	widget_spark(v, (unsigned)n, 0, k == HR_CPU || k == HR_MPI ? 100 : 0,
	    ui->utf8,
	    spark, sizeof(spark));
	widget_put_spark(y, r->x + DETAIL_LABEL, ui->attr[TR_SPARK], spark);
	x = history_rank_get(ui->det_hr, k, 0);
	if (bytes)
		snprintf(text, sizeof(text), " %s", widget_bytes(num,
		    sizeof(num), x));
	else
		snprintf(text, sizeof(text), " %s%%", widget_num(num,
		    sizeof(num), x, 1));
	widget_put(y, r->x + DETAIL_LABEL + n, r->w - DETAIL_LABEL - n,
	    ui->attr[TR_DEFAULT], text);
	return y + 1;
}

/*
 * The mpi source's line (COMM%): the share of the rank's CPU time in its
 * communication library, named (MPI, NCCL, gloo...), and the library
 * most of it fell in, or why there is none.
 */
static int
detail_mpi(const struct ui *ui, const struct ui_rect *r, int y,
    const struct node_model *m, const char *name)
{
	const struct minst	*mi;
	const char		*lib = NULL, *why = NULL, *fam;
	char			 buf[160], a[32];
	double			 x;
	int			 g, f;

	if ((g = model_group_index(m, "rankmpi")) < 0 ||
	    (mi = model_inst_by_name(m, (unsigned)g, name)) == NULL)
		return y;
	if ((f = model_field_index(m, (unsigned)g, "lib")) >= 0)
		lib = model_str(mi, (unsigned)f);
	if ((f = model_field_index(m, (unsigned)g, "why")) >= 0)
		why = model_str(mi, (unsigned)f);
	x = ui->det_hr != NULL ? history_rank_get(ui->det_hr, HR_MPI, 0) :
	    NAN;
	if ((fam = model_comm_family(m, atoll(name))) == NULL)
		fam = "communication";
	if (why != NULL && *why != '\0')
		snprintf(buf, sizeof(buf), "no share: %s", why);
	else if (!isfinite(x))
		snprintf(buf, sizeof(buf), "no samples in the interval (not "
		    "on a CPU in user space)");
	else if (lib != NULL && *lib != '\0' && x > 0)
		snprintf(buf, sizeof(buf), "%s%% of its CPU time in %s, mostly "
		    "in %s", widget_num(a, sizeof(a), x, 0), fam, lib);
	else
		snprintf(buf, sizeof(buf), "%s%% of its CPU time in %s",
		    widget_num(a, sizeof(a), x, 0), fam);
	return detail_line(ui, r, y, "comm", buf);
}

/*
 * What the optional sources know of the rank: its IPC (perf counters),
 * where its memory lies among the NUMA nodes, and what it uses of each
 * GPU with its share of the GPU's processes.  Lines only for what the
 * node sends; returns the next line.
 */
static int
detail_sources(const struct ui *ui, const struct ui_rect *r, int y,
    const struct node_model *m)
{
	const struct minst	*mi, *o;
	char			 buf[512], name[24], a[32];
	int64_t			 v[8], gpu, pid, mem, all, og, om;
	double			 ipc, tot;
	size_t			 len;
	unsigned		 k;
	int			 g, f, fg, fp, fm, fu, n;

	ipc = ui->det_hr != NULL ? history_rank_get(ui->det_hr, HR_IPC, 0) :
	    NAN;
	if (isfinite(ipc)) {
		snprintf(buf, sizeof(buf), "%.2f instructions per cycle", ipc);
		y = detail_line(ui, r, y, "ipc", buf);
	}
	snprintf(name, sizeof(name), "%lld", (long long)ui->det_pid);
	y = detail_mpi(ui, r, y, m, name);
	if ((g = model_group_index(m, "ranknuma")) >= 0 &&
	    (mi = model_inst_by_name(m, (unsigned)g, name)) != NULL) {
		for (k = 0, tot = 0, n = 0; k < 8; k++) {
			snprintf(a, sizeof(a), "n%u", k);
			v[k] = -1;
			if ((f = model_field_index(m, (unsigned)g, a)) >= 0 &&
			    model_value(mi, (unsigned)f, &v[k]) && v[k] > 0) {
				tot += (double)v[k];
				n++;
			}
		}
		for (k = 0, len = 0, buf[0] = '\0'; k < 8 && n > 0; k++) {
			if (v[k] <= 0 || len >= sizeof(buf))
				continue;
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
			    "%snode%u %s (%.0f%%)", len > 0 ? "  " : "", k,
			    widget_bytes(a, sizeof(a), (double)v[k]),
			    (double)v[k] * 100.0 / tot);
		}
		y = detail_line(ui, r, y, "numa", n > 0 ? buf :
		    "no resident memory on any node");
	}
	if ((g = model_group_index(m, "gpuproc")) < 0 ||
	    (fg = model_field_index(m, (unsigned)g, "gpu")) < 0 ||
	    (fp = model_field_index(m, (unsigned)g, "pid")) < 0)
		return y;
	fm = model_field_index(m, (unsigned)g, "mem_used");
	fu = model_field_index(m, (unsigned)g, "util");
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if (!model_value(mi, (unsigned)fp, &pid) ||
		    pid != ui->det_pid || !model_value(mi, (unsigned)fg, &gpu))
			continue;
		mem = -1;
		if (fm >= 0)
			model_value(mi, (unsigned)fm, &mem);
		snprintf(buf, sizeof(buf), "GPU %lld: %s of memory",
		    (long long)gpu, widget_bytes(a, sizeof(a), mem >= 0 ?
		    (double)mem : NAN));
		/* Its share of what every process on that GPU uses. */
		all = 0;
		for (o = m->gfirst[g]; o != NULL && mem > 0; o = o->gnext) {
			if (fm >= 0 && model_value(o, (unsigned)fg, &og) &&
			    og == gpu && model_value(o, (unsigned)fm, &om) &&
			    om > 0)
				all += om;
		}
		if (all > 0)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    ", %.0f%% of the GPU's processes'",
			    (double)mem * 100.0 / (double)all);
		/* Its utilisation, when the probe has it per process. */
		if (fu >= 0 && model_value(mi, (unsigned)fu, &og))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "; %lld%% busy", (long long)og);
		y = detail_line(ui, r, y, "gpu", buf);
	}
	return y;
}

/*
 * The rank's delays as percent of the time: block I/O (blkio_delay, where
 * the node's kernel accounts it: else the delayacct source's reason) and
 * the run queue (rq_delay), and what the rank waits for when they tell
 * (detect_rank_waits: "waiting on storage: ...").
 */
static int
detail_delay(const struct ui *ui, const struct ui_rect *r, int y,
    const struct node_model *m, const struct minst *mi)
{
	char		 buf[256], waits[96], a[32], b[32];
	const char	*off = NULL;
	double		 io, rq;
	unsigned	 i;

	io = detail_metric(m, mi, "blkio_delay");
	rq = detail_metric(m, mi, "rq_delay") / 1e7;
	if (!isfinite(io) && m->have_hello) {
		for (i = 0; i < m->hello.nsources; i++)
			if (strcmp(m->hello.sources[i].name, "delayacct") == 0 &&
			    !m->hello.sources[i].on)
				off = m->hello.sources[i].reason;
	}
	if (!isfinite(io) && !isfinite(rq) && off == NULL)
		return y;
	if (isfinite(io))
		snprintf(a, sizeof(a), "%s%%", widget_num(b, sizeof(b),
		    io > 100 ? 100 : io, 0));
	else
		snprintf(a, sizeof(a), "-");
	snprintf(buf, sizeof(buf), "block I/O %s  run queue %s%%", a,
	    widget_num(b, sizeof(b), rq > 100 ? 100 : rq, 0));
	if (detect_rank_waits(m, mi, waits, sizeof(waits)))
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		    "  (%s)", waits);
	else if (off != NULL)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		    "  (block I/O: %s)", off);
	return detail_line(ui, r, y, "delay", buf);
}

/* Why a rank has no kernel stack: the probe's kstack source is off (its
 * reason), the rank runs, or the probe does not collect stacks. */
static const char *
detail_kstack_why(const struct node_model *m, const char *state, char *buf,
    size_t size)
{
	unsigned	i;

	if (m != NULL && m->have_hello) {
		for (i = 0; i < m->hello.nsources; i++) {
			if (strcmp(m->hello.sources[i].name, "kstack") != 0)
				continue;
			if (!m->hello.sources[i].on) {
				snprintf(buf, size, "kernel stack: %s",
				    m->hello.sources[i].reason);
				return buf;
			}
			if (state != NULL && *state != 'D' && *state != 'S')
				return "- (read only while the rank waits: "
				    "state D or S)";
			return "- (not readable for this process)";
		}
	}
	return "kernel stack: not collected by this probe";
}

/* The kernel stack, "f < g < h" broken at " < " to fit, on as many lines
 * as it needs. */
static int
detail_kstack(const struct ui *ui, const struct ui_rect *r, int y,
    const char *s)
{
	const char	*p = s, *cut, *q;
	char		 buf[PROTO_TEXT_MAX];
	int		 w = r->w - DETAIL_LABEL, n;

	if (w < 20)
		w = 20;
	while (*p != '\0' && y < r->y + r->h) {
		n = (int)strlen(p);
		if (n > w) {
			/* The last " < " that keeps the line within w. */
			for (cut = NULL, q = p; (q = strstr(q, " < ")) != NULL &&
			    q - p <= w; q += 3)
				cut = q;
			n = cut != NULL ? (int)(cut - p) : w;
		}
		if (n > (int)sizeof(buf) - 1)
			n = (int)sizeof(buf) - 1;
		memcpy(buf, p, (size_t)n);
		buf[n] = '\0';
		y = detail_line(ui, r, y, p == s ? "kstack" : "", buf);
		p += n;
		if (strncmp(p, " < ", 3) == 0)
			p += 1;		/* the next line starts "< g" */
	}
	return y;
}

/* The last event the detectors raised about this rank, or NULL: by the
 * pid it is about, or, for an event of an older recording that does not
 * say, by its text ("rank 3 (pid 1003) ..."). */
static const char *
detail_why(const struct ui *ui)
{
	const struct ui_event	*e;
	char			 pidtext[40];
	unsigned		 k;

	snprintf(pidtext, sizeof(pidtext), "pid %lld)", (long long)ui->det_pid);
	for (k = ui->evlen; k > 0; k--) {
		e = ui_event_get(ui, k - 1);
		if (e->node != ui->det_node || e->level != EV_WARN)
			continue;
		if (e->pid >= 0 ? e->pid == ui->det_pid :
		    strstr(e->text, pidtext) != NULL)
			return e->text;
	}
	return NULL;
}

/* gdb's notices between the frames ("[Thread debugging using
 * libthread_db enabled]", "Using host libthread_db library ...", "[New
 * LWP ...]", "[Inferior 1 (process N) detached]"): left out. */
static int
detail_bt_chatter(const char *p, int n)
{
	return (n > 0 && *p == '[') ||
	    (n >= 14 && strncmp(p, "Using host lib", 14) == 0);
}

/* n bytes of p into buf with tabs expanded to the next multiple of 8
 * (gdb's source lines: "161\tx = x * 1.0000001"). */
static void
detail_bt_expand(char *buf, size_t size, const char *p, int n)
{
	size_t	o = 0;
	int	i;

	for (i = 0; i < n && o + 1 < size; i++) {
		if (p[i] != '\t') {
			buf[o++] = p[i];
			continue;
		}
		do
			buf[o++] = ' ';
		while (o % 8 != 0 && o + 1 < size);
	}
	buf[o] = '\0';
}

static void
detail_draw(const struct ui *ui, const struct ui_rect *r)
{
	const struct node_model	*m = ui_model(ui, ui->det_node);
	const struct minst	*mi = ui->det_mi;
	const char		*s, *p, *nl, *why;
	char			 buf[512], a[32], b[32], c[32], d[32];
	double			 x;
	int64_t			 nr;
	int			 y = r->y, k, n, line;
	unsigned		 flags = ui->det_hr != NULL ?
				    ui->det_hr->flags : 0;

	if (ui->det_node < 0 || ui->det_node >= ui->nnodes)
		return;
	if (ui->det_hr != NULL && ui->det_hr->rank >= 0)
		snprintf(buf, sizeof(buf), "Rank %lld (pid %lld) on %s",
		    (long long)ui->det_hr->rank, (long long)ui->det_pid,
		    ui->nodes[ui->det_node].name);
	else if (m != NULL && mi != NULL && detect_is_helper(m, mi))
		snprintf(buf, sizeof(buf), "Launcher helper %lld on %s "
		    "(never judged)", (long long)ui->det_pid,
		    ui->nodes[ui->det_node].name);
	else
		snprintf(buf, sizeof(buf), "Process %lld on %s",
		    (long long)ui->det_pid, ui->nodes[ui->det_node].name);
	k = widget_put(y, r->x, r->w, ui->attr[TR_TITLE], buf);
	if ((s = detail_str(m, mi, "comm")) != NULL)
		k += widget_putf(y, r->x + k, r->w - k, ui->attr[TR_DEFAULT],
		    ": %s", s);
	for (line = 0; line < DF_NFLAGS; line++)
		if ((flags & (1u << line)) != 0)
			k += widget_putf(y, r->x + k, r->w - k,
			    ui->attr[TR_FLAG_STALLED + line], "  [%s]",
			    detect_flag_name(1u << line));
	y++;
	if (mi == NULL) {
		y = detail_line(ui, r, y, "", ui->det_hr != NULL ?
		    "the node's latest sample does not list this process "
		    "(it ended, or the node is not live): last values below" :
		    "not in the node's latest sample: the process ended, or "
		    "the probe no longer lists it");
	} else {
		s = detail_str(m, mi, "state");
		snprintf(buf, sizeof(buf), "%s (%s)", s != NULL ? s : "?",
		    detail_state_word(s != NULL ? *s : '?'));
		x = detail_metric(m, mi, "threads");
		if (isfinite(x))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "   threads %.0f", x);
		x = detail_metric(m, mi, "processor");
		if (isfinite(x))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "   on CPU %.0f", x);
		y = detail_line(ui, r, y, "state", buf);
		if ((s = detail_str(m, mi, "cmdline")) != NULL)
			y = detail_wrap(ui, r, y, "command", s, 3);
		if ((s = detail_str(m, mi, "cwd")) != NULL)
			y = detail_wrap(ui, r, y, "cwd", s, 2);
		x = detail_metric(m, mi, "uid");
		if (isfinite(x) && x >= 0) {
			columns_user((int64_t)x, a, sizeof(a));
			snprintf(buf, sizeof(buf), "%s (uid %.0f)", a, x);
			y = detail_line(ui, r, y, "user", buf);
		}
		s = detail_str(m, mi, "wchan");
		y = detail_line(ui, r, y, "wchan", s != NULL ? s :
		    "- (running, or not readable)");
		x = detail_metric(m, mi, "syscall");
		nr = isfinite(x) && x > -3 && x < 1e15 ? (int64_t)x : -2;
		if (nr == -1)
			snprintf(buf, sizeof(buf), "- (running in user space)");
		else if (nr < 0)
			snprintf(buf, sizeof(buf), "- (not readable)");
		else
			snprintf(buf, sizeof(buf), "%lld (%s)", (long long)nr,
			    (s = ui_syscall_name(m->have_hello ?
			    m->hello.arch : NULL, nr)) != NULL ? s : "?");
		y = detail_line(ui, r, y, "syscall", buf);
		if (!model_derive(m, mi, "cputime", &x))
			x = NAN;
		snprintf(buf, sizeof(buf), "%s%% of one CPU, %s s in all; "
		    "ctxsw/s %s vol, %s invol",
		    widget_num(a, sizeof(a), ui->det_hr != NULL ?
		    history_rank_get(ui->det_hr, HR_CPU, 0) : NAN, 1),
		    widget_num(b, sizeof(b), x, 2),
		    widget_num(c, sizeof(c), detail_metric(m, mi,
		    "vol_ctxsw"), 0), widget_num(d, sizeof(d),
		    detail_metric(m, mi, "invol_ctxsw"), 0));
		x = detail_metric(m, mi, "peak_cpu");
		if (isfinite(x))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "; peak %s%%", widget_num(a, sizeof(a), x, 1));
		y = detail_line(ui, r, y, "cpu", buf);
		snprintf(buf, sizeof(buf), "rss %s  vsize %s  major "
		    "faults/s %s", widget_bytes(a, sizeof(a),
		    detail_metric(m, mi, "rss")), widget_bytes(b, sizeof(b),
		    detail_metric(m, mi, "vsize")), widget_num(c, sizeof(c),
		    detail_metric(m, mi, "majflt"), 0));
		x = detail_metric(m, mi, "peak_rss");
		if (isfinite(x))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "  peak rss %s", widget_bytes(a, sizeof(a), x));
		y = detail_line(ui, r, y, "memory", buf);
		snprintf(buf, sizeof(buf), "read %s/s  write %s/s",
		    widget_bytes(a, sizeof(a), detail_metric(m, mi,
		    "read_bytes")), widget_bytes(b, sizeof(b),
		    detail_metric(m, mi, "write_bytes")));
		y = detail_line(ui, r, y, "io", buf);
		y = detail_delay(ui, r, y, m, mi);
		x = detail_metric(m, mi, "procs");
		if (isfinite(x) && x > 1) {
			snprintf(buf, sizeof(buf), "%.0f live processes: the "
			    "rank and what it runs, counted as one (CPU, "
			    "memory, I/O)", x);
			y = detail_line(ui, r, y, "tree", buf);
		}
		y = detail_sources(ui, r, y, m);
	}
	if (flags != 0 && (why = detail_why(ui)) != NULL)
		y = detail_line(ui, r, y, "why", why);
	y = detail_spark(ui, r, y, "%CPU", HR_CPU, 0);
	y = detail_spark(ui, r, y, "RSS", HR_RSS, 1);
	y = detail_spark(ui, r, y, "READ/s", HR_READ, 1);
	y = detail_spark(ui, r, y, "WRITE/s", HR_WRITE, 1);
	if (ui->det_hr != NULL &&
	    isfinite(history_rank_get(ui->det_hr, HR_MPI, 0)))
		y = detail_spark(ui, r, y, "COMM%", HR_MPI, 0);
	if ((s = detail_str(m, mi, "kstack")) != NULL)
		y = detail_kstack(ui, r, y, s);
	else
		y = detail_line(ui, r, y, "kstack", detail_kstack_why(m,
		    detail_str(m, mi, "state"), buf, sizeof(buf)));
	if (ui->bt_node == ui->det_node && ui->bt_pid == ui->det_pid &&
	    ui->bt_note[0] != '\0')
		y = detail_line(ui, r, y, "backtrace", ui->bt_note);
	else if (ui->replay != NULL)
		y = detail_line(ui, r, y, "backtrace", "- (none in a replay: "
		    "b takes one while jobtop watches the running job)");
	else
		y = detail_line(ui, r, y, "backtrace", ui->nodes[
		    ui->det_node].local ? "press b for a user-space backtrace "
		    "(gdb or eu-stack on this machine)" : "press b for a "
		    "user-space backtrace (gdb or eu-stack on the node)");
	if (ui->bt == NULL || ui->bt_node != ui->det_node ||
	    ui->bt_pid != ui->det_pid)
		return;
	p = backtrace_text(ui->bt);
	for (line = 0; *p != '\0' && y < r->y + r->h; ) {
		nl = strchr(p, '\n');
		n = nl != NULL ? (int)(nl - p) : (int)strlen(p);
		if (!detail_bt_chatter(p, n)) {
			if (line >= ui->det_scroll) {
				detail_bt_expand(buf, sizeof(buf), p, n);
				/* Frames stand out; what is between them
				 * (source lines, notes) is dimmed. */
				widget_put(y++, r->x + 2, r->w - 2, ui->attr[
				    *p == '#' || strncmp(p, "Thread ", 7) == 0 ?
				    TR_DEFAULT : TR_LABEL], buf);
			}
			line++;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
}

static int
detail_key(struct ui *ui, int key)
{

	switch (key) {
	case 'b':
		ui_backtrace(ui);
		return 1;
	case KEY_DOWN:
	case 'j':
		ui->det_scroll++;
		return 1;
	case KEY_UP:
	case 'k':
		if (ui->det_scroll > 0)
			ui->det_scroll--;
		return 1;
	case KEY_NPAGE:
	case ' ':
		ui->det_scroll += 10;
		return 1;
	case KEY_PPAGE:
		ui->det_scroll = ui->det_scroll > 10 ? ui->det_scroll - 10 : 0;
		return 1;
	case KEY_HOME:
	case 'g':
		ui->det_scroll = 0;
		return 1;
	}
	return 0;
}

const struct panel panel_detail = {
	.name = "detail",
	.keys =
	    "b\ta user-space backtrace of the rank (gdb or eu-stack on its "
	    "node)\n"
	    "Up Down j k\tscroll the backtrace\n",
	.height = detail_height,
	.prepare = detail_prepare,
	.draw = detail_draw,
	.key = detail_key,
};
