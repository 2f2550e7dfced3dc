#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-two-sessions: another jobtop's probe is never a rank (review D1).
#
# Two jobtop sessions on one job (a user and an admin, two windows): the
# second session's probe runs inside the job (an srun step's task, or an
# ssh session pam_slurm_adopt put in the job's cgroup) and carries the
# job's variables.  On the real /proc, a fake job of three ranks
# (PMI_RANK 0-2; rank 2's SLURM_JOB_NAME is jobtop, as when a user names
# a job so: it must stay a rank) and, beside them, with SLURM_JOB_ID of
# the job in their environment:
#  - a second real probe, copied to a private directory as the caches
#    name it (probe-HASH), and the installed jobtop-probe itself;
#  - the shell of a jobtop srun step waiting for its push
#    (/bin/sh -c SCRIPT jobtop-srun, JOBTOP_PROBE_SESSION=srun,
#    SLURM_JOB_NAME=jobtop), and the same shell of an older jobtop without
#    the marker, with a child;
#  - an older probe known by its name and options (a script named
#    probe-0123abcd run with --interval), with a child.
# The first probe, --job ID, must report exactly the three ranks; none of
# the others, nor their children, as a rank or a helper.  The same
# without --job (the user's own processes): no probe of the other session
# listed.  Each second probe must carry JOBTOP_PROBE_SESSION in
# /proc/PID/environ, whoever started it.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-two.XXXXXX") || exit 1
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

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -x "$JOBTOP" ] || fail "no jobtop at $JOBTOP (run make)"
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }

job=95$$
# The job's ranks.
SLURM_JOB_ID=$job PMI_RANK=0 PMI_SIZE=3 sleep 60 &
r0=$!
SLURM_JOB_ID=$job PMI_RANK=1 PMI_SIZE=3 sleep 60 &
r1=$!
SLURM_JOB_ID=$job SLURM_JOB_NAME=jobtop PMI_RANK=2 PMI_SIZE=3 sleep 60 &
r2=$!
bg_pids="$r0 $r1 $r2"

# The other session's probes: the cache's copy and the installed name,
# each fed by a pipe that stays open (as its ssh channel would).
mkdir -m 700 "$tmp/cache" || fail "mkdir"
cp "$PROBE" "$tmp/cache/probe-5eed1e55" || fail "cp"
mkfifo "$tmp/in1" "$tmp/in2" "$tmp/push" || fail "mkfifo"
sleep 120 >"$tmp/in1" &
bg_pids="$bg_pids $!"
sleep 120 >"$tmp/in2" &
bg_pids="$bg_pids $!"
SLURM_JOB_ID=$job SLURM_PROCID=0 SLURM_JOB_NAME=jobtop \
    "$tmp/cache/probe-5eed1e55" --armour --interval 0.5 --watchdog 45 \
    --job "$job" <"$tmp/in1" >/dev/null 2>&1 &
o1=$!
SLURM_JOB_ID=$job "$PROBE" --interval 0.5 --job "$job" \
    <"$tmp/in2" >/dev/null 2>&1 &
o2=$!
bg_pids="$bg_pids $o1 $o2"
# The srun step's shell waiting for the push, marked.
sleep 120 >"$tmp/push" &
bg_pids="$bg_pids $!"
# shellcheck disable=SC2016
SLURM_JOB_ID=$job SLURM_PROCID=1 SLURM_JOB_NAME=jobtop \
    JOBTOP_PROBE_SESSION=srun sh -c 'IFS= read -r l; sleep 60; :' \
    jobtop-srun "$tmp/d" probe-5eed1e55 1 "$tmp/t" <"$tmp/push" &
o3=$!
# An older jobtop's srun shell (no marker) with a child.
# shellcheck disable=SC2016
SLURM_JOB_ID=$job SLURM_PROCID=2 SLURM_JOB_NAME=jobtop \
    sh -c 'sleep 60; :' jobtop-srun "$tmp/d" probe-5eed1e55 1 "$tmp/t" &
o4=$!
# An older probe known by name and options, with a child.
printf '#!/bin/sh\nsleep 60; :\n' >"$tmp/cache/probe-0123abcd"
chmod 700 "$tmp/cache/probe-0123abcd"
SLURM_JOB_ID=$job "$tmp/cache/probe-0123abcd" --interval 1 &
o5=$!
bg_pids="$bg_pids $o3 $o4 $o5"
sleep 0.5

for p in $o1 $o2; do
	tr '\0' '\n' <"/proc/$p/environ" | grep -q '^JOBTOP_PROBE_SESSION=' ||
	    fail "probe $p does not carry JOBTOP_PROBE_SESSION"
done
echo "ok: every probe carries JOBTOP_PROBE_SESSION"

# Everything below the other session's processes, children included.
others=$(for p in $o1 $o2 $o3 $o4 $o5; do
	echo "$p"
	pgrep -P "$p"
done | sort -u | xargs)
[ "$(echo "$others" | wc -w)" -ge 7 ] ||
    fail "the other session's tree is not all there: $others"

cat >"$tmp/check.py" <<'EOF'
import json, sys
path, want, others = sys.argv[1], sys.argv[2], sys.argv[3]
want = set(int(x) for x in want.split()) if want else None
others = set(int(x) for x in others.split())
samples = {}
for line in open(path):
    r = json.loads(line)
    if r.get("type") != "rank":
        continue
    samples.setdefault(r["time"], []).append(r)
if len(samples) < 3:
    sys.exit("only %d samples with ranks" % len(samples))
bad = 0
for t, recs in sorted(samples.items()):
    pids = set(r["pid"] for r in recs)
    ranks = set(r["pid"] for r in recs if not r.get("rank.helper"))
    if pids & others:
        print("sample %s lists the other session's %s" % (t, sorted(pids & others)))
        bad = 1
    if want is not None and ranks != want:
        print("sample %s: ranks %s, want %s" % (t, sorted(ranks), sorted(want)))
        bad = 1
sys.exit(bad)
EOF

"$PROBE" --job "$job" --count 4 --interval 0.25 </dev/null \
    >"$tmp/job.bin" 2>"$tmp/job.err" ||
    fail "probe --job failed: $(cat "$tmp/job.err")"
"$JOBTOP" --decode --json <"$tmp/job.bin" >"$tmp/job.json" 2>"$tmp/job.jerr" ||
    fail "decode failed: $(cat "$tmp/job.jerr")"
python3 "$tmp/check.py" "$tmp/job.json" "$r0 $r1 $r2" "$others" ||
    fail "--job $job: the other session's processes were taken for ranks"
echo "ok: --job: ranks $r0 $r1 $r2 only, no probe of the other session"

"$PROBE" --count 4 --interval 0.25 </dev/null >"$tmp/uid.bin" \
    2>"$tmp/uid.err" || fail "probe without --job failed: $(cat "$tmp/uid.err")"
"$JOBTOP" --decode --json <"$tmp/uid.bin" >"$tmp/uid.json" 2>"$tmp/uid.jerr" ||
    fail "decode failed: $(cat "$tmp/uid.jerr")"
python3 "$tmp/check.py" "$tmp/uid.json" "" "$others" ||
    fail "without --job: the other session's processes were listed"
echo "ok: without --job: no probe of the other session"
echo "PASS"
