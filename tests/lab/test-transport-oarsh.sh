#!/bin/bash
# test-transport-oarsh: the oarsh launcher row against the lab's real OAR
# 2.5.9 and its real oarsh (OAR's sshd on port 6667 in every node).
#
# What the lab cannot do: deliver a node through oarsh.  oarsh reaches a
# node as user oar with either the job's key (OAR_JOB_KEY_FILE), which
# OAR's job resource manager installs in ~oar/.ssh/authorized_keys on each
# node when the job starts, or the job's cpuset name (OAR_JOB_ID, through
# oarstat), which that manager creates.  lab_oar_up turns the manager off
# (it would edit the shared kernel's cgroups), so the key is never
# installed and the job has no cpuset.  The rows' machinery is tested
# through stand-in clients in tests/regress/remote-launchers.sh; here the
# integration with the real client and the real scheduler is:
#  - `--transport oarsh JOB` runs the real oarsh with OAR_JOB_ID=JOB for
#    both nodes of a 2-node job of jtuser, and shows oarsh's own reason
#    ("Cannot retrieve the job cpuset name for job id: JOB") per node;
#  - with OAR_JOB_KEY_FILE (oarsub -k -e) the job key is offered and OAR's
#    sshd refuses it: each node is refused for good with oarsh's words;
#  - jtdeny, whom every node's sshd refuses, watches his own OAR job with
#    the default `auto`: the ladder moves his nodes from SSH to oarsh and
#    the transport records say why;
#  - nothing (no oarsh, no ssh to port 6667) is left afterwards.
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

# 1. OAR_JOB_ID: the real oarsh runs for each node with the job's id.
lab_as "$LAB_USER" timeout 60 "$JT" --no-record -b --json -n 2 -d 0.5 \
	--scheduler oar --transport oarsh "$id" >"$tmp/out" 2>"$tmp/err"
rc=$?
n=$(grep -c "Cannot retrieve the job cpuset name for job id: $id" "$tmp/out" "$tmp/err" |
	awk -F: '{s += $2} END {print s}')
nodes=$(grep -o '"node":"node[0-9]*","type":"transport","transport":"oarsh"' "$tmp/out" | sort -u | wc -l)
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$n" -ge 2 ]; then
	ok "OAR_JOB_ID=$id: oarsh ran for both nodes: $(grep -h -m1 -o 'node[0-9]*: [^"]*cpuset name[^"]*' "$tmp/err" "$tmp/out" | head -1)"
else
	fail "OAR_JOB_ID: exit $rc, $n cpuset lines, $nodes oarsh nodes: $(tail -3 "$tmp/err")"
fi

# 2. OAR_JOB_KEY_FILE: the job key is offered, OAR's sshd refuses it.
lab_as "$LAB_USER" env OAR_JOB_KEY_FILE="$key" timeout 60 "$JT" --no-record \
	-b --json -n 2 -d 0.5 --scheduler oar --transport oarsh "$id" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
n=$(grep -c "refused: oarsh: oar@node[0-9]*: Permission denied" "$tmp/err")
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$n" -eq 2 ]; then
	ok "OAR_JOB_KEY_FILE: $(grep -m1 refused "$tmp/err")"
else
	fail "OAR_JOB_KEY_FILE: exit $rc, $n refusals: $(tail -3 "$tmp/err")"
fi

# 3. jtdeny's OAR job under auto: SSH refused, the ladder takes oarsh.
did=$(oar_sub "$LAB_DENY" -l nodes=2 "sleep 300") && [ -n "$did" ] ||
	lab_fail "$LAB_DENY's OAR job was not submitted"
ids+=("$did")
wait_running "$did" || lab_fail "OAR job $did did not start"
lab_as "$LAB_DENY" timeout 90 "$JT" --no-record -b --json -n 2 -d 0.5 \
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
if [ "${moved%% *}" -eq 2 ]; then
	ok "$LAB_DENY under auto: 2 nodes moved to oarsh: ${moved#* }"
else
	fail "$LAB_DENY under auto: ${moved%% *} nodes on oarsh: $(grep '"type":"transport"' "$tmp/out" | tail -2) $(tail -2 "$tmp/err")"
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
