#!/bin/sh
# SPDX-License-Identifier: ISC
# rec-live: recording a live batch run and playing it back.
#  - `-o F` records; `-r F -b --json` prints the same node and rank
#    records (times, values) and state records as the live run did;
#  - a jobtop killed with SIGKILL leaves a file that plays every sample
#    it printed;
#  - --no-record writes nothing; the default path is
#    $XDG_STATE_HOME/jobtop/<node>-<YYYYmmdd-HHMMSS>.jtr;
#  - export --csv and --json; a newer major version is refused in one line;
#  - rank.start_wall: the node's boot time (cpu.btime, /proc/stat) plus
#    start_time's clock ticks, in Unix seconds, live and in the CSV.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d)
pid=
bg=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; [ -n "$bg" ] && kill $bg 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"

# A process of ours to be recorded as a rank: without a job the probe
# shows the user's processes (root: the busiest), never its own ancestors,
# and a bare machine may have no other (CI's had none: no rank records).
sleep 60 >/dev/null 2>&1 &
bg=$!

# Live with a recording, then the replay of it.
"$JOBTOP" -w localhost -b --json -n 5 -d 0.2 -o "$tmp/r.jtr" \
    >"$tmp/live" 2>"$tmp/err" || fail "live run: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "live run wrote to stderr: $(cat "$tmp/err")"
[ -s "$tmp/r.jtr" ] || fail "no recording written"
[ -e "$tmp/state/jobtop" ] && fail "-o also wrote to the default path"
"$JOBTOP" -r "$tmp/r.jtr" -b --json >"$tmp/replay" 2>"$tmp/err" ||
	fail "replay: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "replay wrote to stderr: $(cat "$tmp/err")"
"$JOBTOP" export "$tmp/r.jtr" --json -o "$tmp/export.json" 2>"$tmp/err" ||
	fail "export --json: $(cat "$tmp/err")"
cmp -s "$tmp/replay" "$tmp/export.json" ||
	fail "export --json differs from -r -b --json"
"$JOBTOP" export "$tmp/r.jtr" --csv >"$tmp/export.csv" 2>"$tmp/err" ||
	fail "export --csv: $(cat "$tmp/err")"

python3 - "$tmp/live" "$tmp/replay" "$tmp/export.csv" <<'PY' || exit 1
import csv, json, sys

def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)

def load(path):
    out = []
    for n, line in enumerate(open(path), 1):
        try:
            r = json.loads(line)
        except ValueError as e:
            fail("%s line %d is not JSON: %s" % (path, n, e))
        # Detector flags are computed live; the replay has the samples.
        r.pop("flags", None)
        out.append(r)
    return out

live, rep = load(sys.argv[1]), load(sys.argv[2])
# Both open with the same meta record (export.h), live without the end
# it cannot know yet; units come before each node's first record.
if live[0]["type"] != "meta" or rep[0]["type"] != "meta":
    fail("no meta record first: %r / %r" % (live[0], rep[0]))
if "end" in live[0] or rep[0].pop("end", None) is None or live[0] != rep[0]:
    fail("meta records differ:\nlive   %r\nreplay %r" % (live[0], rep[0]))
for recs in (live, rep):
    first = [i for i, r in enumerate(recs) if r["type"] == "node"][0]
    units = [i for i, r in enumerate(recs) if r["type"] == "units"]
    if len(units) != 1 or units[0] > first:
        fail("units records at %r, the first node record at %d" %
             (units, first))
for kind in ("node", "rank", "state", "units"):
    a = [r for r in live if r["type"] == kind]
    b = [r for r in rep if r["type"] == kind]
    if kind == "node" and len(a) != 5:
        fail("live run printed %d node records, want 5" % len(a))
    if a != b:
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                fail("%s record %d differs:\nlive   %r\nreplay %r" %
                     (kind, i, x, y))
        fail("%d live %s records, %d replayed" % (len(a), kind, len(b)))

rows = list(csv.reader(open(sys.argv[3])))
head = ["record", "job", "time", "seq", "node", "rank", "pid", "metric",
        "instance", "value", "unit", "text"]
if rows[0] != head:
    fail("csv header %r" % rows[0])
if any(len(r) != len(head) for r in rows[1:]):
    fail("a csv row without %d columns" % len(head))
body = [dict(zip(head, r)) for r in rows[1:] if r[0] == "sample"]
nodes = [r for r in live if r["type"] == "node"]
times = {"%.3f" % r["time"] for r in nodes}
if {r["time"] for r in body} != times:
    fail("csv times %r, want %r" % (sorted({r["time"] for r in body}),
                                     sorted(times)))
def rows_of(metric):
    return [r for r in body if r["metric"] == metric]
mt = rows_of("mem.total")
if len(mt) != 5 or int(mt[0]["value"]) != nodes[0]["mem.total"] or \
        mt[0]["unit"] != "bytes":
    fail("mem.total rows %r" % mt[:2])
busy = rows_of("cpu.busy")
# The probe's first sample, the rates' base, is in neither (PROTOCOL.md).
if len(busy) != 5 or \
        abs(float(busy[-1]["value"]) - nodes[-1]["cpu.busy"]) > 0.001:
    fail("cpu.busy rows %r (want 5: a rate on every sample)" % busy)
if not any(r["metric"] == "core.idle" and r["instance"] for r in body):
    fail("no core.idle rows with an instance")
ranks = [r for r in body if r["metric"].startswith("rank.")]
if ranks and not all(r["pid"] for r in ranks):
    fail("a rank row without a pid")
if any(r["rank"] or r["pid"] for r in body
       if not r["metric"].startswith("rank.")):
    fail("a node row with a rank or pid")
print("%d node records replayed, %d csv rows" % (len(nodes), len(body)))
PY

# The ranks' start in wall time, live and exported.
python3 - "$tmp/live" "$tmp/export.csv" "$(getconf CLK_TCK)" <<'PY' || exit 1
import csv, json, sys, time
btime = int([l.split()[1] for l in open("/proc/stat")
             if l.startswith("btime ")][0])
tck = int(sys.argv[3])
recs = [json.loads(l) for l in open(sys.argv[1])]
nodes = [r for r in recs if r["type"] == "node"]
ranks = [r for r in recs if r["type"] == "rank" and "rank.start_time" in r]
if not nodes or any(r.get("cpu.btime") != btime for r in nodes):
    print("FAIL: cpu.btime %r, /proc/stat says %d" %
          ({r.get("cpu.btime") for r in nodes}, btime))
    sys.exit(1)
if not ranks:
    print("FAIL: no rank records with a start_time")
    sys.exit(1)
for r in ranks:
    want = btime + r["rank.start_time"] / tck
    w = r.get("rank.start_wall")
    if w is None or abs(w - want) > 0.02 or not btime <= w <= time.time():
        print("FAIL: rank.start_wall %r, want %.2f" % (w, want))
        sys.exit(1)
rows = [r for r in csv.DictReader(open(sys.argv[2]))
        if r["metric"] == "rank.start_wall"]
if not rows or any(r["unit"] != "s" or float(r["value"]) < btime
                   for r in rows):
    print("FAIL: CSV rank.start_wall rows %r" % rows[:2])
    sys.exit(1)
print("%d rank starts in wall time" % len(ranks))
PY

# kill -9 in the middle (once it printed 8 samples, about 2 s): every
# sample it printed plays back.
: >"$tmp/klive"	# the loop below may look before the child opened it
"$JOBTOP" -w localhost -b --json -d 0.25 -o "$tmp/k.jtr" >"$tmp/klive" \
    2>/dev/null &
pid=$!
i=0
while [ "$(grep -c '"type":"node"' "$tmp/klive")" -lt 8 ] && [ $i -lt 300 ]
do
	sleep 0.1
	i=$((i + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
pid=
"$JOBTOP" -r "$tmp/k.jtr" -b --json >"$tmp/kreplay" 2>"$tmp/err" ||
	fail "replay of a killed run: $(cat "$tmp/err")"
python3 - "$tmp/klive" "$tmp/kreplay" <<'PY' || exit 1
import json, sys
live = [json.loads(l) for l in open(sys.argv[1]) if l.endswith("\n")]
rep = [json.loads(l) for l in open(sys.argv[2])]
ln = [r["time"] for r in live if r["type"] == "node"]
rn = [r["time"] for r in rep if r["type"] == "node"]
if len(ln) < 8:
    print("FAIL: the live run printed only %d samples" % len(ln))
    sys.exit(1)
# Recorded before decoded: what was printed was written; one more sample
# may have been written but not printed.
if rn[:len(ln)] != ln or len(rn) - len(ln) > 1:
    print("FAIL: replayed %d samples, live printed %d" % (len(rn), len(ln)))
    sys.exit(1)
print("killed run: %d samples over %.2f s replayed" % (len(rn),
      rn[-1] - rn[0]))
PY

# --no-record writes nothing; the default path is used otherwise.
"$JOBTOP" -w localhost -b --json -n 1 -d 0.1 --no-record >/dev/null \
    2>"$tmp/err" || fail "--no-record: $(cat "$tmp/err")"
[ -e "$tmp/state/jobtop" ] && [ -n "$(ls -A "$tmp/state/jobtop")" ] &&
	fail "--no-record wrote $(ls "$tmp/state/jobtop")"
"$JOBTOP" -w localhost -b --json -n 2 -d 0.1 >"$tmp/dlive" 2>"$tmp/err" ||
	fail "default path: $(cat "$tmp/err")"
set -- "$tmp"/state/jobtop/localhost-*.jtr
[ $# -eq 1 ] && [ -f "$1" ] ||
	fail "default path: $(ls -R "$tmp/state" 2>&1)"
case "$(basename "$1")" in
localhost-[0-9][0-9][0-9][0-9][0-1][0-9][0-3][0-9]-[0-2][0-9][0-5][0-9][0-5][0-9].jtr) ;;
*) fail "default name $(basename "$1")" ;;
esac
[ "$(stat -c %a "$tmp/state/jobtop")" = 700 ] ||
	fail "recording directory mode $(stat -c %a "$tmp/state/jobtop")"
n=$("$JOBTOP" -r "$1" -b --json | grep -c '"type":"node"')
[ "$n" -eq 2 ] || fail "default-path recording replays $n samples"

# Errors: one line each.
one_error() {
	what=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ $rc -ne 0 ] || fail "$what: exit status 0"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		fail "$what: want one line on stderr, got: $(cat "$tmp/err")"
	grep -q '^jobtop: ' "$tmp/err" || fail "$what: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "$what: wrote to stdout"
	return 0
}
cp "$tmp/r.jtr" "$tmp/new.jtr"
printf '\002' | dd of="$tmp/new.jtr" bs=1 seek=4 conv=notrunc 2>/dev/null
one_error "newer major" "$JOBTOP" -r "$tmp/new.jtr" -b --json
grep -q 'recording format 2\.[0-9]* is newer than this jobtop reads' "$tmp/err" ||
	fail "newer major: $(cat "$tmp/err")"
one_error "export newer major" "$JOBTOP" export "$tmp/new.jtr" --csv
one_error "not a recording" "$JOBTOP" -r "$tmp/live" -b --json
grep -q 'not a jobtop recording' "$tmp/err" || fail "$(cat "$tmp/err")"
one_error "missing recording" "$JOBTOP" export "$tmp/none.jtr"
# Without -b the replay is the screen: no terminal here, one line.
one_error "replay screen without a terminal" "$JOBTOP" -r "$tmp/r.jtr"
grep -q 'needs a terminal on standard input and output' "$tmp/err" ||
	fail "replay without a terminal: $(cat "$tmp/err")"
one_error "replay with nodes" "$JOBTOP" -r "$tmp/r.jtr" -b -w localhost
one_error "export without a file" "$JOBTOP" export --csv
one_error "report without -o" "$JOBTOP" report "$tmp/r.jtr"
one_error "-o in a missing directory" "$JOBTOP" -w localhost -b -n 1 \
    -o /proc/none/r.jtr

# A cut recording: a warning line, the records before it, exit 0.  The
# writer puts about a second of frames in a block, so the run spans
# several seconds and the cut falls inside its last blocks.
"$JOBTOP" -w localhost -b --json -n 28 -d 0.25 -o "$tmp/long.jtr" \
    >/dev/null 2>&1 || fail "long recording run failed"
# A cut that falls between two blocks (about one position in 50 here)
# leaves whole blocks, as a monitor killed between two writes does: read
# without a word.  The byte before it is then inside a block: the cut is
# made there too, and one of the two must be the warned one.
size=$(stat -c %s "$tmp/long.jtr")
warned=
for at in $((size * 9 / 10)) $((size * 9 / 10 - 1)); do
	head -c "$at" "$tmp/long.jtr" >"$tmp/cut.jtr"
	"$JOBTOP" -r "$tmp/cut.jtr" -b --json >"$tmp/out" 2>"$tmp/err" ||
		fail "cut recording: exit status $?: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" -le 1 ] || fail "cut: $(cat "$tmp/err")"
	grep -q '"type":"node"' "$tmp/out" ||
		fail "cut at byte $at of $size replays no sample"
	if grep -q 'truncated at byte' "$tmp/err"; then
		warned=$at
		break
	fi
	[ ! -s "$tmp/err" ] || fail "cut: $(cat "$tmp/err")"
done
[ -n "$warned" ] || fail "cut at byte $((size * 9 / 10)) and the one \
before it of $size: no truncation said"
n=$(grep -c '"type":"node"' "$tmp/out")
[ "$n" -ge 1 ] && [ "$n" -lt 28 ] || fail "cut recording replays $n samples"
echo "ok"
