#!/bin/bash
# SPDX-License-Identifier: ISC
# test-ui-stalled: the lab's blocked job (rank 2 blocks reading a pipe) in
# the curses monitor, through tmux as jtuser.  Within 5 samples of the
# nodes going live, the node of rank 2 shows "1 stalled rank" and the rank
# is flagged "stalled" in the rank table; Enter on it shows its wait
# channel (anon_pipe_read or pipe_read) and state S; its kernel stack is
# not readable by jtuser, and the detail says it needs root; 'b' takes a
# user-space backtrace with the debugger (eu-stack or gdb) on the rank's node, through an extra exec
# channel of that node's SSH session, and shows the rank blocked in read
# under main.  Then root watches the same job: the detail shows the rank's
# kernel stack (pipe_read < ... < ksys_read).
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


interval=1
job=$(lab_submit "$LAB_USER" blocked) || lab_fail "could not start the blocked job"
host=$(lab_ranks "$job" | awk '$1 == 2 { print $3 }')
[ -n "$host" ] || lab_fail "no rank 2 in job $job"
ui_tmux new-session -d -s ui -x 160 -y 45 \
	"$UI_DIR/jobtop --no-record -d $interval $job; echo jobtop-exit=\$?; sleep 600"

ui_wait 20 'nodes 4: 4 live' || ui_fail "the 4 nodes are not all live within 20 s"
ui_wait 10 '^node4 .*[▁▂▃▄▅▆▇█]' || ui_fail "no first sample within 10 s"
t0=$SECONDS
# The first sample has no rates; 3 idle samples later the rank is flagged:
# within 5 samples of the first, with a second of slack for the screen.
ui_wait $((5 * interval + 1)) "^$host .*1 stalled rank" ||
	ui_fail "$host does not show a stalled rank within 5 samples"
echo "ok: $host shows 1 stalled rank after $((SECONDS - t0)) s"
ui_expect 5 'FLAGS 1 stalled rank' "no stalled count in the header"
# The event names the node first, as the node events do (issue 26, D12).
ui_expect 5 "$host rank 2 \\(pid [0-9]*\\) made no progress" "no event naming $host for the stalled rank"
# The header leads with the flag and names the rank, its wait channel and
# the key that opens it.
ui_expect 5 "FLAGS 1 stalled rank: $host rank 2 \\((anon_)?pipe_read\\), ! opens it" "the header does not name the worst rank"
for n in node1 node2 node3 node4; do
	[ "$n" = "$host" ] && continue
	! ui_screen | grep -Eq "^$n .*stalled" || ui_fail "$n has a stalled rank too"
done

# Every rank, flagged first (F sorts by flags), Enter on the top one.
ui_keys r
ui_wait 5 'Ranks of the job' || ui_fail "r does not show the ranks"
ui_keys F
ui_wait 5 'ranks sorted by FLAGS' || ui_fail "F does not sort by flags"
ui_expect 5 '^ +2 +node.*stalled' "rank 2 is not flagged stalled"
ui_expect 5 '^ +2 +node.*pipe_read' "rank 2's wait channel is not shown"
ui_keys Home Enter
ui_wait 5 "Rank 2 \(pid [0-9]+\) on $host" || ui_fail "Enter does not open rank 2"
ui_expect 5 '^wchan +(anon_)?pipe_read' "the detail shows no pipe_read wait channel"
ui_expect 5 '^state +S ' "the detail does not show state S"
ui_expect 5 '\[stalled\]' "the detail does not show the flag"
ui_expect 5 '^why .*made no progress' "the detail does not say why"
echo "ok: Enter on rank 2 shows $(ui_screen | grep '^wchan' | tr -s ' ')"
ui_expect 5 '^kstack +kernel stack: needs root on the node' "the detail does not say why jtuser sees no kernel stack"
echo "ok: $(ui_screen | grep '^kstack' | tr -s ' ')"
ui_keys b
# The node's debugger: eu-stack where elfutils is installed (preferred,
# its frames have no "in"), else gdb.
ui_wait 30 "(gdb|eu-stack) on $host (exited with status|could not attach)" ||
	ui_fail "b gives no debugger result from $host within 30 s"
ui_expect 5 "(gdb|eu-stack) on $host exited with status 0" "the debugger on $host failed: $(ui_screen | grep '^backtrace')"
ui_wait 2 '#[0-9]+ .* (in )?(__GI___libc_read|__libc_read|read)( |$)' ||
	ui_fail "the backtrace does not show the rank in read"
ui_expect 5 '#[0-9]+ .* (in )?main( |$)' "the backtrace does not reach main"
echo "ok: $(ui_screen | grep -oE '(gdb|eu-stack) on [a-z0-9]+' | head -1):"
ui_screen | grep -E '^ +#[0-9]' | head -4
ui_keys q
ui_wait 10 'jobtop-exit=0' || ui_fail "q does not end jobtop with status 0"

# Root watches the same job: the probe may read kernel stacks.
ui_tmux kill-session -t ui
UI_SOCK=jtui-root-$$
UI_TMUX="tmux -L $UI_SOCK"
cleanup() {
	tmux -L "$UI_SOCK" kill-server 2>/dev/null || true
	lab_as "$LAB_USER" tmux -L "jtui-$$" kill-server 2>/dev/null || true
	[ -z "$job" ] || lab_cancel "$job"
	rm -rf "$UI_DIR"
}
ui_tmux new-session -d -s ui -x 160 -y 45 \
	"env HOME=$LAB_ROOT_HOME LANG=C.UTF-8 $UI_DIR/jobtop --no-record --log $UI_DIR/root.log -d $interval $job; echo jobtop-exit=\$?; sleep 600"
# Only rank 2's node matters here: on a loaded machine root's logins are
# slow (see LAB.md) and a node may reconnect; give it a minute.
ui_wait 30 'nodes 4: ' || ui_fail "root: jobtop does not start"
ui_keys r
ui_wait 5 'Ranks of the job' || ui_fail "root: r does not show the ranks"
ui_wait 60 '^ +2 +node' || { grep -E 'node|probe' "$UI_DIR/root.log" | tail -30; ui_fail "root: no rank 2"; }
# The rows may move between reading the screen and the keys (rank 2 is
# sorted up once root's probe flags it again): look again, a few times.
opened=""
for try in 1 2 3 4 5; do
	scr=$(ui_screen)
	row=$(grep -nE '^ +2 +node' <<<"$scr" | cut -d: -f1)
	top=$(grep -nE '^ +[0-9]+ +node' <<<"$scr" | head -1 | cut -d: -f1)
	ui_keys Home
	i=$top
	while [ "$i" -lt "$row" ]; do ui_keys Down; i=$((i + 1)); done
	ui_keys Enter
	if ui_wait 3 "Rank [0-9]+ \(pid [0-9]+\) on " &&
	    ui_wait 2 "Rank 2 \(pid [0-9]+\) on $host"; then
		opened=1
		break
	fi
	ui_keys Escape
	ui_wait 5 'Ranks of the job' || ui_fail "root: Esc does not go back to the ranks"
	sleep 1
done
[ -n "$opened" ] || ui_fail "root: Enter does not open rank 2"
ui_wait 5 '^kstack +[a-z_]*pipe_read < .*ksys_read' ||
	ui_fail "root: the detail shows no kernel stack with pipe_read"
echo "ok: root: $(ui_screen | grep '^kstack' | tr -s ' ')"
ui_keys q
ui_wait 10 'jobtop-exit=0' || ui_fail "root: q does not end jobtop with status 0"
echo PASS
