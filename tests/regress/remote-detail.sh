#!/bin/sh
# SPDX-License-Identifier: ISC
# remote-detail: the rank detail of a process on a node reached over SSH
# (a real sshd on loopback, as in remote-loopback.sh; node1 is 127.0.0.1,
# node2 127.0.0.2 whose sessions get a PATH without gdb), in the curses
# monitor through tmux.  On node1: a process blocked reading a pipe shows
# its kernel stack (root: "pipe_read < ..."); 'b' runs gdb on the node
# through an extra exec channel of the node's session, beside the probe's
# stream, and shows the blocked process's frames; '-' tells the probe over
# its SSH channel to sample more often ("1 probe told").  On node2: 'b'
# says there is no gdb or eu-stack there.  Skips without sshd, tmux or
# gdb.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
skip() { echo "$*"; exit 77; }
[ -x /usr/sbin/sshd ] || skip "no /usr/sbin/sshd (install openssh-server)"
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"
command -v gdb >/dev/null 2>&1 || skip "gdb is not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
[ "$(id -u)" = 0 ] || skip "needs root (the kernel stack, and -w shows root's busiest processes)"

tmp=$(mktemp -d /tmp/jobtop-rdet.XXXXXX)
sock=jtrdet-$$
sshd_pid=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
	exec 9>&- 8>&-
	rm -rf "$tmp"
}
trap cleanup EXIT
win=
fail() {
	[ -n "$win" ] && { echo "--- screen:"; tmux -L "$sock" capture-pane -p -t "$win"; }
	echo "FAIL: $*"
	[ -f "$tmp/sshd.log" ] && tail -n 5 "$tmp/sshd.log"
	exit 1
}

port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
home=$tmp/home
mkdir -p "$home/.ssh" && chmod 700 "$home/.ssh"
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
Match LocalAddress 127.0.0.2
	SetEnv PATH=$tmp/nogdb
EOC
# node2's PATH: every command of /usr/bin (shells, the push's tools) but
# the debuggers.
mkdir "$tmp/nogdb"
for f in /usr/bin/*; do
	case ${f##*/} in gdb | eu-stack) ;; *) ln -s "$f" "$tmp/nogdb/" ;; esac
done
cat >"$home/.ssh/config" <<EOC
Host node1
	HostName 127.0.0.1
	Port $port
Host node2
	HostName 127.0.0.2
	Port $port
EOC
[ -d /run/sshd ] || mkdir -p /run/sshd
/usr/sbin/sshd -D -e -f "$tmp/sshd_config" 2>"$tmp/sshd.log" &
sshd_pid=$!
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
	i=$((i + 1))
	kill -0 "$sshd_pid" 2>/dev/null || skip "sshd did not start: $(tail -n 1 "$tmp/sshd.log")"
	[ $i -lt 100 ] || fail "sshd did not listen"
	sleep 0.05
done

# The blocked process, the one rank of a job the monitor finds through
# the variables a job sees (SLURM_JOB_ID, SLURM_JOB_NODELIST): a copy of
# cat with a name of its own, reading a pipe whose writer (fd 9) never
# writes; it ends when the test does.  Both "nodes" are this machine, so
# each lists it.
job=$((800000 + $$ % 100000))
cp /bin/cat "$tmp/jtblockread"
mkfifo "$tmp/fifo"
SLURM_JOB_ID=$job "$tmp/jtblockread" <"$tmp/fifo" >/dev/null &
blocked=$!
exec 9>"$tmp/fifo"

screen() { tmux -L "$sock" capture-pane -p -t "$win"; }
keys() { tmux -L "$sock" send-keys -t "$win" "$@"; }
# The one waiting helper (tests/lib/ui.sh) on this test's own screen.
. "$TOP/tests/lib/ui.sh"
ui_screen() { screen; }
wait_for() { ui_wait "$@"; }
win=rdet
tmux -L "$sock" new-session -d -s "$win" -x 160 -y 45 \
	"env HOME=$home LANG=C.UTF-8 JOBTOP_PROBE=$PROBE SLURM_JOB_ID=$job SLURM_JOB_NODELIST=node[1-2] $JOBTOP --no-record --accept-new -d 1; echo rc=\$?; sleep 600"
wait_for 20 'nodes 2: 2 live' || fail "the two nodes are not live within 20 s"
wait_for 10 '^node1 .* live' || fail "no node1 row"
keys Home Enter
wait_for 5 "Ranks of node1" || fail "Enter does not open node1's processes"
wait_for 5 "^ +- +node1 +$blocked " || fail "the blocked process is not listed"
keys Enter
wait_for 5 "Process $blocked on node1: jtblockread" || fail "Enter does not open the process"
wait_for 5 '^kstack +[a-z_]*pipe_read < ' || fail "no kernel stack with pipe_read"
echo "ok: $(screen | grep '^kstack' | tr -s ' ')"
keys b
# eu-stack is preferred where it is installed; its frames have no "in".
wait_for 20 '(gdb|eu-stack) on node1 exited with status 0' || fail "no backtrace from the debugger on node1"
wait_for 2 '#[0-9]+ .* (in )?(__GI___libc_read|read|__libc_read)' || fail "the backtrace shows no read frame"
echo "ok: debugger on node1: $(screen | grep -E '^ +#[0-9]' | head -2 | tr -s ' ')"
keys -
wait_for 5 'sampling every 0.5 s \(2 probes told\)' || fail "'-' does not tell the probes"
wait_for 5 'every 0.5s' || fail "the header does not say every 0.5s"
echo "ok: '-' over SSH"

# node2: no debugger in its PATH.
keys Escape Escape n
wait_for 5 'Nodes 2' || fail "n does not show the nodes"
keys G Enter
wait_for 5 "Ranks of node2" || fail "Enter does not open node2's processes"
keys Enter
wait_for 5 "on node2" || fail "Enter does not open a process on node2"
keys b
wait_for 20 'no gdb or eu-stack on node2' || fail "b on node2 does not say there is no debugger"
echo "ok: no gdb or eu-stack on node2"
keys q
wait_for 10 '^rc=0$' || fail "q does not end jobtop with status 0"
kill "$blocked" 2>/dev/null
echo PASS
