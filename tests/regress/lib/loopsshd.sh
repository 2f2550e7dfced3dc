# loopsshd.sh: a real sshd on loopback for the regress tests of the
# launcher rows (remote-launchers, remote-launch-flux), sourced by them.
# The test sets tmp (its temporary directory) and defines fail and skip
# first.  loopsshd_setup [KEY.pub...] makes a host key, the user's key
# ($home/.ssh/id_ed25519), an sshd_config that lets those keys in (and
# any extra public keys given) and runs every command in $tmp/rhome, a
# client configuration for the hosts node1 and node2 and their
# known_hosts entry; it sets port and home.  loopsshd_config FILE KEY
# writes one more client configuration with another identity.
# loopsshd_start starts the sshd (sshd_pid: the test's cleanup kills it)
# and checks that ssh gets through, skipping where it cannot.

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
