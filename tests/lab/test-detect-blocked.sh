#!/bin/bash
# SPDX-License-Identifier: ISC
# test-detect-blocked: batch JSON on the lab's blocked job (rank 2 blocks
# reading a pipe while its peers compute).  Rank 2's records carry
# "flags":["stalled"] within 5 samples (seq <= 4), an event record
# {"type":"event","code":"stalled",...} names it, and no other rank or
# node is flagged.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
dir=$(mktemp -d /tmp/jobtop-detect.XXXXXX)
job=""
trap '[ -z "$job" ] || lab_cancel "$job"; rm -rf "$dir"' EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"

job=$(lab_submit "$LAB_USER" blocked) || lab_fail "could not start the blocked job"
lab_as "$LAB_USER" "$dir/jobtop" --json --no-record -d 0.5 -n 10 "$job" \
	>"$dir/out.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
python3 - "$dir/out.json" <<'PY' || lab_fail "the records do not show the stall"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ranks = [r for r in recs if r["type"] == "rank" and "rank" in r]
nodes = [r for r in recs if r["type"] == "node"]
assert nodes and ranks, "no node or rank records"
assert all("flags" in r for r in nodes + ranks), "a record without flags"
first = {}
seq = {}
for r in nodes:
    seq[r["node"]] = r["seq"]
    assert r["flags"] == [], "node %s flagged %s" % (r["node"], r["flags"])
    # rank records follow their node record
for r in recs:
    if r["type"] == "node":
        cur = r["seq"]
    if r["type"] == "rank" and "rank" in r and "stalled" in r["flags"]:
        first.setdefault(r["rank"], cur)
assert list(first) == [2], "stalled ranks: %s" % first
assert first[2] <= 4, "rank 2 flagged at seq %d, not within 5 samples" % first[2]
others = [r for r in ranks if r["rank"] != 2 and r["flags"]]
assert not others, "other ranks flagged: %s" % others[:3]
evs = [r for r in recs if r["type"] == "event" and r["code"] == "stalled"]
assert len(evs) == 1, "stalled events: %s" % evs
assert "rank 2 (pid " in evs[0]["text"] and "pipe_read" in evs[0]["text"], evs[0]
print("ok: rank 2 stalled at seq %d: %s" % (first[2], evs[0]["text"]))
PY
echo PASS
