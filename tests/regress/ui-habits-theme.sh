#!/bin/sh
# SPDX-License-Identifier: ISC
# ui-habits-theme: `-t NAME` finds its theme wherever jobtop runs from.
# `make install DESTDIR=` into a temporary root, then, from a directory
# without ./themes and with no user themes, through tmux:
#  - the installed jobtop starts with -t dark (its own share/jobtop/themes)
#    and the setup screen says dark;
#  - a theme in $XDG_DATA_DIRS/jobtop/themes is found by name;
#  - the jobtop of the build tree finds the tree's themes (-t light);
#  - an unknown theme is exit 2 and one line naming every place looked in;
#  - a settings file's unknown theme, sort column and column are one
#    FILE:LINE warning each (status line, event log); the monitor runs with
#    the default theme and the file's other settings.
# Needs tmux.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-theme.XXXXXX") || exit 1
sock=jttheme-$$
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

make -s -C "$TOP" install DESTDIR="$tmp/root" >"$tmp/make.out" 2>&1 ||
	fail "make install: $(tail -n 5 "$tmp/make.out")"
jt=$(find "$tmp/root" -path '*/bin/jobtop' -type f | head -n 1)
[ -x "$jt" ] || fail "make install put no bin/jobtop under $tmp/root"
ls "$(dirname "$jt")/../share/jobtop/themes/dark.theme" >/dev/null ||
	fail "make install put no dark.theme beside bin/"

mkdir -p "$tmp/elsewhere" "$tmp/home" "$tmp/xdg/jobtop/themes" "$tmp/conf"
sed 's/^# .*/# mine: a copy of dark/' "$TOP/themes/dark.theme" \
	>"$tmp/xdg/jobtop/themes/mine.theme"
cd "$tmp/elsewhere" || exit 1

screen() { tmux -L "$sock" capture-pane -p -J -t "$win"; }
keys() { tmux -L "$sock" send-keys -t "$win" "$@"; }
# The one waiting helper (tests/lib/ui.sh) on this test's own screen.
. "$TOP/tests/lib/ui.sh"
ui_screen() { screen; }
wait_for() { ui_wait "$@"; }
start() {
	win=$1
	shift
	tmux -L "$sock" new-session -d -s "$win" -x 150 -y 40 -c "$tmp/elsewhere" \
		"env -u JOBTOP_DATADIR HOME=$tmp/home XDG_CONFIG_HOME=$tmp/conf XDG_DATA_HOME=$tmp/home/data XDG_DATA_DIRS=$tmp/xdg XDG_STATE_HOME=$tmp/state LANG=C.UTF-8 $* --no-record -d 0.2 -w localhost; echo rc=\$?; sleep 600"
}
# Start, wait for the node table, check the theme on the setup screen, quit.
runs_with() {
	name=$1 want=$2
	shift 2
	start "$name" "$@"
	wait_for 8 '^localhost +live' || fail "$*: no live localhost row"
	keys F2
	wait_for 2 "Theme +$want" || fail "$*: the theme is not $want"
	keys Escape q
	wait_for 10 '^rc=0$' || fail "$*: q does not end with 0"
	echo "ok: $* runs with theme $want"
}

runs_with inst dark "$jt" -t dark
runs_with xdg mine "$jt" -t mine
runs_with tree light "$JOBTOP" -t light

start bad "$jt" -t nosuch
wait_for 5 '^rc=2$' || fail "-t nosuch does not exit 2"
wait_for 1 "unknown theme \"nosuch\" \(looked in .*$tmp/xdg/jobtop/themes" ||
	fail "-t nosuch: no line naming the XDG data directory"
echo "ok: -t nosuch: exit 2, $(screen | grep -c 'unknown theme') line"

mkdir -p "$tmp/conf/jobtop"
printf '# settings\ntheme = nosuch\nsort = nosuch\nrank_columns = -bogus\nfold = never\n' \
	>"$tmp/conf/jobtop/jobtoprc"
start conf "$jt"
wait_for 8 '^localhost +live' || fail "a bad theme in jobtoprc stops the monitor"
wait_for 3 "jobtoprc:2: unknown theme \"nosuch\"" ||
	fail "no FILE:LINE warning for jobtoprc's theme"
keys e
wait_for 2 'jobtoprc:3: the node table has no column .nosuch.' ||
	fail "no FILE:LINE warning for jobtoprc's sort"
wait_for 2 'jobtoprc:4: rank_columns: unknown column' ||
	fail "no FILE:LINE warning for jobtoprc's rank_columns"
keys Escape F2
wait_for 2 'Theme +default' || fail "jobtoprc's bad theme: not the default"
wait_for 2 'Fold look-alikes +never' || fail "jobtoprc's good line after bad ones not applied"
keys Escape q
wait_for 10 '^rc=0$' || fail "q after a jobtoprc warning does not end with 0"
echo "ok: jobtoprc's unknown theme, sort column and rank column: one FILE:LINE warning each, the rest applied"
