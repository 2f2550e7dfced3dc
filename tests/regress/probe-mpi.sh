#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-mpi: the probe's "mpi" source (each rank's share of CPU time in its
# MPI library, from sampled instruction pointers) on real MPICH jobs on
# this machine, and the straggler rule that uses it.
#
#  1. A 4-rank job (tests/data/mpi/imbalance.c, mpiexec.mpich) where rank 2
#     computes 20 times longer between MPI_Allreduce calls: the probe
#     (--job, as root) must give ranks 0, 1 and 3 a median share above 50%
#     with "lib" one of the MPI table's libraries, and rank 2 a median
#     below 20%; the launcher's processes (mpiexec, hydra_pmi_proxy) map no
#     MPI library and must say so in "why", with no counters.
#  2. jobtop on that job (the job's variables, localhost): rank 2, and only
#     it, flagged straggler, its event saying it is what the others wait
#     for, within 12 samples; the export of the recording carries
#     rankmpi.share.
#  3. A balanced job: no flag in 10 samples.
#  4. The same job run by an unprivileged user (nobody) and sampled by a
#     probe of that user (perf_event_paranoid 2 lets one sample one's own
#     processes): shares present, rank 2's low.
#  5. Off with its reason: JOBTOP_MPI_SAMPLE=0, and --root.
#
# Skips (77) without mpicc.mpich and mpiexec.mpich.  Needs python3.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
JOB=990415

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-mpi.XXXXXX") || exit 1
chmod 755 "$tmp"
job_pid=
cleanup() {
	[ -n "$job_pid" ] && kill "$job_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
command -v mpicc.mpich >/dev/null 2>&1 &&
    command -v mpiexec.mpich >/dev/null 2>&1 || {
	echo "no MPICH (mpicc.mpich, mpiexec.mpich)"
	exit 77
}
command -v python3 >/dev/null 2>&1 || { echo "no python3"; exit 77; }
mpicc.mpich -O2 -o "$tmp/imb" "$TOP/tests/data/mpi/imbalance.c" ||
    fail "cannot build the MPI program"
chmod 755 "$tmp/imb"

# Start a job of 4 ranks in the background: SECONDS SLOW [USER].
start_job() {
	if [ -n "${3:-}" ]; then
		setpriv --reuid="$(id -u "$3")" --regid="$(id -g "$3")" \
		    --clear-groups \
		    env SLURM_JOB_ID=$JOB HOME="$tmp" mpiexec.mpich -n 4 \
		    "$tmp/imb" "$1" "$2" >/dev/null 2>&1 &
	else
		SLURM_JOB_ID=$JOB mpiexec.mpich -n 4 "$tmp/imb" "$1" "$2" \
		    >/dev/null 2>&1 &
	fi
	job_pid=$!
	sleep 2
}

stop_job() {
	kill "$job_pid" 2>/dev/null
	wait "$job_pid" 2>/dev/null
	job_pid=
}

cat >"$tmp/check.py" <<'EOF'
# check.py MODE FILE: assertions on `jobtop --decode --json` of a probe,
# or on jobtop's own --json.
import json, statistics, sys

MPI = ("libmpi", "libuc", "libfabric", "libpmi", "libopen-", "mca_",
       "libpsm", "libibverbs", "libmlx")
mode, path = sys.argv[1], sys.argv[2]
recs, ranks, events, hello = [], [], [], None
for line in open(path):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    t = r.get("type")
    if t == "hello":
        hello = r
    elif t == "node":
        recs.append(r)
    elif t == "rank":
        ranks.append(r)
    elif t == "event":
        events.append(r)
bad = []

# pid -> (rank id, comm) from the rank records (jobtop) or rank.* (decode)
ident = {}
for r in recs:
    for pid, c in r.get("rank.comm", {}).items():
        rid = r.get("rank.rank", {}).get(pid, -1)
        ident[pid] = (rid, c)
for r in ranks:
    ident[str(r["pid"])] = (r.get("rank", -1), r.get("rank.comm"))

def shares():
    out = {}
    for r in recs[2:]:
        for pid, v in r.get("rankmpi.share", {}).items():
            out.setdefault(pid, []).append(v)
    return out

if mode in ("probe", "user"):
    if hello is None or hello["sources"].get("mpi") != "on":
        bad.append("mpi source: %r" % (hello or {}).get("sources", {})
                   .get("mpi"))
    imb = {p: i[0] for p, i in ident.items() if i[1] == "imb"}
    if len(imb) != 4:
        bad.append("want 4 imb ranks, got %r" % imb)
    sh = shares()
    for pid, rid in imb.items():
        s = sh.get(pid, [])
        if len(s) < 3:
            bad.append("rank %s: only %d shares: %r" % (rid, len(s), s))
            continue
        med = statistics.median(s)
        if rid == 2 and med >= 20:
            bad.append("slow rank 2 median share %g (%r)" % (med, s))
        if rid != 2 and med <= 50:
            bad.append("waiting rank %s median share %g (%r)" %
                       (rid, med, s))
    libs = set()
    for r in recs:
        libs.update(r.get("rankmpi.lib", {}).values())
    if not libs or not all(l.startswith(MPI) for l in libs):
        bad.append("libs %r" % libs)
    if mode == "probe":
        others = [p for p, i in ident.items() if i[1] != "imb"]
        for pid in others:
            why = [r.get("rankmpi.why", {}).get(pid) for r in recs[1:]]
            if not all(w == "maps no known MPI library" for w in why):
                bad.append("launcher %s (%s): why %r" %
                           (pid, ident[pid][1], why))
            if any(pid in r.get("rankmpi.samples", {}) for r in recs):
                bad.append("launcher %s has counters" % pid)
elif mode == "straggler":
    flagged = {(r.get("rank"), r["pid"]) for r in ranks if r.get("flags")}
    names = {f for r in ranks for f in r.get("flags", [])}
    if {rid for rid, _ in flagged} != {2} or names != {"straggler"}:
        bad.append("flagged %r with %r, want rank 2 straggler only" %
                   (flagged, names))
    ev = [e for e in events if e.get("code") == "straggler"]
    if not ev or "wait for it" not in ev[0].get("text", ""):
        bad.append("straggler events %r" % ev)
elif mode == "balanced":
    flagged = [(r.get("rank"), r.get("flags")) for r in ranks
               if r.get("flags")]
    if flagged:
        bad.append("flags on a balanced job: %r" % flagged)
    if not shares():
        bad.append("no shares at all")
elif mode == "export":
    if not any("rankmpi.share" in r for r in recs):
        bad.append("no rankmpi.share in the export")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF

# 1. The probe on an imbalanced job.
start_job 40 2
"$PROBE" --job $JOB --interval 1 --count 7 </dev/null >"$tmp/p.bin" \
    2>"$tmp/p.err" || fail "probe exited $?: $(cat "$tmp/p.err")"
"$JOBTOP" --decode --json <"$tmp/p.bin" >"$tmp/p.json" ||
    fail "cannot decode the probe's output"
python3 "$tmp/check.py" probe "$tmp/p.json" ||
    fail "shares of the imbalanced job (probe)"

# 2. jobtop flags the slow rank, and only it.
SLURM_JOB_ID=$JOB SLURM_JOB_NODELIST=localhost "$JOBTOP" -b --json -n 12 \
    -o "$tmp/rec.jtr" >"$tmp/j.json" 2>"$tmp/j.err" ||
    fail "jobtop exited $?: $(cat "$tmp/j.err")"
python3 "$tmp/check.py" straggler "$tmp/j.json" ||
    fail "the straggler rule on the imbalanced job"
"$JOBTOP" export "$tmp/rec.jtr" --json -o "$tmp/e.json" 2>"$tmp/e.err" ||
    fail "export: $(cat "$tmp/e.err")"
python3 "$tmp/check.py" export "$tmp/e.json" || fail "export"
stop_job

# 3. A balanced job raises nothing.
start_job 30 -1
SLURM_JOB_ID=$JOB SLURM_JOB_NODELIST=localhost "$JOBTOP" -b --json -n 10 \
    --no-record >"$tmp/b.json" 2>"$tmp/b.err" ||
    fail "jobtop exited $?: $(cat "$tmp/b.err")"
python3 "$tmp/check.py" balanced "$tmp/b.json" || fail "balanced job"
stop_job

# 4. Unprivileged: a user's probe samples that user's ranks.
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	start_job 30 2 nobody
	setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" \
	    --clear-groups env SLURM_JOB_ID=$JOB "$PROBE" --job $JOB --interval 1 --count 6 \
	    </dev/null >"$tmp/u.bin" 2>"$tmp/u.err" ||
	    fail "unprivileged probe exited $?: $(cat "$tmp/u.err")"
	"$JOBTOP" --decode --json <"$tmp/u.bin" >"$tmp/u.json" ||
	    fail "cannot decode"
	python3 "$tmp/check.py" user "$tmp/u.json" ||
	    fail "shares sampled by an unprivileged probe"
	stop_job
fi

# 5. Off, with the reason.
JOBTOP_MPI_SAMPLE=0 "$PROBE" --count 1 </dev/null |
    "$JOBTOP" --decode --json | grep -q '"mpi":"off: turned off' ||
    fail "JOBTOP_MPI_SAMPLE=0 does not turn the source off with its reason"
"$PROBE" --root "$TOP/tests/data/fixtures/node-basic" --count 1 </dev/null |
    "$JOBTOP" --decode --json | grep -q '"mpi":"off: sampling needs' ||
    fail "--root does not turn the source off with its reason"
echo "ok"
exit 0
