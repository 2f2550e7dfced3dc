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

/* The page around the data (report-page.c). */
extern const char report_page_head[];
extern const char report_page_tail[];

#endif
