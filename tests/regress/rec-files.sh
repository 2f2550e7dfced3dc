#!/bin/sh
# SPDX-License-Identifier: ISC
# rec-files: jobtop never destroys a file, never follows a planted link
# and never hangs on a FIFO (issue 11, review F8, F10, F14):
#  - -o on an existing recording is refused in one line and the file is
#    unchanged; --force replaces a regular file of the caller's (mode
#    0600) and refuses links, directories and FIFOs; -o in a missing
#    directory is an error and creates nothing;
#  - export and report -o: a failed run (missing, foreign, damaged or
#    FIFO input) leaves an existing output byte-identical and no
#    temporary file; a good run replaces it with mode 0666 & ~umask (022
#    and 077); a symbolic link at the output is refused, its target
#    untouched; the recording itself as the output is refused; an
#    interrupted export (SIGTERM) leaves no temporary file;
#  - recordings are 0600, the default directory 0700 (also made private
#    when it existed open to others);
#  - a FIFO given as a recording is refused at once;
#  - -r JOBID plays the newest recording of that job in the default
#    directory; a job without one is one line;
#  - F10: an 80,000-hop INDEX chain and an 8 MiB file of fake INDEX
#    headers are read in well under a second;
#  - a forged node name in a recording header is refused; job name and
#    user strings are cleaned of control bytes;
#  - F14: CSV text fields that a spreadsheet would take for a formula get
#    a leading quote, and numbers stay numbers (python3 csv);
#  - the curses monitor shows its recording's path and prints it on exit
#    (with tmux).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
CRAFT=$TOP/tests/data/jtr-craft.py
tmp=$(mktemp -d)
sock=jtfiles-$$
fifo_pid=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -n "$fifo_pid" ] && kill "$fifo_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export XDG_STATE_HOME="$tmp/state"

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"

# one_error WHAT CMD...: a non-zero exit, one "jobtop: " line on stderr.
one_error() {
	what=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ $rc -ne 0 ] || fail "$what: exit status 0"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		fail "$what: want one line on stderr, got: $(cat "$tmp/err")"
	grep -q '^jobtop: ' "$tmp/err" || fail "$what: $(cat "$tmp/err")"
	return 0
}
# no_temp DIR: nothing but the names given is left in DIR.
only_files() {
	dir=$1
	shift
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	have=$(ls -A "$dir" | sort | tr '\n' ' ')
	[ "$have" = "$want" ] || fail "$dir holds '$have', want '$want'"
}
mode() { stat -c %a "$1"; }

# A recording to work with.
"$JOBTOP" -w localhost -b --json -n 3 -d 0.1 -o "$tmp/a.jtr" >/dev/null \
    2>"$tmp/err" || fail "live run: $(cat "$tmp/err")"
[ "$(mode "$tmp/a.jtr")" = 600 ] || fail "-o recording mode $(mode "$tmp/a.jtr")"

# -o on an existing recording: refused, unchanged.
cp "$tmp/a.jtr" "$tmp/keep.jtr"
one_error "-o existing" "$JOBTOP" -w localhost -b -n 1 -d 0.1 \
    -o "$tmp/a.jtr"
grep -q 'exists: give --force' "$tmp/err" || fail "-o existing: $(cat "$tmp/err")"
cmp -s "$tmp/a.jtr" "$tmp/keep.jtr" || fail "-o existing changed the file"
# --force replaces it (0600 even where it was 0644); no temporary left.
mkdir "$tmp/f"
cp "$tmp/a.jtr" "$tmp/f/r.jtr"
chmod 644 "$tmp/f/r.jtr"
"$JOBTOP" -w localhost -b --json -n 1 -d 0.1 -o "$tmp/f/r.jtr" --force \
    >/dev/null 2>"$tmp/err" || fail "--force: $(cat "$tmp/err")"
cmp -s "$tmp/f/r.jtr" "$tmp/keep.jtr" && fail "--force did not replace"
[ "$(mode "$tmp/f/r.jtr")" = 600 ] || fail "--force mode $(mode "$tmp/f/r.jtr")"
n=$("$JOBTOP" -r "$tmp/f/r.jtr" -b --json | grep -c '"type":"node"')
[ "$n" -eq 1 ] || fail "--force recording replays $n samples"
only_files "$tmp/f" r.jtr
one_error "--force without -o" "$JOBTOP" -w localhost -b -n 1 --force
# --force refuses a link (its target untouched), a directory, a FIFO.
echo precious >"$tmp/target"
ln -s "$tmp/target" "$tmp/f/link.jtr"
one_error "--force on a link" "$JOBTOP" -w localhost -b -n 1 -d 0.1 \
    -o "$tmp/f/link.jtr" --force
grep -q 'symbolic link' "$tmp/err" || fail "link: $(cat "$tmp/err")"
[ "$(cat "$tmp/target")" = precious ] || fail "--force wrote through a link"
one_error "-o on a link" "$JOBTOP" -w localhost -b -n 1 -d 0.1 \
    -o "$tmp/f/link.jtr"
[ "$(cat "$tmp/target")" = precious ] || fail "-o wrote through a link"
ln -s "$tmp/none" "$tmp/f/dangling.jtr"
one_error "-o on a dangling link" "$JOBTOP" -w localhost -b -n 1 -d 0.1 \
    -o "$tmp/f/dangling.jtr"
[ -e "$tmp/none" ] && fail "-o created the target of a dangling link"
mkdir "$tmp/f/dir.jtr"
one_error "--force on a directory" "$JOBTOP" -w localhost -b -n 1 \
    -d 0.1 -o "$tmp/f/dir.jtr" --force
mkfifo "$tmp/f/fifo.jtr"
one_error "--force on a FIFO" timeout 10 "$JOBTOP" -w localhost -b -n 1 \
    -d 0.1 -o "$tmp/f/fifo.jtr" --force
only_files "$tmp/f" r.jtr link.jtr dangling.jtr dir.jtr fifo.jtr
# Another user's file is not replaced (root can make one).
if [ "$(id -u)" -eq 0 ]; then
	cp "$tmp/keep.jtr" "$tmp/f/theirs.jtr"
	chown 65534 "$tmp/f/theirs.jtr"
	one_error "--force on another user's file" "$JOBTOP" -w localhost \
	    -b -n 1 -d 0.1 -o "$tmp/f/theirs.jtr" --force
	grep -q 'belongs to another user' "$tmp/err" ||
		fail "theirs: $(cat "$tmp/err")"
	cmp -s "$tmp/f/theirs.jtr" "$tmp/keep.jtr" ||
		fail "another user's file changed"
fi

# -o, export -o, report -o in a missing directory: an error, no mkdir.
one_error "-o missing dir" "$JOBTOP" -w localhost -b -n 1 -d 0.1 \
    -o "$tmp/typo/sub/r.jtr"
one_error "export -o missing dir" "$JOBTOP" export "$tmp/a.jtr" --csv \
    -o "$tmp/typo/r.csv"
one_error "report -o missing dir" "$JOBTOP" report "$tmp/a.jtr" \
    -o "$tmp/typo/r.html"
[ -e "$tmp/typo" ] && fail "a missing directory was created"

# export and report: failures keep the old output byte-identical.
mkdir "$tmp/o"
echo "old csv" >"$tmp/o/out.csv"
echo "old page" >"$tmp/o/r.html"
cp "$tmp/a.jtr" "$tmp/damaged.jtr"
size=$(stat -c %s "$tmp/damaged.jtr")
printf 'XXXXXXXX' | dd of="$tmp/damaged.jtr" bs=1 seek=$((size / 2)) \
    conv=notrunc 2>/dev/null
mkfifo "$tmp/fifo.jtr"
for input in "$tmp/none.jtr" /etc/passwd "$tmp/damaged.jtr" \
    "$tmp/fifo.jtr"; do
	start=$(date +%s)
	one_error "export $input" timeout 10 "$JOBTOP" export "$input" \
	    --csv -o "$tmp/o/out.csv"
	one_error "report $input" timeout 10 "$JOBTOP" report "$input" \
	    -o "$tmp/o/r.html"
	[ $(($(date +%s) - start)) -le 3 ] || fail "$input took too long"
	[ "$(cat "$tmp/o/out.csv")" = "old csv" ] ||
		fail "export of $input changed the old output"
	[ "$(cat "$tmp/o/r.html")" = "old page" ] ||
		fail "report of $input changed the old output"
	only_files "$tmp/o" out.csv r.html
done
one_error "-r FIFO" timeout 10 "$JOBTOP" -r "$tmp/fifo.jtr" -b --json
grep -q 'not a regular file' "$tmp/err" || fail "-r FIFO: $(cat "$tmp/err")"
# Good runs replace the output, with the umask's mode.
for um in 022 077; do
	(umask $um && "$JOBTOP" export "$tmp/a.jtr" --csv -o "$tmp/o/out.csv" &&
	    "$JOBTOP" report "$tmp/a.jtr" -o "$tmp/o/r.html") 2>"$tmp/err" ||
		fail "export/report with umask $um: $(cat "$tmp/err")"
	want=$(printf '%o' $((0666 & ~0$um)))
	[ "$(mode "$tmp/o/out.csv")" = "$want" ] ||
		fail "export mode $(mode "$tmp/o/out.csv") with umask $um"
	[ "$(mode "$tmp/o/r.html")" = "$want" ] ||
		fail "report mode $(mode "$tmp/o/r.html") with umask $um"
	head -1 "$tmp/o/out.csv" | grep -q '^record,job,time,seq,node,' ||
		fail "export did not write the CSV"
	grep -q '<html' "$tmp/o/r.html" || fail "report did not write the page"
	only_files "$tmp/o" out.csv r.html
done
# The recording itself as the output: refused, the recording unchanged.
cp "$tmp/a.jtr" "$tmp/o/self.jtr"
ln "$tmp/o/self.jtr" "$tmp/o/hard.jtr"
one_error "export over its input" "$JOBTOP" export "$tmp/o/self.jtr" \
    --json -o "$tmp/o/self.jtr"
one_error "report over a link to its input" "$JOBTOP" report \
    "$tmp/o/self.jtr" -o "$tmp/o/hard.jtr"
grep -q 'is the recording itself' "$tmp/err" || fail "self: $(cat "$tmp/err")"
cmp -s "$tmp/o/self.jtr" "$tmp/a.jtr" || fail "an export replaced its input"
rm "$tmp/o/self.jtr" "$tmp/o/hard.jtr"
# An interrupted export: no temporary file, the old output kept.
TESTBIN=${TESTBIN:-$TOP/build/tests}
if [ -x "$TESTBIN/test-rec" ]; then
	"$TESTBIN/test-rec" --gen "$tmp/big.jtr" 8 3000 >/dev/null ||
		fail "test-rec --gen"
	"$JOBTOP" export "$tmp/big.jtr" --csv -o "$tmp/o/out.csv" \
	    2>"$tmp/err" &
	xpid=$!
	i=0
	while ! ls -A "$tmp/o" | grep -q '^\.out\.csv\.'; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "no temporary file while exporting"
		sleep 0.05
	done
	# SIGTERM: a background job of a script ignores SIGINT.
	kill -TERM $xpid
	wait $xpid
	rc=$?
	[ $rc -eq 143 ] || fail "interrupted export: exit status $rc"
	head -1 "$tmp/o/out.csv" | grep -q '^record,job,time' ||
		fail "an interrupted export changed the old output"
	only_files "$tmp/o" out.csv r.html
fi
# A planted link is refused, its target untouched.
ln -s "$tmp/target" "$tmp/o/link.csv"
ln -s "$tmp/target" "$tmp/o/link.html"
one_error "export to a link" "$JOBTOP" export "$tmp/a.jtr" --csv \
    -o "$tmp/o/link.csv"
one_error "report to a link" "$JOBTOP" report "$tmp/a.jtr" \
    -o "$tmp/o/link.html"
[ "$(cat "$tmp/target")" = precious ] || fail "an output followed a link"
[ -L "$tmp/o/link.csv" ] && [ -L "$tmp/o/link.html" ] ||
	fail "a planted link was replaced"

# The default directory: 0700, made private when it was open.
"$JOBTOP" -w localhost -b --json -n 1 -d 0.1 >/dev/null 2>"$tmp/err" ||
	fail "default path: $(cat "$tmp/err")"
[ "$(mode "$tmp/state/jobtop")" = 700 ] ||
	fail "state directory mode $(mode "$tmp/state/jobtop")"
set -- "$tmp"/state/jobtop/localhost-*.jtr
[ "$(mode "$1")" = 600 ] || fail "default recording mode $(mode "$1")"
chmod 755 "$tmp/state/jobtop"
"$JOBTOP" -w localhost -b --json -n 1 -d 0.1 >/dev/null 2>"$tmp/err" ||
	fail "default path: $(cat "$tmp/err")"
[ "$(mode "$tmp/state/jobtop")" = 700 ] ||
	fail "an open state directory stayed $(mode "$tmp/state/jobtop")"
[ -s "$tmp/err" ] && fail "default path wrote to stderr: $(cat "$tmp/err")"

# -r JOBID: the newest recording of job 4242 (by the time in its name,
# then -N); a job without a recording is one line.
mkdir -p "$tmp/state/jobtop"
"$JOBTOP" -w localhost -b --json -n 4 -d 0.1 -o "$tmp/four.jtr" \
    >/dev/null 2>&1 || fail "four-sample run"
"$JOBTOP" -w localhost -b --json -n 2 -d 0.1 -o "$tmp/two.jtr" \
    >/dev/null 2>&1 || fail "two-sample run"
cp "$tmp/a.jtr" "$tmp/state/jobtop/4242-20260101-120000.jtr"
cp "$tmp/two.jtr" "$tmp/state/jobtop/4242-20260102-090000.jtr"
cp "$tmp/four.jtr" "$tmp/state/jobtop/4242-20260102-090000-2.jtr"
cp "$tmp/a.jtr" "$tmp/state/jobtop/42420-20270101-120000.jtr"
cp "$tmp/a.jtr" "$tmp/state/jobtop/4242-notastamp.jtr"
(cd "$tmp" && "$JOBTOP" -r 4242 -b --json) >"$tmp/out" 2>"$tmp/err" ||
	fail "-r 4242: $(cat "$tmp/err")"
n=$(grep -c '"type":"node"' "$tmp/out")
[ "$n" -eq 4 ] || fail "-r 4242 played a recording of $n samples, want 4"
one_error "-r job without a recording" "$JOBTOP" -r 777 -b --json
grep -q '777: no such file, and no recording of 777 in ' "$tmp/err" ||
	fail "-r 777: $(cat "$tmp/err")"
# A file of that name wins over the job.
cp "$tmp/two.jtr" "$tmp/4242"
n=$(cd "$tmp" && "$JOBTOP" -r 4242 -b --json | grep -c '"type":"node"')
[ "$n" -eq 2 ] || fail "-r 4242 did not play the file named 4242"

# F10: a long INDEX chain and a file of fake INDEX headers.
python3 "$CRAFT" chain 80000 "$tmp/chain.jtr" || fail "jtr-craft chain"
python3 "$CRAFT" scan 8388608 "$tmp/scan.jtr" || fail "jtr-craft scan"
for f in chain scan; do
	t0=$(date +%s%N)
	timeout 20 "$JOBTOP" export "$tmp/$f.jtr" --json >/dev/null 2>&1
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $rc -le 1 ] || fail "export of the F10 $f file: exit status $rc"
	[ $ms -lt 1000 ] || fail "the F10 $f file took $ms ms"
	echo "F10 $f: $ms ms"
done

# A forged node name is refused; name and user are cleaned.
python3 "$CRAFT" meta "$tmp/a.jtr" "$tmp/evil-node.jtr" || fail "craft meta"
one_error "forged node name" "$JOBTOP" -r "$tmp/evil-node.jtr" -b
grep -q 'is not a host name' "$tmp/err" || fail "forged node: $(cat "$tmp/err")"
grep -q "$(printf '\033')" "$tmp/err" && fail "an escape reached stderr"
python3 "$CRAFT" names "$tmp/a.jtr" "$tmp/evil-names.jtr" ||
	fail "craft names"
"$JOBTOP" report "$tmp/evil-names.jtr" -o "$tmp/evil.html" 2>"$tmp/err" ||
	fail "report of the crafted names: $(cat "$tmp/err")"
grep -q 'HYPERLINK' "$tmp/evil.html" || fail "the job name is not in the report"
grep -q "$(printf '\033')" "$tmp/evil.html" && fail "an escape reached the report"

# F14: formulas in CSV text fields.  The probe on a fixture tree whose
# processes are named like formulas.
root=$tmp/root
mkdir -p "$root"
cp -R "$TOP/tests/data/fixtures/ranks-env/." "$root/" || fail "fixture"
sed -i 's/(pbs_app)/(=1+2)/' "$root/proc/3001/stat"
sed -i 's/(pbs_app)/(@SUM(A1))/' "$root/proc/3002/stat"
sed -i 's/(lsf_app)/(-2,x)/' "$root/proc/3003/stat"
printf '#!/bin/sh\nexec "%s" --root "%s" "$@"\n' "$PROBE" "$root" \
    >"$tmp/probe"
chmod +x "$tmp/probe"
JOBTOP_PROBE=$tmp/probe timeout 60 "$JOBTOP" -w localhost -b --json -n 3 \
    -d 0.2 -o "$tmp/csv.jtr" >/dev/null 2>"$tmp/err" </dev/null ||
	fail "fixture run: $(cat "$tmp/err")"
"$JOBTOP" export "$tmp/csv.jtr" --csv -o "$tmp/x.csv" 2>"$tmp/err" ||
	fail "export --csv: $(cat "$tmp/err")"
python3 - "$tmp/x.csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
body = [dict(zip(head, r)) for r in rows[1:]]
comm = {r["pid"]: r["text"] for r in body if r["metric"] == "rank.comm"}
want = {"3001": "'=1+2", "3002": "'@SUM(A1)", "3003": "'-2,x"}
for pid, v in want.items():
    if comm.get(pid) != v:
        print("FAIL: pid %s comm %r, want %r" % (pid, comm.get(pid), v))
        sys.exit(1)
bad = [r for r in body for k in ("text", "value") if r[k][:1] in
       ("=", "+", "@", "\t", "\r") or
       (r[k][:1] == "-" and not r[k][1:2].isdigit())]
if bad:
    print("FAIL: formula-like fields left: %r" % bad[:3])
    sys.exit(1)
nums = [r for r in body if r["metric"] in ("mem.total", "rank.rss", "cpu.busy")]
try:
    [float(r["value"]) for r in nums]
except ValueError as e:
    print("FAIL: a number is not a number: %s" % e)
    sys.exit(1)
if not nums:
    print("FAIL: no numeric rows")
    sys.exit(1)
print("csv: %d rows, %d numbers, formulas quoted" % (len(body), len(nums)))
PY

# The curses monitor: the path on screen and on stderr after q.
if command -v tmux >/dev/null 2>&1; then
	tmux -L "$sock" new-session -d -s m -x 160 -y 45 \
	    "env XDG_STATE_HOME=$tmp/state2 $JOBTOP -d 0.5 -w localhost 2>$tmp/tui.err; echo rc=\$? >$tmp/tui.rc; sleep 600"
	i=0
	while ! tmux -L "$sock" capture-pane -p -t m |
	    grep -Eq 'REC .*state2/jobtop/localhost-[0-9-]+\.jtr'; do
		i=$((i + 1))
		[ $i -lt 75 ] || fail "no recording path on screen: $(tmux -L "$sock" capture-pane -p -t m)"
		sleep 0.2
	done
	tmux -L "$sock" send-keys -t m q
	i=0
	while [ ! -s "$tmp/tui.rc" ] && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	[ "$(cat "$tmp/tui.rc")" = rc=0 ] || fail "monitor: $(cat "$tmp/tui.rc" "$tmp/tui.err")"
	set -- "$tmp"/state2/jobtop/localhost-*.jtr
	# The job's verdict, then where it was recorded.
	[ "$(tail -n 1 "$tmp/tui.err")" = "jobtop: recorded to $1" ] ||
		fail "after q, stderr: $(cat "$tmp/tui.err")"
	grep -q '^  CPU efficiency: ' "$tmp/tui.err" ||
		fail "after q, no summary: $(cat "$tmp/tui.err")"
else
	echo "tmux is not installed: the screen check is skipped"
fi
echo "ok"
