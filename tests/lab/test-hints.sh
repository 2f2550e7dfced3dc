#!/bin/bash
# SPDX-License-Identifier: ISC
# group: cpu
# test-hints: the io-bound verdict on a real job (issue 25 item 3), where
# until now it was tested on synthetic samples only.  (mem-growth on a
# real job: test-mem-growth.)
# The iowait job (tests/lab/jobs/iowait.sh: rank 2 writes with
# O_DIRECT|O_DSYNC without end), with the kernel's delay accounting on
# (sysctl kernel.task_delayacct=1, as it was restored after), watched in
# batch JSON at -d 1 for 40 s: an "io-bound" event naming rank 2 on its
# node within 35 samples (at once on a quiet machine; on a loaded one the
# rank queues for a CPU between writes and the share that says it is of
# its time off the run queue), with the block I/O delay, and no io-bound
# event for another rank.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
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

# io-bound
dacct=$(sysctl -n kernel.task_delayacct 2>/dev/null) ||
	lab_skip "this kernel has no kernel.task_delayacct (delay accounting)"
sysctl -q -w kernel.task_delayacct=1 || lab_skip "cannot turn delay accounting on"
job=$(lab_submit "$LAB_USER" iowait) || lab_fail "could not start the iowait job"
host=$(lab_ranks "$job" | awk '$1 == 2 { print $3 }')
echo "job $job: rank 2 writes synchronously on $host (delay accounting on, was $dacct)"
lab_as "$LAB_USER" "$dir/jobtop" --json -d 1 -n 40 "$job" \
	>"$dir/io.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
python3 - "$dir/io.json" "$host" <<'PY' || lab_fail "no io-bound verdict for rank 2"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
host = sys.argv[2]
ev = [r for r in recs if r["type"] == "event" and r["code"] == "io-bound"
      and "is I/O-bound" in r["text"]]
states = [(r["time"], r.get("rank.state"), r.get("rank.blkio_delay"),
           round(r.get("rank.rq_delay", float("nan")) / 1e7, 1))
          for r in recs if r["type"] == "rank" and r.get("rank") == 2]
assert ev, "no io-bound event; rank 2 (time, state, blkio %%, rq %%): %s" % states[:25]
bad = [e for e in ev if e["node"] != host or "rank 2" not in e["text"]]
assert not bad, "io-bound for another rank: %s" % bad
e = ev[0]
assert "waiting on storage" in e["text"] or "block I/O delay" in e["text"], e["text"]
times = sorted({r["time"] for r in recs if r["type"] == "node" and r["node"] == host})
n = sum(1 for t in times if t <= e["time"])
assert n <= 35 + 1, "said at sample %d, want <= 35" % (n - 1)
print("ok: %s (sample %d)" % (e["text"], n - 1))
PY
