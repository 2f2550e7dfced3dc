#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-net-fs: the probe's ib, lustre and nfs sources read fixture trees
# under --root (the formats of sysfs-class-infiniband, Lustre's lprocfs
# stats and /proc/self/mountstats), and turn themselves off, with a reason,
# on a machine without the hardware or file system.
#
# While the probe samples a copy of each fixture, a writer rewrites the
# counter files in place (the probe keeps them open) with values that
# advance at known rates, computed from the wall clock; `jobtop --decode
# --json` must then show those rates (median of the samples, within 20%).
#  - ib-hca: an EDR port (data counted in 4-byte words, sent as bytes), a
#    down RoCE port, an old-kernel mlx4 whose 32-bit counters are stuck at
#    their maximum while counters_ext/*_64 advance (the 64-bit ones must be
#    used), an Omni-Path hfi1 port, and a soft-RoCE port with no counters
#    directory (its counters absent, not zero; its state present).
#  - lustre-proc (/proc/fs/lustre, Lustre 2.10 format) and lustre-debugfs
#    (/sys/kernel/debug/lustre, 2.15 format with start_time and latency
#    columns): llite and osc byte sums, call counts, a missing line sent as
#    0, a file system mounted twice (full directory names then).
#  - nfs-client: an NFSv4.2 and an NFSv3 mount among non-NFS ones, a mount
#    point with an escaped space; bytes, READ ops, RTT, retransmissions.
# Needs python3 for the writer and the JSON checks.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-netfs.XXXXXX") || exit 1
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

# Robustness first, without a decoder: every fixture ends in a clean exit.
for fx in ib-hca lustre-proc lustre-debugfs nfs-client; do
	[ -d "$FIX/$fx" ] || fail "fixture $fx is missing"
	"$PROBE" --root "$FIX/$fx" --interval 0.05 --count 4 </dev/null \
	    >"$tmp/$fx.bin" 2>"$tmp/$fx.err" ||
	    fail "probe on $fx exited $?: $(cat "$tmp/$fx.err")"
	[ -s "$tmp/$fx.bin" ] || fail "probe on $fx wrote nothing"
done

command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read JSON"
[ -x "$JOBTOP" ] || skip "no $JOBTOP"
if ! "$JOBTOP" --decode --json <"$tmp/ib-hca.bin" >"$tmp/try.json" \
    2>/dev/null || ! grep -q '^{' "$tmp/try.json"; then
	"$JOBTOP" --help 2>&1 | grep -q -- '--decode' &&
	    fail "jobtop --decode --json cannot decode the probe's stream"
	skip "jobtop has no --decode yet"
fi

# writer.py ROOT KIND: rewrite KIND's counter files under ROOT in place
# every 50 ms for the milliseconds k elapsed since it started.  Values
# only grow and keep their width, so no stale bytes are left behind; each
# file is one write.
cat >"$tmp/writer.py" <<'EOF'
import os, sys, time

root, kind = sys.argv[1], sys.argv[2]

def put(path, text):
    fd = os.open(os.path.join(root, path.lstrip("/")), os.O_WRONLY)
    os.write(fd, text.encode())
    os.close(fd)

IB = "/sys/class/infiniband/"

def ib(k):
    p = IB + "mlx5_0/ports/1/counters/"
    put(p + "port_rcv_data", "%d\n" % (10**9 + k * 250))
    put(p + "port_xmit_data", "%d\n" % (10**9 + k * 125))
    put(p + "port_rcv_packets", "%d\n" % (10**9 + k))
    put(p + "port_xmit_packets", "%d\n" % (10**9 + k // 2))
    put(p + "port_xmit_wait", "%d\n" % (10**9 + k * 10))
    put(IB + "mlx4_0/ports/1/counters_ext/port_rcv_data_64",
        "%d\n" % (10**9 + k * 50))
    put(IB + "hfi1_0/ports/1/counters/port_xmit_data",
        "%d\n" % (10**9 + k * 10))

LL = """snapshot_time             %d.%06d secs.usecs
read_bytes                %d samples [bytes] 4096 1048576 %d
write_bytes               %d samples [bytes] 1 1048576 %d
ioctl                     18 samples [regs]
open                      %d samples [regs]
close                     %d samples [regs]
seek                      12 samples [regs]
readdir                   4 samples [regs]
setattr                   3 samples [regs]
truncate                  2 samples [regs]
getattr                   %d samples [regs]
create                    5 samples [regs]
unlink                    6 samples [regs]
mkdir                     1 samples [regs]
rename                    2 samples [regs]
statfs                    9 samples [regs]
alloc_inode               11 samples [regs]
getxattr                  21 samples [regs]
inode_permission          300 samples [regs]
"""
OSC = """snapshot_time             %d.%06d secs.usecs
req_waittime              %d samples [usec] 31 94773 %d 5000000000000000
req_active                1000000000 samples [reqs] 1 8 3000000000 9000000000
read_bytes                1000000000 samples [bytes] 4096 1048576 1000000000000
write_bytes               %d samples [bytes] 4096 1048576 %d
ost_setattr               12 samples [usec] 97 302 2104 453002
ost_read                  1000000000 samples [usec] 102 90211 7700221 910022011
ost_write                 1000000000 samples [usec] 301 94773 9901220 1002003001
ost_connect               1 samples [usec] 112 112 112 12544
ost_punch                 2 samples [usec] 201 244 445 99937
ost_statfs                20 samples [usec] 80 120 2000 201000
obd_ping                  301 samples [usec] 40 201 30100 3201000
"""
LLNEW = """snapshot_time             %d.%09d secs.nsecs
start_time                1699990000.000000000 secs.nsecs
elapsed_time              10123.456789012 secs.nsecs
read_bytes                %d samples [bytes] 4096 1048576 %d 1099528404992
write_bytes               2 samples [bytes] 512 1048576 1049088 1099511889920
read                      4 samples [usecs] 12 1303 2801 3290011
write                     2 samples [usecs] 31 2040 2071 4162561
open                      7 samples [usecs] 3 290 1433 177049
close                     7 samples [usecs] 1 40 101 2101
fsync                     %d samples [usecs] 912 912 912 831744
getattr                   22 samples [usecs] 1 30 130 2010
flock                     3 samples [usecs] 4 9 19 133
inode_permission          51 samples [usecs] 0 2 20 30
opencount                 7 samples [reqs] 1 3 11 21
"""

def lustre(k):
    t = time.time()
    s, us = int(t), int((t % 1) * 1e6)
    if os.path.isdir(os.path.join(root, "proc/fs/lustre/llite")):
        put("/proc/fs/lustre/llite/scratch-ffff8f0e1a2b3000/stats", LL % (
            s, us, 10**9 + k // 50, 10**12 + k * 2000, 10**9,
            10**12 + k * 1000, 10**9 + k // 10, 10**9 + k // 10,
            10**9 + k))
        put("/proc/fs/lustre/osc/scratch-OST0000-osc-ffff8f0e1a2b3000/stats",
            OSC % (s, us, 10**9 + k // 20, 10**12 + k * 5,
                   10**9 + k // 100, 10**12 + k * 1000))
    else:
        put("/sys/kernel/debug/lustre/llite/work-ffff9b3c4d5e6000/stats",
            LLNEW % (s, us * 1000, 100000 + k // 100, 10**9 + k * 3000,
                     100000 + k // 20))

def nfs(k):
    text = open(os.path.join(root, "mountstats.fmt")).read()
    put("/proc/self/mountstats", text % {
        "nread": 10**9 + k * 1000, "sread": 10**9 + k * 1000,
        "rops": 10**6 + k // 10, "rtrans": 10**6 + 5 + k // 10 + k // 100,
        "rrtt": 10**6 + k * 2, "rexe": 11 * 10**5 + k * 3,
        "gops": 5000 + k // 5})

fn = {"ib": ib, "lustre": lustre, "nfs": nfs}[kind]
t0 = time.time()
fn(0)
open(os.path.join(root, "writer.started"), "w").close()
while True:
    fn(int((time.time() - t0) * 1000))
    time.sleep(0.05)
EOF

# start_writer ROOT KIND: the writer in the background; it has written
# once when this returns (python can take seconds to start on a busy
# machine).
start_writer() {
	python3 "$tmp/writer.py" "$1" "$2" &
	writer_pid=$!
	n=0
	while [ ! -e "$1/writer.started" ]; do
		n=$((n + 1))
		[ $n -gt 600 ] && fail "the writer did not start"
		kill -0 "$writer_pid" 2>/dev/null || fail "the writer died"
		sleep 0.1
	done
}

stop_writer() {
	kill "$writer_pid" 2>/dev/null
	wait "$writer_pid" 2>/dev/null
	writer_pid=
}

# decode BIN NAME: the JSON records of a stream.
decode() {
	"$JOBTOP" --decode --json <"$1" >"$tmp/$2.json" 2>"$tmp/$2.jerr" ||
	    fail "jobtop --decode --json on $2 exited $?: $(cat "$tmp/$2.jerr")"
}

cat >"$tmp/check.py" <<'EOF'
# check.py MODE FILE [ARGS]: assertions on `jobtop --decode --json` records.
import json, statistics, sys

mode, path = sys.argv[1], sys.argv[2]
recs, hello = [], {}
for line in open(path):
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        if r.get("type") == "node":
            recs.append(r)
        elif r.get("type") == "hello":
            hello = r
bad = []

def val(r, key, inst):
    v = r.get(key)
    v = v.get(inst) if isinstance(v, dict) else None
    return v

def series(key, inst, skip=1):
    return [v for v in (val(r, key, inst) for r in recs[skip:])
            if v is not None]

def near(key, inst, want, tol=0.2, absolute=False):
    s = [v for v in series(key, inst) if isinstance(v, (int, float))]
    name = "%s[%s]" % (key, inst)
    if not s:
        bad.append("%s: no values" % name)
        return
    got = statistics.median(s)
    lim = tol if absolute else abs(want) * tol
    if abs(got - want) > lim:
        bad.append("%s: median %g, want %g +- %g (%s)" %
                   (name, got, want, lim, s))

def exact(key, inst, want):
    s = series(key, inst, 0)
    if not s or any(v != want for v in s):
        bad.append("%s[%s]: got %r, want %r throughout" %
                   (key, inst, s[:4], want))

def absent(key, inst):
    s = series(key, inst, 0)
    if s:
        bad.append("%s[%s] should be absent: %r" % (key, inst, s[:4]))

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

def source(name, want):
    got = hello.get("sources", {}).get(name)
    if got is None or not got.startswith(want):
        bad.append("source %s: %r, want %r..." % (name, got, want))

if len(recs) < 3 and mode != "off":
    bad.append("only %d node records" % len(recs))
elif mode == "ib":
    source("ib", "on")
    same("ports", insts("ib."), {"mlx5_0/1", "mlx5_1/1", "mlx4_0/1",
                                 "mlx4_0/2", "hfi1_0/1", "rxe0/1"})
    near("ib.rcv_bytes", "mlx5_0/1", 1000000)
    near("ib.xmit_bytes", "mlx5_0/1", 500000)
    near("ib.rcv_packets", "mlx5_0/1", 1000)
    near("ib.xmit_packets", "mlx5_0/1", 500)
    near("ib.xmit_wait", "mlx5_0/1", 10000)
    near("ib.symbol_errors", "mlx5_0/1", 0, 0, True)
    near("ib.rcv_errors", "mlx5_0/1", 0, 0, True)
    near("ib.rcv_bytes", "mlx4_0/1", 200000)
    near("ib.xmit_bytes", "mlx4_0/1", 0, 0, True)
    near("ib.xmit_bytes", "hfi1_0/1", 40000)
    near("ib.rcv_bytes", "mlx5_1/1", 0, 0, True)
    for k in ("ib.rcv_bytes", "ib.xmit_bytes", "ib.rcv_packets",
              "ib.symbol_errors", "ib.link_downed"):
        absent(k, "rxe0/1")
    exact("ib.state", "mlx5_0/1", "ACTIVE")
    exact("ib.state", "mlx5_1/1", "DOWN")
    exact("ib.state", "mlx4_0/2", "INIT")
    exact("ib.state", "rxe0/1", "ACTIVE")
    exact("ib.phys_state", "mlx5_1/1", "Disabled")
    exact("ib.rate", "mlx5_0/1", "100 Gb/sec (4X EDR)")
    exact("ib.speed_mbps", "mlx5_0/1", 100000)
    exact("ib.speed_mbps", "mlx4_0/2", 2500)
    exact("ib.link_layer", "mlx5_0/1", "InfiniBand")
    exact("ib.link_layer", "rxe0/1", "Ethernet")
elif mode == "lustre":
    source("lustre", "on")
    same("llite", insts("llite."), {"scratch-ffff8f0e1a2b3000",
                                    "scratch-ffff8f0e99990000", "home"})
    same("osc", insts("osc."), {"scratch-OST0000-osc-ffff8f0e1a2b3000",
                                "scratch-OST0000-osc-ffff8f0e99990000",
                                "scratch-OST0001"})
    s = "scratch-ffff8f0e1a2b3000"
    near("llite.read_bytes", s, 2000000)
    near("llite.write_bytes", s, 1000000)
    near("llite.reads", s, 20)
    near("llite.writes", s, 0, 0, True)
    near("llite.open", s, 100)
    near("llite.close", s, 100)
    near("llite.getattr", s, 1000)
    near("llite.statfs", s, 0, 0, True)
    # never counted, so missing from the file: 0, not absent
    near("llite.fsync", s, 0, 0, True)
    near("llite.mmap", "home", 0, 0, True)
    o = "scratch-OST0000-osc-ffff8f0e1a2b3000"
    near("osc.write_bytes", o, 1000000)
    near("osc.writes", o, 10)
    near("osc.read_bytes", o, 0, 0, True)
    near("osc.reqs", o, 50)
    near("osc.req_wait_us", o, 5000)
    near("osc.read_bytes", "scratch-OST0001", 0, 0, True)
elif mode == "lustre-new":
    source("lustre", "on")
    same("llite", insts("llite."), {"work"})
    same("osc", insts("osc."), {"work-OST0003"})
    near("llite.read_bytes", "work", 3000000)
    near("llite.reads", "work", 10)
    near("llite.fsync", "work", 50)
    near("llite.write_bytes", "work", 0, 0, True)
    near("osc.reqs", "work-OST0003", 0, 0, True)
elif mode == "nfs":
    source("nfs", "on")
    h, d = "/home", "/mnt/my\\040data"
    same("mounts", insts("nfs."), {h, d})
    near("nfs.read_bytes", h, 1000000)
    near("nfs.server_read_bytes", h, 1000000)
    near("nfs.write_bytes", h, 0, 0, True)
    near("nfs.read_ops", h, 100)
    near("nfs.read_rtt", h, 2000)
    near("nfs.read_exe", h, 3000)
    near("nfs.write_ops", h, 0, 0, True)
    near("nfs.getattr_ops", h, 200)
    near("nfs.ops", h, 300)
    near("nfs.rtt", h, 2000)
    near("nfs.retrans", h, 10, 0.3)
    near("nfs.timeouts", h, 0, 0, True)
    near("nfs.read_bytes", d, 0, 0, True)
    exact("nfs.server", h, "srv1:/home")
    exact("nfs.fstype", h, "nfs4")
    exact("nfs.vers", h, "4.2")
    exact("nfs.server", d, "srv2:/export/data")
    exact("nfs.fstype", d, "nfs")
    exact("nfs.vers", d, "3")
elif mode == "off":
    name, why = sys.argv[3], sys.argv[4]
    source(name, "off: " + why)
    for r in recs:
        for k, v in r.items():
            if k.split(".")[0] in sys.argv[5].split():
                bad.append("%s present while %s is off" % (k, name))
elif mode == "real":
    for name in ("ib", "lustre", "nfs"):
        got = hello.get("sources", {}).get(name, "")
        want = sys.argv[3 + ["ib", "lustre", "nfs"].index(name)]
        if want == "off" and not (got.startswith("off: ") and
                                  len(got) > 10):
            bad.append("source %s: %r, want off with a reason" %
                       (name, got))
        if want == "on" and got != "on":
            bad.append("source %s: %r, want on" % (name, got))
for b in bad:
    print(mode + ": " + b)
sys.exit(1 if bad else 0)
EOF

check() {
	python3 "$tmp/check.py" "$@" || fail "$1 checks (records in $2)"
}

# run_moving FIXTURE KIND NAME: sample a copy of FIXTURE while the writer
# moves it; decoded into $tmp/NAME.json.
run_moving() {
	root=$tmp/$3
	cp -R "$FIX/$1" "$root"
	start_writer "$root" "$2"
	"$PROBE" --root "$root" --interval 0.25 --count 12 </dev/null \
	    >"$tmp/$3.bin" 2>"$tmp/$3.err" ||
	    fail "probe on moving $1 exited $?: $(cat "$tmp/$3.err")"
	stop_writer
	decode "$tmp/$3.bin" "$3"
}

run_moving ib-hca ib ib
check ib "$tmp/ib.json"

run_moving lustre-proc lustre lustre
check lustre "$tmp/lustre.json"
run_moving lustre-debugfs lustre lustre-new
check lustre-new "$tmp/lustre-new.json"

# mountstats: the fixture's text with the moving numbers as %(name)d.
python3 - "$FIX/nfs-client/proc/self/mountstats" "$tmp/mountstats.fmt" <<'EOF'
import sys
t = open(sys.argv[1]).read().replace("%", "%%")
t = t.replace("bytes:\t1000000000 2000000 3000 4000 1000000000",
              "bytes:\t%(nread)d 2000000 3000 4000 %(sread)d", 1)
t = t.replace("READ: 1000000 1000005 2 16000 409600 15 1000000 1100000",
              "READ: %(rops)d %(rtrans)d 2 16000 409600 15 "
              "%(rrtt)d %(rexe)d", 1)
t = t.replace("GETATTR: 5000 5000", "GETATTR: %(gops)d %(gops)d", 1)
assert t.count("%(") == 8, t.count("%(")
open(sys.argv[2], "w").write(t)
EOF
[ -s "$tmp/mountstats.fmt" ] || fail "cannot make the mountstats format"
mkdir -p "$tmp/nfs"
cp -R "$FIX/nfs-client/." "$tmp/nfs/"
cp "$tmp/mountstats.fmt" "$tmp/nfs/mountstats.fmt"
: >"$tmp/nfs/proc/self/mountstats"
start_writer "$tmp/nfs" nfs
"$PROBE" --root "$tmp/nfs" --interval 0.25 --count 12 </dev/null \
    >"$tmp/nfs.bin" 2>"$tmp/nfs.err" ||
    fail "probe on moving nfs-client exited $?: $(cat "$tmp/nfs.err")"
stop_writer
decode "$tmp/nfs.bin" nfs
check nfs "$tmp/nfs.json"

# Off, with the reason and no values: a mountstats without NFS mounts, a
# Lustre tree without llite, an infiniband class without ports.
root=$tmp/off
mkdir -p "$root/proc/self" "$root/proc/fs/lustre/osc" \
    "$root/sys/class/infiniband/mlx5_0/ports"
grep '^device' "$FIX/nfs-client/proc/self/mountstats" | grep -v nfs \
    >"$root/proc/self/mountstats"
"$PROBE" --root "$root" --interval 0.05 --count 3 </dev/null \
    >"$tmp/off.bin" || fail "probe on the off tree exited $?"
decode "$tmp/off.bin" off
check off "$tmp/off.json" nfs "no NFS mounts" nfs
check off "$tmp/off.json" lustre "no Lustre client" "llite osc"
check off "$tmp/off.json" ib "no InfiniBand or Omni-Path ports" ib

# This machine: each source is on exactly when its hardware is there.
want_ib=off want_lustre=off want_nfs=off
ls /sys/class/infiniband/*/ports/* >/dev/null 2>&1 && want_ib=on
ls /proc/fs/lustre/llite/*/stats /sys/kernel/debug/lustre/llite/*/stats \
    >/dev/null 2>&1 && want_lustre=on
grep -q ' with fstype nfs4\? statvers=' /proc/self/mountstats 2>/dev/null &&
    want_nfs=on
"$PROBE" --interval 0.1 --count 3 </dev/null >"$tmp/real.bin" ||
    fail "probe on the real /proc exited $?"
decode "$tmp/real.bin" real
check real "$tmp/real.json" $want_ib $want_lustre $want_nfs
echo "ok (this machine: ib $want_ib, lustre $want_lustre, nfs $want_nfs)"
