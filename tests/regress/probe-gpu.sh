#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-gpu: the probe's GPU sources.  This machine has no GPU: NVIDIA
# GPUs are a fake nvidia-smi (tests/data/fixtures/nvgpu-basic/usr/bin)
# that answers the probe's queries in nvidia-smi's CSV format from
# control files, AMD GPUs a sysfs tree (tests/data/fixtures/amdgpu-basic).
#
# nvgpu: two GPUs, one without a power reading, and three compute
# processes, one on a GPU that does not exist.  The values must come
# through in the protocol's units (bytes, mW), a value changed while the
# probe runs must show, [N/A] must be absent rather than 0, and the
# nvidia-smi loop must run at the probe's interval.  A driver that
# refuses the throttle column under one name is asked under the other,
# then without it (and only then: a failing driver keeps the column).  A
# failing driver, a stream that ends and one that stalls each give an
# EVENT and absent values.  After every run, and after
# the probe is killed with SIGKILL, no nvidia-smi the probe started may be
# left running.  Without a driver, or without nvidia-smi, the source is
# off with its reason.
#
# amdgpu: card0 and card2 are AMD (power1_average, and power1_input on
# card2), card1 is NVIDIA and must be skipped, connectors and render
# nodes ignored; a background loop rewrites the busy percent and VRAM
# use in place while the probe samples.
#
# Needs python3 to read the JSON.  Skips (77) until jobtop has --decode.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-gpu.XXXXXX") || exit 1
bg_pids=
cleanup() {
	for p in $bg_pids; do
		kill "$p" 2>/dev/null
	done
	# Whatever a failed run left behind of the fake nvidia-smi.
	for log in "$tmp"/*/nvsmi/log; do
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
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read JSON"
[ -x "$JOBTOP" ] || skip "no $JOBTOP"
"$JOBTOP" --help 2>&1 | grep -q -- '--decode' ||
    skip "jobtop has no --decode yet"

cat >"$tmp/check.py" <<'EOF'
# check.py MODE FILE [ARGS]: assertions on `jobtop --decode --json`.
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
        r["_after"] = len(recs)	# node records before it
        events.append(r)
bad = []
srcs = (hello or {}).get("sources", {})

def series(key, inst):
    return [r[key][inst] for r in recs
            if isinstance(r.get(key), dict) and inst in r[key]]

def insts(prefix, rs=None):
    names = set()
    for r in recs if rs is None else rs:
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

def no_gpu_after(code):
    # Every record after the probe said the stream ended or stalled: on a
    # loaded machine the fake nvidia-smi may start late, so the end is
    # found by the event, not by counting records from the end.
    evs = [e for e in events if e.get("code") == code]
    if not evs:
        return
    after = recs[evs[0]["_after"]:]
    if not after:
        bad.append("no record after the %s event" % code)
    for r in after:
        for k in r:
            if k.startswith("gpu.") or k.startswith("gpuproc."):
                bad.append("after the stream ended, %s = %r" % (k, r[k]))

MiB = 1024 * 1024
if hello is None:
    bad.append("no hello")
elif mode == "nv":
    if srcs.get("nvgpu") != "on":
        bad.append("nvgpu source: %r" % srcs.get("nvgpu"))
    if insts("gpu.") != {"0", "1"}:
        bad.append("gpus: %r" % insts("gpu."))
    u0 = series("gpu.util", "0")
    if not u0 or u0[0] != 37 or u0[-1] != 55 or set(u0) != {37, 55}:
        bad.append("gpu.util[0]: %s, want 37 then 55" % u0)
    always("gpu.util", "1", 80)
    always("gpu.mem_used", "0", 1234 * MiB)
    always("gpu.mem_used", "1", 40000 * MiB)
    always("gpu.mem_total", "0", 81559 * MiB)
    always("gpu.power", "0", 69540)
    never("gpu.power", "1")
    always("gpu.temp", "0", 33)
    always("gpu.temp", "1", 41)
    always("gpu.clock", "0", 1980)
    always("gpu.clock", "1", 1755)
    always("gpu.throttle", "0", 4)
    always("gpu.throttle", "1", 0)
    always("gpu.uuid", "0", "GPU-5f3e4d2c-1a2b-3c4d-5e6f-708192a3b4c5")
    always("gpu.name", "1", "NVIDIA H100 80GB HBM3")
    if insts("gpuproc.") != {"0:4242", "1:4243"}:
        bad.append("gpu processes: %r" % insts("gpuproc."))
    always("gpuproc.gpu", "1:4243", 1)
    always("gpuproc.pid", "0:4242", 4242)
    always("gpuproc.mem_used", "0:4242", 1024 * MiB)
    never("gpuproc.mem_used", "1:4243")
    nvev = [e for e in events if e.get("code", "").startswith("nvgpu")
            and e.get("code") != "nvgpu-backend"]
    if nvev:
        bad.append("events: %s" % nvev)
    event("nvgpu-backend", "nvidia-smi", "no NVML helper given")
    never("gpuproc.util", "0:4242")
elif mode == "event-name":
    always("gpu.throttle", "0", 4)
elif mode == "no-throttle":
    always("gpu.util", "1", 80)
    never("gpu.throttle", "0")
elif mode == "fail":
    event("nvgpu-exited", "status 9", "couldn't communicate")
    if insts("gpu."):
        bad.append("gpu values from a failing driver: %r" % insts("gpu."))
elif mode == "exit":
    if not series("gpu.util", "0"):
        bad.append("no values before the stream ended")
    event("nvgpu-exited", "status 3", "Unknown Error")
    no_gpu_after("nvgpu-exited")
elif mode == "stall":
    if not series("gpu.util", "0"):
        bad.append("no values before the stream stalled")
    event("nvgpu-stalled")
    no_gpu_after("nvgpu-stalled")
elif mode == "off":
    want = "off: " + sys.argv[3]
    if srcs.get(sys.argv[4]) != want:
        bad.append("%s source: %r, want %r" % (sys.argv[4],
                   srcs.get(sys.argv[4]), want))
elif mode == "amd":
    if srcs.get("amdgpu") != "on":
        bad.append("amdgpu source: %r" % srcs.get("amdgpu"))
    if insts("amdgpu.") != {"card0", "card2"}:
        bad.append("cards: %r" % insts("amdgpu."))
    u = series("amdgpu.util", "card0")
    if len(set(u)) < 2 or not set(u) <= {10, 20, 30, 40, 50}:
        bad.append("amdgpu.util[card0]: %s, want a few of 10..50" % u)
    m = series("amdgpu.mem_used", "card0")
    if len(set(m)) < 2 or not all(v % MiB == 0 and 1000 * MiB <= v <=
                                  1004 * MiB for v in m):
        bad.append("amdgpu.mem_used[card0]: %s" % m)
    always("amdgpu.mem_total", "card0", 25753026560)
    always("amdgpu.power", "card0", 123000)
    always("amdgpu.temp", "card0", 45000)
    always("amdgpu.clock", "card0", 2482)
    always("amdgpu.power", "card2", 140000)
    always("amdgpu.util", "card2", 0)
    always("amdgpu.mem_total", "card2", 206141652992)
    never("amdgpu.clock", "card2")
if len(recs) < 3 and mode not in ("off",):
    bad.append("only %d node records" % len(recs))
for b in bad:
    print(mode + ": " + b)
sys.exit(1 if bad else 0)
EOF

# decode BIN NAME: the JSON records of a stream.
decode() {
	"$JOBTOP" --decode --json <"$1" >"$tmp/$2.json" 2>"$tmp/$2.jerr" ||
	    fail "jobtop --decode --json on $2 exited $?: $(cat "$tmp/$2.jerr")"
}

check() {
	python3 "$tmp/check.py" "$@" || fail "$1 checks (records in $2)"
}

# fresh NAME: a copy of the NVIDIA fixture.
fresh() {
	cp -R "$FIX/nvgpu-basic" "$tmp/$1"
	rm -f "$tmp/$1/nvsmi/log"
}

# reaped NAME: every fake nvidia-smi of that copy has ended.
reaped() {
	sleep 0.3
	for p in $(awk '{ print $1 }' "$tmp/$1/nvsmi/log"); do
		# A zombie has ended; reaping an orphan is init's business.
		st=$(ps -o stat= -p "$p" 2>/dev/null)
		if [ -n "$st" ] && [ "${st#Z}" = "$st" ]; then
			ps -o pid,ppid,stat,args -p "$p"
			fail "$1: nvidia-smi $p still runs after the probe ended"
		fi
	done
}

# nv NAME MODE COUNT [ENV...]: run the probe on a copy, decode, check.
nv() {
	name=$1 mode=$2 count=$3
	"$PROBE" --root "$tmp/$name" --interval 0.2 --count "$count" \
	    </dev/null >"$tmp/$name.bin" 2>"$tmp/$name.err" ||
	    fail "probe on $name exited $?: $(cat "$tmp/$name.err")"
	reaped "$name"
	decode "$tmp/$name.bin" "$name"
	check "$mode" "$tmp/$name.json"
}

# The values, one changed mid-run; the loop at the probe's interval.
fresh nv
( sleep 1.6
  sed 's/^0|\([^|]*\)|37|/0|\1|55|/' "$tmp/nv/nvsmi/gpus" >"$tmp/gpus.new"
  mv "$tmp/gpus.new" "$tmp/nv/nvsmi/gpus" ) &
bg_pids=$!
nv nv nv 16
grep -q 'utilization.gpu.* 200$' "$tmp/nv/nvsmi/log" ||
    fail "nvidia-smi not run with -lms 200: $(cat "$tmp/nv/nvsmi/log")"
grep -q 'gpu_uuid,pid,used_memory once' "$tmp/nv/nvsmi/log" ||
    fail "no process list asked for: $(cat "$tmp/nv/nvsmi/log")"

# The throttle column under its newer name, then without it.
fresh ev
echo clocks_throttle_reasons.active >"$tmp/ev/nvsmi/reject"
nv ev event-name 12
grep -q 'clocks_event_reasons.active' "$tmp/ev/nvsmi/log" ||
    fail "the newer throttle column name was not tried"
fresh nothr
printf 'clocks_throttle_reasons.active\nclocks_event_reasons.active\n' \
    >"$tmp/nothr/nvsmi/reject"
nv nothr no-throttle 15

# A driver that fails, a stream that ends, a stream that stalls.
fresh fail
echo fail >"$tmp/fail/nvsmi/mode"
nv fail fail 10
# A failing driver is not a refused field: the throttle column stays for
# when the driver recovers.
! grep -q 'clocks_event_reasons\|clocks.sm,name' "$tmp/fail/nvsmi/log" ||
    fail "a failing driver dropped the throttle column: $(cat \
    "$tmp/fail/nvsmi/log")"
fresh exit
echo "exit-after 4" >"$tmp/exit/nvsmi/mode"
nv exit exit 14
fresh stall
echo "hang-after 2" >"$tmp/stall/nvsmi/mode"
nv stall stall 36

# A probe killed outright takes its nvidia-smi along.
fresh kill
"$PROBE" --root "$tmp/kill" --interval 0.2 --count 100 </dev/null \
    >/dev/null 2>&1 &
probe=$!
sleep 1
[ -s "$tmp/kill/nvsmi/log" ] || fail "no nvidia-smi started"
kill -9 "$probe"
wait "$probe" 2>/dev/null
reaped kill

# Off: no driver; a driver but no nvidia-smi.
mkdir -p "$tmp/empty"
"$PROBE" --root "$tmp/empty" --count 2 --interval 0.05 </dev/null \
    >"$tmp/empty.bin" || fail "probe on an empty root exited $?"
decode "$tmp/empty.bin" empty
check off "$tmp/empty.json" \
    "no NVIDIA driver (no /dev/nvidiactl or /proc/driver/nvidia/version)" nvgpu
check off "$tmp/empty.json" "no /sys/class/drm (no GPU driver)" amdgpu
fresh nosmi
rm "$tmp/nosmi/usr/bin/nvidia-smi"
PATH=/nonexistent "$PROBE" --root "$tmp/nosmi" --count 2 --interval 0.05 \
    </dev/null >"$tmp/nosmi.bin" || fail "probe without nvidia-smi exited $?"
decode "$tmp/nosmi.bin" nosmi
check off "$tmp/nosmi.json" \
    "NVIDIA driver but no nvidia-smi (not on PATH or in /usr/bin)" nvgpu

# AMD: busy percent and VRAM use rewritten in place while sampled.
cp -R "$FIX/amdgpu-basic" "$tmp/amd"
dev=$tmp/amd/sys/class/drm/card0/device
# The first values are written before the probe starts, so its first
# sample never sees the fixture's resting values.
printf '10\n' >"$dev/gpu_busy_percent"
printf '%d\n' $(( 1000 * 1048576 )) >"$dev/mem_info_vram_used"
( i=0
  while :; do
	printf '%d\n' $(( (i % 5 + 1) * 10 )) >"$dev/gpu_busy_percent"
	printf '%d\n' $(( (1000 + i % 5) * 1048576 )) >"$dev/mem_info_vram_used"
	i=$((i + 1))
	sleep 0.15
  done ) &
bg_pids=$!
"$PROBE" --root "$tmp/amd" --interval 0.2 --count 15 </dev/null \
    >"$tmp/amd.bin" || fail "probe on the AMD fixture exited $?"
kill "$bg_pids"
bg_pids=
decode "$tmp/amd.bin" amd
check amd "$tmp/amd.json"
echo "ok"
