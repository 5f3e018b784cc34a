#!/usr/bin/env bash
# Runs every fuzz target for a fixed number of executions from the committed seed corpus, with a fixed
# seed, so a CI run is repeatable. New inputs and crash artifacts go to a scratch directory; the committed
# corpus is only read. Exit status is non-zero if any target finds a crash.
# Usage: fuzz/run.sh [build-dir] [runs per target]   (RUNS=1000000 for the benchmark run)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
runs=${2:-${RUNS:-20000}}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# SimGrid is not instrumented and keeps its one engine per process; the targets never start a replay.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
targets=(platform graph dot scenario calibration policy_config stored_plan workload_spec serving_config profiler_trace)
# The ONNX target exists when the build found libonnx-dev (CMakeLists.txt: HS_HAVE_ONNX).
if [[ -x $build/fuzz_onnx ]]; then targets+=(onnx); fi
for target in "${targets[@]}"; do
  mkdir -p "$scratch/$target"
  start=$(date +%s)
  max_len=4096
  if [[ $target == onnx ]]; then max_len=16384; fi # the seed models are 10-14 KB of protobuf
  if ! "$build/fuzz_$target" -runs="$runs" -seed=1 -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$scratch/$target/" "$scratch/$target" "fuzz/corpus/$target" > "$scratch/$target.log" 2>&1; then
    echo "fuzz_$target: FAILED (crash or sanitizer report); last lines:"
    tail -30 "$scratch/$target.log"
    ls "$scratch/$target"/crash-* "$scratch/$target"/leak-* "$scratch/$target"/timeout-* 2>/dev/null | head -5
    status=1
    continue
  fi
  done_line=$(grep -E "^Done [0-9]+ runs" "$scratch/$target.log" | tail -1)
  echo "fuzz_$target: ${done_line:-ran} ($(( $(date +%s) - start )) s, 0 crashes)"
done
exit $status
