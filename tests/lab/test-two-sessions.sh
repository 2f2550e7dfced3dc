#!/bin/bash
# SPDX-License-Identifier: ISC
# test-two-sessions: two jobtop sessions on one job, one node reached
# through srun (review D1, issue 25 item 4).  node4's sshd is stopped, so
# `auto` serves node4 through `srun --overlap --job-name=jobtop` for both
# sessions: each session's probe on node4 runs inside the job (a task of a
# jobtop step, with the job's SLURM_JOB_ID), where the other session's
# probe looks for ranks.
#  - session A: jtuser's batch monitor (-b --json), running all along;
#  - session B: jtuser's curses monitor in tmux, started once A's probe
#    runs on node4: the header reads `ranks 4 of 4` and never `ranks 5`,
#    no FLAGS line; the rank table of node4 lists rank 3 only, no probe;
#  - session C: a second batch monitor beside A and B for 15 samples: in
#    every sample the rank records are exactly ranks 0-3, each on the node
#    where Slurm placed it (pid and node), none of them a probe (comm
#    probe-*), and no "made no progress" / "progresses again" event;
#  - and A itself, which ran while B's and C's probes came and went on
#    node4: the same holds for all its samples.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
command -v tmux >/dev/null || lab_skip "tmux is not installed"
command -v srun >/dev/null || lab_skip "srun is not installed"
top=$(cd "$here/../.." && pwd)
for b in jobtop jobtop-probe; do
	[ -x "$top/$b" ] || lab_skip "$b is not built"
done
lab_wait_idle 60 || lab_fail "not all of $LAB_N nodes idle"

tmp=$(mktemp -d /tmp/jobtop-two.XXXXXX)
chmod 755 "$tmp"
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$tmp/"
cp -r "$top/themes" "$tmp/" && chmod -R a+rX "$tmp"
JT=$tmp/jobtop
sock=jttwo-$$
job=
apid=
sshd_down=
cleanup() {
	[ -n "$apid" ] && kill "$apid" 2>/dev/null
	lab_as "$LAB_USER" tmux -L "$sock" kill-server 2>/dev/null
	if [ -n "$sshd_down" ]; then
		lab_node_exec node4 /usr/sbin/sshd -f \
		    "$LAB_DIR/nodes/node4/sshd_config" \
		    -E "$LAB_LOG/sshd.node4.log" 2>/dev/null
	fi
	[ -n "$job" ] && lab_cancel "$job"
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "the healthy job did not start"
lab_ranks "$job" >"$tmp/placed"
[ "$(wc -l <"$tmp/placed")" -eq 4 ] || lab_fail "job $job has not 4 ranks: $(cat "$tmp/placed")"
lab_sshd_stop node4 || lab_fail "could not stop node4's sshd"
sshd_down=1

# The probes of jobtop's steps on node4 (the job's own ranks are rankload).
node4_probes() {
	lab_node_exec node4 pgrep -f "probe-[0-9a-f]* --armour" | grep -c .
}

# Session A: at most 150 samples; it is told to quit (SIGINT, as ^C) once
# B and C have been read, so it spans both and no longer.
lab_as "$LAB_USER" "$JT" -b --json -d 0.5 -n 150 "$job" \
    >"$tmp/a.json" 2>"$tmp/a.err" &
apid=$!
for _ in $(seq 100); do
	[ "$(node4_probes)" -ge 1 ] && break
	sleep 0.2
done
[ "$(node4_probes)" -ge 1 ] || lab_fail "session A's probe never ran on node4 through srun: $(tail -3 "$tmp/a.err")"
ok "session A's probe runs on node4 through srun"

# Session B: the screen.
UI_TMUX="lab_as $LAB_USER tmux -L $sock" UI_WIN=ui
. "$top/tests/lib/ui.sh"
ui_tmux new-session -d -s ui -x 160 -y 45 \
    "$JT --no-record -d 1 $job; echo jobtop-exit=\$?; sleep 600"
ui_wait 30 'nodes 4: 4 live' || ui_fail "session B: the 4 nodes are not all live within 30 s"
[ "$(node4_probes)" -ge 2 ] || fail "session B's probe does not run on node4 beside A's ($(node4_probes))"
ui_wait 10 'ranks 4 of 4' || ui_fail "session B: no 'ranks 4 of 4' in the header"
# Ten samples: never more ranks, never a flag.
bad=
for _ in $(seq 10); do
	sleep 1
	scr=$(ui_screen)
	if echo "$scr" | grep -Eq 'ranks [5-9]|FLAGS [0-9]|stalled'; then
		bad=$(echo "$scr" | grep -E 'ranks [5-9]|FLAGS [0-9]|stalled' | head -3)
		break
	fi
done
if [ -z "$bad" ]; then
	ok "session B: 'ranks 4 of 4' and no flag for 10 samples"
else
	fail "session B shows another session's probe: $bad"
fi

# Session C: every sample's ranks, beside A's and B's probes.
lab_as "$LAB_USER" "$JT" -b --json -d 0.5 -n 15 "$job" \
    >"$tmp/c.json" 2>"$tmp/c.err" || fail "session C exited $?: $(tail -3 "$tmp/c.err")"
[ "$(node4_probes)" -ge 2 ] || fail "fewer than 2 probes on node4 while C ran"

check() {	# FILE WHO
	python3 - "$1" "$tmp/placed" "$2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
placed = {}
for line in open(sys.argv[2]):
    r, pid, host = line.split()
    placed[int(r)] = (int(pid), host)
who = sys.argv[3]
bad = []
samples = {}
for r in recs:
    if r.get("type") == "rank" and not r.get("rank.helper"):
        samples.setdefault((r["node"], r["time"]), []).append(r)
    if r.get("type") == "event" and ("made no progress" in r.get("text", "")
                                     or "progresses again" in r.get("text", "")):
        bad.append("event: %s %s" % (r["node"], r["text"]))
    if r.get("type") == "rank" and str(r.get("rank.comm", "")).startswith(("probe-", "jobtop-probe")):
        bad.append("a probe in the rank records: %s pid %s" % (r["node"], r["pid"]))
per_node = {}
for (node, t), rs in samples.items():
    seen = sorted((r.get("rank"), r["pid"]) for r in rs)
    want = sorted((k, v[0]) for k, v in placed.items() if v[1] == node)
    if seen != want:
        bad.append("%s at %s: ranks %s, slurm placed %s" % (node, t, seen, want))
    per_node[node] = per_node.get(node, 0) + 1
if set(per_node) != {"node1", "node2", "node3", "node4"} or min(per_node.values()) < 5:
    bad.append("samples with ranks per node: %s" % per_node)
for b in bad[:8]:
    print("FAIL: %s: %s" % (who, b))
if not bad:
    print("ok: %s: ranks 0-3 on their nodes in every sample (%s), no probe, no stall event"
          % (who, " ".join("%s=%d" % kv for kv in sorted(per_node.items()))))
sys.exit(1 if bad else 0)
PY
}
check "$tmp/c.json" "session C" || fails=$((fails + 1))

# B's screen has been read: its probe may go, A's sees it leave.
lab_as "$LAB_USER" tmux -L "$sock" kill-server 2>/dev/null
sleep 2
pkill -INT -f "^$JT -b --json -d 0.5 -n 150 " 2>/dev/null
wait "$apid"
rc=$?
apid=
[ $rc -eq 0 ] || fail "session A exited $rc: $(tail -3 "$tmp/a.err")"
check "$tmp/a.json" "session A (while B and C came and went)" || fails=$((fails + 1))

[ $fails -eq 0 ] || exit 1
echo "PASS"
