#!/bin/bash
# SPDX-License-Identifier: ISC
# group: cpu
# test-detect-healthy: no false alarm.  Batch JSON on the lab's healthy
# job at -d 0.5 for 1 minute (LONG=1: 10 minutes; SOAK_SECONDS=N for any
# other length): every node and rank record carries "flags": [] and no
# detector event (stalled, straggler, memory, lost) is ever emitted.
set -eu
. "$(dirname "$0")/lib.sh"
# The healthy job as the detectors meet it: every rank spins (lib.sh).
export LAB_HEALTHY_SPIN=1
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
secs=${SOAK_SECONDS:-60}
[ "${LONG:-0}" = 1 ] && secs=${SOAK_SECONDS:-600}
interval=0.5
count=$(awk -v s="$secs" -v i="$interval" 'BEGIN { print int(s / i) }')
dir=$(mktemp -d /tmp/jobtop-detect.XXXXXX)
job=""
trap '[ -z "$job" ] || lab_cancel "$job"; rm -rf "$dir"' EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "could not start the healthy job"
echo "watching healthy job $job for $secs s ($count samples at -d $interval)"
lab_as "$LAB_USER" "$dir/jobtop" --json --no-record -d "$interval" -n "$count" "$job" \
	>"$dir/out.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
python3 - "$dir/out.json" "$count" <<'PY' || lab_fail "a false alarm on the healthy job"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
count = int(sys.argv[2])
nodes = [r for r in recs if r["type"] == "node"]
ranks = [r for r in recs if r["type"] == "rank"]
per = {}
for r in nodes:
    per[r["node"]] = per.get(r["node"], 0) + 1
assert len(per) == 4 and min(per.values()) >= count - 1, "samples per node: %s" % per
flagged = [r for r in nodes + ranks if r.get("flags") != []]
assert not flagged, "%d flagged records, first: %s" % (len(flagged), flagged[0])
codes = ("stalled", "straggler", "memory", "lost")
evs = [r for r in recs if r["type"] == "event" and r["code"].split("-")[0] in codes]
assert not evs, "detector events: %s" % evs[:3]
states = [r for r in recs if r["type"] == "state" and r["state"] != "live"
          and not r["state"].startswith("connecting")]
print("ok: %d node and %d rank records, no flag, no detector event "
      "(non-live states: %d)" % (len(nodes), len(ranks), len(states)))
PY
echo PASS
