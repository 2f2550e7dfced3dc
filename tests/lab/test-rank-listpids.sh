#!/bin/bash
# SPDX-License-Identifier: ISC
# test-rank-listpids: Slurm's task ids from `scontrol --json listpids` in
# the probe's rank discovery (probes/ranks-find.c), with real Slurm tasks
# under the lab's real step daemons.
#
# The lab's Slurm is Debian 12's 22.05, whose listpids has no --json (it
# came with 24.11).  So on each node of a 4-node "healthy" job (one
# rankload task per node under slurmstepd: [JOB.0]), as the job's user,
# the probe runs twice:
#  1. with the lab's own scontrol in PATH: it says slurm-wlm 22.05.8, the
#     probe runs no listpids, every rank's id is its SLURM_PROCID
#     (rank_var SLURM_PROCID) and no ranks-listpids event is sent;
#  2. with a stand-in scontrol first in PATH, standing in for Slurm 24.11
#     only in its output format: `--version` says "slurm 24.11.0", and
#     `--json listpids JOB` runs the lab's real `scontrol listpids JOB`
#     (the plain table 22.05 prints, from the node's real step daemons)
#     and prints those rows as Slurm 24.11's source prints them
#     (tests/data/listpids/listpids-json.py).  The probe must run
#     --version once and listpids once (the job's tasks appear once), and
#     from the sample after the answer every rank's id is the real step
#     daemon's global task id (rank_var "scontrol listpids"), equal to
#     the rank the task wrote in its rank file; the first sample, before
#     any answer, has SLURM_PROCID.  The batch step's processes (node1)
#     take no id from it, and nothing else of the node becomes a rank.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
lab_require_up
[ -x "$PROBE" ] || lab_skip "$PROBE is not built yet (make jobtop-probe)"
[ -x "$JOBTOP" ] || lab_skip "$JOBTOP is not built yet (make jobtop)"
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3	# not root's pyenv shim
nodes=(node1 node2 node3 node4)
interval=0.5 count=8

work=$(mktemp -d /tmp/jobtop-listpids-test.XXXXXX)
jobs=()
cleanup() {
	lab_cancel "${jobs[@]}"
	rm -rf "$work"
}
trap cleanup EXIT

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "could not start the healthy job"
jobs+=("$job")
echo "job: healthy $job"

# What the job's user copies to each node: the probe, the stand-in and
# the printer of Slurm 24.11's format.
stage=$work/stage
mkdir -p "$stage/bin"
cp "$PROBE" "$stage/jobtop-probe"
cp "$LAB_TOP/tests/data/listpids/listpids-json.py" "$stage/listpids-json.py"
cat >"$stage/bin/scontrol" <<'EOF'
#!/bin/sh
# Stand-in for Slurm 24.11's scontrol (tests/lab/test-rank-listpids.sh):
# its format, the lab's real step daemons' answer.
d=$(cd "$(dirname "$0")/.." && pwd)
echo "$(date +%s.%N) $*" >>"$d/calls"
case "$*" in
--version) echo "slurm 24.11.0"; exit 0 ;;
"--json listpids "[0-9]*) ;;
*) exit 1 ;;
esac
job=$3
/usr/bin/scontrol listpids "$job" >"$d/plain" 2>>"$d/plain.err" || exit 1
awk 'NR > 1 && NF == 5 { print $1, $3, $4, $5 }' "$d/plain" >"$d/spec"
exec /usr/bin/python3 "$d/listpids-json.py" "$job" "$d/spec"
EOF
chmod 755 "$stage" "$stage/bin" "$stage"/* "$stage"/bin/*
chmod 755 "$work"
lab_hold_stdin || lab_fail "cannot make a FIFO for the probes' stdin"

# run_node NODE: push, then the two runs; all output in $work.
run_node() {
	local node=$1 rdir
	rdir=$(lab_ssh "$LAB_USER" "$node" 'mktemp -d /tmp/jobtop-test.XXXXXX' </dev/null) ||
		{ echo "ssh $LAB_USER@$node mktemp failed" >"$work/$node.err"; return 1; }
	echo "$rdir" >"$work/$node.rdir"
	lab_as "$LAB_USER" scp -q -rp "$stage/jobtop-probe" "$stage/listpids-json.py" \
		"$stage/bin" "$node:$rdir/" </dev/null 2>"$work/$node.err" ||
		{ echo "scp to $LAB_USER@$node:$rdir failed: $(tail -n 1 "$work/$node.err")" >"$work/$node.err"; return 1; }
	lab_ssh "$LAB_USER" "$node" "PATH=/usr/bin:/bin exec $rdir/jobtop-probe --job $job --interval $interval --count $count" \
		<&9 >"$work/$node.real.frames" 2>"$work/$node.real.err" ||
		{ echo "probe on $node (real scontrol): $(tail -n 1 "$work/$node.real.err")" >"$work/$node.err"; return 1; }
	lab_ssh "$LAB_USER" "$node" "PATH=$rdir/bin:/usr/bin:/bin exec $rdir/jobtop-probe --job $job --interval $interval --count $count" \
		<&9 >"$work/$node.new.frames" 2>"$work/$node.new.err" ||
		{ echo "probe on $node (stand-in): $(tail -n 1 "$work/$node.new.err")" >"$work/$node.err"; return 1; }
	lab_ssh "$LAB_USER" "$node" "cat $rdir/calls; echo ---; cat $rdir/plain $rdir/plain.err" \
		</dev/null >"$work/$node.calls" 2>/dev/null || true
}

pids=()
for node in "${nodes[@]}"; do
	run_node "$node" &
	pids+=($!)
done
failed=""
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || failed+="$(cat "$work/${nodes[$i]}.err" 2>/dev/null); "
done
[ -z "$failed" ] || lab_fail "$failed"
lab_ranks "$job" >"$work/ranks"

cat >"$work/check.py" <<'EOF'
import json, sys
node, mode, path, ranksf, callsf = sys.argv[1:6]
# "rank pid hostname" of the job's tasks (tests/lab/rankload.c)
want = {int(p): int(r) for r, p, h in
        (l.split() for l in open(ranksf)) if h == node}
samples, events = [], []
for l in open(path):
    r = json.loads(l)
    if r["type"] == "node":
        samples.append({})
    elif r["type"] == "rank":
        samples[-1][r["pid"]] = r
    elif r["type"] == "event":
        events.append(r)
ev = [e["text"] for e in events if e.get("code") == "ranks-listpids"]
bad = []
if len(samples) < 6:
    bad.append("%d samples" % len(samples))
def ids(s):
    return {p: (r.get("rank"), r.get("rank.rank_var"))
            for p, r in s.items() if r.get("rank") is not None}
first, last = ids(samples[0]), ids(samples[-1])
if first != {p: (g, "SLURM_PROCID") for p, g in want.items()}:
    bad.append("first sample: %r, want SLURM_PROCID ids %r" % (first, want))
if mode == "real":
    if last != {p: (g, "SLURM_PROCID") for p, g in want.items()}:
        bad.append("last sample: %r" % last)
    if ev:
        bad.append("a ranks-listpids event with Slurm 22.05: %r" % ev)
else:
    if last != {p: (g, "scontrol listpids") for p, g in want.items()}:
        bad.append("last sample: %r, want %r by scontrol listpids" %
                   (last, want))
    calls = open(callsf).read().split("---")[0].split("\n")
    vers = [c for c in calls if c.endswith(" --version")]
    lps = [c for c in calls if " --json listpids " in c]
    if len(vers) != 1 or len(lps) != 1:
        bad.append("scontrol calls: %r" % calls)
    if not ev or "from scontrol listpids (slurm 24.11.0)" not in ev[0]:
        bad.append("ranks-listpids: %r" % ev)
for b in bad:
    print("FAIL: %s %s: %s" % (node, mode, b))
if not bad:
    print("ok: %s %s: %s%s" % (node, mode, sorted(last.items()),
          "; " + ev[0] if ev else ""))
sys.exit(1 if bad else 0)
EOF

bad=0
for node in "${nodes[@]}"; do
	for mode in real new; do
		f=$work/$node.$mode
		"$JOBTOP" --decode --json <"$f.frames" >"$f.json" 2>"$f.decode-err" ||
			{ echo "FAIL: $node $mode: decode: $(tail -n 1 "$f.decode-err")"; bad=$((bad + 1)); continue; }
		"$PY" "$work/check.py" "$node" "$mode" "$f.json" "$work/ranks" \
			"$work/$node.calls" || { bad=$((bad + 1)); sed 's/^/    /' "$work/$node.calls"; }
	done
done
for node in "${nodes[@]}"; do
	read -r rdir <"$work/$node.rdir"
	lab_ssh "$LAB_USER" "$node" "rm -rf $rdir" </dev/null || true
done
((bad == 0)) || lab_fail "$bad of $((${#nodes[@]} * 2)) probe runs disagree (see above)"
echo "PASS"
