#!/bin/bash
# SPDX-License-Identifier: ISC
# group: cpu
# test-torch: an AI training job as torchrun starts it, one row per worker
# under its own RANK, and its straggler named by that RANK.
#
# tests/lab/jobs/torch.sh as $LAB_USER: Debian's python3-torch (CPU, gloo
# over TCP on the lab's links), 4 nodes, one agent a node (a per-node
# shell srun starts, SLURM_PROCID 0-3) with two workers each (RANK 0-7,
# LOCAL_RANK, WORLD_SIZE 8).  `jobtop -b --json -d 1` watches it for
# HEALTHY samples (default 20), then the file that makes worker SLOW_RANK
# (default 5) do four times the work between all-reduces is written, and
# jobtop goes on for FLAGBY + 4 more samples (FLAGBY default 15: beside
# the rest of the suite; the 10 of the issue is bench-diagnose's target,
# dp-strag, on a machine that runs the benchmark and its hog alone).  The
# check, on every sample after each node's first two:
#   - ranks 0-7 each once, on the node and with the pid its rank file
#     says, rank_var RANK and world 8; no other rank record (the agents'
#     SLURM_PROCID is no rank id);
#   - on every node the agent (bash) is a helper, without a rank id;
#   - the job record counts "ranks": 8 against "ntasks": 8 (the launcher's
#     world, where the scheduler counts 4 tasks: the agents);
#   - COMM% on every worker: its rank record names the family "gloo"
#     (rankmpi.family) on every sample, and carries a share
#     (rankmpi.share) on at least 3 of them;
#   - nothing flagged and no detector event before the slow phase;
#   - in the slow phase no other rank flagged and worker SLOW_RANK works
#     more; worker SLOW_RANK flagged straggler under its own RANK (its record's
#     flags, an event whose text begins "[NODE ]rank 5 (pid P)" and says
#     why: its time "in gloo" or its "% CPU" far from the others') within
#     FLAGBY of its node's samples after the file was written, and
#     nothing else flagged in the whole run (the others wait for it in
#     gloo, blocked in the kernel: the CPU rule, judged against the
#     others' level without the rank itself, names it).  With
#     TORCH_EXPECT_FLAG=0 a flag, if any, must name worker SLOW_RANK alone
#     but may come late or not at all.
# TORCH_ITERS and TORCH_SLEEP (tests/lab/jobs/torch.sh) set the work and
# the pause of a step.  KEEP=DIR keeps jobtop's output there.  About 70
# seconds.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
/usr/bin/python3 -c 'import torch.distributed as d; assert d.is_gloo_available()' \
	2>/dev/null || lab_skip "no python3-torch with gloo (tests/install-deps.sh installs it)"
command -v python3 >/dev/null || lab_skip "no python3"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
export HEALTHY=${HEALTHY:-20} FLAGBY=${FLAGBY:-15} SLOW_RANK=${SLOW_RANK:-5}
export LAB_SUBMIT_TIMEOUT=${LAB_SUBMIT_TIMEOUT:-120}
dir=$(mktemp -d "$LAB_DIR/torch.XXXXXX")
job=""
mon=""
# set +e: a monitor that ended already must not stop the job's cancel.
trap 'set +e; [ -z "$job" ] || lab_cancel "$job"; [ -z "$mon" ] || kill "$mon" 2>/dev/null; rm -rf "$dir"' EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"

t0=$SECONDS
job=$(lab_submit "$LAB_USER" torch \
	--export="ALL,TORCH_ITERS=${TORCH_ITERS:-30},TORCH_SLEEP=${TORCH_SLEEP:-0.095}") ||
	lab_fail "the torch job did not start: $(tail -5 "$LAB_RANKS"/slurm-*.out 2>/dev/null)"
while (($(lab_ranks "$job" | wc -l) < 8)); do
	((SECONDS - t0 < LAB_SUBMIT_TIMEOUT)) ||
		lab_fail "job $job: $(lab_ranks "$job" | wc -l) of 8 workers after ${LAB_SUBMIT_TIMEOUT}s: $(tail -5 "$LAB_RANKS/slurm-$job.out")"
	[ "$(lab_job_state "$job")" = RUNNING ] ||
		lab_fail "job $job is $(lab_job_state "$job"): $(tail -5 "$LAB_RANKS/slurm-$job.out")"
	sleep 0.5
done
lab_ranks "$job" >"$dir/ranks"
echo "job $job: 8 workers training after $((SECONDS - t0)) s: $(tr '\n' ';' <"$dir/ranks")"

n=$((HEALTHY + FLAGBY + 4))
lab_as "$LAB_USER" "$dir/jobtop" -b --json --no-record -d 1 -n "$n" "$job" \
	>"$dir/out.json" 2>"$dir/err" &
mon=$!
# The slow phase starts once every node has had HEALTHY samples (the
# output file may not exist yet: the background shell makes it).
nodes_seen() {
	local c
	c=$(grep -c '"type":"node"' "$dir/out.json" 2>/dev/null)
	echo "${c:-0}"
}
while (($(nodes_seen) < 4 * HEALTHY)); do
	kill -0 "$mon" 2>/dev/null || lab_fail "jobtop ended early: $(cat "$dir/err")"
	sleep 0.2
done
echo "$SLOW_RANK" >"$(lab_rankdir "$job")/slow.tmp"
mv "$(lab_rankdir "$job")/slow.tmp" "$(lab_rankdir "$job")/slow"
date +%s.%N >"$dir/slow-at"
wait "$mon" || lab_fail "jobtop failed: $(cat "$dir/err")"
mon=""
lab_cancel "$job"
job=""
[ -z "${KEEP:-}" ] || cp "$dir/out.json" "$KEEP/out-torch.json"

python3 - "$dir/out.json" "$dir/ranks" "$dir/slow-at" <<'PY' || lab_fail "torch: ranks, helpers or flags wrong"
import json, os, re, statistics, sys
out, rankfile, slowfile = sys.argv[1:4]
slow_rank, flagby = int(os.environ["SLOW_RANK"]), int(os.environ["FLAGBY"])
slow_at = float(open(slowfile).read())
want = {}
for line in open(rankfile):
    r, pid, host = line.split()
    want[int(r)] = (int(pid), host)
bad = []
if sorted(want) != list(range(8)):
    bad.append("rank files: %s" % want)
recs = [json.loads(l) for l in open(out)]
per_node = {}       # node -> [(node record, [rank records])]
for r in recs:
    if r["type"] == "node":
        per_node.setdefault(r["node"], []).append((r, []))
    elif r["type"] == "rank" and r["node"] in per_node:
        per_node[r["node"]][-1][1].append(r)
if len(per_node) != 4:
    bad.append("nodes with samples: %s" % sorted(per_node))
cpu = {}            # (phase, rank) -> [cpu]
rq = {}             # (phase, rank) -> [% of the time waiting for a CPU]
comm = {}           # (phase, rank) -> [COMM%]
fams = {}           # rank -> families named

for host, samples in sorted(per_node.items()):
    mine = sorted(r for r, (pid, h) in want.items() if h == host)
    for k, (node, rr) in enumerate(samples):
        helpers = [r for r in rr if r.get("rank.helper") == 1]
        if [r for r in helpers if "rank" in r]:
            bad.append("%s: a helper with a rank id: %s" % (host, helpers))
        if k < 2:
            continue    # the first samples: as in the MPI tests
        ids = sorted(r["rank"] for r in rr if "rank" in r)
        if ids != mine:
            bad.append("%s sample %d: rank ids %s, want %s: %s" % (
                host, k, ids, mine, [(r.get("rank"), r["pid"],
                r.get("rank.comm"), r.get("rank.rank_var")) for r in rr]))
        for r in rr:
            if "rank" not in r:
                continue
            if r["pid"] != want.get(r["rank"], (None,))[0] or \
               r.get("rank.rank_var") != "RANK" or r.get("rank.world") != 8:
                bad.append("%s: rank %d is pid %d (%s), %s, world %s; its "
                           "rank file says pid %s" % (host, r["rank"],
                           r["pid"], r.get("rank.comm"),
                           r.get("rank.rank_var"), r.get("rank.world"),
                           want.get(r["rank"], ("?",))[0]))
            ph = "slow" if node["time"] > slow_at + 3 else \
                 "healthy" if node["time"] < slow_at else None
            if "rank.cpu" in r and ph:
                cpu.setdefault((ph, r["rank"]), []).append(r["rank.cpu"])
            if "rank.rq_delay" in r and ph:     # ns/s: 1e7 is 1%
                rq.setdefault((ph, r["rank"]), []).append(
                    r["rank.rq_delay"] / 1e7)
            fams.setdefault(r["rank"], []).append(r.get("rankmpi.family"))
            if "rankmpi.share" in r:
                comm.setdefault((ph or "any", r["rank"]), []).append(
                    r["rankmpi.share"])
        if not [r for r in helpers if r.get("rank.comm") == "bash"]:
            bad.append("%s sample %d: the agent is no helper: %s" % (
                host, k, [(r.get("rank"), r.get("rank.helper"), r["pid"],
                           r.get("rank.comm")) for r in rr]))
for ph in ("healthy", "slow"):
    print("%s: median CPU %% per rank: %s" % (ph, " ".join(
        "%d:%.0f" % (i, statistics.median(cpu[(ph, i)]))
        for i in range(8) if (ph, i) in cpu)))
    print("%s: median COMM%% per rank: %s" % (ph, " ".join(
        "%d:%.0f" % (i, statistics.median(comm[(ph, i)]))
        for i in range(8) if (ph, i) in comm)))
    print("%s: median run-queue delay %% per rank: %s" % (ph, " ".join(
        "%d:%.0f" % (i, statistics.median(rq[(ph, i)]))
        for i in range(8) if (ph, i) in rq)))
for i in range(8):
    f = fams.get(i, [])
    n = sum(len(v) for (ph, k), v in comm.items() if k == i)
    if not f or any(x != "gloo" for x in f):
        bad.append("rank %d: COMM%% family %s, want gloo on every sample"
                   % (i, sorted(set(map(str, f)))))
    if n < 3:
        bad.append("rank %d: COMM%% on %d samples, want at least 3" % (i, n))
jobs = [r for r in recs if r["type"] == "job"]
if not jobs or (jobs[-1].get("ranks"), jobs[-1].get("ntasks")) != (8, 8):
    bad.append("job record: %s" % (jobs[-1:] or "none"))
else:
    print("job record: ranks %d of %d" % (jobs[-1]["ranks"],
                                         jobs[-1]["ntasks"]))
codes = ("stalled", "straggler", "memory", "lost")
evs = [e for e in recs if e["type"] == "event" and
       e["code"].split("-")[0] in codes]
flagged = [(n["time"], host, r.get("rank"), r.get("pid"), r["flags"])
           for host, s in per_node.items() for n, rr in s
           for r in [n] + rr if r.get("flags")]
early = [f for f in flagged if f[0] < slow_at] + \
        [e for e in evs if e["time"] < slow_at]
if early:
    bad.append("flags before the slow phase: %s" % early[:5])
spid, shost = want.get(slow_rank, (None, None))
other = [f for f in flagged if not (f[2] == slow_rank and
                                    f[4] == ["straggler"])]
if other:
    bad.append("other flags: %s" % other[:5])
# The event names the rank first, after its node where the text says it.
who = re.compile(r"^(%s )?rank %d \(pid %s\)" % (shost, slow_rank, spid))
sev = [e for e in evs if e["code"] == "straggler"]
# The slow worker computes four times as much while the others wait in
# gloo's all-reduce: its %CPU rises (23-29% against 10-13% measured).
# Its share of CPU time in gloo (COMM%) says little: gloo waits blocked
# in the kernel (not sampled), so a waiting rank's share comes from the
# 1 in 5 samples its little CPU gets.  The %CPU rule names it: each
# rank's level (the median of its last 5 samples) against the others'
# without it, with a floor that follows the job's noise; it judges beside
# COMM% since the ranks do not spin.  Measured in the lab after that
# change: flagged after 8, 8 and 9 samples of the slow phase, nobody else.
# Beside a busy loop per core (HOG=1) the workers get 10-13% and wait
# 14-18% for a CPU, the slow one gets 25% and waits 24%: the level's gap
# then sits near the distance the job's noise sets (once 12 samples); its
# demand (CPU plus run-queue delay, 49% against 27%) names it at once its
# level has moved (detect_hungry: "it works while they wait").
# CI's run of the suite (the other groups beside the lab: the eight
# workers at 13-15% CPU, each waiting 15-21% for one, the slow one at 27%
# waiting 20%, so its demand does not stand out) flagged it after 12
# samples, as the hog run before the hungry rule did: the level rule's
# 5-sample median and 5-sample persistence take 8 samples at best, and a
# gap near the noise's distance lets one near sample restart the count.
# So the flag within FLAGBY (15) samples is asked by default;
# TORCH_EXPECT_FLAG=0 accepts "rank 5 or nobody" (a loaded machine).
expect_flag = os.environ.get("TORCH_EXPECT_FLAG", "1") == "1"
if not sev and not expect_flag:
    cpu = {}
    for host, s in per_node.items():
        for n, rr in s:
            if n["time"] > slow_at + 3:
                for r in rr:
                    if r.get("rank") is not None and r.get("rank.cpu") is not None:
                        cpu.setdefault(r["rank"], []).append(r["rank.cpu"])
    med = {k: statistics.median(v) for k, v in cpu.items() if v}
    others = [v for k, v in med.items() if k != slow_rank]
    if slow_rank not in med or not others or \
            med[slow_rank] < 1.5 * statistics.median(others):
        bad.append("slow phase: rank %d does not work more: %s" %
                   (slow_rank, med))
    else:
        print("slow phase: rank %d at %.0f%% CPU, the others' median %.0f%%;"
              " not flagged (accepted under TORCH_EXPECT_FLAG=0)" %
              (slow_rank, med[slow_rank], statistics.median(others)))
elif not sev:
    bad.append("rank %d never flagged straggler" % slow_rank)
elif any(not who.match(e["text"]) or e["node"] != shost or
         ("in gloo" not in e["text"] and "% CPU" not in e["text"])
         for e in sev):
    bad.append("straggler events: %s" % sev[:3])
else:
    after = [n for n, rr in per_node.get(shost, [])
             if slow_at < n["time"] <= sev[0]["time"] + 0.001]
    print("rank %d flagged %.1f s and %d samples of %s after the slow "
          "phase began: %s" % (slow_rank, sev[0]["time"] - slow_at,
                               len(after), shost, sev[0]["text"]))
    if len(after) > flagby and expect_flag:
        bad.append("flagged only after %d samples, want at most %d" %
                   (len(after), flagby))
    elif len(after) > flagby:
        print("rank %d named, later than the %d samples asked for (the "
              "detector's 5-sample level and 5-sample persistence): "
              "TORCH_EXPECT_FLAG=1 fails on it" % (slow_rank, flagby))
if [e for e in evs if e["code"] != "straggler"]:
    bad.append("other detector events: %s" % [e for e in evs
                                               if e["code"] != "straggler"][:3])
for b in bad[:12]:
    print("torch: " + b)
sys.exit(1 if bad else 0)
PY
echo PASS
