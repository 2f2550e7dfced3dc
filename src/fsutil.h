/*
 * fsutil: small file-system helpers the monitor's modules share.
 */
#ifndef JOBTOP_FSUTIL_H
#define JOBTOP_FSUTIL_H

/* Create every missing directory above path (mkdir -p of its dirname),
 * mode 0700.  0, or -1 with errno. */
int	 fs_mkdir_parents(const char *);

#endif
