#!/bin/sh
# SPDX-License-Identifier: ISC
# remote-trust: the files that decide whom jobtop trusts, with the real
# jobtop against a real sshd on loopback (its own config, keys and port,
# HOME pointing at a scratch home).  Checked, each with the one-line
# message and a non-zero exit, and with known_hosts left as it was:
# - a known_hosts pattern line ("*.example,[127.0.0.1]:*") with another
#   key makes the node's key CHANGED, --accept-new or not (OpenSSH's ssh
#   says the same);
# - a @cert-authority line covering the node: refused, even with
#   --accept-new, because libssh2 cannot check host certificates;
# - ~/.ssh/config of mode 0666, an Include of mode 0666 and a known_hosts
#   of mode 0666 are refused (OpenSSH's owner and mode rule);
# - a private key of mode 0644 is skipped with the reason, as ssh does;
# - a probe cache on the node under a world-writable directory is refused
#   (a sticky one is fine);
# - as root, a probe in a group-writable directory (JOBTOP_PROBE) is
#   refused before anything is pushed.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}

skip() {
	echo "$*"
	exit 77
}
fail() {
	echo "FAIL: $*"
	[ -f "$tmp/out" ] && cat "$tmp/out"
	exit 1
}

[ -x /usr/sbin/sshd ] || skip "no /usr/sbin/sshd (install openssh-server)"
command -v ssh-keygen >/dev/null 2>&1 || skip "no ssh-keygen"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
[ -x "$JOBTOP" ] || skip "$JOBTOP not built"

tmp=$(mktemp -d /tmp/jobtop-trust.XXXXXX)
sshd_pid=
cleanup() {
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null && \
		wait "$sshd_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
home=$tmp/home
mkdir -p "$home/.ssh" && chmod 700 "$home/.ssh"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || fail "ssh-keygen"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/otherkey" || fail "ssh-keygen"
ssh-keygen -q -t ed25519 -N '' -f "$home/.ssh/id_ed25519" || fail "keygen"
cp "$home/.ssh/id_ed25519.pub" "$tmp/authorized_keys"
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
# The node's side of the home: the probe cache (.cache/jobtop, relative)
# lands here, not in the real home of the user.
mkdir -p "$tmp/rhome" && chmod 755 "$tmp/rhome"
cat >"$home/.ssh/config" <<EOC
Host node1
	HostName 127.0.0.1
	Port $port
	IdentitiesOnly yes
EOC
chmod 600 "$home/.ssh/config"
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
kh=$home/.ssh/known_hosts
other=$(cut -d' ' -f1,2 "$tmp/otherkey.pub")

# jobtop with the scratch home; its status, stderr in $tmp/out.
jt() {
	HOME=$home SSH_AUTH_SOCK= timeout 30 "$JOBTOP" -w node1 -b -n 1 \
		--no-record "$@" >/dev/null 2>"$tmp/out"
}
# The run failed, and its stderr says $1.
refused() {
	[ "$rc" -ne 0 ] || fail "exit status 0, expected a refusal ($1)"
	[ "$rc" -ne 124 ] || fail "jobtop hung"
	grep -qF -- "$1" "$tmp/out" || fail "no \"$1\" on stderr"
}

# A pattern line with another key: CHANGED, even with --accept-new.
printf '*.example,[127.0.0.1]:* %s\n' "$other" >"$kh"
chmod 600 "$kh"
cp "$kh" "$tmp/kh.before"
jt --accept-new; rc=$?
refused "host key for node1 changed"
cmp -s "$kh" "$tmp/kh.before" || fail "known_hosts was changed (pattern)"
# OpenSSH agrees.
if HOME=$home ssh -F "$home/.ssh/config" -o BatchMode=yes \
    -i "$home/.ssh/id_ed25519" -o StrictHostKeyChecking=accept-new \
    -o UserKnownHostsFile="$kh" -o GlobalKnownHostsFile=/dev/null \
    node1 true 2>"$tmp/ssh.err"; then
	fail "OpenSSH accepted the key, the test's premise is wrong"
fi
grep -q "HOST IDENTIFICATION HAS CHANGED" "$tmp/ssh.err" ||
	fail "OpenSSH did not call it changed: $(cat "$tmp/ssh.err")"
cmp -s "$kh" "$tmp/kh.before" || fail "known_hosts changed by ssh"

# A certificate authority: refused, even with --accept-new.
printf '@cert-authority [127.0.0.1]:*,*.example %s\n' "$other" >"$kh"
cp "$kh" "$tmp/kh.before"
jt --accept-new; rc=$?
refused "can only be trusted through a @cert-authority line"
refused "libssh2 cannot check host certificates"
cmp -s "$kh" "$tmp/kh.before" || fail "known_hosts was changed (CA)"

# The right key: it works (so the refusals above are about the keys).
printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$tmp/hostkey.pub")" \
	>"$kh"
jt; rc=$?
[ "$rc" -eq 0 ] || fail "a good setup failed (status $rc)"
[ -d "$tmp/rhome/.cache/jobtop" ] || fail "the probe was not cached"

# The probe cache under a directory others may write to: refused on the
# node, before anything runs (the fast path and the check both look).
chmod 777 "$tmp/rhome/.cache"
jt; rc=$?
refused ".cache/jobtop on the node is in an unsafe place: $tmp/rhome/.cache is writable by group or others"
chmod 1777 "$tmp/rhome/.cache"	# sticky, as /tmp: fine
jt; rc=$?
[ "$rc" -eq 0 ] || fail "a sticky directory above the cache failed"
chmod 700 "$tmp/rhome/.cache"

# Files others may change.
chmod 666 "$home/.ssh/config"
jt; rc=$?
refused "$home/.ssh/config: bad owner or permissions (uid $(id -u), mode 0666)"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "more than one line"
chmod 600 "$home/.ssh/config"
printf 'Include extra\n' >"$home/.ssh/config.new"
cat "$home/.ssh/config" >>"$home/.ssh/config.new"
mv "$home/.ssh/config.new" "$home/.ssh/config"
chmod 600 "$home/.ssh/config"
: >"$home/.ssh/extra"
chmod 666 "$home/.ssh/extra"
jt; rc=$?
refused "Include $home/.ssh/extra: bad owner or permissions"
chmod 644 "$home/.ssh/extra"
chmod 666 "$kh"
jt; rc=$?
refused "$kh: bad owner or permissions (uid $(id -u), mode 0666)"
chmod 644 "$kh"
jt; rc=$?
[ "$rc" -eq 0 ] || fail "0644 config files should do (status $rc)"

# A private key others can read.
chmod 644 "$home/.ssh/id_ed25519"
jt; rc=$?
refused "~/.ssh/id_ed25519 skipped: permissions 0644 are too open"
chmod 600 "$home/.ssh/id_ed25519"

# As root: a probe someone else could replace is not run anywhere.
if [ "$(id -u)" = 0 ]; then
	mkdir "$tmp/gw" && chmod 775 "$tmp/gw"
	cp "$TOP/jobtop-probe" "$tmp/gw/jobtop-probe"
	JOBTOP_PROBE=$tmp/gw/jobtop-probe jt; rc=$?
	refused "JOBTOP_PROBE $tmp/gw/jobtop-probe is not safe to run as root: $tmp/gw is writable by group or others (mode 0775)"
	chmod 755 "$tmp/gw"
	chmod 775 "$tmp/gw/jobtop-probe"
	JOBTOP_PROBE=$tmp/gw/jobtop-probe jt; rc=$?
	refused "is not safe to run as root: $tmp/gw/jobtop-probe is writable by group or others (mode 0775)"
fi
echo "ok: patterns and CAs refused, unsafe config, known_hosts, key and probe refused"
exit 0
