#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-sluid: Slurm 26.05 names a job's cgroup v2 directory by the job's
# SLUID (system.slice/slurmstepd.scope/sEKNKTV3WPV500/step_0/user/task_0,
# unless cgroup.conf has CgroupJobIdPaths=yes); the probe must find it.
#
# Fixture tests/data/fixtures/ranks-sluid: ranks-cgv2's processes (batch,
# extern and step 0 of job 123 with their step daemons, job 12's step
# daemon and task, job 1234's task) and cgroup-v2's job accounting files,
# with job 123's directory named sEKNKTV3WPV500 and job 12's
# sEKNKTV3WPV4ZZ, as Slurm's cgroup_v2 page lays them out (the step
# daemon in step_N/slurm, tasks in step_N/user/task_N); job 12's task
# claims SLURM_JOB_ID=123 in its environment (a forgery).
#  1. --job 123: ranks 621 and 622; the cgroup source reads the SLUID
#     directory (memory.current exactly), learnt from the step daemon's
#     own cgroup (ranks-found says so); 701 is not a rank.
#  2. No step daemons (ranks found by SLURM_JOB_ID only): without the
#     SLUID the cgroup source is off; with SLURM_JOB_SLUID in a rank's
#     environment (--uid 1000) it is on, and says where the SLUID came
#     from; with --sluid (squeue's Sluid, given by the monitor) it is on
#     with no process of the job on the node at all.
#  3. A job_ID directory (cgroup-v2, the layout before 26.05 and with
#     CgroupJobIdPaths=yes) is still found; --sluid values that are not a
#     SLUID are refused with one line.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures
SLUID=sEKNKTV3WPV500
DIR=/system.slice/slurmstepd.scope/$SLUID

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-sluid.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -x "$JOBTOP" ] || fail "no jobtop at $JOBTOP (run make)"
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }

# summary ROOT ARGS...: "ranks=P,P cgroup=DIR:MEM found=TEXT"
summary() {
	root=$1
	shift
	"$PROBE" --root "$root" "$@" --count 2 --interval 0.1 </dev/null \
	    >"$tmp/out.bin" 2>"$tmp/out.err" ||
	    fail "probe $*: exit $?: $(cat "$tmp/out.err")"
	"$JOBTOP" --decode --json <"$tmp/out.bin" >"$tmp/out.json" \
	    2>"$tmp/out.jerr" || fail "decode: $(cat "$tmp/out.jerr")"
	python3 - "$tmp/out.json" <<'EOF'
import json, sys
ranks, cg, found = set(), "none", ""
for r in map(json.loads, open(sys.argv[1])):
    if r["type"] == "rank" and not r.get("rank.helper"):
        ranks.add(r["pid"])
    if r["type"] == "node" and "cgroup.mem_current" in r:
        cg = ",".join("%s:%s" % kv for kv in sorted(r["cgroup.mem_current"].items()))
    if r["type"] == "hello" and cg == "none":
        cg = "off(%s)" % r["sources"].get("cgroup", "?")
    if r["type"] == "event" and r.get("code") == "ranks-found":
        found = r["text"]
print("ranks=%s cgroup=%s found=%s" % (",".join(map(str, sorted(ranks))), cg, found))
EOF
}

memcur=$(cat "$FIX/ranks-sluid/sys/fs/cgroup$DIR/memory.current")
[ -n "$memcur" ] || fail "fixture ranks-sluid lacks memory.current"

# 1. Step daemons present.
s=$(summary "$FIX/ranks-sluid" --job 123)
case $s in
"ranks=621,622 cgroup=$DIR:$memcur found="*"SLUID $SLUID from the cgroup of the job's step daemon") ;;
*) fail "--job 123 on ranks-sluid: $s" ;;
esac
echo "ok: SLUID directory found through the step daemon's cgroup ($memcur bytes)"

# 2. No step daemons, and no process below one of the job's (602, the
# batch script's srun, would teach the SLUID by its cgroup): the ranks
# carry SLURM_JOB_ID only.
cp -R "$FIX/ranks-sluid" "$tmp/env"
rm -rf "$tmp/env/proc/600" "$tmp/env/proc/602" "$tmp/env/proc/610" \
    "$tmp/env/proc/620" "$tmp/env/proc/700" "$tmp/env/proc/701"
s=$(summary "$tmp/env" --job 123 --uid 1000)
case $s in
"ranks=601,621,622 cgroup=off(off: no cgroup for job 123) found="*) ;;
*) fail "without the SLUID: $s" ;;
esac
echo "ok: without a SLUID known, a SLUID directory is no job's"
printf 'SLURM_JOB_SLUID=%s\0' "$SLUID" >>"$tmp/env/proc/621/environ"
s=$(summary "$tmp/env" --job 123 --uid 1000)
case $s in
"ranks=601,621,622 cgroup=$DIR:$memcur found="*"SLUID $SLUID from SLURM_JOB_SLUID of a process of the job") ;;
*) fail "SLURM_JOB_SLUID in rank 0's environment: $s" ;;
esac
echo "ok: SLUID from SLURM_JOB_SLUID of a rank"
cp -R "$FIX/ranks-sluid" "$tmp/none"
rm -rf "$tmp/none/proc/6"[0-9][0-9]
s=$(summary "$tmp/none" --job 123 --sluid "$SLUID")
case $s in
"ranks= cgroup=$DIR:$memcur found=") ;;
*) fail "--sluid with no process of the job: $s" ;;
esac
echo "ok: --sluid alone finds the directory"

# 3. The job_ID layout, and bad values.
s=$(summary "$FIX/ranks-cgv2" --job 123)
case $s in
"ranks=621,622 cgroup=off"*"found="*"job cgroup /system.slice/slurmstepd.scope/job_123") ;;
*) fail "job_123 layout: $s" ;;
esac
s=$(summary "$FIX/cgroup-v2" --job 123 --sluid "$SLUID")
case $s in
*"cgroup=/system.slice/slurmstepd.scope/job_123:"*) ;;
*) fail "job_123 directory with a SLUID given: $s" ;;
esac
echo "ok: job_ID directories still found"
for bad in x sEKN 'sEKNKTV3WPV50;' seknktv3wpv500 sEKNKTV3WPV500AAAAAAAAAAAAA ''; do
	if "$PROBE" --job 123 --sluid "$bad" --count 1 </dev/null >/dev/null \
	    2>"$tmp/bad.err"; then
		fail "--sluid '$bad' accepted"
	fi
	[ "$(wc -l <"$tmp/bad.err")" -eq 1 ] &&
	    grep -q "^jobtop-probe: bad SLUID: " "$tmp/bad.err" ||
	    fail "--sluid '$bad': $(cat "$tmp/bad.err")"
done
echo "ok: bad --sluid values are refused"
echo "PASS"
