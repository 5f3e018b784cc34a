#!/usr/bin/env bash
# Installs what is missing, builds HeteroSim with clang under AddressSanitizer and UndefinedBehaviorSanitizer
# (UBSan errors are fatal), runs the whole test suite in that build, then every fuzz target for a fixed
# number of executions (fuzz/README.md). Used by CI after the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
start=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release -DHS_NATIVE_KERNELS=OFF \
  -DHS_SANITIZE=ON -DHS_FUZZ=ON >/dev/null
cmake --build build-sanitize -j"$(nproc)" --target heterosim heterosim_tests fuzz_targets
echo "sanitizers: the build took $(( $(date +%s) - start )) s"
# Leak checking stays off: replays end in forked children with _exit, and SimGrid keeps its engine for the
# process's lifetime by design; ASan still checks every access and UBSan every operation.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
start=$(date +%s)
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
echo "sanitizers: the sanitized tests took $(( $(date +%s) - start )) s"
start=$(date +%s)
bash fuzz/run.sh build-sanitize "${FUZZ_RUNS:-20000}"
echo "sanitizers: the fuzzers took $(( $(date +%s) - start )) s"
