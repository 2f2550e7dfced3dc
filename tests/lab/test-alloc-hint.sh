#!/bin/bash
# SPDX-License-Identifier: ISC
# test-alloc-hint: the allocation used a fraction, said live (issue 25
# item 3: "uses 3.1 GB of 64 GB: --mem=4G would do" for CPUs and memory,
# once the job has run a while), where it was said only in the summary.
# The healthy job with 2 CPUs a task (-c 2: the whole of a lab node) whose
# ranks use 20% of one CPU each, watched by jtuser with alloc_after = 8 in
# a settings file of its own (the default is 300 s):
#  - batch JSON at -d 1 for 14 samples, recorded: one "alloc-cpu" event,
#    after 8 s of watching and not before, "the job uses 0.N of 2 CPUs per
#    node at most: 1 CPU per node would do" (0.N from the ranks' own CPU
#    time, what the scheduler's squeue says it allocated: 2 a node), no
#    "alloc-mem" (the lab has no job cgroup: the node's memory in use is
#    not the job's, and the hint errs toward silence);
#  - the recording's replay carries the same event;
#  - the curses monitor in tmux, beside it: the header's flag line says
#    "the job uses under a quarter of its CPUs" once the event is due;
#  - a job given one CPU a task says nothing (no "alloc-cpu": under 2).
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
command -v tmux >/dev/null || lab_skip "tmux is not installed"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
dir=$(mktemp -d /tmp/jobtop-alloc.XXXXXX)
sock=jtalloc-$$
job=""
job1=""
cleanup() {
	set +e
	lab_as "$LAB_USER" tmux -L "$sock" kill-server 2>/dev/null
	[ -z "$job" ] || lab_cancel "$job"
	[ -z "$job1" ] || lab_cancel "$job1"
	rm -rf "$dir"
}
trap cleanup EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"
cp -r "$LAB_TOP/themes" "$dir/"
mkdir -p "$dir/cfg/jobtop" "$dir/out"
echo "alloc_after = 8" >"$dir/cfg/jobtop/jobtoprc"
chown "$LAB_USER" "$dir/out"
chmod -R a+rX "$dir"
JT="env XDG_CONFIG_HOME=$dir/cfg $dir/jobtop"

job=$(lab_submit "$LAB_USER" healthy --cpus-per-task=2) ||
	lab_fail "could not start the healthy job with -c 2"
cpus=$(squeue -h -j "$job" -o %C)
[ "$cpus" = 8 ] || lab_fail "job $job has $cpus CPUs, want 8 (2 a node)"
echo "job $job: 4 ranks at 20% of a CPU, 2 CPUs a node"

UI_TMUX="lab_as $LAB_USER tmux -L $sock" UI_WIN=ui
. "$LAB_TOP/tests/lib/ui.sh"
ui_tmux new-session -d -s ui -x 200 -y 45 \
	"$JT --no-record -d 1 $job; echo jobtop-exit=\$?; sleep 600"
t0=$SECONDS
# shellcheck disable=SC2086
lab_as "$LAB_USER" $JT --json -d 1 -n 14 -o "$dir/out/b.jtr" "$job" \
	>"$dir/b.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
python3 - "$dir/b.json" <<'PY' || lab_fail "batch JSON"
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in recs if r["type"] == "event" and r["code"].startswith("alloc-")]
assert [e["code"] for e in ev] == ["alloc-cpu"], "alloc events: %s" % ev
e = ev[0]
m = re.fullmatch(r"the job uses (0\.\d) of 2 CPUs per node at most: "
                 r"1 CPU per node would do", e["text"])
assert m, e["text"]
assert float(m.group(1)) < 0.5, e["text"]
times = sorted({r["time"] for r in recs if r["type"] == "node"})
first = times[0]
assert e["time"] - first >= 8, "said %.1f s after the first sample" % (e["time"] - first)
print("ok: %s (%.0f s after the first sample)" % (e["text"], e["time"] - first))
PY
lab_as "$LAB_USER" "$dir/jobtop" -r "$dir/out/b.jtr" -b --json >"$dir/r.json" \
	2>"$dir/err" || lab_fail "replay of the recording: $(cat "$dir/err")"
a=$(grep '"alloc-cpu"' "$dir/b.json" | python3 -c 'import json,sys; print([json.loads(l)["text"] for l in sys.stdin])')
b=$(grep '"alloc-cpu"' "$dir/r.json" | python3 -c 'import json,sys; print([json.loads(l)["text"] for l in sys.stdin])')
[ "$a" = "$b" ] || lab_fail "the replay's alloc-cpu events $b, live $a"
echo "ok: the recording's replay has it"
ui_wait $((20 - (SECONDS - t0) > 3 ? 20 - (SECONDS - t0) : 3)) 'the job uses under a quarter of its CPUs' ||
	ui_fail "the header does not say 'the job uses under a quarter of its CPUs'"
echo "ok: the header: $(ui_screen | grep -o '[^ ].*the job uses under a quarter of its CPUs' | head -1)"
lab_as "$LAB_USER" tmux -L "$sock" kill-server 2>/dev/null || true
lab_cancel "$job"
job=""

# One CPU a task: nothing to say (a node's 1 CPU).
job1=$(lab_submit "$LAB_USER" healthy) || lab_fail "could not start the healthy job"
# shellcheck disable=SC2086
lab_as "$LAB_USER" $JT --json --no-record -d 1 -n 11 "$job1" \
	>"$dir/one.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
if grep -q '"alloc-' "$dir/one.json"; then
	lab_fail "an allocation hint for a job of one CPU a node: $(grep '"alloc-' "$dir/one.json")"
fi
echo "ok: a job of one CPU a node: no allocation hint"
echo PASS
