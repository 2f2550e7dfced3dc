#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-nvml: the nvgpu source through jobtop-nvml, the probe's NVML
# helper.  This machine has no GPU: the helper loads a fake
# libnvidia-ml.so.1 (tests/data/nvml/fake-nvml.c, built by `make
# tests-build`) through LD_LIBRARY_PATH, which answers from control files
# in $JOBTOP_FAKE_NVML; the root is a copy of the nvgpu-basic fixture (a
# driver version file and a fake nvidia-smi for the fallback).
#
# The helper's values must come through in the protocol's units, a GPU
# without a power reading must have none (not 0), values changed while the
# probe runs must show, and each compute process must have its memory and
# SM utilization (0 for a process NVML has no sample of, absent where NVML
# cannot tell), with no nvidia-smi run at all.  A helper that ends after
# it gave data is an EVENT, not a reason to fall back.  The probe falls back to
# nvidia-smi, with an EVENT that says why, when the library is missing,
# when NVML does not start, and when the helper is not there.  No helper
# may outlive the probe, even one killed with SIGKILL.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
NVML=${NVML:-$TOP/jobtop-nvml}
FAKELIB=$TOP/build/tests/nvml
FIX=$TOP/tests/data/fixtures

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-nvml.XXXXXX") || exit 1
bg_pids=
cleanup() {
	for p in $bg_pids; do
		kill "$p" 2>/dev/null
	done
	for log in "$tmp"/*/nvml/log "$tmp"/*/nvsmi/log; do
		[ -f "$log" ] || continue
		for p in $(awk '{ print $1 }' "$log"); do
			kill -9 "$p" 2>/dev/null
		done
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "$*"
	exit 77
}

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -x "$NVML" ] || fail "no NVML helper at $NVML (run make)"
[ -f "$FAKELIB/libnvidia-ml.so.1" ] ||
    fail "no fake NVML library in $FAKELIB (run make tests-build)"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read JSON"
[ -x "$JOBTOP" ] || skip "no $JOBTOP"

cat >"$tmp/check.py" <<'EOF'
# check.py MODE FILE: assertions on `jobtop --decode --json`.
import json, sys

mode, path = sys.argv[1], sys.argv[2]
hello, recs, events = None, [], []
for line in open(path):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    t = r.get("type")
    if t == "hello":
        hello = r
    elif t == "node":
        recs.append(r)
    elif t == "event":
        events.append(r)
bad = []
srcs = (hello or {}).get("sources", {})

def series(key, inst):
    return [r[key][inst] for r in recs
            if isinstance(r.get(key), dict) and inst in r[key]]

def insts(prefix):
    names = set()
    for r in recs:
        for k, v in r.items():
            if k.startswith(prefix) and isinstance(v, dict):
                names.update(v)
    return names

def always(key, inst, want):
    s = series(key, inst)
    if not s:
        bad.append("%s[%s]: no values" % (key, inst))
    elif set(s) != {want}:
        bad.append("%s[%s]: %s, want always %r" % (key, inst,
                   sorted(set(s)), want))

def changes(key, inst, first, last):
    s = series(key, inst)
    if not s or s[0] != first or s[-1] != last or set(s) != {first, last}:
        bad.append("%s[%s]: %s, want %r then %r" % (key, inst, s, first,
                   last))

def never(key, inst):
    if series(key, inst):
        bad.append("%s[%s] should be absent: %s" % (key, inst,
                   series(key, inst)))

def event(code, *words):
    evs = [e for e in events if e.get("code") == code]
    if not evs:
        bad.append("no %s event (events: %s)" % (code, events))
        return
    for w in words:
        if w not in evs[0].get("text", ""):
            bad.append("%s event text %r lacks %r" % (code,
                       evs[0].get("text"), w))

def no_event(code):
    evs = [e for e in events if e.get("code") == code]
    if evs:
        bad.append("unexpected %s event: %s" % (code, evs))

MiB = 1024 * 1024
if hello is None:
    bad.append("no hello")
elif srcs.get("nvgpu") != "on":
    bad.append("nvgpu source: %r" % srcs.get("nvgpu"))
elif mode in ("nvml", "noputil"):
    event("nvgpu-backend", "NVML through", "jobtop-nvml")
    no_event("nvgpu-fallback")
    no_event("nvgpu-exited")
    if insts("gpu.") != {"0", "1"}:
        bad.append("gpus: %r" % insts("gpu."))
    if mode == "nvml":
        changes("gpu.util", "0", 37, 55)
    else:
        always("gpu.util", "0", 37)
    always("gpu.util", "1", 80)
    always("gpu.mem_used", "0", 1234 * MiB)
    always("gpu.mem_used", "1", 40000 * MiB)
    always("gpu.mem_total", "0", 81559 * MiB)
    always("gpu.power", "0", 69543)
    never("gpu.power", "1")
    always("gpu.temp", "0", 33)
    always("gpu.clock", "1", 1755)
    always("gpu.throttle", "0", 4)
    always("gpu.throttle", "1", 0)
    never("gpu.clock", "2")
    always("gpu.uuid", "1", "GPU-0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0")
    always("gpu.name", "0", "NVIDIA H100 80GB HBM3")
    if insts("gpuproc.") != {"0:4242", "0:4250", "1:4243"}:
        bad.append("gpu processes: %r" % insts("gpuproc."))
    always("gpuproc.gpu", "1:4243", 1)
    always("gpuproc.pid", "0:4250", 4250)
    always("gpuproc.mem_used", "0:4242", 1024 * MiB)
    always("gpuproc.mem_used", "0:4250", 2 * MiB)
    never("gpuproc.mem_used", "1:4243")
    if mode == "nvml":
        changes("gpuproc.util", "0:4242", 12, 30)
        always("gpuproc.util", "0:4250", 0)
        always("gpuproc.util", "1:4243", 64)
    else:
        for p in ("0:4242", "0:4250", "1:4243"):
            never("gpuproc.util", p)
elif mode.startswith("fallback"):
    # nvidia-smi's values (the nvgpu-basic fixture), after the reason.
    words = {"fallback-nolib": ["cannot load libnvidia-ml.so.1"],
             "fallback-init": ["status 3", "nvmlInit failed",
                               "Driver Not Loaded"]}[mode]
    event("nvgpu-fallback", *words)
    event("nvgpu-backend", "nvidia-smi", *words)
    always("gpu.util", "1", 80)
    always("gpu.power", "0", 69540)
    always("gpuproc.mem_used", "0:4242", 1024 * MiB)
    never("gpuproc.util", "0:4242")
elif mode == "crash":
    # Values first, then the end, without a fallback.
    if not series("gpu.util", "0"):
        bad.append("no values before the helper ended")
    event("nvgpu-exited", "jobtop-nvml", "status 5")
    no_event("nvgpu-fallback")
    for r in recs[-3:]:
        for k in r:
            if k.startswith("gpu.") or k.startswith("gpuproc."):
                bad.append("after the helper ended, %s = %r" % (k, r[k]))
elif mode == "nohelper":
    no_event("nvgpu-fallback")
    event("nvgpu-backend", "nvidia-smi", "is not an executable file")
    always("gpu.util", "1", 80)
if len(recs) < 3:
    bad.append("only %d node records" % len(recs))
for b in bad:
    print(mode + ": " + b)
sys.exit(1 if bad else 0)
EOF

# fresh NAME: the nvgpu-basic root and NVML control files.
fresh() {
	cp -R "$FIX/nvgpu-basic" "$tmp/$1"
	rm -f "$tmp/$1/nvsmi/log"
	mkdir "$tmp/$1/nvml"
	cat >"$tmp/$1/nvml/gpus" <<'EOF'
GPU-5f3e4d2c-1a2b-3c4d-5e6f-708192a3b4c5|NVIDIA H100 80GB HBM3|37|1293942784|85520809984|69543|33|1980|4
GPU-0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0|NVIDIA H100 80GB HBM3|80|41943040000|85520809984|-|41|1755|0
EOF
	cat >"$tmp/$1/nvml/procs" <<'EOF'
0|4242|1073741824|12
1|4243|-|64
0|4250|2097152|-
EOF
}

# reaped NAME: every helper and nvidia-smi of that copy has ended.
reaped() {
	sleep 0.3
	for p in $(cat "$tmp/$1"/nvml/log "$tmp/$1"/nvsmi/log 2>/dev/null |
	    awk '{ print $1 }'); do
		st=$(ps -o stat= -p "$p" 2>/dev/null)
		if [ -n "$st" ] && [ "${st#Z}" = "$st" ]; then
			ps -o pid,ppid,stat,args -p "$p"
			fail "$1: child $p still runs after the probe ended"
		fi
	done
}

# run NAME MODE COUNT LIBDIR [HELPER]: the probe on a copy, decoded, checked.
run() {
	name=$1 mode=$2 count=$3 lib=$4 helper=${5:-$NVML}
	JOBTOP_FAKE_NVML=$tmp/$name/nvml LD_LIBRARY_PATH=$lib \
	    "$PROBE" --root "$tmp/$name" --nvml "$helper" --interval 0.2 \
	    --count "$count" </dev/null >"$tmp/$name.bin" \
	    2>"$tmp/$name.err" ||
	    fail "probe on $name exited $?: $(cat "$tmp/$name.err")"
	reaped "$name"
	"$JOBTOP" --decode --json <"$tmp/$name.bin" >"$tmp/$name.json" \
	    2>"$tmp/$name.jerr" ||
	    fail "jobtop --decode --json on $name: $(cat "$tmp/$name.jerr")"
	python3 "$tmp/check.py" "$mode" "$tmp/$name.json" ||
	    fail "$mode checks (records in $tmp/$name.json)"
}

# Through NVML: values and processes, some changed while the probe runs.
fresh nvml
( sleep 1.6
  sed 's/|37|/|55|/' "$tmp/nvml/nvml/gpus" >"$tmp/gpus.new"
  mv "$tmp/gpus.new" "$tmp/nvml/nvml/gpus"
  sed 's/^0|4242|1073741824|12$/0|4242|1073741824|30/' \
      "$tmp/nvml/nvml/procs" >"$tmp/procs.new"
  mv "$tmp/procs.new" "$tmp/nvml/nvml/procs" ) &
bg_pids=$!
run nvml nvml 16 "$FAKELIB"
[ -s "$tmp/nvml/nvml/log" ] || fail "the helper never started NVML"
[ ! -e "$tmp/nvml/nvsmi/log" ] ||
    fail "nvidia-smi ran beside the helper: $(cat "$tmp/nvml/nvsmi/log")"

# NVML without per-process utilization: memory only.
fresh noputil
echo putil-unsupported >"$tmp/noputil/nvml/mode"
run noputil noputil 10 "$FAKELIB"

# No libnvidia-ml.so.1 (unless this machine has a real one).
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 '; then
	fresh nolib
	mkdir "$tmp/nolib/emptylib"
	run nolib fallback-nolib 12 "$tmp/nolib/emptylib"
	[ -s "$tmp/nolib/nvsmi/log" ] || fail "no nvidia-smi after the helper"
else
	echo "this machine has libnvidia-ml.so.1: no missing-library case"
fi

# NVML that does not start: the helper ends before any data.
fresh init
echo init-fail >"$tmp/init/nvml/mode"
run init fallback-init 12 "$FAKELIB"
[ -s "$tmp/init/nvml/log" ] || fail "the helper never tried NVML"

# A helper that ends after its first lines: an EVENT, values absent, and
# no fallback (it is restarted after a back-off).
fresh crash
echo "crash-after 8" >"$tmp/crash/nvml/mode"
run crash crash 14 "$FAKELIB"
[ ! -e "$tmp/crash/nvsmi/log" ] ||
    fail "nvidia-smi ran after the helper had worked"

# A helper that is not there.
fresh nohelper
run nohelper nohelper 8 "$FAKELIB" "$tmp/nohelper/no-such-helper"

# A probe killed outright takes its helper along.
fresh kill
JOBTOP_FAKE_NVML=$tmp/kill/nvml LD_LIBRARY_PATH=$FAKELIB \
    "$PROBE" --root "$tmp/kill" --nvml "$NVML" --interval 0.2 --count 100 \
    </dev/null >/dev/null 2>&1 &
probe=$!
sleep 1
[ -s "$tmp/kill/nvml/log" ] || fail "no helper started"
kill -9 "$probe"
wait "$probe" 2>/dev/null
reaped kill
echo "ok"
