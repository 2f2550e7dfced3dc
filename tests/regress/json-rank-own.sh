#!/bin/sh
# SPDX-License-Identifier: ISC
# json-rank-own: every rank record of `--json` carries the rank's own
# metrics from the groups keyed by its pid (rankmpi, ranknuma, rankperf:
# PROTOCOL.md), as "group.field" values, equal to what the node record
# keeps keyed by pid (kept for the readers that join).  On the fixture
# numa-2node (--job 123: ranknuma.nK per rank) and on this machine's real
# /proc (the probe's own uid: rankmpi.why, ranknuma.n0 for each process
# it reports).  A node record's pid-keyed value without the rank record
# carrying it, or a rank record's value the node record lacks, fails.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-jro.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fail() {
	echo "FAIL: $*"
	exit 1
}
[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -x "$JOBTOP" ] || fail "no $JOBTOP (run make)"
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 77; }

cat >"$tmp/check.py" <<'EOF'
import json, sys
what, path, need = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
node, ranks, bad, seen = None, [], [], set()
def judge():
    if node is None:
        return
    keyed = {k: v for k, v in node.items()
             if k.startswith("rank") and "." in k and isinstance(v, dict)}
    for r in ranks:
        pid = str(r["pid"])
        for k, v in keyed.items():
            if pid in v:
                seen.add(k.split(".")[0])
                if r.get(k) != v[pid]:
                    bad.append("%s pid %s: %s %r in the rank record, %r "
                               "on the node's" % (what, pid, k, r.get(k),
                                                  v[pid]))
        for k in r:
            if k.split(".")[0] in ("rankmpi", "ranknuma", "rankperf") and \
               pid not in keyed.get(k, {}):
                bad.append("%s pid %s: %s only in the rank record" %
                           (what, pid, k))
for line in open(path):
    r = json.loads(line)
    if r["type"] == "node":
        judge()
        node, ranks = r, []
    elif r["type"] == "rank":
        ranks.append(r)
judge()
for g in need:
    if g and g not in seen:
        bad.append("%s: no %s value seen at all" % (what, g))
for b in bad[:10]:
    print(b)
if not bad:
    print("ok: %s: rank records carry %s" % (what, ", ".join(sorted(seen))))
sys.exit(1 if bad else 0)
EOF

"$PROBE" --root "$FIX/numa-2node" --job 123 --interval 0.1 --count 3 \
    </dev/null >"$tmp/numa.bin" 2>"$tmp/err" || fail "probe: $(cat "$tmp/err")"
"$JOBTOP" --decode --json <"$tmp/numa.bin" >"$tmp/numa.json" ||
    fail "jobtop --decode --json on numa-2node"
python3 "$tmp/check.py" numa-2node "$tmp/numa.json" ranknuma ||
    fail "numa-2node: rank records and node records disagree"

"$PROBE" --interval 0.2 --count 3 </dev/null >"$tmp/live.bin" \
    2>"$tmp/err" || fail "probe on /proc: $(cat "$tmp/err")"
"$JOBTOP" --decode --json <"$tmp/live.bin" >"$tmp/live.json" ||
    fail "jobtop --decode --json on /proc"
python3 "$tmp/check.py" /proc "$tmp/live.json" "" ||
    fail "/proc: rank records and node records disagree"
echo PASS
