#!/bin/bash
# SPDX-License-Identifier: ISC
# monitor-lifecycle: the monitor ends promptly, with its probe, however it
# is left (the lab test test-lifecycle does the same over SSH, with jobs):
#  - `jobtop -b | head -3` (text and --json) ends at once, exit 0, quiet;
#  - the curses monitor under a session leader that stays and keeps the
#    hangup to itself (as su does) ends when its tmux window is killed,
#    instead of spinning on the hung-up terminal; so does batch mode
#    writing into a file from that window;
#  - SIGHUP and SIGTERM end batch mode and the curses monitor;
#  - every recording left behind plays back.
# "Promptly" is within LIMIT seconds (5): this test runs at a low CPU share
# beside the lab's spinning ranks (tests/run.sh), where closing the
# recording (its last block, fsync) can take a second or two; a miss says
# which process was left and what it was doing.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# run.sh uses sh
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d)
SOCK=jtlc-$$
cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
[ -x "$JOBTOP" ] || { echo "FAIL: $JOBTOP not built"; exit 1; }
# Only this test's monitors: their recordings are in $tmp.
mon_pid() { pgrep -f "^$JOBTOP .*$tmp/$1" | head -1; }
# The probe children of a monitor.
probe_of() { pgrep -P "$1" -f jobtop-probe | head -1; }
LIMIT=5
# what_left PID...: "PID STATE WCHAN COMMAND" of those still there.
what_left() {
	local p
	for p in "$@"; do
		ps -o pid=,stat=,wchan:20=,args= -p "$p" 2>/dev/null | cut -c1-120
	done | tr '\n' ';'
}
# wait_gone SECONDS PID... : until all are gone (1 after the time)
wait_gone() {
	local t0 limit=$1 p alive
	shift
	t0=$(date +%s%N)
	while :; do
		alive=0
		for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 0 ] && break
		(($(date +%s%N) - t0 > limit * 1000000000)) && return 1
		sleep 0.05
	done
	gone_ms=$((($(date +%s%N) - t0) / 1000000))
}
replays() {
	"$JOBTOP" -r "$1" -b --json >"$tmp/replay" 2>"$tmp/replay.err" &&
		[ ! -s "$tmp/replay.err" ] ||
		fail "$2: the recording does not play back: $(head -2 "$tmp/replay.err")"
}

# | head -3
for fmt in text json; do
	[ $fmt = json ] && opt=--json || opt=
	t0=$(date +%s%N)
	timeout 20 "$JOBTOP" -b $opt -d 0.2 -w localhost -o "$tmp/head-$fmt.jtr" \
		2>"$tmp/err" | head -3 >/dev/null
	rc=${PIPESTATUS[0]}
	ms=$((($(date +%s%N) - t0) / 1000000))
	if [ "$rc" -ne 0 ] || ((ms > 3000)); then
		fail "| head -3 ($fmt): exit $rc after $ms ms"
	elif [ -s "$tmp/err" ]; then
		fail "| head -3 ($fmt): stderr: $(head -2 "$tmp/err")"
	else
		ok "| head -3 ($fmt): exit 0 after $ms ms"
	fi
	replays "$tmp/head-$fmt.jtr" "| head ($fmt)"
done

# Signals to batch mode.
for sig in HUP TERM; do
	"$JOBTOP" -b -d 0.2 -w localhost -o "$tmp/sig-$sig.jtr" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	probe=$(probe_of $pid)
	kill -$sig $pid
	if [ -n "$probe" ] && wait_gone $LIMIT $pid "$probe"; then
		ok "batch, SIG$sig: monitor and probe gone in $gone_ms ms"
	else
		fail "batch, SIG$sig: still running $LIMIT s later (probe '${probe}'): $(what_left $pid $probe)"
		kill -9 $pid 2>/dev/null
	fi
	wait $pid 2>/dev/null
	replays "$tmp/sig-$sig.jtr" "batch, SIG$sig"
done

if ! command -v tmux >/dev/null 2>&1; then
	echo "tmux is not installed"
	exit 77
fi
T() { tmux -L "$SOCK" "$@"; }
# ui NAME [-b]: the monitor (curses, or batch into a file) in tmux window
# NAME, under a shell that leads the session, stays, and keeps the hangup
# to itself (like su and sudo).
ui() {
	local cmd="trap : HUP; $JOBTOP ${2:-} -d 0.2 -w localhost -o $tmp/$1.jtr"
	[ -n "${2:-}" ] && cmd="$cmd >$tmp/$1.out"
	cmd="$cmd; sleep 1"
	if T has-session 2>/dev/null; then
		T new-window -d -n "$1" "$cmd"
	else
		T new-session -d -s lc -n "$1" -x 120 -y 30 "$cmd"
	fi
	for _ in $(seq 50); do
		if [ -n "${2:-}" ]; then
			grep -q 'localhost: live' "$tmp/$1.out" && break
		else
			T capture-pane -p -t "$1" 2>/dev/null | grep -q '1 live' && break
		fi
		sleep 0.2
	done
	pid=$(mon_pid "$1.jtr")
	probe=$(probe_of "$pid")
	[ -n "$pid" ] && [ -n "$probe" ] || fail "$1: the monitor did not start"
}

ui hup
T kill-window -t hup
if [ -n "$pid" ] && wait_gone $LIMIT "$pid" "$probe"; then
	ok "curses, terminal gone: monitor and probe gone in $gone_ms ms"
else
	fail "curses, terminal gone: still running $LIMIT s later ($(ps -o pcpu= -p "$pid")% CPU)"
	kill -9 "$pid" 2>/dev/null
fi
replays "$tmp/hup.jtr" "curses, terminal gone"

# Batch mode writing to a file notices its terminal's hangup too.
ui bhup -b
T kill-window -t bhup
if [ -n "$pid" ] && wait_gone $LIMIT "$pid" "$probe"; then
	ok "batch into a file, terminal gone: monitor and probe gone in $gone_ms ms"
else
	fail "batch into a file, terminal gone: still running $LIMIT s later"
	kill -9 "$pid" 2>/dev/null
fi
replays "$tmp/bhup.jtr" "batch, terminal gone"

for sig in HUP TERM; do
	ui "sig$sig"
	kill -$sig "$pid"
	if [ -n "$pid" ] && wait_gone $LIMIT "$pid" "$probe"; then
		ok "curses, SIG$sig: monitor and probe gone in $gone_ms ms"
	else
		fail "curses, SIG$sig: still running $LIMIT s later"
		kill -9 "$pid" 2>/dev/null
	fi
	replays "$tmp/sig$sig.jtr" "curses, SIG$sig"
done

[ $fails -eq 0 ] || exit 1
