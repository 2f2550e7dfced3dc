#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-jobvars: the probe finds a job's processes on the real /proc by
# every scheduler's job variable of src/jobvars.h, the table the monitor's
# allocation detection reads too: FLUX_JOB_ID as Flux sets it (U+0192 f58)
# and in ASCII, PBS_JOBID with its server part (asked for with and without
# it), LSB_JOBID, OAR_JOB_ID and OAR_JOBID, SLURM_JOBID; look-alike ids
# (one more digit or letter) must not match.
#
# Exit 0 pass, 1 fail, 77 skip (jobtop cannot decode).

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-jobvars.XXXXXX") || exit 1
bg=
cleanup() {
	for p in $bg; do
		kill "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
	echo "FAIL: $*"
	exit 1
}
[ -x "$PROBE" ] && [ -x "$JOBTOP" ] || {
	echo "skip: build jobtop and jobtop-probe first"
	exit 77
}

n=$$
F=$(printf '\306\222')
# start VAR=VALUE: a sleep carrying it; its pid on stdout.
start() {
	env "$1" sleep 60 </dev/null >/dev/null 2>&1 &
	echo $!
}
# pids JOBID: the pids the probe reports as ranks of JOBID.
pids() {
	"$PROBE" --job "$1" --count 2 --interval 0.1 </dev/null \
	    >"$tmp/p.bin" 2>"$tmp/p.err" || fail "probe --job $1: $(cat "$tmp/p.err")"
	"$JOBTOP" --decode --json <"$tmp/p.bin" 2>/dev/null |
	    sed -n 's/.*"type":"rank","pid":\([0-9]*\).*/\1/p' | sort -u
}
# expect JOBID PID... : exactly these pids.
expect() {
	id=$1
	shift
	want=$(printf '%s\n' "$@" | sort -u)
	got=$(pids "$id")
	[ "$got" = "$want" ] || fail "--job $id: ranks '$(echo $got)', want '$(echo $want)'"
	echo "ok: --job $id: $(echo $got)"
}

fu=$(start "FLUX_JOB_ID=${F}Ab$n")
fa=$(start "FLUX_JOB_ID=fAb$n")
fx=$(start "FLUX_JOB_ID=${F}Ab${n}x")
pb=$(start "PBS_JOBID=7$n.srv01")
px=$(start "PBS_JOBID=7${n}1.srv01")
ls=$(start "LSB_JOBID=8$n")
o1=$(start "OAR_JOB_ID=9$n")
o2=$(start "OAR_JOBID=9$n")
sl=$(start "SLURM_JOBID=6$n")
bg="$fu $fa $fx $pb $px $ls $o1 $o2 $sl"
sleep 0.3

expect "fAb$n" "$fu" "$fa"
expect "fAb${n}x" "$fx"
expect "7$n" "$pb"
expect "7$n.srv01" "$pb"
expect "8$n" "$ls"
expect "9$n" "$o1" "$o2"
expect "6$n" "$sl"
echo "all job variables found"
