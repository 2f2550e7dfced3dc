#!/bin/bash
# SPDX-License-Identifier: ISC
# group: cpu
# test-detect-noisy: the rank detectors under noise (issue 25 item 2).
# A CPU hog (`sh -c 'while :; do :; done'`) runs on node2 beside the job
# the whole time.
#  1. The straggler job (tests/lab/jobs/straggler.sh: rank 3 at 25% duty,
#     the others flat out), batch JSON at -d 1 for SECS (default 20) s:
#     rank 3 is flagged straggler (its rank record's "flags" and a
#     "straggler" event naming rank 3 and its node) within 15 samples of
#     the first sample with rates (NOISY_BOUND; the 10 of the issue is
#     bench-diagnose's target on a quiet machine), and no other rank or
#     node is flagged.
#  2. The healthy job with the same hog for HEALTHY_SECS (default 30;
#     LONG=1: 600) s: no flag, no detector event (stalled, straggler,
#     memory, lost, pinned, io-bound, mem-growth).
set -eu
. "$(dirname "$0")/lib.sh"
# The healthy job as the detectors meet it: every rank spins (lib.sh).
export LAB_HEALTHY_SPIN=1
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
secs=${SECS:-20}
hsecs=${HEALTHY_SECS:-30}
[ "${LONG:-0}" = 1 ] && hsecs=${HEALTHY_SECS:-600}
dir=$(mktemp -d /tmp/jobtop-noisy.XXXXXX)
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

lab_node_exec node2 sh -c 'while :; do :; done' &
hog=$!
echo "CPU hog on node2 (pid $hog)"

job=$(lab_submit "$LAB_USER" straggler) || lab_fail "could not start the straggler job"
read -r _ pid host < <(lab_ranks "$job" | awk '$1 == 3')
[ -n "$host" ] || lab_fail "no rank 3 in job $job"
echo "job $job: rank 3 (pid $pid) on $host at 25% duty"
lab_as "$LAB_USER" "$dir/jobtop" --json --no-record -d 1 -n "$secs" "$job" \
	>"$dir/s.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
lab_cancel "$job"
job=""
python3 - "$dir/s.json" "$host" "$pid" <<'PY' || lab_fail "the straggler was not flagged in time"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
host, pid = sys.argv[2], int(sys.argv[3])
times = sorted({r["time"] for r in recs if r["type"] == "node" and r["node"] == host})
assert len(times) >= 12, "only %d samples of %s" % (len(times), host)
first = times[0]
flagged = [r for r in recs if r["type"] == "rank" and "straggler" in r.get("flags", [])]
if not flagged:
    # What the detector saw: each rank's %CPU and run-queue delay a sample.
    for r in sorted({(x["node"], x.get("rank")) for x in recs
                     if x["type"] == "rank" and x.get("rank") is not None}):
        cpu = ["%.0f/%s" % (x.get("rank.cpu", float("nan")),
                            "%.0f" % x["rank.rq_delay"] if "rank.rq_delay" in x else "-")
               for x in recs if x["type"] == "rank" and (x["node"], x.get("rank")) == r]
        print("  %s rank %s cpu/rq: %s" % (r[0], r[1], " ".join(cpu)))
assert flagged, "rank 3 never flagged"
others = [r for r in flagged if r.get("pid") != pid or r["node"] != host]
assert not others, "other ranks flagged: %s" % others[:2]
nodes = [r for r in recs if r["type"] == "node" and r.get("flags")]
assert not nodes, "nodes flagged: %s" % nodes[:2]
t = min(r["time"] for r in flagged)
n = sum(1 for x in times if x <= t)
# The issue's 10 samples are the diagnosis benchmark's target (a quiet
# machine, one hog): bench-diagnose measured 8.  Here the rest of the
# suite runs beside the lab and adds its own noise (sample 10 in the full
# run of f8911bf, 5-8 alone): the test asks for 15.
bound = int(__import__("os").environ.get("NOISY_BOUND", "15"))
assert n <= bound + 1, "flagged at sample %d of %s (after the baseline), want <= %d" % (n - 1, host, bound)
ev = [r for r in recs if r["type"] == "event" and r["code"] == "straggler"]
assert ev and "rank 3" in ev[0]["text"] and ev[0]["node"] == host, "events: %s" % ev
print("ok: rank 3 flagged at sample %d: %s" % (n - 1, ev[0]["text"]))
PY

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "could not start the healthy job"
echo "healthy job $job for $hsecs s with the hog"
lab_as "$LAB_USER" "$dir/jobtop" --json --no-record -d 1 -n "$hsecs" "$job" \
	>"$dir/h.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
python3 - "$dir/h.json" <<'PY' || lab_fail "a false alarm on the healthy job with a hog"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
flagged = [r for r in recs if r["type"] in ("node", "rank") and r.get("flags")]
assert not flagged, "%d flagged records, first: %s" % (len(flagged), flagged[0])
codes = ("stalled", "straggler", "memory", "lost", "pinned", "io-bound", "mem-growth")
evs = [r for r in recs if r["type"] == "event" and
       any(r["code"] == c or r["code"] == c + "-cleared" for c in codes)]
assert not evs, "detector events: %s" % evs[:3]
print("ok: %d records, no flag, no detector event" % len(recs))
PY
echo PASS
