#!/bin/sh
# SPDX-License-Identifier: ISC
# export-alloc: the job's allocation (CPUs, memory, time limit, partition:
# trailing META fields the scheduler filled) reaches every export and the
# report's verdict, and a recording without it (tests/data/rec, made by
# 0.1.0) still reads and says the allocation is unknown.  The allocated
# recording is that one with its META rewritten (tests/data/jtr-craft.py
# alloc): 2 CPUs, 1 GiB, 1 h, partition "lab".
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
OLD=$TOP/tests/data/rec/v0.1.0-slurm-2node.jtr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
REC=$tmp/alloc.jtr
python3 "$TOP/tests/data/jtr-craft.py" alloc "$OLD" "$REC" 2 1073741824 \
    3602 lab || fail "jtr-craft alloc"

# JSON: the meta record has the four keys; the old one has none of them.
"$JOBTOP" export --json "$REC" -o "$tmp/a.json" || fail "export --json"
"$JOBTOP" export --json "$OLD" -o "$tmp/o.json" || fail "export --json old"
python3 - "$tmp/a.json" "$tmp/o.json" <<'PY' || fail "JSON meta"
import json, sys
a = json.loads(open(sys.argv[1]).readline())
o = json.loads(open(sys.argv[2]).readline())
assert a["type"] == "meta" and o["type"] == "meta", (a, o)
want = {"cpus": 2, "mem": 1073741824, "time_limit": 3600, "partition": "lab"}
for k, v in want.items():
    assert a.get(k) == v, (k, a.get(k))
    assert k not in o, (k, o)
PY

# CSV: job rows with a numeric value and a unit; unknown: empty value.
"$JOBTOP" export --csv "$REC" -o "$tmp/a.csv" || fail "export --csv"
"$JOBTOP" export --csv "$OLD" -o "$tmp/o.csv" || fail "export --csv old"
python3 - "$tmp/a.csv" "$tmp/o.csv" <<'PY' || fail "CSV job rows"
import csv, sys
def job(path):
    return {r["metric"]: r for r in csv.DictReader(open(path))
            if r["record"] == "job"}
a, o = job(sys.argv[1]), job(sys.argv[2])
assert float(a["cpus"]["value"]) == 2, a["cpus"]
assert float(a["mem"]["value"]) == 1073741824 and a["mem"]["unit"] == "B"
assert float(a["time_limit"]["value"]) == 3600 and a["time_limit"]["unit"] == "s"
assert a["partition"]["text"] == "lab", a["partition"]
for k in ("cpus", "mem", "time_limit"):
    assert o[k]["value"] == "", (k, o[k])
PY

# SQLite: the job table's columns.
"$JOBTOP" export "$REC" --sqlite "$tmp/a.db" || fail "export --sqlite"
python3 - "$tmp/a.db" <<'PY' || fail "SQLite job table"
import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute(
    "SELECT cpus, mem, time_limit, partition FROM job").fetchall()
assert r == [(2, 1073741824, 3600.0, "lab")], r
PY

# OpenMetrics: the allocation gauges, labelled with the partition.
"$JOBTOP" export "$REC" --openmetrics -o "$tmp/a.om" || fail "export --om"
for s in 'jobtop_job_cpus{job="1",partition="lab"} 2 ' \
    'jobtop_job_memory_bytes{job="1",partition="lab"} 1073741824 ' \
    'jobtop_job_time_limit_seconds{job="1",partition="lab"} 3600 '; do
	grep -qF "$s" "$tmp/a.om" || fail "no '$s' in the OpenMetrics"
done
"$JOBTOP" export "$OLD" --openmetrics -o "$tmp/o.om" || fail "om old"
grep -q '^jobtop_job_cpus' "$tmp/o.om" && fail "an allocation from nowhere"

# The verdict: efficiency against the 2 CPUs, memory against 512 MiB a
# node; without the allocation, whole nodes and an unknown request.
verdict() {
	"$JOBTOP" report "$1" -o "$tmp/r.html" || fail "report $1"
	python3 - "$tmp/r.html" <<'PY'
import html, re, sys
p = open(sys.argv[1], encoding="utf-8").read()
v = re.search(r'<section id="jt-verdict">(.*?)</section>', p, re.S)
print(html.unescape(re.sub(r"<[^>]+>", " ", v.group(1))) if v else "")
PY
}
verdict "$REC" >"$tmp/a.txt"
for s in '2 CPUs, 1.00 GiB of memory, limit 1 h 00 min, partition lab' \
    'allocated (2 CPUs the scheduler allocated x' \
    'of the 512 MiB requested per node, 1.00 GiB in all shared evenly'; do
	grep -qF "$s" "$tmp/a.txt" || fail "verdict lacks '$s': $(cat "$tmp/a.txt")"
done
grep -q 'whole nodes assumed' "$tmp/a.txt" && fail "whole nodes assumed"
# The node table's efficiency has the verdict's denominator (D9).
grep -qF "of the scheduler's CPUs, time measured" "$tmp/r.html" ||
	fail "the node table's efficiency is not of the scheduler's CPUs"
verdict "$OLD" >"$tmp/o.txt"
for s in 'whole nodes assumed' 'the request is unknown'; do
	grep -qF "$s" "$tmp/o.txt" || fail "old verdict lacks '$s'"
done
echo "allocation exported and judged against"
