#!/bin/sh
# SPDX-License-Identifier: ISC
# group: build
# pkg-module: packaging/modulefiles/jobtop/0.1.0 under Lmod and under
# Environment Modules (both read Tcl module files), on an install
# that was moved after `make install`: jobtop is installed to one prefix,
# the tree is moved to a directory whose name has spaces (the first prefix,
# compiled in as the fallback, is gone), the module file's root is set to
# it, and after `module use DIR; module load jobtop`:
#   - `jobtop` on PATH is the moved one, and `jobtop --version` names the
#     moved libexec (probe) and share (themes);
#   - `jobtop -w localhost -b -n 2 --no-record` samples localhost;
#   - `man -w jobtop` finds the moved page through MANPATH, and the
#     system's pages (man -w ls) are still found;
#   - `module unload jobtop` takes it off PATH and MANPATH again;
#   - a module file whose root does not exist fails to load, with a
#     message that says which directory is missing.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

lmodinit=/usr/share/lmod/lmod/init/sh
[ -r "$lmodinit" ] ||
	fail "Lmod is missing ($lmodinit; tests/install-deps.sh installs lmod)"
# Environment Modules conflicts with lmod as a Debian package:
# tests/install-deps.sh unpacks it into /opt/jobtop-envmodules instead.
modulecmd=$(ls /opt/jobtop-envmodules/usr/lib/*/modulecmd.tcl \
	/usr/lib/*/modulecmd.tcl /usr/share/modules/libexec/modulecmd.tcl \
	2>/dev/null | head -n 1)
[ -n "$modulecmd" ] && command -v tclsh >/dev/null 2>&1 ||
	fail "Environment Modules' modulecmd.tcl or tclsh is missing" \
	"(tests/install-deps.sh unpacks it)"
command -v man >/dev/null 2>&1 ||
	fail "man is missing (tests/install-deps.sh installs man-db)"
mf=$TOP/packaging/modulefiles/jobtop/0.1.0
[ -r "$mf" ] || fail "$mf is missing"
ver=$(sed -n 's/^VERSION = //p' "$TOP/Makefile")
[ "$(basename "$mf")" = "$ver" ] ||
	fail "module file version $(basename "$mf") is not the Makefile's $ver"

# Build and install from a copy, so the tree's own binaries keep their
# compiled-in PREFIX.
src=$tmp/src
mkdir -p "$src"
(cd "$TOP" && tar -cf - --exclude=./.git --exclude=./build \
	--exclude=./jobtop --exclude=./jobtop-probe --exclude=./jobtop-nvml \
	--exclude=./debian .) | tar -C "$src" -xf - ||
	fail "cannot copy the tree"
first=$tmp/first
make -C "$src" -j4 install PREFIX="$first" >"$tmp/make.log" 2>&1 ||
	{ tail -n 30 "$tmp/make.log"; fail "make install failed"; }
mkdir -p "$tmp/some unusual dir"
root="$tmp/some unusual dir/jobtop 0.1.0"
mv "$first" "$root" || fail "cannot move the install"
root=$(cd -P "$root" && pwd)
[ -e "$first" ] && fail "$first still exists"

# The module tree: the module file with root set, and one with a wrong root.
n=$(grep -c '^set root ' "$mf")
[ "$n" -eq 1 ] || fail "the module file has $n 'set root' lines, not one"
mkdir -p "$tmp/modules/jobtop" "$tmp/badmodules/jobtop"
sed "s|^set root .*|set root {$root}|" "$mf" >"$tmp/modules/jobtop/$ver"
sed "s|^set root .*|set root {$tmp/nowhere}|" "$mf" \
	>"$tmp/badmodules/jobtop/$ver"

unset MODULEPATH LOADEDMODULES _LMFILES_ MANPATH JOBTOP_PROBE
export XDG_STATE_HOME="$tmp/state"

# The checks, with `module` from the tool named in $tool; run in a
# subshell, so that each tool starts from the same environment.
checks() {
	module use "$tmp/modules"
	module load jobtop >"$tmp/load" 2>&1 ||
		fail "$tool: module load: $(cat "$tmp/load")"
	[ "$(command -v jobtop)" = "$root/bin/jobtop" ] ||
		fail "$tool: jobtop on PATH is '$(command -v jobtop)'," \
		"not $root/bin/jobtop"
	module list >"$tmp/list" 2>&1
	grep -q "jobtop/$ver" "$tmp/list" ||
		fail "$tool: module list: $(cat "$tmp/list")"

	jobtop --version >"$tmp/version" 2>&1 ||
		fail "$tool: jobtop --version: $(cat "$tmp/version")"
	cat "$tmp/version"
	grep -qx "probe: $root/libexec/jobtop/jobtop-probe" "$tmp/version" ||
		fail "$tool: --version does not name the moved probe"
	grep -q "^themes: .*$root/share/jobtop/themes" "$tmp/version" ||
		fail "$tool: --version does not name the moved themes"

	jobtop -w localhost -b -n 2 -d 0.2 --no-record \
		>"$tmp/run" 2>"$tmp/err" ||
		fail "$tool: jobtop -w localhost: $(cat "$tmp/err")"
	[ "$(grep -c localhost "$tmp/run")" -ge 2 ] ||
		fail "$tool: fewer than two localhost samples: $(cat "$tmp/run")"

	page=$(man -w jobtop 2>&1) || fail "$tool: man -w jobtop: $page"
	[ "$page" = "$root/share/man/man1/jobtop.1" ] ||
		fail "$tool: man -w jobtop found '$page' (MANPATH=${MANPATH:-})"
	man jobtop 2>/dev/null | grep -q jobtop ||
		fail "$tool: man jobtop shows nothing"
	if [ -e /usr/share/man/man1/ls.1.gz ]; then
		man -w ls >/dev/null 2>&1 ||
			fail "$tool: the system's pages are lost:" \
			"MANPATH=${MANPATH:-}"
	fi
	echo "$tool: PATH and MANPATH lead to $root"

	module unload jobtop >/dev/null 2>&1 ||
		fail "$tool: module unload failed"
	command -v jobtop >/dev/null 2>&1 &&
		fail "$tool: jobtop still on PATH after unload:" \
		"$(command -v jobtop)"
	[ -z "${MANPATH:-}" ] ||
		fail "$tool: MANPATH left behind after unload: $MANPATH"

	module unuse "$tmp/modules"
	module use "$tmp/badmodules"
	if module load jobtop >"$tmp/bad" 2>&1; then
		fail "$tool: a module file with a missing root loaded"
	fi
	grep -q "$tmp/nowhere/bin does not exist" "$tmp/bad" ||
		fail "$tool: no clear error for a missing root: $(cat "$tmp/bad")"
	command -v jobtop >/dev/null 2>&1 &&
		fail "$tool: the bad module put jobtop on PATH"
	echo "$tool: a missing root: load refused"
}

(
	tool=Lmod
	# shellcheck disable=SC1090
	. "$lmodinit" || fail "cannot source $lmodinit"
	checks
) || exit 1
(
	tool="Environment Modules"
	module() {
		eval "$(tclsh "$modulecmd" sh "$@")"
	}
	checks
) || exit 1
