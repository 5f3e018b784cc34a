#!/usr/bin/env bash
# Megatron-LM's weak-scaling throughput (Narayanan et al., SC 2021, Table 1), simulated for its first six
# rows (up to 76B, 4 pipeline stages): one training step of each GPT model (fp16 on tensor cores, full activation
# recomputation, dropout as Megatron-LM's defaults apply it, its cross-entropy on fp32 logits and its fp16
# optimizer, Megatron's TP splits, and the micro-batch size, pipeline and DDP implementation of Megatron-LM's
# own script for Table 1, examples/sc21/run_table_1.sh: MBS 16, 8 for 18B, 4 for 39B, 2 for 76B; whole
# layers per pipeline stage, 3 interleaved chunks per GPU for 76B; DDP=torch, PyTorch's DDP, whose 25 MiB
# buckets are all-reduced while the last micro-batch's backward runs, up to 18B, and DDP=local, after the
# backward pass, for 39B and 76B), as-pinned plan, SimGrid replay, on dgx-a100-cluster with the paper's GPU
# count, memory checked against the A100's 80 GiB. 39B and 76B simulate 2 of their 32 data-parallel
# replicas with the gradients' 32-rank rings folded onto them (--parallel replicas=2; docs/parallel.md).
# Writes table.md and table.csv beside this script (deterministic: no timings of this machine in them)
# and prints the CPU cost of each run on stderr.
# Usage: results/megatron_study/run.sh [path/to/heterosim] [config...]  (configs: 1.7b 3.6b 7.5b 18.4b 39.1b 76.1b)
set -euo pipefail
heterosim=${1:-build/heterosim}
shift || true
configs=("$@")
((${#configs[@]})) || configs=(1.7b 3.6b 7.5b 18.4b 39.1b 76.1b)
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# size: tensor- and pipeline-parallel degrees, GPUs, global batch (Table 1), and run_table_1.sh's MBS and
# DDP implementation
declare -A tp=([1.7b]=1 [3.6b]=2 [7.5b]=4 [18.4b]=8 [39.1b]=8 [76.1b]=8)
declare -A pp=([1.7b]=1 [3.6b]=1 [7.5b]=1 [18.4b]=1 [39.1b]=2 [76.1b]=4)
declare -A gpus=([1.7b]=32 [3.6b]=64 [7.5b]=128 [18.4b]=256 [39.1b]=512 [76.1b]=1024)
declare -A batch=([1.7b]=512 [3.6b]=512 [7.5b]=512 [18.4b]=1024 [39.1b]=1536 [76.1b]=1792)
declare -A micro=([1.7b]=16 [3.6b]=16 [7.5b]=16 [18.4b]=8 [39.1b]=4 [76.1b]=2)
declare -A ddp=([1.7b]=torch [3.6b]=torch [7.5b]=torch [18.4b]=torch [39.1b]=local [76.1b]=local)
# --num-layers-per-virtual-pipeline-stage 5 for 76B: 60 layers / 4 stages / 5 = 3 model chunks per GPU
declare -A chunks=([76.1b]=3)
declare -A simulated=([39.1b]=2 [76.1b]=2) # replicas built (the rest folded into the gradients' rings)
for c in "${configs[@]}"; do
  t=${tp[$c]} p=${pp[$c]} n=${gpus[$c]} b=${batch[$c]} mbs=${micro[$c]}
  dp=$((n / t / p)) per_node=$((8 / t))
  m=$((b / dp / mbs))
  # Hierarchical DDP: the data-parallel ranks of one node (8 / tp of them) reduce first, then one rail each.
  if ((per_node >= 2)); then algo="algo=hierarchical,group=$per_node"; else algo="algo=ring"; fi
  parallel="dp=$dp,$algo"
  replicas=${simulated[$c]:-$dp}
  ((replicas < dp)) && parallel="$parallel,replicas=$replicas"
  [[ ${ddp[$c]} == local ]] && parallel="$parallel,overlap=off"
  ((p > 1)) && parallel="$parallel,pp=$p,cut=layers" # Megatron's stages: whole layers, as many in each
  ((${chunks[$c]:-1} > 1)) && parallel="$parallel,interleave=${chunks[$c]}"
  ((m > 1)) && parallel="$parallel,microbatches=$m"
  ((t > 1)) && parallel="$parallel,tp=$t,vocab=split"
  workload="megatron-gpt-$c:mode=training,precision=fp16,heads=fused,recompute=full,dropout=on,loss=megatron,optimizer=megatron,batch=$mbs"
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
