#!/bin/sh
# SPDX-License-Identifier: ISC
# ui-stacks: the monitor's stacks view on a real hung MPICH job on this
# machine (the job's variables, localhost), driven through tmux.
# tests/data/mpi/hang.c with 4 ranks, rank 2 blocked in read() inside
# jobtop_stuck_in_read: B opens the view, which says it is taking the
# stacks and then shows the tree: rank 2 alone as the odd one out, 0-1,3
# in the collective, no progress; the arrows scroll; B retakes; Esc goes
# back to the node table; the help lists B.  Skips without tmux, MPICH,
# or a debugger.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
JOB=990513
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-uistk.XXXXXX") || exit 1
chmod 755 "$tmp"
sock=jtui-stacks-$$
job_pid=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -n "$job_pid" ] && kill -- -"$job_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

win=ui0
fail() {
	echo "--- screen:"
	tmux -L "$sock" capture-pane -p -t "$win" 2>/dev/null
	echo "FAIL: $*"
	exit 1
}
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
command -v mpicc.mpich >/dev/null 2>&1 &&
    command -v mpirun.mpich >/dev/null 2>&1 || { echo "no MPICH"; exit 77; }
command -v eu-stack >/dev/null 2>&1 || command -v gdb >/dev/null 2>&1 ||
    { echo "no eu-stack or gdb"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"

. "$TOP/tests/lib/ui.sh"
ui_screen() { tmux -L "$sock" capture-pane -p -t "$win"; }
keys() { tmux -L "$sock" send-keys -t "$win" "$@"; }
wait_for() { ui_wait "$@"; }

mpicc.mpich -O1 -g -o "$tmp/hang" "$TOP/tests/data/mpi/hang.c" ||
    fail "cannot build hang.c"
SLURM_JOB_ID=$JOB setsid mpirun.mpich -n 4 "$tmp/hang" 2 >/dev/null 2>&1 &
job_pid=$!
sleep 3

# Only the debuggers in PATH: no scheduler to ask whether this job, known
# by its variables alone, still runs (it would say it ended, and the
# probes would stop while gdb takes its time).
mkdir "$tmp/bin"
for t in eu-stack gdb; do
	p=$(command -v $t) && ln -s "$p" "$tmp/bin/$t"
done
tmux -L "$sock" new-session -d -s "$win" -x 150 -y 40 \
    "env LANG=C.UTF-8 PATH=$tmp/bin SLURM_JOB_ID=$JOB \
    SLURM_JOB_NODELIST=localhost $JOBTOP --no-record --stacks-gap 1 --stacks-deadline 60 -d 0.5; echo rc=\$?; sleep 600"
wait_for 15 '^localhost +live' || fail "no live localhost row"
keys B
wait_for 5 'Stacks: taking them|Stacks taken at' ||
    fail "B does not open the stacks view"
wait_for 90 'Stacks taken at' || fail "the stacks never came"
ui_expect 3 '^ *\+- 1 rank \[2\]  <- odd one out' "rank 2 is not the odd one"
ui_expect 3 '^ *\+- 3 ranks \[0-1,3\]' "0-1,3 are not together"
ui_expect 3 'no progress \(same call path in both takes\): 4 ranks \[0-3\]' \
    "no progress line"
ui_expect 3 'stacks of 990513: 4 ranks on 1 node' "no header line"
keys Down Down
wait_for 5 'Stacks taken at .* 3-' || fail "Down does not scroll"
keys B
wait_for 5 'Stacks: taking them' || fail "B does not retake"
wait_for 90 'Stacks taken at' || fail "the second take never came"
keys Escape
wait_for 5 '^localhost +live' || fail "Esc does not go back"
keys h
wait_for 5 "B +stacks: every rank's stack now" || fail "help has no B"
keys q
echo "ok: the stacks view shows rank 2 alone, retakes and goes back"
exit 0
