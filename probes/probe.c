/* SPDX-License-Identifier: ISC */
/*
 * jobtop-probe: runs on a node, samples every enabled source each interval
 * and writes the protocol of src/PROTOCOL.md to standard output: HELLO,
 * SCHEMA once, then a SAMPLE per interval carrying only what changed.  It
 * exits after --count samples, on SIGTERM, when its output breaks, and
 * within one interval after its standard input (the SSH channel) closes.
 * Lines the monitor writes to that input are commands (PROTOCOL.md,
 * "Control"): "interval MS" changes the sampling interval from the next
 * tick on.
 *
 * With --armour (srun's output forwarding, PROTOCOL.md "Armour") the same
 * bytes go out as short checksummed text lines instead.
 *
 * Everything is allocated at start-up: the instance table and the output
 * buffer are static, so the sampling path never calls malloc.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ranks.h"
#include "source.h"
#include "stacks.h"

#ifndef JOBTOP_VERSION
#define JOBTOP_VERSION "0"
#endif

struct pinst {
	uint32_t	 id;
	int		 gid;
	int		 next;		/* hash chain, -1 ends */
	uint8_t		 used;
	uint8_t		 seen;		/* touched during this sample */
	uint8_t		 added;		/* ADD already sent */
	char		 name[PROTO_NAME_MAX];
	uint64_t	 curp, oldp;	/* present masks */
	int64_t		 cur[PINST_FIELDS], old[PINST_FIELDS];
	char		 cstr[PINST_STRS][PINST_STRLEN];
	char		 ostr[PINST_STRS][PINST_STRLEN];
	const char	*text[PINST_TEXTS];	/* pinst_set_text: the
						 * source's */
	int8_t		 text_field[PINST_TEXTS];	/* -1: none */
	uint8_t		 text_dirty;	/* bit i: text[i] changed since sent */
};

struct pgroup {
	const struct group_def	*def;
	uint64_t		 intmask;	/* non-string fields */
	int8_t			 strslot[PINST_FIELDS];
};

#define HASH_SIZE	4096
#define MAX_EVCODES	64

static struct pinst	 insts[PINST_MAX];
static int		 buckets[HASH_SIZE];
static unsigned		 ninst_hw;	/* high-water mark of used slots */
static struct pgroup	 groups[PROTO_MAX_GROUPS];
static unsigned		 ngroups;
static uint8_t		 source_on[PROTO_MAX_SOURCES];
static char		 source_why[PROTO_MAX_SOURCES][PROTO_TEXT_MAX];

static uint8_t		 outmem[PROTO_FRAME_MAX + 64 * 1024];
static struct wbuf	 out;
static uint64_t		 bytes_sent;
static char		 evcodes[MAX_EVCODES][PROTO_NAME_MAX];
static unsigned		 nevcodes;

static volatile sig_atomic_t quit;

#define PROBE_CTL_LINE	128
#define PROBE_IVL_MIN	100		/* ms: bounds of "interval MS" */
#define PROBE_IVL_MAX	60000
/* ms between the first two samples (at most one interval): counters need
 * two samples for a rate, and a monitor should not wait a whole interval
 * (-d 300) to show one (PROTOCOL.md, "SAMPLE"). */
#define PROBE_FIRST_MS	200

/* --armour: PROTOCOL.md, "Armour".  A record is what one flush writes
 * (whole frames); it goes out as lines of at most PROBE_ARM_RAW bytes. */
#define PROBE_ARM_RAW	255
#define PROBE_ARM_LINE	400

static int		 armour;
static uint32_t		 arm_sid;	/* this stream's id, never 0 */
static uint32_t		 arm_seq;	/* the next line's number */
static char		 armbuf[64 * 1024];
static size_t		 armlen;

static char		 ctl_line[PROBE_CTL_LINE];
static size_t		 ctl_len;
static int		 ctl_skip;	/* the rest of a too long line */

static void
probe_usage(FILE *f)
{
	fprintf(f, "usage: jobtop-probe [--job ID [--step STEP] [--sluid SLUID]] "
	    "[--uid UID] [--interval SECONDS] [--count N] [--root DIR] "
	    "[--nvml PATH] [--watchdog SECONDS] [--armour]\n");
}

static void
probe_on_signal(int sig)
{
	quit = sig;
}

static uint64_t
probe_now_ms(clockid_t clk)
{
	struct timespec	ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t
probe_bytes_sent(void)
{
	return bytes_sent;
}

/* Write len bytes fully; a broken channel ends the probe. */
static void
probe_write_all(const void *data, size_t len)
{
	const char	*p = data;
	size_t		 off = 0;
	ssize_t		 n;

	while (off < len) {
		n = write(STDOUT_FILENO, p + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(2);
		off += (size_t)n;
	}
}

/* One armour line: "J1 SID SEQ KIND BASE64 CRC\n" into armbuf. */
static void
probe_armour_line(char kind, const uint8_t *data, size_t len)
{
	static const char	 b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	char			*l;
	size_t			 i, k;
	uint32_t		 v;
	int			 n;

	if (armlen + PROBE_ARM_LINE > sizeof(armbuf)) {
		probe_write_all(armbuf, armlen);
		armlen = 0;
	}
	l = armbuf + armlen;
	n = snprintf(l, PROBE_ARM_LINE, "J1 %08x %08x %c ", (unsigned)arm_sid,
	    (unsigned)arm_seq++, kind);
	k = (size_t)n;
	for (i = 0; i < len; i += 3) {
		v = (uint32_t)data[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)data[i + 1] << 8;
		if (i + 2 < len)
			v |= data[i + 2];
		l[k++] = b64[v >> 18 & 63];
		l[k++] = b64[v >> 12 & 63];
		l[k++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
		l[k++] = i + 2 < len ? b64[v & 63] : '=';
	}
	n = snprintf(l + k, PROBE_ARM_LINE - k, " %08x\n",
	    (unsigned)wire_crc32c(0, l, k));
	armlen += k + (size_t)n;
}

/* A record (whole frames) as armour lines: F alone, or B, M..., E. */
static void
probe_armour(const uint8_t *data, size_t len)
{
	size_t	off, take;
	char	kind;

	for (off = 0; off < len; off += take) {
		take = len - off < PROBE_ARM_RAW ? len - off : PROBE_ARM_RAW;
		if (off == 0)
			kind = take == len ? 'F' : 'B';
		else
			kind = off + take == len ? 'E' : 'M';
		probe_armour_line(kind, data + off, take);
	}
	probe_write_all(armbuf, armlen);
	armlen = 0;
}

/* The stream's first line: the node's name as Slurm calls it. */
static void
probe_armour_start(void)
{
	struct utsname	 u;
	const char	*name = getenv("SLURMD_NODENAME");
	uint64_t	 t;

	if (name == NULL || *name == '\0' || strlen(name) > 255) {
		name = "";
		if (uname(&u) == 0)
			name = u.nodename;
	}
	t = probe_now_ms(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 20) ^
	    probe_now_ms(CLOCK_MONOTONIC) << 40;
	arm_sid = wire_crc32c(0, &t, sizeof(t));
	if (arm_sid == 0)
		arm_sid = 1;
	probe_armour_line('N', (const uint8_t *)name,
	    strnlen(name, sizeof(u.nodename)));
}

/* Write the output buffer fully; a broken channel ends the probe. */
static void
probe_flush(void)
{
	if (armour)
		probe_armour(out.data, out.len);
	else
		probe_write_all(out.data, out.len);
	bytes_sent += out.len;
	wbuf_reset(&out);
}

void
probe_event(int level, const char *code, const char *fmt, ...)
{
	struct proto_event	ev;
	va_list			ap;
	unsigned		i;

	for (i = 0; i < nevcodes; i++) {
		if (strcmp(evcodes[i], code) == 0)
			return;
	}
	if (nevcodes < MAX_EVCODES)
		snprintf(evcodes[nevcodes++], PROTO_NAME_MAX, "%s", code);
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = probe_now_ms(CLOCK_REALTIME);
	ev.level = (uint8_t)level;
	snprintf(ev.code, sizeof(ev.code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(ev.text, sizeof(ev.text), fmt, ap);
	va_end(ap);
	proto_put_event(&out, &ev);
}

static unsigned
probe_hash(int gid, const char *name)
{
	uint32_t	h = 2166136261u ^ (uint32_t)gid;

	while (*name != '\0') {
		h ^= (uint8_t)*name++;
		h *= 16777619u;
	}
	return h % HASH_SIZE;
}

static int
probe_gid(const struct group_def *def)
{
	unsigned	g;

	for (g = 0; g < ngroups; g++) {
		if (groups[g].def == def)
			return (int)g;
	}
	return -1;
}

struct pinst *
probe_inst(const struct group_def *def, const char *name)
{
	struct pinst	*pi;
	unsigned	 h, i;
	int		 gid, k;

	if ((gid = probe_gid(def)) < 0)
		return NULL;
	h = probe_hash(gid, name);
	for (k = buckets[h]; k >= 0; k = insts[k].next) {
		pi = &insts[k];
		if (pi->gid == gid && strcmp(pi->name, name) == 0)
			goto found;
	}
	for (i = 0; i < PINST_MAX; i++) {
		if (!insts[i].used)
			break;
	}
	if (i == PINST_MAX) {
		probe_event(EV_WARN, "instances-full", "more than %d "
		    "instances; some are not reported", PINST_MAX);
		return NULL;
	}
	pi = &insts[i];
	memset(pi, 0, sizeof(*pi));
	pi->id = i;
	pi->gid = gid;
	pi->used = 1;
	memset(pi->text_field, -1, sizeof(pi->text_field));
	snprintf(pi->name, sizeof(pi->name), "%s", name);
	pi->next = buckets[h];
	buckets[h] = (int)i;
	if (i + 1 > ninst_hw)
		ninst_hw = i + 1;
found:
	if (!pi->seen) {
		pi->seen = 1;
		pi->curp = 0;
	}
	return pi;
}

void
pinst_set(struct pinst *pi, unsigned field, int64_t v)
{
	if (pi == NULL || field >= groups[pi->gid].def->nfields ||
	    (groups[pi->gid].intmask & ((uint64_t)1 << field)) == 0)
		return;
	pi->cur[field] = v;
	pi->curp |= (uint64_t)1 << field;
}

void
pinst_set_str(struct pinst *pi, unsigned field, const char *s)
{
	int	slot;

	if (pi == NULL || field >= groups[pi->gid].def->nfields ||
	    (slot = groups[pi->gid].strslot[field]) < 0)
		return;
	snprintf(pi->cstr[slot], PINST_STRLEN, "%s", s);
	pi->curp |= (uint64_t)1 << field;
}

void
pinst_set_text(struct pinst *pi, unsigned field, const char *s, int changed)
{
	unsigned	i;

	if (pi == NULL || field >= groups[pi->gid].def->nfields ||
	    (groups[pi->gid].intmask & ((uint64_t)1 << field)) != 0)
		return;
	for (i = 0; i < PINST_TEXTS && pi->text_field[i] != (int8_t)field;
	    i++)
		;
	if (i == PINST_TEXTS) {
		for (i = 0; i < PINST_TEXTS && pi->text_field[i] >= 0; i++)
			;
		if (i == PINST_TEXTS)
			return;
		changed = 1;
	}
	pi->text[i] = s;
	pi->text_field[i] = (int8_t)field;
	if (changed)
		pi->text_dirty |= (uint8_t)(1u << i);
	pi->curp |= (uint64_t)1 << field;
}

int
pinst_prev(const struct pinst *pi, unsigned field, int64_t *v)
{
	if (pi == NULL || field >= PINST_FIELDS || !pi->added ||
	    (pi->oldp & ((uint64_t)1 << field)) == 0)
		return -1;
	*v = pi->old[field];
	return 0;
}

static void
probe_unlink(struct pinst *pi)
{
	unsigned	 h = probe_hash(pi->gid, pi->name);
	int		*kp;

	for (kp = &buckets[h]; *kp >= 0; kp = &insts[*kp].next) {
		if (*kp == (int)pi->id) {
			*kp = pi->next;
			break;
		}
	}
	pi->used = 0;
}

/* Encode one instance's changes into the sample. */
static int
probe_encode_inst(struct proto_sample_wr *sw, struct pinst *pi)
{
	const struct pgroup	*g = &groups[pi->gid];
	uint64_t		 gone, bit;
	unsigned		 f, t;
	size_t			 len;
	int			 slot, err;

	if (!pi->added) {
		if ((err = proto_sample_add(sw, pi->id, (uint32_t)pi->gid,
		    pi->name)) != WIRE_OK)
			return err;
		pi->oldp = 0;
	}
	gone = pi->oldp & ~pi->curp;
	if ((err = proto_sample_clear(sw, pi->id, gone)) != WIRE_OK)
		return err;
	if ((err = proto_sample_diff(sw, pi->id, g->intmask, pi->old,
	    pi->oldp & pi->curp, pi->cur, pi->curp)) != WIRE_OK)
		return err;
	for (f = 0; f < g->def->nfields; f++) {
		bit = (uint64_t)1 << f;
		if ((g->intmask & bit) != 0 || (pi->curp & bit) == 0)
			continue;
		for (t = 0; t < PINST_TEXTS && pi->text_field[t] != (int8_t)f;
		    t++)
			;
		if (t < PINST_TEXTS) {
			if ((pi->oldp & bit) != 0 &&
			    (pi->text_dirty & (1u << t)) == 0)
				continue;
			len = strnlen(pi->text[t], PROTO_TEXT_MAX - 1);
			if ((err = proto_sample_str(sw, pi->id, f, pi->text[t],
			    len)) != WIRE_OK)
				return err;
			continue;
		}
		if ((slot = g->strslot[f]) < 0)
			continue;
		if ((pi->oldp & bit) != 0 &&
		    strcmp(pi->cstr[slot], pi->ostr[slot]) == 0)
			continue;
		if ((err = proto_sample_str(sw, pi->id, f, pi->cstr[slot],
		    strlen(pi->cstr[slot]))) != WIRE_OK)
			return err;
	}
	return WIRE_OK;
}

/* Take one sample and encode it; 0 when it was sent, -1 when it was too
 * large (nothing committed, so the next diff covers both intervals). */
static int
probe_sample(const struct probe_conf *conf, uint64_t seq, int64_t dt_ms)
{
	struct proto_sample_wr	 sw;
	struct pinst		*pi;
	size_t			 mark = out.len;
	unsigned		 i, s;
	int			 err;

	for (i = 0; i < ninst_hw; i++)
		insts[i].seen = 0;
	for (s = 0; sources[s] != NULL; s++) {
		if (source_on[s])
			sources[s]->sample(conf);
	}
	mark = out.len;		/* events raised while sampling go first */
	err = proto_sample_begin(&sw, &out, seq, dt_ms);
	for (i = 0; i < ninst_hw && err == WIRE_OK; i++) {
		pi = &insts[i];
		if (!pi->used)
			continue;
		if (!pi->seen) {
			if (pi->added)
				err = proto_sample_drop(&sw, pi->id);
			probe_unlink(pi);
			continue;
		}
		err = probe_encode_inst(&sw, pi);
	}
	if (err == WIRE_OK)
		err = proto_sample_end(&sw);
	if (err != WIRE_OK) {
		/* Nothing is committed: the next sample retries the diff. */
		out.len = mark;
		out.err = WIRE_OK;
		probe_event(EV_ERROR, "sample-too-large", "sample not sent: %s",
		    wire_strerror(err));
		return -1;
	}
	for (i = 0; i < ninst_hw; i++) {
		pi = &insts[i];
		if (!pi->used)
			continue;
		pi->added = 1;
		pi->text_dirty = 0;
		pi->oldp = pi->curp;
		memcpy(pi->old, pi->cur, sizeof(pi->old));
		memcpy(pi->ostr, pi->cstr, sizeof(pi->ostr));
	}
	while (ninst_hw > 0 && !insts[ninst_hw - 1].used)
		ninst_hw--;
	return 0;
}

static uint64_t
probe_mem_total(void)
{
	char		buf[4096];
	uint64_t	kb;

	if (probe_read_file("/proc/meminfo", buf, sizeof(buf)) < 0 ||
	    probe_find_u64(buf, "MemTotal", &kb) < 0)
		return 0;
	return kb * 1024;
}

static void
probe_hello(const struct probe_conf *conf, uint64_t start_ms)
{
	static struct proto_hello	 h;
	struct utsname			 u;
	char				 host[PROTO_HOST_MAX];
	unsigned			 s;
	size_t				 start;
	const struct group_def		**gp;

	memset(&h, 0, sizeof(h));
	uname(&u);
	snprintf(h.version, sizeof(h.version), "%s", JOBTOP_VERSION);
	if (conf->root[0] != '\0' && probe_read_file(
	    "/proc/sys/kernel/hostname", host, sizeof(host)) > 0) {
		host[strcspn(host, "\n")] = '\0';
		snprintf(h.host, sizeof(h.host), "%s", host);
	} else
		snprintf(h.host, sizeof(h.host), "%s", u.nodename);
	snprintf(h.kernel, sizeof(h.kernel), "%s", u.release);
	snprintf(h.arch, sizeof(h.arch), "%s", u.machine);
	h.ncpu = conf->ncpu;
	h.mem_total = probe_mem_total();
	h.clk_tck = conf->clk_tck;
	h.page_size = conf->page_size;
	h.start_ms = start_ms;
	h.interval_ms = (uint32_t)(conf->interval * 1000 + 0.5);
	snprintf(h.job, sizeof(h.job), "%s", conf->job ? conf->job : "");
	for (s = 0; sources[s] != NULL && s < PROTO_MAX_SOURCES; s++) {
		snprintf(h.sources[s].name, sizeof(h.sources[s].name), "%s",
		    sources[s]->name);
		h.sources[s].on = source_on[s];
		snprintf(h.sources[s].reason, sizeof(h.sources[s].reason),
		    "%s", source_why[s]);
	}
	h.nsources = s;
	proto_put_hello(&out, &h);

	proto_schema_begin(&out, &start, ngroups);
	for (s = 0; sources[s] != NULL; s++) {
		if (!source_on[s])
			continue;
		for (gp = sources[s]->groups; *gp != NULL; gp++) {
			const struct group_def *g = *gp;
			unsigned f;
			proto_schema_group(&out, g->name, g->nfields);
			for (f = 0; f < g->nfields; f++)
				proto_schema_field(&out, g->fields[f].name,
				    g->fields[f].unit, g->fields[f].kind);
		}
	}
	proto_schema_end(&out, start);
}

/* Register the groups of every source that is on. */
static int
probe_init_sources(const struct probe_conf *conf)
{
	const struct group_def	**gp;
	unsigned		  s, f, nstr;

	for (s = 0; sources[s] != NULL; s++) {
		if (s >= PROTO_MAX_SOURCES)
			return -1;
		source_why[s][0] = '\0';
		source_on[s] = sources[s]->init(conf, source_why[s],
		    sizeof(source_why[s])) == 0;
		if (!source_on[s])
			continue;
		for (gp = sources[s]->groups; *gp != NULL; gp++) {
			struct pgroup *g = &groups[ngroups];
			if (ngroups == PROTO_MAX_GROUPS ||
			    (*gp)->nfields > PINST_FIELDS)
				return -1;
			g->def = *gp;
			g->intmask = 0;
			nstr = 0;
			for (f = 0; f < (*gp)->nfields; f++) {
				g->strslot[f] = -1;
				if ((*gp)->fields[f].kind != PF_STRING)
					g->intmask |= (uint64_t)1 << f;
				else if (nstr < PINST_STRS)
					g->strslot[f] = (int8_t)nstr++;
				/* else a long text only (pinst_set_text) */
			}
			ngroups++;
		}
	}
	return 0;
}

/* One command line from the monitor: a new interval in ms (0 when the
 * line is not a command this probe knows, which it ignores). */
static uint64_t
probe_control_line(const char *line)
{
	char		*end;
	unsigned long	 ms;

	if (strcmp(line, "alive") == 0 || strcmp(line, "alive\r") == 0)
		return 0;		/* the heartbeat: reading it is all */
	if (strncmp(line, "interval ", 9) != 0)
		return 0;
	ms = strtoul(line + 9, &end, 10);
	if (end == line + 9 || (*end != '\0' && *end != '\r') ||
	    ms < PROBE_IVL_MIN || ms > PROBE_IVL_MAX) {
		probe_event(EV_WARN, "bad-control", "ignored \"%.60s\": "
		    "interval must be %d to %d ms", line, PROBE_IVL_MIN,
		    PROBE_IVL_MAX);
		return 0;
	}
	return ms;
}

/* Bytes read from standard input: split them into lines and act on each.
 * Returns the last interval asked for (ms), 0 if none. */
static uint64_t
probe_control(const char *buf, size_t n)
{
	uint64_t	ms, want = 0;
	size_t		i;

	for (i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (ctl_len + 1 < sizeof(ctl_line))
				ctl_line[ctl_len++] = buf[i];
			else
				ctl_skip = 1;
			continue;
		}
		ctl_line[ctl_len] = '\0';
		if (!ctl_skip && (ms = probe_control_line(ctl_line)) != 0)
			want = ms;
		ctl_len = 0;
		ctl_skip = 0;
	}
	return want;
}

/* Standard input is the SSH channel (or the monitor's pipe): watch it for
 * EOF only when it is a pipe, socket or terminal, so `probe </dev/null`
 * runs for its --count. */
static int
probe_watch_stdin(void)
{
	struct stat	st;

	if (fstat(STDIN_FILENO, &st) < 0)
		return 0;
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return 1;
	return isatty(STDIN_FILENO);
}

/*
 * Carry the marker JOBTOP_PROBE_SESSION in the probe's own environment,
 * whatever started it (ssh, libssh2, srun, oarsh, a local monitor): a
 * second jobtop session on the same job must never take this probe, or
 * what it runs, for a rank (ranks-find.c, ranks_find_other_probe), and
 * /proc/PID/environ shows only what a process was started with.  Without
 * it the probe starts itself again once, through /proc/self/exe, with the
 * marker (its pid as the value) added; the same process, the same
 * descriptors.  If that exec fails the probe goes on unmarked: the other
 * session still knows it by its executable and its command line.
 */
static void
probe_mark_self(char **argv)
{
	char	mark[32];

	if (getenv("JOBTOP_PROBE_SESSION") != NULL)
		return;
	snprintf(mark, sizeof(mark), "%ld", (long)getpid());
	if (setenv("JOBTOP_PROBE_SESSION", mark, 1) == 0)
		execv("/proc/self/exe", argv);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "job",	required_argument, NULL, 'j' },
		{ "uid",	required_argument, NULL, 'u' },
		{ "step",	required_argument, NULL, 's' },
		{ "sluid",	required_argument, NULL, 'S' },
		{ "interval",	required_argument, NULL, 'i' },
		{ "count",	required_argument, NULL, 'c' },
		{ "root",	required_argument, NULL, 'r' },
		{ "nvml",	required_argument, NULL, 'n' },
		{ "watchdog",	required_argument, NULL, 'w' },
		{ "armour",	no_argument,	   NULL, 'a' },
		{ "version",	no_argument,	   NULL, 'V' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct probe_conf	 conf;
	struct sigaction	 sa;
	struct pollfd		 pfd;
	uint64_t		 start_ms, next, now, seq = 0, taken = 0, prev_ms, step;
	uint64_t		 t_ms, tick, ivl_ms, want, heard, wd_ms = 0;
	uint64_t		 sub;
	char			*end, buf[256];
	const char		*bye = "done";
	int			 ch, watch, timeout;
	long			 lv;
	long long		 ll;

	probe_mark_self(argv);
	/* A one-shot mode of its own (jobtop --stacks). */
	if (argc > 1 && strcmp(argv[1], "--stacks") == 0)
		return stacks_main(argc - 1, argv + 1);
	memset(&conf, 0, sizeof(conf));
	conf.root = "";
	conf.interval = 1.0;
	conf.owner = -1;
	while ((ch = getopt_long(argc, argv, "j:u:i:c:r:Vh", longopts, NULL))
	    != -1) {
		switch (ch) {
		case 'j':
			conf.job = optarg;
			/* Slurm "123_4", "123+1"; PBS "123.server",
			 * "12[3].server"; Flux f58 "f3AakAX9". */
			if (*optarg == '\0' || strlen(optarg) >= PROTO_NAME_MAX
			    || *optarg == '-' || strspn(optarg,
			    "0123456789_+.[]-abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(optarg)) {
				fprintf(stderr, "jobtop-probe: bad job id: "
				    "%s\n", optarg);
				return 1;
			}
			break;
		case 's':
			/* A Slurm step of the job: only its processes are
			 * ranks (src-ranks.c). */
			if (ranks_parse_step(optarg) == RANKS_STEP_NONE) {
				fprintf(stderr, "jobtop-probe: bad step: %s\n",
				    optarg);
				return 1;
			}
			conf.step = optarg;
			break;
		case 'S':
			/* The job's SLUID (Slurm 26.05 names its cgroup so:
			 * ranks.h). */
			if (!ranks_is_sluid(optarg, strlen(optarg))) {
				fprintf(stderr, "jobtop-probe: bad SLUID: %s\n",
				    optarg);
				return 1;
			}
			conf.sluid = optarg;
			break;
		case 'u':
			/* The job owner's uid: only that user's processes
			 * are ranks (ranks-find.c). */
			errno = 0;
			ll = strtoll(optarg, &end, 10);
			if (*end != '\0' || end == optarg || errno != 0 ||
			    ll < 0 || ll > 0xfffffffeLL) {
				fprintf(stderr, "jobtop-probe: bad uid: %s\n",
				    optarg);
				return 1;
			}
			conf.owner = ll;
			break;
		case 'i':
			conf.interval = strtod(optarg, &end);
			if (*end != '\0' || !(conf.interval >= 0.01 &&
			    conf.interval <= 86400)) {
				fprintf(stderr, "jobtop-probe: bad interval: "
				    "%s\n", optarg);
				return 1;
			}
			break;
		case 'c':
			lv = strtol(optarg, &end, 10);
			if (*end != '\0' || lv < 0) {
				fprintf(stderr, "jobtop-probe: bad count: "
				    "%s\n", optarg);
				return 1;
			}
			conf.count = lv;
			break;
		case 'r':
			conf.root = optarg;
			break;
		case 'n':
			conf.nvml = optarg;
			break;
		case 'w':
			lv = strtol(optarg, &end, 10);
			if (*end != '\0' || end == optarg || lv < 0 ||
			    lv > 86400) {
				fprintf(stderr, "jobtop-probe: bad watchdog: "
				    "%s\n", optarg);
				return 1;
			}
			wd_ms = (uint64_t)lv * 1000;
			break;
		case 'a':
			armour = 1;
			break;
		case 'V':
			printf("jobtop-probe %s (protocol %d.%d)\n",
			    JOBTOP_VERSION, PROTO_MAJOR, PROTO_MINOR);
			return 0;
		case 'h':
			probe_usage(stdout);
			return 0;
		default:
			probe_usage(stderr);
			return 1;
		}
	}
	if (optind != argc) {
		probe_usage(stderr);
		return 1;
	}
	probe_set_root(conf.root);
	conf.uid = getuid();
	conf.self = getpid();
	conf.clk_tck = (uint32_t)sysconf(_SC_CLK_TCK);
	conf.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	lv = sysconf(_SC_NPROCESSORS_ONLN);
	conf.ncpu = lv > 0 ? (uint32_t)lv : 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	memset(buckets, 0xff, sizeof(buckets));
	wbuf_init(&out, outmem, sizeof(outmem));
	if (probe_init_sources(&conf) < 0) {
		fprintf(stderr, "jobtop-probe: source table too large\n");
		return 1;
	}
	start_ms = probe_now_ms(CLOCK_REALTIME);
	if (armour)
		probe_armour_start();
	probe_hello(&conf, start_ms);
	probe_flush();

	watch = probe_watch_stdin();
	if (!watch)
		wd_ms = 0;	/* nothing to hear from */
	next = tick = heard = probe_now_ms(CLOCK_MONOTONIC);
	ivl_ms = (uint64_t)(conf.interval * 1000 + 0.5);
	sub = UINT64_MAX;
	prev_ms = start_ms;
	while (!quit) {
		now = probe_now_ms(CLOCK_MONOTONIC);
		/* The monitor said nothing for too long: it is gone
		 * (behind a dead link, its sshd has not noticed). */
		if (wd_ms > 0 && now - heard >= wd_ms) {
			bye = "watchdog";
			break;
		}
		if (now >= next) {
			tick = now;
			t_ms = probe_now_ms(CLOCK_REALTIME);
			/* Time and seq advance only with a sample sent, so
			 * dt_ms always spans the deltas it carries. */
			if (probe_sample(&conf, seq, (int64_t)(t_ms -
			    prev_ms)) == 0) {
				seq++;
				prev_ms = t_ms;
			}
			taken++;
			probe_flush();
			if (conf.count > 0 && taken >= (uint64_t)conf.count)
				break;
			/* The second sample soon after the first, then one
			 * per interval from there. */
			step = seq == 1 && taken == 1 &&
			    ivl_ms > PROBE_FIRST_MS ? PROBE_FIRST_MS : ivl_ms;
			next += step;
			/* After a stall, skip missed samples, do not burst:
			 * a sample taken less than half a step after the last
			 * one ended spans too little time for its rates (its
			 * counters may not have moved at all, as /proc/stat's
			 * jiffies between two reads 5 ms apart).  The clock
			 * is read again: this sample itself may have been
			 * the stall. */
			now = probe_now_ms(CLOCK_MONOTONIC);
			if (next <= now || next - now < step / 2)
				next = now + step;
			/* The ranks' peaks are checked between samples. */
			sub = ivl_ms >= 2 * RANKS_SUB_MS ? now + RANKS_SUB_MS :
			    UINT64_MAX;
			continue;
		}
		if (now >= sub) {
			ranks_subsample();
			sub = next - now > RANKS_SUB_MS + RANKS_SUB_MS / 2 ?
			    now + RANKS_SUB_MS : UINT64_MAX;
			continue;
		}
		timeout = (int)((sub < next ? sub : next) - now);
		if (wd_ms > 0 && heard + wd_ms - now < (uint64_t)timeout)
			timeout = (int)(heard + wd_ms - now);
		pfd.fd = watch ? STDIN_FILENO : -1;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, timeout) > 0 &&
		    (pfd.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
			ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n == 0 || (n < 0 && errno != EINTR &&
			    errno != EAGAIN))
				break;
			if (n > 0)
				heard = probe_now_ms(CLOCK_MONOTONIC);
			/* A new interval counts from the last sample: the
			 * next one comes that long after it (or now). */
			if (n > 0 && (want = probe_control(buf,
			    (size_t)n)) != 0 && want != ivl_ms) {
				ivl_ms = want;
				conf.interval = want / 1000.0;
				next = tick + ivl_ms;
			}
		}
	}
	if (quit)
		bye = "signal";
	proto_put_bye(&out, quit ? 1 : 0, bye);
	probe_flush();
	return 0;
}
