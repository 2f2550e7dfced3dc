#!/bin/sh
# SPDX-License-Identifier: ISC
# group: build
# pkg-spack: packaging/spack/jobtop/package.py compiles as Python, imports
# against a small stand-in for `spack.package` (Spack itself is not
# installed here), declares a MakefilePackage with versions and the
# dependencies ncurses, libssh2, pcre2 (link and run) and pkgconfig (build),
# and its edit/build/install steps, run for real with make in a copy of
# this tree and probe_libc=glibc, install a monitor, a static glibc probe,
# the man page and the themes under the prefix.  probe_libc=musl without
# musl-gcc on PATH fails with an error that names it.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v python3 >/dev/null 2>&1 ||
	fail "python3 is missing (tests/install-deps.sh installs it)"
recipe=$TOP/packaging/spack/jobtop/package.py
[ -r "$recipe" ] || fail "$recipe is missing"
# Bytecode goes to the temporary directory, not beside the recipe.
export PYTHONPYCACHEPREFIX="$tmp/pycache" PYTHONDONTWRITEBYTECODE=1
python3 -m py_compile "$recipe" 2>"$tmp/pyc" ||
	fail "package.py does not compile: $(cat "$tmp/pyc")"

src=$tmp/src
mkdir -p "$src"
(cd "$TOP" && tar -cf - --exclude=./.git --exclude=./build \
	--exclude=./jobtop --exclude=./jobtop-probe --exclude=./jobtop-nvml \
	--exclude=./debian .) | tar -C "$src" -xf - ||
	fail "cannot copy the tree"

# The stand-in: the directives record what they are given, the base class
# has Spack's MakefilePackage phases, make() runs GNU make in the source.
mkdir -p "$tmp/stub/spack"
: >"$tmp/stub/spack/__init__.py"
cat >"$tmp/stub/spack/package.py" <<'PY'
import os
import shutil
import subprocess

DIRECTIVES = []


def _directive(name):
    def record(*args, **kwargs):
        DIRECTIVES.append((name, args, kwargs))
    return record


version = _directive("version")
variant = _directive("variant")
depends_on = _directive("depends_on")
conflicts = _directive("conflicts")
license = _directive("license")
maintainers = _directive("maintainers")


class InstallError(Exception):
    pass


class _Exe:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args):
        subprocess.run([self.path] + [str(a) for a in args],
                       cwd=SOURCE, check=True)


def Executable(path):
    return _Exe(path)


def which(name):
    path = shutil.which(name)
    return _Exe(path) if path else None


def join_path(*parts):
    return os.path.join(*parts)


SOURCE = None


def make(*args):
    subprocess.run(["make", "-j4"] + [str(a) for a in args], cwd=SOURCE,
                   check=True, stdout=subprocess.DEVNULL)


class _Variant:
    def __init__(self, value):
        self.value = value


class Spec:
    def __init__(self, **variants):
        self.variants = {k: _Variant(v) for k, v in variants.items()}


class MakefilePackage:
    build_targets = []

    def __init__(self, spec, prefix):
        self.spec = spec
        self.prefix = prefix

    def edit(self, spec, prefix):
        pass

    def build(self, spec, prefix):
        make(*self.build_targets)

    def install(self, spec, prefix):
        make("install", "PREFIX={0}".format(prefix))
PY

cat >"$tmp/check.py" <<'PY'
import importlib.util
import os
import subprocess
import sys

import spack.package as sp

recipe, src, prefix = sys.argv[1:4]
sp.SOURCE = src


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


spec = importlib.util.spec_from_file_location("jobtop_recipe", recipe)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
cls = getattr(mod, "Jobtop", None)
if cls is None or not issubclass(cls, sp.MakefilePackage):
    fail("no class Jobtop(MakefilePackage)")
for attr in ("homepage", "git"):
    if not isinstance(getattr(cls, attr, None), str):
        fail("no %s" % attr)
if not (cls.__doc__ or "").strip():
    fail("no docstring (spack info shows it)")

deps = {}
versions = []
variants = {}
for name, args, kwargs in sp.DIRECTIVES:
    if name == "depends_on":
        deps[args[0]] = kwargs.get("type", ("build", "link"))
    elif name == "version":
        versions.append(args[0])
    elif name == "variant":
        variants[args[0]] = kwargs
for dep in ("ncurses", "libssh2", "pcre2"):
    if dep not in deps:
        fail("no depends_on(%r)" % dep)
    if "link" not in deps[dep]:
        fail("%s is not a link dependency: %r" % (dep, deps[dep]))
if deps.get("pkgconfig") != "build":
    fail("pkgconfig is not a build-only dependency")
mk = open(os.path.join(src, "Makefile")).read()
ver = [l.split("=", 1)[1].strip() for l in mk.splitlines()
       if l.startswith("VERSION =")][0]
if ver not in versions:
    fail("no version(%r) (the Makefile's VERSION): %r" % (ver, versions))
pl = variants.get("probe_libc")
if pl is None or set(pl.get("values", ())) != {"auto", "musl", "glibc"}:
    fail("no probe_libc variant with auto, musl, glibc")
print("directives: versions %s, depends_on %s" %
      (versions, sorted(deps)))

# probe_libc=musl with no musl-gcc on PATH: a clear error, before building.
path = os.environ["PATH"]
os.environ["PATH"] = "/nonexistent"
try:
    cls(sp.Spec(probe_libc="musl"), prefix).edit(None, prefix)
    fail("probe_libc=musl without musl-gcc did not fail")
except sp.InstallError as e:
    if "musl-gcc" not in str(e):
        fail("the error does not name musl-gcc: %s" % e)
os.environ["PATH"] = path

# The three phases for real, static glibc probe.
pkg = cls(sp.Spec(probe_libc="glibc"), prefix)
pkg.edit(pkg.spec, prefix)
pkg.build(pkg.spec, prefix)
pkg.install(pkg.spec, prefix)
for f in ("bin/jobtop", "libexec/jobtop/jobtop-probe",
          "libexec/jobtop/jobtop-nvml", "share/man/man1/jobtop.1",
          "share/jobtop/themes/default.theme"):
    if not os.path.isfile(os.path.join(prefix, f)):
        fail("%s not installed under the prefix" % f)
probe = open(os.path.join(prefix, "libexec/jobtop/jobtop-probe"), "rb").read()
if b"glibc" not in probe:
    fail("probe_libc=glibc did not link the probe with glibc")
out = subprocess.run(["file", "-L", os.path.join(prefix,
                      "libexec/jobtop/jobtop-probe")],
                     capture_output=True, text=True).stdout
if "statically linked" not in out:
    fail("the probe is not static: " + out)
print("installed under the prefix with a static glibc probe")
PY

prefix=$tmp/prefix
PYTHONPATH="$tmp/stub" python3 "$tmp/check.py" "$recipe" "$src" "$prefix" ||
	exit 1
"$prefix/bin/jobtop" -w localhost -b -n 2 -d 0.2 --no-record \
	>"$tmp/run" 2>"$tmp/err" || fail "the installed jobtop: $(cat "$tmp/err")"
"$prefix/bin/jobtop" --version | grep -qx \
	"probe: $prefix/libexec/jobtop/jobtop-probe" ||
	fail "the installed jobtop does not use its own probe"
echo "the installed jobtop runs with the glibc probe"
