#!/bin/sh
# SPDX-License-Identifier: ISC
# group: build
# pkg-deb: the Debian package, for real.  From a copy of the source tree
# (what git tracks, plus new files it does not ignore), dpkg-buildpackage
# -us -uc -b builds jobtop_*.deb; lintian finds no error in it; dpkg -i
# installs it; the installed /usr/bin/jobtop takes its probe, NVML helper
# and themes from /usr/libexec/jobtop and /usr/share/jobtop (--version),
# watches localhost through that probe, and `man jobtop` renders; dpkg -r
# removes it and leaves none of its files behind.  Needs root (it installs
# a package): skipped otherwise.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}

fail() {
	echo "FAIL: $*"
	exit 1
}
skip() {
	echo "$*"
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip "not root: installing a package needs root"
for c in dpkg-buildpackage dh lintian man git; do
	command -v $c >/dev/null 2>&1 ||
		skip "$c is not installed (tests/install-deps.sh)"
done
git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 ||
	skip "$TOP is not a git checkout: no list of the sources to copy"
if dpkg-query -W -f='${db:Status-Abbrev}' jobtop 2>/dev/null |
    grep -q '^i'; then
	skip "a jobtop package is already installed: not replacing it"
fi

tmp=$(mktemp -d)
installed=0
cleanup() {
	[ $installed -eq 1 ] && dpkg -r jobtop >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The tree as a clean checkout would have it, in a directory of its own:
# the packages land in its parent, $tmp, not beside the repository.
mkdir "$tmp/src"
. "$TOP/tests/regress/lib/pkgcache.sh"
stampdir=$(pkg_cache_dir "$TOP")
(cd "$TOP" && git ls-files -z -c -o --exclude-standard) |
	(cd "$TOP" && xargs -0 sh -c 'd=$1; shift; for f; do
	    if [ -e "$f" ] || [ -L "$f" ]; then
	    cp --parents -P "$f" "$d" || exit 1; fi; done' sh "$tmp/src") ||
	fail "copying the tree"
[ -f "$tmp/src/debian/control" ] || fail "no debian/control in the tree"

start=$(date +%s)
(cd "$tmp/src" && dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$tmp/build.log" 2>&1 ||
	fail "dpkg-buildpackage failed: $(tail -n 25 "$tmp/build.log")"
echo "built in $(( $(date +%s) - start )) s"
deb=$(ls "$tmp"/jobtop_*.deb 2>/dev/null | head -n 1)
changes=$(ls "$tmp"/jobtop_*.changes 2>/dev/null | head -n 1)
[ -n "$deb" ] && [ -n "$changes" ] || fail "no .deb or .changes: $(ls "$tmp")"
# Kept for pkg-rpm's comparison, under the stamp of the tree it came from.
cache=$(pkg_cache_dir "$TOP")
if [ -n "$cache" ] && [ "$cache" = "$stampdir" ]; then
	mkdir -p "$cache" && cp "$deb" "$cache/" ||
		echo "note: cannot keep $deb in $cache"
fi

# lintian: errors fail, warnings are shown.
lintian "$changes" >"$tmp/lintian" 2>&1
grep -v 'running with root privileges' "$tmp/lintian"
grep -q '^E:' "$tmp/lintian" && fail "lintian errors"

# The package's file list, to check the removal against.
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' \
	>"$tmp/files"
for f in /usr/bin/jobtop /usr/libexec/jobtop/jobtop-probe \
    /usr/libexec/jobtop/jobtop-nvml /usr/share/jobtop/themes/dark.theme; do
	grep -qx "$f" "$tmp/files" || fail "$f not in the package"
done
grep -q '^/usr/share/man/man1/jobtop\.1' "$tmp/files" ||
	fail "no man page in the package"

# A container's dpkg may be told to leave out man pages: not this one.
installed=1
dpkg --path-include='/usr/share/man/man1/jobtop.1*' -i "$deb" \
	>"$tmp/install.log" 2>&1 || fail "dpkg -i: $(cat "$tmp/install.log")"

# Run the installed monitor away from the tree, with no override.
cd "$tmp" || exit 1
unset JOBTOP_PROBE JOBTOP_NVML JOBTOP_DATADIR
/usr/bin/jobtop --version >out 2>err || fail "--version: $(cat err)"
cat out
grep -qx 'probe: /usr/libexec/jobtop/jobtop-probe' out ||
	fail "--version names no /usr/libexec/jobtop probe"
grep -qx 'nvml helper: /usr/libexec/jobtop/jobtop-nvml' out ||
	fail "--version names no /usr/libexec/jobtop NVML helper"
grep -q '^themes: .*/usr/share/jobtop/themes' out ||
	fail "--version names no /usr/share/jobtop/themes"
/usr/bin/jobtop -w localhost -b -n 2 -d 0.3 --no-record >out 2>err ||
	fail "installed jobtop -w localhost: $(cat err)"
[ "$(grep -c '^localhost ' out)" -eq 2 ] ||
	fail "want 2 localhost lines: $(cat out) $(cat err)"
grep -qx 'License: ISC' /usr/share/doc/jobtop/copyright ||
	fail "the installed copyright file does not state the ISC licence"
MANPAGER=cat MANWIDTH=80 man jobtop >man.txt 2>err ||
	fail "man jobtop: $(cat err)"
grep -q '^NAME' man.txt && grep -q 'jobtop' man.txt ||
	fail "man jobtop did not render: $(head -n 5 man.txt)"

dpkg -r jobtop >"$tmp/remove.log" 2>&1 ||
	fail "dpkg -r: $(cat "$tmp/remove.log")"
installed=0
dpkg-query -W -f='${db:Status-Abbrev}' jobtop 2>/dev/null | grep -q '^i' &&
	fail "still installed after dpkg -r"
left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done <"$tmp/files")
[ -z "$left" ] || fail "left behind by dpkg -r: $left"
for d in /usr/libexec/jobtop /usr/share/jobtop /usr/share/doc/jobtop; do
	[ -e "$d" ] && fail "$d left behind by dpkg -r"
done
echo "pkg-deb: ok"
