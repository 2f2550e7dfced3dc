/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the export writers (src/export.c, src/exp-*.c):
 * the input is a recording, played into every format (JSON, tidy and
 * wide CSV, OpenMetrics, SQLite in memory), the odd-length ones with CRC
 * checks off so mutations reach the models the writers walk.  A recording
 * the reader refuses is an error line (silenced here), never a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "export.h"
#include "log.h"
#include "rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const struct {
		enum export_format	 fmt;
		enum export_wide	 wide;
		const char		*begin, *fields;
	} runs[] = {
		{ EXPORT_JSON,		EXPORT_TIDY,	   NULL, NULL },
		{ EXPORT_CSV,		EXPORT_TIDY,	   NULL, NULL },
		{ EXPORT_CSV,		EXPORT_WIDE_RANK,  "+1s", NULL },
		{ EXPORT_OPENMETRICS,	EXPORT_TIDY,	   NULL, "*" },
		{ EXPORT_SQLITE,	EXPORT_TIDY,	   NULL, NULL },
	};
	struct export_opts	 o;
	char			 path[64];
	FILE			*out;
	size_t			 i;
	int			 fd;

	log_set_terminal_owned(1);
	rec_reader_ignore_crc(len % 2);
	if ((fd = memfd_create("fuzz-export", 0)) < 0)
		return 0;
	if (write(fd, data, len) != (ssize_t)len ||
	    (out = fopen("/dev/null", "w")) == NULL) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.fmt = runs[i].fmt;
		o.wide = runs[i].wide;
		o.begin = runs[i].begin;
		o.fields = runs[i].fields;
		o.sqlite = ":memory:";
		export_run(path, &o, o.fmt == EXPORT_SQLITE ? NULL : out);
	}
	fclose(out);
	close(fd);
	return 0;
}
