#!/bin/sh
# SPDX-License-Identifier: ISC
# gpu-alloc: which of a node's GPUs the probe marks allocated to the job
# (gpu.alloc) from its ranks' environment, and each GPU's device minor
# (gpu.minor) from the driver's /proc/driver/nvidia/gpus/BUS/information
# (issue 24, item 4).  A fixture root: the fake nvidia-smi of nvgpu-basic
# (GPU 0 and GPU 1), one rank of job 123 (a copy of ranks-env's pid 3007)
# whose environment each case writes, and information files whose minors
# each case sets.  The rules (probes/src-nvgpu.c, jobtop(1) GPUS):
#  - Slurm's SLURM_STEP_GPUS/SLURM_JOB_GPUS are taken as NVML indexes when
#    every known minor equals its GPU's index;
#  - with a minor that differs (a hand-written gres.conf numbers GPUs by
#    /dev/nvidiaN, NVML by PCI bus) they are not used, nor are the numbers
#    of CUDA_VISIBLE_DEVICES under Slurm (numbered from 0 within the job
#    under ConstrainDevices): no gpu.alloc at all rather than a guess;
#  - GPU UUIDs in CUDA_VISIBLE_DEVICES are used whatever the minors; a
#    list with items that cannot be told marks only the GPUs it names;
#  - outside Slurm (a PBS job here) its numbers are the node's indexes.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures

fail() {
	echo "FAIL: $*"
	exit 1
}
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 77; }
[ -x "$JOBTOP" ] && [ -x "$PROBE" ] || fail "jobtop or jobtop-probe not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-gpualloc.XXXXXX") || exit 1
cleanup() {
	[ -f "$tmp/root/nvsmi/log" ] && for p in $(awk '{ print $1 }' \
	    "$tmp/root/nvsmi/log"); do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

root=$tmp/root
mkdir -p "$root/proc/driver/nvidia/gpus" "$root/nvsmi"
cp -r "$FIX/nvgpu-basic/usr" "$root/"
cp "$FIX/nvgpu-basic/nvsmi/gpus" "$FIX/nvgpu-basic/nvsmi/apps" "$root/nvsmi/"
cp "$FIX/nvgpu-basic/proc/driver/nvidia/version" "$root/proc/driver/nvidia/"
cp -r "$FIX/ranks-env/proc/3007" "$FIX/ranks-env/proc/loadavg" \
    "$FIX/ranks-env/proc/sys" "$root/proc/"
u0=GPU-5f3e4d2c-1a2b-3c4d-5e6f-708192a3b4c5
u1=GPU-0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0

# info BUS MINOR UUID: one GPU's information file, as the driver writes it
# (kernel-open/nvidia/nv-procfs.c).
info() {
	mkdir -p "$root/proc/driver/nvidia/gpus/$1"
	printf 'Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 150\nGPU UUID: \t %s\nVideo BIOS: \t 96.00.74.00.0d\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\nBus Location: \t %s\nDevice Minor: \t %s\nGPU Excluded:\t No\n' \
	    "$3" "$1" "$2" >"$root/proc/driver/nvidia/gpus/$1/information"
}
# env VAR=VALUE...: the rank's environment.
renv() {
	printf 'PATH=/usr/bin:/bin\0USER=alice\0' >"$root/proc/3007/environ"
	for kv in "$@"; do
		printf '%s\0' "$kv" >>"$root/proc/3007/environ"
	done
}
# run NAME WANT_ALLOC WANT_MINOR: the last sample's gpu.alloc and gpu.minor
# ("-" for none at all).
run() {
	"$PROBE" --root "$root" --job "$jobid" --interval 0.2 --count 4 \
	    </dev/null 2>"$tmp/$1.perr" | "$JOBTOP" --decode --json \
	    >"$tmp/$1.json" 2>"$tmp/$1.err" ||
		fail "$1: probe | jobtop --decode failed: $(cat "$tmp/$1.err")"
	python3 - "$tmp/$1.json" "$1" "$2" "$3" <<'PY' || exit 1
import json, sys
path, name, want_a, want_m = sys.argv[1:]
last = {}
for l in open(path):
    if l.startswith("{"):
        r = json.loads(l)
        if r.get("type") == "node" and "gpu.util" in r:
            last = r
def show(d):
    return "-" if not d else ",".join("%s:%s" % (k, d[k]) for k in sorted(d))
got_a, got_m = show(last.get("gpu.alloc")), show(last.get("gpu.minor"))
if not last:
    print("FAIL: %s: no node record with GPU values" % name); sys.exit(1)
if (got_a, got_m) != (want_a, want_m):
    print("FAIL: %s: gpu.alloc %s (want %s), gpu.minor %s (want %s)"
          % (name, got_a, want_a, got_m, want_m)); sys.exit(1)
PY
}

jobid=123
# Minors as NVML numbers the GPUs: Slurm's index 1 is GPU 1.
info 0000:07:00.0 0 "$u0"
info 0000:0a:00.0 1 "$u1"
renv SLURM_JOB_ID=123 SLURM_PROCID=9 SLURM_JOB_GPUS=1 CUDA_VISIBLE_DEVICES=0
run slurm-same "0:0,1:1" "0:0,1:1"
# SLURM_STEP_GPUS before SLURM_JOB_GPUS.
renv SLURM_JOB_ID=123 SLURM_PROCID=9 SLURM_JOB_GPUS=0,1 SLURM_STEP_GPUS=0
run slurm-step "0:1,1:0" "0:0,1:1"

# Minors swapped: Slurm's index 1 may be either GPU.
rm -r "$root/proc/driver/nvidia/gpus"
info 0000:07:00.0 1 "$u0"
info 0000:0a:00.0 0 "$u1"
renv SLURM_JOB_ID=123 SLURM_PROCID=9 SLURM_JOB_GPUS=1 CUDA_VISIBLE_DEVICES=0
run slurm-swapped "-" "0:1,1:0"
# A UUID is certain.
renv SLURM_JOB_ID=123 SLURM_PROCID=9 SLURM_JOB_GPUS=1 \
    CUDA_VISIBLE_DEVICES=$u1
run slurm-swapped-uuid "0:0,1:1" "0:1,1:0"
# A number beside a UUID under Slurm: only the UUID's GPU is known (GPU 0
# is neither said allocated nor said not).
renv SLURM_JOB_ID=123 SLURM_PROCID=9 CUDA_VISIBLE_DEVICES=0,$u1
run slurm-partial "1:1" "0:1,1:0"
# Under Slurm without its variables, CUDA_VISIBLE_DEVICES's numbers count
# the job's GPUs: not used.
renv SLURM_JOB_ID=123 SLURM_PROCID=9 CUDA_VISIBLE_DEVICES=1
run slurm-cvd-number "-" "0:1,1:0"

# Not a Slurm job: the numbers are the node's.
renv PBS_JOBID=123.pbs01 PMI_RANK=0 CUDA_VISIBLE_DEVICES=1
run pbs-cvd "0:0,1:1" "0:1,1:0"

# No information files (no driver procfs): Slurm's indexes as NVML's.
rm -r "$root/proc/driver/nvidia/gpus"
renv SLURM_JOB_ID=123 SLURM_PROCID=9 SLURM_JOB_GPUS=0
run slurm-no-minors "0:1,1:0" "-"
echo "gpu-alloc: 8 cases"
