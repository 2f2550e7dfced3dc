#!/bin/bash
# SPDX-License-Identifier: ISC
# group: cpu
# test-rank-peak: a rank's peak memory, end to end, on a real Slurm job
# (issue 14: "a lab job whose rank holds a known amount of memory for a few
# seconds shows that peak in the rank table, the export and the report").
# jobs/spike.sh: rank 1 holds 256 MiB for 3 s, then frees it.  The curses
# monitor runs as jtuser in tmux and records; once the memory is freed:
#  - the rank table's PEAKRSS for rank 1 shows >= 256 MiB while its RSS is
#    back under 64 MiB, and rank 0's peak stays small;
#  - the recording's CSV export has rank.peak_rss >= 256 MiB for rank 1;
#  - the report's rank table has rank 1's peak >= 256 MiB.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
command -v tmux >/dev/null || lab_skip "tmux is not installed"
((LAB_N >= 2)) || lab_skip "needs 2 nodes, the lab has $LAB_N"

JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
D=$(mktemp -d /tmp/jobtop-peak.XXXXXX)
SOCK=jtpeak-$$
job=""
cleanup() {
	lab_as "$LAB_USER" tmux -L "$SOCK" kill-server 2>/dev/null || true
	[ -z "$job" ] || lab_cancel "$job"
	rm -rf "$D"
}
trap cleanup EXIT
chmod 755 "$D"
install -m 755 "$JOBTOP" "$PROBE" "$D/"
chmod -R a+rX "$D"
mkdir -m 777 "$D/out"
MIB=$((1024 * 1024))

t() { lab_as "$LAB_USER" tmux -L "$SOCK" "$@"; }
screen() { t capture-pane -p -t peak; }
wait_for() {
	local t0=$SECONDS
	while ((SECONDS - t0 < $1)); do
		screen | grep -Eq -- "$2" && return 0
		sleep 0.3
	done
	return 1
}
sfail() { echo "--- screen:"; screen || true; lab_fail "$*"; }

job=$(lab_submit "$LAB_USER" spike) || lab_fail "could not start the spike job"
t new-session -d -s peak -x 200 -y 40 \
	"LANG=C.UTF-8 $D/jobtop -d 1 -o $D/out/peak.jtr $job; echo jobtop-exit=\$?; sleep 600"
wait_for 20 'nodes 2: 2 live' || sfail "the 2 nodes are not live within 20 s"
t send-keys -t peak r
wait_for 5 'Ranks of the job: 2' || sfail "r does not show the 2 ranks"

# The RSS and PEAKRSS columns, found by the header's words (every cell up
# to them is one word); sizes like 262M or 1.2G.
mib_of() { awk -v v="$1" 'BEGIN { u = substr(v, length(v)); n = v + 0
	if (u == "G") n *= 1024; else if (u == "K") n /= 1024
	else if (u != "M") n = 0; printf "%d", n }'; }
# cols RANK: "RSS PEAKRSS" of that rank's row.
cols() { screen | awk -v r="$1" '
	/PEAKRSS/ && !h { for (i = 1; i <= NF; i++) {
		if ($i == "RSS") c1 = i; if ($i == "PEAKRSS") c2 = i }; h = 1; next }
	h && $1 == r && $2 ~ /^node/ { print $c1, $c2; exit }'; }
ok="" last=""
t0=$SECONDS
while ((SECONDS - t0 < 25)); do
	last=$(cols 1)
	if [ -n "$last" ]; then
		set -- $last
		if [ "$(mib_of "$2")" -ge 256 ] && [ "$(mib_of "$1")" -lt 64 ]
		then
			ok=1
			break
		fi
	fi
	sleep 0.5
done
[ -n "$ok" ] || sfail "rank 1's PEAKRSS never showed the 256 MiB spike after it ended (RSS PEAKRSS: ${last:-no row})"
echo "ok: rank 1 after the spike: RSS $1, PEAKRSS $2"
set -- $(cols 0)
[ "$(mib_of "${2:-0}")" -gt 0 ] && [ "$(mib_of "$2")" -lt 64 ] ||
	sfail "rank 0's PEAKRSS is '${2:-}' without a spike"

t send-keys -t peak q
t0=$SECONDS
until screen | grep -q 'jobtop-exit='; do
	((SECONDS - t0 < 15)) || sfail "jobtop did not quit"
	sleep 0.3
done
screen | grep -q 'jobtop-exit=0' || sfail "jobtop exited non-zero"
[ -s "$D/out/peak.jtr" ] || lab_fail "no recording"

"$JOBTOP" export "$D/out/peak.jtr" --csv >"$D/peak.csv" ||
	lab_fail "export --csv failed"
"$JOBTOP" report "$D/out/peak.jtr" -o "$D/peak.html" ||
	lab_fail "report failed"
python3 - "$D/peak.csv" "$D/peak.html" "$MIB" <<'PY' || lab_fail "export or report"
import csv, re, sys
mib = int(sys.argv[3])
peak = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["record"] == "sample" and r["metric"] == "rank.peak_rss" and \
            r["rank"] != "" and r["value"] != "":
        k = int(r["rank"])
        peak[k] = max(peak.get(k, 0), float(r["value"]))
bad = []
if peak.get(1, 0) < 256 * mib:
    bad.append("CSV: rank 1's peak_rss %.0f MiB" % (peak.get(1, 0) / mib))
if not 0 < peak.get(0, 0) < 64 * mib:
    bad.append("CSV: rank 0's peak_rss %.0f MiB" % (peak.get(0, 0) / mib))
html = open(sys.argv[2]).read()
rows = re.findall(r'<tr><td>node\d+</td><td class="num">(\d+)</td>.*?'
                  r'class="num rss-peak" data-v="(\d+)"', html)
rp = {int(r): int(v) for r, v in rows}
if rp.get(1, 0) < 256 * mib:
    bad.append("report: rank 1's RSS peak %s (rows %s)" % (rp.get(1), rp))
for b in bad:
    print("FAIL: " + b)
if not bad:
    print("ok: peak of rank 1 in the CSV %.0f MiB, in the report %.0f MiB; "
          "rank 0 %.0f MiB" % (peak[1] / mib, rp[1] / mib, peak[0] / mib))
sys.exit(1 if bad else 0)
PY
echo "PASS"
