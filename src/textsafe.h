/* SPDX-License-Identifier: ISC */
/*
 * textsafe: the one filter for text that comes from outside jobtop (probe
 * strings, node error text, recordings, scheduler output) before it is
 * kept, and again before it reaches a terminal, a log or a text output.
 *
 * Only printable ASCII passes: every byte below 0x20 (tab included), DEL
 * and every byte of 0x80 and above becomes '?'.  So no C0 or C1 control,
 * no escape sequence, no UTF-8 C1 (U+0080-U+009F) and no bidi override can
 * reach a terminal through it.  (JSON output keeps valid UTF-8 and escapes
 * controls itself: see out_json_string.)
 */
#ifndef JOBTOP_TEXTSAFE_H
#define JOBTOP_TEXTSAFE_H

#include <stddef.h>

/* Copy s into buf (size bytes, always terminated, truncated), cleaned;
 * returns buf ("" when size is 0). */
const char	*text_clean(char *buf, size_t size, const char *s);
/* Clean s in place; returns s. */
char		*text_clean_inplace(char *s);
/* 1 when s holds only what text_clean lets through. */
int		 text_is_clean(const char *s);
/* Bytes for people, in binary units: "512 B", "3.10 GiB", "12.5 MiB",
 * "-" when not finite (the summary, the report, the detectors' hints). */
void		 text_bytes(char *buf, size_t size, double v);

#endif
