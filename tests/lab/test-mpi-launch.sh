#!/bin/bash
# SPDX-License-Identifier: ISC
# test-mpi-launch: real MPI jobs from Debian's MPICH and Open MPI, each
# started the ways they are under Slurm, show exactly one row per rank.
#
# tests/lab/mpi/mpiload.c is built with mpicc.mpich and mpicc.openmpi; a
# balanced 4-rank job (one rank a node) runs under each launch path:
#	hydra	MPICH's mpiexec -launcher slurm (a hydra_pmi_proxy a node,
#		started through srun; the proxy carries SLURM_PROCID)
#	hydra-ssh  mpiexec -launcher ssh: a proxy forked on the first node,
#		ssh to the others (the lab has no pam_slurm_adopt: the ranks
#		there are the job's through the environment hydra passes on)
#	pmi2	MPICH started by srun --mpi=pmi2 directly
#	ompi	Open MPI's mpirun: its orted daemons started through srun,
#		the first node's ranks forked by mpirun in the batch step
#	ompi-ssh  mpirun --mca plm rsh: orted through ssh (-x SLURM_JOB_ID
#		stands in for pam_slurm_adopt)
#	pmix	Open MPI started by srun --mpi=pmix directly
# and `jobtop --json` watches it for SECS seconds (default 6 each, 12
# samples a node; the test takes about a minute).  In every sample after
# the first two: the records with a rank id are exactly ranks 0-3, each
# once, with the pid and
# node that the rank wrote to its rank file (the MPI process, not a proxy);
# the launchers' daemons are there as helpers (rank.helper 1, no rank id)
# where the path has them; and over the whole window no record carries a
# flag and no detector event (stalled, straggler, memory, lost) is
# emitted.  MPI_PATHS="hydra ompi" picks paths; JOBTOP_LONG=1 watches one
# path (hydra, or the first of MPI_PATHS) for 10 minutes instead, which
# needs more than tests/run.sh's 600 s a test:
#	JOBTOP_LONG=1 TEST_TIMEOUT=900 tests/run.sh lab/test-mpi-launch
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
for t in mpicc.mpich mpicc.openmpi mpiexec.hydra mpirun.openmpi; do
	command -v "$t" >/dev/null ||
		lab_skip "no $t (tests/install-deps.sh installs mpich and openmpi-bin)"
done
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
paths=${MPI_PATHS:-hydra hydra-ssh pmi2 ompi ompi-ssh pmix}
secs=${SECS:-6}
if [ "${JOBTOP_LONG:-0}" = 1 ]; then
	secs=600
	paths=${paths%% *}
fi
interval=0.5
# MPI jobs take a few seconds more than rankload's to report every rank.
export LAB_SUBMIT_TIMEOUT=${LAB_SUBMIT_TIMEOUT:-60}
count=$(awk -v s="$secs" -v i="$interval" 'BEGIN { print int(s / i) }')
# Under $LAB_DIR: each node has its own /tmp, but sees the lab's state.
dir=$(mktemp -d "$LAB_DIR/mpi.XXXXXX")
job=""
trap '[ -z "$job" ] || lab_cancel "$job"; rm -rf "$dir"' EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"
mpicc.mpich -O2 -o "$dir/mpiload.mpich" "$LAB_TOP/tests/lab/mpi/mpiload.c" ||
	lab_fail "mpicc.mpich cannot build mpiload"
mpicc.openmpi -O2 -o "$dir/mpiload.openmpi" "$LAB_TOP/tests/lab/mpi/mpiload.c" ||
	lab_fail "mpicc.openmpi cannot build mpiload"

# The lab's nodes share one kernel and one loopback: MPI must talk TCP on
# the nodes' eth0 (LAB.md), never shared memory or UCX's other transports.
cat >"$dir/env.sh" <<'EOF'
export UCX_TLS=tcp,self UCX_NET_DEVICES=eth0
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self
export OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
EOF

# mpi_job PATH: the batch script of a balanced 4-rank job on that path.
mpi_job() {
	local run
	case $1 in
	hydra) run="mpiexec.hydra -launcher slurm -n 4 -ppn 1 $dir/mpiload.mpich" ;;
	pmi2) run="srun --mpi=pmi2 $dir/mpiload.mpich" ;;
	hydra-ssh) run="mpiexec.hydra -launcher ssh -hosts \$(scontrol show hostnames | paste -sd,) -n 4 -ppn 1 $dir/mpiload.mpich" ;;
	ompi) run="mpirun.openmpi -np 4 --map-by node $dir/mpiload.openmpi" ;;
	ompi-ssh) run="mpirun.openmpi --mca plm rsh -x SLURM_JOB_ID -np 4 --map-by node $dir/mpiload.openmpi" ;;
	pmix) run="srun --mpi=pmix $dir/mpiload.openmpi" ;;
	*) lab_fail "unknown MPI launch path $1" ;;
	esac
	cat <<EOF
#!/bin/bash
#SBATCH --job-name=mpi-$1
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
. $dir/env.sh
$run -d "\$dir" ${MPILOAD_ARGS:-}
EOF
}

for path in $paths; do
	mpi_job "$path" >"$dir/job-$path.sh"
	job=$(lab_submit "$LAB_USER" "$dir/job-$path.sh") ||
		lab_fail "$path: the MPI job did not start: $(tail -5 "$LAB_RANKS"/slurm-*.out 2>/dev/null)"
	lab_ranks "$job" >"$dir/ranks-$path"
	echo "$path: job $job, ranks: $(tr '\n' ';' <"$dir/ranks-$path")"
	lab_as "$LAB_USER" "$dir/jobtop" --json --no-record -d "$interval" \
		-n "$count" "$job" >"$dir/out-$path.json" 2>"$dir/err" ||
		lab_fail "$path: jobtop failed: $(cat "$dir/err")"
	python3 - "$path" "$dir/out-$path.json" "$dir/ranks-$path" "$count" <<'PY' ||
import json, os, sys
path, out, rankfile, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
want = {}
for line in open(rankfile):
    r, pid, host = line.split()
    want[int(r)] = (int(pid), host)
assert sorted(want) == [0, 1, 2, 3], "rank files: %s" % want
recs = [json.loads(l) for l in open(out)]
samples = []   # per node record: the rank records that follow it
for r in recs:
    if r["type"] == "node":
        samples.append((r, []))
    elif r["type"] == "rank" and samples:
        samples[-1][1].append(r)
seen = {}
bad = []
helpers = set()
per_node = {}
for node, rr in samples:
    n = node["node"]
    per_node[n] = per_node.get(n, 0) + 1
    k = per_node[n]
    for r in rr:
        if r.get("rank.helper") == 1:
            helpers.add((n, r.get("rank.comm")))
            if "rank" in r:
                bad.append("helper with a rank id: %s" % r)
    if k <= 2:
        continue    # the first samples: ranks may still be starting
    ids = sorted(r["rank"] for r in rr if "rank" in r)
    mine = sorted(r for r, (pid, host) in want.items() if host == n)
    if ids != mine:
        bad.append("%s sample %d: rank ids %s, want %s (%s)" %
                   (n, k, ids, mine, [(r.get("rank"), r.get("pid"),
                    r.get("rank.comm")) for r in rr]))
    for r in rr:
        if "rank" in r and r["rank"] in want and \
           r["pid"] != want[r["rank"]][0]:
            bad.append("%s: rank %d is pid %d (%s), its rank file says %d"
                       % (n, r["rank"], r["pid"], r.get("rank.comm"),
                          want[r["rank"]][0]))
assert len(per_node) == 4 and min(per_node.values()) >= count - 1, \
    "samples per node: %s" % per_node
# CHILD_RANK (test-mpi-children.sh): that rank works through short-lived
# children; it may be a straggler, never stalled, and its CPU must show.
child = int(os.environ.get("CHILD_RANK", "-1"))
def allowed(r):
    return r.get("rank") == child and r.get("flags") == ["straggler"]
flagged = [r for node, rr in samples for r in [node] + rr
           if r.get("flags") != [] and not allowed(r)]
if child >= 0:
    cpu = [r["rank.cpu"] for node, rr in samples for r in rr
           if r.get("rank") == child and "rank.cpu" in r]
    others = [r["rank.cpu"] for node, rr in samples for r in rr
              if "rank" in r and r["rank"] != child and "rank.cpu" in r]
    mean = sum(cpu) / len(cpu) if cpu else 0
    omean = sum(others) / len(others) if others else 0
    print("%s: rank %d (work in children) %.0f%% CPU on average, the "
          "others %.0f%%" % (path, child, mean, omean))
    if mean < 10:
        bad.append("rank %d's children's CPU time does not count for it: "
                   "%.1f%% on average" % (child, mean))
if flagged:
    bad.append("%d flagged records, first: %s" % (len(flagged), flagged[0]))
codes = ("stalled", "straggler", "memory", "lost")
evs = [r for r in recs if r["type"] == "event" and
       r["code"].split("-")[0] in codes and
       not (r["code"].startswith("straggler") and child >= 0 and
            (" rank %d (" % child) in r.get("text", ""))]
if evs:
    bad.append("detector events: %s" % evs[:3])
# Where the launcher runs daemons through srun, every node shows its own.
if path in ("hydra", "ompi") and len({n for n, c in helpers}) < 4:
    bad.append("launcher daemons not shown as helpers on every node: %s"
               % sorted(helpers))
if path in ("hydra-ssh", "ompi-ssh") and not helpers:
    bad.append("the launcher is not shown as a helper")
for b in bad[:10]:
    print("%s: %s" % (path, b))
if bad:
    sys.exit(1)
print("ok %s: ranks 0-3 once each on their nodes over %d samples a node, "
      "helpers %s, no flag, no detector event" %
      (path, min(per_node.values()), sorted(helpers)))
PY
		lab_fail "$path: the rank table is not one row per MPI rank, or a false alarm"
	lab_cancel "$job"
	job=""
done
echo PASS
