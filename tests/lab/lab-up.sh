#!/bin/bash
# SPDX-License-Identifier: ISC
# lab-up.sh [N]: start a real N-node Slurm cluster on this machine (default 4).
#
# Each node nodeK is a network namespace jtnodeK (veth jtvethK into the host
# bridge jtlab0, address 10.251.7.(10+K), /etc/hosts name nodeK) whose init
# (node-init.sh) runs in its own PID, mount and UTS namespaces and starts a
# real sshd and `slurmd -N nodeK`.  The host runs munged and slurmctld.
# Users jtuser and jtother can ssh to every node with their own keys; root
# uses the lab identity in $LAB_DIR/root-home (never /root/.ssh).  Accounts a
# real site has: jtrsa's only key is RSA 3072 (OpenSSH signs with rsa-sha2,
# libssh2 1.10 only with SHA-1 ssh-rsa, which the nodes' OpenSSH 9.2
# refuses); jtdeny is refused by every node's sshd (DenyUsers) but Slurm runs
# his jobs (srun --overlap is his way in); jtjump is refused on node2..N when
# he comes from the login node (DenyUsers jtjump@<host address>), so only his
# ~/.ssh/config's ProxyJump through node1 reaches them; jtcert's key is in
# no authorized_keys: the nodes trust it through the OpenSSH user
# certificate the lab's user CA signed (TrustedUserCAKeys), as centres
# that hand out short-lived certificates do (libssh2 1.10 cannot present
# one).
#
# It always cleans first (lab-down.sh), so it is idempotent and recovers from
# a crash.  It returns when every node is idle in sinfo and ssh works for
# every user, or exits non-zero with one line saying what failed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_start=$(date +%s.%N)

die() { echo "lab-up: $*" >&2; exit 1; }
# Any other failing command still ends with one line saying what failed.
set -E
on_err() { die "failed (line $1): ${2%%$'\n'*}"; }
trap 'on_err $LINENO "$BASH_COMMAND"' ERR
[ "$(id -u)" -eq 0 ] || die "must run as root (namespaces, daemons, /etc/hosts)"
N=${1:-4}
case $N in [1-9] | [1-9][0-9] | 1[0-9][0-9] | 2[0-3][0-9] | 240) ;;
*) die "node count must be 1..240 (one /24), not '$N'" ;;
esac
for c in ip unshare nsenter runuser sshd ssh ssh-keygen munged slurmctld slurmd \
	sinfo sbatch scontrol; do
	command -v "$c" >/dev/null || die "missing command $c (run: make deps)"
done

# One lab at a time: another run's lab is not ours to rebuild.
if owner=$(lab_owner_busy); then
	die "the lab is in use by $owner: wait for it to end (tests and benchmarks take flock /tmp/jobtop-lab.lock)"
fi
lab_owner_take "${LAB_OWNER:-$PPID}"
# Root's logins on the nodes run the host's ~/.bashrc (one filesystem),
# which on these machines runs `pyenv init`: its rehash lock
# (~/.pyenv/shims/.pyenv-shim), left behind by a login killed while it
# held it, makes every later root login wait 60 s (PYENV_REHASH_TIMEOUT),
# and every root session then ends "no data".  A lock older than two
# minutes is stale: no rehash takes that long.
for lock in /root/.pyenv/shims/.pyenv-shim; do
	[ -n "$(find "$lock" -maxdepth 0 -mmin +2 2>/dev/null)" ] && rm -f "$lock"
done
"$here/lab-down.sh" >/dev/null || die "could not clean up the previous lab (lab-down.sh failed)"

# lib.sh derived the node list from a count file that is gone now.
# shellcheck disable=SC2034 # used by lib.sh's functions
LAB_N=$N
LAB_NODES=()
for ((i = 1; i <= N; i++)); do LAB_NODES+=("node$i"); done
# shellcheck disable=SC2034
LAB_NODELIST="node[1-$N]"

umask 022
mkdir -p "$LAB_DIR"/{bin,etc,log,nodes,slurm,ssh,munge} "$LAB_ROOT_HOME/.ssh"
chmod 755 "$LAB_DIR"
echo "$N" >"$LAB_DIR/nodes.count"
# Jobs of any user write their rank files here (sticky, like /tmp).
mkdir -p "$LAB_RANKS" && chmod 1777 "$LAB_RANKS"
mkdir -p /run/sshd && chmod 755 /run/sshd	# sshd's privilege separation dir

# --- binaries the users run on the nodes (world-readable copies) ---------
rl_src=$LAB_TOP/tests/lab/rankload.c rl_bin=$LAB_TOP/build/tests/lab/rankload
if [ -x "$rl_bin" ] && [ ! "$rl_src" -nt "$rl_bin" ]; then
	install -m 755 "$rl_bin" "$LAB_BIN/rankload"
else	# lab-up run without `make`: build the workload ourselves
	cc -std=c11 -O2 -D_GNU_SOURCE -Wall -o "$LAB_BIN/rankload" "$rl_src" ||
		die "cannot build rankload from $rl_src"
fi
# $PROBE as tests/run.sh exports it; absent while the probe is being written.
probe=${PROBE:-$LAB_TOP/jobtop-probe}
if [ -x "$probe" ]; then
	install -m 755 "$probe" "$LAB_BIN/jobtop-probe"
fi

# --- network: a bridge with the host's address, one namespace per node ---
ip link add "$LAB_BRIDGE" type bridge || die "cannot create bridge $LAB_BRIDGE"
ip addr add "$LAB_HOST_ADDR/24" dev "$LAB_BRIDGE"
ip link set "$LAB_BRIDGE" up
hosts_lines=""
for node in "${LAB_NODES[@]}"; do
	ns=$(lab_ns "$node") veth=$(lab_veth "$node") addr=$(lab_addr "$node")
	ip netns add "$ns" || die "cannot create network namespace $ns"
	ip link add "$veth" type veth peer name eth0 netns "$ns" ||
		die "cannot create veth pair $veth for $node"
	ip link set "$veth" master "$LAB_BRIDGE" up
	# No default route: a node can only reach the bridge's /24.
	ip -n "$ns" addr add "$addr/24" dev eth0
	ip -n "$ns" link set eth0 up
	ip -n "$ns" link set lo up
	hosts_lines+="$addr $node $LAB_MARK"$'\n'
done
# Append in place (/etc/hosts may be a bind mount).
printf '%s' "$hosts_lines" >>/etc/hosts

# --- munge: own key and socket, run as the munge user ---------------------
md=$LAB_DIR/munge
dd if=/dev/urandom of="$md/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$md"
chmod 400 "$md/munge.key"
chmod 755 "$md"		# users' slurm commands must reach the socket
runuser -u munge -- /usr/sbin/munged --key-file="$md/munge.key" \
	--socket="$md/munge.socket" --pid-file="$md/munged.pid" \
	--log-file="$md/munged.log" --seed-file="$md/munged.seed" \
	</dev/null >/dev/null 2>&1 || die "munged failed to start (see $md/munged.log)"

# --- slurm ----------------------------------------------------------------
ctld_host=$(hostname -s)
# Two GPUs a node for Slurm's GRES: stand-in device files (char 195:0 and
# 195:1, NVIDIA's major, no driver behind them; nothing opens them).
# slurmd only stats a gres.conf File=, so jobs can ask --gres=gpu:N and
# Slurm allocates and prints GPU indexes as on a GPU cluster (test-gres).
mkdir -p "$LAB_DIR/dev"
for k in 0 1; do
	mknod -m 600 "$LAB_DIR/dev/nvidia$k" c 195 "$k" ||
		die "mknod $LAB_DIR/dev/nvidia$k failed"
done
cat >"$(dirname "$LAB_SLURM_CONF")/gres.conf" <<EOF
# Written by tests/lab/lab-up.sh; removed by lab-down.sh.
Name=gpu File=$LAB_DIR/dev/nvidia[0-1]
EOF
chmod 644 "$(dirname "$LAB_SLURM_CONF")/gres.conf"
cat >"$LAB_SLURM_CONF" <<EOF
# Written by tests/lab/lab-up.sh; removed by lab-down.sh.
ClusterName=jobtoplab
# slurmctld refuses to start unless this is its own short hostname.
SlurmctldHost=$ctld_host($LAB_HOST_ADDR)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$md/munge.socket
StateSaveLocation=$LAB_DIR/slurm/ctld
SlurmctldPidFile=$LAB_DIR/slurm/slurmctld.pid
SlurmctldLogFile=$LAB_LOG/slurmctld.log
# Every node's slurmd shares this file system: %n keeps them apart.
SlurmdSpoolDir=$LAB_DIR/slurm/spool.%n
SlurmdPidFile=$LAB_DIR/slurm/slurmd.%n.pid
SlurmdLogFile=$LAB_LOG/slurmd.%n.log
# The slurmds share one kernel's cgroup trees: track processes by /proc only.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
# Allocate CPUs, not whole nodes, so two 1-rank-per-node jobs share the nodes.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# Heterogeneous jobs are placed by the backfill scheduler only: every 2 s
# here instead of every 30 s, so a test's het job starts when nodes are free.
SchedulerParameters=bf_interval=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=2
MinJobAge=60
GresTypes=gpu
NodeName=node[1-$N] CPUs=2 RealMemory=2000 Gres=gpu:2 State=UNKNOWN
PartitionName=lab Nodes=node[1-$N] Default=YES MaxTime=INFINITE State=UP
EOF
chmod 644 "$LAB_SLURM_CONF"
# Plain `sinfo`/`scontrol` (and jobtop's own scheduler calls) find the lab
# without SLURM_CONF; never replace a real configuration.
if [ ! -e /etc/slurm/slurm.conf ] && [ ! -L /etc/slurm/slurm.conf ]; then
	mkdir -p /etc/slurm
	ln -s "$LAB_SLURM_CONF" /etc/slurm/slurm.conf
fi
mkdir -p "$LAB_DIR/slurm/ctld"
/usr/sbin/slurmctld -f "$LAB_SLURM_CONF" </dev/null >"$LAB_LOG/slurmctld.out" 2>&1 ||
	die "slurmctld failed to start: $(tail -n 1 "$LAB_LOG/slurmctld.log" 2>/dev/null)"

# --- ssh: host keys, per-node sshd config, user keys and known_hosts ------
known_hosts=""
ssh-keygen -q -t ed25519 -N '' -C "jobtop-lab user CA" -f "$LAB_DIR/ssh/user_ca"
for node in "${LAB_NODES[@]}"; do
	nd=$LAB_DIR/nodes/$node
	mkdir -p "$nd"
	ssh-keygen -q -t ed25519 -N '' -C "$node" -f "$nd/ssh_host_ed25519_key"
	known_hosts+="$node,$(lab_addr "$node") $(cut -d' ' -f1,2 "$nd/ssh_host_ed25519_key.pub")"$'\n'
	cat >"$nd/sshd_config" <<EOF
# sshd of lab $node, written by tests/lab/lab-up.sh.
ListenAddress $(lab_addr "$node")
Port 22
PidFile $nd/sshd.pid
HostKey $nd/ssh_host_ed25519_key
UsePAM no
# Root's lab key lives in the lab, never in /root/.ssh: sshd also reads
# $LAB_DIR/ssh/authorized_keys.<user>, which exists for root only.
AuthorizedKeysFile .ssh/authorized_keys $LAB_DIR/ssh/authorized_keys.%u
# Users may also log in with a certificate of the lab's user CA (jtcert).
TrustedUserCAKeys $LAB_DIR/ssh/user_ca.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
# curve25519 only first and no post-quantum kex: OpenSSH clients then use
# what libssh2 1.10 uses, so timings of ssh/pdsh and jobtop compare fairly.
KexAlgorithms curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256,diffie-hellman-group14-sha256
# scp in OpenSSH 9 speaks SFTP.
Subsystem sftp internal-sftp
UseDNS no
PrintMotd no
PrintLastLog no
MaxStartups 200:30:400
MaxSessions 64
LogLevel ERROR
EOF
	if [ "$node" = node1 ]; then
		echo "DenyUsers $LAB_DENY" >>"$nd/sshd_config"
	else
		echo "DenyUsers $LAB_DENY $LAB_JUMP@$LAB_HOST_ADDR" >>"$nd/sshd_config"
	fi
done

# setup_user USER [rsa|jump|cert]: an ordinary account with an ed25519 key
# (or, with rsa, only an RSA 3072 key) that logs in to every node (home
# directories are shared by all nodes); jump: node2.. are reached through
# node1; cert: the key is in no authorized_keys, a certificate of the lab's
# user CA (a day's validity, principal USER) lets it in.
setup_user() {
	local user=$1 kind=${2:-} home key
	if ! getent passwd "$user" >/dev/null; then
		useradd -m -s /bin/bash -c "jobtop lab user" "$user" ||
			die "cannot create user $user"
	fi
	# With UsePAM no, sshd refuses accounts whose password field is locked
	# ("!", useradd's default): '*' means no password but not locked.
	case $(getent shadow "$user" | cut -d: -f2) in '!'*) usermod -p '*' "$user" ;; esac
	home=$(getent passwd "$user" | cut -d: -f6)
	mkdir -p "$home/.ssh"
	if [ "$kind" = rsa ]; then
		key=id_rsa
		rm -f "$home/.ssh/id_ed25519" "$home/.ssh/id_ed25519.pub"
		[ -f "$home/.ssh/id_rsa" ] ||
			ssh-keygen -q -t rsa -b 3072 -N '' -C "$user@jobtop-lab" -f "$home/.ssh/id_rsa"
	else
		key=id_ed25519
		[ -f "$home/.ssh/id_ed25519" ] ||
			ssh-keygen -q -t ed25519 -N '' -C "$user@jobtop-lab" -f "$home/.ssh/id_ed25519"
	fi
	if [ "$kind" = cert ]; then
		: >"$home/.ssh/authorized_keys"
		rm -f "$home/.ssh/$key-cert.pub"
		ssh-keygen -q -s "$LAB_DIR/ssh/user_ca" -I "$user@jobtop-lab" \
			-n "$user" -V -5m:+1d "$home/.ssh/$key.pub"
	else
		cp "$home/.ssh/$key.pub" "$home/.ssh/authorized_keys"
	fi
	printf '%s' "$known_hosts" >"$home/.ssh/known_hosts"
	cat >"$home/.ssh/config" <<EOF
# Written by jobtop's tests/lab/lab-up.sh.
Host node*
	BatchMode yes
	StrictHostKeyChecking yes
	ConnectTimeout 5
EOF
	if [ "$kind" = jump ]; then
		cat >>"$home/.ssh/config" <<EOF
# node2.. refuse this account from the login node: go through node1.
Host node* !node1
	ProxyJump node1
EOF
	fi
	# bash reads ~/.bashrc for commands run by sshd: keep that cheap.
	if ! grep -q 'jobtop-lab: non-interactive' "$home/.bashrc" 2>/dev/null; then
		{
			echo '# jobtop-lab: non-interactive shells (ssh node cmd) stop here.'
			echo 'case $- in *i*) ;; *) return ;; esac'
			cat "$home/.bashrc" 2>/dev/null || true
		} >"$home/.bashrc.new"
		mv "$home/.bashrc.new" "$home/.bashrc"
	fi
	chown -R "$user:" "$home/.ssh" "$home/.bashrc"
	chmod 700 "$home/.ssh"
	chmod 600 "$home/.ssh/$key" "$home/.ssh/config"
}
setup_user "$LAB_USER"
setup_user "$LAB_OTHER"
setup_user "$LAB_RSA" rsa
setup_user "$LAB_DENY"
setup_user "$LAB_JUMP" jump
setup_user "$LAB_CERT" cert

rh=$LAB_ROOT_HOME/.ssh
chmod 700 "$rh"
ssh-keygen -q -t ed25519 -N '' -C "root@jobtop-lab" -f "$rh/id_ed25519"
cp "$rh/id_ed25519.pub" "$LAB_DIR/ssh/authorized_keys.root"
printf '%s' "$known_hosts" >"$rh/known_hosts"
# Usable as `ssh -F $LAB_ROOT_SSH_CONFIG` (absolute paths) and, for tools
# that read $HOME/.ssh, with HOME=$LAB_ROOT_HOME.
cat >"$LAB_ROOT_SSH_CONFIG" <<EOF
# Root's lab identity, written by tests/lab/lab-up.sh.
Host node* $LAB_NET.*
	User root
	IdentityFile $rh/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $rh/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	ConnectTimeout 5
EOF

# --- start the nodes --------------------------------------------------------
for node in "${LAB_NODES[@]}"; do
	# setsid: the node must not die with this script's session or terminal.
	setsid ip netns exec "$(lab_ns "$node")" \
		unshare --pid --fork --mount-proc --uts "$here/node-init.sh" "$node" \
		</dev/null >"$LAB_LOG/init.$node.log" 2>&1 &
	echo $! >"$LAB_DIR/nodes/$node/unshare.pid"
done
# The node's init is the child of unshare that is PID 1 in the new PID
# namespace (while `ip netns exec` is still setting up, $! may have other
# short-lived children); record its host PID.
for node in "${LAB_NODES[@]}"; do
	read -r upid <"$LAB_DIR/nodes/$node/unshare.pid"
	ipid="" try=0
	while [ -z "$ipid" ] && ((try++ < 200)); do
		for c in $(cat "/proc/$upid/task/$upid/children" 2>/dev/null); do
			if grep -Eq '^NSpid:.*[[:space:]]1$' "/proc/$c/status" 2>/dev/null; then
				ipid=$c
			fi
		done
		[ -n "$ipid" ] || sleep 0.02
	done
	[ -n "$ipid" ] || die "$node: init did not start (see $LAB_LOG/init.$node.log)"
	echo "$ipid" >"$LAB_DIR/nodes/$node/init.pid"
done

# --- wait: every node idle, ssh working for every user ----------------------
# First slurmctld's port (sinfo against a dead controller takes seconds to
# give up, so a controller that died at start is caught here).
ctld_alive() {
	local cpid
	read -r cpid <"$LAB_DIR/slurm/slurmctld.pid" 2>/dev/null && kill -0 "$cpid" 2>/dev/null
}
t0=$SECONDS
until ctld_alive && timeout 1 bash -c ">/dev/tcp/$LAB_HOST_ADDR/6817" 2>/dev/null; do
	((SECONDS - t0 < 15)) ||
		die "slurmctld is not answering: $(grep -E 'fatal|error' "$LAB_LOG/slurmctld.log" 2>/dev/null | tail -n 1)"
	sleep 0.1
done
while :; do
	# timeout: sinfo takes seconds to give up on a dead controller.
	idle=$(timeout 3 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
	((idle == N)) && break
	ctld_alive || die "slurmctld died: $(grep -E 'fatal|error' "$LAB_LOG/slurmctld.log" 2>/dev/null | tail -n 1)"
	read -r mpid <"$md/munged.pid" 2>/dev/null || mpid=""
	if [ -z "$mpid" ] || ! kill -0 "$mpid" 2>/dev/null; then
		die "munged is not running: $(tail -n 1 "$md/munged.log" 2>/dev/null)"
	fi
	for node in "${LAB_NODES[@]}"; do
		lab_init_pid "$node" >/dev/null ||
			die "$node died while starting: $(tail -n 1 "$LAB_LOG/init.$node.log" 2>/dev/null)"
	done
	if ((SECONDS - t0 > 30)); then
		bad=$(sinfo -h -N -o '%N:%T' 2>/dev/null | grep -v ':idle$' | tr '\n' ' ')
		die "only $idle of $N nodes idle after 30s (${bad:-slurmctld not answering}); see $LAB_LOG/"
	fi
	sleep 0.2
done

# One ssh per (user, node), all at once; a few tries in case an sshd is slow.
check_ssh() {
	local user=$1 node=$2 got try
	for try in 1 2 3 4 5; do
		got=$(lab_ssh "$user" "$node" hostname 2>"$LAB_LOG/ssh-check.err.$user.$node" </dev/null) || true
		[ "$got" = "$node" ] && return 0
		sleep 0.3
	done
	echo "$user@$node: $(tail -n 1 "$LAB_LOG/ssh-check.err.$user.$node")" \
		>"$LAB_LOG/ssh-check.fail.$user.$node"
	return 1
}
pids=()
for user in "$LAB_USER" "$LAB_OTHER" "$LAB_RSA" "$LAB_JUMP" "$LAB_CERT" root; do
	for node in "${LAB_NODES[@]}"; do
		check_ssh "$user" "$node" &
		pids+=($!)
	done
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
if ((failed)); then
	die "ssh failed: $(cat "$LAB_LOG"/ssh-check.fail.* 2>/dev/null | head -n 1)"
fi
rm -f "$LAB_LOG"/ssh-check.*

touch "$LAB_DIR/up"
echo "lab-up: $N nodes idle, ssh ok for $LAB_USER, $LAB_OTHER, $LAB_RSA, $LAB_JUMP, $LAB_CERT and root, in $(
	echo "$(date +%s.%N) $t_start" | awk '{printf "%.1f", $1 - $2}')s (state in $LAB_DIR)"
