/* SPDX-License-Identifier: ISC */
/*
 * textsafe: see textsafe.h.
 */
#include "textsafe.h"

static inline int
textsafe_ok(unsigned char c)
{
	return c >= ' ' && c < 0x7f;
}

const char *
text_clean(char *buf, size_t size, const char *s)
{
	size_t	i;

	if (size == 0)
		return "";
	for (i = 0; i + 1 < size && s[i] != '\0'; i++)
		buf[i] = textsafe_ok((unsigned char)s[i]) ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

char *
text_clean_inplace(char *s)
{
	char	*p;

	for (p = s; *p != '\0'; p++)
		if (!textsafe_ok((unsigned char)*p))
			*p = '?';
	return s;
}

int
text_is_clean(const char *s)
{
	for (; *s != '\0'; s++)
		if (!textsafe_ok((unsigned char)*s))
			return 0;
	return 1;
}
