#!/bin/sh
# SPDX-License-Identifier: ISC
# group: build
# pkg-rpm: packaging/rpm/jobtop.spec builds with `rpmbuild -bb` from a
# tarball of this tree, and its package holds exactly the files (with the
# same modes) that `make install PREFIX=/usr` installs, and, when a debian/
# directory is there, exactly the files of the .deb (documentation and
# lintian overrides aside).
# The package's jobtop, unpacked into a directory of its own, finds the
# package's probe beside itself and samples localhost.
#
# Debian keeps no rpm database of installed packages, so rpmbuild runs with
# --nodeps: the spec's BuildRequires are the Fedora/RHEL names of what
# tests/install-deps.sh installs here.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

for c in rpmbuild rpm rpm2cpio cpio; do
	command -v $c >/dev/null 2>&1 ||
		fail "$c is missing (tests/install-deps.sh installs rpm)"
done

spec=$TOP/packaging/rpm/jobtop.spec
ver=$(sed -n 's/^VERSION = //p' "$TOP/Makefile")
specver=$(sed -n 's/^Version: *//p' "$spec")
[ -n "$ver" ] && [ "$ver" = "$specver" ] ||
	fail "spec Version '$specver' is not the Makefile's VERSION '$ver'"

# The source tarball: this tree as it is, without build outputs.
src=$tmp/src/jobtop-$ver
mkdir -p "$src" "$tmp/top/SOURCES"
(cd "$TOP" && tar -cf - --exclude=./.git --exclude=./build \
	--exclude=./jobtop --exclude=./jobtop-probe --exclude=./jobtop-nvml \
	--exclude='./debian/jobtop' --exclude='./debian/.debhelper' .) |
	tar -C "$src" -xf - || fail "cannot copy the tree"
tar -C "$tmp/src" -czf "$tmp/top/SOURCES/jobtop-$ver.tar.gz" \
	"jobtop-$ver" || fail "cannot make the tarball"

rpmbuild -bb --nodeps --define "_topdir $tmp/top" "$spec" \
	>"$tmp/rpmbuild.log" 2>&1 ||
	{ tail -n 30 "$tmp/rpmbuild.log"; fail "rpmbuild -bb failed"; }
rpmfile=$(ls "$tmp"/top/RPMS/*/jobtop-"$ver"-*.rpm 2>/dev/null | head -n 1)
[ -n "$rpmfile" ] || fail "rpmbuild wrote no jobtop-$ver package"
echo "built $(basename "$rpmfile")"

# One line per regular file: mode and path, man pages without the
# compression suffix that each packager adds, documentation, licence
# files and Debian's lintian overrides left out.
rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpmfile" \
	>"$tmp/rpm.raw" || fail "rpm -qp cannot read $rpmfile"
rpm -qlp "$rpmfile" >"$tmp/rpm.qlp" || fail "rpm -qlp failed"
norm() {
	grep '^-' | grep -v -e ' /usr/share/doc/' -e ' /usr/share/lintian/' \
		-e ' /usr/share/licenses/' |
		sed 's/^\(-[-rwxsStT]*\) \/*/\1 \//; s/\.gz$//' | sort
}
norm <"$tmp/rpm.raw" >"$tmp/rpm.files"
[ -s "$tmp/rpm.files" ] || fail "the package lists no files"
grep -qx "/usr/share/doc/jobtop-$ver/README.md" "$tmp/rpm.qlp" ||
	fail "README.md is not in the package's documentation"
# %license: /usr/share/licenses/NAME (Fedora) or NAME-VERSION (older rpm).
grep -qx "/usr/share/licenses/jobtop\(-$ver\)\{0,1\}/LICENSE" "$tmp/rpm.qlp" ||
	fail "the package does not carry the licence (LICENSE)"

# What `make install` puts in a staging directory, from the tree rpmbuild
# built (already compiled, with the same PREFIX: nothing is rebuilt).
built=$tmp/top/BUILD/jobtop-$ver
[ -f "$built/Makefile" ] || built=$src
make -C "$built" -j4 install PREFIX=/usr DESTDIR="$tmp/stage" \
	>"$tmp/make.log" 2>&1 ||
	{ tail -n 30 "$tmp/make.log"; fail "make install failed"; }
(cd "$tmp/stage" && find . -type f -printf '%M %p\n') |
	sed 's/ \./ /' | norm >"$tmp/make.files"
if ! cmp -s "$tmp/rpm.files" "$tmp/make.files"; then
	diff -u "$tmp/make.files" "$tmp/rpm.files"
	fail "the RPM's files differ from make install's (- make, + rpm)"
fi
echo "rpm and make install: the same $(wc -l <"$tmp/rpm.files") files"

# The .deb, when this tree has the Debian packaging.
if [ -d "$TOP/debian" ]; then
	command -v dpkg-buildpackage >/dev/null 2>&1 ||
		fail "debian/ is there but dpkg-buildpackage is not"
	# pkg-deb's package of this very tree, when it left one (same stamp);
	# else built here.
	. "$TOP/tests/regress/lib/pkgcache.sh"
	cache=$(pkg_cache_dir "$TOP")
	debfile=
	[ -n "$cache" ] && debfile=$(ls "$cache"/jobtop_"$ver"*.deb 2>/dev/null | head -n 1)
	if [ -n "$debfile" ]; then
		echo "the .deb pkg-deb built from this same tree: $debfile"
	else
		(cd "$src" && dpkg-buildpackage -us -uc -b) >"$tmp/deb.log" 2>&1 ||
			{ tail -n 30 "$tmp/deb.log"; fail "dpkg-buildpackage failed"; }
		debfile=$(ls "$tmp"/src/jobtop_"$ver"*.deb 2>/dev/null | head -n 1)
	fi
	[ -n "$debfile" ] || fail "dpkg-buildpackage wrote no jobtop .deb"
	dpkg-deb -c "$debfile" | awk '{ print $1, $NF }' |
		sed 's/ \.\// \//' | norm >"$tmp/deb.files"
	if ! cmp -s "$tmp/rpm.files" "$tmp/deb.files"; then
		diff -u "$tmp/deb.files" "$tmp/rpm.files"
		fail "the RPM's files differ from the .deb's (- deb, + rpm)"
	fi
	echo "rpm and deb: the same files"
else
	echo "no debian/ in this tree: compared with make install only"
fi

# Unpack the package somewhere else and run it from there: the probe must
# be the package's own, found relative to the executable.
mkdir -p "$tmp/unpacked"
(cd "$tmp/unpacked" && rpm2cpio "$rpmfile" | cpio -idm --quiet) ||
	fail "cannot unpack $rpmfile"
root=$(cd -P "$tmp/unpacked/usr" && pwd)
"$root/bin/jobtop" --version >"$tmp/version" 2>&1 ||
	fail "jobtop --version: $(cat "$tmp/version")"
grep -qx "probe: $root/libexec/jobtop/jobtop-probe" "$tmp/version" ||
	fail "the unpacked jobtop does not use its own probe: $(cat "$tmp/version")"
if command -v file >/dev/null 2>&1; then
	file -L "$root/libexec/jobtop/jobtop-probe" | grep -q 'static' ||
		fail "the packaged probe is not static"
fi
env -u JOBTOP_PROBE XDG_STATE_HOME="$tmp/state" "$root/bin/jobtop" \
	-w localhost -b -n 2 -d 0.2 --no-record >"$tmp/run" 2>"$tmp/err" ||
	fail "the packaged jobtop failed: $(cat "$tmp/err")"
grep -q localhost "$tmp/run" || fail "no localhost line: $(cat "$tmp/run")"
echo "the unpacked package runs: $(grep -c localhost "$tmp/run") samples"
