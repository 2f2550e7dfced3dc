#!/bin/sh
# SPDX-License-Identifier: ISC
# repeat.sh: the flake hunt.  Runs the whole suite (tests/run.sh: unit,
# regress, lab) N times back to back and says which tests failed in which
# run; with HOG=1 a busy loop per core runs beside every run (niced like
# nothing: the monitors under test compete with it).  A test that fails
# once in N is a flaky test to fix at its cause.
#
# Usage: tests/repeat.sh [N] [PATTERN]     (make check-repeat N=5 HOG=1)
# The last line is "N passed, N failed" over the runs (a run passes when
# every test in it does).
TOP=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-5}
pattern=${2:-}
LOGDIR="$TOP/build/test-logs"
mkdir -p "$LOGDIR"
hogs=
cleanup() { [ -n "$hogs" ] && kill $hogs 2>/dev/null; }
# A trap on INT or TERM replaces the shell's own ending: end after it.
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM
if [ "${HOG:-0}" = 1 ]; then
	for _ in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
	echo "repeat: a CPU hog on each of $(nproc) cores"
fi
green=0 red=0
: >"$LOGDIR/repeat.summary"
for i in $(seq "$n"); do
	start=$(date +%s)
	"$TOP/tests/run.sh" "$pattern" >"$LOGDIR/repeat.$i.log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	last=$(tail -n 1 "$LOGDIR/repeat.$i.log")
	failed=$(sed -n 's/^failed://p' "$LOGDIR/repeat.$i.log")
	echo "run $i of $n: $last in ${secs}s${failed:+; failed:$failed}" |
		tee -a "$LOGDIR/repeat.summary"
	if [ $rc -eq 0 ]; then green=$((green + 1)); else red=$((red + 1)); fi
done
echo "repeat: logs in $LOGDIR/repeat.N.log"
echo "$green passed, $red failed"
[ $red -eq 0 ]
