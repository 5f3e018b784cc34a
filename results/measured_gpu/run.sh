#!/usr/bin/env bash
# A measured GPU taught to the trees (README.md here): for each of four boards, its published GEMMs made into
# a GPU measurement set (make_set.py) and `heterosim validate` run on it with that board left out of the
# published data, so that neither the shipped model's check nor the retrained trees have seen it. Writes
# table.md here (the sets and reports go to a scratch directory). About 7 minutes on 2 cores.
# Usage: results/measured_gpu/run.sh [build-dir] [GEMMs per board]   (from the repository root)
set -euo pipefail
build=${1:-build}
cap=${2:-300}
here=$(dirname "$0")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
boards=(L4 H100-SXM5-80GB A100-PCIe-40GB T4-16GB)
for board in "${boards[@]}"; do
  python3 "$here/make_set.py" validation/measurements/neusight "$board" "$scratch/$board" --max "$cap" >/dev/null
  "$build/heterosim" validate --cpu "$scratch/$board/gpu-set.json" --executions none --torch-models none \
    --published-kernels "$scratch/$board/published" --out "$scratch/$board/out" --quiet
done
python3 - "$scratch" "$cap" "${boards[@]}" > "$here/table.md" <<'PY'
import json, sys
scratch, cap, boards = sys.argv[1], sys.argv[2], sys.argv[3:]
print(f"At most {cap} GEMMs of each board, every third held out. MAPE on the held-out third (bias):")
print()
print("| board | GEMMs trained / held out | own trees | shipped model, board unseen | roofline fit on the set "
      "| chosen (training GEMMs in three folds: trees / roofline) |")
print("|---|---:|---:|---:|---:|---|")
for board in boards:
    cpu = json.load(open(f"{scratch}/{board}/out/report.json"))["cpu_kernels"]
    own = cpu["own_trees"]
    cell = lambda s: f"{s['mape_percent']:.1f} % ({s['mean_signed_percent']:+.1f} %)"
    inner = own["training_folds"]
    split = (f"{inner['trees']['mape_percent']:.1f} / {inner['roofline_fit']['mape_percent']:.1f} %"
             if isinstance(inner, dict) else inner)
    print(f"| {board} | {own['trained_gemms']} / {own['trees']['count']} | {cell(own['trees'])} | "
          f"{cell(own['shipped_model'])} | {cell(own['roofline_fit'])} | {own['chosen']} ({split}) |")
PY
cat "$here/table.md"
