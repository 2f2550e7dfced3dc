#!/bin/bash
# SPDX-License-Identifier: ISC
# test-gres: the GPUs Slurm allocated a job on each node, read from the real
# scheduler (issue 24, item 4).  The lab's nodes have two GPUs each in
# Slurm's GRES (device files without a driver: tests/lab/lab-up.sh), which
# Slurm allocates and numbers as on a GPU cluster.  Job A takes one GPU on
# two nodes (index 0 there); job B one GPU on each of the four, so Slurm
# gives it index 1 where A holds 0 and index 0 elsewhere.  jobtop on job B
# (batch JSON, recording) must say exactly what `scontrol -d show job B`
# says, read here independently from its multi-line form:
#  - the meta record's "gpus" {"node1":[1],...};
#  - the recording's, through `jobtop export --json`;
#  - the report's job line "4 GPUs".
# The -o -d record of job B is printed for tests/data/sched/slurm-gres.
set -eu
. "$(dirname "$0")/lib.sh"
lab_require_up
((LAB_N >= 4)) || lab_skip "needs 4 nodes, the lab has $LAB_N"
JOBTOP=${JOBTOP:-$LAB_TOP/jobtop}
PROBE=${PROBE:-$LAB_TOP/jobtop-probe}
dir=$(mktemp -d /tmp/jobtop-gres.XXXXXX)
a="" b=""
cleanup() {
	set +e
	[ -z "$a$b" ] || lab_cancel $a $b
	rm -rf "$dir"
}
trap cleanup EXIT
chmod 755 "$dir"
install -m 755 "$JOBTOP" "$PROBE" "$dir/"
install -d -m 700 -o "$LAB_USER" "$dir/out"

a=$(lab_submit "$LAB_USER" healthy -N 2 --gres=gpu:1) ||
	lab_fail "could not start job A (2 nodes, --gres=gpu:1)"
b=$(lab_submit "$LAB_USER" healthy -N 4 --gres=gpu:1) ||
	lab_fail "could not start job B (4 nodes, --gres=gpu:1)"
echo "job A $a on $(squeue -h -j "$a" -o %N), job B $b on $(squeue -h -j "$b" -o %N)"
scontrol -o -d show job "$b" >"$dir/b-o-d.txt"
sed 's/^/  scontrol -o -d: /' "$dir/b-o-d.txt"
# What Slurm says, from the multi-line form: "Nodes=EXPR ... GRES=DETAIL".
scontrol -d show job "$b" | awk '$1 ~ /^Nodes=/ {
	n = $1; sub(/^Nodes=/, "", n)
	g = ""
	for (i = 2; i <= NF; i++) if ($i ~ /^GRES=/) { g = $i; sub(/^GRES=/, "", g) }
	print n, g }' |
	while read -r expr detail; do
		for h in $(scontrol show hostnames "$expr"); do
			echo "$h $detail"
		done
	done >"$dir/want"
[ -s "$dir/want" ] || lab_fail "scontrol -d show job $b gave no Nodes= lines"
sed 's/^/  want: /' "$dir/want"

lab_as "$LAB_USER" "$dir/jobtop" -b --json -d 0.5 -n 2 -o "$dir/out/b.jtr" "$b" \
	>"$dir/out.json" 2>"$dir/err" || lab_fail "jobtop failed: $(cat "$dir/err")"
lab_as "$LAB_USER" "$dir/jobtop" export --json "$dir/out/b.jtr" -o "$dir/out/exp.json" \
	2>"$dir/err" || lab_fail "jobtop export failed: $(cat "$dir/err")"
lab_as "$LAB_USER" "$dir/jobtop" report "$dir/out/b.jtr" -o "$dir/out/r.html" \
	2>"$dir/err" || lab_fail "jobtop report failed: $(cat "$dir/err")"
python3 - "$dir/want" "$dir/out.json" "$dir/out/exp.json" <<'PY' ||
import json, re, sys
want = {}
for line in open(sys.argv[1]):
    host, _, detail = line.strip().partition(" ")
    idx = []
    m = re.fullmatch(r"gpu(?::[^:(]+)?:\d+\(IDX:([0-9,-]+)\)", detail)
    assert m, "Slurm's detail for %s is %r" % (host, detail)
    for part in m.group(1).split(","):
        lo, _, hi = part.partition("-")
        idx += range(int(lo), int(hi or lo) + 1)
    want[host] = idx
assert sorted(set(sum(want.values(), []))) == [0, 1], \
    "Slurm should give index 1 where job A holds 0: %s" % want
for path, what in ((sys.argv[2], "live"), (sys.argv[3], "export")):
    meta = json.loads(open(path).readline())
    assert meta["type"] == "meta", meta
    assert meta.get("gpus") == want, "%s: gpus %s, want %s" % (
        what, meta.get("gpus"), want)
print("ok: gpus %s, live and recorded" % want)
PY
	lab_fail "jobtop's GPUs per node differ from scontrol's"
grep -q ', 4 GPUs' "$dir/out/r.html" ||
	lab_fail "the report's job line does not say 4 GPUs: $(grep -o 'Job</th><td>[^<]*' "$dir/out/r.html")"
echo PASS
