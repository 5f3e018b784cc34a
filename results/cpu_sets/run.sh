#!/usr/bin/env bash
# Every committed CPU measurement set (validation/measurements: the committed one and repeat/), each
# calibrated on its own kernels and replayed against its own whole-graph runs: how far the held-out figures
# move between sets measured minutes or hosts apart. Writes table.md. About 30 s.
# Usage: results/cpu_sets/run.sh [build-dir]   (from the repository root)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
sets=validation/measurements
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rows=()
for kernels in "$sets"/repeat/cpu-kernels-*.json "$sets"/cpu-kernels.json; do
  executions=${kernels/cpu-kernels/cpu-executions}
  name=$(basename "$kernels" .json)
  name=${name#cpu-kernels}
  name=${name#-}
  "$build/heterosim" validate --cpu "$kernels" --executions "$executions" --deepbench none --torch-models none \
    --out "$scratch/${name:-committed}" --quiet
  rows+=("${name:-committed}|$scratch/${name:-committed}/report.json")
done
python3 - "${rows[@]}" > "$here/table.md.tmp" <<'PY'
import json, statistics, sys
print("| set | CPU | measured (UTC) | kernels MAPE | graphs MAPE | graphs bias | replay of measured ops, bias |")
print("|---|---|---|---:|---:|---:|---:|")
biases, measured_ops = [], []
for arg in sys.argv[1:]:
    name, path = arg.split("|", 1)
    r = json.load(open(path))
    k = r["cpu_kernels"]
    env = k["environment"]
    one_thread = k["by_co_running_threads"][0]["calibrated"]
    e = r["end_to_end"]
    bias = e["simgrid"]["mean_signed_percent"]
    ops = e["measured_ops_replay_diagnostic"]["mean_signed_percent"]
    biases.append(bias)
    measured_ops.append(ops)
    print(f"| {name} | {env['cpu_model']} | {env['date']} | {one_thread['mape_percent']:.1f} % | "
          f"{e['simgrid']['mape_percent']:.1f} % | {bias:+.1f} % | {ops:+.1f} % |")
print()
print(f"Graphs' bias over the {len(biases)} sets: median {statistics.median(biases):+.1f} %, "
      f"from {min(biases):+.1f} to {max(biases):+.1f} %; the replay of measured ops: median "
      f"{statistics.median(measured_ops):+.1f} %, from {min(measured_ops):+.1f} to {max(measured_ops):+.1f} %.")
PY
mv "$here/table.md.tmp" "$here/table.md"
cat "$here/table.md"
