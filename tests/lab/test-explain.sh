#!/bin/bash
# SPDX-License-Identifier: ISC
# `jobtop --explain` on the real lab (issue 10, item 5): what each
# transport does on one node of the job, and why.
#  - jtuser: libssh2 works, with the exact key (ed25519) named; the probe
#    found the job's rank (how, and the cgroup line), the sources on/off;
#    auto picks libssh2; exit 0;
#  - jtrsa (only an RSA 3072 key): libssh2 refused, with the key's type and
#    size and the SHA-1 reason; the OpenSSH client authenticates; with the
#    ssh transport built in, the ladder's verdict is "to ssh", it reaches
#    the node and auto picks ssh;
#  - jtdeny (refused by every node's sshd): both SSH ways refused; with the
#    srun transport built in, the ladder's verdict is "to srun", srun
#    reaches the node and auto picks it;
#  - --explain=node2 reports on node2; a name not of the job is refused;
#  - a node behind a dead link: every transport fails, exit status 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
[ "$LAB_N" -ge 4 ] || lab_skip "needs 4 nodes"
top=$(cd "$here/../.." && pwd)
for b in jobtop jobtop-probe; do
	[ -x "$top/$b" ] || lab_skip "$b is not built"
done
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$LAB_BIN/"
JT=$LAB_BIN/jobtop
tmp=$(mktemp -d)
chmod 755 "$tmp"
jobs_started=()
cleanup() {
	ip link set "$(lab_veth node3)" up 2>/dev/null
	[ ${#jobs_started[@]} -gt 0 ] && lab_cancel "${jobs_started[@]}"
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# has FILE REGEX WHAT : the report holds a line matching REGEX.
has() { grep -Eq -- "$2" "$1" && ok "$3" || { fail "$3: no line /$2/ in:"; sed 's/^/  | /' "$1"; }; }
hasnt() { ! grep -Eq -- "$2" "$1" && ok "$3" || { fail "$3: line /$2/ in:"; sed 's/^/  | /' "$1"; }; }
# The transports this jobtop has beyond libssh2.
have() { "$JT" --transport "$1" --list -w localhost >/dev/null 2>&1; }

# explain USER JOB|-w... : the report in $tmp/USER.out, status in $tmp/USER.rc
explain() {
	local who=$1 t0=$SECONDS
	shift
	lab_as "$who" timeout 120 "$JT" "$@" >"$tmp/$who.out" 2>"$tmp/$who.err"
	echo $? >"$tmp/$who.rc"
	echo "  ($who: $((SECONDS - t0)) s, exit $(cat "$tmp/$who.rc")), the report:"
	sed 's/^/  | /' "$tmp/$who.out" "$tmp/$who.err"
}
rc() { cat "$tmp/$1.rc"; }

# --- jtuser: libssh2 ---------------------------------------------------------
job=$(lab_submit "$LAB_USER" healthy) || lab_fail "jtuser's job did not start"
jobs_started+=("$job")
explain "$LAB_USER" --explain "$job"
f=$tmp/$LAB_USER.out
[ "$(rc "$LAB_USER")" = 0 ] && ok "jtuser: exit 0" || fail "jtuser: exit $(rc "$LAB_USER"): $(cat "$tmp/$LAB_USER.err")"
has "$f" "^job: $job \\(slurm\\), user $LAB_USER \\(uid [0-9]+\\), state RUNNING, 4 nodes node\\[1-4\\]" "jtuser: the job line"
has "$f" "^node: node1 \\(the first of the job's\\)" "jtuser: the first node"
has "$f" "^transport libssh2: ok: a sample from node1 in [0-9]+ ms" "jtuser: libssh2 ok"
has "$f" "^  auth: publickey as $LAB_USER with ~/\\.ssh/id_ed25519 \\(ED25519\\)" "jtuser: the key and its type"
has "$f" "^probe: jobtop-probe .* on node1: " "jtuser: the probe's HELLO"
has "$f" "^ranks: found as a child of the job's slurmstepd; rank id from SLURM_PROCID; job cgroup none" \
	"jtuser: how the rank was found (the lab's proctrack/linuxproc makes no job cgroup)"
has "$f" "^source cpu: on$" "jtuser: a source on"
has "$f" "^source ib: off: no InfiniBand" "jtuser: a source off with its reason"
has "$f" "^source cgroup: off: " "jtuser: the cgroup source's reason"
has "$f" "^auto: libssh2 " "jtuser: auto takes libssh2"
hasnt "$f" "^transport (libssh2|ssh): FAILED" "jtuser: neither SSH way failed"

# --explain=NODE, and a name that is not the job's.
explain "$LAB_USER" --explain=node2 "$job"
has "$f" "^node: node2$" "--explain=node2: node2"
has "$f" "^transport libssh2: ok: a sample from node2" "--explain=node2: libssh2 ok on node2"
explain "$LAB_USER" --explain=node9 "$job"
[ "$(rc "$LAB_USER")" = 2 ] && grep -q "not a node of" "$tmp/$LAB_USER.err" &&
	ok "--explain=node9: refused" || fail "--explain=node9: exit $(rc "$LAB_USER"): $(cat "$tmp/$LAB_USER.err")"
lab_cancel "$job"

# --- jtrsa: libssh2 refused for the SHA-1 signature, OpenSSH works ------------
job=$(lab_submit "$LAB_RSA" healthy) || lab_fail "jtrsa's job did not start"
jobs_started+=("$job")
explain "$LAB_RSA" --explain "$job"
f=$tmp/$LAB_RSA.out
has "$f" "^transport libssh2: FAILED after [0-9]+ ms: .*authentication refused for $LAB_RSA@node1 \\(~/\\.ssh/id_rsa\\)" "jtrsa: libssh2 refused"
has "$f" "^  key ~/\\.ssh/id_rsa: RSA 3072 bits" "jtrsa: the key's type and size"
has "$f" "^  why: libssh2 .* only as ssh-rsa \\(SHA-1\\), which OpenSSH 8\\.8 and later refuse" "jtrsa: the SHA-1 reason"
has "$f" "^  ssh -v: Authenticated to node1 .* using \"publickey\"" "jtrsa: the OpenSSH client authenticates"
has "$f" "^  ssh -v: Server accepts key: .*id_rsa RSA SHA256:" "jtrsa: OpenSSH's key line"
if have ssh; then
	has "$f" "^  failure class: authentication refused; auto: moves the node to ssh \(libssh2: RSA key" "jtrsa: the ladder's verdict after libssh2"
	has "$f" "^transport ssh: ok: a sample from node1" "jtrsa: the ssh transport reaches node1"
	has "$f" "^auto: ssh " "jtrsa: auto takes ssh"
	[ "$(rc "$LAB_RSA")" = 0 ] && ok "jtrsa: exit 0" || fail "jtrsa: exit $(rc "$LAB_RSA")"
else
	echo "  (no ssh transport in this build: libssh2 alone fails)"
fi
lab_cancel "$job"

# --- jtdeny: SSH refused, srun ------------------------------------------------
job=$(lab_submit "$LAB_DENY" healthy) || lab_fail "jtdeny's job did not start"
jobs_started+=("$job")
explain "$LAB_DENY" --explain "$job"
f=$tmp/$LAB_DENY.out
has "$f" "^transport libssh2: FAILED after [0-9]+ ms: .*(refused|denied)" "jtdeny: libssh2 refused"
has "$f" "^  ssh -v: .*Permission denied" "jtdeny: OpenSSH refused"
if have srun; then
	has "$f" "^  failure class: .*; auto: moves the node to srun" "jtdeny: the ladder's verdict: srun"
	has "$f" "^transport srun: ok: a sample from node1" "jtdeny: srun reaches node1"
	has "$f" "^ranks: found as " "jtdeny: the probe found the rank through srun"
	has "$f" "^auto: srun " "jtdeny: auto takes srun"
	[ "$(rc "$LAB_DENY")" = 0 ] && ok "jtdeny: exit 0" || fail "jtdeny: exit $(rc "$LAB_DENY")"
else
	[ "$(rc "$LAB_DENY")" = 1 ] && ok "jtdeny without srun: exit 1" || fail "jtdeny: exit $(rc "$LAB_DENY")"
	has "$f" "^auto: none: no transport reaches node1" "jtdeny without srun: none"
fi
lab_cancel "$job"

# --- a node behind a dead link --------------------------------------------------
ip link set "$(lab_veth node3)" down
explain "$LAB_USER" --explain -w node3
f=$tmp/$LAB_USER.out
ip link set "$(lab_veth node3)" up
[ "$(rc "$LAB_USER")" = 1 ] && ok "dead link: exit 1" || fail "dead link: exit $(rc "$LAB_USER")"
has "$f" "^transport libssh2: FAILED after " "dead link: libssh2 failed"
has "$f" "^auto: none: no transport reaches node3" "dead link: no transport"
hasnt "$f" "^transport [a-z0-9]+: ok" "dead link: nothing reached it"

((fails == 0)) || exit 1
echo "test-explain: all ok"
