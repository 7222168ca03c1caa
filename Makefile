# The two commands of the README:
#   make run    install what is missing, build the command, the library and
#                the provider (no test), run the main job (cryptoaccel list,
#                then a short speed comparison with a plot)
#   make test   install what is missing, build, pass every test
#                (the normal build, then the provider on OpenSSL 4.0, then an
#                ASan+UBSan build of the suites, then a TSan build of the
#                concurrency tests, then a Release build), then print where
#                the time went (scripts/test-times)
# and the contributors' inner loop:
#   make check  the unit tests, a sample of the known answers on every
#                driver, the provider's contract and differential seeds
#                (docs/testing.md says when it is enough)
# Warnings are errors in these builds (CRYPTOACCEL_WERROR), not in a plain
# `cmake -DCMAKE_BUILD_TYPE=Release` of someone packaging the project.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
RELEASE_BUILD ?= build-release
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
PREFIX     ?= /usr/local

CONFIGURE = cmake -S . -G Ninja -Wno-dev -DCRYPTOACCEL_WERROR=ON

.PHONY: all deps configure build build-run run test test-unit test-asan test-tsan test-release \
	install format clean test-openssl-newest test-openssl-all check

# Each step of `make test` is timed into $(TIMES) (scripts/timed), each
# ctest run's own timings too; scripts/test-times reports them.
TIMES ?= $(BUILD)/test-times
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

configure: deps
	@$(TIMED) "normal: configure" $(CONFIGURE) -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
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

test:
	@scripts/test-times --start
	$(TIMED) "deps" scripts/install-deps
	$(MAKE) --no-print-directory test-unit
	$(MAKE) --no-print-directory test-openssl-newest
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory test-tsan
	$(MAKE) --no-print-directory test-release
	@scripts/test-times

# The provider on other OpenSSL versions (issue 21, docs/testing.md): each
# built from Debian's source package (scripts/build-openssl-version, cached
# per version), the provider built against its headers without a warning,
# and both that module and the one built against the system's OpenSSL (one
# binary for 3.0 to 4.0) checked in it (tests/openssl-versions/build-and-check).
# `test` does the newest; `test-openssl-all` every series.
OPENSSL_NEWEST ?= 4.0
OPENSSL_VERSIONS ?= 3.0 3.5 3.6 4.0
test-openssl-newest: build
	JOBS=$(JOBS) $(TIMED) "openssl-$(OPENSSL_NEWEST): build and check" \
	  tests/openssl-versions/build-and-check $(OPENSSL_NEWEST) $(BUILD)/src/provider/cryptoaccel.so

test-openssl-all: build
	@status=0; for v in $(OPENSSL_VERSIONS); do \
	  JOBS=$(JOBS) tests/openssl-versions/build-and-check $$v $(BUILD)/src/provider/cryptoaccel.so || status=1; \
	done; exit $$status

# The inner loop (docs/testing.md): the unit tests (every gtest suite of
# tests/unit and the known answers' facts), the known answers over every
# driver on a sample, the provider's unit, contract and EVP tests and the
# differential fuzzer's seeds. No guest, no real program, no second build.
CHECK_TESTS ?= ^([A-Z][A-Za-z0-9_]*\.|(Drivers|Digests|Modes|Algorithms|Aeads)/|provider\.(unit|contract|evp|differential)(\.|$$))
CHECK_KAT_SAMPLE ?= 25
check: build
	CRYPTOACCEL_KAT_SAMPLE=$(CHECK_KAT_SAMPLE) ctest --test-dir $(BUILD) --output-on-failure \
	  -j$(JOBS) -R '$(CHECK_TESTS)'

test-unit: build
	$(call ctest_timed,normal,$(BUILD))

# The sanitizer builds keep line tables only (-g1): all a report's stack
# needs, at two thirds of the compile time of full debug information.
SANITIZER_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCRYPTOACCEL_BENCH=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"

# Known answers in the second and third builds: every file, mode and key
# size, at most about this many vectors per algorithm on a driver other
# than soft (tests/kat/kat_test.cpp); the normal build runs every vector.
KAT_SAMPLE ?= 100

# Memory errors in the project's code: every suite that runs it, less the
# `.default-only` runs of the real programs (OpenSSL's default provider
# alone, none of our code) and the source tree's layout checks.
ASAN_EXCLUDE ?= (\.default-only$$|^layout\.)
test-asan: deps
	@$(TIMED) "asan: configure" $(CONFIGURE) -B $(ASAN_BUILD) -DCRYPTOACCEL_SANITIZE=address \
	  $(SANITIZER_FLAGS) $(CMAKE_ARGS) >/dev/null
	$(TIMED) "asan: build" cmake --build $(ASAN_BUILD) -j$(JOBS)
	$(call ctest_timed,asan,$(ASAN_BUILD),-E '$(ASAN_EXCLUDE)',CRYPTOACCEL_KAT_SAMPLE=$(KAT_SAMPLE))

# The asynchronous API, failover and quarantine under ThreadSanitizer: only
# the unit tests are built, and only those suites run.
TSAN_TESTS ?= ^(Async|Failover|Quarantine|Spread|Relief|MbGather|MbStart|DevcryptoGather|DevcryptoCopiers|DevcryptoDeferredRequests)\.
test-tsan: deps
	@$(TIMED) "tsan: configure" $(CONFIGURE) -B $(TSAN_BUILD) -DCRYPTOACCEL_SANITIZE=thread \
	  $(SANITIZER_FLAGS) $(CMAKE_ARGS) >/dev/null
	$(TIMED) "tsan: build" cmake --build $(TSAN_BUILD) -j$(JOBS) --target unit_tests
	$(call ctest_timed,tsan,$(TSAN_BUILD),-R '$(TSAN_TESTS)')

# What packagers build: -O3 without assertions, where the optimiser can
# change what the project's code does. Its suites run the code it compiles:
# the unit tests, the known answers (sampled as above), the provider's
# contract, EVP, TLS and differential tests, the install. Left to the
# normal build: the guest's tests and OpenSSL's evp_test (the same code at
# the cost of a kernel boot and an OpenSSL build), the real programs and
# `openssl speed` over the provider (the EVP paths the provider's suites
# run here, driven by programs whose process model and configuration the
# optimiser does not change), the runs of OpenSSL's default provider alone
# (none of our code) and the source tree's layout checks.
# (The guest's programs and evp_test are not even built there.)
RELEASE_EXCLUDE ?= (^(apps|layout)\.|^provider\.openssl-speed$$|\.default-only$$)
test-release: deps
	@$(TIMED) "release: configure" $(CONFIGURE) -B $(RELEASE_BUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DCRYPTOACCEL_BENCH=OFF -DCRYPTOACCEL_GUEST_TESTS=OFF \
	  $(CMAKE_ARGS) >/dev/null
	$(TIMED) "release: build" cmake --build $(RELEASE_BUILD) -j$(JOBS)
	$(call ctest_timed,release,$(RELEASE_BUILD),-E '$(RELEASE_EXCLUDE)',CRYPTOACCEL_KAT_SAMPLE=$(KAT_SAMPLE))

install: build
	cmake --install $(BUILD)
	ldconfig

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(RELEASE_BUILD) build-openssl-*
