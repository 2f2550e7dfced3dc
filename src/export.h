/*
 * export: a recording played back into records.  The same outputs as live
 * batch mode (JSON records through out_json, or text), so a replay prints
 * what the live run printed; or CSV with one row per time, node, rank and
 * metric.  The functions print their errors (one line on stderr) and
 * return an exit status for main.
 */
#ifndef JOBTOP_EXPORT_H
#define JOBTOP_EXPORT_H

#include <stdio.h>

#include "out.h"

enum export_format {
	EXPORT_JSON,
	EXPORT_TEXT,
	EXPORT_CSV,
};

/*
 * Play the recording at path and write it to f in the format; count > 0
 * stops each node after that many samples (-n; 0: as many as the live run
 * showed, which is all unless it ran with -n).  0, or 1 after an error
 * line; a recording cut short (its monitor was killed) is read to its
 * last whole block with a warning line and is not an error.
 */
int	 export_file(const char *, enum export_format, FILE *, long long);
/* `jobtop export FILE [--csv|--json] [-o OUT]`: argv[0] is "export". */
int	 export_main(int, char **);

#endif
