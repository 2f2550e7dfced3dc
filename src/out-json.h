/* SPDX-License-Identifier: ISC */
/*
 * out-json: newline-delimited JSON records, one per node per sample, one
 * per rank, and one per HELLO, EVENT and BYE.  The helpers below write
 * JSON scalars and are meant for every JSON writer of the monitor.
 */
#ifndef JOBTOP_OUT_JSON_H
#define JOBTOP_OUT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A quoted JSON string: quotes, backslashes and control characters (C0,
 * DEL, C1) are escaped, and so are U+2028/2029 and the bidi controls
 * (U+200E/F, U+202A-202E, U+2066-2069); invalid UTF-8 becomes \ufffd. */
void	out_json_string(FILE *, const char *, size_t);
/* A number: integers exactly, others with at most 3 decimals; a value
 * that is not finite is written as null. */
void	out_json_number(FILE *, double);
/* Unix milliseconds as seconds with 3 decimals. */
void	out_json_time(FILE *, uint64_t);

struct node_model;
struct minst;
/*
 * Flags for records (batch mode's detectors): once a hook is set, node
 * records (minst NULL) and rank records carry "flags": [...] with the
 * names the hook writes into names[] (it returns how many, at most max).
 * NULL removes the hook.
 */
void	out_json_set_flags(int (*)(void *, const struct node_model *,
	    const struct minst *, const char **, int), void *);

/*
 * A filter of keys (export --fields): once set, a node or rank key
 * "group.field" is printed only when the hook returns non-zero; a rank
 * record's rank, pid and state always are.  NULL removes it.
 */
void	out_json_set_keep(int (*)(void *, const char *, const char *),
	    void *);

/*
 * One value as the records show it (and every export writes it): strings
 * as they are, gauges as integers ("centi" ones / 100 as doubles),
 * counters as rates and the rest through model_metric.  0 when absent.
 */
struct out_json_val {
	int		 kind;		/* 'i' int, 'd' double, 's' string */
	int64_t		 i;
	double		 d;
	const char	*s;
};
int	out_json_value(const struct node_model *, const struct minst *,
	    unsigned, struct out_json_val *);

#endif
