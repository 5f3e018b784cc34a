#!/usr/bin/env bash
# The prepared measurement for a lent GPU machine (issue 10: "whenever a CUDA GPU is at hand, run
# hs_measure_cuda as one prepared script"). It needs only the driver, nvcc and cuBLAS there: it builds
# hs_measure_cuda with nvcc alone (not the project, whose other dependencies the machine need not have),
# times cuBLAS SGEMM (the grid, and BERT-large's and GPT-2 large's linear layers and attention products),
# the simple kernels and the copies, and snapshots the machine. Everything lands in $OUT (the device tool's
# return folder; ./gpu-out elsewhere). About 3-6 minutes on one GPU (the full grid; --quick: under one).
#   bash scripts/gpu-measure.sh [--quick]
# Then, here: build/heterosim validate --cpu gpu-out/cuda-*.json --executions none --torch-models none \
#   --out OUT   (the GPU's calibration and platform, the shipped GPU model's error on every GEMM of a GPU it
#   never saw, and the trees retrained with two thirds of its GEMMs, learned-gpu.json, scored on the third;
#   about 2 minutes, most of it DeepBench's own report); commit the set under validation/measurements/cuda/
#   with machine.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi || true
  nvidia-smi -q -d CLOCK,POWER,PERFORMANCE || true
  "$nvcc" --version
  lscpu | head -20
} >"$out/machine.txt" 2>&1
bin="$(mktemp -d)/hs_measure_cuda"
"$nvcc" -O2 -std=c++17 -Ivalidation validation/measure_cuda.cu -lcublas -ldl -o "$bin"
if ! command -v nvidia-smi >/dev/null; then
  echo "gpu-measure: no NVIDIA driver (nvidia-smi) on this machine; hs_measure_cuda built, nothing measured" >&2
  exit 3
fi
name="$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | tr -c 'A-Za-z0-9\n-' '-' | tr -s '-')"
"$bin" --out "$out/cuda-${name%-}.json" --force "$@"
# The host time an eager framework spends per op (platforms/README.md, issue_overhead), where PyTorch with
# CUDA is installed; skipped otherwise.
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  python3 validation/torch/measure_issue_overhead.py >"$out/issue-overhead.json" 2>>"$out/machine.txt" || true
fi
ls -l "$out"
