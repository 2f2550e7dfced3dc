#!/bin/sh
# SPDX-License-Identifier: ISC
# record.sh NAME [rankload args for every rank]: 4 local rankload ranks
# (PMI_RANK 0-3) beside a CPU hog, sampled 62 times at 1 Hz by jobtop's
# local mode; writes NAME.json and NAME.pids in the current directory
# (then: extract.py NAME >NAME.txt).  Needs build/tests/lab/rankload
# (make tests-build) and jobtop built.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
name=$1; shift
sh -c 'while :; do :; done' & hog=$!
pids=""
for r in 0 1 2 3; do
	PMI_RANK=$r "$TOP/build/tests/lab/rankload" spin "$@" >/dev/null &
	pids="$pids $!"
done
sleep 1
echo "$pids" >"$name.pids"
"$TOP/jobtop" -w localhost -b --json --no-record -d 1 -n 62 >"$name.json"
kill $hog $pids
wait
