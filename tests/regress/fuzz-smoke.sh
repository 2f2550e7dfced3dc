#!/bin/sh
# SPDX-License-Identifier: ISC
# group: build
# Every libFuzzer target builds and survives its seed corpus plus a few
# seconds of fuzzing (make fuzz runs them longer); UBSan findings abort
# (-fno-sanitize-recover), so undefined behaviour fails too.
cd "$TOP" || exit 1
command -v clang >/dev/null || { echo "clang not installed"; exit 77; }
make -s -j"$(nproc)" fuzz-build >/tmp/fuzz-smoke.$$ 2>&1 || { cat /tmp/fuzz-smoke.$$; rm -f /tmp/fuzz-smoke.$$; exit 1; }
rm -f /tmp/fuzz-smoke.$$
# One per source: a target that did not build is a failure, not a gap.
# The targets run side by side, as many at once as there are CPUs: each
# fuzzes for FUZZ_SMOKE_TIME seconds of wall time whatever CPU it gets, so
# one after the other they took 21 x 3 s (and longer beside the lab's
# tests); their results are printed in order once all are done.
out=$(mktemp -d)
# shellcheck disable=SC2016
ls tests/fuzz/fuzz-*.c | xargs -n 1 -P "$(nproc)" sh -c '
	n=$(basename "$2" .c)
	f=build/fuzz/$n
	res=$1/$n
	[ -x "$f" ] || { echo "FAIL $n: not built" >"$res"; exit 0; }
	work=$(mktemp -d)
	seeds=tests/fuzz/corpus/$n
	[ -d "$seeds" ] || seeds=
	if ! "$f" -max_total_time="${FUZZ_SMOKE_TIME:-3}" -max_len=65536 \
	    -artifact_prefix="$work.artifact-" \
	    "$work" $seeds >"$work.log" 2>&1; then
		{ echo "FAIL $n"; tail -30 "$work.log"; } >"$res"
	else
		echo "ok $n: $(grep -o "Done [0-9]* runs" "$work.log")" >"$res"
	fi
	rm -rf "$work" "$work.log" "$work".artifact-*
' sh "$out"
rc=0
for src in tests/fuzz/fuzz-*.c; do
	n=$(basename "$src" .c)
	if [ -f "$out/$n" ]; then
		cat "$out/$n"
		grep -q '^FAIL' "$out/$n" && rc=1
	else
		echo "FAIL $n: no result"; rc=1
	fi
done
rm -rf "$out"
exit $rc
