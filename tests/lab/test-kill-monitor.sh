#!/bin/bash
# SPDX-License-Identifier: ISC
# test-kill-monitor: kill -9 of a monitor that streams a 4-node job leaves
# nothing behind, for every transport that starts processes or sessions
# (libssh2, the system ssh, srun), KILL_REPS times each (3; 10 for the
# figure in a closing note) with a CPU hog on every core beside it:
#  - every process the monitor had started here (its clients and their
#    children: ssh, srun and srun's helper) is gone within 1 s;
#  - every probe it had started on the nodes is gone within 3 s (the
#    remote end learns of the death through its connection or step).
# It prints the slowest time of each, per transport.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
top=$(cd "$here/../.." && pwd)
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$LAB_BIN/"
JT=$LAB_BIN/jobtop
REPS=${KILL_REPS:-3}
tmp=$(mktemp -d)
chmod 755 "$tmp"
job=""
hogs=()
bg=""
cleanup() {
	[ -n "$bg" ] && kill -9 $bg 2>/dev/null
	[ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null
	[ -z "$job" ] || lab_cancel "$job"
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "could not start the healthy job"
# A hog per core, at the monitor's priority.
for _ in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' &
	hogs+=($!)
done

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# descendants PID: every process under PID (children first found first).
descendants() {
	local p c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}
# alive PIDS: how many still run.  A zombie has ended: only its exit
# status waits for whoever reaps orphans (PID 1 here reaps them every
# second or two, systemd at once), so it does not count.
alive() {
	local p n=0 st
	for p in "$@"; do
		st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$p/stat" 2>/dev/null) || continue
		[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && n=$((n + 1))
	done
	echo "$n"
}
probes() { pgrep -u "$LAB_USER" -f "probe-[0-9a-f]* .*--job $job\$" | grep -c .; }

for transport in libssh2 ssh srun; do
	worst_c=0 worst_p=0
	for rep in $(seq "$REPS"); do
		: >"$tmp/out"
		lab_as "$LAB_USER" "$JT" --no-record -b --json -d 0.5 \
		    --transport "$transport" "$job" >"$tmp/out" 2>"$tmp/err" &
		bg=$!
		# Every node delivers twice.
		for _ in $(seq 300); do
			[ "$(grep -c '"type":"node"' "$tmp/out")" -ge 8 ] && break
			sleep 0.1
		done
		ru=$(pgrep -P "$bg" -x runuser | head -1)
		jp=$([ -n "$ru" ] && pgrep -P "$ru" -x jobtop | head -1)
		if [ -z "$jp" ] || [ "$(grep -c '"type":"node"' "$tmp/out")" -lt 8 ]; then
			fail "$transport #$rep: no samples from the 4 nodes: $(tail -3 "$tmp/err")"
			kill -9 $jp $bg 2>/dev/null
			wait "$bg" 2>/dev/null
			bg=""
			continue
		fi
		kids=($(descendants "$jp"))
		np=$(probes)
		t0=$(now_ms)
		kill -9 "$jp"
		tc="" tp=""
		while :; do
			t=$(( $(now_ms) - t0 ))
			[ -z "$tc" ] && [ "$(alive "${kids[@]}")" -eq 0 ] && tc=$t
			[ -z "$tp" ] && [ "$(probes)" -eq 0 ] && tp=$t
			[ -n "$tc" ] && [ -n "$tp" ] && break
			((t > 5000)) && break
			sleep 0.05
		done
		wait "$bg" 2>/dev/null
		bg=""
		echo "$transport #$rep: ${#kids[@]} processes here, $np probes; processes gone in ${tc:-over 5000} ms, probes in ${tp:-over 5000} ms"
		if [ -z "$tc" ] || ((tc > 1000)); then
			fail "$transport #$rep: processes left after 1 s: $(for k in "${kids[@]}"; do ps -o pid=,stat=,args= -p "$k"; done)"
		fi
		if [ -z "$tp" ] || ((tp > 3000)); then
			fail "$transport #$rep: probes left after 3 s: $(pgrep -a -u "$LAB_USER" -f "probe-[0-9a-f]* .*--job $job\$")"
		fi
		((${tc:-9999} > worst_c)) && worst_c=${tc:-9999}
		((${tp:-9999} > worst_p)) && worst_p=${tp:-9999}
		# The next run starts from a quiet job (no probe of this one).
		until_gone=0
		while [ "$(probes)" -gt 0 ] && ((until_gone < 100)); do sleep 0.1; until_gone=$((until_gone + 1)); done
	done
	echo "ok: $transport: slowest of $REPS kill -9 under a CPU hog: processes here ${worst_c} ms, probes on the nodes ${worst_p} ms"
done
((fails == 0)) || exit 1
echo PASS
