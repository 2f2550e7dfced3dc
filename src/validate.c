/* SPDX-License-Identifier: ISC */
/*
 * validate: PCRE2 patterns for host names, job ids and user names.
 *
 * The patterns are compiled the first time they are needed and kept in
 * static module state.  They are anchored with \A and \z (not ^ and $,
 * which would let a trailing newline through) and matched against the
 * whole C string, so an embedded newline or NUL never sneaks a second
 * token past them.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <pcre2.h>
#include <stddef.h>
#include <string.h>

#include "validate.h"

enum {
	VP_HOST,
	VP_USER,
	VP_SLURM,
	VP_PBS,
	VP_LSF,
	VP_OAR,
	VP_FLUX,
	VP_COUNT
};

/* f58 is base58 (no 0, O, I, l) after 'f' or U+0192 in UTF-8 (c6 92). */
#define VP_F58	"(?:f|\\xc6\\x92)[1-9A-HJ-NP-Za-km-z]{1,16}"
#define VP_NUM	"[0-9]{1,10}"

static const char *validate_src[VP_COUNT] = {
	/*
	 * VP_HOST: dot-separated labels of letters, digits, '-' and '_'.
	 * '_' is not DNS but sites use it ("rack[0-63]_blade[0-41]" is in
	 * Slurm's slurm.conf documentation) and OpenSSH and /etc/hosts take
	 * it; no shell or ssh reads it specially.  A label never starts or
	 * ends with '-' (ssh would read "-oProxyCommand=..." as an option).
	 */
	"\\A(?=[^\\n]{1,253}\\z)"
	"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
	"(?:\\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\\z",
	/* VP_USER */
	"\\A[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}\\z",
	/* VP_SLURM */
	"\\A" VP_NUM "(?:_" VP_NUM "|\\+[0-9]{1,5})?\\z",
	/* VP_PBS: the server part is a host name */
	"\\A" VP_NUM "(?:\\[[0-9]{0,10}\\])?"
	"(?:\\.[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)?\\z",
	/* VP_LSF */
	"\\A" VP_NUM "(?:\\[" VP_NUM "\\])?\\z",
	/* VP_OAR */
	"\\A" VP_NUM "\\z",
	/* VP_FLUX */
	"\\A(?:" VP_F58 "|[0-9]{1,20})\\z",
};

static pcre2_code	*validate_code[VP_COUNT];
static int		 validate_failed[VP_COUNT];

/* Match s against pattern i, compiling it on first use. */
static int
validate_match(int i, const char *s)
{
	pcre2_match_data	*md;
	PCRE2_SIZE		 erroff;
	int			 errcode, rc;

	if (s == NULL || validate_failed[i])
		return 0;
	if (validate_code[i] == NULL) {
		validate_code[i] = pcre2_compile((PCRE2_SPTR)validate_src[i],
		    PCRE2_ZERO_TERMINATED, 0, &errcode, &erroff, NULL);
		if (validate_code[i] == NULL) {
			validate_failed[i] = 1;
			return 0;
		}
	}
	if ((md = pcre2_match_data_create_from_pattern(validate_code[i],
	    NULL)) == NULL)
		return 0;
	rc = pcre2_match(validate_code[i], (PCRE2_SPTR)s, strlen(s), 0, 0,
	    md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0;
}

int
validate_hostname(const char *s)
{
	return validate_match(VP_HOST, s);
}

int
validate_username(const char *s)
{
	return validate_match(VP_USER, s);
}

int
validate_jobid(const char *s, enum validate_job kind)
{
	switch (kind) {
	case VJ_SLURM:
		return validate_match(VP_SLURM, s);
	case VJ_PBS:
		return validate_match(VP_PBS, s);
	case VJ_LSF:
		return validate_match(VP_LSF, s);
	case VJ_OAR:
		return validate_match(VP_OAR, s);
	case VJ_FLUX:
		return validate_match(VP_FLUX, s);
	case VJ_ANY:
		return validate_match(VP_SLURM, s) ||
		    validate_match(VP_PBS, s) || validate_match(VP_LSF, s) ||
		    validate_match(VP_OAR, s) || validate_match(VP_FLUX, s);
	}
	return 0;
}

void
validate_cleanup(void)
{
	int	i;

	for (i = 0; i < VP_COUNT; i++) {
		pcre2_code_free(validate_code[i]);
		validate_code[i] = NULL;
		validate_failed[i] = 0;
	}
}
