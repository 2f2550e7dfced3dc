#!/bin/sh
# SPDX-License-Identifier: ISC
# remote-launchers: the schedulers' remote shells as transports (oarsh,
# blaunch, pbs_tmrsh: rows of feed-ssh.c's client machinery).  Their real
# clients need their scheduler's daemons, which do not run here (OAR runs
# in the lab, where tests/lab/test-transport-oarsh.sh drives the real
# oarsh; these regress checks need no lab), so each is a stand-in script of
# the real name, first in PATH, that checks what the real one needs in
# its environment, logs its argv and execs the system ssh to a real sshd
# on loopback.  Checks: every row delivers samples from two nodes and is
# named in the transport records; oarsh hands the command as one string
# (like ssh), blaunch and pbs_tmrsh get /bin/sh -c COMMAND (they exec
# argv); a row whose job variable is missing is refused with one line; a
# side command runs through the row's client; kill -9 of jobtop leaves no
# client and no probe after 3 s.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}

. "$TOP/tests/regress/lib/loopsshd.sh"
loopsshd_init launch

loopsshd_setup

# The stand-ins.  oarsh joins its command into one string for the remote
# shell (the real one: REMOTE_CMD="$@" passed to ssh); blaunch and
# pbs_tmrsh exec argv on the node, so their argv is quoted for ssh here.
cat >"$tmp/bin/oarsh" <<EOC
#!/bin/sh
[ -n "\${OAR_JOB_KEY_FILE:-}\${OAR_JOB_ID:-}" ] ||
	{ echo "oarsh: no OAR_JOB_ID" >&2; exit 5; }
echo "oarsh job=\${OAR_JOB_ID:-} key=\${OAR_JOB_KEY_FILE:-} host=\$1 argc=\$#" >>$tmp/log
h=\$1; shift
exec ssh -F $home/.ssh/config -T "\$h" "\$*"
EOC
for row in blaunch:LSB_JOBID pbs_tmrsh:PBS_JOBID; do
	name=${row%%:*} var=${row#*:}
	cat >"$tmp/bin/$name" <<EOC
#!/bin/sh
[ -n "\${$var:-}" ] || { echo "$name: not in a job" >&2; exit 5; }
echo "$name job=\$$var host=\$1 argc=\$# arg2=\$2 arg3=\$3" >>$tmp/log
h=\$1; shift
q=
for a in "\$@"; do
	q="\$q '\$(printf '%s' "\$a" | sed "s/'/'\\\\\\\\''/g")'"
done
exec ssh -F $home/.ssh/config -T "\$h" "\$q"
EOC
done
chmod 755 "$tmp/bin/"*

loopsshd_start

# jt VAR=VALUE... -- jobtop args
jt() {
	envs=
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	# shellcheck disable=SC2086
	env -u OAR_JOB_ID -u OAR_JOB_KEY_FILE -u LSB_JOBID -u PBS_JOBID \
		HOME=$home SSH_AUTH_SOCK= PATH="$tmp/bin:$PATH" $envs \
		timeout 60 "$JOBTOP" --no-record -b --json -n 2 -d 0.5 "$@" \
		>"$tmp/out" 2>"$tmp/err"
}
transport_of() {
	python3 - "$tmp/out" "$1" <<'PY'
import json, sys
last = None
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "transport" and r["node"] == sys.argv[2]:
        last = r
print("" if last is None else last["transport"])
PY
}
samples() { grep -c "\"node\":\"$1\",\"type\":\"node\"" "$tmp/out"; }

# 1. Each row serves two nodes, named in the node's transport record.
for row in oarsh:OAR_JOB_ID=7 oarsh:OAR_JOB_KEY_FILE=$tmp/key \
    blaunch:LSB_JOBID=8 pbs_tmrsh:PBS_JOBID=9.pbs1; do
	name=${row%%:*} envset=${row#*:}
	: >"$tmp/log"
	jt "$envset" -- -w node1,node2 --transport "$name" ||
		fail "$name ($envset): status $?"
	for n in node1 node2; do
		[ "$(transport_of $n)" = "$name" ] ||
			fail "$name: $n's transport is \"$(transport_of $n)\""
		[ "$(samples $n)" -ge 2 ] || fail "$name: no samples from $n"
	done
	grep -q "^$name .*host=node1 " "$tmp/log" &&
		grep -q "^$name .*host=node2 " "$tmp/log" ||
		fail "$name: the stand-in did not serve both nodes: $(cat "$tmp/log")"
	echo "ok: --transport $name with $envset: node1 and node2 live"
done
# oarsh: NODE COMMAND (one string); the others: NODE /bin/sh -c COMMAND.
: >"$tmp/log"
jt OAR_JOB_ID=7 -- -w node1 --transport oarsh || fail "oarsh: status $?"
grep -q "^oarsh job=7 key= host=node1 argc=2$" "$tmp/log" ||
	fail "oarsh's argv: $(cat "$tmp/log")"
: >"$tmp/log"
jt LSB_JOBID=8 -- -w node1 --transport blaunch || fail "blaunch: status $?"
grep -q "^blaunch job=8 host=node1 argc=4 arg2=/bin/sh arg3=-c$" \
	"$tmp/log" || fail "blaunch's argv: $(cat "$tmp/log")"
echo "ok: oarsh gets NODE COMMAND, blaunch NODE /bin/sh -c COMMAND"

# 2. A row that works only within the job, outside one: one line, refused.
for name in blaunch pbs_tmrsh; do
	jt -- -w node1 --transport "$name"
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "$name outside a job: status $rc"
	grep -q "works only within the job" "$tmp/err" ||
		fail "$name outside a job: $(cat "$tmp/err")"
	echo "ok: $name outside a job: $(grep -m1 'within the job' "$tmp/err")"
done
jt -- -w node1 --transport oarsh
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "oarsh: no job" "$tmp/err" ||
	fail "oarsh without a job: status $rc: $(cat "$tmp/err")"
echo "ok: oarsh without a job: $(grep -m1 'no job' "$tmp/err")"

# 3. A refused login through the row is final, with the client's words.
: >"$tmp/authorized_keys"
jt LSB_JOBID=8 -- -w node1 --transport blaunch
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "refused: status $rc"
grep -q "node1: refused: blaunch: .*Permission denied" "$tmp/err" ||
	fail "refused: $(cat "$tmp/err")"
echo "ok: refused: $(grep -m1 'refused' "$tmp/err")"
cp "$home/.ssh/id_ed25519.pub" "$tmp/authorized_keys"

# 4. kill -9 of jobtop: the stand-in's ssh and the probes go within 3 s.
probes() {
	for p in $(pgrep -f 'jobtop-probe-'); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = \
		    "$tmp/rhome/.cache/jobtop" ] && echo "$p"
	done
}
clients() { pgrep -f "ssh -F $home/.ssh/config" | grep -c .; }
: >"$tmp/out"
env -u LSB_JOBID -u PBS_JOBID HOME=$home SSH_AUTH_SOCK= \
	PATH="$tmp/bin:$PATH" OAR_JOB_ID=7 "$JOBTOP" --no-record -b --json \
	-d 0.5 -w node1,node2 --transport oarsh >"$tmp/out" 2>"$tmp/err" &
jt_pid=$!
loopsshd_kill9
exit 0
