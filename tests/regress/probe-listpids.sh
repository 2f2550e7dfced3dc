#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-listpids: Slurm's task ids from `scontrol --json listpids` (Slurm
# 24.11 and later) in the probe's rank discovery (probes/ranks-find.c),
# on a real process tree of this machine.
#
# Slurm 24.11 cannot run here (Debian 12 has 22.05 and no slurmd runs
# outside the lab), so a stand-in named scontrol, first in the probe's
# PATH, answers for it: `--version` prints "slurm 24.11.0", and `--json
# listpids 4242` prints what Slurm 24.11's source prints
# (tests/data/listpids/listpids-json.py, see the README there), for the
# processes of this machine: a task is a process whose environment has
# LISTPIDS_GTID (its global task id) that it did not inherit, every other
# descendant of the step daemon is listed with its ids unset, as
# slurmstepd lists its container's other pids.  The step daemon is a copy
# of sh whose title reads "slurmstepd: [4242.0]" (root-owned when the test
# runs as root, then it is the job's step daemon; else its tasks are found
# by their SLURM_JOB_ID).  The stand-in's global ids differ from the
# tasks' SLURM_PROCID (real Slurm's agree) so that the test sees which
# one a rank's id came from:
#	T0  sh (a sleep below it), SLURM_PROCID 0, task 4: rank 4 by
#	    listpids once it answered (by SLURM_PROCID 0 in the first
#	    sample, before any scontrol ran), the sleep folded into it;
#	T1  PMI_RANK 9 and SLURM_PROCID 1, task 5: rank 9 by PMI_RANK (a
#	    launcher's own variable outranks listpids);
#	T2  a per-node agent, task 6, whose worker has RANK 11 beside
#	    WORLD_SIZE: the agent a helper, the worker rank 11 by RANK;
#	T3  no rank variable at all (env -i), task 7: rank 7 by listpids;
#	T4  hydra_pmi_proxy, task 8: a helper, no id;
#	N   a process of the step that is no task: no id;
#	O   a process of no job that the stand-in lists as task 3 of step
#	    0: never a rank (listpids makes nobody the job's);
#	L   a task started 2 s into the run (task 12): a second listpids,
#	    and rank 12.
# scontrol runs once with --version and listpids only when a new task
# appears: the calls are counted.  Then without the stand-in's 24.11 (it
# says slurm-wlm 22.05.8: no listpids run), with a listpids that prints
# the plain table (three failed runs, then no more), with one that hangs
# (killed after 3 s; the samples keep their pace meanwhile, nothing is
# left running after the probe), and without scontrol in PATH: rank ids
# from the environment in every case; the info event ranks-listpids says
# why only where scontrol ran and failed.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-listpids.XXXXXX") || exit 1
stepd=
cleanup() {
	[ -n "$stepd" ] && kill "$stepd" 2>/dev/null
	[ -n "$outsider" ] && kill "$outsider" 2>/dev/null
	# The step's tasks: every process that carries this test's marker.
	for p in $(grep -l "LP_TEST=$tmp" /proc/[0-9]*/environ 2>/dev/null |
	    cut -d/ -f3); do
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

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -x "$JOBTOP" ] || fail "no $JOBTOP (run make)"
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 77; }
command -v bash >/dev/null 2>&1 || { echo "bash is needed (exec -a)"; exit 77; }

mkdir "$tmp/bin" "$tmp/empty"
SH=$(command -v sh)
SLEEP=$(command -v sleep)
cp "$SH" "$tmp/slurmstepd"
cp "$SLEEP" "$tmp/hydra_pmi_proxy"

# The stand-in scontrol (see the top).
cat >"$tmp/bin/scontrol" <<'EOF'
#!/usr/bin/env python3
import importlib.util, os, sys, time
d = os.environ["LP_DIR"]
with open(d + "/calls", "a") as f:
    f.write("%.3f %d %s\n" % (time.time(), os.getpid(), " ".join(sys.argv[1:])))
mode = open(d + "/mode").read().strip()
if sys.argv[1:] == ["--version"]:
    print("slurm-wlm 22.05.8" if mode == "old" else "slurm 24.11.0")
    sys.exit(0)
if sys.argv[1:3] != ["--json", "listpids"] or len(sys.argv) != 4:
    sys.exit(1)
if mode == "hang":
    time.sleep(60)
job = sys.argv[3]
def env(p):
    try:
        e = open("/proc/%s/environ" % p, "rb").read().split(b"\0")
    except OSError:
        return {}
    return dict(x.decode(errors="replace").split("=", 1)
                for x in e if b"=" in x)
def ppid(p):
    try:
        s = open("/proc/%s/stat" % p).read()
    except OSError:
        return 0
    return int(s[s.rindex(")") + 2:].split()[1])
def cmdline(p):
    try:
        return open("/proc/%s/cmdline" % p, "rb").read()
    except OSError:
        return b""
procs = [p for p in os.listdir("/proc") if p.isdigit()]
stepd = [p for p in procs
         if cmdline(p).startswith(b"slurmstepd: [%s.0]" % job.encode())]
tasks, other = [], []
for p in procs:
    e = env(p)
    if e.get("LP_TEST") != d:
        continue
    pe = env(ppid(p))
    if "LISTPIDS_GTID" in e and pe.get("LISTPIDS_GTID") != e["LISTPIDS_GTID"]:
        tasks.append((int(e["LISTPIDS_LTID"]), p, e["LISTPIDS_GTID"]))
    else:
        q, n = p, 0
        while q not in stepd and int(q) > 1 and n < 64:
            q, n = str(ppid(q)), n + 1
        if q in stepd:
            other.append(p)
with open(d + "/spec", "w") as f:
    for l, p, g in sorted(tasks):
        f.write("%s 0 %d %s\n" % (p, l, g))
    for p in sorted(other, key=int):
        f.write("%s 0 - -\n" % p)
spec = importlib.util.spec_from_file_location(
    "lj", os.environ["LP_TOP"] + "/tests/data/listpids/listpids-json.py")
lj = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lj)
if mode == "plain":
    lj.main(["--plain", job, d + "/spec"])
else:
    lj.main([job, d + "/spec"])
EOF
chmod 755 "$tmp/bin/scontrol"
export LP_DIR="$tmp" LP_TOP="$TOP" LP_TEST="$tmp"

# The step daemon and its tasks; L when a line comes through the fifo.
mkfifo "$tmp/late"
J="SLURM_JOB_ID=4242 SLURM_STEP_ID=0"
cat >"$tmp/step.sh" <<EOF
$J SLURM_PROCID=0 SLURM_NTASKS=5 LISTPIDS_GTID=4 LISTPIDS_LTID=0 $SH -c '$SLEEP 300; :' &
$J SLURM_PROCID=1 SLURM_NTASKS=5 PMI_RANK=9 PMI_SIZE=16 LISTPIDS_GTID=5 LISTPIDS_LTID=1 $SLEEP 300 &
$J SLURM_PROCID=2 SLURM_NTASKS=5 LISTPIDS_GTID=6 LISTPIDS_LTID=2 $SH -c 'RANK=11 WORLD_SIZE=16 LOCAL_RANK=0 $SLEEP 300 & wait' &
env -i LP_TEST=$tmp $J LISTPIDS_GTID=7 LISTPIDS_LTID=3 $SLEEP 300 &
$J SLURM_PROCID=4 SLURM_NTASKS=5 LISTPIDS_GTID=8 LISTPIDS_LTID=4 $tmp/hydra_pmi_proxy 300 &
$J $SLEEP 300 &
read x <$tmp/late
$J SLURM_PROCID=3 SLURM_NTASKS=5 LISTPIDS_GTID=12 LISTPIDS_LTID=5 $SLEEP 300 &
wait
EOF
env -u SLURM_JOB_ID bash -c 'exec -a "slurmstepd: [4242.0]" "$0" "$1"' \
    "$tmp/slurmstepd" "$tmp/step.sh" &
stepd=$!
LISTPIDS_GTID=3 LISTPIDS_LTID=9 "$SLEEP" 300 &
outsider=$!

# Wait for the tree: six children of the step daemon, past their exec.
n=0
while [ $n -lt 50 ]; do
	kids=$(ps -o pid= --ppid "$stepd" | wc -l)
	[ "$kids" -ge 6 ] && ! ps -o comm= --ppid "$stepd" | grep -q slurmstepd &&
	    break
	sleep 0.1
	n=$((n + 1))
done
[ "$kids" -ge 6 ] || fail "the step's tasks did not start"
sleep 0.3
pid_of() {	# the child of the step daemon with LISTPIDS_GTID=$1
	for p in $(ps -o pid= --ppid "$stepd"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
		    grep -qx "LISTPIDS_GTID=$1" && { echo "$p"; return; }
	done
}
T0=$(pid_of 4); T1=$(pid_of 5); T2=$(pid_of 6); T3=$(pid_of 7)
T4=$(pid_of 8)
N=$(for p in $(ps -o pid= --ppid "$stepd"); do
	tr '\0' '\n' <"/proc/$p/environ" | grep -q LISTPIDS_GTID || echo "$p"
done)
W=$(ps -o pid= --ppid "$T2" | tr -d ' ')
for v in T0 T1 T2 T3 T4 N W; do
	eval "[ -n \"\$$v\" ]" || fail "no process $v in the tree"
done

# A probe over the tree, the stand-in first in PATH (MODE, COUNT).
run_probe() {
	echo "$1" >"$tmp/mode"
	: >"$tmp/calls"
	PATH="$tmp/bin:/usr/bin:/bin" "$PROBE" --job 4242 --count "$2" \
	    --interval 0.25 </dev/null >"$tmp/out.bin" 2>"$tmp/err" ||
	    fail "probe ($1): $(cat "$tmp/err")"
	"$JOBTOP" --decode --json <"$tmp/out.bin" >"$tmp/out.json" ||
	    fail "jobtop --decode --json ($1)"
}

cat >"$tmp/check.py" <<'EOF'
import json, sys
mode, path, calls = sys.argv[1], sys.argv[2], sys.argv[3]
P = dict(a.split("=") for a in sys.argv[4:])
samples, events, times = [], [], []
for l in open(path):
    r = json.loads(l)
    if r["type"] == "node":
        samples.append({})
        times.append(r["time"])
    elif r["type"] == "rank":
        samples[-1][r["pid"]] = r
    elif r["type"] == "event":
        events.append(r)
ev = [e["text"] for e in events if e.get("code") == "ranks-listpids"]
calls = [l.split() for l in open(calls)]
vers = [c for c in calls if c[2] == "--version"]
lps = [c for c in calls if c[2:4] == ["--json", "listpids"]]
bad = []
def rank(s, v):
    r = samples[s].get(int(P[v]))
    if r is None:
        return None
    return (r.get("rank"), r.get("rank.helper"), r.get("rank.rank_var"),
            r.get("rank.world"), r.get("rank.procs"))
def want(s, v, w):
    g = rank(s, v)
    if g != w:
        bad.append("%s: sample %d %s (pid %s): got %r, want %r" %
                   (mode, s, v, P[v], g, w))
N = None
LP = "scontrol listpids"
env_ids = {"T0": (0, N, "SLURM_PROCID", 5, 2),
           "T1": (9, N, "PMI_RANK", 16, 1), "T2": (N, 1, N, N, 1),
           "W": (11, N, "RANK", 16, 1), "T3": (N, N, N, N, 1),
           "T4": (N, 1, N, N, 1), "N": (N, N, N, N, 1)}
for s in range(len(samples)):
    if int(P["O"]) in samples[s]:
        bad.append("%s: the process of no job is a rank in sample %d" %
                   (mode, s))
# Before any scontrol answered: the environment's ids.
for v, w in env_ids.items():
    want(0, v, w)
last = len(samples) - 1
if mode == "new":
    lp_ids = dict(env_ids, T0=(4, N, LP, 5, 2), T3=(7, N, LP, N, 1))
    for v, w in lp_ids.items():
        want(last, v, w)
    want(last, "L", (12, N, LP, 5, 1))
    t_late = float(P["late"])
    early = [c for c in lps if float(c[0]) < t_late]
    late = [c for c in lps if float(c[0]) >= t_late]
    if len(vers) != 1 or not 1 <= len(early) <= 2 or not 1 <= len(late) <= 2:
        bad.append("%s: scontrol calls: %d --version, %d listpids before "
                   "the late task, %d after; want 1, 1-2, 1-2" %
                   (mode, len(vers), len(early), len(late)))
    if lps and float(lps[-1][0]) > t_late + 2.0:
        bad.append("%s: a listpids %.1f s after the last new task" %
                   (mode, float(lps[-1][0]) - t_late))
    if not ev or "from scontrol listpids (slurm 24.11.0)" not in ev[0]:
        bad.append("%s: ranks-listpids says %r" % (mode, ev))
    print("ok %s: %d samples, scontrol --version %dx, listpids %dx (%d "
          "after the late task); %s" % (mode, len(samples), len(vers),
          len(lps), len(late), ev[0] if ev else ""))
else:
    for v, w in env_ids.items():
        want(last, v, w)
    expect = {"old": (1, 0, ""), "plain": (1, 3, "3 runs"),
              "hang": (1, 2, None), "none": (0, 0, "")}
    nv, nl, text = expect[mode]
    if len(vers) != nv or (mode != "hang" and len(lps) != nl) or \
       (mode == "hang" and not 1 <= len(lps) <= 2):
        bad.append("%s: %d --version, %d listpids calls, want %d, %d" %
                   (mode, len(vers), len(lps), nv, nl))
    # Without scontrol or before 24.11: nothing to say.
    if (text == "" and ev) or (text and (not ev or text not in ev[0])):
        bad.append("%s: ranks-listpids says %r, want %r" % (mode, ev, text))
    gaps = [b - a for a, b in zip(times, times[1:])]
    # A probe that waited for the hung scontrol would skip 3 s.
    if mode == "hang" and max(gaps) > 2.0:
        bad.append("%s: a sample waited %.2f s for scontrol" %
                   (mode, max(gaps)))
    print("ok %s: %d samples, %d --version, %d listpids, longest gap "
          "between samples %.2f s; %s" % (mode, len(samples), len(vers),
          len(lps), max(gaps), ev[0] if ev else "(no event)"))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF

# 24.11: the late task starts 2 s into a 6 s run.
(
	sleep 2
	date +%s.%N >"$tmp/late.time"
	echo go >"$tmp/late"
) &
latepid=$!
run_probe new 24
wait "$latepid"
L=$(pid_of 12)
[ -n "$L" ] || fail "the late task did not start"
python3 "$tmp/check.py" new "$tmp/out.json" "$tmp/calls" T0="$T0" T1="$T1" \
    T2="$T2" T3="$T3" T4="$T4" N="$N" W="$W" L="$L" O="$outsider" \
    late="$(cat "$tmp/late.time")" || fail "with scontrol listpids (24.11)"

# What one call costs: the stand-in (python3 and the json-c it loads),
# not Slurm's scontrol, which asks slurmstepd over a local socket.
python3 - "$tmp/bin/scontrol" <<'EOF'
import os, subprocess, sys, time
t = []
for i in range(5):
    a = time.monotonic()
    subprocess.run([sys.argv[1], "--json", "listpids", "4242"],
                   stdout=subprocess.DEVNULL, check=True)
    t.append(time.monotonic() - a)
print("stand-in scontrol --json listpids: %.1f ms (median of 5)" %
      (sorted(t)[2] * 1000))
EOF

for mode in old plain hang; do
	n=16
	run_probe "$mode" "$n"
	python3 "$tmp/check.py" "$mode" "$tmp/out.json" "$tmp/calls" \
	    T0="$T0" T1="$T1" T2="$T2" T3="$T3" T4="$T4" N="$N" W="$W" \
	    L="$L" O="$outsider" || fail "scontrol mode $mode"
done
# Nothing the hung listpids started is left.
for p in $(awk '{print $2}' "$tmp/calls"); do
	kill -0 "$p" 2>/dev/null && fail "scontrol $p still runs after the probe"
done

# No scontrol at all.
echo none >"$tmp/mode"
: >"$tmp/calls"
PATH="$tmp/empty" "$PROBE" --job 4242 --count 6 --interval 0.25 </dev/null \
    >"$tmp/out.bin" 2>"$tmp/err" || fail "probe without scontrol: $(cat "$tmp/err")"
"$JOBTOP" --decode --json <"$tmp/out.bin" >"$tmp/out.json" || fail "decode"
python3 "$tmp/check.py" none "$tmp/out.json" "$tmp/calls" T0="$T0" T1="$T1" \
    T2="$T2" T3="$T3" T4="$T4" N="$N" W="$W" L="$L" O="$outsider" ||
    fail "without scontrol"
echo PASS
