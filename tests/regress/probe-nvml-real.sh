#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-nvml-real: the nvgpu source against what a real driver wrote.
# tests/data/nvml/h100-580 holds the outputs of jobtop-nvml and nvidia-smi
# on an NVIDIA H100 (driver 580.159.04) under load, captured on a lent GPU
# machine (its README has the commands).  tests/data/nvml/replay.sh plays
# them back, as the helper and as nvidia-smi; the probe must decode every
# value into the protocol's units exactly (MiB to bytes, W to mW, the
# throttle mask, UUID and name, each process's pid, memory and SM
# utilization), through the helper and through the nvidia-smi fallback.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
CAP=$TOP/tests/data/nvml/h100-580

fail() { echo "FAIL: $*"; exit 1; }
[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -x "$JOBTOP" ] || fail "no monitor at $JOBTOP (run make)"
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-nvreal.XXXXXX") || exit 1
trap 'pkill -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

mkdir -p "$tmp/root/proc/driver/nvidia" "$tmp/root/usr/bin" "$tmp/bin"
cp "$CAP/driver-version" "$tmp/root/proc/driver/nvidia/version"
cp "$TOP/tests/data/nvml/replay.sh" "$tmp/root/usr/bin/nvidia-smi"
cp "$TOP/tests/data/nvml/replay.sh" "$tmp/bin/jobtop-nvml"
export REPLAY_DIR="$CAP"

# run NAME [--nvml HELPER]: 8 samples at 0.5 s, decoded to JSON lines.
run() {
	name=$1; shift
	"$PROBE" --root "$tmp/root" "$@" --interval 0.5 --count 8 \
	    </dev/null >"$tmp/$name.bin" 2>"$tmp/$name.err" ||
	    fail "probe ($name) exited $?: $(cat "$tmp/$name.err")"
	"$JOBTOP" --decode --json <"$tmp/$name.bin" >"$tmp/$name.json" \
	    2>"$tmp/$name.jerr" ||
	    fail "jobtop --decode --json ($name): $(cat "$tmp/$name.jerr")"
}

cat >"$tmp/check.py" <<'PY'
import json, sys
mode, path, cap = sys.argv[1], sys.argv[2], sys.argv[3]
MiB = 1048576
gpus, procs = [], []
if mode == "nvml":
    src = open(cap + "/jobtop-nvml.out").read().splitlines()
else:
    src = open(cap + "/nvidia-smi-stream.out").read().splitlines()
    src += ["proc, " + l + ", -" for l in
            open(cap + "/nvidia-smi-apps.out").read().splitlines()]
for l in src:
    f = [x.strip() for x in l.split(",")]
    if f[0] == "proc":
        procs.append((f[1], int(f[2]), int(f[3]) * MiB,
                      None if f[4] == "-" else int(f[4])))
    elif f[0] == "0":
        gpus.append(f)
want = {
    "gpu.util": {int(f[2]) for f in gpus},
    "gpu.mem_used": {int(f[3]) * MiB for f in gpus},
    "gpu.mem_total": {int(f[4]) * MiB for f in gpus},
    "gpu.power": {round(float(f[5]) * 1000) for f in gpus},
    "gpu.temp": {int(f[6]) for f in gpus},
    "gpu.clock": {int(f[7]) for f in gpus},
    "gpu.throttle": {int(f[8], 16) for f in gpus},
    "gpu.uuid": {f[1] for f in gpus},
    "gpu.name": {f[9] for f in gpus},
}
seen = {k: set() for k in want}
pseen = set()
n = 0
for line in open(path):
    r = json.loads(line)
    if r.get("type") != "node":
        continue
    n += 1
    for k in want:
        if k in r:
            seen[k].add(r[k]["0"])
    for key, pid in r.get("gpuproc.pid", {}).items():
        pseen.add((pid, r["gpuproc.mem_used"].get(key),
                   r.get("gpuproc.util", {}).get(key)))
bad = []
if n < 6:
    bad.append("only %d node records" % n)
for k in want:
    if not seen[k]:
        bad.append("%s never decoded" % k)
    elif not seen[k] <= want[k]:
        bad.append("%s: %s not among the driver's %s"
                   % (k, sorted(seen[k] - want[k]), sorted(want[k])))
if len(seen["gpu.power"]) < 2:
    bad.append("power did not move: %s" % seen["gpu.power"])
wp = {(p[1], p[2], p[3]) for p in procs}
if not pseen:
    bad.append("no GPU process decoded")
for p in pseen:
    if p not in wp:
        bad.append("process %s not among the driver's %s" % (p, wp))
for b in bad:
    print(mode + ": " + b)
print(mode + ": %d records, power %s, processes %s" %
      (n, sorted(seen["gpu.power"]), sorted(pseen, key=str)))
sys.exit(1 if bad else 0)
PY

run nvml --nvml "$tmp/bin/jobtop-nvml"
python3 "$tmp/check.py" nvml "$tmp/nvml.json" "$CAP" || fail "helper path"
grep -q '"nvgpu-backend".*NVML' "$tmp/nvml.json" ||
    fail "the helper was not the backend: $(grep nvgpu "$tmp/nvml.json")"

run smi
python3 "$tmp/check.py" smi "$tmp/smi.json" "$CAP" || fail "nvidia-smi path"
echo "ok: real H100 outputs decode exactly through the helper and nvidia-smi"
