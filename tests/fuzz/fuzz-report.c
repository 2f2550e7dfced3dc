/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the verdict and the report (src/summary.c,
 * src/report.c) over hostile recordings: the input is a recording, given
 * to them as a file (a memfd, by its /proc path, as `jobtop report` and
 * the end of a run read one); the page and the verdict go to /dev/null.
 * Event texts, node indices, times anywhere in 64 bits, flags cleared
 * before they were raised and counters that jump all reach the summary's
 * pairing of flags, its statistics and the charts' axes.  Inputs of odd
 * length are read with CRC checks off, as in fuzz-rec.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log.h"
#include "rec.h"
#include "report.h"
#include "summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static FILE	*null;
	char		 path[64];
	int		 fd;

	if (null == NULL && (null = fopen("/dev/null", "w")) == NULL)
		abort();
	if ((fd = memfd_create("fuzz-report", 0)) < 0)
		abort();
	if (write(fd, data, len) != (ssize_t)len)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rec_reader_ignore_crc(len % 2);
	log_set_terminal_owned(1);	/* error lines: not to stderr */
	report_file(path, null);
	summary_print_file(path, null);
	close(fd);
	return 0;
}
