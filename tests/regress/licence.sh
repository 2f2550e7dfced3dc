#!/bin/sh
# SPDX-License-Identifier: ISC
# licence: the tree states its licence.  LICENSE at the root is the ISC
# licence, every source file (C, headers, shell, Python, the Makefile, the
# man page, themes, packaging) carries an SPDX-License-Identifier line in
# its first three lines, and the packages say the same.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

[ -f LICENSE ] || fail "no LICENSE at the top of the tree"
head -n 1 LICENSE | grep -qx 'ISC License' || fail "LICENSE is not the ISC licence"
missing=$(find src ui remote probes tests themes packaging debian .ci \
	Makefile jobtop.1 -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' \
	   -o -name '*.theme' -o -name '*.spec' -o -name Makefile -o -name run \
	   -o -name rules -o -name '*.1' -o -path '*/modulefiles/*' \) \
	-not -path 'tests/fuzz/corpus/*' -not -path 'tests/data/fixtures/*' \
	-not -path 'debian/jobtop/*' -not -path 'debian/.debhelper/*' |
	while read -r f; do
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier: ISC' || echo "$f"
	done)
[ -z "$missing" ] || fail "no SPDX-License-Identifier line in: $missing"
grep -qx 'License:        ISC' packaging/rpm/jobtop.spec || fail "the RPM spec states no ISC licence"
grep -q '^%license LICENSE' packaging/rpm/jobtop.spec || fail "the RPM does not ship LICENSE"
grep -q 'license("ISC")' packaging/spack/jobtop/package.py || fail "the Spack recipe states no licence"
grep -qx 'License: ISC' debian/copyright || fail "debian/copyright states no ISC licence"
echo "licence: ISC, stated in $(find src ui remote probes -name '*.[ch]' | wc -l) C files and the packages"
