/* SPDX-License-Identifier: ISC */
/*
 * validate: the shapes of the strings jobtop takes from users and from
 * scheduler output before it uses them (as an argument to a command, as an
 * SSH destination, in a file name).  PCRE2 patterns, compiled once.
 *
 * Every function returns 1 when the string has the shape, 0 otherwise
 * (also when a pattern could not be compiled: refusing is the safe side).
 */
#ifndef JOBTOP_VALIDATE_H
#define JOBTOP_VALIDATE_H

enum validate_job {
	VJ_ANY,		/* any of the forms below */
	VJ_SLURM,	/* 123, array task 123_4, het component 123+1 */
	VJ_PBS,		/* 123, 123.server, array 123[].server, 123[4] */
	VJ_LSF,		/* 123, array element 123[4] */
	VJ_OAR,		/* 123 */
	VJ_FLUX,	/* f58 (fA1b2C3, or with U+0192 'ƒ'), or decimal */
};

/*
 * A host name: RFC 1123 labels of letters, digits and '-' (not first or
 * last in a label, at most 63 bytes), joined by dots, 253 bytes at most.
 * No shell metacharacters, spaces, '@' or ':' can pass.
 */
int	validate_hostname(const char *);
/* A job id of the given scheduler's form. */
int	validate_jobid(const char *, enum validate_job);
/* A user or group name: [A-Za-z0-9_][A-Za-z0-9_.-]*, 32 bytes at most. */
int	validate_username(const char *);
/* Drop the compiled patterns (for leak checkers; compiled again on use). */
void	validate_cleanup(void);

#endif
