/* SPDX-License-Identifier: ISC */
/*
 * textsafe: see textsafe.h.
 */
#include <math.h>
#include <stdio.h>

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

void
text_bytes(char *buf, size_t size, double v)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB",
	    "PiB" };
	unsigned	i = 0;

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	while (fabs(v) >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, size, "%.0f B", v);
	else
		snprintf(buf, size, "%.*f %s", fabs(v) >= 100 ? 0 :
		    fabs(v) >= 10 ? 1 : 2, v, u[i]);
}
