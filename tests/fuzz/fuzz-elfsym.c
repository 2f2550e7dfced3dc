/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the ELF symbol parser of the mpi source
 * (probes/elfsym.c): the bytes of a library a rank maps, which its owner
 * may have written, through elfsym_parse with the probe's own patterns
 * (gloo, c10d), and elfsym_lookup at offsets the input names.  The input
 * is the file image in a buffer of exactly its size (ASan sees a read
 * past it).  Beyond the sanitizers: on success the ranges are at most the
 * cap, sorted, not overlapping, each non-empty, each component a
 * pattern's; the segments at most ELFSYM_LOADS; a lookup at a range's
 * start (where a segment maps it) finds that range's component; the same
 * bytes parse the same way twice; a failure sets a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/elfsym.c"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const struct elfsym_pat pats[] = {
	{ "4gloo", 0 },
	{ "4c10d16ProcessGroupGloo", 0 },
	{ "4c10d16ProcessGroupNCCL", 1 },
	{ "4c10d", 2 },
};
#define NPATS	(sizeof(pats) / sizeof(pats[0]))
#define CAP	512

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsym_file	 f, g;
	const char		*why = NULL, *why2 = NULL;
	unsigned char		*buf;
	unsigned		 i, k;
	uint64_t		 off;
	int			 rc, rc2, c;

	if ((buf = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(buf, data, size);
	rc = elfsym_parse(buf, size, pats, NPATS, CAP, &f, &why);
	rc2 = elfsym_parse(buf, size, pats, NPATS, CAP, &g, &why2);
	if (rc != rc2 || f.n != g.n || f.nload != g.nload ||
	    (f.n > 0 && memcmp(f.r, g.r, f.n * sizeof(f.r[0])) != 0))
		abort();
	if (rc < 0) {
		if (why == NULL || f.r != NULL || f.n != 0)
			abort();
		free(buf);
		return 0;
	}
	if (f.n > CAP || f.nload > ELFSYM_LOADS || (f.n > 0 && f.r == NULL))
		abort();
	for (i = 0; i < f.n; i++) {
		if (f.r[i].len == 0 || f.r[i].comp > 2)
			abort();
		if (i > 0 && f.r[i].start - f.r[i - 1].start <
		    f.r[i - 1].len)
			abort();
		if (i > 0 && f.r[i].start < f.r[i - 1].start)
			abort();
		/* Its start through the first segment that maps it. */
		for (k = 0; k < f.nload; k++) {
			const struct elfsym_load *l = &f.load[k];

			if (f.r[i].start >= l->vaddr &&
			    f.r[i].start - l->vaddr < l->filesz)
				break;
		}
		if (k < f.nload) {
			off = f.r[i].start - f.load[k].vaddr + f.load[k].off;
			c = elfsym_lookup(&f, off);
			/* An earlier segment may cover the offset too, with
			 * another address: only then may the answer differ. */
			for (k = 0; k < f.nload && !(off >= f.load[k].off &&
			    off - f.load[k].off < f.load[k].filesz); k++)
				;
			if (f.load[k].vaddr - f.load[k].off ==
			    f.r[i].start - off && c != f.r[i].comp)
				abort();
		}
	}
	/* Lookups anywhere the input says. */
	for (i = 0; i + 8 <= size && i < 256; i += 8) {
		memcpy(&off, data + i, 8);
		c = elfsym_lookup(&f, off);
		if (c < -1 || c > 2)
			abort();
	}
	elfsym_free(&f);
	elfsym_free(&g);
	free(buf);
	return 0;
}
