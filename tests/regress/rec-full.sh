#!/bin/sh
# SPDX-License-Identifier: ISC
# rec-full: a full disk stops the recording, not the monitor.  On a 64 KiB
# tmpfs with 20 KiB left the recording fills up within a few samples:
# every sample is still printed, stderr has exactly one line "jobtop:
# recording stopped: No space left on device (FILE)", and what was
# recorded plays back.  Needs root (mount); skipped otherwise.
# Root without a job watches the busiest processes; on a bare machine
# (CI's has hardly any besides the probe's ancestors) the test starts
# its own, and leaves 8 KiB so that a recording of 400 samples fills
# it even with no process to record (about 45 bytes a sample then).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d)
mnt=$tmp/full
mounted=
bg=
trap '[ -n "$bg" ] && kill $bg 2>/dev/null; [ -n "$mounted" ] && umount "$mnt"; rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
if [ "$(id -u)" -ne 0 ]; then
	echo "needs root to mount a small tmpfs"
	exit 77
fi
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>"$tmp/err"; then
	echo "cannot mount a tmpfs here: $(cat "$tmp/err")"
	exit 77
fi
mounted=1
dd if=/dev/zero of="$mnt/filler" bs=1024 count=56 2>/dev/null
sleep 60 >/dev/null 2>&1 &
bg=$!

"$JOBTOP" -w localhost -b --json -n 400 -d 0.05 -o "$mnt/r.jtr" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc: $(cat "$tmp/err")"
n=$(grep -c '"type":"node"' "$tmp/out")
[ "$n" -eq 400 ] || fail "$n samples printed, want 400 (monitoring stopped?)"
[ "$(cat "$tmp/err")" = "jobtop: recording stopped: No space left on device ($mnt/r.jtr)" ] ||
	fail "stderr: $(cat "$tmp/err")"
size=$(stat -c %s "$mnt/r.jtr")
[ "$size" -gt 0 ] && [ "$size" -le 8192 ] || fail "recording of $size bytes"

"$JOBTOP" -r "$mnt/r.jtr" -b --json >"$tmp/replay" 2>"$tmp/err" ||
	fail "replay of the full recording: $(cat "$tmp/err")"
m=$(grep -c '"type":"node"' "$tmp/replay")
[ "$m" -ge 1 ] && [ "$m" -lt 400 ] || fail "replay has $m samples"
python3 - "$tmp/out" "$tmp/replay" <<'PY' || exit 1
import json, sys
def load(path):
    recs = [json.loads(l) for l in open(path)]
    for r in recs:
        r.pop("flags", None)
    return recs
live, rep = load(sys.argv[1]), load(sys.argv[2])
# Records in order; detector events may come before or after the sample
# that raised them.
# (the meta records differ in "end": the replay knows it, live not)
a = [r for r in live if r["type"] not in ("event", "meta", "units")][:len(
    [r for r in rep if r["type"] not in ("event", "meta", "units")])]
b = [r for r in rep if r["type"] not in ("event", "meta", "units")]
if a != b:
    print("FAIL: the replay is not what the live run printed first")
    sys.exit(1)
PY
echo "recording stopped after $m of 400 samples ($size bytes); monitoring went on"
