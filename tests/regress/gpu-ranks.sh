#!/bin/sh
# SPDX-License-Identifier: ISC
# gpu-ranks: GPUs tied to ranks, and gpu-idle (issue 24, item 4), end to
# end on this machine without a GPU.  Real local processes are the ranks
# of a fake job 7700 (SLURM_JOB_ID, SLURM_PROCID, SLURM_JOB_GPUS=0,1 and
# CUDA_VISIBLE_DEVICES naming GPU 0 and a MIG instance of GPU 1); the fake NVML
# (tests/data/nvml/fake-nvml.c through jobtop-nvml) lists two GPUs and
# one compute process: rank 0's pid on GPU 0 (37% SM, 1 GiB).  The probe
# GPU 1 is in MIG mode with two instances.  The probe
# runs under a root whose dev/nvidiactl says "driver here" and whose proc
# is the real /proc.  jobtop -w localhost -b --json must show:
#  - the GPUs marked allocated (gpu.alloc 1 on both), GPU 1's MIG
#    instances listed (gpumig: ids, memory, UUID, name);
#  - rank 0's record carrying GPU 0 with its SM % and memory, rank 1's
#    none;
#  - a gpu-idle event for GPU 1 of the node after 5 samples, and the
#    flag "gpu-idle" on the node's records from then; none for GPU 0;
#  - the event in the recording, and in the verdict of the report; the
#    export's node records flagged gpu-idle where the live run's were.
# Then rank 1 starts using GPU 1 (the fake's process list changes): the
# flag is cleared.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
NVML=${NVML:-$TOP/jobtop-nvml}
FAKELIB=$TOP/build/tests/nvml

fail() {
	echo "FAIL: $*"
	exit 1
}
skip() {
	echo "$*"
	exit 77
}
[ -x "$JOBTOP" ] && [ -x "$PROBE" ] && [ -x "$NVML" ] ||
	fail "jobtop, jobtop-probe or jobtop-nvml not built (make)"
[ -f "$FAKELIB/libnvidia-ml.so.1" ] ||
	fail "no fake NVML library in $FAKELIB (make tests-build)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-gpuranks.XXXXXX") || exit 1
r0= r1= jt=
cleanup() {
	for p in $jt $r0 $r1; do
		kill "$p" 2>/dev/null
	done
	[ -f "$tmp/nvml/log" ] && for p in $(cat "$tmp/nvml/log"); do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# The ranks: two real processes of job 7700.
# GPU 1 is in MIG mode, so Slurm's indexes count MIG instances and are
# not used: the UUIDs of CUDA_VISIBLE_DEVICES (GPU 0 and an instance of
# GPU 1) say which GPUs are the job's.
cvd=GPU-5f3e4d2c-1a2b-3c4d-5e6f-708192a3b4c5,MIG-11111111-2222-3333-4444-555555555555
env SLURM_JOB_ID=7700 SLURM_PROCID=0 SLURM_JOB_GPUS=0,1 \
    CUDA_VISIBLE_DEVICES=$cvd sleep 120 &
r0=$!
env SLURM_JOB_ID=7700 SLURM_PROCID=1 SLURM_JOB_GPUS=0,1 \
    CUDA_VISIBLE_DEVICES=$cvd sleep 120 &
r1=$!

mkdir -p "$tmp/root/dev" "$tmp/nvml"
: >"$tmp/root/dev/nvidiactl"
ln -s /proc "$tmp/root/proc"
cat >"$tmp/nvml/gpus" <<'EOF'
GPU-5f3e4d2c-1a2b-3c4d-5e6f-708192a3b4c5|NVIDIA H100 80GB HBM3|37|1293942784|85520809984|69543|33|1980|4
GPU-0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0|NVIDIA H100 80GB HBM3|0|0|85520809984|60000|30|1755|0
EOF
printf '0|%s|1073741824|37\n' "$r0" >"$tmp/nvml/procs"
# GPU 1 is in MIG mode with two instances (the fake's nvmlDeviceGetMigMode
# and MIG device handles).
cat >"$tmp/nvml/mig" <<'EOF'
1|1|0|MIG-11111111-2222-3333-4444-555555555555|536870912|20937965568|NVIDIA H100 80GB HBM3 MIG 2g.20gb
1|2|0|MIG-66666666-2222-3333-4444-555555555555|0|10468982784|NVIDIA H100 80GB HBM3 MIG 1g.10gb
EOF
printf '#!/bin/sh\nexec "%s" --job 7700 --root "%s" "$@"\n' "$PROBE" \
    "$tmp/root" >"$tmp/probe"
chmod +x "$tmp/probe"

JOBTOP_PROBE=$tmp/probe JOBTOP_NVML=$NVML JOBTOP_FAKE_NVML=$tmp/nvml \
    LD_LIBRARY_PATH=$FAKELIB XDG_STATE_HOME=$tmp/state \
    "$JOBTOP" -w localhost -b --json -d 0.3 -n 30 -o "$tmp/rec.jtr" \
    >"$tmp/out" 2>"$tmp/err" &
jt=$!
# After 12 samples rank 1 takes GPU 1.
i=0
until [ "$(grep -c '"type":"node"' "$tmp/out")" -ge 12 ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "no 12 samples: $(tail -3 "$tmp/err")"
	sleep 0.05
done
printf '0|%s|1073741824|37\n1|%s|2097152|5\n' "$r0" "$r1" \
    >"$tmp/nvml/procs.new"
mv "$tmp/nvml/procs.new" "$tmp/nvml/procs"
wait "$jt" || fail "jobtop exited $?: $(cat "$tmp/err")"
jt=

python3 - "$tmp/out" "$r0" "$r1" <<'PY' || fail "the records (in $tmp/out)"
import json, sys
path, r0, r1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
recs = [json.loads(l) for l in open(path) if l.startswith("{")]
def fail(m):
    print("FAIL: " + m); sys.exit(1)
nodes = [r for r in recs if r["type"] == "node"]
alloc = [r.get("gpu.alloc") for r in nodes if r.get("gpu.alloc")]
if not alloc or alloc[-1] != {"0": 1, "1": 1}:
    fail("gpu.alloc: %s" % alloc[-3:])
mig = [r for r in nodes if r.get("gpumig.gi")]
if not mig or mig[-1]["gpumig.gi"] != {"1:1": 1, "1:2": 2} or \
        mig[-1]["gpumig.mem_total"]["1:1"] != 19968 << 20 or \
        mig[-1]["gpumig.name"]["1:2"] != "NVIDIA H100 80GB HBM3 MIG 1g.10gb" \
        or mig[-1]["gpumig.uuid"]["1:1"] != \
        "MIG-11111111-2222-3333-4444-555555555555":
    fail("MIG instances: %s" % {k: v for k, v in (mig or [{}])[-1].items()
                                if k.startswith("gpumig")})
ranks = [r for r in recs if r["type"] == "rank"]
g0 = [r.get("gpus") for r in ranks if r["pid"] == r0]
g1 = [r.get("gpus") for r in ranks if r["pid"] == r1]
if not g0 or g0[-1] != [{"gpu": 0, "util": 37, "mem_used": 1073741824}]:
    fail("rank 0's GPUs: %s" % g0[-3:])
if not g1 or g1[0] is not None:
    fail("rank 1 had a GPU from the start: %s" % g1[:3])
if g1[-1] != [{"gpu": 1, "util": 5, "mem_used": 2097152}]:
    fail("rank 1's GPU once it used one: %s" % g1[-3:])
if [r for r in ranks if r["pid"] == r0][-1].get("rank") != 0:
    fail("the process is not rank 0")
ev = [r for r in recs if r["type"] == "event" and
      r.get("code", "").startswith("gpu-idle")]
if len(ev) != 2 or ev[0]["code"] != "gpu-idle" or \
        ev[1]["code"] != "gpu-idle-cleared":
    fail("gpu-idle events: %s" % ev)
if "GPU 1 is allocated to the job but no rank used it for 5 samples" \
        not in ev[0]["text"] or ev[0]["node"] != "localhost":
    fail("gpu-idle text: %s" % ev[0])
if "GPU 0" in json.dumps(ev):
    fail("GPU 0 flagged: %s" % ev)
# The flag on the node records between the two events, and only there.
t0, t1 = ev[0]["time"], ev[1]["time"]
flagged = [r["time"] for r in nodes if "gpu-idle" in r.get("flags", [])]
if not flagged or min(flagged) < t0 - 0.001 or max(flagged) > t1:
    fail("gpu-idle flag times %s, events %s-%s" % (flagged[:3], t0, t1))
before = [r for r in nodes if r["time"] <= t0 + 0.001]
if len(before) < 5:
    fail("flagged after %d samples" % len(before))
print("ok: rank 0 on GPU 0 (37%%, 1 GiB); GPU 1 idle after %d samples, "
      "cleared when rank 1 took it" % len(before))
PY

"$JOBTOP" export "$tmp/rec.jtr" --json -o "$tmp/rec.json" 2>"$tmp/err" ||
	fail "export: $(cat "$tmp/err")"
grep -q '"code":"gpu-idle","text":"localhost GPU 1 is allocated' \
    "$tmp/rec.json" || fail "no gpu-idle event in the recording"
# The export's node records carry the flags the live run printed, gpu-idle
# among them: it drives the same monitor core (an export that assembled
# its own detectors had no GPU detector, and no gpu-idle).
python3 - "$tmp/out" "$tmp/rec.json" <<'PY' || fail "export's flags differ from the live run's"
import json, sys
def flags(path):
    return [(r["time"], r.get("flags", [])) for r in
            (json.loads(l) for l in open(path) if l.startswith("{"))
            if r["type"] == "node"]
live, exp = flags(sys.argv[1]), flags(sys.argv[2])
n = sum(1 for t, f in live if "gpu-idle" in f)
if live != exp or n == 0:
    print("FAIL: %d live node records (%d with gpu-idle), %d exported; "
          "first difference: %s" % (len(live), n, len(exp),
          [(a, b) for a, b in zip(live, exp) if a != b][:2]))
    sys.exit(1)
print("ok: export's %d node records flagged as live (%d gpu-idle)" %
      (len(exp), n))
PY
"$JOBTOP" report "$tmp/rec.jtr" -o "$tmp/r.html" 2>"$tmp/err" ||
	fail "report: $(cat "$tmp/err")"
grep -Eq "Idle GPUs</th><td>localhost GPU 1 idle [0-9.]+ s: allocated to the job, no rank used it" "$tmp/r.html" ||
	fail "the report's verdict does not name the idle GPU"
echo "ok: gpu-idle in the recording and the report"
