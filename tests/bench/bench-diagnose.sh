#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# bench-diagnose: does jobtop name the culprit, and how fast?  (issue 25
# item 5.)  On the lab (tests/lab, LAB.md; it must be up and idle: take
# the lab lock, flock -o /tmp/jobtop-lab.lock), each scenario job runs as
# $LAB_USER with a CPU hog (sh -c 'while :; do :; done') on node2 the whole
# time, watched by `jobtop --json -d 1 -n SECS` (default 60 s; the healthy
# job HEALTHY_SECS, default 600):
#
#   scenario     job                                   expected verdict
#   healthy      jobs/healthy.sh                       none
#   blocked      jobs/blocked.sh                       stalled, rank 2
#   straggler    jobs/straggler.sh (rank 3 at 25%)     straggler, rank 3
#   memhog       jobs/memhog.sh --mem=330M             memory, rank 1's node
#   pinned       jobs/pinned.sh (taskset -c 0)         pinned, ranks 0-1's node
#   mpi-hung     tests/data/mpi/hang.c, MPICH          stalled, rank 2
#   mpi-strag    tests/lab/mpi/mpiload.c -s 2:4, MPICH straggler, rank 2
#   dp-strag     jobs/torch.sh, worker SLOW_RANK slow  straggler, that worker
#   early-exit   jobs/early-exit.sh (rank 2 ends at 8 s) rank-exit, rank 2
#
# Per scenario it prints the first verdict (event code and text), whether
# it named the right rank on the right node, the samples from the first
# sample to it (time to flag) and the false flags (any other detector
# event raised: stalled, straggler, memory, lost, pinned, io-bound,
# mem-growth, rank-exit).  Then precision (right verdicts / all verdicts
# raised), recall (scenarios named / scenarios with a culprit) and the
# median time to flag.  Targets: every scenario named within 10 samples;
# 0 false flags over the healthy job's 10 minutes.
# A scenario whose parts are missing (no MPICH, no hang.c, no torch) is
# said and left out of the figures.  SCENARIOS="straggler pinned" picks.
set -eu
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$TOP/tests/lab/lib.sh"
# The healthy job as the detectors meet it: every rank spins (lib.sh).
export LAB_HEALTHY_SPIN=1
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
SECS=${SECS:-60}
HEALTHY_SECS=${HEALTHY_SECS:-600}
SLOW_RANK=${SLOW_RANK:-5}
scenarios=${SCENARIOS:-healthy blocked straggler memhog pinned mpi-hung mpi-strag dp-strag early-exit}
export LAB_SUBMIT_TIMEOUT=${LAB_SUBMIT_TIMEOUT:-120}
dir=$(mktemp -d "$LAB_DIR/diagnose.XXXXXX")
job=""
hog=""
cleanup() {
	set +e
	[ -z "$job" ] || lab_cancel "$job"
	[ -z "$hog" ] || lab_kill_tree "$hog"
	rm -rf "$dir"
}
trap cleanup EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"
: >"$dir/results"

cat >"$dir/env.sh" <<'ENV'
export UCX_TLS=tcp,self UCX_NET_DEVICES=eth0
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
ENV
have_mpich() { command -v mpicc.mpich >/dev/null && command -v mpiexec.hydra >/dev/null; }
# mpi_script "BINARY ARGS": a 4-rank MPICH job through Slurm running that
# command line (\$dir in it is the job's rank directory, from env.sh).
mpi_script() {
	cat <<JOB
#!/bin/bash
#SBATCH --job-name=diagnose-mpi
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
. $dir/env.sh
mpiexec.hydra -launcher slurm -n 4 -ppn 1 $1
JOB
}

# start SCENARIO: submit its job; prints "CODE RANK" expected (RANK -1:
# none), or returns 1 when its parts are missing.
start() {
	case $1 in
	healthy) job=$(lab_submit "$LAB_USER" healthy); echo "none -1" ;;
	blocked) job=$(lab_submit "$LAB_USER" blocked); echo "stalled 2" ;;
	straggler) job=$(lab_submit "$LAB_USER" straggler); echo "straggler 3" ;;
	memhog) job=$(lab_submit "$LAB_USER" memhog --mem=330M); echo "memory 1" ;;
	pinned) job=$(lab_submit "$LAB_USER" pinned); echo "pinned 0" ;;
	mpi-hung)
		have_mpich && [ -f "$TOP/tests/data/mpi/hang.c" ] || return 1
		mpicc.mpich -O1 -g -o "$dir/hang" "$TOP/tests/data/mpi/hang.c"
		# hang.c: argv[1] the rank that blocks, argv[2] the rank files.
		mpi_script "$dir/hang 2 \"\$dir\"" >"$dir/hung.sh"
		job=$(lab_submit "$LAB_USER" "$dir/hung.sh"); echo "stalled 2" ;;
	mpi-strag)
		have_mpich || return 1
		mpicc.mpich -O2 -o "$dir/mpiload" "$TOP/tests/lab/mpi/mpiload.c"
		mpi_script "$dir/mpiload -d \"\$dir\" -s 2:4" >"$dir/mpis.sh"
		job=$(lab_submit "$LAB_USER" "$dir/mpis.sh"); echo "straggler 2" ;;
	dp-strag)
		/usr/bin/python3 -c 'import torch' 2>/dev/null || return 1
		# As test-torch runs it: light steps with a pause, so that the
		# 2 CPUs of the lab leave the slow worker room to show.
		job=$(lab_submit "$LAB_USER" torch --export=ALL,TORCH_ITERS=30,TORCH_SLEEP=0.095)
		# Slow from the start: the bench times the flag from the first
		# sample, so the slow worker is set before it.
		echo "$SLOW_RANK" >"$(lab_rankdir "$job")/slow.tmp"
		mv "$(lab_rankdir "$job")/slow.tmp" "$(lab_rankdir "$job")/slow"
		echo "straggler $SLOW_RANK" ;;
	early-exit)
		job=$(lab_submit "$LAB_USER" early-exit --export=ALL,EARLY_EXIT_SECONDS=8)
		echo "rank-exit 2" ;;
	*) echo "unknown scenario $1" >&2; return 2 ;;
	esac
}

lab_node_exec node2 sh -c 'while :; do :; done' &
hog=$!
printf '%-11s %-10s %-5s %-6s %-6s %s\n' scenario verdict right flag@ false text
for sc in $scenarios; do
	# Not in a $(...): start sets job in this shell.
	if ! start "$sc" >"$dir/want"; then
		printf '%-11s skipped: its parts are missing here\n' "$sc"
		continue
	fi
	want=$(cat "$dir/want")
	[ -n "$job" ] || { printf '%-11s the job did not start\n' "$sc"; continue; }
	lab_ranks "$job" >"$dir/ranks.$sc"
	n=$SECS
	[ "$sc" = healthy ] && n=$HEALTHY_SECS
	lab_as "$LAB_USER" "$dir/jobtop" --json --no-record -d 1 -n "$n" "$job" \
		>"$dir/$sc.json" 2>"$dir/$sc.err" || true
	lab_cancel "$job"
	job=""
	python3 - "$sc" $want "$dir/ranks.$sc" "$dir/$sc.json" >>"$dir/results" <<'PY'
import json, sys
sc, code, rank, rankfile, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
where = {}
for line in open(rankfile):
    f = line.split()
    if len(f) >= 3:
        where[int(f[0])] = f[2]
recs = [json.loads(l) for l in open(out)]
codes = ("stalled", "straggler", "memory", "lost", "pinned", "io-bound",
         "mem-growth", "rank-exit")
ev = [r for r in recs if r["type"] == "event" and r["code"] in codes]
node = where.get(rank)
# The samples of the culprit's node (else of any one node), each with rates.
nodes = sorted({r["node"] for r in recs if r["type"] == "node"})
pick = node if node in nodes else (nodes[0] if nodes else None)
times = sorted(r["time"] for r in recs if r["type"] == "node" and r["node"] == pick)
def right(e):
    if e["code"] != code or e.get("node") != node:
        return False
    # A node's verdict (memory, pinned) names the node; a rank's its id.
    return e.get("rank") in (None, rank) or code == "pinned"
good = [e for e in ev if right(e)]
false = [e for e in ev if not right(e)]
first = good[0] if good else (ev[0] if ev else None)
flag = None
if good and times:
    flag = sum(1 for t in times if t <= good[0]["time"])
print(json.dumps({"scenario": sc, "want": code, "named": bool(good),
                  "flag": flag, "false": len(false),
                  "verdict": first["code"] if first else "none",
                  "text": first["text"][:90] if first else ""}))
PY
	tail -n 1 "$dir/results" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
right = "-" if r["want"] == "none" else ("yes" if r["named"] else "NO")
print("%-11s %-10s %-5s %-6s %-6d %s" % (r["scenario"], r["verdict"], right,
      r["flag"] if r["flag"] is not None else "-", r["false"], r["text"]))'
done
python3 - "$dir/results" <<'PY'
import json, statistics, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
culprits = [r for r in rs if r["want"] != "none"]
named = [r for r in culprits if r["named"]]
tp = len(named)
fp = sum(r["false"] for r in rs)
prec = tp / (tp + fp) if tp + fp else float("nan")
rec = tp / len(culprits) if culprits else float("nan")
flags = [r["flag"] for r in named if r["flag"] is not None]
med = statistics.median(flags) if flags else float("nan")
late = [r["scenario"] for r in named if r["flag"] is not None and r["flag"] > 10]
print("precision %.2f (%d right, %d false flags)  recall %.2f (%d of %d)  "
      "median time to flag %s samples" % (prec, tp, fp, rec, tp, len(culprits), med))
print("targets: named within 10 samples (late: %s); healthy false flags: %s" %
      (", ".join(late) or "none",
       [r["false"] for r in rs if r["scenario"] == "healthy"]))
PY
