#!/bin/bash
# SPDX-License-Identifier: ISC
# Job resolution against the lab's real Slurm: `jobtop --list JOBID` as the
# job's owner for a running job, a job array and one of its tasks, a
# heterogeneous job and one component (node sets checked against squeue and
# scontrol show hostnames); a pending, a finished and an unknown job each
# give one clear line and a non-zero exit.  The running job's allocation
# (NumCPUs, TRES mem, Partition, TimeLimit as scontrol shows them) is in
# live --json's meta record and in its recording's export; where TRES has
# no mem (the lab's CR_CPU), --mem=330M on one CPU a node is (squeue's
# MinMemory) and --mem-per-cpu on 2 CPUs a node is not.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab_require_up
top=$(cd "$here/../.." && pwd)
[ -x "$top/jobtop" ] || lab_skip "jobtop is not built"
install -m 755 "$top/jobtop" "$top/jobtop-probe" "$LAB_BIN/"
JT=$LAB_BIN/jobtop
tmp=$(mktemp -d)
ids=()
cleanup() { [ ${#ids[@]} -gt 0 ] && lab_cancel "${ids[@]}"; rm -rf "$tmp"; }
# Jobs of earlier tests may still be ending, or a node coming back from a
# link that was down: start from an idle cluster, as each job here needs.
lab_wait_idle 90 || lab_fail "not all of $LAB_N nodes idle: $(sinfo -h -N -o '%N:%t' | tr '\n' ' ')"
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

submit() {	# sbatch args... (script on stdin) -> job id
	local id
	id=$(lab_as "$LAB_USER" sbatch --parsable --chdir=/tmp --output=/dev/null "$@") || return 1
	echo "${id%%;*}"
}
wait_state() {	# id state...
	local id=$1 t0=$SECONDS st; shift
	while ((SECONDS - t0 < 30)); do
		st=$(squeue -h -j "$id" -o %T 2>/dev/null | sort -u | tr '\n' ' ')
		[ -z "$st" ] && st=$(sacct -n -X -j "$id" -o State 2>/dev/null | head -1)
		[ -z "$st" ] && st=$(scontrol show job -o "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p' | head -1)
		for want in "$@"; do case " $st " in *" $want "*) return 0 ;; esac; done
		sleep 0.2
	done
	echo "job $id stayed '$st'" >&2
	return 1
}
# same_nodes WHAT JOBSPEC: jobtop --list vs scontrol show job's NodeList, as sets.
same_nodes() {
	local what=$1 spec=$2 want got
	want=$(scontrol show job -o "$spec" | sed -n 's/.* NodeList=\([^ ]*\) .*/\1/p' |
		while read -r nl; do scontrol show hostnames "$nl"; done | sort -u)
	got=$(lab_as "$LAB_USER" "$JT" --list "$spec" 2>"$tmp/err" | sort)
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$what ($spec): $(echo $got)"
	else
		fail "$what ($spec): jobtop --list gave '$(echo $got)' ($(cat "$tmp/err")), scontrol '$(echo $want)'"
	fi
}
expect_err() {	# what pattern jobspec
	lab_as "$LAB_USER" "$JT" --list "$3" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 0 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	    grep -q "$2" "$tmp/err"; then
		ok "$1: $(cat "$tmp/err")"
	else
		fail "$1: exit $rc, stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
	fi
}

# First, while the nodes are free: a job that ran and finished.
done_id=$(printf '#!/bin/sh\ntrue\n' | submit -N1) || lab_fail "sbatch of a short job failed"
ids+=("$done_id")
wait_state "$done_id" COMPLETED || fail "short job did not complete"
expect_err "finished job" "finished" "$done_id"

job=$(lab_submit "$LAB_USER" healthy) || lab_fail "the healthy job did not start"
ids+=("$job")
same_nodes "running job" "$job"

# Its allocation, live and recorded: one sample, then the export.
# check_alloc WHAT JOB WANTMEM: live --json's meta record and the
# recording's export against scontrol; WANTMEM, where given, the bytes
# "mem" must hold ("none": no "mem" at all).  scontrol tells --mem
# (MinMemoryNode) from --mem-per-cpu (MinMemoryCPU), squeue does not:
# jobtop counts the request only where tres-alloc has no mem= and the job
# has one CPU a node, where both mean the same.
chmod 711 "$tmp" && mkdir -m 1777 "$tmp/rec"	# the job's owner writes it
check_alloc() {
	local what=$1 id=$2 wantmem=${3:-}
	rm -f "$tmp/rec/r.jtr"
	lab_as "$LAB_USER" "$JT" -b --json -n 1 -d 0.5 -o "$tmp/rec/r.jtr" "$id" \
		>"$tmp/alive" 2>"$tmp/aerr" || { fail "$what: recording the job: $(cat "$tmp/aerr")"; return; }
	"$JT" export --json "$tmp/rec/r.jtr" -o "$tmp/aexp" 2>"$tmp/aerr" ||
		{ fail "$what: export: $(cat "$tmp/aerr")"; return; }
	if python3 - "$tmp/alive" "$tmp/aexp" "$(scontrol show job -o "$id")" "$wantmem" <<'PY'
import json, re, sys
def kv(k):
    m = re.search(r"(?:^| )%s=(\S*)" % k, sys.argv[3])
    return m.group(1) if m else None
def size(v):
    m = re.fullmatch(r"([0-9.]+)([KMGT]?)", v or "")
    if not m:
        return 0
    return int(float(m.group(1)) * 1024 ** (" KMGT".index(m.group(2) or " ")) *
               (1 if m.group(2) else 1024 ** 2))
want = {"cpus": int(kv("NumCPUs")), "partition": kv("Partition")}
nodes = int(kv("NumNodes").split("-")[0])
mem = re.search(r"(?:^|,)mem=([0-9.]+[KMGT]?)", kv("TRES") or "")
if mem:
    want["mem"] = size(mem.group(1))
elif want["cpus"] == nodes:
    ask = size(kv("MinMemoryNode")) or size(kv("MinMemoryCPU"))
    if ask:
        want["mem"] = ask * nodes
if sys.argv[4] == "none":
    assert "mem" not in want, want
elif sys.argv[4]:
    assert want.get("mem") == int(sys.argv[4]), (want, sys.argv[4])
# A job without --time in a partition with MaxTime=INFINITE and no
# DefaultTime: scontrol says UNLIMITED (seen in a full run) or 365 days
# (seen alone); jobtop's JSON says null for the former.
tl = kv("TimeLimit")
if tl in ("UNLIMITED", "INFINITE"):
    want["time_limit"] = None
else:
    h, m_, s = tl.split("-")[-1].split(":")
    days = int(tl.split("-")[0]) if "-" in tl else 0
    want["time_limit"] = ((days * 24 + int(h)) * 60 + int(m_)) * 60 + int(s)
live = json.loads(open(sys.argv[1]).readline())
exp = json.loads(open(sys.argv[2]).readline())
exp.pop("end", None)
assert live["type"] == "meta" and live == exp, (live, exp)
got = {k: live.get(k) for k in want}
# No memory the job did not get or ask for per node: none made up.
assert ("mem" in live) == ("mem" in want), (live, want)
assert got == want, "meta %r, scontrol %r" % (got, want)
print(" ".join("%s=%s" % kv_ for kv_ in sorted(got.items())))
PY
	then ok "$what: allocation recorded"
	else fail "$what: allocation: live --json and the export against scontrol"
	fi
}
check_alloc "healthy job" "$job"

# --mem=330M where memory is not consumable (CR_CPU): tres-alloc has no
# mem=, squeue's MinMemory gives 330M on each of the 4 one-CPU nodes.
hog=$(lab_submit "$LAB_USER" memhog --mem=330M) || lab_fail "the memhog job did not start"
ids+=("$hog")
check_alloc "memhog --mem=330M" "$hog" $((4 * 330 * 1024 * 1024))
lab_cancel "$hog" "$job"
# --mem-per-cpu with 2 CPUs on a node: squeue's MinMemory reads as
# --mem would; jobtop must not take it for the node's memory.
pc=$(printf '#!/bin/sh\nsleep 120\n' | submit -N1 -n1 -c2 --mem-per-cpu=100M) ||
	lab_fail "sbatch --mem-per-cpu failed"
ids+=("$pc")
if wait_state "$pc" RUNNING; then
	check_alloc "--mem-per-cpu=100M, 2 CPUs" "$pc" none
else
	fail "the --mem-per-cpu job did not run"
fi
lab_cancel "$pc"

arr=$(printf '#!/bin/sh\nsleep 120\n' | submit -N1 --array=0-1) || lab_fail "sbatch --array failed"
ids+=("$arr")
wait_state "${arr}_0" RUNNING && wait_state "${arr}_1" RUNNING || fail "array tasks did not run"
same_nodes "job array task" "${arr}_1"
same_nodes "whole job array" "$arr"

het=$(printf '#!/bin/sh\n#SBATCH -N1\n#SBATCH hetjob\n#SBATCH -N1\nsleep 120\n' | submit) ||
	lab_fail "sbatch of a heterogeneous job failed"
ids+=("$het")
wait_state "$het" RUNNING || fail "het job did not run"
same_nodes "het job component" "$het+1"
same_nodes "whole het job" "$het"

held=$(printf '#!/bin/sh\nsleep 60\n' | submit -N1 --hold) || lab_fail "sbatch --hold failed"
ids+=("$held")
wait_state "$held" PENDING || fail "held job is not pending"
expect_err "pending job" "pending" "$held"

expect_err "unknown job" "no such job" 987654

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all Slurm resolution checks passed"
