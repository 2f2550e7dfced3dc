/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the probe's reader of `scontrol --json listpids`
 * (probes/listpids.c): scontrol's output is read from a pipe, and a
 * scontrol of the user's own (first in the PATH the probe inherits) can
 * print anything.  The input is the output, in a buffer of exactly its
 * size (ASan sees a read past it), read with room for 8 tasks, and the
 * same bytes as a `scontrol --version` line.  Beyond the sanitizers: a
 * result is -1 with a reason or a count of at most the room with no
 * reason; every task has a pid and job id in range, a global task id
 * from 0 and a local one from -1; the same bytes give the same result
 * twice; the version check says -1, 0 or 1.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/listpids.c"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define ROOM	8

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct listpids_task	 t[ROOM], u[ROOM];
	const char		*why = NULL, *why2 = NULL;
	unsigned		 nother, nother2;
	char			*buf;
	int			 n, n2, i, v;

	if ((buf = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(buf, data, size);
	n = listpids_parse(buf, size, t, ROOM, &nother, &why);
	n2 = listpids_parse(buf, size, u, ROOM, &nother2, &why2);
	if (n != n2 || why != why2 || (n >= 0 && nother != nother2) ||
	    (n > 0 && memcmp(t, u, (size_t)n * sizeof(t[0])) != 0))
		abort();
	if (n < 0 && (n != -1 || why == NULL))
		abort();
	if (n >= 0 && (why != NULL || n > ROOM))
		abort();
	for (i = 0; i < n; i++) {
		if (t[i].pid <= 0 || t[i].job == 0 ||
		    t[i].job >= 0xfffffffeu || t[i].gtid < 0 ||
		    t[i].ltid < -1)
			abort();
	}
	v = listpids_version_ok(buf, size);
	if (v < -1 || v > 1)
		abort();
	free(buf);
	return 0;
}
