#!/bin/sh
# SPDX-License-Identifier: ISC
# rec-by-job: no dead end around a job that was watched (issue 26, D5,
# D6, D16):
#  - `jobtop export JOBID` and `jobtop report JOBID -o FILE` take the
#    newest recording of that job in the default directory, as -r does; a
#    job without one is one line and status 1;
#  - a finished job, and one the scheduler no longer knows, end their
#    error line with the commands that open the recording when one exists
#    (and say nothing more when none does);
#  - looking for "my job" on a Slurm site where OAR's oarstat is installed
#    but fails does not call oarstat out.
# The scheduler is a fake squeue (and oarstat) on PATH printing fixture
# records (tests/data/sched/slurm).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"

export XDG_STATE_HOME="$tmp/state"
mkdir -p "$XDG_STATE_HOME/jobtop" "$tmp/bin"
rec=$XDG_STATE_HOME/jobtop/10-20260101-120000.jtr
cp "$TOP/tests/data/rec/v0.1.0-slurm-2node.jtr" "$rec"
# An older recording of the same job: the newest is taken.
printf 'not a recording\n' >"$XDG_STATE_HOME/jobtop/10-20250101-120000.jtr"
cd "$tmp" || exit 1

# --- export and report by job id ------------------------------------------
"$JOBTOP" export 10 --csv >"$tmp/by-id.csv" 2>"$tmp/err" ||
	fail "export 10: $(cat "$tmp/err")"
"$JOBTOP" export "$rec" --csv >"$tmp/by-path.csv" || fail "export FILE"
cmp -s "$tmp/by-id.csv" "$tmp/by-path.csv" ||
	fail "export 10 is not the export of its newest recording"
[ "$(wc -l <"$tmp/by-id.csv")" -gt 10 ] || fail "export 10: too few lines"
echo "ok: export 10 --csv: $(wc -l <"$tmp/by-id.csv") lines, as of the file"
"$JOBTOP" report 10 -o "$tmp/r.html" 2>"$tmp/err" ||
	fail "report 10: $(cat "$tmp/err")"
grep -q '<html' "$tmp/r.html" || fail "report 10 wrote no page"
echo "ok: report 10 -o r.html: $(wc -c <"$tmp/r.html") bytes"
out=$("$JOBTOP" export 11 --csv 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "export of a job without a recording: exit $rc"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "export 11: not one line: $out"
case $out in
"jobtop: 11: no such file, and no recording of 11 in $XDG_STATE_HOME/jobtop") ;;
*) fail "export 11: '$out'" ;;
esac
out=$("$JOBTOP" report 11 -o "$tmp/r11.html" 2>&1)
[ $? -eq 1 ] && [ ! -e "$tmp/r11.html" ] || fail "report 11: '$out'"
echo "ok: a job without a recording: $out"

# --- a finished job, a forgotten one ---------------------------------------
# squeue -O "JobID:0S,...": S is the (random) separator jobtop chose.
cat >"$tmp/bin/squeue" <<EOF
#!/bin/sh
fmt= job=
while [ \$# -gt 0 ]; do
	case \$1 in
	-O) fmt=\$2; shift ;;
	-j) job=\$2; shift ;;
	-u) exit 0 ;;	# "my jobs": none running
	esac
	shift
done
# The separator: what follows "JobID:0" up to the next field's comma.
sep=\${fmt#JobID:0}
sep=\${sep%%,*}
case \$job in
10|12) sed 1d "$TOP/tests/data/sched/slurm/completed.txt" |
	sed "s/^10|10|/\$job|\$job|/" | SEP=\$sep awk '{ gsub(/\\|/, ENVIRON["SEP"]); print }' ;;
*) cat "$TOP/tests/data/sched/slurm/notfound.stderr" >&2; exit 1 ;;
esac
EOF
printf '#!/bin/sh\necho "oarstat: cannot connect to the database" >&2\nexit 1\n' \
	>"$tmp/bin/oarstat"
chmod +x "$tmp/bin/squeue" "$tmp/bin/oarstat"
PATH=$tmp/bin:$PATH
export PATH
unset SLURM_JOB_ID SLURM_JOBID PBS_JOBID LSB_JOBID OAR_JOB_ID OAR_JOBID \
	FLUX_JOB_ID 2>/dev/null

out=$("$JOBTOP" 10 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "a finished job: exit $rc ($out)"
want="jobtop: job 10 has finished (COMPLETED); a recording of it exists ($rec): jobtop -r 10, jobtop report 10 -o report.html"
[ "$out" = "$want" ] || fail "a finished job: '$out', want '$want'"
echo "ok: $out"
cp "$rec" "$XDG_STATE_HOME/jobtop/13-20260101-120000.jtr"
out=$("$JOBTOP" 13 2>&1)
[ $? -eq 1 ] || fail "a forgotten job: not exit 1"
case $out in
"jobtop: job 13: no such job; a recording of it exists ("*"): jobtop -r 13, jobtop report 13 -o report.html") ;;
*) fail "a forgotten job with a recording: '$out'" ;;
esac
echo "ok: $out"
# Without a recording: the scheduler's word alone.
out=$("$JOBTOP" 12 2>&1)
[ "$out" = "jobtop: job 12 has finished (COMPLETED)" ] ||
	fail "a finished job without a recording: '$out'"
out=$("$JOBTOP" 14 2>&1)
[ "$out" = "jobtop: job 14: no such job" ] ||
	fail "an unknown job without a recording: '$out'"
echo "ok: no recording, no hint: $out"

# --- "my job" with a failing oarstat beside squeue --------------------------
out=$("$JOBTOP" 2>&1)
rc=$?
[ $rc -ne 0 ] || fail "no job: exit 0"
case $out in
*oarstat*|*failed*) fail "oarstat's failure is named beside Slurm's answer: $out" ;;
*"has no running job (asked slurm)"*) ;;
*) fail "no job: '$out'" ;;
esac
echo "ok: $out"
echo PASS
