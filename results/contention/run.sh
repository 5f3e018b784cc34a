#!/usr/bin/env bash
# Evaluator vs SimGrid replay, and each static policy's plan in the replay, over
# {resnet50, bert-base, gpt2-small, gcn} x {inference, training} plus random:ops=2000,
# on workstation (fp32), multi-gpu-node and hetero-server (fp16), for every static policy.
# Writes agreement.csv and table.md here. Usage: results/contention/run.sh [build-dir]  (from the repo root)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
cmake --build "$build" --target evaluator_agreement -j"$(nproc)" >/dev/null
# The model matrix both studies share: {resnet50, bert-base, gpt2-small, gcn} x {inference, training}.
mapfile -t workloads < "$here/../model_workloads.txt"
workloads+=("random:ops=2000,precision=fp16")
platforms=(workstation multi-gpu-node hetero-server)
jobs=()
# The workstation's CPU has no fp16 units, so fp16 graphs would all land on its GPU: it runs fp32.
for p in "${platforms[@]}"; do
  for w in "${workloads[@]}"; do
    if [[ $p == workstation ]]; then w=${w//fp16/fp32}; fi
    jobs+=("$p $w")
  done
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=${#jobs[@]}
for k in "${!jobs[@]}"; do
  echo "$k ${jobs[$k]}"
done | xargs -P "$(nproc)" -L 1 sh -c "'$build/evaluator_agreement' \"\$1\" \"\$2\" 1 > '$tmp/'\$0.csv" 2>"$tmp/stderr"
{
  echo "platform,workload,ops,policy,analytic_s,evaluator_s,replay_s,evaluator_error,analytic_error,replay_vs_fastest_device"
  for k in $(seq 0 $((i - 1))); do cat "$tmp/$k.csv"; done
} > "$here/agreement.csv.tmp"
mv "$here/agreement.csv.tmp" "$here/agreement.csv"
python3 "$here/summarise.py" "$here/agreement.csv" > "$here/table.md.tmp"
mv "$here/table.md.tmp" "$here/table.md"
cat "$here/table.md"
