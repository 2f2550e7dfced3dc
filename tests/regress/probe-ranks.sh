#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-ranks: the probe's "rank" source finds exactly the job's processes
# and reports what /proc says of them.
#
# Fixture trees (tests/data/fixtures/ranks-*), each sampled with
#	jobtop-probe --root FIXTURE --job 123 --count 2 --interval 0.1
# and decoded by `jobtop --decode --json`: a cgroup v1 Slurm layout, a
# cgroup v2 slurmstepd.scope one (batch and extern steps hidden behind the
# tasks of step 0), the NODENAME_slurmstepd.scope variant with a batch-only
# job, step daemons' descendants without job cgroups (a zombie, a stopped
# process, a parent with a higher pid than its child, a child that has not
# exec'd yet; a wrapper and the program it runs, one rank), and
# environments only (PBS, LSF, OAR, a 20 kB variable).
# Each holds processes that must not match: jobs 12 and 1234 (prefix
# traps), job 456's cgroup, other jobs' step daemons, look-alike names.
# Every sample must list exactly the expected pids with their rank ids,
# step, state, comm, wchan, syscall and rss (stat's resident pages times
# the page size).  ranks-intruders (security review F3) is ranks-cgv2 plus
# processes that must not pass for job 123's ranks: another user's process
# in a cgroup it made to look like Slurm's, a step daemon look-alike that
# root does not own and its child claiming rank 0, the owner's process in
# a look-alike below user@1000.service, and, refused only with --uid 1000,
# another user's process with SLURM_JOB_ID=123 in its environment, one in
# the job's real cgroup, one under the real step daemon, a v1 cgroup of
# another uid, and a root child of the step daemon (not yet the owner's),
# which becomes a rank once its status says uid 1000.  Then a background loop advances one rank's utime in its
# stat file while the probe samples: its CPU time must grow and its rate
# show, while its idle peer stays at zero.  Last, on the real /proc: a
# fake job (sleeps and a busy loop with SLURM_JOB_ID set) must be found
# exactly, and neither the probe nor its parent shell, which carry the
# same SLURM_JOB_ID, may appear; as root with --uid 0, neither may a
# process of another uid (nobody) that carries it.
#
# Needs python3 to read the JSON.  Skips (77) until jobtop has --decode.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-ranks.XXXXXX") || exit 1
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

# Robustness first, without a decoder: every fixture, with and without
# --job, must end in a clean exit with output.
for fx in ranks-cgv1 ranks-cgv2 ranks-cgv2-nodename ranks-stepd ranks-env \
    ranks-intruders; do
	[ -d "$FIX/$fx/proc" ] || fail "fixture $fx is missing"
	for job in "--job 123" "--job 123 --uid 1000" "--uid 1000" ""; do
		# shellcheck disable=SC2086
		"$PROBE" --root "$FIX/$fx" $job --interval 0.05 --count 3 \
		    </dev/null >"$tmp/$fx.bin" 2>"$tmp/$fx.err" ||
		    fail "probe on $fx ($job) exited $?: $(cat "$tmp/$fx.err")"
		[ -s "$tmp/$fx.bin" ] ||
		    fail "probe on $fx ($job) wrote nothing"
	done
done

command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read JSON"
[ -x "$JOBTOP" ] || skip "no $JOBTOP"
if ! "$JOBTOP" --decode --json <"$tmp/ranks-cgv1.bin" >"$tmp/try.json" \
    2>/dev/null || ! grep -q '^{' "$tmp/try.json"; then
	"$JOBTOP" --help 2>&1 | grep -q -- '--decode' &&
	    fail "jobtop --decode --json cannot decode the probe's stream"
	skip "jobtop has no --decode yet"
fi
PAGE=$(getconf PAGESIZE)

cat >"$tmp/check.py" <<'EOF'
# check.py MODE FILE [ARGS]: assertions on the rank records of
# `jobtop --decode --json` output, grouped into samples.
import json, os, sys

mode, path, page = sys.argv[1], sys.argv[2], int(sys.argv[3])
hello, samples = None, []
for line in open(path):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    if r.get("type") == "hello":
        hello = r
    elif r.get("type") == "node":
        samples.append([])
    elif r.get("type") == "rank":
        if not samples:
            samples.append([])
        samples[-1].append(r)
bad = []

# Expected ranks per fixture: pid -> (rank, step, state, comm, wchan,
# syscall, rss pages, has io).  None: the key must be absent.
N = None
EXPECT = {
    "ranks-cgv1": {
        1001: (0, "0", "S", "lmp", "pipe_read", 0, 25600, True),
        1002: (1, "0", "R", "x) (y", N, -1, 26112, True),
        1003: (N, "0", "D", "orted", "io_schedule", 17, 2048, False),
    },
    "ranks-cgv2": {
        621: (0, "0", "R", "python3", N, -1, 51200, True),
        622: (1, "0", "S", "python3", "futex_wait_queue", 202, 50176, True),
    },
    "ranks-cgv2-nodename": {
        801: (N, "batch", "S", "bash", "do_wait", 61, 1000, True),
        802: (N, "batch", "R", "python", N, -1, 131072, True),
    },
    # A rank is its process tree: 2002 (sh, rank 0 too) and 2004 (a
    # zombie without a rank id) are folded into 2001, 2005 (a.out, rank
    # 1) into the wrapper 2101 that runs it; their memory counts there.
    "ranks-stepd": {
        2001: (0, "0", "S", "mpi_app", "ep_poll", 232, 40300, True),
        2003: (N, "0", "S", "slurmstepd", "do_wait", 61, 1000, True),
        2101: (1, "0", "S", "bash", "do_wait", 61, 6000, True),
    },
    "ranks-env": {
        3001: (0, N, "S", "pbs_app", "pipe_read", 0, 1000, True),
        3003: (3, N, "R", "lsf_app", N, -1, 1000, True),
        3004: (N, N, "S", "oar_app", "do_nanosleep", 35, 1000, True),
        3005: (6, N, "S", "oar_app", "do_nanosleep", 35, 1000, True),
        3007: (9, "2", "S", "slurm_app", "pipe_read", 0, 1000, True),
        3008: (N, N, "S", "pbs_app", "pipe_read", 0, 1000, True),
    },
}
# With --uid 1000 only the job's real ranks remain.
EXPECT["ranks-intruders"] = EXPECT["ranks-cgv2"]
# Fields beyond the table's: a launcher's daemon (orted) is a helper; how
# many live processes a rank's tree holds.
EXTRA = {
    "ranks-cgv1": {1001: {"rank.procs": 1}, 1003: {"rank.helper": 1}},
    "ranks-stepd": {2001: {"rank.procs": 3, "rank.helper": N},
                    2101: {"rank.procs": 2}},
}

def pids(s):
    return sorted(r.get("pid") for r in s)

def same(what, got, want):
    if got != want:
        bad.append("%s: got %r, want %r" % (what, got, want))

if hello is None or hello.get("sources", {}).get("ranks") != "on":
    bad.append("HELLO does not say the ranks source is on: %r" % hello)

if mode in EXPECT:
    want = EXPECT[mode]
    same("samples", len(samples), 2)
    for i, s in enumerate(samples):
        same("sample %d pids" % i, pids(s), sorted(want))
        for r in s:
            pid = r.get("pid")
            if pid not in want:
                continue
            rank, step, state, comm, wchan, sysc, rss, io = want[pid]
            w = "sample %d pid %d " % (i, pid)
            same(w + "rank", r.get("rank"), rank)
            same(w + "step", r.get("rank.step"), step)
            same(w + "state", r.get("state"), state)
            same(w + "comm", r.get("rank.comm"), comm)
            same(w + "wchan", r.get("rank.wchan"), wchan)
            same(w + "syscall", r.get("rank.syscall"), sysc)
            same(w + "rss", r.get("rank.rss"), rss * page)
            same(w + "pid field", r.get("rank.pid", pid), pid)
            for k, v in EXTRA.get(mode, {}).get(pid, {}).items():
                same(w + k, r.get(k), v)
            for k in ("rank.ppid", "rank.start_time", "rank.threads",
                      "rank.vsize", "rank.processor"):
                if not isinstance(r.get(k), int):
                    bad.append(w + "has no integer " + k)
            # Counters are rates: present from the second sample on.
            if i > 0:
                for k in ("rank.utime", "rank.stime", "rank.minflt",
                          "rank.vol_ctxsw", "rank.invol_ctxsw"):
                    if k not in r:
                        bad.append(w + "lacks " + k)
                same(w + "has read_bytes", "rank.read_bytes" in r, io)
                same(w + "has write_bytes", "rank.write_bytes" in r, io)
elif mode == "intruders-nouid":
    # Without --uid only the uid check is missing: the look-alikes (900
    # cgroup, 901 step daemon not root's and its child 902, 907 below
    # user@1000.service) are refused all the same.
    want = [621, 622, 903, 904, 905, 906, 908]
    same("samples", len(samples), 2)
    for i, s in enumerate(samples):
        same("sample %d pids" % i, pids(s), want)
elif mode == "intruders-setuid":
    # 906, root child of the step daemon, takes uid 1000 during the run:
    # absent first, a rank (2, from its environment) after.
    seen = [906 in pids(s) for s in samples]
    if len(samples) < 6:
        bad.append("only %d samples" % len(samples))
    for i, s in enumerate(samples):
        extra = sorted(set(pids(s)) - {621, 622, 906})
        if extra:
            bad.append("sample %d lists intruders %s" % (i, extra))
    if not samples or seen[0]:
        bad.append("906 listed while root's: %s" % seen)
    if not seen or not seen[-1]:
        bad.append("906 never listed once the owner's: %s" % seen)
    for s in samples:
        for r in s:
            if r.get("pid") == 906:
                same("906 rank", r.get("rank"), 2)
                same("906 step", r.get("rank.step"), "0")
elif mode == "moving":
    # pid 621's utime advances (rewritten), 622 stays idle.
    cpu = {621: [], 622: []}
    rate = {621: [], 622: []}
    for s in samples:
        for r in s:
            if r.get("pid") in cpu:
                cpu[r["pid"]].append(r.get("rank.cputime"))
                if "rank.utime" in r:
                    rate[r["pid"]].append(r["rank.utime"])
    if len(samples) < 4:
        bad.append("only %d samples" % len(samples))
    c = [v for v in cpu[621] if v is not None]
    if len(c) < 3 or not c[-1] > c[0]:
        bad.append("pid 621 cputime did not grow: %s" % cpu[621])
    if not [v for v in rate[621] if v > 0]:
        bad.append("pid 621 utime rate never positive: %s" % rate[621])
    if [v for v in rate[622] if v != 0]:
        bad.append("pid 622 (idle) has utime rate: %s" % rate[622])
    if len(set(v for v in cpu[622] if v is not None)) > 1:
        bad.append("pid 622 (idle) cputime moved: %s" % cpu[622])
elif mode == "real":
    # ARGS: probe pid, wrapper shell pid, then pid:rank:kind ...
    probe, shell = int(sys.argv[4]), int(sys.argv[5])
    want = {}
    for a in sys.argv[6:]:
        if a.startswith("not:"):
            for i, s in enumerate(samples):
                if int(a[4:]) in pids(s):
                    bad.append("sample %d lists %s, another uid's" %
                               (i, a[4:]))
            continue
        pid, rank, kind = a.split(":")
        want[int(pid)] = (int(rank), kind)
    if len(samples) < 3:
        bad.append("only %d samples" % len(samples))
    for i, s in enumerate(samples):
        got = pids(s)
        if probe in got or shell in got:
            bad.append("sample %d lists the probe (%d) or its shell (%d): "
                       "%s" % (i, probe, shell, got))
        same("sample %d pids" % i, got, sorted(want))
    last = {r["pid"]: r for r in samples[-1]} if samples else {}
    for pid, (rank, kind) in want.items():
        r = last.get(pid)
        if r is None:
            continue
        same("pid %d rank" % pid, r.get("rank"), rank)
        try:
            with open("/proc/%d/stat" % pid) as f:
                st = f.read()
        except OSError:
            bad.append("pid %d vanished" % pid)
            continue
        fl = st[st.rindex(")") + 2:].split()
        rss = int(fl[21]) * page
        got = r.get("rank.rss", -1)
        if abs(got - rss) > max(rss * 0.05, 1 << 20):
            bad.append("pid %d rss %d, /proc says %d" % (pid, got, rss))
        if kind == "sleep":
            same("pid %d state" % pid, r.get("state"), "S")
            if not r.get("rank.wchan"):
                bad.append("pid %d sleeps without a wchan" % pid)
            if r.get("rank.cpu") not in (None, 0):
                bad.append("pid %d sleeps at %r%% CPU" % (pid,
                           r.get("rank.cpu")))
        else:
            ticks = int(fl[11]) + int(fl[12])
            ct = r.get("rank.cputime")
            if ct is None or ct <= 0 or ct > ticks / 100.0 + 0.5:
                bad.append("pid %d (busy) cputime %r, /proc says %d ticks"
                           % (pid, ct, ticks))
for b in bad:
    print(mode + ": " + b)
sys.exit(1 if bad else 0)
EOF

for fx in ranks-cgv1 ranks-cgv2 ranks-cgv2-nodename ranks-stepd ranks-env \
    ranks-intruders; do
	uid=
	[ "$fx" = ranks-intruders ] && uid="--uid 1000"
	# shellcheck disable=SC2086
	"$PROBE" --root "$FIX/$fx" --job 123 $uid --count 2 --interval 0.1 \
	    </dev/null |
	    "$JOBTOP" --decode --json >"$tmp/$fx.json" 2>"$tmp/$fx.jerr" ||
	    fail "probe | jobtop --decode --json on $fx failed:" \
	    "$(cat "$tmp/$fx.jerr")"
	python3 "$tmp/check.py" "$fx" "$tmp/$fx.json" "$PAGE" ||
	    fail "$fx: rank records disagree with the fixture"
	echo "ok: $fx"
done

# The intruders without --uid: only the look-alikes are refused.  A root
# probe says in the ranks source's reason (in HELLO) that it has no uid.
"$PROBE" --root "$FIX/ranks-intruders" --job 123 --count 2 --interval 0.1 \
    </dev/null >"$tmp/nouid.bin" || fail "probe without --uid failed"
"$JOBTOP" --decode --json <"$tmp/nouid.bin" >"$tmp/nouid.json" ||
    fail "jobtop --decode --json on the run without --uid failed"
python3 "$tmp/check.py" intruders-nouid "$tmp/nouid.json" "$PAGE" ||
    fail "ranks-intruders without --uid"
if [ "$(id -u)" = 0 ]; then
	grep -aq 'no --uid: processes of every user' "$tmp/nouid.bin" ||
	    fail "a root probe with --job and no --uid does not say so"
	"$PROBE" --root "$FIX/ranks-intruders" --job 123 --uid 1000 \
	    --count 1 </dev/null | grep -aq 'no --uid' &&
	    fail "a probe with --uid says it has none"
fi
echo "ok: ranks-intruders without --uid"

# A root child of the step daemon takes the owner's uid (as Slurm's task
# does before its exec): the probe looks at it again at its next scan (a
# new pid in /proc/loadavg) and lists it from then on.
cp -R "$FIX/ranks-intruders" "$tmp/setuid"
(
	sleep 0.5
	sed 's/^Uid:.*/Uid:\t1000\t1000\t1000\t1000/' \
	    "$tmp/setuid/proc/906/status" >"$tmp/status.new"
	mv "$tmp/status.new" "$tmp/setuid/proc/906/status"
	printf '0.52 0.58 0.59 3/212 909\n' >"$tmp/loadavg.new"
	dd if="$tmp/loadavg.new" of="$tmp/setuid/proc/loadavg" bs=4096 \
	    conv=notrunc status=none 2>/dev/null
) &
bg_pids="$bg_pids $!"
"$PROBE" --root "$tmp/setuid" --job 123 --uid 1000 --count 8 \
    --interval 0.15 </dev/null |
    "$JOBTOP" --decode --json >"$tmp/setuid.json" 2>"$tmp/setuid.jerr" ||
    fail "probe on the setuid fixture failed: $(cat "$tmp/setuid.jerr")"
python3 "$tmp/check.py" intruders-setuid "$tmp/setuid.json" "$PAGE" ||
    fail "a step daemon's child that became the owner's"
echo "ok: a step daemon's root child is a rank once it is the owner's"

# Slurm in a container: it puts system.slice beside PID 1's cgroup, and so
# does the probe.  ranks-cgv2 moved below /docker.slice/docker-c1.scope
# gives the same ranks, 622 (made a child of pid 1, its SLURM_JOB_ID
# renamed) through its cgroup alone; /system.slice at the root, not Slurm's there, counts for nothing
# (711 moved there stays out).
cp -R "$FIX/ranks-cgv2" "$tmp/container"
mkdir -p "$tmp/container/proc/1"
echo '0::/docker.slice/docker-c1.scope/init.scope' \
    >"$tmp/container/proc/1/cgroup"
for f in "$tmp"/container/proc/[0-9]*/cgroup; do
	sed -i 's|^0::/system.slice/|0::/docker.slice/docker-c1.scope/system.slice/|' \
	    "$f"
done
echo '0::/system.slice/slurmstepd.scope/job_123/step_0/user/task_3' \
    >"$tmp/container/proc/711/cgroup"
sed -i 's/^622 (python3) S 620 /622 (python3) S 1 /' \
    "$tmp/container/proc/622/stat"
sed -i 's/SLURM_JOB_ID=/SLURM_JOB_XX=/' "$tmp/container/proc/622/environ"
grep -q '^622 (python3) S 1 ' "$tmp/container/proc/622/stat" &&
    ! grep -aq SLURM_JOB_ID "$tmp/container/proc/622/environ" ||
    fail "cannot make 622 a child of pid 1 without SLURM_JOB_ID"
"$PROBE" --root "$tmp/container" --job 123 --uid 1000 --count 2 \
    --interval 0.1 </dev/null |
    "$JOBTOP" --decode --json >"$tmp/container.json" ||
    fail "probe on the container fixture failed"
sed 's/"ranks-cgv2"/"container"/' "$tmp/check.py" >"$tmp/check-c.py"
python3 "$tmp/check-c.py" container "$tmp/container.json" "$PAGE" ||
    fail "Slurm's cgroups beside a container's PID 1"
echo "ok: Slurm's cgroup v2 tree in a container"

# Bad uids: one line, exit 1.
for u in -1 x 1x "" 4294967295 99999999999999999999; do
	if "$PROBE" --job 123 --uid "$u" --count 1 </dev/null \
	    >/dev/null 2>"$tmp/baduid.err"; then
		fail "--uid '$u' accepted"
	fi
	grep -q "^jobtop-probe: bad uid: $u\$" "$tmp/baduid.err" ||
	    fail "--uid '$u': $(cat "$tmp/baduid.err")"
done
echo "ok: bad --uid values are refused"

# Counters move when the files do: advance pid 621's utime (same length,
# written in place with one write, as the probe keeps the file open).
cp -R "$FIX/ranks-cgv2" "$tmp/moving"
stat621=$tmp/moving/proc/621/stat
read -r line <"$stat621"
head=$(echo "$line" | cut -d' ' -f1-13)
tail=$(echo "$line" | cut -d' ' -f15-)
(
	u=1000
	while [ $u -lt 1990 ]; do
		u=$((u + 5))
		printf '%s %d %s\n' "$head" "$u" "$tail" >"$tmp/stat.new"
		dd if="$tmp/stat.new" of="$stat621" bs=4096 conv=notrunc \
		    status=none 2>/dev/null
		sleep 0.05
	done
) &
bg_pids="$bg_pids $!"
"$PROBE" --root "$tmp/moving" --job 123 --count 6 --interval 0.2 </dev/null |
    "$JOBTOP" --decode --json >"$tmp/moving.json" 2>"$tmp/moving.jerr" ||
    fail "probe on a changing fixture failed: $(cat "$tmp/moving.jerr")"
python3 "$tmp/check.py" moving "$tmp/moving.json" "$PAGE" ||
    fail "counters did not follow the fixture"
echo "ok: counters follow a changing stat file"

# The real /proc: a fake job of sleeps and a busy loop.  The id is one no
# real job on this machine is likely to have.
job=97$$
SLURM_JOB_ID=$job SLURM_PROCID=0 sleep 60 &
p0=$!
SLURM_JOB_ID=$job SLURM_PROCID=1 sleep 60 &
p1=$!
SLURM_JOB_ID=$job PMI_RANK=2 sh -c 'while :; do :; done' &
p2=$!
SLURM_JOB_ID=${job}1 SLURM_PROCID=3 sleep 60 &
p3=$!
bg_pids="$bg_pids $p0 $p1 $p2 $p3"
# As root: another uid's process with the job id, refused with --uid 0.
uidarg='' other=''
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    env SLURM_JOB_ID=$job SLURM_PROCID=4 sleep 60 &
	bg_pids="$bg_pids $!"
	uidarg="--uid 0" other="not:$!"
fi
sleep 0.3
# The probe and its parent shell carry the job id too: neither may show.
# shellcheck disable=SC2016
SLURM_JOB_ID=$job sh -c 'echo $$ >"$1/shell.pid"; "$2" --job "$3" $4 \
    --count 4 --interval 0.25 </dev/null >"$1/real.bin" &
    echo $! >"$1/probe.pid"; wait' \
    sh "$tmp" "$PROBE" "$job" "$uidarg" || fail "probe on the real /proc failed"
"$JOBTOP" --decode --json <"$tmp/real.bin" >"$tmp/real.json" \
    2>"$tmp/real.jerr" ||
    fail "jobtop --decode --json on the real run failed:" \
    "$(cat "$tmp/real.jerr")"
python3 "$tmp/check.py" real "$tmp/real.json" "$PAGE" \
    "$(cat "$tmp/probe.pid")" "$(cat "$tmp/shell.pid")" \
    "$p0:0:sleep" "$p1:1:sleep" "$p2:2:busy" $other ||
    fail "the fake job on the real /proc was not reported right"
echo "ok: a fake job on the real /proc"

# --step narrows the job to one Slurm step (jobtop 123.batch, 123.0): the
# step daemon's title names it; without --step the tasks win.
steppids() {
	"$PROBE" --root "$TOP/tests/data/fixtures/ranks-cgv2" --job 123 "$@" \
	    --count 1 --interval 0.1 </dev/null | "$JOBTOP" --decode --json |
	    python3 -c 'import json, sys
print(" ".join(sorted(str(r["pid"]) for r in map(json.loads, sys.stdin)
                      if r.get("type") == "rank")))'
}
[ "$(steppids)" = "621 622" ] || fail "no --step: $(steppids)"
[ "$(steppids --step 0)" = "621 622" ] || fail "--step 0: $(steppids --step 0)"
[ "$(steppids --step batch)" = "601 602" ] ||
    fail "--step batch: $(steppids --step batch)"
[ "$(steppids --step extern)" = "611" ] ||
    fail "--step extern: $(steppids --step extern)"
[ -z "$(steppids --step 7)" ] || fail "--step 7: $(steppids --step 7)"
"$PROBE" --job 123 --step 'x;y' --count 1 </dev/null >/dev/null 2>&1 &&
    fail "a bad --step was taken"
echo "ok: --step narrows to one step"
echo "PASS"
