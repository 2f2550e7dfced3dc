#!/bin/sh
# SPDX-License-Identifier: ISC
# report-verdict: the report answers "was my job healthy?" without
# JavaScript.  A synthetic 4-node job with a stalled rank and a lost node
# (build/tests/test-rec --gen): the page with every script removed (as
# webmail and ticket previews show it) opened in headless Chromium has the
# verdict (CPU efficiency, the flag and how long), the node and rank
# tables, every chart as SVG with the stall marked on each, and a
# screenshot that is not blank.  A 1,024-node recording gives a bounded
# page whose node charts are bands with a few outliers, not 1,024 lines.
# A real process holding a known amount of memory (a fake job on this
# machine: SLURM_JOB_ID in its environment, the probe given --job) shows
# that peak in the rank table, and a batch run whose stderr is a terminal
# prints the verdict there at its end.  Chromium is needed for the first
# part only.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
TESTBIN=${TESTBIN:-$TOP/build/tests}
ART=$TOP/build/test-artifacts
tmp=$(mktemp -d)
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
[ -x "$TESTBIN/test-rec" ] || fail "$TESTBIN/test-rec not built"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
mkdir -p "$ART"

CHROMIUM=
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		CHROMIUM=$c
		break
	fi
done

chrome() {
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
	    --disable-quic --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync \
	    --user-data-dir="$(mktemp -d "$tmp/profile.XXXXXX")" \
	    --enable-logging=stderr --v=0 "$@"
}

# 1. The small job, without scripts.
"$TESTBIN/test-rec" --gen "$tmp/job.jtr" 4 120 >/dev/null ||
	fail "test-rec --gen"
"$JOBTOP" report "$tmp/job.jtr" -o "$ART/report-verdict.html" \
    2>"$tmp/err" || fail "report: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "report wrote to stderr: $(cat "$tmp/err")"
size=$(wc -c <"$ART/report-verdict.html")
echo "4 nodes, 2 min: $size bytes"
python3 - "$ART/report-verdict.html" "$ART/report-noscript.html" <<'PY' ||
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
open(sys.argv[2], "w", encoding="utf-8").write(
    re.sub(r"<script>.*?</script>", "", page, flags=re.S))
PY
	fail "cannot strip the scripts"
grep -q '<script' "$ART/report-noscript.html" && fail "a script is left"

python3 - "$ART/report-noscript.html" <<'PY' || fail "the page without script"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)
v = re.search(r'<section id="jt-verdict">(.*?)</section>', page, re.S)
if not v:
    fail("no verdict")
v = v.group(1)
if page.index('id="jt-verdict"') > page.index('<svg'):
    fail("the verdict is not before the charts")
for want in (r"<th>CPU efficiency</th><td>\d+\.\d%: ",
             r"<th>Memory</th><td>peak .* on cn00\d",
             r"<tr class=\"bad\"><th>Flags</th><td>stalled 1 time, 1 min 20 s in all; "
             r"longest cn001 rank 3",
             r"lost 1 time, 20 s in all; longest cn002",
             r"<th>Worst node</th><td>cn001: stalled for 1 min 20 s",
             r"<th>Worst rank</th><td>cn001 rank 3 "):
    if not re.search(want, v):
        fail("verdict lacks %r: %s" % (want, v))
# Absolute times with the zone.
if not re.search(r"recorded 2023-11-1\d \d\d:\d\d:\d\d (UTC|\S+ \(UTC[+-]\d\d:\d\d\))", v):
    fail("no absolute time with a zone: " + v)
if 'id="jt-nodes"' not in page or page.count("<tr><td>cn00") < 4:
    fail("no node table with the 4 nodes")
if 'id="jt-ranks"' not in page:
    fail("no rank table")
# One denominator, said (D9): no CPU count from the scheduler here, so the
# node table's efficiency is of the node's CPUs, as the verdict's is.
if "CPU efficiency<br><small>of the node's CPUs, time measured" not in page:
    fail("the node table does not say its efficiency's denominator")
if "whole nodes assumed" not in v or "x the time each node was measured" not in v:
    fail("the verdict does not say its denominator: " + v)
# cn002 was lost 20 s (its samples went on in this synthetic file): that
# time is said, and left out of both sides.
if not re.search(r"cn002 not measured for 2\d s \(lost 20 s\)", v):
    fail("the lost time is not said: " + v)
PY

if [ -n "$CHROMIUM" ]; then
	chrome --dump-dom "file://$ART/report-noscript.html" >"$tmp/dom" \
	    2>"$tmp/log" || fail "chromium --dump-dom: $(tail -5 "$tmp/log")"
	python3 - "$tmp/dom" <<'PY' || exit 1
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)
charts = re.findall(r'<svg class="chart".*?</svg>', dom, re.S)
# Job-wide and per node: CPU, memory, its share of the limit, load, disk,
# network; per rank: CPU and RSS.
if len(charts) != 14:
    fail("%d charts, want 14" % len(charts))
for c in charts:
    if not re.search(r'<path class="series[^"]*" stroke="[^"]+" d="M[\d.]+ [\d.]+L', c):
        fail("a chart without a drawn line: " + c[:200])
    # The stall on every chart, the lost node too.
    if 'class="marker mk-stalled"' not in c or 'class="marker mk-lost"' not in c:
        fail("a chart without the stall or the lost node marked: " + c[:200])
    if not re.search(r">\d\d:\d\d(:\d\d)?</text>", c) or "time from 2023-11-1" not in c:
        fail("a chart without absolute times: " + c[:300])
if "stalled" not in re.search(r'id="jt-flagged".*?</table>', dom, re.S).group(0):
    fail("the stall is not in the flag table")
PY
	chrome --screenshot="$ART/report-noscript.png" --window-size=1280,1600 \
	    "file://$ART/report-noscript.html" >/dev/null 2>"$tmp/log" ||
		fail "screenshot: $(tail -5 "$tmp/log")"
	# Not blank: in the PNG's filtered rows a white page is bytes 0 (a
	# row like the one above or a pixel like the one before) and 255;
	# text, lines and bands are anything else.
	python3 - "$ART/report-noscript.png" <<'PY' || exit 1
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
if d[:8] != b"\x89PNG\r\n\x1a\n":
    print("FAIL: not a PNG"); sys.exit(1)
off, idat = 8, b""
while off < len(d):
    n, t = struct.unpack(">I4s", d[off:off + 8])
    if t == b"IDAT":
        idat += d[off + 8:off + 8 + n]
    off += 12 + n
raw = zlib.decompress(idat)
frac = (len(raw) - raw.count(0) - raw.count(255)) / len(raw)
if frac < 0.01:
    print("FAIL: the screenshot is blank (%.4f of bytes drawn)" % frac); sys.exit(1)
print("screenshot: %.1f%% of its bytes drawn" % (frac * 100))
PY
else
	echo "chromium is not installed: the rendering checks are skipped"
fi

# 2. 1,024 nodes: a bounded page, bands not lines.
"$TESTBIN/test-rec" --gen "$tmp/big.jtr" 1024 12 >/dev/null ||
	fail "test-rec --gen 1024"
"$JOBTOP" report "$tmp/big.jtr" -o "$tmp/big.html" 2>"$tmp/err" ||
	fail "report of 1024 nodes: $(cat "$tmp/err")"
size=$(wc -c <"$tmp/big.html")
echo "1024 nodes, 12 s: $size bytes"
[ "$size" -lt 400000 ] || fail "1024 nodes: the page has $size bytes"
python3 - "$tmp/big.html" <<'PY' || exit 1
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
charts = re.findall(r'<figure class="plot"[^>]*><figcaption>(.*?)</figcaption>(.*?)</figure>', page, re.S)
nodes = [c for c in charts if "1024 nodes" in c[0]]
if len(nodes) != 6:
    print("FAIL: %d node charts with a band" % len(nodes)); sys.exit(1)
for cap, c in nodes:
    lines = len(re.findall(r'<path class="series', c))
    if 'class="band"' not in c or lines > 5:
        print("FAIL: %s: %d lines, band %s" % (cap, lines, 'class="band"' in c))
        sys.exit(1)
table = re.search(r'id="jt-nodes".*?</table>', page, re.S).group(0)
if table.count("<tr><td>cn") != 64:
    print("FAIL: the node table is not bounded"); sys.exit(1)
PY

# 3. A real process holding 160 MiB, as rank 0 of a fake job 424242.
SLURM_JOB_ID=424242 SLURM_PROCID=0 python3 -c '
import time
b = b"\x01" * (160 << 20)
open("'"$tmp/held"'", "w").close()
time.sleep(20)
' &
holder=$!
i=0
while [ ! -e "$tmp/held" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -e "$tmp/held" ] || fail "the memory holder did not start"
printf '#!/bin/sh\nexec "%s" --job 424242 "$@"\n' "$PROBE" >"$tmp/probe"
chmod +x "$tmp/probe"
# The batch run's stderr on a terminal (script(1)): the verdict there,
# before "recorded to", as after the curses monitor; stdout keeps only
# the records.
command -v script >/dev/null 2>&1 || fail "script (util-linux) is missing"
SHELL=/bin/sh JOBTOP_PROBE=$tmp/probe timeout 30 script -qec \
    "'$JOBTOP' -w localhost -b -n 6 -d 0.3 -o '$tmp/mem.jtr' >'$tmp/out'" \
    "$tmp/tty" </dev/null >/dev/null 2>&1 ||
	fail "batch run: $(cat "$tmp/tty")"
kill "$holder" 2>/dev/null
holder=
tr -d '\r' <"$tmp/tty" | sed -n '/^jobtop summary:$/,$p' |
    sed '/^Script done/d; /^$/d' >"$tmp/sum"
grep -Eq '^  CPU efficiency: [0-9.]+%: ' "$tmp/sum" ||
	fail "no CPU efficiency at the end of the batch run: $(cat "$tmp/tty")"
grep -q '^  Worst rank: localhost rank 0 (python3)' "$tmp/sum" ||
	fail "the rank is not the worst (the only) rank: $(cat "$tmp/sum")"
[ "$(tail -n 1 "$tmp/sum")" = "jobtop: recorded to $tmp/mem.jtr" ] ||
	fail "the verdict is not followed by the recording's path: $(cat "$tmp/sum")"
grep -q 'summary' "$tmp/out" && fail "the verdict is in the records"
"$JOBTOP" report "$tmp/mem.jtr" -o "$tmp/mem.html" 2>"$tmp/err" ||
	fail "report: $(cat "$tmp/err")"
peak=$(tr -d '\n' <"$tmp/mem.html" | grep -o '<td class="num rss-peak" data-v="[0-9]*"' |
    head -1 | grep -o '[0-9]*"$' | tr -d '"')
[ -n "$peak" ] || fail "no peak RSS in the rank table"
[ "$peak" -ge $((160 << 20)) ] && [ "$peak" -lt $((200 << 20)) ] ||
	fail "peak RSS $peak, want 160 MiB and a little"
echo "ok; the held 160 MiB show as a peak RSS of $peak bytes"
