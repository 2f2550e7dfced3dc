/* SPDX-License-Identifier: ISC */
/*
 * stackwait: a process in a known stack for bench-stacks.sh, as many as a
 * node has ranks: main -> bench_outer -> bench_wait_here -> pause().  It
 * waits until killed.
 */
#include <unistd.h>

__attribute__((noinline)) static void
bench_wait_here(void)
{
	for (;;)
		pause();
}

__attribute__((noinline)) static void
bench_outer(void)
{
	bench_wait_here();
}

int
main(void)
{
	bench_outer();
	return 0;
}
