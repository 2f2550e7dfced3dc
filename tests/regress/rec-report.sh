#!/bin/sh
# SPDX-License-Identifier: ISC
# rec-report: `jobtop report` makes one self-contained page that headless
# Chromium opens without a console error, with every plot drawn.  The
# recordings: a synthetic 4-node job of 5 minutes with events (made by
# build/tests/test-rec --gen) and a live run on this machine.  The page
# and a screenshot stay in build/test-artifacts/.  A third recording is
# of the real probe on fixture trees of every optional source (GPUs,
# InfiniBand, Lustre, NFS, RAPL, sensors): its page must plot each of
# them, job-wide and per node.  Skipped without chromium.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
TESTBIN=${TESTBIN:-$TOP/build/tests}
ART=$TOP/build/test-artifacts
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"

fail() {
	echo "FAIL: $*"
	exit 1
}

CHROMIUM=
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		CHROMIUM=$c
		break
	fi
done
if [ -z "$CHROMIUM" ]; then
	echo "chromium is not installed"
	exit 77
fi
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
[ -x "$TESTBIN/test-rec" ] || fail "$TESTBIN/test-rec not built"
mkdir -p "$ART"

# Headless Chromium with nothing that reaches the network.
chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
	    --disable-quic --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync \
	    --user-data-dir="$(mktemp -d "$tmp/profile.XXXXXX")" \
	    --enable-logging=stderr --v=0 "$@"
}

# Open a page: its DOM after the scripts ran, and no console errors.
check_page() {
	page=$1
	min_plots=$2
	chrome --dump-dom "file://$page" >"$tmp/dom" 2>"$tmp/log" ||
		fail "chromium --dump-dom $page: $(tail -5 "$tmp/log")"
	# The page writes nothing to the console: any line there is a fault.
	if grep -E 'Uncaught|:CONSOLE' "$tmp/log" >"$tmp/bad"; then
		fail "console messages from $page: $(cat "$tmp/bad")"
	fi
	grep -q 'data-jt-ready="1"' "$tmp/dom" ||
		fail "$page: the script did not finish: $(grep -o '<pre id="jt-errors"[^<]*' "$tmp/dom")"
	grep -q '<pre id="jt-errors" data-count="0">' "$tmp/dom" ||
		fail "$page: script errors: $(grep -o '<pre id="jt-errors".*</pre>' "$tmp/dom")"
	plots=$(grep -o '<svg class="chart"' "$tmp/dom" | wc -l)
	[ "$plots" -ge "$min_plots" ] ||
		fail "$page: $plots plots, want $min_plots at least"
	lines=$(grep -o '<path class="series' "$tmp/dom" | wc -l)
	[ "$lines" -ge "$min_plots" ] || fail "$page: $lines plotted lines"
}

# Nothing in the page may be fetched: no src or href, no URL but the SVG
# namespace, and a policy that forbids fetching.
check_offline() {
	page=$1
	grep -Eiq '<(link|img|iframe|object|embed)[ >]|<script[^>]* src=' \
	    "$page" && fail "$page loads something"
	grep -Eo '(https?|ftp)://[^"<> ]*' "$page" | sort -u |
	    grep -v '^http://www.w3.org/2000/svg$' >"$tmp/urls" &&
		fail "$page names URLs: $(cat "$tmp/urls")"
	grep -q "Content-Security-Policy\" content=\"default-src 'none'" \
	    "$page" || fail "$page has no content security policy"
	# Scripts by hash only (no 'unsafe-inline'), and exactly the
	# page's scripts; no base URI, no form target.
	python3 - "$page" <<'PY' || fail "$page: content security policy"
import base64, hashlib, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
csp = re.search(r'Content-Security-Policy" content="([^"]*)"', page).group(1)
d = {}
for part in csp.split(";"):
    w = part.split()
    if w:
        d[w[0]] = w[1:]
ok = True
def bad(msg):
    global ok
    print(msg)
    ok = False
if "'unsafe-inline'" in d.get("script-src", []):
    bad("script-src allows 'unsafe-inline': %s" % csp)
if d.get("base-uri") != ["'none'"] or d.get("form-action") != ["'none'"]:
    bad("no base-uri 'none' or form-action 'none': %s" % csp)
want = sorted("'sha256-%s'" % base64.b64encode(hashlib.sha256(
    m.group(1).encode()).digest()).decode()
    for m in re.finditer(r"<script>(.*?)</script>", page, re.S))
if len(want) != 2 or sorted(d.get("script-src", [])) != want:
    bad("script-src %r, the page's scripts hash to %r" %
        (d.get("script-src"), want))
sys.exit(0 if ok else 1)
PY
}

"$TESTBIN/test-rec" --gen "$tmp/job.jtr" 4 300 >/dev/null ||
	fail "test-rec --gen"
"$JOBTOP" report "$tmp/job.jtr" -o "$ART/report.html" 2>"$tmp/err" ||
	fail "report: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "report wrote to stderr: $(cat "$tmp/err")"
check_offline "$ART/report.html"
# 6 job-wide and 6 per-node plots (CPU, memory, its share of the
# limit, load, disk, network), rank CPU and RSS.
check_page "$ART/report.html" 14
grep -q 'id="jt-meta"' "$tmp/dom" || fail "no metadata table"
grep -q '1234567' "$tmp/dom" || fail "the job id is not shown"
grep -q 'cn004' "$tmp/dom" || fail "the node names are not shown"
grep -q '<table class="events" id="jt-flagged">' "$tmp/dom" ||
	fail "no flagged table"
tr -d '\n' <"$tmp/dom" |
    grep -o '<table class="events" id="jt-flagged">.*</table>' |
    grep -q 'stalled' || fail "the stalled rank is not flagged"
grep -q 'lost: no data' "$tmp/dom" || fail "the lost node is not listed"
chrome --screenshot="$ART/report.png" --window-size=1280,2000 \
    "file://$ART/report.html" >/dev/null 2>"$tmp/log" ||
	fail "screenshot: $(tail -5 "$tmp/log")"
[ -s "$ART/report.png" ] || fail "no screenshot"

# A live recording of this machine; with no events: "none".
"$JOBTOP" -w localhost -b --json -n 4 -d 0.2 -o "$tmp/live.jtr" \
    >/dev/null 2>"$tmp/err" || fail "live run: $(cat "$tmp/err")"
"$JOBTOP" report "$tmp/live.jtr" -o "$ART/report-live.html" 2>"$tmp/err" ||
	fail "report: $(cat "$tmp/err")"
check_offline "$ART/report-live.html"
check_page "$ART/report-live.html" 14

# The optional sources: the probe on one tree of their fixtures.
FIX=$TOP/tests/data/fixtures
root=$tmp/root
mkdir -p "$root"
for fx in nvgpu-basic ib-hca lustre-proc nfs-client rapl-basic \
    thermal-basic; do
	cp -R "$FIX/$fx/." "$root/" || fail "cannot copy fixture $fx"
done
printf '#!/bin/sh\nexec "%s" --root "%s" "$@"\n' "${PROBE:-$TOP/jobtop-probe}" \
    "$root" >"$tmp/probe"
chmod +x "$tmp/probe"
JOBTOP_PROBE=$tmp/probe timeout 60 "$JOBTOP" -w localhost -b --json -n 5 \
    -d 0.3 -o "$tmp/src.jtr" >/dev/null 2>"$tmp/err" </dev/null ||
	fail "fixture run: $(cat "$tmp/err")"
"$JOBTOP" report "$tmp/src.jtr" -o "$ART/report-sources.html" \
    2>"$tmp/err" || fail "report: $(cat "$tmp/err")"
check_offline "$ART/report-sources.html"
# 13 metrics (GPU use, memory, power, temperature; IB in and out; Lustre
# and NFS read and write; RAPL package and DRAM; the hottest sensor), each
# job-wide and per node; the tree has no /proc/stat or meminfo, so no CPU,
# memory, load, disk or network plot (absent, not drawn as 0).
check_page "$ART/report-sources.html" 26
for t in "GPU utilisation" "GPU memory used" "GPU power" \
    "GPU temperature (hottest)" "InfiniBand received" "InfiniBand sent" \
    "Lustre read" "Lustre write" "NFS read" "NFS write" \
    "CPU package power (RAPL)" "DRAM power (RAPL)" \
    "Temperature (hottest sensor)"; do
	grep -qF ">$t<" "$tmp/dom" || fail "report-sources: no plot of $t"
done
for t in "Instructions per cycle" "CPU busy" "Disk read + write"; do
	grep -qF ">$t<" "$tmp/dom" &&
		fail "report-sources: a plot of $t, which no node sent"
done
echo "ok; screenshot in $ART/report.png"
