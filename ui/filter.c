/* SPDX-License-Identifier: ISC */
/*
 * filter: a compiled PCRE2 pattern with its match data.  Subjects are
 * matched as bytes (no UTF mode): command names may hold any bytes, and a
 * pattern must never fail on them.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <ctype.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "model.h"
#include "xmalloc.h"

struct filter {
	char			*pattern;
	pcre2_code		*re;
	pcre2_match_data	*md;
};

struct filter *
filter_new(const char *pattern, char *err, size_t errsz)
{
	struct filter	*f;
	PCRE2_UCHAR	 msg[256];
	PCRE2_SIZE	 off;
	uint32_t	 opts = 0;
	const char	*p;
	int		 code;

	for (p = pattern; *p != '\0'; p++) {
		if (isupper((unsigned char)*p))
			break;
	}
	if (*p == '\0')
		opts |= PCRE2_CASELESS;
	f = xcalloc(1, sizeof(*f));
	f->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts,
	    &code, &off, NULL);
	if (f->re == NULL) {
		pcre2_get_error_message(code, msg, sizeof(msg));
		snprintf(err, errsz, "bad pattern at offset %zu: %s",
		    (size_t)off, (const char *)msg);
		free(f);
		return NULL;
	}
	/* The JIT is an optimisation: without it matching still works. */
	(void)pcre2_jit_compile(f->re, PCRE2_JIT_COMPLETE);
	if ((f->md = pcre2_match_data_create_from_pattern(f->re, NULL)) ==
	    NULL) {
		pcre2_code_free(f->re);
		free(f);
		snprintf(err, errsz, "out of memory for the pattern");
		return NULL;
	}
	f->pattern = xstrdup(pattern);
	return f;
}

void
filter_free(struct filter *f)
{
	if (f == NULL)
		return;
	pcre2_match_data_free(f->md);
	pcre2_code_free(f->re);
	free(f->pattern);
	free(f);
}

const char *
filter_pattern(const struct filter *f)
{
	return f != NULL ? f->pattern : "";
}

int
filter_match(const struct filter *f, const char *s)
{
	if (f == NULL)
		return 1;
	if (s == NULL)
		return 0;
	return pcre2_match(f->re, (PCRE2_SPTR)s, strlen(s), 0, 0, f->md,
	    NULL) >= 0;
}

void
filter_rank_fields(const struct node_model *m, unsigned g, int f[2])
{
	f[0] = model_field_index(m, g, "comm");
	f[1] = model_field_index(m, g, "cmdline");
}

int
filter_match_rank(const struct filter *f, const struct minst *mi,
    const int fields[2])
{
	const char	*s;
	unsigned	 k;

	if (f == NULL)
		return 1;
	for (k = 0; k < 2; k++) {
		if (fields[k] >= 0 && (s = model_str(mi,
		    (unsigned)fields[k])) != NULL && filter_match(f, s))
			return 1;
	}
	return 0;
}
