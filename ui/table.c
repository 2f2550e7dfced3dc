/* SPDX-License-Identifier: ISC */
/*
 * table: the one table widget of the UI (ui-priv.h: struct table).  The
 * node table and the rank tables give their columns, their rows' count
 * and two functions, a row's attribute and a cell's content; the widget
 * places the columns on the width there is, draws the header with the
 * sort column marked, the rows from the table's top with the selected one
 * highlighted, each cell as text (left, right or cut at the column's
 * width with a marker) or a sparkline, and a line of its own when there
 * are no rows.
 */
#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "ui-priv.h"

void
table_draw(const struct ui *ui, int y, int x, int h, int width,
    const struct table *t)
{
	struct table_cell	 cell;
	float			 v[UI_SPARK_MAX];
	char			 buf[512], spark[UI_SPARK_MAX * 3 + 1];
	int			 cx[COLUMNS_MAX], cw[COLUMNS_MAX], k, row, col;
	int			 sel, line;
	attr_t			 base, a;

	widget_cols(t->cols, t->ncols, width, cx, cw);
	widget_head(y, x, width, ui->attr[TR_TABLE_HEAD],
	    ui->attr[TR_TABLE_SORT], t->cols, t->ncols, cx, cw, t->ut->sort,
	    t->ut->rev, ui->utf8);
	if (t->nrows == 0) {
		widget_put(y + 1, x, width, ui->attr[t->empty_role],
		    t->empty != NULL ? t->empty : "");
		return;
	}
	for (line = 0; line < h - 1; line++) {
		row = t->ut->top + line;
		if (row >= t->nrows)
			break;
		sel = row == t->ut->sel;
		base = sel ? ui->attr[TR_TABLE_SELECTED] :
		    t->row_attr(ui, t->ctx, row);
		widget_fill(y + 1 + line, x, width, sel ? base :
		    ui->attr[TR_TABLE_ROW]);
		for (col = 0; col < t->ncols; col++) {
			if (cw[col] <= 0)
				continue;
			memset(&cell, 0, sizeof(cell));
			cell.role = -1;
			cell.how = t->cols[col].right ? TC_RIGHT : TC_LEFT;
			cell.v = v;
			k = cw[col] > UI_SPARK_MAX ? UI_SPARK_MAX : cw[col];
			cell.n = (unsigned)k;
			buf[0] = '\0';
			t->cell(ui, t->ctx, row, col, &cell, buf, sizeof(buf));
			a = sel || cell.role < 0 ? base : ui->attr[cell.role];
			switch (cell.how) {
			case TC_SPARK:
				if (cell.n == 0)
					break;
				widget_spark(v, cell.n, 0, 100, ui->utf8,
				    spark, sizeof(spark));
				widget_put_spark(y + 1 + line, x + cx[col], a,
				    spark);
				break;
			case TC_CUT:
				if (cell.text != NULL)
					widget_put_cut(y + 1 + line,
					    x + cx[col], cw[col], a, cell.text,
					    ui->utf8);
				break;
			case TC_RIGHT:
				if (cell.text != NULL)
					widget_rput(y + 1 + line, x + cx[col],
					    cw[col], a, cell.text);
				break;
			default:
				if (cell.text != NULL)
					widget_put(y + 1 + line, x + cx[col],
					    cw[col], a, cell.text);
				break;
			}
		}
	}
}
