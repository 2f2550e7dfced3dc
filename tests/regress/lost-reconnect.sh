#!/bin/sh
# SPDX-License-Identifier: ISC
# lost-reconnect: a node whose probe dies is lost until it is live again
# (D8 of the 2026-11 walkthrough).  A real sshd on loopback
# (lib/loopsshd.sh), jobtop -b --json over the ssh transport recording to
# a file; the probe on "node1" is killed (SIGKILL, by its pid) twice.
# Checks, from the batch records and the recording: after "lost" every
# state until "live" says "reconnecting (try N): ..." and never a bare
# "connecting"; the node comes back live and sends samples again; played
# back (export --json), the events say "node1 lost: ..." and then
# "node1 back", never "back: connecting" (the "reconnecting (try N)" event
# of the monitor's log is tests/unit/test-ui-screen's); and the verdict
# names the time node1 was not measured.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}

. "$TOP/tests/regress/lib/loopsshd.sh"
loopsshd_init lost
loopsshd_setup
loopsshd_start
cat >"$tmp/ssh" <<EOC
#!/bin/sh
exec ssh -F $home/.ssh/config "\$@"
EOC
chmod 755 "$tmp/ssh"

samples() { grep -c "\"node\":\"node1\",\"type\":\"node\"" "$tmp/out"; }
probes() {	# pids of probes running from this test's cache
	for p in $(pgrep -f 'jobtop-probe-'); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = \
		    "$tmp/rhome/.cache/jobtop" ] && echo "$p"
	done
}
wait_samples() {	# N: until node1 sent more than N samples
	i=0
	until [ "$(samples)" -gt "$1" ]; do
		i=$((i + 1))
		[ $i -lt 400 ] || fail "node1 sent no sample after $1 (${2:-})"
		sleep 0.05
	done
}

HOME=$home SSH_AUTH_SOCK= JOBTOP_SSH=$tmp/ssh "$JOBTOP" -b --json -d 0.5 \
	-w node1 --transport ssh -o "$tmp/rec.jtr" >"$tmp/out" 2>"$tmp/err" &
jt_pid=$!
wait_samples 3 "at the start"
for round in 1 2; do
	n=$(samples)
	p=$(probes | head -n 1)
	[ -n "$p" ] || fail "round $round: no probe of this test running"
	kill -9 "$p"
	wait_samples $((n + 2)) "round $round: it did not come back"
done
kill -TERM "$jt_pid"
wait "$jt_pid" 2>/dev/null
jt_pid=

python3 - "$tmp/out" <<'PY' || fail "the state records"
import json, sys
st = [r["state"] for r in map(json.loads, open(sys.argv[1]))
      if r["type"] == "state" and r.get("node") == "node1"]
def fail(m):
    print("FAIL: %s: %s" % (m, st)); sys.exit(1)
# A loss for silence alone (a loaded machine) may end in "live" without
# a reconnect; the killed probes' losses go through "reconnecting".
lost = [i for i, s in enumerate(st) if s.startswith("lost")]
recon = 0
for i in lost:
    nxt = st[i + 1:]
    live = next((k for k, s in enumerate(nxt) if s == "live"), None)
    if live is None:
        fail("not live again after a loss")
    between = nxt[:live]
    if any(s.startswith("reconnecting (try 1): ") for s in between):
        recon += 1
    bad = [s for s in between if not (s.startswith("reconnecting (try ")
                                      or s.startswith("lost"))]
    if bad:
        fail("between lost and live: %s" % bad)
if recon < 2:
    fail("not two losses with a reconnect")
print("ok: lost, then %s, then live" % " / ".join(
    sorted(set(s for s in st if s.startswith("reconnecting")))))
PY

"$JOBTOP" export "$tmp/rec.jtr" --json -o "$tmp/rec.json" 2>"$tmp/err" ||
	fail "export: $(cat "$tmp/err")"
python3 - "$tmp/rec.json" <<'PY' || fail "the recorded events"
import json, sys
ev = [r.get("text", "") for r in map(json.loads, open(sys.argv[1]))
      if r.get("type") == "event"]
def fail(m):
    print("FAIL: %s: %s" % (m, ev)); sys.exit(1)
if any("back:" in t for t in ev):
    fail("a 'back: ...' event")
lost = [k for k, t in enumerate(ev) if t.startswith("node1 lost")]
backs = [k for k, t in enumerate(ev) if t == "node1 back"]
if len(lost) < 2 or len(backs) < 2 or backs[0] < lost[0]:
    fail("not 'lost' then 'back' twice")
print("ok: recorded events: %d lost, %d back, none 'back: ...'" %
      (len(lost), len(backs)))
PY
"$JOBTOP" report "$tmp/rec.jtr" -o "$tmp/r.html" 2>"$tmp/err" ||
	fail "report: $(cat "$tmp/err")"
grep -Eq 'node1 not measured for [0-9.]+ s \(lost [0-9.]+ s\)' "$tmp/r.html" ||
	fail "the verdict does not say the time node1 was lost: $(grep -o 'CPU efficiency</th><td>[^<]*' "$tmp/r.html")"
echo "ok: $(grep -o 'node1 not measured for [^:]*' "$tmp/r.html" | head -n 1)"
