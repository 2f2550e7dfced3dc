#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-power-node: whole-node power, the probe's "power" source (hwmon
# power sensors) on a fixture tree and its "ipmi" source (DCMI through
# /dev/ipmi0) for real.
#
# power (tests/data/fixtures/power-hwmon), following the kernel's
# Documentation/hwmon/sysfs-interface.rst (microwatts): two ACPI power
# meters (chip power_meter, power1_average only: whole-node, "node" 1), an
# amdgpu with power1_input and power1_average (the input wins) labelled
# PPT, a PSU (dps920ab) with two labelled inputs and a power2_input_highest
# that is no sensor, a coretemp without power.  A writer rewrites the
# first meter's power1_average in place (300..340 W) while the probe runs:
# its values must be those written, the others exactly the files'.  Then
# jobtop records the same tree (JOBTOP_PROBE runs the probe on it) and
# `jobtop report` must plot node power (metric power_node) as the larger
# meter each sample: the moving one when above 250 W.  A tree without
# hwmon power sensors turns the source off with its reason.
#
# ipmi: this machine has no BMC; the source must be off, and say why
# (no /dev/ipmi0, or not root), never values.  Under --root it is off as
# a BMC is the node's, not a fixture's.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-pnode.XXXXXX") || exit 1
writer_pid=
cleanup() {
	[ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export XDG_STATE_HOME="$tmp/state"

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -x "$JOBTOP" ] || fail "no $JOBTOP (run make)"
command -v python3 >/dev/null 2>&1 || { echo "no python3"; exit 77; }

root=$tmp/root
cp -R "$FIX/power-hwmon" "$root" || fail "cannot copy the fixture"
meter=$root/sys/class/hwmon/hwmon0/power1_average
# Rewrite the meter in place: 300, 310, ... 340 W, round and round; all
# of one length, written over the old value without truncating, so a read
# never finds the file empty.
( i=0
  while :; do
	printf '%d\n' $(( (300 + i % 5 * 10) * 1000000 )) |
	    dd of="$meter" conv=notrunc status=none
	i=$((i + 1))
	sleep 0.1
  done ) &
writer_pid=$!
sleep 0.3
"$PROBE" --root "$root" --interval 0.2 --count 12 </dev/null >"$tmp/p.bin" ||
    fail "probe on the fixture exited $?"
"$JOBTOP" --decode --json <"$tmp/p.bin" >"$tmp/p.json" ||
    fail "cannot decode the probe's output"
printf '#!/bin/sh\nexec "%s" --root "%s" "$@"\n' "$PROBE" "$root" \
    >"$tmp/probe"
chmod +x "$tmp/probe"
JOBTOP_PROBE=$tmp/probe timeout 60 "$JOBTOP" -w localhost -b --json -n 8 \
    -d 0.25 -o "$tmp/rec.jtr" >/dev/null 2>"$tmp/err" </dev/null ||
    fail "jobtop on the fixture: $(cat "$tmp/err")"
kill "$writer_pid"
writer_pid=
"$JOBTOP" report "$tmp/rec.jtr" -o "$tmp/r.html" 2>"$tmp/err" ||
    fail "report: $(cat "$tmp/err")"

python3 - "$tmp/p.json" "$tmp/r.html" <<'EOF' || fail "power values"
import json, re, sys
recs, hello = [], None
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "hello":
        hello = r
    elif r.get("type") == "node":
        recs.append(r)
bad = []
src = hello["sources"]
if src.get("power") != "on":
    bad.append("power source %r" % src.get("power"))
if src.get("ipmi") != "off: a BMC is this node's, not --root's":
    bad.append("ipmi under --root: %r" % src.get("ipmi"))
want = {"power_meter/power1#2": (250000000, 1), "amdgpu/PPT": (35000000, 0),
        "dps920ab/pin": (120500000, 0), "dps920ab/pout1": (100250000, 0)}
names = set()
for r in recs:
    names.update(r.get("power.power", {}))
if names != set(want) | {"power_meter/power1"}:
    bad.append("sensors %r" % sorted(names))
for inst, (uw, node) in want.items():
    got = {r["power.power"].get(inst) for r in recs if "power.power" in r}
    if got != {uw}:
        bad.append("%s: %r, want always %d" % (inst, got, uw))
    nd = {r["power.node"].get(inst) for r in recs if "power.node" in r}
    if nd != {node}:
        bad.append("%s node %r, want %d" % (inst, nd, node))
mv = [r["power.power"]["power_meter/power1"] for r in recs
      if "power_meter/power1" in r.get("power.power", {})]
if len(set(mv)) < 2 or not set(mv) <= {w * 1000000 for w in
                                        (300, 310, 320, 330, 340)}:
    bad.append("moving meter: %r" % mv)
# The report's node power: the larger meter, so one of the written values.
page = open(sys.argv[2]).read()
m = re.search(r'data-key="power_node" data-min="([^"]*)" data-max="([^"]*)"',
              page)
if m is None:
    bad.append("no power_node metric in the report")
else:
    v = [float(m.group(1)), float(m.group(2))]
    if not all(300 <= x <= 340 for x in v):
        bad.append("report node power %r, want 300..340 W" % v)
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF

# Without any hwmon power sensor: off with the reason.
"$PROBE" --root "$FIX/thermal-basic" --count 1 </dev/null |
    "$JOBTOP" --decode --json |
    grep -q '"power":"off: no hwmon power sensors"' ||
    fail "a tree without power sensors does not say why power is off"

# IPMI for real: no BMC on this machine (or not root): off, with why.
if [ -e /dev/ipmi0 ]; then
	echo "this machine has /dev/ipmi0: its absent path is not tested"
else
	"$PROBE" --count 2 --interval 0.1 </dev/null |
	    "$JOBTOP" --decode --json >"$tmp/i.json" ||
	    fail "probe without --root"
	grep -q '"ipmi":"off: no /dev/ipmi0 (no BMC' "$tmp/i.json" ||
	    fail "ipmi without a BMC: $(grep -o '"ipmi":"[^"]*"' "$tmp/i.json")"
	grep -q '"ipmipower\.' "$tmp/i.json" &&
	    fail "ipmi values without a BMC"
fi
echo "ok"
exit 0
