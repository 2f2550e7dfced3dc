# SPDX-License-Identifier: ISC
# The packaging tests build the same tree more than once (pkg-deb builds
# the .deb; pkg-rpm compares its RPM with a .deb).  A package built from a
# tree is kept under build/pkg-cache with a stamp of that tree's contents:
# another test reuses it only when the tree it would build from has the
# same stamp, so a changed file always means a fresh build.
#
# pkg_tree_stamp TOP: a hash of every file git tracks or would track
# (names and contents), or nothing when TOP is no git checkout.
pkg_tree_stamp() {
	git -C "$1" rev-parse --git-dir >/dev/null 2>&1 || return 0
	(cd "$1" && git ls-files -z -c -o --exclude-standard |
		LC_ALL=C sort -z | xargs -0 sha256sum 2>/dev/null) |
		sha256sum | cut -c1-32
}

# pkg_cache_dir TOP: where packages of TOP's current contents are kept.
pkg_cache_dir() {
	s=$(pkg_tree_stamp "$1")
	[ -n "$s" ] && echo "$1/build/pkg-cache/$s"
}
