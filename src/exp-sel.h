/* SPDX-License-Identifier: ISC */
/*
 * exp-sel: what an export keeps, from the command line: the time window
 * (--begin, --end) and the metrics (--fields).  Pure parsers over text,
 * with one phrase in err on a mistake; they never print or exit.
 */
#ifndef JOBTOP_EXP_SEL_H
#define JOBTOP_EXP_SEL_H

#include <stddef.h>
#include <stdint.h>

/*
 * A time in a recording that spans start_ms to end_ms (unix ms):
 *   "+5m", "+1h30m", "+90", "+2.5s"  that long after the start;
 *   "-10m"                           that long before the end;
 *   "2026-11-25T12:30:00Z", "2026-11-25T12:30:00+01:00",
 *   "2026-11-25 12:30[:05]"          absolute (no zone: local time);
 *   "12:30[:05]"                     local time on the start's day (the
 *                                    next day when that is before the
 *                                    start and the next is in it);
 *   "@1764073800[.5]"                unix seconds.
 * Units: s, m, h, d (none: seconds).  0 with *t, or -1 with err.
 */
int	 exp_time_parse(const char *, uint64_t, uint64_t, uint64_t *,
	    char *, size_t);

/* A --fields list: comma-separated globs (fnmatch) over metric names
 * "group.field" ("cpu.*", "rank.cpu", "disk.read_*"). */
struct exp_fields;

/* NULL with err when the list is empty or a glob has other characters
 * than letters, digits and _ . * ? [ ] ! - */
struct exp_fields *exp_fields_parse(const char *, char *, size_t);
void	 exp_fields_free(struct exp_fields *);
/* Does group.field match (NULL fields: everything does)? */
int	 exp_fields_match(const struct exp_fields *, const char *,
	    const char *);

#endif
