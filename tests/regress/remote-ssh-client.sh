#!/bin/sh
# SPDX-License-Identifier: ISC
# remote-ssh-client: the `ssh` transport (the system OpenSSH client) and
# the ladder's step to it, against a real sshd on loopback with a user
# whose only key is RSA 3072.  OpenSSH reads its files from the passwd
# home, not $HOME, so the client is a wrapper (JOBTOP_SSH) that passes -F
# the test's config.  Checks: with --transport auto, libssh2's SHA-1 RSA
# signature is refused by this OpenSSH and the node moves to ssh with the
# reason; the probe is pushed over the same connection the first time and
# found cached the next; a node behind ProxyJump goes to ssh before
# libssh2 is tried; a side command (a backtrace's) runs as a second ssh; a
# refused login is final with ssh's words; kill -9 of jobtop leaves no ssh
# client and no probe after 3 s.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}

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

[ -x /usr/sbin/sshd ] || skip "no /usr/sbin/sshd (install openssh-server)"
command -v ssh >/dev/null 2>&1 || skip "no ssh client"
command -v ssh-keygen >/dev/null 2>&1 || skip "no ssh-keygen"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
command -v pgrep >/dev/null 2>&1 || skip "no pgrep (install procps)"
[ -x "$JOBTOP" ] || skip "$JOBTOP not built"

tmp=$(mktemp -d /tmp/jobtop-sshc.XXXXXX)
sshd_pid=
jt_pid=
cleanup() {
	[ -n "$jt_pid" ] && kill -9 "$jt_pid" 2>/dev/null
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null &&
		wait "$sshd_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
home=$tmp/home
mkdir -p "$home/.ssh" "$tmp/rhome" && chmod 700 "$home/.ssh" &&
	chmod 755 "$tmp/rhome"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || fail "ssh-keygen"
ssh-keygen -q -t rsa -b 3072 -N '' -f "$home/.ssh/id_rsa" || fail "keygen"
cp "$home/.ssh/id_rsa.pub" "$tmp/authorized_keys"
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
AllowTcpForwarding yes
ForceCommand cd $tmp/rhome && eval "\$SSH_ORIGINAL_COMMAND"
EOC
# node2 is reached through node1, as a login node's config would say.
cat >"$home/.ssh/config" <<EOC
Host node1 node2
	HostName 127.0.0.1
	Port $port
	IdentityFile $home/.ssh/id_rsa
	IdentitiesOnly yes
	UserKnownHostsFile $home/.ssh/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
Host node2
	ProxyJump node1
EOC
chmod 600 "$home/.ssh/config"
printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$tmp/hostkey.pub")" \
	>"$home/.ssh/known_hosts"
cat >"$tmp/ssh" <<EOC
#!/bin/sh
exec ssh -F $home/.ssh/config "\$@"
EOC
chmod 755 "$tmp/ssh"
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
# The premise: this OpenSSH takes the RSA key from its own client.
"$tmp/ssh" -o BatchMode=yes node1 true 2>"$tmp/err" ||
	skip "ssh with the RSA key does not work here: $(cat "$tmp/err")"

jt() {
	HOME=$home SSH_AUTH_SOCK= JOBTOP_SSH=$tmp/ssh timeout 60 "$JOBTOP" \
		--no-record -b --json -n 2 -d 0.5 "$@" >"$tmp/out" 2>"$tmp/err"
}
# transport_of NODE: its last transport record, as "name|skipped".
transport_of() {
	python3 - "$tmp/out" "$1" <<'PY'
import json, sys
last = None
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "transport" and r["node"] == sys.argv[2]:
        last = r
print("" if last is None else last["transport"] + "|" + last.get("skipped", ""))
PY
}
samples() { grep -c "\"node\":\"$1\",\"type\":\"node\"" "$tmp/out"; }

# 1. auto: libssh2's RSA signature refused, ssh takes the node, pushes.
jt -w node1 || fail "auto as an RSA-only user: status $?"
t=$(transport_of node1)
case $t in
"ssh|libssh2: RSA key needs rsa-sha2"*) echo "ok: auto: node1 on $t" ;;
*) fail "auto: node1's transport: \"$t\"" ;;
esac
[ "$(samples node1)" -ge 2 ] || fail "auto: no samples from node1"
grep -q '"state":"pushing"' "$tmp/out" || fail "the probe was not pushed"
ls "$tmp/rhome/.cache/jobtop/"jobtop-probe-* >/dev/null 2>&1 ||
	fail "no probe in the node's cache"

# 2. The next start finds it cached: no push.
jt -w node1 --transport ssh || fail "--transport ssh: status $?"
[ "$(samples node1)" -ge 2 ] || fail "--transport ssh: no samples"
grep -q '"state":"pushing"' "$tmp/out" && fail "cached probe pushed again"
echo "ok: --transport ssh: the cached probe started at once"

# 3. ProxyJump: node2 on ssh before libssh2 is tried, node1 as above.
jt -w node1,node2 || fail "auto with ProxyJump: status $?"
t=$(transport_of node2)
case $t in
"ssh|libssh2: ProxyJump node1"*) echo "ok: auto: node2 on $t" ;;
*) fail "ProxyJump: node2's transport: \"$t\"" ;;
esac
[ "$(samples node2)" -ge 2 ] || fail "ProxyJump: no samples from node2"
grep -q "ProxyJump node1 is not supported" "$tmp/err" &&
	fail "libssh2 was tried for node2"

# 4. A side command (what a backtrace runs) goes as a second ssh.
HOME=$home SSH_AUTH_SOCK= JOBTOP_SSH=$tmp/ssh PROBE=${PROBE:-$TOP/jobtop-probe} \
	timeout 60 "${TESTBIN:-$TOP/build/tests}/test-feed" --ssh-exec node1 \
	'echo "on $(pwd)"; echo side >&2; exit 5' >"$tmp/out" 2>"$tmp/err" ||
	fail "side command: status $?"
grep -qx "out: on $tmp/rhome" "$tmp/out" &&
	grep -qx "err: side" "$tmp/out" && grep -qx "status 5" "$tmp/out" &&
	grep -qx "end closed" "$tmp/out" ||
	fail "side command over ssh: $(cat "$tmp/out" "$tmp/err")"
echo "ok: a side command ran as a second ssh beside the live probe"

# 5. A refused login is final, with ssh's words, on one line.
: >"$tmp/authorized_keys"
jt -w node1 --transport ssh
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "refused login: status $rc"
grep -q "node1: refused: ssh: .*Permission denied" "$tmp/err" ||
	fail "refused login: $(cat "$tmp/err")"
echo "ok: refused: $(head -n 1 "$tmp/err")"
cp "$home/.ssh/id_rsa.pub" "$tmp/authorized_keys"

# 6. kill -9 of jobtop: its ssh and the probe go within 3 s.
probes() {	# pids of probes running from this test's cache
	for p in $(pgrep -f 'jobtop-probe-'); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = \
		    "$tmp/rhome/.cache/jobtop" ] && echo "$p"
	done
}
clients() { pgrep -f "ssh -F $home/.ssh/config" | grep -c .; }
HOME=$home SSH_AUTH_SOCK= JOBTOP_SSH=$tmp/ssh "$JOBTOP" --no-record -b \
	--json -d 0.5 -w node1 --transport ssh >"$tmp/out" 2>"$tmp/err" &
jt_pid=$!
i=0
until [ "$(samples node1)" -ge 2 ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "kill -9: node1 never sent samples"
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
[ "$cb" -ge 1 ] && [ "$pb" -ge 1 ] && [ "$ca" -eq 0 ] && [ "$pa" -eq 0 ] ||
	fail "kill -9: ssh $cb -> $ca, probes $pb -> $pa"
echo "ok: kill -9: $cb ssh and $pb probe before, none 3 s after"
