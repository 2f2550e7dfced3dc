#!/bin/bash
# SPDX-License-Identifier: ISC
# group: cpu
# test-mpi-share: each rank's MPI share (rankmpi.share, the probe's mpi
# source: sampled instruction pointers in the MPI libraries) and the
# straggler rule that uses it, on real MPI jobs from Debian under Slurm.
#
# For MPICH (mpiexec.hydra -launcher slurm, a proxy a node through srun)
# and Open MPI (mpirun, its orted daemons through srun), a 4-node job as
# $LAB_USER runs tests/lab/mpi/mpiload.c with -s 2:4: rank 2 computes four
# times as long between MPI_Allreduce calls as the others, which wait for
# it in MPI.  `jobtop -b --json -d 1` watches it for SECS seconds (default
# 14); the check:
#   - every rank has a share in the samples after the first two;
#   - within the first EARLY samples (default 8) a sample where the median
#     share of ranks 0, 1 and 3 is at least MINSHARE (default 15) and
#     RATIO (default 3) times rank 2's, and the per-rank medians over the
#     window are so too, each of 0, 1 and 3 at least MINSHARE;
#   - rank 2 is flagged straggler within FLAGBY seconds (default 10) of
#     the first sample (its rank record's "flags", and a "straggler" event
#     whose text names rank 2 and its pid), and no other record is ever
#     flagged, no other detector event emitted.
# The bound is physical: the lab's nodes run each rank beside its proxy
# or daemon on 2 CPUs, and a waiting rank spends much of its wait in the
# kernel (poll, sched_yield), which the probe does not sample; what it
# computes is a quarter of rank 2's work, so its user-space MPI share is
# at most about 50% (MPICH) or 33% (Open MPI), measured 50 and 35.
# Then Open MPI's job balanced (no slow rank) for BSECS seconds (default
# 10): every rank has shares, the per-rank medians lie within SPREAD
# points (default 15) of each other, and nothing is flagged (balanced jobs
# of every launch path raise no flag in test-mpi-launch.sh).
# MPI_PATHS="hydra ompi" picks the paths, MODES="slow balanced" the jobs
# (balanced runs on the last path only unless BALANCED_ALL=1);
# KEEP=DIR keeps each job's jobtop output there (out-PATH-MODE.json).
# About 50 seconds.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
for t in mpicc.mpich mpicc.openmpi mpiexec.hydra mpirun.openmpi; do
	command -v "$t" >/dev/null ||
		lab_skip "no $t (tests/install-deps.sh installs mpich and openmpi-bin)"
done
command -v python3 >/dev/null || lab_skip "no python3"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
paths=${MPI_PATHS:-hydra ompi}
secs=${SECS:-14}
bsecs=${BSECS:-10}
export EARLY=${EARLY:-8} SPREAD=${SPREAD:-15} MINSHARE=${MINSHARE:-15}
export RATIO=${RATIO:-3} FLAGBY=${FLAGBY:-10}
export LAB_SUBMIT_TIMEOUT=${LAB_SUBMIT_TIMEOUT:-60}
dir=$(mktemp -d "$LAB_DIR/mpishare.XXXXXX")
job=""
trap '[ -z "$job" ] || lab_cancel "$job"; rm -rf "$dir"' EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"
mpicc.mpich -O2 -o "$dir/mpiload.mpich" "$LAB_TOP/tests/lab/mpi/mpiload.c" ||
	lab_fail "mpicc.mpich cannot build mpiload"
mpicc.openmpi -O2 -o "$dir/mpiload.openmpi" "$LAB_TOP/tests/lab/mpi/mpiload.c" ||
	lab_fail "mpicc.openmpi cannot build mpiload"

# TCP on the nodes' eth0 (LAB.md), as in test-mpi-launch.sh.
cat >"$dir/env.sh" <<'EOF'
export UCX_TLS=tcp,self UCX_NET_DEVICES=eth0
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self
export OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
EOF

# mpi_job PATH ARGS: the batch script of a 4-rank mpiload job on PATH.
mpi_job() {
	local run
	case $1 in
	hydra) run="mpiexec.hydra -launcher slurm -n 4 -ppn 1 $dir/mpiload.mpich" ;;
	ompi) run="mpirun.openmpi -np 4 --map-by node $dir/mpiload.openmpi" ;;
	*) lab_fail "unknown MPI launch path $1" ;;
	esac
	cat <<EOF
#!/bin/bash
#SBATCH --job-name=mpishare-$1
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=10
set -eu
. $dir/env.sh
$run -d "\$dir" $2
EOF
}

cat >"$dir/check.py" <<'PY'
# check.py PATH MODE OUT RANKFILE: MODE "slow" (rank 2 the straggler) or
# "balanced", on jobtop's --json.
import json, os, statistics, sys
path, mode, out, rankfile = sys.argv[1:5]
early, spread = int(os.environ["EARLY"]), float(os.environ["SPREAD"])
minshare, ratio = float(os.environ["MINSHARE"]), float(os.environ["RATIO"])
flagby = float(os.environ["FLAGBY"])
want = {}
for line in open(rankfile):
    r, pid, host = line.split()
    want[int(r)] = (int(pid), host)
assert sorted(want) == [0, 1, 2, 3], "rank files: %s" % want
recs = [json.loads(l) for l in open(out)]
per_node = {}        # node -> [(node record, [rank records])]
for r in recs:
    if r["type"] == "node":
        per_node.setdefault(r["node"], []).append((r, []))
    elif r["type"] == "rank" and r["node"] in per_node:
        per_node[r["node"]][-1][1].append(r)
bad = []
series = {}          # rank id -> [share or None per sample after the 2nd]
for rid, (pid, host) in want.items():
    s = []
    for node, rr in per_node.get(host, [])[2:]:
        v = node.get("rankmpi.share", {}).get(str(pid))
        s.append(v)
    series[rid] = s
    if not [v for v in s if v is not None]:
        bad.append("rank %d (pid %d on %s): no rankmpi.share in %d samples;"
                   " why: %s" % (rid, pid, host, len(s), sorted({
                       n.get("rankmpi.why", {}).get(str(pid), "-")
                       for n, rr in per_node.get(host, [])})))
def fmt(v):
    return "-" if v is None else "%.0f" % v
for rid in sorted(series):
    print("%s %s: rank %d shares %s" % (path, mode, rid,
          " ".join(fmt(v) for v in series[rid])))
# What the shares are of: user-space CPU time (the probe samples user
# space only); print each rank's CPU, user/system split and MPI library.
for rid, (pid, host) in sorted(want.items()):
    rr = [r for node, l in per_node.get(host, [])[2:] for r in l
          if r.get("pid") == pid]
    libs = sorted({n.get("rankmpi.lib", {}).get(str(pid), "-")
                   for n, l in per_node.get(host, [])[2:]})
    if len(rr) >= 2 and "rank.utime" in rr[0] and "rank.stime" in rr[0]:
        du = sum(r.get("rank.utime", 0) for r in rr)
        ds = sum(r.get("rank.stime", 0) for r in rr)
        cpu = [r["rank.cpu"] for r in rr if "rank.cpu" in r]
        print("%s %s: rank %d %.0f%% CPU, user %.0f system %.0f, "
              "lib %s" % (path, mode, rid, sum(cpu) / max(len(cpu), 1),
                          du, ds, libs))
med = {rid: statistics.median([v for v in s if v is not None])
       for rid, s in series.items() if any(v is not None for v in s)}
print("%s %s: median shares %s" % (path, mode,
      " ".join("%d:%.0f" % (r, v) for r, v in sorted(med.items()))))
flagged = [(r.get("rank"), r.get("pid"), r.get("rank.comm"), r["flags"])
           for n, l in per_node.items() for node, rr in l
           for r in [node] + rr if r.get("flags")]
codes = ("stalled", "straggler", "memory", "lost")
evs = [e for e in recs if e["type"] == "event" and
       e["code"].split("-")[0] in codes]
if mode == "slow" and not bad:
    def good(v0, v1, v2, v3):
        o = [v0, v1, v3]
        if None in o or v2 is None:
            return False
        m = statistics.median(o)
        return m >= minshare and m >= ratio * v2
    n = min(len(s) for s in series.values())
    ok = [k for k in range(min(n, early))
          if good(*(series[r][k] for r in range(4)))]
    want_txt = ("the median of 0,1,3 at least %g%% and %g times rank 2's"
                % (minshare, ratio))
    if not ok:
        bad.append("no sample among the first %d with %s" % (early,
                                                             want_txt))
    else:
        print("%s: shares apart from sample %d on" % (path, ok[0] + 3))
    if len(med) == 4 and (not good(med[0], med[1], med[2], med[3]) or
                          min(med[0], med[1], med[3]) < minshare):
        bad.append("median shares %s: want %s, each at least %g%%" %
                   (med, want_txt, minshare))
    mine = [f for f in flagged if f[0] == 2 and f[3] == ["straggler"]]
    other = [f for f in flagged if not (f[0] == 2 and f[3] == ["straggler"])]
    if not mine:
        bad.append("rank 2 never flagged straggler")
    if other:
        bad.append("other flags: %s" % other[:5])
    # An event names its node and rank first: "node3 rank 2 (pid P) ...".
    who = "%s rank 2 (pid %d)" % (want[2][1], want[2][0])
    sev = [e for e in evs if e["code"] == "straggler"]
    if not sev or any(not e.get("text", "").startswith(who) or
                      e["node"] != want[2][1] for e in sev):
        bad.append("straggler events: %s" % sev[:3])
    if [e for e in evs if e["code"] != "straggler"]:
        bad.append("other detector events: %s" % evs[:3])
    if sev:
        t0 = min(r["time"] for r in recs if r["type"] == "node")
        after = sev[0]["time"] - t0
        print("%s: flagged %.1f s after the first sample: %s" %
              (path, after, sev[0].get("text")))
        if after > flagby:
            bad.append("rank 2 flagged only %.1f s after the first sample"
                       ", want %g" % (after, flagby))
elif mode == "balanced" and not bad:
    if len(med) == 4 and max(med.values()) - min(med.values()) > spread:
        bad.append("median shares %s differ by more than %g points" %
                   (med, spread))
    if flagged:
        bad.append("flags on a balanced job: %s" % flagged[:5])
    if evs:
        bad.append("detector events on a balanced job: %s" % evs[:3])
for b in bad[:10]:
    print("%s %s: %s" % (path, mode, b))
sys.exit(1 if bad else 0)
PY

# run PATH MODE SECONDS MPILOAD_ARGS
run() {
	local path=$1 mode=$2 n=$3 args=$4 out
	mpi_job "$path" "$args" >"$dir/job-$path-$mode.sh"
	job=$(lab_submit "$LAB_USER" "$dir/job-$path-$mode.sh") ||
		lab_fail "$path: the MPI job did not start: $(tail -5 "$LAB_RANKS"/slurm-*.out 2>/dev/null)"
	lab_ranks "$job" >"$dir/ranks"
	out=$dir/out-$path-$mode.json
	lab_as "$LAB_USER" "$dir/jobtop" -b --json --no-record -d 1 -n "$n" \
		"$job" >"$out" 2>"$dir/err" ||
		lab_fail "$path: jobtop failed: $(cat "$dir/err")"
	lab_cancel "$job"
	job=""
	[ -z "${KEEP:-}" ] || cp "$out" "$KEEP/"
	python3 "$dir/check.py" "$path" "$mode" "$out" "$dir/ranks" ||
		lab_fail "$path $mode: MPI shares or the straggler flag wrong"
}

last=${paths##* }
for path in $paths; do
	for mode in ${MODES:-slow balanced}; do
		case $mode in
		slow) run "$path" slow "$secs" "-s 2:4" ;;
		balanced)
			[ "$path" = "$last" ] || [ -n "${BALANCED_ALL:-}" ] ||
				continue
			run "$path" balanced "$bsecs" "" ;;
		*) lab_fail "unknown mode $mode (slow, balanced)" ;;
		esac
	done
done
echo PASS
