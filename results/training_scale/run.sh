#!/usr/bin/env bash
# One data-parallel GPT-2 small training step (batch 4 per replica, hierarchical DDP all-reduce of the
# gradients, as-pinned plan, SimGrid replay) on dgx-a100-cluster at each node count given: what the
# simulation costs. Prints a Markdown table of measurements (no ratios: a figure, not a test) and writes it
# to table.md beside this script. CPU seconds are user + system of the whole `heterosim run`, the replay's
# child process included (/usr/bin/time waits for it); peak RSS is the larger of the two processes.
# Usage: results/training_scale/run.sh [path/to/heterosim] [nodes...]   (default: build/heterosim 1 8 32 128)
set -euo pipefail
heterosim=${1:-build/heterosim}
shift || true
nodes_list=("$@")
((${#nodes_list[@]})) || nodes_list=(1 8 32 128)
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
{
  echo "| nodes | GPUs | ops | transfers | step | CPU s | wall s | peak RSS MB |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
  for nodes in "${nodes_list[@]}"; do
    gpus=$((nodes * 8))
    if ((nodes == 1)); then parallel="dp=8"; else parallel="dp=$gpus,algo=hierarchical,group=8"; fi
    /usr/bin/time -f '%U %S %e %M' -o "$out/time" "$heterosim" run --platform "dgx-a100-cluster:nodes=$nodes" \
      --workload gpt2-small:mode=training,batch=4 --policy as-pinned --parallel "$parallel" \
      --out "$out/run" --force --report-only >"$out/log"
    read -r user sys wall peak_kb <"$out/time"
    ops=$(sed -n 's/^workload .*(\([0-9]*\) ops)$/\1/p' "$out/log")
    transfers=$(sed -n 's/^transfers \([0-9]*\) moving.*/\1/p' "$out/log")
    step=$(sed -n 's/^latency *\([0-9.]* [a-z]*\) .*/\1/p' "$out/log" | head -1)
    printf '| %d | %d | %d | %d | %s | %.1f | %.1f | %d |\n' "$nodes" "$gpus" "$ops" "$transfers" "$step" \
      "$(echo "$user + $sys" | bc -l)" "$wall" "$((peak_kb / 1024))"
  done
} | tee "$out/table.md"
mv "$out/table.md" "$here/table.md"
