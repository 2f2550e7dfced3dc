#!/bin/bash
# SPDX-License-Identifier: ISC
# group: cpu
# test-pinned: the pinning verdict (issue 25 item 3).  The pinned job
# (tests/lab/jobs/pinned.sh: 2 ranks on one 2-CPU node, both under
# `taskset -c 0`) watched in batch JSON at -d 1 for SECS (default 10) s,
# recorded: their rank records carry "rank.cpus_allowed": 1 and
# "rank.processor": 0; a "pinned" event within 6 samples says
# "ranks 0 and 1 share CPU 0 while CPU 1 is ..." with the hint "check
# --cpu-bind or taskset" (CPU 1 "idle" when nothing else runs on the lab);
# the recording's replay has the event, and its report's Hints line the
# same text.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
secs=${SECS:-10}
dir=$(mktemp -d /tmp/jobtop-pinned.XXXXXX)
job=""
trap '[ -z "$job" ] || lab_cancel "$job"; rm -rf "$dir"' EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"
install -d -m 700 -o "$LAB_USER" "$dir/out"

job=$(lab_submit "$LAB_USER" pinned) || lab_fail "could not start the pinned job"
host=$(lab_ranks "$job" | awk '{ print $3; exit }')
echo "job $job: 2 ranks under taskset -c 0 on $host"
lab_as "$LAB_USER" "$dir/jobtop" --json -o "$dir/out/p.jtr" -d 1 -n "$secs" \
	"$job" >"$dir/p.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
python3 - "$dir/p.json" "$host" <<'PY' || lab_fail "no pinning verdict"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
host = sys.argv[2]
aff = {(r["rank"], r.get("rank.cpus_allowed"), r.get("rank.processor"))
       for r in recs if r["type"] == "rank" and r.get("rank") is not None
       and "rank.cpus_allowed" in r}
assert (0, 1, 0) in aff and (1, 1, 0) in aff, "affinity: %s" % aff
times = sorted({r["time"] for r in recs if r["type"] == "node"})
ev = [r for r in recs if r["type"] == "event" and r["code"] == "pinned"]
assert ev, "no pinned event"
e = ev[0]
assert e["node"] == host and "ranks 0 and 1 share CPU 0 while CPU 1 is" in e["text"] \
    and "check --cpu-bind or taskset" in e["text"], "the event: %s" % e
n = sum(1 for t in times if t <= e["time"])
assert n <= 6 + 1, "said at sample %d, want <= 6" % (n - 1)
print("ok: %s (sample %d)" % (e["text"], n - 1))
PY
lab_as "$LAB_USER" "$dir/jobtop" -r "$dir/out/p.jtr" -b --json >"$dir/r.json" ||
	lab_fail "replay failed"
grep '"code":"pinned"' "$dir/r.json" | grep -q "check --cpu-bind or taskset" ||
	lab_fail "the replay lacks the pinned event"
lab_as "$LAB_USER" "$dir/jobtop" report "$dir/out/p.jtr" -o "$dir/out/r.html" ||
	lab_fail "report failed"
python3 - "$dir/out/r.html" <<'PY' || lab_fail "the report lacks the hint"
import html, re, sys
t = html.unescape(re.sub(r"<[^>]+>", " ", open(sys.argv[1]).read()))
m = re.search(r"Hints\s+([^\n]*share CPU 0[^\n]*check --cpu-bind or taskset)", t)
assert m, "no Hints line with the pinning: %r" % t[t.find("Worst rank"):][:400]
print("ok: report: " + m.group(1)[:160])
PY
echo PASS
