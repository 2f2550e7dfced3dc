#!/bin/sh
# SPDX-License-Identifier: ISC
# monitor-options: every command-line mistake gives exactly one line on
# stderr starting "jobtop: ", nothing on stdout and a non-zero exit;
# --help, --version and --list work.
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

bad() {
	"$JOBTOP" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ $rc -ne 0 ] || fail "jobtop $*: exit status 0"
	[ $rc -lt 128 ] || fail "jobtop $*: died with status $rc"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		fail "jobtop $*: want one line on stderr, got: $(cat "$tmp/err")"
	grep -q '^jobtop: ' "$tmp/err" || fail "jobtop $*: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "jobtop $*: wrote to stdout"
	return 0
}

bad -w localhost -b -d abc
grep -q "bad interval 'abc'" "$tmp/err" || fail "-d abc: $(cat "$tmp/err")"
bad -w localhost -b -n -1
grep -q "bad sample count '-1'" "$tmp/err" || fail "-n -1: $(cat "$tmp/err")"
bad -w localhost -b -n 0
bad -w localhost -b -n 3x
bad -w localhost -b -d 0.01
bad -w localhost -b -d nan
bad -w localhost -b -d ''
bad -w localhost -b -d
bad --bogus
grep -q 'unknown option --bogus' "$tmp/err" || fail "--bogus: $(cat "$tmp/err")"
bad -x
grep -q 'unknown option -x' "$tmp/err" || fail "-x: $(cat "$tmp/err")"
bad -w
bad -w ''
bad -w 'node[01-02]'
bad -w 'bad host'
bad -b -n 1
bad 123456
# Without -b and without a terminal: one line that says to use -b.
bad -w localhost -n 1
grep -q 'interactive monitor needs a terminal.*use -b' "$tmp/err" ||
	fail "no -b: $(cat "$tmp/err")"
bad --decode -w localhost
: >"$tmp/file"
bad --log "$tmp/file/x.log" -w localhost -b -n 1

"$JOBTOP" --version >"$tmp/out" 2>&1 || fail "--version failed"
grep -q '^jobtop [0-9]' "$tmp/out" || fail "--version: $(cat "$tmp/out")"
"$JOBTOP" --help >"$tmp/out" 2>&1 || fail "--help failed"
grep -q 'usage: jobtop' "$tmp/out" || fail "--help: $(cat "$tmp/out")"
"$JOBTOP" --list -w localhost >"$tmp/out" 2>&1 || fail "--list failed"
[ "$(cat "$tmp/out")" = localhost ] || fail "--list: $(cat "$tmp/out")"

# -v writes a log file, never to stderr.
XDG_STATE_HOME=$tmp/state "$JOBTOP" -v -w localhost -b -n 1 -d 0.1 \
	>"$tmp/out" 2>"$tmp/err" || fail "-v: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "-v wrote to stderr: $(cat "$tmp/err")"
[ -s "$tmp/state/jobtop/jobtop.log" ] || fail "-v: no log file"
"$JOBTOP" --log "$tmp/my.log" -w localhost -b -n 1 -d 0.1 >"$tmp/out" \
	2>"$tmp/err" || fail "--log: $(cat "$tmp/err")"
[ -s "$tmp/my.log" ] || fail "--log: no log file"

echo "ok"
