#!/bin/sh
# SPDX-License-Identifier: ISC
# detect-verdicts: the verdicts with a hint on real local processes.
# - Pinned: two rankload ranks (PMI_RANK 70 and 71) pinned with
#   `taskset -c 0` on this machine, watched by `jobtop -w localhost -b
#   --json`: a "pinned" event names both ranks, CPU 0 and the hint
#   "check --cpu-bind or taskset" within 8 samples; the probe's rank
#   records carry cpus_allowed 1 and processor 0 for them.
# - Early exit: a local job (4 rankload ranks carrying SLURM_JOB_ID, watched
#   as an allocation of localhost), rank 2 ends after 3 s: the recording's
#   report says "rank 2 on localhost exited at HH:MM:SS while 3 ranks went
#   on" in its verdict, not "none stands out".  Rank 3 blocks in read(2)
#   all along (flagged stalled): the exit still comes first, the stalled
#   rank after it ("flagged longest: ... rank 3 ... stalled").
# Skips on a machine of one CPU or without taskset/python3.  About 25 s.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
RANKLOAD=${RANKLOAD:-$TOP/build/tests/lab/rankload}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-verdicts.XXXXXX") || exit 1
pids=
cleanup() {
	[ -z "$pids" ] || kill $pids 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; exit 1; }

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
command -v taskset >/dev/null 2>&1 || { echo "taskset is not installed"; exit 77; }
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || { echo "one CPU: nothing to pin against"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
[ -x "$RANKLOAD" ] || fail "$RANKLOAD not built (make tests-build)"

# Pinned ranks.
PMI_RANK=70 taskset -c 0 "$RANKLOAD" -t 30 spin >/dev/null &
pids="$pids $!"
PMI_RANK=71 taskset -c 0 "$RANKLOAD" -t 30 spin >/dev/null &
pids="$pids $!"
"$JOBTOP" -w localhost -b --json --no-record -d 1 -n 8 >"$tmp/pin.json" \
    2>"$tmp/pin.err" || fail "jobtop -w localhost: $(cat "$tmp/pin.err")"
kill $pids 2>/dev/null
wait 2>/dev/null
pids=
python3 - "$tmp/pin.json" <<'PY' || exit 1
import json, sys
ev, ranks = [], {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "event" and r.get("code") == "pinned":
        ev.append(r["text"])
    if r.get("type") == "rank" and r.get("rank") in (70, 71) and \
            r.get("rank.comm") == "rankload" and "rank.cpus_allowed" in r:
        ranks[r["rank"]] = (r["rank.cpus_allowed"], r.get("rank.processor"))
if ranks.get(70) != (1, 0) or ranks.get(71) != (1, 0):
    print("FAIL: affinity of ranks 70 and 71 not (1 CPU, CPU 0): %r" % ranks)
    sys.exit(1)
ok = [t for t in ev if "70" in t and "71" in t and "share CPU 0" in t and
      "check --cpu-bind or taskset" in t]
if not ok:
    print("FAIL: no pinned verdict naming ranks 70 and 71: %r" % ev)
    sys.exit(1)
print("pinned: " + ok[0])
PY

# Early exit in a local job.
job=8${$}
for r in 0 1; do
	SLURM_JOB_ID=$job SLURM_PROCID=$r "$RANKLOAD" -t 14 duty 30 >/dev/null &
	pids="$pids $!"
done
SLURM_JOB_ID=$job SLURM_PROCID=3 "$RANKLOAD" -t 14 block >/dev/null &
pids="$pids $!"
SLURM_JOB_ID=$job SLURM_PROCID=2 "$RANKLOAD" -t 3 duty 30 >/dev/null &
pids="$pids $!"
sleep 0.3
env SLURM_JOB_ID=$job SLURM_JOB_NODELIST=localhost "$JOBTOP" -b -n 11 -d 1 \
    -o "$tmp/exit.jtr" >"$tmp/exit.out" 2>"$tmp/exit.err" ||
	fail "jobtop in a local job: $(cat "$tmp/exit.err")"
kill $pids 2>/dev/null
wait 2>/dev/null
pids=
grep -q "rank-exit: rank 2 " "$tmp/exit.out" ||
	fail "no rank-exit event for rank 2: $(grep -i exit "$tmp/exit.out")"
"$JOBTOP" report "$tmp/exit.jtr" -o "$tmp/exit.html" ||
	fail "jobtop report failed"
python3 - "$tmp/exit.html" <<'PY' || exit 1
import html, re, sys
t = html.unescape(re.sub(r"<[^>]+>", " ", open(sys.argv[1]).read()))
m = re.search(r"Worst rank\s+(rank 2 on localhost exited at "
              r"\d\d:\d\d:\d\d while 3 ranks went on[^\n]*)", t)
if not m:
    i = t.find("Worst rank")
    print("FAIL: the verdict does not name the exit: %r" % t[i:i + 300])
    sys.exit(1)
if "none stands out" in t:
    print("FAIL: 'none stands out' beside an early exit")
    sys.exit(1)
if not re.search(r"; flagged longest: [^;\n]*rank 3[^;\n]*: stalled",
                 m.group(1)):
    print("FAIL: the stalled rank 3 does not follow the exit: %r"
          % m.group(1)[:300])
    sys.exit(1)
print("exit: " + m.group(1).strip()[:160])
PY
echo "detect-verdicts: ok"
