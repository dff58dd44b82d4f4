# sbx - a setuid-free command-line jail runner.
#
#   make            build ./sbx
#   make check      build and run every test (unit, integration, probes)
#   make test       build and run the unit tests: the step a CI job runs
#                   inside sbx (sbx run -p host -B . -- make test)
#   make asan       the same suite under ASan+UBSan (= make check SANITIZE=1)
#   make check-deb  build, lintian, install, run and purge the Debian package
#                   (contrib/debian; as root)
#   make deps       install the Debian packages the build and tests need
#   make demo       deps + build + run examples/hello.py in the default jail
#   make install    PREFIX=/usr/local DESTDIR=
#   make fuzz       libFuzzer targets for the policy and command-line parsers
#                   and the result record writer
#   make bench      start-up, throughput and memory against bare and bwrap
#                   (make bench-deps installs hyperfine, bubblewrap, strace, time)
#   make bench-readme  README.md's performance table from bench/results.json
#   make check-engines  contrib/engines/ run as written (root): slurm.sbatch
#                   on a one-node Slurm cluster it starts, the Kubernetes
#                   Job's command in a pod made with unshare, Docker with
#                   the default and the shipped seccomp profile
#   make vmcheck    the cgroup tests and VM_SUITES on Debian 12's kernel with
#                   cgroup v2 delegated, in a VM, as root and as sbxuser
#                   (make vm-deps installs qemu, busybox-static and the kernel)

VERSION    := 0.1.0
PREFIX     ?= /usr/local
DESTDIR    ?=
CC         ?= cc
PKGS       := libseccomp libcjson
DEB_PKGS   := build-essential pkg-config libseccomp-dev libcjson-dev \
              libcriterion-dev python3 python3-jsonschema \
              iproute2 util-linux procps jq groff-base mandoc \
              python3-numpy python3-pandas python3-matplotlib nodejs gcc g++ \
              parallel less strace vim-tiny
BENCH_PKGS := hyperfine bubblewrap strace time util-linux python3
SANITIZE   ?=
INTEG_ARGS ?=
# What of the integration suite runs in the VM (TCG: 5-20x slower), within
# ~25 min for root and sbxuser together on a quiet 2-CPU machine: the
# cgroup tests, and the suites that show the cgroup path changed nothing
# else: exit statuses (status), the CPU and memory evidence of the record
# (limits_evidence) and teardown (lifetime); and the languages (lang): a
# compiled one shares its workspace tmpfs between two jails, which Linux
# 6.1 mounts differently (src/jail/mount.c; 4 of its 15 tests failed there, ~40 s
# more per user).  Not the rest (jail,
# workspace, records, probes, interfaces...): the whole set took 879 s as
# root alone; every record of what runs is still checked against the schema.
# Not two limits_evidence tests that judge the meter's conservative
# socket-queue counts: the meter is off with a cgroup (memory.max counts
# real bytes: 13 MiB under 64 MiB is within).  Not six whose timing assumes
# real hardware (seen failing under TCG only): the init's setup CPU in a
# +-20 % figure; SIGINT 0.5 s after start (sbx had not started yet); the
# CPU of two runs compared (a bare run's own start-up took 523 ms there);
# a stdout line 20 us after a stderr burst (sbx woke so late that both
# were ready in one turn, where their order is best effort); a caller's
# SIGALRM during a slow tty write (seen once as sbxuser: the 40000 lines
# had all been written before the signal came); a SIGCONT that must land
# within the 1 s between the old kill time and the init's own bound, counted
# from the program's "up" (which TCG has taken over 1 s to print).
VM_SKIP    := sigalrm_to_sbx_in_a_slow_tty_write_under_ulimit_i_0_is_aborted|unix_socket_buffers_count_against_memory|unix_socket_buffers_count_with_a_loopback_network|the_record_shows_the_cpu_of_auto_reaped_children|unread_stdout_pipe_still_honours_sigint|children_reaped_by_wait_are_charged_once|a_line_after_a_stderr_burst_stays_after_it_in_one_log_file|a_sigstop_of_sbx_past_its_deadline_still_leaves_the_program_its_grace
VM_SUITES  ?= @(cgroup|cgroup_fallback|status|lifetime|limits_evidence|lang)/!($(VM_SKIP))
# What of the integration suite runs in the arm64 VM (check-arm64): the
# probes of every argument-checked rule and of the privileges a jail must
# not have; the rest needs the host's userland (python3, coreutils), which
# the busybox guest lacks.  Root's run leaves out the three set-id probes
# of a host workspace or bind: the guest's files are on tmpfs, which Linux
# 6.1 cannot idmap (6.3 can), so root's jail could not write there at all;
# uid 1000's run, which needs no idmap, runs them.
ARM64_SUITES ?= @(probes_seccomp_args|probes_priv)/*
ARM64_ROOT_SKIP := setuid_bit_cannot_be_planted_in_a_host_workspace|no_setid_file_or_device_can_be_created_in_a_host_workspace|no_setid_file_or_device_can_be_created_in_a_host_bind
ARM64_ROOT_SUITES ?= @(probes_seccomp_args|probes_priv)/!($(ARM64_ROOT_SKIP))

# ARCH=arm64 (or CC=aarch64-linux-gnu-gcc) cross-builds for aarch64 into
# build-arm64/: a static sbx, and test binaries linked against the arm64
# Criterion that make arm64-deps unpacks into ARM64_SYSROOT.
ARCH       ?=
ARM64LAB_DIR ?= /tmp/arm64lab
ARM64_SYSROOT ?= $(ARM64LAB_DIR)/sysroot
ifeq ($(ARCH),arm64)
CC         := aarch64-linux-gnu-gcc
else ifneq ($(filter-out x86_64 amd64,$(ARCH)),)
$(error ARCH=$(ARCH): sbx builds for x86_64 (the default) and arm64 only)
endif

# The seccomp filter names each architecture's system calls and foreign
# ABIs (src/jail/scarch.h): elsewhere it would not build, or could kill
# every jail.  Refuse plainly.
TARGET_ARCH_TRIPLE := $(shell $(CC) -dumpmachine 2>/dev/null)
ifneq ($(filter-out deps bench-deps vm-deps arm64-deps clean,$(or $(MAKECMDGOALS),all)),)
ifneq ($(TARGET_ARCH_TRIPLE),)
ifeq ($(filter x86_64-% aarch64-%,$(TARGET_ARCH_TRIPLE)),)
$(error sbx builds for x86_64 and aarch64 only, and $(CC) targets $(TARGET_ARCH_TRIPLE): its seccomp filter names each architecture's system calls and foreign ABIs (src/jail/scarch.h))
endif
endif
endif
HOST_MACHINE := $(shell uname -m)
CROSS_ARM64 := $(if $(and $(filter aarch64-%,$(TARGET_ARCH_TRIPLE)),$(filter-out aarch64,$(HOST_MACHINE))),1)

ifeq ($(CROSS_ARM64),1)
BUILD      := build-arm64
SAN_FLAGS  :=
OPT        := -O2 -g
else ifeq ($(SANITIZE),1)
BUILD      := build-asan
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT        := -O1 -g
else
BUILD      := build
SAN_FLAGS  :=
OPT        := -O2 -g
endif

SBX        := $(BUILD)/sbx
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_FLAGS :=
ifeq ($(CROSS_ARM64),1)
# the multiarch libseccomp-dev:arm64 and libcjson-dev:arm64; sbx is a
# dynamic PIE there too (Debian ships libcjson only as a shared library)
PKG_CFLAGS := -I/usr/include/cjson
PKG_LIBS   := -lseccomp -lcjson
TEST_FLAGS := -isystem $(ARM64_SYSROOT)/usr/include -L$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu \
              -Wl,-rpath-link,$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu \
              -Wl,-rpath-link,$(ARM64_SYSROOT)/lib/aarch64-linux-gnu
endif

# override: CFLAGS=, CPPFLAGS= or LDFLAGS= on the command line (a
# packager's dpkg-buildflags) add to these, not drop the warnings and the
# hardening.  A _FORTIFY_SOURCE the packager sets (Ubuntu's 3) is kept, not
# redefined.  -Werror is opt-in (WERROR=1, which CI sets): a newer
# compiler's new warning must not break a distribution's build.
WERROR     ?=
CALLER_FLAGS := $(CPPFLAGS) $(CFLAGS)
FORTIFY    := $(if $(findstring _FORTIFY_SOURCE,$(CALLER_FLAGS)),,-D_FORTIFY_SOURCE=2)
override CFLAGS  += -std=gnu11 $(OPT) -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) \
           -Wshadow -Wformat=2 -Wno-unused-parameter $(FORTIFY) -D_GNU_SOURCE \
           -fstack-protector-strong -fPIE -MMD -MP \
           -DSBX_VERSION='"$(VERSION)"' -Isrc -I$(BUILD)/gen \
           $(PKG_CFLAGS) $(SAN_FLAGS)
# sbx is a dynamic PIE: Debian ships libcjson only as a shared library, and
# a dynamic glibc resolves the caller's account through NSS (LDAP, sssd).
# --as-needed: no library is loaded, relocated and paged in at each start
# unless sbx calls into it.
override LDFLAGS += -pie -Wl,-z,relro,-z,now -Wl,--as-needed $(SAN_FLAGS)
LDLIBS  += $(PKG_LIBS)

SRC        := $(shell find src -name '*.c' | sort)
OBJ        := $(SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/builtin_policies.o
MAIN_OBJ   := $(BUILD)/cmd/sbx/main.o
POLICIES   := $(sort $(wildcard policy/*.policy))

UNIT_SRC   := $(sort $(wildcard tests/unit/*.c))
INTEG_SRC  := $(sort $(wildcard tests/integration/*.c))
UNIT_BIN   := $(BUILD)/tests/unit_tests
INTEG_BIN  := $(BUILD)/tests/integration_tests

.PHONY: all bpf-dump check check-cycles check-deb check-engines check-layers check-comments asan deps demo install uninstall fuzz mutants bench bench-readme bench-deps clean probes test test-unit test-integration vm-deps vmcheck vm-inside arm64-deps check-arm64

all: sbx

# ./sbx is always the normal build; the sanitizer build stays in build-asan/.
sbx: build/sbx
	@cp build/sbx $@

$(BUILD)/sbx: $(OBJ) $(MAIN_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# Built-in policies are embedded from policy/*.policy by a generated file.
$(BUILD)/gen/builtin_policies.c: $(POLICIES) tools/embed-policies.sh
	@mkdir -p $(dir $@)
	sh tools/embed-policies.sh $(POLICIES) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/builtin_policies.o: $(BUILD)/gen/builtin_policies.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(UNIT_BIN): $(UNIT_SRC:%.c=$(BUILD)/%.o) $(OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(TEST_FLAGS) -o $@ $^ $(LDLIBS) -lcriterion

$(INTEG_BIN): $(INTEG_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/harness.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(TEST_FLAGS) -o $@ $^ $(LDLIBS) -lcriterion

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TEST_FLAGS) -c -o $@ $<

$(BUILD)/tests/harness.o: tests/harness.c tests/harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TEST_FLAGS) -c -o $@ $<

probes:
	$(MAKE) -C tests/probes CC=$(CC) OUT=$(abspath $(BUILD))/probes

# The simulated hosts of test_hosts.c (Docker's seccomp profile, rootless...).
SIM_BIN := $(BUILD)/tests/sbx-sim
$(SIM_BIN): tests/sim/sbx-sim.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

# The seccomp programs of every built-in policy, as hex (tools/bpf-dump.c):
# diff two dumps to see whether a change to the generator changed one.
BPF_DUMP := $(BUILD)/tools/bpf-dump
$(BPF_DUMP): tools/bpf-dump.c $(OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bpf-dump: $(BPF_DUMP)
	@$(BPF_DUMP)

# A leak of libcriterion's own runner is not ours (tests/lsan.supp).
# Under SANITIZE=1 each report also goes to a file in $(BUILD)/lsan/, and
# any there fails the suite: a leak in a test worker, or in an sbx a test
# ran without checking its exit status, changes no exit status Criterion
# looks at, so it printed and passed.
ifeq ($(SANITIZE),1)
LSAN_DIR   := $(abspath $(BUILD))/lsan
LSAN_ENV   := LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):log_path=$(LSAN_DIR)/report
LSAN_RESET  = rm -rf $(LSAN_DIR) && mkdir -p $(LSAN_DIR)
LSAN_CHECK  = if grep -l LeakSanitizer $(LSAN_DIR)/report.* 2>/dev/null; then \
		cat $(LSAN_DIR)/report.*; echo "LeakSanitizer reports above: fix the leak" >&2; \
		exit 1; fi
else
LSAN_ENV   := LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp)
LSAN_RESET  = :
LSAN_CHECK  = :
endif

# EXPECTED_SKIPS=tests/expected-skips (CI sets it): a test that skips
# without being named there fails the run (tools/check-skips.sh).
CHECK_SKIPS = sh tools/check-skips.sh --self-test && sh tools/check-skips.sh $(EXPECTED_SKIPS)

test-unit: $(UNIT_BIN)
	$(LSAN_RESET)
	$(LSAN_ENV) $(UNIT_BIN) --jobs=2 --tap=$(BUILD)/unit.tap; rc=$$?; \
		grep '# SKIP' $(BUILD)/unit.tap | sed 's/^ok - /skipped: /'; exit $$rc
	$(LSAN_CHECK)
	$(if $(EXPECTED_SKIPS),$(CHECK_SKIPS) $(BUILD)/unit.tap)

# Every record the suite sees is checked against the schema afterwards.
test-integration: $(SBX) $(INTEG_BIN) $(SIM_BIN) probes
	rm -f $(BUILD)/records.jsonl
	$(LSAN_RESET)
	SBX=$(abspath $(SBX)) SBX_PROBES=$(abspath $(BUILD))/probes SBX_SRC=$(CURDIR) \
		SBX_SIM=$(abspath $(SIM_BIN)) \
		SBX_RECORDS=$(abspath $(BUILD))/records.jsonl $(LSAN_ENV) $(INTEG_BIN) --jobs=2 \
		--tap=$(BUILD)/integration.tap $(INTEG_ARGS); rc=$$?; \
		grep '# SKIP' $(BUILD)/integration.tap | sed 's/^ok - /skipped: /'; exit $$rc
	$(LSAN_CHECK)
	/usr/bin/python3 tests/validate_records.py contrib/result.schema.json $(BUILD)/records.jsonl
	$(if $(EXPECTED_SKIPS),$(CHECK_SKIPS) $(BUILD)/integration.tap)

# Data flows one way: no file includes a header from a layer above it.
check-layers:
	sh tools/check-layers.sh --self-test
	sh tools/check-layers.sh

# comments and docs never cite a tracker or a planning document
check-comments:
	sh tools/check-comments.sh --self-test
	sh tools/check-comments.sh

# no two files of one src/ folder call each other, directly or round
# a circle: read from the symbols of the objects just built
check-cycles: $(SBX)
	python3 tools/file-cycles.py $(BUILD)

check: check-layers check-comments check-cycles $(SBX) test-unit test-integration

# The shipped engine examples, run as written; needs root (not in check:
# it installs packages and starts daemons).
check-engines: $(SBX)
	sh tests/engines/check-slurm.sh $(SBX)
	sh tests/engines/check-k8s-job.sh $(SBX)
	sh tests/engines/check-docker.sh $(SBX)
	sh tests/engines/check-podman.sh $(SBX)

# What needs no namespaces of its own: the build and the unit tests.
test: check-layers $(SBX) test-unit

asan:
	$(MAKE) check SANITIZE=1

# Not part of check: builds the Debian package from contrib/debian in a
# copy of the tree, lintian, dpkg -i, a run, dpkg --purge; root only.
check-deb:
	bash tests/deb/check-deb.sh

deps:
	@sh tools/deps.sh $(DEB_PKGS)

# Each step in its own make: pkg-config is read when make reads this file,
# so the build must start after deps installed the -dev packages (one make
# with "demo: deps sbx" once linked without the -dev packages' flags).
demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory sbx
	./sbx run --lang py examples/hello.py

# every named break of a security check (tests/mutants/list) is caught
mutants:
	sh tests/mutants/run.sh

fuzz:
	$(MAKE) -C tests/fuzz

# Not part of check: timings belong here, never in tests.
bench: sbx
	sh bench/run.sh

# The README's table is never edited by hand: this rewrites it between its
# marker comments from the results file (bench/table.py).
bench-readme:
	python3 -B bench/bench.py --markdown bench/results.json --readme README.md

bench-deps:
	@sh tools/deps.sh $(BENCH_PKGS)

vm-deps:
	@bash tests/vm/setup.sh

vmcheck:
	VM_SUITES='$(VM_SUITES)' bash tests/vm/vmcheck.sh

arm64-deps:
	@bash tests/arm64/setup.sh

# sbx cross-built for aarch64, its unit suite and ARM64_SUITES in Debian
# 12's arm64 kernel under qemu (TCG), as root and as uid 1000.
check-arm64:
	ARM64_SUITES='$(ARM64_SUITES)' ARM64_ROOT_SUITES='$(ARM64_ROOT_SUITES)' \
		ARM64LAB_DIR='$(ARM64LAB_DIR)' bash tests/arm64/check.sh

# Run by vmcheck inside the VM, from a tree built on the host.
vm-inside:
	VM_SUITES='$(VM_SUITES)' sh tests/vm/inside.sh

# SBX_BIN: the binary to install (the suite installs the one it tests).
SBX_BIN ?= sbx
BINDIR   = $(DESTDIR)$(PREFIX)/bin
SHAREDIR = $(DESTDIR)$(PREFIX)/share/sbx
MAN1DIR  = $(DESTDIR)$(PREFIX)/share/man/man1
MAN5DIR  = $(DESTDIR)$(PREFIX)/share/man/man5
MAN7DIR  = $(DESTDIR)$(PREFIX)/share/man/man7
COMPDIR  = $(DESTDIR)$(PREFIX)/share/bash-completion/completions

install: $(SBX_BIN)
	install -d $(BINDIR) $(SHAREDIR)/policy $(MAN1DIR) $(MAN5DIR) $(MAN7DIR) $(COMPDIR)
	install -m 0755 $(SBX_BIN) $(BINDIR)/sbx
	install -m 0644 $(POLICIES) $(SHAREDIR)/policy/
	install -m 0644 contrib/result.schema.json $(SHAREDIR)/
	install -m 0644 man/sbx.1 $(MAN1DIR)/
	install -m 0644 man/sbx.policy.5 man/sbx-result.5 $(MAN5DIR)/
	install -m 0644 man/sbx-nsjail.7 $(MAN7DIR)/
	install -m 0644 contrib/bash-completion/sbx $(COMPDIR)/sbx

uninstall:
	rm -f $(BINDIR)/sbx $(MAN1DIR)/sbx.1 $(MAN5DIR)/sbx.policy.5 \
		$(MAN5DIR)/sbx-result.5 $(MAN7DIR)/sbx-nsjail.7 $(COMPDIR)/sbx
	rm -rf $(SHAREDIR)

clean:
	rm -rf build build-asan build-arm64 sbx

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
