#!/usr/bin/env bash
# The what-if study of docs/sweeps.md as one sweep: BERT-base on the L4 server, as is, with a second L4,
# with PCIe 5.0 links, and with the NPU swapped for an L4, at batch 1, 8 and 32, under heft and
# fastest-device. Writes sweep.csv and plots/*.svg here (the points and sweep.html go to a scratch directory;
# run the sweep with --out to keep them).
# Usage: results/whatif_l4/run.sh [build-dir]   (from the repository root)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
bash "$here/../run_sweep.sh" "$here" "$build" --plots
column -s, -t < "$here/sweep.csv"
