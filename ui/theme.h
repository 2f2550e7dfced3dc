/* SPDX-License-Identifier: ISC */
/*
 * theme: the colour and attributes of each semantic role on the screen
 * (the header, a selected row, a stalled flag...).  A theme is a text file
 * of lines "ROLE = VALUE" or "ROLE.fg = COLOUR", "ROLE.bg = COLOUR",
 * "ROLE.attr = ATTR[,ATTR]", where VALUE is a comma-separated list of
 * "COLOUR", "COLOUR on COLOUR", "on COLOUR" and attributes (bold, dim,
 * underline, reverse, standout, italic, blink, normal).  Colours: default,
 * black, red, green, yellow, blue, magenta, cyan, white, gray, bright-NAME,
 * colorN (0-255) and #rrggbb; they are fitted to the terminal's COLORS when
 * applied.  A role a theme leaves out takes the "default" role's colours.
 *
 * Themes are found by name in $XDG_CONFIG_HOME/jobtop/themes (else
 * ~/.config/jobtop/themes), $JOBTOP_DATADIR/themes, share/jobtop/themes
 * of the install the executable is in (../share/jobtop/themes from its
 * directory: a relocated install), the data directory the monitor was
 * built for and ./themes; "default" is also compiled in.  A
 * name with a '/' or ending in ".theme" is a path.
 */
#ifndef JOBTOP_THEME_H
#define JOBTOP_THEME_H

#include <stddef.h>

enum theme_role {
	TR_DEFAULT,
	TR_TITLE,
	TR_HEADER,
	TR_HEADER_LABEL,
	TR_METER_BAR,
	TR_METER_TEXT,
	TR_SPARK,
	TR_TABLE_HEAD,
	TR_TABLE_SORT,
	TR_TABLE_ROW,
	TR_TABLE_SELECTED,
	TR_TABLE_GROUP,
	TR_OUTLIER,
	TR_FLAG_STALLED,
	TR_FLAG_STRAGGLER,
	TR_FLAG_MEMORY,
	TR_FLAG_LOST,
	TR_STATE_LIVE,
	TR_STATE_CONNECTING,
	TR_STATE_LOST,
	TR_STATE_FAILED,
	TR_EVENT_INFO,
	TR_EVENT_WARN,
	TR_EVENT_ERROR,
	TR_LABEL,
	TR_STATUS,
	TR_STATUS_KEY,
	TR_STATUS_ERROR,
	TR_HELP_KEY,
	TR_NROLES
};

/* Attribute bits of a theme (mapped to curses attributes when applied). */
#define THEME_BOLD	0x01
#define THEME_DIM	0x02
#define THEME_UNDERLINE	0x04
#define THEME_REVERSE	0x08
#define THEME_STANDOUT	0x10
#define THEME_ITALIC	0x20
#define THEME_BLINK	0x40

/* Colour values: THEME_COLOR_DEFAULT, 0-255, or THEME_RGB | 0xrrggbb. */
#define THEME_COLOR_DEFAULT	(-1)
#define THEME_COLOR_UNSET	(-2)
#define THEME_RGB		0x1000000

struct theme_style {
	int		 fg;
	int		 bg;
	unsigned	 attr;
	int		 attr_set;
};

struct theme {
	char			*name;
	struct theme_style	 style[TR_NROLES];
};

/* The role's name in theme files ("flag.stalled"), and back (-1). */
const char	*theme_role_name(enum theme_role);
int		 theme_role_by_name(const char *, size_t);

/* Parse theme text; origin names it in errors ("themes/x.theme").  NULL
 * with "ORIGIN:LINE: what" in err. */
struct theme	*theme_parse(const char *, const char *, const char *, char *,
		     size_t);
/* Load a theme by name or path (see above).  NULL with the reason. */
struct theme	*theme_load(const char *, char *, size_t);
/* The compiled-in default theme's text. */
const char	*theme_default_text(void);
void		 theme_free(struct theme *);

/* The names of every theme found (default, dark, light, mono first, then
 * the others in order); *n set.  Free with theme_names_free. */
char		**theme_names(size_t *);
void		 theme_names_free(char **, size_t);
/* Where themes are taken from, for --version: the search directories that
 * exist, in order, and "built-in default", comma-separated (allocated). */
char		*theme_where(void);

/* Map a colour to one of ncolors (8, 16, 256...): -1 stays default. */
int		 theme_fit_color(int, int);

#endif
