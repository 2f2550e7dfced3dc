#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-ranks-launchers: the rank id of every launcher's processes, from
# the table of rank variables (probes/ranks-find.c rf_rank_vars, jobtop.1
# "Ranks of the job"), and the agents above them as helpers.
#
# Fixture tests/data/fixtures/ranks-launchers (made by ranks-launchers.py
# beside it), sampled with
#	jobtop-probe --root FIXTURE --job ID --count 2 --interval 0.1
# and decoded by `jobtop --decode --json`.  For Slurm job 123: a per-node
# shell started by srun (SLURM_PROCID 1) with two torch workers (RANK,
# LOCAL_RANK, WORLD_SIZE 8), one with a data loader child, and the shell's
# child caught between fork and exec; a shell whose only child has not
# exec'd yet (rank 0 by SLURM_PROCID until then); MVAPICH2's mpispawn with
# MV2_COMM_WORLD_RANK ranks (one with PMI_RANK too: the stronger wins);
# horovodrun and HOROVOD_RANK workers; RANK without WORLD_SIZE, which is
# no torch rank.  PBS job 456 (HPE Cray PALS: PALS_RANKID, world from
# PMI_SIZE, and a per-node torch agent whose worker inherits PALS_RANKID
# beside its own RANK), LSF job 789 (jsrun: JSM_NAMESPACE_RANK under the
# job's jsmd, which has no id), Flux job f3AakAX9 (FLUX_TASK_RANK under
# flux-shell, and torchrun as a task whose worker inherits FLUX_TASK_RANK).
# Every rank record must carry its id, the variable it came from
# (rank.rank_var) and its launcher's world size (rank.world); agents and
# launchers are helpers without an id.  Then the fork-exec window: the two
# children above exec their workers (a new comm, RANK in the environment)
# while the probe samples; each becomes a rank of its own, and the shell
# that was rank 0 becomes a helper.  Last, jobtop watches job 123 as batch
# mode inside it (SLURM_NTASKS=4, the number of agents): its job record
# counts the ranks against the launchers' world (8), not the scheduler's 4.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures/ranks-launchers

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-rlaunch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -x "$JOBTOP" ] || fail "no $JOBTOP (run make)"
[ -d "$FIX/proc" ] || fail "fixture ranks-launchers is missing"
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 77; }

cat >"$tmp/check.py" <<'EOF'
import json, sys
job, path = sys.argv[1], sys.argv[2]
samples = []
for line in open(path):
    r = json.loads(line)
    if r["type"] == "node":
        samples.append([])
    elif r["type"] == "rank":
        samples[-1].append(r)
N = None
# pid -> rank id, helper, procs, world, rank_var
W = {
    "123": {5001: (N, 1, 1, N, N), 5002: (2, N, 2, 8, "RANK"),
            5004: (3, N, 1, 8, "RANK"), 5005: (N, 1, 1, N, N),
            5101: (0, N, 2, 4, "SLURM_PROCID"),
            5201: (N, 1, 1, N, N), 5202: (4, N, 1, 8, "MV2_COMM_WORLD_RANK"),
            5203: (5, N, 1, 8, "PMI_RANK"), 5301: (N, 1, 1, N, N),
            5302: (6, N, 1, 8, "HOROVOD_RANK"),
            5303: (7, N, 1, 8, "HOROVOD_RANK"),
            5401: (5, N, 1, 4, "SLURM_PROCID")},
    "456": {6001: (0, N, 1, 4, "PALS_RANKID"),
            6002: (1, N, 1, 4, "PALS_RANKID"), 6003: (N, 1, 1, N, N),
            6004: (4, N, 1, 8, "RANK")},
    "789": {7000: (N, 1, 1, N, N), 7001: (0, N, 1, 4, "JSM_NAMESPACE_RANK"),
            7002: (1, N, 1, 4, "JSM_NAMESPACE_RANK")},
    "f3AakAX9": {8000: (N, 1, 1, N, N),
                 8001: (0, N, 1, 3, "FLUX_TASK_RANK"),
                 8002: (1, N, 1, 3, "FLUX_TASK_RANK"), 8003: (N, 1, 1, N, N),
                 8004: (6, N, 1, 8, "RANK")},
}
want = W[job]
bad = []
if len(samples) != 2:
    bad.append("%d samples, want 2" % len(samples))
for i, s in enumerate(samples):
    got = sorted(r["pid"] for r in s)
    if got != sorted(want):
        bad.append("sample %d pids %s, want %s" % (i, got, sorted(want)))
    for r in s:
        if r["pid"] not in want:
            continue
        g = (r.get("rank"), r.get("rank.helper"), r.get("rank.procs"),
             r.get("rank.world"), r.get("rank.rank_var"))
        if g != want[r["pid"]]:
            bad.append("job %s sample %d pid %d (%s): got %r, want %r" %
                       (job, i, r["pid"], r.get("rank.comm"), g,
                        want[r["pid"]]))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF

for job in 123 456 789 f3AakAX9; do
	"$PROBE" --root "$FIX" --job "$job" --count 2 --interval 0.1 \
	    </dev/null >"$tmp/out.bin" 2>"$tmp/err" ||
	    fail "probe --job $job: $(cat "$tmp/err")"
	"$JOBTOP" --decode --json <"$tmp/out.bin" >"$tmp/out.json" ||
	    fail "jobtop --decode --json on job $job"
	python3 "$tmp/check.py" "$job" "$tmp/out.json" ||
	    fail "job $job: rank ids, helpers or worlds disagree with the fixture"
	echo "ok: job $job"
done

# The fork-exec window: 5005 (a helper now: its shell is one) and 5102
# (folded into the shell that is rank 0) exec a torch worker.
cp -R "$FIX" "$tmp/exec"
exec_worker() {	# PID RANK
	sed "s/^$1 (bash) /$1 (python3) /" "$tmp/exec/proc/$1/stat" \
	    >"$tmp/exec/stat.new"
	cat "$tmp/exec/stat.new" >"$tmp/exec/proc/$1/stat"
	printf 'RANK=%s\0LOCAL_RANK=0\0WORLD_SIZE=12\0' "$2" \
	    >>"$tmp/exec/proc/$1/environ"
}
(
	sleep 0.5
	exec_worker 5005 8
	exec_worker 5102 0
) &
"$PROBE" --root "$tmp/exec" --job 123 --count 12 --interval 0.1 </dev/null |
    "$JOBTOP" --decode --json >"$tmp/exec.json" || fail "probe on the exec fixture"
wait
python3 - "$tmp/exec.json" <<'EOF' || fail "a worker that execs after its agent was judged is not a rank"
import json, sys
seen = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "rank" and r["pid"] in (5005, 5101, 5102):
        seen.setdefault(r["pid"], []).append(
            (r.get("rank"), r.get("rank.helper"), r["rank.comm"]))
assert seen[5005][0] == (None, 1, "bash"), seen
assert seen[5005][-1] == (8, None, "python3"), seen
assert seen[5101][0] == (0, None, "bash"), seen
assert seen[5101][-1] == (None, 1, "bash"), seen
assert seen[5102][-1] == (0, None, "python3"), seen
print("ok: 5005 %s then %s; shell 5101 %s then %s; 5102 then %s" % (
    seen[5005][0], seen[5005][-1], seen[5101][0], seen[5101][-1],
    seen[5102][-1]))
EOF

# The monitor: ranks against the launchers' world, not the 4 agents.
cat >"$tmp/probe.sh" <<EOF
#!/bin/sh
n=\$#
while [ \$n -gt 0 ]; do
	if [ "\$1" = --uid ]; then shift 2; n=\$((n - 2)); continue; fi
	set -- "\$@" "\$1"; shift; n=\$((n - 1))
done
exec "$PROBE" --root "$FIX" "\$@"
EOF
chmod 755 "$tmp/probe.sh"
env SLURM_JOB_ID=123 SLURM_JOB_NODELIST=localhost SLURM_NTASKS=4 \
    JOBTOP_PROBE="$tmp/probe.sh" "$JOBTOP" -b --json -n 3 -d 0.2 \
    >"$tmp/mon.json" 2>"$tmp/mon.err" ||
    fail "jobtop on the fixture: $(cat "$tmp/mon.err")"
env SLURM_JOB_ID=123 SLURM_JOB_NODELIST=localhost SLURM_NTASKS=4 \
    JOBTOP_PROBE="$tmp/probe.sh" "$JOBTOP" -b -n 3 -d 0.2 \
    >"$tmp/mon.txt" 2>"$tmp/mon.err" ||
    fail "jobtop -b on the fixture: $(cat "$tmp/mon.err")"
python3 - "$tmp/mon.json" <<'EOF' || fail "the job record does not count the launchers' world"
import json, sys
jobs = [json.loads(l) for l in open(sys.argv[1])]
jobs = [r for r in jobs if r["type"] == "job"]
assert jobs, "no job record"
# ids 0, 2-7 (5 twice: MVAPICH2's and SLURM_PROCID's): 7 ranks of 8.
assert (jobs[-1].get("ranks"), jobs[-1].get("ntasks")) == (7, 8), jobs[-1]
print("ok: job record %s" % jobs[-1])
EOF
grep -q 'job 123: ranks 7 of 8$' "$tmp/mon.txt" ||
    fail "text job line: $(grep 'job 123' "$tmp/mon.txt" | tail -1)"
echo PASS
