#!/bin/sh
# SPDX-License-Identifier: ISC
# The one test runner: unit test binaries, shell regress tests, then the lab
# tests against the real on-machine cluster.  Each test is a program that
# exits 0 (pass), 77 (skip, with the reason on its last output line) or
# anything else (fail).  Under CI=true a skip counts as a failure: nothing
# may be silently missing there.  The last line is "N passed, N failed".
#
# Usage: tests/run.sh [PATTERN]   (only tests whose name contains PATTERN)

TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
export JOBTOP="$TOP/jobtop" PROBE="$TOP/jobtop-probe"
export TESTBIN="$TOP/build/tests"
LOGDIR="$TOP/build/test-logs"
# Recordings and logs of tested runs stay in the build tree, not in the
# tester's ~/.local/state.
export XDG_STATE_HOME="$TOP/build/test-state"
mkdir -p "$LOGDIR"
pattern=${1:-}
per_test_timeout=${TEST_TIMEOUT:-600}

# Each group of tests writes its result lines to its own file; the counts
# are taken from those lines at the end, so groups may run side by side.
RESULTS="$LOGDIR/results"
[ -n "${JOBTOP_TEST_GROUP:-}" ] || rm -f "$RESULTS".*

run_one() {
	name=$1; shift
	case "$name" in *"$pattern"*) ;; *) return ;; esac
	log="$LOGDIR/$(echo "$name" | tr '/' '_').log"
	start=$(date +%s)
	# timeout puts the test in a process group of its own (its pid):
	# whatever the test left running in it (a monitor it started in the
	# background and did not end, its clients) is killed once the test
	# ended, and said in its log, so that it cannot disturb the next one.
	timeout -k 10 "$per_test_timeout" "$@" >"$log" 2>&1 </dev/null &
	tpid=$!
	wait "$tpid"
	rc=$?
	left=$(pgrep -g "$tpid" 2>/dev/null | tr '\n' ' ')
	if [ -n "$left" ]; then
		echo "run.sh: killed what the test left running: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ',')" 2>/dev/null | cut -c1-120 | tr '\n' ';')" >>"$log"
		kill -9 "-$tpid" 2>/dev/null
	fi
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 77 ] && [ "${CI:-}" = true ]; then
		echo "FAIL $name (skipped under CI: $(tail -n 1 "$log")) [${secs}s]"
	elif [ $rc -eq 77 ]; then
		echo "SKIP $name: $(tail -n 1 "$log")"
	elif [ $rc -eq 0 ]; then
		echo "PASS $name [${secs}s]"
	else
		echo "FAIL $name (exit $rc) [${secs}s]"
		sed 's/^/    | /' "$log" | tail -n 30
	fi
}

# Unit and regress tests: no shared resource.  The regress tests that
# mostly compile (a line "# group: build" in the script: packages, the
# sanitizer and fuzz builds, the header-dependency check) are a group of
# their own, "build"; the others are "local".
is_build() { grep -q '^# group: build$' "$1"; }

run_local() {
	for t in "$TESTBIN"/test-*; do
		[ -x "$t" ] || continue
		run_one "unit/$(basename "$t")" "$t"
	done
	for t in "$TOP"/tests/regress/*.sh; do
		[ -e "$t" ] || continue
		is_build "$t" && continue
		run_one "regress/$(basename "$t" .sh)" sh "$t"
	done
}

run_build() {
	# Beside the lab, start once its CPU tests are done (run_lab makes
	# the file; at most 15 min).
	if [ -n "${JOBTOP_BUILD_AFTER:-}" ]; then
		w=0
		while [ ! -e "$JOBTOP_BUILD_AFTER" ] && [ $w -lt 900 ]; do
			sleep 1; w=$((w + 1))
		done
	fi
	for t in "$TOP"/tests/regress/*.sh; do
		[ -e "$t" ] || continue
		is_build "$t" || continue
		run_one "regress/$(basename "$t" .sh)" sh "$t"
	done
}

case ${JOBTOP_TEST_GROUP:-} in
local) run_local; exit 0 ;;
build) run_build; exit 0 ;;
esac

# The lab tests that judge ranks by their share of the CPU (a straggler
# at 25% duty among spinning ranks, no false flag beside a CPU hog) say
# "# group: cpu" and run first, before the build group starts (see
# run_lab and run_build): what they measure is the machine's CPU, and
# compilers beside them are noise no real node has.
lab_tests="" lab_cpu_tests=""
for t in "$TOP"/tests/lab/test-*.sh; do
	[ -e "$t" ] || continue
	case "lab/$(basename "$t" .sh)" in *"$pattern"*) ;; *) continue ;; esac
	if grep -q '^# group: cpu$' "$t"; then
		lab_cpu_tests="$lab_cpu_tests $t"
	else
		lab_tests="$lab_tests $t"
	fi
done

run_lab() {
	labreason=""
	if "$TOP"/tests/lab/lab-up.sh >"$LOGDIR/lab-up.log" 2>&1; then
		export LAB_UP=1
	else
		labreason="lab did not come up: $(tail -n 1 "$LOGDIR/lab-up.log")"
	fi
	for t in $lab_cpu_tests - $lab_tests; do
		if [ "$t" = - ]; then
			# The CPU tests are done: the local group's session
			# back to nice 0, and the build group may start.
			[ -z "${localpid:-}" ] ||
				{ echo 0 >"/proc/$localpid/autogroup"; } 2>/dev/null
			[ -z "${JOBTOP_BUILD_AFTER:-}" ] || : >"$JOBTOP_BUILD_AFTER"
			continue
		fi
		if [ -n "$labreason" ]; then
			run_one "lab/$(basename "$t" .sh)" sh -c "echo '$labreason'; exit 77"
		else
			run_one "lab/$(basename "$t" .sh)" bash "$t"
		fi
	done
	# The daemons' logs (slurmctld, slurmd, OAR, sshd) go with the lab:
	# keep a copy beside the tests' logs for whoever reads a failure.
	rm -rf "$LOGDIR/lab-log"
	cp -r "${JOBTOP_LAB:-/var/lib/jobtop-lab}/log" "$LOGDIR/lab-log" 2>/dev/null
	"$TOP"/tests/lab/lab-down.sh >"$LOGDIR/lab-down.log" 2>&1 ||
		echo "warning: lab-down failed, see $LOGDIR/lab-down.log"
	[ -z "${JOBTOP_BUILD_AFTER:-}" ] || : >"$JOBTOP_BUILD_AFTER"
}

# The lab tests mostly wait on 1 Hz samples of a cluster that runs beside
# them; the unit and regress tests mostly wait on their own processes, and
# the build group computes.  Run the three groups side by side unless
# JOBTOP_TEST_SERIAL=1: the lab at the runner's priority, so the lab's
# daemons and the monitors under test keep their timing; the local group
# below it while the lab's CPU tests run; the build group only once they
# are done (group_bg below says how).  Alone on a 2-core machine the local
# group takes ~10 min, the build group ~7 and the lab ~18; one after the
# other they did not fit in 20 min.  The local and build groups' lines
# are printed when they end, in one piece.
# A group beside the lab: a session of its own, its autogroup niced.  With
# kernel.sched_autogroup_enabled=1 (Debian's default) the scheduler shares
# the CPU between sessions first and by nice only within one, and every
# lab rank is in a session of slurmstepd's making: a group merely niced
# in the runner's session got as much CPU as a rank (4 MPI ranks of
# regress/probe-mpi at nice 5 took 22% each beside the lab's spinning
# ranks at -5 while test-detect-noisy ran, which then never told its
# straggler apart).  Where autogroups are off or not writable, plain nice.
# The local group runs at 10 while the lab's CPU tests run, then at 0
# (run_lab); the build group, after them, at 5: below the local group,
# whose sampling tests (probe-comm, probe-perf) failed when compilers
# outranked them.
group_bg() {	# NICE GROUP: run this script's GROUP tests in the background
	JOBTOP_TEST_GROUP=$2 setsid -w sh -c 'echo "$1" >/proc/self/autogroup 2>/dev/null
		exec nice -n "$1" sh "$2" "$3"' sh "$1" "$0" "$pattern" &
}

lab_tests=${lab_tests# }
[ -n "$lab_tests$lab_cpu_tests" ] && lab_any=1 || lab_any=
if [ -n "$lab_any" ] && [ "${JOBTOP_TEST_SERIAL:-0}" != 1 ]; then
	group_bg 10 local >"$RESULTS.local" 2>&1
	localpid=$!
	rm -f "$LOGDIR/lab-cpu-done"
	JOBTOP_BUILD_AFTER=$LOGDIR/lab-cpu-done
	export JOBTOP_BUILD_AFTER
	group_bg 5 build >"$RESULTS.build" 2>&1
	buildpid=$!
	run_lab | tee "$RESULTS.lab"
	wait "$localpid"
	cat "$RESULTS.local"
	wait "$buildpid"
	cat "$RESULTS.build"
else
	run_local | tee "$RESULTS.local"
	run_build | tee "$RESULTS.build"
	[ -n "$lab_any" ] && run_lab | tee "$RESULTS.lab"
fi

pass=$(cat "$RESULTS".* | grep -c '^PASS ')
fail=$(cat "$RESULTS".* | grep -c '^FAIL ')
skip=$(cat "$RESULTS".* | grep -c '^SKIP ')
failed=$(cat "$RESULTS".* | sed -n 's/^FAIL \([^ ]*\).*/ \1/p' | tr -d '\n')
[ -n "$failed" ] && echo "failed:$failed"
if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ $fail -eq 0 ]
