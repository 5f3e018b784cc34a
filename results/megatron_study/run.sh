#!/usr/bin/env bash
# Megatron-LM's weak-scaling throughput (Narayanan et al., SC 2021, Table 1) for the configurations that
# need only data and tensor parallelism, simulated: one training step of each GPT model (fp16 on tensor
# cores, full activation recomputation, dropout as Megatron-LM's defaults apply it, Megatron's TP splits,
# the micro-batch size and DDP implementation of Megatron-LM's own script for Table 1
# (examples/sc21/run_table_1.sh: MBS 16, 8 for 18B; DDP=torch, PyTorch's DDP, whose 25 MiB buckets are
# all-reduced hierarchically while the last micro-batch's backward runs), as-pinned plan, SimGrid replay,
# on dgx-a100-cluster with the paper's GPU count, memory checked against the A100's 80 GiB.
# Writes table.md and table.csv beside this script (deterministic: no timings of this machine in them)
# and prints the CPU cost of each run on stderr.
# Usage: results/megatron_study/run.sh [path/to/heterosim] [config...]  (configs: 1.7b 3.6b 7.5b 18.4b)
set -euo pipefail
heterosim=${1:-build/heterosim}
shift || true
configs=("$@")
((${#configs[@]})) || configs=(1.7b 3.6b 7.5b 18.4b)
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# size: tensor-parallel degree, GPUs, global batch, published per-GPU teraFLOP/s (Table 1)
declare -A tp=([1.7b]=1 [3.6b]=2 [7.5b]=4 [18.4b]=8) gpus=([1.7b]=32 [3.6b]=64 [7.5b]=128 [18.4b]=256)
declare -A batch=([1.7b]=512 [3.6b]=512 [7.5b]=512 [18.4b]=1024)
declare -A micro=([1.7b]=16 [3.6b]=16 [7.5b]=16 [18.4b]=8) # run_table_1.sh's MBS
for c in "${configs[@]}"; do
  t=${tp[$c]} n=${gpus[$c]} b=${batch[$c]} mbs=${micro[$c]}
  dp=$((n / t)) per_node=$((8 / t))
  m=$((b / dp / mbs))
  # Hierarchical DDP: the data-parallel ranks of one node (8 / tp of them) reduce first, then one rail each.
  if ((per_node >= 2)); then algo="algo=hierarchical,group=$per_node"; else algo="algo=ring"; fi
  parallel="dp=$dp,$algo"
  ((m > 1)) && parallel="$parallel,microbatches=$m"
  ((t > 1)) && parallel="$parallel,tp=$t,vocab=split"
  workload="megatron-gpt-$c:mode=training,precision=fp16,heads=fused,recompute=full,dropout=on,batch=$mbs"
  /usr/bin/time -f "$c: %U user %S sys %e wall s, %M KB" -o "$out/time-$c" \
    "$heterosim" run --platform "dgx-a100-cluster:nodes=$((n / 8))" --workload "$workload" \
    --policy as-pinned --parallel "$parallel" --report-only --force \
    --out "$out/$c" >"$out/log-$c" 2>&1 || { cat "$out/log-$c" >&2; exit 1; }
  cat "$out/time-$c" >&2
done
/usr/bin/python3 "$here/table.py" "$out" "${configs[@]}" >"$out/table.md"
mv "$out/table.md" "$here/table.md"
mv "$out/table.csv" "$here/table.csv"
cat "$here/table.md"
