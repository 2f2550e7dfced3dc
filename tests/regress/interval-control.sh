#!/bin/sh
# SPDX-License-Identifier: ISC
# interval-control: the monitor -> probe control path (PROTOCOL.md,
# "Control").  A probe started at 0.5 s is told "interval 200" on its
# stdin after about a second: the gaps between its samples (their times,
# which add up the dt_ms they carry) go from 0.5 to 0.2 s, a bad line and
# an out-of-bounds interval change nothing (the latter raises an EVENT
# bad-control), and EOF on stdin still ends it.  Then the curses monitor
# on this machine (-w localhost, through tmux): '-' twice from 1 s makes
# the probe sample every 0.25 s ("sampling every 0.25 s (1 probe told)",
# the header says "every 0.25s"), and the recording of that run shows
# the samples' gaps shrink from 1 s to 0.25 s.  Needs python3; the second
# half skips without tmux.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-ctl.XXXXXX") || exit 1
sock=jtctl-$$
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
	[ -n "${win:-}" ] && { echo "--- screen:"; tmux -L "$sock" capture-pane -p -t "$win" 2>/dev/null; }
	echo "FAIL: $*"
	exit 1
}
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
[ -x "$PROBE" ] && [ -x "$JOBTOP" ] || fail "build first (make)"

# gaps.py JSON-LINES: the gaps (s) between a node's samples, one a line
cat >"$tmp/gaps.py" <<'PY'
import json, sys
t = [json.loads(l)["time"] for l in open(sys.argv[1])
     if json.loads(l)["type"] == "node"]
for a, b in zip(t, t[1:]):
    print("%.3f" % (b - a))
PY

# within LO HI FIRST LAST <GAPS: the median of gaps FIRST..LAST (1-based,
# negative from the end) lies within [LO, HI].  The probe samples on a
# grid, so one late sample makes one gap long and the next short: on a
# loaded machine (make check runs the lab beside) single gaps wander by a
# tenth of a second, their median does not.
within() {
	python3 -c '
import sys
lo, hi, a, b = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
g = [float(l) for l in sys.stdin if l.strip()]
g = g[a - 1 if a > 0 else len(g) + a:b if b > 0 else len(g) + b + 1]
g.sort()
m = g[len(g) // 2] if g else -1
sys.exit(0 if g and lo <= m <= hi else 1)' "$@"
}

# The probe alone.
{ sleep 2.2; echo "interval 200"; sleep 0.7; echo "nonsense 5";
  echo "interval 5"; sleep 0.8; } |
	"$PROBE" --interval 0.5 --count 100 >"$tmp/p.bin" || fail "probe failed"
"$JOBTOP" --decode --json <"$tmp/p.bin" >"$tmp/p.json" || fail "decode failed"
python3 "$tmp/gaps.py" "$tmp/p.json" >"$tmp/p.gaps"
echo "probe gaps: $(tr '\n' ' ' <"$tmp/p.gaps")"
# The first gap is the quick second sample (200 ms, PROTOCOL.md "SAMPLE"),
# the next three the old interval, the last five the new one.
head -1 "$tmp/p.gaps" | awk '$1 < 0.15 || $1 > 0.45 { exit 1 }' ||
	fail "the first gap is not 0.2 s"
within 0.45 0.6 2 4 <"$tmp/p.gaps" ||
	fail "gaps before the command are not 0.5 s"
within 0.15 0.3 -5 -1 <"$tmp/p.gaps" ||
	fail "gaps after 'interval 200' are not 0.2 s"
grep -q '"code": *"bad-control"' "$tmp/p.json" || fail "no bad-control event for 'interval 5'"
grep -q '"type": *"bye"' "$tmp/p.json" || fail "EOF on stdin did not end the probe"
echo "ok: the probe takes 'interval 200' and ends at EOF"

# A stalled probe skips what it missed and never samples hurriedly: the
# probe at 0.2 s is stopped (SIGSTOP) for 0.3 s eight times, at phases
# that wander across its grid.  Woken between a tick and the next one
# (half the stops), a probe that only kept its grid took the missed
# sample at once and the next on the grid a few ms later: a gap the
# CPU's jiffies had not moved in, a sample without cpu rates (once in
# CI: "sample 1: cpu.user = None").  Every gap is at least half an
# interval, every sample after the first has its rates.
"$PROBE" --interval 0.2 --count 40 </dev/null >"$tmp/s.bin" &
spid=$!
sleep 0.5
for ph in 0.03 0.07 0.11 0.15 0.19 0.05 0.13 0.17; do
	sleep "$ph"
	kill -STOP $spid 2>/dev/null || break
	sleep 0.3
	kill -CONT $spid 2>/dev/null || break
done
wait $spid || fail "the stopped probe failed"
"$JOBTOP" --decode --json <"$tmp/s.bin" >"$tmp/s.json" || fail "decode failed"
python3 "$tmp/gaps.py" "$tmp/s.json" >"$tmp/s.gaps"
echo "stalled probe gaps: $(tr '\n' ' ' <"$tmp/s.gaps")"
awk '$1 < 0.099 { bad = bad " " $1 } END { if (bad != "") { print "short gaps:" bad; exit 1 } }' \
	"$tmp/s.gaps" || fail "the stalled probe sampled less than 0.1 s after a sample"
python3 - "$tmp/s.json" <<'PY' || fail "a sample of the stalled probe lacks cpu rates"
import json, sys
nodes = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "node"]
bad = [i for i, r in enumerate(nodes) if i > 0 and
       not isinstance(r.get("cpu.user"), (int, float))]
if len(nodes) < 10 or bad:
    print("%d node records, without cpu.user: %r" % (len(nodes), bad))
    sys.exit(1)
PY
echo "ok: a stalled probe skips, never samples twice in a hurry"

command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
win=ctl
screen() { tmux -L "$sock" capture-pane -p -t "$win"; }
# The one waiting helper (tests/lib/ui.sh) on this test's own screen.
. "$TOP/tests/lib/ui.sh"
ui_screen() { screen; }
wait_for() { ui_wait "$@"; }
tmux -L "$sock" new-session -d -s "$win" -x 150 -y 40 \
	"env LANG=C.UTF-8 $JOBTOP -o $tmp/run.jtr -d 1 -w localhost; echo rc=\$?; sleep 600"
wait_for 15 '^localhost +live .*[▁▂▃▄▅▆▇█]{2}' || fail "no live localhost row"
wait_for 5 'every 1s' || fail "the header does not say every 1s"
sleep 2
tmux -L "$sock" send-keys -t "$win" -
tmux -L "$sock" send-keys -t "$win" -
wait_for 5 'sampling every 0.25 s \(1 probe told\)' || fail "'-' does not change the interval"
wait_for 5 'every 0.25s' || fail "the header does not say every 0.25s"
sleep 2.5
tmux -L "$sock" send-keys -t "$win" q
wait_for 10 '^rc=0$' || fail "q does not end jobtop with status 0"
"$JOBTOP" -r "$tmp/run.jtr" --json >"$tmp/r.json" || fail "replay failed"
python3 "$tmp/gaps.py" "$tmp/r.json" >"$tmp/r.gaps"
echo "monitor gaps: $(tr '\n' ' ' <"$tmp/r.gaps")"
within 0.9 1.15 1 3 <"$tmp/r.gaps" ||
	fail "gaps before '-' are not 1 s"
within 0.18 0.35 -5 -1 <"$tmp/r.gaps" ||
	fail "gaps after '-' '-' are not 0.25 s"
echo "ok: '-' makes the probe sample every 0.25 s"
echo PASS
