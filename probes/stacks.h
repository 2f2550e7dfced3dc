/* SPDX-License-Identifier: ISC */
/*
 * stacks: jobtop-probe --stacks [--threads] [--gap MS] [--frames N]
 * [--deadline MS] [--parallel N] PID:RANK ...: the stacks of those
 * processes, taken twice GAP apart, deduplicated, on stdout in the
 * format of src/stackfmt.h (PROTOCOL.md, "Stacks").  Returns the exit
 * status.
 */
#ifndef JOBTOP_PROBE_STACKS_H
#define JOBTOP_PROBE_STACKS_H

int	stacks_main(int, char **);

#endif
