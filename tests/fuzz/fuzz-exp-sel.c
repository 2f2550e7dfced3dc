/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the export's selection parsers (src/exp-sel.c):
 * the input's first line is a --begin/--end time, the rest a --fields
 * list.  A time is either refused with one line or lands where its form
 * says (+D at or after the start, -D at or before the end); a fields
 * list is refused with one line or matches names without trouble.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exp-sel.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_START	1795600000000ULL
#define FUZZ_END	1795603600000ULL

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const char *const names[][2] = {
		{ "cpu", "busy" }, { "rank", "cpu" }, { "disk", "read_bytes" },
		{ "", "" }, { "a[b", "c]" }
	};
	struct exp_fields	*fl;
	char			*buf, *nl, err[256];
	uint64_t		 t;
	size_t			 i;

	buf = malloc(len + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, len);
	buf[len] = '\0';
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	err[0] = '\0';
	if (exp_time_parse(buf, FUZZ_START, FUZZ_END, &t, err,
	    sizeof(err)) != 0) {
		if (err[0] == '\0' || strchr(err, '\n') != NULL)
			abort();
	} else if ((buf[0] == '+' && t < FUZZ_START) ||
	    (buf[0] == '-' && t > FUZZ_END))
		abort();
	if (nl != NULL) {
		err[0] = '\0';
		if ((fl = exp_fields_parse(nl + 1, err, sizeof(err))) ==
		    NULL) {
			if (err[0] == '\0' || strchr(err, '\n') != NULL)
				abort();
		} else {
			for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				exp_fields_match(fl, names[i][0], names[i][1]);
			exp_fields_free(fl);
		}
	}
	free(buf);
	return 0;
}
