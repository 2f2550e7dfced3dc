/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the parsers of the mpi and power sources: the text
 * of /proc/PID/maps (another user's process, and the paths of what it
 * maps, which that user names) through mpi_maps_parse, one library path
 * through mpi_classify, and a BMC's answer to DCMI Get Power Reading
 * through ipmi_dcmi_decode, and a perf ring's records (written by the
 * kernel, but a misparse reads past them) through mpi_ring_parse.  The
 * probe's files are compiled in whole so that their static parsers can
 * be called.  The low two bits of the input's first byte pick the parser:
 * 1 classify, 2 DCMI, 3 ring, else maps.
 * Properties checked beyond the sanitizers: ranges ascend without
 * overlapping, each non-empty, at most MPI_RANGES, and every library
 * index names a printable stem in the table; an address inside a range is
 * found in it and one below the first is in none; a DCMI answer decodes
 * only when its completion code is 0, its group 0xDC, it has 19 bytes and
 * its reading is active, and then to its bytes 2 and 3; a reason is
 * always a terminated string.  Ring: the data is a buffer of exactly its
 * size (so that ASan sees a read past it), positions anywhere in the u64
 * space (wrap-around of the positions and of the ring); it never stores
 * more samples than mpi_ips holds nor more than the records that fit
 * between tail and head, a sample whose stack named an MPI library is
 * attributed to it, and the same bytes parse the same way twice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/util.c"
#include "../../probes/listpids.c"
#include "../../probes/ranks-find.c"
#include "../../probes/src-ranks.c"
#include "../../probes/elfsym.c"
#include "../../probes/src-mpi.c"
#include "../../probes/src-power.c"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The whole of a maps text, as mpi_read_maps parses it a part at a time. */
static unsigned
mpi_maps_parse(const char *buf, struct mpi_range *r, int *mpi)
{
	uint64_t	last = 0;
	unsigned	n = 0;

	*mpi = 0;
	mpi_maps_more(buf, r, &n, &last, mpi);
	return n;
}

/* What the files call in the rest of the probe; the parsers fuzzed here
 * never reach these, so reaching one is a bug of this target. */
struct pinst *
probe_inst(const struct group_def *g, const char *name)
{
	abort();
}

void
pinst_set(struct pinst *pi, unsigned f, int64_t v)
{
	abort();
}

void
pinst_set_str(struct pinst *pi, unsigned f, const char *s)
{
	abort();
}

void
pinst_set_text(struct pinst *pi, unsigned f, const char *s, int changed)
{
	abort();
}

void
probe_event(int level, const char *code, const char *fmt, ...)
{
	abort();
}

static void
fuzz_name(int lib)
{
	const char	*p;

	if (lib < 0)
		return;
	if ((unsigned)lib >= mpi_nlibnames)
		abort();
	for (p = mpi_libnames[lib]; *p != '\0'; p++) {
		if (*p <= ' ' || *p > '~')
			abort();
	}
	if (p == mpi_libnames[lib] || p - mpi_libnames[lib] >= MPI_LIBLEN)
		abort();
}

static void
fuzz_maps(const char *text)
{
	static struct mpi_rset	rs;
	unsigned		n, i;
	int			mpi, seen = 0;

	n = mpi_maps_parse(text, rs.r, &mpi);
	if (n > MPI_RANGES)
		abort();
	rs.n = n;
	for (i = 0; i < n; i++) {
		if (rs.r[i].start >= rs.r[i].end ||
		    (i > 0 && rs.r[i].start < rs.r[i - 1].end))
			abort();
		if (rs.r[i].lib >= 0)
			seen = 1;
		fuzz_name(rs.r[i].lib);
		if (mpi_lookup(&rs, rs.r[i].start) != rs.r[i].lib ||
		    mpi_lookup(&rs, rs.r[i].end - 1) != rs.r[i].lib)
			abort();
	}
	/* Bit 0: a library of the table (an MPI_EMBED one has a range of
	 * no library: its symbols decide); the others, families. */
	if ((seen && !(mpi & 1)) || (!(mpi & 1) && mpi != 0) ||
	    (mpi & ~((1 << COMM_NFAM) - 1)) != 0)
		abort();
	if (n > 0 && rs.r[0].start > 0 &&
	    mpi_lookup(&rs, rs.r[0].start - 1) != -2)
		abort();
}

static void
fuzz_dcmi(const uint8_t *d, size_t len)
{
	char		why[96];
	unsigned	w = 0;
	int		r;

	memset(why, 'x', sizeof(why));
	r = ipmi_dcmi_decode(d, len, &w, why, sizeof(why));
	if (r == 0 && (len < 19 || d[0] != 0 || d[1] != 0xdc ||
	    (d[18] & 0x40) == 0 || w != ((unsigned)d[2] | d[3] << 8)))
		abort();
	if (r != 0 && memchr(why, '\0', sizeof(why)) == NULL)
		abort();
}

/* A ring: byte 0 its size (64 << (b & 7)), bytes 1-8 the tail, 9-10
 * head - tail, 11-12 how full mpi_ips is already (mod 4097); the rest
 * the data from offset 0, zeros after.  The ranges: an MPI library, other
 * code, a system-call wrapper library. */
static void
fuzz_ring(const uint8_t *d, size_t len)
{
	static struct mpi_rset	rs;
	static uint64_t		first[sizeof(mpi_ips) / sizeof(mpi_ips[0])];
	unsigned char		*ring;
	uint64_t		tail, head, lost, lost2;
	size_t			dsz, cap = sizeof(mpi_ips) / sizeof(mpi_ips[0]);
	unsigned		n0, n, n2, i;
	int			lib;

	if (len < 13)
		return;
	dsz = (size_t)64 << (d[0] & 7);
	memcpy(&tail, d + 1, 8);
	head = tail + ((uint64_t)d[9] | (uint64_t)d[10] << 8);
	n0 = ((unsigned)d[11] | (unsigned)d[12] << 8) % (unsigned)(cap + 1);
	if ((ring = calloc(1, dsz)) == NULL)
		abort();
	memcpy(ring, d + 13, len - 13 < dsz ? len - 13 : dsz);
	lib = mpi_classify("/usr/lib/libmpich.so.12", 23);
	if (lib < 0)
		abort();
	rs.n = 0;
	if (mpi_range_add(rs.r, &rs.n, 0x1000, 0x2000, lib) < 0 ||
	    mpi_range_add(rs.r, &rs.n, 0x2000, 0x3000, MPI_OTHER) < 0 ||
	    mpi_range_add(rs.r, &rs.n, 0x7000, 0x8000, MPI_SYSLIB) < 0)
		abort();
	n = n0;
	lost = mpi_ring_parse(ring, dsz, tail, head, &rs, &n);
	if (n > cap || n < n0)
		abort();
	/* A sample record is 16 bytes at least. */
	if (head - tail <= dsz && n - n0 > (head - tail) / 16)
		abort();
	if (head - tail > dsz && n != n0)
		abort();
	memcpy(first, mpi_ips, sizeof(first));
	n2 = n0;
	lost2 = mpi_ring_parse(ring, dsz, tail, head, &rs, &n2);
	if (n2 != n || lost2 != lost ||
	    memcmp(first + n0, mpi_ips + n0, (n - n0) * 8) != 0)
		abort();
	/* Without ranges the instruction pointers are stored as they are,
	 * so that where they differ the stack gave an MPI address. */
	n2 = n0;
	mpi_ring_parse(ring, dsz, tail, head, NULL, &n2);
	if (n2 != n)
		abort();
	for (i = n0; i < n; i++) {
		if (first[i] != mpi_ips[i] &&
		    (mpi_lookup(&rs, mpi_ips[i]) != MPI_SYSLIB ||
		    mpi_lookup(&rs, first[i]) != lib))
			abort();
	}
	free(ring);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static char	line[65536];

	if (len < 1 || len > sizeof(line))
		return 0;
	memcpy(line, data + 1, len - 1);
	line[len - 1] = '\0';
	switch (data[0] & 3) {
	case 1:
		fuzz_name(mpi_classify(line, len - 1));
		break;
	case 2:
		fuzz_dcmi(data + 1, len - 1);
		break;
	case 3:
		fuzz_ring(data + 1, len - 1);
		break;
	default:
		fuzz_maps(line);
		break;
	}
	return 0;
}
