#!/bin/bash
# SPDX-License-Identifier: ISC
# test-lab-basic: the lab cluster is what the other lab tests assume.
# N idle nodes in sinfo; each node has its own hostname and its own process
# table; ssh works as jtuser to every node; a 4-node job of jtuser puts one
# rank on each node.  Needs `make lab-up` (tests/run.sh does it).
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up

jobs=()
trap 'lab_cancel "${jobs[@]}"' EXIT

# Nodes: a previous test's job may still be completing.
lab_wait_idle 20 || lab_fail "not all of $LAB_N nodes idle in sinfo: $(sinfo -h -N -o '%N:%T' | tr '\n' ' ')"
idle=$(sinfo -h -N -t idle -o %N | sort -u | tr '\n' ' ')
[ "$idle" = "$(printf '%s ' "${LAB_NODES[@]}")" ] ||
	lab_fail "idle nodes are '$idle', expected ${LAB_NODES[*]}"
echo "ok: sinfo shows $LAB_N idle nodes"

# Own hostname and process table: inside a node, ps sees PID 1 (the node's
# init), its sshd and slurmd and nothing of the host or the other nodes.
for node in "${LAB_NODES[@]}"; do
	got=$(lab_node_exec "$node" hostname)
	[ "$got" = "$node" ] || lab_fail "$node: hostname inside the node is '$got'"
	table=$(lab_node_exec "$node" ps -e -o pid=,comm=)
	init=$(awk '$1 == 1 {print $2}' <<<"$table")
	[ "$init" = node-init.sh ] || lab_fail "$node: PID 1 is '$init', not the node's init"
	for d in sshd slurmd; do
		grep -qw "$d" <<<"$table" || lab_fail "$node: no $d in the node's process table"
	done
	# Anything else (slurmctld, munged, another node's daemons, a leftover
	# job) means the PID namespace leaks or the node is not clean.
	extra=$(awk '$2 !~ /^(node-init.sh|sleep|sshd|slurmd|ps)$/ {print $2 "(" $1 ")"}' <<<"$table" | tr '\n' ' ')
	[ -z "$extra" ] || lab_fail "$node: unexpected processes in the node: $extra"
	n=$(wc -l <<<"$table")
	((n <= 8)) || lab_fail "$node: $n processes visible, expected the node's own few"
done
echo "ok: each node has its own hostname and process table"

# ssh as the ordinary user, strict host keys (BatchMode: no prompt can hang).
for node in "${LAB_NODES[@]}"; do
	got=$(lab_ssh "$LAB_USER" "$node" 'echo "$(hostname) $(id -un)"' </dev/null) ||
		lab_fail "ssh $LAB_USER@$node failed"
	[ "$got" = "$node $LAB_USER" ] || lab_fail "ssh $LAB_USER@$node answered '$got'"
done
echo "ok: ssh as $LAB_USER to ${LAB_NODES[*]}"

# One rank per node for a 4-node job.
((LAB_N >= 4)) || lab_skip "the job test needs 4 nodes, the lab has $LAB_N"
job=$(lab_submit "$LAB_USER" healthy) || lab_fail "could not start the healthy job as $LAB_USER"
jobs+=("$job")
ranks=$(lab_ranks "$job")
echo "$ranks" | sed 's/^/  rank pid host: /'
[ "$(awk '{print $1}' <<<"$ranks" | tr '\n' ' ')" = "0 1 2 3 " ] ||
	lab_fail "job $job: ranks are '$(awk '{print $1}' <<<"$ranks" | tr '\n' ' ')', expected 0 1 2 3"
hosts=$(awk '{print $3}' <<<"$ranks" | sort -u | tr '\n' ' ')
[ "$hosts" = "node1 node2 node3 node4 " ] ||
	lab_fail "job $job: ranks on '$hosts', expected one on each of node1..node4"
# Each rank file names a live rankload of jtuser on that node, under the
# node's step daemon for this job.
while read -r rank pid host; do
	info=$(lab_node_exec "$host" ps -o user=,comm=,ppid= -p "$pid") ||
		lab_fail "job $job rank $rank: pid $pid is not running on $host"
	read -r user comm ppid <<<"$info"
	[ "$user" = "$LAB_USER" ] && [ "$comm" = rankload ] ||
		lab_fail "job $job rank $rank: pid $pid on $host is '$user $comm', expected '$LAB_USER rankload'"
	parent=$(lab_node_exec "$host" ps -o args= -p "$ppid")
	[ "$parent" = "slurmstepd: [$job.0]" ] ||
		lab_fail "job $job rank $rank: parent of $pid on $host is '$parent', expected 'slurmstepd: [$job.0]'"
done <<<"$ranks"
echo "ok: job $job of $LAB_USER has one rank on each node"

lab_cancel "$job"
jobs=()
echo "PASS"
