#!/bin/sh
# SPDX-License-Identifier: ISC
# remote-loopback: the SSH transport against a real sshd on loopback, seen
# from outside the monitor's process.  The script starts its own sshd (a
# generated config, host and user keys in a temporary directory, a free
# port on 127.0.0.1 and 127.0.0.2), runs the transport's driver
# (test-remote-ssh --drive) for two nodes with HOME pointing at a scratch
# home, and checks: both nodes go live, the probe is cached in a private
# directory, the host keys it recorded satisfy OpenSSH's own ssh with
# StrictHostKeyChecking=yes, and when the driver is killed with SIGKILL
# (no chance to close anything) or stopped with SIGTERM, no probe stays
# alive on the node for more than 3 seconds.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
TESTBIN=${TESTBIN:-$TOP/build/tests}
PROBE=${PROBE:-$TOP/jobtop-probe}
DRIVER=$TESTBIN/test-remote-ssh
export PROBE

skip() {
	echo "$*"
	exit 77
}
fail() {
	echo "FAIL: $*"
	[ -f "$tmp/sshd.log" ] && tail -n 15 "$tmp/sshd.log"
	[ -f "$tmp/drive.out" ] && cat "$tmp/drive.out"
	exit 1
}

[ -x /usr/sbin/sshd ] || skip "no /usr/sbin/sshd (install openssh-server)"
command -v ssh-keygen >/dev/null 2>&1 || skip "no ssh-keygen"
command -v pgrep >/dev/null 2>&1 || skip "no pgrep (install procps)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
[ -x "$DRIVER" ] || skip "$DRIVER not built (make tests-build)"
[ -r "$PROBE" ] || skip "$PROBE not built"

tmp=$(mktemp -d /tmp/jobtop-loop.XXXXXX)
sshd_pid=
drive_pid=
cleanup() {
	[ -n "$drive_pid" ] && kill -9 "$drive_pid" 2>/dev/null
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null && \
		wait "$sshd_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
home=$tmp/home
mkdir -p "$home/.ssh" "$tmp/cache" && chmod 700 "$home/.ssh"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || fail "ssh-keygen"
ssh-keygen -q -t ed25519 -N '' -f "$home/.ssh/id_ed25519" || fail "keygen"
cp "$home/.ssh/id_ed25519.pub" "$tmp/authorized_keys"
cat >"$tmp/sshd_config" <<EOC
Port $port
ListenAddress 127.0.0.1
ListenAddress 127.0.0.2
HostKey $tmp/hostkey
AuthorizedKeysFile $tmp/authorized_keys
PidFile $tmp/sshd.pid
UsePAM no
StrictModes no
UseDNS no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
LogLevel VERBOSE
EOC
cat >"$home/.ssh/config" <<EOC
Host node1
	HostName 127.0.0.1
	Port $port
Host node2
	HostName 127.0.0.2
	Port $port
EOC
[ -d /run/sshd ] || { [ "$(id -u)" = 0 ] && mkdir -p /run/sshd; }
/usr/sbin/sshd -D -e -f "$tmp/sshd_config" 2>"$tmp/sshd.log" &
sshd_pid=$!
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
	i=$((i + 1))
	kill -0 "$sshd_pid" 2>/dev/null || skip "sshd did not start: $(tail -n 1 "$tmp/sshd.log")"
	[ $i -lt 100 ] || fail "sshd did not listen"
	sleep 0.05
done

# Start the driver, wait until both nodes say "live".
start_driver() {
	: >"$tmp/drive.out"
	HOME=$home "$DRIVER" --drive --accept-new --cache "$tmp/cache" \
		--interval 0.5 node1 node2 >"$tmp/drive.out" 2>&1 &
	drive_pid=$!
	i=0
	while [ "$(grep -c ' live$' "$tmp/drive.out")" -lt 2 ]; do
		i=$((i + 1))
		kill -0 "$drive_pid" 2>/dev/null || fail "driver exited"
		grep -q -e refused -e failed "$tmp/drive.out" && \
			fail "a node failed"
		[ $i -lt 300 ] || fail "nodes not live within 15 s"
		sleep 0.05
	done
	name=$(sed -n 's/^probe //p' "$tmp/drive.out")
	[ -n "$name" ] || fail "driver did not name the probe"
}

# This test's probes: those running from its cache directory.  Only
# those: the same build's probe has the same name everywhere, and the
# lab's nodes run it beside this test in a full run (tests/run.sh), which
# once made "probe still running" out of the lab's probes.
our_probes() {
	for p in $(pgrep -f "$name --interval"); do
		case $(readlink "/proc/$p/exe" 2>/dev/null) in
		"$tmp"/*) echo "$p" ;;
		esac
	done
}
# None within 3 s (the promise: no client and no probe 3 s after any
# signal), by the clock.  A miss prints what is left.
probe_gone() {
	t0=$(date +%s%N)
	while [ -n "$(our_probes)" ]; do
		if [ $(( ($(date +%s%N) - t0) / 1000000 )) -gt 3000 ]; then
			ps -o pid=,stat=,wchan:20=,etime=,args= \
			    -p "$(our_probes | paste -sd, -)" 2>/dev/null |
			    sed 's/^/  left: /'
			return 1
		fi
		sleep 0.05
	done
	return 0
}

start_driver
grep -q "uploading" "$tmp/drive.out" || fail "first run did not upload"
[ "$(our_probes | wc -l)" -ge 2 ] ||
	fail "two probes should run"
[ -x "$tmp/cache/$name" ] || fail "probe not cached in $tmp/cache"
[ "$(stat -c %a "$tmp/cache")" = 700 ] || fail "cache dir not 0700"

# The keys the transport recorded are good for OpenSSH's ssh too (which
# takes ~ from the passwd entry, hence -i).
grep -q "^\[127.0.0.1\]:$port ssh-ed25519 " "$home/.ssh/known_hosts" ||
	fail "known_hosts lacks node1's key"
HOME=$home ssh -F "$home/.ssh/config" -o BatchMode=yes \
	-i "$home/.ssh/id_ed25519" -o IdentitiesOnly=yes \
	-o StrictHostKeyChecking=yes \
	-o UserKnownHostsFile="$home/.ssh/known_hosts" \
	-o GlobalKnownHostsFile=/dev/null node2 true ||
	fail "OpenSSH refuses the recorded host key"

# SIGKILL: the monitor gets no chance to close; the node cleans up alone.
kill -9 "$drive_pid"
wait "$drive_pid" 2>/dev/null
drive_pid=
probe_gone || fail "probe still running 3 s after the driver was killed"

# SIGTERM: the transport closes the channels; the cached probe is reused.
start_driver
grep -q "uploading" "$tmp/drive.out" && fail "second run uploaded again"
kill -TERM "$drive_pid"
wait "$drive_pid" 2>/dev/null
drive_pid=
probe_gone || fail "probe still running 3 s after the driver stopped"
echo "ok: live, cached, recorded keys accepted by ssh, no probe left"
exit 0
