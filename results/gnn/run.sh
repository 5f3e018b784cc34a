#!/usr/bin/env bash
# Reproduces results.csv: builds the study (study.cpp; needs libtorch) and runs it on the shipped checkpoint
# (models/gnn-placement.pt, trained by the command in models/gnn-placement.pt.command).
# Usage: results/gnn/run.sh [build-dir]    (from the repository root, after configuring build/)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
nice cmake --build "$build" --target gnn_study -j2 >/dev/null
"$build/gnn_study" >"$here/results.csv"
cat "$here/results.csv"
