#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The cost of COMM%'s symbol resolution (the collective code that libtorch
# embeds, found by the symbol of a sample's address: probes/elfsym.c): the
# probe's CPU time per sample with it on against the same run with it off
# (JOBTOP_COMM_SYMBOLS=0; the mpi source samples in both), at 8 workers on
# this node: real torch.distributed workers (Debian's python3-torch, gloo
# over TCP on 127.0.0.1, tests/data/torch/allreduce.py with some compute
# between all-reduces) under nice 19.  CPU per sample is the difference
# between a long and a short run of the probe at -d 0.1 (start-up, which
# includes reading the symbols once, cancels out), median of REPS runs each
# way, interleaved.  Printed: both figures, their ratio (target <= 1.20)
# and the symbol cache's memory (the probe's mpi-symbols event); then, on
# libtorch_cpu itself, the one-off reading of its ranges and the cost of
# one lookup (tests/bench/elfsym-lookup.c: what a sample there costs,
# apart from the rest of the probe's noise).  REPS
# (default 5), N1 and N2 (samples of the short and long runs, default 20
# and 120) may be lowered for a brief run on a loaded machine.
set -eu
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
PROBE=${PROBE:-$TOP/jobtop-probe}
JOBTOP=${JOBTOP:-$TOP/jobtop}
FLOOR=$TOP/build/tests/bench/floor
PY=/usr/bin/python3
[ -x "$PROBE" ] && [ -x "$FLOOR" ] || { echo "build first: make tests-build"; exit 1; }
"$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' \
    2>/dev/null || { echo "no python3-torch with gloo"; exit 1; }
tmp=$(mktemp -d)
pids=()
cleanup() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

N=8 JOB=990608
: "${N1:=20}" "${N2:=120}" "${REPS:=5}"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
probe_cpu() {	# samples -> cpu us
	"$FLOOR" run "$PROBE" --job $JOB --interval 0.1 --count "$1" \
	    </dev/null 2>&1 >"$tmp/out.$1.${JOBTOP_COMM_SYMBOLS:-1}" |
	    tail -n 1 | cut -d' ' -f1
}

port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for r in $(seq 0 $((N - 1))); do
	SLURM_JOB_ID=$JOB RANK=$r LOCAL_RANK=$r WORLD_SIZE=$N \
	    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port OMP_NUM_THREADS=1 \
	    GLOO_SOCKET_IFNAME=lo ALLREDUCE_WORK=${ALLREDUCE_WORK:-20} \
	    nice -n 19 "$PY" "$TOP/tests/data/torch/allreduce.py" "$tmp" \
	    >"$tmp/w$r.log" 2>&1 &
	pids+=($!)
done
for i in $(seq 600); do
	[ "$(ls "$tmp" | grep -c '^rank\.[0-9]*$')" -lt $N ] || break
	sleep 0.5
done
[ "$(ls "$tmp" | grep -c '^rank\.[0-9]*$')" -eq $N ] ||
    { echo "the workers did not start: $(tail -2 "$tmp"/w0.log)"; exit 1; }

for r in $(seq "$REPS"); do
	a=$(probe_cpu "$N1"); b=$(probe_cpu "$N2")
	echo "on $((b - a))"
	a=$(JOBTOP_COMM_SYMBOLS=0 probe_cpu "$N1")
	b=$(JOBTOP_COMM_SYMBOLS=0 probe_cpu "$N2")
	echo "off $((b - a))"
done >"$tmp/runs"
read -r on off < <(for k in on off; do
	grep "^$k " "$tmp/runs" | cut -d' ' -f2 | median |
	    awk -v n=$((N2 - N1)) '{printf "%.1f ", $1 / n}'
done; echo)
"$JOBTOP" --decode --json <"$tmp/out.$N2.1" >"$tmp/on.json"
read -r mem sym hz < <("$PY" - "$tmp/on.json" <<'PY'
import json, re, sys
mem, sym, hz = "-", 0, set()
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("type") == "event" and r.get("code") == "mpi-symbols":
        m = re.search(r"symbol cache (\d+) bytes", r.get("text", ""))
        mem = m.group(1) if m else mem
    sym += sum(r.get("rankmpi.symbol", {}).values()) if isinstance(
        r.get("rankmpi.symbol"), dict) else 0
    if isinstance(r.get("rankmpi.hz"), dict):
        hz.update(r["rankmpi.hz"].values())
print(mem, "%.0f" % sym, "/".join(str(h) for h in sorted(hz)) or "-")
PY
)
ratio=$(awk -v a="$on" -v b="$off" 'BEGIN {printf "%.2f", a / b}')
printf 'probe cpu per sample, %d gloo workers: symbol resolution on %s us, off %s us; ratio %s (target <= 1.20); symbol cache %s bytes; samples resolved by symbol %s (rates summed); rate %s Hz\n' \
    "$N" "$on" "$off" "$ratio" "$mem" "$sym" "$hz"
lib=$(PYTHONPATH= "$PY" - <<'PY'
import glob, os
for p in glob.glob("/usr/lib/*/libtorch_cpu.so*") + glob.glob("/usr/lib/python3/dist-packages/torch/lib/libtorch_cpu.so"):
    print(os.path.realpath(p)); break
PY
)
LOOKUP=$TOP/build/tests/bench/elfsym-lookup
if [ -n "$lib" ] && [ -x "$LOOKUP" ]; then
	read -r _ nr _ nb _ pms _ lns _ < <("$LOOKUP" "$lib")
	printf 'symbols of %s: %s function ranges, %s bytes, read in %s ms (once a file); %s ns a lookup (a sample there)\n' \
	    "$lib" "$nr" "$nb" "$pms" "$lns"
fi
awk -v r="$ratio" 'BEGIN {exit !(r <= 1.2)}' || { echo "MISS"; exit 1; }
