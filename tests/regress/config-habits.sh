#!/bin/sh
# SPDX-License-Identifier: ISC
# config-habits: the settings file and the first sample, in batch mode.
#  - `-n 1 -b --json` prints one node record that has CPU rates, also with
#    -d 300, and ends within seconds (the probe's second sample comes
#    200 ms after the first; the first is only the rates' baseline);
#  - jobtoprc's interval is the default interval, and -d wins over it;
#  - jobtoprc wins over an old jobtop.conf beside it;
#  - a bad line of jobtoprc is exit 2 and one "jobtop: FILE:LINE: ..." line;
#  - a node whose name does not resolve: "cannot resolve NAME", never
#    "refused".
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
[ -x "$JOBTOP" ] || fail "$JOBTOP not built"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
export XDG_CONFIG_HOME="$tmp/conf" XDG_STATE_HOME="$tmp/state"
mkdir -p "$tmp/conf/jobtop"
rc=$tmp/conf/jobtop/jobtoprc

# Node records of a --json run on stdin: their count, that each has
# cpu.busy as a percent, and the seconds between the first and the last.
check_json() {
	python3 -c '
import json, sys
want = int(sys.argv[1])
nodes = [r for r in map(json.loads, sys.stdin) if r.get("type") == "node"]
if len(nodes) != want:
    sys.exit("%d node records, want %d" % (len(nodes), want))
for r in nodes:
    v = r.get("cpu.busy")
    if not isinstance(v, (int, float)) or not 0 <= v <= 100.001:
        sys.exit("a node record without a CPU rate: cpu.busy = %r" % (v,))
print("%.3f" % (nodes[-1]["time"] - nodes[0]["time"]))
' "$1"
}

# --- -n 1 shows CPU at once --------------------------------------------------
for d in 1 300; do
	t0=$(date +%s%N)
	"$JOBTOP" -w localhost -b --json -n 1 -d $d --no-record >"$tmp/out" 2>"$tmp/err" ||
		fail "-n 1 -d $d: $(cat "$tmp/err")"
	ms=$((($(date +%s%N) - t0) / 1000000))
	check_json 1 <"$tmp/out" >/dev/null || fail "-n 1 -d $d"
	[ $ms -lt 5000 ] || fail "-n 1 -d $d took $ms ms"
	echo "ok: -n 1 -d $d: a CPU rate in $ms ms"
done
"$JOBTOP" -w localhost -b -n 1 --no-record >"$tmp/out" 2>"$tmp/err" ||
	fail "-n 1 (text): $(cat "$tmp/err")"
grep -Eq '^localhost .* cpu [0-9.]+%' "$tmp/out" || fail "-n 1 (text): $(cat "$tmp/out")"
echo "ok: -n 1 text: $(grep -o 'cpu [0-9.]*%' "$tmp/out")"

# --- the interval from jobtoprc, -d over it -----------------------------------
printf '# test\ninterval = 0.1\n' >"$rc"
"$JOBTOP" -w localhost -b --json -n 4 --no-record >"$tmp/out" 2>"$tmp/err" ||
	fail "jobtoprc interval: $(cat "$tmp/err")"
span=$(check_json 4 <"$tmp/out") || fail "jobtoprc interval"
# 0.3 s; at the default 1 s it would be 3 s (a loaded machine is slower).
python3 -c "import sys; sys.exit(not 0.2 <= $span < 2)" ||
	fail "jobtoprc interval 0.1: 4 samples span $span s"
echo "ok: jobtoprc interval 0.1: 4 samples in $span s"
"$JOBTOP" -w localhost -b --json -n 2 -d 1 --no-record >"$tmp/out" 2>"$tmp/err" ||
	fail "-d over jobtoprc: $(cat "$tmp/err")"
span=$(check_json 2 <"$tmp/out") || fail "-d over jobtoprc"
python3 -c "import sys; sys.exit(not 0.8 <= $span < 3)" ||
	fail "-d 1 over jobtoprc's 0.1: 2 samples span $span s"
echo "ok: -d 1 wins over jobtoprc: 2 samples $span s apart"

# --- jobtoprc over jobtop.conf; bad lines -------------------------------------
printf 'transport = nosuch\n' >"$tmp/conf/jobtop/jobtop.conf"
"$JOBTOP" --list -w localhost >"$tmp/out" 2>"$tmp/err" ||
	fail "jobtop.conf read although jobtoprc exists: $(cat "$tmp/err")"
rm "$tmp/conf/jobtop/jobtop.conf"
echo "ok: jobtoprc wins over jobtop.conf"

for line in 'interval = 0x10' 'fold = sometimes' 'sort = cpu sideways' \
    'node_columns = name,,cpu'; do
	printf '# test\n\n%s\n' "$line" >"$rc"
	"$JOBTOP" --list -w localhost >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] || fail "'$line': exit $st, want 2"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^jobtop: $rc:3: " "$tmp/err" ||
		fail "'$line': $(cat "$tmp/err")"
	echo "ok: '$line': $(cat "$tmp/err")"
done
rm -f "$rc"

# --- a name that does not resolve ---------------------------------------------
"$JOBTOP" -w nosuchnode.invalid -b -n 1 --no-record >"$tmp/out" 2>"$tmp/err"
grep -q 'nosuchnode.invalid: cannot resolve nosuchnode.invalid: ' "$tmp/err" ||
	fail "unresolvable node: $(cat "$tmp/err")"
grep -qi 'refused' "$tmp/out" "$tmp/err" && fail "a DNS failure is called refused: $(cat "$tmp/err")"
echo "ok: $(tail -n 1 "$tmp/err")"
