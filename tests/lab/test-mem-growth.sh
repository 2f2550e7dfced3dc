#!/bin/bash
# SPDX-License-Identifier: ISC
# test-mem-growth: the mem-growth verdict on a real job (issue 25 item 3:
# "memory growing toward the limit ... before the OOM"), where it was
# tested on synthetic samples only.  The lab's Slurm does not count memory
# as a resource and runs without job cgroups, as many sites with
# SelectTypeParameters=CR_Core do: jobtop takes the job's memory per node
# from squeue's MinMemory (--mem) and the job's use from its ranks'
# resident memory.
# The leak job (tests/lab/jobs/leak.sh: rank 1 leaks 8 MiB/s) with
# --mem=400M, watched in batch JSON at -d 1 for 30 s: a "mem-growth" event
# for rank 1's node, with the rate, the 0.4 GB limit and the time left,
# within 25 samples (the line needs 10 samples, the job's memory a quarter
# of the limit, 100 MiB, about 13 s, and then 3 samples), before the rank
# reaches the limit (about 50 s); no mem-growth for another node.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
dir=$(mktemp -d /tmp/jobtop-memgrow.XXXXXX)
job=""
cleanup() {
	set +e
	[ -z "$job" ] || lab_cancel "$job"
	rm -rf "$dir"
}
trap cleanup EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"

job=$(lab_submit "$LAB_USER" leak --mem=400M) || lab_fail "could not start the leak job"
host=$(lab_ranks "$job" | awk '$1 == 1 { print $3 }')
echo "job $job: rank 1 leaks 8 MiB/s on $host (--mem=400M)"
lab_as "$LAB_USER" "$dir/jobtop" --json -d 1 -n 30 "$job" \
	>"$dir/out.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
python3 - "$dir/out.json" "$host" <<'PY' || lab_fail "no mem-growth verdict for $host"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
host = sys.argv[2]
ev = [r for r in recs if r["type"] == "event" and r["code"] == "mem-growth"
      and "memory grows" in r["text"]]
rss = [(r["time"], r.get("rank.rss")) for r in recs
       if r["type"] == "rank" and r.get("rank") == 1]
assert ev, "no mem-growth event; rank 1 (time, rss): %s" % rss[:30]
bad = [e for e in ev if e["node"] != host]
assert not bad, "mem-growth for another node: %s" % bad
e = ev[0]
assert "of 0.4 GB" in e["text"] and "the limit in about" in e["text"], e["text"]
times = sorted({r["time"] for r in recs if r["type"] == "node" and r["node"] == host})
n = sum(1 for t in times if t <= e["time"])
assert n <= 25 + 1, "said at sample %d, want <= 25" % (n - 1)
print("ok: %s: %s (sample %d)" % (e["node"], e["text"], n - 1))
PY
echo PASS
