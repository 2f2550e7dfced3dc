/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the column spec parser (ui/columns.c): any bytes
 * as a `rank_columns =` or `node_columns =` value (the first byte picks
 * the table).  A spec either fails with one line and leaves the choice
 * as it was, or leaves at least one column shown; the choice written
 * back as a string parses again to the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char		spec[4096], before[2048], after[2048], again[2048];
	char		err[512];
	unsigned	i, shown = 0;
	int		t;

	if (len < 1 || len > sizeof(spec))
		return 0;
	t = data[0] & 1 ? COLUMNS_NODES : COLUMNS_RANKS;
	memcpy(spec, data + 1, len - 1);
	spec[len - 1] = '\0';
	if (strlen(spec) != len - 1)
		return 0;		/* a NUL: the file parser refuses it */
	columns_string(t, before, sizeof(before));
	err[0] = '\0';
	if (columns_parse(t, spec, err, sizeof(err)) != 0) {
		if (err[0] == '\0' || strchr(err, '\n') != NULL)
			abort();
		columns_string(t, after, sizeof(after));
		if (strcmp(before, after) != 0)
			abort();
	}
	for (i = 0; i < columns_count(t); i++)
		shown += columns_shown(t, i) != 0;
	if (shown == 0)
		abort();
	columns_string(t, after, sizeof(after));
	if (columns_parse(t, after, err, sizeof(err)) != 0)
		abort();
	columns_string(t, again, sizeof(again));
	if (strcmp(after, again) != 0)
		abort();
	columns_reset(t);
	return 0;
}
