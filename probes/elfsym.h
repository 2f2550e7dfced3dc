/* SPDX-License-Identifier: ISC */
/*
 * elfsym: the address ranges of the functions of some C++ namespaces in
 * an ELF shared object (its .dynsym and .symtab), sorted, so that the mpi
 * source can tell a sample in gloo:: or c10d:: code inside libtorch_cpu.so
 * from one in the rest of that library (elfsym.c).
 */
#ifndef JOBTOP_ELFSYM_H
#define JOBTOP_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

#define ELFSYM_LOADS	8	/* executable PT_LOAD segments kept */

/* One function, or adjacent functions of the same component:
 * [start, start + len) in the file's virtual addresses. */
struct elfsym_range {
	uint64_t	start;
	uint32_t	len;
	uint16_t	comp;	/* index of the pattern's component */
	uint16_t	pad;
};

/* An executable segment: file bytes [off, off + filesz) are loaded at
 * vaddr. */
struct elfsym_load {
	uint64_t	off, vaddr, filesz;
};

/* A pattern: a mangled name's nested name (after "_ZN" or "_ZZN" and
 * its qualifiers: "4gloo", "4c10d16ProcessGroupGloo") starts with
 * prefix; the first pattern that matches gives the component. */
struct elfsym_pat {
	const char	*prefix;
	uint16_t	 comp;
};

struct elfsym_file {
	struct elfsym_load	 load[ELFSYM_LOADS];
	unsigned		 nload;
	struct elfsym_range	*r;	/* sorted, not overlapping */
	unsigned		 n;
	unsigned		 truncated;	/* matches over the cap */
};

/*
 * Parse the ELF file image buf of len bytes: its executable segments and
 * the function symbols that match pats, at most max ranges (those over
 * it are counted in truncated), in a malloc'd array.  Looks at most
 * ELFSYM_SYMS_MAX symbols.  0, or -1 with *why set (not an ELF64 file of
 * this machine's byte order, no section table, out of memory).
 */
int	elfsym_parse(const unsigned char *buf, size_t len,
	    const struct elfsym_pat *pats, size_t npat, unsigned max,
	    struct elfsym_file *f, const char **why);
/* The component of the function at file offset off (of the mapping), or
 * -1: none matched there. */
int	elfsym_lookup(const struct elfsym_file *f, uint64_t off);
void	elfsym_free(struct elfsym_file *f);

#endif
