#!/bin/bash
# SPDX-License-Identifier: ISC
# test-ui-terminal: the monitor and the terminals it meets, through tmux as
# jtuser with -w node[1-4] (no job needed).  TERM=dumb, an unknown TERM and
# a standard input that is no terminal get one line and exit 2 with the
# screen untouched; LANG=C draws ASCII sparklines; -t mono and NO_COLOR
# draw without colours (the default theme with them); a bad theme file is
# refused naming the file and line; a window too small says so.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
command -v tmux >/dev/null || lab_skip "tmux is not installed"
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"

JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
UI_DIR=$(mktemp -d /tmp/jobtop-ui.XXXXXX)
UI_SOCK=jtui-$$
cleanup() {
	lab_as "$LAB_USER" tmux -L "$UI_SOCK" kill-server 2>/dev/null || true
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
ui_kill() { ui_tmux kill-session -t ui 2>/dev/null || true; }

nodes='node[1-4]'
# The SGR parameters of the screen that set a colour, one per line.
ui_colours() {
	ui_tmux capture-pane -e -p -t ui | grep -oP '\e\[[0-9;]*m' |
		tr -d '\033[m' | tr ';' '\n' |
		awk '($1 >= 30 && $1 <= 38) || ($1 >= 40 && $1 <= 48) ||
		    ($1 >= 90 && $1 <= 107)'
}

# TERM=dumb and an unknown TERM: one line, status 2, nothing drawn.
for t in dumb no-such-terminal; do
	ui_tmux new-session -d -s ui -x 120 -y 30 \
		"TERM=$t $UI_DIR/jobtop --no-record -w '$nodes'; echo rc=\$?; sleep 600"
	ui_wait 10 '^rc=' || ui_fail "TERM=$t: jobtop did not end"
	case $t in
	dumb) want='^jobtop: this terminal \(TERM=dumb\) cannot run the interactive monitor; use -b for batch output$' ;;
	*) want="^jobtop: unknown terminal type TERM=$t \\(no terminfo entry\\); set TERM or use -b for batch output\$" ;;
	esac
	ui_screen | grep -Eq "$want" || ui_fail "TERM=$t: not the expected line"
	ui_expect 5 '^rc=2$' "TERM=$t: exit status is not 2"
	n=$(ui_screen | grep -c .)
	((n == 2)) || ui_fail "TERM=$t: $n lines on the screen, expected the message and rc"
	ui_kill
done
echo "ok: TERM=dumb and unknown terminals are refused"

out=$(lab_as "$LAB_USER" "$UI_DIR/jobtop" --no-record -w "$nodes" </dev/null 2>&1) && rc=0 || rc=$?
((rc == 2)) || lab_fail "without a terminal: exit $rc, expected 2"
[ "$out" = "jobtop: the interactive monitor needs a terminal on standard input and output; use -b for batch output" ] ||
	lab_fail "without a terminal: '$out'"
echo "ok: no terminal, one line and exit 2"

# A bad theme file: file and line; an unknown name.
printf '# a theme\ndefault = default\nheader = pinkish\n' >"$UI_DIR/x.theme"
chmod 644 "$UI_DIR/x.theme"
ui_tmux new-session -d -s ui -x 120 -y 30 \
	"$UI_DIR/jobtop --no-record -t $UI_DIR/x.theme -w '$nodes'; echo rc=\$?; sleep 600"
ui_wait 10 '^rc=' || ui_fail "bad theme: jobtop did not end"
ui_screen | grep -q "^jobtop: $UI_DIR/x.theme:3: unknown colour \"pinkish\"\$" ||
	ui_fail "bad theme: no file:line message"
ui_expect 5 '^rc=2$' "bad theme: exit status is not 2"
ui_kill
ui_tmux new-session -d -s ui -x 120 -y 30 \
	"$UI_DIR/jobtop --no-record -t pinkish -w '$nodes'; echo rc=\$?; sleep 600"
ui_wait 10 '^rc=2$' || ui_fail "unknown theme name: not exit 2"
ui_screen | grep -q '^jobtop: unknown theme "pinkish"' || ui_fail "unknown theme name: no message"
ui_kill
echo "ok: bad themes are refused with the file and line"

# LANG=C: ASCII sparklines and sort arrow, no UTF-8 at all.
ui_tmux new-session -d -s ui -x 140 -y 30 \
	"env LANG=C LC_ALL=C $UI_DIR/jobtop --no-record -d 0.5 -w '$nodes'; sleep 600"
ui_wait 15 '^node4 +live .*[_.,~=*#-]{3} *$' || ui_fail "LANG=C: no ASCII sparkline"
! ui_screen | LC_ALL=C grep -q $'\xe2' || ui_fail "LANG=C: UTF-8 on the screen"
ui_expect 5 'NODE\^' "LANG=C: no ASCII sort arrow"
ui_kill
echo "ok: LANG=C draws ASCII"

# Colours: the default theme has them; -t mono and NO_COLOR do not.
ui_tmux new-session -d -s ui -x 140 -y 30 \
	"$UI_DIR/jobtop --no-record -d 0.5 -w '$nodes'; sleep 600"
ui_wait 15 '^node4 +live' || ui_fail "default theme: no node rows"
[ -n "$(ui_colours)" ] || ui_fail "default theme: no colour on the screen"
ui_kill
for how in "-t mono" "NO_COLOR=1"; do
	case $how in
	-t*) cmd="JOBTOP_DATADIR=$UI_DIR $UI_DIR/jobtop $how" ;;
	*) cmd="env $how JOBTOP_DATADIR=$UI_DIR $UI_DIR/jobtop" ;;
	esac
	ui_tmux new-session -d -s ui -x 140 -y 30 \
		"$cmd --no-record -d 0.5 -w '$nodes'; sleep 600"
	ui_wait 15 '^node4 +live' || ui_fail "$how: no node rows"
	c=$(ui_colours | sort -u | tr '\n' ' ')
	[ -z "$c" ] || ui_fail "$how: colours on the screen (SGR $c)"
	ui_tmux capture-pane -e -p -t ui | grep -q $'\e\[[0-9;]*7[;m]' ||
		ui_fail "$how: no reverse video for the table head"
	ui_kill
done
echo "ok: -t mono and NO_COLOR draw without colour"

# Too small from the start.
ui_tmux new-session -d -s ui -x 50 -y 8 \
	"$UI_DIR/jobtop --no-record -w '$nodes'; sleep 600"
ui_wait 10 'terminal too small \(50x8\)' || ui_fail "no message in a 50x8 window"
ui_expect 5 'jobtop needs at least 60x10' "no minimum size in the message"
ui_kill
echo "ok: too small"
echo PASS
