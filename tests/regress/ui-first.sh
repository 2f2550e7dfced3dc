#!/bin/sh
# SPDX-License-Identifier: ISC
# ui-first: a newcomer's first minutes (issue 26), driven through tmux at
# 160x45 and 60x15 on this machine alone (-w localhost, no lab):
#  - the header CPU meter reads the value the node row shows on the same
#    screen, from the first screen with a number on (D3, D17);
#  - F4 and F3 open the filter as / does, F6 sorts as s does, ! with
#    nothing flagged says so; c switches the rank table's COMMAND between
#    the line, the line with its path and the name (top's c);
#  - an escape sequence the terminfo does not describe is dropped whole:
#    its '[' does not step into history (D15);
#  - the rank table gives COMMAND the rest of the width (D10);
#  - a replay's detail offers no backtrace, ^ and $ say where they went,
#    and a step leaves no stale "paused at" text (D13, D14).
# Skips without tmux.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
TESTBIN=${TESTBIN:-$TOP/build/tests}
tmp=$(mktemp -d)
sock=jtfirst-$$
busy=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -z "$busy" ] || kill "$busy" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
UI_TMUX="tmux -L $sock"
. "$TOP/tests/lib/ui.sh"
fail() { ui_fail "$@"; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"

# A busy process with a long command line of its own.
cp /usr/bin/yes "$tmp/jtfirstbusy"
"$tmp/jtfirstbusy" with a rather long command line that goes on and on >/dev/null &
busy=$!

start() {	# start NAME COLS ROWS ARGS...
	UI_WIN=$1
	cols=$2 rows=$3
	shift 3
	tmux -L "$sock" new-session -d -s "$UI_WIN" -x "$cols" -y "$rows" \
		"env LANG=C.UTF-8 TERM=xterm-256color $JOBTOP --no-record $*; echo rc=\$?; sleep 600"
}

# header_agrees: on one screen, the header's CPU% is the localhost row's.
header_agrees() {
	s=$(ui_screen) || return 1
	# At 60 columns the STATE column is dropped.
	row=$(printf '%s\n' "$s" | awk '$1 == "localhost" { print ($2 == "live" ? $3 : $2); exit }')
	head=$(printf '%s\n' "$s" | sed -n 's/^CPU  *\[[^]]*[^0-9.]\([0-9][0-9.]*\)%\].*/\1/p' | head -n 1)
	[ -n "$row" ] && [ "$row" = "$head" ]
}
# first_filled: on the first screen whose row has a number, so has the
# header (no "-%").
first_filled() {
	s=$(ui_screen) || return 1
	printf '%s\n' "$s" | grep -Eq '^localhost +(live +)?[0-9]' || return 1
	if printf '%s\n' "$s" | grep -Eq '^CPU +\[ *-%\]'; then
		echo "the header says -% while the row has a number:"
		printf '%s\n' "$s" | head -n 6
		exit 1
	fi
	return 0
}

for size in 160x45 60x15; do
	cols=${size%x*} rows=${size#*x}
	start "w$cols" "$cols" "$rows" -d 0.5 -w localhost
	until_ok 15 first_filled || fail "$size: no number on the first screens"
	until_ok 10 header_agrees || fail "$size: the header CPU is not the row's"
	echo "ok: $size: header CPU $head% = the row's $row%"

	# F4 and F3: the filter prompt, as /.
	ui_keys F4
	ui_expect 3 'Filter /' "$size: F4 does not open the filter"
	ui_keys Escape
	ui_keys F3
	ui_expect 3 'Filter /' "$size: F3 does not open the filter"
	ui_keys Escape
	# F6: the next sort column.
	ui_keys F6
	ui_expect 3 'nodes sorted by ' "$size: F6 does not sort"
	ui_keys N
	# !: nothing flagged with -w.
	ui_keys '!'
	ui_expect 3 'no rank is flagged' "$size: ! does not say nothing is flagged"
	# An unknown escape sequence: dropped whole, no history.
	ui_keys -l "$(printf '\033[57~')"
	ui_expect 3 'unknown key \(an escape sequence' "$size: an unknown sequence is not named"
	ui_match 'HISTORY: |history of this session' && fail "$size: an unknown sequence stepped into history"
	echo "ok: $size: F3 F4 F6 ! and an unknown sequence"

	# The rank table: COMMAND takes the rest of the width; c switches it.
	ui_keys / j t f i r s t b u s y Enter
	ui_expect 5 'filter /jtfirstbusy/' "$size: the filter does not apply"
	ui_keys Enter
	ui_expect 5 "^ +- +localhost +$busy " "$size: the busy process is not listed"
	if [ "$cols" -ge 160 ]; then
		# 15 columns before: "jtfirstbusy wit".
		ui_expect 5 "jtfirstbusy with a rather long co" \
			"160 columns: COMMAND is cut short"
	fi
	ui_keys c
	ui_expect 3 'COMMAND: the full command line' "$size: c does not show the full line"
	if [ "$cols" -ge 160 ]; then
		ui_expect 5 " $tmp/jtfirstbusy" "c: no path in COMMAND"
	fi
	ui_keys c
	ui_expect 3 "COMMAND: the program's name" "$size: c does not show the name"
	ui_keys c
	echo "ok: $size: rank table and c"
	ui_keys q
	ui_expect 10 '^rc=0$' "$size: q does not quit"
done

# --- replay: no backtrace offered, ^ $ and [ ] leave no stale text --------
if [ -x "$TESTBIN/test-rec" ]; then
	"$TESTBIN/test-rec" --gen "$tmp/gen.jtr" 4 120 >/dev/null || fail "test-rec --gen"
	start rp 160 45 -r "$tmp/gen.jtr"
	ui_expect 10 'REPLAY +playing' "replay: not playing"
	ui_keys Space
	ui_expect 3 'paused \(Space plays' "replay: Space does not pause"
	ui_match 'paused at ' && fail "replay: the pause message carries a time"
	ui_keys ']'
	until_ok 3 sh -c "! tmux -L $sock capture-pane -p -t rp | grep -q 'paused (Space plays'" ||
		fail "replay: a step leaves the old message"
	ui_keys '$'
	ui_expect 3 'at the end, [0-9:]+' "replay: \$ does not say where"
	ui_keys '^'
	ui_expect 3 'at the start, [0-9:]+' "replay: ^ does not say where"
	ui_keys ']' ']' ']'
	ui_keys Tab
	ui_expect 5 '^ +[0-9]+ +cn0[0-9]+ ' "replay: Tab does not list the ranks"
	ui_keys Enter
	ui_expect 5 '^backtrace +- \(none in a replay' "replay: the detail offers b"
	echo "ok: replay: no backtrace offered, no stale status"
	ui_keys q
fi
echo PASS
