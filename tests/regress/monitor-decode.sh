#!/bin/sh
# SPDX-License-Identifier: ISC
# monitor-decode: `jobtop --decode` prints a recorded probe stream as the
# same records the live monitor prints, with HELLO and BYE; a truncated,
# garbled or empty stream gives the records decoded so far, one error line
# naming the byte offset, and exit status 1.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

if ! command -v python3 >/dev/null 2>&1; then
	echo "python3 is not installed"
	exit 77
fi
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
[ -x "$PROBE" ] || fail "$PROBE not built"

"$PROBE" --interval 0.1 --count 3 >"$tmp/stream" </dev/null ||
	fail "probe failed"

"$JOBTOP" --decode --json <"$tmp/stream" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc: $(cat "$tmp/err")"
python3 - "$tmp/out" <<'PY' || exit 1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
types = [r["type"] for r in recs]
def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)
if types[0] != "hello" or types[-1] != "bye":
    fail("records start with %s and end with %s" % (types[0], types[-1]))
h = recs[0]
if not isinstance(h.get("sources"), dict) or h["sources"].get("load") != "on":
    fail("hello sources: %r" % h.get("sources"))
for name, v in h["sources"].items():
    if v != "on" and not v.startswith("off: "):
        fail("source %s: %r" % (name, v))
for k in ("node", "kernel", "ncpu", "clk_tck", "version"):
    if k not in h:
        fail("hello lacks %s" % k)
if types.count("node") != 3:
    fail("%d node records" % types.count("node"))
PY

# Piped input decodes the same as a file.
cat "$tmp/stream" | "$JOBTOP" --decode --json >"$tmp/out2" 2>"$tmp/err" ||
	fail "piped: $(cat "$tmp/err")"
cmp -s "$tmp/out" "$tmp/out2" || fail "piped output differs"

"$JOBTOP" --decode <"$tmp/stream" >"$tmp/text" 2>"$tmp/err" ||
	fail "text: $(cat "$tmp/err")"
head -n 1 "$tmp/text" | grep -q 'hello: kernel .*sources: .*load on' ||
	fail "text hello: $(head -n 1 "$tmp/text")"
[ "$(grep -c ' #[0-9]*  cpu ' "$tmp/text")" -eq 3 ] ||
	fail "text: want 3 node lines: $(cat "$tmp/text")"

# Broken streams: records so far, one line naming the offset, exit 1.
broken() {
	what=$1
	"$JOBTOP" --decode --json <"$tmp/bad" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit status $rc, want 1"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		fail "$what: want one line on stderr, got: $(cat "$tmp/err")"
	python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' \
		"$tmp/out" || fail "$what: invalid JSON before the error"
}
size=$(wc -c <"$tmp/stream")
head -c $((size - 3)) "$tmp/stream" >"$tmp/bad"
broken truncated
grep -q '^jobtop: stdin: truncated frame at byte [0-9][0-9]*$' "$tmp/err" ||
	fail "truncated: $(cat "$tmp/err")"
grep -q '"type":"hello"' "$tmp/out" || fail "truncated: hello not printed"
[ "$(grep -c '"type":"node"' "$tmp/out")" -eq 3 ] ||
	fail "truncated: the three samples before the cut were not printed"

head -c 1000 "$tmp/stream" >"$tmp/bad"
broken "cut early"
grep -q 'truncated frame at byte' "$tmp/err" || fail "cut early: $(cat "$tmp/err")"

printf 'this is not a probe stream\n' >"$tmp/bad"
broken garbage
grep -q '^jobtop: stdin: .* at byte 0' "$tmp/err" ||
	fail "garbage: $(cat "$tmp/err")"

: >"$tmp/bad"
broken empty
grep -q 'empty stream' "$tmp/err" || fail "empty: $(cat "$tmp/err")"

# A later major version is refused.
python3 - "$tmp/stream" "$tmp/bad" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"JTOP")
d[i + 4] += 1
open(sys.argv[2], "wb").write(d)
PY
broken version
grep -q 'bad HELLO frame at byte 0: incompatible protocol version' "$tmp/err" ||
	fail "version: $(cat "$tmp/err")"

echo "ok"
