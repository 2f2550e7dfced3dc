#!/bin/bash
# SPDX-License-Identifier: ISC
# test-ui-monitor: the curses monitor on the lab's healthy job, driven
# through tmux as jtuser and read back with capture-pane.  All 4 nodes
# appear live with UTF-8 CPU sparklines; the healthy job raises no flag;
# the rank table lists ranks 0-3; the '/' filter keeps node3 only and a bad
# pattern shows PCRE2's error; the screen follows tmux resize-window (and
# says so when it is too small); 't' cycles themes; 'q' quits with 0.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
command -v tmux >/dev/null || lab_skip "tmux is not installed"
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"

JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
UI_DIR=$(mktemp -d /tmp/jobtop-ui.XXXXXX)
UI_SOCK=jtui-$$
job=""
cleanup() {
	lab_as "$LAB_USER" tmux -L "$UI_SOCK" kill-server 2>/dev/null || true
	[ -z "$job" ] || lab_cancel "$job"
	rm -rf "$UI_DIR"
}
trap cleanup EXIT
# jtuser's own copy: jobtop finds jobtop-probe beside itself.
chmod 755 "$UI_DIR"
install -m 755 "$JOBTOP" "$PROBE" "$UI_DIR/"
# and the theme files (found through JOBTOP_DATADIR).
cp -r "$LAB_TOP/themes" "$UI_DIR/"
chmod -R a+rX "$UI_DIR"

UI_TMUX="lab_as $LAB_USER tmux -L $UI_SOCK" UI_WIN=ui
. "$LAB_TOP/tests/lib/ui.sh"

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "could not start the healthy job"
ui_tmux new-session -d -s ui -x 160 -y 45 \
	"JOBTOP_DATADIR=$UI_DIR $UI_DIR/jobtop --no-record -d 0.5 $job; echo jobtop-exit=\$?; sleep 600"

ui_wait 20 'nodes 4: 4 live' || ui_fail "the 4 nodes are not all live within 20 s"
ui_wait 10 "job $job healthy of $LAB_USER" || ui_fail "no job line in the header"
# Sparklines: a few UTF-8 blocks at the end of every node row.
# Each row fills at its own pace (its own samples): wait for each.
for n in node1 node2 node3 node4; do
	ui_expect 10 "^$n +live .*[▁▂▃▄▅▆▇█]{3}" "$n: no live row with a sparkline"
done
echo "ok: 4 nodes live with sparklines"

# Healthy: 10 s more (20 samples) and still no flag anywhere.
sleep 10
ui_expect 5 'FLAGS none' "the healthy job raised a flag"
! ui_screen | grep -Eq 'stalled|straggler|memory|lost' ||
	ui_fail "a flag or lost node on the healthy job"
echo "ok: no flag on the healthy job"

ui_keys r
ui_expect 5 'Ranks of the job: [0-9]+' "r does not show the ranks"
for r in 0 1 2 3; do
	ui_expect 5 "^ +$r +node[1-4] .* rankload" "rank $r is not in the rank table"
done
ui_keys Escape
ui_wait 5 'Nodes 4, 4 live' || ui_fail "Esc does not go back to the nodes"
echo "ok: rank table"

ui_keys / n o d e 3 Enter
ui_wait 5 'filter /node3/: 1 rows' || ui_fail "the filter does not apply"
ui_expect 5 '^node3 ' "node3 is filtered out"
! ui_screen | grep -Eq '^node[124] ' || ui_fail "the filter keeps other nodes"
ui_keys / C-u '(' Enter
ui_wait 5 'missing closing parenthesis' || ui_fail "no PCRE2 error for a bad pattern"
ui_keys Escape Escape
ui_wait 5 'Nodes 4, 4 live *$' || ui_fail "Esc does not clear the filter"
ui_expect 5 '^node1 ' "node1 missing after the filter is cleared"
echo "ok: filter"

ui_tmux resize-window -t ui -x 100 -y 30
ui_expect 5 '^node4 .*[▁▂▃▄▅▆▇█]' "no node rows after resizing to 100x30"
ui_width_le() { [ "$(ui_screen | LC_ALL=C.UTF-8 wc -L)" -le "$1" ]; }
until_ok 5 ui_width_le 100 ||
	ui_fail "lines are $(ui_screen | LC_ALL=C.UTF-8 wc -L) wide in a 100-column window"
ui_tmux resize-window -t ui -x 50 -y 8
ui_wait 5 'terminal too small \(50x8\)' || ui_fail "no message for a 50x8 window"
ui_tmux resize-window -t ui -x 160 -y 45
ui_wait 5 'Nodes 4, 4 live' || ui_fail "no recovery after growing the window"
echo "ok: resize"

ui_keys t
ui_wait 5 'theme dark' || ui_fail "t does not switch to the dark theme"
ui_keys t
ui_wait 5 'theme light' || ui_fail "t does not switch to the light theme"
echo "ok: themes"

ui_keys q
ui_wait 10 'jobtop-exit=0' || ui_fail "q does not end jobtop with status 0"
echo "ok: q quits"
echo PASS
