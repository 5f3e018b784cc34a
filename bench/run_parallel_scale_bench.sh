#!/usr/bin/env bash
# How the cost of simulating data-parallel training grows with the GPU count: one GPT-2 small training
# step (batch 4 per replica) with DDP's bucketed hierarchical all-reduce on dgx-a100-cluster, 1 to 128
# nodes (8 to 1024 GPUs, up to the max given), planned by as-pinned and replayed by SimGrid. Prints, per size, the graph's ops,
# the simulated step, the CPU seconds and peak memory of the whole `heterosim run`, and the CPU time per
# GPU as a ratio to the 8-GPU run of the same script.
# Usage: bench/run_parallel_scale_bench.sh [path/to/heterosim] [max nodes, default 16]
set -euo pipefail
heterosim=${1:-build/heterosim}
max_nodes=${2:-16}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%6s %6s %9s %12s %10s %10s %12s\n' nodes gpus ops "step (ms)" "CPU s" "peak MB" "CPU/GPU x"
base=""
for nodes in 1 2 4 8 16 32 64 128; do
  ((nodes <= max_nodes)) || break
  gpus=$((nodes * 8))
  if ((nodes == 1)); then parallel="dp=8"; else parallel="dp=$gpus,algo=hierarchical,group=8"; fi
  /usr/bin/time -f '%U %S %M' -o "$out/time" "$heterosim" run --platform "dgx-a100-cluster:nodes=$nodes" \
    --workload gpt2-small:mode=training,batch=4 --policy as-pinned --parallel "$parallel" \
    --out "$out/run" --force --report-only >"$out/log"
  read -r user sys peak_kb <"$out/time"
  cpu=$(echo "$user + $sys" | bc -l)
  ops=$(sed -n 's/^workload .*(\([0-9]*\) ops)$/\1/p' "$out/log")
  step=$(sed -n 's/^latency *\([0-9.]*\) ms.*/\1/p' "$out/log" | head -1)
  per_gpu=$(echo "$cpu / $gpus" | bc -l)
  [[ -n $base ]] || base=$per_gpu
  printf '%6d %6d %9d %12s %10.2f %10.0f %12.2f\n' "$nodes" "$gpus" "$ops" "$step" "$cpu" "$((peak_kb / 1024))" \
    "$(echo "$per_gpu / $base" | bc -l)"
done
