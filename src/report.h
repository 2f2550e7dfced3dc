/* SPDX-License-Identifier: ISC */
/*
 * report: a recording as one self-contained HTML page to attach to a
 * ticket: the verdict first (summary.h: CPU efficiency, memory against the
 * request, GPU and I/O, flags and how long they lasted, the worst node and
 * rank), the job's metadata, per-node and per-rank tables, then job-wide,
 * per-node and per-rank charts of every metric the nodes sent, as static
 * SVG with the flags and lost nodes marked, and the flags and events.
 * Nothing is fetched from anywhere and no script is needed to read it.
 */
#ifndef JOBTOP_REPORT_H
#define JOBTOP_REPORT_H

#include <stdio.h>

/* Write the report of the recording at path to f: 0, or 1 after an
 * error line. */
int	 report_file(const char *, FILE *);
/* `jobtop report FILE -o report.html`: argv[0] is "report". */
int	 report_main(int, char **);

/* The page around the body (report-page.c), in the order written: head,
 * the policy, style, the catcher script, body, (the body report.c
 * writes), the table-sorting script, end. */
extern const char report_page_head[];
extern const char report_page_style[];
extern const char report_page_catcher_js[];
extern const char report_page_body[];
extern const char report_page_sort_js[];
extern const char report_page_end[];
/* The page's content security policy: no fetch, no script but the two
 * above (by their hashes), no base URI, no form.  Allocated. */
char	*report_page_csp(void);

#endif
