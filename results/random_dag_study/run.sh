#!/usr/bin/env bash
# Reproduces results.csv and summary.md: builds the study helper (study.cpp) and runs the seeded suite.
# Usage: results/random_dag_study/run.sh [build-dir]    (from the repository root, after configuring build/)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
cmake --build "$build" --target random_dag_study -j2 >/dev/null
"$build/random_dag_study" "$here/results.csv" "$here/summary.md"
