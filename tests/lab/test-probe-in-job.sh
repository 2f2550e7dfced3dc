#!/bin/bash
# SPDX-License-Identifier: ISC
# test-probe-in-job: the foundation acceptance test of probe + decoder.
#
# Two 4-node jobs of jtuser share the nodes: "healthy" (every rank spins)
# and "memhog" (rank 1 holds 300 MiB, the others 20 MiB, all idle).  As
# jtuser, with plain scp/ssh like a user without jobtop would, push
# ./jobtop-probe into a private temp dir on each node, run
#	jobtop-probe --job JOBID --interval 0.5 --count 4
# through ssh, decode the stream with `$JOBTOP --decode --json`, and check
# against the node itself (node-ref.sh reads /proc, ps and free -b on the node
# just before and just after the probe's run; probe-check.py compares):
#   - one node record per sample, all records named after the node;
#   - exactly the job's ranks on each node: the pids in the rank files (=
#     rankload processes under slurmstepd: [JOB.N]), none of the other
#     job's and not the batch step's srun, with their SLURM_PROCID as rank;
#   - per rank: CPU time within 2 ticks + one interval of /proc/PID/stat
#     (and ps -o cputime within its 1 s resolution), RSS within 5% or 1 MiB
#     of /proc and ps -o rss, state as /proc says;
#   - node memory used within 3% / 16 MiB / its drift of free -b's used,
#     with 256 MiB of page cache so "free" and "available" differ clearly.
# The tolerances are explained in probe-check.py next to each comparison.
# Finally the probe must exit when its ssh channel's stdin closes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
# Spinning ranks: the state check compares the probe's sample with /proc
# read a moment later, which a duty-cycled rank (lib.sh's default healthy
# job: R, then S) need not agree with.
export LAB_HEALTHY_SPIN=1
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
lab_require_up
# Only while the other parts are being written; under CI a skip fails.
[ -x "$PROBE" ] || lab_skip "$PROBE is not built yet (make jobtop-probe)"
[ -x "$JOBTOP" ] || lab_skip "$JOBTOP is not built yet (make jobtop)"
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3	# not root's pyenv shim
interval=0.5 count=4
nodes=(node1 node2 node3 node4)

work=$(mktemp -d /tmp/jobtop-probe-test.XXXXXX)
jobs=()
cleanup() {
	lab_cancel "${jobs[@]}"
	rm -rf "$work"
}
trap cleanup EXIT

job_healthy=$(lab_submit "$LAB_USER" healthy) || lab_fail "could not start the healthy job"
jobs+=("$job_healthy")
job_memhog=$(lab_submit "$LAB_USER" memhog) || lab_fail "could not start the memhog job"
jobs+=("$job_memhog")
echo "jobs: healthy $job_healthy, memhog $job_memhog"

# What jtuser copies: the probe and the reference script, in a directory
# jtuser can read (the repository may not be readable to it).
stage=$work/stage
mkdir -p "$stage"
cp "$PROBE" "$stage/jobtop-probe"
cp "$here/node-ref.sh" "$stage/node-ref.sh"
chmod 755 "$stage" "$stage"/*
chmod 755 "$work"

# Put 256 MiB in the page cache (a clean file on disk), so that memory
# "available" and "free" differ by far more than the tolerance: a probe that
# computed used = total - free would then fail the comparison with free -b.
dd if=/dev/zero of="$work/pagecache" bs=1M count=256 conv=fsync status=none ||
	lab_fail "cannot write $work/pagecache"
cat "$work/pagecache" >/dev/null

# The probe exits when stdin closes, and ssh passes EOF on: every ssh that
# runs a probe gets fd 9, which never sees data or EOF.
lab_hold_stdin || lab_fail "cannot make a FIFO for the probes' stdin"

# run_node NODE: push the probe, run it for both jobs; all output in $work.
run_node() {
	local node=$1 rdir job
	rdir=$(lab_ssh "$LAB_USER" "$node" 'mktemp -d /tmp/jobtop-test.XXXXXX' </dev/null) ||
		{ echo "ssh $LAB_USER@$node mktemp failed" >"$work/$node.err"; return 1; }
	echo "$rdir" >"$work/$node.rdir"
	lab_as "$LAB_USER" scp -q -p "$stage/jobtop-probe" "$stage/node-ref.sh" "$node:$rdir/" \
		</dev/null 2>"$work/$node.err" ||
		{ echo "scp to $LAB_USER@$node:$rdir failed: $(tail -n 1 "$work/$node.err")" >"$work/$node.err"; return 1; }
	for job in "$job_healthy" "$job_memhog"; do
		if ! lab_ssh "$LAB_USER" "$node" "$rdir/node-ref.sh $rdir $job $interval $count" \
			<&9 >"$work/$node.$job.frames" 2>"$work/$node.$job.probe-err"; then
			echo "probe on $node for job $job failed: $(tail -n 1 "$work/$node.$job.probe-err")" >"$work/$node.err"
			return 1
		fi
		lab_ssh "$LAB_USER" "$node" "cat $rdir/ref.$job" </dev/null >"$work/$node.$job.refs" ||
			{ echo "cannot read $node:$rdir/ref.$job" >"$work/$node.err"; return 1; }
	done
}

t0=$SECONDS
pids=()
for node in "${nodes[@]}"; do
	run_node "$node" &
	pids+=($!)
done
failed=""
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || failed+="$(cat "$work/${nodes[$i]}.err" 2>/dev/null); "
done
[ -z "$failed" ] || lab_fail "$failed"
echo "ok: probe pushed with scp and run through ssh on ${nodes[*]} ($((SECONDS - t0))s)"

bad=0
for node in "${nodes[@]}"; do
	for job in "$job_healthy" "$job_memhog"; do
		f=$work/$node.$job
		[ -s "$f.frames" ] || { echo "FAIL: $node job $job: the probe wrote nothing"; bad=$((bad + 1)); continue; }
		if ! "$JOBTOP" --decode --json <"$f.frames" >"$f.json" 2>"$f.decode-err"; then
			echo "FAIL: $node job $job: $JOBTOP --decode --json failed: $(tail -n 1 "$f.decode-err")"
			bad=$((bad + 1))
			continue
		fi
		if [ ! -s "$f.json" ]; then
			echo "FAIL: $node job $job: $JOBTOP --decode --json printed nothing for $(wc -c <"$f.frames") bytes of frames"
			bad=$((bad + 1))
			continue
		fi
		lab_ranks "$job" >"$f.ranks"
		"$PY" "$here/probe-check.py" --records "$f.json" --refs "$f.refs" \
			--ranks "$f.ranks" --node "$node" --job "$job" \
			--interval "$interval" --count "$count" || bad=$((bad + 1))
	done
done
((bad == 0)) || lab_fail "$bad of $((${#nodes[@]} * 2)) probe runs (node, job) disagree with the node (see above)"

# The probe must not outlive its ssh channel: start a long run, close the
# channel's stdin, and expect ssh to end and no probe to remain on the node.
node=node1
read -r rdir <"$work/$node.rdir"
mkfifo "$work/stdin-close"
lab_ssh "$LAB_USER" "$node" "exec $rdir/jobtop-probe --job $job_healthy --interval $interval --count 10000" \
	<"$work/stdin-close" >"$work/close.frames" 2>"$work/close.err" &
sshpid=$!
exec 4>"$work/stdin-close"	# the only writer: closing it means EOF
sleep 1.5
exec 4>&-
for ((i = 0; i < 50; i++)); do
	kill -0 "$sshpid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$sshpid" 2>/dev/null; then
	kill "$sshpid" 2>/dev/null || true
	lab_fail "$node: the probe kept running 5 s after its stdin (the ssh channel) closed"
fi
left=$(lab_ssh "$LAB_USER" "$node" "pgrep -u $LAB_USER -f '^$rdir/jobtop-probe' || true" </dev/null)
[ -z "$left" ] || lab_fail "$node: probe process(es) $left still running after the channel closed"
[ -s "$work/close.frames" ] || lab_fail "$node: the long probe run wrote nothing before its stdin closed"
echo "ok: the probe exits when its stdin closes"

for node in "${nodes[@]}"; do
	read -r rdir <"$work/$node.rdir"
	lab_ssh "$LAB_USER" "$node" "rm -rf $rdir" </dev/null || true
done
echo "PASS"
