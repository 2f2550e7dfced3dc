#!/bin/bash
# SPDX-License-Identifier: ISC
# test-sched-oar: jobtop against the lab's real OAR 2.5.9 (lab_oar_up in
# lib.sh brings it up; lab-down.sh tears it down).  Jobs are submitted by
# the lab user with oarsub.  A running job, both elements of an array and a
# 2-node job resolve to the nodes oarstat names (with --scheduler oar and
# by auto-detection); `jobtop --json` on the 2-node job gets node records
# from both nodes and finds the job's process (through OAR_JOB_ID, with
# the owner's uid) where OAR started it; another user is refused; a held
# (pending), a finished, a deleted (oardel) and an unknown job each give
# one clear line and a non-zero exit; a hostile job name steers nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
top=$(cd "$here/../.." && pwd)
[ -x "$top/jobtop" ] || lab_skip "jobtop is not built"
command -v oarsub >/dev/null || lab_skip "OAR is not installed (tests/install-deps.sh)"
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

# oar_sub ARGS... : oarsub as the lab user from its home directory; prints
# the job id(s).  oarsub takes the job's directory from PWD (without it: a
# NULL launching_directory and "Oarsub failed").
home=$(getent passwd "$LAB_USER" | cut -d: -f6)
oar_sub() {
	local out
	out=$(lab_as "$LAB_USER" env PWD="$home" oarsub -O /dev/null -E /dev/null "$@" 2>&1) ||
		{ echo "oarsub $*: $out" >&2; return 1; }
	sed -n 's/^OAR_JOB_ID=\([0-9][0-9]*\)$/\1/p' <<<"$out"
}
oar_state() { oarstat -s -j "$1" 2>/dev/null | sed -n "s/^$1: //p"; }
wait_state() {	# id state... (up to 30 s)
	local id=$1 t0=$SECONDS st want; shift
	while ((SECONDS - t0 < 30)); do
		st=$(oar_state "$id")
		for want in "$@"; do [ "$st" = "$want" ] && return 0; done
		sleep 0.3
	done
	echo "OAR job $id stayed '$st'" >&2
	return 1
}
# oar_nodes ID -> the node names oarstat gives, one a line, sorted
oar_nodes() {
	oarstat -f -J -j "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(sorted(d[sys.argv[1]]["assigned_network_address"])))' "$1"
}
same_nodes() {	# what id [jobtop options...]
	local what=$1 id=$2 want got; shift 2
	want=$(oar_nodes "$id")
	got=$(lab_as "$LAB_USER" "$JT" --list "$@" "$id" 2>"$tmp/err" | sort)
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$what ($id): $(echo $got)"
	else
		fail "$what ($id): jobtop --list gave '$(echo $got)' ($(cat "$tmp/err")), oarstat '$(echo $want)'"
	fi
}
expect_err() {	# what pattern id [user]
	lab_as "${4:-$LAB_USER}" "$JT" --list --scheduler oar "$3" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 0 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	    grep -q "$2" "$tmp/err"; then
		ok "$1: $(cat "$tmp/err")"
	else
		fail "$1: exit $rc, stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
	fi
}

# OAR schedules a submission a few seconds later: the jobs are submitted
# in two rounds that fit the 4 nodes (OAR gives whole nodes here) and are
# waited for together, not one after the other.
# Round 1: a job that runs and finishes (1 node), the 2-node job (its
# command runs on its first node, OAR's oarexec), a job with a hostile
# name (1 node) and a job held at submission (pending).
done_id=$(oar_sub -l nodes=1,walltime=0:05:00 -n short true) || lab_fail "oarsub of a short job failed"
ids+=("$done_id")
two=$(oar_sub -l nodes=2,walltime=0:10:00 -n two-nodes "sleep 600") || lab_fail "oarsub -l nodes=2 failed"
ids+=("$two")
# A hostile job name: JSON and Key=value look-alikes must steer nothing.
evil='x", "assigned_network_address": ["evil"], "owner": "root Nodes=evil Key=1'
hid=$(oar_sub -l nodes=1,walltime=0:10:00 -n "$evil" "sleep 600") || fail "oarsub with a hostile name failed"
[ -z "$hid" ] || ids+=("$hid")
held=$(oar_sub --hold -l nodes=1,walltime=0:10:00 "sleep 60") || lab_fail "oarsub -h failed"
ids+=("$held")

wait_state "$done_id" Terminated || fail "short job did not terminate"
expect_err "finished job" "has finished (Terminated)" "$done_id"
wait_state "$two" Running || lab_fail "2-node job did not run"
same_nodes "2-node job, --scheduler oar" "$two" --scheduler oar
# Auto-detection: oarstat the only scheduler command in PATH.
mkdir -p "$tmp/bin" && ln -s "$(command -v oarstat)" "$tmp/bin/oarstat"
want=$(oar_nodes "$two")
got=$(lab_as "$LAB_USER" env PATH="$tmp/bin" "$JT" --list "$two" 2>"$tmp/err" | sort)
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "auto-detected OAR ($two): $(echo $got)"
else
	fail "auto-detection ($two): '$(echo $got)' ($(cat "$tmp/err")), oarstat '$(echo $want)'"
fi
# Watch it end to end: probes on both nodes, the job's process on the
# first one, found through OAR_JOB_ID and owned by the user.
first=$(oar_nodes "$two" | sed -n 1p)
t0=$SECONDS
while ((SECONDS - t0 < 10)); do
	pid=$(lab_node_exec "$first" pgrep -u "$LAB_USER" -x sleep | head -1)
	[ -n "$pid" ] && break
	sleep 0.3
done
# An intruder: another user's process on the same node that claims the job
# in its environment (anyone can set OAR_JOB_ID) is not a rank.
lab_node_exec "$first" runuser -u "$LAB_OTHER" -- env OAR_JOB_ID="$two" \
	OAR_JOBID="$two" sleep 60 </dev/null >/dev/null 2>&1 &
t0=$SECONDS
while ((SECONDS - t0 < 10)); do
	intruder=$(lab_node_exec "$first" pgrep -u "$LAB_OTHER" -x sleep | head -1)
	[ -n "$intruder" ] && break
	sleep 0.2
done
[ -n "$intruder" ] || fail "the intruder did not start on $first"
lab_as "$LAB_USER" "$JT" --json --no-record --scheduler oar -d 0.5 -n 3 "$two" \
	>"$tmp/two.json" 2>"$tmp/two.err" || fail "jobtop --json on $two: $(cat "$tmp/two.err")"
python3 - "$tmp/two.json" "$(oar_nodes "$two" | tr '\n' ' ')" "$first" "$(getent passwd "$LAB_USER" | cut -d: -f3)" <<'PY' || fail "watching the 2-node job"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
want = set(sys.argv[2].split())
first = sys.argv[3]
nodes = {r["node"] for r in recs if r.get("type") == "node"}
assert nodes == want, "node records from %s, OAR gave %s" % (sorted(nodes), sorted(want))
ranks = [r for r in recs if r.get("type") == "rank"]
where = {r.get("node") for r in ranks}
assert where == {first}, "rank records on %s, OAR runs the job on %s" % (sorted(where), first)
print("ok: node records from %s, %d rank records on %s" % (sorted(nodes), len(ranks), first))
PY
# The pid OAR started is among the ranks (the probe's namespace view).
if [ -n "$pid" ]; then
	if grep -q "\"pid\": *$pid[,}]" "$tmp/two.json"; then
		ok "the job's sleep (pid $pid on $first) is a rank"
	else
		fail "the job's sleep (pid $pid on $first) is not among the ranks: $(grep -m3 '"rank"' "$tmp/two.json")"
	fi
else
	fail "no sleep of $LAB_USER on $first"
fi
if [ -n "$intruder" ] && grep -q "\"pid\": *$intruder[,}]" "$tmp/two.json"; then
	fail "$LAB_OTHER's process $intruder with OAR_JOB_ID=$two is listed as a rank"
elif [ -n "$intruder" ]; then
	ok "$LAB_OTHER's process $intruder with OAR_JOB_ID=$two is not a rank"
fi
lab_node_exec "$first" kill "$intruder" 2>/dev/null
# The owner check: another user may not watch it.
lab_as "$LAB_OTHER" "$JT" --json --no-record --scheduler oar -n 1 "$two" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ ! -s "$tmp/out" ] && grep -q "$LAB_USER" "$tmp/err"; then
	ok "$LAB_OTHER refused: $(head -1 "$tmp/err")"
else
	fail "$LAB_OTHER watching $LAB_USER's job: exit $rc, stdout $(wc -c <"$tmp/out") bytes, stderr '$(cat "$tmp/err")'"
fi

if [ -n "$hid" ]; then
	if wait_state "$hid" Running; then
		same_nodes "hostile job name" "$hid" --scheduler oar
	else
		fail "the job with a hostile name did not run"
	fi
fi

# Pending: held at submission.
wait_state "$held" Hold || fail "held job is not in Hold"
expect_err "pending (held) job" "is pending (Hold, " "$held"

# Free the nodes for round 2.
oardel "$two" ${hid:+"$hid"} >/dev/null 2>&1
for a in "$two" ${hid:+"$hid"}; do wait_state "$a" Error Terminated || fail "job $a did not end"; done

# Round 2: an array of two one-node jobs (each element a job of its own)
# and a job deleted with oardel while running (Error, reported as deleted).
mapfile -t arr < <(oar_sub --array 2 -l nodes=1,walltime=0:10:00 -n arr "sleep 600")
ids+=("${arr[@]}")
del=$(oar_sub -l nodes=1,walltime=0:10:00 -n victim "sleep 600") || lab_fail "oarsub of the job to delete failed"
ids+=("$del")
if [ ${#arr[@]} -eq 2 ]; then
	for a in "${arr[@]}"; do
		wait_state "$a" Running || fail "array element $a did not run"
		same_nodes "array element" "$a" --scheduler oar
	done
else
	fail "oarsub --array 2 gave ids '${arr[*]}'"
fi

# The deleted job.
if wait_state "$del" Running; then
	lab_as "$LAB_USER" oardel "$del" >/dev/null 2>&1 || fail "oardel $del failed"
	wait_state "$del" Error Terminated || fail "deleted job did not end"
	expect_err "deleted job" "has finished (.*deleted by oardel)" "$del"
else
	fail "the job to delete did not run"
fi

expect_err "unknown job" "job 987654: no such job" 987654

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all OAR checks passed"
