/* SPDX-License-Identifier: ISC */
/*
 * panels: the registry of the monitor's panels.  How to add one: write
 * ui/panel-NAME.c with one `const struct panel panel_NAME` (ui-priv.h says
 * what each function may do: draw only reads), declare it in ui-priv.h,
 * list it here, and place it in a view of ui_views[] (ui.c).  The help
 * screen lists every panel's keys from this array.
 */
#include <stddef.h>

#include "ui-priv.h"

const struct panel *const ui_panels[] = {
	&panel_header,
	&panel_nodes,
	&panel_ranks,
	&panel_detail,
	&panel_events,
	&panel_help,
	&panel_timeline,
	&panel_setup,
	&panel_stacks,
	NULL
};
