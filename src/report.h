/*
 * report: a recording as one self-contained HTML page to attach to a
 * ticket: the job's metadata, job-wide and per-node plots of the main
 * metrics (CPU busy, memory used, disk and network rates, load), per-rank
 * CPU and RSS, the events and the flagged ranks and nodes.  Nothing is
 * fetched from anywhere: the CSS, the script that draws the plots (SVG)
 * and the data are inside the page.
 */
#ifndef JOBTOP_REPORT_H
#define JOBTOP_REPORT_H

#include <stdio.h>

/* Write the report of the recording at path to f: 0, or 1 after an
 * error line. */
int	 report_file(const char *, FILE *);
/* `jobtop report FILE -o report.html`: argv[0] is "report". */
int	 report_main(int, char **);

/* The page around the data (report-page.c), in the order written: head,
 * the policy, style, the catcher script, body, the data, data_end, the
 * drawing script, end. */
extern const char report_page_head[];
extern const char report_page_style[];
extern const char report_page_catcher_js[];
extern const char report_page_body[];
extern const char report_page_data_end[];
extern const char report_page_draw_js[];
extern const char report_page_end[];
/* The page's content security policy: no fetch, no script but the two
 * above (by their hashes), no base URI, no form.  Allocated. */
char	*report_page_csp(void);

#endif
