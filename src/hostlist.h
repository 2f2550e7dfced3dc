/* SPDX-License-Identifier: ISC */
/*
 * hostlist: sets of host names written in Slurm hostlist syntax
 * ("node[01-16,20],gpu3", "rack[1-2]-node[01-03]", "n[1-3]-ib").
 *
 * A hostlist is a set: names are kept without duplicates and in the order
 * ClusterShell's nodeset(1) uses (by name pattern, then by each number in
 * the name, shorter numbers first, so "n9" < "n10" and "n1" < "n01").  Where
 * Slurm and ClusterShell disagree on syntax this module follows
 * ClusterShell: a suffix after brackets is allowed, "[01-100]" is a padding
 * error, "[1-9/2]" steps are accepted.  ClusterShell's set operators (! & ^)
 * and @groups are refused.  Names are separated by commas or, as in Slurm,
 * by blanks (space, tab, newline): a run of blanks with at most one comma
 * is one separator ("a b", "a\nb", "a , b"; "a,,b" is an empty item).
 *
 * Everything is bounded: at most HOSTLIST_MAX_NAMES names (by default) and
 * HOSTLIST_MAX_NAME bytes per name; an expression asking for more is refused
 * before anything is generated.  Functions return HL_OK or a negative HL_E*
 * code and, where they take err/errsz, write one line saying why into err.
 * Nothing here exits, logs or prints.
 */
#ifndef JOBTOP_HOSTLIST_H
#define JOBTOP_HOSTLIST_H

#include <stddef.h>

#define HOSTLIST_MAX_NAMES	1000000	/* default limit on names in a set */
#define HOSTLIST_MAX_NAME	255	/* longest name, in bytes */

enum {
	HL_OK = 0,
	HL_ENOMEM = -1,		/* out of memory */
	HL_ESYNTAX = -2,	/* brackets, empty item, bad character */
	HL_ERANGE = -3,		/* reversed range, bad number or padding */
	HL_ETOOMANY = -4,	/* more names than the set's limit */
	HL_ETOOLONG = -5,	/* a name longer than HOSTLIST_MAX_NAME */
	HL_EEMPTY = -6,		/* empty expression */
};

struct hostlist;

/* A new empty set, or NULL when out of memory. */
struct hostlist	*hostlist_new(void);
void		 hostlist_free(struct hostlist *);
/* Change the limit on names (default HOSTLIST_MAX_NAMES). */
void		 hostlist_set_limit(struct hostlist *, size_t);
/*
 * Make a new set a list: names stay in the order added (an expression's
 * in the order it writes them, "n[3,1]" is n3 then n1), duplicates
 * included, and hostlist_find gives the first.  For the schedulers that
 * number a job's nodes in the order of its node list (Flux's ranks).
 * Call before the first addition; count, get and find only.
 */
void		 hostlist_keep_order(struct hostlist *);

/*
 * Add every name of a hostlist expression.  On error the set is unchanged.
 */
int		 hostlist_push(struct hostlist *, const char *, char *, size_t);
/* Add one literal name (no bracket syntax); same errors as above. */
int		 hostlist_push_name(struct hostlist *, const char *, char *,
		     size_t);
/* Add every name of another set. */
int		 hostlist_merge(struct hostlist *, struct hostlist *);

/*
 * Read access.  These sort and deduplicate pending additions first, which
 * is why they take a non-const set; indexes are valid until the next
 * addition.  hostlist_get returns NULL past the end; hostlist_find returns
 * the index of a name or -1.
 */
size_t		 hostlist_count(struct hostlist *);
const char	*hostlist_get(struct hostlist *, size_t);
long		 hostlist_find(struct hostlist *, const char *);

/*
 * Fold the set into the shortest expression this module knows how to
 * write, ClusterShell style ("gpu3,node[01-16,20]").  *out is a new string
 * the caller frees ("" for an empty set).
 */
int		 hostlist_fold(struct hostlist *, char **);

/* Convenience: a new set holding the names of one expression. */
int		 hostlist_expand(const char *, struct hostlist **, char *,
		     size_t);

/* A short description of an HL_E* code. */
const char	*hostlist_strerror(int);

#endif
