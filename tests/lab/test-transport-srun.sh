#!/bin/bash
# SPDX-License-Identifier: ISC
# The srun transport on the lab's real Slurm (issue 10, item 3):
#  - on nodes that never saw jobtop, --explain on one node pushes the
#    probe through sbcast without ENOENT on the others; a copy another
#    user planted in its place is refused with the reason;
#  - `--transport srun` delivers every node of a 4-node job, each rank on
#    the node where Slurm placed it, with one srun on the login node and
#    no SSH at all; its time to every node's first sample is compared
#    with `srun --overlap true` on the same nodes;
#  - jtdeny, whom every node's sshd refuses, watches his own job with
#    the default `auto`: the ladder moves his nodes to srun and says why;
#  - jtother, an admin for jobtop (/etc/jobtop.conf) but not for Slurm,
#    is refused jtuser's job by Slurm itself, and that message is shown;
#  - a job step (JOB.0) and a heterogeneous job (-N1 : -N2) work;
#  - a node without sshd moves to srun under auto, the others stay;
#  - kill -9 of jobtop leaves no srun, no step and no probe after 3 s;
#  - a node whose link goes down is reported lost and comes back, a node
#    whose probe is killed gets a new one in its own srun;
#  - a backtrace ('b' in the screen) runs through a second srun step.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
[ "$LAB_N" -ge 4 ] || lab_skip "needs 4 nodes"
top=$(cd "$here/../.." && pwd)
for b in jobtop jobtop-probe; do
	[ -x "$top/$b" ] || lab_skip "$b is not built"
done
command -v srun >/dev/null || lab_skip "srun is not installed"
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$LAB_BIN/"
JT=$LAB_BIN/jobtop
lab_wait_idle 60 || lab_fail "not all of $LAB_N nodes idle: $(sinfo -h -N -o '%N:%t' | tr '\n' ' ')"
tmp=$(mktemp -d)
chmod 755 "$tmp"
jobs_started=()
bgpids=()
conf_made=
cleanup() {
	local p
	for p in "${bgpids[@]}"; do
		kill -9 "$(jobtop_pid "$p")" "$p" 2>/dev/null
	done
	ip link set "$(lab_veth node3)" up 2>/dev/null
	lab_as "$LAB_USER" tmux -L "jtsrun-$$" kill-server 2>/dev/null
	[ -n "$conf_made" ] && rm -f /etc/jobtop.conf
	getent group jtadmin >/dev/null && [ -n "$conf_made" ] && groupdel jtadmin
	[ ${#jobs_started[@]} -gt 0 ] && lab_cancel "${jobs_started[@]}"
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# The monitor runs under runuser in a background subshell.
jobtop_pid() {
	local ru
	ru=$(pgrep -P "$1" -x runuser | head -1)
	[ -n "$ru" ] && pgrep -P "$ru" -x jobtop | head -1
}
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN {printf "%.2f", a - b}'; }
# Our sruns, steps and probes (the job's own srun is not ours).
our_sruns() { pgrep -u "$1" -f -- "--job-name=jobtop" | grep -c .; }
our_steps() { squeue -h -s -j "$1" -o %j 2>/dev/null | grep -c '^jobtop$'; }
our_probes() { pgrep -f "probe-[0-9a-f]* --armour" | grep -c .; }
nodes_in() {	# file -> "node1 node2 ..." that sent node records
	python3 -c 'import json,sys
print(" ".join(sorted({r["node"] for r in map(json.loads, open(sys.argv[1])) if r["type"] == "node"})))' "$1"
}

# check_ranks FILE PLACED WHO: 4 nodes with >= N node records, every rank
# on the node where Slurm placed it.
check_ranks() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
placed = {}
for line in open(sys.argv[2]):
    r, pid, host = line.split()
    placed[int(r)] = (int(pid), host)
bad = []
nodes = {}
for r in recs:
    if r["type"] == "node":
        nodes[r["node"]] = nodes.get(r["node"], 0) + 1
if set(nodes) != {"node1", "node2", "node3", "node4"} or min(nodes.values()) < 3:
    bad.append("node records per node: %s" % nodes)
seen = {}
for r in recs:
    if r["type"] == "rank" and "rank" in r:
        seen[r["rank"]] = (r["pid"], r["node"])
for rank, (pid, host) in placed.items():
    if seen.get(rank) != (pid, host):
        bad.append("rank %d: slurm placed pid %d on %s, jobtop saw %s"
                   % (rank, pid, host, seen.get(rank)))
for b in bad:
    print("FAIL: %s: %s" % (sys.argv[3], b))
if not bad:
    print("ok: %s: %d node records from 4 nodes, %d ranks on their nodes"
          % (sys.argv[3], sum(nodes.values()), len(placed)))
sys.exit(1 if bad else 0)
PY
}

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "the healthy job did not start"
jobs_started+=("$job")
lab_ranks "$job" >"$tmp/placed"

# 0. Nodes that never saw jobtop (no /tmp/jobtop-* at all): --explain on
# node2 alone runs srun there, which pushes the probe with sbcast to every
# node of the job.  The copy must land on the nodes where no task made
# /tmp/jobtop-UID (sbcast said ENOENT there), ready for a later run.
wipe_nodes() {
	local nd
	for nd in node1 node2 node3 node4; do
		lab_node_exec "$nd" sh -c 'rm -rf /tmp/jobtop-*'
	done
}
wipe_nodes
uid=$(id -u "$LAB_USER")
lab_as "$LAB_USER" "$JT" --explain=node2 "$job" >"$tmp/explain.out" 2>&1
rc=$?
staged=""
for nd in node1 node3 node4; do
	lab_node_exec "$nd" sh -c "[ -f /tmp/jobtop-$uid-probe-*.new ] &&
		[ ! -e /tmp/jobtop-$uid ]" && staged+=" $nd"
done
if [ $rc -eq 0 ] && grep -q "^transport srun: ok: a sample from node2" "$tmp/explain.out" &&
    ! grep -q "No such file" "$tmp/explain.out" && [ "$staged" = " node1 node3 node4" ]; then
	ok "fresh nodes: --explain=node2 through srun, no ENOENT, the probe staged on$staged"
else
	fail "fresh nodes: explain exit $rc, staged on '$staged': $(grep -E "srun|sbcast|No such" "$tmp/explain.out" | head -5)"
fi
# 0b. Another user planted a file where sbcast puts jtuser's copy on
# node3 (/tmp is everyone's): sbcast cannot write it, the task refuses it
# and says why; the other nodes stream.
stage=$(lab_node_exec node1 sh -c "ls /tmp/jobtop-$uid-probe-*.new" 2>/dev/null | head -1)
wipe_nodes
if [ -n "$stage" ]; then
	lab_node_exec node3 runuser -u "$LAB_OTHER" -- sh -c "umask 022; echo 'echo planted' >'$stage'"
	lab_as "$LAB_USER" timeout 8 "$JT" -b --json -d 0.5 --transport srun "$job" \
		>"$tmp/plant.out" 2>"$tmp/plant.err"
	lab_node_exec node3 rm -f "$stage"
	if [ "$(nodes_in "$tmp/plant.out")" = "node1 node2 node4" ] &&
	    grep -q "\"node\":\"node3\",\"type\":\"state\",\"state\":\"lost: $stage is not the user's own file" "$tmp/plant.out"; then
		ok "a copy planted by $LAB_OTHER on node3 is refused with the reason; node1, node2, node4 stream"
	else
		fail "planted copy: nodes '$(nodes_in "$tmp/plant.out")': $(grep '"node3","type":"state"' "$tmp/plant.out" | tail -2)"
	fi
else
	fail "no staged copy on node1 to learn the probe's name from"
fi
wipe_nodes

# 1. --transport srun: every node, ranks in place.  Twice: the first run
# pushes the probe (sbcast) where a node lacks it, the second finds it.
for run in cold warm; do
	t0=$(now)
	mkdir -p "$tmp/state-$run" && chown "$LAB_USER" "$tmp/state-$run"
	lab_as "$LAB_USER" env XDG_STATE_HOME="$tmp/state-$run" "$JT" -b --json \
		-n 4 -d 0.5 --transport srun -v "$job" >"$tmp/$run.out" 2>"$tmp/$run.err"
	rc=$?
	secs=$(since "$t0")
	[ $rc -eq 0 ] || fail "$run: jobtop exited $rc: $(tail -3 "$tmp/$run.err")"
	check_ranks "$tmp/$run.out" "$tmp/placed" "srun ($run cache)" ||
		fails=$((fails + 1))
	echo "   ($run: 4 samples at 0.5 s in ${secs}s)"
done
if grep -q "sbcast " "$tmp/state-warm/jobtop/jobtop.log"; then
	fail "the warm run pushed the probe again: $(grep "sbcast " "$tmp/state-warm/jobtop/jobtop.log" | head -2)"
else
	ok "the warm run found the probe cached on every node (no sbcast)"
fi

# Time to every node's first sample, against srun --overlap true.
ttfs() {	# file t0 -> seconds until 4 nodes have a node record
	local f=$1 t0=$2
	for _ in $(seq 600); do
		[ "$(grep -o '"node":"node[0-9]*","type":"node"' "$f" | sort -u | wc -l)" -ge 4 ] &&
			{ since "$t0"; return 0; }
		sleep 0.01
	done
	echo "never"
}
best_true=99
for _ in 1 2 3; do
	t0=$(now)
	lab_as "$LAB_USER" srun --overlap --jobid="$job" -N4 --ntasks-per-node=1 true
	t=$(since "$t0")
	best_true=$(awk -v a="$t" -v b="$best_true" 'BEGIN {print (a < b) ? a : b}')
done
best_ttfs=99
for _ in 1 2 3; do
	: >"$tmp/t.out"
	t0=$(now)
	lab_as "$LAB_USER" "$JT" -b --json -n 2 -d 1 --transport srun "$job" \
		>"$tmp/t.out" 2>/dev/null &
	p=$!
	t=$(ttfs "$tmp/t.out" "$t0")
	wait "$p"
	[ "$t" = never ] && { fail "time to first sample: not every node within 6 s"; break; }
	best_ttfs=$(awk -v a="$t" -v b="$best_ttfs" 'BEGIN {print (a < b) ? a : b}')
done
echo "   (4 nodes: every node's first sample after ${best_ttfs}s; srun --overlap true: ${best_true}s; best of 3 each)"
if awk -v a="$best_ttfs" -v b="$best_true" 'BEGIN {exit !(a < b + 1.0)}'; then
	ok "first samples of 4 nodes in ${best_ttfs}s, under srun --overlap true (${best_true}s) plus one interval"
else
	fail "first samples took ${best_ttfs}s, srun --overlap true ${best_true}s"
fi

# 2. A job step: the probe gets --step, srun still targets the job.
lab_as "$LAB_USER" "$JT" -b --json -n 3 -d 0.5 --transport srun "$job.0" \
	>"$tmp/step.out" 2>"$tmp/step.err"
rc=$?
steps=$(python3 -c 'import json,sys
print(" ".join(sorted({r.get("rank.step", "?") for r in map(json.loads, open(sys.argv[1])) if r["type"] == "rank"})))' "$tmp/step.out")
if [ $rc -eq 0 ] && [ "$steps" = 0 ] && [ "$(nodes_in "$tmp/step.out")" = "node1 node2 node3 node4" ]; then
	ok "$job.0 through srun: 4 nodes, ranks of step 0 only"
else
	fail "$job.0: exit $rc, rank steps '$steps', nodes '$(nodes_in "$tmp/step.out")': $(tail -2 "$tmp/step.err")"
fi

# 3. A node's link goes down, then comes back.
veth=$(lab_veth node3)
count_node() { grep -c "\"node\":\"$1\",\"type\":\"node\"" "$tmp/link.out"; }
: >"$tmp/link.out"
lab_as "$LAB_USER" "$JT" -b --json -d 0.5 --transport srun "$job" \
	>"$tmp/link.out" 2>"$tmp/link.err" &
linkpid=$!
bgpids+=($linkpid)
for _ in $(seq 100); do [ "$(count_node node3)" -ge 3 ] && break; sleep 0.1; done
ip link set "$veth" down
sleep 4
n1_down=$(count_node node1)
sleep 2
n1_later=$(count_node node1)
ip link set "$veth" up
up_at=$(now)
n3_before=$(count_node node3)
back=
for _ in $(seq 400); do
	if [ "$(count_node node3)" -gt "$n3_before" ]; then back=$(since "$up_at"); break; fi
	sleep 0.1
done
kill "$(jobtop_pid "$linkpid")" 2>/dev/null
wait "$linkpid" 2>/dev/null
if grep -q '"node":"node3","type":"state","state":"lost' "$tmp/link.out"; then
	ok "node3 reported lost while its link was down"
else
	fail "node3 was never reported lost: $(grep '"node3","type":"state"' "$tmp/link.out" | tail -3)"
fi
if [ $((n1_later - n1_down)) -ge 3 ]; then
	ok "node1 kept streaming while node3 was down ($((n1_later - n1_down)) samples in 2 s)"
else
	fail "node1 stalled while node3 was down ($((n1_later - n1_down)) samples in 2 s)"
fi
if [ -n "$back" ]; then
	ok "node3 back ${back}s after its link returned"
else
	fail "node3 did not come back within 40 s: $(grep '"node3","type":"state"' "$tmp/link.out" | tail -3)"
fi

# 4. kill -9 of jobtop: no srun, step or probe 3 s later.  First, what
# section 3 left: the probe of node3's first step, whose srun could not
# reach node3 while its link was down (and was killed), ends by its own
# watchdog once it hears nothing: wait for it (bounded), so the count
# below is this run's.
t_left=$(now)
for _ in $(seq 150); do [ "$(our_probes)" -eq 0 ] && break; sleep 0.1; done
if [ "$(our_probes)" -ne 0 ]; then
	fail "probes of section 3's run still alive 15 s after it ended: $(pgrep -af 'probe-[0-9a-f]* --armour' | head -3)"
else
	echo "   (probes of section 3's run all gone $(since "$t_left")s after it ended)"
fi
: >"$tmp/kill.out"
lab_as "$LAB_USER" "$JT" -b --json -d 0.5 --transport srun "$job" >"$tmp/kill.out" 2>&1 &
killpid=$!
bgpids+=($killpid)
for _ in $(seq 100); do
	[ "$(grep -c '"type":"node"' "$tmp/kill.out")" -ge 8 ] && break
	sleep 0.1
done
b_srun=$(our_sruns "$LAB_USER") b_step=$(our_steps "$job") b_probe=$(our_probes)
kill -9 "$(jobtop_pid "$killpid")"
t0=$(now)
gone=
for _ in $(seq 60); do
	if [ "$(our_sruns "$LAB_USER")" -eq 0 ] && [ "$(our_steps "$job")" -eq 0 ] &&
	    [ "$(our_probes)" -eq 0 ]; then
		gone=$(since "$t0"); break
	fi
	sleep 0.05
done
if [ "$b_srun" -ge 1 ] && [ "$b_step" -eq 1 ] && [ "$b_probe" -eq 4 ] &&
    [ -n "$gone" ] && awk -v a="$gone" 'BEGIN {exit !(a <= 3)}'; then
	ok "kill -9 of jobtop: $b_srun srun process(es), 1 step, 4 probes before; none after ${gone}s"
else
	fail "kill -9: before srun $b_srun step $b_step probes $b_probe; after 3 s: srun $(our_sruns "$LAB_USER") step $(our_steps "$job") probes $(our_probes)"
fi
wait "$killpid" 2>/dev/null

# 4b. A node whose probe is killed: lost, then a probe of its own again
# (a second srun for that node alone) while the others go on.
: >"$tmp/pk.out"
lab_as "$LAB_USER" "$JT" -b --json -d 0.5 --transport srun "$job" \
	>"$tmp/pk.out" 2>"$tmp/pk.err" &
pkpid=$!
bgpids+=($pkpid)
pk_count() { grep -c "\"node\":\"$1\",\"type\":\"node\"" "$tmp/pk.out"; }
for _ in $(seq 100); do [ "$(pk_count node3)" -ge 3 ] && break; sleep 0.1; done
lab_node_exec node3 pkill -9 -f "probe-[0-9a-f]* --armour"
killed_at=$(now)
back=
for _ in $(seq 150); do
	if grep -q '"node":"node3","type":"state","state":"lost' "$tmp/pk.out" &&
	    [ "$(grep -c '"node":"node3","type":"state","state":"live' "$tmp/pk.out")" -ge 2 ]; then
		back=$(since "$killed_at"); break
	fi
	sleep 0.1
done
sleep 1.5
n3=$(pk_count node3)
sleep 1
n3_later=$(pk_count node3)
sruns=$(our_sruns "$LAB_USER")
kill "$(jobtop_pid "$pkpid")" 2>/dev/null
wait "$pkpid" 2>/dev/null
if [ -n "$back" ] && [ "$n3_later" -gt "$n3" ]; then
	ok "node3's probe killed: lost, live again ${back}s later in its own srun ($sruns srun processes then), streaming"
else
	fail "node3's probe killed: back '$back', samples $n3 -> $n3_later: $(grep '"node3","type":"state"' "$tmp/pk.out" | tail -3)"
fi

# What the login node pays at 1 Hz on 4 nodes: jobtop and its srun
# against jobtop over libssh2, both measured over the same 10 s after a
# 4 s start.  A figure, not a check: it costs 28 s, so it is taken only
# where asked for (TRANSPORT_COST=1 flock /tmp/jobtop-lab.lock
# tests/run.sh lab/test-transport-srun).
cost() {	# transport -> "cpu_ms rss_kb"
	local p jp pids cpu0 cpu1
	lab_as "$LAB_USER" "$JT" -b --json -d 1 --transport "$1" "$job" \
		>/dev/null 2>&1 &
	p=$!
	sleep 4
	jp=$(jobtop_pid "$p")
	pids="$jp $(pgrep -u "$LAB_USER" -f -- '--job-name=jobtop' | xargs)"
	cpu0=$(for q in $pids; do awk '{print $14 + $15}' "/proc/$q/stat"; done | awk '{s += $1} END {print s}')
	sleep 10
	cpu1=$(for q in $pids; do awk '{print $14 + $15}' "/proc/$q/stat"; done | awk '{s += $1} END {print s}')
	rss=$(for q in $pids; do awk '/^VmRSS/ {print $2}' "/proc/$q/status"; done | awk '{s += $1} END {print s}')
	kill "$jp" 2>/dev/null
	wait "$p" 2>/dev/null
	echo "$(( (cpu1 - cpu0) * 1000 / $(getconf CLK_TCK) )) $rss $(echo "$pids" | wc -w)"
}
if [ "${TRANSPORT_COST:-0}" = 1 ]; then
	read -r s_cpu s_rss s_n < <(cost srun)
	read -r l_cpu l_rss l_n < <(cost libssh2)
	echo "   (1 Hz, 4 nodes, 10 s: srun: $s_n processes, ${s_cpu} ms CPU, ${s_rss} KiB RSS; libssh2: ${l_cpu} ms CPU, ${l_rss} KiB RSS)"
fi

# 5. jtother may watch for jobtop (admin group) but Slurm refuses him a
# step in jtuser's job: Slurm's own words reach the node's state.
if [ -e /etc/jobtop.conf ]; then
	echo "   (skipping the Slurm refusal: /etc/jobtop.conf exists already)"
else
	conf_made=1
	groupadd -f jtadmin && usermod -aG jtadmin "$LAB_OTHER"
	printf '# lab test\nadmin-group jtadmin\n' >/etc/jobtop.conf
	chmod 644 /etc/jobtop.conf
	lab_as "$LAB_OTHER" "$JT" -b --json -n 1 -d 0.5 --transport srun "$job" \
		>"$tmp/other.out" 2>"$tmp/other.err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q '"state":"failed: refused: srun: .*Access/permission denied' "$tmp/other.out" &&
	    [ -z "$(nodes_in "$tmp/other.out")" ]; then
		ok "$LAB_OTHER refused by Slurm: $(grep -o '"state":"failed: refused[^"]*"' "$tmp/other.out" | head -1)"
	else
		fail "$LAB_OTHER on $LAB_USER's job: exit $rc, $(head -c 400 "$tmp/other.out") $(head -3 "$tmp/other.err")"
	fi
	rm -f /etc/jobtop.conf
	groupdel jtadmin
	conf_made=
fi
lab_cancel "$job"

# 6. jtdeny: every node's sshd refuses him; auto moves his nodes to srun.
djob=$(lab_submit "$LAB_DENY" healthy) || lab_fail "$LAB_DENY's job did not start"
jobs_started+=("$djob")
lab_ranks "$djob" >"$tmp/dplaced"
# -v: the debug log, where the ladder says what it did, in a state
# directory of the test's own.
mkdir -p "$tmp/state" && chown "$LAB_DENY" "$tmp/state"
lab_as "$LAB_DENY" env XDG_STATE_HOME="$tmp/state" "$JT" -b --json -n 4 -d 0.5 -v \
	"$djob" >"$tmp/deny.out" 2>"$tmp/deny.err"
rc=$?
[ $rc -eq 0 ] || fail "$LAB_DENY: jobtop exited $rc: $(tail -3 "$tmp/deny.err")"
check_ranks "$tmp/deny.out" "$tmp/dplaced" "$LAB_DENY with auto" || fails=$((fails + 1))
# Each node's last transport record says srun, and why SSH was skipped.
moved=$(python3 - "$tmp/deny.out" <<'PY'
import json, sys
last = {}
for r in map(json.loads, open(sys.argv[1])):
    if r["type"] == "transport":
        last[r["node"]] = r
good = [n for n, r in last.items() if r["transport"] == "srun" and
        "srun" in r.get("skipped", "") and "refused" in r.get("skipped", "")]
print(len(good), last.get("node1", {}).get("skipped", "(none)"))
PY
)
dlog=$tmp/state/jobtop/jobtop.log
if [ "${moved%% *}" -eq 4 ] && grep -q "moves from .* to srun" "$dlog"; then
	ok "$LAB_DENY: 4 nodes on srun; node1 skipped: ${moved#* }"
else
	fail "$LAB_DENY: ${moved:-0} nodes' transport records say srun: $(grep '"type":"transport"' "$tmp/deny.out" | head -3) $(grep -i "srun\|refused\|denied" "$dlog" | head -3)"
fi
lab_cancel "$djob"

# 7. A heterogeneous job: one srun, one part per component.
het=$(printf '#!/bin/sh\n#SBATCH -N1\n#SBATCH hetjob\n#SBATCH -N2\nsleep 120\n' |
	lab_as "$LAB_USER" sbatch --parsable --chdir=/tmp --output=/dev/null) ||
	lab_fail "sbatch of a heterogeneous job failed"
jobs_started+=("$het")
for _ in $(seq 100); do
	[ "$(squeue -h -j "$het" -o %T | sort -u)" = RUNNING ] && break
	sleep 0.2
done
want=$(squeue -h -j "$het" -o %N | xargs -n1 | while read -r e; do
	scontrol show hostnames "$e"; done | sort -u | xargs)
lab_as "$LAB_USER" "$JT" -b --json -n 3 -d 0.5 --transport srun "$het" \
	>"$tmp/het.out" 2>"$tmp/het.err"
rc=$?
got=$(nodes_in "$tmp/het.out")
if [ $rc -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "het job $het (-N1 : -N2): every node ($got)"
else
	fail "het job $het: exit $rc, nodes '$got', wanted '$want': $(tail -3 "$tmp/het.err")"
fi
# One component: srun --het-group=1 of the job.
want1=$(scontrol show hostnames "$(squeue -h -j "$het" -o '%i %N' |
	awk -v c="$het+1" '$1 == c {print $2}')" | sort -u | xargs)
lab_as "$LAB_USER" "$JT" -b --json -n 2 -d 0.5 --transport srun "$het+1" \
	>"$tmp/het1.out" 2>"$tmp/het1.err"
rc=$?
got=$(nodes_in "$tmp/het1.out")
if [ $rc -eq 0 ] && [ -n "$want1" ] && [ "$got" = "$want1" ]; then
	ok "het component $het+1: its nodes ($got)"
else
	fail "het component $het+1: exit $rc, nodes '$got', wanted '$want1': $(tail -3 "$tmp/het1.err")"
fi
lab_cancel "$het"

# 7b. No sshd on node4 (Connection refused): under auto that node moves
# to srun, the others stay on libssh2.  sshd is started again after.
job2=$(lab_submit "$LAB_USER" healthy) || lab_fail "the second healthy job did not start"
jobs_started+=("$job2")
lab_sshd_stop node4 || fail "could not stop node4's sshd"
lab_as "$LAB_USER" "$JT" -b --json -n 3 -d 0.5 "$job2" >"$tmp/nossh.out" 2>"$tmp/nossh.err"
rc=$?
lab_node_exec node4 /usr/sbin/sshd -f "$LAB_DIR/nodes/node4/sshd_config" \
	-E "$LAB_LOG/sshd.node4.log" || fail "could not restart node4's sshd"
tr=$(python3 - "$tmp/nossh.out" <<'PY'
import json, sys
last = {}
for r in map(json.loads, open(sys.argv[1])):
    if r["type"] == "transport":
        last[r["node"]] = r["transport"]
print(" ".join("%s=%s" % kv for kv in sorted(last.items())))
PY
)
if [ $rc -eq 0 ] && [ "$tr" = "node1=libssh2 node2=libssh2 node3=libssh2 node4=srun" ] &&
    [ "$(nodes_in "$tmp/nossh.out")" = "node1 node2 node3 node4" ]; then
	ok "no sshd on node4: $tr, every node delivered ($(grep -o '"node":"node4","type":"transport"[^}]*' "$tmp/nossh.out" | tail -1 | cut -c1-200))"
else
	fail "no sshd on node4: exit $rc, transports '$tr', nodes '$(nodes_in "$tmp/nossh.out")': $(tail -3 "$tmp/nossh.err")"
fi
lab_cancel "$job2"

# 8. A backtrace through srun: the curses monitor on the blocked job,
# 'b' on its stalled rank runs gdb on the rank's node in a second, short
# srun step (feed_exec), not over SSH.
if command -v tmux >/dev/null && command -v gdb >/dev/null; then
	ui=$tmp/ui
	mkdir -p "$ui" && install -m 755 "$top/jobtop" "$top/jobtop-probe" "$ui/"
	cp -r "$top/themes" "$ui/" && chmod -R a+rX "$ui"
	sock=jtsrun-$$
	ui_tmux() { lab_as "$LAB_USER" tmux -L "$sock" "$@"; }
	ui_wait() {	# seconds ERE
		local t0=$SECONDS
		while ((SECONDS - t0 < $1)); do
			ui_tmux capture-pane -p -t ui | grep -Eq -- "$2" && return 0
			sleep 0.3
		done
		return 1
	}
	bjob=$(lab_submit "$LAB_USER" blocked) || lab_fail "the blocked job did not start"
	jobs_started+=("$bjob")
	host=$(lab_ranks "$bjob" | awk '$1 == 2 { print $3 }')
	ui_tmux new-session -d -s ui -x 160 -y 45 \
		"$ui/jobtop --no-record -d 1 --transport srun $bjob; echo jobtop-exit=\$?; sleep 600"
	if ui_wait 20 "^$host .*1 stalled rank"; then
		ui_tmux send-keys -t ui r
		ui_wait 5 'Ranks of the job'
		ui_tmux send-keys -t ui F
		ui_wait 5 'ranks sorted by FLAGS'
		ui_tmux send-keys -t ui Home Enter
		ui_wait 5 "Rank 2 \(pid [0-9]+\) on $host"
		ui_tmux send-keys -t ui b
		if ui_wait 30 "(gdb|eu-stack) on $host exited with status 0" &&
		    ui_wait 2 '#[0-9]+ .* (in )?main( |$)'; then
			ok "backtrace through srun on $host: $(ui_tmux capture-pane -p -t ui | grep -E '^ +#[0-9]' | head -1 | tr -s ' ')"
		else
			fail "no backtrace through srun: $(ui_tmux capture-pane -p -t ui | grep -i 'gdb\|eu-stack\|backtrace' | head -3)"
		fi
	else
		fail "the blocked job's stalled rank is not shown through srun: $(ui_tmux capture-pane -p -t ui | head -12)"
	fi
	ui_tmux send-keys -t ui q
	ui_wait 10 'jobtop-exit=0' || fail "q does not end jobtop with status 0"
	ui_tmux kill-server 2>/dev/null
	lab_cancel "$bjob"
else
	echo "   (no tmux or gdb: the backtrace through srun is not checked)"
fi

[ $fails -eq 0 ] || exit 1
echo "PASS"
