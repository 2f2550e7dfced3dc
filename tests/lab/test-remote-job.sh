#!/bin/bash
# SPDX-License-Identifier: ISC
# `jobtop JOBID` over SSH on the real lab cluster (issue: remote):
#  - as jtuser and as root, -b --json -n 5 gives node and rank records from
#    all 4 nodes, each rank on the node where Slurm placed it;
#  - jtother is refused jtuser's job with one clear line, also when it
#    names its own group as admin group in the environment; as a member of
#    the admin group named in a root-owned /etc/jobtop.conf it may watch;
#  - a node whose link goes down is reported lost within 3 samples while
#    the others keep streaming, and comes back after the link returns;
#  - kill -9 of jobtop leaves no probe on any node after 3 seconds, and
#    behind a dead link the probe's watchdog ends it;
#  - a changed host key, an unknown host key, a refused login and a dead
#    sshd each give the expected clear message.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
[ "$LAB_N" -ge 4 ] || lab_skip "needs 4 nodes"
top=$(cd "$here/../.." && pwd)
for b in jobtop jobtop-probe; do
	[ -x "$top/$b" ] || lab_skip "$b is not built"
done
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$LAB_BIN/"
JT=$LAB_BIN/jobtop
tmp=$(mktemp -d)
chmod 755 "$tmp"
jobs_started=()
bgpids=()
cleanup() {
	local p
	for p in "${bgpids[@]}"; do
		kill -9 "$(jobtop_pid "$p")" "$p" 2>/dev/null
	done
	ip link set "$(lab_veth node3)" up 2>/dev/null
	[ -n "${conf_made:-}" ] && rm -f /etc/jobtop.conf
	getent group jtadmin >/dev/null && groupdel jtadmin
	[ ${#jobs_started[@]} -gt 0 ] && lab_cancel "${jobs_started[@]}"
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "the healthy job did not start"
jobs_started+=("$job")
lab_ranks "$job" >"$tmp/placed"	# rank pid host

# check_records FILE WHO: 4 nodes with >= 5 node records, ranks placed.
check_records() {
	python3 - "$1" "$tmp/placed" "$2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
who = sys.argv[3]
placed = {}
for line in open(sys.argv[2]):
    r, pid, host = line.split()
    placed[int(r)] = (int(pid), host)
bad = []
nodes = {}
for r in recs:
    if r["type"] == "node":
        nodes[r["node"]] = nodes.get(r["node"], 0) + 1
want = {"node1", "node2", "node3", "node4"}
if set(nodes) != want or min(nodes.values()) < 5:
    bad.append("node records per node: %s" % nodes)
seen = {}
for r in recs:
    if r["type"] == "rank" and "rank" in r:
        seen[r["rank"]] = (r["pid"], r["node"])
for rank, (pid, host) in placed.items():
    if seen.get(rank) != (pid, host):
        bad.append("rank %d: slurm placed pid %d on %s, jobtop saw %s"
                   % (rank, pid, host, seen.get(rank)))
extra = set(seen) - set(placed)
if extra:
    bad.append("ranks jobtop saw that slurm did not place: %s" % extra)
for b in bad:
    print("FAIL: %s: %s" % (who, b))
if not bad:
    print("ok: %s: %d node records from 4 nodes, %d ranks on their nodes"
          % (who, sum(nodes.values()), len(placed)))
sys.exit(1 if bad else 0)
PY
}

for who in "$LAB_USER" root; do
	start=$(date +%s.%N)
	lab_as "$who" "$JT" -b --json -n 5 -d 0.5 "$job" >"$tmp/$who.out" 2>"$tmp/$who.err"
	rc=$?
	secs=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN {printf "%.2f", a - b}')
	[ $rc -eq 0 ] || fail "$who: jobtop exited $rc: $(cat "$tmp/$who.err")"
	[ -s "$tmp/$who.err" ] && fail "$who: stderr: $(cat "$tmp/$who.err")"
	check_records "$tmp/$who.out" "$who" || fails=$((fails + 1))
	echo "   ($who: 5 samples at 0.5 s took ${secs}s)"
done

# Another ordinary user: one line, non-zero, nothing on stdout.
lab_as "$LAB_OTHER" "$JT" -b --json -n 1 "$job" >"$tmp/other.out" 2>"$tmp/other.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/other.err")" -eq 1 ] &&
    grep -q "belongs to $LAB_USER" "$tmp/other.err" && [ ! -s "$tmp/other.out" ]; then
	ok "$LAB_OTHER refused: $(cat "$tmp/other.err")"
else
	fail "$LAB_OTHER on $LAB_USER's job: exit $rc, stderr: $(cat "$tmp/other.err"), stdout $(wc -l <"$tmp/other.out") lines"
fi

# The environment names no admins.
lab_as "$LAB_OTHER" env JOBTOP_ADMIN_GROUP="$LAB_OTHER" "$JT" -b --json -n 1 \
	"$job" >"$tmp/other.out" 2>"$tmp/other.err"
rc=$?
if [ $rc -ne 0 ] && grep -q "belongs to $LAB_USER" "$tmp/other.err"; then
	ok "JOBTOP_ADMIN_GROUP in the environment grants nothing"
else
	fail "environment made $LAB_OTHER an admin: exit $rc, $(cat "$tmp/other.err")"
fi

# An admin (a member of the group that root's /etc/jobtop.conf names)
# watches the job: all 4 nodes.
if [ -e /etc/jobtop.conf ]; then
	echo "   (skipping the admin-group check: /etc/jobtop.conf exists already)"
else
	conf_made=1
	groupadd -f jtadmin && usermod -aG jtadmin "$LAB_OTHER"
	printf '# lab test\nadmin-group jtadmin\n' >/etc/jobtop.conf
	chmod 644 /etc/jobtop.conf
	lab_as "$LAB_OTHER" "$JT" -b --json -n 2 -d 0.5 "$job" \
		>"$tmp/admin.out" 2>"$tmp/admin.err"
	rc=$?
	nodes=$(python3 -c 'import json,sys
print(len({r["node"] for r in map(json.loads, open(sys.argv[1])) if r["type"] == "node"}))' "$tmp/admin.out")
	if [ $rc -eq 0 ] && [ "$nodes" -eq 4 ]; then
		ok "admin $LAB_OTHER watches $LAB_USER's job on $nodes nodes"
	else
		fail "admin $LAB_OTHER: exit $rc, $nodes nodes, $(head -3 "$tmp/admin.err")"
	fi
	chmod 666 /etc/jobtop.conf
	lab_as "$LAB_OTHER" "$JT" -b --json -n 1 "$job" >/dev/null 2>"$tmp/admin.err"
	if [ $? -ne 0 ] && grep -q "belongs to" "$tmp/admin.err"; then
		ok "a jobtop.conf others may write names no admins"
	else
		fail "a world-writable jobtop.conf was honoured"
	fi
	rm -f /etc/jobtop.conf
	conf_made=
fi

# A node's link goes down mid-run, then comes back.
veth=$(lab_veth node3)
# The monitor runs under runuser in a background subshell: signal that
# jobtop itself (our own, never another session's), found down the tree.
jobtop_pid() {	# background pid -> its jobtop
	local ru
	ru=$(pgrep -P "$1" -x runuser | head -1)
	[ -n "$ru" ] && pgrep -P "$ru" -x jobtop | head -1
}
: >"$tmp/link.out"
lab_as "$LAB_USER" "$JT" -b --json -d 0.5 "$job" >"$tmp/link.out" 2>"$tmp/link.err" &
bgpids+=($!)
linkpid=$!
count_node() { grep -c "\"node\":\"$1\",\"type\":\"node\"" "$tmp/link.out"; }
for _ in $(seq 100); do [ "$(count_node node3)" -ge 3 ] && break; sleep 0.1; done
ip link set "$veth" down
down_at=$(date +%s.%N)
sleep 4
n1_down=$(count_node node1)
sleep 2
n1_later=$(count_node node1)
ip link set "$veth" up
up_at=$(date +%s.%N)
n3_before=$(count_node node3)
back=""
for _ in $(seq 400); do
	if [ "$(count_node node3)" -gt "$n3_before" ]; then back=$(date +%s.%N); break; fi
	sleep 0.1
done
kill "$(jobtop_pid "$linkpid")" 2>/dev/null
wait "$linkpid" 2>/dev/null
python3 - "$tmp/link.out" "$down_at" <<'PY' || fails=$((fails + 1))
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
down = float(sys.argv[2])
last = max(r["time"] for r in recs if r.get("node") == "node3" and r["type"] == "node" and r["time"] <= down + 0.2)
lost = [r for r in recs if r.get("node") == "node3" and r["type"] == "state" and r["state"].startswith("lost")]
if not lost:
    print("FAIL: node3 was never reported lost"); sys.exit(1)
lag = lost[0]["time"] - last
# 3 samples at 0.5 s after the last data that arrived
if lag > 1.5 + 0.3:
    print("FAIL: node3 reported lost %.2f s after its last sample (limit 3 samples = 1.5 s)" % lag); sys.exit(1)
if "lost" not in lost[0].get("flags", []):
    print("FAIL: lost state record without the lost flag"); sys.exit(1)
print("ok: node3 reported lost %.2f s after its last sample (%s)" % (lag, lost[0]["state"]))
PY
if [ $((n1_later - n1_down)) -ge 3 ]; then
	ok "node1 kept streaming while node3 was down ($((n1_later - n1_down)) samples in 2 s)"
else
	fail "node1 stalled while node3 was down ($((n1_later - n1_down)) samples in 2 s)"
fi
if [ -n "$back" ]; then
	ok "node3 back $(awk -v a="$back" -v b="$up_at" 'BEGIN {printf "%.2f", a - b}') s after its link returned"
else
	fail "node3 did not come back within 40 s of its link returning: $(grep '"node3","type":"state"' "$tmp/link.out" | tail -3)"
fi

# kill -9 of jobtop: no probe left on any node after 3 seconds.
: >"$tmp/kill.out"
lab_as "$LAB_USER" "$JT" -b --json -d 0.5 "$job" >"$tmp/kill.out" 2>&1 &
killpid=$!
bgpids+=($killpid)
for _ in $(seq 100); do
	[ "$(grep -c '"type":"node"' "$tmp/kill.out")" -ge 8 ] && break
	sleep 0.1
done
probes_running() { pgrep -u "$LAB_USER" -f "jobtop-probe-.* --job $job\$" | grep -c .; }
before=$(probes_running)
kill -9 "$(jobtop_pid "$killpid")"
sleep 3
after=$(probes_running)
if [ "$before" -ge 4 ] && [ "$after" -eq 0 ]; then
	ok "kill -9 of jobtop: $before probes running before, none 3 s after"
else
	fail "kill -9 of jobtop: $before probes before, $after left after 3 s: $(pgrep -a -u "$LAB_USER" -f "jobtop-probe-.* --job $job\$")"
fi
wait "$killpid" 2>/dev/null

# SSH refusals, as jtuser with a HOME of the test's own.
fakehome() {	# dir known_hosts-content [key]
	local d=$tmp/$1
	mkdir -p "$d/.ssh"
	cp "$(getent passwd "$LAB_USER" | cut -d: -f6)/.ssh/id_ed25519" "$d/.ssh/id_ed25519"
	printf '%s' "$2" >"$d/.ssh/known_hosts"
	chown -R "$LAB_USER" "$d"
	chmod 700 "$d/.ssh"
	echo "$d"
}
as_home() { local h=$1; shift; runuser -u "$LAB_USER" -- env -i HOME="$h" PATH=/usr/bin:/bin "$@"; }
realkh=$(getent passwd "$LAB_USER" | cut -d: -f6)/.ssh/known_hosts

# kill -9 of jobtop while node3's link is down: node3's sshd cannot see
# the connection go, so only the probe's watchdog (four keepalive
# intervals without a heartbeat on its stdin) can end that probe.  With
# ServerAliveInterval 1 in ~/.ssh/config for node3 the watchdog is 4 s.
h=$(fakehome watchdog "$(cat "$realkh")")
printf 'Host node3\n\tServerAliveInterval 1\n' >"$h/.ssh/config"
chown "$LAB_USER" "$h/.ssh/config"
: >"$tmp/wd.out"
runuser -u "$LAB_USER" -- env -i HOME="$h" PATH=/usr/bin:/bin \
    SLURM_CONF="$SLURM_CONF" "$JT" --no-record -b --json -d 0.5 "$job" \
    >"$tmp/wd.out" 2>&1 &
wdpid=$!
bgpids+=($wdpid)
for _ in $(seq 100); do
	[ "$(grep -c '"node":"node3","type":"node"' "$tmp/wd.out")" -ge 2 ] && break
	sleep 0.1
done
n3probes() { lab_node_exec node3 pgrep -a -u "$LAB_USER" -f "jobtop-probe-.* --job $job\$"; }
wdarg=$(n3probes | grep -c -- '--watchdog 4 ')
ip link set "$veth" down
kill -9 "$(pgrep -P "$wdpid" -x jobtop)"
sleep 1.5
during=$(n3probes | grep -c .)
for _ in $(seq 80); do
	[ "$(n3probes | grep -c .)" -eq 0 ] && break
	sleep 0.1
done
after=$(n3probes | grep -c .)
ip link set "$veth" up
wait "$wdpid" 2>/dev/null
if [ "$wdarg" -eq 1 ] && [ "$during" -eq 1 ] && [ "$after" -eq 0 ]; then
	ok "kill -9 of jobtop behind node3's dead link: its probe (--watchdog 4) still ran 1.5 s later, gone within 9.5 s"
else
	fail "watchdog: probe with --watchdog 4: $wdarg, running 1.5 s after the kill: $during, 9.5 s after: $after ($(n3probes))"
fi
expect_one() {	# what pattern cmd...
	local what=$1 pat=$2; shift 2
	"$@" >"$tmp/x.out" 2>"$tmp/x.err"
	local rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$pat" "$tmp/x.err" && [ "$(wc -l <"$tmp/x.err")" -eq 1 ]; then
		ok "$what: $(cat "$tmp/x.err")"
	else
		fail "$what: exit $rc, stderr: $(cat "$tmp/x.err")"
	fi
}
# A changed key: node2's entry replaced by another key.
other=$(mktemp -u "$tmp/k.XXXX")
ssh-keygen -q -t ed25519 -N '' -f "$other"
h=$(fakehome changed "$(grep -v '^node2[ ,]' "$realkh")
node2 $(cut -d' ' -f1,2 "$other.pub")
")
expect_one "changed host key" "node2.*host key.*changed" as_home "$h" "$JT" -b -n 1 -w node2
h=$(fakehome unknown "")
expect_one "unknown host key" "node2.*unknown" as_home "$h" "$JT" -b -n 1 -w node2
as_home "$h" "$JT" -b --json -n 1 --accept-new -w node2 >"$tmp/acc.out" 2>"$tmp/acc.err"
if [ $? -eq 0 ] && grep -q '"type":"node"' "$tmp/acc.out" && grep -q . "$h/.ssh/known_hosts"; then
	ok "--accept-new: node2 accepted and its key recorded"
else
	fail "--accept-new: $(cat "$tmp/acc.err")"
fi
h=$(fakehome badkey "$(cat "$realkh")")
ssh-keygen -q -t ed25519 -N '' -f "$h/.ssh/id_ed25519" <<<y >/dev/null 2>&1
chown -R "$LAB_USER" "$h"
expect_one "refused login" "node2.*\(auth\|denied\|refused\)" as_home "$h" "$JT" -b -n 1 -w node2
# A dead sshd on node4: killed inside the node, restarted after.
lab_sshd_stop node4 || fail "could not stop node4's sshd"
sleep 0.3
expect_one "dead sshd" "node4.*Connection refused" lab_as "$LAB_USER" "$JT" -b -n 1 -w node4
lab_node_exec node4 /usr/sbin/sshd -f "$LAB_DIR/nodes/node4/sshd_config" -E "$LAB_LOG/sshd.node4.log" ||
	fail "could not restart node4's sshd"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all remote checks passed"
