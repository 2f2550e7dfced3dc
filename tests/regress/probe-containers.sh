#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-containers: ranks inside a container's PID namespace (Apptainer,
# Enroot/pyxis, Podman) are the job's ranks, shown by host pid (the pid
# /proc and NVML know) with their pid in the container (rank.nspid, the
# last of status's NSpid) and the container named (rank.container).
#
# Real PID namespaces (unshare --pid --fork --mount-proc, as root): a
# fake job of four ranks with SLURM_JOB_ID of the job,
#  - two in a namespace whose processes carry APPTAINER_CONTAINER (ranks
#    0 and 1, pids 2 and 3 in there, below the namespace's shell);
#  - one in a namespace carrying ENROOT_ROOTFS (rank 2, pid 2 there);
#  - one in a namespace with no runtime variable (rank 3): "pid
#    namespace";
#  - one rank on the host (rank 4): no nspid, no container.
# Every rank is reported once, by the host pid whose environment holds
# its PMI_RANK, with the in-container pid its own status's NSpid gives,
# and the container as said; the namespaces' shells and unshare are
# helpers (the ranks below them carry their own ids).
# Skips (77) when not root or unshare cannot make a PID namespace.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-ctr.XXXXXX") || exit 1
bg_pids=
cleanup() {
	for p in $bg_pids; do
		kill "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$PROBE" ] || fail "no probe at $PROBE (run make)"
[ -x "$JOBTOP" ] || fail "no jobtop at $JOBTOP (run make)"
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: PID namespaces need root"; exit 77; }
unshare --pid --fork --mount-proc true 2>/dev/null ||
    { echo "skip: unshare cannot make a PID namespace here"; exit 77; }

job=94$$
SLURM_JOB_ID=$job APPTAINER_CONTAINER=/images/train.sif \
    unshare --pid --fork --mount-proc --kill-child \
    sh -c 'PMI_RANK=0 sleep 60 & PMI_RANK=1 sleep 60 & wait' &
bg_pids="$bg_pids $!"
SLURM_JOB_ID=$job ENROOT_ROOTFS=/tmp/enroot/data/pyxis_train \
    unshare --pid --fork --mount-proc --kill-child \
    sh -c 'PMI_RANK=2 sleep 60 & wait' &
bg_pids="$bg_pids $!"
SLURM_JOB_ID=$job unshare --pid --fork --mount-proc --kill-child \
    sh -c 'PMI_RANK=3 sleep 60 & wait' &
bg_pids="$bg_pids $!"
SLURM_JOB_ID=$job PMI_RANK=4 sleep 60 &
bg_pids="$bg_pids $!"
sleep 0.5

"$PROBE" --job "$job" --count 3 --interval 0.2 </dev/null >"$tmp/p.bin" \
    2>"$tmp/p.err" || fail "probe failed: $(cat "$tmp/p.err")"
"$JOBTOP" --decode --json <"$tmp/p.bin" >"$tmp/p.json" 2>"$tmp/p.jerr" ||
    fail "decode failed: $(cat "$tmp/p.jerr")"

python3 - "$tmp/p.json" <<'EOF' || fail "containers' ranks not reported right"
import json, sys
want = {0: (2, "apptainer /images/train.sif"),
        1: (3, "apptainer /images/train.sif"),
        2: (2, "enroot /tmp/enroot/data/pyxis_train"),
        3: (2, "pid namespace"),
        4: (None, None)}
last = {}
for r in map(json.loads, open(sys.argv[1])):
    if r["type"] != "rank" or r.get("rank.helper"):
        continue
    last.setdefault(r["time"], {})[r["pid"]] = r
bad = 0
if len(last) < 3:
    sys.exit("only %d samples" % len(last))
for t, recs in sorted(last.items()):
    seen = {}
    for pid, r in recs.items():
        env = open("/proc/%d/environ" % pid, "rb").read().split(b"\0")
        own = [e for e in env if e.startswith(b"PMI_RANK=")]
        if own != [b"PMI_RANK=%d" % r.get("rank", -1)]:
            print("pid %d reported as rank %s, its environment says %s"
                  % (pid, r.get("rank"), own))
            bad = 1
        nspid = None
        for line in open("/proc/%d/status" % pid):
            if line.startswith("NSpid:"):
                ids = line.split()[1:]
                nspid = int(ids[-1]) if len(ids) > 1 else None
        seen[r.get("rank")] = (r.get("rank.nspid"), r.get("rank.container"))
        if r.get("rank.nspid") != nspid:
            print("rank %s pid %d: nspid %s, its status says %s"
                  % (r.get("rank"), pid, r.get("rank.nspid"), nspid))
            bad = 1
    if seen != want:
        print("sample %s: %s, want %s" % (t, sorted(seen.items()), sorted(want.items())))
        bad = 1
if not bad:
    print("ok: %d samples: ranks 0-4 by host pid, in-container pids and "
          "containers as their namespaces say" % len(last))
sys.exit(bad)
EOF
echo "PASS"
