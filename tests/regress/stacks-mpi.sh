#!/bin/sh
# SPDX-License-Identifier: ISC
# stacks-mpi: `jobtop --stacks` on real hung MPI jobs on this machine (the
# job's variables, localhost: the local transport), MPICH and Open MPI.
# tests/data/mpi/hang.c with 4 ranks: rank 2 blocks in read() inside
# jobtop_stuck_in_read, ranks 0, 1 and 3 wait in MPI_Allreduce.  Asserts,
# on the JSON and the text:
#  - the branch through jobtop_stuck_in_read holds rank 2 alone, marked as
#    the odd one out; the branch through *MPI_Allreduce holds 0-1,3;
#  - no rank progressed between the two takes (all four "stuck");
#  - as root, kernel stacks come too (rank 2's through a read; the
#    spinning ranks have none while on a CPU);
#  - MPICH again with the job run by nobody and the node's half
#    (jobtop-probe --stacks) run as root: the debugger ran as nobody, and
#    rank 2's stack is there;
#  - the same while the node's sampling probe is stopped for 3.5 s (the
#    node lost by its silence, its stacks still come);
#  - bad options: one line, exit 2; a node that cannot answer: the tree
#    says why, one line on stderr, exit 1.
# A generous --stacks-deadline: gdb (where eu-stack is missing) takes
# seconds a rank on a loaded machine.  Skips (77) without eu-stack and
# gdb, or without either MPI.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
JOB=990512

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-stk.XXXXXX") || exit 1
chmod 755 "$tmp"
job_pid=
cleanup() {
	[ -n "$job_pid" ] && kill -- -"$job_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
command -v eu-stack >/dev/null 2>&1 || command -v gdb >/dev/null 2>&1 ||
    { echo "no eu-stack or gdb"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "no python3"; exit 77; }
flavours=
command -v mpicc.mpich >/dev/null 2>&1 &&
    command -v mpirun.mpich >/dev/null 2>&1 && flavours="mpich"
command -v mpicc.openmpi >/dev/null 2>&1 &&
    command -v mpirun.openmpi >/dev/null 2>&1 &&
    flavours="$flavours openmpi"
[ -n "$flavours" ] || { echo "no MPICH or Open MPI"; exit 77; }

# The job: FLAVOUR [USER]; in its own process group (job_pid) so that
# every rank goes at the end.
start_job() {
	case $1 in
	mpich) run="mpirun.mpich -n 4" ;;
	openmpi) run="mpirun.openmpi --allow-run-as-root --oversubscribe \
	    --mca btl self,vader -np 4" ;;
	esac
	if [ -n "${2:-}" ]; then
		setsid setpriv --reuid="$(id -u "$2")" --regid="$(id -g "$2")" \
		    --clear-groups env SLURM_JOB_ID=$JOB HOME="$tmp" \
		    $run "$tmp/hang.$1" 2 >"$tmp/job.out" 2>&1 &
	else
		SLURM_JOB_ID=$JOB setsid $run "$tmp/hang.$1" 2 \
		    >"$tmp/job.out" 2>&1 &
	fi
	job_pid=$!
	# Until the four ranks run (MPI_Init done: rank 2 in its read).
	i=0
	while [ $i -lt 100 ]; do
		n=$(pgrep -c -f "^$tmp/hang.$1 2" 2>/dev/null)
		[ "${n:-0}" -ge 4 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	sleep 2
}

stop_job() {
	kill -- -"$job_pid" 2>/dev/null
	wait "$job_pid" 2>/dev/null
	job_pid=
}

cat >"$tmp/check.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want_as = sys.argv[2] if len(sys.argv) > 2 else ""
def walk(n, path, out):
    path = path + [n["frame"]]
    out.append((path, n))
    for k in n["children"]:
        walk(k, path, out)
nodes = []
walk(d["tree"], [], nodes)
def branch(pred):
    # The outermost node whose frame matches.
    for path, n in nodes:
        if pred(n["frame"]):
            return n
    return None
def err(msg):
    print("FAIL:", msg)
    print(json.dumps(d)[:3000])
    sys.exit(1)
if d["ids"] != "ranks" or d["takes"] != 2:
    err("ids %s takes %s" % (d["ids"], d["takes"]))
if d["tree"]["ids"] != "0-3":
    err("the root holds %s, not 0-3" % d["tree"]["ids"])
s = branch(lambda f: f == "jobtop_stuck_in_read")
if s is None or s["ids"] != "2" or s["count"] != 1:
    err("jobtop_stuck_in_read holds %s" % (s and s["ids"]))
# The odd one out is the branch that leads there.
odd = [n for path, n in nodes if n.get("odd")]
if not any(n["ids"] == "2" for n in odd):
    err("rank 2's branch is not marked odd")
a = branch(lambda f: f.endswith("MPI_Allreduce"))
if a is None or a["ids"] != "0-1,3" or a["count"] != 3:
    err("*MPI_Allreduce holds %s" % (a and a["ids"]))
if d["stuck"] != "0-3" or d["moved"] != "":
    err("stuck %s moved %s" % (d["stuck"], d["moved"]))
n = d["nodes"][0]
if n.get("error") or n["tasks"] != 4 or not n["take_ms"][0] > 0:
    err("node %s" % n)
if want_as and str(n.get("as_uid")) != want_as:
    err("as_uid %s, not %s" % (n.get("as_uid"), want_as))
k = d.get("kernel")
# A rank on a CPU has no kernel stack to read: rank 2 sleeps.
def expand(r):
    out = []
    for part in filter(None, r.split(",")):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out
if k is None or 2 not in expand(k["ids"]):
    err("no kernel stack of rank 2 as root")
def kwalk(n, out):
    out.append(n)
    for c in n["children"]:
        kwalk(c, out)
kn = []
kwalk(k, kn)
if not any("read" in x["frame"] and x["ids"] == "2" for x in kn):
    err("rank 2's kernel stack has no read")
if d["errors"]:
    err("errors %s" % d["errors"])
EOF

for fl in $flavours; do
	cc=mpicc.$fl
	$cc -O1 -g -o "$tmp/hang.$fl" "$TOP/tests/data/mpi/hang.c" ||
	    fail "$cc cannot build hang.c"
	chmod 755 "$tmp/hang.$fl"
	start_job "$fl"
	SLURM_JOB_ID=$JOB SLURM_JOB_NODELIST=localhost "$JOBTOP" --stacks \
	    --json --stacks-gap 2 --stacks-deadline 60 >"$tmp/$fl.json" \
	    2>"$tmp/$fl.err" ||
	    fail "$fl: --stacks --json exited $?: $(cat "$tmp/$fl.err") $(head -c 800 "$tmp/$fl.json")"
	python3 "$tmp/check.py" "$tmp/$fl.json" || fail "$fl: the JSON tree"
	SLURM_JOB_ID=$JOB SLURM_JOB_NODELIST=localhost "$JOBTOP" --stacks \
	    --stacks-gap 1 --stacks-deadline 60 >"$tmp/$fl.txt" \
	    2>"$tmp/$fl.err" ||
	    fail "$fl: --stacks exited $?: $(cat "$tmp/$fl.err")"
	grep -q '^ *+- 1 rank \[2\]  <- odd one out$' "$tmp/$fl.txt" ||
	    { cat "$tmp/$fl.txt"; fail "$fl: the text has no odd rank 2"; }
	grep -q 'no progress (same call path in both takes): 4 ranks \[0-3\]' \
	    "$tmp/$fl.txt" || { cat "$tmp/$fl.txt"; fail "$fl: progress"; }
	grep -q '^cost: .* s a take on the slowest node (localhost)' \
	    "$tmp/$fl.txt" || { cat "$tmp/$fl.txt"; fail "$fl: no cost"; }
	# A node whose samples stop for a while is busy, not gone: its
	# stacks still count.  The sampling probe (jobtop's child, not the
	# --stacks one) is stopped for 3.5 s while the stacks are taken 3 s
	# apart: the session says "lost: no data for 2.6 s" (2.5 intervals),
	# and once that made the node fail ("the node's connection ended
	# before its stacks came"): a probe starved of CPU beside a busy job.
	SLURM_JOB_ID=$JOB SLURM_JOB_NODELIST=localhost "$JOBTOP" --stacks \
	    --json --stacks-gap 3 --stacks-deadline 60 >"$tmp/$fl.lost" \
	    2>"$tmp/$fl.err" &
	jt=$!
	sp=
	i=0
	while [ $i -lt 100 ] && [ -z "$sp" ]; do
		for p in $(pgrep -P $jt -f 'jobtop-probe'); do
			tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
			    grep -q -- '--stacks' || sp=$p
		done
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$sp" ] || fail "$fl: no sampling probe under jobtop --stacks"
	sleep 1
	kill -STOP "$sp" 2>/dev/null
	sleep 3.5
	kill -CONT "$sp" 2>/dev/null
	wait $jt ||
	    fail "$fl: a silent probe: --stacks exited $?: $(cat "$tmp/$fl.err") $(head -c 800 "$tmp/$fl.lost")"
	python3 "$tmp/check.py" "$tmp/$fl.lost" ||
	    fail "$fl: a silent probe: the JSON tree"
	stop_job
	echo "ok: $fl: rank 2 alone in jobtop_stuck_in_read, 0-1,3 in" \
	    "MPI_Allreduce, none progressed"
done

# Root on another user's job: the node's half (jobtop-probe --stacks,
# which jobtop runs on each node) drops to that user for the debugger.
# (jobtop itself takes a job named by its variables alone to be the
# caller's, so the probe is run here as jobtop runs it.)
case " $flavours " in
*" mpich "*)
	if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null &&
	    [ "$(id -u)" = 0 ]; then
		start_job mpich nobody
		args=
		for p in $(pgrep -f "^$tmp/hang.mpich 2"); do
			args="$args $p:$p"
		done
		"$PROBE" --stacks --gap 500 --deadline 60000 $args >"$tmp/nb.out" \
		    2>"$tmp/nb.err" || fail "nobody's job: exit $?"
		grep -q "^as	$(id -u nobody)\$" "$tmp/nb.out" ||
		    { cat "$tmp/nb.out"; fail "nobody's job: not as nobody"; }
		grep -q '^S	[0-9]*	\(.*	\)\{0,1\}main	jobtop_stuck_in_read	' \
		    "$tmp/nb.out" || { cat "$tmp/nb.out";
		    fail "nobody's job: no stuck stack"; }
		grep -q '^E	' "$tmp/nb.out" &&
		    { cat "$tmp/nb.out"; fail "nobody's job: errors"; }
		stop_job
		echo "ok: nobody's job, the debugger ran as uid $(id -u nobody)"
	fi
	;;
esac

# Bad options: one line, exit 2.
for bad in "--stacks-gap -1" "--stacks-gap x" "--stacks-frames 0" \
    "--stacks-deadline 0"; do
	# shellcheck disable=SC2086
	"$JOBTOP" --stacks $bad -w localhost >"$tmp/o" 2>"$tmp/e"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && [ ! -s "$tmp/o" ] ||
	    fail "$bad: exit $rc, $(cat "$tmp/e")"
done
echo "ok: bad options refused"

# No node answers: the tree names each node and why (exit 1), and one
# line on stderr says so (the tree may go to a file).
"$JOBTOP" --stacks --json -w nosuchhost.invalid >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] &&
    grep -q '^jobtop: --stacks: no node answered (nosuchhost.invalid: ' "$tmp/e" &&
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = d["nodes"]
sys.exit(0 if len(n) == 1 and n[0]["node"] == "nosuchhost.invalid" and
         "resolve" in n[0]["error"] else 1)' "$tmp/o" ||
    fail "an unknown node: exit $rc, $(cat "$tmp/e") $(head -c 400 "$tmp/o")"
echo "ok: a node that cannot answer: its reason, one line, exit 1"
exit 0
