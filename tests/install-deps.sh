#!/bin/sh
# SPDX-License-Identifier: ISC
# Install every Debian package that the build, the tests, the lab cluster,
# the fuzzers and the benchmarks need.  Run as root (or through sudo).
set -e
if [ "$(id -u)" -ne 0 ]; then
	exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential gcc clang make pkg-config musl-tools \
	libncurses-dev libssh2-1-dev libpcre2-dev libsqlite3-dev \
	libclang-rt-14-dev llvm \
	openssh-server openssh-client slurm-wlm slurm-client munge \
	clustershell pdsh tmux iproute2 procps psmisc util-linux \
	mandoc valgrind gdb elfutils atop ca-certificates locales python3 chromium \
	dpkg-dev debhelper lintian man-db fakeroot git \
	postgresql oar-server oar-server-pgsql oar-user oar-user-pgsql oar-node \
	libyaml-perl libjson-perl \
	>/dev/null
# Exports (tests/regress/export-formats.sh): the tools each format is
# for read it: sqlite3, promtool (Debian's prometheus package), pandas.
apt-get install -y -qq --no-install-recommends \
	sqlite3 prometheus python3-pandas >/dev/null
# MPI lab tests (tests/lab/test-mpi-*.sh): MPICH and Open MPI with their
# compilers, to build tests/lab/mpi/mpiload.c and run it under their
# launchers; PyTorch (CPU, gloo) for the training job of test-torch.sh.
apt-get install -y -qq --no-install-recommends \
	mpich libmpich-dev openmpi-bin libopenmpi-dev python3-torch >/dev/null
# Packaging tests (tests/regress/pkg-*.sh): rpmbuild and rpm2cpio, Lmod
# for the module file, man to find the page through MANPATH.
apt-get install -y -qq --no-install-recommends \
	rpm cpio file lmod man-db python3 tcl8.6 >/dev/null
# Environment Modules, the other reader of Tcl module files, conflicts with
# lmod as a package: unpack it where pkg-module.sh runs its modulecmd.tcl.
if ! ls /opt/jobtop-envmodules/usr/lib/*/modulecmd.tcl >/dev/null 2>&1; then
	em=$(mktemp -d)
	chmod 755 "$em"
	# apt downloads as _apt where it may write (else it warns).
	chown _apt "$em" 2>/dev/null || true
	(cd "$em" && apt-get download -qq environment-modules) >/dev/null
	dpkg -x "$em"/environment-modules_*.deb /opt/jobtop-envmodules
	rm -rf "$em"
fi
