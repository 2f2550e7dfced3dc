#!/bin/bash
# SPDX-License-Identifier: ISC
# test-probe-owner: only the job owner's processes are ranks (security
# review F3), on the real lab cluster.
#
# jtuser runs the 4-node "healthy" job.  On node2, jtother starts
#  - a process with jtuser's SLURM_JOB_ID, SLURM_STEP_ID=0 and
#    SLURM_PROCID=0 in its own environment, and
#  - a step daemon look-alike: a copy of bash named slurmstepd whose
#    command line reads "slurmstepd: [JOB.0]", with a child that claims
#    SLURM_PROCID=1.
# Control: root's probe run on node2 without --uid lists the forged
# environment (so the forgery is real and the check below can fail), but
# not the look-alike (a step daemon root does not own is none).  Then
# root's `jobtop -b --json -n 2 JOB` (which passes the owner's uid from
# Slurm to every probe) must list every real rank where Slurm placed it
# and none of jtother's processes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
[ "$LAB_N" -ge 4 ] || lab_skip "needs 4 nodes"
top=$(cd "$here/../.." && pwd)
for b in jobtop jobtop-probe; do
	[ -x "$top/$b" ] || lab_skip "$b is not built"
done
command -v setpriv >/dev/null 2>&1 || lab_skip "needs setpriv (util-linux)"
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$LAB_BIN/"
JT=$LAB_BIN/jobtop
node=node2
tmp=$(mktemp -d)
chmod 755 "$tmp"
job=
intruders=
fake=
cleanup() {
	# shellcheck disable=SC2086 # a list of pids
	[ -n "$intruders" ] && lab_node_exec "$node" kill $intruders 2>/dev/null
	[ -n "$fake" ] && lab_node_exec "$node" rm -rf "$fake"
	[ -n "$job" ] && lab_cancel "$job"
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "the healthy job did not start"
lab_ranks "$job" >"$tmp/placed"	# rank pid host
ouid=$(id -u "$LAB_OTHER") || lab_fail "no user $LAB_OTHER"
ogid=$(id -g "$LAB_OTHER") || lab_fail "no user $LAB_OTHER"

# as_other CMD...: run CMD as jtother inside node2, in the background,
# its output (the node-local pids it prints) into $tmp.
as_other() {
	local out=$1; shift
	lab_node_exec "$node" setpriv --reuid="$ouid" --regid="$ogid" \
		--init-groups env -i PATH=/usr/bin:/bin "$@" >"$tmp/$out" 2>&1 \
		</dev/null &
}
# The look-alike needs an executable named slurmstepd (its comm).
# shellcheck disable=SC2016 # expanded by the node's sh
fake=$(lab_node_exec "$node" sh -c 'd=$(mktemp -d /tmp/jt-fake.XXXXXX) &&
	cp /bin/bash "$d/slurmstepd" && chmod 755 "$d" "$d/slurmstepd" &&
	echo "$d"') || lab_fail "cannot make the look-alike on $node"
as_other env.pid SLURM_JOB_ID="$job" SLURM_STEP_ID=0 SLURM_PROCID=0 \
	sh -c 'echo $$; exec sleep 300'
# shellcheck disable=SC2016 # expanded by the node's bash
as_other stepd.pid bash -c 'echo $$; exec -a "slurmstepd: [$1.0]" \
	"$2/slurmstepd" -c "SLURM_PROCID=1 sleep 300 & echo \$!; wait"' \
	bash "$job" "$fake"
for _ in $(seq 50); do
	[ "$(cat "$tmp/env.pid" "$tmp/stepd.pid" 2>/dev/null | wc -l)" -ge 3 ] &&
		break
	sleep 0.1
done
env_pid=$(sed -n 1p "$tmp/env.pid")
stepd_pid=$(sed -n 1p "$tmp/stepd.pid")
child_pid=$(sed -n 2p "$tmp/stepd.pid")
intruders="$env_pid $stepd_pid $child_pid"
for p in $intruders; do
	case $p in '' | *[!0-9]*) lab_fail "intruders did not start: $(cat "$tmp/env.pid" "$tmp/stepd.pid")" ;; esac
done
who=$(lab_node_exec "$node" ps -o user=,comm=,args= -p "$env_pid,$stepd_pid,$child_pid")
echo "$who" | grep -c "^$LAB_OTHER " | grep -qx 3 ||
	lab_fail "the intruders are not $LAB_OTHER's: $who"
echo "$who" | grep -q "^$LAB_OTHER *slurmstepd *slurmstepd: \[$job.0\]" ||
	lab_fail "the look-alike does not look like a step daemon: $who"
ok "on $node, $LAB_OTHER runs $env_pid (SLURM_JOB_ID=$job), $stepd_pid (slurmstepd: [$job.0]) and its child $child_pid"

# ranks_of FILE NODE: the pids of the rank records from NODE.
ranks_of() {
	python3 - "$1" "$2" <<'PY'
import json, sys
pids = set()
for l in open(sys.argv[1]):
    if l.startswith("{"):
        r = json.loads(l)
        if r.get("type") == "rank" and r.get("node", sys.argv[2]) == sys.argv[2]:
            pids.add(r["pid"])
print(" ".join(str(p) for p in sorted(pids)))
PY
}

# Control: root's probe on the node without --uid takes the forged
# environment, never the look-alike.
lab_node_exec "$node" "$LAB_BIN/jobtop-probe" --job "$job" --interval 0.3 \
	--count 2 </dev/null >"$tmp/control.bin" 2>"$tmp/control.err" ||
	lab_fail "probe on $node: $(cat "$tmp/control.err")"
"$top/jobtop" --decode --json <"$tmp/control.bin" >"$tmp/control.json" ||
	lab_fail "cannot decode the control run"
got=" $(ranks_of "$tmp/control.json" "$node") "
case $got in *" $env_pid "*) ok "control: without --uid the forged environment passes ($got)" ;;
*) fail "control: the forged environment of $env_pid is not listed without --uid ($got): the check below proves nothing" ;;
esac
case $got in *" $stepd_pid "* | *" $child_pid "*)
	fail "control: the look-alike step daemon or its child is listed ($got)" ;;
esac
grep -aq 'no --uid: processes of every user' "$tmp/control.bin" ||
	fail "control: root's probe without --uid does not say so"

# Root's monitor: the owner's uid reaches every probe.
lab_as root "$JT" -b --json -n 2 -d 0.5 --no-record "$job" >"$tmp/root.out" \
	2>"$tmp/root.err"
rc=$?
[ $rc -eq 0 ] || fail "root: jobtop exited $rc: $(cat "$tmp/root.err")"
# shellcheck disable=SC2086 # a list of pids
python3 - "$tmp/root.out" "$tmp/placed" "$node" $intruders <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
node, intruders = sys.argv[3], {int(p) for p in sys.argv[4:]}
placed = {}
for line in open(sys.argv[2]):
    r, pid, host = line.split()
    placed[int(r)] = (int(pid), host)
bad = []
seen = {}
for r in recs:
    if r.get("type") != "rank":
        continue
    if r.get("node") == node and r.get("pid") in intruders:
        bad.append("%s's process %d listed as rank %r" % (node, r["pid"],
                   r.get("rank")))
    if "rank" in r:
        seen.setdefault(r["rank"], set()).add((r["pid"], r["node"]))
for rank, where in sorted(placed.items()):
    if seen.get(rank) != {where}:
        bad.append("rank %d: Slurm placed pid %d on %s, jobtop saw %s" %
                   (rank, where[0], where[1], sorted(seen.get(rank, ()))))
extra = set(seen) - set(placed)
if extra:
    bad.append("ranks Slurm did not place: %s" % sorted(extra))
nodes = {r["node"] for r in recs if r.get("type") == "node"}
if len(nodes) != 4:
    bad.append("node records from %s" % sorted(nodes))
for b in bad:
    print("FAIL: root: " + b)
if not bad:
    print("ok: root: %d ranks where Slurm placed them, none of the "
          "intruders" % len(placed))
sys.exit(1 if bad else 0)
PY
((fails == 0)) || lab_fail "$fails check(s) failed"
echo PASS
