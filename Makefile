# pmcfuse: the README's two commands (make demo, make check) and a few more.
# The real build is CMake; this file only sets it up.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo check pmu-check unit asan tsan fuzz bench format clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# The main job on the bundled example.
demo: build
	@scripts/demo.sh $(BUILD)/pmcfuse

# The whole test suite.
check: build
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The hardware suite on an emulated aarch64 machine with a real PMU driver
# (QEMU TCG, -icount shift=0: exact instruction counts; docs/hardware.md):
# installs qemu-system-arm and the cross compiler, cross-builds pmcfuse into
# build/pmu/arm64, boots the guest and runs tests/hw/run.sh in it.
pmu-check: deps
	@JOBS=$(JOBS) scripts/pmu-vm.sh check

# Only the fast unit tests.
unit: build
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS) -L unit

# Unit and end-to-end tests under AddressSanitizer + UndefinedBehaviorSanitizer.
asan: deps
	@cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DPMCF_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD)-asan -j$(JOBS)
	@cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:verify_asan_link_order=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j$(JOBS) -L 'unit|e2e' -LE slow

# The collector's multi-threaded tests under ThreadSanitizer. The OMPT tool
# runs inside uninstrumented OpenMP programs, so it is the normal build's.
tsan: build
	@cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMCF_WERROR=OFF \
		-DCMAKE_C_FLAGS="-fsanitize=thread -g" -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
		-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
	@cmake --build $(BUILD)-tsan -j$(JOBS) --target pmcfuse_cli test_collect test_collect_rt test_combine \
		examples_openmp example_plain example_taskapi
	@cp $(BUILD)/libpmcfuse-ompt.so $(BUILD)-tsan/libpmcfuse-ompt.so
	@cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		ctest --output-on-failure -R '^(test_collect|test_collect_rt|test_combine|e2e_collect)$$'

# libFuzzer harnesses of every parser (clang-16), FUZZ_SECONDS each.
FUZZ_SECONDS ?= 30
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUILD=$(BUILD)-fuzz scripts/fuzz.sh

# Benchmarks (Release build); results go in bench/RESULTS.md by hand.
bench: deps
	@cmake -S . -B $(BUILD)-release -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD)-release -j$(JOBS)
	@for b in $(BUILD)-release/bench/bench_*; do echo "== $$b"; $$b || exit 1; done

format:
	@scripts/format.sh

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-fuzz $(BUILD)-release out
