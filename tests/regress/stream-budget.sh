#!/bin/sh
# SPDX-License-Identifier: ISC
# stream-budget: one hostile node cannot make the monitor hold more than a
# bounded amount of memory (security review F9).  A stream that ADDs 4096
# instances of a group with 64 string fields and sets every field to 255
# bytes (67 MB of strings) stops with one clear error once the node holds
# 16 MiB of strings, and `jobtop --decode` stays under 64 MB max RSS
# (81 MB before the budget); a stream that ADDs more than 4096
# instances (what the probe can send) stops too.
# Prints the max RSS it measured.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"

# hostile NINST NSTR LEN: the stream on stdout (EPIPE ends it quietly).
cat >"$tmp/hostile.py" <<'PY'
import sys, signal
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
ninst, nstr, slen = map(int, sys.argv[1:4])
def uvar(n):
    o = bytearray()
    while n >= 0x80: o.append((n & 0x7f) | 0x80); n >>= 7
    o.append(n); return bytes(o)
def s(b): return uvar(len(b)) + b
def frame(t, p): return bytes([t]) + uvar(len(p)) + p
out = sys.stdout.buffer
hello = b"JTOP\x01\x01" + s(b"0.1.0") + s(b"evil") + s(b"6.1") + s(b"x86_64")
hello += uvar(2) + uvar(1 << 30) + uvar(100) + uvar(4096) + uvar(1795600000000) + uvar(1000) + s(b"")
hello += uvar(0)
out.write(frame(1, hello))
schema = uvar(1) + s(b"g") + uvar(nstr)
for f in range(nstr):
    schema += s(b"f%d" % f) + s(b"") + b"\x02"
out.write(frame(2, schema))
val = s(b"x" * slen)
per = max(1, (900 * 1024) // (nstr * (slen + 3) + 8))
seq = 0
for first in range(0, ninst, per):
    p = bytearray(uvar(seq) + uvar(2000))
    prev = -1
    for i in range(first, min(ninst, first + per)):
        p += uvar((((i - prev - 1) << 1) << 3) | 2) + uvar(0) + s(b"%d" % i)
        prev = i
        for f in range(nstr):
            # STR for the same instance: zigzag(-1) << 3 | 4
            p += b"\x0c" + uvar(f) + val
    out.write(frame(3, bytes(p)))
    seq += 1
PY

# 4096 instances x 64 strings x 255 bytes; the max RSS of jobtop, its only
# child, from getrusage.
python3 "$tmp/hostile.py" 4096 64 255 >"$tmp/stream"
python3 - "$JOBTOP" "$tmp/stream" "$tmp/err" "$tmp/rss" <<'PY'
import resource, subprocess, sys
with open(sys.argv[2], "rb") as i, open(sys.argv[3], "wb") as e:
    rc = subprocess.call([sys.argv[1], "--decode"], stdin=i,
                         stdout=subprocess.DEVNULL, stderr=e)
open(sys.argv[4], "w").write("%d %d\n" % (rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
PY
read -r rc rss <"$tmp/rss"
[ $rc -eq 1 ] || fail "strings: exit $rc, want 1: $(cat "$tmp/err")"
grep -q '^jobtop: stdin: bad SAMPLE frame at byte [0-9]*: strings over the 16 MiB a node may hold$' "$tmp/err" ||
	fail "strings: not the expected error: $(cat "$tmp/err")"
[ "$rss" -lt 65536 ] || fail "strings: max RSS ${rss} KB, want under 64 MB"
echo "ok: 4096 x 64 x 255-byte strings stop at 16 MiB, max RSS ${rss} KB"

# 4097 instances with no strings.
python3 "$tmp/hostile.py" 4097 0 0 |
	"$JOBTOP" --decode >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "instances: exit $rc, want 1: $(cat "$tmp/err")"
grep -q 'too many instances (a probe sends at most 4096)$' "$tmp/err" ||
	fail "instances: not the expected error: $(cat "$tmp/err")"
python3 "$tmp/hostile.py" 4096 0 0 | "$JOBTOP" --decode >/dev/null 2>"$tmp/err" ||
	fail "4096 instances refused: $(cat "$tmp/err")"
echo "ok: 4096 instances pass, the 4097th stops the stream"
