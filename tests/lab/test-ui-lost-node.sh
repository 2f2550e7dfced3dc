#!/bin/bash
# SPDX-License-Identifier: ISC
# test-ui-lost-node: a node lost while the curses monitor watches (D8 of
# the 2026-11 walkthrough), through tmux as jtuser.  node3's link goes down
# for 15 s under the healthy job: its row keeps no live-looking numbers
# (the CPU cell is "-"), the header says "1 lost (unreachable" all the
# while, with "retrying, Nth try" once it reconnects, and never counts it
# "connecting"; the event log never says "node3 back: ..." and says
# "node3 reconnecting (try N)" for the tries; once the link is up the node
# is live again and the log says "node3 back".
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
command -v tmux >/dev/null || lab_skip "tmux is not installed"
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"

JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
UI_DIR=$(mktemp -d /tmp/jobtop-ui.XXXXXX)
UI_SOCK=jtlost-$$
job=""
veth=""
cleanup() {
	[ -z "$veth" ] || ip link set "$veth" up 2>/dev/null || true
	lab_as "$LAB_USER" tmux -L "$UI_SOCK" kill-server 2>/dev/null || true
	[ -z "$job" ] || lab_cancel "$job"
	rm -rf "$UI_DIR"
}
trap cleanup EXIT
chmod 755 "$UI_DIR"
install -m 755 "$JOBTOP" "$PROBE" "$UI_DIR/"
chmod -R a+rX "$UI_DIR"

UI_TMUX="lab_as $LAB_USER tmux -L $UI_SOCK" UI_WIN=ui
. "$LAB_TOP/tests/lib/ui.sh"

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "could not start the healthy job"
ui_tmux new-session -d -s ui -x 180 -y 50 \
	"$UI_DIR/jobtop --no-record -d 0.5 --transport ssh $job; echo jobtop-exit=\$?; sleep 600"
ui_wait 20 'nodes 4: 4 live' || ui_fail "the 4 nodes are not all live within 20 s"
ui_expect 10 '^node3 +live(/ssh)? .*[0-9]+\.[0-9]' "node3 has no live row with numbers"

veth=$(lab_veth node3)
ip link set "$veth" down
ui_wait 10 '1 lost \(unreachable' || ui_fail "node3 not lost (unreachable) within 10 s"
# While it is down: never counted connecting, never "back: ...", its CPU
# cell "-".
bad=""
for _ in $(seq 20); do
	s=$(ui_screen)
	grep -q 'node3 back' <<<"$s" && bad="a 'node3 back' while the link is down"
	grep -Eq 'nodes 4: .*[0-9]+ connecting' <<<"$s" &&
		bad="node3 counted connecting: $(grep -m1 'nodes 4:' <<<"$s")"
	grep -q '1 lost (unreachable' <<<"$s" ||
		bad="the header dropped the lost node: $(grep -m1 'nodes 4:' <<<"$s")"
	grep -Eq '^node3 +lost(/ssh)? +- ' <<<"$s" ||
		bad="node3's row is not 'lost -': $(grep -m1 '^node3' <<<"$s")"
	[ -z "$bad" ] || ui_fail "$bad"
	sleep 0.5
done
echo "ok: node3 lost 10 s: stale values '-', header '1 lost (unreachable...)'"
ip link set "$veth" up
veth=""
ui_wait 60 'nodes 4: 4 live' || ui_fail "node3 not live again within 60 s of its link"
ui_expect 5 'node3 back' "no 'node3 back' event once live"
! ui_screen | grep -q 'back:' || ui_fail "an event says 'back: ...'"
if ui_screen | grep -q 'node3 reconnecting (try'; then
	echo "ok: the tries were logged: $(ui_screen | grep -o 'node3 reconnecting (try [0-9]*)' | tr '\n' ' ')"
else
	echo "ok: node3 came back without a reconnect (its ssh session survived)"
fi
echo "ok: node3 back and live"
ui_keys q
ui_wait 10 'jobtop-exit=0' || ui_fail "q did not end jobtop with 0"
