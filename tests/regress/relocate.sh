#!/bin/sh
# SPDX-License-Identifier: ISC
# relocate: an install moved as a whole to a prefix it was not built for
# (Spack, a module tree) finds its probe, NVML helper and themes from its
# own path: PREFIX/bin/jobtop takes PREFIX/libexec/jobtop/jobtop-probe and
# PREFIX/share/jobtop/themes, also when started through a symbolic link;
# --version says so; JOBTOP_PROBE still comes first; nothing found gives
# one error line naming where it looked.  As root, an unsafe libexec
# directory is refused, not passed over.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

for f in jobtop jobtop-probe jobtop-nvml; do
	[ -x "$TOP/$f" ] || fail "$TOP/$f not built"
done
# An odd prefix, with a space, far from the built-in /usr/local.
pre="$tmp/opt/job top 1.0"
mkdir -p "$pre/bin" "$pre/libexec/jobtop" "$pre/share/jobtop/themes" \
	"$tmp/elsewhere" || fail "mkdir"
cp "$TOP/jobtop" "$pre/bin/" &&
cp "$TOP/jobtop-probe" "$TOP/jobtop-nvml" "$pre/libexec/jobtop/" &&
cp "$TOP/themes/"*.theme "$pre/share/jobtop/themes/" || fail "copy"
ln -s "$pre/bin/jobtop" "$tmp/elsewhere/jobtop"
chmod -R go-w "$tmp"

# Run from a directory without ./themes, with no user themes and no
# system ones: XDG_DATA_DIRS defaults to /usr/local/share:/usr/share, where
# a jobtop package may be installed (regress/pkg-deb installs one for a
# while, in the build group beside this test: the themes line then named
# /usr/share/jobtop/themes too).
cd "$tmp" || exit 1
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" \
	XDG_DATA_HOME="$tmp/home/.local/share" XDG_DATA_DIRS="$tmp/no-xdg"
unset JOBTOP_PROBE JOBTOP_NVML JOBTOP_DATADIR

for jt in "$pre/bin/jobtop" "$tmp/elsewhere/jobtop"; do
	"$jt" --version >out 2>err || fail "$jt --version: $(cat err)"
	grep -qx "probe: $pre/libexec/jobtop/jobtop-probe" out ||
		fail "$jt --version, probe: $(cat out)"
	grep -qx "nvml helper: $pre/libexec/jobtop/jobtop-nvml" out ||
		fail "$jt --version, nvml: $(cat out)"
	grep -qx "themes: $pre/share/jobtop/themes, built-in default" out ||
		fail "$jt --version, themes: $(cat out)"
	"$jt" -w localhost -b -n 2 -d 0.2 --no-record >out 2>err ||
		fail "$jt -w localhost: $(cat err)"
	[ "$(grep -c localhost out)" -ge 2 ] ||
		fail "$jt -w localhost printed: $(cat out)"
done

# The override comes first.
cp "$TOP/jobtop-probe" "$tmp/other-probe"
JOBTOP_PROBE="$tmp/other-probe" "$pre/bin/jobtop" --version >out 2>&1
grep -qx "probe: $tmp/other-probe" out || fail "JOBTOP_PROBE: $(cat out)"

# As root, a libexec directory others may write is an error.
if [ "$(id -u)" -eq 0 ]; then
	chmod g+w "$pre/libexec/jobtop"
	"$pre/bin/jobtop" -w localhost -b -n 1 --no-record >out 2>err &&
		fail "unsafe libexec directory accepted as root"
	grep -q "not safe to run as root" err ||
		fail "unsafe libexec: $(cat err)"
	chmod g-w "$pre/libexec/jobtop"
fi

# No probe anywhere: one line that says where it looked.
rm "$pre/libexec/jobtop/jobtop-probe"
"$pre/bin/jobtop" -w localhost -b -n 1 --no-record >out 2>err &&
	fail "ran without a probe"
[ "$(wc -l <err)" -eq 1 ] || fail "not one error line: $(cat err)"
grep -q "$pre/libexec/jobtop" err || fail "error names no path: $(cat err)"
echo "relocate: ok"
