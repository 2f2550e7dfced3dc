#!/bin/sh
# SPDX-License-Identifier: ISC
# group: build
# header-deps: a changed header rebuilds exactly the objects made from it
# (issue 22).  In a scratch copy of the tree (the Makefile and the
# sources, with the objects of the tree's build/ copied beside them, times
# kept, so nothing is compiled again when the tree is built), the monitor
# and the probe are brought up to date and must then be up to date; then
# for src/model.h (the monitor's) and src/wire.h (the monitor's and the
# probe's, which musl-gcc may compile) the header is touched and `make -n`
# must recompile every object whose source includes it, directly or
# through another header, and no other object.  Which sources include it
# is asked of the compiler (-MM, with each object's own command line as
# make prints it), and the dependency files the build wrote must say the
# same.  Last, one monitor and one probe object are built again alone with
# cc and with clang: each must then be up to date (clang writes the .d after
# the object).  Exit 0 pass, 1 fail.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-hdeps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
LC_ALL=C
export LC_ALL
MAKEFLAGS=
MFLAGS=
export MAKEFLAGS MFLAGS

# The scratch tree: what `make jobtop jobtop-probe` reads, and the objects.
w=$tmp/w
mkdir -p "$w/build" || exit 1
for f in Makefile src ui remote probes; do
	cp -Rp "$TOP/$f" "$w/" || { echo "FAIL: cannot copy $f"; exit 1; }
done
for f in build/mon build/probe jobtop jobtop-probe; do
	[ -e "$TOP/$f" ] && cp -Rp "$TOP/$f" "$w/$f"
done
start=$(date +%s)
if ! make -C "$w" -j2 jobtop jobtop-probe >"$tmp/build.log" 2>&1; then
	tail -n 30 "$tmp/build.log"
	echo "FAIL: the scratch build failed"
	exit 1
fi
echo "ok: scratch build in $(($(date +%s) - start)) s"
make -C "$w" -n jobtop jobtop-probe >"$tmp/again.log" 2>&1
if grep -q -- ' -c -o ' "$tmp/again.log"; then
	fail "a second make compiles again (a dependency file newer than its object?):"
	grep -- ' -c -o ' "$tmp/again.log" | head -n 5
fi

# Recipe lines as make prints them with -n, continuations joined.
joined() {
	awk '/\\$/ { sub(/\\$/, ""); buf = buf $0; next }
	{ print buf $0; buf = "" }' "$1"
}

# Each object's headers from the compiler: its own compile command (make
# -n -B), without -c -o and the dependency flags, with -MM.  "OBJ FILE"
# pairs into $tmp/mm.
make -C "$w" -n -B jobtop jobtop-probe >"$tmp/all.log" 2>&1 ||
	{ fail "make -n -B failed"; cat "$tmp/all.log"; }
joined "$tmp/all.log" | grep -- ' -c -o build/' >"$tmp/compiles"
ncomp=$(wc -l <"$tmp/compiles")
[ "$ncomp" -ge 50 ] || fail "only $ncomp compile commands in make -n -B"
: >"$tmp/mm"
while IFS= read -r cmd; do
	obj=$(printf '%s\n' "$cmd" | sed 's/.* -c -o \([^ ]*\) .*/\1/')
	mm=$(printf '%s\n' "$cmd" | sed -e 's/ -c -o [^ ]* / /' \
	    -e 's/ -MMD -MP -MF [^ ]* -MT [^ ]*//')
	case "$mm" in
	*' -MMD'* | *' -c '*)
		fail "cannot turn this compile into -MM: $cmd"
		continue
		;;
	esac
	if ! (cd "$w" && eval "$mm -MM -MT $obj") >"$tmp/one" 2>&1; then
		fail "$obj: -MM failed: $(head -n 3 "$tmp/one")"
		continue
	fi
	tr -d '\\' <"$tmp/one" | tr ' \t' '\n\n' |
	    awk -v o="$obj" 'NR > 1 && NF { print o, $0 }' >>"$tmp/mm"
done <"$tmp/compiles"
cut -d' ' -f1 "$tmp/mm" | sort -u >"$tmp/objects"
nobj=$(wc -l <"$tmp/objects")

# The same pairs from the dependency files the build wrote.
: >"$tmp/dd"
while read -r obj; do
	if [ ! -f "$w/$obj.d" ]; then
		fail "no dependency file $obj.d"
		continue
	fi
	awk '/^[^ \t].*:/ && !/^[^ \t]*: *$/ { p = 1 } /^[^ \t]*: *$/ { p = 0 }
	p' "$w/$obj.d" | tr -d '\\' | tr ' \t' '\n\n' |
	    awk -v o="$obj" 'NR > 1 && NF { print o, $0 }' >>"$tmp/dd"
done <"$tmp/objects"

# check HEADER: touch it, make -n recompiles exactly its objects.
check() {
	h=$1
	awk -v h="$h" '$2 == h { print $1 }' "$tmp/mm" | sort -u >"$tmp/want"
	awk -v h="$h" '$2 == h { print $1 }' "$tmp/dd" | sort -u >"$tmp/wantd"
	nwant=$(wc -l <"$tmp/want")
	[ "$nwant" -ge 3 ] || fail "$h: only $nwant objects include it by -MM"
	[ $((nobj - nwant)) -ge 10 ] ||
	    fail "$h: only $((nobj - nwant)) objects do not include it"
	if ! cmp -s "$tmp/want" "$tmp/wantd"; then
		fail "$h: the dependency files disagree with -MM:"
		diff "$tmp/want" "$tmp/wantd" | sed 's/^/    /'
	fi
	direct=0
	while read -r obj; do
		src=$(awk -v o="$obj" '$1 == o { print $2; exit }' "$tmp/mm")
		grep -q "^#[ \t]*include[ \t]*\"$(basename "$h")\"" "$w/$src" &&
		    direct=$((direct + 1))
	done <"$tmp/want"
	sleep 1
	touch "$w/$h"
	make -C "$w" -n jobtop jobtop-probe >"$tmp/n.log" 2>&1 ||
		{ fail "$h: make -n failed"; cat "$tmp/n.log"; }
	joined "$tmp/n.log" | grep -- ' -c -o build/' |
	    sed 's/.* -c -o \([^ ]*\) .*/\1/' | sort -u >"$tmp/got"
	comm -23 "$tmp/want" "$tmp/got" | while read -r obj; do
		echo "FAIL: $h: $obj includes it but is not rebuilt"
	done >"$tmp/bad"
	comm -13 "$tmp/want" "$tmp/got" | while read -r obj; do
		echo "FAIL: $h: $obj does not include it but is rebuilt"
	done >>"$tmp/bad"
	if [ -s "$tmp/bad" ]; then
		cat "$tmp/bad"
		fails=$((fails + $(wc -l <"$tmp/bad")))
	else
		echo "ok: touching $h rebuilds its $nwant objects ($direct direct, $((nwant - direct)) through other headers) and not the other $((nobj - nwant))"
	fi
	# Bring the tree back up to date for the next header.
	while read -r obj; do
		touch "$w/$obj"
	done <"$tmp/got"
	touch "$w/jobtop" "$w/jobtop-probe"
}
check src/model.h
check src/wire.h
grep -q 'build/probe/' "$tmp/want" ||
	fail "src/wire.h: no probe object includes it (the probe's objects were not checked)"

# An object is newer than its dependency file with every compiler (clang
# writes the .d after the object): built again alone, it is up to date.
objs="$(grep -m 1 '^build/mon/' "$tmp/objects") $(grep -m 1 '^build/probe/' "$tmp/objects")"
for cc in cc clang; do
	command -v "$cc" >/dev/null 2>&1 || continue
	for o in $objs; do
		rm -f "$w/$o"
		if ! make -C "$w" CC="$cc" "$o" >"$tmp/cc.log" 2>&1; then
			fail "CC=$cc: $o does not build: $(tail -n 3 "$tmp/cc.log")"
		elif ! make -C "$w" CC="$cc" -q "$o" >/dev/null 2>&1; then
			fail "CC=$cc: $o is out of date right after its build (its .d is newer?)"
		else
			echo "ok: CC=$cc: $o is up to date after its build"
		fi
	done
done

[ $fails -eq 0 ] || { echo "FAIL: header-deps: $fails problem(s)"; exit 1; }
echo "ok: header dependencies of $nobj objects"
