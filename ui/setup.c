/* SPDX-License-Identifier: ISC */
/*
 * setup: the setup screen (F2) and the screen's side of the settings
 * file.  The screen is a list of items, each a setting with its current
 * value; Left and Right (or Space and Enter) change the selected one, and
 * the change applies at once, as the equivalent key would (t, s, f, +/-).
 * `w` writes every value to jobtoprc through config_save, which keeps the
 * file's other lines; nothing is written otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "config.h"
#include "log.h"
#include "setup.h"
#include "ui-priv.h"
#include "xmalloc.h"

/* The fixed items, then one per column of each bound table. */
enum {
	SI_THEME,
	SI_NSORT,
	SI_RSORT,
	SI_FOLD,
	SI_INTERVAL,
	SI_NFIXED
};

static const char *const setup_labels[SI_NFIXED] = {
	"Theme", "Node table sort", "Rank table sort", "Fold look-alikes",
	"Sample interval"
};

static const char *const setup_folds[] = {
	"when the nodes do not fit", "always", "never"
};

/* The bound tables, in the order the screen lists their columns. */
static const struct setup_table *const setup_tables[] = {
	&setup_node_table,
	&setup_rank_table,
};
#define SETUP_NTABLES	(sizeof(setup_tables) / sizeof(setup_tables[0]))

static int
setup_ncols(const struct setup_table *t)
{
	return (int)columns_count(t->columns);
}

static const char *
setup_col_title(const struct setup_table *t, int i)
{
	const char	*s = columns_title(t->columns, (unsigned)i);

	return s != NULL ? s : "?";
}

static const char *
setup_col_key(const struct setup_table *t, int i)
{
	const char	*s = columns_key(t->columns, (unsigned)i);

	return s != NULL ? s : "?";
}

/* One warning about the settings file's line LINE. */
static void
setup_warn(struct ui *ui, const struct config *c, int line,
    const char *what)
{
	char	text[512], pb[200];

	snprintf(text, sizeof(text), "%s:%d: %s",
	    text_clean(pb, sizeof(pb), c->path != NULL ? c->path :
	    "jobtoprc"), line, what);
	ui_warn(ui, text);
}

/* Sort table T by column COL; desc < 0: the column's natural way. */
static void
setup_sort_set(struct ui *ui, const struct setup_table *t, int col, int desc)
{
	struct ui_table	*tab = t->tab(ui);
	int		 nat = 0;

	t->col_sortable(col, &nat);
	tab->sort = col;
	tab->rev = desc < 0 ? nat : desc;
	ui->view_gen++;
	ui->dirty = 1;
}

static void
setup_apply_sort(struct ui *ui, const struct config *c,
    const struct setup_table *t, const struct config_sort *so)
{
	char	what[256], k[64];
	int	col, desc;

	if (so->column == NULL)
		return;
	if ((col = columns_find(t->columns, so->column)) < 0 ||
	    !t->col_sortable(col, &desc)) {
		snprintf(what, sizeof(what), "the %s table %s '%s'", t->name,
		    col < 0 ? "has no column" : "cannot sort by",
		    text_clean(k, sizeof(k), so->column));
		setup_warn(ui, c, so->line, what);
		return;
	}
	setup_sort_set(ui, t, col, so->desc);
}

/* A columns setting (columns.h's spec) for table T. */
static void
setup_apply_columns(struct ui *ui, const struct config *c,
    const struct setup_table *t, const char *spec, int line)
{
	char	err[256];

	if (spec == NULL)
		return;
	if (columns_parse(t->columns, spec, err, sizeof(err)) != 0)
		setup_warn(ui, c, line, err);
	ui->view_gen++;
}

void
setup_apply(struct ui *ui, const struct config *c)
{
	if (c == NULL)
		return;
	if (config_fold_name(c->fold) != NULL)
		ui->fold = c->fold;	/* enum ui_fold is in the same order */
	setup_apply_sort(ui, c, &setup_node_table, &c->sort);
	setup_apply_sort(ui, c, &setup_rank_table, &c->rank_sort);
	setup_apply_columns(ui, c, &setup_node_table, c->node_columns,
	    c->node_columns_line);
	setup_apply_columns(ui, c, &setup_rank_table, c->rank_columns,
	    c->rank_columns_line);
}

void
setup_open(struct ui *ui)
{
	if (ui_view(ui) == UV_SETUP)
		return;
	ui->stab.sel = ui->stab.top = 0;
	ui_push(ui, UV_SETUP);
}

/*
 * Table T's columns setting to save (allocated): the changes from the
 * default set ("-load,+user"), so that a later version's new columns
 * still show; "default" when there are none but the file had a setting;
 * else NULL.
 */
static char *
setup_columns_text(const struct setup_table *t, const char *had)
{
	char		 cur[1024], err[256], *s, *n;
	unsigned	 i, nc = columns_count(t->columns);
	uint64_t	 shown = 0;

	if (!columns_changed(t->columns))
		return had != NULL ? xstrdup("default") : NULL;
	/* The defaults, seen by resetting; then the choice back. */
	columns_string(t->columns, cur, sizeof(cur));
	for (i = 0; i < nc && i < 64; i++)
		if (columns_shown(t->columns, i))
			shown |= (uint64_t)1 << i;
	columns_reset(t->columns);
	s = xstrdup("");
	for (i = 0; i < nc && i < 64; i++) {
		if (!(shown >> i & 1) == !columns_shown(t->columns, i))
			continue;
		n = xasprintf("%s%s%c%s", s, *s != '\0' ? "," : "",
		    shown >> i & 1 ? '+' : '-', columns_key(t->columns, i));
		free(s);
		s = n;
	}
	if (columns_parse(t->columns, cur, err, sizeof(err)) != 0)
		log_warn("setup: the columns %s could not be restored: %s",
		    cur, err);
	return s;
}

static void
setup_sort_get(struct ui *ui, const struct setup_table *t,
    struct config_sort *so)
{
	struct ui_table	*tab = t->tab(ui);

	if (tab->sort < 0 || tab->sort >= setup_ncols(t))
		return;
	so->column = xstrdup(setup_col_key(t, tab->sort));
	so->desc = tab->rev != 0;
}

int
setup_save(struct ui *ui)
{
	const struct config	*cur = ui->conf.settings;
	struct config		 c;
	char			 err[1024], *path;
	double			 ivl;

	config_init(&c);
	if (ui->theme_arg != NULL)
		c.theme = xstrdup(ui->theme_arg);
	setup_sort_get(ui, &setup_node_table, &c.sort);
	setup_sort_get(ui, &setup_rank_table, &c.rank_sort);
	c.fold = ui->fold;
	/* A replay's interval is the recording's: not a setting. */
	if (ui_live(ui)) {
		ivl = ui->interval_ms / 1000.0;
		if (ivl >= CONFIG_IVL_MIN && ivl <= CONFIG_IVL_MAX)
			c.interval = ivl;
	}
	c.node_columns = setup_columns_text(&setup_node_table,
	    cur != NULL ? cur->node_columns : NULL);
	c.rank_columns = setup_columns_text(&setup_rank_table,
	    cur != NULL ? cur->rank_columns : NULL);
	/* Not on the screen: kept as read. */
	if (cur != NULL)
		c.alloc_after = cur->alloc_after;
	/* The file they came from (an old jobtop.conf) keeps its lines. */
	if (cur != NULL && cur->path != NULL)
		c.path = xstrdup(cur->path);
	if (config_save(&c, NULL, err, sizeof(err)) != 0) {
		ui_message(ui, 1, "%s", err);
		config_free(&c);
		return -1;
	}
	config_free(&c);
	path = config_default_path();
	ui_message(ui, 0, "settings saved to %s", path != NULL ? path :
	    "jobtoprc");
	free(path);
	return 0;
}

/* How many items: the fixed ones and every column of every table. */
static int
setup_nitems(void)
{
	size_t	i;
	int	n = SI_NFIXED;

	for (i = 0; i < SETUP_NTABLES; i++)
		n += setup_ncols(setup_tables[i]);
	return n;
}

/* Item k as a column: its table and column index; 0 when not one. */
static int
setup_item_col(int k, const struct setup_table **t, int *col)
{
	size_t	i;

	if (k < SI_NFIXED)
		return 0;
	k -= SI_NFIXED;
	for (i = 0; i < SETUP_NTABLES; i++) {
		if (k < setup_ncols(setup_tables[i])) {
			*t = setup_tables[i];
			*col = k;
			return 1;
		}
		k -= setup_ncols(setup_tables[i]);
	}
	return 0;
}

/* The value of item k, as the screen shows it. */
static void
setup_value(const struct ui *ui, int k, char *buf, size_t size)
{
	const struct setup_table	*t = k == SI_NSORT ? &setup_node_table :
					    &setup_rank_table;
	const struct ui_table		*tab;
	int				 col;

	switch (k) {
	case SI_THEME:
		snprintf(buf, size, "%s%s", ui->theme->name, ui->no_color ?
		    " (NO_COLOR: attributes only)" : "");
		return;
	case SI_NSORT:
	case SI_RSORT:
		tab = k == SI_NSORT ? &ui->ntab : &ui->rtab;
		if (tab->sort >= 0 && tab->sort < setup_ncols(t))
			snprintf(buf, size, "%s, %s (%s)", setup_col_title(t,
			    tab->sort), tab->rev ? "descending" : "ascending",
			    setup_col_key(t, tab->sort));
		else
			snprintf(buf, size, "?");
		return;
	case SI_FOLD:
		snprintf(buf, size, "%s", ui->fold >= 0 && ui->fold < 3 ?
		    setup_folds[ui->fold] : "?");
		return;
	case SI_INTERVAL:
		if (ui_live(ui))
			snprintf(buf, size, "%.3g s", ui->interval_ms / 1000.0);
		else
			snprintf(buf, size, "the recording's (display "
			    "refresh %.3g s)", ui->refresh_ms / 1000.0);
		return;
	}
	if (setup_item_col(k, &t, &col))
		snprintf(buf, size, "[%c] %-12s %s", columns_shown(t->columns,
		    (unsigned)col) ? 'x' : ' ', setup_col_title(t, col),
		    setup_col_key(t, col));
	else
		buf[0] = '\0';
}

/* Step table T's sort column in direction DIR over its sortable ones. */
static void
setup_sort_step(struct ui *ui, const struct setup_table *t, int dir)
{
	struct ui_table	*tab = t->tab(ui);
	int		 n = setup_ncols(t), col = tab->sort, i, desc;

	/* Over the columns shown: the sort keys step over hidden ones. */
	for (i = 0; i < n; i++) {
		col = (col + dir + n) % n;
		if (t->col_sortable(col, &desc) &&
		    columns_shown(t->columns, (unsigned)col))
			break;
	}
	setup_sort_set(ui, t, col, -1);
}

/* Change item k: dir -1 (Left), +1 (Right), 0 (Space, Enter). */
static void
setup_change(struct ui *ui, int k, int dir)
{
	const struct setup_table	*t;
	int				 col;

	switch (k) {
	case SI_THEME:
		ui_theme_step(ui, dir < 0 ? -1 : 1);
		return;
	case SI_NSORT:
	case SI_RSORT:
		t = k == SI_NSORT ? &setup_node_table : &setup_rank_table;
		if (dir == 0) {
			t->tab(ui)->rev = !t->tab(ui)->rev;
			ui->view_gen++;
		} else
			setup_sort_step(ui, t, dir);
		return;
	case SI_FOLD:
		ui->fold = (ui->fold + (dir < 0 ? 2 : 1)) % 3;
		return;
	case SI_INTERVAL:
		ui_refresh_step(ui, dir < 0 ? -1 : 1);
		return;
	}
	if (setup_item_col(k, &t, &col) && columns_set(t->columns,
	    setup_col_key(t, col), !columns_shown(t->columns,
	    (unsigned)col)) != 0)
		ui_message(ui, 1, "the %s table's last column cannot be hidden",
		    t->name);
	ui->view_gen++;
}

static int
setup_height(const struct ui *ui, int avail)
{
	return -1;
}

/* The lines above the items. */
#define SETUP_HEAD	4

static void
setup_prepare(struct ui *ui, const struct ui_rect *r)
{
	int	n = setup_nitems(), h = r->h - SETUP_HEAD - 2;

	if (h < 1)
		h = 1;
	ui_table_clamp(&ui->stab, n, h);
}

static void
setup_draw(const struct ui *ui, const struct ui_rect *r)
{
	const struct setup_table	*t, *last = NULL;
	char				 buf[256], val[200], pb[200], *path;
	int				 y = r->y, k, n = setup_nitems(), col;
	attr_t				 a;

	widget_put(y++, r->x, r->w, ui->attr[TR_TITLE], "Setup");
	path = config_default_path();
	snprintf(buf, sizeof(buf), "Changes apply at once; w writes them to "
	    "%s (nothing is saved otherwise).", path != NULL ?
	    text_clean(pb, sizeof(pb), path) : "jobtoprc (no HOME)");
	free(path);
	widget_put(y++, r->x, r->w, ui->attr[TR_LABEL], buf);
	widget_put(y++, r->x, r->w, ui->attr[TR_LABEL], "Up/Down choose, "
	    "Left/Right change, Space/Enter flip a sort or a column, Esc "
	    "back.");
	y++;
	for (k = ui->stab.top; k < n && y < r->y + r->h; k++) {
		/* A table's columns start under a heading. */
		if (setup_item_col(k, &t, &col) && t != last) {
			if (y + 1 >= r->y + r->h)
				break;
			snprintf(buf, sizeof(buf), "Columns of the %s table "
			    "(Space shows or hides one):", t->name);
			widget_put(y++, r->x, r->w, ui->attr[TR_HEADER_LABEL],
			    buf);
			last = t;
		}
		setup_value(ui, k, val, sizeof(val));
		if (k < SI_NFIXED)
			snprintf(buf, sizeof(buf), "  %-18s %s",
			    setup_labels[k], val);
		else
			snprintf(buf, sizeof(buf), "  %s", val);
		a = k == ui->stab.sel ? ui->attr[TR_TABLE_SELECTED] :
		    ui->attr[TR_TABLE_ROW];
		widget_fill(y, r->x, r->w, a);
		widget_put(y++, r->x, r->w, a, buf);
	}
}

static int
setup_key(struct ui *ui, int key)
{
	int	n = setup_nitems();

	/* Space and Enter change the item here, not page or open. */
	if (key != ' ' && key != '\r' && key != '\n' && key != KEY_ENTER &&
	    ui_table_key(&ui->stab, key, n))
		return 1;
	switch (key) {
	case KEY_LEFT:
		setup_change(ui, ui->stab.sel, -1);
		return 1;
	case KEY_RIGHT:
		setup_change(ui, ui->stab.sel, 1);
		return 1;
	case ' ':
	case '\r':
	case '\n':
	case KEY_ENTER:
		setup_change(ui, ui->stab.sel, ui->stab.sel == SI_THEME ||
		    ui->stab.sel == SI_FOLD || ui->stab.sel == SI_INTERVAL ?
		    1 : 0);
		return 1;
	case 'w':
	case 'W':
		setup_save(ui);
		return 1;
	case KEY_F(2):
		ui_pop(ui);
		return 1;
	}
	return 0;
}

const struct panel panel_setup = {
	.name = "setup",
	.keys =
	    "Up Down\tchoose a setting\n"
	    "Left Right\tchange it (it applies at once)\n"
	    "Space Enter\tflip a sort's direction, show or hide a column\n"
	    "w\twrite the settings to jobtoprc\n",
	.height = setup_height,
	.prepare = setup_prepare,
	.draw = setup_draw,
	.key = setup_key,
};
