#!/bin/sh
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
	libncurses-dev libssh2-1-dev libpcre2-dev \
	libclang-rt-14-dev llvm \
	openssh-server openssh-client slurm-wlm slurm-client munge \
	clustershell pdsh tmux iproute2 procps psmisc util-linux \
	mandoc valgrind gdb atop ca-certificates locales python3 chromium \
	dpkg-dev debhelper lintian man-db fakeroot git \
	postgresql oar-server oar-server-pgsql oar-user oar-user-pgsql oar-node \
	libyaml-perl libjson-perl \
	>/dev/null
