#!/usr/bin/env bash
# The HeteroOpt article's table, regenerated: the Pareto search (archive search, contention-aware
# evaluator in the loop, every front member replayed in SimGrid) on ResNet-50, BERT-base, GPT-2 small and
# GCN, each in inference and training, on hetero-server and multi-gpu-node. Writes table.md and
# picks.csv here (the fronts go to a scratch directory; pass a second argument to keep them).
# Usage: results/heteroopt_study/run.sh [build-dir] [fronts-dir]   (from the repo root)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
fronts=${2:-$(mktemp -d)}
budget=${BUDGET:-2000}
cmake --build "$build" --target heterosim -j"$(nproc)" >/dev/null
# The model matrix both studies share: {resnet50, bert-base, gpt2-small, gcn} x {inference, training}.
mapfile -t workloads < "$here/../model_workloads.txt"
jobs=()
for p in hetero-server multi-gpu-node; do
  for w in "${workloads[@]}"; do jobs+=("$p $w"); done
done
for k in "${!jobs[@]}"; do echo "$k ${jobs[$k]}"; done |
  xargs -P "$(nproc)" -L 1 sh -c "mkdir -p '$fronts'/\$0 && echo \"\$1 \$2\" > '$fronts'/\$0/case &&
    '$build/heterosim' pareto --platform \"\$1\" --workload \"\$2\" --budget $budget --seed 1 --quiet --force \
      --out '$fronts'/\$0"
python3 "$here/summarise.py" "$fronts" "$here/picks.csv.tmp" > "$here/table.md.tmp"
mv "$here/picks.csv.tmp" "$here/picks.csv"
mv "$here/table.md.tmp" "$here/table.md"
cat "$here/table.md"
