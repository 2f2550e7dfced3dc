#!/bin/sh
# SPDX-License-Identifier: ISC
# ui-local: the curses monitor on this machine alone (-w localhost, a
# local probe, no SSH and no lab), driven through tmux.  The node row is
# live with a sparkline; the filter finds a busy process by its command;
# Enter drills down to it; 'b' takes a user-space backtrace with eu-stack or gdb (the
# node is local) and shows its frames; LANG=C draws ASCII sparklines;
# TERM=dumb, no terminal and a bad theme are refused with one line and
# exit 2.  Skips without tmux.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d)
sock=jtui-regress-$$
busy=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -z "$busy" ] || kill "$busy" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "--- screen:"
	tmux -L "$sock" capture-pane -p -t "$win" 2>/dev/null
	echo "FAIL: $*"
	exit 1
}
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"

win=ui0
screen() { tmux -L "$sock" capture-pane -p -t "$win"; }
keys() { tmux -L "$sock" send-keys -t "$win" "$@"; }
# wait_for SECONDS ERE
# The one waiting helper (tests/lib/ui.sh) on this test's own screen.
. "$TOP/tests/lib/ui.sh"
ui_screen() { screen; }
wait_for() { ui_wait "$@"; }
nwin=0
start() {	# start COMMAND: a fresh session running it (the old one goes)
	old=$win
	nwin=$((nwin + 1))
	win=ui$nwin
	tmux -L "$sock" new-session -d -s "$win" -x 150 -y 40 \
		"$1; echo rc=\$?; sleep 600"
	tmux -L "$sock" kill-session -t "$old" 2>/dev/null
}

# A busy process with a name of its own (comm is the file name).
cp /usr/bin/yes "$tmp/jtbusyloop"
"$tmp/jtbusyloop" >/dev/null &
busy=$!

start "env LANG=C.UTF-8 $JOBTOP --no-record -d 0.5 -w localhost"
wait_for 15 '^localhost +live .*[▁▂▃▄▅▆▇█]{2}' || fail "no live localhost row with a sparkline"
keys / j t b u s y Enter
wait_for 5 'filter /jtbusy/: 1 rows' || fail "the filter does not find the busy process's node"
keys Enter
wait_for 5 'Ranks of localhost' || fail "Enter does not open the node's ranks"
wait_for 5 "^ +- +localhost +$busy .*jtbusyloop" || fail "the busy process is not listed"
keys Enter
wait_for 5 "Process $busy on localhost: jtbusyloop" || fail "Enter does not open the process"
# A running process has no kernel stack (read only while one waits), and
# without root none may be read at all: the line says which.
wait_for 5 '^kstack +(- \(read only while the rank waits|kernel stack: needs root on the node)' || fail "no kernel stack line"
# The debugger: eu-stack where elfutils is installed (preferred; its
# frames have no "in"), else gdb.
dbg=
command -v gdb >/dev/null 2>&1 && dbg=gdb
command -v eu-stack >/dev/null 2>&1 && dbg=eu-stack
if [ -n "$dbg" ]; then
	keys b
	wait_for 20 "$dbg exited with status 0" || fail "no backtrace from $dbg"
	# A frame with a name: the busy loop is Debian's stripped yes, so
	# frame #0 is a bare address whenever the stack is taken in yes's
	# own code rather than in libc's write (a run at 10:39 on
	# 2026-11-29 caught it there); libc's frames below have names.
	wait_for 2 '#[0-9]+ .*(0x[0-9a-f]+ [a-zA-Z_]| in )' || fail "the backtrace shows no named frame"
	echo "ok: $dbg backtrace of pid $busy"
	# A process traced already: the kernel refuses the debugger, and
	# the line says why.
	if command -v strace >/dev/null 2>&1; then
		strace -p "$busy" -o /dev/null 2>/dev/null &
		tracer=$!
		sleep 0.5
		keys b
		wait_for 20 "$dbg could not attach to pid $busy: ptrace refused \\(" ||
			fail "a refused attach is not explained"
		kill "$tracer"
		echo "ok: $(screen | grep '^backtrace' | tr -s ' ')"
	fi
fi
keys q
wait_for 10 '^rc=0$' || fail "q does not end jobtop with status 0"
echo "ok: drill-down to a local process"

start "env LANG=C LC_ALL=C $JOBTOP --no-record -d 0.5 -w localhost"
wait_for 15 '^localhost +live .*[_.,~=*#-]{2} *$' || fail "LANG=C: no ASCII sparkline"
screen | LC_ALL=C grep -q "$(printf '\342')" && fail "LANG=C: UTF-8 on the screen"
echo "ok: ASCII sparklines under LANG=C"

start "TERM=dumb $JOBTOP --no-record -w localhost"
wait_for 10 '^rc=2$' || fail "TERM=dumb: not exit 2"
screen | grep -q '^jobtop: this terminal (TERM=dumb) cannot run the interactive monitor; use -b for batch output$' ||
	fail "TERM=dumb: not the expected message"

printf 'default = default\n\nheader = pinkish\n' >"$tmp/x.theme"
start "$JOBTOP --no-record -t $tmp/x.theme -w localhost"
wait_for 10 '^rc=2$' || fail "bad theme: not exit 2"
screen | grep -q "^jobtop: $tmp/x.theme:3: unknown colour \"pinkish\"\$" ||
	fail "bad theme: not the expected message"

out=$("$JOBTOP" --no-record -w localhost </dev/null 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "no terminal: exit $rc"
[ "$out" = "jobtop: the interactive monitor needs a terminal on standard input and output; use -b for batch output" ] ||
	fail "no terminal: '$out'"
echo "ok: refusals"
echo PASS
