#!/bin/sh
# SPDX-License-Identifier: ISC
# explain-config: `jobtop --explain -w localhost` (the probe as a local
# child: no transport needed) prints the report and exits 0; --explain and
# --list refuse each other; --explain=NODE must be a node of the job.  The
# settings file: read from $XDG_CONFIG_HOME/jobtop/jobtop.conf, a bad line
# is one "jobtop: FILE:LINE: ..." line and exit 2, an unknown key one
# warning line and the run goes on, its transport is used unless
# --transport gives another.
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
export XDG_CONFIG_HOME="$tmp/conf" XDG_STATE_HOME="$tmp/state"

# --- --explain on this machine ----------------------------------------------
"$JOBTOP" --explain -w localhost >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "--explain -w localhost: exit $rc: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "--explain -w localhost wrote to stderr: $(cat "$tmp/err")"
for want in '^jobtop [0-9.]* --explain, [0-9-]* [0-9:]* UTC, from .* as uid [0-9]*$' \
    '^job: none \(nodes given with -w or --hostfile: localhost, 1 node\)$' \
    '^node: localhost$' '^transport local: ok: a sample from localhost in [0-9]* ms$' \
    '^probe: jobtop-probe .* through local on ' \
    '^ranks: no job: ' '^source cpu: on$' '^source mem: on$' \
    '^source ib: off: ' '^auto: local '; do
	grep -Eq -- "$want" "$tmp/out" || { cat "$tmp/out"; fail "--explain: no line /$want/"; }
done
grep -q 'FAILED' "$tmp/out" && fail "--explain -w localhost: a failure: $(cat "$tmp/out")"
# Text only: no escape sequence reaches the output.
LC_ALL=C grep -q "$(printf '\033')" "$tmp/out" && fail "--explain: escape sequences in the output"

"$JOBTOP" --explain --list -w localhost >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q '^jobtop: --explain and --list' "$tmp/err" ||
	fail "--explain --list: $(cat "$tmp/err")"
"$JOBTOP" --explain=node7 -w localhost >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q '^jobtop: --explain=node7: not a node of localhost$' "$tmp/err" ||
	fail "--explain=node7: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "--explain=node7 wrote to stdout"

# --- the settings file ---------------------------------------------------------
mkdir -p "$tmp/conf/jobtop"
conf=$tmp/conf/jobtop/jobtop.conf
printf '# jobtop settings\n\ntransport = auto   # the ladder\n' >"$conf"
"$JOBTOP" --list -w localhost >"$tmp/out" 2>"$tmp/err" || fail "good settings: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "good settings: stderr: $(cat "$tmp/err")"

printf 'transport = auto\nthe-future = 3\n' >"$conf"
"$JOBTOP" --list -w localhost >"$tmp/out" 2>"$tmp/err" || fail "unknown key stopped jobtop: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = localhost ] || fail "unknown key: output $(cat "$tmp/out")"
[ "$(cat "$tmp/err")" = "jobtop: warning: $conf:2: unknown setting 'the-future' ignored" ] ||
	fail "unknown key: $(cat "$tmp/err")"

for bad in 'transport = telnet' 'transport' 'transport = ssh
transport = srun' "$(printf 'x = \001')"; do
	printf '%s\n' "$bad" >"$conf"
	"$JOBTOP" --list -w localhost >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "bad settings '$bad': exit $rc"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "bad settings '$bad': $(cat "$tmp/err")"
	grep -q "^jobtop: $conf:[12]: " "$tmp/err" || fail "bad settings '$bad': $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "bad settings '$bad': wrote to stdout"
done

# A directory where the file should be: one line, exit 2.
rm -f "$conf" && mkdir "$conf"
"$JOBTOP" --list -w localhost >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^jobtop: the settings $conf are not a regular file$" "$tmp/err" ||
	fail "a directory as settings: $(cat "$tmp/err")"
rmdir "$conf"

# The file's transport is the one used; --transport wins over it.  A node
# that is not this machine and a transport that cannot serve it (srun
# without a Slurm job) show which one was taken.
printf 'transport = srun\n' >"$conf"
"$JOBTOP" -b --json -n 1 -w jtnohost1 --no-record >"$tmp/out" 2>"$tmp/err"
grep -q 'srun' "$tmp/out" "$tmp/err" || fail "transport = srun not used: $(cat "$tmp/out" "$tmp/err")"
"$JOBTOP" -b --json -n 1 -w jtnohost1 --no-record --transport libssh2 >"$tmp/out" 2>"$tmp/err"
grep -q 'srun' "$tmp/out" "$tmp/err" && fail "--transport libssh2 did not win: $(cat "$tmp/out" "$tmp/err")"
echo "explain-config: ok"
exit 0
