/* SPDX-License-Identifier: ISC */
/*
 * elfsym: the function ranges of chosen C++ namespaces in an ELF64 file
 * of this machine's byte order, from its section table's SHT_DYNSYM and
 * SHT_SYMTAB (each with the string table its sh_link names), and its
 * executable PT_LOAD segments, which turn an offset in the file (what a
 * mapping's address is, less its start, plus its offset) into the
 * virtual address the symbols give.
 *
 * The file is another user's (a library a rank maps), so every offset,
 * size and index is checked against the image before use; a symbol whose
 * name runs past its string table, whose section is undefined or special
 * or whose range wraps is skipped.  Only function symbols (STT_FUNC,
 * STT_GNU_IFUNC) of nonzero size count.  The symbols looked at are at most
 * ELFSYM_SYMS_MAX (the cost of a parse is bounded whatever the file);
 * the ranges kept are at most the caller's max, sorted by address with
 * the duplicates .dynsym and .symtab share and adjacent functions of one
 * component merged.
 */
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"

#define ELFSYM_SYMS_MAX	4000000u

#define EHDR_SIZE	64
#define SHDR_MIN	64
#define PHDR_MIN	56
#define SYM_MIN		24
#define SHT_SYMTAB	2
#define SHT_DYNSYM	11
#define PT_LOAD		1
#define PF_X		1
#define STT_FUNC	2
#define STT_GNU_IFUNC	10
#define SHN_LORESERVE	0xff00u

static uint16_t
rd16(const unsigned char *p)
{
	uint16_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t
rd32(const unsigned char *p)
{
	uint32_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t
rd64(const unsigned char *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Is [off, off + n) inside an image of len bytes? */
static int
inside(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

/* The component of the symbol name at s (at most n bytes, maybe without
 * its NUL), or -1. */
static int
elfsym_match(const char *s, size_t n, const struct elfsym_pat *pats,
    size_t npat)
{
	size_t	i = 0, k, pl;

	/* _ZN or _ZZN (a local entity of such a function: a lambda). */
	if (n < 4 || s[0] != '_' || s[1] != 'Z')
		return -1;
	i = 2;
	if (s[i] == 'Z')
		i++;
	if (i >= n || s[i] != 'N')
		return -1;
	/* CV- and ref-qualifiers of a member function. */
	for (i++; i < n && (s[i] == 'K' || s[i] == 'V' || s[i] == 'r' ||
	    s[i] == 'R' || s[i] == 'O'); i++)
		;
	for (k = 0; k < npat; k++) {
		pl = strlen(pats[k].prefix);
		if (pl <= n - i && memcmp(s + i, pats[k].prefix, pl) == 0)
			return pats[k].comp;
	}
	return -1;
}

static int
elfsym_cmp(const void *a, const void *b)
{
	const struct elfsym_range	*x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->len < y->len ? 1 : x->len > y->len ? -1 : 0;
}

/* Add a range, growing the array up to max. */
static int
elfsym_add(struct elfsym_file *f, unsigned *cap, unsigned max,
    uint64_t start, uint64_t size, int comp)
{
	struct elfsym_range	*nr;
	unsigned		 nc;

	if (f->n == max) {
		f->truncated++;
		return 0;
	}
	if (f->n == *cap) {
		nc = *cap == 0 ? 64 : *cap * 2;
		if (nc > max)
			nc = max;
		if ((nr = realloc(f->r, (size_t)nc * sizeof(*nr))) == NULL)
			return -1;
		f->r = nr;
		*cap = nc;
	}
	f->r[f->n].start = start;
	f->r[f->n].len = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	f->r[f->n].comp = (uint16_t)comp;
	f->r[f->n].pad = 0;
	f->n++;
	return 0;
}

/* The matching functions of one symbol table section. */
static int
elfsym_table(const unsigned char *buf, size_t len, const unsigned char *sh,
    const unsigned char *strsh, const struct elfsym_pat *pats, size_t npat,
    unsigned max, struct elfsym_file *f, unsigned *cap, unsigned *seen)
{
	uint64_t	off = rd64(sh + 24), size = rd64(sh + 32);
	uint64_t	ent = rd64(sh + 56), stroff, strsz, i, nsym;
	uint64_t	value, ssize;
	const unsigned char *sym;
	uint32_t	name;
	uint16_t	shndx;
	unsigned	type;
	int		comp;

	stroff = rd64(strsh + 24);
	strsz = rd64(strsh + 32);
	if (ent < SYM_MIN || !inside(off, size, len) ||
	    !inside(stroff, strsz, len))
		return 0;
	nsym = size / ent;
	for (i = 1; i < nsym && *seen < ELFSYM_SYMS_MAX; i++, (*seen)++) {
		sym = buf + off + i * ent;
		name = rd32(sym);
		type = sym[4] & 0xf;
		shndx = rd16(sym + 6);
		value = rd64(sym + 8);
		ssize = rd64(sym + 16);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || ssize == 0 ||
		    shndx == 0 || shndx >= SHN_LORESERVE || name >= strsz ||
		    value + ssize < value)
			continue;
		comp = elfsym_match((const char *)buf + stroff + name,
		    (size_t)(strsz - name), pats, npat);
		if (comp >= 0 && elfsym_add(f, cap, max, value, ssize,
		    comp) < 0)
			return -1;
	}
	return 0;
}

int
elfsym_parse(const unsigned char *buf, size_t len,
    const struct elfsym_pat *pats, size_t npat, unsigned max,
    struct elfsym_file *f, const char **why)
{
	uint64_t	 shoff, phoff, i;
	unsigned	 shentsize, shnum, phentsize, phnum, cap = 0, seen = 0;
	unsigned	 type, link, k, o;
	const unsigned char *sh, *ph;
	uint16_t	 one = 1;

	memset(f, 0, sizeof(*f));
	if (len < EHDR_SIZE || memcmp(buf, "\177ELF", 4) != 0) {
		*why = "not an ELF file";
		return -1;
	}
	/* ELFCLASS64 and this machine's byte order. */
	if (buf[4] != 2 || buf[5] != (*(const unsigned char *)&one ? 1 : 2)) {
		*why = "not an ELF64 file of this machine's byte order";
		return -1;
	}
	phoff = rd64(buf + 32);
	shoff = rd64(buf + 40);
	phentsize = rd16(buf + 54);
	phnum = rd16(buf + 56);
	shentsize = rd16(buf + 58);
	shnum = rd16(buf + 60);
	/* The executable segments. */
	if (phentsize >= PHDR_MIN && inside(phoff, (uint64_t)phnum *
	    phentsize, len)) {
		for (i = 0; i < phnum && f->nload < ELFSYM_LOADS; i++) {
			ph = buf + phoff + i * phentsize;
			if (rd32(ph) != PT_LOAD || !(rd32(ph + 4) & PF_X))
				continue;
			f->load[f->nload].off = rd64(ph + 8);
			f->load[f->nload].vaddr = rd64(ph + 16);
			f->load[f->nload].filesz = rd64(ph + 32);
			f->nload++;
		}
	}
	if (f->nload == 0) {
		*why = "no executable segment";
		return -1;
	}
	if (shentsize < SHDR_MIN || shnum == 0 ||
	    !inside(shoff, (uint64_t)shnum * shentsize, len)) {
		*why = "no section table";
		return -1;
	}
	for (i = 0; i < shnum; i++) {
		sh = buf + shoff + i * shentsize;
		type = rd32(sh + 4);
		if (type != SHT_SYMTAB && type != SHT_DYNSYM)
			continue;
		link = rd32(sh + 40);
		if (link == 0 || link >= shnum)
			continue;
		if (elfsym_table(buf, len, sh, buf + shoff + (uint64_t)link *
		    shentsize, pats, npat, max, f, &cap, &seen) < 0) {
			elfsym_free(f);
			*why = "out of memory";
			return -1;
		}
	}
	if (f->n == 0)
		return 0;
	qsort(f->r, f->n, sizeof(f->r[0]), elfsym_cmp);
	/* Merge duplicates, overlaps and adjacent ranges of a component;
	 * an overlap of two components keeps the first's start. */
	for (k = 1, o = 0; k < f->n; k++) {
		struct elfsym_range	*a = &f->r[o], *b = &f->r[k];
		uint64_t		 aend = a->start + a->len;
		uint64_t		 bend = b->start + b->len;

		if (b->start <= aend && (b->comp == a->comp ||
		    bend <= aend)) {
			if (bend > aend) {
				if (bend - a->start > UINT32_MAX)
					bend = a->start + UINT32_MAX;
				a->len = (uint32_t)(bend - a->start);
			}
			continue;
		}
		if (b->start < aend) {
			/* Overlapping another component: from its end. */
			b->len = (uint32_t)(bend - aend);
			b->start = aend;
		}
		f->r[++o] = *b;
	}
	f->n = o + 1;
	return 0;
}

int
elfsym_lookup(const struct elfsym_file *f, uint64_t off)
{
	const struct elfsym_load	*l;
	uint64_t			 va;
	unsigned			 i, lo, hi, mid;

	for (i = 0; i < f->nload; i++) {
		l = &f->load[i];
		if (off >= l->off && off - l->off < l->filesz)
			break;
	}
	if (i == f->nload)
		return -1;
	va = off - l->off + l->vaddr;
	for (lo = 0, hi = f->n; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if (va < f->r[mid].start)
			hi = mid;
		else if (va - f->r[mid].start >= f->r[mid].len)
			lo = mid + 1;
		else
			return f->r[mid].comp;
	}
	return -1;
}

void
elfsym_free(struct elfsym_file *f)
{
	free(f->r);
	f->r = NULL;
	f->n = 0;
}
