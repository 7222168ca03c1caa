# The two commands of the README:
#   make run    install what is missing, build, run the main job
#                (cryptoaccel list, then a short speed comparison with a plot)
#   make test   install what is missing, build, pass every test
#                (the normal build, then the provider on OpenSSL 4.0, then an
#                ASan+UBSan build of the suites, then a TSan build of the
#                concurrency tests, then a Release build)
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

.PHONY: all deps configure build run test test-unit test-asan test-tsan test-release install \
	format clean test-openssl-newest test-openssl-all

all: build

deps:
	@scripts/install-deps

configure: deps
	@$(CONFIGURE) -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS) >/dev/null

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# The main job: what is here, then the default comparison of every driver
# (a second per size) with its plot.
SPEED_PLOT ?= $(BUILD)/speed.svg
run: build
	$(BUILD)/tools/cryptoaccel list
	$(BUILD)/tools/cryptoaccel speed --driver all -seconds 1 aes-128-cbc aes-128-gcm sha256 \
	  --plot $(SPEED_PLOT)

test: test-unit test-openssl-newest test-asan test-tsan test-release

# The provider on other OpenSSL versions (issue 21, docs/testing.md): each
# built from Debian's source package (scripts/build-openssl-version, cached
# per version), the provider built against its headers without a warning,
# and both that module and the one built against the system's OpenSSL (one
# binary for 3.0 to 4.0) checked in it (tests/openssl-versions/build-and-check).
# `test` does the newest; `test-openssl-all` every series.
OPENSSL_NEWEST ?= 4.0
OPENSSL_VERSIONS ?= 3.0 3.5 3.6 4.0
test-openssl-newest: build
	JOBS=$(JOBS) tests/openssl-versions/build-and-check $(OPENSSL_NEWEST) $(BUILD)/src/provider/cryptoaccel.so

test-openssl-all: build
	@status=0; for v in $(OPENSSL_VERSIONS); do \
	  JOBS=$(JOBS) tests/openssl-versions/build-and-check $$v $(BUILD)/src/provider/cryptoaccel.so || status=1; \
	done; exit $$status

test-unit: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

test-asan: deps
	@$(CONFIGURE) -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCRYPTOACCEL_SANITIZE=address -DCRYPTOACCEL_BENCH=OFF $(CMAKE_ARGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(JOBS)

# The asynchronous API, failover and quarantine under ThreadSanitizer: only
# the unit tests are built, and only those suites run.
TSAN_TESTS ?= ^(Async|Failover|Quarantine|Spread|Relief|MbGather|MbStart|DevcryptoGather|DevcryptoCopiers|DevcryptoDeferredRequests)\.
test-tsan: deps
	@$(CONFIGURE) -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCRYPTOACCEL_SANITIZE=thread -DCRYPTOACCEL_BENCH=OFF $(CMAKE_ARGS) >/dev/null
	cmake --build $(TSAN_BUILD) -j$(JOBS) --target unit_tests
	ctest --test-dir $(TSAN_BUILD) --output-on-failure -j$(JOBS) -R '$(TSAN_TESTS)'

# What packagers build: -O3 without assertions. Its tests, less the guest's
# and OpenSSL's evp_test (they check the same code as the normal build does,
# at the cost of a second kernel boot and OpenSSL build).
RELEASE_EXCLUDE ?= ^(vm|evp)\.
test-release: deps
	@$(CONFIGURE) -B $(RELEASE_BUILD) -DCMAKE_BUILD_TYPE=Release -DCRYPTOACCEL_BENCH=OFF \
	  $(CMAKE_ARGS) >/dev/null
	cmake --build $(RELEASE_BUILD) -j$(JOBS)
	ctest --test-dir $(RELEASE_BUILD) --output-on-failure -j$(JOBS) -E '$(RELEASE_EXCLUDE)'

install: build
	cmake --install $(BUILD)
	ldconfig

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(RELEASE_BUILD) build-openssl-*
