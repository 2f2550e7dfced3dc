/*
 * jobtop: the monitor's entry point.  Options are parsed into one struct,
 * the nodes are resolved from them (for now only the local machine: remote
 * nodes need the SSH transport), and one of three modes runs: batch mode
 * (probes as local children, one poll loop, records on stdout), --decode (a
 * probe stream on stdin printed as records) or --list.  Every user error is
 * one line on stderr and a non-zero exit: 2 for usage errors, 1 when a
 * probe or a stream fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "feed-local.h"
#include "log.h"
#include "out.h"
#include "proto.h"
#include "stream.h"
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
	int		 batch;
	int		 json;
	int		 decode;
	int		 list;
	int		 verbose;
	const char	*logpath;
	long long	 count;		/* samples per node, 0: no limit */
	double		 interval;	/* seconds */
	int		 nargs;
	char		**args;
};

enum main_state {
	MN_RUN,		/* sampling */
	MN_STOP,	/* stdin closed (or killed): waiting for it to end */
	MN_DONE,	/* output, stderr and the process all ended */
};

/* One node in batch mode: its transport, decoder and progress. */
struct main_node {
	char			*name;
	struct feed_local	*feed;
	struct stream		*st;
	enum main_state		 state;
	uint64_t		 samples;
	uint64_t		 deadline;	/* monotonic ms */
	int			 asked;		/* we stopped it */
	int			 killed;	/* we sent SIGKILL */
	int			 failed;
	int			 status;
};

static volatile sig_atomic_t	 main_quit;
static int			 main_sigfd[2] = { -1, -1 };
static int			 main_out_broken;

static void
main_usage(FILE *f)
{
	fprintf(f,
"usage: jobtop [-bv] [--json] [-d seconds] [-n count] -w hostlist\n"
"       jobtop --decode [--json] < stream\n"
"       jobtop --list -w hostlist\n"
"       jobtop --version | --help\n");
}

static void
main_help(void)
{
	main_usage(stdout);
	printf(
"\n"
"  -w, --nodes HOSTLIST  nodes to watch (for now: localhost or this host)\n"
"  -b, --batch           batch mode: print records instead of the screen\n"
"      --json            newline-delimited JSON records (implies -b)\n"
"  -n, --count N         stop after N samples\n"
"  -d, --delay SECONDS   sample interval (default 1, at least %.2g)\n"
"  -v, --verbose         debug log to $XDG_STATE_HOME/jobtop/jobtop.log\n"
"      --log FILE        debug log to FILE (implies -v)\n"
"      --decode          print the probe stream read from standard input\n"
"      --list            print the resolved node names and exit\n"
"  -V, --version         print the version and exit\n"
"  -h, --help            print this help and exit\n", MAIN_INTERVAL_MIN);
}

/* A copy of s safe to print: control bytes become '?'. */
static const char *
main_printable(char *buf, size_t size, const char *s)
{
	size_t	i;

	for (i = 0; i + 1 < size && s[i] != '\0'; i++)
		buf[i] = (unsigned char)s[i] < ' ' || s[i] == 0x7f ? '?' :
		    s[i];
	buf[i] = '\0';
	return buf;
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
	enum { OPT_JSON = 256, OPT_DECODE, OPT_LIST, OPT_LOG };
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
		{ NULL,		0,			NULL, 0 }
	};
	char	 buf[128];
	int	 ch;

	memset(o, 0, sizeof(*o));
	o->interval = 1.0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":w:bn:d:vVh", longopts, NULL))
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
				    "number of at least 1", main_printable(buf,
				    sizeof(buf), optarg));
				return -1;
			}
			break;
		case 'd':
			if (main_parse_interval(optarg, &o->interval) != 0) {
				log_error("bad interval '%s': give seconds "
				    "from %.2g to %.0f", main_printable(buf,
				    sizeof(buf), optarg), MAIN_INTERVAL_MIN,
				    MAIN_INTERVAL_MAX);
				return -1;
			}
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'V':
			printf("jobtop %s (protocol %d.%d)\n", JOBTOP_VERSION,
			    PROTO_MAJOR, PROTO_MINOR);
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
		case ':':
			log_error("option %s needs an argument (see jobtop "
			    "--help)", main_printable(buf, sizeof(buf),
			    argv[optind - 1]));
			return -1;
		default:
			if (optopt != 0 && optopt < 256)
				snprintf(buf, sizeof(buf), "-%c", optopt);
			else
				main_printable(buf, sizeof(buf),
				    argv[optind - 1]);
			log_error("unknown option %s (see jobtop --help)", buf);
			return -1;
		}
	}
	o->nargs = argc - optind;
	o->args = argv + optind;
	return 0;
}

/* Host names as they may appear in a hostlist entry. */
static int
main_host_ok(const char *h)
{
	size_t	len = strlen(h);

	return len > 0 && len < PROTO_HOST_MAX && h[0] != '-' &&
	    strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789.-_") == len;
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

/*
 * Resolve the -w value into node names.  For now a comma-separated list of
 * names of this machine; the hostlist syntax and remote nodes come with
 * the SSH transport.  Returns the count, or -1 after printing an error.
 */
static int
main_resolve_nodes(const char *hostlist, char ***out)
{
	char	**nodes = NULL, *copy, *p, *h, buf[PROTO_HOST_MAX];
	int	  n = 0, i;

	copy = xstrdup(hostlist);
	for (p = copy; (h = strsep(&p, ",")) != NULL; ) {
		if (!main_host_ok(h)) {
			if (*h == '\0')
				log_error("empty host name in '%s'",
				    main_printable(buf, sizeof(buf), hostlist));
			else if (strchr(h, '[') != NULL)
				log_error("%s: remote nodes need the SSH "
				    "transport", main_printable(buf,
				    sizeof(buf), hostlist));
			else
				log_error("bad host name '%s'",
				    main_printable(buf, sizeof(buf), h));
			goto fail;
		}
		if (!main_host_local(h)) {
			log_error("%s: remote nodes need the SSH transport", h);
			goto fail;
		}
		nodes = xreallocarray(nodes, (size_t)n + 1, sizeof(*nodes));
		nodes[n++] = xstrdup(h);
	}
	free(copy);
	*out = nodes;
	return n;

fail:
	for (i = 0; i < n; i++)
		free(nodes[i]);
	free(nodes);
	free(copy);
	return -1;
}

static uint64_t
main_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Flush stdout; a reader that went away stops the run. */
static void
main_flush(void)
{
	if (main_out_broken)
		return;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			log_error("stdout: %s", strerror(errno));
		main_out_broken = 1;
		main_quit = 1;
	}
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
		out->event(stdout, m, stream_event(st));
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
	if (main_out_broken)
		rc = MAIN_EXIT_FAIL;
	free(buf);
	stream_free(st);
	return rc;
}

static void
main_on_signal(int sig)
{
	int	save = errno;
	char	c = (char)sig;
	ssize_t	n;

	if (sig != SIGCHLD)
		main_quit = sig;
	/* A full pipe already holds a wake-up: the result does not matter. */
	n = write(main_sigfd[1], &c, 1);
	(void)n;
	errno = save;
}

/* Signals wake the poll loop through a self-pipe. */
static void
main_signals(void)
{
	struct sigaction	sa;

	if (pipe2(main_sigfd, O_CLOEXEC | O_NONBLOCK) != 0)
		fatal("pipe: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = main_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
}

/* A node failed: say so once, and make sure its probe ends. */
static void
main_node_fail(struct main_node *nd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
main_node_fail(struct main_node *nd, const char *fmt, ...)
{
	va_list	ap;
	char	msg[512];

	if (!nd->failed) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		main_flush();
		log_error("%s: %s", nd->name, msg);
		nd->failed = 1;
	}
	if (nd->state == MN_RUN) {
		nd->state = MN_STOP;
		nd->asked = 1;
		feed_local_stop(nd->feed);
	}
	if (!nd->killed) {
		feed_local_kill(nd->feed, SIGKILL);
		nd->killed = 1;
	}
}

/* Ask a node's probe to end by closing its input. */
static void
main_node_stop(struct main_node *nd, uint64_t now)
{
	if (nd->state != MN_RUN)
		return;
	feed_local_stop(nd->feed);
	nd->state = MN_STOP;
	nd->asked = 1;
	nd->deadline = now + MAIN_STOP_GRACE_MS;
}

/* Read what the probe sent and print what it decodes to. */
static void
main_node_read(struct main_node *nd, const struct main_opts *o,
    const struct output *out, uint8_t *buf, uint64_t now,
    uint64_t data_timeout)
{
	char	err[256];
	ssize_t	n;
	int	i, t;

	for (i = 0; i < 16; i++) {
		n = feed_local_read(nd->feed, buf, MAIN_READ_SIZE);
		if (n == -1)
			return;
		if (n == -2) {
			main_node_fail(nd, "reading from the probe: %s",
			    strerror(errno));
			return;
		}
		if (n == 0) {
			/* How it ended is judged once the process is gone. */
			if (stream_finish(nd->st) < 0)
				log_debug("%s: stream ended inside a frame",
				    nd->name);
			return;
		}
		if (nd->state == MN_RUN)
			nd->deadline = now + data_timeout;
		stream_feed(nd->st, buf, (size_t)n);
		while ((t = stream_next(nd->st)) > 0) {
			if (t == MSG_HELLO)
				log_debug("%s: HELLO from %s", nd->name,
				    model_name(stream_model(nd->st)));
			if (nd->state != MN_RUN)
				continue;
			main_emit(out, nd->st, t, 0);
			if (t == MSG_SAMPLE && ++nd->samples ==
			    (uint64_t)o->count)
				main_node_stop(nd, now);
		}
		if (t < 0) {
			stream_error(nd->st, err, sizeof(err));
			main_node_fail(nd, "probe stream: %s", err);
			return;
		}
	}
}

/* Once its process is gone: did the node end as asked? */
static void
main_node_judge(struct main_node *nd)
{
	const struct node_model	*m = stream_model(nd->st);
	const char		*why = feed_local_last_err(nd->feed);
	char			 how[128], serr[256];

	nd->state = MN_DONE;
	if (nd->failed || nd->asked)
		return;
	feed_local_describe(nd->status, how, sizeof(how));
	serr[0] = '\0';
	if (stream_finish(nd->st) < 0)
		stream_error(nd->st, serr, sizeof(serr));
	if (m->ended && nd->status == 0)
		main_node_fail(nd, "probe ended after %llu samples: %s",
		    (unsigned long long)nd->samples, m->bye_text);
	else
		main_node_fail(nd, "probe %s%s%s%s%s%s", how,
		    *why != '\0' ? ": " : "", why,
		    *serr != '\0' ? " (stream: " : "", serr,
		    *serr != '\0' ? ")" : "");
}

/* Batch mode: a probe per node, one poll loop, records on stdout. */
static int
main_batch(const struct main_opts *o, char **names, int nnodes)
{
	static char		 opt_interval[] = "--interval";
	const struct output	*out = o->json ? &out_json : &out_text;
	struct main_node	*nodes, *nd;
	struct pollfd		*pfd;
	int			*pfd_node;	/* pfd index -> node */
	char			*probe, err[512], ivl[32], *argv[4];
	uint8_t			*buf;
	uint64_t		 now, next, data_timeout;
	int			 i, k, np, left, rc = 0, timeout, fd;
	char			 drain[64];

	if ((probe = feed_local_find_probe(err, sizeof(err))) == NULL) {
		log_error("%s", err);
		return MAIN_EXIT_FAIL;
	}
	main_signals();
	signal(SIGPIPE, SIG_IGN);
	snprintf(ivl, sizeof(ivl), "%.3f", o->interval);
	argv[0] = probe;
	argv[1] = opt_interval;
	argv[2] = ivl;
	argv[3] = NULL;
	data_timeout = 5000 + (uint64_t)(o->interval * 3000);

	nodes = xcalloc((size_t)nnodes, sizeof(*nodes));
	pfd = xcalloc(1 + 2 * (size_t)nnodes, sizeof(*pfd));
	pfd_node = xcalloc(1 + 2 * (size_t)nnodes, sizeof(*pfd_node));
	buf = xmalloc(MAIN_READ_SIZE);
	now = main_now_ms();
	for (i = 0; i < nnodes; i++) {
		nd = &nodes[i];
		nd->name = names[i];
		nd->st = stream_new(names[i]);
		nd->deadline = now + data_timeout;
		if ((nd->feed = feed_local_start(probe, argv, err,
		    sizeof(err))) == NULL) {
			log_error("%s: %s", nd->name, err);
			nd->failed = 1;
			nd->state = MN_DONE;
		}
	}

	for (;;) {
		now = main_now_ms();
		if (main_quit) {
			for (i = 0; i < nnodes; i++)
				main_node_stop(&nodes[i], now);
		}
		left = 0;
		next = UINT64_MAX;
		pfd[0].fd = main_sigfd[0];
		pfd[0].events = POLLIN;
		np = 1;
		for (i = 0; i < nnodes; i++) {
			nd = &nodes[i];
			if (nd->state == MN_DONE)
				continue;
			if (feed_local_out_fd(nd->feed) < 0 &&
			    feed_local_err_fd(nd->feed) < 0 &&
			    feed_local_reap(nd->feed, &nd->status)) {
				main_node_judge(nd);
				continue;
			}
			left++;
			if (nd->deadline <= now) {
				if (nd->state == MN_RUN)
					main_node_fail(nd, "no data from the "
					    "probe for %.1f seconds",
					    data_timeout / 1000.0);
				else if (!nd->killed) {
					log_warn("%s: probe did not stop; "
					    "killing it", nd->name);
					feed_local_kill(nd->feed, SIGKILL);
					nd->killed = 1;
				}
				nd->deadline = now + MAIN_STOP_GRACE_MS;
			}
			if (nd->deadline < next)
				next = nd->deadline;
			if ((fd = feed_local_out_fd(nd->feed)) >= 0) {
				pfd_node[np] = i;
				pfd[np].fd = fd;
				pfd[np++].events = POLLIN;
			}
			if ((fd = feed_local_err_fd(nd->feed)) >= 0) {
				pfd_node[np] = i;
				pfd[np].fd = fd;
				pfd[np++].events = POLLIN;
			}
		}
		if (left == 0)
			break;
		timeout = next == UINT64_MAX ? -1 : next <= now ? 0 :
		    (int)(next - now);
		if (poll(pfd, (nfds_t)np, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %s", strerror(errno));
		}
		now = main_now_ms();
		if (pfd[0].revents != 0) {
			while (read(main_sigfd[0], drain, sizeof(drain)) > 0)
				;
		}
		for (k = 1; k < np; k++) {
			if (pfd[k].revents == 0)
				continue;
			nd = &nodes[pfd_node[k]];
			if (pfd[k].fd == feed_local_out_fd(nd->feed))
				main_node_read(nd, o, out, buf, now,
				    data_timeout);
			else if (pfd[k].fd == feed_local_err_fd(nd->feed))
				feed_local_read_err(nd->feed);
		}
		main_flush();
	}
	main_flush();

	for (i = 0; i < nnodes; i++) {
		nd = &nodes[i];
		if (nd->failed)
			rc = MAIN_EXIT_FAIL;
		feed_local_free(nd->feed);
		stream_free(nd->st);
	}
	if (main_out_broken)
		rc = MAIN_EXIT_FAIL;
	free(nodes);
	free(pfd);
	free(pfd_node);
	free(buf);
	free(probe);
	return rc;
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

int
main(int argc, char **argv)
{
	struct main_opts	  o;
	char			**nodes = NULL, buf[128];
	int			  nnodes = 0, i, rc;

	if ((rc = main_parse(argc, argv, &o)) != 0)
		return rc > 0 ? 0 : MAIN_EXIT_USAGE;
	if (main_open_log(&o) != 0)
		return MAIN_EXIT_USAGE;
	log_debug("jobtop %s starting", JOBTOP_VERSION);

	if (o.decode) {
		if (o.hostlist != NULL || o.nargs > 0 || o.list) {
			log_error("--decode reads standard input and takes no "
			    "nodes");
			rc = MAIN_EXIT_USAGE;
		} else
			rc = main_decode(&o);
		log_close();
		return rc;
	}
	if (o.nargs > 0) {
		log_error("%s: job lookup is not built yet; use -w HOSTLIST",
		    main_printable(buf, sizeof(buf), o.args[0]));
		return MAIN_EXIT_USAGE;
	}
	if (o.hostlist == NULL) {
		log_error("no nodes: give -w HOSTLIST (job ids are not "
		    "supported yet)");
		return MAIN_EXIT_USAGE;
	}
	if ((nnodes = main_resolve_nodes(o.hostlist, &nodes)) < 0)
		return MAIN_EXIT_USAGE;
	if (o.list) {
		for (i = 0; i < nnodes; i++)
			printf("%s\n", nodes[i]);
		rc = 0;
	} else if (!o.batch) {
		log_error("the interactive monitor is not built yet; use -b");
		rc = MAIN_EXIT_USAGE;
	} else
		rc = main_batch(&o, nodes, nnodes);
	for (i = 0; i < nnodes; i++)
		free(nodes[i]);
	free(nodes);
	log_close();
	return rc;
}
