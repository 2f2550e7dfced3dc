/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for remote/srun-demux.c: the input is srun's output
 * (labelled armour lines, text, garbage), fed in pieces whose sizes come
 * from the first byte.  Every record handed out must fit the record
 * bound, every node name must be a host name, a task's records come only
 * between its start and its break, and the counters must add up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srun-demux.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FZ_TASKS	8

static int	fz_live[FZ_TASKS];

static void
fz_start(void *arg, unsigned t, const char *name)
{
	size_t	n = strlen(name);

	if (t >= FZ_TASKS || n == 0 || n > 255 ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-._") != n)
		abort();
	fz_live[t] = 1;
}

static void
fz_data(void *arg, unsigned t, const void *p, size_t n)
{
	if (t >= FZ_TASKS || !fz_live[t] || n == 0 || n > SDEMUX_RECORD_MAX)
		abort();
	(void)((const volatile uint8_t *)p)[n - 1];
}

static void
fz_broken(void *arg, unsigned t, const char *why)
{
	if (t >= FZ_TASKS || why[0] == '\0')
		abort();
	fz_live[t] = 0;
}

static void
fz_text(void *arg, int t, const char *line)
{
	if (t >= FZ_TASKS || strlen(line) > SDEMUX_LINE_MAX)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct sdemux_hooks		 h = { NULL, fz_start, fz_data,
					    fz_broken, fz_text };
	const struct sdemux_stats	*st;
	struct sdemux			*d;
	size_t				 step, off;

	memset(fz_live, 0, sizeof(fz_live));
	d = sdemux_new(&h, FZ_TASKS);
	step = len > 0 ? (size_t)data[0] % 64 + 1 : 1;
	for (off = 0; off < len; off += step)
		sdemux_input(d, data + off, len - off < step ? len - off :
		    step);
	sdemux_end(d);
	st = sdemux_stats(d);
	if (st->armour + st->damaged + st->skipped + st->text > st->lines ||
	    st->records > st->armour)
		abort();
	sdemux_free(d);
	return 0;
}
