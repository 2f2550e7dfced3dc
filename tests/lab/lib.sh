# SPDX-License-Identifier: ISC
# tests/lab/lib.sh: names and helpers of the on-machine lab cluster.
#
# Sourced (bash) by lab-up.sh, lab-down.sh, demo.sh and every tests/lab/test-*.sh,
# so that the node names, addresses, users and paths exist in one place only.
# The lab is N nodes (node1..nodeN), each a network + PID + mount + UTS
# namespace with its own sshd and slurmd; munged and slurmctld run on the host.
# All state lives under $LAB_DIR; lab-down.sh removes it.
#
# Usage in a test:
#	. "$(dirname "$0")/lib.sh"
#	lab_require_up                      # exit 77 with a reason if the lab is down
#	job=$(lab_submit jtuser healthy)    # RUNNING, all ranks reported
#	lab_ssh jtuser node2 hostname
#	lab_cancel "$job"
#
# Variables: LAB_DIR LAB_TOP LAB_BIN LAB_RANKS LAB_LOG LAB_JOBS LAB_NET
# LAB_HOST_ADDR LAB_BRIDGE LAB_MARK LAB_USER LAB_OTHER LAB_RSA LAB_DENY
# LAB_JUMP LAB_ROOT_HOME
# LAB_ROOT_SSH_CONFIG LAB_SLURM_CONF SLURM_CONF LAB_N LAB_NODES (array)
# LAB_NODELIST.  Functions: see each one's comment below.

# shellcheck shell=bash disable=SC2034 # the variables are for the sourcing scripts

LAB_DIR=${JOBTOP_LAB:-/var/lib/jobtop-lab}
LAB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB_BIN=$LAB_DIR/bin			# world-readable binaries: rankload, jobtop-probe
LAB_RANKS=$LAB_DIR/ranks		# LAB_RANKS/JOBID/rank.R = "rank pid hostname"
LAB_LOG=$LAB_DIR/log
LAB_JOBS=$LAB_TOP/tests/lab/jobs	# batch scripts: healthy blocked memhog quarter
LAB_NET=10.251.7			# private /24 that only exists on the lab bridge
LAB_HOST_ADDR=$LAB_NET.1		# the host's (slurmctld's) address on the bridge
LAB_BRIDGE=jtlab0
LAB_MARK="# jobtop-lab"			# marks our /etc/hosts lines
LAB_USER=jtuser				# ordinary test user
LAB_OTHER=jtother			# second ordinary user (must not see jtuser's job)
LAB_RSA=jtrsa				# a user whose only key is RSA 3072 (id_rsa)
LAB_DENY=jtdeny				# the nodes' sshd refuses him (DenyUsers); Slurm runs his jobs
LAB_JUMP=jtjump				# reaches node2.. only through node1 (ProxyJump)
LAB_CERT=jtcert				# logs in only with an OpenSSH user certificate
LAB_ROOT_HOME=$LAB_DIR/root-home	# root's lab ssh identity; /root/.ssh is never touched
LAB_ROOT_SSH_CONFIG=$LAB_ROOT_HOME/.ssh/config
LAB_SLURM_CONF=$LAB_DIR/etc/slurm.conf
export SLURM_CONF=$LAB_SLURM_CONF
export LAB_DIR LAB_BIN LAB_RANKS

# Number of nodes of the running lab (lab-up.sh writes it), 4 by default.
LAB_N=4
if [ -r "$LAB_DIR/nodes.count" ]; then
	read -r LAB_N <"$LAB_DIR/nodes.count"
fi
LAB_NODES=()
for ((_i = 1; _i <= LAB_N; _i++)); do LAB_NODES+=("node$_i"); done
unset _i
LAB_NODELIST="node[1-$LAB_N]"

# lab_index nodeN -> N (fails on anything else, so names are checked before use)
lab_index() {
	case $1 in
	node[1-9] | node[1-9][0-9] | node[1-9][0-9][0-9]) echo "${1#node}" ;;
	*) echo "lab: not a lab node name: $1" >&2; return 1 ;;
	esac
}
# lab_addr nodeN -> its address on the bridge
lab_addr() { local i; i=$(lab_index "$1") || return 1; echo "$LAB_NET.$((10 + i))"; }
# lab_ns nodeN -> its network namespace name (ip netns)
lab_ns() { local i; i=$(lab_index "$1") || return 1; echo "jtnode$i"; }
# lab_veth nodeN -> host end of its veth pair (for `ip link set X down`, tc netem)
lab_veth() { local i; i=$(lab_index "$1") || return 1; echo "jtveth$i"; }
# lab_init_pid nodeN -> host PID of the node's init (PID 1 inside the node)
lab_init_pid() {
	local pid
	read -r pid <"$LAB_DIR/nodes/$1/init.pid" 2>/dev/null || return 1
	[ -d "/proc/$pid" ] || return 1
	echo "$pid"
}

# lab_node_exec nodeN CMD... : run CMD as root inside the node (its net, PID,
# mount and UTS namespaces: `ps` there shows only that node's processes).
lab_node_exec() {
	local node=$1 pid; shift
	pid=$(lab_init_pid "$node") || { echo "lab: $node is not running" >&2; return 1; }
	nsenter -t "$pid" -n -m -u -p -- "$@"
}

# lab_kill_tree PID: kill PID and every process under it, children first.
# A hog started as `lab_node_exec NODE sh -c LOOP &` is a subshell over
# nsenter over the loop (nsenter -p forks): killing $! alone leaves the
# loop spinning on for the tests after.
lab_kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do
		lab_kill_tree "$c"
	done
	kill "$1" 2>/dev/null
}

# lab_as USER CMD... : run CMD as USER with a clean login-like environment
# (HOME, PATH, SLURM_CONF, LAB_*), in USER's home directory.  root runs
# with HOME=$LAB_ROOT_HOME so that tools reading $HOME/.ssh use the lab key.
lab_as() {
	local user=$1 home; shift
	if [ "$user" = root ]; then
		env -C / HOME="$LAB_ROOT_HOME" USER=root LOGNAME=root \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			SLURM_CONF="$SLURM_CONF" LAB_DIR="$LAB_DIR" LAB_BIN="$LAB_BIN" \
			LAB_RANKS="$LAB_RANKS" "$@"
		return
	fi
	home=$(getent passwd "$user" | cut -d: -f6) || { echo "lab: no user $user" >&2; return 1; }
	runuser -u "$user" -- env -i -C "$home" HOME="$home" USER="$user" \
		LOGNAME="$user" SHELL=/bin/bash PATH=/usr/local/bin:/usr/bin:/bin \
		LANG=C.UTF-8 SLURM_CONF="$SLURM_CONF" LAB_DIR="$LAB_DIR" \
		LAB_BIN="$LAB_BIN" LAB_RANKS="$LAB_RANKS" "$@"
}

# lab_ssh USER nodeN CMD... : ssh to a node as USER (root through the lab
# config, never /root/.ssh).  BatchMode and strict host keys come from the
# user's ~/.ssh/config, written by lab-up.sh.
lab_ssh() {
	local user=$1; shift
	if [ "$user" = root ]; then
		ssh -F "$LAB_ROOT_SSH_CONFIG" "$@"
	else
		lab_as "$user" ssh "$@"
	fi
}

# lab_is_up: the state directory says up and every node's init is alive.
lab_is_up() {
	local n
	[ -e "$LAB_DIR/up" ] || return 1
	for n in "${LAB_NODES[@]}"; do lab_init_pid "$n" >/dev/null || return 1; done
}
# lab_require_up: in a test, skip (77) with the reason if the lab is down.
lab_require_up() {
	[ "$(id -u)" -eq 0 ] || lab_skip "lab tests run as root (they switch to $LAB_USER)"
	lab_is_up || lab_skip "lab is not up (run: make lab-up)"
}
lab_skip() { echo "SKIP: $*"; exit 77; }
lab_fail() { echo "FAIL: $*"; exit 1; }

# lab_rankdir JOBID -> directory where the job's ranks write rank.R files
lab_rankdir() { echo "$LAB_RANKS/$1"; }
# lab_ranks JOBID -> "rank pid hostname" lines, sorted by rank
lab_ranks() {
	find "$LAB_RANKS/$1" -maxdepth 1 -name 'rank.*' ! -name '*.tmp.*' \
		-exec cat {} + 2>/dev/null | sort -n
}
# lab_job_state JOBID -> PENDING, RUNNING, COMPLETING, CANCELLED, ... (empty
# once slurmctld forgot it)
lab_job_state() {
	scontrol show job -o "$1" 2>/dev/null | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p'
}

# lab_submit USER JOB [SBATCH_ARGS...] : submit JOB (a name in tests/lab/jobs,
# e.g. healthy, or a path) as USER, wait until it is RUNNING and every rank
# has written its rank file, then print the job id.  On failure: a reason
# on stderr, the job cancelled, status 1.  LAB_SUBMIT_TIMEOUT (s, default 30).
lab_submit() {
	local user=$1 job=$2 script id ntasks state have t0 timeout
	shift 2
	timeout=${LAB_SUBMIT_TIMEOUT:-30}
	script=$job
	[ -f "$script" ] || script=$LAB_JOBS/$job.sh
	[ -r "$script" ] || { echo "lab_submit: no job script $job" >&2; return 1; }
	# The healthy job's ranks spin only for the tests that judge CPU
	# (LAB_HEALTHY_SPIN=1: the detector tests); for the others each rank
	# uses LAB_HEALTHY_DUTY% (20) of a CPU, so that four spinning ranks do
	# not take both of this machine's cores from the unit and regress
	# tests that run beside the lab (tests/run.sh).  An --export of the
	# caller's own wins.
	if [ "$job" = healthy ] && [ "${LAB_HEALTHY_SPIN:-0}" != 1 ] &&
	    ! printf '%s\n' "$@" | grep -q '^--export'; then
		set -- "$@" --export="ALL,RANK_DUTY=${LAB_HEALTHY_DUTY:-20}"
	fi
	# The script goes on stdin: the user need not be able to read the repo.
	id=$(lab_as "$user" sbatch --parsable --chdir=/tmp \
		--output="$LAB_RANKS/slurm-%j.out" "$@" <"$script") ||
		{ echo "lab_submit: sbatch $job as $user failed" >&2; return 1; }
	id=${id%%;*}
	t0=$SECONDS
	while :; do
		state=$(lab_job_state "$id")
		[ "$state" = RUNNING ] && break
		case $state in PENDING | CONFIGURING | "") ;; *)
			echo "lab_submit: job $id ($job) is '$state', not RUNNING; see $LAB_RANKS/slurm-$id.out" >&2
			return 1 ;;
		esac
		if ((SECONDS - t0 > timeout)); then
			echo "lab_submit: job $id ($job) still $state after ${timeout}s" >&2
			scancel "$id" 2>/dev/null; return 1
		fi
		sleep 0.2
	done
	ntasks=$(scontrol show job -o "$id" | sed -n 's/.* NumTasks=\([0-9]*\) .*/\1/p')
	[ -n "$ntasks" ] || ntasks=1
	while :; do
		have=$(lab_ranks "$id" | wc -l)
		((have >= ntasks)) && break
		if ((SECONDS - t0 > timeout)); then
			echo "lab_submit: job $id ($job): $have of $ntasks ranks reported after ${timeout}s; see $LAB_RANKS/slurm-$id.out" >&2
			scancel "$id" 2>/dev/null; return 1
		fi
		sleep 0.1
	done
	echo "$id"
}

# lab_cancel JOBID... : cancel jobs and wait (up to 15 s) until they left the
# nodes, so that the next test starts on idle nodes.
lab_cancel() {
	local id t0=$SECONDS
	[ $# -gt 0 ] || return 0
	scancel "$@" 2>/dev/null || true
	for id in "$@"; do
		while ((SECONDS - t0 < 15)); do
			case $(lab_job_state "$id") in
			PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED) sleep 0.2 ;;
			*) break ;;
			esac
		done
	done
}

# lab_hold_stdin: open fd 9 on a FIFO that never delivers data nor EOF.
# jobtop-probe exits when its stdin closes and ssh forwards EOF, so a probe
# run through ssh from a script (whose background commands get /dev/null)
# needs `<&9` to keep streaming until --count ends it.
lab_hold_stdin() {
	local d
	d=$(mktemp -d) || return 1
	mkfifo "$d/stdin" && exec 9<>"$d/stdin"
	rm -rf "$d"
}

# lab_wait_idle [TIMEOUT] : wait until all lab nodes are idle in sinfo and
# responding ("idle", not "idle*": a node whose link was down a moment ago
# takes no job until slurmctld hears from it again).
lab_wait_idle() {
	local timeout=${1:-20} t0=$SECONDS idle
	while :; do
		idle=$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle" {print $1}' | sort -u | wc -l)
		((idle == LAB_N)) && return 0
		((SECONDS - t0 >= timeout)) && return 1
		sleep 0.2
	done
}

# --- OAR 2.5.9 (Debian's oar-server, oar-node, oar-user; PostgreSQL 15) ----
# Brought up only by the tests that ask for it (lab_oar_up), torn down by
# lab-down.sh (lab_oar_down).  Everything the bring-up changes outside
# $LAB_DIR is recorded under $LAB_OAR so the teardown undoes exactly that:
# /etc/oar/oar.conf (a copy of the original is kept and put back), the
# PostgreSQL cluster (started only if it was down; the "oar" database and
# its two roles dropped), OAR's server (Almighty, in its own session) on the
# host and OAR's own sshd (port 6667, `AllowUsers oar`) inside each node.
LAB_OAR=$LAB_DIR/oar
LAB_OAR_CONF=/etc/oar/oar.conf
LAB_OAR_PG=(15 main)		# Debian 12's PostgreSQL cluster
LAB_OAR_PIDFILE=/var/run/oar-server.pid	# written by /usr/sbin/oar-server

# lab_oar_alive: OAR's server process runs.
lab_oar_alive() {
	local pid
	read -r pid 2>/dev/null <"$LAB_OAR_PIDFILE" || return 1
	[ -n "$pid" ] && [ -d "/proc/$pid" ]
}

# lab_oar_set KEY VALUE : set KEY="VALUE" in oar.conf (idempotent).
lab_oar_set() {
	sed -i "s|^#\?$1=.*|$1=\"$2\"|" "$LAB_OAR_CONF"
}

# lab_oar_up : bring OAR up on the running lab (idempotent; fast when up).
# Resources: 2 per node (cpu=N, core=1..2, cpuset=0..1), named nodeN, so
# that OAR's network_address is the lab node name.
lab_oar_up() {
	local n i t0 pgstate alive
	lab_is_up || { echo "lab_oar_up: the lab is not up" >&2; return 1; }
	if [ -e "$LAB_OAR/up" ] && lab_oar_alive; then return 0; fi
	if ! command -v oarsub >/dev/null || [ ! -x /usr/sbin/oar-server ]; then
		echo "lab_oar_up: OAR is not installed (tests/install-deps.sh)" >&2
		return 1
	fi
	mkdir -p "$LAB_OAR"
	[ -e "$LAB_OAR/oar.conf.orig" ] ||
		cp -p "$LAB_OAR_CONF" "$LAB_OAR/oar.conf.orig" || return 1
	pgstate=$(pg_lsclusters -h "${LAB_OAR_PG[@]}" 2>/dev/null | awk '{print $4}')
	if [ "$pgstate" != online ]; then
		pg_ctlcluster "${LAB_OAR_PG[@]}" start ||
			{ echo "lab_oar_up: PostgreSQL did not start" >&2; return 1; }
		: >"$LAB_OAR/pg-started"
	fi
	lab_oar_set DB_BASE_PASSWD jtlab-oar
	lab_oar_set DB_BASE_PASSWD_RO jtlab-oar-ro
	# oarexec on a node reports to the server: the host's bridge address.
	lab_oar_set SERVER_HOSTNAME "$LAB_HOST_ADDR"
	lab_oar_set LOG_FILE "$LAB_LOG/oar.log"
	install -o oar -g oar -m 644 /dev/null "$LAB_LOG/oar.log"
	# OAR's job resource manager runs on every node of a job (as oar,
	# through OAR's sshd).  With CPUSET_PATH unset it makes no cpuset (that
	# would edit the shared kernel's cgroups) and only installs the job's
	# key in ~oar/.ssh/authorized_keys and removes it at the end: how
	# oarsh reaches a job's nodes.  oar.conf documents the mode: "if you
	# only want to initialize job user without the cpuset, you have to set
	# OARSUB_FORCE_JOB_KEY=yes".  The keys file is shared by the lab's
	# nodes (one filesystem) and put back by lab_oar_down.
	sed -i 's|^CPUSET_PATH=|#&|' "$LAB_OAR_CONF"
	lab_oar_set OARSUB_FORCE_JOB_KEY yes
	[ -e "$LAB_OAR/oar-keys.orig" ] ||
		cp -p ~oar/.ssh/authorized_keys "$LAB_OAR/oar-keys.orig" || return 1
	if ! oar-database --check --db-is-local >/dev/null 2>&1; then
		: >"$LAB_OAR/db-created"
		oar-database --create --db-is-local >"$LAB_LOG/oar-database.log" 2>&1 ||
			{ echo "lab_oar_up: oar-database --create failed (see $LAB_LOG/oar-database.log)" >&2; return 1; }
	fi
	for n in "${LAB_NODES[@]}"; do
		[ -e "$LAB_DIR/nodes/$n/oar-sshd.pid" ] &&
			lab_node_exec "$n" kill -0 "$(cat "$LAB_DIR/nodes/$n/oar-sshd.pid")" 2>/dev/null &&
			continue
		lab_node_exec "$n" /usr/sbin/sshd -f /etc/oar/sshd_config \
			-o "PidFile=$LAB_DIR/nodes/$n/oar-sshd.pid" \
			2>>"$LAB_LOG/oar-sshd.$n.log" ||
			{ echo "lab_oar_up: OAR's sshd did not start on $n" >&2; return 1; }
	done
	if ! lab_oar_alive; then
		/usr/sbin/oar-server || { echo "lab_oar_up: oar-server failed" >&2; return 1; }
	fi
	if ! oarnodes -l 2>/dev/null | grep -q .; then
		oarproperty -a cpu >/dev/null 2>&1
		oarproperty -a core >/dev/null 2>&1
		for n in "${LAB_NODES[@]}"; do
			i=$(lab_index "$n")
			if ! oarnodesetting -a -h "$n" -p cpu="$i" -p core=$((2 * i - 1)) -p cpuset=0 >/dev/null ||
				! oarnodesetting -a -h "$n" -p cpu="$i" -p core=$((2 * i)) -p cpuset=1 >/dev/null; then
				echo "lab_oar_up: oarnodesetting $n failed" >&2
				return 1
			fi
		done
	fi
	t0=$SECONDS
	while :; do
		alive=$(oarnodes -s 2>/dev/null | grep -c ': Alive')
		((alive >= 2 * LAB_N)) && break
		((SECONDS - t0 > 20)) && { echo "lab_oar_up: $alive of $((2 * LAB_N)) resources Alive after 20s" >&2; return 1; }
		sleep 0.5
	done
	: >"$LAB_OAR/up"
}

# lab_oar_down : undo lab_oar_up (lab-down.sh calls it; safe when OAR was
# never up).  The node sshds die with their nodes.
lab_oar_down() {
	local pid sid pids
	if read -r pid 2>/dev/null <"$LAB_OAR_PIDFILE" && [ -d "/proc/$pid" ]; then
		sid=$(ps -o sid= -p "$pid" | tr -d ' ')
		pids=$(ps -e -o pid=,sid= | awk -v s="$sid" '$2 == s {print $1}')
		# shellcheck disable=SC2086
		[ -n "$sid" ] && kill -9 $pids 2>/dev/null
	fi
	rm -f "$LAB_OAR_PIDFILE"
	if [ -e "$LAB_OAR/db-created" ]; then
		runuser -u postgres -- psql -q -c 'DROP DATABASE IF EXISTS oar' \
			-c 'DROP ROLE IF EXISTS oar' -c 'DROP ROLE IF EXISTS oar_ro' \
			>/dev/null 2>&1
	fi
	[ -e "$LAB_OAR/pg-started" ] && pg_ctlcluster "${LAB_OAR_PG[@]}" stop
	[ -e "$LAB_OAR/oar.conf.orig" ] && cat "$LAB_OAR/oar.conf.orig" >"$LAB_OAR_CONF"
	[ -e "$LAB_OAR/oar-keys.orig" ] &&
		cat "$LAB_OAR/oar-keys.orig" >~oar/.ssh/authorized_keys
	rm -rf "$LAB_OAR"
	return 0
}

# The lab's owner: the process that brought it up (tests/run.sh, demo.sh,
# the shell of `make lab-up`), kept as "PID STARTTIME" outside $LAB_DIR.
# lab-up.sh and lab-down.sh refuse a lab whose owner still runs and is not
# one of their own ancestors: a second run would otherwise tear down and
# rebuild (new host keys) the cluster under the first one's tests.
LAB_OWNER_FILE=${LAB_OWNER_FILE:-/run/jobtop-lab.owner}
# lab_proc_field PID N: field N of /proc/PID/stat counted after "(comm) ".
lab_proc_field() { awk -v n="$2" '{ sub(/^.*\) /, ""); print $n }' "/proc/$1/stat" 2>/dev/null; }
# lab_owner_busy: the owner, on stdout (0), when a live process that is not
# this shell or one of its ancestors owns the lab; 1 otherwise.
lab_owner_busy() {
	local pid start p
	[ -r "$LAB_OWNER_FILE" ] && read -r pid start <"$LAB_OWNER_FILE" || return 1
	[ -n "$pid" ] && [ -n "$start" ] &&
	    [ "$(lab_proc_field "$pid" 20)" = "$start" ] || return 1
	p=$$
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$p" = "$pid" ] && return 1
		p=$(lab_proc_field "$p" 2)
	done
	echo "pid $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-60))"
}
# lab_owner_take PID: PID owns the lab from now on.
lab_owner_take() { echo "$1 $(lab_proc_field "$1" 20)" >"$LAB_OWNER_FILE"; }

# lab_sshd_stop NODE: stop the node's own sshd (the lab's, from its pid
# file), waiting until it is gone.  OAR's sshd on the node (port 6667,
# started by lab_oar_up, possibly by an earlier test) stays: `pkill -x
# sshd` in a node took it too, and OAR's later jobs there ended in Error.
lab_sshd_stop() {
	local pid nd=$LAB_DIR/nodes/$1
	read -r pid 2>/dev/null <"$nd/sshd.pid" || return 1
	lab_node_exec "$1" kill "$pid" 2>/dev/null || return 1
	for _ in $(seq 100); do
		lab_node_exec "$1" kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.02
	done
	return 1
}
