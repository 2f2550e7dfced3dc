#!/bin/sh
# SPDX-License-Identifier: ISC
# ui-replay: the replay screen and history (twin) mode, driven through
# tmux and read back with capture-pane.
#  - `jobtop -r FILE` on a synthetic 4-node, 10-minute recording
#    (test-rec --gen): the timeline line shows the play state, speed, the
#    time and its offset; Space pauses, ] and [ step one sample, J jumps
#    (+2m, 50%, a clock time; a bad one is refused), ^ and $ go to the start
#    and the end, { and } change the speed, and the node rows change with
#    the time shown; a missing file or not a recording: one line, exit 1.
#  - a live session (-w localhost): H goes into history while the
#    recording keeps growing, [ steps back in it, L returns to live; the
#    interactive recording holds the node states batch mode records;
#    --no-record makes H say why there is no history.
#  - a full disk while the screen runs: the event log says the recording
#    stopped, the node stays live (needs root for a small tmpfs).
# Skips without tmux or without build/tests/test-rec.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
TESTBIN=${TESTBIN:-$TOP/build/tests}
tmp=$(mktemp -d)
sock=jtreplay-$$
mnt=$tmp/full
mounted=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -n "$mounted" ] && umount "$mnt"
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
[ -x "$TESTBIN/test-rec" ] || { echo "build/tests/test-rec not built (make tests-build)"; exit 77; }

win=rp0
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
	win=rp$nwin
	tmux -L "$sock" new-session -d -s "$win" -x 150 -y 40 \
		"$1; echo rc=\$?; sleep 600"
	tmux -L "$sock" kill-session -t "$old" 2>/dev/null
}
# The time the timeline shows (HH:MM:SS after the speed).
shown() { screen | sed -n 's/^ *\(REPLAY\|HISTORY: live goes on, L returns\) *[a-z]* [0-9/]*x  \([0-9:]*\) .*/\2/p'; }
row() { screen | grep -E "^$1 "; }

# 1. A synthetic recording: 4 nodes, 600 s from 22:13:20 UTC.
"$TESTBIN/test-rec" --gen "$tmp/gen.jtr" 4 600 >/dev/null || fail "test-rec --gen"
start "env TZ=UTC LANG=C.UTF-8 $JOBTOP -r $tmp/gen.jtr"
wait_for 10 '^ REPLAY  playing 1x  22:13:2[0-9] \(\+00:0[0-9]\)  22:13:20 \[[=|-]+\] 22:23:20' ||
	fail "no timeline playing at 1x from 22:13:20 to 22:23:20"
wait_for 5 '^cn001 +live ' || fail "no live cn001 row in the replay"
keys Space
wait_for 5 '^ REPLAY  paused 1x ' || fail "Space does not pause"
keys '^'
wait_for 5 'paused 1x  22:13:20 \(\+00:00\)' || fail "^ does not go to the start"
keys J
wait_for 5 'Jump to: _' || fail "J does not prompt for a time"
keys -l -- '+2m'
keys Enter
wait_for 5 'paused 1x  22:15:20 \(\+02:00\)' || fail "J +2m does not jump two minutes on"
a=$(row cn001)
keys ']'
wait_for 5 'paused 1x  22:15:21 \(\+02:01\)' || fail "] does not step one sample"
keys '[' '['
wait_for 5 'paused 1x  22:15:19 \(\+01:59\)' || fail "[ does not step back"
keys J
keys -l '50%'
keys Enter
wait_for 5 'paused 1x  22:18:20 \(\+05:00\)' || fail "J 50% does not jump to the middle"
b=$(row cn001)
[ -n "$a" ] && [ "$a" != "$b" ] || fail "cn001 shows the same row at 22:15:20 and 22:18:20: $a"
keys J
keys -l '22:20:05'
keys Enter
wait_for 5 'paused 1x  22:20:05 \(\+06:45\)' || fail "J 22:20:05 does not jump there"
keys J
keys -l 'soon'
keys Enter
wait_for 5 'jump: give a time' || fail "a bad jump is not refused"
keys '$'
wait_for 5 ' REPLAY  end 1x  22:23:20 \(\+10:00\)' || fail "\$ does not go to the end"
keys '^' '}' '}'
wait_for 5 'paused 4x  22:13:20' || fail "} does not speed up"
keys Space
wait_for 10 'playing 4x  22:13:(2[8-9]|[3-5][0-9])' || fail "4x does not play 8 s within a few"
keys '{' '{' '{'
wait_for 5 'playing 1/2x ' || fail "{ does not slow down to 1/2x"
keys h
i=0
while ! screen | grep -q 'In the timeline panel:' && [ $i -lt 6 ]; do
	keys Space
	i=$((i + 1))
	sleep 0.2
done
wait_for 2 'jump to 12:30:00, 12:30, -5m, \+1h30m or 50%' || fail "the help does not list the timeline keys"
keys Escape
wait_for 5 '^cn001 ' || fail "Esc does not leave the help"
keys q
wait_for 10 '^rc=0$' || fail "q does not end the replay with status 0"
echo "ok: replay: pause, step, jump, start, end, speed, help"

start "$JOBTOP -r $tmp/none.jtr"
wait_for 10 '^rc=1$' || fail "a missing recording: not status 1"
wait_for 5 "^jobtop: $tmp/none.jtr: No such file or directory\$" || fail "a missing recording: not the expected message"
printf 'not a recording' >"$tmp/junk.jtr"
start "$JOBTOP -r $tmp/junk.jtr"
wait_for 10 '^rc=1$' || fail "not a recording: not status 1"
wait_for 5 "^jobtop: $tmp/junk.jtr: not a jobtop recording\$" || fail "not a recording: not the expected message"

# 2. History while live goes on, then back to live.
start "env LANG=C.UTF-8 $JOBTOP -d 0.5 -w localhost -o $tmp/live.jtr"
wait_for 15 '^localhost +live ' || fail "no live localhost row"
sleep 3
keys H
wait_for 5 '^ HISTORY: live goes on, L returns  paused 1x ' || fail "H does not show history"
s1=$(stat -c %s "$tmp/live.jtr")
t1=$(shown)
keys '[' '[' '[' '[' '['
sleep 0.5
t2=$(shown)
[ -n "$t1" ] && [ -n "$t2" ] &&
    [ "$(echo "$t2" | tr -d :)" -lt "$(echo "$t1" | tr -d :)" ] ||
	fail "[ in history: $t1 then $t2"
sleep 2
s2=$(stat -c %s "$tmp/live.jtr")
[ "$s2" -gt "$s1" ] || fail "the recording stopped growing in history ($s1, $s2 bytes)"
wait_for 5 'HISTORY: live goes on' || fail "history left on its own"
keys L
wait_for 5 '^live ' || fail "L does not say live"
screen | grep -q 'HISTORY: live' && fail "history still shown after L"
wait_for 5 '^localhost +live ' || fail "no live row after L"
keys '['
wait_for 5 '^ HISTORY: live goes on' || fail "[ does not go into history"
keys '$'
wait_for 5 '^localhost +live ' || fail "\$ does not return to live"
keys q
wait_for 10 '^rc=0$' || fail "q does not end the live session with status 0"
"$JOBTOP" -r "$tmp/live.jtr" -b --json >"$tmp/live.json" 2>"$tmp/err" ||
	fail "the interactive recording does not play: $(cat "$tmp/err")"
grep -q '"node":"localhost","type":"state","state":"live"' "$tmp/live.json" ||
	fail "the interactive recording has no node state: $(grep -c . "$tmp/live.json") records"
echo "ok: history ($s1 -> $s2 bytes recorded meanwhile), back to live; states recorded"

start "env LANG=C.UTF-8 $JOBTOP -r $tmp/live.jtr"
wait_for 10 '^ REPLAY  playing 1x ' || fail "no replay of the interactive recording"
wait_for 10 '^localhost +live ' || fail "the replayed node is not live"
keys q
wait_for 10 '^rc=0$' || fail "q: not status 0"

start "env LANG=C.UTF-8 $JOBTOP --no-record -d 0.5 -w localhost"
wait_for 15 '^localhost +live ' || fail "no live localhost row (--no-record)"
keys H
wait_for 5 'no history: this session is not being recorded' || fail "--no-record: H says nothing"
screen | grep -q 'HISTORY: live' && fail "--no-record: history shown"
keys q
wait_for 10 '^rc=0$' || fail "q: not status 0"
echo "ok: replay of the interactive recording; --no-record refuses history"

# 3. A full disk under the screen: a warning there, monitoring goes on.
if [ "$(id -u)" -eq 0 ] && mkdir -p "$mnt" &&
    mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
	mounted=1
	dd if=/dev/zero of="$mnt/filler" bs=1024 count=52 2>/dev/null
	start "env LANG=C.UTF-8 $JOBTOP -d 0.05 -w localhost -o $mnt/r.jtr 2>$tmp/full.err"
	wait_for 30 "recording stopped: No space left on device \\($mnt/r.jtr\\)" ||
		fail "no warning on the screen when the disk is full"
	wait_for 5 '^localhost +live ' || fail "the node is not live after the disk filled"
	keys H
	wait_for 5 '^ HISTORY: live goes on' || fail "no history of the cut recording"
	keys L q
	wait_for 10 '^rc=0$' || fail "full disk: not status 0"
	[ -s "$tmp/full.err" ] && fail "full disk: stderr: $(cat "$tmp/full.err")"
	echo "ok: full disk shown on the screen, monitoring went on"
else
	echo "full disk under the screen: skipped (needs root and a tmpfs)"
fi
echo PASS
