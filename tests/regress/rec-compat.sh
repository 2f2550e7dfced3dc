#!/bin/sh
# SPDX-License-Identifier: ISC
# rec-compat: recordings made by earlier versions (tests/data/rec/*.jtr,
# never regenerated) still replay and export in this one.  For each:
# `jobtop -r FILE -b` prints every node's samples and ranks, `jobtop
# export FILE --json` gives the node records, ranks and values its .expect
# names, --csv and `report` succeed; a copy with one byte changed is
# refused in one line.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
DATA=$TOP/tests/data/rec
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
n=0
for rec in "$DATA"/*.jtr; do
	[ -f "$rec" ] || fail "no recordings in $DATA"
	name=$(basename "$rec" .jtr)
	expect=$DATA/$name.expect
	[ -f "$expect" ] || fail "$name: no $expect"

	"$JOBTOP" -r "$rec" -b >"$tmp/replay" 2>"$tmp/err" ||
		fail "$name: jobtop -r -b: $(cat "$tmp/err")"
	[ -s "$tmp/err" ] && fail "$name: -r -b stderr: $(cat "$tmp/err")"
	"$JOBTOP" export "$rec" --json >"$tmp/json" 2>"$tmp/err" ||
		fail "$name: export --json: $(cat "$tmp/err")"
	"$JOBTOP" export "$rec" --csv >"$tmp/csv" 2>"$tmp/err" ||
		fail "$name: export --csv: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/csv")" -gt 1 ] || fail "$name: empty CSV"
	"$JOBTOP" report "$rec" -o "$tmp/r.html" >/dev/null 2>"$tmp/err" ||
		fail "$name: report: $(cat "$tmp/err")"
	grep -qi '<html' "$tmp/r.html" || fail "$name: report is no page"

	python3 - "$expect" "$tmp/json" "$tmp/replay" "$name" <<'PY' || exit 1
import json, re, sys
want = json.load(open(sys.argv[1]))
name = sys.argv[4]
bad = []
recs = []
for i, line in enumerate(open(sys.argv[2]), 1):
    try:
        recs.append(json.loads(line))
    except ValueError as e:
        bad.append("export line %d is not JSON: %s" % (i, e))
nodes = {}
for r in recs:
    if r.get("type") == "node":
        nodes.setdefault(r["node"], []).append(r)
got = {k: len(v) for k, v in nodes.items()}
if got != want["nodes"]:
    bad.append("node records per node %s, want %s" % (got, want["nodes"]))
for node, rs in nodes.items():
    if [r["seq"] for r in rs] != list(range(len(rs))):
        bad.append("%s: seq %s" % (node, [r["seq"] for r in rs]))
    t = [r["time"] for r in rs]
    if t != sorted(t):
        bad.append("%s: times go back" % node)
    if len(rs) > 1 and "cpu.busy" not in rs[1]:
        bad.append("%s: no cpu.busy rate in the second sample" % node)
ranks = {}
for r in recs:
    if r.get("type") == "rank" and "rank" in r:
        ranks[str(r["rank"])] = [r["node"], r["pid"]]
if ranks != want["ranks"]:
    bad.append("ranks %s, want %s" % (ranks, want["ranks"]))
first = next((r for r in recs if r.get("type") == "node"), {})
for k, v in want["first"].items():
    if first.get(k) != v:
        bad.append("first node record %s=%r, want %r" % (k, first.get(k), v))
# The text replay: each node's samples, each rank's pid.
text = open(sys.argv[3]).read()
for node, count in want["nodes"].items():
    seen = len(re.findall(r"^%s \S+ #\d+ " % re.escape(node), text, re.M))
    if seen != count:
        bad.append("replay shows %d samples of %s, want %d"
                   % (seen, node, count))
for rank, (node, pid) in want["ranks"].items():
    if not re.search(r"^\s+%s\s+%d\s" % (rank, pid), text, re.M):
        bad.append("replay shows no rank %s pid %d" % (rank, pid))
for b in bad:
    print("FAIL: %s: %s" % (name, b))
sys.exit(1 if bad else 0)
PY

	# One byte changed: refused, in one line, not replayed as if good.
	python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[len(d) // 2] ^= 0x55
open(sys.argv[2], "wb").write(d)' "$rec" "$tmp/bad.jtr"
	for cmd in "-r $tmp/bad.jtr -b" "export $tmp/bad.jtr --json"; do
		# shellcheck disable=SC2086
		"$JOBTOP" $cmd >/dev/null 2>"$tmp/err" &&
			fail "$name: jobtop $cmd: a damaged copy was accepted"
		[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q damaged "$tmp/err" ||
			fail "$name: jobtop $cmd: $(cat "$tmp/err")"
	done
	n=$((n + 1))
done
echo "rec-compat: $n recording(s) read"
