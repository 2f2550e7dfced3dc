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
rc=0
# One per source: a target that did not build is a failure, not a gap.
for src in tests/fuzz/fuzz-*.c; do
	n=$(basename "$src" .c)
	f=build/fuzz/$n
	[ -x "$f" ] || { echo "FAIL $n: not built"; rc=1; continue; }
	work=$(mktemp -d)
	seeds=tests/fuzz/corpus/$n
	[ -d "$seeds" ] || seeds=
	if ! "$f" -max_total_time="${FUZZ_SMOKE_TIME:-3}" -max_len=65536 \
	    -artifact_prefix="$work.artifact-" \
	    "$work" $seeds >"$work.log" 2>&1; then
		echo "FAIL $n"; tail -30 "$work.log"; rc=1
	else
		echo "ok $n: $(grep -o 'Done [0-9]* runs' "$work.log")"
	fi
	rm -rf "$work" "$work.log" "$work".artifact-*
done
exit $rc
