#!/bin/bash
# SPDX-License-Identifier: ISC
# Job ids as Slurm users write them, and no job id at all, against the
# lab's real Slurm: `jobtop --list JOB.0`, `JOB.batch`, `JOB.extern` and a
# het component `JOB+1` resolve the job (nodes checked against scontrol);
# with no argument outside a job, jobtop lists the caller's running jobs
# (none: one line; one: it is watched, so --list prints its nodes; two:
# a table naming both, and exit 2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
top=$(cd "$here/../.." && pwd)
[ -x "$top/jobtop" ] || lab_skip "jobtop is not built"
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$LAB_BIN/"
JT=$LAB_BIN/jobtop
tmp=$(mktemp -d)
ids=()
cleanup() { [ ${#ids[@]} -gt 0 ] && lab_cancel "${ids[@]}"; rm -rf "$tmp"; }
lab_wait_idle 90 || lab_fail "not all of $LAB_N nodes idle: $(sinfo -h -N -o '%N:%t' | tr '\n' ' ')"
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

submit() {	# sbatch args... (script on stdin) -> job id
	local id
	id=$(lab_as "$LAB_USER" sbatch --parsable --chdir=/tmp --output=/dev/null "$@") || return 1
	echo "${id%%;*}"
}
wait_running() {	# id
	local t0=$SECONDS
	while ((SECONDS - t0 < 30)); do
		[ "$(squeue -h -j "$1" -o %T 2>/dev/null | sort -u)" = RUNNING ] && return 0
		sleep 0.2
	done
	echo "job $1 did not run" >&2
	return 1
}
nodes_of() {	# jobspec -> its nodes, one a line, from scontrol
	scontrol show job -o "$1" | sed -n 's/.* NodeList=\([^ ]*\) .*/\1/p' |
		while read -r nl; do scontrol show hostnames "$nl"; done | sort -u
}
same_nodes() {	# what jobspec-for-jobtop jobspec-for-scontrol
	local want got
	want=$(nodes_of "$3")
	got=$(lab_as "$LAB_USER" "$JT" --list "$2" 2>"$tmp/err" | sort)
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$1 ($2): $(echo $got)"
	else
		fail "$1 ($2): jobtop --list gave '$(echo $got)' ($(cat "$tmp/err")), scontrol '$(echo $want)'"
	fi
}
noarg() {	# run jobtop --list with no job as the lab user -> out, err, rc
	lab_as "$LAB_USER" "$JT" --list >"$tmp/out" 2>"$tmp/err"
	echo $?
}

# No job at all: one clear line, exit 2.
rc=$(noarg)
if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q "no running job" "$tmp/err"; then
	ok "no job: $(cat "$tmp/err")"
else
	fail "no job: exit $rc, stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
fi

# One job with a step (srun) on two nodes.
job=$(printf '#!/bin/sh\nsrun -N2 sleep 120\n' | submit -N2) || lab_fail "sbatch failed"
ids+=("$job")
wait_running "$job" || fail "job $job not running"
t0=$SECONDS
until squeue -h -s -j "$job" -o %i 2>/dev/null | grep -qx "$job.0"; do
	((SECONDS - t0 < 20)) || { fail "step $job.0 never started"; break; }
	sleep 0.2
done
same_nodes "step 0" "$job.0" "$job"
same_nodes "batch step" "$job.batch" "$job"
same_nodes "extern step" "$job.extern" "$job"
lab_as "$LAB_USER" "$JT" --list "$job.x" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
	ok "bad step: $(cat "$tmp/err")"
else
	fail "bad step $job.x: exit $rc, '$(cat "$tmp/out")' '$(cat "$tmp/err")'"
fi

# A step id narrows the view to that step's processes (the probe's --step):
# JOB.0 shows the srun'd sleeps, JOB.batch the batch shell and srun, and
# the job id alone the tasks (step 0), on the job's real nodes over SSH.
steps_of() {	# jobspec -> the distinct rank.step values of its rank records
	lab_as "$LAB_USER" "$JT" -b --json -n 2 --no-record "$1" 2>"$tmp/serr" |
		python3 -c 'import json, sys
print(" ".join(sorted({r.get("rank.step", "-") for r in map(json.loads, sys.stdin)
                       if r.get("type") == "rank"})))'
}
for spec in "$job.0:0" "$job.batch:batch" "$job:0"; do
	got=$(steps_of "${spec%:*}")
	if [ "$got" = "${spec##*:}" ]; then
		ok "${spec%:*} shows step $got only"
	else
		fail "${spec%:*}: rank steps '$got', wanted '${spec##*:}' ($(cat "$tmp/serr"))"
	fi
done

# The only running job of the user is the one watched.
rc=$(noarg)
got=$(sort "$tmp/out")
if [ "$rc" -eq 0 ] && [ "$got" = "$(nodes_of "$job")" ]; then
	ok "one job, no argument: $(echo $got)"
else
	fail "one job, no argument: exit $rc, stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
fi

# A het job as well: its component +1, then three running jobs listed.
het=$(printf '#!/bin/sh\n#SBATCH -N1\n#SBATCH hetjob\n#SBATCH -N1\nsleep 120\n' | submit) ||
	lab_fail "sbatch of a heterogeneous job failed"
ids+=("$het")
wait_running "$het" || fail "het job not running"
same_nodes "het component" "$het+1" "$het+1"
rc=$(noarg)
if [ "$rc" -eq 2 ] && head -1 "$tmp/out" | grep -q '^SCHED  *JOBID' &&
    grep -q "^slurm  *$job " "$tmp/out" && grep -q "^slurm  *$het+0 " "$tmp/out" &&
    grep -q "^slurm  *$het+1 " "$tmp/out" && grep -q "3 running jobs" "$tmp/err"; then
	ok "several jobs listed: $(tail -n +2 "$tmp/out" | awk '{print $2}' | tr '\n' ' ')"
else
	fail "several jobs: exit $rc, stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
fi

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all step id and no-argument checks passed"
