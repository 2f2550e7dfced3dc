/* SPDX-License-Identifier: ISC */
/*
 * ladder: the remote transports (remote/feed-*.c) as one registry, the
 * ladder between them, and their constructors.  Only src/main.c, the
 * remote/ files and tests include this: the monitor core sees transports
 * through src/feed.h alone.
 */
#ifndef JOBTOP_LADDER_H
#define JOBTOP_LADDER_H

#include <stddef.h>

#include "feed.h"

struct rconf;
struct rsess;

/* The registry, ending with a NULL name; src/main.c registers it with
 * feed_register_transports. */
extern const struct feed_transport feed_transports[];

/* Does the registry's transport name have flag (FEED_T_SSH, ...)? */
int		 feed_transport_has(const char *, int);
/* The names of the transports with flag, "libssh2, ssh", into buf. */
const char	*feed_transports_with(int, char *, size_t);
/* A node through transport name ("auto": the ladder), NULL with the
 * reason in err. */
struct feed	*feed_new_remote(const char *, const struct rconf *,
		    const char *, char *, size_t);
/* The constructors behind feed_transports[] (remote/feed-*.c). */
struct feed	*feed_new_libssh2(const struct rconf *, const char *, char *,
		    size_t);
int		 feed_libssh2_usable(const struct rconf *, const char *,
		    char *, size_t);
/* A feed over an rsess the caller keeps: feed_free leaves it open. */
struct feed	*feed_libssh2_of(struct rsess *);
/* The session behind a libssh2 feed, NULL for any other feed. */
struct rsess	*feed_libssh2_rsess(struct feed *);
/* After libssh2's authentication was refused for host: 1 with the reason
 * in why when it offered an RSA key that this libssh2 signs with SHA-1
 * only (which OpenSSH 8.8 and later refuse), else 0. */
int		 feed_libssh2_rsa_why(const struct rconf *, const char *,
		    char *, size_t);
/* "1.10.0": the libssh2 this program runs with. */
const char	*feed_libssh2_version(void);
struct feed	*feed_new_ssh(const struct rconf *, const char *, char *,
		    size_t);
/*
 * The ladder's one decision: after transport cur ended for a node with
 * class fail (and reason), the next transport to try, or NULL to stay
 * failed.  why gets the reason to record ("libssh2: RSA key needs
 * rsa-sha2 signatures (libssh2 1.10 signs SHA-1 only)").  The place where
 * "SSH refused -> the scheduler's launcher" goes.
 */
const char	*feed_ladder_next(const struct rconf *, const char *,
		    const char *, enum feed_fail, const char *, char *,
		    size_t);

#endif
