/* SPDX-License-Identifier: ISC */
/*
 * nfs: NFS client statistics per mount from /proc/self/mountstats, one
 * instance of group "nfs" per mount point (as the file writes it, a space
 * as "\040"; a point longer than an instance name keeps its tail after
 * "...").  The file lists the mounts of the probe's mount namespace, the
 * node's when it runs from sshd.  An NFS mount's entry looks like:
 *
 *	device srv:/export mounted on /home with fstype nfs4 statvers=1.1
 *		opts:	rw,vers=4.2,rsize=1048576,...
 *		bytes:	10 20 30 40 50 60 70 80
 *		RPC iostats version: 1.1  p/v: 100003/4 (nfs)
 *		xprt:	tcp 0 1 2 0 11 500 500 0 600 0 2 0 0
 *		per-op statistics
 *		        READ: 100 101 0 16000 409600 15 230 260 0
 *
 * "bytes:" holds normalreadbytes, normalwritebytes, directreadbytes,
 * directwritebytes, serverreadbytes, serverwritebytes, readpages and
 * writepages: read_bytes and write_bytes are what applications read and
 * wrote (normal plus O_DIRECT), server_read_bytes and server_write_bytes
 * what went over the wire in READ and WRITE.  A per-op line holds ops,
 * transmissions, major timeouts, bytes sent, bytes received, and the
 * cumulative queue, round-trip and execute times in milliseconds (then
 * errors, since Linux 5.x).  Sent per mount: READ and WRITE ops with their
 * RTT and execute times, GETATTR ops, and over all operations the ops, RTT
 * and execute times, retransmissions (transmissions minus ops, as
 * mountstats(8) counts them; the xprt line has no such count) and major
 * timeouts.  Mounts of one superblock share these counters.  The source
 * is on when the file lists an NFS mount at start-up; mounts that come and
 * go later appear and vanish.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

enum {
	NFS_READ_BYTES, NFS_WRITE_BYTES, NFS_SRV_READ_BYTES,
	NFS_SRV_WRITE_BYTES, NFS_READ_OPS, NFS_WRITE_OPS, NFS_READ_RTT,
	NFS_READ_EXE, NFS_WRITE_RTT, NFS_WRITE_EXE, NFS_GETATTR_OPS,
	NFS_OPS, NFS_RTT, NFS_EXE, NFS_RETRANS, NFS_TIMEOUTS, NFS_SERVER,
	NFS_FSTYPE, NFS_VERS, NFS_NFIELDS
};

static const struct field_def nfs_fields[NFS_NFIELDS] = {
	{ "read_bytes",		"bytes", PF_COUNTER },
	{ "write_bytes",	"bytes", PF_COUNTER },
	{ "server_read_bytes",	"bytes", PF_COUNTER },
	{ "server_write_bytes",	"bytes", PF_COUNTER },
	{ "read_ops",		"count", PF_COUNTER },
	{ "write_ops",		"count", PF_COUNTER },
	{ "read_rtt",		"ms",	 PF_COUNTER },
	{ "read_exe",		"ms",	 PF_COUNTER },
	{ "write_rtt",		"ms",	 PF_COUNTER },
	{ "write_exe",		"ms",	 PF_COUNTER },
	{ "getattr_ops",	"count", PF_COUNTER },
	{ "ops",		"count", PF_COUNTER },
	{ "rtt",		"ms",	 PF_COUNTER },
	{ "exe",		"ms",	 PF_COUNTER },
	{ "retrans",		"count", PF_COUNTER },
	{ "timeouts",		"count", PF_COUNTER },
	{ "server",		"",	 PF_STRING },
	{ "fstype",		"",	 PF_STRING },
	{ "vers",		"",	 PF_STRING },
};
static const struct group_def nfs_group = {
	"nfs", nfs_fields, NFS_NFIELDS
};
static const struct group_def *nfs_groups[] = { &nfs_group, NULL };

/* The per-op columns used. */
enum { OP_OPS, OP_TRANS, OP_TIMEOUTS, OP_SENT, OP_RECV, OP_QUEUE, OP_RTT,
    OP_EXE, OP_NCOLS };

/* The mount being parsed. */
struct nfs_mount {
	int		on;		/* an NFS mount with statistics */
	int		perop;		/* past "per-op statistics" */
	int		bytes;		/* its bytes: line was read */
	char		name[PROTO_NAME_MAX];
	char		server[PINST_STRLEN];
	char		fstype[16];
	char		vers[16];
	int64_t		v[NFS_NFIELDS];
};

static int		nfs_fd = -1;
static char		nfs_buf[64 * 1024];
static struct nfs_mount	nfs_cur;
static unsigned		nfs_nmounts;	/* NFS mounts last read */
static int		nfs_counting;	/* init: count, do not report */

/* Copy the space-delimited word at p into buf; the end of the word. */
static const char *
nfs_word(const char *p, char *buf, size_t size)
{
	size_t	n = strcspn(p, " \t\n");

	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), p);
	return p + n;
}

/* Report the mount parsed so far, if it is one. */
static void
nfs_finish(void)
{
	struct pinst	*pi;
	unsigned	 f;

	if (!nfs_cur.on)
		return;
	nfs_cur.on = 0;
	nfs_nmounts++;
	if (nfs_counting || !nfs_cur.bytes ||
	    (pi = probe_inst(&nfs_group, nfs_cur.name)) == NULL)
		return;
	for (f = 0; f < NFS_SERVER; f++)
		pinst_set(pi, f, nfs_cur.v[f]);
	pinst_set_str(pi, NFS_SERVER, nfs_cur.server);
	pinst_set_str(pi, NFS_FSTYPE, nfs_cur.fstype);
	if (nfs_cur.vers[0] != '\0')
		pinst_set_str(pi, NFS_VERS, nfs_cur.vers);
}

/* "device DEV mounted on MNT with fstype TYPE [statvers=1.1]" */
static void
nfs_device(const char *p)
{
	char		 mnt[1024];
	const char	*q;
	size_t		 n;

	memset(&nfs_cur, 0, sizeof(nfs_cur));
	p = nfs_word(p + 7, nfs_cur.server, sizeof(nfs_cur.server));
	if (strncmp(p, " mounted on ", 12) != 0)
		return;
	p = nfs_word(p + 12, mnt, sizeof(mnt));
	if (strncmp(p, " with fstype ", 13) != 0)
		return;
	p = nfs_word(p + 13, nfs_cur.fstype, sizeof(nfs_cur.fstype));
	if (strcmp(nfs_cur.fstype, "nfs") != 0 &&
	    strcmp(nfs_cur.fstype, "nfs4") != 0)
		return;
	q = probe_skip_space(p);
	if (strncmp(q, "statvers=", 9) != 0)
		return;
	if ((n = strlen(mnt)) >= sizeof(nfs_cur.name)) {
		memcpy(nfs_cur.name, "...", 3);
		memcpy(nfs_cur.name + 3, mnt + n - (sizeof(nfs_cur.name) - 4),
		    sizeof(nfs_cur.name) - 3);
	} else
		memcpy(nfs_cur.name, mnt, n + 1);
	nfs_cur.on = 1;
}

/* "opts:	rw,vers=4.2,...": the protocol version. */
static void
nfs_opts(const char *p)
{
	const char	*v;
	size_t		 n;

	if ((v = strstr(p, ",vers=")) == NULL)
		return;
	v += 6;
	n = strcspn(v, ", \t\n");
	if (n < sizeof(nfs_cur.vers))
		snprintf(nfs_cur.vers, sizeof(nfs_cur.vers), "%.*s", (int)n,
		    v);
}

/* "bytes:	N N N N N N N N" */
static void
nfs_bytes(const char *p)
{
	uint64_t	v[6];
	unsigned	i;

	for (i = 0; i < 6; i++) {
		if ((p = probe_parse_u64(p, &v[i])) == NULL)
			return;
	}
	nfs_cur.v[NFS_READ_BYTES] = (int64_t)(v[0] + v[2]);
	nfs_cur.v[NFS_WRITE_BYTES] = (int64_t)(v[1] + v[3]);
	nfs_cur.v[NFS_SRV_READ_BYTES] = (int64_t)v[4];
	nfs_cur.v[NFS_SRV_WRITE_BYTES] = (int64_t)v[5];
	nfs_cur.bytes = 1;
}

/* "READ: ops trans timeouts sent recv queue rtt exe [errors]" */
static void
nfs_op(const char *p)
{
	const char	*colon;
	uint64_t	 v[OP_NCOLS];
	size_t		 len;
	unsigned	 i;

	if ((colon = strchr(p, ':')) == NULL)
		return;
	len = (size_t)(colon - p);
	p = colon + 1;
	for (i = 0; i < OP_NCOLS; i++) {
		if ((p = probe_parse_u64(p, &v[i])) == NULL)
			return;
	}
	nfs_cur.v[NFS_OPS] += (int64_t)v[OP_OPS];
	nfs_cur.v[NFS_RTT] += (int64_t)v[OP_RTT];
	nfs_cur.v[NFS_EXE] += (int64_t)v[OP_EXE];
	nfs_cur.v[NFS_TIMEOUTS] += (int64_t)v[OP_TIMEOUTS];
	if (v[OP_TRANS] > v[OP_OPS])
		nfs_cur.v[NFS_RETRANS] += (int64_t)(v[OP_TRANS] - v[OP_OPS]);
	if (len == 4 && memcmp(colon - 4, "READ", 4) == 0) {
		nfs_cur.v[NFS_READ_OPS] = (int64_t)v[OP_OPS];
		nfs_cur.v[NFS_READ_RTT] = (int64_t)v[OP_RTT];
		nfs_cur.v[NFS_READ_EXE] = (int64_t)v[OP_EXE];
	} else if (len == 5 && memcmp(colon - 5, "WRITE", 5) == 0) {
		nfs_cur.v[NFS_WRITE_OPS] = (int64_t)v[OP_OPS];
		nfs_cur.v[NFS_WRITE_RTT] = (int64_t)v[OP_RTT];
		nfs_cur.v[NFS_WRITE_EXE] = (int64_t)v[OP_EXE];
	} else if (len == 7 && memcmp(colon - 7, "GETATTR", 7) == 0)
		nfs_cur.v[NFS_GETATTR_OPS] = (int64_t)v[OP_OPS];
}

/* One line of the file, NUL-terminated. */
static void
nfs_line(const char *line)
{
	const char	*p;

	if (strncmp(line, "device ", 7) == 0) {
		nfs_finish();
		nfs_device(line);
		return;
	}
	if (!nfs_cur.on)
		return;
	p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (nfs_cur.perop) {
		nfs_op(p);
		return;
	}
	if (strncmp(p, "opts:", 5) == 0)
		nfs_opts(p + 5);
	else if (strncmp(p, "bytes:", 6) == 0)
		nfs_bytes(p + 6);
	else if (strncmp(p, "per-op statistics", 17) == 0)
		nfs_cur.perop = 1;
}

/* Read the whole file in pieces, line by line; -1 when it cannot be. */
static int
nfs_read(void)
{
	char	*p, *nl;
	size_t	 have = 0;
	off_t	 off = 0;
	ssize_t	 n;

	memset(&nfs_cur, 0, sizeof(nfs_cur));
	nfs_nmounts = 0;
	for (;;) {
		n = pread(nfs_fd, nfs_buf + have, sizeof(nfs_buf) - 1 - have,
		    off);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		off += n;
		have += (size_t)n;
		nfs_buf[have] = '\0';
		for (p = nfs_buf; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
			*nl = '\0';
			nfs_line(p);
		}
		have -= (size_t)(p - nfs_buf);
		memmove(nfs_buf, p, have);
		/* A line longer than the buffer (opts of a mount with a
		 * huge option string) is dropped. */
		if (have == sizeof(nfs_buf) - 1)
			have = 0;
	}
	if (have > 0) {
		nfs_buf[have] = '\0';
		nfs_line(nfs_buf);
	}
	nfs_finish();
	return 0;
}

/* On when mountstats lists an NFS mount now. */
static int
nfs_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	int	n;

	if ((nfs_fd = probe_open("/proc/self/mountstats")) < 0) {
		snprintf(why, whysz, "no /proc/self/mountstats");
		return -1;
	}
	nfs_counting = 1;
	n = nfs_read();
	nfs_counting = 0;
	if (n < 0) {
		snprintf(why, whysz, "cannot read /proc/self/mountstats");
		close(nfs_fd);
		nfs_fd = -1;
		return -1;
	}
	if (nfs_nmounts == 0) {
		snprintf(why, whysz, "no NFS mounts");
		close(nfs_fd);
		nfs_fd = -1;
		return -1;
	}
	return 0;
}

/* Report every NFS mount mountstats lists. */
static void
nfs_sample(const struct probe_conf *conf)
{
	nfs_read();
}

const struct source src_nfs = {
	"nfs", nfs_groups, nfs_init, nfs_sample
};
