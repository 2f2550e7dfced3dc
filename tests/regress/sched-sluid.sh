#!/bin/sh
# SPDX-License-Identifier: ISC
# sched-sluid: jobtop asks squeue for the job's SLUID (the Sluid field)
# only where Slurm has it (25.11 and later: Slurm 26.05 names the job's
# cgroup by it), and a Slurm without it (the lab's 22.05) is queried as
# before.  A fake squeue on PATH answers --version as the version under
# test, refuses the field name Sluid as an old squeue refuses an unknown
# field, logs each -O list, and prints a multinode record (with the
# SLUID when asked).  `jobtop --list 4242` must print the job's nodes with
# either version; -O must hold Sluid with 25.11 and 26.05 only, and
# squeue --version be asked once per run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-schedsluid.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
mkdir "$tmp/bin"
cat >"$tmp/bin/squeue" <<EOF
#!/bin/sh
fmt= job=
[ "\$1" = --version ] && { echo "version" >>"$tmp/log"; echo "\$FAKE_SLURM_NAME \$FAKE_SLURM_VERSION"; exit 0; }
while [ \$# -gt 0 ]; do
	case \$1 in
	-O) fmt=\$2; shift ;;
	-j) job=\$2; shift ;;
	esac
	shift
done
echo "O \$fmt" >>"$tmp/log"
sep=\${fmt#JobID:0}
sep=\${sep%%,*}
case \$fmt in
*Sluid*)
	case \$FAKE_SLURM_VERSION in
	2[0-4].*|25.0*) echo "squeue: error: Invalid job format specification: Sluid" >&2; exit 1 ;;
	esac
	extra="sEKNKTV3WPV500|" ;;
*) extra= ;;
esac
sed 1d "$TOP/tests/data/sched/slurm/multinode.txt" | sed "s/\\\$/\$extra/" |
    SEP=\$sep awk '{ gsub(/\\|/, ENVIRON["SEP"]); print }'
EOF
chmod +x "$tmp/bin/squeue"
PATH=$tmp/bin:$PATH
export PATH
unset SLURM_JOB_ID SLURM_JOBID PBS_JOBID LSB_JOBID OAR_JOB_ID OAR_JOBID \
    FLUX_JOB_ID 2>/dev/null

want=cn001
# SchedMD's builds say "slurm 25.11.0", Debian's and Ubuntu's packages
# "slurm-wlm 22.05.8" (the lab's squeue).
for name in slurm slurm-wlm; do
for v in 22.05.8 24.11.3 25.11.0 26.05.1; do
	: >"$tmp/log"
	out=$(FAKE_SLURM_NAME=$name FAKE_SLURM_VERSION=$v "$JOBTOP" --list 4242 2>&1) ||
	    fail "$name $v: jobtop --list exited $?: $out"
	first=$(echo "$out" | head -1)
	n=$(echo "$out" | wc -l)
	[ "$first" = "$want" ] && [ "$n" -eq 136 ] ||
	    fail "$name $v: --list gave $n lines starting '$first': $out"
	[ "$(grep -c '^version$' "$tmp/log")" -eq 1 ] ||
	    fail "$name $v: squeue --version asked $(grep -c '^version$' "$tmp/log") times"
	case $v in
	22.*|24.*) grep -q Sluid "$tmp/log" &&
	    fail "$name $v: Sluid asked of an squeue without it" ;;
	*) grep -q '^O .*,Sluid:0' "$tmp/log" ||
	    fail "$name $v: Sluid not asked for: $(cat "$tmp/log")" ;;
	esac
	echo "ok: $name $v: $n nodes, Sluid $(grep -q Sluid "$tmp/log" && echo asked || echo not asked)"
done
done
echo "PASS"
