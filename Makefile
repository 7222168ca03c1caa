# The two commands of the README:
#   make run    install what is missing, build the command, the library and
#                the provider (no test), run the main job (cryptoaccel list,
#                then a short speed comparison with a plot)
#   make test   install what is missing, build, pass every test
#                (the normal build and its tests, beside them the ASan+UBSan
#                build of the suites, the TSan build of the concurrency
#                tests and the provider on OpenSSL 4.0; then the sanitizer
#                builds' tests), then print where the time went
#                (scripts/test-times)
# and the contributors' inner loop:
#   make check  the unit tests, a sample of the known answers on every
#                driver, the provider's contract and differential seeds
#                (docs/testing.md says when it is enough)
# Warnings are errors in these builds (CRYPTOACCEL_WERROR), not in a plain
# `cmake -DCMAKE_BUILD_TYPE=Release` of someone packaging the project.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
PREFIX     ?= /usr/local

CONFIGURE = cmake -S . -G Ninja -Wno-dev -DCRYPTOACCEL_WERROR=ON

# Every CMake build configured from here (the three builds, the provider
# against other OpenSSL versions, the tests' own projects) compiles
# through ccache when it is installed (scripts/compile-cached): a clean
# clone recompiles only what changed since the last build on the machine.
# CMake takes these as the launchers of a build folder it configures anew.
export CMAKE_C_COMPILER_LAUNCHER := $(CURDIR)/scripts/compile-cached
export CMAKE_CXX_COMPILER_LAUNCHER := $(CURDIR)/scripts/compile-cached

.PHONY: all deps configure build build-run run test test-unit test-asan test-tsan \
	build-asan build-tsan asan-tests tsan-tests normal-tests beside-asan-build beside-tsan-build \
	beside-openssl-newest beside-cross asan-tests-after tsan-tests-after \
	openssl-newest-check cross-check test-arm64-guest \
	install format clean test-openssl-newest test-openssl-all check test-cross

# Each step of `make test` is timed into $(TIMES) (scripts/timed), each
# ctest run's own timings too; scripts/test-times reports them.
TIMES ?= $(BUILD)/test-times
# The tests never see a machine profile that `make install` wrote on this
# machine (docs/dispatch.md): the ones that need one make their own.
test check test-unit test-asan test-tsan test-cross test-openssl-newest test-openssl-all: \
  export CRYPTOACCEL_MACHINE_PROFILE := $(abspath $(BUILD))/no-machine-profile.json
export CRYPTOACCEL_TIMES := $(abspath $(TIMES))/steps.tsv
export CRYPTOACCEL_TIMES_DIR := $(abspath $(TIMES))
TIMED = scripts/timed
# ctest in build dir $(2) with arguments $(3) and environment $(4), timed as
# step "$(1): tests", its timings kept as $(1).
define ctest_timed
	@mkdir -p $(TIMES)
	@ctest --test-dir $(2) --show-only=json-v1 $(3) >$(TIMES)/$(1).tests.json
	$(4) $(TIMED) "$(1): tests" ctest --test-dir $(2) --output-on-failure -j$(JOBS) \
	  --output-junit $(abspath $(TIMES))/$(1).junit.xml $(3)
endef

all: build

deps:
	@scripts/install-deps

# The normal build is what packagers build with CMake's Release type (-O3,
# no assertions) plus line tables (-g1) for backtraces and gdb. Debug
# information changes no generated code (GCC's -fcompare-debug checks
# exactly that), so its tests run the code a Release build runs, and the
# optimiser-dependent behaviour a separate Release build looked for is
# tested here: no second build of the same code.
NORMAL_FLAGS = -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O3 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O3 -g1 -DNDEBUG"

configure: deps
	@$(TIMED) "normal: configure" $(CONFIGURE) -B $(BUILD) $(NORMAL_FLAGS) \
	  -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS) >/dev/null

build: configure
	$(TIMED) "normal: build" cmake --build $(BUILD) -j$(JOBS)

# What `make run` needs, and no test: the command, the library, the provider.
build-run: configure
	cmake --build $(BUILD) -j$(JOBS) --target cryptoaccel-cli cryptoaccel-provider

# The main job: what is here, then the default comparison of every driver
# (a second per size) with its plot.
SPEED_PLOT ?= $(BUILD)/speed.svg
run: build-run
	$(BUILD)/tools/cryptoaccel list
	$(BUILD)/tools/cryptoaccel speed --driver all -seconds 1 aes-128-cbc aes-128-gcm sha256 \
	  --plot $(SPEED_PLOT)

# The normal build's tests leave a core idle most of their time (the
# guest runs one test at a time, the host's tests are done long before
# it), so the other builds run beside them, at the lowest priority (the
# tests keep the CPU they ask for), one after another: the ASan build, the
# TSan build, then the provider on OpenSSL $(OPENSSL_NEWEST); each one's
# output in a log shown if it fails. The sanitizer builds' tests run once
# the normal tests are done (not beside them: a few of both look at
# timings) and their build is; the OpenSSL check may still run beside
# them, at nice 19, and so may the cross builds' suites under qemu-user
# after it.
test:
	@scripts/test-times --start
	@scripts/disk-room --warn
	$(TIMED) "deps" scripts/install-deps
	$(MAKE) --no-print-directory build
	$(MAKE) --no-print-directory -j3 normal-tests beside-asan-build beside-tsan-build \
	  beside-openssl-newest beside-cross asan-tests-after tsan-tests-after
	@scripts/test-times

# beside,WHAT,TARGETS: `make TARGETS` at nice 19, its output in a log.
define beside
	@mkdir -p $(TIMES)
	@echo "beside the tests, at nice 19: $(1) (log: $(TIMES)/beside-$(2).log)"
	@if nice -n 19 $(MAKE) --no-print-directory -j1 $(2) >$(TIMES)/beside-$(2).log 2>&1; then \
	  grep '^==' $(TIMES)/beside-$(2).log || true; \
	  echo "beside the tests: $(1) passed"; \
	else \
	  tail -80 $(TIMES)/beside-$(2).log; scripts/disk-room; \
	  echo "beside the tests: $(1) failed (whole log: $(TIMES)/beside-$(2).log)"; exit 1; \
	fi
endef
beside-asan-build:
	$(call beside,the ASan build,build-asan)
beside-tsan-build: beside-asan-build
	$(call beside,the TSan build,build-tsan)
beside-openssl-newest: beside-tsan-build
	$(call beside,the provider on OpenSSL $(OPENSSL_NEWEST),openssl-newest-check)
beside-cross: beside-openssl-newest
	$(call beside,the cross builds under qemu-user,cross-check)
asan-tests-after: normal-tests beside-asan-build
	@$(MAKE) --no-print-directory asan-tests
tsan-tests-after: asan-tests-after beside-tsan-build
	@$(MAKE) --no-print-directory tsan-tests

# The provider on other OpenSSL versions (docs/testing.md): each
# built from Debian's source package (scripts/build-openssl-version, cached
# per version), the provider built against its headers without a warning,
# and both that module and the one built against the system's OpenSSL (one
# binary for 3.0 to 4.0) checked in it (tests/openssl-versions/build-and-check).
# `test` does the newest; `test-openssl-all` every series.
OPENSSL_NEWEST ?= 4.0
OPENSSL_VERSIONS ?= 3.0 3.5 3.6 4.0
test-openssl-newest: build
	$(MAKE) --no-print-directory openssl-newest-check

# Without `build` as a prerequisite: beside the normal tests, the normal
# build must not be configured again under them.
openssl-newest-check:
	JOBS=$(JOBS) CRYPTOACCEL_OPENSSL_PROGRAMS=1 $(TIMED) "openssl-$(OPENSSL_NEWEST): build and check" \
	  tests/openssl-versions/build-and-check $(OPENSSL_NEWEST) $(BUILD)/src/provider/cryptoaccel.so

test-openssl-all: build
	@status=0; for v in $(OPENSSL_VERSIONS); do \
	  JOBS=$(JOBS) tests/openssl-versions/build-and-check $$v $(BUILD)/src/provider/cryptoaccel.so || status=1; \
	done; exit $$status

# The cross builds (docs/platforms.md): arm64, armhf and s390x, each built
# with Debian's cross compiler against Debian's packages for it, its unit
# and known-answer suites run under qemu-user (a sample of
# $(CROSS_KAT_SAMPLE) vectors per algorithm and driver), and the arm64
# build's kernel test bed (test-arm64-guest, below), which boots beside
# the armhf and s390x builds (its log is printed when it ends). `test`
# runs them beside its other stages; `test-cross` alone.
CROSS_ARCHES ?= arm64 armhf s390x
CROSS_KAT_SAMPLE ?= 10
test-cross:
	@scripts/install-deps --cross
	$(MAKE) --no-print-directory cross-check

cross-check:
	@status=0; guest=; for a in $(CROSS_ARCHES); do \
	  CRYPTOACCEL_KAT_SAMPLE=$(CROSS_KAT_SAMPLE) CRYPTOACCEL_CROSS_JOBS=$(JOBS) \
	    $(TIMED) "cross $$a: build and test" tests/cross/build-and-test $$a || status=1; \
	  if [ $$a = arm64 ]; then \
	    ( $(TIMED) "cross arm64: guest" ctest --test-dir build-cross-arm64 -L '^vm$$' \
	        --output-on-failure >build-cross-arm64/guest.log 2>&1; \
	      echo $$? >build-cross-arm64/guest.status ) & guest=$$!; \
	  fi; \
	done; \
	if [ -n "$$guest" ]; then \
	  wait $$guest; echo "== the arm64 guest (beside the other cross builds)"; \
	  cat build-cross-arm64/guest.log; \
	  [ "$$(cat build-cross-arm64/guest.status)" = 0 ] || status=1; \
	fi; exit $$status

# The arm64 kernel test bed (docs/testing.md, "An arm64 guest"): the arm64
# cross build, then one boot of qemu-system-aarch64 with Debian's arm64
# kernel running its suite (vm.arm64 and its fixture vm.arm64.prepare,
# label vm of that build): the Crypto Extensions through AF_ALG, the
# userland and the real /dev/crypto with cryptodev-linux's programs for
# arm64 and armhf, the provider in openssl speed and TLS, cryptoaccel speed.
test-arm64-guest:
	@scripts/install-deps --cross
	CRYPTOACCEL_CROSS_JOBS=$(JOBS) tests/cross/build-and-test --build-only arm64
	ctest --test-dir build-cross-arm64 -L '^vm$$' --output-on-failure

# The inner loop (docs/testing.md): the unit tests (every gtest suite of
# tests/unit and the known answers' facts), the known answers over every
# driver on a sample, the provider's unit, contract and EVP tests and the
# differential fuzzer's seeds. No guest, no real program, no second build.
CHECK_TESTS ?= ^([A-Z][A-Za-z0-9_]*\.|(Drivers|Digests|Modes|Algorithms|Aeads)/|provider\.(unit|contract|evp|differential)(\.|$$))
CHECK_KAT_SAMPLE ?= 25
# Built: what those tests run, not the rest of the suites.
CHECK_TARGETS ?= cryptoaccel-cli unit_tests kat_tests cryptoaccel-provider provider_unit_tests \
  provider_contract_tests provider_evp_tests evp_differential
check: configure
	cmake --build $(BUILD) -j$(JOBS) --target $(CHECK_TARGETS)
	CRYPTOACCEL_KAT_SAMPLE=$(CHECK_KAT_SAMPLE) ctest --test-dir $(BUILD) --output-on-failure \
	  -j$(JOBS) -R '$(CHECK_TESTS)'

test-unit: build
	$(MAKE) --no-print-directory normal-tests
normal-tests:
	$(call ctest_timed,normal,$(BUILD))

# The sanitizer builds keep line tables only (-g1): all a report's stack
# needs, at two thirds of the compile time of full debug information. ASan
# (with UBSan) at -O0: the checks see every access the source makes, none
# optimised away, and the compile takes half of -O1's CPU time (the
# optimiser's passes over the instrumented code are most of it), which is
# far more than its tests lose (about a third more CPU time than at -O1);
# the normal build covers -O3's code. TSan at -O2: its slowest
# test (Failover.TimedOutCallsNeverTouchARequestAfterItCompleted) took
# 127 s at -O1, more than the compile saved.
SANITIZER_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCRYPTOACCEL_BENCH=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZER_OPT) -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$(SANITIZER_OPT) -g1 -DNDEBUG"

# Known answers in the second and third builds: every file, mode and key
# size, at most about this many vectors per algorithm on a driver other
# than soft (tests/kat/kat_test.cpp); the normal build runs every vector.
KAT_SAMPLE ?= 100

# Memory errors in the project's code: every suite that runs it, less the
# `.default-only` runs of the real programs (OpenSSL's default provider
# alone, none of our code), the source tree's layout checks and the man
# pages' and completion's checks (documentation, checked on the normal
# build).
# Built: what those suites run (dpdk-suites: the dpdk driver's, where it
# is built). Not the provider's module, which no test of this build loads
# (provider_unit_tests compiles the provider's code it tests).
ASAN_EXCLUDE ?= (\.default-only$$|^layout\.|^man\.|^completion\.)
ASAN_TARGETS ?= cryptoaccel-cli unit_tests kat_tests provider_unit_tests dpdk-suites
test-asan: deps build-asan asan-tests
build-asan: SANITIZER_OPT = -O0
build-asan:
	@$(TIMED) "asan: configure" $(CONFIGURE) -B $(ASAN_BUILD) -DCRYPTOACCEL_SANITIZE=address \
	  $(SANITIZER_FLAGS) $(CMAKE_ARGS) >/dev/null
	$(TIMED) "asan: build" cmake --build $(ASAN_BUILD) -j$(JOBS) --target $(ASAN_TARGETS)
asan-tests:
	$(call ctest_timed,asan,$(ASAN_BUILD),-E '$(ASAN_EXCLUDE)',CRYPTOACCEL_KAT_SAMPLE=$(KAT_SAMPLE) \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0)

# The asynchronous API, failover and quarantine under ThreadSanitizer: only
# the unit tests' files that hold these suites are built
# (concurrency_test_sources in tests/unit/CMakeLists.txt: keep the two
# lists together), and only these suites run; and the dpdk driver's
# thread stress (many threads, shared keys, queue pairs handed between
# them), where the driver is built.
TSAN_TESTS ?= ^(Async|Failover|Quarantine|Spread|Relief|MbGather|MbStart|DevcryptoGather|DevcryptoCopiers|DevcryptoDeferredRequests|DpdkThreads)\.
test-tsan: deps build-tsan tsan-tests
build-tsan: SANITIZER_OPT = -O2
build-tsan:
	@$(TIMED) "tsan: configure" $(CONFIGURE) -B $(TSAN_BUILD) -DCRYPTOACCEL_SANITIZE=thread \
	  $(SANITIZER_FLAGS) $(CMAKE_ARGS) >/dev/null
	$(TIMED) "tsan: build" cmake --build $(TSAN_BUILD) -j$(JOBS) --target unit_tests dpdk-suites
tsan-tests:
	$(call ctest_timed,tsan,$(TSAN_BUILD),-R '$(TSAN_TESTS)')

# Then the machine's dispatch profile, so that the provider runs on this
# machine's fastest engines out of the box (docs/dispatch.md).
install: build
	cmake --install $(BUILD)
	ldconfig
	@prefix=$$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' $(BUILD)/CMakeCache.txt); \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "cryptoaccel calibrate --machine: measuring this machine's engines (about a minute)"; \
	  "$$prefix/bin/cryptoaccel" calibrate --machine --quiet || \
	    echo "calibrate --machine failed: the provider keeps its conservative default order"; \
	else \
	  echo "not root: run 'sudo $$prefix/bin/cryptoaccel calibrate --machine' for the machine's profile"; \
	fi

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) build-openssl-*
