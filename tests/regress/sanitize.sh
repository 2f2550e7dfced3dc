#!/bin/sh
# SPDX-License-Identifier: ISC
# group: build
# sanitize: the real programs under the sanitizers and valgrind.
#  1. A copy of the sources is built with clang, -Werror and
#     SANITIZE=address,undefined (so clang's warnings are checked too,
#     beside the gcc build of `make`), and that monitor and probe run a
#     local session with a recording, replay it, export and report it, draw
#     the curses screen in tmux with keys pressed, and meet bad input.  Any
#     AddressSanitizer, LeakSanitizer or UBSan report fails the test.
#  2. The ordinary build runs the same batch session, replay, export and
#     report under valgrind (memcheck, definite leaks are errors).
# Exit 0 pass, 1 fail, 77 skip (no clang or no valgrind).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
JOBTOP=${JOBTOP:-$TOP/jobtop}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-sanitize.XXXXXX") || exit 1
trap 'tmux -L jtsan kill-server 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

command -v clang >/dev/null 2>&1 || { echo "skip: no clang"; exit 77; }
command -v valgrind >/dev/null 2>&1 || { echo "skip: no valgrind"; exit 77; }
[ -x "$JOBTOP" ] || { echo "FAIL: $JOBTOP is not built"; exit 1; }

# 1. The sanitized build, out of the tree so the real build stays as it is.
mkdir -p "$tmp/src"
cp -r "$TOP/Makefile" "$TOP/src" "$TOP/ui" "$TOP/remote" "$TOP/probes" \
    "$TOP/themes" "$tmp/src/"
rm -rf "$tmp/src/build"
if ! make -C "$tmp/src" -j2 CC=clang WERROR=1 SANITIZE=address,undefined \
    OPT="-O1 -g" jobtop jobtop-probe >"$tmp/build.log" 2>&1; then
	tail -30 "$tmp/build.log"
	echo "FAIL: the clang -Werror sanitized build failed"
	exit 1
fi
SJT=$tmp/src/jobtop
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87
export XDG_STATE_HOME="$tmp/state"

# san NAME WANT CMD...: run CMD; WANT is "ok" (exit 0) or "err" (exit
# neither 0 nor a sanitizer's); no sanitizer report either way.
san() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
	rc=$?
	if grep -q "Sanitizer\|runtime error:" "$tmp/$name.err"; then
		fail "$name: a sanitizer report:"
		head -30 "$tmp/$name.err"
	elif [ "$want" = ok ] && [ $rc -ne 0 ]; then
		fail "$name: exit $rc: $(tail -3 "$tmp/$name.err")"
	elif [ "$want" = err ] && { [ $rc -eq 0 ] || [ $rc -ge 86 ]; }; then
		fail "$name: exit $rc, wanted a clean error"
	else
		echo "ok: $name (exit $rc)"
	fi
}

san live ok "$SJT" -w localhost -b --json -n 6 -d 0.2 -o "$tmp/rec.jtr"
san replay ok "$SJT" -r "$tmp/rec.jtr" -b --json
san export-csv ok "$SJT" export "$tmp/rec.jtr" --csv
san export-json ok "$SJT" export "$tmp/rec.jtr" --json
san report ok "$SJT" report "$tmp/rec.jtr" -o "$tmp/r.html"
[ -s "$tmp/r.html" ] || fail "report: no page"
head -c 3000 "$tmp/rec.jtr" >"$tmp/cut.jtr"
san replay-cut ok "$SJT" -r "$tmp/cut.jtr" -b --json
san replay-passwd err "$SJT" -r /etc/passwd -b
san bad-hostlist err "$SJT" --list -w 'n[1-'
san bad-option err "$SJT" --no-such-option
san bad-interval err "$SJT" -w localhost -b -d -1

# The curses screen: views, sort, filter, help, then q.
if command -v tmux >/dev/null 2>&1; then
	tmux -L jtsan new-session -d -x 140 -y 40 \
	    "$SJT -w localhost -d 0.2 --no-record 2>$tmp/tui.err; echo \$? >$tmp/tui.rc"
	sleep 2
	for k in r Enter Escape e Escape h Escape P / s h Enter f f; do
		tmux -L jtsan send-keys "$k"
		sleep 0.2
	done
	tmux -L jtsan send-keys q
	i=0
	while [ ! -s "$tmp/tui.rc" ] && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	if [ ! -s "$tmp/tui.rc" ]; then
		fail "tui: did not quit on q"
	elif grep -q "Sanitizer\|runtime error:" "$tmp/tui.err"; then
		fail "tui: a sanitizer report:"
		head -30 "$tmp/tui.err"
	elif [ "$(cat "$tmp/tui.rc")" != 0 ]; then
		fail "tui: exit $(cat "$tmp/tui.rc"): $(tail -3 "$tmp/tui.err")"
	else
		echo "ok: tui"
	fi
else
	fail "tmux is not installed"
fi

# 2. valgrind on the ordinary build.
vg() {
	name=$1
	shift
	if valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite --track-fds=no "$@" \
	    >"$tmp/vg-$name.out" 2>"$tmp/vg-$name.err" </dev/null; then
		echo "ok: valgrind $name"
	else
		fail "valgrind $name:"
		head -40 "$tmp/vg-$name.err"
	fi
}
vg live "$JOBTOP" -w localhost -b --json -n 4 -d 0.3 -o "$tmp/vg.jtr"
vg replay "$JOBTOP" -r "$tmp/vg.jtr" -b --json
vg export "$JOBTOP" export "$tmp/vg.jtr" --csv
vg report "$JOBTOP" report "$tmp/vg.jtr" -o "$tmp/vg.html"

[ $fails -eq 0 ]
