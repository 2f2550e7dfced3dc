# SPDX-License-Identifier: ISC
# jobtop: build the monitor (./jobtop) and the static probe (./jobtop-probe).
# ./jobtop-nvml is the probe's NVML helper: dynamic, against glibc, since
# it loads the driver's libnvidia-ml.so.1 (probes/NVIDIA.md).
#
# Switches: WERROR=1 turns warnings into errors; SANITIZE=address,undefined
# builds both binaries and the tests with those sanitizers; CC=clang works.

VERSION = 0.1.0
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
DATADIR = $(PREFIX)/share/jobtop
LIBEXECDIR = $(PREFIX)/libexec/jobtop
SYSCONFDIR ?= /etc

CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS = ncursesw libssh2 libpcre2-8 sqlite3

WARN = -Wall -Wextra -Wmissing-prototypes -Wstrict-prototypes -Wshadow \
	-Wformat=2 -Wpointer-arith -Wcast-qual -Wwrite-strings -Wundef \
	-Wvla -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif
OPT ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -DJOBTOP_VERSION='"$(VERSION)"' \
	-DJOBTOP_DATADIR='"$(DATADIR)"' -DJOBTOP_LIBEXECDIR='"$(LIBEXECDIR)"' \
	-DJOBTOP_SYSCONFDIR='"$(SYSCONFDIR)"' \
	-iquote src -iquote ui -iquote remote -iquote probes
# -iquote, not -I: project headers (src/sched.h) must not shadow the
# system's (<sched.h>).
CFLAGS += -std=c11 $(OPT) $(WARN)
ifneq ($(SANITIZE),)
CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif

# ncursesw asks for _XOPEN_SOURCE=600, which hides parts of glibc that
# _GNU_SOURCE wants (posix_spawn needs struct sched_param): drop it.
PKG_CFLAGS := $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,\
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null))
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

# The probe is static and depends on nothing on the node: musl-gcc when
# present, otherwise a static glibc build.  Sanitized builds are dynamic.
MUSL_GCC := $(shell command -v musl-gcc 2>/dev/null)
# The probe is copied to every node at every version: small matters.  C has
# no exceptions, so its unwind tables only serve debuggers (the binary is
# stripped anyway); link-time optimisation drops what no caller reaches
# across files (musl-gcc only: clang spells -flto differently).  Together
# 12 KB of 162 KB.
PROBE_SMALL = -Os -flto=auto -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -ffunction-sections -fdata-sections
# ld's separate-code pads the code to whole pages on both sides, 4 KB of
# zeros in the file; in a static binary that is not position-independent
# (the probe's) it hides no gadget worth the bytes.
PROBE_NOPAD = -Wl,-z,noseparate-code
ifneq ($(SANITIZE),)
PROBE_CC = $(CC)
PROBE_LDFLAGS = $(LDFLAGS)
PROBE_OPT = $(OPT)
else ifneq ($(MUSL_GCC),)
PROBE_CC = $(MUSL_GCC)
PROBE_OPT = $(PROBE_SMALL)
PROBE_LDFLAGS = -static -Wl,--gc-sections -s $(PROBE_SMALL) $(PROBE_NOPAD)
else
PROBE_CC = $(CC)
PROBE_OPT = $(filter-out -flto=auto,$(PROBE_SMALL))
PROBE_LDFLAGS = -static -Wl,--gc-sections -s $(PROBE_OPT) $(PROBE_NOPAD)
endif

# Code shared by the probe and the monitor: libc only.
SHARED_SRC = src/wire.c src/proto.c src/stackfmt.c
PROBE_SRC = $(wildcard probes/*.c) $(SHARED_SRC)
MON_SRC = $(filter-out $(SHARED_SRC),$(wildcard src/*.c)) \
	$(wildcard ui/*.c) $(wildcard remote/*.c) $(SHARED_SRC)
MON_OBJ = $(patsubst %.c,build/mon/%.o,$(MON_SRC))
MON_LIB_OBJ = $(filter-out build/mon/src/main.o,$(MON_OBJ))
PROBE_OBJ = $(patsubst %.c,build/probe/%.o,$(PROBE_SRC))

# Header dependencies: every compile writes the headers its output was made
# from (-MMD: the project's, not the system's) to OUTPUT.d beside it under
# build/, with an empty rule per header (-MP) so that a removed header does
# not stop the build; they are included at the end.  -MF and -MT name the
# file and the target, which a compile and link in one step (the tests,
# jobtop-nvml) would otherwise derive from other names.  An output whose .d
# is missing (built before these rules) is rebuilt once to get one.  clang
# writes the .d after the object, which would then always look out of date:
# DEPDONE touches the object after a compile (-c) so that it is the newer.
DEPFLAGS = -MMD -MP -MF $@.d -MT $@
DEPDONE = touch $@
NVML_DEP = build/nvml/jobtop-nvml.d

UNIT_SRC = $(wildcard tests/unit/test-*.c)
UNIT_BIN = $(patsubst tests/unit/%.c,build/tests/%,$(UNIT_SRC))
HELPER_SRC = $(wildcard tests/bench/*.c tests/lab/*.c)
HELPER_BIN = $(patsubst tests/%.c,build/tests/%,$(HELPER_SRC))

all: jobtop jobtop-probe jobtop-nvml

jobtop: $(MON_OBJ)
	$(CC) $(LDFLAGS) -o $@ $(MON_OBJ) $(PKG_LIBS) -lm

jobtop-probe: $(PROBE_OBJ)
	$(PROBE_CC) $(PROBE_LDFLAGS) -o $@ $(PROBE_OBJ)

# No NVML headers or library needed: it dlopens the driver's at run time.
# Stripped like the probe: it is pushed to the nodes too.
jobtop-nvml: probes/nvml/jobtop-nvml.c $(NVML_DEP)
	@mkdir -p $(dir $(NVML_DEP))
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -MF $(NVML_DEP) -MT $@ -o $@ $< \
		$(LDFLAGS) $(if $(SANITIZE),,-s) -ldl

build/mon/%.o: %.c build/mon/%.o.d
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<
	@$(DEPDONE)

build/probe/%.o: %.c build/probe/%.o.d
	@mkdir -p $(dir $@)
	$(PROBE_CC) $(CPPFLAGS) -DJOBTOP_PROBE -std=c11 $(PROBE_OPT) $(WARN) \
		$(if $(SANITIZE),-fsanitize=$(SANITIZE)) $(DEPFLAGS) -c -o $@ $<
	@$(DEPDONE)

build/tests/test-%: tests/unit/test-%.c $(MON_LIB_OBJ) build/tests/test-%.d
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -iquote tests/unit \
		$(DEPFLAGS) -o $@ $< $(MON_LIB_OBJ) $(LDFLAGS) $(PKG_LIBS) -lm

build/tests/%: tests/%.c build/tests/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(LDFLAGS) -lm

# A stand-in for the driver's NVML library, for jobtop-nvml's tests.
FAKE_NVML = build/tests/nvml/libnvidia-ml.so.1
$(FAKE_NVML): tests/data/nvml/fake-nvml.c $(FAKE_NVML).d
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -fPIC -shared \
		-Wl,-soname,libnvidia-ml.so.1 -o $@ $< $(LDFLAGS)

tests-build: all $(UNIT_BIN) $(HELPER_BIN) $(FAKE_NVML)

# The one test command (README, CI): unit, regress and lab tests.
# `make deps check` on a bare machine: the package probes above (pkg-config,
# musl-gcc) ran before deps installed anything, so build in a fresh make.
check:
	$(MAKE) tests-build
	tests/run.sh

# The flake hunt: the whole suite N times back to back (HOG=1: beside a
# busy loop per core); says which test failed in which run.
N ?= 5
check-repeat:
	$(MAKE) tests-build
	HOG=$(HOG) tests/repeat.sh $(N)

lab-up:
	$(MAKE) all $(HELPER_BIN)
	tests/lab/lab-up.sh

lab-down:
	tests/lab/lab-down.sh

# make demo JOB=blocked: the stalled-rank story instead of the healthy job.
JOB ?= healthy
demo:
	$(MAKE) all $(HELPER_BIN)
	JOB='$(JOB)' tests/lab/demo.sh

bench:
	$(MAKE) tests-build
	tests/bench/run.sh

# libFuzzer targets (clang): one per decoder and parser.
FUZZ_SRC = $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BIN = $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
FUZZ_CC ?= clang
FUZZ_TIME ?= 20
# The monitor's sources are compiled once for all targets.  UBSan aborts:
# undefined behaviour is a finding that fails the run, not a line in a log.
FUZZ_OBJ = $(patsubst %.c,build/fuzzobj/%.o,$(filter-out src/main.c,$(MON_SRC)))
FUZZ_CFLAGS = $(CPPFLAGS) $(PKG_CFLAGS) -std=c11 -g -O1 \
	-fno-sanitize-recover=undefined
build/fuzzobj/%.o: %.c build/fuzzobj/%.o.d Makefile
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined \
		$(DEPFLAGS) -c -o $@ $<
	@$(DEPDONE)
build/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ) build/fuzz/%.d
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined \
		$(DEPFLAGS) -o $@ $< $(FUZZ_OBJ) $(PKG_LIBS) -lm
# Named here, the objects are files of their own: as mere prerequisites of a
# pattern rule they were intermediates, deleted after each build, and their
# dependency files, naming them, made the next build compile them again.
$(FUZZ_BIN): $(FUZZ_OBJ)
fuzz-build: $(FUZZ_BIN)
fuzz: $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do \
		n=$$(basename $$f); mkdir -p build/corpus/$$n; \
		seeds=tests/fuzz/corpus/$$n; [ -d $$seeds ] || seeds=; \
		echo "fuzz $$n for $(FUZZ_TIME)s"; \
		$$f -max_total_time=$(FUZZ_TIME) -max_len=65536 \
			build/corpus/$$n $$seeds >build/corpus/$$n.log 2>&1 || \
			{ tail -40 build/corpus/$$n.log; exit 1; }; \
	done

lint:
	mandoc -Tlint -Wwarning jobtop.1
	sh -n tests/run.sh
	for f in tests/lab/*.sh tests/regress/*.sh tests/bench/*.sh; do \
		bash -n $$f || exit 1; done

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) \
		$(DESTDIR)$(DATADIR)/themes $(DESTDIR)$(LIBEXECDIR)
	install -m 755 jobtop $(DESTDIR)$(BINDIR)/jobtop
	install -m 755 jobtop-probe $(DESTDIR)$(LIBEXECDIR)/jobtop-probe
	install -m 755 jobtop-nvml $(DESTDIR)$(LIBEXECDIR)/jobtop-nvml
	install -m 644 jobtop.1 $(DESTDIR)$(MANDIR)/jobtop.1
	for t in themes/*.theme; do [ -e "$$t" ] || continue; \
		install -m 644 $$t $(DESTDIR)$(DATADIR)/themes/; done

deps:
	tests/install-deps.sh

clean:
	rm -rf build jobtop jobtop-probe jobtop-nvml

# The dependency files: each is made by its output's compile; the empty
# rule lets a missing one count as changed, so that output is rebuilt.
DEPS = $(MON_OBJ:=.d) $(PROBE_OBJ:=.d) $(NVML_DEP) $(UNIT_BIN:=.d) \
	$(HELPER_BIN:=.d) $(FAKE_NVML).d $(FUZZ_OBJ:=.d) $(FUZZ_BIN:=.d)
$(DEPS): ;
-include $(DEPS)

.PHONY: all check check-repeat tests-build lab-up lab-down demo bench fuzz fuzz-build \
	lint install deps clean
