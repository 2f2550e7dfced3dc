#!/bin/bash
# SPDX-License-Identifier: ISC
# test-stacks: `jobtop --stacks JOBID` on a hung MPI job through Slurm,
# MPICH and Open MPI, one rank a node on 4 nodes.
#
# tests/data/mpi/hang.c: rank 2 blocks in read() inside
# jobtop_stuck_in_read, ranks 0, 1 and 3 wait in MPI_Allreduce for it.
# Per launch path (hydra: mpiexec.hydra -launcher slurm; ompi:
# mpirun.openmpi through srun), `jobtop --stacks --json` as the job's
# owner over the SSH transports must give:
#  - every node answered (4 nodes, no error), the root holds ranks 0-3;
#  - the branch through jobtop_stuck_in_read holds rank 2 alone and is
#    marked odd; the branch through *MPI_Allreduce holds 0-1,3;
#  - no rank progressed (stuck 0-3, moved empty);
#  - each node's cost is there (take_ms > 0) and within the deadline.
# Then root's `jobtop --stacks` on the same job (hydra only): the same
# tree, the debugger ran as the owner (as_uid), and kernel stacks come.
# The text output has "1 rank [2]  <- odd one out" and the progress line.
# A generous --stacks-deadline: without eu-stack, gdb takes seconds a rank
# on a loaded machine.  MPI_PATHS="hydra ompi" picks paths.
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
paths=${MPI_PATHS:-hydra ompi}
export LAB_SUBMIT_TIMEOUT=${LAB_SUBMIT_TIMEOUT:-60}
dir=$(mktemp -d "$LAB_DIR/stacks.XXXXXX")
job=""
trap '[ -z "$job" ] || lab_cancel "$job"; rm -rf "$dir"' EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"
mpicc.mpich -O1 -g -o "$dir/hang.mpich" "$LAB_TOP/tests/data/mpi/hang.c" ||
	lab_fail "mpicc.mpich cannot build hang.c"
mpicc.openmpi -O1 -g -o "$dir/hang.openmpi" "$LAB_TOP/tests/data/mpi/hang.c" ||
	lab_fail "mpicc.openmpi cannot build hang.c"

# As in test-mpi-launch.sh: MPI over TCP on the nodes' eth0.
cat >"$dir/env.sh" <<'EOF'
export UCX_TLS=tcp,self UCX_NET_DEVICES=eth0
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self
export OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
EOF

hang_job() {
	local run
	case $1 in
	hydra) run="mpiexec.hydra -launcher slurm -n 4 -ppn 1 $dir/hang.mpich" ;;
	ompi) run="mpirun.openmpi -np 4 --map-by node $dir/hang.openmpi" ;;
	*) lab_fail "unknown MPI launch path $1" ;;
	esac
	cat <<EOF
#!/bin/bash
#SBATCH --job-name=hang-$1
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=15
set -eu
. $dir/env.sh
$run 2 "\$dir"
EOF
}

cat >"$dir/check.py" <<'PY'
import json, sys
path, out, want_as = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(out))
bad = []
def walk(n, acc):
    acc.append(n)
    for k in n["children"]:
        walk(k, acc)
    return acc
nodes = walk(d["tree"], [])
def first(pred):
    for n in nodes:
        if pred(n["frame"]):
            return n
if len(d["nodes"]) != 4 or any("error" in n for n in d["nodes"]):
    bad.append("nodes: %s" % d["nodes"])
if d["tree"]["ids"] != "0-3":
    bad.append("root holds %s" % d["tree"]["ids"])
s = first(lambda f: f == "jobtop_stuck_in_read")
if s is None or s["ids"] != "2":
    bad.append("jobtop_stuck_in_read holds %s" % (s and s["ids"]))
if not any(n.get("odd") and n["ids"] == "2" for n in nodes):
    bad.append("rank 2's branch is not the odd one out")
a = first(lambda f: f.endswith("MPI_Allreduce"))
if a is None or a["ids"] != "0-1,3":
    bad.append("*MPI_Allreduce holds %s" % (a and a["ids"]))
if d.get("stuck") != "0-3" or d.get("moved") != "":
    bad.append("stuck %s moved %s" % (d.get("stuck"), d.get("moved")))
for n in d["nodes"]:
    if n.get("take_ms", [0])[0] <= 0 or n.get("timed_out"):
        bad.append("cost of %s: %s" % (n["node"], n))
    if want_as != "-" and str(n.get("as_uid")) != want_as:
        bad.append("%s: the debugger ran as %s, not %s" %
                   (n["node"], n.get("as_uid"), want_as))
if want_as != "-" and "kernel" not in d:
    bad.append("root got no kernel stacks")
if d["errors"]:
    bad.append("errors: %s" % d["errors"])
for b in bad:
    print("%s: %s" % (path, b))
sys.exit(1 if bad else 0)
PY

for path in $paths; do
	hang_job "$path" >"$dir/job-$path.sh"
	job=$(lab_submit "$LAB_USER" "$dir/job-$path.sh") ||
		lab_fail "$path: the hung job did not start"
	# MPI_Init done everywhere: rank 2 is in its read by now.
	sleep 2
	lab_as "$LAB_USER" "$dir/jobtop" --stacks --json --stacks-gap 2 \
		--stacks-deadline 60 "$job" >"$dir/out-$path.json" 2>"$dir/err" ||
		lab_fail "$path: jobtop --stacks failed: $(cat "$dir/err")"
	python3 "$dir/check.py" "$path" "$dir/out-$path.json" - ||
		lab_fail "$path: the merged tree (above)"
	lab_as "$LAB_USER" "$dir/jobtop" --stacks --stacks-gap 1 \
		--stacks-deadline 60 "$job" >"$dir/out-$path.txt" 2>"$dir/err" ||
		lab_fail "$path: jobtop --stacks (text) failed: $(cat "$dir/err")"
	grep -q '^ *+- 1 rank \[2\]  <- odd one out$' "$dir/out-$path.txt" &&
	grep -q 'no progress (same call path in both takes): 4 ranks \[0-3\]' \
		"$dir/out-$path.txt" ||
		{ cat "$dir/out-$path.txt"; lab_fail "$path: the text tree"; }
	if [ "$path" = hydra ]; then
		uid=$(id -u "$LAB_USER")
		lab_as root "$dir/jobtop" --stacks --json --stacks-gap 1 \
			--stacks-deadline 60 "$job" >"$dir/root-$path.json" 2>"$dir/err" ||
			lab_fail "root: jobtop --stacks failed: $(cat "$dir/err")"
		python3 "$dir/check.py" "root-$path" "$dir/root-$path.json" \
			"$uid" || lab_fail "root: the merged tree (above)"
	fi
	echo "ok $path: rank 2 alone in jobtop_stuck_in_read, 0-1,3 in" \
	    "MPI_Allreduce, none progressed"
	lab_cancel "$job"
	job=""
done
echo PASS
