/* SPDX-License-Identifier: ISC */
/*
 * panel-header: the job at a glance.  Its first line names the job (id,
 * name, owner, state, elapsed of the time limit, nodes by state, its ranks
 * against the tasks the scheduler expects: "ranks 3 of 4", or the
 * processes of a hostlist);
 * below it job-wide meters with sparklines of their recent past (CPU busy,
 * memory of the limit, disk and network rates, GPUs when a node has them),
 * on taller terminals a line or two of the optional sources the job's
 * nodes have (GPU memory, power and temperature, the job's share of the
 * GPUs, InfiniBand and file-system rates, RAPL power, the hottest sensor,
 * IPC), and what monitoring costs: every probe's CPU and bytes sent, the
 * monitor's own CPU, and the flags raised, with the recording's path.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ui-priv.h"

/* The optional sources' items: the catalogue rows with a header label
 * (metrics.h: struct metric_hdr), in their order, built once. */
static int	header_row[HN_NROWS];
static unsigned	header_n;

static void
header_build(void)
{
	unsigned	k, j;

	if (header_n > 0)
		return;
	for (k = 0; k < HN_NROWS; k++) {
		if (metric_cat[k].hdr.label == NULL)
			continue;
		for (j = header_n; j > 0 &&
		    metric_cat[header_row[j - 1]].hdr.pos >
		    metric_cat[k].hdr.pos; j--)
			header_row[j] = header_row[j - 1];
		header_row[j] = (int)k;
		header_n++;
	}
}

#define HEADER_ITEM_W	26	/* columns an item wants */
#define HEADER_XLINES	2	/* lines of items at most */

/* The items the job has a value of in its recent past; their count. */
static unsigned
header_present(const struct ui *ui, int *have)
{
	unsigned	i, k, n = 0;

	header_build();
	for (i = 0; i < header_n; i++) {
		have[i] = 0;
		for (k = 0; k < 10 && !have[i]; k++)
			have[i] = isfinite(history_job_get(ui->hist,
			    header_row[i], k));
		n += (unsigned)have[i];
	}
	return n;
}

/* Lines of items: as many as the items need, on a terminal tall enough. */
static int
header_xlines(const struct ui *ui)
{
	int		have[HN_NROWS], per, n;

	n = (int)header_present(ui, have);
	per = ui->cols / HEADER_ITEM_W > 0 ? ui->cols / HEADER_ITEM_W : 1;
	n = (n + per - 1) / per;
	if (n > HEADER_XLINES)
		n = HEADER_XLINES;
	if (ui->rows < 24)
		n = 0;
	else if (ui->rows < 30 && n > 1)
		n = 1;
	return n;
}

static int
header_height(const struct ui *ui, int avail)
{
	return ui->rows >= 20 ? 4 + header_xlines(ui) : 2;
}

/* "LABEL [|||   45%] sparkline" in w columns. */
static void
header_meter(const struct ui *ui, int y, int x, int w, const char *label,
    double pct, const char *text, int k, double lo,
    double hi)
{
	float	v[UI_SPARK_MAX];
	char	spark[UI_SPARK_MAX * 3 + 1];
	int	bw, sw, lw = 5;

	if (w < lw + 8)
		return;
	widget_put(y, x, lw, ui->attr[TR_HEADER_LABEL], label);
	bw = (w - lw) / 2;
	if (bw > 32)
		bw = 32;
	if (bw < 12)
		bw = w - lw;
	widget_bar(y, x + lw, bw, ui->attr[TR_METER_BAR],
	    ui->attr[TR_METER_TEXT], pct, text);
	sw = w - lw - bw - 2;
	if (sw <= 0)
		return;
	if (sw > UI_SPARK_MAX)
		sw = UI_SPARK_MAX;
	history_job_series(ui->hist, k, v, (unsigned)sw);
	widget_spark(v, (unsigned)sw, lo, hi, ui->utf8, spark, sizeof(spark));
	widget_put_spark(y, x + lw + bw + 1, ui->attr[TR_SPARK], spark);
}

/* "LABEL 1.2M/s sparkline" in w columns. */
static void
header_rate(const struct ui *ui, int y, int x, int w, const char *label,
    int k, int pct)
{
	float	v[UI_SPARK_MAX];
	char	spark[UI_SPARK_MAX * 3 + 1], num[32], text[40];
	double	x0 = history_job_get(ui->hist, k, 0);
	int	lw = 5, tw = 9, sw;

	if (w < lw + tw + 2)
		return;
	widget_put(y, x, lw, ui->attr[TR_HEADER_LABEL], label);
	if (pct)
		snprintf(text, sizeof(text), "%s%%", widget_num(num,
		    sizeof(num), x0, 0));
	else
		snprintf(text, sizeof(text), "%s/s", widget_bytes(num,
		    sizeof(num), x0));
	widget_rput(y, x + lw, tw - 1, ui->attr[TR_METER_TEXT], text);
	sw = w - lw - tw - 1;
	if (sw <= 0)
		return;
	if (sw > UI_SPARK_MAX)
		sw = UI_SPARK_MAX;
	history_job_series(ui->hist, k, v, (unsigned)sw);
	widget_spark(v, (unsigned)sw, 0, pct ? 100 : 0, ui->utf8, spark,
	    sizeof(spark));
	widget_put_spark(y, x + lw + tw, ui->attr[TR_SPARK], spark);
}

/* "LABEL value sparkline" of an item in w columns: the value as its
 * unit says (bytes/s, whole watts or degrees, a percent, bytes of the
 * total of a "used of total" row, else two decimals). */
static void
header_item(const struct ui *ui, int y, int x, int w, unsigned i)
{
	const struct metric_def	*d = &metric_cat[header_row[i]];
	float	v[UI_SPARK_MAX];
	char	spark[UI_SPARK_MAX * 3 + 1], a[32], b[32], text[48];
	double	x0 = history_job_get(ui->hist, header_row[i], 0), hi = 0;
	int	lw = 6, tw = 12, sw;

	if (w < lw + 6)
		return;
	widget_put(y, x, lw, ui->attr[TR_HEADER_LABEL], d->hdr.label);
	if (d->col.fmt == MV_OF && d->col.of >= 0) {
		hi = history_job_get(ui->hist, d->col.of, 0);
		snprintf(text, sizeof(text), "%s/%s", widget_bytes(a,
		    sizeof(a), x0), widget_bytes(b, sizeof(b), hi));
	} else if (strcmp(d->unit, "B/s") == 0)
		snprintf(text, sizeof(text), "%s/s", widget_bytes(a, sizeof(a),
		    x0));
	else if (strcmp(d->unit, "W") == 0 || strcmp(d->unit, "C") == 0)
		snprintf(text, sizeof(text), "%s%s", widget_num(a, sizeof(a),
		    x0, 0), d->unit);
	else if (strcmp(d->unit, "%") == 0) {
		hi = 100;
		snprintf(text, sizeof(text), "%s%%", widget_num(a, sizeof(a),
		    x0, 0));
	} else
		snprintf(text, sizeof(text), "%s", widget_num(a, sizeof(a), x0,
		    2));
	if (tw > w - lw)
		tw = w - lw;
	widget_rput(y, x + lw, tw - 1, ui->attr[TR_METER_TEXT], text);
	sw = w - lw - tw - 1;
	if (sw <= 0)
		return;
	if (sw > UI_SPARK_MAX)
		sw = UI_SPARK_MAX;
	history_job_series(ui->hist, header_row[i], v, (unsigned)sw);
	widget_spark(v, (unsigned)sw, 0, isfinite(hi) ? hi : 0, ui->utf8,
	    spark, sizeof(spark));
	widget_put_spark(y, x + lw + tw, ui->attr[TR_SPARK], spark);
}

/* The lines of the optional sources' items, from y; the next line. */
static int
header_extra(const struct ui *ui, int y, int w, int lines)
{
	int		have[HN_NROWS], per, slot, n, col;
	unsigned	i;

	n = (int)header_present(ui, have);
	if (lines <= 0 || n == 0)
		return y;
	per = w / HEADER_ITEM_W > 0 ? w / HEADER_ITEM_W : 1;
	if (n < per * lines)
		per = (n + lines - 1) / lines;
	slot = w / per;
	for (i = 0, n = 0; i < header_n && n < per * lines; i++) {
		if (!have[i])
			continue;
		col = n % per;
		header_item(ui, y + n / per, col * slot, col == per - 1 ?
		    w - col * slot : slot - 1, i);
		n++;
	}
	return y + lines;
}

/* "  via srun as jtuser" when nodes are reached through a launcher that
 * root started as the job's owner (their transport reads "srun as
 * jtuser"); the first such node's, and how many when not all.  1 with
 * buf set, else 0. */
static int
header_runas(const struct ui *ui, char *buf, size_t size)
{
	const char	*first = NULL, *t;
	int		 i, n = 0;

	for (i = 0; i < ui->nnodes; i++) {
		t = monitor_node_transport(ui->mon, i);
		if (strstr(t, " as ") == NULL)
			continue;
		if (first == NULL)
			first = t;
		n++;
	}
	if (first == NULL)
		return 0;
	if (n == ui->nnodes)
		snprintf(buf, size, "  via %s", first);
	else
		snprintf(buf, size, "  via %s (%d of %d nodes)", first, n,
		    ui->nnodes);
	return 1;
}

/*
 * "  ranks 3 of 4" (the job's ranks: rank ids, against the launcher's
 * world or the scheduler's task count when either is known), or "  procs 12" for the processes of a
 * hostlist or of a job none of whose processes has a rank id; its role
 * in *role: a warning while the ranks are not what the scheduler expects.
 */
static void
header_ranks(const struct ui *ui, unsigned nprocs, char *buf, size_t size,
    int *role)
{
	long	r = detect_ranks(ui->det), e = detect_ntasks(ui->det);
	char	of[32] = "";

	*role = TR_HEADER;
	if (ui->conf.job_id[0] == '\0' || (r < 0 && nprocs > 0)) {
		snprintf(buf, size, "  procs %u", nprocs);
		return;
	}
	if (r < 0)
		r = 0;
	if (e > 0) {
		snprintf(of, sizeof(of), " of %ld", e);
		if (r != e)
			*role = TR_EVENT_WARN;
	}
	snprintf(buf, size, "  ranks %ld%s", r, of);
}

static const int header_flag_roles[DF_NFLAGS] = { TR_FLAG_STALLED,
    TR_FLAG_STRAGGLER, TR_FLAG_MEMORY, TR_FLAG_LOST };

/* "1 stalled rank, 1 lost node" of the flags up (the most serious first),
 * "" when none; the role of the first in *role. */
static void
header_flag_text(const struct ui *ui, char *buf, size_t size, int *role)
{
	unsigned	nf[DF_NFLAGS], rf[DF_NFLAGS], b, hp, hi, hm;
	size_t		len = 0;
	int		i, am, ac;

	buf[0] = '\0';
	*role = TR_HEADER;
	detect_counts(ui->det, nf, rf);
	for (b = 0; b < DF_NFLAGS && len < size; b++) {
		if (rf[b] > 0) {
			len += (size_t)snprintf(buf + len, size - len,
			    "%s%u %s rank%s", len > 0 ? ", " : "", rf[b],
			    detect_flag_name(1u << b), rf[b] > 1 ? "s" : "");
			if (*role == TR_HEADER)
				*role = header_flag_roles[b];
		}
		if (nf[b] > 0 && len < size) {
			len += (size_t)snprintf(buf + len, size - len,
			    "%s%u %s node%s", len > 0 ? ", " : "", nf[b],
			    detect_flag_name(1u << b), nf[b] > 1 ? "s" : "");
			if (*role == TR_HEADER)
				*role = header_flag_roles[b];
		}
	}
	/* The verdicts with a hint (detect.h), after the flags. */
	detect_hint_counts(ui->det, &hp, &hi, &hm);
	if (hp > 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s%u node%s "
		    "with pinned ranks", len > 0 ? ", " : "", hp, hp > 1 ?
		    "s" : "");
	if (hi > 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s%u I/O-bound "
		    "rank%s", len > 0 ? ", " : "", hi, hi > 1 ? "s" : "");
	if (hm > 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s%u node%s "
		    "with memory growing to the limit", len > 0 ? ", " : "",
		    hm, hm > 1 ? "s" : "");
	/* The allocation used a fraction (detect_alloc). */
	detect_alloc_said(ui->det, &am, &ac);
	if ((am | ac) != 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%sthe job "
		    "uses under a quarter of its %s%s%s", len > 0 ? ", " : "",
		    am ? "memory" : "", am && ac ? " and " : "", ac ? "CPUs" :
		    "");
	if ((hp | hi | hm | am | ac) != 0 && *role == TR_HEADER)
		*role = TR_FLAG_STRAGGLER;
	/* gpu-idle (detect-gpu.h): "2 idle GPUs". */
	for (i = 0, b = 0; i < ui->nnodes; i++)
		b += (unsigned)__builtin_popcountll(monitor_gpu_idle(ui->mon,
		    i));
	if (b > 0 && len < size) {
		snprintf(buf + len, size - len, "%s%u idle GPU%s",
		    len > 0 ? ", " : "", b, b > 1 ? "s" : "");
		if (*role == TR_HEADER)
			*role = TR_FLAG_STRAGGLER;
	}
}

/* " (unreachable, retrying, 3rd try)" after the lost count, the most
 * tries of the lost nodes; " (unreachable)" before the first try. */
static void
header_tries(const struct ui *ui, char *buf, size_t size)
{
	static const char *const sfx[] = { "th", "st", "nd", "rd" };
	unsigned	t = 0;
	size_t		len = strlen(buf);
	int		i;

	for (i = 0; i < ui->nnodes; i++)
		if (ui_sclass(ui, i) == US_LOST && ui->nodes[i].tries > t)
			t = ui->nodes[i].tries;
	if (len >= size)
		return;
	if (t == 0)
		snprintf(buf + len, size - len, " (unreachable)");
	else
		snprintf(buf + len, size - len, " (unreachable, retrying, "
		    "%u%s try)", t, t % 100 / 10 == 1 || t % 10 > 3 ?
		    "th" : sfx[t % 10]);
}

/* The job line; with flags, the line keeps room at its end for them when
 * the cost line is not drawn (short terminals) or the line is cut (narrow
 * ones): the count matters most. */
static void
header_job(const struct ui *ui, int y, int w, int noflagline)
{
	char		 line[512], el[32], lim[32], name[128], clock[16];
	char		 flags[160], ftext[180];
	unsigned	 cls[US_DONE + 1], k, nranks = 0;
	long		 elapsed;
	int		 role, frole, fw = 0, wfull = w;
	int		 i, x;
	time_t		 t;
	struct tm	 tm;

	header_flag_text(ui, flags, sizeof(flags), &frole);
	if (flags[0] != '\0' && (noflagline || w < 120)) {
		snprintf(ftext, sizeof(ftext), "FLAGS %s", flags);
		fw = (int)strlen(ftext);
		if (fw > w - 20)
			fw = w - 20 > 0 ? w - 20 : 0;
		w -= fw + 1;
	}

	memset(cls, 0, sizeof(cls));
	for (i = 0; i < ui->nnodes; i++) {
		cls[ui_sclass(ui, i)]++;
		nranks += history_nranks(ui->hist, i);
	}
	elapsed = ui->now > ui->start_ms ?
	    (long)((ui->now - ui->start_ms) / 1000) : 0;
	/* An ended job's clock stops where it ended. */
	if (ui->job_ended)
		elapsed = ui->end_ms > ui->start_ms ?
		    (long)((ui->end_ms - ui->start_ms) / 1000) : 0;
	/* A replay: its recorded time. */
	t = ui->vclock != 0 ? (time_t)(ui->vclock / 1000) : time(NULL);
	if (ui->vclock != 0)
		elapsed = ui->vclock > ui->vstart ?
		    (long)((ui->vclock - ui->vstart) / 1000) : 0;
	if (ui->conf.elapsed >= 0)
		elapsed += ui->conf.elapsed;
	widget_duration(el, sizeof(el), elapsed);
	widget_duration(lim, sizeof(lim), ui->conf.time_limit);
	x = widget_put(y, 0, w, ui->attr[TR_TITLE], "jobtop ");
	if (ui->conf.job_id[0] != '\0') {
		snprintf(line, sizeof(line), "job %s", ui->conf.job_id);
		x += widget_put(y, x, w - x, ui->attr[TR_HEADER_LABEL], line);
		snprintf(line, sizeof(line), "%s%s%s%s%s%s",
		    ui->conf.job_name[0] != '\0' ? " " : "",
		    text_clean(name, sizeof(name), ui->conf.job_name),
		    ui->conf.job_user[0] != '\0' ? " of " : "",
		    ui->conf.job_user,
		    ui->conf.job_state[0] != '\0' && !ui->job_ended ? " " : "",
		    ui->job_ended ? "" : ui->conf.job_state);
		/* The final state stands out: the job is over. */
		if (ui->job_ended) {
			x += widget_put(y, x, w - x, ui->attr[TR_HEADER], line);
			snprintf(line, sizeof(line), " %s", ui->conf.job_state);
			x += widget_put(y, x, w - x, ui->attr[strcmp(
			    ui->conf.job_state, "COMPLETED") == 0 ?
			    TR_HEADER_LABEL : TR_STATE_FAILED], line);
			line[0] = '\0';
		}
	} else
		snprintf(line, sizeof(line), "(nodes given by hand)");
	x += widget_put(y, x, w - x, ui->attr[TR_HEADER], line);
	/* Root watching another user's job through a launcher started as
	 * that user (the node table's STATE is too narrow to say it). */
	if (header_runas(ui, line, sizeof(line)))
		x += widget_put(y, x, w - x, ui->attr[TR_HEADER_LABEL], line);
	snprintf(line, sizeof(line), "  %s%s%s  nodes %d:", el,
	    ui->conf.time_limit >= 0 ? " / " : "",
	    ui->conf.time_limit >= 0 ? lim : "", ui->nnodes);
	x += widget_put(y, x, w - x, ui->attr[TR_HEADER], line);
	for (k = 0; k <= US_DONE; k++) {
		if (cls[k] == 0)
			continue;
		snprintf(line, sizeof(line), " %u %s", cls[k],
		    ui_sclass_name((int)k));
		/* Lost nodes stay lost while they reconnect (D8): "1 lost
		 * (unreachable, retrying, 3rd try)" until live. */
		if (k == US_LOST)
			header_tries(ui, line, sizeof(line));
		x += widget_put(y, x, w - x, ui->attr[ui_sclass_role((int)k)],
		    line);
	}
	header_ranks(ui, nranks, line, sizeof(line), &role);
	x += widget_put(y, x, w - x, ui->attr[role], line);
	snprintf(line, sizeof(line), "  every %.3gs", ui->interval_ms / 1000.0);
	x += widget_put(y, x, w - x, ui->attr[TR_HEADER], line);
	if (ui->paused)
		x += widget_put(y, x, w - x, ui->attr[TR_STATUS_ERROR],
		    "  PAUSED");
	if (fw > 0) {
		widget_put(y, wfull - fw, fw, ui->attr[frole], ftext);
		return;
	}
	if (localtime_r(&t, &tm) != NULL && w - x > 10) {
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
		widget_rput(y, 0, w, ui->attr[TR_HEADER], clock);
	}
}

/* The mean of a job series over its last 10 samples: a probe's CPU time
 * moves in whole clock ticks, one sample alone jumps. */
static double
header_recent(const struct ui *ui, int k)
{
	double		 x, sum = 0;
	unsigned	 i, n = 0;

	for (i = 0; i < 10; i++) {
		x = history_job_get(ui->hist, k, i);
		if (isfinite(x)) {
			sum += x;
			n++;
		}
	}
	return n > 0 ? sum / n : NAN;
}

/* Where the session is recorded, at the right end of the cost line when
 * it fits (the file's name alone when the path does not); nothing in a
 * replay. */
static void
header_rec(const struct ui *ui, int y, int x, int w)
{
	char		 line[512], path[400];
	const char	*base;

	if (ui->replay != NULL)
		return;
	if (ui->rec_path == NULL)
		snprintf(line, sizeof(line), "not recorded");
	else {
		text_clean(path, sizeof(path), ui->rec_path);
		snprintf(line, sizeof(line), "REC %s", path);
		if ((int)strlen(line) + 3 > w - x &&
		    (base = strrchr(path, '/')) != NULL)
			snprintf(line, sizeof(line), "REC %s", base + 1);
	}
	if ((int)strlen(line) + 3 <= w - x)
		widget_rput(y, 0, w, ui->attr[TR_HEADER], line);
}

/* "node3 rank 2 (anon_pipe_read)": the worst flagged rank, "" none. */
static void
header_worst(const struct ui *ui, char *buf, size_t size)
{
	const struct hist_rank	*hr;
	const char		*wchan;
	char			 name[64], wc[40];
	int			 node;

	buf[0] = '\0';
	if (!ui_worst_rank(ui, &node, &hr))
		return;
	wchan = ui_rank_str(ui, node, hr->pid, "wchan");
	text_clean(name, sizeof(name), ui->nodes[node].name);
	text_clean(wc, sizeof(wc), wchan != NULL ? wchan : "");
	if (hr->rank >= 0)
		snprintf(buf, size, "%s rank %lld", name, (long long)hr->rank);
	else
		snprintf(buf, size, "%s pid %lld", name, (long long)hr->pid);
	if (wc[0] != '\0' && strcmp(wc, "0") != 0)
		snprintf(buf + strlen(buf), size - strlen(buf), " (%s)", wc);
}

/* The cost and flags line.  With a flag up the flags lead, with the worst
 * rank named and the key that opens it: the problem first. */
static void
header_cost(const struct ui *ui, int y, int w)
{
	char			 line[256], num[32], flags[160], worst[160];
	int			 x = 0, role;

	header_flag_text(ui, flags, sizeof(flags), &role);
	if (flags[0] != '\0') {
		x += widget_put(y, x, w - x, ui->attr[TR_HEADER_LABEL],
		    "FLAGS ");
		x += widget_put(y, x, w - x, ui->attr[role], flags);
		header_worst(ui, worst, sizeof(worst));
		if (worst[0] != '\0') {
			snprintf(line, sizeof(line), ": %s, ! opens it",
			    worst);
			x += widget_put(y, x, w - x, ui->attr[role], line);
		}
		x += widget_put(y, x, w - x, ui->attr[TR_HEADER], "   ");
	}
	x += widget_put(y, x, w - x, ui->attr[TR_HEADER_LABEL], "COST ");
	snprintf(line, sizeof(line), "probes %s%% CPU",
	    widget_num(num, sizeof(num), header_recent(ui, HN_PROBE_CPU), 2));
	x += widget_put(y, x, w - x, ui->attr[TR_HEADER], line);
	snprintf(line, sizeof(line), " %s/s sent", widget_bytes(num,
	    sizeof(num), header_recent(ui, HN_PROBE_BYTES)));
	x += widget_put(y, x, w - x, ui->attr[TR_HEADER], line);
	snprintf(line, sizeof(line), ", monitor %.1f%% CPU", ui->self_cpu);
	x += widget_put(y, x, w - x, ui->attr[TR_HEADER], line);
	if (flags[0] == '\0') {
		x += widget_put(y, x, w - x, ui->attr[TR_HEADER_LABEL],
		    "   FLAGS");
		x += widget_put(y, x, w - x, ui->attr[TR_HEADER], " none");
	}
	header_rec(ui, y, x, w);
}

/*
 * The job's CPU busy (the nodes' mean) and memory (used and limit, summed)
 * from the values the node table shows now.  The job series are made at
 * the job's tick, which may come before this sample's rows: read alone,
 * the meter showed the previous sample while the rows showed this one, and
 * "-%" for the first second.  The sparklines stay the job series.
 */
static void
header_now(const struct ui *ui, double *cpu, double *mem, double *tot)
{
	double		 c = 0, m = 0, t = 0, x;
	unsigned	 nc = 0, nm = 0, nt = 0;
	int		 i, cls;

	for (i = 0; i < ui->nnodes; i++) {
		cls = ui_sclass(ui, i);
		if (history_node_samples(ui->hist, i) == 0 || cls == US_LOST ||
		    cls == US_FAILED)
			continue;
		if (isfinite(x = history_node_get(ui->hist, i, HN_CPU, 0)))
			c += x, nc++;
		if (isfinite(x = history_node_get(ui->hist, i, HN_MEM, 0))) {
			m += x, nm++;
			if ((x = history_node_mem_limit(ui->hist, i)) > 0)
				t += x, nt++;
		}
	}
	*cpu = nc > 0 ? c / nc : history_job_get(ui->hist, HN_CPU, 0);
	*mem = nm > 0 ? m : history_job_get(ui->hist, HN_MEM, 0);
	*tot = nt > 0 ? t : history_job_get(ui->hist, HJ_MEMTOTAL, 0);
}

static void
header_draw(const struct ui *ui, const struct ui_rect *r)
{
	char	text[64], a[32], b[32];
	double	cpu, mem, tot, gpu;
	int	half = r->w / 2, third, y;

	header_job(ui, r->y, r->w, r->h < 4);
	if (r->h < 2)
		return;
	header_now(ui, &cpu, &mem, &tot);
	snprintf(text, sizeof(text), "%s%%", widget_num(a, sizeof(a), cpu,
	    1));
	header_meter(ui, r->y + 1, 0, half - 1, "CPU", cpu, text, HN_CPU, 0,
	    100);
	snprintf(text, sizeof(text), "%s/%s", widget_bytes(a, sizeof(a), mem),
	    widget_bytes(b, sizeof(b), tot));
	header_meter(ui, r->y + 1, half, r->w - half, "MEM", tot > 0 ?
	    mem * 100.0 / tot : NAN, text, HN_MEM, 0, isfinite(tot) ? tot : 0);
	if (r->h < 4)
		return;
	gpu = history_job_get(ui->hist, HN_GPU, 0);
	third = isfinite(gpu) ? r->w / 3 : half;
	header_rate(ui, r->y + 2, 0, third - 1, "DISK", HN_DISK, 0);
	header_rate(ui, r->y + 2, third, third - 1, "NET", HN_NET, 0);
	if (isfinite(gpu))
		header_rate(ui, r->y + 2, 2 * third, r->w - 2 * third, "GPU",
		    HN_GPU, 1);
	y = header_extra(ui, r->y + 3, r->w, r->h - 4);
	header_cost(ui, y, r->w);
}

const struct panel panel_header = {
	.name = "header",
	.height = header_height,
	.draw = header_draw,
};
