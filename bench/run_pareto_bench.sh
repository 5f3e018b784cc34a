#!/usr/bin/env bash
# The Pareto search's CPU cost per evaluation against a bare contention-aware evaluation of the same kind of
# plans, on hetero-server with random:ops=2000, with and without graph rewrites (issue target: <= 2x).
# Usage: bench/run_pareto_bench.sh [build-dir]
set -euo pipefail
build=${1:-build}
cmake --build "$build" --target pareto_eval_bench -j"$(nproc)" >/dev/null
for flags in "" "--no-rewrites"; do
  "$build/pareto_eval_bench" random:ops=2000,precision=fp16 400 $flags
done
