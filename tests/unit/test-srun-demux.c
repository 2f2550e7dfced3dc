/* SPDX-License-Identifier: ISC */
/*
 * srun-demux: srun's labelled, interleaved output of armoured probes
 * back into one exact byte stream per task; damaged, cut, reordered and
 * foreign lines; and the real probe's --armour output when it is built.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "srun-demux.h"
#include "wire.h"

#define NT	4

struct got {
	char	 name[NT][64];
	uint8_t	 data[NT][8192];
	size_t	 len[NT];
	int	 starts[NT], broken[NT], records[NT];
	char	 why[NT][160];
	int	 text, untasked;
	char	 lasttext[256];
};

static void
on_start(void *arg, unsigned t, const char *name)
{
	struct got	*g = arg;

	snprintf(g->name[t], sizeof(g->name[t]), "%s", name);
	g->starts[t]++;
	g->len[t] = 0;
}

static void
on_data(void *arg, unsigned t, const void *p, size_t n)
{
	struct got	*g = arg;

	if (g->len[t] + n <= sizeof(g->data[t]))
		memcpy(g->data[t] + g->len[t], p, n);
	g->len[t] += n;
	g->records[t]++;
}

static void
on_broken(void *arg, unsigned t, const char *why)
{
	struct got	*g = arg;

	g->broken[t]++;
	snprintf(g->why[t], sizeof(g->why[t]), "%s", why);
}

static void
on_text(void *arg, int t, const char *line)
{
	struct got	*g = arg;

	g->text++;
	if (t < 0)
		g->untasked++;
	snprintf(g->lasttext, sizeof(g->lasttext), "%s", line);
}

static struct sdemux *
new_demux(struct got *g)
{
	struct sdemux_hooks	h = { g, on_start, on_data, on_broken,
				    on_text };

	memset(g, 0, sizeof(*g));
	return sdemux_new(&h, NT);
}

/* Armour lines of one record, each behind "T: ", appended to out. */
static size_t
put_record(char *out, unsigned t, uint32_t sid, uint32_t *seq,
    const uint8_t *p, size_t n)
{
	size_t	off, take, k = 0;
	char	kind;

	for (off = 0; off < n; off += take) {
		take = n - off < SDEMUX_RAW_MAX ? n - off : SDEMUX_RAW_MAX;
		kind = off == 0 ? (take == n ? 'F' : 'B') :
		    (off + take == n ? 'E' : 'M');
		k += (size_t)sprintf(out + k, "%u: ", t);
		k += sdemux_encode(out + k, sid, (*seq)++, kind, p + off,
		    take);
	}
	return k;
}

static size_t
put_name(char *out, unsigned t, uint32_t sid, uint32_t *seq,
    const char *name)
{
	size_t	k = (size_t)sprintf(out, "%u: ", t);

	*seq = 0;
	return k + sdemux_encode(out + k, sid, (*seq)++, 'N', name,
	    strlen(name));
}

/* Four tasks, records of every size, lines of the tasks interleaved one
 * by one and fed in 7-byte pieces: each task gets exactly its bytes. */
static void
test_interleaved(void)
{
	static char	 lines[NT][16384], all[65536];
	struct got	 g;
	struct sdemux	*d = new_demux(&g);
	uint8_t		 rec[NT][1200];
	size_t		 len[NT], pos[NT], k = 0, i, off;
	uint32_t	 seq[NT];
	unsigned	 t, left;
	char		 name[16], *nl;

	for (t = 0; t < NT; t++) {
		snprintf(name, sizeof(name), "node%u", t + 1);
		len[t] = put_name(lines[t], t, 0x1000 + t, &seq[t], name);
		for (i = 0; i < sizeof(rec[t]); i++)
			rec[t][i] = (uint8_t)(i * 7 + t);
		/* 1, 255, 256 and 1200 bytes: F, F, B+E, B+M...+E. */
		len[t] += put_record(lines[t] + len[t], t, 0x1000 + t,
		    &seq[t], rec[t], t == 0 ? 1 : t == 1 ? 255 :
		    t == 2 ? 256 : 1200);
		pos[t] = 0;
	}
	do {
		left = 0;
		for (t = 0; t < NT; t++) {
			if (pos[t] >= len[t])
				continue;
			nl = memchr(lines[t] + pos[t], '\n', len[t] - pos[t]);
			i = (size_t)(nl - lines[t]) + 1 - pos[t];
			memcpy(all + k, lines[t] + pos[t], i);
			k += i;
			pos[t] += i;
			left++;
		}
	} while (left > 0);
	for (off = 0; off < k; off += 7)
		sdemux_input(d, all + off, k - off < 7 ? k - off : 7);
	sdemux_end(d);
	for (t = 0; t < NT; t++) {
		snprintf(name, sizeof(name), "node%u", t + 1);
		CHECK_STR(g.name[t], name);
		CHECK_INT(g.starts[t], 1);
		CHECK_INT(g.broken[t], 0);
		CHECK_INT(g.records[t], 1);
		CHECK_INT(g.len[t], t == 0 ? 1 : t == 1 ? 255 : t == 2 ? 256 :
		    1200);
		CHECK(memcmp(g.data[t], rec[t], g.len[t]) == 0);
	}
	CHECK_INT(sdemux_stats(d)->damaged, 0);
	CHECK_INT(g.text, 0);
	sdemux_free(d);
}

/* A changed byte, a lost line, a line cut short, another stream's line:
 * each breaks only its task's stream, once, and is counted; the other
 * task goes on; a new stream (line 0) of the broken task starts again. */
static void
test_damage(void)
{
	static char	 buf[16384];
	static uint8_t	 rec[600];
	struct got	 g;
	struct sdemux	*d;
	size_t		 k, n;
	uint32_t	 s0, s1;
	char		*p;
	int		 kind;

	memset(rec, 'x', sizeof(rec));
	for (kind = 0; kind < 4; kind++) {
		d = new_demux(&g);
		k = put_name(buf, 0, 7, &s0, "a");
		k += put_name(buf + k, 1, 8, &s1, "b");
		n = put_record(buf + k, 0, 7, &s0, rec, sizeof(rec));
		p = buf + k;
		if (kind == 0)
			p[40] = p[40] == 'A' ? 'B' : 'A';	/* a bit */
		else if (kind == 1) {
			/* The middle line is lost. */
			char *a = strchr(p, '\n') + 1, *b = strchr(a, '\n') + 1;
			memmove(a, b, (size_t)(p + n - b));
			n -= (size_t)(b - a);
		} else if (kind == 2) {
			/* Cut in the middle: the rest never comes. */
			char *a = strchr(p, '\n') + 1;
			n = (size_t)(a - p) + 100;
			p[n++] = '\n';
		} else {
			p[3 + 5] = 'f';	/* the sid of the first line */
			/* with its CRC made right again */
			char *e = strchr(p, '\n');
			uint32_t c = wire_crc32c(0, p + 3,
			    (size_t)(e - p - 12));
			char h[9];
			snprintf(h, sizeof(h), "%08x", (unsigned)c);
			memcpy(e - 8, h, 8);
		}
		k += n;
		k += put_record(buf + k, 1, 8, &s1, rec, 10);
		/* The broken task's probe starts again. */
		k += put_name(buf + k, 0, 9, &s0, "a");
		k += put_record(buf + k, 0, 9, &s0, rec, 3);
		sdemux_input(d, buf, k);
		sdemux_end(d);
		CHECK_INT(g.broken[0], 1);
		CHECK_INT(g.broken[1], 0);
		CHECK_INT(g.records[1], 1);
		CHECK_INT(g.len[1], 10);
		CHECK_INT(g.starts[0], 2);
		CHECK_INT(g.len[0], 3);	/* the new stream's record */
		CHECK(sdemux_stats(d)->damaged >= 1);
		sdemux_free(d);
	}
}

/* Lines that are not armour: srun's own words and a task's text reach
 * the text hook with their task, an overlong line is cut and damages,
 * a label out of range is text. */
static void
test_text(void)
{
	static char	 big[3000];
	struct got	 g;
	struct sdemux	*d = new_demux(&g);
	char		 l[512];
	uint32_t	 s;
	size_t		 k;
	const char	*srun =
	    "srun: error: node9: task 2: Exited with exit code 1\n";

	k = put_name(l, 2, 5, &s, "n2");
	sdemux_input(d, l, k);
	sdemux_input(d, srun, strlen(srun));
	CHECK_INT(g.untasked, 1);
	sdemux_input(d, "2: jobtop: the probe cache is not safe\n", 39);
	CHECK_STR(g.lasttext, "jobtop: the probe cache is not safe");
	sdemux_input(d, "77: J1 hello\n", 13);
	CHECK_INT(g.untasked, 2);
	memset(big, 'A', sizeof(big));
	memcpy(big, "2: J1 ", 6);
	big[sizeof(big) - 1] = '\n';
	sdemux_input(d, big, sizeof(big));
	CHECK_INT(g.broken[2], 1);
	CHECK(strstr(g.why[2], "cut short") != NULL);
	/* The next line parses from its start again. */
	k = put_name(l, 2, 6, &s, "n2");
	sdemux_input(d, l, k);
	CHECK_INT(g.starts[2], 2);
	sdemux_free(d);
}

/* The real probe's --armour output through the demux: one stream, its
 * first record a HELLO ("JTOP" after type and length). */
static void
test_probe(void)
{
	static char	 buf[1 << 20];
	struct got	 g;
	struct sdemux	*d;
	FILE		*f;
	size_t		 n;

	if ((f = popen("./jobtop-probe --armour --count 2 --interval 0.1 "
	    "</dev/null 2>/dev/null | sed 's/^/0: /'", "r")) == NULL)
		return;
	n = fread(buf, 1, sizeof(buf), f);
	if (pclose(f) != 0 || n == 0) {
		printf("(no ./jobtop-probe: its armour is not checked)\n");
		return;
	}
	d = new_demux(&g);
	sdemux_input(d, buf, n);
	sdemux_end(d);
	CHECK_INT(g.starts[0], 1);
	CHECK_INT(g.broken[0], 0);
	CHECK(g.records[0] >= 3);
	CHECK(g.len[0] > 8 && g.data[0][0] == 1 &&
	    memcmp(g.data[0] + 3, "JTOP", 4) == 0);
	CHECK_INT(sdemux_stats(d)->damaged, 0);
	sdemux_free(d);
}

int
main(void)
{
	RUN(test_interleaved);
	RUN(test_damage);
	RUN(test_text);
	RUN(test_probe);
	return harness_done();
}
