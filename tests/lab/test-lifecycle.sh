#!/bin/bash
# SPDX-License-Identifier: ISC
# test-lifecycle: every way the monitor ends, on the real lab (issue 11,
# "Lifecycle").  Each end must be prompt, leave no probe on any node and
# leave a recording that plays back (`jobtop -r FILE -b`).
#  - hangup: the curses monitor under `su` (which stays alive and sends no
#    SIGHUP on) in a tmux window; the window is killed: jobtop is gone
#    within 2 s, and so are its probes;
#  - `jobtop -b ... | head -3` (text and --json) ends within seconds, exit 0;
#  - the job ends while batch mode watches: cancelled (--json: the last
#    record is {"type":"job","state":"CANCELLED"}) and completed (text:
#    "job N: COMPLETED"), exit 0;
#  - the job completes while the curses monitor watches: the header shows
#    COMPLETED, the probes are gone, the screen stays until q.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
command -v tmux >/dev/null || lab_skip "tmux is not installed"
command -v su >/dev/null || lab_skip "su is not installed"
[ "$LAB_N" -ge 4 ] || lab_skip "needs 4 nodes"
top=$(cd "$here/../.." && pwd)
JOBTOP=${JOBTOP:-$top/jobtop}
PROBE=${PROBE:-$top/jobtop-probe}
for b in "$JOBTOP" "$PROBE"; do
	[ -x "$b" ] || lab_skip "$b is not built"
done
install -m 755 "$JOBTOP" "$LAB_BIN/jobtop"
install -m 755 "$PROBE" "$LAB_BIN/jobtop-probe"
JT=$LAB_BIN/jobtop
tmp=$(mktemp -d)
chmod 755 "$tmp"
out=$tmp/out		# jtuser writes its recordings here
mkdir "$out"
chown "$LAB_USER" "$out"
SOCK=jtlife-$$
jobs_started=()
bgpids=()
cleanup() {
	local p
	for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null; done
	tmux -L "$SOCK" kill-server 2>/dev/null
	for p in $(pgrep -u "$LAB_USER" -f "^$JT "); do kill -9 "$p"; done
	[ ${#jobs_started[@]} -gt 0 ] && lab_cancel "${jobs_started[@]}"
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# The probes of job J on every node (counted inside each node).
probes() {
	local n c=0 k
	for n in "${LAB_NODES[@]}"; do
		k=$(lab_node_exec "$n" pgrep -u "$LAB_USER" -f "jobtop-probe-.* --job $1\$" | grep -c .)
		c=$((c + k))
	done
	echo "$c"
}
# wait_gone SECONDS PID: until the process is gone (1 after the time).
wait_gone() {
	local t0 now
	t0=$(date +%s%N)
	while kill -0 "$2" 2>/dev/null; do
		now=$(date +%s%N)
		(((now - t0) / 1000000 > $1 * 1000)) && return 1
		sleep 0.05
	done
	gone_ms=$((($(date +%s%N) - t0) / 1000000))
}
# wait_probes SECONDS JOB COUNT: until COUNT probes of JOB run.
wait_probes() {
	local t0=$SECONDS
	while (($(probes "$2") != $3)); do
		((SECONDS - t0 >= $1)) && return 1
		sleep 0.2
	done
}
# replays FILE WHAT [any]: the recording plays back, without a warning,
# with sample records of all 4 nodes (any: of any number of them).
replays() {
	local n
	if ! lab_as "$LAB_USER" "$JT" -r "$1" -b --json >"$tmp/replay" 2>"$tmp/replay.err"; then
		fail "$2: jobtop -r $1 -b failed: $(head -3 "$tmp/replay.err")"
		return 1
	fi
	n=$(python3 -c '
import json, sys
print(len({r["node"] for r in map(json.loads, open(sys.argv[1]))
           if r.get("type") == "node"}))' "$tmp/replay")
	if [ "${3:-}" != any ] && [ "$n" != 4 ]; then
		fail "$2: the recording replays records of $n nodes, not 4"
		return 1
	fi
	if [ -s "$tmp/replay.err" ]; then
		fail "$2: replaying the recording warns: $(head -3 "$tmp/replay.err")"
		return 1
	fi
}
T() { tmux -L "$SOCK" "$@"; }
screen() { T capture-pane -p -t "$1"; }
# ui_wait WINDOW SECONDS ERE: until the screen matches.
ui_wait() {
	local t0=$SECONDS
	while ((SECONDS - t0 < $2)); do
		screen "$1" | grep -Eq -- "$3" && return 0
		sleep 0.3
	done
	return 1
}
# The curses monitor as jtuser under su in tmux window W: su stays the
# session leader and does not pass the hangup on (the case of the issue).
ui_run() {
	local w=$1; shift
	if T has-session 2>/dev/null; then
		T new-window -d -n "$w" "su $LAB_USER -c 'cd /tmp && exec $JT $*'"
	else
		T new-session -d -s lab -n "$w" -x 150 -y 35 \
			"su $LAB_USER -c 'cd /tmp && exec $JT $*'"
	fi
}
ui_pid() { pgrep -u "$LAB_USER" -f "^$JT .*$1" | head -1; }

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "the healthy job did not start"
jobs_started+=("$job")

# 1. Hangup: kill the tmux window of a curses monitor that runs under su.
ui_run hup -d 0.5 -o "$out/hup.jtr" "$job"
if ! ui_wait hup 20 '4 live'; then
	screen hup
	fail "hangup: the monitor did not show 4 live nodes"
fi
pid=$(ui_pid hup.jtr)
wait_probes 10 "$job" 4 || fail "hangup: $(probes "$job") probes before the hangup, expected 4"
T kill-window -t hup
if [ -z "$pid" ]; then
	fail "hangup: no jobtop process found"
elif ! wait_gone 2 "$pid"; then
	fail "hangup: jobtop still runs 2 s after its terminal went away ($(ps -o pcpu=,stat= -p "$pid") %CPU/state)"
	kill -9 "$pid"
else
	ok "hangup: jobtop ended ${gone_ms} ms after its tmux window was killed"
fi
left=$(probes "$job")
[ "$left" = 0 ] && ok "hangup: no probe left on any node" ||
	fail "hangup: $left probes left on the nodes"
replays "$out/hup.jtr" hangup && ok "hangup: the recording plays back"

# 2. Standard output closed: | head.
for fmt in text json; do
	[ $fmt = json ] && opt=--json || opt=
	t0=$(date +%s%N)
	lab_as "$LAB_USER" timeout 20 "$JT" -b $opt -d 0.5 -o "$out/head-$fmt.jtr" "$job" \
		2>"$tmp/head.err" | head -3 >"$tmp/head.out"
	rc=${PIPESTATUS[0]}
	ms=$((($(date +%s%N) - t0) / 1000000))
	n=$(wc -l <"$tmp/head.out")
	if [ "$rc" -ne 0 ] || [ "$n" -ne 3 ] || ((ms > 8000)); then
		fail "| head -3 ($fmt): exit $rc, $n lines, ${ms} ms"
	elif [ -s "$tmp/head.err" ]; then
		fail "| head -3 ($fmt): stderr: $(head -3 "$tmp/head.err")"
	else
		ok "| head -3 ($fmt): exit 0 after ${ms} ms (SSH to 4 nodes included), nothing on stderr"
	fi
	left=$(probes "$job")
	[ "$left" = 0 ] && ok "| head -3 ($fmt): no probe left" ||
		fail "| head -3 ($fmt): $left probes left on the nodes"
	# head may have taken its lines before every node's first sample.
	replays "$out/head-$fmt.jtr" "| head ($fmt)" any && ok "| head -3 ($fmt): the recording plays back"
done

# 3. The job is cancelled while batch --json watches it.
lab_as "$LAB_USER" timeout 60 "$JT" -b --json -d 1 -o "$out/cancel.jtr" "$job" \
	>"$tmp/cancel.out" 2>"$tmp/cancel.err" &
bgpids+=($!)
bg=$!
wait_probes 20 "$job" 4 || fail "cancel: $(probes "$job") probes, expected 4"
sleep 1
scancel "$job"
t0=$SECONDS
wait "$bg"
rc=$?
secs=$((SECONDS - t0))
last=$(tail -n 1 "$tmp/cancel.out")
if [ $rc -ne 0 ]; then
	fail "cancel: jobtop exited $rc: $(head -3 "$tmp/cancel.err")"
elif ! python3 -c '
import json, sys
r = json.loads(sys.argv[1])
sys.exit(0 if r.get("type") == "job" and r.get("job") == sys.argv[2] and
         r.get("state") == "CANCELLED" and isinstance(r.get("time"), float)
         else 1)' "$last" "$job"; then
	fail "cancel: the last record is not the job's end: $last"
elif ((secs > 25)); then
	fail "cancel: jobtop ended ${secs} s after scancel"
else
	ok "cancel: exit 0 ${secs} s after scancel, last record $last"
fi
[ -s "$tmp/cancel.err" ] && fail "cancel: stderr: $(head -3 "$tmp/cancel.err")"
left=$(probes "$job")
[ "$left" = 0 ] && ok "cancel: no probe left" || fail "cancel: $left probes left"
if replays "$out/cancel.jtr" cancel; then
	# The replay prints the job's end as the live run did: a job
	# record, CANCELLED.
	grep -q '"type":"job".*"state":"CANCELLED"' "$tmp/replay" &&
		ok "cancel: the recording plays back, with the job's end" ||
		fail "cancel: the replay has no job end record: $(tail -n 2 "$tmp/replay")"
fi

# 4. Two short jobs complete: one watched by batch text mode, one by the
# curses monitor (under su in tmux); then q.
cat >"$tmp/short.sh" <<'EOF'
#!/bin/bash
#SBATCH --job-name=short
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=5
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
# The ranks end by SIGALRM after 20 s; the job completes all the same.
srun "${LAB_BIN:-/var/lib/jobtop-lab/bin}/rankload" -d "$dir" -t 20 duty 10
exit 0
EOF
j2=$(lab_submit "$LAB_USER" "$tmp/short.sh") || lab_fail "a short job did not start"
jobs_started+=("$j2")
j3=$(lab_submit "$LAB_USER" "$tmp/short.sh") || lab_fail "a short job did not start"
jobs_started+=("$j3")
lab_as "$LAB_USER" timeout 80 "$JT" -b -d 1 -o "$out/done.jtr" "$j2" \
	>"$tmp/done.out" 2>"$tmp/done.err" &
bgpids+=($!)
bg=$!
ui_run done -d 1 -o "$out/ui.jtr" "$j3"
ui_wait done 20 '4 live' || fail "curses: the monitor did not show 4 live nodes"
uipid=$(ui_pid ui.jtr)

t0=$SECONDS
wait "$bg"
rc=$?
secs=$((SECONDS - t0))
last=$(tail -n 1 "$tmp/done.out")
if [ $rc -ne 0 ]; then
	fail "completed: jobtop -b exited $rc: $(head -3 "$tmp/done.err")"
elif ! echo "$last" | grep -Eq "^[0-9:.]+ job $j2: COMPLETED\$"; then
	fail "completed: the last line is not the job's end: '$last'"
else
	ok "completed: exit 0, last line '$last' (${secs} s after the start)"
fi
[ -s "$tmp/done.err" ] && fail "completed: stderr: $(head -3 "$tmp/done.err")"
left=$(probes "$j2")
[ "$left" = 0 ] && ok "completed: no probe left" || fail "completed: $left probes left"
replays "$out/done.jtr" completed && ok "completed: the recording plays back"

if ui_wait done 40 "^jobtop job $j3 .* COMPLETED "; then
	ok "curses: the header shows COMPLETED: $(screen done | head -1)"
else
	screen done
	fail "curses: the header never showed COMPLETED"
fi
wait_probes 10 "$j3" 0 || fail "curses: $(probes "$j3") probes left after the job ended"
sleep 3
if [ -n "$uipid" ] && kill -0 "$uipid" 2>/dev/null &&
	screen done | grep -Eq "^jobtop job $j3 .* COMPLETED " &&
	screen done | grep -q '^node4 '; then
	ok "curses: 3 s later the screen still shows the job and its nodes, no probe runs"
else
	screen done
	fail "curses: the screen did not stay after the job ended"
fi
T send-keys -t done q
if [ -n "$uipid" ] && wait_gone 3 "$uipid"; then
	ok "curses: q ended it (${gone_ms} ms)"
else
	fail "curses: q did not end the monitor"
fi
replays "$out/ui.jtr" curses && ok "curses: the recording plays back"

[ $fails -eq 0 ] || lab_fail "$fails checks failed"
echo "all lifecycle checks passed"
