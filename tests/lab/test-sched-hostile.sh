#!/bin/bash
# SPDX-License-Identifier: ISC
# A job whose name is made to fool jobtop (issue 11, review F1, F4d, F5),
# against the lab's real Slurm.  jtuser submits a 2-node job on node2 and
# node3 named with scontrol's own words (JobState=COMPLETED NodeList=node4
# UserId=root(0) Reason=...), JSON, escape sequences and a newline followed
# by a forged record line.  Then:
#  - root: `jobtop --list` gives node2 node3; `jobtop -b -n 2` watches it
#    (so it is RUNNING) on those nodes only; no control byte on stderr or
#    stdout;
#  - the owner is jtuser: jtuser may watch it, jtother is refused with
#    "belongs to jtuser";
#  - review F5: jtother with SLURM_JOB_ID/SLURM_JOB_NODELIST of that job is
#    refused; jtuser naming a node outside the job is refused; without
#    squeue in PATH and outside the job, refused too; inside the job
#    (srun --overlap) without squeue, accepted through its slurmstepd.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
[ "$LAB_N" -ge 4 ] || lab_skip "needs 4 nodes"
top=$(cd "$here/../.." && pwd)
for b in jobtop jobtop-probe; do
	[ -x "$top/$b" ] || lab_skip "$b is not built"
done
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$LAB_BIN/"
JT=$LAB_BIN/jobtop
tmp=$(mktemp -d)
chmod 755 "$tmp"
job=
cleanup() { [ -n "$job" ] && scancel "$job"; rm -rf "$tmp"; }
trap cleanup EXIT
lab_wait_idle 90 || lab_fail "not all of $LAB_N nodes idle"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# has_ctl FILE: any byte below 0x20 but tab and newline, DEL, or >= 0x80?
has_ctl() { LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f-\xff]' "$1"; }
show() { LC_ALL=C tr -d '\n' <"$1" | cat -v | cut -c1-200; }

name=$'x JobState=COMPLETED NodeList=node4 UserId=root(0) Reason=\e]0;PWNED\a\e[2J {"jobs":[{"nodes":"node4","user_name":"root"}]}\nJobId=1 JobName=y UserId=root(0) JobState=COMPLETED NodeList=node4 NumTasks=1'
job=$(lab_as "$LAB_USER" sbatch --parsable --chdir=/tmp --output=/dev/null \
	-N2 -w node2,node3 --ntasks-per-node=1 -J "$name" <"$LAB_JOBS/healthy.sh") ||
	lab_fail "sbatch with a hostile name failed"
job=${job%%;*}
t0=$SECONDS
until [ "$(squeue -h -j "$job" -o %T 2>/dev/null)" = RUNNING ] &&
    [ "$(lab_ranks "$job" | wc -l)" -ge 2 ]; do
	((SECONDS - t0 > 30)) && lab_fail "job $job did not start its 2 ranks"
	sleep 0.2
done
# The trap is real: scontrol's one-line form shows the forged words first.
scontrol show job -o "$job" >"$tmp/scontrol"
if [ "$(wc -l <"$tmp/scontrol")" -ge 2 ] && head -1 "$tmp/scontrol" |
    grep -q 'JobState=COMPLETED NodeList=node4 UserId=root(0)'; then
	ok "scontrol -o shows the forged record first: $(head -1 "$tmp/scontrol" | cut -c1-80 | cat -v)"
else
	fail "scontrol -o does not show the forged words as expected: $(show "$tmp/scontrol")"
fi

lab_as root "$JT" --list "$job" >"$tmp/list" 2>"$tmp/list.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(sort "$tmp/list" | tr '\n' ' ')" = "node2 node3 " ] &&
    [ ! -s "$tmp/list.err" ]; then
	ok "root: jobtop --list $job gives $(tr '\n' ' ' <"$tmp/list")"
else
	fail "root: jobtop --list $job: exit $rc, '$(show "$tmp/list")', stderr '$(show "$tmp/list.err")'"
fi

lab_as root "$JT" -b -n 2 -d 0.5 --no-record "$job" >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
if [ $rc -eq 0 ] && grep -q node2 "$tmp/b.out" && grep -q node3 "$tmp/b.out" &&
    ! grep -q node4 "$tmp/b.out" && ! has_ctl "$tmp/b.out" && ! has_ctl "$tmp/b.err"; then
	ok "root: jobtop -b -n 2 $job watched node2 and node3, no control byte ($(wc -l <"$tmp/b.out") lines)"
else
	fail "root: jobtop -b -n 2 $job: exit $rc, stdout '$(show "$tmp/b.out")', stderr '$(show "$tmp/b.err")'"
fi

lab_as "$LAB_USER" "$JT" --list "$job" >"$tmp/own" 2>"$tmp/own.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(sort "$tmp/own" | tr '\n' ' ')" = "node2 node3 " ]; then
	ok "$LAB_USER (the owner) may watch it"
else
	fail "$LAB_USER on its own job: exit $rc, stderr '$(show "$tmp/own.err")'"
fi

# expect_refused WHAT PATTERN CMD...: non-zero, no stdout, one clean line.
expect_refused() {
	local what=$1 pat=$2 rc
	shift 2
	"$@" >"$tmp/r.out" 2>"$tmp/r.err"
	rc=$?
	if [ $rc -ne 0 ] && [ ! -s "$tmp/r.out" ] && [ "$(wc -l <"$tmp/r.err")" -eq 1 ] &&
	    grep -q -- "$pat" "$tmp/r.err" && ! has_ctl "$tmp/r.err"; then
		ok "$what: $(cat "$tmp/r.err")"
	else
		fail "$what: exit $rc, stdout '$(show "$tmp/r.out")', stderr '$(show "$tmp/r.err")'"
	fi
}
expect_refused "$LAB_OTHER refused" "belongs to $LAB_USER" \
	lab_as "$LAB_OTHER" "$JT" --list "$job"
expect_refused "$LAB_OTHER refused in batch mode" "belongs to $LAB_USER" \
	lab_as "$LAB_OTHER" "$JT" -b -n 1 --no-record "$job"
# Review F5: the environment of someone else's job proves nothing.
expect_refused "$LAB_OTHER with SLURM_JOB_ID=$job in its environment" \
	"belongs to $LAB_USER" lab_as "$LAB_OTHER" env SLURM_JOB_ID="$job" \
	SLURM_JOB_NODELIST=node[2-3] "$JT" --list
expect_refused "$LAB_OTHER with SLURM_JOB_ID=$job, batch" \
	"belongs to $LAB_USER" lab_as "$LAB_OTHER" env SLURM_JOB_ID="$job" \
	SLURM_JOB_NODELIST=node[2-3] "$JT" -b -n 1 --no-record
expect_refused "$LAB_USER naming a node outside its job" \
	"node4, which is not a node of slurm job $job" \
	lab_as "$LAB_USER" env SLURM_JOB_ID="$job" \
	SLURM_JOB_NODELIST=node[2-4] "$JT" --list
expect_refused "no squeue in PATH, outside the job" "cannot check that job" \
	lab_as "$LAB_OTHER" env PATH=/nonexistent SLURM_JOB_ID="$job" \
	SLURM_JOB_NODELIST=node[2-3] "$JT" --list
# The owner's own environment (as inside the job) is accepted.
lab_as "$LAB_USER" env SLURM_JOB_ID="$job" SLURM_JOB_NODELIST=node[2-3] \
	"$JT" --list >"$tmp/env" 2>"$tmp/env.err"
if [ "$(sort "$tmp/env" | tr '\n' ' ')" = "node2 node3 " ]; then
	ok "$LAB_USER with its own job's environment: $(tr '\n' ' ' <"$tmp/env")"
else
	fail "$LAB_USER with its own job's environment: '$(show "$tmp/env")', stderr '$(show "$tmp/env.err")'"
fi

# Inside the job, without squeue: its root-owned slurmstepd is the proof.
# (A step started from outside sees its own node in SLURM_JOB_NODELIST.)
lab_as "$LAB_USER" srun --jobid="$job" --overlap -N1 -n1 -w node2 \
	env PATH=/nonexistent "$JT" --list >"$tmp/in" 2>"$tmp/in.err"
got=$(sort "$tmp/in" | tr '\n' ' ')
if [ "$got" = "node2 node3 " ] || [ "$got" = "node2 " ]; then
	ok "inside the job (srun --overlap), no squeue: $(tr '\n' ' ' <"$tmp/in")"
else
	fail "inside the job, no squeue: '$(show "$tmp/in")', stderr '$(show "$tmp/in.err")'"
fi

# Ended: the verdict is Slurm's, and the line is clean.  (Wait with squeue:
# lab_job_state reads scontrol -o, which this very name fools.)
scancel "$job"
t0=$SECONDS
while [ "$(squeue -h -t all -j "$job" -o %T 2>/dev/null)" != CANCELLED ] &&
    ((SECONDS - t0 < 20)); do
	sleep 0.2
done
expect_refused "root after scancel" "has finished (CANCELLED)" \
	lab_as root "$JT" --list "$job"
job=

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all hostile-name checks passed"
