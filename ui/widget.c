/* SPDX-License-Identifier: ISC */
/*
 * widget: the small drawing pieces every panel uses (clipped text, bars,
 * sparklines) and the number formats of the screen.  Text from the nodes
 * (names, commands, wait channels) is shown as printable ASCII (text_clean)
 * so it can never move the cursor or break a column; sparklines are the only
 * multibyte text and are one column per value.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui-priv.h"

/* Eighth blocks U+2581..U+2588, and their ASCII stand-ins. */
static const char *const widget_blocks[8] = {
	"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
	"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"
};
static const char widget_ascii[8] = { '_', '.', ',', '-', '~', '=', '*', '#' };

int
widget_put(int y, int x, int w, attr_t a, const char *s)
{
	char	buf[512];
	int	n;

	if (w <= 0)
		return 0;
	text_clean(buf, sizeof(buf), s);
	n = (int)strlen(buf);
	if (n > w)
		n = w;
	attrset(a);
	mvaddnstr(y, x, buf, n);
	return n;
}

int
widget_putf(int y, int x, int w, attr_t a, const char *fmt, ...)
{
	char	buf[512];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return widget_put(y, x, w, a, buf);
}

int
widget_put_cut(int y, int x, int w, attr_t a, const char *s, int utf8)
{
	char	buf[512];
	int	n;

	if (w <= 0)
		return 0;
	text_clean(buf, sizeof(buf), s);
	n = (int)strlen(buf);
	if (n <= w || w < 2)
		return widget_put(y, x, w, a, buf);
	attrset(a);
	mvaddnstr(y, x, buf, w - 1);
	addstr(utf8 ? "\342\200\246" : "~");
	return w;
}

void
widget_rput(int y, int x, int w, attr_t a, const char *s)
{
	int	n = (int)strlen(s);

	if (n > w) {
		widget_put(y, x, w, a, s + (n - w));
		return;
	}
	widget_put(y, x + w - n, n, a, s);
}

void
widget_fill(int y, int x, int w, attr_t a)
{
	if (w <= 0)
		return;
	attrset(a);
	mvhline(y, x, ' ', w);
}

void
widget_spark(const float *v, unsigned n, double lo, double hi, int utf8,
    char *out, size_t size)
{
	size_t		 len = 0, step = utf8 ? 3 : 1;
	unsigned	 i;
	double		 x, t;
	int		 k;

	if (hi <= lo) {
		hi = lo;
		for (i = 0; i < n; i++)
			if (isfinite(v[i]) && v[i] > hi)
				hi = v[i];
		if (hi <= lo)
			hi = lo + 1;
	}
	for (i = 0; i < n && len + step < size; i++) {
		x = v[i];
		if (!isfinite(x)) {
			out[len++] = ' ';
			continue;
		}
		/* Clamped as a double: a node's value may be far outside
		 * any int (and the conversion would be undefined). */
		t = (x - lo) / (hi - lo) * 8;
		k = !(t > 0) ? 0 : t >= 7 ? 7 : (int)t;
		if (utf8) {
			memcpy(out + len, widget_blocks[k], 3);
			len += 3;
		} else
			out[len++] = widget_ascii[k];
	}
	out[len] = '\0';
}

void
widget_put_spark(int y, int x, attr_t a, const char *s)
{
	attrset(a);
	mvaddstr(y, x, s);
}

void
widget_bar(int y, int x, int w, attr_t bar, attr_t text, double pct,
    const char *label)
{
	int	inner = w - 2, fill, lw, i;
	double	f;

	if (w < 4)
		return;
	attrset(text);
	mvaddch(y, x, '[');
	mvaddch(y, x + w - 1, ']');
	f = pct / 100.0 * inner;
	fill = !(f > 0) ? 0 : f >= inner ? inner : (int)lround(f);
	if (fill < 0)
		fill = 0;
	if (fill > inner)
		fill = inner;
	lw = (int)strlen(label);
	if (lw > inner)
		lw = inner;
	for (i = 0; i < inner; i++) {
		int in_label = i >= inner - lw;

		if (in_label) {
			attrset(text);
			mvaddch(y, x + 1 + i, (chtype)(unsigned char)
			    label[i - (inner - lw)]);
		} else if (i < fill) {
			attrset(bar);
			mvaddch(y, x + 1 + i, '|');
		} else {
			attrset(text);
			mvaddch(y, x + 1 + i, ' ');
		}
	}
}

const char *
widget_bytes(char *buf, size_t size, double v)
{
	static const char	 units[] = "BKMGTPE";
	unsigned		 u = 0;

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return buf;
	}
	while (fabs(v) >= 1024 && u + 1 < sizeof(units) - 1) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f", v);
	else if (fabs(v) < 10)
		snprintf(buf, size, "%.1f%c", v, units[u]);
	else
		snprintf(buf, size, "%.0f%c", v, units[u]);
	return buf;
}

const char *
widget_num(char *buf, size_t size, double v, int decimals)
{
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.*f", decimals, v);
	return buf;
}

const char *
widget_duration(char *buf, size_t size, long s)
{
	if (s < 0)
		snprintf(buf, size, "-");
	else if (s >= 86400)
		snprintf(buf, size, "%ld-%02ld:%02ld:%02ld", s / 86400,
		    s / 3600 % 24, s / 60 % 60, s % 60);
	else if (s >= 3600)
		snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60,
		    s % 60);
	else
		snprintf(buf, size, "%02ld:%02ld", s / 60, s % 60);
	return buf;
}

void
widget_cols(const struct widget_col *c, int n, int w, int *x, int *width)
{
	int	i, used, maxprio = 0, pos, left, grow;

	for (i = 0; i < n; i++) {
		width[i] = c[i].width;
		if (c[i].prio > maxprio)
			maxprio = c[i].prio;
	}
	/* Drop the least important columns until the rest fit. */
	for (;;) {
		used = -1;
		for (i = 0; i < n; i++)
			if (width[i] > 0)
				used += width[i] + 1;
		if (used <= w || maxprio == 0)
			break;
		for (i = n - 1; i >= 0; i--) {
			if (width[i] > 0 && c[i].prio == maxprio) {
				width[i] = 0;
				break;
			}
		}
		if (i < 0)
			maxprio--;
	}
	/* Flex columns grow left to right, each to its max. */
	left = w - used;
	for (i = 0; i < n && left > 0; i++) {
		if (width[i] == 0 || c[i].flex <= width[i])
			continue;
		grow = c[i].flex - width[i];
		if (grow > left)
			grow = left;
		width[i] += grow;
		left -= grow;
	}
	for (i = 0, pos = 0; i < n; i++) {
		x[i] = pos;
		if (width[i] > 0)
			pos += width[i] + 1;
		if (x[i] + width[i] > w)
			width[i] = w - x[i] > 0 ? w - x[i] : 0;
	}
}

void
widget_head(int y, int x0, int w, attr_t head, attr_t sorted,
    const struct widget_col *c, int n, const int *x, const int *width,
    int sort, int rev, int utf8)
{
	char	buf[128];
	int	i;

	widget_fill(y, x0, w, head);
	for (i = 0; i < n; i++) {
		if (width[i] == 0)
			continue;
		if (i == sort) {
			/* The title (cut to leave room) and an arrow. */
			snprintf(buf, sizeof(buf), "%.*s%s", width[i] - 1,
			    c[i].title, rev ? (utf8 ? "\xe2\x96\xbc" : "v") :
			    (utf8 ? "\xe2\x96\xb2" : "^"));
			widget_fill(y, x0 + x[i], width[i], sorted);
			attrset(sorted);
			if (c[i].right && (int)strlen(c[i].title) + 1 <=
			    width[i])
				mvaddstr(y, x0 + x[i] + width[i] - 1 -
				    (int)strlen(c[i].title), buf);
			else
				mvaddstr(y, x0 + x[i], buf);
			continue;
		}
		if (c[i].right)
			widget_rput(y, x0 + x[i], width[i], head, c[i].title);
		else
			widget_put(y, x0 + x[i], width[i], head, c[i].title);
	}
}
