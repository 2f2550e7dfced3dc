#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-node-sources: the probe's node-level sources (cpu, mem, load, disk,
# net, self) read fixture trees under --root, and a real /proc.
#
# While the probe samples tests/data/fixtures/node-basic (copied), a
# background loop rewrites /proc/stat, /proc/diskstats and /proc/net/dev
# in place with counters that advance at known rates, computed from the
# wall clock; `jobtop --decode --json` must then show those rates (median
# of the samples, within 20%) and the CPU split as percents.  node-odd
# holds truncated lines, huge numbers and long names: the probe must
# survive it and report exactly the well-formed lines.  A missing
# /proc/diskstats turns the disk source off with a reason; one that
# empties later makes its disks vanish rather than read as zeros.
#
# Needs python3 to read the JSON.  Skips (77) until jobtop has --decode.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-node.XXXXXX") || exit 1
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

# Robustness first: it needs no decoder.  Every fixture, sampled a few
# times, must end with a clean exit.
for fx in node-basic node-odd; do
	"$PROBE" --root "$FIX/$fx" --interval 0.05 --count 4 </dev/null \
	    >"$tmp/$fx.bin" 2>"$tmp/$fx.err" ||
	    fail "probe on $fx exited $?: $(cat "$tmp/$fx.err")"
	[ -s "$tmp/$fx.bin" ] || fail "probe on $fx wrote nothing"
done

command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read JSON"
[ -x "$JOBTOP" ] || skip "no $JOBTOP"
"$JOBTOP" --decode --json <"$tmp/node-basic.bin" >"$tmp/probe.json" 2>&1
if ! grep -q '^{' "$tmp/probe.json" &&
    ! "$JOBTOP" --help 2>&1 | grep -q -- '--decode'; then
	skip "jobtop has no --decode yet"
fi

# decode BIN NAME: the JSON records, then the text form, of a stream.
decode() {
	"$JOBTOP" --decode --json <"$1" >"$tmp/$2.json" 2>"$tmp/$2.jerr" ||
	    fail "jobtop --decode --json on $2 exited $?: $(cat "$tmp/$2.jerr")"
	"$JOBTOP" --decode <"$1" >"$tmp/$2.txt" 2>&1 ||
	    fail "jobtop --decode on $2 exited $?"
}

cat >"$tmp/check.py" <<'EOF'
# check.py MODE FILE [ARGS]: assertions on `jobtop --decode --json` records.
import json, statistics, sys

mode, path = sys.argv[1], sys.argv[2]
recs = []
for line in open(path):
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        if r.get("type") == "node":
            recs.append(r)
bad = []

def val(r, key, inst=None):
    v = r.get(key)
    if inst is not None:
        v = v.get(inst) if isinstance(v, dict) else None
    return v if isinstance(v, (int, float)) else None

def series(key, inst=None, skip=1):
    return [v for v in (val(r, key, inst) for r in recs[skip:])
            if v is not None]

def near(key, inst, want, tol, absolute=False):
    s = series(key, inst)
    name = key + ("[%s]" % inst if inst is not None else "")
    if not s:
        bad.append("%s: no values" % name)
        return
    got = statistics.median(s)
    lim = tol if absolute else abs(want) * tol
    if abs(got - want) > lim:
        bad.append("%s: median %g, want %g +- %g (%s)" %
                   (name, got, want, lim, s))

def insts(prefix, rs=None):
    names = set()
    for r in recs if rs is None else rs:
        for k, v in r.items():
            if k.startswith(prefix) and isinstance(v, dict):
                names.update(v)
    return names

def keys(prefix, rs=None):
    return {k for r in (recs if rs is None else rs) for k in r
            if k.startswith(prefix)}

def same(what, got, want):
    if got != want:
        bad.append("%s: got %r, want %r" % (what, got, want))

if len(recs) < 3:
    bad.append("only %d node records" % len(recs))
elif mode == "basic":
    near("cpu.user", None, 25, 4, True)
    near("cpu.system", None, 12.5, 4, True)
    near("cpu.idle", None, 62.5, 4, True)
    near("cpu.iowait", None, 0, 1, True)
    near("core.user", "0", 50, 5, True)
    near("core.idle", "0", 50, 5, True)
    near("core.system", "1", 25, 5, True)
    near("cpu.ctxt", None, 5000, 0.2)
    near("cpu.intr", None, 1000, 0.2)
    near("cpu.procs_running", None, 3, 0, True)
    near("cpu.procs_blocked", None, 1, 0, True)
    near("mem.total", None, 16303480 * 1024, 0, True)
    near("mem.available", None, 12345678 * 1024, 0, True)
    near("mem.used", None, (16303480 - 12345678) * 1024, 0, True)
    near("mem.cached", None, 2621440 * 1024, 0, True)
    near("mem.swap_free", None, 2000000 * 1024, 0, True)
    near("load.load1", None, 0.52, 0.001, True)
    near("disk.read_bytes", "sda", 2048000, 0.2)
    near("disk.write_bytes", "sda", 1024000, 0.2)
    near("disk.reads", "sda", 100, 0.2)
    near("disk.writes", "sda", 50, 0.2)
    near("disk.in_flight", "sda", 2, 0, True)
    near("disk.read_bytes", "nvme0n1", 0, 0, True)
    near("net.rx_bytes", "eth0", 1000000, 0.2)
    near("net.rx_packets", "eth0", 1000, 0.2)
    near("net.tx_bytes", "eth0", 250000, 0.2)
    near("net.rx_bytes", "lo", 0, 0, True)
    same("disks", insts("disk."), {"sda", "nvme0n1"})
    same("interfaces", insts("net."), {"lo", "eth0", "ib0"})
    same("cores", insts("core."), {"0", "1"})
    rss = series("self.rss")
    if not rss or not 64 * 1024 <= rss[-1] <= 64 << 20:
        bad.append("self.rss implausible: %s" % rss)
    if not [v for v in series("self.bytes_sent") if v > 0]:
        bad.append("self.bytes_sent never positive")
elif mode == "odd":
    same("disks", insts("disk."), {"sdc", "sdd", "cciss/c0d0"})
    same("interfaces", insts("net."), {"ib0"})
    if insts("core.") - {"0"}:
        bad.append("cores: got %r, want at most {'0'}" % insts("core."))
    near("mem.total", None, 1000 * 1024, 0, True)
    near("mem.dirty", None, 7 * 1024, 0, True)
    near("mem.shmem", None, 2 * 1024, 0, True)
    near("cpu.procs_blocked", None, 2, 0, True)
    near("disk.in_flight", "sdc", 1, 0, True)
    for k in ("mem.free", "mem.available", "mem.cached", "mem.buffers",
              "mem.swap_total", "cpu.ctxt", "cpu.procs_running"):
        if series(k):
            bad.append("%s should be absent: %s" % (k, series(k)))
    same("load keys", keys("load."), set())
elif mode == "nodisk":
    same("disk keys", keys("disk."), set())
    if not series("net.rx_bytes", "eth0") and not insts("net."):
        bad.append("other sources silent too")
elif mode == "vanish":
    if "sda" not in insts("disk.", recs[:3]):
        bad.append("sda not seen before diskstats emptied")
    for r in recs[-3:]:
        for k in keys("disk.", [r]):
            if r[k] not in (None, {}):
                bad.append("after emptying, %s = %r" % (k, r[k]))
elif mode == "real":
    total, avail, nets, disks, ncores = sys.argv[3:8]
    total, avail = int(total), int(avail)
    near("mem.total", None, total, 0, True)
    near("mem.available", None, avail, (64 << 20) + 0.02 * total, True)
    near("mem.used", None, total - avail, (64 << 20) + 0.02 * total, True)
    same("interfaces", insts("net."), set(nets.split()))
    same("disks", insts("disk."), set(disks.split()))
    same("core count", len(insts("core.")), int(ncores))
    for k in ("cpu.user", "cpu.system", "cpu.idle"):
        if not [v for v in series(k) if 0 <= v <= 100.5]:
            bad.append("%s not a percent: %s" % (k, series(k)))
    near("self.rss", None, 1 << 20, 15 << 20, True)
for b in bad:
    print(mode + ": " + b)
sys.exit(1 if bad else 0)
EOF

check() {
	python3 "$tmp/check.py" "$@" || fail "$1 checks (records in $2)"
}

# now_ms: wall-clock milliseconds, the clock the probe stamps samples with.
now_ms() {
	date +%s%3N
}

# The moving files of node-basic, as printf formats; write_counters fills
# in the counters.  In the cpu lines core 0 is 50% user, core 1 25% system,
# the rest idle, so the total is 25% user, 12.5% system, 62.5% idle.
stat_fmt='cpu  %d 2000 %d %d 1000000 0 40000 0 0 0
cpu0 %d 1000 15000000 %d 500000 0 20000 0 0 0
cpu1 50000000 1000 %d %d 500000 0 20000 0 0 0
intr %d 9 0 0 0 0 0 0 0 0
ctxt %d
btime 1795316098
processes 17327
procs_running 3
procs_blocked 1
'
disk_fmt='   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
   8       0 sda %d 7013 %d 18079 %d 6417 %d 3954 2 %d 22710 4676 84 142400
   8       1 sda1 900000000 7013 900000000 18079 900000000 6417 900000000 3954
 259       0 nvme0n1 5000 10 400000 300 6000 20 800000 900 0 1200 1500
'
net_fmt='Inter-|   Receive                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes
    lo: 1000000000 1000000000 0 0 0 0 0 0 1000000000 1000000000 0 0 0 0 0 0
  eth0: %d %d 3 4 0 0 0 0 %d %d 5 6 0 0 0 0
   ib0: 123456789 98765 0 0 0 0 0 0 987654321 56789 0 0 0 0 0 0
'

# write_counters ROOT T0: rewrite the counter files in place for the time
# elapsed since T0: k milliseconds, j jiffies of 10 ms.  Counters only grow,
# so each file keeps or gains length and an in-place write (no truncation)
# never leaves stale bytes behind; one printf is one write.
# shellcheck disable=SC2059
write_counters() {
	k=$(( $(now_ms) - $2 ))
	j=$((k / 10))
	printf "$stat_fmt" \
	    $((100000000 + j / 2)) $((30000000 + j / 4)) \
	    $((500000000 + j - j / 2 + j - j / 4)) \
	    $((50000000 + j / 2)) $((250000000 + j - j / 2)) \
	    $((15000000 + j / 4)) $((250000000 + j - j / 4)) \
	    $((1000000000 + k)) $((2000000000 + k * 5)) 1<>"$1/proc/stat"
	printf "$disk_fmt" \
	    $((1000000000 + k / 10)) $((1000000000 + k * 4)) \
	    $((1000000000 + k / 20)) $((1000000000 + k * 2)) \
	    $((1000000000 + k / 2)) 1<>"$1/proc/diskstats"
	printf "$net_fmt" \
	    $((1000000000 + k * 1000)) $((1000000000 + k)) \
	    $((1000000000 + k * 250)) $((1000000000 + k / 2)) \
	    1<>"$1/proc/net/dev"
}

# Rates: the counters advance while the probe samples every half second.
# The moving files start empty: the formats are shorter than the static
# fixture files, whose tails would otherwise survive the in-place writes.
root=$tmp/basic
cp -R "$FIX/node-basic" "$root"
for f in stat diskstats net/dev; do
	: >"$root/proc/$f"
done
t0=$(now_ms)
write_counters "$root" "$t0"
( while :; do write_counters "$root" "$t0"; sleep 0.05; done ) &
writer_pid=$!
"$PROBE" --root "$root" --interval 0.5 --count 12 </dev/null \
    >"$tmp/rates.bin" || fail "probe on the moving fixture exited $?"
kill "$writer_pid"
writer_pid=
decode "$tmp/rates.bin" rates
check basic "$tmp/rates.json"

decode "$tmp/node-odd.bin" odd
check odd "$tmp/odd.json"

# A missing /proc/diskstats: the disk source is off, with its reason.
root=$tmp/nodisk
cp -R "$FIX/node-basic" "$root"
rm "$root/proc/diskstats"
"$PROBE" --root "$root" --interval 0.05 --count 4 </dev/null \
    >"$tmp/nodisk.bin" || fail "probe without diskstats exited $?"
decode "$tmp/nodisk.bin" nodisk
check nodisk "$tmp/nodisk.json"
cat "$tmp/nodisk.txt" "$tmp/nodisk.json" "$tmp/nodisk.jerr" |
    grep -q 'no /proc/diskstats' ||
    fail "decoded stream does not say why disk is off"

# diskstats emptied while the probe runs: its disks are dropped.
root=$tmp/vanish
cp -R "$FIX/node-basic" "$root"
( sleep 1; : >"$root/proc/diskstats" ) &
writer_pid=$!
"$PROBE" --root "$root" --interval 0.2 --count 12 </dev/null \
    >"$tmp/vanish.bin" || fail "probe with vanishing diskstats exited $?"
writer_pid=
decode "$tmp/vanish.bin" vanish
check vanish "$tmp/vanish.json"

# The real /proc, read at about the same moment as free(1) and ip(8).
"$PROBE" --interval 0.2 --count 4 </dev/null >"$tmp/real.bin" ||
    fail "probe on the real /proc exited $?"
mem_total=$(free -b | awk '/^Mem:/ { print $2 }')
mem_avail=$(free -b | awk '/^Mem:/ { print $7 }')
nets=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev)
disks=$(awk '{ print $3 }' /proc/diskstats | while read -r d; do
	case $d in loop* | ram*) continue ;; esac
	[ -d "/sys/block/$(echo "$d" | tr / !)" ] && echo "$d"
done)
ncores=$(grep -c '^cpu[0-9]' /proc/stat)
decode "$tmp/real.bin" real
check real "$tmp/real.json" "$mem_total" "$mem_avail" "$nets" "$disks" \
    "$ncores"
if command -v ip >/dev/null 2>&1; then
	for i in $(ip -o link show |
	    awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
		echo "$nets" | grep -qx "$i" ||
		    fail "ip link shows $i, /proc/net/dev does not"
	done
fi
echo "ok"
