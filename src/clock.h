/* SPDX-License-Identifier: ISC */
/*
 * clock: the monitor's two clocks, in milliseconds.  The monotonic one
 * times everything live (poll deadlines, lost nodes, intervals, backoff,
 * grace periods, the scheduler's timeouts); the wall clock is only for
 * what is shown and recorded (event times, the recording's time base).
 * A replay's time is the recorded wall time.
 */
#ifndef JOBTOP_CLOCK_H
#define JOBTOP_CLOCK_H

#include <stdint.h>

uint64_t	 clock_mono_ms(void);
uint64_t	 clock_wall_ms(void);

#endif
