#!/bin/sh
# SPDX-License-Identifier: ISC
# ui-pause: 'p' freezes what the monitor draws while data keeps coming and
# is recorded.  The curses monitor on this machine (-w localhost, a local
# probe sampling every 0.25 s, recording) through tmux, with a busy
# process whose CPU history moves every sample: after 'p' the header says
# PAUSED; two seconds (eight samples) later, and after keys that redraw
# (the help, Esc, Tab to the ranks and back), the node row and the rank
# table are exactly what they were at the pause; after 'p' again the row
# moves on.  The recording of the run has the samples of the pause (2.5 s
# or more): no gap between samples longer than 1.5 s (at 0.25 s a sample,
# a loaded machine delays one by a few tenths; a pause not recorded is a
# gap of its whole length).  Needs tmux and python3.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-pause.XXXXXX") || exit 1
sock=jtpause-$$
busy=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -z "$busy" ] || kill "$busy" 2>/dev/null
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
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"

# A process whose CPU use swings (busy half a second, idle the next), so
# its sparkline and %CPU change from sample to sample.
sh -c 'while :; do t=$(($(date +%s%N) / 1000000 + 500));
	while [ $(($(date +%s%N) / 1000000)) -lt $t ]; do :; done; sleep 0.5; done' &
busy=$!

screen() { tmux -L "$sock" capture-pane -p -t "$win"; }
keys() { tmux -L "$sock" send-keys -t "$win" "$@"; }
# The one waiting helper (tests/lib/ui.sh) on this test's own screen.
. "$TOP/tests/lib/ui.sh"
ui_screen() { screen; }
wait_for() { ui_wait "$@"; }
# What must not move while paused: the node rows and the table of ranks.
data() { screen | grep -E '^(localhost|RANK| +- +localhost)' | sed 's/ *$//'; }
win=pause
tmux -L "$sock" new-session -d -s "$win" -x 150 -y 40 \
	"env LANG=C.UTF-8 $JOBTOP -o $tmp/run.jtr -d 0.25 -w localhost; echo rc=\$?; sleep 600"
wait_for 15 '^localhost +live .*[▁▂▃▄▅▆▇█]{8}' || fail "no live localhost row"
keys p
wait_for 2 'PAUSED' || fail "p does not say PAUSED"
screen | head -1 | grep -q 'PAUSED' || fail "the header does not say PAUSED"
data >"$tmp/at-pause"
sleep 2
data >"$tmp/later"
cmp -s "$tmp/at-pause" "$tmp/later" || { diff "$tmp/at-pause" "$tmp/later"; fail "the node row moved while paused"; }
keys h
wait_for 3 'this help' || fail "h does not show the help while paused"
keys Escape Tab
wait_for 3 'Ranks of the job|Ranks of' || fail "Tab does not show the ranks while paused"
keys Tab
wait_for 3 '^NODE' || fail "Tab does not come back to the nodes"
sleep 0.5
data >"$tmp/after-keys"
cmp -s "$tmp/at-pause" "$tmp/after-keys" || { diff "$tmp/at-pause" "$tmp/after-keys"; fail "keys while paused showed new data"; }
echo "ok: frozen for 2.5 s and through h, Esc, Tab, Tab"
keys p
sleep 1.5
data >"$tmp/resumed"
cmp -s "$tmp/at-pause" "$tmp/resumed" && fail "the node row does not move after p resumes"
screen | head -1 | grep -q 'PAUSED' && fail "the header still says PAUSED"
echo "ok: moves again after p"
keys q
wait_for 10 '^rc=0$' || fail "q does not end jobtop with status 0"
"$JOBTOP" -r "$tmp/run.jtr" --json >"$tmp/r.json" || fail "replay failed"
python3 - "$tmp/r.json" <<'PY' || fail "the recording misses the pause"
import json, sys
t = [json.loads(l)["time"] for l in open(sys.argv[1])
     if json.loads(l)["type"] == "node"]
gaps = [b - a for a, b in zip(t, t[1:])]
if len(t) < 20 or max(gaps) > 1.5:
    sys.exit("%d samples, longest gap %.2f s" % (len(t), max(gaps)))
print("ok: recorded %d samples, longest gap %.2f s" % (len(t), max(gaps)))
PY
echo PASS
