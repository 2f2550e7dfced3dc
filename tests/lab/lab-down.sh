#!/bin/bash
# SPDX-License-Identifier: ISC
# lab-down.sh: tear the lab cluster down completely; safe to run any number
# of times and after a crash (stale namespaces, dead daemons, lost pid files).
#
# Removes: every process inside a jtnode* network namespace (node inits and
# all they started), the host's lab munged and slurmctld, the namespaces,
# the bridge and veth links, our marked /etc/hosts lines, the
# /etc/slurm/slurm.conf link if it points into the lab, and $LAB_DIR.
# With OAR: its server, database (and PostgreSQL if the lab started it),
# /etc/oar/oar.conf restored (lab_oar_down in lib.sh).
# Keeps: the users jtuser, jtother, jtrsa, jtdeny, jtjump and their home directories.
set -eu
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "lab-down: must run as root" >&2; exit 1; }
# Another run's lab (its owner still runs) is left alone unless forced.
if [ "${LAB_FORCE:-0}" != 1 ] && owner=$(lab_owner_busy); then
	echo "lab-down: the lab is in use by $owner; LAB_FORCE=1 takes it down anyway" >&2
	exit 1
fi

# OAR first (only if a test brought it up): its server would otherwise
# keep trying the nodes; then its database, PostgreSQL and oar.conf.
lab_oar_down

# pids_to_kill: lab processes, found by what they are rather than by name:
# everything inside a lab network namespace, plus host daemons whose command
# line names a lab path (pid files may be stale or gone after a crash).
pids_to_kill() {
	local ns
	for ns in $(ip netns list 2>/dev/null | awk '$1 ~ /^jtnode[0-9]+$/ {print $1}'); do
		ip netns pids "$ns" 2>/dev/null || true
	done
	# slurmctld's helper slurmscriptd names no path: judge it by its parent.
	ps -e -o pid=,ppid=,comm=,args= | awk -v lab="$LAB_DIR/" -v self=$$ '
		$1 != self && $3 ~ /^(munged|slurmctld|slurmd|slurmstepd|sshd)$/ &&
		    index($0, lab) { print $1; ours[$1] = 1 }
		$3 == "slurmscriptd" { helper[$1] = $2 }
		END { for (p in helper) if (helper[p] in ours) print p }'
}

# SIGKILL: a node's init ignores other signals from outside its PID
# namespace, and its death takes the whole node with it.  Repeat until none
# is left, since a dying node may still have been forking.
for _ in 1 2 3 4 5 6 7 8 9 10; do
	pids=$(pids_to_kill | sort -u)
	[ -n "$pids" ] || break
	# shellcheck disable=SC2086
	kill -9 $pids 2>/dev/null || true
	sleep 0.1
done
pids=$(pids_to_kill | sort -u)
if [ -n "$pids" ]; then
	echo "lab-down: processes survive SIGKILL: ${pids//$'\n'/ }" >&2
	exit 1
fi

for ns in $(ip netns list 2>/dev/null | awk '$1 ~ /^jtnode[0-9]+$/ {print $1}'); do
	ip netns delete "$ns"
done
# `ip netns add` bind-mounts /run/netns onto itself; undo that once no
# namespace at all is left (someone else's namespaces keep it).
if [ -d /run/netns ] && [ -z "$(ls -A /run/netns)" ]; then
	while mountpoint -q /run/netns; do umount /run/netns || break; done
	rmdir /run/netns 2>/dev/null || true
fi
# Deleting a namespace deletes its veth pair, but a link left in the host
# namespace (a crash between `ip link add` and the move) needs deleting.
for l in $(ip -o link show 2>/dev/null | awk -F': ' '{sub(/@.*/, "", $2); print $2}' |
	grep -E "^(jtveth[0-9]+|$LAB_BRIDGE)\$"); do
	ip link delete "$l" 2>/dev/null || true
done

# /etc/hosts may be a bind mount: rewrite it in place, never rename over it.
if grep -q "$LAB_MARK\$" /etc/hosts; then
	kept=$(grep -v "$LAB_MARK\$" /etc/hosts)
	printf '%s\n' "$kept" >/etc/hosts
fi

if [ -L /etc/slurm/slurm.conf ] &&
	[ "$(readlink /etc/slurm/slurm.conf)" = "$LAB_SLURM_CONF" ]; then
	rm -f /etc/slurm/slurm.conf
fi

case $LAB_DIR in
/?*/?*) rm -rf "$LAB_DIR" ;;
*) echo "lab-down: refusing to remove LAB_DIR=$LAB_DIR" >&2; exit 1 ;;
esac
rm -f "$LAB_OWNER_FILE"
echo "lab-down: lab is down"
