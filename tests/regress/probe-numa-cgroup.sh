#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-numa-cgroup: the probe's numa and cgroup sources on fixture trees
# under --root, and on this machine.
#
#  - numa-2node (--job 123): two nodes' numastat counters (rates while a
#    writer advances them in place) and meminfo (exact bytes); "ranknuma"
#    per rank from /proc/PID/numa_maps (4 kB pages, a 2 MB huge page line,
#    a file without kernelpagesize_kB) as exact bytes per node; a rank
#    whose numa_maps is missing has no instance, another job's process
#    none either; a mapping added after the third sample shows up within
#    the NUMA_MAPS_EVERY samples numa_maps is read at.
#  - numa-hostile (security review F16): file names that look like counts
#    as the kernel writes them ("file=/tmp/x\040N0=99999999999..."), words
#    only partly counts ("N0=5junk", "kernelpagesize_kB=4x") add nothing;
#    counts whose bytes overflow 64 bits saturate at INT64_MAX.
#  - cgroup-v2 (slurmstepd.scope/job_123) and cgroup-v1 (slurm/uid_1000/
#    job_123 in memory, cpu,cpuacct, blkio and pids): memory current, the
#    job's limit (present), peak, swap, pids and PSI averages exactly;
#    CPU, I/O and PSI totals as rates while a writer advances them.  Then
#    the NODENAME_slurmstepd.scope layout, a v1 job found only through
#    /proc/PID/cgroup, an unlimited job (mem_max absent, not 0), a job id
#    that only prefixes others' (off: "no cgroup for job 12"), no --job.
#  - this machine: numa on with node0's MemTotal as sysfs says, a fake job
#    (a sleep with SLURM_JOB_ID set) has its placement summed as its
#    numa_maps says; its cgroup source is off with "no cgroup for job N"
#    when no directory of that job exists (the lab's case).
# Needs python3 for the writer and the JSON checks.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-numacg.XXXXXX") || exit 1
bg_pids=
cleanup() {
	for p in $bg_pids; do
		kill "$p" 2>/dev/null
	done
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

for fx in numa-2node numa-hostile cgroup-v1 cgroup-v2; do
	[ -d "$FIX/$fx" ] || fail "fixture $fx is missing"
	for job in "--job 123" ""; do
		# shellcheck disable=SC2086
		"$PROBE" --root "$FIX/$fx" $job --interval 0.05 --count 4 \
		    </dev/null >"$tmp/$fx.bin" 2>"$tmp/$fx.err" ||
		    fail "probe on $fx ($job) exited $?: $(cat "$tmp/$fx.err")"
		[ -s "$tmp/$fx.bin" ] ||
		    fail "probe on $fx ($job) wrote nothing"
	done
done

command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read JSON"
[ -x "$JOBTOP" ] || skip "no $JOBTOP"
if ! "$JOBTOP" --decode --json <"$tmp/numa-2node.bin" >"$tmp/try.json" \
    2>/dev/null || ! grep -q '^{' "$tmp/try.json"; then
	"$JOBTOP" --help 2>&1 | grep -q -- '--decode' &&
	    fail "jobtop --decode --json cannot decode the probe's stream"
	skip "jobtop has no --decode yet"
fi

# writer.py ROOT KIND: rewrite KIND's counter files under ROOT in place
# every 50 ms for the milliseconds k elapsed since it started; values only
# grow and keep their width.  ROOT/writer.started appears after the first
# round.
cat >"$tmp/writer.py" <<'EOF'
import os, sys, time

root, kind = sys.argv[1], sys.argv[2]

def put(path, text):
    fd = os.open(os.path.join(root, path.lstrip("/")), os.O_WRONLY)
    os.write(fd, text.encode())
    os.close(fd)

N = "/sys/devices/system/node/"

def numa(k):
    put(N + "node0/numastat", "numa_hit %d\nnuma_miss 0\nnuma_foreign 12\n"
        "interleave_hit 4321\nlocal_node %d\nother_node 1000000\n" %
        (10**9 + k, 10**9 + k))
    put(N + "node1/numastat", "numa_hit 2000000\nnuma_miss 12\n"
        "numa_foreign 0\ninterleave_hit 4300\nlocal_node 1990000\n"
        "other_node %d\n" % (10000 + k // 100))

V2 = "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_123/"

def v2(k):
    put(V2 + "cpu.stat", "usage_usec %d\nuser_usec %d\nsystem_usec %d\n"
        "core_sched.force_idle_usec 0\nnr_periods 0\nnr_throttled 0\n"
        "throttled_usec 0\nnr_bursts 0\nburst_usec 0\n" %
        (10**9 + k * 500, 9 * 10**8 + k * 400, 10**8 + k * 100))
    put(V2 + "io.stat", "8:0 rbytes=%d wbytes=2000 rios=100 wios=4 dbytes=0 "
        "dios=0\n259:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 "
        "dios=0\n" % (10**9 + k * 1000))
    put(V2 + "cpu.pressure", "some avg10=12.34 avg60=5.00 avg300=1.10 "
        "total=%d\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" %
        (10**9 + k))

V1 = "/sys/fs/cgroup/%s/slurm/uid_1000/job_123/"

def v1(k):
    put(V1 % "cpu,cpuacct" + "cpuacct.usage", "%d\n" % (10**12 + k * 2000000))
    put(V1 % "cpu,cpuacct" + "cpuacct.stat", "user %d\nsystem 10000\n" %
        (90000 + k // 10))
    put(V1 % "blkio" + "blkio.throttle.io_service_bytes",
        "8:0 Read %d\n8:0 Write 4096\n8:0 Sync 4096\n8:0 Async 1000000000\n"
        "8:0 Discard 0\n8:0 Total 1000004096\n8:16 Read 8192\n8:16 Write 0\n"
        "8:16 Sync 0\n8:16 Async 8192\n8:16 Discard 0\n8:16 Total 8192\n"
        "Total 1000012288\n" % (10**9 + k * 1000))

fn = {"numa": numa, "v2": v2, "v1": v1}[kind]
t0 = time.time()
fn(0)
open(os.path.join(root, "writer.started"), "w").close()
while True:
    fn(int((time.time() - t0) * 1000))
    time.sleep(0.05)
EOF

writer_pid=
# start_writer ROOT KIND: the writer in the background, once it has
# written (python can take seconds to start on a busy machine).
start_writer() {
	python3 "$tmp/writer.py" "$1" "$2" &
	writer_pid=$!
	bg_pids="$bg_pids $writer_pid"
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
}

decode() {
	"$JOBTOP" --decode --json <"$1" >"$tmp/$2.json" 2>"$tmp/$2.jerr" ||
	    fail "jobtop --decode --json on $2 exited $?: $(cat "$tmp/$2.jerr")"
}

cat >"$tmp/check.py" <<'EOF'
# check.py MODE FILE [ARGS]: assertions on `jobtop --decode --json` records.
import json, statistics, sys

mode, path = sys.argv[1], sys.argv[2]
args = sys.argv[3:]
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
    return v.get(inst) if isinstance(v, dict) else None

def series(key, inst, skip=1):
    return [v for v in (val(r, key, inst) for r in recs[skip:])
            if v is not None]

def near(key, inst, want, tol=0.2, absolute=False):
    s = series(key, inst)
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
    if len(s) != len(recs) or any(v != want for v in s):
        bad.append("%s[%s]: got %r, want %r in all %d records" %
                   (key, inst, s[:4], want, len(recs)))

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
    if got != want:
        bad.append("source %s: %r, want %r" % (name, got, want))

CG2 = "/system.slice/slurmstepd.scope/job_123"
CG1 = "/slurm/uid_1000/job_123"
MB4 = 4096

if len(recs) < 3:
    bad.append("only %d node records" % len(recs))
elif mode == "numa":
    source("numa", "on")
    same("nodes", insts("numa."), {"node0", "node1"})
    near("numa.numa_hit", "node0", 1000)
    near("numa.local_node", "node0", 1000)
    near("numa.other_node", "node0", 0, 0, True)
    near("numa.other_node", "node1", 10, 0.3)
    near("numa.numa_hit", "node1", 0, 0, True)
    exact("numa.mem_total", "node0", 65536000 * 1024)
    exact("numa.mem_free", "node0", 40000000 * 1024)
    exact("numa.mem_used", "node0", 25536000 * 1024)
    exact("numa.mem_free", "node1", 60000000 * 1024)
    exact("numa.mem_file", "node1", 2701 * 1024)
    exact("numa.mem_anon", "node0", 300 * 1024)
    same("ranks", insts("ranknuma."), {"4001", "4002"})
    exact("ranknuma.n0", "4001", (10 + 990 + 8) * MB4)
    exact("ranknuma.n1", "4001", 250 * MB4 + 2 * 2048 * 1024)
    exact("ranknuma.n0", "4002", 0)
    exact("ranknuma.n1", "4002", 2010 * MB4)
    for k in range(2, 8):
        absent("ranknuma.n%d" % k, "4001")
elif mode == "numa-hostile":
    same("ranks", insts("ranknuma."), {"4001", "4005", "4006"})
    exact("ranknuma.n0", "4001", (10 + 990 + 8) * MB4)
    exact("ranknuma.n0", "4005", (2 + 1) * MB4)
    exact("ranknuma.n1", "4005", (3 + 7) * MB4)
    exact("ranknuma.n0", "4006", 2**63 - 1)
    exact("ranknuma.n1", "4006", 2**63 - 1)
elif mode == "numa-change":
    old, new = (10 + 990 + 8) * MB4, (10 + 990 + 8 + 1000) * MB4
    s = series("ranknuma.n0", "4001", 0)
    if len(s) != len(recs) or s[:3] != [old] * 3 or s[-1] != new or \
            any(v not in (old, new) for v in s) or \
            sorted(s, key=lambda v: v == new) != s:
        bad.append("ranknuma.n0[4001] should go once from %d to %d: %r" %
                   (old, new, s))
elif mode == "cgv2":
    source("cgroup", "on")
    same("instances", insts("cgroup."), {CG2})
    exact("cgroup.mem_current", CG2, 3221225472)
    exact("cgroup.mem_max", CG2, 4294967296)
    exact("cgroup.mem_peak", CG2, 3500000000)
    exact("cgroup.mem_swap", CG2, 0)
    exact("cgroup.pids", CG2, 42)
    exact("cgroup.psi_cpu_some10", CG2, 12.34)
    exact("cgroup.psi_mem_some10", CG2, 3.5)
    exact("cgroup.psi_mem_full10", CG2, 1.25)
    exact("cgroup.psi_io_some10", CG2, 0.07)
    exact("cgroup.psi_io_full10", CG2, 0.05)
    near("cgroup.cpu_usage", CG2, 500000)
    near("cgroup.cpu_user", CG2, 400000)
    near("cgroup.cpu_system", CG2, 100000)
    near("cgroup.cpu_throttled", CG2, 0, 0, True)
    near("cgroup.io_rbytes", CG2, 1000000)
    near("cgroup.io_wbytes", CG2, 0, 0, True)
    near("cgroup.psi_cpu_total", CG2, 1000)
    near("cgroup.psi_mem_total", CG2, 0, 0, True)
    near("cgroup.psi_io_total", CG2, 0, 0, True)
    near("cgroup.mem_max_hits", CG2, 0, 0, True)
    near("cgroup.oom_kills", CG2, 0, 0, True)
elif mode == "cgv1":
    tck = hello.get("clk_tck") or 100
    source("cgroup", "on")
    same("instances", insts("cgroup."), {CG1})
    exact("cgroup.mem_current", CG1, 2147483648)
    exact("cgroup.mem_max", CG1, 8589934592)
    exact("cgroup.mem_peak", CG1, 3000000000)
    exact("cgroup.mem_swap", CG1, 4096)
    exact("cgroup.pids", CG1, 17)
    near("cgroup.cpu_usage", CG1, 2000000)
    near("cgroup.cpu_user", CG1, 100 * 1000000 / tck)
    near("cgroup.cpu_system", CG1, 0, 0, True)
    near("cgroup.io_rbytes", CG1, 1000000)
    near("cgroup.io_wbytes", CG1, 0, 0, True)
    near("cgroup.mem_max_hits", CG1, 0, 0, True)
    near("cgroup.oom_kills", CG1, 0, 0, True)
    for f in ("psi_cpu_some10", "psi_mem_some10", "psi_io_total",
              "cpu_throttled"):
        absent("cgroup." + f, CG1)
elif mode == "inst":
    source("cgroup", "on")
    same("instances", insts("cgroup."), {args[0]})
    exact("cgroup.mem_current", args[0], int(args[1]))
    if args[2] == "-":
        absent("cgroup.mem_max", args[0])
    else:
        exact("cgroup.mem_max", args[0], int(args[2]))
elif mode == "off":
    source(args[0], "off: " + args[1])
    if insts(args[0] + "."):
        bad.append("%s values while it is off" % args[0])
elif mode == "real":
    source("numa", "on")
    exact("numa.mem_total", "node0", int(args[0]))
    got = series("ranknuma.n0", args[1], 0)
    want = int(args[2])
    if not got or abs(got[-1] - want) > max(64 * 1024, want // 10):
        bad.append("ranknuma.n0[%s]: %r, numa_maps says %d" %
                   (args[1], got, want))
    source("cgroup", "off: no cgroup for job " + args[3])
for b in bad:
    print(mode + ": " + b)
sys.exit(1 if bad else 0)
EOF

check() {
	python3 "$tmp/check.py" "$@" || fail "$1 checks (records in $2)"
}

# probe ROOT NAME [ARGS]: sample ROOT into $tmp/NAME.json.
probe() {
	root=$1 name=$2
	shift 2
	"$PROBE" --root "$root" "$@" </dev/null >"$tmp/$name.bin" \
	    2>"$tmp/$name.err" ||
	    fail "probe on $name exited $?: $(cat "$tmp/$name.err")"
	decode "$tmp/$name.bin" "$name"
}

# numa: rates, memory, placement.
root=$tmp/numa
cp -R "$FIX/numa-2node" "$root"
start_writer "$root" numa
probe "$root" numa --job 123 --interval 0.25 --count 12
stop_writer
check numa "$tmp/numa.json"

# A mapping added to rank 0 once the probe has sent 3 samples: seen
# within the 10 samples numa_maps is read at.  A process that maps memory
# runs: its schedstat moves with it (the probe skips rereading the
# placement of a process that did not run).
root=$tmp/numa2
cp -R "$FIX/numa-2node" "$root"
"$PROBE" --root "$root" --job 123 --interval 0.2 --count 20 </dev/null \
    >"$tmp/numa2.bin" 2>"$tmp/numa2.err" &
probe_pid=$!
bg_pids="$bg_pids $probe_pid"
n=0
while [ "$("$JOBTOP" --decode --json <"$tmp/numa2.bin" 2>/dev/null |
    grep -c '"type":"node"')" -lt 3 ]; do
	n=$((n + 1))
	[ $n -gt 600 ] && fail "the probe sent no samples"
	sleep 0.05
done
printf '%s %s\n' '7f3000000000 default anon=1000 dirty=1000 N0=1000' \
    'kernelpagesize_kB=4' >>"$root/proc/4001/numa_maps"
echo '1500000 2000 5' >"$root/proc/4001/schedstat"
wait "$probe_pid" ||
    fail "probe on numa2 exited $?: $(cat "$tmp/numa2.err")"
decode "$tmp/numa2.bin" numa2
check numa-change "$tmp/numa2.json"

# cgroup v2 and v1 with their writers.
root=$tmp/cgv2
cp -R "$FIX/cgroup-v2" "$root"
start_writer "$root" v2
probe "$root" cgv2 --job 123 --interval 0.25 --count 12
stop_writer
check cgv2 "$tmp/cgv2.json"

root=$tmp/cgv1
cp -R "$FIX/cgroup-v1" "$root"
start_writer "$root" v1
probe "$root" cgv1 --job 123 --interval 0.25 --count 12
stop_writer
check cgv1 "$tmp/cgv1.json"

# v2 with the node name in the scope (several slurmd on one host).
root=$tmp/cgv2n
cp -R "$FIX/cgroup-v2" "$root"
mv "$root/sys/fs/cgroup/system.slice/slurmstepd.scope" \
    "$root/sys/fs/cgroup/system.slice/node07_slurmstepd.scope"
probe "$root" cgv2n --job 123 --interval 0.05 --count 3
check inst "$tmp/cgv2n.json" \
    /system.slice/node07_slurmstepd.scope/job_123 3221225472 4294967296

# v1 under the PBS hook's path, which no directory search knows: found
# from a process's cgroup file, anchored at the hierarchy's root.
root=$tmp/cgv1p
cp -R "$FIX/cgroup-v1" "$root"
for c in memory cpu,cpuacct blkio pids; do
	mkdir -p "$root/sys/fs/cgroup/$c/pbs_jobs.service/jobid"
	mv "$root/sys/fs/cgroup/$c/slurm/uid_1000/job_123" \
	    "$root/sys/fs/cgroup/$c/pbs_jobs.service/jobid/123.pbs01"
	rm -rf "$root/sys/fs/cgroup/$c/slurm"
done
mkdir -p "$root/proc/77"
printf '%s\n' '10:freezer:/pbs_jobs.service/jobid/123.pbs01' \
    '6:memory:/pbs_jobs.service/jobid/123.pbs01' \
    '4:cpu,cpuacct:/pbs_jobs.service/jobid/123.pbs01' \
    '1:name=systemd:/system.slice/pbs.service' '0::/' \
    >"$root/proc/77/cgroup"
probe "$root" cgv1p --job 123 --interval 0.05 --count 3
check inst "$tmp/cgv1p.json" /pbs_jobs.service/jobid/123.pbs01 \
    2147483648 8589934592

# Slurm in a container: system.slice beside PID 1's cgroup (the path is
# too long for an instance name, so the instance is "job").
root=$tmp/cgv2c
cp -R "$FIX/cgroup-v2" "$root"
mkdir -p "$root/sys/fs/cgroup/docker.slice/docker-c1.scope" "$root/proc/1"
mv "$root/sys/fs/cgroup/system.slice" \
    "$root/sys/fs/cgroup/docker.slice/docker-c1.scope/system.slice"
echo '0::/docker.slice/docker-c1.scope/init.scope' >"$root/proc/1/cgroup"
probe "$root" cgv2c --job 123 --interval 0.05 --count 3
check inst "$tmp/cgv2c.json" job 3221225472 4294967296

# numa_maps that try to lie or overflow.
probe "$FIX/numa-hostile" numahostile --job 123 --interval 0.05 --count 3
check numa-hostile "$tmp/numahostile.json"

# Look-alikes are not the job's cgroup (security review F3): the same
# directories anywhere but at the scheduler's own root (/batch/uid_U/job_N,
# a user's delegated user@U.service subtree holding system.slice/
# slurmstepd.scope/job_N), and with --uid a v1 directory of another uid.
root=$tmp/cgv1a
cp -R "$FIX/cgroup-v1" "$root"
for c in memory cpu,cpuacct blkio pids; do
	mv "$root/sys/fs/cgroup/$c/slurm" "$root/sys/fs/cgroup/$c/batch"
done
mkdir -p "$root/proc/77"
printf '%s\n' '6:memory:/batch/uid_1000/job_123/step_0/task_0' '0::/' \
    >"$root/proc/77/cgroup"
probe "$root" cgv1a --job 123 --interval 0.05 --count 3
check off "$tmp/cgv1a.json" cgroup "no cgroup for job 123"
root=$tmp/cgv2a
cp -R "$FIX/cgroup-v2" "$root"
fake=user.slice/user-2000.slice/user@2000.service/system.slice
mkdir -p "$root/sys/fs/cgroup/$fake"
mv "$root/sys/fs/cgroup/system.slice/slurmstepd.scope" \
    "$root/sys/fs/cgroup/$fake/slurmstepd.scope"
mkdir -p "$root/proc/78"
echo "0::/$fake/slurmstepd.scope/job_123/step_0" >"$root/proc/78/cgroup"
probe "$root" cgv2a --job 123 --interval 0.05 --count 3
check off "$tmp/cgv2a.json" cgroup "no cgroup for job 123"
probe "$FIX/cgroup-v1" cgv1u --job 123 --uid 1001 --interval 0.05 --count 3
check off "$tmp/cgv1u.json" cgroup "no cgroup for job 123"
probe "$FIX/cgroup-v1" cgv1o --job 123 --uid 1000 --interval 0.05 --count 3
check inst "$tmp/cgv1o.json" /slurm/uid_1000/job_123 2147483648 8589934592

# No limit: absent, not 0 (v2 "max", v1 PAGE_COUNTER_MAX pages).
probe "$FIX/cgroup-v2" cgmax --job 1234 --interval 0.05 --count 3
check inst "$tmp/cgmax.json" /system.slice/slurmstepd.scope/job_1234 1 -
probe "$FIX/cgroup-v1" cg12 --job 12 --interval 0.05 --count 3
check inst "$tmp/cg12.json" /slurm/uid_1000/job_12 5 -

# Off, with the reason: a job id that only prefixes other jobs' ids, no
# job at all, a kernel without NUMA.
probe "$FIX/cgroup-v2" cgnone --job 12 --interval 0.05 --count 3
check off "$tmp/cgnone.json" cgroup "no cgroup for job 12"
probe "$FIX/cgroup-v2" cgnojob --interval 0.05 --count 3
check off "$tmp/cgnojob.json" cgroup "no job given (--job)"
probe "$FIX/cgroup-v2" nonuma --interval 0.05 --count 3
check off "$tmp/nonuma.json" numa \
    "no NUMA support (no /sys/devices/system/node)"

# This machine: numa from sysfs, a fake job's placement, no job cgroup.
[ -r /sys/devices/system/node/node0/meminfo ] ||
    skip "this machine has no NUMA node in sysfs"
job=$((900000 + $$ % 90000))
SLURM_JOB_ID=$job sleep 60 &
sleeper=$!
bg_pids="$bg_pids $sleeper"
sleep 0.3
"$PROBE" --job "$job" --interval 0.2 --count 3 </dev/null \
    >"$tmp/real.bin" || fail "probe on the real /proc exited $?"
total=$(awk '/MemTotal/ { printf "%.0f\n", $4 * 1024 }' \
    /sys/devices/system/node/node0/meminfo)
placed=$(awk '{ kb = 4; n = 0
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^kernelpagesize_kB=/) { split($i, a, "="); kb = a[2] }
		if ($i ~ /^N0=/) { split($i, b, "="); n = b[2] }
	}
	s += n * kb * 1024 } END { printf "%.0f\n", s }' \
    "/proc/$sleeper/numa_maps")
decode "$tmp/real.bin" real
check real "$tmp/real.json" "$total" "$sleeper" "$placed" "$job"
echo "ok"
