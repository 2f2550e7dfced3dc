/* SPDX-License-Identifier: ISC */
/*
 * spin: a process for the mpi source's benchmark that spends about half
 * of its CPU time in its own loop and half in libmpich (MPI_Initialized,
 * which the standard allows before MPI_Init, so no launcher is needed).
 * It runs until killed.
 */
#include <mpi.h>

static volatile double	sink;

int
main(void)
{
	double	x = 1;
	int	i, flag;

	for (;;) {
		for (i = 0; i < 2000; i++)
			x = x * 1.0000001 + 1e-9;
		sink = x;
		for (i = 0; i < 4000; i++)
			MPI_Initialized(&flag);
	}
}
