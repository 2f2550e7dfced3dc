#!/bin/bash
# SPDX-License-Identifier: ISC
# test-transport-oarsh: the oarsh launcher row against the lab's real OAR
# 2.5.9, its real oarsh and OAR's sshd (port 6667) in every node.
#
# lab_oar_up runs OAR's job resource manager with CPUSET_PATH unset and
# OARSUB_FORCE_JOB_KEY=yes (oar.conf's documented mode for job keys
# without cpusets: the manager would otherwise edit the shared kernel's
# cgroups), so every job's key is installed on its nodes and oarsh reaches
# them as the job's user, as on an OAR cluster.  Checked here:
#  - `--transport oarsh JOB` (OAR_JOB_ID: oarsh asks oarstat for the job)
#    delivers both nodes of a 2-node job of jtuser, and the job's process
#    is found on the job's first node, where OAR runs the script;
#  - with OAR_JOB_KEY_FILE (oarsub -k -e KEY) both nodes deliver through
#    the job's key;
#  - jtdeny, whom every node's sshd refuses, watches his own OAR job with
#    the default `auto`: the ladder moves his nodes from SSH to oarsh, the
#    transport records say why, and both nodes deliver;
#  - --explain on that job says SSH is refused and oarsh reaches the node;
#  - another user's job is refused with one clear line;
#  - a node whose link goes down is reported lost and comes back;
#  - kill -9 of jobtop leaves no oarsh, no ssh to port 6667 and no probe
#    within 3 s.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
top=$(cd "$here/../.." && pwd)
for b in jobtop jobtop-probe; do
	[ -x "$top/$b" ] || lab_skip "$b is not built"
done
command -v oarsub >/dev/null || lab_skip "OAR is not installed (tests/install-deps.sh)"
command -v oarsh >/dev/null || lab_skip "oarsh is not installed (oar-user)"
lab_oar_up || lab_fail "OAR did not come up"
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$LAB_BIN/"
JT=$LAB_BIN/jobtop
tmp=$(mktemp -d)
chmod 755 "$tmp"
ids=()
cleanup() {
	[ ${#ids[@]} -gt 0 ] && oardel "${ids[@]}" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

oar_sub() {	# user args...: the job id
	local u=$1 home out
	shift
	home=$(getent passwd "$u" | cut -d: -f6)
	out=$(lab_as "$u" env PWD="$home" oarsub -O /dev/null -E /dev/null "$@" 2>&1) ||
		{ echo "oarsub $*: $out" >&2; return 1; }
	sed -n 's/^OAR_JOB_ID=\([0-9][0-9]*\)$/\1/p' <<<"$out"
}
wait_running() {
	local id=$1 t0=$SECONDS st
	while ((SECONDS - t0 < 30)); do
		st=$(oarstat -s -j "$id" 2>/dev/null | sed -n "s/^$id: //p")
		[ "$st" = Running ] && return 0
		sleep 0.3
	done
	echo "OAR job $id stayed '$st'" >&2
	return 1
}
leftovers() { { pgrep -x oarsh; pgrep -f '^/usr/bin/ssh -p 6667'; } | grep -c .; }

uhome=$(getent passwd "$LAB_USER" | cut -d: -f6)
key=$uhome/.jobtop-test-oarsh.key
rm -f "$key"
id=$(oar_sub "$LAB_USER" -k -e "$key" -l nodes=2 "sleep 300") && [ -n "$id" ] ||
	lab_fail "the 2-node OAR job was not submitted"
ids+=("$id")
wait_running "$id" || lab_fail "OAR job $id did not start"
before=$(leftovers)

# delivered FILE: "N NODES FIRST" = how many nodes sent >= 2 node
# records, which, and the nodes where the job's "sleep" was a rank.
delivered() {
	python3 - "$1" <<'PY'
import json, sys
nodes, ranks = {}, set()
for r in map(json.loads, open(sys.argv[1])):
    if r["type"] == "node":
        nodes[r["node"]] = nodes.get(r["node"], 0) + 1
    elif r["type"] == "rank" and r.get("rank.comm") == "sleep":
        ranks.add(r["node"])
ok = sorted(n for n, c in nodes.items() if c >= 2)
print(len(ok), ",".join(ok) or "-", ",".join(sorted(ranks)) or "-")
PY
}
jobnodes=$(oarstat -fj "$id" | sed -n 's/.*assigned_hostnames = //p' | tr '+' ' ')
first=${jobnodes%% *}
second=${jobnodes##* }

# 1. OAR_JOB_ID: the real oarsh reaches each node with the job's id.
t0=$(date +%s%N)
lab_as "$LAB_USER" timeout 60 "$JT" --no-record -b --json -n 3 -d 0.5 \
	--scheduler oar --transport oarsh "$id" >"$tmp/out" 2>"$tmp/err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
read -r n got ranks <<<"$(delivered "$tmp/out")"
tr=$(grep -c '"type":"transport","transport":"oarsh"' "$tmp/out")
if [ $rc -eq 0 ] && [ "$n" -eq 2 ] && [ "$tr" -eq 2 ] && [ "$ranks" = "$first" ]; then
	ok "OAR_JOB_ID=$id: both nodes ($got) delivered through oarsh in $ms ms (3 samples at 0.5 s), the job's sleep found on $ranks"
else
	fail "OAR_JOB_ID: exit $rc, $n nodes delivered ($got), $tr oarsh records, sleep on '$ranks' (first node $first): $(tail -3 "$tmp/err")"
fi

# 2. OAR_JOB_KEY_FILE: the job's own key.
lab_as "$LAB_USER" env OAR_JOB_KEY_FILE="$key" timeout 60 "$JT" --no-record \
	-b --json -n 3 -d 0.5 --scheduler oar --transport oarsh "$id" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
read -r n got ranks <<<"$(delivered "$tmp/out")"
if [ $rc -eq 0 ] && [ "$n" -eq 2 ] && [ "$ranks" = "$first" ]; then
	ok "OAR_JOB_KEY_FILE: both nodes ($got) delivered through the job key"
else
	fail "OAR_JOB_KEY_FILE: exit $rc, $n nodes delivered ($got), sleep on '$ranks': $(tail -3 "$tmp/err")"
fi

# 2b. Another user's job: one clear line, non-zero exit.
lab_as "$LAB_DENY" timeout 30 "$JT" --no-record -b --json -n 1 \
	--scheduler oar --transport oarsh "$id" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q "belongs to $LAB_USER" "$tmp/err" && ! grep -q '"type":"node"' "$tmp/out"; then
	ok "$LAB_DENY is refused $LAB_USER's job: $(cat "$tmp/err")"
else
	fail "another user's job: exit $rc: $(head -3 "$tmp/err")"
fi

# 2c. The second node's link goes down, then comes back.
veth=$(lab_veth "$second")
count_node() { grep -c "\"node\":\"$1\",\"type\":\"node\"" "$tmp/link.out"; }
: >"$tmp/link.out"
lab_as "$LAB_USER" "$JT" --no-record -b --json -d 0.5 --scheduler oar \
	--transport oarsh "$id" >"$tmp/link.out" 2>"$tmp/link.err" &
linkpid=$!
for _ in $(seq 100); do [ "$(count_node "$second")" -ge 3 ] && break; sleep 0.1; done
# 5 s: under the 6.5 s of silence after which the client is ended and a
# new one started (5 s + 3 intervals): the connection survives and the
# node must come back on it.  (Past that point a node may show "live"
# for a few ms before the feed's "lost": the killed client's last bytes
# arrive in the same step; see the closing note of issue 10.)
ip link set "$veth" down
sleep 5
ip link set "$veth" up
up_at=$(date +%s%N)
n_before=$(count_node "$second")
back=
for _ in $(seq 400); do
	if [ "$(count_node "$second")" -gt "$n_before" ]; then
		back=$((($(date +%s%N) - up_at) / 1000000)); break
	fi
	sleep 0.1
done
lost=$(grep -c "\"node\":\"$second\",\"type\":\"state\",\"state\":\"lost" "$tmp/link.out")
# No "live" for a moment between lost and the reconnect: a state record
# "live" followed within 0.5 s by "lost" is a false report.
flicker=$(python3 - "$tmp/link.out" "$second" <<'PY'
import json, sys
st = [r for r in map(json.loads, open(sys.argv[1]))
      if r["type"] == "state" and r.get("node") == sys.argv[2]]
print(sum(1 for a, b in zip(st, st[1:]) if a["state"] == "live" and
          b["state"].startswith("lost") and b["time"] - a["time"] < 0.5))
PY
)
if [ "$lost" -ge 1 ] && [ -n "$back" ] && [ "$flicker" -eq 0 ]; then
	ok "$second lost while its link was down, delivering again ${back} ms after it came back"
else
	fail "link down/up on $second: $lost lost records, $flicker live-then-lost, back '${back:-never}': $(grep "\"$second\",\"type\":\"state\"" "$tmp/link.out" | tail -3)"
fi

# 2d. kill -9 of jobtop while it streams: nothing left within 3 s.  First
# both nodes have their client and probe again (the link test may have
# left the second reconnecting).
for _ in $(seq 200); do
	[ "$(leftovers)" -ge $((before + 2)) ] &&
	    [ "$(pgrep -u "$LAB_USER" -f 'probe-[0-9a-f]* ' | grep -c .)" -ge 2 ] && break
	sleep 0.1
done
jp=$(pgrep -u "$LAB_USER" -x jobtop | head -1)
probes_before=$(pgrep -u "$LAB_USER" -f 'probe-[0-9a-f]* ' | grep -c .)
clients_before=$(leftovers)
kill -9 "$jp"
t0=$(date +%s%N)
gone=
for _ in $(seq 60); do
	if [ "$(leftovers)" -le "$before" ] &&
	    ! pgrep -u "$LAB_USER" -f 'probe-[0-9a-f]* ' >/dev/null; then
		gone=$((($(date +%s%N) - t0) / 1000000)); break
	fi
	sleep 0.05
done
wait "$linkpid" 2>/dev/null
if [ "$probes_before" -ge 2 ] && [ "$clients_before" -ge $((before + 2)) ] && [ -n "$gone" ] && [ "$gone" -le 3000 ]; then
	ok "kill -9 of jobtop: $clients_before clients and 2 probes before, none after $gone ms"
else
	fail "kill -9: $clients_before clients, $probes_before probes before; after 3 s: $(leftovers) clients, $(pgrep -u "$LAB_USER" -f 'probe-[0-9a-f]* ' | grep -c .) probes"
fi

# 3. jtdeny's OAR job under auto: SSH refused, the ladder takes oarsh.
did=$(oar_sub "$LAB_DENY" -l nodes=2 "sleep 300") && [ -n "$did" ] ||
	lab_fail "$LAB_DENY's OAR job was not submitted"
ids+=("$did")
wait_running "$did" || lab_fail "OAR job $did did not start"
lab_as "$LAB_DENY" timeout 90 "$JT" --no-record -b --json -n 3 -d 0.5 \
	--scheduler oar "$did" >"$tmp/out" 2>"$tmp/err"
moved=$(python3 - "$tmp/out" <<'PY'
import json, sys
last = {}
for r in map(json.loads, open(sys.argv[1])):
    if r["type"] == "transport":
        last[r["node"]] = r
good = [n for n, r in last.items() if r["transport"] == "oarsh" and
        "oarsh instead" in r.get("skipped", "") and
        "refused" in r.get("skipped", "")]
first = sorted(last)[0] if last else None
print(len(good), last[first].get("skipped", "(none)") if first else "(none)")
PY
)
read -r n got ranks <<<"$(delivered "$tmp/out")"
if [ "${moved%% *}" -eq 2 ] && [ "$n" -eq 2 ]; then
	ok "$LAB_DENY under auto: 2 nodes moved to oarsh and delivered ($got): ${moved#* }"
else
	fail "$LAB_DENY under auto: ${moved%% *} nodes on oarsh: $(grep '"type":"transport"' "$tmp/out" | tail -2) $(tail -2 "$tmp/err")"
fi

# 3b. --explain on jtdeny's OAR job: SSH refused, oarsh reaches the node.
lab_as "$LAB_DENY" timeout 120 "$JT" --explain --scheduler oar "$did" \
	>"$tmp/explain" 2>&1
rc=$?
if [ $rc -eq 0 ] &&
    grep -Eq "^transport libssh2: FAILED after [0-9]+ ms: .*(refused|denied)" "$tmp/explain" &&
    grep -Eq "^  failure class: .*; auto: moves the node to oarsh" "$tmp/explain" &&
    grep -Eq "^transport oarsh: ok: a sample from node[0-9]+" "$tmp/explain" &&
    grep -Eq "^auto: oarsh" "$tmp/explain"; then
	ok "--explain $did as $LAB_DENY: $(grep -E '^transport oarsh: ok' "$tmp/explain")"
else
	fail "--explain $did as $LAB_DENY: exit $rc: $(grep -E '^(transport|auto|  failure)' "$tmp/explain" | tr '\n' '|')"
fi

# 4. Nothing left behind.
sleep 1
after=$(leftovers)
if [ "$after" -eq 0 ]; then
	ok "no oarsh or OAR ssh left ($before before, $after after)"
else
	fail "clients left: $(pgrep -ax oarsh) $(pgrep -af '^/usr/bin/ssh -p 6667')"
fi
rm -f "$key"
[ $fails -eq 0 ] || exit 1
exit 0
