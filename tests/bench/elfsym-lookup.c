/* SPDX-License-Identifier: ISC */
/*
 * elfsym-lookup FILE: the cost of COMM%'s symbol resolution on a real
 * library (bench-comm.sh runs it on libtorch_cpu): the time and memory of
 * reading its function ranges once (probes/elfsym.c, with the probe's
 * patterns) and the time of one lookup (what a sample in that library
 * costs) over 4 million addresses spread over its executable segments.
 * Prints "ranges N bytes B parse_ms P lookup_ns L hits H".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../probes/elfsym.c"

static double
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	static const struct elfsym_pat pats[] = {
		{ "4gloo", 0 }, { "4c10d16ProcessGroupGloo", 0 },
		{ "4c10d16ProcessGroupNCCL", 1 }, { "4c10d15ProcessGroupMPI", 2 },
		{ "4c10d15ProcessGroupUCC", 3 }, { "4c10d", 4 },
	};
	struct elfsym_file	 f;
	struct stat		 st;
	const char		*why;
	void			*img;
	double			 t0, t1, t2;
	uint64_t		 off, x = 88172645463325252ull;
	unsigned		 i, n = 4000000, hits = 0;
	int			 fd;

	if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0 ||
	    fstat(fd, &st) < 0 || (img = mmap(NULL, (size_t)st.st_size,
	    PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		fprintf(stderr, "usage: elfsym-lookup FILE (readable)\n");
		return 1;
	}
	t0 = now_ns();
	if (elfsym_parse(img, (size_t)st.st_size, pats, sizeof(pats) /
	    sizeof(pats[0]), 65536, &f, &why) < 0) {
		fprintf(stderr, "elfsym-lookup: %s: %s\n", argv[1], why);
		return 1;
	}
	t1 = now_ns();
	munmap(img, (size_t)st.st_size);
	for (i = 0; i < n; i++) {
		const struct elfsym_load *l = &f.load[i % f.nload];

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		off = l->off + (l->filesz ? x % l->filesz : 0);
		hits += elfsym_lookup(&f, off) >= 0;
	}
	t2 = now_ns();
	printf("ranges %u bytes %zu parse_ms %.1f lookup_ns %.1f hits %u\n",
	    f.n, (size_t)f.n * sizeof(f.r[0]), (t1 - t0) / 1e6,
	    (t2 - t1) / n, hits);
	elfsym_free(&f);
	return 0;
}
