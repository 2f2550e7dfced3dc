#!/bin/bash
# SPDX-License-Identifier: ISC
# node-init.sh NODE: PID 1 of one lab node.
#
# lab-up.sh starts it as
#	ip netns exec jtnodeN unshare --pid --fork --mount-proc --uts node-init.sh nodeN
# so it runs in the node's own network, PID, mount and UTS namespaces.  It
# gives the node its hostname, a cgroup v1 tree (slurmd insists on one), a
# private /tmp like a real node's local disk, starts sshd and slurmd, and then
# stays alive to reap orphans.  Killing it (SIGKILL from the host) kills every
# process of the node: that is how lab-down.sh stops a node.
set -eu
node=$1
. "$(dirname "$0")/lib.sh"
nodedir=$LAB_DIR/nodes/$node

hostname "$node"

# `ip netns exec` remounted /sys, so /sys/fs/cgroup is empty here; mount the
# same v1 hierarchies the host has (mounting an existing hierarchy again just
# shows it here too).  unshare made this mount namespace private.
mount -t tmpfs -o mode=755 cgroup_root /sys/fs/cgroup
for c in cpu cpuacct cpuset memory devices freezer pids; do
	mkdir -p "/sys/fs/cgroup/$c"
	mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c"
done
mkdir -p /sys/fs/cgroup/systemd
mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd

# Nodes share / and /home (like a cluster's shared home) but each has its
# own /tmp, so a file pushed to one node is not magically on the others.
mount -t tmpfs -o mode=1777,size=256m "tmp-$node" /tmp

# Both daemonize; their parent becomes this init.
/usr/sbin/sshd -f "$nodedir/sshd_config" -E "$LAB_LOG/sshd.$node.log"
/usr/sbin/slurmd -f "$SLURM_CONF" -N "$node"
echo "$node: sshd and slurmd started"

# PID 1 must reap: bash's SIGCHLD handling waits for any child, including
# orphans reparented here (finished job steps, ssh sessions).
while :; do
	sleep 3600 &
	wait $! || true
done
