/* SPDX-License-Identifier: ISC */
/*
 * clock: the monotonic and wall clocks in milliseconds (clock.h).
 */
#include <time.h>

#include "clock.h"

static uint64_t
clock_ms(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t
clock_mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

uint64_t
clock_wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}
