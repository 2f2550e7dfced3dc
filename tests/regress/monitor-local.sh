#!/bin/sh
# SPDX-License-Identifier: ISC
# monitor-local: `jobtop -w localhost -b` runs the probe as a local child
# and prints its samples.  JSON mode: one valid record per line, three node
# records with increasing times, CPU and memory keys, rates on every record
# (the first, baseline sample is not shown), rank records with pid and
# state; text mode: one node line per sample; a remote node or a missing
# probe: one error line.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

if ! command -v python3 >/dev/null 2>&1; then
	echo "python3 is not installed"
	exit 77
fi
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"

"$JOBTOP" -w localhost -b --json -n 3 -d 0.2 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "unexpected stderr: $(cat "$tmp/err")"

python3 - "$tmp/out" <<'PY' || exit 1
import json, sys, time

def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)

recs = []
for n, line in enumerate(open(sys.argv[1]), 1):
    try:
        r = json.loads(line)
    except ValueError as e:
        fail("line %d is not JSON (%s): %r" % (n, e, line[:200]))
    # The job's meta record first (as export --json), then every record
    # is a node's.
    if n == 1:
        if not isinstance(r, dict) or r.get("type") != "meta" or \
                r.get("nodes") != ["localhost"] or "time" not in r:
            fail("line 1 is not the meta record: %r" % line[:200])
        continue
    if not isinstance(r, dict) or "type" not in r or "time" not in r \
            or "node" not in r:
        fail("line %d lacks type/time/node: %r" % (n, line[:200]))
    recs.append(r)

nodes = [r for r in recs if r["type"] == "node"]
ranks = [r for r in recs if r["type"] == "rank"]
if len(nodes) != 3:
    fail("%d node records, want 3" % len(nodes))
times = [r["time"] for r in nodes]
if not all(b > a for a, b in zip(times, times[1:])):
    fail("node times do not increase: %r" % times)
# The probe keeps a grid of 0.2 s: one sample late under load makes the
# next gap short, so the mean is what must match.
for a, b in zip(times, times[1:]):
    if not 0 < b - a <= 5:
        fail("samples %.3f s apart, asked for 0.2" % (b - a))
if not 0.1 <= (times[-1] - times[0]) / (len(times) - 1) <= 5:
    fail("samples %.3f s apart on average, asked for 0.2"
         % ((times[-1] - times[0]) / (len(times) - 1)))
if abs(times[0] - time.time()) > 120:
    fail("time %.3f is far from now" % times[0])
if [r["seq"] for r in nodes] != sorted(r["seq"] for r in nodes):
    fail("seq does not increase")
if len({r["node"] for r in recs}) != 1:
    fail("more than one node name: %r" % {r["node"] for r in recs})

for i, r in enumerate(nodes):
    for k in ("load.load1", "mem.total", "mem.available", "mem.used"):
        if not isinstance(r.get(k), (int, float)):
            fail("sample %d: %s missing or not a number" % (i, k))
    if not 0 < r["mem.used"] <= r["mem.total"]:
        fail("mem.used %r outside (0, mem.total]" % r["mem.used"])
    # The probe's first sample is the rates' baseline, which the monitor
    # neither shows nor counts (PROTOCOL.md): every record has rates.
    for k in ("cpu.user", "cpu.system", "cpu.idle", "cpu.busy"):
        v = r.get(k)
        if not isinstance(v, (int, float)) or not 0 <= v <= 100.001:
            fail("sample %d: %s = %r, want a percent" % (i, k, v))
    total = sum(r.get("cpu." + f, 0) for f in ("user", "nice", "system",
        "idle", "iowait", "irq", "softirq", "steal"))
    if abs(total - 100) > 0.1:
        fail("sample %d: cpu percents add up to %.3f" % (i, total))
    cores = r.get("core.idle")
    if not isinstance(cores, dict) or not cores:
        fail("sample %d: core.idle is not an object by core" % i)

node_times = set(times)
for r in ranks:
    if not isinstance(r.get("pid"), int) or r["pid"] <= 0:
        fail("rank record without a pid: %r" % r)
    if not isinstance(r.get("state"), str) or not r["state"]:
        fail("rank record without a state: %r" % r)
    if "rank" in r and not isinstance(r["rank"], int):
        fail("rank is not an integer: %r" % r)
    if r["time"] not in node_times:
        fail("rank record at a time without a node record: %r" % r)
print("%d node records, %d rank records" % (len(nodes), len(ranks)))
PY

# Text mode: one node line per sample.
"$JOBTOP" -w localhost -b -n 2 -d 0.1 >"$tmp/text" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "text mode: exit status $rc: $(cat "$tmp/err")"
n=$(grep -c ' #[0-9]*  cpu ' "$tmp/text")
[ "$n" -eq 2 ] || fail "text mode: $n node lines, want 2: $(cat "$tmp/text")"

# The host's own short name is local too.
host=$(hostname | cut -d. -f1)
"$JOBTOP" -w "$host" -b --json -n 1 -d 0.1 >"$tmp/out" 2>"$tmp/err" ||
	fail "-w $host: $(cat "$tmp/err")"
[ "$(grep -c '"type":"node"' "$tmp/out")" -eq 1 ] || fail "-w $host: no record"

# One clear line for what cannot work.
one_error() {
	what=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ $rc -ne 0 ] || fail "$what: exit status 0"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		fail "$what: want one line on stderr, got: $(cat "$tmp/err")"
	grep -q '^jobtop: ' "$tmp/err" || fail "$what: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "$what: wrote to stdout"
	return 0
}
# An unknown node is a failed node: one line on stderr, exit 1, and its
# state record on stdout; the other nodes still run.
"$JOBTOP" -w node99 -b --json -n 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "-w node99: exit status $rc, want 1"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "-w node99: stderr: $(cat "$tmp/err")"
grep -q '^jobtop: node99: .*not known' "$tmp/err" ||
	fail "-w node99: $(cat "$tmp/err")"
grep -q '"node":"node99","type":"state","state":"failed: ' "$tmp/out" ||
	fail "-w node99: no failed state record"
"$JOBTOP" -w localhost,node99 -b --json -n 2 -d 0.2 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "-w localhost,node99: exit status $rc, want 1"
[ "$(grep -c '"type":"node"' "$tmp/out")" -eq 2 ] ||
	fail "-w localhost,node99: localhost did not deliver 2 samples"
one_error "missing probe" env JOBTOP_PROBE=/nonexistent/jobtop-probe \
	"$JOBTOP" -w localhost -b -n 1

echo "ok"
