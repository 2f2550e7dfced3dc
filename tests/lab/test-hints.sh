#!/bin/bash
# SPDX-License-Identifier: ISC
# test-hints: the io-bound and mem-growth verdicts on real jobs (issue 25
# item 3), where until now they were tested on synthetic samples only.
#  1. The leak job (tests/lab/jobs/leak.sh: rank 1 adds 8 MiB a second
#     under --mem=400M), batch JSON at -d 1 for up to SECS (default 45) s:
#     a "mem-growth" event for rank 1's node, saying the slope and the
#     time to the limit, comes before any OOM kill or "memory" flag
#     ends the story, within 12 samples of the node's memory passing a
#     quarter of the limit; no other node gets one.
#  2. The iowait job (tests/lab/jobs/iowait.sh: rank 2 writes with
#     O_DIRECT|O_DSYNC without end), with the kernel's delay accounting on
#     (sysctl kernel.task_delayacct=1, as it was restored after): an
#     "io-bound" event naming rank 2 on its node within 20 samples, with
#     the block I/O delay, and no io-bound event for another rank.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
secs=${SECS:-45}
dir=$(mktemp -d /tmp/jobtop-hints.XXXXXX)
job=""
dacct=""
cleanup() {
	set +e
	[ -z "$job" ] || lab_cancel "$job"
	[ -z "$dacct" ] || sysctl -q -w kernel.task_delayacct="$dacct"
	rm -rf "$dir"
}
trap cleanup EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"

# 1. mem-growth
job=$(lab_submit "$LAB_USER" leak) || lab_fail "could not start the leak job"
host=$(lab_ranks "$job" | awk '$1 == 1 { print $3 }')
echo "job $job: rank 1 leaks 8 MiB/s on $host under --mem=400M"
# -n: the job's rank 1 is OOM-killed after about 50 s; stop before.
lab_as "$LAB_USER" "$dir/jobtop" --json -d 1 -n "$secs" "$job" \
	>"$dir/leak.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
lab_cancel "$job"
job=""
python3 - "$dir/leak.json" "$host" <<'PY' || lab_fail "no mem-growth verdict for the leak"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
host = sys.argv[2]
ev = [r for r in recs if r["type"] == "event" and r["code"] == "mem-growth"
      and "MB/s" in r["text"]]
assert ev, "no mem-growth event; events: %s" % [
    (r["code"], r["text"][:80]) for r in recs if r["type"] == "event"][:20]
assert all(e["node"] == host for e in ev), "mem-growth elsewhere: %s" % ev
e = ev[0]
assert "MB/s" in e["text"] and "the limit in about" in e["text"], e["text"]
# The node's memory and limit, from its records: when did it pass a quarter?
nodes = [r for r in recs if r["type"] == "node" and r["node"] == host]
quarter = None
for r in nodes:
    mem = r.get("cgroup.mem_current")
    lim = r.get("cgroup.mem_max")
    if mem and lim and mem > lim / 4:
        quarter = r["time"]
        break
oom = [r for r in recs if r["type"] == "event" and (r["code"] == "oom"
       or "OOM" in r["text"]) and r["time"] < e["time"]]
assert not oom, "the OOM came first: %s" % oom[0]
if quarter is not None:
    n = sum(1 for r in nodes if quarter <= r["time"] <= e["time"])
    assert n <= 12 + 1, "said %d samples after a quarter of the limit" % (n - 1)
    print("ok: %s (%d samples after a quarter of the limit)" % (e["text"], n - 1))
else:
    print("ok: %s (the node's records name no limit field: sample count not checked)" % e["text"])
PY

# 2. io-bound
dacct=$(sysctl -n kernel.task_delayacct 2>/dev/null) ||
	lab_skip "this kernel has no kernel.task_delayacct (delay accounting)"
sysctl -q -w kernel.task_delayacct=1 || lab_skip "cannot turn delay accounting on"
job=$(lab_submit "$LAB_USER" iowait) || lab_fail "could not start the iowait job"
host=$(lab_ranks "$job" | awk '$1 == 2 { print $3 }')
echo "job $job: rank 2 writes synchronously on $host (delay accounting on, was $dacct)"
lab_as "$LAB_USER" "$dir/jobtop" --json -d 1 -n 25 "$job" \
	>"$dir/io.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
python3 - "$dir/io.json" "$host" <<'PY' || lab_fail "no io-bound verdict for rank 2"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
host = sys.argv[2]
ev = [r for r in recs if r["type"] == "event" and r["code"] == "io-bound"
      and "is I/O-bound" in r["text"]]
states = [(r["time"], r.get("rank.state"), r.get("rank.blkio_delay"))
          for r in recs if r["type"] == "rank" and r.get("rank") == 2]
assert ev, "no io-bound event; rank 2 (time, state, blkio): %s" % states[:25]
bad = [e for e in ev if e["node"] != host or "rank 2" not in e["text"]]
assert not bad, "io-bound for another rank: %s" % bad
e = ev[0]
assert "waiting on storage" in e["text"] or "block I/O delay" in e["text"], e["text"]
times = sorted({r["time"] for r in recs if r["type"] == "node"})
n = sum(1 for t in times if t <= e["time"])
assert n <= 20 + 1, "said at sample %d, want <= 20" % (n - 1)
print("ok: %s (sample %d)" % (e["text"], n - 1))
PY
