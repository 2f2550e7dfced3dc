#!/bin/sh
# SPDX-License-Identifier: ISC
# remote-launch-flux: Flux's launcher as a transport row ("flux": flux
# proxy JOB flux exec -r RANK -d HOME /bin/sh -c COMMAND, a row of
# feed-ssh.c's client machinery).  Flux does not run here (no flux-core
# package), so `flux` is a stand-in script, first in PATH, that answers
# `flux jobs` with a line in the form real Flux 0.88 printed
# (tests/data/sched/flux/real), runs a command under `flux proxy JOB`
# only for the job, and under `flux exec` only inside that job's proxy,
# maps the rank to the job's node list (node2,node1: rank 0 is node2, the
# reverse of the sorted set's order), checks -d, logs its argv and execs
# the system ssh to a real sshd on loopback, with a key of its own.
# Checks: two nodes deliver samples through the row, each with its own
# rank, named in the transport records; --transport flux for a host list
# is refused with one line; a side command (a backtrace's) runs through
# the row; the ladder moves a node that SSH refuses to the row; kill -9
# of jobtop leaves no client and no probe after 3 s.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
TESTBIN=${TESTBIN:-$TOP/build/tests}

. "$TOP/tests/regress/lib/loopsshd.sh"
loopsshd_init flux
[ -x "$TESTBIN/test-feed" ] || skip "$TESTBIN/test-feed not built"

job=f3AakAX9
# The stand-in's own key: SSH may refuse the user's and still let it in.
ssh-keygen -q -t ed25519 -N '' -f "$tmp/fluxkey" || fail "keygen"
loopsshd_setup "$tmp/fluxkey.pub"
loopsshd_config "$tmp/flux_ssh_config" "$tmp/fluxkey"

# The stand-in flux: jobs, proxy and exec as jobtop calls them.
cat >"$tmp/bin/flux" <<EOC
#!/bin/sh
tmp=$tmp
job=$job
nodes="node2 node1"
uri=local://$tmp/flux-$job/local-0
EOC
cat >>"$tmp/bin/flux" <<'EOC'
bad() { echo "flux (stand-in): unexpected argv: $*" >&2; exit 2; }
case ${1:-} in
jobs)
	# flux jobs -n -o FORMAT JOBID (sched-flux.c)
	[ $# -eq 5 ] && [ "$2" = -n ] && [ "$3" = -o ] || bad "$@"
	[ "$5" = "$job" ] || { echo "JobID $5 unknown" >&2; exit 1; }
	printf '%s|%s|%s|R|4|5.213641166687012|0.0|%s|mpi-test\n' "$job" \
	    "$(id -u)" "$(id -un)" "node2,node1"
	;;
proxy)
	# flux proxy JOB COMMAND...: COMMAND with FLUX_URI at the job.
	[ $# -ge 3 ] || bad "$@"
	[ "$2" = "$job" ] || { echo "flux-proxy: jobid $2 not found" >&2; exit 1; }
	[ "${3##*/}" = flux ] || bad "$@"
	shift 2
	FLUX_URI=$uri exec "$@"
	;;
exec)
	# flux exec -r RANK -d DIR COMMAND...: only in the job's instance.
	[ "${FLUX_URI:-}" = "$uri" ] ||
		{ echo "flux-exec: not the job's instance" >&2; exit 1; }
	[ $# -ge 6 ] && [ "$2" = -r ] && [ "$4" = -d ] || bad "$@"
	rank=$3 dir=$5
	shift 5
	case $rank in '' | *[!0-9]*) bad "rank $rank" ;; esac
	[ "$dir" = "$HOME" ] || bad "-d $dir, not the home $HOME"
	i=0 host=
	for n in $nodes; do
		[ $i -eq "$rank" ] && host=$n
		i=$((i + 1))
	done
	[ -n "$host" ] || { echo "flux-exec: rank $rank: no such rank" >&2; exit 68; }
	echo "flux job=$job rank=$rank host=$host argc=$# arg1=$1 arg2=$2" >>$tmp/log
	q=
	for a in "$@"; do
		q="$q '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
	done
	exec ssh -F $tmp/flux_ssh_config -T "$host" "$q"
	;;
*)
	bad "$@"
	;;
esac
EOC
chmod 755 "$tmp/bin/flux"

loopsshd_start

jt() {
	env -u FLUX_JOB_ID -u FLUX_URI HOME=$home SSH_AUTH_SOCK= \
		PATH="$tmp/bin:$PATH" \
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

# 1. Both nodes through the row, each by its rank in the job's node list
# (node2 is rank 0: the list's order, not the sorted one).  The stand-in
# sees ranks only, so which node jobtop meant is read from its log.
: >"$tmp/log"
jt --log "$tmp/jt.log" --scheduler flux --transport flux "$job" ||
	fail "--transport flux: status $?"
for n in node1 node2; do
	[ "$(transport_of $n)" = flux ] ||
		fail "$n's transport is \"$(transport_of $n)\""
	[ "$(samples $n)" -ge 2 ] || fail "no samples from $n"
done
grep -q "^flux job=$job rank=0 host=node2 argc=3 arg1=/bin/sh arg2=-c$" \
	"$tmp/log" && grep -q "^flux job=$job rank=1 host=node1 argc=3 " \
	"$tmp/log" || fail "the ranks: $(cat "$tmp/log")"
grep -q "node2: flux: started $tmp/bin/flux as rank 0," "$tmp/jt.log" &&
	grep -q "node1: flux: started $tmp/bin/flux as rank 1," "$tmp/jt.log" &&
	! grep -q -e "node1: flux: started .* rank 0," \
	    -e "node2: flux: started .* rank 1," "$tmp/jt.log" ||
	fail "jobtop's ranks: $(grep 'flux: started' "$tmp/jt.log")"
echo "ok: --transport flux: node2 as rank 0, node1 as rank 1, both live"

# 2. A host list is no Flux job: refused, one line, non-zero status.
jt -w node1,node2 --transport flux
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "flux for a host list: status $rc"
grep -q "flux: serves flux jobs only" "$tmp/err" ||
	fail "flux for a host list: $(cat "$tmp/err")"
[ "$(grep -c 'flux: serves flux jobs only' "$tmp/err")" -eq 2 ] ||
	fail "not one line a node: $(cat "$tmp/err")"
echo "ok: flux for a host list: $(grep -m1 'serves flux' "$tmp/err")"

# 3. A side command (what a backtrace runs) goes through the row too.
: >"$tmp/log"
env -u FLUX_JOB_ID -u FLUX_URI HOME=$home SSH_AUTH_SOCK= \
	PATH="$tmp/bin:$PATH" PROBE=${PROBE:-$TOP/jobtop-probe} JOB=$job \
	SCHED=flux RANK_NODES=node2,node1 timeout 60 "$TESTBIN/test-feed" \
	--exec-via flux node1 'echo "on $(pwd)"; echo side >&2; exit 5' \
	>"$tmp/out" 2>"$tmp/err" || fail "side command: status $?"
grep -qx "out: on $tmp/rhome" "$tmp/out" &&
	grep -qx "err: side" "$tmp/out" && grep -qx "status 5" "$tmp/out" &&
	grep -qx "end closed" "$tmp/out" ||
	fail "side command through flux: $(cat "$tmp/out" "$tmp/err")"
[ "$(grep -c "^flux job=$job rank=1 host=node1 argc=3 " "$tmp/log")" -eq 2 ] ||
	fail "side command: not a second flux exec on rank 1: $(cat "$tmp/log")"
echo "ok: a side command ran as a second flux exec -r 1 beside the probe"

# 4. SSH refuses the user's key: the ladder moves the nodes to flux.
cp "$tmp/fluxkey.pub" "$tmp/authorized_keys"
: >"$tmp/log"
jt --scheduler flux "$job" || fail "auto, SSH refused: status $?"
for n in node1 node2; do
	case $(transport_of $n) in
	flux*) ;;
	*) fail "auto: $n's transport is \"$(transport_of $n)\"" ;;
	esac
	[ "$(samples $n)" -ge 2 ] || fail "auto: no samples from $n"
done
grep -q "reached through flux instead" "$tmp/out" "$tmp/err" ||
	fail "auto: the move is not explained"
echo "ok: auto: SSH refused, both nodes moved to flux ($(transport_of node1 | cut -c1-60)...)"
cat "$home/.ssh/id_ed25519.pub" "$tmp/fluxkey.pub" >"$tmp/authorized_keys"

# 5. kill -9 of jobtop: the clients and the probes go within 3 s.
probes() {
	for p in $(pgrep -f 'jobtop-probe-'); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = \
		    "$tmp/rhome/.cache/jobtop" ] && echo "$p"
	done
}
clients() { pgrep -f "ssh -F $tmp/flux_ssh_config" | grep -c .; }
: >"$tmp/out"
env -u FLUX_JOB_ID -u FLUX_URI HOME=$home SSH_AUTH_SOCK= \
	PATH="$tmp/bin:$PATH" "$JOBTOP" --no-record -b --json -d 0.5 \
	--scheduler flux --transport flux "$job" >"$tmp/out" 2>"$tmp/err" &
jt_pid=$!
loopsshd_kill9
exit 0
