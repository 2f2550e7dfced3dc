#!/bin/bash
# SPDX-License-Identifier: ISC
# test-rank-exit: ranks are members of the job.  The lab's early-exit job
# (4 tasks, NumTasks=4; rank 2 ends after 15 s, the others go on) watched
# by jtuser at once in batch JSON (recorded, with --log) and in the curses
# monitor (tmux, recorded).  Afterwards: exactly one "rank-exit" event,
# naming the node, rank 2, its pid (from its rank file) and "rankload",
# with "ranks 3 of 4", and no other membership event; the job records go
# from "ranks": 4 to "ranks": 3 with "ntasks": 4; rank 2 has no rank record
# after the event; the log has the event; the batch recording's replay
# (-r FILE -b --json) has the same event; the curses header says
# "ranks 3 of 4" and its event panel the exit; the curses recording played
# back (-r FILE, '$' to its end) says both again.
# The verdict (D7): the batch recording's report and the curses monitor's
# summary when it quits name the exit as the worst rank, "rank 2 on NODE
# exited at HH:MM:SS while 3 ranks went on", never "none stands out".
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
command -v tmux >/dev/null || lab_skip "tmux is not installed"
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"

JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
dir=$(mktemp -d /tmp/jobtop-rankexit.XXXXXX)
sock=jtrank-$$
job=""
cleanup() {
	lab_as "$LAB_USER" tmux -L "$sock" kill-server 2>/dev/null || true
	[ -z "$job" ] || lab_cancel "$job"
	rm -rf "$dir"
}
trap cleanup EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"
cp -r "$LAB_TOP/themes" "$dir/"
chmod -R a+rX "$dir"
install -d -m 700 -o "$LAB_USER" "$dir/out"
out=$dir/out

UI_TMUX="lab_as $LAB_USER tmux -L $sock"
. "$LAB_TOP/tests/lib/ui.sh"
# ui_on WINDOW FUNCTION ARGS...: a ui.sh function on one window.
ui_on() { local UI_WIN=$1; shift; "$@"; }

job=$(lab_submit "$LAB_USER" early-exit --export=ALL,EARLY_EXIT_SECONDS=15) ||
	lab_fail "could not start the early-exit job"
read -r _ pid host < <(lab_ranks "$job" | awk '$1 == 2')
[ -n "$host" ] || lab_fail "no rank 2 in job $job"
ntasks=$(scontrol show job -o "$job" | sed -n 's/.* NumTasks=\([0-9]*\) .*/\1/p')
[ "$ntasks" = 4 ] || lab_fail "job $job has NumTasks=$ntasks, want 4"
echo "job $job: rank 2 is pid $pid on $host, ends 15 s after it started"
want="rank 2 (pid $pid, rankload) exited on $host; ranks 3 of 4"

ui_tmux new-session -d -s live -x 160 -y 45 \
	"$dir/jobtop -o $out/ui.jtr -d 1 $job; echo jobtop-exit=\$?; sleep 600"
lab_as "$LAB_USER" "$dir/jobtop" --json -d 0.5 -n 50 -o "$out/b.jtr" \
	--log "$out/log" "$job" >"$dir/b.json" 2>"$dir/err" ||
	lab_fail "jobtop failed: $(cat "$dir/err")"

python3 - "$dir/b.json" "$host" "$pid" "$want" <<'PY' || lab_fail "batch JSON"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
host, pid, want = sys.argv[2], int(sys.argv[3]), sys.argv[4]
member = [r for r in recs if r["type"] == "event" and
          r["code"] in ("rank-exit", "rank-appear")]
assert len(member) == 1, "membership events: %s" % member
e = member[0]
assert e["code"] == "rank-exit" and e["node"] == host and \
    e["level"] == "warn" and e["text"] == want, "the event: %s" % e
jobs = [r for r in recs if r["type"] == "job"]
assert jobs and all(j["ntasks"] == 4 for j in jobs), "job records: %s" % jobs[:3]
assert any(j["ranks"] == 4 for j in jobs if j["time"] < e["time"]), \
    "no 'ranks 4 of 4' before the exit: %s" % jobs[:5]
after = [j for j in jobs if j["time"] > e["time"] + 0.01]
assert after and all(j["ranks"] == 3 for j in after), \
    "job records after the exit: %s" % after
late = [r for r in recs if r["type"] == "rank" and r.get("pid") == pid and
        r["time"] > e["time"]]
assert not late, "rank 2 still reported after its exit: %s" % late[:1]
print("ok: %s; %d job records, the last {ranks: %d, ntasks: %d}" %
      (e["text"], len(jobs), jobs[-1]["ranks"], jobs[-1]["ntasks"]))
PY
grep -qF "event $host rank-exit: $want" "$out/log" ||
	lab_fail "the log lacks the event: $(grep event "$out/log" | head -3)"
echo "ok: the log has it"

lab_as "$LAB_USER" "$dir/jobtop" -r "$out/b.jtr" -b --json >"$dir/r.json" \
	2>"$dir/err" || lab_fail "replay of the batch recording: $(cat "$dir/err")"
n=$(grep '"type":"event"' "$dir/r.json" | grep -c '"code":"rank-exit"' || true)
[ "$n" = 1 ] || lab_fail "$n rank-exit events in the replay, want 1"
grep '"code":"rank-exit"' "$dir/r.json" | grep -qF "\"text\":\"$want\"" ||
	lab_fail "the replayed event differs: $(grep rank-exit "$dir/r.json")"
echo "ok: the replay of the recording has it"

lab_as "$LAB_USER" "$dir/jobtop" report "$out/b.jtr" -o "$out/r.html" \
	2>"$dir/err" || lab_fail "report of the batch recording: $(cat "$dir/err")"
python3 - "$out/r.html" "$host" <<'PY' || lab_fail "the report's verdict lacks the exit"
import html, re, sys
t = html.unescape(re.sub(r"<[^>]+>", " ", open(sys.argv[1]).read()))
host = sys.argv[2]
m = re.search(r"Worst rank\s+(rank 2 on %s exited at \d\d:\d\d:\d\d while 3 "
              r"ranks went on[^\n]*)" % re.escape(host), t)
assert m, "verdict: %r" % t[t.find("Worst rank"):][:300]
# The rank line names the exit, never "none stands out" (the Worst node
# line may say that of the nodes: their CPU is alike).
wr = t[t.find("Worst rank"):][:400]
assert "none stands out" not in wr.split("Worst node")[0], \
    "'none stands out' beside the exit: %r" % wr
print("ok: report: " + m.group(1).strip()[:160])
PY

ui_on live ui_expect 10 "ranks 3 of 4" "the header does not say ranks 3 of 4"
ui_on live ui_wait_fixed 10 "warn  $want" || ui_on live ui_fail "no exit event on the screen"
echo "ok: the curses header and event panel say so"
ui_tmux send-keys -t live q
ui_on live ui_expect 10 'jobtop-exit=0' "the monitor did not quit cleanly"
ui_on live ui_expect 5 "Worst rank: rank 2 on $host exited at [0-9:]+ while 3 ranks went on" \
	"the summary on quitting lacks the exit"
echo "ok: the summary on quitting names the exit"

ui_tmux new-window -d -n rep -t live \
	"$dir/jobtop -r $out/ui.jtr; echo jobtop-exit=\$?; sleep 600"
ui_on live:rep ui_expect 10 'jobtop' "the replay did not start"
ui_tmux send-keys -t live:rep '$'
ui_on live:rep ui_expect 10 "ranks 3 of 4" "the replay's header lacks ranks 3 of 4"
ui_on live:rep ui_wait_fixed 10 "$want" || ui_on live:rep ui_fail "the replay lacks the exit event"
echo "ok: the curses replay says so too"
echo PASS
