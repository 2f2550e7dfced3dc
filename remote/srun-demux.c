/* SPDX-License-Identifier: ISC */
/*
 * srun-demux: srun's interleaved, labelled output back into one probe
 * stream per task.  See srun-demux.h and PROTOCOL.md, "Armour".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srun-demux.h"
#include "wire.h"
#include "xmalloc.h"

/* A record buffer this small is kept between records. */
#define SDEMUX_KEEP	512

enum sd_state { SD_IDLE, SD_LIVE, SD_BROKEN };

struct sd_task {
	enum sd_state	 state;
	uint32_t	 sid;
	uint32_t	 seq;		/* the next line's number */
	int		 in_record;
	uint8_t		*rec;
	size_t		 reclen, reccap;
};

struct sdemux {
	struct sdemux_hooks	 hooks;
	struct sdemux_stats	 stats;
	struct sd_task		*tasks;
	unsigned		 ntasks;
	char			 line[SDEMUX_LINE_MAX + 1];
	size_t			 len;
	int			 overlong;	/* skipping a long line */
};

static const char sd_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

struct sdemux *
sdemux_new(const struct sdemux_hooks *h, unsigned ntasks)
{
	struct sdemux	*d = xcalloc(1, sizeof(*d));

	d->hooks = *h;
	d->ntasks = ntasks;
	d->tasks = xcalloc(ntasks > 0 ? ntasks : 1, sizeof(*d->tasks));
	return d;
}

void
sdemux_free(struct sdemux *d)
{
	unsigned	i;

	if (d == NULL)
		return;
	for (i = 0; i < d->ntasks; i++)
		free(d->tasks[i].rec);
	free(d->tasks);
	free(d);
}

const struct sdemux_stats *
sdemux_stats(const struct sdemux *d)
{
	return &d->stats;
}

size_t
sdemux_encode(char *l, uint32_t sid, uint32_t seq, char kind,
    const void *data, size_t len)
{
	const uint8_t	*p = data;
	size_t		 i, k;
	uint32_t	 v;

	if (len > SDEMUX_RAW_MAX)
		len = SDEMUX_RAW_MAX;
	k = (size_t)snprintf(l, SDEMUX_ARMOUR_MAX, "J1 %08x %08x %c ",
	    (unsigned)sid, (unsigned)seq, kind);
	for (i = 0; i < len; i += 3) {
		v = (uint32_t)p[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		l[k++] = sd_b64[v >> 18 & 63];
		l[k++] = sd_b64[v >> 12 & 63];
		l[k++] = i + 1 < len ? sd_b64[v >> 6 & 63] : '=';
		l[k++] = i + 2 < len ? sd_b64[v & 63] : '=';
	}
	k += (size_t)snprintf(l + k, SDEMUX_ARMOUR_MAX - k, " %08x\n",
	    (unsigned)wire_crc32c(0, l, k));
	return k;
}

static int
sd_b64val(char c)
{
	const char	*p;

	if (c == '\0' || (p = strchr(sd_b64, c)) == NULL)
		return -1;
	return (int)(p - sd_b64);
}

/* Strict base64 (padded, nothing else): bytes, or -1. */
static long
sd_unb64(const char *s, size_t n, uint8_t *out)
{
	size_t	i, k = 0;
	int	a, b, c, e;

	if (n == 0 || n % 4 != 0)
		return -1;
	for (i = 0; i < n; i += 4) {
		a = sd_b64val(s[i]);
		b = sd_b64val(s[i + 1]);
		if (a < 0 || b < 0)
			return -1;
		out[k++] = (uint8_t)(a << 2 | b >> 4);
		if (s[i + 2] == '=') {
			if (i + 4 != n || s[i + 3] != '=' || (b & 15) != 0)
				return -1;
			break;
		}
		if ((c = sd_b64val(s[i + 2])) < 0)
			return -1;
		out[k++] = (uint8_t)((b & 15) << 4 | c >> 2);
		if (s[i + 3] == '=') {
			if (i + 4 != n || (c & 3) != 0)
				return -1;
			break;
		}
		if ((e = sd_b64val(s[i + 3])) < 0)
			return -1;
		out[k++] = (uint8_t)((c & 3) << 6 | e);
	}
	return (long)k;
}

/* Exactly 8 lowercase hex digits. */
static int
sd_hex8(const char *s, uint32_t *v)
{
	int	i;

	*v = 0;
	for (i = 0; i < 8; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			*v = *v << 4 | (uint32_t)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			*v = *v << 4 | (uint32_t)(s[i] - 'a' + 10);
		else
			return -1;
	}
	return 0;
}

static void
sd_damage(struct sdemux *d, unsigned t, const char *why)
{
	struct sd_task	*tk = &d->tasks[t];
	char		 msg[160];

	d->stats.damaged++;
	if (tk->state != SD_LIVE)
		return;
	tk->state = SD_BROKEN;
	tk->in_record = 0;
	tk->reclen = 0;
	snprintf(msg, sizeof(msg), "armour line %u: %s", (unsigned)tk->seq,
	    why);
	if (d->hooks.broken != NULL)
		d->hooks.broken(d->hooks.arg, t, msg);
}

/* A node name: a host name's characters, 1 to 255 of them. */
static int
sd_name_ok(const uint8_t *s, long n)
{
	long	i;

	if (n < 1 || n > 255)
		return 0;
	for (i = 0; i < n; i++) {
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		    s[i] == '.' || s[i] == '_'))
			return 0;
	}
	return 1;
}

static void
sd_record_add(struct sdemux *d, unsigned t, const uint8_t *p, long n)
{
	struct sd_task	*tk = &d->tasks[t];

	if (tk->reclen + (size_t)n > SDEMUX_RECORD_MAX) {
		sd_damage(d, t, "record over 2 MiB");
		return;
	}
	if (tk->reclen + (size_t)n > tk->reccap) {
		tk->reccap = (tk->reclen + (size_t)n) * 2;
		if (tk->reccap > SDEMUX_RECORD_MAX)
			tk->reccap = SDEMUX_RECORD_MAX;
		tk->rec = xreallocarray(tk->rec, tk->reccap, 1);
	}
	memcpy(tk->rec + tk->reclen, p, (size_t)n);
	tk->reclen += (size_t)n;
}

/* "J1 SID SEQ KIND B64 CRC" of task t (s, n: after the label). */
static void
sd_armour(struct sdemux *d, unsigned t, const char *s, size_t n)
{
	struct sd_task	*tk = &d->tasks[t];
	uint8_t		 raw[SDEMUX_RAW_MAX + 3];
	char		 name[256], why[96];
	uint32_t	 sid, seq, crc;
	long		 rn;
	char		 kind;

	/* 2+1+8+1+8+1+1+1 = 23 before the data, 9 after. */
	if (n < 23 + 4 + 9 || n - 32 > 4 * ((SDEMUX_RAW_MAX + 2) / 3) ||
	    s[2] != ' ' || s[11] != ' ' || s[20] != ' ' || s[22] != ' ' ||
	    s[n - 9] != ' ' || sd_hex8(s + 3, &sid) != 0 ||
	    sd_hex8(s + 12, &seq) != 0 || sd_hex8(s + n - 8, &crc) != 0) {
		sd_damage(d, t, "malformed");
		return;
	}
	if (wire_crc32c(0, s, n - 9) != crc) {
		sd_damage(d, t, "checksum mismatch");
		return;
	}
	kind = s[21];
	if ((rn = sd_unb64(s + 23, n - 32, raw)) < 0 || sid == 0) {
		sd_damage(d, t, "malformed");
		return;
	}
	if (kind == 'N') {
		/* A new stream: the node's name, then its records. */
		if (seq != 0 || !sd_name_ok(raw, rn)) {
			sd_damage(d, t, "bad stream start");
			return;
		}
		if (tk->state == SD_LIVE && d->hooks.broken != NULL &&
		    tk->in_record)
			d->hooks.broken(d->hooks.arg, t,
			    "a new stream began inside a record");
		d->stats.armour++;
		tk->state = SD_LIVE;
		tk->sid = sid;
		tk->seq = 1;
		tk->in_record = 0;
		tk->reclen = 0;
		memcpy(name, raw, (size_t)rn);
		name[rn] = '\0';
		if (d->hooks.start != NULL)
			d->hooks.start(d->hooks.arg, t, name);
		return;
	}
	if (tk->state != SD_LIVE) {
		d->stats.skipped++;
		return;
	}
	if (sid != tk->sid) {
		sd_damage(d, t, "another stream's line");
		return;
	}
	if (seq != tk->seq) {
		snprintf(why, sizeof(why), "line %u came instead",
		    (unsigned)seq);
		sd_damage(d, t, why);
		return;
	}
	if ((kind == 'B' || kind == 'F') == tk->in_record ||
	    (kind != 'B' && kind != 'F' && kind != 'M' && kind != 'E')) {
		sd_damage(d, t, "record out of order");
		return;
	}
	tk->seq++;
	d->stats.armour++;
	sd_record_add(d, t, raw, rn);
	if (tk->state != SD_LIVE)
		return;
	tk->in_record = kind == 'B' || kind == 'M';
	if (!tk->in_record) {
		d->stats.records++;
		if (d->hooks.data != NULL)
			d->hooks.data(d->hooks.arg, t, tk->rec, tk->reclen);
		tk->reclen = 0;
		/* A record's buffer goes back once it is delivered: kept, the
		 * largest record a task ever sent (its first, a schema and a
		 * keyframe's worth) stayed twice over for every node. */
		if (tk->reccap > SDEMUX_KEEP) {
			free(tk->rec);
			tk->rec = NULL;
			tk->reccap = 0;
		}
	}
}

/* The label srun -l writes: spaces, digits, ':' and a space.  Returns
 * the task, or -1 (*rest is where the line goes on). */
static long
sd_label(const char *s, size_t n, size_t *rest)
{
	size_t	i = 0;
	long	t = 0;

	while (i < n && s[i] == ' ')
		i++;
	if (i == n || s[i] < '0' || s[i] > '9')
		return -1;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		t = t * 10 + (s[i] - '0');
		if (t > 100000000)
			return -1;
	}
	if (i + 1 >= n || s[i] != ':' || s[i + 1] != ' ')
		return -1;
	*rest = i + 2;
	return t;
}

static void
sd_line(struct sdemux *d, char *s, size_t n, int cut)
{
	size_t	 rest = 0;
	long	 t;

	d->stats.lines++;
	if (n > 0 && s[n - 1] == '\r')
		n--;
	s[n] = '\0';
	t = sd_label(s, n, &rest);
	if (t >= 0 && (unsigned long)t >= d->ntasks)
		t = -1;
	if (t >= 0 && n - rest >= 3 && memcmp(s + rest, "J1 ", 3) == 0) {
		if (cut)
			sd_damage(d, (unsigned)t, "cut short");
		else
			sd_armour(d, (unsigned)t, s + rest, n - rest);
		return;
	}
	d->stats.text++;
	if (d->hooks.text != NULL)
		d->hooks.text(d->hooks.arg, (int)t, t >= 0 ? s + rest : s);
}

void
sdemux_input(struct sdemux *d, const void *buf, size_t len)
{
	const char	*p = buf, *nl;
	size_t		 take;

	while (len > 0) {
		nl = memchr(p, '\n', len);
		take = nl != NULL ? (size_t)(nl - p) : len;
		if (d->overlong) {
			/* Already handled: wait for its end. */
		} else if (d->len + take > SDEMUX_LINE_MAX) {
			memcpy(d->line + d->len, p, SDEMUX_LINE_MAX - d->len);
			sd_line(d, d->line, SDEMUX_LINE_MAX, 1);
			d->len = 0;
			d->overlong = 1;
		} else {
			memcpy(d->line + d->len, p, take);
			d->len += take;
		}
		if (nl == NULL)
			return;
		if (!d->overlong)
			sd_line(d, d->line, d->len, 0);
		d->len = 0;
		d->overlong = 0;
		len -= take + 1;
		p = nl + 1;
	}
}

void
sdemux_end(struct sdemux *d)
{
	if (d->len > 0 && !d->overlong)
		sd_line(d, d->line, d->len, 1);
	d->len = 0;
	d->overlong = 0;
}
