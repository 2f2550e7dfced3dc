#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# What `jobtop --stacks` costs on one node at 4 and 64 ranks a node: N
# local processes of build/tests/bench/stackwait (main -> bench_outer ->
# bench_wait_here -> pause()) carrying a job's variables (SLURM_JOB_ID,
# SLURM_PROCID as the rank), and `jobtop --stacks --json` on that job
# (localhost, the local transport).  Per N it prints the wall time of the
# whole command, the node's two takes and the CPU its probe and debuggers
# used (from the answer), jobtop's CPU with its children (the local probe
# and the debuggers), the bytes of the JSON and the ranks the deadline
# cut, and checks that every rank taken is in bench_wait_here.
# BENCH_STACKS_DEADLINE sets --stacks-deadline (default 10 s).
# Runs on this machine only (no lab); figures depend on the load.
# BENCH_STACKS_N overrides the list of sizes ("4 64"), BENCH_STACKS_GAP the
# gap (1 s).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
TESTBIN=${TESTBIN:-$TOP/build/tests}
JOB=990514
sizes=${BENCH_STACKS_N:-4 64}
gap=${BENCH_STACKS_GAP:-1}
deadline=${BENCH_STACKS_DEADLINE:-10}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-bstk.XXXXXX") || exit 1
pids=()
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; exit 1; }

[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
[ -x "$TESTBIN/bench/stackwait" ] || fail "run make tests-build"
command -v eu-stack >/dev/null 2>&1 || command -v gdb >/dev/null 2>&1 ||
    fail "no eu-stack or gdb"
tool=$(command -v eu-stack >/dev/null 2>&1 && echo eu-stack || echo gdb)
echo "tool $tool, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %9s %9s %9s %11s %12s %8s %s\n' ranks wall_s take1_ms \
    take2_ms node_cpu_ms jobtop_cpu_s json_B "not taken"
rc=0
for n in $sizes; do
	pids=()
	for ((i = 0; i < n; i++)); do
		SLURM_JOB_ID=$JOB SLURM_PROCID=$i "$TESTBIN/bench/stackwait" &
		pids+=($!)
	done
	sleep 1
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" env SLURM_JOB_ID=$JOB \
	    SLURM_JOB_NODELIST=localhost "$JOBTOP" --stacks --json \
	    --stacks-gap "$gap" --stacks-deadline "$deadline" >"$tmp/out.json" 2>"$tmp/err" ||
	    { cat "$tmp/err"; fail "$n ranks: jobtop --stacks failed"; }
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pids=()
	python3 - "$tmp/out.json" "$tmp/time" "$n" <<'PY' || rc=1
import json, sys
d = json.load(open(sys.argv[1]))
wall, u, s = (float(x) for x in open(sys.argv[2]).read().split()[-3:])
n = int(sys.argv[3])
node = d["nodes"][0]
def find(t, name):
    if t["frame"] == name:
        return t
    for k in t["children"]:
        r = find(k, name)
        if r:
            return r
w = find(d["tree"], "bench_wait_here")
# Every rank taken is in bench_wait_here, alone in that branch; ranks the
# deadline cut are counted, not failed: the bound is what is measured.
why = "; ".join("%s: %s" % (e["ids"], e["why"]) for e in d["errors"])
ok = w is not None and w["ids"] == d["tree"]["ids"] and \
    w["count"] == d["tree"]["count"] and d["tree"]["count"] > 0
print("%6d %9.2f %9d %9d %11d %12.2f %8d %s%s" % (n, wall,
      node["take_ms"][0], node["take_ms"][1], node["cpu_ms"], u + s,
      len(open(sys.argv[1]).read()), why or "0",
      "" if ok else "  FAIL: bench_wait_here holds %s of %s" %
      (w and w["ids"], d["tree"]["ids"])))
sys.exit(0 if ok else 1)
PY
done
exit $rc
