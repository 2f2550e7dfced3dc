#!/bin/sh
# SPDX-License-Identifier: ISC
# text-escapes: text from a node never reaches the terminal or the log as an
# escape sequence (security review F4).  Four ways in:
#  - a local rank whose comm (prctl PR_SET_NAME) holds OSC "set title",
#    "clear screen" and a UTF-8 C1 CSI, watched through SLURM_JOB_ID +
#    SLURM_JOB_NODELIST=localhost: text mode shows '?' for them, JSON
#    escapes them (\u001b, \u009b), the log has none;
#  - the same rank through `jobtop-probe --job N | jobtop --decode`;
#  - a probe (JOBTOP_PROBE) that fails with escape bytes on stderr: one
#    clean error line, a clean state line, a clean log; in the curses
#    monitor (tmux) the line after the screen closes leaves the pane title;
#  - a crafted probe stream (host, kernel, source reason, comm, state, wchan,
#    event and BYE with escapes, state SO) through --decode, text and JSON.
# Every check reads the raw bytes of stdout, stderr and the log.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
tmp=$(mktemp -d)
rank=
trap '[ -n "$rank" ] && kill "$rank" 2>/dev/null; rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
[ -x "$JOBTOP" ] && [ -x "$PROBE" ] || fail "jobtop or jobtop-probe not built"

# clean FILE WHAT: no ESC, BEL, SO, DEL or byte >= 0x80 (so no UTF-8 C1).
clean() {
	python3 - "$1" "$2" <<'PY' || exit 1
import sys
data = open(sys.argv[1], "rb").read()
bad = [i for i, b in enumerate(data) if (b < 0x20 and b not in (9, 10)) or b >= 0x7f]
if bad:
    i = bad[0]
    print("FAIL: %s: byte 0x%02x at %d: %r" % (sys.argv[2], data[i], i, data[max(0, i - 30):i + 30]))
    sys.exit(1)
PY
}

# The rank: a process of "job" $job whose comm is 14 bytes of attack.
job=$((7700000 + $$ % 100000))
cat >"$tmp/evil.py" <<'PY'
import ctypes, sys, time
name = b"\x1b]0;PW\x07\x1b[2J\xc2\x9bx"
ctypes.CDLL(None).prctl(15, ctypes.c_char_p(name), 0, 0, 0)
open(sys.argv[1], "w").close()
time.sleep(60)
PY
SLURM_JOB_ID=$job SLURM_PROCID=7 python3 "$tmp/evil.py" "$tmp/named" &
rank=$!
i=0
while [ ! -e "$tmp/named" ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the rank did not set its name"
	sleep 0.1
done
shown='?]0;PW??[2J??x'

# Text mode, with the log: the rank's line shows the cleaned name.
SLURM_JOB_ID=$job SLURM_JOB_NODELIST=localhost "$JOBTOP" -b -n 2 -d 0.2 \
	--no-record --log "$tmp/log1" >"$tmp/out" 2>"$tmp/err" ||
	fail "local watch: exit $?: $(cat "$tmp/err")"
clean "$tmp/out" "local text stdout"
clean "$tmp/err" "local text stderr"
clean "$tmp/log1" "local log"
grep -F -q "$shown" "$tmp/out" || fail "local text: rank 7 not shown as $shown: $(cat "$tmp/out")"
grep -E -q "^ +7 +$rank " "$tmp/out" || fail "local text: no line for rank 7 (pid $rank)"
[ "$(stat -c %a "$tmp/log1")" = 600 ] || fail "the log is not 0600"
echo "ok: local text mode shows $shown, log clean and 0600"

# JSON: the same name, escaped; it decodes back to the bytes of the comm.
SLURM_JOB_ID=$job SLURM_JOB_NODELIST=localhost "$JOBTOP" --json -n 2 -d 0.2 \
	--no-record >"$tmp/out" 2>"$tmp/err" ||
	fail "local json: exit $?: $(cat "$tmp/err")"
clean "$tmp/out" "local json stdout"
[ -s "$tmp/err" ] && fail "local json: stderr: $(cat "$tmp/err")"
grep -F -q '"rank.comm":"\u001b]0;PW\u0007\u001b[2J\u009bx"' "$tmp/out" ||
	fail "local json: comm not escaped as expected: $(grep -o '"rank.comm":"[^"]*"' "$tmp/out" | head -1)"
python3 - "$tmp/out" <<'PY' || exit 1
import json, sys
names = [r.get("rank.comm") for r in map(json.loads, open(sys.argv[1])) if r["type"] == "rank" and r.get("rank") == 7]
want = "\x1b]0;PW\x07\x1b[2J\x9bx"
if not names or any(n != want for n in names):
    print("FAIL: json rank 7 comm %r, want %r" % (names, want)); sys.exit(1)
PY
echo "ok: local JSON escapes the comm as \\u001b...\\u009b and decodes to it"

# The same rank through the probe and --decode.
"$PROBE" --job "$job" --count 2 --interval 0.2 </dev/null >"$tmp/stream" 2>"$tmp/err" ||
	fail "probe: exit $?: $(cat "$tmp/err")"
"$JOBTOP" --decode <"$tmp/stream" >"$tmp/out" 2>"$tmp/err" || fail "decode: exit $?: $(cat "$tmp/err")"
clean "$tmp/out" "decode text"
grep -F -q "$shown" "$tmp/out" || fail "decode: rank not shown as $shown"
echo "ok: --decode of the probe's stream shows $shown"
kill "$rank" 2>/dev/null; rank=

# A probe that fails with escapes on stderr.
cat >"$tmp/fp" <<'EOF'
#!/bin/sh
printf 'boom \033]0;PWNED-TITLE\007\033[2J\033[31mred\302\233x\n' >&2
exit 3
EOF
chmod +x "$tmp/fp"
want='jobtop: localhost: probe exited with status 3: boom ?]0;PWNED-TITLE??[2J?[31mred??x'
for mode in -b --json; do
	JOBTOP_PROBE=$tmp/fp "$JOBTOP" -w localhost $mode -n 1 --no-record \
		--log "$tmp/log2" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -ne 0 ] || fail "failing probe ($mode): exit 0"
	clean "$tmp/out" "failing probe ($mode) stdout"
	clean "$tmp/err" "failing probe ($mode) stderr"
	[ "$(cat "$tmp/err")" = "$want" ] ||
		fail "failing probe ($mode): stderr '$(cat "$tmp/err")', want '$want'"
done
clean "$tmp/log2" "failing probe log"
grep -F -q 'boom ?]0;PWNED-TITLE' "$tmp/log2" || fail "the log lacks the probe's line"
grep -F -q 'failed: probe exited with status 3: boom ?]0;PWNED' "$tmp/out" ||
	fail "the JSON state record lacks the cleaned failure: $(cat "$tmp/out")"
echo "ok: a probe failing with escapes gives one clean line: $want"

# The same in the curses monitor (tmux): the error line printed after the
# screen closes does not retitle the pane.
if command -v tmux >/dev/null 2>&1; then
	sock=jtesc-$$
	tm() { tmux -L "$sock" "$@"; }
	tm new-session -d -s s -x 120 -y 20 \
		"while [ ! -e $tmp/go ]; do sleep 0.1; done; JOBTOP_PROBE=$tmp/fp $JOBTOP -w localhost --no-record; echo rc=\$?; sleep 30"
	before=$(tm display -p -t s '#{pane_title}')
	touch "$tmp/go"
	sleep 2
	tm send-keys -t s q
	i=0
	until tm capture-pane -p -t s | grep -q '^rc='; do
		i=$((i + 1))
		[ $i -lt 100 ] || { tm kill-server; fail "curses: jobtop did not end"; }
		sleep 0.1
	done
	after=$(tm display -p -t s '#{pane_title}')
	screen=$(tm capture-pane -p -t s)
	tm kill-server
	[ "$after" = "$before" ] || fail "curses: pane title '$before' became '$after'"
	echo "$screen" | grep -F -q "$want" || fail "curses: no clean error line after the screen: $screen"
	echo "ok: curses: the failure line after the screen is clean, pane title stays '$before'"
else
	echo "(tmux not installed: the curses check is skipped)"
fi

# A crafted stream: escapes in every string HELLO, SAMPLE, EVENT, BYE carry.
python3 - "$tmp/crafted" <<'PY' || exit 1
import sys
def uvar(n):
    o = bytearray()
    while n >= 0x80: o.append((n & 0x7f) | 0x80); n >>= 7
    o.append(n); return bytes(o)
def svar(n): return uvar(((n << 1) ^ (n >> 63)) & 0xffffffffffffffff)
def s(b): return uvar(len(b)) + b
def frame(t, p): return bytes([t]) + uvar(len(p)) + p
E = b"\x1b]0;PWN\x07\xc2\x9b" + b"31m\xe2\x80\xae"
hello = b"JTOP\x01\x01" + s(b"0.1.0") + s(b"\x1b]0;HOST\x07") + s(b"k\x1b[2J") + s(b"x86_64")
hello += uvar(2) + uvar(1 << 30) + uvar(100) + uvar(4096) + uvar(1795600000000) + uvar(1000) + s(b"")
hello += uvar(1) + s(b"cpu") + b"\x00" + s(b"\x1b]0;T\x07")
schema = uvar(1) + s(b"rank") + uvar(4)
for f, k in ((b"comm", 2), (b"pid", 0), (b"state", 2), (b"wchan", 2)):
    schema += s(f) + s(b"") + bytes([k])
zz = lambda n: ((n << 1) ^ (n >> 63)) & 0xffffffffffffffff
sample = uvar(0) + svar(1000)
sample += uvar((zz(0) << 3) | 2) + uvar(0) + s(b"")            # ADD 0 to rank
sample += uvar((zz(-1) << 3) | 0) + uvar(2) + svar(123)        # pid 123
sample += uvar((zz(-1) << 3) | 4) + uvar(0) + s(E)             # comm
sample += uvar((zz(-1) << 3) | 4) + uvar(2) + s(b"\x0e")       # state SO
sample += uvar((zz(-1) << 3) | 4) + uvar(3) + s(b"\x1b[2Jwchan")
event = uvar(1795600000000) + b"\x01" + s(b"x\x1b") + s(E)
bye = uvar(0) + s(b"done " + E)
open(sys.argv[1], "wb").write(frame(1, hello) + frame(2, schema) + frame(3, sample)
    + frame(4, event) + frame(5, bye))
PY
"$JOBTOP" --decode <"$tmp/crafted" >"$tmp/out" 2>"$tmp/err" ||
	fail "crafted decode: exit $?: $(cat "$tmp/err")"
clean "$tmp/out" "crafted text"
clean "$tmp/err" "crafted text stderr"
grep -E -q '^ +- +123 \? ' "$tmp/out" || fail "crafted: the S column is not '?': $(cat "$tmp/out")"
[ "$(grep -c 'PWN' "$tmp/out")" -ge 3 ] || fail "crafted: comm, event or BYE text missing"
"$JOBTOP" --decode --json <"$tmp/crafted" >"$tmp/out" 2>"$tmp/err" ||
	fail "crafted decode --json: exit $?: $(cat "$tmp/err")"
clean "$tmp/out" "crafted json"
grep -F -q '\u001b]0;PWN\u0007\u009b31m\u202e' "$tmp/out" || fail "crafted json: comm not escaped"
python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/out" ||
	fail "crafted json: not JSON"
echo "ok: a crafted stream prints clean text and escaped JSON"
