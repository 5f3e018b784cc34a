#!/usr/bin/env bash
# Planning's CPU cost in evaluations of the plan it makes (bench/planning_bench.cpp): HEFT, PEFT and
# gnn-placement (where the build has libtorch) on a 1,735-op GPT-2 graph over ten devices and a 5,000-op
# random DAG on hetero-server. The baseline, one contention-aware evaluation of the same plan, runs in the
# same process.
# Usage: bench/run_planning_bench.sh [build-dir]   (from the repository root)
set -euo pipefail
build=${1:-build}
nice cmake --build "$build" --target planning_bench -j2 >/dev/null
export HETEROSIM_DATA=${HETEROSIM_DATA:-$PWD}
echo "policy workload platform ops plans plan_cpu_ms evaluation_cpu_ms plan_over_evaluation"
for policy in heft peft gnn-placement; do
  for case in "gpt2-small:seq=32,decode=2 multi-gpu-node" "gpt2-small:seq=32,decode=2 hetero-server" \
    "random:ops=5000,seed=1 hetero-server"; do
    read -r workload platform <<<"$case"
    "$build/planning_bench" "$policy" "$workload" "$platform" ||
      echo "$policy $workload $platform: not run (a build without libtorch has no gnn-placement)"
  done
done
