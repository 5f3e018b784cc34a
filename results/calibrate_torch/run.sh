#!/usr/bin/env bash
# `heterosim calibrate` on every committed ResNet torch.profiler trace (validation/measurements/torch/traces)
# against the matching built workload on the measured CPU (validation/platforms/this-cpu-torch.json), then
# `heterosim run --calibration` with each written calibration (the cross-check). Writes table.md and
# calibrate.csv here; each point's files go to OUT (default: a temporary folder).
# Usage: results/calibrate_torch/run.sh path/to/heterosim [OUT]
set -euo pipefail
heterosim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${2:-$(mktemp -d)}
cd "$root" # paths relative to the repository, as the calibrations record them
traces=validation/measurements/torch/traces
platform=validation/platforms/this-cpu-torch.json
rows=()
for model in resnet18 resnet18-b8 resnet50 resnet50-b8; do
  case $model in
    *-b8) workload=${model%-b8}:batch=8 ;;
    *) workload=$model ;;
  esac
  for threads in 1 2; do
    name=$model-${threads}t
    for fit in trees trees-leaf3 roofline; do
      flag=()
      [[ $fit == trees-leaf3 ]] && flag=(--min-leaf 3)
      [[ $fit == roofline ]] && flag=(--roofline-only)
      "$heterosim" calibrate --workload "$workload" --platform "$platform" --device cpu0 \
        --trace "$traces/$name.trace.json" --out "$out/$name-$fit" --force --quiet "${flag[@]}"
      "$heterosim" run --platform "$platform" --workload "$workload" --calibration "$out/$name-$fit/calibration.json" \
        --policy heft --out "$out/$name-$fit/run" --report-only --force > /dev/null
      rows+=("$name,$workload,$threads,$fit,$out/$name-$fit")
    done
  done
done
python3 "$here/summarise.py" "$here" "${rows[@]}"
