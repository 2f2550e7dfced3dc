/* SPDX-License-Identifier: ISC */
/*
 * rec-write: the recorder.  Bytes from each node are cut at frame
 * boundaries (a partial frame waits for the rest) and written as DATA
 * blocks, each block one write() at the end of the file, so a monitor
 * killed at any moment leaves whole blocks and at most one torn one.
 * Earlier bytes are never rewritten.
 *
 * The keyframes (the node's HELLO and SCHEMA frames and a synthetic
 * SAMPLE pair re-encoded from a model) rebuild the state of a decoder
 * that read every frame written: the live session's (rec_set_models; the
 * session decodes each byte right after the recorder took it, so its
 * model is what a reader holds after the same blocks: one decoder per
 * node), or, without it, a decoder of the recorder's own.  An
 * INDEX block follows each keyframe set; the close writes a full index and
 * a fixed-size tail that points at it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "model.h"
#include "outfile.h"
#include "rec.h"
#include "xmalloc.h"

#ifndef JOBTOP_VERSION
#define JOBTOP_VERSION "0"
#endif

/* Frames written per DATA block at most (a frame may exceed it alone). */
#define REC_DATA_MAX		(1u << 20)
/* Entries an INDEX block covers before it is chained behind the next. */
#define REC_INDEX_GROUP		32
#define REC_PREFIX_MAX		32	/* node and time varints */
/*
 * Blocks are gathered and written together, not a write per block: at
 * 1024 nodes a write per node sample was about a tenth of the monitor's
 * CPU.  They go out when this much is waiting, when a block does not fit,
 * at every rec_tick (once per loop pass: the loop paces its passes at a
 * tenth of the interval past 64 nodes), and before anything the caller
 * prints (rec_flush: batch mode's stdout flushes the recording first, so a
 * run killed with SIGKILL still leaves every sample it printed).
 */
#define REC_OUT_MAX		(64u << 10)

/* One node as the recorder tracks it. */
struct rec_wnode {
	struct stream	*st;		/* decodes what was written
					 * (NULL: rec_set_models) */
	uint8_t		*pend;		/* an incomplete frame */
	size_t		 pendlen;
	size_t		 pendcap;
	uint8_t		*hello;		/* the stream's raw HELLO frame */
	size_t		 hellolen;
	const uint8_t	*schema;	/* and its raw SCHEMA frame, */
	size_t		 schemalen;	/* shared (rec_share) */
	uint64_t	 stream_off;	/* bytes of this stream written */
	int		 broken;	/* framing broke: raw from here on */
	int		 failed;	/* the decoder refused a frame */
};

/* A frame that many nodes send alike (their SCHEMA: a job's nodes run
 * the same probe with the same sources), kept once for all of them. */
struct rec_shared {
	uint8_t		*p;		/* NULL: a free slot */
	size_t		 len;
	unsigned	 refs;
};

struct rec {
	int		 fd;
	char		*path;
	uint64_t	 off;		/* bytes written, or waiting in out */
	uint64_t	 ondisk;	/* bytes written (off - outlen) */
	uint8_t		*out;		/* blocks waiting to be written */
	size_t		 outlen;
	uint64_t	 start_ms;
	uint32_t	 keyframe_ms;
	uint64_t	 next_key;
	uint64_t	 next_sync;
	uint64_t	 synced;	/* offset flushed so far */
	uint64_t	 last_ms;	/* time of the last timed block */
	int		 dirty;		/* data since the last keyframe */
	unsigned	 nnodes;
	char		**names;
	struct rec_wnode *nodes;

	struct rec_index_entry *idx;
	size_t		 nidx;
	size_t		 capidx;
	size_t		 igroup;	/* first entry of the open group */
	uint64_t	 ichain;	/* INDEX block that closed a group */

	struct rec_shared *shared;
	size_t		 nshared;
	uint8_t		*scratch;	/* keyframes and indexes */
	size_t		 scratchcap;
	/* The live decoders' models (rec_set_models), else NULL. */
	const struct node_model *(*models)(void *, unsigned);
	void		*models_arg;
	int		 stopped;
	char		 err[PATH_MAX + 128];
	char		 warn[PATH_MAX + 128];
};

void
rec_meta_init(struct rec_meta *m, uint64_t now)
{
	struct passwd	*pw;
	const char	*user;

	memset(m, 0, sizeof(*m));
	m->start_ms = now;
	m->interval_ms = 1000;
	m->keyframe_ms = REC_KEYFRAME_MS;
	m->ntasks = -1;
	m->time_limit = REC_LIMIT_UNKNOWN;
	m->major = REC_MAJOR;
	m->minor = REC_MINOR;
	snprintf(m->version, sizeof(m->version), "%s", JOBTOP_VERSION);
	if ((pw = getpwuid(getuid())) != NULL)
		user = pw->pw_name;
	else if ((user = getenv("USER")) == NULL)
		user = "";
	snprintf(m->user, sizeof(m->user), "%s", user);
	if (gethostname(m->host, sizeof(m->host)) != 0)
		m->host[0] = '\0';
	m->host[sizeof(m->host) - 1] = '\0';
}

void
rec_meta_set_nodes(struct rec_meta *m, unsigned n, const char *const *names)
{
	unsigned	i;

	rec_meta_free(m);
	m->nnodes = n;
	m->nodes = xcalloc(n, sizeof(*m->nodes));
	for (i = 0; i < n; i++)
		m->nodes[i] = xstrdup(names[i]);
}

void
rec_meta_free(struct rec_meta *m)
{
	unsigned	i;

	for (i = 0; i < m->nnodes; i++)
		free(m->nodes[i]);
	free(m->nodes);
	free(m->gpus);
	m->nodes = NULL;
	m->gpus = NULL;
	m->nnodes = 0;
}
/* A name safe in a file name: letters, digits, dot, dash, underscore. */
static void
rec_file_tag(char *dst, size_t size, const char *tag)
{
	static const char	ok[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t			i;

	for (i = 0; i + 1 < size && tag != NULL && tag[i] != '\0'; i++)
		dst[i] = strchr(ok, tag[i]) != NULL ? tag[i] : '_';
	dst[i] = '\0';
	if (i == 0 || dst[0] == '.')
		snprintf(dst, size, "jobtop");
}

/* The default directory: $XDG_STATE_HOME/jobtop or ~/.local/state/jobtop.
 * Allocated; NULL without a home. */
static char *
rec_default_dir(void)
{
	const char	*state, *home;

	if ((state = getenv("XDG_STATE_HOME")) != NULL && state[0] == '/')
		return xasprintf("%s/jobtop", state);
	if ((home = getenv("HOME")) == NULL || home[0] != '/')
		return NULL;
	return xasprintf("%s/.local/state/jobtop", home);
}

char *
rec_default_path(const char *tag, uint64_t start_ms)
{
	char		*dir, *path, name[64], stamp[32];
	struct tm	 tm;
	time_t		 t = (time_t)(start_ms / 1000);

	rec_file_tag(name, sizeof(name), tag);
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm) == 0)
		snprintf(stamp, sizeof(stamp), "%llu",
		    (unsigned long long)(start_ms / 1000));
	if ((dir = rec_default_dir()) == NULL)
		return NULL;
	path = xasprintf("%s/%s-%s.jtr", dir, name, stamp);
	free(dir);
	return path;
}

/*
 * Does a name in the default directory belong to tag: "TAG-YYYYmmdd-
 * HHMMSS.jtr" or "TAG-YYYYmmdd-HHMMSS-N.jtr"?  Its time stamp (15 bytes)
 * into stamp and N (1 without) into *n.
 */
static int
rec_name_of(const char *name, const char *tag, char stamp[16], long *n)
{
	size_t		 tl = strlen(tag), i;
	const char	*p;
	char		*end;

	if (strncmp(name, tag, tl) != 0 || name[tl] != '-')
		return 0;
	p = name + tl + 1;
	for (i = 0; i < 15; i++) {
		if (i == 8 ? p[i] != '-' : (p[i] < '0' || p[i] > '9'))
			return 0;
	}
	memcpy(stamp, p, 15);
	stamp[15] = '\0';
	p += 15;
	*n = 1;
	if (*p == '-') {
		if (p[1] < '1' || p[1] > '9')
			return 0;
		*n = strtol(p + 1, &end, 10);
		p = end;
	}
	return strcmp(p, ".jtr") == 0;
}

char *
rec_find_latest(const char *id, char *err, size_t errsz)
{
	struct dirent	*de;
	DIR		*d;
	char		*dir, *path, *best = NULL, tag[64], stamp[16];
	char		 bstamp[16];
	long		 n, bn = 0;

	rec_file_tag(tag, sizeof(tag), id);
	if ((dir = rec_default_dir()) == NULL) {
		snprintf(err, errsz, "no recordings directory (set HOME or "
		    "XDG_STATE_HOME)");
		return NULL;
	}
	if ((d = opendir(dir)) == NULL) {
		snprintf(err, errsz, "no recording of %s in %s (%s)", tag, dir,
		    strerror(errno));
		free(dir);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (!rec_name_of(de->d_name, tag, stamp, &n))
			continue;
		if (best != NULL && (strcmp(stamp, bstamp) < 0 ||
		    (strcmp(stamp, bstamp) == 0 && n <= bn)))
			continue;
		free(best);
		best = xstrdup(de->d_name);
		memcpy(bstamp, stamp, sizeof(bstamp));
		bn = n;
	}
	closedir(d);
	if (best == NULL) {
		snprintf(err, errsz, "no recording of %s in %s", tag, dir);
		free(dir);
		return NULL;
	}
	path = xasprintf("%s/%s", dir, best);
	free(best);
	free(dir);
	return path;
}

char *
rec_resolve(const char *arg, char *err, size_t errsz)
{
	struct stat	 st;
	char		 why[PATH_MAX + 128], *path;

	if (lstat(arg, &st) == 0 || errno != ENOENT || arg[0] == '\0' ||
	    strchr(arg, '/') != NULL || arg[0] == '.' ||
	    strlen(arg) > 63 || strspn(arg, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-[]") != strlen(arg))
		return xstrdup(arg);
	if ((path = rec_find_latest(arg, why, sizeof(why))) == NULL) {
		snprintf(err, errsz, "%s: no such file, and %s", arg, why);
		return NULL;
	}
	return path;
}

/* Stop recording after a write error: say why once. */
static void
rec_stop(struct rec *r, int err)
{
	if (r->stopped)
		return;
	r->stopped = 1;
	snprintf(r->err, sizeof(r->err), "%s (%s)", strerror(err), r->path);
}

/* Write iov completely after what waits in out; on failure cut the file
 * back to what was written before (a torn block must not stay) and
 * stop. */
static int
rec_writev(struct rec *r, struct iovec *iov, int n)
{
	size_t	total = 0, left;
	ssize_t	w;
	int	i, err;

	for (i = 0; i < n; i++)
		total += iov[i].iov_len;
	left = total;
	while (left > 0) {
		w = writev(r->fd, iov, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : ENOSPC;
			if (ftruncate(r->fd, (off_t)r->ondisk) == 0)
				lseek(r->fd, (off_t)r->ondisk, SEEK_SET);
			r->off = r->ondisk;
			r->outlen = 0;
			rec_stop(r, err);
			return -1;
		}
		left -= (size_t)w;
		while (n > 0 && (size_t)w >= iov[0].iov_len) {
			w -= (ssize_t)iov[0].iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov[0].iov_base = (uint8_t *)iov[0].iov_base + w;
			iov[0].iov_len -= (size_t)w;
		}
	}
	r->ondisk += total;
	return 0;
}

/* What waits in out, to the file. */
static int
rec_write_out(struct rec *r)
{
	struct iovec	iov;

	if (r->outlen == 0)
		return 0;
	iov.iov_base = r->out;
	iov.iov_len = r->outlen;
	r->outlen = 0;
	return rec_writev(r, &iov, 1);
}

int
rec_flush(struct rec *r)
{
	if (r == NULL || r->stopped || r->outlen == 0)
		return 0;
	return rec_write_out(r);
}

/* One block: header (type, length, CRC of both and the payload), then the
 * payload in two pieces, gathered in out (a block too big for it goes
 * out on its own). */
static int
rec_write_block(struct rec *r, uint8_t type, const void *a, size_t alen,
    const void *b, size_t blen)
{
	uint8_t		hdr[REC_BLOCK_HDR_MAX];
	struct wbuf	w;
	struct iovec	iov[3];
	uint32_t	crc;
	size_t		vlen, total;

	if (r->stopped)
		return -1;
	if (alen + blen > REC_BLOCK_MAX)
		return WIRE_ERR_TOOBIG;
	wbuf_init(&w, hdr, sizeof(hdr));
	wire_put_u8(&w, type);
	wire_put_varint(&w, alen + blen);
	vlen = w.len;
	crc = wire_crc32c(0, hdr, vlen);
	crc = wire_crc32c(crc, a, alen);
	crc = wire_crc32c(crc, b, blen);
	hdr[vlen] = (uint8_t)crc;
	hdr[vlen + 1] = (uint8_t)(crc >> 8);
	hdr[vlen + 2] = (uint8_t)(crc >> 16);
	hdr[vlen + 3] = (uint8_t)(crc >> 24);
	total = vlen + 4 + alen + blen;
	if (r->outlen + total > REC_OUT_MAX && rec_write_out(r) != 0)
		return -1;
	r->off += total;
	if (total <= REC_OUT_MAX) {
		if (r->out == NULL)
			r->out = xmalloc(REC_OUT_MAX);
		memcpy(r->out + r->outlen, hdr, vlen + 4);
		if (alen > 0)
			memcpy(r->out + r->outlen + vlen + 4, a, alen);
		if (blen > 0)
			memcpy(r->out + r->outlen + vlen + 4 + alen, b, blen);
		r->outlen += total;
		return 0;
	}
	iov[0].iov_base = hdr;
	iov[0].iov_len = vlen + 4;
	iov[1].iov_base = (void *)(uintptr_t)a;
	iov[1].iov_len = alen;
	iov[2].iov_base = (void *)(uintptr_t)b;
	iov[2].iov_len = blen;
	return rec_writev(r, iov, blen > 0 ? 3 : 2);
}

int
rec_put_block(struct rec *r, uint8_t type, const void *p, size_t len)
{
	return rec_write_block(r, type, p, len, NULL, 0) == 0 ? 0 : -1;
}

/* Node index and time relative to the start: the head of timed blocks. */
static size_t
rec_prefix(struct rec *r, uint8_t *buf, uint64_t node, uint64_t now)
{
	struct wbuf	w;

	wbuf_init(&w, buf, REC_PREFIX_MAX);
	wire_put_varint(&w, node);
	wire_put_svarint(&w, (int64_t)(now - r->start_ms));
	if (r->last_ms < now)
		r->last_ms = now;
	return w.len;
}

/* DATA blocks of bytes as they are. */
static int
rec_put_data(struct rec *r, unsigned i, uint64_t now, const void *p,
    size_t n)
{
	const uint8_t	*b = p;
	uint8_t		 pre[REC_PREFIX_MAX];
	size_t		 plen, k;

	r->dirty |= n > 0;
	while (n > 0) {
		k = n > REC_DATA_MAX ? REC_DATA_MAX : n;
		plen = rec_prefix(r, pre, i, now);
		if (rec_write_block(r, REC_BLK_DATA, pre, plen, b, k) != 0)
			return -1;
		r->nodes[i].stream_off += k;
		b += k;
		n -= k;
	}
	return 0;
}

/* A subject field: 0 for none (negative), else the value + 1. */
static uint64_t
rec_plus_one(int64_t v)
{
	return v < 0 ? 0 : (uint64_t)v + 1;
}

/* An EVENT block; node REC_NODE_NONE is the job.  The subject trails
 * the text (minor 2), where readers of minor 1 stop reading. */
static int
rec_put_event(struct rec *r, unsigned node, uint64_t now, uint8_t level,
    const char *code, const char *text, const struct rec_subject *sj)
{
	uint8_t			 buf[REC_PREFIX_MAX + 2 * 3 + PROTO_NAME_MAX +
				    PROTO_TEXT_MAX + 3 * 10];
	struct rec_subject	 none;
	struct wbuf		 w;
	size_t			 clen, tlen;

	if (sj == NULL) {
		rec_subject_none(&none);
		sj = &none;
	}
	clen = strnlen(code, PROTO_NAME_MAX - 1);
	tlen = strnlen(text, PROTO_TEXT_MAX - 1);
	wbuf_init(&w, buf, sizeof(buf));
	w.len = rec_prefix(r, buf, node == REC_NODE_NONE ? 0 :
	    (uint64_t)node + 1, now);
	wire_put_u8(&w, level);
	wire_put_strn(&w, code, clen);
	wire_put_strn(&w, text, tlen);
	wire_put_varint(&w, rec_plus_one(sj->rank));
	wire_put_varint(&w, rec_plus_one(sj->pid));
	wire_put_varint(&w, rec_plus_one(sj->phase));
	return rec_write_block(r, REC_BLK_EVENT, buf, w.len, NULL, 0);
}

/* Keep a copy of a raw frame (HELLO, SCHEMA) for keyframes. */
static void
rec_keep(uint8_t **dst, size_t *dstlen, const uint8_t *p, size_t n)
{
	free(*dst);
	*dst = xmalloc(n);
	memcpy(*dst, p, n);
	*dstlen = n;
}

/* A copy of frame p shared by every node that sent the same bytes (one
 * SCHEMA copy for a thousand nodes instead of 1.6 KiB each). */
static const uint8_t *
rec_share(struct rec *r, const uint8_t *p, size_t n)
{
	struct rec_shared	*sh, *slot = NULL;
	size_t			 i;

	for (i = 0; i < r->nshared; i++) {
		sh = &r->shared[i];
		if (sh->p == NULL)
			slot = slot != NULL ? slot : sh;
		else if (sh->len == n && memcmp(sh->p, p, n) == 0) {
			sh->refs++;
			return sh->p;
		}
	}
	if (slot == NULL) {
		r->shared = xreallocarray(r->shared, r->nshared + 1,
		    sizeof(*r->shared));
		slot = &r->shared[r->nshared++];
	}
	slot->p = xmalloc(n);
	memcpy(slot->p, p, n);
	slot->len = n;
	slot->refs = 1;
	return slot->p;
}

/* A node lets go of its shared frame p (NULL: it had none). */
static void
rec_unshare(struct rec *r, const uint8_t *p)
{
	size_t	i;

	for (i = 0; p != NULL && i < r->nshared; i++) {
		if (r->shared[i].p != p)
			continue;
		if (--r->shared[i].refs == 0) {
			free(r->shared[i].p);
			r->shared[i].p = NULL;
		}
		return;
	}
}

/* Feed written frames to the node's decoder; the first refusal becomes an
 * event, as it did for the live decoder. */
static void
rec_decode(struct rec *r, unsigned i, uint64_t now, const uint8_t *p,
    size_t n)
{
	struct rec_wnode	*wn = &r->nodes[i];
	char			 err[256];
	int			 t;

	if (wn->failed || n == 0 || wn->st == NULL)
		return;
	stream_feed(wn->st, p, n);
	while ((t = stream_next(wn->st)) > 0)
		;
	if (t < 0) {
		wn->failed = 1;
		stream_error(wn->st, err, sizeof(err));
		rec_put_event(r, i, now, EV_ERROR, "stream-error", err, NULL);
	}
}

/* Write [from, to) of p as frames and decode them. */
static int
rec_put_frames_span(struct rec *r, unsigned i, uint64_t now,
    const uint8_t *p, size_t from, size_t to)
{
	if (to <= from)
		return 0;
	if (rec_put_data(r, i, now, p + from, to - from) != 0)
		return -1;
	rec_decode(r, i, now, p + from, to - from);
	return 0;
}

/*
 * Write the complete frames at the start of p and return how many bytes
 * they take; what follows is an incomplete frame.  When the framing
 * breaks, everything from there is written raw and the node stays raw.
 */
static size_t
rec_put_frames(struct rec *r, unsigned i, uint64_t now, const uint8_t *p,
    size_t n)
{
	struct rec_wnode	*wn = &r->nodes[i];
	struct proto_frame	 f;
	char			 text[128];
	size_t			 off = 0, chunk = 0, used;
	int			 rc;

	while (off < n) {
		rc = proto_frame_parse(p + off, n - off, &f, &used);
		if (rc == WIRE_ERR_TRUNC)
			break;
		if (rc != WIRE_OK) {
			if (rec_put_frames_span(r, i, now, p, chunk, off) != 0)
				return n;
			snprintf(text, sizeof(text), "bad frame at byte %llu: "
			    "%s", (unsigned long long)wn->stream_off,
			    wire_strerror(rc));
			wn->broken = 1;
			rec_put_event(r, i, now, EV_ERROR, "stream-broken",
			    text, NULL);
			rec_put_data(r, i, now, p + off, n - off);
			return n;
		}
		if (f.type == MSG_HELLO && wn->hello == NULL)
			rec_keep(&wn->hello, &wn->hellolen, p + off, used);
		else if (f.type == MSG_SCHEMA && wn->schema == NULL) {
			wn->schema = rec_share(r, p + off, used);
			wn->schemalen = used;
		}
		if (off > chunk && off + used - chunk > REC_DATA_MAX) {
			if (rec_put_frames_span(r, i, now, p, chunk, off) != 0)
				return n;
			chunk = off;
		}
		off += used;
	}
	rec_put_frames_span(r, i, now, p, chunk, off);
	return off;
}

/* Keep bytes of an incomplete frame. */
static void
rec_pend(struct rec_wnode *wn, const uint8_t *p, size_t n)
{
	if (n > wn->pendcap - wn->pendlen) {
		while (n > wn->pendcap - wn->pendlen)
			wn->pendcap = wn->pendcap == 0 ? 256 : wn->pendcap * 2;
		wn->pend = xreallocarray(wn->pend, wn->pendcap, 1);
	}
	memcpy(wn->pend + wn->pendlen, p, n);
	wn->pendlen += n;
}

/* Grow the scratch buffer to at least n bytes. */
static void
rec_scratch(struct rec *r, size_t n)
{
	if (r->scratchcap >= n)
		return;
	free(r->scratch);
	r->scratch = xmalloc(n);
	r->scratchcap = n;
}

/* The integer fields of an instance's group. */
static uint64_t
rec_intmask(const struct minst *mi)
{
	uint64_t	all;

	all = mi->nfields >= 64 ? ~(uint64_t)0 :
	    ((uint64_t)1 << mi->nfields) - 1;
	return all & ~mi->mg->strmask;
}

/*
 * The model as two SAMPLE frames: the first adds every instance in its
 * group's order with the previous sample's integer values (a gauge's
 * current one: only counters keep a past, for their rates), the second
 * moves them to the current values and sets the strings.  A decoder that
 * reads both has the same values, rates, order and time as the model.
 */
static int
rec_key_samples(struct wbuf *w, const struct node_model *m)
{
	struct proto_sample_wr	 sw;
	const struct minst	*mi;
	const char		*s;
	uint64_t		 im, seq, pm;
	unsigned		 g, f;
	int64_t			 dt, prev[PROTO_MAX_FIELDS];

	seq = m->seq > 0 ? m->seq - 1 : 0;
	dt = (int64_t)(m->time_ms - (uint64_t)m->dt_ms - m->hello.start_ms);
	proto_sample_begin(&sw, w, seq, dt);
	for (g = 0; g < m->schema->ngroups; g++) {
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			im = rec_intmask(mi);
			pm = model_prev_values(mi, prev) & im;
			proto_sample_add(&sw, mi->id, g, mi->name);
			proto_sample_diff(&sw, mi->id, im, prev, 0, prev, pm);
		}
	}
	if (proto_sample_end(&sw) != WIRE_OK)
		return -1;
	proto_sample_begin(&sw, w, m->seq, m->dt_ms);
	for (g = 0; g < m->schema->ngroups; g++) {
		for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
			im = rec_intmask(mi);
			pm = model_prev_values(mi, prev) & im;
			proto_sample_diff(&sw, mi->id, im, prev, pm, mi->v,
			    mi->curp & im);
			for (f = 0; f < mi->nfields; f++) {
				if ((s = model_str(mi, f)) != NULL)
					proto_sample_str(&sw, mi->id, f, s,
					    strlen(s));
			}
		}
	}
	return proto_sample_end(&sw) == WIRE_OK ? 0 : -1;
}

/* One node's KEY block. */
static int
rec_put_key(struct rec *r, unsigned i, uint64_t now)
{
	struct rec_wnode	*wn = &r->nodes[i];
	const struct node_model	*m;
	struct wbuf		 w;
	size_t			 need, state_at, frames_at;

	need = REC_PREFIX_MAX + 1 + wn->hellolen + wn->schemalen +
	    2 * (PROTO_FRAME_MAX + PROTO_FRAME_HDR_MAX) + PROTO_TEXT_MAX + 16;
	rec_scratch(r, need);
	wbuf_init(&w, r->scratch, need);
	w.len = rec_prefix(r, r->scratch, i, now);
	state_at = w.len;
	wire_put_u8(&w, REC_KEY_EMPTY);
	frames_at = w.len;
	m = r->models != NULL ? r->models(r->models_arg, i) :
	    stream_model(wn->st);
	if (wn->broken || wn->failed || m == NULL)
		r->scratch[state_at] = REC_KEY_BROKEN;
	else if (m->have_hello && wn->hello != NULL) {
		r->scratch[state_at] = REC_KEY_STREAM;
		wire_put_bytes(&w, wn->hello, wn->hellolen);
		if (m->schema != NULL && wn->schema != NULL) {
			wire_put_bytes(&w, wn->schema, wn->schemalen);
			if (m->nsamples > 0 && rec_key_samples(&w, m) != 0) {
				w.err = WIRE_OK;
				w.len = frames_at;
				r->scratch[state_at] = REC_KEY_NOSTATE;
			}
		}
		if (m->ended && r->scratch[state_at] == REC_KEY_STREAM)
			proto_put_bye(&w, m->bye_code, m->bye_text != NULL ?
			    m->bye_text : "");
	}
	if (w.err != WIRE_OK) {
		w.len = frames_at;
		r->scratch[state_at] = REC_KEY_NOSTATE;
	}
	return rec_write_block(r, REC_BLK_KEY, r->scratch, w.len, NULL, 0);
}

/* An INDEX block of entries [from, nidx) chained to prev. */
static int
rec_put_index(struct rec *r, size_t from, uint64_t prev)
{
	struct wbuf	w;
	uint64_t	pt = r->start_ms, po = 0;
	size_t		i, need;

	need = 64 + (r->nidx - from) * 20;
	rec_scratch(r, need);
	wbuf_init(&w, r->scratch, need);
	wire_put_bytes(&w, "JTIX", 4);
	wire_put_varint(&w, prev);
	wire_put_svarint(&w, (int64_t)(r->last_ms - r->start_ms));
	wire_put_varint(&w, r->nidx - from);
	for (i = from; i < r->nidx; i++) {
		wire_put_svarint(&w, (int64_t)(r->idx[i].time_ms - pt));
		wire_put_varint(&w, r->idx[i].offset - po);
		pt = r->idx[i].time_ms;
		po = r->idx[i].offset;
	}
	if (w.err != WIRE_OK)
		return -1;
	return rec_write_block(r, REC_BLK_INDEX, r->scratch, w.len, NULL, 0);
}

/* A keyframe set (one KEY block per node) and the index after it. */
static int
rec_keyframes(struct rec *r, uint64_t now)
{
	uint64_t	first = r->off, at;
	unsigned	i;

	for (i = 0; i < r->nnodes; i++) {
		if (rec_put_key(r, i, now) != 0)
			return -1;
	}
	if (r->nidx == r->capidx) {
		r->capidx = r->capidx == 0 ? 64 : r->capidx * 2;
		r->idx = xreallocarray(r->idx, r->capidx, sizeof(*r->idx));
	}
	r->idx[r->nidx].time_ms = now;
	r->idx[r->nidx].offset = first;
	r->nidx++;
	at = r->off;
	if (rec_put_index(r, r->igroup, r->ichain) != 0)
		return -1;
	if (r->nidx - r->igroup == REC_INDEX_GROUP) {
		r->ichain = at;
		r->igroup = r->nidx;
	}
	r->dirty = 0;
	return 0;
}

/* Start writing back what is not on disk yet, without waiting for it. */
static void
rec_sync(struct rec *r)
{
	if (rec_flush(r) != 0 || r->off == r->synced)
		return;
	if (sync_file_range(r->fd, (off_t)r->synced, 0,
	    SYNC_FILE_RANGE_WRITE) != 0)
		fdatasync(r->fd);
	r->synced = r->off;
}

/* Keyframes and flushes that are due at now. */
static int
rec_due(struct rec *r, uint64_t now)
{
	/* The clock went back: keyframes go on from now. */
	if (r->next_key > now + 2 * (uint64_t)r->keyframe_ms)
		r->next_key = now + r->keyframe_ms;
	if (now >= r->next_key) {
		if (r->dirty && rec_keyframes(r, now) != 0)
			return -1;
		r->next_key = now + r->keyframe_ms;
	}
	if (now >= r->next_sync) {
		rec_sync(r);
		r->next_sync = now + REC_SYNC_MS;
	}
	return r->stopped ? -1 : 0;
}

/* The META block's payload. */
static int
rec_put_meta(struct wbuf *w, const struct rec_meta *m)
{
	unsigned	i;

	wire_put_varint(w, m->start_ms);
	wire_put_varint(w, m->interval_ms);
	wire_put_varint(w, m->keyframe_ms);
	wire_put_strn(w, m->version, strnlen(m->version, PROTO_NAME_MAX - 1));
	wire_put_strn(w, m->job, strnlen(m->job, PROTO_TEXT_MAX - 1));
	wire_put_strn(w, m->name, strnlen(m->name, PROTO_TEXT_MAX - 1));
	wire_put_strn(w, m->user, strnlen(m->user, PROTO_TEXT_MAX - 1));
	wire_put_strn(w, m->host, strnlen(m->host, PROTO_HOST_MAX - 1));
	wire_put_varint(w, m->nnodes);
	for (i = 0; i < m->nnodes; i++)
		wire_put_strn(w, m->nodes[i], strnlen(m->nodes[i],
		    PROTO_HOST_MAX - 1));
	wire_put_varint(w, m->count);
	wire_put_varint(w, m->ntasks > 0 ? (uint64_t)m->ntasks : 0);
	wire_put_varint(w, m->cpus);
	wire_put_varint(w, m->mem);
	wire_put_varint(w, m->time_limit >= 0 ? (uint64_t)m->time_limit + 2 :
	    m->time_limit == REC_LIMIT_NONE ? 1 : 0);
	wire_put_strn(w, m->partition, strnlen(m->partition,
	    PROTO_NAME_MAX - 1));
	/* The scheduler's GPUs per node: a count (0: none said), then each
	 * node's mask + 1 (0: unknown). */
	wire_put_varint(w, m->gpus != NULL ? m->nnodes : 0);
	for (i = 0; m->gpus != NULL && i < m->nnodes; i++)
		wire_put_varint(w, m->gpus[i] >= 0 ? (uint64_t)m->gpus[i] + 1 :
		    0);
	return w->err;
}

/*
 * The default directory of path: made when missing (0700, with its
 * parents, as the XDG base directory rules say), and made private when
 * it is the caller's but open to others; a directory of someone else's
 * that is open to others is used with a warning in warn.
 */
static int
rec_state_dir(const char *path, char *warn, size_t warnsz)
{
	struct stat	 st;
	char		*dir, *slash;
	int		 rc = 0;

	if (fs_mkdir_parents(path) != 0)
		return -1;
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
		*slash = '\0';
	if (stat(dir, &st) != 0)
		rc = -1;
	else if ((st.st_mode & 077) != 0) {
		if (st.st_uid != geteuid() || chmod(dir, 0700) != 0)
			snprintf(warn, warnsz, "the recordings directory %s "
			    "is open to other users (mode %03o)", dir,
			    (unsigned)(st.st_mode & 0777));
	}
	free(dir);
	return rc;
}

/*
 * Create path as asked; the fd, or -1 with the reason in err.  A default
 * path that is taken gets a free variant ("-2" before the extension).
 * With REC_CREATE_FORCE the fd is of a temporary file in *of.
 */
static int
rec_create(const char *path, enum rec_create how, struct outfile *of,
    char **used, char *err, size_t errsz, char *warn, size_t warnsz)
{
	struct stat	 st;
	const char	*dot;
	char		*p;
	int		 fd, k;

	*used = NULL;
	if (how == REC_CREATE_FORCE) {
		/* Written under a temporary name until its header is, then
		 * renamed over path (rec_open): the old file stays whole if
		 * the new one cannot even start. */
		if (outfile_begin(of, path, 0600, err, errsz) != 0)
			return -1;
		*used = xstrdup(path);
		return of->fd;
	}
	if (how == REC_CREATE_NEW) {
		if ((fd = outfile_create(path, 0600, err, errsz)) < 0) {
			if (errno == EEXIST && lstat(path, &st) == 0 &&
			    S_ISREG(st.st_mode))
				snprintf(err, errsz, "%s exists: give --force "
				    "to replace it, or another name", path);
			return -1;
		}
		*used = xstrdup(path);
		return fd;
	}
	if (rec_state_dir(path, warn, warnsz) != 0) {
		snprintf(err, errsz, "cannot create %s: %s", path,
		    strerror(errno));
		return -1;
	}
	dot = strrchr(path, '.');
	if (dot == NULL || strchr(dot, '/') != NULL)
		dot = path + strlen(path);
	for (k = 1; k < 100; k++) {
		if (k == 1)
			p = xstrdup(path);
		else
			p = xasprintf("%.*s-%d%s", (int)(dot - path), path, k,
			    dot);
		fd = outfile_create(p, 0600, err, errsz);
		if (fd >= 0) {
			*used = p;
			return fd;
		}
		free(p);
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

struct rec *
rec_open(const char *path, const struct rec_meta *meta, enum rec_create how,
    char *err, size_t errsz)
{
	struct rec	*r;
	struct outfile	 of;
	struct wbuf	 w;
	struct iovec	 iov;
	uint8_t		 head[6];
	size_t		 need;
	unsigned	 i;
	int		 fd;

	if (meta->nnodes > REC_NODES_MAX) {
		snprintf(err, errsz, "too many nodes to record (%u)",
		    meta->nnodes);
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	memset(&of, 0, sizeof(of));
	if ((fd = rec_create(path, how, &of, &r->path, err, errsz, r->warn,
	    sizeof(r->warn))) < 0) {
		free(r);
		return NULL;
	}
	r->fd = fd;
	r->start_ms = meta->start_ms;
	r->last_ms = meta->start_ms;
	r->keyframe_ms = meta->keyframe_ms > 0 ? meta->keyframe_ms :
	    REC_KEYFRAME_MS;
	r->next_key = r->start_ms + r->keyframe_ms;
	r->next_sync = r->start_ms + REC_SYNC_MS;
	r->nnodes = meta->nnodes;
	r->nodes = xcalloc(r->nnodes, sizeof(*r->nodes));
	r->names = xcalloc(r->nnodes, sizeof(*r->names));
	for (i = 0; i < r->nnodes; i++) {
		r->names[i] = xstrdup(meta->nodes[i]);
		r->nodes[i].st = stream_new(meta->nodes[i]);
	}

	/* The file header is bare bytes; the META block follows. */
	memcpy(head, REC_MAGIC, 4);
	head[4] = REC_MAJOR;
	head[5] = REC_MINOR;
	iov.iov_base = head;
	iov.iov_len = sizeof(head);
	need = 256 + 5 * PROTO_TEXT_MAX + (size_t)meta->nnodes *
	    (PROTO_HOST_MAX + 2);
	rec_scratch(r, need);
	wbuf_init(&w, r->scratch, need);
	if (rec_put_meta(&w, meta) != WIRE_OK) {
		snprintf(err, errsz, "bad recording metadata");
		goto fail;
	}
	r->off = sizeof(head);
	if (rec_writev(r, &iov, 1) != 0 || rec_write_block(r, REC_BLK_META,
	    r->scratch, w.len, NULL, 0) != 0) {
		snprintf(err, errsz, "cannot write %s", r->err);
		goto fail;
	}
	/* A recording is a valid file from its first moment. */
	if (rec_flush(r) != 0) {
		snprintf(err, errsz, "cannot write %s", r->err);
		goto fail;
	}
	if (of.tmp != NULL && outfile_commit(&of, err, errsz) != 0)
		goto fail;
	return r;

fail:
	close(fd);
	if (how != REC_CREATE_FORCE)
		unlink(r->path);
	else if (of.tmp != NULL)
		outfile_abort(&of);
	for (i = 0; i < r->nnodes; i++) {
		stream_free(r->nodes[i].st);
		free(r->names[i]);
	}
	free(r->nodes);
	free(r->names);
	free(r->scratch);
	free(r->out);
	free(r->path);
	free(r);
	return NULL;
}

const char *
rec_path(const struct rec *r)
{
	return r->path;
}

uint64_t
rec_size(const struct rec *r)
{
	return r->off;
}

const char *
rec_warning(const struct rec *r)
{
	return r->warn[0] != '\0' ? r->warn : NULL;
}

const char *
rec_error(const struct rec *r)
{
	return r->stopped ? r->err : NULL;
}

int
rec_node_bytes(struct rec *r, unsigned i, uint64_t now, const void *buf,
    size_t n)
{
	struct rec_wnode	*wn;
	const uint8_t		*p = buf;
	size_t			 used;

	if (r == NULL || r->stopped || i >= r->nnodes || n == 0)
		return 0;
	wn = &r->nodes[i];
	if (rec_due(r, now) != 0)
		return -1;
	if (wn->broken)
		rec_put_data(r, i, now, p, n);
	else if (wn->pendlen == 0) {
		used = rec_put_frames(r, i, now, p, n);
		if (used < n && !wn->broken)
			rec_pend(wn, p + used, n - used);
	} else {
		rec_pend(wn, p, n);
		used = rec_put_frames(r, i, now, wn->pend, wn->pendlen);
		if (wn->broken)
			used = wn->pendlen;
		memmove(wn->pend, wn->pend + used, wn->pendlen - used);
		wn->pendlen -= used;
		/* A split frame's buffer goes back once it is whole: kept,
		 * every node held its largest split frame. */
		if (wn->pendlen == 0 && wn->pendcap > 512) {
			free(wn->pend);
			wn->pend = NULL;
			wn->pendcap = 0;
		}
	}
	return r->stopped ? -1 : 0;
}

int
rec_node_restart(struct rec *r, unsigned i, uint64_t now)
{
	struct rec_wnode	*wn;
	uint8_t			 pre[REC_PREFIX_MAX];
	size_t			 plen;

	if (r == NULL || r->stopped || i >= r->nnodes)
		return 0;
	wn = &r->nodes[i];
	rec_due(r, now);
	/* What was left of the old stream, as it came. */
	rec_put_data(r, i, now, wn->pend, wn->pendlen);
	wn->pendlen = 0;
	plen = rec_prefix(r, pre, i, now);
	rec_write_block(r, REC_BLK_RESTART, pre, plen, NULL, 0);
	stream_free(wn->st);
	wn->st = r->models != NULL ? NULL : stream_new(r->names[i]);
	free(wn->hello);
	rec_unshare(r, wn->schema);
	wn->hello = NULL;
	wn->schema = NULL;
	wn->hellolen = wn->schemalen = 0;
	wn->stream_off = 0;
	wn->broken = wn->failed = 0;
	r->dirty = 1;
	return r->stopped ? -1 : 0;
}

void
rec_subject_none(struct rec_subject *sj)
{
	sj->rank = -1;
	sj->pid = -1;
	sj->phase = -1;
}

int
rec_event(struct rec *r, unsigned node, uint64_t now, uint8_t level,
    const char *code, const char *text, const struct rec_subject *sj)
{
	if (r == NULL || r->stopped)
		return 0;
	if (node != REC_NODE_NONE && node >= r->nnodes)
		return 0;
	if (rec_due(r, now) == 0)
		rec_put_event(r, node, now, level, code, text, sj);
	r->dirty = 1;
	return r->stopped ? -1 : 0;
}

int
rec_tick(struct rec *r, uint64_t now)
{
	if (r == NULL || r->stopped)
		return 0;
	if (rec_due(r, now) == 0)
		rec_flush(r);
	return r->stopped ? -1 : 0;
}

int
rec_timeout(const struct rec *r, uint64_t now)
{
	uint64_t	next;

	if (r == NULL || r->stopped)
		return -1;
	next = r->next_sync;
	if (r->dirty && r->next_key < next)
		next = r->next_key;
	if (next <= now)
		return 0;
	return next - now > INT_MAX ? INT_MAX : (int)(next - now);
}

/* Free everything but the file. */
void
rec_set_models(struct rec *r, const struct node_model *(*fn)(void *,
    unsigned), void *arg)
{
	unsigned	i;

	if (r == NULL)
		return;
	r->models = fn;
	r->models_arg = arg;
	/* One decoder per node: the live session's. */
	for (i = 0; i < r->nnodes && fn != NULL; i++) {
		stream_free(r->nodes[i].st);
		r->nodes[i].st = NULL;
	}
}

static void
rec_free(struct rec *r)
{
	unsigned	i;

	for (i = 0; i < r->nnodes; i++) {
		stream_free(r->nodes[i].st);
		free(r->nodes[i].pend);
		free(r->nodes[i].hello);
		free(r->names[i]);
	}
	for (i = 0; i < r->nshared; i++)
		free(r->shared[i].p);
	free(r->shared);
	free(r->nodes);
	free(r->names);
	free(r->idx);
	free(r->scratch);
	free(r->out);
	free(r->path);
	free(r);
}

int
rec_close(struct rec *r, char *err, size_t errsz)
{
	uint8_t		tail[12];
	uint64_t	at;
	unsigned	i;
	int		rc = 0, was;

	if (r == NULL)
		return 0;
	was = r->stopped;
	for (i = 0; i < r->nnodes && !r->stopped; i++) {
		rec_put_data(r, i, r->last_ms, r->nodes[i].pend,
		    r->nodes[i].pendlen);
		r->nodes[i].pendlen = 0;
	}
	if (!r->stopped) {
		at = r->off;
		rec_put_index(r, 0, 0);
		memcpy(tail, "JTND", 4);
		for (i = 0; i < 8; i++)
			tail[4 + i] = (uint8_t)(at >> (8 * i));
		rec_write_block(r, REC_BLK_TAIL, tail, sizeof(tail), NULL, 0);
	}
	rec_flush(r);
	if (!r->stopped && fdatasync(r->fd) != 0 && errno != EINVAL &&
	    errno != EROFS)
		rec_stop(r, errno);
	if (close(r->fd) != 0 && !r->stopped)
		rec_stop(r, errno);
	if (!was && r->stopped) {
		snprintf(err, errsz, "%s", r->err);
		rc = -1;
	}
	rec_free(r);
	return rc;
}
