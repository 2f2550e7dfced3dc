#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Fan-out cost of the monitor against pdsh, measured in the same run.
#  1. Time until every node delivered its first sample: `jobtop -w NODES
#     -b --json -n 1 -d 1`, timed by tests/bench/fanout-run.py, which stamps
#     each line of jobtop's stdout as it arrives; the figure is the arrival
#     of the last node's first "type":"node" record (jobtop's exit, which
#     adds stopping every probe, is printed beside it).  The baseline is
#     the wall time of `pdsh -R ssh -w NODES true` on the same nodes.  Both
#     run as the ordinary lab user (root's ~/.bashrc costs 70-85 ms per
#     remote command), median of several runs, alternating.  Sizes:
#     (a) the lab's 4 nodes (tests/lab; brought up and down here when it is
#     not already up), (b) 256 and (c) 1024 loopback "nodes": names lbNNNN
#     mapped by a generated ssh_config to distinct 127.10.x.y addresses, all
#     served by one sshd of ours.  That sshd runs in a network namespace of
#     its own whose only interface is lo, so its 0.0.0.0 listener answers
#     every 127.x.y.z there and nothing outside the namespace can reach it;
#     jobtop and pdsh run in that namespace too.  Each SSH session runs in
#     a PID namespace of its own (see "isolate" below), so that a probe
#     sees its own node's processes only, as on a real node.
#     Fan-out: jobtop connects at most 32 sessions at once (rconf
#     max_inflight, no option), pdsh 32 by default (-f): both as shipped.
#     A second baseline holds OpenSSH to curve25519-sha256, the key
#     exchange libssh2 negotiates (OpenSSH 9.2 defaults to the dearer
#     sntrup761x25519), so that the comparison also shows how much of the
#     gap is the key exchange.  jobtop runs as a copy named jobtop-bench
#     (lab tests `pkill -x jobtop` the lab user's monitors) with its
#     default session recording going to a temporary XDG_STATE_HOME.
#     Target: jobtop faster than pdsh at every size.
#  2. The monitor's own CPU (utime+stime of the jobtop process from
#     /proc/PID/stat over FANOUT_STEADY_S seconds once all nodes are live)
#     and its RSS (VmRSS each second, VmHWM) at 1 Hz with 1024 nodes.  The
#     1024 sshd sessions and probes run on this same machine, so only the
#     jobtop process is measured.  Targets: < 5% of one core, < 100 MiB.
#  3. Whether jobtop, streaming from 1024 nodes (every session open at
#     once), copes with the usual soft limit of 1024 descriptors (what
#     runuser's pam_limits gives here; hard limit higher).  The measured
#     runs above raise `ulimit -n` to 4096 before starting jobtop.
# Runs as root (namespaces, sshd, runuser); everything started here is
# stopped on exit, the temporary directory removed.
# Knobs: FANOUT_SIZES ("256 1024"), FANOUT_REPS_LAB (5), FANOUT_REPS_256 (3),
# FANOUT_REPS_1024 (2), FANOUT_STEADY_S (30), FANOUT_STEADY_PAIRS (1: with
# JOBTOP_BASE, steady windows of this build and the baseline, alternating;
# the median ratio is printed), FANOUT_LAB (1; 0 skips the lab),
# FANOUT_STEADY_ONLY (0; 1 measures only the steady state, for profiling),
# FANOUT_PERF (a file: `perf record` of the monitor over the window, with
# FANOUT_PERF_CALLGRAPH: fp, or dwarf for a build without frame pointers),
# FANOUT_SMAPS (a file: the monitor's /proc/PID/smaps at the window's end),
# JOBTOP_BASE (a baseline monitor binary, e.g. built from main: its steady
# state is measured right after, and the ratios printed).
set -eu
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
RUN="python3 $TOP/tests/bench/fanout-run.py"
SIZES=${FANOUT_SIZES:-256 1024}
STEADY_S=${FANOUT_STEADY_S:-30}
STEADY_ONLY=${FANOUT_STEADY_ONLY:-0}
fdcheck="nodes=-"
USER_=jtuser
NOFILE=4096

[ "$(id -u)" -eq 0 ] || { echo "SKIP: bench-fanout runs as root (namespaces, sshd, runuser)"; exit 77; }
[ -x "$JOBTOP" ] && [ -x "$PROBE" ] || { echo "build first: make"; exit 1; }
for c in pdsh sshd ssh ssh-keygen ip runuser python3; do
	command -v "$c" >/dev/null || { echo "SKIP: missing $c (run: make deps)"; exit 77; }
done
id "$USER_" >/dev/null 2>&1 || { echo "SKIP: no user $USER_ (tests/lab/lab-up.sh makes it)"; exit 77; }
uhome=$(getent passwd "$USER_" | cut -d: -f6)

tmp=$(mktemp -d /tmp/jobtop-fanout.XXXXXX)
chmod 711 "$tmp"
srv=$tmp/srv home=$tmp/home bin=$tmp/bin state=$tmp/state
mkdir -m 700 "$srv" && mkdir -m 700 "$home" "$home/.ssh" "$state" && mkdir -m 755 "$bin"
# jobtop records every session by default, to $XDG_STATE_HOME/jobtop: here
# to $state, so the lab user's home gets nothing (recording stays on: it is
# part of what the monitor costs).
chown -R "$USER_:" "$home" "$state"
# The monitor runs as jobtop-bench: other lab tests `pkill -x jobtop` of
# the lab user, which must not hit this run.  It finds jobtop-probe beside
# itself as jobtop does.
install -m 755 "$JOBTOP" "$bin/jobtop-bench"
install -m 755 "$PROBE" "$bin/jobtop-probe"
# JOBTOP_BASE: a baseline monitor binary (a build of main) measured in
# the same run for the steady state; the same probe beside it.
binb=$tmp/binb
if [ -n "${JOBTOP_BASE:-}" ]; then
	mkdir -m 755 "$binb"
	install -m 755 "$JOBTOP_BASE" "$binb/jobtop-bench"
	install -m 755 "$PROBE" "$binb/jobtop-probe"
fi
ns=jtfanout$$
ns_made=0 lab_started=0
hash=$(sha256sum "$PROBE" | cut -c1-16)
cached=$uhome/.cache/jobtop/jobtop-probe-$hash
had_cache=0
[ -e "$cached" ] && had_cache=1

# Everything this script started: sshd and whatever runs in its namespace,
# the namespace, the lab if we brought it up, the probe copy that jobtop
# cached in the user's home if it was not there before, the temp dir.
cleanup() {
	local p i
	set +e
	if ((ns_made)); then
		for i in 1 2 3 4 5 6 7 8 9 10; do
			p=$(ip netns pids "$ns" 2>/dev/null)
			[ -n "$p" ] || break
			# shellcheck disable=SC2086
			kill $p 2>/dev/null
			sleep 0.3
		done
		p=$(ip netns pids "$ns" 2>/dev/null)
		# shellcheck disable=SC2086
		[ -z "$p" ] || kill -9 $p 2>/dev/null
		sleep 0.2
		ip netns del "$ns" 2>/dev/null
	fi
	if ((lab_started)); then
		"$TOP/tests/lab/lab-down.sh" >/dev/null 2>&1
	fi
	((had_cache)) || rm -f "$cached"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print -1}'; }
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p"; }	# kv KEY < "k=v k=v" -> value

# as_user NOFILE HOME CMD... : CMD as the lab user with a clean environment;
# NOFILE: soft descriptor limit to set, "-" to keep what pam_limits gives.
as_user() {
	runuser -u "$USER_" -- bash -c '
		[ "$1" = - ] || ulimit -n "$1" || exit 126
		h=$2; shift 2
		exec env -i -C "$h" HOME="$h" USER='"$USER_"' LOGNAME='"$USER_"' \
		    SHELL=/bin/bash PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 "$@"' \
		_ "$@"
}
in_ns() { ip netns exec "$ns" "$@"; }

# wait_quiet: the previous run's sshd sessions and probes are gone (only
# the listener left in the namespace), so they do not load the next run.
wait_quiet() {
	local t0=$SECONDS
	while (($(ip netns pids "$ns" | wc -l) > 1)); do
		((SECONDS - t0 < 60)) || { echo "warning: sessions still open after 60 s" >&2; return; }
		sleep 0.2
	done
	sleep 0.5
}

# run_pdsh PRE... -- HOSTLIST SSH_ARGS : one timed `pdsh -R ssh -w HOSTLIST
# true` as the lab user, SSH_ARGS (may be empty) in PDSH_SSH_ARGS_APPEND.
run_pdsh() {
	local -a pre=()
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	local hl=$2 sargs=$3 envw=""
	[ -z "$sargs" ] || envw="'PDSH_SSH_ARGS_APPEND=$sargs'"
	"${pre[@]}" $RUN first "$tmp/err.p" -- \
		"$BASH" -c "$(declare -f as_user); USER_=$USER_; as_user $NOFILE '$uhome' $envw pdsh -R ssh -w '$hl' true"
}

# measure LABEL NODES REPS QUIET JOBTOP_HOME SSH_ARGS PRE... : alternate
# jobtop, pdsh and pdsh with OpenSSH held to curve25519 key exchange (what
# libssh2 negotiates) REPS times after one warm-up round; the medians go
# to res_*[LABEL].  PRE prefixes each command (in_ns for loopback).
KEX=-oKexAlgorithms=curve25519-sha256
declare -A res_first res_exit res_pdsh res_kex res_nodes res_note
measure() {
	local label=$1 hl=$2 reps=$3 quiet=$4 jhome=$5 sargs=$6 r out p k n=0 v
	local -a fs=() es=() ps=() ks=()
	shift 6
	local -a pre=("$@")
	for r in $(seq 0 "$reps"); do
		out=$("${pre[@]}" $RUN first "$tmp/err.j" -- \
			"$BASH" -c "$(declare -f as_user); USER_=$USER_; as_user $NOFILE '$jhome' XDG_STATE_HOME=$state $bin/jobtop-bench -w '$hl' -b --json -n 1 -d 1" )
		$quiet
		if [ "$(kv rc <<<"$out")" != 0 ] || [ "$(kv failed <<<"$out")" != 0 ]; then
			res_note[$label]+="jobtop run $r: $out; stderr: $(sort "$tmp/err.j" | uniq -c | sort -rn | head -3 | tr '\n' ';') "
		fi
		p=$(run_pdsh "${pre[@]}" -- "$hl" "$sargs")
		$quiet
		v=$(kv rc <<<"$p")
		[ "$v" = 0 ] || res_note[$label]+="pdsh run $r: $p; stderr: $(sort "$tmp/err.p" | uniq -c | sort -rn | head -3 | tr '\n' ';') "
		k=$(run_pdsh "${pre[@]}" -- "$hl" "${sargs:+$sargs }$KEX")
		$quiet
		v=$(kv rc <<<"$k")
		[ "$v" = 0 ] || res_note[$label]+="pdsh (curve25519) run $r: $k; stderr: $(sort "$tmp/err.p" | uniq -c | sort -rn | head -3 | tr '\n' ';') "
		echo "  $label run $r$( ((r)) || echo ' (warm-up)'): jobtop $out | pdsh $(kv exit_ms <<<"$p") ms rc=$(kv rc <<<"$p") | pdsh curve25519 $(kv exit_ms <<<"$k") ms rc=$(kv rc <<<"$k")" >&2
		((r == 0)) && continue
		fs+=("$(kv first_ms <<<"$out")") es+=("$(kv exit_ms <<<"$out")")
		ps+=("$(kv exit_ms <<<"$p")") ks+=("$(kv exit_ms <<<"$k")")
		n=$(kv nodes <<<"$out")
	done
	res_first[$label]=$(printf '%s\n' "${fs[@]}" | median)
	res_exit[$label]=$(printf '%s\n' "${es[@]}" | median)
	res_pdsh[$label]=$(printf '%s\n' "${ps[@]}" | median)
	res_kex[$label]=$(printf '%s\n' "${ks[@]}" | median)
	res_nodes[$label]=$n
}
lab_quiet() { sleep 0.5; }
labels=()

# --- (a) the lab's 4 nodes ------------------------------------------------
if [ "${FANOUT_LAB:-1}" != 0 ]; then
	# shellcheck source=../lab/lib.sh
	. "$TOP/tests/lab/lib.sh"
	if ! lab_is_up; then
		echo "bench-fanout: bringing the lab up (tests/lab/lab-up.sh 4)" >&2
		lab_started=1
		PROBE=$PROBE "$TOP/tests/lab/lab-up.sh" 4 >&2 || { echo "bench-fanout: lab-up failed"; exit 1; }
		. "$TOP/tests/lab/lib.sh"
	fi
	echo "== (a) lab: $LAB_NODELIST as $USER_" >&2
	measure lab "$LAB_NODELIST" "${FANOUT_REPS_LAB:-5}" lab_quiet "$uhome" "" env
	labels+=(lab)
fi

# --- loopback nodes: one sshd in a namespace of its own -------------------
max=0
for s in $SIZES; do ((s > max)) && max=$s; done
if ((max > 0)); then
	((max <= 25000)) || { echo "bench-fanout: at most 25000 loopback nodes"; exit 1; }
	ip netns add "$ns"
	ns_made=1
	ip -n "$ns" link set lo up
	port=2222
	# Each session in a PID namespace of its own (an unprivileged user
	# namespace keeps the user's uid): like a real node, a probe then sees
	# only its own processes.  Without it all 1024 probes would each list
	# the user's ~3000 processes on this one machine (the probe's rank
	# source without --job shows the user's processes): a load that grows
	# with the square of the node count and that no real cluster has.
	# Applies alike to jobtop's commands and to pdsh's `true`.
	# In such a namespace root is not mapped: / and /home show as owned by
	# 65534, and jobtop's probe cache check (remote/rpush.c, OpenSSH's
	# safe_path rule: every directory from the cache up to / owned by the
	# user or root) rightly refuses the cache on every node.  Mapping real
	# root into a namespace the user owns would hand the user root's files,
	# so instead each session gets a root of its own, as a node has: the
	# directory $nsroot, owned by the user, with the system's /usr, /etc,
	# /dev, /sys, /run, /var, /tmp and the user's home bound into it and a
	# /proc of the session's PID namespace (isolate.sh, in a mount
	# namespace the session owns, gone with it; nothing is mounted on the
	# host).  The chain the check walks, / -> /home -> the home -> its
	# .cache/jobtop, is then the user's alone, and the check stays as it
	# is for real use.
	uid=$(id -u "$USER_") gid=$(id -g "$USER_")
	nsroot=$tmp/nsroot
	mkdir -m 755 "$nsroot"
	for d in usr etc dev sys run var tmp proc; do mkdir -m 755 "$nsroot/$d"; done
	for d in bin lib lib32 lib64 libx32 sbin; do
		if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$nsroot/$d"
		elif [ -d "/$d" ]; then mkdir -m 755 "$nsroot/$d"; fi
	done
	mkdir -p -m 755 "$nsroot$uhome"
	chown -R "$USER_:" "$nsroot"
	cat >"$bin/isolate.sh" <<-EOF
	#!/bin/sh
	# bench-fanout: one SSH session.  Root of a user namespace that maps
	# only $USER_ (so mounts are allowed), PID 1 of a new PID namespace, in
	# a mount namespace of its own: bind the system into $nsroot, mount
	# this namespace's /proc, then become $USER_ again (a nested user
	# namespace mapping $uid to it) with $nsroot as /.
	set -e
	r=$nsroot
	for d in usr etc dev sys run var tmp; do
		mount --rbind "/\$d" "\$r/\$d"
	done
	for d in bin lib lib32 lib64 libx32 sbin; do
		[ -L "/\$d" ] || [ ! -d "/\$d" ] || mount --rbind "/\$d" "\$r/\$d"
	done
	mount --rbind "$uhome" "\$r$uhome"
	mount -t proc -o nosuid,nodev,noexec proc "\$r/proc"
	exec unshare --user --map-user=$uid --map-group=$gid --root="\$r" \\
	    --wd="\$HOME" -- "\$SHELL" -c "\$SSH_ORIGINAL_COMMAND"
	EOF
	chmod 755 "$bin/isolate.sh"
	unsh="unshare --user --map-root-user --pid --fork --mount --kill-child -- /bin/sh $bin/isolate.sh"
	# Usable when the session sees its own processes only and owns the
	# chain from its home up to / (what the probe cache check needs).
	iso_test='set -- $(ls -ldn / /home "$HOME" | while read -r m n o r; do echo "$o"; done | sort -u); echo "$* $(ls /proc | grep -c "^[0-9]")"'
	iso_out=$(runuser -u "$USER_" -- env HOME="$uhome" SHELL=/bin/sh SSH_ORIGINAL_COMMAND="$iso_test" $unsh 2>&1) || true
	case "$iso_out" in
	"$uid "[1-9]) iso_ok=1;;
	*) iso_ok=0;;
	esac
	if ((iso_ok)); then
		isolate="ForceCommand exec $unsh"
		isolation="each session in its own PID namespace and root directory (sshd ForceCommand unshare + isolate.sh)"
	else
		isolate=""
		isolation="NOT isolated (user namespaces or mounts in them unavailable: $iso_out), every probe sees every process of $USER_"
		echo "warning: $isolation" >&2
	fi
	ssh-keygen -q -t ed25519 -N '' -f "$srv/host_ed25519" -C fanout-host
	runuser -u "$USER_" -- ssh-keygen -q -t ed25519 -N '' -f "$home/.ssh/id_ed25519" -C fanout-client
	cp "$home/.ssh/id_ed25519.pub" "$home/.ssh/authorized_keys"
	chown "$USER_:" "$home/.ssh/authorized_keys"
	cat >"$srv/sshd_config" <<-EOF
	# bench-fanout's sshd: loopback of namespace $ns only.
	Port $port
	ListenAddress 0.0.0.0
	HostKey $srv/host_ed25519
	PidFile $srv/sshd.pid
	UsePAM no
	AllowUsers $USER_
	PermitRootLogin no
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PubkeyAuthentication yes
	AuthorizedKeysFile $home/.ssh/authorized_keys
	StrictModes no
	MaxStartups 4096
	MaxSessions 64
	MaxAuthTries 10
	LoginGraceTime 300
	UseDNS no
	PrintMotd no
	PrintLastLog no
	X11Forwarding no
	LogLevel ERROR
	$isolate
	EOF
	# Client side, for both jobtop ($HOME/.ssh) and OpenSSH (-F): one
	# Host block per name, then the shared options.
	hk=$(cut -d' ' -f1,2 "$srv/host_ed25519.pub")
	: >"$home/.ssh/config"
	: >"$home/.ssh/known_hosts"
	for ((i = 1; i <= max; i++)); do
		a=127.10.$((i / 250)).$((i % 250 + 1))
		printf 'Host lb%04d\n\tHostName %s\n' "$i" "$a" >>"$home/.ssh/config"
		printf '[%s]:%d %s\n' "$a" "$port" "$hk" >>"$home/.ssh/known_hosts"
	done
	cat >>"$home/.ssh/config" <<-EOF
	Host lb*
		Port $port
		User $USER_
		IdentityFile $home/.ssh/id_ed25519
		IdentitiesOnly yes
		UserKnownHostsFile $home/.ssh/known_hosts
		StrictHostKeyChecking yes
		BatchMode yes
		ConnectTimeout 30
	EOF
	chown -R "$USER_:" "$home/.ssh"
	chmod 600 "$home/.ssh/config" "$home/.ssh/known_hosts"
	in_ns /usr/sbin/sshd -D -f "$srv/sshd_config" -E "$srv/sshd.log" &
	# stopped with everything else in the namespace (cleanup)
	for _ in $(seq 50); do
		in_ns ss -ltnH "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	pdsh_args="-F$home/.ssh/config -oUserKnownHostsFile=$home/.ssh/known_hosts"
	if ! in_ns "$BASH" -c "$(declare -f as_user); USER_=$USER_; as_user - '$uhome' ssh -F '$home/.ssh/config' lb0001 true" 2>"$tmp/err.s"; then
		echo "bench-fanout: ssh to the loopback sshd fails: $(head -3 "$tmp/err.s")"
		cat "$srv/sshd.log"
		exit 1
	fi
	for s in $SIZES; do
		((STEADY_ONLY)) && break
		hl=$(printf 'lb[0001-%04d]' "$s")
		eval "reps=\${FANOUT_REPS_$s:-}"
		[ -n "$reps" ] || { ((s >= 1024)) && reps=2 || reps=3; }
		echo "== (b/c) loopback: $hl" >&2
		wait_quiet
		measure "$s" "$hl" "$reps" wait_quiet "$home" "$pdsh_args" in_ns
		labels+=("$s")
	done

	# --- 3. descriptors: the limit as pam_limits leaves it ----------------
	hl=$(printf 'lb[0001-%04d]' "$max")
	soft=$(runuser -u "$USER_" -- bash -c 'ulimit -n')
	echo "== fd check: $hl streaming (no -n) with the user's default soft limit ($soft)" >&2
	wait_quiet
	((STEADY_ONLY)) || fdcheck=$(in_ns $RUN steady "$max" 0 180 "$tmp/err.fd" -- "$BASH" -c "$(declare -f as_user); USER_=$USER_; as_user - '$home' XDG_STATE_HOME=$state $bin/jobtop-bench -w '$hl' -b --json -d 1")
	fdcheck_err=""
	((STEADY_ONLY)) || fdcheck_err=$(sort "$tmp/err.fd" | sed 's/lb[0-9]*/lbNNNN/' | uniq -c | sort -rn | head -5)

	# --- 2. steady state: the monitor's own CPU and memory at 1 Hz --------
	# With JOBTOP_BASE, FANOUT_STEADY_PAIRS windows of each, alternating
	# (this build, then the baseline): the machine's load drifts between
	# windows by more than the difference measured, so the ratio is the
	# median of the pairs' ratios.
	pairs=${FANOUT_STEADY_PAIRS:-1}
	pair_cpu=() pair_cpub=()
	for ((p = 1; p <= pairs; p++)); do
		echo "== steady: $hl at 1 Hz, ${STEADY_S} s window (pair $p of $pairs)" >&2
		wait_quiet
		steady=$(in_ns $RUN steady "$max" "$STEADY_S" 300 "$tmp/err.st" -- "$BASH" -c "$(declare -f as_user); USER_=$USER_; as_user $NOFILE '$home' XDG_STATE_HOME=$state $bin/jobtop-bench -w '$hl' -b --json -d 1")
		steady_err=$(sort "$tmp/err.st" | sed 's/lb[0-9]*/lbNNNN/' | uniq -c | sort -rn | head -5)
		pair_cpu+=("$(kv cpu_pct <<<"$steady")")
		# The baseline monitor (JOBTOP_BASE: e.g. a build of main), the
		# same window on the same nodes right after: the ratios below.
		[ -n "${JOBTOP_BASE:-}" ] || break
		echo "== steady (baseline $JOBTOP_BASE): $hl at 1 Hz, ${STEADY_S} s window (pair $p of $pairs)" >&2
		wait_quiet
		steady_b=$(in_ns $RUN steady "$max" "$STEADY_S" 300 "$tmp/err.sb" -- "$BASH" -c "$(declare -f as_user); USER_=$USER_; as_user $NOFILE '$home' XDG_STATE_HOME=$state $binb/jobtop-bench -w '$hl' -b --json -d 1")
		pair_cpub+=("$(kv cpu_pct <<<"$steady_b")")
	done
fi

# --- summary ---------------------------------------------------------------
miss=0
echo
echo "bench-fanout summary (machine: $(nproc) cores; user $USER_; jobtop fan-out 32 = rconf max_inflight default, pdsh fan-out 32 = its -f default)"
echo "jobtop as built, recording on (its default; into a temp XDG_STATE_HOME)"
echo "first = script-side arrival of the last node's first \"type\":\"node\" record of jobtop -n 1 -d 1 (the figure);"
echo "exit = jobtop's wall time (adds stopping the probes); pdsh = wall time of pdsh -R ssh -w NODES true;"
echo "pdsh-c25519 = the same with OpenSSH held to curve25519-sha256 (libssh2's key exchange; OpenSSH 9.2 defaults to sntrup761x25519)"
echo "medians; ratios are pdsh time / jobtop first-sample time (> 1: jobtop faster)"
printf '%-7s %5s %10s %10s %10s %12s %9s %12s\n' nodes live "jobtop" "jt exit" "pdsh" "pdsh-c25519" "pdsh/jt" "c25519/jt"
for l in "${labels[@]}"; do
	n=$l; [ "$l" = lab ] && n="4(lab)"
	rf=$(awk -v p="${res_pdsh[$l]}" -v j="${res_first[$l]}" 'BEGIN {printf "%.2fx", (j > 0 ? p / j : 0)}')
	rk=$(awk -v p="${res_kex[$l]}" -v j="${res_first[$l]}" 'BEGIN {printf "%.2fx", (j > 0 ? p / j : 0)}')
	printf '%-7s %5s %7s ms %7s ms %7s ms %9s ms %9s %12s\n' "$n" "${res_nodes[$l]}" \
	    "${res_first[$l]}" "${res_exit[$l]}" "${res_pdsh[$l]}" "${res_kex[$l]}" "$rf" "$rk"
	want=$([ "$l" = lab ] && echo 4 || echo "$l")
	if [ "${res_nodes[$l]}" != "$want" ]; then
		echo "MISS: $n: only ${res_nodes[$l]} of $want nodes delivered a sample"; miss=1
	fi
	awk -v p="${res_pdsh[$l]}" -v j="${res_first[$l]}" 'BEGIN {exit !(j > 0 && j < p)}' ||
	    { echo "MISS: $n: jobtop (first sample) not faster than pdsh"; miss=1; }
	[ -z "${res_note[$l]:-}" ] || echo "  note $n: ${res_note[$l]}"
done
if ((max > 0)); then
	echo "loopback sessions: $isolation"
	echo "fd check, $max nodes streaming, soft limit $soft (runuser/pam_limits default; the measured runs set $NOFILE): $fdcheck"
	[ -z "$fdcheck_err" ] || printf '  stderr (count, line):\n%s\n' "$fdcheck_err"
	echo "steady $max nodes at 1 Hz (only the jobtop process; its sshd sessions and probes share the $(nproc) cores): $steady"
	[ -z "$steady_err" ] || printf '  stderr (count, line):\n%s\n' "$steady_err"
	cpu=$(kv cpu_pct <<<"$steady") rss=$(kv rss_kib_max <<<"$steady") hwm=$(kv hwm_kib <<<"$steady")
	printf 'monitor cpu: %s%% of one core (target < 5%%); rss max %s KiB, hwm %s KiB (target < 102400)\n' \
	    "${cpu:-?}" "${rss:-?}" "${hwm:-?}"
	awk -v c="${cpu:--1}" 'BEGIN {exit !(c >= 0 && c < 5)}' || { echo "MISS: monitor cpu"; miss=1; }
	awk -v r="${hwm:--1}" 'BEGIN {exit !(r >= 0 && r < 102400)}' || { echo "MISS: monitor rss"; miss=1; }
	if [ -n "${steady_b:-}" ]; then
		echo "baseline steady ($JOBTOP_BASE): $steady_b"
		cb=$(kv cpu_pct <<<"$steady_b") rb=$(kv rss_kib_max <<<"$steady_b") hb=$(kv hwm_kib <<<"$steady_b")
		awk -v c="${cpu:--1}" -v cb="${cb:--1}" -v r="${hwm:--1}" -v rb="${hb:--1}" -v n="$max" 'BEGIN {
			printf "against the baseline: cpu %.2f%% vs %.2f%% (%.2fx); hwm per node %.1f KiB vs %.1f KiB (%.2fx)\n",
			    c, cb, (cb > 0 ? c / cb : 0), r / n, rb / n, (rb > 0 ? r / rb : 0) }'
		if ((${#pair_cpub[@]} > 1)); then
			line="" ratios=()
			for ((p = 0; p < ${#pair_cpub[@]}; p++)); do
				rr=$(awk -v a="${pair_cpu[p]}" -v b="${pair_cpub[p]}" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
				ratios+=("$rr")
				line+=" ${pair_cpu[p]}/${pair_cpub[p]}=${rr}x"
			done
			med=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR] = $1} END {printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}')
			echo "cpu by pair (this build / baseline):$line; median ratio ${med}x over ${#ratios[@]} pairs"
		fi
	fi
	[ "$(kv nodes_in_window <<<"$steady")" = "$max" ] || { echo "MISS: not every node streamed during the window"; miss=1; }
	((STEADY_ONLY)) || [ "$(kv nodes <<<"$fdcheck")" = "$max" ] || { echo "MISS: jobtop fails at $max nodes under a soft fd limit of $soft (it does not raise its soft limit to the hard one)"; miss=1; }
fi
exit $miss
