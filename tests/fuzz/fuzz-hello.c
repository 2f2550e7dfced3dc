/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the HELLO scanner (src/hello.c) every transport
 * uses to find the probe's first frame after a login shell's output.  The
 * input is scanned whole and again as it would arrive, in chunks whose
 * sizes come from its first byte: both must find the same offset (or
 * none), a found offset must point at a frame start (type 1, a varint of
 * one to three bytes, "JTOP"), and a scan past the cap must give up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hello.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct hello	h;
	long		whole, part = HELLO_MORE;
	size_t		step, n, k;

	if (len < 1)
		return 0;
	step = (size_t)(data[0] % 17) + 1;
	data++;
	len--;
	hello_init(&h, 512);
	whole = hello_scan(&h, data, len);
	if (whole >= 0) {
		n = (size_t)whole;
		if (n + 6 > len || data[n] != 1)
			abort();
		for (k = n + 1; k < n + 4 && data[k] >= 0x80; k++)
			;
		if (k >= n + 4 || memcmp(data + k + 1, "JTOP", 4) != 0)
			abort();
	}
	hello_init(&h, 512);
	for (n = 0; n < len && part == HELLO_MORE; ) {
		n = n + step < len ? n + step : len;
		part = hello_scan(&h, data, n);
	}
	/* Chunked, it may give up earlier or find the frame before a
	 * later, longer input would have passed the cap. */
	if (whole >= 0 && part >= 0 && part != whole)
		abort();
	if (whole >= 0 && part == HELLO_MORE)
		abort();
	if (whole == HELLO_MORE && part >= 0)
		abort();
	return 0;
}
