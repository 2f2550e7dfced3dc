#!/bin/bash
# SPDX-License-Identifier: ISC
# test-escape-names: a job whose ranks are named to attack the watcher's
# terminal (jobs/evilname.sh: OSC 0 set-title, CSI 2 J clear-screen and a
# UTF-8 C1 CSI in comm), watched over SSH as jtuser on the real lab
# (security review F4):
#  - batch text: raw stdout and stderr hold no ESC, BEL and no \xc2\x9b,
#    the ranks show as "?]0;PW??[2J??x";
#  - --json: the comm is escaped (\u001b ... \u009b) and decodes to the
#    bytes the rank set;
#  - curses in tmux: the rank table and a rank's detail show the cleaned
#    name and the pane title stays what it was, while jobtop runs and after it quits (a
#    control pane that prints the same OSC does get its title changed, so
#    the check can fail).
set -u
. "$(dirname "$0")/lib.sh"
lab_require_up
command -v tmux >/dev/null || lab_skip "tmux is not installed"
command -v python3 >/dev/null || lab_skip "python3 is not installed"
((LAB_N >= 2)) || lab_skip "needs 2 nodes, the lab has $LAB_N"

JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
UI_DIR=$(mktemp -d /tmp/jobtop-esc.XXXXXX)
UI_SOCK=jtesc-$$
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
JT=$UI_DIR/jobtop
shown='?]0;PW??[2J??x'
want_json='"rank.comm":"\u001b]0;PW\u0007\u001b[2J\u009bx"'

# raw_clean FILE WHAT: no control byte but newline, nothing >= 0x7f.
raw_clean() {
	python3 - "$1" "$2" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
bad = [i for i, b in enumerate(data) if (b < 0x20 and b != 10) or b >= 0x7f]
if bad:
    i = bad[0]
    print("FAIL: %s: byte 0x%02x at %d: %r" % (sys.argv[2], data[i], i, data[max(0, i - 30):i + 30]))
    sys.exit(1)
PY
}

job=$(lab_submit "$LAB_USER" "$LAB_JOBS/evilname.sh") || lab_fail "the evilname job did not start"
lab_ranks "$job" >"$UI_DIR/placed"
[ "$(wc -l <"$UI_DIR/placed")" -eq 2 ] || lab_fail "expected 2 ranks: $(cat "$UI_DIR/placed")"
# The ranks really carry the name (read on their node).
read -r r0 pid0 host0 <"$UI_DIR/placed"
lab_node_exec "$host0" cat "/proc/$pid0/comm" | python3 -c 'import sys
sys.exit(sys.stdin.buffer.read() != b"\x1b]0;PW\x07\x1b[2J\xc2\x9bx\n")' ||
	lab_fail "rank $r0 (pid $pid0 on $host0) does not carry the name: $(lab_node_exec "$host0" cat "/proc/$pid0/comm" | od -c)"

# Batch text.
lab_as "$LAB_USER" "$JT" -b -n 2 -d 0.5 --no-record "$job" >"$UI_DIR/out" 2>"$UI_DIR/err"
rc=$?
[ $rc -eq 0 ] || lab_fail "batch text: exit $rc: $(cat "$UI_DIR/err")"
raw_clean "$UI_DIR/out" "batch text stdout" || exit 1
raw_clean "$UI_DIR/err" "batch text stderr" || exit 1
while read -r r pid host; do
	grep -E "^ +$r +$pid " "$UI_DIR/out" | grep -F -q "$shown" ||
		lab_fail "batch text: rank $r (pid $pid on $host) not shown as $shown: $(grep -E "^ +$r " "$UI_DIR/out" | head -2)"
done <"$UI_DIR/placed"
echo "ok: batch text shows both ranks as $shown, no escape byte on stdout or stderr"

# JSON.
lab_as "$LAB_USER" "$JT" --json -n 2 -d 0.5 --no-record "$job" >"$UI_DIR/out" 2>"$UI_DIR/err"
rc=$?
[ $rc -eq 0 ] || lab_fail "json: exit $rc: $(cat "$UI_DIR/err")"
raw_clean "$UI_DIR/out" "json stdout" || exit 1
raw_clean "$UI_DIR/err" "json stderr" || exit 1
grep -F -q "$want_json" "$UI_DIR/out" ||
	lab_fail "json: comm not escaped: $(grep -o '"rank.comm":"[^"]*"' "$UI_DIR/out" | sort -u | head -3)"
python3 - "$UI_DIR/out" "$UI_DIR/placed" <<'PY' || exit 1
import json, sys
want = "\x1b]0;PW\x07\x1b[2J\x9bx"
placed = {int(l.split()[0]): (int(l.split()[1]), l.split()[2]) for l in open(sys.argv[2])}
seen = {}
for r in map(json.loads, open(sys.argv[1])):
    if r["type"] == "rank" and "rank" in r:
        seen.setdefault(r["rank"], set()).add((r["pid"], r["node"], r.get("rank.comm")))
for rank, (pid, host) in placed.items():
    if seen.get(rank) != {(pid, host, want)}:
        print("FAIL: json rank %d: %r, want pid %d on %s named %r" % (rank, seen.get(rank), pid, host, want))
        sys.exit(1)
PY
echo "ok: JSON escapes the names as \\u001b...\\u009b, and they decode to what the ranks set"

# Curses in tmux.
UI_TMUX="lab_as $LAB_USER tmux -L $UI_SOCK" UI_WIN=ui
. "$LAB_TOP/tests/lib/ui.sh"
title() { ui_tmux display -p -t "$1" '#{pane_title}'; }
# The control: the same OSC printed raw does change a pane's title.
ui_tmux new-session -d -s ctl -x 80 -y 10 "sleep 1; printf '\\033]0;PW\\007'; sleep 600"
t0=$SECONDS
while [ "$(title ctl)" != PW ] && ((SECONDS - t0 < 10)); do sleep 0.2; done
[ "$(title ctl)" = PW ] || lab_fail "control: a raw OSC 0 did not set the pane title (it is '$(title ctl)'): this tmux cannot show the attack"
ui_tmux kill-session -t ctl

ui_tmux new-session -d -s ui -x 160 -y 40 \
	"while [ ! -e $UI_DIR/go ]; do sleep 0.1; done; $JT --no-record -d 0.5 $job; echo jobtop-exit=\$?; sleep 600"
before=$(title ui)
[ -n "$before" ] && [ "$before" != PW ] || lab_fail "odd pane title before the start: '$before'"
touch "$UI_DIR/go"
ui_wait_fixed 20 "nodes 2: 2 live" || ui_fail "the 2 nodes are not live within 20 s"
# The job's rank table (r), then the top rank's detail (Enter).
ui_tmux send-keys -t ui r
ui_wait_fixed 10 "Ranks of the job" || ui_fail "r does not show the ranks"
# COMMAND shows the command line, whose argv[0] carries the same bytes:
# the probe turns its control bytes into blanks (as NULs between
# arguments), the monitor the C1 CSI into '??'.
shown_cmd=']0;PW  [2J??x'
ui_wait_fixed 10 "$shown_cmd" || ui_fail "the rank table does not show $shown_cmd"
# Each rank's row fills with its own sample: wait for both.
ui_wait_fixed 10 "$shown_cmd" 2 || ui_fail "not both ranks show as $shown_cmd"
sleep 1
ui_tmux send-keys -t ui Enter
ui_wait_fixed 10 "$shown" || ui_fail "the rank detail does not show $shown"
sleep 1	# a few redraws of the detail before the title is read
[ "$(title ui)" = "$before" ] || ui_fail "pane title changed while jobtop runs: '$(title ui)', was '$before'"
ui_tmux send-keys -t ui q
ui_wait_fixed 10 "jobtop-exit=0" || ui_fail "q did not end jobtop with 0"
[ "$(title ui)" = "$before" ] || ui_fail "pane title changed after jobtop quit: '$(title ui)', was '$before'"
echo "ok: curses shows $shown and the pane title stays '$before' (a raw OSC 0 changes it)"
echo PASS
