#!/usr/bin/env bash
# Every policy on one model of each family (ResNet-50, BERT-base, GPT-2 small with decode, GCN), fp16
# inference, on the heterogeneous server (CPU + GPU + NPU + FPGA behind one PCIe switch), SimGrid engine.
# Writes one CSV per model and table.txt. Usage: results/model_families/run.sh [build-dir]  (from the repo root)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
workloads=(
  "resnet50:batch=8,precision=fp16"
  "bert-base:batch=8,seq=128,precision=fp16"
  "gpt2-small:batch=1,seq=128,decode=8,precision=fp16"
  "gcn:precision=fp16"
)
: > "$here/table.txt.tmp"
for w in "${workloads[@]}"; do
  name=${w%%:*}
  echo "### $w" | tee -a "$here/table.txt.tmp"
  "$build/heterosim" compare --platform hetero-server --workload "$w" --seed 1 --csv "$here/$name.csv" --force \
    | tee -a "$here/table.txt.tmp"
  echo | tee -a "$here/table.txt.tmp"
done
mv "$here/table.txt.tmp" "$here/table.txt"
