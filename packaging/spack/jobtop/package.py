# SPDX-License-Identifier: ISC
# A Spack recipe for jobtop, in the form of Spack's builtin repository.
# Use it from a repository of your own:
#
#   spack repo create myrepo && cp -r packaging/spack/jobtop \
#       myrepo/packages/ && spack repo add myrepo
#   spack install jobtop            # or: spack install jobtop probe_libc=glibc
#   spack load jobtop               # or the module Spack generates for it
#
# The install is relocatable: jobtop finds its probe in ../libexec/jobtop
# beside itself, so Spack views, buildcaches and moved prefixes work.
#
# tests/regress/pkg-spack.sh imports this file against a small stand-in
# for spack.package and runs its build and install steps for real.

from spack.package import *


class Jobtop(MakefilePackage):
    """jobtop is a top for one batch job that spans many nodes. From a login
    node it pushes a small static probe over SSH to each of the job's nodes
    (Slurm, PBS, LSF, Flux or a host list), streams compact samples back
    and shows per-job, per-node and per-rank panels in a curses interface,
    recording the session for replay. The nodes need nothing installed."""

    # FIXME: jobtop has no public address or release tarball yet.  Set
    # homepage and git (or url and a sha256 per version) when it has; until
    # then use `spack develop jobtop@0.1.0` on a local checkout.
    homepage = "https://jobtop.invalid/"
    git = "https://jobtop.invalid/jobtop.git"

    license("ISC")

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    # The probe runs on compute nodes that have nothing installed, so it is
    # always linked statically.  The Makefile uses musl-gcc when it is on
    # PATH (small, about 140 kB) and otherwise links glibc statically (about
    # 900 kB; needs the system's libc.a: glibc-static or libc6-dev).  Spack
    # has no musl toolchain of its own, so musl means the system's musl-gcc.
    variant(
        "probe_libc",
        default="auto",
        values=("auto", "musl", "glibc"),
        multi=False,
        description="C library of the static probe: musl-gcc when found "
        "(auto), musl-gcc required (musl), or static glibc (glibc)",
    )

    depends_on("c", type="build")
    depends_on("gmake", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("ncurses")
    depends_on("libssh2")
    depends_on("pcre2")
    depends_on("sqlite")  # export --sqlite

    def _probe_args(self):
        libc = self.spec.variants["probe_libc"].value
        if libc == "glibc":
            # An empty MUSL_GCC on the command line overrides the
            # Makefile's own search for it.
            return ["MUSL_GCC="]
        if libc == "musl":
            musl_gcc = which("musl-gcc")
            if musl_gcc is None:
                raise InstallError(
                    "probe_libc=musl needs musl-gcc on PATH "
                    "(Debian: musl-tools; Fedora: musl-gcc musl-libc-static)"
                )
            return ["MUSL_GCC={0}".format(musl_gcc.path)]
        return []

    def edit(self, spec, prefix):
        # The Makefile takes PREFIX on the command line and finds ncurses,
        # libssh2 and pcre2 through pkg-config: nothing to patch.  Check
        # the probe's toolchain before building anything.
        self._probe_args()

    @property
    def build_targets(self):
        return ["PREFIX={0}".format(self.prefix)] + self._probe_args() + ["all"]

    def install(self, spec, prefix):
        make("install", "PREFIX={0}".format(prefix), *self._probe_args())

    def check(self):
        # The unit tests only: the rest of `make check` brings up a Slurm
        # cluster in network namespaces, which needs root.
        make("tests-build", *self._probe_args())
        Executable(join_path(self.stage.source_path, "tests", "run.sh"))("unit/")
