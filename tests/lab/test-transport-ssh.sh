#!/bin/bash
# SPDX-License-Identifier: ISC
# The `ssh` transport (the system OpenSSH client) and the ladder's step
# from libssh2 to it (issue 10), on the real lab cluster:
#  - jtrsa, whose only key is RSA 3072, watches his 4-node job with the
#    default --transport auto: libssh2's SHA-1 RSA signature is refused by
#    the nodes' OpenSSH, every node moves to ssh, the reason says RSA;
#  - jtjump, who reaches node2.. only through node1 (ProxyJump in his
#    ~/.ssh/config), watches his 4-node job with auto: node1 on libssh2,
#    the others on ssh because of the ProxyJump;
#  - jtcert, whom the nodes let in only through an OpenSSH user
#    certificate (no authorized key), watches his 4-node job with auto:
#    libssh2 cannot present certificates, every node moves to ssh and the
#    reason names the certificate;
#  - --transport ssh delivers every node of jtuser's 4-node job, each rank
#    id on the node where Slurm placed it;
#  - kill -9 of jobtop leaves no ssh client here and no probe on any node
#    after 3 s;
#  - a node whose link goes down is reported lost and comes back on ssh
#    after the link returns.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
[ "$LAB_N" -ge 4 ] || lab_skip "needs 4 nodes"
top=$(cd "$here/../.." && pwd)
for b in jobtop jobtop-probe; do
	[ -x "$top/$b" ] || lab_skip "$b is not built"
done
command -v ssh >/dev/null || lab_skip "no ssh client"
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
	[ ${#jobs_started[@]} -gt 0 ] && lab_cancel "${jobs_started[@]}"
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# The monitor runs under runuser in a background subshell: find jobtop.
jobtop_pid() {
	local ru
	ru=$(pgrep -P "$1" -x runuser | head -1)
	[ -n "$ru" ] && pgrep -P "$ru" -x jobtop | head -1
}

# check FILE WHO PLACED EXPECT: node records from the 4 nodes, each rank
# on the node Slurm placed it on, and each node's last transport record
# as EXPECT says ("node1=libssh2,*=ssh:RSA": transport, then a word its
# skipped reason must hold).
check() {
	python3 - "$@" <<'PY'
import json, sys
path, who, placed_path, expect = sys.argv[1:5]
recs = [json.loads(l) for l in open(path)]
bad = []
nodes = {}
for r in recs:
    if r["type"] == "node":
        nodes[r["node"]] = nodes.get(r["node"], 0) + 1
want = {"node1", "node2", "node3", "node4"}
if set(nodes) != want or min(nodes.values()) < 3:
    bad.append("node records per node: %s" % nodes)
placed = {}
for line in open(placed_path):
    r, pid, host = line.split()
    placed[int(r)] = (int(pid), host)
seen = {}
for r in recs:
    if r["type"] == "rank" and "rank" in r:
        seen[r["rank"]] = (r["pid"], r["node"])
for rank, (pid, host) in placed.items():
    if seen.get(rank) != (pid, host):
        bad.append("rank %d: slurm placed pid %d on %s, jobtop saw %s"
                   % (rank, pid, host, seen.get(rank)))
last = {}
for r in recs:
    if r["type"] == "transport":
        last[r["node"]] = r
rules = dict(x.split("=", 1) for x in expect.split(","))
for n in sorted(want):
    rule = rules.get(n, rules.get("*"))
    t, _, word = rule.partition(":")
    got = last.get(n)
    if got is None:
        bad.append("%s: no transport record" % n)
        continue
    if got["transport"] != t:
        bad.append("%s: transport %s, expected %s (%s)"
                   % (n, got["transport"], t, got.get("skipped", "")))
    elif word and word not in got.get("skipped", ""):
        bad.append("%s: skipped reason %r does not say %s"
                   % (n, got.get("skipped", ""), word))
for b in bad:
    print("FAIL: %s: %s" % (who, b))
if not bad:
    print("ok: %s: 4 nodes, %d ranks on their nodes, transports %s"
          % (who, len(placed), ", ".join("%s=%s" % (n, last[n]["transport"])
                                        for n in sorted(last))))
    for n in sorted(last):
        if last[n].get("skipped"):
            print("   %s: %s" % (n, last[n]["skipped"]))
sys.exit(1 if bad else 0)
PY
}

# run USER JOB NAME ARGS...: batch JSON, 3 samples at 0.5 s.
run() {
	local who=$1 job=$2 name=$3 start rc
	shift 3
	start=$(date +%s.%N)
	lab_as "$who" "$JT" --no-record -b --json -n 3 -d 0.5 "$@" "$job" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	echo "   ($name: $(awk -v a="$(date +%s.%N)" -v b="$start" \
		'BEGIN {printf "%.2f", a - b}') s for 3 samples at 0.5 s)"
	[ $rc -eq 0 ] || fail "$name: jobtop exited $rc: $(head -3 "$tmp/$name.err")"
	[ -s "$tmp/$name.err" ] && fail "$name: stderr: $(head -3 "$tmp/$name.err")"
	return 0
}

# auto_case USER NAME EXPECT: USER's healthy job watched with auto, then
# checked (check's EXPECT); the job is left running (its id in $job).
auto_case() {
	job=$(lab_submit "$1" healthy) || lab_fail "$1's job did not start"
	jobs_started+=("$job")
	lab_ranks "$job" >"$tmp/$2.placed"
	run "$1" "$job" "$2"
	check "$tmp/$2.out" "$1 auto" "$tmp/$2.placed" "$3" || fails=$((fails + 1))
}
# l2_refused USER NAME PATTERN: forced libssh2 to node2 fails, and its
# error matches PATTERN (grep).
l2_refused() {
	lab_as "$1" "$JT" --no-record -b --json -n 1 --transport libssh2 \
		-w node2 >/dev/null 2>"$tmp/$2-l2.err"
	if [ $? -ne 0 ] && grep -q "$3" "$tmp/$2-l2.err"; then
		ok "--transport libssh2 as $1: $(head -1 "$tmp/$2-l2.err")"
	else
		fail "--transport libssh2 as $1 did not refuse: $(cat "$tmp/$2-l2.err")"
	fi
}

# 1. RSA only, auto: every node ends up on ssh, and says why.
auto_case "$LAB_RSA" rsa "*=ssh:RSA"
# Forced libssh2 cannot: the refusal names the key.
l2_refused "$LAB_RSA" rsa "authentication refused.*id_rsa"
lab_cancel "$job"

# 2. ProxyJump, auto: node1 directly over libssh2, the others over ssh.
auto_case "$LAB_JUMP" jump "node1=libssh2,*=ssh:ProxyJump node1"
lab_cancel "$job"

# 2b. A certificate, auto: libssh2 cannot present it, every node on ssh.
auto_case "$LAB_CERT" cert "*=ssh:certificate"
# The certificate is the only way in: forced libssh2 (the bare key) is
# refused, and says what would work.
l2_refused "$LAB_CERT" cert \
	"authentication refused for $LAB_CERT@node2 .*certificate .*-cert.pub.*--transport ssh"
lab_cancel "$job"

# 3. --transport ssh for an ordinary user: every node, ranks placed.
job=$(lab_submit "$LAB_USER" healthy) || lab_fail "the healthy job did not start"
jobs_started+=("$job")
lab_ranks "$job" >"$tmp/user.placed"
run "$LAB_USER" "$job" forced --transport ssh
check "$tmp/forced.out" "--transport ssh" "$tmp/user.placed" "*=ssh" ||
	fails=$((fails + 1))

# 4. kill -9 of jobtop: no ssh here, no probe on any node after 3 s.
ssh_clients() { pgrep -u "$LAB_USER" -x ssh | grep -c .; }
probes_on_nodes() {
	local n c=0
	for n in "${LAB_NODES[@]}"; do
		c=$((c + $(lab_node_exec "$n" pgrep -u "$LAB_USER" -f \
			"jobtop-probe-.* --job $job\$" | grep -c .)))
	done
	echo "$c"
}
: >"$tmp/kill.out"
lab_as "$LAB_USER" "$JT" --no-record -b --json -d 0.5 --transport ssh "$job" \
	>"$tmp/kill.out" 2>&1 &
killpid=$!
bgpids+=($killpid)
for _ in $(seq 150); do
	[ "$(grep -c '"type":"node"' "$tmp/kill.out")" -ge 8 ] && break
	sleep 0.1
done
ssh_before=$(ssh_clients)
probes_before=$(probes_on_nodes)
kill -9 "$(jobtop_pid "$killpid")"
sleep 3
ssh_after=$(ssh_clients)
probes_after=$(probes_on_nodes)
if [ "$ssh_before" -ge 4 ] && [ "$probes_before" -ge 4 ] &&
    [ "$ssh_after" -eq 0 ] && [ "$probes_after" -eq 0 ]; then
	ok "kill -9 of jobtop: $ssh_before ssh and $probes_before probes before, none 3 s after"
else
	fail "kill -9 of jobtop: ssh $ssh_before -> $ssh_after, probes $probes_before -> $probes_after"
fi
wait "$killpid" 2>/dev/null

# 5. node3's link goes down, then up: lost, then back on ssh.
veth=$(lab_veth node3)
: >"$tmp/link.out"
lab_as "$LAB_USER" "$JT" --no-record -b --json -d 0.5 --transport ssh "$job" \
	>"$tmp/link.out" 2>"$tmp/link.err" &
linkpid=$!
bgpids+=($linkpid)
count_node() { grep -c "\"node\":\"$1\",\"type\":\"node\"" "$tmp/link.out"; }
for _ in $(seq 150); do [ "$(count_node node3)" -ge 3 ] && break; sleep 0.1; done
ip link set "$veth" down
sleep 8
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
if grep -q '"node":"node3","type":"state","state":"lost' "$tmp/link.out"; then
	ok "node3 reported lost: $(grep -o '"node":"node3","type":"state","state":"lost[^"]*"' "$tmp/link.out" | tail -1)"
else
	fail "node3 was never reported lost"
fi
if [ -n "$back" ]; then
	ok "node3 back on ssh $(awk -v a="$back" -v b="$up_at" 'BEGIN {printf "%.2f", a - b}') s after its link returned"
else
	fail "node3 did not come back within 40 s: $(grep '"node3","type":"state"' "$tmp/link.out" | tail -3)"
fi
if grep '"type":"transport"' "$tmp/link.out" | grep -v -q '"transport":"ssh"'; then
	fail "a node left the ssh transport: $(grep '"type":"transport"' "$tmp/link.out")"
fi

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all transport checks passed"
