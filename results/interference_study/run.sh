#!/usr/bin/env bash
# Static plans against run-time policies on the heterogeneous preset, without and with interference
# (gpu-slowdown.json: the GPU at 30% from 2 ms on, op-time noise CV 0.2). Writes the two CSV tables and
# prints both comparisons. Usage: results/interference_study/run.sh [build-dir]   (from the repository root)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
workload=random:ops=300,precision=fp16
echo "== nominal"
"$build/heterosim" compare --platform hetero-server --workload "$workload" --seed 1 --csv "$here/nominal.csv" --force
echo
echo "== with $here/gpu-slowdown.json"
"$build/heterosim" compare --platform hetero-server --workload "$workload" --seed 1 \
  --scenario "$here/gpu-slowdown.json" --csv "$here/gpu-slowdown.csv" --force
