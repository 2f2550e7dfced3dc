#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The transports' cost on the login node, against pdsh and srun measured
# in the same run, on the real lab (a slurmd and an sshd per node).
#  1. Time until every node delivered its first sample: `jobtop JOB -b
#     --json -n 1 -d 1 --transport T` for each transport T this jobtop has
#     (libssh2, ssh, srun), and main's jobtop (libssh2, the only transport
#     there) built from `git archive main` into $BENCH_MAIN_DIR, so that
#     "libssh2 unchanged" is a ratio of one run.  Timed by fanout-run.py
#     (the arrival of the last node's first "type":"node" record).
#     Baselines: `pdsh -R ssh -w NODES true` and `srun --overlap --jobid=JOB
#     -N n --ntasks-per-node=1 true` (wall time to exit).  All as the lab
#     user jtuser, medians of BENCH_REPS runs after one warm-up round,
#     commands alternating.  JOB is a sleeping job of jtuser spanning every
#     node (one rank per node).
#  2. Login-node cost at 1 Hz: for each transport, `jobtop JOB -b --json
#     -d 1` streams; after every node is live and 2 s of settling, CPU and
#     RSS of the monitor AND every process below it (srun, ssh clients) are
#     summed once a second over BENCH_STEADY_S seconds (fanout-run.py
#     steady with FANOUT_TREE=1).  Per node: the total divided by the node
#     count; per added node: the slope between the two sizes, which is what
#     the 10,000-node estimate extrapolates (total = base + slope x nodes).
# Sizes: BENCH_TRANSPORT_SIZES ("4 32"; the lab goes to 240 nodes: 128 came
# up here in 63 s).  Targets (issue 10): libssh2 within 10% of main's;
# ssh within 1.5x of pdsh's time to first output (every node's probe
# live: its HELLO; the first sample follows 250 ms later by design, the
# rates' baseline, which pdsh's `true` has no counterpart of); srun faster than
# `srun --overlap true` plus one interval (1 s); the srun transport's login
# node CPU per node at most libssh2's, its memory per node at most a third
# of libssh2's (both from the per-node slope, and at the largest size).
# Runs as root, only under `flock -o /tmp/jobtop-lab.lock` (it takes the
# lock itself unless an ancestor holds it) and only when the lab is down (no
# lab test running): it brings the lab up at each size and down at the end.
# Knobs: BENCH_TRANSPORT_SIZES, BENCH_TRANSPORTS ("libssh2 ssh srun": the
# columns, e.g. "libssh2 srun" at 128 nodes, where one ssh client per node
# is what the issue rules out), BENCH_REPS (3), BENCH_STEADY_S (10),
# BENCH_RUN_TIMEOUT (60 s: one jobtop run at most),
# BENCH_MAIN_DIR (/tmp/jobtop-main-bench; reused when its binary is newer
# than main's commit), BENCH_MAIN (0 skips main's build).
set -eu
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
RUN="python3 $TOP/tests/bench/fanout-run.py"
SIZES=${BENCH_TRANSPORT_SIZES:-4 32}
REPS=${BENCH_REPS:-3}
STEADY_S=${BENCH_STEADY_S:-10}
MAIN_DIR=${BENCH_MAIN_DIR:-/tmp/jobtop-main-bench}
LOCK=/tmp/jobtop-lab.lock
USER_=jtuser

[ "$(id -u)" -eq 0 ] || { echo "SKIP: bench-transport runs as root (the lab)"; exit 77; }
[ -x "$JOBTOP" ] && [ -x "$PROBE" ] || { echo "build first: make"; exit 1; }
for c in pdsh srun sbatch flock python3 runuser; do
	command -v "$c" >/dev/null || { echo "SKIP: missing $c (run: make deps)"; exit 77; }
done
# The lab is one machine-wide resource: run under its lock.  When no
# ancestor of ours holds it (flock -o LOCK make bench does), take it here:
# flock waits while a lab test holds it.
lock_ours() {
	local h p
	for h in $(lslocks -n -o PID,PATH 2>/dev/null | awk -v l="$LOCK" '$2 == l {print $1}'); do
		p=$$
		while ((p > 1)); do
			((p == h)) && return 0
			p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) || break
		done
	done
	return 1
}
if ! lock_ours; then
	command -v lslocks >/dev/null || { echo "SKIP: missing lslocks (util-linux)"; exit 77; }
	echo "bench-transport: taking the lab lock ($LOCK)" >&2
	exec flock -o "$LOCK" "$BASH" "$0" "$@"
fi
# shellcheck source=../lab/lib.sh
. "$TOP/tests/lab/lib.sh"
if lab_is_up; then
	echo "bench-transport: the lab is up (a lab test is running?): not measuring beside it"
	exit 1
fi

tmp=$(mktemp -d /tmp/jobtop-bench-transport.XXXXXX)
chmod 711 "$tmp"
bin=$tmp/bin state=$tmp/state conf=$tmp/conf
mkdir -m 755 "$bin" "$bin/main" && mkdir -m 700 "$state" "$conf"
chown "$USER_:" "$state" "$conf"
# Copies named jobtop-bench (lab tests `pkill -x jobtop`), each with its
# probe beside it, as an install has.
install -m 755 "$JOBTOP" "$bin/jobtop-bench"
install -m 755 "$PROBE" "$bin/jobtop-probe"
job=""
cleanup() {
	set +e
	[ -z "$job" ] || scancel "$job" 2>/dev/null
	"$TOP/tests/lab/lab-down.sh" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- main's jobtop, built from its own tree (no worktree) ----------------
main_ok=0
if [ "${BENCH_MAIN:-1}" != 0 ]; then
	mc=$(git -C "$TOP" rev-parse main 2>/dev/null || true)
	if [ -n "$mc" ]; then
		if [ ! -x "$MAIN_DIR/jobtop" ] || [ "$(cat "$MAIN_DIR/.commit" 2>/dev/null)" != "$mc" ]; then
			echo "bench-transport: building main ($mc) in $MAIN_DIR" >&2
			rm -rf "$MAIN_DIR" && mkdir -p "$MAIN_DIR"
			git -C "$TOP" archive "$mc" | tar -x -C "$MAIN_DIR"
			make -s -C "$MAIN_DIR" -j2 jobtop jobtop-probe >"$tmp/main-build.log" 2>&1 ||
				{ echo "bench-transport: main does not build:"; tail -5 "$tmp/main-build.log"; exit 1; }
			echo "$mc" >"$MAIN_DIR/.commit"
		fi
		install -m 755 "$MAIN_DIR/jobtop" "$bin/main/jobtop-bench"
		install -m 755 "$MAIN_DIR/jobtop-probe" "$bin/main/jobtop-probe"
		main_ok=1
	fi
fi

# as_user CMD... : CMD as the lab user with a clean environment, settings
# and recordings in temporary directories.
cat >"$bin/as-user" <<EOF
#!/bin/sh
exec runuser -u $USER_ -- env -i -C "$(getent passwd "$USER_" | cut -d: -f6)" \
	HOME="$(getent passwd "$USER_" | cut -d: -f6)" USER=$USER_ LOGNAME=$USER_ \
	SHELL=/bin/bash PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
	SLURM_CONF="$SLURM_CONF" XDG_STATE_HOME="$state" XDG_CONFIG_HOME="$conf" "\$@"
EOF
chmod 755 "$bin/as-user"
AS="$bin/as-user"

# The median of the runs that succeeded (a failed one is -rc or -1: the
# lab's Slurm at 128 nodes sometimes fails a step just after start-up).
median() { awk '$1 > 0' | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print -1}'; }
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p"; }

# The transports this jobtop has: --transport T accepted with --list.
transports=()
for t in ${BENCH_TRANSPORTS:-libssh2 ssh srun}; do
	if "$JOBTOP" --transport "$t" --list -w localhost >/dev/null 2>&1; then
		transports+=("$t")
	fi
done
if ((${#transports[@]} == 0)); then
	transports=(libssh2)	# no --transport yet: libssh2 is all it has
	topt() { :; }
else
	topt() { echo "--transport $1"; }
fi

# wall_ms CMD... : wall time of CMD in ms, or -rc on failure.
wall_ms() {
	local t0 t1 rc=0
	t0=$(date +%s%N)
	"$@" >/dev/null 2>>"$tmp/err.base" </dev/null || rc=$?
	t1=$(date +%s%N)
	((rc == 0)) && echo $(((t1 - t0) / 1000000)) || echo "-$rc"
}

declare -A first outp steady_cpu steady_rss steady_note base_pdsh base_srun note
cols=()
[ "$main_ok" = 1 ] && cols+=(main)
cols+=("${transports[@]}")

# jt_cmd COL JOB : the monitor's command line for a column.
jt_cmd() {
	local b=$bin/jobtop-bench o=""
	[ "$1" = main ] && b=$bin/main/jobtop-bench || o=$(topt "$1")
	# timeout: a transport that never delivers every node costs one
	# BENCH_RUN_TIMEOUT, not fanout-run.py's 300 s, per run.
	# shellcheck disable=SC2086
	echo "timeout -s TERM -k 5 ${BENCH_RUN_TIMEOUT:-60} $AS $b $2 $o -b --json"
}

for n in $SIZES; do
	echo "== $n nodes: lab-up" >&2
	PROBE=$PROBE "$TOP/tests/lab/lab-up.sh" "$n" >"$tmp/lab-up.log" 2>&1 ||
		{ echo "bench-transport: lab-up $n failed: $(tail -1 "$tmp/lab-up.log")"; exit 1; }
	. "$TOP/tests/lab/lib.sh"
	printf '#!/bin/bash\nmkdir -p %s/$SLURM_JOB_ID\nexec srun %s/rankload -d %s/$SLURM_JOB_ID sleep\n' \
	    "$LAB_RANKS" "$LAB_BIN" "$LAB_RANKS" >"$tmp/sleep.sh"
	LAB_SUBMIT_TIMEOUT=60 job=$(lab_submit "$USER_" "$tmp/sleep.sh" -N "$n" \
	    --ntasks-per-node=1 --time=15) || { echo "bench-transport: no job on $n nodes"; exit 1; }
	hl=$LAB_NODELIST
	declare -A fs=() fo=()
	ps=() ss=()
	for r in $(seq 0 "$REPS"); do
		p=$(wall_ms "$AS" pdsh -R ssh -w "$hl" true)
		s=$(wall_ms "$AS" srun --overlap --jobid="$job" -N "$n" --ntasks-per-node=1 true)
		line="  $n nodes run $r$( ((r)) || echo ' (warm-up)'): pdsh $p ms, srun-true $s ms"
		for c in "${cols[@]}"; do
			# shellcheck disable=SC2046
			out=$($RUN first "$tmp/err.$c" -- $(jt_cmd "$c" "$job") -n 1 -d 1)
			v=$(kv first_ms <<<"$out") o=$(kv out_ms <<<"$out")
			if [ "$(kv nodes <<<"$out")" != "$n" ]; then
				note[$c.$n]="run $r: $out; $(sort "$tmp/err.$c" | uniq -c | sort -rn | head -2 | tr '\n' ';')"
				v=-1 o=-1
			fi
			line+=", $c $v ms (out $o)"
			((r)) && fs[$c]+="$v " && fo[$c]+="$o "
		done
		echo "$line" >&2
		((r)) || continue
		ps+=("$p") ss+=("$s")
	done
	base_pdsh[$n]=$(printf '%s\n' "${ps[@]}" | median)
	base_srun[$n]=$(printf '%s\n' "${ss[@]}" | median)
	bad=$(printf '%s\n' "${ps[@]}" "${ss[@]}" | grep -c '^-' || true)
	((bad == 0)) || note[baseline.$n]="$bad pdsh/srun-true runs failed (left out of the medians): $(sort "$tmp/err.base" | uniq -c | sort -rn | head -2 | tr '\n' ';')"
	: >"$tmp/err.base"
	for c in "${cols[@]}"; do
		first[$c.$n]=$(tr ' ' '\n' <<<"${fs[$c]}" | grep . | median)
		outp[$c.$n]=$(tr ' ' '\n' <<<"${fo[$c]}" | grep . | median)
	done
	for c in "${cols[@]}"; do
		echo "== $n nodes: $c streaming at 1 Hz, ${STEADY_S} s window" >&2
		sleep 1
		# shellcheck disable=SC2046
		out=$(FANOUT_TREE=1 $RUN steady "$n" "$STEADY_S" 60 "$tmp/err.st" -- $(jt_cmd "$c" "$job") -d 1)
		steady_cpu[$c.$n]=$(kv cpu_pct <<<"$out")
		steady_rss[$c.$n]=$(kv rss_kib_max <<<"$out")
		steady_note[$c.$n]="procs=$(kv procs <<<"$out") jobtop_rss=$(kv monitor_rss_kib <<<"$out") live_ms=$(kv live_ms <<<"$out") in_window=$(kv nodes_in_window <<<"$out")"
		[ "$(kv nodes_in_window <<<"$out")" = "$n" ] ||
			note[$c.$n]+=" steady: $out; $(sort "$tmp/err.st" | uniq -c | sort -rn | head -2 | tr '\n' ';')"
	done
	scancel "$job" 2>/dev/null || true
	job=""
	"$TOP/tests/lab/lab-down.sh" >/dev/null 2>&1
done

# --- summary ----------------------------------------------------------------
miss=0
sz=($SIZES)
lo=${sz[0]} hi=${sz[${#sz[@]} - 1]}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0 && b > 0) printf "%.2f", a / b; else print "?"}'; }
echo
echo "bench-transport summary (machine: $(nproc) cores; user $USER_; lab with slurmd+sshd per node; main = $(git -C "$TOP" rev-parse --short main 2>/dev/null) built in $MAIN_DIR)"
echo "first sample = arrival of the last node's first record of jobtop JOB -b --json -n 1 -d 1 (medians of $REPS); pdsh = pdsh -R ssh -w NODES true; srun-true = srun --overlap --jobid=JOB -N n true"
printf '%-6s %9s %9s' nodes pdsh srun-true
for c in "${cols[@]}"; do printf ' %9s' "$c"; done
echo
for n in $SIZES; do
	printf '%-6s %6s ms %6s ms' "$n" "${base_pdsh[$n]}" "${base_srun[$n]}"
	for c in "${cols[@]}"; do printf ' %6s ms' "${first[$c.$n]}"; done
	echo
done
echo "first output = the last node's first \"live\" state (its probe's HELLO: the node's first output; the first"
echo "sample comes 250 ms later by design, a rates baseline: src/PROTOCOL.md), medians of $REPS:"
for n in $SIZES; do
	printf '%-6s %6s ms %6s ms' "$n" "${base_pdsh[$n]}" "${base_srun[$n]}"
	for c in "${cols[@]}"; do printf ' %6s ms' "${outp[$c.$n]}"; done
	echo
done
echo "login-node cost streaming at 1 Hz (jobtop and its child processes summed), ${STEADY_S} s window:"
printf '%-6s %-8s %9s %11s %12s %14s  %s\n' nodes col "cpu %" "cpu%/node" "rss KiB" "rss KiB/node" "(processes, jobtop's own RSS KiB, time to all live, nodes in window)"
for n in $SIZES; do
	for c in "${cols[@]}"; do
		printf '%-6s %-8s %9s %11s %12s %14s  %s\n' "$n" "$c" "${steady_cpu[$c.$n]:-?}" \
		    "$(awk -v v="${steady_cpu[$c.$n]:--1}" -v n="$n" 'BEGIN {printf "%.4f", v / n}')" \
		    "${steady_rss[$c.$n]:-?}" \
		    "$(awk -v v="${steady_rss[$c.$n]:--1}" -v n="$n" 'BEGIN {printf "%.0f", v / n}')" \
		    "${steady_note[$c.$n]:-}"
	done
done
# slope C KEY: per added node between the smallest and largest size.
slope() {
	local -n arr=$2
	awk -v a="${arr[$1.$lo]:--1}" -v b="${arr[$1.$hi]:--1}" -v lo="$lo" -v hi="$hi" \
	    'BEGIN {if (hi > lo && a >= 0 && b >= 0) printf "%.4f", (b - a) / (hi - lo); else print "?"}'
}
echo "ratios and targets:"
for n in $SIZES; do
	if [ "$main_ok" = 1 ] && [ -n "${first[libssh2.$n]:-}" ]; then
		rr=$(ratio "${first[libssh2.$n]}" "${first[main.$n]}")
		echo "  $n nodes: libssh2 / main first sample = $rr (target <= 1.10)"
		awk -v r="$rr" 'BEGIN {exit !(r != "?" && r <= 1.10)}' || { echo "  MISS: libssh2 slower than main at $n nodes"; miss=1; }
		rc=$(ratio "${steady_cpu[libssh2.$n]:-0}" "${steady_cpu[main.$n]:-0}")
		echo "  $n nodes: libssh2 / main cpu at 1 Hz = $rc"
	fi
	if [ -n "${first[ssh.$n]:-}" ]; then
		rr=$(ratio "${outp[ssh.$n]}" "${base_pdsh[$n]}")
		echo "  $n nodes: ssh first output / pdsh = $rr (target <= 1.5; first sample / pdsh = $(ratio "${first[ssh.$n]}" "${base_pdsh[$n]}"))"
		awk -v r="$rr" 'BEGIN {exit !(r != "?" && r <= 1.5)}' || { echo "  MISS: ssh over 1.5x pdsh at $n nodes"; miss=1; }
	fi
	if [ -n "${first[srun.$n]:-}" ] && [ -n "${first[libssh2.$n]:-}" ]; then
		echo "  $n nodes: first sample srun ${first[srun.$n]} ms, libssh2 ${first[libssh2.$n]} ms: srun / libssh2 = $(ratio "${first[srun.$n]}" "${first[libssh2.$n]}")"
	fi
	if [ -n "${first[srun.$n]:-}" ]; then
		echo "  $n nodes: srun first sample ${first[srun.$n]} ms vs srun-true + 1 interval $((base_srun[$n] + 1000)) ms"
		awk -v a="${first[srun.$n]}" -v b="$((base_srun[$n] + 1000))" 'BEGIN {exit !(a > 0 && a < b)}' ||
			{ echo "  MISS: srun transport not faster than srun --overlap true + 1 s at $n nodes"; miss=1; }
	fi
done
if [ "$lo" != "$hi" ]; then
	echo "per added node (slope $lo -> $hi nodes) and the estimate for a 10,000-node job at 1 Hz (base + slope x 10000;"
	echo "a straight line through two small sizes on a shared 2-core machine: rough; bench-fanout measures libssh2 at 1024 nodes directly):"
	for c in "${cols[@]}"; do
		sc=$(slope "$c" steady_cpu) sr=$(slope "$c" steady_rss)
		awk -v c="$c" -v sc="$sc" -v sr="$sr" -v cl="${steady_cpu[$c.$lo]:--1}" -v rl="${steady_rss[$c.$lo]:--1}" -v lo="$lo" \
		    'BEGIN {if (sc == "?" || sr == "?") {printf "  %-8s ?\n", c; exit}
			bc = cl - lo * sc; br = rl - lo * sr
			printf "  %-8s cpu %.4f%%/node, rss %.0f KiB/node; 10,000 nodes: %.1f%% of a core, %.0f MiB\n",
			    c, sc, sr, bc + sc * 10000, (br + sr * 10000) / 1024}'
	done
	if [ -n "${steady_cpu[srun.$hi]:-}" ] && [ -n "${steady_cpu[libssh2.$hi]:-}" ]; then
		for k in cpu rss; do
			a=$(slope srun "steady_$k") b=$(slope libssh2 "steady_$k")
			lim=1; [ "$k" = rss ] && lim=0.3334
			echo "  srun / libssh2 $k per added node: $(ratio "$a" "$b") (target <= $lim)"
			awk -v a="$a" -v b="$b" -v l="$lim" 'BEGIN {exit !(a != "?" && b != "?" && (a <= 0 || (b > 0 && a / b <= l)))}' ||
				{ echo "  MISS: srun $k per node over $lim x libssh2's"; miss=1; }
		done
	fi
fi
for k in "${!note[@]}"; do echo "  note $k: ${note[$k]}"; done
exit $miss
