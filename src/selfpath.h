/* SPDX-License-Identifier: ISC */
/*
 * selfpath: where the running monitor's executable lies.  An install that
 * was moved as a whole (a Spack prefix, a module tree, an unpacked
 * tarball) keeps bin/, libexec/jobtop/ and share/jobtop/ side by side, so
 * the monitor finds its probe, NVML helper and themes from its own path
 * before the directories it was built for.
 */
#ifndef JOBTOP_SELFPATH_H
#define JOBTOP_SELFPATH_H

/* The directory of the running executable, symbolic links resolved
 * (/proc/self/exe), without a trailing '/' ("" for "/"): allocated, or
 * NULL when the kernel does not say. */
char	*selfpath_dir(void);
/* rel under the install prefix, the parent of that directory: for
 * /opt/jt/bin/jobtop and "libexec/jobtop", "/opt/jt/libexec/jobtop".
 * Allocated, or NULL when the executable's path is unknown. */
char	*selfpath_prefixed(const char *);

#endif
