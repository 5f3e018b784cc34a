#!/usr/bin/env bash
# Installs what is missing, then configures and builds HeteroSim in ./build.
# Usage: scripts/build.sh [target...]   (no target: everything, tests included)
# HS_WERROR=ON makes warnings in project code errors (CI sets it).
# HS_QUIET_BUILD=1 writes the compiler's output to build/build.log and prints one line (the log's last lines
# on failure), for the main job's first run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHS_WERROR="${HS_WERROR:-OFF}" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
if [[ ${HS_QUIET_BUILD:-0} != 1 ]]; then
  cmake --build build -j"$(nproc)" "${targets[@]}"
  exit 0
fi
start=$(date +%s)
if ! cmake --build build -j"$(nproc)" "${targets[@]}" > build/build.log 2>&1; then
  tail -40 build/build.log
  echo "build failed (full output: build/build.log)" >&2
  exit 1
fi
echo "built ${*:-everything} in $(( $(date +%s) - start )) s (compiler output: build/build.log)"
