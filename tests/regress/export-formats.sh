#!/bin/sh
# SPDX-License-Identifier: ISC
# export-formats: every export format keeps what the monitor knew, and the
# tools they are made for read them.
#  - a recording whose ranks raise "memory" (the probe on a fixture tree
#    with 4 MB of memory): export --json and -r -b --json carry the same
#    flags as the live run, and open with the job's meta record;
#  - tidy CSV: pandas (or, without it, csv) reads value as floats; words
#    in text; flags, events and states as rows; units (rank.utime %,
#    rank.cputime s, rank.start_time s);
#  - --wide and --wide=rank: one row per node or rank sample, every row
#    as long as the header (python3 csv);
#  - --sqlite: two jobs (this one and tests/data/rec's) merged into one
#    file, counts equal to the CSV's, the same job again refused with the
#    file unchanged;
#  - --openmetrics: promtool tsdb create-blocks-from openmetrics imports
#    it and promtool tsdb dump shows the flag and a metric;
#  - --begin/--end/--fields keep the window and the metrics; bad ones are
#    one line and status 1.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
REC=$TOP/tests/data/rec/v0.1.0-slurm-2node.jtr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
# Debian's python3, which has the python3-pandas that install-deps.sh
# installs (a pyenv python3 earlier on PATH does not).
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	[ "${CI:-}" = true ] && fail "$1 is not installed (tests/install-deps.sh)"
	echo "note: $1 is not installed: its part is skipped"
	return 1
}

# The fixture: four ranks of 4 MB on a node of 4.2 MB.
root=$tmp/root
mkdir -p "$root"
cp -R "$TOP/tests/data/fixtures/ranks-env/." "$root/" || fail "fixture"
printf 'MemTotal: 4200 kB\nMemFree: 100 kB\nMemAvailable: 150 kB\nBuffers: 0 kB\nCached: 0 kB\n' \
    >"$root/proc/meminfo"
printf '#!/bin/sh\nexec "%s" --root "%s" "$@"\n' "$PROBE" "$root" \
    >"$tmp/probe"
chmod +x "$tmp/probe"
JOBTOP_PROBE=$tmp/probe timeout 60 "$JOBTOP" -w localhost -b --json -n 6 \
    -d 0.2 -o "$tmp/m.jtr" >"$tmp/live" 2>"$tmp/err" </dev/null ||
	fail "fixture run: $(cat "$tmp/err")"
grep -q '"flags":\["memory"\]' "$tmp/live" ||
	fail "the live run raised no memory flag: $(head -c 300 "$tmp/live")"

# JSON: the flags as live.
"$JOBTOP" export "$tmp/m.jtr" --json -o "$tmp/e.json" 2>"$tmp/err" ||
	fail "export --json: $(cat "$tmp/err")"
"$JOBTOP" -r "$tmp/m.jtr" -b --json >"$tmp/r.json" 2>"$tmp/err" ||
	fail "-r -b --json: $(cat "$tmp/err")"
cmp -s "$tmp/e.json" "$tmp/r.json" || fail "export --json differs from -r -b --json"
"$PY" - "$tmp/live" "$tmp/e.json" <<'PY' || exit 1
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])]
exp = [json.loads(l) for l in open(sys.argv[2])]
if exp[0]["type"] != "meta" or exp[0]["nodes"] != ["localhost"] or \
        "user" not in exp[0] or exp[0]["interval"] != 0.2:
    sys.exit("FAIL: first record %r" % exp[0])
a = [r for r in live if r["type"] in ("node", "rank")]
b = [r for r in exp if r["type"] in ("node", "rank")]
if a != b:
    for x, y in zip(a, b):
        if x != y:
            sys.exit("FAIL: live %r\nexport %r" % (x, y))
    sys.exit("FAIL: %d live records, %d exported" % (len(a), len(b)))
u = [r for r in exp if r["type"] == "units"]
if len(u) != 1 or u[0]["units"].get("rank.utime") != "%" or \
        u[0]["units"].get("rank.cputime") != "s" or \
        exp.index(u[0]) > exp.index(b[0]):
    sys.exit("FAIL: units records %r" % u)
n = sum(1 for r in b if "memory" in r.get("flags", []))
if n == 0:
    sys.exit("FAIL: no flags in the export")
print("json: %d node and rank records as live, %d flagged" % (len(b), n))
PY

# Tidy CSV.
"$JOBTOP" export "$tmp/m.jtr" --csv -o "$tmp/t.csv" 2>"$tmp/err" ||
	fail "export --csv: $(cat "$tmp/err")"
pandas=0
if $PY -c 'import pandas' 2>/dev/null; then
	pandas=1
elif [ "${CI:-}" = true ]; then
	fail "python3-pandas is not installed (tests/install-deps.sh)"
else
	echo "note: python3-pandas is not installed: the CSV is read with csv"
fi
"$PY" - "$tmp/t.csv" $pandas <<'PY' || exit 1
import csv, sys
path, pandas = sys.argv[1], sys.argv[2] == "1"
if pandas:
    import pandas as pd
    df = pd.read_csv(path)
    if str(df["value"].dtype) != "float64":
        sys.exit("FAIL: pandas reads value as %s" % df["value"].dtype)
rows = list(csv.DictReader(open(path, newline="")))
for r in rows:
    if r["value"] != "":
        float(r["value"])
if pandas and df["value"].count() != sum(1 for r in rows if r["value"]):
    sys.exit("FAIL: pandas has %d values, csv %d" % (
        df["value"].count(), sum(1 for r in rows if r["value"])))
def fail(m):
    sys.exit("FAIL: " + m)
kinds = {r["record"] for r in rows}
for k in ("job", "node", "sample", "flag", "event", "state"):
    if k not in kinds:
        fail("no %s rows (%r)" % (k, sorted(kinds)))
flags = [r for r in rows if r["record"] == "flag"]
if not any(r["text"] == "memory" and r["pid"] for r in flags):
    fail("no rank memory flag row: %r" % flags[:2])
def unit(m):
    u = {r["unit"] for r in rows if r["metric"] == m}
    return u.pop() if len(u) == 1 else u
want = {"rank.utime": "%", "rank.cputime": "s", "rank.start_time": "s",
        "rank.rss": "bytes", "mem.total": "bytes"}
for m, u in want.items():
    if unit(m) != u:
        fail("%s unit %r, want %r" % (m, unit(m), u))
st = [r for r in rows if r["metric"] == "rank.state"]
if not st or any(r["value"] != "" or r["text"] == "" for r in st):
    fail("rank.state rows %r" % st[:2])
if any("[" in r["metric"] for r in rows):
    fail("an instance inside a metric name")
print("csv: %d rows (%s), value numeric, %d flag rows" %
      (len(rows), "pandas" if pandas else "csv", len(flags)))
PY

# Wide CSV.
"$JOBTOP" export "$REC" --wide -o "$tmp/w.csv" 2>"$tmp/err" ||
	fail "export --wide: $(cat "$tmp/err")"
"$JOBTOP" export "$tmp/m.jtr" --csv --wide=rank -o "$tmp/wr.csv" \
    2>"$tmp/err" || fail "export --wide=rank: $(cat "$tmp/err")"
"$JOBTOP" export "$REC" --json | grep -c '"type":"node"' >"$tmp/nnode"
"$PY" - "$tmp/w.csv" "$tmp/wr.csv" "$(cat "$tmp/nnode")" <<'PY' || exit 1
import csv, sys
w = list(csv.reader(open(sys.argv[1], newline="")))
wr = list(csv.reader(open(sys.argv[2], newline="")))
if w[0][:5] != ["job", "time", "seq", "node", "flags"] or \
        "mem.total (bytes)" not in w[0]:
    sys.exit("FAIL: wide header %r" % w[0][:8])
if len(w) - 1 != int(sys.argv[3]):
    sys.exit("FAIL: %d wide rows, %s node samples" % (len(w) - 1, sys.argv[3]))
if any(len(r) != len(w[0]) for r in w) or \
        any(len(r) != len(wr[0]) for r in wr):
    sys.exit("FAIL: a row not as long as its header")
i = w[0].index("mem.total (bytes)")
[float(r[i]) for r in w[1:]]
if wr[0][:7] != ["job", "time", "seq", "node", "rank", "pid", "flags"]:
    sys.exit("FAIL: rank header %r" % wr[0][:8])
if not any(r[6] == "memory" for r in wr[1:]):
    sys.exit("FAIL: no flagged rank row")
print("wide: %d node rows x %d columns, %d rank rows" %
      (len(w) - 1, len(w[0]), len(wr) - 1))
PY

# SQLite: two jobs in one file.
if need sqlite3; then
	db=$tmp/jobs.db
	"$JOBTOP" export "$REC" --sqlite "$db" 2>"$tmp/err" ||
		fail "export --sqlite: $(cat "$tmp/err")"
	"$JOBTOP" export "$tmp/m.jtr" --sqlite "$db" 2>"$tmp/err" ||
		fail "export --sqlite (second job): $(cat "$tmp/err")"
	before=$(sqlite3 "$db" 'SELECT count(*) FROM samples')
	"$JOBTOP" export "$REC" --sqlite "$db" 2>"$tmp/err" &&
		fail "the same job twice was accepted"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'already there' "$tmp/err" ||
		fail "the same job twice: $(cat "$tmp/err")"
	[ "$(sqlite3 "$db" 'SELECT count(*) FROM samples')" = "$before" ] ||
		fail "a refused export changed the database"
	"$JOBTOP" export "$REC" --csv -o "$tmp/rec.csv" 2>"$tmp/err" ||
		fail "export --csv: $(cat "$tmp/err")"
	want1=$(grep -c '^sample,' "$tmp/rec.csv")
	want2=$(grep -c '^sample,' "$tmp/t.csv")
	wantf=$(grep -c '^flag,' "$tmp/t.csv")
	got=$(sqlite3 -separator ' ' "$db" "
	    SELECT count(*) FROM job;
	    SELECT (SELECT count(*) FROM samples WHERE job_id='1') +
	        (SELECT count(*) FROM ranks WHERE job_id='1');
	    SELECT (SELECT count(*) FROM samples WHERE job_id<>'1') +
	        (SELECT count(*) FROM ranks WHERE job_id<>'1');
	    SELECT count(*) FROM flags WHERE flag='memory';
	    SELECT count(*) FROM nodes WHERE ncpu > 0;
	    SELECT user FROM job WHERE job_id='1';
	    SELECT typeof(value) FROM samples WHERE metric='cpu.busy' LIMIT 1;" |
	    tr '\n' ' ')
	[ "$got" = "2 $want1 $want2 $wantf 3 jtuser real " ] ||
		fail "sqlite counts '$got', want '2 $want1 $want2 $wantf 3 jtuser real '"
	echo "sqlite: 2 jobs, $want1 + $want2 values, $wantf flags"
fi

# OpenMetrics through promtool.
if need promtool; then
	"$JOBTOP" export "$tmp/m.jtr" --openmetrics -o "$tmp/m.om" \
	    2>"$tmp/err" || fail "export --openmetrics: $(cat "$tmp/err")"
	tail -1 "$tmp/m.om" | grep -qx '# EOF' || fail "no # EOF"
	grep -q '^# UNIT jobtop_mem_total_bytes bytes$' "$tmp/m.om" ||
		fail "no # UNIT for mem.total"
	promtool tsdb create-blocks-from openmetrics "$tmp/m.om" "$tmp/tsdb" \
	    >"$tmp/prom" 2>&1 || fail "promtool refused it: $(tail -3 "$tmp/prom")"
	# dump opens the directory as a live TSDB: it wants a WAL there.
	mkdir -p "$tmp/tsdb/wal"
	promtool tsdb dump "$tmp/tsdb" >"$tmp/dump" 2>&1 ||
		fail "promtool tsdb dump: $(tail -3 "$tmp/dump")"
	grep -q '__name__="jobtop_flag".*flag="memory"' "$tmp/dump" ||
		fail "no flag series in the dump: $(head -3 "$tmp/dump")"
	grep -q '__name__="jobtop_rank_rss_bytes".*pid="3001"' "$tmp/dump" ||
		fail "no rank.rss series in the dump"
	want=$(grep -c '^jobtop_' "$tmp/m.om")
	got=$(grep -c . "$tmp/dump")
	[ "$got" -eq "$want" ] || fail "promtool holds $got samples of $want"
	echo "openmetrics: promtool imported $got samples"
fi

# The window and the fields.
"$JOBTOP" export "$REC" --csv --begin +0.5s --end -0.5s \
    --fields 'cpu.*,rank.cpu' -o "$tmp/win.csv" 2>"$tmp/err" ||
	fail "export --begin --end --fields: $(cat "$tmp/err")"
"$JOBTOP" export "$REC" --json --fields 'mem.used' --end +1s >"$tmp/win.json" \
    2>"$tmp/err" || fail "export --json --fields: $(cat "$tmp/err")"
"$PY" - "$tmp/win.csv" "$tmp/rec.csv" "$tmp/win.json" <<'PY' || exit 1
import csv, json, sys
win = [r for r in csv.DictReader(open(sys.argv[1])) if r["record"] == "sample"]
full = list(csv.DictReader(open(sys.argv[2])))
meta = {r["metric"]: float(r["value"]) for r in full if r["record"] == "job"
        and r["value"]}
t0, t1 = meta["start"] + 0.5, meta["end"] - 0.5
if not win or any(not t0 <= float(r["time"]) <= t1 for r in win):
    sys.exit("FAIL: rows outside [%.3f, %.3f]" % (t0, t1))
ms = {r["metric"] for r in win}
if not ms or any(not (m.startswith("cpu.") or m == "rank.cpu") for m in ms):
    sys.exit("FAIL: metrics %r" % sorted(ms))
n = [r for r in full if r["record"] == "sample" and
     (r["metric"].startswith("cpu.") or r["metric"] == "rank.cpu") and
     t0 <= float(r["time"]) <= t1]
if len(n) != len(win):
    sys.exit("FAIL: %d rows in the window, want %d" % (len(win), len(n)))
recs = [json.loads(l) for l in open(sys.argv[3])]
nodes = [r for r in recs if r["type"] == "node"]
if not nodes or any(set(r) - {"time", "node", "type", "seq", "flags",
                              "mem.used"} for r in nodes):
    sys.exit("FAIL: json node record %r" % nodes[:1])
if any(r["time"] > meta["start"] + 1.0005 for r in nodes):
    sys.exit("FAIL: json after --end")
print("window: %d rows of %s" % (len(win), sorted(ms)))
PY
for bad in "--begin 25:00" "--end +5x" "--begin -1s --end +0s" \
    "--fields cpu.*,,mem.used" "--fields cpu;rm" "--csv --json" \
    "--wide=cols"; do
	# shellcheck disable=SC2086
	"$JOBTOP" export "$REC" $bad -o "$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err" &&
		fail "export $bad was accepted"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "export $bad: $(cat "$tmp/err")"
	[ -e "$tmp/bad.csv" ] && fail "export $bad wrote a file"
done
echo "bad windows and fields: one line each"
exit 0
