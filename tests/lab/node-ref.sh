#!/bin/bash
# SPDX-License-Identifier: ISC
# node-ref.sh DIR JOBID INTERVAL COUNT: run on a lab node (through ssh, as
# the job's user) by test-probe-in-job.sh.  Streams DIR/jobtop-probe's frames
# to stdout (the ssh channel, as the monitor will read them) and brackets the
# run with two reference snapshots, read on the node within milliseconds of
# the probe's first and last samples, in DIR/ref.JOBID:
#
#	T <epoch seconds>             CONST <CLK_TCK> <PAGESIZE>
#	FREE <total> <used> <available>         (free -b)
#	MEMINFO <MemTotal> <MemAvailable>       (/proc/meminfo, KiB)
#	A <pid> <comm>                          (every process: names for messages)
#	P <pid> <SLURM_PROCID> <state> <utime> <stime> <rss pages> <ps cputime> <ps rss KiB>
#
# P lines are the job's ranks as the node sees them, found independently of
# the probe: rankload processes descending from `slurmstepd: [JOBID.N]`.
# The snapshots are separated by a line "===".  Exit status: the probe's.
set -u
dir=$1 job=$2 interval=$3 count=$4

# rank_pids: this job's ranks, from the process tree in $dir/ps.$$.
rank_pids() {
	awk -v job="$job" '
		{ parent[$1] = $2; comm[$1] = $3 }
		$4 == "slurmstepd:" && $5 ~ ("^\\[" job "\\.[0-9]+\\]$") { step[$1] = 1 }
		END {
			for (p in comm) {
				if (comm[p] != "rankload") continue
				for (q = parent[p]; q > 1; q = parent[q])
					if (q in step) { print p; break }
			}
		}' "$dir/ps.$$"
}

# rank_lines: one P line per rank.  /proc/PID/stat is read first, with a
# builtin, so that it is as close as possible to the probe's own reading.
rank_lines() {
	local pid stat rest procid cpu rss
	for pid in $pids; do
		read -r stat <"/proc/$pid/stat" 2>/dev/null || continue
		rest=${stat##*) }	# fields after "pid (comm) "
		# shellcheck disable=SC2086
		set -- $rest		# $1 = state (field 3), $12 utime, $13 stime, $22 rss
		procid=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
			sed -n 's/^SLURM_PROCID=//p')
		cpu=$(ps -o cputime= -p "$pid") rss=$(ps -o rss= -p "$pid")
		echo "P $pid ${procid:--1} $1 ${12} ${13} ${22} $cpu $rss"
	done
}

node_lines() {
	echo "CONST $(getconf CLK_TCK) $(getconf PAGESIZE)"
	free -b | awk '$1 == "Mem:" {print "FREE", $2, $3, $7}'
	awk '/^MemTotal:/ {t = $2} /^MemAvailable:/ {a = $2}
		END {print "MEMINFO", t, a}' /proc/meminfo
	ps -e -o pid=,ppid=,comm=,args= >"$dir/ps.$$"
	awk '{print "A", $1, $3}' "$dir/ps.$$"
}

# Before: the time first, then the values (all read before the probe's
# first sample).  After: the ranks' values first, then the time (all read
# after the probe's last sample; T bounds how long after).
{
	echo "T $(date +%s.%N)"
	node_lines
	pids=$(rank_pids)
	rank_lines
} >"$dir/ref.$job"
# stdin stays the ssh channel: the probe must exit when it closes.
"$dir/jobtop-probe" --job "$job" --interval "$interval" --count "$count"
rc=$?
{
	echo "==="
	rank_lines
	node_lines
	echo "T $(date +%s.%N)"
} >>"$dir/ref.$job"
rm -f "$dir/ps.$$"
exit $rc
