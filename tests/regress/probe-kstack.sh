#!/bin/sh
# SPDX-License-Identifier: ISC
# probe-kstack: the kernel stack of a waiting rank (the rank source's
# "kstack" field, from /proc/PID/stack).  A fake job's rank blocks reading
# a pipe (a known syscall: read, so pipe_read on the stack).  As root the
# probe sends its stack compactly: function names without offsets,
# innermost first, joined by " < ", at most 8 frames, and only when it
# changed (the raw stream holds the text once over several samples); a
# busy rank of the same job (state R) has none.  As an ordinary user
# (nobody) the kernel refuses /proc/PID/stack: the kstack source is off
# with the reason "needs root on the node" and no rank has the field.
#
# Needs python3 to read the JSON; the second half needs root (runuser).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-kstack.XXXXXX") || exit 1
chmod 755 "$tmp"
bg=
cleanup() {
	for p in $bg; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
[ -x "$PROBE" ] && [ -x "$JOBTOP" ] || fail "build first (make)"

job=$((700000 + $$ % 100000))
# A rank blocked in read(2) on a pipe whose writer never writes, and a
# busy one.
mkfifo "$tmp/fifo"
SLURM_JOB_ID=$job SLURM_PROCID=0 sh -c "exec cat $tmp/fifo" >/dev/null &
bg="$bg $!"
reader=$!
exec 9>"$tmp/fifo"	# the writer end, held open: cat blocks in read
SLURM_JOB_ID=$job SLURM_PROCID=1 sh -c 'while :; do :; done' &
bg="$bg $!"
busy=$!
sleep 0.3

# check.py JSON-LINES READER BUSY: the reader's kstack, the busy one's none
cat >"$tmp/check.py" <<'PY'
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
reader, busy = int(sys.argv[2]), int(sys.argv[3])
hello = [r for r in recs if r["type"] == "hello"][0]
if hello["sources"].get("kstack") != "on":
    sys.exit("kstack source not on as root: %r" % hello["sources"].get("kstack"))
ranks = [r for r in recs if r["type"] == "rank"]
seen = 0
for r in ranks:
    if r["pid"] == busy and r["state"] == "R" and "rank.kstack" in r:
        sys.exit("a running rank has a kernel stack: %r" % r)
    if r["pid"] != reader:
        continue
    k = r.get("rank.kstack")
    if k is None:
        sys.exit("the blocked rank has no kernel stack: %r" % r)
    frames = k.split(" < ")
    if not re.search(r"(^|_)pipe_read$", frames[0]):
        sys.exit("innermost frame is not pipe_read: %r" % k)
    if not any(f in ("vfs_read", "ksys_read") for f in frames):
        sys.exit("no vfs_read/ksys_read frame: %r" % k)
    if len(frames) > 8 or "+0x" in k or "[<" in k:
        sys.exit("not compact: %r" % k)
    seen += 1
if seen < 4:
    sys.exit("the blocked rank was in %d samples" % seen)
print("ok: kstack %s" % k)
PY

"$PROBE" --job "$job" --interval 0.1 --count 5 </dev/null >"$tmp/root.bin" ||
	fail "probe failed"
"$JOBTOP" --decode --json <"$tmp/root.bin" >"$tmp/root.json" || fail "decode failed"
if [ "$(id -u)" -ne 0 ]; then
	echo "not root: only the refusal is checked"
else
	python3 "$tmp/check.py" "$tmp/root.json" "$reader" "$busy" || fail "as root"
	# Sent when it changed only: the text is in the stream once.
	n=$(grep -ao 'pipe_read < [a-z_]* < ' "$tmp/root.bin" | wc -l)
	[ "$n" -eq 1 ] || fail "the stack was sent $n times in 5 samples, not once"
	echo "ok: sent once in 5 samples"
fi

# As nobody: its own blocked process, no kernel stack, and the reason.
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null 2>&1; then
	# It reads a pipe of ours: it ends when the test closes the writer.
	mkfifo "$tmp/fifo2"
	runuser -u nobody -- env SLURM_JOB_ID=$job cat <"$tmp/fifo2" \
		>/dev/null &
	exec 8>"$tmp/fifo2"
	sleep 0.3
	runuser -u nobody -- "$PROBE" --job "$job" --interval 0.1 --count 3 \
		</dev/null >"$tmp/user.bin" || fail "probe as nobody failed"
	"$JOBTOP" --decode --json <"$tmp/user.bin" >"$tmp/user.json" ||
		fail "decode failed"
	python3 - "$tmp/user.json" <<'PY' || fail "as nobody"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
hello = [r for r in recs if r["type"] == "hello"][0]
why = hello["sources"].get("kstack", "")
if not why.startswith("off: needs root on the node"):
    sys.exit("kstack source: %r" % why)
ranks = [r for r in recs if r["type"] == "rank"]
if not any(r.get("rank.comm") == "cat" and r["state"] == "S" for r in ranks):
    sys.exit("nobody's blocked cat is not listed")
if any("rank.kstack" in r for r in ranks):
    sys.exit("a kernel stack without root")
print("ok: as nobody: kstack %s" % why)
PY
	exec 8>&-
fi
echo PASS
