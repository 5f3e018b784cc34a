#!/usr/bin/env bash
# Replay throughput on the heterogeneous preset: HeteroSim's lazy replay at 10k, 100k and 1M ops, and
# the eager all-activities-up-front SimGrid approach at 5k, 10k and 20k ops as the baseline, in one run.
# Usage: bench/run_bench.sh [path/to/replay_bench]   (or `cmake --build build --target bench`)
set -euo pipefail
bench=${1:-build/replay_bench}
printf '%-6s %9s %10s %9s %9s %16s %12s\n' mode ops transfers "wall s" "CPU s" "events/CPU s" "peak RSS MiB"
declare -A lazy eager
for n in 5000 10000 20000 100000 1000000; do
  read -r m o t w s e r < <("$bench" lazy "$n")
  printf '%-6s %9d %10d %9.3f %9.3f %16.0f %12.1f\n' "$m" "$o" "$t" "$w" "$s" "$e" "$(echo "$r/1024" | bc -l)"
  lazy[$n]=$s
done
for n in 5000 10000 20000; do
  read -r m o t w s e r < <("$bench" eager "$n")
  printf '%-6s %9d %10d %9.3f %9.3f %16.0f %12.1f\n' "$m" "$o" "$t" "$w" "$s" "$e" "$(echo "$r/1024" | bc -l)"
  eager[$n]=$s
done
echo
echo "eager / lazy replay CPU time at the same size (how much faster the lazy replay is):"
for n in 5000 10000 20000; do
  printf '  %6d ops: %.1fx\n' "$n" "$(echo "${eager[$n]} / ${lazy[$n]}" | bc -l)"
done
echo "growth, lazy replay CPU time ratio 1M / 100k ops: $(printf '%.1f' "$(echo "${lazy[1000000]} / ${lazy[100000]}" | bc -l)") (10 = linear)"
echo "growth, eager replay CPU time ratio 20k / 10k ops: $(printf '%.1f' "$(echo "${eager[20000]} / ${eager[10000]}" | bc -l)") (2 = linear, 4 = quadratic)"
