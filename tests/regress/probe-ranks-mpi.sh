#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-ranks-mpi: MPI launchers' process trees, one row per rank, and the
# ranks' delay accounting.
#
# Fixture tests/data/fixtures/ranks-mpi (made by hand after the lab's real
# MPICH and Open MPI jobs, see tests/lab/test-mpi-launch.sh): under step 0
# a hydra_pmi_proxy carrying SLURM_PROCID=1 runs rank 4 (PMI_RANK) and a
# wrapper script for rank 5 that runs the program, which runs a child of
# its own; under step 1 an orted runs rank 6 (OMPI_COMM_WORLD_RANK), in
# state D with block I/O delay; the batch step holds the batch script
# (SLURM_PROCID=0 alone), mpirun, its srun and rank 7 that mpirun forks
# itself; another job's rank must not show.  Sampled with
#	jobtop-probe --root FIXTURE --job 123 [--step batch]
# and decoded: exactly the ranks 4, 5, 6 (7 and the helpers of the batch
# step with --step batch), with the MPI rank ids, never the proxy's
# SLURM_PROCID; the launchers (hydra_pmi_proxy, orted, mpirun, srun) as
# helpers (rank.helper 1, no rank id); rank 5 as one row with its three
# processes (rank.procs 3) whose memory, CPU time (with the reaped
# children's cutime/cstime) and I/O are summed; the batch script, whose
# only id is SLURM_PROCID and below which mpirun started rank 7, a helper.  delayacct is on where /proc/sys/kernel/task_delayacct is 1 and
# blkio_delay is reported; off with its reason where it is 0, and the field
# absent.  A proxy's child caught between fork and exec (named like the
# proxy, with its environment) is a helper until it execs the rank, then
# rank 9.  Last, jobtop itself watches the fixture (its probe is the real
# one under --root through JOBTOP_PROBE) while a loop advances ranks 4 and
# 5's CPU time and rank 6's block I/O delay: rank 6 is flagged stalled and
# the event says it is waiting on storage; the helpers are never flagged.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures/ranks-mpi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-rmpi.XXXXXX") || exit 1
bg=
cleanup() {
	[ -z "$bg" ] || kill "$bg" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap "" EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -d "$FIX/proc" ] || fail "fixture ranks-mpi is missing"
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 77; }
PAGE=$(getconf PAGESIZE)

# decode ARGS...: probe the fixture with ARGS, decoded to $tmp/out.json
decode() {
	"$PROBE" --root "$FIX" "$@" --count 2 --interval 0.1 </dev/null \
	    >"$tmp/out.bin" 2>"$tmp/err" || fail "probe $*: $(cat "$tmp/err")"
	"$JOBTOP" --decode --json <"$tmp/out.bin" >"$tmp/out.json" ||
	    fail "jobtop --decode --json failed on probe $*"
}

cat >"$tmp/check.py" <<'EOF'
import json, sys
mode, path, page = sys.argv[1], sys.argv[2], int(sys.argv[3])
hello, samples = None, []
for line in open(path):
    r = json.loads(line)
    if r["type"] == "hello":
        hello = r
    elif r["type"] == "node":
        samples.append([])
    elif r["type"] == "rank":
        samples[-1].append(r)
bad = []
def same(what, got, want):
    if got != want:
        bad.append("%s: got %r, want %r" % (what, got, want))
N = None
# pid -> rank id, helper, procs, rss pages, cputime ticks (utime + stime +
# cutime + cstime of every live process of the rank)
if mode == "job":
    want = {4001: (N, 1, 1, 1000, 5), 4002: (4, N, 1, 5000, 1010),
            4003: (5, N, 3, 6000, 321 + 606 + 7),
            4011: (N, 1, 1, 1000, 0), 4012: (6, N, 1, 3000, 50)}
elif mode == "batch":
    want = {4021: (N, 1, 1, 1000, 0), 4022: (N, 1, 1, 1000, 0),
            4023: (N, 1, 1, 1000, 0), 4024: (7, N, 1, 1000, 400)}
same("samples", len(samples), 2)
for i, s in enumerate(samples):
    same("sample %d pids" % i, sorted(r["pid"] for r in s), sorted(want))
    for r in s:
        if r["pid"] not in want:
            continue
        rank, helper, procs, rss, ticks = want[r["pid"]]
        w = "sample %d pid %d " % (i, r["pid"])
        same(w + "rank", r.get("rank"), rank)
        same(w + "helper", r.get("rank.helper"), helper)
        same(w + "procs", r.get("rank.procs"), procs)
        same(w + "rss", r.get("rank.rss"), rss * page)
        same(w + "cputime", round(r.get("rank.cputime", -1) * 100), ticks)
        if i > 0:
            if "rank.blkio_delay" not in r:
                bad.append(w + "lacks blkio_delay (delayacct is on)")
            if "rank.read_bytes" not in r:
                bad.append(w + "lacks read_bytes")
if hello["sources"].get("delayacct") != "on":
    bad.append("delayacct not on: %r" % hello["sources"].get("delayacct"))
for b in bad:
    print(mode + ": " + b)
sys.exit(1 if bad else 0)
EOF

decode --job 123
python3 "$tmp/check.py" job "$tmp/out.json" "$PAGE" ||
    fail "ranks-mpi: the ranks of the MPI job disagree with the fixture"
echo "ok: step 0 and 1: ranks 4, 5 (a wrapper's tree), 6; proxy and orted helpers"
decode --job 123 --step batch
python3 "$tmp/check.py" batch "$tmp/out.json" "$PAGE" ||
    fail "ranks-mpi: the batch step disagrees with the fixture"
echo "ok: batch step: the script, mpirun and srun helpers, rank 7"

# Delay accounting off: said why, the field absent (never a 0 that would
# read as "never waited").
cp -R "$FIX" "$tmp/off"
echo 0 >"$tmp/off/proc/sys/kernel/task_delayacct"
"$PROBE" --root "$tmp/off" --job 123 --count 2 --interval 0.1 </dev/null |
    "$JOBTOP" --decode --json >"$tmp/off.json" || fail "probe with delayacct off"
python3 - "$tmp/off.json" <<'EOF' || fail "delayacct off is not said, or blkio_delay sent"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
why = [r for r in recs if r["type"] == "hello"][0]["sources"]["delayacct"]
assert why.startswith("off") and "task_delayacct" in why, why
ranks = [r for r in recs if r["type"] == "rank"]
assert ranks and not [r for r in ranks if "rank.blkio_delay" in r], ranks
print("ok: delayacct %s" % why)
EOF

# A proxy's child seen between its fork and its exec is named like the
# proxy and has its environment: a helper.  Once it execs the rank (a new
# comm, PMI_RANK=9 in its environment) the probe judges it again: rank 9.
cp -R "$FIX" "$tmp/exec"
mkdir "$tmp/exec/proc/4006"
for f in status cgroup wchan syscall io environ; do
	cp "$tmp/exec/proc/4001/$f" "$tmp/exec/proc/4006/$f"
done
printf 'hydra_pmi_proxy\0' >"$tmp/exec/proc/4006/cmdline"
sed 's/^4001 (hydra_pmi_proxy) S 4000 4001 4001 /4006 (hydra_pmi_proxy) S 4001 4006 4006 /' \
    "$tmp/exec/proc/4001/stat" >"$tmp/exec/proc/4006/stat"
(
	sleep 0.5
	sed 's/^4006 (hydra_pmi_proxy) /4006 (mpiload) /' \
	    "$tmp/exec/proc/4006/stat" >"$tmp/exec/stat.new"
	cat "$tmp/exec/stat.new" >"$tmp/exec/proc/4006/stat"
	printf 'SLURM_JOB_ID=123\0SLURM_PROCID=1\0PMI_RANK=9\0' \
	    >"$tmp/exec/proc/4006/environ"
) &
"$PROBE" --root "$tmp/exec" --job 123 --count 12 --interval 0.1 </dev/null |
    "$JOBTOP" --decode --json >"$tmp/exec.json" || fail "probe on the exec fixture"
wait
python3 - "$tmp/exec.json" <<'EOF' || fail "a proxy's child that execs a rank stays a helper"
import json, sys
seen = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "rank" and r["pid"] == 4006:
        seen.append((r.get("rank"), r.get("rank.helper"), r["rank.comm"]))
assert seen and seen[0] == (None, 1, "hydra_pmi_proxy"), seen
assert seen[-1] == (9, None, "mpiload"), seen
print("ok: pid 4006 %s, then %s" % (seen[0], seen[-1]))
EOF

# The monitor's view: rank 6 in D with growing block I/O delay while 4 and
# 5 compute is stalled, waiting on storage.
[ -x "$JOBTOP" ] || fail "no $JOBTOP"
cp -R "$FIX" "$tmp/live"
# The monitor passes --uid (the fixture's processes are uid 1000's, not
# the runner's) and --job 123 last: the wrapper keeps all but --uid.
cat >"$tmp/probe.sh" <<EOF
#!/bin/sh
n=\$#
while [ \$n -gt 0 ]; do
	if [ "\$1" = --uid ]; then shift 2; n=\$((n - 2)); continue; fi
	set -- "\$@" "\$1"; shift; n=\$((n - 1))
done
exec "$PROBE" --root "$tmp/live" "\$@"
EOF
chmod 755 "$tmp/probe.sh"
cat >"$tmp/move.py" <<'EOF'
import sys, time
root = sys.argv[1]
def bump(pid, field, by):
    p = "%s/proc/%d/stat" % (root, pid)
    s = open(p).read()
    head, tail = s[:s.rindex(")") + 2], s[s.rindex(")") + 2:].split()
    tail[field - 3] = str(int(tail[field - 3]) + by)
    # In place: the probe keeps the file open and reads it again.
    with open(p, "r+") as f:
        f.write(head + " ".join(tail) + "\n")
        f.truncate()
while True:
    bump(4002, 14, 5)
    bump(4004, 14, 5)
    bump(4012, 42, 10)
    time.sleep(0.1)
EOF
python3 "$tmp/move.py" "$tmp/live" &
bg=$!
# Inside job 123 on localhost, as jobtop finds a job from its environment.
env SLURM_JOB_ID=123 SLURM_JOB_NODELIST=localhost SLURM_NTASKS=3 \
    JOBTOP_PROBE="$tmp/probe.sh" "$JOBTOP" -b --json -n 12 -d 0.2 \
    >"$tmp/mon.json" 2>"$tmp/mon.err" || fail "jobtop on the fixture: $(cat "$tmp/mon.err")"
kill "$bg" 2>/dev/null
bg=
python3 - "$tmp/mon.json" <<'EOF' || fail "rank 6 is not stalled waiting on storage"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
evs = [r for r in recs if r["type"] == "event" and r["code"] == "stalled"]
assert evs, "no stalled event: %s" % [r for r in recs if r["type"] == "event"]
assert all("rank 6 " in e["text"] for e in evs), evs
assert "waiting on storage: block I/O delay" in evs[0]["text"], evs[0]
helpers = [r for r in recs if r["type"] == "rank" and r.get("rank.helper")]
assert helpers, "no helper records"
assert not [r for r in helpers if r["flags"]], "a helper flagged"
print("ok: " + evs[0]["text"])
EOF
echo PASS
