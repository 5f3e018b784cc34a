#!/usr/bin/env bash
# The part every sweep study's run.sh shares: runs DIR/sweep.json into a scratch directory and keeps its
# table (DIR/sweep.csv) and, with --plots, its plots (DIR/plots/*.svg); the points are discarded.
# Usage: results/run_sweep.sh DIR BUILD_DIR [--plots]
set -euo pipefail
here=$1
build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/heterosim" sweep "$here/sweep.json" --out "$work/out" --quiet
cp "$work/out/sweep.csv" "$here/sweep.csv"
if [[ ${3:-} == --plots ]]; then
  rm -rf "$here/plots"
  mkdir -p "$here/plots"
  cp "$work/out/plots/"*.svg "$here/plots/"
fi
