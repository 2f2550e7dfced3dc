/* SPDX-License-Identifier: ISC */
/*
 * jobtop: the monitor's entry point.  Options are parsed into one struct,
 * the job is resolved from them (a job id through its scheduler, -w, a
 * hostfile, or the allocation we run in: sched.c), and one mode runs:
 * batch mode (a probe per node, local or over SSH, in the session's one
 * poll loop, records on stdout), the interactive monitor (the same, drawn
 * by ui/), a replay (-r: a recording in the monitor, or with -b its
 * records), --decode (a probe stream on stdin printed as records) or
 * --list.  Every user error is one line on stderr and a
 * non-zero exit: 2 for usage errors, 1 when a job or a node fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "detect.h"
#include "detect-gpu.h"
#include "explain.h"
#include "export.h"
#include "feed-local.h"
#include "feed-replay.h"
#include "feed.h"
#include "ladder.h"
#include "history.h"
#include "hostlist.h"
#include "jobwatch.h"
#include "log.h"
#include "monitor.h"
#include "out-json.h"
#include "out.h"
#include "proto.h"
#include "rconf.h"
#include "rec.h"
#include "report.h"
#include "sched.h"
#include "session.h"
#include "stackrun.h"
#include "stream.h"
#include "summary.h"
#include "textsafe.h"
#include "theme.h"
#include "ui.h"
#include "xmalloc.h"

#ifndef JOBTOP_VERSION
#define JOBTOP_VERSION "0"
#endif

#define MAIN_EXIT_FAIL		1
#define MAIN_EXIT_USAGE		2
#define MAIN_INTERVAL_MIN	0.05
#define MAIN_INTERVAL_MAX	86400.0
#define MAIN_READ_SIZE		65536
#define MAIN_STOP_GRACE_MS	2000	/* for a probe asked to stop */

struct main_opts {
	const char	*hostlist;
	const char	*hostfile;
	const char	*scheduler;
	const char	*transport;	/* --transport, "auto" */
	int		 accept_new;
	int		 batch;
	int		 json;
	int		 decode;
	int		 list;
	int		 verbose;
	const char	*logpath;
	long long	 count;		/* samples per node, 0: no limit */
	double		 interval;	/* seconds */
	int		 interval_set;	/* -d given */
	const struct config *settings;	/* jobtoprc, for the UI */
	int		 nargs;
	char		**args;
	const char	*record;	/* -o: recording path */
	int		 force;		/* --force: -o may replace a file */
	int		 no_record;
	const char	*replay;	/* -r: recording to play */
	const char	*theme;		/* -t: colour theme */
	int		 explain;	/* --explain[=NODE] */
	const char	*explain_node;	/* NULL: the job's first node */
	int		 stacks;	/* --stacks */
	struct stackrun_conf stk;	/* its options, and the view's */
};

static int			 main_out_broken;
/* Batch mode's records: stdout, through main_out_write when recording. */
static FILE			*main_out = NULL;
static struct rec		*main_out_rec;	/* flushed before each write */
static int			 main_out_rec_failed;
static int			 main_out_errno;	/* why it broke */

static void
main_usage(FILE *f)
{
	char	fmts[128];

	fprintf(f,
"usage: jobtop [-bv] [--json] [-d seconds] [-n count] [--accept-new]\n"
"              [--scheduler name] [--transport name]\n"
"              [jobid | -w hostlist | --hostfile file]\n"
"              [-o file [--force] | --no-record] [-t theme]\n"
"       jobtop -r file|jobid [-t theme]\n"
"       jobtop -r file|jobid -b [--json] [-n count]\n"
"       jobtop export file [%s]\n"
"                          [-o out]\n"
"       jobtop report file -o report.html\n"
"       jobtop --decode [--json] < stream\n"
"       jobtop --list [jobid | -w hostlist | --hostfile file]\n"
"       jobtop --explain[=node] [jobid | -w hostlist | --hostfile file]\n"
"       jobtop --stacks [--json] [--threads] [--stacks-gap s] [jobid | -w ...]\n"
"       jobtop --version | --help\n",
	    export_format_options(fmts, sizeof(fmts), " | ", 1));
}

/* --version: the version, then where this executable takes its probe,
 * NVML helper and themes from (a relocated install shows its own). */
static void
main_version(void)
{
	char	 err[1024], *probe, *nvml, *themes;

	printf("jobtop %s (protocol %d.%d)\n", JOBTOP_VERSION, PROTO_MAJOR,
	    PROTO_MINOR);
	if ((probe = feed_local_find_probe(err, sizeof(err))) != NULL) {
		printf("probe: %s\n", probe);
		nvml = feed_local_find_nvml(probe);
		printf("nvml helper: %s\n", nvml != NULL ? nvml :
		    "none (the probe uses nvidia-smi)");
		free(nvml);
	} else {
		printf("probe: none: %s\n", err);
		printf("nvml helper: none\n");
	}
	free(probe);
	themes = theme_where();
	printf("themes: %s\n", themes);
	free(themes);
}

/*
 * --help.  The schedulers, the transports (each with its registry line,
 * feed_transports[].what) and the export formats come from their
 * registries, so that a new one shows up here without an edit.
 */
static void
main_help(void)
{
	const struct feed_transport	*t;
	char				 names[256];

	main_usage(stdout);
	printf(
"\n"
"  JOBID                 the job to watch (default: the allocation we run in)\n"
"  -w, --nodes HOSTLIST  nodes to watch (Slurm syntax: node[01-16,20],gpu3)\n"
"      --hostfile FILE   nodes to watch, one per line\n");
	printf(
"      --scheduler NAME  %s (default: detected)\n",
	    sched_names(names, sizeof(names), " or "));
	printf(
"      --accept-new      trust nodes whose host key is not yet known\n"
"      --transport NAME  how to reach nodes: auto (the default: per node, the\n"
"                        cheapest of these that works; see jobtop(1)), or:\n");
	for (t = feed_transports; t->name != NULL; t++)
		printf("        %-10s %s\n", t->name, t->what);
	printf(
"  -b, --batch           batch mode: print records instead of the screen\n"
"      --json            newline-delimited JSON records (implies -b)\n"
"  -n, --count N         stop after N samples\n"
"  -d, --delay SECONDS   sample interval (default 1, at least %.2g)\n"
"  -t, --theme THEME     colour theme: a name (default, dark, light, mono)\n"
"                        or a path to a .theme file\n"
"  -v, --verbose         debug log to $XDG_STATE_HOME/jobtop/jobtop.log\n"
"      --log FILE        debug log to FILE (implies -v)\n"
"  -o, --record FILE     record the session to FILE, which must not exist\n"
"                        (default: a new file in $XDG_STATE_HOME/jobtop/)\n"
"      --force           let -o replace an existing recording\n"
"      --no-record       do not record the session\n"
"  -r, --replay FILE     play a recording in the monitor (with -b: print\n"
"                        its records); a job id (or node name) plays its\n"
"                        newest recording in $XDG_STATE_HOME/jobtop/\n"
"      --decode          print the probe stream read from standard input\n"
"      --list            print the resolved node names and exit\n"
"      --explain[=NODE]  try every transport on one node of the job (the\n"
"                        first, or NODE) and print what worked and why\n"
"      --stacks          the stacks of every rank merged into one tree, two\n"
"                        takes apart, and exit; the 's' view in the monitor\n"
"      --stacks-gap S    seconds between the takes (default 3, 0: one take)\n"
"      --stacks-deadline S  seconds a take may last on a node (default 10)\n"
"      --stacks-frames N at most N frames a stack (default 64)\n"
"      --threads         every thread's stack, not only the main thread's\n"
"  -V, --version         print the version and exit\n"
"  -h, --help            print this help and exit\n", MAIN_INTERVAL_MIN);
}

static int
main_parse_interval(const char *s, double *v)
{
	char	*end;

	errno = 0;
	*v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !isfinite(*v) ||
	    *v < MAIN_INTERVAL_MIN || *v > MAIN_INTERVAL_MAX)
		return -1;
	return 0;
}

static int
main_parse_count(const char *s, long long *v)
{
	char	*end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || *v < 1)
		return -1;
	return 0;
}

/*
 * Parse the command line.  Returns 0 to go on, 1 when done (--help,
 * --version) and -1 after printing a usage error.
 */
static int
main_parse(int argc, char **argv, struct main_opts *o)
{
	enum { OPT_JSON = 256, OPT_DECODE, OPT_LIST, OPT_LOG, OPT_HOSTFILE,
	    OPT_SCHED, OPT_ACCEPT, OPT_NOREC, OPT_FORCE, OPT_TRANSPORT,
	    OPT_EXPLAIN, OPT_STACKS, OPT_STACKOPT };
	static const struct option longopts[] = {
		{ "nodes",	required_argument,	NULL, 'w' },
		{ "batch",	no_argument,		NULL, 'b' },
		{ "count",	required_argument,	NULL, 'n' },
		{ "delay",	required_argument,	NULL, 'd' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "json",	no_argument,		NULL, OPT_JSON },
		{ "decode",	no_argument,		NULL, OPT_DECODE },
		{ "list",	no_argument,		NULL, OPT_LIST },
		{ "log",	required_argument,	NULL, OPT_LOG },
		{ "hostfile",	required_argument,	NULL, OPT_HOSTFILE },
		{ "scheduler",	required_argument,	NULL, OPT_SCHED },
		{ "accept-new",	no_argument,		NULL, OPT_ACCEPT },
		{ "transport",	required_argument,	NULL, OPT_TRANSPORT },
		{ "record",	required_argument,	NULL, 'o' },
		{ "no-record",	no_argument,		NULL, OPT_NOREC },
		{ "force",	no_argument,		NULL, OPT_FORCE },
		{ "replay",	required_argument,	NULL, 'r' },
		{ "theme",	required_argument,	NULL, 't' },
		{ "explain",	optional_argument,	NULL, OPT_EXPLAIN },
		{ "stacks",	no_argument,		NULL, OPT_STACKS },
		{ "stacks-gap",	required_argument,	NULL, OPT_STACKOPT },
		{ "stacks-deadline", required_argument,	NULL, OPT_STACKOPT },
		{ "stacks-frames", required_argument,	NULL, OPT_STACKOPT },
		{ "threads",	no_argument,		NULL, OPT_STACKOPT },
		{ NULL,		0,			NULL, 0 }
	};
	char	 buf[128];
	int	 ch, li = 0;

	memset(o, 0, sizeof(*o));
	o->interval = 1.0;
	stackrun_conf_init(&o->stk);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":w:bn:d:vVho:r:t:", longopts, &li))
	    != -1) {
		switch (ch) {
		case 'w':
			o->hostlist = optarg;
			break;
		case 'b':
			o->batch = 1;
			break;
		case 'n':
			if (main_parse_count(optarg, &o->count) != 0) {
				log_error("bad sample count '%s': give a whole "
				    "number of at least 1", text_clean(buf,
				    sizeof(buf), optarg));
				return -1;
			}
			break;
		case 'd':
			if (main_parse_interval(optarg, &o->interval) != 0) {
				log_error("bad interval '%s': give seconds "
				    "from %.2g to %.0f", text_clean(buf,
				    sizeof(buf), optarg), MAIN_INTERVAL_MIN,
				    MAIN_INTERVAL_MAX);
				return -1;
			}
			o->interval_set = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'V':
			main_version();
			return 1;
		case 'h':
			main_help();
			return 1;
		case OPT_JSON:
			o->json = 1;
			o->batch = 1;
			break;
		case OPT_DECODE:
			o->decode = 1;
			break;
		case OPT_LIST:
			o->list = 1;
			break;
		case OPT_LOG:
			o->verbose = 1;
			o->logpath = optarg;
			break;
		case OPT_HOSTFILE:
			o->hostfile = optarg;
			break;
		case OPT_SCHED:
			o->scheduler = optarg;
			break;
		case OPT_ACCEPT:
			o->accept_new = 1;
			break;
		case OPT_TRANSPORT:
			if (strcmp(optarg, "auto") != 0 &&
			    feed_transport_find(optarg) == NULL) {
				log_error("unknown transport \"%s\" (%s)",
				    text_clean(buf, sizeof(buf), optarg),
				    feed_transport_names());
				return -1;
			}
			o->transport = optarg;
			break;
		case 'o':
			o->record = optarg;
			break;
		case OPT_NOREC:
			o->no_record = 1;
			break;
		case OPT_FORCE:
			o->force = 1;
			break;
		case 'r':
			o->replay = optarg;
			break;
		case 't':
			o->theme = optarg;
			break;
		case OPT_EXPLAIN:
			o->explain = 1;
			o->explain_node = optarg;
			break;
		case OPT_STACKS:
			o->stacks = 1;
			break;
		case OPT_STACKOPT:
			if (stackrun_option(&o->stk, longopts[li].name, optarg,
			    buf, sizeof(buf)) != 0) {
				log_error("%s", buf);
				return -1;
			}
			break;
		case ':':
			log_error("option %s needs an argument (see jobtop "
			    "--help)", text_clean(buf, sizeof(buf),
			    argv[optind - 1]));
			return -1;
		default:
			if (optopt != 0 && optopt < 256)
				snprintf(buf, sizeof(buf), "-%c", optopt);
			else
				text_clean(buf, sizeof(buf),
				    argv[optind - 1]);
			log_error("unknown option %s (see jobtop --help)", buf);
			return -1;
		}
	}
	o->nargs = argc - optind;
	o->args = argv + optind;
	return 0;
}

/* Is this name the machine the monitor runs on? */
static int
main_host_local(const char *h)
{
	char	self[PROTO_HOST_MAX];
	size_t	short_len;

	if (strcasecmp(h, "localhost") == 0)
		return 1;
	if (gethostname(self, sizeof(self)) != 0)
		return 0;
	self[sizeof(self) - 1] = '\0';
	if (strcasecmp(h, self) == 0)
		return 1;
	short_len = strcspn(self, ".");
	return strlen(h) == short_len && strncasecmp(h, self, short_len) == 0;
}

/* Flush stdout; a reader that went away stops the run (main_on_timeout
 * and main_out_ready quit the session). */
static void
main_flush(void)
{
	FILE	*f = main_out != NULL ? main_out : stdout;

	if (main_out_broken)
		return;
	if (fflush(f) != 0 || ferror(f)) {
		main_out_errno = errno;
		if (errno != EPIPE && errno != EIO)
			log_error("stdout: %s", strerror(errno));
		main_out_broken = 1;
	}
}

/*
 * Batch mode's stdout when it records: stdio's buffer goes out through
 * here, and the recording's gathered blocks go out first, so what a reader
 * saw is in the file even when jobtop is killed with SIGKILL the next
 * instant (regress/rec-live).  Both then write in large pieces: a write
 * per node sample to each was about a tenth of the monitor's CPU at 1024
 * nodes.
 */
static ssize_t
main_out_write(void *arg, const char *buf, size_t n)
{
	size_t	done = 0;
	ssize_t	w;

	(void)arg;
	if (rec_flush(main_out_rec) != 0)
		main_out_rec_failed = 1;	/* said at the pass's end */
	while (done < n) {
		w = write(STDOUT_FILENO, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)	/* short: stdio marks the error; errno */
			return (ssize_t)done;	/* stays write's */
		done += (size_t)w;
	}
	return (ssize_t)done;
}

/* Records to stdout through main_out_write (rec not NULL), or plain
 * stdout. */
static void
main_out_open(struct rec *rec)
{
	static const cookie_io_functions_t	io = {
		NULL, main_out_write, NULL, NULL
	};

	fflush(stdout);
	main_out_rec = rec;
	if (rec != NULL && (main_out = fopencookie(NULL, "w", io)) != NULL) {
		setvbuf(main_out, NULL, _IOFBF, 64 << 10);
		__fsetlocking(main_out, FSETLOCKING_BYCALLER);
	} else
		main_out = stdout;
}

/* Back to plain stdout, everything written (main_flush first). */
static void
main_out_close(void)
{
	if (main_out != NULL && main_out != stdout) {
		/* Written already (main_flush) or broken: nothing left. */
		if (main_out_broken)
			__fpurge(main_out);
		fclose(main_out);
	}
	main_out = NULL;
	main_out_rec = NULL;
}

/* The exit status for a run whose output broke: a reader that went away
 * (EPIPE: `| head`; EIO: a terminal that hung up) ends it like any filter,
 * quietly and with 0; other errors (a full disk) are failures. */
static int
main_out_status(void)
{
	if (!main_out_broken || main_out_errno == EPIPE ||
	    main_out_errno == EIO)
		return 0;
	return MAIN_EXIT_FAIL;
}

/* Print one decoded message with the chosen output. */
static void
main_emit(const struct output *out, struct stream *st, int type, int decode)
{
	const struct node_model	*m = stream_model(st);

	if (main_out_broken)
		return;
	switch (type) {
	case MSG_HELLO:
		if (decode)
			out->hello(stdout, m);
		break;
	case MSG_SAMPLE:
		out->sample(stdout, m);
		break;
	case MSG_EVENT:
		out->event(stdout, m, stream_event(st), NULL);
		break;
	case MSG_BYE:
		if (decode)
			out->bye(stdout, m);
		break;
	}
}

/* --decode: records from a probe stream on standard input. */
static int
main_decode(const struct main_opts *o)
{
	const struct output	*out = o->json ? &out_json : &out_text;
	struct stream		*st;
	uint8_t			*buf;
	char			 err[256];
	ssize_t			 n;
	int			 t, rc = 0;

	if (isatty(STDIN_FILENO)) {
		log_error("--decode reads a probe stream on standard input, "
		    "not a terminal");
		return MAIN_EXIT_USAGE;
	}
	st = stream_new("stdin");
	buf = xmalloc(MAIN_READ_SIZE);
	for (;;) {
		n = read(STDIN_FILENO, buf, MAIN_READ_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			main_flush();
			log_error("stdin: %s", strerror(errno));
			rc = MAIN_EXIT_FAIL;
			break;
		}
		if (n == 0) {
			t = stream_finish(st);
		} else {
			stream_feed(st, buf, (size_t)n);
			while ((t = stream_next(st)) > 0)
				main_emit(out, st, t, 1);
		}
		main_flush();
		if (t < 0) {
			stream_error(st, err, sizeof(err));
			log_error("stdin: %s", err);
			rc = MAIN_EXIT_FAIL;
			break;
		}
		if (n == 0 || main_out_broken)
			break;
	}
	if (main_out_status() != 0)
		rc = MAIN_EXIT_FAIL;
	free(buf);
	stream_free(st);
	return rc;
}

/* What batch mode's hooks need. */
struct main_run {
	const struct output	*out;
	struct session		*s;
	struct monitor		*mon;	/* the core (or the ui's) */
	int			 cur;	/* the node being printed */
	struct rec		*rec;	/* the recording, or NULL */
	struct ui		*ui;	/* the interactive monitor, or NULL */
	const char		*jobid;	/* batch: the job's line, or NULL */
	long			 ntasks;	/* the scheduler's, -1 */
	struct jobwatch		*jw;	/* the scheduler asked again, or NULL */
	int			 job_ended;
	int			 out_fd;	/* stdout (batch) or -1 */
	int			 tty_fd;	/* the controlling tty, or -1 */
	unsigned char		*united;	/* --json: a node's units
						   record sent; NULL: none */
};

/* The recording stopped (a full disk): say so once; monitoring goes on.
 * Under curses stderr is the screen: the monitor shows it. */
static void
main_rec_stopped(struct main_run *r)
{
	char	text[640];

	if (r->ui != NULL) {
		snprintf(text, sizeof(text), "recording stopped: %s; "
		    "monitoring goes on", rec_error(r->rec));
		ui_warn(r->ui, text);
		return;
	}
	main_flush();
	log_error("recording stopped: %s", rec_error(r->rec));
}

/* Bytes a probe sent: into the recording before they are decoded. */
static void
main_on_bytes(void *arg, int i, uint64_t wall, const void *buf, size_t n)
{
	struct main_run	*r = arg;

	if (rec_node_bytes(r->rec, (unsigned)i, wall, buf, n) != 0)
		main_rec_stopped(r);
}

/* The recorder's keyframes come from the session's decoders: one decoder
 * per node (NULL: the node's decoder refused a frame). */
static const struct node_model *
main_rec_model(void *arg, unsigned i)
{
	struct main_run	*r = arg;

	if (r->s == NULL || (int)i >= session_nnodes(r->s) ||
	    session_node_refused(r->s, (int)i))
		return NULL;
	return session_node_model(r->s, (int)i);
}

/* A node reconnected: its new stream starts a new decoder in replay too. */
static void
main_on_restart(void *arg, int i, uint64_t wall)
{
	struct main_run	*r = arg;

	if (rec_node_restart(r->rec, (unsigned)i, wall) != 0)
		main_rec_stopped(r);
}

/*
 * Batch mode's job line at the monitor's job tick (once per interval),
 * once a node has sent a sample: the job's ranks against the scheduler's
 * tasks.
 */
static void
main_on_job_tick(void *arg, uint64_t now)
{
	struct main_run	*r = arg;
	struct history	*h;
	struct out_job	 j;
	int		 i, any = 0;

	if (r->jobid == NULL || r->ui != NULL || main_out_broken)
		return;
	h = monitor_history(r->mon);
	memset(&j, 0, sizeof(j));
	for (i = 0; i < history_nnodes(h); i++) {
		any |= history_node_samples(h, i) > 0;
		j.procs += history_nranks(h, i);
	}
	j.id = r->jobid;
	j.ranks = detect_ranks(monitor_detect(r->mon));
	j.ntasks = detect_ntasks(monitor_detect(r->mon));
	if (any)
		r->out->job(main_out, clock_wall_ms(), &j);
}

/*
 * The scheduler says the job has ended: into the recording; the screen
 * shows the final state and stays until q (the probes stop now), batch
 * mode stops and prints it last (main_batch).
 */
static void
main_job_ended(struct main_run *r)
{
	const char	*state = jobwatch_state(r->jw);

	r->job_ended = 1;
	/* Ranks that go from now on go with the job: not news. */
	if (r->mon != NULL && r->ui == NULL)
		monitor_job_ended(r->mon);
	if (rec_event(r->rec, REC_NODE_NONE, clock_wall_ms(), EV_INFO, "job",
	    state, NULL) != 0)
		main_rec_stopped(r);
	if (r->ui != NULL) {
		ui_job_end(r->ui, state);
		session_stop_probes(r->s);
	} else
		session_quit(r->s);
}

/* Once per loop pass: flushes, the recording's keyframes when no data
 * comes, the scheduler's verdict on the job; an output whose reader went
 * away ends the run. */
static int
main_on_timeout(void *arg, uint64_t now)
{
	struct main_run	*r = arg;
	int		 t, tj;

	/* The recording first: what is printed is recorded. */
	if (rec_tick(r->rec, clock_wall_ms()) != 0)
		main_rec_stopped(r);
	/* Once per loop pass, not per record: one write for many (past
	 * 64 nodes the loop paces its passes at a tenth of the interval). */
	main_flush();
	if (main_out_rec_failed) {
		main_out_rec_failed = 0;
		main_rec_stopped(r);
	}
	if (main_out_broken && r->s != NULL)
		session_quit(r->s);
	t = rec_timeout(r->rec, clock_wall_ms());
	if (r->jw != NULL && !r->job_ended && r->s != NULL) {
		tj = jobwatch_step(r->jw, now);
		if (jobwatch_ended(r->jw))
			main_job_ended(r);
		else if (tj >= 0 && (t < 0 || tj < t))
			t = tj;
	}
	return t;
}

/*
 * The controlling terminal of batch mode, to notice its hangup: a shell
 * sends its jobs SIGHUP then, but su and sudo keep it to themselves, and
 * a batch run writing to a file would go on sampling for nobody.  None
 * when the hangup is ignored (nohup) or there is no terminal.
 */
static int
main_ctty_open(void)
{
	struct sigaction	sa;

	if (sigaction(SIGHUP, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
		return -1;
	return open("/dev/tty", O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
}

/*
 * Batch mode watches its standard output and its terminal, asking for no
 * event: poll() still reports POLLERR on a pipe whose reader is gone and
 * POLLHUP on a terminal that hung up, so `| head -3` ends the run when head
 * exits, not at the next write, and a silent run notices as well.
 */
static int
main_out_pollfds(void *arg, struct pollfd *pfd, int max)
{
	struct main_run	*r = arg;
	int		 n = 0;

	if (r->out_fd >= 0 && !main_out_broken && n < max) {
		pfd[n].fd = r->out_fd;
		pfd[n].events = 0;
		pfd[n++].revents = 0;
	}
	if (r->tty_fd >= 0 && n < max) {
		pfd[n].fd = r->tty_fd;
		pfd[n].events = 0;
		pfd[n++].revents = 0;
	}
	return n;
}

static void
main_out_ready(void *arg, const struct pollfd *pfd, int n, uint64_t now)
{
	struct main_run	*r = arg;
	int		 i;

	for (i = 0; i < n; i++) {
		if ((pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) == 0)
			continue;
		if (pfd[i].fd == r->tty_fd) {
			log_debug("the terminal went away: quitting");
			close(r->tty_fd);
			r->tty_fd = -1;
			session_quit(r->s);
			continue;
		}
		if (pfd[i].fd != r->out_fd)
			continue;
		log_debug("standard output: the reader went away (revents "
		    "%#x)", (unsigned)pfd[i].revents);
		if (!main_out_broken) {
			main_out_broken = 1;
			main_out_errno = (pfd[i].revents & POLLNVAL) ?
			    EBADF : EPIPE;
		}
		session_quit(r->s);
	}
}

/*
 * The GPUs the scheduler allocated the job on each node (job->gpus, for
 * gpu-idle on nodes where no rank says, and the recording): asked once of
 * a running job; a scheduler that cannot say, or a failed query, leaves
 * them unknown (-v says why).
 */
static void
main_gpus(struct job *job)
{
	char	err[512];

	if (strcmp(job->sched, "hostlist") == 0 || job->id[0] == '\0' ||
	    !sched_job_active(job))
		return;
	if (sched_gpus(job, err, sizeof(err)) != SCHED_OK)
		log_debug("GPUs per node not known: %s", err);
}

/* Node i of the job into the monitor's GPU allocation. */
static void
main_node_gpus(struct monitor *mon, int mi, const struct job *job, size_t i)
{
	if (job->gpus != NULL)
		monitor_node_gpus(mon, mi, job->gpus[i]);
}

/* The job's metadata, as recorded and as live --json's meta record
 * gives it (export.h): free it with rec_meta_free. */
static void
main_meta(struct rec_meta *meta, const struct main_opts *o,
    const struct job *job)
{
	const char	**names;
	size_t		  i, n = hostlist_count(job->nodes);

	rec_meta_init(meta, clock_wall_ms());
	meta->interval_ms = (uint32_t)(o->interval * 1000 + 0.5);
	meta->count = (uint64_t)o->count;
	if (strcmp(job->sched, "hostlist") != 0)
		snprintf(meta->job, sizeof(meta->job), "%.*s",
		    (int)sizeof(meta->job) - 1, job->id);
	snprintf(meta->name, sizeof(meta->name), "%s", job->name);
	if (job->user[0] != '\0')
		snprintf(meta->user, sizeof(meta->user), "%s", job->user);
	meta->ntasks = job->ntasks;
	meta->cpus = job->cpus > 0 ? (uint64_t)job->cpus : 0;
	meta->mem = job->mem;
	meta->time_limit = job->time_limit >= 0 ? job->time_limit :
	    job->time_limit == JOB_TIME_UNLIMITED ? REC_LIMIT_NONE :
	    REC_LIMIT_UNKNOWN;
	snprintf(meta->partition, sizeof(meta->partition), "%s",
	    job->partition);
	names = xcalloc(n, sizeof(*names));
	for (i = 0; i < n; i++)
		names[i] = hostlist_get(job->nodes, i);
	rec_meta_set_nodes(meta, (unsigned)n, names);
	free(names);
	if (job->gpus != NULL) {
		meta->gpus = xcalloc(n > 0 ? n : 1, sizeof(*meta->gpus));
		memcpy(meta->gpus, job->gpus, n * sizeof(*meta->gpus));
	}
}

/*
 * The session's recording of the job in meta: -o FILE, else a new file at
 * the default path unless --no-record.  NULL when there is none; *fail
 * when -o FILE could not be created (a default path that cannot be is only
 * a warning).
 */
static struct rec *
main_rec_open(const struct main_opts *o, const struct rec_meta *meta,
    int *fail)
{
	struct rec	 *rec;
	char		 *path, err[512];

	*fail = 0;
	if (o->no_record)
		return NULL;
	if (o->record != NULL)
		path = xstrdup(o->record);
	else
		path = rec_default_path(meta->job[0] != '\0' ? meta->job :
		    meta->nnodes > 0 ? meta->nodes[0] : "", meta->start_ms);
	rec = NULL;
	if (path == NULL)
		log_error("no place for the recording: set HOME or "
		    "XDG_STATE_HOME, or give -o FILE or --no-record");
	else if ((rec = rec_open(path, meta, o->record == NULL ?
	    REC_CREATE_DEFAULT : o->force ? REC_CREATE_FORCE : REC_CREATE_NEW,
	    err, sizeof(err))) == NULL) {
		if (o->record != NULL)
			*fail = 1;
		log_error("%s%s", err, o->record != NULL ? "" :
		    "; going on without a recording");
	} else {
		log_debug("recording to %s", rec_path(rec));
		if (rec_warning(rec) != NULL)
			log_error("%s", rec_warning(rec));
	}
	free(path);
	return rec;
}

/*
 * Close the recording and say where it is: one line on stderr after the
 * curses monitor (its user cannot know the default name), and after batch
 * mode when stderr is a terminal (not in scripts, whose stderr is for
 * errors).  A recording that stopped early was reported then, with its
 * path.  Before that line, when verdict is set (the run succeeded), the
 * job's verdict read back from the recording (summary.h), on the same
 * terms.
 */
static void
main_rec_close(struct rec *rec, int interactive, int verdict)
{
	char	 err[512], *path;
	int	 stopped;

	if (rec == NULL)
		return;
	path = xstrdup(rec_path(rec));
	stopped = rec_error(rec) != NULL;
	if (rec_close(rec, err, sizeof(err)) != 0)
		log_error("recording stopped: %s", err);
	else if (!stopped && (interactive || isatty(STDERR_FILENO))) {
		if (verdict)
			summary_print_file(path, stderr);
		log_error("recorded to %s", path);
	}
	free(path);
}

/* The flags of the record being printed (out_json_set_flags). */
static int
main_flags(void *arg, const struct node_model *m, const struct minst *mi,
    const char **names, int max)
{
	struct main_run		*r = arg;

	return monitor_flag_names(r->mon, r->cur, m, mi, names, max);
}

/* A detector's event in the log (-v): node, code, text. */
static void
main_log_event(struct main_run *r, const struct detect_event *de)
{
	const char	*node = r->s != NULL && de->node >= 0 &&
			    de->node < session_nnodes(r->s) ?
			    session_node_name(r->s, de->node) : "job";

	if (de->level >= EV_WARN)
		log_warn("event %s %s: %s", node, de->code, de->text);
	else
		log_debug("event %s %s: %s", node, de->code, de->text);
}

/* What a detector's event is about: its rank and process (-1 each for a
 * node's flag, and for many ranks in one membership event). */
static void
main_subject(const struct detect_event *de, struct rec_subject *sj)
{
	rec_subject_none(sj);
	sj->rank = de->rank;
	sj->pid = de->pid;
}

/* A detector raised or cleared a flag: into the recording (batch and
 * curses: a sink of the monitor core), with the rank it is about typed
 * so readers need not find it in the text. */
static void
main_rec_detect(struct main_run *r, const struct detect_event *de)
{
	struct rec_subject	sj;

	main_log_event(r, de);
	main_subject(de, &sj);
	if (rec_event(r->rec, (unsigned)de->node, de->time_ms,
	    (uint8_t)de->level, de->code, de->text, &sj) != 0)
		main_rec_stopped(r);
}

/* ... and in batch mode an event record; a probe's event (its bytes are
 * recorded) only printed. */
static void
main_on_event(void *arg, const struct monitor_event *me)
{
	struct main_run			*r = arg;
	const struct detect_event	*de = me->de;
	struct proto_event		 ev;
	struct rec_subject		 sj;

	if (me->origin == MON_EV_PROBE && me->pe != NULL) {
		if (r->ui == NULL && !main_out_broken && r->s != NULL)
			r->out->event(main_out, session_node_model(r->s,
			    me->node), me->pe, NULL);
		return;
	}
	if (me->origin != MON_EV_DETECT || de == NULL)
		return;
	if (r->ui != NULL) {
		main_rec_detect(r, de);
		return;
	}
	if (main_out_broken || r->s == NULL)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = de->time_ms;
	ev.level = (uint8_t)de->level;
	snprintf(ev.code, sizeof(ev.code), "%s", de->code);
	snprintf(ev.text, sizeof(ev.text), "%s", de->text);
	main_rec_detect(r, de);
	main_subject(de, &sj);
	r->out->event(main_out, session_node_model(r->s, de->node), &ev, &sj);
}

/* A sample, after the history and the detectors took it: batch mode
 * prints it (its flags are the detectors' now: main_flags). */
static void
main_on_sample(void *arg, int i, const struct node_model *m, uint64_t now)
{
	struct main_run		*r = arg;

	r->cur = i;
	if (r->ui != NULL || main_out_broken || r->s == NULL)
		return;
	/* The units before the node's first record, as export. */
	if (r->united != NULL && i >= 0 && !r->united[i]) {
		r->united[i] = 1;
		export_json_units(main_out, session_node_name(r->s, i), m,
		    NULL);
	}
	r->out->sample(main_out, m);
}

/* A node's state changed at wall time now: into the recording. */
static void
main_rec_state_at(struct main_run *r, int i, enum feed_phase ph,
    const char *cur, uint64_t now)
{
	struct rec_subject	 sj;

	/* The phase typed beside the text: readers judge by it, the text
	 * says why. */
	rec_subject_none(&sj);
	sj.phase = (int)ph;
	if (rec_event(r->rec, (unsigned)i, now,
	    ph == FEED_FAILED ? EV_ERROR : ph == FEED_LOST ? EV_WARN : EV_INFO,
	    "state", cur, &sj) != 0)
		main_rec_stopped(r);
}

/* A node's transport is known or changed: into the recording (an event
 * "transport": "ssh; skipped: libssh2: ...", which older readers replay
 * as any event), and in batch mode a record. */
static void
main_on_transport(void *arg, int i, const char *t, const char *skipped,
    uint64_t now)
{
	struct main_run	*r = arg;
	char		 text[640];

	/* One clock reading for the record and the recording (the
	 * monitor's): a replay must print the same time. */
	snprintf(text, sizeof(text), "%s%s%s", t, *skipped != '\0' ?
	    "; skipped: " : "", skipped);
	if (rec_event(r->rec, (unsigned)i, now, EV_INFO,
	    "transport", text, NULL) != 0)
		main_rec_stopped(r);
	if (r->ui == NULL && !main_out_broken && r->out->transport != NULL) {
		r->out->transport(main_out, monitor_node_name(r->mon, i), now,
		    t, skipped);
		main_flush();
	}
}

/* A node's phase changed: into the recording, and in batch mode a record
 * and one line on stderr for a node that failed for good.  Told before
 * the events the change raises (a lost node's), as the recording has
 * them and export prints them. */
static void
main_on_phase(void *arg, int i, enum feed_phase ph, const char *cur,
    int lost, uint64_t now)
{
	struct main_run	*r = arg;
	const char	*name = monitor_node_name(r->mon, i);

	/* One clock reading for the record and the recording: a replay
	 * prints the same time (two readings differed by a millisecond
	 * now and then, and regress/rec-live saw it under load). */
	main_rec_state_at(r, i, ph, cur, now);
	if (r->ui != NULL)
		return;
	if (!main_out_broken) {
		r->out->state(main_out, name, now, cur, (int)ph);
		main_flush();
	}
	if (ph == FEED_FAILED && strncmp(cur, "failed: ", 8) == 0)
		log_error("%s: %s", name, cur + 8);
}

/* What batch mode and the recorder take from the monitor core, which
 * takes the session's hooks (monitor_hooks): one sink in both modes. */
static const struct monitor_sink main_sink = {
	.sample = main_on_sample,
	.phase = main_on_phase,
	.event = main_on_event,
	.job_tick = main_on_job_tick,
	.bytes = main_on_bytes,
	.restart = main_on_restart,
	.transport = main_on_transport,
	.pollfds = main_out_pollfds,
	.ready = main_out_ready,
	.timeout = main_on_timeout,
};

static void
main_rconf_log(void *arg, const char *line)
{
	log_debug("%s", line);
}

/* Replace an owned string field of the SSH configuration. */
static void
main_rconf_set(char **field, const char *v)
{
	free(*field);
	*field = v != NULL ? xstrdup(v) : NULL;
}

/* What batch and interactive modes share: the probe, its arguments, the
 * SSH configuration and the session's timing. */
struct main_probes {
	char			*probe;
	char			*nvml;		/* jobtop-nvml, or NULL */
	char			 ivl[32];
	char			 uid[24];	/* the job owner's, --uid */
	char			*argv[12];
	const char		*jobid;		/* NULL for -w and hostfiles */
	const char		*transport;	/* --transport */
	struct rconf		 rc;
	struct session_conf	 sc;
};

/* Find the probe and ready the SSH configuration when any node is remote:
 * 0, or -1 after one line on stderr. */
static int
main_probes_init(struct main_probes *mp, const struct main_opts *o,
    const struct job *job)
{
	static char	 opt_interval[] = "--interval", opt_job[] = "--job";
	static char	 opt_nvml[] = "--nvml", opt_uid[] = "--uid";
	static char	 opt_step[] = "--step";
	char		 err[512];
	size_t		 i, n = hostlist_count(job->nodes);
	int		 remote = 0, k = 0;

	memset(mp, 0, sizeof(*mp));
	mp->transport = o->transport != NULL ? o->transport : "auto";
	rconf_init(&mp->rc);
	if ((mp->probe = feed_local_find_probe(err, sizeof(err))) == NULL) {
		log_error("%s", err);
		return -1;
	}
	if (strcmp(job->sched, "hostlist") != 0 && job->id[0] != '\0')
		mp->jobid = job->id;
	snprintf(mp->ivl, sizeof(mp->ivl), "%.3f", o->interval);
	mp->argv[k++] = mp->probe;
	mp->argv[k++] = opt_interval;
	mp->argv[k++] = mp->ivl;
	/* Before --job, which tests look for at the end of the line. */
	if ((mp->nvml = feed_local_find_nvml(mp->probe)) != NULL) {
		mp->argv[k++] = opt_nvml;
		mp->argv[k++] = mp->nvml;
	}
	/* Only the owner's processes are the job's ranks (the scheduler
	 * says who; a hostlist has no owner). */
	if (mp->jobid != NULL && job->uid_known) {
		snprintf(mp->uid, sizeof(mp->uid), "%lu",
		    (unsigned long)job->uid);
		mp->argv[k++] = opt_uid;
		mp->argv[k++] = mp->uid;
	}
	/* A Slurm step id (123.0, 123.batch): only that step's ranks. */
	if (mp->jobid != NULL && job->step[0] != '\0') {
		mp->argv[k++] = opt_step;
		mp->argv[k++] = (char *)(uintptr_t)job->step;
	}
	if (mp->jobid != NULL) {
		mp->argv[k++] = opt_job;
		mp->argv[k++] = (char *)(uintptr_t)mp->jobid;
	}
	mp->argv[k] = NULL;

	mp->sc.count = o->count;
	mp->sc.interval = o->interval;
	/* Lost after two and a half silent intervals (at least a second):
	 * flagged within three samples, never on one late sample.  The SSH
	 * session gives up on the connection later (rconf's data timeout,
	 * 5 s + 3 intervals) and reconnects. */
	mp->sc.lost_ms = (unsigned)(o->interval * 2500);
	if (mp->sc.lost_ms < 1000)
		mp->sc.lost_ms = 1000;

	for (i = 0; i < n; i++)
		remote |= !main_host_local(hostlist_get(job->nodes, i));
	if (!remote)
		return 0;
	main_rconf_set(&mp->rc.probe_path, mp->probe);
	main_rconf_set(&mp->rc.nvml_path, mp->nvml);
	main_rconf_set(&mp->rc.job, mp->jobid);
	main_rconf_set(&mp->rc.sluid, mp->jobid != NULL && job->sluid[0] !=
	    '\0' ? job->sluid : NULL);
	main_rconf_set(&mp->rc.step, mp->jobid != NULL && job->step[0] != '\0' ?
	    job->step : NULL);
	mp->rc.sched = mp->jobid != NULL ? job->sched : NULL;
	main_rconf_set(&mp->rc.rank_nodes, mp->jobid != NULL ?
	    job->rank_nodes : NULL);
	mp->rc.nnodes = n;
	mp->rc.owner = job->uid;
	mp->rc.owner_known = mp->jobid != NULL && job->uid_known;
	mp->rc.interval = o->interval;
	mp->rc.accept_new = o->accept_new;
	mp->rc.log = main_rconf_log;
	if (rconf_ready(&mp->rc, err, sizeof(err)) != 0) {
		log_error("%s", err);
		return -1;
	}
	return 0;
}

/* Add a node to the session: a local probe child or an SSH session. */
static void
main_probes_add(struct main_probes *mp, struct session *s, const char *name)
{
	struct feed	*f;
	char		 err[512];

	err[0] = '\0';
	if (main_host_local(name))
		f = feed_new_local(mp->probe, mp->argv, err, sizeof(err));
	else
		f = feed_new_remote(mp->transport, &mp->rc, name, err,
		    sizeof(err));
	session_add(s, name, f, err);
}

static void
main_probes_free(struct main_probes *mp)
{
	rconf_free(&mp->rc);
	free(mp->probe);
	free(mp->nvml);
}

/* Where stackrun finds the probe on a node: this machine's, and the name
 * and cache directory of the pushed copy when some node is remote. */
static void
main_stacks_conf(const struct main_probes *mp, struct stackrun_conf *c)
{
	c->probe_local = mp->probe;
	if (mp->rc.probe_path != NULL) {
		c->cache_dir = mp->rc.cache_dir;
		c->probe_name = rconf_probe_name(&mp->rc);
	}
}

/*
 * Batch mode: a probe per node (a local child for this machine, over SSH
 * for the others), one poll loop, records on stdout.
 */
/* The memory the scheduler allocated a node of the job, bytes, 0 unknown
 * (its total over the nodes, said alike on each). */
static double
main_mem_node(struct job *job)
{
	size_t	n = job->nodes != NULL ? hostlist_count(job->nodes) : 0;

	return n > 0 && job->mem > 0 ? (double)job->mem / (double)n : 0;
}

/* The CPUs the scheduler allocated a node, 0 unknown (as the memory). */
static double
main_cpus_node(struct job *job)
{
	size_t	n = job->nodes != NULL ? hostlist_count(job->nodes) : 0;

	return n > 0 && job->cpus > 0 ? (double)job->cpus / (double)n : 0;
}

static int
main_batch(const struct main_opts *o, struct job *job)
{
	struct main_probes	 mp;
	struct main_run		 run;
	struct monitor_conf	 mconf;
	struct session_hooks	 hooks;
	struct session		*s;
	struct rec_meta		 meta;
	char			*jobname;
	size_t			 i, n = hostlist_count(job->nodes);
	int			 ret;

	if (main_probes_init(&mp, o, job) != 0) {
		main_probes_free(&mp);
		return MAIN_EXIT_FAIL;
	}

	memset(&run, 0, sizeof(run));
	run.out = o->json ? &out_json : &out_text;
	/* One thread: the records' writes need no stdio lock. */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	memset(&mconf, 0, sizeof(mconf));
	mconf.ranks = mp.jobid != NULL;	/* -w: processes, not ranks */
	mconf.ntasks = job->ntasks;
	mconf.mem_node = main_mem_node(job);
	mconf.cpus_node = main_cpus_node(job);
	if (o->settings != NULL)
		mconf.alloc_ms = (uint64_t)o->settings->alloc_after * 1000;
	mconf.interval = o->interval;
	run.mon = monitor_new(&mconf);
	monitor_add_sink(run.mon, &main_sink, &run);
	run.jobid = mp.jobid;
	run.ntasks = job->ntasks;
	if (o->json)
		out_json_set_flags(main_flags, &run);
	monitor_hooks(run.mon, &hooks);
	run.out_fd = STDOUT_FILENO;
	run.tty_fd = main_ctty_open();
	main_meta(&meta, o, job);
	run.rec = main_rec_open(o, &meta, &ret);
	main_out_open(run.rec);
	if (ret == 0 && o->json) {
		/* The job first, as export --json prints it. */
		jobname = export_job_id(&meta);
		export_json_meta(main_out, &meta, jobname, 0);
		free(jobname);
		run.united = xcalloc(n + 1, 1);
	}
	rec_meta_free(&meta);
	if (ret != 0) {
		main_out_close();
		if (run.tty_fd >= 0)
			close(run.tty_fd);
		out_json_set_flags(NULL, NULL);
		monitor_free(run.mon);
		main_probes_free(&mp);
		return MAIN_EXIT_FAIL;
	}
	s = session_new(&mp.sc, &hooks);
	run.s = s;
	monitor_set_session(run.mon, s);
	rec_set_models(run.rec, main_rec_model, &run);
	run.jw = jobwatch_new(job->sched, mp.jobid, clock_mono_ms());
	for (i = 0; i < n; i++) {
		main_node_gpus(run.mon, monitor_add_node(run.mon,
		    hostlist_get(job->nodes, i)), job, i);
		main_probes_add(&mp, s, hostlist_get(job->nodes, i));
	}
	ret = session_run(s) != 0 ? MAIN_EXIT_FAIL : 0;
	/* The job's end is the run's last record, and a success. */
	if (run.job_ended) {
		struct out_job	j = { mp.jobid, -1, -1, -1, NULL };

		ret = 0;
		j.state = jobwatch_state(run.jw);
		if (!main_out_broken)
			run.out->job(main_out, clock_wall_ms(), &j);
	}
	jobwatch_free(run.jw);
	if (run.tty_fd >= 0)
		close(run.tty_fd);
	main_flush();
	main_out_close();
	main_rec_close(run.rec, 0, ret == 0);
	if (main_out_broken)
		ret = main_out_status();
	session_free(s);
	free(run.united);
	out_json_set_flags(NULL, NULL);
	monitor_free(run.mon);
	main_probes_free(&mp);
	return ret;
}

/*
 * The interactive monitor: the probes and the poll loop of batch mode,
 * drawn by the curses UI (ui/), recorded the same way.  The terminal and
 * the theme are checked before any probe starts: a terminal that cannot
 * run it gets one line and exit 2, untouched.
 */
static int
main_interactive(const struct main_opts *o, struct job *job)
{
	struct main_probes	 mp;
	struct main_run		 run;
	struct session_hooks	 hooks;
	struct ui_conf		 uc;
	struct stackrun_conf	 stk;
	struct session		*s;
	struct ui		*ui;
	struct rec_meta		 meta;
	char			 err[512];
	const char		*name, *jobid = NULL;
	size_t			 i, n = hostlist_count(job->nodes);
	int			 ret, k;

	if (ui_check_terminal(err, sizeof(err)) != 0) {
		log_error("%s", err);
		return MAIN_EXIT_USAGE;
	}
	if (strcmp(job->sched, "hostlist") != 0 && job->id[0] != '\0')
		jobid = job->id;
	memset(&uc, 0, sizeof(uc));
	uc.job_id = jobid != NULL ? jobid : "";
	uc.job_name = job->name;
	uc.job_user = job->user;
	uc.job_state = job->state_name;
	uc.elapsed = job->elapsed;
	uc.time_limit = job->time_limit;
	uc.ntasks = job->ntasks;
	uc.mem_node = main_mem_node(job);
	uc.cpus_node = main_cpus_node(job);
	uc.interval = o->interval;
	uc.theme = o->theme;
	uc.settings = o->settings;
	uc.utf8 = -1;
	if ((ui = ui_new(&uc, err, sizeof(err))) == NULL) {
		log_error("%s", err);
		return MAIN_EXIT_USAGE;
	}
	memset(&run, 0, sizeof(run));
	ret = main_probes_init(&mp, o, job) != 0 ? MAIN_EXIT_FAIL : 0;
	if (ret == 0) {
		main_meta(&meta, o, job);
		run.rec = main_rec_open(o, &meta, &ret);
		rec_meta_free(&meta);
		if (ret != 0)
			ret = MAIN_EXIT_FAIL;
	}
	if (ret != 0) {
		main_probes_free(&mp);
		ui_free(ui);
		return ret;
	}

	/* Recorded as batch mode records: bytes, restarts, node states,
	 * the detectors' events, keyframes. */
	run.ui = ui;
	stk = o->stk;
	main_stacks_conf(&mp, &stk);
	ui_set_stacks(ui, &stk);
	ui_hooks(ui, &hooks);
	run.mon = ui_monitor(ui);
	monitor_add_sink(run.mon, &main_sink, &run);
	ui_set_recording(ui, run.rec != NULL ? rec_path(run.rec) : NULL);
	s = session_new(&mp.sc, &hooks);
	run.s = s;
	rec_set_models(run.rec, main_rec_model, &run);
	run.out_fd = run.tty_fd = -1;
	run.jw = jobwatch_new(job->sched, mp.jobid, clock_mono_ms());
	ui_set_session(ui, s);
	for (i = 0; i < n; i++) {
		name = hostlist_get(job->nodes, i);
		ui_add_node(ui, name, main_host_local(name));
		main_node_gpus(run.mon, monitor_nnodes(run.mon) - 1, job, i);
		main_probes_add(&mp, s, name);
	}
	if (ui_start(ui, err, sizeof(err)) != 0) {
		log_error("%s", err);
		ret = MAIN_EXIT_FAIL;
	} else {
		ret = session_run(s) != 0 && !run.job_ended ?
		    MAIN_EXIT_FAIL : 0;
		ui_stop(ui);
		for (k = 0; k < session_nnodes(s); k++)
			if (session_node_error(s, k) != NULL)
				log_error("%s: %s", session_node_name(s, k),
				    session_node_error(s, k));
	}
	jobwatch_free(run.jw);
	main_rec_close(run.rec, 1, ret == 0);
	session_free(s);
	ui_free(ui);
	main_probes_free(&mp);
	return ret;
}

/*
 * jobtop -r FILE: the recording in the monitor's screen.  The session's
 * poll loop runs with the recording as its one feed, which only keeps the
 * loop going until a quit; the UI's timeout hook runs the player's clock.
 */
static int
main_replay(const struct main_opts *o)
{
	struct replay_status	 st;
	struct session_hooks	 hooks;
	struct session_conf	 sc;
	struct ui_conf		 uc;
	struct monitor_conf	 mc;
	const struct rec_meta	*meta;
	struct replay		*rp;
	struct session		*s;
	struct ui		*ui;
	char			 err[512];
	int			 ret = 0;

	if (ui_check_terminal(err, sizeof(err)) != 0) {
		log_error("%s", err);
		return MAIN_EXIT_USAGE;
	}
	if ((rp = replay_open(o->replay, 0, err, sizeof(err))) == NULL) {
		log_error("%s: %s", o->replay, err);
		return MAIN_EXIT_FAIL;
	}
	meta = replay_meta(rp);
	memset(&uc, 0, sizeof(uc));
	uc.job_id = meta->job;
	uc.job_name = meta->name;
	uc.job_user = meta->user;
	uc.job_state = "";
	uc.elapsed = -1;
	uc.time_limit = -1;
	/* The monitor's configuration as export's (monitor_conf_recorded). */
	monitor_conf_recorded(&mc, meta);
	uc.ntasks = mc.ntasks;
	uc.mem_node = mc.mem_node;
	uc.cpus_node = mc.cpus_node;
	uc.interval = mc.interval;
	uc.theme = o->theme;
	uc.settings = o->settings;
	uc.utf8 = -1;
	if ((ui = ui_new(&uc, err, sizeof(err))) == NULL) {
		log_error("%s", err);
		replay_free(rp);
		return MAIN_EXIT_USAGE;
	}
	ui_hooks(ui, &hooks);
	hooks.bytes = NULL;
	hooks.message = NULL;
	hooks.state = NULL;
	memset(&sc, 0, sizeof(sc));
	sc.interval = uc.interval;
	sc.lost_ms = UINT32_MAX;
	s = session_new(&sc, &hooks);
	session_add(s, "replay", feed_new_replay(rp), NULL);
	ui_set_session(ui, s);
	ui_attach_replay(ui, rp);
	if (ui_start(ui, err, sizeof(err)) != 0) {
		log_error("%s", err);
		ret = MAIN_EXIT_FAIL;
	} else {
		replay_status(rp, &st);
		replay_seek(rp, st.start_ms);
		replay_play(rp, 1, clock_mono_ms());
		session_run(s);
		ui_stop(ui);
		replay_status(rp, &st);
		if (st.note != NULL)
			log_error("%s: %s", o->replay, st.note);
	}
	session_free(s);
	ui_free(ui);
	replay_free(rp);
	return ret;
}

/*
 * A job that has finished, or that the scheduler no longer knows, may have
 * been watched: when a recording of it is in the default directory, the
 * error line ends with the commands that open it, so the user is not left
 * at a dead end.
 */
static void
main_recording_hint(int r, const char *jobid, char *err, size_t size)
{
	char	 why[PATH_MAX + 128], *path;
	size_t	 len;

	if (jobid == NULL || (r != SCHED_EFINISHED && r != SCHED_ENOJOB))
		return;
	if ((path = rec_resolve(jobid, why, sizeof(why))) == NULL)
		return;
	/* Only the default directory's recordings (rec_find_latest): a
	 * file of that name here is no recording of the job. */
	if (strchr(path, '/') == NULL) {
		free(path);
		return;
	}
	len = strlen(err);
	snprintf(err + len, size - len, "; a recording of it exists "
	    "(%s): jobtop -r %s, jobtop report %s -o report.html", path,
	    jobid, jobid);
	free(path);
}

/* Turn the command line into a job: its nodes, owner and state.  Returns
 * 0, or an exit code after one line on stderr. */
static int
main_resolve(const struct main_opts *o, struct job *job)
{
	const char	*jobid = o->nargs > 0 ? o->args[0] : NULL;
	char		 err[PATH_MAX + 640], *table = NULL;
	int		 r;

	if ((o->hostlist != NULL) + (o->hostfile != NULL) +
	    (jobid != NULL) > 1 || o->nargs > 1) {
		log_error("give one of JOBID, -w HOSTLIST or --hostfile FILE");
		return MAIN_EXIT_USAGE;
	}
	if (o->scheduler != NULL && jobid == NULL &&
	    (o->hostlist != NULL || o->hostfile != NULL)) {
		log_error("--scheduler goes with a job id or an allocation, "
		    "not with -w or --hostfile");
		return MAIN_EXIT_USAGE;
	}
	if (o->hostlist != NULL)
		r = sched_from_hostlist(o->hostlist, job, err, sizeof(err));
	else if (o->hostfile != NULL)
		r = sched_from_hostfile(o->hostfile, job, err, sizeof(err));
	else if (jobid != NULL)
		r = sched_resolve(o->scheduler, jobid, job, err, sizeof(err));
	else if (sched_env_inside(o->scheduler))
		r = sched_from_env(o->scheduler, job, err, sizeof(err));
	else {
		/* Outside any job: the caller's running jobs, the only one
		 * watched, several listed (like squeue --me). */
		r = sched_mine(o->scheduler, getuid(), job, &table, err,
		    sizeof(err));
		if (table != NULL) {
			fputs(table, stdout);
			fflush(stdout);
			free(table);
		}
	}
	if (r == SCHED_OK && !sched_may_watch(job, getuid(), err,
	    sizeof(err)))
		r = SCHED_EPERM;
	if (r == SCHED_OK)
		return 0;
	main_recording_hint(r, jobid, err, sizeof(err));
	log_error("%s", err);
	return r == SCHED_EINVAL || r == SCHED_ENOSCHED ||
	    r == SCHED_ENOENV ? MAIN_EXIT_USAGE : MAIN_EXIT_FAIL;
}

/* One rung of --explain: a transport of the registry with the shared
 * configuration, or the local child. */
struct main_explain_rung {
	struct main_probes		*mp;
	const struct feed_transport	*t;
};

static struct feed *
main_explain_open(void *arg, const char *node, char *err, size_t errlen)
{
	struct main_explain_rung	*r = arg;

	return r->t->open(&r->mp->rc, node, err, errlen);
}

static struct feed *
main_explain_local(void *arg, const char *node, char *err, size_t errlen)
{
	struct main_explain_rung	*r = arg;

	return feed_new_local(r->mp->probe, r->mp->argv, err, errlen);
}

/*
 * --explain: every transport of the ladder (feed_transports[] marked
 * FEED_T_LADDER, in order) on one node of the job (the first, or the one
 * named), reported by explain.c.  0 when some transport reached the node.
 */
static int
main_explain(const struct main_opts *o, const struct job *job)
{
	struct main_probes		 mp;
	struct main_explain_rung	 ctx[8];
	struct explain_rung		 rungs[8];
	const struct feed_transport	*t;
	const char			*node = hostlist_get(job->nodes, 0);
	char				 buf[256], why[8][512], pref[512];
	size_t				 i;
	int				 n = 0, rc;

	if (o->explain_node != NULL) {
		for (i = 0; i < hostlist_count(job->nodes); i++)
			if (strcmp(hostlist_get(job->nodes, i),
			    o->explain_node) == 0)
				break;
		if (i == hostlist_count(job->nodes)) {
			log_error("--explain=%s: not a node of %s", text_clean(
			    buf, sizeof(buf), o->explain_node),
			    job->nodelist != NULL ? job->nodelist : "the job");
			return MAIN_EXIT_USAGE;
		}
		node = hostlist_get(job->nodes, i);
	}
	if (main_probes_init(&mp, o, job) != 0) {
		main_probes_free(&mp);
		return MAIN_EXIT_FAIL;
	}
	memset(rungs, 0, sizeof(rungs));
	if (main_host_local(node)) {
		ctx[n].mp = &mp;
		ctx[n].t = NULL;
		rungs[n].name = "local";
		rungs[n].start = main_explain_local;
		rungs[n].arg = &ctx[n];
		rungs[n++].local = 1;
	}
	for (t = feed_transports; t->name != NULL && n < 8 &&
	    !main_host_local(node); t++) {
		if (!(t->flags & FEED_T_LADDER))
			continue;
		ctx[n].mp = &mp;
		ctx[n].t = t;
		rungs[n].name = t->name;
		rungs[n].rc = &mp.rc;
		rungs[n].start = main_explain_open;
		rungs[n].arg = &ctx[n];
		why[n][0] = '\0';
		if (t->usable != NULL && t->usable(&mp.rc, node, why[n],
		    sizeof(why[n])) != 0)
			rungs[n].skip = why[n];
		/* Where the ladder starts a very large job. */
		if (t->first != NULL && t->first(&mp.rc, pref, sizeof(pref)))
			rungs[n].first = pref;
		n++;
	}
	rc = explain_run(job, node, rungs, n, &mp.sc, stdout);
	main_probes_free(&mp);
	return rc == 0 ? 0 : MAIN_EXIT_FAIL;
}

/*
 * --stacks: the probes as in batch mode, then every node's stacks
 * (stackrun.c), merged and printed as a tree or one JSON object; nothing
 * is recorded.  0 when some node answered.
 */
static int
main_stacks(const struct main_opts *o, struct job *job)
{
	struct main_probes	 mp;
	struct stackrun_conf	 c = o->stk;
	struct session_hooks	 hooks;
	struct stackrun		*sr;
	struct session		*s;
	struct stree		*t;
	const char		*who, *why;
	size_t			 i, n = hostlist_count(job->nodes);
	int			 ret = MAIN_EXIT_FAIL;

	if (main_probes_init(&mp, o, job) != 0) {
		main_probes_free(&mp);
		return MAIN_EXIT_FAIL;
	}
	mp.sc.count = 0;
	main_stacks_conf(&mp, &c);
	c.ranks = mp.jobid != NULL;
	sr = stackrun_new(&c, NULL);
	stackrun_hooks(sr, &hooks);
	s = session_new(&mp.sc, &hooks);
	stackrun_set_session(sr, s);
	for (i = 0; i < n; i++)
		main_probes_add(&mp, s, hostlist_get(job->nodes, i));
	session_run(s);
	stackrun_settle(sr, clock_mono_ms());
	if ((t = stackrun_tree(sr)) != NULL) {
		if (o->json)
			stree_print_json(t, stdout, mp.jobid != NULL ?
			    mp.jobid : job->nodelist != NULL ? job->nodelist :
			    "");
		else
			stree_print_text(t, stdout, job->nodelist != NULL &&
			    mp.jobid == NULL ? job->nodelist : job->id);
		ret = stree_answered(t) ? 0 : MAIN_EXIT_FAIL;
		/* The tree says why on stdout, maybe into a file or a pipe:
		 * a failure is said on stderr too, in one line. */
		if (ret != 0 && (why = stree_failure(t, &who)) != NULL)
			log_error("--stacks: no node answered (%s%s: %s)", who,
			    n > 1 ? " and the others" : "", why);
	} else
		log_error("--stacks: interrupted before every node answered");
	if (fflush(stdout) != 0)
		ret = MAIN_EXIT_FAIL;
	stackrun_free(sr);
	session_free(s);
	main_probes_free(&mp);
	return ret;
}

/*
 * -r ARG: a recording's path, or, when no such file exists and ARG looks
 * like a job id or a node name (no '/'), the newest recording of that job
 * or node in the default directory.  The path (allocated), or NULL after
 * one line on stderr.
 */
static char *
main_replay_path(const char *arg)
{
	char		 err[PATH_MAX + 256], *path;

	if ((path = rec_resolve(arg, err, sizeof(err))) == NULL) {
		log_error("%s", err);
		return NULL;
	}
	log_debug("-r %s: %s", arg, path);
	return path;
}

/* Open the debug log that -v or --log asked for. */
static int
main_open_log(const struct main_opts *o)
{
	char	*path;

	if (!o->verbose)
		return 0;
	if (o->logpath != NULL)
		path = xstrdup(o->logpath);
	else if ((path = log_default_path()) == NULL) {
		log_error("no place for the log: set HOME or XDG_STATE_HOME, "
		    "or use --log FILE");
		return -1;
	}
	if (log_open(path) != 0) {
		log_error("cannot open the log %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* A settings file warning: one line on stderr, before any screen. */
static void
main_config_warn(void *arg, const char *line)
{
	log_error("warning: %s", line);
}

/*
 * The settings file (config.c), read once before any mode runs: a bad
 * line stops jobtop with FILE:LINE, as a bad option would.  Its values are
 * defaults, applied where the command line gave nothing.  Returns 0 or an
 * exit code after one line on stderr.
 */
static int
main_config(struct config *cfg)
{
	char	err[1024];

	config_init(cfg);
	if (config_load(cfg, NULL, main_config_warn, NULL, err,
	    sizeof(err)) != 0) {
		log_error("%s", err);
		config_free(cfg);
		return MAIN_EXIT_USAGE;
	}
	if (cfg->path != NULL)
		log_debug("settings from %s: transport %s", cfg->path,
		    cfg->transport != NULL ? cfg->transport : "(not set)");
	return 0;
}

int
main(int argc, char **argv)
{
	struct config		cfg;
	struct main_opts	o;
	struct job		job;
	char			*replay;
	size_t			i;
	int			rc;

	/* The remote transports (remote/ladder.c) for the core's lookups:
	 * --transport, the settings file, the ladder. */
	feed_register_transports(feed_transports);
	if (argc > 1 && strcmp(argv[1], "export") == 0)
		return export_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return report_main(argc - 1, argv + 1);
	if ((rc = main_parse(argc, argv, &o)) != 0)
		return rc > 0 ? 0 : MAIN_EXIT_USAGE;
	if (main_open_log(&o) != 0)
		return MAIN_EXIT_USAGE;
	log_debug("jobtop %s starting", JOBTOP_VERSION);
	if ((rc = main_config(&cfg)) != 0) {
		log_close();
		return rc;
	}
	/* The settings file's values, where the command line gave none;
	 * the UI takes its own (theme, sorts, fold, columns) from it. */
	if (o.transport == NULL && cfg.transport != NULL)
		o.transport = cfg.transport;
	if (!o.interval_set && cfg.interval > 0)
		o.interval = cfg.interval;
	o.settings = &cfg;

	if (o.decode) {
		if (o.hostlist != NULL || o.hostfile != NULL || o.nargs > 0 ||
		    o.list) {
			log_error("--decode reads standard input and takes no "
			    "nodes");
			rc = MAIN_EXIT_USAGE;
		} else
			rc = main_decode(&o);
		config_free(&cfg);
		log_close();
		return rc;
	}
	if (o.replay != NULL) {
		replay = NULL;
		if (o.hostlist != NULL || o.hostfile != NULL || o.nargs > 0 ||
		    o.list) {
			log_error("-r plays a recording and takes no nodes");
			rc = MAIN_EXIT_USAGE;
		} else if ((replay = main_replay_path(o.replay)) == NULL)
			rc = MAIN_EXIT_FAIL;
		else if (!o.batch) {
			o.replay = replay;
			rc = main_replay(&o);
		} else
			rc = export_file(replay, o.json ? EXPORT_JSON :
			    EXPORT_TEXT, stdout, o.count);
		free(replay);
		config_free(&cfg);
		log_close();
		return rc;
	}
	if (o.force && o.record == NULL) {
		log_error("--force goes with -o FILE (it lets -o replace a "
		    "recording)");
		config_free(&cfg);
		log_close();
		return MAIN_EXIT_USAGE;
	}
	sched_job_init(&job);
	if ((rc = main_resolve(&o, &job)) != 0) {
		sched_job_free(&job);
		config_free(&cfg);
		log_close();
		return rc;
	}
	log_debug("job %s (%s): %zu nodes %s", job.id, job.sched,
	    hostlist_count(job.nodes), job.nodelist ? job.nodelist : "");
	if (o.stacks && (o.explain || o.list)) {
		log_error("--stacks goes with neither --explain nor --list");
		rc = MAIN_EXIT_USAGE;
	} else if (o.stacks)
		rc = main_stacks(&o, &job);
	else if (o.explain && o.list) {
		log_error("--explain and --list do not go together");
		rc = MAIN_EXIT_USAGE;
	} else if (o.explain)
		rc = main_explain(&o, &job);
	else if (o.list) {
		for (i = 0; i < hostlist_count(job.nodes); i++)
			printf("%s\n", hostlist_get(job.nodes, i));
		rc = 0;
	} else {
		main_gpus(&job);
		rc = o.batch ? main_batch(&o, &job) : main_interactive(&o, &job);
	}
	sched_job_free(&job);
	config_free(&cfg);
	log_close();
	return rc;
}
