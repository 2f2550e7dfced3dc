# SPDX-License-Identifier: ISC
# loopsshd.sh: a real sshd on loopback for the regress tests of the
# launcher rows (remote-launchers, remote-launch-flux), sourced by them
# after they set JOBTOP.  It defines skip and fail (which shows
# $tmp/out and $tmp/err).  loopsshd_init NAME checks what the tests need
# (sshd, ssh, ssh-keygen, python3, pgrep, the built jobtop), makes tmp
# (/tmp/jobtop-NAME.XXXXXX) and a cleanup on exit that kills jt_pid
# (a jobtop the test started) and the sshd and removes tmp.
# loopsshd_setup [KEY.pub...] makes a host key, the user's key
# ($home/.ssh/id_ed25519), an sshd_config that lets those keys in (and
# any extra public keys given) and runs every command in $tmp/rhome, a
# client configuration for the hosts node1 and node2 and their
# known_hosts entry; it sets port and home.  loopsshd_config FILE KEY
# writes one more client configuration with another identity.
# loopsshd_start starts the sshd (sshd_pid: the test's cleanup kills it)
# and checks that ssh gets through, skipping where it cannot.
# loopsshd_kill9 is the kill -9 check both tests end with.

skip() {
	echo "$*"
	exit 77
}

fail() {
	echo "FAIL: $*"
	[ -f "$tmp/out" ] && tail -n 20 "$tmp/out"
	[ -f "$tmp/err" ] && cat "$tmp/err"
	exit 1
}

loopsshd_cleanup() {
	[ -n "$jt_pid" ] && kill -9 "$jt_pid" 2>/dev/null
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null &&
		wait "$sshd_pid" 2>/dev/null
	rm -rf "$tmp"
}

loopsshd_init() {
	[ -x /usr/sbin/sshd ] ||
		skip "no /usr/sbin/sshd (install openssh-server)"
	command -v ssh >/dev/null 2>&1 || skip "no ssh client"
	command -v ssh-keygen >/dev/null 2>&1 || skip "no ssh-keygen"
	command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
	command -v pgrep >/dev/null 2>&1 || skip "no pgrep (install procps)"
	[ -x "$JOBTOP" ] || skip "$JOBTOP not built"
	tmp=$(mktemp -d "/tmp/jobtop-$1.XXXXXX")
	sshd_pid=
	jt_pid=
	trap loopsshd_cleanup EXIT
}

loopsshd_config() {
	cat >"$1" <<EOC
Host node1 node2
	HostName 127.0.0.1
	Port $port
	IdentityFile $2
	IdentitiesOnly yes
	UserKnownHostsFile $home/.ssh/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
EOC
	chmod 600 "$1"
}

loopsshd_setup() {
	port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	home=$tmp/home
	mkdir -p "$home/.ssh" "$tmp/rhome" "$tmp/bin" &&
		chmod 700 "$home/.ssh" && chmod 755 "$tmp/rhome"
	ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || fail "ssh-keygen"
	ssh-keygen -q -t ed25519 -N '' -f "$home/.ssh/id_ed25519" ||
		fail "keygen"
	cat "$home/.ssh/id_ed25519.pub" "$@" >"$tmp/authorized_keys"
	cat >"$tmp/sshd_config" <<EOC
Port $port
ListenAddress 127.0.0.1
HostKey $tmp/hostkey
AuthorizedKeysFile $tmp/authorized_keys
PidFile $tmp/sshd.pid
UsePAM no
StrictModes no
UseDNS no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
ForceCommand cd $tmp/rhome && eval "\$SSH_ORIGINAL_COMMAND"
EOC
	loopsshd_config "$home/.ssh/config" "$home/.ssh/id_ed25519"
	printf '[127.0.0.1]:%s %s\n' "$port" \
	    "$(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$home/.ssh/known_hosts"
}

loopsshd_start() {
	[ -d /run/sshd ] || { [ "$(id -u)" = 0 ] && mkdir -p /run/sshd; }
	/usr/sbin/sshd -D -e -f "$tmp/sshd_config" 2>"$tmp/sshd.log" &
	sshd_pid=$!
	i=0
	until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
		i=$((i + 1))
		kill -0 "$sshd_pid" 2>/dev/null ||
			skip "sshd did not start: $(tail -n 1 "$tmp/sshd.log")"
		[ $i -lt 100 ] || fail "sshd did not listen"
		sleep 0.05
	done
	ssh -F "$home/.ssh/config" node1 true 2>"$tmp/err" ||
		skip "ssh to the loopback sshd does not work here: $(cat "$tmp/err")"
}

# With jobtop started in the background (jt_pid) and the test's samples
# NODE (records of NODE so far), clients (its client processes) and probes
# (the probes running): once both nodes streamed, kill -9 of jobtop must
# leave no client and no probe 3 s later.
loopsshd_kill9() {
	# Wait (15 s at most) for the state the kill is about: samples from
	# both nodes, and both clients and probes running.  The caller empties
	# its output file before it starts jobtop: a background job's
	# redirection truncates the file only once its shell runs, and a wait
	# on the samples alone once read the previous step's output and killed
	# before anything had started (0 clients, 0 probes).
	i=0
	until [ "$(samples node1)" -ge 2 ] && [ "$(samples node2)" -ge 2 ] &&
	    [ "$(clients)" -ge 2 ] && [ "$(probes | grep -c .)" -ge 2 ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || break
		sleep 0.05
	done
	cb=$(clients)
	pb=$(probes | grep -c .)
	kill -9 "$jt_pid"
	wait "$jt_pid" 2>/dev/null
	jt_pid=
	sleep 3
	ca=$(clients)
	pa=$(probes | grep -c .)
	[ "$cb" -ge 2 ] && [ "$pb" -ge 2 ] && [ "$ca" -eq 0 ] && [ "$pa" -eq 0 ] ||
		fail "kill -9: clients $cb -> $ca, probes $pb -> $pa"
	echo "ok: kill -9: $cb clients and $pb probes before, none 3 s after"
}
