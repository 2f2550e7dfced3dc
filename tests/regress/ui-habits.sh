#!/bin/sh
# SPDX-License-Identifier: ISC
# ui-habits: the habits of top and htop in the curses monitor, through
# tmux, on this machine (-w localhost, a local probe) plus one node whose
# name does not resolve:
#  - the first screen shows CPU at once, even with -d 300 (the probe's
#    second sample comes 200 ms after the first);
#  - an unknown key says so on the status line; '+' at the longest step
#    the keys reach stays there and says so, '-' then shortens it, and '-'
#    at the shortest stays there;
#  - the unresolvable node reads "failed" with "cannot resolve NAME" in
#    the node table and in its (empty) rank table, and nowhere "refused";
#  - F2 opens the setup screen; changing the theme and fold and hiding the
#    LOAD column there and w
#    writes $XDG_CONFIG_HOME/jobtop/jobtoprc (nothing before w), keeping
#    a comment and an unknown key already in the file; F10 quits (with
#    status 1: a node failed);
#  - a second run starts with the saved theme, fold and columns.
# Needs tmux.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-habits.XXXXXX") || exit 1
sock=jthabits-$$
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
win=
fail() {
	[ -n "$win" ] && { echo "--- screen:"; tmux -L "$sock" capture-pane -p -t "$win"; }
	echo "FAIL: $*"
	exit 1
}
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
[ -d "$TOP/themes" ] || fail "no themes directory"

screen() { tmux -L "$sock" capture-pane -p -t "$win"; }
keys() { tmux -L "$sock" send-keys -t "$win" "$@"; }
# The one waiting helper (tests/lib/ui.sh) on this test's own screen.
. "$TOP/tests/lib/ui.sh"
ui_screen() { screen; }
wait_for() { ui_wait "$@"; }
status() { screen | tail -n 1; }
conf=$tmp/conf/jobtop/jobtoprc
start() {
	win=$1
	shift
	tmux -L "$sock" new-session -d -s "$win" -x 150 -y 40 \
		"env XDG_CONFIG_HOME=$tmp/conf XDG_STATE_HOME=$tmp/state HOME=$tmp LANG=C.UTF-8 $JOBTOP --no-record $*; echo rc=\$?; sleep 600"
}

mkdir -p "$tmp/conf/jobtop"
printf '# mine\nsomething-newer = 1\n' >"$conf"
cp "$conf" "$tmp/conf-before"

# --- one: -d 300, keys, a node that does not resolve ----------------------
start one -d 300 -w localhost,nosuchnode.invalid
t0=$(date +%s%N)
wait_for 3 '^localhost +live +[0-9]+\.[0-9]' || fail "no CPU% on the first screen with -d 300"
echo "ok: CPU on the first screen with -d 300 after $((($(date +%s%N) - t0) / 1000000)) ms"
wait_for 8 '^nosuchnode\.invalid +failed .*cannot resolve' ||
	fail "the unresolvable node does not say 'cannot resolve' in the table"
screen | grep -q 'refused' && fail "a DNS failure is called refused"
echo "ok: unresolvable node: $(screen | grep '^nosuchnode' | sed 's/  */ /g')"
# Its ranks (Enter on its row: sorted by name, a failed node comes first,
# above localhost) say why too.
until_ok 5 sh -c "tmux -L $sock capture-pane -p -t one | grep -A1 '^NODE' | grep -q '^nosuchnode'" ||
	fail "the failed node is not first in the default sort"
keys Home Enter
wait_for 2 '^nosuchnode\.invalid failed: cannot resolve nosuchnode\.invalid: ' ||
	fail "Enter on the failed node does not say why"
echo "ok: its rank table says: $(screen | grep '^nosuchnode.invalid failed:')"
keys Escape Home

keys x
wait_for 2 'unknown key x: press h or \? for help' || fail "x: no unknown-key message"
keys F7
wait_for 2 'unknown key F7: press h or \? for help' || fail "F7: no unknown-key message"
# htop's F5 (tree) and F9 (kill) say what jobtop does instead.
keys F5
wait_for 2 'no process tree: Enter on a node lists its ranks' || fail "F5: not explained"
keys F9
wait_for 2 'jobtop only watches: it sends no signal to ranks' || fail "F9: not explained"
echo "ok: unknown keys said"

keys +
wait_for 2 'already at the longest interval the keys reach: 300 s' ||
	fail "+ at -d 300: $(status)"
status | grep -q 'sampling every' && fail "+ at -d 300 changed the interval"
keys -
wait_for 2 'sampling every 60 s' || fail "- after -d 300 does not give 60 s: $(status)"
i=0
while [ $i -lt 11 ]; do keys -; i=$((i + 1)); done
wait_for 2 'sampling every 0.1 s' || fail "eleven - do not reach 0.1 s: $(status)"
keys -
wait_for 2 'already at the shortest interval the keys reach: 0.1 s' ||
	fail "- at 0.1 s: $(status)"
echo "ok: + and - stop at their ends"

# --- the setup screen --------------------------------------------------------
keys F2
wait_for 2 '^Setup' || fail "F2 does not open the setup screen"
wait_for 2 'Theme +default' || fail "setup: theme is not default"
cmp -s "$conf" "$tmp/conf-before" || fail "jobtoprc written before w"
keys Right
wait_for 2 'Theme +dark' || fail "setup: Right on the theme does not give dark"
keys Down Down Down Right
wait_for 2 'Fold look-alikes +always' || fail "setup: fold does not change to always"
# Down to the node table's LOAD column (after interval, node ... mem).
keys Down Down Down Down Down Down Down Space
wait_for 2 '\[ \] LOAD +load' || fail "setup: Space does not hide LOAD"
cmp -s "$conf" "$tmp/conf-before" || fail "jobtoprc written before w"
keys w
wait_for 2 "settings saved to $conf" || fail "w: $(status)"
grep -qx 'theme = dark' "$conf" && grep -qx 'fold = always' "$conf" &&
	grep -qx 'interval = 0.1' "$conf" && grep -qx '# mine' "$conf" &&
	grep -qx 'something-newer = 1' "$conf" &&
	grep -qx 'node_columns = -load' "$conf" ||
	fail "jobtoprc: $(cat "$conf")"
ls "$tmp/conf/jobtop" | grep -q tmp && fail "a temporary file left: $(ls "$tmp/conf/jobtop")"
echo "ok: setup saved: $(tr '\n' ';' <"$conf")"
keys Escape
wait_for 2 '^NODE' || fail "Esc does not leave the setup screen"
screen | grep '^NODE' | grep -q LOAD && fail "LOAD still shown after hiding it"
keys F10
wait_for 10 '^rc=[0-9]' || fail "F10 does not quit"
# Status 1: a node failed (jobtop(1), EXIT STATUS).
wait_for 5 '^rc=1$' || fail "F10: $(screen | grep '^rc=')"
echo "ok: F10 quits (exit 1: a node failed)"

# --- two: the saved settings are the defaults --------------------------------
start two -w localhost
wait_for 8 '^localhost +live' || fail "second run: no live localhost row"
screen | grep '^NODE' | grep -q LOAD && fail "second run: the hidden LOAD column is back"
screen | grep -q 'warning\|jobtoprc:' && fail "second run: a warning"
keys F2
wait_for 2 'Theme +dark' || fail "second run: the theme is not the saved one"
wait_for 2 'Fold look-alikes +always' || fail "second run: fold is not the saved one"
wait_for 2 'Sample interval +0.1 s' || fail "second run: the interval is not the saved one"
keys Escape q
wait_for 10 '^rc=0$' || fail "q: $(screen | grep '^rc=')"
echo "ok: a second run starts with the saved settings"
