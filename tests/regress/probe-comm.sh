#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-comm: COMM%, the share of each rank's CPU time in its
# communication library, for a torch.distributed job (Debian's
# python3-torch, CPU, gloo over TCP on 127.0.0.1) on this machine.
#
# Three workers (tests/data/torch/allreduce.py) started as torchrun
# starts them (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)
# all-reduce a tensor in a loop.  Then:
#  1. the probe (--job, as root), 20 samples: every worker's rankmpi
#     instance names the family "gloo" on every sample after the first
#     two; its median share over the samples with one is above 0; the
#     library most samples fell in is gloo's (Debian's libgloo, or gloo /
#     c10d resolved by symbol inside libtorch); the probe read the symbols
#     of libtorch_cpu (an mpi-symbols event with a nonzero count of
#     function ranges: the ELF parser on the real file);
#  2. jobtop in batch mode on the job (its variables, localhost), 12 to
#     40 samples recorded: the rank records carry rankmpi.family "gloo"
#     and a share, and `jobtop export --csv` of the recording has the
#     rankmpi.family column with gloo in it, and its OpenMetrics export
#     labels the share comm="gloo";
#  3. that recording replayed in the monitor (tmux, when installed): the
#     rank table's COMM% column shows a share with the family ("100
#     gloo") while it plays, and the header names COMM.
# Skips (77) without /usr/bin/python3 with torch.distributed and gloo.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
PY=/usr/bin/python3
JOB=990416

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-comm.XXXXXX") || exit 1
chmod 755 "$tmp"
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	[ -z "${sock:-}" ] || tmux -L "$sock" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
"$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' \
    2>/dev/null || { echo "no python3-torch with gloo"; exit 77; }
port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for r in 0 1 2; do
	SLURM_JOB_ID=$JOB RANK=$r LOCAL_RANK=$r WORLD_SIZE=3 \
	    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port OMP_NUM_THREADS=1 \
	    GLOO_SOCKET_IFNAME=lo "$PY" "$TOP/tests/data/torch/allreduce.py" \
	    "$tmp" >"$tmp/w$r.log" 2>&1 &
	pids="$pids $!"
done
i=0
while [ ! -f "$tmp/rank.0" ] || [ ! -f "$tmp/rank.1" ] ||
    [ ! -f "$tmp/rank.2" ]; do
	i=$((i + 1))
	[ $i -le 240 ] || fail "the workers did not start: $(tail -3 "$tmp"/w*.log)"
	sleep 0.5
done

cat >"$tmp/check.py" <<'PY'
import json, statistics, sys
mode, path, d = sys.argv[1:4]
want = {}
for r in range(3):
    rank, pid = open("%s/rank.%d" % (d, r)).read().split()
    want[pid] = int(rank)
recs, ranks, events = [], [], []
for line in open(path):
    if line.startswith("{"):
        r = json.loads(line)
        t = r.get("type")
        if t == "node":
            recs.append(r)
        elif t == "rank":
            ranks.append(r)
        elif t == "event":
            events.append(r)
bad = []
GLOO = ("libgloo", "gloo", "c10d")
if mode == "probe":
    for pid, rank in sorted(want.items()):
        fam = [r.get("rankmpi.family", {}).get(pid) for r in recs[2:]]
        sh = [r["rankmpi.share"][pid] for r in recs[2:]
              if pid in r.get("rankmpi.share", {})]
        libs = {r["rankmpi.lib"][pid] for r in recs
                if pid in r.get("rankmpi.lib", {})}
        sym = sum(r.get("rankmpi.symbol", {}).get(pid, 0) for r in recs[1:])
        print("rank %d (pid %s): shares %s, libs %s, by symbol %.0f/s summed"
              % (rank, pid, sh, sorted(libs), sym))
        if not fam or any(f != "gloo" for f in fam):
            bad.append("rank %d: family %r" % (rank, fam))
        if len(sh) < 3 or not statistics.median(sh) > 0:
            bad.append("rank %d: shares %r" % (rank, sh))
        if not libs or not libs <= set(GLOO):
            bad.append("rank %d: libs %r" % (rank, libs))
    ev = [e for e in events if e.get("code") == "mpi-symbols"]
    print("events: %s" % [e.get("text") for e in ev])
    if not any("libtorch_cpu" in e.get("text", "") and
               " 0 function" not in e.get("text", "") and
               "function ranges" in e.get("text", "") for e in ev):
        bad.append("no symbols read from libtorch_cpu: %r" % ev)
elif mode == "jobtop":
    mine = [r for r in ranks if str(r.get("pid")) in want]
    fams = {(r.get("rank"), r.get("rankmpi.family")) for r in mine}
    if {f for _, f in fams} != {"gloo"} or \
       {r for r, _ in fams} != {0, 1, 2}:
        bad.append("rank records' families %r" % sorted(fams, key=str))
    if not any("rankmpi.share" in r for r in mine):
        bad.append("no rank record has rankmpi.share")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY

# 1. The probe.
"$PROBE" --job $JOB --interval 1 --count 20 </dev/null >"$tmp/p.bin" \
    2>"$tmp/p.err" || fail "probe exited $?: $(cat "$tmp/p.err")"
"$JOBTOP" --decode --json <"$tmp/p.bin" >"$tmp/p.json" ||
    fail "cannot decode the probe's output"
"$PY" "$tmp/check.py" probe "$tmp/p.json" "$tmp" ||
    fail "COMM% of the gloo workers (probe)"

# 2. jobtop, its recording and the export.  A worker that waits for TCP
# in the kernel is sampled only in its moments in user space: at the
# sampler's lowest rate, on a loaded machine, an interval often holds no
# sample of it (the probe above saw a share in half of its samples), and
# once 12 samples of jobtop held none (a full run beside the lab).  So
# jobtop runs until a rank record has a share, 12 samples at least and 40
# at most, and is then ended with SIGTERM (its recording is complete).
SLURM_JOB_ID=$JOB SLURM_JOB_NODELIST=localhost "$JOBTOP" -b --json -n 40 \
    -o "$tmp/rec.jtr" >"$tmp/j.json" 2>"$tmp/j.err" &
jt=$!
n=0
while kill -0 "$jt" 2>/dev/null; do
	sleep 1
	n=$((n + 1))
	if [ $n -ge 12 ] && "$PY" "$tmp/check.py" jobtop "$tmp/j.json" \
	    "$tmp" >/dev/null 2>&1; then
		kill -TERM "$jt"
		break
	fi
done
wait "$jt"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 143 ] ||
    fail "jobtop exited $rc: $(cat "$tmp/j.err")"
"$PY" "$tmp/check.py" jobtop "$tmp/j.json" "$tmp" ||
    fail "rank records of the gloo workers"
"$JOBTOP" export "$tmp/rec.jtr" --csv -o "$tmp/e.csv" 2>"$tmp/e.err" ||
    fail "export: $(cat "$tmp/e.err")"
grep -q 'rankmpi.family' "$tmp/e.csv" && grep -q 'gloo' "$tmp/e.csv" ||
    fail "the CSV export has no rankmpi.family gloo: $(head -c 300 "$tmp/e.csv")"
"$JOBTOP" export "$tmp/rec.jtr" --openmetrics -o "$tmp/e.om" 2>"$tmp/e.err" ||
    fail "export: $(cat "$tmp/e.err")"
grep -q '^jobtop_rankmpi_share_percent{.*comm="gloo"} ' "$tmp/e.om" ||
    fail "the OpenMetrics export has no share labelled comm=\"gloo\""

# 3. The monitor shows it.
if command -v tmux >/dev/null 2>&1; then
	sock=jt-comm-$$
	UI_TMUX="tmux -L $sock" UI_WIN=c0
	. "$TOP/tests/lib/ui.sh"
	tmux -L "$sock" new-session -d -s c0 -x 160 -y 40 \
	    "env TZ=UTC LANG=C.UTF-8 $JOBTOP -r $tmp/rec.jtr; sleep 600"
	ui_wait 10 '^localhost +live ' || fail "no localhost row in the replay"
	ui_keys Enter
	ui_wait 15 ' COMM% .*COMMAND' '^ +[0-2] localhost +[0-9]+ .* [0-9]+ gloo ' ||
	    ui_fail "no COMM% column with a cell naming gloo"
	ui_wait 5 '^COMM +[0-9.]+%' || ui_fail "no COMM in the header"
fi
echo "ok"
exit 0
