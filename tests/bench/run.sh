#!/bin/sh
# SPDX-License-Identifier: ISC
# Run every benchmark in tests/bench/ (bench-*.sh); each prints its figures
# and the ratio against the baseline it measured in the same run.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP JOBTOP="$TOP/jobtop" PROBE="$TOP/jobtop-probe" TESTBIN="$TOP/build/tests"
rc=0
for b in "$TOP"/tests/bench/bench-*.sh; do
	echo "== $(basename "$b" .sh)"
	bash "$b" || rc=1
done
exit $rc
