/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the debugger output parser (src/stackfmt.c,
 * stk_parse_debugger) the probe runs on what eu-stack or gdb printed: the
 * first byte picks the tool and the frame cap, the rest is the output.
 * Every parsed thread must have its frames and library flags, no more
 * frames than the cap, names cleaned (no control byte, at most
 * STK_NAME_MAX) and a call path within its frames.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stackfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct stk_proc	 p;
	char		 err[256];
	unsigned	 i, j, cap;
	const char	*s;

	if (len < 1)
		return 0;
	cap = (unsigned)(data[0] >> 1) % 70;	/* 0: the maximum */
	if (stk_parse_debugger(data[0] & 1 ? STK_GDB : STK_EUSTACK,
	    (const char *)data + 1, len - 1, data[0] & 4 ? "/tmp/stk/hang" :
	    NULL, cap, 16, &p, err, sizeof(err)) != 0) {
		if (strlen(err) == 0)
			abort();
		return 0;
	}
	if (p.nthreads == 0 || p.nthreads > 16)
		abort();
	for (i = 0; i < p.nthreads; i++) {
		if (cap != 0 && p.threads[i].nframes > cap)
			abort();
		if (stk_callpath_len(&p.threads[i]) > p.threads[i].nframes)
			abort();
		for (j = 0; j < p.threads[i].nframes; j++) {
			s = p.threads[i].frames[j];
			if (strlen(s) > STK_NAME_MAX || *s == '\0')
				abort();
			for (; *s != '\0'; s++)
				if ((unsigned char)*s < 0x20 || *s == 0x7f)
					abort();
			if (p.threads[i].lib[j] > 1)
				abort();
		}
	}
	stk_proc_free(&p);
	return 0;
}
