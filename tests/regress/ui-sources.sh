#!/bin/sh
# SPDX-License-Identifier: ISC
# ui-sources: the real probe on fixture trees (tests/data/fixtures: two
# NVIDIA GPUs through the fake nvidia-smi, InfiniBand ports, a Lustre and
# an NFS client, RAPL zones, thermal zones and hwmon sensors, merged into
# one --root), fed to the curses monitor (-w localhost, JOBTOP_PROBE a
# wrapper adding --root) in tmux.  A writer advances the counters on the
# inodes the probe holds open at known rates: InfiniBand 1,000,000 B/s in
# and 500,000 out (port_*_data counts 4-byte words), Lustre 2,000,000
# read and 1,000,000 written, NFS 1,000,000 read and 500,000 written,
# RAPL packages 50 + 30 W and DRAM 5 + 3 W.  The node row must show the
# GPU columns with the fixture's values, and IB/s, FS/s and POWER within
# 30% of those rates; the header the same job-wide.  A tree without any of
# these sources shows none of their columns or header items.  On this
# machine, when its probe reads NUMA placement, a process's detail shows
# where its memory lies.  Then a
# recording of the same probe: `jobtop report` lists the new metrics and
# `jobtop export --csv` their raw fields.  Skips without tmux or python3.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
PROBE=${PROBE:-$TOP/jobtop-probe}
FIX=$TOP/tests/data/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-uisrc.XXXXXX") || exit 1
sock=jtuisrc-$$
writer_pid=
busy=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -n "$busy" ] && kill "$busy" 2>/dev/null
	[ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null
	# Whatever the probe left of the fake nvidia-smi.
	if [ -f "$tmp/root/nvsmi/log" ]; then
		for p in $(awk '{ print $1 }' "$tmp/root/nvsmi/log"); do
			kill -9 "$p" 2>/dev/null
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

win=
fail() {
	if [ -n "$win" ]; then
		echo "--- screen:"
		tmux -L "$sock" capture-pane -p -t "$win" 2>/dev/null
	fi
	echo "FAIL: $*"
	exit 1
}
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 77; }
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
[ -x "$PROBE" ] || fail "$PROBE not built"

# One tree with every source.
root=$tmp/root
mkdir -p "$root"
for fx in nvgpu-basic ib-hca lustre-proc nfs-client rapl-basic \
    thermal-basic; do
	[ -d "$FIX/$fx" ] || fail "fixture $fx is missing"
	cp -R "$FIX/$fx/." "$root/" || fail "cannot copy $fx"
done
: >"$root/nvsmi/log"
printf '#!/bin/sh\nexec "%s" --root "%s" "$@"\n' "$PROBE" "$root" \
    >"$tmp/probe"
chmod +x "$tmp/probe"

# The writer: each file rewritten in place from the wall clock, the new
# value first and then the file cut to its length, so a read in between
# never sees an empty file.
cat >"$tmp/writer.py" <<'EOF'
import os, sys, time

root, ready = sys.argv[1], sys.argv[2]
IB = "sys/class/infiniband/mlx5_0/ports/1/counters/"
LL = "proc/fs/lustre/llite/scratch-ffff8f0e1a2b3000/stats"
MS = "proc/self/mountstats"
PC = "sys/class/powercap/"
ZONES = (("intel-rapl:0", 50), ("intel-rapl:0:0", 5), ("intel-rapl:1", 30),
         ("intel-rapl:1:0", 3))
ll = open(os.path.join(root, LL)).read()
ms = open(os.path.join(root, MS)).read()
old = "bytes:\t1000000000 2000000 "
assert old in ms, "the mountstats fixture changed"

def put(path, text):
    fd = os.open(os.path.join(root, path), os.O_WRONLY)
    b = text.encode()
    os.pwrite(fd, b, 0)
    os.ftruncate(fd, len(b))
    os.close(fd)

def lline(text, key, total):
    out = []
    for line in text.splitlines(True):
        w = line.split()
        if w and w[0] == key:
            w[-1] = str(total)
            line = "%-25s %s\n" % (w[0], " ".join(w[1:]))
        out.append(line)
    return "".join(out)

for z, w in ZONES:
    put(PC + z + "/max_energy_range_uj", "262143328850\n")
t0 = time.time()
while True:
    k = int((time.time() - t0) * 1000)	# ms
    put(IB + "port_rcv_data", "%d\n" % (10**9 + k * 250))
    put(IB + "port_xmit_data", "%d\n" % (10**9 + k * 125))
    t = lline(ll, "read_bytes", 10**12 + k * 2000)
    put(LL, lline(t, "write_bytes", 10**12 + k * 1000))
    put(MS, ms.replace(old, "bytes:\t%d %d " % (10**9 + k * 1000,
        2 * 10**6 + k * 500), 1))
    for z, w in ZONES:
        put(PC + z + "/energy_uj", "%d\n" % (10**9 + k * w * 1000))
    if ready:
        open(ready, "w").close()
        ready = ""
    time.sleep(0.02)
EOF
python3 "$tmp/writer.py" "$root" "$tmp/ready" 2>"$tmp/writer.err" &
writer_pid=$!
n=0
while [ ! -e "$tmp/ready" ]; do
	n=$((n + 1))
	[ $n -gt 600 ] && fail "the writer did not start"
	kill -0 "$writer_pid" 2>/dev/null ||
		fail "the writer died: $(cat "$tmp/writer.err")"
	sleep 0.1
done

screen() { tmux -L "$sock" capture-pane -p -t "$win"; }
# wait_for SECONDS ERE
# The one waiting helper (tests/lib/ui.sh) on this test's own screen.
. "$TOP/tests/lib/ui.sh"
ui_screen() { screen; }
wait_for() { ui_wait "$@"; }
nwin=0
start() {	# start COMMAND: a fresh session running it
	old=$win
	nwin=$((nwin + 1))
	win=src$nwin
	tmux -L "$sock" new-session -d -s "$win" -x 200 -y 45 \
		"$1; echo rc=\$?; sleep 600"
	[ -n "$old" ] && tmux -L "$sock" kill-session -t "$old" 2>/dev/null
}

# cells: "TITLE=VALUE" for each column of the node table's localhost row
# (a right-aligned cell ends where its title ends).
cat >"$tmp/cells.py" <<'EOF'
import re, sys
lines = sys.stdin.read().splitlines()
head = next(l for l in lines if l.startswith("NODE"))
row = next(l for l in lines if l.startswith("localhost "))
for m in re.finditer(r"\S+", head):
    title = m.group(0).rstrip("^v")
    end = m.end()
    cell = row[:end].rstrip() if len(row) >= end else row.rstrip()
    word = cell.split(" ")[-1] if row[end - 1:end] not in ("", " ") else ""
    print("%s=%s" % (title, word))
EOF
# cell TITLE: the localhost row's value in that column ("" absent).
cell() {
	screen | python3 "$tmp/cells.py" | sed -n "s|^$1=||p"
}
# bytes VALUE: "1.4M" as a number of bytes.
bytes() {
	echo "$1" | awk '{ v = $1 + 0; u = substr($1, length($1));
	    m = u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : 1;
	    printf "%d\n", v * m }'
}
# near GOT WANT: within 30%.
near() {
	awk -v g="$1" -v w="$2" 'BEGIN { exit !(g >= w * 0.7 && g <= w * 1.3) }'
}

start "env LANG=C LC_ALL=C JOBTOP_PROBE=$tmp/probe $JOBTOP --no-record -d 0.5 -w localhost"
wait_for 20 '^localhost +live' || fail "no live localhost row"
wait_for 10 '^NODE.*GPUMEM.*IB/s +FS/s +POWER +TEMP' ||
	fail "the node table has no GPU, IB, FS, power and temperature columns"
# Rates need two samples and a steady writer: give them a few seconds.
sleep 3
screen >"$tmp/screen"
[ "$(cell 'GPU%')" = 58 ] || fail "GPU% is '$(cell 'GPU%')', want 58 (37 and 80)"
[ "$(cell GPUMEM)" = 40G/159G ] ||
	fail "GPUMEM is '$(cell GPUMEM)', want 40G/159G (1234 + 40000 of 2 x 81559 MiB)"
[ "$(cell GPUPWR)" = 70W ] ||
	fail "GPUPWR is '$(cell GPUPWR)', want 70W (69.54 W, the other GPU has none)"
[ "$(cell GTEMP)" = 41C ] || fail "GTEMP is '$(cell GTEMP)', want 41C"
ib=$(bytes "$(cell IB/s)")
near "$ib" 1500000 || fail "IB/s is '$(cell IB/s)', want about 1.5 MB/s"
fs=$(bytes "$(cell FS/s)")
near "$fs" 4500000 || fail "FS/s is '$(cell FS/s)', want about 4.5 MB/s"
power=$(cell POWER | tr -d W)
near "$power" 88 || fail "POWER is '$(cell POWER)', want about 88W"
temp=$(cell TEMP | tr -d C)
[ -n "$temp" ] && [ "$temp" -ge 20 ] && [ "$temp" -le 110 ] ||
	fail "TEMP is '$(cell TEMP)', want a temperature"
[ -z "$(cell 'GJOB%')" ] || fail "GJOB% shown without any rank"
# The header: job-wide items.
wait_for 5 '^GMEM +40G/159G' || fail "no GMEM item in the header"
wait_for 5 'GPUW +70W' || fail "no GPU power in the header"
hib=$(screen | sed -n 's/.* IB  *\([0-9.]*[KMG]\{0,1\}\)\/s .*/\1/p' | head -1)
near "$(bytes "$hib")" 1500000 || fail "the header's IB is '$hib'/s"
wait_for 5 'POWER +[0-9]+W' || fail "no POWER item in the header"
echo "ok: GPU 58% 40G/159G 70W 41C, IB $(cell IB/s)/s, FS $(cell FS/s)/s," \
    "power $(cell POWER), temperature $(cell TEMP)"

# Narrow: the temperatures and GPU power go, GPU% and the rates stay.
tmux -L "$sock" resize-window -t "$win" -x 120 -y 45 2>/dev/null ||
	tmux -L "$sock" resize-pane -t "$win" -x 120 -y 45
sleep 1.5
screen | grep -E '^NODE' | grep -q 'GTEMP' && fail "GTEMP kept at 120 columns"
screen | grep -E '^NODE' | grep -Eq 'GPU%.*IB/s +FS/s' ||
	fail "GPU%, IB/s or FS/s dropped at 120 columns"

# A tree without the optional sources: today's columns and header.
nb=$tmp/plain
mkdir -p "$nb"
cp -R "$FIX/node-basic/." "$nb/" || fail "cannot copy node-basic"
printf '#!/bin/sh\nexec "%s" --root "%s" "$@"\n' "$PROBE" "$nb" \
    >"$tmp/probe-plain"
chmod +x "$tmp/probe-plain"
start "env LANG=C LC_ALL=C JOBTOP_PROBE=$tmp/probe-plain $JOBTOP --no-record -d 0.5 -w localhost"
wait_for 20 '^localhost +live' || fail "no live localhost row (node-basic)"
sleep 1.5
screen | grep -E '^NODE' | grep -Eq 'NET/s +FLAGS' ||
	fail "node-basic: the columns after NET/s are not today's"
screen | grep -Eq 'GPU%|GPUMEM|IB/s|FS/s|POWER|TEMP|GMEM' &&
	fail "node-basic: a column or item of a source it does not have"
echo "ok: no source, no column"

# This machine's NUMA placement of a process, in its detail.
if "$PROBE" --count 1 --interval 0.1 </dev/null 2>/dev/null |
    "$JOBTOP" --decode 2>/dev/null | grep -q 'numa on'; then
	cp /usr/bin/yes "$tmp/jtnumaloop"
	"$tmp/jtnumaloop" >/dev/null &
	busy=$!
	start "env LANG=C LC_ALL=C $JOBTOP --no-record -d 0.5 -w localhost"
	wait_for 15 '^localhost +live' || fail "no live row"
	tmux -L "$sock" send-keys -t "$win" / j t n u m a Enter
	# The prompt closed (the status line shows the filter) and the
	# process's node in the table: the header filters as one types, and
	# Enter on a table that was empty at the last frame opens nothing.
	wait_for 5 'filter /jtnuma/: 1 rows' || fail "the filter finds no process"
	wait_for 5 '/jtnuma/ refresh' || fail "the filter prompt did not close"
	tmux -L "$sock" send-keys -t "$win" Enter
	wait_for 5 "jtnumaloop" || fail "the busy process is not listed"
	tmux -L "$sock" send-keys -t "$win" Enter
	wait_for 5 "^numa +node[0-9]+ [0-9.]+[KMG]? \\([0-9]+%\\)" ||
		fail "no NUMA placement in the process's detail"
	kill "$busy"
	busy=
	echo "ok: NUMA placement of a local process"
else
	echo "skip: the probe reads no NUMA placement here"
fi
tmux -L "$sock" kill-server 2>/dev/null

# A recording: the report plots the new metrics, the export has them.
JOBTOP_PROBE=$tmp/probe timeout 60 "$JOBTOP" -w localhost -b --json -n 10 \
    -d 0.3 -o "$tmp/src.jtr" >/dev/null 2>"$tmp/err" </dev/null ||
	fail "recording run: $(cat "$tmp/err")"
"$JOBTOP" report "$tmp/src.jtr" -o "$tmp/src.html" 2>"$tmp/err" ||
	fail "report: $(cat "$tmp/err")"
for k in gpu gpu_mem gpu_power gpu_temp ib_rx ib_tx lustre_read \
    lustre_write nfs_read nfs_write power_pkg power_dram temp; do
	grep -q "data-key=\"$k\"" "$tmp/src.html" ||
		fail "the report has no $k plot"
done
for k in gpu_job ipc; do
	grep -q "data-key=\"$k\"" "$tmp/src.html" &&
		fail "the report plots $k, which no node sent"
done
"$JOBTOP" export "$tmp/src.jtr" --csv >"$tmp/src.csv" 2>"$tmp/err" ||
	fail "export: $(cat "$tmp/err")"
# The tidy CSV: metric and instance in their own columns.
for f in ',gpu\.util,0,' ',gpu\.power,0,' ',gpuproc\.mem_used,0:4242,' \
    ',ib\.rcv_bytes,mlx5_0/1,' ',llite\.read_bytes,[^,]' \
    ',nfs\.read_bytes,[^,]' ',rapl\.energy,package-0,' ',temp\.temp,[^,]'; do
	grep -q "$f" "$tmp/src.csv" || fail "the CSV export has no $f"
done
echo "ok: report plots and CSV export of every source"
