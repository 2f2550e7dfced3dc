#!/bin/sh
# SPDX-License-Identifier: ISC
# rec-full: a full disk stops the recording, not the monitor.  On a 64 KiB
# tmpfs with 20 KiB left the recording fills up within a few samples:
# every sample is still printed, stderr has exactly one line "jobtop:
# recording stopped: No space left on device (FILE)", and what was
# recorded plays back.  Needs root (mount); skipped otherwise.
# Root without a job watches the busiest processes, as many as this
# machine has: beside the lab (make check runs the two side by side) the
# first key frame alone can pass a fixed 8 KiB, and nothing whole was
# recorded.  So the room left is measured: a recording of 2 samples made
# first, plus 4 KiB, in whole tmpfs pages; 400 samples take more.
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
if ! mount -t tmpfs -o size=512k tmpfs "$mnt" 2>"$tmp/err"; then
	echo "cannot mount a tmpfs here: $(cat "$tmp/err")"
	exit 77
fi
mounted=1
sleep 60 >/dev/null 2>&1 &
bg=$!
"$JOBTOP" -w localhost -b -n 2 -d 0.05 -o "$tmp/two.jtr" >/dev/null 2>&1 ||
	fail "a 2-sample recording failed"
room_k=$(( ($(stat -c %s "$tmp/two.jtr") + 4096 + 4095) / 4096 * 4 ))
[ "$room_k" -lt 448 ] || fail "a 2-sample recording takes $room_k KiB"
dd if=/dev/zero of="$mnt/filler" bs=1024 count=$((512 - room_k)) 2>/dev/null

"$JOBTOP" -w localhost -b --json -n 400 -d 0.05 -o "$mnt/r.jtr" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc: $(cat "$tmp/err")"
n=$(grep -c '"type":"node"' "$tmp/out")
[ "$n" -eq 400 ] || fail "$n samples printed, want 400 (monitoring stopped?)"
[ "$(cat "$tmp/err")" = "jobtop: recording stopped: No space left on device ($mnt/r.jtr)" ] ||
	fail "stderr: $(cat "$tmp/err")"
size=$(stat -c %s "$mnt/r.jtr")
[ "$size" -gt 0 ] && [ "$size" -le $((room_k * 1024)) ] ||
	fail "recording of $size bytes in $room_k KiB"

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
