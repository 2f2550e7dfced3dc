#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-power-thermal: the probe's "rapl" and "thermal" sources on fixture
# trees (this machine has neither RAPL nor sensors to speak of).
#
# rapl (tests/data/fixtures/rapl-basic): two packages with dram and core
# subzones, and an intel-rapl-mmio zone that repeats package-0 and must be
# left out.  A background writer rewrites every energy_uj in place from the
# wall clock at known powers (package-0 50 W, core-0 20 W, dram-0 5 W,
# package-1 30 W, dram-1 3 W), modulo max_energy_range_uj, which the test
# makes small for package-0 (100 J: a wrap every 2 s) and package-1 starts
# just below.  `jobtop --decode --json` shows the counter's rate in uJ/s:
# every sample must give the power within 40% (a wrap lost or counted
# twice is off by far more), the median within 10%.  An energy_uj only
# root may read (mode 0400, as kernels since 5.10 have it) turns the
# source off for anyone else with the reason, checked as an unprivileged
# user.
#
# thermal (tests/data/fixtures/thermal-basic): thermal zones (two acpitz,
# x86_pkg_temp, one below zero) and hwmon chips (two coretemp packages,
# nvme, k10temp with an unlabelled input), plus the hwmon mirrors of the
# zones, which must be left out.  Names, millidegree values and critical
# points must be exactly those of the files, a temperature rewritten while
# the probe runs must show its new values.  Without either class, the
# source is off with its reason.
#
# Needs python3 to read the JSON.  Skips (77) until jobtop has --decode.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-power.XXXXXX") || exit 1
writer_pid=
cleanup() {
	[ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "$*"
	exit 77
}

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"

# Robustness first, without a decoder.
for fx in rapl-basic thermal-basic; do
	"$PROBE" --root "$FIX/$fx" --interval 0.05 --count 4 </dev/null \
	    >"$tmp/$fx.bin" 2>"$tmp/$fx.err" ||
	    fail "probe on $fx exited $?: $(cat "$tmp/$fx.err")"
	[ -s "$tmp/$fx.bin" ] || fail "probe on $fx wrote nothing"
done

command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read JSON"
[ -x "$JOBTOP" ] || skip "no $JOBTOP"
"$JOBTOP" --help 2>&1 | grep -q -- '--decode' ||
    skip "jobtop has no --decode yet"

cat >"$tmp/check.py" <<'EOF'
# check.py MODE FILE [ARGS]: assertions on `jobtop --decode --json`.
import json, statistics, sys

mode, path = sys.argv[1], sys.argv[2]
hello, recs = None, []
for line in open(path):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    if r.get("type") == "hello":
        hello = r
    elif r.get("type") == "node":
        recs.append(r)
bad = []
srcs = (hello or {}).get("sources", {})

def series(key, inst):
    return [r[key][inst] for r in recs
            if isinstance(r.get(key), dict) and inst in r[key]]

def insts(prefix):
    names = set()
    for r in recs:
        for k, v in r.items():
            if k.startswith(prefix) and isinstance(v, dict):
                names.update(v)
    return names

def same(what, got, want):
    if got != want:
        bad.append("%s: got %r, want %r" % (what, got, want))

def always(key, inst, want):
    s = series(key, inst)
    if not s or set(s) != {want}:
        bad.append("%s[%s]: %s, want always %r" % (key, inst,
                   sorted(set(s)), want))

if hello is None:
    bad.append("no hello")
elif mode == "rapl":
    same("rapl source", srcs.get("rapl"), "on")
    same("zones", insts("rapl."),
         {"package-0", "core-0", "dram-0", "package-1", "dram-1"})
    for zone, watts in (("package-0", 50), ("core-0", 20), ("dram-0", 5),
                        ("package-1", 30), ("dram-1", 3)):
        s = series("rapl.energy", zone)
        if len(s) < len(recs) - 4:
            bad.append("%s: only %d rates in %d samples: %s" %
                       (zone, len(s), len(recs), s))
            continue
        w = [v / 1e6 for v in s]
        if abs(statistics.median(w) - watts) > 0.1 * watts:
            bad.append("%s: median %g W, want %g W (%s)" %
                       (zone, statistics.median(w), watts, w))
        odd = [x for x in w if abs(x - watts) > 0.4 * watts]
        if odd:
            bad.append("%s: samples off by more than 40%%: %s (want %g W)"
                       % (zone, odd, watts))
elif mode == "thermal":
    same("thermal source", srcs.get("thermal"), "on")
    same("sensors", insts("temp."),
         {"acpitz", "acpitz#2", "x86_pkg_temp", "iwlwifi_1",
          "coretemp/Package id 0", "coretemp/Core 0", "coretemp/Core 1",
          "coretemp/Package id 1", "coretemp/Core 0#2", "nvme/Composite",
          "nvme/Sensor 1", "k10temp/Tctl", "k10temp/Tccd1",
          "k10temp/temp10"})
    for inst, v in (("acpitz", 27800), ("acpitz#2", 29800),
                    ("iwlwifi_1", -274000), ("coretemp/Core 0#2", 47000),
                    ("nvme/Composite", 38850), ("k10temp/temp10", 12345)):
        always("temp.temp", inst, v)
    for inst, v in (("acpitz", 105000), ("acpitz#2", 100000),
                    ("coretemp/Package id 0", 100000),
                    ("nvme/Composite", 84850)):
        always("temp.crit", inst, v)
    for inst in ("x86_pkg_temp", "iwlwifi_1", "nvme/Sensor 1",
                 "k10temp/Tctl"):
        if series("temp.crit", inst):
            bad.append("temp.crit[%s] should be absent" % inst)
    for inst in ("x86_pkg_temp", "coretemp/Package id 0"):
        s = series("temp.temp", inst)
        if len(set(s)) < 2 or not set(s) <= {45000, 46000, 47000, 48000,
                                              49000}:
            bad.append("temp.temp[%s]: %s, want a few of 45000..49000" %
                       (inst, s))
elif mode == "off":
    want = "off: " + sys.argv[3]
    same(sys.argv[4] + " source", srcs.get(sys.argv[4]), want)
    if any(k.startswith(sys.argv[5]) for r in recs for k in r):
        bad.append("values of a source that is off")
for b in bad:
    print(mode + ": " + b)
sys.exit(1 if bad else 0)
EOF

# decode BIN NAME: the JSON records of a stream.
decode() {
	"$JOBTOP" --decode --json <"$1" >"$tmp/$2.json" 2>"$tmp/$2.jerr" ||
	    fail "jobtop --decode --json on $2 exited $?: $(cat "$tmp/$2.jerr")"
}

check() {
	python3 "$tmp/check.py" "$@" || fail "$1 checks (records in $2)"
}

# RAPL: zone directory, power in watts, start, range.  A writer rewrites
# each energy_uj from the wall clock, start + elapsed ms * W * 1000 uJ,
# modulo the range, on the inode the probe holds open: the new value
# first, then the file cut to its length, so a read in between sees the
# new number (and a stale tail after its newline), never an empty file.
root=$tmp/rapl
cp -R "$FIX/rapl-basic" "$root"
pc=$root/sys/class/powercap
echo 100000000 >"$pc/intel-rapl:0/max_energy_range_uj"
cat >"$tmp/zones" <<'EOF'
intel-rapl:0 50 99000000 100000000
intel-rapl:0:0 5 36422173085 65712999613
intel-rapl:0:1 20 1000000 262143328850
intel-rapl:1 30 262100000000 262143328850
intel-rapl:1:0 3 12345678901 65712999613
EOF
cat >"$tmp/energy.py" <<'EOF'
import os, sys, time
pc, zones, ready = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.time()
fds = []
for line in open(zones):
    z, w, e0, rng = line.split()
    fds.append((os.open(os.path.join(pc, z, "energy_uj"), os.O_WRONLY),
                int(w), int(e0), int(rng)))
while True:
    ms = int((time.time() - t0) * 1000)
    for fd, w, e0, rng in fds:
        b = b"%d\n" % ((e0 + ms * w * 1000) % rng)
        os.pwrite(fd, b, 0)
        os.ftruncate(fd, len(b))
    if ready:
        open(ready, "w").close()
        ready = ""
    time.sleep(0.02)
EOF
python3 "$tmp/energy.py" "$pc" "$tmp/zones" "$tmp/ready" &
writer_pid=$!
while [ ! -f "$tmp/ready" ]; do
	sleep 0.05
done
"$PROBE" --root "$root" --interval 0.5 --count 14 </dev/null \
    >"$tmp/rapl.bin" || fail "probe on the RAPL fixture exited $?"
kill "$writer_pid"
writer_pid=
decode "$tmp/rapl.bin" rapl
check rapl "$tmp/rapl.json"

# energy_uj for root only: off for an unprivileged probe.
root=$tmp/rapl-ro
cp -R "$FIX/rapl-basic" "$root"
chmod 0400 "$root"/sys/class/powercap/*/energy_uj
ran=
if [ "$(id -u)" -ne 0 ]; then
	chmod 0000 "$root"/sys/class/powercap/*/energy_uj
	"$PROBE" --root "$root" --count 2 --interval 0.05 </dev/null \
	    >"$tmp/ro.bin" || fail "probe without energy_uj exited $?"
	ran=1
elif command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$tmp"
	cp "$PROBE" "$tmp/probe"
	chmod 755 "$tmp/probe"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/probe" \
	    --root "$root" --count 2 --interval 0.05 </dev/null \
	    >"$tmp/ro.bin" || fail "unprivileged probe exited $?"
	ran=1
fi
if [ -n "$ran" ]; then
	decode "$tmp/ro.bin" ro
	check off "$tmp/ro.json" "energy_uj not readable (root only)" rapl \
	    rapl.
fi

# Thermal: a package temperature rewritten in place while sampled.
root=$tmp/thermal
cp -R "$FIX/thermal-basic" "$root"
pkg=$root/sys/class/thermal/thermal_zone2/temp
core=$root/sys/class/hwmon/hwmon1/temp1_input
( i=0
  while :; do
	v=$(( (45 + i % 5) * 1000 ))
	printf '%d\n' "$v" >"$pkg"
	printf '%d\n' "$v" >"$core"
	i=$((i + 1))
	sleep 0.15
  done ) &
writer_pid=$!
"$PROBE" --root "$root" --interval 0.2 --count 15 </dev/null \
    >"$tmp/thermal.bin" || fail "probe on the thermal fixture exited $?"
kill "$writer_pid"
writer_pid=
decode "$tmp/thermal.bin" thermal
check thermal "$tmp/thermal.json"

# Neither: off, with the reasons.
mkdir -p "$tmp/empty"
"$PROBE" --root "$tmp/empty" --count 2 --interval 0.05 </dev/null \
    >"$tmp/empty.bin" || fail "probe on an empty root exited $?"
decode "$tmp/empty.bin" empty
check off "$tmp/empty.json" "no /sys/class/powercap (no RAPL)" rapl rapl.
check off "$tmp/empty.json" \
    "no thermal zones or hwmon temperature sensors" thermal temp.
echo "ok"
